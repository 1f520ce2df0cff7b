/* The composite target kind (TVM's): one target made of several, held in
 * its "devices" option of type array<target>. Made from a Map config, from
 * JSON text and from target text; printed, exported and serialized so that
 * each form reads back to an equal target. */
#include <check.h>

#include "check_target_util.h"

/* A composite of an llvm device with a host and -mattr (commas and quotes
 * to survive printing) and a cuda device given as a Map. NEW. */
static irm_object *two_device_config(void) {
  irm_object *cuda = map1("kind", irm_any_str("cuda"));
  irm_object *with_arch = NULL;
  irm_any arch = irm_any_str("sm_80");
  ck_assert_ok(irm_map_with_set(cuda, "arch", &arch, &with_arch));
  irm_any devices[] = {
      irm_any_str(
          "llvm -mcpu=cortex-a72 -mattr=+neon,+dsp -model=it\\'s --host='llvm -mtriple=aarch64-linux-gnu -mcpu=a'"),
      irm_any_object(with_arch)};
  irm_object *list = new_array(devices, 2);
  const char *keys[] = {"kind", "devices"};
  irm_any values[] = {irm_any_str("composite"), irm_any_object(list)};
  irm_object *config = new_map(keys, values, 2);
  irm_object_release(list);
  irm_object_release(with_arch);
  irm_object_release(cuda);
  return config;
}

static irm_object *two_device_target(void) {
  irm_object *config = two_device_config();
  irm_object *t = target_from_map(config);
  irm_object_release(config);
  return t;
}

/* The devices of t (NEW Array), which must hold n Targets. */
static irm_object *devices_of(const irm_object *t, size_t n) {
  irm_any v = attr_of(t, "devices");
  ck_assert_msg(v.type_code == IRM_OBJECT && irm_object_is(v.v_obj, "ffi.Array"), "devices is %s",
                irm_any_type_name(&v));
  ck_assert_uint_eq(irm_array_size(v.v_obj), n);
  for (size_t i = 0; i < n; i++) ck_assert(irm_is_target(irm_array_at(v.v_obj, i)->v_obj));
  return v.v_obj;
}

static const irm_object *device(const irm_object *devices, size_t i) { return irm_array_at(devices, i)->v_obj; }

START_TEST(test_composite_is_a_kind_with_an_array_of_targets_option) {
  irm_any name = irm_any_str("composite");
  irm_object *options = call_obj("target.ListKindOptions", &name, 1, "ffi.Map");
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(options, "devices")->v_obj), "array<target>");
  irm_object_release(options);
}
END_TEST

START_TEST(test_composite_from_a_map_makes_every_device_a_target) {
  irm_object *t = two_device_target();
  ck_assert_str_eq(irm_target_kind_name(t), "composite");
  irm_object *devices = devices_of(t, 2);
  ck_assert_str_eq(irm_target_kind_name(device(devices, 0)), "llvm");
  assert_str_attr(device(devices, 0), "mcpu", "cortex-a72");
  ck_assert_ptr_nonnull(irm_target_host(device(devices, 0)));
  assert_str_attr(device(devices, 0), "model", "it's");
  assert_str_attr(irm_target_host(device(devices, 0)), "mtriple", "aarch64-linux-gnu");
  ck_assert_str_eq(irm_target_kind_name(device(devices, 1)), "cuda");
  assert_str_attr(device(devices, 1), "arch", "sm_80");
  irm_object_release(devices);
  irm_object_release(t);
}
END_TEST

START_TEST(test_composite_devices_may_be_targets_or_tag_names) {
  irm_object *llvm = target_of("llvm");
  irm_any devices[] = {irm_any_object(llvm), irm_any_str("nvidia/jetson-nano")};
  irm_object *list = new_array(devices, 2);
  const char *keys[] = {"kind", "devices"};
  irm_any values[] = {irm_any_str("composite"), irm_any_object(list)};
  irm_object *config = new_map(keys, values, 2);
  irm_any arg = irm_any_object(config);
  irm_object *t = call_obj("target.Target", &arg, 1, IRM_TARGET_TYPE_KEY);
  irm_object *got = devices_of(t, 2);
  ck_assert_ptr_eq(device(got, 0), llvm); /* a Target is kept as it is */
  assert_str_attr(device(got, 1), "tag", "nvidia/jetson-nano");
  irm_object_release(got);
  irm_object_release(t);
  irm_object_release(config);
  irm_object_release(list);
  irm_object_release(llvm);
}
END_TEST

