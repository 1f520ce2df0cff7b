/* The C compiler's view of a target (backend_internal.h): the CPU features
 * the code may use, read from the macros cc defines under the target's
 * flags, and -mcpu=native resolved to the build machine's CPU name plus
 * the features native adds to it, so the module records what it was
 * built for. The same cc compiles the library (export.c), so both agree. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "export_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/target.h"
#include "irm_library.h"

typedef struct feature_ {
  const char *name, *macro;
} feature_;

#define IRM_FEATURE_ROW_(n, m) {n, m},
static const feature_ features_[] = {IRM_LIBRARY_X86_FEATURES(IRM_FEATURE_ROW_)
                                         IRM_LIBRARY_ARM_FEATURES(IRM_FEATURE_ROW_)};
#undef IRM_FEATURE_ROW_
#define N_FEATURES_ (sizeof features_ / sizeof features_[0])

/* Nonzero when the comma-separated list has name. */
static int csv_has(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *s = list; *s;) {
    size_t len = strcspn(s, ",");
    if (len == n && strncmp(s, name, n) == 0) return 1;
    s += len + (s[len] == ',');
  }
  return 0;
}

int irm_cc_host_arch_(const char *triple) {
#if defined(__x86_64__)
  return strncmp(triple, "x86_64", 6) == 0 || strncmp(triple, "amd64", 5) == 0;
#elif defined(__aarch64__)
  return strncmp(triple, "aarch64", 7) == 0 || strncmp(triple, "arm64", 5) == 0;
#else
  (void)triple;
  return 1;
#endif
}

int irm_cc_foreign_triple_(const irm_object *target, char *triple, size_t size) {
  irm_any v = irm_any_none();
  const char *t = NULL;
  int foreign = target && irm_target_get_attr(target, "mtriple", &v) == IRM_OK && v.type_code != IRM_NONE &&
                !irm_any_to_str(&v, &t, NULL) && !irm_cc_host_arch_(t);
  if (foreign && snprintf(triple, size, "%s", t) >= (int)size) triple[size - 1] = '\0';
  irm_any_release(&v);
  irm_clear_error();
  return foreign;
}

int irm_cc_arm_arch_(const char *triple) {
  if (!triple) {
#if defined(__aarch64__) || defined(__arm__)
    return 1;
#else
    return 0;
#endif
  }
  return strncmp(triple, "aarch64", 7) == 0 || strncmp(triple, "arm", 3) == 0;
}

/* The file a command's first word runs, found as sh would; 0 when none. */
static int on_path(const char *cmd) {
  char path[4096];
  cmd += strspn(cmd, " \t");
  size_t n = strcspn(cmd, " \t");
  if (memchr(cmd, '/', n))
    return snprintf(path, sizeof path, "%.*s", (int)n, cmd) < (int)sizeof path && access(path, X_OK) == 0;
  const char *dirs = getenv("PATH");
  for (const char *d = dirs ? dirs : "/usr/bin:/bin"; *d;) {
    size_t len = strcspn(d, ":");
    if (snprintf(path, sizeof path, "%.*s/%.*s", (int)len, len ? d : ".", (int)n, cmd) < (int)sizeof path &&
        access(path, X_OK) == 0)
      return 1;
    d += len + (d[len] == ':');
  }
  return 0;
}

