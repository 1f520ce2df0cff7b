/* An accelerator target in one plugin (docs/patterns.md#partitioning):
 *
 * - the target kind "accel" (device type 12, DLPack's ext_dev, buildable);
 * - what its code generator takes, as the kind attribute target.patterns:
 *   conv2d + bias_add + relu, and dense + bias_add, as composites;
 * - its code generator, the global codegen.ext.accel, which irm_build calls
 *   with each function PartitionForTarget{target=accel} outlined for it and
 *   which gives a text artifact listing the composites it compiled.
 *
 * Build with it: run PartitionForTarget{target=accel} on the typed module,
 * then irm_build with the targets ["c", "accel"]. */
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

/* codegen.ext.accel(function, name) -> String: the accelerator's "code". */
static int codegen(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  irm_object *fn = NULL;
  const char *name = NULL;
  size_t n = 0;
  int rc = irm_arg_count("codegen.ext.accel", nargs, 2, 2);
  if (!rc) rc = irm_arg_object("codegen.ext.accel", args, 0, "dataflow.Function", &fn);
  if (!rc) rc = irm_arg_str("codegen.ext.accel", args, 1, &name, &n);
  if (rc) return rc;
  listing l;
  l.len = (size_t)snprintf(l.text, sizeof l.text, "// accel program for %s\n", name);
  irm_expr_visit(fn, note_composite, &l);
  irm_object *s = NULL;
  if ((rc = irm_string_from_cstr(l.text, &s))) return rc;
  *ret = irm_any_object(s);
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
