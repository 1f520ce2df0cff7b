/* The C generator's pools in NCHW{x}c (backend/codegen/pool.c) compiled
 * and compared with ir.Evaluate: with x the target's kernel block, float32
 * pools call runtime/kernels/irm_kernel_pool.h (target "c": 4 lanes on
 * x86-64; "c -mcpu=native": the machine's width); another x, or another
 * dtype, runs the generic loops. Every attribute variant, NaN taps,
 * windows in padding, maps too small for an interior. */
#include "check_codegen_c_util.h"

#ifndef IRM_KERNELS_DIR
#define IRM_KERNELS_DIR "runtime/kernels"
#endif

#define KERNELS_INCLUDE "-I'" IRM_KERNELS_DIR "'"

/* The window pools' variants (attrs without the layout), on data of shape
 * (n, cb, h, w, x). */
static const struct {
  const char *op, *attrs;
  int n, cb, h, w;
} variants[] = {
    {"nn.max_pool2d", "pool_size=[3, 3], strides=[2, 2], padding=[1, 1]", 1, 2, 13, 12},
    {"nn.max_pool2d", "pool_size=[2, 2], strides=[2, 2]", 2, 1, 8, 8},
    {"nn.max_pool2d", "pool_size=[3, 3], strides=[2, 2], ceil_mode=true", 1, 2, 11, 12},
    {"nn.max_pool2d", "pool_size=[3, 3], strides=[2, 1], dilation=[2, 3], padding=[2, 3]", 1, 1, 13, 15},
    {"nn.max_pool2d", "pool_size=[1, 1], padding=[2, 2]", 1, 1, 3, 2},       /* windows all padding */
    {"nn.max_pool2d", "pool_size=[2, 2], padding=[3, 1, 2, 3]", 1, 2, 4, 5}, /* padding > window */
    {"nn.max_pool2d", "pool_size=[3, 3], padding=[1, 1]", 1, 3, 1, 1},       /* no interior */
    {"nn.avg_pool2d", "pool_size=[3, 3], strides=[2, 2], padding=[1, 1]", 1, 2, 11, 12},
    {"nn.avg_pool2d", "pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=true", 2, 1, 11, 12},
    {"nn.avg_pool2d", "pool_size=[3, 3], strides=[3, 2], padding=[1, 2], count_include_pad=true, ceil_mode=true", 1, 2,
     10, 11},
    {"nn.avg_pool2d", "pool_size=[3, 3], strides=[3, 2], padding=[1, 2], ceil_mode=true", 1, 2, 10, 11},
    {"nn.avg_pool2d", "pool_size=[2, 3], dilation=[3, 2], padding=[1, 1], count_include_pad=true", 1, 1, 12, 12},
    {"nn.avg_pool2d", "pool_size=[2, 2], padding=[3, 1, 2, 3], count_include_pad=true", 1, 2, 4, 5},
    {"nn.avg_pool2d", "pool_size=[2, 2], padding=[3, 1, 2, 3]", 1, 2, 4, 5},
};
#define N_VARIANTS (sizeof variants / sizeof variants[0])
#define N_CASES (N_VARIANTS + 7)

/* The cases of one layout block x and dtype into texts/cases (N_CASES):
 * every variant, the global pools, NaN taps through sqrt, an epilogue. */
