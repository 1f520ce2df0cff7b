/* An accelerator target in one plugin (docs/patterns.md#partitioning):
 *
 * - the target kind "accel" (device type 12, DLPack's ext_dev, buildable);
 * - what its code generator takes, as the kind attribute target.patterns:
 *   conv2d + bias_add + relu, and dense + bias_add, as composites;
 * - its code generator, the global codegen.ext.accel, which irm_build calls
 *   with each function PartitionForTarget{target=accel} outlined for it and
 *   which gives two artifacts: <name>.accel, a listing of the composites
 *   it compiled, and <name>.c, the C source defining the function's
 *   symbol in the external-function convention the host code calls
 *   (docs/build.md#external-code-generators-byoc):
 *     int32_t <symbol>(const T *in0, ..., T *out0, ...)  -> 0 on success.
 *   The "accelerator" here is the C kernel generator (codegen.CKernel) on
 *   the composite function; a real one would emit its own code.
 *
 * Build with it: run PartitionForTarget{target=accel} on the typed module,
 * then irm_build with the targets ["c", "accel"]; export_library links
 * the host code and these sources into one library. */
#include <stdio.h>
#include <string.h>

#include <irm/irm.h>

/* op(args...) over n wildcards when args is NULL. *out NEW. */
static int call_of(const char *op, irm_object **args, size_t n, irm_object **out) {
  irm_object *callee = NULL, *w[4] = {NULL, NULL, NULL, NULL};
  int rc = irm_pattern_op(op, &callee);
  for (size_t i = 0; !rc && !args && i < n; i++) rc = irm_pattern_wildcard(&w[i]);
  if (!rc) rc = irm_pattern_call(callee, args ? args : w, n, out);
  irm_object_release(callee);
  for (size_t i = 0; i < 4; i++) irm_object_release(w[i]);
  return rc;
}

/* op(inner, _). *out NEW. */
static int wrap2(const char *op, irm_object *inner, irm_object **out) {
  irm_object *w = NULL;
  int rc = irm_pattern_wildcard(&w);
  irm_object *args[2] = {inner, w};
  if (!rc) rc = call_of(op, args, 2, out);
  irm_object_release(w);
  return rc;
}

/* [[name, pattern], ...], highest priority first. *out NEW. */
static int pattern_table(irm_object **out) {
  irm_object *conv = NULL, *bias = NULL, *relu = NULL, *dense = NULL, *dense_bias = NULL, *e1 = NULL, *e2 = NULL;
  int rc = call_of("nn.conv2d", NULL, 2, &conv);
  if (!rc) rc = wrap2("nn.bias_add", conv, &bias);
  if (!rc) rc = call_of("nn.relu", &bias, 1, &relu);
  if (!rc) rc = call_of("nn.dense", NULL, 2, &dense);
  if (!rc) rc = wrap2("nn.bias_add", dense, &dense_bias);
  irm_any a[2] = {irm_any_str("accel.conv2d_bias_relu"), irm_any_object(relu)};
  irm_any b[2] = {irm_any_str("accel.dense_bias"), irm_any_object(dense_bias)};
  if (!rc) rc = irm_array_new(a, 2, &e1);
  if (!rc) rc = irm_array_new(b, 2, &e2);
  irm_any entries[2] = {irm_any_object(e1), irm_any_object(e2)};
  if (!rc) rc = irm_array_new(entries, 2, out);
  irm_object *objs[] = {conv, bias, relu, dense, dense_bias, e1, e2};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  return rc;
}

typedef struct listing {
  char text[4096];
  size_t len;
} listing;

/* Notes each composite function met. */
static int note_composite(void *ctx, irm_object *node) {
  listing *l = ctx;
  irm_any name = irm_any_none();
  if (irm_expr_kind_of(node) != IRM_EXPR_FUNCTION || irm_base_func_get_attr(node, "Composite", &name)) return 0;
  const char *s = NULL;
  size_t n = 0;
  if (name.type_code != IRM_NONE && !irm_any_to_str(&name, &s, &n) && l->len < sizeof l->text)
    l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len, "  composite %s (%zu inputs)\n", s,
                               irm_function_param_count(node));
  irm_any_release(&name);
  return 0;
}

/* The C element type of a tensor type, NULL when the plugin takes none. */
static const char *ctype(const irm_object *type) {
  if (irm_dataflow_type_kind_of(type) != IRM_DATAFLOW_TYPE_TENSOR) return NULL;
  DLDataType dt = irm_tensor_type_dtype(type);
  if (dt.lanes != 1) return NULL;
  if (dt.code == kDLFloat && dt.bits == 32) return "float";
  if (dt.code == kDLInt && dt.bits == 32) return "int32_t";
  if (dt.code == kDLInt && dt.bits == 8) return "int8_t";
  if (dt.code == kDLUInt && dt.bits == 8) return "uint8_t";
  return NULL;
}

