/* The registration journal (journal.h): commit, rollback, nesting, types,
 * threads and the lazily registered built-ins. Custom records are in
 * check_journal_records.c.
 *
 * main() makes no irm call, so every test (forked by Check) starts in a
 * process where irm has not been used yet. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

/* ---- helpers ------------------------------------------------------------- */

/* The integer a registered function returns when called without arguments. */
static int64_t call_global_int(const char *name) {
  irm_any ret = irm_any_none();
  ck_assert_ok(irm_func_call_global(name, NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  return ret.v_int;
}

static size_t count_globals(void) {
  irm_object *names = NULL;
  ck_assert_ok(irm_func_list_globals(&names));
  size_t n = irm_array_size(names);
  irm_object_release(names);
  return n;
}

/* ---- open, commit, rollback ---------------------------------------------- */

START_TEST(test_no_journal_is_active_before_one_is_opened) {
  ck_assert_int_eq(irm_journal_active(), 0);
  register_const("journal.none", 1, 0);
  ck_assert_int_eq(irm_journal_active(), 0);
  ck_assert(global_exists("journal.none"));
}
END_TEST

START_TEST(test_open_makes_recording_active_until_commit) {
  irm_journal *j = open_journal();
  ck_assert_int_ne(irm_journal_active(), 0);
  ck_assert_uint_eq(irm_journal_size(j), 0);
  ck_assert_ok(irm_journal_commit(j));
  ck_assert_int_eq(irm_journal_active(), 0);
}
END_TEST

START_TEST(test_open_with_null_out_fails_and_opens_nothing) {
  ck_assert_int_lt(irm_journal_open(NULL), 0);
  ck_assert_int_eq(irm_journal_active(), 0);
}
END_TEST

START_TEST(test_commit_keeps_registrations_made_inside) {
  irm_journal *j = open_journal();
  register_const("journal.kept.a", 1, 0);
  register_const("journal.kept.b", 2, 0);
  ck_assert_ok(irm_journal_commit(j));
  ck_assert_int_eq(call_global_int("journal.kept.a"), 1);
  ck_assert_int_eq(call_global_int("journal.kept.b"), 2);
}
END_TEST

START_TEST(test_rollback_removes_every_global_registered_inside) {
  size_t before = count_globals();
  irm_journal *j = open_journal();
  register_const("journal.gone.a", 1, 0);
  register_const("journal.gone.b", 2, 0);
  register_const("journal.gone.c", 3, 1); /* override of a new name */
  ck_assert_uint_eq(count_globals(), before + 3);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(irm_journal_active(), 0);
  ck_assert(!global_exists("journal.gone.a"));
  ck_assert(!global_exists("journal.gone.b"));
  ck_assert(!global_exists("journal.gone.c"));
  ck_assert_uint_eq(count_globals(), before);
  /* the names are free again */
  register_const("journal.gone.a", 4, 0);
  ck_assert_int_eq(call_global_int("journal.gone.a"), 4);
}
END_TEST

START_TEST(test_rollback_of_an_override_brings_the_old_function_back) {
  irm_object *old_fn = new_const(1);
  ck_assert_ok(irm_func_register_global("journal.overridden", old_fn, 0));
  irm_journal *j = open_journal();
  register_const("journal.overridden", 2, 1);
  ck_assert_int_eq(call_global_int("journal.overridden"), 2);
  ck_assert_ok(irm_journal_rollback(j));
  irm_object *now = lookup("journal.overridden");
  ck_assert_ptr_eq(now, old_fn);
  ck_assert_int_eq(call_global_int("journal.overridden"), 1);
  irm_object_release(now);
  irm_object_release(old_fn);
}
END_TEST

START_TEST(test_rollback_of_overriding_a_name_with_its_own_function_balances) {
  irm_object *f = new_const(4);
  ck_assert_ok(irm_func_register_global("journal.same", f, 0));
  ck_assert_uint_eq(irm_object_refcount(f), 2);
  irm_journal *j = open_journal();
  ck_assert_ok(irm_func_register_global("journal.same", f, 1));
  ck_assert_ok(irm_journal_rollback(j));
  irm_object *now = lookup("journal.same");
  ck_assert_ptr_eq(now, f);
  irm_object_release(now);
  ck_assert_uint_eq(irm_object_refcount(f), 2);
  ck_assert_ok(irm_func_remove_global("journal.same"));
  ck_assert_uint_eq(irm_object_refcount(f), 1);
  irm_object_release(f);
}
END_TEST

START_TEST(test_rollback_restores_a_global_removed_inside) {
  irm_object *f = new_const(5);
  ck_assert_ok(irm_func_register_global("journal.removed", f, 0));
  irm_journal *j = open_journal();
  ck_assert_ok(irm_func_remove_global("journal.removed"));
  ck_assert(!global_exists("journal.removed"));
  ck_assert_ok(irm_journal_rollback(j));
  irm_object *now = lookup("journal.removed");
  ck_assert_ptr_eq(now, f);
  irm_object_release(now);
  irm_object_release(f);
}
END_TEST

START_TEST(test_rollback_leaves_registrations_made_before_the_journal) {
  irm_object *f = new_const(9);
  ck_assert_ok(irm_func_register_global("journal.before", f, 0));
  size_t before = count_globals();
  irm_journal *j = open_journal();
  register_const("journal.inside", 1, 0);
  ck_assert_ok(irm_journal_rollback(j));
  irm_object *now = lookup("journal.before");
  ck_assert_ptr_eq(now, f);
  ck_assert_uint_eq(count_globals(), before);
  irm_object_release(now);
  irm_object_release(f);
}
END_TEST

START_TEST(test_rollback_undoes_many_changes_to_one_name_newest_first) {
  irm_object *original = new_const(1);
  ck_assert_ok(irm_func_register_global("journal.churn", original, 0));
  irm_journal *j = open_journal();
  register_const("journal.churn", 2, 1);
  register_const("journal.churn", 3, 1);
  ck_assert_ok(irm_func_remove_global("journal.churn"));
  register_const("journal.churn", 4, 0);
  ck_assert_ok(irm_func_remove_global("journal.churn"));
  register_const("journal.churn", 5, 0);
  ck_assert_int_eq(call_global_int("journal.churn"), 5);
  ck_assert_ok(irm_journal_rollback(j));
  irm_object *now = lookup("journal.churn");
  ck_assert_ptr_eq(now, original);
  irm_object_release(now);
  irm_object_release(original);
}
END_TEST

START_TEST(test_rollback_releases_functions_registered_only_inside) {
  fin_log log = {0};
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed(pk_const, &log, log_finalizer, &f));
  irm_journal *j = open_journal();
  ck_assert_ok(irm_func_register_global("journal.released", f, 0));
  irm_object_release(f);
  ck_assert_int_eq(log.calls, 0);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(log.calls, 1);
}
END_TEST

START_TEST(test_rollback_releases_the_replacing_function_of_an_override) {
  fin_log log = {0};
  irm_object *f = NULL, *old_fn = new_const(1);
  ck_assert_ok(irm_func_register_global("journal.replaced", old_fn, 0));
  ck_assert_ok(irm_func_new_packed(pk_const, &log, log_finalizer, &f));
  irm_journal *j = open_journal();
  ck_assert_ok(irm_func_register_global("journal.replaced", f, 1));
  irm_object_release(f);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(log.calls, 1);
  irm_object_release(old_fn);
}
END_TEST

START_TEST(test_holder_keeps_a_rolled_back_function_working) {
  irm_journal *j = open_journal();
  register_const("journal.held", 6, 0);
  irm_object *held = lookup("journal.held");
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert(!global_exists("journal.held"));
  irm_any ret = irm_any_none();
  ck_assert_ok(irm_func_call(held, NULL, 0, &ret));
  ck_assert_int_eq(ret.v_int, 6);
  irm_object_release(held);
}
END_TEST

START_TEST(test_size_counts_one_record_per_registration) {
  register_const("journal.size.existing", 1, 0);
  irm_journal *j = open_journal();
  ck_assert_uint_eq(irm_journal_size(j), 0);
  register_const("journal.size.a", 1, 0);
  ck_assert_uint_eq(irm_journal_size(j), 1);
  register_const("journal.size.existing", 2, 1);
  ck_assert_uint_eq(irm_journal_size(j), 2);
  ck_assert_ok(irm_func_remove_global("journal.size.a"));
  ck_assert_uint_eq(irm_journal_size(j), 3);
  /* failed registrations record nothing */
  irm_object *f = new_const(3);
  ck_assert_error(irm_func_register_global("journal.size.existing", f, 0), IRM_EKEY, "KeyError: ");
  ck_assert_error(irm_func_register_global("", f, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_func_remove_global("journal.size.missing"), IRM_EKEY, "KeyError: ");
  ck_assert_uint_eq(irm_journal_size(j), 3);
  irm_object_release(f);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(call_global_int("journal.size.existing"), 1);
  ck_assert(!global_exists("journal.size.a"));
}
END_TEST

START_TEST(test_commit_or_rollback_of_null_fails) {
  ck_assert_int_lt(irm_journal_commit(NULL), 0);
  ck_assert_int_lt(irm_journal_rollback(NULL), 0);
  irm_journal *j = open_journal();
  ck_assert_int_lt(irm_journal_commit(NULL), 0);
  ck_assert_int_ne(irm_journal_active(), 0);
  ck_assert_ok(irm_journal_commit(j));
}
END_TEST

/* ---- nesting ------------------------------------------------------------- */

START_TEST(test_inner_commit_then_outer_rollback_undoes_both) {
  irm_journal *outer = open_journal();
  register_const("journal.outer", 1, 0);
  irm_journal *inner = open_journal();
  register_const("journal.inner", 2, 0);
  ck_assert_ok(irm_journal_commit(inner));
  ck_assert_int_ne(irm_journal_active(), 0);
  ck_assert(global_exists("journal.inner"));
  ck_assert_ok(irm_journal_rollback(outer));
  ck_assert(!global_exists("journal.outer"));
  ck_assert(!global_exists("journal.inner"));
  ck_assert_int_eq(irm_journal_active(), 0);
}
END_TEST

START_TEST(test_inner_commit_hands_its_records_to_the_outer_journal) {
  irm_journal *outer = open_journal();
  register_const("journal.h.outer", 1, 0);
  irm_journal *inner = open_journal();
  register_const("journal.h.inner.a", 2, 0);
  register_const("journal.h.inner.b", 3, 0);
  ck_assert_uint_eq(irm_journal_size(inner), 2);
  ck_assert_uint_eq(irm_journal_size(outer), 1);
  ck_assert_ok(irm_journal_commit(inner));
  ck_assert_uint_eq(irm_journal_size(outer), 3);
  ck_assert_ok(irm_journal_commit(outer));
  ck_assert(global_exists("journal.h.inner.a"));
}
END_TEST

START_TEST(test_inner_rollback_undoes_only_the_inner_journal) {
  irm_journal *outer = open_journal();
  register_const("journal.keep.outer", 1, 0);
  irm_journal *inner = open_journal();
  register_const("journal.drop.inner", 2, 0);
  register_const("journal.keep.outer", 3, 1);
  ck_assert_ok(irm_journal_rollback(inner));
  ck_assert_int_ne(irm_journal_active(), 0);
  ck_assert(!global_exists("journal.drop.inner"));
  ck_assert_int_eq(call_global_int("journal.keep.outer"), 1);
  ck_assert_uint_eq(irm_journal_size(outer), 1);
  ck_assert_ok(irm_journal_commit(outer));
  ck_assert_int_eq(call_global_int("journal.keep.outer"), 1);
}
END_TEST

START_TEST(test_committing_a_journal_that_is_not_innermost_changes_nothing) {
  irm_journal *outer = open_journal();
  register_const("journal.order.outer", 1, 0);
  irm_journal *inner = open_journal();
  register_const("journal.order.inner", 2, 0);
  ck_assert_error(irm_journal_commit(outer), IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_uint_eq(irm_journal_size(outer), 1);
  ck_assert_uint_eq(irm_journal_size(inner), 1);
  ck_assert(global_exists("journal.order.outer"));
  ck_assert(global_exists("journal.order.inner"));
  /* inner is still the innermost: its own rollback works */
  ck_assert_ok(irm_journal_rollback(inner));
  ck_assert(!global_exists("journal.order.inner"));
  ck_assert_int_ne(irm_journal_active(), 0);
  ck_assert_ok(irm_journal_rollback(outer));
  ck_assert(!global_exists("journal.order.outer"));
  ck_assert_int_eq(irm_journal_active(), 0);
}
END_TEST

START_TEST(test_rolling_back_a_journal_that_is_not_innermost_changes_nothing) {
  irm_journal *outer = open_journal();
  register_const("journal.order2.outer", 1, 0);
  irm_journal *inner = open_journal();
  register_const("journal.order2.inner", 2, 0);
  ck_assert_error(irm_journal_rollback(outer), IRM_ERUNTIME, "RuntimeError: ");
  ck_assert(global_exists("journal.order2.outer"));
  ck_assert(global_exists("journal.order2.inner"));
  ck_assert_uint_eq(irm_journal_size(outer), 1);
  ck_assert_uint_eq(irm_journal_size(inner), 1);
  ck_assert_ok(irm_journal_commit(inner));
  ck_assert_ok(irm_journal_commit(outer));
  ck_assert(global_exists("journal.order2.outer"));
  ck_assert(global_exists("journal.order2.inner"));
}
END_TEST

START_TEST(test_three_levels_nest_and_unwind_in_order) {
  irm_journal *a = open_journal();
  register_const("journal.l1", 1, 0);
  irm_journal *b = open_journal();
  register_const("journal.l2", 2, 0);
  irm_journal *c = open_journal();
  register_const("journal.l3", 3, 0);
  ck_assert_ok(irm_journal_commit(c));
  ck_assert_ok(irm_journal_rollback(b));
  ck_assert(global_exists("journal.l1"));
  ck_assert(!global_exists("journal.l2"));
  ck_assert(!global_exists("journal.l3"));
  ck_assert_uint_eq(irm_journal_size(a), 1);
  ck_assert_ok(irm_journal_commit(a));
  ck_assert_int_eq(irm_journal_active(), 0);
  ck_assert(global_exists("journal.l1"));
}
END_TEST

/* ---- types --------------------------------------------------------------- */

static int32_t register_type(const char *key, const char *parent) {
  irm_type_info info;
  int32_t index = -1;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = key;
  info.parent_key = parent;
  ck_assert_ok(irm_type_register(&info, &index));
  ck_assert_int_ge(index, IRM_TYPE_FIRST_DYNAMIC);
  return index;
}

START_TEST(test_rollback_unregisters_types_registered_inside) {
  int32_t found = -1;
  irm_journal *j = open_journal();
  register_type("journal.Thing", NULL);
  register_type("journal.SubThing", "journal.Thing");
  ck_assert_uint_eq(irm_journal_size(j), 2);
  ck_assert_ok(irm_type_find("journal.SubThing", &found));
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_error(irm_type_find("journal.Thing", &found), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("journal.Thing");
  ck_assert_error(irm_type_find("journal.SubThing", &found), IRM_EKEY, "KeyError: ");
  /* the key is free again */
  int32_t again = register_type("journal.Thing", NULL);
  ck_assert_ok(irm_type_find("journal.Thing", &found));
  ck_assert_int_eq(found, again);
}
END_TEST

START_TEST(test_commit_keeps_types_registered_inside) {
  int32_t found = -1;
  irm_journal *j = open_journal();
  int32_t index = register_type("journal.Kept", NULL);
  ck_assert_ok(irm_journal_commit(j));
  ck_assert_ok(irm_type_find("journal.Kept", &found));
  ck_assert_int_eq(found, index);
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(index, 8, &o));
  ck_assert(irm_object_is(o, "journal.Kept"));
  irm_object_release(o);
}
END_TEST

START_TEST(test_rollback_leaves_types_registered_before) {
  int32_t found = -1;
  int32_t before = register_type("journal.Before", NULL);
  irm_journal *j = open_journal();
  register_type("journal.After", "journal.Before");
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_ok(irm_type_find("journal.Before", &found));
  ck_assert_int_eq(found, before);
  ck_assert_ok(irm_type_find("ffi.Function", &found));
  ck_assert_int_eq(found, IRM_TYPE_FUNCTION);
}
END_TEST

START_TEST(test_rollback_takes_a_types_former_keys_with_it) {
  static const char *const former[] = {"journal.OldRenamed", "journal.OlderRenamed", NULL};
  irm_type_info info;
  int32_t index = -1, found = -1;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "journal.Renamed";
  info.former_keys = former;
  irm_journal *j = open_journal();
  ck_assert_ok(irm_type_register(&info, &index));
  /* a subtype named through its parent's former key goes too */
  register_type("journal.RenamedChild", "journal.OldRenamed");
  ck_assert_uint_eq(irm_journal_size(j), 2);
  ck_assert_ok(irm_type_find("journal.OlderRenamed", &found));
  ck_assert_int_eq(found, index);
  ck_assert_ok(irm_journal_rollback(j));
  const char *gone[] = {"journal.Renamed", "journal.OldRenamed", "journal.OlderRenamed", "journal.RenamedChild"};
  for (size_t i = 0; i < sizeof gone / sizeof *gone; i++) {
    ck_assert_error(irm_type_find(gone[i], &found), IRM_EKEY, "KeyError: ");
    ck_assert_error_mentions(gone[i]);
  }
  /* Every key is free again: the type registers afresh, under a new index. */
  int32_t again = -1;
  ck_assert_ok(irm_type_register(&info, &again));
  ck_assert_int_ne(again, index);
  ck_assert_ok(irm_type_find("journal.OlderRenamed", &found));
  ck_assert_int_eq(found, again);
  ck_assert_error(irm_type_register(&info, &found), IRM_EKEY, "KeyError: type 'journal.Renamed' is already registered");
}
END_TEST

/* ---- threads ------------------------------------------------------------- */

typedef struct other_thread {
  int active_seen;
  int status;
  int inner_status;
} other_thread;

static void *register_from_other_thread(void *arg) {
  other_thread *t = arg;
  irm_object *f = NULL;
  irm_journal *own = NULL;
  t->active_seen = irm_journal_active();
  t->status = irm_func_new_packed(pk_const, (void *)(intptr_t)7, NULL, &f);
  if (t->status == 0) t->status = irm_func_register_global("journal.other", f, 0);
  /* this thread's own journal sees only this thread's registrations */
  t->inner_status = irm_journal_open(&own);
  if (t->inner_status == 0) {
    if (f != NULL) irm_func_register_global("journal.other.rolled", f, 0);
    if (irm_journal_size(own) != 1) t->inner_status = -100;
    if (irm_journal_rollback(own) != 0) t->inner_status = -101;
  }
  irm_object_release(f);
  return NULL;
}

START_TEST(test_journal_records_only_the_thread_that_opened_it) {
  other_thread t = {0};
  pthread_t thread;
  irm_journal *j = open_journal();
  register_const("journal.mine", 1, 0);
  ck_assert_int_eq(pthread_create(&thread, NULL, register_from_other_thread, &t), 0);
  ck_assert_int_eq(pthread_join(thread, NULL), 0);
  ck_assert_int_eq(t.active_seen, 0);
  ck_assert_int_eq(t.status, 0);
  ck_assert_int_eq(t.inner_status, 0);
  ck_assert_uint_eq(irm_journal_size(j), 1);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert(!global_exists("journal.mine"));
  ck_assert(global_exists("journal.other"));
  ck_assert(!global_exists("journal.other.rolled"));
}
END_TEST

typedef struct overriding_thread {
  irm_object *f;
  int status;
} overriding_thread;

static void *override_from_other_thread(void *arg) {
  overriding_thread *t = arg;
  t->status = irm_func_register_global("journal.contested", t->f, 1);
  return NULL;
}

START_TEST(test_rollback_keeps_a_later_override_made_by_another_thread) {
  overriding_thread t = {new_const(2), -1};
  pthread_t thread;
  irm_journal *j = open_journal();
  register_const("journal.contested", 1, 0);
  ck_assert_int_eq(pthread_create(&thread, NULL, override_from_other_thread, &t), 0);
  ck_assert_int_eq(pthread_join(thread, NULL), 0);
  ck_assert_int_eq(t.status, 0);
  ck_assert_ok(irm_journal_rollback(j));
  /* the other thread's function is not this journal's to undo */
  irm_object *now = lookup("journal.contested");
  ck_assert_ptr_eq(now, t.f);
  irm_object_release(now);
  irm_object_release(t.f);
}
END_TEST

typedef struct foreign_close {
  irm_journal *j;
  int commit_status;
  int rollback_status;
  char commit_message[256];
} foreign_close;

static void *close_from_other_thread(void *arg) {
  foreign_close *c = arg;
  c->commit_status = irm_journal_commit(c->j);
  strncpy(c->commit_message, irm_last_error(), sizeof c->commit_message - 1);
  c->rollback_status = irm_journal_rollback(c->j);
  return NULL;
}

START_TEST(test_closing_a_journal_from_another_thread_is_runtime_error) {
  foreign_close c = {0};
  pthread_t thread;
  c.j = open_journal();
  register_const("journal.foreign", 1, 0);
  ck_assert_int_eq(pthread_create(&thread, NULL, close_from_other_thread, &c), 0);
  ck_assert_int_eq(pthread_join(thread, NULL), 0);
  ck_assert_int_eq(c.commit_status, IRM_ERUNTIME);
  ck_assert_msg(strncmp(c.commit_message, "RuntimeError: ", 14) == 0, "message '%s'", c.commit_message);
  ck_assert_int_eq(c.rollback_status, IRM_ERUNTIME);
  /* nothing changed: still open here, still holding its record */
  ck_assert_int_ne(irm_journal_active(), 0);
  ck_assert_uint_eq(irm_journal_size(c.j), 1);
  ck_assert(global_exists("journal.foreign"));
  ck_assert_ok(irm_journal_rollback(c.j));
  ck_assert(!global_exists("journal.foreign"));
}
END_TEST

/* ---- built-ins registered lazily inside a journal ------------------------ */

START_TEST(test_first_registry_use_inside_a_journal_does_not_record_builtins) {
  /* irm_journal_open is this process's first irm call */
  irm_journal *j = open_journal();
  register_const("journal.first", 1, 0);
  ck_assert_uint_eq(irm_journal_size(j), 1);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert(!global_exists("journal.first"));
  for (size_t i = 0; i < sizeof builtin_names / sizeof *builtin_names; i++)
    ck_assert_msg(global_exists(builtin_names[i]), "'%s' was rolled back", builtin_names[i]);
  irm_any ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.ListGlobalFuncNames", NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_uint_ge(irm_array_size(ret.v_obj), sizeof builtin_names / sizeof *builtin_names);
  irm_any_release(&ret);
}
END_TEST

START_TEST(test_first_lookup_inside_a_journal_does_not_record_builtins) {
  irm_journal *j = open_journal();
  ck_assert(global_exists("ffi.Map"));
  ck_assert_uint_eq(irm_journal_size(j), 0);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert(global_exists("ffi.Map"));
  ck_assert(global_exists("ffi.ArrayGetItem"));
}
END_TEST

START_TEST(test_first_type_use_inside_a_journal_keeps_builtin_types) {
  int32_t found = -1;
  irm_journal *j = open_journal();
  register_type("journal.FirstType", NULL);
  ck_assert_uint_eq(irm_journal_size(j), 1);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_ok(irm_type_find("ffi.String", &found));
  ck_assert_int_eq(found, IRM_TYPE_STRING);
  ck_assert_ok(irm_type_find("ffi.Map", &found));
  ck_assert_int_eq(found, IRM_TYPE_MAP);
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("still works", 11, &s));
  ck_assert_str_eq(irm_object_type_key(s), "ffi.String");
  irm_object_release(s);
  ck_assert(global_exists("ffi.Array"));
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *journal_suite(void) {
  Suite *s = suite_create("journal");

  TCase *tc = tcase_create("commit_rollback");
  tcase_add_test(tc, test_no_journal_is_active_before_one_is_opened);
  tcase_add_test(tc, test_open_makes_recording_active_until_commit);
  tcase_add_test(tc, test_open_with_null_out_fails_and_opens_nothing);
  tcase_add_test(tc, test_commit_keeps_registrations_made_inside);
  tcase_add_test(tc, test_rollback_removes_every_global_registered_inside);
  tcase_add_test(tc, test_rollback_of_an_override_brings_the_old_function_back);
  tcase_add_test(tc, test_rollback_of_overriding_a_name_with_its_own_function_balances);
  tcase_add_test(tc, test_rollback_restores_a_global_removed_inside);
  tcase_add_test(tc, test_rollback_leaves_registrations_made_before_the_journal);
  tcase_add_test(tc, test_rollback_undoes_many_changes_to_one_name_newest_first);
  tcase_add_test(tc, test_rollback_releases_functions_registered_only_inside);
  tcase_add_test(tc, test_rollback_releases_the_replacing_function_of_an_override);
  tcase_add_test(tc, test_holder_keeps_a_rolled_back_function_working);
  tcase_add_test(tc, test_size_counts_one_record_per_registration);
  tcase_add_test(tc, test_commit_or_rollback_of_null_fails);
  suite_add_tcase(s, tc);

  tc = tcase_create("nesting");
  tcase_add_test(tc, test_inner_commit_then_outer_rollback_undoes_both);
  tcase_add_test(tc, test_inner_commit_hands_its_records_to_the_outer_journal);
  tcase_add_test(tc, test_inner_rollback_undoes_only_the_inner_journal);
  tcase_add_test(tc, test_committing_a_journal_that_is_not_innermost_changes_nothing);
  tcase_add_test(tc, test_rolling_back_a_journal_that_is_not_innermost_changes_nothing);
  tcase_add_test(tc, test_three_levels_nest_and_unwind_in_order);
  suite_add_tcase(s, tc);

  tc = tcase_create("types");
  tcase_add_test(tc, test_rollback_unregisters_types_registered_inside);
  tcase_add_test(tc, test_commit_keeps_types_registered_inside);
  tcase_add_test(tc, test_rollback_leaves_types_registered_before);
  tcase_add_test(tc, test_rollback_takes_a_types_former_keys_with_it);
  suite_add_tcase(s, tc);

  tc = tcase_create("threads");
  tcase_add_test(tc, test_journal_records_only_the_thread_that_opened_it);
  tcase_add_test(tc, test_closing_a_journal_from_another_thread_is_runtime_error);
  tcase_add_test(tc, test_rollback_keeps_a_later_override_made_by_another_thread);
  tcase_set_timeout(tc, 20);
  suite_add_tcase(s, tc);

  tc = tcase_create("lazy_builtins");
  tcase_add_test(tc, test_first_registry_use_inside_a_journal_does_not_record_builtins);
  tcase_add_test(tc, test_first_lookup_inside_a_journal_does_not_record_builtins);
  tcase_add_test(tc, test_first_type_use_inside_a_journal_keeps_builtin_types);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* no irm call here: each forked test is the first user of irm */
  return run_suite(journal_suite());
}
