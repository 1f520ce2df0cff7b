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

/* 1 when this CPU has feature `name` (a length-delimited name), 0 when
 * not or when this runtime cannot tell. */
static int cpu_has(const char *name, size_t len) {
#define IRM_IS_(n) (len == sizeof n - 1 && memcmp(name, n, len) == 0)
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  __builtin_cpu_init();
#define IRM_CHECK_X86_(n, macro) \
  if (IRM_IS_(n)) return __builtin_cpu_supports(n) != 0;
  IRM_LIBRARY_X86_FEATURES(IRM_CHECK_X86_)
#undef IRM_CHECK_X86_
#elif defined(__aarch64__) && defined(__linux__)
  unsigned long hw = getauxval(AT_HWCAP);
  if (IRM_IS_("neon")) return (hw & HWCAP_ASIMD) != 0;
  if (IRM_IS_("fp16")) return (hw & HWCAP_ASIMDHP) != 0;
  if (IRM_IS_("dotprod")) return (hw & HWCAP_ASIMDDP) != 0;
  if (IRM_IS_("sve")) return (hw & HWCAP_SVE) != 0;
#endif
#undef IRM_IS_
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
