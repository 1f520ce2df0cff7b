/* Structural equality and hashing (structural.h): irm_structural_equal,
 * irm_structural_hash, the hooks of registered types, and the ffi.* globals
 * (ffi.StructuralEqual, ffi.StructuralHash, ffi.Repr). The laws on random
 * values are in check_structural_laws.c, irm_repr in check_repr.c. */
#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <irm/irm.h>

#include "check_structural_util.h"

/* ---- registered types with hooks ---------------------------------------- */

/* test.Caseless: a word compared without case, through equal/hash hooks. */
typedef struct caseless {
  char word[16];
} caseless;

static int caseless_calls; /* equal hook calls */

static int caseless_equal(const irm_object *a, const irm_object *b, int *out) {
  caseless_calls++;
  const caseless *x = irm_object_payload_const(a), *y = irm_object_payload_const(b);
  *out = strcasecmp(x->word, y->word) == 0;
  return IRM_OK;
}

static int caseless_hash(const irm_object *self, uint64_t *out) {
  const caseless *c = irm_object_payload_const(self);
  uint64_t h = 1469598103934665603ULL;
  for (const char *p = c->word; *p; p++) h = (h ^ (unsigned char)tolower(*p)) * 1099511628211ULL;
  *out = h;
  return IRM_OK;
}

static int32_t caseless_type(void) {
  static int32_t index = -1;
  irm_type_info info = {0};
  info.equal = caseless_equal;
  info.hash = caseless_hash;
  return type_once(&index, "test.Caseless", info);
}

static irm_object *new_caseless(const char *word) {
  irm_object *o = new_object(caseless_type(), sizeof(caseless));
  snprintf(((caseless *)irm_object_payload(o))->word, sizeof(caseless), "%s", word);
  return o;
}

/* test.Mod10: an int compared modulo 10 by an equal hook, without a hash
 * hook. */
static int mod10_equal(const irm_object *a, const irm_object *b, int *out) {
  *out = *(const int64_t *)irm_object_payload_const(a) % 10 == *(const int64_t *)irm_object_payload_const(b) % 10;
  return IRM_OK;
}

static irm_object *new_mod10(int64_t v) {
  static int32_t index = -1;
  irm_type_info info = {0};
  info.equal = mod10_equal;
  irm_object *o = new_object(type_once(&index, "test.Mod10", info), sizeof(int64_t));
  *(int64_t *)irm_object_payload(o) = v;
  return o;
}

/* test.Failing: hooks that fail. */
static int failing_equal(const irm_object *a, const irm_object *b, int *out) {
  (void)a, (void)b, (void)out;
  return irm_error(IRM_EVALUE, "cannot compare");
}

static int failing_hash(const irm_object *self, uint64_t *out) {
  (void)self, (void)out;
  return irm_error(IRM_ERUNTIME, "cannot hash");
}

static int failing_repr(const irm_object *self, irm_object **out) {
  (void)self, (void)out;
  return irm_error(IRM_EATTR, "cannot print");
}

static irm_object *new_failing(void) {
  static int32_t index = -1;
  irm_type_info info = {0};
  info.equal = failing_equal;
  info.hash = failing_hash;
  info.repr = failing_repr;
  return new_object(type_once(&index, "test.Failing", info), 8);
}

/* ---- scalars ------------------------------------------------------------ */

START_TEST(test_int_float_and_bool_are_never_equal) {
  irm_any i = irm_any_int(1), f = irm_any_float(1.0), b = irm_any_bool(true);
  ck_assert(!equal(&i, &f));
  ck_assert(!equal(&f, &i));
  ck_assert(!equal(&i, &b));
  ck_assert(!equal(&b, &f));
  ck_assert(hash(&i) != hash(&f));
  ck_assert(hash(&i) != hash(&b));
  irm_any zero = irm_any_int(0), no = irm_any_bool(false), none = irm_any_none();
  ck_assert(!equal(&zero, &no));
  ck_assert(!equal(&zero, &none));
  ck_assert(!equal(&no, &none));
}
END_TEST

