/* The op registry (op.h): the "op" category of the kind registry, and the
 * interned dataflow.Op nodes that stand for ops in expressions. */
#include <stdio.h>
#include <string.h>

#include "expr_node.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "text/text_lex.h"

static const char *const pattern_names[] = {
    [IRM_OP_ELEMWISE] = "elemwise",
    [IRM_OP_BROADCAST] = "broadcast",
    [IRM_OP_INJECTIVE] = "injective",
    [IRM_OP_COMM_REDUCE] = "reduce",
    [IRM_OP_OUT_ELEMWISE_FUSABLE] = "out-elemwise-fusable",
    [IRM_OP_TUPLE] = "tuple",
    [IRM_OP_OPAQUE] = "opaque",
};

const char *irm_op_pattern_name(irm_op_pattern pattern) {
  return (unsigned)pattern < sizeof pattern_names / sizeof pattern_names[0] ? pattern_names[pattern] : NULL;
}

/* ---- registration ----------------------------------------------------------------- */

/* "num_inputs" is set below every level a user picks, so the op's own
 * setting always wins. */
#define NUM_INPUTS_DEFAULT_LEVEL 0
#define NUM_INPUTS_LEVEL 10

/* The longest op name: the parser reads names of up to 255 bytes. */
#define IRM_OP_NAME_MAX 255

/* An op's name is written bare in the text form, so it must read back as
 * one: an identifier (text_lex.c) and none of the words that start
 * something else where an op may stand. */
static int check_op_name(const char *name) {
  static const char *const reserved[] = {"const", "fn", "let"};
  size_t len = strlen(name);
  if (len > IRM_OP_NAME_MAX)
    return irm_error(IRM_EVALUE, "op name '%s' has %zu bytes; an op name has at most %d", irm_error_quote(name), len,
                     IRM_OP_NAME_MAX);
  if (!irm_dataflow_is_ident_(name, len))
    return irm_error(IRM_EVALUE,
                     "op name '%s' is not an identifier of the text form: segments of letters, digits and '_' "
                     "(each starting with a letter or '_') joined by '.', like 'nn.conv2d'",
                     irm_error_quote(name));
  for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
    if (strcmp(name, reserved[i]) == 0)
      return irm_error(IRM_EVALUE, "op name '%s' is a word of the text form and cannot name an op", name);
  return IRM_OK;
}

static int op_prepare(irm_kind *kind) {
  int rc = check_op_name(irm_kind_name(kind));
  if (rc) return rc;
  irm_any any = irm_any_int(-1);
  return irm_kind_set_attr(kind, IRM_OP_ATTR_NUM_INPUTS, &any, NUM_INPUTS_DEFAULT_LEVEL);
}

int irm_op_set_num_inputs(irm_kind *kind, int32_t num_inputs) {
  if (!kind) return irm_error(IRM_EVALUE, "irm_op_set_num_inputs: kind must not be NULL");
  if (strcmp(irm_kind_category(kind), IRM_OP_CATEGORY) != 0)
    return irm_error(IRM_EVALUE, "irm_op_set_num_inputs: '%s' is a %s kind, not an op", irm_kind_name(kind),
                     irm_kind_category(kind));
  if (num_inputs < -1)
    return irm_error(IRM_EVALUE, "op '%s': num_inputs must be >= 0, or -1 for any number; got %d", irm_kind_name(kind),
                     (int)num_inputs);
  irm_any any = irm_any_int(num_inputs);
  int rc = irm_kind_reset_attr(kind, IRM_OP_ATTR_NUM_INPUTS);
  return rc ? rc : irm_kind_set_attr(kind, IRM_OP_ATTR_NUM_INPUTS, &any, NUM_INPUTS_LEVEL);
}

int irm_op_register(const char *name, int32_t num_inputs, irm_kind **out_kind) {
  if (out_kind) *out_kind = NULL;
  if (num_inputs < -1)
    return irm_error(IRM_EVALUE, "op '%s': num_inputs must be >= 0, or -1 for any number; got %d",
                     name ? irm_error_quote(name) : "(null)", (int)num_inputs);
  irm_kind *kind = NULL;
  if (name && irm_kind_find(IRM_OP_CATEGORY, name, &kind) == IRM_OK)
    return irm_error(IRM_EKEY, "op '%s' is already registered", name);
  irm_clear_error();
  int rc = irm_kind_register(IRM_OP_CATEGORY, name, &kind);
  if (rc) return rc;
  if (num_inputs != -1 && (rc = irm_op_set_num_inputs(kind, num_inputs))) return rc;
  if (out_kind) *out_kind = kind;
  return IRM_OK;
}

