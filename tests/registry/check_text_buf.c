/* The text buffer every printer shares (registry/internal/text_buf.h): appends of
 * every form, growth from caller storage and from nothing, the result as a
 * String or a C string, and out of memory at every allocation giving the
 * sticky failure without a leak.
 *
 * The buffer is private to libirm, so this program compiles
 * registry/text_buf.c itself (tests/CMakeLists.txt); the allocation and
 * String functions it calls are libirm's, its one private call is stood in
 * for below. main() installs the counting allocator of check_alloc_util.h
 * before any other irm call. */
#include <check.h>
#include <locale.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <irm/irm.h>

#include "check_alloc_util.h"
#include "irm_internal.h" /* text_buf.h, irm_error_nomem_ */

/* ---- stand-in for what the buffer uses from the rest of libirm ------------ */

int irm_error_nomem_(const char *what) { return irm_error(IRM_ENOMEM, "out of memory %s", what); }

/* ---- helpers ------------------------------------------------------------- */

/* The buffer holds exactly the n bytes at want, with a NUL after them. */
static void assert_text(const irm_text_buf *b, const char *want, size_t n) {
  ck_assert_msg(!b->failed, "the buffer failed");
  ck_assert_uint_eq(b->len, n);
  if (n) ck_require(memcmp(b->data, want, n) == 0, "text differs from '%.*s'", (int)n, want);
  ck_require(irm_text_buf_cstr_(b)[n] == '\0', "no NUL after the text");
}

/* The String holds exactly the n bytes at want. */
static void assert_string(const irm_object *s, const char *want, size_t n) {
  ck_assert_ptr_nonnull(irm_string_data(s));
  ck_assert_uint_eq(irm_string_size(s), n);
  ck_assert_int_eq(memcmp(irm_string_data(s), want, n), 0);
}

/* Takes the text as a String, which must hold exactly the n bytes at want. */
static void assert_takes_string(irm_text_buf *b, const char *want, size_t n) {
  irm_object *s = NULL;
  ck_assert_ok(irm_text_buf_take_string_(b, "testing", &s));
  assert_string(s, want, n);
  irm_object_release(s);
}

/* n bytes of a pattern that changes with each byte: 'a'..'z' from start. */
static char *pattern(size_t n, size_t start) {
  char *p = malloc(n + 1);
  ck_assert_ptr_nonnull(p);
  for (size_t i = 0; i < n; i++) p[i] = (char)('a' + (start + i) % 26);
  p[n] = '\0';
  return p;
}

/* ---- appends --------------------------------------------------------------- */

START_TEST(test_text_buf_zeroed_is_empty_and_gives_an_empty_string) {
  irm_text_buf b = {0};
  ck_assert_str_eq(irm_text_buf_cstr_(&b), "");
  ck_assert_uint_eq(irm_text_buf_room_(&b), 0);
  assert_takes_string(&b, "", 0);
}
END_TEST

START_TEST(test_text_buf_appends_bytes_strings_chars_and_printf_in_order) {
  irm_text_buf b = {0};
  irm_text_buf_append_(&b, "ab", 2);
  irm_text_buf_puts_(&b, "cd");
  irm_text_buf_putc_(&b, 'e');
  irm_text_buf_printf_(&b, "%d-%s-%.2f", 42, "x", 0.5);
  irm_text_buf_append_(&b, "ignored", 0);
  assert_text(&b, "abcde42-x-0.50", 14);
  irm_text_buf_free_(&b);
  ck_assert_ptr_null(b.data);
  ck_assert_uint_eq(b.len, 0);
}
END_TEST

START_TEST(test_text_buf_append_bytes_keeps_embedded_nul_bytes) {
  irm_text_buf b = {0};
  irm_text_buf_append_(&b, "a\0b", 3);
  irm_text_buf_putc_(&b, '\0');
  irm_text_buf_puts_(&b, "c");
  assert_text(&b, "a\0b\0c", 5);
  assert_takes_string(&b, "a\0b\0c", 5);
}
END_TEST

