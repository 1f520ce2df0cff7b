/* Structural equality, hashing and repr: irm_structural_equal,
 * irm_structural_hash, irm_repr and their ffi.* globals (structural.h). */
#include <check.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <irm/irm.h>

/* rc must be code and irm_last_error() must start with prefix. */
#define ck_assert_error(rc, code, prefix)                                     \
  do {                                                                        \
    int rc_ = (rc);                                                           \
    ck_assert_msg(rc_ == (code), "expected status %d, got %d (%s)", (code),   \
                  rc_, irm_last_error());                                     \
    ck_assert_msg(strncmp(irm_last_error(), (prefix), strlen(prefix)) == 0,   \
                  "expected a message starting with '%s', got '%s'",          \
                  (prefix), irm_last_error());                                \
  } while (0)

#define ck_assert_ok(expr)                                                    \
  do {                                                                        \
    int rc_ = (expr);                                                         \
    ck_assert_msg(rc_ == 0, "%s failed with %d: %s", #expr, rc_,              \
                  irm_last_error());                                          \
  } while (0)

/* Like ck_assert_msg, but silent on success (Check records every passing
 * assertion, too slow in loops). */
#define ck_require(expr, ...)                                                 \
  do {                                                                        \
    if (!(expr)) ck_abort_msg(__VA_ARGS__);                                   \
  } while (0)

/* ---- helpers ------------------------------------------------------------ */

static int equal(const irm_any *a, const irm_any *b) {
  int eq = -1;
  int rc = irm_structural_equal(a, b, &eq);
  ck_require(rc == 0, "irm_structural_equal failed: %s", irm_last_error());
  return eq;
}

static uint64_t hash(const irm_any *v) {
  uint64_t h = 0;
  int rc = irm_structural_hash(v, &h);
  ck_require(rc == 0, "irm_structural_hash failed: %s", irm_last_error());
  return h;
}

static irm_object *new_string(const char *s) {
  irm_object *o = NULL;
  ck_assert_ok(irm_string_new(s, strlen(s), &o));
  return o;
}

static irm_object *new_array(const irm_any *items, size_t n) {
  irm_object *a = NULL;
  ck_assert_ok(irm_array_new(items, n, &a));
  return a;
}

static irm_object *new_map(const char *const *keys, const irm_any *values, size_t n) {
  irm_object *m = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, values, n, &m));
  return m;
}

/* Asserts irm_repr(v) is exactly expected. */
static void assert_repr(const irm_any *v, const char *expected) {
  irm_object *s = NULL;
  ck_assert_ok(irm_repr(v, &s));
  ck_assert_str_eq(irm_string_data(s), expected);
  ck_assert_uint_eq(irm_string_size(s), strlen(expected));
  irm_object_release(s);
}

/* ---- registered types --------------------------------------------------- */

/* test.Point {x, y}: compared through its to_fields Map. */
typedef struct point {
  int64_t x, y;
} point;

static int point_to_fields(const irm_object *self, irm_object **out) {
  const point *p = irm_object_payload_const(self);
  const char *keys[] = {"x", "y"};
  irm_any values[] = {irm_any_int(p->x), irm_any_int(p->y)};
  return irm_map_from_pairs(keys, values, 2, out);
}

static int point_from_fields(const irm_object *fields, irm_object **out);

static int32_t register_type(const char *key, irm_type_info info) {
  info.struct_size = sizeof info;
  info.type_key = key;
  int32_t index = -1;
  ck_assert_ok(irm_type_register(&info, &index));
  return index;
}

static int32_t point_type(void) {
  static int32_t index = -1;
  if (index < 0) {
    irm_type_info info = {0};
    info.to_fields = point_to_fields;
    info.from_fields = point_from_fields;
    index = register_type("test.Point", info);
  }
  return index;
}

static irm_object *new_point(int64_t x, int64_t y) {
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(point_type(), sizeof(point), &o));
  point *p = irm_object_payload(o);
  p->x = x;
  p->y = y;
  return o;
}

static int point_from_fields(const irm_object *fields, irm_object **out) {
  const irm_any *x = irm_map_find_cstr(fields, "x"), *y = irm_map_find_cstr(fields, "y");
  if (!x || !y) return irm_error(IRM_EVALUE, "test.Point needs x and y");
  *out = new_point(x->v_int, y->v_int);
  return IRM_OK;
}

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
  if (index < 0) {
    irm_type_info info = {0};
    info.equal = caseless_equal;
    info.hash = caseless_hash;
    index = register_type("test.Caseless", info);
  }
  return index;
}

