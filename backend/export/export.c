/* irm_build_export_library (build.h): a build's C artifacts compiled into
 * a shared library with the system's cc (TVM's export_library). The
 * artifacts go to a temporary folder; each .c file is cut into units at
 * its emitter's markers (units.c), the units and the .S files are compiled
 * at once, through the build cache (compile_jobs.c, cache.c), and linked
 * into a temporary file renamed onto path. They compile against
 * runtime/'s headers (IRM_RUNTIME_INCLUDE; else those installed
 * beside this libirm, <prefix>/include/irm-runtime; else the source tree
 * this library was built from) into path, and a params file is copied beside
 * path. The target's options pick the flags: -libs=cblas links OpenBLAS;
 * -mcpu / -mattr of a target for this host become -march / -m<feature>
 * (-mcpu=generic: no -march, the architecture's baseline). */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "export_internal.h"
#include "irm/alloc.h"
#include "irm/build_cache.h"
#include "irm/config.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/target.h"
#include "irm_threadpool.h"

#ifndef IRM_RUNTIME_INCLUDE_DIR
#define IRM_RUNTIME_INCLUDE_DIR "runtime/include"
#endif
#ifndef IRM_RUNTIME_KERNELS_DIR
#define IRM_RUNTIME_KERNELS_DIR "runtime/kernels"
#endif
#ifndef IRM_RUNTIME_INCLUDE_FROM_LIBDIR
#define IRM_RUNTIME_INCLUDE_FROM_LIBDIR "../include/irm-runtime"
#endif

/* The installed headers, found from where this libirm lies (so a moved
 * prefix works), when they are there; else the source tree's. */
static char installed_dir[4096];
static pthread_once_t installed_once = PTHREAD_ONCE_INIT;

static void find_installed(void) {
  Dl_info info;
  if (!dladdr((const void *)installed_dir, &info) || !info.dli_fname) return;
  const char *slash = strrchr(info.dli_fname, '/');
  if (!slash) return;
  char dir[sizeof installed_dir], probe[sizeof installed_dir + 16];
  int n = snprintf(dir, sizeof dir, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname,
                   IRM_RUNTIME_INCLUDE_FROM_LIBDIR);
  char *real = n > 0 && (size_t)n < sizeof dir ? realpath(dir, NULL) : NULL; /* without the lib/.. */
  struct stat st;
  if (real && strlen(real) < sizeof installed_dir &&
      snprintf(probe, sizeof probe, "%s/irm_crt.h", real) < (int)sizeof probe && stat(probe, &st) == 0)
    strcpy(installed_dir, real);
  free(real);
}

const char *irm_runtime_include_dir_(void) {
  const char *env = getenv("IRM_RUNTIME_INCLUDE");
  if (env && env[0]) return env;
  pthread_once(&installed_once, find_installed);
  return installed_dir[0] ? installed_dir : IRM_RUNTIME_INCLUDE_DIR;
}

/* runtime/kernels' headers: installed (or under IRM_RUNTIME_INCLUDE) in
 * the same folder as the others; in the source tree, their own. */
static const char *runtime_kernels_dir(void) {
  const char *dir = irm_runtime_include_dir_();
  return strcmp(dir, IRM_RUNTIME_INCLUDE_DIR) == 0 ? IRM_RUNTIME_KERNELS_DIR : dir;
}

void irm_export_quote_(irm_text_buf *b, const char *s) {
  irm_text_buf_putc_(b, '\'');
  for (; *s; s++) {
    if (*s == '\'') irm_text_buf_puts_(b, "'\\''");
    else irm_text_buf_putc_(b, *s);
  }
  irm_text_buf_putc_(b, '\'');
}

/* -mattr's feature f (+f, -f or f) as an ARM compiler's suffix: "+f" or
 * "+nof" (gcc calls NEON simd). */
static void arm_feature(irm_text_buf *flags, const char *f) {
  int off = f[0] == '-';
  const char *name = f[0] == '+' || f[0] == '-' ? f + 1 : f;
  irm_text_buf_puts_(flags, off ? "+no" : "+");
  irm_text_buf_puts_(flags, strcmp(name, "neon") == 0 ? "simd" : name);
}

