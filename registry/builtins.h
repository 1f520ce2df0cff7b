/* Private to libirm: built-in registrations of every layer.
 *
 * Each layer has one function that registers its built-ins (types, global
 * functions, kinds, options, ...). They must be safe to run again after a
 * partial failure: skip what is already registered. lib/builtins.c lists
 * them, lowest layer first; layer 0 runs the list once, lazily, on first
 * use of any registry, so nothing depends on constructor order or on the
 * linker keeping an object file. */
#ifndef IRM_REGISTRY_BUILTINS_H
#define IRM_REGISTRY_BUILTINS_H

#include "irm_internal.h"

#endif
