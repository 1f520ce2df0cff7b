/* Private to ir/dataflow/: how the dataflow IR's files (type.c, expr*.c,
 * op.c, text_*.c, verify.c, ops/) reach each other. */
#ifndef IRM_IR_EXPR_INTERNAL_H
#define IRM_IR_EXPR_INTERNAL_H

#include "irm/dataflow/expr.h"
#include "irm/dataflow/op.h"
#include "irm/tensor.h"
#include "irm_internal.h"

/* ---- registration (called by ir/dataflow/builtins.c, in this order) -------------- */

int irm_register_ir_type_types_(void);          /* dataflow.Type and subtypes (type.c) */
int irm_register_expr_types_(void);             /* dataflow.Expr and the nodes (expr.c) */
int irm_register_op_builtins_(void);            /* the "op" category and op.* globals (op.c) */
int irm_register_builtin_ops_(void);            /* the built-in ops (ops/) */
int irm_register_expr_globals_(void);           /* ir.Var, ir.Call, ... for other languages (expr_globals.c) */
int irm_register_ir_text_builtins_(void);       /* ir.Print, ir.Parse, ir.ExampleModel (text_*.c) */
int irm_register_ir_verify_builtins_(void);     /* ir.Verify (verify.c) */
int irm_register_evaluate_builtins_(void);      /* ir.Evaluate (evaluate.c) */
int irm_register_op_globals_(void);             /* op.Register, op.ListOps, ... (op_globals.c) */
int irm_register_example_model_builtins_(void); /* ir.ExampleModel (example_models.c) */

/* The dialect's provider of built-ins (builtins.c): all of the above. */
int irm_register_ir_dataflow_builtins_(void);

/* The uniqued form of a call's checked attributes (expr_attrs.c): takes
 * checked (NEW, a Map nobody else holds), gives *out NEW: the one live Map
 * equal to it (checked itself when it is the first). Errors: MemoryError. */
int irm_call_attrs_unique_(irm_object *checked, irm_object **out);

/* ---- hooks of the node types (expr.c fills the type infos with them) ---- */

/* Structural equality and hash up to renaming of Vars (expr_structural.c):
 * the whole graph under a and b is compared, each shared pair once. */
int irm_expr_equal_(const irm_object *a, const irm_object *b, int *out_equal);
int irm_expr_hash_(const irm_object *e, uint64_t *out_hash);

/* The text form of a node, for ffi.Repr (text_print.c). *out a NEW String. */
int irm_expr_repr_(const irm_object *e, irm_object **out);

/* A module's repr: its IR text, with what has no text form as comments
 * (text_print.c); fills the module core's repr slot. *out a NEW String. */
int irm_dataflow_module_repr_(const irm_object *mod, irm_object **out);

/* Appends the text form of a type (type.c): Tensor[(1, 3), float32]. */
int irm_dataflow_type_print_(irm_text_buf *buf, const irm_object *t);

/* Sets where the text parser read e (a node just made, not yet shared). */
void irm_expr_set_span_(irm_object *e, uint32_t line, uint32_t column);

#endif