/* The flags the target asks for, for its architecture: x86 takes
 * -march=CPU -m<f> -mno-<f>; ARM -mcpu=CPU+f+nof (-march=armv8-a+f...
 * without a CPU). -mcpu=native of a cross target is dropped: it names the
 * machine the code runs on, which the build cannot ask. */
int irm_export_target_flags_(const irm_object *target, irm_text_buf *flags, irm_text_buf *libs) {
  irm_any v = irm_any_none();
  if (!target) return IRM_OK;
  char triple[128];
  int cross = irm_cc_foreign_triple_(target, triple, sizeof triple);
  int arm = irm_cc_arm_arch_(cross ? triple : NULL);
  int cpu_given = 0;
  if (irm_target_get_attr(target, "mcpu", &v) == IRM_OK && v.type_code != IRM_NONE) {
    const char *cpu = NULL;
    /* generic: what cc makes for any CPU of the architecture (no flag) */
    if (!irm_any_to_str(&v, &cpu, NULL) && strcmp(cpu, "generic") != 0 && !(cross && strcmp(cpu, "native") == 0)) {
      irm_text_buf_puts_(flags, arm ? " -mcpu=" : " -march=");
      irm_export_quote_(flags, cpu);
      cpu_given = 1;
    }
  }
  irm_clear_error();
  irm_any_release(&v);
  if (irm_target_get_attr(target, "mattr", &v) == IRM_OK && v.type_code == IRM_OBJECT) {
    int started = cpu_given;
    for (size_t i = 0; i < irm_array_size(v.v_obj); i++) {
      const char *f = NULL;
      if (irm_any_to_str(irm_array_at(v.v_obj, i), &f, NULL) || !f[0]) continue;
      if (arm && !started)
        irm_text_buf_puts_(flags, !cross || strncmp(triple, "aarch64", 7) == 0 ? " -march=armv8-a" : " -march=armv7-a");
      started = 1;
      if (arm) {
        /* the suffix goes on the quoted CPU or arch word: quote it alone and append */
        irm_text_buf feat;
        irm_text_buf_init_(&feat, NULL, 0);
        arm_feature(&feat, f);
        irm_export_quote_(flags, irm_text_buf_cstr_(&feat));
        irm_text_buf_free_(&feat);
        continue;
      }
      irm_text_buf_puts_(flags, f[0] == '-' ? " -mno-" : " -m");
      irm_export_quote_(flags, f[0] == '+' || f[0] == '-' ? f + 1 : f);
    }
  }
  irm_clear_error();
  irm_any_release(&v);
  if (irm_target_get_attr(target, "libs", &v) == IRM_OK && v.type_code == IRM_OBJECT) {
    for (size_t i = 0; i < irm_array_size(v.v_obj); i++) {
      const char *l = NULL;
      if (!irm_any_to_str(irm_array_at(v.v_obj, i), &l, NULL) && strcmp(l, "cblas") == 0)
        irm_text_buf_puts_(libs, " -lopenblas");
    }
  }
  irm_clear_error();
  irm_any_release(&v);
  return IRM_OK;
}

static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char path[4096 + 512];
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strlen(dir) < 4096) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
      }
    closedir(d);
  }
  rmdir(dir);
}

static int copy_params(const irm_object *artifacts, const char *path) {
  irm_map_iter it = irm_map_iter_begin(artifacts);
  const irm_object *k;
  const irm_any *v;
  int rc = IRM_OK;
  while (!rc && irm_map_iter_next(&it, &k, &v)) {
    const char *name = irm_string_data(k);
    size_t len = strlen(name);
    if (len < 7 || strcmp(name + len - 7, ".params") != 0) continue;
    char *dir = irm_strdup(path);
    if (!dir) return irm_error(IRM_ENOMEM, "export_library: out of memory");
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    irm_object *one = NULL, *files = NULL;
    rc = irm_map_new(&files);
    irm_any fv = *v;
    if (!rc) rc = irm_map_set_move(&files, name, &fv);
    const char *keys[] = {"artifacts"};
    irm_any vals[] = {irm_any_object(files)};
    if (!rc) rc = irm_map_from_pairs(keys, vals, 1, &one);
    if (!rc) rc = irm_build_write(one, slash ? (dir[0] ? dir : "/") : ".");
    irm_object_release(one);
    irm_object_release(files);
    irm_free(dir);
  }
  return rc;
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n > m && strcmp(s + n - m, tail) == 0;
}

