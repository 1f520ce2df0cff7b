/* Uniqued IR values (dataflow/type.h, expr.h): equal types are one object,
 * from one thread or many, through every constructor (JSON too); a type
 * dies with its last reference and a later equal one is made afresh. Equal
 * call attributes (defaults filled in) are one Map. An op's cached
 * properties (its hooks) follow every change of its attributes. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check_util.h"

static DLDataType dtype(const char *name) {
  DLDataType t;
  ck_assert_ok(irm_dtype_parse(name, &t));
  return t;
}

static irm_object *ttype(const char *dt, int32_t ndim, const int64_t *shape) {
  irm_object *t = NULL;
  ck_assert_ok(irm_tensor_type_new(dtype(dt), shape, ndim, &t));
  return t;
}

START_TEST(test_equal_tensor_types_are_one_object) {
  int64_t s1[] = {1, 3, 224, 224}, s2[] = {1, 3, 224, 224}, s3[] = {1, 3, 224, 225};
  irm_object *a = ttype("float32", 4, s1), *b = ttype("float32", 4, s2);
  irm_object *c = ttype("float32", 4, s3), *d = ttype("float16", 4, s1), *e = ttype("float32", 3, s1);
  irm_object *f = ttype("float32", 0, NULL), *g = ttype("float32", 0, NULL);
  ck_assert_ptr_eq(a, b);
  ck_assert_uint_eq(irm_object_refcount(a), 2);
  ck_assert_ptr_ne(a, c);
  ck_assert_ptr_ne(a, d);
  ck_assert_ptr_ne(a, e);
  ck_assert_ptr_eq(f, g);
  ck_assert_ptr_ne(f, e);
  ck_assert(irm_dataflow_type_equal(a, b));
  ck_assert(!irm_dataflow_type_equal(a, c));
  ck_assert(!irm_dataflow_type_equal(a, NULL));
  ck_assert(!irm_dataflow_type_equal(NULL, NULL));
  /* a tensor's type is the same object too */
  int64_t small[] = {2, 3};
  float data[6] = {0};
  irm_tensor *tensor = NULL;
  irm_object *of = NULL, *h = ttype("float32", 2, small);
  ck_assert_ok(irm_tensor_new(dtype("float32"), small, 2, data, &tensor));
  ck_assert_ok(irm_tensor_type_of((irm_object *)tensor, &of));
  ck_assert_ptr_eq(of, h);
  irm_object_release(h);
  irm_object *objs[] = {a, b, c, d, e, f, g, (irm_object *)tensor, of};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_equal_tuple_and_func_types_are_one_object) {
  int64_t s[] = {2, 3};
  irm_object *t = ttype("float32", 2, s), *u = ttype("int32", 2, s);
  irm_object *tu1 = NULL, *tu2 = NULL, *tu3 = NULL, *empty1 = NULL, *empty2 = NULL;
  irm_object *f1 = NULL, *f2 = NULL, *f3 = NULL, *nested1 = NULL, *nested2 = NULL;
  irm_object *tu[] = {t, u}, *ut[] = {u, t};
  ck_assert_ok(irm_tuple_type_new(tu, 2, &tu1));
  ck_assert_ok(irm_tuple_type_new(tu, 2, &tu2));
  ck_assert_ok(irm_tuple_type_new(ut, 2, &tu3));
  ck_assert_ok(irm_tuple_type_new(NULL, 0, &empty1));
  ck_assert_ok(irm_tuple_type_new(NULL, 0, &empty2));
  ck_assert_ptr_eq(tu1, tu2);
  ck_assert_ptr_ne(tu1, tu3);
  ck_assert_ptr_eq(empty1, empty2);
  ck_assert_ok(irm_func_type_new(tu, 2, t, &f1));
  ck_assert_ok(irm_func_type_new(tu, 2, t, &f2));
  ck_assert_ok(irm_func_type_new(tu, 2, u, &f3));
  ck_assert_ptr_eq(f1, f2);
  ck_assert_ptr_ne(f1, f3);
  /* a tuple type and a function type of the same items differ */
  ck_assert_ptr_ne((void *)tu1, (void *)f1);
  ck_assert_int_eq(irm_dataflow_type_kind_of(tu1), IRM_DATAFLOW_TYPE_TUPLE);
  ck_assert_int_eq(irm_dataflow_type_kind_of(f1), IRM_DATAFLOW_TYPE_FUNC);
  irm_object *in1[] = {tu1, f1}, *in2[] = {tu2, f2};
  ck_assert_ok(irm_tuple_type_new(in1, 2, &nested1));
  ck_assert_ok(irm_tuple_type_new(in2, 2, &nested2));
  ck_assert_ptr_eq(nested1, nested2);
  /* errors create nothing and leave the table as it was */
  irm_object *bad[] = {t, NULL}, *out = NULL;
  ck_assert_error(irm_tuple_type_new(bad, 2, &out), IRM_ETYPE, "TypeError: irm_tuple_type_new: item 1");
  ck_assert_ptr_null(out);
  irm_object *objs[] = {t, u, tu1, tu2, tu3, empty1, empty2, f1, f2, f3, nested1, nested2};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_json_and_text_give_the_uniqued_type) {
  int64_t s[] = {4};
  irm_object *t = ttype("int8", 1, s), *json = NULL;
  irm_any v = irm_any_object(t), back;
  ck_assert_ok(irm_to_json(&v, &json));
  ck_assert_ok(irm_from_json(irm_string_data(json), irm_string_size(json), &back));
  ck_assert_int_eq(back.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(back.v_obj, t);
  irm_any_release(&back);
  irm_object_release(json);
  /* every parameter and call of a parsed program shares its one type */
  static const char text[] = "#[version = \"irm-0.1\"]\n"
                             "def @main(%x: Tensor[(4,), int8], %y: Tensor[(4,), int8]) {\n"
                             "  %0 = add(%x, %y) : Tensor[(4,), int8];\n"
                             "  %0\n}\n";
  irm_module *m = NULL;
  ck_assert_ok(irm_dataflow_parse(text, sizeof text - 1, &m));
  irm_object *f = irm_module_function(m, "main");
  ck_assert_ptr_eq(irm_expr_type(irm_function_param(f, 0)), t);
  ck_assert_ptr_eq(irm_expr_type(irm_function_param(f, 1)), t);
  ck_assert_ptr_eq(irm_expr_type(irm_function_body(f)), t);
  irm_object_release(m);
  irm_object_release(t);
}
END_TEST

START_TEST(test_a_released_type_leaves_the_table) {
  int64_t s[] = {7, 11, 13};
  irm_object *a = ttype("uint8", 3, s);
  ck_assert_uint_eq(irm_object_refcount(a), 1);
  irm_object *tu = NULL, *items[] = {a};
  ck_assert_ok(irm_tuple_type_new(items, 1, &tu));
  irm_object_release(a); /* the tuple keeps it alive */
  irm_object *b = ttype("uint8", 3, s);
  ck_assert_ptr_eq(b, a);
  ck_assert_uint_eq(irm_object_refcount(b), 2);
  irm_object_release(b);
  irm_object_release(tu); /* both die; making them again must work (no stale entry) */
  for (int round = 0; round < 3; round++) {
    irm_object *c = ttype("uint8", 3, s), *tc = NULL, *its[] = {c};
    ck_assert_uint_eq(irm_object_refcount(c), 1);
    ck_assert_ok(irm_tuple_type_new(its, 1, &tc));
    ck_assert_uint_eq(irm_object_refcount(tc), 1);
    ck_assert_int_eq((int)irm_tuple_type_size(tc), 1);
    ck_assert_ptr_eq(irm_tuple_type_field(tc, 0), c);
    irm_object_release(tc);
    irm_object_release(c);
  }
}
END_TEST

/* ---- call attributes --------------------------------------------------------- */

static irm_object *call_of(const char *op_name, irm_object *x, irm_object *w, const irm_object *attrs) {
  irm_object *op = NULL, *call = NULL, *args[] = {x, w};
  ck_assert_ok(irm_op_get(op_name, &op));
  ck_assert_ok(irm_call_new(op, args, w ? 2 : 1, attrs, &call));
  irm_object_release(op);
  return call;
}

START_TEST(test_equal_call_attributes_are_one_map) {
  irm_object *x = NULL, *w = NULL, *f = NULL, *g = NULL;
  ck_assert_ok(irm_var_new("x", NULL, &x));
  ck_assert_ok(irm_var_new("w", NULL, &w));
  /* no attributes: the one shared empty Map, for ops and for other callees */
  irm_object *a1 = call_of("add", x, w, NULL), *a2 = call_of("add", w, x, NULL);
  ck_assert_ptr_eq(irm_call_attrs(a1), irm_call_attrs(a2));
  ck_assert_uint_eq(irm_map_size(irm_call_attrs(a1)), 0);
  irm_object *params[] = {x}, *fn_call = NULL;
  ck_assert_ok(irm_function_new(params, 1, x, NULL, NULL, &f));
  ck_assert_ok(irm_call_new(f, &w, 1, NULL, &fn_call));
  ck_assert_ptr_eq(irm_call_attrs(fn_call), irm_call_attrs(a1));
  /* defaults filled in: equal dictionaries, one Map; given equal to the defaults, the same */
  irm_object *c1 = call_of("nn.conv2d", x, w, NULL), *c2 = call_of("nn.conv2d", w, x, NULL);
  ck_assert_ptr_eq(irm_call_attrs(c1), irm_call_attrs(c2));
  ck_assert_uint_gt(irm_map_size(irm_call_attrs(c1)), 0);
  const char *keys[] = {"groups"};
  irm_any one[] = {irm_any_int(1)}, two[] = {irm_any_int(2)};
  irm_object *m1 = NULL, *m2 = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, one, 1, &m1));
  ck_assert_ok(irm_map_from_pairs(keys, two, 1, &m2));
  irm_object *c3 = call_of("nn.conv2d", x, w, m1), *c4 = call_of("nn.conv2d", x, w, m2);
  irm_object *c5 = call_of("nn.conv2d", w, w, m2);
  ck_assert_ptr_eq(irm_call_attrs(c3), irm_call_attrs(c1));
  ck_assert_ptr_ne(irm_call_attrs(c4), irm_call_attrs(c1));
  ck_assert_ptr_eq(irm_call_attrs(c4), irm_call_attrs(c5));
  ck_assert_ptr_ne(irm_call_attrs(c4), m2); /* the checked Map, not the one given */
  /* the given Map is not taken over: changing it later changes no call */
  ck_assert_uint_eq(irm_object_refcount(m2), 1);
  /* a call rebuilt from JSON shares its attributes too */
  irm_object *json = NULL;
  irm_any v = irm_any_object(c4), back;
  ck_assert_ok(irm_to_json(&v, &json));
  ck_assert_ok(irm_from_json(irm_string_data(json), irm_string_size(json), &back));
  ck_assert_ptr_eq(irm_call_attrs(back.v_obj), irm_call_attrs(c4));
  irm_any_release(&back);
  irm_object *objs[] = {x, w, f, g, a1, a2, fn_call, c1, c2, c3, c4, c5, m1, m2, json};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* A leaky_relu of x with its alpha given. */
