/* The AOT executor's C source and header (aot_internal.h), from the
 * lowered plan: the kernels, their packed wrappers (unpacked-api = false),
 * the constants (link-params) or the buffers set_params fills, the
 * workspace, the body that calls the kernels, the entry points of the
 * interface API, and the metadata function the loader reads. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_library.h"
#include "aot_internal.h"
#include "codegen/c_text.h"
#include "irm/tensor.h"
#include "load/load_internal.h"

static size_t maxz(size_t a, size_t b) { return a > b ? a : b; }

/* The workspace's alignment: workspace-byte-alignment, at least 64 when a
 * kernel has scratch (kernels get 64-byte aligned scratch). */
static size_t workspace_align(const lowered_plan *p, const aot_options *o) {
  size_t a = maxz(o->ws_align, 1);
  for (size_t i = 0; i < p->n_steps; i++)
    if (p->steps[i].scratch >= 0) return maxz(a, 64);
  return a;
}

/* The C expression of a tensor's data inside the body. */
static void tensor_ptr(const lowered_plan *p, const aot_options *o, size_t id, irm_text_buf *b) {
  const plan_tensor *t = &p->tensors[id];
  const char *m = o->mod_name;
  switch (t->kind) {
  case PLAN_INPUT: irm_text_buf_printf_(b, "in[%zu]", t->index); break;
  case PLAN_CONST: irm_text_buf_printf_(b, "(void *)tvmgen_%s_const_%zu", m, t->index); break;
  case PLAN_TEMP:
    if (t->view_of >= 0) tensor_ptr(p, o, (size_t)t->view_of, b);
    else if (t->buffer < 0) irm_text_buf_printf_(b, "out[%ld]", t->out);
    else irm_text_buf_printf_(b, "(void *)(ws + %zu)", p->buffers[t->buffer].offset);
    break;
  }
}

/* {d0, d1, ...}, {0} for a scalar. */
static void shape_list(const plan_type *type, irm_text_buf *b) {
  irm_text_buf_putc_(b, '{');
  for (int32_t d = 0; d < type->ndim; d++) irm_text_buf_printf_(b, "%s%" PRId64, d ? ", " : "", type->shape[d]);
  if (!type->ndim) irm_text_buf_putc_(b, '0');
  irm_text_buf_putc_(b, '}');
}

/* ---- constants ------------------------------------------------------------------ */

static void emit_constants(const lowered_plan *p, const aot_options *o, irm_text_buf *b) {
  const char *m = o->mod_name;
  if (o->link_params) irm_aot_params_externs_(m, b);
  for (size_t k = 0; k < p->n_consts; k++) {
    const plan_const *c = &p->consts[k];
    const char *ct = irm_plan_ctype_(c->type.dtype);
    size_t es = irm_dtype_size(c->type.dtype), n = c->type.numel;
    size_t align = maxz(o->const_align, es);
    irm_text_buf_puts_(b, "/* params '");
    irm_c_comment_(b, c->name);
    irm_text_buf_puts_(b, "' */\n");
    if (!o->link_params) {
      irm_text_buf_printf_(b, "static _Alignas(%zu) %s tvmgen_%s_const_%zu[%zu];\n", align, ct, m, k, n ? n : 1);
      continue;
    }
    irm_text_buf_printf_(
        b, "static const %s *const tvmgen_%s_const_%zu = (const %s *)(tvmgen_%s_linked_params_data + %zu);\n", ct, m, k,
        ct, m, o->param_offsets[k]);
  }
}

/* A constant's name and index, sorted by name (strcmp's order): set_params
 * finds them all in one walk of the blob. */
typedef struct named_const {
  const char *name;
  size_t k;
} named_const;

static int by_name(const void *a, const void *b) {
  return strcmp(((const named_const *)a)->name, ((const named_const *)b)->name);
}

/* set_params(blob, size): every parameter found (one walk of the blob,
 * irm_params_find_sorted) and checked first, then copied. */
