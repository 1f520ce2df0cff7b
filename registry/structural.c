/* Structural equality and hashing (structural.h).
 *
 * Both walk with an explicit stack, so depth costs heap, not C stack.
 * Objects that are shared (count > 1) are remembered by address, so a value
 * with much sharing costs its number of objects, not its number of paths.
 * Maps from to_fields hooks stay alive until the walk ends: a freed one's
 * address could come back as a new object and hit a remembered entry. */
#include <math.h>
#include <string.h>

#include "error_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "object_list.h"
#include "uthash_irm.h"

/* What equality and hashing tell apart. A borrowed str and a String are
 * both strings; an object slot holding NULL is none. */
typedef enum value_kind { K_NONE, K_INT, K_BOOL, K_FLOAT, K_PTR, K_STRING, K_OBJECT, K_INVALID } value_kind;

static value_kind kind_of(const irm_any *v);
static void string_bytes(const irm_any *v, const char **data, size_t *len);
static int invalid_value(const irm_any *v);
static int is_shared(const irm_object *o);
static int fields_of(const irm_type_info *info, const irm_object *o, irm_object **out);

/* ---- equality ---------------------------------------------------------- */

typedef struct pair {
  irm_any a, b;
} pair;

typedef struct pair_key {
  const irm_object *a, *b;
} pair_key;

/* Object pairs met before: each is either equal or already being checked,
 * and an unequal pair decides the result the first time it is met. */
typedef struct pair_seen {
  UT_hash_handle hh;
  pair_key key;
} pair_seen;

typedef struct eq_walk {
  pair *stack;
  size_t depth, cap;
  pair_seen *seen;
  irm_object_list keep; /* to_fields Maps, alive until the walk ends */
  int exact;            /* irm_structural_equal_exact_: doubles by their bits, hooked objects by identity */
} eq_walk;

static int push_pair(eq_walk *w, const irm_any *a, const irm_any *b);
static int compare(eq_walk *w, const irm_any *a, const irm_any *b, int *equal);
static void eq_walk_free(eq_walk *w);

static int structural_equal(const irm_any *a, const irm_any *b, int exact, int *out_equal) {
  if (!a || !b || !out_equal) return irm_error(IRM_EVALUE, "irm_structural_equal: a, b and out_equal must not be NULL");
  *out_equal = 0;
  eq_walk w = {0};
  w.exact = exact;
  int equal = 1;
  int rc = push_pair(&w, a, b);
  while (!rc && equal && w.depth) {
    pair p = w.stack[--w.depth];
    rc = compare(&w, &p.a, &p.b, &equal);
  }
  eq_walk_free(&w);
  if (!rc) *out_equal = equal;
  return rc;
}

int irm_structural_equal(const irm_any *a, const irm_any *b, int *out_equal) {
  return structural_equal(a, b, 0, out_equal);
}

int irm_structural_equal_exact_(const irm_any *a, const irm_any *b, int *out_equal) {
  return structural_equal(a, b, 1, out_equal);
}

static void eq_walk_free(eq_walk *w) {
  pair_seen *s, *tmp;
  HASH_ITER(hh, w->seen, s, tmp) {
    HASH_DELETE(hh, w->seen, s);
    irm_free(s);
  }
  irm_object_list_release_(&w->keep);
  irm_walk_stack_give_(w->stack, sizeof *w->stack, w->cap);
}

static int push_pair(eq_walk *w, const irm_any *a, const irm_any *b) {
  if (w->depth == w->cap) {
    size_t c = w->cap ? w->cap * 2 : 16;
    pair *grown = w->cap ? irm_realloc(w->stack, c * sizeof *grown) : irm_walk_stack_take_(sizeof *grown, c, &c);
    if (!grown) return irm_error_nomem_("comparing values");
    w->stack = grown;
    w->cap = c;
  }
  w->stack[w->depth].a = *a;
  w->stack[w->depth].b = *b;
  w->depth++;
  return IRM_OK;
}

static int compare_objects(eq_walk *w, const irm_object *x, const irm_object *y, int *equal);

/* TVM's rule (structural_equal.h): doubles within an absolute 1e-9 are
 * equal, so an attribute read back from float32 (epsilon=9.9999997e-06)
 * equals the literal 1e-5. Infinities equal only themselves. */
#define FLOAT_ATOL 1e-9
static int floats_equal(double x, double y) {
  if (x == y || (isnan(x) && isnan(y))) return 1;
  double d = x - y;
  return d > -FLOAT_ATOL && d < FLOAT_ATOL;
}

