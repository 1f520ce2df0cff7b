/* FuseOps (dataflow/passes.h): each group the analysis found (fuse_ops_graph.c)
 * becomes a call of a `fn (...) attributes {Primitive = true}` literal.
 *
 * One rewrite per function. A group is replaced at its output node, the
 * only member used outside it: there the members are rebuilt, in order,
 * on fresh parameters for the group's inputs (constants stay inside), and
 * the call passes the inputs as the rewriter already rewrote them. Other
 * members are left as they were (nothing outside uses them). Everything
 * is typed as it is built, from the types InferType gave the original
 * nodes, which fusing does not change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_ops_graph.h"
#include "irm/container.h"
#include "irm/error.h"

#define FUSE_DEFAULT_MAX_DEPTH 256

typedef struct fuse_ctx {
  fuse_graph g;
  irm_object *fn;         /* the function being rewritten */
  irm_object **rewritten; /* node -> its replacement (NEW), for group inputs */
  size_t *slot, *stamp;   /* while building group r (stamp r + 1): a member's or input's position */
  irm_object *attrs;      /* {Primitive: true} */
  size_t next;            /* the position of the node the rewriter finishes next */
} fuse_ctx;

static int by_index(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

/* The growing parameter and input lists of one group. */
typedef struct group_io {
  irm_object **params, **inputs, **types;
  size_t n, cap;
} group_io;

static int add_input(fuse_ctx *c, group_io *io, size_t ai, size_t r, irm_object **param) {
  if (io->n == io->cap) {
    size_t cap = io->cap ? 2 * io->cap : 8;
    irm_object **p = irm_realloc(io->params, cap * sizeof *p);
    if (p) io->params = p;
    irm_object **in = p ? irm_realloc(io->inputs, cap * sizeof *in) : NULL;
    if (in) io->inputs = in;
    irm_object **t = in ? irm_realloc(io->types, cap * sizeof *t) : NULL;
    if (!t) return irm_error_nomem_("fusing ops");
    io->types = t;
    io->cap = cap;
  }
  char name[32];
  snprintf(name, sizeof name, "p%zu", io->n);
  irm_object *type = irm_expr_type(c->g.nodes[ai]);
  int rc = irm_var_new(name, type, &io->params[io->n]);
  if (rc) return rc;
  io->inputs[io->n] = c->rewritten[ai];
  io->types[io->n] = type;
  c->slot[ai] = io->n++;
  c->stamp[ai] = r + 1;
  *param = io->params[c->slot[ai]];
  return IRM_OK;
}

/* Rebuilds member m of group r on the group's parameters into *out. */
static int rebuild_member(fuse_ctx *c, size_t r, size_t m, irm_object **inner, group_io *io, irm_object **out) {
  irm_object *call = c->g.nodes[m];
  size_t nargs = irm_call_arg_count(call);
  irm_object **children = irm_malloc((nargs + 1) * sizeof *children);
  if (!children) return irm_error_nomem_("fusing ops");
  children[0] = irm_call_callee(call);
  int rc = IRM_OK;
  for (size_t j = 0; j < nargs && !rc; j++) {
    irm_object *a = irm_call_arg(call, j);
    size_t ai = irm_fuse_graph_arg_(&c->g, m, j);
    if (c->g.pattern[ai] != FUSE_NOT_OP && irm_fuse_graph_group_(&c->g, ai) == r) children[j + 1] = inner[c->slot[ai]];
    else if (irm_expr_kind_of(a) == IRM_EXPR_CONSTANT) children[j + 1] = a;
    else if (c->stamp[ai] == r + 1) children[j + 1] = io->params[c->slot[ai]];
    else rc = add_input(c, io, ai, r, &children[j + 1]);
  }
  irm_object *plain = NULL;
  if (!rc) rc = irm_expr_with_children(call, children, nargs + 1, &plain);
  if (!rc) rc = irm_expr_with_type(plain, irm_expr_type(call), out);
  irm_object_release(plain);
  irm_free(children);
  return rc;
}

/* The call of a Primitive function that replaces group r (r its output). */
static int build_group(fuse_ctx *c, size_t r, irm_object **out) {
  fuse_graph *g = &c->g;
  size_t nm = g->size[r], i = 0;
  size_t *members = irm_malloc(nm * sizeof *members);
  irm_object **inner = irm_calloc(nm, sizeof *inner);
  group_io io = {0};
  int rc = members && inner ? IRM_OK : irm_error_nomem_("fusing ops");
  for (size_t k = g->head[r]; !rc; k = g->next[k]) {
    members[i++] = k;
    if (k == g->tail[r]) break;
  }
  if (!rc) qsort(members, nm, sizeof *members, by_index); /* producers first; r is last */
  for (i = 0; !rc && i < nm; i++) c->slot[members[i]] = i;
  for (i = 0; !rc && i < nm; i++) rc = rebuild_member(c, r, members[i], inner, &io, &inner[i]);
  irm_object *ret = irm_expr_type(g->nodes[r]), *fn = NULL, *typed_fn = NULL, *fn_type = NULL, *call = NULL;
  if (!rc) rc = irm_function_new(io.params, io.n, inner[nm - 1], ret, c->attrs, &fn);
  if (!rc) rc = irm_func_type_new(io.types, io.n, ret, &fn_type);
  if (!rc) rc = irm_expr_with_type(fn, fn_type, &typed_fn);
  if (!rc) rc = irm_call_new(typed_fn, io.inputs, io.n, NULL, &call);
  if (!rc) rc = irm_expr_with_type(call, ret, out);
  irm_object *temps[] = {fn, typed_fn, fn_type, call};
  for (i = 0; i < 4; i++) irm_object_release(temps[i]);
  for (i = 0; inner && i < nm; i++) irm_object_release(inner[i]);
  for (i = 0; i < io.n; i++) irm_object_release(io.params[i]);
  irm_free(io.params);
  irm_free(io.inputs);
  irm_free(io.types);
  irm_free(inner);
  irm_free(members);
  return rc;
}

static int pre(void *ctx, irm_object *node, int *descend) {
  fuse_ctx *c = ctx;
  if (node != c->fn && irm_expr_kind_of(node) == IRM_EXPR_FUNCTION && irm_base_func_should_skip(node, IRM_SKIP_DEFAULT))
    *descend = 0;
  return IRM_OK;
}

static int post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  fuse_ctx *c = ctx;
  /* the rewriter finishes the nodes in the graph's order */
  if (c->next >= c->g.n || c->g.nodes[c->next] != original)
    return irm_error(IRM_ERUNTIME, "FuseOps: the rewrite met a %s the graph did not list there (a bug in irm)",
                     irm_expr_kind_name(irm_expr_kind_of(original)));
  size_t ix = c->next++;
  int rc = IRM_OK;
  irm_object *type = irm_expr_type(original);
  if (c->g.pattern[ix] != FUSE_NOT_OP) {
    if (irm_fuse_graph_group_(&c->g, ix) == ix) rc = build_group(c, ix, out);
    else { /* inside a group: only its group uses it */ irm_object_retain(original);
      *out = original;
    }
  } else if (rebuilt != original && type && !irm_expr_type(rebuilt)) {
    rc = irm_expr_with_type(rebuilt, type, out); /* fusing keeps every type */
  } else {
    irm_object_retain(rebuilt);
    *out = rebuilt;
  }
  if (!rc) {
    irm_object_retain(*out);
    c->rewritten[ix] = *out;
  }
  return rc;
}

