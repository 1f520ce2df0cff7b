/* Private to libirm: the one header of the module core's internals that the
 * libraries above it (ir/config, ir/tensor, ir/dataflow, passes, ...) may
 * include, as registry/internal/irm_internal.h is for layer 0. Its folder is
 * the only private folder of ir/ on their include path. Add here only what
 * an upper library truly needs, as a function. */
#ifndef IRM_IR_INTERNAL_IR_INTERNAL_H
#define IRM_IR_INTERNAL_IR_INTERNAL_H

#include "irm/module.h"
#include "irm_internal.h"

/* A DictAttrs of function attributes from attrs: a DictAttrs is retained
 * as it is; a Map (or NULL: none) has each registered key type-checked and
 * converted as irm_base_func_attr_register says. *out NEW. TypeError for
 * anything else, naming fn. */
int irm_base_func_attrs_make_(const char *fn, const irm_object *attrs, irm_object **out);

/* The text form of a module for ffi.Repr: *out a NEW String. */
typedef int (*irm_module_repr_fn)(const irm_object *mod, irm_object **out);

/* Fills the module's repr slot (the dataflow library does, with its IR
 * text). Without one, a module prints as a summary of its function names
 * and attributes. Called by providers while the built-ins register. */
void irm_module_set_repr_(irm_module_repr_fn repr);

/* The module's config cache slot: one object derived from the module's
 * attributes (the backend's ir.CompilationConfig), computed once per
 * module and owned by it, so the cache dies with the module and is never
 * keyed by an address that a later module could reuse. A module made by
 * a *_with_* change starts with an empty slot; a *_move change in place
 * (possible only while the caller holds the one reference) empties it.
 * irm_module_config_cache_: the cached object, borrowed, or NULL (also
 * for a non-module). irm_module_config_cache_fill_: stores value
 * (retained) unless another thread stored one first, and returns the one
 * that stays, borrowed from mod (NULL for a non-module or NULL value).
 * Any thread; lock-free. */
irm_object *irm_module_config_cache_(const irm_module *mod);
irm_object *irm_module_config_cache_fill_(const irm_module *mod, irm_object *value);

#endif
