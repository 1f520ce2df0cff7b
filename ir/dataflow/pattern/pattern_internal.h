/* Private to the dataflow dialect: the payloads of patterns and rules
 * (pattern.h), shared by the constructors (pattern.c), the matcher
 * (pattern_match.c), rules (pattern_rule.c) and the rules text
 * (pattern_parse.c). */
#ifndef IRM_IR_PATTERN_INTERNAL_H
#define IRM_IR_PATTERN_INTERNAL_H

#include "irm/dataflow/pattern.h"
#include "irm_internal.h"

/* One payload for every kind; unused fields stay NULL / 0. */
typedef struct irm_pattern_ {
  irm_pattern_kind kind;
  irm_object *sub[3]; /* CALL: callee; TUPLE_GET_ITEM: tuple; ALT: a, b; wrappers: inner;
                          DOMINATOR: parent, path, child; CAPTURE: inner; FUNCTION: body;
                          LET: var, value, body */
  irm_object *list;   /* CALL args / TUPLE fields / FUNCTION params: an Array of patterns, or NULL (any) */
  irm_object *data;   /* OP: the Op; EXPR: the expression; ATTR: the Map; TYPE: the type;
                          SHAPE: a TensorType of the shape; CAPTURE / VAR: a String name */
  int64_t index;      /* TUPLE_GET_ITEM: -1 any */
  DLDataType dtype;   /* DTYPE */
} irm_pattern_;

const irm_pattern_ *irm_pattern_payload_(const irm_object *p);

/* A where-condition: what(arg) op value. */
typedef enum { IRM_COND_SHAPE, IRM_COND_VALUE, IRM_COND_DTYPE, IRM_COND_NDIM, IRM_COND_ATTR } irm_cond_what_;

typedef struct irm_rule_cond_ {
  irm_cond_what_ what;
  char *arg;     /* a capture name, or the attribute key (irm_malloc'd) */
  int negate;    /* != */
  irm_any value; /* owned */
} irm_rule_cond_;

typedef struct irm_rule_ {
  char *name;
  irm_object *lhs;
  irm_object *rhs; /* the template (its free Vars named like captures), or NULL with fn */
  irm_rule_cond_ *conds;
  size_t n_conds;
  int benefit;
  irm_rewrite_fn fn;
  void *ctx;
  void (*release)(void *);
} irm_rule_;

const irm_rule_ *irm_rule_payload_(const irm_object *rule);

/* A rule as irm_rewrite_rule_new makes it, with conds (taken: freed here on
 * failure too). */
int irm_rewrite_rule_new_ex_(const char *name, irm_object *lhs, irm_object *rhs, irm_rule_cond_ *conds, size_t n_conds,
                             int benefit, irm_object **out);
void irm_rule_conds_free_(irm_rule_cond_ *conds, size_t n);

/* Matches and keeps the captures in a Map (NEW in *captures when matched). */
int irm_pattern_match_(const irm_object *pattern, irm_object *expr, int *matched, irm_object **captures);

/* The captures of a match without a Map (what the driver's hot path
 * reads): names borrowed from the pattern, expressions from the program.
 * A few live inline; more go to the heap. */
#define IRM_SMALL_BINDINGS_ 8
typedef struct irm_binding_ {
  const char *name;
  irm_object *expr;
} irm_binding_;
typedef struct irm_bindings_ {
  irm_binding_ *at; /* small or heap */
  size_t n;
  irm_binding_ small[IRM_SMALL_BINDINGS_];
} irm_bindings_;

/* Matches; when it matched, *b holds the bindings: free them with
 * irm_bindings_free_ (nothing to free otherwise, but it is harmless). */
int irm_pattern_match_bind_(const irm_object *pattern, irm_object *expr, int *matched, irm_bindings_ *b);
irm_object *irm_bindings_find_(const irm_bindings_ *b, const char *name);
int irm_bindings_to_map_(const irm_bindings_ *b, irm_object **out);
void irm_bindings_free_(irm_bindings_ *b);

/* The dialect's registrations of patterns: both types and the
 * dataflow.pattern.* globals (pattern_globals.c). */
int irm_register_pattern_types_(void);
int irm_register_pattern_rule_type_(void);
int irm_register_pattern_globals_(void);
int irm_register_pattern_builtins_(void);
/* The global dataflow.pattern.Fields (pattern_fields.c). */
int irm_pattern_g_fields_(const irm_any *args, int32_t nargs, irm_any *ret, void *res);

#endif
