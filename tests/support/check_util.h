/* What every Check suite of irm shares: assertions on a status and
 * irm_last_error(), the runner main() calls, and small builders for values,
 * packed functions, registry look-ups and journals.
 *
 * Macros and static inline functions only, so that each suite stays one
 * standalone program and a suite that uses none of a helper pays nothing
 * for it (an unused static inline function draws no warning). */
#ifndef IRM_TESTS_CHECK_UTIL_H
#define IRM_TESTS_CHECK_UTIL_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

/* ---- assertions ---------------------------------------------------------- */

/* expr must return 0; otherwise show the status and the message. */
#define ck_assert_ok(expr)                                                                 \
  do {                                                                                     \
    int ok_rc_ = (expr);                                                                   \
    ck_assert_msg(ok_rc_ == 0, "%s failed with %d (%s)", #expr, ok_rc_, irm_last_error()); \
  } while (0)

/* rc must be code and irm_last_error() must start with prefix. */
#define ck_assert_error(rc, code, prefix)                                                           \
  do {                                                                                              \
    int rc_ = (rc);                                                                                 \
    ck_assert_msg(rc_ == (code), "expected status %d, got %d (%s)", (code), rc_, irm_last_error()); \
    ck_assert_msg(strncmp(irm_last_error(), (prefix), strlen(prefix)) == 0,                         \
                  "expected a message starting with '%s', got '%s'", (prefix), irm_last_error());   \
  } while (0)

/* irm_last_error() must start with prefix (no status to check). */
#define ck_assert_last_error(prefix)                                      \
  ck_assert_msg(strncmp(irm_last_error(), (prefix), strlen(prefix)) == 0, \
                "expected a message starting with '%s', got '%s'", (prefix), irm_last_error())

/* irm_last_error() must contain needle. */
#define ck_assert_error_mentions(needle)                                                                      \
  ck_assert_msg(strstr(irm_last_error(), (needle)) != NULL, "expected the message to mention '%s', got '%s'", \
                (needle), irm_last_error())

/* Like ck_assert_msg, but silent on success: Check records every passing
 * assertion with a write to the parent process, too slow in hot loops. */
#define ck_require(expr, ...)               \
  do {                                      \
    if (!(expr)) ck_abort_msg(__VA_ARGS__); \
  } while (0)

/* ---- running a suite ----------------------------------------------------- */

/* Runs every test of s, each in its own process (Check forks), and returns
 * main()'s exit status. */
static inline int run_suite(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failures = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ---- deep programs -------------------------------------------------------- */

/* The depth (or length) a deep-program test uses: n, divided by
 * IRM_TEST_DEPTH_DIVISOR when set (scripts/valgrind.sh sets 100: memcheck
 * runs each node ~50 times slower, and leaks show at any depth; the
 * sanitizer build's ctests set 10). */
static inline size_t test_depth(size_t n) {
  const char *d = getenv("IRM_TEST_DEPTH_DIVISOR");
  long k = d ? strtol(d, NULL, 10) : 1;
  return k > 1 ? n / (size_t)k : n;
}

/* ---- values -------------------------------------------------------------- */

/* A new String holding the C string s. */
static inline irm_object *new_string(const char *s) {
  irm_object *o = NULL;
  ck_assert_ok(irm_string_new(s, strlen(s), &o));
  return o;
}

/* A new Array of items[0..n). */
static inline irm_object *new_array(const irm_any *items, size_t n) {
  irm_object *a = NULL;
  ck_assert_ok(irm_array_new(items, n, &a));
  return a;
}

/* A new Map of keys[i] to values[i], i < n. */
static inline irm_object *new_map(const char *const *keys, const irm_any *values, size_t n) {
  irm_object *m = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, values, n, &m));
  return m;
}

/* A new object of type with a zeroed payload of payload_size bytes. */
static inline irm_object *new_object(int32_t type, size_t payload_size) {
  irm_object *o = NULL;
  int rc = irm_object_new(type, payload_size, &o);
  ck_require(rc == 0 && o != NULL, "irm_object_new: %s", irm_last_error());
  return o;
}

/* The index of the test type key with the hooks set in info, registered on
 * the first call in a process; *index (a static of the caller, -1 at
 * first) remembers it. */
static inline int32_t type_once(int32_t *index, const char *key, irm_type_info info) {
  if (*index < 0) {
    info.struct_size = sizeof info;
    info.type_key = key;
    ck_assert_ok(irm_type_register(&info, index));
  }
  return *index;
}

/* Whether a and b are structurally equal (asserting that irm could tell). */
static inline int equal(const irm_any *a, const irm_any *b) {
  int eq = -1;
  int rc = irm_structural_equal(a, b, &eq);
  ck_require(rc == 0, "irm_structural_equal failed: %s", irm_last_error());
  return eq;
}

/* ---- packed functions ---------------------------------------------------- */

/* Counts finalizer calls and remembers the resource it was given. */
typedef struct fin_log {
  int calls;
  void *last_resource;
} fin_log;

static inline void log_finalizer(void *resource) {
  fin_log *log = resource;
  log->calls++;
  log->last_resource = resource;
}

/* Returns the integer in resource. */
static inline int pk_const(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  *ret = irm_any_int((int64_t)(intptr_t)resource);
  return 0;
}

