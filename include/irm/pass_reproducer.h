/* Crash reproducers of the pass manager (docs/passes.md, "When a pass fails").
 *
 * Ownership, errors and threads as pass.h says: out-parameters are NEW
 * references, arguments borrowed; every function may be called from any
 * thread.
 */
#ifndef IRM_PASS_REPRODUCER_H
#define IRM_PASS_REPRODUCER_H

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MLIR's crash reproducer for any user of the pass manager: when the
 * config option "pass.reproducer" (str, no default) of the PassContext an
 * outermost irm_pass_run runs under names a file, and the run fails (a
 * pass's error, ir.Verify after it, a changed pass-invariant attribute),
 * the file is written before irm_pass_run returns. It holds, in the
 * library's JSON (irm_to_json of a Map): "irm_reproducer" (format 1),
 * "irm_version", "failed_pass" (the innermost pass that failed), "error"
 * (the run's message), "pipeline" (pipeline text from the failing pass on:
 * each enclosing Sequential keeps its name and opt_level and the passes
 * after it; a pass a Sequential required runs alone), "opt_level",
 * "required", "disabled", "config" (without "pass.reproducer"), "plugins"
 * (the paths loaded) and "module" (irm_to_json of the module as it was
 * before the failing pass, as a str, so that plugins load before it is
 * read). Failures inside a pipeline a pass body runs itself count as the
 * body's. A file that cannot be written warns "no reproducer written:
 * ..."; the run's error stays what irm_pass_run reports. */
#define IRM_PASS_REPRODUCER_CONFIG "pass.reproducer"

/* Reads a reproducer file, loads its plugins (irm_plugin_load), and gives
 * *out, a NEW Map {"module" (IRModule), "pipeline" (Pass), "context" (a
 * PassContext with its settings and no instruments), "failed_pass",
 * "error", "plugins"}. Running pipeline on module under context (entered)
 * fails as the recorded run did. Errors (with "reproducer '<path>'" as
 * context): ValueError (NULL path or out, a file that cannot be read or is
 * no reproducer of format 1), the errors of irm_from_json, irm_plugin_load,
 * irm_pipeline_parse and irm_pass_context_new, MemoryError. Other
 * languages: the global transform.LoadReproducer(path). */
IRM_API int irm_pass_reproducer_load(const char *path, irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
