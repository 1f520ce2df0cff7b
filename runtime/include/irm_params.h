/* irm_params.h: the params file, read and written in plain C (stands
 * alone: C11, the C library and DLPack's header). docs/runtime.md.
 *
 * The layout is TVM's param-dict binary layout, little-endian:
 *   u64 list magic (IRM_PARAMS_LIST_MAGIC), u64 reserved (0),
 *   u64 count of names, then per name: u64 length, its bytes (no NUL),
 *   u64 count of arrays (equal to the names'), then per array:
 *     u64 array magic (IRM_PARAMS_ARRAY_MAGIC), u64 reserved (0),
 *     i32 device type, i32 device id (kDLCPU, 0),
 *     i32 ndim, u8 dtype code, u8 bits, u16 lanes,
 *     i64 shape[ndim], i64 byte size, the bytes (row-major).
 * Nothing is aligned: readers copy the bytes out.
 *
 * Every function is static inline, so a generated library (and libirm,
 * through this header) carries its own copy. They return IRM_PARAMS_OK or
 * a negative code; irm_params_strerror describes it.
 *
 * Thread safety: no state; the blob is only read. */
#ifndef IRM_PARAMS_H
#define IRM_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IRM_PARAMS_LIST_MAGIC 0xF7E58D4F05049CB7ULL
#define IRM_PARAMS_ARRAY_MAGIC 0xDD5E40F096B4A13FULL
#define IRM_PARAMS_MAX_NDIM 16

enum {
  IRM_PARAMS_OK = 0,
  IRM_PARAMS_ETRUNCATED = -1, /* the blob ends inside a field */
  IRM_PARAMS_EMAGIC = -2,     /* a list or array magic number is wrong */
  IRM_PARAMS_ECOUNT = -3,     /* the counts of names and arrays differ */
  IRM_PARAMS_ENDIM = -4,      /* ndim outside 0..IRM_PARAMS_MAX_NDIM, or a negative dimension */
  IRM_PARAMS_ESIZE = -5,      /* the byte size disagrees with shape and dtype */
  IRM_PARAMS_EINDEX = -6,     /* no entry of that index or name */
  IRM_PARAMS_EDEVICE = -7     /* an array not on the CPU */
};

/* One entry, pointing into the blob (name and data are not NUL-terminated
 * nor aligned). */
typedef struct irm_params_entry {
  const char *name;
  size_t name_len;
  int32_t ndim;
  DLDataType dtype;
  int64_t shape[IRM_PARAMS_MAX_NDIM];
  const void *data;
  uint64_t nbytes;
} irm_params_entry;

static inline const char *irm_params_strerror(int code) {
  switch (code) {
  case IRM_PARAMS_OK: return "ok";
  case IRM_PARAMS_ETRUNCATED: return "the params blob is truncated";
  case IRM_PARAMS_EMAGIC: return "bad magic number (not a params file)";
  case IRM_PARAMS_ECOUNT: return "the counts of names and arrays differ";
  case IRM_PARAMS_ENDIM: return "an array with a bad ndim or a negative dimension";
  case IRM_PARAMS_ESIZE: return "an array whose byte size disagrees with its shape and dtype";
  case IRM_PARAMS_EINDEX: return "no such parameter";
  case IRM_PARAMS_EDEVICE: return "an array not on the CPU";
  default: return "unknown error";
  }
}

/* ---- reading ---------------------------------------------------------------- */

typedef struct irm_params_cursor_ {
  const unsigned char *p, *end;
} irm_params_cursor_;

static inline int irm_params_take_(irm_params_cursor_ *c, void *dst, size_t n) {
  if ((size_t)(c->end - c->p) < n) return IRM_PARAMS_ETRUNCATED;
  if (dst) memcpy(dst, c->p, n);
  c->p += n;
  return IRM_PARAMS_OK;
}

