/* The IR verifier (irm_dataflow_verify, expr.h; ir/dataflow/verify.c) and its global
 * ir.Verify: well-formed modules pass, and each malformation that the
 * constructors cannot prevent is rejected with a ValueError naming the
 * function and the expression: Vars out of scope (also through a node
 * shared between scopes), unbound or bound twice, unknown GlobalVars,
 * tuple indices out of range, checked types that disagree, calls that no
 * longer fit their op's registration. Deep programs do not recurse; the
 * pass manager runs ir.Verify after a pass that changed the module. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/pass.h>

#include "check_alloc_util.h"
#include "check_ir_struct_util.h"

static void assert_verifies(irm_module *m) {
  ck_assert_ok(irm_dataflow_verify(m));
  irm_object_release(m);
}

/* Verification of m (taken) must fail with a message starting with
 * prefix and mentioning needle (may be NULL). */
static void assert_rejected(irm_module *m, const char *prefix, const char *needle) {
  ck_assert_error(irm_dataflow_verify(m), IRM_EVALUE, prefix);
  if (needle) ck_assert_error_mentions(needle);
  irm_object_release(m);
}

/* ---- well-formed programs ------------------------------------------------ */

START_TEST(test_well_formed_module_passes) {
  irm_object *x = var("x", vec(4)), *y = var("y", vec(4)), *t = var("t", NULL), *q = var("q", NULL);
  irm_object *inner_p = var("ip", NULL);
  irm_object *shared = typed(add(R(x), R(y)), vec(4));
  /* let t = (shared, x) in
   *   let q = fn(ip) { neg(ip) }(t.0) in ts.mul(shared, @helper(q)) */
  irm_object *lam = fn1(R(inner_p), neg(R(inner_p)));
  irm_object *body = let(R(t), tuple2(R(shared), R(x)),
                         let(R(q), call_attrs(R(lam), NULL, 1, get(R(t), 0)),
                             typed(mul(R(shared), call_attrs(gvar("helper"), NULL, 1, R(q))), vec(4))));
  irm_object *ps[] = {R(x), R(y)};
  irm_object *main_fn = fn(ps, 2, body, vec(4), NULL);
  irm_object *h = var("h", NULL);
  irm_module *m = module1(main_fn);
  m = with_fn(m, "helper", fn1(R(h), R(h)));
  assert_verifies(m);
  irm_object *objs[] = {x, y, t, q, inner_p, shared, lam, h};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_shared_node_in_scope_everywhere_passes) {
  /* fn(p) { let y = p in (s, let z = s in z) } with s = add(y, y) used
   * twice, both inside y's scope */
  irm_object *p = var("p", NULL), *y = var("y", NULL), *z = var("z", NULL);
  irm_object *s = add(R(y), R(y));
  irm_module *m = module1(fn1(R(p), let(R(y), R(p), tuple2(R(s), let(R(z), R(s), R(z))))));
  assert_verifies(m);
  /* a shared Let node is one binding */
  irm_object *l = let(R(z), R(p), neg(R(z)));
  m = module1(fn1(R(p), tuple2(R(l), R(l))));
  assert_verifies(m);
  irm_object *objs[] = {p, y, z, s, l};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_empty_module_and_foreign_objects) {
  irm_module *m = NULL;
  ck_assert_ok(irm_module_new(NULL, NULL, &m));
  assert_verifies(m);
  irm_object *s = new_string("not a module");
  ck_assert_error(irm_dataflow_verify(s), IRM_ETYPE,
                  "TypeError: irm_dataflow_verify: expected an ir.IRModule, got ffi.String");
  ck_assert_error(irm_dataflow_verify(NULL), IRM_ETYPE,
                  "TypeError: irm_dataflow_verify: expected an ir.IRModule, got NULL");
  irm_object_release(s);
}
END_TEST

/* ---- scopes ------------------------------------------------------------------ */

START_TEST(test_var_used_out_of_scope) {
  /* fn(x) { add(let y = x in y, y) } */
  irm_object *x = var("x", NULL), *y = var("y", NULL);
  irm_module *m = module1(fn1(R(x), add(let(R(y), R(x), R(y)), R(y))));
  assert_rejected(m, "ValueError: function 'main': variable %y is used out of its scope in ",
                  "%0 = { let %y = %x; %y }; %1 = ts.add(%0, %y); %1");
  /* a let's own value cannot use its var: let y = neg(y) in y */
  m = module1(fn1(R(x), let(R(y), neg(R(y)), R(y))));
  assert_rejected(m, "ValueError: function 'main': variable %y is used out of its scope in %0 = ts.neg(%y); %0", NULL);
  irm_object_release(x);
  irm_object_release(y);
}
END_TEST

