/* bench/dispatch: native calls and closures against raw libffi, in the
 * same process. One line per figure: `name ns_per_op ratio baseline`. */
#include <ffi.h>
#include <string.h>

#include "bench_util.h"

enum { CHUNK = 200 * 1000 };

static int64_t add_i64(int64_t a, int64_t b) { return a + b; }

static float mixed(int32_t a, double b, void *p, const char *s) {
  return (float)(a + b) + (p ? 1.0f : 0.0f) + (float)s[0];
}

/* ---- i64(i64,i64): fast path vs ffi_call -------------------------------- */

typedef struct call_ctx {
  irm_object *func;
  const irm_any *args;
  int32_t nargs;
  ffi_cif cif;
  void (*target)(void);
  void **values;
} call_ctx;

static int64_t raw_int_loop(void *p, long n) {
  call_ctx *c = p;
  int64_t sum = 0;
  for (long i = 0; i < n; i++) {
    ffi_arg r;
    ffi_call(&c->cif, c->target, &r, c->values);
    sum += (int64_t)r;
  }
  return sum;
}

static int64_t irm_int_loop(void *p, long n) {
  call_ctx *c = p;
  int64_t sum = 0;
  for (long i = 0; i < n; i++) {
    irm_any r;
    irm_func_call(c->func, c->args, c->nargs, &r);
    sum += r.v_int;
  }
  return sum;
}

static void bench_fast_path(void) {
  call_ctx c = {0};
  if (irm_func_new_native((irm_native_fn)add_i64, "i64(i64,i64)", &c.func)) bench_die("new_native");
  ffi_type *types[2] = {&ffi_type_sint64, &ffi_type_sint64};
  ffi_prep_cif(&c.cif, FFI_DEFAULT_ABI, 2, &ffi_type_sint64, types);
  irm_any args[2] = {irm_any_int(1), irm_any_int(2)};
  int64_t a = 1, b = 2;
  void *values[2] = {&a, &b};
  c.args = args;
  c.nargs = 2;
  c.target = FFI_FN(add_i64);
  c.values = values;
  double base, subject;
  int64_t sink = 0;
  bench_pair(raw_int_loop, irm_int_loop, &c, CHUNK, &base, &subject, &sink);
  if (sink != (int64_t)ROUNDS * CHUNKS * CHUNK * 2 * 3) bench_die("wrong sums");
  bench_report("native_i64_i64_i64", subject, base, "raw_ffi_call");
  irm_object_release(c.func);
}

/* ---- f32(i32,f64,ptr,str): libffi path vs ffi_call --------------------- */

static int64_t raw_float_loop(void *p, long n) {
  call_ctx *c = p;
  double sum = 0;
  for (long i = 0; i < n; i++) {
    float r;
    ffi_call(&c->cif, c->target, &r, c->values);
    sum += r;
  }
  return (int64_t)sum;
}

static int64_t irm_float_loop(void *p, long n) {
  call_ctx *c = p;
  double sum = 0;
  for (long i = 0; i < n; i++) {
    irm_any r;
    irm_func_call(c->func, c->args, c->nargs, &r);
    sum += r.v_float;
  }
  return (int64_t)sum;
}

static void bench_ffi_path(void) {
  call_ctx c = {0};
  if (irm_func_new_native((irm_native_fn)mixed, "f32(i32,f64,ptr,str)", &c.func)) bench_die("new_native");
  ffi_type *types[4] = {&ffi_type_sint32, &ffi_type_double, &ffi_type_pointer, &ffi_type_pointer};
  ffi_prep_cif(&c.cif, FFI_DEFAULT_ABI, 4, &ffi_type_float, types);
  int x = 0;
  irm_any args[4] = {irm_any_int(1), irm_any_float(2.0), irm_any_ptr(&x), irm_any_str("a")};
  int32_t a = 1;
  double b = 2.0;
  void *ptr = &x;
  const char *s = "a";
  void *values[4] = {&a, &b, &ptr, &s};
  c.args = args;
  c.nargs = 4;
  c.target = FFI_FN(mixed);
  c.values = values;
  double base, subject;
  int64_t sink = 0;
  bench_pair(raw_float_loop, irm_float_loop, &c, CHUNK, &base, &subject, &sink);
  if (sink != (int64_t)ROUNDS * CHUNKS * CHUNK * 2 * 101) bench_die("wrong sums");
  bench_report("native_f32_i32_f64_ptr_str", subject, base, "raw_ffi_call");
  irm_object_release(c.func);
}

