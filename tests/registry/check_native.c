/* Native functions: calls through irm_func_call (fast paths and libffi),
 * argument checking and static registration (function.h). Signatures are
 * in check_native_signature.c; the other direction, irm_func_to_native,
 * in check_closure.c. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

#define P(x) ((uint64_t)(uintptr_t)(x))

/* ---- what the C functions saw ------------------------------------------- */

static int seen_calls;
static int seen_n;
static uint64_t seen[4];
static double seen_f[2];
static const char *seen_s;
static irm_object *seen_o;
static irm_any seen_any;

static void record(int n, uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  seen_calls++;
  seen_n = n;
  seen[0] = a;
  seen[1] = b;
  seen[2] = c;
  seen[3] = d;
}

static int ret_marker;     /* the ptr results point here */
static int arg_markers[4]; /* ptr arguments point here */

/* A new String "made": what the obj-returning functions hand back. */
static irm_object *made(void) {
  irm_object *s = NULL;
  return irm_string_from_cstr("made", &s) == 0 ? s : NULL;
}

static irm_object *new_native(irm_native_fn fn, const char *sig) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_native(fn, sig, &f));
  ck_assert_ptr_nonnull(f);
  return f;
}

/* ---- fast-path shapes: all-integer-register functions -------------------- */

static int64_t fp_i64_0(void) {
  record(0, 0, 0, 0, 0);
  return -42;
}
static uint64_t fp_u64_0(void) {
  record(0, 0, 0, 0, 0);
  return UINT64_MAX - 1;
}
static void fp_void_0(void) { record(0, 0, 0, 0, 0); }
static void *fp_ptr_0(void) {
  record(0, 0, 0, 0, 0);
  return &ret_marker;
}
static irm_object *fp_obj_1(irm_object *a) {
  record(1, P(a), 0, 0, 0);
  return made();
}
static int64_t fp_i64_1(irm_object *a) {
  record(1, P(a), 0, 0, 0);
  return -42;
}
static void fp_void_1(void *a) { record(1, P(a), 0, 0, 0); }
static uint64_t fp_u64_1(uint64_t a) {
  record(1, a, 0, 0, 0);
  return UINT64_MAX - 1;
}
static int64_t fp_i64_2(int64_t a, int64_t b) {
  record(2, (uint64_t)a, (uint64_t)b, 0, 0);
  return -42;
}
static void *fp_ptr_2(void *a, int64_t b) {
  record(2, P(a), (uint64_t)b, 0, 0);
  return &ret_marker;
}
static uint64_t fp_u64_2(void *a, irm_object *b) {
  record(2, P(a), P(b), 0, 0);
  return UINT64_MAX - 1;
}
static irm_object *fp_obj_3(irm_object *a, uint64_t b, void *c) {
  record(3, P(a), b, P(c), 0);
  return made();
}
static void fp_void_3(uint64_t a, int64_t b, irm_object *c) { record(3, a, (uint64_t)b, P(c), 0); }
static void fp_void_4(int64_t a, uint64_t b, void *c, irm_object *d) { record(4, (uint64_t)a, b, P(c), P(d)); }
static void *fp_ptr_4(irm_object *a, void *b, uint64_t c, int64_t d) {
  record(4, P(a), P(b), c, (uint64_t)d);
  return &ret_marker;
}
static irm_object *fp_obj_4(int64_t a, int64_t b, int64_t c, int64_t d) {
  record(4, (uint64_t)a, (uint64_t)b, (uint64_t)c, (uint64_t)d);
  return made();
}
static int64_t fp_i64_4(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  record(4, a, b, c, d);
  return -42;
}

typedef struct shape {
  irm_native_fn fn;
  const char *sig; /* normalized */
  const char *ret;
  int nargs;
  const char *args[4];
} shape;