static irm_object *leaky_of(irm_object *x, double alpha) {
  const char *keys[] = {"alpha"};
  irm_any values[] = {irm_any_float(alpha)};
  irm_object *attrs = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, values, 1, &attrs));
  irm_object *call = call_of("nn.leaky_relu", x, NULL, attrs);
  irm_object_release(attrs);
  return call;
}

static double alpha_of(const irm_object *call) {
  const irm_any *v = irm_map_find_cstr(irm_call_attrs(call), "alpha");
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(v->type_code, IRM_FLOAT);
  return v->v_float;
}

START_TEST(test_float_attributes_are_uniqued_exactly) {
  /* Structural equality takes doubles within 1e-9 as equal (TVM's rule);
   * uniquing must not: each call keeps its own value, to the bit. */
  static const double alphas[] = {0.0, 1e-12, -0.0, 5e-10, 0.1, 0.1 + 1e-12};
  enum { N = sizeof alphas / sizeof alphas[0] };
  irm_object *x = NULL, *calls[N], *again[N];
  ck_assert_ok(irm_var_new("x", NULL, &x));
  for (int i = 0; i < N; i++) calls[i] = leaky_of(x, alphas[i]);
  for (int i = 0; i < N; i++) {
    double got = alpha_of(calls[i]);
    ck_assert_msg(memcmp(&got, &alphas[i], sizeof got) == 0, "alpha %d: %.17g, given %.17g", i, got, alphas[i]);
    for (int j = 0; j < i; j++) ck_assert_ptr_ne(irm_call_attrs(calls[i]), irm_call_attrs(calls[j]));
  }
  /* the same value to the bit is still one Map, NaN included */
  for (int i = 0; i < N; i++) again[i] = leaky_of(x, alphas[i]);
  for (int i = 0; i < N; i++) ck_assert_ptr_eq(irm_call_attrs(again[i]), irm_call_attrs(calls[i]));
  irm_object *nan1 = leaky_of(x, NAN), *nan2 = leaky_of(x, NAN);
  ck_assert_ptr_eq(irm_call_attrs(nan1), irm_call_attrs(nan2));
  ck_assert(isnan(alpha_of(nan1)));
  for (int i = 0; i < N; i++) irm_object_release(calls[i]), irm_object_release(again[i]);
  irm_object_release(nan1);
  irm_object_release(nan2);
  irm_object_release(x);
}
END_TEST

