/* The ffi.Tensor type and its hooks: fields {"dtype": str, "shape": Array
 * of int, "data": base64 of the bytes as they lie in memory} for JSON;
 * bitwise structural equality and hash; and the readable repr
 * "Tensor(float32, [2], [1.0, 2.5])" (values shown for 1 to 8 elements). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm/container.h"
#include "irm/error.h"
#include "tensor_internal.h"

#define TENSOR_KEY "ffi.Tensor"

/* At most this many elements are shown by repr. */
#define REPR_MAX_VALUES 8

/* ---- base64 (RFC 4648, with padding) ---------------------------------------- */

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Writes 4 * ceil(n / 3) characters to out. */
static void b64_encode(const unsigned char *in, size_t n, char *out) {
  size_t i = 0;
  for (; i + 3 <= n; i += 3, out += 4) {
    uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
    out[0] = b64_chars[v >> 18];
    out[1] = b64_chars[(v >> 12) & 63];
    out[2] = b64_chars[(v >> 6) & 63];
    out[3] = b64_chars[v & 63];
  }
  if (i < n) {
    uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
    out[0] = b64_chars[v >> 18];
    out[1] = b64_chars[(v >> 12) & 63];
    out[2] = i + 1 < n ? b64_chars[(v >> 6) & 63] : '=';
    out[3] = '=';
  }
}

static int b64_value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* The decoded size of len characters of padded base64, or an error naming
 * the first bad character. */
static int b64_decoded_size(const char *s, size_t len, size_t *out) {
  if (len % 4) return irm_error(IRM_EVALUE, "base64 text of %zu characters (not a multiple of 4)", len);
  size_t pad = len && s[len - 1] == '=' ? (len > 1 && s[len - 2] == '=' ? 2 : 1) : 0;
  for (size_t i = 0; i < len - pad; i++)
    if (b64_value((unsigned char)s[i]) < 0)
      return irm_error(IRM_EVALUE, "not base64: byte 0x%02x at offset %zu", (unsigned char)s[i], i);
  *out = len / 4 * 3 - pad;
  return IRM_OK;
}

/* Decodes text checked by b64_decoded_size into out. */
static void b64_decode(const char *s, size_t len, unsigned char *out, size_t n) {
  size_t o = 0;
  for (size_t i = 0; i < len && o < n; i += 4) {
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) v = v << 6 | (s[i + k] == '=' ? 0u : (uint32_t)b64_value((unsigned char)s[i + k]));
    for (int k = 2; k >= 0 && o < n; k--) out[o++] = (unsigned char)(v >> (8 * k));
  }
}

/* ---- fields ------------------------------------------------------------------- */

static int tensor_to_fields(const irm_object *self, irm_object **out) {
  const tensor_payload *p = irm_tensor_payload_(self);
  irm_any dims[IRM_TENSOR_MAX_NDIM];
  for (int32_t i = 0; i < p->dl.ndim; i++) dims[i] = irm_any_int(p->shape[i]);
  size_t text_len = (p->nbytes + 2) / 3 * 4;
  char *text = irm_malloc(text_len + 1);
  if (!text) return irm_error_nomem_("encoding tensor data");
  b64_encode(p->dl.data, p->nbytes, text);
  irm_object *shape = NULL, *data = NULL;
  int rc = irm_array_new(dims, (size_t)p->dl.ndim, &shape);
  if (!rc) rc = irm_string_new(text, text_len, &data);
  irm_free(text);
  if (!rc) {
    const char *keys[] = {"dtype", "shape", "data"};
    irm_any values[] = {irm_any_str(irm_dtype_name(p->dl.dtype)), irm_any_object(shape), irm_any_object(data)};
    rc = irm_map_from_pairs(keys, values, 3, out);
  }
  irm_object_release(shape);
  irm_object_release(data);
  return rc;
}

static int field_error(int rc, const char *field) {
  return irm_error_context(rc, "field '%s' of %s", field, TENSOR_KEY);
}

static int check_field_names(const irm_object *fields) {
  static const char *const known[] = {"dtype", "shape", "data"};
  irm_map_iter it = irm_map_iter_begin(fields);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value)) {
    const char *name = irm_string_data(key);
    if (strcmp(name, known[0]) && strcmp(name, known[1]) && strcmp(name, known[2])) {
      const char *best = irm_closest_name(name, known, 3);
      return irm_error(IRM_EVALUE, "%s has no field '%s'%s%s%s (its fields: dtype, shape, data)", TENSOR_KEY,
                       irm_error_quote(name), best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
    }
  }
  for (int i = 0; i < 3; i++)
    if (!irm_map_find_cstr(fields, known[i]))
      return irm_error(IRM_EVALUE, "%s needs the fields dtype, shape and data; field '%s' is missing", TENSOR_KEY,
                       known[i]);
  return IRM_OK;
}