static size_t make_cases(const char *prefix, int x, const char *dt, char texts[][512], char names[][64],
                         cg_case *cases) {
  size_t k = 0;
  for (size_t v = 0; v < N_VARIANTS; v++, k++)
    snprintf(texts[k], 512,
             "def @main(%%a: Tensor[(%d, %d, %d, %d, %d), %s]) { %%0 = %s(%%a, %s, layout=\"NCHW%dc\"); %%0 }",
             variants[v].n, variants[v].cb, variants[v].h, variants[v].w, x, dt, variants[v].op, variants[v].attrs, x);
  snprintf(texts[k++], 512,
           "def @main(%%a: Tensor[(2, 3, 5, 6, %d), %s]) { %%0 = nn.global_avg_pool2d(%%a, layout=\"NCHW%dc\"); %%0 }",
           x, dt, x);
  snprintf(texts[k++], 512,
           "def @main(%%a: Tensor[(2, 2, 7, 3, %d), %s]) { %%0 = nn.global_max_pool2d(%%a, layout=\"NCHW%dc\"); %%0 }",
           x, dt, x);
  snprintf(texts[k++], 512,
           "def @main(%%a: Tensor[(1, 1, 1, 1, %d), %s]) { %%0 = nn.global_avg_pool2d(%%a, layout=\"NCHW%dc\"); %%0 }",
           x, dt, x);
  int fl = strncmp(dt, "float", 5) == 0;
  /* sqrt of the negative half of the inputs: NaN taps everywhere (ints: negative, which the max must see) */
  snprintf(texts[k++], 512,
           "def @main(%%a: Tensor[(1, 2, 10, 11, %d), %s]) {\n  %%0 = %s(%%a);\n"
           "  %%1 = nn.max_pool2d(%%0, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout=\"NCHW%dc\"); %%1 }",
           x, dt, fl ? "sqrt" : "negative", x);
  snprintf(texts[k++], 512,
           "def @main(%%a: Tensor[(1, 2, 4, 5, %d), %s]) {\n  %%0 = %s(%%a);\n"
           "  %%1 = nn.global_max_pool2d(%%0, layout=\"NCHW%dc\"); %%1 }",
           x, dt, fl ? "sqrt" : "negative", x);
  snprintf(texts[k++], 512,
           "def @main(%%a: Tensor[(1, 2, 6, 6, %d), %s]) {\n  %%0 = %s(%%a);\n"
           "  %%1 = nn.avg_pool2d(%%0, pool_size=[2, 2], padding=[1, 1], layout=\"NCHW%dc\"); %%1 }",
           x, dt, fl ? "sqrt" : "negative", x);
  /* the pool writes the output in place of its own buffer, then relu and the add update it */
  snprintf(texts[k++], 512,
           "def @main(%%a: Tensor[(1, 2, 7, 7, %d), %s]) {\n"
           "  %%0 = nn.max_pool2d(%%a, pool_size=[3, 3], strides=[2, 2], layout=\"NCHW%dc\");\n"
           "  %%1 = nn.relu(%%0); %%2 = add(%%1, %%1); %%2 }",
           x, dt, x);
  for (size_t i = 0; i < k; i++) {
    snprintf(names[i], 64, "%.40s_%zu", prefix, i);
    cases[i] = (cg_case){names[i], texts[i], 2e-5};
  }
  return k;
}

/* Whether the code generated for text on target calls the pool kernels. */
static int calls_kernels(const char *text, irm_target *target) {
  irm_module *m = cg_typed(text);
  irm_object *k = cg_kernel(irm_module_function(m, "main"), "probe", target);
  ck_require(k != NULL, "codegen failed: %s", irm_last_error());
  const char *code = cg_map_str(k, "code");
  int yes = strstr(code, "irm_kernel_pool_range(") || strstr(code, "irm_kernel_global_pool_range(");
  irm_object_release(k);
  irm_object_release(m);
  return yes;
}

/* One layout block and dtype. */
typedef struct block_dt {
  int x;
  const char *dt;
} block_dt;

#define MAX_CONFIGS 4

/* All cases of each (block, dtype) of configs (n of them) on target
 * (NULL: "c"), compiled together with extra; kernels: whether every case
 * must (1) or must not (0) call the kernels. */
