/* Target objects (target.h): kinds and their options, keys, the Map form,
 * hosts, Export, equality and JSON, and the target.* globals for them.
 *
 * Tags, registering kinds and tags (with journal rollback), threads and
 * kind attributes: check_target_register.c. Text parsing and printing:
 * check_target_parse.c. Legacy options: check_target_legacy.c. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <irm/irm.h>

#include "check_target_util.h"

/* A kind registered when the program starts, as application code would. */
static int static_kind_setup(irm_kind *k) {
  irm_any two = irm_any_int(2);
  return irm_kind_add_option(k, "lanes", IRM_OPTION_INT, &two, "vector lanes", 0);
}
IRM_REGISTER_TARGET_KIND("static_kind", static_kind_setup);

/* ---- kinds and options ------------------------------------------------------ */

START_TEST(test_builtin_kinds_are_listed) {
  irm_any ret = call_ok("target.ListKinds", NULL, 0);
  const char *kinds[] = {"llvm", "c", "cuda", "rocm", "opencl", "vulkan", "metal"};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    ck_assert_msg(array_has_string(ret.v_obj, kinds[i]), "kind '%s' missing", kinds[i]);
  assert_sorted_strings(ret.v_obj);
  irm_any_release(&ret);
}
END_TEST

START_TEST(test_every_kind_has_the_common_options) {
  irm_any ret = call_ok("target.ListKinds", NULL, 0);
  for (size_t i = 0; i < irm_array_size(ret.v_obj); i++) {
    irm_object *options = list_kind_options(irm_string_data(irm_array_at(ret.v_obj, i)->v_obj));
    ck_assert_str_eq(option_type(options, "keys"), "array<str>");
    ck_assert_str_eq(option_type(options, "libs"), "array<str>");
    ck_assert_str_eq(option_type(options, "tag"), "str");
    ck_assert_str_eq(option_type(options, "device"), "str");
    ck_assert_str_eq(option_type(options, "model"), "str");
    ck_assert_str_eq(option_type(options, "host"), "target");
    ck_assert_str_eq(option_type(options, "from_device"), "int");
    irm_object_release(options);
  }
  irm_any_release(&ret);
}
END_TEST

START_TEST(test_llvm_has_tvm_options_with_their_types) {
  irm_object *o = list_kind_options("llvm");
  const char *strs[] = {"mtriple", "mcpu", "mabi", "mfloat-abi"};
  for (size_t i = 0; i < 4; i++) ck_assert_str_eq(option_type(o, strs[i]), "str");
  ck_assert_str_eq(option_type(o, "mattr"), "array<str>");
  ck_assert_str_eq(option_type(o, "num-cores"), "int");
  ck_assert_str_eq(option_type(o, "opt-level"), "int");
  const char *flags[] = {"fast-math",      "fast-math-nnan",     "fast-math-ninf",   "fast-math-nsz",
                         "fast-math-arcp", "fast-math-contract", "fast-math-reassoc"};
  for (size_t i = 0; i < 7; i++) ck_assert_str_eq(option_type(o, flags[i]), "bool");
  ck_assert_ptr_null(irm_map_find_cstr(o, "link-params"));
  ck_assert_ptr_null(irm_map_find_cstr(o, "system-lib"));
  irm_object_release(o);
  o = list_kind_options("c");
  ck_assert_str_eq(option_type(o, "mcpu"), "str");
  ck_assert_str_eq(option_type(o, "march"), "str");
  ck_assert_ptr_null(irm_map_find_cstr(o, "executor"));
  irm_object_release(o);
}
END_TEST

START_TEST(test_cuda_fills_warp_size_and_max_num_threads) {
  irm_object *t = target_of("cuda");
  ck_assert_int_eq(int_attr(t, "thread_warp_size"), 32);
  ck_assert_int_eq(int_attr(t, "max_num_threads"), 1024);
  assert_str_attr(t, "arch", NULL);
  irm_any v = attr_of(t, "max_shared_memory_per_block");
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_object_release(t);
}
END_TEST