/* The kernel of fn: the composite its body calls when its arguments are
 * fn's params (PartitionForTarget's shape), else fn itself. map[i]: the
 * param of fn the kernel's param i is. */
static const irm_object *kernel_func(const irm_object *fn, size_t *map, size_t cap) {
  irm_object *body = irm_function_body(fn);
  size_t np = irm_function_param_count(fn);
  for (size_t i = 0; i < np && i < cap; i++) map[i] = i;
  if (irm_expr_kind_of(body) != IRM_EXPR_CALL || irm_expr_kind_of(irm_call_callee(body)) != IRM_EXPR_FUNCTION)
    return fn;
  size_t na = irm_call_arg_count(body);
  if (na > cap) return fn;
  for (size_t i = 0; i < na; i++) {
    size_t k = 0;
    while (k < np && irm_function_param(fn, k) != irm_call_arg(body, i)) k++;
    if (k == np) return fn; /* not a param: let the kernel generator take fn whole */
    map[i] = k;
  }
  return irm_call_callee(body);
}

/* Appends fmt to t (its text stays terminated). */
static void put(listing *t, const char *fmt, const char *a, size_t i) {
  if (t->len < sizeof t->text) t->len += (size_t)snprintf(t->text + t->len, sizeof t->text - t->len, fmt, a, i);
}

/* The exported function: in the external convention, calling the static
 * kernel <symbol>_kernel with a static scratch area. */
static int wrapper(const irm_object *fn, const char *symbol, const irm_object *kfn, const size_t *map, int64_t scratch,
                   listing *t) {
  size_t np = irm_function_param_count(fn);
  irm_object *rt = irm_expr_type(irm_function_body(kfn));
  size_t nout = irm_dataflow_type_kind_of(rt) == IRM_DATAFLOW_TYPE_TUPLE ? irm_tuple_type_size(rt) : 1;
  put(t, "\nint32_t %s(", symbol, 0);
  for (size_t i = 0; i < np; i++) {
    const char *ct = ctype(irm_expr_type(irm_function_param(fn, i)));
    if (!ct)
      return irm_error(IRM_ETYPE, "codegen.ext.accel: parameter %zu of '%s' is not a tensor it takes", i, symbol);
    put(t, i ? ", const %s *in%zu" : "const %s *in%zu", ct, i);
  }
  for (size_t j = 0; j < nout; j++) {
    const char *ct = ctype(irm_dataflow_type_kind_of(rt) == IRM_DATAFLOW_TYPE_TUPLE ? irm_tuple_type_field(rt, j) : rt);
    if (!ct) return irm_error(IRM_ETYPE, "codegen.ext.accel: output %zu of '%s' is not a tensor it takes", j, symbol);
    put(t, np + j ? ", %s *out%zu" : "%s *out%zu", ct, j);
  }
  put(t, ") {\n%s", scratch > 0 ? "  static _Alignas(64) unsigned char scratch[" : "", 0);
  if (scratch > 0) put(t, "%s%zu];\n", "", (size_t)scratch);
  put(t, "  return %s_kernel(", symbol, 0);
  for (size_t i = 0; i < irm_function_param_count(kfn); i++) put(t, "%sin%zu, ", "", map[i]);
  for (size_t j = 0; j < nout; j++) put(t, "%sout%zu, ", "", j);
  put(t, "%s);\n}\n", scratch > 0 ? "scratch" : "NULL", 0);
  return t->len < sizeof t->text ? IRM_OK : irm_error(IRM_EVALUE, "codegen.ext.accel: '%s' is too large", symbol);
}

/* fn's params and body as a plain function (no attributes: passes skip
 * the insides of Composite and Compiler functions) with every node typed
 * (InferType over a module of it). *out NEW. */
static int typed(const irm_object *fn, irm_object **out) {
  irm_object *fns = NULL, *plain = NULL, *params[64];
  irm_module *m = NULL, *t = NULL;
  size_t np = irm_function_param_count(fn);
  if (np > 64) return irm_error(IRM_EVALUE, "codegen.ext.accel: a function of %zu parameters is too large", np);
  for (size_t i = 0; i < np; i++) params[i] = irm_function_param(fn, i);
  int rc = irm_function_new(params, np, irm_function_body(fn), NULL, NULL, &plain);
  irm_any f = irm_any_object(plain);
  if (!rc) rc = irm_map_new(&fns);
  if (!rc) rc = irm_map_set_move(&fns, "f", &f);
  if (!rc) rc = irm_module_new(fns, NULL, &m);
  if (!rc) rc = irm_dataflow_infer_type(m, &t);
  if (!rc) {
    *out = irm_module_function(t, "f");
    irm_object_retain(*out);
  }
  irm_object_release(plain);
  irm_object_release(fns);
  irm_object_release(m);
  irm_object_release(t);
  return rc;
}

