/* Custom journal records (journal.h): irm_journal_record, the order of
 * undo and dispose, and callbacks that call into the registry.
 *
 * main() makes no irm call, so every test (forked by Check) starts in a
 * process where irm has not been used yet. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

enum { max_records = 8 };

typedef struct record_log {
  int undo_order[max_records]; /* ids in the order undo ran */
  int undone;
  int disposed[max_records]; /* dispose calls per id */
  int undone_at_dispose[max_records];
  int undo_saw_global[max_records]; /* "journal.rec.mid" existed at undo */
} record_log;

typedef struct record {
  record_log *log;
  int id;
} record;

static int was_undone(const record_log *log, int id) {
  for (int i = 0; i < log->undone; i++)
    if (log->undo_order[i] == id) return 1;
  return 0;
}

static void record_undo(void *data) {
  record *r = data;
  r->log->undo_saw_global[r->id] = global_exists("journal.rec.mid");
  if (r->log->undone < max_records) r->log->undo_order[r->log->undone++] = r->id;
}

static void record_dispose(void *data) {
  record *r = data;
  r->log->disposed[r->id]++;
  r->log->undone_at_dispose[r->id] = was_undone(r->log, r->id);
}

START_TEST(test_record_without_open_journal_disposes_at_once) {
  record_log log = {0};
  record r = {&log, 0};
  ck_assert_ok(irm_journal_record(record_undo, record_dispose, &r));
  ck_assert_int_eq(log.disposed[0], 1);
  ck_assert_int_eq(log.undone, 0);
}
END_TEST

START_TEST(test_record_without_journal_and_without_dispose_is_fine) {
  record_log log = {0};
  record r = {&log, 0};
  ck_assert_ok(irm_journal_record(record_undo, NULL, &r));
  ck_assert_int_eq(log.undone, 0);
}
END_TEST

START_TEST(test_rollback_undoes_records_newest_first_and_disposes_each_once) {
  record_log log = {0};
  record r[3] = {{&log, 0}, {&log, 1}, {&log, 2}};
  irm_journal *j = open_journal();
  for (int i = 0; i < 3; i++) {
    ck_assert_ok(irm_journal_record(record_undo, record_dispose, &r[i]));
    ck_assert_uint_eq(irm_journal_size(j), (size_t)i + 1);
  }
  ck_assert_int_eq(log.disposed[0] + log.disposed[1] + log.disposed[2], 0);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(log.undone, 3);
  ck_assert_int_eq(log.undo_order[0], 2);
  ck_assert_int_eq(log.undo_order[1], 1);
  ck_assert_int_eq(log.undo_order[2], 0);
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(log.disposed[i], 1);
    ck_assert_msg(log.undone_at_dispose[i], "record %d disposed before undo", i);
  }
}
END_TEST

START_TEST(test_outermost_commit_disposes_each_record_once_without_undo) {
  record_log log = {0};
  record r[2] = {{&log, 0}, {&log, 1}};
  irm_journal *j = open_journal();
  ck_assert_ok(irm_journal_record(record_undo, record_dispose, &r[0]));
  ck_assert_ok(irm_journal_record(record_undo, record_dispose, &r[1]));
  ck_assert_ok(irm_journal_commit(j));
  ck_assert_int_eq(log.undone, 0);
  ck_assert_int_eq(log.disposed[0], 1);
  ck_assert_int_eq(log.disposed[1], 1);
}
END_TEST

START_TEST(test_inner_commit_keeps_records_until_the_outer_journal_ends) {
  record_log log = {0};
  record r[2] = {{&log, 0}, {&log, 1}};
  irm_journal *outer = open_journal();
  ck_assert_ok(irm_journal_record(record_undo, record_dispose, &r[0]));
  irm_journal *inner = open_journal();
  ck_assert_ok(irm_journal_record(record_undo, record_dispose, &r[1]));
  ck_assert_ok(irm_journal_commit(inner));
  ck_assert_int_eq(log.disposed[1], 0);
  ck_assert_int_eq(log.undone, 0);
  ck_assert_uint_eq(irm_journal_size(outer), 2);
  ck_assert_ok(irm_journal_rollback(outer));
  ck_assert_int_eq(log.undone, 2);
  ck_assert_int_eq(log.undo_order[0], 1);
  ck_assert_int_eq(log.undo_order[1], 0);
  ck_assert_int_eq(log.disposed[0], 1);
  ck_assert_int_eq(log.disposed[1], 1);
}
END_TEST