START_TEST(test_text_buf_escaped_puts_a_backslash_before_special_bytes_only) {
  irm_text_buf b = {0};
  irm_text_buf_escaped_(&b, "it's a\\b\0'", 10, "'\\");
  assert_text(&b, "it\\'s a\\\\b\0\\'", 13); /* NUL is never special */
  irm_text_buf_free_(&b);
  irm_text_buf_escaped_(&b, "plain", 5, "'\\");
  irm_text_buf_escaped_(&b, "''", 2, "'");
  irm_text_buf_escaped_(&b, "", 0, "'");
  assert_text(&b, "plain\\'\\'", 9);
  irm_text_buf_free_(&b);
}
END_TEST

START_TEST(test_text_buf_reserve_and_commit_write_in_place) {
  irm_text_buf b = {0};
  irm_text_buf_puts_(&b, "head:");
  char *at = irm_text_buf_reserve_(&b, 1000);
  ck_assert_ptr_nonnull(at);
  ck_assert_ptr_eq(at, b.data + b.len);
  ck_assert_uint_ge(irm_text_buf_room_(&b), 1000);
  memset(at, 'x', 1000);
  irm_text_buf_commit_(&b, 3);
  irm_text_buf_puts_(&b, ":tail");
  assert_text(&b, "head:xxx:tail", 13);
  irm_text_buf_free_(&b);
}
END_TEST

/* ---- growth ------------------------------------------------------------------ */

/* Appends pieces of every length 0..max, each in the form chosen by its
 * length, and compares with the same bytes joined by hand. */
static void grow_through_sizes(irm_text_buf *b, size_t max) {
  size_t total = max * (max + 1) / 2;
  char *want = pattern(total, 0);
  size_t at = 0;
  for (size_t n = 0; n <= max; n++) {
    const char *piece = want + at;
    switch (n % 4) {
    case 0: irm_text_buf_append_(b, piece, n); break;
    case 1: {
      char *s = strndup(piece, n);
      irm_text_buf_puts_(b, s);
      free(s);
      break;
    }
    case 2: irm_text_buf_printf_(b, "%.*s", (int)n, piece); break;
    default:
      for (size_t i = 0; i < n; i++) irm_text_buf_putc_(b, piece[i]);
    }
    at += n;
    ck_require(b->len == at && memcmp(b->data, want, at) == 0 && b->data[at] == '\0',
               "wrong text after the piece of %zu bytes", n);
  }
  ck_assert_uint_eq(at, total);
  free(want);
}

START_TEST(test_text_buf_grows_from_nothing_across_many_sizes) {
  irm_text_buf b = {0};
  grow_through_sizes(&b, 600); /* 180 300 bytes in the end */
  ck_assert(b.owned);
  irm_text_buf_free_(&b);
}
END_TEST

START_TEST(test_text_buf_grows_from_caller_storage_across_many_sizes) {
  static const size_t sizes[] = {1, 2, 7, 64, 65, 300};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    char storage[300];
    irm_text_buf b;
    irm_text_buf_init_(&b, storage, sizes[k]);
    grow_through_sizes(&b, 200);
    ck_assert(b.owned);
    ck_assert_ptr_ne(b.data, storage);
    irm_text_buf_free_(&b);
  }
}
END_TEST

START_TEST(test_text_buf_short_text_stays_in_caller_storage_without_allocating) {
  char storage[16];
  irm_text_buf b;
  irm_text_buf_init_(&b, storage, sizeof storage);
  long attempts_before = atomic_load(&attempts);
  irm_text_buf_puts_(&b, "0123456789");
  irm_text_buf_printf_(&b, "%d", 12345); /* 15 bytes and the NUL: full */
  ck_assert_ptr_eq(b.data, storage);
  ck_assert_uint_eq(irm_text_buf_room_(&b), 0);
  ck_assert_int_eq(atomic_load(&attempts), attempts_before);
  irm_text_buf_putc_(&b, '!'); /* one more byte moves it to the heap */
  ck_assert_ptr_ne(b.data, storage);
  ck_assert_int_eq(atomic_load(&attempts), attempts_before + 1);
  assert_text(&b, "012345678912345!", 16);
  irm_text_buf_free_(&b);
}
END_TEST

/* ---- printf ---------------------------------------------------------------- */

