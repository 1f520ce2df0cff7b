/* irm C ABI: the small, stable surface other languages drive (ctypes, cffi,
 * JNA) without a header compiler. Everything beyond it is reachable as a
 * named global function (see ffi.ListGlobalFuncNames).
 *
 * Conventions for every irm function (docs/architecture.md):
 * - Functions that can fail return int: 0 on success, a negative IRM_E* code
 *   on failure, and write results through out-parameters. After a failure,
 *   irm_last_error() returns a thread-local message starting with its kind
 *   ("KeyError: ...").
 * - Objects returned through out-parameters, and objects inside an irm_any
 *   result, are NEW references: release them with irm_object_release or
 *   irm_any_release. Arguments are borrowed.
 * - A `const char *` obtained from an object lives as long as that object.
 * - Every function here is safe to call from any thread.
 */
#ifndef IRM_C_API_H
#define IRM_C_API_H

#include <stddef.h>
#include <stdint.h>

#include "irm/version.h"

/* Compilers. libirm itself builds with GCC or Clang on ELF platforms. The
 * public headers compile as C11 and as C++17 with any compiler: the GNU
 * extensions they use come through the macros below, which fall back to
 * plain C/C++ elsewhere (no symbol visibility, no branch hints, default TLS
 * model). Only the IRM_REGISTER_* constructor macros need GCC or Clang. */
#if defined(__GNUC__) || defined(__clang__)
#define IRM_API_EXPORT_ __attribute__((visibility("default")))
#define IRM_LIKELY_(x) __builtin_expect(!!(x), 1)
#define IRM_TLS_INITIAL_EXEC_ __attribute__((tls_model("initial-exec")))
#else
#define IRM_API_EXPORT_
#define IRM_LIKELY_(x) (x)
#define IRM_TLS_INITIAL_EXEC_
#endif

/* Thread-local storage class for the one exported thread-local. C++ code
 * gets __thread where available: thread_local would route every read of
 * a variable defined in C through a TLS wrapper function. */
#if !defined(__cplusplus)
#define IRM_THREAD_LOCAL_ _Thread_local
#elif defined(__GNUC__) || defined(__clang__)
#define IRM_THREAD_LOCAL_ __thread
#else
#define IRM_THREAD_LOCAL_ thread_local
#endif

/* IRM_API marks a public symbol; everything else in libirm is hidden. */
#define IRM_API IRM_API_EXPORT_

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes ------------------------------------------------------ */

/* The error kinds, one X(code, value, Name) per kind: the status code
 * constant, its value (public ABI, never renumbered) and the kind name that
 * starts irm_last_error() ("Name: ..."). Everything that maps codes to names
 * or names to codes is generated from this list. */
#define IRM_ERROR_KINDS(X)                                                    \
  X(IRM_ETYPE, -1, TypeError)       /* a value of the wrong type */           \
  X(IRM_EVALUE, -2, ValueError)     /* a value of the right type but wrong */ \
  X(IRM_EKEY, -3, KeyError)         /* a name or key that does not exist */   \
  X(IRM_EATTR, -4, AttributeError)  /* an unknown attribute or option */      \
  X(IRM_EINDEX, -5, IndexError)     /* an index out of range */               \
  X(IRM_ERUNTIME, -6, RuntimeError) /* an operation failed */                 \
  X(IRM_EPLUGIN, -7, PluginError)   /* a plugin could not be loaded */        \
  X(IRM_ENOMEM, -8, MemoryError)    /* an allocation failed */

/* Each code matches the kind that starts irm_last_error(). */
#define IRM_ERROR_KIND_ENUM_(code, value, name) code = value,
enum { IRM_OK = 0, IRM_ERROR_KINDS(IRM_ERROR_KIND_ENUM_) };
#undef IRM_ERROR_KIND_ENUM_

/* ---- values ------------------------------------------------------------ */

/* Reference-counted object; the layout is private. */
typedef struct irm_object irm_object;

/* Type codes of irm_any. */
enum {
  IRM_NONE = 0,
  IRM_INT = 1,
  IRM_BOOL = 2, /* travels in v_int as 0 or 1 */
  IRM_FLOAT = 3,
  IRM_PTR = 4,   /* an opaque pointer, never owned */
  IRM_STR = 5,   /* a borrowed C string; only in arguments, never in results */
  IRM_OBJECT = 6 /* v_obj; owned by whoever owns the irm_any */
};

/* A 16-byte tagged value. An irm_any that holds an object owns one
 * reference to it when it is a result or lives in a container; as an
 * argument it is borrowed. */
typedef struct irm_any {
  int32_t type_code;
  int32_t reserved_; /* padding; keep zero */
  union {
    int64_t v_int;
    double v_float;
    void *v_ptr;
    const char *v_str;
    irm_object *v_obj;
  };
} irm_any;

/* ---- library ----------------------------------------------------------- */

/* "MAJOR.MINOR.PATCH" of the loaded library (static string). */
IRM_API const char *irm_version(void);

/* The last error message of the calling thread, "Kind: text", or "" when no
 * error was set. Borrowed: valid until the next irm call on this thread that
 * sets an error. Never NULL. */
IRM_API const char *irm_last_error(void);

/* Sets the calling thread's last error. Meant for callbacks (packed
 * functions written in C or another language) that fail: write
 * "Kind: text"; a message without a known kind prefix is stored as
 * "RuntimeError: <msg>". NULL clears the error. */
IRM_API void irm_set_last_error(const char *msg);

/* ---- objects ----------------------------------------------------------- */

/* Adds a reference. NULL is ignored. */
IRM_API void irm_object_retain(irm_object *o);