static int default_jobs(void) {
  const char *env = getenv("IRM_BUILD_JOBS");
  if (env && env[0]) {
    char *end = NULL;
    long j = strtol(env, &end, 10);
    if (*end || j < 1 || j > 1024)
      irm_warn_once("IRM_BUILD_JOBS", "IRM_BUILD_JOBS='%s' is not a job count from 1 to 1024: using the cores", env);
    else return (int)j;
  }
  return irm_threadpool_cpu_count(); /* the CPUs this process may use, as the thread pool counts them */
}

/* The units of the artifacts: each C file cut at its markers, each
 * assembler file as it is; the generated headers' text into headers. */
static int collect_units(const irm_object *artifacts, export_unit_ **units, size_t *n, size_t *cap,
                         irm_text_buf *headers) {
  irm_map_iter it = irm_map_iter_begin(artifacts);
  const irm_object *k;
  const irm_any *v;
  int rc = IRM_OK;
  while (!rc && irm_map_iter_next(&it, &k, &v)) {
    const char *name = irm_string_data(k);
    if (v->type_code != IRM_OBJECT || irm_object_type_index(v->v_obj) != IRM_TYPE_STRING) continue;
    const char *text = irm_string_data(v->v_obj);
    size_t size = irm_string_size(v->v_obj);
    if (ends_with(name, ".c")) rc = irm_export_split_units_(name, text, size, units, n, cap);
    else if (ends_with(name, ".h")) {
      irm_text_buf_printf_(headers, "%s\n", name);
      irm_text_buf_append_(headers, text, size);
    } else if (ends_with(name, ".s") || ends_with(name, ".S")) { /* assembler: .S through the preprocessor */
      if ((rc = irm_export_units_grow_(units, n, cap))) break;
      (*units)[*n] = (export_unit_){irm_strdup(name), NULL, 0, "", 1};
      if (!(*units)[*n].name) return irm_error(IRM_ENOMEM, "export_library: out of memory");
      (*n)++;
    }
  }
  return rc;
}

static int write_units(const char *dir, const export_unit_ *units, size_t n) {
  char path[4096 + 512];
  for (size_t i = 0; i < n; i++) {
    if (!units[i].text) continue;
    snprintf(path, sizeof path, "%s/%s", dir, units[i].name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(units[i].text, 1, units[i].size, f) == units[i].size;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) return irm_error(IRM_ERUNTIME, "export_library: cannot write '%s': %s", path, strerror(errno));
  }
  return IRM_OK;
}

/* path made absolute (the compiler runs in the temporary folder); NEW. */
static char *absolute(const char *path) {
  if (path[0] == '/') return irm_strdup(path);
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return NULL;
  size_t n = strlen(cwd) + strlen(path) + 2;
  char *out = irm_malloc(n);
  if (out) snprintf(out, n, "%s/%s", cwd, path);
  return out;
}

/* Makes the file path through a temporary file beside it that make(tmp,
 * ctx) writes, renamed onto path only when make succeeds and says so
 * (*placed): a failure leaves no partial file, and what was at path stays. */
typedef int (*make_fn_)(const char *tmp, void *ctx, int *placed);

static int replace_atomically(const char *path, make_fn_ make, void *ctx, int *placed) {
  char *abs = absolute(path), *tmp = NULL;
  static atomic_uint serial;
  size_t len = abs ? strlen(abs) + 64 : 0;
  if (abs && (tmp = irm_malloc(len)))
    snprintf(tmp, len, "%s.irm-tmp.%ld.%u", abs, (long)getpid(), atomic_fetch_add(&serial, 1));
  *placed = 0;
  int rc = !abs || !tmp ? irm_error(IRM_ENOMEM, "export_library: out of memory") : make(tmp, ctx, placed);
  if (!rc && *placed && rename(tmp, abs) != 0)
    rc = irm_error(IRM_ERUNTIME, "export_library: cannot write '%s': %s", path, strerror(errno));
  if (tmp) unlink(tmp); /* a rename onto a name of the same file (a linked library) leaves tmp */
  irm_free(abs);
  irm_free(tmp);
  return rc;
}

