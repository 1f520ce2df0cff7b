/* IRModule: global functions plus typed module attributes (docs/architecture.md, "The IRModule").
 *
 * An IRModule ("ir.IRModule") holds global functions (name -> an object of
 * type "ir.BaseFunc" or a subtype, in insertion order) and a DictAttrs of
 * module attributes. The compilation configuration lives there: `target`
 * (a Target, or an Array of Targets of different device kinds for a
 * heterogeneous build; typed "target|array<target>"), `executor`
 * (Executor), `runtime` (Runtime), `mod_name` (str) and `params` (Map name
 * -> constant), so passes read it with GetAttr. The typed view of all of
 * them together is the backend's CompilationConfig (build.h).
 *
 * Copy-on-write (docs/architecture.md): `*_with_*` functions return a NEW module
 * and leave their argument as it was; `*_move` functions take `irm_module
 * **` the caller owns and change the module in place when the caller holds
 * the only reference (else they replace *ref with a changed copy and
 * release the caller's reference to the old one). On failure *ref is left
 * untouched.
 *
 * Typed keys: module attribute keys (and function attribute keys) can be
 * registered with a value type and a pass-invariant flag. A registered key
 * refuses a value of another type (TypeError naming the key, the expected
 * and the given type); an unregistered key takes any value. Value types are
 * written as an option type name of kind.h ("str", "int", "bool", "float",
 * "map", "array<str>", "array<int>", "target"), as a union of two option
 * type names ("target|array<target>": a value either accepts; TypeError
 * "expected target or array<target>, got ..." otherwise) or as a
 * registered object type key ("ir.Executor", "ir.Runtime", ...).
 *
 * Freezing: irm_module_freeze returns a frozen module, and every module
 * derived from a frozen one is frozen too. Pass-invariant keys (`target`,
 * `executor`, `runtime`, `mod_name`) of a frozen module cannot be set or
 * removed (RuntimeError naming the key and saying the module is frozen);
 * other keys can. The pass manager uses irm_module_check_invariants to fail
 * a pass that changed one.
 *
 * Functions: every ir.BaseFunc subtype's payload starts with an
 * irm_base_func_head, which holds the function's own attributes (a
 * DictAttrs), so modules and passes can read `global_symbol`, `Compiler`,
 * ... of any function; and every subtype has to_fields/from_fields hooks
 * listing those attributes under "attrs" (for JSON, equality and
 * irm_base_func_with_attr).
 *
 * Fields (JSON, structural equality and hashing): an IRModule is
 * {"functions": Map, "attrs": DictAttrs, "frozen": bool} (functions compare
 * as a name -> function set; a frozen module never equals an unfrozen one);
 * a DictAttrs is {"map": Map}. Reading a module back checks its attributes
 * against the key registry as it is then. irm_repr prints
 * ir.IRModule(functions={"main": ...}, attrs={"executor": ...}), with
 * ", frozen=true" added for a frozen module.
 *
 * Globals (docs/globals.md): ir.IRModule, ir.ModuleGetAttr, ir.ModuleWithAttr,
 * ir.ModuleWithoutAttr, ir.ModuleAttrs, ir.ModuleFreeze, ir.ModuleIsFrozen,
 * ir.ListModuleAttrKeys, ir.RegisterModuleAttrKey; and beyond the table:
 * ir.ModuleFunctionNames (mod -> Array of str), ir.ModuleGetFunction (mod,
 * name -> function or NONE), ir.ModuleWithFunction (mod, name, function ->
 * IRModule), ir.ModuleWithoutFunction (mod, name -> IRModule),
 * ir.ListFuncAttrKeys (-> Map key -> type), ir.RegisterFuncAttrKey (key,
 * type -> NONE), ir.FuncGetAttr (function, key -> value or NONE) and
 * ir.FuncWithAttr (function, key, value -> function). Every one that gives
 * a module or function gives a new one.
 *
 * Thread safety: modules, DictAttrs and functions are immutable once
 * shared; any number of threads may read one module. The key registries are
 * safe for concurrent lookup and registration (a reader-writer lock that
 * prefers writers; no user code runs under it) and are journaled: a
 * rollback removes a key registered inside the journal.
 */
