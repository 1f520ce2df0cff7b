/* Private to runtime/: what the graph runner (graph_runner.c) shares with
 * its library loading (graph_runner_load.c). */
#ifndef IRM_GRAPH_RUNNER_INTERNAL_H
#define IRM_GRAPH_RUNNER_INTERNAL_H
#include <stddef.h>

#include "irm_graph_runner.h"

/* Writes the message into buf (size bytes; nothing when NULL or 0) and
 * returns code. */
int irm_graph_fail_(char *buf, size_t size, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The shared object the runner's kernels come from (NULL: none); the
 * runner dlcloses the one it owns when freed. */
void *irm_graph_runner_dso_(const irm_graph_runner *r);
void irm_graph_runner_own_dso_(irm_graph_runner *r, void *dso);
#endif
