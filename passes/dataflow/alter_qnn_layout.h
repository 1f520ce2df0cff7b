/* Private to passes/dataflow/: AlterOpLayout's rules for the quantized
 * ops (alter_qnn_layout.c), which alter_op_layout.c runs before its float
 * ones. Their twins are NCHW16c bytes (IRM_KERNEL_QBLOCK, whatever the
 * float block), kept in a table of their own. */
#ifndef IRM_PASSES_ALTER_QNN_LAYOUT_H
#define IRM_PASSES_ALTER_QNN_LAYOUT_H

#include "irm/object.h"

typedef struct irm_alter_qnn_state_ irm_alter_qnn_state_;

/* A new rule state for one function (*out NEW; free with
 * irm_alter_qnn_free_). Errors: MemoryError. */
int irm_alter_qnn_new_(irm_alter_qnn_state_ **out);
void irm_alter_qnn_free_(irm_alter_qnn_state_ *q);

/* The rewrite of call (original's rebuilt form, arguments already
 * rewritten) when a quantized rule applies: *out NEW, the original's
 * replacement with its type; else *out NULL. Errors: MemoryError, the
 * ops' type errors. */
int irm_alter_qnn_call_(irm_alter_qnn_state_ *q, const irm_object *original, irm_object *call, irm_object **out);

#endif
