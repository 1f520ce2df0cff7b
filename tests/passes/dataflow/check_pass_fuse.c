/* FuseOps (dataflow/passes.h): fused structure compared with an expected text,
 * evaluation before and after, diamonds, tuples, opaque ops, max_depth and
 * the precedence of its settings, idempotence, a 100 000-call chain, and
 * the errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <irm/irm.h>
#include <irm/dataflow/evaluate.h>
#include <irm/dataflow/passes.h>
#include <irm/dataflow/text.h>
#include <irm/structural.h>

#include "check_util.h"

#define H "#[version = \"irm-0.1\"]\n"
#define T4 "Tensor[(4,), float32]"

/* ---- helpers ------------------------------------------------------------------------ */

static irm_module *parse(const char *text) {
  irm_module *m = NULL;
  int rc = irm_dataflow_parse(text, strlen(text), &m);
  ck_require(rc == 0, "parse failed: %s\n%s", irm_last_error(), text);
  return m;
}

static irm_module *typed(const char *text) {
  irm_module *m = parse(text), *t = NULL;
  ck_assert_ok(irm_dataflow_infer_type(m, &t));
  irm_object_release(m);
  return t;
}

static char *text_of(const irm_module *m) {
  irm_object *s = NULL;
  ck_assert_ok(irm_dataflow_print(m, &s));
  char *copy = strdup(irm_string_data(s));
  irm_object_release(s);
  return copy;
}

static void assert_same(const irm_module *got, const char *expected) {
  irm_module *want = parse(expected);
  irm_any a = irm_any_object((irm_object *)got), b = irm_any_object(want);
  int eq = 0;
  ck_assert_ok(irm_structural_equal(&a, &b, &eq));
  if (!eq) {
    char *g = text_of(got), *w = text_of(want);
    ck_require(0, "fused module differs\n--- got ---\n%s\n--- want ---\n%s", g, w);
  }
  irm_object_release(want);
}

static irm_module *fuse(irm_module *m, int64_t depth) {
  irm_module *out = NULL;
  int rc = irm_dataflow_fuse_ops(m, depth, &out);
  ck_require(rc == 0, "FuseOps failed: %s", irm_last_error());
  /* typed as built: InferType has nothing left to do */
  irm_module *again = NULL;
  ck_assert_ok(irm_dataflow_infer_type(out, &again));
  ck_assert_ptr_eq(again, out);
  irm_object_release(again);
  ck_assert_ok(irm_dataflow_verify(out));
  return out;
}

/* src typed, fused with depth, must equal expected. Returns the fused module. */
static irm_module *check_fuse(const char *src, int64_t depth, const char *expected) {
  irm_module *m = typed(src), *out = fuse(m, depth);
  assert_same(out, expected);
  irm_object_release(m);
  return out;
}

static int count_calls(void *ctx, irm_object *node) {
  if (irm_expr_kind_of(node) == IRM_EXPR_CALL && irm_op_name(irm_call_callee(node))) (*(size_t *)ctx)++;
  return 0;
}

typedef struct sizes {
  char text[256];
} sizes;

static int group_size(void *ctx, irm_object *node) {
  sizes *s = ctx;
  if (irm_expr_kind_of(node) != IRM_EXPR_CALL || irm_expr_kind_of(irm_call_callee(node)) != IRM_EXPR_FUNCTION) return 0;
  size_t n = 0;
  irm_expr_visit(irm_function_body(irm_call_callee(node)), count_calls, &n);
  size_t len = strlen(s->text);
  snprintf(s->text + len, sizeof s->text - len, "%s%zu", len ? "," : "", n);
  return 0;
}

/* The op counts of main's fused groups, producers first: "4,2". */
static sizes group_sizes(const irm_module *m) {
  sizes s = {{0}};
  ck_assert_ok(irm_expr_visit(irm_module_function(m, "main"), group_size, &s));
  return s;
}

static irm_object *tensor(const int64_t *shape, int32_t ndim, unsigned seed) {
  DLDataType f32;
  ck_assert_ok(irm_dtype_parse("float32", &f32));
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_new(f32, shape, ndim, NULL, &t));
  for (int64_t i = 0; i < irm_tensor_numel(t); i++)
    irm_tensor_set_f64(t, i, (double)((seed * 7 + (unsigned)i * 13) % 17) / 4.0 - 2.0);
  return t;
}

