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

/* ---- BYOC annotations (TVM's AnnotateTarget, MergeCompilerRegions,
 * PartitionGraph). A region for an external compiler is delimited by
 * annotation.compiler_begin on each value entering it and
 * annotation.compiler_end on each value leaving it, both with the
 * attribute compiler; "default" marks a region left to the host. Each
 * runs InferType first when a function is untyped; functions the pass
 * manager skips (Compiler, Primitive, SkipOptimization) and function
 * literals (composites) are not entered. On error mod is unchanged. */

/* AnnotateTarget: every call of an op or of a composite function with
 * tensor arguments and result is wrapped in annotations for the first
 * compiler of targets (an Array of names) that supports it, else
 * "default" (the rule: partition.c's file comment and docs/patterns.md).
 * include_non_call_ops is TVM's option, accepted and ignored: tuples stay
 * outside every region. Registered as the pass
 * AnnotateTarget{targets=[...], include_non_call_ops=1}. Errors: ValueError
 * (an empty targets), TypeError (a target that is not a name, an op
 * attribute `target.<C>` that is neither a bool nor a function returning
 * one), the errors of such a function. */
IRM_API int irm_annotate_target(irm_module *mod, const irm_object *targets, int include_non_call_ops, irm_module **out);

/* MergeCompilerRegions: a region feeding another of the same compiler
 * (its compiler_end the argument of the other's compiler_begin) becomes
 * one with it, unless a path leaving both and coming back would make the
 * merged region a cycle; the compiler_begin(compiler_end(x)) pairs inside
 * a region become x. Registered as the pass MergeCompilerRegions. Errors:
 * ValueError for malformed annotations (a compiler_end no compiler_begin
 * opened, a node taking values from regions of two compilers or from
 * inside and outside a region, a region left without compiler_end),
 * naming the node at fault. */
IRM_API int irm_merge_compiler_regions(irm_module *mod, irm_module **out);

/* PartitionGraph: each region whose compiler is not "default" becomes a
 * module function "tvmgen_<mod_name>_<compiler>_main_<k>" (mod_name NULL
 * or empty: "default"; k counts up over the module, skipping names
 * taken) with attributes Compiler, global_symbol (the same name) and
 * Primitive = 1, taking the distinct values its compiler_begins take and
 * returning its compiler_end's value (several: a tuple, which the caller
 * takes apart). Every annotation is removed. Registered as the pass
 * PartitionGraph{mod_name=default}. Errors: those of
 * irm_merge_compiler_regions, ValueError for a region that would call
 * itself, TypeError (untyped values; mod not an IRModule). */
IRM_API int irm_partition_graph(irm_module *mod, const char *mod_name, irm_module **out);

/* TVM's BYOC pipeline for kind: MergeComposite with the kind's
 * IRM_TARGET_PATTERNS_ATTR table, AnnotateTarget([kind]) (its composites,
 * and ops with the attribute target.<kind>), MergeCompilerRegions and
 * PartitionGraph: each region becomes a module function
 * "tvmgen_default_<kind>_main_<k>" with Compiler = kind, global_symbol
 * its name and Primitive = 1; one composite alone is a body calling the
 * composite. *out is mod itself when nothing was taken. irm_build hands
 * those functions to codegen.ext.<kind>.
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
