/* Passes, the PassContext, instruments, config options and textual
 * pipelines (DESIGN.md §7): TVM's pass model, made complete.
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
 * returned its input module itself. A failure names the pass.
 *
 * PassContext ("transform.PassContext"): opt_level (default 2), required
 * and disabled pass names, config (option key -> value, checked against the
 * config registry when the context is made), instruments. Each thread has a
 * stack of entered contexts and a default context used when the stack is
 * empty. Contexts and instruments are the documented mutable objects of
 * DESIGN.md §2 (their instrument lists and records) and guard themselves
 * with a lock; no user code runs under it.
 *
 * Instruments follow TVM exactly: entering a context calls every
 * instrument's enter in order, then pushes (if one fails, the ones entered
 * get exit, the context's instruments are cleared, it is not pushed, and
 * the error is returned). Before each pass: a pass in required_pass runs
 * without asking should_run; otherwise every instrument's should_run is
 * asked (all of them, even after a false) and the pass runs only if all say
 * true. If it runs: every before hook in order, the pass, every after hook
 * in order. Exiting pops, then calls every exit in order (if one fails the
 * instruments are cleared, the remaining exits are skipped, and the error
 * is returned). A failure in should_run, before or after stops the run with
 * that error.
 *
 * Config options and migration: an option is registered with a type (an
 * option type name of kind.h), a default, and optionally the module
 * attribute it migrates to. irm_pass_get_config(mod, key) reads the module
 * attribute first, then the current PassContext, then the default; reading a
 * migrated key from the PassContext warns once per key per process, naming
 * the module attribute to set instead. A pass option given in a pipeline is
 * more specific than all three.
 *
 * Thread safety: passes are immutable and may run on many threads at once,
 * each under its own context stack. Registries are safe for concurrent use
 * and journaled.
 */
#ifndef IRM_PASS_H
#define IRM_PASS_H

#include "irm/kind.h"
#include "irm/module.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef irm_object irm_pass;
typedef irm_object irm_pass_context;
typedef irm_object irm_instrument;

/* ---- pass info ---------------------------------------------------------- */

/* Borrowed from p (NULL / -1 when p is not a pass). */
IRM_API const char *irm_pass_name(const irm_pass *p);
IRM_API int irm_pass_opt_level(const irm_pass *p);
IRM_API const irm_object *irm_pass_required(const irm_pass *p); /* Array of Strings */
IRM_API const irm_object *irm_pass_options(const irm_pass *p);  /* Map, may be empty */

/* {name, opt_level, required} as a NEW Map (transform.PassInfo). */
IRM_API int irm_pass_info(const irm_pass *p, irm_object **out);

/* ---- making passes ---------------------------------------------------------- */

/* A module pass written in C: reads mod (borrowed), the context and the
 * pass's options (borrowed Map), stores a NEW module in *out (mod itself,
 * retained, when nothing changes) and returns 0, or an irm status with the
 * error set. */
typedef int (*irm_module_pass_fn)(irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                                  void *resource, irm_module **out);

/* A function pass written in C: transforms one function (borrowed) of mod;
 * *out a NEW function (func itself, retained, when unchanged). */
typedef int (*irm_function_pass_fn)(irm_object *func, irm_module *mod, irm_pass_context *ctx,
                                    const irm_object *options, void *resource, irm_object **out);

/* required: n_required pass names (may be NULL when 0). options: a Map of
 * option values (NULL: none). finalizer(resource) runs when the pass dies
 * (not on failure). *out NEW. Errors: ValueError (bad name, negative
 * opt_level, NULL fn), MemoryError. */
IRM_API int irm_module_pass_new(const char *name, int opt_level, const char *const *required,
                                size_t n_required, const irm_object *options, irm_module_pass_fn fn,
                                void *resource, void (*finalizer)(void *), irm_pass **out);
IRM_API int irm_function_pass_new(const char *name, int opt_level, const char *const *required,
                                  size_t n_required, const irm_object *options, irm_function_pass_fn fn,
                                  void *resource, void (*finalizer)(void *), irm_pass **out);

/* Passes from function objects (any language): a module pass calls
 * func(mod, ctx) -> IRModule; a function pass calls func(function, mod,
 * ctx) -> function for each function of the module, skipping functions
 * whose attributes carry `Compiler` or a true `SkipOptimization`.
 * required: an Array of Strings or NULL. */
IRM_API int irm_module_pass_from_func(irm_object *func, int opt_level, const char *name,
                                      const irm_object *required, irm_pass **out);
IRM_API int irm_function_pass_from_func(irm_object *func, int opt_level, const char *name,
                                        const irm_object *required, irm_pass **out);

/* A Sequential of n passes (borrowed; retained). name NULL: "sequential". */
IRM_API int irm_sequential_new(irm_pass *const *passes, size_t n, int opt_level, const char *name,
                               irm_pass **out);

