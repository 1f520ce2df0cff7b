/* The graph runner (irm_graph_runner.h, docs/graph.md): reads a graph JSON
 * with jansson, binds the kernels by name, allocates storage by storage id
 * and runs the nodes in order. Stands alone (runtime/): no irm header. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_crt.h"
#include "irm_graph_runner.h"
#include "irm_library.h"
#include "irm_params.h"
#include "graph_runner_internal.h"

enum { MAX_NDIM = 16 };
#define MAX_BYTES ((uint64_t)1 << 40) /* an entry larger than this is refused */
/* The most storage one runner allocates (the fuzz build lowers it). */
#ifndef IRM_GRAPH_MAX_STORAGE
#define IRM_GRAPH_MAX_STORAGE ((uint64_t)1 << 40)
#endif

typedef struct gnode {
  char *name;
  int is_op;
  char *func_name;
  irm_crt_packed_func fn;
  size_t n_in, n_out;
  size_t scratch;
  DLTensor *tensors;   /* n_in + n_out views of the storage */
  irm_crt_value *vals; /* n_in + n_out */
  int32_t *codes;
} gnode;

typedef struct entry {
  DLDataType dtype;
  int32_t ndim;
  int64_t shape[MAX_NDIM];
  size_t bytes, sid;
} entry;

struct irm_graph_runner {
  void *dso;
  gnode *nodes;
  size_t n_nodes;
  size_t *row_ptr;
  entry *entries;
  size_t n_entries;
  void **storage;
  void **cur; /* per storage id: where its views point (storage, or a bound output's memory) */
  size_t *storage_bytes;
  size_t n_storage;
  size_t *args;                     /* arg nodes */
  unsigned char *is_param, *is_set; /* per arg */
  size_t n_args;
  size_t *inputs; /* arg indices not filled by params */
  size_t n_inputs;
  size_t *heads; /* entries */
  size_t n_heads;
  void **out_to;        /* per head: the caller's memory (set_output_zero_copy), or NULL */
  unsigned char *bound; /* per head: out_to is the storage its views point at */
  void *scratch;
  size_t scratch_bytes;
  char err[512];
};

int irm_graph_fail_(char *buf, size_t size, int code, const char *fmt, ...) {
  if (buf && size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
  }
  return code;
}

#define fail irm_graph_fail_
#define RFAIL(r, code, ...) fail((r)->err, sizeof(r)->err, code, __VA_ARGS__)

void *irm_graph_runner_dso_(const irm_graph_runner *r) { return r->dso; }
void irm_graph_runner_own_dso_(irm_graph_runner *r, void *dso) { r->dso = dso; }

void irm_graph_runner_free(irm_graph_runner *r) {
  if (!r) return;
  for (size_t n = 0; r->nodes && n < r->n_nodes; n++) {
    free(r->nodes[n].name);
    free(r->nodes[n].func_name);
    free(r->nodes[n].tensors);
    free(r->nodes[n].vals);
    free(r->nodes[n].codes);
  }
  for (size_t s = 0; r->storage && s < r->n_storage; s++) free(r->storage[s]);
  free(r->storage);
  free(r->cur);
  free(r->storage_bytes);
  free(r->nodes);
  free(r->row_ptr);
  free(r->entries);
  free(r->args);
  free(r->is_param);
  free(r->is_set);
  free(r->inputs);
  free(r->heads);
  free(r->out_to);
  free(r->bound);
  free(r->scratch);
  if (r->dso) dlclose(r->dso);
  free(r);
}

const char *irm_graph_runner_error(const irm_graph_runner *r) { return r ? r->err : "no runner"; }

/* ---- reading the JSON ------------------------------------------------------------ */

/* A non-negative integer, or a string of one (TVM writes attrs as strings). */
static int as_size(json_t *v, size_t limit, size_t *out) {
  json_int_t i = -1;
  if (json_is_integer(v)) i = json_integer_value(v);
  else if (json_is_string(v)) {
    const char *s = json_string_value(v);
    char *end = NULL;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end || errno) return -1;
    i = x;
  }
  if (i < 0 || (uint64_t)i >= limit) return -1;
  *out = (size_t)i;
  return 0;
}

