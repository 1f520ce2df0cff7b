/* Targets: what code is compiled for (docs/architecture.md, "Kinds").
 *
 * A Target is an object of type "target.Target": a target kind (a kind of
 * the "target" category of kind.h, such as llvm, c or cuda), its options
 * (validated against the kind's schema, defaults filled in) and an optional
 * host Target. Every target kind has the options keys (array<str>), tag,
 * device, model (str), libs (array<str>), host (target) and from_device
 * (int) besides its own; kinds registered at any time get them too.
 *
 * A target's keys are the keys the user gave, then its device, then the
 * kind's default keys, without duplicates, in that order.
 *
 * Kind attributes (kind.h) that targets read; a kind without them has
 * none:
 * - "default_keys": an Array of Strings (llvm, c: cpu; cuda: cuda, gpu;
 *   rocm: rocm, gpu; ...).
 * - "FValidate": a Function (kind name: str, options: Map) that fails to
 *   reject values the schema cannot express (cuda's arch must start with
 *   "sm_", rocm's mcpu with "gfx"). It runs on every new Target.
 * - "device_type": DLPack's device type code (llvm 1, cuda 2, ...), for
 *   code generators.
 *
 * Targets come from three forms, all giving equal targets for the same
 * content:
 * - text, TVM's rules: "llvm -mcpu=cortex-a72 -mattr=+neon,+dsp
 *   --host='llvm -mtriple=aarch64-linux-gnu'". Words split on whitespace;
 *   single quotes group ('a b'), \' is a literal quote and \\ a literal
 *   backslash. The first word is a kind or a tag name; options are
 *   -key=value, --key=value, -key value (when the next word does not start
 *   with '-') or a bare -flag (true; bool options only). Values parse into
 *   the option's type (bool: 1/0/true/false in any case; arrays split on
 *   commas). An option given twice is an error. Options after a tag name
 *   replace the tag's values.
 * - a Map config: {"kind": "llvm", "mcpu": "cortex-a72", "host": ...};
 *   values must have their native types (kind.h), except that host, any
 *   other target option and every item of an array<target> option may be
 *   text, a tag name, a Map or a Target.
 * - JSON text: text whose first non-space character is '{' is the Map
 *   config written as a JSON object ('{"kind": "llvm", "mcpu": "a"}'), as
 *   TVM reads it; objects are Maps, arrays Arrays, numbers ints or floats,
 *   and a member set to null is not given. Malformed JSON is a ValueError
 *   with jansson's line and column.
 * - a tag name: a registered, named target ("nvidia/jetson-nano"); its
 *   Target records the tag in its "tag" option.
 *
 * The "composite" kind (TVM's) is made of other targets: its "devices"
 * option (array<target>) holds them, usually given as a Map config or JSON
 * text ({"kind": "composite", "devices": ["llvm", {"kind": "cuda"}]}). In
 * target text an array<target> value is a comma-separated list of target
 * strings, each quoted as an array<str> item is
 * (composite -devices='llvm -mcpu=a',cuda); AsString prints it that way.
 *
 * Executor and runtime options (executor, runtime, system-lib, link-params,
 * unpacked-api, interface-api, workspace-byte-alignment,
 * constant-byte-alignment) are not target options: they are AttributeErrors
 * naming the Executor or Runtime that owns them, except in
 * irm_target_convert_legacy, which turns them into an Executor and a
 * Runtime.
 *
 * Targets are immutable. Structural equality, hashing and JSON work through
 * the fields {kind, attrs, host}; irm_repr prints target.Target("<the
 * canonical string>").
 *
 * Ownership follows c_api.h: out-parameters are NEW references, arguments
 * are borrowed; exceptions are marked "borrowed" below.
 *
 * Thread safety: every function may be called from any thread. Targets may
 * be shared freely; the tag registry is guarded by a reader-writer lock and
 * records its registrations in the registration journal (journal.h).
 */
#ifndef IRM_TARGET_H
#define IRM_TARGET_H

