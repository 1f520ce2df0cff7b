/* The reference interpreter (evaluate.h). Each function call gets a frame:
 * a table from node to value (parameters and Let-bound Vars included) and
 * an explicit stack of nodes being evaluated. A call of another function
 * recurses in C, bounded by IRM_EVALUATE_MAX_CALL_DEPTH; expressions never
 * do. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "expr_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/dataflow/evaluate.h"
#include "irm/structural.h"

typedef struct value_entry {
  irm_ptr_entry_ base; /* key: the node */
  irm_any value;       /* owned: a Tensor or an Array */
} value_entry;

typedef struct frame {
  irm_ptr_table_ values;
  const struct frame *parent; /* the caller's frame, for a function literal's free variables */
  const char *fn_name;
} frame;

typedef struct task {
  irm_object *node;
  uint32_t next;
} task;

typedef struct evaluator {
  const irm_module *mod;
  int depth;
  int contexts; /* "in function ..." contexts the failing error got so far */
  int skipped;  /* those left out to keep the message short */
} evaluator;

/* The innermost calls of a failure get their "in function" context; the
 * rest are counted, so an error deep in recursion stays a few lines. */
#define MAX_ERROR_CONTEXTS 4

static int eval_function(evaluator *ev, const irm_object *f, const char *name, const frame *parent,
                         const irm_any *inputs, size_t n, irm_any *out);

/* ---- the value table ------------------------------------------------------------- */

static const irm_any *lookup(const frame *fr, const irm_object *node, int search_parents) {
  for (; fr; fr = search_parents ? fr->parent : NULL) {
    value_entry *e = irm_ptr_table_find_(&fr->values, node);
    if (e) return &e->value;
  }
  return NULL;
}

/* Stores value (taken, also on failure) for node. */
static int bind(frame *fr, const irm_object *node, irm_any value) {
  value_entry *e = irm_ptr_table_add_(&fr->values, node, sizeof *e);
  if (!e) {
    irm_any_release(&value);
    return irm_error_nomem_("evaluating");
  }
  e->value = value;
  return IRM_OK;
}

static int bind_copy(frame *fr, const irm_object *node, const irm_any *value) {
  irm_any copy;
  int rc = irm_any_copy(value, &copy);
  return rc ? rc : bind(fr, node, copy);
}

static void frame_free(frame *fr) {
  for (value_entry *e = irm_ptr_table_first_(&fr->values); e; e = irm_ptr_table_next_(e)) irm_any_release(&e->value);
  irm_ptr_table_free_(&fr->values);
}

/* ---- types of values -------------------------------------------------------------- */

#define MAX_TUPLE_NESTING 64

static int value_type(const irm_any *v, int nesting, irm_object **out) {
  *out = NULL;
  if (v->type_code == IRM_OBJECT && irm_is_tensor(v->v_obj)) return irm_tensor_type_of(v->v_obj, out);
  if (v->type_code != IRM_OBJECT || !irm_object_is(v->v_obj, "ffi.Array"))
    return irm_error(IRM_ETYPE, "expected a Tensor or an Array of them, got %s", irm_any_type_name(v));
  if (nesting >= MAX_TUPLE_NESTING) return irm_error(IRM_EVALUE, "tuples nested deeper than %d", MAX_TUPLE_NESTING);
  size_t n = irm_array_size(v->v_obj);
  irm_object **fields = irm_calloc(n ? n : 1, sizeof *fields);
  if (!fields) return irm_error_nomem_("evaluating");
  int rc = IRM_OK;
  for (size_t i = 0; i < n && !rc; i++) rc = value_type(irm_array_at(v->v_obj, i), nesting + 1, &fields[i]);
  if (!rc) rc = irm_tuple_type_new(fields, n, out);
  for (size_t i = 0; i < n; i++) irm_object_release(fields[i]);
  irm_free(fields);
  return rc;
}

/* ---- the memory limit --------------------------------------------------------------- */

static _Atomic size_t max_bytes = IRM_EVALUATE_MAX_BYTES_DEFAULT;

size_t irm_dataflow_evaluate_set_max_bytes(size_t limit) {
  return atomic_exchange(&max_bytes, limit ? limit : IRM_EVALUATE_MAX_BYTES_DEFAULT);
}

