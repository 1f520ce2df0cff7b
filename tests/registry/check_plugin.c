/* The plugin loader (irm/plugin.h): loading, refusing, rolling back. The
 * example plugins come from examples/plugins (paths given by CMake). */
#include <stdio.h>
#include <unistd.h>

#include "check_plugin_util.h"

/* ---- helpers ------------------------------------------------------------- */

/* The registries are as in before (released here) and n plugins are loaded. */
static void assert_left_as(irm_object *before, size_t n_loaded) {
  irm_object *after = registry_snapshot(), *list = NULL;
  assert_same_registries(before, after);
  ck_assert_ok(irm_plugin_list(&list));
  ck_assert_uint_eq(irm_array_size(list), n_loaded);
  irm_object_release(list);
  irm_object_release(before);
  irm_object_release(after);
}

static const char *info_field(const irm_object *info, const char *key) {
  const irm_any *v = irm_map_find_cstr(info, key);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(v->type_code, IRM_OBJECT);
  return irm_string_data(v->v_obj);
}

/* A module with the given target (text) and executor kind (NULL: none). */
static irm_module *module_for(const char *target_text, const char *executor_kind) {
  irm_target *target = NULL;
  irm_executor *executor = NULL;
  ck_assert_ok(irm_target_parse(target_text, &target));
  if (executor_kind) ck_assert_ok(irm_executor_create(executor_kind, NULL, &executor));
  const char *keys[] = {"target", "executor"};
  irm_any values[] = {irm_any_object(target), irm_any_object(executor)};
  irm_object *attrs = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, values, executor ? 2 : 1, &attrs));
  irm_module *mod = NULL;
  ck_assert_ok(irm_module_new(NULL, attrs, &mod));
  irm_object_release(attrs);
  irm_object_release(target);
  irm_object_release(executor);
  return mod;
}

/* Runs ChooseDataLayout in a Sequential on mod; the chosen layout. */
static const char *run_choose_layout(irm_module *mod, char *buf, size_t size) {
  irm_pass *pass = NULL, *seq = NULL;
  irm_module *out = NULL;
  ck_assert_ok(irm_pass_get("ChooseDataLayout", NULL, &pass));
  ck_assert_ok(irm_sequential_new(&pass, 1, 0, NULL, &seq));
  ck_assert_ok(irm_pass_run(seq, mod, &out));
  irm_any layout = irm_any_none();
  ck_assert_ok(irm_module_get_attr(out, "data_layout", &layout));
  ck_assert_int_eq(layout.type_code, IRM_OBJECT);
  snprintf(buf, size, "%s", irm_string_data(layout.v_obj));
  irm_any_release(&layout);
  irm_object_release(out);
  irm_object_release(seq);
  irm_object_release(pass);
  return buf;
}

/* ---- failures ------------------------------------------------------------- */

START_TEST(test_load_missing_file_names_path) {
  ck_assert_error(irm_plugin_load("/nonexistent/dir/nope.so"), IRM_EPLUGIN, "PluginError: ");
  ck_assert_error_mentions("/nonexistent/dir/nope.so");
  ck_assert_error_mentions("does not exist");
}
END_TEST

START_TEST(test_load_null_path_is_value_error) { ck_assert_error(irm_plugin_load(NULL), IRM_EVALUE, "ValueError: "); }
END_TEST

START_TEST(test_load_non_library_reports_dlerror) {
  char path[] = "/tmp/irm_not_a_library_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_gt(write(fd, "hello, I am text\n", 17), 0);
  close(fd);
  int rc = irm_plugin_load(path);
  unlink(path);
  ck_assert_error(rc, IRM_EPLUGIN, "PluginError: ");
  ck_assert_error_mentions(path);
  ck_assert_error_mentions("dlopen failed: ");
  ck_assert_error_mentions(path); /* dlerror names the file too */
}
END_TEST