typedef struct link_ctx_ {
  const char *dir, *libs, *cc;
  const char *key; /* the library's key (library_key): its build ID */
  const export_unit_ *units;
  size_t n;
} link_ctx_;

/* Links the units' objects into tmp. */
static int link_into(const char *tmp, void *ctx, int *placed) {
  const link_ctx_ *l = ctx;
  irm_text_buf cmd;
  irm_text_buf_init_(&cmd, NULL, 0);
  irm_text_buf_puts_(&cmd, "cd ");
  irm_export_quote_(&cmd, l->dir);
  /* The build ID (.note.gnu.build-id, what debuggers and debuginfod match
   * a binary by) is the library's key, a digest of everything that makes
   * its bytes, instead of ld's SHA-1 over the output: that took 40 ms per
   * 8 MB of linked weights, a third of what link-params added. */
  irm_text_buf_printf_(&cmd, " && %s -shared -fPIC -Wl,--build-id=0x%.40s", l->cc, l->key);
  for (size_t i = 0; i < l->n; i++) {
    irm_text_buf_putc_(&cmd, ' ');
    irm_export_quote_(&cmd, l->units[i].name);
    irm_text_buf_puts_(&cmd, ".o");
  }
  irm_text_buf_puts_(&cmd, " -o ");
  irm_export_quote_(&cmd, tmp);
  irm_text_buf_puts_(&cmd, l->libs);
  irm_text_buf_puts_(&cmd, " -lm 2>&1");
  int rc = cmd.failed ? irm_error(IRM_ENOMEM, "export_library: out of memory")
                      : irm_cc_run_("export_library (linking)", irm_text_buf_cstr_(&cmd), NULL);
  *placed = !rc;
  irm_text_buf_free_(&cmd);
  return rc;
}

typedef struct fetch_ctx_ {
  irm_build_cache *cache;
  const char *key;
} fetch_ctx_;

/* The linked library the cache holds under key into tmp, if it does. */
static int fetch_into(const char *tmp, void *ctx, int *placed) {
  const fetch_ctx_ *f = ctx;
  irm_build_cache_status st = IRM_BUILD_CACHE_MISS;
  int rc = irm_build_cache_fetch_linked(f->cache, f->key, tmp, &st);
  *placed = !rc && st == IRM_BUILD_CACHE_HIT;
  return rc;
}

/* The key of the whole library: every artifact (the units' text, the
 * headers, the params file an assembler unit takes in; each by its
 * hash128), the compiler's identity, the flags and the libraries. */
static void library_key(const irm_object *artifacts, const char *identity, const char *flags, const char *libs,
                        char key[65]) {
  irm_sha256_ s;
  irm_sha256_init_(&s);
  irm_sha256_update_(&s, "library\n", 8);
  irm_sha256_update_(&s, identity, strlen(identity) + 1);
  irm_sha256_update_(&s, flags, strlen(flags) + 1);
  irm_sha256_update_(&s, libs, strlen(libs) + 1);
  irm_map_iter it = irm_map_iter_begin(artifacts);
  const irm_object *k;
  const irm_any *v;
  while (irm_map_iter_next(&it, &k, &v)) {
    if (v->type_code != IRM_OBJECT || irm_object_type_index(v->v_obj) != IRM_TYPE_STRING) continue;
    char digest[33]; /* hash128: a params file is tens of MB */
    irm_hash128_hex_(irm_string_data(v->v_obj), irm_string_size(v->v_obj), digest);
    irm_sha256_update_(&s, irm_string_data(k), strlen(irm_string_data(k)) + 1);
    irm_sha256_update_(&s, digest, sizeof digest);
  }
  irm_sha256_hex_(&s, key);
}

