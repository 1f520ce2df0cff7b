/* Errors, error context, closest names, warnings and the version (error.h,
 * c_api.h). */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <irm/irm.h>

#include "check_util.h"

typedef struct kind_case {
  int code;
  const char *kind;
} kind_case;

static const kind_case kinds[] = {
    {IRM_ETYPE, "TypeError"},      {IRM_EVALUE, "ValueError"},  {IRM_EKEY, "KeyError"},
    {IRM_EATTR, "AttributeError"}, {IRM_EINDEX, "IndexError"},  {IRM_ERUNTIME, "RuntimeError"},
    {IRM_EPLUGIN, "PluginError"},  {IRM_ENOMEM, "MemoryError"},
};
enum { n_kinds = sizeof kinds / sizeof kinds[0] };

/* The same kinds as c_api.h lists them, to check the list against the
 * pinned table above and round-trip every entry. */
#define LISTED_KIND(code, value, name) {value, #name},
static const kind_case listed_kinds[] = {IRM_ERROR_KINDS(LISTED_KIND)};
#undef LISTED_KIND
enum { n_listed_kinds = sizeof listed_kinds / sizeof listed_kinds[0] };

/* ---- irm_error / irm_verror --------------------------------------------- */

START_TEST(test_error_sets_kind_and_text_and_returns_code) {
  char expected[128];
  int rc = irm_error(kinds[_i].code, "option '%s' is %d", "depth", 7);
  ck_assert_int_eq(rc, kinds[_i].code);
  snprintf(expected, sizeof expected, "%s: option 'depth' is 7", kinds[_i].kind);
  ck_assert_str_eq(irm_last_error(), expected);
}
END_TEST

__attribute__((format(printf, 2, 3))) static int call_verror(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = irm_verror(code, fmt, ap);
  va_end(ap);
  return rc;
}

START_TEST(test_verror_sets_kind_and_text_and_returns_code) {
  char expected[128];
  int rc = call_verror(kinds[_i].code, "%s #%d", "pass", 3);
  ck_assert_int_eq(rc, kinds[_i].code);
  snprintf(expected, sizeof expected, "%s: pass #3", kinds[_i].kind);
  ck_assert_str_eq(irm_last_error(), expected);
}
END_TEST

START_TEST(test_error_replaces_the_previous_message) {
  irm_error(IRM_EKEY, "first");
  irm_error(IRM_EVALUE, "second");
  ck_assert_str_eq(irm_last_error(), "ValueError: second");
}
END_TEST

START_TEST(test_error_may_format_the_current_message) {
  /* Wrapping the current message is a natural pattern; the old text must
   * still be readable while the new one is formatted. */
  irm_error(IRM_EKEY, "no function '%s'", "f");
  int rc = irm_error(IRM_ERUNTIME, "build failed (%s)", irm_last_error());
  ck_assert_int_eq(rc, IRM_ERUNTIME);
  ck_assert_str_eq(irm_last_error(), "RuntimeError: build failed (KeyError: no function 'f')");
}
END_TEST

START_TEST(test_error_stores_a_long_message_whole) {
  enum { len = 10000 };
  char *text = malloc(len + 1);
  ck_assert_ptr_nonnull(text);
  for (size_t i = 0; i < len; i++) text[i] = (char)('a' + i % 26);
  text[len] = '\0';

  ck_assert_int_eq(irm_error(IRM_EVALUE, "%s", text), IRM_EVALUE);
  const char *msg = irm_last_error();
  ck_assert_uint_eq(strlen(msg), strlen("ValueError: ") + len);
  ck_assert_int_eq(strncmp(msg, "ValueError: ", 12), 0);
  ck_assert_int_eq(memcmp(msg + 12, text, len), 0);
  free(text);
}
END_TEST

START_TEST(test_set_last_error_stores_a_long_message_whole) {
  enum { len = 10000 };
  char *text = malloc(len + 1);
  ck_assert_ptr_nonnull(text);
  memcpy(text, "KeyError: ", 10);
  for (size_t i = 10; i < len; i++) text[i] = (char)('A' + i % 26);
  text[len] = '\0';

  irm_set_last_error(text);
  ck_assert_str_eq(irm_last_error(), text);
  free(text);
}
END_TEST

