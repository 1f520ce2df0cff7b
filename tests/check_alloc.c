/* The allocator hooks (alloc.h) and out-of-memory behaviour everywhere.
 *
 * main() installs a counting allocator before any other irm call. It
 * tracks live blocks and bytes, and can fail the Nth allocation from now or
 * every allocation after the next N. The sweeps run an operation with
 * N = 1, 2, 3, ... until it succeeds without meeting the failure, and check
 * each time that irm either succeeded or reported MemoryError, leaked
 * nothing and left the registry as it was. */
#include <check.h>
#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <irm/irm.h>

/* expr must return 0; otherwise show the status and the message. */
#define ck_assert_ok(expr)                                                    \
  do {                                                                        \
    int ok_rc_ = (expr);                                                      \
    ck_assert_msg(ok_rc_ == 0, "%s failed with %d (%s)", #expr, ok_rc_,       \
                  irm_last_error());                                          \
  } while (0)

/* rc must be code and irm_last_error() must start with prefix. */
#define ck_assert_error(rc, code, prefix)                                     \
  do {                                                                        \
    int rc_ = (rc);                                                           \
    ck_assert_msg(rc_ == (code), "expected status %d, got %d (%s)", (code),   \
                  rc_, irm_last_error());                                     \
    ck_assert_msg(strncmp(irm_last_error(), (prefix), strlen(prefix)) == 0,   \
                  "expected a message starting with '%s', got '%s'",          \
                  (prefix), irm_last_error());                                \
  } while (0)

/* ---- the counting allocator ---------------------------------------------- */

#define BLOCK_MAGIC UINT64_C(0x1c0a11c0b10c)

typedef struct block_header {
  alignas(max_align_t) size_t size;
  uint64_t magic;
} block_header;

static atomic_long live_blocks;
static atomic_long live_bytes;
static atomic_long attempts;
static atomic_long injected;      /* failures handed out */
static atomic_long foreign_frees; /* frees of blocks we did not allocate */
static atomic_long fail_countdown; /* > 0: the attempt that reaches 0 fails */
static atomic_long fail_budget = -1; /* >= 0: attempts left before all fail */

static int should_fail(void) {
  atomic_fetch_add(&attempts, 1);
  long c = atomic_load(&fail_countdown);
  while (c > 0) {
    if (atomic_compare_exchange_weak(&fail_countdown, &c, c - 1)) {
      if (c == 1) {
        atomic_fetch_add(&injected, 1);
        return 1;
      }
      break;
    }
  }
  long b = atomic_load(&fail_budget);
  while (b >= 0) {
    if (b == 0) {
      atomic_fetch_add(&injected, 1);
      return 1;
    }
    if (atomic_compare_exchange_weak(&fail_budget, &b, b - 1)) break;
  }
  return 0;
}

static void *counting_malloc(size_t size) {
  if (should_fail() || size > SIZE_MAX - sizeof(block_header)) return NULL;
  block_header *h = malloc(sizeof *h + size);
  if (h == NULL) return NULL;
  h->size = size;
  h->magic = BLOCK_MAGIC;
  atomic_fetch_add(&live_blocks, 1);
  atomic_fetch_add(&live_bytes, (long)size);
  return h + 1;
}

static block_header *header_of(void *ptr) {
  block_header *h = (block_header *)ptr - 1;
  if (h->magic != BLOCK_MAGIC) {
    atomic_fetch_add(&foreign_frees, 1);
    return NULL;
  }
  return h;
}

static void counting_free(void *ptr) {
  if (ptr == NULL) return;
  block_header *h = header_of(ptr);
  if (h == NULL) return; /* not ours: counted, and left alone */
  atomic_fetch_sub(&live_blocks, 1);
  atomic_fetch_sub(&live_bytes, (long)h->size);
  h->magic = 0;
  free(h);
}

static void *counting_realloc(void *ptr, size_t size) {
  if (ptr == NULL) return counting_malloc(size);
  block_header *old = header_of(ptr);
  if (old == NULL) return NULL;
  if (should_fail() || size > SIZE_MAX - sizeof(block_header)) return NULL;
  size_t old_size = old->size;
  block_header *h = realloc(old, sizeof *h + size);
  if (h == NULL) return NULL;
  h->size = size;
  atomic_fetch_add(&live_bytes, (long)size - (long)old_size);
  return h + 1;
}

static void fail_nth_from_now(long n) { atomic_store(&fail_countdown, n); }
static void fail_all_after(long n) { atomic_store(&fail_budget, n); }
static void stop_failing(void) {
  atomic_store(&fail_countdown, 0);
  atomic_store(&fail_budget, -1);
}

/* ---- helpers ------------------------------------------------------------- */

enum { sweep_cap = 10000 };

/* Leaves one known message in the thread's error storage, so its memory is
 * the same before and after an operation. */
static void settle_error(void) { (void)irm_error(IRM_EVALUE, "alloc test baseline"); }

/* Every global name joined by '\n', in plain malloc memory (taken with
 * the allocator not failing). */
static char *global_names(void) {
  irm_object *names = NULL;
  ck_assert_ok(irm_func_list_globals(&names));
  size_t total = 1;
  for (size_t i = 0; i < irm_array_size(names); i++)
    total += irm_string_size(irm_array_at(names, i)->v_obj) + 1;
  char *joined = malloc(total), *p = joined;
  ck_assert_ptr_nonnull(joined);
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const irm_object *s = irm_array_at(names, i)->v_obj;
    memcpy(p, irm_string_data(s), irm_string_size(s));
    p += irm_string_size(s);
    *p++ = '\n';
  }
  *p = '\0';
  irm_object_release(names);
  return joined;
}

