/* Target tags and registration (target.h): the built-in tags and their
 * values, registering tags and kinds (target.RegisterTag,
 * target.RegisterKind) and the journal rolling them back, threads parsing
 * and registering tags from the first use, and kind attributes through the
 * target.SetKindAttr/GetKindAttr globals.
 *
 * Target objects, kinds and their options: check_target.c. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <irm/irm.h>

#include "check_target_util.h"

/* ---- tags ---------------------------------------------------------------------------- */

START_TEST(test_tags_are_listed_sorted) {
  irm_any tags = call_ok("target.ListTags", NULL, 0);
  ck_assert_uint_ge(irm_array_size(tags.v_obj), 6);
  assert_sorted_strings(tags.v_obj);
  const char *boards[] = {"raspberry-pi/4b-aarch64", "nvidia/jetson-nano",      "nvidia/nvidia-a100", "apple/m1-gpu",
                          "aws/cpu/c5.large",        "nvidia/jetson-agx-xavier"};
  for (size_t i = 0; i < 6; i++) ck_assert_msg(array_has_string(tags.v_obj, boards[i]), "no tag %s", boards[i]);
  irm_any_release(&tags);
}
END_TEST

START_TEST(test_jetson_nano_tag_values) {
  irm_object *t = target_of("nvidia/jetson-nano");
  ck_assert_str_eq(irm_target_kind_name(t), "cuda");
  assert_str_attr(t, "arch", "sm_53");
  assert_str_attr(t, "tag", "nvidia/jetson-nano");
  ck_assert_int_eq(int_attr(t, "max_shared_memory_per_block"), 49152);
  ck_assert_int_eq(int_attr(t, "max_threads_per_block"), 1024);
  ck_assert_int_eq(int_attr(t, "thread_warp_size"), 32);
  ck_assert_int_eq(int_attr(t, "registers_per_block"), 32768);
  irm_object *host = irm_target_host(t);
  ck_assert_str_eq(irm_target_kind_name(host), "llvm");
  assert_str_attr(host, "mtriple", "aarch64-linux-gnu");
  irm_object *found = NULL;
  ck_assert_ok(irm_target_tag_find("nvidia/jetson-nano", &found));
  ck_assert(targets_equal(found, t));
  irm_object_release(found);
  ck_assert_ok(irm_target_tag_find("nvidia/jetson-nanx", &found));
  ck_assert_ptr_null(found);
  irm_object_release(t);
}
END_TEST

START_TEST(test_raspberry_pi_tag_values) {
  irm_object *t = target_of("raspberry-pi/4b-aarch64");
  assert_str_attr(t, "mcpu", "cortex-a72");
  assert_str_attr(t, "mtriple", "aarch64-linux-gnu");
  ck_assert_int_eq(int_attr(t, "num-cores"), 4);
  irm_any mattr = attr_of(t, "mattr");
  const char *neon[] = {"+neon"};
  assert_strings(mattr.v_obj, neon, 1);
  irm_any_release(&mattr);
  assert_str_attr(irm_target_host(t), "mcpu", "cortex-a72");
  irm_object_release(t);
}
END_TEST

START_TEST(test_options_after_a_tag_replace_its_values) {
  irm_object *t = target_of("nvidia/jetson-nano -max_threads_per_block=512 --host='llvm -mcpu=x'");
  ck_assert_int_eq(int_attr(t, "max_threads_per_block"), 512);
  ck_assert_int_eq(int_attr(t, "registers_per_block"), 32768);
  assert_str_attr(t, "tag", "nvidia/jetson-nano");
  assert_str_attr(irm_target_host(t), "mcpu", "x");
  irm_object_release(t);
}
END_TEST