/* Compares one pair; pushes the pairs inside containers. */
static int compare(eq_walk *w, const irm_any *a, const irm_any *b, int *equal) {
  value_kind ka = kind_of(a), kb = kind_of(b);
  if (ka == K_INVALID) return invalid_value(a);
  if (kb == K_INVALID) return invalid_value(b);
  if (ka != kb) {
    *equal = 0;
    return IRM_OK;
  }
  switch (ka) {
  case K_INT: *equal = a->v_int == b->v_int; break;
  case K_BOOL: *equal = (a->v_int != 0) == (b->v_int != 0); break;
  case K_FLOAT: /* NaN equals NaN, so that equality stays reflexive */
    *equal = w->exact ? memcmp(&a->v_float, &b->v_float, sizeof(double)) == 0 : floats_equal(a->v_float, b->v_float);
    break;
  case K_PTR: *equal = a->v_ptr == b->v_ptr; break;
  case K_STRING: {
    const char *da, *db;
    size_t la, lb;
    string_bytes(a, &da, &la);
    string_bytes(b, &db, &lb);
    *equal = la == lb && (la == 0 || memcmp(da, db, la) == 0);
    break;
  }
  case K_OBJECT: return compare_objects(w, a->v_obj, b->v_obj, equal);
  default: break;
  }
  return IRM_OK;
}

/* 1 when the pair was met before; otherwise remembers it. */
static int pair_seen_before(eq_walk *w, const irm_object *x, const irm_object *y, int *rc) {
  pair_key key;
  memset(&key, 0, sizeof key); /* the hash reads every byte */
  key.a = x;
  key.b = y;
  pair_seen *s = NULL;
  HASH_FIND(hh, w->seen, &key, sizeof key, s);
  if (s) return 1;
  int irm_hash_oom = 0;
  if (!(s = irm_malloc(sizeof *s))) {
    *rc = irm_error_nomem_("comparing values");
    return 0;
  }
  s->key = key;
  HASH_ADD(hh, w->seen, key, sizeof key, s);
  if (irm_hash_oom) {
    irm_free(s);
    *rc = irm_error_nomem_("comparing values");
  }
  return 0;
}

static int compare_containers(eq_walk *w, const irm_object *x, const irm_object *y, int *equal);
static int compare_other(eq_walk *w, const irm_object *x, const irm_object *y, int *equal);

static int compare_objects(eq_walk *w, const irm_object *x, const irm_object *y, int *equal) {
  if (x == y) return IRM_OK;
  if (irm_object_type_index(x) != irm_object_type_index(y)) {
    *equal = 0;
    return IRM_OK;
  }
  int rc = IRM_OK;
  if ((is_shared(x) || is_shared(y)) && pair_seen_before(w, x, y, &rc)) return IRM_OK;
  if (rc) return rc;
  int32_t t = irm_object_type_index(x);
  if (t == IRM_TYPE_ARRAY || t == IRM_TYPE_MAP) return compare_containers(w, x, y, equal);
  return compare_other(w, x, y, equal);
}

/* Arrays item by item; Maps by key, whatever the insertion order. */
static int compare_containers(eq_walk *w, const irm_object *x, const irm_object *y, int *equal) {
  int rc = IRM_OK;
  if (irm_object_type_index(x) == IRM_TYPE_ARRAY) {
    size_t n = irm_array_size(x);
    if (n != irm_array_size(y)) {
      *equal = 0;
      return IRM_OK;
    }
    /* Pushed backwards, so items are checked front to back. */
    for (size_t i = n; !rc && i > 0; i--) rc = push_pair(w, irm_array_at(x, i - 1), irm_array_at(y, i - 1));
    return rc;
  }
  if (irm_map_size(x) != irm_map_size(y)) {
    *equal = 0;
    return IRM_OK;
  }
  irm_map_iter it = irm_map_iter_begin(x);
  const irm_object *key;
  const irm_any *xv;
  while (!rc && irm_map_iter_next(&it, &key, &xv)) {
    const irm_any *yv = irm_map_find(y, irm_string_data(key), irm_string_size(key));
    if (!yv) {
      *equal = 0;
      return IRM_OK;
    }
    rc = push_pair(w, xv, yv);
  }
  return rc;
}

/* Other types: the equal hook, else the to_fields Maps, else identity
 * (the objects differ, or compare_objects would not be here). */
