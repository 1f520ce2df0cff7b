/* The dialect's type keys in JSON: nodes and types are written under their
 * "dataflow." keys, and JSON written before the dialect took that prefix
 * (under "ir.Var", "ir.Call", ...: their former keys) still loads, as the
 * same program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/json.h>

#include "check_ir_struct_util.h"

/* The moved types: each "dataflow.<name>" had the key "ir.<name>". */
static const char *const moved[] = {"Expr", "Var", "GlobalVar", "Constant", "Tuple",      "TupleGetItem", "Call",
                                    "Let",  "Op",  "Function",  "Type",     "TensorType", "TupleType",    "FuncType"};
enum { n_moved = sizeof moved / sizeof *moved };

/* The JSON text of o. NEW String. */
static irm_object *to_json(const irm_object *o) {
  irm_any v = irm_any_object((irm_object *)o);
  irm_object *text = NULL;
  ck_assert_ok(irm_to_json(&v, &text));
  return text;
}

/* The object text holds. NEW. */
static irm_object *from_json(const char *text) {
  irm_any out = irm_any_none();
  int rc = irm_from_json(text, strlen(text), &out);
  ck_require(rc == 0, "irm_from_json failed: %s", irm_last_error());
  ck_require(out.type_code == IRM_OBJECT, "irm_from_json gave a %s", irm_any_type_name(&out));
  return out.v_obj;
}

/* text with every occurrence of from replaced by to (malloc'd). */
static char *replace_all(const char *text, const char *from, const char *to) {
  size_t n = 0, lf = strlen(from), lt = strlen(to);
  for (const char *p = text; (p = strstr(p, from)) != NULL; p += lf) n++;
  char *out = malloc(strlen(text) + n * lt + 1), *w = out;
  ck_assert_ptr_nonnull(out);
  for (const char *p = text, *q;; p = q + lf) {
    q = strstr(p, from);
    size_t k = q ? (size_t)(q - p) : strlen(p);
    memcpy(w, p, k);
    w += k;
    if (!q) break;
    memcpy(w, to, lt);
    w += lt;
  }
  *w = '\0';
  return out;
}

static int mentions_type(const char *json, const char *key) {
  char quoted[64];
  snprintf(quoted, sizeof quoted, "\"type\":\"%s\"", key);
  return strstr(json, quoted) != NULL;
}

/* ---- the registry ------------------------------------------------------------- */

START_TEST(test_each_moved_type_has_its_dataflow_key_and_its_former_ir_key) {
  for (int i = 0; i < n_moved; i++) {
    char key[40], old[40];
    snprintf(key, sizeof key, "dataflow.%s", moved[i]);
    snprintf(old, sizeof old, "ir.%s", moved[i]);
    int32_t index = -1, by_old = -1;
    ck_assert_ok(irm_type_find(key, &index));
    ck_assert_ok(irm_type_find(old, &by_old));
    ck_assert_int_eq(by_old, index);
    ck_assert_str_eq(irm_type_key(index), key);
    const irm_type_info *info = irm_type_info_of(index);
    ck_assert_ptr_nonnull(info->former_keys);
    ck_assert_str_eq(info->former_keys[0], old);
    ck_assert_ptr_null(info->former_keys[1]);
  }
  /* The parents moved with them; Function stays an ir.BaseFunc. */
  int32_t function = -1, base_func = -1, expr = -1, tensor_type = -1, type = -1;
  ck_assert_ok(irm_type_find("dataflow.Function", &function));
  ck_assert_ok(irm_type_find("ir.BaseFunc", &base_func));
  ck_assert_ok(irm_type_find("dataflow.Expr", &expr));
  ck_assert_ok(irm_type_find("dataflow.TensorType", &tensor_type));
  ck_assert_ok(irm_type_find("dataflow.Type", &type));
  ck_assert_str_eq(irm_type_info_of(function)->parent_key, "ir.BaseFunc");
  ck_assert(irm_type_is_subtype(function, base_func));
  ck_assert(!irm_type_is_subtype(function, expr));
  ck_assert_str_eq(irm_type_info_of(tensor_type)->parent_key, "dataflow.Type");
  ck_assert(irm_type_is_subtype(tensor_type, type));
  /* The module core and the configs keep their keys, and have no former ones. */
  const char *kept[] = {"ir.IRModule", "ir.BaseFunc", "ir.DictAttrs", "target.Target", "ir.Executor", "ir.Runtime"};
  for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
    int32_t index = -1;
    ck_assert_ok(irm_type_find(kept[i], &index));
    ck_assert_str_eq(irm_type_key(index), kept[i]);
    ck_assert_ptr_null(irm_type_info_of(index)->former_keys);
  }
}
END_TEST