/* ---- irm_error_kind / irm_error_code_of --------------------------------- */

START_TEST(test_error_kind_names_each_code) { ck_assert_str_eq(irm_error_kind(kinds[_i].code), kinds[_i].kind); }
END_TEST

START_TEST(test_error_kind_of_zero_is_ok) { ck_assert_str_eq(irm_error_kind(IRM_OK), "OK"); }
END_TEST

START_TEST(test_error_kind_of_unknown_code_is_runtime_error) {
  ck_assert_str_eq(irm_error_kind(-99), "RuntimeError");
  ck_assert_str_eq(irm_error_kind(42), "RuntimeError");
}
END_TEST

START_TEST(test_error_code_of_parses_each_kind_prefix) {
  char msg[128];
  snprintf(msg, sizeof msg, "%s: something went wrong", kinds[_i].kind);
  ck_assert_int_eq(irm_error_code_of(msg), kinds[_i].code);
}
END_TEST

START_TEST(test_error_code_of_without_known_prefix_is_runtime) {
  ck_assert_int_eq(irm_error_code_of("it broke"), IRM_ERUNTIME);
  ck_assert_int_eq(irm_error_code_of(""), IRM_ERUNTIME);
  ck_assert_int_eq(irm_error_code_of("OopsError: x"), IRM_ERUNTIME);
  /* The kind must start the message. */
  ck_assert_int_eq(irm_error_code_of("in pass: KeyError: x"), IRM_ERUNTIME);
  ck_assert_int_eq(irm_error_code_of("MyKeyError: x"), IRM_ERUNTIME);
}
END_TEST

START_TEST(test_error_code_of_null_is_runtime) { ck_assert_int_eq(irm_error_code_of(NULL), IRM_ERUNTIME); }
END_TEST

START_TEST(test_error_code_of_round_trips_irm_error) {
  int rc = irm_error(kinds[_i].code, "x");
  ck_assert_int_eq(irm_error_code_of(irm_last_error()), rc);
}
END_TEST

/* ---- irm_set_last_error / irm_clear_error ------------------------------- */

START_TEST(test_last_error_is_empty_before_any_error) {
  const char *msg = irm_last_error();
  ck_assert_ptr_nonnull(msg);
  ck_assert_str_eq(msg, "");
}
END_TEST

START_TEST(test_error_kinds_list_is_the_pinned_codes_and_names) {
  ck_assert_int_eq(n_listed_kinds, n_kinds);
  for (int i = 0; i < n_kinds; i++) {
    ck_assert_int_eq(listed_kinds[i].code, kinds[i].code);
    ck_assert_str_eq(listed_kinds[i].kind, kinds[i].kind);
  }
}
END_TEST

/* name -> code -> name through irm_set_last_error, for each listed kind;
 * the message keeps its kind prefix. */
START_TEST(test_error_kinds_list_round_trips_name_to_code_to_name) {
  char msg[128];
  snprintf(msg, sizeof msg, "%s: set by a callback", listed_kinds[_i].kind);
  irm_set_last_error(msg);
  ck_assert_str_eq(irm_last_error(), msg);
  int code = irm_error_code_of(irm_last_error());
  ck_assert_int_eq(code, listed_kinds[_i].code);
  ck_assert_str_eq(irm_error_kind(code), listed_kinds[_i].kind);
}
END_TEST

START_TEST(test_set_last_error_without_kind_is_stored_as_runtime_error) {
  irm_set_last_error("the callback failed");
  ck_assert_str_eq(irm_last_error(), "RuntimeError: the callback failed");
}
END_TEST

START_TEST(test_set_last_error_with_unknown_kind_is_stored_as_runtime_error) {
  irm_set_last_error("OopsError: x");
  ck_assert_str_eq(irm_last_error(), "RuntimeError: OopsError: x");
}
END_TEST

