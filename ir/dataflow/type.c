/* Types of the dataflow IR (dataflow/type.h): dataflow.TensorType,
 * dataflow.TupleType and dataflow.FuncType under the abstract dataflow.Type.
 * Types are uniqued (hash-consed): one process-wide table holds every live
 * type, a constructor returns the existing object when an equal one lives,
 * and type equality is a pointer compare. Hashing and JSON go through the
 * generic to_fields walk; repr prints the text form. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "expr_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm_internal.h"

static _Atomic int32_t type_base = -1, tensor_type = -1, tuple_type = -1, func_type = -1;

/* Every type payload begins with its link in the uniquing table. */
typedef struct uniq_link {
  irm_object *next; /* the next type of the same bucket */
  uint64_t hash;
} uniq_link;

typedef struct tensor_type_payload {
  uniq_link link;
  DLDataType dtype;
  int32_t ndim;
  int64_t shape[]; /* ndim entries */
} tensor_type_payload;

/* Tuple types hold an Array of field types; function types an Array of
 * parameter types and the result type. */
typedef struct composite_type_payload {
  uniq_link link;
  irm_object *items; /* Array of types */
  irm_object *ret;   /* function types only */
} composite_type_payload;

static const tensor_type_payload *tensor_of(const irm_object *t) { return irm_payload_if_type_(t, &tensor_type); }
static const composite_type_payload *tuple_of(const irm_object *t) { return irm_payload_if_type_(t, &tuple_type); }
static const composite_type_payload *func_of(const irm_object *t) { return irm_payload_if_type_(t, &func_type); }

irm_dataflow_type_kind irm_dataflow_type_kind_of(const irm_object *t) {
  if (tensor_of(t)) return IRM_DATAFLOW_TYPE_TENSOR;
  if (tuple_of(t)) return IRM_DATAFLOW_TYPE_TUPLE;
  if (func_of(t)) return IRM_DATAFLOW_TYPE_FUNC;
  return IRM_DATAFLOW_TYPE_NONE;
}

/* ---- the uniquing table ------------------------------------------------------
 * Chained buckets under one mutex. The table holds no reference: a type
 * leaves it when its last reference goes (its finalizer unlinks it). A
 * lookup racing with that last release may find the dying type with a count
 * of 0: it must not resurrect it, so it retains only a live one (count > 0)
 * and otherwise makes a new object, which the dying one's finalizer leaves
 * in place (it unlinks only itself). */
static pthread_mutex_t uniq_lock = PTHREAD_MUTEX_INITIALIZER;
static irm_object **uniq_buckets;
static size_t uniq_cap, uniq_count; /* cap: 0 or a power of two */

static uniq_link *link_of(irm_object *t) { return irm_object_payload(t); }

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

/* Retains t unless its count already reached 0; 1 when retained. */
static int retain_if_live(irm_object *t) {
  uint32_t n = atomic_load_explicit(&t->refcount, memory_order_relaxed);
  while (n != 0)
    if (atomic_compare_exchange_weak_explicit(&t->refcount, &n, n + 1, memory_order_acquire, memory_order_relaxed))
      return 1;
  return 0;
}

/* Under the lock: grows the buckets when full (a failed growth only keeps
 * the chains longer). */
static void uniq_grow(void) {
  if (uniq_count < uniq_cap) return;
  size_t cap = uniq_cap ? 2 * uniq_cap : 256;
  irm_object **b = irm_calloc(cap, sizeof *b);
  if (!b) return;
  for (size_t i = 0; i < uniq_cap; i++)
    for (irm_object *t = uniq_buckets[i], *next; t; t = next) {
      next = link_of(t)->next;
      size_t at = (size_t)(link_of(t)->hash & (cap - 1));
      link_of(t)->next = b[at];
      b[at] = t;
    }
  irm_free(uniq_buckets);
  uniq_buckets = b;
  uniq_cap = cap;
}

/* The live type equal to the candidate described by (hash, same, key), NEW;
 * or NULL after which the caller makes one and calls uniq_insert, both
 * under the lock the caller holds. */
static irm_object *uniq_find(uint64_t hash, int (*same)(const irm_object *t, const void *key), const void *key) {
  if (!uniq_cap) return NULL;
  for (irm_object *t = uniq_buckets[hash & (uniq_cap - 1)]; t; t = link_of(t)->next)
    if (link_of(t)->hash == hash && same(t, key) && retain_if_live(t)) return t;
  return NULL;
}

