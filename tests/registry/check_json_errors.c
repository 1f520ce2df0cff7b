/* Malformed input to irm_from_json (json.h): truncated and damaged text,
 * bad versions, fields, nodes and references, each reported with where it
 * went wrong. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_json_util.h"

START_TEST(test_every_truncation_of_a_document_is_a_value_error) {
  irm_object *p = new_point(1, 2, "x\n\"y\"");
  irm_any items[] = {irm_any_object(p), irm_any_float(NAN), irm_any_float(0.5), irm_any_none()};
  irm_object *arr = new_array(items, 4);
  irm_any v = irm_any_object(arr);
  irm_object *text = to_json(&v);
  size_t n = irm_string_size(text);
  for (size_t len = 0; len < n; len++) {
    /* a copy of exactly len bytes, so that reading past it is caught */
    char *cut = malloc(len ? len : 1);
    ck_require(cut != NULL, "out of memory");
    memcpy(cut, irm_string_data(text), len);
    irm_any out = irm_any_int(-777);
    int rc = irm_from_json(cut, len, &out);
    ck_require(rc == IRM_EVALUE && out.type_code == IRM_NONE, "truncated at %zu: rc %d, %s", len, rc, irm_last_error());
    ck_require(strstr(irm_last_error(), "ValueError: ") == irm_last_error(), "truncated at %zu: %s", len,
               irm_last_error());
    free(cut);
  }
  irm_object_release(text);
  irm_object_release(arr);
  irm_object_release(p);
}
END_TEST

START_TEST(test_random_byte_damage_never_crashes) {
  irm_object *s = new_string("payload");
  irm_object *p = new_point(5, 6, "q");
  irm_any items[] = {irm_any_object(s), irm_any_object(p),    irm_any_object(s),
                     irm_any_int(12),   irm_any_float(-1.25), irm_any_bool(true)};
  irm_object *arr = new_array(items, 6);
  irm_any v = irm_any_object(arr);
  irm_object *text = to_json(&v);
  size_t n = irm_string_size(text);
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  static const char junk[] = "{}[]\":,0123456789-+.eE \\untrfalsx\x00\xff";
  for (int round = 0; round < 3000; round++) {
    char *copy = malloc(n);
    ck_require(copy != NULL, "out of memory");
    memcpy(copy, irm_string_data(text), n);
    for (int k = 0; k < 1 + round % 3; k++) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      copy[state % n] = junk[(state >> 32) % (sizeof junk - 1)];
    }
    irm_any out = irm_any_none();
    int rc = irm_from_json(copy, n, &out);
    if (rc == 0) irm_any_release(&out);
    else
      ck_require(irm_error_code_of(irm_last_error()) == rc, "round %d: status %d but '%s'", round, rc,
                 irm_last_error());
    free(copy);
  }
  irm_object_release(text);
  irm_object_release(arr);
  irm_object_release(p);
  irm_object_release(s);
}
END_TEST

START_TEST(test_truncated_text_names_line_and_column) {
  read_fails("", IRM_EVALUE, "ValueError: malformed JSON at line 1, column 0: ");
  read_fails("{", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column 1: string or '}' expected near end "
             "of file");
  read_fails("{\"irm_json\": 1,\n \"root\": nul", IRM_EVALUE, "ValueError: malformed JSON at line 2, column ");
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Str", IRM_EVALUE,
             "ValueError: node 0: malformed JSON at line 1, column ");
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": []", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column 41: ',' or '}' expected near end of "
             "file");
}
END_TEST

START_TEST(test_text_after_the_document_is_a_value_error) {
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": []} x", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column 44: end of file expected near 'x'");
}
END_TEST

START_TEST(test_top_level_must_be_an_object) {
  read_fails("[1, 2]", IRM_EVALUE, "ValueError: expected a JSON object");
  ck_assert_error_mentions("got an array");
  read_fails("42", IRM_EVALUE, "ValueError: expected a JSON object");
  read_fails("nonsense", IRM_EVALUE, "ValueError: malformed JSON at line 1, column 8: invalid token near 'nonsense'");
}
END_TEST

START_TEST(test_ten_thousand_levels_of_nesting_hit_the_depth_limit) {
  enum { LEVELS = 10000 };
  char *text = malloc(2 * LEVELS + 64);
  ck_assert_ptr_nonnull(text);
  memset(text, '[', LEVELS);
  memset(text + LEVELS, ']', LEVELS);
  text[2 * LEVELS] = '\0';
  read_fails(text, IRM_EVALUE, "ValueError: malformed JSON at line 1, column 2049: maximum parsing depth reached");
  /* the same inside the root field */
  const char *head = "{\"irm_json\": 1, \"root\": ";
  size_t h = strlen(head);
  memcpy(text, head, h);
  memset(text + h, '[', LEVELS);
  text[h + LEVELS] = '\0';
  read_fails(text, IRM_EVALUE, "ValueError: malformed JSON at line 1, column ");
  ck_assert_error_mentions("maximum parsing depth reached");
  free(text);
}
END_TEST