/* The key parts every unit shares: the flags (no temporary path in them:
 * the compiler runs in the folder) and what the runtime headers hold. */
static int compile_flags(const char *target_flags, irm_text_buf *flags) {
  irm_text_buf_puts_(flags, "-std=gnu11 -fPIC"); /* gnu11: C11 with trigraphs off in gcc and clang (codegen/c_text.h) */
  irm_text_buf_puts_(flags, target_flags);
  irm_text_buf_puts_(flags, " -I. -I");
  irm_export_quote_(flags, irm_runtime_include_dir_());
  irm_text_buf_puts_(flags, " -I");
  irm_export_quote_(flags, runtime_kernels_dir());
  return flags->failed ? irm_error(IRM_ENOMEM, "export_library: out of memory") : IRM_OK;
}

/* What every header of a folder holds, hashed (the runtime's headers are
 * part of every object's key: a new irm changes them). Remembered per
 * folder for the process's life. */
static int headers_digest(const char *dir, irm_text_buf *out) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static char memo_dir[2][4096], memo_hex[2][65];
  pthread_mutex_lock(&lock);
  for (int i = 0; i < 2; i++)
    if (memo_hex[i][0] && strcmp(memo_dir[i], dir) == 0) {
      irm_text_buf_printf_(out, "%s %s\n", dir, memo_hex[i]);
      pthread_mutex_unlock(&lock);
      return IRM_OK;
    }
  struct dirent **names = NULL;
  int n = scandir(dir, &names, NULL, alphasort);
  irm_sha256_ s;
  irm_sha256_init_(&s);
  for (int i = 0; i < n; i++) {
    char path[4096 + 512];
    if (ends_with(names[i]->d_name, ".h") && snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name) > 0) {
      FILE *f = fopen(path, "rb");
      char chunk[8192];
      size_t got;
      irm_sha256_update_(&s, names[i]->d_name, strlen(names[i]->d_name) + 1);
      while (f && (got = fread(chunk, 1, sizeof chunk, f)) > 0) irm_sha256_update_(&s, chunk, got);
      if (f) fclose(f);
    }
    free(names[i]);
  }
  free(names);
  char hex[65];
  irm_sha256_hex_(&s, hex);
  static int slot;
  snprintf(memo_dir[slot], sizeof memo_dir[slot], "%s", dir);
  memcpy(memo_hex[slot], hex, sizeof hex);
  slot ^= 1;
  pthread_mutex_unlock(&lock);
  irm_text_buf_printf_(out, "%s %s\n", dir, hex);
  return IRM_OK;
}

/* What decides the bytes of the library a built module exports into, short
 * of its artifacts (export_internal.h): the compiler command and its
 * identity, the flags, the libraries and the runtime headers' digests. */
int irm_export_toolchain_key_(const irm_module *mod, const char *cc_given, irm_text_buf *out) {
  irm_compilation_config *cfg = NULL;
  irm_text_buf tflags, libs, flags;
  irm_text_buf_init_(&tflags, NULL, 0);
  irm_text_buf_init_(&libs, NULL, 0);
  irm_text_buf_init_(&flags, NULL, 0);
  char cc[1024];
  int rc = irm_module_compilation_config(mod, &cfg);
  const irm_object *target = rc ? NULL : irm_compilation_config_default_primitive_target(cfg);
  if (!rc) rc = irm_export_target_flags_(target, &tflags, &libs);
  if (!rc) rc = irm_cc_for_target_(target, cc_given, cc, sizeof cc);
  if (!rc) rc = compile_flags(irm_text_buf_cstr_(&tflags), &flags);
  if (!rc)
    irm_text_buf_printf_(out, "cc %s\nflags %s\nlibs %s\n", cc, irm_text_buf_cstr_(&flags), irm_text_buf_cstr_(&libs));
  if (!rc) rc = irm_cc_identity_(cc, out);
  if (!rc) rc = headers_digest(irm_runtime_include_dir_(), out);
  if (!rc) rc = headers_digest(runtime_kernels_dir(), out);
  if (!rc && (out->failed || flags.failed || libs.failed)) rc = irm_error(IRM_ENOMEM, "export_library: out of memory");
  irm_object_release(cfg);
  irm_text_buf_free_(&tflags);
  irm_text_buf_free_(&libs);
  irm_text_buf_free_(&flags);
  return rc;
}