/* The passes of a Sequential, borrowed (an Array); NULL for other passes. */
IRM_API const irm_object *irm_sequential_passes(const irm_pass *p);

/* ---- running ---------------------------------------------------------------- */

/* Runs pass on mod under the calling thread's current PassContext. *out: a
 * NEW module (mod itself, retained, when nothing changed). On failure mod is
 * untouched and the error reads "in pass '<name>': <cause>". */
IRM_API int irm_pass_run(irm_pass *pass, irm_module *mod, irm_module **out);

/* ---- the pass registry (kind category "pass") -------------------------------
 * A registered pass is a kind of category "pass": its options are the
 * kind's option schema (kind.h), so pipelines and transform.GetPass can
 * check them; the factory makes the pass from validated options. */

/* Makes a pass from validated options (a Map with defaults filled). The
 * factory hands options on to the pass it makes (irm_module_pass_new's
 * options argument), so that irm_pass_options and printed pipelines show
 * them. */
typedef int (*irm_pass_factory_fn)(const irm_object *options, irm_pass **out);

/* Registers name with a C factory; *kind (may be NULL) is the kind handle
 * for adding options with irm_kind_add_option. Registering an existing name
 * returns the existing entry unless the factory differs (KeyError).
 * Journaled. */
IRM_API int irm_pass_register(const char *name, irm_pass_factory_fn factory, irm_kind **kind);

/* The same with a function object factory: func(options Map) -> Pass. */
IRM_API int irm_pass_register_func(const char *name, irm_object *factory, irm_kind **kind);

/* Makes the registered pass name with options (a Map or NULL), validated
 * against its schema (AttributeError with the closest option, TypeError).
 * ValueError with the closest pass name for an unknown pass. *out NEW. */
IRM_API int irm_pass_get(const char *name, const irm_object *options, irm_pass **out);

/* The registered pass names, sorted, as a NEW Array. */
IRM_API int irm_pass_list(irm_object **out);

/* Static registration for application code: registers name with factory
 * at start-up and calls setup(kind) (may be NULL) to add options. */
IRM_API int irm_register_static_pass(const char *name, irm_pass_factory_fn factory,
                                     irm_kind_setup_fn setup);
#if defined(__GNUC__) || defined(__clang__) /* constructors: GCC or Clang only */
#define IRM_REGISTER_PASS(name, factory, setup)                                     \
  __attribute__((constructor)) static void IRM_KIND_CAT_(irm_register_pass_,        \
                                                         __LINE__)(void) {          \
    (void)irm_register_static_pass((name), (factory), (setup));                     \
  }                                                                                 \
  typedef int IRM_KIND_CAT_(irm_register_pass_semicolon_, __LINE__)
#endif

/* ---- PassContext ----------------------------------------------------------- */

/* A context. required/disabled: Arrays of Strings or NULL; config: a Map of
 * registered option keys (AttributeError with the closest key for an unknown
 * one; TypeError for a value of the wrong type; native types only) or NULL;
 * instruments: an Array of instruments or NULL. A negative opt_level is a
 * ValueError. *out NEW. */
IRM_API int irm_pass_context_new(int opt_level, const irm_object *required, const irm_object *disabled,
                                 const irm_object *config, const irm_object *instruments,
                                 irm_pass_context **out);

/* Enter pushes ctx on this thread's stack (instrument enter hooks first);
 * exit pops it (RuntimeError when ctx is not on top) and calls the exit
 * hooks. */
IRM_API int irm_pass_context_enter(irm_pass_context *ctx);
IRM_API int irm_pass_context_exit(irm_pass_context *ctx);

/* The innermost entered context of this thread, or the thread's default
 * context. *out NEW. When a thread exits, contexts it left entered are
 * released without running their exit hooks. */
IRM_API int irm_pass_context_current(irm_pass_context **out);

/* Fields: opt_level; required/disabled Arrays, config Map (borrowed). */
IRM_API int irm_pass_context_opt_level(const irm_pass_context *ctx);
IRM_API const irm_object *irm_pass_context_required(const irm_pass_context *ctx);
IRM_API const irm_object *irm_pass_context_disabled(const irm_pass_context *ctx);
IRM_API const irm_object *irm_pass_context_config(const irm_pass_context *ctx);

/* {opt_level, required, disabled, config, instruments} as a NEW Map. */
IRM_API int irm_pass_context_info(const irm_pass_context *ctx, irm_object **out);

/* Exits the current instruments, installs the new ones (an Array or NULL)
 * and enters them (transform.OverrideInstruments). */
IRM_API int irm_pass_context_override_instruments(irm_pass_context *ctx, const irm_object *instruments);

/* ---- config options ----------------------------------------------------------- */

