/* numpy's .npy and .npz files (npy.h): small on purpose. An .npy is a
 * magic string, a version, a Python-literal header dict ({'descr': '<f4',
 * 'fortran_order': False, 'shape': (2, 3), }) and the raw data; an .npz is
 * a zip of them, which numpy.savez stores uncompressed (zip64 headers
 * forced), so reading needs the central directory and no inflater. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

/* numpy's descr (after the byte order) <-> irm's dtype name. */
static const struct {
  const char *descr, *dtype;
} DESCRS[] = {{"f4", "float32"}, {"f2", "float16"}, {"f8", "float64"}, {"i1", "int8"},
              {"i4", "int32"},   {"i8", "int64"},   {"u1", "uint8"},   {"b1", "bool"}};
#define N_DESCRS (sizeof DESCRS / sizeof *DESCRS)

static int fail(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return -1;
}

static uint64_t rd(const unsigned char *p, int n) { /* little-endian, n bytes */
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static void wr(unsigned char *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++, v >>= 8) p[i] = (unsigned char)(v & 0xff);
}

/* ---- .npy ------------------------------------------------------------------------------ */

/* The text after 'key': in the header, or NULL. */
static const char *header_value(const char *h, const char *key) {
  char quoted[32];
  snprintf(quoted, sizeof quoted, "'%s'", key);
  const char *p = strstr(h, quoted);
  if (!p) return NULL;
  p += strlen(quoted);
  p += strspn(p, " ");
  if (*p != ':') return NULL;
  p++;
  return p + strspn(p, " ");
}

static int parse_shape(const char *p, npy_array *out, char *err, size_t cap) {
  if (!p || *p != '(') return fail(err, cap, "the header has no 'shape' tuple");
  p++;
  out->ndim = 0;
  for (;;) {
    p += strspn(p, " ,");
    if (*p == ')') return 0;
    char *end = NULL;
    long long d = strtoll(p, &end, 10);
    if (end == p || d < 0) return fail(err, cap, "the header's shape is not a tuple of sizes");
    if (out->ndim == 16) return fail(err, cap, "an array of more than 16 dimensions");
    out->shape[out->ndim++] = d;
    p = end;
    p += strspn(p, " ");
    if (*p != ',' && *p != ')') return fail(err, cap, "the header's shape is not a tuple of sizes");
  }
}

int npy_parse(const void *data, size_t size, npy_array *out, char *err, size_t cap) {
  const unsigned char *b = data;
  memset(out, 0, sizeof *out);
  if (size < 10 || memcmp(b, "\x93NUMPY", 6) != 0) return fail(err, cap, "not an .npy array (no \\x93NUMPY magic)");
  int major = b[6];
  size_t hlen_bytes = major == 1 ? 2 : 4, start = 8 + hlen_bytes;
  if (major < 1 || major > 3) return fail(err, cap, "an .npy format version %d.%d (irm reads 1 to 3)", major, b[7]);
  if (size < start) return fail(err, cap, "truncated .npy header");
  size_t hlen = (size_t)rd(b + 8, (int)hlen_bytes);
  if (hlen > size - start || hlen > 65536) return fail(err, cap, "truncated .npy header");
  char *h = malloc(hlen + 1);
  if (!h) return fail(err, cap, "out of memory");
  memcpy(h, b + start, hlen);
  h[hlen] = '\0';
  int rc = 0;
  const char *descr = header_value(h, "descr"), *order = header_value(h, "fortran_order");
  if (!descr || *descr != '\'' || strlen(descr) < 4) rc = fail(err, cap, "the header has no 'descr' string");
  if (!rc && (!order || strncmp(order, "False", 5) != 0))
    rc = fail(err, cap, "an array in Fortran order (write it C-contiguous: numpy.ascontiguousarray)");
  if (!rc) {
    char bo = descr[1];
    size_t i = 0;
    while (i < N_DESCRS && !(strncmp(descr + 2, DESCRS[i].descr, 2) == 0 && descr[4] == '\'')) i++;
    if (i == N_DESCRS) {
      const char *q = strchr(descr + 1, '\'');
      rc = fail(err, cap,
                "an array of numpy dtype '%.*s' (irm takes float32, float16, float64, int8, int32, int64, "
                "uint8, bool)",
                q ? (int)(q - descr - 1) : 8, descr + 1);
    } else if (bo == '>' && DESCRS[i].descr[1] != '1') {
      rc = fail(err, cap, "a big-endian array (write it little-endian: arr.astype('<%s'))", DESCRS[i].descr);
    } else {
      out->dtype = DESCRS[i].dtype;
    }
  }
  if (!rc) rc = parse_shape(header_value(h, "shape"), out, err, cap);
  free(h);
  if (rc) return rc;
  DLDataType dt;
  if (irm_dtype_parse(out->dtype, &dt)) return fail(err, cap, "%s", irm_last_error());
  uint64_t n = irm_dtype_size(dt);
  for (int32_t d = 0; d < out->ndim; d++) {
    if (out->shape[d] && n > UINT64_MAX / (uint64_t)out->shape[d]) return fail(err, cap, "an array too large");
    n *= (uint64_t)out->shape[d];
  }
  if (n != size - start - hlen)
    return fail(err, cap, "the data is %zu bytes; the shape and dtype make %llu", size - start - hlen,
                (unsigned long long)n);
  out->data = b + start + hlen;
  out->nbytes = (size_t)n;
  return 0;
}