/* ---- op hooks: cached op properties follow every attribute change -------------- */

static int hook_a(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args, (void)nargs, (void)resource;
  *ret = irm_any_int(1);
  return 0;
}

START_TEST(test_op_properties_follow_attribute_changes) {
  irm_kind *kind = NULL;
  ck_assert_ok(irm_op_register("uniq.hooked", 2, &kind));
  irm_object *op = NULL, *f1 = NULL, *f2 = NULL;
  ck_assert_ok(irm_op_get("uniq.hooked", &op));
  ck_assert_ptr_eq(irm_op_kind(op), kind);
  ck_assert_int_eq(irm_op_num_inputs(op), 2);
  ck_assert_int_eq(irm_op_pattern_of(op), IRM_OP_OPAQUE);
  irm_any v = irm_any_none();
  ck_assert_ok(irm_op_get_attr(op, IRM_OP_ATTR_EVALUATE, &v)); /* not set (other ops have it): None */
  ck_assert_int_eq(v.type_code, IRM_NONE);
  /* each change shows at once */
  irm_any pattern = irm_any_int(IRM_OP_INJECTIVE);
  ck_assert_ok(irm_kind_set_attr(kind, IRM_OP_ATTR_PATTERN, &pattern, 10));
  ck_assert_int_eq(irm_op_pattern_of(op), IRM_OP_INJECTIVE);
  ck_assert_ok(irm_op_set_num_inputs(kind, 3));
  ck_assert_int_eq(irm_op_num_inputs(op), 3);
  ck_assert_ok(irm_func_new_packed(hook_a, NULL, NULL, &f1));
  ck_assert_ok(irm_func_new_packed(hook_a, NULL, NULL, &f2));
  irm_any a1 = irm_any_object(f1), a2 = irm_any_object(f2);
  ck_assert_ok(irm_kind_set_attr(kind, IRM_OP_ATTR_EVALUATE, &a1, 10));
  ck_assert_ok(irm_op_get_attr(op, IRM_OP_ATTR_EVALUATE, &v));
  ck_assert_ptr_eq(v.v_obj, f1);
  irm_any_release(&v);
  ck_assert_ok(irm_kind_set_attr(kind, IRM_OP_ATTR_EVALUATE, &a2, 20)); /* a higher level replaces it */
  ck_assert_ok(irm_op_get_attr(op, IRM_OP_ATTR_EVALUATE, &v));
  ck_assert_ptr_eq(v.v_obj, f2);
  irm_any_release(&v);
  /* a change of another op's attributes leaves these as they are */
  irm_kind *other = NULL;
  ck_assert_ok(irm_op_register("uniq.other", 1, &other));
  ck_assert_ok(irm_kind_set_attr(other, IRM_OP_ATTR_PATTERN, &pattern, 10));
  ck_assert_int_eq(irm_op_pattern_of(op), IRM_OP_INJECTIVE);
  ck_assert_int_eq(irm_op_num_inputs(op), 3);
  /* a reset takes it away again */
  ck_assert_ok(irm_kind_reset_attr(kind, IRM_OP_ATTR_EVALUATE));
  ck_assert_ok(irm_op_get_attr(op, IRM_OP_ATTR_EVALUATE, &v));
  ck_assert_int_eq(v.type_code, IRM_NONE);
  ck_assert_ok(irm_kind_reset_attr(kind, IRM_OP_ATTR_PATTERN));
  ck_assert_int_eq(irm_op_pattern_of(op), IRM_OP_OPAQUE);
  /* the replaced function is still alive while the op's old hooks hold it; the op's own ref is gone */
  irm_object_release(f1);
  irm_object_release(f2);
  irm_object_release(op);
}
END_TEST