static int parse_dtype(const char *s, DLDataType *out) {
  static const struct {
    const char *prefix;
    uint8_t code;
  } kinds[] = {{"float", kDLFloat}, {"uint", kDLUInt}, {"int", kDLInt}};
  out->lanes = 1;
  if (strcmp(s, "bool") == 0) {
    out->code = 6; /* kDLBool of newer DLPack headers */
    out->bits = 8;
    return 0;
  }
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    size_t n = strlen(kinds[k].prefix);
    if (strncmp(s, kinds[k].prefix, n) != 0) continue;
    const char *b = s + n;
    int bits = (strcmp(b, "8") == 0)  ? 8
               : strcmp(b, "16") == 0 ? 16
               : strcmp(b, "32") == 0 ? 32
               : strcmp(b, "64") == 0 ? 64
                                      : 0;
    if (!bits) return -1;
    out->code = kinds[k].code;
    out->bits = (uint8_t)bits;
    return 0;
  }
  return -1;
}

/* [node, index, version] naming an entry of a node before `before`. */
static int entry_ref(irm_graph_runner *r, json_t *ref, size_t before, size_t *out) {
  size_t node = 0, index = 0;
  if (!json_is_array(ref) || json_array_size(ref) < 2 || json_array_size(ref) > 3 ||
      as_size(json_array_get(ref, 0), before, &node) || as_size(json_array_get(ref, 1), SIZE_MAX, &index) ||
      index >= r->row_ptr[node + 1] - r->row_ptr[node])
    return -1;
  *out = r->row_ptr[node] + index;
  return 0;
}

/* attrs' ["<type>", [...]] list of n items. */
static json_t *attr_list(json_t *attrs, const char *key, const char *type, size_t n) {
  json_t *v = json_object_get(attrs, key);
  if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_string(json_array_get(v, 0)) ||
      strcmp(json_string_value(json_array_get(v, 0)), type) != 0)
    return NULL;
  json_t *list = json_array_get(v, 1);
  return json_is_array(list) && json_array_size(list) == n ? list : NULL;
}

static int read_row_ptr(irm_graph_runner *r, json_t *root, char *err, size_t es) {
  json_t *rp = json_object_get(root, "node_row_ptr");
  if (!json_is_array(rp) || json_array_size(rp) != r->n_nodes + 1)
    return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: node_row_ptr must be a list of %zu integers (nodes + 1)",
                r->n_nodes + 1);
  r->row_ptr = calloc(r->n_nodes + 1, sizeof *r->row_ptr);
  if (!r->row_ptr) return fail(err, es, IRM_GRAPH_ENOMEM, "graph runner: out of memory");
  for (size_t n = 0; n <= r->n_nodes; n++) {
    if (as_size(json_array_get(rp, n), (size_t)1 << 30, &r->row_ptr[n]) || (n && r->row_ptr[n] < r->row_ptr[n - 1]) ||
        (!n && r->row_ptr[0] != 0))
      return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: node_row_ptr[%zu] is not a non-decreasing count from 0", n);
  }
  r->n_entries = r->row_ptr[r->n_nodes];
  return IRM_GRAPH_OK;
}

static int read_attrs(irm_graph_runner *r, json_t *root, char *err, size_t es) {
  json_t *attrs = json_object_get(root, "attrs");
  size_t n = r->n_entries;
  json_t *dl = attr_list(attrs, "dltype", "list_str", n), *sid = attr_list(attrs, "storage_id", "list_int", n);
  json_t *shape = attr_list(attrs, "shape", "list_shape", n);
  const char *bad = !dl ? "dltype" : !sid ? "storage_id" : !shape ? "shape" : NULL;
  if (bad)
    return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: attrs.%s must be [\"%s\", [...]] with %zu items (one per entry)",
                bad,
                !dl    ? "list_str"
                : !sid ? "list_int"
                       : "list_shape",
                n);
  r->entries = calloc(n + 1, sizeof *r->entries);
  if (!r->entries) return fail(err, es, IRM_GRAPH_ENOMEM, "graph runner: out of memory");
  for (size_t e = 0; e < n; e++) {
    entry *x = &r->entries[e];
    const char *d = json_string_value(json_array_get(dl, e));
    if (!d || parse_dtype(d, &x->dtype))
      return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: attrs.dltype[%zu] is no supported dtype (%s)", e,
                  d ? d : "not a string");
    if (as_size(json_array_get(sid, e), n, &x->sid))
      return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: attrs.storage_id[%zu] must be an integer from 0 to %zu", e,
                  n ? n - 1 : 0);
    if (x->sid + 1 > r->n_storage) r->n_storage = x->sid + 1;
    json_t *s = json_array_get(shape, e);
    if (!json_is_array(s) || json_array_size(s) > MAX_NDIM)
      return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: attrs.shape[%zu] must be a list of at most %d dims", e,
                  MAX_NDIM);
    x->ndim = (int32_t)json_array_size(s);
    uint64_t bytes = x->dtype.bits / 8;
    for (int32_t k = 0; k < x->ndim; k++) {
      size_t dim = 0;
      if (as_size(json_array_get(s, (size_t)k), MAX_BYTES, &dim))
        return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: attrs.shape[%zu][%d] is no dimension", e, (int)k);
      x->shape[k] = (int64_t)dim;
      bytes = dim && bytes > MAX_BYTES / dim ? MAX_BYTES : bytes * dim;
    }
    if (bytes >= MAX_BYTES) return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: entry %zu is too large", e);
    x->bytes = (size_t)bytes;
  }
  return IRM_GRAPH_OK;
}