/* "shape": an Array of at most IRM_TENSOR_MAX_NDIM ints. */
static int shape_field(const irm_any *v, int64_t *shape, int32_t *ndim) {
  irm_object *arr = NULL;
  int rc = irm_any_to_object(v, "ffi.Array", &arr);
  if (rc) return field_error(rc, "shape");
  size_t n = irm_array_size(arr);
  if (n > IRM_TENSOR_MAX_NDIM)
    return field_error(irm_error(IRM_EVALUE, "%zu dimensions; a tensor has 0 to %d", n, IRM_TENSOR_MAX_NDIM), "shape");
  for (size_t i = 0; i < n; i++) {
    const irm_any *item = irm_array_at(arr, i);
    if (item->type_code != IRM_INT)
      return field_error(irm_error(IRM_ETYPE, "item %zu: expected int, got %s", i, irm_any_type_name(item)), "shape");
    shape[i] = item->v_int;
  }
  *ndim = (int32_t)n;
  return IRM_OK;
}

static int tensor_from_fields(const irm_object *fields, irm_object **out) {
  int rc = check_field_names(fields);
  if (rc) return rc;
  const char *dtype_name = NULL, *text = NULL;
  size_t text_len = 0, decoded = 0;
  DLDataType dtype;
  int64_t shape[IRM_TENSOR_MAX_NDIM];
  int32_t ndim = 0;
  size_t name_len = 0;
  if ((rc = irm_any_to_str(irm_map_find_cstr(fields, "dtype"), &dtype_name, &name_len)))
    return field_error(rc, "dtype");
  if ((rc = irm_dtype_parse_n_(dtype_name, name_len, &dtype))) return field_error(rc, "dtype");
  if ((rc = shape_field(irm_map_find_cstr(fields, "shape"), shape, &ndim))) return rc;
  const irm_any *data = irm_map_find_cstr(fields, "data");
  if (data->type_code != IRM_OBJECT || irm_object_type_index(data->v_obj) != IRM_TYPE_STRING)
    return field_error(irm_error(IRM_ETYPE, "expected base64 text (ffi.String), got %s", irm_any_type_name(data)),
                       "data");
  text = irm_string_data(data->v_obj);
  text_len = irm_string_size(data->v_obj);
  if ((rc = b64_decoded_size(text, text_len, &decoded))) return field_error(rc, "data");
  int64_t numel = 0;
  size_t nbytes = 0;
  if ((rc = irm_tensor_check_shape_("tensor shape", shape, ndim, irm_dtype_size(dtype), &numel, &nbytes)))
    return field_error(rc, "shape");
  if (decoded != nbytes)
    return field_error(
        irm_error(IRM_EVALUE, "holds %zu bytes; dtype %s and this shape need %zu", decoded, dtype_name, nbytes),
        "data");
  irm_tensor *t = NULL;
  if ((rc = irm_tensor_new(dtype, shape, ndim, NULL, &t))) return rc;
  /* Nobody else has seen t yet: filling it in is still making it. */
  b64_decode(text, text_len, irm_tensor_data(t), nbytes);
  *out = t;
  return IRM_OK;
}

/* ---- equality and hash ---------------------------------------------------------- */

/* Same dtype, shape and bytes: +0.0 and -0.0 differ, a NaN equals the
 * same NaN, as the bytes say. */
static int tensor_equal(const irm_object *a, const irm_object *b, int *out_equal) {
  const tensor_payload *x = irm_tensor_payload_(a), *y = irm_tensor_payload_(b);
  *out_equal = x && y && irm_dtype_equal(x->dl.dtype, y->dl.dtype) && x->dl.ndim == y->dl.ndim &&
               memcmp(x->shape, y->shape, (size_t)x->dl.ndim * sizeof(int64_t)) == 0 &&
               (x->nbytes == 0 || memcmp(x->dl.data, y->dl.data, x->nbytes) == 0);
  return IRM_OK;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
  h *= UINT64_C(0xbf58476d1ce4e5b9);
  return h ^ (h >> 31);
}

