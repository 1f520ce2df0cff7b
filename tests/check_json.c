/* JSON serialization: irm_to_json, irm_from_json, ffi.ToJSON and
 * ffi.FromJSON (json.h). */
#include <check.h>
#include <math.h>
#include <pthread.h>
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

#define ck_assert_ok(expr)                                                    \
  do {                                                                        \
    int rc_ = (expr);                                                         \
    ck_assert_msg(rc_ == 0, "%s failed with %d: %s", #expr, rc_,              \
                  irm_last_error());                                          \
  } while (0)

/* Like ck_assert_msg, but silent on success (Check records every passing
 * assertion, too slow in hot loops). */
#define ck_require(expr, ...)                                                 \
  do {                                                                        \
    if (!(expr)) ck_abort_msg(__VA_ARGS__);                                   \
  } while (0)

/* ---- a registered type with fields: test.Point {x, y, label} ------------ */

typedef struct point {
  int64_t x, y;
  irm_object *label; /* a String or NULL */
} point;

static int32_t point_type(void);

static void point_finalize(irm_object *self) {
  point *p = irm_object_payload(self);
  irm_object_release(p->label);
}

static int point_to_fields(const irm_object *self, irm_object **out) {
  const point *p = irm_object_payload_const(self);
  const char *keys[] = {"x", "y", "label"};
  irm_any values[] = {irm_any_int(p->x), irm_any_int(p->y), irm_any_object(p->label)};
  return irm_map_from_pairs(keys, values, 3, out);
}

static int point_from_fields(const irm_object *fields, irm_object **out) {
  const irm_any *x = irm_map_find_cstr(fields, "x");
  const irm_any *y = irm_map_find_cstr(fields, "y");
  const irm_any *label = irm_map_find_cstr(fields, "label");
  if (!x || !y || x->type_code != IRM_INT || y->type_code != IRM_INT)
    return irm_error(IRM_EVALUE, "test.Point needs int fields 'x' and 'y'");
  irm_object *o = NULL;
  int rc = irm_object_new(point_type(), sizeof(point), &o);
  if (rc) return rc;
  point *p = irm_object_payload(o);
  p->x = x->v_int;
  p->y = y->v_int;
  if (label && label->type_code == IRM_OBJECT) {
    p->label = label->v_obj;
    irm_object_retain(p->label);
  }
  *out = o;
  return IRM_OK;
}

static int32_t point_type(void) {
  static int32_t index = -1;
  if (index < 0) {
    irm_type_info info = {0};
    info.struct_size = sizeof info;
    info.type_key = "test.Point";
    info.finalize = point_finalize;
    info.to_fields = point_to_fields;
    info.from_fields = point_from_fields;
    ck_assert_ok(irm_type_register(&info, &index));
  }
  return index;
}

static irm_object *new_point(int64_t x, int64_t y, const char *label) {
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(point_type(), sizeof(point), &o));
  point *p = irm_object_payload(o);
  p->x = x;
  p->y = y;
  if (label) ck_assert_ok(irm_string_from_cstr(label, &p->label));
  return o;
}

/* A type without hooks: JSON cannot hold it. */
static int32_t opaque_type(void) {
  static int32_t index = -1;
  if (index < 0) {
    irm_type_info info = {0};
    info.struct_size = sizeof info;
    info.type_key = "test.Opaque";
    ck_assert_ok(irm_type_register(&info, &index));
  }
  return index;
}

/* ---- helpers ------------------------------------------------------------ */

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

/* The JSON text of v as a String (asserting success). */
static irm_object *to_json(const irm_any *v) {
  irm_object *text = NULL;
  ck_assert_ok(irm_to_json(v, &text));
  ck_assert_ptr_nonnull(text);
  ck_assert_str_eq(irm_object_type_key(text), "ffi.String");
  return text;
}

/* v written and read back (asserting success). */
static irm_any round_trip(const irm_any *v) {
  irm_object *text = to_json(v);
  irm_any back = irm_any_int(-777);
  ck_assert_ok(irm_from_json(irm_string_data(text), irm_string_size(text), &back));
  irm_object_release(text);
  return back;
}

static int equal(const irm_any *a, const irm_any *b) {
  int eq = -1;
  ck_assert_ok(irm_structural_equal(a, b, &eq));
  return eq;
}

/* Reads text, which must fail with code and a message starting with
 * prefix; *out must be NONE afterwards. */
static void read_fails(const char *text, int code, const char *prefix) {
  irm_any out = irm_any_int(-777);
  ck_assert_error(irm_from_json(text, strlen(text), &out), code, prefix);
  ck_assert_int_eq(out.type_code, IRM_NONE);
}

/* A one-node document whose node is node_json. */
static void read_node_fails(const char *node_json, int code, const char *prefix) {
  char text[1024];
  snprintf(text, sizeof text, "{\"irm_json\": 1, \"root\": {\"ref\": 0}, \"nodes\": [%s]}",
           node_json);
  read_fails(text, code, prefix);
}

/* ---- scalars ------------------------------------------------------------ */

START_TEST(test_scalars_round_trip_with_their_types) {
  const irm_any values[] = {irm_any_none(),       irm_any_int(0),          irm_any_int(-7),
                            irm_any_int(INT64_MAX), irm_any_int(INT64_MIN), irm_any_bool(true),
                            irm_any_bool(false),  irm_any_float(1.0),      irm_any_float(0.1),
                            irm_any_float(-2.5e-300), irm_any_float(1.7976931348623157e308),
                            irm_any_float(5e-324)};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    irm_any back = round_trip(&values[i]);
    ck_assert_int_eq(back.type_code, values[i].type_code);
    if (values[i].type_code == IRM_FLOAT)
      ck_assert_msg(back.v_float == values[i].v_float, "float %d: %.17g came back as %.17g",
                    (int)i, values[i].v_float, back.v_float);
    else
      ck_assert_int_eq(back.v_int, values[i].v_int);
  }
}
END_TEST

