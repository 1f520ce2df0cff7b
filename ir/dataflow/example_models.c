/* The built-in example models (dataflow/text.h: irm_dataflow_example_model*) and the
 * global ir.ExampleModel. Each model is a text of the IR text form, kept
 * identical to examples/models/<name>.irm (tests/ir/dataflow/check_example_models.c
 * compares them), and parsed on each call; its weights are parameters of
 * @main after the inputs, whose values go into the module's `params`
 * attribute, generated from a seed so every call and every machine gets
 * the same bits. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/dataflow/text.h"
#include "irm/module.h"
#include "expr_internal.h"
#include "irm_internal.h"

static const char cnn_text[] =
    "#[version = \"irm-0.1\"]\n"
    "// cnn: the default example model, a small image classifier.\n"
    "// conv2d(3x3, pad 1) -> bias_add -> relu -> max_pool2d(2x2) -> conv2d(3x3, pad 1)\n"
    "// -> bias_add -> relu -> global_avg_pool2d -> reshape -> dense -> bias_add -> softmax.\n"
    "// The weights are parameters; ir.ExampleModel puts their values (He-scaled,\n"
    "// from a fixed seed) in the module's `params` attribute.\n"
    "attributes {\n"
    "  mod_name = \"cnn\"\n"
    "}\n"
    "def @main(%data: Tensor[(1, 3, 32, 32), float32], %conv1_weight: Tensor[(8, 3, 3, 3), float32], %conv1_bias: Tensor[(8,), float32], %conv2_weight: Tensor[(16, 8, 3, 3), float32], %conv2_bias: Tensor[(16,), float32], %dense_weight: Tensor[(10, 16), float32], %dense_bias: Tensor[(10,), float32]) -> Tensor[(1, 10), float32] {\n"
    "  %0 = nn.conv2d(%data, %conv1_weight, padding=[1, 1], channels=8, kernel_size=[3, 3]);\n"
    "  %1 = nn.bias_add(%0, %conv1_bias);\n"
    "  %2 = nn.relu(%1);\n"
    "  %3 = nn.max_pool2d(%2, pool_size=[2, 2], strides=[2, 2]);\n"
    "  %4 = nn.conv2d(%3, %conv2_weight, padding=[1, 1], channels=16, kernel_size=[3, 3]);\n"
    "  %5 = nn.bias_add(%4, %conv2_bias);\n"
    "  %6 = nn.relu(%5);\n"
    "  %7 = nn.global_avg_pool2d(%6);\n"
    "  %8 = reshape(%7, newshape=[1, 16]);\n"
    "  %9 = nn.dense(%8, %dense_weight, units=10);\n"
    "  %10 = nn.bias_add(%9, %dense_bias);\n"
    "  %11 = nn.softmax(%10);\n"
    "  %11\n"
    "}\n";

static const char mlp_text[] =
    "#[version = \"irm-0.1\"]\n"
    "// mlp: three dense layers with bias_add and relu between them, then softmax.\n"
    "// The weights are parameters; ir.ExampleModel puts their values (He-scaled,\n"
    "// from a fixed seed) in the module's `params` attribute.\n"
    "attributes {\n"
    "  mod_name = \"mlp\"\n"
    "}\n"
    "def @main(%data: Tensor[(1, 64), float32], %fc1_weight: Tensor[(32, 64), float32], %fc1_bias: Tensor[(32,), float32], %fc2_weight: Tensor[(16, 32), float32], %fc2_bias: Tensor[(16,), float32], %fc3_weight: Tensor[(10, 16), float32], %fc3_bias: Tensor[(10,), float32]) -> Tensor[(1, 10), float32] {\n"
    "  %0 = nn.dense(%data, %fc1_weight, units=32);\n"
    "  %1 = nn.bias_add(%0, %fc1_bias);\n"
    "  %2 = nn.relu(%1);\n"
    "  %3 = nn.dense(%2, %fc2_weight, units=16);\n"
    "  %4 = nn.bias_add(%3, %fc2_bias);\n"
    "  %5 = nn.relu(%4);\n"
    "  %6 = nn.dense(%5, %fc3_weight, units=10);\n"
    "  %7 = nn.bias_add(%6, %fc3_bias);\n"
    "  %8 = nn.softmax(%7);\n"
    "  %8\n"
    "}\n";

static const char residual_text[] =
    "#[version = \"irm-0.1\"]\n"
    "// residual: a conv stem and one residual block whose skip connection adds\n"
    "// the stem's output %2 back (a diamond for FuseOps), then global_avg_pool2d,\n"
    "// dense and softmax. The weights are parameters; ir.ExampleModel puts their\n"
    "// values (He-scaled, from a fixed seed) in the module's `params` attribute.\n"
    "attributes {\n"
    "  mod_name = \"residual\"\n"
    "}\n"
    "def @main(%data: Tensor[(1, 3, 16, 16), float32], %stem_weight: Tensor[(8, 3, 3, 3), float32], %stem_bias: Tensor[(8,), float32], %block_conv1_weight: Tensor[(8, 8, 3, 3), float32], %block_conv1_bias: Tensor[(8,), float32], %block_conv2_weight: Tensor[(8, 8, 3, 3), float32], %block_conv2_bias: Tensor[(8,), float32], %fc_weight: Tensor[(10, 8), float32], %fc_bias: Tensor[(10,), float32]) -> Tensor[(1, 10), float32] {\n"
    "  %0 = nn.conv2d(%data, %stem_weight, padding=[1, 1], channels=8, kernel_size=[3, 3]);\n"
    "  %1 = nn.bias_add(%0, %stem_bias);\n"
    "  %2 = nn.relu(%1);\n"
    "  %3 = nn.conv2d(%2, %block_conv1_weight, padding=[1, 1], channels=8, kernel_size=[3, 3]);\n"
    "  %4 = nn.bias_add(%3, %block_conv1_bias);\n"
    "  %5 = nn.relu(%4);\n"
    "  %6 = nn.conv2d(%5, %block_conv2_weight, padding=[1, 1], channels=8, kernel_size=[3, 3]);\n"
    "  %7 = nn.bias_add(%6, %block_conv2_bias);\n"
    "  %8 = add(%7, %2);\n"
    "  %9 = nn.relu(%8);\n"
    "  %10 = nn.global_avg_pool2d(%9);\n"
    "  %11 = reshape(%10, newshape=[1, 8]);\n"
    "  %12 = nn.dense(%11, %fc_weight, units=10);\n"
    "  %13 = nn.bias_add(%12, %fc_bias);\n"
    "  %14 = nn.softmax(%13);\n"
    "  %14\n"
    "}\n";

typedef struct example_model {
  const char *name;
  const char *text;
  size_t n_inputs; /* the leading parameters of @main that are inputs, not weights */
} example_model;