int irm_cc_for_target_(const irm_object *target, const char *given, char *out, size_t size) {
  char triple[128];
  if (given && given[strspn(given, " \t")]) {
    if (snprintf(out, size, "%s", given) >= (int)size)
      return irm_error(IRM_EVALUE, "export_library: the compiler command is longer than %zu bytes", size - 1);
    return IRM_OK;
  }
  if (!irm_cc_foreign_triple_(target, triple, sizeof triple)) {
    snprintf(out, size, "%s", irm_cc_command_());
    return IRM_OK;
  }
  /* the triple goes into a shell command: a name, nothing the shell reads */
  if (!triple[0] ||
      strspn(triple, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != strlen(triple))
    return irm_error(IRM_EVALUE, "export_library: -mtriple='%s' is no target triple (letters, digits, '_', '.', '-')",
                     triple);
  snprintf(out, size, "%s-gcc", triple);
  if (!on_path(out))
    return irm_error(IRM_EVALUE,
                     "export_library: the target has -mtriple=%s, another architecture, and its cross compiler "
                     "'%s' is not installed: install it (Debian: apt-get install gcc-%s) or name one "
                     "(irm build --cross-compiler CC; Python export_library(path, cc=CC))",
                     triple, out, triple);
  return IRM_OK;
}

int irm_cc_run_(const char *who, const char *cmd, irm_text_buf *out) {
  FILE *p = popen(cmd, "r");
  if (!p) return irm_error(IRM_ERUNTIME, "%s: cannot run the compiler: %s", who, strerror(errno));
  irm_text_buf mine;
  irm_text_buf_init_(&mine, NULL, 0);
  irm_text_buf *o = out ? out : &mine;
  char chunk[1024];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
    if (o->len < 64000) irm_text_buf_append_(o, chunk, n);
  int status = pclose(p);
  int rc = IRM_OK;
  if (status != 0)
    rc = irm_error(IRM_ERUNTIME, "%s: the compiler failed (exit status %d)\ncommand: %s\n%s", who,
                   WIFEXITED(status) ? WEXITSTATUS(status) : status, cmd, irm_text_buf_cstr_(o));
  irm_text_buf_free_(&mine);
  return rc;
}

/* The macros cc defines under flags, as text ("#define __AVX2__ 1" lines). */
static int cc_macros(const char *cc, const char *flags, irm_text_buf *out) {
  irm_text_buf cmd;
  irm_text_buf_init_(&cmd, NULL, 0);
  irm_text_buf_printf_(&cmd, "%s%s -dM -E -x c /dev/null 2>&1", cc, flags);
  int rc = cmd.failed ? irm_error(IRM_ENOMEM, "target features: out of memory")
                      : irm_cc_run_("target features", irm_text_buf_cstr_(&cmd), out);
  irm_text_buf_free_(&cmd);
  return rc;
}

static int defines(const char *macros, const char *macro) {
  size_t n = strlen(macro);
  for (const char *s = macros; (s = strstr(s, "#define ")); s += 8)
    if (strncmp(s + 8, macro, n) == 0 && (s[8 + n] == ' ' || s[8 + n] == '\n')) return 1;
  return 0;
}

static void isa_from_macros(const char *macros, irm_cc_isa_ *isa) {
  size_t at = 0;
  memset(isa, 0, sizeof *isa);
  for (size_t i = 0; i < N_FEATURES_; i++) {
    if (!defines(macros, features_[i].macro)) continue;
    int wrote = snprintf(isa->features + at, sizeof isa->features - at, "%s%s", at ? "," : "", features_[i].name);
    if (wrote > 0 && (size_t)wrote < sizeof isa->features - at) at += (size_t)wrote;
  }
  isa->vector_bits = defines(macros, "__AVX512F__")                                 ? 512
                     : defines(macros, "__AVX__")                                   ? 256
                     : defines(macros, "__SSE2__") || defines(macros, "__ARM_NEON") ? 128
                                                                                    : 0;
  /* irm_kernel_vec.h's choice: AVX without FMA keeps 4-lane SSE kernels */
  isa->kernel_block = defines(macros, "__AVX512F__")                              ? 16
                      : defines(macros, "__AVX2__") && defines(macros, "__FMA__") ? 8
                                                                                  : 4;
  /* irm_kernel_vec.h's order: recorded so a build says which path its kernels take */
  snprintf(isa->kernel_isa, sizeof isa->kernel_isa, "%s",
           defines(macros, "__AVX512F__")                              ? "avx512"
           : defines(macros, "__AVX2__") && defines(macros, "__FMA__") ? "avx2"
           : defines(macros, "__SSE2__")                               ? "sse2"
           : defines(macros, "__ARM_NEON")                             ? "neon"
                                                                       : "scalar");
}

/* The key of a compiler answer remembered across processes (cc_memo.c):
 * the compiler's identity, what was asked and, for native, this machine's
 * CPU. 0 when it cannot be told (no identity, /proc/cpuinfo unreadable):
 * then nothing is remembered. */
static int persistent_key(const char *cc, const char *asked, int cpu, irm_text_buf *key) {
  int ok = irm_cc_identity_(cc, key) == IRM_OK;
  irm_clear_error();
  irm_text_buf_printf_(key, "\n--\n%s\n--\n", asked);
  if (ok && cpu) ok = irm_cc_cpu_identity_(key);
  return ok && !key->failed;
}

/* Stores only the #define lines isa_from_macros reads: a few hundred
 * bytes, not cc's whole list. */
static void remember_macros(const char *key, const char *macros) {
  static const char *const extra[] = {"__AVX512F__", "__AVX__", "__AVX2__", "__FMA__", "__SSE2__", "__ARM_NEON"};
  irm_text_buf kept;
  irm_text_buf_init_(&kept, NULL, 0);
  for (size_t i = 0; i < N_FEATURES_ + sizeof extra / sizeof extra[0]; i++) {
    const char *m = i < N_FEATURES_ ? features_[i].macro : extra[i - N_FEATURES_];
    if (defines(macros, m)) irm_text_buf_printf_(&kept, "#define %s 1\n", m);
  }
  if (!kept.failed) irm_cc_memo_put_("cc -dM -E", key, irm_text_buf_cstr_(&kept));
  irm_text_buf_free_(&kept);
}

/* The last few flag strings asked about: a build asks for the same target
 * several times, and cc takes some milliseconds. */
enum { CACHE_N_ = 8 };
static struct {
  char flags[512];
  irm_cc_isa_ isa;
} cache_[CACHE_N_];
static size_t cache_next_;
static pthread_mutex_t cache_lock_ = PTHREAD_MUTEX_INITIALIZER;

static int isa_for_flags(const char *cc, const char *flags, irm_cc_isa_ *out) {
  char key[sizeof cache_[0].flags]; /* the compiler and the flags: a cross compiler answers differently */
  int cacheable = snprintf(key, sizeof key, "%s\n%s", cc, flags) < (int)sizeof key - 1;
  pthread_mutex_lock(&cache_lock_);
  for (size_t i = 0; cacheable && i < CACHE_N_; i++)
    if (cache_[i].flags[0] && strcmp(cache_[i].flags + 1, key) == 0) {
      *out = cache_[i].isa;
      pthread_mutex_unlock(&cache_lock_);
      return IRM_OK;
    }
  pthread_mutex_unlock(&cache_lock_);
  irm_text_buf macros, memo_key;
  irm_text_buf_init_(&macros, NULL, 0);
  irm_text_buf_init_(&memo_key, NULL, 0);
  int remember = persistent_key(cc, flags, strstr(flags, "native") != NULL, &memo_key);
  int rc = IRM_OK;
  if (!remember || !irm_cc_memo_get_("cc -dM -E", irm_text_buf_cstr_(&memo_key), &macros)) {
    irm_text_buf_free_(&macros);
    irm_text_buf_init_(&macros, NULL, 0);
    rc = cc_macros(cc, flags, &macros);
    if (!rc && remember) remember_macros(irm_text_buf_cstr_(&memo_key), irm_text_buf_cstr_(&macros));
  }
  if (!rc) isa_from_macros(irm_text_buf_cstr_(&macros), out);
  irm_text_buf_free_(&macros);
  irm_text_buf_free_(&memo_key);
  if (!rc && cacheable) {
    pthread_mutex_lock(&cache_lock_);
    size_t i = cache_next_++ % CACHE_N_;
    cache_[i].flags[0] = '='; /* marks the slot used */
    strcpy(cache_[i].flags + 1, key);
    cache_[i].isa = *out;
    pthread_mutex_unlock(&cache_lock_);
  }
  return rc;
}

int irm_cc_target_isa_(const irm_object *target, irm_cc_isa_ *out) {
  memset(out, 0, sizeof *out);
  char cc[1024];
  if (irm_cc_for_target_(target, NULL, cc, sizeof cc)) {
    /* another architecture without its cross compiler: this host's cc cannot tell; its kernels
       (NEON, plain loops) take 4 lanes. Exporting names the missing compiler. */
    irm_clear_error();
    out->kernel_block = 4;
    return IRM_OK;
  }
  irm_text_buf flags, libs;
  irm_text_buf_init_(&flags, NULL, 0);
  irm_text_buf_init_(&libs, NULL, 0);
  int rc = irm_export_target_flags_(target, &flags, &libs);
  if (!rc && flags.failed) rc = irm_error(IRM_ENOMEM, "target features: out of memory");
  if (!rc) rc = isa_for_flags(cc, irm_text_buf_cstr_(&flags), out);
  irm_text_buf_free_(&flags);
  irm_text_buf_free_(&libs);
  return rc;
}

/* ---- -mcpu=native ------------------------------------------------------------------ */

#if defined(__x86_64__) || defined(__i386__)
#define CPU_FLAG_ "-march="
#else
#define CPU_FLAG_ "-mcpu="
#endif

/* The last answer, for the compiler of that identity: every build of a
 * -mcpu=native target asks, and a compiler run is most of a rebuild's
 * wall time once its library comes from the cache. */
static struct {
  char *identity;
  char name[128];
} native_memo_;
static pthread_mutex_t native_lock_ = PTHREAD_MUTEX_INITIALIZER;

static int native_cpu_name_uncached(char *name, size_t size);

/* The CPU name cc resolves native to ("znver3"); "" when it does not say.
 * Remembered per compiler identity (irm_cc_identity_: its path, times,
 * size and --version) in the process, and with this machine's CPU across
 * processes (cc_memo.c), so a changed CC, compiler or CPU asks again. */
static int native_cpu_name(char *name, size_t size) {
  irm_text_buf id, stored;
  irm_text_buf_init_(&id, NULL, 0);
  irm_text_buf_init_(&stored, NULL, 0);
  int rc = irm_cc_identity_(irm_cc_command_(), &id);
  if (rc || id.failed) {
    irm_text_buf_free_(&id);
    irm_clear_error();
    return native_cpu_name_uncached(name, size);
  }
  pthread_mutex_lock(&native_lock_);
  int hit = native_memo_.identity && strcmp(native_memo_.identity, irm_text_buf_cstr_(&id)) == 0 &&
            strlen(native_memo_.name) < size;
  if (hit) strcpy(name, native_memo_.name);
  pthread_mutex_unlock(&native_lock_);
  irm_text_buf key;
  irm_text_buf_init_(&key, NULL, 0);
  int remember = !hit && persistent_key(irm_cc_command_(), CPU_FLAG_ "native -Q --help=target", 1, &key);
  if (!hit && remember && irm_cc_memo_get_("cc -mcpu=native", irm_text_buf_cstr_(&key), &stored) && stored.len < size &&
      stored.len && irm_text_buf_cstr_(&stored)[stored.len - 1] == '\n' &&
      strcspn(irm_text_buf_cstr_(&stored), " \t\n") == stored.len - 1) {
    memcpy(name, irm_text_buf_cstr_(&stored), stored.len - 1); /* "name\n", or "\n" when cc names none */
    name[stored.len - 1] = '\0';
  } else if (!hit && !(rc = native_cpu_name_uncached(name, size)) && remember) {
    char line[160];
    if (snprintf(line, sizeof line, "%s\n", name) < (int)sizeof line)
      irm_cc_memo_put_("cc -mcpu=native", irm_text_buf_cstr_(&key), line);
  }
  if (!hit && !rc) {
    char *copy = irm_strdup(irm_text_buf_cstr_(&id));
    pthread_mutex_lock(&native_lock_);
    if (copy && strlen(name) < sizeof native_memo_.name) {
      irm_free(native_memo_.identity);
      native_memo_.identity = copy;
      copy = NULL;
      strcpy(native_memo_.name, name);
    }
    pthread_mutex_unlock(&native_lock_);
    irm_free(copy);
  }
  irm_text_buf_free_(&key);
  irm_text_buf_free_(&stored);
  irm_text_buf_free_(&id);
  return rc;
}

static int native_cpu_name_uncached(char *name, size_t size) {
  irm_text_buf out;
  irm_text_buf_init_(&out, NULL, 0);
  irm_text_buf cmd;
  irm_text_buf_init_(&cmd, NULL, 0);
  irm_text_buf_printf_(&cmd, "%s " CPU_FLAG_ "native -Q --help=target 2>&1", irm_cc_command_());
  int rc = cmd.failed ? irm_error(IRM_ENOMEM, "-mcpu=native: out of memory")
                      : irm_cc_run_("-mcpu=native", irm_text_buf_cstr_(&cmd), &out);
  irm_text_buf_free_(&cmd);
  name[0] = '\0';
  const char *s = rc ? NULL : strstr(irm_text_buf_cstr_(&out), "  " CPU_FLAG_);
  if (s) {
    s += 2 + strlen(CPU_FLAG_);
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strcspn(s, " \t\n");
    if (n && n < size && strncmp(s, "native", n) != 0) {
      memcpy(name, s, n);
      name[n] = '\0';
    }
  }
  irm_text_buf_free_(&out);
  return rc;
}

/* mattr for the difference between two feature lists: +f for each of
 * `want` not in `have`, -f for each of `have` not in `want`; then the
 * target's own mattr (`given`, an Array or NULL), which cc reads last. */
static int feature_diff(const char *want, const char *have, const irm_object *given, irm_object **mattr) {
  size_t n_given = given ? irm_array_size(given) : 0;
  irm_any *items = irm_calloc(N_FEATURES_ + n_given + 1, sizeof *items);
  if (!items) return irm_error(IRM_ENOMEM, "resolving -mcpu=native: out of memory");
  size_t n = 0;
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < N_FEATURES_; i++) {
    char sign = 0;
    int in_want = csv_has(want, features_[i].name), in_have = csv_has(have, features_[i].name);
    if (in_want && !in_have) sign = '+';
    else if (!in_want && in_have) sign = '-';
    if (!sign) continue;
    char text[64];
    snprintf(text, sizeof text, "%c%s", sign, features_[i].name);
    irm_object *str = NULL;
    rc = irm_string_new(text, strlen(text), &str);
    if (!rc) items[n++] = irm_any_object(str);
  }
  for (size_t i = 0; !rc && i < n_given; i++)
    if (!(rc = irm_any_copy(irm_array_at(given, i), &items[n]))) n++;
  if (!rc) rc = irm_array_new(items, n, mattr);
  for (size_t i = 0; i < n; i++) irm_any_release(&items[i]);
  irm_free(items);
  return rc;
}