START_TEST(test_int_float_and_bool_stay_distinct) {
  irm_any items[] = {irm_any_int(1), irm_any_float(1.0), irm_any_bool(true)};
  irm_object *arr = new_array(items, 3);
  irm_any v = irm_any_object(arr);
  irm_any back = round_trip(&v);
  ck_assert_int_eq(irm_array_at(back.v_obj, 0)->type_code, IRM_INT);
  ck_assert_int_eq(irm_array_at(back.v_obj, 1)->type_code, IRM_FLOAT);
  ck_assert_int_eq(irm_array_at(back.v_obj, 2)->type_code, IRM_BOOL);
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_negative_zero_keeps_its_sign) {
  irm_any v = irm_any_float(-0.0);
  irm_any back = round_trip(&v);
  ck_assert_int_eq(back.type_code, IRM_FLOAT);
  ck_assert(signbit(back.v_float));
}
END_TEST

START_TEST(test_nan_and_infinities_are_written_as_float_objects) {
  irm_any items[] = {irm_any_float(NAN), irm_any_float(INFINITY), irm_any_float(-INFINITY)};
  irm_object *arr = new_array(items, 3);
  irm_any v = irm_any_object(arr);
  irm_object *text = to_json(&v);
  ck_assert_ptr_nonnull(strstr(irm_string_data(text),
                               "[{\"float\":\"nan\"},{\"float\":\"inf\"},{\"float\":\"-inf\"}]"));
  irm_object_release(text);
  irm_any back = round_trip(&v);
  ck_assert(isnan(irm_array_at(back.v_obj, 0)->v_float));
  ck_assert(irm_array_at(back.v_obj, 1)->v_float == INFINITY);
  ck_assert(irm_array_at(back.v_obj, 2)->v_float == -INFINITY);
  irm_any_release(&back);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_text_has_version_root_and_nodes_children_first) {
  irm_object *s = new_string("a");
  irm_any items[] = {irm_any_object(s), irm_any_int(2)};
  irm_object *arr = new_array(items, 2);
  irm_any v = irm_any_object(arr);
  irm_object *text = to_json(&v);
  ck_assert_str_eq(irm_string_data(text),
                   "{\"irm_json\": 1, \"root\": {\"ref\":1}, \"nodes\": [\n"
                   "  {\"type\":\"ffi.String\",\"data\":\"a\"},\n"
                   "  {\"type\":\"ffi.Array\",\"items\":[{\"ref\":0},2]}\n"
                   "]}");
  irm_object_release(text);
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

START_TEST(test_scalar_root_has_no_nodes) {
  irm_any v = irm_any_int(42);
  irm_object *text = to_json(&v);
  ck_assert_str_eq(irm_string_data(text), "{\"irm_json\": 1, \"root\": 42, \"nodes\": []}");
  irm_object_release(text);
}
END_TEST

START_TEST(test_str_value_is_written_as_a_string) {
  irm_any v = irm_any_str("hello");
  irm_any back = round_trip(&v);
  ck_assert_int_eq(back.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(back.v_obj), "ffi.String");
  ck_assert_str_eq(irm_string_data(back.v_obj), "hello");
  irm_any_release(&back);
}
END_TEST

START_TEST(test_null_arguments_are_value_errors) {
  irm_object *text = NULL;
  irm_any v = irm_any_none();
  ck_assert_error(irm_to_json(NULL, &text), IRM_EVALUE, "ValueError: irm_to_json");
  ck_assert_error(irm_to_json(&v, NULL), IRM_EVALUE, "ValueError: irm_to_json");
  ck_assert_error(irm_from_json("{}", 2, NULL), IRM_EVALUE, "ValueError: irm_from_json");
  ck_assert_error(irm_from_json(NULL, 3, &v), IRM_EVALUE, "ValueError: irm_from_json");
}
END_TEST

/* ---- containers --------------------------------------------------------- */

START_TEST(test_nested_arrays_and_maps_round_trip) {
  irm_object *inner = NULL;
  const char *keys[] = {"b", "a", "c"};
  irm_object *s = new_string("text");
  irm_any vals[] = {irm_any_int(1), irm_any_object(s), irm_any_float(2.5)};
  ck_assert_ok(irm_map_from_pairs(keys, vals, 3, &inner));
  irm_any items[] = {irm_any_object(inner), irm_any_none(), irm_any_bool(false)};
  irm_object *arr = new_array(items, 3);
  irm_any outer_vals[] = {irm_any_object(arr), irm_any_int(-1)};
  const char *outer_keys[] = {"list", "n"};
  irm_object *outer = NULL;
  ck_assert_ok(irm_map_from_pairs(outer_keys, outer_vals, 2, &outer));

  irm_any v = irm_any_object(outer);
  irm_any back = round_trip(&v);
  ck_assert(equal(&v, &back));
  const irm_any *list = irm_map_find_cstr(back.v_obj, "list");
  ck_assert_ptr_nonnull(list);
  const irm_object *m = irm_array_at(list->v_obj, 0)->v_obj;
  /* insertion order survives */
  irm_map_iter it = irm_map_iter_begin(m);
  const irm_object *k;
  const irm_any *value;
  const char *expect[] = {"b", "a", "c"};
  for (int i = 0; i < 3; i++) {
    ck_assert(irm_map_iter_next(&it, &k, &value));
    ck_assert_str_eq(irm_string_data(k), expect[i]);
  }
  irm_any_release(&back);
  irm_object_release(outer);
  irm_object_release(arr);
  irm_object_release(inner);
  irm_object_release(s);
}
END_TEST

START_TEST(test_empty_containers_round_trip) {
  irm_object *arr = new_array(NULL, 0), *map = NULL;
  ck_assert_ok(irm_map_new(&map));
  irm_object *empty_string = new_string("");
  irm_any items[] = {irm_any_object(arr), irm_any_object(map), irm_any_object(empty_string)};
  irm_object *outer = new_array(items, 3);
  irm_any v = irm_any_object(outer);
  irm_any back = round_trip(&v);
  ck_assert(equal(&v, &back));
  ck_assert_uint_eq(irm_array_size(irm_array_at(back.v_obj, 0)->v_obj), 0);
  ck_assert_uint_eq(irm_map_size(irm_array_at(back.v_obj, 1)->v_obj), 0);
  ck_assert_uint_eq(irm_string_size(irm_array_at(back.v_obj, 2)->v_obj), 0);
  irm_any_release(&back);
  irm_object_release(outer);
  irm_object_release(empty_string);
  irm_object_release(map);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_strings_with_nul_bytes_round_trip) {
  static const char bytes[] = {'a', '\0', 'b', '\0'};
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new(bytes, sizeof bytes, &s));
  irm_any v = irm_any_object(s);
  irm_object *text = to_json(&v);
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "\"a\\u0000b\\u0000\""));
  irm_object_release(text);
  irm_any back = round_trip(&v);
  ck_assert_uint_eq(irm_string_size(back.v_obj), 4);
  ck_assert_int_eq(memcmp(irm_string_data(back.v_obj), bytes, 4), 0);
  irm_any_release(&back);
  irm_object_release(s);
}
END_TEST

