/* Legacy target strings (target.h, irm_target_convert_legacy and the global
 * target.ConvertLegacy): TVM 0.9's rules for turning executor and runtime
 * options into an Executor and a Runtime, one deprecation warning per
 * option, and the errors those options are everywhere else. */
#include <check.h>
#include <string.h>

#include <irm/irm.h>

#include "check_alloc_util.h"
#include "check_target_util.h"

typedef struct converted {
  irm_object *target, *executor, *runtime;
} converted;

static converted convert(const char *text, const char *host_text) {
  converted c = {0};
  int rc = irm_target_convert_legacy(text, host_text, &c.target, &c.executor, &c.runtime);
  ck_assert_msg(rc == 0, "converting '%s' failed: %s", text, irm_last_error());
  ck_assert_ptr_nonnull(c.target);
  return c;
}

static void release(converted *c) {
  irm_object_release(c->target);
  irm_object_release(c->executor);
  irm_object_release(c->runtime);
}

/* The kind of an Executor or Runtime (through its globals, as a user would). */
static void assert_config_kind(const char *prefix, irm_object *config, const char *kind) {
  char name[64];
  snprintf(name, sizeof name, "%s.Name", prefix);
  ck_assert_ptr_nonnull(config);
  irm_any arg = irm_any_object(config);
  irm_any ret = call_ok(name, &arg, 1);
  ck_assert_str_eq(irm_string_data(ret.v_obj), kind);
  irm_any_release(&ret);
}

/* A config option's value (NEW). */
static irm_any config_attr(const char *prefix, irm_object *config, const char *key) {
  char name[64];
  snprintf(name, sizeof name, "%s.GetAttr", prefix);
  irm_any args[2] = {irm_any_object(config), irm_any_str(key)};
  return call_ok(name, args, 2);
}

static warning_log warnings;

static void setup(void) {
  memset(&warnings, 0, sizeof warnings);
  irm_warn_once_reset(); /* each distinct warning goes out once per process */
  irm_set_warning_handler(log_warning, &warnings);
}

static void teardown(void) {
  irm_set_warnings_policy(IRM_WARNINGS_DEFAULT);
  irm_set_warning_handler(NULL, NULL);
}

/* ---- the full conversion ------------------------------------------------------- */

START_TEST(test_full_legacy_string_gives_target_executor_and_runtime) {
  converted c = convert("c -executor=aot -runtime=c -system-lib -link-params=1 -unpacked-api=1 -interface-api=c", NULL);
  ck_assert_target_text(c.target, "c -keys=cpu");
  assert_config_kind("executor", c.executor, "aot");
  ck_assert_int_eq(config_attr("executor", c.executor, "unpacked-api").v_int, 1);
  irm_any api = config_attr("executor", c.executor, "interface-api");
  ck_assert_str_eq(irm_string_data(api.v_obj), "c");
  irm_any_release(&api);
  assert_config_kind("runtime", c.runtime, "crt");
  ck_assert_int_eq(config_attr("runtime", c.runtime, "system-lib").v_int, 1);
  ck_assert_int_eq(warnings.count, 6);
  release(&c);
}
END_TEST

START_TEST(test_converting_the_same_string_again_warns_no_more) {
  const char *text = "c -executor=aot -runtime=c -system-lib -link-params=1 -unpacked-api=1 -interface-api=c";
  for (int i = 0; i < 3; i++) {
    converted c = convert(text, NULL);
    release(&c);
  }
  ck_assert_int_eq(warnings.count, 6); /* a loop converting it warns once per option */
}
END_TEST

START_TEST(test_legacy_warnings_are_deprecations) {
  converted c = convert("c -executor=aot -runtime=c", NULL);
  ck_assert_int_eq(warnings.count, 2);
  for (int i = 0; i < warnings.count; i++)
    ck_assert_msg(strncmp(warnings.text[i], IRM_DEPRECATION_PREFIX, strlen(IRM_DEPRECATION_PREFIX)) == 0, "%s",
                  warnings.text[i]);
  release(&c);
}
END_TEST