static int tensor_hash(const irm_object *self, uint64_t *out_hash) {
  const tensor_payload *p = irm_tensor_payload_(self);
  uint64_t h = mix(0, (uint64_t)p->dl.dtype.code << 24 | (uint64_t)p->dl.dtype.bits << 16 | p->dl.dtype.lanes);
  h = mix(h, (uint64_t)p->dl.ndim);
  for (int32_t i = 0; i < p->dl.ndim; i++) h = mix(h, (uint64_t)p->shape[i]);
  const unsigned char *bytes = p->dl.data;
  size_t i = 0;
  for (; i + 8 <= p->nbytes; i += 8) {
    uint64_t w;
    memcpy(&w, bytes + i, sizeof w);
    h = mix(h, w);
  }
  uint64_t tail = 0;
  if (i < p->nbytes) memcpy(&tail, bytes + i, p->nbytes - i);
  *out_hash = mix(h, tail ^ (uint64_t)p->nbytes);
  return IRM_OK;
}

/* ---- repr ------------------------------------------------------------------------ */

/* Integers below 2^24 (every integral float16) exactly, else the
 * shortest %g that reads back as the same float32 or float16; a float
 * always looks like one ("2.0"). */
static void put_float(irm_text_buf *b, double x, int is_half) {
  if (isnan(x) || isinf(x)) {
    irm_text_buf_puts_(b, isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
    return;
  }
  char buf[48];
  if (x == trunc(x) && fabs(x) < 16777216.0) {
    irm_text_buf_printf_(b, "%.0f.0", x);
    return;
  }
  for (int prec = 1; prec <= (is_half ? 5 : 9); prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, x);
    double back = strtod(buf, NULL); /* same locale as snprintf */
    if (is_half ? irm_f64_to_f16_(back) == irm_f64_to_f16_(x) : (float)back == (float)x) break;
  }
  for (char *c = buf; *c; c++)
    if (*c == ',') *c = '.'; /* a locale's decimal comma */
  if (strspn(buf, "-0123456789") == strlen(buf)) strcat(buf, ".0");
  irm_text_buf_puts_(b, buf);
}

static void put_value(irm_text_buf *b, const irm_tensor *t, DLDataType d, int64_t i) {
  double x = irm_tensor_get_f64(t, i);
  if (d.code == kDLFloat) put_float(b, x, d.bits == 16);
  else if (d.code == IRM_DLPACK_BOOL) irm_text_buf_puts_(b, x != 0 ? "true" : "false");
  else irm_text_buf_printf_(b, "%lld", (long long)x);
}

/* The values nested as the shape says, "[[1, 2], [3, 4]]"; a scalar's
 * value alone. Walks a multi-index: brackets open where the inner indices
 * start at 0 and close where they reach their end. */
static void put_values(irm_text_buf *b, const irm_tensor *t, const tensor_payload *p) {
  int64_t idx[IRM_TENSOR_MAX_NDIM] = {0};
  int32_t nd = p->dl.ndim;
  for (int64_t k = 0; k < p->numel; k++) {
    if (k) irm_text_buf_puts_(b, ", ");
    for (int32_t d = nd - 1; d >= 0 && idx[d] == 0; d--) irm_text_buf_putc_(b, '[');
    put_value(b, t, p->dl.dtype, k);
    for (int32_t d = nd - 1; d >= 0 && idx[d] == p->shape[d] - 1; d--) irm_text_buf_putc_(b, ']');
    for (int32_t d = nd - 1; d >= 0; d--) {
      if (++idx[d] < p->shape[d]) break;
      idx[d] = 0;
    }
  }
}

static int tensor_repr(const irm_object *self, irm_object **out) {
  const tensor_payload *p = irm_tensor_payload_(self);
  char storage[256];
  irm_text_buf b;
  irm_text_buf_init_(&b, storage, sizeof storage);
  irm_text_buf_printf_(&b, "Tensor(%s, [", irm_dtype_name(p->dl.dtype));
  for (int32_t i = 0; i < p->dl.ndim; i++) irm_text_buf_printf_(&b, "%s%lld", i ? ", " : "", (long long)p->shape[i]);
  irm_text_buf_putc_(&b, ']');
  if (p->numel > 0 && p->numel <= REPR_MAX_VALUES) {
    irm_text_buf_puts_(&b, ", ");
    put_values(&b, self, p);
  }
  irm_text_buf_putc_(&b, ')');
  return irm_text_buf_take_string_(&b, "printing a tensor", out);
}

int irm_register_tensor_type_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = TENSOR_KEY,
                                                .finalize = irm_tensor_finalize_,
                                                .to_fields = tensor_to_fields,
                                                .from_fields = tensor_from_fields,
                                                .equal = tensor_equal,
                                                .hash = tensor_hash,
                                                .repr = tensor_repr},
                               &irm_tensor_type_);
}
