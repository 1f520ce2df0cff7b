/* The generators of dataflow_gen_ops.h. Each value the generator makes carries
 * its shape and a bound on its magnitude, so the ops it picks next
 * type-check and keep the results finite. */
#include "dataflow_gen_ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct val {
  irm_object *e; /* owned */
  int32_t ndim;  /* 2 or 4 */
  int64_t shape[4];
  double bound; /* |every element| <= bound */
  int nonneg;
} val;

typedef struct ogen {
  uint64_t state;
  int rc;
  val *pool;
  size_t n, cap;
  irm_object **lets; /* owned: var, value, var, value, ... of main's body chain */
  size_t nlets, capl;
  irm_object **params; /* owned: main's parameters */
  size_t nparams, capp;
  irm_object *param_values; /* Map name -> Tensor: the `params` attribute */
  irm_module *mod;
  size_t nhelpers, nweights;
} ogen;

static uint64_t rnd(ogen *g) { /* splitmix64 */
  uint64_t z = (g->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static size_t below(ogen *g, size_t n) { return n ? (size_t)(rnd(g) % n) : 0; }

static double uniform(ogen *g, double lo, double hi) { return lo + (hi - lo) * (double)(rnd(g) >> 40) / 16777216.0; }

/* Records the first failure; the builders below give NULL after one. */
static irm_object *check(ogen *g, int rc, irm_object **o) {
  if (rc && !g->rc) g->rc = rc;
  if (rc || g->rc) {
    irm_object_release(*o);
    *o = NULL;
  }
  return *o;
}

static int grow(ogen *g, void **list, size_t n, size_t *cap, size_t size) {
  if (n < *cap) return 1;
  size_t c = *cap ? *cap * 2 : 64;
  void *a = realloc(*list, c * size);
  if (!a) {
    if (!g->rc) g->rc = irm_error(IRM_ENOMEM, "ir_gen_ops: out of memory");
    return 0;
  }
  *list = a;
  *cap = c;
  return 1;
}

static int64_t numel(int32_t ndim, const int64_t *shape) {
  int64_t n = 1;
  for (int32_t i = 0; i < ndim; i++) n *= shape[i];
  return n;
}

/* Adds e (taken) to the pool. shape may point into the pool. */
static void push(ogen *g, irm_object *e, int32_t ndim, const int64_t *shape, double bound, int nonneg) {
  int64_t copy[4] = {0, 0, 0, 0};
  memcpy(copy, shape, (size_t)ndim * sizeof *shape);
  if (!e) return;
  if (!grow(g, (void **)&g->pool, g->n, &g->cap, sizeof *g->pool)) {
    irm_object_release(e);
    return;
  }
  val *v = &g->pool[g->n++];
  v->e = e;
  v->ndim = ndim;
  memcpy(v->shape, copy, sizeof copy);
  v->bound = bound;
  v->nonneg = nonneg;
}

static void push_like(ogen *g, irm_object *e, const val *like, double bound, int nonneg) {
  push(g, e, like->ndim, like->shape, bound, nonneg);
}

/* A pool value, more often a recent one (borrowed; valid until the next push). */
static val *pick(ogen *g) {
  size_t recent = g->n < 4 ? g->n : 4;
  return rnd(g) % 3 ? &g->pool[g->n - 1 - below(g, recent)] : &g->pool[below(g, g->n)];
}

static irm_object *ttype(ogen *g, int32_t ndim, const int64_t *shape) {
  DLDataType f32 = {kDLFloat, 32, 1};
  irm_object *t = NULL;
  return check(g, g->rc ? g->rc : irm_tensor_type_new(f32, shape, ndim, &t), &t);
}

/* A float32 tensor with values uniform in [lo, hi], negated at random when
 * signed. NEW. */
static irm_object *tensor(ogen *g, int32_t ndim, const int64_t *shape, double lo, double hi, int random_sign) {
  DLDataType f32 = {kDLFloat, 32, 1};
  irm_tensor *t = NULL;
  if (!check(g, g->rc ? g->rc : irm_tensor_new(f32, shape, ndim, NULL, &t), &t)) return NULL;
  float *d = irm_tensor_data(t);
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) {
    double x = uniform(g, lo, hi);
    d[i] = (float)(random_sign && rnd(g) & 1 ? -x : x);
  }
  return t;
}

static irm_object *constant_of(ogen *g, irm_object *t) {
  irm_object *c = NULL;
  if (t) check(g, irm_constant_new(t, &c), &c);
  irm_object_release(t);
  return c;
}

/* An attribute Map from up to 3 pairs; NULL when n is 0. NEW. */
static irm_object *attrs(ogen *g, size_t n, const char *k0, irm_any v0, const char *k1, irm_any v1, const char *k2,
                         irm_any v2) {
  const char *keys[3] = {k0, k1, k2};
  irm_any vals[3] = {v0, v1, v2};
  irm_object *m = NULL;
  if (!n) return NULL;
  return check(g, g->rc ? g->rc : irm_map_from_pairs(keys, vals, n, &m), &m);
}

/* An Array of n ints. NEW. */
static irm_object *ints(ogen *g, size_t n, const int64_t *v) {
  irm_any items[4];
  for (size_t i = 0; i < n; i++) items[i] = irm_any_int(v[i]);
  irm_object *a = NULL;
  return check(g, g->rc ? g->rc : irm_array_new(items, n, &a), &a);
}

/* A call of op on args; at (taken, may be NULL) its attributes. NEW. */
static irm_object *call(ogen *g, const char *op, irm_object *const *args, size_t n, irm_object *at) {
  irm_object *o = NULL, *c = NULL;
  for (size_t i = 0; i < n; i++)
    if (!args[i]) {
      irm_object_release(at);
      return NULL;
    }
  if (check(g, g->rc ? g->rc : irm_op_get(op, &o), &o)) check(g, irm_call_new(o, args, n, at, &c), &c);
  irm_object_release(o);
  irm_object_release(at);
  return c;
}

static irm_object *call1(ogen *g, const char *op, irm_object *a, irm_object *at) { return call(g, op, &a, 1, at); }

static irm_object *call2(ogen *g, const char *op, irm_object *a, irm_object *b) {
  irm_object *args[2] = {a, b};
  return call(g, op, args, 2, NULL);
}

/* A weight of shape: a new parameter of main (with a value in `params`
 * three times in four) or a constant. Values uniform in +-limit. NEW. */
static irm_object *weight(ogen *g, int32_t ndim, const int64_t *shape, double limit) {
  if (rnd(g) & 1) return constant_of(g, tensor(g, ndim, shape, -limit, limit, 0));
  char name[32];
  snprintf(name, sizeof name, "w%zu", g->nweights++);
  irm_object *type = ttype(g, ndim, shape), *var = NULL;
  if (type) check(g, irm_var_new(name, type, &var), &var);
  irm_object_release(type);
  if (!var || !grow(g, (void **)&g->params, g->nparams, &g->capp, sizeof *g->params)) {
    irm_object_release(var);
    return NULL;
  }
  g->params[g->nparams++] = var;
  if (rnd(g) % 4) {
    irm_object *t = tensor(g, ndim, shape, -limit, limit, 0);
    irm_any v = irm_any_object(t);
    if (t && !g->rc) g->rc = irm_map_set_move(&g->param_values, name, &v);
    irm_object_release(t);
  }
  irm_object_retain(var);
  return var;
}

/* ---- the steps ----------------------------------------------------------------------- */

/* relu, negative, sqrt (of non-negative values), exp (of small ones). */
static void unary(ogen *g, val *v) {
  size_t r = below(g, 4);
  irm_object *e = v->e;
  if (r == 2 && v->nonneg) push_like(g, call1(g, "sqrt", e, NULL), v, sqrt(v->bound), 1);
  else if (r == 3 && v->bound <= 4) push_like(g, call1(g, "exp", e, NULL), v, exp(v->bound), 1);
  else if (r == 1) push_like(g, call1(g, "negative", e, NULL), v, v->bound, 0);
  else push_like(g, call1(g, "nn.relu", e, NULL), v, v->bound, 1);
}

/* The broadcast shape for a constant operand of v: v's own, per channel
 * (C, 1, 1) / per feature (F,), or a scalar. */
static int32_t broadcast_shape(ogen *g, const val *v, int64_t *shape) {
  size_t r = below(g, 3);
  if (r == 0) {
    memcpy(shape, v->shape, sizeof v->shape);
    return v->ndim;
  }
  if (r == 1 && v->ndim == 4) {
    shape[0] = v->shape[1];
    shape[1] = shape[2] = 1;
    return 3;
  }
  if (r == 1) {
    shape[0] = v->shape[1];
    return 1;
  }
  return 0;
}

/* v op constant (or constant op v): ones for multiply and zeros for add and
 * subtract now and then (x * 1, x + 0, ...), divisors away from zero. */
static void with_constant(ogen *g, val *v) {
  int64_t shape[4];
  int32_t nd = broadcast_shape(g, v, shape);
  size_t r = below(g, 5);
  int trivial = below(g, 4) == 0, left = rnd(g) & 1;
  irm_object *c = NULL;
  const char *op;
  double bound = v->bound;
  if (r == 0) { /* multiply */
    op = "multiply";
    c = constant_of(g, trivial ? tensor(g, nd, shape, 1, 1, 0) : tensor(g, nd, shape, -1, 1, 0));
  } else if (r == 1) {
    op = "divide";
    left = 0;
    c = constant_of(g, tensor(g, nd, shape, 0.5, 2, 1));
    bound *= 2;
  } else if (r == 2) {
    op = "maximum";
    c = constant_of(g, tensor(g, nd, shape, -1, 1, 0));
    bound += 1;
  } else {
    op = r == 3 ? "add" : "subtract";
    left = r == 3 && left;
    c = constant_of(g, trivial ? tensor(g, nd, shape, 0, 0, 0) : tensor(g, nd, shape, -1, 1, 0));
    bound += 1;
  }
  push_like(g, left ? call2(g, op, c, v->e) : call2(g, op, v->e, c), v, bound, 0);
  irm_object_release(c);
}

/* v op w for another pool value w of v's shape, when there is one. */
static void with_value(ogen *g, val *v) {
  val *w = NULL;
  for (size_t tries = 0; tries < 8 && !w; tries++) {
    val *c = &g->pool[below(g, g->n)];
    if (c->ndim == v->ndim && memcmp(c->shape, v->shape, (size_t)v->ndim * sizeof *v->shape) == 0) w = c;
  }
  if (!w) {
    with_constant(g, v);
    return;
  }
  size_t r = below(g, 4);
  double bound = v->bound + w->bound;
  const char *op = r == 0 ? "add" : r == 1 ? "subtract" : r == 2 ? "maximum" : "multiply";
  if (r == 3 && v->bound * w->bound > 1e4) op = "add";
  if (strcmp(op, "multiply") == 0) bound = v->bound * w->bound;
  irm_object *e = call2(g, op, v->e, w->e); /* w may move when the pool grows */
  push_like(g, e, v, bound, 0);
}

/* v + (c1 * c2): a subexpression of constants only. */
static void constant_subexpression(ogen *g, val *v) {
  int64_t shape[4];
  int32_t nd = broadcast_shape(g, v, shape);
  irm_object *a = constant_of(g, tensor(g, nd, shape, -1, 1, 0));
  irm_object *b = constant_of(g, tensor(g, nd, shape, -1, 1, 0));
  irm_object *ab = call2(g, rnd(g) & 1 ? "multiply" : "add", a, b), *sq = NULL;
  if (rnd(g) & 1) sq = call1(g, "negative", ab, NULL);
  push_like(g, call2(g, "add", v->e, sq ? sq : ab), v, v->bound + 2, 0);
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(ab);
  irm_object_release(sq);
}

static void conv2d(ogen *g, val *v) {
  int64_t o = 1 + (int64_t)below(g, 4), k = rnd(g) & 1 ? 3 : 1, stride = below(g, 4) == 0 ? 2 : 1;
  int64_t ws[4] = {o, v->shape[1], k, k}, pad[2] = {k / 2, k / 2}, strides[2] = {stride, stride};
  double fan_in = (double)(v->shape[1] * k * k);
  irm_object *w = weight(g, 4, ws, 1.0 / fan_in), *args[2] = {v->e, w};
  irm_object *pd = ints(g, 2, pad), *st = ints(g, 2, strides);
  irm_object *at = attrs(g, 2, "padding", irm_any_object(pd), "strides", irm_any_object(st), NULL, irm_any_none());
  irm_object_release(pd);
  irm_object_release(st);
  int64_t shape[4] = {v->shape[0], o, (v->shape[2] + 2 * (k / 2) - k) / stride + 1,
                      (v->shape[3] + 2 * (k / 2) - k) / stride + 1};
  push(g, call(g, "nn.conv2d", args, 2, at), 4, shape, v->bound, 0);
  irm_object_release(w);
}

static void bias_add(ogen *g, val *v) {
  int64_t shape[1] = {v->shape[1]};
  irm_object *b = weight(g, 1, shape, 0.5), *args[2] = {v->e, b};
  irm_object *at =
      rnd(g) & 1 ? NULL
                 : attrs(g, 1, "axis", irm_any_int(v->ndim == 4 ? -3 : -1), NULL, irm_any_none(), NULL, irm_any_none());
  push_like(g, call(g, "nn.bias_add", args, 2, at), v, v->bound + 0.5, 0);
  irm_object_release(b);
}

static void pool(ogen *g, val *v) {
  size_t r = below(g, 3);
  if (r == 2 || v->shape[2] < 2 || v->shape[3] < 2) {
    int64_t shape[4] = {v->shape[0], v->shape[1], 1, 1};
    push(g, call1(g, "nn.global_avg_pool2d", v->e, NULL), 4, shape, v->bound, v->nonneg);
    return;
  }
  int64_t stride = rnd(g) & 1 ? 2 : 1, size[2] = {2, 2}, strides[2] = {stride, stride};
  irm_object *ps = ints(g, 2, size), *st = ints(g, 2, strides);
  irm_object *at = attrs(g, 2, "pool_size", irm_any_object(ps), "strides", irm_any_object(st), NULL, irm_any_none());
  irm_object_release(ps);
  irm_object_release(st);
  int64_t shape[4] = {v->shape[0], v->shape[1], (v->shape[2] - 2) / stride + 1, (v->shape[3] - 2) / stride + 1};
  push(g, call1(g, r ? "nn.avg_pool2d" : "nn.max_pool2d", v->e, at), 4, shape, v->bound, v->nonneg);
}

static void dense(ogen *g, val *v) {
  int64_t units = 1 + (int64_t)below(g, 12), ws[2] = {units, v->shape[1]};
  irm_object *w = weight(g, 2, ws, 1.0 / (double)v->shape[1]), *args[2] = {v->e, w};
  int64_t shape[2] = {v->shape[0], units};
  push(g, call(g, "nn.dense", args, 2, NULL), 2, shape, v->bound, 0);
  irm_object_release(w);
}

static void softmax(ogen *g, val *v) {
  irm_object *at = rnd(g) & 1 ? NULL : attrs(g, 1, "axis", irm_any_int(1), NULL, irm_any_none(), NULL, irm_any_none());
  push_like(g, call1(g, "nn.softmax", v->e, at), v, 1, 1);
}

static void reduce(ogen *g, val *v) {
  int64_t axis[1] = {rnd(g) & 1 ? 1 : -1};
  irm_object *ax = ints(g, 1, axis);
  irm_object *at = attrs(g, 2, "axis", irm_any_object(ax), "keepdims", irm_any_bool(true), NULL, irm_any_none());
  irm_object_release(ax);
  int64_t shape[4];
  memcpy(shape, v->shape, sizeof shape);
  int32_t a = axis[0] < 0 ? v->ndim - 1 : 1;
  int mean = rnd(g) & 1;
  double bound = mean ? v->bound : v->bound * (double)shape[a];
  shape[a] = 1;
  push(g, call1(g, mean ? "mean" : "sum", v->e, at), v->ndim, shape, bound, v->nonneg);
}

/* transpose, and now and then its inverse right after (they cancel). */
static void transpose(ogen *g, val *v) {
  int64_t perm[4] = {0, 1, 2, 3}, inv[4];
  int32_t nd = v->ndim;
  for (int32_t i = nd - 1; i > 0; i--) {
    size_t j = below(g, (size_t)i + 1);
    int64_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  int reverse = below(g, 4) == 0; /* no axes: reverse them */
  if (reverse)
    for (int32_t i = 0; i < nd; i++) perm[i] = nd - 1 - i;
  int64_t shape[4];
  for (int32_t i = 0; i < nd; i++) {
    shape[i] = v->shape[perm[i]];
    inv[perm[i]] = i;
  }
  irm_object *ax = reverse ? NULL : ints(g, (size_t)nd, perm);
  irm_object *at = ax ? attrs(g, 1, "axes", irm_any_object(ax), NULL, irm_any_none(), NULL, irm_any_none()) : NULL;
  irm_object_release(ax);
  irm_object *t = call1(g, "transpose", v->e, at);
  double bound = v->bound;
  int nonneg = v->nonneg;
  if (t && rnd(g) & 1) {
    irm_object *ix = ints(g, (size_t)nd, inv);
    irm_object *back =
        call1(g, "transpose", t, attrs(g, 1, "axes", irm_any_object(ix), NULL, irm_any_none(), NULL, irm_any_none()));
    irm_object_release(ix);
    irm_object_release(t);
    int64_t same[4];
    memcpy(same, v->shape, sizeof same);
    push(g, back, nd, same, bound, nonneg);
    return;
  }
  push(g, t, nd, shape, bound, nonneg);
}

/* 4-D to 2-D and back, 4-D to 4-D; sometimes a reshape of a reshape. */
static void reshape(ogen *g, val *v) {
  int64_t spec[4], shape[4];
  int32_t nd;
  if (v->ndim == 4 && rnd(g) & 1) {
    spec[0] = 0;
    spec[1] = -1;
    nd = 2;
    shape[0] = v->shape[0];
    shape[1] = v->shape[1] * v->shape[2] * v->shape[3];
  } else if (v->ndim == 4) {
    spec[0] = v->shape[0];
    spec[1] = v->shape[1];
    spec[2] = v->shape[3];
    spec[3] = v->shape[2];
    nd = 4;
    memcpy(shape, spec, sizeof shape);
  } else {
    spec[0] = 0;
    spec[1] = -1;
    spec[2] = spec[3] = 1;
    nd = 4;
    shape[0] = v->shape[0];
    shape[1] = v->shape[1];
    shape[2] = shape[3] = 1;
  }
  irm_object *ns = ints(g, (size_t)nd, spec);
  irm_object *r = call1(g, "reshape", v->e,
                        attrs(g, 1, "newshape", irm_any_object(ns), NULL, irm_any_none(), NULL, irm_any_none()));
  irm_object_release(ns);
  if (r && rnd(g) & 1) { /* flatten again: reshape(reshape(x)) */
    int64_t flat[2] = {shape[0], numel(nd, shape) / shape[0]};
    ns = ints(g, 2, flat);
    irm_object *rr =
        call1(g, "reshape", r, attrs(g, 1, "newshape", irm_any_object(ns), NULL, irm_any_none(), NULL, irm_any_none()));
    irm_object_release(ns);
    irm_object_release(r);
    push(g, rr, 2, flat, v->bound, v->nonneg);
    return;
  }
  push(g, r, nd, shape, v->bound, v->nonneg);
}

/* (v, w) and one of its fields. */
static void tuple(ogen *g, val *v) {
  val *w = pick(g);
  irm_object *fields[2] = {v->e, w->e}, *t = NULL, *item = NULL;
  size_t i = below(g, 2);
  val chosen = i ? *w : *v;
  check(g, g->rc ? g->rc : irm_tuple_new(fields, 2, &t), &t);
  if (t) check(g, irm_tuple_get_item_new(t, (int64_t)i, &item), &item);
  irm_object_release(t);
  push_like(g, item, &chosen, chosen.bound, chosen.nonneg);
}

/* let %vN = v in ...: used (its variable joins the pool) or dead. */
static void let(ogen *g, val *v, int dead) {
  char name[32];
  snprintf(name, sizeof name, "v%zu", g->nlets / 2);
  /* An unannotated variable binds a fresh call: InferType cannot yet type
   * one whose value it met before the Let (a shared value, a parameter). */
  int typed = rnd(g) & 1;
  irm_object *type = typed ? ttype(g, v->ndim, v->shape) : NULL, *var = NULL;
  check(g, g->rc ? g->rc : irm_var_new(name, type, &var), &var);
  irm_object_release(type);
  if (!var || !grow(g, (void **)&g->lets, g->nlets + 1, &g->capl, sizeof *g->lets)) {
    irm_object_release(var);
    return;
  }
  irm_object *value = v->e;
  irm_object_retain(value);
  if (dead || !typed) { /* a value nobody reads, or a fresh one */
    irm_object *r = call1(g, "nn.relu", value, NULL);
    irm_object_release(value);
    value = r;
    if (!value) {
      irm_object_release(var);
      return;
    }
  }
  g->lets[g->nlets++] = var;
  g->lets[g->nlets++] = value;
  if (!dead) {
    irm_object_retain(var);
    push_like(g, var, v, v->bound, typed ? v->nonneg : 1);
  }
}

/* A function of one parameter of v's type applying two elementwise ops
 * (bounds grow by at most 1). */
static irm_object *helper_body(ogen *g, const val *v, irm_object **param) {
  irm_object *type = ttype(g, v->ndim, v->shape), *p = NULL;
  check(g, g->rc ? g->rc : irm_var_new("a", type, &p), &p);
  irm_object_release(type);
  if (!p) return NULL;
  int64_t one[1] = {1};
  irm_object *c = constant_of(g, tensor(g, 0, one, 0.5, 1, 1));
  irm_object *r = call1(g, rnd(g) & 1 ? "nn.relu" : "negative", p, NULL);
  irm_object *body = call2(g, rnd(g) & 1 ? "add" : "multiply", r, c), *fn = NULL;
  if (body) check(g, irm_function_new(&p, 1, body, NULL, NULL, &fn), &fn);
  irm_object_release(c);
  irm_object_release(r);
  irm_object_release(body);
  *param = p;
  return fn;
}

/* A call of a new module function @helperN on v, or of a function literal. */
static void call_function(ogen *g, val *v, int literal) {
  irm_object *p = NULL, *fn = helper_body(g, v, &p), *callee = NULL, *c = NULL;
  irm_object_release(p);
  if (!fn) return;
  if (literal) {
    callee = fn;
    irm_object_retain(callee);
  } else {
    char name[32];
    snprintf(name, sizeof name, "helper%zu", g->nhelpers++);
    if (!g->rc) g->rc = irm_module_set_function_move(&g->mod, name, fn);
    check(g, g->rc ? g->rc : irm_global_var_new(name, &callee), &callee);
  }
  irm_object_release(fn);
  if (callee) check(g, irm_call_new(callee, &v->e, 1, NULL, &c), &c);
  irm_object_release(callee);
  push_like(g, c, v, v->bound + 1, 0);
}

static void step(ogen *g) {
  val *v = pick(g);
  size_t r = below(g, 100);
  if (v->bound > 1e3) r = 90; /* bring it back: softmax */
  if (r < 14) unary(g, v);
  else if (r < 28) with_constant(g, v);
  else if (r < 38) with_value(g, v);
  else if (r < 43) constant_subexpression(g, v);
  else if (r < 53 && v->ndim == 4 && numel(4, v->shape) <= 256) conv2d(g, v);
  else if (r < 53 && v->ndim == 2) dense(g, v);
  else if (r < 53) pool(g, v);
  else if (r < 58) bias_add(g, v);
  else if (r < 64 && v->ndim == 4) pool(g, v);
  else if (r < 64 && v->shape[1] <= 32) dense(g, v);
  else if (r < 64) reduce(g, v);
  else if (r < 69) reshape(g, v);
  else if (r < 74) transpose(g, v);
  else if (r < 78) reduce(g, v);
  else if (r < 82) tuple(g, v);
  else if (r < 87) let(g, v, 0);
  else if (r < 89) let(g, v, 1);
  else if (r < 92) softmax(g, v);
  else if (r < 97) call_function(g, v, 0);
  else call_function(g, v, 1);
}

/* The body: the last value, or a tuple of the last two, under the Lets. */
static irm_object *main_body(ogen *g) {
  irm_object *body = NULL;
  if (g->n >= 2 && rnd(g) & 1) {
    irm_object *fields[2] = {g->pool[g->n - 2].e, g->pool[g->n - 1].e};
    check(g, g->rc ? g->rc : irm_tuple_new(fields, 2, &body), &body);
  } else {
    body = g->pool[g->n - 1].e;
    irm_object_retain(body);
  }
  for (size_t i = g->nlets; i >= 2 && body && !g->rc; i -= 2) {
    irm_object *l = NULL;
    check(g, irm_let_new(g->lets[i - 2], g->lets[i - 1], body, &l), &l);
    irm_object_release(body);
    body = l;
  }
  return body;
}

static void free_gen(ogen *g) {
  for (size_t i = 0; i < g->n; i++) irm_object_release(g->pool[i].e);
  for (size_t i = 0; i < g->nlets; i++) irm_object_release(g->lets[i]);
  for (size_t i = 0; i < g->nparams; i++) irm_object_release(g->params[i]);
  free(g->pool);
  free(g->lets);
  free(g->params);
  irm_object_release(g->param_values);
}

/* An input parameter of main (also a pool value). */
static void input(ogen *g, const char *name, int32_t nd, const int64_t *shape) {
  irm_object *type = ttype(g, nd, shape), *var = NULL;
  check(g, g->rc ? g->rc : irm_var_new(name, type, &var), &var);
  irm_object_release(type);
  if (!var || !grow(g, (void **)&g->params, g->nparams, &g->capp, sizeof *g->params)) {
    irm_object_release(var);
    return;
  }
  g->params[g->nparams++] = var;
  irm_object_retain(var);
  push(g, var, nd, shape, 1, 0);
}

static irm_module *finish(ogen *g) {
  irm_object *body = g->rc ? NULL : main_body(g), *fn = NULL;
  if (body) check(g, irm_function_new(g->params, g->nparams, body, NULL, NULL, &fn), &fn);
  irm_object_release(body);
  if (fn && !g->rc) g->rc = irm_module_set_function_move(&g->mod, "main", fn);
  irm_object_release(fn);
  irm_any pv = irm_any_object(g->param_values);
  if (!g->rc && irm_map_size(g->param_values)) g->rc = irm_module_set_attr_move(&g->mod, IRM_ATTR_PARAMS, &pv);
  irm_module *mod = g->mod;
  g->mod = NULL;
  free_gen(g);
  if (g->rc) {
    irm_object_release(mod);
    return NULL;
  }
  return mod;
}

static void start(ogen *g, uint64_t seed) {
  memset(g, 0, sizeof *g);
  g->state = seed * 0x2545F4914F6CDD1Dull + 7;
  g->rc = irm_module_new(NULL, NULL, &g->mod);
  if (!g->rc) g->rc = irm_map_new(&g->param_values);
}

irm_module *irm_test_random_op_module(uint64_t seed, size_t n_calls) {
  ogen g;
  start(&g, seed);
  int64_t s4[4] = {1 + (int64_t)below(&g, 2), 1 + (int64_t)below(&g, 4), 2 + (int64_t)below(&g, 5),
                   2 + (int64_t)below(&g, 5)};
  int64_t s2[2] = {1 + (int64_t)below(&g, 2), 1 + (int64_t)below(&g, 12)};
  input(&g, "x0", 4, s4);
  input(&g, "x1", 2, s2);
  if (!g.rc) { /* a helper nobody calls */
    irm_object *p = NULL, *fn = helper_body(&g, &g.pool[0], &p);
    irm_object_release(p);
    if (fn && !g.rc) g.rc = irm_module_set_function_move(&g.mod, "unused", fn);
    irm_object_release(fn);
  }
  irm_any name = irm_any_str("random");
  if (!g.rc) g.rc = irm_module_set_attr_move(&g.mod, IRM_ATTR_MOD_NAME, &name);
  for (size_t i = 0; i < n_calls && !g.rc; i++) step(&g);
  return finish(&g);
}

irm_module *irm_test_op_chain(uint64_t seed, size_t n_calls) {
  ogen g;
  start(&g, seed);
  int64_t shape[2] = {1, 8}, wshape[2] = {8, 8}, one[1] = {8};
  input(&g, "x", 2, shape);
  irm_object *w = constant_of(&g, tensor(&g, 2, wshape, -0.125, 0.125, 0));
  static const char *const ops[] = {"nn.relu", "negative", "add", "multiply", "maximum", "subtract"};
  for (size_t i = 0; i < n_calls && !g.rc; i++) {
    irm_object *x = g.pool[g.n - 1].e, *e = NULL;
    if (i % 10 == 9) {
      irm_object *args[2] = {x, w};
      e = call(&g, "nn.dense", args, 2, NULL);
    } else if (i % 5 == 4) { /* x + c1 * c2 */
      irm_object *a = constant_of(&g, tensor(&g, 1, one, -1, 1, 0)), *b = constant_of(&g, tensor(&g, 1, one, -1, 1, 0));
      irm_object *ab = call2(&g, "multiply", a, b);
      e = call2(&g, "add", x, ab);
      irm_object_release(a);
      irm_object_release(b);
      irm_object_release(ab);
      i++; /* the product is a call too */
    } else {
      const char *op = ops[below(&g, 6)];
      if (op[0] == 'n') {
        e = call1(&g, op, x, NULL);
      } else {
        irm_object *c = constant_of(&g, tensor(&g, 1, one, 0.5, 1, 0));
        e = call2(&g, op, x, c);
        irm_object_release(c);
      }
    }
    /* keep the pool short: only the last value is read */
    if (g.n > 1) {
      irm_object_release(g.pool[0].e);
      g.pool[0] = g.pool[g.n - 1];
      g.n = 1;
    }
    push(&g, e, 2, shape, 1, 0);
  }
  irm_object_release(w);
  if (g.n > 1) { /* only the last value is the body */
    irm_object_release(g.pool[0].e);
    g.pool[0] = g.pool[g.n - 1];
    g.n = 1;
  }
  return finish(&g);
}
