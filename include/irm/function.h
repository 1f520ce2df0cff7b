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

/* The names of every global function, sorted, as a NEW Array of Strings.
 * Errors: ValueError (NULL out), MemoryError. */
IRM_API int irm_func_list_globals(irm_object **out);

/* Looks up name and calls it: irm_func_get_global + irm_func_call, with a
 * KeyError (and the closest registered name) when name is absent. Errors:
 * KeyError, and those of irm_func_get_global and irm_func_call. */
IRM_API int irm_func_call_global(const char *name, const irm_any *args, int32_t nargs, irm_any *ret);

/* ---- native functions ---------------------------------------------------
 * Any C function can become a function object: give its pointer (cast to
 * irm_native_fn) and its signature, "ret(arg,...)". Types: void (return
 * only), bool, i32, i64, u64, f32, f64, ptr, str (const char *), obj
 * (irm_object *, never NULL), obj? (may be NULL) and any (an argument passed
 * as const irm_any *; not a return type). At most IRM_NATIVE_MAX_ARGS
 * arguments. Examples: "i64(i64,i64)", "str(obj,str)", "void(ptr)",
 * "f64(f64)", "bool(obj)", "obj(str,obj)", "i64()".
 *
 * A call checks the argument count and each argument's type and converts:
 * int widens to f32/f64, bool takes bool or int 0/1, i32 and u64 take ints
 * in range, str takes a borrowed str or a String, obj takes any object, and
 * NONE only for obj? and ptr. Errors are TypeErrors (ValueError when an int
 * is out of range) naming the function, the argument index and both types.
 * Results: a str result is copied into a String (NULL gives NONE); an obj
 * result is taken as a NEW reference (NULL gives NONE); u64 results above
 * INT64_MAX wrap to negative ints.
 *
 * Signatures whose arguments all travel in integer registers (0-4 of
 * i64/u64/ptr/obj, returning one of them or void), and f64(f64),
 * f64(f64,f64), skip libffi; the rest call through a libffi cif prepared
 * once, when the function object is made. */

#define IRM_NATIVE_MAX_ARGS 16

typedef void (*irm_native_fn)(void);

/* Makes a function object that calls fn with the given signature.
 * *out: new reference. Errors: ValueError for a bad signature, naming the
 * position ("expected a type at position 4"), ValueError for NULL
 * arguments, RuntimeError if libffi refuses the signature, MemoryError. */
IRM_API int irm_func_new_native(irm_native_fn fn, const char *signature, irm_object **out);

/* The signature of a native function object, normalized ("i64(i64,i64)");
 * NULL for a packed function or a non-function. Borrowed from f. */
IRM_API const char *irm_func_signature(const irm_object *f);

/* The C function behind a native function object (what irm_func_new_native
 * was given); NULL for a packed function or a non-function. With
 * irm_func_signature it lets a binding call the C function directly (the
 * Python package builds a ctypes prototype from both for scalar
 * signatures). Never fails; safe from any thread. */
IRM_API irm_native_fn irm_func_native_pointer(const irm_object *f);

/* The other way: a C function pointer with the given signature that calls
 * func (any function object: packed, native, or one written in Python).
 * *out_fn stays valid as long as *out_handle lives (a NEW reference; the
 * handle keeps func alive). Arguments are converted to irm_any (str as a
 * borrowed str, obj/obj? as a borrowed object or NONE, any as the pointed-to
 * value) and the result back to the C type with the rules above. When func
 * fails, or its result has the wrong type, the error is left in
 * irm_last_error() and the pointer returns 0, 0.0, false or NULL. A NONE
 * result of a str closure returns NULL (as a NULL str result of a native
 * function gives NONE). A str or obj result is owned by the handle until
 * the next call of this pointer on the same thread (the caller does not
 * release it); the handle keeps one such result per thread that called it,
 * until it is released.
 * Errors: ValueError (bad signature; "any" as return type), TypeError (func
 * not a Function), RuntimeError (libffi cannot make closures), MemoryError. */
IRM_API int irm_func_to_native(irm_object *func, const char *signature, irm_native_fn *out_fn, irm_object **out_handle);

/* ---- argument helpers for packed functions ----------------------------
 * Each reports errors that name the function and the argument, counting
 * arguments from 1 and quoting the value given, e.g. "TypeError:
 * ffi.ArraySize: argument 1: expected ffi.Array, got int 5" for args[0].
 * Results are borrowed from args. */

/* TypeError unless min <= nargs <= max ("ffi.MapGetItem takes 2
 * arguments, got 1"). max < 0 means no upper bound. */
IRM_API int irm_arg_count(const char *fn, int32_t nargs, int32_t min, int32_t max);

/* Nonzero when argument i was given and is not NONE (optional arguments). */
IRM_API int irm_arg_present(const irm_any *args, int32_t nargs, int32_t i);

/* Typed reads of args[i], as the irm_any_to_* readers in object.h (i
 * must be below nargs). Errors: TypeError (the argument has another type),
 * ValueError (NULL out), with "<fn>: argument <i + 1>: " as context (the
 * first argument is argument 1). */
IRM_API int irm_arg_object(const char *fn, const irm_any *args, int32_t i, const char *type_key, irm_object **out);
IRM_API int irm_arg_int(const char *fn, const irm_any *args, int32_t i, int64_t *out);
IRM_API int irm_arg_bool(const char *fn, const irm_any *args, int32_t i, bool *out);
IRM_API int irm_arg_float(const char *fn, const irm_any *args, int32_t i, double *out);
IRM_API int irm_arg_str(const char *fn, const irm_any *args, int32_t i, const char **out, size_t *len);