START_TEST(test_cuda_arch_must_start_with_sm) {
  ck_assert_parse_fails("cuda -arch=compute_80", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'sm_'");
  ck_assert_error_mentions("compute_80");
  irm_object *config = map2("kind", irm_any_str("cuda"), "arch", irm_any_str("80"));
  irm_object *t = NULL;
  ck_assert_error(irm_target_from_config(config, &t), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("arch");
  irm_object_release(config);
  irm_object_release(target_of("cuda -arch=sm_80"));
}
END_TEST

START_TEST(test_rocm_mcpu_must_start_with_gfx) {
  ck_assert_parse_fails("rocm -mcpu=sm_80", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("gfx");
  irm_object_release(target_of("rocm -mcpu=gfx908"));
}
END_TEST

START_TEST(test_default_keys_per_kind) {
  static const struct {
    const char *kind;
    const char *keys[2];
    size_t n;
  } cases[] = {{"llvm", {"cpu"}, 1},
               {"c", {"cpu"}, 1},
               {"cuda", {"cuda", "gpu"}, 2},
               {"rocm", {"rocm", "gpu"}, 2},
               {"opencl", {"opencl", "gpu"}, 2},
               {"vulkan", {"vulkan", "gpu"}, 2},
               {"metal", {"metal", "gpu"}, 2}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    irm_object *t = target_of(cases[i].kind);
    assert_strings(irm_target_keys(t), cases[i].keys, cases[i].n);
    irm_object_release(t);
  }
}
END_TEST

START_TEST(test_keys_are_user_keys_then_device_then_defaults_without_duplicates) {
  irm_object *t = target_of("llvm -keys=foo,bar -device=arm_cpu");
  const char *a[] = {"foo", "bar", "arm_cpu", "cpu"};
  assert_strings(irm_target_keys(t), a, 4);
  irm_object_release(t);
  t = target_of("cuda -keys=gpu,x,gpu -device=x");
  const char *b[] = {"gpu", "x", "cuda"};
  assert_strings(irm_target_keys(t), b, 3);
  irm_any keys = attr_of(t, "keys");
  ck_assert_ptr_eq(keys.v_obj, irm_target_keys(t));
  irm_any_release(&keys);
  irm_object_release(t);
}
END_TEST

START_TEST(test_kind_registered_later_gets_common_options) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_register("target", "later_kind", &k));
  irm_any def = irm_any_none();
  irm_option_type type;
  ck_assert_ok(irm_kind_option(k, "keys", &type, &def));
  ck_assert_int_eq(type, IRM_OPTION_ARRAY_STR);
  ck_assert_ok(irm_kind_option(k, "host", &type, NULL));
  ck_assert_int_eq(type, IRM_OPTION_TARGET);
  irm_object *t = target_of("later_kind -keys=a -device=d");
  const char *keys[] = {"a", "d"};
  assert_strings(irm_target_keys(t), keys, 2);
  irm_object_release(t);
}
END_TEST

START_TEST(test_static_registration_macro_gives_a_full_target_kind) {
  irm_object *t = target_of("static_kind -model=m");
  ck_assert_int_eq(int_attr(t, "lanes"), 2);
  assert_str_attr(t, "model", "m");
  ck_assert_int_eq(irm_array_size(irm_target_keys(t)), 0);
  irm_object_release(t);
}
END_TEST

START_TEST(test_get_attr_of_unset_option_is_none_and_unknown_is_attribute_error) {
  irm_object *t = target_of("llvm");
  irm_any v = attr_of(t, "mcpu");
  ck_assert_int_eq(v.type_code, IRM_NONE);
  v = attr_of(t, "host");
  ck_assert_int_eq(v.type_code, IRM_NONE);
  ck_assert_error(irm_target_get_attr(t, "mcpux", &v), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("did you mean 'mcpu'?");
  ck_assert_error(irm_target_get_attr(t, "link-params", &v), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("Executor(");
  irm_object_release(t);
}
END_TEST

START_TEST(test_user_kind_check_runs_through_fvalidate) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_register("target", "checked_kind", &k));
  ck_assert_ok(irm_kind_add_option(k, "width", IRM_OPTION_INT, NULL, NULL, 0));
  failure f = {IRM_EVALUE, "ValueError: width must be even", NULL};
  irm_object *check = new_packed(pk_fail, &f, NULL);
  irm_any v = irm_any_object(check);
  ck_assert_ok(irm_kind_set_attr(k, "FValidate", &v, 10));
  ck_assert_parse_fails("checked_kind -width=3", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("width must be even");
  irm_object_release(check);
}
END_TEST

/* ---- the Map form ---------------------------------------------------------------- */

START_TEST(test_map_form_equals_text_form) {
  const char *mattr_items[] = {"+neon", "+dsp"};
  irm_any items[] = {irm_any_str(mattr_items[0]), irm_any_str(mattr_items[1])};
  irm_object *mattr = new_array(items, 2);
  const char *keys[] = {"kind", "mcpu", "mattr", "num-cores", "fast-math"};
  irm_any values[] = {irm_any_str("llvm"), irm_any_str("cortex-a72"), irm_any_object(mattr), irm_any_int(4),
                      irm_any_int(1)};
  irm_object *config = new_map(keys, values, 5);
  irm_object *a = target_from_map(config);
  irm_object *b = target_of("llvm -mcpu=cortex-a72 -mattr=+neon,+dsp -num-cores=4 -fast-math");
  ck_assert(targets_equal(a, b));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(config);
  irm_object_release(mattr);
}
END_TEST

START_TEST(test_map_form_requires_kind) {
  irm_object *config = map2("mcpu", irm_any_str("x"), NULL, irm_any_none());
  irm_object *t = NULL;
  ck_assert_error(irm_target_from_config(config, &t), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'kind'");
  ck_assert_error_mentions("llvm");
  irm_object_release(config);
  config = map2("kind", irm_any_int(3), NULL, irm_any_none());
  ck_assert_error(irm_target_from_config(config, &t), IRM_ETYPE, "TypeError: ");
  irm_object_release(config);
  config = map2("kind", irm_any_str("lvm"), NULL, irm_any_none());
  ck_assert_error(irm_target_from_config(config, &t), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("did you mean 'llvm'?");
  irm_object_release(config);
}
END_TEST

START_TEST(test_map_form_values_need_their_native_type) {
  irm_object *config = map2("kind", irm_any_str("llvm"), "num-cores", irm_any_str("4"));
  irm_object *t = NULL;
  ck_assert_error(irm_target_from_config(config, &t), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("num-cores");
  ck_assert_error_mentions("expected int, got");
  irm_object_release(config);
  config = map2("kind", irm_any_str("llvm"), "mattr", irm_any_str("+neon"));
  ck_assert_error(irm_target_from_config(config, &t), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("array<str>");
  irm_object_release(config);
  config = map2("kind", irm_any_str("llvm"), "fast-math", irm_any_int(1)); /* a bool takes 0/1 */
  t = target_from_map(config);
  irm_any v = attr_of(t, "fast-math");
  ck_assert_int_eq(v.type_code, IRM_BOOL);
  irm_object_release(t);
  irm_object_release(config);
}
END_TEST

START_TEST(test_map_form_unknown_option_suggests_closest) {
  irm_object *config = map2("kind", irm_any_str("llvm"), "mtripel", irm_any_str("x"));
  irm_object *t = NULL;
  ck_assert_error(irm_target_from_config(config, &t), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("did you mean 'mtriple'?");
  irm_object_release(config);
}
END_TEST

START_TEST(test_map_form_executor_and_runtime_options_point_to_their_owner) {
  irm_object *config = map2("kind", irm_any_str("c"), "link-params", irm_any_bool(true));
  irm_object *t = NULL;
  ck_assert_error(irm_target_from_config(config, &t), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("Executor('graph', {'link-params': True})");
  irm_object_release(config);
  config = map2("kind", irm_any_str("c"), "system-lib", irm_any_bool(true));
  ck_assert_error(irm_target_from_config(config, &t), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("Runtime(");
  irm_object_release(config);
}
END_TEST

START_TEST(test_map_form_host_may_be_text_tag_map_or_target) {
  irm_object *expected_host = target_of("llvm -mtriple=aarch64-linux-gnu");
  irm_object *host_map = map2("kind", irm_any_str("llvm"), "mtriple", irm_any_str("aarch64-linux-gnu"));
  irm_any hosts[] = {irm_any_str("llvm -mtriple=aarch64-linux-gnu"), irm_any_object(host_map),
                     irm_any_object(expected_host)};
  for (size_t i = 0; i < 3; i++) {
    irm_object *config = map2("kind", irm_any_str("cuda"), "host", hosts[i]);
    irm_object *t = target_from_map(config);
    ck_assert(targets_equal(irm_target_host(t), expected_host));
    irm_object_release(t);
    irm_object_release(config);
  }
  irm_object *config = map2("kind", irm_any_str("cuda"), "host", irm_any_str("raspberry-pi/4b-aarch64"));
  irm_object *t = target_from_map(config);
  ck_assert_str_eq(irm_target_kind_name(irm_target_host(t)), "llvm");
  irm_object_release(t);
  irm_object_release(config);
  config = map2("kind", irm_any_str("cuda"), "host", irm_any_int(1));
  ck_assert_error(irm_target_from_config(config, &t), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("host");
  irm_object_release(config);
  irm_object_release(host_map);
  irm_object_release(expected_host);
}
END_TEST

/* ---- hosts, Export, equality, JSON -------------------------------------------------- */

START_TEST(test_with_host_replaces_host_and_leaves_the_original) {
  irm_object *t = target_of("cuda --host=llvm");
  irm_object *h = target_of("llvm -mcpu=cortex-a57");
  irm_object *u = NULL;
  ck_assert_ok(irm_target_with_host(t, h, &u));
  ck_assert_ptr_eq(irm_target_host(u), h);
  assert_str_attr(irm_target_host(t), "mcpu", NULL);
  irm_object *none = NULL;
  ck_assert_ok(irm_target_with_host(t, NULL, &none));
  ck_assert_ptr_null(irm_target_host(none));
  irm_object_release(none);
  ck_assert_error(irm_target_with_host(t, irm_target_keys(t), &none), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(none);
  irm_object_release(u);
  irm_object_release(h);
  irm_object_release(t);
}
END_TEST

START_TEST(test_target_global_takes_text_map_tag_or_target_and_a_host) {
  irm_any args[2] = {irm_any_str("cuda"), irm_any_str("llvm -mcpu=x")};
  irm_any t = call_ok("target.Target", args, 2);
  irm_any host = call_ok("target.Host", &t, 1);
  assert_str_attr(host.v_obj, "mcpu", "x");
  irm_any_release(&host);
  irm_any same = call_ok("target.Target", &t, 1);
  ck_assert_ptr_eq(same.v_obj, t.v_obj);
  irm_any_release(&same);
  args[0] = irm_any_str("nvidia/jetson-nano");
  args[1] = irm_any_str("llvm -mcpu=y");
  irm_any tagged = call_ok("target.Target", args, 2);
  assert_str_attr(irm_target_host(tagged.v_obj), "mcpu", "y");
  assert_str_attr(tagged.v_obj, "arch", "sm_53");
  irm_any_release(&tagged);
  args[0] = irm_any_int(5);
  ck_assert_call_fails("target.Target", args, 1, IRM_ETYPE, "TypeError: ");
  irm_any_release(&t);
}
END_TEST

START_TEST(test_kind_host_keys_globals) {
  irm_object *t = target_of("cuda -keys=k --host=llvm");
  irm_any arg = irm_any_object(t);
  irm_any kind = call_ok("target.Kind", &arg, 1);
  ck_assert_str_eq(irm_string_data(kind.v_obj), "cuda");
  irm_any keys = call_ok("target.Keys", &arg, 1);
  const char *expected[] = {"k", "cuda", "gpu"};
  assert_strings(keys.v_obj, expected, 3);
  irm_any host = call_ok("target.Host", &arg, 1);
  irm_any no_host = call_ok("target.Host", &host, 1);
  ck_assert_int_eq(no_host.type_code, IRM_NONE);
  irm_any get[2] = {arg, irm_any_str("thread_warp_size")};
  irm_any warp = call_ok("target.GetAttr", get, 2);
  ck_assert_int_eq(warp.v_int, 32);
  get[1] = irm_any_str("mcpu");
  irm_any unset = call_ok("target.GetAttr", get, 2);
  ck_assert_int_eq(unset.type_code, IRM_NONE);
  irm_any wrong = irm_any_int(3);
  ck_assert_call_fails("target.Kind", &wrong, 1, IRM_ETYPE, "TypeError: ");
  ck_assert_call_fails("target.AsString", &wrong, 1, IRM_ETYPE, "TypeError: ");
  irm_any_release(&kind);
  irm_any_release(&keys);
  irm_any_release(&host);
  irm_object_release(t);
}
END_TEST

START_TEST(test_export_gives_the_map_form_with_a_nested_host) {
  irm_object *t = target_of("cuda -arch=sm_80 --host='llvm -mcpu=a'");
  irm_any arg = irm_any_object(t);
  irm_any config = call_ok("target.Export", &arg, 1);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(config.v_obj, "kind")->v_obj), "cuda");
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(config.v_obj, "arch")->v_obj), "sm_80");
  ck_assert_int_eq(irm_map_find_cstr(config.v_obj, "thread_warp_size")->v_int, 32);
  const irm_any *host = irm_map_find_cstr(config.v_obj, "host");
  ck_assert_str_eq(irm_object_type_key(host->v_obj), "ffi.Map");
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(host->v_obj, "mcpu")->v_obj), "a");
  irm_object *back = target_from_map(config.v_obj);
  ck_assert(targets_equal(back, t));
  irm_object_release(back);
  irm_any_release(&config);
  irm_object_release(t);
}
END_TEST

START_TEST(test_export_round_trips_every_tag) {
  irm_any tags = call_ok("target.ListTags", NULL, 0);
  for (size_t i = 0; i < irm_array_size(tags.v_obj); i++) {
    irm_object *t = target_of(irm_string_data(irm_array_at(tags.v_obj, i)->v_obj));
    irm_object *config = NULL;
    ck_assert_ok(irm_target_export(t, &config));
    irm_object *back = target_from_map(config);
    ck_assert(targets_equal(back, t));
    irm_object_release(back);
    irm_object_release(config);
    irm_object_release(t);
  }
  irm_any_release(&tags);
}
END_TEST

START_TEST(test_structural_equality_and_hash_follow_options_and_host) {
  irm_object *a = target_of("llvm -mcpu=a --host=c");
  irm_object *b = target_of("llvm --host c -mcpu a");
  irm_object *c = target_of("llvm -mcpu=a --host='c -mcpu=x'");
  irm_object *d = target_of("llvm -mcpu=b --host=c");
  irm_any args[2] = {irm_any_object(a), irm_any_object(b)};
  irm_any eq = call_ok("ffi.StructuralEqual", args, 2);
  ck_assert_int_eq(eq.v_int, 1);
  ck_assert(!targets_equal(a, c));
  ck_assert(!targets_equal(a, d));
  irm_any ha = call_ok("ffi.StructuralHash", &args[0], 1);
  irm_any hb = call_ok("ffi.StructuralHash", &args[1], 1);
  ck_assert(ha.v_int == hb.v_int);
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
  irm_object_release(d);
}
END_TEST

START_TEST(test_json_round_trips_targets_with_hosts) {
  const char *texts[] = {"llvm", "cuda -arch=sm_80 --host='llvm -mtriple=aarch64-linux-gnu -mattr=+neon,+dsp'",
                         "nvidia/jetson-nano", "c -mcpu='a b' -libs=x,y", "raspberry-pi/4b-aarch64"};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    irm_object *t = target_of(texts[i]);
    irm_any arg = irm_any_object(t);
    irm_any json = call_ok("ffi.ToJSON", &arg, 1);
    irm_any back = call_ok("ffi.FromJSON", &json, 1);
    ck_assert_str_eq(irm_object_type_key(back.v_obj), "target.Target");
    ck_assert(targets_equal(back.v_obj, t));
    ck_assert(irm_target_host(back.v_obj) == NULL || irm_is_target(irm_target_host(back.v_obj)));
    irm_any_release(&back);
    irm_any_release(&json);
    irm_object_release(t);
  }
}
END_TEST

START_TEST(test_repr_shows_the_canonical_string) {
  irm_object *t = target_of("llvm -mcpu='a b'");
  irm_any arg = irm_any_object(t);
  irm_any s = call_ok("ffi.Repr", &arg, 1);
  ck_assert_str_eq(irm_string_data(s.v_obj), "target.Target(\"llvm -keys=cpu -mcpu='a b'\")");
  irm_any_release(&s);
  irm_object_release(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("target");
  TCase *tc = tcase_create("target");
  tcase_add_test(tc, test_builtin_kinds_are_listed);
  tcase_add_test(tc, test_every_kind_has_the_common_options);
  tcase_add_test(tc, test_llvm_has_tvm_options_with_their_types);
  tcase_add_test(tc, test_cuda_fills_warp_size_and_max_num_threads);
  tcase_add_test(tc, test_cuda_arch_must_start_with_sm);
  tcase_add_test(tc, test_rocm_mcpu_must_start_with_gfx);
  tcase_add_test(tc, test_default_keys_per_kind);
  tcase_add_test(tc, test_keys_are_user_keys_then_device_then_defaults_without_duplicates);
  tcase_add_test(tc, test_kind_registered_later_gets_common_options);
  tcase_add_test(tc, test_static_registration_macro_gives_a_full_target_kind);
  tcase_add_test(tc, test_get_attr_of_unset_option_is_none_and_unknown_is_attribute_error);
  tcase_add_test(tc, test_user_kind_check_runs_through_fvalidate);
  tcase_add_test(tc, test_map_form_equals_text_form);
  tcase_add_test(tc, test_map_form_requires_kind);
  tcase_add_test(tc, test_map_form_values_need_their_native_type);
  tcase_add_test(tc, test_map_form_unknown_option_suggests_closest);
  tcase_add_test(tc, test_map_form_executor_and_runtime_options_point_to_their_owner);
  tcase_add_test(tc, test_map_form_host_may_be_text_tag_map_or_target);
  tcase_add_test(tc, test_with_host_replaces_host_and_leaves_the_original);
  tcase_add_test(tc, test_target_global_takes_text_map_tag_or_target_and_a_host);
  tcase_add_test(tc, test_kind_host_keys_globals);
  tcase_add_test(tc, test_export_gives_the_map_form_with_a_nested_host);
  tcase_add_test(tc, test_export_round_trips_every_tag);
  tcase_add_test(tc, test_structural_equality_and_hash_follow_options_and_host);
  tcase_add_test(tc, test_json_round_trips_targets_with_hosts);
  tcase_add_test(tc, test_repr_shows_the_canonical_string);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
