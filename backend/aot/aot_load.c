/* executor.load of the aot executor (load_internal.h): the library's entry
 * point, found by the name its metadata gives, and its parameters (the
 * params file beside it handed to its set_params) before the first run. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "irm/error.h"
#include "irm/function.h"
#include "irm_crt.h"
#include "load/load_internal.h"

/* What one run needs: its argument arrays and, with a workspace entry,
 * its own workspace. Made at load (the first) or when a run finds every
 * one in use (runs beside each other), then kept: runs allocate nothing
 * in steady state. */
typedef struct run_ctx {
  irm_load_item_ link; /* in the module's free list */
  DLTensor *dl;
  void **ptrs;
  irm_crt_value *vals;
  int32_t *codes;
  void *ws_block; /* irm_malloc'd; ws is it aligned */
  void *ws;
} run_ctx;

typedef struct aot_lib {
  int interface_c;
  union {
    int32_t (*c)(void *inputs, void *outputs);
    irm_crt_packed_func packed;
  } entry;
  /* tvmgen_<m>_run_workspace (metadata "workspace_entry"): runs on the
   * given workspace, so runs may overlap; NULL in older libraries, whose
   * runs the loader serializes */
  int32_t (*ws_entry)(void *const *inputs, void *const *outputs, void *workspace);
  size_t ws_bytes, ws_align;
  /* tvmgen_<m>_last_error (metadata "last_error"): the calling thread's
   * last index error, read on the thread of the run that failed; NULL in
   * older libraries */
  const char *(*last_error)(void);
  size_t n_in, n_out;
  char mod_name[256];
  irm_load_free_list_ free;
} aot_lib;

static void ctx_free(run_ctx *c) {
  if (!c) return;
  irm_free(c->dl);
  irm_free(c->ptrs);
  irm_free(c->vals);
  irm_free(c->codes);
  irm_free(c->ws_block);
  irm_free(c);
}

static void item_free(irm_load_item_ *item) { ctx_free((run_ctx *)(void *)item); }

static void lib_free(void *p) {
  aot_lib *lib = p;
  if (!lib) return;
  irm_load_free_list_free_(&lib->free, item_free);
  irm_free(lib);
}

/* A new run's arrays, and what of them never changes between runs. */
static int ctx_new(const aot_lib *lib, run_ctx **out) {
  size_t n = lib->n_in + lib->n_out;
  run_ctx *c = irm_calloc(1, sizeof *c);
  if (c) {
    c->dl = irm_calloc(n + 1, sizeof *c->dl);
    c->ptrs = irm_calloc(n + 1, sizeof *c->ptrs);
    c->vals = irm_calloc(n + 1, sizeof *c->vals);
    c->codes = irm_calloc(n + 1, sizeof *c->codes);
    if (lib->ws_entry) c->ws_block = irm_malloc(lib->ws_bytes + lib->ws_align);
  }
  if (!c || !c->dl || !c->ptrs || !c->vals || !c->codes || (lib->ws_entry && !c->ws_block)) {
    ctx_free(c);
    return irm_error(IRM_ENOMEM, "aot run: out of memory");
  }
  if (c->ws_block) {
    uintptr_t a = (uintptr_t)c->ws_block, al = lib->ws_align;
    c->ws = (void *)((a + al - 1) / al * al);
  }
  for (size_t i = 0; i < n; i++) {
    c->vals[i].v_handle = &c->dl[i];
    c->codes[i] = IRM_CRT_DLTENSOR;
  }
  *out = c;
  return IRM_OK;
}

static int ctx_take(aot_lib *lib, run_ctx **out) {
  run_ctx *c = (run_ctx *)(void *)irm_load_free_list_take_(&lib->free);
  if (!c) return ctx_new(lib, out);
  *out = c;
  return IRM_OK;
}