START_TEST(test_map_keys_with_nul_bytes_round_trip) {
  irm_object *map = NULL;
  irm_any one = irm_any_int(1), two = irm_any_int(2);
  ck_assert_ok(irm_map_new(&map));
  ck_assert_ok(irm_map_set_move_n(&map, "k\0x", 3, &one));
  ck_assert_ok(irm_map_set_move_n(&map, "k\0y", 3, &two));
  irm_any v = irm_any_object(map);
  irm_any back = round_trip(&v);
  ck_assert_uint_eq(irm_map_size(back.v_obj), 2);
  ck_assert_int_eq(irm_map_find(back.v_obj, "k\0y", 3)->v_int, 2);
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(map);
}
END_TEST

START_TEST(test_unicode_strings_round_trip) {
  irm_object *s = new_string("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80");
  irm_any v = irm_any_object(s);
  irm_any back = round_trip(&v);
  ck_assert_str_eq(irm_string_data(back.v_obj), irm_string_data(s));
  irm_any_release(&back);
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_that_is_not_utf8_is_a_value_error_naming_offset) {
  irm_object *s = new_string("ok\xff");
  irm_any items[] = {irm_any_int(0), irm_any_object(s)};
  irm_object *arr = new_array(items, 2);
  irm_any v = irm_any_object(arr);
  irm_object *text = NULL;
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE, "ValueError: item 1 of an ffi.Array: ");
  ck_assert_error_mentions("not valid UTF-8 (byte 0xff at offset 2)");
  ck_assert_ptr_null(text);
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

START_TEST(test_utf8_is_checked_as_jansson_checks_it) {
  static const struct {
    const char *bytes;
    size_t len, offset;
  } bad[] = {
      {"a\xc0\x80", 3, 1},         /* overlong NUL */
      {"\xe0\x80\xaf", 3, 0},     /* overlong '/' */
      {"ab\xed\xa0\x80", 5, 2},   /* a surrogate */
      {"\xf4\x90\x80\x80", 4, 0}, /* above U+10FFFF */
      {"x\xe2\x82", 3, 1},         /* cut short */
      {"\x80", 1, 0},               /* a lone continuation byte */
      {"\xe2\x28\xa1", 3, 0},     /* a bad continuation byte */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    irm_object *s = NULL, *text = NULL;
    ck_assert_ok(irm_string_new(bad[i].bytes, bad[i].len, &s));
    irm_any v = irm_any_object(s);
    ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE, "ValueError: cannot serialize a String");
    char where[32];
    snprintf(where, sizeof where, "at offset %zu)", bad[i].offset);
    ck_assert_error_mentions(where);
    irm_object_release(s);
  }
  irm_object *ok = new_string("\xf4\x8f\xbf\xbf \xef\xbf\xbf \xc2\x80");
  irm_any v = irm_any_object(ok);
  irm_any back = round_trip(&v);
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(ok);
}
END_TEST

START_TEST(test_shared_object_stays_shared) {
  irm_object *s = new_string("shared");
  irm_object *inner = new_array(NULL, 0);
  irm_any items[] = {irm_any_object(s), irm_any_object(inner), irm_any_object(s),
                     irm_any_object(inner)};
  irm_object *arr = new_array(items, 4);
  irm_any v = irm_any_object(arr);
  irm_object *text = to_json(&v);
  /* one node per object: String, Array, outer Array */
  ck_assert_ptr_nonnull(strstr(irm_string_data(text),
                               "\"items\":[{\"ref\":0},{\"ref\":1},{\"ref\":0},{\"ref\":1}]"));
  irm_object_release(text);
  irm_any back = round_trip(&v);
  ck_assert_ptr_eq(irm_array_at(back.v_obj, 0)->v_obj, irm_array_at(back.v_obj, 2)->v_obj);
  ck_assert_ptr_eq(irm_array_at(back.v_obj, 1)->v_obj, irm_array_at(back.v_obj, 3)->v_obj);
  ck_assert_ptr_ne(irm_array_at(back.v_obj, 0)->v_obj, s);
  irm_any_release(&back);
  irm_object_release(arr);
  irm_object_release(inner);
  irm_object_release(s);
}
END_TEST

START_TEST(test_sharing_across_levels_stays_shared) {
  /* A diamond 40 levels deep: 2^40 paths, 41 nodes. */
  irm_object *level = new_string("leaf");
  for (int i = 0; i < 40; i++) {
    irm_any items[] = {irm_any_object(level), irm_any_object(level)};
    irm_object *next = new_array(items, 2);
    irm_object_release(level);
    level = next;
  }
  irm_any v = irm_any_object(level);
  irm_object *text = to_json(&v);
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "\"root\": {\"ref\":40}"));
  irm_object_release(text);
  irm_any back = round_trip(&v);
  ck_assert(equal(&v, &back));
  const irm_object *a = back.v_obj;
  for (int i = 0; i < 40; i++) {
    ck_assert_ptr_eq(irm_array_at(a, 0)->v_obj, irm_array_at(a, 1)->v_obj);
    a = irm_array_at(a, 0)->v_obj;
  }
  ck_assert_str_eq(irm_string_data(a), "leaf");
  irm_any_release(&back);
  irm_object_release(level);
}
END_TEST

/* ---- registered types --------------------------------------------------- */

START_TEST(test_registered_type_round_trips_through_its_fields) {
  irm_object *p = new_point(3, -4, "corner");
  irm_any v = irm_any_object(p);
  irm_object *text = to_json(&v);
  ck_assert_ptr_nonnull(
      strstr(irm_string_data(text), "{\"type\":\"test.Point\",\"fields\":{\"ref\":1}}"));
  irm_object_release(text);
  irm_any back = round_trip(&v);
  ck_assert_int_eq(back.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(back.v_obj), "test.Point");
  ck_assert_ptr_ne(back.v_obj, p);
  const point *q = irm_object_payload_const(back.v_obj);
  ck_assert_int_eq(q->x, 3);
  ck_assert_int_eq(q->y, -4);
  ck_assert_str_eq(irm_string_data(q->label), "corner");
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(p);
}
END_TEST

