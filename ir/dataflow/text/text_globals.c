/* The globals of the IR text form, ir.Print and ir.Parse (docs/globals.md),
 * and its entry point for the built-ins. */
#include <string.h>

#include "expr_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "text_internal.h"

/* The options Map of ir.Print into *opts: {"elide_larger_than": int}.
 * TypeError for a value of the wrong type, ValueError for a negative
 * limit, AttributeError for an unknown key (with the closest option). */
static int read_options(const char *fn, const irm_object *map, irm_dataflow_print_options *opts) {
  static const char *const names[] = {"elide_larger_than"};
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *k;
  const irm_any *v;
  while (irm_map_iter_next(&it, &k, &v)) {
    const char *key = irm_string_data(k);
    if (strcmp(key, names[0]) != 0) {
      const char *best = irm_closest_name(key, names, sizeof names / sizeof names[0]);
      return irm_error(IRM_EATTR, "%s: unknown option '%s'%s%s%s; options: elide_larger_than", fn, irm_error_quote(key),
                       best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
    }
    int rc = irm_any_to_int(v, &opts->elide_larger_than);
    if (rc) return irm_error_context(rc, "%s: option 'elide_larger_than'", fn);
    if (opts->elide_larger_than < 0)
      return irm_error(IRM_EVALUE, "%s: option 'elide_larger_than' must be 0 (print every element) or more, got %lld",
                       fn, (long long)opts->elide_larger_than);
  }
  return IRM_OK;
}

/* ir.Print(module or IR node [, options Map]) -> str */
static int g_print(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.Print";
  irm_object *x = NULL, *map = NULL, *text = NULL;
  irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, NULL, &x);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_object(fn, args, 1, "ffi.Map", &map);
  if (!rc && map) rc = read_options(fn, map, &opts);
  if (rc) return rc;
  rc = irm_object_is(x, "ir.IRModule") ? irm_dataflow_print_ex(x, &opts, &text)
                                       : irm_dataflow_print_node_ex(x, &opts, &text);
  return irm_ret_object(fn, rc, &text, ret);
}

/* ir.Parse(text) -> IRModule */
static int g_parse(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.Parse", *text = NULL;
  size_t len = 0;
  irm_module *mod = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &text, &len);
  if (rc) return rc;
  return irm_ret_object(fn, irm_dataflow_parse(text, len, &mod), &mod, ret);
}

int irm_register_ir_text_builtins_(void) {
  static const irm_builtin_global table[] = {
      {"ir.Print", g_print},
      {"ir.Parse", g_parse},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