START_TEST(test_shared_node_out_of_scope_in_one_place) {
  /* s = add(y, y) inside y's scope and again outside it:
   * fn(p) { (s, let y = p in s) } */
  irm_object *p = var("p", NULL), *y = var("y", NULL);
  irm_object *s = add(R(y), R(y));
  irm_module *m = module1(fn1(R(p), tuple2(R(s), let(R(y), R(p), R(s)))));
  assert_rejected(m, "ValueError: function 'main': variable %y is used out of its scope in %0 = ts.add(%y, %y); %0",
                  NULL);
  irm_object_release(p);
  irm_object_release(y);
  irm_object_release(s);
}
END_TEST

START_TEST(test_free_var_is_rejected) {
  irm_object *x = var("x", NULL), *z = var("z", NULL);
  irm_module *m = module1(fn1(R(x), mul(R(x), R(z))));
  assert_rejected(
      m, "ValueError: function 'main': variable %z is not bound by a parameter or a let in %0 = ts.mul(%x, %z); %0",
      NULL);
  /* another function's parameter is not in scope either */
  irm_object *g = fn1(R(z), neg(R(z)));
  m = module1(fn1(R(x), neg(R(z))));
  m = with_fn(m, "g", g);
  assert_rejected(m, "ValueError: function 'main': variable %z is not bound", NULL);
  irm_object_release(x);
  irm_object_release(z);
}
END_TEST

START_TEST(test_var_bound_twice) {
  irm_object *x = var("x", NULL), *y = var("y", NULL);
  /* by two lets: let y = x in let y = neg(y) in y */
  irm_module *m = module1(fn1(R(x), let(R(y), R(x), let(R(y), neg(R(y)), R(y)))));
  assert_rejected(m, "ValueError: function 'main': variable %y is bound twice (first in let %y = %x; %0 = ts.neg(%y); ",
                  ") in %0 = ts.neg(%y); let %y = %0; %y");
  /* as a parameter and by a let */
  m = module1(fn1(R(x), let(R(x), neg(R(x)), R(x))));
  assert_rejected(m, "ValueError: function 'main': variable %x is bound twice (first in fn (%x) {",
                  ") in %0 = ts.neg(%x); let %x = %0; %x");
  /* as a parameter of the function and of a function inside it */
  m = module1(fn1(R(x), call_attrs(fn1(R(x), R(x)), NULL, 1, R(x))));
  assert_rejected(m, "ValueError: function 'main': variable %x is bound twice", NULL);
  irm_object_release(x);
  irm_object_release(y);
}
END_TEST

START_TEST(test_inner_function_sees_outer_scope) {
  /* fn(x) { fn(y) { add(x, y) }(x) }: closures are in scope */
  irm_object *x = var("x", NULL), *y = var("y", NULL);
  irm_module *m = module1(fn1(R(x), call_attrs(fn1(R(y), add(R(x), R(y))), NULL, 1, R(x))));
  assert_verifies(m);
  /* but the inner parameter is not visible outside: fn(x) { (fn(y){y}, y) } */
  m = module1(fn1(R(x), tuple2(fn1(R(y), R(y)), R(y))));
  assert_rejected(
      m, "ValueError: function 'main': variable %y is used out of its scope in %0 = fn (%y) { %y }; %1 = (%0, %y); %1",
      NULL);
  irm_object_release(x);
  irm_object_release(y);
}
END_TEST

/* ---- other checks ------------------------------------------------------------ */

