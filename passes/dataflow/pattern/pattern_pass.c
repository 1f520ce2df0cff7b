/* Pattern passes (pattern_pass.h): a rule set as a function pass, by name
 * (irm_pattern_pass_register, transform.RegisterPatternPass), from other
 * languages (transform.PatternPass), and from rules files loaded as
 * plugins (irm_rules_file_load, registered for *.rules with the plugin
 * loader). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "irm/container.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "pattern_driver.h"

#define MAX_RULES_FILE (16u << 20)

typedef struct pattern_pass_res {
  irm_ruleset_ *rs;
} pattern_pass_res;

static void res_free(void *data) {
  pattern_pass_res *r = data;
  irm_ruleset_free_(r->rs);
  irm_free(r);
}

/* The name under which mod holds func (borrowed), or NULL. */
static const char *name_in(const irm_module *mod, const irm_object *func, irm_object **names) {
  if (irm_module_function_names(mod, names)) {
    irm_clear_error();
    return NULL;
  }
  for (size_t i = 0; i < irm_array_size(*names); i++) {
    const char *n = irm_string_data(irm_array_at(*names, i)->v_obj);
    if (irm_module_function(mod, n) == func) return n;
  }
  return NULL;
}

/* Verifies mod with func (rewritten) in the place of original. */
static int verify_rewritten(const irm_module *mod, const irm_object *original, irm_object *func) {
  irm_object *names = NULL;
  const char *name = mod ? name_in(mod, original, &names) : NULL;
  irm_module *m = NULL;
  int rc = IRM_OK;
  if (name && !(rc = irm_module_with_function(mod, name, func, &m))) rc = irm_dataflow_verify(m);
  if (rc) rc = irm_error_context(rc, "the rewritten function does not verify");
  irm_object_release(m);
  irm_object_release(names);
  return rc;
}


/* A float config option of the pattern passes: 0 (the default) when unset;
 * >= 0, finite. */
static int float_config(const irm_module *mod, const char *key, double *out) {
  irm_any v = irm_any_none();
  int rc = irm_pass_get_config(mod, key, &v);
  *out = 0;
  if (!rc && v.type_code != IRM_NONE) rc = irm_any_to_float(&v, out);
  irm_any_release(&v);
  if (!rc && !(*out >= 0 && *out <= 1e300))
    rc = irm_error(IRM_EVALUE, "%s must be >= 0 and finite (0: the default), got %g", key, *out);
  return rc;
}

static int pattern_body(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                        void *resource, irm_object **out) {
  (void)ctx;
  (void)options;
  if (irm_expr_kind_of(func) != IRM_EXPR_FUNCTION) { /* another IR's function */
    irm_object_retain(func);
    *out = func;
    return IRM_OK;
  }
  const pattern_pass_res *r = resource;
  int64_t max = 0;
  irm_any v = irm_any_none();
  int rc = irm_pass_get_config(mod, "PatternPass.max_iterations", &v);
  if (!rc && v.type_code != IRM_NONE) rc = irm_any_to_int(&v, &max);
  irm_any_release(&v);
  if (!rc && (max < 0 || max > INT32_MAX))
    rc = irm_error(IRM_EVALUE, "PatternPass.max_iterations must be >= 0 (0: the default), got %lld", (long long)max);
  irm_rewrite_limits_ lim = {(int)max, 0, 0, 0};
  if (!rc) rc = float_config(mod, "PatternPass.max_growth", &lim.max_growth);
  if (!rc) rc = float_config(mod, "PatternPass.max_seconds", &lim.max_seconds);
  if (!rc) rc = irm_ruleset_apply_(r->rs, func, mod, &lim, out);
  if (!rc && *out != func && (rc = verify_rewritten(mod, func, *out))) {
    irm_object_release(*out);
    *out = NULL;
  }
  return rc;
}

