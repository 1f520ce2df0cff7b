/* Private to passes/: the pass manager's registrations that its provider
 * (builtins.c) runs, each skipping what an earlier, partial run registered.
 * The rest are declared beside their subsystems (pass_internal.h,
 * context_impl.h). */
#ifndef IRM_PASSES_PASSES_BUILTINS_H
#define IRM_PASSES_PASSES_BUILTINS_H

int irm_register_instrument_globals_(void); /* instrument_globals.c: timing/printing/bisect */
int irm_register_pipeline_globals_(void);   /* pipeline_globals.c: ParsePipeline/PrintPipeline/LoadReproducer */

/* The pass manager's provider of built-ins (builtins.c). */
int irm_register_passes_builtins_(void);

#endif