START_TEST(test_unresolved_global_var) {
  irm_object *x = var("x", NULL), *h = var("h", NULL);
  irm_module *m = module1(fn1(R(x), call_attrs(gvar("helpr"), NULL, 1, R(x))));
  m = with_fn(m, "helper", fn1(R(h), R(h)));
  assert_rejected(m, "ValueError: function 'main': @helpr names no function of the module",
                  "(did you mean @helper?) in @helpr");
  m = module1(fn1(R(x), call_attrs(gvar("zzz_nothing_like_it"), NULL, 1, R(x))));
  assert_rejected(m, "ValueError: function 'main': @zzz_nothing_like_it names no function of the module in", NULL);
  /* and a call with the wrong number of arguments for the function named */
  m = module1(fn1(R(x), call_attrs(gvar("helper"), NULL, 2, R(x), R(x))));
  m = with_fn(m, "helper", fn1(R(h), R(h)));
  assert_rejected(
      m, "ValueError: function 'main': the callee takes 1 argument, the call gives 2 in %0 = @helper(%x, %x); %0",
      NULL);
  irm_object_release(x);
  irm_object_release(h);
}
END_TEST

START_TEST(test_tuple_index_out_of_range) {
  irm_object *x = var("x", NULL);
  irm_module *m = module1(fn1(R(x), get(tuple2(R(x), R(x)), 2)));
  assert_rejected(
      m,
      "ValueError: function 'main': tuple index 2 is out of range for a tuple of 2 fields in %0 = (%x, %x); %1 = %0.2",
      NULL);
  /* known from the tuple's type */
  irm_object *fields[] = {vec(1), vec(2), vec(3)}, *tt = NULL;
  ck_assert_ok(irm_tuple_type_new(fields, 3, &tt));
  for (int i = 0; i < 3; i++) irm_object_release(fields[i]);
  irm_object *t = var("t", R(tt));
  m = module1(fn1(R(t), get(R(t), 3)));
  assert_rejected(
      m, "ValueError: function 'main': tuple index 3 is out of range for a tuple of 3 fields in %0 = %t.3; %0", NULL);
  m = module1(fn1(R(t), get(R(t), 2)));
  assert_verifies(m);
  /* a checked type that is not a tuple */
  irm_object *v = var("v", vec(8));
  m = module1(fn1(R(v), get(R(v), 0)));
  assert_rejected(m, "ValueError: function 'main': tuple index 0 on a value of type Tensor[(8",
                  "which is not a tuple in %0 = %v.0; %0");
  /* unknown type: nothing to check */
  m = module1(fn1(R(x), get(R(x), 7)));
  assert_verifies(m);
  irm_object *objs[] = {x, tt, t, v};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_let_type_disagrees_with_value) {
  irm_object *x = var("x", vec(4)), *y = var("y", vec(4));
  irm_module *m = module1(fn1(R(x), let(R(y), typed(neg(R(x)), vec(5)), R(y))));
  assert_rejected(m, "ValueError: function 'main': the let variable has type Tensor[",
                  "] but its value has type Tensor[(5");
  ck_assert_error_mentions("in %0 = ts.neg(%x) : Tensor[(5");
  ck_assert_error_mentions("; let %y: Tensor[(4");
  /* equal types, or a value of unknown type, are fine */
  m = module1(fn1(R(x), let(R(y), typed(neg(R(x)), vec(4)), R(y))));
  assert_verifies(m);
  m = module1(fn1(R(x), let(R(y), neg(R(x)), R(y))));
  assert_verifies(m);
  irm_object_release(x);
  irm_object_release(y);
}
END_TEST

START_TEST(test_result_type_disagrees_with_body) {
  irm_object *x = var("x", vec(4));
  irm_module *m = module1(fn(&(irm_object *){R(x)}, 1, typed(neg(R(x)), vec(5)), vec(4), NULL));
  assert_rejected(m, "ValueError: function 'main': the result has type Tensor[", "] but the body has type Tensor[(5");
  ck_assert_error_mentions("in fn (%x: Tensor[(4");
  m = module1(fn(&(irm_object *){R(x)}, 1, typed(neg(R(x)), vec(4)), vec(4), NULL));
  assert_verifies(m);
  /* the parameter as body: its annotation is its type */
  m = module1(fn(&(irm_object *){R(x)}, 1, R(x), vec(3), NULL));
  assert_rejected(m, "ValueError: function 'main': the result has type ", "{ %x }");
  irm_object_release(x);
}
END_TEST

/* Regression: a Let body escaped the check of the declared result type
 * (a Let carries no type of its own). Its innermost body's type counts,
 * or, for one of the chain's unannotated variables, its value's. */