/* Reads one array at the cursor into e (name untouched). */
static inline int irm_params_read_array_(irm_params_cursor_ *c, irm_params_entry *e) {
  uint64_t magic = 0, reserved = 0;
  int32_t dev[2] = {0, 0};
  uint8_t code = 0, bits = 0;
  uint16_t lanes = 0;
  int64_t nbytes = 0;
  int rc = irm_params_take_(c, &magic, 8);
  if (!rc && magic != IRM_PARAMS_ARRAY_MAGIC) rc = IRM_PARAMS_EMAGIC;
  if (!rc) rc = irm_params_take_(c, &reserved, 8);
  if (!rc) rc = irm_params_take_(c, dev, 8);
  if (!rc && dev[0] != kDLCPU) rc = IRM_PARAMS_EDEVICE;
  if (!rc) rc = irm_params_take_(c, &e->ndim, 4);
  if (!rc && (e->ndim < 0 || e->ndim > IRM_PARAMS_MAX_NDIM)) rc = IRM_PARAMS_ENDIM;
  if (!rc) rc = irm_params_take_(c, &code, 1);
  if (!rc) rc = irm_params_take_(c, &bits, 1);
  if (!rc) rc = irm_params_take_(c, &lanes, 2);
  uint64_t numel = 1;
  for (int32_t d = 0; !rc && d < e->ndim; d++) {
    rc = irm_params_take_(c, &e->shape[d], 8);
    if (!rc && e->shape[d] < 0) rc = IRM_PARAMS_ENDIM;
    if (!rc)
      numel = e->shape[d] && numel > UINT64_MAX / (uint64_t)e->shape[d] ? UINT64_MAX : numel * (uint64_t)e->shape[d];
  }
  if (!rc) rc = irm_params_take_(c, &nbytes, 8);
  uint64_t elem = ((uint64_t)bits * lanes + 7) / 8;
  if (!rc && (nbytes < 0 || (elem && numel > UINT64_MAX / elem) || numel * elem != (uint64_t)nbytes))
    rc = IRM_PARAMS_ESIZE;
  if (!rc) {
    e->dtype.code = code;
    e->dtype.bits = bits;
    e->dtype.lanes = lanes;
    e->nbytes = (uint64_t)nbytes;
    e->data = c->p;
    rc = irm_params_take_(c, NULL, (size_t)nbytes);
  }
  return rc;
}

/* Checks the whole blob and gives its number of entries. */
static inline int irm_params_count(const void *blob, size_t size, uint64_t *count) {
  irm_params_cursor_ c = {(const unsigned char *)blob, (const unsigned char *)blob + size};
  uint64_t magic = 0, reserved = 0, names = 0, arrays = 0, len = 0;
  int rc = irm_params_take_(&c, &magic, 8);
  if (!rc && magic != IRM_PARAMS_LIST_MAGIC) rc = IRM_PARAMS_EMAGIC;
  if (!rc) rc = irm_params_take_(&c, &reserved, 8);
  if (!rc) rc = irm_params_take_(&c, &names, 8);
  for (uint64_t i = 0; !rc && i < names; i++) {
    rc = irm_params_take_(&c, &len, 8);
    if (!rc) rc = len > (uint64_t)(c.end - c.p) ? IRM_PARAMS_ETRUNCATED : irm_params_take_(&c, NULL, (size_t)len);
  }
  if (!rc) rc = irm_params_take_(&c, &arrays, 8);
  if (!rc && arrays != names) rc = IRM_PARAMS_ECOUNT;
  irm_params_entry e;
  for (uint64_t i = 0; !rc && i < arrays; i++) rc = irm_params_read_array_(&c, &e);
  if (!rc) *count = names;
  return rc;
}

/* A walk over the entries of a blob, in order (name i with array i): each
 * entry read once, so reading them all is linear in the blob's size. */
typedef struct irm_params_iter {
  irm_params_cursor_ names, arrays;
  uint64_t left;
} irm_params_iter;

