/* Target text (target.h): the forms of options, quoting, values and their
 * types, every parse error, hosts, and the canonical text (AsString) that
 * parses back to an equal target. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include <irm/irm.h>

#include "check_target_util.h"

/* parse(a) and parse(b) must give equal targets. */
static void assert_same_target(const char *a, const char *b) {
  irm_object *x = target_of(a), *y = target_of(b);
  ck_assert_msg(targets_equal(x, y), "'%s' and '%s' differ", a, b);
  irm_object_release(x);
  irm_object_release(y);
}

/* print(t) parses back to t, and printing that gives the same text. */
static void assert_round_trip(const irm_object *t) {
  static char first[1 << 15], second[1 << 15];
  text_of(t, first, sizeof first);
  irm_object *back = target_of(first);
  ck_assert_msg(targets_equal(back, t), "'%s' parses to another target", first);
  ck_assert_str_eq(text_of(back, second, sizeof second), first);
  irm_object_release(back);
}

/* A user kind with an option of every type that has a text form. */
static void register_typed_kind(void) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_register("target", "typed", &k));
  ck_assert_ok(irm_kind_add_option(k, "f", IRM_OPTION_FLOAT, NULL, NULL, 0));
  ck_assert_ok(irm_kind_add_option(k, "ints", IRM_OPTION_ARRAY_INT, NULL, NULL, 0));
  ck_assert_ok(irm_kind_add_option(k, "s", IRM_OPTION_STR, NULL, NULL, 0));
  ck_assert_ok(irm_kind_add_option(k, "strs", IRM_OPTION_ARRAY_STR, NULL, NULL, 0));
  ck_assert_ok(irm_kind_add_option(k, "b", IRM_OPTION_BOOL, NULL, NULL, 0));
  ck_assert_ok(irm_kind_add_option(k, "other", IRM_OPTION_TARGET, NULL, NULL, 0));
  ck_assert_ok(irm_kind_add_option(k, "m", IRM_OPTION_MAP, NULL, NULL, 0));
}

/* ---- forms ---------------------------------------------------------------------- */

START_TEST(test_key_value_forms_are_equivalent) {
  assert_same_target("llvm -mcpu=cortex-a72", "llvm --mcpu=cortex-a72");
  assert_same_target("llvm -mcpu=cortex-a72", "llvm -mcpu cortex-a72");
  assert_same_target("llvm -mcpu=cortex-a72", "llvm --mcpu cortex-a72");
  assert_same_target("llvm -mcpu=cortex-a72", "  llvm \t -mcpu=cortex-a72  ");
}
END_TEST

START_TEST(test_bare_flag_is_true_for_a_bool_option) {
  irm_object *t = target_of("llvm -fast-math -mcpu=x");
  irm_any v = attr_of(t, "fast-math");
  ck_assert_int_eq(v.type_code, IRM_BOOL);
  ck_assert_int_eq(v.v_int, 1);
  irm_object_release(t);
  assert_same_target("llvm -fast-math", "llvm -fast-math=1");
  assert_same_target("llvm -fast-math --fast-math-nnan", "llvm -fast-math=true -fast-math-nnan=TRUE");
}
END_TEST