#ifndef IRM_MODULE_H
#define IRM_MODULE_H

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef irm_object irm_module;

/* Built-in module attribute keys (TVM's kTarget, kExecutor, kRuntime). */
#define IRM_ATTR_TARGET "target"
#define IRM_ATTR_EXECUTOR "executor"
#define IRM_ATTR_RUNTIME "runtime"
#define IRM_ATTR_MOD_NAME "mod_name"
#define IRM_ATTR_PARAMS "params"

/* Built-in function attribute keys. */
#define IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL "global_symbol"
#define IRM_BASE_FUNC_ATTR_TARGET "target"
#define IRM_BASE_FUNC_ATTR_CALLING_CONV "calling_conv"
#define IRM_BASE_FUNC_ATTR_PRIMITIVE "Primitive"
#define IRM_BASE_FUNC_ATTR_COMPILER "Compiler"
#define IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION "SkipOptimization"

/* ---- DictAttrs ("ir.DictAttrs"): an immutable attribute dictionary ------ */

/* A DictAttrs holding a copy of map's entries (map may be NULL: empty).
 * The values are not checked against the key registries: a DictAttrs does
 * not know whose attributes it holds. *out NEW. Errors: TypeError when map
 * is not a Map, MemoryError. */
IRM_API int irm_dict_attrs_new(const irm_object *map, irm_object **out);

/* The entries as a Map, borrowed from attrs (do not change it); NULL when
 * attrs is not a DictAttrs. */
IRM_API const irm_object *irm_dict_attrs_map(const irm_object *attrs);

/* ---- functions ("ir.BaseFunc") ----------------------------------------- */

/* The start of every ir.BaseFunc subtype's payload. attrs is a DictAttrs
 * owned by the function (never NULL once made; release it in finalize). */
typedef struct irm_base_func_head {
  irm_object *attrs;
} irm_base_func_head;

/* The type index of "ir.BaseFunc", for irm_type_info.parent_key users who
 * need it; registered when irm starts (this call starts irm). -1 when irm
 * could not start (out of memory; irm_last_error() says so). */
IRM_API int32_t irm_base_func_type(void);

/* A function's attributes (a DictAttrs), borrowed; NULL when f is not an
 * ir.BaseFunc. */
IRM_API const irm_object *irm_base_func_attrs(const irm_object *f);

/* A function attribute as a NEW value; NONE when unset (or f is not an
 * ir.BaseFunc). ValueError for NULL key or out. */
IRM_API int irm_base_func_get_attr(const irm_object *f, const char *key, irm_any *out);

/* A copy of f with function attribute key set to value, made through f's
 * type's to_fields/from_fields hooks with the "attrs" field changed (every
 * ir.BaseFunc subtype provides both hooks and lists its attributes, a
 * DictAttrs, under "attrs"; a subtype that lists none gets a DictAttrs).
 * Registered function attribute keys are type-checked; values are stored
 * as irm_module_with_attr stores them. f is unchanged. *out NEW. Errors:
 * TypeError (not an ir.BaseFunc; wrong value type; "attrs" of another
 * type; from_fields giving no ir.BaseFunc), RuntimeError (the type lacks
 * the hooks), the hooks' own errors, ValueError (NULL arguments),
 * MemoryError. */
IRM_API int irm_base_func_with_attr(const irm_object *f, const char *key, const irm_any *value, irm_object **out);

/* ---- which functions passes leave alone -------------------------------- */

/* The checks irm_base_func_should_skip makes (bits; combine with |). */
#define IRM_SKIP_PRIMITIVE 1u    /* `Primitive` nonzero: already fused */
#define IRM_SKIP_COMPILER 2u     /* `Compiler` set: for an external code generator */
#define IRM_SKIP_OPTIMIZATION 4u /* `SkipOptimization` nonzero */
#define IRM_SKIP_DEFAULT (IRM_SKIP_PRIMITIVE | IRM_SKIP_COMPILER | IRM_SKIP_OPTIMIZATION)

