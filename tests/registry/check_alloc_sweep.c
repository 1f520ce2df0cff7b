/* Out of memory in single operations: registering, looking up, calling and
 * listing globals, building Strings, Arrays and Maps, registering types and
 * using journals. Each sweep runs an operation with N = 1, 2, 3, ...
 * (sampled past the first few: see check_alloc_util.h) until it succeeds
 * without meeting the failure, and checks each time that irm either
 * succeeded or reported MemoryError, leaked nothing and left the registry
 * as it was.
 *
 * main() installs the counting allocator of check_alloc_util.h before any
 * other irm call. */
#include <check.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_alloc_sweep_util.h"

/* ---- helpers ------------------------------------------------------------- */

/* Returns a String copy of its first (str) argument: the callee allocates. */
static int pk_echo(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
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

static int pk_one(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
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
  operation op = {.what = "register a new global",
                  .run = run_register_new,
                  .after = after_register_new,
                  .permanent_on_success = 0,
                  .ctx = NULL};
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
  operation op = {.what = "register with override",
                  .run = run_register_override,
                  .after = after_register_override,
                  .permanent_on_success = 0,
                  .ctx = old_fn};
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
  operation op = {.what = "look up and call a global",
                  .run = run_lookup_and_call,
                  .after = NULL,
                  .permanent_on_success = 0,
                  .ctx = NULL};
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
  operation op = {.what = "irm_func_list_globals",
                  .run = run_list_globals,
                  .after = NULL,
                  .permanent_on_success = 0,
                  .ctx = NULL};
  sweep(&op);
}
END_TEST

/* an Array of 50 Strings, from borrowed C strings and from String objects */
enum { n_items = 50 };

static void item_text(char *buf, size_t size, int i) { snprintf(buf, size, "item number %d with some length", i); }

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
  operation op = {.what = "Array of 50 C strings",
                  .run = run_array_of_cstrings,
                  .after = NULL,
                  .permanent_on_success = 0,
                  .ctx = NULL};
  sweep(&op);
}
END_TEST

START_TEST(test_oom_building_an_array_of_50_string_objects) {
  operation op = {.what = "Array of 50 String objects",
                  .run = run_array_of_string_objects,
                  .after = NULL,
                  .permanent_on_success = 0,
                  .ctx = NULL};
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
  operation op = {.what = "irm_array_append_move x50 (unique)",
                  .run = run_append_move,
                  .after = NULL,
                  .permanent_on_success = 0,
                  .ctx = NULL};
  sweep(&op);
}
END_TEST

START_TEST(test_oom_array_append_move_on_a_shared_array) {
  operation op = {.what = "irm_array_append_move x50 (shared)",
                  .run = run_append_move,
                  .after = NULL,
                  .permanent_on_success = 0,
                  .ctx = (void *)&op};
  sweep(&op);
}
END_TEST

/* a Map of 50 entries */
static void key_text(char *buf, size_t size, int i) { snprintf(buf, size, "key.%02d", i); }

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
  operation op = {.what = "irm_map_from_pairs (50)",
                  .run = run_map_from_pairs,
                  .after = NULL,
                  .permanent_on_success = 0,
                  .ctx = NULL};
  sweep(&op);
}
END_TEST

START_TEST(test_oom_building_a_map_of_50_entries_with_set_move) {
  operation op = {.what = "irm_map_set_move x50 (unique)",
                  .run = run_map_set_move,
                  .after = NULL,
                  .permanent_on_success = 0,
                  .ctx = NULL};
  sweep(&op);
}
END_TEST

START_TEST(test_oom_map_set_move_on_a_shared_map) {
  operation op = {.what = "irm_map_set_move x50 (shared)",
                  .run = run_map_set_move,
                  .after = NULL,
                  .permanent_on_success = 0,
                  .ctx = (void *)&op};
  sweep(&op);
}
END_TEST

/* Erasing every entry of a 50-entry Map one by one, in turn in place
 * (leaving holes), from a shared Map (a copy) and with irm_map_with_erase;
 * the input Map stays as it was. */
static int run_map_erase(void *ctx) {
  const irm_object *input = ctx;
  irm_object *map = NULL, *out = NULL;
  char key[16];
  int rc = irm_map_with_erase(input, "key.00", &map);
  if (rc != 0) {
    ck_require(map == NULL, "a failed irm_map_with_erase gave a Map");
    return rc;
  }
  for (int i = 1; i < n_items && rc == 0; i++) {
    key_text(key, sizeof key, i);
    size_t size = irm_map_size(map);
    irm_object *before = map, *shared = i % 3 == 0 ? map : NULL;
    if (shared != NULL) irm_object_retain(shared);
    if (i % 3 == 2) {
      rc = irm_map_with_erase(map, key, &out);
      if (rc == 0) {
        irm_object_release(map);
        map = out;
      }
    } else {
      rc = irm_map_erase_move(&map, key);
    }
    int found = irm_map_find_cstr(map, key) != NULL;
    ck_require(rc == 0 ? irm_map_size(map) == size - 1 && !found : map == before && irm_map_size(map) == size && found,
               "erasing %s (status %d) left %zu of %zu entries", key, rc, irm_map_size(map), size);
    if (shared != NULL) {
      ck_require(irm_map_size(shared) == size, "the shared Map changed");
      irm_object_release(shared);
    }
  }
  irm_object_release(map);
  return rc;
}

