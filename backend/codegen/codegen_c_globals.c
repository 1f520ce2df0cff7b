/* The C kernel generator's globals (docs/codegen.md, docs/globals.md):
 *   codegen.CKernel(func, symbol [, target]) -> Map {code, n_inputs,
 *     n_outputs, scratch_bytes}: irm_codegen_c_kernel_ on a typed
 *     dataflow Function.
 *   codegen.CPrelude([targets Array]) -> String: irm_codegen_c_prelude_.
 *   codegen.CText(kind, text) -> String: text as generated C puts data
 *     (c_text.h), for external code generators and the tests. */
#include "c_text.h"
#include "codegen_c_internal.h"
#include "irm/function.h"
#include "irm/target.h"

static int target_arg(const char *fn, const irm_any *args, int32_t nargs, int32_t i, irm_object **out) {
  *out = NULL;
  return irm_arg_present(args, nargs, i) ? irm_arg_object(fn, args, i, IRM_TARGET_TYPE_KEY, out) : IRM_OK;
}

static int c_kernel(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "codegen.CKernel";
  (void)resource;
  irm_object *func = NULL, *target = NULL, *code = NULL, *res = NULL;
  const char *symbol = NULL;
  size_t len = 0;
  int rc = irm_arg_count(fn, nargs, 2, 3);
  if (!rc) rc = irm_arg_object(fn, args, 0, NULL, &func);
  if (!rc && irm_any_to_str(&args[1], &symbol, &len))
    rc = irm_error(IRM_ETYPE, "%s: argument 2 (symbol) must be a string, got %s", fn, irm_any_describe_(&args[1]));
  if (!rc) rc = target_arg(fn, args, nargs, 2, &target);
  if (rc) return rc;
  irm_text_buf b = {0};
  irm_c_kernel_info_ info = {0};
  rc = irm_codegen_c_kernel_(func, symbol, target, NULL, &b, &info);
  irm_free(info.schedules); /* codegen.CKernel does not report them */
  if (!rc) rc = irm_text_buf_take_string_(&b, "generating C", &code);
  irm_text_buf_free_(&b);
  if (!rc) rc = irm_map_new(&res);
  irm_any vals[] = {irm_any_object(code), irm_any_int((int64_t)info.n_inputs), irm_any_int((int64_t)info.n_outputs),
                    irm_any_int((int64_t)info.scratch_bytes)};
  const char *keys[] = {"code", "n_inputs", "n_outputs", "scratch_bytes"};
  for (size_t i = 0; i < 4 && !rc; i++) rc = irm_map_set_move(&res, keys[i], &vals[i]);
  irm_object_release(code);
  if (rc) {
    irm_object_release(res);
    return rc;
  }
  *ret = irm_any_object(res);
  return IRM_OK;
}

static int c_prelude(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "codegen.CPrelude";
  (void)resource;
  irm_object *arr = NULL, *s = NULL;
  int rc = irm_arg_count(fn, nargs, 0, 1);
  if (!rc && irm_arg_present(args, nargs, 0)) rc = irm_arg_object(fn, args, 0, "ffi.Array", &arr);
  if (rc) return rc;
  size_t n = arr ? irm_array_size(arr) : 0;
  const irm_object **targets = irm_malloc((n + 1) * sizeof *targets);
  if (!targets) return irm_error_nomem_("generating C");
  for (size_t i = 0; i < n; i++) {
    const irm_any *v = irm_array_at(arr, i);
    targets[i] = v->type_code == IRM_OBJECT ? v->v_obj : NULL;
  }
  irm_text_buf b = {0};
  rc = irm_codegen_c_prelude_(targets, n, &b);
  if (!rc) rc = irm_text_buf_take_string_(&b, "generating C", &s);
  irm_text_buf_free_(&b);
  irm_free(targets);
  if (rc) return rc;
  *ret = irm_any_object(s);
  return IRM_OK;
}

static int c_text(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "codegen.CText";
  static const char *const kinds[] = {"string", "comment", "identifier"};
  (void)resource;
  const char *kind = NULL, *text = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_str(fn, args, 0, &kind, NULL);
  if (!rc) rc = irm_arg_str(fn, args, 1, &text, NULL);
  if (rc) return rc;
  irm_text_buf b = {0};
  if (strcmp(kind, kinds[0]) == 0) irm_c_string_(&b, text);
  else if (strcmp(kind, kinds[1]) == 0) irm_c_comment_(&b, text);
  else if (strcmp(kind, kinds[2]) == 0) {
    char *id = irm_c_mangle_(text);
    if (!id) return irm_error_nomem_("generating C");
    irm_text_buf_puts_(&b, id);
    irm_free(id);
  } else {
    const char *near = irm_closest_name(kind, kinds, 3);
    return irm_error(IRM_EVALUE, "%s: unknown kind '%s'%s%s%s; the kinds are string, comment, identifier", fn,
                     irm_error_quote(kind), near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
  }
  irm_object *s = NULL;
  rc = irm_text_buf_take_string_(&b, "generating C", &s);
  irm_text_buf_free_(&b);
  if (rc) return rc;
  *ret = irm_any_object(s);
  return IRM_OK;
}

int irm_register_codegen_c_globals_(void) {
  static const irm_builtin_global globals[] = {
      {"codegen.CKernel", c_kernel},
      {"codegen.CPrelude", c_prelude},
      {"codegen.CText", c_text},
  };
  return irm_global_register_builtins_(globals, sizeof globals / sizeof globals[0]);
}
