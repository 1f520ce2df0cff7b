/* The one place that knows every layer of libirm: the list of each layer's
 * built-in registrations, one row per library, lowest first. Layer 0 runs it lazily
 * (registry/builtins.c); a new layer adds its line here. */
#include "irm_internal.h"

/* Each upper layer's provider, declared here rather than included: this
 * file sees only layer 0's irm_internal.h, like every upper layer. */
int irm_register_ir_builtins_(void);
int irm_register_ir_tensor_builtins_(void);
int irm_register_ir_config_builtins_(void);
int irm_register_ir_dataflow_builtins_(void);
int irm_register_passes_builtins_(void);
int irm_register_passes_dataflow_builtins_(void);
int irm_register_backend_builtins_(void);

const irm_builtin_provider irm_builtin_providers_[] = {
    {"registry", irm_register_registry_builtins_},
    {"ir", irm_register_ir_builtins_},
    {"ir/tensor", irm_register_ir_tensor_builtins_},
    {"ir/config", irm_register_ir_config_builtins_},
    {"ir/dataflow", irm_register_ir_dataflow_builtins_},
    {"passes", irm_register_passes_builtins_},
    {"passes/dataflow", irm_register_passes_dataflow_builtins_},
    {"backend", irm_register_backend_builtins_},
};

const size_t irm_builtin_provider_count_ = sizeof irm_builtin_providers_ / sizeof irm_builtin_providers_[0];
