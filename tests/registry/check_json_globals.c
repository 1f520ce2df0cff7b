/* The JSON globals ffi.ToJSON and ffi.FromJSON (json.h): round trips, and
 * errors named after the function. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_json_util.h"

START_TEST(test_global_to_json_and_from_json_round_trip) {
  irm_object *p = new_point(7, 8, "g");
  irm_any items[] = {irm_any_object(p), irm_any_str("s"), irm_any_int(3)};
  irm_object *arr = new_array(items, 3);
  irm_any arg = irm_any_object(arr);
  irm_any text = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.ToJSON", &arg, 1, &text));
  ck_assert_int_eq(text.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(text.v_obj), "ffi.String");
  irm_any back = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.FromJSON", &text, 1, &back));
  irm_any pair[] = {arg, back}, eq = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.StructuralEqual", pair, 2, &eq));
  ck_assert_int_eq(eq.type_code, IRM_BOOL);
  ck_assert_int_eq(eq.v_int, 1);
  /* a borrowed str argument works too */
  irm_any str_arg = irm_any_str(irm_string_data(text.v_obj)), again = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.FromJSON", &str_arg, 1, &again));
  ck_assert(equal(&again, &back));
  irm_any_release(&again);
  irm_any_release(&back);
  irm_any_release(&text);
  irm_object_release(arr);
  irm_object_release(p);
}
END_TEST

START_TEST(test_global_to_json_accepts_scalars) {
  irm_any arg = irm_any_float(0.25), text = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.ToJSON", &arg, 1, &text));
  ck_assert_str_eq(irm_string_data(text.v_obj), "{\"irm_json\": 1, \"root\": 0.25, \"nodes\": []}");
  irm_any_release(&text);
}
END_TEST

START_TEST(test_global_errors_name_the_function) {
  int x;
  irm_any arg = irm_any_ptr(&x), ret = irm_any_none();
  ck_assert_error(irm_func_call_global("ffi.ToJSON", &arg, 1, &ret), IRM_EVALUE,
                  "ValueError: ffi.ToJSON: cannot serialize a ptr value");
  ck_assert_int_eq(ret.type_code, IRM_NONE);

  arg = irm_any_str("{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Mapp\"}]}");
  ck_assert_error(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), IRM_EKEY,
                  "KeyError: ffi.FromJSON: node 0: type 'ffi.Mapp' is not registered (did you "
                  "mean 'ffi.Map'?)");

  arg = irm_any_str("{\"irm_json\": 3, \"root\": null, \"nodes\": []}");
  ck_assert_error(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), IRM_EVALUE,
                  "ValueError: ffi.FromJSON: unsupported irm_json version 3");

  arg = irm_any_int(5);
  ck_assert_error(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), IRM_ETYPE,
                  "TypeError: ffi.FromJSON: argument 1: expected str, got int");

  ck_assert_error(irm_func_call_global("ffi.ToJSON", NULL, 0, &ret), IRM_ETYPE,
                  "TypeError: ffi.ToJSON takes 1 argument, got 0");
  irm_any two[] = {irm_any_str("a"), irm_any_str("b")};
  ck_assert_error(irm_func_call_global("ffi.FromJSON", two, 2, &ret), IRM_ETYPE,
                  "TypeError: ffi.FromJSON takes 1 argument, got 2");
}
END_TEST

START_TEST(test_global_from_json_reports_depth_errors) {
  enum { LEVELS = 10000 };
  char *deep = malloc(LEVELS + 1);
  ck_assert_ptr_nonnull(deep);
  memset(deep, '[', LEVELS);
  deep[LEVELS] = '\0';
  irm_any arg = irm_any_str(deep), ret = irm_any_none();
  ck_assert_error(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), IRM_EVALUE,
                  "ValueError: ffi.FromJSON: malformed JSON at line 1, column 2049: maximum "
                  "parsing depth reached");
  free(deep);
}
END_TEST

START_TEST(test_global_from_json_reads_text_holding_nul_bytes) {
  static const char text[] = "{\"irm_json\": 1, \"root\": 1, \"nodes\": []}\0junk";
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new(text, sizeof text - 1, &s));
  irm_any arg = irm_any_object(s), ret = irm_any_none();
  ck_assert_error(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), IRM_EVALUE,
                  "ValueError: ffi.FromJSON: malformed JSON at line 1, column 40: end of file "
                  "expected near byte 0x00");
  irm_object_release(s);
}
END_TEST

/* Every reader error reaches a caller of ffi.FromJSON with the same kind
 * and text, after the function's name. */
START_TEST(test_global_from_json_reports_every_reader_error_by_name) {
  point_type();
  static const char *const docs[] = {
      "",
      "{",
      "[1]",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": []} x",
      "{\"irm_json\": 9, \"root\": null, \"nodes\": []}",
      "{\"irm_json\": [], \"root\": null, \"nodes\": []}",
      "{\"irm_json\": 1, \"nodes\": []}",
      "{\"irm_json\": 1, \"root\": null}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [], \"extra\": 1}",
      "{\"irm_json\": 1, \"root\": {\"ref\": 0}, \"nodes\": []}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [7]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Strin\"}]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Array\", \"items\": {}}]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Array\", \"items\": "
      "[{\"ref\": 3}]}]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Map\", \"keys\": [1], "
      "\"values\": [1]}]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Map\", \"keys\": [], "
      "\"values\": []}, {\"type\": \"test.Point\", \"fields\": {\"ref\": 0}}]}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"ffi.Function\", "
      "\"fields\": {\"ref\": 0}}]}",
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    irm_any out = irm_any_none();
    int rc = irm_from_json(docs[i], strlen(docs[i]), &out);
    ck_assert_msg(rc != 0, "document %zu was accepted", i);
    char expected[1024];
    const char *msg = irm_last_error(), *colon = strstr(msg, ": ");
    ck_assert_ptr_nonnull(colon);
    snprintf(expected, sizeof expected, "%.*s: ffi.FromJSON: %s", (int)(colon - msg), msg, colon + 2);
    irm_any arg = irm_any_str(docs[i]), ret = irm_any_none();
    ck_assert_int_eq(irm_func_call_global("ffi.FromJSON", &arg, 1, &ret), rc);
    ck_assert_str_eq(irm_last_error(), expected);
    ck_assert_int_eq(ret.type_code, IRM_NONE);
  }
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *json_globals_suite(void) {
  Suite *s = suite_create("json_globals");

  TCase *tc = tcase_create("globals");
  tcase_add_test(tc, test_global_to_json_and_from_json_round_trip);
  tcase_add_test(tc, test_global_to_json_accepts_scalars);
  tcase_add_test(tc, test_global_errors_name_the_function);
  tcase_add_test(tc, test_global_from_json_reports_depth_errors);
  tcase_add_test(tc, test_global_from_json_reads_text_holding_nul_bytes);
  tcase_add_test(tc, test_global_from_json_reports_every_reader_error_by_name);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(json_globals_suite()); }
