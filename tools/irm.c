/* The irm command-line program (docs/cli.md), in the style of tvmc and
 * mlir-opt: `irm list`, `irm target`, `irm opt`, `irm build`, `irm run`, `irm cache`, `irm tune`. This file dispatches to
 * the commands (cmd_*.c); with no arguments it runs its main job, opt of
 * the example CNN with a summary (cmd_opt.c). Exit status: 0, 1 for a
 * failure, 2 for a usage error. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} command;

static const command commands[] = {
    {"list", cmd_list, "what a registry holds: globals, targets, passes, configs, ops, ... (--json too)"},
    {"target", cmd_target, "the canonical text (or --json, the Map) of a target, legacy options converted"},
    {"opt", cmd_opt, "run a pass pipeline on a model and print the module (as mlir-opt does)"},
    {"build", cmd_build, "compile a model with the driver and write its artifacts to a folder"},
    {"run", cmd_run, "compile the artifacts of irm build with cc, run them, compare with ir.Evaluate"},
    {"cache", cmd_cache, "the build cache export_library compiles through: info, clear"},
    {"tune", cmd_tune, "MODEL --db DB tunes its kernels into a tuning database; --show DB prints its best records"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *to) {
  fprintf(to, "usage: irm [--help | --version] [COMMAND [ARGS...]]\n\n"
              "With no command, irm runs its main job: `irm opt --summary` of the built-in example CNN\n"
              "with the default pipeline (the configuration, the passes run with their time, the module).\n\n"
              "Commands:\n");
  for (size_t i = 0; i < N_COMMANDS; i++) fprintf(to, "  %-7s %s\n", commands[i].name, commands[i].summary);
  fprintf(to, "\nirm COMMAND --help describes a command. Plugins named by IRM_PLUGIN_PATH (files and folders,\n"
              "colon-separated) are loaded first. Exit status: 0 success, 1 failure, 2 usage error.\n"
              "More: docs/cli.md.\n");
}

int main(int argc, char **argv) {
  cli_out = stdout;
  /* Warnings (deprecated legacy options, say) go to stderr, as the
   * library's default handler writes them. */
  irm_set_warning_handler(NULL, NULL);
  if (argc < 2) return cli_finish_output(cmd_default());
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0 || strcmp(first, "help") == 0) {
    if (argc > 2) return cli_usage_error(NULL, "unexpected argument '%s' after '%s'", cli_quote(argv[2]), first);
    usage(stdout);
    return cli_finish_output(CLI_OK);
  }
  if (strcmp(first, "--version") == 0) {
    if (argc > 2) return cli_usage_error(NULL, "unexpected argument '%s' after '--version'", cli_quote(argv[2]));
    printf("irm %s\n", irm_version());
    return cli_finish_output(CLI_OK);
  }
  if (first[0] == '-') {
    const char *flags[] = {"help", "version"};
    const char *name = first + strspn(first, "-");
    const char *close = irm_closest_name(name, flags, 2);
    if (close) return cli_usage_error(NULL, "unknown flag '%s' (did you mean '--%s'?)", cli_quote(first), close);
    return cli_usage_error(NULL, "unknown flag '%s' (flags go after the command: irm COMMAND --flag)",
                           cli_quote(first));
  }
  for (size_t i = 0; i < N_COMMANDS; i++)
    if (strcmp(first, commands[i].name) == 0) return cli_finish_output(commands[i].run(argc - 1, argv + 1));
  const char *names[N_COMMANDS];
  for (size_t i = 0; i < N_COMMANDS; i++) names[i] = commands[i].name;
  const char *close = irm_closest_name(first, names, N_COMMANDS);
  if (close) return cli_usage_error(NULL, "unknown command '%s' (did you mean '%s'?)", cli_quote(first), close);
  return cli_usage_error(NULL, "unknown command '%s'", cli_quote(first));
}
