/* Errors stay small and quick whatever the size of the input they quote
 * (error.h: irm_error_quote, irm_closest_name): an unknown name of
 * megabytes gives a message of a few hundred bytes. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

/* ---- quoting user input ------------------------------------------------- */

START_TEST(test_error_quote_returns_short_text_itself) {
  char text[IRM_ERROR_QUOTE_MAX + 1];
  memset(text, 'x', IRM_ERROR_QUOTE_MAX);
  text[IRM_ERROR_QUOTE_MAX] = '\0';
  ck_assert_ptr_eq(irm_error_quote(text), text);
  const char *empty = "";
  ck_assert_ptr_eq(irm_error_quote(empty), empty);
  ck_assert_str_eq(irm_error_quote(NULL), "(null)");
}
END_TEST

START_TEST(test_error_quote_cuts_long_text_and_adds_an_ellipsis) {
  char text[IRM_ERROR_QUOTE_MAX + 2];
  memset(text, 'x', IRM_ERROR_QUOTE_MAX + 1);
  text[IRM_ERROR_QUOTE_MAX + 1] = '\0';
  const char *q = irm_error_quote(text);
  ck_assert_uint_eq(strlen(q), IRM_ERROR_QUOTE_MAX + 3);
  ck_assert_int_eq(strncmp(q, text, IRM_ERROR_QUOTE_MAX), 0);
  ck_assert_str_eq(q + IRM_ERROR_QUOTE_MAX, "...");
  irm_error(IRM_EVALUE, "unknown kind '%s'", q);
  ck_assert_uint_eq(strlen(irm_last_error()), strlen("ValueError: unknown kind ''") + IRM_ERROR_QUOTE_MAX + 3);
}
END_TEST

START_TEST(test_error_quote_never_cuts_a_utf8_character) {
  /* 'x' then two-byte characters: byte IRM_ERROR_QUOTE_MAX starts none. */
  char text[2 * IRM_ERROR_QUOTE_MAX + 2];
  size_t n = 0;
  text[n++] = 'x';
  while (n + 2 < sizeof text) {
    text[n++] = (char)0xC3;
    text[n++] = (char)0xA9; /* é */
  }
  text[n] = '\0';
  const char *q = irm_error_quote(text);
  ck_assert_uint_eq(strlen(q), IRM_ERROR_QUOTE_MAX - 1 + 3);
  ck_assert_str_eq(q + IRM_ERROR_QUOTE_MAX - 1, "...");
}
END_TEST

START_TEST(test_error_quote_keeps_four_quotes_of_one_message_apart) {
  char text[4][IRM_ERROR_QUOTE_MAX + 2];
  const char *q[4];
  for (int i = 0; i < 4; i++) {
    memset(text[i], 'a' + i, IRM_ERROR_QUOTE_MAX + 1);
    text[i][IRM_ERROR_QUOTE_MAX + 1] = '\0';
    q[i] = irm_error_quote(text[i]);
  }
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(q[i][0], 'a' + i);
    ck_assert_int_eq(q[i][IRM_ERROR_QUOTE_MAX - 1], 'a' + i);
  }
}
END_TEST

/* ---- huge inputs through the library ------------------------------------ */

/* Sizes of the huge inputs: 1 MB and 10 MB. */
static const size_t huge_sizes[] = {(size_t)1 << 20, (size_t)10 << 20};
enum { n_sizes = sizeof huge_sizes / sizeof huge_sizes[0] };

/* prefix followed by n copies of 'a' and then suffix. malloc'd. */
static char *huge_text(const char *prefix, size_t n, const char *suffix) {
  size_t p = strlen(prefix), s = strlen(suffix);
  char *t = malloc(p + n + s + 1);
  ck_require(t != NULL, "no memory for a %zu-byte input", n);
  memcpy(t, prefix, p);
  memset(t + p, 'a', n);
  memcpy(t + p + n, suffix, s + 1);
  return t;
}

/* The last error starts with prefix, is under 1 KB and quotes the huge
 * input as its first bytes, an ellipsis and the closing quote. */
static void assert_bounded_quote(const char *prefix) {
  const char *msg = irm_last_error();
  size_t len = strlen(msg);
  ck_assert_msg(len < 1024, "message of %zu bytes: %.300s", len, msg);
  ck_assert_msg(strncmp(msg, prefix, strlen(prefix)) == 0, "'%s' does not start with '%s'", msg, prefix);
  ck_assert_msg(strstr(msg, "aaaaaaaaaa...'") != NULL, "no cut quote in '%s'", msg);
}