static int read_node(irm_graph_runner *r, size_t n, json_t *jn, irm_graph_resolver resolve, void *ctx, char *err,
                     size_t es) {
  gnode *g = &r->nodes[n];
  const char *op = json_string_value(json_object_get(jn, "op"));
  const char *name = json_string_value(json_object_get(jn, "name"));
  json_t *inputs = json_object_get(jn, "inputs");
  if (!op || !name || !json_is_array(inputs))
    return fail(err, es, IRM_GRAPH_EJSON,
                "graph JSON: node %zu needs \"op\", \"name\" (strings) and \"inputs\" (a list)", n);
  g->name = strdup(name);
  if (!g->name) return fail(err, es, IRM_GRAPH_ENOMEM, "graph runner: out of memory");
  size_t n_out = r->row_ptr[n + 1] - r->row_ptr[n];
  if (strcmp(op, "null") == 0) {
    if (n_out != 1 || json_array_size(inputs))
      return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: node %zu ('%s'): a \"null\" node has no inputs and 1 entry", n,
                  name);
    return IRM_GRAPH_OK;
  }
  if (strcmp(op, "tvm_op") != 0)
    return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: node %zu ('%s'): op must be \"null\" or \"tvm_op\", got \"%s\"",
                n, name, op);
  json_t *attrs = json_object_get(jn, "attrs");
  const char *func = json_string_value(json_object_get(attrs, "func_name"));
  size_t nin = 0, nout = 0, scratch = 0;
  json_t *sb = json_object_get(attrs, "scratch_bytes");
  if (!func || as_size(json_object_get(attrs, "num_inputs"), 4096, &nin) ||
      as_size(json_object_get(attrs, "num_outputs"), 4096, &nout) || (sb && as_size(sb, MAX_BYTES, &scratch)))
    return fail(err, es, IRM_GRAPH_EJSON,
                "graph JSON: node %zu ('%s'): attrs need func_name, num_inputs, num_outputs "
                "(and scratch_bytes, when given, a size)",
                n, name);
  if (nin != json_array_size(inputs) || nout != n_out)
    return fail(err, es, IRM_GRAPH_EJSON,
                "graph JSON: node %zu ('%s'): num_inputs %zu / num_outputs %zu, but %zu inputs "
                "and %zu entries",
                n, name, nin, nout, json_array_size(inputs), n_out);
  g->is_op = 1;
  g->n_in = nin;
  g->n_out = nout;
  g->scratch = scratch;
  if (scratch > r->scratch_bytes) r->scratch_bytes = scratch;
  g->func_name = strdup(func);
  g->tensors = calloc(nin + nout + 1, sizeof *g->tensors);
  g->vals = calloc(nin + nout + 1, sizeof *g->vals);
  g->codes = calloc(nin + nout + 1, sizeof *g->codes);
  if (!g->func_name || !g->tensors || !g->vals || !g->codes)
    return fail(err, es, IRM_GRAPH_ENOMEM, "graph runner: out of memory");
  for (size_t i = 0; i < nin + nout; i++) {
    size_t e = r->row_ptr[n] + (i - nin);
    if (i < nin && entry_ref(r, json_array_get(inputs, i), n, &e))
      return fail(err, es, IRM_GRAPH_EJSON,
                  "graph JSON: node %zu ('%s'): input %zu must be [node, index, version] "
                  "naming an entry of an earlier node",
                  n, name, i);
    g->tensors[i].ndim = (int32_t)e; /* the entry, until storage exists */
  }
  if (strcmp(func, "__nop") == 0) { /* a view sharing its input's storage: nothing runs (TVM's) */
    g->fn = NULL;
    return IRM_GRAPH_OK;
  }
  void *sym = resolve ? resolve(ctx, func) : NULL;
  if (!sym)
    return fail(err, es, IRM_GRAPH_EKERNEL, "graph: node %zu ('%s'): no kernel '%s' in the library", n, name, func);
  memcpy(&g->fn, &sym, sizeof g->fn);
  return IRM_GRAPH_OK;
}