START_TEST(test_load_library_without_entry_point) {
  ck_assert_error(irm_plugin_load(IRM_TEST_NO_ENTRY_PLUGIN), IRM_EPLUGIN, "PluginError: ");
  ck_assert_error_mentions(IRM_TEST_NO_ENTRY_PLUGIN);
  ck_assert_error_mentions("does not export irm_plugin_info_get");
}
END_TEST

START_TEST(test_load_wrong_abi_gives_both_versions_and_registers_nothing) {
  irm_object *before = registry_snapshot();
  ck_assert_error(irm_plugin_load(IRM_TEST_WRONG_ABI_PLUGIN), IRM_EPLUGIN, "PluginError: ");
  ck_assert_error_mentions(IRM_TEST_WRONG_ABI_PLUGIN);
  char versions[96];
  snprintf(versions, sizeof versions, "ABI version %u (this irm supports ABI version %u)", IRM_PLUGIN_ABI_VERSION + 1,
           IRM_PLUGIN_ABI_VERSION);
  ck_assert_error_mentions(versions);
  ck_assert(!global_exists("wrong_abi.Answer")); /* its macro's registration was dropped */
  irm_object *after = registry_snapshot();
  assert_same_registries(before, after);
  irm_object *list = NULL;
  ck_assert_ok(irm_plugin_list(&list));
  ck_assert_uint_eq(irm_array_size(list), 0);
  irm_object_release(list);
  irm_object_release(before);
  irm_object_release(after);
}
END_TEST

START_TEST(test_failing_init_reports_its_message_and_rolls_everything_back) {
  irm_object *before = registry_snapshot();
  ck_assert_error(irm_plugin_load(IRM_TEST_BROKEN_PLUGIN), IRM_EPLUGIN, "PluginError: ");
  ck_assert_error_mentions(IRM_TEST_BROKEN_PLUGIN);
  ck_assert_error_mentions("init failed: ValueError: broken plugin: the flux capacitor is missing");
  irm_object *after = registry_snapshot();
  assert_same_registries(before, after);
  ck_assert(!global_exists("broken.Hello"));
  ck_assert(!global_exists("broken.MacroAnswer"));
  int32_t index = -1;
  ck_assert_error(irm_type_find("broken.Thing", &index), IRM_EKEY, "KeyError: type 'broken.Thing' is not registered");
  ck_assert_error(irm_type_find("broken.OldThing", &index), IRM_EKEY,
                  "KeyError: type 'broken.OldThing' is not registered");
  irm_any v = irm_any_none(); /* its config aliases went too, that of a built-in option as well */
  ck_assert_error(irm_pass_get_config(NULL, "broken.usmp", &v), IRM_EATTR, "AttributeError: ");
  ck_assert_error(irm_pass_get_config(NULL, "broken.level", &v), IRM_EATTR, "AttributeError: ");
  irm_kind *graph = NULL;
  ck_assert_ok(irm_kind_find("executor", "graph", &graph));
  irm_any marker = irm_any_none();
  int rc = irm_kind_get_attr(graph, "broken_marker", &marker);
  ck_assert(rc == IRM_EATTR || (rc == 0 && marker.type_code == IRM_NONE));
  irm_object *list = NULL;
  ck_assert_ok(irm_plugin_list(&list));
  ck_assert_uint_eq(irm_array_size(list), 0);
  irm_object_release(list);
  irm_object_release(before);
  irm_object_release(after);
}
END_TEST

START_TEST(test_failing_init_fails_again_on_reload_and_still_leaves_nothing) {
  irm_object *before = registry_snapshot();
  ck_assert_error(irm_plugin_load(IRM_TEST_BROKEN_PLUGIN), IRM_EPLUGIN, "PluginError: ");
  /* The second init registers its type and the type's former key afresh. */
  ck_assert_error(irm_plugin_load(IRM_TEST_BROKEN_PLUGIN), IRM_EPLUGIN, "PluginError: ");
  ck_assert_error_mentions("the flux capacitor is missing");
  irm_object *after = registry_snapshot();
  assert_same_registries(before, after);
  irm_object_release(before);
  irm_object_release(after);
}
END_TEST

