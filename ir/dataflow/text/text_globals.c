/* The globals of the IR text form, ir.Print and ir.Parse (docs/globals.md),
 * and its entry point for the built-ins. */
#include "expr_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "text_internal.h"

/* ir.Print(module or IR node) -> str */
static int g_print(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.Print";
  irm_object *x = NULL, *text = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, NULL, &x);
  if (rc) return rc;
  rc = irm_object_is(x, "ir.IRModule") ? irm_ir_print(x, &text) : irm_ir_print_node(x, &text);
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
  return irm_ret_object(fn, irm_ir_parse(text, len, &mod), &mod, ret);
}

int irm_register_ir_text_builtins_(void) {
  static const irm_builtin_global table[] = {
      {"ir.Print", g_print},
      {"ir.Parse", g_parse},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