/* ---- closures: irm_func_to_native vs a raw libffi closure -------------- */

typedef int64_t (*add_fn)(int64_t, int64_t);

static void raw_forward(ffi_cif *cif, void *ret, void **args, void *user) {
  (void)cif;
  (void)user;
  *(ffi_sarg *)ret = add_i64(*(int64_t *)args[0], *(int64_t *)args[1]);
}

/* The general path: a packed function doing the same addition. */
static int add_packed(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)nargs;
  (void)resource;
  *ret = irm_any_int(add_i64(args[0].v_int, args[1].v_int));
  return 0;
}

static int64_t pointer_loop(void *p, long n) {
  add_fn fn = *(add_fn *)p;
  int64_t sum = 0;
  for (long i = 0; i < n; i++) sum += fn(i, 1);
  return sum;
}

/* Best times of two closures compared chunk by chunk. */
static void compare_pointers(add_fn base_fn, add_fn subject_fn, double *base, double *subject) {
  add_fn fns[2] = {base_fn, subject_fn};
  *base = *subject = 1e30;
  for (int round = 0; round < ROUNDS; round++)
    for (int chunk = 0; chunk < CHUNKS; chunk++) {
      double t0 = bench_now_ns();
      int64_t s0 = pointer_loop(&fns[0], CHUNK);
      double t1 = bench_now_ns();
      int64_t s1 = pointer_loop(&fns[1], CHUNK);
      double t2 = bench_now_ns();
      if (s0 != s1) bench_die("closure results differ");
      bench_keep_best(base, t0, t1, CHUNK);
      bench_keep_best(subject, t1, t2, CHUNK);
    }
}

static void bench_closure(void) {
  ffi_cif cif;
  ffi_type *types[2] = {&ffi_type_sint64, &ffi_type_sint64};
  ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 2, &ffi_type_sint64, types);
  void *code = NULL;
  ffi_closure *raw = ffi_closure_alloc(sizeof(ffi_closure), &code);
  if (!raw || ffi_prep_closure_loc(raw, &cif, raw_forward, NULL, code) != FFI_OK) bench_die("raw closure");
  add_fn raw_fn = (add_fn)(uintptr_t)code;

  irm_object *f = NULL, *handle = NULL;
  irm_native_fn native = NULL;
  if (irm_func_new_native((irm_native_fn)add_i64, "i64(i64,i64)", &f)) bench_die("new_native");
  if (irm_func_to_native(f, "i64(i64,i64)", &native, &handle)) bench_die("to_native");
  add_fn irm_fn = (add_fn)native;

  double base, subject;
  compare_pointers(raw_fn, irm_fn, &base, &subject);
  bench_report("closure_i64_i64_i64", subject, base, "raw_ffi_closure");

  /* Informational: the general path (a packed function behind the
   * pointer, as a Python callback would be). */
  irm_object *packed = NULL, *packed_handle = NULL;
  if (irm_func_new_packed(add_packed, NULL, NULL, &packed)) bench_die("new_packed");
  if (irm_func_to_native(packed, "i64(i64,i64)", &native, &packed_handle)) bench_die("to_native");
  compare_pointers(raw_fn, (add_fn)native, &base, &subject);
  bench_report("closure_packed_i64_i64_i64", subject, base, "raw_ffi_closure");
  irm_object_release(packed_handle);
  irm_object_release(packed);
  ffi_closure_free(raw);
  irm_object_release(handle);
  irm_object_release(f);
}

int main(void) {
  bench_fast_path();
  bench_ffi_path();
  bench_closure();
  return 0;
}
