/* The loader of exported libraries (include/irm/runtime.h, docs/runtime.md):
 * the runtime.Module type, runtime.Load / ModuleRun / ModuleRunInto /
 * ModuleMetadata.
 * runtime.Load finds the library's tvmgen_<mod_name>_metadata
 * (irm_library.h) and hands the library to the executor.load of the kind
 * its metadata names (load/load_internal.h); the module keeps the run
 * function it gives, and checks inputs and outputs against the metadata
 * (and makes the outputs for ModuleRun). */
#include <dlfcn.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "backend_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/kind.h"
#include "irm/runtime.h"
#include "irm/tensor.h"
#include "load/load_internal.h"

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
  irm_object *run; /* the executor.load's run function */
  io_desc *inputs, *outputs;
  size_t n_inputs, n_outputs;
  irm_object *metadata; /* String */
  bool concurrent;      /* executor.load said its run may run on several threads at once */
  int32_t threads;      /* the kernels' threads */
} loaded;

pthread_mutex_t irm_runtime_run_lock_ = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int32_t module_type = -1;

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
  irm_object_release(m->run); /* before the library it runs goes */
  if (m->handle) dlclose(m->handle);
}

int irm_register_runtime_module_type_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = IRM_RUNTIME_MODULE_TYPE_KEY,
                                                .finalize = module_finalize},
                               &module_type);
}

static const loaded *module_of(const irm_object *o) { return (const loaded *)irm_payload_if_type_(o, &module_type); }

static int open_library(loaded *m, const char *path, char **opened);
static int find_module(loaded *m, const char *path, const char *mod_name, const char **text);
static int call_load(loaded *m, const char *path, const char *text);
static int read_metadata(loaded *m, const char *path, const char *text);
static int check_cpu(const loaded *m, const char *path, const char *text);
static int setup_threads(loaded *m, const char *text, int32_t requested);

int irm_runtime_load(const char *path, irm_runtime_module **out) { return irm_runtime_load_module(path, NULL, out); }

int irm_runtime_load_module(const char *path, const char *mod_name, irm_runtime_module **out) {
  return irm_runtime_load_threads(path, mod_name, -1, out);
}

