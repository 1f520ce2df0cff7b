/* Kind registries: one generic attribute registry for every category of
 * configurable thing ("target", "executor", "runtime", later "op"; plugins
 * may add more).
 *
 * A kind has a name, an ordered option schema (name, type, optional
 * default, one-line doc, required flag) and kind attributes (attribute name
 * -> value with a priority level). Config objects (Target, Executor,
 * Runtime) are validated against their kind's schema when they are made.
 *
 * Priority levels follow TVM's attribute registry: setting the same
 * attribute of the same kind twice at the same level is an error; a higher
 * level replaces the value; a lower level is ignored; reset clears it.
 * Asking for an attribute that no kind of the category ever had is an
 * AttributeError; a kind without a value for a known attribute gives NONE.
 *
 * Every registration (category, kind, option, attribute) is recorded in the
 * registration journal, so a rollback removes a kind with its options and
 * attributes, or just the options/attributes added inside the journal.
 *
 * Thread safety: all functions may be called from any thread; the registry
 * is guarded by a reader-writer lock that prefers writers. irm_kind handles
 * stay valid for the life of the process (a rolled-back kind is detached:
 * lookups no longer find it, and registering on it is a RuntimeError).
 */
#ifndef IRM_KIND_H
#define IRM_KIND_H

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Option types. The first seven hold plain values; the others hold
 * objects of the layer that provides them (target.h), which registers them
 * with its built-ins, so their names and checks work once any registry has
 * been used (the functions below see to that). */
typedef enum irm_option_type {
  IRM_OPTION_BOOL,        /* "bool": bool, or int 0/1 */
  IRM_OPTION_INT,         /* "int" */
  IRM_OPTION_FLOAT,       /* "float": float, or int (widened) */
  IRM_OPTION_STR,         /* "str" */
  IRM_OPTION_ARRAY_STR,   /* "array<str>": Array of Strings */
  IRM_OPTION_ARRAY_INT,   /* "array<int>": Array of ints */
  IRM_OPTION_MAP,         /* "map": a Map */
  IRM_OPTION_TARGET,      /* "target": a target.Target object */
  IRM_OPTION_ARRAY_TARGET /* "array<target>": Array of target.Target objects */
} irm_option_type;

/* "bool", "int", ... for a type; NULL for an invalid value. Static. */
IRM_API const char *irm_option_type_name(irm_option_type type);

/* Parses a type name. ValueError naming the text and listing the types,
 * with the closest one. */
IRM_API int irm_option_type_parse(const char *name, irm_option_type *out);

/* Checks a value given in native form (C, a Map from JSON or Python) for
 * an option of this type and returns it as stored: *out a NEW value (a
 * bool option given int 0/1 becomes a bool; a float option given an int
 * becomes a float; a str given as IRM_STR becomes a String).
 * TypeError "expected int, got str 'four'", naming the value given as the
 * typed readers of object.h do (callers add which option), MemoryError. */
IRM_API int irm_option_check_value(irm_option_type type, const irm_any *value, irm_any *out);

/* Parses text (from a target string or pipeline text) into a
 * value of the type: bool takes 1/0/true/false in any case; array types
 * split on commas (single quotes group, \' escapes); map is an error (no
 * text form); target is returned as a String for the caller to parse, and
 * array<target> as an Array of Strings (split as array<str>).
 * *out a NEW value. ValueError "expected int, got 'abc'", MemoryError. */
IRM_API int irm_option_parse_text(irm_option_type type, const char *text, irm_any *out);

typedef struct irm_kind irm_kind;

/* Creates a category (idempotent). ValueError for NULL/empty names,
 * MemoryError. */
IRM_API int irm_kind_category_register(const char *category);

/* Registers a kind in a category (created if needed), or returns the
 * existing one. *out (may be NULL) is borrowed, valid for the process.
 * Errors: ValueError (NULL or empty category or name), the error of the
 * category's prepare function (irm_kind_category_set_prepare; the kind is
 * then not registered), MemoryError. */
IRM_API int irm_kind_register(const char *category, const char *name, irm_kind **out);

/* Finds a kind. ValueError "unknown executor kind 'aott' (did you mean
 * 'aot'?); registered kinds: aot, graph, vm"; ValueError for an unknown
 * category or NULL arguments; MemoryError. */
IRM_API int irm_kind_find(const char *category, const char *name, irm_kind **out);

typedef int (*irm_kind_setup_fn)(irm_kind *kind);

/* Gives a category a function that runs on every kind registered in it
 * from now on, before anyone else sees the kind (target kinds use it to add
 * the options every target has). If it fails, the kind is not registered.
 * Creates the category if needed. Errors: as irm_kind_category_register. */
IRM_API int irm_kind_category_set_prepare(const char *category, irm_kind_setup_fn prepare);

/* The names of a category's kinds, sorted, as a NEW Array of Strings. An
 * unknown category gives an empty Array. Errors: ValueError (NULL category
 * or out), MemoryError. */
IRM_API int irm_kind_list(const char *category, irm_object **out);

/* The same names as one line for messages, "aot, graph, vm" ("none" when
 * empty; a list longer than size ends with " and N more"). size >= 64.
 * Errors: ValueError (NULL category or buf, size < 64), MemoryError. */