static irm_object *new_caseless(const char *word) {
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(caseless_type(), sizeof(caseless), &o));
  snprintf(((caseless *)irm_object_payload(o))->word, sizeof(caseless), "%s", word);
  return o;
}

/* test.Mod10: an int compared modulo 10 by an equal hook, without a hash
 * hook. */
static int mod10_equal(const irm_object *a, const irm_object *b, int *out) {
  *out = *(const int64_t *)irm_object_payload_const(a) % 10 ==
         *(const int64_t *)irm_object_payload_const(b) % 10;
  return IRM_OK;
}

static irm_object *new_mod10(int64_t v) {
  static int32_t index = -1;
  if (index < 0) {
    irm_type_info info = {0};
    info.equal = mod10_equal;
    index = register_type("test.Mod10", info);
  }
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(index, sizeof(int64_t), &o));
  *(int64_t *)irm_object_payload(o) = v;
  return o;
}

/* test.Opaque: no hooks at all, so only identity. */
static irm_object *new_opaque(void) {
  static int32_t index = -1;
  if (index < 0) {
    irm_type_info info = {0};
    index = register_type("test.Opaque", info);
  }
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(index, 8, &o));
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
  if (index < 0) {
    irm_type_info info = {0};
    info.equal = failing_equal;
    info.hash = failing_hash;
    info.repr = failing_repr;
    index = register_type("test.Failing", info);
  }
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(index, 8, &o));
  return o;
}

/* test.Named: a repr hook. */
static int named_repr(const irm_object *self, irm_object **out) {
  (void)self;
  return irm_string_format(out, "Named<%d>", 7);
}

static irm_object *new_named(void) {
  static int32_t index = -1;
  if (index < 0) {
    irm_type_info info = {0};
    info.repr = named_repr;
    index = register_type("test.Named", info);
  }
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(index, 8, &o));
  return o;
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
  ck_assert_error(irm_structural_equal(NULL, &ok, &eq), IRM_EVALUE,
                  "ValueError: irm_structural_equal");
  ck_assert_error(irm_structural_equal(&ok, &ok, NULL), IRM_EVALUE,
                  "ValueError: irm_structural_equal");
  ck_assert_error(irm_structural_hash(NULL, &h), IRM_EVALUE, "ValueError: irm_structural_hash");
  irm_object *s = NULL;
  ck_assert_error(irm_repr(&bad, &s), IRM_EVALUE, "ValueError: irm_repr: invalid value");
  ck_assert_error(irm_repr(NULL, &s), IRM_EVALUE, "ValueError: irm_repr");
  irm_any null_str = irm_any_str(NULL);
  ck_assert_error(irm_structural_hash(&null_str, &h), IRM_EVALUE,
                  "ValueError: str value holds a NULL pointer");
}
END_TEST

/* ---- containers --------------------------------------------------------- */

START_TEST(test_arrays_compare_item_by_item_in_order) {
  irm_any a_items[] = {irm_any_int(1), irm_any_int(2)};
  irm_any b_items[] = {irm_any_int(2), irm_any_int(1)};
  irm_object *a = new_array(a_items, 2), *b = new_array(b_items, 2), *c = new_array(a_items, 2),
             *d = new_array(a_items, 1);
  irm_any va = irm_any_object(a), vb = irm_any_object(b), vc = irm_any_object(c),
          vd = irm_any_object(d);
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
  irm_object *m1 = new_map(k1, v1, 2), *m2 = new_map(k2, v1, 2), *m3 = new_map(k1, v2, 2),
             *m4 = new_map(k1, v1, 1);
  irm_any a = irm_any_object(m1), b = irm_any_object(m2), c = irm_any_object(m3),
          d = irm_any_object(m4);
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
  ck_assert_error(irm_repr(&varr, &s), IRM_EATTR,
                  "AttributeError: repr hook of type 'test.Failing': cannot print");
  ck_assert_ptr_null(s);
  irm_object_release(arr);
  irm_object_release(b);
  irm_object_release(a);
}
END_TEST

/* ---- laws on random values ---------------------------------------------- */

typedef struct rng {
  uint64_t state;
} rng;

static uint64_t rng_next(rng *r) {
  r->state ^= r->state << 13;
  r->state ^= r->state >> 7;
  r->state ^= r->state << 17;
  return r->state;
}

static size_t rng_below(rng *r, size_t n) { return (size_t)(rng_next(r) % n); }

/* Objects made so far, so that later values can share them. */
typedef struct pool {
  irm_any items[64];
  size_t n;
} pool;

static irm_any random_value(rng *r, int depth, pool *shared);

