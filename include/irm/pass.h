/* Passes and Sequential (docs/architecture.md, "Passes"): TVM's pass model,
 * made complete. This header includes the rest of the pass manager:
 * pass_context.h, pass_config.h, pass_instrument.h, pass_registry.h,
 * pass_reproducer.h and pipeline.h; include it, or the one you need.
 *
 *
 * Passes ("transform.Pass", with subtypes "transform.ModulePass",
 * "transform.FunctionPass" and "transform.Sequential") are immutable
 * objects with a PassInfo {name, opt_level, required} and a Map of option
 * values. Running a pass never changes its input module: a pass returns a
 * new module (or its input, unchanged). A pass that fails leaves its input
 * untouched and reports "in pass '<name>': <cause>"; its after hooks do not
 * run.
 *
 * Sequential (default opt_level 0, name "sequential") is a pass itself, so
 * instruments see it too. For each pass it holds: skipped when its name is
 * in the context's disabled list; otherwise run when it is in the required
 * list or when the context's opt_level >= the pass's opt_level. The passes
 * named in a pass's `required` run first (looked up in the pass registry).
 *
 * After every pass the pass manager checks that the module's pass-invariant
 * attributes are unchanged (irm_module_check_invariants) and, if a global
 * `ir.Verify` is registered, calls it; both are skipped when the pass
 * returned its input module itself. A failure names the pass. irm_pass_run
 * also verifies the module it starts from, before any pass or hook runs, so
 * a malformed input is reported as "the input module of pass '<name>' is
 * not well-formed", not blamed on the pass. The config option
 * "pass.verify_each" (IRM_PASS_VERIFY_EACH_CONFIG; bool, default true) set
 * to false skips ir.Verify, on the input and after each pass (mlir-opt's
 * --verify-each=0), never the invariant check.
 *
 * Ownership follows c_api.h: out-parameters are NEW references and
 * arguments are borrowed (an object kept by what is made is retained);
 * exceptions are marked below. Every status-returning function lists its
 * errors; ValueError for a NULL out-parameter is left unsaid. A failing
 * call changes nothing unless its comment says otherwise.
 *
 * Thread safety: passes are immutable and may run on many threads at once,
 * each under its own context stack. Registries are safe for concurrent use
 * and journaled. Every function may be called from any thread.
 */
#ifndef IRM_PASS_H
#define IRM_PASS_H

#include "irm/kind.h"
#include "irm/module.h"

#include "irm/pass_context.h"
#include "irm/pass_config.h"
#include "irm/pass_instrument.h"
#include "irm/pass_reproducer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef irm_object irm_pass;

/* ---- pass info ---------------------------------------------------------- */

/* Borrowed from p (NULL / -1 when p is not a pass). */
IRM_API const char *irm_pass_name(const irm_pass *p);
IRM_API int irm_pass_opt_level(const irm_pass *p);
IRM_API const irm_object *irm_pass_required(const irm_pass *p); /* Array of Strings */
IRM_API const irm_object *irm_pass_options(const irm_pass *p);  /* Map, may be empty */

/* {name, opt_level, required} as a NEW Map (transform.PassInfo; shared by
 * every call, never changed). Errors: TypeError (p is not a
 * transform.Pass). */
IRM_API int irm_pass_info(const irm_pass *p, irm_object **out);

/* ---- making passes ---------------------------------------------------------- */

/* A module pass written in C: reads mod (borrowed), the context and the
 * pass's options (borrowed Map), stores a NEW module in *out (mod itself,
 * retained, when nothing changes) and returns 0, or an irm status with the
 * error set. */
typedef int (*irm_module_pass_fn)(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                                  irm_module **out);

/* A function pass written in C: transforms one function (borrowed) of mod;
 * *out a NEW function (func itself, retained, when unchanged). It is given
 * every function of the module, of any ir.BaseFunc type, except those
 * irm_base_func_should_skip(func, IRM_SKIP_DEFAULT) skips (module.h); a
 * pass for one IR returns the functions of other types as they are. An
 * error it returns gains "in function '<name>'" as context. */
typedef int (*irm_function_pass_fn)(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                                    void *resource, irm_object **out);

/* required: n_required pass names (borrowed, copied; may be NULL when 0)
 * that must run before this pass. As in TVM, a Sequential resolves them
 * (looks each up in the pass registry and runs it first); running the pass
 * alone with irm_pass_run does not.
 * options: a Map of option values (borrowed, retained; NULL: none).
 * resource is owned by the pass from success on: finalizer(resource) runs
 * when the pass dies (not on failure). *out NEW. Errors: ValueError (NULL,
 * empty or control-character name, negative opt_level, NULL fn, NULL
 * required with n_required > 0, an empty required name), TypeError
 * (options is not a Map), MemoryError. */
