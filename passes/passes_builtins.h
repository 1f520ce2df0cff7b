/* Private to libirm: layer 2's built-in registrations (lib/builtins.c). */
#ifndef IRM_PASSES_PASSES_BUILTINS_H
#define IRM_PASSES_PASSES_BUILTINS_H

/* Everything layer 2 registers; idempotent (skips what exists). */
int irm_register_passes_builtins_(void);

/* The parts. */
int irm_register_pass_core_builtins_(void);       /* pass types, registry, transform.* pass globals */
int irm_register_context_builtins_(void);         /* PassContext, configs, MigratePassConfig, instruments */
int irm_register_instrument_builtins_(void);      /* timing/printing/bisect globals */
int irm_register_pipeline_builtins_(void);        /* ParsePipeline/PrintPipeline */

#endif