START_TEST(test_set_last_error_null_clears) {
  irm_error(IRM_EKEY, "x");
  irm_set_last_error(NULL);
  ck_assert_str_eq(irm_last_error(), "");
}
END_TEST

START_TEST(test_set_last_error_accepts_its_own_current_message) {
  irm_error(IRM_EINDEX, "index 9 out of range");
  irm_set_last_error(irm_last_error());
  ck_assert_str_eq(irm_last_error(), "IndexError: index 9 out of range");
}
END_TEST

START_TEST(test_set_last_error_copies_the_message) {
  char buf[64];
  strcpy(buf, "KeyError: k");
  irm_set_last_error(buf);
  memset(buf, 'x', sizeof buf - 1);
  buf[sizeof buf - 1] = '\0';
  ck_assert_str_eq(irm_last_error(), "KeyError: k");
}
END_TEST

START_TEST(test_clear_error_empties_the_message) {
  irm_error(IRM_EVALUE, "bad");
  irm_clear_error();
  ck_assert_str_eq(irm_last_error(), "");
}
END_TEST

/* ---- irm_error_context -------------------------------------------------- */

START_TEST(test_error_context_inserts_after_the_kind) {
  irm_error(IRM_EKEY, "original");
  int rc = irm_error_context(IRM_EKEY, "in pass '%s'", "X");
  ck_assert_int_eq(rc, IRM_EKEY);
  ck_assert_str_eq(irm_last_error(), "KeyError: in pass 'X': original");
}
END_TEST

START_TEST(test_error_context_nests_outermost_first) {
  irm_error(IRM_EKEY, "original");
  irm_error_context(IRM_EKEY, "in pass '%s'", "X");
  int rc = irm_error_context(IRM_EKEY, "in build of '%s'", "m");
  ck_assert_int_eq(rc, IRM_EKEY);
  ck_assert_str_eq(irm_last_error(), "KeyError: in build of 'm': in pass 'X': original");
}
END_TEST

START_TEST(test_error_context_returns_code_for_each_kind) {
  char expected[128];
  irm_error(kinds[_i].code, "inner");
  ck_assert_int_eq(irm_error_context(kinds[_i].code, "outer"), kinds[_i].code);
  snprintf(expected, sizeof expected, "%s: outer: inner", kinds[_i].kind);
  ck_assert_str_eq(irm_last_error(), expected);
}
END_TEST

START_TEST(test_error_context_on_set_last_error_without_kind) {
  irm_set_last_error("callback failed");
  irm_error_context(IRM_ERUNTIME, "in plugin '%s'", "p");
  ck_assert_str_eq(irm_last_error(), "RuntimeError: in plugin 'p': callback failed");
}
END_TEST

START_TEST(test_error_context_keeps_a_long_message_whole) {
  enum { len = 10000 };
  char *text = malloc(len + 1);
  ck_assert_ptr_nonnull(text);
  memset(text, 'q', len);
  text[len] = '\0';
  irm_error(IRM_EATTR, "%s", text);
  irm_error_context(IRM_EATTR, "in pass '%s'", "P");
  const char *msg = irm_last_error();
  const char *head = "AttributeError: in pass 'P': ";
  ck_assert_uint_eq(strlen(msg), strlen(head) + len);
  ck_assert_int_eq(strncmp(msg, head, strlen(head)), 0);
  ck_assert_int_eq(memcmp(msg + strlen(head), text, len), 0);
  free(text);
}
END_TEST

/* ---- threads ------------------------------------------------------------ */

typedef struct thread_seen {
  char before[64];
  char after[64];
} thread_seen;

static void *set_error_in_thread(void *arg) {
  thread_seen *seen = arg;
  snprintf(seen->before, sizeof seen->before, "%s", irm_last_error());
  irm_error(IRM_EINDEX, "thread error");
  snprintf(seen->after, sizeof seen->after, "%s", irm_last_error());
  return NULL;
}

