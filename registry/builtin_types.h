/* Private to libirm: finalizers of the built-in types (object.c's table). */
#ifndef IRM_REGISTRY_BUILTIN_TYPES_H
#define IRM_REGISTRY_BUILTIN_TYPES_H

#include "irm/object.h"

void irm_array_finalize_(irm_object *self);
void irm_map_finalize_(irm_object *self);
void irm_function_finalize_(irm_object *self);
void irm_closure_finalize_(irm_object *self);

#endif
