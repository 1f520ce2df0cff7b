/* Private to libirm: layer 1's built-in registrations (lib/builtins.c). */
#ifndef IRM_IR_IR_BUILTINS_H
#define IRM_IR_IR_BUILTINS_H

/* Everything layer 1 registers: types, kinds, tags, globals. Safe to run
 * again after a partial failure. */
int irm_register_ir_builtins_(void);

/* The parts, one per subsystem. */
int irm_register_config_builtins_(void); /* executors, runtimes (config.c) */
int irm_register_target_builtins_(void); /* target kinds, tags, globals (target*.c) */
int irm_register_module_builtins_(void); /* IRModule types, attribute keys, globals (module*.c) */
int irm_register_tensor_builtins_(void); /* ffi.Tensor type and globals (tensor*.c) */
int irm_register_example_model_builtins_(void); /* ir.ExampleModel (example_models.c) */

#endif
