/* LowerRelu: a plugin pass that rewrites the IR itself. Every float32
 * nn.relu(x) becomes maximum(x, 0), or maximum(x, multiply(x, s)) (a leaky
 * ReLU) when the setting LowerRelu.negative_slope is s > 0. The setting
 * comes from the pipeline (LowerRelu{negative_slope=0.1}), else the module
 * attribute, else the PassContext, else 0. Needs typed input: InferType. */
#include <string.h>

#include <irm/irm.h>

/* A float32 scalar constant. *out NEW. */
static int scalar(float value, irm_object **out) {
  irm_object *t = NULL;
  int rc = irm_tensor_new((DLDataType){kDLFloat, 32, 1}, NULL, 0, &value, &t);
  if (!rc) rc = irm_constant_new(t, out);
  irm_object_release(t);
  return rc;
}

/* A call of the op named op on a and b. *out NEW. */
static int call2(const char *op, irm_object *a, irm_object *b, irm_object **out) {
  irm_object *callee = NULL, *args[2] = {a, b};
  int rc = irm_op_get(op, &callee);
  if (!rc) rc = irm_call_new(callee, args, 2, NULL, out);
  irm_object_release(callee);
  return rc;
}

/* Fused (Primitive) and external (Compiler) functions are not ours. */
static int pre(void *ctx, irm_object *node, int *descend) {
  (void)ctx;
  if (irm_expr_kind_of(node) == IRM_EXPR_FUNCTION && irm_base_func_should_skip(node, IRM_SKIP_DEFAULT)) *descend = 0;
  return IRM_OK;
}

static int is_float32_relu(const irm_object *call) {
  const char *op = irm_op_name(irm_call_callee(call));
  if (!op || strcmp(op, "nn.relu") != 0) return 0;
  DLDataType dtype = irm_tensor_type_dtype(irm_expr_type(irm_call_arg(call, 0)));
  return dtype.code == kDLFloat && dtype.bits == 32 && dtype.lanes == 1;
}

/* original still has its checked types; rebuilt has the rewritten children. */
static int post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  const double *slope = ctx;
  if (!is_float32_relu(original)) {
    irm_object_retain(rebuilt); /* keep it */
    *out = rebuilt;
    return IRM_OK;
  }
  irm_object *x = irm_call_arg(rebuilt, 0), *k = NULL, *scaled = NULL;
  int rc = scalar(*slope > 0 ? (float)*slope : 0.0f, &k);
  if (!rc && *slope > 0) rc = call2("multiply", x, k, &scaled);
  if (!rc) rc = call2("maximum", x, scaled ? scaled : k, out);
  irm_object_release(scaled);
  irm_object_release(k);
  return rc;
}

static int lower_relu(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                      void *resource, irm_object **out) {
  (void)ctx;
  (void)resource;
  irm_any v = irm_any_none();
  double slope = 0;
  int rc = irm_pass_setting(options, "negative_slope", mod, "LowerRelu.negative_slope", &v);
  if (!rc && v.type_code != IRM_NONE) rc = irm_any_to_float(&v, &slope);
  irm_any_release(&v);
  irm_expr_rewriter rw = {pre, post, &slope};
  return rc ? rc : irm_expr_rewrite(&rw, func, out);
}

static int make_pass(const irm_object *options, irm_pass **out) {
  static const char *const required[] = {"InferType"};
  return irm_function_pass_new("LowerRelu", 1, required, 1, options, lower_relu, NULL, NULL, out);
}

static int init(void) {
  irm_kind *kind = NULL;
  irm_any zero = irm_any_float(0);
  int rc = irm_module_attr_register("LowerRelu.negative_slope", "float", 0);
  if (!rc) rc = irm_pass_config_register("LowerRelu.negative_slope", "float", &zero, "LowerRelu.negative_slope");
  if (!rc) rc = irm_pass_register("LowerRelu", make_pass, &kind);
  return rc ? rc : irm_kind_add_option(kind, "negative_slope", IRM_OPTION_FLOAT, NULL, "slope below 0", 0);
}

static const irm_plugin_info info = IRM_PLUGIN_INFO("lower-relu", "1.0.0", init);
IRM_PLUGIN_EXPORT(info);
