/* What the irm program's commands share: exit statuses, messages, safe
 * quoting of arguments, getopt_long's unknown-flag messages with the
 * closest flag, the output stream, calls of globals, and plain JSON of irm
 * values. */
#ifndef IRM_TOOLS_CLI_UTIL_H
#define IRM_TOOLS_CLI_UTIL_H

#include <getopt.h>
#include <stdio.h>

#include "irm/irm.h"

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* "irm: <what>: <irm_last_error()>" on stderr; returns CLI_FAIL. */
int cli_fail(const char *what);
/* "irm: <printf text>" on stderr; returns code. */
int cli_say(int code, const char *fmt, ...) IRM_PRINTF_(2, 3);
/* "irm <command>: <text>" and "(irm <command> --help for usage)"; CLI_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) IRM_PRINTF_(2, 3);

/* s cut as irm_error_quote cuts it, with control bytes and bytes that are
 * not UTF-8 as \xNN: safe to print whatever the argument held. Borrowed: a
 * buffer reused after three more calls. */
const char *cli_quote(const char *s);

/* Parses the flags of command (argv[0] is the command's name) with
 * getopt_long, calling on_flag(code, optarg, data) for each; stops with
 * CLI_USAGE and a message for an unknown flag (with the closest one), a
 * missing or unwanted value. *first_arg: the index of the first operand
 * (operands are moved after the flags, as GNU getopt does). */
typedef int (*cli_flag_fn)(int code, const char *value, void *data);
int cli_parse_flags(const char *command, int argc, char **argv, const char *shortopts, const struct option *longopts,
                    cli_flag_fn on_flag, void *data, int *first_arg);

/* The bytes of the file at path ("-": stdin) into *text (malloc'd, free
 * it) and *len; CLI_FAIL with "irm: <command>: cannot read ..." */
int cli_read_all(const char *command, const char *path, char **text, size_t *len);

/* Where results go: stdout unless a command opened a file (cli_open_output).
 * cli_finish_output flushes and closes it and returns CLI_FAIL with a
 * message when anything written was lost (a full disk, /dev/full). */
extern FILE *cli_out;
int cli_open_output(const char *path);
int cli_finish_output(int status);

/* name(args...) through the global registry; *out NEW. Errors as the
 * global gives them. */
int cli_call(const char *name, const irm_any *args, int32_t nargs, irm_any *out);
/* The String of a str-typed value or NULL; borrowed. */
const char *cli_str(const irm_any *v);

/* Writes value as plain JSON (Maps as objects, Arrays as arrays, Strings,
 * numbers, bools, null; any other object as the string of its ffi.Repr). */
int cli_write_json(FILE *f, const irm_any *value, int indent);

/* Loads every plugin of IRM_PLUGIN_PATH once; CLI_FAIL with a message. */
int cli_load_env_plugins(void);
/* Loads one plugin; CLI_FAIL with a message. */
int cli_load_plugin(const char *path);

/* The commands (argv[0] is the command's name). */
int cmd_list(int argc, char **argv);
int cmd_target(int argc, char **argv);
int cmd_opt(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_tune(int argc, char **argv); /* cmd_tune.c */
/* irm list tunables MODEL [TARGET] (cmd_tune.c): argv[0] the model. */
int cmd_list_tunables(int argc, char **argv, int json);
/* irm with no arguments: opt of the example CNN with a summary. */
int cmd_default(void);

#endif