START_TEST(test_composite_from_json_text_equals_the_map_form) {
  irm_object *from_map = two_device_target();
  irm_object *from_json = target_of(
      "  {\"kind\": \"composite\", \"devices\": ["
      "\"llvm -mcpu=cortex-a72 -mattr=+neon,+dsp -model=it\\\\'s --host='llvm -mtriple=aarch64-linux-gnu -mcpu=a'\","
      " {\"kind\": \"cuda\", \"arch\": \"sm_80\"}]}");
  ck_assert(targets_equal(from_map, from_json));
  irm_object_release(from_json);
  irm_object_release(from_map);
}
END_TEST

START_TEST(test_composite_as_string_parses_back_to_an_equal_target) {
  irm_object *t = two_device_target();
  char text[1024], again[1024];
  text_of(t, text, sizeof text);
  irm_object *back = target_of(text);
  ck_assert_msg(targets_equal(t, back), "'%s' parses to another target", text);
  ck_assert_str_eq(text_of(back, again, sizeof again), text);
  irm_object_release(back);
  irm_object_release(t);
}
END_TEST

START_TEST(test_composite_in_target_text_lists_device_strings) {
  irm_object *t = target_of("composite -devices='llvm -mcpu=a',cuda");
  irm_object *devices = devices_of(t, 2);
  assert_str_attr(device(devices, 0), "mcpu", "a");
  ck_assert_str_eq(irm_target_kind_name(device(devices, 1)), "cuda");
  irm_object_release(devices);
  irm_object_release(t);
}
END_TEST

START_TEST(test_composite_export_gives_nested_map_configs_that_round_trip) {
  irm_object *t = two_device_target();
  irm_any arg = irm_any_object(t);
  irm_object *config = call_obj("target.Export", &arg, 1, "ffi.Map");
  const irm_any *devices = irm_map_find_cstr(config, "devices");
  ck_assert_ptr_nonnull(devices);
  ck_assert_uint_eq(irm_array_size(devices->v_obj), 2);
  for (size_t i = 0; i < 2; i++) ck_assert(irm_object_is(irm_array_at(devices->v_obj, i)->v_obj, "ffi.Map"));
  const irm_object *first = irm_array_at(devices->v_obj, 0)->v_obj;
  ck_assert(irm_object_is(irm_map_find_cstr(first, "host")->v_obj, "ffi.Map"));
  irm_object *back = target_from_map(config);
  ck_assert(targets_equal(t, back));
  irm_object_release(back);
  irm_object_release(config);
  irm_object_release(t);
}
END_TEST

START_TEST(test_composite_round_trips_through_ffi_json) {
  irm_object *t = two_device_target();
  irm_any arg = irm_any_object(t);
  irm_any json = call_ok("ffi.ToJSON", &arg, 1);
  irm_object *back = call_obj("ffi.FromJSON", &json, 1, IRM_TARGET_TYPE_KEY);
  ck_assert(targets_equal(t, back));
  irm_object_release(back);
  irm_any_release(&json);
  irm_object_release(t);
}
END_TEST

START_TEST(test_composite_structural_equality_sees_the_devices) {
  irm_object *a = target_of("composite -devices=llvm,cuda"), *b = target_of("composite -devices=llvm,cuda");
  irm_object *c = target_of("composite -devices=cuda,llvm");
  ck_assert(targets_equal(a, b));
  ck_assert(!targets_equal(a, c));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
}
END_TEST

/* Making a composite with devices must fail with code, mentioning every
 * needle. */
