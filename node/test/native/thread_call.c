/* Test-only helper of the Node.js package's tests (node/test): calls a
 * global function from a new pthread, so that the tests can check what a
 * JavaScript callback does when C calls it from a thread that is not
 * Node's main thread. Built by tests/CMakeLists.txt, never installed. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "irm/c_api.h"
#include "irm/function.h"

void *irm_node_test_thread_start(const char *name, int64_t arg);
int irm_node_test_thread_done(void *p);
int irm_node_test_thread_join(void *p, int64_t *out);
int irm_node_test_call_in_thread(const char *name, int64_t arg, int64_t *out, char *error,
                                 size_t error_size);

typedef struct call {
  pthread_t thread;
  char *name;
  int64_t arg;
  int64_t result;
  int rc;
  char error[512];
  volatile int done;
} call;

static void *run(void *p) {
  call *c = p;
  irm_any arg = {.type_code = IRM_INT, .v_int = c->arg};
  irm_any ret = {.type_code = IRM_NONE};
  c->rc = irm_func_call_global(c->name, &arg, 1, &ret);
  if (c->rc != 0) {
    strncpy(c->error, irm_last_error(), sizeof c->error - 1);
  } else if (ret.type_code == IRM_INT) {
    c->result = ret.v_int;
  } else {
    c->rc = IRM_ETYPE;
    strcpy(c->error, "TypeError: thread_call: the global did not return an int");
  }
  irm_any_release(&ret);
  __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* Starts a thread calling name(arg); NULL when it cannot. */
void *irm_node_test_thread_start(const char *name, int64_t arg) {
  call *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->name = strdup(name);
  c->arg = arg;
  if (!c->name || pthread_create(&c->thread, NULL, run, c) != 0) {
    free(c->name);
    free(c);
    return NULL;
  }
  return c;
}

/* 1 once the thread's call has returned, else 0. Never blocks. */
int irm_node_test_thread_done(void *p) { return __atomic_load_n(&((call *)p)->done, __ATOMIC_ACQUIRE); }

/* Joins the thread and frees it: its call's status, *out its int result;
 * on failure the calling thread's irm error is the call's. */
int irm_node_test_thread_join(void *p, int64_t *out) {
  call *c = p;
  pthread_join(c->thread, NULL);
  int rc = c->rc;
  if (rc == 0) *out = c->result;
  else irm_set_last_error(c->error);
  free(c->name);
  free(c);
  return rc;
}

/* start + join in one call: blocks the calling thread until the new thread
 * returns (from JavaScript, only through koffi's .async, so that Node's
 * main thread stays free to run the callback). */
int irm_node_test_call_in_thread(const char *name, int64_t arg, int64_t *out, char *error,
                                 size_t error_size) {
  call *c = irm_node_test_thread_start(name, arg);
  if (!c) return IRM_ENOMEM;
  pthread_join(c->thread, NULL);
  int rc = c->rc;
  if (rc == 0) *out = c->result;
  else if (error_size) {
    strncpy(error, c->error, error_size - 1);
    error[error_size - 1] = 0;
  }
  free(c->name);
  free(c);
  return rc;
}