START_TEST(test_text_buf_printf_of_long_strings_is_complete) {
  char *a = pattern(5000, 0), *c = pattern(70000, 3);
  irm_text_buf b = {0};
  irm_text_buf_puts_(&b, "<");
  irm_text_buf_printf_(&b, "%s|%s|%d", a, c, 7);
  irm_text_buf_puts_(&b, ">");
  size_t n = 1 + 5000 + 1 + 70000 + 2 + 1;
  ck_assert_uint_eq(b.len, n);
  ck_assert_int_eq(b.data[0], '<');
  ck_assert_int_eq(memcmp(b.data + 1, a, 5000), 0);
  ck_assert_int_eq(memcmp(b.data + 5002, c, 70000), 0);
  ck_assert_str_eq(b.data + 75002, "|7>");
  irm_text_buf_free_(&b);
  free(a);
  free(c);
}
END_TEST

/* Texts one byte shorter than the room, as long and one longer: the
 * first write either fits or is measured and written again. */
START_TEST(test_text_buf_printf_at_the_edge_of_the_room) {
  for (size_t extra = 0; extra < 3; extra++) {
    char storage[32];
    irm_text_buf b;
    irm_text_buf_init_(&b, storage, sizeof storage);
    irm_text_buf_puts_(&b, "abc");
    size_t n = irm_text_buf_room_(&b) - 1 + extra;
    char *s = pattern(n, 0);
    irm_text_buf_printf_(&b, "%s", s);
    ck_assert_uint_eq(b.len, 3 + n);
    ck_assert_int_eq(memcmp(b.data, "abc", 3), 0);
    ck_assert_str_eq(b.data + 3, s);
    irm_text_buf_free_(&b);
    free(s);
  }
}
END_TEST

START_TEST(test_text_buf_printf_that_cannot_be_formatted_appends_nothing) {
  /* In the C locale a wide character beyond ASCII has no multibyte form,
   * so vsnprintf fails (EILSEQ). */
  ck_assert_ptr_nonnull(setlocale(LC_ALL, "C"));
  static const wchar_t wide[] = {0x100, 0};
  char storage[32];
  irm_text_buf b;
  irm_text_buf_init_(&b, storage, sizeof storage);
  irm_text_buf_puts_(&b, "kept");
  irm_text_buf_printf_(&b, "%ls", wide);
  irm_text_buf_puts_(&b, "!");
  assert_text(&b, "kept!", 5);
  irm_text_buf_free_(&b);
}
END_TEST

/* ---- results --------------------------------------------------------------- */

START_TEST(test_text_buf_take_string_gives_a_new_string_and_empties_the_buffer) {
  char storage[8];
  irm_text_buf b;
  irm_text_buf_init_(&b, storage, sizeof storage);
  irm_text_buf_puts_(&b, "target.Target(\"llvm\")");
  irm_object *s = NULL;
  ck_assert_ok(irm_text_buf_take_string_(&b, "testing", &s));
  assert_string(s, "target.Target(\"llvm\")", 21);
  ck_assert_int_eq(irm_object_refcount(s), 1);
  ck_assert_ptr_null(b.data);
  ck_assert_uint_eq(b.len, 0);
  irm_text_buf_puts_(&b, "again"); /* an emptied buffer is a zeroed one */
  assert_text(&b, "again", 5);
  irm_text_buf_free_(&b);
  irm_object_release(s);
}
END_TEST

START_TEST(test_text_buf_take_cstr_hands_over_heap_memory_from_any_start) {
  char storage[64];
  irm_text_buf b;
  char *out = NULL;
  irm_text_buf_init_(&b, storage, sizeof storage);
  irm_text_buf_puts_(&b, "in storage");
  ck_assert_ok(irm_text_buf_take_cstr_(&b, "testing", &out));
  ck_assert_ptr_ne(out, storage);
  ck_assert_str_eq(out, "in storage");
  irm_free(out);

  char *long_text = pattern(500, 0);
  irm_text_buf_puts_(&b, long_text); /* b was emptied: from nothing */
  ck_assert_ok(irm_text_buf_take_cstr_(&b, "testing", &out));
  ck_assert_str_eq(out, long_text);
  irm_free(out);
  free(long_text);

  ck_assert_ok(irm_text_buf_take_cstr_(&b, "testing", &out));
  ck_assert_str_eq(out, "");
  irm_free(out);
}
END_TEST

