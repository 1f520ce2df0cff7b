/* Helpers of the structural suites (check_structural.c,
 * check_structural_laws.c, check_repr.c): structural hashing, and the
 * registered types test.Point (with fields) and test.Opaque (without
 * hooks). Static inline only. */
#ifndef IRM_TESTS_CHECK_STRUCTURAL_UTIL_H
#define IRM_TESTS_CHECK_STRUCTURAL_UTIL_H

#include <stdint.h>

#include "check_util.h"

/* The structural hash of v (asserting that irm could compute it). */
static inline uint64_t hash(const irm_any *v) {
  uint64_t h = 0;
  int rc = irm_structural_hash(v, &h);
  ck_require(rc == 0, "irm_structural_hash failed: %s", irm_last_error());
  return h;
}

/* ---- registered types --------------------------------------------------- */

/* test.Point {x, y}: compared through its to_fields Map. */
typedef struct point {
  int64_t x, y;
} point;

static inline int point_to_fields(const irm_object *self, irm_object **out) {
  const point *p = irm_object_payload_const(self);
  const char *keys[] = {"x", "y"};
  irm_any values[] = {irm_any_int(p->x), irm_any_int(p->y)};
  return irm_map_from_pairs(keys, values, 2, out);
}

static inline int point_from_fields(const irm_object *fields, irm_object **out);

static inline int32_t point_type(void) {
  static int32_t index = -1;
  irm_type_info info = {0};
  info.to_fields = point_to_fields;
  info.from_fields = point_from_fields;
  return type_once(&index, "test.Point", info);
}

static inline irm_object *new_point(int64_t x, int64_t y) {
  irm_object *o = new_object(point_type(), sizeof(point));
  point *p = irm_object_payload(o);
  p->x = x;
  p->y = y;
  return o;
}

static inline int point_from_fields(const irm_object *fields, irm_object **out) {
  const irm_any *x = irm_map_find_cstr(fields, "x"), *y = irm_map_find_cstr(fields, "y");
  if (!x || !y) return irm_error(IRM_EVALUE, "test.Point needs x and y");
  *out = new_point(x->v_int, y->v_int);
  return IRM_OK;
}

/* test.Opaque: no hooks at all, so only identity. */
static inline irm_object *new_opaque(void) {
  static int32_t index = -1;
  irm_type_info info = {0};
  return new_object(type_once(&index, "test.Opaque", info), 8);
}

#endif /* IRM_TESTS_CHECK_STRUCTURAL_UTIL_H */
