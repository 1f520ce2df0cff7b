/* The random IR generator of dataflow_gen.h. */
#include "dataflow_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gen {
  uint64_t state;
  irm_object **pool; /* owned: expressions usable where the next node goes */
  size_t n, cap;
  irm_object **lets; /* owned: var, value, var, value, ... of the body's chain */
  size_t nlets, capl;
  irm_object **funcs; /* borrowed names are "f0", "f1", ...; param counts beside */
  size_t nfuncs;
  size_t *arity;
  int rc;
} gen;

static uint64_t rnd(gen *g) { /* splitmix64 */
  uint64_t z = (g->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static size_t below(gen *g, size_t n) { return n ? (size_t)(rnd(g) % n) : 0; }

/* Records a failure once; every builder below gives NULL after one. */
/* o is read after rc is computed (argument order is unspecified). */
static irm_object *check(gen *g, int rc, irm_object **o) {
  if (rc && !g->rc) g->rc = rc;
  if (rc) {
    irm_object_release(*o);
    *o = NULL;
    return NULL;
  }
  return *o;
}

static void push_list(gen *g, irm_object ***list, size_t *n, size_t *cap, irm_object *o) {
  if (!o) return;
  if (*n == *cap) {
    size_t c = *cap ? *cap * 2 : 32;
    irm_object **a = realloc(*list, c * sizeof *a);
    if (!a) {
      g->rc = irm_error(IRM_ENOMEM, "ir_gen: out of memory");
      irm_object_release(o);
      return;
    }
    *list = a;
    *cap = c;
  }
  (*list)[(*n)++] = o;
}

static void push(gen *g, irm_object *o) { push_list(g, &g->pool, &g->n, &g->cap, o); }

/* A pool item, more often a recent one (borrowed). */
static irm_object *pick(gen *g) {
  if (!g->n) return NULL;
  size_t recent = g->n < 6 ? g->n : 6;
  return rnd(g) & 1 ? g->pool[g->n - 1 - below(g, recent)] : g->pool[below(g, g->n)];
}

static DLDataType dtype_of(gen *g) {
  static const char *names[] = {"float32", "float16", "int32", "int8", "uint8", "bool"};
  DLDataType t = {0, 0, 0};
  (void)irm_dtype_parse(names[below(g, 6)], &t);
  return t;
}

static irm_object *tensor_type(gen *g) {
  int64_t shape[3];
  int32_t nd = (int32_t)below(g, 4);
  for (int32_t i = 0; i < nd; i++) shape[i] = (int64_t)below(g, 5) + (i == 0);
  irm_object *t = NULL;
  return check(g, irm_tensor_type_new(dtype_of(g), shape, nd, &t), &t);
}

/* A tensor, a tuple type or a function type, or none at all. */
static irm_object *any_type(gen *g) {
  size_t r = below(g, 10);
  if (r < 3) return NULL;
  if (r < 8) return tensor_type(g);
  irm_object *fields[2] = {tensor_type(g), tensor_type(g)}, *t = NULL;
  if (!fields[0] || !fields[1]) t = NULL;
  else if (r == 8) g->rc = g->rc ? g->rc : irm_tuple_type_new(fields, below(g, 3), &t);
  else g->rc = g->rc ? g->rc : irm_func_type_new(fields, 1, fields[1], &t);
  irm_object_release(fields[0]);
  irm_object_release(fields[1]);
  return g->rc ? NULL : t;
}

static irm_object *new_var(gen *g, int typed) {
  static const char *names[] = {"x", "y", "x", "data", "x.1", "a.b", "x_1", "w", "conv.weight", "_t", "a..b"};
  irm_object *t = typed ? tensor_type(g) : NULL, *v = NULL;
  int rc = g->rc ? g->rc : irm_var_new(names[below(g, sizeof names / sizeof names[0])], t, &v);
  irm_object_release(t);
  return check(g, rc, &v);
}

static double special(gen *g) {
  static const double values[] = {0.0, -0.0, 1.0, -2.5, 0.1, 1e-30, 3.4e38, 65504.0, 6e-8, 1.0 / 3.0};
  size_t r = below(g, 14);
  if (r == 10) return NAN;
  if (r == 11) return INFINITY;
  if (r == 12) return -INFINITY;
  if (r == 13) return ((double)(rnd(g) % 2000001) - 1000000.0) / 997.0;
  return values[r];
}


static irm_object *gen_tensor(gen *g) {
  int64_t shape[2];
  int32_t nd = (int32_t)below(g, 3);
  for (int32_t i = 0; i < nd; i++) shape[i] = (int64_t)below(g, 4);
  DLDataType dt = dtype_of(g);
  irm_tensor *t = NULL;
  if (check(g, g->rc ? g->rc : irm_tensor_new(dt, shape, nd, NULL, &t), &t) == NULL) return NULL;
  const char *name = irm_dtype_name(dt);
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) {
    double x;
    if (dt.code == kDLFloat) x = special(g);
    else if (strcmp(name, "int32") == 0) x = (double)(int32_t)(uint32_t)rnd(g);
    else if (strcmp(name, "int8") == 0) x = (double)(int8_t)(uint8_t)rnd(g);
    else if (strcmp(name, "uint8") == 0) x = (double)(uint8_t)rnd(g);
    else x = (double)(rnd(g) & 1);
    irm_tensor_set_f64(t, i, x);
  }
  return t;
}

static irm_object *constant(gen *g) {
  irm_object *t = gen_tensor(g), *c = NULL;
  if (!t) return NULL;
  int rc = irm_constant_new(t, &c);
  irm_object_release(t);
  return check(g, rc, &c);
}

static irm_object *op(gen *g, const char *name) {
  irm_object *o = NULL;
  return check(g, g->rc ? g->rc : irm_op_get(name, &o), &o);
}

/* A call of op name with n args and random attributes. */
static irm_object *op_call(gen *g, const char *name, irm_object *const *args, size_t n) {
  irm_object *o = op(g, name), *attrs = NULL, *c = NULL;
  if (!o) return NULL;
  int rc = irm_map_new(&attrs);
  if (!rc && strcmp(name, "gen.unary") == 0) {
    irm_any alpha = irm_any_float(rnd(g) & 1 ? 1.0 : special(g));
    irm_any mode = irm_any_str(rnd(g) & 1 ? "same" : "odd \"mode\"\n");
    if (rnd(g) & 1) rc = irm_map_set_move(&attrs, "alpha", &alpha);
    if (!rc && rnd(g) & 1) rc = irm_map_set_move(&attrs, "mode", &mode);
  } else if (!rc && strcmp(name, "gen.binary") == 0) {
    irm_any items[2] = {irm_any_int((int64_t)below(g, 4)), irm_any_int(-1)};
    irm_object *axes = NULL;
    rc = irm_array_new(items, below(g, 3), &axes);
    irm_any a = irm_any_object(axes), flag = irm_any_bool(rnd(g) & 1);
    if (!rc) rc = irm_map_set_move(&attrs, "axes", &a);
    if (!rc) rc = irm_map_set_move(&attrs, "flag", &flag);
    irm_object_release(axes);
  } else if (!rc) {
    irm_any count = irm_any_int((int64_t)n);
    rc = irm_map_set_move(&attrs, "count", &count);
  }
  if (!rc) rc = irm_call_new(o, args, n, attrs, &c);
  irm_object_release(o);
  irm_object_release(attrs);
  return check(g, rc, &c);
}

static irm_object *unary(gen *g, irm_object *x) { return x ? op_call(g, "gen.unary", &x, 1) : NULL; }

/* A nested function of 1-2 parameters (a Primitive one now and then),
 * called on pool items. */
static irm_object *nested_call(gen *g) {
  size_t np = 1 + below(g, 2);
  irm_object *params[2] = {NULL, NULL}, *fn = NULL, *c = NULL, *attrs = NULL;
  for (size_t i = 0; i < np; i++) params[i] = new_var(g, (int)(rnd(g) & 1));
  irm_object *body = NULL;
  if (!g->rc) {
    irm_object *args[2] = {params[0], np > 1 ? params[1] : pick(g)}; /* may capture an outer value */
    body = op_call(g, "gen.binary", args, 2);
  }
  if (!g->rc && rnd(g) & 1) {
    irm_any yes = irm_any_bool(true);
    const char *key = "Primitive";
    g->rc = irm_map_from_pairs(&key, &yes, 1, &attrs);
  }
  if (!g->rc) g->rc = irm_function_new(params, np, body, NULL, attrs, &fn);
  if (!g->rc) {
    irm_object *args[2] = {pick(g), pick(g)};
    g->rc = irm_call_new(fn, args, np, NULL, &c);
  }
  for (size_t i = 0; i < np; i++) irm_object_release(params[i]);
  irm_object_release(body);
  irm_object_release(attrs);
  irm_object_release(fn);
  return g->rc ? (irm_object_release(c), NULL) : c;
}

static void step(gen *g) {
  size_t r = below(g, 100);
  irm_object *args[3] = {pick(g), pick(g), pick(g)};
  if (r < 30) {
    push(g, unary(g, args[0]));
  } else if (r < 42) {
    push(g, op_call(g, "gen.binary", args, 2));
  } else if (r < 47) {
    push(g, op_call(g, "gen.any", args, below(g, 4)));
  } else if (r < 53) {
    push(g, constant(g));
  } else if (r < 60) {
    size_t n = below(g, 4);
    irm_object *t = NULL, *item = NULL;
    t = check(g, g->rc ? g->rc : irm_tuple_new(args, n, &t), &t);
    if (t && n) item = check(g, irm_tuple_get_item_new(t, (int64_t)below(g, n), &item), &item);
    push(g, t);
    push(g, item);
  } else if (r < 68) { /* a let of the body's chain */
    irm_object *v = new_var(g, (int)(rnd(g) & 1));
    if (!v) return;
    irm_object_retain(args[0]);
    push_list(g, &g->lets, &g->nlets, &g->capl, v);
    push_list(g, &g->lets, &g->nlets, &g->capl, args[0]);
    irm_object_retain(v);
    push(g, v);
  } else if (r < 74) {
    push(g, nested_call(g));
  } else if (r < 78 && g->nfuncs) { /* a call of an earlier module function */
    size_t f = below(g, g->nfuncs);
    char name[32];
    snprintf(name, sizeof name, "f%zu", f);
    irm_object *gv = NULL, *c = NULL;
    gv = check(g, irm_global_var_new(name, &gv), &gv);
    if (gv) c = check(g, irm_call_new(gv, args, g->arity[f], NULL, &c), &c);
    irm_object_release(gv);
    push(g, c);
  } else if (r < 83) { /* a Let inside an expression */
    irm_object *v = new_var(g, 0), *body = unary(g, v), *let = NULL;
    if (body) let = check(g, irm_let_new(v, args[0], body, &let), &let);
    irm_object_release(v);
    irm_object_release(body);
    push(g, unary(g, let));
    irm_object_release(let);
  } else if (r < 90) { /* a checked type */
    irm_object *c = unary(g, args[0]), *t = any_type(g), *typed = NULL;
    if (c && t) typed = check(g, irm_expr_with_type(c, t, &typed), &typed);
    irm_object_release(t);
    if (typed) {
      irm_object_release(c);
      c = typed;
    }
    push(g, c);
  } else { /* a constant used twice */
    irm_object *c = constant(g);
    if (!c) return;
    irm_object *two[2] = {c, c};
    push(g, op_call(g, "gen.binary", two, 2));
    irm_object_release(c);
  }
}

static void clear_pool(gen *g) {
  for (size_t i = 0; i < g->n; i++) irm_object_release(g->pool[i]);
  for (size_t i = 0; i < g->nlets; i++) irm_object_release(g->lets[i]);
  g->n = g->nlets = 0;
}

static irm_object *function(gen *g, size_t steps, size_t *arity) {
  size_t np = below(g, 4);
  irm_object *params[3] = {NULL, NULL, NULL};
  for (size_t i = 0; i < np; i++) {
    params[i] = new_var(g, rnd(g) % 4 != 0);
    if (params[i]) {
      irm_object_retain(params[i]);
      push(g, params[i]);
    }
  }
  if (!g->n) push(g, constant(g));
  for (size_t i = 0; i < steps && !g->rc; i++) step(g);
  irm_object *body = pick(g), *fn = NULL, *ret = NULL, *attrs = NULL;
  if (body) irm_object_retain(body);
  for (size_t i = g->nlets; i >= 2 && body && !g->rc; i -= 2) {
    irm_object *let = NULL;
    g->rc = irm_let_new(g->lets[i - 2], g->lets[i - 1], body, &let);
    irm_object_release(body);
    body = g->rc ? NULL : let;
  }
  if (!g->rc && rnd(g) & 1) ret = tensor_type(g);
  if (!g->rc && rnd(g) % 3 == 0) {
    irm_any sym = irm_any_str("sym_\"q\"");
    const char *key = "global_symbol";
    g->rc = irm_map_from_pairs(&key, &sym, 1, &attrs);
  }
  if (!g->rc) g->rc = irm_function_new(params, np, body, ret, attrs, &fn);
  for (size_t i = 0; i < np; i++) irm_object_release(params[i]);
  irm_object_release(body);
  irm_object_release(ret);
  irm_object_release(attrs);
  clear_pool(g);
  *arity = np;
  return g->rc ? (irm_object_release(fn), NULL) : fn;
}

static int set_attrs(gen *g, irm_module **mod) {
  int rc = IRM_OK;
  irm_object *o = NULL;
  if (rnd(g) & 1) {
    irm_any v = irm_any_str("model");
    rc = irm_module_set_attr_move(mod, IRM_ATTR_MOD_NAME, &v);
  }
  if (!rc && rnd(g) & 1 && (rc = irm_target_parse("llvm -mcpu=skylake", &o)) == IRM_OK) {
    irm_any v = irm_any_object(o);
    rc = irm_module_set_attr_move(mod, IRM_ATTR_TARGET, &v);
    irm_object_release(o);
  }
  if (!rc && rnd(g) & 1) {
    irm_any v = irm_any_float(special(g));
    rc = irm_module_set_attr_move(mod, "gen.ratio", &v);
  }
  if (!rc && rnd(g) & 1 && (o = gen_tensor(g)) != NULL) {
    irm_any t = irm_any_object(o);
    irm_object *params = NULL;
    const char *key = "w";
    rc = irm_map_from_pairs(&key, &t, 1, &params);
    irm_object_release(o);
    irm_any v = irm_any_object(params);
    if (!rc) rc = irm_module_set_attr_move(mod, IRM_ATTR_PARAMS, &v);
    irm_object_release(params);
  }
  return rc ? rc : g->rc;
}

int irm_test_gen_ops(void) {
  irm_kind *k = NULL;
  if (irm_kind_find(IRM_OP_CATEGORY, "gen.any", &k) == IRM_OK) return IRM_OK;
  irm_clear_error();
  irm_any one = irm_any_float(1.0), same = irm_any_str("same"), no = irm_any_bool(false), none = irm_any_none();
  irm_object *empty = NULL;
  int rc = irm_array_new(NULL, 0, &empty);
  irm_any axes = irm_any_object(empty);
  if (!rc) rc = irm_op_register("gen.unary", 1, &k);
  if (!rc) rc = irm_kind_add_option(k, "alpha", IRM_OPTION_FLOAT, &one, "scale", 0);
  if (!rc) rc = irm_kind_add_option(k, "mode", IRM_OPTION_STR, &same, "mode", 0);
  if (!rc) rc = irm_op_register("gen.binary", 2, &k);
  if (!rc) rc = irm_kind_add_option(k, "axes", IRM_OPTION_ARRAY_INT, &axes, "axes", 0);
  if (!rc) rc = irm_kind_add_option(k, "flag", IRM_OPTION_BOOL, &no, "flag", 0);
  if (!rc) rc = irm_op_register("gen.any", -1, &k);
  if (!rc) rc = irm_kind_add_option(k, "count", IRM_OPTION_INT, &none, "count", 1);
  irm_object_release(empty);
  return rc;
}

irm_module *irm_test_random_module(uint64_t seed, size_t n_nodes) {
  gen g;
  memset(&g, 0, sizeof g);
  g.state = seed * 0x2545F4914F6CDD1Dull + 1;
  irm_module *mod = NULL;
  g.rc = irm_test_gen_ops();
  if (!g.rc) g.rc = irm_module_new(NULL, NULL, &mod);
  size_t nf = 1 + below(&g, 3), arity[3];
  g.arity = arity;
  for (size_t f = 0; f < nf && !g.rc; f++) {
    irm_object *fn = function(&g, n_nodes / nf + 1, &arity[f]);
    char name[32];
    snprintf(name, sizeof name, "f%zu", f);
    if (fn && !g.rc) g.rc = irm_module_set_function_move(&mod, name, fn);
    irm_object_release(fn);
    g.nfuncs = f + 1;
  }
  if (!g.rc) g.rc = set_attrs(&g, &mod);
  clear_pool(&g);
  free(g.pool);
  free(g.lets);
  if (g.rc) {
    irm_object_release(mod);
    return NULL;
  }
  return mod;
}