START_TEST(test_scalars_compare_by_value) {
  irm_any a = irm_any_int(42), b = irm_any_int(42), c = irm_any_int(43);
  ck_assert(equal(&a, &b));
  ck_assert(!equal(&a, &c));
  ck_assert(hash(&a) == hash(&b));
  irm_any t1 = irm_any_bool(true), t2 = irm_any_bool(true);
  ck_assert(equal(&t1, &t2));
  irm_any n1 = irm_any_none(), n2 = irm_any_object(NULL);
  ck_assert(equal(&n1, &n2));
  ck_assert(hash(&n1) == hash(&n2));
  int x, y;
  irm_any p1 = irm_any_ptr(&x), p2 = irm_any_ptr(&x), p3 = irm_any_ptr(&y);
  ck_assert(equal(&p1, &p2));
  ck_assert(!equal(&p1, &p3));
  ck_assert(hash(&p1) == hash(&p2));
}
END_TEST

START_TEST(test_nan_equals_nan_and_zeros_are_equal) {
  uint64_t bits = 0x7ff8000000000123ULL;
  double odd_nan;
  memcpy(&odd_nan, &bits, sizeof odd_nan);
  irm_any n1 = irm_any_float(NAN), n2 = irm_any_float(odd_nan), one = irm_any_float(1);
  ck_assert(equal(&n1, &n1));
  ck_assert(equal(&n1, &n2));
  ck_assert(hash(&n1) == hash(&n2));
  ck_assert(!equal(&n1, &one));
  irm_any pz = irm_any_float(0.0), nz = irm_any_float(-0.0);
  ck_assert(equal(&pz, &nz));
  ck_assert(hash(&pz) == hash(&nz));
  irm_any inf = irm_any_float(INFINITY), ninf = irm_any_float(-INFINITY);
  ck_assert(!equal(&inf, &ninf));
}
END_TEST

/* TVM's rule (issue 40): doubles within an absolute 1e-9 are equal (an
 * epsilon read back from float32 equals 1e-5); ints stay exact, and every
 * finite double hashes alike so equal values keep equal hashes. */
START_TEST(test_floats_equal_within_tvm_tolerance) {
  irm_any e32 = irm_any_float((double)1e-5f), e = irm_any_float(1e-5), far = irm_any_float(1e-5 + 2e-9);
  ck_assert(equal(&e32, &e));
  ck_assert(hash(&e32) == hash(&e));
  ck_assert(!equal(&e, &far));
  irm_any big = irm_any_float(1e12), big1 = irm_any_float(1e12 + 1.0 / 1024);
  ck_assert(!equal(&big, &big1)); /* absolute, not relative */
  irm_any i1 = irm_any_int(1000000000000), i2 = irm_any_int(1000000000001);
  ck_assert(!equal(&i1, &i2));
  irm_any inf = irm_any_float(INFINITY), max = irm_any_float(1.7976931348623157e308);
  ck_assert(!equal(&inf, &max));
  ck_assert(hash(&inf) != hash(&max));
}
END_TEST