size_t irm_dataflow_evaluate_max_bytes(void) { return atomic_load(&max_bytes); }

/* Bytes a value of type t takes (its tensors' data), saturating at
 * UINT64_MAX; tuples nest as deep as the type does (bounded here). */
static uint64_t type_bytes(const irm_object *t, int nesting) {
  if (irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_TENSOR) {
    int64_t n = irm_tensor_type_numel(t); /* never overflows: irm_tensor_type_new checks */
    uint64_t elem = irm_dtype_size(irm_tensor_type_dtype(t));
    return n > 0 && (uint64_t)n > UINT64_MAX / elem ? UINT64_MAX : (uint64_t)(n > 0 ? n : 0) * elem;
  }
  if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TUPLE) return 0;
  if (nesting >= MAX_TUPLE_NESTING) return UINT64_MAX;
  uint64_t sum = 0;
  for (size_t i = 0; i < irm_tuple_type_size(t); i++) {
    uint64_t b = type_bytes(irm_tuple_type_field(t, i), nesting + 1);
    sum = b > UINT64_MAX - sum ? UINT64_MAX : sum + b;
  }
  return sum;
}

/* Refuses, before anything is allocated, a result bigger than the limit. */
static int check_result_size(const irm_object *op, const irm_object *type) {
  uint64_t need = type_bytes(type, 0), limit = irm_dataflow_evaluate_max_bytes();
  if (need <= limit) return IRM_OK;
  irm_object *text = NULL;
  irm_any a = irm_any_object((irm_object *)type);
  int rc = irm_repr(&a, &text);
  if (rc) return rc;
  char bytes[32];
  if (need == UINT64_MAX) snprintf(bytes, sizeof bytes, "more than %llu", (unsigned long long)(UINT64_MAX - 1));
  else snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)need);
  rc = irm_error(IRM_EVALUE,
                 "%s: the result %s takes %s bytes, more than the evaluator's limit of %zu bytes "
                 "(irm_dataflow_evaluate_set_max_bytes)",
                 irm_op_name(op), irm_error_quote(irm_string_data(text)), bytes, limit);
  irm_object_release(text);
  return rc;
}

/* ---- one node --------------------------------------------------------------------- */

static int describe_error(evaluator *ev, int rc, const frame *fr, const irm_object *node) {
  if (ev->contexts >= MAX_ERROR_CONTEXTS) {
    ev->skipped++;
    return rc;
  }
  ev->contexts++;
  return irm_error_context(rc, "in function '%s', evaluating a %s", irm_error_quote(fr->fn_name),
                           irm_expr_kind_name(irm_expr_kind_of(node)));
}

/* The values of call's arguments, borrowed into args (n of them). */
static void arg_values(const frame *fr, const irm_object *call, irm_any *args, size_t n) {
  for (size_t i = 0; i < n; i++) args[i] = *lookup(fr, irm_call_arg(call, i), 1);
}

static int apply_op(const frame *fr, const irm_object *call, const irm_any *args, size_t n, irm_any *out) {
  irm_object *op = irm_call_callee(call), *inputs = NULL, *type = irm_expr_type(call), *inferred = NULL;
  int rc = irm_array_new(args, n, &inputs);
  if (!rc && !type) {
    irm_object **types = irm_calloc(n ? n : 1, sizeof *types);
    irm_any *items = irm_calloc(n ? n : 1, sizeof *items);
    if (!types || !items) rc = irm_error_nomem_("evaluating");
    for (size_t i = 0; i < n && !rc; i++) {
      rc = value_type(&args[i], 0, &types[i]);
      items[i] = irm_any_object(types[i]);
    }
    irm_object *arg_types = NULL;
    if (!rc) rc = irm_array_new(items, n, &arg_types);
    if (!rc) rc = irm_op_infer_type(op, arg_types, irm_call_attrs(call), &inferred);
    irm_object_release(arg_types);
    for (size_t i = 0; types && i < n; i++) irm_object_release(types[i]);
    irm_free(types);
    irm_free(items);
    type = inferred;
  }
  if (!rc) rc = check_result_size(op, type);
  if (!rc) rc = irm_op_evaluate(op, inputs, irm_call_attrs(call), type, out);
  irm_object_release(inputs);
  irm_object_release(inferred);
  (void)fr;
  return rc;
}

