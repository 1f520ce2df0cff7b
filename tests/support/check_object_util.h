/* The test types of the object suites (check_any.c, check_type.c,
 * check_object.c): test.Node, whose finalizer counts and releases its
 * child, and the tree test.Animal <- test.Dog beside test.Plant. Each is
 * registered on first use in a process. Static inline only. */
#ifndef IRM_TESTS_CHECK_OBJECT_UTIL_H
#define IRM_TESTS_CHECK_OBJECT_UTIL_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "check_util.h"

/* Payload of the test node type: one owned child and a value. */
typedef struct node {
  irm_object *child;
  int64_t value;
} node;

static atomic_long finalized;

static inline void node_finalize(irm_object *self) {
  node *n = irm_object_payload(self);
  atomic_fetch_add(&finalized, 1);
  irm_object_release(n->child);
}

/* Registers key (or finds it when an earlier test in this process did). */
static inline int32_t ensure_type(const char *key, const char *parent, void (*finalize)(irm_object *)) {
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

static inline int32_t node_type(void) { return ensure_type("test.Node", NULL, node_finalize); }

/* A test.Animal <- test.Dog tree and an unrelated test.Plant. */
static inline int32_t animal_type(void) { return ensure_type("test.Animal", NULL, NULL); }
static inline int32_t dog_type(void) {
  animal_type();
  return ensure_type("test.Dog", "test.Animal", NULL);
}
static inline int32_t plant_type(void) { return ensure_type("test.Plant", "ffi.Object", NULL); }

static inline irm_object *new_node(irm_object *child, int64_t value) {
  irm_object *o = new_object(node_type(), sizeof(node));
  node *n = irm_object_payload(o);
  n->child = child;
  n->value = value;
  return o;
}

#endif /* IRM_TESTS_CHECK_OBJECT_UTIL_H */
