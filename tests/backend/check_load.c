/* runtime.Load of exported libraries (docs/runtime.md, "Loading"): the
 * one metadata symbol per module, tvmgen_<mod_name>_metadata, found in the
 * library's dynamic symbol table; two modules (one aot, one graph) linked
 * into one library and each loaded by its mod_name; the dispatch on the
 * metadata's executor and its errors; and the runtime's return codes,
 * 0 or negative everywhere. */
#include <dlfcn.h>

#include "check_aot_util.h"
#include "irm/kind.h"
#include "irm_crt.h"
#include "irm_graph_runner.h"
#include "irm_library.h"
#include "irm_params.h"

static irm_object *executor(const char *kind) {
  irm_object *e = NULL;
  ck_assert_ok(irm_executor_create(kind, NULL, &e));
  return e;
}

/* result with its artifacts replaced by files (a Map), NEW. */
static irm_object *with_artifacts(const irm_object *result, const irm_object *files) {
  irm_any v = irm_any_object((irm_object *)files);
  irm_object *out = NULL;
  ck_assert_ok(irm_map_with_set(result, "artifacts", &v, &out));
  return out;
}

/* Exports result (or result with one C file, text) as <tag>/lib.so. */
static void export_as(const irm_object *result, const char *tag, const char *text, char *path, size_t size) {
  aot_path(tag, "lib.so", path, size);
  irm_object *r = (irm_object *)result, *files = NULL;
  if (text) {
    const char *keys[] = {"tvmgen_odd.c"};
    irm_any values[] = {irm_any_str(text)};
    files = new_map(keys, values, 1);
    r = with_artifacts(result, files);
  }
  ck_assert_ok(irm_build_export_library(r, path));
  if (text) {
    irm_object_release(r);
    irm_object_release(files);
  }
}

static void assert_executor(const irm_object *loaded, const char *kind) {
  irm_object *meta = NULL;
  ck_assert_ok(irm_runtime_module_metadata(loaded, &meta));
  char want[64];
  snprintf(want, sizeof want, "\"executor\": \"%s\"", kind);
  ck_assert_msg(strstr(irm_string_data(meta), want) != NULL, "%s not in %s", want, irm_string_data(meta));
  irm_object_release(meta);
}

START_TEST(test_two_modules_link_into_one_library) {
  irm_module *m = aot_example("mlp");
  irm_object *ea = executor("aot"), *eg = executor("graph");
  irm_object *a = aot_build(m, "c", ea, "crt", NULL, "first");
  irm_object *g = aot_build(m, "c", eg, "cpp", NULL, "second");
  /* both modules' files in one library: no symbol of one clashes with the other's */
  irm_object *files = NULL;
  ck_assert_ok(irm_map_with_set(bu_part(a, "artifacts"), "x", &(irm_any){0}, &files));
  ck_assert_ok(irm_map_erase_move(&files, "x"));
  irm_map_iter it = irm_map_iter_begin(bu_part(g, "artifacts"));
  const irm_object *key;
  const irm_any *v;
  while (irm_map_iter_next(&it, &key, &v)) ck_assert_ok(irm_map_set_move(&files, irm_string_data(key), v));
  irm_object *both = with_artifacts(a, files);
  char path[1024];
  export_as(both, "two_modules", NULL, path, sizeof path);
  irm_object *loaded = NULL;
  ck_assert_error(irm_runtime_load(path, &loaded), IRM_EVALUE, "ValueError: runtime.Load: library '");
  ck_assert_error_mentions("holds 2 modules (");
  ck_assert_error_mentions("first");
  ck_assert_error_mentions("second");
  ck_assert_error_mentions("pass the mod_name");
  ck_assert_error(irm_runtime_load_module(path, "third", &loaded), IRM_EVALUE, "ValueError: runtime.Load: library");
  ck_assert_error_mentions("has no module 'third' (no tvmgen_third_metadata)");
  /* the graph runner alone (runtime/) picks the module the same way */
  irm_graph_runner *runner = NULL;
  char err[512];
  ck_assert_int_eq(irm_graph_runner_load(path, &runner, err, sizeof err), IRM_GRAPH_EARG);
  ck_assert_msg(strstr(err, "holds 2 modules") != NULL, "%s", err);
  ck_assert_int_eq(irm_graph_runner_load_module(path, "first", &runner, err, sizeof err), IRM_GRAPH_ELOAD);
  ck_assert_msg(strstr(err, "has no tvmgen_first_graph_json") != NULL, "%s", err);
  ck_assert_int_eq(irm_graph_runner_load_module(path, "second", &runner, err, sizeof err), IRM_GRAPH_OK);
  ck_assert_uint_eq(irm_graph_runner_num_inputs(runner), 1);
  irm_graph_runner_free(runner);
  ck_assert_ok(irm_runtime_load_module(path, "first", &loaded));
  assert_executor(loaded, "aot");
  aot_compare(m, loaded, 1, 3);
  irm_object_release(loaded);
  /* through the global, as Python's irm.runtime.load(path, mod_name) calls it */
  irm_object *load = NULL;
  ck_assert_ok(irm_func_get_global("runtime.Load", &load));
  irm_any args[2] = {irm_any_str(path), irm_any_str("second")}, ret = irm_any_none();
  ck_assert_ok(irm_func_call(load, args, 2, &ret));
  assert_executor(ret.v_obj, "graph");
  aot_compare(m, ret.v_obj, 1, 5);
  irm_any_release(&ret);
  irm_object_release(load);
  irm_object_release(both);
  irm_object_release(files);
  irm_object_release(g);
  irm_object_release(a);
  irm_object_release(eg);
  irm_object_release(ea);
  irm_object_release(m);
}
END_TEST

