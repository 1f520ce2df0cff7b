/* Executor and runtime options that targets used to carry (RFC-0029): the
 * errors that point to their new owners, and target.ConvertLegacy, which
 * turns an old target string into a Target, an Executor and a Runtime with
 * TVM 0.9's rules and one deprecation warning per option. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "target_internal.h"

typedef enum legacy_role {
  EXECUTOR_NAME,   /* -executor=X: the Executor's kind */
  EXECUTOR_OPTION, /* an option of the Executor */
  RUNTIME_NAME,    /* -runtime=X: the Runtime's kind */
  RUNTIME_OPTION   /* an option of the Runtime */
} legacy_role;

typedef struct legacy_option {
  const char *name;
  irm_option_type type;
  legacy_role role;
  const char *example; /* what to write instead */
} legacy_option;

static const legacy_option legacy_options[] = {
    {"executor", IRM_OPTION_STR, EXECUTOR_NAME, "Executor('aot')"},
    {"interface-api", IRM_OPTION_STR, EXECUTOR_OPTION, "Executor('aot', {'interface-api': 'c'})"},
    {"unpacked-api", IRM_OPTION_BOOL, EXECUTOR_OPTION, "Executor('aot', {'unpacked-api': True})"},
    {"link-params", IRM_OPTION_BOOL, EXECUTOR_OPTION, "Executor('graph', {'link-params': True})"},
    {"workspace-byte-alignment", IRM_OPTION_INT, EXECUTOR_OPTION, "Executor('aot', {'workspace-byte-alignment': 16})"},
    {"constant-byte-alignment", IRM_OPTION_INT, EXECUTOR_OPTION, "Executor('aot', {'constant-byte-alignment': 16})"},
    {"runtime", IRM_OPTION_STR, RUNTIME_NAME, "Runtime('crt')"},
    {"system-lib", IRM_OPTION_BOOL, RUNTIME_OPTION, "Runtime('cpp', {'system-lib': True})"},
};

static const legacy_option *find_legacy(const char *name) {
  for (size_t i = 0; i < sizeof legacy_options / sizeof legacy_options[0]; i++)
    if (strcmp(legacy_options[i].name, name) == 0) return &legacy_options[i];
  return NULL;
}

int irm_target_legacy_option_(const char *name, irm_option_type *type) {
  const legacy_option *o = find_legacy(name);
  if (o && type) *type = o->type;
  return o != NULL;
}

int irm_target_legacy_error_(const irm_kind *kind, const char *option) {
  const legacy_option *o = find_legacy(option);
  const char *owner = o->role == EXECUTOR_NAME     ? "the Executor's kind"
                      : o->role == RUNTIME_NAME    ? "the Runtime's kind"
                      : o->role == EXECUTOR_OPTION ? "an executor option"
                                                   : "a runtime option";
  return irm_error(IRM_EATTR,
                   "target '%s' has no option '%s': '%s' is %s now: pass %s (target.ConvertLegacy converts old "
                   "target strings)",
                   irm_kind_name(kind), irm_error_quote(option), irm_error_quote(option), owner, o->example);
}

/* ---- conversion ------------------------------------------------------------------- */

typedef struct conversion {
  const irm_object *source; /* Map option -> value where the options are read; may be NULL */
  const char *executor;     /* the Executor's kind when given, else NULL */
  irm_object *executor_options, *runtime_options;
  const char *runtime; /* the Runtime's kind when given ("c" already "crt"), else NULL */
} conversion;

static int warn_ignored(const irm_object *found, const char *where);
static int read_source(conversion *c);
static int make_config(const char *global, const char *kind, irm_object *options, irm_object **out);