static int read_args_heads(irm_graph_runner *r, json_t *root, char *err, size_t es) {
  json_t *args = json_object_get(root, "arg_nodes"), *heads = json_object_get(root, "heads");
  if (!json_is_array(args) || !json_is_array(heads))
    return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: arg_nodes and heads must be lists");
  r->n_args = json_array_size(args);
  r->n_heads = json_array_size(heads);
  r->args = calloc(r->n_args + 1, sizeof *r->args);
  r->is_param = calloc(r->n_args + 1, 1);
  r->is_set = calloc(r->n_args + 1, 1);
  r->inputs = calloc(r->n_args + 1, sizeof *r->inputs);
  r->heads = calloc(r->n_heads + 1, sizeof *r->heads);
  r->out_to = calloc(r->n_heads + 1, sizeof *r->out_to);
  r->bound = calloc(r->n_heads + 1, 1);
  if (!r->args || !r->is_param || !r->is_set || !r->inputs || !r->heads || !r->out_to || !r->bound)
    return fail(err, es, IRM_GRAPH_ENOMEM, "graph runner: out of memory");
  for (size_t i = 0; i < r->n_args; i++) {
    size_t a = 0;
    if (as_size(json_array_get(args, i), r->n_nodes, &a) || r->nodes[a].is_op)
      return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: arg_nodes[%zu] must be the index of a \"null\" node", i);
    for (size_t j = 0; j < i; j++)
      if (r->args[j] == a) return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: arg_nodes lists node %zu twice", a);
    r->args[i] = a;
    r->inputs[r->n_inputs++] = i;
  }
  for (size_t n = 0; n < r->n_nodes; n++) {
    int listed = r->nodes[n].is_op;
    for (size_t i = 0; !listed && i < r->n_args; i++) listed = r->args[i] == n;
    if (!listed) return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: \"null\" node %zu is not in arg_nodes", n);
  }
  for (size_t j = 0; j < r->n_heads; j++)
    if (entry_ref(r, json_array_get(heads, j), r->n_nodes, &r->heads[j]))
      return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: heads[%zu] must be [node, index, version] naming an entry", j);
  return IRM_GRAPH_OK;
}

/* One buffer per storage id, and each op node's argument views. */
static int allocate(irm_graph_runner *r, char *err, size_t es) {
  r->storage = calloc(r->n_storage + 1, sizeof *r->storage);
  r->cur = calloc(r->n_storage + 1, sizeof *r->cur);
  r->storage_bytes = calloc(r->n_storage + 1, sizeof *r->storage_bytes);
  if (!r->storage || !r->cur || !r->storage_bytes)
    return fail(err, es, IRM_GRAPH_ENOMEM, "graph runner: out of memory");
  for (size_t e = 0; e < r->n_entries; e++)
    if (r->entries[e].bytes > r->storage_bytes[r->entries[e].sid])
      r->storage_bytes[r->entries[e].sid] = r->entries[e].bytes;
  uint64_t total = r->scratch_bytes;
  for (size_t s = 0; s < r->n_storage; s++) total += r->storage_bytes[s];
  if (total > IRM_GRAPH_MAX_STORAGE)
    return fail(err, es, IRM_GRAPH_EJSON,
                "graph JSON: its storage and scratch take %llu bytes, more than the runner's "
                "limit of %llu",
                (unsigned long long)total, (unsigned long long)IRM_GRAPH_MAX_STORAGE);
  for (size_t s = 0; s < r->n_storage; s++) {
    size_t bytes = (r->storage_bytes[s] + 63) / 64 * 64;
    r->storage[s] = aligned_alloc(64, bytes ? bytes : 64);
    if (!r->storage[s]) return fail(err, es, IRM_GRAPH_ENOMEM, "graph runner: out of memory for storage %zu", s);
    memset(r->storage[s], 0, bytes ? bytes : 64);
    r->cur[s] = r->storage[s];
  }
  if (r->scratch_bytes) {
    r->scratch = aligned_alloc(64, (r->scratch_bytes + 63) / 64 * 64);
    if (!r->scratch) return fail(err, es, IRM_GRAPH_ENOMEM, "graph runner: out of memory for the scratch");
  }
  for (size_t n = 0; n < r->n_nodes; n++) {
    gnode *g = &r->nodes[n];
    for (size_t i = 0; g->is_op && i < g->n_in + g->n_out; i++) {
      entry *x = &r->entries[(size_t)g->tensors[i].ndim];
      irm_crt_tensor_view(&g->tensors[i], r->storage[x->sid], x->ndim, x->shape, x->dtype.code, x->dtype.bits);
      g->vals[i].v_handle = &g->tensors[i];
      g->codes[i] = IRM_CRT_DLTENSOR;
    }
  }
  return IRM_GRAPH_OK;
}

