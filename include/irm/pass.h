/* Passes, the PassContext, instruments, config options and textual
 * pipelines (docs/architecture.md, "Passes"): TVM's pass model, made complete.
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
 * PassContext ("transform.PassContext"): opt_level (default 2), required
 * and disabled pass names, config (option key -> value, checked against the
 * config registry when the context is made), instruments. Each thread has a
 * stack of entered contexts and a default context used when the stack is
 * empty. Contexts and instruments are the documented mutable objects of
 * docs/architecture.md (their instrument lists and records) and guard themselves
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

/* {name, opt_level, required} as a NEW Map (transform.PassInfo; shared by
 * every call, never changed). Errors: TypeError (p is not a
 * transform.Pass). */
IRM_API int irm_pass_info(const irm_pass *p, irm_object **out);

/* ---- making passes ---------------------------------------------------------- */

/* A module pass written in C: reads mod (borrowed), the context and the
 * pass's options (borrowed Map), stores a NEW module in *out (mod itself,
 * retained, when nothing changes) and returns 0, or an irm status with the
 * error set. */
typedef int (*irm_module_pass_fn)(irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                                  void *resource, irm_module **out);

/* A function pass written in C: transforms one function (borrowed) of mod;
 * *out a NEW function (func itself, retained, when unchanged). It is given
 * every function of the module, of any ir.BaseFunc type, except those
 * irm_base_func_should_skip(func, IRM_SKIP_DEFAULT) skips (module.h); a
 * pass for one IR returns the functions of other types as they are. An
 * error it returns gains "in function '<name>'" as context. */
typedef int (*irm_function_pass_fn)(irm_object *func, irm_module *mod, irm_pass_context *ctx,
                                    const irm_object *options, void *resource, irm_object **out);

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
IRM_API int irm_module_pass_new(const char *name, int opt_level, const char *const *required,
                                size_t n_required, const irm_object *options, irm_module_pass_fn fn,
                                void *resource, void (*finalizer)(void *), irm_pass **out);
IRM_API int irm_function_pass_new(const char *name, int opt_level, const char *const *required,
                                  size_t n_required, const irm_object *options, irm_function_pass_fn fn,
                                  void *resource, void (*finalizer)(void *), irm_pass **out);

/* Passes from function objects (any language): a module pass calls
 * func(mod, ctx) -> IRModule; a function pass calls func(function, mod,
 * ctx) -> function for each function of the module that
 * irm_base_func_should_skip(function, IRM_SKIP_DEFAULT) does not skip
 * (`Compiler` set, `SkipOptimization` or `Primitive` nonzero).
 * func (retained) and required (an Array of Strings or NULL; retained) are
 * borrowed. *out NEW. Errors: TypeError (func is not an ffi.Function,
 * required is not an Array of Strings), ValueError (NULL, empty or
 * control-character name, negative opt_level), MemoryError. */
IRM_API int irm_module_pass_from_func(irm_object *func, int opt_level, const char *name,
                                      const irm_object *required, irm_pass **out);
IRM_API int irm_function_pass_from_func(irm_object *func, int opt_level, const char *name,
                                        const irm_object *required, irm_pass **out);

/* The loop of a function pass, for C code that offers a function pass as
 * a plain call as well (irm_ir_fold_constant): fn(func, mod, ctx, options,
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
IRM_API int irm_sequential_new(irm_pass *const *passes, size_t n, int opt_level, const char *name,
                               irm_pass **out);

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
 * for adding options with irm_kind_add_option (borrowed, valid for the
 * process). Registering an existing name returns the existing entry unless
 * the factory differs. Journaled. Errors: ValueError (NULL or empty name,
 * NULL factory), KeyError (name is registered with another factory),
 * MemoryError. */
IRM_API int irm_pass_register(const char *name, irm_pass_factory_fn factory, irm_kind **kind);

/* A factory that carries a resource: one C function can make several
 * passes, each registered with its own resource (a table entry, say). */
typedef int (*irm_pass_factory_ex_fn)(const irm_object *options, void *resource, irm_pass **out);

