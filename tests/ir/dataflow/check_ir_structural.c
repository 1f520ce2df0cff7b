/* Structural equality and hashing of IR expressions up to renaming of
 * Vars (expr.h; ir/dataflow/expr_structural.c): alpha equivalence, binding
 * structure, free Vars, what takes part (annotations, attrs, constants,
 * function attributes and result types) and what does not (checked types,
 * name hints, sharing), deep chains and heavily shared DAGs, hash
 * agreement on generated programs, the JSON round trip, and out of
 * memory. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_alloc_util.h"
#include "check_ir_struct_util.h"

/* Both ways round, and the hashes agree when equal. */
static int equiv(const irm_object *a, const irm_object *b) {
  int ab = struct_eq(a, b), ba = struct_eq(b, a);
  ck_require(ab == ba, "equality is not symmetric (%d, %d)", ab, ba);
  if (ab) ck_require(struct_hash(a) == struct_hash(b), "equal nodes with different hashes");
  return ab;
}

/* ---- renaming ------------------------------------------------------------- */

START_TEST(test_alpha_equivalent_functions_are_equal) {
  irm_object *x = var("x", vec(4)), *y = var("y", vec(4));
  irm_object *f = fn2(R(x), R(y), add(R(x), neg(R(y))));
  irm_object *a = var("a", vec(4)), *b = var("completely_different", vec(4));
  irm_object *g = fn2(R(a), R(b), add(R(a), neg(R(b))));
  ck_assert(equiv(f, g));
  ck_assert(equiv(f, f));
  irm_object_release(f);
  irm_object_release(g);
  irm_object_release(x);
  irm_object_release(y);
  irm_object_release(a);
  irm_object_release(b);
}
END_TEST

START_TEST(test_binding_structure_makes_a_difference) {
  irm_object *x = var("x", NULL), *y = var("y", NULL);
  irm_object *fx = fn2(R(x), R(y), R(x));
  irm_object *x2 = var("x", NULL), *y2 = var("y", NULL);
  irm_object *fy = fn2(R(x2), R(y2), R(y2));
  ck_assert(!equiv(fx, fy));
  ck_assert(struct_hash(fx) != struct_hash(fy));
  /* add(x, y) against add(y, x) under the same parameters */
  irm_object *p = var("p", NULL), *q = var("q", NULL), *p2 = var("p", NULL), *q2 = var("q", NULL);
  irm_object *g1 = fn2(R(p), R(q), add(R(p), R(q)));
  irm_object *g2 = fn2(R(p2), R(q2), add(R(q2), R(p2)));
  ck_assert(!equiv(g1, g2));
  /* let a = c in let b = a in b  vs  let a = c in let b = a in a */
  irm_object *c = var("c", NULL);
  irm_object *a = var("a", NULL), *b = var("b", NULL), *a2 = var("a", NULL), *b2 = var("b", NULL);
  irm_object *l1 = fn1(R(c), let(R(a), R(c), let(R(b), R(a), R(b))));
  irm_object *c2 = var("c", NULL);
  irm_object *l2 = fn1(R(c2), let(R(a2), R(c2), let(R(b2), R(a2), R(a2))));
  ck_assert(!equiv(l1, l2));
  irm_object *objs[] = {x, y, fx, x2, y2, fy, p, q, p2, q2, g1, g2, c, a, b, a2, b2, l1, c2, l2};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_free_vars_map_by_position_of_first_occurrence) {
  irm_object *x = var("x", NULL), *y = var("y", NULL), *a = var("a", NULL), *b = var("b", NULL);
  irm_object *xy = add(R(x), R(y)), *ab = add(R(a), R(b)), *xx = add(R(x), R(x)), *aa = add(R(a), R(a));
  irm_object *yx = add(R(y), R(x));
  ck_assert(equiv(xy, ab));
  ck_assert(!equiv(xx, ab));
  ck_assert(!equiv(xy, aa));
  ck_assert(equiv(xx, aa));
  /* free vars are renamed too: x and y swap places */
  ck_assert(equiv(xy, yx));
  /* a Var on its own equals any Var of the same annotation */
  ck_assert(equiv(x, a));
  /* but not across a position where the mapping is already fixed */
  irm_object *t1 = tuple2(R(xy), R(x)), *t2 = tuple2(R(ab), R(b));
  ck_assert(!equiv(t1, t2));
  irm_object *objs[] = {x, y, a, b, xy, ab, xx, aa, yx, t1, t2};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_hash_ignores_names_and_addresses) {
  irm_object *x = var("x", NULL), *y = var("y", NULL);
  irm_object *e1 = mul(R(x), R(x)), *e2 = mul(R(y), R(y));
  ck_assert_uint_eq(struct_hash(e1), struct_hash(e2));
  ck_assert_uint_eq(struct_hash(x), struct_hash(y));
  irm_object_release(e1);
  irm_object_release(e2);
  irm_object_release(x);
  irm_object_release(y);
}
END_TEST