/* Under the lock, before making a type: room for one more. False when not
 * even the first buckets could be had: the type must not be made, since
 * one outside the table would break equality by pointer. */
static bool uniq_reserve(void) {
  uniq_grow();
  return uniq_cap != 0;
}

/* Under the lock, after uniq_reserve. */
static void uniq_insert(irm_object *t, uint64_t hash) {
  uniq_link *l = link_of(t);
  l->hash = hash;
  size_t at = (size_t)(hash & (uniq_cap - 1));
  l->next = uniq_buckets[at];
  uniq_buckets[at] = t;
  uniq_count++;
}

/* Under the lock: no type lives, so the buckets go too (no memory is held
 * while no type lives; also after a type that could not be made). */
static void uniq_free_if_empty(void) {
  if (uniq_count) return;
  irm_free(uniq_buckets);
  uniq_buckets = NULL;
  uniq_cap = 0;
}

/* Every type's finalizer: unlinks t (if it is in the table). */
static void uniq_remove(irm_object *t) {
  pthread_mutex_lock(&uniq_lock);
  if (uniq_cap)
    for (irm_object **at = &uniq_buckets[link_of(t)->hash & (uniq_cap - 1)]; *at; at = &link_of(*at)->next)
      if (*at == t) {
        *at = link_of(t)->next;
        uniq_count--;
        uniq_free_if_empty();
        break;
      }
  pthread_mutex_unlock(&uniq_lock);
}

/* ---- tensor types --------------------------------------------------------- */