/* Drops a reference; the last one frees the object (and, without recursion,
 * everything only it kept alive). NULL is ignored. */
IRM_API void irm_object_release(irm_object *o);

/* The runtime type key ("ffi.String", ...) of o; static string. NULL for
 * NULL. */
IRM_API const char *irm_object_type_key(const irm_object *o);

/* Releases the object inside v (if any) and sets v to NONE. NULL ignored. */
IRM_API void irm_any_release(irm_any *v);

/* ---- strings ----------------------------------------------------------- */

/* Makes a String holding a copy of the len bytes at data (NUL bytes
 * allowed; data may be NULL when len is 0). *out: new reference.
 * Errors: ValueError (NULL out, or NULL data with len > 0), MemoryError. */
IRM_API int irm_string_new(const char *data, size_t len, irm_object **out);

/* The bytes of a String, always followed by a NUL; NULL if s is not a
 * String. Borrowed from s. */
IRM_API const char *irm_string_data(const irm_object *s);

/* The length in bytes of a String (not counting the final NUL); 0 if s is
 * not a String. */
IRM_API size_t irm_string_size(const irm_object *s);

/* ---- functions --------------------------------------------------------- */

/* A packed function: reads nargs arguments (borrowed), stores a NEW
 * reference in *ret (irm sets it to NONE before the call) and returns 0.
 * A nonzero return is a failure; set the message with irm_set_last_error,
 * otherwise the caller sees "RuntimeError: function '<name>' failed". */
typedef int (*irm_packed_cfunc)(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);

/* Looks up a global function by name. *out: new reference, or NULL when no
 * function has that name (status 0: absence is not an error).
 * Errors: ValueError for NULL name or out; MemoryError. */
IRM_API int irm_func_get_global(const char *name, irm_object **out);

/* Calls a function object. args are borrowed; *ret receives a NEW value
 * (NONE on failure). Errors: TypeError when f is not a Function, ValueError
 * for NULL ret or args with nargs > 0, whatever the function reports, and
 * MemoryError (a native function's str result is copied into a String). */
IRM_API int irm_func_call(irm_object *f, const irm_any *args, int32_t nargs, irm_any *ret);

/* Registers f under name. A name that exists is a KeyError unless override
 * is nonzero, in which case f replaces it (holders of the old function keep
 * it alive). f is borrowed (the registry takes its own reference).
 * Recorded in the open registration journal, if any.
 * Errors: ValueError (NULL or empty name), TypeError (f not a Function),
 * KeyError (duplicate), MemoryError. */
IRM_API int irm_func_register_global(const char *name, irm_object *f, int override);

/* Removes a global function. Holders of the function keep it alive.
 * Errors: KeyError (with the closest registered name) when it does not
 * exist, ValueError (NULL name), MemoryError. */
IRM_API int irm_func_remove_global(const char *name);

/* Makes a packed function object. finalizer (may be NULL) is called with
 * resource when the object dies. *out: new reference. On failure the
 * finalizer is NOT called (the caller still owns resource).
 * Errors: ValueError (NULL fn or out), MemoryError. */
IRM_API int irm_func_new_packed(irm_packed_cfunc fn, void *resource, void (*finalizer)(void *), irm_object **out);

/* irm_func_new_packed for a language whose callbacks can only run on one
 * thread, the "home" thread that calls this (Node: the main thread, to which
 * koffi relays calls from other threads and which must be free to run
 * them). home_state points to two int32 the caller owns and keeps alive as
 * long as any function made with it: home_state[0] is nonzero while the
 * home thread is blocked in a call into irm (the caller sets it around its
 * synchronous calls); home_state[1] counts finalizers waiting for
 * irm_func_run_deferred_finalizers (irm updates it atomically; read only).
 * - A call on the home thread, or from another thread while home_state[0]
 *   is 0, calls fn as irm_func_new_packed's function would. A call from
 *   another thread while home_state[0] != 0 calls nothing and fails with
 *   "RuntimeError: function '<name>' belongs to the thread that made it,
 *   which is blocked in a call into irm: calling it from another thread now
 *   would deadlock; ..." (set on the calling thread), instead of waiting for
 *   a thread that waits for it. The guard cannot tell a home thread waiting
 *   for the caller from one busy with other work: both are refused.
 * - The finalizer runs when the object dies, on that thread, except when it
 *   dies on another thread while home_state[0] != 0: then it is queued and
 *   home_state[1] incremented, and it runs at the home thread's next
 *   irm_func_run_deferred_finalizers.
 * Threads are told apart by a thread-local address, so a home thread must
 * outlive its functions. *out: new reference; on failure the finalizer is
 * not called. Errors: ValueError (NULL fn, home_state or out), MemoryError.
 * Thread safety: as every function here; the guard itself is lock-free. */
IRM_API int irm_func_new_packed_guarded(irm_packed_cfunc fn, void *resource, void (*finalizer)(void *),
                                        volatile int32_t *home_state, irm_object **out);

/* Runs the finalizers of guarded functions (irm_func_new_packed_guarded)
 * that died on another thread while their home thread, the calling thread,
 * was busy; finalizers of other home threads stay queued. Returns how many
 * ran. Never fails; safe from any thread. */
IRM_API int irm_func_run_deferred_finalizers(void);

/* Loads a plugin shared object (see irm/plugin.h): opens it, checks its
 * ABI and runs its init inside a registration journal, so that a failed
 * load changes nothing. Loading the same file again is a no-op. Errors:
 * PluginError naming the path and the cause, ValueError for NULL,
 * MemoryError. */
IRM_API int irm_plugin_load(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* IRM_C_API_H */