static int apply_call(evaluator *ev, const frame *fr, const irm_object *call, irm_any *out) {
  size_t n = irm_call_arg_count(call);
  irm_any local[8];
  irm_any *args = n <= 8 ? local : irm_malloc(n * sizeof *args);
  if (!args) return irm_error_nomem_("evaluating");
  arg_values(fr, call, args, n);
  irm_object *callee = irm_call_callee(call);
  int rc;
  switch (irm_expr_kind_of(callee)) {
  case IRM_EXPR_OP: rc = apply_op(fr, call, args, n, out); break;
  case IRM_EXPR_GLOBAL_VAR: {
    const char *name = irm_global_var_name(callee);
    irm_object *f = irm_module_function(ev->mod, name);
    rc = f ? eval_function(ev, f, name, NULL, args, n, out)
           : irm_error(IRM_EKEY, "the module has no function '%s' (called as @%s)", name, name);
    break;
  }
  case IRM_EXPR_FUNCTION: rc = eval_function(ev, callee, fr->fn_name, fr, args, n, out); break;
  default:
    rc = irm_error(IRM_ETYPE, "calls of a %s are not supported by the evaluator (functions as values)",
                   irm_expr_kind_name(irm_expr_kind_of(callee)));
  }
  if (args != local) irm_free(args);
  return rc;
}

static int tuple_value(const frame *fr, const irm_object *t, irm_any *out) {
  size_t n = irm_tuple_size(t);
  irm_any *items = irm_calloc(n ? n : 1, sizeof *items);
  if (!items) return irm_error_nomem_("evaluating");
  for (size_t i = 0; i < n; i++) items[i] = *lookup(fr, irm_tuple_field(t, i), 1);
  irm_object *arr = NULL;
  int rc = irm_array_new(items, n, &arr);
  irm_free(items);
  if (!rc) *out = irm_any_object(arr);
  return rc;
}

static int item_value(const frame *fr, const irm_object *e, irm_any *out) {
  const irm_any *t = lookup(fr, irm_tuple_item_source(e), 1);
  int64_t i = irm_tuple_item_index(e);
  if (t->type_code != IRM_OBJECT || !irm_object_is(t->v_obj, "ffi.Array"))
    return irm_error(IRM_ETYPE, "element %lld of something that is not a tuple (%s)", (long long)i,
                     t->type_code == IRM_OBJECT ? irm_object_type_key(t->v_obj) : irm_any_type_name(t));
  if ((size_t)i >= irm_array_size(t->v_obj))
    return irm_error(IRM_EINDEX, "tuple index %lld out of range for a tuple of %zu", (long long)i,
                     irm_array_size(t->v_obj));
  return irm_any_copy(irm_array_at(t->v_obj, (size_t)i), out);
}

/* ---- the walk ----------------------------------------------------------------------- */

/* Whether child still needs evaluating (a callee that is only called does
 * not). */
static int needs_value(const frame *fr, const irm_object *child) { return !lookup(fr, child, 1); }

static int push(task **stack, size_t *depth, size_t *cap, irm_object *node) {
  if (*depth == *cap) {
    size_t c = *cap ? *cap * 2 : 64;
    task *grown = *cap ? irm_realloc(*stack, c * sizeof *grown) : irm_walk_stack_take_(sizeof *grown, c, &c);
    if (!grown) return irm_error_nomem_("evaluating");
    *stack = grown;
    *cap = c;
  }
  (*stack)[(*depth)++] = (task){node, 0};
  return IRM_OK;
}

/* The next child of t's node to evaluate first, or NULL when its
 * children are done. A Let binds its var between value and body. */
static int next_child(frame *fr, task *t, irm_object **child) {
  *child = NULL;
  irm_object *node = t->node;
  switch (irm_expr_kind_of(node)) {
  case IRM_EXPR_LET:
    if (t->next == 0) {
      t->next = 1;
      *child = irm_let_value(node);
    } else if (t->next == 1) {
      t->next = 2;
      const irm_any *v = lookup(fr, irm_let_value(node), 1);
      int rc = bind_copy(fr, irm_let_var(node), v);
      if (rc) return rc;
      *child = irm_let_body(node);
    }
    return IRM_OK;
  case IRM_EXPR_CALL:
    if (t->next == 0) t->next = 1; /* the callee is applied, not evaluated */
    if (t->next < irm_expr_child_count(node)) *child = irm_expr_child(node, t->next++);
    return IRM_OK;
  case IRM_EXPR_TUPLE:
  case IRM_EXPR_TUPLE_GET_ITEM:
    if (t->next < irm_expr_child_count(node)) *child = irm_expr_child(node, t->next++);
    return IRM_OK;
  default: return IRM_OK;
  }
}