int irm_pattern_pass(const char *name, const irm_object *rules, int opt_level, irm_pass **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pattern_pass: out must not be NULL");
  *out = NULL;
  static const char *const required[] = {"InferType"};
  pattern_pass_res *r = irm_calloc(1, sizeof *r);
  if (!r) return irm_error_nomem_("making a pattern pass");
  int rc = irm_ruleset_new_("irm_pattern_pass", rules, &r->rs);
  if (!rc) rc = irm_function_pass_new(name, opt_level, required, 1, NULL, pattern_body, r, res_free, out);
  if (rc) res_free(r);
  return rc;
}

/* ---- registration by name ------------------------------------------------------ */

/* The resource of a registered pattern pass: {name, opt_level, rules}. */
static int make_registered(const irm_object *options, void *resource, irm_pass **out) {
  (void)options;
  const irm_object *def = resource;
  int64_t level = 0;
  irm_any_to_int(irm_map_find_cstr(def, "opt_level"), &level);
  return irm_pattern_pass(irm_string_data(irm_map_find_cstr(def, "name")->v_obj),
                          irm_map_find_cstr(def, "rules")->v_obj, (int)level, out);
}

static void release_def(void *data) { irm_object_release(data); }

int irm_pattern_pass_register(const char *name, const irm_object *rules, int opt_level) {
  if (!name || !name[0]) return irm_error(IRM_EVALUE, "irm_pattern_pass_register: a pass needs a name");
  if (opt_level < 0)
    return irm_error(IRM_EVALUE, "irm_pattern_pass_register: opt_level must be >= 0, got %d", opt_level);
  int rc = irm_check_rules_("irm_pattern_pass_register", rules);
  if (rc) return rc;
  irm_object *def = NULL;
  const char *keys[] = {"name", "opt_level", "rules"};
  irm_any values[] = {irm_any_str(name), irm_any_int(opt_level), irm_any_object((irm_object *)rules)};
  if ((rc = irm_map_from_pairs(keys, values, 3, &def))) return rc;
  /* The registry keeps def as the factory's resource. A rollback takes the
   * registration back and then def (recorded after it, undone before:
   * nothing makes the pass in between); committed, it lives with the
   * registration, for the process. */
  if ((rc = irm_pass_register_ex(name, make_registered, def, NULL, NULL))) {
    irm_object_release(def);
    return rc;
  }
  if (irm_journal_active() && irm_journal_record(release_def, NULL, def)) irm_clear_error();
  return IRM_OK;
}

/* ---- rules files ------------------------------------------------------------------- */

static int read_file(const char *path, char **text, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return irm_error(IRM_EVALUE, "cannot open: %s", strerror(errno));
  char *buf = irm_malloc(MAX_RULES_FILE + 1);
  size_t n = buf ? fread(buf, 1, MAX_RULES_FILE + 1, f) : 0;
  fclose(f);
  if (!buf) return irm_error_nomem_("reading a rules file");
  if (n > MAX_RULES_FILE) {
    irm_free(buf);
    return irm_error(IRM_EVALUE, "the file is larger than %u bytes", MAX_RULES_FILE);
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return IRM_OK;
}

static int register_passes(const irm_object *passes) {
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < irm_array_size(passes); i++) {
    const irm_object *def = irm_array_at(passes, i)->v_obj;
    int64_t level = 0;
    irm_any_to_int(irm_map_find_cstr(def, "opt_level"), &level);
    const char *name = irm_string_data(irm_map_find_cstr(def, "name")->v_obj);
    if ((rc = irm_pattern_pass_register(name, irm_map_find_cstr(def, "rules")->v_obj, (int)level)))
      rc = irm_error_context(rc, "pass '%s'", irm_error_quote(name));
  }
  return rc;
}

