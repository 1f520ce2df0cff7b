/* irm run for a library built for another architecture (an -mtriple
 * target): the small runner program (qemu_runner.c) cross-compiled beside
 * it and run under qemu-user, inputs and outputs passed as files. */
#ifndef IRM_TOOLS_CLI_QEMU_H
#define IRM_TOOLS_CLI_QEMU_H

#include "cli_util.h"

/* Nonzero when the library file lib is for another architecture than this
 * machine's (irm_runtime_library_arch), so it runs through cli_qemu_run. */
int cli_qemu_needed(const char *lib);

/* Runs module mod_name of lib, an aot library for another architecture,
 * once on data (an Array of Tensors, main's data inputs in order) under
 * qemu-<arch> -L /usr/<arch>-linux-gnu: the runner is compiled into
 * DIR/irm-runner-<arch> with <arch>-linux-gnu-gcc (IRM_CROSS_CC overrides)
 * when missing or out of date; *outs a NEW Array of the output Tensors.
 * CLI_FAIL with one line when qemu or the cross compiler is missing
 * (naming the Debian package), the library is no aot one, or the run
 * fails (the runner's message). Temporary files in dir are removed. */
int cli_qemu_run(const char *dir, const char *lib, const char *mod_name, const irm_object *data, irm_object **outs);

#endif