START_TEST(test_malformed_text_is_reported_with_line_and_column) {
  read_fails("{\"x\":", IRM_EVALUE, "ValueError: malformed JSON at line 1, column 5: ");
  read_fails("[", IRM_EVALUE, "ValueError: malformed JSON at line 1, column 1: ");
  read_fails("", IRM_EVALUE, "ValueError: malformed JSON at line 1, column 0: ");
  read_fails("{\"a\" 1}", IRM_EVALUE, "ValueError: malformed JSON at line 1, column 6: ':' expected near '1'");
  read_fails("{\"irm_json\": 1,\n\"x\": [1,", IRM_EVALUE, "ValueError: malformed JSON at line 2, column ");
  irm_any text = irm_any_str("{\"x\":");
  ck_assert_error(call_fails("ffi.FromJSON", &text, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("malformed JSON at line 1, column 5: ");
}
END_TEST

START_TEST(test_malformed_text_wins_over_an_earlier_error_in_meaning) {
  /* an unknown field, a duplicate field, a bad version, a bad node: each
   * followed by text cut short */
  read_fails("{\"irm_json\": 1, \"roots\": null, \"nodes\": [", IRM_EVALUE,
             "ValueError: node 0: malformed JSON at line 1, column 41: ");
  read_fails("{\"root\": 1, \"root\": 2, \"irm_json\"", IRM_EVALUE, "ValueError: malformed JSON at line 1, column ");
  read_fails("{\"irm_json\": 2, \"root\": null, \"nodes\": [] x", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column ");
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"nope\"}, {\"ty", IRM_EVALUE,
             "ValueError: node 1: malformed JSON at line 1, column ");
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": 7, \"x\": {", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column ");
  /* well-formed, the first error in meaning is what is reported */
  read_fails("{\"roots\": 1, \"root\": 1, \"root\": 2, \"irm_json\": 1, \"nodes\": []}", IRM_EVALUE,
             "ValueError: unknown top-level field 'roots' (did you mean 'root'?)");
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"nope\"}, {\"type\": 1}]}", IRM_EKEY,
             "KeyError: node 0: ");
}
END_TEST

START_TEST(test_huge_unknown_field_name_is_quoted_cut_short) {
  size_t n = (size_t)1 << 20;
  char *text = malloc(n + 64);
  ck_assert_ptr_nonnull(text);
  strcpy(text, "{\"");
  memset(text + 2, 'a', n);
  strcpy(text + 2 + n, "\": 1}");
  read_fails(text, IRM_EVALUE, "ValueError: unknown top-level field 'aaaa");
  ck_assert_uint_lt(strlen(irm_last_error()), 1024);
  ck_assert_error_mentions("aaaa...' (the fields are irm_json, root and nodes)");
  free(text);
}
END_TEST

START_TEST(test_version_is_checked) {
  read_fails("{\"irm_json\": 2, \"root\": null, \"nodes\": []}", IRM_EVALUE,
             "ValueError: unsupported irm_json version 2 (this irm reads version 1)");
  read_fails("{\"irm_json\": \"1\", \"root\": null, \"nodes\": []}", IRM_EVALUE,
             "ValueError: top-level field 'irm_json' (the format version) must be an integer, "
             "got a string");
  read_fails("{\"root\": null, \"nodes\": []}", IRM_EVALUE, "ValueError: missing top-level field 'irm_json'");
}
END_TEST

START_TEST(test_missing_root_or_nodes_is_a_value_error) {
  read_fails("{\"irm_json\": 1, \"nodes\": []}", IRM_EVALUE, "ValueError: missing top-level field 'root'");
  read_fails("{\"irm_json\": 1, \"root\": 1}", IRM_EVALUE, "ValueError: missing top-level field 'nodes'");
  read_fails("{}", IRM_EVALUE, "ValueError: missing top-level field 'irm_json'");
}
END_TEST

START_TEST(test_top_level_fields_are_checked) {
  read_fails("{\"irm_json\": 1, \"roots\": null, \"nodes\": []}", IRM_EVALUE,
             "ValueError: unknown top-level field 'roots' (did you mean 'root'?)");
  read_fails("{\"irm_json\": 1, \"root\": null, \"root\": 1, \"nodes\": []}", IRM_EVALUE,
             "ValueError: top-level field 'root' appears twice");
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": {}}", IRM_EVALUE,
             "ValueError: top-level field 'nodes' must be an array, got an object");
  read_fails("{\"irm_json\": 1 \"root\": null}", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column 16: ',' or '}' expected near '\"'");
  read_fails("{\"irm_json\" 1}", IRM_EVALUE, "ValueError: malformed JSON at line 1, column 13: ':' expected near '1'");
}
END_TEST

START_TEST(test_fields_may_come_in_any_order) {
  const char *text = "{\"nodes\": [{\"type\": \"ffi.String\", \"data\": \"z\"}], "
                     "\"root\": {\"ref\": 0}, \"irm_json\": 1}";
  irm_any out = irm_any_none();
  ck_assert_ok(irm_from_json(text, strlen(text), &out));
  ck_assert_str_eq(irm_string_data(out.v_obj), "z");
  irm_any_release(&out);
}
END_TEST

START_TEST(test_node_shape_is_checked) {
  read_node_fails("3", IRM_EVALUE, "ValueError: node 0 must be a JSON object, got an integer");
  read_node_fails("{\"data\": \"x\"}", IRM_EVALUE, "ValueError: node 0: missing field 'type'");
  read_node_fails("{\"type\": 5}", IRM_EVALUE, "ValueError: node 0: field 'type' must be a string, got an integer");
  read_node_fails("{\"type\": \"ffi.String\", \"dat\": \"x\"}", IRM_EVALUE,
                  "ValueError: node 0 (ffi.String): unknown field 'dat' (did you mean 'data'?)");
}
END_TEST

START_TEST(test_unknown_type_is_a_key_error_with_the_closest_type) {
  read_node_fails("{\"type\": \"ffi.Arrray\", \"items\": []}", IRM_EKEY,
                  "KeyError: node 0: type 'ffi.Arrray' is not registered (did you mean "
                  "'ffi.Array'?)");
  read_node_fails("{\"type\": \"zzzzzzzzzzzzzzzz\", \"fields\": {\"ref\": 0}}", IRM_EKEY,
                  "KeyError: node 0: type 'zzzzzzzzzzzzzzzz' is not registered");
}
END_TEST

START_TEST(test_wrong_json_types_of_node_fields_are_named) {
  static const struct {
    const char *node, *message;
  } cases[] = {
      {"{\"type\": \"ffi.String\", \"data\": 1}",
       "ValueError: node 0 (ffi.String): field 'data' must be a string, got an integer"},
      {"{\"type\": \"ffi.String\"}", "ValueError: node 0 (ffi.String): missing field 'data'"},
      {"{\"type\": \"ffi.Array\", \"items\": \"x\"}",
       "ValueError: node 0 (ffi.Array): field 'items' must be an array, got a string"},
      {"{\"type\": \"ffi.Array\"}", "ValueError: node 0 (ffi.Array): missing field 'items'"},
      {"{\"type\": \"ffi.Map\", \"keys\": {}, \"values\": []}",
       "ValueError: node 0 (ffi.Map): field 'keys' must be an array, got an object"},
      {"{\"type\": \"ffi.Map\", \"keys\": [], \"values\": null}",
       "ValueError: node 0 (ffi.Map): field 'values' must be an array, got null"},
      {"{\"type\": \"ffi.Map\", \"keys\": [\"a\"], \"values\": []}",
       "ValueError: node 0 (ffi.Map): fields 'keys' and 'values' must have the same length, "
       "got 1 and 0"},
      {"{\"type\": \"ffi.Map\", \"keys\": [\"a\", 7], \"values\": [1, 2]}",
       "ValueError: node 0 (ffi.Map): key 1 must be a string, got an integer"},
      {"{\"type\": \"ffi.Map\", \"keys\": [\"a\", \"a\"], \"values\": [1, 2]}",
       "ValueError: node 0 (ffi.Map): key 1 ('a') appears twice"},
      {"{\"type\": \"ffi.Array\", \"items\": [\"text\"]}",
       "ValueError: node 0 (ffi.Array): item 0: expected null, true, false, a number"},
      {"{\"type\": \"ffi.Array\", \"items\": [1, [2]]}", "ValueError: node 0 (ffi.Array): item 1: expected null"},
      {"{\"type\": \"ffi.Array\", \"items\": [{\"ref\": 0, \"x\": 1}]}",
       "ValueError: node 0 (ffi.Array): item 0: expected null"},
      {"{\"type\": \"ffi.Array\", \"items\": [{\"ref\": \"0\"}]}",
       "ValueError: node 0 (ffi.Array): item 0: field 'ref' must be an integer, got a string"},
      {"{\"type\": \"ffi.Array\", \"items\": [{\"float\": \"NaN\"}]}",
       "ValueError: node 0 (ffi.Array): item 0: {\"float\": \"NaN\"}: expected \"nan\""},
      {"{\"type\": \"ffi.Map\", \"keys\": [\"k\"], \"values\": [{\"float\": 1}]}",
       "ValueError: node 0 (ffi.Map): value 0: expected null"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    read_node_fails(cases[i].node, IRM_EVALUE, cases[i].message);
}
END_TEST

START_TEST(test_references_must_point_to_earlier_nodes) {
  read_node_fails("{\"type\": \"ffi.Array\", \"items\": [{\"ref\": 0}]}", IRM_EVALUE,
                  "ValueError: node 0 (ffi.Array): item 0: {\"ref\": 0} must refer to an earlier "
                  "node, and node 0 has none");
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 1}, \"nodes\": [\n"
             "  {\"type\": \"ffi.Array\", \"items\": []},\n"
             "  {\"type\": \"ffi.Array\", \"items\": [{\"ref\": 0}, {\"ref\": 2}]},\n"
             "  {\"type\": \"ffi.Array\", \"items\": []}]}",
             IRM_EVALUE,
             "ValueError: node 1 (ffi.Array): item 1: {\"ref\": 2} must refer to an "
             "earlier node (0 to 0)");
  read_fails("{\"irm_json\": 1, \"root\": null, \"nodes\": [\n"
             "  {\"type\": \"ffi.Array\", \"items\": []},\n"
             "  {\"type\": \"ffi.Array\", \"items\": [{\"ref\": -1}]}]}",
             IRM_EVALUE, "ValueError: node 1 (ffi.Array): item 0: {\"ref\": -1} must refer");
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 1}, \"nodes\": [\n"
             "  {\"type\": \"ffi.Array\", \"items\": []}]}",
             IRM_EVALUE, "ValueError: root: {\"ref\": 1} refers to no node (there are 1)");
  read_fails("{\"irm_json\": 1, \"root\": \"text\", \"nodes\": []}", IRM_EVALUE, "ValueError: root: expected null");
}
END_TEST