/* ---- interned op nodes --------------------------------------------------------------- */

typedef struct interned_op {
  UT_hash_handle hh;
  irm_kind *kind;
  irm_object *node; /* kept for the process */
} interned_op;

static interned_op *interned;
static pthread_mutex_t interned_lock = PTHREAD_MUTEX_INITIALIZER;

static int unknown_op(const char *name) {
  irm_object *names = NULL;
  int rc = irm_kind_list(IRM_OP_CATEGORY, &names);
  if (rc) return rc;
  size_t n = irm_array_size(names);
  const char **candidates = irm_malloc((n ? n : 1) * sizeof *candidates);
  if (!candidates) {
    irm_object_release(names);
    return irm_error_nomem_("reporting an unknown op");
  }
  for (size_t i = 0; i < n; i++) candidates[i] = irm_string_data(irm_array_at(names, i)->v_obj);
  const char *best = irm_closest_name(name, candidates, n);
  if (best) rc = irm_error(IRM_EKEY, "unknown op '%s' (did you mean '%s'?)", irm_error_quote(name), best);
  else
    rc = irm_error(IRM_EKEY, "unknown op '%s'; %zu ops are registered (op.ListOps lists them)", irm_error_quote(name),
                   n);
  irm_free(candidates);
  irm_object_release(names);
  return rc;
}

int irm_op_get(const char *name, irm_object **out) {
  if (!name || !out) return irm_error(IRM_EVALUE, "irm_op_get: name and out must not be NULL");
  *out = NULL;
  irm_kind *kind = NULL;
  if (irm_kind_find(IRM_OP_CATEGORY, name, &kind)) return unknown_op(name);
  pthread_mutex_lock(&interned_lock);
  interned_op *e = NULL;
  HASH_FIND_PTR(interned, &kind, e);
  int rc = IRM_OK;
  if (!e) {
    irm_object *s = NULL, *node = NULL;
    e = irm_calloc(1, sizeof *e);
    rc = e ? irm_string_from_cstr(irm_kind_name(kind), &s) : irm_error_nomem_("interning an op");
    if (!rc) rc = irm_expr_node_make_(IRM_EXPR_OP, NULL, 0, NULL, s, NULL, 0, kind, &node);
    irm_object_release(s);
    if (!rc) {
      e->kind = kind;
      e->node = node;
      int irm_hash_oom = 0;
      HASH_ADD_PTR(interned, kind, e);
      if (irm_hash_oom) {
        rc = irm_error_nomem_("interning an op");
        irm_object_release(node);
      }
    }
    if (rc) {
      irm_free(e);
      e = NULL;
    }
  }
  if (e) {
    irm_object_retain(e->node);
    *out = e->node;
  }
  pthread_mutex_unlock(&interned_lock);
  return rc;
}

static const expr_node *op_node(const irm_object *op) {
  const expr_node *p = irm_expr_node_(op);
  return p && p->expr_kind == IRM_EXPR_OP ? p : NULL;
}

const char *irm_op_name(const irm_object *op) {
  const expr_node *p = op_node(op);
  return p ? irm_string_data(irm_expr_extra_(p)) : NULL;
}

/* ---- hooks: op properties resolved once -------------------------------------------
 * Each op node has a slot for its hooks, built on first use and again after
 * any kind attribute changed (irm_kind_generation_ moved) if this op's
 * differ; otherwise the hooks are only stamped current. Readers load the
 * slot and compare a counter: no lock, no hash lookup, no copy. Superseded
 * hooks stay (a reader may hold them) until the op node goes. */

static irm_kind *kind_slow(const irm_object *op) {
  const expr_node *p = op_node(op);
  return p && irm_kind_attached_(p->kind) ? p->kind : NULL;
}

static int32_t num_inputs_slow(irm_kind *kind) {
  irm_any v = irm_any_none();
  if (!kind || irm_kind_get_attr(kind, IRM_OP_ATTR_NUM_INPUTS, &v) || v.type_code != IRM_INT) {
    irm_any_release(&v);
    irm_clear_error();
    return -2;
  }
  return (int32_t)v.v_int;
}

