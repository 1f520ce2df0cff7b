/* Helpers of the JSON suites (check_json.c, check_json_errors.c,
 * check_json_globals.c): the registered type test.Point, a type JSON cannot
 * hold, and writing, reading back and failing to read. Static inline only. */
#ifndef IRM_TESTS_CHECK_JSON_UTIL_H
#define IRM_TESTS_CHECK_JSON_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check_util.h"

/* ---- a registered type with fields: test.Point {x, y, label} ------------ */

typedef struct point {
  int64_t x, y;
  irm_object *label; /* a String or NULL */
} point;

static inline int32_t point_type(void);

static inline void point_finalize(irm_object *self) {
  point *p = irm_object_payload(self);
  irm_object_release(p->label);
}

static inline int point_to_fields(const irm_object *self, irm_object **out) {
  const point *p = irm_object_payload_const(self);
  const char *keys[] = {"x", "y", "label"};
  irm_any values[] = {irm_any_int(p->x), irm_any_int(p->y), irm_any_object(p->label)};
  return irm_map_from_pairs(keys, values, 3, out);
}

static inline int point_from_fields(const irm_object *fields, irm_object **out) {
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

static inline int32_t point_type(void) {
  static int32_t index = -1;
  irm_type_info info = {0};
  info.finalize = point_finalize;
  info.to_fields = point_to_fields;
  info.from_fields = point_from_fields;
  return type_once(&index, "test.Point", info);
}

static inline irm_object *new_point(int64_t x, int64_t y, const char *label) {
  irm_object *o = new_object(point_type(), sizeof(point));
  point *p = irm_object_payload(o);
  p->x = x;
  p->y = y;
  if (label) ck_assert_ok(irm_string_from_cstr(label, &p->label));
  return o;
}

/* A type without hooks: JSON cannot hold it. */
static inline int32_t opaque_type(void) {
  static int32_t index = -1;
  irm_type_info info = {0};
  return type_once(&index, "test.Opaque", info);
}

/* ---- writing and reading ------------------------------------------------ */

/* The JSON text of v as a String (asserting success). */
static inline irm_object *to_json(const irm_any *v) {
  irm_object *text = NULL;
  ck_assert_ok(irm_to_json(v, &text));
  ck_assert_ptr_nonnull(text);
  ck_assert_str_eq(irm_object_type_key(text), "ffi.String");
  return text;
}

/* v written and read back (asserting success). */
static inline irm_any round_trip(const irm_any *v) {
  irm_object *text = to_json(v);
  irm_any back = irm_any_int(-777);
  ck_assert_ok(irm_from_json(irm_string_data(text), irm_string_size(text), &back));
  irm_object_release(text);
  return back;
}

/* Reads text, which must fail with code and a message starting with
 * prefix; *out must be NONE afterwards. */
static inline void read_fails(const char *text, int code, const char *prefix) {
  irm_any out = irm_any_int(-777);
  ck_assert_error(irm_from_json(text, strlen(text), &out), code, prefix);
  ck_assert_int_eq(out.type_code, IRM_NONE);
}

/* A one-node document whose node is node_json. */
static inline void read_node_fails(const char *node_json, int code, const char *prefix) {
  char text[1024];
  snprintf(text, sizeof text, "{\"irm_json\": 1, \"root\": {\"ref\": 0}, \"nodes\": [%s]}", node_json);
  read_fails(text, code, prefix);
}

#endif /* IRM_TESTS_CHECK_JSON_UTIL_H */