/* <symbol>.c: the prelude, the kernel, the exported function. *out NEW. */
static int c_source(const irm_object *given, const char *symbol, irm_object **out) {
  size_t map[64];
  const irm_object *fn = given;
  irm_object *kfn = NULL;
  int rc = typed(kernel_func(fn, map, 64), &kfn);
  if (rc) return rc;
  irm_object *info = NULL, *prelude = NULL, *src = NULL;
  char kname[256];
  snprintf(kname, sizeof kname, "%s_kernel", symbol);
  irm_any a[2] = {irm_any_object((irm_object *)kfn), irm_any_str(kname)}, got = irm_any_none();
  rc = irm_func_call_global("codegen.CKernel", a, 2, &got);
  if (!rc) info = got.v_obj;
  got = irm_any_none();
  if (!rc) rc = irm_func_call_global("codegen.CPrelude", NULL, 0, &got);
  if (!rc) prelude = got.v_obj;
  listing t;
  t.len = 0;
  t.text[0] = '\0';
  if (!rc) {
    const irm_any *scratch = irm_map_find_cstr(info, "scratch_bytes");
    rc = wrapper(fn, symbol, kfn, map, scratch ? scratch->v_int : 0, &t);
  }
  if (!rc)
    rc = irm_string_format(&src, "/* accel code for %s (codegen.ext.accel) */\n%s\n%s%s", symbol,
                           irm_string_data(prelude), irm_string_data(irm_map_find_cstr(info, "code")->v_obj), t.text);
  irm_object_release(info);
  irm_object_release(prelude);
  irm_object_release(kfn);
  if (!rc) *out = src;
  return rc;
}

/* codegen.ext.accel(function, name) -> Map {<name>.accel: listing, <name>.c: C source}. */
static int codegen(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  irm_object *fn = NULL;
  const char *name = NULL, *symbol = NULL;
  size_t n = 0;
  int rc = irm_arg_count("codegen.ext.accel", nargs, 2, 2);
  if (!rc) rc = irm_arg_object("codegen.ext.accel", args, 0, "dataflow.Function", &fn);
  if (!rc) rc = irm_arg_str("codegen.ext.accel", args, 1, &name, &n);
  if (rc) return rc;
  irm_any gs = irm_any_none();
  symbol = name;
  if (!irm_base_func_get_attr(fn, "global_symbol", &gs) && gs.type_code != IRM_NONE) irm_any_to_str(&gs, &symbol, NULL);
  listing l;
  l.len = (size_t)snprintf(l.text, sizeof l.text, "// accel program for %s\n", name);
  irm_expr_visit(fn, note_composite, &l);
  irm_object *s = NULL, *c = NULL, *files = NULL;
  char lname[300], cname[300];
  snprintf(lname, sizeof lname, "%s.accel", name);
  snprintf(cname, sizeof cname, "%s.c", name);
  rc = irm_string_from_cstr(l.text, &s);
  if (!rc) rc = c_source(fn, symbol, &c);
  const char *keys[2] = {lname, cname};
  irm_any values[2] = {irm_any_object(s), irm_any_object(c)};
  if (!rc) rc = irm_map_from_pairs(keys, values, 2, &files);
  irm_object_release(s);
  irm_object_release(c);
  irm_any_release(&gs);
  if (rc) return rc;
  *ret = irm_any_object(files);
  return IRM_OK;
}

static int init(void) {
  irm_kind *k = NULL;
  irm_object *table = NULL, *f = NULL;
  irm_any dev = irm_any_int(12), yes = irm_any_bool(true);
  int rc = irm_config_register_kind("target", "accel", NULL);
  if (!rc) rc = irm_kind_find("target", "accel", &k);
  if (!rc) rc = irm_kind_set_attr(k, "device_type", &dev, 10);
  if (!rc) rc = irm_kind_set_attr(k, IRM_TARGET_CODEGEN_ATTR, &yes, 10);
  if (!rc) rc = pattern_table(&table);
  irm_any t = irm_any_object(table);
  if (!rc) rc = irm_kind_set_attr(k, IRM_TARGET_PATTERNS_ATTR, &t, 10);
  if (!rc) rc = irm_func_new_packed(codegen, NULL, NULL, &f);
  if (!rc) rc = irm_func_register_global("codegen.ext.accel", f, 0);
  irm_object_release(table);
  irm_object_release(f);
  return rc;
}

static const irm_plugin_info info = IRM_PLUGIN_INFO("accel", "1.0.0", init);
IRM_PLUGIN_EXPORT(info);
