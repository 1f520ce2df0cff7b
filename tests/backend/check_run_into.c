/* irm_runtime_module_run_into / runtime.ModuleRunInto (docs/runtime.md,
 * "The loader"): runs into the caller's output tensors give what
 * irm_runtime_module_run gives, for aot (interface c and packed) and graph
 * libraries, repeatedly into the same buffers; wrong outputs are refused
 * before anything is written, naming the output; and a run into given
 * outputs makes no allocation through irm's allocator (main() installs the
 * counting allocator of check_alloc_util.h). */
#include "check_alloc_util.h"
#include "check_aot_util.h"

/* Two inputs and a tuple of two outputs of different shapes. */
#define RI_MAIN                                                                     \
  IP_HEAD "def @main(%x: Tensor[(2, 8), float32], %y: Tensor[(2, 8), float32]) {\n" \
          "  %0 = add(%x, %y);\n  %1 = nn.relu(%0);\n  %2 = multiply(%1, %y);\n"    \
          "  %3 = sum(%2, axis=[1]);\n  %4 = (%1, %3);\n  %4\n}\n"

enum { N_CONFIGS = 4 };

/* Config which (0-2: aot_config's; 3: graph) of RI_MAIN, exported and
 * loaded; NEW. */
static irm_object *load_config(int which) {
  irm_module *m = parse_module(RI_MAIN);
  const char *rt = "cpp";
  irm_object *e = NULL;
  if (which < 3) e = aot_config(which, &rt);
  else ck_assert_ok(irm_executor_create("graph", NULL, &e));
  irm_object *r = aot_build(m, "c", e, rt, NULL, "ri");
  char tag[32];
  snprintf(tag, sizeof tag, "run_into%d", which);
  irm_object *loaded = aot_export_load(r, tag);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
  return loaded;
}

static irm_object *inputs_of(uint64_t seed) {
  int64_t shape[] = {2, 8};
  irm_any v[2] = {irm_any_object(seeded_tensor(shape, 2, seed)), irm_any_object(seeded_tensor(shape, 2, seed + 1))};
  irm_object *arr = new_array(v, 2);
  irm_any_release(&v[0]);
  irm_any_release(&v[1]);
  return arr;
}

static irm_object *tensor_of(const char *dtype, const int64_t *shape, int32_t ndim, unsigned char fill) {
  DLDataType dt;
  ck_assert_ok(irm_dtype_parse(dtype, &dt));
  irm_object *t = NULL;
  ck_assert_ok(irm_tensor_new(dt, shape, ndim, NULL, (irm_tensor **)&t));
  const DLTensor *dl = irm_tensor_dl((irm_tensor *)t);
  memset(dl->data, fill, (size_t)irm_tensor_numel((irm_tensor *)t) * (dt.bits / 8u));
  return t;
}

/* An Array of n tensors (moved in), NEW. */
static irm_object *array_of(irm_object **ts, size_t n) {
  irm_any v[4] = {0};
  for (size_t i = 0; i < n; i++) v[i] = irm_any_object(ts[i]);
  irm_object *arr = new_array(v, n);
  for (size_t i = 0; i < n; i++) irm_any_release(&v[i]);
  return arr;
}

/* The module's outputs, (2, 8) and (2,) float32, filled with fill; NEW. */
static irm_object *outputs_of(unsigned char fill) {
  int64_t s0[] = {2, 8}, s1[] = {2};
  irm_object *ts[2] = {tensor_of("float32", s0, 2, fill), tensor_of("float32", s1, 1, fill)};
  return array_of(ts, 2);
}

static const DLTensor *dl_at(const irm_object *arr, size_t i) {
  return irm_tensor_dl((const irm_tensor *)irm_array_at(arr, i)->v_obj);
}

static size_t bytes_of(const DLTensor *t) {
  size_t n = t->dtype.bits / 8u;
  for (int32_t k = 0; k < t->ndim; k++) n *= (size_t)t->shape[k];
  return n;
}