static int value_of_node(evaluator *ev, frame *fr, const irm_object *node, irm_any *out) {
  *out = irm_any_none();
  switch (irm_expr_kind_of(node)) {
  case IRM_EXPR_CONSTANT:
    return irm_any_copy(&(irm_any){.type_code = IRM_OBJECT, .v_obj = irm_constant_data(node)}, out);
  case IRM_EXPR_TUPLE: return tuple_value(fr, node, out);
  case IRM_EXPR_TUPLE_GET_ITEM: return item_value(fr, node, out);
  case IRM_EXPR_LET: return irm_any_copy(lookup(fr, irm_let_body(node), 1), out);
  case IRM_EXPR_CALL: return apply_call(ev, fr, node, out);
  case IRM_EXPR_VAR:
    return irm_error(IRM_EVALUE, "variable %%%s is not bound here (used out of its scope?)", irm_var_name(node));
  default:
    return irm_error(IRM_ETYPE, "a %s used as a value is not supported by the evaluator",
                     irm_expr_kind_name(irm_expr_kind_of(node)));
  }
}

static int eval_expr(evaluator *ev, frame *fr, irm_object *root, irm_any *out) {
  task *stack = NULL;
  size_t depth = 0, cap = 0;
  int rc = needs_value(fr, root) ? push(&stack, &depth, &cap, root) : IRM_OK;
  while (!rc && depth) {
    task *t = &stack[depth - 1];
    irm_object *child = NULL;
    if ((rc = next_child(fr, t, &child))) break;
    if (child) {
      if (needs_value(fr, child)) rc = push(&stack, &depth, &cap, child);
      continue;
    }
    irm_object *node = t->node;
    depth--;
    irm_any v;
    if ((rc = value_of_node(ev, fr, node, &v))) {
      rc = describe_error(ev, rc, fr, node);
      break;
    }
    rc = bind(fr, node, v);
  }
  irm_walk_stack_give_(stack, sizeof *stack, cap);
  return rc ? rc : irm_any_copy(lookup(fr, root, 1), out);
}

/* ---- functions --------------------------------------------------------------------- */

static int check_input(const char *name, const irm_object *param, size_t i, const irm_any *v) {
  const irm_object *want = irm_expr_type(param);
  if (!want) return IRM_OK;
  irm_object *got = NULL;
  int rc = value_type(v, 0, &got);
  if (rc) return irm_error_context(rc, "function '%s': input %zu (%%%s)", name, i + 1, irm_var_name(param));
  if (!irm_dataflow_type_equal(want, got)) {
    irm_object *ws = NULL, *gs = NULL;
    irm_any wa = irm_any_object((irm_object *)want), ga = irm_any_object(got);
    rc = irm_repr(&wa, &ws);
    if (!rc) rc = irm_repr(&ga, &gs);
    if (!rc)
      rc = irm_error(IRM_ETYPE, "function '%s': input %zu (%%%s) is %s, the parameter expects %s", name, i + 1,
                     irm_var_name(param), irm_string_data(gs), irm_string_data(ws));
    irm_object_release(ws);
    irm_object_release(gs);
  }
  irm_object_release(got);
  return rc;
}

