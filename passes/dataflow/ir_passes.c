/* The built-in IR passes (ir_passes.h): their registration, and what they
 * share (which functions a pass leaves alone, rewriting each function). */
#include <string.h>

#include "ir_pass_util.h"
#include "irm/container.h"
#include "irm/error.h"

int irm_ir_pass_skips_function(const irm_object *f) {
  if (irm_expr_kind_of(f) != IRM_EXPR_FUNCTION) return 1;
  irm_any v = irm_any_none();
  int skip = 0;
  const char *flags[] = {IRM_BASE_FUNC_ATTR_COMPILER, IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION, IRM_BASE_FUNC_ATTR_PRIMITIVE};
  for (size_t i = 0; !skip && i < 3; i++) {
    if (irm_base_func_get_attr(f, flags[i], &v)) {
      irm_clear_error();
      continue;
    }
    if (i == 0) skip = v.type_code != IRM_NONE;
    else skip = (v.type_code == IRM_BOOL || v.type_code == IRM_INT) && v.v_int != 0;
    irm_any_release(&v);
  }
  return skip;
}

int irm_ir_is_call_of_(const irm_object *e, const char *name) {
  const char *op = irm_op_name(irm_call_callee(e));
  return op && strcmp(op, name) == 0;
}

int irm_ir_map_functions_(irm_module *mod, irm_ir_function_fn fn, void *ctx, irm_module **out) {
  *out = NULL;
  irm_object *names = NULL;
  int rc = irm_module_function_names(mod, &names);
  if (rc) return rc;
  irm_module *result = mod;
  irm_object_retain(mod);
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_object *f = irm_module_function(mod, name), *g = NULL;
    if (irm_ir_pass_skips_function(f)) continue;
    if ((rc = fn(ctx, f, &g))) {
      irm_error_context(rc, "in function '%s'", name);
      break;
    }
    if (g != f && irm_expr_kind_of(g) != IRM_EXPR_FUNCTION)
      rc = irm_error(IRM_ETYPE, "rewriting function '%s' gave a %s, not a dataflow.Function", name,
                     irm_expr_kind_name(irm_expr_kind_of(g)));
    if (!rc && g != f) rc = irm_module_set_function_move(&result, name, g);
    irm_object_release(g);
  }
  irm_object_release(names);
  if (rc) {
    irm_object_release(result);
    return rc;
  }
  *out = result;
  return IRM_OK;
}

static int rewrite_function(void *rw, irm_object *f, irm_object **out) {
  return irm_expr_rewrite(rw, f, out);
}

int irm_ir_rewrite_functions_(irm_module *mod, const irm_expr_rewriter *rw, irm_module **out) {
  return irm_ir_map_functions_(mod, rewrite_function, (void *)rw, out);
}

/* The factory of every built-in IR pass: the pass name is the kind's, the
 * body and opt_level come from a table filled at registration. */
typedef struct ir_pass_entry {
  const char *name;
  int opt_level;
  irm_module_pass_fn body;
} ir_pass_entry;

#define MAX_IR_PASSES 16
static ir_pass_entry entries[MAX_IR_PASSES];
static _Atomic size_t n_entries;
static pthread_mutex_t entries_lock = PTHREAD_MUTEX_INITIALIZER;

static const ir_pass_entry *entry_of(const char *name) {
  size_t n = atomic_load(&n_entries);
  for (size_t i = 0; i < n; i++)
    if (strcmp(entries[i].name, name) == 0) return &entries[i];
  return NULL;
}

/* Factories know their pass by the options' owner; one factory per entry
 * keeps that simple: the table index is baked into a small trampoline. */
static int make_pass(size_t i, const irm_object *options, irm_pass **out) {
  const ir_pass_entry *e = &entries[i];
  return irm_module_pass_new(e->name, e->opt_level, NULL, 0, options, e->body, NULL, NULL, out);
}
#define FACTORY(i) \
  static int factory_##i(const irm_object *options, irm_pass **out) { return make_pass(i, options, out); }
FACTORY(0) FACTORY(1) FACTORY(2) FACTORY(3) FACTORY(4) FACTORY(5) FACTORY(6) FACTORY(7)
FACTORY(8) FACTORY(9) FACTORY(10) FACTORY(11) FACTORY(12) FACTORY(13) FACTORY(14) FACTORY(15)
static irm_pass_factory_fn const factories[MAX_IR_PASSES] = {
    factory_0, factory_1, factory_2,  factory_3,  factory_4,  factory_5,  factory_6,  factory_7,
    factory_8, factory_9, factory_10, factory_11, factory_12, factory_13, factory_14, factory_15};

int irm_ir_pass_register_(const char *name, int opt_level, irm_module_pass_fn body, irm_kind_setup_fn setup) {
  pthread_mutex_lock(&entries_lock);
  const ir_pass_entry *found = entry_of(name);
  size_t i = found ? (size_t)(found - entries) : atomic_load(&n_entries);
  int rc = IRM_OK;
  if (!found) {
    if (i == MAX_IR_PASSES) rc = irm_error(IRM_ERUNTIME, "too many built-in IR passes (raise MAX_IR_PASSES)");
    else {
      entries[i] = (ir_pass_entry){name, opt_level, body};
      atomic_store(&n_entries, i + 1);
    }
  }
  pthread_mutex_unlock(&entries_lock);
  irm_kind *kind = NULL;
  if (!rc) rc = irm_pass_register(name, factories[i], &kind);
  if (!rc && setup) rc = setup(kind);
  return rc;
}