START_TEST(test_nodes_report_dataflow_keys_and_answer_to_former_ones) {
  irm_object *x = var("x", vec(2));
  irm_object *call = add(R(x), R(x));
  ck_assert_str_eq(irm_object_type_key(x), "dataflow.Var");
  ck_assert_str_eq(irm_object_type_key(call), "dataflow.Call");
  ck_assert_str_eq(irm_object_type_key(irm_expr_type(x)), "dataflow.TensorType");
  ck_assert(irm_object_is(x, "dataflow.Var") && irm_object_is(x, "ir.Var"));
  ck_assert(irm_object_is(x, "dataflow.Expr") && irm_object_is(x, "ir.Expr"));
  ck_assert(irm_object_is(irm_expr_type(x), "ir.Type"));
  ck_assert(!irm_object_is(x, "ir.Call") && !irm_object_is(call, "dataflow.Var"));
  irm_object *f = fn1(R(x), R(call));
  ck_assert_str_eq(irm_object_type_key(f), "dataflow.Function");
  ck_assert(irm_object_is(f, "ir.BaseFunc") && irm_object_is(f, "ir.Function"));
  ck_assert(!irm_object_is(f, "dataflow.Expr"));
  irm_object_release(f);
  irm_object_release(call);
  irm_object_release(x);
}
END_TEST

/* ---- JSON --------------------------------------------------------------------- */

/* What an earlier irm wrote for the module
 *   def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
 *     add(%x, <constant [1, 2]>)
 *   }
 * written out by hand, under the former keys. */
static const char old_module_json[] =
    "{\"irm_json\": 1, \"root\": {\"ref\": 31}, \"nodes\": [\n"
    "  {\"type\": \"ffi.String\", \"data\": \"float32\"},\n"
    "  {\"type\": \"ffi.Array\", \"items\": [2]},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [\"dtype\", \"shape\"], \"values\": [{\"ref\": 0}, {\"ref\": 1}]},\n"
    "  {\"type\": \"ir.TensorType\", \"fields\": {\"ref\": 2}},\n"
    "  {\"type\": \"ffi.String\", \"data\": \"x\"},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [\"name\", \"type\"], \"values\": [{\"ref\": 4}, {\"ref\": 3}]},\n"
    "  {\"type\": \"ir.Var\", \"fields\": {\"ref\": 5}},\n"
    "  {\"type\": \"ffi.Array\", \"items\": [{\"ref\": 6}]},\n"
    "  {\"type\": \"ffi.String\", \"data\": \"add\"},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [\"name\"], \"values\": [{\"ref\": 8}]},\n"
    "  {\"type\": \"ir.Op\", \"fields\": {\"ref\": 9}},\n"
    "  {\"type\": \"ffi.String\", \"data\": \"float32\"},\n"
    "  {\"type\": \"ffi.Array\", \"items\": [2]},\n"
    "  {\"type\": \"ffi.String\", \"data\": \"AACAPwAAAEA=\"},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [\"dtype\", \"shape\", \"data\"],"
    " \"values\": [{\"ref\": 11}, {\"ref\": 12}, {\"ref\": 13}]},\n"
    "  {\"type\": \"ffi.Tensor\", \"fields\": {\"ref\": 14}},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [\"data\"], \"values\": [{\"ref\": 15}]},\n"
    "  {\"type\": \"ir.Constant\", \"fields\": {\"ref\": 16}},\n"
    "  {\"type\": \"ffi.Array\", \"items\": [{\"ref\": 6}, {\"ref\": 17}]},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [], \"values\": []},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [\"callee\", \"args\", \"attrs\", \"checked_type\"],"
    " \"values\": [{\"ref\": 10}, {\"ref\": 18}, {\"ref\": 19}, null]},\n"
    "  {\"type\": \"ir.Call\", \"fields\": {\"ref\": 20}},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [], \"values\": []},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [\"map\"], \"values\": [{\"ref\": 22}]},\n"
    "  {\"type\": \"ir.DictAttrs\", \"fields\": {\"ref\": 23}},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [\"params\", \"body\", \"ret_type\", \"attrs\", \"checked_type\"],"
    " \"values\": [{\"ref\": 7}, {\"ref\": 21}, {\"ref\": 3}, {\"ref\": 24}, null]},\n"
    "  {\"type\": \"ir.Function\", \"fields\": {\"ref\": 25}},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [\"main\"], \"values\": [{\"ref\": 26}]},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [\"map\"], \"values\": [{\"ref\": 19}]},\n"
    "  {\"type\": \"ir.DictAttrs\", \"fields\": {\"ref\": 28}},\n"
    "  {\"type\": \"ffi.Map\", \"keys\": [\"functions\", \"attrs\", \"frozen\"],"
    " \"values\": [{\"ref\": 27}, {\"ref\": 29}, false]},\n"
    "  {\"type\": \"ir.IRModule\", \"fields\": {\"ref\": 30}}\n"
    "]}\n";