int irm_export_fetch_library_(irm_build_cache *cache, const char *key, const char *path, int *hit) {
  fetch_ctx_ f = {cache, key};
  return replace_atomically(path, fetch_into, &f, hit);
}

/* Compiles the units in dir (from the cache when it can) and links path. */
static int compile_and_link(const irm_object *result, const irm_object *artifacts, const char *dir, const char *path,
                            const char *cc, const char *target_flags, const char *libs, irm_export_options *o) {
  export_unit_ *units = NULL;
  size_t n = 0, cap = 0;
  irm_text_buf headers, flags, identity;
  irm_text_buf_init_(&headers, NULL, 0);
  irm_text_buf_init_(&flags, NULL, 0);
  irm_text_buf_init_(&identity, NULL, 0);
  irm_build_cache *cache = NULL;
  int rc = collect_units(artifacts, &units, &n, &cap, &headers);
  if (!rc) rc = compile_flags(target_flags, &flags);
  int use_cache = o->cache < 0 ? irm_build_cache_enabled_by_env() : o->cache;
  if (!rc) rc = irm_cc_identity_(cc, &identity);
  if (!rc) rc = headers_digest(irm_runtime_include_dir_(), &identity);
  if (!rc) rc = headers_digest(runtime_kernels_dir(), &identity);
  if (!rc && use_cache) rc = irm_build_cache_open(o->cache_dir, &cache);
  if (!rc && (headers.failed || identity.failed)) rc = irm_error(IRM_ENOMEM, "export_library: out of memory");
  export_compile_ c = {dir,
                       cc,
                       irm_text_buf_cstr_(&flags),
                       irm_text_buf_cstr_(&identity),
                       irm_text_buf_cstr_(&headers),
                       o->jobs > 0 ? o->jobs : default_jobs(),
                       o->progress < 0 ? isatty(2) : o->progress,
                       cache,
                       0,
                       0};
  /* the whole library first: a model rebuilt as it was compiles nothing */
  char key[65];
  int whole = 0;
  if (!rc) library_key(artifacts, irm_text_buf_cstr_(&identity), irm_text_buf_cstr_(&flags), libs, key);
  if (!rc && cache) {
    fetch_ctx_ f = {cache, key};
    rc = replace_atomically(path, fetch_into, &f, &whole);
  }
  link_ctx_ l = {dir, libs, cc, key, units, n};
  int linked = 0;
  if (!rc && !whole) rc = irm_build_write(result, dir); /* the files only when something compiles */
  if (!rc && !whole) rc = write_units(dir, units, n);
  if (!rc && !whole) rc = irm_export_compile_units_(units, n, &c);
  if (!rc && !whole) rc = replace_atomically(path, link_into, &l, &linked);
  if (!rc && linked && cache && irm_build_cache_store_linked(cache, key, path)) irm_clear_error();
  if (!rc && cache && irm_build_cache_trim(cache, irm_build_cache_cap_by_env(), NULL)) irm_clear_error();
  o->units = n;
  o->compiled = whole ? 0 : c.compiled;
  o->cache_hits = whole ? n : c.hits;
  irm_build_cache_close(cache);
  irm_export_units_free_(units, n);
  irm_text_buf_free_(&headers);
  irm_text_buf_free_(&flags);
  irm_text_buf_free_(&identity);
  return rc;
}

int irm_build_export_library(const irm_object *result, const char *path) {
  irm_export_options o = IRM_EXPORT_OPTIONS_DEFAULT;
  return irm_build_export_library_with(result, path, &o);
}