START_TEST(test_result_type_disagrees_with_a_let_body) {
  irm_object *x = var("x", vec(4)), *y = var("y", vec(5)), *z = var("z", NULL), *w = var("w", NULL);
  /* let %y: (5) = ...; %y against a declared (4) */
  irm_module *m = module1(fn(&(irm_object *){R(x)}, 1, let(R(y), typed(neg(R(x)), vec(5)), R(y)), vec(4), NULL));
  assert_rejected(m, "ValueError: function 'main': the result has type Tensor[", "] but the body has type Tensor[(5");
  /* the innermost body a typed call */
  m = module1(fn(&(irm_object *){R(x)}, 1, let(R(z), neg(R(x)), typed(neg(R(z)), vec(5))), vec(4), NULL));
  assert_rejected(m, "ValueError: function 'main': the result has type Tensor[", "] but the body has type Tensor[(5");
  /* let %z = <(5)>; let %w = %z; %w: followed back to the typed value */
  m = module1(fn(&(irm_object *){R(x)}, 1, let(R(z), typed(neg(R(x)), vec(5)), let(R(w), R(z), R(w))), vec(4), NULL));
  assert_rejected(m, "ValueError: function 'main': the result has type Tensor[", "] but the body has type Tensor[(5");
  /* agreeing, or unknown, is fine */
  m = module1(fn(&(irm_object *){R(x)}, 1, let(R(z), typed(neg(R(x)), vec(4)), let(R(w), R(z), R(w))), vec(4), NULL));
  assert_verifies(m);
  m = module1(fn(&(irm_object *){R(x)}, 1, let(R(z), neg(R(x)), R(z)), vec(4), NULL));
  assert_verifies(m);
  irm_object *objs[] = {x, y, z, w};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_calls_that_no_longer_fit_their_op) {
  /* ops whose registration changed after the call was made */
  irm_kind *late = NULL, *grow = NULL;
  ck_assert_ok(irm_op_register("tv.late", 1, &late));
  ck_assert_ok(irm_op_register("tv.grow", 1, &grow));
  irm_object *x = var("x", NULL);
  irm_object *c1 = call_attrs(op("tv.late"), NULL, 1, R(x));
  irm_object *c2 = call_attrs(op("tv.grow"), NULL, 1, R(x));
  irm_module *m1 = module1(fn1(R(x), R(c1))), *m2 = module1(fn1(R(x), R(c2)));
  ck_assert_ok(irm_dataflow_verify(m1));
  ck_assert_ok(irm_dataflow_verify(m2));
  ck_assert_ok(irm_op_set_num_inputs(late, 2));
  ck_assert_ok(irm_kind_add_option(grow, "axis", IRM_OPTION_INT, NULL, "required now", 1));
  assert_rejected(m1, "ValueError: function 'main': tv.late takes 2 arguments, got 1 in %0 = tv.late(%x); %0", NULL);
  assert_rejected(m2, "ValueError: function 'main': invalid attributes for tv.grow (", "axis");
  irm_object_release(x);
  irm_object_release(c1);
  irm_object_release(c2);
}
END_TEST

START_TEST(test_calls_of_rolled_back_ops) {
  irm_journal *j = NULL;
  ck_assert_ok(irm_journal_open(&j));
  ck_assert_ok(irm_op_register("tv.gone", 1, NULL));
  irm_object *x = var("x", NULL);
  irm_module *m = module1(fn1(R(x), call_attrs(op("tv.gone"), NULL, 1, R(x))));
  ck_assert_ok(irm_dataflow_verify(m));
  ck_assert_ok(irm_journal_rollback(j));
  assert_rejected(m, "ValueError: function 'main': op tv.gone is not registered any more in %0 = tv.gone(%x); %0",
                  NULL);
  irm_object_release(x);
}
END_TEST

START_TEST(test_errors_name_the_function) {
  irm_object *x = var("x", NULL), *z = var("z", NULL);
  irm_module *m = module1(fn1(R(x), R(x)));
  m = with_fn(m, "second", fn1(R(x), neg(R(z))));
  assert_rejected(m, "ValueError: function 'second': variable %z is not bound", NULL);
  irm_object_release(x);
  irm_object_release(z);
}
END_TEST

/* ---- depth ------------------------------------------------------------------- */

/* fn(p) { let v1 = neg(p); ... let vN = neg(v(N-1)); body } where body is
 * vN, or (stray) uses the var bound at level N/2 from outside the chain. */