static irm_object *lookup(const char *name) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_get_global(name, &f));
  return f;
}

static int global_exists(const char *name) {
  irm_object *f = lookup(name);
  irm_object_release(f);
  return f != NULL;
}

/* Returns a String copy of its first (str) argument: the callee allocates. */
static int pk_echo(const irm_any *args, int32_t nargs, irm_any *ret,
                   void *resource) {
  const char *s;
  irm_object *out = NULL;
  int rc;
  (void)resource;
  if (nargs < 1) return irm_error(IRM_EVALUE, "echo needs an argument");
  if ((rc = irm_any_to_str(&args[0], &s, NULL)) != 0) return rc;
  if ((rc = irm_string_from_cstr(s, &out)) != 0) return rc;
  *ret = irm_any_object(out);
  return 0;
}

static int pk_one(const irm_any *args, int32_t nargs, irm_any *ret,
                  void *resource) {
  (void)args;
  (void)nargs;
  (void)resource;
  *ret = irm_any_int(1);
  return 0;
}

static void register_packed(const char *name, irm_packed_cfunc fn) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed(fn, NULL, NULL, &f));
  ck_assert_ok(irm_func_register_global(name, f, 0));
  irm_object_release(f);
}

/* ---- the sweep ----------------------------------------------------------- */

typedef enum fail_mode { fail_nth, fail_after } fail_mode;

typedef struct operation {
  const char *what;
  /* Runs with failures armed; releases everything it made except what
   * `after` undoes. Returns 0 or the first failing status. */
  int (*run)(void *ctx);
  /* Runs with failures off: checks the state the run left behind (rc is
   * its status) and undoes a success. May be NULL. */
  void (*after)(void *ctx, int rc);
  /* A success keeps memory for the life of the process (types). */
  int permanent_on_success;
  void *ctx;
} operation;

static void run_once_without_failures(const operation *op) {
  int rc = op->run(op->ctx);
  ck_assert_msg(rc == 0, "%s without failures: %d (%s)", op->what, rc,
                irm_last_error());
  if (op->after != NULL) op->after(op->ctx, 0);
}

static void sweep_mode(const operation *op, fail_mode mode) {
  const char *mode_name = mode == fail_nth ? "fail allocation N" : "fail all after N";
  char *names_before = global_names();
  long n = mode == fail_nth ? 1 : 0;
  long failures_met = 0;
  for (;; n++) {
    char message[512];
    ck_assert_msg(n < sweep_cap, "%s (%s): still meeting failures at N=%ld",
                  op->what, mode_name, n);
    settle_error();
    long live_before = atomic_load(&live_blocks);
    long injected_before = atomic_load(&injected);

    if (mode == fail_nth)
      fail_nth_from_now(n);
    else
      fail_all_after(n);
    int rc = op->run(op->ctx);
    stop_failing();
    int hit = atomic_load(&injected) != injected_before;
    snprintf(message, sizeof message, "%s", irm_last_error());

    if (rc != 0) {
      ck_assert_msg(rc == IRM_ENOMEM, "%s (%s, N=%ld): status %d, message '%s'",
                    op->what, mode_name, n, rc, message);
      ck_assert_msg(strncmp(message, "MemoryError: ", 13) == 0,
                    "%s (%s, N=%ld): message '%s' is not a MemoryError",
                    op->what, mode_name, n, message);
      ck_assert_msg(hit, "%s (%s, N=%ld): failed although no allocation failed: %s",
                    op->what, mode_name, n, message);
    }
    if (op->after != NULL) op->after(op->ctx, rc);

    char *names_after = global_names();
    ck_assert_msg(strcmp(names_before, names_after) == 0,
                  "%s (%s, N=%ld, status %d): global names changed", op->what,
                  mode_name, n, rc);
    free(names_after);
    settle_error();
    if (rc != 0 || !op->permanent_on_success) {
      long live_after = atomic_load(&live_blocks);
      ck_assert_msg(live_after == live_before,
                    "%s (%s, N=%ld, status %d '%s'): %ld blocks live before, "
                    "%ld after",
                    op->what, mode_name, n, rc, message, live_before, live_after);
    }
    failures_met += hit;
    if (rc == 0 && !hit) break;
  }
  ck_assert_msg(failures_met > 0, "%s (%s): never allocated, nothing was tested",
                op->what, mode_name);
  free(names_before);
  ck_assert_int_eq(atomic_load(&foreign_frees), 0);
}

/* Warms irm up (lazy registrations, thread-local storage, the operation's
 * own caches), then sweeps both failure modes. */
static void sweep(const operation *op) {
  char *warm = global_names();
  free(warm);
  settle_error();
  run_once_without_failures(op);
  sweep_mode(op, fail_nth);
  sweep_mode(op, fail_after);
}

/* ---- irm_set_allocator --------------------------------------------------- */

/* These run first in their forked process: irm has allocated nothing yet. */
START_TEST(test_set_allocator_rejects_null_malloc_with_value_error) {
  ck_assert_error(irm_set_allocator(NULL, counting_realloc, counting_free),
                  IRM_EVALUE, "ValueError: ");
  long before = atomic_load(&live_blocks);
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("x", 1, &s));
  ck_assert_int_gt(atomic_load(&live_blocks), before); /* still counting */
  irm_object_release(s);
}
END_TEST