static int compare_other(eq_walk *w, const irm_object *x, const irm_object *y, int *equal) {
  const irm_type_info *info = irm_type_info_of(irm_object_type_index(x));
  if (info && info->equal && w->exact) { /* a hook may compare with a tolerance */
    *equal = 0;
    return IRM_OK;
  }
  if (info && info->equal) {
    int eq = 0;
    int rc = info->equal(x, y, &eq);
    if (rc) return irm_error_context(rc, "equal hook of type '%s'", irm_object_type_key(x));
    *equal = eq != 0;
    return IRM_OK;
  }
  if (!info || !info->to_fields) {
    *equal = 0;
    return IRM_OK;
  }
  irm_object *fx = NULL, *fy = NULL;
  int rc = fields_of(info, x, &fx);
  if (!rc) rc = irm_object_list_take_(&w->keep, fx);
  if (!rc) rc = fields_of(info, y, &fy);
  if (!rc) rc = irm_object_list_take_(&w->keep, fy);
  if (rc) return rc;
  irm_any ax = irm_any_object(fx), ay = irm_any_object(fy);
  return push_pair(w, &ax, &ay);
}

/* ---- hashing ----------------------------------------------------------- */

/* Seeds that keep kinds apart (1 and 1.0 and true hash differently). */
enum {
  SEED_NONE = 0x4e4f4e45,
  SEED_INT = 0x494e5420,
  SEED_BOOL = 0x424f4f4c,
  SEED_FLOAT = 0x464c5420,
  SEED_PTR = 0x50545220,
  SEED_STRING = 0x53545220,
  SEED_ARRAY = 0x41525220,
  SEED_MAP = 0x4d415020,
  SEED_OBJECT = 0x4f424a20
};

/* splitmix64's finalizer: every input bit affects every output bit. */
static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* Order-dependent combination (Arrays, fields). */
static uint64_t combine(uint64_t h, uint64_t v) { return mix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2))); }

/* FNV-1a over the bytes, then mixed with the length. */
static uint64_t bytes_hash(const char *data, size_t len) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)data[i]) * 0x100000001b3ULL;
  return combine(mix(h), len);
}

static uint64_t type_seed(const irm_object *o) {
  const char *key = irm_object_type_key(o);
  return combine(SEED_OBJECT, key ? bytes_hash(key, strlen(key)) : 0);
}

/* Remembered hashes of shared objects. */
typedef struct hash_seen {
  UT_hash_handle hh;
  const irm_object *obj;
  uint64_t hash;
} hash_seen;

enum frame_kind { F_ARRAY, F_MAP, F_FIELDS };

typedef struct hframe {
  const irm_object *obj;
  irm_any fields; /* F_FIELDS: the to_fields Map, the one child */
  enum frame_kind kind;
  size_t next;
  irm_map_iter it;
  uint64_t acc;      /* running hash (Array, fields) or sum of entries (Map) */
  uint64_t key_hash; /* Map: hash of the key whose value is being hashed */
} hframe;

typedef struct hash_walk {
  hframe *stack;
  size_t depth, cap;
  hash_seen *seen;
  irm_object_list keep; /* to_fields Maps, alive until the walk ends */
  int exact;            /* irm_structural_hash_exact_: doubles by their bits, hooked objects by identity */
} hash_walk;

static int hash_start(hash_walk *w, const irm_any *v, uint64_t *h, int *pushed);
static const irm_any *hash_next_child(hframe *f);
static void hash_feed(hframe *f, uint64_t h);
static int hash_finish(hash_walk *w, uint64_t *h);
static void hash_walk_free(hash_walk *w);

static int structural_hash(const irm_any *value, int exact, uint64_t *out_hash) {
  if (!value || !out_hash) return irm_error(IRM_EVALUE, "irm_structural_hash: value and out_hash must not be NULL");
  *out_hash = 0;
  hash_walk w = {0};
  w.exact = exact;
  uint64_t h = 0;
  int pushed = 0;
  int rc = hash_start(&w, value, &h, &pushed);
  while (!rc && w.depth) {
    const irm_any *child = hash_next_child(&w.stack[w.depth - 1]);
    if (!child) {
      rc = hash_finish(&w, &h); /* pops; h is the root's hash when the stack empties */
      if (!rc && w.depth) hash_feed(&w.stack[w.depth - 1], h);
      continue;
    }
    uint64_t ch = 0;
    rc = hash_start(&w, child, &ch, &pushed);
    if (!rc && !pushed) hash_feed(&w.stack[w.depth - 1], ch);
  }
  hash_walk_free(&w);
  if (!rc) *out_hash = h;
  return rc;
}

int irm_structural_hash(const irm_any *value, uint64_t *out_hash) { return structural_hash(value, 0, out_hash); }