/* Finishes a packed function that made an object: rc is the status of the
 * call that made *obj. When rc is 0, stores *obj (a NEW reference, taken)
 * in *ret and returns 0; otherwise returns rc with "<fn>: " as context and
 * leaves *ret as it was. A message that starts with the name of the irm C
 * function that failed ("irm_module_new: ...") has fn in its place, since
 * the caller called fn. obj is read only after rc is computed, so
 * `irm_ret_object(fn, irm_x_new(&o), &o, ret)` is safe. */
IRM_API int irm_ret_object(const char *fn, int rc, irm_object **obj, irm_any *ret);

/* Used by the registration macros below: registers fn as a packed global
 * (no override). A failure is reported through the warning handler, since
 * a constructor has no caller to return it to. Returns the status. Inside a
 * plugin's constructors the registration is queued for its init. Errors:
 * those of irm_func_new_packed and irm_func_register_global (KeyError for
 * a name that exists), MemoryError. */
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

/* Bumped each time the calling thread's last error is set. Read by every
 * inline call, so it uses the initial-exec TLS model: one %fs-relative
 * load, where the default model in a shared library (a plugin, say) costs
 * a __tls_get_addr call per read.
 * Initial-exec is safe even when libirm itself is loaded at run time with
 * dlopen, as Python's ctypes does: the module's TLS block (all of libirm's
 * thread-locals, about 220 bytes) is then placed in the surplus of static
 * TLS that glibc reserves for exactly this (since glibc 2.32 at least 1152
 * bytes with the default tunables; 1664 bytes in older versions). Should a
 * process have used that surplus up, dlopen fails with "cannot allocate
 * memory in static TLS block"; it never corrupts memory. */
extern IRM_API IRM_THREAD_LOCAL_ unsigned irm_error_generation_ IRM_TLS_INITIAL_EXEC_;

/* The slow half of a failed call: drops a partial result and makes sure a
 * message is set ("RuntimeError: function '<name>' failed"). */
IRM_API int irm_func_call_failed_(irm_object *f, unsigned generation_before, irm_any *ret);

/* Whether irm_func_call may call f at once: f is a Function, ret is given
 * and args holds nargs >= 0 values. One branch: the checks are combined. */
static inline int irm_func_call_ok_(const irm_object *f, const irm_any *args, int32_t nargs, const irm_any *ret) {
  const irm_function_head_ *h = (const irm_function_head_ *)(const void *)f;
  uint32_t max_args = args ? (uint32_t)INT32_MAX : 0u; /* no args: nargs must be 0 */
  return f != NULL && ((h->type_index_ == IRM_TYPE_FUNCTION) & (ret != NULL) & ((uint32_t)nargs <= max_args));
}

/* The call itself, on arguments irm_func_call_ok_ accepted. */
static inline int irm_func_call_unchecked_(irm_object *f, const irm_any *args, int32_t nargs, irm_any *ret) {
  const irm_function_head_ *h = (const irm_function_head_ *)(const void *)f;
  ret->type_code = IRM_NONE;
  ret->v_int = 0;
  unsigned generation = irm_error_generation_;
  if (IRM_LIKELY_(h->fn_(args, nargs, ret, h->resource_) == 0)) return IRM_OK;
  return irm_func_call_failed_(f, generation, ret);
}

static inline int irm_func_call_inline_(irm_object *f, const irm_any *args, int32_t nargs, irm_any *ret) {
  if (IRM_LIKELY_(irm_func_call_ok_(f, args, nargs, ret))) return irm_func_call_unchecked_(f, args, nargs, ret);
  return (irm_func_call)(f, args, nargs, ret); /* reports the bad argument */
}

#if !defined(IRM_NO_INLINE_CALL)
#define irm_func_call(f, args, nargs, ret) irm_func_call_inline_((f), (args), (nargs), (ret))
#endif

/* Used by IRM_REGISTER_GLOBAL: registers fn as a native global (no
 * override), reporting a failure through the warning handler. Errors:
 * those of irm_func_new_native (ValueError for a bad signature) and
 * irm_func_register_global (KeyError for a name that exists), MemoryError. */
IRM_API int irm_register_static_native(const char *name, irm_native_fn fn, const char *signature);

/* The IRM_REGISTER_* macros (here, in kind.h and in pass.h) run at load
 * time as constructors, so they need GCC or Clang (C or C++). */
#if defined(__GNUC__) || defined(__clang__)
#define IRM_CAT2_(a, b) a##b
#define IRM_CAT_(a, b) IRM_CAT2_(a, b)

/* Registers a packed C function as a global when the program starts (a
 * constructor), for application code. Use at file scope:
 *   IRM_REGISTER_GLOBAL_PACKED("my.Add", my_add);
 * Built into libirm itself, registrations happen lazily instead. */
#define IRM_REGISTER_GLOBAL_PACKED(name, fn)                                                \
  __attribute__((constructor)) static void IRM_CAT_(irm_register_packed_, __LINE__)(void) { \
    (void)irm_register_static_packed((name), (fn));                                         \
  }                                                                                         \
  typedef int IRM_CAT_(irm_register_packed_semicolon_, __LINE__)

/* Registers a C function as a native global when the program starts:
 *   static int64_t add(int64_t a, int64_t b) { return a + b; }
 *   IRM_REGISTER_GLOBAL("my.Add", add, "i64(i64,i64)");
 * A bad signature or a duplicate name is reported through the warning
 * handler (a constructor cannot return an error). */
#define IRM_REGISTER_GLOBAL(name, fn, signature)                                            \
  __attribute__((constructor)) static void IRM_CAT_(irm_register_native_, __LINE__)(void) { \
    (void)irm_register_static_native((name), (irm_native_fn)(fn), (signature));             \
  }                                                                                         \
  typedef int IRM_CAT_(irm_register_native_semicolon_, __LINE__)
#endif

#ifdef __cplusplus
}
#endif

#endif