START_TEST(test_set_allocator_rejects_null_realloc_with_value_error) {
  ck_assert_error(irm_set_allocator(counting_malloc, NULL, counting_free),
                  IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_set_allocator_rejects_null_free_with_value_error) {
  ck_assert_error(irm_set_allocator(counting_malloc, counting_realloc, NULL),
                  IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_set_allocator_after_first_use_is_runtime_error) {
  irm_object *s = NULL, *t = NULL;
  ck_assert_ok(irm_string_new("first use", 9, &s));
  ck_assert_error(irm_set_allocator(malloc, realloc, free), IRM_ERUNTIME,
                  "RuntimeError: ");
  ck_assert_error(irm_set_allocator(counting_malloc, counting_realloc,
                                    counting_free),
                  IRM_ERUNTIME, "RuntimeError: ");
  /* the counting allocator stays in place */
  long before = atomic_load(&live_blocks);
  ck_assert_ok(irm_string_new("second", 6, &t));
  ck_assert_int_gt(atomic_load(&live_blocks), before);
  irm_object_release(t);
  ck_assert_int_eq(atomic_load(&live_blocks), before);
  irm_object_release(s);
}
END_TEST

/* ---- the irm_malloc family ----------------------------------------------- */

START_TEST(test_irm_malloc_and_free_go_through_the_hooks) {
  long blocks = atomic_load(&live_blocks), bytes = atomic_load(&live_bytes);
  char *p = irm_malloc(24);
  ck_assert_ptr_nonnull(p);
  memset(p, 'x', 24);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks + 1);
  ck_assert_int_eq(atomic_load(&live_bytes), bytes + 24);
  irm_free(p);
  irm_free(NULL);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
  ck_assert_int_eq(atomic_load(&live_bytes), bytes);
}
END_TEST

START_TEST(test_irm_malloc_of_zero_gives_a_unique_pointer_or_null) {
  long blocks = atomic_load(&live_blocks);
  void *p = irm_malloc(0), *q = irm_malloc(0);
  if (p != NULL && q != NULL) ck_assert_ptr_ne(p, q);
  irm_free(p);
  irm_free(q);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
}
END_TEST

START_TEST(test_irm_malloc_failure_returns_null_without_setting_an_error) {
  irm_set_last_error("KeyError: marker");
  long blocks = atomic_load(&live_blocks);
  fail_nth_from_now(1);
  void *p = irm_malloc(16);
  stop_failing();
  ck_assert_ptr_null(p);
  ck_assert_str_eq(irm_last_error(), "KeyError: marker");
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
}
END_TEST

START_TEST(test_irm_calloc_zeroes_and_rejects_overflow) {
  long blocks = atomic_load(&live_blocks);
  unsigned char *p = irm_calloc(10, 7);
  ck_assert_ptr_nonnull(p);
  for (int i = 0; i < 70; i++) ck_assert_int_eq(p[i], 0);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks + 1);
  irm_free(p);
  ck_assert_ptr_null(irm_calloc(SIZE_MAX / 2, 4));
  ck_assert_ptr_null(irm_calloc(4, SIZE_MAX / 2));
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
}
END_TEST

START_TEST(test_irm_realloc_keeps_contents_and_failure_keeps_the_block) {
  long blocks = atomic_load(&live_blocks);
  char *p = irm_realloc(NULL, 4);
  ck_assert_ptr_nonnull(p);
  memcpy(p, "abcd", 4);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks + 1);
  char *q = irm_realloc(p, 4096);
  ck_assert_ptr_nonnull(q);
  ck_assert_int_eq(memcmp(q, "abcd", 4), 0);
  ck_assert_int_eq(atomic_load(&live_bytes) >= 4096, 1);
  fail_nth_from_now(1);
  char *r = irm_realloc(q, 1 << 20);
  stop_failing();
  ck_assert_ptr_null(r);
  ck_assert_int_eq(memcmp(q, "abcd", 4), 0);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks + 1);
  irm_free(q);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
}
END_TEST

START_TEST(test_irm_strdup_and_strndup_copy_through_the_hooks) {
  long blocks = atomic_load(&live_blocks);
  char *a = irm_strdup("registry");
  char *b = irm_strndup("registry", 3);
  ck_assert_str_eq(a, "registry");
  ck_assert_str_eq(b, "reg");
  ck_assert_int_eq(atomic_load(&live_blocks), blocks + 2);
  irm_free(a);
  irm_free(b);
  fail_nth_from_now(1);
  ck_assert_ptr_null(irm_strdup("no memory"));
  stop_failing();
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
}
END_TEST

START_TEST(test_objects_are_allocated_and_freed_through_the_hooks) {
  irm_object *warm = NULL;
  ck_assert_ok(irm_string_new("warm", 4, &warm));
  irm_object_release(warm);
  long blocks = atomic_load(&live_blocks);
  irm_object *s = NULL, *arr = NULL;
  irm_any item = irm_any_str("element");
  ck_assert_ok(irm_string_new("counted", 7, &s));
  ck_assert_ok(irm_array_new(&item, 1, &arr));
  ck_assert_int_gt(atomic_load(&live_blocks), blocks + 1);
  irm_object_release(s);
  irm_object_release(arr);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
  ck_assert_int_eq(atomic_load(&foreign_frees), 0);
}
END_TEST