START_TEST(test_the_metadata_names_the_executor_that_loads_it) {
  irm_module *m = aot_example("mlp");
  irm_object *e = executor("aot");
  irm_object *r = aot_build(m, "c", e, "crt", NULL, "odd");
  char path[1024];
  irm_object *loaded = NULL;
  /* an executor kind that is not registered: named, with the kinds that are */
  export_as(r, "unknown_executor",
            "const char *tvmgen_odd_metadata(void);\n"
            "const char *tvmgen_odd_metadata(void) { return \"{\\\"executor\\\": \\\"nope\\\"}\"; }\n",
            path, sizeof path);
  ck_assert_error(irm_runtime_load(path, &loaded), IRM_EVALUE, "ValueError: runtime.Load: library '");
  ck_assert_error_mentions("was built by executor 'nope'");
  ck_assert_error_mentions("unknown executor kind 'nope'");
  ck_assert_error_mentions("aot, graph");
  /* metadata without an executor */
  export_as(r, "no_executor",
            "const char *tvmgen_odd_metadata(void);\n"
            "const char *tvmgen_odd_metadata(void) { return \"{}\"; }\n",
            path, sizeof path);
  ck_assert_error(irm_runtime_load(path, &loaded), IRM_EVALUE, "ValueError: runtime.Load: library '");
  ck_assert_error_mentions("the metadata of module 'odd' names no \"executor\"");
  /* no metadata symbol: not an irm library */
  export_as(r, "no_metadata", "int tvmgen_odd_other(void);\nint tvmgen_odd_other(void) { return 0; }\n", path,
            sizeof path);
  ck_assert_error(irm_runtime_load(path, &loaded), IRM_EVALUE, "ValueError: runtime.Load: library '");
  ck_assert_error_mentions("has no tvmgen_<mod_name>_metadata: it is not a library exported by irm");
  /* the real one loads through aot's executor.load */
  export_as(r, "odd", NULL, path, sizeof path);
  ck_assert_ok(irm_runtime_load(path, &loaded));
  assert_executor(loaded, "aot");
  irm_object_release(loaded);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_graph_and_aot_register_their_loaders) {
  for (int k = 0; k < 2; k++) {
    irm_kind *kind = NULL;
    irm_any f = irm_any_none();
    ck_assert_ok(irm_kind_find("executor", k ? "graph" : "aot", &kind));
    ck_assert_ok(irm_kind_get_attr(kind, IRM_EXECUTOR_LOAD_ATTR, &f));
    ck_assert(f.type_code == IRM_OBJECT && irm_object_is(f.v_obj, "ffi.Function"));
    irm_any args[4] = {irm_any_str("x.so"), irm_any_str("x"), irm_any_str("{}"), irm_any_int(3)}, ret = irm_any_none();
    ck_assert_error(irm_func_call(f.v_obj, args, 4, &ret), IRM_ETYPE, "TypeError: executor.load of executor '");
    ck_assert_error_mentions("argument 4: expected the library's handle");
    irm_any_release(&f);
  }
}
END_TEST

