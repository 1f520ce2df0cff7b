/* What irm opt's two files share: the flags as parsed (cmd_opt.c) and the
 * run (cmd_opt_run.c). */
#ifndef IRM_TOOLS_CMD_OPT_H
#define IRM_TOOLS_CMD_OPT_H

#include <stdint.h>

#include "cli_util.h"

#define OPT_DEFAULT_PIPELINE "Sequential(InferType,SimplifyExpr,FoldConstant,FuseOps)"
#define OPT_DEFAULT_ELIDE 16

typedef struct opt_flags {
  const char *model;          /* NULL: the example CNN */
  const char *passes;         /* NULL: OPT_DEFAULT_PIPELINE */
  const char *output;         /* -o; NULL: stdout */
  const char *reproducer;     /* --reproducer FILE */
  const char *run_reproducer; /* --run-reproducer FILE */
  int opt_level;              /* -1: not given */
  int time_passes, summary, help, no_verify_each;
  int64_t elide;        /* tensors above this many elements print elided; 0: all */
  int64_t bisect_limit; /* -1: no bisection */
  int bisect_set;
  irm_object *config;   /* Map from --pass-config (and the flags that set options) */
  irm_object *required; /* Arrays of Strings */
  irm_object *disabled;
  irm_object *print_before; /* Arrays of Strings, "all" for every pass; NULL: none */
  irm_object *print_after;
} opt_flags;

/* Runs the flags' pipeline on their model (or the reproducer) and prints. */
int opt_run(opt_flags *f);

/* The summary irm prints with no arguments (cmd_opt_run.c). */
int opt_print_summary_head(const opt_flags *f, irm_module *mod, const char *pipeline);

#endif