/* One target (not its host) with mcpu native replaced; *out NEW. */
static int resolve_one(const irm_object *target, irm_object **out) {
  char cpu[128];
  irm_cc_isa_ native, named;
  int rc = native_cpu_name(cpu, sizeof cpu);
  if (!rc && !cpu[0]) {
    irm_object_retain((irm_object *)target); /* cc names no CPU: native stays, its features still recorded */
    *out = (irm_object *)target;
    return IRM_OK;
  }
  char flags[192];
  if (!rc) rc = isa_for_flags(irm_cc_command_(), " " CPU_FLAG_ "native", &native);
  snprintf(flags, sizeof flags, " " CPU_FLAG_ "%s", cpu);
  if (!rc) rc = isa_for_flags(irm_cc_command_(), flags, &named);
  irm_object *config = NULL, *mattr = NULL, *name = NULL;
  if (!rc) rc = irm_target_export(target, &config);
  irm_any given = irm_any_none();
  if (!rc) rc = irm_target_get_attr(target, "mattr", &given);
  if (!rc)
    rc = feature_diff(native.features, named.features, given.type_code == IRM_OBJECT ? given.v_obj : NULL, &mattr);
  irm_any_release(&given);
  if (!rc) rc = irm_string_new(cpu, strlen(cpu), &name);
  irm_any v = irm_any_object(name); /* the Map copies what it is given */
  if (!rc) rc = irm_map_set_move(&config, "mcpu", &v);
  v = irm_any_object(mattr);
  if (!rc && irm_array_size(mattr)) rc = irm_map_set_move(&config, "mattr", &v);
  if (!rc) rc = irm_target_from_config(config, out);
  irm_object_release(name);
  irm_object_release(mattr);
  irm_object_release(config);
  return rc ? irm_error_context(rc, "resolving -mcpu=native") : IRM_OK;
}

