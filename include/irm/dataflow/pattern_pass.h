/* The pattern rewrite driver and pattern passes (docs/patterns.md): rule
 * sets (pattern.h) applied to a fixed point, as a pass by name, and
 * rules files loaded as plugins.
 *
 * The driver walks each function once per round with the one rewriter
 * (expr.h). At each node it tries only the rules whose left-hand side may
 * be rooted at the node's op (rules rooted anywhere are tried at every
 * node), higher benefit first (equal: in the order given); the first rule
 * that matches, whose conditions hold and whose replacement keeps the
 * node's checked type, fires, and the rules are tried again at the
 * replacement. A replacement is typed (through the ops' FInferType) before
 * it is compared; one that would change the type does not fire (so `x * 1`
 * with a constant that broadcasts x stays). A round that changed something
 * is followed by another, up to max_iterations rounds (and as many
 * firings at one node); past that the rules kept firing: a ValueError
 * naming them. Growth and time are bounded too (IRM_PATTERN_MAX_GROWTH).
 * Nothing fired: the input object itself comes back.
 *
 * Ownership: arguments are borrowed; *out NEW. Thread safety: any thread;
 * rules files are loaded inside a registration journal of the calling
 * thread. */
#ifndef IRM_PATTERN_PASS_H
#define IRM_PATTERN_PASS_H

#include "irm/dataflow/pattern.h"
#include "irm/pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rounds (and firings at one node) before the rules are said to keep
 * firing; the config option / module attribute "PatternPass.max_iterations"
 * overrides it in passes. */
#define IRM_PATTERN_MAX_ITERATIONS 32

/* Growth and time before the rules are said to grow without bound: a
 * round that leaves the expression with more than IRM_PATTERN_MAX_GROWTH
 * times the input's nodes (and more than 256 nodes beyond it), or a rewrite
 * running longer than IRM_PATTERN_MAX_SECONDS, is a ValueError naming the
 * rules that fired most. "PatternPass.max_growth" and
 * "PatternPass.max_seconds" (config options / module attributes, floats)
 * override them in passes. */
#define IRM_PATTERN_MAX_GROWTH 4.0
#define IRM_PATTERN_MAX_SECONDS 60.0

/* expr rewritten by rules (an Array of dataflow.RewriteRule) to a fixed
 * point. mod (may be NULL) answers the rules' attr() conditions (its
 * attributes, then the PassContext's configs). Errors: TypeError (rules is
 * not an Array of rules, expr not an expression), ValueError (rules kept
 * firing, naming them), the rules' callbacks', MemoryError. */
IRM_API int irm_pattern_rewrite(const irm_object *rules, irm_object *expr, const irm_module *mod, irm_object **out);

/* irm_pattern_rewrite; once nonzero: TVM's rewrite_once, one walk in
 * which each node is rewritten at most once and a replacement is not
 * matched again (no fixed point). */
IRM_API int irm_pattern_rewrite_ex(const irm_object *rules, irm_object *expr, const irm_module *mod, int once,
                                   irm_object **out);

/* A function pass named name (opt_level >= 0) applying rules to every
 * function the pass manager hands it; it requires InferType (a Sequential
 * runs it first) and verifies every function it rewrote (ir.Verify).
 * Errors: as irm_function_pass_new, TypeError for rules. */
IRM_API int irm_pattern_pass(const char *name, const irm_object *rules, int opt_level, irm_pass **out);

/* Registers name as a pass (pipelines, transform.GetPass) made by
 * irm_pattern_pass from rules. Journaled. Errors: as irm_pass_register_ex
 * (KeyError for a name registered already, this way too), TypeError for
 * rules, ValueError (empty name, negative opt_level). */
IRM_API int irm_pattern_pass_register(const char *name, const irm_object *rules, int opt_level);

/* Loads a rules file (its `pass` blocks are registered as pattern passes)
 * inside a registration journal: all of them or, on an error, none; the
 * error names the file, line and column ("rules file 'a.rules': line 3,
 * column 14: ..."). irm_plugin_load and IRM_PLUGIN_PATH load files named
 * *.rules through this. Errors: PluginError wrapping the cause. */
IRM_API int irm_rules_file_load(const char *path);

#ifdef __cplusplus
}
#endif

#endif