IRM_API int irm_kind_list_text(const char *category, char *buf, size_t size);

/* The kind's name and category; borrowed, valid for the process. */
IRM_API const char *irm_kind_name(const irm_kind *kind);
IRM_API const char *irm_kind_category(const irm_kind *kind);

/* ---- options ----------------------------------------------------------- */

/* Adds an option to a kind's schema. default_value (may be NULL or NONE:
 * no default) is checked against the type. doc may be NULL. A required
 * option must be given when a config object is made (and cannot have a
 * default). Errors: KeyError when the kind already has the option (naming
 * kind and option), TypeError for a default of the wrong type, ValueError
 * for bad names, RuntimeError for a rolled-back kind, MemoryError. */
IRM_API int irm_kind_add_option(irm_kind *kind, const char *option, irm_option_type type, const irm_any *default_value,
                                const char *doc, int required);

/* The schema as a NEW Map: option name -> type name, in registration
 * order (what `*.ListOptions` returns). Errors: ValueError (NULL kind or
 * out), MemoryError. */
IRM_API int irm_kind_list_options(const irm_kind *kind, irm_object **out);

/* The full schema as a NEW Map: option -> Map {"type", "default" (or NONE),
 * "doc", "required"}, in registration order. Errors as
 * irm_kind_list_options. */
IRM_API int irm_kind_describe_options(const irm_kind *kind, irm_object **out);

/* Looks up one option: its type, and its default as a NEW value (NONE when
 * it has none). AttributeError "executor 'aot' has no option 'unpacked_api'
 * (did you mean 'unpacked-api'?)". type/default_value may be NULL. */
IRM_API int irm_kind_option(const irm_kind *kind, const char *option, irm_option_type *type, irm_any *default_value);

/* Validates a Map of options for the kind: every key must be an option
 * (AttributeError with the closest option name), every value of the
 * option's type (TypeError naming the option, the expected and the given
 * type), every required option present (ValueError naming it). skip (may
 * be NULL, n_skip entries) lists keys to pass over, such as "kind". *out: a
 * NEW Map with the given options converted (irm_option_check_value) and
 * every missing option that has a default filled in, in schema order.
 * MemoryError when out of memory. */
IRM_API int irm_kind_validate(const irm_kind *kind, const irm_object *options, const char *const *skip, size_t n_skip,
                              irm_object **out);

/* ---- kind attributes --------------------------------------------------- */

/* Sets a kind attribute at a priority level (see top of file). The value is
 * copied (a NEW reference kept). Errors: KeyError (the same level twice),
 * ValueError (NULL kind or value, NULL or empty attr), RuntimeError (a
 * rolled-back kind), MemoryError. */
IRM_API int irm_kind_set_attr(irm_kind *kind, const char *attr, const irm_any *value, int plevel);

/* Clears a kind's value for attr (no-op when it has none). Errors:
 * ValueError (NULL kind or attr), RuntimeError (a rolled-back kind),
 * MemoryError. */
IRM_API int irm_kind_reset_attr(irm_kind *kind, const char *attr);

/* The kind's value for attr as a NEW value, NONE when it has none.
 * AttributeError when no kind of the category ever set attr (with the
 * closest attribute name). */
IRM_API int irm_kind_get_attr(const irm_kind *kind, const char *attr, irm_any *out);

/* ---- static registration --------------------------------------------------
 * For application code: registers a kind when the program starts and calls
 * setup(kind) to add its options and attributes:
 *   static int aot_like(irm_kind *k) {
 *     irm_any yes = irm_any_bool(true);
 *     return irm_kind_add_option(k, "link-params", IRM_OPTION_BOOL, &yes, "...", 0);
 *   }
 *   IRM_REGISTER_EXECUTOR("my-aot", aot_like);
 * A failure is reported through the warning handler and returned. Inside a
 * plugin's constructors the registration is queued for its init. Errors:
 * as irm_kind_register, and setup's own. */
IRM_API int irm_register_static_kind(const char *category, const char *name, irm_kind_setup_fn setup);

#if defined(__GNUC__) || defined(__clang__) /* constructors: GCC or Clang only */
#define IRM_KIND_CAT2_(a, b) a##b
#define IRM_KIND_CAT_(a, b) IRM_KIND_CAT2_(a, b)
#define IRM_REGISTER_KIND(category, name, setup)                                               \
  __attribute__((constructor)) static void IRM_KIND_CAT_(irm_register_kind_, __LINE__)(void) { \
    (void)irm_register_static_kind((category), (name), (setup));                               \
  }                                                                                            \
  typedef int IRM_KIND_CAT_(irm_register_kind_semicolon_, __LINE__)

/* Target kinds also get the options every target has (keys, tag, device,
 * model, libs, host, from_device) through the category's prepare function. */
#define IRM_REGISTER_EXECUTOR(name, setup) IRM_REGISTER_KIND("executor", name, setup)
#define IRM_REGISTER_RUNTIME(name, setup) IRM_REGISTER_KIND("runtime", name, setup)
#define IRM_REGISTER_TARGET_KIND(name, setup) IRM_REGISTER_KIND("target", name, setup)
#endif

#ifdef __cplusplus
}
#endif

#endif