START_TEST(test_warnings_as_errors_fail_the_conversion_naming_the_option) {
  irm_set_warnings_policy(IRM_WARNINGS_ERROR);
  irm_object *t = NULL, *e = NULL, *r = NULL;
  ck_assert_error(irm_target_convert_legacy("c -executor=aot", NULL, &t, &e, &r), IRM_ERUNTIME,
                  "RuntimeError: converting legacy target 'c -executor=aot': DeprecationWarning: target option "
                  "'-executor=aot' is deprecated: pass Executor('aot') instead (IRM_WARNINGS=error makes warnings "
                  "errors)");
  ck_assert_ptr_null(t);
  ck_assert_ptr_null(e);
  ck_assert_ptr_null(r);
  ck_assert_int_eq(warnings.count, 0);
}
END_TEST

START_TEST(test_each_option_warns_once_naming_it_and_its_replacement) {
  converted c = convert("c -executor=aot -runtime=c -system-lib -unpacked-api=1 -interface-api=c", NULL);
  ck_assert_int_eq(warnings.count, 5);
  static const struct {
    const char *option, *replacement;
  } expected[] = {{"'-executor=aot'", "Executor('aot')"},
                  {"'-runtime=c'", "Runtime('crt')"},
                  {"'-system-lib'", "Runtime('crt', {'system-lib': True})"},
                  {"'-unpacked-api'", "Executor('aot', {'unpacked-api': True})"},
                  {"'-interface-api'", "Executor('aot', {'interface-api': 'c'})"}};
  for (int i = 0; i < 5; i++) {
    ck_assert_msg(strstr(warnings.text[i], expected[i].option), "warning %d: %s", i, warnings.text[i]);
    ck_assert_msg(strstr(warnings.text[i], expected[i].replacement), "warning %d: %s", i, warnings.text[i]);
    ck_assert_msg(strstr(warnings.text[i], "deprecated"), "warning %d: %s", i, warnings.text[i]);
  }
  release(&c);
}
END_TEST

START_TEST(test_plain_target_converts_to_itself_without_executor_runtime_or_warnings) {
  converted c = convert("llvm -mcpu=cortex-a72 --host=llvm", NULL);
  irm_object *plain = target_of("llvm -mcpu=cortex-a72 --host=llvm");
  ck_assert(targets_equal(c.target, plain));
  ck_assert_ptr_null(c.executor);
  ck_assert_ptr_null(c.runtime);
  ck_assert_int_eq(warnings.count, 0);
  irm_object_release(plain);
  release(&c);
}
END_TEST

/* ---- executors ----------------------------------------------------------------------- */

START_TEST(test_executor_option_gives_that_executor) {
  converted c = convert("llvm -executor=graph", NULL);
  assert_config_kind("executor", c.executor, "graph");
  ck_assert_ptr_null(c.runtime);
  ck_assert_int_eq(warnings.count, 1);
  release(&c);
}
END_TEST

START_TEST(test_link_params_true_without_executor_gives_graph_with_link_params) {
  converted c = convert("llvm -link-params", NULL);
  assert_config_kind("executor", c.executor, "graph");
  ck_assert_int_eq(config_attr("executor", c.executor, "link-params").v_int, 1);
  ck_assert_int_eq(warnings.count, 1);
  ck_assert_int_ge(warning_with(&warnings, "'-link-params'"), 0);
  release(&c);
}
END_TEST

START_TEST(test_link_params_false_is_not_copied) {
  converted c = convert("llvm -link-params=0", NULL);
  ck_assert_ptr_null(c.executor);
  ck_assert_int_eq(warnings.count, 1);
  ck_assert_int_ge(warning_with(&warnings, "dropped"), 0);
  release(&c);
}
END_TEST

START_TEST(test_link_params_is_not_copied_into_aot) {
  converted c = convert("c -executor=aot -link-params", NULL);
  assert_config_kind("executor", c.executor, "aot");
  ck_assert_int_eq(warnings.count, 2);
  int i = warning_with(&warnings, "'-link-params");
  ck_assert_int_ge(i, 0);
  ck_assert_msg(strstr(warnings.text[i], "dropped"), "%s", warnings.text[i]);
  ck_assert_msg(strstr(warnings.text[i], "aot"), "%s", warnings.text[i]);
  release(&c);
}
END_TEST

START_TEST(test_executor_sub_options_go_into_the_executor) {
  converted c = convert("c -executor=aot -workspace-byte-alignment=64 -constant-byte-alignment=32", NULL);
  ck_assert_int_eq(config_attr("executor", c.executor, "workspace-byte-alignment").v_int, 64);
  ck_assert_int_eq(config_attr("executor", c.executor, "constant-byte-alignment").v_int, 32);
  ck_assert_int_eq(warnings.count, 3);
  release(&c);
}
END_TEST

