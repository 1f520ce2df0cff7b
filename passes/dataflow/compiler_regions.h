/* Private to the BYOC passes (annotate_target.c, compiler_regions.c,
 * partition_graph.c): the regions that annotation.compiler_begin and
 * annotation.compiler_end delimit in one function body, TVM's
 * AnnotatedRegionSet. Every compiler_begin opens a region of its
 * compiler; a node whose arguments come from open regions (not through a
 * compiler_end) joins them, merging them into one; a compiler_end closes
 * the region of its argument. Nodes outside every region (the host's) have
 * no region. Function literals (composites) are leaves. */
#ifndef IRM_PASSES_COMPILER_REGIONS_H
#define IRM_PASSES_COMPILER_REGIONS_H

#include "pass_util.h"

#define CR_BEGIN_OP "annotation.compiler_begin"
#define CR_END_OP "annotation.compiler_end"
#define CR_DEFAULT "default" /* the compiler of a region left to the host */
#define CR_NONE ((size_t)-1)

typedef struct cr_regions {
  size_t n;
  irm_object **nodes;   /* distinct nodes of the body, children first (borrowed) */
  irm_ptr_table_ index; /* node -> cr_ix */
  size_t *region;       /* per node: its region (before find), or CR_NONE */
  size_t nreg;
  size_t *parent;      /* per region: union-find */
  const char **target; /* per region: its compiler (borrowed from a call's attrs) */
} cr_regions;

typedef struct cr_ix {
  irm_ptr_entry_ base;
  size_t ix;
} cr_ix;

/* Finds the regions of body. Errors (r freed): ValueError for malformed
 * annotations, naming the node at fault: a compiler_end whose argument
 * no compiler_begin opened, one whose compiler differs from its region's,
 * a node taking values of regions of two compilers, or values both from
 * inside a region and from outside it, a region whose value leaves it
 * without a compiler_end; TypeError for an annotation without a valid
 * compiler; MemoryError. */
int irm_cr_build_(cr_regions *r, irm_object *body);

/* The region of node position i after merging, or CR_NONE. */
size_t irm_cr_region_of_(cr_regions *r, size_t i);

/* The position of node, or CR_NONE when it is not in the body. */
size_t irm_cr_position_(const cr_regions *r, const irm_object *node);

/* The representative of region g. */
size_t irm_cr_find_(cr_regions *r, size_t g);

/* The compiler of an annotation call (borrowed), NULL for any other node. */
const char *irm_cr_compiler_of_(const irm_object *e, int *is_begin);

void irm_cr_free_(cr_regions *r);

/* Whether a walk enters node: not a function literal (composites stay as
 * they are). For irm_expr_rewriter.pre over a body. */
int irm_cr_skip_functions_(void *ctx, irm_object *node, int *descend);

/* func with body (func itself, retained, when body is its body). *out NEW. */
int irm_cr_with_body_(irm_object *func, irm_object *body, irm_object **out);

#endif
