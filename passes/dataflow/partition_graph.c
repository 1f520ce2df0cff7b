/* PartitionGraph (TVM's): each region the compiler annotations delimit
 * (compiler_regions.h), unless its compiler is "default", becomes a module
 * function with Compiler, global_symbol "tvmgen_<mod_name>_<compiler>_main_<k>"
 * and Primitive = 1, called from where the region was; every annotation
 * goes. A region with several compiler_ends returns a tuple, which the
 * caller takes apart with TupleGetItem. */
#include <stdio.h>
#include <string.h>

#include "compiler_regions.h"
#include "irm/container.h"
#include "irm/dataflow/partition.h"
#include "irm/error.h"

static const char what[] = "partitioning the graph";

typedef struct region_fn {
  size_t *in, nin, incap;    /* positions of the distinct values its compiler_begins take */
  size_t *out, nout, outcap; /* positions of its compiler_ends */
  irm_object *gv, *call, *ret_type;
} region_fn;

typedef struct partitioner {
  cr_regions r;
  region_fn *fns;  /* per region (by representative) */
  irm_module *mod; /* being built (owned) */
  const char *mod_name;
  size_t next;       /* the next function number to try */
  irm_object **done; /* per node: its host replacement (owned) */
  uint8_t *state;    /* per node: 0 new, 1 on the walk's stack, 2 done */
  size_t cur;        /* the region being outlined */
  irm_object **params;
} partitioner;

static int add_pos(size_t **a, size_t *n, size_t *cap, size_t p, int unique) {
  for (size_t i = 0; unique && i < *n; i++)
    if ((*a)[i] == p) return IRM_OK;
  if (*n == *cap) {
    size_t c = *cap ? *cap * 2 : 4;
    size_t *g = irm_realloc(*a, c * sizeof *g);
    if (!g) return irm_error_nomem_(what);
    *a = g;
    *cap = c;
  }
  (*a)[(*n)++] = p;
  return IRM_OK;
}

static int outlined(const partitioner *p, size_t g) { return g != CR_NONE && strcmp(p->r.target[g], CR_DEFAULT) != 0; }

/* Each outlined region's inputs and outputs, in the order they are met. */
static int gather(partitioner *p) {
  cr_regions *r = &p->r;
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < r->n; i++) {
    int begin = irm_dataflow_is_call_of_(r->nodes[i], CR_BEGIN_OP);
    size_t g = irm_cr_region_of_(r, i);
    if (!outlined(p, g)) continue;
    region_fn *f = &p->fns[g];
    if (begin) rc = add_pos(&f->in, &f->nin, &f->incap, irm_cr_position_(r, irm_call_arg(r->nodes[i], 0)), 1);
    else if (irm_dataflow_is_call_of_(r->nodes[i], CR_END_OP)) rc = add_pos(&f->out, &f->nout, &f->outcap, i, 0);
  }
  return rc;
}

/* ---- a region's function --------------------------------------------------------------------- */

static int is_own_begin(partitioner *p, const irm_object *node, size_t *in_index) {
  size_t i = irm_cr_position_(&p->r, node);
  if (i == CR_NONE || !irm_dataflow_is_call_of_(node, CR_BEGIN_OP) || irm_cr_region_of_(&p->r, i) != p->cur) return 0;
  size_t arg = irm_cr_position_(&p->r, irm_call_arg(node, 0));
  const region_fn *f = &p->fns[p->cur];
  for (*in_index = 0; *in_index < f->nin && f->in[*in_index] != arg; ++*in_index) {
  }
  return 1;
}

static int body_pre(void *ctx, irm_object *node, int *descend) {
  size_t k;
  if (irm_expr_kind_of(node) == IRM_EXPR_FUNCTION || is_own_begin(ctx, node, &k)) *descend = 0;
  return IRM_OK;
}

static int body_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  partitioner *p = ctx;
  size_t k;
  if (is_own_begin(p, original, &k)) {
    *out = p->params[k];
    irm_object_retain(*out);
    return IRM_OK;
  }
  return irm_dataflow_keep_type_(original, rebuilt, out);
}