/* Sums its integer arguments. */
static inline int pk_add(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  int64_t sum = 0;
  (void)resource;
  for (int32_t i = 0; i < nargs; i++) {
    int64_t x;
    int rc = irm_any_to_int(&args[i], &x);
    if (rc != 0) return rc;
    sum += x;
  }
  *ret = irm_any_int(sum);
  return 0;
}

/* Fails the way its resource says. */
typedef struct failure {
  int status;          /* returned by the callee */
  const char *message; /* set with irm_set_last_error unless NULL */
  irm_object *in_ret;  /* retained into *ret before failing unless NULL */
} failure;

static inline int pk_fail(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const failure *f = resource;
  (void)args;
  (void)nargs;
  if (f->in_ret != NULL) {
    irm_object_retain(f->in_ret);
    *ret = irm_any_object(f->in_ret);
  }
  if (f->message != NULL) irm_set_last_error(f->message);
  return f->status;
}

/* A new packed function object (asserting success). */
static inline irm_object *new_packed(irm_packed_cfunc fn, void *resource, void (*finalizer)(void *)) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed(fn, resource, finalizer, &f));
  ck_assert_ptr_nonnull(f);
  return f;
}

/* A new function returning value. */
static inline irm_object *new_const(int64_t value) { return new_packed(pk_const, (void *)(intptr_t)value, NULL); }

/* Calls f with no arguments and returns the integer result. */
static inline int64_t call_int0(irm_object *f) {
  irm_any ret = irm_any_int(-77);
  ck_assert_ok(irm_func_call(f, NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  return ret.v_int;
}

/* ---- the global registry ------------------------------------------------- */

/* The global functions irm registers by itself. */
static const char *const builtin_names[] = {
    "ffi.Array",   "ffi.ArraySize",  "ffi.ArrayGetItem", "ffi.Map",
    "ffi.MapSize", "ffi.MapGetItem", "ffi.MapItems",     "ffi.ListGlobalFuncNames"};

/* The registered function called name, or NULL (new reference). */
static inline irm_object *lookup(const char *name) {
  irm_object *f = (irm_object *)&f; /* garbage: must be overwritten */
  ck_assert_ok(irm_func_get_global(name, &f));
  return f;
}

static inline int global_exists(const char *name) {
  irm_object *f = lookup(name);
  irm_object_release(f);
  return f != NULL;
}

/* Registers a fresh function returning value under name. */
static inline void register_const(const char *name, int64_t value, int override) {
  irm_object *f = new_const(value);
  ck_assert_ok(irm_func_register_global(name, f, override));
  irm_object_release(f);
}

/* Whether the Array arr holds a String equal to s. */
static inline int array_has_string(const irm_object *arr, const char *s) {
  for (size_t i = 0; i < irm_array_size(arr); i++) {
    const irm_any *item = irm_array_at(arr, i);
    if (item != NULL && item->type_code == IRM_OBJECT && irm_string_equals(item->v_obj, s, strlen(s))) return 1;
  }
  return 0;
}

/* names must be an Array of Strings in strictly increasing order. */
static inline void assert_sorted_strings(const irm_object *names) {
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const irm_any *item = irm_array_at(names, i);
    ck_assert_ptr_nonnull(item);
    ck_assert_int_eq(item->type_code, IRM_OBJECT);
    ck_assert_str_eq(irm_object_type_key(item->v_obj), "ffi.String");
    if (i > 0) {
      const char *prev = irm_string_data(irm_array_at(names, i - 1)->v_obj);
      const char *cur = irm_string_data(item->v_obj);
      ck_assert_msg(strcmp(prev, cur) < 0, "'%s' listed before '%s'", prev, cur);
    }
  }
}

/* ---- journals ------------------------------------------------------------ */

/* A new journal, now the innermost one of this thread. */
static inline irm_journal *open_journal(void) {
  irm_journal *j = NULL;
  ck_assert_ok(irm_journal_open(&j));
  ck_assert_ptr_nonnull(j);
  return j;
}


/* ---- calling globals ------------------------------------------------------ */

/* Calls the global name and returns its NEW result (asserting success). */
static inline irm_any call_ok(const char *name, const irm_any *args, int32_t nargs) {
  irm_any ret = irm_any_int(-1);
  int rc = irm_func_call_global(name, args, nargs, &ret);
  ck_require(rc == 0, "%s failed with %d (%s)", name, rc, irm_last_error());
  return ret;
}

/* Calls the global name, which must fail and leave NONE; returns the status. */
static inline int call_fails(const char *name, const irm_any *args, int32_t nargs) {
  irm_any ret = irm_any_int(-1);
  int rc = irm_func_call_global(name, args, nargs, &ret);
  ck_require(rc != 0, "%s succeeded but should have failed", name);
  ck_require(ret.type_code == IRM_NONE, "%s left a %s result after failing", name, irm_any_type_name(&ret));
  return rc;
}

/* The object result of the global name, which must be of type_key. NEW. */
static inline irm_object *call_obj(const char *name, const irm_any *args, int32_t nargs, const char *type_key) {
  irm_any ret = call_ok(name, args, nargs);
  ck_require(ret.type_code == IRM_OBJECT && irm_object_is(ret.v_obj, type_key), "%s returned %s, not %s", name,
             irm_any_type_name(&ret), type_key);
  return ret.v_obj;
}

/* A Map with one entry. NEW. */
static inline irm_object *map1(const char *key, irm_any value) { return new_map(&key, &value, 1); }

#endif /* IRM_TESTS_CHECK_UTIL_H */
