/* The AOT code generator's C source and header (aot_internal.h): the
 * kernels, their packed wrappers (unpacked-api = false), the constants
 * (link-params) or the buffers set_params fills, the workspace, the body
 * that calls the kernels, the entry points of the interface API, and the
 * metadata function the loader reads. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aot_internal.h"
#include "irm/dataflow/expr.h"
#include "irm/dataflow/type.h"
#include "irm/tensor.h"

static size_t maxz(size_t a, size_t b) { return a > b ? a : b; }

static size_t numel_of(irm_object *type) { return (size_t)irm_tensor_type_numel(type); }

/* The workspace's alignment: workspace-byte-alignment, at least 64 when a
 * kernel has scratch (kernels get 64-byte aligned scratch). */
static size_t workspace_align(const dataflow_plan *p) {
  size_t a = maxz(p->opt.ws_align, 1);
  for (size_t i = 0; i < p->n_steps; i++)
    if (p->steps[i].scratch >= 0) return maxz(a, 64);
  return a;
}

/* The C expression of a tensor's data inside the body. */
static void tensor_ptr(const dataflow_plan *p, size_t id, irm_text_buf *b) {
  const plan_tensor *t = &p->tensors[id];
  const char *m = p->opt.mod_name;
  switch (t->kind) {
  case PLAN_INPUT: irm_text_buf_printf_(b, "in[%zu]", t->index); break;
  case PLAN_CONST: irm_text_buf_printf_(b, "(void *)tvmgen_%s_const_%zu", m, t->index); break;
  case PLAN_TEMP:
    if (t->out >= 0) irm_text_buf_printf_(b, "out[%ld]", t->out);
    else irm_text_buf_printf_(b, "(void *)(tvmgen_%s_workspace + %zu)", m, p->buffers[t->index].offset);
    break;
  }
}

static void shape_list(irm_object *type, irm_text_buf *b) {
  int32_t nd = irm_tensor_type_ndim(type);
  const int64_t *shape = irm_tensor_type_shape(type);
  irm_text_buf_putc_(b, '{');
  for (int32_t d = 0; d < nd; d++) irm_text_buf_printf_(b, "%s%" PRId64, d ? ", " : "", shape[d]);
  if (!nd) irm_text_buf_putc_(b, '0');
  irm_text_buf_putc_(b, '}');
}

/* ---- constants ------------------------------------------------------------------ */

static void element(DLDataType dt, const unsigned char *at, irm_text_buf *b) {
  if (dt.code == kDLFloat) {
    double x;
    if (dt.bits == 32) {
      float f;
      memcpy(&f, at, 4);
      x = f;
    } else
      memcpy(&x, at, 8);
    if (isnan(x)) irm_text_buf_puts_(b, "NAN");
    else if (isinf(x)) irm_text_buf_puts_(b, x < 0 ? "-INFINITY" : "INFINITY");
    else irm_text_buf_printf_(b, dt.bits == 32 ? "%af" : "%a", x);
    return;
  }
  if (dt.code == kDLUInt || dt.code == IRM_DLPACK_BOOL) {
    uint64_t u = 0;
    memcpy(&u, at, dt.bits / 8); /* little-endian host */
    irm_text_buf_printf_(b, "%" PRIu64 "u%s", u, dt.bits == 64 ? "LL" : "");
    return;
  }
  int64_t v = 0;
  switch (dt.bits) {
  case 8: { int8_t x; memcpy(&x, at, 1); v = x; break; }
  case 16: { int16_t x; memcpy(&x, at, 2); v = x; break; }
  case 32: { int32_t x; memcpy(&x, at, 4); v = x; break; }
  default: memcpy(&v, at, 8); break;
  }
  if (v == INT64_MIN) irm_text_buf_puts_(b, "(-9223372036854775807LL - 1)");
  else irm_text_buf_printf_(b, "%" PRId64 "%s", v, dt.bits == 64 ? "LL" : "");
}

