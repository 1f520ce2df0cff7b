/* executor.load of the aot executor (load_internal.h): the library's entry
 * point, found by the name its metadata gives, and its parameters (the
 * params file beside it handed to its set_params) before the first run. */
#include <dlfcn.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "irm/error.h"
#include "irm/function.h"
#include "irm_crt.h"
#include "load/load_internal.h"

typedef struct aot_lib {
  int interface_c;
  union {
    int32_t (*c)(void *inputs, void *outputs);
    irm_crt_packed_func packed;
  } entry;
  size_t n_in, n_out;
  char mod_name[256];
  /* A run's arguments, allocated at load so that a run allocates nothing
   * (runs are serialized by the run lock). */
  DLTensor *dl;
  void **ptrs;
  irm_crt_value *vals;
  int32_t *codes;
} aot_lib;

static void lib_free(void *p) {
  aot_lib *lib = p;
  if (!lib) return;
  irm_free(lib->dl);
  irm_free(lib->ptrs);
  irm_free(lib->vals);
  irm_free(lib->codes);
  irm_free(lib);
}

/* The argument arrays, and what of them never changes between runs. */
static int alloc_args(aot_lib *lib) {
  size_t n = lib->n_in + lib->n_out;
  lib->dl = irm_calloc(n + 1, sizeof *lib->dl);
  lib->ptrs = irm_calloc(n + 1, sizeof *lib->ptrs);
  lib->vals = irm_calloc(n + 1, sizeof *lib->vals);
  lib->codes = irm_calloc(n + 1, sizeof *lib->codes);
  if (!lib->dl || !lib->ptrs || !lib->vals || !lib->codes) return irm_error(IRM_ENOMEM, "runtime.Load: out of memory");
  for (size_t i = 0; i < n; i++) {
    lib->vals[i].v_handle = &lib->dl[i];
    lib->codes[i] = IRM_CRT_DLTENSOR;
  }
  return IRM_OK;
}

static int read_lib(aot_lib *lib, const char *path, json_t *root, void *handle);
static int load_params(const char *path, json_t *root, void *handle);
static int aot_run(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);

int irm_aot_load_packed_(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "executor.load of executor 'aot'";
  (void)resource;
  const char *path = NULL, *mod = NULL, *text = NULL;
  void *handle = NULL;
  int rc = irm_load_args_(fn, args, nargs, &path, &mod, &text, &handle);
  if (rc) return rc;
  json_t *root = json_loads(text, 0, NULL);
  aot_lib *lib = irm_calloc(1, sizeof *lib);
  if (!lib) rc = irm_error(IRM_ENOMEM, "%s: out of memory", fn);
  if (!rc && !json_is_object(root)) rc = irm_error(IRM_EVALUE, "library '%s': its metadata is no JSON object", path);
  if (!rc) rc = read_lib(lib, path, root, handle);
  if (!rc) rc = alloc_args(lib);
  if (!rc) rc = load_params(path, root, handle);
  json_decref(root);
  if (rc) {
    lib_free(lib);
    return rc;
  }
  snprintf(lib->mod_name, sizeof lib->mod_name, "%s", mod);
  return irm_load_result_(fn, aot_run, lib, lib_free, NULL, ret);
}

static int read_lib(aot_lib *lib, const char *path, json_t *root, void *handle) {
  const char *api = json_string_value(json_object_get(root, "interface_api"));
  const char *entry = json_string_value(json_object_get(root, "entry"));
  json_t *in = json_object_get(root, "inputs"), *out = json_object_get(root, "outputs");
  if (!api || !entry || !json_is_array(in) || !json_is_array(out))
    return irm_error(IRM_EVALUE, "library '%s': its metadata lacks interface_api, entry, inputs or outputs", path);
  void *sym = dlsym(handle, entry);
  if (!sym) return irm_error(IRM_EVALUE, "library '%s' has no entry symbol '%s'", path, entry);
  lib->interface_c = strcmp(api, "c") == 0;
  if (lib->interface_c) memcpy(&lib->entry.c, &sym, sizeof lib->entry.c);
  else memcpy(&lib->entry.packed, &sym, sizeof lib->entry.packed);
  lib->n_in = json_array_size(in);
  lib->n_out = json_array_size(out);
  return IRM_OK;
}

/* link-params: the library's check of the params file linked into it
 * (backend/aot/aot_params.c), so a library linked with the wrong one
 * fails at load, not at its first run. */
static int check_linked(const char *path, const char *check, void *handle) {
  int32_t (*fn)(void) = NULL;
  void *sym = dlsym(handle, check);
  if (!sym) return irm_error(IRM_EVALUE, "library '%s' has no symbol '%s' (its metadata names it)", path, check);
  memcpy(&fn, &sym, sizeof fn);
  pthread_mutex_lock(&irm_runtime_run_lock_);
  int32_t got = fn();
  pthread_mutex_unlock(&irm_runtime_run_lock_);
  return got ? irm_error(IRM_EVALUE, "library '%s' refuses the params linked into it: %s", path, irm_crt_strerror(got))
             : IRM_OK;
}

/* The params file beside the library, given to its set_params. */
static int load_params(const char *path, json_t *root, void *handle) {
  const char *file = json_string_value(json_object_get(root, "params_file"));
  const char *setter = json_string_value(json_object_get(root, "set_params"));
  const char *check = json_string_value(json_object_get(root, "check_params"));
  if (check) return check_linked(path, check, handle);
  if (!file) return IRM_OK;
  if (!setter) return irm_error(IRM_EVALUE, "library '%s': its metadata names a params file but no set_params", path);
  int32_t (*set)(const void *, size_t) = NULL;
  void *sym = dlsym(handle, setter);
  if (!sym) return irm_error(IRM_EVALUE, "library '%s' has no symbol '%s' (its metadata names it)", path, setter);
  memcpy(&set, &sym, sizeof set);
  char *blob = NULL, *full = NULL;
  size_t size = 0;
  int rc = irm_load_file_beside_(path, file, &blob, &size, &full);
  if (!rc) {
    pthread_mutex_lock(&irm_runtime_run_lock_);
    int32_t got = set(blob, size);
    pthread_mutex_unlock(&irm_runtime_run_lock_);
    if (got)
      rc = irm_error(IRM_EVALUE, "library '%s' refuses the params file '%s': %s", path, full, irm_crt_strerror(got));
  }
  irm_free(blob);
  irm_free(full);
  return rc;
}

/* run(inputs, outputs): the entry point on the tensors' data (interface
 * "c") or on DLTensors (packed), straight into the outputs' data. The
 * loader holds the run lock, which guards lib's argument arrays. */
static int aot_run(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  aot_lib *lib = resource;
  (void)ret;
  int rc = irm_load_run_tensors_("aot run", args, nargs, lib->n_in, lib->n_out, lib->dl);
  if (rc) return rc;
  size_t n = lib->n_in + lib->n_out;
  for (size_t i = 0; i < n; i++) lib->ptrs[i] = (char *)lib->dl[i].data + lib->dl[i].byte_offset;
  int32_t got = IRM_CRT_OK;
  if (lib->interface_c) got = lib->entry.c(lib->ptrs, lib->ptrs + lib->n_in);
  else {
    irm_crt_value result;
    int32_t result_code = 0;
    got = lib->entry.packed(lib->vals, lib->codes, (int32_t)n, &result, &result_code, NULL);
  }
  if (got)
    return irm_error(IRM_ERUNTIME, "module '%s' failed: %s (code %d)", lib->mod_name, irm_crt_strerror(got), got);
  return IRM_OK;
}
