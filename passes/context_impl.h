/* Private to libirm: what the PassContext files share (context.c,
 * context_stack.c, instrument_object.c, pass_config.c,
 * context_globals.c). The pass runner uses context_internal.h instead. */
#ifndef IRM_PASSES_CONTEXT_IMPL_H
#define IRM_PASSES_CONTEXT_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "irm/pass.h"

#define IRM_PASS_CONTEXT_KEY "transform.PassContext"
#define IRM_INSTRUMENT_KEY "transform.PassInstrument"

/* Type indices, set once while the built-ins register; -1 before. */
extern _Atomic int32_t irm_pass_context_type_;
extern _Atomic int32_t irm_instrument_type_;

/* A PassContext. Everything but the instrument list is fixed when the
 * context is made; the list (an immutable Array, replaced as a whole) is
 * read and replaced under lock, and hooks run on a retained snapshot. */
typedef struct context_payload {
  int opt_level;
  irm_object *required;    /* Array of Strings, never NULL */
  irm_object *disabled;    /* Array of Strings, never NULL */
  irm_object *config;      /* Map key -> checked value, never NULL */
  pthread_mutex_t lock;    /* guards instruments */
  irm_object *instruments; /* Array of instruments, never NULL */
  /* Its size, readable without the lock: the pass runner skips the hooks
   * (and the lock) when there are none. A stale read is as good as a
   * snapshot taken a moment earlier. */
  _Atomic size_t n_instruments;
} context_payload;

/* Whether ctx has instruments (no lock taken). */
int irm_context_has_instruments_(const irm_pass_context *ctx);

/* The payload of ctx when it is a PassContext, else NULL. */
context_payload *irm_context_payload_(const irm_pass_context *ctx);

/* TypeError "<fn>: expected transform.PassContext, got <type>". */
int irm_context_type_error_(const char *fn, const irm_object *o);

/* The instrument list as a NEW Array (a snapshot: later changes do not
 * touch it). */
irm_object *irm_context_instruments_(irm_pass_context *ctx);

/* Replaces the instrument list with list (taken; NULL: empty). The old
 * list is released after the lock is dropped. MemoryError only for a NULL
 * list that cannot be made (then nothing changes). */
int irm_context_set_instruments_(irm_pass_context *ctx, irm_object *list);

/* TVM's InstrumentEnterPassContext / InstrumentExitPassContext on ctx's
 * current instruments (see pass.h): enter unwinds and clears the list on
 * failure; exit clears it and skips the rest. */
int irm_context_enter_instruments_(irm_pass_context *ctx);
int irm_context_exit_instruments_(irm_pass_context *ctx);

/* Nonzero when o is a transform.PassInstrument. */
int irm_is_instrument_(const irm_object *o);

/* Checks a config Map against the registry: AttributeError with the
 * closest key for an unknown key, TypeError for a value of the wrong type.
 * *out a NEW Map of the converted values (config NULL: empty). */
int irm_pass_config_check_(const irm_object *config, irm_object **out);

/* The MigratePassConfig module pass (irm_module_pass_fn): copies every
 * migrated option set in ctx's config (NULL: the current context) onto the
 * module; the module wins a conflict, with a warning naming both values. */
int irm_migrate_pass_config_(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                             irm_module **out);

/* The parts of irm_register_context_builtins_. */
int irm_register_context_type_(void);         /* context.c */
int irm_register_instrument_type_(void);      /* instrument_object.c */
int irm_register_pass_config_builtins_(void); /* pass_config.c: options, keys, MigratePassConfig */
int irm_register_context_globals_(void);      /* context_globals.c */

#endif