static void emit_constants(const dataflow_plan *p, irm_text_buf *b) {
  const char *m = p->opt.mod_name;
  for (size_t k = 0; k < p->n_consts; k++) {
    const DLTensor *dl = irm_tensor_dl((const irm_tensor *)p->consts[k].tensor);
    const char *ct = irm_dataflow_ctype_(dl->dtype);
    size_t es = irm_dtype_size(dl->dtype), n = (size_t)irm_tensor_numel((const irm_tensor *)p->consts[k].tensor);
    size_t align = maxz(p->opt.const_align, es);
    irm_text_buf_printf_(b, "/* params '%s' */\n", p->consts[k].name);
    if (!p->opt.link_params) {
      irm_text_buf_printf_(b, "static _Alignas(%zu) %s tvmgen_%s_const_%zu[%zu];\n", align, ct, m, k, n ? n : 1);
      continue;
    }
    irm_text_buf_printf_(b, "static _Alignas(%zu) const %s tvmgen_%s_const_%zu[%zu] = {", align, ct, m, k, n ? n : 1);
    const unsigned char *data = (const unsigned char *)dl->data + dl->byte_offset;
    for (size_t i = 0; i < n; i++) {
      irm_text_buf_puts_(b, i % 8 ? ", " : i ? ",\n  " : "\n  ");
      element(dl->dtype, data + i * es, b);
    }
    irm_text_buf_puts_(b, n ? "\n};\n" : "0};\n");
  }
}

/* set_params(blob, size): every parameter checked first, then copied. */
static void emit_set_params(const dataflow_plan *p, irm_text_buf *b) {
  const char *m = p->opt.mod_name;
  irm_text_buf_printf_(b, "static int tvmgen_%s_params_ready;\n\n", m);
  irm_text_buf_printf_(b, "int32_t tvmgen_%s_set_params(const void *blob, size_t size) {\n", m);
  irm_text_buf_printf_(b, "  irm_params_entry e[%zu];\n  uint64_t count = 0;\n", p->n_consts + 1);
  irm_text_buf_puts_(b, "  if (irm_params_count(blob, size, &count) != IRM_PARAMS_OK) return IRM_CRT_EPARAMS;\n");
  for (size_t k = 0; k < p->n_consts; k++) {
    const DLTensor *dl = irm_tensor_dl((const irm_tensor *)p->consts[k].tensor);
    irm_text_buf_printf_(b, "  {\n    static const int64_t shape[] = {");
    for (int32_t d = 0; d < dl->ndim; d++) irm_text_buf_printf_(b, "%s%" PRId64, d ? ", " : "", dl->shape[d]);
    if (!dl->ndim) irm_text_buf_putc_(b, '0');
    irm_text_buf_printf_(b, "};\n    if (irm_params_find_as(blob, size, \"%s\", %u, %u, %d, shape, %zu, &e[%zu]) != "
                         "IRM_PARAMS_OK)\n      return IRM_CRT_EPARAMS;\n  }\n",
                         p->consts[k].name, dl->dtype.code, dl->dtype.bits, dl->ndim,
                         irm_tensor_nbytes((const irm_tensor *)p->consts[k].tensor), k);
  }
  for (size_t k = 0; k < p->n_consts; k++)
    irm_text_buf_printf_(b, "  memcpy(tvmgen_%s_const_%zu, e[%zu].data, (size_t)e[%zu].nbytes);\n", m, k, k, k);
  irm_text_buf_printf_(b, "  tvmgen_%s_params_ready = 1;\n  return IRM_CRT_OK;\n}\n\n", m);
}

/* ---- kernels' packed wrappers ------------------------------------------------------ */

static void arg_check(irm_object *type, size_t i, irm_text_buf *b) {
  DLDataType dt = irm_tensor_type_dtype(type);
  irm_text_buf_printf_(b, "  void *a%zu = irm_crt_tensor_arg(a, type_codes, %zu, %u, %u, %zu, &err);\n"
                       "  if (err) return err;\n", i, i, dt.code, dt.bits, numel_of(type));
}

static irm_object *output_type(const plan_kernel *k, size_t j);