static int is_native(const irm_object *target) {
  const char *kind = irm_target_kind_name(target);
  char triple[128];
  if (!kind || (strcmp(kind, "c") != 0 && strcmp(kind, "llvm") != 0)) return 0;
  if (irm_cc_foreign_triple_(target, triple, sizeof triple)) return 0; /* this machine's CPU is not the target's */
  irm_any v = irm_any_none();
  const char *cpu = NULL;
  int native = irm_target_get_attr(target, "mcpu", &v) == IRM_OK && v.type_code != IRM_NONE &&
               !irm_any_to_str(&v, &cpu, NULL) && strcmp(cpu, "native") == 0;
  irm_any_release(&v);
  irm_clear_error();
  return native;
}

int irm_cc_resolve_native_(irm_object *target, irm_object **out) {
  irm_object *host = irm_target_host(target), *resolved_host = NULL, *self = NULL;
  int rc = host ? irm_cc_resolve_native_(host, &resolved_host) : IRM_OK;
  if (!rc && is_native(target)) rc = resolve_one(target, &self);
  else if (!rc) {
    irm_object_retain(target);
    self = target;
  }
  if (!rc && resolved_host != host) {
    rc = irm_target_with_host(self, resolved_host, out);
    irm_object_release(self);
  } else if (!rc) {
    *out = self;
  } else {
    irm_object_release(self);
  }
  irm_object_release(resolved_host);
  return rc;
}