/* The same module, built today. NEW. */
static irm_module *module_built_today(void) {
  static const float data[] = {1.0f, 2.0f};
  static const int64_t shape[] = {2};
  DLDataType f32 = {kDLFloat, 32, 1};
  irm_tensor *t = NULL;
  irm_object *c = NULL;
  ck_assert_ok(irm_tensor_new(f32, shape, 1, data, &t));
  ck_assert_ok(irm_constant_new(t, &c));
  irm_object_release(t);
  irm_object *x = var("x", vec(2));
  irm_object *body = call_attrs(op("add"), NULL, 2, R(x), c);
  irm_object *params[] = {x};
  return module1(fn(params, 1, body, vec(2), NULL));
}

START_TEST(test_json_written_with_the_former_keys_loads_as_the_same_module) {
  irm_object *old = from_json(old_module_json);
  irm_module *today = module_built_today();
  ck_assert_str_eq(irm_object_type_key(old), "ir.IRModule");
  ck_assert(struct_eq(old, today));
  irm_object *main = irm_module_function(old, "main");
  ck_assert_str_eq(irm_object_type_key(main), "dataflow.Function");
  irm_object *call = irm_function_body(main);
  ck_assert_str_eq(irm_object_type_key(call), "dataflow.Call");
  ck_assert_str_eq(irm_object_type_key(irm_call_callee(call)), "dataflow.Op");
  ck_assert_str_eq(irm_object_type_key(irm_call_arg(call, 1)), "dataflow.Constant");
  ck_assert_str_eq(irm_object_type_key(irm_function_ret_type(main)), "dataflow.TensorType");
  /* The Var the body uses is the parameter: sharing survived. */
  ck_assert_ptr_eq(irm_call_arg(call, 0), irm_function_param(main, 0));

  /* Written again, it has today's keys only (the hand-written document
   * shares more nodes than the writer does, so the texts differ). */
  irm_object *again = to_json(old);
  const char *text = irm_string_data(again);
  const char *now[] = {"dataflow.TensorType", "dataflow.Var",      "dataflow.Op",  "dataflow.Constant",
                       "dataflow.Call",       "dataflow.Function", "ir.DictAttrs", "ir.IRModule"};
  for (size_t i = 0; i < sizeof now / sizeof *now; i++)
    ck_assert_msg(mentions_type(text, now[i]), "%s is not in the JSON", now[i]);
  const char *gone[] = {"ir.TensorType", "ir.Var", "ir.Op", "ir.Constant", "ir.Call", "ir.Function"};
  for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
    ck_assert_msg(!mentions_type(text, gone[i]), "%s is in the JSON", gone[i]);
  irm_object *back = from_json(text);
  ck_assert(struct_eq(back, today));
  irm_object_release(back);
  irm_object_release(again);
  irm_object_release(today);
  irm_object_release(old);
}
END_TEST

/* A module using every node and type of the dialect. NEW. */
static irm_module *module_of_every_kind(void) {
  static const float data[] = {0.5f, -1.5f};
  static const int64_t shape[] = {2};
  DLDataType f32 = {kDLFloat, 32, 1};
  irm_tensor *t = NULL;
  irm_object *c = NULL, *pair_type = NULL, *f_type = NULL;
  ck_assert_ok(irm_tensor_new(f32, shape, 1, data, &t));
  ck_assert_ok(irm_constant_new(t, &c));
  irm_object_release(t);
  irm_object *pair[] = {vec(2), vec(2)}, *vec2 = vec(2);
  ck_assert_ok(irm_tuple_type_new(pair, 2, &pair_type));
  ck_assert_ok(irm_func_type_new(&vec2, 1, pair_type, &f_type));
  irm_object_release(pair[0]);
  irm_object_release(pair[1]);
  irm_object_release(vec2);
  irm_object_release(pair_type);

  /* helper(%y) = neg(%y) */
  irm_object *y = var("y", vec(2));
  irm_object *helper = fn1(R(y), neg(y));
  /* main(%x, %f: fn (Tensor) -> (Tensor, Tensor)) =
   *   let %t = (%x, const) in add(%t.0, @helper(%f(%x).1)) */
  irm_object *x = var("x", vec(2)), *f = var("f", f_type), *tv = var("t", NULL);
  irm_object *from_f = call_attrs(R(f), NULL, 1, R(x));
  irm_object *body =
      let(R(tv), tuple2(R(x), c), add(get(R(tv), 0), call_attrs(gvar("helper"), NULL, 1, get(from_f, 1))));
  irm_object_release(tv);
  irm_module *m = module1(fn2(x, f, body));
  return with_fn(m, "helper", helper);
}

