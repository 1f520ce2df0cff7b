/* FCodegenC of reshape, transpose, reductions and softmax. */
#include "codegen_c_internal.h"

const cg_op irm_cg_transform_ops_[] = {{"reshape", NULL, NULL, NULL}};
const size_t irm_cg_transform_ops_count_ = 0;