/* Registers name with factory and resource, then calls setup(kind) (may
 * be NULL) to add options, all or nothing: when setup fails, what this
 * call registered is taken back. resource is borrowed: it must stay valid
 * while the pass can be made (static data, or for the process), and every
 * call of the factory gets it. *kind (may be NULL) as irm_pass_register.
 * Registering an existing name with the same factory and resource returns
 * the existing entry and runs setup again (write it idempotent, as for
 * IRM_REGISTER_PASS). Journaled (a plugin's init may call it; its
 * constructors use IRM_REGISTER_PASS). Errors: ValueError (NULL or empty
 * name, NULL factory), KeyError (name is registered with another factory,
 * or the same factory with another resource), setup's own (with "setting
 * up pass '<name>'" as context), MemoryError. irm_pass_register is the
 * same without a resource or setup. */
IRM_API int irm_pass_register_ex(const char *name, irm_pass_factory_ex_fn factory, void *resource,
                                 irm_kind_setup_fn setup, irm_kind **kind);

/* The same with a function object factory: func(options Map) -> Pass
 * (borrowed; retained). Errors: TypeError (factory is not an
 * ffi.Function), ValueError (NULL or empty name), KeyError (name is
 * registered with another factory), MemoryError. */
IRM_API int irm_pass_register_func(const char *name, irm_object *factory, irm_kind **kind);

/* Makes the registered pass name with options (a Map or NULL; borrowed),
 * validated against its schema. *out NEW. Errors: ValueError (NULL name,
 * an unknown pass, with the closest pass name; a required option missing),
 * AttributeError (an unknown option, with the closest one), TypeError
 * (options is not a Map, an option value of the wrong type, the factory
 * gave no transform.Pass), RuntimeError (name is registered without a
 * factory), the factory's own errors (with "making pass '<name>'" as
 * context), MemoryError. */
IRM_API int irm_pass_get(const char *name, const irm_object *options, irm_pass **out);

/* The registered pass names, sorted, as a NEW Array. Errors:
 * MemoryError. */
IRM_API int irm_pass_list(irm_object **out);

/* Static registration for application code: registers name with factory
 * at start-up and calls setup(kind) (may be NULL) to add options. Inside a
 * plugin's constructors the registration is queued and runs when the
 * plugin is initialised. Errors: as irm_pass_register, and setup's own;
 * each is also reported through the warning handler (a constructor cannot
 * return it). */
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
 * registered option keys (native types only) or NULL; instruments: an Array
 * of instruments or NULL; all borrowed (required, disabled and instruments
 * retained, config copied). *out NEW. Errors: ValueError (negative
 * opt_level), TypeError (an argument of the wrong type or holding items of
 * the wrong type, a config value of the wrong type for its option),
 * AttributeError (an unregistered config key, with the closest one),
 * MemoryError. */
IRM_API int irm_pass_context_new(int opt_level, const irm_object *required, const irm_object *disabled,
                                 const irm_object *config, const irm_object *instruments,
                                 irm_pass_context **out);

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

/* ---- config options ----------------------------------------------------------- */

/* Registers a config option: type is an option type name (kind.h),
 * default_value (borrowed, copied) may be NULL (none), module_attr (may be
 * NULL) is the module attribute it migrates to. Same definition twice is
 * fine. Journaled. Errors: ValueError (NULL or empty key, NULL type, empty
 * module_attr, an unknown type name, with the closest one), TypeError (a
 * default of the wrong type), KeyError (key is registered with a different
 * definition, both described; key is an alias), MemoryError. */
IRM_API int irm_pass_config_register(const char *key, const char *type, const irm_any *default_value,
                                     const char *module_attr);

/* Registers alias as another name of the config option key (TVM's names
 * for irm's options: relay.FuseOps.max_depth for FuseOps.max_depth). A
 * context's config may give either name (once: both is a ValueError) and
 * is checked and migrated as the option's; irm_pass_get_config reads the
 * option under either; irm_pass_config_list lists the alias with
 * "alias_of". Register aliases beside their option (after it). The same
 * alias of the same key again is fine. Journaled: a plugin's aliases go
 * with it. Errors: ValueError (NULL or empty alias or key; key is no
 * registered option, with the closest one; key is itself an alias),
 * KeyError (alias is a registered option, or an alias of another option;
 * registering an option under an existing alias is a KeyError too),
 * MemoryError. */
IRM_API int irm_pass_config_register_alias(const char *alias, const char *key);

