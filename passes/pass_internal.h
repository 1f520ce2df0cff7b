/* Private to libirm: the layout of pass objects ("transform.Pass" and its
 * subtypes), shared by pass.c (making and reading passes), pass_run.c,
 * pass_body.c and sequential.c (running them), pass_registry.c and
 * pass_globals.c.
 *
 * Every pass type has this one payload; the kind field says which fields
 * are used. Passes are immutable once made, so any thread may read a pass
 * without a lock. */
#ifndef IRM_PASSES_PASS_INTERNAL_H
#define IRM_PASSES_PASS_INTERNAL_H

#include <stdatomic.h>

#include "irm/pass.h"

#define IRM_PASS_KEY "transform.Pass"
#define IRM_MODULE_PASS_KEY "transform.ModulePass"
#define IRM_FUNCTION_PASS_KEY "transform.FunctionPass"
#define IRM_SEQUENTIAL_KEY "transform.Sequential"

/* The kind category of the pass registry and the kind attribute holding a
 * registered pass's factory (a Function: options Map -> Pass). */
#define IRM_PASS_CATEGORY "pass"
#define IRM_PASS_FACTORY_ATTR "factory"

typedef enum irm_pass_kind_ { IRM_PASS_MODULE_ = 0, IRM_PASS_FUNCTION_ = 1, IRM_PASS_SEQUENTIAL_ = 2 } irm_pass_kind_;

typedef struct irm_pass_payload_ {
  irm_pass_kind_ kind;
  int opt_level;
  irm_object *name;     /* String */
  irm_object *required; /* Array of Strings (maybe empty) */
  irm_object *options;  /* Map (maybe empty) */
  irm_object *info;     /* PassInfo Map {name, opt_level, required}, made once for the hooks */
  /* Module and function passes: a C body, or a function object (func). */
  irm_module_pass_fn module_fn;
  irm_function_pass_fn function_fn;
  void *resource;
  void (*finalizer)(void *);
  irm_object *func;
  /* Sequential: an Array of passes. */
  irm_object *passes;
} irm_pass_payload_;

/* Type indices, -1 until the types are registered (pass.c). */
extern _Atomic int32_t irm_pass_type_;
extern _Atomic int32_t irm_module_pass_type_;
extern _Atomic int32_t irm_function_pass_type_;
extern _Atomic int32_t irm_sequential_type_;

/* The payload of p, or NULL when p is not a pass. */
const irm_pass_payload_ *irm_pass_payload_of_(const irm_pass *p);

/* Runs one pass under ctx with the runner's protocol (should_run, before
 * hooks, the pass, verification, after hooks; "in pass" context on
 * failure). *out NEW. pass_run.c. */
int irm_pass_run_in_(const irm_pass *pass, irm_pass_context *ctx, irm_module *mod, irm_module **out);

/* The bodies, without hooks or verification (pass_body.c, sequential.c). */
int irm_pass_execute_module_(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod, irm_module **out);
int irm_pass_execute_function_(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod, irm_module **out);
int irm_pass_execute_sequential_(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod, irm_module **out);

/* Built-in registrations, each skipping what exists. */
int irm_register_pass_types_(void);    /* pass.c */
int irm_register_pass_registry_(void); /* pass_registry.c: the "pass" category */
int irm_register_pass_globals_(void);  /* pass_globals.c */

#endif
