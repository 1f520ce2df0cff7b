/* Private to libirm: a growable list of owned object references, for walks
 * that must keep temporaries (to_fields Maps) alive until they end. */
#ifndef IRM_REGISTRY_OBJECT_LIST_H
#define IRM_REGISTRY_OBJECT_LIST_H

#include <stddef.h>

#include "error_internal.h"
#include "irm/alloc.h"
#include "irm/object.h"

typedef struct irm_object_list {
  irm_object **items;
  size_t size, capacity;
} irm_object_list;

/* Takes o (a reference the caller owned). When there is no room it is
 * released and a MemoryError returned. */
static inline int irm_object_list_take_(irm_object_list *l, irm_object *o) {
  if (l->size == l->capacity) {
    size_t cap = l->capacity ? l->capacity * 2 : 8;
    irm_object **grown = irm_realloc(l->items, cap * sizeof *grown);
    if (!grown) {
      irm_object_release(o);
      return irm_error_nomem_("keeping values during a walk");
    }
    l->items = grown;
    l->capacity = cap;
  }
  l->items[l->size++] = o;
  return IRM_OK;
}

/* Releases every object and frees the list (which is left empty). */
static inline void irm_object_list_release_(irm_object_list *l) {
  for (size_t i = 0; i < l->size; i++) irm_object_release(l->items[i]);
  irm_free(l->items);
  l->items = NULL;
  l->size = l->capacity = 0;
}

#endif