START_TEST(test_shared_registered_object_stays_shared) {
  irm_object *p = new_point(1, 2, NULL);
  irm_any items[] = {irm_any_object(p), irm_any_object(p)};
  irm_object *arr = new_array(items, 2);
  irm_any v = irm_any_object(arr);
  irm_any back = round_trip(&v);
  ck_assert_ptr_eq(irm_array_at(back.v_obj, 0)->v_obj, irm_array_at(back.v_obj, 1)->v_obj);
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(arr);
  irm_object_release(p);
}
END_TEST

START_TEST(test_type_without_to_fields_is_a_value_error_naming_the_type) {
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(opaque_type(), 8, &o));
  irm_any items[] = {irm_any_int(1), irm_any_object(o)};
  irm_object *arr = new_array(items, 2);
  irm_any v = irm_any_object(arr);
  irm_object *text = NULL;
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE, "ValueError: item 1 of an ffi.Array: ");
  ck_assert_error_mentions("type 'test.Opaque'");
  ck_assert_error_mentions("no to_fields hook");
  irm_object_release(arr);
  irm_object_release(o);

  irm_object *f = NULL;
  ck_assert_ok(irm_func_get_global("ffi.Array", &f));
  v = irm_any_object(f);
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("type 'ffi.Function'");
  irm_object_release(f);
}
END_TEST

START_TEST(test_ptr_value_is_a_value_error) {
  int x = 0;
  irm_any v = irm_any_ptr(&x);
  irm_object *text = NULL;
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE, "ValueError: cannot serialize a ptr value");

  const char *keys[] = {"where"};
  irm_any vals[] = {irm_any_ptr(&x)};
  irm_object *map = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, vals, 1, &map));
  v = irm_any_object(map);
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE,
                  "ValueError: value of key 'where' in an ffi.Map: cannot serialize a ptr value");
  irm_object_release(map);
}
END_TEST

/* A type whose fields hold a ptr, which JSON cannot. */
static int ptr_holder_to_fields(const irm_object *self, irm_object **out) {
  const char *keys[] = {"n", "where"};
  irm_any values[] = {irm_any_int(1), irm_any_ptr((void *)self)};
  return irm_map_from_pairs(keys, values, 2, out);
}

START_TEST(test_ptr_inside_fields_names_the_field_and_type) {
  irm_type_info info = {0};
  info.struct_size = sizeof info;
  info.type_key = "test.PtrHolder";
  info.to_fields = ptr_holder_to_fields;
  int32_t index = -1;
  ck_assert_ok(irm_type_register(&info, &index));
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(index, 0, &o));
  irm_any v = irm_any_object(o);
  irm_object *text = NULL;
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE,
                  "ValueError: field 'where' of a test.PtrHolder: cannot serialize a ptr value");
  irm_object_release(o);
}
END_TEST

START_TEST(test_from_fields_failure_names_the_node_and_type) {
  point_type();
  const char *text =
      "{\"irm_json\": 1, \"root\": {\"ref\": 1}, \"nodes\": [\n"
      "  {\"type\": \"ffi.Map\", \"keys\": [\"x\"], \"values\": [1]},\n"
      "  {\"type\": \"test.Point\", \"fields\": {\"ref\": 0}}]}";
  read_fails(text, IRM_EVALUE,
             "ValueError: node 1 (test.Point): from_fields of type 'test.Point': ");
  ck_assert_error_mentions("needs int fields");
}
END_TEST

START_TEST(test_type_without_from_fields_cannot_be_read) {
  opaque_type();
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 1}, \"nodes\": [\n"
             "  {\"type\": \"ffi.Map\", \"keys\": [], \"values\": []},\n"
             "  {\"type\": \"test.Opaque\", \"fields\": {\"ref\": 0}}]}",
             IRM_EVALUE, "ValueError: node 1 (test.Opaque): type 'test.Opaque' cannot be read");
  ck_assert_error_mentions("no from_fields hook");
}
END_TEST

START_TEST(test_fields_must_refer_to_a_map_node) {
  point_type();
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 1}, \"nodes\": [\n"
             "  {\"type\": \"ffi.Array\", \"items\": []},\n"
             "  {\"type\": \"test.Point\", \"fields\": {\"ref\": 0}}]}",
             IRM_EVALUE,
             "ValueError: node 1 (test.Point): field 'fields' must refer to an ffi.Map");
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 0}, \"nodes\": [\n"
             "  {\"type\": \"test.Point\", \"fields\": 3}]}",
             IRM_EVALUE,
             "ValueError: node 0 (test.Point): field 'fields' must refer to an ffi.Map");
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 0}, \"nodes\": [\n"
             "  {\"type\": \"test.Point\"}]}",
             IRM_EVALUE, "ValueError: node 0 (test.Point): missing field 'fields'");
}
END_TEST

/* ---- depth -------------------------------------------------------------- */

START_TEST(test_million_deep_chain_round_trips_and_compares_equal) {
  enum { DEPTH = 1000000 };
  irm_object *chain = new_array(NULL, 0);
  for (int i = 1; i < DEPTH; i++) {
    irm_any item = irm_any_object(chain);
    irm_object *next = NULL;
    ck_require(irm_array_new(&item, 1, &next) == 0, "level %d: %s", i, irm_last_error());
    irm_object_release(chain);
    chain = next;
  }
  irm_any v = irm_any_object(chain);
  irm_object *text = to_json(&v);
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "\"root\": {\"ref\":999999}"));
  irm_any back = irm_any_none();
  ck_assert_ok(irm_from_json(irm_string_data(text), irm_string_size(text), &back));
  irm_object_release(text);
  ck_assert_ptr_ne(back.v_obj, chain);
  ck_assert(equal(&v, &back));
  uint64_t h1 = 0, h2 = 0;
  ck_assert_ok(irm_structural_hash(&v, &h1));
  ck_assert_ok(irm_structural_hash(&back, &h2));
  ck_assert(h1 == h2);
  irm_any_release(&back);
  irm_object_release(chain);
}
END_TEST

/* ---- malformed input ---------------------------------------------------- */