/* ---- operations swept ---------------------------------------------------- */

/* registering a new global */
static int run_register_new(void *ctx) {
  irm_object *f = NULL;
  (void)ctx;
  int rc = irm_func_new_packed(pk_one, NULL, NULL, &f);
  if (rc != 0) return rc;
  rc = irm_func_register_global("alloc.fresh", f, 0);
  irm_object_release(f);
  return rc;
}

static void after_register_new(void *ctx, int rc) {
  (void)ctx;
  ck_assert_int_eq(global_exists("alloc.fresh"), rc == 0);
  if (rc == 0) ck_assert_ok(irm_func_remove_global("alloc.fresh"));
}

START_TEST(test_oom_registering_a_new_global) {
  operation op = {"register a new global", run_register_new, after_register_new,
                  0, NULL};
  sweep(&op);
}
END_TEST

/* registering with override */
static int run_register_override(void *ctx) {
  irm_object *f = NULL;
  (void)ctx;
  int rc = irm_func_new_packed(pk_one, NULL, NULL, &f);
  if (rc != 0) return rc;
  rc = irm_func_register_global("alloc.over", f, 1);
  irm_object_release(f);
  return rc;
}

static void after_register_override(void *ctx, int rc) {
  irm_object *old_fn = ctx;
  irm_object *now = lookup("alloc.over");
  if (rc == 0) {
    ck_assert_ptr_nonnull(now);
    ck_assert_ptr_ne(now, old_fn);
    ck_assert_ok(irm_func_register_global("alloc.over", old_fn, 1));
  } else {
    ck_assert_ptr_eq(now, old_fn);
  }
  irm_object_release(now);
}

START_TEST(test_oom_registering_with_override) {
  irm_object *old_fn = NULL;
  ck_assert_ok(irm_func_new_packed(pk_one, NULL, NULL, &old_fn));
  ck_assert_ok(irm_func_register_global("alloc.over", old_fn, 0));
  operation op = {"register with override", run_register_override,
                  after_register_override, 0, old_fn};
  sweep(&op);
  ck_assert_ok(irm_func_remove_global("alloc.over"));
  irm_object_release(old_fn);
}
END_TEST

/* looking a global up and calling it */
static int run_lookup_and_call(void *ctx) {
  irm_object *f = NULL;
  irm_any arg = irm_any_str("hello"), ret = irm_any_none();
  (void)ctx;
  int rc = irm_func_get_global("alloc.echo", &f);
  if (rc != 0) return rc;
  ck_assert_ptr_nonnull(f);
  rc = irm_func_call(f, &arg, 1, &ret);
  irm_object_release(f);
  if (rc != 0) {
    ck_assert_int_eq(ret.type_code, IRM_NONE);
    return rc;
  }
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(ret.v_obj), "hello");
  irm_any_release(&ret);
  rc = irm_func_call_global("alloc.echo", &arg, 1, &ret);
  if (rc != 0) {
    ck_assert_int_eq(ret.type_code, IRM_NONE);
    return rc;
  }
  ck_assert_str_eq(irm_string_data(ret.v_obj), "hello");
  irm_any_release(&ret);
  return 0;
}

START_TEST(test_oom_looking_up_and_calling_a_global) {
  register_packed("alloc.echo", pk_echo);
  operation op = {"look up and call a global", run_lookup_and_call, NULL, 0, NULL};
  sweep(&op);
}
END_TEST

/* listing the globals */
static int run_list_globals(void *ctx) {
  irm_object *names = NULL;
  (void)ctx;
  int rc = irm_func_list_globals(&names);
  if (rc != 0) {
    ck_assert_ptr_null(names);
    return rc;
  }
  ck_assert_uint_ge(irm_array_size(names), 8);
  irm_object_release(names);
  return 0;
}

START_TEST(test_oom_listing_globals) {
  operation op = {"irm_func_list_globals", run_list_globals, NULL, 0, NULL};
  sweep(&op);
}
END_TEST

/* an Array of 50 Strings, from borrowed C strings and from String objects */
enum { n_items = 50 };

static void item_text(char *buf, size_t size, int i) {
  snprintf(buf, size, "item number %d with some length", i);
}

static int run_array_of_cstrings(void *ctx) {
  char text[n_items][48];
  irm_any items[n_items];
  irm_object *arr = NULL;
  (void)ctx;
  for (int i = 0; i < n_items; i++) {
    item_text(text[i], sizeof text[i], i);
    items[i] = irm_any_str(text[i]);
  }
  int rc = irm_array_new(items, n_items, &arr);
  if (rc != 0) return rc;
  ck_assert_uint_eq(irm_array_size(arr), n_items);
  ck_assert_str_eq(irm_string_data(irm_array_at(arr, 49)->v_obj), text[49]);
  irm_object_release(arr);
  return 0;
}

static int run_array_of_string_objects(void *ctx) {
  char text[48];
  irm_any items[n_items];
  irm_object *arr = NULL;
  int made = 0, rc = 0;
  (void)ctx;
  for (; made < n_items; made++) {
    irm_object *s = NULL;
    item_text(text, sizeof text, made);
    if ((rc = irm_string_new(text, strlen(text), &s)) != 0) break;
    items[made] = irm_any_object(s);
  }
  if (rc == 0) rc = irm_array_new(items, n_items, &arr);
  for (int i = 0; i < made; i++) irm_any_release(&items[i]);
  if (rc != 0) return rc;
  ck_assert_uint_eq(irm_array_size(arr), n_items);
  irm_object_release(arr);
  return 0;
}

