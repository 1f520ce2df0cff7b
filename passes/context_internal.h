/* Private to libirm: what the pass runner (pass_run.c) asks of a PassContext
 * around each pass (context.c, instrument.c implement it). */
#ifndef IRM_PASSES_CONTEXT_INTERNAL_H
#define IRM_PASSES_CONTEXT_INTERNAL_H

#include "irm/pass.h"

/* Asks every instrument's should_run (all of them, even after a false);
 * *run = 1 when all said true. The runner does not call this for a pass in
 * the context's required list. A failing hook's error is returned. */
int irm_context_should_run_(irm_pass_context *ctx, irm_module *mod, const irm_object *info, int *run);

/* Every instrument's before / after hook, in order; the first failure is
 * returned (the rest do not run). */
int irm_context_run_before_(irm_pass_context *ctx, irm_module *mod, const irm_object *info);
int irm_context_run_after_(irm_pass_context *ctx, irm_module *mod, const irm_object *info);

/* After a pass's body or its checks failed (its before hooks ran, its
 * after hooks will not): the private failed hook of every built-in
 * instrument that has one, so the timing instrument closes the pass's
 * record. The current error is kept; a failing hook only warns. */
void irm_context_run_failed_(irm_pass_context *ctx, irm_module *mod, const irm_object *info);

/* Whether name is in the context's required / disabled list. */
int irm_context_requires_(const irm_pass_context *ctx, const char *name);
int irm_context_disables_(const irm_pass_context *ctx, const char *name);

#endif
