/* Tensor dtypes (tensor.h): the eight supported DLDataTypes, their names and
 * sizes, a readable name for any other DLDataType (for messages), and the
 * IEEE binary16 conversions. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "irm/error.h"
#include "irm/tensor.h"
#include "tensor_internal.h"

typedef struct dtype_def {
  const char *name;
  DLDataType dtype;
} dtype_def;

/* In the order messages list them. */
static const dtype_def dtypes[] = {
    {"float32", {kDLFloat, 32, 1}}, {"float16", {kDLFloat, 16, 1}},    {"int32", {kDLInt, 32, 1}},
    {"int8", {kDLInt, 8, 1}},       {"uint8", {kDLUInt, 8, 1}},        {"float64", {kDLFloat, 64, 1}},
    {"int64", {kDLInt, 64, 1}},     {"bool", {IRM_DLPACK_BOOL, 8, 1}}, /* bool stays last: see irm_dtype_from_dlpack_ */
};
enum { dtype_count = sizeof dtypes / sizeof dtypes[0] };

#define DTYPE_LIST "float32, float16, int32, int8, uint8, float64, int64, bool"

static const dtype_def *find_dtype(DLDataType d) {
  for (int i = 0; i < dtype_count; i++)
    if (irm_dtype_equal(dtypes[i].dtype, d)) return &dtypes[i];
  return NULL;
}

int irm_dtype_parse(const char *name, DLDataType *out) {
  if (!name || !out) return irm_error(IRM_EVALUE, "irm_dtype_parse: %s must not be NULL", name ? "out" : "name");
  for (int i = 0; i < dtype_count; i++) {
    if (strcmp(name, dtypes[i].name) == 0) {
      *out = dtypes[i].dtype;
      return IRM_OK;
    }
  }
  return irm_dtype_unknown_error_("unknown dtype", name);
}

int irm_dtype_parse_n_(const char *name, size_t len, DLDataType *out) {
  if (name && strlen(name) != len)
    return irm_error(IRM_EVALUE, "unknown dtype '%s': the name holds a NUL byte at offset %zu", irm_error_quote(name),
                     strlen(name));
  return irm_dtype_parse(name, out);
}

int irm_dtype_unknown_error_(const char *what, const char *name) {
  const char *names[dtype_count];
  for (int i = 0; i < dtype_count; i++) names[i] = dtypes[i].name;
  const char *best = irm_closest_name(name, names, dtype_count);
  if (best)
    return irm_error(IRM_EVALUE, "%s '%s' (did you mean '%s'?); the dtypes are " DTYPE_LIST, what,
                     irm_error_quote(name), best);
  return irm_error(IRM_EVALUE, "%s '%s'; the dtypes are " DTYPE_LIST, what, irm_error_quote(name));
}

const char *irm_dtype_name(DLDataType dtype) {
  const dtype_def *d = find_dtype(dtype);
  return d ? d->name : NULL;
}

size_t irm_dtype_size(DLDataType dtype) {
  const dtype_def *d = find_dtype(dtype);
  return d ? d->dtype.bits / 8u : 0;
}

int irm_dtype_equal(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

/* DLPack before 0.8 had no bool code; TVM wrote bool as uint1, stored one
 * byte per element. Both mean our bool. */
int irm_dtype_from_dlpack_(DLDataType d, DLDataType *out) {
  if (d.code == kDLUInt && d.bits == 1 && d.lanes == 1) d = dtypes[dtype_count - 1].dtype;
  if (!find_dtype(d)) return 0;
  *out = d;
  return 1;
}

void irm_dtype_describe_(DLDataType d, char *buf, size_t size) {
  const dtype_def *known = find_dtype(d);
  if (known) {
    snprintf(buf, size, "%s", known->name);
    return;
  }
  static const char *const codes[] = {"int", "uint", "float", "handle", "bfloat", "complex", "bool"};
  char lanes[24] = "";
  if (d.lanes != 1) snprintf(lanes, sizeof lanes, "x%u", (unsigned)d.lanes);
  if (d.code < sizeof codes / sizeof codes[0]) snprintf(buf, size, "%s%u%s", codes[d.code], (unsigned)d.bits, lanes);
  else
    snprintf(buf, size, "type code %u, %u bits%s%s", (unsigned)d.code, (unsigned)d.bits, d.lanes != 1 ? ", lanes " : "",
             d.lanes != 1 ? lanes + 1 : "");
}

/* ---- binary16 ------------------------------------------------------------- */

float irm_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  float magnitude;
  if (exp == 0x1f) {
    uint32_t bits = sign | 0x7f800000u | (mant << 13); /* inf, or NaN keeping its payload */
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
  }
  if (exp == 0) magnitude = ldexpf((float)mant, -24); /* zero or subnormal, exact */
  else magnitude = ldexpf((float)(mant | 0x400u), (int)exp - 25);
  return sign ? -magnitude : magnitude;
}

/* Straight from double, so a float16 store rounds once: going through
 * float first would round twice and could miss the nearest value. */
uint16_t irm_f64_to_f16_(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
  uint64_t abs = b & UINT64_C(0x7fffffffffffffff);
  if (abs >= UINT64_C(0x7ff0000000000000)) {
    if (abs == UINT64_C(0x7ff0000000000000)) return sign | 0x7c00u;
    return (uint16_t)(sign | 0x7e00u | ((abs >> 42) & 0x1ffu)); /* quiet NaN, top payload bits */
  }
  int e = (int)(abs >> 52) - 1023;
  uint64_t mant = (abs & UINT64_C(0xfffffffffffff)) | (UINT64_C(1) << 52);
  if (e > 15) return sign | 0x7c00u;
  if (e < -25) return sign; /* below half the smallest subnormal */
  /* Normal results keep 10 of the 52 fraction bits; subnormal ones are
   * multiples of 2^-24, so the shift grows as e falls below -14. */
  int shift = e >= -14 ? 42 : 28 - e;
  uint64_t q = mant >> shift, rem = mant & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
  uint32_t h = e >= -14 ? ((uint32_t)(e + 15) << 10) | (uint32_t)(q & 0x3ffu) : (uint32_t)q;
  if (rem > half || (rem == half && (h & 1u))) h++; /* a carry moves into the exponent, up to inf */
  return (uint16_t)(sign | h);
}

uint16_t irm_f32_to_f16(float f) { return irm_f64_to_f16_((double)f); }