int irm_target_convert_legacy(const char *text, const char *host_text, irm_target **target, irm_object **executor,
                              irm_object **runtime) {
  if (target) *target = NULL;
  if (executor) *executor = NULL;
  if (runtime) *runtime = NULL;
  if (!text) return irm_error(IRM_EVALUE, "irm_target_convert_legacy: text must not be NULL");
  /* Checked here too: the context added below quotes the texts. */
  int rc = irm_utf8_check_("the target string", text);
  if (!rc && host_text) rc = irm_utf8_check_("the host's target string", host_text);
  if (rc) return rc;
  rc = irm_builtins_ready_();
  target_legacy main_found = {0}, host_found = {0};
  irm_object *t = NULL, *h = NULL, *with = NULL, *e = NULL, *r = NULL;
  conversion c = {0};
  if (!rc) rc = irm_target_parse_(text, 0, &main_found, &t);
  if (!rc && host_text) {
    rc = irm_target_parse_(host_text, 0, &host_found, &h);
    if (!rc) rc = irm_target_with_host(t, h, &with);
    if (!rc) {
      irm_object_release(t);
      t = with;
    }
    c.source = host_found.found[0];
    for (int i = 0; !rc && i <= IRM_TARGET_MAX_DEPTH; i++) rc = warn_ignored(main_found.found[i], "the target");
    for (int i = 1; !rc && i <= IRM_TARGET_MAX_DEPTH; i++) rc = warn_ignored(host_found.found[i], "a host's host");
  } else if (!rc) {
    int from = irm_target_host(t) ? 1 : 0; /* TVM 0.9: the host's options when there is a host */
    c.source = main_found.found[from];
    for (int i = 0; !rc && i <= IRM_TARGET_MAX_DEPTH; i++)
      if (i != from) rc = warn_ignored(main_found.found[i], i == 0 ? "the target" : "a host's host");
  }
  if (!rc) rc = read_source(&c);
  if (!rc && (c.executor || irm_map_size(c.executor_options)))
    rc = make_config("executor.Create", c.executor ? c.executor : "graph", c.executor_options, &e);
  if (!rc && (c.runtime || irm_map_size(c.runtime_options)))
    rc = make_config("runtime.Create", c.runtime ? c.runtime : "cpp", c.runtime_options, &r);
  irm_object_release(c.executor_options);
  irm_object_release(c.runtime_options);
  irm_object_release(h);
  irm_target_legacy_clear_(&main_found);
  irm_target_legacy_clear_(&host_found);
  if (rc) {
    irm_object_release(t);
    irm_object_release(e);
    irm_object_release(r);
    return irm_error_context(rc, "converting legacy target '%s'", irm_error_quote(text));
  }
  if (target) *target = t;
  else irm_object_release(t);
  if (executor) *executor = e;
  else irm_object_release(e);
  if (runtime) *runtime = r;
  else irm_object_release(r);
  return IRM_OK;
}

/* value in the Python-like spelling of the examples: True, 16, 'c' (a
 * long string shown cut, with "...", as irm_error_quote cuts). */
static void format_value(const irm_any *v, char *buf, size_t size) {
  const char *s = NULL;
  if (v->type_code == IRM_BOOL) snprintf(buf, size, "%s", v->v_int ? "True" : "False");
  else if (v->type_code == IRM_INT) snprintf(buf, size, "%" PRId64, v->v_int);
  else if (irm_any_to_str(v, &s, NULL) == IRM_OK) snprintf(buf, size, "'%s'", irm_error_quote(s));
  else snprintf(buf, size, "%s", irm_any_type_name(v));
}

/* A deprecation warning is part of the conversion's result: one that
 * cannot be delivered (out of memory), or that the policy makes an error,
 * fails the conversion. Each distinct one goes out once per process. */
static int warned(int rc) { return rc == IRM_ENOMEM ? irm_error_nomem_("delivering a deprecation warning") : rc; }

/* Options of a target whose options are not the ones read (TVM 0.9 reads
 * the host's when there is a host): dropped, with a warning each. */
static int warn_ignored(const irm_object *found, const char *where) {
  irm_map_iter it = irm_map_iter_begin(found);
  const irm_object *key;
  const irm_any *value;
  int rc = IRM_OK;
  while (!rc && irm_map_iter_next(&it, &key, &value)) {
    char shown[IRM_ERROR_QUOTE_MAX + 8];
    format_value(value, shown, sizeof shown);
    rc = warned(irm_warn_unique_(IRM_DEPRECATION_PREFIX
                                 "target option '-%s' (%s) of %s is deprecated and ignored: "
                                 "with a host, executor and runtime options are read from the host; pass %s instead",
                                 irm_string_data(key), shown, where, find_legacy(irm_string_data(key))->example));
  }
  return rc;
}

