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

#include <stddef.h>

typedef struct irm_builtin_provider {
  const char *layer; /* for messages: "registry", "ir", ... */
  int (*register_builtins)(void);
} irm_builtin_provider;

/* Defined in lib/builtins.c, the one file that knows every layer. */
extern const irm_builtin_provider irm_builtin_providers_[];
extern const size_t irm_builtin_provider_count_;

/* Runs every provider unless all have succeeded before. Registry entry
 * points call it first; a failure (out of memory) is returned with context
 * and retried on the next call. */
int irm_builtins_ready(void);

/* Layer 0's provider: the ffi.* globals (builtin_globals.c and
 * serialize_globals.c). */
int irm_register_registry_builtins_(void);

#endif
