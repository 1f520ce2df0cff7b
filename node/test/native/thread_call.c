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
int irm_node_test_call_in_thread(const char *name, int64_t arg, int64_t *out, char *error, size_t error_size);
int irm_node_test_register(void);

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
int irm_node_test_call_in_thread(const char *name, int64_t arg, int64_t *out, char *error, size_t error_size) {
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

/* The global test.node.call_in_thread(name, arg): calls name(arg) from a new
 * thread and joins it, all inside one call into irm, so that Node's main
 * thread is blocked in libirm meanwhile; the thread's result or error is
 * the global's. */
static int call_in_thread_global(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  if (nargs != 2 || args[0].type_code != IRM_STR || args[1].type_code != IRM_INT) {
    irm_set_last_error("TypeError: test.node.call_in_thread(name: str, arg: int)");
    return IRM_ETYPE;
  }
  call *c = irm_node_test_thread_start(args[0].v_str, args[1].v_int);
  if (!c) return IRM_ENOMEM;
  int64_t result = 0;
  int rc = irm_node_test_thread_join(c, &result);
  if (rc == 0) *ret = (irm_any){.type_code = IRM_INT, .v_int = result};
  return rc;
}

static void *remove_global(void *name) { return irm_func_remove_global(name) == 0 ? name : NULL; }

/* The global test.node.remove_in_thread(name): removes the global name
 * from a new thread and joins it (true when it was removed), so that the
 * function dies on that thread while Node's main thread waits in irm. */
static int remove_in_thread_global(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  if (nargs != 1 || args[0].type_code != IRM_STR) {
    irm_set_last_error("TypeError: test.node.remove_in_thread(name: str)");
    return IRM_ETYPE;
  }
  pthread_t t;
  void *removed = NULL;
  if (pthread_create(&t, NULL, remove_global, (void *)args[0].v_str) != 0) return IRM_ENOMEM;
  pthread_join(t, &removed);
  *ret = (irm_any){.type_code = IRM_BOOL, .v_int = removed != NULL};
  return 0;
}

static int register_packed(const char *name, irm_packed_cfunc fn) {
  irm_object *f = NULL;
  int rc = irm_func_new_packed(fn, NULL, NULL, &f);
  if (rc) return rc;
  rc = irm_func_register_global(name, f, 1);
  irm_object_release(f);
  return rc;
}

/* Registers test.node.call_in_thread and test.node.remove_in_thread
 * (again: override). */
int irm_node_test_register(void) {
  int rc = register_packed("test.node.call_in_thread", call_in_thread_global);
  return rc ? rc : register_packed("test.node.remove_in_thread", remove_in_thread_global);
}