START_TEST(test_last_error_is_per_thread) {
  pthread_t t;
  thread_seen seen;
  memset(&seen, 0, sizeof seen);
  irm_error(IRM_EKEY, "main error");

  ck_assert_int_eq(pthread_create(&t, NULL, set_error_in_thread, &seen), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);

  ck_assert_str_eq(seen.before, "");
  ck_assert_str_eq(seen.after, "IndexError: thread error");
  ck_assert_str_eq(irm_last_error(), "KeyError: main error");
}
END_TEST

static void *set_long_error_and_exit(void *arg) {
  (void)arg;
  char big[4096];
  memset(big, 'z', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  irm_error(IRM_EVALUE, "%s", big);
  irm_error_context(IRM_EVALUE, "ctx");
  return NULL;
}

START_TEST(test_thread_error_storage_is_freed_at_thread_exit) {
  /* The leak checker of the sanitizer build fails this test otherwise. */
  for (int i = 0; i < 8; i++) {
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, set_long_error_and_exit, NULL), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
  }
  ck_assert_str_eq(irm_last_error(), "");
}
END_TEST

/* ---- closest names ------------------------------------------------------ */

static const char *const executor_options[] = {"link-params", "unpacked-api", "interface-api",
                                               "workspace-byte-alignment", "constant-byte-alignment"};
enum { n_executor_options = 5 };

START_TEST(test_closest_name_suggests_for_a_typo) {
  const char *s = irm_closest_name("unpaked-api", executor_options, n_executor_options);
  ck_assert_ptr_nonnull(s);
  ck_assert_str_eq(s, "unpacked-api");
}
END_TEST

START_TEST(test_closest_name_returns_one_of_the_candidates) {
  const char *s = irm_closest_name("interface-apj", executor_options, n_executor_options);
  ck_assert_ptr_eq(s, executor_options[2]);
}
END_TEST

START_TEST(test_closest_name_is_case_insensitive) {
  const char *s = irm_closest_name("LINK-PARAMS", executor_options, n_executor_options);
  ck_assert_ptr_eq(s, executor_options[0]);
}
END_TEST

START_TEST(test_closest_name_counts_transposition_as_one_edit) {
  /* "link-parmas" is one transposition from "link-params". */
  const char *const cands[] = {"link-params", "link-pa"};
  const char *s = irm_closest_name("link-parmas", cands, 2);
  ck_assert_ptr_eq(s, cands[0]);
}
END_TEST

START_TEST(test_closest_name_picks_the_nearest) {
  const char *const cands[] = {"cuda", "llvm", "c"};
  ck_assert_ptr_eq(irm_closest_name("lvm", cands, 3), cands[1]);
  ck_assert_ptr_eq(irm_closest_name("cud", cands, 3), cands[0]);
}
END_TEST

START_TEST(test_closest_name_nothing_close_is_null) {
  ck_assert_ptr_null(irm_closest_name("zzzzzzzz", executor_options, n_executor_options));
  const char *const cands[] = {"graph", "aot", "vm"};
  ck_assert_ptr_null(irm_closest_name("tensorrt", cands, 3));
}
END_TEST

START_TEST(test_closest_name_limit_is_a_third_of_the_longer_name) {
  /* 12 characters: up to 4 edits is a plausible typo, 5 is not. */
  const char *const four[] = {"abcdefghWXYZ"};
  const char *const five[] = {"abcdefgVWXYZ"};
  ck_assert_uint_eq(irm_edit_distance("abcdefghijkl", four[0]), 4);
  ck_assert_uint_eq(irm_edit_distance("abcdefghijkl", five[0]), 5);
  ck_assert_ptr_eq(irm_closest_name("abcdefghijkl", four, 1), four[0]);
  ck_assert_ptr_null(irm_closest_name("abcdefghijkl", five, 1));
}
END_TEST

START_TEST(test_closest_name_limit_is_at_least_two) {
  const char *const two[] = {"axy"};
  const char *const three[] = {"xyz"};
  ck_assert_ptr_eq(irm_closest_name("abc", two, 1), two[0]);
  ck_assert_ptr_null(irm_closest_name("abc", three, 1));
}
END_TEST