static irm_module *deep_lets(int depth, int stray) {
  irm_object *p = var("p", NULL);
  irm_object **vars = malloc((size_t)depth * sizeof *vars), **values = malloc((size_t)depth * sizeof *values);
  ck_assert(vars && values);
  irm_object *prev = R(p);
  for (int i = 0; i < depth; i++) {
    vars[i] = var("v", NULL);
    values[i] = neg(prev);
    prev = R(vars[i]);
  }
  irm_object *mid = R(vars[depth / 2]);
  irm_object *body = prev;
  for (int i = depth; i-- > 0;) body = let(vars[i], values[i], body);
  if (stray) body = tuple2(body, R(mid));
  irm_object_release(mid);
  free(vars);
  free(values);
  return module1(fn1(p, body));
}

START_TEST(test_deep_let_chain_verifies_without_recursion) { assert_verifies(deep_lets((int)test_depth(100000), 0)); }
END_TEST

START_TEST(test_deep_let_chain_out_of_scope_is_found) {
  assert_rejected(deep_lets((int)test_depth(100000), 1),
                  "ValueError: function 'main': variable %v is used out of its scope in (let %v", NULL);
}
END_TEST

START_TEST(test_deep_shared_dag_verifies) {
  irm_object *x = var("x", NULL);
  irm_object *e = R(x);
  for (int i = 0; i < 10000; i++) {
    irm_object *next = add(R(e), R(e));
    irm_object_release(e);
    e = next;
  }
  assert_verifies(module1(fn1(R(x), e)));
  irm_object_release(x);
}
END_TEST

/* ---- the global and the pass manager ------------------------------------------ */

static irm_object *verify_global(void) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_get_global("ir.Verify", &f));
  ck_assert_ptr_nonnull(f);
  return f;
}

