/* Kernels that only move channels between blocked tensors
 * (backend/codegen/channel_map.c, runtime/kernels/irm_kernel_channel_map.h)
 * against ir.Evaluate: a shuffle of whole blocks, a slice and a shuffle of
 * halves that are not whole blocks (ShuffleNet's 24 channels in blocks of
 * 16, here 3x/2 of x), lanes left zero, two images; a shuffle of three
 * groups (lanes from three blocks), a kernel with an NCHW output and one
 * of no image keep the ops' own code. Each case is written for blocks 4, 8 and 16: only the
 * target's block (plain "c", "c -mattr=+avx2,+fma" and "c -mcpu=native")
 * runs as a channel map,
 * and every case matches the evaluator on every target. */
#include "check_codegen_c_util.h"

#ifndef IRM_KERNELS_DIR
#define IRM_KERNELS_DIR "."
#endif

enum { CASES = 7, MAPPED = 4 }; /* the first MAPPED cases of a block are channel maps */
static const char *const case_names[CASES] = {"whole", "shift", "halves", "zeros", "three", "nchw", "empty"};

#define T(shape) "Tensor[" shape ", float32]"

/* Case k's text for block x (malloc'd). */
static char *case_text(int k, int x) {
  char *t = malloc(2048);
  int h = x / 2, c3 = 3 * x, half = 3 * x / 2;
  switch (k) {
  case 0: /* ShuffleNet's blocked shuffle: the first half's blocks and b, blocks and lanes moved */
    snprintf(
        t, 2048,
        "def @main(%%x: " T("(1, 4, 3, 5, %d)") ", %%b: " T(
            "(1, 2, 3, 5, %d)") ") {\n"
                                "  %%0 = strided_slice(%%x, begin=[0], end=[2], axes=[1]);\n  %%1 = concatenate(%%0, %%b, axis=1);\n"
                                "  %%2 = reshape(%%1, newshape=[1, 2, 2, 3, 5, 2, %d]);\n"
                                "  %%3 = transpose(%%2, axes=[0, 2, 5, 3, 4, 6, 1]);\n"
                                "  %%4 = reshape(%%3, newshape=[1, 4, 3, 5, %d]);\n  %%4\n}\n",
        x, x, h, x);
    break;
  case 1: /* the second half of 3x channels, lanes shifted by x/2, padding lanes after */
    snprintf(
        t, 2048,
        "def @main(%%x: " T(
            "(2, 3, 3, 5, %d)") ") {\n"
                                "  %%0 = layout_transform(%%x, src_layout=\"NCHW%dc\", dst_layout=\"NCHW\");\n"
                                "  %%1 = strided_slice(%%0, begin=[%d], end=[%d], axes=[1]);\n"
                                "  %%2 = layout_transform(%%1, src_layout=\"NCHW\", dst_layout=\"NCHW%dc\");\n  %%2\n}\n",
        x, x, half, c3, x);
    break;
  case 2: /* ShuffleNet's stage with halves of 3x/2: x's first half and b's, shuffled */
    snprintf(
        t, 2048,
        "def @main(%%x: " T("(1, 3, 3, 5, %d)") ", %%b: " T(
            "(1, 2, 3, 5, %d)") ") {\n"
                                "  %%0 = layout_transform(%%x, src_layout=\"NCHW%dc\", dst_layout=\"NCHW\");\n"
                                "  %%1 = strided_slice(%%0, begin=[0], end=[%d], axes=[1]);\n"
                                "  %%2 = layout_transform(%%b, src_layout=\"NCHW%dc\", dst_layout=\"NCHW\");\n"
                                "  %%3 = strided_slice(%%2, begin=[0], end=[%d], axes=[1]);\n"
                                "  %%4 = concatenate(%%1, %%3, axis=1);\n  %%5 = reshape(%%4, newshape=[1, 2, %d, 3, 5]);\n"
                                "  %%6 = transpose(%%5, axes=[0, 2, 1, 3, 4]);\n  %%7 = reshape(%%6, newshape=[1, %d, 3, 5]);\n"
                                "  %%8 = layout_transform(%%7, src_layout=\"NCHW\", dst_layout=\"NCHW%dc\");\n  %%8\n}\n",
        x, x, x, half, x, half, half, c3, x);
    break;
  case 3: /* half a block, its other lanes zero, twice over */
    snprintf(t, 2048,
             "def @main(%%x: " T(
                 "(1, 1, 3, 5, %d)") ") {\n"
                                     "  %%0 = layout_transform(%%x, src_layout=\"NCHW%dc\", dst_layout=\"NCHW\");\n"
                                     "  %%1 = strided_slice(%%0, begin=[0], end=[%d], axes=[1]);\n"
                                     "  %%2 = layout_transform(%%1, src_layout=\"NCHW\", dst_layout=\"NCHW%dc\");\n"
                                     "  %%3 = layout_transform(%%2, src_layout=\"NCHW%dc\", dst_layout=\"NCHW\");\n"
                                     "  %%4 = reshape(%%3, newshape=[1, %d, 3, 5]);\n"
                                     "  %%5 = layout_transform(%%4, src_layout=\"NCHW\", dst_layout=\"NCHW%dc\");\n"
                                     "  %%6 = concatenate(%%5, %%5, axis=1);\n  %%6\n}\n",
             x, x, h, x, x, x, x);
    break;
  case 4: /* three groups: an output block takes lanes from three input blocks */
    snprintf(
        t, 2048,
        "def @main(%%x: " T(
            "(1, 3, 3, 5, %d)") ") {\n"
                                "  %%0 = layout_transform(%%x, src_layout=\"NCHW%dc\", dst_layout=\"NCHW\");\n"
                                "  %%1 = reshape(%%0, newshape=[1, 3, %d, 3, 5]);\n  %%2 = transpose(%%1, axes=[0, 2, 1, 3, 4]);\n"
                                "  %%3 = reshape(%%2, newshape=[1, %d, 3, 5]);\n"
                                "  %%4 = layout_transform(%%3, src_layout=\"NCHW\", dst_layout=\"NCHW%dc\");\n  %%4\n}\n",
        x, x, x, c3, x);
    break;
  case 6: /* no image: nothing to map, the ops' own (empty) loops */
    snprintf(
        t, 2048,
        "def @main(%%x: " T(
            "(0, 3, 3, 5, %d)") ") {\n"
                                "  %%0 = layout_transform(%%x, src_layout=\"NCHW%dc\", dst_layout=\"NCHW\");\n"
                                "  %%1 = strided_slice(%%0, begin=[%d], end=[%d], axes=[1]);\n"
                                "  %%2 = layout_transform(%%1, src_layout=\"NCHW\", dst_layout=\"NCHW%dc\");\n  %%2\n}\n",
        x, x, half, c3, x);
    break;
  default: /* an NCHW output: the transform's own kernel */
    snprintf(
        t, 2048,
        "def @main(%%x: " T(
            "(1, 3, 3, 5, %d)") ") {\n"
                                "  %%0 = layout_transform(%%x, src_layout=\"NCHW%dc\", dst_layout=\"NCHW\");\n  %%0\n}\n",
        x, x);
  }
  return t;
}