START_TEST(test_register_tag_then_use_it) {
  irm_object *config = map2("kind", irm_any_str("llvm"), "mcpu", irm_any_str("my-cpu"));
  irm_any args[2] = {irm_any_str("my/board"), irm_any_object(config)};
  irm_any none = call_ok("target.RegisterTag", args, 2);
  ck_assert_int_eq(none.type_code, IRM_NONE);
  irm_object *t = target_of("my/board");
  assert_str_attr(t, "mcpu", "my-cpu");
  assert_str_attr(t, "tag", "my/board");
  irm_object_release(t);
  irm_any again = call_ok("target.RegisterTag", args, 2); /* identical: fine */
  (void)again;
  irm_object *exported = NULL, *stored = NULL; /* another config for the same target: fine too */
  t = target_of("my/board");
  ck_assert_ok(irm_target_export(t, &exported));
  ck_assert_ok(irm_target_tag_register("my/board", exported, 0));
  ck_assert_ok(irm_target_tag_config("my/board", &stored));
  ck_assert_uint_eq(irm_map_size(stored), 3); /* kind, mcpu, tag: the first config stays */
  irm_object_release(stored);
  irm_object_release(exported);
  irm_object_release(t);
  irm_object *other = map2("kind", irm_any_str("llvm"), "mcpu", irm_any_str("other"));
  args[1] = irm_any_object(other);
  ck_assert_call_fails("target.RegisterTag", args, 2, IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("my/board");
  ck_assert_ok(irm_target_tag_register("my/board", other, 1));
  t = target_of("my/board");
  assert_str_attr(t, "mcpu", "other");
  irm_object_release(t);
  irm_object_release(other);
  irm_object_release(config);
}
END_TEST

START_TEST(test_register_tag_rejects_bad_names_and_configs) {
  irm_object *config = map2("kind", irm_any_str("llvm"), NULL, irm_any_none());
  ck_assert_error(irm_target_tag_register("llvm", config, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("target kind");
  ck_assert_error(irm_target_tag_register("my board", config, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_target_tag_register("-x", config, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_target_tag_register("", config, 0), IRM_EVALUE, "ValueError: ");
  irm_object *bad = map2("kind", irm_any_str("llvm"), "mcpux", irm_any_str("a"));
  ck_assert_error(irm_target_tag_register("bad/config", bad, 0), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("bad/config");
  irm_object *found = NULL;
  ck_assert_ok(irm_target_tag_find("bad/config", &found));
  ck_assert_ptr_null(found);
  irm_object_release(bad);
  irm_object_release(config);
}
END_TEST

/* ---- registering kinds ------------------------------------------------------------------ */

static irm_object *my_kind_options(const char *mode_default) {
  irm_object *mode = map2("type", irm_any_str("str"), "default", irm_any_str(mode_default));
  irm_object *options = map2("width", irm_any_str("int"), "mode", irm_any_object(mode));
  irm_object_release(mode);
  return options;
}

START_TEST(test_register_kind_global_adds_a_usable_kind) {
  irm_object *options = my_kind_options("fast");
  irm_any args[2] = {irm_any_str("my_kind"), irm_any_object(options)};
  irm_any none = call_ok("target.RegisterKind", args, 2);
  (void)none;
  irm_object *listed = list_kind_options("my_kind");
  ck_assert_str_eq(option_type(listed, "width"), "int");
  ck_assert_str_eq(option_type(listed, "mode"), "str");
  ck_assert_str_eq(option_type(listed, "keys"), "array<str>");
  irm_object_release(listed);
  irm_object *t = target_of("my_kind -width=8");
  ck_assert_int_eq(int_attr(t, "width"), 8);
  assert_str_attr(t, "mode", "fast");
  irm_object_release(t);
  irm_any again = call_ok("target.RegisterKind", args, 2); /* identical: fine */
  (void)again;
  irm_object *different = my_kind_options("slow");
  args[1] = irm_any_object(different);
  ck_assert_call_fails("target.RegisterKind", args, 2, IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("mode");
  irm_object_release(different);
  irm_object_release(options);
}
END_TEST

START_TEST(test_register_kind_rejects_bad_definitions_and_leaves_nothing) {
  irm_object *bad_type = map2("width", irm_any_str("integer"), NULL, irm_any_none());
  irm_any args[2] = {irm_any_str("bad_kind"), irm_any_object(bad_type)};
  ck_assert_call_fails("target.RegisterKind", args, 2, IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("integer");
  irm_object *bad_default_info = map2("type", irm_any_str("int"), "default", irm_any_str("x"));
  irm_object *bad_default = map2("a", irm_any_str("str"), "width", irm_any_object(bad_default_info));
  args[1] = irm_any_object(bad_default);
  ck_assert_call_fails("target.RegisterKind", args, 2, IRM_ETYPE, "TypeError: ");
  irm_any kinds = call_ok("target.ListKinds", NULL, 0);
  ck_assert(!array_has_string(kinds.v_obj, "bad_kind"));
  irm_any_release(&kinds);
  irm_object *common = map2("keys", irm_any_str("array<str>"), NULL, irm_any_none());
  args[1] = irm_any_object(common);
  ck_assert_call_fails("target.RegisterKind", args, 2, IRM_EVALUE, "ValueError: ");
  irm_any unknown = irm_any_str("no_such_kind");
  ck_assert_call_fails("target.ListKindOptions", &unknown, 1, IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("llvm");
  irm_object_release(common);
  irm_object_release(bad_default);
  irm_object_release(bad_default_info);
  irm_object_release(bad_type);
}
END_TEST

START_TEST(test_journal_rollback_removes_a_registered_kind_and_tag) {
  irm_journal *j = open_journal();
  irm_object *options = my_kind_options("fast");
  irm_any args[2] = {irm_any_str("journal_kind"), irm_any_object(options)};
  irm_any none = call_ok("target.RegisterKind", args, 2);
  irm_object *config = map2("kind", irm_any_str("journal_kind"), "width", irm_any_int(4));
  irm_any tag_args[2] = {irm_any_str("journal/board"), irm_any_object(config)};
  none = call_ok("target.RegisterTag", tag_args, 2);
  (void)none;
  irm_object_release(target_of("journal/board"));
  ck_assert_ok(irm_journal_rollback(j));
  irm_any kinds = call_ok("target.ListKinds", NULL, 0);
  irm_any tags = call_ok("target.ListTags", NULL, 0);
  ck_assert(!array_has_string(kinds.v_obj, "journal_kind"));
  ck_assert(!array_has_string(tags.v_obj, "journal/board"));
  ck_assert(array_has_string(tags.v_obj, "nvidia/jetson-nano")); /* built-ins stay */
  ck_assert_parse_fails("journal/board", IRM_EVALUE, "ValueError: ");
  ck_assert_parse_fails("journal_kind", IRM_EVALUE, "ValueError: ");
  irm_any_release(&kinds);
  irm_any_release(&tags);
  irm_object_release(config);
  irm_object_release(options);
}
END_TEST

START_TEST(test_journal_rollback_restores_an_overridden_tag) {
  irm_object *config = map2("kind", irm_any_str("c"), "mcpu", irm_any_str("first"));
  ck_assert_ok(irm_target_tag_register("undo/board", config, 0));
  irm_journal *j = open_journal();
  irm_object *other = map2("kind", irm_any_str("c"), "mcpu", irm_any_str("second"));
  ck_assert_ok(irm_target_tag_register("undo/board", other, 1));
  ck_assert_uint_eq(irm_journal_size(j), 1);
  ck_assert_ok(irm_journal_rollback(j));
  irm_object *t = target_of("undo/board");
  assert_str_attr(t, "mcpu", "first");
  irm_object_release(t);
  irm_object_release(other);
  irm_object_release(config);
}
END_TEST

/* ---- threads -------------------------------------------------------------------------- */

enum { n_threads = 4, per_thread = 25 };

/* Parses, prints and registers tags; the first of these calls in the
 * process races the lazy starts of the registries. 0 when all went well. */
static void *thread_work(void *arg) {
  long id = (long)(intptr_t)arg;
  for (int i = 0; i < per_thread; i++) {
    irm_object *t = NULL, *s = NULL, *config = NULL;
    char name[64];
    snprintf(name, sizeof name, "thread%ld/board%d", id, i);
    const char *keys[] = {"kind", "mcpu"};
    irm_any values[] = {irm_any_str("llvm"), irm_any_str(name)};
    int rc = irm_target_parse(i % 2 ? "nvidia/jetson-nano" : "llvm -mcpu=x --host=c", &t);
    if (!rc) rc = irm_target_as_string(t, &s);
    if (!rc) rc = irm_map_from_pairs(keys, values, 2, &config);
    if (!rc) rc = irm_target_tag_register(name, config, 0);
    irm_object_release(config);
    irm_object_release(s);
    irm_object_release(t);
    if (rc) return (void *)1;
  }
  return NULL;
}

START_TEST(test_threads_parse_and_register_tags_from_first_use) {
  pthread_t threads[n_threads];
  for (long i = 0; i < n_threads; i++)
    ck_assert_int_eq(pthread_create(&threads[i], NULL, thread_work, (void *)(intptr_t)i), 0);
  for (int i = 0; i < n_threads; i++) {
    void *result = (void *)&result;
    ck_assert_int_eq(pthread_join(threads[i], &result), 0);
    ck_assert_ptr_null(result);
  }
  irm_object *tags = NULL;
  ck_assert_ok(irm_target_tag_list(&tags));
  assert_sorted_strings(tags);
  ck_assert(array_has_string(tags, "thread3/board24"));
  ck_assert(array_has_string(tags, "nvidia/jetson-nano"));
  irm_object *t = target_of("thread2/board7");
  assert_str_attr(t, "mcpu", "thread2/board7");
  irm_object_release(t);
  irm_object_release(tags);
}
END_TEST

/* ---- kind attributes through the globals ------------------------------------------ */

START_TEST(test_target_kind_attrs_work_as_executor_kind_attrs) {
  irm_any set[4] = {irm_any_str("llvm"), irm_any_str("test.vector_width"), irm_any_int(128), irm_any_none()};
  call_ok("target.SetKindAttr", set, 3); /* default level 10 */
  irm_any get[2] = {irm_any_str("llvm"), irm_any_str("test.vector_width")};
  irm_any v = call_ok("target.GetKindAttr", get, 2);
  ck_assert_int_eq(v.v_int, 128);
  set[2] = irm_any_int(256);
  ck_assert_int_eq(call_fails("target.SetKindAttr", set, 3), IRM_EKEY); /* same level twice */
  ck_assert_error_mentions("target.SetKindAttr");
  set[3] = irm_any_int(5);
  call_ok("target.SetKindAttr", set, 4); /* a lower level is ignored */
  v = call_ok("target.GetKindAttr", get, 2);
  ck_assert_int_eq(v.v_int, 128);
  set[3] = irm_any_int(11);
  call_ok("target.SetKindAttr", set, 4); /* a higher one replaces */
  v = call_ok("target.GetKindAttr", get, 2);
  ck_assert_int_eq(v.v_int, 256);
  get[0] = irm_any_str("cuda"); /* another kind without a value: NONE */
  v = call_ok("target.GetKindAttr", get, 2);
  ck_assert_int_eq(v.type_code, IRM_NONE);
}
END_TEST

START_TEST(test_target_kind_attrs_read_builtin_attrs_and_reject_unknown_names) {
  irm_any get[2] = {irm_any_str("cuda"), irm_any_str("default_keys")};
  irm_any keys = call_ok("target.GetKindAttr", get, 2);
  const char *expected[] = {"cuda", "gpu"};
  assert_strings(keys.v_obj, expected, 2);
  irm_any_release(&keys);
  get[1] = irm_any_str("device_typ");
  ck_assert_int_eq(call_fails("target.GetKindAttr", get, 2), IRM_EATTR);
  ck_assert_error_mentions("did you mean 'device_type'?");
  get[0] = irm_any_str("lvm");
  get[1] = irm_any_str("device_type");
  ck_assert_int_eq(call_fails("target.GetKindAttr", get, 2), IRM_EVALUE);
  ck_assert_error_mentions("did you mean 'llvm'?");
  irm_any set[3] = {irm_any_str("lvm"), irm_any_str("x"), irm_any_int(1)};
  ck_assert_int_eq(call_fails("target.SetKindAttr", set, 3), IRM_EVALUE);
  ck_assert_error_mentions("target.SetKindAttr");
}
END_TEST

int main(void) {
  Suite *s = suite_create("target_register");
  TCase *tc = tcase_create("target_register");
  tcase_add_test(tc, test_tags_are_listed_sorted);
  tcase_add_test(tc, test_jetson_nano_tag_values);
  tcase_add_test(tc, test_raspberry_pi_tag_values);
  tcase_add_test(tc, test_options_after_a_tag_replace_its_values);
  tcase_add_test(tc, test_register_tag_then_use_it);
  tcase_add_test(tc, test_register_tag_rejects_bad_names_and_configs);
  tcase_add_test(tc, test_register_kind_global_adds_a_usable_kind);
  tcase_add_test(tc, test_register_kind_rejects_bad_definitions_and_leaves_nothing);
  tcase_add_test(tc, test_journal_rollback_removes_a_registered_kind_and_tag);
  tcase_add_test(tc, test_journal_rollback_restores_an_overridden_tag);
  tcase_add_test(tc, test_threads_parse_and_register_tags_from_first_use);
  tcase_add_test(tc, test_target_kind_attrs_work_as_executor_kind_attrs);
  tcase_add_test(tc, test_target_kind_attrs_read_builtin_attrs_and_reject_unknown_names);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