static irm_op_pattern pattern_slow(irm_kind *kind) {
  irm_any v = irm_any_none();
  irm_op_pattern pattern = IRM_OP_OPAQUE;
  if (kind && irm_kind_get_attr(kind, IRM_OP_ATTR_PATTERN, &v) == IRM_OK && v.type_code == IRM_INT &&
      irm_op_pattern_name((irm_op_pattern)v.v_int))
    pattern = (irm_op_pattern)v.v_int;
  irm_clear_error();
  irm_any_release(&v);
  return pattern;
}

/* The function attribute attr of kind (NEW) or NULL. */
static irm_object *function_slow(irm_kind *kind, const char *attr) {
  irm_any v = irm_any_none();
  if (!kind || irm_kind_get_attr(kind, attr, &v) || v.type_code != IRM_OBJECT ||
      !irm_object_is(v.v_obj, "ffi.Function")) {
    irm_any_release(&v);
    irm_clear_error();
    return NULL;
  }
  return v.v_obj;
}

static void hooks_release(irm_op_hooks_ *h) {
  irm_object_release(h->infer_type);
  irm_object_release(h->evaluate);
  irm_object_release(h->codegen_c);
}

void irm_op_hooks_free_(expr_node *p) {
  irm_op_hooks_ *h = atomic_load_explicit(irm_op_hooks_slot_(p), memory_order_acquire);
  while (h) {
    irm_op_hooks_ *older = h->older;
    hooks_release(h);
    irm_free(h);
    h = older;
  }
}

const irm_op_hooks_ *irm_op_hooks_of_(const irm_object *op) {
  const expr_node *p = op_node(op);
  if (!p) return NULL;
  _Atomic(irm_op_hooks_ *) *slot = irm_op_hooks_slot_(p);
  uint64_t gen = atomic_load_explicit(&irm_kind_generation_, memory_order_acquire);
  irm_op_hooks_ *h = atomic_load_explicit(slot, memory_order_acquire);
  if (h && atomic_load_explicit(&h->generation, memory_order_acquire) == gen) return h;
  /* Read at gen (the counter first: a change after it shows as a new gen). */
  irm_op_hooks_ now;
  now.kind = kind_slow(op);
  now.num_inputs = num_inputs_slow(now.kind);
  now.pattern = pattern_slow(now.kind);
  now.infer_type = function_slow(now.kind, IRM_OP_ATTR_INFER_TYPE);
  now.evaluate = function_slow(now.kind, IRM_OP_ATTR_EVALUATE);
  now.codegen_c = function_slow(now.kind, IRM_OP_ATTR_CODEGEN_C);
  if (h && h->kind == now.kind && h->num_inputs == now.num_inputs && h->pattern == now.pattern &&
      h->infer_type == now.infer_type && h->evaluate == now.evaluate && h->codegen_c == now.codegen_c) {
    hooks_release(&now);
    atomic_store_explicit(&h->generation, gen, memory_order_release); /* still right: stamp it */
    return h;
  }
  irm_op_hooks_ *fresh = irm_malloc(sizeof *fresh);
  if (!fresh) {
    hooks_release(&now);
    return NULL;
  }
  *fresh = now;
  atomic_init(&fresh->generation, gen);
  fresh->older = h;
  while (
      !atomic_compare_exchange_weak_explicit(slot, &fresh->older, fresh, memory_order_acq_rel, memory_order_acquire)) {
  }
  return fresh;
}

/* The kind, when it is still the registered one of its name. */
irm_kind *irm_op_kind(const irm_object *op) {
  const irm_op_hooks_ *h = irm_op_hooks_of_(op);
  return h ? h->kind : kind_slow(op);
}

int32_t irm_op_num_inputs(const irm_object *op) {
  const irm_op_hooks_ *h = irm_op_hooks_of_(op);
  return h ? h->num_inputs : num_inputs_slow(kind_slow(op));
}

/* The hooked function attr of h, or NULL (not hooked, or not set). */
static irm_object *hooked_function(const irm_op_hooks_ *h, const char *attr) {
  if (!h) return NULL;
  if (strcmp(attr, IRM_OP_ATTR_INFER_TYPE) == 0) return h->infer_type;
  if (strcmp(attr, IRM_OP_ATTR_EVALUATE) == 0) return h->evaluate;
  if (strcmp(attr, IRM_OP_ATTR_CODEGEN_C) == 0) return h->codegen_c;
  return NULL;
}

