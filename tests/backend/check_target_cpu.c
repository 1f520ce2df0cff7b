/* The CPU a build is for (docs/build.md, "The CPU"): -mcpu=native
 * resolved at build to the CPU cc names plus the features native adds, and
 * recorded in the built module's target; the features the code may use
 * listed in the library's metadata; a library built for features this
 * machine lacks refused at load, naming them, before any of its code runs;
 * -mcpu=generic builds and loads anywhere. */
#include "check_aot_util.h"
#include "irm/target.h"
#include "irm_graph_runner.h"
#include "irm_library.h"

/* The built module's target text (NEW String). */
static irm_object *built_target(const irm_object *result) {
  const irm_object *mod = bu_part(result, "module");
  irm_object *text = NULL;
  ck_assert_ok(irm_target_as_string(irm_module_target(mod), &text));
  return text;
}

static irm_object *aot(void) {
  irm_object *e = NULL;
  ck_assert_ok(irm_executor_create("aot", NULL, &e));
  return e;
}

/* The loaded module's metadata "target_features" into out. */
static void loaded_features(const irm_object *loaded, char *out, size_t size) {
  irm_object *meta = NULL;
  ck_assert_ok(irm_runtime_module_metadata(loaded, &meta));
  ck_assert_int_eq(irm_library_metadata_features(irm_string_data(meta), out, size), IRM_LIBRARY_OK);
  irm_object_release(meta);
}

START_TEST(test_native_is_resolved_and_recorded) {
  irm_module *m = aot_example("mlp");
  irm_object *e = aot();
  irm_object *r = aot_build(m, "c -mcpu=native", e, "crt", NULL, "native");
  irm_object *text = built_target(r);
  const char *t = irm_string_data(text);
  ck_assert_msg(strstr(t, "-mcpu=") != NULL && strstr(t, "-mcpu=native") == NULL, "not resolved: %s", t);
#if defined(__x86_64__)
  /* whatever the CPU's name, the features it has are on: named or as -mattr */
  char lacking[64];
  if (irm_library_missing_features("avx2", lacking, sizeof lacking) == 0) {
    char path[1024];
    aot_path("native", "lib.so", path, sizeof path);
    ck_assert_ok(irm_build_export_library(r, path));
    irm_object *loaded = NULL;
    int rc = irm_runtime_load(path, &loaded);
    if (rc) {
      /* this process runs on another CPU than cc saw: valgrind's emulated
       * one has no AVX-512; the loader must refuse, naming what lacks */
      ck_assert_int_eq(rc, IRM_ERUNTIME);
      ck_assert_error_mentions("was built for CPU features this machine lacks: ");
    } else {
      char features[1024];
      loaded_features(loaded, features, sizeof features);
      ck_assert_msg(strstr(features, "avx2") != NULL, "avx2 not in '%s' (target %s)", features, t);
      aot_compare(m, loaded, 1, 7);
      irm_object_release(loaded);
    }
  }
#endif
  irm_object_release(text);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_generic_is_the_baseline) {
  irm_module *m = aot_example("mlp");
  irm_object *e = aot();
  irm_object *r = aot_build(m, "c -mcpu=generic", e, "crt", NULL, "generic");
  irm_object *loaded = aot_export_load(r, "generic");
  char features[1024];
  loaded_features(loaded, features, sizeof features);
#if defined(__x86_64__)
  ck_assert_msg(strstr(features, "sse2") != NULL, "features '%s'", features);
  ck_assert_msg(strstr(features, "avx") == NULL, "generic code uses avx: '%s'", features);
#endif
  char missing[256];
  ck_assert_uint_eq(irm_library_missing_features(features, missing, sizeof missing), 0);
  aot_compare(m, loaded, 1, 11);
  irm_object_release(loaded);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* A feature this CPU lacks that cc can target, or NULL. */
static const char *lacking_feature(void) {
  static const char *const candidates[] = {"avx512fp16", "avxvnni", "avx512bf16", "avx512vnni"};
  char missing[64];
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
    if (irm_library_missing_features(candidates[i], missing, sizeof missing)) return candidates[i];
  return NULL;
}

/* The runtime reads CPUID itself (compilers' __builtin_cpu_supports know
 * different names); where GCC's knows a name, both must agree. */
START_TEST(test_cpuid_agrees_with_the_compiler) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__)
  char missing[64];
  __builtin_cpu_init();
#define AGREE_(n)                                                                                                    \
  ck_assert_msg((irm_library_missing_features(n, missing, sizeof missing) == 0) == (__builtin_cpu_supports(n) != 0), \
                "%s: the runtime and __builtin_cpu_supports disagree", n)
  AGREE_("sse2");
  AGREE_("sse3");
  AGREE_("ssse3");
  AGREE_("sse4.1");
  AGREE_("sse4.2");
  AGREE_("avx");
  AGREE_("avx2");
  AGREE_("fma");
  AGREE_("f16c");
  AGREE_("avx512f");
  AGREE_("avx512cd");
  AGREE_("avx512bw");
  AGREE_("avx512dq");
  AGREE_("avx512vl");
  AGREE_("avx512vnni");
  AGREE_("avx512bf16");
  AGREE_("avx512fp16");
  AGREE_("avxvnni");