START_TEST(test_str_and_string_compare_by_bytes) {
  irm_object *s = new_string("abc");
  irm_any obj = irm_any_object(s), str = irm_any_str("abc"), other = irm_any_str("abd");
  ck_assert(equal(&obj, &str));
  ck_assert(equal(&str, &obj));
  ck_assert(hash(&obj) == hash(&str));
  ck_assert(!equal(&obj, &other));
  irm_object *n1 = NULL, *n2 = NULL;
  ck_assert_ok(irm_string_new("a\0b", 3, &n1));
  ck_assert_ok(irm_string_new("a\0c", 3, &n2));
  irm_any a1 = irm_any_object(n1), a2 = irm_any_object(n2), prefix = irm_any_str("a");
  ck_assert(!equal(&a1, &a2));
  ck_assert(!equal(&a1, &prefix));
  ck_assert(hash(&a1) != hash(&a2));
  irm_object_release(n2);
  irm_object_release(n1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_invalid_values_and_null_arguments_are_value_errors) {
  irm_any bad = irm_any_int(0), ok = irm_any_int(0);
  bad.type_code = 99;
  int eq = 0;
  uint64_t h = 0;
  ck_assert_error(irm_structural_equal(&bad, &ok, &eq), IRM_EVALUE, "ValueError: invalid value");
  ck_assert_error(irm_structural_equal(&ok, &bad, &eq), IRM_EVALUE, "ValueError: invalid value");
  ck_assert_error(irm_structural_hash(&bad, &h), IRM_EVALUE, "ValueError: invalid value");
  ck_assert_error(irm_structural_equal(NULL, &ok, &eq), IRM_EVALUE, "ValueError: irm_structural_equal");
  ck_assert_error(irm_structural_equal(&ok, &ok, NULL), IRM_EVALUE, "ValueError: irm_structural_equal");
  ck_assert_error(irm_structural_hash(NULL, &h), IRM_EVALUE, "ValueError: irm_structural_hash");
  irm_object *s = NULL;
  ck_assert_error(irm_repr(&bad, &s), IRM_EVALUE, "ValueError: irm_repr: invalid value");
  ck_assert_error(irm_repr(NULL, &s), IRM_EVALUE, "ValueError: irm_repr");
  irm_any null_str = irm_any_str(NULL);
  ck_assert_error(irm_structural_hash(&null_str, &h), IRM_EVALUE, "ValueError: str value holds a NULL pointer");
}
END_TEST

/* ---- containers --------------------------------------------------------- */

START_TEST(test_arrays_compare_item_by_item_in_order) {
  irm_any a_items[] = {irm_any_int(1), irm_any_int(2)};
  irm_any b_items[] = {irm_any_int(2), irm_any_int(1)};
  irm_object *a = new_array(a_items, 2), *b = new_array(b_items, 2), *c = new_array(a_items, 2),
             *d = new_array(a_items, 1);
  irm_any va = irm_any_object(a), vb = irm_any_object(b), vc = irm_any_object(c), vd = irm_any_object(d);
  ck_assert(!equal(&va, &vb));
  ck_assert(equal(&va, &vc));
  ck_assert(hash(&va) == hash(&vc));
  ck_assert(hash(&va) != hash(&vb));
  ck_assert(!equal(&va, &vd));
  irm_object_release(d);
  irm_object_release(c);
  irm_object_release(b);
  irm_object_release(a);
}
END_TEST

START_TEST(test_maps_ignore_insertion_order) {
  const char *k1[] = {"a", "b", "c"}, *k2[] = {"c", "a", "b"};
  irm_object *inner1 = new_array(NULL, 0), *inner2 = new_array(NULL, 0);
  irm_any v1[] = {irm_any_int(1), irm_any_object(inner1), irm_any_float(3)};
  irm_any v2[] = {irm_any_float(3), irm_any_int(1), irm_any_object(inner2)};
  irm_object *m1 = new_map(k1, v1, 3), *m2 = new_map(k2, v2, 3);
  irm_any a = irm_any_object(m1), b = irm_any_object(m2);
  ck_assert(equal(&a, &b));
  ck_assert(equal(&b, &a));
  ck_assert(hash(&a) == hash(&b));
  irm_object_release(m2);
  irm_object_release(inner2);
  irm_object_release(inner1);
  irm_object_release(m1);
}
END_TEST

START_TEST(test_maps_differ_by_key_or_value) {
  const char *k1[] = {"a", "b"}, *k2[] = {"a", "c"};
  irm_any v1[] = {irm_any_int(1), irm_any_int(2)}, v2[] = {irm_any_int(1), irm_any_int(3)};
  irm_object *m1 = new_map(k1, v1, 2), *m2 = new_map(k2, v1, 2), *m3 = new_map(k1, v2, 2), *m4 = new_map(k1, v1, 1);
  irm_any a = irm_any_object(m1), b = irm_any_object(m2), c = irm_any_object(m3), d = irm_any_object(m4);
  ck_assert(!equal(&a, &b));
  ck_assert(!equal(&a, &c));
  ck_assert(!equal(&a, &d));
  ck_assert(!equal(&d, &a));
  ck_assert(hash(&a) != hash(&b));
  ck_assert(hash(&a) != hash(&c));
  irm_object_release(m4);
  irm_object_release(m3);
  irm_object_release(m2);
  irm_object_release(m1);
}
END_TEST

START_TEST(test_different_object_types_are_never_equal) {
  irm_object *arr = new_array(NULL, 0), *map = NULL, *s = new_string("");
  ck_assert_ok(irm_map_new(&map));
  irm_any a = irm_any_object(arr), m = irm_any_object(map), str = irm_any_object(s);
  ck_assert(!equal(&a, &m));
  ck_assert(!equal(&m, &str));
  ck_assert(!equal(&a, &str));
  ck_assert(hash(&a) != hash(&m));
  irm_object_release(s);
  irm_object_release(map);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_million_deep_chains_compare_and_hash_without_recursion) {
  enum { DEPTH = 1000000 };
  irm_object *a = new_array(NULL, 0), *b = new_array(NULL, 0);
  for (int i = 1; i < DEPTH; i++) {
    irm_any ia = irm_any_object(a), ib = irm_any_object(b);
    irm_object *na = NULL, *nb = NULL;
    ck_require(irm_array_new(&ia, 1, &na) == 0 && irm_array_new(&ib, 1, &nb) == 0, "level %d", i);
    irm_object_release(a);
    irm_object_release(b);
    a = na;
    b = nb;
  }
  irm_any va = irm_any_object(a), vb = irm_any_object(b);
  ck_assert(equal(&va, &vb));
  ck_assert(hash(&va) == hash(&vb));
  irm_object *s = NULL;
  ck_assert_ok(irm_repr(&va, &s));
  ck_assert_uint_eq(irm_string_size(s), 2 * (size_t)DEPTH);
  ck_assert_int_eq(irm_string_data(s)[0], '[');
  ck_assert_int_eq(irm_string_data(s)[2 * DEPTH - 1], ']');
  irm_object_release(s);
  irm_object_release(b);
  irm_object_release(a);
}
END_TEST

/* A diamond DAG: level i is [level i-1, level i-1]. */
static irm_object *diamond(int levels, const char *leaf) {
  irm_object *level = new_string(leaf);
  for (int i = 0; i < levels; i++) {
    irm_any items[] = {irm_any_object(level), irm_any_object(level)};
    irm_object *next = new_array(items, 2);
    irm_object_release(level);
    level = next;
  }
  return level;
}

START_TEST(test_shared_structure_costs_objects_not_paths) {
  /* 2^64 paths each; finishing at all shows that sharing is remembered */
  irm_object *a = diamond(64, "leaf"), *b = diamond(64, "leaf"), *c = diamond(64, "leaF");
  irm_any va = irm_any_object(a), vb = irm_any_object(b), vc = irm_any_object(c);
  ck_assert(equal(&va, &vb));
  ck_assert(!equal(&va, &vc));
  ck_assert(hash(&va) == hash(&vb));
  ck_assert(hash(&va) != hash(&vc));
  irm_object_release(c);
  irm_object_release(b);
  irm_object_release(a);
}
END_TEST

/* ---- registered types --------------------------------------------------- */

START_TEST(test_types_with_fields_compare_by_their_fields) {
  irm_object *p = new_point(1, 2), *q = new_point(1, 2), *r = new_point(2, 1);
  irm_any vp = irm_any_object(p), vq = irm_any_object(q), vr = irm_any_object(r);
  ck_assert(equal(&vp, &vq));
  ck_assert(hash(&vp) == hash(&vq));
  ck_assert(!equal(&vp, &vr));
  /* the same fields in a plain Map are not a Point */
  const char *keys[] = {"x", "y"};
  irm_any vals[] = {irm_any_int(1), irm_any_int(2)};
  irm_object *m = new_map(keys, vals, 2);
  irm_any vm = irm_any_object(m);
  ck_assert(!equal(&vp, &vm));
  ck_assert(hash(&vp) != hash(&vm));
  irm_object_release(m);
  irm_object_release(r);
  irm_object_release(q);
  irm_object_release(p);
}
END_TEST

START_TEST(test_equal_and_hash_hooks_are_used) {
  irm_object *a = new_caseless("Hello"), *b = new_caseless("hELLO"), *c = new_caseless("world");
  irm_any va = irm_any_object(a), vb = irm_any_object(b), vc = irm_any_object(c);
  caseless_calls = 0;
  ck_assert(equal(&va, &vb));
  ck_assert_int_eq(caseless_calls, 1);
  ck_assert(!equal(&va, &vc));
  ck_assert(hash(&va) == hash(&vb));
  ck_assert(hash(&va) != hash(&vc));
  irm_object_release(c);
  irm_object_release(b);
  irm_object_release(a);
}
END_TEST

START_TEST(test_pointer_equal_objects_are_equal_without_hooks) {
  irm_object *a = new_caseless("x");
  irm_any items[] = {irm_any_object(a), irm_any_object(a)};
  irm_object *arr = new_array(items, 2);
  irm_any v1 = irm_any_object(a), v2 = irm_any_object(a), va = irm_any_object(arr);
  caseless_calls = 0;
  ck_assert(equal(&v1, &v2));
  ck_assert(equal(&va, &va));
  ck_assert_int_eq(caseless_calls, 0);
  irm_object_release(arr);
  irm_object_release(a);
}
END_TEST

START_TEST(test_equal_hook_without_hash_hook_keeps_hashes_consistent) {
  irm_object *a = new_mod10(3), *b = new_mod10(13), *c = new_mod10(4);
  irm_any va = irm_any_object(a), vb = irm_any_object(b), vc = irm_any_object(c);
  ck_assert(equal(&va, &vb));
  ck_assert(hash(&va) == hash(&vb));
  ck_assert(!equal(&va, &vc));
  irm_object_release(c);
  irm_object_release(b);
  irm_object_release(a);
}
END_TEST

START_TEST(test_types_without_hooks_compare_by_identity) {
  irm_object *a = new_opaque(), *b = new_opaque();
  irm_any va = irm_any_object(a), va2 = irm_any_object(a), vb = irm_any_object(b);
  ck_assert(equal(&va, &va2));
  ck_assert(!equal(&va, &vb));
  ck_assert(hash(&va) == hash(&va2));
  irm_object_release(b);
  irm_object_release(a);
}
END_TEST

START_TEST(test_hook_errors_name_the_type) {
  irm_object *a = new_failing(), *b = new_failing();
  irm_any items[] = {irm_any_object(a)};
  irm_object *arr = new_array(items, 1);
  irm_any va = irm_any_object(a), vb = irm_any_object(b), varr = irm_any_object(arr);
  int eq = -1;
  uint64_t h = 0;
  irm_object *s = NULL;
  ck_assert_error(irm_structural_equal(&va, &vb, &eq), IRM_EVALUE,
                  "ValueError: equal hook of type 'test.Failing': cannot compare");
  ck_assert_error(irm_structural_hash(&varr, &h), IRM_ERUNTIME,
                  "RuntimeError: hash hook of type 'test.Failing': cannot hash");
  ck_assert_error(irm_repr(&varr, &s), IRM_EATTR, "AttributeError: repr hook of type 'test.Failing': cannot print");
  ck_assert_ptr_null(s);
  irm_object_release(arr);
  irm_object_release(b);
  irm_object_release(a);
}
END_TEST

/* ---- globals ------------------------------------------------------------ */

START_TEST(test_global_structural_equal_returns_a_bool) {
  irm_any args[] = {irm_any_str("x"), irm_any_str("x")}, ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.StructuralEqual", args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_BOOL);
  ck_assert_int_eq(ret.v_int, 1);
  args[1] = irm_any_float(1);
  ck_assert_ok(irm_func_call_global("ffi.StructuralEqual", args, 2, &ret));
  ck_assert_int_eq(ret.v_int, 0);
}
END_TEST

START_TEST(test_global_structural_hash_returns_the_hash_as_an_int) {
  irm_object *p = new_point(4, 5);
  irm_any arg = irm_any_object(p), ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.StructuralHash", &arg, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert((uint64_t)ret.v_int == hash(&arg));
  irm_object_release(p);
}
END_TEST

START_TEST(test_global_repr_returns_a_string) {
  irm_any items[] = {irm_any_int(1), irm_any_str("two")};
  irm_object *arr = new_array(items, 2);
  irm_any arg = irm_any_object(arr), ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.Repr", &arg, 1, &ret));
  ck_assert_str_eq(irm_object_type_key(ret.v_obj), "ffi.String");
  ck_assert_str_eq(irm_string_data(ret.v_obj), "[1, \"two\"]");
  irm_any_release(&ret);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_global_errors_name_the_function) {
  irm_any one = irm_any_int(1), ret = irm_any_none();
  ck_assert_error(irm_func_call_global("ffi.StructuralEqual", &one, 1, &ret), IRM_ETYPE,
                  "TypeError: ffi.StructuralEqual takes 2 arguments, got 1");
  ck_assert_error(irm_func_call_global("ffi.StructuralHash", NULL, 0, &ret), IRM_ETYPE,
                  "TypeError: ffi.StructuralHash takes 1 argument, got 0");
  ck_assert_error(irm_func_call_global("ffi.Repr", NULL, 0, &ret), IRM_ETYPE,
                  "TypeError: ffi.Repr takes 1 argument, got 0");
  irm_object *a = new_failing(), *b = new_failing();
  irm_any pair[] = {irm_any_object(a), irm_any_object(b)};
  ck_assert_error(irm_func_call_global("ffi.StructuralEqual", pair, 2, &ret), IRM_EVALUE,
                  "ValueError: ffi.StructuralEqual: equal hook of type 'test.Failing'");
  ck_assert_error(irm_func_call_global("ffi.StructuralHash", pair, 1, &ret), IRM_ERUNTIME,
                  "RuntimeError: ffi.StructuralHash: hash hook of type 'test.Failing'");
  ck_assert_error(irm_func_call_global("ffi.Repr", pair, 1, &ret), IRM_EATTR,
                  "AttributeError: ffi.Repr: repr hook of type 'test.Failing'");
  irm_object_release(b);
  irm_object_release(a);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *structural_suite(void) {
  Suite *s = suite_create("structural");

  TCase *tc = tcase_create("scalars");
  tcase_add_test(tc, test_int_float_and_bool_are_never_equal);
  tcase_add_test(tc, test_floats_equal_within_tvm_tolerance);
  tcase_add_test(tc, test_scalars_compare_by_value);
  tcase_add_test(tc, test_nan_equals_nan_and_zeros_are_equal);
  tcase_add_test(tc, test_str_and_string_compare_by_bytes);
  tcase_add_test(tc, test_invalid_values_and_null_arguments_are_value_errors);
  suite_add_tcase(s, tc);

  tc = tcase_create("containers");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, test_arrays_compare_item_by_item_in_order);
  tcase_add_test(tc, test_maps_ignore_insertion_order);
  tcase_add_test(tc, test_maps_differ_by_key_or_value);
  tcase_add_test(tc, test_different_object_types_are_never_equal);
  tcase_add_test(tc, test_million_deep_chains_compare_and_hash_without_recursion);
  tcase_add_test(tc, test_shared_structure_costs_objects_not_paths);
  suite_add_tcase(s, tc);

  tc = tcase_create("registered_types");
  tcase_add_test(tc, test_types_with_fields_compare_by_their_fields);
  tcase_add_test(tc, test_equal_and_hash_hooks_are_used);
  tcase_add_test(tc, test_pointer_equal_objects_are_equal_without_hooks);
  tcase_add_test(tc, test_equal_hook_without_hash_hook_keeps_hashes_consistent);
  tcase_add_test(tc, test_types_without_hooks_compare_by_identity);
  tcase_add_test(tc, test_hook_errors_name_the_type);
  suite_add_tcase(s, tc);

  tc = tcase_create("globals");
  tcase_add_test(tc, test_global_structural_equal_returns_a_bool);
  tcase_add_test(tc, test_global_structural_hash_returns_the_hash_as_an_int);
  tcase_add_test(tc, test_global_repr_returns_a_string);
  tcase_add_test(tc, test_global_errors_name_the_function);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(structural_suite()); }