int irm_op_get_attr(const irm_object *op, const char *attr, irm_any *out) {
  if (!attr || !out) return irm_error(IRM_EVALUE, "irm_op_get_attr: attr and out must not be NULL");
  *out = irm_any_none();
  irm_object *fn = hooked_function(irm_op_hooks_of_(op), attr);
  if (fn) { /* set: the common case, without the registry */
    irm_object_retain(fn);
    *out = irm_any_object(fn);
    return IRM_OK;
  }
  const expr_node *p = op_node(op);
  if (!p)
    return irm_error(IRM_ETYPE, "irm_op_get_attr: expected dataflow.Op, got %s", op ? irm_object_type_key(op) : "NULL");
  irm_kind *kind = irm_op_kind(op);
  if (!kind) return irm_error(IRM_EKEY, "op '%s' is no longer registered", irm_op_name(op));
  int rc = irm_kind_get_attr(kind, attr, out);
  return rc ? irm_error_context(rc, "op '%s'", irm_op_name(op)) : IRM_OK;
}

irm_op_pattern irm_op_pattern_of(const irm_object *op) {
  const irm_op_hooks_ *h = irm_op_hooks_of_(op);
  return h ? h->pattern : pattern_slow(kind_slow(op));
}

int irm_op_check_attrs(const irm_object *op, const irm_object *attrs, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_op_check_attrs: out must not be NULL");
  *out = NULL;
  if (!op_node(op))
    return irm_error(IRM_ETYPE, "irm_op_check_attrs: expected dataflow.Op, got %s",
                     op ? irm_object_type_key(op) : "NULL");
  irm_kind *kind = irm_op_kind(op);
  if (!kind) return irm_error(IRM_EKEY, "op '%s' is no longer registered", irm_op_name(op));
  irm_object *empty = NULL;
  int rc = attrs ? IRM_OK : irm_map_new(&empty);
  if (!rc) rc = irm_kind_validate(kind, attrs ? attrs : empty, NULL, 0, out);
  irm_object_release(empty);
  return rc ? irm_error_context(rc, "attributes of %s", irm_op_name(op)) : IRM_OK;
}

/* ---- running op attributes ------------------------------------------------------------ */

/* The op's function attribute attr (NEW) or an error naming what is
 * missing. */
static int op_function(const irm_object *op, const char *attr, int missing_code, irm_object **out) {
  *out = NULL;
  if (!op_node(op)) return irm_error(IRM_ETYPE, "expected dataflow.Op, got %s", op ? irm_object_type_key(op) : "NULL");
  irm_any v = irm_any_none();
  int rc = irm_op_get_attr(op, attr, &v);
  if (rc == IRM_EATTR) { /* no op has it yet: the same as this op lacking it */
    irm_clear_error();
    rc = IRM_OK;
  }
  if (rc) return rc;
  if (v.type_code != IRM_OBJECT || !irm_object_is(v.v_obj, "ffi.Function")) {
    irm_any_release(&v);
    return irm_error(missing_code, "op '%s' has no %s", irm_op_name(op), attr);
  }
  *out = v.v_obj;
  return IRM_OK;
}

/* Puts "<op>: " before a message that does not name the op. */
static int with_op_context(int rc, const irm_object *op) {
  const char *msg = irm_last_error(), *name = irm_op_name(op);
  const char *colon = strstr(msg, ": ");
  if (colon && strncmp(colon + 2, name, strlen(name)) != 0) return irm_error_context(rc, "%s", name);
  return rc;
}

int irm_op_infer_type(const irm_object *op, const irm_object *arg_types, const irm_object *attrs, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_op_infer_type: out must not be NULL");
  *out = NULL;
  irm_object *fn = NULL;
  int rc = op_function(op, IRM_OP_ATTR_INFER_TYPE, IRM_ETYPE, &fn);
  if (rc) return rc;
  irm_any args[] = {irm_any_object((irm_object *)arg_types), irm_any_object((irm_object *)attrs)}, ret = irm_any_none();
  rc = irm_func_call(fn, args, 2, &ret);
  irm_object_release(fn);
  if (rc) return with_op_context(rc, op);
  if (ret.type_code != IRM_OBJECT || irm_dataflow_type_kind_of(ret.v_obj) == IRM_DATAFLOW_TYPE_NONE) {
    rc = irm_error(IRM_ETYPE, "%s: FInferType returned %s, not an IR type", irm_op_name(op),
                   ret.type_code == IRM_OBJECT ? irm_object_type_key(ret.v_obj) : irm_any_type_name(&ret));
    irm_any_release(&ret);
    return rc;
  }
  *out = ret.v_obj;
  return IRM_OK;
}