static void after_map_erase(void *ctx, int rc) {
  const irm_object *input = ctx;
  irm_map_iter it = irm_map_iter_begin(input);
  const irm_object *k = NULL;
  const irm_any *v = NULL;
  char key[16];
  int i = 0;
  (void)rc;
  for (; irm_map_iter_next(&it, &k, &v); i++) {
    key_text(key, sizeof key, i);
    ck_require(strcmp(irm_string_data(k), key) == 0, "input entry %d is %s", i, irm_string_data(k));
  }
  ck_require(i == n_items && irm_map_size(input) == n_items, "the input Map has %d entries", i);
}

START_TEST(test_oom_erasing_every_entry_of_a_map_in_place_and_from_copies) {
  irm_object *input = NULL;
  ck_assert_ok(irm_map_new(&input));
  for (int i = 0; i < n_items; i++) {
    char key[16];
    key_text(key, sizeof key, i);
    irm_any value = irm_any_str(key);
    ck_assert_ok(irm_map_set_move(&input, key, &value));
  }
  operation op = {.what = "erasing every entry of a Map of 50",
                  .run = run_map_erase,
                  .after = after_map_erase,
                  .permanent_on_success = 0,
                  .ctx = input};
  sweep(&op);
  irm_object_release(input);
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
  operation op = {.what = "irm_string_new",
                  .run = run_string_new,
                  .after = NULL,
                  .permanent_on_success = 0,
                  .ctx = NULL};
  sweep(&op);
}
END_TEST

/* irm_type_register of a type with two former keys: a success is
 * permanent, so each success moves on to new keys; a failure registers none
 * of the three. */
typedef struct type_ctx {
  int serial;
  char key[32], old1[32], old2[32];
} type_ctx;

static int run_type_register(void *ctx) {
  type_ctx *t = ctx;
  irm_type_info info;
  int32_t index = -1;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  snprintf(t->key, sizeof t->key, "alloc.Type%d", t->serial);
  snprintf(t->old1, sizeof t->old1, "alloc.OldType%d", t->serial);
  snprintf(t->old2, sizeof t->old2, "alloc.OlderType%d", t->serial);
  const char *const former[] = {t->old1, t->old2, NULL};
  info.type_key = t->key;
  info.parent_key = "ffi.Object";
  info.former_keys = former;
  return irm_type_register(&info, &index);
}

static void after_type_register(void *ctx, int rc) {
  type_ctx *t = ctx;
  const char *keys[] = {t->key, t->old1, t->old2};
  for (int i = 0; i < 3; i++) {
    int32_t found = -1;
    if (rc == 0) {
      ck_assert_ok(irm_type_find(keys[i], &found));
      ck_assert_str_eq(irm_type_key(found), t->key);
    } else {
      ck_assert_error(irm_type_find(keys[i], &found), IRM_EKEY, "KeyError: ");
    }
  }
  t->serial += rc == 0;
}

START_TEST(test_oom_type_register) {
  type_ctx t = {0, "", "", ""};
  operation op = {.what = "irm_type_register",
                  .run = run_type_register,
                  .after = after_type_register,
                  .permanent_on_success = 1,
                  .ctx = &t};
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
  operation op = {.what = "journal with two registrations rolled back",
                  .run = run_journal_two_registrations,
                  .after = after_journal_two_registrations,
                  .permanent_on_success = 0,
                  .ctx = NULL};
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
      ck_assert_msg(rb == 0, "inner rollback failed with %d: %s", rb, irm_last_error());
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
  operation op = {.what = "nested journals, inner commit, outer rollback",
                  .run = run_nested_journals,
                  .after = after_nested_journals,
                  .permanent_on_success = 0,
                  .ctx = NULL};
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
  operation op = {.what = "journal with two registrations committed",
                  .run = run_journal_commit,
                  .after = after_journal_commit,
                  .permanent_on_success = 0,
                  .ctx = NULL};
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
  operation op = {.what = "journal removing and overriding, rolled back",
                  .run = run_journal_restore,
                  .after = after_journal_restore,
                  .permanent_on_success = 0,
                  .ctx = &r};
  sweep(&op);
  ck_assert_ok(irm_func_remove_global("alloc.keep.a"));
  ck_assert_ok(irm_func_remove_global("alloc.keep.b"));
  irm_object_release(r.a);
  irm_object_release(r.b);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *alloc_sweep_suite(void) {
  Suite *s = suite_create("alloc_sweep");

  TCase *tc = tcase_create("out_of_memory");
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
  tcase_add_test(tc, test_oom_erasing_every_entry_of_a_map_in_place_and_from_copies);
  tcase_add_test(tc, test_oom_string_new);
  tcase_add_test(tc, test_oom_type_register);
  tcase_add_test(tc, test_oom_journal_with_two_registrations_rolled_back);
  tcase_add_test(tc, test_oom_journal_rollback_restores_removed_and_overridden_globals);
  tcase_add_test(tc, test_oom_nested_journals_inner_commit_outer_rollback);
  tcase_add_test(tc, test_oom_journal_with_two_registrations_committed);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* Before any other irm call: every allocation irm makes is counted. */
  if (install_counting_allocator("check_alloc_sweep") != 0) return EXIT_FAILURE;
  return run_suite(alloc_sweep_suite());
}