START_TEST(test_closest_name_skips_null_candidates) {
  const char *const cands[] = {NULL, "graph", NULL};
  ck_assert_ptr_eq(irm_closest_name("grahp", cands, 3), cands[1]);
  const char *const only_null[] = {NULL, NULL};
  ck_assert_ptr_null(irm_closest_name("graph", only_null, 2));
}
END_TEST

START_TEST(test_closest_name_of_no_candidates_is_null) {
  ck_assert_ptr_null(irm_closest_name("graph", executor_options, 0));
  ck_assert_ptr_null(irm_closest_name("graph", NULL, 0));
}
END_TEST

START_TEST(test_closest_name_never_suggests_for_a_name_longer_than_64) {
  static const char *const names[] = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"};
  char name[66];
  memset(name, 'a', 65);
  name[65] = '\0';
  ck_assert_uint_eq(strlen(names[0]), 64);
  ck_assert_ptr_null(irm_closest_name(name, names, 1));
  name[64] = '\0';
  ck_assert_ptr_eq(irm_closest_name(name, names, 1), names[0]);
}
END_TEST

START_TEST(test_closest_name_of_a_megabyte_name_is_null) {
  static const char *const names[] = {"llvm", "cuda", "c"};
  size_t n = (size_t)1 << 20;
  char *name = malloc(n + 1);
  ck_assert_ptr_nonnull(name);
  memset(name, 'l', n);
  name[n] = '\0';
  ck_assert_ptr_null(irm_closest_name(name, names, 3));
  free(name);
}
END_TEST

START_TEST(test_edit_distance_basic_values) {
  ck_assert_uint_eq(irm_edit_distance("", ""), 0);
  ck_assert_uint_eq(irm_edit_distance("abc", "abc"), 0);
  ck_assert_uint_eq(irm_edit_distance("abc", ""), 3);
  ck_assert_uint_eq(irm_edit_distance("", "abc"), 3);
  ck_assert_uint_eq(irm_edit_distance("kitten", "sitting"), 3);
  ck_assert_uint_eq(irm_edit_distance("flaw", "lawn"), 2);
  ck_assert_uint_eq(irm_edit_distance("abc", "abd"), 1);
  ck_assert_uint_eq(irm_edit_distance("abc", "abcd"), 1);
}
END_TEST

START_TEST(test_edit_distance_transposition_is_one) {
  ck_assert_uint_eq(irm_edit_distance("ab", "ba"), 1);
  ck_assert_uint_eq(irm_edit_distance("abcd", "acbd"), 1);
}
END_TEST

START_TEST(test_edit_distance_is_case_insensitive) {
  ck_assert_uint_eq(irm_edit_distance("Graph", "gRAPH"), 0);
  ck_assert_uint_eq(irm_edit_distance("AOT", "aoT"), 0);
}
END_TEST

START_TEST(test_edit_distance_is_symmetric) {
  ck_assert_uint_eq(irm_edit_distance("interface-api", "unpacked-api"),
                    irm_edit_distance("unpacked-api", "interface-api"));
}
END_TEST

/* ---- warnings ----------------------------------------------------------- */

typedef struct warning_log {
  int count;
  char last[256];
  void *user_data;
} warning_log;

static warning_log wlog;

static void record_warning(const char *msg, void *user_data) {
  wlog.count++;
  snprintf(wlog.last, sizeof wlog.last, "%s", msg);
  wlog.user_data = user_data;
}

START_TEST(test_warning_handler_receives_exact_text_without_newline) {
  irm_set_warning_handler(record_warning, NULL);
  irm_warn("option '%s' is deprecated since %d", "link-params", 3);
  ck_assert_int_eq(wlog.count, 1);
  ck_assert_str_eq(wlog.last, "option 'link-params' is deprecated since 3");
}
END_TEST

START_TEST(test_warning_handler_receives_user_data) {
  int token = 0;
  irm_set_warning_handler(record_warning, &token);
  irm_warn("x");
  ck_assert_ptr_eq(wlog.user_data, &token);
}
END_TEST