/* Marks the config option key deprecated: a PassContext whose config gives
 * it (under any name) warns once per process "DeprecationWarning:
 * PassContext config option '<key>' is deprecated: <hint>", and
 * irm_pass_config_list shows the hint. hint says what to use instead. The
 * same hint again is fine. Journaled: a plugin's deprecations go with it.
 * Errors: ValueError (NULL or empty key or hint; key is an alias; key is no
 * registered option, with the closest one), KeyError (deprecated already
 * with another hint), MemoryError. Migrating an option onto a module
 * attribute is not a deprecation: reading it from the context is silent. */
IRM_API int irm_pass_config_deprecate(const char *key, const char *hint);

/* key -> Map {"type", "default", "module_attr" (or NONE), "alias_of" (the
 * option an alias stands for; NONE for an option), "deprecated" (the hint;
 * NONE when not deprecated)} as a NEW Map: the options in registration
 * order, then the aliases. Errors: MemoryError. */
IRM_API int irm_pass_config_list(irm_object **out);

/* The value of a config option for mod (borrowed; NULL: no module): the
 * module attribute it migrates to, then the current PassContext's config,
 * then the default (NONE when none). *out NEW. Errors: ValueError (NULL
 * key), TypeError (mod is not an ir.IRModule), AttributeError (an
 * unregistered key, with the closest one), MemoryError. */
IRM_API int irm_pass_get_config(const irm_module *mod, const char *key, irm_any *out);

/* The value a pass uses for a setting that is both one of its options and
 * a config option (FuseOps{max_depth=4} and "FuseOps.max_depth"): the pass
 * option when the pipeline (or transform.GetPass) gave it, else
 * irm_pass_get_config(mod, config_key). Declare such pass options without
 * a default, so that "not given" stays visible. options is the pass's
 * option Map (irm_pass_options; may be NULL; borrowed). *out NEW. Errors:
 * ValueError (NULL option), MemoryError, and when the pass option is not
 * given those of irm_pass_get_config. */
IRM_API int irm_pass_setting(const irm_object *options, const char *option, const irm_module *mod,
                             const char *config_key, irm_any *out);

/* ---- instruments ------------------------------------------------------------- */

/* An instrument from function objects (each may be NULL; borrowed,
 * retained): enter() and exit() take no arguments; should_run(mod, info),
 * before(mod, info) and after(mod, info) get the module and the PassInfo
 * Map; should_run returns a bool (any other result is a TypeError). A
 * failing hook's error gains "instrument '<name>' <hook>: " as context.
 * *out NEW. Errors: ValueError (NULL or empty name), TypeError (a hook that
 * is not an ffi.Function), MemoryError. irm_instrument_name: borrowed from
 * inst; NULL when inst is not an instrument. */
IRM_API int irm_instrument_new(const char *name, irm_object *enter, irm_object *exit,
                               irm_object *should_run, irm_object *before, irm_object *after,
                               irm_instrument **out);
IRM_API const char *irm_instrument_name(const irm_instrument *inst);

/* Built-in instruments. A timing instrument; *out NEW. Errors:
 * MemoryError. */
IRM_API int irm_timing_instrument_new(irm_instrument **out);
/* The timing tree: nested passes indented (two spaces a level), one line
 * each, "name: 4.200ms [self 0.006ms] (100.00% of total, 100.00% of
 * parent)"; a pass that failed (its body, ir.Verify or the invariant
 * check) is closed when it fails and its line ends in " failed", so the
 * passes run after it do not nest under it; a pass still running (or
 * whose after hooks failed) reads "name: did not finish";
 * "" when nothing was recorded. Records are cleared when the context is
 * exited. timing is borrowed. *out NEW. Errors: ValueError (NULL timing),
 * TypeError (timing is not a timing instrument), MemoryError. */
IRM_API int irm_timing_render(const irm_instrument *timing, irm_object **out);
/* Prints the module (through ir.Print when it exists, else ffi.Repr)
 * before and/or after the named passes (an Array of Strings; NULL: all
 * passes) to stdout, each under a line "; IR before pass 'Name'" / "; IR
 * after pass 'Name'". Tensors with more than elide_larger_than elements
 * print elided, `const(float32, [32, 64], <elided 2048 elements>)`, by
 * calling ir.Print(mod, {"elide_larger_than": N}); 0 prints every tensor in
 * full (ir.Print(mod)). irm_printing_instrument_new elides above
 * IRM_PRINTING_ELIDE_DEFAULT (16, the limit of ffi.Repr of a module).
 * Without ir.Print the text is ffi.Repr's, which always elides above 16.
 * transform.PassPrintingInstrument defaults: before false, after true,
 * elide_larger_than 16. pass_names is borrowed (retained). *out NEW.
 * Errors: TypeError (pass_names is not an Array of Strings), ValueError
 * (negative elide_larger_than), MemoryError. */