static int untyped(const irm_object *e) {
  char d[64];
  const char *op = irm_op_name(irm_call_callee(e));
  snprintf(d, sizeof d, "%s", op ? op : irm_expr_kind_name(irm_expr_kind_of(e)));
  return irm_error(IRM_ETYPE, "PartitionGraph needs checked types (run InferType first): %s has none", d);
}

/* The body (one output, or a tuple of them) over fresh params. *out NEW. */
static int region_body(partitioner *p, region_fn *f, irm_object **out) {
  irm_object *root = NULL, **outs = irm_calloc(f->nout, sizeof *outs), **types = irm_calloc(f->nout, sizeof *types);
  int rc = outs && types ? IRM_OK : irm_error_nomem_(what);
  for (size_t j = 0; !rc && j < f->nout; j++) {
    outs[j] = irm_call_arg(p->r.nodes[f->out[j]], 0);
    types[j] = irm_expr_type(p->r.nodes[f->out[j]]);
    if (!types[j]) rc = untyped(outs[j]);
  }
  if (!rc && f->nout == 1) {
    root = outs[0];
    irm_object_retain(root);
    f->ret_type = types[0];
    irm_object_retain(f->ret_type);
  } else if (!rc) {
    rc = irm_tuple_new(outs, f->nout, &root);
    if (!rc) rc = irm_tuple_type_new(types, f->nout, &f->ret_type);
  }
  irm_expr_rewriter rw = {body_pre, body_post, p};
  if (!rc) rc = irm_expr_rewrite(&rw, root, out);
  irm_object_release(root);
  irm_free(outs);
  irm_free(types);
  return rc;
}

/* Region g as a module function; f->gv names it. */
static int outline(partitioner *p, size_t g) {
  region_fn *f = &p->fns[g];
  const char *compiler = p->r.target[g];
  char name[256];
  do snprintf(name, sizeof name, "tvmgen_%s_%s_main_%zu", p->mod_name, compiler, p->next++);
  while (irm_module_function(p->mod, name));
  p->cur = g;
  p->params = irm_calloc(f->nin ? f->nin : 1, sizeof *p->params);
  int rc = p->params ? IRM_OK : irm_error_nomem_(what);
  for (size_t k = 0; !rc && k < f->nin; k++) {
    char pname[32];
    irm_object *t = irm_expr_type(p->r.nodes[f->in[k]]);
    snprintf(pname, sizeof pname, "%s_i%zu", "p", k);
    rc = t ? irm_var_new(pname, t, &p->params[k]) : untyped(p->r.nodes[f->in[k]]);
  }
  irm_object *body = NULL, *attrs = NULL, *fn = NULL;
  if (!rc) rc = region_body(p, f, &body);
  if (!rc) {
    const char *keys[] = {IRM_BASE_FUNC_ATTR_COMPILER, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, IRM_BASE_FUNC_ATTR_PRIMITIVE};
    irm_any values[] = {irm_any_str(compiler), irm_any_str(name), irm_any_int(1)};
    rc = irm_map_from_pairs(keys, values, 3, &attrs);
  }
  if (!rc) rc = irm_function_new(p->params, f->nin, body, f->ret_type, attrs, &fn);
  if (!rc) rc = irm_module_set_function_move(&p->mod, name, fn);
  if (!rc) rc = irm_global_var_new(name, &f->gv);
  for (size_t k = 0; p->params && k < f->nin; k++) irm_object_release(p->params[k]);
  irm_free(p->params);
  p->params = NULL;
  irm_object_release(body);
  irm_object_release(attrs);
  irm_object_release(fn);
  return rc;
}

/* ---- the host ------------------------------------------------------------------------------- */

/* The nodes the host value of node i is made from: a region's inputs for
 * one of its compiler_ends, else the node's children (none for a
 * function literal). */
static size_t host_kid(partitioner *p, size_t i, size_t j, size_t *count) {
  irm_object *e = p->r.nodes[i];
  size_t g = irm_cr_region_of_(&p->r, i);
  if (irm_dataflow_is_call_of_(e, CR_END_OP) && outlined(p, g)) {
    *count = p->fns[g].nin;
    return j < *count ? p->fns[g].in[j] : CR_NONE;
  }
  *count = irm_expr_kind_of(e) == IRM_EXPR_FUNCTION ? 0 : irm_expr_child_count(e);
  return j < *count ? irm_cr_position_(&p->r, irm_expr_child(e, j)) : CR_NONE;
}