/* 1 when func's attributes tell passes to leave it alone by one of the
 * checks flags selects, else 0. This is irm's one skip rule: the pass
 * manager's function passes (irm_function_pass_new, _from_func and
 * irm_function_pass_apply in pass.h) skip with IRM_SKIP_DEFAULT, so do the
 * built-in IR passes (for module functions and nested function literals
 * alike), and so should a pass of a plugin that walks functions itself.
 *
 * The checks are TVM's:
 * - IRM_SKIP_COMPILER: `Compiler` is set, to any value but NONE; an empty
 *   string counts too (TVM's GetAttr<String>(kCompiler).defined(): presence
 *   marks a function that an external code generator compiles);
 * - IRM_SKIP_OPTIMIZATION: `SkipOptimization` is nonzero;
 * - IRM_SKIP_PRIMITIVE: `Primitive` is nonzero (TVM's function-pass loop
 *   tests only the first two and each Relay pass leaves Primitive functions
 *   alone itself; irm puts all three in the one rule);
 * where nonzero means a bool true or an int other than 0 (TVM reads both
 * flags as an Integer). false, 0, an absent attribute, and a value of any
 * other type (a registered key refuses one, so only a DictAttrs made with
 * irm_dict_attrs_new can hold it) do not mark the function.
 *
 * func is borrowed. Never fails and sets no error: NULL or an object that
 * is not an ir.BaseFunc has no attributes, so it gives 0; bits of flags
 * beyond IRM_SKIP_DEFAULT are ignored. Any thread. */
IRM_API int irm_base_func_should_skip(const irm_object *func, unsigned flags);

/* ---- IRModule ("ir.IRModule") ------------------------------------------ */

/* A module from functions (Map name -> ir.BaseFunc; NULL: none) and attrs
 * (Map key -> value; NULL: none), in their insertion order. Registered
 * attribute keys are checked and their values stored as
 * irm_module_with_attr stores them. The module is not frozen. Changing the
 * Maps afterwards does not change the module. *out NEW. Errors: TypeError
 * (not a Map, a function that is not an ir.BaseFunc, an attribute of the
 * wrong type), ValueError (an empty function name), MemoryError. */
IRM_API int irm_module_new(const irm_object *functions, const irm_object *attrs, irm_module **out);

/* ---- functions of a module ---- */

/* The number of functions (0 when mod is not an IRModule); the function
 * called name (borrowed; NULL when absent); the names in insertion order
 * as a NEW Array of Strings (TypeError when mod is not an IRModule;
 * MemoryError). */
IRM_API size_t irm_module_function_count(const irm_module *mod);
IRM_API irm_object *irm_module_function(const irm_module *mod, const char *name);
IRM_API int irm_module_function_names(const irm_module *mod, irm_object **out);

/* Adds or replaces (keeping its position) / removes a function. The
 * result keeps mod's attributes and frozen flag (functions may change in a
 * frozen module). Errors: TypeError (mod not an IRModule, func not an
 * ir.BaseFunc), ValueError (NULL or empty name), KeyError when removing an
 * absent name, with the closest name, MemoryError. */
IRM_API int irm_module_with_function(const irm_module *mod, const char *name, irm_object *func, irm_module **out);
IRM_API int irm_module_without_function(const irm_module *mod, const char *name, irm_module **out);
IRM_API int irm_module_set_function_move(irm_module **ref, const char *name, irm_object *func);
IRM_API int irm_module_remove_function_move(irm_module **ref, const char *name);

/* ---- module attributes ---- */

/* A module attribute as a NEW value; NONE when unset. Errors: TypeError
 * (mod not an IRModule), ValueError (NULL key or out). */
IRM_API int irm_module_get_attr(const irm_module *mod, const char *key, irm_any *out);