static void assert_same(const irm_object *a, const irm_object *b) {
  ck_assert_uint_eq(irm_array_size(a), irm_array_size(b));
  for (size_t j = 0; j < irm_array_size(a); j++) {
    const DLTensor *x = dl_at(a, j), *y = dl_at(b, j);
    ck_assert_uint_eq(bytes_of(x), bytes_of(y));
    ck_assert_msg(memcmp(x->data, y->data, bytes_of(x)) == 0, "output %zu differs", j);
  }
}

/* Every byte of every tensor of arr is fill. */
static void assert_filled(const irm_object *arr, unsigned char fill) {
  for (size_t j = 0; j < irm_array_size(arr); j++) {
    const DLTensor *t = dl_at(arr, j);
    for (size_t k = 0; k < bytes_of(t); k++)
      ck_assert_msg(((const unsigned char *)t->data)[k] == fill, "output %zu was written", j);
  }
}

START_TEST(test_run_into_gives_what_run_gives) {
  irm_object *loaded = load_config(_i);
  irm_object *outs = outputs_of(0xAB);
  const void *data0 = dl_at(outs, 0)->data;
  for (uint64_t seed = 1; seed <= 3; seed++) { /* repeated runs into the same buffers */
    irm_object *in = inputs_of(seed * 10), *want = NULL;
    ck_assert_ok(irm_runtime_module_run(loaded, in, &want));
    ck_assert_ok(irm_runtime_module_run_into(loaded, in, outs));
    assert_same(want, outs);
    ck_assert_ptr_eq(dl_at(outs, 0)->data, data0);
    irm_object_release(want);
    irm_object_release(in);
  }
  /* through the global */
  irm_object *in = inputs_of(77), *want = NULL;
  ck_assert_ok(irm_runtime_module_run(loaded, in, &want));
  irm_any args[3] = {irm_any_object(loaded), irm_any_object(in), irm_any_object(outs)}, ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("runtime.ModuleRunInto", args, 3, &ret));
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  assert_same(want, outs);
  irm_object_release(want);
  irm_object_release(in);
  irm_object_release(outs);
  irm_object_release(loaded);
}
END_TEST

