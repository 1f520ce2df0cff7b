/* The C around the plan's kernels that the AOT executor's source and the
 * graph executor's library share (aot_internal.h): each kernel's packed
 * wrapper, the declarations of external functions, and main's constants
 * as a params blob. */
#include "aot_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm_params.h"

/* ---- kernels' packed wrappers ------------------------------------------------------ */

static void arg_check(const plan_type *type, size_t i, irm_text_buf *b) {
  irm_text_buf_printf_(b,
                       "  void *a%zu = irm_crt_tensor_arg(a, type_codes, %zu, %u, %u, %zu, &err);\n"
                       "  if (err) return err;\n",
                       i, i, type->dtype.code, type->dtype.bits, type->numel);
}

void irm_aot_emit_wrapper_(const plan_kernel *k, long hook_step, irm_text_buf *b) {
  size_t nin = k->n_inputs, nout = k->n_outputs;
  irm_text_buf_printf_(b,
                       "%sint32_t %s_packed(void *args, int32_t *type_codes, int32_t num_args, void *ret, "
                       "int32_t *ret_code, void *resource) {\n",
                       hook_step >= 0 ? "" : "static ", k->symbol);
  irm_text_buf_puts_(b, "  const irm_crt_value *a = (const irm_crt_value *)args;\n  int32_t err = 0, st;\n"
                        "  (void)ret;\n  (void)ret_code;\n");
  irm_text_buf_printf_(b, "  if (num_args != %zu) return IRM_CRT_EARGS;\n", nin + nout);
  for (size_t i = 0; i < nin; i++) arg_check(&k->inputs[i], i, b);
  for (size_t j = 0; j < nout; j++) arg_check(&k->outputs[j], nin + j, b);
  /* the graph runner calls the wrappers: they bracket the kernel with the hooks (irm run --profile) */
  if (hook_step >= 0) irm_text_buf_printf_(b, "  IRM_CRT_KERNEL_ENTER(%ld, \"%s\");\n", hook_step, k->symbol);
  irm_text_buf_printf_(b, "  %sst = %s(", k->external ? "(void)resource;\n  " : "", k->symbol);
  for (size_t i = 0; i < nin + nout; i++) irm_text_buf_printf_(b, "%sa%zu", i ? ", " : "", i);
  irm_text_buf_puts_(b, k->external ? ");\n" : ", resource);\n"); /* a generated kernel has an output */
  if (hook_step >= 0) irm_text_buf_printf_(b, "  IRM_CRT_KERNEL_EXIT(%ld, \"%s\");\n", hook_step, k->symbol);
  /* an external function's status is its own; a generated kernel's says what failed (an index error's text goes
   * back in ret) */
  if (k->external) {
    irm_text_buf_puts_(b, "  return st != 0 ? IRM_CRT_EKERNEL : IRM_CRT_OK;\n}\n\n");
    return;
  }
  irm_text_buf_puts_(b, "  if (st == IRM_CRT_KERNEL_EINDEX && ret && ret_code) {\n"
                        "    ((irm_crt_value *)ret)->v_str = IRM_CG_INDEX_TEXT;\n    *ret_code = IRM_CRT_STR;\n  }\n"
                        "  return irm_crt_kernel_status(st);\n}\n\n");
}

void irm_aot_emit_externs_(const lowered_plan *p, irm_text_buf *b) {
  for (size_t i = 0; i < p->n_kernels; i++) {
    const plan_kernel *k = &p->kernels[i];
    if (!k->external) continue;
    irm_text_buf_printf_(b, "/* external (BYOC): defined by the code of its Compiler */\nextern int32_t %s(",
                         k->symbol);
    for (size_t j = 0; j < k->n_inputs; j++)
      irm_text_buf_printf_(b, "%sconst %s *in%zu", j ? ", " : "", irm_plan_ctype_(k->inputs[j].dtype), j);
    for (size_t j = 0; j < k->n_outputs; j++)
      irm_text_buf_printf_(b, "%s%s *out%zu", j || k->n_inputs ? ", " : "", irm_plan_ctype_(k->outputs[j].dtype), j);
    irm_text_buf_puts_(b, k->n_inputs + k->n_outputs ? ");\n" : "void);\n");
  }
}

/* ---- the params blob ------------------------------------------------------------------ */

/* main's constants in the params file layout (aot_internal.h). */
int irm_aot_params_blob_(const lowered_plan *p, irm_object **out) {
  const char **names = irm_calloc(p->n_consts + 1, sizeof *names);
  DLTensor *views = irm_calloc(p->n_consts + 1, sizeof *views);
  const DLTensor **tensors = irm_calloc(p->n_consts + 1, sizeof *tensors);
  int rc = names && views && tensors ? IRM_OK : irm_error(IRM_ENOMEM, "aot codegen: out of memory");
  for (size_t k = 0; !rc && k < p->n_consts; k++) {
    const plan_const *c = &p->consts[k];
    names[k] = c->name;
    views[k] = (DLTensor){(void *)c->data, c->device, c->type.ndim, c->type.dtype, c->type.shape, NULL, 0};
    tensors[k] = &views[k];
  }
  size_t size = 0;
  unsigned char *buf = NULL;
  if (!rc && irm_params_write(NULL, 0, p->n_consts, names, tensors, &size) != IRM_PARAMS_OK)
    rc = irm_error(IRM_EVALUE, "aot codegen: a parameter cannot be written to the params file");
  if (!rc && !(buf = irm_malloc(size))) rc = irm_error(IRM_ENOMEM, "aot codegen: out of memory for the params");
  if (!rc) irm_params_write(buf, size, p->n_consts, names, tensors, &size);
  if (!rc) rc = irm_string_new((const char *)buf, size, out);
  irm_free(buf);
  irm_free(names);
  irm_free(views);
  irm_free(tensors);
  return rc;
}
