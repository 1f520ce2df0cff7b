/* Objects, the type registry and irm_any (object.h, c_api.h). */
#include <check.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* irm_last_error() must contain needle. */
#define ck_assert_error_mentions(needle)                                      \
  ck_assert_msg(strstr(irm_last_error(), (needle)) != NULL,                   \
                "expected the message to mention '%s', got '%s'", (needle),   \
                irm_last_error())

/* Like ck_assert_msg, but silent on success: Check records every passing
 * assertion with a write to the parent process, too slow in hot loops. */
#define ck_require(expr, ...)                                                 \
  do {                                                                        \
    if (!(expr)) ck_abort_msg(__VA_ARGS__);                                   \
  } while (0)

/* ---- helpers: test types ------------------------------------------------ */

/* Payload of the test node type: one owned child and a value. */
typedef struct node {
  irm_object *child;
  int64_t value;
} node;

static atomic_long finalized;

static void node_finalize(irm_object *self) {
  node *n = irm_object_payload(self);
  atomic_fetch_add(&finalized, 1);
  irm_object_release(n->child);
}

/* Registers key (or finds it when an earlier test in this process did). */
static int32_t ensure_type(const char *key, const char *parent,
                           void (*finalize)(irm_object *)) {
  int32_t index = -1;
  if (irm_type_find(key, &index) == 0) return index;
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = key;
  info.parent_key = parent;
  info.finalize = finalize;
  int rc = irm_type_register(&info, &index);
  ck_require(rc == 0, "registering %s: %s", key, irm_last_error());
  return index;
}

static int32_t node_type(void) {
  return ensure_type("test.Node", NULL, node_finalize);
}

/* A test.Animal <- test.Dog tree and an unrelated test.Plant. */
static int32_t animal_type(void) { return ensure_type("test.Animal", NULL, NULL); }
static int32_t dog_type(void) {
  animal_type();
  return ensure_type("test.Dog", "test.Animal", NULL);
}
static int32_t plant_type(void) {
  return ensure_type("test.Plant", "ffi.Object", NULL);
}

static irm_object *new_object(int32_t type, size_t payload_size) {
  irm_object *o = NULL;
  int rc = irm_object_new(type, payload_size, &o);
  ck_require(rc == 0 && o != NULL, "irm_object_new: %s", irm_last_error());
  return o;
}

static irm_object *new_node(irm_object *child, int64_t value) {
  irm_object *o = new_object(node_type(), sizeof(node));
  node *n = irm_object_payload(o);
  n->child = child;
  n->value = value;
  return o;
}

static irm_object *new_string(const char *s) {
  irm_object *o = NULL;
  ck_assert_int_eq(irm_string_new(s, strlen(s), &o), 0);
  return o;
}

/* ---- irm_any constructors ----------------------------------------------- */

START_TEST(test_any_is_sixteen_bytes) {
  ck_assert_uint_eq(sizeof(irm_any), 16);
  ck_assert_uint_eq(offsetof(irm_any, type_code), 0);
  ck_assert_uint_eq(offsetof(irm_any, v_int), 8);
}
END_TEST

START_TEST(test_any_constructors_set_code_and_value) {
  int token;
  irm_any v = irm_any_none();
  ck_assert_int_eq(v.type_code, IRM_NONE);
  v = irm_any_int(-42);
  ck_assert_int_eq(v.type_code, IRM_INT);
  ck_assert_int_eq(v.v_int, -42);
  v = irm_any_int(INT64_MAX);
  ck_assert_int_eq(v.v_int, INT64_MAX);
  v = irm_any_bool(true);
  ck_assert_int_eq(v.type_code, IRM_BOOL);
  ck_assert_int_eq(v.v_int, 1);
  v = irm_any_bool(false);
  ck_assert_int_eq(v.v_int, 0);
  v = irm_any_float(2.5);
  ck_assert_int_eq(v.type_code, IRM_FLOAT);
  ck_assert_double_eq(v.v_float, 2.5);
  v = irm_any_ptr(&token);
  ck_assert_int_eq(v.type_code, IRM_PTR);
  ck_assert_ptr_eq(v.v_ptr, &token);
  v = irm_any_str("abc");
  ck_assert_int_eq(v.type_code, IRM_STR);
  ck_assert_str_eq(v.v_str, "abc");
  ck_assert_int_eq(v.reserved_, 0);
}
END_TEST