START_TEST(test_every_moved_key_loads_from_its_former_key) {
  irm_module *today = module_of_every_kind();
  irm_object *json = to_json(today);
  const char *text = irm_string_data(json);
  /* The abstract Expr and Type have no objects of their own to write. */
  for (int i = 0; i < n_moved; i++) {
    if (!strcmp(moved[i], "Expr") || !strcmp(moved[i], "Type")) continue;
    char key[40], old[40];
    snprintf(key, sizeof key, "dataflow.%s", moved[i]);
    snprintf(old, sizeof old, "ir.%s", moved[i]);
    ck_assert_msg(mentions_type(text, key), "%s is not in the JSON", key);
    ck_assert_msg(!mentions_type(text, old), "%s is in the JSON", old);
  }
  char *old_text = replace_all(text, "\"type\":\"dataflow.", "\"type\":\"ir.");
  ck_assert_ptr_null(strstr(old_text, "dataflow."));
  irm_object *old = from_json(old_text);
  ck_assert(struct_eq(old, today));
  irm_object *again = to_json(old);
  ck_assert_msg(!strcmp(irm_string_data(again), text), "written again, the JSON differs");
  irm_object_release(again);
  irm_object_release(old);
  free(old_text);
  irm_object_release(json);
  irm_object_release(today);
}
END_TEST

START_TEST(test_unknown_type_in_json_suggests_the_current_key) {
  /* A typo of a former key, of a current key, and a key nothing is near. */
  static const struct {
    const char *key, *error;
  } cases[] = {
      {"ir.Cal", "type 'ir.Cal' is not registered (did you mean 'dataflow.Call'?)"},
      {"dataflow.TupleGetItme",
       "type 'dataflow.TupleGetItme' is not registered (did you mean 'dataflow.TupleGetItem'?)"},
      {"ir.TensorTyp", "type 'ir.TensorTyp' is not registered (did you mean 'dataflow.TensorType'?)"},
      {"zzz.Nothing", "type 'zzz.Nothing' is not registered"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char text[256];
    snprintf(text, sizeof text,
             "{\"irm_json\": 1, \"root\": {\"ref\": 1}, \"nodes\": [{\"type\": \"ffi.Map\", \"keys\": [], "
             "\"values\": []}, {\"type\": \"%s\", \"fields\": {\"ref\": 0}}]}",
             cases[i].key);
    irm_any out = irm_any_none();
    ck_assert_error(irm_from_json(text, strlen(text), &out), IRM_EKEY, "KeyError: ");
    ck_assert_error_mentions("node 1");
    ck_assert_error_mentions(cases[i].error);
    ck_assert_int_eq(out.type_code, IRM_NONE);
  }
  ck_assert_ptr_null(strstr(irm_last_error(), "did you mean"));
}
END_TEST

/* ---- suite ------------------------------------------------------------------------ */

static Suite *ir_json_keys_suite(void) {
  Suite *s = suite_create("ir_json_keys");
  TCase *tc = tcase_create("registry");
  tcase_add_test(tc, test_each_moved_type_has_its_dataflow_key_and_its_former_ir_key);
  tcase_add_test(tc, test_nodes_report_dataflow_keys_and_answer_to_former_ones);
  suite_add_tcase(s, tc);
  tc = tcase_create("json");
  tcase_add_test(tc, test_json_written_with_the_former_keys_loads_as_the_same_module);
  tcase_add_test(tc, test_every_moved_key_loads_from_its_former_key);
  tcase_add_test(tc, test_unknown_type_in_json_suggests_the_current_key);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(ir_json_keys_suite()); }
