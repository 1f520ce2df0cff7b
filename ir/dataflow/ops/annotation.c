/* The annotation family: annotation.compiler_begin and
 * annotation.compiler_end (TVM's names and attribute), the identity on any
 * tensor, which mark where a region for the external compiler `compiler`
 * starts (on each input) and ends (on each output). AnnotateTarget inserts
 * them, MergeCompilerRegions and PartitionGraph read and remove them
 * (passes/dataflow/annotate_target.c, compiler_regions.c). OPAQUE, as in
 * TVM, so FuseOps never fuses across a region's border. */
#include "irm/dataflow/op_attrs.h"
#include "irm_internal.h"
#include "ops_util.h"

static const char *const data_arg[] = {"data"};

/* The type of data; the attribute is checked so a bad one fails at
 * InferType, not in the partitioner. */
static int annotation_infer(const ops_ctx *c, irm_object **out) {
  irm_compiler_attrs a;
  int rc = irm_compiler_attrs_decode(c->def->name, c->attrs, &a);
  if (rc) return rc;
  irm_object_retain(c->types[0]);
  *out = c->types[0];
  return IRM_OK;
}

static const ops_attr_def compiler_attrs[] = {
    {"compiler", IRM_OPTION_STR, NULL, "the external compiler the region is for (\"default\": none)", 1},
};

const ops_op_def irm_ops_annotation_[] = {
    {"annotation.compiler_begin", 1, data_arg, IRM_OP_OPAQUE, OPS_ANY_DTYPE, compiler_attrs, 1, annotation_infer,
     irm_ops_copy_eval_},
    {"annotation.compiler_end", 1, data_arg, IRM_OP_OPAQUE, OPS_ANY_DTYPE, compiler_attrs, 1, annotation_infer,
     irm_ops_copy_eval_},
};
const size_t irm_ops_annotation_count_ = sizeof irm_ops_annotation_ / sizeof irm_ops_annotation_[0];