int irm_structural_hash_exact_(const irm_any *value, uint64_t *out_hash) { return structural_hash(value, 1, out_hash); }

static void hash_walk_free(hash_walk *w) {
  hash_seen *s, *tmp;
  HASH_ITER(hh, w->seen, s, tmp) {
    HASH_DELETE(hh, w->seen, s);
    irm_free(s);
  }
  irm_object_list_release_(&w->keep);
  irm_walk_stack_give_(w->stack, sizeof *w->stack, w->cap);
}

static uint64_t scalar_hash(value_kind k, const irm_any *v, int exact);
static int hash_object(hash_walk *w, const irm_object *o, uint64_t *h, int *pushed);

/* Hashes v at once (*pushed = 0) or pushes a frame for its contents. */
static int hash_start(hash_walk *w, const irm_any *v, uint64_t *h, int *pushed) {
  *pushed = 0;
  value_kind k = kind_of(v);
  if (k == K_INVALID) return invalid_value(v);
  if (k != K_OBJECT) {
    *h = scalar_hash(k, v, w->exact);
    return IRM_OK;
  }
  const irm_object *o = v->v_obj;
  hash_seen *s = NULL;
  if (is_shared(o)) HASH_FIND_PTR(w->seen, &o, s);
  if (s) {
    *h = s->hash;
    return IRM_OK;
  }
  return hash_object(w, o, h, pushed);
}

static uint64_t scalar_hash(value_kind k, const irm_any *v, int exact) {
  switch (k) {
  case K_INT: return combine(SEED_INT, (uint64_t)v->v_int);
  case K_BOOL: return combine(SEED_BOOL, v->v_int != 0);
  case K_FLOAT: {
    double x = v->v_float;
    /* equality within FLOAT_ATOL chains every finite double to every
     * other, so they share one hash; inf, -inf and NaN keep their own
     * (exact: every double its bits) */
    if (!exact && isfinite(x)) x = 0.0;
    if (!exact && isnan(x)) x = NAN; /* every NaN equals every other */
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return combine(SEED_FLOAT, bits);
  }
  case K_PTR: return combine(SEED_PTR, (uint64_t)(uintptr_t)v->v_ptr);
  case K_STRING: {
    const char *data;
    size_t len;
    string_bytes(v, &data, &len);
    return combine(SEED_STRING, bytes_hash(data, len));
  }
  default: return mix(SEED_NONE);
  }
}

static int remember(hash_walk *w, const irm_object *o, uint64_t h);
static int push_hframe(hash_walk *w, const irm_object *o, enum frame_kind kind, irm_object *fields);

/* Containers and to_fields types get a frame; hooks, hook-less types and
 * types with only an equal hook are hashed at once. */
static int hash_object(hash_walk *w, const irm_object *o, uint64_t *h, int *pushed) {
  int32_t t = irm_object_type_index(o);
  if (t == IRM_TYPE_ARRAY || t == IRM_TYPE_MAP) {
    *pushed = 1;
    return push_hframe(w, o, t == IRM_TYPE_ARRAY ? F_ARRAY : F_MAP, NULL);
  }
  const irm_type_info *info = irm_type_info_of(t);
  if (w->exact && info && (info->hash || info->equal)) {
    *h = combine(type_seed(o), (uint64_t)(uintptr_t)o); /* identity: a hook may hash with a tolerance */
  } else if (info && info->hash) {
    uint64_t hh = 0;
    int rc = info->hash(o, &hh);
    if (rc) return irm_error_context(rc, "hash hook of type '%s'", irm_object_type_key(o));
    *h = combine(type_seed(o), hh);
  } else if (info && info->equal) {
    /* Objects the hook calls equal may differ in every field: only the
     * type is safe to hash. */
    *h = type_seed(o);
  } else if (info && info->to_fields) {
    irm_object *fields = NULL;
    int rc = fields_of(info, o, &fields);
    if (!rc) rc = irm_object_list_take_(&w->keep, fields);
    if (!rc) rc = push_hframe(w, o, F_FIELDS, fields);
    *pushed = !rc;
    return rc;
  } else {
    *h = combine(type_seed(o), (uint64_t)(uintptr_t)o); /* identity */
  }
  return is_shared(o) ? remember(w, o, *h) : IRM_OK;
}

