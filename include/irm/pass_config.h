/* PassContext config options (docs/architecture.md, "Passes"): their
 * registry and how a pass reads them.
 *
 * Config options and migration: an option is registered with a type (an
 * option type name of kind.h), a default, and optionally the module
 * attribute it migrates to. irm_pass_get_config(mod, key) reads the module
 * attribute first, then the current PassContext, then the default; reading a
 * migrated key from the PassContext warns once per key per process, naming
 * the module attribute to set instead. A pass option given in a pipeline is
 * more specific than all three.
 *
 * Ownership, errors and threads as pass.h says: out-parameters are NEW
 * references, arguments borrowed; every function may be called from any
 * thread.
 */
#ifndef IRM_PASS_CONFIG_H
#define IRM_PASS_CONFIG_H

#include "irm/module.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* The config option that switches ir.Verify after each pass (see pass.h):
 * bool, default true. */
#define IRM_PASS_VERIFY_EACH_CONFIG "pass.verify_each"

#ifdef __cplusplus
}
#endif

#endif