START_TEST(test_every_truncation_of_a_document_is_a_value_error) {
  irm_object *p = new_point(1, 2, "x\n\"y\"");
  irm_any items[] = {irm_any_object(p), irm_any_float(NAN), irm_any_float(0.5), irm_any_none()};
  irm_object *arr = new_array(items, 4);
  irm_any v = irm_any_object(arr);
  irm_object *text = to_json(&v);
  size_t n = irm_string_size(text);
  for (size_t len = 0; len < n; len++) {
    /* a copy of exactly len bytes, so that reading past it is caught */
    char *cut = malloc(len ? len : 1);
    ck_require(cut != NULL, "out of memory");
    memcpy(cut, irm_string_data(text), len);
    irm_any out = irm_any_int(-777);
    int rc = irm_from_json(cut, len, &out);
    ck_require(rc == IRM_EVALUE && out.type_code == IRM_NONE,
               "truncated at %zu: rc %d, %s", len, rc, irm_last_error());
    ck_require(strstr(irm_last_error(), "ValueError: ") == irm_last_error(),
               "truncated at %zu: %s", len, irm_last_error());
    free(cut);
  }
  irm_object_release(text);
  irm_object_release(arr);
  irm_object_release(p);
}
END_TEST

START_TEST(test_random_byte_damage_never_crashes) {
  irm_object *s = new_string("payload");
  irm_object *p = new_point(5, 6, "q");
  irm_any items[] = {irm_any_object(s), irm_any_object(p), irm_any_object(s), irm_any_int(12),
                     irm_any_float(-1.25), irm_any_bool(true)};
  irm_object *arr = new_array(items, 6);
  irm_any v = irm_any_object(arr);
  irm_object *text = to_json(&v);
  size_t n = irm_string_size(text);
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  static const char junk[] = "{}[]\":,0123456789-+.eE \\untrfalsx\x00\xff";
  for (int round = 0; round < 3000; round++) {
    char *copy = malloc(n);
    ck_require(copy != NULL, "out of memory");
    memcpy(copy, irm_string_data(text), n);
    for (int k = 0; k < 1 + round % 3; k++) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      copy[state % n] = junk[(state >> 32) % (sizeof junk - 1)];
    }
    irm_any out = irm_any_none();
    int rc = irm_from_json(copy, n, &out);
    if (rc == 0) irm_any_release(&out);
    else
      ck_require(irm_error_code_of(irm_last_error()) == rc, "round %d: status %d but '%s'", round,
                 rc, irm_last_error());
    free(copy);
  }
  irm_object_release(text);
  irm_object_release(arr);
  irm_object_release(p);
  irm_object_release(s);
}
END_TEST

START_TEST(test_truncated_text_names_line_and_column) {
  read_fails("", IRM_EVALUE, "ValueError: malformed JSON at line 1, column 0: ");
  read_fails("{", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column 1: string or '}' expected near end "
             "of file");
  read_fails("{\"irm_json\": 1,\n \"root\": nul", IRM_EVALUE,
             "ValueError: malformed JSON at line 2, column ");
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Str", IRM_EVALUE,
             "ValueError: node 0: malformed JSON at line 1, column ");
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": []", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column 41: ',' or '}' expected near end of "
             "file");
}
END_TEST

START_TEST(test_text_after_the_document_is_a_value_error) {
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": []} x", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column 44: end of file expected near 'x'");
}
END_TEST