START_TEST(test_sub_options_without_executor_use_graph) {
  irm_object *t = NULL, *e = NULL, *r = NULL;
  /* graph has no interface-api: the Executor refuses it, as TVM 0.9 did */
  ck_assert_error(irm_target_convert_legacy("c -interface-api=c", NULL, &t, &e, &r), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("graph");
  ck_assert_error_mentions("interface-api");
  ck_assert_ptr_null(t);
  ck_assert_ptr_null(e);
}
END_TEST

/* ---- runtimes ---------------------------------------------------------------------------- */

START_TEST(test_runtime_c_becomes_crt_and_others_pass_through) {
  converted c = convert("c -runtime=c", NULL);
  assert_config_kind("runtime", c.runtime, "crt");
  ck_assert_ptr_null(c.executor);
  release(&c);
  c = convert("c -runtime=cpp", NULL);
  assert_config_kind("runtime", c.runtime, "cpp");
  release(&c);
  irm_any args[1] = {irm_any_str("my_runtime")};
  irm_any none = call_ok("runtime.RegisterKind", args, 1);
  (void)none;
  c = convert("c -runtime=my_runtime", NULL);
  assert_config_kind("runtime", c.runtime, "my_runtime");
  release(&c);
  irm_object *t = NULL;
  ck_assert_error(irm_target_convert_legacy("c -runtime=nope", NULL, &t, NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("nope");
}
END_TEST

START_TEST(test_system_lib_goes_into_a_cpp_runtime) {
  converted c = convert("llvm -system-lib", NULL);
  assert_config_kind("runtime", c.runtime, "cpp");
  ck_assert_int_eq(config_attr("runtime", c.runtime, "system-lib").v_int, 1);
  ck_assert_ptr_null(c.executor);
  ck_assert_int_eq(warnings.count, 1);
  release(&c);
}
END_TEST

/* ---- where the options are read --------------------------------------------------------- */

START_TEST(test_options_are_read_from_the_host_when_there_is_one) {
  converted c = convert("cuda --host='llvm -executor=aot -system-lib -unpacked-api=1'", NULL);
  ck_assert_str_eq(irm_target_kind_name(c.target), "cuda");
  ck_assert_target_text(irm_target_host(c.target), "llvm -keys=cpu");
  assert_config_kind("executor", c.executor, "aot");
  ck_assert_int_eq(config_attr("executor", c.executor, "unpacked-api").v_int, 1);
  assert_config_kind("runtime", c.runtime, "cpp");
  ck_assert_int_eq(warnings.count, 3);
  release(&c);
}
END_TEST

START_TEST(test_target_options_are_ignored_with_a_warning_when_there_is_a_host) {
  converted c = convert("cuda -executor=aot -system-lib --host=llvm", NULL);
  ck_assert_ptr_null(c.executor);
  ck_assert_ptr_null(c.runtime);
  ck_assert_int_eq(warnings.count, 2);
  ck_assert_int_ge(warning_with(&warnings, "ignored"), 0);
  ck_assert_int_ge(warning_with(&warnings, "'-system-lib'"), 0);
  release(&c);
}
END_TEST

START_TEST(test_explicit_host_text_replaces_the_host_and_is_read) {
  converted c = convert("cuda -system-lib --host='llvm -mcpu=old'", "llvm -mcpu=new -runtime=c");
  assert_str_attr(irm_target_host(c.target), "mcpu", "new");
  assert_config_kind("runtime", c.runtime, "crt");
  irm_any lib = config_attr("runtime", c.runtime, "system-lib");
  ck_assert_int_eq(lib.v_int, 0); /* the target's -system-lib is not read */
  ck_assert_int_eq(warnings.count, 2);
  release(&c);
}
END_TEST

START_TEST(test_converted_target_has_no_legacy_options) {
  converted c = convert("c -executor=aot -link-params -system-lib -mcpu=x --host='llvm -runtime=c'", NULL);
  char text[512];
  text_of(c.target, text, sizeof text);
  ck_assert_ptr_null(strstr(text, "executor"));
  ck_assert_ptr_null(strstr(text, "link-params"));
  ck_assert_ptr_null(strstr(text, "system-lib"));
  ck_assert_ptr_null(strstr(text, "runtime"));
  irm_any v = irm_any_none();
  ck_assert_error(irm_target_get_attr(c.target, "link-params", &v), IRM_EATTR, "AttributeError: ");
  release(&c);
}
END_TEST

/* ---- the global and errors ---------------------------------------------------------------- */

START_TEST(test_convert_legacy_global_returns_target_executor_runtime) {
  irm_any arg = irm_any_str("c -executor=aot -runtime=c");
  irm_any ret = call_ok("target.ConvertLegacy", &arg, 1);
  ck_assert_uint_eq(irm_array_size(ret.v_obj), 3);
  ck_assert_str_eq(irm_object_type_key(irm_array_at(ret.v_obj, 0)->v_obj), "target.Target");
  assert_config_kind("executor", irm_array_at(ret.v_obj, 1)->v_obj, "aot");
  assert_config_kind("runtime", irm_array_at(ret.v_obj, 2)->v_obj, "crt");
  irm_any_release(&ret);
  arg = irm_any_str("llvm");
  ret = call_ok("target.ConvertLegacy", &arg, 1);
  ck_assert_int_eq(irm_array_at(ret.v_obj, 1)->type_code, IRM_NONE);
  ck_assert_int_eq(irm_array_at(ret.v_obj, 2)->type_code, IRM_NONE);
  irm_any_release(&ret);
  irm_any args[2] = {irm_any_str("cuda"), irm_any_str("llvm -system-lib")};
  ret = call_ok("target.ConvertLegacy", args, 2);
  assert_config_kind("runtime", irm_array_at(ret.v_obj, 2)->v_obj, "cpp");
  irm_any_release(&ret);
  irm_any wrong = irm_any_int(1);
  ck_assert_call_fails("target.ConvertLegacy", &wrong, 1, IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_legacy_values_are_typed_and_errors_name_the_option) {
  irm_object *t = NULL;
  ck_assert_error(irm_target_convert_legacy("c -link-params=maybe", NULL, &t, NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'link-params'");
  ck_assert_error_mentions("expected bool");
  ck_assert_error(irm_target_convert_legacy("c -executor", NULL, &t, NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'executor'");
  ck_assert_error(irm_target_convert_legacy("c -executor=aot -executor=graph", NULL, &t, NULL, NULL), IRM_EVALUE,
                  "ValueError: ");
  ck_assert_error(irm_target_convert_legacy("c -mcpux=a -system-lib", NULL, &t, NULL, NULL), IRM_EATTR,
                  "AttributeError: ");
  ck_assert_error_mentions("did you mean 'mcpu'?");
  ck_assert_error(irm_target_convert_legacy(NULL, NULL, &t, NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(t);
  ck_assert_int_eq(warnings.count, 0);
}
END_TEST

START_TEST(test_legacy_options_are_errors_everywhere_else) {
  irm_object *t = NULL;
  ck_assert_error(irm_target_parse("c -system-lib", &t), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("Runtime(");
  irm_any args[2] = {irm_any_str("c -executor=aot"), irm_any_none()};
  ck_assert_call_fails("target.Target", args, 1, IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("Executor('aot')");
  args[0] = irm_any_str("cuda");
  args[1] = irm_any_str("llvm -link-params");
  ck_assert_call_fails("target.Target", args, 2, IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("'link-params' is an executor option now");
  ck_assert_int_eq(warnings.count, 0);
}
END_TEST

START_TEST(test_legacy_text_that_is_not_utf8_is_a_value_error_naming_the_offset) {
  irm_object *t = NULL;
  ck_assert_error(irm_target_convert_legacy("llvm -executor=a\xff", NULL, &t, NULL, NULL), IRM_EVALUE,
                  "ValueError: the target string is not valid UTF-8 (byte 0xff at offset 16)");
  ck_assert_error(irm_target_convert_legacy("llvm", "llvm -runtime=\xc3", &t, NULL, NULL), IRM_EVALUE,
                  "ValueError: the host's target string is not valid UTF-8 (byte 0xc3 at offset 14)");
  ck_assert_ptr_null(t);
  ck_assert_int_eq(warnings.count, 0);
}
END_TEST

/* ---- running out of memory ----------------------------------------------------------
 * Each operation fails the Nth allocation (then every allocation after N)
 * for every N it meets: the result is success or a MemoryError (or the
 * operation's own error), and no memory stays behind. */

static int op_convert(void) {
  irm_object *t = NULL, *e = NULL, *r = NULL;
  int rc = irm_target_convert_legacy("c -mcpu='a b' --host='llvm -mattr=+neon,+dsp -executor=aot -runtime=c "
                                     "-system-lib -unpacked-api=1 -interface-api=c -link-params=0'",
                                     NULL, &t, &e, &r);
  if (!rc && (!e || !r)) rc = IRM_ERUNTIME;
  irm_object_release(t);
  irm_object_release(e);
  irm_object_release(r);
  return rc;
}

static int op_parse_print_export(void) {
  irm_object *t = NULL, *s = NULL, *config = NULL, *back = NULL;
  irm_any json = irm_any_none(), again = irm_any_none();
  int rc = irm_target_parse("nvidia/jetson-nano -libs=\\'a,b\\',c --host='llvm -mcpu=\\'x y\\''", &t);
  if (!rc) rc = irm_target_as_string(t, &s);
  if (!rc) rc = irm_target_export(t, &config);
  if (!rc) rc = irm_target_from_config(config, &back);
  irm_any value = irm_any_object(t);
  if (!rc) rc = irm_to_json(&value, &json.v_obj);
  if (!rc) json.type_code = IRM_OBJECT;
  if (!rc) rc = irm_from_json(irm_string_data(json.v_obj), irm_string_size(json.v_obj), &again);
  irm_any_release(&again);
  irm_any_release(&json);
  irm_object_release(back);
  irm_object_release(config);
  irm_object_release(s);
  irm_object_release(t);
  return rc;
}

static int op_parse_errors(void) {
  irm_object *t = NULL;
  int rc = irm_target_parse("lvm -mcpu=a", &t);
  if (rc == IRM_EVALUE) rc = irm_target_parse("llvm -mcpux=a -mcpux=b", &t);
  if (rc == IRM_EVALUE) rc = irm_target_parse("cuda --host='llvm -link-params'", &t);
  return rc == IRM_EATTR ? IRM_OK : rc;
}

static int op_register_tag_in_journal(void) {
  irm_journal *j = NULL;
  irm_object *config = NULL;
  int rc = irm_journal_open(&j);
  const char *keys[] = {"kind", "host"};
  irm_any values[] = {irm_any_str("cuda"), irm_any_str("llvm -mcpu=z")};
  if (!rc) rc = irm_map_from_pairs(keys, values, 2, &config);
  if (!rc) rc = irm_target_tag_register("oom/board", config, 1);
  irm_object_release(config);
  if (j) {
    stop_failing();
    ck_assert_ok(irm_journal_rollback(j));
  }
  return rc;
}

static int op_register_kind_in_journal(void) {
  irm_journal *j = NULL;
  irm_object *info = NULL, *options = NULL;
  int rc = irm_journal_open(&j);
  const char *info_keys[] = {"type", "default", "doc"};
  irm_any info_values[] = {irm_any_str("int"), irm_any_int(4), irm_any_str("lanes")};
  if (!rc) rc = irm_map_from_pairs(info_keys, info_values, 3, &info);
  const char *keys[] = {"mode", "lanes"};
  irm_any values[] = {irm_any_str("str"), irm_any_object(info)};
  if (!rc) rc = irm_map_from_pairs(keys, values, 2, &options);
  irm_any args[2] = {irm_any_str("oom_kind"), irm_any_object(options)}, ret = irm_any_none();
  if (!rc) rc = irm_func_call_global("target.RegisterKind", args, 2, &ret);
  irm_object *t = NULL;
  if (!rc) rc = irm_target_parse("oom_kind -mode=m", &t);
  irm_object_release(t);
  irm_object_release(options);
  irm_object_release(info);
  if (j) {
    stop_failing();
    ck_assert_ok(irm_journal_rollback(j));
    irm_object *kinds = NULL;
    ck_assert_ok(irm_kind_list("target", &kinds));
    ck_assert(!array_has_string(kinds, "oom_kind"));
    irm_object_release(kinds);
  }
  return rc;
}

/* keeps_memory: the operation may leave memory behind by design (a kind
 * rolled back stays allocated, detached, for handles held elsewhere). */
static void sweep(const char *what, int (*op)(void), int keeps_memory) {
  ck_assert_msg(op() == 0, "%s without failures: %s", what, irm_last_error()); /* warms lazy starts */
  for (int mode = 0; mode < 2; mode++) {
    for (long n = mode == 0 ? 1 : 0;; n++) {
      ck_assert_msg(n < sweep_cap, "%s: still meeting failures at N=%ld", what, n);
      settle_error();
      long live = atomic_load(&live_blocks), injected_before = atomic_load(&injected);
      if (mode == 0) fail_nth_from_now(n);
      else fail_all_after(n);
      int rc = op();
      stop_failing();
      int hit = atomic_load(&injected) != injected_before;
      ck_assert_msg(rc == 0 || (rc == IRM_ENOMEM && strncmp(irm_last_error(), "MemoryError: ", 13) == 0),
                    "%s (mode %d, N=%ld): %d '%s'", what, mode, n, rc, irm_last_error());
      settle_error();
      ck_assert_msg(keeps_memory || atomic_load(&live_blocks) == live,
                    "%s (mode %d, N=%ld, status %d): %ld blocks leaked", what, mode, n, rc,
                    atomic_load(&live_blocks) - live);
      if (rc == 0 && !hit) {
        if (getenv("SWEEP_VERBOSE")) fprintf(stderr, "%s: mode %d swept %ld\n", what, mode, n);
        break;
      }
    }
  }
}

/* ---- out of memory never changes a result ------------------------------------------
 * Regression (issue: ConvertLegacy succeeded 68 times with an allocation
 * failed): failing allocation N, for every N, either fails with
 * MemoryError or gives exactly the result and the warnings of the run
 * without failures; never a dropped warning or option. */

typedef struct legacy_case {
  const char *text, *host_text;
} legacy_case;

/* Target text, Executor and Runtime reprs and the warnings, in plain malloc
 * memory (made with failures off). */
static char *summary_of(const converted *c, const warning_log *log) {
  size_t size = 16384, used = 0;
  char *out = malloc(size);
  ck_assert_ptr_nonnull(out);
  irm_object *parts[3] = {NULL, NULL, NULL};
  ck_assert_ok(irm_target_as_string(c->target, &parts[0]));
  irm_any e = irm_any_object(c->executor), r = irm_any_object(c->runtime);
  ck_assert_ok(irm_repr(&e, &parts[1]));
  ck_assert_ok(irm_repr(&r, &parts[2]));
  for (int i = 0; i < 3; i++) {
    used += (size_t)snprintf(out + used, size - used, "%s\n", irm_string_data(parts[i]));
    irm_object_release(parts[i]);
  }
  used += (size_t)snprintf(out + used, size - used, "%d warnings\n", log->count);
  for (int i = 0; i < log->count && i < max_warnings; i++)
    used += (size_t)snprintf(out + used, size - used, "%s\n", log->text[i]);
  ck_assert_uint_lt(used, size - 1);
  return out;
}

static char *convert_summary(const legacy_case *lc, int *rc) {
  converted c = {0};
  memset(&warnings, 0, sizeof warnings);
  irm_warn_once_reset(); /* every run warns afresh */
  *rc = irm_target_convert_legacy(lc->text, lc->host_text, &c.target, &c.executor, &c.runtime);
  stop_failing();
  char *summary = *rc ? NULL : summary_of(&c, &warnings);
  release(&c);
  return summary;
}

static void sweep_exact(const legacy_case *lc) {
  int rc = 0;
  char *expected = convert_summary(lc, &rc);
  ck_assert_msg(rc == 0, "'%s' without failures: %s", lc->text, irm_last_error());
  uint64_t salt = sweep_salt(lc->text, fail_nth);
  for (long n = 1;; n = sweep_next(n, salt)) {
    ck_assert_msg(n < sweep_cap, "'%s': still meeting failures at N=%ld", lc->text, n);
    long injected_before = atomic_load(&injected);
    fail_nth_from_now(n);
    char *got = convert_summary(lc, &rc);
    int hit = atomic_load(&injected) != injected_before;
    if (rc) {
      ck_assert_msg(rc == IRM_ENOMEM && strncmp(irm_last_error(), "MemoryError: ", 13) == 0, "'%s' (N=%ld): %d '%s'",
                    lc->text, n, rc, irm_last_error());
      continue;
    }
    ck_assert_msg(strcmp(got, expected) == 0, "'%s' (N=%ld) succeeded with another result:\n%s\ninstead of\n%s",
                  lc->text, n, got, expected);
    free(got);
    if (!hit) break;
  }
  free(expected);
}

START_TEST(test_conversion_with_a_failed_allocation_fails_or_gives_the_same_result_and_warnings) {
  static const legacy_case cases[] = {
      {"c -mcpu='a b' --host='llvm -mattr=+neon,+dsp -executor=aot -runtime=c -system-lib -unpacked-api=1 "
       "-interface-api=c -link-params=0'",
       NULL},
      {"llvm -executor=aot -link-params=1 -workspace-byte-alignment=16 -constant-byte-alignment=8", NULL},
      {"cuda -runtime=crt -system-lib --host='llvm -interface-api=c'", "llvm -executor=graph -link-params=1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) sweep_exact(&cases[i]);
}
END_TEST

START_TEST(test_conversion_survives_allocation_failures) { sweep("ConvertLegacy", op_convert, 0); }
END_TEST

START_TEST(test_parse_print_export_survive_allocation_failures) {
  sweep("parse, print, export, JSON", op_parse_print_export, 0);
}
END_TEST

START_TEST(test_parse_errors_survive_allocation_failures) { sweep("parse errors", op_parse_errors, 0); }
END_TEST

START_TEST(test_kind_registration_survives_allocation_failures) {
  sweep("RegisterKind in a journal", op_register_kind_in_journal, 1);
}
END_TEST

START_TEST(test_tag_registration_survives_allocation_failures) {
  sweep("RegisterTag in a journal", op_register_tag_in_journal, 0);
}
END_TEST

int main(void) {
  if (install_counting_allocator("check_target_legacy")) return EXIT_FAILURE;
  Suite *s = suite_create("target_legacy");
  TCase *tc = tcase_create("target_legacy");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_full_legacy_string_gives_target_executor_and_runtime);
  tcase_add_test(tc, test_each_option_warns_once_naming_it_and_its_replacement);
  tcase_add_test(tc, test_converting_the_same_string_again_warns_no_more);
  tcase_add_test(tc, test_legacy_warnings_are_deprecations);
  tcase_add_test(tc, test_warnings_as_errors_fail_the_conversion_naming_the_option);
  tcase_add_test(tc, test_plain_target_converts_to_itself_without_executor_runtime_or_warnings);
  tcase_add_test(tc, test_executor_option_gives_that_executor);
  tcase_add_test(tc, test_link_params_true_without_executor_gives_graph_with_link_params);
  tcase_add_test(tc, test_link_params_false_is_not_copied);
  tcase_add_test(tc, test_link_params_is_not_copied_into_aot);
  tcase_add_test(tc, test_executor_sub_options_go_into_the_executor);
  tcase_add_test(tc, test_sub_options_without_executor_use_graph);
  tcase_add_test(tc, test_runtime_c_becomes_crt_and_others_pass_through);
  tcase_add_test(tc, test_system_lib_goes_into_a_cpp_runtime);
  tcase_add_test(tc, test_options_are_read_from_the_host_when_there_is_one);
  tcase_add_test(tc, test_target_options_are_ignored_with_a_warning_when_there_is_a_host);
  tcase_add_test(tc, test_explicit_host_text_replaces_the_host_and_is_read);
  tcase_add_test(tc, test_converted_target_has_no_legacy_options);
  tcase_add_test(tc, test_convert_legacy_global_returns_target_executor_runtime);
  tcase_add_test(tc, test_legacy_values_are_typed_and_errors_name_the_option);
  tcase_add_test(tc, test_legacy_options_are_errors_everywhere_else);
  tcase_add_test(tc, test_legacy_text_that_is_not_utf8_is_a_value_error_naming_the_offset);
  suite_add_tcase(s, tc);
  tc = tcase_create("out_of_memory");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_conversion_survives_allocation_failures);
  tcase_add_test(tc, test_conversion_with_a_failed_allocation_fails_or_gives_the_same_result_and_warnings);
  tcase_add_test(tc, test_parse_print_export_survive_allocation_failures);
  tcase_add_test(tc, test_parse_errors_survive_allocation_failures);
  tcase_add_test(tc, test_tag_registration_survives_allocation_failures);
  tcase_add_test(tc, test_kind_registration_survives_allocation_failures);
  tcase_set_timeout(tc, 240);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
