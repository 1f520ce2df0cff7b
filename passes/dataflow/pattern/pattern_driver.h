/* Private to the dataflow passes: the compiled rule set of the pattern
 * driver (pattern_driver.c), for the pattern pass and partitioning. */
#ifndef IRM_PASSES_PATTERN_DRIVER_H
#define IRM_PASSES_PATTERN_DRIVER_H

#include "irm/dataflow/pattern_pass.h"
#include "irm_internal.h"

typedef struct irm_ruleset_ irm_ruleset_;

/* TypeError naming fn unless rules is an Array of rules. */
int irm_check_rules_(const char *fn, const irm_object *rules);

/* Compiles rules (retained): ordered by benefit, indexed by root op. */
int irm_ruleset_new_(const char *fn, const irm_object *rules, irm_ruleset_ **out);
void irm_ruleset_free_(irm_ruleset_ *rs);

/* The bounds of one rewrite to a fixed point; a field <= 0 takes the
 * default (pattern_pass.h: IRM_PATTERN_MAX_ITERATIONS, _MAX_GROWTH,
 * _MAX_SECONDS). */
typedef struct irm_rewrite_limits_ {
  int max_iterations; /* rounds, and firings at one node */
  double max_growth;  /* nodes at most max_growth times the input's (and 256 more) */
  double max_seconds; /* wall time */
  int once;           /* one round, at most one firing at each node, never at a replacement (TVM's rewrite_once) */
} irm_rewrite_limits_;

/* expr rewritten to a fixed point within limits (NULL: the defaults). */
int irm_ruleset_apply_(const irm_ruleset_ *rs, irm_object *expr, const irm_module *mod,
                       const irm_rewrite_limits_ *limits, irm_object **out);

/* The pattern pass and rules file registrations (pattern_pass.c). */
int irm_register_pattern_pass_builtins_(void);

/* PartitionForTarget and the partitioning globals (partition.c). */
int irm_register_partition_builtins_(void);

#endif