START_TEST(test_top_level_must_be_an_object) {
  read_fails("[1, 2]", IRM_EVALUE, "ValueError: expected a JSON object");
  ck_assert_error_mentions("got an array");
  read_fails("42", IRM_EVALUE, "ValueError: expected a JSON object");
  read_fails("nonsense", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column 8: invalid token near 'nonsense'");
}
END_TEST

START_TEST(test_ten_thousand_levels_of_nesting_hit_the_depth_limit) {
  enum { LEVELS = 10000 };
  char *text = malloc(2 * LEVELS + 64);
  ck_assert_ptr_nonnull(text);
  memset(text, '[', LEVELS);
  memset(text + LEVELS, ']', LEVELS);
  text[2 * LEVELS] = '\0';
  read_fails(text, IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column 2049: maximum parsing depth reached");
  /* the same inside the root field */
  const char *head = "{\"irm_json\": 1, \"root\": ";
  size_t h = strlen(head);
  memcpy(text, head, h);
  memset(text + h, '[', LEVELS);
  text[h + LEVELS] = '\0';
  read_fails(text, IRM_EVALUE, "ValueError: malformed JSON at line 1, column ");
  ck_assert_error_mentions("maximum parsing depth reached");
  free(text);
}
END_TEST

START_TEST(test_version_is_checked) {
  read_fails("{\"irm_json\": 2, \"root\": null, \"nodes\": []}", IRM_EVALUE,
             "ValueError: unsupported irm_json version 2 (this irm reads version 1)");
  read_fails("{\"irm_json\": \"1\", \"root\": null, \"nodes\": []}", IRM_EVALUE,
             "ValueError: top-level field 'irm_json' (the format version) must be an integer, "
             "got a string");
  read_fails("{\"root\": null, \"nodes\": []}", IRM_EVALUE,
             "ValueError: missing top-level field 'irm_json'");
}
END_TEST

START_TEST(test_missing_root_or_nodes_is_a_value_error) {
  read_fails("{\"irm_json\": 1, \"nodes\": []}", IRM_EVALUE,
             "ValueError: missing top-level field 'root'");
  read_fails("{\"irm_json\": 1, \"root\": 1}", IRM_EVALUE,
             "ValueError: missing top-level field 'nodes'");
  read_fails("{}", IRM_EVALUE, "ValueError: missing top-level field 'irm_json'");
}
END_TEST

START_TEST(test_top_level_fields_are_checked) {
  read_fails("{\"irm_json\": 1, \"roots\": null, \"nodes\": []}", IRM_EVALUE,
             "ValueError: unknown top-level field 'roots' (did you mean 'root'?)");
  read_fails("{\"irm_json\": 1, \"root\": null, \"root\": 1, \"nodes\": []}", IRM_EVALUE,
             "ValueError: top-level field 'root' appears twice");
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": {}}", IRM_EVALUE,
             "ValueError: top-level field 'nodes' must be an array, got an object");
  read_fails("{\"irm_json\": 1 \"root\": null}", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column 16: ',' or '}' expected near '\"'");
  read_fails("{\"irm_json\" 1}", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column 13: ':' expected near '1'");
}
END_TEST

START_TEST(test_fields_may_come_in_any_order) {
  const char *text = "{\"nodes\": [{\"type\": \"ffi.String\", \"data\": \"z\"}], "
                     "\"root\": {\"ref\": 0}, \"irm_json\": 1}";
  irm_any out = irm_any_none();
  ck_assert_ok(irm_from_json(text, strlen(text), &out));
  ck_assert_str_eq(irm_string_data(out.v_obj), "z");
  irm_any_release(&out);
}
END_TEST

START_TEST(test_node_shape_is_checked) {
  read_node_fails("3", IRM_EVALUE, "ValueError: node 0 must be a JSON object, got an integer");
  read_node_fails("{\"data\": \"x\"}", IRM_EVALUE, "ValueError: node 0: missing field 'type'");
  read_node_fails("{\"type\": 5}", IRM_EVALUE,
                  "ValueError: node 0: field 'type' must be a string, got an integer");
  read_node_fails("{\"type\": \"ffi.String\", \"dat\": \"x\"}", IRM_EVALUE,
                  "ValueError: node 0 (ffi.String): unknown field 'dat' (did you mean 'data'?)");
}
END_TEST

START_TEST(test_unknown_type_is_a_key_error_with_the_closest_type) {
  read_node_fails("{\"type\": \"ffi.Arrray\", \"items\": []}", IRM_EKEY,
                  "KeyError: node 0: type 'ffi.Arrray' is not registered (did you mean "
                  "'ffi.Array'?)");
  read_node_fails("{\"type\": \"zzzzzzzzzzzzzzzz\", \"fields\": {\"ref\": 0}}", IRM_EKEY,
                  "KeyError: node 0: type 'zzzzzzzzzzzzzzzz' is not registered");
}
END_TEST

START_TEST(test_wrong_json_types_of_node_fields_are_named) {
  static const struct {
    const char *node, *message;
  } cases[] = {
      {"{\"type\": \"ffi.String\", \"data\": 1}",
       "ValueError: node 0 (ffi.String): field 'data' must be a string, got an integer"},
      {"{\"type\": \"ffi.String\"}", "ValueError: node 0 (ffi.String): missing field 'data'"},
      {"{\"type\": \"ffi.Array\", \"items\": \"x\"}",
       "ValueError: node 0 (ffi.Array): field 'items' must be an array, got a string"},
      {"{\"type\": \"ffi.Array\"}", "ValueError: node 0 (ffi.Array): missing field 'items'"},
      {"{\"type\": \"ffi.Map\", \"keys\": {}, \"values\": []}",
       "ValueError: node 0 (ffi.Map): field 'keys' must be an array, got an object"},
      {"{\"type\": \"ffi.Map\", \"keys\": [], \"values\": null}",
       "ValueError: node 0 (ffi.Map): field 'values' must be an array, got null"},
      {"{\"type\": \"ffi.Map\", \"keys\": [\"a\"], \"values\": []}",
       "ValueError: node 0 (ffi.Map): fields 'keys' and 'values' must have the same length, "
       "got 1 and 0"},
      {"{\"type\": \"ffi.Map\", \"keys\": [\"a\", 7], \"values\": [1, 2]}",
       "ValueError: node 0 (ffi.Map): key 1 must be a string, got an integer"},
      {"{\"type\": \"ffi.Map\", \"keys\": [\"a\", \"a\"], \"values\": [1, 2]}",
       "ValueError: node 0 (ffi.Map): key 1 ('a') appears twice"},
      {"{\"type\": \"ffi.Array\", \"items\": [\"text\"]}",
       "ValueError: node 0 (ffi.Array): item 0: expected null, true, false, a number"},
      {"{\"type\": \"ffi.Array\", \"items\": [1, [2]]}",
       "ValueError: node 0 (ffi.Array): item 1: expected null"},
      {"{\"type\": \"ffi.Array\", \"items\": [{\"ref\": 0, \"x\": 1}]}",
       "ValueError: node 0 (ffi.Array): item 0: expected null"},
      {"{\"type\": \"ffi.Array\", \"items\": [{\"ref\": \"0\"}]}",
       "ValueError: node 0 (ffi.Array): item 0: field 'ref' must be an integer, got a string"},
      {"{\"type\": \"ffi.Array\", \"items\": [{\"float\": \"NaN\"}]}",
       "ValueError: node 0 (ffi.Array): item 0: {\"float\": \"NaN\"}: expected \"nan\""},
      {"{\"type\": \"ffi.Map\", \"keys\": [\"k\"], \"values\": [{\"float\": 1}]}",
       "ValueError: node 0 (ffi.Map): value 0: expected null"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    read_node_fails(cases[i].node, IRM_EVALUE, cases[i].message);
}
END_TEST

START_TEST(test_references_must_point_to_earlier_nodes) {
  read_node_fails("{\"type\": \"ffi.Array\", \"items\": [{\"ref\": 0}]}", IRM_EVALUE,
                  "ValueError: node 0 (ffi.Array): item 0: {\"ref\": 0} must refer to an earlier "
                  "node, and node 0 has none");
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 1}, \"nodes\": [\n"
             "  {\"type\": \"ffi.Array\", \"items\": []},\n"
             "  {\"type\": \"ffi.Array\", \"items\": [{\"ref\": 0}, {\"ref\": 2}]},\n"
             "  {\"type\": \"ffi.Array\", \"items\": []}]}",
             IRM_EVALUE, "ValueError: node 1 (ffi.Array): item 1: {\"ref\": 2} must refer to an "
             "earlier node (0 to 0)");
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": [\n"
             "  {\"type\": \"ffi.Array\", \"items\": []},\n"
             "  {\"type\": \"ffi.Array\", \"items\": [{\"ref\": -1}]}]}",
             IRM_EVALUE, "ValueError: node 1 (ffi.Array): item 0: {\"ref\": -1} must refer");
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 1}, \"nodes\": [\n"
             "  {\"type\": \"ffi.Array\", \"items\": []}]}",
             IRM_EVALUE, "ValueError: root: {\"ref\": 1} refers to no node (there are 1)");
  read_fails("{\"irm_json\": 1, \"root\": \"text\", \"nodes\": []}", IRM_EVALUE,
             "ValueError: root: expected null");
}
END_TEST