START_TEST(test_inner_rollback_undoes_and_disposes_only_inner_records) {
  record_log log = {0};
  record r[2] = {{&log, 0}, {&log, 1}};
  irm_journal *outer = open_journal();
  ck_assert_ok(irm_journal_record(record_undo, record_dispose, &r[0]));
  irm_journal *inner = open_journal();
  ck_assert_ok(irm_journal_record(record_undo, record_dispose, &r[1]));
  ck_assert_ok(irm_journal_rollback(inner));
  ck_assert_int_eq(log.undone, 1);
  ck_assert_int_eq(log.undo_order[0], 1);
  ck_assert_int_eq(log.disposed[1], 1);
  ck_assert_int_eq(log.disposed[0], 0);
  ck_assert_ok(irm_journal_commit(outer));
  ck_assert_int_eq(log.undone, 1);
  ck_assert_int_eq(log.disposed[0], 1);
}
END_TEST

START_TEST(test_records_and_registrations_undo_in_one_newest_first_order) {
  /* record 0, register journal.rec.mid, record 1: undo of 1 still sees the
   * global, undo of 0 runs after it is gone. */
  record_log log = {0};
  record r[2] = {{&log, 0}, {&log, 1}};
  irm_journal *j = open_journal();
  ck_assert_ok(irm_journal_record(record_undo, record_dispose, &r[0]));
  register_const("journal.rec.mid", 1, 0);
  ck_assert_ok(irm_journal_record(record_undo, record_dispose, &r[1]));
  ck_assert_uint_eq(irm_journal_size(j), 3);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(log.undone, 2);
  ck_assert_int_eq(log.undo_order[0], 1);
  ck_assert_int_eq(log.undo_order[1], 0);
  ck_assert_int_eq(log.undo_saw_global[1], 1);
  ck_assert_int_eq(log.undo_saw_global[0], 0);
}
END_TEST

/* An undo and a dispose that look globals up: no irm lock may be held while
 * they run (docs/architecture.md: no user code runs while irm holds a lock). */
typedef struct reading_callbacks {
  int undo_ran;
  int undo_saw_builtin;
  int undo_saw_neighbour;
  int dispose_ran;
  int dispose_saw_builtin;
} reading_callbacks;

static void undo_reads_registry(void *data) {
  reading_callbacks *c = data;
  irm_object *names = NULL;
  c->undo_ran++;
  c->undo_saw_builtin = global_exists("ffi.Array");
  c->undo_saw_neighbour = global_exists("journal.undo.neighbour");
  if (irm_func_list_globals(&names) != 0) c->undo_saw_builtin = 0;
  irm_object_release(names);
}

static void dispose_reads_registry(void *data) {
  reading_callbacks *c = data;
  c->dispose_ran++;
  c->dispose_saw_builtin = global_exists("ffi.Map");
}

START_TEST(test_undo_and_dispose_may_call_into_the_registry) {
  reading_callbacks c = {0};
  irm_journal *j = open_journal();
  register_const("journal.undo.neighbour", 1, 0);
  ck_assert_ok(irm_journal_record(undo_reads_registry, dispose_reads_registry, &c));
  register_const("journal.undo.later", 2, 0);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(c.undo_ran, 1);
  ck_assert(c.undo_saw_builtin);
  /* newest first: the neighbour registered before the record still exists */
  ck_assert(c.undo_saw_neighbour);
  ck_assert_int_eq(c.dispose_ran, 1);
  ck_assert(c.dispose_saw_builtin);
  ck_assert(!global_exists("journal.undo.neighbour"));
  ck_assert(!global_exists("journal.undo.later"));
  ck_assert_int_eq(irm_journal_active(), 0);
}
END_TEST

START_TEST(test_dispose_on_commit_may_call_into_the_registry) {
  reading_callbacks c = {0};
  irm_journal *j = open_journal();
  ck_assert_ok(irm_journal_record(undo_reads_registry, dispose_reads_registry, &c));
  ck_assert_ok(irm_journal_commit(j));
  ck_assert_int_eq(c.undo_ran, 0);
  ck_assert_int_eq(c.dispose_ran, 1);
  ck_assert(c.dispose_saw_builtin);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *journal_records_suite(void) {
  Suite *s = suite_create("journal_records");

  TCase *tc = tcase_create("records");
  tcase_add_test(tc, test_record_without_open_journal_disposes_at_once);
  tcase_add_test(tc, test_record_without_journal_and_without_dispose_is_fine);
  tcase_add_test(tc, test_rollback_undoes_records_newest_first_and_disposes_each_once);
  tcase_add_test(tc, test_outermost_commit_disposes_each_record_once_without_undo);
  tcase_add_test(tc, test_inner_commit_keeps_records_until_the_outer_journal_ends);
  tcase_add_test(tc, test_inner_rollback_undoes_and_disposes_only_inner_records);
  tcase_add_test(tc, test_records_and_registrations_undo_in_one_newest_first_order);
  tcase_add_test(tc, test_undo_and_dispose_may_call_into_the_registry);
  tcase_add_test(tc, test_dispose_on_commit_may_call_into_the_registry);
  tcase_set_timeout(tc, 20);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* no irm call here: each forked test is the first user of irm */
  return run_suite(journal_records_suite());
}
