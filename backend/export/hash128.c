/* A fast 128-bit hash of bytes (export_internal.h), for what the build
 * cache reads and writes in bulk: the integrity check of an entry's
 * payload and the digest of large artifacts (a params file of tens of MB)
 * inside a library's key. It guards against accidents (a corrupt file,
 * two different weight files), not against an adversary; SHA-256 keys
 * everything else. Two lanes of 64-bit multiply-rotate mixing over 16-byte
 * blocks, folded with the length at the end: several GB/s where SHA-256
 * in C gives about 200 MB/s. */
#include <string.h>

#include "export_internal.h"

#define K1_ 0x9E3779B185EBCA87ULL
#define K2_ 0xC2B2AE3D27D4EB4FULL
#define K3_ 0x165667B19E3779F9ULL

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t mix(uint64_t acc, uint64_t w) {
  acc ^= w * K2_;
  acc = rotl(acc, 31) * K1_;
  return acc;
}

static uint64_t avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= K2_;
  h ^= h >> 29;
  h *= K3_;
  h ^= h >> 32;
  return h;
}

void irm_hash128_init_(irm_hash128_ *h, uint64_t n) {
  h->a = K3_ ^ n;
  h->b = K1_ + n;
}

/* The whole 16-byte blocks of len bytes; the rest is for the final call. */
static size_t blocks(irm_hash128_ *h, const unsigned char *p, size_t len) {
  uint64_t a = h->a, b = h->b, w0, w1;
  size_t i = 0;
  for (; i + 16 <= len; i += 16) {
    memcpy(&w0, p + i, 8);
    memcpy(&w1, p + i + 8, 8);
    a = mix(a, w0);
    b = mix(b, w1);
  }
  h->a = a;
  h->b = b;
  return i;
}

void irm_hash128_update_(irm_hash128_ *h, const void *data, size_t len) { blocks(h, data, len); }

void irm_hash128_final_(irm_hash128_ *h, const void *rest, size_t len, char out[33]) {
  const unsigned char *p = rest;
  size_t i = blocks(h, p, len);
  uint64_t a = h->a, b = h->b, w0, w1;
  unsigned char tail[16] = {0};
  memcpy(tail, p + i, len - i);
  memcpy(&w0, tail, 8);
  memcpy(&w1, tail + 8, 8);
  a = mix(a, w0 ^ (uint64_t)(len - i));
  b = mix(b, w1);
  uint64_t h0 = avalanche(a + rotl(b, 17)), h1 = avalanche(b ^ rotl(a, 43) ^ h0);
  static const char hex[] = "0123456789abcdef";
  for (int k = 0; k < 16; k++) {
    unsigned char byte = (unsigned char)((k < 8 ? h0 : h1) >> (56 - 8 * (k % 8)));
    out[2 * k] = hex[byte >> 4];
    out[2 * k + 1] = hex[byte & 15];
  }
  out[32] = '\0';
}

void irm_hash128_hex_(const void *data, size_t n, char out[33]) {
  irm_hash128_ h;
  irm_hash128_init_(&h, n);
  irm_hash128_final_(&h, data, n, out);
}
