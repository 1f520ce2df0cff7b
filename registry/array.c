/* Array: an immutable sequence of owned irm_any values (copy-on-write). */
#include <string.h>

#include "builtin_types.h"
#include "error_internal.h"
#include "irm/error.h"
#include "object_internal.h"

void irm_array_finalize_(irm_object *self) {
  irm_array *a = (irm_array *)self;
  for (size_t i = 0; i < a->size; i++) irm_any_release(&a->items[i]);
  irm_free(a->items);
}

/* An empty Array with room for capacity items. */
static int array_make(size_t capacity, irm_array **out) {
  irm_object *o = NULL;
  int rc = irm_object_alloc_(IRM_TYPE_ARRAY, sizeof(irm_array), &o);
  if (rc) return rc;
  irm_array *a = (irm_array *)o;
  if (capacity) {
    a->items = irm_calloc(capacity, sizeof *a->items);
    if (!a->items) {
      irm_free(o);
      return irm_error_nomem_("creating an Array");
    }
  }
  a->capacity = capacity;
  *out = a;
  return IRM_OK;
}

/* A copy of src with room for extra more items. */
static int array_clone(const irm_array *src, size_t extra, irm_array **out) {
  int rc = array_make(src->size + extra, out);
  if (rc) return rc;
  for (size_t i = 0; i < src->size; i++) {
    (*out)->items[i] = src->items[i];
    if (src->items[i].type_code == IRM_OBJECT) irm_object_retain(src->items[i].v_obj);
  }
  (*out)->size = src->size;
  return IRM_OK;
}

static int not_array(const char *fn, const irm_object *arr) {
  return irm_error(IRM_ETYPE, "%s: expected ffi.Array, got %s", fn, arr ? irm_object_type_key(arr) : "NULL");
}

/* Checks index against size; IndexError names both. */
static int check_index(int64_t index, size_t size) {
  if (index < 0 || (uint64_t)index >= size)
    return irm_error(IRM_EINDEX, "index %lld is out of range for an Array of size %zu", (long long)index, size);
  return IRM_OK;
}

int irm_array_new(const irm_any *items, size_t n, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_array_new: out must not be NULL");
  *out = NULL;
  if (!items && n) return irm_error(IRM_EVALUE, "irm_array_new: items is NULL but n is %zu", n);
  irm_array *a = NULL;
  int rc = array_make(n, &a);
  if (rc) return rc;
  for (; a->size < n; a->size++) {
    rc = irm_any_copy(&items[a->size], &a->items[a->size]);
    if (rc) {
      size_t bad = a->size;
      irm_object_release(&a->base);
      return irm_error_context(rc, "item %zu of a new Array", bad);
    }
  }
  *out = &a->base;
  return IRM_OK;
}

size_t irm_array_size(const irm_object *arr) {
  return irm_is_type_(arr, IRM_TYPE_ARRAY) ? ((const irm_array *)arr)->size : 0;
}

const irm_any *irm_array_at(const irm_object *arr, size_t index) {
  if (!irm_is_type_(arr, IRM_TYPE_ARRAY)) return NULL;
  const irm_array *a = (const irm_array *)arr;
  return index < a->size ? &a->items[index] : NULL;
}

int irm_array_get(const irm_object *arr, int64_t index, irm_any *out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_array_get: out must not be NULL");
  *out = irm_any_none();
  if (!irm_is_type_(arr, IRM_TYPE_ARRAY)) return not_array("irm_array_get", arr);
  const irm_array *a = (const irm_array *)arr;
  int rc = check_index(index, a->size);
  if (rc) return rc;
  return irm_any_copy(&a->items[index], out);
}

int irm_array_with_append(const irm_object *arr, const irm_any *item, irm_object **out) {
  if (!out || !item) return irm_error(IRM_EVALUE, "irm_array_with_append: item and out must not be NULL");
  *out = NULL;
  if (!irm_is_type_(arr, IRM_TYPE_ARRAY)) return not_array("irm_array_with_append", arr);
  irm_any copy;
  int rc = irm_any_copy(item, &copy);
  if (rc) return rc;
  irm_array *a = NULL;
  rc = array_clone((const irm_array *)arr, 1, &a);
  if (rc) {
    irm_any_release(&copy);
    return rc;
  }
  a->items[a->size++] = copy;
  *out = &a->base;
  return IRM_OK;
}

int irm_array_with_set(const irm_object *arr, int64_t index, const irm_any *item, irm_object **out) {
  if (!out || !item) return irm_error(IRM_EVALUE, "irm_array_with_set: item and out must not be NULL");
  *out = NULL;
  if (!irm_is_type_(arr, IRM_TYPE_ARRAY)) return not_array("irm_array_with_set", arr);
  int rc = check_index(index, ((const irm_array *)arr)->size);
  if (rc) return rc;
  irm_any copy;
  if ((rc = irm_any_copy(item, &copy))) return rc;
  irm_array *a = NULL;
  if ((rc = array_clone((const irm_array *)arr, 0, &a))) {
    irm_any_release(&copy);
    return rc;
  }
  irm_any_release(&a->items[index]);
  a->items[index] = copy;
  *out = &a->base;
  return IRM_OK;
}

/* Makes *ref safe to change: itself when the caller holds the only
 * reference (growing room for extra items), else a private copy. */
static int array_own(irm_object **ref, size_t extra, irm_array **out) {
  irm_array *a = (irm_array *)*ref;
  if (irm_object_refcount(*ref) != 1) return array_clone(a, extra, out);
  if (a->size + extra > a->capacity) {
    size_t cap = a->capacity ? a->capacity * 2 : 4;
    if (cap < a->size + extra) cap = a->size + extra;
    irm_any *items = irm_realloc(a->items, cap * sizeof *items);
    if (!items) return irm_error_nomem_("growing an Array");
    a->items = items;
    a->capacity = cap;
  }
  *out = a;
  return IRM_OK;
}

/* After a successful change: if a copy was made, it replaces *ref. */
static void array_commit(irm_object **ref, irm_array *a) {
  if (&a->base != *ref) {
    irm_object_release(*ref);
    *ref = &a->base;
  }
}

int irm_array_append_move(irm_object **ref, const irm_any *item) {
  if (!ref || !item) return irm_error(IRM_EVALUE, "irm_array_append_move: ref and item must not be NULL");
  if (!irm_is_type_(*ref, IRM_TYPE_ARRAY)) return not_array("irm_array_append_move", *ref);
  irm_any copy;
  int rc = irm_any_copy(item, &copy);
  if (rc) return rc;
  irm_array *a = NULL;
  if ((rc = array_own(ref, 1, &a))) {
    irm_any_release(&copy);
    return rc;
  }
  a->items[a->size++] = copy;
  array_commit(ref, a);
  return IRM_OK;
}

int irm_array_set_move(irm_object **ref, int64_t index, const irm_any *item) {
  if (!ref || !item) return irm_error(IRM_EVALUE, "irm_array_set_move: ref and item must not be NULL");
  if (!irm_is_type_(*ref, IRM_TYPE_ARRAY)) return not_array("irm_array_set_move", *ref);
  int rc = check_index(index, ((irm_array *)*ref)->size);
  if (rc) return rc;
  irm_any copy;
  if ((rc = irm_any_copy(item, &copy))) return rc;
  irm_array *a = NULL;
  if ((rc = array_own(ref, 0, &a))) {
    irm_any_release(&copy);
    return rc;
  }
  irm_any old = a->items[index];
  a->items[index] = copy;
  array_commit(ref, a);
  irm_any_release(&old); /* last: it may be what kept *ref's old items alive */
  return IRM_OK;
}
