/* irm build's ONNX import (cmd_onnx.c): the Python frontend run as a child
 * process; and that mechanism for other commands run in Python (irm tune). */
#ifndef IRM_TOOLS_CMD_ONNX_H
#define IRM_TOOLS_CMD_ONNX_H

#include <limits.h>

#include "cli_util.h"

/* 1 when path names an ONNX model: the .onnx extension, or a file that
 * starts as a ModelProto does (field 1, ir_version, then a later field). */
int onnx_is_model(const char *path);

/* A private temporary folder holding the import: the IR text (ir_path)
 * and the params file (params_path). */
typedef struct onnx_result {
  char dir[PATH_MAX];
  char ir_path[PATH_MAX + 32];
  char params_path[PATH_MAX + 32];
} onnx_result;

/* Imports model with `python3 -m irm.frontend.onnx` (IRM_PYTHON overrides
 * the interpreter, /usr/bin/python3 by default; PYTHONPATH gets irm's
 * package, IRM_LIBRARY this program's libirm). shapes: NULL or
 * "name:1x3x224x224[,name2:...]"; dtypes: NULL or "name:float32[,...]".
 * CLI_OK, or CLI_FAIL / CLI_USAGE with one line on stderr (what to install
 * when Python or onnx is missing; the frontend's own one-line error
 * otherwise). Call onnx_result_clean on out whatever the result. */
int onnx_import(const char *model, const char *shapes, const char *dtypes, onnx_result *out);

/* The Python interpreter the children run: IRM_PYTHON, else /usr/bin/python3. */
const char *python_interpreter(void);

/* Runs argv (argv[0]: python_interpreter(), then its arguments) as a child
 * process with irm's Python package on PYTHONPATH and this program's libirm
 * as IRM_LIBRARY (unless set), in a process group of its own, its stderr
 * into err_path and its stdout into /dev/null (keep_stdout: this program's
 * stdout). A SIGINT, SIGTERM, SIGHUP or SIGQUIT this program gets while it
 * waits is passed on to the child. *status: waitpid's. CLI_OK, or CLI_FAIL with one line on
 * stderr (what: the command's name) when the package is not found or the
 * child cannot be started or waited for. Not thread-safe (it sets the
 * SIGINT handler while it waits). irm build MODEL.onnx and irm tune use it. */
int python_child_run(const char *what, char **argv, const char *err_path, int keep_stdout, int *status);

/* Removes out's temporary folder (nothing when there is none). */
void onnx_result_clean(onnx_result *r);

#endif