/* Every code of runtime/ is negative, generated code's included. */
_Static_assert(IRM_CRT_EKERNEL < 0 && IRM_CRT_EARGS < 0 && IRM_CRT_ETYPE < 0 && IRM_CRT_ESHAPE < 0 &&
                   IRM_CRT_ENOPARAMS < 0 && IRM_CRT_EPARAMS < 0,
               "irm_crt.h codes are negative");
_Static_assert(IRM_PARAMS_ETRUNCATED < 0 && IRM_PARAMS_EMAGIC < 0 && IRM_PARAMS_ECOUNT < 0 && IRM_PARAMS_ENDIM < 0 &&
                   IRM_PARAMS_ESIZE < 0 && IRM_PARAMS_EINDEX < 0 && IRM_PARAMS_EDEVICE < 0,
               "irm_params.h codes are negative");
_Static_assert(IRM_GRAPH_EJSON < 0 && IRM_GRAPH_EKERNEL < 0 && IRM_GRAPH_EPARAMS < 0 && IRM_GRAPH_EARG < 0 &&
                   IRM_GRAPH_ENOMEM < 0 && IRM_GRAPH_ELOAD < 0 && IRM_GRAPH_EUNSET < 0,
               "irm_graph_runner.h codes are negative");
_Static_assert(IRM_LIBRARY_ENOSYMTAB < 0 && IRM_LIBRARY_ENAME < 0, "irm_library.h codes are negative");

START_TEST(test_generated_code_returns_negative_codes) {
  irm_module *m = aot_example("mlp");
  irm_object *e = executor("aot");
  irm_object *r = aot_build(m, "c", e, "crt", NULL, "codes");
  char path[1024];
  export_as(r, "codes", NULL, path, sizeof path);
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(lib != NULL, "%s", dlerror());
  void *sym = dlsym(lib, "tvmgen_codes___tvm_main__");
  ck_assert_ptr_nonnull(sym);
  irm_crt_packed_func entry = NULL;
  memcpy(&entry, &sym, sizeof entry);
  irm_crt_value vals[2] = {{0}}, ret;
  int32_t codes[2] = {IRM_CRT_INT, IRM_CRT_INT}, ret_code = 0;
  ck_assert_int_eq(entry(vals, codes, 0, &ret, &ret_code, NULL), IRM_CRT_EARGS);
  ck_assert_int_eq(entry(vals, codes, 2, &ret, &ret_code, NULL), IRM_CRT_ETYPE);
  ck_assert_str_eq(irm_crt_strerror(IRM_CRT_ETYPE), "an argument of the wrong type");
  /* the library lists its one module */
  char names[64];
  size_t count = 0;
  ck_assert_int_eq(irm_library_modules(lib, names, sizeof names, &count), IRM_LIBRARY_OK);
  ck_assert_uint_eq(count, 1);
  ck_assert_str_eq(names, "codes");
  ck_assert_ptr_nonnull(irm_library_symbol(lib, "codes", IRM_LIBRARY_METADATA));
  dlclose(lib);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("load");
  TCase *tc = tcase_create("load");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_two_modules_link_into_one_library);
  tcase_add_test(tc, test_the_metadata_names_the_executor_that_loads_it);
  tcase_add_test(tc, test_graph_and_aot_register_their_loaders);
  tcase_add_test(tc, test_generated_code_returns_negative_codes);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