void irm_aot_emit_wrapper_(const plan_kernel *k, bool exported, irm_text_buf *b) {
  size_t nin = k->info.n_inputs, nout = k->info.n_outputs;
  irm_text_buf_printf_(b, "%sint32_t %s_packed(void *args, int32_t *type_codes, int32_t num_args, void *ret, "
                       "int32_t *ret_code, void *resource) {\n", exported ? "" : "static ", k->symbol);
  irm_text_buf_puts_(b, "  const irm_crt_value *a = (const irm_crt_value *)args;\n  int32_t err = 0;\n"
                        "  (void)ret;\n  (void)ret_code;\n");
  irm_text_buf_printf_(b, "  if (num_args != %zu) return IRM_CRT_EARGS;\n", nin + nout);
  for (size_t i = 0; i < nin; i++) arg_check(irm_expr_type(irm_function_param(k->func, i)), i, b);
  for (size_t j = 0; j < nout; j++) arg_check(output_type(k, j), nin + j, b);
  irm_text_buf_printf_(b, "  %sreturn %s(", k->external ? "(void)resource;\n  " : "", k->symbol);
  for (size_t i = 0; i < nin + nout; i++) irm_text_buf_printf_(b, "%sa%zu", i ? ", " : "", i);
  irm_text_buf_printf_(b, "%s) != 0 ? IRM_CRT_EKERNEL : IRM_CRT_OK;\n}\n\n", k->external ? "" : ", resource");
}

/* An external function's result type: field j of a tuple, or the tensor. */
static irm_object *output_type(const plan_kernel *k, size_t j) {
  irm_object *rt = k->external ? k->ret_type : irm_expr_type(irm_function_body(k->func));
  return irm_dataflow_type_kind_of(rt) == IRM_DATAFLOW_TYPE_TUPLE ? irm_tuple_type_field(rt, j) : rt;
}

void irm_aot_emit_externs_(const dataflow_plan *p, irm_text_buf *b) {
  for (size_t i = 0; i < p->n_kernels; i++) {
    const plan_kernel *k = &p->kernels[i];
    if (!k->external) continue;
    irm_text_buf_printf_(b, "/* external (BYOC): defined by the code of its Compiler */\nextern int32_t %s(",
                         k->symbol);
    for (size_t j = 0; j < k->info.n_inputs; j++)
      irm_text_buf_printf_(b, "%sconst %s *in%zu", j ? ", " : "",
                           irm_dataflow_ctype_(irm_tensor_type_dtype(irm_expr_type(irm_function_param(k->func, j)))), j);
    for (size_t j = 0; j < k->info.n_outputs; j++)
      irm_text_buf_printf_(b, "%s%s *out%zu", j || k->info.n_inputs ? ", " : "",
                           irm_dataflow_ctype_(irm_tensor_type_dtype(output_type(k, j))), j);
    irm_text_buf_puts_(b, k->info.n_inputs + k->info.n_outputs ? ");\n" : "void);\n");
  }
}

/* ---- the body ------------------------------------------------------------------------ */

static void scratch_ptr(const dataflow_plan *p, const plan_step *s, irm_text_buf *b) {
  if (s->scratch < 0) irm_text_buf_puts_(b, "NULL");
  else irm_text_buf_printf_(b, "(void *)(tvmgen_%s_workspace + %zu)", p->opt.mod_name,
                            p->buffers[s->scratch].offset);
}