/* Registers a config option: type is an option type name (kind.h),
 * default_value may be NULL (none), module_attr (may be NULL) is the module
 * attribute it migrates to. Same definition twice is fine; a different one
 * is a KeyError. Journaled. */
IRM_API int irm_pass_config_register(const char *key, const char *type, const irm_any *default_value,
                                     const char *module_attr);

/* key -> Map {"type", "default", "module_attr" (or NONE)} as a NEW Map. */
IRM_API int irm_pass_config_list(irm_object **out);

/* The value of a config option for mod: the module attribute it migrates
 * to, then the current PassContext's config, then the default (NONE when
 * none). *out NEW. AttributeError (closest key) for an unregistered key. */
IRM_API int irm_pass_get_config(const irm_module *mod, const char *key, irm_any *out);

/* The value a pass uses for a setting that is both one of its options and
 * a config option (FuseOps{max_depth=4} and "FuseOps.max_depth"): the pass
 * option when the pipeline (or transform.GetPass) gave it, else
 * irm_pass_get_config(mod, config_key). Declare such pass options without
 * a default, so that "not given" stays visible. options is the pass's
 * option Map (irm_pass_options; may be NULL). *out NEW. Errors as
 * irm_pass_get_config. */
IRM_API int irm_pass_setting(const irm_object *options, const char *option, const irm_module *mod,
                             const char *config_key, irm_any *out);

/* ---- instruments ------------------------------------------------------------- */

/* An instrument from function objects (each may be NULL): enter() and
 * exit() take no arguments; should_run(mod, info), before(mod, info) and
 * after(mod, info) get the module and the PassInfo Map; should_run
 * returns a bool (any other result is a TypeError). A failing hook's error
 * gains "instrument '<name>' <hook>: " as context. *out NEW. */
IRM_API int irm_instrument_new(const char *name, irm_object *enter, irm_object *exit,
                               irm_object *should_run, irm_object *before, irm_object *after,
                               irm_instrument **out);
IRM_API const char *irm_instrument_name(const irm_instrument *inst);

/* Built-in instruments. */
IRM_API int irm_timing_instrument_new(irm_instrument **out);
/* The timing tree: nested passes indented (two spaces a level), one line
 * each, "name: 4.200ms [self 0.006ms] (100.00% of total, 100.00% of
 * parent)" (a pass whose after hooks never ran: "name: did not finish");
 * "" when nothing was recorded. Records are cleared when the context is
 * exited. TypeError when timing is not a timing instrument. *out NEW. */
IRM_API int irm_timing_render(const irm_instrument *timing, irm_object **out);
/* Prints the module (through ffi.Repr or ir.Print when it exists) before
 * and/or after the named passes (an Array of Strings; NULL: all passes) to
 * stdout, each under a line "; IR before pass 'Name'" / "; IR after pass
 * 'Name'". transform.PassPrintingInstrument defaults: before false, after
 * true. */
IRM_API int irm_printing_instrument_new(const irm_object *pass_names, int before, int after,
                                        irm_instrument **out);
/* Runs only the first `limit` optional passes (those not required) and
 * reports each skipped one through the warning handler ("bisect: not
 * running pass #N 'Name' (limit L)"), in the spirit of LLVM's
 * -opt-bisect-limit. Every pass asked about counts, a Sequential too; the
 * count restarts each time a context holding the instrument is entered; a
 * negative limit runs everything. */
IRM_API int irm_bisect_instrument_new(int64_t limit, irm_instrument **out);

/* ---- textual pipelines ---------------------------------------------------------
 * Sequential(InferType,FoldConstant,FuseOps{max_depth=4}), nested
 * Sequential(...), option values typed by each pass's declared options.
 * Printing is canonical and parsing the printed text gives an equal
 * pipeline. Errors give the position and the closest pass or option name.
 *
 *   element := "Sequential" [options] "(" [element ("," element)*] ")"
 *            | pass-name [options]
 *   options := "{" [key "=" value ("," key "=" value)*] "}"
 *   value   := scalar | "[" [scalar ("," scalar)*] "]"   (array options)
 *   scalar  := bare word (no whitespace or ,{}()[]'=) | 'quoted' (\' \\)
 *
 * Whitespace may separate tokens; positions count bytes from 0. A
 * Sequential's options are name (str) and opt_level (int), printed only
 * when not the defaults. A target option is its target string, quoted; a
 * map option has no text form. Printing puts a pass's options
 * (irm_pass_options) in key order. Errors: ValueError (syntax, unknown
 * pass, bad value), AttributeError (unknown option), each as "pipeline
 * '<text>': <what> at position N (did you mean '<closest>'?)". *out NEW. */
IRM_API int irm_pipeline_parse(const char *text, irm_pass **out);
IRM_API int irm_pipeline_print(const irm_pass *pass, irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