START_TEST(test_wrong_outputs_are_refused_and_nothing_is_written) {
  irm_object *loaded = load_config(_i);
  irm_object *in = inputs_of(5);
  int64_t s0[] = {2, 8}, s1[] = {2}, bad[] = {3};
  /* one output too few */
  irm_object *one[1] = {tensor_of("float32", s0, 2, 0xCD)};
  irm_object *outs = array_of(one, 1);
  ck_assert_error(irm_runtime_module_run_into(loaded, in, outs), IRM_EVALUE, "ValueError: module 'ri' gives 2 outputs");
  ck_assert_error_mentions("got 1");
  assert_filled(outs, 0xCD);
  irm_object_release(outs);
  /* the second output's dtype */
  irm_object *dt[2] = {tensor_of("float32", s0, 2, 0xCD), tensor_of("int32", s1, 1, 0xCD)};
  outs = array_of(dt, 2);
  ck_assert_error(irm_runtime_module_run_into(loaded, in, outs), IRM_EVALUE, "ValueError: output '");
  ck_assert_error_mentions("of module 'ri': expected dtype float32, got int32");
  assert_filled(outs, 0xCD);
  irm_object_release(outs);
  /* the second output's shape */
  irm_object *sh[2] = {tensor_of("float32", s0, 2, 0xCD), tensor_of("float32", bad, 1, 0xCD)};
  outs = array_of(sh, 2);
  ck_assert_error(irm_runtime_module_run_into(loaded, in, outs), IRM_EVALUE, "ValueError: output '");
  ck_assert_error_mentions("expected shape (2,), got (3,)");
  assert_filled(outs, 0xCD);
  irm_object_release(outs);
  /* not a tensor */
  irm_any v[2] = {irm_any_object(tensor_of("float32", s0, 2, 0xCD)), irm_any_int(3)};
  outs = new_array(v, 2);
  irm_any_release(&v[0]);
  ck_assert_error(irm_runtime_module_run_into(loaded, in, outs), IRM_ETYPE, "TypeError: output 1 ('");
  ck_assert_error_mentions("expected ffi.Tensor, got int");
  irm_object_release(outs);
  /* an output that is an input: the code may read the input after writing */
  irm_object *x = irm_array_at(in, 0)->v_obj;
  irm_object_retain(x);
  irm_object *al[2] = {x, tensor_of("float32", s1, 1, 0xCD)};
  outs = array_of(al, 2);
  ck_assert_error(irm_runtime_module_run_into(loaded, in, outs), IRM_EVALUE, "ValueError: output '");
  ck_assert_error_mentions("shares memory with input 'x'");
  for (size_t k = 0; k < bytes_of(dl_at(outs, 1)); k++)
    ck_assert_uint_eq(((const unsigned char *)dl_at(outs, 1)->data)[k], 0xCD);
  irm_object_release(outs);
  /* a wrong input still names the input, and writes no output */
  irm_object *good = outputs_of(0xCD), *swapped = NULL;
  irm_any wrong[2] = {irm_any_object(tensor_of("float32", s1, 1, 0)), *irm_array_at(in, 1)};
  swapped = new_array(wrong, 2);
  irm_any_release(&wrong[0]);
  ck_assert_error(irm_runtime_module_run_into(loaded, swapped, good), IRM_EVALUE, "ValueError: input 'x'");
  assert_filled(good, 0xCD);
  /* not a module, not arrays */
  ck_assert_error(irm_runtime_module_run_into(in, in, good), IRM_ETYPE,
                  "TypeError: runtime.ModuleRunInto: expected runtime.Module");
  ck_assert_error(irm_runtime_module_run_into(loaded, in, x), IRM_ETYPE,
                  "TypeError: runtime.ModuleRunInto: outputs: expected ffi.Array of Tensors, got ffi.Tensor");
  irm_object_release(swapped);
  irm_object_release(good);
  irm_object_release(in);
  irm_object_release(loaded);
}
END_TEST

START_TEST(test_a_run_into_given_outputs_allocates_nothing) {
  irm_object *loaded = load_config(_i);
  irm_object *in = inputs_of(9), *outs = outputs_of(0), *want = NULL;
  ck_assert_ok(irm_runtime_module_run(loaded, in, &want));
  ck_assert_ok(irm_runtime_module_run_into(loaded, in, outs)); /* warm: nothing lazy left */
  long before = atomic_load(&attempts), blocks = atomic_load(&live_blocks);
  for (int k = 0; k < 5; k++) ck_assert_ok(irm_runtime_module_run_into(loaded, in, outs));
  long after = atomic_load(&attempts);
  ck_assert_msg(after == before, "%ld allocations during 5 runs into given outputs", after - before);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
  assert_same(want, outs);
  /* a run that makes its outputs does allocate them (the counter works) */
  irm_object *made = NULL;
  ck_assert_ok(irm_runtime_module_run(loaded, in, &made));
  ck_assert_int_gt(atomic_load(&attempts), after);
  irm_object_release(made);
  irm_object_release(want);
  irm_object_release(outs);
  irm_object_release(in);
  irm_object_release(loaded);
}
END_TEST

int main(void) {
  if (install_counting_allocator("check_run_into")) return 1;
  Suite *s = suite_create("run_into");
  TCase *tc = tcase_create("run_into");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_run_into_gives_what_run_gives, 0, N_CONFIGS);
  tcase_add_loop_test(tc, test_wrong_outputs_are_refused_and_nothing_is_written, 0, N_CONFIGS);
  tcase_add_loop_test(tc, test_a_run_into_given_outputs_allocates_nothing, 0, N_CONFIGS);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