#include "irm/kind.h"
#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A Target is an object; the alias documents intent. */
typedef irm_object irm_target;

/* The type key of Target objects. */
#define IRM_TARGET_TYPE_KEY "target.Target"

/* How deeply hosts may nest (a host with a host ...); deeper is a
 * ValueError. */
#define IRM_TARGET_MAX_DEPTH 8

/* ---- making targets ------------------------------------------------------ */

/* Parses target text (see top of file) or a tag name. *out NEW.
 * Errors (each naming the option, the value and the expected type, with
 * the target text as context): ValueError for empty text, an unbalanced
 * quote, an unknown kind or tag (listing the kinds, suggesting the
 * closest), a word that is not an option, a value that does not parse
 * ("expected int, got 'abc'"), a bare flag of a non-bool option, an option
 * given twice; AttributeError for an unknown option (suggesting the closest
 * option, or pointing to the Executor or Runtime for their options);
 * MemoryError. */
IRM_API int irm_target_parse(const char *text, irm_target **out);

/* Makes a target from a Map config. "kind" is required (ValueError naming
 * it); every other key must be an option of the kind (AttributeError with
 * the closest option) with a value of its type (TypeError naming option,
 * expected and given type). "host" may be text, a tag name, a Map or a
 * Target. *out NEW. Errors also: those of irm_target_parse for a text host,
 * MemoryError. */
IRM_API int irm_target_from_config(const irm_object *config, irm_target **out);

/* The general constructor behind the global target.Target: spec is text or
 * a tag name (IRM_STR or a String), a Map config or a Target (given back,
 * retained); host (NULL or NONE: keep the target's own host) is text, a tag
 * name, a Map or a Target and replaces the target's host. *out NEW.
 * TypeError for other values; otherwise the errors of irm_target_parse and
 * irm_target_from_config, MemoryError. */
IRM_API int irm_target_create(const irm_any *spec, const irm_any *host, irm_target **out);

/* A copy of target with host replaced (host NULL: without a host). *out
 * NEW; target is unchanged. TypeError unless both are Targets; ValueError
 * when hosts would nest deeper than IRM_TARGET_MAX_DEPTH; MemoryError. */
IRM_API int irm_target_with_host(const irm_target *target, const irm_target *host, irm_target **out);

/* ---- reading targets ----------------------------------------------------- */

/* Nonzero when o is a Target. */
IRM_API int irm_is_target(const irm_object *o);

/* The kind's name; borrowed, valid for the process. NULL if t is not a
 * Target. */
IRM_API const char *irm_target_kind_name(const irm_target *t);

/* The kind handle (kind.h); borrowed, valid for the process. NULL if t is
 * not a Target. */
IRM_API irm_kind *irm_target_kind(const irm_target *t);

/* The value of an option as a NEW value: NONE when the option is not set;
 * "host" gives the host Target (or NONE). AttributeError for a name that
 * is no option of the kind (with the closest option, or pointing to the
 * Executor or Runtime for their options); TypeError if t is not a Target. */
IRM_API int irm_target_get_attr(const irm_target *t, const char *key, irm_any *out);

/* The host Target, borrowed from t; NULL when t has none (or is not a
 * Target). */
IRM_API irm_target *irm_target_host(const irm_target *t);

/* The target's keys (an Array of Strings, maybe empty), borrowed from t;
 * NULL if t is not a Target. */
IRM_API const irm_object *irm_target_keys(const irm_target *t);

/* Every set option (defaults filled, keys included, host excluded) as a
 * Map, borrowed from t; NULL if t is not a Target. */
IRM_API const irm_object *irm_target_attrs(const irm_target *t);

/* ---- printing -------------------------------------------------------------- */

/* The canonical text: the kind, then every set option sorted by name
 * (quoted where needed), then the host as --host='...'. Parsing it gives an
 * equal Target. *out a NEW String. ValueError for an option of type map
 * (which has no text form); TypeError if t is not a Target; MemoryError. */
IRM_API int irm_target_as_string(const irm_target *t, irm_object **out);