static int eval_function(evaluator *ev, const irm_object *f, const char *name, const frame *parent,
                         const irm_any *inputs, size_t n, irm_any *out) {
  if (irm_expr_kind_of(f) != IRM_EXPR_FUNCTION)
    return irm_error(IRM_ETYPE, "function '%s' is a %s, which the evaluator cannot run", name, irm_object_type_key(f));
  size_t want = irm_function_param_count(f);
  if (n != want)
    return irm_error(IRM_EVALUE, "function '%s' takes %zu input%s, got %zu", name, want, want == 1 ? "" : "s", n);
  if (ev->depth >= IRM_EVALUATE_MAX_CALL_DEPTH)
    return irm_error(IRM_ERUNTIME, "calls nested deeper than %d (in function '%s')", IRM_EVALUATE_MAX_CALL_DEPTH,
                     irm_error_quote(name));
  ev->depth++;
  frame fr = {IRM_PTR_TABLE_INIT_, parent, name};
  int rc = IRM_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    const irm_object *param = irm_function_param(f, i);
    rc = check_input(name, param, i, &inputs[i]);
    if (!rc) rc = bind_copy(&fr, param, &inputs[i]);
  }
  if (!rc) rc = eval_expr(ev, &fr, irm_function_body(f), out);
  frame_free(&fr);
  ev->depth--;
  return rc;
}

int irm_dataflow_evaluate(const irm_module *mod, const char *name, const irm_object *inputs, irm_any *out) {
  if (!name || !out) return irm_error(IRM_EVALUE, "irm_dataflow_evaluate: name and out must not be NULL");
  *out = irm_any_none();
  if (!irm_object_is(mod, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "irm_dataflow_evaluate: expected ir.IRModule, got %s",
                     mod ? irm_object_type_key(mod) : "NULL");
  if (!irm_object_is(inputs, "ffi.Array"))
    return irm_error(IRM_ETYPE, "irm_dataflow_evaluate: inputs must be an ffi.Array of Tensors, got %s",
                     inputs ? irm_object_type_key(inputs) : "NULL");
  irm_object *f = irm_module_function(mod, name);
  if (!f) {
    irm_object *names = NULL;
    int rc = irm_module_function_names(mod, &names);
    if (rc) return rc;
    size_t count = irm_array_size(names);
    const char **candidates = irm_calloc(count ? count : 1, sizeof *candidates);
    for (size_t i = 0; candidates && i < count; i++) candidates[i] = irm_string_data(irm_array_at(names, i)->v_obj);
    const char *best = candidates ? irm_closest_name(name, candidates, count) : NULL;
    rc = best ? irm_error(IRM_EKEY, "the module has no function '%s' (did you mean '%s'?)", irm_error_quote(name), best)
              : irm_error(IRM_EKEY, "the module has no function '%s'", irm_error_quote(name));
    irm_free(candidates);
    irm_object_release(names);
    return rc;
  }
  size_t n = irm_array_size(inputs);
  for (size_t i = 0; i < n; i++) {
    const irm_any *v = irm_array_at(inputs, i); /* an int item has no object to look at */
    if (v->type_code != IRM_OBJECT || (!irm_is_tensor(v->v_obj) && !irm_object_is(v->v_obj, "ffi.Array")))
      return irm_error(IRM_ETYPE, "irm_dataflow_evaluate: input %zu must be a Tensor, got %s", i + 1,
                       irm_any_describe_(v));
  }
  evaluator ev = {mod, 0, 0, 0};
  const irm_any *first = n ? irm_array_at(inputs, 0) : NULL;
  int rc = eval_function(&ev, f, name, NULL, first, n, out);
  if (rc && ev.skipped)
    rc = irm_error_context(rc, "through %d more enclosing call%s", ev.skipped, ev.skipped == 1 ? "" : "s");
  return rc;
}

/* ---- the global ------------------------------------------------------------------------ */

static int g_evaluate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  const char *fn = "ir.Evaluate", *name = NULL;
  irm_object *mod = NULL, *inputs = NULL;
  int rc = irm_arg_count(fn, nargs, 3, 3);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc) rc = irm_arg_str(fn, args, 1, &name, NULL);
  if (!rc) rc = irm_arg_object(fn, args, 2, "ffi.Array", &inputs);
  if (rc) return rc;
  rc = irm_dataflow_evaluate(mod, name, inputs, ret);
  return rc ? irm_error_context_global_(rc, fn) : IRM_OK;
}

int irm_register_free_vars_builtins_(void); /* ir.FreeVars (free_vars.c) */

int irm_register_evaluate_builtins_(void) {
  static const irm_builtin_global table[] = {{"ir.Evaluate", g_evaluate}};
  int rc = irm_global_register_builtins_(table, 1);
  return rc ? rc : irm_register_free_vars_builtins_();
}
