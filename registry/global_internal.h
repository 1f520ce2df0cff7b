/* Private to libirm: the global registry's entry points for built-ins. */
#ifndef IRM_REGISTRY_GLOBAL_INTERNAL_H
#define IRM_REGISTRY_GLOBAL_INTERNAL_H

#include <stddef.h>

#include "irm/function.h"
#include "irm_internal.h" /* irm_builtin_global */

/* Registers a packed built-in during the registry's one-time start (no
 * journal, no lazy-start recursion). */
int irm_global_register_builtin_(const char *name, irm_packed_cfunc fn);


/* Registers every built-in global of layer 0 (builtin_globals.c). */
int irm_register_ffi_globals_(void);

/* Registers ffi.ToJSON, ffi.FromJSON, ffi.StructuralEqual,
 * ffi.StructuralHash and ffi.Repr (serialize_globals.c). */
int irm_register_serialize_globals_(void);

/* Registers plugin.Load and plugin.List (plugin_globals.c). */
int irm_register_plugin_globals_(void);

/* Registers f (made with status made; released here) as a global for a
 * static registration macro, warning on failure. */
int irm_register_static_(const char *name, int made, irm_object *f);

/* Sets a function's name for messages (function.c). */
void irm_func_set_name_(irm_object *f, irm_object *name);

#endif