/* Moves value into an options Map of the conversion, warning once. */
static int move_option(irm_object **options, const char *owner, const char *kind, const char *name,
                       const irm_any *value) {
  char shown[IRM_ERROR_QUOTE_MAX + 8];
  format_value(value, shown, sizeof shown);
  int rc = warned(irm_warn_unique_(IRM_DEPRECATION_PREFIX "target option '-%s' is deprecated: it is an option of "
                                                          "the %s now; pass %s('%s', {'%s': %s})",
                                   name, owner, owner, irm_error_quote(kind), name, shown));
  return rc ? rc : irm_map_set_move(options, name, value);
}

/* TVM 0.9's rules, option by option, in the order given. */
static int read_source(conversion *c) {
  const irm_any *exec = irm_map_find_cstr(c->source, "executor");
  if (exec) (void)irm_any_to_str(exec, &c->executor, NULL);
  const char *exec_kind = c->executor ? c->executor : "graph";
  const irm_any *runtime = irm_map_find_cstr(c->source, "runtime");
  const char *given_runtime = NULL;
  if (runtime) (void)irm_any_to_str(runtime, &given_runtime, NULL);
  if (given_runtime) c->runtime = strcmp(given_runtime, "c") == 0 ? "crt" : given_runtime;
  const char *runtime_kind = c->runtime ? c->runtime : "cpp";
  int rc = irm_map_new(&c->executor_options);
  if (!rc) rc = irm_map_new(&c->runtime_options);
  irm_map_iter it = irm_map_iter_begin(c->source);
  const irm_object *key;
  const irm_any *value;
  while (!rc && irm_map_iter_next(&it, &key, &value)) {
    const char *name = irm_string_data(key);
    const legacy_option *o = find_legacy(name);
    if (o->role == EXECUTOR_NAME) {
      rc = warned(irm_warn_unique_(IRM_DEPRECATION_PREFIX
                                   "target option '-executor=%s' is deprecated: pass Executor('%s') instead",
                                   irm_error_quote(c->executor), irm_error_quote(c->executor)));
    } else if (o->role == RUNTIME_NAME) {
      rc = warned(irm_warn_unique_(IRM_DEPRECATION_PREFIX
                                   "target option '-runtime=%s' is deprecated: pass Runtime('%s') instead",
                                   irm_error_quote(given_runtime), irm_error_quote(runtime_kind)));
    } else if (o->role == RUNTIME_OPTION) {
      rc = move_option(&c->runtime_options, "Runtime", runtime_kind, name, value);
    } else if (strcmp(name, "link-params") == 0 && (!value->v_int || strcmp(exec_kind, "aot") == 0)) {
      rc = warned(
          irm_warn_unique_(IRM_DEPRECATION_PREFIX "target option '-link-params=%s' is deprecated and "
                                                  "dropped: %s; pass %s('%s', "
                                                  "{'link-params': True}) to link parameters",
                           value->v_int ? "1" : "0",
                           value->v_int ? "the aot executor links parameters by default" : "not linking is the default",
                           "Executor", irm_error_quote(exec_kind)));
    } else {
      rc = move_option(&c->executor_options, "Executor", exec_kind, name, value);
    }
  }
  return rc;
}

/* Calls executor.Create or runtime.Create (kind, options). *out NEW. */
static int make_config(const char *global, const char *kind, irm_object *options, irm_object **out) {
  irm_any args[2] = {irm_any_str(kind), irm_any_object(options)};
  irm_any ret = irm_any_none();
  int rc = irm_func_call_global(global, args, 2, &ret);
  if (!rc && ret.type_code != IRM_OBJECT) {
    rc = irm_error(IRM_ETYPE, "%s returned %s, not an object", global, irm_any_type_name(&ret));
    irm_any_release(&ret);
  }
  if (rc) return rc;
  *out = ret.v_obj;
  return IRM_OK;
}