static int push_hframe(hash_walk *w, const irm_object *o, enum frame_kind kind, irm_object *fields) {
  if (w->depth == w->cap) {
    size_t c = w->cap ? w->cap * 2 : 16;
    hframe *grown = w->cap ? irm_realloc(w->stack, c * sizeof *grown) : irm_walk_stack_take_(sizeof *grown, c, &c);
    if (!grown) return irm_error_nomem_("hashing a value");
    w->stack = grown;
    w->cap = c;
  }
  hframe *f = &w->stack[w->depth++];
  memset(f, 0, sizeof *f);
  f->obj = o;
  f->kind = kind;
  f->fields = irm_any_object(fields);
  f->it = irm_map_iter_begin(o);
  if (kind == F_ARRAY) f->acc = combine(SEED_ARRAY, irm_array_size(o));
  return IRM_OK;
}

static const irm_any *hash_next_child(hframe *f) {
  const irm_any *v = NULL;
  const irm_object *key = NULL;
  switch (f->kind) {
  case F_ARRAY: v = irm_array_at(f->obj, f->next); break;
  case F_MAP:
    if (irm_map_iter_next(&f->it, &key, &v)) f->key_hash = bytes_hash(irm_string_data(key), irm_string_size(key));
    break;
  case F_FIELDS: v = f->next == 0 ? &f->fields : NULL; break;
  }
  if (v) f->next++;
  return v;
}

static void hash_feed(hframe *f, uint64_t h) {
  switch (f->kind) {
  case F_ARRAY: f->acc = combine(f->acc, h); break;
  /* A sum of mixed entries does not depend on insertion order. */
  case F_MAP: f->acc += mix(combine(f->key_hash, h)); break;
  case F_FIELDS: f->acc = h; break;
  }
}

/* The hash of the top frame's object; pops it. */
static int hash_finish(hash_walk *w, uint64_t *h) {
  hframe *f = &w->stack[--w->depth];
  switch (f->kind) {
  case F_ARRAY: *h = f->acc; break;
  case F_MAP: *h = combine(combine(SEED_MAP, irm_map_size(f->obj)), f->acc); break;
  case F_FIELDS: *h = combine(type_seed(f->obj), f->acc); break;
  }
  return is_shared(f->obj) ? remember(w, f->obj, *h) : IRM_OK;
}

static int remember(hash_walk *w, const irm_object *o, uint64_t h) {
  int irm_hash_oom = 0;
  hash_seen *s = irm_malloc(sizeof *s);
  if (!s) return irm_error_nomem_("hashing a value");
  s->obj = o;
  s->hash = h;
  HASH_ADD_PTR(w->seen, obj, s);
  if (irm_hash_oom) {
    irm_free(s);
    return irm_error_nomem_("hashing a value");
  }
  return IRM_OK;
}

/* ---- shared by both walks ---------------------------------------------- */

static value_kind kind_of(const irm_any *v) {
  switch (v->type_code) {
  case IRM_NONE: return K_NONE;
  case IRM_INT: return K_INT;
  case IRM_BOOL: return K_BOOL;
  case IRM_FLOAT: return K_FLOAT;
  case IRM_PTR: return K_PTR;
  case IRM_STR: return v->v_str ? K_STRING : K_INVALID;
  case IRM_OBJECT:
    if (!v->v_obj) return K_NONE;
    return irm_object_type_index(v->v_obj) == IRM_TYPE_STRING ? K_STRING : K_OBJECT;
  default: return K_INVALID;
  }
}

static void string_bytes(const irm_any *v, const char **data, size_t *len) {
  if (v->type_code == IRM_STR) {
    *data = v->v_str;
    *len = strlen(v->v_str);
  } else {
    *data = irm_string_data(v->v_obj);
    *len = irm_string_size(v->v_obj);
  }
}

static int invalid_value(const irm_any *v) {
  if (v->type_code == IRM_STR) return irm_error(IRM_EVALUE, "str value holds a NULL pointer");
  return irm_error(IRM_EVALUE, "invalid value (type code %d)", (int)v->type_code);
}

static int is_shared(const irm_object *o) { return irm_object_refcount(o) > 1; }


/* The to_fields Map of o, checked to be a Map; *out NEW. */
static int fields_of(const irm_type_info *info, const irm_object *o, irm_object **out) {
  *out = NULL;
  int rc = info->to_fields(o, out);
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
    return irm_error_context(rc, "to_fields of type '%s'", irm_object_type_key(o));
  }
  if (irm_object_type_index(*out) != IRM_TYPE_MAP) {
    const char *got = *out ? irm_object_type_key(*out) : "NULL";
    irm_object_release(*out);
    *out = NULL;
    return irm_error(IRM_EVALUE, "to_fields of type '%s' returned %s, not an ffi.Map", irm_object_type_key(o), got);
  }
  return IRM_OK;
}
