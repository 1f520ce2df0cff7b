/* The loader of exported AOT libraries (include/irm/runtime.h): the
 * runtime.Module type, runtime.Load / ModuleRun / ModuleMetadata. */
#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "backend_internal.h"
#include "graph_loader.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/runtime.h"
#include "irm/tensor.h"
#include "irm_crt.h"

enum { MAX_NDIM = 16 };

typedef struct io_desc {
  char *name;
  DLDataType dtype;
  int32_t ndim;
  int64_t shape[MAX_NDIM];
} io_desc;

typedef struct loaded {
  void *handle;
  char *mod_name;
  int interface_c;
  union {
    int32_t (*c)(void *inputs, void *outputs);
    irm_crt_packed_func packed;
  } entry;
  io_desc *inputs, *outputs;
  size_t n_inputs, n_outputs;
  irm_object *metadata; /* String */
  void *graph;          /* a graph-executor library: its graph runner (graph_loader.h) */
} loaded;

static _Atomic int32_t module_type = -1;
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

static void free_io(io_desc *io, size_t n) {
  for (size_t i = 0; io && i < n; i++) irm_free(io[i].name);
  irm_free(io);
}

static void module_finalize(irm_object *self) {
  loaded *m = irm_object_payload(self);
  free_io(m->inputs, m->n_inputs);
  free_io(m->outputs, m->n_outputs);
  irm_free(m->mod_name);
  irm_object_release(m->metadata);
  if (m->graph) irm_graph_close_(m->graph);
  if (m->handle) dlclose(m->handle);
}

int irm_register_runtime_module_type_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = IRM_RUNTIME_MODULE_TYPE_KEY,
                                                .finalize = module_finalize},
                              &module_type);
}

static const loaded *module_of(const irm_object *o) {
  return (const loaded *)irm_payload_if_type_(o, &module_type);
}

/* ---- metadata ---------------------------------------------------------------------- */

static int read_io(const char *path, json_t *list, const char *what, io_desc **out, size_t *n) {
  if (!json_is_array(list))
    return irm_error(IRM_EVALUE, "library '%s': metadata field '%s' is not a list", path, what);
  *n = json_array_size(list);
  *out = irm_calloc(*n + 1, sizeof **out);
  if (!*out) return irm_error(IRM_ENOMEM, "runtime.Load: out of memory");
  for (size_t i = 0; i < *n; i++) {
    json_t *e = json_array_get(list, i), *shape = json_object_get(e, "shape");
    const char *name = json_string_value(json_object_get(e, "name"));
    const char *dtype = json_string_value(json_object_get(e, "dtype"));
    if (!name || !dtype || !json_is_array(shape) || json_array_size(shape) > MAX_NDIM)
      return irm_error(IRM_EVALUE, "library '%s': metadata entry %zu of '%s' lacks a name, dtype or shape", path, i,
                       what);
    io_desc *d = &(*out)[i];
    d->name = irm_strdup(name);
    if (!d->name) return irm_error(IRM_ENOMEM, "runtime.Load: out of memory");
    int rc = irm_dtype_parse(dtype, &d->dtype);
    if (rc) return rc;
    d->ndim = (int32_t)json_array_size(shape);
    for (int32_t k = 0; k < d->ndim; k++) d->shape[k] = json_integer_value(json_array_get(shape, (size_t)k));
  }
  return IRM_OK;
}

static int read_file(const char *path, char **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return irm_error(IRM_ERUNTIME, "cannot read the params file '%s': %s", path, strerror(errno));
  irm_text_buf b;
  irm_text_buf_init_(&b, NULL, 0);
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) irm_text_buf_append_(&b, chunk, n);
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    irm_text_buf_free_(&b);
    return irm_error(IRM_ERUNTIME, "cannot read the params file '%s'", path);
  }
  *size = b.len;
  return irm_text_buf_take_cstr_(&b, "for the params file", data);
}

