/* irm run for a library built for another architecture (an -mtriple
 * target): the small runner program (qemu_runner.c) cross-compiled beside
 * it and run under qemu-user, inputs and outputs passed as files. */
#ifndef IRM_TOOLS_CLI_QEMU_H
#define IRM_TOOLS_CLI_QEMU_H

#include "cli_util.h"

/* Nonzero when the library file lib is for another architecture than this
 * machine's (irm_runtime_library_arch), so it runs through cli_qemu_run. */
int cli_qemu_needed(const char *lib);

/* Runs module mod_name of lib, an aot or graph library for another architecture,
 * once on data (an Array of Tensors, main's data inputs in order) under
 * qemu-<arch> -L /usr/<arch>-linux-gnu: the runner is compiled into
 * DIR/irm-runner-<arch> with <arch>-linux-gnu-gcc (IRM_CROSS_CC overrides)
 * when missing or out of date; *outs a NEW Array of the output Tensors.
 * CLI_FAIL with one line when qemu or the cross compiler is missing
 * (naming the Debian package), the library is no aot or graph one, or the run
 * fails (the runner's message). Temporary files in dir are removed. */
int cli_qemu_run(const char *dir, const char *lib, const char *mod_name, const irm_object *data, irm_object **outs);

/* ---- shared with cli_qemu_graph.c ---- */

/* s single-quoted for the shell, into f. */
void cli_qemu_quote_(FILE *f, const char *s);

/* Runs the command cmd (NUL-terminated text from open_memstream); its
 * output (stdout and stderr) into *out (malloc'd) when out is not NULL.
 * CLI_FAIL with what and the output when it fails. */
int cli_qemu_cmd_(const char *what, const char *cmd, char **out);

/* Writes the NULL-terminated lines to path unless it holds them already;
 * *changed set when it did. CLI_FAIL when it cannot. */
int cli_qemu_write_text_(const char *path, const char *const *lines, int *changed);

/* Appends to outs a new Tensor of dtype dt and shape dims[nd] holding the
 * bytes of file path. CLI_FAIL when the file is short or missing. */
int cli_qemu_read_tensor_(const char *path, DLDataType dt, const int64_t *dims, int32_t nd, irm_object **outs);

/* cli_qemu_run of a graph library: the graph runner (qemu_graph_runner.c
 * and the runtime's graph runner, embedded) compiled with cc into
 * DIR/irm-graph-runner-<arch>/, linked with the target's jansson
 * statically, run under qemu; the outputs appended to outs. CLI_FAIL
 * naming the Debian package when the target's jansson is missing. */
int cli_qemu_graph_run_(const char *dir, const char *arch, const char *cc, const char *lib, const char *mod_name,
                        const irm_object *data, irm_object **outs);

#endif