START_TEST(test_a_rolled_back_op_loses_its_hooks) {
  irm_journal *j = NULL;
  ck_assert_ok(irm_journal_open(&j));
  irm_kind *kind = NULL;
  ck_assert_ok(irm_op_register("uniq.rolled", 1, &kind));
  irm_object *op = NULL;
  ck_assert_ok(irm_op_get("uniq.rolled", &op));
  ck_assert_ptr_eq(irm_op_kind(op), kind);
  ck_assert_int_eq(irm_op_num_inputs(op), 1);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_ptr_null(irm_op_kind(op));
  ck_assert_int_eq(irm_op_num_inputs(op), -2);
  irm_object_release(op);
}
END_TEST

/* ---- threads: each makes and drops the same few types many times ---------- */

enum { N_THREADS = 4, N_ROUNDS = 2000, N_SHAPES = 8 };

typedef struct thread_job {
  irm_object *kept[N_SHAPES]; /* the types it holds at the end */
  int ok;
} thread_job;

static void *make_types(void *arg) {
  thread_job *job = arg;
  job->ok = 1;
  DLDataType f32;
  if (irm_dtype_parse("float32", &f32)) return NULL;
  for (int r = 0; r < N_ROUNDS; r++)
    for (int k = 0; k < N_SHAPES; k++) {
      int64_t shape[] = {k + 1, 5};
      irm_object *t = NULL, *tu = NULL;
      if (irm_tensor_type_new(f32, shape, 2, &t) || irm_tuple_type_new(&t, 1, &tu) ||
          irm_tuple_type_field(tu, 0) != t || irm_tensor_type_shape(t)[0] != k + 1)
        job->ok = 0;
      irm_object_release(tu);
      if (r == N_ROUNDS - 1) job->kept[k] = t;
      else irm_object_release(t);
    }
  return NULL;
}