START_TEST(test_huge_unknown_target_kind_gives_a_short_message) {
  char *text = huge_text("", huge_sizes[_i], "");
  irm_target *t = NULL;
  ck_assert_error(irm_target_parse(text, &t), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(t);
  assert_bounded_quote("ValueError: in target string 'aaaa");
  ck_assert_error_mentions("unknown target kind 'aaaa");
  free(text);
}
END_TEST

START_TEST(test_huge_unknown_target_option_gives_a_short_message) {
  char *text = huge_text("llvm -", huge_sizes[_i], "=1");
  irm_target *t = NULL;
  ck_assert_error(irm_target_parse(text, &t), IRM_EATTR, "AttributeError: ");
  assert_bounded_quote("AttributeError: ");
  free(text);
}
END_TEST

START_TEST(test_huge_unknown_global_function_gives_a_short_message) {
  char *name = huge_text("", huge_sizes[_i], "");
  irm_any ret = irm_any_none();
  ck_assert_error(irm_func_call_global(name, NULL, 0, &ret), IRM_EKEY, "KeyError: ");
  assert_bounded_quote("KeyError: global function 'aaaa");
  free(name);
}
END_TEST

/* Globals called with one huge string: the text after it, and how the
 * message starts. */
typedef struct huge_call {
  const char *global, *suffix, *prefix;
} huge_call;

static const huge_call huge_calls[] = {
    {"target.Target", " -mcpu=x", "ValueError: target.Target: in target string 'aaaa"},
    {"executor.Create", "", "ValueError: executor.Create: unknown executor kind 'aaaa"},
    {"runtime.Create", "", "ValueError: runtime.Create: unknown runtime kind 'aaaa"},
};
enum { n_huge_calls = sizeof huge_calls / sizeof huge_calls[0] };

/* _i runs over each call with each size. */
START_TEST(test_huge_unknown_name_given_to_a_global_gives_a_short_message) {
  const huge_call *c = &huge_calls[_i / n_sizes];
  char *text = huge_text("", huge_sizes[_i % n_sizes], c->suffix);
  irm_any arg = irm_any_str(text);
  ck_assert_error(call_fails(c->global, &arg, 1), IRM_EVALUE, "ValueError: ");
  assert_bounded_quote(c->prefix);
  free(text);
}
END_TEST

START_TEST(test_huge_unknown_executor_option_gives_a_short_message) {
  char *key = huge_text("", huge_sizes[_i], "");
  irm_object *attrs = map1(key, irm_any_int(1));
  irm_any args[] = {irm_any_str("graph"), irm_any_object(attrs)};
  ck_assert_error(call_fails("executor.Create", args, 2), IRM_EATTR, "AttributeError: ");
  assert_bounded_quote("AttributeError: ");
  irm_object_release(attrs);
  free(key);
}
END_TEST

START_TEST(test_typo_of_a_normal_name_still_suggests_the_closest) {
  irm_target *t = NULL;
  ck_assert_error(irm_target_parse("llvn", &t), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("did you mean 'llvm'?");
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *error_bounds_suite(void) {
  Suite *s = suite_create("error_bounds");

  TCase *tc = tcase_create("quote");
  tcase_add_test(tc, test_error_quote_returns_short_text_itself);
  tcase_add_test(tc, test_error_quote_cuts_long_text_and_adds_an_ellipsis);
  tcase_add_test(tc, test_error_quote_never_cuts_a_utf8_character);
  tcase_add_test(tc, test_error_quote_keeps_four_quotes_of_one_message_apart);
  suite_add_tcase(s, tc);

  tc = tcase_create("huge_input");
  tcase_add_loop_test(tc, test_huge_unknown_target_kind_gives_a_short_message, 0, n_sizes);
  tcase_add_loop_test(tc, test_huge_unknown_target_option_gives_a_short_message, 0, n_sizes);
  tcase_add_loop_test(tc, test_huge_unknown_global_function_gives_a_short_message, 0, n_sizes);
  tcase_add_loop_test(tc, test_huge_unknown_name_given_to_a_global_gives_a_short_message, 0, n_huge_calls * n_sizes);
  tcase_add_loop_test(tc, test_huge_unknown_executor_option_gives_a_short_message, 0, n_sizes);
  tcase_add_test(tc, test_typo_of_a_normal_name_still_suggests_the_closest);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(error_bounds_suite()); }
