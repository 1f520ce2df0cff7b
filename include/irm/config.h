/* Executor and Runtime config objects (docs/architecture.md, "Kinds").
 *
 * An Executor says how a compiled module runs (`graph`, `aot`, `vm`); a
 * Runtime says what it links against (`cpp`, `crt`). Each is a kind name
 * plus a Map of attributes validated against that kind's option schema in
 * the "executor" or "runtime" kind registry (kind.h):
 *
 *   irm_executor *e;
 *   irm_executor_create("aot", opts, &e);       // opts: {"unpacked-api": true}
 *   irm_executor_from_map(config, &e);          // {"kind": "aot", "unpacked-api": false}
 *
 * Types: "ir.Executor" and "ir.Runtime", both subtypes of "ir.Config" (so
 * irm_object_is(x, "ir.Config") accepts either, and the irm_config_*
 * accessors below serve both). They round-trip through JSON and compare
 * structurally through their fields {"kind": str, "attrs": Map}; reading
 * them back validates them again.
 *
 * Validation when an object is made, in this order:
 *   1. the kind must be registered: ValueError "unknown executor kind 'aott'
 *      (did you mean 'aot'?); registered kinds: aot, graph, vm";
 *   2. every given key must be an option of the kind: AttributeError
 *      "executor 'aot' has no option 'unpacked_api' (did you mean
 *      'unpacked-api'?)";
 *   3. every value must have the option's native type (a bool option also
 *      takes int 0/1; text such as "true" is not parsed): TypeError
 *      "executor 'aot' option 'link-params': expected bool, got str 'yes'";
 *   4. required options must be given (ValueError), defaults are filled in;
 *   5. the kind's "FValidate" attribute, when it has one, is called with the
 *      validated attrs Map; a nonzero status rejects the options and its
 *      message gains the kind as context ("ValueError: executor 'aot':
 *      option 'interface-api' must be "packed" or "c", got 'cpp'"). Plugin
 *      kinds set FValidate with irm_kind_set_attr to add their own checks.
 *
 * Built-in kinds:
 *   executor graph {link-params: bool = false}
 *   executor aot   {link-params: bool = true, unpacked-api: bool = false,
 *                   interface-api: str = "packed" ("packed" or "c"),
 *                   workspace-byte-alignment: int = 16,
 *                   constant-byte-alignment: int = 16 (powers of two)}
 *   executor vm    {}
 *   runtime  cpp   {system-lib: bool = false}
 *   runtime  crt   {system-lib: bool = false}
 *
 * Ownership: objects returned through out-parameters and values written to
 * an irm_any are NEW references; arguments are borrowed. Strings and Maps
 * returned as pointers (irm_config_kind_name, irm_config_attrs) are borrowed from
 * the config object and live as long as it does.
 *
 * Thread safety: config objects are immutable, so any number of threads may
 * read and share them. Creating them is safe from any thread, concurrently
 * with kind registration; no irm lock is held while FValidate runs.
 */
#ifndef IRM_CONFIG_H
#define IRM_CONFIG_H

#include "irm/kind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Typed aliases: every config is an irm_object. */
typedef irm_object irm_executor;
typedef irm_object irm_runtime;

/* ---- making config objects ------------------------------------------------ */

/* Makes an Executor of the registered executor kind `kind` with the given
 * options (an ffi.Map option -> value; NULL means none), validated and with
 * defaults filled in (see the top of this file). *out: NEW reference.
 * Errors: ValueError (NULL kind or out, unknown kind, a missing required
 * option, FValidate's rejection), AttributeError (unknown option), TypeError
 * (options not a Map, a value of the wrong type), MemoryError. */
IRM_API int irm_executor_create(const char *kind, const irm_object *options, irm_executor **out);

/* Makes an Executor from one Map holding "kind" and the options, the RFC's
 * Executor({"kind": "aot", "unpacked-api": False}). Errors as
 * irm_executor_create, plus ValueError when "kind" is missing and TypeError
 * when it is not a str (or config is not a Map). */
IRM_API int irm_executor_from_map(const irm_object *config, irm_executor **out);

/* The same for Runtimes (the "runtime" kind registry, type "ir.Runtime"),
 * with the same errors as the Executor functions. */
IRM_API int irm_runtime_create(const char *kind, const irm_object *options, irm_runtime **out);
IRM_API int irm_runtime_from_map(const irm_object *config, irm_runtime **out);

/* ---- reading config objects ------------------------------------------------ */

/* The kind name ("aot"), borrowed from cfg; NULL when cfg is not an
 * Executor or Runtime. */
IRM_API const char *irm_config_kind_name(const irm_object *cfg);

/* The kind's registry handle (kind.h), valid for the process; NULL when cfg
 * is not an Executor or Runtime. Lets callers read the kind's attributes
 * (irm_kind_get_attr) for an object they were given. */
IRM_API irm_kind *irm_config_kind(const irm_object *cfg);

/* The validated attributes, option -> value in schema order, every option
 * that is set or has a default; borrowed from cfg (do not change it: it is
 * shared; retain it to keep it longer). NULL when cfg is not a config. */
IRM_API const irm_object *irm_config_attrs(const irm_object *cfg);

/* The value of option key as a NEW value; NONE when the kind has the option
 * but it is not set (no default, not given).
 * Errors: TypeError (cfg not an Executor or Runtime), ValueError (NULL key
 * or out), AttributeError when the kind has no such option, with the
 * closest option name. */
IRM_API int irm_config_get_attr(const irm_object *cfg, const char *key, irm_any *out);

/* ---- registering kinds from a description ----------------------------------- */

/* Registers kind `name` in `category` ("executor", "runtime", or any other
 * kind category) with the options described by spec, an ffi.Map option ->
 * either a type name ("bool", "array<str>", ...; see kind.h) or a Map
 * {"type": str, "default": value, "doc": str, "required": bool} where only
 * "type" is needed. This is what the `executor.RegisterKind` and
 * `runtime.RegisterKind` globals do. spec may be NULL (no options).
 *
 * Registering a kind that exists is fine when every option spec describes
 * is either new (it is added) or has the same type, default and required
 * flag as the registered one (the doc is informational and not compared).
 * All-or-nothing: on any error nothing is registered (a journal is opened
 * around the work and rolled back).
 * Errors: KeyError for an existing option defined differently (naming the
 * kind, the option, both definitions), ValueError (bad names, unknown type
 * names with the closest one, a required option with a default), TypeError
 * (spec entries of the wrong type, a default not of the option's type),
 * AttributeError (an unknown key in an option description, with the closest
 * one), MemoryError. Thread safety: as kind.h; two threads registering the
 * same kind with the same options both succeed. */
IRM_API int irm_config_register_kind(const char *category, const char *name, const irm_object *spec);

#ifdef __cplusplus
}
#endif

#endif