int irm_graph_runner_create(const char *json, size_t len, irm_graph_resolver resolve, void *ctx, irm_graph_runner **out,
                            char *err, size_t es) {
  if (!out) return fail(err, es, IRM_GRAPH_EARG, "graph runner: out must not be NULL");
  *out = NULL;
  if (!json) return fail(err, es, IRM_GRAPH_EARG, "graph runner: no graph JSON");
  json_error_t jerr;
  json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!root)
    return fail(err, es, IRM_GRAPH_EJSON, "graph JSON: line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
  irm_graph_runner *r = calloc(1, sizeof *r);
  json_t *nodes = json_object_get(root, "nodes");
  int rc = r ? IRM_GRAPH_OK : fail(err, es, IRM_GRAPH_ENOMEM, "graph runner: out of memory");
  if (!rc && (!json_is_object(root) || !json_is_array(nodes)))
    rc = fail(err, es, IRM_GRAPH_EJSON, "graph JSON: expected an object with a \"nodes\" list");
  if (!rc) {
    r->n_nodes = json_array_size(nodes);
    r->nodes = calloc(r->n_nodes + 1, sizeof *r->nodes);
    if (!r->nodes) rc = fail(err, es, IRM_GRAPH_ENOMEM, "graph runner: out of memory");
  }
  if (!rc) rc = read_row_ptr(r, root, err, es);
  if (!rc) rc = read_attrs(r, root, err, es);
  for (size_t n = 0; !rc && n < r->n_nodes; n++) rc = read_node(r, n, json_array_get(nodes, n), resolve, ctx, err, es);
  if (!rc) rc = read_args_heads(r, root, err, es);
  if (!rc) rc = allocate(r, err, es);
  json_decref(root);
  if (rc) {
    irm_graph_runner_free(r);
    return rc;
  }
  *out = r;
  return IRM_GRAPH_OK;
}

/* ---- params, inputs, outputs ------------------------------------------------------- */

static const char *dtype_text(DLDataType t, char *buf, size_t size) {
  const char *k = t.code == kDLFloat ? "float" : t.code == kDLInt ? "int" : t.code == kDLUInt ? "uint" : NULL;
  if (t.code == 6 && t.bits == 8) snprintf(buf, size, "bool");
  else if (k) snprintf(buf, size, "%s%u", k, t.bits);
  else snprintf(buf, size, "dtype(code %u, bits %u)", t.code, t.bits);
  return buf;
}