static int check_shape(const char *what, const int64_t *shape, int32_t ndim) {
  if (ndim < 0 || ndim > IRM_TENSOR_MAX_NDIM)
    return irm_error(IRM_EVALUE, "%s: ndim must be 0..%d, got %d", what, IRM_TENSOR_MAX_NDIM, (int)ndim);
  if (ndim > 0 && !shape) return irm_error(IRM_EVALUE, "%s: shape must not be NULL when ndim is %d", what, (int)ndim);
  int64_t numel = 1;
  for (int32_t i = 0; i < ndim; i++) {
    if (shape[i] < 0)
      return irm_error(IRM_EVALUE, "%s: dimension %d is negative (%lld)", what, (int)i, (long long)shape[i]);
    if (shape[i] == 0) continue; /* left out, as tensors do: the others must still not overflow */
    if (numel > INT64_MAX / shape[i]) {
      char text[200];
      size_t len = 0;
      for (int32_t j = 0; j < ndim && len + 24 < sizeof text; j++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%lld", j ? ", " : "", (long long)shape[j]);
      if (len + 24 >= sizeof text) snprintf(text + len, sizeof text - len, ", ...");
      return irm_error(IRM_EVALUE, "%s: shape (%s) has more elements than int64 holds (at most %lld)", what, text,
                       (long long)INT64_MAX);
    }
    numel *= shape[i];
  }
  return IRM_OK;
}

typedef struct tensor_key {
  DLDataType dtype;
  int32_t ndim;
  const int64_t *shape;
} tensor_key;

static int same_tensor(const irm_object *t, const void *key) {
  const tensor_type_payload *p = tensor_of(t);
  const tensor_key *k = key;
  return p && irm_dtype_equal(p->dtype, k->dtype) && p->ndim == k->ndim &&
         (k->ndim == 0 || memcmp(p->shape, k->shape, (size_t)k->ndim * sizeof(int64_t)) == 0);
}

int irm_tensor_type_new(DLDataType dtype, const int64_t *shape, int32_t ndim, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_tensor_type_new: out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  if (!irm_dtype_name(dtype))
    return irm_error(IRM_EVALUE,
                     "irm_tensor_type_new: unsupported dtype (code %u, %u bits, %u lanes); the IR supports "
                     "float32, float16, float64, int32, int64, int8, uint8 and bool",
                     dtype.code, dtype.bits, dtype.lanes);
  if ((rc = check_shape("irm_tensor_type_new", shape, ndim))) return rc;
  tensor_key key = {dtype, ndim, shape};
  uint64_t hash = mix(mix(1, (uint64_t)dtype.code << 24 | (uint64_t)dtype.bits << 16 | dtype.lanes), (uint64_t)ndim);
  for (int32_t i = 0; i < ndim; i++) hash = mix(hash, (uint64_t)shape[i]);
  pthread_mutex_lock(&uniq_lock);
  irm_object *t = uniq_find(hash, same_tensor, &key);
  if (!t && !uniq_reserve()) rc = irm_error_nomem_("for the type table");
  else if (!t) {
    rc = irm_object_new(atomic_load(&tensor_type), sizeof(tensor_type_payload) + (size_t)ndim * sizeof(int64_t), &t);
    if (!rc) {
      tensor_type_payload *p = irm_object_payload(t);
      p->dtype = dtype;
      p->ndim = ndim;
      if (ndim) memcpy(p->shape, shape, (size_t)ndim * sizeof(int64_t));
      uniq_insert(t, hash);
    } else {
      uniq_free_if_empty();
    }
  }
  pthread_mutex_unlock(&uniq_lock);
  *out = t;
  return rc;
}

int irm_tensor_type_of(const irm_object *tensor, irm_object **out) {
  const DLTensor *dl = irm_tensor_dl(tensor);
  if (!dl) {
    if (out) *out = NULL;
    return irm_error(IRM_ETYPE, "irm_tensor_type_of: expected ffi.Tensor, got %s",
                     tensor ? irm_object_type_key(tensor) : "NULL");
  }
  return irm_tensor_type_new(dl->dtype, dl->shape, dl->ndim, out);
}

DLDataType irm_tensor_type_dtype(const irm_object *t) {
  const tensor_type_payload *p = tensor_of(t);
  DLDataType none = {0, 0, 0};
  return p ? p->dtype : none;
}

int32_t irm_tensor_type_ndim(const irm_object *t) {
  const tensor_type_payload *p = tensor_of(t);
  return p ? p->ndim : -1;
}

const int64_t *irm_tensor_type_shape(const irm_object *t) {
  const tensor_type_payload *p = tensor_of(t);
  return p ? p->shape : NULL;
}

int64_t irm_tensor_type_numel(const irm_object *t) {
  const tensor_type_payload *p = tensor_of(t);
  if (!p) return -1;
  int64_t n = 1;
  for (int32_t i = 0; i < p->ndim; i++) n *= p->shape[i];
  return n;
}

/* ---- tuple and function types ---------------------------------------------- */

typedef struct composite_key {
  _Atomic int32_t *type;
  irm_object *const *items;
  size_t n;
  irm_object *ret;
} composite_key;

static int same_composite(const irm_object *t, const void *key) {
  const composite_key *k = key;
  const composite_type_payload *p = irm_payload_if_type_(t, k->type);
  if (!p || p->ret != k->ret || irm_array_size(p->items) != k->n) return 0;
  for (size_t i = 0; i < k->n; i++)
    if (irm_array_at(p->items, i)->v_obj != k->items[i]) return 0;
  return 1;
}

static int make_composite(const char *fn, _Atomic int32_t *type, irm_object *const *items, size_t n, irm_object *ret,
                          irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "%s: out must not be NULL", fn);
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  if (n && !items) return irm_error(IRM_EVALUE, "%s: the types must not be NULL when there are %zu", fn, n);
  for (size_t i = 0; i < n; i++)
    if (irm_dataflow_type_kind_of(items[i]) == IRM_DATAFLOW_TYPE_NONE)
      return irm_error(IRM_ETYPE, "%s: item %zu must be a type, got %s", fn, i,
                       items[i] ? irm_object_type_key(items[i]) : "NULL");
  if (type == &func_type && irm_dataflow_type_kind_of(ret) == IRM_DATAFLOW_TYPE_NONE)
    return irm_error(IRM_ETYPE, "%s: the result must be a type, got %s", fn, ret ? irm_object_type_key(ret) : "NULL");
  composite_key key = {type, items, n, ret};
  uint64_t hash = mix(mix(type == &func_type ? 3 : 2, (uint64_t)n), (uint64_t)(uintptr_t)ret);
  for (size_t i = 0; i < n; i++) hash = mix(hash, (uint64_t)(uintptr_t)items[i]);
  pthread_mutex_lock(&uniq_lock);
  irm_object *t = uniq_find(hash, same_composite, &key);
  if (t) {
    pthread_mutex_unlock(&uniq_lock);
    *out = t;
    return IRM_OK;
  }
  irm_any stack_items[8];
  irm_any *anys = n <= 8 ? stack_items : irm_malloc(n * sizeof *anys);
  irm_object *arr = NULL;
  if (!uniq_reserve()) {
    if (anys != stack_items) irm_free(anys);
    pthread_mutex_unlock(&uniq_lock);
    *out = NULL;
    return irm_error_nomem_("for the type table");
  }
  if (!anys) rc = irm_error_nomem_("for a type's items");
  else {
    for (size_t i = 0; i < n; i++) anys[i] = irm_any_object(items[i]);
    rc = irm_array_new(anys, n, &arr);
    if (anys != stack_items) irm_free(anys);
  }
  if (!rc) rc = irm_object_new(atomic_load(type), sizeof(composite_type_payload), &t);
  if (!rc) {
    composite_type_payload *p = irm_object_payload(t);
    p->items = arr;
    if (ret) irm_object_retain(ret);
    p->ret = ret;
    uniq_insert(t, hash);
  } else {
    uniq_free_if_empty();
  }
  pthread_mutex_unlock(&uniq_lock);
  if (rc) irm_object_release(arr); /* outside the lock: a release may finalize a type, which takes it */
  *out = t;
  return rc;
}

