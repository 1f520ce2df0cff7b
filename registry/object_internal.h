/* Private to libirm: object header and the layouts of the built-in types. */
#ifndef IRM_REGISTRY_OBJECT_INTERNAL_H
#define IRM_REGISTRY_OBJECT_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>

#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/function.h"
#include "irm_internal.h" /* the object header */


typedef struct irm_string {
  irm_object base;
  size_t size;
  char data[]; /* size bytes, then NUL */
} irm_string;

typedef struct irm_array {
  irm_object base;
  size_t size;
  size_t capacity;
  irm_any *items;
} irm_array;

typedef struct irm_map_entry {
  irm_object *key; /* a String */
  irm_any value;
} irm_map_entry;
typedef struct irm_map_index irm_map_index;
typedef struct irm_map {
  irm_object base;
  /* Insertion order. entries[0..used) holds the live entries and holes
   * (key NULL) left by erasing, which compaction squeezes out (map.c). */
  irm_map_entry *entries;
  size_t size; /* live entries */
  size_t used, capacity;
  irm_map_index *index; /* uthash of positions, for large maps only */
} irm_map;

typedef struct irm_function {
  irm_object base;
  irm_packed_cfunc fn;
  void *resource;
  void (*finalizer)(void *);
  /* The first global name it was registered under; set once (CAS), read
   * only for error messages. */
  _Atomic(irm_object *) name;
} irm_function;

/* Objects are created with this: header filled, count 1, rest zeroed. */
int irm_object_alloc_(int32_t type_index, size_t total_size, irm_object **out);


#endif
