/* A plugin that adds an op (docs/ops.md): "plugin.scale", data * factor,
 * declared with IRM_REGISTER_OP, with a call attribute, a pattern, an
 * FInferType, an FEvaluate and an FCodegenC. Its init also registers
 * "plugin.twice" (data * 2) with irm_op_register, unless the environment
 * variable IRM_OP_PLUGIN_CLASH is set: then init registers "nn.conv2d",
 * which exists, so the load fails and takes "plugin.scale" away again.
 *
 * FCodegenC (docs/codegen.md) shows both forms: plugin.scale's is a String,
 * the scalar C expression of one output element (so it fuses into the
 * loops of its elementwise neighbours); plugin.twice's is a Function that
 * receives the call's description Map and returns the C statements that
 * fill the output buffer. */
#include <stdlib.h>

#include <irm/irm.h>

/* FInferType: the type of the one argument. */
static int same_type(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)nargs;
  (void)resource;
  return irm_any_copy(irm_array_at(args[0].v_obj, 0), ret);
}

/* FEvaluate: inputs[0] times attrs["factor"] (2 when resource is set). */
static int scale(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)nargs;
  double factor = 2.0;
  int rc = resource ? IRM_OK : irm_any_to_float(irm_map_find_cstr(args[1].v_obj, "factor"), &factor);
  if (rc) return rc;
  irm_object *in = irm_array_at(args[0].v_obj, 0)->v_obj, *out = NULL;
  const DLTensor *dl = irm_tensor_dl(in);
  if ((rc = irm_tensor_new(dl->dtype, dl->shape, dl->ndim, NULL, &out))) return rc;
  for (int64_t i = 0; i < irm_tensor_numel(in); i++) irm_tensor_set_f64(out, i, factor * irm_tensor_get_f64(in, i));
  *ret = irm_any_object(out);
  return IRM_OK;
}

static int set_function(irm_kind *k, const char *attr, irm_packed_cfunc fn, void *resource) {
  irm_object *f = NULL;
  int rc = irm_func_new_packed(fn, resource, NULL, &f);
  irm_any v = irm_any_object(f);
  if (!rc) rc = irm_kind_set_attr(k, attr, &v, 10);
  irm_object_release(f);
  return rc;
}

/* FCodegenC of plugin.twice: (call Map) -> String of C statements. The
 * Map names the buffers ("inputs"[i]["name"], "output"["name"]) and gives
 * their C types and shapes. */
static int twice_codegen(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  if (nargs != 1 || args[0].type_code != IRM_OBJECT) return irm_error(IRM_ETYPE, "FCodegenC takes one Map");
  const irm_object *call = args[0].v_obj;
  const irm_any *ins = irm_map_find_cstr(call, "inputs"), *out = irm_map_find_cstr(call, "output");
  if (!ins || !out) return irm_error(IRM_EVALUE, "FCodegenC: the Map lacks inputs or output");
  const irm_object *in0 = irm_array_at(ins->v_obj, 0)->v_obj, *shape = irm_map_find_cstr(out->v_obj, "shape")->v_obj;
  int64_t numel = 1;
  for (size_t i = 0; i < irm_array_size(shape); i++) numel *= irm_array_at(shape, i)->v_int;
  const char *x = irm_string_data(irm_map_find_cstr(in0, "name")->v_obj);
  const char *y = irm_string_data(irm_map_find_cstr(out->v_obj, "name")->v_obj);
  const char *t = irm_string_data(irm_map_find_cstr(out->v_obj, "ctype")->v_obj);
  irm_object *code = NULL;
  int rc = irm_string_format(&code, "    for (int64_t i = 0; i < %lld; i++) %s[i] = (%s)(2.0 * (double)%s[i]);",
                             (long long)numel, y, t, x);
  if (!rc) *ret = irm_any_object(code);
  return rc;
}

static int elementwise(irm_kind *k, void *resource) {
  irm_any pattern = irm_any_int(IRM_OP_ELEMWISE);
  int rc = irm_op_set_num_inputs(k, 1);
  if (!rc) rc = irm_kind_set_attr(k, IRM_OP_ATTR_PATTERN, &pattern, 10);
  if (!rc) rc = set_function(k, IRM_OP_ATTR_INFER_TYPE, same_type, NULL);
  if (!rc) rc = set_function(k, IRM_OP_ATTR_EVALUATE, scale, resource);
  return rc;
}

static int scale_setup(irm_kind *k) {
  irm_any two = irm_any_float(2.0);
  int rc = irm_kind_add_option(k, "factor", IRM_OPTION_FLOAT, &two, "what data is multiplied by", 0);
  if (!rc) rc = elementwise(k, NULL);
  irm_object *expr = NULL; /* $0: the input element, $T: the output's C type, ${factor}: the attribute */
  if (!rc) rc = irm_string_from_cstr("($T)((double)$0 * ${factor})", &expr);
  irm_any v = irm_any_object(expr);
  if (!rc) rc = irm_kind_set_attr(k, IRM_OP_ATTR_CODEGEN_C, &v, 10);
  irm_object_release(expr);
  return rc;
}
IRM_REGISTER_OP("plugin.scale", scale_setup);

static int init(void) {
  irm_kind *k = NULL;
  int rc = irm_op_register(getenv("IRM_OP_PLUGIN_CLASH") ? "nn.conv2d" : "plugin.twice", 1, &k);
  if (!rc) rc = elementwise(k, &k);
  return rc ? rc : set_function(k, IRM_OP_ATTR_CODEGEN_C, twice_codegen, NULL);
}

static const irm_plugin_info info = IRM_PLUGIN_INFO("op-plugin", "0.1.0", init);
IRM_PLUGIN_EXPORT(info);