static void assert_devices_fail(irm_any devices, int code, const char *prefix, const char *const *needles, size_t n) {
  const char *keys[] = {"kind", "devices"};
  irm_any values[] = {irm_any_str("composite"), devices};
  irm_object *config = new_map(keys, values, 2);
  irm_object *t = (irm_object *)&t;
  ck_assert_error(irm_target_from_config(config, &t), code, prefix);
  ck_assert_ptr_null(t);
  for (size_t i = 0; i < n; i++) ck_assert_error_mentions(needles[i]);
  irm_object_release(config);
}

START_TEST(test_composite_device_of_a_wrong_type_is_a_type_error_naming_devices_and_the_index) {
  irm_any items[] = {irm_any_str("llvm"), irm_any_int(3)};
  irm_object *list = new_array(items, 2);
  static const char *const needles[] = {"'devices'", "item 1", "int"};
  assert_devices_fail(irm_any_object(list), IRM_ETYPE, "TypeError: ", needles, 3);
  irm_object_release(list);
}
END_TEST

START_TEST(test_composite_device_that_does_not_parse_names_devices_and_the_index) {
  irm_any items[] = {irm_any_str("llvm"), irm_any_str("cuda"), irm_any_str("lvm -mcpu=a")};
  irm_object *list = new_array(items, 3);
  static const char *const needles[] = {"'devices'", "item 2", "did you mean 'llvm'?"};
  assert_devices_fail(irm_any_object(list), IRM_EVALUE, "ValueError: ", needles, 3);
  irm_object_release(list);
}
END_TEST

START_TEST(test_composite_devices_that_are_not_an_array_are_a_type_error) {
  static const char *const needles[] = {"'devices'", "expected array<target>"};
  assert_devices_fail(irm_any_str("llvm"), IRM_ETYPE, "TypeError: ", needles, 2);
}
END_TEST

START_TEST(test_array_of_targets_option_checks_items_natively) {
  irm_object *llvm = target_of("llvm");
  irm_any items[] = {irm_any_object(llvm), irm_any_str("cuda")};
  irm_object *list = new_array(items, 2);
  irm_any in = irm_any_object(list), out = irm_any_int(-1);
  ck_assert_error(irm_option_check_value(IRM_OPTION_ARRAY_TARGET, &in, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected array<target>, got an Array whose item 1");
  ck_assert_int_eq(out.type_code, IRM_NONE);
  irm_any only_targets[] = {irm_any_object(llvm)};
  irm_object *ok = new_array(only_targets, 1);
  in = irm_any_object(ok);
  ck_assert_ok(irm_option_check_value(IRM_OPTION_ARRAY_TARGET, &in, &out));
  ck_assert_ptr_eq(out.v_obj, ok);
  irm_any_release(&out);
  irm_object_release(ok);
  irm_object_release(list);
  irm_object_release(llvm);
}
END_TEST

int main(void) {
  Suite *s = suite_create("composite");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_composite_is_a_kind_with_an_array_of_targets_option);
  tcase_add_test(tc, test_composite_from_a_map_makes_every_device_a_target);
  tcase_add_test(tc, test_composite_devices_may_be_targets_or_tag_names);
  tcase_add_test(tc, test_composite_from_json_text_equals_the_map_form);
  tcase_add_test(tc, test_composite_as_string_parses_back_to_an_equal_target);
  tcase_add_test(tc, test_composite_in_target_text_lists_device_strings);
  tcase_add_test(tc, test_composite_export_gives_nested_map_configs_that_round_trip);
  tcase_add_test(tc, test_composite_round_trips_through_ffi_json);
  tcase_add_test(tc, test_composite_structural_equality_sees_the_devices);
  tcase_add_test(tc, test_composite_device_of_a_wrong_type_is_a_type_error_naming_devices_and_the_index);
  tcase_add_test(tc, test_composite_device_that_does_not_parse_names_devices_and_the_index);
  tcase_add_test(tc, test_composite_devices_that_are_not_an_array_are_a_type_error);
  tcase_add_test(tc, test_array_of_targets_option_checks_items_natively);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