static void check_blocks(const char *stem, const block_dt *configs, size_t n, const char *target_text,
                         const char *extra, int kernels) {
  static char texts[MAX_CONFIGS * N_CASES][512], names[MAX_CONFIGS * N_CASES][64];
  cg_case cases[MAX_CONFIGS * N_CASES];
  irm_target *t = NULL;
  if (target_text) ck_assert_ok(irm_target_parse(target_text, &t));
  size_t total = 0;
  for (size_t c = 0; c < n; c++) {
    char prefix[48];
    snprintf(prefix, sizeof prefix, "%s_%s%d", stem, configs[c].dt, configs[c].x);
    total += make_cases(prefix, configs[c].x, configs[c].dt, texts + total, names + total, cases + total);
  }
  for (size_t i = 0; i < total; i++)
    ck_require(calls_kernels(texts[i], t) == kernels, "%s: expected %s:\n%s", names[i],
               kernels ? "the pool kernels" : "the generic loops", texts[i]);
  cg_check_cases(stem, cases, total, t, extra, 2);
  irm_object_release(t);
}

/* Target "c": IRM_KERNEL_BLOCK 4 on x86-64 (SSE2) and AArch64 (NEON). */
START_TEST(kernels_block_4) {
  static const block_dt k4[] = {{4, "float32"}};
  check_blocks("pnc_k4", k4, 1, NULL, KERNELS_INCLUDE, 1);
}
END_TEST

/* "c -mcpu=native": the machine's width (16 with AVX-512, 8 with AVX2 and FMA). */
static int native_block(void) {
#if defined(__GNUC__) && defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 16;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 8;
#endif
  return 4;
}

START_TEST(kernels_native) {
#if defined(__x86_64__)
  if (!cg_native_runs_here()) return;
  const block_dt native[] = {{native_block(), "float32"}};
  check_blocks("pnc_kn", native, 1, "c -mcpu=native", "-march=native " KERNELS_INCLUDE, 1);
#endif
}
END_TEST

/* A block that is not the target's, and dtypes the kernels do not take: the loops. */
START_TEST(loops_other_blocks) {
  static const block_dt other[] = {{8, "float32"}, {3, "float32"}, {1, "float32"}};
  check_blocks("pnc_lb", other, 3, NULL, NULL, 0);
}
END_TEST

START_TEST(loops_other_dtypes) {
  static const block_dt other[] = {{4, "int8"}, {4, "float64"}, {2, "int32"}, {4, "uint8"}};
  check_blocks("pnc_ld", other, 4, NULL, NULL, 0);
}
END_TEST

/* resnet's stem pool and its final global pool, 64 channels, on each kernel width. */
START_TEST(resnet_pools) {
  static const char *const fmt[] = {
      "def @main(%%a: Tensor[(1, %d, 112, 112, %d), float32]) {\n"
      "  %%0 = nn.max_pool2d(%%a, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout=\"NCHW%dc\"); %%0 }",
      "def @main(%%a: Tensor[(1, %d, 7, 7, %d), float32]) {\n"
      "  %%0 = nn.global_avg_pool2d(%%a, layout=\"NCHW%dc\"); %%0 }",
  };
  char texts[2][512];
  cg_case cases[2];
  for (int i = 0; i < 2; i++) {
    snprintf(texts[i], sizeof texts[i], fmt[i], 64 / 4, 4, 4);
    cases[i] = (cg_case){i ? "rn_gap" : "rn_max", texts[i], 1e-5};
    ck_assert(calls_kernels(texts[i], NULL));
  }
  cg_check_cases("pnc_resnet", cases, 2, NULL, KERNELS_INCLUDE, 1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_c_pool_nchwc");
  /* One case per test, so that CK_RUN_CASE runs one alone. */
  const struct {
    const char *name;
    const TTest *test;
  } tests[] = {
      {"kernels_block_4", kernels_block_4},
      {"kernels_native", kernels_native},
      {"loops_other_blocks", loops_other_blocks},
      {"loops_other_dtypes", loops_other_dtypes},
      {"resnet_pools", resnet_pools},
  };
  for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
    TCase *tc = tcase_create(tests[i].name);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, tests[i].test);
    suite_add_tcase(s, tc);
  }
  return run_suite(s);
}
