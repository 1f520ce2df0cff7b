/* irm_func_to_native: a libffi closure that makes any function object
 * callable as a typed C function pointer. The handle (an ffi.NativeClosure
 * object) owns the closure, the function, and the str/obj results it hands
 * out, one per calling thread, until that thread's next call. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "builtin_types.h"
#include "error_internal.h"
#include "irm/error.h"
#include "native_internal.h"
#include "object_internal.h"
#include "uthash_irm.h"

/* The result a thread last received, kept alive for it. */
typedef struct result_slot {
  UT_hash_handle hh;
  uint64_t thread;
  irm_object *value;
} result_slot;

typedef struct closure_payload {
  irm_object *func;
  irm_native_sig sig;
  ffi_cif cif;
  ffi_type *types[IRM_NATIVE_MAX_ARGS];
  ffi_closure *closure;
  irm_native_fn direct; /* set when func is a native function of this very
                           integer-class signature: called without irm_any */
  pthread_mutex_t lock; /* guards slots */
  result_slot *slots;
} closure_payload;

static _Atomic uint64_t next_thread_id = 1;
static _Thread_local uint64_t this_thread_id;

static uint64_t thread_id(void) {
  if (!this_thread_id) this_thread_id = atomic_fetch_add(&next_thread_id, 1);
  return this_thread_id;
}

static closure_payload *payload_of(irm_object *handle) { return irm_object_payload(handle); }

void irm_closure_finalize_(irm_object *self) {
  closure_payload *c = payload_of(self);
  if (c->closure) ffi_closure_free(c->closure);
  result_slot *s, *tmp;
  HASH_ITER(hh, c->slots, s, tmp) {
    HASH_DEL(c->slots, s);
    irm_object_release(s->value);
    irm_free(s);
  }
  pthread_mutex_destroy(&c->lock);
  irm_object_release(c->func);
}

/* Keeps value (a new reference) as this thread's result; releases the
 * previous one. 0, or MemoryError (value released). */
static int keep_result(closure_payload *c, irm_object *value) {
  uint64_t me = thread_id();
  irm_object *old = NULL;
  int irm_hash_oom = 0;
  pthread_mutex_lock(&c->lock);
  result_slot *s = NULL;
  HASH_FIND(hh, c->slots, &me, sizeof me, s);
  if (!s && (s = irm_calloc(1, sizeof *s)) != NULL) {
    s->thread = me;
    HASH_ADD(hh, c->slots, thread, sizeof s->thread, s);
    if (irm_hash_oom) {
      irm_free(s);
      s = NULL;
    }
  }
  if (s) {
    old = s->value;
    s->value = value;
  }
  pthread_mutex_unlock(&c->lock);
  irm_object_release(old); /* outside the lock: a finalizer is user code */
  if (!s) {
    irm_object_release(value);
    return irm_error_nomem_("keeping a native closure's result");
  }
  return IRM_OK;
}

/* Writes v as the C return value (small integers widened as libffi wants). */
static void store_return(irm_ntype t, const irm_cvalue *v, void *ret) {
  switch (t) {
  case IRM_NT_VOID: break;
  case IRM_NT_BOOL: *(ffi_arg *)ret = v->b; break;
  case IRM_NT_I32: *(ffi_sarg *)ret = v->i32; break;
  case IRM_NT_F32: *(float *)ret = v->f32; break;
  case IRM_NT_F64: *(double *)ret = v->f64; break;
  default: *(uint64_t *)ret = v->u64; break; /* i64, u64, pointers */
  }
}

/* Reads C argument i (libffi hands a pointer to each). */
static irm_cvalue load_arg(irm_ntype t, void *arg) {
  irm_cvalue v;
  v.u64 = 0;
  switch (t) {
  case IRM_NT_BOOL: v.b = *(uint8_t *)arg; break;
  case IRM_NT_I32: v.i32 = *(int32_t *)arg; break;
  case IRM_NT_F32: v.f32 = *(float *)arg; break;
  case IRM_NT_F64: v.f64 = *(double *)arg; break;
  default: memcpy(&v.u64, arg, sizeof v.u64); break;
  }
  return v;
}