START_TEST(test_threads_get_one_object_per_type) {
  pthread_t threads[N_THREADS];
  thread_job jobs[N_THREADS];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < N_THREADS; i++) ck_assert_int_eq(pthread_create(&threads[i], NULL, make_types, &jobs[i]), 0);
  for (int i = 0; i < N_THREADS; i++) ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
  for (int i = 0; i < N_THREADS; i++) {
    ck_assert(jobs[i].ok);
    for (int k = 0; k < N_SHAPES; k++) ck_assert_ptr_eq(jobs[i].kept[k], jobs[0].kept[k]);
  }
  for (int k = 1; k < N_SHAPES; k++) ck_assert_ptr_ne(jobs[0].kept[k], jobs[0].kept[0]);
  for (int k = 0; k < N_SHAPES; k++) ck_assert_uint_eq(irm_object_refcount(jobs[0].kept[k]), N_THREADS);
  for (int i = 0; i < N_THREADS; i++)
    for (int k = 0; k < N_SHAPES; k++) irm_object_release(jobs[i].kept[k]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ir_uniq");
  TCase *types = tcase_create("types");
  tcase_add_test(types, test_equal_tensor_types_are_one_object);
  tcase_add_test(types, test_equal_tuple_and_func_types_are_one_object);
  tcase_add_test(types, test_json_and_text_give_the_uniqued_type);
  tcase_add_test(types, test_a_released_type_leaves_the_table);
  tcase_add_test(types, test_threads_get_one_object_per_type);
  suite_add_tcase(s, types);
  TCase *attrs = tcase_create("attrs");
  tcase_add_test(attrs, test_equal_call_attributes_are_one_map);
  tcase_add_test(attrs, test_float_attributes_are_uniqued_exactly);
  suite_add_tcase(s, attrs);
  TCase *hooks = tcase_create("op_hooks");
  tcase_add_test(hooks, test_op_properties_follow_attribute_changes);
  tcase_add_test(hooks, test_a_rolled_back_op_loses_its_hooks);
  suite_add_tcase(s, hooks);
  return run_suite(s);
}
