/* The PassContext (docs/architecture.md, "Passes"): the settings passes
 * run under.
 *
 * PassContext ("transform.PassContext"): opt_level (default 2), required
 * and disabled pass names, config (option key -> value, checked against the
 * config registry when the context is made), instruments. Each thread has a
 * stack of entered contexts and a default context used when the stack is
 * empty. Contexts and instruments are the documented mutable objects of
 * docs/architecture.md (their instrument lists and records) and guard themselves
 * with a lock; no user code runs under it.
 *
 * Ownership, errors and threads as pass.h says: out-parameters are NEW
 * references, arguments borrowed; every function may be called from any
 * thread.
 */
#ifndef IRM_PASS_CONTEXT_H
#define IRM_PASS_CONTEXT_H

#include "irm/module.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef irm_object irm_pass_context;

/* A context. required/disabled: Arrays of Strings or NULL; config: a Map of
 * registered option keys (native types only) or NULL; instruments: an Array
 * of instruments or NULL; all borrowed (required, disabled and instruments
 * retained, config copied). *out NEW. Errors: ValueError (negative
 * opt_level), TypeError (an argument of the wrong type or holding items of
 * the wrong type, a config value of the wrong type for its option),
 * AttributeError (an unregistered config key, with the closest one),
 * MemoryError. */
IRM_API int irm_pass_context_new(int opt_level, const irm_object *required, const irm_object *disabled,
                                 const irm_object *config, const irm_object *instruments, irm_pass_context **out);

/* Enter pushes ctx (borrowed; the stack retains it) on this thread's stack
 * (instrument enter hooks first); exit pops it and calls the exit hooks.
 * Errors of enter: TypeError (ctx is not a transform.PassContext), the
 * error of a failing enter hook (with "instrument '<name>' enter: " as
 * context; ctx is then not pushed and its instruments are cleared),
 * MemoryError. Errors of exit: TypeError (ctx is not a
 * transform.PassContext), RuntimeError (ctx is not the innermost entered
 * context of this thread, or none is entered), the error of a failing exit
 * hook (ctx is popped all the same). */
IRM_API int irm_pass_context_enter(irm_pass_context *ctx);
IRM_API int irm_pass_context_exit(irm_pass_context *ctx);

/* The innermost entered context of this thread, or the thread's default
 * context. *out NEW. When a thread exits, contexts it left entered are
 * released without running their exit hooks. Errors: MemoryError. */
IRM_API int irm_pass_context_current(irm_pass_context **out);

/* Fields: opt_level; required/disabled Arrays, config Map (borrowed from
 * ctx). -1 / NULL when ctx is not a transform.PassContext. */
IRM_API int irm_pass_context_opt_level(const irm_pass_context *ctx);
IRM_API const irm_object *irm_pass_context_required(const irm_pass_context *ctx);
IRM_API const irm_object *irm_pass_context_disabled(const irm_pass_context *ctx);
IRM_API const irm_object *irm_pass_context_config(const irm_pass_context *ctx);

/* {opt_level, required, disabled, config, instruments} as a NEW Map.
 * Errors: TypeError (ctx is not a transform.PassContext), MemoryError. */
IRM_API int irm_pass_context_info(const irm_pass_context *ctx, irm_object **out);

/* Exits the current instruments, installs the new ones (an Array or NULL;
 * borrowed, retained) and enters them (transform.OverrideInstruments), as
 * TVM does, whether or not ctx is entered. Errors: TypeError (ctx is not a
 * transform.PassContext, instruments is not an Array of instruments;
 * nothing changes), the error of a failing exit hook (the old instruments
 * are then cleared and the new ones not installed) or enter hook (the new
 * instruments are then cleared), MemoryError. */
IRM_API int irm_pass_context_override_instruments(irm_pass_context *ctx, const irm_object *instruments);

#ifdef __cplusplus
}
#endif

#endif