/* Call `step` of the body, bracketed by the kernel hooks of irm_crt.h. */
static void emit_call(const dataflow_plan *p, size_t step, irm_text_buf *b) {
  const plan_step *s = &p->steps[step];
  const plan_kernel *k = &p->kernels[s->kernel];
  size_t n = k->info.n_inputs + k->info.n_outputs;
  if (p->opt.unpacked) {
    irm_text_buf_printf_(b, "  {\n    int32_t krc;\n    IRM_CRT_KERNEL_ENTER(%zu, \"%s\");\n    krc = %s(", step,
                         k->symbol, k->symbol);
    for (size_t i = 0; i < n; i++) {
      if (i) irm_text_buf_puts_(b, ", ");
      tensor_ptr(p, s->args[i], b);
    }
    if (!k->external) {
      irm_text_buf_puts_(b, n ? ", " : "");
      scratch_ptr(p, s, b);
    }
    irm_text_buf_printf_(b, ");\n    IRM_CRT_KERNEL_EXIT(%zu, \"%s\");\n    if (krc != 0) return IRM_CRT_EKERNEL;\n  }\n",
                         step, k->symbol);
    return;
  }
  irm_text_buf_printf_(b, "  {\n    DLTensor t[%zu];\n    irm_crt_value v[%zu], r;\n    int32_t c[%zu], rc = 0, krc;\n", n,
                       n, n);
  for (size_t i = 0; i < n; i++) {
    irm_object *type = p->tensors[s->args[i]].type;
    DLDataType dt = irm_tensor_type_dtype(type);
    irm_text_buf_printf_(b, "    int64_t s%zu[] = ", i);
    shape_list(type, b);
    irm_text_buf_printf_(b, ";\n    irm_crt_tensor_view(&t[%zu], ", i);
    tensor_ptr(p, s->args[i], b);
    irm_text_buf_printf_(b, ", %d, s%zu, %u, %u);\n    v[%zu].v_handle = &t[%zu];\n    c[%zu] = IRM_CRT_DLTENSOR;\n",
                         irm_tensor_type_ndim(type), i, dt.code, dt.bits, i, i, i);
  }
  irm_text_buf_printf_(b, "    IRM_CRT_KERNEL_ENTER(%zu, \"%s\");\n    krc = %s_packed(v, c, %zu, &r, &rc, ", step,
                       k->symbol, k->symbol, n);
  scratch_ptr(p, s, b);
  irm_text_buf_printf_(b, ");\n    IRM_CRT_KERNEL_EXIT(%zu, \"%s\");\n    if (krc != 0) return IRM_CRT_EKERNEL;\n  }\n",
                       step, k->symbol);
}

static void emit_body(const dataflow_plan *p, irm_text_buf *b) {
  const char *m = p->opt.mod_name;
  irm_text_buf_printf_(b, "static int32_t tvmgen_%s_body(void *const *in, void *const *out) {\n"
                       "  (void)in;\n  (void)out;\n", m);
  if (!p->opt.link_params)
    irm_text_buf_printf_(b, "  if (!tvmgen_%s_params_ready) return IRM_CRT_ENOPARAMS;\n", m);
  for (size_t i = 0; i < p->n_steps; i++) emit_call(p, i, b);
  for (size_t j = 0; j < p->n_outputs; j++) {
    const plan_tensor *t = &p->tensors[p->outputs[j].tensor];
    if (t->kind == PLAN_TEMP && t->out == (long)j) continue;
    irm_text_buf_printf_(b, "  memcpy(out[%zu], ", j);
    tensor_ptr(p, p->outputs[j].tensor, b);
    irm_text_buf_printf_(b, ", %zu);\n", t->bytes);
  }
  irm_text_buf_puts_(b, "  return IRM_CRT_OK;\n}\n\n");
}

static void emit_entry(const dataflow_plan *p, irm_text_buf *b) {
  const char *m = p->opt.mod_name;
  if (p->opt.interface_c) {
    irm_text_buf_printf_(b, "int32_t tvmgen_%s_run(struct tvmgen_%s_inputs *inputs, struct tvmgen_%s_outputs *outputs) {\n"
                         "  void *in[] = {", m, m, m);
    for (size_t i = 0; i < p->n_inputs; i++) irm_text_buf_printf_(b, "inputs->%s, ", p->inputs[i].field);
    irm_text_buf_puts_(b, "NULL};\n  void *out[] = {");
    for (size_t j = 0; j < p->n_outputs; j++) irm_text_buf_printf_(b, "outputs->%s, ", p->outputs[j].field);
    irm_text_buf_printf_(b, "NULL};\n  return tvmgen_%s_body(in, out);\n}\n\n", m);
    return;
  }
  size_t n = p->n_inputs + p->n_outputs;
  irm_text_buf_printf_(b, "int32_t tvmgen_%s___tvm_main__(void *args, int32_t *type_codes, int32_t num_args, void *ret, "
                       "int32_t *ret_code, void *resource) {\n", m);
  irm_text_buf_printf_(b, "  const irm_crt_value *a = (const irm_crt_value *)args;\n  void *in[%zu], *out[%zu];\n"
                       "  int32_t err = 0;\n  (void)ret;\n  (void)ret_code;\n  (void)resource;\n"
                       "  if (num_args != %zu) return IRM_CRT_EARGS;\n", p->n_inputs + 1, p->n_outputs + 1, n);
  for (size_t i = 0; i < n; i++) {
    irm_object *type = i < p->n_inputs ? p->inputs[i].type : p->outputs[i - p->n_inputs].type;
    DLDataType dt = irm_tensor_type_dtype(type);
    irm_text_buf_printf_(b, "  %s[%zu] = irm_crt_tensor_arg(a, type_codes, %zu, %u, %u, %zu, &err);\n"
                         "  if (err) return err;\n", i < p->n_inputs ? "in" : "out",
                         i < p->n_inputs ? i : i - p->n_inputs, i, dt.code, dt.bits, numel_of(type));
  }
  irm_text_buf_printf_(b, "  return tvmgen_%s_body(in, out);\n}\n\n", m);
  irm_text_buf_printf_(b, "int32_t tvmgen_%s_run(void *args, int32_t *type_codes, int32_t num_args, void *ret, "
                       "int32_t *ret_code, void *resource) {\n  return tvmgen_%s___tvm_main__(args, type_codes, "
                       "num_args, ret, ret_code, resource);\n}\n\n", m, m);
}