START_TEST(test_jansson_number_errors_are_reported) {
  read_fails("{\"irm_json\": 1, \"root\": 99999999999999999999999, \"nodes\": []}", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column ");
  ck_assert_error_mentions("too big");
}
END_TEST

START_TEST(test_nodes_that_are_never_used_are_still_checked_and_freed) {
  const char *text = "{\"irm_json\": 1, \"root\": 5, \"nodes\": [\n"
                     "  {\"type\": \"ffi.String\", \"data\": \"unused\"},\n"
                     "  {\"type\": \"ffi.Array\", \"items\": [{\"ref\": 0}]}]}";
  irm_any out = irm_any_none();
  ck_assert_ok(irm_from_json(text, strlen(text), &out));
  ck_assert_int_eq(out.type_code, IRM_INT);
  ck_assert_int_eq(out.v_int, 5);
}
END_TEST

/* ---- globals ------------------------------------------------------------ */

START_TEST(test_global_to_json_and_from_json_round_trip) {
  irm_object *p = new_point(7, 8, "g");
  irm_any items[] = {irm_any_object(p), irm_any_str("s"), irm_any_int(3)};
  irm_object *arr = new_array(items, 3);
  irm_any arg = irm_any_object(arr);
  irm_any text = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.ToJSON", &arg, 1, &text));
  ck_assert_int_eq(text.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(text.v_obj), "ffi.String");
  irm_any back = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.FromJSON", &text, 1, &back));
  irm_any pair[] = {arg, back}, eq = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.StructuralEqual", pair, 2, &eq));
  ck_assert_int_eq(eq.type_code, IRM_BOOL);
  ck_assert_int_eq(eq.v_int, 1);
  /* a borrowed str argument works too */
  irm_any str_arg = irm_any_str(irm_string_data(text.v_obj)), again = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.FromJSON", &str_arg, 1, &again));
  ck_assert(equal(&again, &back));
  irm_any_release(&again);
  irm_any_release(&back);
  irm_any_release(&text);
  irm_object_release(arr);
  irm_object_release(p);
}
END_TEST

START_TEST(test_global_to_json_accepts_scalars) {
  irm_any arg = irm_any_float(0.25), text = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.ToJSON", &arg, 1, &text));
  ck_assert_str_eq(irm_string_data(text.v_obj), "{\"irm_json\": 1, \"root\": 0.25, \"nodes\": []}");
  irm_any_release(&text);
}
END_TEST

START_TEST(test_global_errors_name_the_function) {
  int x;
  irm_any arg = irm_any_ptr(&x), ret = irm_any_none();
  ck_assert_error(irm_func_call_global("ffi.ToJSON", &arg, 1, &ret), IRM_EVALUE,
                  "ValueError: ffi.ToJSON: cannot serialize a ptr value");
  ck_assert_int_eq(ret.type_code, IRM_NONE);

  arg = irm_any_str("{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Mapp\"}]}");
  ck_assert_error(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), IRM_EKEY,
                  "KeyError: ffi.FromJSON: node 0: type 'ffi.Mapp' is not registered (did you "
                  "mean 'ffi.Map'?)");

  arg = irm_any_str("{\"irm_json\": 3, \"root\": null, \"nodes\": []}");
  ck_assert_error(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), IRM_EVALUE,
                  "ValueError: ffi.FromJSON: unsupported irm_json version 3");

  arg = irm_any_int(5);
  ck_assert_error(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), IRM_ETYPE,
                  "TypeError: ffi.FromJSON: argument 0: expected str, got int");

  ck_assert_error(irm_func_call_global("ffi.ToJSON", NULL, 0, &ret), IRM_ETYPE,
                  "TypeError: ffi.ToJSON takes 1 argument, got 0");
  irm_any two[] = {irm_any_str("a"), irm_any_str("b")};
  ck_assert_error(irm_func_call_global("ffi.FromJSON", two, 2, &ret), IRM_ETYPE,
                  "TypeError: ffi.FromJSON takes 1 argument, got 2");
}
END_TEST

START_TEST(test_global_from_json_reports_depth_errors) {
  enum { LEVELS = 10000 };
  char *deep = malloc(LEVELS + 1);
  ck_assert_ptr_nonnull(deep);
  memset(deep, '[', LEVELS);
  deep[LEVELS] = '\0';
  irm_any arg = irm_any_str(deep), ret = irm_any_none();
  ck_assert_error(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), IRM_EVALUE,
                  "ValueError: ffi.FromJSON: malformed JSON at line 1, column 2049: maximum "
                  "parsing depth reached");
  free(deep);
}
END_TEST

START_TEST(test_global_from_json_reads_text_holding_nul_bytes) {
  static const char text[] = "{\"irm_json\": 1, \"root\": 1, \"nodes\": []}\0junk";
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new(text, sizeof text - 1, &s));
  irm_any arg = irm_any_object(s), ret = irm_any_none();
  ck_assert_error(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), IRM_EVALUE,
                  "ValueError: ffi.FromJSON: malformed JSON at line 1, column 40: end of file "
                  "expected near byte 0x00");
  irm_object_release(s);
}
END_TEST

/* Every reader error reaches a caller of ffi.FromJSON with the same kind
 * and text, after the function's name. */
START_TEST(test_global_from_json_reports_every_reader_error_by_name) {
  point_type();
  static const char *const docs[] = {
      "",
      "{",
      "[1]",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": []} x",
      "{\"irm_json\": 9, \"root\": null, \"nodes\": []}",
      "{\"irm_json\": [], \"root\": null, \"nodes\": []}",
      "{\"irm_json\": 1, \"nodes\": []}",
      "{\"irm_json\": 1, \"root\": null}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [], \"extra\": 1}",
      "{\"irm_json\": 1, \"root\": {\"ref\": 0}, \"nodes\": []}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [7]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Strin\"}]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Array\", \"items\": {}}]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Array\", \"items\": "
      "[{\"ref\": 3}]}]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Map\", \"keys\": [1], "
      "\"values\": [1]}]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Map\", \"keys\": [], "
      "\"values\": []}, {\"type\": \"test.Point\", \"fields\": {\"ref\": 0}}]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Function\", "
      "\"fields\": {\"ref\": 0}}]}",
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    irm_any out = irm_any_none();
    int rc = irm_from_json(docs[i], strlen(docs[i]), &out);
    ck_assert_msg(rc != 0, "document %zu was accepted", i);
    char expected[1024];
    const char *msg = irm_last_error(), *colon = strstr(msg, ": ");
    ck_assert_ptr_nonnull(colon);
    snprintf(expected, sizeof expected, "%.*s: ffi.FromJSON: %s", (int)(colon - msg), msg,
             colon + 2);
    irm_any arg = irm_any_str(docs[i]), ret = irm_any_none();
    ck_assert_int_eq(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), rc);
    ck_assert_str_eq(irm_last_error(), expected);
    ck_assert_int_eq(ret.type_code, IRM_NONE);
  }
}
END_TEST