/* The host value of node i, its host kids done. */
static int host_value(partitioner *p, size_t i, irm_object **out) {
  irm_object *e = p->r.nodes[i];
  size_t g = irm_cr_region_of_(&p->r, i), n = 0;
  int begin = irm_dataflow_is_call_of_(e, CR_BEGIN_OP), end = irm_dataflow_is_call_of_(e, CR_END_OP);
  if (begin || (end && !outlined(p, g))) { /* annotations go */
    *out = p->done[irm_cr_position_(&p->r, irm_call_arg(e, 0))];
    irm_object_retain(*out);
    return IRM_OK;
  }
  if (end) {
    region_fn *f = &p->fns[g];
    int rc = IRM_OK;
    if (!f->call) {
      irm_object **args = irm_calloc(f->nin ? f->nin : 1, sizeof *args), *call = NULL;
      if (!args) return irm_error_nomem_(what);
      for (size_t k = 0; k < f->nin; k++) args[k] = p->done[f->in[k]];
      rc = irm_call_new(f->gv, args, f->nin, NULL, &call);
      if (!rc) rc = irm_expr_with_type(call, f->ret_type, &f->call);
      irm_object_release(call);
      irm_free(args);
    }
    if (rc || f->nout == 1) {
      if (!rc) irm_object_retain(f->call);
      *out = f->call;
      return rc;
    }
    size_t k = 0;
    while (f->out[k] != i) k++;
    irm_object *item = NULL;
    rc = irm_tuple_get_item_new(f->call, (int64_t)k, &item);
    if (!rc) rc = irm_expr_with_type(item, irm_expr_type(e), out);
    irm_object_release(item);
    return rc;
  }
  (void)host_kid(p, i, 0, &n);
  if (n == 0) {
    irm_object_retain(e);
    *out = e;
    return IRM_OK;
  }
  irm_object **kids = irm_malloc(n * sizeof *kids), *rebuilt = NULL;
  if (!kids) return irm_error_nomem_(what);
  int same = 1;
  for (size_t j = 0; j < n; j++) {
    kids[j] = p->done[host_kid(p, i, j, &n)];
    same = same && kids[j] == irm_expr_child(e, j);
  }
  int rc = same ? IRM_OK : irm_expr_with_children(e, kids, n, &rebuilt);
  if (!rc) rc = irm_dataflow_keep_type_(e, same ? e : rebuilt, out);
  irm_object_release(rebuilt);
  irm_free(kids);
  return rc;
}

typedef struct frame {
  size_t node, next;
} frame;

/* The host body: a walk from the root, children first, with explicit
 * stack (no recursion in proportion to depth). *out NEW. */
static int host_body(partitioner *p, irm_object **out) {
  size_t n = p->r.n, depth = 0;
  frame *stack = irm_malloc((n ? n : 1) * sizeof *stack);
  p->done = irm_calloc(n ? n : 1, sizeof *p->done);
  p->state = irm_calloc(n ? n : 1, 1);
  int rc = stack && p->done && p->state ? IRM_OK : irm_error_nomem_(what);
  if (!rc && n) {
    stack[depth++] = (frame){n - 1, 0};
    p->state[n - 1] = 1;
  }
  while (!rc && depth) {
    frame *top = &stack[depth - 1];
    size_t count = 0, kid = host_kid(p, top->node, top->next, &count);
    if (top->next < count) {
      top->next++;
      if (p->state[kid] == 1)
        rc = irm_error(IRM_EVALUE,
                       "malformed compiler annotations: a region of compiler '%s' takes a value computed from its "
                       "own result (it would call itself)",
                       p->r.target[irm_cr_region_of_(&p->r, top->node)]);
      else if (p->state[kid] == 0) {
        p->state[kid] = 1;
        stack[depth++] = (frame){kid, 0};
      }
      continue;
    }
    rc = host_value(p, top->node, &p->done[top->node]);
    p->state[top->node] = 2;
    depth--;
  }
  if (!rc && n) {
    *out = p->done[n - 1];
    irm_object_retain(*out);
  }
  irm_free(stack);
  return rc;
}