/* The params file beside the library, given to its set_params. */
static int load_params(loaded *m, const char *path, const char *file, const char *setter) {
  int32_t (*set)(const void *, size_t) = NULL;
  void *sym = dlsym(m->handle, setter);
  if (!sym) return irm_error(IRM_EVALUE, "library '%s' has no symbol '%s' (its metadata names it)", path, setter);
  memcpy(&set, &sym, sizeof set);
  const char *slash = strrchr(path, '/');
  size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
  char *full = irm_malloc(dirlen + strlen(file) + 1);
  if (!full) return irm_error(IRM_ENOMEM, "runtime.Load: out of memory");
  memcpy(full, path, dirlen);
  strcpy(full + dirlen, file);
  char *blob = NULL;
  size_t size = 0;
  int rc = read_file(full, &blob, &size);
  if (!rc) {
    pthread_mutex_lock(&run_lock);
    int32_t got = set(blob, size);
    pthread_mutex_unlock(&run_lock);
    if (got) rc = irm_error(IRM_EVALUE, "library '%s' refuses the params file '%s': %s", path, full,
                            irm_crt_strerror(got));
  }
  irm_free(blob);
  irm_free(full);
  return rc;
}

static int read_metadata(loaded *m, const char *path, const char *text) {
  json_error_t err;
  json_t *root = json_loads(text, 0, &err);
  if (!root || !json_is_object(root)) {
    json_decref(root);
    return irm_error(IRM_EVALUE, "library '%s': its metadata is no JSON object", path);
  }
  const char *api = json_string_value(json_object_get(root, "interface_api"));
  const char *entry = json_string_value(json_object_get(root, "entry"));
  const char *name = json_string_value(json_object_get(root, "mod_name"));
  const char *params = json_string_value(json_object_get(root, "params_file"));
  const char *setter = json_string_value(json_object_get(root, "set_params"));
  int rc = IRM_OK;
  if (!api || !entry || !name)
    rc = irm_error(IRM_EVALUE, "library '%s': its metadata lacks interface_api, entry or mod_name", path);
  if (!rc) rc = read_io(path, json_object_get(root, "inputs"), "inputs", &m->inputs, &m->n_inputs);
  if (!rc) rc = read_io(path, json_object_get(root, "outputs"), "outputs", &m->outputs, &m->n_outputs);
  if (!rc && m->graph) { /* a graph library: the runner has its kernels and params */
    m->mod_name = irm_strdup(name);
    json_decref(root);
    return m->mod_name ? IRM_OK : irm_error(IRM_ENOMEM, "runtime.Load: out of memory");
  }
  if (!rc) {
    m->interface_c = strcmp(api, "c") == 0;
    m->mod_name = irm_strdup(name);
    void *sym = dlsym(m->handle, entry);
    if (!m->mod_name) rc = irm_error(IRM_ENOMEM, "runtime.Load: out of memory");
    else if (!sym) rc = irm_error(IRM_EVALUE, "library '%s' has no entry symbol '%s'", path, entry);
    else if (m->interface_c) memcpy(&m->entry.c, &sym, sizeof m->entry.c);
    else memcpy(&m->entry.packed, &sym, sizeof m->entry.packed);
  }
  if (!rc && params) {
    if (!setter) rc = irm_error(IRM_EVALUE, "library '%s': its metadata names a params file but no set_params", path);
    else rc = load_params(m, path, params, setter);
  }
  json_decref(root);
  return rc;
}

int irm_runtime_load(const char *path, irm_runtime_module **out) {
  if (!path || !out) return irm_error(IRM_EVALUE, "runtime.Load: path and out must not be NULL");
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  irm_object *o = NULL;
  rc = irm_object_new(atomic_load_explicit(&module_type, memory_order_acquire), sizeof(loaded), &o);
  if (rc) return rc;
  loaded *m = irm_object_payload(o);
  /* a name without '/' would make dlopen search the system's folders */
  char *local = NULL;
  if (!strchr(path, '/')) {
    local = irm_malloc(strlen(path) + 3);
    if (local) sprintf(local, "./%s", path);
  }
  m->handle = dlopen(local ? local : path, RTLD_NOW | RTLD_LOCAL);
  irm_free(local);
  if (!m->handle) {
    const char *why = dlerror();
    rc = irm_error(IRM_ERUNTIME, "cannot load the library '%s': %s", path, why ? why : "unknown reason");
  }
  const char *(*meta)(void) = NULL;
  void *sym = rc ? NULL : dlsym(m->handle, "irm_aot_metadata");
  if (!rc && !sym && dlsym(m->handle, "irm_graph_json")) { /* a graph library (docs/graph.md) */
    rc = irm_graph_open_(path, &m->graph, &m->metadata);
    if (!rc) rc = read_metadata(m, path, irm_string_data(m->metadata));
    if (rc) {
      irm_object_release(o);
      return irm_error_context(rc, "runtime.Load");
    }
    *out = o;
    return IRM_OK;
  }
  if (!rc && !sym)
    rc = irm_error(IRM_EVALUE, "library '%s' has neither irm_aot_metadata nor irm_graph_json: it is not a "
                   "library exported by irm", path);
  if (!rc) memcpy(&meta, &sym, sizeof meta);
  const char *text = rc ? NULL : meta();
  if (!rc) rc = irm_string_new(text, strlen(text), &m->metadata);
  if (!rc) rc = read_metadata(m, path, text);
  if (rc) {
    irm_object_release(o);
    return irm_error_context(rc, "runtime.Load");
  }
  *out = o;
  return IRM_OK;
}

