/* Function objects and the global function registry.
 *
 * irm_func_new_packed, irm_func_call and the irm_func_*_global functions
 * are declared in c_api.h; this header adds what C code needs beyond them.
 *
 * Thread safety: the registry is safe for concurrent lookup, call,
 * registration and removal. Lookups take a shared lock that prefers
 * writers; no user code (function bodies, finalizers) runs while irm holds
 * a registry lock.
 */
#ifndef IRM_FUNCTION_H
#define IRM_FUNCTION_H

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The name a function was first registered under, or "<anonymous>".
 * Borrowed from f (or static). Used in error messages. */
IRM_API const char *irm_func_name(const irm_object *f);

/* The names of every global function, sorted, as a NEW Array of Strings. */
IRM_API int irm_func_list_globals(irm_object **out);

/* Looks up name and calls it: irm_func_get_global + irm_func_call, with a
 * KeyError (and the closest registered name) when name is absent. */
IRM_API int irm_func_call_global(const char *name, const irm_any *args,
                                 int32_t nargs, irm_any *ret);

/* ---- argument helpers for packed functions ----------------------------
 * Each reports errors that name the function and the argument, e.g.
 * "TypeError: ffi.ArraySize: argument 0: expected ffi.Array, got int".
 * Results are borrowed from args. */

/* TypeError unless min <= nargs <= max ("ffi.MapGetItem takes 2
 * arguments, got 1"). max < 0 means no upper bound. */
IRM_API int irm_arg_count(const char *fn, int32_t nargs, int32_t min, int32_t max);

/* Nonzero when argument i was given and is not NONE (optional arguments). */
IRM_API int irm_arg_present(const irm_any *args, int32_t nargs, int32_t i);

/* Typed reads of argument i, as the irm_any_to_* readers in object.h. */
IRM_API int irm_arg_object(const char *fn, const irm_any *args, int32_t i,
                           const char *type_key, irm_object **out);
IRM_API int irm_arg_int(const char *fn, const irm_any *args, int32_t i, int64_t *out);
IRM_API int irm_arg_bool(const char *fn, const irm_any *args, int32_t i, bool *out);
IRM_API int irm_arg_float(const char *fn, const irm_any *args, int32_t i, double *out);
IRM_API int irm_arg_str(const char *fn, const irm_any *args, int32_t i,
                        const char **out, size_t *len);

/* Used by the registration macros below: registers fn as a packed global
 * (no override). A failure is reported through the warning handler, since
 * a constructor has no caller to return it to. Returns the status. */
IRM_API int irm_register_static_packed(const char *name, irm_packed_cfunc fn);

/* ---- inline fast path of irm_func_call --------------------------------
 * C callers that include this header call functions without a call into
 * libirm: the check and the indirect call happen inline, and only a failure
 * (or a bad argument) goes out of line. This is what makes a packed call
 * cost little more than a plain indirect call, as TVM's inline
 * PackedFunc::operator() does in C++. Other languages use the exported
 * irm_func_call of c_api.h, which behaves identically. Define
 * IRM_NO_INLINE_CALL before including to always call out of line.
 *
 * The layout below is the head of every Function object; it is part of
 * libirm's ABI (changing it changes the SONAME). Do not use it directly. */
typedef struct irm_function_head_ {
  uint32_t refcount_;
  int32_t type_index_;
  void *reserved_;
  irm_packed_cfunc fn_;
  void *resource_;
} irm_function_head_;

/* Bumped each time the calling thread's last error is set. */
extern IRM_API _Thread_local unsigned irm_error_generation_;

/* The slow half of a failed call: drops a partial result and makes sure a
 * message is set ("RuntimeError: function '<name>' failed"). */
IRM_API int irm_func_call_failed_(irm_object *f, unsigned generation_before, irm_any *ret);

static inline int irm_func_call_inline_(irm_object *f, const irm_any *args, int32_t nargs,
                                        irm_any *ret) {
  const irm_function_head_ *h = (const irm_function_head_ *)(const void *)f;
  if (__builtin_expect(f && h->type_index_ == IRM_TYPE_FUNCTION && ret && nargs >= 0 &&
                           (args || nargs == 0), 1)) {
    ret->type_code = IRM_NONE;
    ret->v_int = 0;
    unsigned generation = irm_error_generation_;
    if (__builtin_expect(h->fn_(args, nargs, ret, h->resource_) == 0, 1)) return IRM_OK;
    return irm_func_call_failed_(f, generation, ret);
  }
  return (irm_func_call)(f, args, nargs, ret); /* reports the bad argument */
}

#if !defined(IRM_NO_INLINE_CALL)
#define irm_func_call(f, args, nargs, ret) irm_func_call_inline_((f), (args), (nargs), (ret))
#endif

#define IRM_CAT2_(a, b) a##b
#define IRM_CAT_(a, b) IRM_CAT2_(a, b)

/* Registers a packed C function as a global when the program starts (a
 * constructor), for application code. Use at file scope:
 *   IRM_REGISTER_GLOBAL_PACKED("my.Add", my_add);
 * Built into libirm itself, registrations happen lazily instead. */
#define IRM_REGISTER_GLOBAL_PACKED(name, fn)                                  \
  __attribute__((constructor)) static void IRM_CAT_(irm_register_packed_,     \
                                                    __LINE__)(void) {         \
    (void)irm_register_static_packed((name), (fn));                           \
  }                                                                           \
  typedef int IRM_CAT_(irm_register_packed_semicolon_, __LINE__)

#ifdef __cplusplus
}
#endif

#endif