START_TEST(test_oom_building_an_array_of_50_strings_from_c_strings) {
  operation op = {"Array of 50 C strings", run_array_of_cstrings, NULL, 0, NULL};
  sweep(&op);
}
END_TEST

START_TEST(test_oom_building_an_array_of_50_string_objects) {
  operation op = {"Array of 50 String objects", run_array_of_string_objects,
                  NULL, 0, NULL};
  sweep(&op);
}
END_TEST

/* irm_array_append_move, on an array owned once and on a shared one */
static int run_append_move(void *ctx) {
  int shared = ctx != NULL;
  irm_object *arr = NULL, *other = NULL;
  char text[48];
  int rc = irm_array_new(NULL, 0, &arr);
  if (rc != 0) return rc;
  for (int i = 0; i < n_items && rc == 0; i++) {
    irm_object *before = arr;
    item_text(text, sizeof text, i);
    irm_any item = irm_any_str(text);
    if (shared) {
      irm_object_retain(arr);
      other = arr;
    }
    rc = irm_array_append_move(&arr, &item);
    if (rc != 0) {
      ck_assert_ptr_eq(arr, before); /* *ref untouched */
      ck_assert_uint_eq(irm_array_size(arr), (size_t)i);
    } else {
      ck_assert_uint_eq(irm_array_size(arr), (size_t)i + 1);
    }
    if (shared) {
      ck_assert_uint_eq(irm_array_size(other), (size_t)i); /* unchanged */
      irm_object_release(other);
      other = NULL;
    }
  }
  irm_object_release(arr);
  return rc;
}

START_TEST(test_oom_array_append_move_in_place) {
  operation op = {"irm_array_append_move x50 (unique)", run_append_move, NULL,
                  0, NULL};
  sweep(&op);
}
END_TEST

START_TEST(test_oom_array_append_move_on_a_shared_array) {
  operation op = {"irm_array_append_move x50 (shared)", run_append_move, NULL,
                  0, (void *)&op};
  sweep(&op);
}
END_TEST

/* a Map of 50 entries */
static void key_text(char *buf, size_t size, int i) {
  snprintf(buf, size, "key.%02d", i);
}

static int run_map_from_pairs(void *ctx) {
  char keys_text[n_items][16];
  const char *keys[n_items];
  irm_any values[n_items];
  irm_object *map = NULL;
  (void)ctx;
  for (int i = 0; i < n_items; i++) {
    key_text(keys_text[i], sizeof keys_text[i], i);
    keys[i] = keys_text[i];
    values[i] = i % 2 ? irm_any_int(i) : irm_any_str(keys_text[i]);
  }
  int rc = irm_map_from_pairs(keys, values, n_items, &map);
  if (rc != 0) return rc;
  ck_assert_uint_eq(irm_map_size(map), n_items);
  ck_assert_ptr_nonnull(irm_map_find_cstr(map, "key.49"));
  irm_object_release(map);
  return 0;
}

static int run_map_set_move(void *ctx) {
  int shared = ctx != NULL;
  irm_object *map = NULL, *other = NULL;
  char key[16];
  int rc = irm_map_new(&map);
  if (rc != 0) return rc;
  for (int i = 0; i < n_items && rc == 0; i++) {
    irm_object *before = map;
    key_text(key, sizeof key, i);
    irm_any value = i % 2 ? irm_any_int(i) : irm_any_str(key);
    if (shared) {
      irm_object_retain(map);
      other = map;
    }
    rc = irm_map_set_move(&map, key, &value);
    if (rc != 0) {
      ck_assert_ptr_eq(map, before);
      ck_assert_uint_eq(irm_map_size(map), (size_t)i);
      ck_assert_ptr_null(irm_map_find_cstr(map, key));
    } else {
      ck_assert_uint_eq(irm_map_size(map), (size_t)i + 1);
    }
    if (shared) {
      ck_assert_uint_eq(irm_map_size(other), (size_t)i);
      irm_object_release(other);
      other = NULL;
    }
  }
  irm_object_release(map);
  return rc;
}

START_TEST(test_oom_building_a_map_of_50_entries_from_pairs) {
  operation op = {"irm_map_from_pairs (50)", run_map_from_pairs, NULL, 0, NULL};
  sweep(&op);
}
END_TEST

START_TEST(test_oom_building_a_map_of_50_entries_with_set_move) {
  operation op = {"irm_map_set_move x50 (unique)", run_map_set_move, NULL, 0,
                  NULL};
  sweep(&op);
}
END_TEST

START_TEST(test_oom_map_set_move_on_a_shared_map) {
  operation op = {"irm_map_set_move x50 (shared)", run_map_set_move, NULL, 0,
                  (void *)&op};
  sweep(&op);
}
END_TEST

/* irm_string_new */
static int run_string_new(void *ctx) {
  static const char bytes[] = "a string\0with a NUL inside and some more text";
  irm_object *s = NULL;
  (void)ctx;
  int rc = irm_string_new(bytes, sizeof bytes - 1, &s);
  if (rc != 0) {
    ck_assert_ptr_null(s);
    return rc;
  }
  ck_assert_uint_eq(irm_string_size(s), sizeof bytes - 1);
  ck_assert_int_eq(memcmp(irm_string_data(s), bytes, sizeof bytes - 1), 0);
  irm_object_release(s);
  return 0;
}