/* ---- failure ---------------------------------------------------------------- */

START_TEST(test_text_buf_failure_is_sticky_and_reported_once_at_the_end) {
  char storage[64];
  irm_text_buf b;
  irm_text_buf_init_(&b, storage, sizeof storage);
  irm_text_buf_puts_(&b, "before");
  irm_text_buf_fail_(&b);
  irm_text_buf_puts_(&b, "x"); /* fits in the storage, yet dropped */
  irm_text_buf_printf_(&b, "%d", 1);
  irm_text_buf_escaped_(&b, "'", 1, "'");
  ck_assert_ptr_null(irm_text_buf_reserve_(&b, 1));
  ck_assert_uint_eq(irm_text_buf_room_(&b), 0);
  ck_assert_uint_eq(b.len, 6);
  irm_object *s = (irm_object *)storage; /* any stale value */
  ck_assert_error(irm_text_buf_take_string_(&b, "printing a test", &s), IRM_ENOMEM,
                  "MemoryError: out of memory printing a test");
  ck_assert_ptr_null(s);
  ck_assert(!b.failed); /* taken: the buffer starts over */
}
END_TEST

START_TEST(test_text_buf_failed_growth_keeps_the_text_so_far) {
  char storage[16];
  irm_text_buf b;
  irm_text_buf_init_(&b, storage, sizeof storage);
  irm_text_buf_puts_(&b, "0123456789");
  fail_nth_from_now(1);
  irm_text_buf_puts_(&b, "0123456789"); /* needs the heap: fails */
  stop_failing();
  ck_assert(b.failed);
  ck_assert_uint_eq(b.len, 10);
  ck_assert_int_eq(memcmp(b.data, "0123456789", 10), 0);
  irm_text_buf_putc_(&b, '!'); /* would fit, but the failure sticks */
  ck_assert_uint_eq(b.len, 10);
  char *out = (char *)"stale";
  ck_assert_error(irm_text_buf_take_cstr_(&b, "testing", &out), IRM_ENOMEM, "MemoryError: ");
  ck_assert_ptr_null(out);
}
END_TEST

START_TEST(test_text_buf_reserve_of_an_impossible_size_fails_the_buffer) {
  irm_text_buf b = {0};
  irm_text_buf_puts_(&b, "x");
  ck_assert_ptr_null(irm_text_buf_reserve_(&b, SIZE_MAX - 1));
  ck_assert(b.failed);
  irm_text_buf_free_(&b);
}
END_TEST

/* Every form of append, growing from 16 bytes of storage to the heap
 * several times, then the result taken as a String or a C string. */
static int build_everything(int as_cstr, char **text, size_t *len) {
  char storage[16];
  irm_text_buf b;
  irm_text_buf_init_(&b, storage, sizeof storage);
  char *long_text = pattern(3000, 0);
  irm_text_buf_append_(&b, "bytes\0", 6);
  irm_text_buf_puts_(&b, "-cstring-");
  irm_text_buf_putc_(&b, 'c');
  irm_text_buf_printf_(&b, "[%s]", long_text);
  irm_text_buf_escaped_(&b, long_text, 200, "abc");
  char *at = irm_text_buf_reserve_(&b, 5000);
  if (at) {
    memset(at, 'r', 5000);
    irm_text_buf_commit_(&b, 5000);
  }
  irm_text_buf_printf_(&b, "%d", 99);
  free(long_text);
  int rc;
  if (as_cstr) {
    rc = irm_text_buf_take_cstr_(&b, "testing", text);
    if (!rc) *len = strlen(*text + 6) + 6;
    return rc;
  }
  irm_object *s = NULL;
  rc = irm_text_buf_take_string_(&b, "testing", &s);
  if (!rc) {
    *len = irm_string_size(s);
    *text = malloc(*len);
    memcpy(*text, irm_string_data(s), *len);
    irm_object_release(s);
  }
  return rc;
}

/* Fails the 1st, 2nd, ... allocation in turn until one run needs no
 * more: each failed run must report MemoryError, give nothing and leave
 * no block behind; the run that succeeds gives the full text. */