/* Checks the blob (as irm_params_count) and starts a walk over it. */
static inline int irm_params_iter_begin(const void *blob, size_t size, irm_params_iter *it) {
  uint64_t n = 0, len = 0;
  int rc = irm_params_count(blob, size, &n);
  if (rc) return rc;
  irm_params_cursor_ c = {(const unsigned char *)blob + 24, (const unsigned char *)blob + size};
  it->names = c;
  for (uint64_t i = 0; i < n; i++) { /* checked: every take succeeds */
    irm_params_take_(&c, &len, 8);
    irm_params_take_(&c, NULL, (size_t)len);
  }
  irm_params_take_(&c, NULL, 8);
  it->arrays = c;
  it->left = n;
  return IRM_PARAMS_OK;
}

/* 1 and the next entry in *out, or 0 at the end. */
static inline int irm_params_iter_next(irm_params_iter *it, irm_params_entry *out) {
  uint64_t len = 0;
  if (!it->left) return 0;
  irm_params_take_(&it->names, &len, 8);
  out->name = (const char *)it->names.p;
  out->name_len = (size_t)len;
  irm_params_take_(&it->names, NULL, (size_t)len);
  irm_params_read_array_(&it->arrays, out);
  it->left--;
  return 1;
}

/* Entry index of the blob (checked as irm_params_count does). */
static inline int irm_params_get(const void *blob, size_t size, uint64_t index, irm_params_entry *out) {
  irm_params_iter it = {{NULL, NULL}, {NULL, NULL}, 0};
  int rc = irm_params_iter_begin(blob, size, &it);
  if (rc) return rc;
  if (index >= it.left) return IRM_PARAMS_EINDEX;
  for (uint64_t i = 0; i <= index; i++) irm_params_iter_next(&it, out);
  return IRM_PARAMS_OK;
}

/* strcmp's order between an entry's name (name, len) and the C string s. */
static inline int irm_params_name_cmp_(const char *name, size_t len, const char *s) {
  size_t n = strlen(s);
  int c = memcmp(name, s, len < n ? len : n);
  return c ? c : len < n ? -1 : len > n ? 1 : 0;
}

/* The entry named name (a C string): one walk of the blob. */
static inline int irm_params_find(const void *blob, size_t size, const char *name, irm_params_entry *out) {
  irm_params_iter it = {{NULL, NULL}, {NULL, NULL}, 0};
  int rc = irm_params_iter_begin(blob, size, &it);
  while (!rc && irm_params_iter_next(&it, out))
    if (irm_params_name_cmp_(out->name, out->name_len, name) == 0) return IRM_PARAMS_OK;
  return rc ? rc : IRM_PARAMS_EINDEX;
}

/* IRM_PARAMS_OK when entry e is what the reader expects: dtype (code, bits,
 * one lane), ndim and shape, nbytes; IRM_PARAMS_ESIZE when it differs. */
static inline int irm_params_check_as(const irm_params_entry *e, uint8_t code, uint8_t bits, int32_t ndim,
                                      const int64_t *shape, uint64_t nbytes) {
  if (e->dtype.code != code || e->dtype.bits != bits || e->dtype.lanes != 1 || e->ndim != ndim || e->nbytes != nbytes)
    return IRM_PARAMS_ESIZE;
  for (int32_t d = 0; d < ndim; d++)
    if (e->shape[d] != shape[d]) return IRM_PARAMS_ESIZE;
  return IRM_PARAMS_OK;
}

/* The entry named name, checked as irm_params_check_as does. */
static inline int irm_params_find_as(const void *blob, size_t size, const char *name, uint8_t code, uint8_t bits,
                                     int32_t ndim, const int64_t *shape, uint64_t nbytes, irm_params_entry *out) {
  int rc = irm_params_find(blob, size, name, out);
  return rc ? rc : irm_params_check_as(out, code, bits, ndim, shape, nbytes);
}

/* The entries named names[0..n) (distinct C strings in strcmp's order) in
 * one walk of the blob, a binary search per entry: out[j] is names[j]'s
 * (the first entry of that name). IRM_PARAMS_EINDEX when one is missing,
 * its index in *missing (may be NULL). Linear in the blob's size. */
