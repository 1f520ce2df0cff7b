/* irm_build_export_library (build.h): a build's C artifacts compiled into
 * a shared library with the system's cc (TVM's export_library). The
 * artifacts go to a temporary folder, cc compiles every .c file there
 * against runtime/'s headers (IRM_RUNTIME_INCLUDE; else those installed
 * beside this libirm, <prefix>/include/irm-runtime; else the source tree
 * this library was built from) into path, and a params file is copied beside
 * path. The target's options pick the flags: -libs=cblas links OpenBLAS;
 * -mcpu / -mattr of a target for this host become -march / -m<feature>
 * (-mcpu=generic: no -march, the architecture's baseline). */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend_internal.h"
#include "irm/config.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/target.h"

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

/* Appends s in single quotes, for sh. */
static void quoted(irm_text_buf *b, const char *s) {
  irm_text_buf_putc_(b, '\'');
  for (; *s; s++) {
    if (*s == '\'') irm_text_buf_puts_(b, "'\\''");
    else irm_text_buf_putc_(b, *s);
  }
  irm_text_buf_putc_(b, '\'');
}

/* The flags the target asks for. */
int irm_export_target_flags_(const irm_object *target, irm_text_buf *flags, irm_text_buf *libs) {
  irm_any v = irm_any_none();
  int rc = IRM_OK;
  if (!target) return IRM_OK;
  if (irm_target_get_attr(target, "mtriple", &v) == IRM_OK && v.type_code != IRM_NONE) {
    const char *triple = NULL;
    if (!irm_any_to_str(&v, &triple, NULL) && !irm_cc_host_arch_(triple))
      rc = irm_error(IRM_EVALUE,
                     "export_library: target '%s' has -mtriple=%s, not this host's architecture; "
                     "export_library compiles with the host's cc",
                     irm_target_kind_name(target), triple);
  }
  if (!rc) irm_clear_error();
  irm_any_release(&v);
  if (!rc && irm_target_get_attr(target, "mcpu", &v) == IRM_OK && v.type_code != IRM_NONE) {
    const char *cpu = NULL;
    /* generic: what cc makes for any CPU of the architecture (no flag) */
    if (!irm_any_to_str(&v, &cpu, NULL) && strcmp(cpu, "generic") != 0) {
#if defined(__x86_64__) || defined(__i386__)
      irm_text_buf_puts_(flags, " -march=");
#else
      irm_text_buf_puts_(flags, " -mcpu=");
#endif
      quoted(flags, cpu);
    }
  }
  if (!rc) irm_clear_error();
  irm_any_release(&v);
  if (!rc && irm_target_get_attr(target, "mattr", &v) == IRM_OK && v.type_code == IRM_OBJECT) {
    for (size_t i = 0; i < irm_array_size(v.v_obj); i++) {
      const char *f = NULL;
      if (irm_any_to_str(irm_array_at(v.v_obj, i), &f, NULL) || !f[0]) continue;
      irm_text_buf_puts_(flags, f[0] == '-' ? " -mno-" : " -m");
      quoted(flags, f[0] == '+' || f[0] == '-' ? f + 1 : f);
    }
  }
  if (!rc) irm_clear_error();
  irm_any_release(&v);
  if (!rc && irm_target_get_attr(target, "libs", &v) == IRM_OK && v.type_code == IRM_OBJECT) {
    for (size_t i = 0; i < irm_array_size(v.v_obj); i++) {
      const char *l = NULL;
      if (!irm_any_to_str(irm_array_at(v.v_obj, i), &l, NULL) && strcmp(l, "cblas") == 0)
        irm_text_buf_puts_(libs, " -lopenblas");
    }
  }
  if (!rc) irm_clear_error();
  irm_any_release(&v);
  return rc;
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

int irm_build_export_library(const irm_object *result, const char *path) {
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
  while (irm_map_iter_next(&it, &k, &v)) {
    size_t len = strlen(irm_string_data(k));
    n_sources += len > 2 && strcmp(irm_string_data(k) + len - 2, ".c") == 0;
  }
  if (!n_sources)
    return irm_error(IRM_EVALUE,
                     "export_library: the build has no C source to compile (its executor kind has no "
                     "'%s', or generated none)",
                     IRM_EXECUTOR_CODEGEN_ATTR);
  irm_compilation_config *cfg = NULL;
  int rc = irm_module_compilation_config(m->v_obj, &cfg);
  irm_text_buf flags, libs, cmd;
  irm_text_buf_init_(&flags, NULL, 0);
  irm_text_buf_init_(&libs, NULL, 0);
  irm_text_buf_init_(&cmd, NULL, 0);
  if (!rc) rc = irm_export_target_flags_(irm_compilation_config_default_primitive_target(cfg), &flags, &libs);
  irm_object_release(cfg);
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/irm-export-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!rc && !mkdtemp(dir))
    rc = irm_error(IRM_ERUNTIME, "export_library: cannot make a temporary folder '%s': %s", dir, strerror(errno));
  else if (!rc) {
    rc = irm_build_write(result, dir);
    /* gnu11: C11 with trigraphs off in gcc and clang (data never forms one anyway, codegen/c_text.h) */
    irm_text_buf_puts_(&cmd, "cc -std=gnu11 -shared -fPIC -O2");
    irm_text_buf_puts_(&cmd, irm_text_buf_cstr_(&flags));
    irm_text_buf_puts_(&cmd, " -I");
    quoted(&cmd, irm_runtime_include_dir_());
    irm_text_buf_puts_(&cmd, " -I");
    quoted(&cmd, runtime_kernels_dir());
    irm_text_buf_puts_(&cmd, " -I");
    quoted(&cmd, dir);
    it = irm_map_iter_begin(a->v_obj);
    while (irm_map_iter_next(&it, &k, &v)) {
      const char *name = irm_string_data(k);
      size_t len = strlen(name);
      if (len <= 2 || strcmp(name + len - 2, ".c") != 0) continue;
      irm_text_buf_putc_(&cmd, ' ');
      quoted(&cmd, dir);
      irm_text_buf_putc_(&cmd, '/');
      quoted(&cmd, name);
    }
    irm_text_buf_puts_(&cmd, " -o ");
    quoted(&cmd, path);
    irm_text_buf_puts_(&cmd, irm_text_buf_cstr_(&libs));
    irm_text_buf_puts_(&cmd, " -lm 2>&1");
    if (!rc && cmd.failed) rc = irm_error(IRM_ENOMEM, "export_library: out of memory");
    if (!rc) rc = irm_cc_run_("export_library", irm_text_buf_cstr_(&cmd), NULL);
    remove_tree(dir);
  }
  if (!rc) rc = copy_params(a->v_obj, path);
  irm_text_buf_free_(&flags);
  irm_text_buf_free_(&libs);
  irm_text_buf_free_(&cmd);
  return rc;
}

/* driver.ExportLibrary(result, path) -> NONE */
static int driver_export_library(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "driver.ExportLibrary";
  (void)ret;
  (void)resource;
  irm_object *result = NULL;
  const char *path = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Map", &result);
  if (!rc) rc = irm_arg_str(fn, args, 1, &path, NULL);
  if (!rc) rc = irm_build_export_library(result, path);
  return rc;
}

int irm_register_export_globals_(void) {
  static const irm_builtin_global globals[] = {{"driver.ExportLibrary", driver_export_library}};
  return irm_global_register_builtins_(globals, 1);
}
