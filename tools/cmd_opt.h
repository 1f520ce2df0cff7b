/* What irm opt's two files share: the flags as parsed (cmd_opt.c) and the
 * run (cmd_opt_run.c). */
#ifndef IRM_TOOLS_CMD_OPT_H
#define IRM_TOOLS_CMD_OPT_H

#include <stdint.h>

#include "cli_util.h"

#define OPT_DEFAULT_PIPELINE "Sequential(InferType,SimplifyExpr,FoldConstant,FuseOps)"
#define OPT_DEFAULT_ELIDE 16

typedef struct opt_flags {
  const char *command;        /* "opt" or "build": the messages' prefix */
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

/* The flags irm opt and irm build share: getopt codes, longopts entries
 * (OPT_COMMON_LONGOPTS), each value checked as it comes (opt_common_flag)
 * and the --pass-config values once every plugin is loaded
 * (opt_finish_flags). */
enum {
  OPT_F_PASSES = 256,
  OPT_F_OPT_LEVEL,
  OPT_F_PASS_CONFIG,
  OPT_F_DISABLE,
  OPT_F_REQUIRE,
  OPT_F_TIME,
  OPT_F_BEFORE,
  OPT_F_AFTER,
  OPT_F_BISECT,
  OPT_F_PLUGIN,
  OPT_F_COMMON_END
};
#define OPT_COMMON_LONGOPTS                                                                                      \
  {"passes", required_argument, NULL, OPT_F_PASSES}, {"opt-level", required_argument, NULL, OPT_F_OPT_LEVEL},    \
      {"pass-config", required_argument, NULL, OPT_F_PASS_CONFIG},                                               \
      {"disable-pass", required_argument, NULL, OPT_F_DISABLE},                                                  \
      {"required-pass", required_argument, NULL, OPT_F_REQUIRE}, {"time-passes", no_argument, NULL, OPT_F_TIME}, \
      {"print-ir-before", required_argument, NULL, OPT_F_BEFORE},                                                \
      {"print-ir-after", required_argument, NULL, OPT_F_AFTER},                                                  \
      {"bisect-limit", required_argument, NULL, OPT_F_BISECT}, {                                                 \
    "load-plugin", required_argument, NULL, OPT_F_PLUGIN                                                         \
  }

/* --pass-config values wait until every plugin is loaded: a plugin may
 * register the option. */
typedef struct opt_parse {
  opt_flags *f;
  const char **configs;
  size_t n_configs;
} opt_parse;

/* f zeroed with the defaults, room for argc configs; CLI_FAIL when out of
 * memory. opt_parse_end frees what the parse and the flags hold. */
int opt_parse_begin(opt_parse *st, opt_flags *f, const char *command, int argc);
void opt_parse_end(opt_parse *st);
/* One shared flag (code c, value); CLI_USAGE for a bad value. */
int opt_common_flag(opt_parse *st, int c, const char *value);
/* The --pass-config values parsed by their options' types, warnings for
 * --print-ir-* names no pass has, the config the flags imply. */
int opt_finish_flags(opt_parse *st);
/* text as an integer from min to max, else CLI_USAGE naming flag. */
int opt_parse_int(const char *command, const char *flag, const char *text, int64_t min, int64_t max, int64_t *out);

/* cmd_opt_run.c: the model (a file, "-" or an example model's name). */
int opt_load_model(const char *command, const char *model, irm_module **out);

/* The instruments the flags ask for (timing, printing, bisection): *out a
 * NEW Array, *timing NEW or NULL; ps holds the printing hooks' state and
 * must outlive the run. */
typedef struct print_state {
  const irm_object *names; /* Array of Strings */
  int64_t elide;
  const char *when;
} print_state;
int opt_make_instruments(opt_flags *f, print_state ps[2], irm_instrument **timing, irm_object **out);
/* The timing tree to `to` (under a heading when it is the summary). */
void opt_show_timing(const opt_flags *f, irm_instrument *timing, FILE *to);
/* The same for a report irm_timing_render gave. */
void opt_show_report(const opt_flags *f, const irm_object *report, FILE *to);

/* Runs the flags' pipeline on their model (or the reproducer) and prints. */
int opt_run(opt_flags *f);

/* A summary's value: a target's text, a params Map's size, else ffi.Repr
 * ("?" when that fails). */
void opt_summary_value(const char *key, const irm_any *v);
/* The flags' config options, "key = json, ..." and a newline. */
void opt_print_config(const opt_flags *f);

/* The summary irm prints with no arguments (cmd_opt_run.c). */
int opt_print_summary_head(const opt_flags *f, irm_module *mod, const char *pipeline);

#endif