typedef struct fuse_options {
  int64_t max_depth;
  irm_object *attrs; /* {Primitive: true} */
} fuse_options;

/* Fuses function f into *out (NEW; f itself when it has no call of an op). */
static int fuse_function(irm_object *f, int64_t max_depth, irm_object *attrs, irm_object **out) {
  fuse_ctx c;
  memset(&c, 0, sizeof c);
  c.fn = f;
  c.attrs = attrs;
  int rc = irm_fuse_graph_build_(&c.g, f, max_depth);
  if (rc) return rc;
  int any = 0;
  for (size_t i = 0; i < c.g.n && !any; i++) any = c.g.pattern[i] != FUSE_NOT_OP;
  if (!any) {
    irm_fuse_graph_free_(&c.g);
    irm_object_retain(f);
    *out = f;
    return IRM_OK;
  }
  c.rewritten = irm_calloc(c.g.n, sizeof *c.rewritten);
  c.slot = irm_calloc(c.g.n, sizeof *c.slot);
  c.stamp = irm_calloc(c.g.n, sizeof *c.stamp);
  rc = c.rewritten && c.slot && c.stamp ? IRM_OK : irm_error_nomem_("fusing ops");
  irm_expr_rewriter rw = {pre, post, &c};
  if (!rc) rc = irm_expr_rewrite(&rw, f, out);
  for (size_t i = 0; c.rewritten && i < c.g.n; i++) irm_object_release(c.rewritten[i]);
  irm_free(c.rewritten);
  irm_free(c.slot);
  irm_free(c.stamp);
  irm_fuse_graph_free_(&c.g);
  return rc;
}