START_TEST(test_oom_string_new) {
  operation op = {"irm_string_new", run_string_new, NULL, 0, NULL};
  sweep(&op);
}
END_TEST

/* irm_type_register: a success is permanent, so each success moves on to a
 * new key. */
typedef struct type_ctx {
  int serial;
  char key[32];
} type_ctx;

static int run_type_register(void *ctx) {
  type_ctx *t = ctx;
  irm_type_info info;
  int32_t index = -1;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  snprintf(t->key, sizeof t->key, "alloc.Type%d", t->serial);
  info.type_key = t->key;
  info.parent_key = "ffi.Object";
  return irm_type_register(&info, &index);
}

static void after_type_register(void *ctx, int rc) {
  type_ctx *t = ctx;
  int32_t found = -1;
  if (rc == 0) {
    ck_assert_ok(irm_type_find(t->key, &found));
    ck_assert_str_eq(irm_type_key(found), t->key);
    t->serial++;
  } else {
    ck_assert_error(irm_type_find(t->key, &found), IRM_EKEY, "KeyError: ");
  }
}

START_TEST(test_oom_type_register) {
  type_ctx t = {0, ""};
  operation op = {"irm_type_register", run_type_register, after_type_register,
                  1, &t};
  sweep(&op);
}
END_TEST

/* a journal with two registrations, rolled back; rollback must succeed even
 * while allocations fail */
static int register_one(const char *name, int override) {
  irm_object *f = NULL;
  int rc = irm_func_new_packed(pk_one, NULL, NULL, &f);
  if (rc != 0) return rc;
  rc = irm_func_register_global(name, f, override);
  irm_object_release(f);
  return rc;
}

static int run_journal_two_registrations(void *ctx) {
  irm_journal *j = NULL;
  (void)ctx;
  int rc = irm_journal_open(&j);
  if (rc != 0) {
    ck_assert_int_eq(irm_journal_active(), 0);
    return rc;
  }
  rc = register_one("alloc.j1", 0);
  if (rc == 0) rc = register_one("alloc.j2", 0);
  int rb = irm_journal_rollback(j);
  ck_assert_msg(rb == 0, "rollback failed with %d: %s", rb, irm_last_error());
  return rc;
}

static void after_journal_two_registrations(void *ctx, int rc) {
  (void)ctx;
  (void)rc;
  ck_assert_int_eq(irm_journal_active(), 0);
  ck_assert(!global_exists("alloc.j1"));
  ck_assert(!global_exists("alloc.j2"));
}

START_TEST(test_oom_journal_with_two_registrations_rolled_back) {
  operation op = {"journal with two registrations rolled back",
                  run_journal_two_registrations, after_journal_two_registrations,
                  0, NULL};
  sweep(&op);
}
END_TEST

/* nested journals: the inner one commits into the outer one (which may need
 * memory), then the outer one rolls back */
static int run_nested_journals(void *ctx) {
  irm_journal *outer = NULL, *inner = NULL;
  (void)ctx;
  int rc = irm_journal_open(&outer);
  if (rc != 0) return rc;
  rc = irm_journal_open(&inner);
  if (rc == 0) {
    rc = register_one("alloc.n1", 0);
    if (rc == 0) rc = register_one("alloc.n2", 0);
    int closed = rc == 0 ? irm_journal_commit(inner) : IRM_ENOMEM;
    if (closed != 0) {
      /* a commit that failed leaves inner open and innermost */
      if (rc == 0) rc = closed;
      int rb = irm_journal_rollback(inner);
      ck_assert_msg(rb == 0, "inner rollback failed with %d: %s", rb,
                    irm_last_error());
    }
  }
  int rb = irm_journal_rollback(outer);
  ck_assert_msg(rb == 0, "outer rollback failed with %d: %s", rb, irm_last_error());
  return rc;
}

static void after_nested_journals(void *ctx, int rc) {
  (void)ctx;
  (void)rc;
  ck_assert_int_eq(irm_journal_active(), 0);
  ck_assert(!global_exists("alloc.n1"));
  ck_assert(!global_exists("alloc.n2"));
}

START_TEST(test_oom_nested_journals_inner_commit_outer_rollback) {
  operation op = {"nested journals, inner commit, outer rollback",
                  run_nested_journals, after_nested_journals, 0, NULL};
  sweep(&op);
}
END_TEST

/* a journal with two registrations, committed */
static int run_journal_commit(void *ctx) {
  irm_journal *j = NULL;
  (void)ctx;
  int rc = irm_journal_open(&j);
  if (rc != 0) return rc;
  rc = register_one("alloc.c1", 0);
  if (rc == 0) rc = register_one("alloc.c2", 0);
  if (rc == 0) {
    rc = irm_journal_commit(j);
    if (rc == 0) return 0;
  }
  int rb = irm_journal_rollback(j);
  ck_assert_msg(rb == 0, "rollback failed with %d: %s", rb, irm_last_error());
  return rc;
}

static void after_journal_commit(void *ctx, int rc) {
  (void)ctx;
  ck_assert_int_eq(irm_journal_active(), 0);
  ck_assert_int_eq(global_exists("alloc.c1"), rc == 0);
  ck_assert_int_eq(global_exists("alloc.c2"), rc == 0);
  if (rc == 0) {
    ck_assert_ok(irm_func_remove_global("alloc.c1"));
    ck_assert_ok(irm_func_remove_global("alloc.c2"));
  }
}