static void closure_entry(ffi_cif *cif, void *ret, void **args, void *user) {
  (void)cif;
  closure_payload *c = user;
  irm_any in[IRM_NATIVE_MAX_ARGS];
  for (int32_t i = 0; i < c->sig.nargs; i++) {
    irm_cvalue v = load_arg(c->sig.args[i], args[i]);
    irm_c_to_any_(c->sig.args[i], &v, 0, &in[i]); /* borrowed: cannot fail */
  }
  irm_cvalue zero, out;
  memset(&zero, 0, sizeof zero);
  irm_any result;
  if (irm_func_call(c->func, in, c->sig.nargs, &result) != IRM_OK) {
    store_return(c->sig.ret, &zero, ret);
    return;
  }
  if (c->sig.ret == IRM_NT_VOID) {
    irm_any_release(&result);
    return;
  }
  if (c->sig.ret == IRM_NT_STR && result.type_code == IRM_NONE) {
    store_return(c->sig.ret, &zero, ret); /* mirrors a NULL str result giving NONE */
    return;
  }
  if (irm_any_to_c_(c->sig.ret, &result, &out) != IRM_OK) {
    irm_error_context(irm_error_code_of(irm_last_error()), "result of function '%s' called as %s",
                      irm_func_name(c->func), c->sig.text);
    irm_any_release(&result);
    store_return(c->sig.ret, &zero, ret);
    return;
  }
  /* A str or obj result must outlive this call: the handle keeps it. */
  if (result.type_code == IRM_OBJECT && keep_result(c, result.v_obj) != IRM_OK) {
    store_return(c->sig.ret, &zero, ret);
    return;
  }
  store_return(c->sig.ret, &out, ret);
}

/* The entry for a native function of the same integer-class signature:
 * the arguments already have the right C types, so only obj arguments
 * need their non-NULL check, and an obj result its keeper. */
static void closure_entry_direct(ffi_cif *cif, void *ret, void **args, void *user) {
  (void)cif;
  closure_payload *c = user;
  uint64_t a[4];
  for (int32_t i = 0; i < c->sig.nargs; i++) {
    memcpy(&a[i], args[i], sizeof a[i]);
    if (__builtin_expect(c->sig.args[i] == IRM_NT_OBJ && a[i] == 0, 0)) {
      irm_error(IRM_ETYPE, "function '%s' (%s): argument %d: expected obj, got none", irm_func_name(c->func),
                c->sig.text, (int)i + 1);
      *(uint64_t *)ret = 0;
      return;
    }
  }
  uint64_t r = irm_native_call_int_(c->direct, c->sig.nargs, a);
  if (c->sig.ret == IRM_NT_OBJ && r && keep_result(c, (irm_object *)(uintptr_t)r) != IRM_OK) r = 0;
  if (c->sig.ret != IRM_NT_VOID) *(uint64_t *)ret = r;
}

/* Picks the entry: direct for a native function of the same integer-class
 * signature, the general irm_func_call path otherwise. */
static void (*choose_entry(closure_payload *c))(ffi_cif *, void *, void **, void *) {
  irm_native_fn fp;
  const irm_native_sig *target;
  if (irm_native_target_(c->func, &fp, &target) && strcmp(target->text, c->sig.text) == 0 &&
      irm_native_sig_is_int_class_(&c->sig)) {
    c->direct = fp;
    return closure_entry_direct;
  }
  return closure_entry;
}

int irm_func_to_native(irm_object *func, const char *signature, irm_native_fn *out_fn, irm_object **out_handle) {
  if (!out_fn || !out_handle)
    return irm_error(IRM_EVALUE, "irm_func_to_native: out_fn and out_handle must not be NULL");
  *out_fn = NULL;
  *out_handle = NULL;
  if (!irm_is_type_(func, IRM_TYPE_FUNCTION))
    return irm_error(IRM_ETYPE, "irm_func_to_native: expected ffi.Function, got %s",
                     func ? irm_object_type_key(func) : "NULL");
  irm_object *handle = NULL;
  int rc = irm_object_new(IRM_TYPE_NATIVE_CLOSURE, sizeof(closure_payload), &handle);
  if (rc) return rc;
  closure_payload *c = payload_of(handle);
  pthread_mutex_init(&c->lock, NULL);
  irm_object_retain(func);
  c->func = func;
  void *code = NULL;
  if ((rc = irm_native_sig_parse_(signature, &c->sig)) == IRM_OK &&
      (rc = irm_native_prep_cif_(&c->sig, &c->cif, c->types)) == IRM_OK) {
    c->closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    if (!c->closure) rc = irm_error(IRM_ERUNTIME, "libffi could not allocate a closure for '%s'", c->sig.text);
    else if (ffi_prep_closure_loc(c->closure, &c->cif, choose_entry(c), c, code) != FFI_OK)
      rc = irm_error(IRM_ERUNTIME, "libffi could not prepare a closure for '%s'", c->sig.text);
  }
  if (rc) {
    irm_object_release(handle);
    return rc;
  }
  /* libffi hands out the code address as a data pointer; the cast through
   * uintptr_t is how POSIX systems turn it into a function pointer. */
  *out_fn = (irm_native_fn)(uintptr_t)code;
  *out_handle = handle;
  return IRM_OK;
}