static void shape_text(char *buf, size_t size, const int64_t *shape, int32_t ndim) {
  size_t at = (size_t)snprintf(buf, size, "(");
  for (int32_t d = 0; d < ndim && at < size; d++)
    at += (size_t)snprintf(buf + at, size - at, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (at < size) snprintf(buf + at, size - at, "%s)", ndim == 1 ? "," : "");
}

static const entry *arg_entry(const irm_graph_runner *r, size_t arg) { return &r->entries[r->row_ptr[r->args[arg]]]; }

/* The arg whose node is named name (n bytes), or SIZE_MAX. */
static size_t arg_named(const irm_graph_runner *r, const char *name, size_t n) {
  for (size_t i = 0; i < r->n_args; i++) {
    const char *a = r->nodes[r->args[i]].name;
    if (strlen(a) == n && memcmp(a, name, n) == 0) return i;
  }
  return SIZE_MAX;
}

static int check_entry(irm_graph_runner *r, const char *what, const entry *x, DLDataType dtype, int32_t ndim,
                       const int64_t *shape, int code) {
  char want[160], got[160], wd[48], gd[48];
  if (dtype.code != x->dtype.code || dtype.bits != x->dtype.bits || dtype.lanes != 1)
    return RFAIL(r, code, "%s: expected dtype %s, got %s", what, dtype_text(x->dtype, wd, sizeof wd),
                 dtype_text(dtype, gd, sizeof gd));
  int same = ndim == x->ndim;
  for (int32_t d = 0; same && d < ndim; d++) same = shape[d] == x->shape[d];
  if (!same) {
    shape_text(want, sizeof want, x->shape, x->ndim);
    shape_text(got, sizeof got, shape, ndim);
    return RFAIL(r, code, "%s: expected shape %s, got %s", what, want, got);
  }
  return IRM_GRAPH_OK;
}

int irm_graph_runner_load_params(irm_graph_runner *r, const void *blob, size_t size) {
  if (!r) return IRM_GRAPH_EARG;
  r->err[0] = '\0';
  uint64_t count = 0;
  int prc = blob ? irm_params_count(blob, size, &count) : IRM_PARAMS_ETRUNCATED;
  if (prc) return RFAIL(r, IRM_GRAPH_EPARAMS, "params: %s", irm_params_strerror(prc));
  /* a walk per pass, linear in the blob; it stops at the first entry that
     is unknown or listed twice, so a hostile file costs no more than the
     graph's inputs allow */
  unsigned char *seen = calloc(r->n_args + 1, 1);
  if (!seen) return RFAIL(r, IRM_GRAPH_ENOMEM, "params: out of memory");
  int rc = IRM_GRAPH_OK;
  for (int copy = 0; copy < 2 && !rc; copy++) {
    irm_params_iter it = {{NULL, NULL}, {NULL, NULL}, 0};
    irm_params_entry e;
    irm_params_iter_begin(blob, size, &it);
    memset(seen, 0, r->n_args);
    while (!rc && irm_params_iter_next(&it, &e)) {
      size_t a = arg_named(r, e.name, e.name_len);
      char what[200];
      snprintf(what, sizeof what, "params entry '%.*s'", (int)(e.name_len > 100 ? 100 : e.name_len), e.name);
      if (a == SIZE_MAX) rc = RFAIL(r, IRM_GRAPH_EPARAMS, "%s: the graph has no input of that name", what);
      else if (seen[a]) rc = RFAIL(r, IRM_GRAPH_EPARAMS, "%s: listed twice", what);
      else if (!copy) rc = check_entry(r, what, arg_entry(r, a), e.dtype, e.ndim, e.shape, IRM_GRAPH_EPARAMS);
      else {
        const entry *x = arg_entry(r, a);
        memcpy(r->storage[x->sid], e.data, x->bytes);
        r->is_param[a] = r->is_set[a] = 1;
      }
      if (a != SIZE_MAX) seen[a] = 1;
    }
  }
  free(seen);
  if (rc) return rc;
  r->n_inputs = 0;
  for (size_t i = 0; i < r->n_args; i++)
    if (!r->is_param[i]) r->inputs[r->n_inputs++] = i;
  return IRM_GRAPH_OK;
}

size_t irm_graph_runner_num_inputs(const irm_graph_runner *r) { return r ? r->n_inputs : 0; }
size_t irm_graph_runner_num_outputs(const irm_graph_runner *r) { return r ? r->n_heads : 0; }

int irm_graph_runner_input_index(irm_graph_runner *r, const char *name, size_t *index) {
  if (!r || !name || !index) return IRM_GRAPH_EARG;
  for (size_t i = 0; i < r->n_inputs; i++)
    if (strcmp(r->nodes[r->args[r->inputs[i]]].name, name) == 0) {
      *index = i;
      return IRM_GRAPH_OK;
    }
  size_t a = arg_named(r, name, strlen(name));
  if (a != SIZE_MAX) return RFAIL(r, IRM_GRAPH_EARG, "'%s' is a parameter (set by the params), not an input", name);
  char names[256] = "";
  for (size_t i = 0, at = 0; i < r->n_inputs && at < sizeof names; i++)
    at +=
        (size_t)snprintf(names + at, sizeof names - at, "%s'%s'", i ? ", " : "", r->nodes[r->args[r->inputs[i]]].name);
  return RFAIL(r, IRM_GRAPH_EARG, "no input named '%s' (the inputs: %s)", name, r->n_inputs ? names : "none");
}

int irm_graph_runner_input_info(irm_graph_runner *r, size_t i, const char **name, DLDataType *dtype, int32_t *ndim,
                                const int64_t **shape) {
  if (!r) return IRM_GRAPH_EARG;
  if (i >= r->n_inputs) return RFAIL(r, IRM_GRAPH_EARG, "input %zu out of range (%zu inputs)", i, r->n_inputs);
  const entry *x = arg_entry(r, r->inputs[i]);
  if (name) *name = r->nodes[r->args[r->inputs[i]]].name;
  if (dtype) *dtype = x->dtype;
  if (ndim) *ndim = x->ndim;
  if (shape) *shape = x->shape;
  return IRM_GRAPH_OK;
}

int irm_graph_runner_output_info(irm_graph_runner *r, size_t i, DLDataType *dtype, int32_t *ndim,
                                 const int64_t **shape) {
  if (!r) return IRM_GRAPH_EARG;
  if (i >= r->n_heads) return RFAIL(r, IRM_GRAPH_EARG, "output %zu out of range (%zu outputs)", i, r->n_heads);
  const entry *x = &r->entries[r->heads[i]];
  if (dtype) *dtype = x->dtype;
  if (ndim) *ndim = x->ndim;
  if (shape) *shape = x->shape;
  return IRM_GRAPH_OK;
}

/* t's data when it is on the CPU and compact; NULL otherwise. */
static void *compact_data(const DLTensor *t) {
  if (!t || !t->data || t->device.device_type != kDLCPU || t->ndim < 0 || (t->ndim && !t->shape)) return NULL;
  if (t->strides) {
    int64_t want = 1;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
      if (t->shape[d] != 1 && t->strides[d] != want) return NULL;
      want *= t->shape[d];
    }
  }
  return (char *)t->data + t->byte_offset;
}