START_TEST(test_oom_journal_with_two_registrations_committed) {
  operation op = {"journal with two registrations committed",
                  run_journal_commit, after_journal_commit, 0, NULL};
  sweep(&op);
}
END_TEST

/* a journal that removes and overrides existing globals, rolled back */
typedef struct restore_ctx {
  irm_object *a;
  irm_object *b;
} restore_ctx;

static int run_journal_restore(void *ctx) {
  irm_journal *j = NULL;
  (void)ctx;
  int rc = irm_journal_open(&j);
  if (rc != 0) return rc;
  rc = irm_func_remove_global("alloc.keep.a");
  if (rc == 0) rc = register_one("alloc.keep.b", 1);
  if (rc == 0) rc = register_one("alloc.keep.a", 0);
  int rb = irm_journal_rollback(j);
  ck_assert_msg(rb == 0, "rollback failed with %d: %s", rb, irm_last_error());
  return rc;
}

static void after_journal_restore(void *ctx, int rc) {
  restore_ctx *r = ctx;
  (void)rc;
  irm_object *a = lookup("alloc.keep.a"), *b = lookup("alloc.keep.b");
  ck_assert_ptr_eq(a, r->a);
  ck_assert_ptr_eq(b, r->b);
  irm_object_release(a);
  irm_object_release(b);
}

START_TEST(test_oom_journal_rollback_restores_removed_and_overridden_globals) {
  restore_ctx r = {NULL, NULL};
  ck_assert_ok(irm_func_new_packed(pk_one, NULL, NULL, &r.a));
  ck_assert_ok(irm_func_new_packed(pk_one, NULL, NULL, &r.b));
  ck_assert_ok(irm_func_register_global("alloc.keep.a", r.a, 0));
  ck_assert_ok(irm_func_register_global("alloc.keep.b", r.b, 0));
  operation op = {"journal removing and overriding, rolled back",
                  run_journal_restore, after_journal_restore, 0, &r};
  sweep(&op);
  ck_assert_ok(irm_func_remove_global("alloc.keep.a"));
  ck_assert_ok(irm_func_remove_global("alloc.keep.b"));
  irm_object_release(r.a);
  irm_object_release(r.b);
}
END_TEST

/* ---- out of memory on first use ------------------------------------------ */

/* What a forked process reports about one attempt at a first use. */
typedef struct first_use_report {
  int stage;   /* 0 = all good, else the check that failed */
  int status;  /* of the first use */
  int hit;     /* an injected failure was met */
  long live;   /* blocks live at the end, everything released */
  char message[256];
} first_use_report;

static const char *const builtin_names[] = {
    "ffi.Array",  "ffi.ArraySize",   "ffi.ArrayGetItem", "ffi.Map",
    "ffi.MapSize", "ffi.MapGetItem", "ffi.MapItems",     "ffi.ListGlobalFuncNames"};

static int first_use_globals(void) {
  irm_object *names = NULL;
  int rc = irm_func_list_globals(&names);
  irm_object_release(names);
  return rc;
}

static int first_use_string(void) {
  irm_object *s = NULL;
  int rc = irm_string_new("first", 5, &s);
  irm_object_release(s);
  return rc;
}

/* After the first use, everything must work with memory available. */
static int check_everything_works(void) {
  irm_object *names = NULL, *s = NULL;
  int32_t index = -1;
  if (irm_func_list_globals(&names) != 0) return 10;
  for (size_t i = 0; i < sizeof builtin_names / sizeof *builtin_names; i++) {
    int found = 0;
    for (size_t k = 0; k < irm_array_size(names); k++)
      if (irm_string_equals(irm_array_at(names, k)->v_obj, builtin_names[i],
                            strlen(builtin_names[i])))
        found = 1;
    if (!found) {
      irm_object_release(names);
      return 11;
    }
  }
  irm_object_release(names);
  if (irm_string_new("works", 5, &s) != 0) return 12;
  if (strcmp(irm_object_type_key(s), "ffi.String") != 0) return 13;
  irm_object_release(s);
  if (irm_type_find("ffi.Map", &index) != 0 || index != IRM_TYPE_MAP) return 14;
  irm_any ret = irm_any_none();
  if (irm_func_call_global("ffi.ListGlobalFuncNames", NULL, 0, &ret) != 0)
    return 15;
  irm_any_release(&ret);
  return 0;
}

/* Runs first_use in a new process with failures armed (n < 0: none). */
static first_use_report first_use_in_child(int (*first_use)(void),
                                           fail_mode mode, long n) {
  first_use_report report;
  int fds[2];
  memset(&report, 0, sizeof report);
  ck_assert_int_eq(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    long injected_before = atomic_load(&injected);
    if (n >= 0) {
      if (mode == fail_nth)
        fail_nth_from_now(n);
      else
        fail_all_after(n);
    }
    report.status = first_use();
    stop_failing();
    report.hit = atomic_load(&injected) != injected_before;
    snprintf(report.message, sizeof report.message, "%s", irm_last_error());
    if (report.status != 0 &&
        (report.status != IRM_ENOMEM ||
         strncmp(report.message, "MemoryError: ", 13) != 0))
      report.stage = 1;
    else if (report.status != 0 && !report.hit)
      report.stage = 2;
    else
      report.stage = check_everything_works();
    settle_error();
    report.live = atomic_load(&live_blocks);
    ssize_t w = write(fds[1], &report, sizeof report);
    _exit(w == (ssize_t)sizeof report ? 0 : 1);
  }
  close(fds[1]);
  ssize_t got = read(fds[0], &report, sizeof report);
  close(fds[0]);
  int wstatus = 0;
  ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
  ck_assert_msg(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0,
                "child for N=%ld died (wait status %d)", n, wstatus);
  ck_assert_int_eq(got, (ssize_t)sizeof report);
  return report;
}