static void sweep(int as_cstr) {
  char *want = NULL;
  size_t want_len = 0;
  ck_assert_ok(build_everything(as_cstr, &want, &want_len));
  if (as_cstr) {
    char *copy = malloc(want_len);
    memcpy(copy, want, want_len);
    irm_free(want);
    want = copy;
  }
  long n = 1;
  for (;; n++) {
    settle_error();
    long blocks = atomic_load(&live_blocks), hits = atomic_load(&injected);
    char *got = NULL;
    size_t got_len = 0;
    fail_nth_from_now(n);
    int rc = build_everything(as_cstr, &got, &got_len);
    stop_failing();
    if (atomic_load(&injected) == hits) {
      ck_assert_ok(rc);
      ck_assert_uint_eq(got_len, want_len);
      ck_assert_int_eq(memcmp(got, want, want_len), 0);
      if (as_cstr) irm_free(got);
      else free(got);
      break;
    }
    ck_assert_msg(rc == IRM_ENOMEM, "allocation %ld failed, yet the status is %d", n, rc);
    ck_assert_last_error("MemoryError: out of memory ");
    ck_assert_ptr_null(got);
    settle_error();
    ck_assert_msg(atomic_load(&live_blocks) == blocks, "allocation %ld failed: %ld blocks leaked", n,
                  atomic_load(&live_blocks) - blocks);
  }
  ck_assert_int_ge(n, 4); /* the storage moved and grew, and the result was made */
  free(want);
}

START_TEST(test_text_buf_out_of_memory_at_every_allocation_taking_a_string) { sweep(0); }
END_TEST

START_TEST(test_text_buf_out_of_memory_at_every_allocation_taking_a_cstr) { sweep(1); }
END_TEST

/* ---- suite ------------------------------------------------------------------- */

static Suite *text_buf_suite(void) {
  Suite *s = suite_create("text_buf");
  TCase *tc = tcase_create("appends");
  tcase_add_test(tc, test_text_buf_zeroed_is_empty_and_gives_an_empty_string);
  tcase_add_test(tc, test_text_buf_appends_bytes_strings_chars_and_printf_in_order);
  tcase_add_test(tc, test_text_buf_append_bytes_keeps_embedded_nul_bytes);
  tcase_add_test(tc, test_text_buf_escaped_puts_a_backslash_before_special_bytes_only);
  tcase_add_test(tc, test_text_buf_reserve_and_commit_write_in_place);
  suite_add_tcase(s, tc);

  tc = tcase_create("growth");
  tcase_add_test(tc, test_text_buf_grows_from_nothing_across_many_sizes);
  tcase_add_test(tc, test_text_buf_grows_from_caller_storage_across_many_sizes);
  tcase_add_test(tc, test_text_buf_short_text_stays_in_caller_storage_without_allocating);
  suite_add_tcase(s, tc);

  tc = tcase_create("printf");
  tcase_add_test(tc, test_text_buf_printf_of_long_strings_is_complete);
  tcase_add_test(tc, test_text_buf_printf_at_the_edge_of_the_room);
  tcase_add_test(tc, test_text_buf_printf_that_cannot_be_formatted_appends_nothing);
  suite_add_tcase(s, tc);

  tc = tcase_create("results");
  tcase_add_test(tc, test_text_buf_take_string_gives_a_new_string_and_empties_the_buffer);
  tcase_add_test(tc, test_text_buf_take_cstr_hands_over_heap_memory_from_any_start);
  suite_add_tcase(s, tc);

  tc = tcase_create("failure");
  tcase_add_test(tc, test_text_buf_failure_is_sticky_and_reported_once_at_the_end);
  tcase_add_test(tc, test_text_buf_failed_growth_keeps_the_text_so_far);
  tcase_add_test(tc, test_text_buf_reserve_of_an_impossible_size_fails_the_buffer);
  tcase_add_test(tc, test_text_buf_out_of_memory_at_every_allocation_taking_a_string);
  tcase_add_test(tc, test_text_buf_out_of_memory_at_every_allocation_taking_a_cstr);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (install_counting_allocator("check_text_buf") != 0) return EXIT_FAILURE;
  return run_suite(text_buf_suite());
}