START_TEST(test_clash_names_the_plugin_that_registered_first_and_rolls_back) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_PASS_PLUGIN));
  irm_object *before = registry_snapshot();
  ck_assert_error(irm_plugin_load(IRM_TEST_CLASH_PLUGIN), IRM_EPLUGIN, "PluginError: ");
  ck_assert_error_mentions("('clash'): init failed: KeyError: module attribute key 'data_layout' is already "
                           "registered (by plugin 'choose-data-layout') as (str, not pass-invariant)");
  ck_assert(!global_exists("clash.Greeting"));
  assert_left_as(before, 1);
}
END_TEST

START_TEST(test_built_in_names_are_nobodys_in_clash_messages) {
  ck_assert_error(irm_module_attr_register("mod_name", "int", 0), IRM_EKEY, "KeyError: ");
  ck_assert(strstr(irm_last_error(), "by plugin") == NULL);
}
END_TEST

START_TEST(test_failed_load_through_global_is_plugin_error) {
  irm_any arg = irm_any_str("/nonexistent/p.so"), ret = irm_any_none();
  ck_assert_error(irm_func_call_global("plugin.Load", &arg, 1, &ret), IRM_EPLUGIN, "PluginError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
}
END_TEST

/* ---- loading --------------------------------------------------------------- */

START_TEST(test_load_twice_returns_same_info) {
  irm_object *first = NULL, *second = NULL;
  ck_assert_ok(irm_plugin_load_info(IRM_TEST_PASS_PLUGIN, &first));
  ck_assert_ok(irm_plugin_load_info(IRM_TEST_PASS_PLUGIN, &second));
  ck_assert_ptr_eq(first, second);
  ck_assert_str_eq(info_field(first, "name"), "choose-data-layout");
  ck_assert_str_eq(info_field(first, "version"), "1.0.0");
  char *real = realpath(IRM_TEST_PASS_PLUGIN, NULL);
  ck_assert_str_eq(info_field(first, "path"), real);
  free(real);
  ck_assert_ok(irm_plugin_load(IRM_TEST_PASS_PLUGIN));
  irm_object *list = NULL;
  ck_assert_ok(irm_plugin_list(&list));
  ck_assert_uint_eq(irm_array_size(list), 1);
  irm_object_release(list);
  irm_object_release(first);
  irm_object_release(second);
}
END_TEST

START_TEST(test_load_through_other_path_to_same_file_is_noop) {
  char alias[4096];
  snprintf(alias, sizeof alias, "%s/./%s", IRM_TEST_PLUGIN_DIR, "pass_plugin.so");
  irm_object *first = NULL, *second = NULL;
  ck_assert_ok(irm_plugin_load_info(IRM_TEST_PASS_PLUGIN, &first));
  ck_assert_ok(irm_plugin_load_info(alias, &second));
  ck_assert_ptr_eq(first, second);
  irm_object_release(first);
  irm_object_release(second);
}
END_TEST

START_TEST(test_globals_load_and_list) {
  irm_any arg = irm_any_str(IRM_TEST_EXECUTOR_PLUGIN), info = irm_any_none();
  ck_assert_ok(irm_func_call_global("plugin.Load", &arg, 1, &info));
  ck_assert_int_eq(info.type_code, IRM_OBJECT);
  ck_assert(irm_object_is(info.v_obj, "ffi.Map"));
  ck_assert_str_eq(info_field(info.v_obj, "name"), "micro-aot-executor");
  ck_assert_str_eq(info_field(info.v_obj, "version"), "0.3.1");
  ck_assert_ok(irm_plugin_load(IRM_TEST_PASS_PLUGIN));
  irm_object *list = call_global0("plugin.List");
  ck_assert(irm_object_is(list, "ffi.Array"));
  ck_assert_uint_eq(irm_array_size(list), 2);
  ck_assert_ptr_eq(irm_array_at(list, 0)->v_obj, info.v_obj); /* load order */
  ck_assert_str_eq(info_field(irm_array_at(list, 1)->v_obj, "name"), "choose-data-layout");
  irm_object_release(list);
  irm_any_release(&info);
}
END_TEST

/* A rules file is a plugin too: listed in load order among the shared
 * objects, with its file name and an empty version; a failed one is not. */
START_TEST(test_rules_files_are_listed_in_load_order) {
  char dir[] = "/tmp/irm_plugin_rules_XXXXXX", path[4200], bad[4200];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/listed.rules", dir);
  snprintf(bad, sizeof bad, "%s/broken.rules", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("pass ListedRules {\n  rule r : nn.relu(%x) => %x\n}\n", f);
  fclose(f);
  f = fopen(bad, "w");
  ck_assert_ptr_nonnull(f);
  fputs("pass BrokenRules {\n  rule r : nn.relu(%x) %x\n}\n", f);
  fclose(f);
  ck_assert_ok(irm_plugin_load(IRM_TEST_EXECUTOR_PLUGIN));
  ck_assert_ok(irm_plugin_load(path));
  ck_assert_int_eq(irm_plugin_load(bad), IRM_EPLUGIN);
  ck_assert_ok(irm_plugin_load(IRM_TEST_PASS_PLUGIN));
  ck_assert_ok(irm_plugin_load(path)); /* again: a no-op, listed once */
  irm_object *list = call_global0("plugin.List");
  ck_assert_uint_eq(irm_array_size(list), 3);
  ck_assert_str_eq(info_field(irm_array_at(list, 0)->v_obj, "name"), "micro-aot-executor");
  ck_assert_str_eq(info_field(irm_array_at(list, 1)->v_obj, "name"), "listed.rules");
  ck_assert_str_eq(info_field(irm_array_at(list, 1)->v_obj, "version"), "");
  char *real = realpath(path, NULL);
  ck_assert_str_eq(info_field(irm_array_at(list, 1)->v_obj, "path"), real);
  free(real);
  ck_assert_str_eq(info_field(irm_array_at(list, 2)->v_obj, "name"), "choose-data-layout");
  irm_object_release(list);
  remove(path);
  remove(bad);
  rmdir(dir);
}
END_TEST

START_TEST(test_load_from_env_with_file) {
  ck_assert_int_eq(setenv("IRM_PLUGIN_PATH", "::" IRM_TEST_EXECUTOR_PLUGIN ":", 1), 0);
  ck_assert_ok(irm_plugin_load_from_env());
  ck_assert_ok(irm_plugin_load_from_env()); /* twice: a no-op */
  irm_object *list = NULL;
  ck_assert_ok(irm_plugin_list(&list));
  ck_assert_uint_eq(irm_array_size(list), 1);
  ck_assert_str_eq(info_field(irm_array_at(list, 0)->v_obj, "name"), "micro-aot-executor");
  irm_object_release(list);
}
END_TEST

START_TEST(test_load_from_env_unset_does_nothing) {
  unsetenv("IRM_PLUGIN_PATH");
  ck_assert_ok(irm_plugin_load_from_env());
}
END_TEST

START_TEST(test_load_from_env_folder_loads_sorted_so_files) {
  char dir[] = "/tmp/irm_plugin_dir_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char a[4200], b[4200], txt[4200];
  snprintf(a, sizeof a, "%s/b_pass.so", dir);
  snprintf(b, sizeof b, "%s/a_executor.so", dir);
  snprintf(txt, sizeof txt, "%s/readme.txt", dir);
  ck_assert_int_eq(symlink(IRM_TEST_PASS_PLUGIN, a), 0);
  ck_assert_int_eq(symlink(IRM_TEST_EXECUTOR_PLUGIN, b), 0);
  FILE *f = fopen(txt, "w");
  ck_assert_ptr_nonnull(f);
  fputs("not a plugin\n", f);
  fclose(f);
  ck_assert_int_eq(setenv("IRM_PLUGIN_PATH", dir, 1), 0);
  int rc = irm_plugin_load_from_env();
  unlink(a);
  unlink(b);
  unlink(txt);
  rmdir(dir);
  ck_assert_ok(rc);
  irm_object *list = NULL;
  ck_assert_ok(irm_plugin_list(&list));
  ck_assert_uint_eq(irm_array_size(list), 2);
  ck_assert_str_eq(info_field(irm_array_at(list, 0)->v_obj, "name"), "micro-aot-executor");
  ck_assert_str_eq(info_field(irm_array_at(list, 1)->v_obj, "name"), "choose-data-layout");
  irm_object_release(list);
}
END_TEST

START_TEST(test_load_from_env_stops_at_failure_with_context) {
  ck_assert_int_eq(setenv("IRM_PLUGIN_PATH", IRM_TEST_PASS_PLUGIN ":/nonexistent/x.so:" IRM_TEST_EXECUTOR_PLUGIN, 1),
                   0);
  ck_assert_error(irm_plugin_load_from_env(), IRM_EPLUGIN, "PluginError: IRM_PLUGIN_PATH: ");
  ck_assert_error_mentions("/nonexistent/x.so");
  irm_object *list = NULL;
  ck_assert_ok(irm_plugin_list(&list));
  ck_assert_uint_eq(irm_array_size(list), 1);
  irm_object_release(list);
}
END_TEST

START_TEST(test_load_inside_rolled_back_journal_unlists_and_reloads) {
  irm_journal *j = open_journal();
  ck_assert_ok(irm_plugin_load(IRM_TEST_PASS_PLUGIN));
  ck_assert_ok(irm_journal_rollback(j));
  irm_object *list = NULL;
  ck_assert_ok(irm_plugin_list(&list));
  ck_assert_uint_eq(irm_array_size(list), 0);
  irm_object_release(list);
  ck_assert_error(irm_pass_get("ChooseDataLayout", NULL, &(irm_pass *){NULL}), IRM_EVALUE, "ValueError: ");
  ck_assert_ok(irm_plugin_load(IRM_TEST_PASS_PLUGIN)); /* replays the macro's registration */
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("ChooseDataLayout", NULL, &p));
  irm_object_release(p);
}
END_TEST

/* ---- the example plugins ---------------------------------------------------- */

START_TEST(test_pass_plugin_chooses_nhwc_for_arm_cpu) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_PASS_PLUGIN));
  irm_module *mod = module_for("llvm -keys=arm_cpu,cpu", "graph");
  char buf[16];
  ck_assert_str_eq(run_choose_layout(mod, buf, sizeof buf), "NHWC");
  irm_object_release(mod);
}
END_TEST