static inline int irm_params_find_sorted(const void *blob, size_t size, const char *const *names, size_t n,
                                         irm_params_entry *out, size_t *missing) {
  irm_params_iter it = {{NULL, NULL}, {NULL, NULL}, 0};
  irm_params_entry e;
  int rc = irm_params_iter_begin(blob, size, &it);
  if (rc) return rc;
  for (size_t j = 0; j < n; j++) out[j].name = NULL;
  while (irm_params_iter_next(&it, &e)) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      int c = irm_params_name_cmp_(e.name, e.name_len, names[mid]);
      if (!c) {
        if (!out[mid].name) out[mid] = e;
        break;
      }
      if (c < 0) hi = mid;
      else lo = mid + 1;
    }
  }
  for (size_t j = 0; j < n; j++)
    if (!out[j].name) {
      if (missing) *missing = j;
      return IRM_PARAMS_EINDEX;
    }
  return IRM_PARAMS_OK;
}

/* ---- writing ---------------------------------------------------------------- */

static inline void irm_params_put_(unsigned char *buf, size_t cap, size_t *at, const void *src, size_t n) {
  if (buf && *at <= cap && n <= cap - *at) memcpy(buf + *at, src, n);
  *at += n;
}

/* Writes n entries (names: C strings; tensors: compact CPU DLTensors, their
 * byte_offset applied) into buf (cap bytes; buf may be NULL to measure)
 * and gives in *size the bytes the blob takes; the blob is complete only
 * when *size <= cap. Errors: IRM_PARAMS_ENDIM (ndim too large),
 * IRM_PARAMS_EDEVICE. */
static inline int irm_params_write(unsigned char *buf, size_t cap, size_t n, const char *const *names,
                                   const DLTensor *const *tensors, size_t *size) {
  size_t at = 0;
  uint64_t magic = IRM_PARAMS_LIST_MAGIC, zero = 0, count = n;
  irm_params_put_(buf, cap, &at, &magic, 8);
  irm_params_put_(buf, cap, &at, &zero, 8);
  irm_params_put_(buf, cap, &at, &count, 8);
  for (size_t i = 0; i < n; i++) {
    uint64_t len = strlen(names[i]);
    irm_params_put_(buf, cap, &at, &len, 8);
    irm_params_put_(buf, cap, &at, names[i], (size_t)len);
  }
  irm_params_put_(buf, cap, &at, &count, 8);
  for (size_t i = 0; i < n; i++) {
    const DLTensor *t = tensors[i];
    if (t->ndim < 0 || t->ndim > IRM_PARAMS_MAX_NDIM) return IRM_PARAMS_ENDIM;
    if (t->device.device_type != kDLCPU) return IRM_PARAMS_EDEVICE;
    uint64_t amagic = IRM_PARAMS_ARRAY_MAGIC;
    int32_t dev[2] = {kDLCPU, 0};
    int64_t numel = 1;
    for (int32_t d = 0; d < t->ndim; d++) numel *= t->shape[d];
    int64_t nbytes = numel * (int64_t)(((uint64_t)t->dtype.bits * t->dtype.lanes + 7) / 8);
    irm_params_put_(buf, cap, &at, &amagic, 8);
    irm_params_put_(buf, cap, &at, &zero, 8);
    irm_params_put_(buf, cap, &at, dev, 8);
    irm_params_put_(buf, cap, &at, &t->ndim, 4);
    irm_params_put_(buf, cap, &at, &t->dtype.code, 1);
    irm_params_put_(buf, cap, &at, &t->dtype.bits, 1);
    irm_params_put_(buf, cap, &at, &t->dtype.lanes, 2);
    if (t->ndim) irm_params_put_(buf, cap, &at, t->shape, 8 * (size_t)t->ndim);
    irm_params_put_(buf, cap, &at, &nbytes, 8);
    irm_params_put_(buf, cap, &at, (const char *)t->data + t->byte_offset, (size_t)nbytes);
  }
  *size = at;
  return IRM_PARAMS_OK;
}

#ifdef __cplusplus
}
#endif

#endif
