# Each layer rule catches its violation: check_layers.cmake runs with one
# planted include line and must fail naming the file and the rule.
#   irm_layers_planted(<test name> <file> <include line> <expected message regex>)
function(irm_layers_planted name file line expect)
  add_test(NAME layers_planted_${name}
           COMMAND ${CMAKE_COMMAND} -DIRM_SOURCE_DIR=${PROJECT_SOURCE_DIR} "-DIRM_PLANT=${file}|${line}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/layers/check_layers.cmake)
  set_tests_properties(layers_planted_${name} PROPERTIES PASS_REGULAR_EXPRESSION "${expect}")
endfunction()

# The pass manager, the module core, configs and tensors never see the dialect.
irm_layers_planted(pass_manager_dialect_header passes/pass.c [[#include "irm/dataflow/expr.h"]]
                   "passes/pass.c \\(passes\\): includes irm/dataflow/expr.h of the dataflow headers")
irm_layers_planted(core_dialect_header ir/module.c [[#include "irm/dataflow/op.h"]]
                   "ir/module.c \\(ir\\): includes irm/dataflow/op.h of the dataflow headers")
irm_layers_planted(config_dialect_header ir/config/target.c [[#include "irm/dataflow/passes.h"]]
                   "ir/config/target.c \\(ir/config\\): includes irm/dataflow/passes.h")
irm_layers_planted(tensor_dialect_header ir/tensor/tensor.c [[#include <irm/dataflow/type.h>]]
                   "ir/tensor/tensor.c \\(ir/tensor\\): includes irm/dataflow/type.h")
irm_layers_planted(pass_manager_dialect_folder passes/context.c [[#include "dataflow/pass_util.h"]]
                   "passes/context.c \\(passes\\): includes \"dataflow/pass_util.h\", under a dataflow folder")
irm_layers_planted(core_dialect_folder ir/module.c [[#include "../ir/dataflow/expr_internal.h"]]
                   "ir/module.c \\(ir\\): includes \"../ir/dataflow/expr_internal.h\", under a dataflow folder")
# The core sits below the configs; siblings do not see each other.
irm_layers_planted(core_config_header ir/module.c [[#include "irm/target.h"]]
                   "ir/module.c \\(ir\\): includes irm/target.h of the config headers")
irm_layers_planted(config_tensor_header ir/config/config.c [[#include "irm/tensor.h"]]
                   "ir/config/config.c \\(ir/config\\): includes irm/tensor.h of the tensor headers")
irm_layers_planted(registry_upper_header registry/object.c [[#include "irm/module.h"]]
                   "registry/object.c \\(registry\\): includes irm/module.h of the core headers")
# Private headers stay in their library; only the internal folders cross.
irm_layers_planted(dialect_private_header ir/tensor/tensor.c [[#include "expr_internal.h"]]
                   "ir/tensor/tensor.c \\(ir/tensor\\): includes \"expr_internal.h\", which is no header of ir/tensor")
irm_layers_planted(pass_manager_private_header passes/dataflow/fuse_ops.c [[#include "context_impl.h"]]
                   "passes/dataflow/fuse_ops.c \\(passes/dataflow\\): includes \"context_impl.h\", which is no header")
irm_layers_planted(registry_internal_beyond_its_header ir/dataflow/expr.c [[#include "ptr_table.h"]]
                   "ir/dataflow/expr.c \\(ir/dataflow\\): includes \"ptr_table.h\", which is no header of ir/dataflow")
irm_layers_planted(core_internal_in_registry registry/object.c [[#include "ir_internal.h"]]
                   "registry/object.c \\(registry\\): includes \"ir_internal.h\", which is no header of registry")
irm_layers_planted(unknown_public_header ir/module.c [[#include "irm/expr.h"]]
                   "ir/module.c: includes irm/expr.h, which is no public header")
# Nothing below the compilation driver (backend/) sees it.
irm_layers_planted(pass_manager_backend_header passes/pass_run.c [[#include "irm/build.h"]]
                   "passes/pass_run.c \\(passes\\): includes irm/build.h of the backend headers; passes sees only")
irm_layers_planted(dialect_backend_header ir/dataflow/expr.c [[#include <irm/build.h>]]
                   "ir/dataflow/expr.c \\(ir/dataflow\\): includes irm/build.h of the backend headers")
irm_layers_planted(dialect_passes_backend_header passes/dataflow/fuse_ops.c [[#include "irm/build.h"]]
                   "passes/dataflow/fuse_ops.c \\(passes/dataflow\\): includes irm/build.h of the backend headers")
irm_layers_planted(backend_private_header passes/pass.c [[#include "backend_internal.h"]]
                   "passes/pass.c \\(passes\\): includes \"backend_internal.h\", which is no header of passes")
# runtime/kernels' shared math is for the dialect and the backend only.
irm_layers_planted(kernels_outside_dialect_and_backend passes/context.c [[#include "irm_kernel_image.h"]]
                   "passes/context.c \\(passes\\): includes \"irm_kernel_image.h\", which is no header of passes")
