/* The built-in executor and runtime kinds (config.h) and the value checks
 * of aot, installed as its FValidate attribute. Registration skips what
 * exists, so it can run again after a partial failure. */
#include <string.h>

#include "config_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"

/* The level built-in attributes are set at: the default of SetKindAttr, so
 * replacing a built-in takes an explicit higher level. */
enum { BUILTIN_PLEVEL = 10 };

typedef struct builtin_option {
  const char *name;
  irm_option_type type;
  int64_t int_default;     /* bool and int options */
  const char *str_default; /* str options */
  const char *doc;
} builtin_option;

static const builtin_option graph_options[] = {
    {"link-params", IRM_OPTION_BOOL, 0, NULL,
     "embed the parameters in the generated code instead of loading them at run time"},
};

static const builtin_option aot_options[] = {
    {"link-params", IRM_OPTION_BOOL, 1, NULL,
     "embed the parameters in the generated code instead of loading them at run time"},
    {"unpacked-api", IRM_OPTION_BOOL, 0, NULL,
     "call the entry point and operators with plain C arguments instead of packed ones"},
    {"interface-api", IRM_OPTION_STR, 0, "packed",
     "entry point interface: \"packed\" (packed function) or \"c\" (a C struct of inputs and outputs)"},
    {"workspace-byte-alignment", IRM_OPTION_INT, 16, NULL, "byte alignment of the workspace buffers (a power of two)"},
    {"constant-byte-alignment", IRM_OPTION_INT, 16, NULL, "byte alignment of the constant buffers (a power of two)"},
};

#define SYSTEM_LIB_OPTION                                                                      \
  {                                                                                            \
    "system-lib", IRM_OPTION_BOOL, 0, NULL,                                                    \
        "link the operators into the program as a system library instead of a loadable module" \
  }

static const builtin_option cpp_options[] = {
    SYSTEM_LIB_OPTION,
    {"num-threads", IRM_OPTION_INT, 0, NULL,
     "threads the kernels split their work over (0: every CPU the process may use; IRM_NUM_THREADS overrides it "
     "at load)"},
    {"thread-affinity", IRM_OPTION_BOOL, 0, NULL, "pin the thread pool's workers to CPUs, one each"},
};

static const builtin_option crt_options[] = {
    SYSTEM_LIB_OPTION,
    {"num-threads", IRM_OPTION_INT, 1, NULL, "always 1: the crt runtime is single-threaded (bare metal)"},
};

static int aot_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);
static int cpp_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);
static int crt_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);

static const struct builtin_kind {
  const char *category;
  const char *name;
  const builtin_option *options;
  size_t n_options;
  irm_packed_cfunc validate; /* NULL: no checks beyond the types */
} builtin_kinds[] = {
    {"executor", "graph", graph_options, sizeof graph_options / sizeof graph_options[0], NULL},
    {"executor", "aot", aot_options, sizeof aot_options / sizeof aot_options[0], aot_validate},
    {"executor", "vm", NULL, 0, NULL},
    {"runtime", "cpp", cpp_options, sizeof cpp_options / sizeof cpp_options[0], cpp_validate},
    {"runtime", "crt", crt_options, sizeof crt_options / sizeof crt_options[0], crt_validate},
};

/* ---- registration ---------------------------------------------------------- */

static int add_option_once(irm_kind *kind, const builtin_option *o) {
  int rc = irm_kind_option(kind, o->name, NULL, NULL);
  if (rc != IRM_EATTR) return rc; /* there already (0), or a real failure */
  irm_clear_error();
  irm_any def = o->type == IRM_OPTION_STR    ? irm_any_str(o->str_default)
                : o->type == IRM_OPTION_BOOL ? irm_any_bool(o->int_default != 0)
                                             : irm_any_int(o->int_default);
  return irm_kind_add_option(kind, o->name, o->type, &def, o->doc, 0);
}

static int set_validator_once(irm_kind *kind, irm_packed_cfunc fn) {
  irm_any current = irm_any_none();
  int rc = irm_kind_get_attr(kind, IRM_CONFIG_FVALIDATE, &current);
  if (rc == IRM_EATTR) irm_clear_error(); /* the first validator of its category */
  else if (rc || current.type_code != IRM_NONE) {
    irm_any_release(&current);
    return rc;
  }
  irm_object *f = NULL;
  rc = irm_func_new_packed(fn, NULL, NULL, &f);
  if (rc) return rc;
  irm_any value = irm_any_object(f);
  rc = irm_kind_set_attr(kind, IRM_CONFIG_FVALIDATE, &value, BUILTIN_PLEVEL);
  irm_object_release(f);
  return rc;
}