START_TEST(test_bool_values_take_1_0_true_false_in_any_case) {
  const char *yes[] = {"1", "true", "True", "TRUE"}, *no[] = {"0", "false", "False", "FALSE"};
  for (size_t i = 0; i < 4; i++) {
    char text[64];
    snprintf(text, sizeof text, "llvm -fast-math=%s -fast-math-nsz=%s", yes[i], no[i]);
    irm_object *t = target_of(text);
    ck_assert_int_eq(attr_of(t, "fast-math").v_int, 1);
    ck_assert_int_eq(attr_of(t, "fast-math-nsz").v_int, 0);
    irm_object_release(t);
  }
  ck_assert_parse_fails("llvm -fast-math=yes", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("fast-math");
  ck_assert_error_mentions("expected bool");
  ck_assert_error_mentions("'yes'");
}
END_TEST

START_TEST(test_bare_flag_of_other_types_is_an_error) {
  ck_assert_parse_fails("llvm -mcpu", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'mcpu'");
  ck_assert_error_mentions("str");
  ck_assert_parse_fails("llvm -num-cores -mcpu=x", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'num-cores'");
  ck_assert_error_mentions("int");
}
END_TEST

START_TEST(test_value_word_is_taken_only_when_it_does_not_start_with_dash) {
  irm_object *t = target_of("llvm -fast-math -mcpu a");
  ck_assert_int_eq(attr_of(t, "fast-math").v_int, 1);
  assert_str_attr(t, "mcpu", "a");
  irm_object_release(t);
  t = target_of("llvm -num-cores=-1");
  ck_assert_int_eq(int_attr(t, "num-cores"), -1);
  irm_object_release(t);
}
END_TEST

START_TEST(test_option_given_twice_is_an_error) {
  ck_assert_parse_fails("llvm -mcpu=a -mcpu=b", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'mcpu' is given twice");
  ck_assert_error_mentions("-mcpu=a");
  ck_assert_error_mentions("-mcpu=b");
  ck_assert_parse_fails("llvm --mcpu a -mcpu=a", IRM_EVALUE, "ValueError: ");
  ck_assert_parse_fails("llvm -fast-math -fast-math", IRM_EVALUE, "ValueError: ");
}
END_TEST

/* ---- words and quotes -------------------------------------------------------------- */

START_TEST(test_empty_text_is_a_value_error) {
  ck_assert_parse_fails("", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("empty");
  ck_assert_parse_fails("   \t ", IRM_EVALUE, "ValueError: ");
  irm_object *t = NULL;
  ck_assert_error(irm_target_parse(NULL, &t), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_unbalanced_quote_is_a_value_error) {
  ck_assert_parse_fails("llvm -mcpu='a b", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("unbalanced");
  ck_assert_error_mentions("llvm -mcpu='a b");
  ck_assert_parse_fails("llvm -mcpu=a'", IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_quotes_group_words_and_escapes_are_literal) {
  irm_object *t = target_of("llvm -mcpu='a b' -model=it\\'s -device=back\\\\slash");
  assert_str_attr(t, "mcpu", "a b");
  assert_str_attr(t, "model", "it's");
  assert_str_attr(t, "device", "back\\slash");
  irm_object_release(t);
  t = target_of("llvm -mcpu=''");
  assert_str_attr(t, "mcpu", "");
  irm_object_release(t);
  assert_same_target("llvm -mcpu='cortex-a72'", "llvm -mcpu=cortex-a72");
}
END_TEST

START_TEST(test_array_values_split_on_commas) {
  irm_object *t = target_of("llvm -mattr=+neon,+dsp -libs='cu dnn',\\'a,b\\'");
  irm_any mattr = attr_of(t, "mattr"), libs = attr_of(t, "libs");
  const char *m[] = {"+neon", "+dsp"}, *l[] = {"cu dnn", "a,b"};
  assert_strings(mattr.v_obj, m, 2);
  assert_strings(libs.v_obj, l, 2);
  irm_any_release(&mattr);
  irm_any_release(&libs);
  irm_object_release(t);
  t = target_of("llvm -mattr=''");
  mattr = attr_of(t, "mattr");
  ck_assert_int_eq(irm_array_size(mattr.v_obj), 0);
  irm_any_release(&mattr);
  irm_object_release(t);
}
END_TEST

START_TEST(test_values_parse_into_their_option_types) {
  register_typed_kind();
  irm_object *t = target_of("typed -f=2.5 -ints=1,-2,3 -b=0 -other='c -mcpu=x'");
  irm_any f = attr_of(t, "f"), ints = attr_of(t, "ints"), other = attr_of(t, "other");
  ck_assert_int_eq(f.type_code, IRM_FLOAT);
  ck_assert(f.v_float == 2.5);
  ck_assert_uint_eq(irm_array_size(ints.v_obj), 3);
  ck_assert_int_eq(irm_array_at(ints.v_obj, 1)->v_int, -2);
  ck_assert_str_eq(irm_target_kind_name(other.v_obj), "c");
  irm_any_release(&ints);
  irm_any_release(&other);
  irm_object_release(t);
  ck_assert_parse_fails("typed -ints=1,x", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'ints'");
  ck_assert_error_mentions("expected int");
  ck_assert_parse_fails("typed -m=x", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'m'");
}
END_TEST

/* ---- errors ----------------------------------------------------------------------------- */

START_TEST(test_bad_value_names_option_value_and_type) {
  ck_assert_parse_fails("llvm -num-cores=four", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("option 'num-cores' of target 'llvm'");
  ck_assert_error_mentions("expected int, got 'four'");
  ck_assert_error_mentions("llvm -num-cores=four");
}
END_TEST

START_TEST(test_int_option_out_of_range_is_an_error_quoting_the_text) {
  ck_assert_parse_fails("llvm -num-cores=18446744073709551617", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("option 'num-cores' of target 'llvm'");
  ck_assert_error_mentions("int '18446744073709551617' is out of range");
  ck_assert_parse_fails("llvm -num-cores=-0x8000000000000001", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("int '-0x8000000000000001' is out of range");
}
END_TEST

START_TEST(test_unknown_option_suggests_the_closest) {
  ck_assert_parse_fails("llvm -mcpux=a", IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("'mcpux'");
  ck_assert_error_mentions("did you mean 'mcpu'?");
  ck_assert_parse_fails("cuda -max_thread_per_block=4", IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("did you mean 'max_threads_per_block'?");
}
END_TEST

START_TEST(test_words_that_are_not_options_are_errors) {
  ck_assert_parse_fails("llvm mcpu=a", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'-mcpu=a'");
  ck_assert_parse_fails("llvm ---mcpu=a", IRM_EVALUE, "ValueError: ");
  ck_assert_parse_fails("llvm -=a", IRM_EVALUE, "ValueError: ");
  ck_assert_parse_fails("llvm -", IRM_EVALUE, "ValueError: ");
  ck_assert_parse_fails("llvm -mcpu=", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("empty value");
}
END_TEST

START_TEST(test_unknown_kind_lists_kinds_and_suggests) {
  ck_assert_parse_fails("lvm -mcpu=a", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("did you mean 'llvm'?");
  ck_assert_error_mentions("registered kinds: c, composite, cuda");
  ck_assert_parse_fails("nvidia/jetson-nan", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("did you mean the tag 'nvidia/jetson-nano'?");
}
END_TEST

START_TEST(test_executor_and_runtime_options_point_to_their_owner) {
  static const struct {
    const char *text, *owner;
  } cases[] = {{"c -executor=aot", "Executor('aot')"},
               {"c -link-params", "Executor('graph', {'link-params': True})"},
               {"c -unpacked-api=1", "Executor('aot', {'unpacked-api': True})"},
               {"c -interface-api=c", "Executor('aot', {'interface-api': 'c'})"},
               {"c -workspace-byte-alignment=8", "Executor('aot', {'workspace-byte-alignment'"},
               {"c -constant-byte-alignment=8", "Executor('aot', {'constant-byte-alignment'"},
               {"llvm -runtime=c", "Runtime('crt')"},
               {"llvm -system-lib", "Runtime('cpp', {'system-lib': True})"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_parse_fails(cases[i].text, IRM_EATTR, "AttributeError: ");
    ck_assert_error_mentions(cases[i].owner);
    ck_assert_error_mentions("target.ConvertLegacy");
  }
}
END_TEST

/* ---- hosts ------------------------------------------------------------------------------ */

START_TEST(test_host_forms) {
  assert_same_target("cuda --host=llvm", "cuda -host=llvm");
  assert_same_target("cuda --host=llvm", "cuda --host llvm");
  irm_object *t = target_of("cuda --host='llvm -mcpu=\\'a b\\' -mattr=+neon'");
  irm_object *host = irm_target_host(t);
  assert_str_attr(host, "mcpu", "a b");
  irm_object_release(t);
  t = target_of("cuda --host=raspberry-pi/4b-aarch64");
  assert_str_attr(irm_target_host(t), "tag", "raspberry-pi/4b-aarch64");
  irm_object_release(t);
  ck_assert_parse_fails("cuda --host='lvm'", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'host'");
  ck_assert_error_mentions("did you mean 'llvm'?");
}
END_TEST

/* s as one quoted word of target text. */
static void quote_word(const char *s, char *out) {
  *out++ = '\'';
  for (; *s; s++) {
    if (*s == '\\' || *s == '\'') *out++ = '\\';
    *out++ = *s;
  }
  *out++ = '\'';
  *out = '\0';
}

START_TEST(test_hosts_nest_only_so_deep) {
  static char text[1 << 15], quoted[1 << 15];
  strcpy(text, "llvm");
  irm_object *deepest = NULL;
  for (int hosts = 0; hosts <= IRM_TARGET_MAX_DEPTH; hosts++) {
    if (hosts == IRM_TARGET_MAX_DEPTH) deepest = target_of(text);
    quote_word(text, quoted);
    strcpy(text, "c --host=");
    strcat(text, quoted);
  }
  ck_assert_parse_fails(text, IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("deeper than");
  assert_round_trip(deepest);
  irm_object *c = target_of("c"), *t = NULL;
  ck_assert_error(irm_target_with_host(c, deepest, &t), IRM_EVALUE, "ValueError: ");
  irm_object_release(c);
  irm_object_release(deepest);
}
END_TEST

/* ---- canonical text ------------------------------------------------------------------------ */

START_TEST(test_canonical_text_sorts_options_and_puts_the_host_last) {
  irm_object *t = target_of("cuda --host='llvm -mcpu=a' -arch=sm_80 -libs=cudnn -keys=x");
  ck_assert_target_text(t, "cuda -arch=sm_80 -keys=x,cuda,gpu -libs=cudnn -max_num_threads=1024 "
                           "-thread_warp_size=32 --host='llvm -keys=cpu -mcpu=a'");
  irm_object_release(t);
  t = target_of("llvm -mcpu='a b' -fast-math=0");
  ck_assert_target_text(t, "llvm -fast-math=false -keys=cpu -mcpu='a b'");
  irm_object_release(t);
}
END_TEST

START_TEST(test_canonical_text_round_trips) {
  static const char *const texts[] = {
      "llvm",
      "c",
      "ext_dev",
      "llvm -mcpu=cortex-a72 -mattr=+neon,+dsp -num-cores=4 -fast-math -opt-level=3",
      "llvm -mtriple=aarch64-linux-gnu -mabi=lp64 -mfloat-abi=hard -cl-opt=-unroll-threshold:uint=100",
      "c -mcpu=cortex-m4 -march=armv7e-m -device=arm_cpu -model=stm32",
      "cuda -arch=sm_86 -max_shared_memory_per_block=49152 -libs=cudnn,cublas --host=llvm",
      "rocm -mcpu=gfx908 -mattr=-code-object-v3",
      "opencl -device=mali -max_num_threads=128",
      "vulkan -supports_float16=1 -supports_int8 -mattr=+float16",
      "metal -max_threads_per_block=1024",
      "llvm -mcpu='two words' -model=it\\'s -device=a\\\\b",
      "llvm -libs='a b',\\'c,d\\',\\'\\' -mattr=''",
      "llvm -tag=mine -from_device=1 -keys=''",
      "nvidia/jetson-nano",
      "nvidia/jetson-nano -max_threads_per_block=256",
      "raspberry-pi/4b-aarch64",
      "apple/m1-gpu",
      "aws/cpu/c5.12xlarge",
      "cuda --host='llvm --host=\\'c -mcpu=\\\\\\'x y\\\\\\'\\''",
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    irm_object *t = target_of(texts[i]);
    assert_round_trip(t);
    irm_object_release(t);
  }
}
END_TEST

START_TEST(test_canonical_text_round_trips_every_type) {
  register_typed_kind();
  irm_object *t = target_of("typed -f=0.1 -ints=1,2,-3 -s=x -strs=a -b -other='llvm -mcpu=z'");
  assert_round_trip(t);
  irm_object_release(t);
  irm_object *map = new_map(NULL, NULL, 0);
  const char *keys[] = {"kind", "m"};
  irm_any values[] = {irm_any_str("typed"), irm_any_object(map)};
  irm_object *config = new_map(keys, values, 2);
  t = target_from_map(config);
  irm_object *s = NULL;
  ck_assert_error(irm_target_as_string(t, &s), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'m'");
  irm_object_release(t);
  irm_object_release(config);
  irm_object_release(map);
}
END_TEST

/* A small deterministic generator (xorshift). */
static uint32_t next_random(uint32_t *state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

/* A random string over the characters that need quoting or escaping. */
static void random_text(uint32_t *state, char *buf, size_t max) {
  static const char alphabet[] = "ab ,'\\=-\t";
  size_t n = next_random(state) % max;
  for (size_t i = 0; i < n; i++) buf[i] = alphabet[next_random(state) % (sizeof alphabet - 1)];
  buf[n] = '\0';
}

START_TEST(test_canonical_text_round_trips_random_strings_and_arrays) {
  uint32_t state = 2463534242u;
  for (int round = 0; round < 400; round++) {
    char s[12], items[3][12];
    random_text(&state, s, sizeof s);
    size_t n = next_random(&state) % 4;
    irm_any array_items[3];
    for (size_t i = 0; i < n; i++) {
      random_text(&state, items[i], sizeof items[i]);
      array_items[i] = irm_any_str(items[i]);
    }
    irm_object *arr = new_array(array_items, n);
    const char *keys[] = {"kind", "model", "libs", "host"};
    irm_any values[] = {irm_any_str("llvm"), irm_any_str(s), irm_any_object(arr), irm_any_none()};
    irm_object *host_config = new_map(keys, values, 3);
    values[3] = irm_any_object(host_config);
    irm_object *config = new_map(keys, values, 4);
    irm_object *t = target_from_map(config);
    assert_round_trip(t);
    irm_object_release(t);
    irm_object_release(config);
    irm_object_release(host_config);
    irm_object_release(arr);
  }
}
END_TEST

/* ---- the JSON form ------------------------------------------------------------ */

START_TEST(test_json_text_is_read_as_the_map_form) {
  irm_object *json = target_of("{\"kind\": \"llvm\", \"mcpu\": \"cortex-a72\"}");
  irm_object *text = target_of("llvm -mcpu=cortex-a72");
  ck_assert(targets_equal(json, text));
  irm_object_release(json);
  irm_object_release(text);
}
END_TEST

START_TEST(test_json_text_may_start_with_space_and_carries_typed_values_and_a_host) {
  irm_object *json =
      target_of(" \n\t{\"kind\": \"llvm\", \"mattr\": [\"+neon\", \"+dsp\"], \"num-cores\": 4, \"fast-math\": true,"
                " \"mabi\": null, \"host\": {\"kind\": \"c\", \"mcpu\": \"x\"}}");
  irm_object *text = target_of("llvm -mattr=+neon,+dsp -num-cores=4 -fast-math --host='c -mcpu=x'");
  ck_assert(targets_equal(json, text));
  irm_any unset = attr_of(json, "mabi"); /* null: not given */
  ck_assert_int_eq(unset.type_code, IRM_NONE);
  irm_object_release(json);
  irm_object_release(text);
}
END_TEST

START_TEST(test_json_text_works_as_a_host_and_through_the_global) {
  irm_object *t = target_of("cuda --host='{\"kind\": \"llvm\", \"mcpu\": \"a b\"}'");
  assert_str_attr(irm_target_host(t), "mcpu", "a b");
  irm_any arg = irm_any_str("{\"kind\": \"c\"}");
  irm_object *c = call_obj("target.Target", &arg, 1, IRM_TARGET_TYPE_KEY);
  ck_assert_str_eq(irm_target_kind_name(c), "c");
  irm_object_release(c);
  irm_object_release(t);
}
END_TEST

START_TEST(test_malformed_json_is_a_value_error_with_line_and_column) {
  ck_assert_parse_fails("{\"kind\": \"llvm\",\n \"mcpu\": ", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("malformed JSON");
  ck_assert_error_mentions("line 2, column");
  ck_assert_parse_fails("{\"kind\": \"llvm\"} -mcpu=a", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("malformed JSON");
  ck_assert_parse_fails("{\"kind\": \"llvm\", \"kind\": \"c\"}", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("duplicate");
}
END_TEST

START_TEST(test_json_values_are_checked_like_the_map_form) {
  ck_assert_parse_fails("{\"kind\": \"llvm\", \"mcpu\": 3}", IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("'mcpu'");
  ck_assert_error_mentions("expected str, got int");
  ck_assert_parse_fails("{\"kind\": \"llvm\", \"mcpuu\": \"a\"}", IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("did you mean 'mcpu'?");
  ck_assert_parse_fails("{\"mcpu\": \"a\"}", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'kind'");
}
END_TEST

START_TEST(test_json_nesting_is_bounded) {
  char text[512];
  int n = snprintf(text, sizeof text, "{\"kind\": \"llvm\", \"keys\": ");
  for (int i = 0; i < 100; i++) text[n++] = '[';
  for (int i = 0; i < 100; i++) text[n++] = ']';
  snprintf(text + n, sizeof text - (size_t)n, "}");
  ck_assert_parse_fails(text, IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("deeper");
}
END_TEST

/* Checked where the text enters, so that every target that parses can be
 * saved as JSON (whose writer refuses what is not UTF-8). */
START_TEST(test_text_that_is_not_utf8_is_a_value_error_naming_the_offset) {
  ck_assert_parse_fails("llvm -mcpu=caf\xc3", IRM_EVALUE,
                        "ValueError: the target string is not valid UTF-8 (byte 0xc3 at offset 14)");
  ck_assert_parse_fails("llvm -keys=\xf4\x90\x80\x80", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("(byte 0xf4 at offset 11)");
  ck_assert_parse_fails("c --host='llvm -mcpu=\xe0\x80\x80'", IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("offset 21");
  irm_object *t = target_of("llvm -mcpu='caf\xc3\xa9 \xf0\x9f\x98\x80'");
  irm_any v = irm_any_object(t);
  irm_object *json = NULL;
  ck_assert_ok(irm_to_json(&v, &json));
  irm_object_release(json);
  irm_object_release(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("target_parse");
  TCase *tc = tcase_create("target_parse");
  tcase_add_test(tc, test_key_value_forms_are_equivalent);
  tcase_add_test(tc, test_bare_flag_is_true_for_a_bool_option);
  tcase_add_test(tc, test_bool_values_take_1_0_true_false_in_any_case);
  tcase_add_test(tc, test_bare_flag_of_other_types_is_an_error);
  tcase_add_test(tc, test_value_word_is_taken_only_when_it_does_not_start_with_dash);
  tcase_add_test(tc, test_option_given_twice_is_an_error);
  tcase_add_test(tc, test_empty_text_is_a_value_error);
  tcase_add_test(tc, test_unbalanced_quote_is_a_value_error);
  tcase_add_test(tc, test_quotes_group_words_and_escapes_are_literal);
  tcase_add_test(tc, test_array_values_split_on_commas);
  tcase_add_test(tc, test_values_parse_into_their_option_types);
  tcase_add_test(tc, test_bad_value_names_option_value_and_type);
  tcase_add_test(tc, test_int_option_out_of_range_is_an_error_quoting_the_text);
  tcase_add_test(tc, test_text_that_is_not_utf8_is_a_value_error_naming_the_offset);
  tcase_add_test(tc, test_unknown_option_suggests_the_closest);
  tcase_add_test(tc, test_words_that_are_not_options_are_errors);
  tcase_add_test(tc, test_unknown_kind_lists_kinds_and_suggests);
  tcase_add_test(tc, test_executor_and_runtime_options_point_to_their_owner);
  tcase_add_test(tc, test_host_forms);
  tcase_add_test(tc, test_hosts_nest_only_so_deep);
  tcase_add_test(tc, test_canonical_text_sorts_options_and_puts_the_host_last);
  tcase_add_test(tc, test_canonical_text_round_trips);
  tcase_add_test(tc, test_canonical_text_round_trips_every_type);
  tcase_add_test(tc, test_canonical_text_round_trips_random_strings_and_arrays);
  tcase_add_test(tc, test_json_text_is_read_as_the_map_form);
  tcase_add_test(tc, test_json_text_may_start_with_space_and_carries_typed_values_and_a_host);
  tcase_add_test(tc, test_json_text_works_as_a_host_and_through_the_global);
  tcase_add_test(tc, test_malformed_json_is_a_value_error_with_line_and_column);
  tcase_add_test(tc, test_json_values_are_checked_like_the_map_form);
  tcase_add_test(tc, test_json_nesting_is_bounded);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