/* ---- what takes part ------------------------------------------------------- */

START_TEST(test_var_annotations_take_part) {
  irm_object *x = var("x", vec(4)), *y = var("x", vec(5)), *z = var("x", NULL), *w = var("w", vec(4));
  ck_assert(!equiv(x, y));
  ck_assert(!equiv(x, z));
  ck_assert(equiv(x, w));
  ck_assert(struct_hash(x) != struct_hash(y));
  ck_assert(struct_hash(x) != struct_hash(z));
  irm_object *fx = fn1(R(x), neg(R(x))), *fy = fn1(R(y), neg(R(y)));
  ck_assert(!equiv(fx, fy));
  irm_object *objs[] = {x, y, z, w, fx, fy};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_checked_types_do_not_take_part) {
  irm_object *x = var("x", vec(4));
  irm_object *plain = add(R(x), R(x));
  irm_object *checked = typed(add(R(x), R(x)), vec(4));
  ck_assert_ptr_nonnull(irm_expr_type(checked));
  ck_assert_ptr_null(irm_expr_type(plain));
  ck_assert(equiv(plain, checked));
  irm_object *other = typed(add(R(x), R(x)), vec(7));
  ck_assert(equiv(checked, other));
  irm_object_release(plain);
  irm_object_release(checked);
  irm_object_release(other);
  irm_object_release(x);
}
END_TEST

static irm_object *scale_attrs(int64_t v) {
  const char *k[] = {"scale"};
  irm_any val[] = {irm_any_int(v)};
  return new_map(k, val, 1);
}

