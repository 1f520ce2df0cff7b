/* The compilation driver's provider (lib/builtins.c runs it last): the
 * memory planner's usmp.* settings, codegen.dedup_kernels, tune.database, the ir.CompilationConfig type, the kind attributes of the built-in executors
 * (build_kinds.c), the built-in ops' FCodegenC (codegen/), then the
 * globals. Each part skips what an earlier,
 * partial run registered. */
#include "backend_internal.h"
#include "codegen/codegen_c.h"
#include "lower/memory_plan.h"
#include "lower/plan.h"
#include "tune/tune_build.h"

int irm_register_backend_builtins_(void);

int irm_register_backend_builtins_(void) {
  int rc = irm_register_memory_plan_settings_();
  if (!rc) rc = irm_register_kernel_dedup_settings_();
  if (!rc) rc = irm_register_tune_settings_();
  if (!rc) rc = irm_register_compilation_config_type_();
  if (!rc) rc = irm_register_build_kinds_();
  if (!rc) rc = irm_register_codegen_c_builtins_();
  if (!rc) rc = irm_register_tune_spaces_();
  if (!rc) rc = irm_register_codegen_c_globals_();
  if (!rc) rc = irm_register_runtime_module_type_();
  if (!rc) rc = irm_register_runtime_globals_();
  if (!rc) rc = irm_register_param_dict_globals_();
  if (!rc) rc = irm_register_export_globals_();
  if (!rc) rc = irm_register_tune_globals_();
  if (!rc) rc = irm_register_tune_list_globals_();
  if (!rc) rc = irm_register_tune_task_globals_();
  if (!rc) rc = irm_register_tune_measure_globals_();
  return rc ? rc : irm_register_build_globals_();
}
