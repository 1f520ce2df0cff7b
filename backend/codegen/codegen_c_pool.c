/* FCodegenC of the pools. */
#include "codegen_c_internal.h"

const cg_op irm_cg_pool_ops_[] = {{"nn.max_pool2d", NULL, NULL, NULL}};
const size_t irm_cg_pool_ops_count_ = 0;
