/* Whether this CPU runs a library's code (irm_library.h): the features
 * its metadata lists, checked against the running CPU before anything of
 * the library is called. Stands alone (runtime/): no irm header. */
#include <stdio.h>
#include <string.h>
#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include "irm_library.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* Where CPUID reports each feature (leaf, subleaf, register, bit) and
 * which register state the OS must save for it (XCR0 bits: 0x6 SSE and
 * AVX, 0xe6 those and AVX-512's). Read directly, because compilers'
 * __builtin_cpu_supports know different subsets of these names. */
enum { EAX_, EBX_, ECX_, EDX_ };
typedef struct x86_bit_ {
  const char *name;
  unsigned leaf, subleaf, reg, bit, xcr0;
} x86_bit_;

static const x86_bit_ x86_bits_[] = {
    {"sse2", 1, 0, EDX_, 26, 0},          {"sse3", 1, 0, ECX_, 0, 0},         {"ssse3", 1, 0, ECX_, 9, 0},
    {"sse4.1", 1, 0, ECX_, 19, 0},        {"sse4.2", 1, 0, ECX_, 20, 0},      {"avx", 1, 0, ECX_, 28, 0x6},
    {"fma", 1, 0, ECX_, 12, 0x6},         {"f16c", 1, 0, ECX_, 29, 0x6},      {"avx2", 7, 0, EBX_, 5, 0x6},
    {"avx512f", 7, 0, EBX_, 16, 0xe6},    {"avx512dq", 7, 0, EBX_, 17, 0xe6}, {"avx512cd", 7, 0, EBX_, 28, 0xe6},
    {"avx512bw", 7, 0, EBX_, 30, 0xe6},   {"avx512vl", 7, 0, EBX_, 31, 0xe6}, {"avx512vnni", 7, 0, ECX_, 11, 0xe6},
    {"avx512fp16", 7, 0, EDX_, 23, 0xe6}, {"avxvnni", 7, 1, EAX_, 4, 0x6},    {"avx512bf16", 7, 1, EAX_, 5, 0xe6},
};

/* The register state the OS saves (XCR0), 0 without OSXSAVE. */
static unsigned os_saved_state(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return 0;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  (void)hi;
  return lo;
}

static int x86_has(const x86_bit_ *f) {
  unsigned r[4] = {0, 0, 0, 0};
  if ((unsigned)__get_cpuid_max(f->leaf & 0x80000000u, NULL) < f->leaf) return 0;
  __cpuid_count(f->leaf, f->subleaf, r[EAX_], r[EBX_], r[ECX_], r[EDX_]);
  if (!(r[f->reg] & (1u << f->bit))) return 0;
  return (os_saved_state() & f->xcr0) == f->xcr0;
}
#endif

/* 1 when this CPU has feature `name` (a length-delimited name), 0 when
 * not or when this runtime cannot tell. */
static int cpu_has(const char *name, size_t len) {
#if defined(__x86_64__) || defined(__i386__)
  for (size_t i = 0; i < sizeof x86_bits_ / sizeof x86_bits_[0]; i++)
    if (strlen(x86_bits_[i].name) == len && memcmp(name, x86_bits_[i].name, len) == 0) return x86_has(&x86_bits_[i]);
#elif defined(__aarch64__) && defined(__linux__)
#define IRM_IS_(n) (len == sizeof n - 1 && memcmp(name, n, len) == 0)
  unsigned long hw = getauxval(AT_HWCAP);
  if (IRM_IS_("neon")) return (hw & HWCAP_ASIMD) != 0;
  if (IRM_IS_("fp16")) return (hw & HWCAP_ASIMDHP) != 0;
  if (IRM_IS_("dotprod")) return (hw & HWCAP_ASIMDDP) != 0;
  if (IRM_IS_("sve")) return (hw & HWCAP_SVE) != 0;
#undef IRM_IS_
#endif
  (void)name;
  (void)len;
  return 0;
}

size_t irm_library_missing_features(const char *required, char *missing, size_t size) {
  size_t count = 0, at = 0;
  if (size) missing[0] = '\0';
  for (const char *s = required; s && *s;) {
    const char *end = strchr(s, ',');
    size_t len = end ? (size_t)(end - s) : strlen(s);
    if (len && !cpu_has(s, len)) {
      int wrote = snprintf(missing + at, at < size ? size - at : 0, "%s%.*s", count ? ", " : "", (int)len, s);
      at += wrote > 0 ? (size_t)wrote : 0;
      count++;
    }
    s = end ? end + 1 : s + len;
  }
  if (at >= size && size >= 4) strcpy(missing + size - 4, "...");
  return count;
}

int irm_library_metadata_features(const char *metadata, char *out, size_t size) {
  static const char key[] = "\"" IRM_LIBRARY_FEATURES_KEY "\"";
  if (!size) return IRM_LIBRARY_ENAME;
  out[0] = '\0';
  const char *k = metadata ? strstr(metadata, key) : NULL;
  if (!k) return IRM_LIBRARY_OK;
  const char *v = k + sizeof key - 1;
  while (*v == ' ' || *v == ':') v++;
  if (*v++ != '"') return IRM_LIBRARY_OK;
  size_t n = 0;
  while (v[n] && v[n] != '"') n++;
  if (n >= size) return IRM_LIBRARY_ENAME; /* a cut list would check fewer features than the code uses */
  memcpy(out, v, n);
  out[n] = '\0';
  return IRM_LIBRARY_OK;
}

int irm_library_check_cpu(const char *metadata, const char *mod_name, char *msg, size_t size) {
  char required[1024], missing[512];
  if (size) msg[0] = '\0';
  if (irm_library_metadata_features(metadata, required, sizeof required) != IRM_LIBRARY_OK) {
    snprintf(msg, size, "module '%s' lists more CPU features than can be checked", mod_name);
    return IRM_LIBRARY_ECPU;
  }
  if (!irm_library_missing_features(required, missing, sizeof missing)) return IRM_LIBRARY_OK;
  snprintf(msg, size,
           "module '%s' was built for CPU features this machine lacks: %s; build it for this machine "
           "(-mcpu=native) or for any CPU (-mcpu=generic)",
           mod_name, missing);
  return IRM_LIBRARY_ECPU;
}