/* Many threads write, read, compare and hash one shared value at once;
 * the first use of jansson happens inside the race. */
static void *round_trips(void *arg) {
  const irm_any *v = arg;
  for (int i = 0; i < 200; i++) {
    irm_object *text = NULL;
    irm_any back = irm_any_none();
    int eq = 0;
    uint64_t h1 = 0, h2 = 1;
    if (irm_to_json(v, &text) ||
        irm_from_json(irm_string_data(text), irm_string_size(text), &back) ||
        irm_structural_equal(v, &back, &eq) || irm_structural_hash(v, &h1) ||
        irm_structural_hash(&back, &h2) || !eq || h1 != h2) {
      irm_object_release(text);
      irm_any_release(&back);
      return (void *)1;
    }
    irm_object_release(text);
    irm_any_release(&back);
  }
  return NULL;
}

START_TEST(test_threads_share_values_safely) {
  irm_object *p = new_point(1, 2, "t");
  irm_object *s = new_string("shared");
  irm_any items[] = {irm_any_object(p), irm_any_object(s), irm_any_object(s), irm_any_float(NAN)};
  irm_object *arr = new_array(items, 4);
  irm_any v = irm_any_object(arr);
  pthread_t threads[4];
  for (int i = 0; i < 4; i++)
    ck_assert_int_eq(pthread_create(&threads[i], NULL, round_trips, &v), 0);
  for (int i = 0; i < 4; i++) {
    void *result = NULL;
    ck_assert_int_eq(pthread_join(threads[i], &result), 0);
    ck_assert_msg(result == NULL, "thread %d saw a failure or a difference", i);
  }
  irm_object_release(arr);
  irm_object_release(s);
  irm_object_release(p);
}
END_TEST

static Suite *json_suite(void) {
  Suite *s = suite_create("json");
  TCase *tc = tcase_create("scalars");
  tcase_add_test(tc, test_scalars_round_trip_with_their_types);
  tcase_add_test(tc, test_int_float_and_bool_stay_distinct);
  tcase_add_test(tc, test_negative_zero_keeps_its_sign);
  tcase_add_test(tc, test_nan_and_infinities_are_written_as_float_objects);
  tcase_add_test(tc, test_text_has_version_root_and_nodes_children_first);
  tcase_add_test(tc, test_scalar_root_has_no_nodes);
  tcase_add_test(tc, test_str_value_is_written_as_a_string);
  tcase_add_test(tc, test_null_arguments_are_value_errors);
  suite_add_tcase(s, tc);

  tc = tcase_create("containers");
  tcase_add_test(tc, test_nested_arrays_and_maps_round_trip);
  tcase_add_test(tc, test_empty_containers_round_trip);
  tcase_add_test(tc, test_strings_with_nul_bytes_round_trip);
  tcase_add_test(tc, test_map_keys_with_nul_bytes_round_trip);
  tcase_add_test(tc, test_unicode_strings_round_trip);
  tcase_add_test(tc, test_string_that_is_not_utf8_is_a_value_error_naming_offset);
  tcase_add_test(tc, test_utf8_is_checked_as_jansson_checks_it);
  tcase_add_test(tc, test_shared_object_stays_shared);
  tcase_add_test(tc, test_sharing_across_levels_stays_shared);
  suite_add_tcase(s, tc);

  tc = tcase_create("registered_types");
  tcase_add_test(tc, test_registered_type_round_trips_through_its_fields);
  tcase_add_test(tc, test_shared_registered_object_stays_shared);
  tcase_add_test(tc, test_type_without_to_fields_is_a_value_error_naming_the_type);
  tcase_add_test(tc, test_ptr_value_is_a_value_error);
  tcase_add_test(tc, test_ptr_inside_fields_names_the_field_and_type);
  tcase_add_test(tc, test_from_fields_failure_names_the_node_and_type);
  tcase_add_test(tc, test_type_without_from_fields_cannot_be_read);
  tcase_add_test(tc, test_fields_must_refer_to_a_map_node);
  suite_add_tcase(s, tc);

  tc = tcase_create("depth");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, test_million_deep_chain_round_trips_and_compares_equal);
  suite_add_tcase(s, tc);

  tc = tcase_create("malformed");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_every_truncation_of_a_document_is_a_value_error);
  tcase_add_test(tc, test_random_byte_damage_never_crashes);
  tcase_add_test(tc, test_truncated_text_names_line_and_column);
  tcase_add_test(tc, test_text_after_the_document_is_a_value_error);
  tcase_add_test(tc, test_top_level_must_be_an_object);
  tcase_add_test(tc, test_ten_thousand_levels_of_nesting_hit_the_depth_limit);
  tcase_add_test(tc, test_version_is_checked);
  tcase_add_test(tc, test_missing_root_or_nodes_is_a_value_error);
  tcase_add_test(tc, test_top_level_fields_are_checked);
  tcase_add_test(tc, test_fields_may_come_in_any_order);
  tcase_add_test(tc, test_node_shape_is_checked);
  tcase_add_test(tc, test_unknown_type_is_a_key_error_with_the_closest_type);
  tcase_add_test(tc, test_wrong_json_types_of_node_fields_are_named);
  tcase_add_test(tc, test_references_must_point_to_earlier_nodes);
  tcase_add_test(tc, test_jansson_number_errors_are_reported);
  tcase_add_test(tc, test_nodes_that_are_never_used_are_still_checked_and_freed);
  suite_add_tcase(s, tc);

  tc = tcase_create("threads");
  tcase_add_test(tc, test_threads_share_values_safely);
  suite_add_tcase(s, tc);

  tc = tcase_create("globals");
  tcase_add_test(tc, test_global_to_json_and_from_json_round_trip);
  tcase_add_test(tc, test_global_to_json_accepts_scalars);
  tcase_add_test(tc, test_global_errors_name_the_function);
  tcase_add_test(tc, test_global_from_json_reports_depth_errors);
  tcase_add_test(tc, test_global_from_json_reads_text_holding_nul_bytes);
  tcase_add_test(tc, test_global_from_json_reports_every_reader_error_by_name);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(json_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failures = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
