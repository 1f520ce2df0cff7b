/* The graph runner's loading of an exported library (irm_graph_runner.h:
 * irm_graph_runner_load / _load_module): the module, the CPU check, the
 * graph JSON, the kernels by dlsym and the parameters, linked in or from
 * the params file beside the library. Stands alone (runtime/). */
#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_runner_internal.h"
#include "irm_graph_runner.h"
#include "irm_library.h"

static void *dso_symbol(void *ctx, const char *name) { return dlsym(ctx, name); }

static int read_file(const char *path, char **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t cap = 65536, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *more = realloc(buf, cap * 2);
      if (!more) {
        free(buf);
        buf = NULL;
      }
      buf = more;
      cap *= 2;
    }
  }
  int bad = ferror(f) || !buf;
  fclose(f);
  if (bad) {
    free(buf);
    return -1;
  }
  *data = buf;
  *size = n;
  return 0;
}

/* The params file named in the module's metadata, beside path. */
static int dso_params(irm_graph_runner *r, const char *path, const char *mod, char *err, size_t es) {
  const void *(*linked)(size_t *) = NULL;
  const char *(*meta)(void) = NULL;
  void *sym = irm_library_symbol(irm_graph_runner_dso_(r), mod, IRM_LIBRARY_LINKED_PARAMS);
  if (sym) {
    memcpy(&linked, &sym, sizeof linked);
    size_t size = 0;
    const void *blob = linked(&size);
    int rc = irm_graph_runner_load_params(r, blob, size);
    return rc ? irm_graph_fail_(err, es, rc, "library '%s': its linked %s", path, irm_graph_runner_error(r))
              : IRM_GRAPH_OK;
  }
  sym = irm_library_symbol(irm_graph_runner_dso_(r), mod, IRM_LIBRARY_METADATA);
  if (!sym) return IRM_GRAPH_OK;
  memcpy(&meta, &sym, sizeof meta);
  json_t *root = json_loads(meta(), 0, NULL);
  const char *file = json_string_value(json_object_get(root, "params_file"));
  int rc = IRM_GRAPH_OK;
  if (file) {
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    char *full = malloc(dirlen + strlen(file) + 1), *blob = NULL;
    size_t size = 0;
    if (!full) rc = irm_graph_fail_(err, es, IRM_GRAPH_ENOMEM, "graph runner: out of memory");
    else {
      memcpy(full, path, dirlen);
      strcpy(full + dirlen, file);
      if (read_file(full, &blob, &size))
        rc = irm_graph_fail_(err, es, IRM_GRAPH_ELOAD, "cannot read the params file '%s': %s", full, strerror(errno));
      else if ((rc = irm_graph_runner_load_params(r, blob, size)))
        rc = irm_graph_fail_(err, es, rc, "the params file '%s': %s", full, irm_graph_runner_error(r));
    }
    free(blob);
    free(full);
  }
  json_decref(root);
  return rc;
}

/* The module mod of dso, or its only one when mod is NULL (in buf). */
static int dso_module(void *dso, const char *path, const char **mod, char *buf, size_t size, char *err, size_t es) {
  if (*mod) return IRM_GRAPH_OK;
  size_t count = 0;
  int got = irm_library_modules(dso, buf, size, &count);
  if (got == IRM_LIBRARY_ENOSYMTAB || count == 0)
    return irm_graph_fail_(err, es, IRM_GRAPH_ELOAD,
                           "library '%s' has no " IRM_LIBRARY_PREFIX "<mod_name>" IRM_LIBRARY_METADATA
                           ": it is not a library exported by irm",
                           path);
  if (got || count > 1)
    return irm_graph_fail_(err, es, IRM_GRAPH_EARG, "library '%s' holds %zu modules (%s): name the one to load", path,
                           count, buf);
  *mod = buf;
  return IRM_GRAPH_OK;
}

/* ELOAD when module mod's code uses CPU features this machine lacks:
 * refused before any of it runs (it would die of an illegal instruction). */
static int dso_cpu(void *dso, const char *path, const char *mod, char *err, size_t es) {
  void *sym = irm_library_symbol(dso, mod, IRM_LIBRARY_METADATA);
  const char *(*meta)(void) = NULL;
  char msg[768];
  if (!sym) return IRM_GRAPH_OK;
  memcpy(&meta, &sym, sizeof meta);
  if (irm_library_check_cpu(meta(), mod, msg, sizeof msg) == IRM_LIBRARY_OK) return IRM_GRAPH_OK;
  return irm_graph_fail_(err, es, IRM_GRAPH_ELOAD, "library '%s': %s", path, msg);
}

int irm_graph_runner_load(const char *path, irm_graph_runner **out, char *err, size_t es) {
  return irm_graph_runner_load_module(path, NULL, out, err, es);
}

int irm_graph_runner_load_module(const char *path, const char *mod, irm_graph_runner **out, char *err, size_t es) {
  if (!out) return irm_graph_fail_(err, es, IRM_GRAPH_EARG, "graph runner: out must not be NULL");
  *out = NULL;
  if (!path) return irm_graph_fail_(err, es, IRM_GRAPH_EARG, "graph runner: path must not be NULL");
  char local[4096], names[512];
  if (!strchr(path, '/')) snprintf(local, sizeof local, "./%s", path); /* not the system's folders */
  void *dso = dlopen(strchr(path, '/') ? path : local, RTLD_NOW | RTLD_LOCAL);
  if (!dso) {
    const char *why = dlerror();
    return irm_graph_fail_(err, es, IRM_GRAPH_ELOAD, "cannot load the library '%s': %s", path,
                           why ? why : "unknown reason");
  }
  int rc = dso_module(dso, path, &mod, names, sizeof names, err, es);
  if (!rc) rc = dso_cpu(dso, path, mod, err, es);
  const char *(*graph)(void) = NULL;
  void *sym = rc ? NULL : irm_library_symbol(dso, mod, IRM_LIBRARY_GRAPH_JSON);
  if (!rc && !sym)
    rc = irm_graph_fail_(err, es, IRM_GRAPH_ELOAD,
                         "library '%s' has no " IRM_LIBRARY_PREFIX "%s" IRM_LIBRARY_GRAPH_JSON
                         ": module '%s' is not a graph library exported by irm",
                         path, mod, mod);
  if (rc) {
    dlclose(dso);
    return rc;
  }
  memcpy(&graph, &sym, sizeof graph);
  const char *json = graph();
  rc = irm_graph_runner_create(json, strlen(json), dso_symbol, dso, out, err, es);
  if (rc) {
    dlclose(dso);
    return rc;
  }
  irm_graph_runner_own_dso_(*out, dso);
  rc = dso_params(*out, path, mod, err, es);
  if (rc) {
    irm_graph_runner_free(*out);
    *out = NULL;
  }
  return rc;
}