static irm_any random_leaf(rng *r) {
  static const double floats[] = {0.0, -0.0, 1.5, -3.25, 1e300, 5e-324, INFINITY, -INFINITY};
  switch (rng_below(r, 6)) {
    case 0: return irm_any_none();
    case 1: return irm_any_int((int64_t)rng_below(r, 7) - 3);
    case 2: return irm_any_bool(rng_below(r, 2));
    case 3: {
      if (rng_below(r, 5) == 0) {
        uint64_t bits = 0x7ff8000000000000ULL | rng_below(r, 1000); /* NaNs with payloads */
        double d;
        memcpy(&d, &bits, sizeof d);
        return irm_any_float(d);
      }
      return irm_any_float(floats[rng_below(r, 8)]);
    }
    default: {
      char buf[6];
      size_t n = rng_below(r, 6);
      for (size_t i = 0; i < n; i++)
        buf[i] = rng_below(r, 4) ? (char)('a' + rng_below(r, 3)) : '\0';
      irm_object *s = NULL;
      ck_require(irm_string_new(buf, n, &s) == 0, "string: %s", irm_last_error());
      return irm_any_object(s);
    }
  }
}

/* A NEW random value: scalars, Strings (with NUL bytes), Arrays, Maps,
 * Points, and now and then an object made earlier (sharing). */
static irm_any random_value(rng *r, int depth, pool *shared) {
  size_t pick = rng_below(r, depth > 0 ? 10 : 5);
  if (pick == 9 && shared->n) {
    irm_any v = shared->items[rng_below(r, shared->n)];
    irm_object_retain(v.v_obj);
    return v;
  }
  irm_any v;
  if (pick < 5) {
    v = random_leaf(r);
  } else if (pick == 5 || pick == 6) {
    irm_any items[5] = {{0}};
    size_t n = rng_below(r, 5);
    for (size_t i = 0; i < n; i++) items[i] = random_value(r, depth - 1, shared);
    v = irm_any_object(new_array(items, n));
    for (size_t i = 0; i < n; i++) irm_any_release(&items[i]);
  } else if (pick == 7 || pick == 9) {
    static const char *const keys[] = {"a", "b", "c", "d", "e", "f"};
    irm_object *m = NULL;
    ck_require(irm_map_new(&m) == 0, "map");
    for (size_t i = rng_below(r, 5); i > 0; i--) {
      irm_any value = random_value(r, depth - 1, shared);
      ck_require(irm_map_set_move(&m, keys[rng_below(r, 6)], &value) == 0, "map set");
      irm_any_release(&value);
    }
    v = irm_any_object(m);
  } else {
    v = irm_any_object(new_point((int64_t)rng_below(r, 3), (int64_t)rng_below(r, 3)));
  }
  if (v.type_code == IRM_OBJECT && shared->n < 64) {
    irm_object_retain(v.v_obj);
    shared->items[shared->n++] = v;
  }
  return v;
}

static void pool_release(pool *p) {
  for (size_t i = 0; i < p->n; i++) irm_any_release(&p->items[i]);
  p->n = 0;
}

/* A NEW value that differs from v in exactly one leaf (copy-on-write, so
 * v is unchanged). */
static irm_any mutate(rng *r, const irm_any *v) {
  const irm_object *o = v->type_code == IRM_OBJECT ? v->v_obj : NULL;
  irm_object *out = NULL;
  if (irm_array_size(o) > 0) {
    size_t i = rng_below(r, irm_array_size(o));
    irm_any child = mutate(r, irm_array_at(o, i));
    ck_require(irm_array_with_set(o, (int64_t)i, &child, &out) == 0, "with_set");
    irm_any_release(&child);
    return irm_any_object(out);
  }
  if (irm_map_size(o) > 0) {
    size_t i = rng_below(r, irm_map_size(o));
    irm_map_iter it = irm_map_iter_begin(o);
    const irm_object *key = NULL;
    const irm_any *value = NULL;
    for (size_t k = 0; k <= i; k++) irm_map_iter_next(&it, &key, &value);
    irm_any child = mutate(r, value);
    ck_require(irm_map_with_set(o, irm_string_data(key), &child, &out) == 0, "with_set");
    irm_any_release(&child);
    return irm_any_object(out);
  }
  if (irm_object_is(o, "test.Point")) {
    const point *p = irm_object_payload_const(o);
    return irm_any_object(new_point(p->x + 1, p->y));
  }
  /* a leaf (or an empty container): a String random values never hold */
  return irm_any_object(new_string("\x01mutated"));
}