/* The Map config: "kind", every set option, and "host" as a nested Map
 * config; other Targets in options (target and array<target>) become
 * nested Map configs too. irm_target_from_config of it gives an equal
 * Target. *out NEW. Errors: TypeError (t is not a Target), MemoryError. */
IRM_API int irm_target_export(const irm_target *t, irm_object **out);

/* ---- the target scope -------------------------------------------------------
 * Each thread has a stack of entered targets (TVM's `with Target(...)`);
 * code that needs "the target" without being given one asks for the
 * innermost. Targets stay entered until exited; those still entered when
 * their thread exits are released then. All three functions touch only the
 * calling thread's stack. */

/* Enters t's scope: t (borrowed; the scope keeps its own reference)
 * becomes the current target. TypeError if t is not a Target; MemoryError
 * leaves the stack as it was. */
IRM_API int irm_target_enter_scope(irm_target *t);

/* Leaves t's scope. RuntimeError, changing nothing, when t is not the
 * innermost entered target (or nothing is entered); TypeError if t is not
 * a Target. */
IRM_API int irm_target_exit_scope(irm_target *t);

/* The innermost entered target as a NEW reference, or *out NULL (status 0)
 * when the thread has entered none. ValueError for a NULL out. */
IRM_API int irm_target_current(irm_target **out);

/* ---- legacy target strings ------------------------------------------------
 * Converts a target string that still carries executor and runtime options
 * (TVM 0.9's rules): the options are read from the target's host if it has
 * one, otherwise from the target (options of the other are ignored, with a
 * warning). -executor=X gives Executor X; -interface-api, -unpacked-api,
 * -workspace-byte-alignment and -constant-byte-alignment go into the
 * Executor; -link-params is copied only when true and the executor is not
 * aot; sub-options without -executor give a "graph" Executor. -runtime=c
 * gives "crt" (other names pass through); -system-lib goes into the
 * Runtime ("cpp" unless -runtime says otherwise). Each legacy option emits
 * one deprecation warning (irm_warn) naming it and its replacement.
 * Executors and Runtimes are made by the globals "executor.Create" and
 * "runtime.Create".
 *
 * host_text (may be NULL) replaces the target's own host and is then where
 * the options are read from (driver.Build's target_host). *target receives
 * a NEW Target without legacy options; *executor and *runtime NEW objects,
 * or NULL when the text implies none. Any of the three out-parameters may
 * be NULL. Errors: as irm_target_parse, and those of executor.Create and
 * runtime.Create (for example an option the Executor kind lacks). */
IRM_API int irm_target_convert_legacy(const char *text, const char *host_text, irm_target **target,
                                      irm_object **executor, irm_object **runtime);

/* ---- tags ------------------------------------------------------------------- */

/* Registers a tag: a name for the target config (a Map as for
 * irm_target_from_config; it must make a valid Target now). The tag's
 * Target records the name in its "tag" option unless the config gives one.
 * Registering a name again with a config that gives an equal Target
 * succeeds; with another it is a KeyError unless override is nonzero. ValueError for names
 * that are empty, contain spaces, quotes or backslashes, start with '-', or
 * name a target kind; errors of irm_target_from_config for the config;
 * MemoryError. Recorded in the open registration journal, if any. */
IRM_API int irm_target_tag_register(const char *name, const irm_object *config, int override);

/* The tag's Target as a NEW reference, or *out NULL (status 0) when no tag
 * has that name. Errors: ValueError (NULL name or out), MemoryError (irm
 * could not start). */
IRM_API int irm_target_tag_find(const char *name, irm_target **out);

/* The tag's config Map (with "tag" filled in) as a NEW reference, or *out
 * NULL (status 0) when no tag has that name. Errors as
 * irm_target_tag_find. */
IRM_API int irm_target_tag_config(const char *name, irm_object **out);

/* The names of every tag, sorted, as a NEW Array of Strings. Errors:
 * ValueError (NULL out), MemoryError. */
IRM_API int irm_target_tag_list(irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