IRM_API int irm_module_pass_new(const char *name, int opt_level, const char *const *required, size_t n_required,
                                const irm_object *options, irm_module_pass_fn fn, void *resource,
                                void (*finalizer)(void *), irm_pass **out);
IRM_API int irm_function_pass_new(const char *name, int opt_level, const char *const *required, size_t n_required,
                                  const irm_object *options, irm_function_pass_fn fn, void *resource,
                                  void (*finalizer)(void *), irm_pass **out);

/* Passes from function objects (any language): a module pass calls
 * func(mod, ctx) -> IRModule; a function pass calls func(function, mod,
 * ctx) -> function for each function of the module that
 * irm_base_func_should_skip(function, IRM_SKIP_DEFAULT) does not skip
 * (`Compiler` set, `SkipOptimization` or `Primitive` nonzero).
 * func (retained) and required (an Array of Strings or NULL; retained) are
 * borrowed. *out NEW. Errors: TypeError (func is not an ffi.Function,
 * required is not an Array of Strings), ValueError (NULL, empty or
 * control-character name, negative opt_level), MemoryError. */
IRM_API int irm_module_pass_from_func(irm_object *func, int opt_level, const char *name, const irm_object *required,
                                      irm_pass **out);
IRM_API int irm_function_pass_from_func(irm_object *func, int opt_level, const char *name, const irm_object *required,
                                        irm_pass **out);

/* The loop of a function pass, for C code that offers a function pass as
 * a plain call as well (irm_dataflow_fold_constant): fn(func, mod, ctx, options,
 * resource, &new_func) for each function of mod in order, skipping those
 * irm_base_func_should_skip(func, IRM_SKIP_DEFAULT) skips, exactly as
 * irm_pass_run runs a function pass but without the runner's protocol (no
 * instruments, no verification, no "in pass" context). The first function
 * that comes back changed starts a copy of mod; the functions that fn
 * gives back as they were stay in place. mod, ctx (a PassContext, or NULL:
 * fn gets NULL) and options (a Map or NULL) are borrowed and handed to fn
 * as they are; resource belongs to the caller. *out NEW: mod itself,
 * retained, when every function came back itself. On failure mod is
 * untouched. Errors: fn's own, with "in function '<name>'" as context;
 * TypeError (mod is not an ir.IRModule, ctx or options of another type,
 * fn gave something other than an ir.BaseFunc), ValueError (NULL fn),
 * MemoryError. */
IRM_API int irm_function_pass_apply(irm_module *mod, irm_function_pass_fn fn, irm_pass_context *ctx,
                                    const irm_object *options, void *resource, irm_module **out);

/* A Sequential of n passes (borrowed; retained). name NULL: "sequential".
 * *out NEW. Errors: TypeError (an element is not a transform.Pass),
 * ValueError (NULL passes with n > 0, empty or control-character name,
 * negative opt_level), MemoryError. */
IRM_API int irm_sequential_new(irm_pass *const *passes, size_t n, int opt_level, const char *name, irm_pass **out);

/* The passes of a Sequential, borrowed (an Array); NULL for other passes. */
IRM_API const irm_object *irm_sequential_passes(const irm_pass *p);

/* ---- running ---------------------------------------------------------------- */

/* Runs pass on mod under the calling thread's current PassContext. pass
 * and mod are borrowed. *out: a NEW module (mod itself, retained, when
 * nothing changed). On failure mod is untouched; a failure of the pass
 * itself reads "in pass '<name>': <cause>". Errors: TypeError (pass is not
 * a transform.Pass, mod is not an ir.IRModule, the pass gave something
 * other than an ir.IRModule (a function pass: an ir.BaseFunc), an
 * instrument's should_run gave no bool), RuntimeError (the pass changed a
 * pass-invariant module attribute), ValueError (a pass that a Sequential
 * runs requires an unregistered pass), the errors of the pass body, of ir.Verify and of
 * instrument hooks (these with "instrument '<name>' <hook>: " as context),
 * MemoryError. */
IRM_API int irm_pass_run(irm_pass *pass, irm_module *mod, irm_module **out);

#ifdef __cplusplus
}
#endif

/* After everything they need: these two include this header back. */
#include "irm/pass_registry.h"
#include "irm/pipeline.h"

#endif