int irm_register_config_kinds_(void) {
  for (size_t i = 0; i < sizeof builtin_kinds / sizeof builtin_kinds[0]; i++) {
    const struct builtin_kind *b = &builtin_kinds[i];
    irm_kind *kind = NULL;
    int rc = irm_kind_register(b->category, b->name, &kind);
    for (size_t j = 0; rc == IRM_OK && j < b->n_options; j++) rc = add_option_once(kind, &b->options[j]);
    if (rc == IRM_OK && b->validate) rc = set_validator_once(kind, b->validate);
    if (rc) return irm_error_context(rc, "built-in %s kind '%s'", b->category, b->name);
  }
  return IRM_OK;
}

/* ---- aot's value checks ------------------------------------------------------ */

static int check_power_of_two(const irm_object *attrs, const char *option) {
  const irm_any *v = irm_map_find_cstr(attrs, option);
  if (!v) return IRM_OK;
  int64_t x = 0;
  int rc = irm_any_to_int(v, &x);
  if (rc) return irm_error_context(rc, "option '%s'", option);
  if (x <= 0 || (x & (x - 1)) != 0)
    return irm_error(IRM_EVALUE, "option '%s' must be a power of two, got %lld", option, (long long)x);
  return IRM_OK;
}

static int aot_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "FValidate of executor 'aot'";
  (void)ret;
  (void)resource;
  irm_object *attrs = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Map", &attrs);
  if (rc) return rc;
  const irm_any *api = irm_map_find_cstr(attrs, "interface-api");
  if (api) {
    const char *s = NULL;
    if ((rc = irm_any_to_str(api, &s, NULL))) return irm_error_context(rc, "option 'interface-api'");
    if (strcmp(s, "packed") != 0 && strcmp(s, "c") != 0)
      return irm_error(IRM_EVALUE, "option 'interface-api' must be \"packed\" or \"c\", got '%s'", irm_error_quote(s));
  }
  rc = check_power_of_two(attrs, "workspace-byte-alignment");
  return rc ? rc : check_power_of_two(attrs, "constant-byte-alignment");
}

/* ---- the runtimes' value checks ------------------------------------------------ */

/* The most threads a runtime may ask for (runtime/'s IRM_THREADPOOL_MAX). */
#define MAX_THREADS 256

static int runtime_attrs(const char *fn, const irm_any *args, int32_t nargs, irm_object **attrs, int64_t *threads,
                         bool *given) {
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Map", attrs);
  if (rc) return rc;
  const irm_any *v = irm_map_find_cstr(*attrs, "num-threads");
  *given = v != NULL;
  if (v && (rc = irm_any_to_int(v, threads))) return irm_error_context(rc, "option 'num-threads'");
  return IRM_OK;
}

static int cpp_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)ret;
  (void)resource;
  irm_object *attrs = NULL;
  int64_t n = 0;
  bool given = false;
  int rc = runtime_attrs("FValidate of runtime 'cpp'", args, nargs, &attrs, &n, &given);
  if (!rc && given && (n < 0 || n > MAX_THREADS))
    rc = irm_error(IRM_EVALUE,
                   "option 'num-threads' must be 0 (every CPU the process may use) or a thread count from 1 to %d, "
                   "got %lld",
                   MAX_THREADS, (long long)n);
  return rc;
}

static int crt_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)ret;
  (void)resource;
  irm_object *attrs = NULL;
  int64_t n = 1;
  bool given = false;
  int rc = runtime_attrs("FValidate of runtime 'crt'", args, nargs, &attrs, &n, &given);
  if (!rc && given && n != 1)
    rc = irm_error(IRM_EVALUE,
                   "option 'num-threads' of runtime 'crt' must be 1, got %lld: crt targets bare metal, where "
                   "there are no threads, and its code runs on one; use Runtime('cpp', {'num-threads': %lld}) "
                   "for threads",
                   (long long)n, (long long)n);
  return rc;
}