int irm_graph_runner_set_input(irm_graph_runner *r, size_t i, const DLTensor *t) {
  if (!r) return IRM_GRAPH_EARG;
  r->err[0] = '\0';
  if (i >= r->n_inputs)
    return RFAIL(r, IRM_GRAPH_EARG, "set_input: input %zu out of range (%zu inputs)", i, r->n_inputs);
  size_t a = r->inputs[i];
  char what[200];
  snprintf(what, sizeof what, "input %zu ('%.100s')", i, r->nodes[r->args[a]].name);
  void *data = compact_data(t);
  if (!data) return RFAIL(r, IRM_GRAPH_EARG, "%s: expected a compact CPU tensor with data", what);
  const entry *x = arg_entry(r, a);
  int rc = check_entry(r, what, x, t->dtype, t->ndim, t->shape, IRM_GRAPH_EARG);
  if (rc) return rc;
  memcpy(r->storage[x->sid], data, x->bytes);
  r->is_set[a] = 1;
  return IRM_GRAPH_OK;
}

int irm_graph_runner_set_input_by_name(irm_graph_runner *r, const char *name, const DLTensor *t) {
  size_t i = 0;
  int rc = irm_graph_runner_input_index(r, name, &i);
  return rc ? rc : irm_graph_runner_set_input(r, i, t);
}

int irm_graph_runner_run(irm_graph_runner *r) {
  if (!r) return IRM_GRAPH_EARG;
  r->err[0] = '\0';
  for (size_t i = 0; i < r->n_args; i++)
    if (!r->is_set[i])
      return RFAIL(r, IRM_GRAPH_EUNSET, "run: %s '%s' was never set", r->is_param[i] ? "parameter" : "input",
                   r->nodes[r->args[i]].name);
  for (size_t n = 0; n < r->n_nodes; n++) {
    gnode *g = &r->nodes[n];
    if (!g->is_op || !g->fn) continue; /* a __nop */
    irm_crt_value ret = {0};
    int32_t ret_code = 0;
    int32_t got = g->fn(g->vals, g->codes, (int32_t)(g->n_in + g->n_out), &ret, &ret_code, r->scratch);
    if (got && ret_code == IRM_CRT_STR && ret.v_str) /* the kernel's own words (an index error's op, index, range) */
      return RFAIL(r, IRM_GRAPH_EKERNEL, "run: node %zu ('%s'): %s", n, g->name, ret.v_str);
    if (got)
      return RFAIL(r, IRM_GRAPH_EKERNEL, "run: node %zu ('%s', kernel %s) failed: %s (code %d)", n, g->name,
                   g->func_name, irm_crt_strerror(got), (int)got);
  }
  for (size_t i = 0; i < r->n_heads; i++) /* outputs set but not bound: copied */
    if (r->out_to[i] && !r->bound[i]) {
      const entry *x = &r->entries[r->heads[i]];
      memcpy(r->out_to[i], r->cur[x->sid], x->bytes);
    }
  return IRM_GRAPH_OK;
}