int irm_tuple_type_new(irm_object *const *fields, size_t n, irm_object **out) {
  return make_composite("irm_tuple_type_new", &tuple_type, fields, n, NULL, out);
}

int irm_func_type_new(irm_object *const *params, size_t n, irm_object *ret, irm_object **out) {
  return make_composite("irm_func_type_new", &func_type, params, n, ret, out);
}

static irm_object *item_at(const composite_type_payload *p, size_t i) {
  const irm_any *v = p ? irm_array_at(p->items, i) : NULL;
  return v ? v->v_obj : NULL;
}

size_t irm_tuple_type_size(const irm_object *t) {
  const composite_type_payload *p = tuple_of(t);
  return p ? irm_array_size(p->items) : 0;
}
irm_object *irm_tuple_type_field(const irm_object *t, size_t i) { return item_at(tuple_of(t), i); }
size_t irm_func_type_param_count(const irm_object *t) {
  const composite_type_payload *p = func_of(t);
  return p ? irm_array_size(p->items) : 0;
}
irm_object *irm_func_type_param(const irm_object *t, size_t i) { return item_at(func_of(t), i); }
irm_object *irm_func_type_ret(const irm_object *t) {
  const composite_type_payload *p = func_of(t);
  return p ? p->ret : NULL;
}

/* ---- equality --------------------------------------------------------------- */

/* Types are uniqued: equal types are one object. */
int irm_dataflow_type_equal(const irm_object *a, const irm_object *b) {
  return a == b && irm_dataflow_type_kind_of(a) != IRM_DATAFLOW_TYPE_NONE;
}

/* ---- printing ------------------------------------------------------------------ */

/* Writes t's text form: Tensor[(1, 3), float32], (T1, T2), fn (T1) -> T2.
 * Nested types go through an explicit stack of pending text pieces. */
typedef struct print_item {
  const irm_object *type; /* NULL: print text */
  const char *text;
} print_item;