int irm_runtime_module_metadata(const irm_runtime_module *module, irm_object **out) {
  const loaded *m = module_of(module);
  if (!m) return irm_error(IRM_ETYPE, "expected runtime.Module, got %s", module ? irm_object_type_key(module) : "NULL");
  irm_object_retain(m->metadata);
  *out = m->metadata;
  return IRM_OK;
}

/* ---- run -------------------------------------------------------------------------------- */

static void shape_text(char *buf, size_t size, const int64_t *shape, int32_t ndim) {
  size_t at = (size_t)snprintf(buf, size, "(");
  for (int32_t d = 0; d < ndim && at < size; d++)
    at += (size_t)snprintf(buf + at, size - at, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (at < size) snprintf(buf + at, size - at, "%s)", ndim == 1 ? "," : "");
}

static int check_input(const loaded *m, size_t i, const irm_any *v) {
  const io_desc *d = &m->inputs[i];
  if (v->type_code != IRM_OBJECT || !irm_is_tensor(v->v_obj))
    return irm_error(IRM_ETYPE, "input %zu ('%s') of module '%s': expected ffi.Tensor, got %s", i, d->name,
                     m->mod_name, irm_any_describe_(v));
  const DLTensor *t = irm_tensor_dl((const irm_tensor *)v->v_obj);
  if (!irm_dtype_equal(t->dtype, d->dtype))
    return irm_error(IRM_EVALUE, "input '%s' of module '%s': expected dtype %s, got %s", d->name, m->mod_name,
                     irm_dtype_name(d->dtype), irm_dtype_name(t->dtype));
  int same = t->ndim == d->ndim;
  for (int32_t k = 0; same && k < d->ndim; k++) same = t->shape[k] == d->shape[k];
  if (!same) {
    char want[256], got[256];
    shape_text(want, sizeof want, d->shape, d->ndim);
    shape_text(got, sizeof got, t->shape, t->ndim);
    return irm_error(IRM_EVALUE, "input '%s' of module '%s': expected shape %s, got %s", d->name, m->mod_name, want,
                     got);
  }
  return IRM_OK;
}

static int call_entry(const loaded *m, const irm_object *inputs, irm_object *const *outs) {
  size_t n = m->n_inputs + m->n_outputs;
  void **ptrs = irm_calloc(n + 1, sizeof *ptrs);
  DLTensor *dl = irm_calloc(n + 1, sizeof *dl);
  irm_crt_value *args = irm_calloc(n + 1, sizeof *args);
  int32_t *codes = irm_calloc(n + 1, sizeof *codes);
  if (!ptrs || !dl || !args || !codes) {
    irm_free(ptrs);
    irm_free(dl);
    irm_free(args);
    irm_free(codes);
    return irm_error(IRM_ENOMEM, "runtime.ModuleRun: out of memory");
  }
  for (size_t i = 0; i < n; i++) {
    irm_tensor *t = i < m->n_inputs ? (irm_tensor *)irm_array_at(inputs, i)->v_obj : outs[i - m->n_inputs];
    dl[i] = *irm_tensor_dl(t);
    ptrs[i] = irm_tensor_data(t);
    args[i].v_handle = &dl[i];
    codes[i] = IRM_CRT_DLTENSOR;
  }
  pthread_mutex_lock(&run_lock);
  int32_t got;
  if (m->graph) {
    int rc = irm_graph_call_(m->graph, dl, m->n_inputs, dl + m->n_inputs, m->n_outputs);
    pthread_mutex_unlock(&run_lock);
    irm_free(ptrs);
    irm_free(dl);
    irm_free(args);
    irm_free(codes);
    return rc;
  }
  if (m->interface_c) {
    got = m->entry.c(ptrs, ptrs + m->n_inputs);
  } else {
    irm_crt_value ret;
    int32_t ret_code = 0;
    got = m->entry.packed(args, codes, (int32_t)n, &ret, &ret_code, NULL);
  }
  pthread_mutex_unlock(&run_lock);
  irm_free(ptrs);
  irm_free(dl);
  irm_free(args);
  irm_free(codes);
  if (got) return irm_error(IRM_ERUNTIME, "module '%s' failed: %s (code %d)", m->mod_name, irm_crt_strerror(got), got);
  return IRM_OK;
}

int irm_runtime_module_run(const irm_runtime_module *module, const irm_object *inputs, irm_object **outputs) {
  const loaded *m = module_of(module);
  if (!m) return irm_error(IRM_ETYPE, "runtime.ModuleRun: expected runtime.Module, got %s",
                           module ? irm_object_type_key(module) : "NULL");
  if (!inputs || irm_object_type_index(inputs) != IRM_TYPE_ARRAY)
    return irm_error(IRM_ETYPE, "runtime.ModuleRun: inputs: expected ffi.Array of Tensors, got %s",
                     inputs ? irm_object_type_key(inputs) : "NULL");
  if (irm_array_size(inputs) != m->n_inputs)
    return irm_error(IRM_EVALUE, "module '%s' takes %zu inputs, got %zu", m->mod_name, m->n_inputs,
                     irm_array_size(inputs));
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < m->n_inputs; i++) rc = check_input(m, i, irm_array_at(inputs, i));
  if (rc) return rc;
  irm_object **outs = irm_calloc(m->n_outputs + 1, sizeof *outs);
  if (!outs) return irm_error(IRM_ENOMEM, "runtime.ModuleRun: out of memory");
  for (size_t j = 0; !rc && j < m->n_outputs; j++)
    rc = irm_tensor_new(m->outputs[j].dtype, m->outputs[j].shape, m->outputs[j].ndim, NULL, (irm_tensor **)&outs[j]);
  if (!rc) rc = call_entry(m, inputs, outs);
  irm_object *arr = NULL;
  irm_any *vals = rc ? NULL : irm_calloc(m->n_outputs + 1, sizeof *vals);
  if (!rc && !vals) rc = irm_error(IRM_ENOMEM, "runtime.ModuleRun: out of memory");
  for (size_t j = 0; !rc && j < m->n_outputs; j++) vals[j] = irm_any_object(outs[j]);
  if (!rc) rc = irm_array_new(vals, m->n_outputs, &arr);
  irm_free(vals);
  for (size_t j = 0; j < m->n_outputs; j++) irm_object_release(outs[j]);
  irm_free(outs);
  if (rc) {
    irm_object_release(arr);
    return rc;
  }
  *outputs = arr;
  return IRM_OK;
}

/* ---- globals ------------------------------------------------------------------------------ */

static int g_load(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "runtime.Load";
  (void)resource;
  const char *path = NULL;
  irm_object *m = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &path, NULL);
  if (!rc) rc = irm_runtime_load(path, &m);
  return irm_ret_object(fn, rc, &m, ret);
}

static int g_run(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "runtime.ModuleRun";
  (void)resource;
  irm_object *m = NULL, *in = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, IRM_RUNTIME_MODULE_TYPE_KEY, &m);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ffi.Array", &in);
  if (!rc) rc = irm_runtime_module_run(m, in, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

static int g_metadata(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "runtime.ModuleMetadata";
  (void)resource;
  irm_object *m = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, IRM_RUNTIME_MODULE_TYPE_KEY, &m);
  if (!rc) rc = irm_runtime_module_metadata(m, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

int irm_register_runtime_globals_(void) {
  static const irm_builtin_global globals[] = {
      {"runtime.Load", g_load}, {"runtime.ModuleRun", g_run}, {"runtime.ModuleMetadata", g_metadata}};
  return irm_global_register_builtins_(globals, sizeof globals / sizeof globals[0]);
}
