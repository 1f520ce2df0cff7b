/* Private to FuseOps (fuse_ops.c): the dataflow graph of one function and
 * its grouping into fused groups (fuse_ops_graph.c). */
#ifndef IRM_PASSES_FUSE_OPS_GRAPH_H
#define IRM_PASSES_FUSE_OPS_GRAPH_H

#include "pass_util.h"

/* The pattern of a node that is not a call of an op (never grouped). */
#define FUSE_NOT_OP 0xff

/* Every distinct node of a function, children before parents, in the
 * order irm_expr_rewrite finishes them (nested
 * functions the passes skip, Primitive ones among them, are leaves). Only
 * calls of ops take part in groups; each group is a union-find tree whose
 * representative is the group's one output node, so `find(i) == i` says i
 * ends its group. Every other member is used only inside its group. */
typedef struct fuse_graph {
  size_t n;
  irm_object **nodes;         /* borrowed from the function */
  size_t *edge_start;         /* node i's children (as positions): edges[edge_start[i] .. edge_start[i+1]) */
  size_t *edges;              /* (a call's first child is its callee, then its arguments) */
  uint8_t *pattern;           /* irm_op_pattern, or FUSE_NOT_OP */
  uint8_t *external;          /* used outside the graph (the body) */
  size_t *cons_start;         /* consumers of node i: cons[cons_start[i] .. cons_start[i+1]) */
  size_t *cons;               /* (only calls of ops have consumers listed) */
  size_t *parent;             /* union-find */
  size_t *size;               /* ops in the group (at its representative) */
  uint8_t *kind;              /* the group's pattern (at its representative) */
  uint8_t *anchors;           /* out-elemwise-fusable and reduce ops in the group */
  size_t *head, *tail, *next; /* each group's members, a linked list */
} fuse_graph;

/* Builds the graph of f (a dataflow.Function) and groups its calls, at most
 * max_depth ops per group. Errors: TypeError when a call of an op or one
 * of its arguments has no checked type (InferType must run first),
 * MemoryError. On failure g is freed. */
int irm_fuse_graph_build_(fuse_graph *g, irm_object *f, int64_t max_depth);

/* The position of argument j of the call at position i. */
static inline size_t irm_fuse_graph_arg_(const fuse_graph *g, size_t i, size_t j) {
  return g->edges[g->edge_start[i] + 1 + j];
}

/* The representative (output node) of i's group. */
size_t irm_fuse_graph_group_(fuse_graph *g, size_t i);

void irm_fuse_graph_free_(fuse_graph *g);

#endif