/* Whether value (a Tensor or an Array of values) has type. */
static int value_matches(const irm_any *value, const irm_object *type, int nesting) {
  if (value->type_code != IRM_OBJECT) return 0;
  if (irm_dataflow_type_kind_of(type) == IRM_DATAFLOW_TYPE_TENSOR) {
    const DLTensor *dl = irm_tensor_dl(value->v_obj);
    if (!dl || !irm_dtype_equal(dl->dtype, irm_tensor_type_dtype(type)) || dl->ndim != irm_tensor_type_ndim(type))
      return 0;
    return dl->ndim == 0 || memcmp(dl->shape, irm_tensor_type_shape(type), (size_t)dl->ndim * sizeof(int64_t)) == 0;
  }
  if (irm_dataflow_type_kind_of(type) != IRM_DATAFLOW_TYPE_TUPLE || nesting >= 64 ||
      !irm_object_is(value->v_obj, "ffi.Array"))
    return 0;
  size_t n = irm_array_size(value->v_obj);
  if (n != irm_tuple_type_size(type)) return 0;
  for (size_t i = 0; i < n; i++)
    if (!value_matches(irm_array_at(value->v_obj, i), irm_tuple_type_field(type, i), nesting + 1)) return 0;
  return 1;
}

/* TypeError naming the op: its FEvaluate gave a value of another type than
 * the call has. */
static int result_mismatch(const irm_object *op, const irm_any *value, const irm_object *type) {
  irm_object *vt = NULL, *tt = NULL;
  irm_any ta = irm_any_object((irm_object *)type);
  int rc = irm_repr(value, &vt);
  if (!rc) rc = irm_repr(&ta, &tt);
  if (!rc) {
    char v[240];
    snprintf(v, sizeof v, "%s", irm_error_quote(irm_string_data(vt)));
    rc = irm_error(IRM_ETYPE, "%s: FEvaluate returned %s, which does not match the call's type %s", irm_op_name(op), v,
                   irm_error_quote(irm_string_data(tt)));
  }
  irm_object_release(vt);
  irm_object_release(tt);
  return rc;
}

int irm_op_evaluate(const irm_object *op, const irm_object *inputs, const irm_object *attrs,
                    const irm_object *result_type, irm_any *out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_op_evaluate: out must not be NULL");
  *out = irm_any_none();
  irm_object *fn = NULL;
  int rc = op_function(op, IRM_OP_ATTR_EVALUATE, IRM_ERUNTIME, &fn);
  if (rc) return rc;
  irm_any args[] = {irm_any_object((irm_object *)inputs), irm_any_object((irm_object *)attrs),
                    irm_any_object((irm_object *)result_type)};
  rc = irm_func_call(fn, args, 3, out);
  irm_object_release(fn);
  if (rc) return with_op_context(rc, op);
  if (out->type_code != IRM_OBJECT || (!irm_is_tensor(out->v_obj) && !irm_object_is(out->v_obj, "ffi.Array"))) {
    rc = irm_error(IRM_ETYPE, "%s: FEvaluate returned %s, not a Tensor or Array", irm_op_name(op),
                   out->type_code == IRM_OBJECT ? irm_object_type_key(out->v_obj) : irm_any_type_name(out));
    irm_any_release(out);
    *out = irm_any_none();
  } else if (result_type && irm_dataflow_type_kind_of(result_type) != IRM_DATAFLOW_TYPE_NONE &&
             !value_matches(out, result_type, 0)) {
    rc = result_mismatch(op, out, result_type);
    irm_any_release(out);
    *out = irm_any_none();
  }
  return rc;
}

int irm_register_op_builtins_(void) { return irm_kind_category_set_prepare(IRM_OP_CATEGORY, op_prepare); }