int irm_dataflow_type_print_(irm_text_buf *buf, const irm_object *t) {
  print_item local[32];
  print_item *stack = local;
  size_t depth = 0, cap = 32;
  stack[depth++] = (print_item){t, NULL};
  int rc = IRM_OK;
  while (depth && !rc) {
    print_item it = stack[--depth];
    if (!it.type) {
      irm_text_buf_puts_(buf, it.text);
      continue;
    }
    irm_dataflow_type_kind k = irm_dataflow_type_kind_of(it.type);
    if (k == IRM_DATAFLOW_TYPE_NONE) {
      irm_text_buf_puts_(buf, "?");
      continue;
    }
    if (k == IRM_DATAFLOW_TYPE_TENSOR) {
      const tensor_type_payload *p = tensor_of(it.type);
      irm_text_buf_puts_(buf, "Tensor[(");
      for (int32_t i = 0; i < p->ndim; i++) irm_text_buf_printf_(buf, i ? ", %lld" : "%lld", (long long)p->shape[i]);
      irm_text_buf_printf_(buf, "%s), %s]", p->ndim == 1 ? "," : "", irm_dtype_name(p->dtype));
      continue;
    }
    const composite_type_payload *p = irm_object_payload_const(it.type);
    size_t n = irm_array_size(p->items), need = depth + 2 * n + 4;
    if (need > cap) {
      size_t c = cap;
      while (c < need) c *= 2;
      print_item *grown =
          stack == local ? irm_walk_stack_take_(sizeof *grown, c, &c) : irm_realloc(stack, c * sizeof *grown);
      if (!grown) {
        rc = irm_error_nomem_("printing a type");
        break;
      }
      if (stack == local) memcpy(grown, local, depth * sizeof *grown);
      stack = grown;
      cap = c;
    }
    /* Pushed in reverse: the last piece printed goes first. */
    if (k == IRM_DATAFLOW_TYPE_FUNC) {
      stack[depth++] = (print_item){p->ret, NULL};
      stack[depth++] = (print_item){NULL, ") -> "};
    } else {
      stack[depth++] = (print_item){NULL, n == 1 ? ",)" : ")"};
    }
    for (size_t i = n; i-- > 0;) {
      stack[depth++] = (print_item){item_at(p, i), NULL};
      if (i) stack[depth++] = (print_item){NULL, ", "};
    }
    irm_text_buf_puts_(buf, k == IRM_DATAFLOW_TYPE_FUNC ? "fn (" : "(");
  }
  if (stack != local) irm_walk_stack_give_(stack, sizeof *stack, cap);
  return rc;
}

static int type_repr(const irm_object *self, irm_object **out) {
  irm_text_buf buf;
  char storage[128];
  irm_text_buf_init_(&buf, storage, sizeof storage);
  int rc = irm_dataflow_type_print_(&buf, self);
  if (rc) {
    irm_text_buf_free_(&buf);
    return rc;
  }
  return irm_text_buf_take_string_(&buf, "printing a type", out);
}

/* ---- fields (JSON and the generic walks) --------------------------------------- */

static int tensor_type_to_fields(const irm_object *self, irm_object **out) {
  const tensor_type_payload *p = tensor_of(self);
  irm_any dims[IRM_TENSOR_MAX_NDIM];
  for (int32_t i = 0; i < p->ndim; i++) dims[i] = irm_any_int(p->shape[i]);
  irm_object *shape = NULL;
  int rc = irm_array_new(dims, (size_t)p->ndim, &shape);
  if (rc) return rc;
  const char *keys[] = {"dtype", "shape"};
  irm_any values[] = {irm_any_str(irm_dtype_name(p->dtype)), irm_any_object(shape)};
  rc = irm_map_from_pairs(keys, values, 2, out);
  irm_object_release(shape);
  return rc;
}

static int field(const char *type_key, const irm_object *fields, const char *key, const irm_any **out) {
  *out = irm_map_find_cstr(fields, key);
  if (!*out) return irm_error(IRM_EVALUE, "%s: missing field '%s'", type_key, key);
  return IRM_OK;
}

static int tensor_type_from_fields(const irm_object *fields, irm_object **out) {
  const irm_any *dtype_v, *shape_v;
  int rc = field("dataflow.TensorType", fields, "dtype", &dtype_v);
  if (!rc) rc = field("dataflow.TensorType", fields, "shape", &shape_v);
  if (rc) return rc;
  const char *name = NULL;
  DLDataType dtype;
  if ((rc = irm_any_to_str(dtype_v, &name, NULL)) || (rc = irm_dtype_parse(name, &dtype)))
    return irm_error_context(rc, "field 'dtype' of dataflow.TensorType");
  irm_object *shape = NULL;
  if ((rc = irm_any_to_object(shape_v, "ffi.Array", &shape)))
    return irm_error_context(rc, "field 'shape' of dataflow.TensorType");
  size_t n = irm_array_size(shape);
  if (n > IRM_TENSOR_MAX_NDIM)
    return irm_error(IRM_EVALUE, "field 'shape' of dataflow.TensorType: %zu dimensions, at most %d", n,
                     IRM_TENSOR_MAX_NDIM);
  int64_t dims[IRM_TENSOR_MAX_NDIM];
  for (size_t i = 0; i < n; i++)
    if ((rc = irm_any_to_int(irm_array_at(shape, i), &dims[i])))
      return irm_error_context(rc, "dimension %zu of field 'shape' of dataflow.TensorType", i);
  return irm_tensor_type_new(dtype, dims, (int32_t)n, out);
}