START_TEST(test_pass_plugin_chooses_nchw_for_x86_llvm) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_PASS_PLUGIN));
  irm_module *mod = module_for("llvm -mcpu=skylake", NULL);
  char buf[16];
  ck_assert_str_eq(run_choose_layout(mod, buf, sizeof buf), "NCHW");
  irm_object_release(mod);
}
END_TEST

START_TEST(test_pass_plugin_config_option_overrides) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_PASS_PLUGIN));
  irm_object *configs = call_global0("transform.ListConfigs");
  ck_assert_ptr_nonnull(irm_map_find_cstr(configs, "ChooseDataLayout.force"));
  irm_object_release(configs);
  const char *keys[] = {"ChooseDataLayout.force"};
  irm_any values[] = {irm_any_str("NCHW")};
  irm_object *config = NULL;
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, values, 1, &config));
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, config, NULL, &ctx));
  irm_module *mod = module_for("llvm -keys=arm_cpu,cpu", NULL);
  char buf[16];
  ck_assert_ok(irm_pass_context_enter(ctx));
  ck_assert_str_eq(run_choose_layout(mod, buf, sizeof buf), "NCHW");
  ck_assert_ok(irm_pass_context_exit(ctx));
  ck_assert_str_eq(run_choose_layout(mod, buf, sizeof buf), "NHWC");
  irm_object_release(mod);
  irm_object_release(ctx);
  irm_object_release(config);
}
END_TEST