START_TEST(test_call_attrs_take_part) {
  irm_object *x = var("x", NULL);
  irm_object *s1 = scale_attrs(1), *s2 = scale_attrs(2);
  irm_object *dflt = call_attrs(op("ts.add"), NULL, 2, R(x), R(x));
  irm_object *one = call_attrs(op("ts.add"), s1, 2, R(x), R(x));
  irm_object *two = call_attrs(op("ts.add"), s2, 2, R(x), R(x));
  ck_assert(equiv(dflt, one)); /* the default filled in */
  ck_assert(!equiv(one, two));
  ck_assert(struct_hash(one) != struct_hash(two));
  /* ops by identity */
  irm_object *m = call_attrs(op("ts.mul"), s1, 2, R(x), R(x));
  ck_assert(!equiv(one, m));
  irm_object *objs[] = {x, s1, s2, dflt, one, two, m};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_function_attrs_and_result_types_take_part) {
  irm_object *x1 = var("x", NULL), *x2 = var("x", NULL), *x3 = var("x", NULL), *x4 = var("x", NULL);
  const char *k[] = {"Primitive"};
  irm_any v[] = {irm_any_int(1)};
  irm_object *attrs = new_map(k, v, 1);
  irm_object *plain = fn(&x1, 1, neg(R(x1)), NULL, NULL);
  irm_object *prim = fn(&x2, 1, neg(R(x2)), NULL, attrs);
  irm_object *ret4 = fn(&x3, 1, neg(R(x3)), vec(4), NULL);
  irm_object *ret5 = fn(&x4, 1, neg(R(x4)), vec(5), NULL);
  ck_assert(!equiv(plain, prim));
  ck_assert(!equiv(plain, ret4));
  ck_assert(!equiv(ret4, ret5));
  ck_assert(struct_hash(plain) != struct_hash(prim));
  ck_assert(struct_hash(ret4) != struct_hash(ret5));
  irm_object *x5 = var("y", NULL);
  irm_object *prim2 = fn(&x5, 1, neg(R(x5)), NULL, attrs);
  ck_assert(equiv(prim, prim2));
  irm_object *objs[] = {attrs, plain, prim, ret4, ret5, prim2};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

static irm_object *constant(float a, float b) {
  float data[] = {a, b};
  int64_t shape[] = {2};
  irm_tensor *t = NULL;
  DLDataType f32 = {kDLFloat, 32, 1};
  ck_assert_ok(irm_tensor_new(f32, shape, 1, data, &t));
  irm_object *c = NULL;
  ck_assert_ok(irm_constant_new(t, &c));
  irm_object_release(t);
  return c;
}

START_TEST(test_constant_data_takes_part) {
  irm_object *c1 = constant(1, 2), *c2 = constant(1, 2), *c3 = constant(1, 3);
  ck_assert(c1 != c2);
  ck_assert(equiv(c1, c2));
  ck_assert(!equiv(c1, c3));
  ck_assert(struct_hash(c1) != struct_hash(c3));
  irm_object *x = var("x", NULL), *y = var("y", NULL);
  irm_object *e1 = add(R(x), R(c1)), *e2 = add(R(y), R(c2)), *e3 = add(R(x), R(c3));
  ck_assert(equiv(e1, e2));
  ck_assert(!equiv(e1, e3));
  irm_object *objs[] = {c1, c2, c3, x, y, e1, e2, e3};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_global_vars_by_name_tuples_and_indices) {
  irm_object *f1 = gvar("f"), *f2 = gvar("f"), *g = gvar("g");
  ck_assert(equiv(f1, f2));
  ck_assert(!equiv(f1, g));
  irm_object *x = var("x", NULL);
  irm_object *c1 = call_attrs(R(f1), NULL, 1, R(x)), *c2 = call_attrs(R(f2), NULL, 1, R(x));
  irm_object *c3 = call_attrs(R(g), NULL, 1, R(x));
  ck_assert(equiv(c1, c2));
  ck_assert(!equiv(c1, c3));
  irm_object *t0 = get(tuple2(R(x), R(x)), 0), *t0b = get(tuple2(R(x), R(x)), 0), *t1 = get(tuple2(R(x), R(x)), 1);
  ck_assert(equiv(t0, t0b));
  ck_assert(!equiv(t0, t1));
  irm_object *empty = NULL, *one = NULL;
  ck_assert_ok(irm_tuple_new(NULL, 0, &empty));
  ck_assert_ok(irm_tuple_new(&x, 1, &one));
  ck_assert(!equiv(empty, one));
  ck_assert(!equiv(one, x));
  irm_object *objs[] = {f1, f2, g, x, c1, c2, c3, t0, t0b, t1, empty, one};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_modules_compare_their_functions_up_to_renaming) {
  irm_object *x = var("x", vec(3)), *y = var("y", vec(3));
  irm_module *m1 = module1(fn1(R(x), neg(R(x))));
  irm_module *m2 = module1(fn1(R(y), neg(R(y))));
  ck_assert(equiv(m1, m2));
  irm_object *z = var("z", vec(3));
  irm_module *m3 = module1(fn1(R(z), mul(R(z), R(z))));
  ck_assert(!equiv(m1, m3));
  irm_object *objs[] = {x, y, z, m1, m2, m3};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* ---- sharing --------------------------------------------------------------- */

START_TEST(test_shared_and_unshared_copies_are_equal) {
  irm_object *x = var("x", NULL), *y = var("y", NULL);
  irm_object *t = mul(R(x), R(x));
  irm_object *shared = fn1(R(x), add(R(t), R(t)));
  irm_object *unshared = fn1(R(y), add(mul(R(y), R(y)), mul(R(y), R(y))));
  ck_assert(equiv(shared, unshared));
  /* a shared node used in two places against two different nodes */
  irm_object *z = var("z", NULL);
  irm_object *differ = fn1(R(z), add(mul(R(z), R(z)), add(R(z), R(z))));
  ck_assert(!equiv(shared, differ));
  irm_object *objs[] = {x, y, z, t, shared, unshared, differ};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* x1 = add(x0, x0), x2 = add(x1, x1), ...: 2^levels paths. */
static irm_object *doubling(irm_object *x0, int levels, const char *op_name) {
  irm_object *e = R(x0);
  for (int i = 0; i < levels; i++) {
    irm_object *next = call_attrs(op(i == levels / 2 ? op_name : "ts.add"), NULL, 2, R(e), R(e));
    irm_object_release(e);
    e = next;
  }
  return e;
}

START_TEST(test_heavily_shared_dags_stay_linear) {
  enum { LEVELS = 10000 };
  irm_object *x = var("x", NULL), *y = var("y", NULL), *z = var("z", NULL);
  irm_object *a = fn1(R(x), doubling(x, LEVELS, "ts.add"));
  irm_object *b = fn1(R(y), doubling(y, LEVELS, "ts.add"));
  irm_object *c = fn1(R(z), doubling(z, LEVELS, "ts.mul"));
  ck_assert(equiv(a, b));
  ck_assert(!equiv(a, c));
  irm_object *objs[] = {x, y, z, a, b, c};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* fn(p) { let v1 = neg(p); let v2 = neg(v1); ... vN } with an op of
 * op_name at level `at`. */
static irm_object *let_chain(int depth, int at, const char *op_name) {
  irm_object *p = var("p", NULL);
  irm_object **vars = malloc((size_t)depth * sizeof *vars);
  ck_assert_ptr_nonnull(vars);
  irm_object *prev = R(p);
  irm_object **values = malloc((size_t)depth * sizeof *values);
  ck_assert_ptr_nonnull(values);
  for (int i = 0; i < depth; i++) {
    vars[i] = var("v", NULL);
    values[i] = i == at ? call_attrs(op(op_name), NULL, 2, R(prev), R(p)) : neg(R(prev));
    irm_object_release(prev);
    prev = R(vars[i]);
  }
  irm_object *body = prev;
  for (int i = depth; i-- > 0;) body = let(vars[i], values[i], body);
  free(vars);
  free(values);
  return fn1(p, body);
}

static irm_object *call_chain(irm_object *x, int depth, int at) {
  irm_object *e = R(x);
  for (int i = 0; i < depth; i++) e = i == at ? mul(e, R(x)) : neg(e);
  return e;
}

START_TEST(test_deep_let_chains_do_not_recurse) {
  const int DEPTH = (int)test_depth(100000);
  irm_object *a = let_chain(DEPTH, 10, "ts.add"), *b = let_chain(DEPTH, 10, "ts.add");
  ck_assert(equiv(a, b));
  /* a difference at the bottom (shallower: building costs most) */
  irm_object *c = let_chain(1000, 990, "ts.add"), *d = let_chain(1000, 990, "ts.mul");
  ck_assert(!equiv(c, d));
  ck_assert(!equiv(a, c));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
  irm_object_release(d);
}
END_TEST

START_TEST(test_deep_call_chains_do_not_recurse) {
  const int DEPTH = (int)test_depth(100000);
  irm_object *x = var("x", NULL), *y = var("y", NULL);
  irm_object *a = fn1(R(x), call_chain(x, DEPTH, 5)), *b = fn1(R(y), call_chain(y, DEPTH, 5));
  irm_object *c = fn1(R(y), call_chain(y, 1000, 990));
  ck_assert(equiv(a, b));
  ck_assert(!equiv(a, c));
  irm_object *d = fn1(R(x), call_chain(x, 1000, 991));
  ck_assert(!equiv(c, d));
  irm_object_release(d);
  irm_object *objs[] = {x, y, a, b, c};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* ---- generated programs ------------------------------------------------------ */

typedef struct rng {
  uint64_t s;
} rng;

static uint32_t rnd(rng *r, uint32_t n) {
  r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)((r->s >> 33) % n);
}

enum { GEN_MAX = 64 };

/* How each value of the pool was made, to rebuild an unshared copy. */
typedef struct recipe {
  int kind; /* 0 a Var, 1 add, 2 mul, 3 neg, 4 tuple + get item */
  int a, b, index;
  irm_object *obj;
  size_t size; /* nodes of the unfolded tree, capped */
} recipe;

static irm_object *rebuild(const recipe *pool, int i) {
  const recipe *r = &pool[i];
  switch (r->kind) {
  case 1: return add(rebuild(pool, r->a), rebuild(pool, r->b));
  case 2: return mul(rebuild(pool, r->a), rebuild(pool, r->b));
  case 3: return neg(rebuild(pool, r->a));
  case 4: return get(tuple2(rebuild(pool, r->a), rebuild(pool, r->b)), r->index);
  default: return R(r->obj);
  }
}

/* A reference to pool value i: the shared object, or (sometimes, when
 * small) a fresh copy. */
static irm_object *use(const recipe *pool, int i, rng *sharing) {
  if (pool[i].kind != 0 && pool[i].size < 64 && rnd(sharing, 2)) return rebuild(pool, i);
  return R(pool[i].obj);
}

/* A random function from seed. The sharing seed decides which uses share;
 * mutate >= 0 changes the op of that step. */
static irm_object *generate(uint64_t seed, uint64_t sharing_seed, int mutate) {
  rng r = {seed}, sh = {sharing_seed};
  recipe pool[GEN_MAX];
  irm_object *lets[GEN_MAX][2];
  int nlets = 0, n = 0;
  int nparams = 1 + (int)rnd(&r, 3);
  irm_object *params[3];
  for (int i = 0; i < nparams; i++) {
    params[i] = var("p", rnd(&r, 2) ? vec(1 + rnd(&r, 3)) : NULL);
    pool[n++] = (recipe){0, 0, 0, 0, R(params[i]), 1};
  }
  int steps = 1 + (int)rnd(&r, 30);
  for (int s = 0; s < steps && n < GEN_MAX; s++) {
    int kind = 1 + (int)rnd(&r, 5);
    int a = (int)rnd(&r, (uint32_t)n), b = (int)rnd(&r, (uint32_t)n), index = (int)rnd(&r, 2);
    if (s == mutate) kind = kind % 5 + 1;
    recipe rc = {kind, a, b, index, NULL, 0};
    size_t sz = 1 + pool[a].size + (kind == 3 ? 0 : pool[b].size);
    rc.size = sz > 1000 ? 1000 : sz;
    switch (kind) {
    case 1: rc.obj = add(use(pool, a, &sh), use(pool, b, &sh)); break;
    case 2: rc.obj = mul(use(pool, a, &sh), use(pool, b, &sh)); break;
    case 3: rc.obj = neg(use(pool, a, &sh)); break;
    case 4: rc.obj = get(tuple2(use(pool, a, &sh), use(pool, b, &sh)), index); break;
    default: /* let v = pool[a] */
      rc.kind = 0;
      rc.obj = var("v", NULL);
      rc.size = 1;
      lets[nlets][0] = R(rc.obj);
      lets[nlets][1] = use(pool, a, &sh);
      nlets++;
      break;
    }
    pool[n++] = rc;
  }
  irm_object *body = use(pool, n - 1, &sh);
  for (int i = nlets; i-- > 0;) body = let(lets[i][0], lets[i][1], body);
  for (int i = 0; i < n; i++) irm_object_release(pool[i].obj);
  return fn(params, (size_t)nparams, body, NULL, NULL);
}

START_TEST(test_hashes_agree_on_generated_pairs) {
  int unequal = 0;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    irm_object *a = generate(seed, seed * 7 + 1, -1), *b = generate(seed, seed * 13 + 5, -1);
    ck_require(equiv(a, b), "seed %llu: copies differ", (unsigned long long)seed);
    ck_require(struct_hash(a) == struct_hash(b), "seed %llu: hashes differ", (unsigned long long)seed);
    irm_object *c = generate(seed, seed * 3, (int)(seed % 5));
    if (!equiv(a, c)) unequal++; /* equiv checks the hashes of equal pairs */
    irm_object_release(a);
    irm_object_release(b);
    irm_object_release(c);
  }
  ck_assert_int_gt(unequal, 200);
}
END_TEST

/* ---- JSON -------------------------------------------------------------------- */

START_TEST(test_json_round_trip_keeps_sharing_and_equality) {
  irm_object *x = var("x", vec(2));
  irm_object *t = typed(mul(R(x), R(x)), vec(2));
  irm_module *m = module1(fn1(R(x), add(R(t), R(t))));
  irm_any v = irm_any_object(m), back = irm_any_none();
  irm_object *text = NULL;
  ck_assert_ok(irm_to_json(&v, &text));
  ck_assert_ok(irm_from_json(irm_string_data(text), irm_string_size(text), &back));
  ck_assert_int_eq(back.type_code, IRM_OBJECT);
  irm_module *m2 = back.v_obj;
  ck_assert(m2 != m);
  ck_assert(equiv(m, m2));
  irm_object *f2 = irm_module_function(m2, "main");
  irm_object *body = irm_function_body(f2);
  ck_assert_int_eq(irm_expr_kind_of(body), IRM_EXPR_CALL);
  ck_assert_ptr_eq(irm_call_arg(body, 0), irm_call_arg(body, 1));
  /* the parameter and its uses are one Var again */
  irm_object *arg = irm_call_arg(body, 0);
  ck_assert_ptr_eq(irm_call_arg(arg, 0), irm_function_param(f2, 0));
  ck_assert_ptr_eq(irm_call_arg(arg, 1), irm_function_param(f2, 0));
  ck_assert_ptr_nonnull(irm_expr_type(arg)); /* checked types are kept */
  irm_any_release(&back);
  irm_object_release(text);
  irm_object_release(m);
  irm_object_release(t);
  irm_object_release(x);
}
END_TEST

/* ---- out of memory ----------------------------------------------------------- */

static long live_now(void) { return atomic_load(&live_blocks); }

/* Runs equality (which = 0) or hashing until an injected failure is not
 * met; each failure must be a clean MemoryError. */
static void sweep_structural(int which) {
  irm_object *a = let_chain(200, 3, "ts.add"), *b = let_chain(200, 3, "ts.add");
  irm_any va = irm_any_object(a), vb = irm_any_object(b);
  int eq = 0;
  uint64_t h = 0;
  settle_error();
  long base = live_now();
  for (long n = 1;; n++) {
    ck_require(n < 100000, "still failing at %ld", n);
    long before = atomic_load(&injected);
    fail_nth_from_now(n);
    int rc = which == 0 ? irm_structural_equal(&va, &vb, &eq) : irm_structural_hash(&va, &h);
    stop_failing();
    int met = atomic_load(&injected) != before;
    if (!met) {
      ck_require(rc == 0, "failed without an injected failure: %s", irm_last_error());
      if (which == 0) ck_assert(eq);
      break;
    }
    ck_require(rc == IRM_ENOMEM, "N=%ld: status %d (%s)", n, rc, irm_last_error());
    ck_require(strncmp(irm_last_error(), "MemoryError", 11) == 0, "N=%ld: %s", n, irm_last_error());
    settle_error();
    ck_require(live_now() == base, "N=%ld: %ld blocks leaked", n, live_now() - base);
  }
  irm_object_release(a);
  irm_object_release(b);
}

START_TEST(test_equality_out_of_memory_is_clean) { sweep_structural(0); }
END_TEST

START_TEST(test_hash_out_of_memory_is_clean) { sweep_structural(1); }
END_TEST

static Suite *ir_structural_suite(void) {
  Suite *s = suite_create("ir_structural");
  TCase *tc = tcase_create("renaming");
  tcase_add_test(tc, test_alpha_equivalent_functions_are_equal);
  tcase_add_test(tc, test_binding_structure_makes_a_difference);
  tcase_add_test(tc, test_free_vars_map_by_position_of_first_occurrence);
  tcase_add_test(tc, test_hash_ignores_names_and_addresses);
  suite_add_tcase(s, tc);

  tc = tcase_create("fields");
  tcase_add_test(tc, test_var_annotations_take_part);
  tcase_add_test(tc, test_checked_types_do_not_take_part);
  tcase_add_test(tc, test_call_attrs_take_part);
  tcase_add_test(tc, test_function_attrs_and_result_types_take_part);
  tcase_add_test(tc, test_constant_data_takes_part);
  tcase_add_test(tc, test_global_vars_by_name_tuples_and_indices);
  tcase_add_test(tc, test_modules_compare_their_functions_up_to_renaming);
  suite_add_tcase(s, tc);

  tc = tcase_create("sharing_and_depth");
  tcase_add_test(tc, test_shared_and_unshared_copies_are_equal);
  tcase_add_test(tc, test_heavily_shared_dags_stay_linear);
  tcase_add_test(tc, test_deep_let_chains_do_not_recurse);
  tcase_add_test(tc, test_deep_call_chains_do_not_recurse);
  tcase_add_test(tc, test_hashes_agree_on_generated_pairs);
  suite_add_tcase(s, tc);

  tc = tcase_create("json_and_memory");
  tcase_add_test(tc, test_json_round_trip_keeps_sharing_and_equality);
  tcase_add_test(tc, test_equality_out_of_memory_is_clean);
  tcase_add_test(tc, test_hash_out_of_memory_is_clean);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (install_counting_allocator("check_ir_structural")) return EXIT_FAILURE;
  return run_suite(ir_structural_suite());
}