int irm_build_export_library_with(const irm_object *result, const char *path, irm_export_options *opts) {
  irm_export_options dflt = IRM_EXPORT_OPTIONS_DEFAULT;
  irm_export_options *o = opts ? opts : &dflt;
  if (!path || !path[0]) return irm_error(IRM_EVALUE, "export_library: path must not be empty");
  const irm_any *a = irm_object_type_index(result) == IRM_TYPE_MAP ? irm_map_find_cstr(result, "artifacts") : NULL;
  const irm_any *m = a ? irm_map_find_cstr(result, "module") : NULL;
  if (!a || a->type_code != IRM_OBJECT || irm_object_type_index(a->v_obj) != IRM_TYPE_MAP || !m ||
      m->type_code != IRM_OBJECT || !irm_object_is(m->v_obj, "ir.IRModule"))
    return irm_error(IRM_ETYPE,
                     "export_library: expected a build result (a Map with \"module\" and \"artifacts\"), "
                     "got %s",
                     result ? irm_object_type_key(result) : "NULL");
  size_t n_sources = 0;
  irm_map_iter it = irm_map_iter_begin(a->v_obj);
  const irm_object *k;
  const irm_any *v;
  while (irm_map_iter_next(&it, &k, &v)) n_sources += ends_with(irm_string_data(k), ".c");
  if (!n_sources)
    return irm_error(IRM_EVALUE,
                     "export_library: the build has no C source to compile (its executor kind has no "
                     "'%s', or generated none)",
                     IRM_EXECUTOR_CODEGEN_ATTR);
  irm_compilation_config *cfg = NULL;
  int rc = irm_module_compilation_config(m->v_obj, &cfg);
  irm_text_buf flags, libs;
  irm_text_buf_init_(&flags, NULL, 0);
  irm_text_buf_init_(&libs, NULL, 0);
  const irm_object *target = rc ? NULL : irm_compilation_config_default_primitive_target(cfg);
  char cc[1024];
  if (!rc) rc = irm_export_target_flags_(target, &flags, &libs);
  if (!rc) rc = irm_cc_for_target_(target, o->cc, cc, sizeof cc);
  irm_object_release(cfg);
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/irm-export-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!rc && !mkdtemp(dir))
    rc = irm_error(IRM_ERUNTIME, "export_library: cannot make a temporary folder '%s': %s", dir, strerror(errno));
  else if (!rc) {
    if (!rc && (flags.failed || libs.failed)) rc = irm_error(IRM_ENOMEM, "export_library: out of memory");
    if (!rc)
      rc = compile_and_link(result, a->v_obj, dir, path, cc, irm_text_buf_cstr_(&flags), irm_text_buf_cstr_(&libs), o);
    remove_tree(dir);
  }
  if (!rc) rc = copy_params(a->v_obj, path);
  irm_text_buf_free_(&flags);
  irm_text_buf_free_(&libs);
  return rc;
}

/* driver.ExportLibrary(result, path[, jobs[, cache[, cc]]]) -> NONE; jobs
 * None or 0: the default count; cache None: unless IRM_CACHE=0; cc None:
 * the target's compiler (irm_cc_for_target_). */
static int driver_export_library(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "driver.ExportLibrary";
  (void)ret;
  (void)resource;
  irm_object *result = NULL;
  const char *path = NULL;
  irm_export_options o = IRM_EXPORT_OPTIONS_DEFAULT;
  int64_t jobs = 0;
  bool cache = true;
  int rc = irm_arg_count(fn, nargs, 2, 5);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Map", &result);
  if (!rc) rc = irm_arg_str(fn, args, 1, &path, NULL);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_int(fn, args, 2, &jobs);
  if (!rc && (jobs < 0 || jobs > 1024))
    rc = irm_error(IRM_EVALUE, "%s: jobs must be from 0 (the default) to 1024, got %lld", fn, (long long)jobs);
  o.jobs = (int)jobs;
  if (!rc && irm_arg_present(args, nargs, 3) && !(rc = irm_arg_bool(fn, args, 3, &cache))) o.cache = cache;
  if (!rc && irm_arg_present(args, nargs, 4)) rc = irm_arg_str(fn, args, 4, &o.cc, NULL);
  if (!rc) rc = irm_build_export_library_with(result, path, &o);
  return rc;
}

int irm_register_export_globals_(void) {
  static const irm_builtin_global globals[] = {{"driver.ExportLibrary", driver_export_library}};
  return irm_global_register_builtins_(globals, 1);
}