#define IRM_PRINTING_ELIDE_DEFAULT 16
IRM_API int irm_printing_instrument_new(const irm_object *pass_names, int before, int after,
                                        irm_instrument **out);
IRM_API int irm_printing_instrument_new_ex(const irm_object *pass_names, int before, int after,
                                           int64_t elide_larger_than, irm_instrument **out);
/* Runs only the first `limit` optional passes (those not required) and
 * reports each skipped one through the warning handler ("bisect: not
 * running pass #N 'Name' (limit L)"), in the spirit of LLVM's
 * -opt-bisect-limit. Every pass asked about counts, a Sequential too; the
 * count restarts each time a context holding the instrument is entered; a
 * negative limit runs everything. *out NEW. Errors: MemoryError. */
IRM_API int irm_bisect_instrument_new(int64_t limit, irm_instrument **out);

/* ---- reproducers ---------------------------------------------------------------
 * MLIR's crash reproducer for any user of the pass manager: when the
 * config option "pass.reproducer" (str, no default) of the PassContext an
 * outermost irm_pass_run runs under names a file, and the run fails (a
 * pass's error, ir.Verify after it, a changed pass-invariant attribute),
 * the file is written before irm_pass_run returns. It holds, in the
 * library's JSON (irm_to_json of a Map): "irm_reproducer" (format 1),
 * "irm_version", "failed_pass" (the innermost pass that failed), "error"
 * (the run's message), "pipeline" (pipeline text from the failing pass on:
 * each enclosing Sequential keeps its name and opt_level and the passes
 * after it; a pass a Sequential required runs alone), "opt_level",
 * "required", "disabled", "config" (without "pass.reproducer"), "plugins"
 * (the paths loaded) and "module" (irm_to_json of the module as it was
 * before the failing pass, as a str, so that plugins load before it is
 * read). Failures inside a pipeline a pass body runs itself count as the
 * body's. A file that cannot be written warns "no reproducer written:
 * ..."; the run's error stays what irm_pass_run reports. */
#define IRM_PASS_REPRODUCER_CONFIG "pass.reproducer"

/* The config option that switches ir.Verify after each pass (see the top
 * of this file): bool, default true. */
#define IRM_PASS_VERIFY_EACH_CONFIG "pass.verify_each"

/* Reads a reproducer file, loads its plugins (irm_plugin_load), and gives
 * *out, a NEW Map {"module" (IRModule), "pipeline" (Pass), "context" (a
 * PassContext with its settings and no instruments), "failed_pass",
 * "error", "plugins"}. Running pipeline on module under context (entered)
 * fails as the recorded run did. Errors (with "reproducer '<path>'" as
 * context): ValueError (NULL path or out, a file that cannot be read or is
 * no reproducer of format 1), the errors of irm_from_json, irm_plugin_load,
 * irm_pipeline_parse and irm_pass_context_new, MemoryError. Other
 * languages: the global transform.LoadReproducer(path). */
IRM_API int irm_pass_reproducer_load(const char *path, irm_object **out);

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
 * (irm_pass_options) in key order. *out NEW.
 * Errors of irm_pipeline_parse, each as "pipeline '<text>': <what> at
 * position N (did you mean '<closest>'?)": ValueError (NULL text, empty
 * text, syntax, an unbalanced bracket or quote, an unknown pass, a value
 * that does not parse as the option's type, an option given twice,
 * Sequentials nested deeper than 100, a negative Sequential opt_level or a
 * bad name), AttributeError (an unknown option), errors of irm_target_parse
 * for a target option, the errors of irm_pass_get (a required option
 * missing, the factory's own), MemoryError.
 * Errors of irm_pipeline_print: TypeError (pass is not a transform.Pass),
 * ValueError (an option value without a text form, such as a map), errors
 * of irm_target_as_string, MemoryError. */
IRM_API int irm_pipeline_parse(const char *text, irm_pass **out);
IRM_API int irm_pipeline_print(const irm_pass *pass, irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