int irm_runtime_load_threads(const char *path, const char *mod_name, int32_t num_threads, irm_runtime_module **out) {
  if (!path || !out) return irm_error(IRM_EVALUE, "runtime.Load: path and out must not be NULL");
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  irm_object *o = NULL;
  rc = irm_object_new(atomic_load_explicit(&module_type, memory_order_acquire), sizeof(loaded), &o);
  if (rc) return rc;
  loaded *m = irm_object_payload(o);
  char *opened = NULL;
  const char *text = NULL;
  rc = open_library(m, path, &opened);
  if (!rc) rc = find_module(m, path, mod_name, &text);
  if (!rc) rc = check_cpu(m, path, text);
  if (!rc) rc = call_load(m, opened, text);
  if (!rc) rc = read_metadata(m, path, irm_string_data(m->metadata));
  if (!rc) rc = setup_threads(m, text, num_threads);
  irm_free(opened);
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

int irm_runtime_module_num_threads(const irm_runtime_module *module, int32_t *out) {
  const loaded *m = module_of(module);
  if (!m) return irm_error(IRM_ETYPE, "expected runtime.Module, got %s", module ? irm_object_type_key(module) : "NULL");
  *out = m->threads;
  return IRM_OK;
}

/* ---- load ------------------------------------------------------------------------------ */

/* The thread count from the library's own metadata (num_threads,
 * thread_affinity; absent: built before threads, serial). */
static int setup_threads(loaded *m, const char *text, int32_t requested) {
  json_t *root = json_loads(text, 0, NULL);
  json_t *n = json_object_get(root, "num_threads");
  int64_t built = json_is_integer(n) ? json_integer_value(n) : 1;
  bool affinity = json_is_true(json_object_get(root, "thread_affinity"));
  json_decref(root);
  return irm_load_threads_(m->handle, m->mod_name, requested, built, affinity, &m->threads);
}

/* dlopen; *opened is the name it was given (a name without '/' would make
 * dlopen search the system's folders, so "./" goes before it). */
static int open_library(loaded *m, const char *path, char **opened) {
  *opened = irm_malloc(strlen(path) + 3);
  if (!*opened) return irm_error(IRM_ENOMEM, "runtime.Load: out of memory");
  sprintf(*opened, "%s%s", strchr(path, '/') ? "" : "./", path);
  int rc = irm_load_check_arch_(*opened);
  if (rc) return rc;
  m->handle = dlopen(*opened, RTLD_NOW | RTLD_LOCAL);
  if (m->handle) return IRM_OK;
  const char *why = dlerror();
  return irm_error(IRM_ERUNTIME, "cannot load the library '%s': %s", path, why ? why : "unknown reason");
}

/* The module's metadata text: mod_name's, or the only module's. */
static int find_module(loaded *m, const char *path, const char *mod_name, const char **text) {
  char names[1024];
  size_t count = 0;
  int got = irm_library_modules(m->handle, names, sizeof names, &count);
  if (got == IRM_LIBRARY_ENOSYMTAB)
    return irm_error(IRM_EVALUE, "library '%s': its dynamic symbol table cannot be read", path);
  if (!count)
    return irm_error(IRM_EVALUE,
                     "library '%s' has no " IRM_LIBRARY_PREFIX "<mod_name>" IRM_LIBRARY_METADATA
                     ": it is not a library exported by irm",
                     path);
  if (!mod_name && got == IRM_LIBRARY_ENAME)
    return irm_error(IRM_EVALUE, "library '%s': its module's name is longer than %zu bytes: pass it as mod_name", path,
                     sizeof names - 1);
  if (!mod_name && count > 1)
    return irm_error(IRM_EVALUE, "library '%s' holds %zu modules (%s): pass the mod_name of the one to load", path,
                     count, names);
  const char *(*meta)(void) = NULL;
  void *sym = irm_library_symbol(m->handle, mod_name ? mod_name : names, IRM_LIBRARY_METADATA);
  if (!sym)
    return irm_error(IRM_EVALUE,
                     "library '%s' has no module '%s' (no " IRM_LIBRARY_PREFIX "%s" IRM_LIBRARY_METADATA
                     "); it holds: %s",
                     path, mod_name, mod_name, names);
  memcpy(&meta, &sym, sizeof meta);
  *text = meta();
  m->mod_name = irm_strdup(mod_name ? mod_name : names);
  return m->mod_name ? IRM_OK : irm_error(IRM_ENOMEM, "runtime.Load: out of memory");
}

/* Refuses a module whose code uses CPU features this machine lacks,
 * before anything of it runs: it would die of an illegal instruction. */
static int check_cpu(const loaded *m, const char *path, const char *text) {
  char msg[768];
  if (irm_library_check_cpu(text, m->mod_name, msg, sizeof msg) == IRM_LIBRARY_OK) return IRM_OK;
  return irm_error(IRM_ERUNTIME, "library '%s': %s", path, msg);
}

/* The executor.load of the kind the metadata names: its run function and
 * the metadata the module keeps. */
static int call_load(loaded *m, const char *path, const char *text) {
  json_t *root = json_loads(text, 0, NULL);
  const char *name = json_string_value(json_object_get(root, "executor"));
  irm_kind *kind = NULL;
  irm_any f = irm_any_none(), got = irm_any_none();
  int rc = name ? irm_kind_find("executor", name, &kind)
                : irm_error(IRM_EVALUE, "library '%s': the metadata of module '%s' names no \"executor\"", path,
                            m->mod_name);
  if (rc && name) rc = irm_error_context(rc, "library '%s' was built by executor '%s'", path, name);
  if (!rc) rc = irm_backend_kind_attr_(kind, IRM_EXECUTOR_LOAD_ATTR, &f);
  if (!rc && (f.type_code != IRM_OBJECT || !irm_object_is(f.v_obj, "ffi.Function")))
    rc = irm_error(IRM_EVALUE,
                   "library '%s' was built by executor '%s', which has no " IRM_EXECUTOR_LOAD_ATTR
                   ": register one (executor.SetKindAttr(\"%s\", \"" IRM_EXECUTOR_LOAD_ATTR "\", f), docs/plugins.md)",
                   path, name, name);
  irm_any args[4] = {irm_any_str(path), irm_any_str(m->mod_name), irm_any_str(text), irm_any_ptr(m->handle)};
  if (!rc) rc = irm_func_call(f.v_obj, args, 4, &got);
  const irm_any *run = NULL, *meta = NULL, *concurrent = NULL;
  if (!rc && (got.type_code != IRM_OBJECT || !irm_object_is(got.v_obj, "ffi.Map")))
    rc = irm_error(IRM_ETYPE, "executor.load of executor '%s' returned %s, not a Map with \"run\"", name,
                   irm_any_describe_(&got));
  if (!rc) {
    run = irm_map_find_cstr(got.v_obj, "run");
    meta = irm_map_find_cstr(got.v_obj, "metadata");
    concurrent = irm_map_find_cstr(got.v_obj, "concurrent");
  }
  if (!rc && concurrent && (rc = irm_any_to_bool(concurrent, &m->concurrent)))
    rc = irm_error_context(rc, "executor.load of executor '%s': its \"concurrent\"", name);
  if (!rc && (!run || run->type_code != IRM_OBJECT || !irm_object_is(run->v_obj, "ffi.Function")))
    rc = irm_error(IRM_ETYPE, "executor.load of executor '%s' returned a Map without a Function \"run\"", name);
  if (!rc && meta && (meta->type_code != IRM_OBJECT || !irm_object_is(meta->v_obj, "ffi.String")))
    rc = irm_error(IRM_ETYPE, "executor.load of executor '%s': its \"metadata\" is no str", name);
  if (!rc) {
    m->run = run->v_obj;
    irm_object_retain(m->run);
  }
  if (!rc && meta) {
    m->metadata = meta->v_obj;
    irm_object_retain(m->metadata);
  } else if (!rc) rc = irm_string_new(text, strlen(text), &m->metadata);
  irm_any_release(&got);
  irm_any_release(&f);
  json_decref(root);
  return rc;
}

static int read_io(const char *path, json_t *list, const char *what, io_desc **out, size_t *n) {
  if (!json_is_array(list)) return irm_error(IRM_EVALUE, "library '%s': metadata field '%s' is not a list", path, what);
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

/* The inputs and outputs the module checks and makes. */
static int read_metadata(loaded *m, const char *path, const char *text) {
  json_t *root = json_loads(text, 0, NULL);
  int rc = json_is_object(root) ? IRM_OK : irm_error(IRM_EVALUE, "library '%s': its metadata is no JSON object", path);
  if (!rc) rc = read_io(path, json_object_get(root, "inputs"), "inputs", &m->inputs, &m->n_inputs);
  if (!rc) rc = read_io(path, json_object_get(root, "outputs"), "outputs", &m->outputs, &m->n_outputs);
  json_decref(root);
  return rc;
}

/* ---- run -------------------------------------------------------------------------------- */

static void shape_text(char *buf, size_t size, const int64_t *shape, int32_t ndim) {
  size_t at = (size_t)snprintf(buf, size, "(");
  for (int32_t d = 0; d < ndim && at < size; d++)
    at += (size_t)snprintf(buf + at, size - at, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (at < size) snprintf(buf + at, size - at, "%s)", ndim == 1 ? "," : "");
}

/* v against io entry i of m (inputs or outputs: what names it). */
static int check_tensor(const loaded *m, const char *what, const io_desc *d, size_t i, const irm_any *v) {
  if (v->type_code != IRM_OBJECT || !irm_is_tensor(v->v_obj))
    return irm_error(IRM_ETYPE, "%s %zu ('%s') of module '%s': expected ffi.Tensor, got %s", what, i, d->name,
                     m->mod_name, irm_any_describe_(v));
  const DLTensor *t = irm_tensor_dl((const irm_tensor *)v->v_obj);
  if (!irm_dtype_equal(t->dtype, d->dtype))
    return irm_error(IRM_EVALUE, "%s '%s' of module '%s': expected dtype %s, got %s", what, d->name, m->mod_name,
                     irm_dtype_name(d->dtype), irm_dtype_name(t->dtype));
  int same = t->ndim == d->ndim;
  for (int32_t k = 0; same && k < d->ndim; k++) same = t->shape[k] == d->shape[k];
  if (!same) {
    char want[256], got[256];
    shape_text(want, sizeof want, d->shape, d->ndim);
    shape_text(got, sizeof got, t->shape, t->ndim);
    return irm_error(IRM_EVALUE, "%s '%s' of module '%s': expected shape %s, got %s", what, d->name, m->mod_name, want,
                     got);
  }
  return IRM_OK;
}

static int check_list(const loaded *m, const char *fn, const char *what, const irm_object *list, const io_desc *io,
                      size_t n) {
  if (!list || irm_object_type_index(list) != IRM_TYPE_ARRAY)
    return irm_error(IRM_ETYPE, "%s: %s: expected ffi.Array of Tensors, got %s", fn, what,
                     list ? irm_object_type_key(list) : "NULL");
  if (irm_array_size(list) != n)
    return irm_error(IRM_EVALUE, "module '%s' %s %zu %s, got %zu", m->mod_name, what[0] == 'i' ? "takes" : "gives", n,
                     what[0] == 'i' ? "inputs" : "outputs", irm_array_size(list));
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < n; i++)
    rc = check_tensor(m, what[0] == 'i' ? "input" : "output", &io[i], i, irm_array_at(list, i));
  return rc;
}

static void byte_range(const irm_any *v, const char **lo, const char **hi) {
  const DLTensor *t = irm_tensor_dl((const irm_tensor *)v->v_obj);
  size_t n = (t->dtype.bits * (size_t)t->dtype.lanes + 7) / 8;
  for (int32_t k = 0; k < t->ndim; k++) n *= (size_t)t->shape[k];
  *lo = (const char *)t->data;
  *hi = *lo + n;
}

/* Output j must share no byte with an input or another output: the
 * generated code may read an input after writing an output. */
static int check_overlap(const loaded *m, const irm_object *inputs, const irm_object *outputs) {
  for (size_t j = 0; j < m->n_outputs; j++) {
    const char *lo, *hi, *lo2, *hi2;
    byte_range(irm_array_at(outputs, j), &lo, &hi);
    if (lo == hi) continue;
    for (size_t k = 0; k < m->n_inputs + j; k++) {
      int in = k < m->n_inputs;
      byte_range(in ? irm_array_at(inputs, k) : irm_array_at(outputs, k - m->n_inputs), &lo2, &hi2);
      if (lo < hi2 && lo2 < hi)
        return irm_error(IRM_EVALUE, "output '%s' of module '%s' shares memory with %s '%s'", m->outputs[j].name,
                         m->mod_name, in ? "input" : "output",
                         in ? m->inputs[k].name : m->outputs[k - m->n_inputs].name);
    }
  }
  return IRM_OK;
}

static int call_run(const loaded *m, const irm_object *inputs, irm_object *outputs) {
  irm_any args[2] = {irm_any_object((irm_object *)inputs), irm_any_object(outputs)}, ret = irm_any_none();
  if (!m->concurrent) pthread_mutex_lock(&irm_runtime_run_lock_);
  int32_t before = irm_load_run_threads_(m->threads); /* the library may back modules of other counts */
  int rc = irm_func_call(m->run, args, 2, &ret);
  irm_load_run_threads_(before);
  if (!m->concurrent) pthread_mutex_unlock(&irm_runtime_run_lock_);
  irm_any_release(&ret);
  return rc;
}

static int get_module(const irm_runtime_module *module, const char *fn, const loaded **m) {
  *m = module_of(module);
  if (*m) return IRM_OK;
  return irm_error(IRM_ETYPE, "%s: expected runtime.Module, got %s", fn, module ? irm_object_type_key(module) : "NULL");
}

int irm_runtime_module_run_into(const irm_runtime_module *module, const irm_object *inputs, irm_object *outputs) {
  static const char fn[] = "runtime.ModuleRunInto";
  const loaded *m = NULL;
  int rc = get_module(module, fn, &m);
  if (rc) return rc;
  rc = check_list(m, fn, "inputs", inputs, m->inputs, m->n_inputs);
  if (!rc) rc = check_list(m, fn, "outputs", outputs, m->outputs, m->n_outputs);
  if (!rc) rc = check_overlap(m, inputs, outputs);
  if (!rc) rc = call_run(m, inputs, outputs);
  return rc;
}

int irm_runtime_module_run(const irm_runtime_module *module, const irm_object *inputs, irm_object **outputs) {
  static const char fn[] = "runtime.ModuleRun";
  const loaded *m = NULL;
  int rc = get_module(module, fn, &m);
  if (!rc) rc = check_list(m, fn, "inputs", inputs, m->inputs, m->n_inputs);
  if (rc) return rc;
  irm_object **outs = irm_calloc(m->n_outputs + 1, sizeof *outs);
  if (!outs) return irm_error(IRM_ENOMEM, "runtime.ModuleRun: out of memory");
  for (size_t j = 0; !rc && j < m->n_outputs; j++)
    rc = irm_tensor_new(m->outputs[j].dtype, m->outputs[j].shape, m->outputs[j].ndim, NULL, (irm_tensor **)&outs[j]);
  irm_object *arr = NULL;
  irm_any *vals = rc ? NULL : irm_calloc(m->n_outputs + 1, sizeof *vals);
  if (!rc && !vals) rc = irm_error(IRM_ENOMEM, "runtime.ModuleRun: out of memory");
  for (size_t j = 0; !rc && j < m->n_outputs; j++) vals[j] = irm_any_object(outs[j]);
  if (!rc) rc = irm_array_new(vals, m->n_outputs, &arr);
  irm_free(vals);
  for (size_t j = 0; j < m->n_outputs; j++) irm_object_release(outs[j]);
  irm_free(outs);
  if (!rc) rc = call_run(m, inputs, arr);
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
  const char *mod_name = NULL;
  int64_t threads = -1;
  int rc = irm_arg_count(fn, nargs, 1, 3);
  if (!rc) rc = irm_arg_str(fn, args, 0, &path, NULL);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_str(fn, args, 1, &mod_name, NULL);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_int(fn, args, 2, &threads);
  if (!rc && (threads < -1 || threads > INT32_MAX))
    rc = irm_error(IRM_EVALUE, "%s: num_threads must be 0 (every CPU) or a thread count, got %lld", fn,
                   (long long)threads);
  if (!rc) rc = irm_runtime_load_threads(path, mod_name, (int32_t)threads, &m);
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

static int g_run_into(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "runtime.ModuleRunInto";
  (void)resource;
  irm_object *m = NULL, *in = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 3, 3);
  if (!rc) rc = irm_arg_object(fn, args, 0, IRM_RUNTIME_MODULE_TYPE_KEY, &m);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ffi.Array", &in);
  if (!rc) rc = irm_arg_object(fn, args, 2, "ffi.Array", &out);
  if (!rc) rc = irm_runtime_module_run_into(m, in, out);
  if (!rc) *ret = irm_any_none();
  return rc;
}

static int g_num_threads(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "runtime.ModuleNumThreads";
  (void)resource;
  irm_object *m = NULL;
  int32_t n = 1;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, IRM_RUNTIME_MODULE_TYPE_KEY, &m);
  if (!rc) rc = irm_runtime_module_num_threads(m, &n);
  if (!rc) *ret = irm_any_int(n);
  return rc;
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
  static const irm_builtin_global globals[] = {{"runtime.Load", g_load},
                                               {"runtime.ModuleRun", g_run},
                                               {"runtime.ModuleRunInto", g_run_into},
                                               {"runtime.ModuleMetadata", g_metadata},
                                               {"runtime.ModuleNumThreads", g_num_threads}};
  return irm_global_register_builtins_(globals, sizeof globals / sizeof globals[0]);
}
