/* A plugin that adds an op (docs/ops.md): "plugin.scale", data * factor,
 * declared with IRM_REGISTER_OP, with a call attribute, a pattern, an
 * FInferType and an FEvaluate. Its init also registers "plugin.twice"
 * (data * 2) with irm_op_register, unless the environment variable
 * IRM_OP_PLUGIN_CLASH is set: then init registers "nn.conv2d", which
 * exists, so the load fails and takes "plugin.scale" away again. */
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
  return rc ? rc : elementwise(k, NULL);
}
IRM_REGISTER_OP("plugin.scale", scale_setup);

static int init(void) {
  irm_kind *k = NULL;
  int rc = irm_op_register(getenv("IRM_OP_PLUGIN_CLASH") ? "nn.conv2d" : "plugin.twice", 1, &k);
  return rc ? rc : elementwise(k, &k);
}

static const irm_plugin_info info = IRM_PLUGIN_INFO("op-plugin", "0.1.0", init);
IRM_PLUGIN_EXPORT(info);
