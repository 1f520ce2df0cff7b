/* Function objects (packed calling convention) and irm_func_call. */
#include <stddef.h>

#include "builtin_types.h"
#include "error_internal.h"
#include "global_internal.h"
#include "irm/error.h"
#include "native_internal.h"
#include "object_internal.h"

void irm_function_finalize_(irm_object *self) {
  irm_function *f = (irm_function *)self;
  if (f->finalizer) f->finalizer(f->resource);
  irm_object_release(atomic_load_explicit(&f->name, memory_order_acquire));
}

int irm_func_new_packed(irm_packed_cfunc fn, void *resource, void (*finalizer)(void *), irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_func_new_packed: out must not be NULL");
  *out = NULL;
  if (!fn) return irm_error(IRM_EVALUE, "irm_func_new_packed: fn must not be NULL");
  irm_object *o = NULL;
  int rc = irm_object_alloc_(IRM_TYPE_FUNCTION, sizeof(irm_function), &o);
  if (rc) return rc;
  irm_function *f = (irm_function *)o;
  f->fn = fn;
  f->resource = resource;
  f->finalizer = finalizer;
  atomic_init(&f->name, NULL);
  *out = o;
  return IRM_OK;
}

const char *irm_func_name(const irm_object *f) {
  if (!irm_is_type_(f, IRM_TYPE_FUNCTION)) return "<anonymous>";
  irm_object *name = atomic_load_explicit(&((irm_function *)f)->name, memory_order_acquire);
  return name ? irm_string_data(name) : "<anonymous>";
}

int irm_func_packed_parts_(const irm_object *f, irm_packed_cfunc *fn, void **resource) {
  if (!irm_is_type_(f, IRM_TYPE_FUNCTION)) return 0;
  *fn = ((const irm_function *)f)->fn;
  *resource = ((const irm_function *)f)->resource;
  return 1;
}

/* Gives f its first global name; later names leave it as it was. The name
 * is a label for messages, so a benign one-time publication suffices. */
void irm_func_set_name_(irm_object *f, irm_object *name) {
  irm_function *fn = (irm_function *)f;
  irm_object *expected = NULL;
  irm_object_retain(name);
  if (!atomic_compare_exchange_strong_explicit(&fn->name, &expected, name, memory_order_acq_rel, memory_order_acquire))
    irm_object_release(name);
}

_Static_assert(offsetof(irm_function, fn) == offsetof(irm_function_head_, fn_) &&
                   offsetof(irm_function, resource) == offsetof(irm_function_head_, resource_) &&
                   offsetof(irm_object, type_index) == offsetof(irm_function_head_, type_index_),
               "irm_function_head_ in function.h must match irm_function");

int irm_func_call_failed_(irm_object *f, unsigned generation_before, irm_any *ret) {
  irm_any_release(ret); /* a failing callee's partial result is dropped */
  if (irm_error_generation_ == generation_before)
    return irm_error(IRM_ERUNTIME, "function '%s' failed", irm_error_quote(irm_func_name(f)));
  return irm_error_code_of(irm_last_error());
}

/* Why irm_func_call refused its arguments; out of line and cold, to keep
 * the call path short. */
__attribute__((noinline, cold)) static int call_refused(irm_object *f, const irm_any *args, int32_t nargs,
                                                        irm_any *ret) {
  if (ret) *ret = irm_any_none();
  if (!irm_is_type_(f, IRM_TYPE_FUNCTION))
    return irm_error(IRM_ETYPE, "irm_func_call: expected ffi.Function, got %s", f ? irm_object_type_key(f) : "NULL");
  (void)args;
  (void)nargs;
  return irm_error(IRM_EVALUE, "irm_func_call: %s", !ret ? "ret must not be NULL" : "args must hold nargs >= 0 values");
}

/* The entry point of every other language (ctypes calls this symbol; C
 * callers get the inline path of function.h, which behaves the same). The
 * fast path checks the arguments in three predictable branches (the cold
 * call_refused reports a refusal), then calls. A native function's thunk
 * converts, checks and reports its own errors and writes *ret only on
 * success, so it needs nothing after the call and is tail-called. A packed
 * function takes the inline path's code: it must look at the callee's
 * status afterwards (drop a partial result, name the function when the
 * callee set no message, return the message's kind), so it keeps a frame
 * and snapshots the error generation; docs/architecture.md ("The exported
 * call path") gives what each part costs. Starting the function on a cache
 * line keeps its hot path in two lines of the decoded-instruction cache,
 * which saved about a cycle per call (2.2x -> 2.0x a direct call from an
 * executable). */
#if defined(__GNUC__)
__attribute__((aligned(64)))
#endif
int(irm_func_call)(irm_object *f, const irm_any *args, int32_t nargs, irm_any *ret) {
  if (__builtin_expect(!irm_func_call_ok_(f, args, nargs, ret), 0)) return call_refused(f, args, nargs, ret);
  const irm_function *fn = (const irm_function *)f;
  if (fn->finalizer == irm_native_free_) {
    ret->type_code = IRM_NONE;
    ret->v_int = 0;
    return fn->fn(args, nargs, ret, fn->resource);
  }
  return irm_func_call_unchecked_(f, args, nargs, ret);
}
