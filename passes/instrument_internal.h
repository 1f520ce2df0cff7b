/* Private to passes/: what the built-in instruments and the pipeline text
 * share (instrument.c): hook state shared by several packed functions and the
 * pass name of a PassInfo Map. */
#ifndef IRM_PASSES_INSTRUMENT_INTERNAL_H
#define IRM_PASSES_INSTRUMENT_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>

#include "irm/pass.h"

/* The head of a built-in instrument's state: every hook Function holds one
 * reference, and drop(state) runs when the last one goes. */
typedef struct irm_hook_state_ {
  atomic_uint refs;
  void (*drop)(void *state);
} irm_hook_state_;

/* The packed hooks of a built-in instrument (each may be NULL). failed
 * (mod, info) runs when a pass whose before hooks ran failed in its body
 * or its checks (its after hooks never run); only built-in instruments
 * have it. */
typedef struct irm_hooks_ {
  irm_packed_cfunc enter, exit, should_run, before, after, failed;
} irm_hooks_;

/* Installs the failed hook (borrowed, retained; NULL: none) on inst, which
 * is not shared yet (instrument_object.c). TypeError for another object. */
int irm_instrument_set_failed_(irm_instrument *inst, irm_object *failed);

/* Makes an instrument called name whose hooks get state (starting with an
 * irm_hook_state_ whose drop is set) as their resource. The caller's
 * reference to state is taken over, also on failure (then state is dropped
 * once every hook made so far is gone). *out NEW. */
int irm_instrument_from_hooks_(const char *name, const irm_hooks_ *hooks, irm_hook_state_ *state, irm_instrument **out);

/* The "name" of a PassInfo Map given to a hook (args[1]); "" when absent. */
const char *irm_hook_pass_name_(const irm_any *args, int32_t nargs);

#endif