/* ChooseDataLayout then ApplyDataLayout: the config read back with GetAttr
 * and the IR rewritten through the public rewriter; the pass option
 * overrides the attribute. */
START_TEST(test_pass_plugin_applies_data_layout) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_PASS_PLUGIN));
  static const char text[] = "#[version = \"irm-0.1\"]\n"
                             "def @main(%x: Tensor[(1, 3, 5, 5), float32], %w: Tensor[(2, 3, 3, 3), float32]) {\n"
                             "  %0 = nn.conv2d(%x, %w);\n  %0\n}\n";
  irm_module *parsed = NULL, *mod = module_for("llvm -keys=arm_cpu,cpu", NULL), *with = NULL, *out = NULL, *same = NULL;
  ck_assert_ok(irm_dataflow_parse(text, strlen(text), &parsed));
  ck_assert_ok(irm_module_with_function(mod, "main", irm_module_function(parsed, "main"), &with));
  irm_pass *p = NULL;
  ck_assert_ok(irm_pipeline_parse("Sequential(ChooseDataLayout,ApplyDataLayout)", &p));
  ck_assert_ok(irm_pass_run(p, with, &out));
  irm_object *s = NULL;
  ck_assert_ok(irm_dataflow_print(out, &s));
  ck_assert_msg(strstr(irm_string_data(s), "data_layout=\"NHWC\"") != NULL, "%s", irm_string_data(s));
  irm_object_release(s);
  irm_object_release(p);
  /* the option wins over the attribute; NCHW is what the IR has already */
  ck_assert_ok(irm_pipeline_parse("Sequential(ChooseDataLayout,ApplyDataLayout{layout=NCHW})", &p));
  ck_assert_ok(irm_pass_run(p, with, &same));
  ck_assert_ptr_eq(irm_module_function(same, "main"), irm_module_function(with, "main"));
  irm_object_release(p);
  ck_assert_ok(irm_pipeline_parse("ApplyDataLayout{layout=NHCW}", &p));
  irm_module *bad = NULL;
  ck_assert_error(irm_pass_run(p, with, &bad), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("layout 'NHCW' is not NCHW or NHWC");
  irm_object_release(p);
  irm_object *all[] = {(irm_object *)parsed, (irm_object *)mod, (irm_object *)with, (irm_object *)out,
                       (irm_object *)same};
  for (size_t i = 0; i < 5; i++) irm_object_release(all[i]);
}
END_TEST