START_TEST(test_any_object_does_not_retain) {
  irm_object *s = new_string("x");
  irm_any v = irm_any_object(s);
  ck_assert_int_eq(v.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(v.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_any_object_of_null_is_none) {
  irm_any v = irm_any_object(NULL);
  ck_assert_int_eq(v.type_code, IRM_NONE);
}
END_TEST

/* ---- irm_any_type_name -------------------------------------------------- */

START_TEST(test_any_type_name_of_each_scalar_code) {
  irm_any v = irm_any_none();
  ck_assert_str_eq(irm_any_type_name(&v), "none");
  v = irm_any_int(1);
  ck_assert_str_eq(irm_any_type_name(&v), "int");
  v = irm_any_bool(true);
  ck_assert_str_eq(irm_any_type_name(&v), "bool");
  v = irm_any_float(1.0);
  ck_assert_str_eq(irm_any_type_name(&v), "float");
  v = irm_any_ptr(NULL);
  ck_assert_str_eq(irm_any_type_name(&v), "ptr");
  v = irm_any_str("s");
  ck_assert_str_eq(irm_any_type_name(&v), "str");
}
END_TEST

START_TEST(test_any_type_name_of_object_is_its_type_key) {
  irm_object *s = new_string("x");
  irm_any v = irm_any_object(s);
  ck_assert_str_eq(irm_any_type_name(&v), "ffi.String");
  irm_object *d = new_object(dog_type(), 8);
  v = irm_any_object(d);
  ck_assert_str_eq(irm_any_type_name(&v), "test.Dog");
  irm_object_release(d);
  irm_object_release(s);
}
END_TEST

START_TEST(test_any_type_name_of_invalid_code) {
  irm_any v = irm_any_none();
  v.type_code = 42;
  ck_assert_str_eq(irm_any_type_name(&v), "invalid");
  v.type_code = -3;
  ck_assert_str_eq(irm_any_type_name(&v), "invalid");
}
END_TEST

/* ---- typed readers ------------------------------------------------------ */

START_TEST(test_any_to_int_reads_int_and_bool) {
  int64_t x = 0;
  irm_any v = irm_any_int(INT64_MIN);
  ck_assert_int_eq(irm_any_to_int(&v, &x), 0);
  ck_assert_int_eq(x, INT64_MIN);
  v = irm_any_bool(true);
  ck_assert_int_eq(irm_any_to_int(&v, &x), 0);
  ck_assert_int_eq(x, 1);
}
END_TEST

START_TEST(test_any_to_int_of_float_is_type_error) {
  int64_t x = 0;
  irm_any v = irm_any_float(1.0);
  ck_assert_error(irm_any_to_int(&v, &x), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected int, got float");
}
END_TEST

START_TEST(test_any_to_int_of_str_none_and_object_is_type_error) {
  int64_t x = 0;
  irm_any v = irm_any_str("1");
  ck_assert_error(irm_any_to_int(&v, &x), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("str");
  v = irm_any_none();
  ck_assert_error(irm_any_to_int(&v, &x), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("none");
  irm_object *s = new_string("1");
  v = irm_any_object(s);
  ck_assert_error(irm_any_to_int(&v, &x), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("ffi.String");
  irm_object_release(s);
}
END_TEST

START_TEST(test_any_to_bool_reads_bool_and_int_zero_or_one) {
  bool b = true;
  irm_any v = irm_any_bool(false);
  ck_assert_int_eq(irm_any_to_bool(&v, &b), 0);
  ck_assert(!b);
  v = irm_any_bool(true);
  ck_assert_int_eq(irm_any_to_bool(&v, &b), 0);
  ck_assert(b);
  v = irm_any_int(0);
  ck_assert_int_eq(irm_any_to_bool(&v, &b), 0);
  ck_assert(!b);
  v = irm_any_int(1);
  ck_assert_int_eq(irm_any_to_bool(&v, &b), 0);
  ck_assert(b);
}
END_TEST

START_TEST(test_any_to_bool_of_int_two_is_type_error) {
  bool b = false;
  irm_any v = irm_any_int(2);
  ck_assert_error(irm_any_to_bool(&v, &b), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("bool");
  v = irm_any_int(-1);
  ck_assert_error(irm_any_to_bool(&v, &b), IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_any_to_bool_of_float_and_str_is_type_error) {
  bool b = false;
  irm_any v = irm_any_float(1.0);
  ck_assert_error(irm_any_to_bool(&v, &b), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected bool, got float");
  v = irm_any_str("true");
  ck_assert_error(irm_any_to_bool(&v, &b), IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_any_to_float_reads_float_and_widens_int) {
  double d = 0;
  irm_any v = irm_any_float(-0.125);
  ck_assert_int_eq(irm_any_to_float(&v, &d), 0);
  ck_assert_double_eq(d, -0.125);
  v = irm_any_int(7);
  ck_assert_int_eq(irm_any_to_float(&v, &d), 0);
  ck_assert_double_eq(d, 7.0);
}
END_TEST

START_TEST(test_any_to_float_of_str_is_type_error) {
  double d = 0;
  irm_any v = irm_any_str("1.5");
  ck_assert_error(irm_any_to_float(&v, &d), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected float, got str");
}
END_TEST

START_TEST(test_any_to_ptr_reads_ptr_and_none_as_null) {
  int token;
  void *p = NULL;
  irm_any v = irm_any_ptr(&token);
  ck_assert_int_eq(irm_any_to_ptr(&v, &p), 0);
  ck_assert_ptr_eq(p, &token);
  v = irm_any_none();
  p = &token;
  ck_assert_int_eq(irm_any_to_ptr(&v, &p), 0);
  ck_assert_ptr_null(p);
}
END_TEST

START_TEST(test_any_to_ptr_of_int_is_type_error) {
  void *p = NULL;
  irm_any v = irm_any_int(0);
  ck_assert_error(irm_any_to_ptr(&v, &p), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected ptr, got int");
}
END_TEST

START_TEST(test_any_to_str_borrows_a_c_string) {
  const char *text = "hello";
  const char *s = NULL;
  size_t len = 0;
  irm_any v = irm_any_str(text);
  ck_assert_int_eq(irm_any_to_str(&v, &s, &len), 0);
  ck_assert_ptr_eq(s, text);
  ck_assert_uint_eq(len, 5);
}
END_TEST

START_TEST(test_any_to_str_accepts_null_len) {
  const char *s = NULL;
  irm_any v = irm_any_str("abc");
  ck_assert_int_eq(irm_any_to_str(&v, &s, NULL), 0);
  ck_assert_str_eq(s, "abc");
}
END_TEST

START_TEST(test_any_to_str_reads_a_string_object_with_embedded_nul) {
  irm_object *o = NULL;
  ck_assert_int_eq(irm_string_new("a\0bc", 4, &o), 0);
  const char *s = NULL;
  size_t len = 0;
  irm_any v = irm_any_object(o);
  ck_assert_int_eq(irm_any_to_str(&v, &s, &len), 0);
  ck_assert_uint_eq(len, 4);
  ck_assert_ptr_eq(s, irm_string_data(o));
  ck_assert_int_eq(memcmp(s, "a\0bc", 4), 0);
  ck_assert_uint_eq(irm_object_refcount(o), 1);
  irm_object_release(o);
}
END_TEST

START_TEST(test_any_to_str_of_int_and_non_string_object_is_type_error) {
  const char *s = NULL;
  irm_any v = irm_any_int(3);
  ck_assert_error(irm_any_to_str(&v, &s, NULL), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected str, got int");
  irm_object *arr = NULL;
  ck_assert_int_eq(irm_array_new(NULL, 0, &arr), 0);
  v = irm_any_object(arr);
  ck_assert_error(irm_any_to_str(&v, &s, NULL), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("ffi.Array");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_any_to_object_without_type_key_takes_any_object) {
  irm_object *s = new_string("x");
  irm_object *o = NULL;
  irm_any v = irm_any_object(s);
  ck_assert_int_eq(irm_any_to_object(&v, NULL, &o), 0);
  ck_assert_ptr_eq(o, s);
  ck_assert_uint_eq(irm_object_refcount(s), 1); /* borrowed */
  irm_object_release(s);
}
END_TEST

START_TEST(test_any_to_object_accepts_the_type_and_its_subtypes) {
  irm_object *d = new_object(dog_type(), 0);
  irm_object *o = NULL;
  irm_any v = irm_any_object(d);
  ck_assert_int_eq(irm_any_to_object(&v, "test.Dog", &o), 0);
  ck_assert_ptr_eq(o, d);
  o = NULL;
  ck_assert_int_eq(irm_any_to_object(&v, "test.Animal", &o), 0);
  ck_assert_ptr_eq(o, d);
  o = NULL;
  ck_assert_int_eq(irm_any_to_object(&v, "ffi.Object", &o), 0);
  ck_assert_ptr_eq(o, d);
  irm_object_release(d);
}
END_TEST

START_TEST(test_any_to_object_of_another_type_is_type_error) {
  plant_type();
  irm_object *d = new_object(dog_type(), 0);
  irm_object *o = NULL;
  irm_any v = irm_any_object(d);
  ck_assert_error(irm_any_to_object(&v, "test.Plant", &o), IRM_ETYPE,
                  "TypeError: ");
  ck_assert_error_mentions("test.Plant");
  ck_assert_error_mentions("test.Dog");
  irm_object *a = new_object(animal_type(), 0);
  v = irm_any_object(a);
  ck_assert_error(irm_any_to_object(&v, "test.Dog", &o), IRM_ETYPE,
                  "TypeError: "); /* a parent is not a subtype */
  irm_object_release(a);
  irm_object_release(d);
}
END_TEST

START_TEST(test_any_to_object_of_scalars_and_none_is_type_error) {
  irm_object *o = NULL;
  irm_any v = irm_any_none();
  ck_assert_error(irm_any_to_object(&v, NULL, &o), IRM_ETYPE, "TypeError: ");
  v = irm_any_int(1);
  ck_assert_error(irm_any_to_object(&v, "ffi.String", &o), IRM_ETYPE,
                  "TypeError: ");
  ck_assert_error_mentions("ffi.String");
  v = irm_any_str("x"); /* a borrowed C string is not an object */
  ck_assert_error(irm_any_to_object(&v, NULL, &o), IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_any_readers_reject_null_pointers_with_value_error) {
  irm_any v = irm_any_int(1);
  int64_t i;
  bool b;
  double d;
  void *p;
  const char *s;
  irm_object *o;
  ck_assert_error(irm_any_to_int(NULL, &i), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_int(&v, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_bool(NULL, &b), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_bool(&v, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_float(NULL, &d), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_float(&v, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_ptr(NULL, &p), IRM_EVALUE, "ValueError: ");
  v = irm_any_ptr(NULL);
  ck_assert_error(irm_any_to_ptr(&v, NULL), IRM_EVALUE, "ValueError: ");
  v = irm_any_str("x");
  ck_assert_error(irm_any_to_str(NULL, &s, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_str(&v, NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_object(NULL, NULL, &o), IRM_EVALUE, "ValueError: ");
  irm_object *str = new_string("x");
  v = irm_any_object(str);
  ck_assert_error(irm_any_to_object(&v, NULL, NULL), IRM_EVALUE, "ValueError: ");
  irm_object_release(str);
}
END_TEST

/* ---- irm_any_copy / irm_any_release ------------------------------------- */

START_TEST(test_any_copy_of_scalars_is_exact) {
  int token;
  irm_any src[] = {irm_any_none(), irm_any_int(-9), irm_any_bool(true),
                   irm_any_float(0.5), irm_any_ptr(&token)};
  for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
    irm_any dst = irm_any_int(12345);
    ck_assert_int_eq(irm_any_copy(&src[i], &dst), 0);
    ck_assert_int_eq(dst.type_code, src[i].type_code);
    if (src[i].type_code != IRM_NONE)
      ck_assert_int_eq(memcmp(&dst.v_int, &src[i].v_int, 8), 0);
    irm_any_release(&dst);
  }
}
END_TEST

START_TEST(test_any_copy_retains_an_object) {
  irm_object *s = new_string("shared");
  irm_any src = irm_any_object(s);
  irm_any dst = irm_any_none();
  ck_assert_int_eq(irm_any_copy(&src, &dst), 0);
  ck_assert_int_eq(dst.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(dst.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  irm_any_release(&dst);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_any_copy_of_str_makes_a_string_that_outlives_the_buffer) {
  char buf[16];
  strcpy(buf, "borrowed");
  irm_any src = irm_any_str(buf);
  irm_any dst = irm_any_none();
  ck_assert_int_eq(irm_any_copy(&src, &dst), 0);
  memset(buf, 'X', sizeof buf - 1);
  ck_assert_int_eq(dst.type_code, IRM_OBJECT);
  ck_assert(irm_object_is(dst.v_obj, "ffi.String"));
  ck_assert_uint_eq(irm_string_size(dst.v_obj), 8);
  ck_assert_str_eq(irm_string_data(dst.v_obj), "borrowed");
  ck_assert_uint_eq(irm_object_refcount(dst.v_obj), 1);
  irm_any_release(&dst);
}
END_TEST

START_TEST(test_any_copy_of_invalid_code_is_value_error_and_dst_none) {
  irm_any src = irm_any_int(1);
  src.type_code = 99;
  irm_any dst = irm_any_int(5);
  ck_assert_error(irm_any_copy(&src, &dst), IRM_EVALUE, "ValueError: ");
  ck_assert_int_eq(dst.type_code, IRM_NONE);
}
END_TEST

START_TEST(test_any_copy_of_null_is_value_error) {
  irm_any v = irm_any_int(1);
  irm_any dst = irm_any_int(5);
  ck_assert_error(irm_any_copy(NULL, &dst), IRM_EVALUE, "ValueError: ");
  ck_assert_int_eq(dst.type_code, IRM_NONE);
  ck_assert_error(irm_any_copy(&v, NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_any_release_of_none_and_scalars_sets_none) {
  irm_any v = irm_any_none();
  irm_any_release(&v);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  v = irm_any_int(3);
  irm_any_release(&v);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  v = irm_any_str("x");
  irm_any_release(&v);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  v = irm_any_ptr(&v);
  irm_any_release(&v);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_any_release(NULL);
}
END_TEST

START_TEST(test_any_release_of_object_drops_one_reference) {
  irm_object *s = new_string("x");
  irm_object_retain(s);
  irm_any v = irm_any_object(s);
  irm_any_release(&v);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

/* ---- type registry ------------------------------------------------------ */

START_TEST(test_type_register_gives_a_dynamic_index) {
  int32_t a = animal_type();
  int32_t p = plant_type();
  ck_assert_int_ge(a, IRM_TYPE_FIRST_DYNAMIC);
  ck_assert_int_ge(p, IRM_TYPE_FIRST_DYNAMIC);
  ck_assert_int_ne(a, p);
}
END_TEST

START_TEST(test_type_find_returns_the_registered_index) {
  int32_t dog = dog_type();
  int32_t found = -1;
  ck_assert_int_eq(irm_type_find("test.Dog", &found), 0);
  ck_assert_int_eq(found, dog);
}
END_TEST

START_TEST(test_type_find_unknown_key_suggests_closest) {
  dog_type();
  int32_t found = -1;
  ck_assert_error(irm_type_find("test.Dgo", &found), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.Dgo");
  ck_assert_error_mentions("did you mean 'test.Dog'");
}
END_TEST

START_TEST(test_type_find_finds_the_builtin_types) {
  int32_t i = -1;
  ck_assert_int_eq(irm_type_find("ffi.Object", &i), 0);
  ck_assert_int_eq(i, IRM_TYPE_OBJECT);
  ck_assert_int_eq(irm_type_find("ffi.String", &i), 0);
  ck_assert_int_eq(i, IRM_TYPE_STRING);
  ck_assert_int_eq(irm_type_find("ffi.Array", &i), 0);
  ck_assert_int_eq(i, IRM_TYPE_ARRAY);
  ck_assert_int_eq(irm_type_find("ffi.Map", &i), 0);
  ck_assert_int_eq(i, IRM_TYPE_MAP);
  ck_assert_int_eq(irm_type_find("ffi.Function", &i), 0);
  ck_assert_int_eq(i, IRM_TYPE_FUNCTION);
}
END_TEST

START_TEST(test_type_register_duplicate_key_is_key_error) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "test.Twice";
  int32_t first = -1, second = -1;
  ck_assert_int_eq(irm_type_register(&info, &first), 0);
  ck_assert_error(irm_type_register(&info, &second), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.Twice");
  int32_t found = -1;
  ck_assert_int_eq(irm_type_find("test.Twice", &found), 0);
  ck_assert_int_eq(found, first);
}
END_TEST

START_TEST(test_type_register_builtin_key_is_key_error) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "ffi.String";
  int32_t idx = -1;
  ck_assert_error(irm_type_register(&info, &idx), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("ffi.String");
}
END_TEST

START_TEST(test_type_register_unknown_parent_is_key_error_with_closest) {
  animal_type();
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "test.Cat";
  info.parent_key = "test.Animl";
  int32_t idx = -1;
  ck_assert_error(irm_type_register(&info, &idx), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.Animl");
  ck_assert_error_mentions("did you mean 'test.Animal'");
  /* Nothing was registered. */
  ck_assert_int_ne(irm_type_find("test.Cat", &idx), 0);
}
END_TEST

START_TEST(test_type_register_null_or_empty_key_is_value_error) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  int32_t idx = -1;
  info.type_key = NULL;
  ck_assert_error(irm_type_register(&info, &idx), IRM_EVALUE, "ValueError: ");
  info.type_key = "";
  ck_assert_error(irm_type_register(&info, &idx), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_type_register_null_info_or_out_is_value_error) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "test.NoOut";
  int32_t idx = -1;
  ck_assert_error(irm_type_register(NULL, &idx), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_type_register(&info, NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_type_register_too_small_struct_size_is_value_error) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.type_key = "test.Small";
  int32_t idx = -1;
  info.struct_size = 0;
  ck_assert_error(irm_type_register(&info, &idx), IRM_EVALUE, "ValueError: ");
  info.struct_size = sizeof(uint32_t);
  ck_assert_error(irm_type_register(&info, &idx), IRM_EVALUE, "ValueError: ");
  ck_assert_int_ne(irm_type_find("test.Small", &idx), 0);
}
END_TEST

START_TEST(test_type_register_copies_info_and_strings) {
  char key[32], parent[32];
  strcpy(key, "test.Copied");
  strcpy(parent, "test.Animal");
  animal_type();
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = key;
  info.parent_key = parent;
  info.finalize = node_finalize;
  int32_t idx = -1;
  ck_assert_int_eq(irm_type_register(&info, &idx), 0);
  memset(key, 'x', sizeof key - 1);
  memset(parent, 'y', sizeof parent - 1);
  info.finalize = NULL;

  ck_assert_str_eq(irm_type_key(idx), "test.Copied");
  const irm_type_info *got = irm_type_info_of(idx);
  ck_assert_ptr_nonnull(got);
  ck_assert_ptr_ne(got, &info);
  ck_assert_str_eq(got->type_key, "test.Copied");
  ck_assert_str_eq(got->parent_key, "test.Animal");
  ck_assert(got->finalize == node_finalize);
  ck_assert(irm_type_is_subtype(idx, animal_type()));
}
END_TEST

static int dummy_repr(const irm_object *self, irm_object **out) {
  (void)self;
  return irm_string_from_cstr("dummy", out);
}

START_TEST(test_type_info_of_keeps_the_hooks) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "test.Hooked";
  info.repr = dummy_repr;
  int32_t idx = -1;
  ck_assert_int_eq(irm_type_register(&info, &idx), 0);
  const irm_type_info *got = irm_type_info_of(idx);
  ck_assert_ptr_nonnull(got);
  ck_assert(got->repr == dummy_repr);
  ck_assert(got->finalize == NULL);
  ck_assert(got->to_fields == NULL);
  ck_assert(got->from_fields == NULL);
  ck_assert(got->equal == NULL);
  ck_assert(got->hash == NULL);
}
END_TEST

START_TEST(test_type_info_of_unknown_index_is_null) {
  ck_assert_ptr_null(irm_type_info_of(-1));
  ck_assert_ptr_null(irm_type_info_of(1000000));
  const irm_type_info *s = irm_type_info_of(IRM_TYPE_STRING);
  ck_assert_ptr_nonnull(s);
  ck_assert_str_eq(s->type_key, "ffi.String");
}
END_TEST

START_TEST(test_type_key_of_builtin_indices) {
  ck_assert_str_eq(irm_type_key(IRM_TYPE_OBJECT), "ffi.Object");
  ck_assert_str_eq(irm_type_key(IRM_TYPE_STRING), "ffi.String");
  ck_assert_str_eq(irm_type_key(IRM_TYPE_ARRAY), "ffi.Array");
  ck_assert_str_eq(irm_type_key(IRM_TYPE_MAP), "ffi.Map");
  ck_assert_str_eq(irm_type_key(IRM_TYPE_FUNCTION), "ffi.Function");
}
END_TEST

START_TEST(test_type_key_of_unknown_index_is_null) {
  ck_assert_ptr_null(irm_type_key(-1));
  ck_assert_ptr_null(irm_type_key(1000000));
}
END_TEST

START_TEST(test_type_is_subtype_follows_parents) {
  int32_t animal = animal_type(), dog = dog_type(), plant = plant_type();
  ck_assert(irm_type_is_subtype(dog, dog));
  ck_assert(irm_type_is_subtype(dog, animal));
  ck_assert(irm_type_is_subtype(dog, IRM_TYPE_OBJECT));
  ck_assert(irm_type_is_subtype(plant, IRM_TYPE_OBJECT));
  ck_assert(!irm_type_is_subtype(animal, dog));
  ck_assert(!irm_type_is_subtype(dog, plant));
  ck_assert(!irm_type_is_subtype(plant, animal));
  ck_assert(irm_type_is_subtype(IRM_TYPE_STRING, IRM_TYPE_OBJECT));
  ck_assert(!irm_type_is_subtype(IRM_TYPE_STRING, IRM_TYPE_ARRAY));
  ck_assert(!irm_type_is_subtype(IRM_TYPE_OBJECT, IRM_TYPE_STRING));
}
END_TEST

START_TEST(test_type_is_subtype_of_unknown_indices_is_false) {
  int32_t dog = dog_type();
  ck_assert(!irm_type_is_subtype(-1, IRM_TYPE_OBJECT));
  ck_assert(!irm_type_is_subtype(1000000, IRM_TYPE_OBJECT));
  ck_assert(!irm_type_is_subtype(dog, -1));
  ck_assert(!irm_type_is_subtype(dog, 1000000));
}
END_TEST

START_TEST(test_object_is_checks_self_parent_and_root) {
  irm_object *d = new_object(dog_type(), 0);
  plant_type();
  ck_assert(irm_object_is(d, "test.Dog"));
  ck_assert(irm_object_is(d, "test.Animal"));
  ck_assert(irm_object_is(d, "ffi.Object"));
  ck_assert(!irm_object_is(d, "test.Plant"));
  ck_assert(!irm_object_is(d, "ffi.String"));
  irm_object *a = new_object(animal_type(), 0);
  ck_assert(irm_object_is(a, "test.Animal"));
  ck_assert(!irm_object_is(a, "test.Dog"));
  irm_object_release(a);
  irm_object_release(d);
}
END_TEST

START_TEST(test_object_is_of_null_object_or_unknown_key_is_false) {
  irm_object *d = new_object(dog_type(), 0);
  ck_assert(!irm_object_is(NULL, "ffi.Object"));
  ck_assert(!irm_object_is(d, "test.NoSuchType"));
  ck_assert(!irm_object_is(d, ""));
  irm_object_release(d);
}
END_TEST

START_TEST(test_object_is_for_builtin_containers) {
  irm_object *s = new_string("x");
  ck_assert(irm_object_is(s, "ffi.String"));
  ck_assert(irm_object_is(s, "ffi.Object"));
  ck_assert(!irm_object_is(s, "ffi.Array"));
  irm_object_release(s);
}
END_TEST

/* ---- objects ------------------------------------------------------------ */

typedef struct point {
  double x, y;
  int64_t tag;
  char name[40];
} point;

START_TEST(test_object_new_gives_a_zeroed_aligned_payload) {
  int32_t t = ensure_type("test.Point", NULL, NULL);
  irm_object *o = new_object(t, sizeof(point));
  unsigned char *bytes = irm_object_payload(o);
  ck_assert_ptr_nonnull(bytes);
  for (size_t i = 0; i < sizeof(point); i++) ck_assert_uint_eq(bytes[i], 0);
  ck_assert_uint_eq((uintptr_t)bytes % alignof(max_align_t), 0);

  point *p = irm_object_payload(o);
  p->x = 1.5;
  p->y = -2.0;
  p->tag = 77;
  strcpy(p->name, "origin");
  const point *q = irm_object_payload_const(o);
  ck_assert_ptr_eq(q, p);
  ck_assert_double_eq(q->x, 1.5);
  ck_assert_double_eq(q->y, -2.0);
  ck_assert_int_eq(q->tag, 77);
  ck_assert_str_eq(q->name, "origin");
  irm_object_release(o);
}
END_TEST

START_TEST(test_object_new_has_count_one_and_its_type) {
  int32_t dog = dog_type();
  irm_object *o = new_object(dog, 16);
  ck_assert_uint_eq(irm_object_refcount(o), 1);
  ck_assert_int_eq(irm_object_type_index(o), dog);
  ck_assert_str_eq(irm_object_type_key(o), "test.Dog");
  irm_object_release(o);
}
END_TEST

START_TEST(test_object_new_with_empty_payload) {
  irm_object *o = new_object(animal_type(), 0);
  ck_assert_str_eq(irm_object_type_key(o), "test.Animal");
  irm_object_release(o);
}
END_TEST

START_TEST(test_object_new_of_unknown_type_is_key_error) {
  irm_object *o = NULL;
  ck_assert_error(irm_object_new(1000000, 8, &o), IRM_EKEY, "KeyError: ");
  ck_assert_error(irm_object_new(-1, 8, &o), IRM_EKEY, "KeyError: ");
}
END_TEST

START_TEST(test_object_retain_and_release_count) {
  irm_object *o = new_node(NULL, 0);
  irm_object_retain(o);
  irm_object_retain(o);
  ck_assert_uint_eq(irm_object_refcount(o), 3);
  irm_object_release(o);
  ck_assert_uint_eq(irm_object_refcount(o), 2);
  irm_object_release(o);
  ck_assert_uint_eq(irm_object_refcount(o), 1);
  ck_assert_int_eq(atomic_load(&finalized), 0);
  irm_object_release(o);
  ck_assert_int_eq(atomic_load(&finalized), 1);
}
END_TEST

START_TEST(test_object_finalize_runs_exactly_once_on_last_release) {
  irm_object *o = new_node(NULL, 0);
  irm_object_retain(o);
  irm_object_release(o);
  ck_assert_int_eq(atomic_load(&finalized), 0);
  irm_object_release(o);
  ck_assert_int_eq(atomic_load(&finalized), 1);
}
END_TEST

START_TEST(test_object_finalize_can_release_children) {
  irm_object *leaf = new_node(NULL, 1);
  irm_object *mid = new_node(leaf, 2);
  irm_object *root = new_node(mid, 3);
  irm_object_retain(leaf); /* keep the leaf to watch it */
  irm_object_release(root);
  ck_assert_int_eq(atomic_load(&finalized), 2);
  ck_assert_uint_eq(irm_object_refcount(leaf), 1);
  ck_assert_int_eq(((node *)irm_object_payload(leaf))->value, 1);
  irm_object_release(leaf);
  ck_assert_int_eq(atomic_load(&finalized), 3);
}
END_TEST

START_TEST(test_object_finalize_can_release_builtin_children) {
  irm_any item = irm_any_object(new_node(NULL, 0));
  irm_object *arr = NULL;
  ck_assert_int_eq(irm_array_new(&item, 1, &arr), 0);
  irm_object_release(item.v_obj); /* the Array holds it now */
  irm_object *root = new_node(arr, 1);
  irm_object_release(root);
  ck_assert_int_eq(atomic_load(&finalized), 2);
}
END_TEST

START_TEST(test_object_null_is_ignored_or_reported) {
  irm_object_retain(NULL);
  irm_object_release(NULL);
  ck_assert_ptr_null(irm_object_type_key(NULL));
  ck_assert_int_eq(irm_object_type_index(NULL), -1);
}
END_TEST

START_TEST(test_builtin_objects_carry_builtin_type_indices) {
  irm_object *s = new_string("x"), *arr = NULL, *map = NULL, *f = NULL;
  ck_assert_int_eq(irm_array_new(NULL, 0, &arr), 0);
  ck_assert_int_eq(irm_map_new(&map), 0);
  ck_assert_int_eq(irm_func_get_global("ffi.Array", &f), 0);
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(irm_object_type_index(s), IRM_TYPE_STRING);
  ck_assert_int_eq(irm_object_type_index(arr), IRM_TYPE_ARRAY);
  ck_assert_int_eq(irm_object_type_index(map), IRM_TYPE_MAP);
  ck_assert_int_eq(irm_object_type_index(f), IRM_TYPE_FUNCTION);
  ck_assert_str_eq(irm_object_type_key(s), "ffi.String");
  ck_assert_str_eq(irm_object_type_key(arr), "ffi.Array");
  ck_assert_str_eq(irm_object_type_key(map), "ffi.Map");
  ck_assert_str_eq(irm_object_type_key(f), "ffi.Function");
  irm_object_release(f);
  irm_object_release(map);
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

/* ---- deep structures ---------------------------------------------------- */

enum { deep = 1000000 };

START_TEST(test_release_of_a_million_nested_arrays_does_not_recurse) {
  /* The innermost value is a node, so its finalizer shows that the whole
   * chain was freed. */
  irm_object *prev = new_node(NULL, 0);
  for (int i = 0; i < deep; i++) {
    irm_any item = irm_any_object(prev);
    irm_object *next = NULL;
    int rc = irm_array_new(&item, 1, &next);
    ck_require(rc == 0, "irm_array_new at depth %d: %s", i, irm_last_error());
    irm_object_release(prev);
    prev = next;
  }
  ck_assert_int_eq(atomic_load(&finalized), 0);
  irm_object_release(prev);
  ck_assert_int_eq(atomic_load(&finalized), 1);
}
END_TEST

START_TEST(test_release_of_a_million_nested_user_objects_does_not_recurse) {
  irm_object *prev = NULL;
  for (int i = 0; i < deep; i++) prev = new_node(prev, i);
  irm_object_release(prev);
  ck_assert_int_eq(atomic_load(&finalized), deep);
}
END_TEST

START_TEST(test_release_of_a_deep_mixed_chain_does_not_recurse) {
  /* node -> Array -> node -> Array ...: deferral must work across the
   * library's own types and user finalizers alike. */
  irm_object *prev = NULL;
  for (int i = 0; i < deep / 2; i++) {
    irm_object *n = new_node(prev, i);
    irm_any item = irm_any_object(n);
    irm_object *arr = NULL;
    int rc = irm_array_new(&item, 1, &arr);
    ck_require(rc == 0, "irm_array_new at depth %d: %s", i, irm_last_error());
    irm_object_release(n);
    prev = arr;
  }
  irm_object_release(prev);
  ck_assert_int_eq(atomic_load(&finalized), deep / 2);
}
END_TEST

/* ---- threads ------------------------------------------------------------ */

enum { n_threads = 4, per_thread = 1000000 };

typedef struct refcount_job {
  irm_object *obj;
  int mode; /* 0: retain+release pairs, 1: retain only, 2: release only */
} refcount_job;

static void *refcount_worker(void *arg) {
  refcount_job *job = arg;
  for (int i = 0; i < per_thread; i++) {
    if (job->mode != 2) irm_object_retain(job->obj);
    if (job->mode != 1) irm_object_release(job->obj);
  }
  return NULL;
}

static void run_refcount_workers(irm_object *obj, int mode) {
  pthread_t t[n_threads];
  refcount_job job = {obj, mode};
  for (int i = 0; i < n_threads; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, refcount_worker, &job), 0);
  for (int i = 0; i < n_threads; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
}

START_TEST(test_refcount_is_exact_under_four_threads) {
  irm_object *o = new_node(NULL, 0);
  run_refcount_workers(o, 0);
  ck_assert_uint_eq(irm_object_refcount(o), 1);
  run_refcount_workers(o, 1);
  ck_assert_uint_eq(irm_object_refcount(o), 1u + n_threads * per_thread);
  run_refcount_workers(o, 2);
  ck_assert_uint_eq(irm_object_refcount(o), 1);
  ck_assert_int_eq(atomic_load(&finalized), 0);
  irm_object_release(o);
  ck_assert_int_eq(atomic_load(&finalized), 1);
}
END_TEST

enum { reg_threads = 4, reg_per_thread = 100 };

typedef struct register_job {
  int thread;
  int failures;
  int32_t indices[reg_per_thread];
} register_job;

static void *register_many(void *arg) {
  register_job *job = arg;
  char key[48];
  for (int i = 0; i < reg_per_thread; i++) {
    snprintf(key, sizeof key, "test.T%d_%d", job->thread, i);
    irm_type_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.type_key = key;
    int32_t found = -1;
    if (irm_type_register(&info, &job->indices[i]) != 0) job->failures++;
    else if (irm_type_find(key, &found) != 0 || found != job->indices[i])
      job->failures++;
    /* Lookups of builtin types run while others register. */
    if (irm_type_find("ffi.Map", &found) != 0 || found != IRM_TYPE_MAP)
      job->failures++;
  }
  return NULL;
}

START_TEST(test_type_register_from_many_threads_gives_unique_indices) {
  pthread_t t[reg_threads];
  register_job jobs[reg_threads];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < reg_threads; i++) {
    jobs[i].thread = i;
    ck_assert_int_eq(pthread_create(&t[i], NULL, register_many, &jobs[i]), 0);
  }
  for (int i = 0; i < reg_threads; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);

  static char seen[1 << 16];
  char key[48];
  for (int i = 0; i < reg_threads; i++) {
    ck_assert_int_eq(jobs[i].failures, 0);
    for (int j = 0; j < reg_per_thread; j++) {
      int32_t idx = jobs[i].indices[j];
      ck_require(idx >= IRM_TYPE_FIRST_DYNAMIC && idx < (int32_t)sizeof seen,
                 "index %d out of the expected range", (int)idx);
      ck_require(!seen[idx], "index %d given twice", (int)idx);
      seen[idx] = 1;
      snprintf(key, sizeof key, "test.T%d_%d", i, j);
      ck_require(strcmp(irm_type_key(idx), key) == 0, "index %d is '%s', not '%s'",
                 (int)idx, irm_type_key(idx), key);
    }
  }
}
END_TEST

static atomic_int same_key_wins;
static atomic_int same_key_key_errors;

static void *register_same_key(void *arg) {
  (void)arg;
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "test.Contended";
  int32_t idx = -1;
  int rc = irm_type_register(&info, &idx);
  if (rc == 0) atomic_fetch_add(&same_key_wins, 1);
  else if (rc == IRM_EKEY && strncmp(irm_last_error(), "KeyError: ", 10) == 0)
    atomic_fetch_add(&same_key_key_errors, 1);
  return NULL;
}

START_TEST(test_type_register_same_key_from_many_threads_succeeds_once) {
  enum { n = 8 };
  pthread_t t[n];
  for (int i = 0; i < n; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, register_same_key, NULL), 0);
  for (int i = 0; i < n; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  ck_assert_int_eq(atomic_load(&same_key_wins), 1);
  ck_assert_int_eq(atomic_load(&same_key_key_errors), n - 1);
}
END_TEST

START_TEST(test_type_registry_holds_a_deep_chain_of_many_types) {
  /* Objects made before the registry grows keep their type. */
  irm_object *early = new_object(dog_type(), 0);
  enum { n = 1000 };
  char key[32], parent[32];
  int32_t first = -1, last = -1;
  for (int i = 0; i < n; i++) {
    snprintf(key, sizeof key, "test.Chain%d", i);
    snprintf(parent, sizeof parent, "test.Chain%d", i - 1);
    irm_type_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.type_key = key;
    info.parent_key = i ? parent : NULL;
    int rc = irm_type_register(&info, &last);
    ck_require(rc == 0, "registering %s: %s", key, irm_last_error());
    if (i == 0) first = last;
  }
  ck_assert(irm_type_is_subtype(last, first));
  ck_assert(!irm_type_is_subtype(first, last));
  irm_object *o = new_object(last, 0);
  ck_assert(irm_object_is(o, "test.Chain0"));
  ck_assert(irm_object_is(o, "test.Chain500"));
  ck_assert(irm_object_is(o, "ffi.Object"));
  ck_assert(!irm_object_is(o, "test.Animal"));
  ck_assert_str_eq(irm_object_type_key(o), "test.Chain999");
  ck_assert_str_eq(irm_object_type_key(early), "test.Dog");
  ck_assert(irm_object_is(early, "test.Animal"));
  irm_object_release(o);
  irm_object_release(early);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *object_suite(void) {
  Suite *s = suite_create("object");

  TCase *tc = tcase_create("any");
  tcase_add_test(tc, test_any_is_sixteen_bytes);
  tcase_add_test(tc, test_any_constructors_set_code_and_value);
  tcase_add_test(tc, test_any_object_does_not_retain);
  tcase_add_test(tc, test_any_object_of_null_is_none);
  tcase_add_test(tc, test_any_type_name_of_each_scalar_code);
  tcase_add_test(tc, test_any_type_name_of_object_is_its_type_key);
  tcase_add_test(tc, test_any_type_name_of_invalid_code);
  suite_add_tcase(s, tc);

  tc = tcase_create("readers");
  tcase_add_test(tc, test_any_to_int_reads_int_and_bool);
  tcase_add_test(tc, test_any_to_int_of_float_is_type_error);
  tcase_add_test(tc, test_any_to_int_of_str_none_and_object_is_type_error);
  tcase_add_test(tc, test_any_to_bool_reads_bool_and_int_zero_or_one);
  tcase_add_test(tc, test_any_to_bool_of_int_two_is_type_error);
  tcase_add_test(tc, test_any_to_bool_of_float_and_str_is_type_error);
  tcase_add_test(tc, test_any_to_float_reads_float_and_widens_int);
  tcase_add_test(tc, test_any_to_float_of_str_is_type_error);
  tcase_add_test(tc, test_any_to_ptr_reads_ptr_and_none_as_null);
  tcase_add_test(tc, test_any_to_ptr_of_int_is_type_error);
  tcase_add_test(tc, test_any_to_str_borrows_a_c_string);
  tcase_add_test(tc, test_any_to_str_accepts_null_len);
  tcase_add_test(tc, test_any_to_str_reads_a_string_object_with_embedded_nul);
  tcase_add_test(tc, test_any_to_str_of_int_and_non_string_object_is_type_error);
  tcase_add_test(tc, test_any_to_object_without_type_key_takes_any_object);
  tcase_add_test(tc, test_any_to_object_accepts_the_type_and_its_subtypes);
  tcase_add_test(tc, test_any_to_object_of_another_type_is_type_error);
  tcase_add_test(tc, test_any_to_object_of_scalars_and_none_is_type_error);
  tcase_add_test(tc, test_any_readers_reject_null_pointers_with_value_error);
  suite_add_tcase(s, tc);

  tc = tcase_create("copy");
  tcase_add_test(tc, test_any_copy_of_scalars_is_exact);
  tcase_add_test(tc, test_any_copy_retains_an_object);
  tcase_add_test(tc, test_any_copy_of_str_makes_a_string_that_outlives_the_buffer);
  tcase_add_test(tc, test_any_copy_of_invalid_code_is_value_error_and_dst_none);
  tcase_add_test(tc, test_any_copy_of_null_is_value_error);
  tcase_add_test(tc, test_any_release_of_none_and_scalars_sets_none);
  tcase_add_test(tc, test_any_release_of_object_drops_one_reference);
  suite_add_tcase(s, tc);

  tc = tcase_create("types");
  tcase_add_test(tc, test_type_register_gives_a_dynamic_index);
  tcase_add_test(tc, test_type_find_returns_the_registered_index);
  tcase_add_test(tc, test_type_find_unknown_key_suggests_closest);
  tcase_add_test(tc, test_type_find_finds_the_builtin_types);
  tcase_add_test(tc, test_type_register_duplicate_key_is_key_error);
  tcase_add_test(tc, test_type_register_builtin_key_is_key_error);
  tcase_add_test(tc, test_type_register_unknown_parent_is_key_error_with_closest);
  tcase_add_test(tc, test_type_register_null_or_empty_key_is_value_error);
  tcase_add_test(tc, test_type_register_null_info_or_out_is_value_error);
  tcase_add_test(tc, test_type_register_too_small_struct_size_is_value_error);
  tcase_add_test(tc, test_type_register_copies_info_and_strings);
  tcase_add_test(tc, test_type_info_of_keeps_the_hooks);
  tcase_add_test(tc, test_type_info_of_unknown_index_is_null);
  tcase_add_test(tc, test_type_key_of_builtin_indices);
  tcase_add_test(tc, test_type_key_of_unknown_index_is_null);
  tcase_add_test(tc, test_type_is_subtype_follows_parents);
  tcase_add_test(tc, test_type_is_subtype_of_unknown_indices_is_false);
  tcase_add_test(tc, test_object_is_checks_self_parent_and_root);
  tcase_add_test(tc, test_object_is_of_null_object_or_unknown_key_is_false);
  tcase_add_test(tc, test_object_is_for_builtin_containers);
  suite_add_tcase(s, tc);

  tc = tcase_create("objects");
  tcase_add_test(tc, test_object_new_gives_a_zeroed_aligned_payload);
  tcase_add_test(tc, test_object_new_has_count_one_and_its_type);
  tcase_add_test(tc, test_object_new_with_empty_payload);
  tcase_add_test(tc, test_object_new_of_unknown_type_is_key_error);
  tcase_add_test(tc, test_object_retain_and_release_count);
  tcase_add_test(tc, test_object_finalize_runs_exactly_once_on_last_release);
  tcase_add_test(tc, test_object_finalize_can_release_children);
  tcase_add_test(tc, test_object_finalize_can_release_builtin_children);
  tcase_add_test(tc, test_object_null_is_ignored_or_reported);
  tcase_add_test(tc, test_builtin_objects_carry_builtin_type_indices);
  suite_add_tcase(s, tc);

  tc = tcase_create("deep");
  tcase_add_test(tc, test_release_of_a_million_nested_arrays_does_not_recurse);
  tcase_add_test(tc, test_release_of_a_million_nested_user_objects_does_not_recurse);
  tcase_add_test(tc, test_release_of_a_deep_mixed_chain_does_not_recurse);
  suite_add_tcase(s, tc);

  tc = tcase_create("threads");
  tcase_add_test(tc, test_refcount_is_exact_under_four_threads);
  tcase_add_test(tc, test_type_register_from_many_threads_gives_unique_indices);
  tcase_add_test(tc, test_type_register_same_key_from_many_threads_succeeds_once);
  tcase_add_test(tc, test_type_registry_holds_a_deep_chain_of_many_types);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(object_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failures = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
