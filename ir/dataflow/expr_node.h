/* Private to the IR's files: the one payload layout every expression node
 * shares, so generic walks (children, rewriting) need no switch per kind. */
#ifndef IRM_IR_EXPR_NODE_H
#define IRM_IR_EXPR_NODE_H

#include "expr_internal.h"
#include "irm_internal.h"

typedef struct expr_node {
  union {                    /* one field per kind; they never meet */
    irm_base_func_head base; /* Function: its attributes (a DictAttrs); at offset 0, as ir.BaseFunc wants */
    irm_object *attrs;       /* Call: the checked attributes (a uniqued Map) */
    int64_t index;           /* TupleGetItem: the index */
    irm_kind *kind;          /* Op: its kind */
  };
  irm_object *type; /* checked type (a Var's annotation, a Constant's tensor type) or NULL */
  irm_expr_kind expr_kind;
  uint32_t n;            /* children (irm_expr_child order) */
  uint32_t line, column; /* where the text parser read it (1-based; 0: unknown); copies keep it */
  /* n children, then for the kinds with one (irm_expr_has_extra_) the extra
   * object: Var, GlobalVar, Op: the name (String); Constant: the tensor;
   * Function: the result type or NULL. A Call's extra is attrs above. */
  irm_object *children[];
} expr_node;

/* What an op's hooks slot (after its name) points to: its properties as
 * the passes need them, resolved once (op.c). */
typedef struct irm_op_hooks_ {
  _Atomic uint64_t generation;                   /* irm_kind_generation_ when last found current */
  irm_kind *kind;                                /* NULL: no longer registered */
  int32_t num_inputs;                            /* as irm_op_num_inputs */
  irm_op_pattern pattern;                        /* as irm_op_pattern_of */
  irm_object *infer_type, *evaluate, *codegen_c; /* FInferType, FEvaluate, FCodegenC (held) or NULL */
  struct irm_op_hooks_ *older;                   /* superseded hooks, which readers may still hold: freed with the op */
} irm_op_hooks_;

/* The op's hooks, current as of now, without a lock on the common path;
 * NULL when op is not an Op or out of memory (callers then ask the kind
 * registry). Borrowed from op. */
const irm_op_hooks_ *irm_op_hooks_of_(const irm_object *op);

static inline int irm_expr_has_extra_(irm_expr_kind k) {
  return k == IRM_EXPR_VAR || k == IRM_EXPR_GLOBAL_VAR || k == IRM_EXPR_OP || k == IRM_EXPR_CONSTANT ||
         k == IRM_EXPR_FUNCTION;
}

/* Slots after the children: the extra object, and an Op's hooks. */
static inline size_t irm_expr_trailing_(irm_expr_kind k) { return (size_t)irm_expr_has_extra_(k) + (k == IRM_EXPR_OP); }

static inline _Atomic(irm_op_hooks_ *) *irm_op_hooks_slot_(const expr_node *p) {
  return (_Atomic(irm_op_hooks_ *) *)(void *)&((expr_node *)p)->children[p->n + 1];
}

/* Frees an Op's hooks (its finalizer). */
void irm_op_hooks_free_(expr_node *p);

/* The extra object of p (see above; a Call's attributes), or NULL. */
static inline irm_object *irm_expr_extra_(const expr_node *p) {
  if (p->expr_kind == IRM_EXPR_CALL) return p->attrs;
  return irm_expr_has_extra_(p->expr_kind) ? p->children[p->n] : NULL;
}

/* The node payload of e, or NULL when e is not an expression. */
const expr_node *irm_expr_node_(const irm_object *e);

/* A new node of kind with n children (retained) and the other fields
 * (retained: type, extra, attrs), no checks; of func_attrs, index and
 * op_kind only the one of kind is kept (Function, TupleGetItem, Op). *out
 * NEW. */
int irm_expr_node_make_(irm_expr_kind kind, irm_object *const *children, size_t n, irm_object *type, irm_object *extra,
                        irm_object *func_attrs, int64_t index, irm_kind *op_kind, irm_object **out);

/* JSON fields (expr_fields.c): one to_fields for every kind, and the
 * from_fields of each kind, indexed by irm_expr_kind. */
int irm_expr_to_fields_(const irm_object *self, irm_object **out);
extern int (*const irm_expr_from_fields_table_[IRM_EXPR_FUNCTION + 1])(const irm_object *fields, irm_object **out);

#endif