START_TEST(test_warning_handler_replaced_by_a_new_one) {
  int a = 0, b = 0;
  irm_set_warning_handler(record_warning, &a);
  irm_set_warning_handler(record_warning, &b);
  irm_warn("x");
  ck_assert_int_eq(wlog.count, 1);
  ck_assert_ptr_eq(wlog.user_data, &b);
}
END_TEST

/* Runs irm_warn with stderr redirected and returns what it wrote
 * (malloc'd). */
static char *capture_default_warning(const char *text) {
  FILE *tmp = tmpfile();
  ck_assert_ptr_nonnull(tmp);
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  ck_assert_int_ge(saved, 0);
  ck_assert_int_ge(dup2(fileno(tmp), STDERR_FILENO), 0);
  irm_warn("%s", text);
  fflush(stderr);
  ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
  close(saved);

  char *out = calloc(1, 512);
  ck_assert_ptr_nonnull(out);
  rewind(tmp);
  size_t n = fread(out, 1, 511, tmp);
  out[n] = '\0';
  fclose(tmp);
  return out;
}

START_TEST(test_default_warning_handler_writes_one_line_to_stderr) {
  char *out = capture_default_warning("careful now");
  ck_assert_str_eq(out, "irm: warning: careful now\n");
  free(out);
}
END_TEST

START_TEST(test_warning_handler_null_restores_default) {
  irm_set_warning_handler(record_warning, NULL);
  irm_set_warning_handler(NULL, NULL);
  char *out = capture_default_warning("back to stderr");
  ck_assert_int_eq(wlog.count, 0);
  ck_assert_str_eq(out, "irm: warning: back to stderr\n");
  free(out);
}
END_TEST

START_TEST(test_warn_once_emits_once_per_key) {
  irm_set_warning_handler(record_warning, NULL);
  ck_assert_int_eq(irm_warn_once("deprecated:-link-params", "use %s", "aot"), 1);
  ck_assert_int_eq(wlog.count, 1);
  ck_assert_str_eq(wlog.last, "use aot");
  ck_assert_int_eq(irm_warn_once("deprecated:-link-params", "use %s", "aot"), 0);
  ck_assert_int_eq(irm_warn_once("deprecated:-link-params", "other text"), 0);
  ck_assert_int_eq(wlog.count, 1);
}
END_TEST

START_TEST(test_warn_once_keys_are_independent) {
  irm_set_warning_handler(record_warning, NULL);
  ck_assert_int_eq(irm_warn_once("key-a", "a"), 1);
  ck_assert_int_eq(irm_warn_once("key-b", "b"), 1);
  ck_assert_int_eq(wlog.count, 2);
  ck_assert_str_eq(wlog.last, "b");
  ck_assert_int_eq(irm_warn_once("key-a", "a"), 0);
  ck_assert_int_eq(irm_warn_once("key-b", "b"), 0);
  ck_assert_int_eq(wlog.count, 2);
}
END_TEST

START_TEST(test_warn_once_key_is_copied) {
  char key[32];
  irm_set_warning_handler(record_warning, NULL);
  strcpy(key, "volatile-key");
  ck_assert_int_eq(irm_warn_once(key, "w"), 1);
  memset(key, 0, sizeof key);
  ck_assert_int_eq(irm_warn_once("volatile-key", "w"), 0);
  ck_assert_int_eq(wlog.count, 1);
}
END_TEST

START_TEST(test_warn_once_reset_makes_each_key_warn_again) {
  irm_set_warning_handler(record_warning, NULL);
  ck_assert_int_eq(irm_warn_once("k1", "one"), 1);
  ck_assert_int_eq(irm_warn_once("k2", "two"), 1);
  irm_warn_once_reset();
  ck_assert_int_eq(irm_warn_once("k1", "one"), 1);
  ck_assert_int_eq(irm_warn_once("k2", "two"), 1);
  ck_assert_int_eq(irm_warn_once("k1", "one"), 0);
  ck_assert_int_eq(wlog.count, 4);
}
END_TEST

START_TEST(test_warn_is_not_deduplicated) {
  irm_set_warning_handler(record_warning, NULL);
  irm_warn("same");
  irm_warn("same");
  ck_assert_int_eq(wlog.count, 2);
}
END_TEST