static void assert_close(const irm_any *a, const irm_any *b) {
  ck_assert_int_eq(a->type_code, IRM_OBJECT);
  ck_assert_int_eq(b->type_code, IRM_OBJECT);
  if (irm_is_tensor(a->v_obj)) {
    ck_assert(irm_is_tensor(b->v_obj));
    ck_assert_int_eq(irm_tensor_numel(a->v_obj), irm_tensor_numel(b->v_obj));
    for (int64_t i = 0; i < irm_tensor_numel(a->v_obj); i++) {
      double x = irm_tensor_get_f64(a->v_obj, i), y = irm_tensor_get_f64(b->v_obj, i);
      ck_assert((isnan(x) && isnan(y)) || fabs(x - y) <= 1e-5 * fmax(1.0, fabs(x)));
    }
    return;
  }
  ck_assert_uint_eq(irm_array_size(a->v_obj), irm_array_size(b->v_obj));
  for (size_t i = 0; i < irm_array_size(a->v_obj); i++)
    assert_close(irm_array_at(a->v_obj, i), irm_array_at(b->v_obj, i));
}

/* main of before and after gives the same tensors on inputs of shapes. */
static void check_eval(const irm_module *before, const irm_module *after, const int64_t *const *shapes,
                       const int32_t *ndims, size_t n) {
  irm_any items[8] = {0};
  for (size_t i = 0; i < n; i++) items[i] = irm_any_object(tensor(shapes[i], ndims[i], (unsigned)i + 1));
  irm_object *inputs = new_array(items, n);
  for (size_t i = 0; i < n; i++) irm_any_release(&items[i]);
  irm_any x = irm_any_none(), y = irm_any_none();
  ck_assert_ok(irm_dataflow_evaluate(before, "main", inputs, &x));
  int rc = irm_dataflow_evaluate(after, "main", inputs, &y);
  ck_require(rc == 0, "evaluating the fused module: %s", irm_last_error());
  assert_close(&x, &y);
  irm_any_release(&x);
  irm_any_release(&y);
  irm_object_release(inputs);
}

static const int64_t shape4[] = {4};
static const int64_t *const one4[] = {shape4, shape4};
static const int32_t ndim1[] = {1, 1};

/* ---- fused structure -------------------------------------------------------------------- */

