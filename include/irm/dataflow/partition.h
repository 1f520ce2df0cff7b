/* Partitioning for external code generators, in the spirit of TVM's BYOC
 * (docs/patterns.md#partitioning): patterns outline matches into composite
 * functions, and a target kind's pattern table decides which composites
 * go to its code generator.
 *
 * Ownership: arguments borrowed; *out NEW (the input itself when nothing
 * matched). Thread safety: any thread. */
#ifndef IRM_PARTITION_H
#define IRM_PARTITION_H

#include "irm/dataflow/pattern.h"
#include "irm/pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The target kind attribute listing what a kind's code generator takes:
 * an Array of [composite name, pattern] pairs, highest priority first. */
#define IRM_TARGET_PATTERNS_ATTR "target.patterns"

/* The function attribute naming a composite function's pattern. */
#define IRM_FUNC_ATTR_COMPOSITE "Composite"

/* TVM's pattern.partition: each match of pattern in expr (children first;
 * a match never overlaps one made before) becomes a call of a function
 * literal whose parameters stand for the match's inputs
 * (irm_pattern_match_inputs) and whose attributes are attrs (a Map or
 * NULL) with Composite = composite. Matched nodes must be typed (run
 * InferType): the parameters take their inputs' types. Composite
 * functions made before are not entered. Errors: TypeError (not a
 * pattern or expression, attrs not a Map), ValueError (an empty composite
 * name, an untyped input, naming it), MemoryError. */
IRM_API int irm_pattern_partition(const irm_object *pattern, const char *composite, const irm_object *attrs,
                                  irm_object *expr, irm_object **out);

/* TVM's MergeComposite: table's patterns ([name, pattern] pairs, in
 * order) partition every function of mod the pass manager would give a
 * function pass. Errors: TypeError for a malformed table, those of
 * irm_pattern_partition. */
IRM_API int irm_merge_composite(irm_module *mod, const irm_object *table, irm_module **out);

/* MergeComposite with the kind's IRM_TARGET_PATTERNS_ATTR table, then
 * AnnotateTarget and PartitionGraph in one: each call of a composite the
 * table names becomes a call of a new module function "<kind>_<n>" with
 * Compiler = kind and global_symbol its name, whose body calls the
 * composite. irm_build hands those functions to codegen.ext.<kind>.
 * Registered as the pass PartitionForTarget{target=<kind>} (requires
 * InferType). Errors (with "partitioning for target '<kind>'" as
 * context): ValueError (an unknown target kind, with the closest one; a
 * kind without the attribute), TypeError (a malformed table), those of
 * irm_pattern_partition. */
IRM_API int irm_partition_for_target(irm_module *mod, const char *kind, irm_module **out);

#ifdef __cplusplus
}
#endif

#endif