static int reentrant_depth;

static void reentrant_handler(const char *msg, void *user_data) {
  (void)user_data;
  record_warning(msg, NULL);
  /* A handler may call back into irm: no irm lock is held here. */
  if (reentrant_depth++ == 0) {
    irm_warn_once("inner-key", "inner");
    irm_set_warning_handler(reentrant_handler, NULL);
  }
}

START_TEST(test_warning_handler_may_call_irm_without_deadlock) {
  irm_set_warning_handler(reentrant_handler, NULL);
  ck_assert_int_eq(irm_warn_once("outer-key", "outer"), 1);
  ck_assert_int_eq(wlog.count, 2);
  ck_assert_int_eq(irm_warn_once("inner-key", "inner"), 0);
}
END_TEST

static atomic_int concurrent_warnings;
static atomic_int concurrent_firsts;

static void count_warning(const char *msg, void *user_data) {
  (void)msg;
  (void)user_data;
  atomic_fetch_add(&concurrent_warnings, 1);
}

static void *warn_once_many(void *arg) {
  (void)arg;
  char key[32];
  for (int i = 0; i < 200; i++) {
    snprintf(key, sizeof key, "shared-%d", i);
    if (irm_warn_once(key, "%s", key)) atomic_fetch_add(&concurrent_firsts, 1);
  }
  return NULL;
}

START_TEST(test_warn_once_from_many_threads_emits_each_key_once) {
  enum { n_threads = 6 };
  pthread_t t[n_threads];
  irm_set_warning_handler(count_warning, NULL);
  for (int i = 0; i < n_threads; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, warn_once_many, NULL), 0);
  for (int i = 0; i < n_threads; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  ck_assert_int_eq(atomic_load(&concurrent_firsts), 200);
  ck_assert_int_eq(atomic_load(&concurrent_warnings), 200);
}
END_TEST

/* ---- version ------------------------------------------------------------ */

START_TEST(test_version_equals_the_header_string) { ck_assert_str_eq(irm_version(), IRM_VERSION_STRING); }
END_TEST