START_TEST(test_equality_laws_hold_for_random_values) {
  enum { CASES = 400 };
  irm_any previous = irm_any_none();
  for (int c = 0; c < CASES; c++) {
    uint64_t seed = 0x243f6a8885a308d3ULL + (uint64_t)c * 0x9e3779b97f4a7c15ULL;
    rng r1 = {seed}, r2 = {seed}, rm = {seed ^ 0xabcdef};
    pool p1 = {.n = 0}, p2 = {.n = 0};
    irm_any v = random_value(&r1, 4, &p1);
    irm_any rebuilt = random_value(&r2, 4, &p2); /* the same shape, other objects */

    /* reflexive, and an independent rebuild is equal both ways */
    ck_require(equal(&v, &v), "case %d: not reflexive", c);
    ck_require(equal(&v, &rebuilt) && equal(&rebuilt, &v), "case %d: rebuild differs", c);
    ck_require(hash(&v) == hash(&rebuilt), "case %d: equal values, different hashes", c);

    /* a copy through JSON is equal and hashes the same */
    irm_object *text = NULL;
    ck_require(irm_to_json(&v, &text) == 0, "case %d: to_json: %s", c, irm_last_error());
    irm_any copy = irm_any_none();
    ck_require(irm_from_json(irm_string_data(text), irm_string_size(text), &copy) == 0,
               "case %d: from_json: %s", c, irm_last_error());
    ck_require(equal(&v, &copy) && equal(&copy, &v), "case %d: JSON copy differs: %s", c,
               irm_string_data(text));
    ck_require(hash(&v) == hash(&copy), "case %d: JSON copy hashes differently", c);
    irm_object_release(text);

    /* one changed leaf makes it unequal, both ways */
    irm_any changed = mutate(&rm, &v);
    ck_require(!equal(&v, &changed) && !equal(&changed, &v), "case %d: mutation not seen", c);

    /* symmetric on an unrelated pair */
    ck_require(equal(&v, &previous) == equal(&previous, &v), "case %d: not symmetric", c);
    if (equal(&v, &previous))
      ck_require(hash(&v) == hash(&previous), "case %d: equal values, different hashes", c);

    irm_any_release(&changed);
    irm_any_release(&copy);
    irm_any_release(&previous);
    previous = v;
    irm_any_release(&rebuilt);
    pool_release(&p2);
    pool_release(&p1);
  }
  irm_any_release(&previous);
}
END_TEST