static const shape fast_shapes[] = {
    {(irm_native_fn)fp_i64_0, "i64()", "i64", 0, {0}},
    {(irm_native_fn)fp_u64_0, "u64()", "u64", 0, {0}},
    {(irm_native_fn)fp_void_0, "void()", "void", 0, {0}},
    {(irm_native_fn)fp_ptr_0, "ptr()", "ptr", 0, {0}},
    {(irm_native_fn)fp_obj_1, "obj(obj)", "obj", 1, {"obj"}},
    {(irm_native_fn)fp_i64_1, "i64(obj)", "i64", 1, {"obj"}},
    {(irm_native_fn)fp_void_1, "void(ptr)", "void", 1, {"ptr"}},
    {(irm_native_fn)fp_u64_1, "u64(u64)", "u64", 1, {"u64"}},
    {(irm_native_fn)fp_i64_2, "i64(i64,i64)", "i64", 2, {"i64", "i64"}},
    {(irm_native_fn)fp_ptr_2, "ptr(ptr,i64)", "ptr", 2, {"ptr", "i64"}},
    {(irm_native_fn)fp_u64_2, "u64(ptr,obj)", "u64", 2, {"ptr", "obj"}},
    {(irm_native_fn)fp_obj_3, "obj(obj,u64,ptr)", "obj", 3, {"obj", "u64", "ptr"}},
    {(irm_native_fn)fp_void_3, "void(u64,i64,obj)", "void", 3, {"u64", "i64", "obj"}},
    {(irm_native_fn)fp_void_4, "void(i64,u64,ptr,obj)", "void", 4, {"i64", "u64", "ptr", "obj"}},
    {(irm_native_fn)fp_ptr_4, "ptr(obj,ptr,u64,i64)", "ptr", 4, {"obj", "ptr", "u64", "i64"}},
    {(irm_native_fn)fp_obj_4, "obj(i64,i64,i64,i64)", "obj", 4, {"i64", "i64", "i64", "i64"}},
    {(irm_native_fn)fp_i64_4, "i64(u64,u64,u64,u64)", "i64", 4, {"u64", "u64", "u64", "u64"}},
};
enum { fast_shape_count = sizeof fast_shapes / sizeof fast_shapes[0] };

/* A valid argument of type t at index i; objects come from pool[i]. */
static irm_any valid_arg(const char *t, int i, irm_object **pool) {
  if (!strcmp(t, "i64")) return irm_any_int(-100 - i);
  if (!strcmp(t, "u64")) return irm_any_int(INT64_MAX - i);
  if (!strcmp(t, "ptr")) return irm_any_ptr(&arg_markers[i]);
  if (!strcmp(t, "obj")) return irm_any_object(pool[i]);
  if (!strcmp(t, "i32") || !strcmp(t, "any")) return irm_any_int(7);
  if (!strcmp(t, "f32") || !strcmp(t, "f64")) return irm_any_float(0.5);
  if (!strcmp(t, "bool")) return irm_any_bool(true);
  if (!strcmp(t, "str")) return irm_any_str("s");
  return irm_any_none(); /* obj? */
}

/* The raw register value valid_arg's value arrives as (integer shapes). */
static uint64_t raw_of(const irm_any *v) {
  return v->type_code == IRM_INT ? (uint64_t)v->v_int : v->type_code == IRM_PTR ? P(v->v_ptr) : P(v->v_obj);
}

static void make_pool(irm_object **pool) {
  for (int i = 0; i < 4; i++) {
    char name[16];
    snprintf(name, sizeof name, "arg%d", i);
    pool[i] = new_string(name);
  }
}

static void release_pool(irm_object **pool) {
  for (int i = 0; i < 4; i++) {
    ck_assert_uint_eq(irm_object_refcount(pool[i]), 1);
    irm_object_release(pool[i]);
  }
}

static void assert_result(const char *ret_type, irm_any *ret) {
  if (!strcmp(ret_type, "i64")) {
    ck_assert_int_eq(ret->type_code, IRM_INT);
    ck_assert_int_eq(ret->v_int, -42);
  } else if (!strcmp(ret_type, "u64")) { /* above INT64_MAX: wraps */
    ck_assert_int_eq(ret->type_code, IRM_INT);
    ck_assert_int_eq(ret->v_int, -2);
  } else if (!strcmp(ret_type, "ptr")) {
    ck_assert_int_eq(ret->type_code, IRM_PTR);
    ck_assert_ptr_eq(ret->v_ptr, &ret_marker);
  } else if (!strcmp(ret_type, "obj")) {
    ck_assert_int_eq(ret->type_code, IRM_OBJECT);
    ck_assert_str_eq(irm_string_data(ret->v_obj), "made");
    ck_assert_uint_eq(irm_object_refcount(ret->v_obj), 1);
  } else {
    ck_assert_int_eq(ret->type_code, IRM_NONE);
  }
  irm_any_release(ret);
}