/* Each function, as the body of irm_function_pass_apply (resource: the
 * fuse_options); another IR's functions stay as they are. */
static int fuse_in(irm_object *f, irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                   irm_object **out) {
  (void)mod;
  (void)ctx;
  (void)options;
  const fuse_options *o = resource;
  if (irm_expr_kind_of(f) == IRM_EXPR_FUNCTION) return fuse_function(f, o->max_depth, o->attrs, out);
  irm_object_retain(f);
  *out = f;
  return IRM_OK;
}

int irm_dataflow_fuse_ops(irm_module *mod, int64_t max_depth, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_fuse_ops: out must not be NULL");
  *out = NULL;
  if (max_depth < 1)
    return irm_error(IRM_EVALUE, "FuseOps: max_depth must be at least 1, got %lld", (long long)max_depth);
  irm_object *names = NULL, *attrs = NULL;
  int rc = irm_module_function_names(mod, &names);
  if (!rc) rc = irm_map_new(&attrs);
  irm_any yes = irm_any_bool(true);
  if (!rc) rc = irm_map_set_move(&attrs, IRM_BASE_FUNC_ATTR_PRIMITIVE, &yes);
  /* Grouping needs checked types. A function with a checked type was
   * typed whole (rebuilding a node drops its type), so only a module with
   * an untyped function is typed first. */
  int typed = 1;
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    const irm_object *f = irm_module_function(mod, irm_string_data(irm_array_at(names, i)->v_obj));
    typed &= irm_expr_kind_of(f) != IRM_EXPR_FUNCTION || irm_base_func_should_skip(f, IRM_SKIP_DEFAULT) ||
             irm_expr_type(f) != NULL;
  }
  irm_module *typed_mod = NULL;
  if (!rc && typed) {
    irm_object_retain(mod);
    typed_mod = mod;
  } else if (!rc) {
    rc = irm_dataflow_infer_type(mod, &typed_mod);
  }
  fuse_options o = {max_depth, attrs};
  if (!rc) rc = irm_function_pass_apply(typed_mod, fuse_in, NULL, NULL, &o, out);
  irm_object_release(typed_mod);
  irm_object_release(names);
  irm_object_release(attrs);
  return rc;
}

/* ---- the pass -------------------------------------------------------------------------------- */

static int fuse_ops_body(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                         irm_module **out) {
  (void)ctx;
  (void)resource;
  irm_any v = irm_any_none();
  int rc = irm_pass_setting(options, "max_depth", mod, "FuseOps.max_depth", &v);
  int64_t depth = FUSE_DEFAULT_MAX_DEPTH;
  if (!rc && v.type_code != IRM_NONE) rc = irm_any_to_int(&v, &depth);
  irm_any_release(&v);
  return rc ? rc : irm_dataflow_fuse_ops(mod, depth, out);
}

/* max_depth has no default, so that a pipeline that does not give it
 * falls through to the module attribute, the PassContext and the config's
 * default (irm_pass_setting). Idempotent, for a retried registration. */
static int fuse_ops_setup(irm_kind *k) {
  if (irm_kind_option(k, "max_depth", NULL, NULL) == IRM_OK) return IRM_OK;
  irm_clear_error();
  return irm_kind_add_option(k, "max_depth", IRM_OPTION_INT, NULL, "the most ops in one fused group (>= 1)", 0);
}

/* FuseOps.max_depth: a module attribute, and the PassContext option that
 * migrates onto it (TVM's relay.FuseOps.max_depth is its alias). */
int irm_register_fuse_ops_pass_(void) {
  irm_any max_depth = irm_any_int(256);
  int rc = irm_module_attr_register("FuseOps.max_depth", "int", 0);
  if (!rc) rc = irm_pass_config_register("FuseOps.max_depth", "int", &max_depth, "FuseOps.max_depth");
  if (!rc) rc = irm_pass_config_register_alias("relay.FuseOps.max_depth", "FuseOps.max_depth");
  static const irm_dataflow_pass_def_ def = {"FuseOps", 0, fuse_ops_body, NULL, fuse_ops_setup};
  return rc ? rc : irm_dataflow_pass_register_(&def);
}