static void partitioner_free(partitioner *p) {
  for (size_t g = 0; p->fns && g < p->r.nreg; g++) {
    irm_free(p->fns[g].in);
    irm_free(p->fns[g].out);
    irm_object_release(p->fns[g].gv);
    irm_object_release(p->fns[g].call);
    irm_object_release(p->fns[g].ret_type);
  }
  for (size_t i = 0; p->done && i < p->r.n; i++) irm_object_release(p->done[i]);
  irm_free(p->fns);
  irm_free(p->done);
  irm_free(p->state);
  irm_cr_free_(&p->r);
}

/* Function fname of p->mod partitioned (p->mod updated). */
static int partition_function(partitioner *p, const char *fname) {
  irm_object *f = irm_module_function(p->mod, fname), *body = NULL, *g = NULL;
  if (irm_expr_kind_of(f) != IRM_EXPR_FUNCTION || irm_base_func_should_skip(f, IRM_SKIP_DEFAULT)) return IRM_OK;
  irm_object_retain(f); /* p->mod changes under it */
  partitioner q = *p;
  q.fns = NULL, q.done = NULL, q.state = NULL;
  int rc = irm_cr_build_(&q.r, irm_function_body(f));
  if (!rc && !(q.fns = irm_calloc(q.r.nreg ? q.r.nreg : 1, sizeof *q.fns))) rc = irm_error_nomem_(what);
  if (!rc) rc = gather(&q);
  for (size_t i = 0; !rc && i < q.r.n; i++) { /* numbered in the order their first output is met */
    size_t r = irm_cr_region_of_(&q.r, i);
    if (outlined(&q, r) && !q.fns[r].gv && irm_dataflow_is_call_of_(q.r.nodes[i], CR_END_OP)) rc = outline(&q, r);
  }
  if (!rc && q.r.nreg) rc = host_body(&q, &body);
  if (!rc && body) rc = irm_cr_with_body_(f, body, &g);
  if (!rc && g && g != f) rc = irm_module_set_function_move(&q.mod, fname, g);
  p->mod = q.mod;
  p->next = q.next;
  partitioner_free(&q);
  irm_object_release(body);
  irm_object_release(g);
  irm_object_release(f);
  return rc;
}

int irm_partition_graph(irm_module *mod, const char *mod_name, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_partition_graph: out must not be NULL");
  *out = NULL;
  if (!irm_object_is((irm_object *)mod, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "irm_partition_graph: mod must be an IRModule");
  partitioner p;
  memset(&p, 0, sizeof p);
  p.mod_name = mod_name && mod_name[0] ? mod_name : "default";
  irm_object *names = NULL;
  int rc = irm_dataflow_infer_type(mod, &p.mod);
  if (!rc) rc = irm_module_function_names(p.mod, &names);
  for (size_t i = 0; !rc && i < irm_array_size(names); i++)
    rc = partition_function(&p, irm_string_data(irm_array_at(names, i)->v_obj));
  irm_object_release(names);
  if (rc) {
    irm_object_release((irm_object *)p.mod);
    return irm_error_context(rc, "PartitionGraph");
  }
  *out = p.mod;
  return IRM_OK;
}

static int partition_graph_pass(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                                irm_module **out) {
  (void)ctx, (void)resource;
  const irm_any *v = irm_map_find_cstr(options, "mod_name");
  return irm_partition_graph(mod, v && v->type_code == IRM_OBJECT ? irm_string_data(v->v_obj) : NULL, out);
}

static int partition_graph_setup(irm_kind *kind) {
  irm_option_type t;
  if (irm_kind_option(kind, "mod_name", &t, NULL) == IRM_OK) return IRM_OK; /* idempotent */
  irm_clear_error();
  irm_any def = irm_any_str("default");
  return irm_kind_add_option(kind, "mod_name", IRM_OPTION_STR, &def,
                             "the module name the functions' global symbols start with (tvmgen_<mod_name>_...)", 0);
}

int irm_register_partition_graph_pass_(void) {
  static const irm_dataflow_pass_def_ def = {"PartitionGraph", 0, partition_graph_pass, NULL, partition_graph_setup};
  return irm_dataflow_pass_register_(&def);
}
