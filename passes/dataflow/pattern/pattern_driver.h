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

/* expr rewritten to a fixed point (max_iterations <= 0: the default). */
int irm_ruleset_apply_(const irm_ruleset_ *rs, irm_object *expr, const irm_module *mod, int max_iterations,
                       irm_object **out);

/* The pattern pass and rules file registrations (pattern_pass.c). */
int irm_register_pattern_pass_builtins_(void);

/* PartitionForTarget and the partitioning globals (partition.c). */
int irm_register_partition_builtins_(void);

#endif