int irm_rules_file_load(const char *path) {
  if (!path) return irm_error(IRM_EVALUE, "irm_rules_file_load: path must not be NULL");
  char *text = NULL;
  size_t len = 0;
  irm_object *passes = NULL;
  irm_journal *j = NULL;
  int rc = read_file(path, &text, &len);
  if (!rc) rc = irm_rewrite_rules_parse_passes(text, len, &passes);
  irm_free(text);
  if (!rc && !(rc = irm_journal_open(&j))) {
    if ((rc = register_passes(passes))) {
      char *cause = irm_strdup(irm_last_error());
      irm_journal_rollback(j);
      rc = irm_error(IRM_EVALUE, "%s", cause ? cause : "out of memory");
      irm_free(cause);
    } else if ((rc = irm_journal_commit(j))) {
      irm_journal_rollback(j);
    }
  }
  irm_object_release(passes);
  return rc ? irm_error_context(rc, "rules file '%s'", irm_error_quote(path)) : IRM_OK;
}

/* ---- globals ------------------------------------------------------------------------ */

/* transform.PatternPass(name, rules, opt_level=0) -> Pass */
static int g_pattern_pass(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PatternPass", *name = NULL;
  size_t n = 0;
  irm_object *rules = NULL;
  int64_t level = 0;
  irm_pass *pass = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 3);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, &n);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ffi.Array", &rules);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_int(fn, args, 2, &level);
  if (!rc && (level < 0 || level > INT32_MAX)) rc = irm_error(IRM_EVALUE, "%s: opt_level must be >= 0", fn);
  if (!rc) rc = irm_pattern_pass(name, rules, (int)level, &pass);
  return irm_ret_object(fn, rc, &pass, ret);
}

/* transform.RegisterPatternPass(name, rules, opt_level=0) */
static int g_register_pattern_pass(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  (void)ret;
  const char *fn = "transform.RegisterPatternPass", *name = NULL;
  size_t n = 0;
  irm_object *rules = NULL;
  int64_t level = 0;
  int rc = irm_arg_count(fn, nargs, 2, 3);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, &n);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ffi.Array", &rules);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_int(fn, args, 2, &level);
  if (!rc && (level < 0 || level > INT32_MAX)) rc = irm_error(IRM_EVALUE, "%s: opt_level must be >= 0", fn);
  if (!rc && (rc = irm_pattern_pass_register(name, rules, (int)level))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* dataflow.pattern.Rewrite(rules, expr or Function, mod=None, once=False) -> expr */
static int g_rewrite(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.pattern.Rewrite";
  irm_object *rules = NULL, *expr = NULL, *mod = NULL, *out = NULL;
  int64_t once = 0;
  int rc = irm_arg_count(fn, nargs, 2, 4);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Array", &rules);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ffi.Object", &expr); /* an expression or a Function */
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_object(fn, args, 2, "ir.IRModule", &mod);
  if (!rc && irm_arg_present(args, nargs, 3)) rc = irm_arg_int(fn, args, 3, &once);
  if (!rc) rc = irm_pattern_rewrite_ex(rules, expr, (irm_module *)mod, once != 0, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

/* plugin.LoadRules(path) */
static int g_load_rules(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  (void)ret;
  const char *fn = "transform.LoadRules", *path = NULL;
  size_t n = 0;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &path, &n);
  return rc ? rc : irm_rules_file_load(path);
}

int irm_register_pattern_pass_builtins_(void) {
  static const irm_builtin_global table[] = {
      {"transform.PatternPass", g_pattern_pass},
      {"transform.RegisterPatternPass", g_register_pattern_pass},
      {"transform.LoadRules", g_load_rules},
      {"dataflow.pattern.Rewrite", g_rewrite},
  };
  irm_any zero = irm_any_int(0);
  int rc = irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
  if (!rc) rc = irm_module_attr_register("PatternPass.max_iterations", "int", 0);
  if (!rc) rc = irm_pass_config_register("PatternPass.max_iterations", "int", &zero, "PatternPass.max_iterations");
  irm_any zero_f = irm_any_float(0);
  const char *floats[] = {"PatternPass.max_growth", "PatternPass.max_seconds"};
  for (size_t i = 0; i < 2 && !rc; i++) {
    rc = irm_module_attr_register(floats[i], "float", 0);
    if (!rc) rc = irm_pass_config_register(floats[i], "float", &zero_f, floats[i]);
  }
  if (!rc) rc = irm_plugin_file_loader_register_(".rules", irm_rules_file_load);
  return rc;
}