/* The first is the default. */
static const example_model models[] = {
    {"cnn", cnn_text, 1},
    {"mlp", mlp_text, 1},
    {"residual", residual_text, 1},
};
enum { N_MODELS = sizeof models / sizeof models[0] };

static const example_model *find_model(const char *name) {
  if (!name) return &models[0];
  for (size_t i = 0; i < N_MODELS; i++)
    if (strcmp(models[i].name, name) == 0) return &models[i];
  return NULL;
}

int irm_dataflow_example_model_names(irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_example_model_names: out is NULL");
  irm_any items[N_MODELS];
  for (size_t i = 0; i < N_MODELS; i++) items[i] = irm_any_str(models[i].name);
  return irm_array_new(items, N_MODELS, out);
}

const char *irm_dataflow_example_model_text(const char *name) {
  const example_model *m = find_model(name);
  return m ? m->text : NULL;
}

/* ---- parameters -------------------------------------------------------------------- */

/* splitmix64: small, and the same sequence everywhere. */
static uint64_t splitmix(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* FNV-1a, to seed each parameter from the model's and its own name: a
 * parameter's values do not depend on the parameters before it. */
static uint64_t fnv1a(uint64_t h, const char *s) {
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001B3ull;
  return h;
}

/* A float32 tensor of type t (a float32 tensor type) holding values drawn
 * uniformly from [-limit, limit]: He's scaling, limit = sqrt(6 / fan_in),
 * for weights (rank 2 and more, fan_in the elements per output unit), and
 * a small 0.1 for biases. *out NEW. */
static int make_param(const char *model, const char *param, const irm_object *t, irm_tensor **out) {
  int32_t ndim = irm_tensor_type_ndim(t);
  DLDataType f32 = {kDLFloat, 32, 1};
  if (ndim < 0 || !irm_dtype_equal(irm_tensor_type_dtype(t), f32))
    return irm_error(IRM_ETYPE, "example model '%s': parameter '%s' is not a float32 tensor", model, param);
  const int64_t *shape = irm_tensor_type_shape(t);
  int64_t numel = irm_tensor_type_numel(t);
  double limit = 0.1;
  if (ndim >= 2 && shape[0] > 0 && numel > 0) limit = sqrt(6.0 / (double)(numel / shape[0]));
  irm_tensor *tensor = NULL;
  int rc = irm_tensor_new(f32, shape, ndim, NULL, &tensor);
  if (rc) return rc;
  uint64_t state = fnv1a(fnv1a(0xCBF29CE484222325ull, model), param);
  float *data = irm_tensor_data(tensor);
  for (int64_t i = 0; i < numel; i++) {
    double u = (double)(splitmix(&state) >> 40) / 16777216.0; /* 24 bits: exact in a float */
    data[i] = (float)((2.0 * u - 1.0) * limit);
  }
  *out = tensor;
  return IRM_OK;
}

/* The Map parameter name -> Tensor for @main of mod. *out NEW. */
static int make_params(const example_model *m, const irm_module *mod, irm_object **out) {
  irm_object *main_fn = irm_module_function(mod, "main"), *params = NULL;
  int rc = irm_map_new(&params);
  size_t n = irm_function_param_count(main_fn);
  for (size_t i = m->n_inputs; !rc && i < n; i++) {
    irm_object *var = irm_function_param(main_fn, i);
    irm_tensor *t = NULL;
    rc = make_param(m->name, irm_var_name(var), irm_expr_type(var), &t);
    irm_any v = irm_any_object(t);
    if (!rc) rc = irm_map_set_move(&params, irm_var_name(var), &v);
    irm_object_release(t);
  }
  if (rc) {
    irm_object_release(params);
    return rc;
  }
  *out = params;
  return IRM_OK;
}

/* ---- the models ------------------------------------------------------------------ */

static int unknown_model(const char *name) {
  const char *names[N_MODELS];
  for (size_t i = 0; i < N_MODELS; i++) names[i] = models[i].name;
  const char *best = irm_closest_name(name, names, N_MODELS);
  if (best) return irm_error(IRM_EKEY, "unknown example model '%s' (did you mean '%s'?)", irm_error_quote(name), best);
  return irm_error(IRM_EKEY, "unknown example model '%s' (the models: cnn, mlp, residual)", irm_error_quote(name));
}

int irm_dataflow_example_model(const char *name, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_example_model: out is NULL");
  const example_model *m = find_model(name);
  if (!m) return unknown_model(name);
  irm_module *mod = NULL;
  irm_object *params = NULL;
  int rc = irm_dataflow_parse(m->text, strlen(m->text), &mod);
  if (!rc) rc = make_params(m, mod, &params);
  irm_any v = irm_any_object(params);
  if (!rc) rc = irm_module_set_attr_move(&mod, IRM_ATTR_PARAMS, &v);
  irm_object_release(params);
  if (rc) {
    irm_object_release(mod);
    return irm_error_context(rc, "example model '%s'", m->name);
  }
  *out = mod;
  return IRM_OK;
}

/* ir.ExampleModel([name]) -> IRModule */
static int g_example_model(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.ExampleModel", *name = NULL;
  size_t len = 0;
  irm_module *mod = NULL;
  int rc = irm_arg_count(fn, nargs, 0, 1);
  if (!rc && irm_arg_present(args, nargs, 0)) rc = irm_arg_str(fn, args, 0, &name, &len);
  if (rc) return rc;
  if (name && strlen(name) != len) /* a NUL inside names no model */
    return irm_error(IRM_EKEY, "%s: unknown example model '%s'", fn, irm_error_quote(name));
  return irm_ret_object(fn, irm_dataflow_example_model(name, &mod), &mod, ret);
}

int irm_register_example_model_builtins_(void) {
  static const irm_builtin_global table[] = {
      {"ir.ExampleModel", g_example_model},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