int irm_graph_runner_get_output(irm_graph_runner *r, size_t i, DLTensor *t) {
  if (!r) return IRM_GRAPH_EARG;
  r->err[0] = '\0';
  if (i >= r->n_heads)
    return RFAIL(r, IRM_GRAPH_EARG, "get_output: output %zu out of range (%zu outputs)", i, r->n_heads);
  char what[64];
  snprintf(what, sizeof what, "get_output %zu", i);
  void *data = compact_data(t);
  if (!data) return RFAIL(r, IRM_GRAPH_EARG, "%s: expected a compact CPU tensor with data", what);
  const entry *x = &r->entries[r->heads[i]];
  int rc = check_entry(r, what, x, t->dtype, t->ndim, t->shape, IRM_GRAPH_EARG);
  if (!rc && data != r->cur[x->sid]) memcpy(data, r->cur[x->sid], x->bytes);
  return rc;
}

/* Points every view of storage sid at data. */
static void rewire(irm_graph_runner *r, size_t sid, void *data) {
  void *old = r->cur[sid];
  for (size_t n = 0; n < r->n_nodes; n++) {
    gnode *g = &r->nodes[n];
    for (size_t k = 0; g->is_op && k < g->n_in + g->n_out; k++)
      if (g->tensors[k].data == old) g->tensors[k].data = data;
  }
  r->cur[sid] = data;
}

/* Whether head i's storage can be the caller's data: the storage is as
 * large as the output (every entry sharing it fits), holds no input or
 * parameter and no other output, and data is no other storage's. */
static int bindable(const irm_graph_runner *r, size_t i, const void *data) {
  const entry *x = &r->entries[r->heads[i]];
  if (!x->bytes || r->storage_bytes[x->sid] != x->bytes) return 0;
  for (size_t a = 0; a < r->n_args; a++)
    if (arg_entry(r, a)->sid == x->sid) return 0;
  for (size_t j = 0; j < r->n_heads; j++)
    if (j != i && r->entries[r->heads[j]].sid == x->sid) return 0;
  for (size_t s = 0; s < r->n_storage; s++)
    if (r->cur[s] == data) return 0;
  return 1;
}

int irm_graph_runner_set_output_zero_copy(irm_graph_runner *r, size_t i, const DLTensor *t) {
  if (!r) return IRM_GRAPH_EARG;
  r->err[0] = '\0';
  if (i >= r->n_heads)
    return RFAIL(r, IRM_GRAPH_EARG, "set_output_zero_copy: output %zu out of range (%zu outputs)", i, r->n_heads);
  const entry *x = &r->entries[r->heads[i]];
  void *data = NULL;
  if (t) {
    char what[64];
    snprintf(what, sizeof what, "set_output_zero_copy %zu", i);
    data = compact_data(t);
    if (!data) return RFAIL(r, IRM_GRAPH_EARG, "%s: expected a compact CPU tensor with data", what);
    int rc = check_entry(r, what, x, t->dtype, t->ndim, t->shape, IRM_GRAPH_EARG);
    if (rc) return rc;
  }
  if (r->bound[i]) rewire(r, x->sid, r->storage[x->sid]);
  r->bound[i] = 0;
  r->out_to[i] = data;
  if (data && bindable(r, i, data)) {
    rewire(r, x->sid, data);
    r->bound[i] = 1;
  }
  return IRM_GRAPH_OK;
}

void irm_graph_runner_storage_bytes(const irm_graph_runner *r, size_t *shared, size_t *unshared) {
  size_t s = 0, u = 0;
  for (size_t k = 0; r && k < r->n_storage; k++) s += r->storage_bytes[k];
  for (size_t e = 0; r && e < r->n_entries; e++) u += r->entries[e].bytes;
  if (shared) *shared = s;
  if (unshared) *unshared = u;
}