static void ctx_give(aot_lib *lib, run_ctx *c) { irm_load_free_list_give_(&lib->free, &c->link); }

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
  else irm_load_free_list_init_(&lib->free);
  if (!rc && !json_is_object(root)) rc = irm_error(IRM_EVALUE, "library '%s': its metadata is no JSON object", path);
  if (!rc) rc = read_lib(lib, path, root, handle);
  run_ctx *first = NULL;
  if (!rc) rc = ctx_new(lib, &first);
  if (!rc) ctx_give(lib, first);
  if (!rc) rc = load_params(path, root, handle);
  json_decref(root);
  if (rc) {
    lib_free(lib);
    return rc;
  }
  snprintf(lib->mod_name, sizeof lib->mod_name, "%s", mod);
  return irm_load_result_(fn, aot_run, lib, lib_free, NULL, lib->ws_entry != NULL, ret);
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
  const char *last_error = json_string_value(json_object_get(root, "last_error"));
  void *err_sym = last_error ? dlsym(handle, last_error) : NULL;
  if (last_error && !err_sym)
    return irm_error(IRM_EVALUE, "library '%s' has no symbol '%s' (its metadata names it)", path, last_error);
  if (err_sym) memcpy(&lib->last_error, &err_sym, sizeof lib->last_error);
  const char *ws_entry = json_string_value(json_object_get(root, "workspace_entry"));
  void *ws_sym = ws_entry ? dlsym(handle, ws_entry) : NULL;
  if (ws_entry && !ws_sym)
    return irm_error(IRM_EVALUE, "library '%s' has no symbol '%s' (its metadata names it)", path, ws_entry);
  if (ws_sym) {
    memcpy(&lib->ws_entry, &ws_sym, sizeof lib->ws_entry);
    json_int_t bytes = json_integer_value(json_object_get(root, "workspace_bytes"));
    json_int_t align = json_integer_value(json_object_get(root, "workspace_alignment"));
    if (bytes < 0 || align < 1 || align > 4096 || (align & (align - 1)))
      return irm_error(IRM_EVALUE, "library '%s': its metadata's workspace_bytes or workspace_alignment is wrong",
                       path);
    lib->ws_bytes = (size_t)bytes + 1;
    lib->ws_align = (size_t)align;
  }
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

/* run(inputs, outputs): the workspace entry on the tensors' data and a
 * workspace of the run's own (runs may overlap); in a library without
 * one, the entry point on the data (interface "c") or on DLTensors
 * (packed), under the loader's run lock. Straight into the outputs' data. */
static int aot_run(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  aot_lib *lib = resource;
  (void)ret;
  run_ctx *c = NULL;
  int rc = ctx_take(lib, &c);
  if (rc) return rc;
  rc = irm_load_run_tensors_("aot run", args, nargs, lib->n_in, lib->n_out, c->dl);
  size_t n = lib->n_in + lib->n_out;
  for (size_t i = 0; !rc && i < n; i++) c->ptrs[i] = (char *)c->dl[i].data + c->dl[i].byte_offset;
  int32_t got = IRM_CRT_OK;
  if (rc) got = IRM_CRT_OK;
  else if (lib->ws_entry) got = lib->ws_entry(c->ptrs, c->ptrs + lib->n_in, c->ws);
  else if (lib->interface_c) got = lib->entry.c(c->ptrs, c->ptrs + lib->n_in);
  else {
    irm_crt_value result;
    int32_t result_code = 0;
    got = lib->entry.packed(c->vals, c->codes, (int32_t)n, &result, &result_code, NULL);
  }
  ctx_give(lib, c);
  /* the record is this thread's: the run's kernels ran here */
  const char *detail = !rc && got == IRM_CRT_EINDEX && lib->last_error ? lib->last_error() : NULL;
  if (detail && *detail) rc = irm_error(IRM_ERUNTIME, "module '%s' failed: %s", lib->mod_name, detail);
  else if (!rc && got)
    rc = irm_error(IRM_ERUNTIME, "module '%s' failed: %s (code %d)", lib->mod_name, irm_crt_strerror(got), got);
  return rc;
}