START_TEST(test_jansson_number_errors_are_reported) {
  read_fails("{\"irm_json\": 1, \"root\": 99999999999999999999999, \"nodes\": []}", IRM_EVALUE,
             "ValueError: malformed JSON at line 1, column ");
  ck_assert_error_mentions("too big");
}
END_TEST

START_TEST(test_nodes_that_are_never_used_are_still_checked_and_freed) {
  const char *text = "{\"irm_json\": 1, \"root\": 5, \"nodes\": [\n"
                     "  {\"type\": \"ffi.String\", \"data\": \"unused\"},\n"
                     "  {\"type\": \"ffi.Array\", \"items\": [{\"ref\": 0}]}]}";
  irm_any out = irm_any_none();
  ck_assert_ok(irm_from_json(text, strlen(text), &out));
  ck_assert_int_eq(out.type_code, IRM_INT);
  ck_assert_int_eq(out.v_int, 5);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *json_errors_suite(void) {
  Suite *s = suite_create("json_errors");

  TCase *tc = tcase_create("malformed");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_every_truncation_of_a_document_is_a_value_error);
  tcase_add_test(tc, test_random_byte_damage_never_crashes);
  tcase_add_test(tc, test_truncated_text_names_line_and_column);
  tcase_add_test(tc, test_text_after_the_document_is_a_value_error);
  tcase_add_test(tc, test_top_level_must_be_an_object);
  tcase_add_test(tc, test_ten_thousand_levels_of_nesting_hit_the_depth_limit);
  tcase_add_test(tc, test_malformed_text_is_reported_with_line_and_column);
  tcase_add_test(tc, test_malformed_text_wins_over_an_earlier_error_in_meaning);
  tcase_add_test(tc, test_huge_unknown_field_name_is_quoted_cut_short);
  tcase_add_test(tc, test_version_is_checked);
  tcase_add_test(tc, test_missing_root_or_nodes_is_a_value_error);
  tcase_add_test(tc, test_top_level_fields_are_checked);
  tcase_add_test(tc, test_fields_may_come_in_any_order);
  tcase_add_test(tc, test_node_shape_is_checked);
  tcase_add_test(tc, test_unknown_type_is_a_key_error_with_the_closest_type);
  tcase_add_test(tc, test_wrong_json_types_of_node_fields_are_named);
  tcase_add_test(tc, test_references_must_point_to_earlier_nodes);
  tcase_add_test(tc, test_jansson_number_errors_are_reported);
  tcase_add_test(tc, test_nodes_that_are_never_used_are_still_checked_and_freed);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(json_errors_suite()); }