int npy_format(const DLTensor *t, unsigned char **out, size_t *len) {
  const char *name = irm_dtype_name(t->dtype), *descr = NULL;
  for (size_t i = 0; i < N_DESCRS; i++)
    if (!strcmp(name, DESCRS[i].dtype)) descr = DESCRS[i].descr;
  if (!descr) return -1;
  char h[1024];
  int n =
      snprintf(h, sizeof h, "{'descr': '%c%s', 'fortran_order': False, 'shape': (", descr[1] == '1' ? '|' : '<', descr);
  for (int32_t d = 0; d < t->ndim && n < 900; d++)
    n += snprintf(h + n, sizeof h - (size_t)n, "%lld, ", (long long)t->shape[d]);
  if (t->ndim == 1) n -= 1; /* (3,) */
  else if (t->ndim > 1) n -= 2;
  n += snprintf(h + n, sizeof h - (size_t)n, "), }");
  /* 10 bytes before the header; the whole prefix a multiple of 64, ending in '\n'. */
  size_t prefix = ((size_t)n + 1 + 10 + 63) / 64 * 64, hlen = prefix - 10;
  int64_t numel = 1;
  for (int32_t d = 0; d < t->ndim; d++) numel *= t->shape[d];
  size_t bytes = (size_t)numel * irm_dtype_size(t->dtype);
  unsigned char *buf = malloc(prefix + bytes + 1);
  if (!buf) return -1;
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  wr(buf + 8, hlen, 2);
  memset(buf + 10, ' ', hlen);
  memcpy(buf + 10, h, (size_t)n);
  buf[prefix - 1] = '\n';
  if (bytes) memcpy(buf + prefix, (const char *)t->data + t->byte_offset, bytes);
  *out = buf;
  *len = prefix + bytes;
  return 0;
}

/* ---- .npz: zip ---------------------------------------------------------------------------- */

enum {
  LOCAL_SIG = 0x04034b50,
  CENTRAL_SIG = 0x02014b50,
  EOCD_SIG = 0x06054b50,
  Z64_LOC_SIG = 0x07064b50,
  Z64_EOCD_SIG = 0x06064b50
};

/* The zip64 extra field's values for the central entry's fields set to
 * 0xFFFFFFFF, in their order (uncompressed, compressed, offset). */
static void zip64_extra(const unsigned char *x, size_t len, uint64_t *usize, uint64_t *csize, uint64_t *offset) {
  while (len >= 4) {
    size_t id = (size_t)rd(x, 2), n = (size_t)rd(x + 2, 2);
    if (n > len - 4) return;
    if (id == 1) {
      const unsigned char *p = x + 4, *end = p + n;
      uint64_t *fields[] = {usize, csize, offset};
      for (int i = 0; i < 3; i++)
        if (*fields[i] == 0xFFFFFFFFu && p + 8 <= end) *fields[i] = rd(p, 8), p += 8;
      return;
    }
    x += 4 + n;
    len -= 4 + n;
  }
}

void zip_entries_free(zip_entry *entries, size_t n) {
  for (size_t i = 0; entries && i < n; i++) free(entries[i].name);
  free(entries);
}