/* Every case of blocks 4, 8 and 16 under target matches the evaluator;
 * exactly one block's cases are channel maps (the first MAPPED of them). */
static void check_target(const char *stem, const char *target_text, const char *extra) {
  static const int blocks[] = {4, 8, 16};
  enum { N = 3 * CASES };
  irm_module *mods[N];
  irm_object *fns[N];
  const char *names[N];
  char name_buf[N][32];
  irm_target *t = NULL;
  ck_assert_ok(irm_target_parse(target_text, &t));
  for (int b = 0; b < 3; b++)
    for (int k = 0; k < CASES; k++) {
      int i = b * CASES + k;
      char *text = case_text(k, blocks[b]);
      mods[i] = cg_typed(text);
      free(text);
      fns[i] = irm_module_function(mods[i], "main");
      snprintf(name_buf[i], sizeof name_buf[i], "%s_%d", case_names[k], blocks[b]);
      names[i] = name_buf[i];
    }
  cg_check_funcs(stem, fns, names, NULL, N, t, extra, 2);
  int mapped_blocks = 0;
  for (int b = 0; b < 3; b++) {
    int mapped = 0, is_map[CASES];
    for (int k = 0; k < CASES; k++)
      mapped += is_map[k] = cg_code_has(fns[b * CASES + k], names[b * CASES + k], t, "irm_kernel_channel_map_range(");
    if (!mapped) continue;
    mapped_blocks++;
    ck_assert_msg(mapped == MAPPED, "block %d: %d cases mapped", blocks[b], mapped);
    for (int k = 0; k < MAPPED; k++) ck_assert_msg(is_map[k], "%s is no channel map", names[b * CASES + k]);
    /* the shifted slice: one table entry a block, lanes x/2.. of blocks 1 and 2, then padding */
    char entry[128];
    int x = blocks[b];
    snprintf(entry, sizeof entry, "  {0, 1, 0, 2, {%d, ", x / 2);
    ck_assert_msg(cg_code_has(fns[b * CASES + 1], names[b * CASES + 1], t, entry), "no %s", entry);
    snprintf(entry, sizeof entry, "  {0, 2, -1, 0, {%d, ", x / 2);
    ck_assert_msg(cg_code_has(fns[b * CASES + 1], names[b * CASES + 1], t, entry), "no %s", entry);
  }
  ck_assert_int_eq(mapped_blocks, 1);
  for (int i = 0; i < N; i++) irm_object_release(mods[i]);
  irm_object_release(t);
}

START_TEST(maps_plain) { check_target("cmap_plain", "c", "-I'" IRM_KERNELS_DIR "'"); }
END_TEST

START_TEST(maps_native) {
  if (!cg_native_runs_here()) return;
  check_target("cmap_native", "c -mcpu=native", "-march=native -I'" IRM_KERNELS_DIR "'");
}
END_TEST

/* Blocks of 8 (AVX2's two permutes and a blend), where the CPU has it. */
START_TEST(maps_avx2) {
#if defined(__GNUC__) && defined(__x86_64__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return;
  check_target("cmap_avx2", "c -mattr=+avx2,+fma", "-mavx2 -mfma -I'" IRM_KERNELS_DIR "'");
#endif
}
END_TEST

/* The generic lanes (IRM_KV_GENERIC: no intrinsics) move the same data. */
START_TEST(maps_generic_lanes) { check_target("cmap_generic", "c", "-DIRM_KV_GENERIC -I'" IRM_KERNELS_DIR "'"); }
END_TEST

static Suite *codegen_c_channel_map_suite(void) {
  Suite *s = suite_create("codegen_c_channel_map");
  TCase *tc = tcase_create("channel_map");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, maps_plain);
  tcase_add_test(tc, maps_native);
  tcase_add_test(tc, maps_avx2);
  tcase_add_test(tc, maps_generic_lanes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(codegen_c_channel_map_suite()); }
