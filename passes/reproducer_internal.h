/* Private to passes/: what the runner (pass_run.c) tells the reproducer
 * (reproducer.c) around each run. */
#ifndef IRM_PASSES_REPRODUCER_INTERNAL_H
#define IRM_PASSES_REPRODUCER_INTERNAL_H

#include "irm/pass.h"

/* Around every irm_pass_run: begin arms the thread's record when the
 * outermost run's ctx sets IRM_PASS_REPRODUCER_CONFIG; end (rc: the run's
 * status) writes the file after a failed outermost run and clears the
 * record. The run's error is kept; a file that cannot be written warns. */
void irm_reproducer_begin_(irm_pass_context *ctx);
void irm_reproducer_end_(const irm_pass *root, irm_pass_context *ctx, int rc);

/* The runner saw pass fail on mod (its input): the first one noted wins. */
void irm_reproducer_note_failure_(const irm_pass *pass, irm_module *mod);

#endif