START_TEST(test_pass_plugin_registers_data_layout_key) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_PASS_PLUGIN));
  irm_object *keys = NULL;
  ck_assert_ok(irm_module_attr_list(&keys));
  const irm_any *type = irm_map_find_cstr(keys, "data_layout");
  ck_assert_ptr_nonnull(type);
  ck_assert_str_eq(irm_string_data(type->v_obj), "str");
  irm_object_release(keys);
}
END_TEST

START_TEST(test_executor_plugin_kind_usable_with_defaults) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_EXECUTOR_PLUGIN));
  irm_any kind = irm_any_str("micro-aot"), ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("executor.Create", &kind, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  irm_executor *e = ret.v_obj;
  ck_assert_str_eq(irm_config_kind_name(e), "micro-aot");
  const irm_object *attrs = irm_config_attrs(e);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(attrs, "interface-api")->v_obj), "c");
  ck_assert_int_eq(irm_map_find_cstr(attrs, "workspace-byte-alignment")->v_int, 16);
  ck_assert_int_eq(irm_map_find_cstr(attrs, "link-params")->type_code, IRM_BOOL);
  ck_assert_int_eq(irm_map_find_cstr(attrs, "link-params")->v_int, 0);

  irm_kind *k = irm_config_kind(e);
  irm_object *described = NULL;
  ck_assert_ok(irm_kind_describe_options(k, &described));
  const irm_any *d = irm_map_find_cstr(described, "workspace-byte-alignment");
  ck_assert_ptr_nonnull(d);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(d->v_obj, "doc")->v_obj),
                   "alignment of the static workspace, in bytes");
  irm_object_release(described);

  irm_any attr = irm_any_none();
  ck_assert_ok(irm_kind_get_attr(k, "default_runtime", &attr));
  ck_assert_str_eq(irm_string_data(attr.v_obj), "crt");
  irm_any_release(&attr);
  irm_any_release(&ret);
}
END_TEST