int zip_read(const void *data, size_t size, zip_entry **entries, size_t *n_out, char *err, size_t cap) {
  const unsigned char *b = data;
  *entries = NULL;
  *n_out = 0;
  if (size < 22 || rd(b, 4) != LOCAL_SIG) return fail(err, cap, "not an .npz (zip) archive");
  size_t e = size - 22;
  while (e > 0 && rd(b + e, 4) != EOCD_SIG && size - e < 22 + 65535) e--;
  if (rd(b + e, 4) != EOCD_SIG) return fail(err, cap, "a truncated .npz (no zip end record)");
  uint64_t count = rd(b + e + 10, 2), cd = rd(b + e + 16, 4);
  if ((count == 0xFFFF || cd == 0xFFFFFFFFu) && e >= 20 && rd(b + e - 20, 4) == Z64_LOC_SIG) {
    uint64_t z = rd(b + e - 20 + 8, 8);
    if (z > size - 56 || rd(b + z, 4) != Z64_EOCD_SIG) return fail(err, cap, "a broken zip64 end record");
    count = rd(b + z + 32, 8);
    cd = rd(b + z + 48, 8);
  }
  if (cd > size || count > size / 46) return fail(err, cap, "a truncated .npz (the directory lies outside it)");
  zip_entry *out = calloc((size_t)count + 1, sizeof *out);
  if (!out) return fail(err, cap, "out of memory");
  size_t p = (size_t)cd;
  int rc = 0;
  for (uint64_t i = 0; !rc && i < count; i++) {
    if (p > size - 46 || rd(b + p, 4) != CENTRAL_SIG) {
      rc = fail(err, cap, "a broken .npz (bad directory entry %llu)", (unsigned long long)i);
      break;
    }
    size_t flags = (size_t)rd(b + p + 8, 2), method = (size_t)rd(b + p + 10, 2);
    uint64_t csize = rd(b + p + 20, 4), usize = rd(b + p + 24, 4), off = rd(b + p + 42, 4);
    size_t nlen = (size_t)rd(b + p + 28, 2), xlen = (size_t)rd(b + p + 30, 2), clen = (size_t)rd(b + p + 32, 2);
    if (nlen + xlen + clen > size - p - 46) {
      rc = fail(err, cap, "a broken .npz (a directory entry runs past the end)");
      break;
    }
    zip64_extra(b + p + 46 + nlen, xlen, &usize, &csize, &off);
    out[i].name = malloc(nlen + 1);
    if (!out[i].name) {
      rc = fail(err, cap, "out of memory");
      break;
    }
    memcpy(out[i].name, b + p + 46, nlen);
    out[i].name[nlen] = '\0';
    *n_out = (size_t)i + 1;
    if (method != 0)
      rc = fail(err, cap, "entry '%s' is compressed (numpy.savez_compressed); irm reads numpy.savez's stored entries",
                out[i].name);
    else if (flags & 1) rc = fail(err, cap, "entry '%s' is encrypted", out[i].name);
    else if (off > size - 30 || rd(b + off, 4) != LOCAL_SIG)
      rc = fail(err, cap, "a broken .npz (entry '%s' has no local header)", out[i].name);
    if (rc) break;
    uint64_t data_at = off + 30 + rd(b + off + 26, 2) + rd(b + off + 28, 2);
    if (csize != usize || data_at > size || usize > size - data_at)
      rc = fail(err, cap, "a truncated .npz (entry '%s' runs past the end)", out[i].name);
    else out[i].data = b + data_at, out[i].size = (size_t)usize;
    p += 46 + nlen + xlen + clen;
  }
  if (rc) {
    zip_entries_free(out, *n_out);
    *n_out = 0;
    return rc;
  }
  *entries = out;
  return 0;
}

static uint32_t crc32_of(const unsigned char *p, size_t n) {
  uint32_t table[256];
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

int zip_write(FILE *f, const char *const *names, const unsigned char *const *datas, const size_t *sizes, size_t n) {
  uint32_t *crcs = calloc(n + 1, sizeof *crcs);
  uint64_t *offsets = calloc(n + 1, sizeof *offsets), at = 0;
  if (!crcs || !offsets) {
    free(crcs);
    free(offsets);
    return -1;
  }
  int rc = 0;
  unsigned char h[46];
  for (size_t i = 0; !rc && i < n; i++) {
    size_t nlen = strlen(names[i]);
    if (sizes[i] >= 0xFFFFFFFFu || nlen > 0xFFFF || at >= 0xFFFFFFFFu) {
      rc = -1;
      break;
    }
    crcs[i] = crc32_of(datas[i], sizes[i]);
    offsets[i] = at;
    memset(h, 0, 30);
    wr(h, LOCAL_SIG, 4);
    wr(h + 4, 20, 2);    /* version needed: 2.0 */
    wr(h + 8, 0, 2);     /* stored */
    wr(h + 12, 0x21, 2); /* 1980-01-01: the files have no meaningful date */
    wr(h + 14, crcs[i], 4);
    wr(h + 18, sizes[i], 4);
    wr(h + 22, sizes[i], 4);
    wr(h + 26, nlen, 2);
    fwrite(h, 1, 30, f);
    fwrite(names[i], 1, nlen, f);
    fwrite(datas[i], 1, sizes[i], f);
    at += 30 + nlen + sizes[i];
  }
  uint64_t cd = at;
  for (size_t i = 0; !rc && i < n; i++) {
    size_t nlen = strlen(names[i]);
    memset(h, 0, 46);
    wr(h, CENTRAL_SIG, 4);
    wr(h + 4, 20, 2);
    wr(h + 6, 20, 2);
    wr(h + 14, 0x21, 2);
    wr(h + 16, crcs[i], 4);
    wr(h + 20, sizes[i], 4);
    wr(h + 24, sizes[i], 4);
    wr(h + 28, nlen, 2);
    wr(h + 42, offsets[i], 4);
    fwrite(h, 1, 46, f);
    fwrite(names[i], 1, nlen, f);
    at += 46 + nlen;
  }
  if (!rc && (n > 0xFFFF || at >= 0xFFFFFFFFu)) rc = -1;
  if (!rc) {
    memset(h, 0, 22);
    wr(h, EOCD_SIG, 4);
    wr(h + 8, n, 2);
    wr(h + 10, n, 2);
    wr(h + 12, at - cd, 4);
    wr(h + 16, cd, 4);
    fwrite(h, 1, 22, f);
  }
  free(crcs);
  free(offsets);
  return rc;
}
