/* The out-of-memory sweep of the alloc suites (registry/check_alloc_sweep.c,
 * ir/config/check_config_alloc.c, ir/check_module_alloc.c,
 * passes/check_pass_alloc.c, passes/dataflow/check_pass_dataflow_alloc.c):
 * an operation (optional prepare, the run, an optional after) is warmed up
 * twice, then run with N = 1, 2, 3, ... (allocation N fails, then: every
 * allocation after N fails) until it succeeds without meeting the failure;
 * each time irm must have succeeded or reported MemoryError, leaked
 * nothing, left the registry of globals as it was and freed no block it did
 * not allocate. N is sampled past the first few (see check_alloc_util.h).
 *
 * Each suite's main() installs the counting allocator of check_alloc_util.h
 * before any other irm call. Static inline only. */
#ifndef IRM_TESTS_CHECK_ALLOC_SWEEP_UTIL_H
#define IRM_TESTS_CHECK_ALLOC_SWEEP_UTIL_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_alloc_util.h"

enum { ir_sweep_cap = 20000 };

typedef struct operation {
  const char *what;
  /* Runs with failures off before each run (may be NULL): makes the
   * run's inputs (a sole-owner module, an entered context). */
  void (*prepare)(void *ctx);
  /* Runs with failures armed; releases everything it made except what
   * `after` undoes. Returns 0 or the first failing status. */
  int (*run)(void *ctx);
  /* Runs with failures off: checks the state the run left behind (rc is
   * its status) and releases what the run or prepare kept. May be NULL. */
  void (*after)(void *ctx, int rc);
  void *ctx;
  /* The operation may need no memory at all (replacing an object in place,
   * reading a value); the sweep then checks only that. */
  int may_not_allocate;
  /* A success keeps memory for the life of the process (a type): the
   * live-block check then applies to failures only. */
  int permanent_on_success;
} operation;

/* Every global name joined by '\n', in plain malloc memory. */
static inline char *global_names(void) {
  irm_object *names = NULL;
  int rc = irm_func_list_globals(&names);
  ck_require(rc == 0, "irm_func_list_globals: %s", irm_last_error());
  size_t total = 1;
  for (size_t i = 0; i < irm_array_size(names); i++) total += irm_string_size(irm_array_at(names, i)->v_obj) + 1;
  char *joined = malloc(total), *p = joined;
  ck_require(joined != NULL, "out of memory in the test");
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

static inline void run_once_without_failures(const operation *op) {
  if (op->prepare != NULL) op->prepare(op->ctx);
  int rc = op->run(op->ctx);
  ck_assert_msg(rc == 0, "%s without failures: %d (%s)", op->what, rc, irm_last_error());
  if (op->after != NULL) op->after(op->ctx, 0);
}

static inline void sweep_mode(const operation *op, fail_mode mode) {
  const char *mode_name = mode == fail_nth ? "fail allocation N" : "fail all after N";
  char *names_before = global_names();
  uint64_t salt = sweep_salt(op->what, mode);
  long n = mode == fail_nth ? 1 : 0;
  long failures_met = 0, tried = 0;
  for (;; n = sweep_next(n, salt), tried++) {
    char message[512];
    ck_require(n < ir_sweep_cap, "%s (%s): still meeting failures at N=%ld", op->what, mode_name, n);
    settle_error();
    long live_before = atomic_load(&live_blocks);
    if (op->prepare != NULL) op->prepare(op->ctx);
    settle_error();
    long injected_before = atomic_load(&injected);

    if (mode == fail_nth) fail_nth_from_now(n);
    else fail_all_after(n);
    int rc = op->run(op->ctx);
    stop_failing();
    int hit = atomic_load(&injected) != injected_before;
    snprintf(message, sizeof message, "%s", irm_last_error());

    if (rc != 0) {
      ck_require(rc == IRM_ENOMEM, "%s (%s, N=%ld): status %d, message '%s'", op->what, mode_name, n, rc, message);
      ck_require(strncmp(message, "MemoryError: ", 13) == 0, "%s (%s, N=%ld): message '%s' is not a MemoryError",
                 op->what, mode_name, n, message);
      ck_require(hit, "%s (%s, N=%ld): failed although no allocation failed: %s", op->what, mode_name, n, message);
    }
    if (op->after != NULL) op->after(op->ctx, rc);

    char *names_after = global_names();
    ck_require(strcmp(names_before, names_after) == 0, "%s (%s, N=%ld, status %d): global names changed", op->what,
               mode_name, n, rc);
    free(names_after);
    settle_error();
    long live_after = atomic_load(&live_blocks);
    ck_require(live_after == live_before || (rc == 0 && op->permanent_on_success),
               "%s (%s, N=%ld, status %d '%s'): %ld blocks live before, %ld after", op->what, mode_name, n, rc, message,
               live_before, live_after);
    ck_require(atomic_load(&foreign_frees) == 0, "%s (%s, N=%ld): a block irm did not allocate was freed", op->what,
               mode_name, n);
    failures_met += hit;
    if (rc == 0 && !hit) break;
  }
  ck_assert_msg(failures_met > 0 || op->may_not_allocate, "%s (%s): never allocated, nothing was tested", op->what,
                mode_name);
  free(names_before);
  sweep_note(op->what, mode_name, n, tried + 1, failures_met);
}

/* Warms irm and the operation up, then sweeps both failure modes. */
static inline void sweep(const operation *op) {
  char *warm = global_names();
  free(warm);
  settle_error();
  run_once_without_failures(op);
  run_once_without_failures(op);
  sweep_mode(op, fail_nth);
  sweep_mode(op, fail_after);
}

#endif /* IRM_TESTS_CHECK_ALLOC_SWEEP_UTIL_H */