static int composite_to_fields(const irm_object *self, irm_object **out) {
  const composite_type_payload *p = irm_object_payload_const(self);
  if (func_of(self)) {
    const char *keys[] = {"params", "ret"};
    irm_any values[] = {irm_any_object(p->items), irm_any_object(p->ret)};
    return irm_map_from_pairs(keys, values, 2, out);
  }
  const char *keys[] = {"fields"};
  irm_any values[] = {irm_any_object(p->items)};
  return irm_map_from_pairs(keys, values, 1, out);
}

static int composite_from_fields(const char *type_key, const irm_object *fields, irm_object **out) {
  int is_func = strcmp(type_key, "dataflow.FuncType") == 0;
  const irm_any *items_v, *ret_v = NULL;
  int rc = field(type_key, fields, is_func ? "params" : "fields", &items_v);
  if (!rc && is_func) rc = field(type_key, fields, "ret", &ret_v);
  if (rc) return rc;
  irm_object *items = NULL, *ret = NULL;
  if ((rc = irm_any_to_object(items_v, "ffi.Array", &items))) return irm_error_context(rc, "%s", type_key);
  if (is_func && (rc = irm_any_to_object(ret_v, "dataflow.Type", &ret)))
    return irm_error_context(rc, "field 'ret' of %s", type_key);
  size_t n = irm_array_size(items);
  irm_object **objs = irm_malloc((n ? n : 1) * sizeof *objs);
  if (!objs) return irm_error_nomem_("reading a type");
  for (size_t i = 0; i < n; i++) {
    const irm_any *v = irm_array_at(items, i);
    objs[i] = v->type_code == IRM_OBJECT ? v->v_obj : NULL;
  }
  rc = is_func ? irm_func_type_new(objs, n, ret, out) : irm_tuple_type_new(objs, n, out);
  irm_free(objs);
  return rc;
}

static int tuple_from_fields(const irm_object *fields, irm_object **out) {
  return composite_from_fields("dataflow.TupleType", fields, out);
}
static int func_from_fields(const irm_object *fields, irm_object **out) {
  return composite_from_fields("dataflow.FuncType", fields, out);
}

static void tensor_finalize(irm_object *self) { uniq_remove(self); }

static void composite_finalize(irm_object *self) {
  uniq_remove(self);
  composite_type_payload *p = irm_object_payload(self);
  irm_object_release(p->items);
  irm_object_release(p->ret);
}

/* ---- registration -------------------------------------------------------------- */

/* Registers "dataflow.<name>", with "ir.<name>", its key before the dialect
 * took the "dataflow." prefix, as a former key (JSON saved then loads). */
static int register_type(const char *name, const char *parent, void (*finalize)(irm_object *),
                         int (*to_fields)(const irm_object *, irm_object **),
                         int (*from_fields)(const irm_object *, irm_object **), _Atomic int32_t *slot) {
  char key[32], old[32];
  snprintf(key, sizeof key, "dataflow.%s", name);
  snprintf(old, sizeof old, "ir.%s", name);
  const char *const former[] = {old, NULL};
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = key;
  info.former_keys = former;
  info.parent_key = parent;
  info.finalize = finalize;
  info.to_fields = to_fields;
  info.from_fields = from_fields;
  info.repr = parent ? type_repr : NULL;
  int32_t index = -1;
  int rc = irm_type_ensure(&info, &index);
  if (!rc) atomic_store(slot, index);
  return rc;
}

int irm_register_ir_type_types_(void) {
  int rc = register_type("Type", NULL, NULL, NULL, NULL, &type_base);
  if (!rc)
    rc = register_type("TensorType", "dataflow.Type", tensor_finalize, tensor_type_to_fields, tensor_type_from_fields,
                       &tensor_type);
  if (!rc)
    rc = register_type("TupleType", "dataflow.Type", composite_finalize, composite_to_fields, tuple_from_fields,
                       &tuple_type);
  if (!rc)
    rc = register_type("FuncType", "dataflow.Type", composite_finalize, composite_to_fields, func_from_fields,
                       &func_type);
  return rc;
}