static void sweep_first_use(const char *what, int (*first_use)(void)) {
  first_use_report clean = first_use_in_child(first_use, fail_nth, -1);
  ck_assert_msg(clean.stage == 0 && clean.status == 0,
                "%s without failures: stage %d status %d '%s'", what,
                clean.stage, clean.status, clean.message);
  for (int m = 0; m < 2; m++) {
    fail_mode mode = m == 0 ? fail_nth : fail_after;
    for (long n = mode == fail_nth ? 1 : 0;; n++) {
      ck_assert_msg(n < sweep_cap, "%s: still meeting failures at N=%ld", what, n);
      first_use_report r = first_use_in_child(first_use, mode, n);
      ck_assert_msg(r.stage == 0,
                    "%s (mode %d, N=%ld): check %d failed; first use gave %d "
                    "'%s'",
                    what, m, n, r.stage, r.status, r.message);
      ck_assert_msg(r.live == clean.live,
                    "%s (mode %d, N=%ld, status %d): %ld blocks live, %ld after "
                    "a clean first use",
                    what, m, n, r.status, r.live, clean.live);
      if (r.status == 0 && !r.hit) break;
    }
  }
}

START_TEST(test_oom_during_first_registry_use_is_reported_and_recoverable) {
  sweep_first_use("first irm_func_list_globals", first_use_globals);
}
END_TEST

START_TEST(test_oom_during_first_object_use_is_reported_and_recoverable) {
  sweep_first_use("first irm_string_new", first_use_string);
}
END_TEST

/* ---- suite --------------------------------------------------------------- */

static Suite *alloc_suite(void) {
  Suite *s = suite_create("alloc");

  TCase *tc = tcase_create("set_allocator");
  tcase_add_test(tc, test_set_allocator_rejects_null_malloc_with_value_error);
  tcase_add_test(tc, test_set_allocator_rejects_null_realloc_with_value_error);
  tcase_add_test(tc, test_set_allocator_rejects_null_free_with_value_error);
  tcase_add_test(tc, test_set_allocator_after_first_use_is_runtime_error);
  suite_add_tcase(s, tc);

  tc = tcase_create("hooks");
  tcase_add_test(tc, test_irm_malloc_and_free_go_through_the_hooks);
  tcase_add_test(tc, test_irm_malloc_of_zero_gives_a_unique_pointer_or_null);
  tcase_add_test(tc, test_irm_malloc_failure_returns_null_without_setting_an_error);
  tcase_add_test(tc, test_irm_calloc_zeroes_and_rejects_overflow);
  tcase_add_test(tc, test_irm_realloc_keeps_contents_and_failure_keeps_the_block);
  tcase_add_test(tc, test_irm_strdup_and_strndup_copy_through_the_hooks);
  tcase_add_test(tc, test_objects_are_allocated_and_freed_through_the_hooks);
  suite_add_tcase(s, tc);

  tc = tcase_create("out_of_memory");
  tcase_add_test(tc, test_oom_registering_a_new_global);
  tcase_add_test(tc, test_oom_registering_with_override);
  tcase_add_test(tc, test_oom_looking_up_and_calling_a_global);
  tcase_add_test(tc, test_oom_listing_globals);
  tcase_add_test(tc, test_oom_building_an_array_of_50_strings_from_c_strings);
  tcase_add_test(tc, test_oom_building_an_array_of_50_string_objects);
  tcase_add_test(tc, test_oom_array_append_move_in_place);
  tcase_add_test(tc, test_oom_array_append_move_on_a_shared_array);
  tcase_add_test(tc, test_oom_building_a_map_of_50_entries_from_pairs);
  tcase_add_test(tc, test_oom_building_a_map_of_50_entries_with_set_move);
  tcase_add_test(tc, test_oom_map_set_move_on_a_shared_map);
  tcase_add_test(tc, test_oom_string_new);
  tcase_add_test(tc, test_oom_type_register);
  tcase_add_test(tc, test_oom_journal_with_two_registrations_rolled_back);
  tcase_add_test(tc, test_oom_journal_rollback_restores_removed_and_overridden_globals);
  tcase_add_test(tc, test_oom_nested_journals_inner_commit_outer_rollback);
  tcase_add_test(tc, test_oom_journal_with_two_registrations_committed);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);

  tc = tcase_create("first_use");
  tcase_add_test(tc, test_oom_during_first_registry_use_is_reported_and_recoverable);
  tcase_add_test(tc, test_oom_during_first_object_use_is_reported_and_recoverable);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* Before any other irm call: every allocation irm makes is counted. */
  if (irm_set_allocator(counting_malloc, counting_realloc, counting_free) != 0) {
    fprintf(stderr, "check_alloc: irm_set_allocator failed: %s\n",
            irm_last_error());
    return EXIT_FAILURE;
  }
  SRunner *sr = srunner_create(alloc_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failures = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