/* ---- metadata ------------------------------------------------------------------------- */

static void json_str(irm_text_buf *b, const char *s) {
  irm_text_buf_putc_(b, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') irm_text_buf_printf_(b, "\\%c", c);
    else if (c < 0x20) irm_text_buf_printf_(b, "\\u%04x", c);
    else irm_text_buf_putc_(b, (char)c);
  }
  irm_text_buf_putc_(b, '"');
}

static void json_io(irm_text_buf *b, const plan_io *io, size_t n) {
  irm_text_buf_putc_(b, '[');
  for (size_t i = 0; i < n; i++) {
    irm_text_buf_puts_(b, i ? ", {\"name\": " : "{\"name\": ");
    json_str(b, io[i].name);
    irm_text_buf_puts_(b, ", \"field\": ");
    json_str(b, io[i].field);
    irm_text_buf_puts_(b, ", \"shape\": [");
    int32_t nd = irm_tensor_type_ndim(io[i].type);
    for (int32_t d = 0; d < nd; d++)
      irm_text_buf_printf_(b, "%s%" PRId64, d ? ", " : "", irm_tensor_type_shape(io[i].type)[d]);
    irm_text_buf_printf_(b, "], \"dtype\": \"%s\"}", irm_dtype_name(irm_tensor_type_dtype(io[i].type)));
  }
  irm_text_buf_putc_(b, ']');
}

void irm_aot_metadata_json_(const dataflow_plan *p, irm_text_buf *b) {
  const char *m = p->opt.mod_name;
  irm_text_buf_puts_(b, "{\"version\": 1, \"executor\": \"aot\", \"mod_name\": ");
  json_str(b, m);
  irm_text_buf_printf_(b, ", \"runtime\": \"%s\", \"interface_api\": \"%s\", \"unpacked_api\": %s, "
                       "\"entry\": \"tvmgen_%s_%s\", \"link_params\": %s, \"set_params\": ",
                       p->opt.runtime, p->opt.interface_c ? "c" : "packed", p->opt.unpacked ? "true" : "false", m,
                       p->opt.interface_c ? "run" : "__tvm_main__", p->opt.link_params ? "true" : "false");
  if (p->opt.link_params) irm_text_buf_puts_(b, "null, \"params_file\": null");
  else irm_text_buf_printf_(b, "\"tvmgen_%s_set_params\", \"params_file\": \"%s.params\"", m, m);
  irm_text_buf_printf_(b, ", \"workspace_bytes\": %zu, \"workspace_alignment\": %zu, \"memory_plan\": \"%s\", "
                       "\"kernels\": %zu, \"inputs\": ", p->workspace_bytes, workspace_align(p),
                       irm_mem_algo_name_(p->opt.algo), p->n_kernels);
  json_io(b, p->inputs, p->n_inputs);
  irm_text_buf_puts_(b, ", \"outputs\": ");
  json_io(b, p->outputs, p->n_outputs);
  irm_text_buf_putc_(b, '}');
}