START_TEST(test_version_matches_the_macros) {
  char expected[64];
  snprintf(expected, sizeof expected, "%d.%d.%d", IRM_VERSION_MAJOR, IRM_VERSION_MINOR, IRM_VERSION_PATCH);
  ck_assert_str_eq(irm_version(), expected);
  ck_assert_str_eq(IRM_VERSION_STRING, expected);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *error_suite(void) {
  Suite *s = suite_create("error");

  TCase *tc = tcase_create("raise");
  tcase_add_loop_test(tc, test_error_sets_kind_and_text_and_returns_code, 0, n_kinds);
  tcase_add_loop_test(tc, test_verror_sets_kind_and_text_and_returns_code, 0, n_kinds);
  tcase_add_test(tc, test_error_replaces_the_previous_message);
  tcase_add_test(tc, test_error_may_format_the_current_message);
  tcase_add_test(tc, test_error_stores_a_long_message_whole);
  tcase_add_test(tc, test_set_last_error_stores_a_long_message_whole);
  suite_add_tcase(s, tc);

  tc = tcase_create("kinds");
  tcase_add_loop_test(tc, test_error_kind_names_each_code, 0, n_kinds);
  tcase_add_test(tc, test_error_kind_of_zero_is_ok);
  tcase_add_test(tc, test_error_kind_of_unknown_code_is_runtime_error);
  tcase_add_loop_test(tc, test_error_code_of_parses_each_kind_prefix, 0, n_kinds);
  tcase_add_test(tc, test_error_code_of_without_known_prefix_is_runtime);
  tcase_add_test(tc, test_error_code_of_null_is_runtime);
  tcase_add_loop_test(tc, test_error_code_of_round_trips_irm_error, 0, n_kinds);
  suite_add_tcase(s, tc);

  tc = tcase_create("last_error");
  tcase_add_test(tc, test_last_error_is_empty_before_any_error);
  tcase_add_test(tc, test_error_kinds_list_is_the_pinned_codes_and_names);
  tcase_add_loop_test(tc, test_error_kinds_list_round_trips_name_to_code_to_name, 0, n_listed_kinds);
  tcase_add_test(tc, test_set_last_error_without_kind_is_stored_as_runtime_error);
  tcase_add_test(tc, test_set_last_error_with_unknown_kind_is_stored_as_runtime_error);
  tcase_add_test(tc, test_set_last_error_null_clears);
  tcase_add_test(tc, test_set_last_error_accepts_its_own_current_message);
  tcase_add_test(tc, test_set_last_error_copies_the_message);
  tcase_add_test(tc, test_clear_error_empties_the_message);
  suite_add_tcase(s, tc);

  tc = tcase_create("context");
  tcase_add_test(tc, test_error_context_inserts_after_the_kind);
  tcase_add_test(tc, test_error_context_nests_outermost_first);
  tcase_add_loop_test(tc, test_error_context_returns_code_for_each_kind, 0, n_kinds);
  tcase_add_test(tc, test_error_context_on_set_last_error_without_kind);
  tcase_add_test(tc, test_error_context_keeps_a_long_message_whole);
  suite_add_tcase(s, tc);

  tc = tcase_create("threads");
  tcase_add_test(tc, test_last_error_is_per_thread);
  tcase_add_test(tc, test_thread_error_storage_is_freed_at_thread_exit);
  suite_add_tcase(s, tc);

  tc = tcase_create("closest");
  tcase_add_test(tc, test_closest_name_suggests_for_a_typo);
  tcase_add_test(tc, test_closest_name_returns_one_of_the_candidates);
  tcase_add_test(tc, test_closest_name_is_case_insensitive);
  tcase_add_test(tc, test_closest_name_counts_transposition_as_one_edit);
  tcase_add_test(tc, test_closest_name_picks_the_nearest);
  tcase_add_test(tc, test_closest_name_nothing_close_is_null);
  tcase_add_test(tc, test_closest_name_limit_is_a_third_of_the_longer_name);
  tcase_add_test(tc, test_closest_name_limit_is_at_least_two);
  tcase_add_test(tc, test_closest_name_skips_null_candidates);
  tcase_add_test(tc, test_closest_name_of_no_candidates_is_null);
  tcase_add_test(tc, test_closest_name_never_suggests_for_a_name_longer_than_64);
  tcase_add_test(tc, test_closest_name_of_a_megabyte_name_is_null);
  tcase_add_test(tc, test_edit_distance_basic_values);
  tcase_add_test(tc, test_edit_distance_transposition_is_one);
  tcase_add_test(tc, test_edit_distance_is_case_insensitive);
  tcase_add_test(tc, test_edit_distance_is_symmetric);
  suite_add_tcase(s, tc);

  tc = tcase_create("warnings");
  tcase_set_timeout(tc, 20);
  tcase_add_test(tc, test_warning_handler_receives_exact_text_without_newline);
  tcase_add_test(tc, test_warning_handler_receives_user_data);
  tcase_add_test(tc, test_warning_handler_replaced_by_a_new_one);
  tcase_add_test(tc, test_default_warning_handler_writes_one_line_to_stderr);
  tcase_add_test(tc, test_warning_handler_null_restores_default);
  tcase_add_test(tc, test_warn_once_emits_once_per_key);
  tcase_add_test(tc, test_warn_once_keys_are_independent);
  tcase_add_test(tc, test_warn_once_key_is_copied);
  tcase_add_test(tc, test_warn_once_reset_makes_each_key_warn_again);
  tcase_add_test(tc, test_warn_is_not_deduplicated);
  tcase_add_test(tc, test_warning_handler_may_call_irm_without_deadlock);
  tcase_add_test(tc, test_warn_once_from_many_threads_emits_each_key_once);
  suite_add_tcase(s, tc);

  tc = tcase_create("version");
  tcase_add_test(tc, test_version_equals_the_header_string);
  tcase_add_test(tc, test_version_matches_the_macros);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(error_suite()); }