static void emit_set_params(const lowered_plan *p, const aot_options *o, irm_text_buf *b) {
  const char *m = o->mod_name;
  named_const *order = irm_calloc(p->n_consts + 1, sizeof *order);
  if (!order) {
    irm_text_buf_fail_(b);
    return;
  }
  for (size_t k = 0; k < p->n_consts; k++) order[k] = (named_const){p->consts[k].name, k};
  qsort(order, p->n_consts, sizeof *order, by_name);
  irm_text_buf_printf_(b, "static int tvmgen_%s_params_ready;\n\n", m);
  irm_text_buf_printf_(b, "int32_t tvmgen_%s_set_params(const void *blob, size_t size) {\n", m);
  irm_text_buf_puts_(b, "  static const char *const names[] = {");
  for (size_t j = 0; j < p->n_consts; j++) {
    irm_text_buf_puts_(b, j ? ",\n    " : "\n    ");
    irm_c_string_(b, order[j].name);
  }
  irm_text_buf_puts_(b, p->n_consts ? "};\n" : "NULL};\n");
  irm_text_buf_printf_(b, "  irm_params_entry e[%zu];\n", p->n_consts + 1);
  irm_text_buf_printf_(b,
                       "  (void)names;\n  if (irm_params_find_sorted(blob, size, names, %zu, e, NULL) != "
                       "IRM_PARAMS_OK) return IRM_CRT_EPARAMS;\n",
                       p->n_consts);
  for (size_t j = 0; j < p->n_consts; j++) {
    const plan_type *t = &p->consts[order[j].k].type;
    irm_text_buf_printf_(b, "  {\n    static const int64_t shape[] = ");
    shape_list(t, b);
    irm_text_buf_printf_(b,
                         ";\n    if (irm_params_check_as(&e[%zu], %u, %u, %d, shape, %zu) != IRM_PARAMS_OK)\n"
                         "      return IRM_CRT_EPARAMS;\n  }\n",
                         j, t->dtype.code, t->dtype.bits, t->ndim, t->bytes);
  }
  for (size_t j = 0; j < p->n_consts; j++)
    irm_text_buf_printf_(b, "  memcpy(tvmgen_%s_const_%zu, e[%zu].data, (size_t)e[%zu].nbytes);\n", m, order[j].k, j,
                         j);
  irm_text_buf_printf_(b, "  tvmgen_%s_params_ready = 1;\n  return IRM_CRT_OK;\n}\n\n", m);
  irm_free(order);
}

/* ---- the body ------------------------------------------------------------------------ */

static void scratch_ptr(const lowered_plan *p, const plan_step *s, irm_text_buf *b) {
  if (s->scratch < 0) irm_text_buf_puts_(b, "NULL");
  else irm_text_buf_printf_(b, "(void *)(ws + %zu)", p->buffers[s->scratch].offset);
}

/* Call `step` of the body, bracketed by the kernel hooks of irm_crt.h,
 * which number the calls that run (`call`: nop steps run nothing). */
static void emit_call(const lowered_plan *p, const aot_options *o, size_t step, size_t call, irm_text_buf *b) {
  const plan_step *s = &p->steps[step];
  const plan_kernel *k = &p->kernels[s->kernel];
  size_t n = k->n_inputs + k->n_outputs;
  if (o->unpacked) {
    irm_text_buf_printf_(b, "  {\n    int32_t krc;\n    IRM_CRT_KERNEL_ENTER(%zu, \"%s\");\n    krc = %s(", call,
                         k->symbol, k->symbol);
    for (size_t i = 0; i < n; i++) {
      if (i) irm_text_buf_puts_(b, ", ");
      tensor_ptr(p, o, s->args[i], b);
    }
    if (!k->external) {
      irm_text_buf_puts_(b, n ? ", " : "");
      scratch_ptr(p, s, b);
    }
    irm_text_buf_printf_(b, ");\n    IRM_CRT_KERNEL_EXIT(%zu, \"%s\");\n    if (krc != 0) return %s;\n  }\n", call,
                         k->symbol, k->external ? "IRM_CRT_EKERNEL" : "irm_crt_kernel_status(krc)");
    return;
  }
  irm_text_buf_printf_(b, "  {\n    DLTensor t[%zu];\n    irm_crt_value v[%zu], r;\n    int32_t c[%zu], rc = 0, krc;\n",
                       n, n, n);
  for (size_t i = 0; i < n; i++) {
    const plan_type *type = &p->tensors[s->args[i]].type;
    DLDataType dt = type->dtype;
    irm_text_buf_printf_(b, "    int64_t s%zu[] = ", i);
    shape_list(type, b);
    irm_text_buf_printf_(b, ";\n    irm_crt_tensor_view(&t[%zu], ", i);
    tensor_ptr(p, o, s->args[i], b);
    irm_text_buf_printf_(b, ", %d, s%zu, %u, %u);\n    v[%zu].v_handle = &t[%zu];\n    c[%zu] = IRM_CRT_DLTENSOR;\n",
                         type->ndim, i, dt.code, dt.bits, i, i, i);
  }
  irm_text_buf_printf_(b, "    IRM_CRT_KERNEL_ENTER(%zu, \"%s\");\n    krc = %s_packed(v, c, %zu, &r, &rc, ", call,
                       k->symbol, k->symbol, n);
  scratch_ptr(p, s, b);
  irm_text_buf_printf_(b, ");\n    IRM_CRT_KERNEL_EXIT(%zu, \"%s\");\n    if (krc != 0) return krc;\n  }\n", call,
                       k->symbol); /* the wrapper's code */
}