START_TEST(test_global_ir_verify) {
  irm_object *f = verify_global();
  irm_object *x = var("x", NULL), *z = var("z", NULL);
  irm_module *good = module1(fn1(R(x), neg(R(x)))), *bad = module1(fn1(R(x), neg(R(z))));
  irm_any arg = irm_any_object(good), ret = irm_any_int(7);
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  arg = irm_any_object(bad);
  ck_assert_error(irm_func_call(f, &arg, 1, &ret), IRM_EVALUE, "ValueError: ir.Verify: function 'main': variable %z");
  arg = irm_any_int(3);
  ck_assert_error(irm_func_call(f, &arg, 1, &ret), IRM_ETYPE, "TypeError: ir.Verify: argument 1: expected ir.IRModule");
  ck_assert_error(irm_func_call(f, NULL, 0, &ret), IRM_ETYPE, "TypeError: ir.Verify takes 1 argument, got 0");
  irm_object *objs[] = {f, x, z, good, bad};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* A module pass that puts a function using an unbound Var into the module
 * as "main" (resource: the function), or gives its input back when
 * resource is NULL. */
static int breaking_pass(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                         irm_module **out) {
  (void)ctx;
  (void)options;
  if (!resource) {
    irm_object_retain(mod);
    *out = mod;
    return IRM_OK;
  }
  return irm_module_with_function(mod, "main", resource, out);
}

START_TEST(test_pass_manager_verifies_changed_modules) {
  irm_object *x = var("x", NULL), *z = var("z", NULL);
  irm_object *broken = fn1(R(x), mul(R(x), R(z)));
  irm_pass *breaker = NULL, *keeper = NULL;
  ck_assert_ok(irm_module_pass_new("BreakIt", 0, NULL, 0, NULL, breaking_pass, broken, NULL, &breaker));
  ck_assert_ok(irm_module_pass_new("KeepIt", 0, NULL, 0, NULL, breaking_pass, NULL, NULL, &keeper));
  irm_module *good = module1(fn1(R(x), neg(R(x)))), *out = NULL;
  ck_assert_error(irm_pass_run(breaker, good, &out), IRM_EVALUE, "ValueError: in pass 'BreakIt': ");
  ck_assert_error_mentions("function 'main': variable %z is not bound");
  ck_assert_ptr_null(out);
  /* Regression: a malformed input is reported as the input's fault before
   * any pass runs, whether or not the pass would change it (it used to
   * pass the unchanged fast path, or be blamed on the pass) */
  irm_module *bad = module1(R(broken));
  ck_assert_error(irm_pass_run(keeper, bad, &out), IRM_EVALUE,
                  "ValueError: the input module of pass 'KeepIt' is not well-formed (ir.Verify before the pass): ");
  ck_assert_error_mentions("variable %z is not bound");
  ck_assert_ptr_null(out);
  irm_pass *fixer = NULL;
  irm_object *fixed = fn1(R(x), R(x));
  ck_assert_ok(irm_module_pass_new("FixIt", 0, NULL, 0, NULL, breaking_pass, fixed, NULL, &fixer));
  ck_assert_error(irm_pass_run(fixer, bad, &out), IRM_EVALUE, "ValueError: the input module of pass 'FixIt' is not");
  ck_assert_ptr_null(out);
  irm_object *objs[] = {x, z, broken, fixed, breaker, keeper, fixer, good, bad};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* ---- out of memory ------------------------------------------------------------ */

START_TEST(test_verify_out_of_memory_is_clean) {
  irm_module *good = deep_lets(300, 0), *bad = deep_lets(300, 1);
  ck_assert_ok(irm_dataflow_verify(good)); /* warm up */
  for (int which = 0; which < 2; which++) {
    irm_module *m = which ? bad : good;
    settle_error();
    long base = atomic_load(&live_blocks);
    for (long n = 1;; n++) {
      ck_require(n < 100000, "still failing at %ld", n);
      long before = atomic_load(&injected);
      fail_nth_from_now(n);
      int rc = irm_dataflow_verify(m);
      stop_failing();
      if (atomic_load(&injected) == before) {
        ck_require(rc == (which ? IRM_EVALUE : 0), "N=%ld: %d %s", n, rc, irm_last_error());
        break;
      }
      ck_require(rc == IRM_ENOMEM, "N=%ld: status %d (%s)", n, rc, irm_last_error());
      ck_require(strncmp(irm_last_error(), "MemoryError", 11) == 0, "N=%ld: %s", n, irm_last_error());
      settle_error();
      ck_require(atomic_load(&live_blocks) == base, "N=%ld: leaked", n);
    }
  }
  irm_object_release(good);
  irm_object_release(bad);
}
END_TEST

static Suite *ir_verify_suite(void) {
  Suite *s = suite_create("ir_verify");
  TCase *tc = tcase_create("well_formed");
  tcase_add_test(tc, test_well_formed_module_passes);
  tcase_add_test(tc, test_shared_node_in_scope_everywhere_passes);
  tcase_add_test(tc, test_empty_module_and_foreign_objects);
  tcase_add_test(tc, test_inner_function_sees_outer_scope);
  suite_add_tcase(s, tc);

  tc = tcase_create("scopes");
  tcase_add_test(tc, test_var_used_out_of_scope);
  tcase_add_test(tc, test_shared_node_out_of_scope_in_one_place);
  tcase_add_test(tc, test_free_var_is_rejected);
  tcase_add_test(tc, test_var_bound_twice);
  suite_add_tcase(s, tc);

  tc = tcase_create("checks");
  tcase_add_test(tc, test_unresolved_global_var);
  tcase_add_test(tc, test_tuple_index_out_of_range);
  tcase_add_test(tc, test_let_type_disagrees_with_value);
  tcase_add_test(tc, test_result_type_disagrees_with_body);
  tcase_add_test(tc, test_result_type_disagrees_with_a_let_body);
  tcase_add_test(tc, test_calls_that_no_longer_fit_their_op);
  tcase_add_test(tc, test_calls_of_rolled_back_ops);
  tcase_add_test(tc, test_errors_name_the_function);
  suite_add_tcase(s, tc);

  tc = tcase_create("depth_and_integration");
  tcase_add_test(tc, test_deep_let_chain_verifies_without_recursion);
  tcase_add_test(tc, test_deep_let_chain_out_of_scope_is_found);
  tcase_add_test(tc, test_deep_shared_dag_verifies);
  tcase_add_test(tc, test_global_ir_verify);
  tcase_add_test(tc, test_pass_manager_verifies_changed_modules);
  tcase_add_test(tc, test_verify_out_of_memory_is_clean);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (install_counting_allocator("check_ir_verify")) return EXIT_FAILURE;
  return run_suite(ir_verify_suite());
}