START_TEST(test_fast_path_shape_receives_arguments_and_converts_result) {
  const shape *sh = &fast_shapes[_i];
  irm_object *pool[4];
  make_pool(pool);
  irm_object *f = new_native(sh->fn, sh->sig);
  ck_assert_str_eq(irm_func_signature(f), sh->sig);
  irm_any args[4];
  for (int i = 0; i < sh->nargs; i++) args[i] = valid_arg(sh->args[i], i, pool);
  seen_calls = 0;
  irm_any ret;
  ck_assert_ok(irm_func_call(f, args, sh->nargs, &ret));
  ck_assert_int_eq(seen_calls, 1);
  ck_assert_int_eq(seen_n, sh->nargs);
  for (int i = 0; i < sh->nargs; i++)
    ck_assert_msg(seen[i] == raw_of(&args[i]), "%s: argument %d arrived as %llx", sh->sig, i,
                  (unsigned long long)seen[i]);
  assert_result(sh->ret, &ret);
  irm_object_release(f);
  release_pool(pool);
}
END_TEST

/* Calls sh with nargs+1 arguments, then with each argument wrong in turn:
 * each a TypeError naming name, and the C function never runs. */
static void assert_argument_errors(const shape *sh, const char *name) {
  irm_object *pool[4];
  make_pool(pool);
  irm_object *f = new_native(sh->fn, sh->sig);
  if (strcmp(name, "<anonymous>")) ck_assert_ok(irm_func_register_global(name, f, 0));
  irm_any args[5], ret;
  for (int i = 0; i < sh->nargs; i++) args[i] = valid_arg(sh->args[i], i, pool);
  args[sh->nargs] = irm_any_int(1);
  seen_calls = 0;
  char text[64];

  ck_assert_error(irm_func_call(f, args, sh->nargs + 1, &ret), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions(name);
  ck_assert_error_mentions(sh->sig);
  snprintf(text, sizeof text, "takes %d argument", sh->nargs);
  ck_assert_error_mentions(text);
  snprintf(text, sizeof text, "got %d", sh->nargs + 1);
  ck_assert_error_mentions(text);
  ck_assert_int_eq(ret.type_code, IRM_NONE);

  for (int i = 0; i < sh->nargs; i++) {
    if (!strcmp(sh->args[i], "any")) continue; /* takes every value */
    int want_str = !strcmp(sh->args[i], "str");
    irm_any saved = args[i];
    args[i] = want_str ? irm_any_int(5) : irm_any_str("x");
    ck_assert_error(irm_func_call(f, args, sh->nargs, &ret), IRM_ETYPE, "TypeError: ");
    ck_assert_error_mentions(name);
    snprintf(text, sizeof text, "argument %d: ", i + 1); /* arguments count from 1 */
    ck_assert_error_mentions(text);
    snprintf(text, sizeof text, "expected %s", sh->args[i]);
    ck_assert_error_mentions(text);
    ck_assert_error_mentions(want_str ? "got int 5" : "got str 'x'"); /* the value given */
    ck_assert_int_eq(ret.type_code, IRM_NONE);
    args[i] = saved;
  }
  ck_assert_int_eq(seen_calls, 0);
  if (strcmp(name, "<anonymous>")) ck_assert_ok(irm_func_remove_global(name));
  irm_object_release(f);
  release_pool(pool);
}

START_TEST(test_fast_path_shape_rejects_wrong_count_and_each_wrong_argument) {
  assert_argument_errors(&fast_shapes[_i], "<anonymous>");
}
END_TEST

START_TEST(test_fast_path_obj_argument_rejects_none_and_ptr_takes_none_as_null) {
  irm_object *f = new_native((irm_native_fn)fp_u64_2, "u64(ptr,obj)");
  irm_any args[2] = {irm_any_none(), irm_any_none()}, ret;
  ck_assert_error(irm_func_call(f, args, 2, &ret), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("argument 2: expected obj, got none");
  irm_object *s = new_string("x");
  args[1] = irm_any_object(s);
  seen[0] = 99;
  ck_assert_ok(irm_func_call(f, args, 2, &ret));
  ck_assert_uint_eq(seen[0], 0); /* NULL */
  ck_assert_ptr_eq((void *)(uintptr_t)seen[1], s);
  irm_object_release(s);
  irm_object_release(f);
}
END_TEST

START_TEST(test_fast_path_u64_argument_rejects_negative_int_with_value_error) {
  irm_object *f = new_native((irm_native_fn)fp_u64_1, "u64(u64)");
  irm_any arg = irm_any_int(-1), ret;
  ck_assert_error(irm_func_call(f, &arg, 1, &ret), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("<anonymous>");
  ck_assert_error_mentions("argument 1: ");
  ck_assert_error_mentions("u64");
  arg = irm_any_int(0);
  seen[0] = 99;
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_uint_eq(seen[0], 0);
  irm_object_release(f);
}
END_TEST

static irm_object *fp_null_obj(void) {
  seen_calls++;
  return NULL;
}

START_TEST(test_fast_path_obj_result_null_gives_none) {
  irm_object *f = new_native((irm_native_fn)fp_null_obj, "obj()");
  irm_any ret = irm_any_int(1);
  seen_calls = 0;
  ck_assert_ok(irm_func_call(f, NULL, 0, &ret));
  ck_assert_int_eq(seen_calls, 1);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object_release(f);
}
END_TEST

static irm_object *retain_arg(irm_object *o) {
  irm_object_retain(o);
  return o;
}

START_TEST(test_obj_result_that_retains_its_argument_does_not_leak) {
  irm_object *f = new_native((irm_native_fn)retain_arg, "obj(obj)");
  irm_object *s = new_string("kept");
  irm_any arg = irm_any_object(s), ret;
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_ptr_eq(ret.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  irm_any_release(&ret);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
  irm_object_release(f);
}
END_TEST

/* ---- f64 fast paths ------------------------------------------------------- */

static double f64_half(double x) {
  seen_f[0] = x;
  return x / 2;
}
static double f64_sub(double x, double y) {
  seen_f[0] = x;
  seen_f[1] = y;
  return x - y;
}

START_TEST(test_f64_shapes_take_floats_and_widen_ints) {
  irm_object *f1 = new_native((irm_native_fn)f64_half, "f64(f64)");
  irm_object *f2 = new_native((irm_native_fn)f64_sub, "f64(f64,f64)");
  irm_any args[2] = {irm_any_float(3.0), irm_any_int(1)}, ret;
  ck_assert_ok(irm_func_call(f1, args, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_FLOAT);
  ck_assert_double_eq(ret.v_float, 1.5);
  ck_assert_ok(irm_func_call(f1, &args[1], 1, &ret));
  ck_assert_double_eq(seen_f[0], 1.0);
  ck_assert_double_eq(ret.v_float, 0.5);
  ck_assert_ok(irm_func_call(f2, args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_FLOAT);
  ck_assert_double_eq(seen_f[0], 3.0);
  ck_assert_double_eq(seen_f[1], 1.0);
  ck_assert_double_eq(ret.v_float, 2.0);
  irm_object_release(f1);
  irm_object_release(f2);
}
END_TEST

START_TEST(test_f64_shapes_reject_wrong_count_and_wrong_types) {
  static const shape f64_shapes[] = {
      {(irm_native_fn)f64_half, "f64(f64)", "f64", 1, {"f64"}},
      {(irm_native_fn)f64_sub, "f64(f64,f64)", "f64", 2, {"f64", "f64"}},
  };
  assert_argument_errors(&f64_shapes[0], "<anonymous>");
  assert_argument_errors(&f64_shapes[1], "test.native.Sub");
}
END_TEST

/* ---- libffi signatures ------------------------------------------------------ */

static float ffi_mixed(int32_t a, double b, void *c, const char *d) {
  record(4, (uint64_t)(int64_t)a, 0, P(c), 0);
  seen_f[0] = b;
  seen_s = d;
  return (float)a + (float)b;
}
static void ffi_void4(uint64_t a, float b, irm_object *c, const irm_any *d) {
  record(4, a, 0, P(c), 0);
  seen_f[0] = b;
  seen_any = *d;
}
static bool ffi_is_string(irm_object *o) {
  seen_o = o;
  return irm_object_is(o, "ffi.String");
}
static char concat_buf[64];
static const char *ffi_concat(irm_object *o, const char *s) {
  snprintf(concat_buf, sizeof concat_buf, "%s+%s", irm_string_data(o), s);
  return concat_buf;
}
static irm_object *ffi_pick(const char *s, irm_object *o) {
  seen_s = s;
  return retain_arg(o);
}
static int32_t ffi_neg32(int32_t x) { return -x; }
static bool ffi_not(bool x) { return !x; }
static float ffi_half32(float x) { return x / 2; }
static const char *ffi_null_str(void) {
  seen_calls++;
  return NULL;
}
static irm_object *ffi_maybe(irm_object *o) {
  seen_o = o;
  return o ? retain_arg(o) : NULL;
}

static const shape ffi_shapes[] = {
    {(irm_native_fn)ffi_mixed, "f32(i32,f64,ptr,str)", "f32", 4, {"i32", "f64", "ptr", "str"}},
    {(irm_native_fn)ffi_void4, "void(u64,f32,obj?,any)", "void", 4, {"u64", "f32", "obj?", "any"}},
    {(irm_native_fn)ffi_is_string, "bool(obj)", "bool", 1, {"obj"}},
    {(irm_native_fn)ffi_concat, "str(obj,str)", "str", 2, {"obj", "str"}},
    {(irm_native_fn)ffi_pick, "obj(str,obj)", "obj", 2, {"str", "obj"}},
    {(irm_native_fn)ffi_neg32, "i32(i32)", "i32", 1, {"i32"}},
    {(irm_native_fn)ffi_not, "bool(bool)", "bool", 1, {"bool"}},
    {(irm_native_fn)ffi_half32, "f32(f32)", "f32", 1, {"f32"}},
    {(irm_native_fn)ffi_null_str, "str()", "str", 0, {0}},
    {(irm_native_fn)ffi_maybe, "obj?(obj?)", "obj?", 1, {"obj?"}},
};
enum { ffi_shape_count = sizeof ffi_shapes / sizeof ffi_shapes[0] };

START_TEST(test_libffi_signature_rejects_wrong_count_and_each_wrong_argument) {
  assert_argument_errors(&ffi_shapes[_i], "<anonymous>");
}
END_TEST

START_TEST(test_f32_i32_f64_ptr_str_receives_each_value) {
  irm_object *f = new_native((irm_native_fn)ffi_mixed, "f32(i32,f64,ptr,str)");
  const char *text = "hello";
  irm_any args[4] = {irm_any_int(-5), irm_any_int(2), irm_any_ptr(&arg_markers[2]), irm_any_str(text)};
  irm_any ret;
  ck_assert_ok(irm_func_call(f, args, 4, &ret));
  ck_assert_uint_eq(seen[0], (uint64_t)(int64_t)-5);
  ck_assert_double_eq(seen_f[0], 2.0); /* int widened */
  ck_assert_ptr_eq((void *)(uintptr_t)seen[2], &arg_markers[2]);
  ck_assert_ptr_eq(seen_s, text); /* a borrowed str passes through */
  ck_assert_int_eq(ret.type_code, IRM_FLOAT);
  ck_assert_double_eq(ret.v_float, -3.0);
  /* A String serves as str; NONE serves as ptr (NULL). */
  irm_object *s = new_string("from a String");
  args[1] = irm_any_float(0.25);
  args[2] = irm_any_none();
  args[3] = irm_any_object(s);
  ck_assert_ok(irm_func_call(f, args, 4, &ret));
  ck_assert_double_eq(seen_f[0], 0.25);
  ck_assert_uint_eq(seen[2], 0);
  ck_assert_ptr_eq(seen_s, irm_string_data(s));
  ck_assert_double_eq(ret.v_float, -4.75);
  irm_object_release(s);
  irm_object_release(f);
}
END_TEST

START_TEST(test_void_u64_f32_optobj_any_receives_each_value) {
  irm_object *f = new_native((irm_native_fn)ffi_void4, "void(u64,f32,obj?,any)");
  irm_any args[4] = {irm_any_int(INT64_MAX), irm_any_float(1.25), irm_any_none(), irm_any_str("anything")};
  irm_any ret;
  ck_assert_ok(irm_func_call(f, args, 4, &ret));
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  ck_assert_uint_eq(seen[0], (uint64_t)INT64_MAX);
  ck_assert_double_eq(seen_f[0], 1.25);
  ck_assert_ptr_null((void *)(uintptr_t)seen[2]); /* NONE for obj? is NULL */
  ck_assert_int_eq(seen_any.type_code, IRM_STR);
  ck_assert_ptr_eq(seen_any.v_str, args[3].v_str);
  irm_object *s = new_string("o");
  args[2] = irm_any_object(s);
  args[3] = irm_any_float(-0.5);
  ck_assert_ok(irm_func_call(f, args, 4, &ret));
  ck_assert_ptr_eq((void *)(uintptr_t)seen[2], s);
  ck_assert_int_eq(seen_any.type_code, IRM_FLOAT);
  ck_assert_double_eq(seen_any.v_float, -0.5);
  args[0] = irm_any_int(-1);
  ck_assert_error(irm_func_call(f, args, 4, &ret), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("argument 1: ");
  ck_assert_error_mentions("u64");
  irm_object_release(s);
  irm_object_release(f);
}
END_TEST

START_TEST(test_bool_obj_returns_a_bool_and_rejects_none) {
  irm_object *f = new_native((irm_native_fn)ffi_is_string, "bool(obj)");
  irm_any arg = irm_any_object(f), ret;
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_BOOL);
  ck_assert_int_eq(ret.v_int, 0);
  ck_assert_ptr_eq(seen_o, f);
  irm_object *s = new_string("s");
  arg = irm_any_object(s);
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_BOOL);
  ck_assert_int_eq(ret.v_int, 1);
  arg = irm_any_none();
  ck_assert_error(irm_func_call(f, &arg, 1, &ret), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected obj, got none");
  irm_object_release(s);
  irm_object_release(f);
}
END_TEST

START_TEST(test_str_result_is_copied_into_a_new_string) {
  irm_object *f = new_native((irm_native_fn)ffi_concat, "str(obj,str)");
  irm_object *s = new_string("left");
  irm_any args[2] = {irm_any_object(s), irm_any_str("right")}, ret;
  ck_assert_ok(irm_func_call(f, args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(ret.v_obj), "ffi.String");
  ck_assert_str_eq(irm_string_data(ret.v_obj), "left+right");
  ck_assert_ptr_ne(irm_string_data(ret.v_obj), concat_buf);
  ck_assert_uint_eq(irm_object_refcount(ret.v_obj), 1);
  irm_any_release(&ret);
  irm_object_release(s);
  irm_object_release(f);
}
END_TEST

START_TEST(test_obj_str_obj_result_is_taken_as_new_reference) {
  irm_object *f = new_native((irm_native_fn)ffi_pick, "obj(str,obj)");
  irm_object *s = new_string("picked");
  irm_any args[2] = {irm_any_str("name"), irm_any_object(s)}, ret;
  ck_assert_ok(irm_func_call(f, args, 2, &ret));
  ck_assert_str_eq(seen_s, "name");
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(ret.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  irm_any_release(&ret);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
  irm_object_release(f);
}
END_TEST

START_TEST(test_i32_takes_ints_in_range_and_rejects_others_with_value_error) {
  irm_object *f = new_native((irm_native_fn)ffi_neg32, "i32(i32)");
  irm_any arg = irm_any_int(INT32_MAX), ret;
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, -INT32_MAX);
  arg = irm_any_int(5);
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_int_eq(ret.v_int, -5);
  arg = irm_any_int((int64_t)INT32_MAX + 1);
  ck_assert_error(irm_func_call(f, &arg, 1, &ret), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("<anonymous>");
  ck_assert_error_mentions("argument 1: ");
  ck_assert_error_mentions("2147483648");
  arg = irm_any_int((int64_t)INT32_MIN - 1);
  ck_assert_error(irm_func_call(f, &arg, 1, &ret), IRM_EVALUE, "ValueError: ");
  irm_object_release(f);
}
END_TEST

START_TEST(test_bool_takes_bool_or_int_0_1_and_rejects_int_2) {
  irm_object *f = new_native((irm_native_fn)ffi_not, "bool(bool)");
  irm_any arg = irm_any_bool(true), ret;
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_BOOL);
  ck_assert_int_eq(ret.v_int, 0);
  arg = irm_any_int(0);
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_BOOL);
  ck_assert_int_eq(ret.v_int, 1);
  arg = irm_any_int(1);
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_int_eq(ret.v_int, 0);
  arg = irm_any_int(2);
  ck_assert_error(irm_func_call(f, &arg, 1, &ret), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("argument 1: ");
  ck_assert_error_mentions("expected bool");
  ck_assert_error_mentions("int");
  irm_object_release(f);
}
END_TEST

START_TEST(test_f32_takes_floats_and_widens_ints) {
  irm_object *f = new_native((irm_native_fn)ffi_half32, "f32(f32)");
  irm_any arg = irm_any_float(1.5), ret;
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_FLOAT);
  ck_assert_double_eq(ret.v_float, 0.75);
  arg = irm_any_int(3);
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_double_eq(ret.v_float, 1.5);
  irm_object_release(f);
}
END_TEST

START_TEST(test_str_result_null_gives_none) {
  irm_object *f = new_native((irm_native_fn)ffi_null_str, "str()");
  irm_any ret = irm_any_int(1);
  seen_calls = 0;
  ck_assert_ok(irm_func_call(f, NULL, 0, &ret));
  ck_assert_int_eq(seen_calls, 1);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object_release(f);
}
END_TEST

START_TEST(test_optional_obj_passes_none_as_null_and_null_result_as_none) {
  irm_object *f = new_native((irm_native_fn)ffi_maybe, "obj?(obj?)");
  irm_any arg = irm_any_none(), ret;
  seen_o = (irm_object *)&ret_marker;
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_ptr_null(seen_o);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object *s = new_string("x");
  arg = irm_any_object(s);
  ck_assert_ok(irm_func_call(f, &arg, 1, &ret));
  ck_assert_ptr_eq(ret.v_obj, s);
  irm_any_release(&ret);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
  irm_object_release(f);
}
END_TEST

static int64_t sum16(int64_t a0, int64_t a1, int64_t a2, int64_t a3, int64_t a4, int64_t a5, int64_t a6, int64_t a7,
                     int64_t a8, int64_t a9, int64_t a10, int64_t a11, int64_t a12, int64_t a13, int64_t a14,
                     int64_t a15) {
  int64_t v[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  int64_t s = 0;
  for (int i = 0; i < 16; i++) s += v[i] * (i + 1);
  return s;
}

START_TEST(test_sixteen_arguments_arrive_in_order) {
  char sig[128] = "i64(i64";
  for (int i = 1; i < IRM_NATIVE_MAX_ARGS; i++) strcat(sig, ",i64");
  strcat(sig, ")");
  irm_object *f = new_native((irm_native_fn)sum16, sig);
  irm_any args[IRM_NATIVE_MAX_ARGS], ret;
  int64_t want = 0;
  for (int i = 0; i < IRM_NATIVE_MAX_ARGS; i++) {
    args[i] = irm_any_int(100 + i);
    want += (100 + i) * (i + 1);
  }
  ck_assert_ok(irm_func_call(f, args, IRM_NATIVE_MAX_ARGS, &ret));
  ck_assert_int_eq(ret.v_int, want);
  irm_object_release(f);
}
END_TEST

/* ---- registered names --------------------------------------------------- */

START_TEST(test_argument_errors_name_the_registered_function) {
  assert_argument_errors(&fast_shapes[8], "test.native.FastNamed"); /* i64(i64,i64) */
  assert_argument_errors(&ffi_shapes[0], "test.native.FfiNamed");   /* f32(i32,f64,ptr,str) */
}
END_TEST

static int64_t static_add(int64_t a, int64_t b) { return a + b; }
IRM_REGISTER_GLOBAL("test.native.StaticAdd", static_add, "i64(i64,i64)");

START_TEST(test_register_global_macro_registers_before_main) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_get_global("test.native.StaticAdd", &f));
  ck_assert_ptr_nonnull(f);
  ck_assert_str_eq(irm_func_signature(f), "i64(i64,i64)");
  ck_assert_str_eq(irm_func_name(f), "test.native.StaticAdd");
  irm_object_release(f);
  irm_any args[2] = {irm_any_int(40), irm_any_int(2)}, ret;
  ck_assert_ok(irm_func_call_global("test.native.StaticAdd", args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, 42);
}
END_TEST

static char warned[512];
static int warn_count;
static void capture_warning(const char *msg, void *user_data) {
  (void)user_data;
  warn_count++;
  snprintf(warned, sizeof warned, "%s", msg);
}

START_TEST(test_static_native_with_bad_signature_warns_and_returns_value_error) {
  irm_set_warning_handler(capture_warning, NULL);
  warn_count = 0;
  ck_assert_error(irm_register_static_native("test.native.Bad", (irm_native_fn)static_add, "i64(i6)"), IRM_EVALUE,
                  "ValueError: ");
  ck_assert_int_eq(warn_count, 1);
  ck_assert_ptr_nonnull(strstr(warned, "test.native.Bad"));
  ck_assert_ptr_nonnull(strstr(warned, "i64(i6)"));
  irm_object *f = (irm_object *)&ret_marker;
  ck_assert_ok(irm_func_get_global("test.native.Bad", &f));
  ck_assert_ptr_null(f);
  /* A duplicate name is reported the same way. */
  ck_assert_error(irm_register_static_native("test.native.StaticAdd", (irm_native_fn)static_add, "i64(i64,i64)"),
                  IRM_EKEY, "KeyError: ");
  ck_assert_int_eq(warn_count, 2);
  ck_assert_ptr_nonnull(strstr(warned, "test.native.StaticAdd"));
  irm_set_warning_handler(NULL, NULL);
}
END_TEST

static Suite *native_suite(void) {
  Suite *s = suite_create("native");

  TCase *tc = tcase_create("fast_path");
  tcase_add_loop_test(tc, test_fast_path_shape_receives_arguments_and_converts_result, 0, fast_shape_count);
  tcase_add_loop_test(tc, test_fast_path_shape_rejects_wrong_count_and_each_wrong_argument, 0, fast_shape_count);
  tcase_add_test(tc, test_fast_path_obj_argument_rejects_none_and_ptr_takes_none_as_null);
  tcase_add_test(tc, test_fast_path_u64_argument_rejects_negative_int_with_value_error);
  tcase_add_test(tc, test_fast_path_obj_result_null_gives_none);
  tcase_add_test(tc, test_obj_result_that_retains_its_argument_does_not_leak);
  tcase_add_test(tc, test_f64_shapes_take_floats_and_widen_ints);
  tcase_add_test(tc, test_f64_shapes_reject_wrong_count_and_wrong_types);
  suite_add_tcase(s, tc);

  tc = tcase_create("libffi");
  tcase_add_loop_test(tc, test_libffi_signature_rejects_wrong_count_and_each_wrong_argument, 0, ffi_shape_count);
  tcase_add_test(tc, test_f32_i32_f64_ptr_str_receives_each_value);
  tcase_add_test(tc, test_void_u64_f32_optobj_any_receives_each_value);
  tcase_add_test(tc, test_bool_obj_returns_a_bool_and_rejects_none);
  tcase_add_test(tc, test_str_result_is_copied_into_a_new_string);
  tcase_add_test(tc, test_obj_str_obj_result_is_taken_as_new_reference);
  tcase_add_test(tc, test_i32_takes_ints_in_range_and_rejects_others_with_value_error);
  tcase_add_test(tc, test_bool_takes_bool_or_int_0_1_and_rejects_int_2);
  tcase_add_test(tc, test_f32_takes_floats_and_widens_ints);
  tcase_add_test(tc, test_str_result_null_gives_none);
  tcase_add_test(tc, test_optional_obj_passes_none_as_null_and_null_result_as_none);
  tcase_add_test(tc, test_sixteen_arguments_arrive_in_order);
  suite_add_tcase(s, tc);

  tc = tcase_create("registration");
  tcase_add_test(tc, test_argument_errors_name_the_registered_function);
  tcase_add_test(tc, test_register_global_macro_registers_before_main);
  tcase_add_test(tc, test_static_native_with_bad_signature_warns_and_returns_value_error);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(native_suite()); }