/* The body runs on the workspace it is given: the static one (the entry
 * points), or the caller's (tvmgen_<m>_run_workspace, for concurrent
 * runs, each on its own). */
static void emit_body(const lowered_plan *p, const aot_options *o, irm_text_buf *b) {
  const char *m = o->mod_name;
  irm_text_buf_printf_(b,
                       "static int32_t tvmgen_%s_body(void *const *in, void *const *out, uint8_t *ws) {\n"
                       "  (void)in;\n  (void)out;\n  (void)ws;\n",
                       m);
  if (!o->link_params) irm_text_buf_printf_(b, "  if (!tvmgen_%s_params_ready) return IRM_CRT_ENOPARAMS;\n", m);
  else
    irm_text_buf_printf_(b,
                         "  if (!tvmgen_%s_params_ready && tvmgen_%s_check_params() != IRM_CRT_OK) return "
                         "IRM_CRT_EPARAMS;\n",
                         m, m);
  for (size_t i = 0, call = 0; i < p->n_steps; i++)
    if (!p->steps[i].nop) emit_call(p, o, i, call++, b); /* a view sharing its input's data runs nothing */
  for (size_t j = 0; j < p->n_outputs; j++) {
    const plan_tensor *t = &p->tensors[p->outputs[j].tensor];
    if (t->kind == PLAN_TEMP && t->buffer < 0 && t->out == (long)j) continue; /* written there */
    irm_text_buf_printf_(b, "  memcpy(out[%zu], ", j);
    tensor_ptr(p, o, p->outputs[j].tensor, b);
    irm_text_buf_printf_(b, ", %zu);\n", t->type.bytes);
  }
  irm_text_buf_puts_(b, "  return IRM_CRT_OK;\n}\n\n");
}

/* The loader's entry point: the data pointers of main's inputs and
 * outputs, in order, and a workspace of workspace_bytes aligned to
 * workspace_alignment (the metadata's), so runs in flight at once each
 * use their own. Nothing is checked: the loader checked the tensors. */
static void emit_workspace_entry(const aot_options *o, irm_text_buf *b) {
  const char *m = o->mod_name;
  irm_text_buf_printf_(b,
                       "int32_t tvmgen_%s_run_workspace(void *const *inputs, void *const *outputs, void *workspace);\n"
                       "int32_t tvmgen_%s_run_workspace(void *const *inputs, void *const *outputs, void *workspace) {\n"
                       "  return tvmgen_%s_body(inputs, outputs, (uint8_t *)workspace);\n}\n\n",
                       m, m, m);
}

static void emit_entry(const lowered_plan *p, const aot_options *o, irm_text_buf *b) {
  const char *m = o->mod_name;
  if (o->interface_c) {
    irm_text_buf_printf_(b,
                         "int32_t tvmgen_%s_run(struct tvmgen_%s_inputs *inputs, struct tvmgen_%s_outputs *outputs) {\n"
                         "  void *in[] = {",
                         m, m, m);
    for (size_t i = 0; i < p->n_inputs; i++) irm_text_buf_printf_(b, "inputs->%s, ", p->inputs[i].field);
    irm_text_buf_puts_(b, "NULL};\n  void *out[] = {");
    for (size_t j = 0; j < p->n_outputs; j++) irm_text_buf_printf_(b, "outputs->%s, ", p->outputs[j].field);
    irm_text_buf_printf_(b, "NULL};\n  return tvmgen_%s_body(in, out, tvmgen_%s_workspace);\n}\n\n", m, m);
    return;
  }
  size_t n = p->n_inputs + p->n_outputs;
  irm_text_buf_printf_(b,
                       "int32_t tvmgen_%s___tvm_main__(void *args, int32_t *type_codes, int32_t num_args, void *ret, "
                       "int32_t *ret_code, void *resource) {\n",
                       m);
  irm_text_buf_printf_(b,
                       "  const irm_crt_value *a = (const irm_crt_value *)args;\n  void *in[%zu], *out[%zu];\n"
                       "  int32_t err = 0;\n  (void)ret;\n  (void)ret_code;\n  (void)resource;\n"
                       "  if (num_args != %zu) return IRM_CRT_EARGS;\n",
                       p->n_inputs + 1, p->n_outputs + 1, n);
  for (size_t i = 0; i < n; i++) {
    const plan_io *io = i < p->n_inputs ? &p->inputs[i] : &p->outputs[i - p->n_inputs];
    const plan_type *type = &p->tensors[io->tensor].type;
    irm_text_buf_printf_(b,
                         "  %s[%zu] = irm_crt_tensor_arg(a, type_codes, %zu, %u, %u, %zu, &err);\n"
                         "  if (err) return err;\n",
                         i < p->n_inputs ? "in" : "out", i < p->n_inputs ? i : i - p->n_inputs, i, type->dtype.code,
                         type->dtype.bits, type->numel);
  }
  irm_text_buf_printf_(b, "  return tvmgen_%s_body(in, out, tvmgen_%s_workspace);\n}\n\n", m, m);
  irm_text_buf_printf_(b,
                       "int32_t tvmgen_%s_run(void *args, int32_t *type_codes, int32_t num_args, void *ret, "
                       "int32_t *ret_code, void *resource) {\n  return tvmgen_%s___tvm_main__(args, type_codes, "
                       "num_args, ret, ret_code, resource);\n}\n\n",
                       m, m);
}