/* The attributes as a DictAttrs, borrowed from mod. */
IRM_API const irm_object *irm_module_attrs(const irm_module *mod);

/* Typed accessors: the attribute, borrowed from mod, or NULL when unset (or
 * mod is not an IRModule). irm_module_target gives the Target only when
 * the attribute holds one Target (NULL for an Array of them; ask
 * irm_module_compilation_config, build.h, for every target).
 * irm_module_mod_name gives the String's characters. */
IRM_API irm_object *irm_module_target(const irm_module *mod);
IRM_API irm_object *irm_module_executor(const irm_module *mod);
IRM_API irm_object *irm_module_runtime(const irm_module *mod);
IRM_API const char *irm_module_mod_name(const irm_module *mod);
IRM_API irm_object *irm_module_params(const irm_module *mod);

/* Sets / removes a module attribute; the result keeps mod's functions and
 * frozen flag. The value is stored as given (objects retained, an IRM_STR
 * as a String); a key registered with an option type stores the value
 * irm_option_check_value gives (an int 0/1 for a bool key becomes a bool).
 * The frozen check comes first, then the type. Errors: TypeError (mod not
 * an IRModule; a registered key given the wrong type: "module attribute
 * 'executor': expected ir.Executor, got ir.Runtime"), RuntimeError (a
 * pass-invariant key of a frozen module), KeyError (removing an absent key,
 * with the closest one), ValueError (NULL arguments), MemoryError. */
IRM_API int irm_module_with_attr(const irm_module *mod, const char *key, const irm_any *value, irm_module **out);
IRM_API int irm_module_without_attr(const irm_module *mod, const char *key, irm_module **out);
IRM_API int irm_module_set_attr_move(irm_module **ref, const char *key, const irm_any *value);
IRM_API int irm_module_remove_attr_move(irm_module **ref, const char *key);

/* ---- freezing ---- */

/* A frozen module with mod's content (mod itself, retained, when it is
 * frozen already); mod stays as it was. *out NEW. Errors: TypeError when
 * mod is not an IRModule, MemoryError. irm_module_is_frozen: nonzero for a
 * frozen module, 0 otherwise (also when mod is not an IRModule). */
IRM_API int irm_module_freeze(const irm_module *mod, irm_module **out);
IRM_API int irm_module_is_frozen(const irm_module *mod);

/* Compares the pass-invariant attributes of two modules in time
 * proportional to the number of such keys (pointer equality first, then
 * structural equality). An absent attribute equals NONE. *differing_key:
 * NULL when all are equal, else the first key that differs, in
 * registration order (a string owned by the key registry, valid for the
 * process). Errors: TypeError (either is not an IRModule), ValueError
 * (NULL differing_key), errors of structural equality. */
IRM_API int irm_module_check_invariants(const irm_module *before, const irm_module *after, const char **differing_key);

/* ---- attribute key registries ---- */

/* Registers a module attribute key with a value type (see top) and a
 * pass-invariant flag. Registering an existing key with the same type and
 * flag succeeds; a different definition is a KeyError naming the key and
 * both definitions. ValueError for an empty key, a NULL type or an unknown
 * type name (with the closest one), MemoryError. Modules made before keep
 * the values they have. Journaled. */
IRM_API int irm_module_attr_register(const char *key, const char *value_type, int pass_invariant);

/* The registered module attribute keys as a NEW Map key -> type name, in
 * registration order. Errors: ValueError (NULL out), MemoryError. */
IRM_API int irm_module_attr_list(irm_object **out);

/* The registered module attribute keys as a NEW Map key -> Map
 * {"type": type name, "pass_invariant": bool}, in registration order (what
 * `irm list module-attrs` prints). Errors: ValueError (NULL out),
 * MemoryError. Thread safe. */
IRM_API int irm_module_attr_describe(irm_object **out);

/* The same for function attribute keys (no pass-invariant flag), with the
 * same errors as their module counterparts. */
IRM_API int irm_base_func_attr_register(const char *key, const char *value_type);
IRM_API int irm_base_func_attr_list(irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