START_TEST(test_maps_built_in_any_order_are_equal_with_equal_hashes) {
  static const char *const keys[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"};
  rng r = {12345};
  for (int c = 0; c < 200; c++) {
    size_t order[8];
    for (size_t i = 0; i < 8; i++) order[i] = i;
    for (size_t i = 7; i > 0; i--) {
      size_t j = rng_below(&r, i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    irm_object *a = NULL, *b = NULL;
    ck_require(irm_map_new(&a) == 0 && irm_map_new(&b) == 0, "map");
    for (size_t i = 0; i < 8; i++) {
      irm_any va = irm_any_int((int64_t)i * 10), vb = irm_any_int((int64_t)order[i] * 10);
      ck_require(irm_map_set_move(&a, keys[i], &va) == 0, "set");
      ck_require(irm_map_set_move(&b, keys[order[i]], &vb) == 0, "set");
    }
    irm_any x = irm_any_object(a), y = irm_any_object(b);
    ck_require(equal(&x, &y) && hash(&x) == hash(&y), "case %d: order mattered", c);
    irm_object_release(b);
    irm_object_release(a);
  }
}
END_TEST

/* ---- repr --------------------------------------------------------------- */

START_TEST(test_repr_of_scalars) {
  irm_any v = irm_any_none();
  assert_repr(&v, "none");
  v = irm_any_bool(true);
  assert_repr(&v, "true");
  v = irm_any_bool(false);
  assert_repr(&v, "false");
  v = irm_any_int(42);
  assert_repr(&v, "42");
  v = irm_any_int(INT64_MIN);
  assert_repr(&v, "-9223372036854775808");
  v = irm_any_float(3.5);
  assert_repr(&v, "3.5");
  v = irm_any_float(2.0);
  assert_repr(&v, "2.0");
  v = irm_any_float(-0.0);
  assert_repr(&v, "-0.0");
  v = irm_any_float(0.1);
  assert_repr(&v, "0.10000000000000001");
  v = irm_any_float(1e20);
  assert_repr(&v, "1e+20");
  v = irm_any_float(NAN);
  assert_repr(&v, "nan");
  v = irm_any_float(INFINITY);
  assert_repr(&v, "inf");
  v = irm_any_float(-INFINITY);
  assert_repr(&v, "-inf");
  v = irm_any_ptr((void *)(uintptr_t)0x1234);
  assert_repr(&v, "ptr(0x1234)");
  v = irm_any_ptr(NULL);
  assert_repr(&v, "ptr(0x0)");
}
END_TEST

START_TEST(test_repr_quotes_and_escapes_strings) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("a\"b\\c\nd\te\x01\x7f\0z", 13, &s));
  irm_any v = irm_any_object(s);
  assert_repr(&v, "\"a\\\"b\\\\c\\nd\\te\\x01\\x7f\\x00z\"");
  irm_object_release(s);
  v = irm_any_str("caf\xc3\xa9");
  assert_repr(&v, "\"caf\xc3\xa9\"");
  v = irm_any_str("");
  assert_repr(&v, "\"\"");
}
END_TEST

START_TEST(test_repr_of_containers) {
  irm_object *empty_a = new_array(NULL, 0), *empty_m = NULL;
  ck_assert_ok(irm_map_new(&empty_m));
  irm_any v = irm_any_object(empty_a);
  assert_repr(&v, "[]");
  v = irm_any_object(empty_m);
  assert_repr(&v, "{}");
  irm_object *s = new_string("x");
  irm_any items[] = {irm_any_int(1), irm_any_object(s), irm_any_none(), irm_any_object(empty_a)};
  irm_object *arr = new_array(items, 4);
  const char *keys[] = {"k", "quote\"d", "list"};
  irm_any vals[] = {irm_any_float(1), irm_any_bool(false), irm_any_object(arr)};
  irm_object *map = new_map(keys, vals, 3);
  v = irm_any_object(map);
  assert_repr(&v, "{\"k\": 1.0, \"quote\\\"d\": false, \"list\": [1, \"x\", none, []]}");
  irm_object_release(map);
  irm_object_release(arr);
  irm_object_release(s);
  irm_object_release(empty_m);
  irm_object_release(empty_a);
}
END_TEST

START_TEST(test_repr_prints_shared_objects_at_each_use) {
  irm_object *s = new_string("s");
  irm_any items[] = {irm_any_object(s), irm_any_object(s)};
  irm_object *arr = new_array(items, 2);
  irm_any v = irm_any_object(arr);
  assert_repr(&v, "[\"s\", \"s\"]");
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

START_TEST(test_repr_of_registered_types) {
  irm_object *p = new_point(1, -2);
  irm_any items[] = {irm_any_object(p)};
  irm_object *arr = new_array(items, 1);
  irm_any v = irm_any_object(arr);
  assert_repr(&v, "[test.Point(x=1, y=-2)]");
  irm_object_release(arr);
  irm_object_release(p);

  irm_object *n = new_named();
  v = irm_any_object(n);
  assert_repr(&v, "Named<7>");
  irm_object_release(n);

  irm_object *o = new_opaque();
  v = irm_any_object(o);
  char expected[64];
  snprintf(expected, sizeof expected, "<test.Opaque at 0x%" PRIxPTR ">", (uintptr_t)o);
  assert_repr(&v, expected);
  irm_object_release(o);

  irm_object *f = NULL;
  ck_assert_ok(irm_func_get_global("ffi.Repr", &f));
  v = irm_any_object(f);
  snprintf(expected, sizeof expected, "<ffi.Function at 0x%" PRIxPTR ">", (uintptr_t)f);
  assert_repr(&v, expected);
  irm_object_release(f);
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

static Suite *structural_suite(void) {
  Suite *s = suite_create("structural");
  TCase *tc = tcase_create("scalars");
  tcase_add_test(tc, test_int_float_and_bool_are_never_equal);
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

  tc = tcase_create("laws");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_equality_laws_hold_for_random_values);
  tcase_add_test(tc, test_maps_built_in_any_order_are_equal_with_equal_hashes);
  suite_add_tcase(s, tc);

  tc = tcase_create("repr");
  tcase_add_test(tc, test_repr_of_scalars);
  tcase_add_test(tc, test_repr_quotes_and_escapes_strings);
  tcase_add_test(tc, test_repr_of_containers);
  tcase_add_test(tc, test_repr_prints_shared_objects_at_each_use);
  tcase_add_test(tc, test_repr_of_registered_types);
  suite_add_tcase(s, tc);

  tc = tcase_create("globals");
  tcase_add_test(tc, test_global_structural_equal_returns_a_bool);
  tcase_add_test(tc, test_global_structural_hash_returns_the_hash_as_an_int);
  tcase_add_test(tc, test_global_repr_returns_a_string);
  tcase_add_test(tc, test_global_errors_name_the_function);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(structural_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failures = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