/* ---- metadata ------------------------------------------------------------------------- */

static void json_io(irm_text_buf *b, const lowered_plan *p, const plan_io *io, size_t n) {
  irm_text_buf_putc_(b, '[');
  for (size_t i = 0; i < n; i++) {
    irm_text_buf_puts_(b, i ? ", {\"name\": " : "{\"name\": ");
    irm_plan_json_str_(b, io[i].name);
    irm_text_buf_puts_(b, ", \"field\": ");
    irm_plan_json_str_(b, io[i].field);
    irm_text_buf_puts_(b, ", \"shape\": [");
    const plan_type *t = &p->tensors[io[i].tensor].type;
    for (int32_t d = 0; d < t->ndim; d++) irm_text_buf_printf_(b, "%s%" PRId64, d ? ", " : "", t->shape[d]);
    irm_text_buf_printf_(b, "], \"dtype\": \"%s\"}", irm_dtype_name(t->dtype));
  }
  irm_text_buf_putc_(b, ']');
}

void irm_aot_metadata_json_(const lowered_plan *p, const aot_options *o, irm_text_buf *b) {
  const char *m = o->mod_name;
  irm_text_buf_puts_(b, "{\"version\": 1, \"executor\": ");
  irm_plan_json_str_(b, o->executor);
  irm_text_buf_puts_(b, ", \"mod_name\": ");
  irm_plan_json_str_(b, m);
  irm_text_buf_puts_(b, ", \"runtime\": ");
  irm_plan_json_str_(b, o->runtime);
  irm_text_buf_printf_(b,
                       ", \"interface_api\": \"%s\", \"unpacked_api\": %s, "
                       "\"entry\": \"tvmgen_%s_%s\", \"link_params\": %s, \"set_params\": ",
                       o->interface_c ? "c" : "packed", o->unpacked ? "true" : "false", m,
                       o->interface_c ? "run" : "__tvm_main__", o->link_params ? "true" : "false");
  if (o->link_params)
    irm_text_buf_printf_(b, "null, \"params_file\": null, \"check_params\": \"tvmgen_%s_check_params\"", m);
  else irm_text_buf_printf_(b, "\"tvmgen_%s_set_params\", \"params_file\": \"%s.params\"", m, m);
  irm_text_buf_printf_(b,
                       ", \"workspace_entry\": \"tvmgen_%s_run_workspace\", \"workspace_bytes\": %zu, "
                       "\"workspace_alignment\": %zu, \"last_error\": \"tvmgen_%s_last_error\", "
                       "\"memory_plan\": \"%s\", \"kernels\": %zu",
                       m, p->workspace_bytes, workspace_align(p, o), m, irm_mem_algo_name_(p->algo), p->n_kernels);
  irm_plan_threads_json_(p, m, b);
  irm_text_buf_puts_(b, ", \"inputs\": ");
  json_io(b, p, p->inputs, p->n_inputs);
  irm_text_buf_puts_(b, ", \"outputs\": ");
  json_io(b, p, p->outputs, p->n_outputs);
  irm_text_buf_puts_(b, ", \"" IRM_LIBRARY_FEATURES_KEY "\": ");
  irm_plan_json_str_(b, p->isa.features);
  irm_plan_schedules_json_(p, b);
  irm_text_buf_putc_(b, '}');
}