#undef AGREE_
#endif
}
END_TEST

START_TEST(test_missing_features_refused_at_load) {
  const char *lack = lacking_feature();
  if (!lack) return; /* this CPU has every feature the check could name */
  irm_module *m = aot_example("mlp");
  irm_object *e = aot();
  char target[128], path[1024];
  snprintf(target, sizeof target, "c -mattr=+%s", lack);
  irm_object *r = aot_build(m, target, e, "crt", NULL, "lacking");
  aot_path("lacking", "lib.so", path, sizeof path);
  ck_assert_ok(irm_build_export_library(r, path));
  irm_object *loaded = NULL;
  ck_assert_error(irm_runtime_load(path, &loaded), IRM_ERUNTIME, "RuntimeError: runtime.Load: library '");
  ck_assert_error_mentions("module 'lacking' was built for CPU features this machine lacks: ");
  ck_assert_error_mentions(lack);
  ck_assert_error_mentions("-mcpu=native");
  ck_assert_ptr_null(loaded);
  /* the graph runner alone (runtime/) refuses a graph module the same way */
  irm_object *g = NULL;
  ck_assert_ok(irm_executor_create("graph", NULL, &g));
  irm_object *rg = aot_build(m, target, g, "cpp", NULL, "lacking_graph");
  aot_path("lacking_graph", "lib.so", path, sizeof path);
  ck_assert_ok(irm_build_export_library(rg, path));
  irm_graph_runner *runner = NULL;
  char err[512];
  ck_assert_int_eq(irm_graph_runner_load(path, &runner, err, sizeof err), IRM_GRAPH_ELOAD);
  ck_assert_ptr_null(runner);
  ck_assert_msg(strstr(err, "was built for CPU features this machine lacks: ") && strstr(err, lack), "%s", err);
  irm_object_release(rg);
  irm_object_release(g);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_missing_features_list) {
  char missing[64];
  ck_assert_uint_eq(irm_library_missing_features(NULL, missing, sizeof missing), 0);
  ck_assert_str_eq(missing, "");
  ck_assert_uint_eq(irm_library_missing_features("", missing, sizeof missing), 0);
  /* names this runtime cannot check count as missing: running would be a gamble */
  ck_assert_uint_eq(irm_library_missing_features("warp9,teleport", missing, sizeof missing), 2);
  ck_assert_str_eq(missing, "warp9, teleport");
  ck_assert_uint_eq(irm_library_missing_features("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z", missing, 16),
                    26);
  ck_assert_str_eq(missing + strlen(missing) - 3, "...");
#if defined(__x86_64__)
  ck_assert_uint_eq(irm_library_missing_features("sse2", missing, sizeof missing), 0);
#endif
}
END_TEST

START_TEST(test_metadata_features_read) {
  char out[32];
  ck_assert_int_eq(irm_library_metadata_features("{\"executor\": \"aot\"}", out, sizeof out), IRM_LIBRARY_OK);
  ck_assert_str_eq(out, "");
  ck_assert_int_eq(irm_library_metadata_features("{\"target_features\": \"sse2,avx\"}", out, sizeof out),
                   IRM_LIBRARY_OK);
  ck_assert_str_eq(out, "sse2,avx");
  /* too long to copy whole: refused, never cut (a cut list checks too little) */
  ck_assert_int_eq(
      irm_library_metadata_features("{\"target_features\": \"sse2,sse3,ssse3,sse4.1,sse4.2,avx,avx2\"}", out, 16),
      IRM_LIBRARY_ENAME);
  ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_unknown_cpu_fails_at_export_with_the_compiler_s_words) {
  irm_module *m = aot_example("mlp");
  irm_object *e = aot();
  irm_object *r = aot_build(m, "c -mcpu=notacpu", e, "crt", NULL, "notacpu");
  char path[1024];
  aot_path("notacpu", "lib.so", path, sizeof path);
  ck_assert_error(irm_build_export_library(r, path), IRM_ERUNTIME, "RuntimeError: export_library: the compiler failed");
  ck_assert_error_mentions("notacpu");
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("target_cpu");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_native_is_resolved_and_recorded);
  tcase_add_test(tc, test_generic_is_the_baseline);
  tcase_add_test(tc, test_missing_features_refused_at_load);
  tcase_add_test(tc, test_missing_features_list);
  tcase_add_test(tc, test_cpuid_agrees_with_the_compiler);
  tcase_add_test(tc, test_metadata_features_read);
  tcase_add_test(tc, test_unknown_cpu_fails_at_export_with_the_compiler_s_words);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