START_TEST(test_conv2d_bias_add_relu_fuse_into_one_primitive_function) {
  const char *src =
      H "def @main(%x: Tensor[(1, 1, 4, 4), float32], %w: Tensor[(2, 1, 3, 3), float32], %b: Tensor[(2,), float32]) {\n"
        "  %0 = nn.conv2d(%x, %w);\n"
        "  %1 = nn.bias_add(%0, %b);\n"
        "  %2 = nn.relu(%1);\n"
        "  %2\n"
        "}\n";
  irm_module *m = typed(src);
  irm_module *out = check_fuse(
      src, 256,
      H
      "def @main(%x: Tensor[(1, 1, 4, 4), float32], %w: Tensor[(2, 1, 3, 3), float32], %b: Tensor[(2,), float32]) -> Tensor[(1, 2, 2, 2), float32] {\n"
      "  %0 = fn (%p0: Tensor[(1, 1, 4, 4), float32], %p1: Tensor[(2, 1, 3, 3), float32], %p2: Tensor[(2,), float32])"
      " -> Tensor[(1, 2, 2, 2), float32] attributes {Primitive = true} {\n"
      "    %1 = nn.conv2d(%p0, %p1);\n"
      "    %2 = nn.bias_add(%1, %p2);\n"
      "    %3 = nn.relu(%2);\n"
      "    %3\n"
      "  };\n"
      "  %4 = %0(%x, %w, %b);\n"
      "  %4\n"
      "}\n");
  const int64_t sx[] = {1, 1, 4, 4}, sw[] = {2, 1, 3, 3}, sb[] = {2};
  const int64_t *shapes[] = {sx, sw, sb};
  const int32_t ndims[] = {4, 4, 1};
  check_eval(m, out, shapes, ndims, 3);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_diamond_fuses_when_every_use_ends_in_the_group) {
  const char *src = H "def @main(%x: " T4 ") {\n"
                      "  %0 = exp(%x);\n"
                      "  %1 = nn.relu(%0);\n"
                      "  %2 = negative(%0);\n"
                      "  %3 = add(%1, %2);\n"
                      "  %3\n"
                      "}\n";
  irm_module *m = typed(src);
  irm_module *out = check_fuse(src, 256,
                               H "def @main(%x: " T4 ") -> " T4 " {\n"
                                 "  %0 = fn (%p0: " T4 ") -> " T4 " attributes {Primitive = true} {\n"
                                 "    %1 = exp(%p0);\n"
                                 "    %2 = nn.relu(%1);\n"
                                 "    %3 = negative(%1);\n"
                                 "    %4 = add(%2, %3);\n"
                                 "    %4\n"
                                 "  };\n"
                                 "  %5 = %0(%x);\n"
                                 "  %5\n"
                                 "}\n");
  check_eval(m, out, one4, ndim1, 1);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

/* A node used by an opaque op and by an elementwise one cannot join the
 * group of either: computing it twice is never an option. */
START_TEST(test_a_diamond_through_an_opaque_op_keeps_the_shared_node_alone) {
  const char *src = H "def @main(%x: " T4 ") {\n"
                      "  %0 = exp(%x);\n"
                      "  %1 = nn.relu(%0);\n"
                      "  %2 = nn.dropout(%0);\n"
                      "  %3 = add(%1, %2);\n"
                      "  %3\n"
                      "}\n";
  irm_module *m = typed(src);
  irm_module *out =
      check_fuse(src, 256,
                 H "def @main(%x: " T4 ") -> " T4 " {\n"
                   "  %0 = fn (%p0: " T4 ") -> " T4 " attributes {Primitive = true} { %1 = exp(%p0); %1 };\n"
                   "  %2 = %0(%x);\n"
                   "  %3 = fn (%q0: " T4 ") -> " T4 " attributes {Primitive = true} { %4 = nn.dropout(%q0); %4 };\n"
                   "  %5 = %3(%2);\n"
                   "  %6 = fn (%r0: " T4 ", %r1: " T4 ") -> " T4 " attributes {Primitive = true} {\n"
                   "    %7 = nn.relu(%r0);\n"
                   "    %8 = add(%7, %r1);\n"
                   "    %8\n"
                   "  };\n"
                   "  %9 = %6(%2, %5);\n"
                   "  %9\n"
                   "}\n");
  check_eval(m, out, one4, ndim1, 1);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

/* conv2d's output used twice by elementwise ops that meet again: the
 * whole diamond is one group, with the conv2d as its anchor. */
START_TEST(test_a_diamond_after_conv2d_joins_its_group) {
  const char *src = H "def @main(%x: Tensor[(1, 1, 3, 3), float32], %w: Tensor[(1, 1, 2, 2), float32]) {\n"
                      "  %0 = nn.conv2d(%x, %w);\n"
                      "  %1 = nn.relu(%0);\n"
                      "  %2 = exp(%0);\n"
                      "  %3 = multiply(%1, %2);\n"
                      "  %3\n"
                      "}\n";
  irm_module *m = typed(src), *out = fuse(m, 256);
  ck_assert_str_eq(group_sizes(out).text, "4");
  const int64_t sx[] = {1, 1, 3, 3}, sw[] = {1, 1, 2, 2};
  const int64_t *shapes[] = {sx, sw};
  const int32_t ndims[] = {4, 4};
  check_eval(m, out, shapes, ndims, 2);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_tuples_and_projections_stay_outside_the_groups) {
  const char *src = H "def @main(%x: " T4 ") {\n"
                      "  %0 = exp(%x);\n"
                      "  %1 = nn.relu(%x);\n"
                      "  %2 = (%0, %1);\n"
                      "  %3 = %2.1;\n"
                      "  %4 = negative(%3);\n"
                      "  %5 = exp(%4);\n"
                      "  %6 = (%5, %0);\n"
                      "  %6\n"
                      "}\n";
  irm_module *m = typed(src);
  irm_module *out = check_fuse(
      src, 256,
      H "def @main(%x: " T4 ") -> (" T4 ", " T4 ") {\n"
        "  %0 = fn (%p0: " T4 ") -> " T4 " attributes {Primitive = true} { %1 = exp(%p0); %1 };\n"
        "  %2 = %0(%x);\n"
        "  %3 = fn (%q0: " T4 ") -> " T4 " attributes {Primitive = true} { %4 = nn.relu(%q0); %4 };\n"
        "  %5 = %3(%x);\n"
        "  %6 = (%2, %5);\n"
        "  %7 = %6.1;\n"
        "  %8 = fn (%s0: " T4 ") -> " T4 " attributes {Primitive = true} { %9 = negative(%s0); %10 = exp(%9); %10 };\n"
        "  %11 = %8(%7);\n"
        "  %12 = (%11, %2);\n"
        "  %12\n"
        "}\n");
  check_eval(m, out, one4, ndim1, 1);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_max_depth_1_makes_every_op_its_own_group) {
  const char *src = H "def @main(%x: " T4 ", %y: " T4 ") {\n"
                      "  %0 = add(%x, %y);\n"
                      "  %1 = nn.relu(%0);\n"
                      "  %2 = exp(%1);\n"
                      "  %2\n"
                      "}\n";
  irm_module *m = typed(src);
  irm_module *out = check_fuse(
      src, 1,
      H "def @main(%x: " T4 ", %y: " T4 ") -> " T4 " {\n"
        "  %0 = fn (%p0: " T4 ", %p1: " T4 ") -> " T4 " attributes {Primitive = true} { %1 = add(%p0, %p1); %1 };\n"
        "  %2 = %0(%x, %y);\n"
        "  %3 = fn (%q0: " T4 ") -> " T4 " attributes {Primitive = true} { %4 = nn.relu(%q0); %4 };\n"
        "  %5 = %3(%2);\n"
        "  %6 = fn (%r0: " T4 ") -> " T4 " attributes {Primitive = true} { %7 = exp(%r0); %7 };\n"
        "  %8 = %6(%5);\n"
        "  %8\n"
        "}\n");
  check_eval(m, out, one4, ndim1, 2);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_an_opaque_op_in_the_middle_splits_the_chain) {
  const char *src = H "def @main(%x: " T4 ") {\n"
                      "  %0 = exp(%x);\n"
                      "  %1 = negative(%0);\n"
                      "  %2 = nn.dropout(%1);\n"
                      "  %3 = nn.relu(%2);\n"
                      "  %4 = sqrt(%3);\n"
                      "  %4\n"
                      "}\n";
  irm_module *m = typed(src), *out = fuse(m, 256);
  ck_assert_str_eq(group_sizes(out).text, "2,1,2");
  check_eval(m, out, one4, ndim1, 1);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

/* Injective ops fuse with elementwise ones; a reduction absorbs what comes
 * before it but nothing after; conv2d takes nothing injective after it. */
START_TEST(test_patterns_decide_what_fuses) {
  const char *src = H "def @main(%x: Tensor[(2, 4), float32]) {\n"
                      "  %0 = exp(%x);\n"
                      "  %1 = reshape(%0, newshape=[4, 2]);\n"
                      "  %2 = nn.relu(%1);\n"
                      "  %3 = sum(%2, axis=[1]);\n"
                      "  %4 = negative(%3);\n"
                      "  %4\n"
                      "}\n";
  irm_module *m = typed(src), *out = fuse(m, 256);
  ck_assert_str_eq(group_sizes(out).text, "4,1");
  const int64_t s[] = {2, 4};
  const int64_t *shapes[] = {s};
  const int32_t ndims[] = {2};
  check_eval(m, out, shapes, ndims, 1);
  irm_object_release(out);
  irm_object_release(m);

  m = typed(H "def @main(%x: Tensor[(1, 1, 3, 3), float32], %w: Tensor[(1, 1, 2, 2), float32]) {\n"
              "  %0 = exp(%x);\n"
              "  %1 = nn.conv2d(%0, %w);\n"
              "  %2 = nn.relu(%1);\n"
              "  %3 = reshape(%2, newshape=[4]);\n"
              "  %4 = nn.relu(%3);\n"
              "  %4\n"
              "}\n");
  out = fuse(m, 256);
  ck_assert_str_eq(group_sizes(out).text, "1,2,2");
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_constants_stay_inside_the_group) {
  const char *src = H "def @main(%x: " T4 ") {\n"
                      "  %0 = add(%x, const(float32, [4], [1, 2, 3, 4]));\n"
                      "  %1 = multiply(%0, const(float32, [], [0.5]));\n"
                      "  %1\n"
                      "}\n";
  irm_module *m = typed(src);
  irm_module *out = check_fuse(src, 256,
                               H "def @main(%x: " T4 ") -> " T4 " {\n"
                                 "  %0 = fn (%p0: " T4 ") -> " T4 " attributes {Primitive = true} {\n"
                                 "    %1 = add(%p0, const(float32, [4], [1, 2, 3, 4]));\n"
                                 "    %2 = multiply(%1, const(float32, [], [0.5]));\n"
                                 "    %2\n"
                                 "  };\n"
                                 "  %3 = %0(%x);\n"
                                 "  %3\n"
                                 "}\n");
  check_eval(m, out, one4, ndim1, 1);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

/* A let's variable is an input: calls fuse on each side of a binding,
 * never across it; calls inside a nested function fuse there. */
START_TEST(test_lets_and_nested_functions) {
  const char *src = H "def @main(%x: " T4 ") {\n"
                      "  %0 = exp(%x);\n"
                      "  %1 = nn.relu(%0);\n"
                      "  let %y = %1;\n"
                      "  %2 = fn (%a: " T4 ") {\n"
                      "    %3 = negative(%a);\n"
                      "    %4 = add(%3, %y);\n"
                      "    %4\n"
                      "  };\n"
                      "  %5 = %2(%y);\n"
                      "  %6 = exp(%5);\n"
                      "  %6\n"
                      "}\n";
  irm_module *m = typed(src);
  irm_module *out = check_fuse(
      src, 256,
      H "def @main(%x: " T4 ") -> " T4 " {\n"
        "  %0 = fn (%p0: " T4 ") -> " T4 " attributes {Primitive = true} { %1 = exp(%p0); %2 = nn.relu(%1); %2 };\n"
        "  %3 = %0(%x);\n"
        "  let %y: " T4 " = %3;\n"
        "  %4 = fn (%a: " T4 ") -> " T4 " {\n"
        "    %5 = fn (%q0: " T4 ", %q1: " T4 ") -> " T4
        " attributes {Primitive = true} { %6 = negative(%q0); %7 = add(%6, %q1); %7 };\n"
        "    %8 = %5(%a, %y);\n"
        "    %8\n"
        "  };\n"
        "  %9 = %4(%y);\n"
        "  %10 = fn (%r0: " T4 ") -> " T4 " attributes {Primitive = true} { %11 = exp(%r0); %11 };\n"
        "  %12 = %10(%9);\n"
        "  %12\n"
        "}\n");
  check_eval(m, out, one4, ndim1, 1);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

/* Every function is fused on its own; calls between functions stay; a
 * function marked Primitive or for another compiler is left alone. */
START_TEST(test_each_function_is_fused_and_marked_ones_are_skipped) {
  const char *src = H "def @helper(%x: Tensor[(1, 4), float32], %w: Tensor[(3, 4), float32]) {\n"
                      "  %0 = nn.dense(%x, %w);\n"
                      "  %1 = nn.relu(%0);\n"
                      "  %1\n"
                      "}\n"
                      "def @kept(%x: " T4 ") -> " T4 " attributes {Primitive = true} {\n"
                      "  %0 = exp(%x);\n"
                      "  %1 = negative(%0);\n"
                      "  %1\n"
                      "}\n"
                      "def @main(%x: Tensor[(1, 4), float32], %w: Tensor[(3, 4), float32]) {\n"
                      "  %0 = @helper(%x, %w);\n"
                      "  %1 = exp(%0);\n"
                      "  %1\n"
                      "}\n";
  irm_module *m = typed(src);
  irm_module *out = fuse(m, 256);
  assert_same(
      out, H
      "def @helper(%x: Tensor[(1, 4), float32], %w: Tensor[(3, 4), float32]) -> Tensor[(1, 3), float32] {\n"
      "  %0 = fn (%p0: Tensor[(1, 4), float32], %p1: Tensor[(3, 4), float32]) -> Tensor[(1, 3), float32] attributes {Primitive = true} {\n"
      "    %1 = nn.dense(%p0, %p1);\n"
      "    %2 = nn.relu(%1);\n"
      "    %2\n"
      "  };\n"
      "  %3 = %0(%x, %w);\n"
      "  %3\n"
      "}\n"
      "def @kept(%x: " T4 ") -> " T4 " attributes {Primitive = true} {\n"
      "  %0 = exp(%x);\n"
      "  %1 = negative(%0);\n"
      "  %1\n"
      "}\n"
      "def @main(%x: Tensor[(1, 4), float32], %w: Tensor[(3, 4), float32]) -> Tensor[(1, 3), float32] {\n"
      "  %0 = @helper(%x, %w);\n"
      "  %1 = fn (%p0: Tensor[(1, 3), float32]) -> Tensor[(1, 3), float32] attributes {Primitive = true} { %2 = exp(%p0); %2 };\n"
      "  %3 = %1(%0);\n"
      "  %3\n"
      "}\n");
  ck_assert_ptr_eq(irm_module_function(out, "kept"), irm_module_function(m, "kept"));
  const int64_t sx[] = {1, 4}, sw[] = {3, 4};
  const int64_t *shapes[] = {sx, sw};
  const int32_t ndims[] = {2, 2};
  check_eval(m, out, shapes, ndims, 2);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_fusing_twice_changes_nothing_the_second_time) {
  irm_module *m = typed(H "def @main(%x: " T4 ") {\n"
                          "  %0 = exp(%x);\n"
                          "  %1 = nn.dropout(%0);\n"
                          "  %2 = nn.relu(%1);\n"
                          "  %2\n"
                          "}\n");
  irm_module *once = fuse(m, 256), *twice = NULL;
  ck_assert_ptr_ne(once, m);
  ck_assert_ok(irm_dataflow_fuse_ops(once, 256, &twice));
  ck_assert_ptr_eq(twice, once);
  irm_object_release(twice);
  /* through the registered pass too */
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("FuseOps", NULL, &p));
  ck_assert_ok(irm_pass_run(p, once, &twice));
  ck_assert_ptr_eq(twice, once);
  irm_object_release(twice);
  irm_object_release(p);
  irm_object_release(once);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_module_without_calls_of_ops_is_returned_itself) {
  irm_module *m = typed(H "def @main(%x: " T4 ") {\n  %0 = (%x, %x);\n  %0\n}\n"), *out = NULL;
  ck_assert_ok(irm_dataflow_fuse_ops(m, 4, &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_chain_of_100000_calls_fuses) {
  const size_t n = test_depth(100000);
  size_t cap = n * 40 + 256, len = 0;
  char *text = malloc(cap);
  len += (size_t)snprintf(text + len, cap - len, H "def @main(%%x: " T4 ") {\n  %%0 = nn.relu(%%x);\n");
  for (size_t i = 1; i < n; i++)
    len += (size_t)snprintf(text + len, cap - len, "  %%%zu = %s(%%%zu);\n", i, i % 2 ? "negative" : "nn.relu", i - 1);
  snprintf(text + len, cap - len, "  %%%zu\n}\n", n - 1);
  irm_module *m = typed(text);
  free(text);
  irm_module *out = NULL;
  ck_assert_ok(irm_dataflow_fuse_ops(m, 256, &out));
  size_t groups = 0, ops = 0;
  /* main is now a chain of ceil(n / 256) calls of Primitive functions */
  irm_object *e = irm_function_body(irm_module_function(out, "main"));
  while (irm_expr_kind_of(e) == IRM_EXPR_CALL) {
    irm_object *fn = irm_call_callee(e);
    ck_assert_int_eq(irm_expr_kind_of(fn), IRM_EXPR_FUNCTION);
    size_t k = 0;
    ck_assert_ok(irm_expr_visit(irm_function_body(fn), count_calls, &k));
    ck_assert_uint_le(k, 256);
    ops += k;
    groups++;
    e = irm_call_arg(e, 0);
  }
  ck_assert_int_eq(irm_expr_kind_of(e), IRM_EXPR_VAR);
  ck_assert_uint_eq(ops, n);
  ck_assert_uint_eq(groups, (n + 255) / 256);
  irm_module *again = NULL;
  ck_assert_ok(irm_dataflow_fuse_ops(out, 256, &again));
  ck_assert_ptr_eq(again, out);
  irm_object_release(again);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

/* ---- the pass, its settings and their precedence ---------------------------------------- */

static const char *chain6 = H "def @main(%x: " T4 ") {\n"
                              "  %0 = exp(%x);\n"
                              "  %1 = negative(%0);\n"
                              "  %2 = nn.relu(%1);\n"
                              "  %3 = sqrt(%2);\n"
                              "  %4 = exp(%3);\n"
                              "  %5 = negative(%4);\n"
                              "  %5\n"
                              "}\n";

static int n_warnings;
static char last_warning[512];

static void on_warning(const char *msg, void *user) {
  (void)user;
  n_warnings++;
  snprintf(last_warning, sizeof last_warning, "%s", msg);
}

/* Runs pipeline on the 6-op chain (module attribute FuseOps.max_depth =
 * attr when attr > 0) under a PassContext with config key = ctx_depth
 * (when key), and returns the group sizes. */
static sizes run_chain(const char *pipeline, int64_t attr, const char *key, int64_t ctx_depth) {
  irm_module *m = typed(chain6), *out = NULL;
  if (attr > 0) {
    irm_any v = irm_any_int(attr);
    ck_assert_ok(irm_module_set_attr_move(&m, "FuseOps.max_depth", &v));
  }
  irm_object *config = key ? map1(key, irm_any_int(ctx_depth)) : NULL;
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, config, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  irm_pass *p = NULL;
  ck_assert_ok(irm_pipeline_parse(pipeline, &p));
  int rc = irm_pass_run(p, m, &out);
  ck_require(rc == 0, "%s: %s", pipeline, irm_last_error());
  ck_assert_ok(irm_pass_context_exit(ctx));
  sizes s = group_sizes(out);
  irm_object_release(p);
  irm_object_release(ctx);
  irm_object_release(config);
  irm_object_release(out);
  irm_object_release(m);
  return s;
}

START_TEST(test_max_depth_precedence_pipeline_then_module_then_context_then_default) {
  irm_set_warning_handler(on_warning, NULL);
  /* nothing given: the default, 256 */
  irm_warn_once_reset();
  n_warnings = 0;
  ck_assert_str_eq(run_chain("FuseOps", 0, NULL, 0).text, "6");
  ck_assert_int_eq(n_warnings, 0);
  /* the PassContext alone: used, silently (the migration at work is no deprecation) */
  irm_warn_once_reset();
  n_warnings = 0;
  ck_assert_str_eq(run_chain("FuseOps", 0, "FuseOps.max_depth", 4).text, "4,2");
  ck_assert_str_eq(run_chain("FuseOps", 0, "FuseOps.max_depth", 4).text, "4,2");
  ck_assert_int_eq(n_warnings, 0);
  /* TVM's name is the same option */
  irm_warn_once_reset();
  n_warnings = 0;
  ck_assert_str_eq(run_chain("FuseOps", 0, "relay.FuseOps.max_depth", 4).text, "4,2");
  ck_assert_int_eq(n_warnings, 0); /* TVM's name works as written */
  /* the module attribute wins over the PassContext, saying so once */
  irm_warn_once_reset();
  n_warnings = 0;
  ck_assert_str_eq(run_chain("FuseOps", 3, "FuseOps.max_depth", 4).text, "3,3");
  ck_assert_str_eq(run_chain("FuseOps", 3, "FuseOps.max_depth", 4).text, "3,3");
  ck_assert_int_eq(n_warnings, 1);
  ck_assert_ptr_nonnull(strstr(last_warning, "the module attribute wins"));
  ck_assert_str_eq(run_chain("FuseOps", 3, NULL, 0).text, "3,3");
  /* a pipeline option wins over both */
  ck_assert_str_eq(run_chain("FuseOps{max_depth=2}", 3, "FuseOps.max_depth", 4).text, "2,2,2");
  ck_assert_str_eq(run_chain("Sequential(InferType,FuseOps{max_depth=5})", 0, NULL, 0).text, "5,1");
  irm_set_warning_handler(NULL, NULL);
  irm_warn_once_reset();
}
END_TEST

START_TEST(test_the_pass_is_registered_with_its_option) {
  irm_pass *p = NULL;
  irm_object *text = NULL;
  ck_assert_ok(irm_pipeline_parse("Sequential(InferType,FuseOps{max_depth=4})", &p));
  ck_assert_ok(irm_pipeline_print(p, &text));
  ck_assert_str_eq(irm_string_data(text), "Sequential(InferType,FuseOps{max_depth=4})");
  irm_object_release(text);
  irm_object_release(p);
  ck_assert_error(irm_pipeline_parse("FuseOps{max_dept=4}", &p), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("did you mean 'max_depth'");
  ck_assert_error(irm_pipeline_parse("FuseOps{max_depth=deep}", &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("expected int");
}
END_TEST

/* ---- errors ----------------------------------------------------------------------------- */

START_TEST(test_max_depth_0_is_a_value_error) {
  irm_module *m = typed(chain6), *out = NULL;
  ck_assert_error(irm_dataflow_fuse_ops(m, 0, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("max_depth must be at least 1, got 0");
  ck_assert_ptr_null(out);
  ck_assert_error(irm_dataflow_fuse_ops(m, -3, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("got -3");
  irm_pass *p = NULL;
  ck_assert_ok(irm_pipeline_parse("FuseOps{max_depth=0}", &p));
  ck_assert_error(irm_pass_run(p, m, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("in pass 'FuseOps'");
  ck_assert_error_mentions("max_depth must be at least 1, got 0");
  ck_assert_ptr_null(out);
  irm_object_release(p);
  ck_assert_error(irm_dataflow_fuse_ops(m, 4, NULL), IRM_EVALUE, "ValueError: ");
  irm_object_release(m);
}
END_TEST

START_TEST(test_untyped_input_is_typed_first) {
  irm_module *m = parse(chain6), *out = NULL, *typed = NULL, *out2 = NULL;
  ck_assert_ok(irm_dataflow_fuse_ops(m, 4, &out));
  ck_assert_str_eq(group_sizes(out).text, "4,2");
  ck_assert_ok(irm_dataflow_infer_type(m, &typed));
  ck_assert_ok(irm_dataflow_fuse_ops(typed, 4, &out2));
  irm_any a = irm_any_object(out), b = irm_any_object(out2);
  ck_assert(equal(&a, &b));
  irm_object_release(out);
  irm_object_release(out2);
  irm_object_release(typed);
  irm_object_release(m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("pass_fuse");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_conv2d_bias_add_relu_fuse_into_one_primitive_function);
  tcase_add_test(tc, test_a_diamond_fuses_when_every_use_ends_in_the_group);
  tcase_add_test(tc, test_a_diamond_through_an_opaque_op_keeps_the_shared_node_alone);
  tcase_add_test(tc, test_a_diamond_after_conv2d_joins_its_group);
  tcase_add_test(tc, test_tuples_and_projections_stay_outside_the_groups);
  tcase_add_test(tc, test_max_depth_1_makes_every_op_its_own_group);
  tcase_add_test(tc, test_an_opaque_op_in_the_middle_splits_the_chain);
  tcase_add_test(tc, test_patterns_decide_what_fuses);
  tcase_add_test(tc, test_constants_stay_inside_the_group);
  tcase_add_test(tc, test_lets_and_nested_functions);
  tcase_add_test(tc, test_each_function_is_fused_and_marked_ones_are_skipped);
  tcase_add_test(tc, test_fusing_twice_changes_nothing_the_second_time);
  tcase_add_test(tc, test_a_module_without_calls_of_ops_is_returned_itself);
  tcase_add_test(tc, test_a_chain_of_100000_calls_fuses);
  tcase_add_test(tc, test_max_depth_precedence_pipeline_then_module_then_context_then_default);
  tcase_add_test(tc, test_the_pass_is_registered_with_its_option);
  tcase_add_test(tc, test_max_depth_0_is_a_value_error);
  tcase_add_test(tc, test_untyped_input_is_typed_first);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(suite()); }