static void emit_metadata(const lowered_plan *p, const aot_options *o, irm_text_buf *b) {
  irm_text_buf json;
  irm_text_buf_init_(&json, NULL, 0);
  irm_aot_metadata_json_(p, o, &json);
  if (json.failed) irm_text_buf_fail_(b);
  irm_library_metadata_emit_(b, o->mod_name, irm_text_buf_cstr_(&json));
  irm_text_buf_free_(&json);
}

/* ---- the files ---------------------------------------------------------------------------- */

int irm_aot_emit_source_(const lowered_plan *p, const aot_options *o, irm_text_buf *b) {
  const char *m = o->mod_name;
  irm_text_buf_printf_(b,
                       "/* Generated by irm's AOT executor for module '%s': %zu kernels, %zu steps, a %zu-byte "
                       "workspace (%s). */\n#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n"
                       "#include <string.h>\n\n#include \"irm_crt.h\"\n",
                       m, p->n_kernels, p->n_steps, p->workspace_bytes, irm_mem_algo_name_(p->algo));
  irm_text_buf_puts_(b, "#include \"irm_params.h\"\n");
  if (o->interface_c) irm_text_buf_printf_(b, "#include \"tvmgen_%s.h\"\n", m);
  irm_text_buf_putc_(b, '\n');
  int rc = irm_aot_emit_kernel_units_(p, b);
  if (rc) return rc;
  irm_aot_emit_externs_(p, b);
  if (!o->unpacked)
    for (size_t k = 0; k < p->n_kernels; k++) irm_aot_emit_wrapper_(&p->kernels[k], -1, b);
  emit_constants(p, o, b);
  irm_text_buf_printf_(b, "\nstatic _Alignas(%zu) uint8_t tvmgen_%s_workspace[%zu];\n\n", workspace_align(p, o), m,
                       p->workspace_bytes ? p->workspace_bytes : 1);
  if (!o->link_params) emit_set_params(p, o, b);
  else irm_aot_params_check_(p->consts, p->n_consts, o->param_offsets, m, b);
  irm_plan_emit_pool_(p, m, b);
  emit_body(p, o, b);
  emit_entry(p, o, b);
  emit_workspace_entry(o, b);
  emit_metadata(p, o, b);
  return b->failed ? irm_error(IRM_ENOMEM, "aot codegen: out of memory for the source") : IRM_OK;
}

int irm_aot_emit_header_(const lowered_plan *p, const aot_options *o, irm_text_buf *b) {
  const char *m = o->mod_name;
  irm_text_buf_printf_(b,
                       "/* Generated by irm's AOT executor: the C interface of module '%s'. */\n"
                       "#ifndef TVMGEN_%s_H_\n#define TVMGEN_%s_H_\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
                       "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
                       m, m, m);
  irm_text_buf_printf_(b, "/* One pointer per input of main, in order. */\nstruct tvmgen_%s_inputs {\n", m);
  for (size_t i = 0; i < p->n_inputs; i++) irm_text_buf_printf_(b, "  void *%s;\n", p->inputs[i].field);
  if (!p->n_inputs) irm_text_buf_puts_(b, "  void *unused;\n");
  irm_text_buf_printf_(b, "};\n\n/* One pointer per output. */\nstruct tvmgen_%s_outputs {\n", m);
  for (size_t j = 0; j < p->n_outputs; j++) irm_text_buf_printf_(b, "  void *%s;\n", p->outputs[j].field);
  irm_text_buf_printf_(b,
                       "};\n\n/* Runs the module; 0 on success, else an IRM_CRT_E* code (irm_crt.h). */\n"
                       "int32_t tvmgen_%s_run(struct tvmgen_%s_inputs *inputs, struct tvmgen_%s_outputs *outputs);\n",
                       m, m, m);
  irm_text_buf_printf_(b,
                       "\n/* After a run returned IRM_CRT_EINDEX: which op read which index outside which range, "
                       "in which\n * kernel (one line; the calling thread's last such error). */\n"
                       "const char *tvmgen_%s_last_error(void);\n",
                       m);
  if (!o->link_params)
    irm_text_buf_printf_(b,
                         "\n/* Copies the parameters from a params file's bytes (%s.params); needed before the first "
                         "run. */\nint32_t tvmgen_%s_set_params(const void *blob, size_t size);\n",
                         m, m);
  irm_text_buf_printf_(b, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
  return b->failed ? irm_error(IRM_ENOMEM, "aot codegen: out of memory for the header") : IRM_OK;
}
