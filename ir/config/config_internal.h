/* Private to libirm: what config.c (the Executor and Runtime objects),
 * config_kinds.c (the built-in kinds), config_register.c (kinds from a
 * description) and config_globals.c (the executor.* and runtime.* globals)
 * share. */
#ifndef IRM_IR_CONFIG_INTERNAL_H
#define IRM_IR_CONFIG_INTERNAL_H

#include <stdatomic.h>

#include "irm/config.h"

/* One class of config objects: a kind category and the type made for it. */
typedef struct config_class {
  const char *category;  /* "executor": the kind registry and global prefix */
  const char *type_key;  /* "ir.Executor" */
  atomic_int type_index; /* -1 until the type is registered */
} config_class;

extern config_class irm_executor_class_;
extern config_class irm_runtime_class_;

/* The kind attribute holding a config kind's extra value checks. */
#define IRM_CONFIG_FVALIDATE "FValidate"

/* Makes a config object of cls (see irm_executor_create). */
int irm_config_create_(config_class *cls, const char *kind, const irm_object *options, irm_object **out);

/* Makes a config object from one Map with "kind" (see irm_executor_from_map). */
int irm_config_from_map_(config_class *cls, const irm_object *config, irm_object **out);

/* The class of a config object; NULL when cfg is not one. */
config_class *irm_config_class_of_(const irm_object *cfg);

/* Built-in registrations, each safe to run again after a partial failure. */
int irm_register_config_types_(void);   /* config.c */
int irm_register_config_kinds_(void);   /* config_kinds.c */
int irm_register_config_globals_(void); /* config_globals.c */

/* The config library's provider of built-ins (builtins.c). */
int irm_register_ir_config_builtins_(void);

#endif
