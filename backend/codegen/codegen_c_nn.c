/* FCodegenC of nn.dense and nn.conv2d. */
#include "codegen_c_internal.h"

const cg_op irm_cg_nn_ops_[] = {{"nn.dense", NULL, NULL, NULL}};
const size_t irm_cg_nn_ops_count_ = 0;