static void emit_metadata(const dataflow_plan *p, irm_text_buf *b) {
  irm_text_buf json;
  irm_text_buf_init_(&json, NULL, 0);
  irm_aot_metadata_json_(p, &json);
  if (json.failed) irm_text_buf_fail_(b);
  irm_text_buf_puts_(b, "/* The loader's description of this library (JSON). */\n"
                        "const char *irm_aot_metadata(void);\nconst char *irm_aot_metadata(void) {\n  return \"");
  for (const char *s = irm_text_buf_cstr_(&json); *s; s++) {
    if (*s == '"' || *s == '\\') irm_text_buf_putc_(b, '\\');
    irm_text_buf_putc_(b, *s);
  }
  irm_text_buf_puts_(b, "\";\n}\n");
  irm_text_buf_free_(&json);
}

/* ---- the files ---------------------------------------------------------------------------- */

int irm_aot_emit_source_(const dataflow_plan *p, const char *kernels_text, irm_text_buf *b) {
  const char *m = p->opt.mod_name;
  irm_text_buf_printf_(b, "/* Generated by irm's AOT executor for module '%s': %zu kernels, %zu steps, a %zu-byte "
                       "workspace (%s). */\n#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n"
                       "#include <string.h>\n\n#include \"irm_crt.h\"\n", m, p->n_kernels, p->n_steps,
                       p->workspace_bytes, irm_mem_algo_name_(p->opt.algo));
  if (!p->opt.link_params) irm_text_buf_puts_(b, "#include \"irm_params.h\"\n");
  if (p->opt.interface_c) irm_text_buf_printf_(b, "#include \"tvmgen_%s.h\"\n", m);
  irm_text_buf_putc_(b, '\n');
  irm_object *t = p->opt.target;
  int rc = irm_codegen_c_prelude_((const irm_object *const *)&t, t ? 1 : 0, b);
  if (rc) return rc;
  irm_text_buf_puts_(b, "\n");
  irm_text_buf_puts_(b, kernels_text);
  irm_text_buf_puts_(b, "\n");
  irm_aot_emit_externs_(p, b);
  if (!p->opt.unpacked)
    for (size_t k = 0; k < p->n_kernels; k++) irm_aot_emit_wrapper_(&p->kernels[k], false, b);
  emit_constants(p, b);
  irm_text_buf_printf_(b, "\nstatic _Alignas(%zu) uint8_t tvmgen_%s_workspace[%zu];\n\n", workspace_align(p), m,
                       p->workspace_bytes ? p->workspace_bytes : 1);
  if (!p->opt.link_params) emit_set_params(p, b);
  emit_body(p, b);
  emit_entry(p, b);
  emit_metadata(p, b);
  return b->failed ? irm_error(IRM_ENOMEM, "aot codegen: out of memory for the source") : IRM_OK;
}

int irm_aot_emit_header_(const dataflow_plan *p, irm_text_buf *b) {
  const char *m = p->opt.mod_name;
  irm_text_buf_printf_(b, "/* Generated by irm's AOT executor: the C interface of module '%s'. */\n"
                       "#ifndef TVMGEN_%s_H_\n#define TVMGEN_%s_H_\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
                       "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", m, m, m);
  irm_text_buf_printf_(b, "/* One pointer per input of main, in order. */\nstruct tvmgen_%s_inputs {\n", m);
  for (size_t i = 0; i < p->n_inputs; i++) irm_text_buf_printf_(b, "  void *%s;\n", p->inputs[i].field);
  if (!p->n_inputs) irm_text_buf_puts_(b, "  void *unused;\n");
  irm_text_buf_printf_(b, "};\n\n/* One pointer per output. */\nstruct tvmgen_%s_outputs {\n", m);
  for (size_t j = 0; j < p->n_outputs; j++) irm_text_buf_printf_(b, "  void *%s;\n", p->outputs[j].field);
  irm_text_buf_printf_(b, "};\n\n/* Runs the module; 0 on success, else an IRM_CRT_E* code (irm_crt.h). */\n"
                       "int32_t tvmgen_%s_run(struct tvmgen_%s_inputs *inputs, struct tvmgen_%s_outputs *outputs);\n",
                       m, m, m);
  if (!p->opt.link_params)
    irm_text_buf_printf_(b, "\n/* Copies the parameters from a params file's bytes (%s.params); needed before the first "
                         "run. */\nint32_t tvmgen_%s_set_params(const void *blob, size_t size);\n", m, m);
  irm_text_buf_printf_(b, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
  return b->failed ? irm_error(IRM_ENOMEM, "aot codegen: out of memory for the header") : IRM_OK;
}
