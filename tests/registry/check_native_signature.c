/* Native function signatures (function.h): every type and its spelling,
 * whitespace, what has none, and the errors of a bad one. The calls
 * themselves are in check_native.c. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

static irm_object *new_native(irm_native_fn fn, const char *sig) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_native(fn, sig, &f));
  ck_assert_ptr_nonnull(f);
  return f;
}

static void dummy(void) {}

/* what out holds before a failing call, which must set it to NULL */
static int ret_marker;

/* ---- signatures ------------------------------------------------------------- */

START_TEST(test_signature_accepts_every_type) {
  static const char *const sigs[] = {
      "void(bool,i32,i64,u64,f32,f64,ptr,str,obj,obj?,any)",
      "void()",
      "bool()",
      "i32()",
      "i64()",
      "u64()",
      "f32()",
      "f64()",
      "ptr()",
      "str()",
      "obj()",
      "obj?()",
      "i64(any)",
  };
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    irm_object *f = new_native(dummy, sigs[i]);
    ck_assert_str_eq(irm_func_signature(f), sigs[i]);
    irm_object_release(f);
  }
}
END_TEST

START_TEST(test_signature_tolerates_whitespace_and_is_normalized) {
  static const char *const in[][2] = {
      {"i64 ( i64 , i64 )", "i64(i64,i64)"},
      {"  void\t(\n)  ", "void()"},
      {" obj? ( obj? ,any ) ", "obj?(obj?,any)"},
  };
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
    irm_object *f = new_native(dummy, in[i][0]);
    ck_assert_str_eq(irm_func_signature(f), in[i][1]);
    irm_object_release(f);
  }
}
END_TEST

static int pk_nothing(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args, (void)nargs, (void)ret, (void)resource;
  return 0;
}

START_TEST(test_signature_of_packed_function_or_non_function_is_null) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed(pk_nothing, NULL, NULL, &f));
  ck_assert_ptr_null(irm_func_signature(f));
  irm_object *s = new_string("i64()");
  ck_assert_ptr_null(irm_func_signature(s));
  ck_assert_ptr_null(irm_func_signature(NULL));
  irm_object_release(s);
  irm_object_release(f);
}
END_TEST

typedef struct bad_sig {
  const char *text;
  const char *mentions[3];
} bad_sig;

static const bad_sig bad_sigs[] = {
    {"", {"expected a type", "position 0", NULL}},
    {"i64", {"'i64'", "expected '('", "position 3"}},
    {"i64(i64", {"'i64(i64'", "')'", "position 7"}},
    {"i64(i64)x", {"'i64(i64)x'", "after ')'", "position 8"}},
    {"i46(i64)", {"'i46'", "did you mean 'i64'", "position 0"}},
    {"i64(i64, i46)", {"'i46'", "did you mean 'i64'", "position 9"}},
    {"i64(void)", {"'void'", "position 4", NULL}},
    {"any(i64)", {"'any'", "return type", "position 0"}},
    {"i64(i64,,i64)", {"expected a type", "position 8", NULL}},
    {"i64(i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64)", {"more than 16", "position 68", NULL}},
};
enum { bad_sig_count = sizeof bad_sigs / sizeof bad_sigs[0] };

START_TEST(test_bad_signature_is_value_error_naming_the_position) {
  const bad_sig *b = &bad_sigs[_i];
  irm_object *f = (irm_object *)&ret_marker;
  ck_assert_error(irm_func_new_native(dummy, b->text, &f), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(f);
  for (int i = 0; i < 3 && b->mentions[i]; i++) ck_assert_error_mentions(b->mentions[i]);
}
END_TEST

START_TEST(test_new_native_rejects_null_fn_out_or_signature) {
  irm_object *f = (irm_object *)&ret_marker;
  ck_assert_error(irm_func_new_native(NULL, "void()", &f), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(f);
  ck_assert_error_mentions("fn");
  ck_assert_error(irm_func_new_native(dummy, "void()", NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("out");
  f = (irm_object *)&ret_marker;
  ck_assert_error(irm_func_new_native(dummy, NULL, &f), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(f);
  ck_assert_error_mentions("signature");
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *native_signature_suite(void) {
  Suite *s = suite_create("native_signature");
  TCase *tc = tcase_create("signature");
  tcase_add_test(tc, test_signature_accepts_every_type);
  tcase_add_test(tc, test_signature_tolerates_whitespace_and_is_normalized);
  tcase_add_test(tc, test_signature_of_packed_function_or_non_function_is_null);
  tcase_add_loop_test(tc, test_bad_signature_is_value_error_naming_the_position, 0, bad_sig_count);
  tcase_add_test(tc, test_new_native_rejects_null_fn_out_or_signature);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(native_signature_suite()); }