START_TEST(test_executor_plugin_compat_check_refuses_cpp_runtime) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_EXECUTOR_PLUGIN));
  irm_executor *e = NULL;
  irm_runtime *crt = NULL, *cpp = NULL;
  ck_assert_ok(irm_executor_create("micro-aot", NULL, &e));
  ck_assert_ok(irm_runtime_create("crt", NULL, &crt));
  ck_assert_ok(irm_runtime_create("cpp", NULL, &cpp));
  irm_any check = irm_any_none(), ret = irm_any_none();
  ck_assert_ok(irm_kind_get_attr(irm_config_kind(e), "FCheckCompat", &check));
  ck_assert_int_eq(check.type_code, IRM_OBJECT);
  irm_any args[2] = {irm_any_object(e), irm_any_object(crt)};
  ck_assert_ok(irm_func_call(check.v_obj, args, 2, &ret));
  args[1] = irm_any_object(cpp);
  ck_assert_error(irm_func_call(check.v_obj, args, 2, &ret), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("needs runtime 'crt', got 'cpp'");
  irm_any_release(&check);
  irm_object_release(e);
  irm_object_release(crt);
  irm_object_release(cpp);
}
END_TEST

static Suite *plugin_suite(void) {
  Suite *s = suite_create("plugin");
  TCase *fail = tcase_create("failures");
  tcase_add_test(fail, test_load_missing_file_names_path);
  tcase_add_test(fail, test_load_null_path_is_value_error);
  tcase_add_test(fail, test_load_non_library_reports_dlerror);
  tcase_add_test(fail, test_load_library_without_entry_point);
  tcase_add_test(fail, test_load_wrong_abi_gives_both_versions_and_registers_nothing);
  tcase_add_test(fail, test_failing_init_reports_its_message_and_rolls_everything_back);
  tcase_add_test(fail, test_failing_init_fails_again_on_reload_and_still_leaves_nothing);
  tcase_add_test(fail, test_failed_load_through_global_is_plugin_error);
  tcase_add_test(fail, test_clash_names_the_plugin_that_registered_first_and_rolls_back);
  tcase_add_test(fail, test_built_in_names_are_nobodys_in_clash_messages);
  suite_add_tcase(s, fail);
  TCase *load = tcase_create("loading");
  tcase_add_test(load, test_load_twice_returns_same_info);
  tcase_add_test(load, test_load_through_other_path_to_same_file_is_noop);
  tcase_add_test(load, test_globals_load_and_list);
  tcase_add_test(load, test_rules_files_are_listed_in_load_order);
  tcase_add_test(load, test_load_from_env_with_file);
  tcase_add_test(load, test_load_from_env_unset_does_nothing);
  tcase_add_test(load, test_load_from_env_folder_loads_sorted_so_files);
  tcase_add_test(load, test_load_from_env_stops_at_failure_with_context);
  tcase_add_test(load, test_load_inside_rolled_back_journal_unlists_and_reloads);
  suite_add_tcase(s, load);
  TCase *ex = tcase_create("examples");
  tcase_add_test(ex, test_pass_plugin_chooses_nhwc_for_arm_cpu);
  tcase_add_test(ex, test_pass_plugin_chooses_nchw_for_x86_llvm);
  tcase_add_test(ex, test_pass_plugin_config_option_overrides);
  tcase_add_test(ex, test_pass_plugin_registers_data_layout_key);
  tcase_add_test(ex, test_pass_plugin_applies_data_layout);
  tcase_add_test(ex, test_executor_plugin_kind_usable_with_defaults);
  tcase_add_test(ex, test_executor_plugin_compat_check_refuses_cpp_runtime);
  suite_add_tcase(s, ex);
  return s;
}

int main(void) { return run_suite(plugin_suite()); }
