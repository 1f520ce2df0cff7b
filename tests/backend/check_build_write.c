/* irm_build_write and driver.BuildWrite (build.h): a build's artifacts
 * written into a folder; errors naming the path or the file name. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_build_util.h"

/* executor.codegen of "test-gen": two files, one holding a NUL byte. */
static int test_codegen(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  ck_assert_int_eq(nargs, 2);
  ck_assert(irm_module_is_frozen(args[0].v_obj));
  ck_assert(irm_object_is(args[1].v_obj, IRM_COMPILATION_CONFIG_TYPE_KEY));
  irm_object *text = NULL, *bytes = NULL, *files = NULL;
  int rc = irm_string_format(&text, "// %s\n", irm_module_mod_name(args[0].v_obj));
  if (!rc) rc = irm_string_new("a\0b", 3, &bytes);
  const char *keys[] = {"lib.c", "params.bin"};
  irm_any values[] = {irm_any_object(text), irm_any_object(bytes)};
  if (!rc) rc = irm_map_from_pairs(keys, values, 2, &files);
  irm_object_release(text);
  irm_object_release(bytes);
  if (!rc) *ret = irm_any_object(files);
  return rc;
}

static irm_object *build_with_codegen(void) {
  ck_assert_ok(irm_config_register_kind("executor", "test-gen", NULL));
  irm_kind *k = NULL, *graph = NULL;
  ck_assert_ok(irm_kind_find("executor", "test-gen", &k));
  ck_assert_ok(irm_kind_find("executor", "graph", &graph));
  irm_any pipeline = irm_any_none();
  ck_assert_ok(irm_kind_get_attr(graph, IRM_EXECUTOR_PIPELINE_ATTR, &pipeline));
  ck_assert_ok(irm_kind_set_attr(k, IRM_EXECUTOR_PIPELINE_ATTR, &pipeline, 10));
  irm_any_release(&pipeline);
  irm_object *f = new_packed(test_codegen, NULL, NULL);
  irm_any v = irm_any_object(f);
  ck_assert_ok(irm_kind_set_attr(k, IRM_EXECUTOR_CODEGEN_ATTR, &v, 10));
  irm_object_release(f);
  irm_module *m = parse_module(BUILD_MAIN);
  irm_object *e = bu_executor("test-gen", NULL, irm_any_none()), *result = NULL;
  irm_any t = irm_any_str("c");
  ck_assert_ok(irm_build(m, &t, NULL, e, NULL, NULL, "net", &result));
  irm_object_release(e);
  irm_object_release(m);
  return result;
}

static char *read_file(const char *dir, const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  static char buf[256];
  *len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return buf;
}

START_TEST(test_artifacts_are_written_one_file_each) {
  irm_object *result = build_with_codegen();
  ck_assert_uint_eq(irm_map_size(bu_part(result, "artifacts")), 2);
  char tmpl[] = "/tmp/irm_build_write_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(tmpl));
  char dir[600];
  snprintf(dir, sizeof dir, "%s/out", tmpl); /* made by the call */
  irm_any args[] = {irm_any_object(result), irm_any_str(dir)};
  irm_any ret = call_ok("driver.BuildWrite", args, 2);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  size_t n = 0;
  const char *c = read_file(dir, "lib.c", &n);
  ck_assert_uint_eq(n, 7);
  ck_assert_int_eq(memcmp(c, "// net\n", 7), 0);
  const char *b = read_file(dir, "params.bin", &n);
  ck_assert_uint_eq(n, 3);
  ck_assert_int_eq(memcmp(b, "a\0b", 3), 0);
  char path[700];
  snprintf(path, sizeof path, "%s/lib.c", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/params.bin", dir);
  unlink(path);
  rmdir(dir);
  rmdir(tmpl);
  irm_object_release(result);
}
END_TEST

START_TEST(test_errors_name_the_path) {
  irm_object *result = build_with_codegen();
  ck_assert_error(irm_build_write(result, "/nonexistent-irm-dir/sub"), IRM_ERUNTIME,
                  "RuntimeError: irm_build_write: cannot make the folder '/nonexistent-irm-dir/sub'");
  /* A file name that is not a plain name, before anything is written. */
  irm_object *bad = new_string("x");
  irm_object *files = map1("../evil", irm_any_object(bad));
  const char *keys[] = {"artifacts"};
  irm_any values[] = {irm_any_object(files)};
  irm_object *fake = new_map(keys, values, 1);
  ck_assert_error(irm_build_write(fake, "/tmp"), IRM_EVALUE, "ValueError: irm_build_write: artifact '../evil'");
  ck_assert_error(irm_build_write(bad, "/tmp"), IRM_ETYPE, "TypeError: irm_build_write: expected a build result");
  irm_object_release(fake);
  irm_object_release(files);
  irm_object_release(bad);
  irm_object_release(result);
}
END_TEST

int main(void) {
  Suite *s = suite_create("build_write");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_artifacts_are_written_one_file_each);
  tcase_add_test(tc, test_errors_name_the_path);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
