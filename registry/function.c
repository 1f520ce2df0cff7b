/* Function objects (packed calling convention) and irm_func_call. */
#include <stddef.h>

#include "builtin_types.h"
#include "error_internal.h"
#include "global_internal.h"
#include "irm/error.h"
#include "object_internal.h"

void irm_function_finalize_(irm_object *self) {
  irm_function *f = (irm_function *)self;
  if (f->finalizer) f->finalizer(f->resource);
  irm_object_release(atomic_load_explicit(&f->name, memory_order_acquire));
}

int irm_func_new_packed(irm_packed_cfunc fn, void *resource, void (*finalizer)(void *),
                        irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_func_new_packed: out must not be NULL");
  *out = NULL;
  if (!fn) return irm_error(IRM_EVALUE, "irm_func_new_packed: fn must not be NULL");
  irm_object *o = NULL;
  int rc = irm_object_alloc_(IRM_TYPE_FUNCTION, sizeof(irm_function), &o);
  if (rc) return rc;
  irm_function *f = (irm_function *)o;
  f->fn = fn;
  f->resource = resource;
  f->finalizer = finalizer;
  atomic_init(&f->name, NULL);
  *out = o;
  return IRM_OK;
}

const char *irm_func_name(const irm_object *f) {
  if (!irm_is_type_(f, IRM_TYPE_FUNCTION)) return "<anonymous>";
  irm_object *name = atomic_load_explicit(&((irm_function *)f)->name, memory_order_acquire);
  return name ? irm_string_data(name) : "<anonymous>";
}

int irm_func_packed_parts_(const irm_object *f, irm_packed_cfunc *fn, void **resource) {
  if (!irm_is_type_(f, IRM_TYPE_FUNCTION)) return 0;
  *fn = ((const irm_function *)f)->fn;
  *resource = ((const irm_function *)f)->resource;
  return 1;
}

/* Gives f its first global name; later names leave it as it was. The name
 * is a label for messages, so a benign one-time publication suffices. */
void irm_func_set_name_(irm_object *f, irm_object *name) {
  irm_function *fn = (irm_function *)f;
  irm_object *expected = NULL;
  irm_object_retain(name);
  if (!atomic_compare_exchange_strong_explicit(&fn->name, &expected, name, memory_order_acq_rel,
                                               memory_order_acquire))
    irm_object_release(name);
}

_Static_assert(offsetof(irm_function, fn) == offsetof(irm_function_head_, fn_) &&
                   offsetof(irm_function, resource) == offsetof(irm_function_head_, resource_) &&
                   offsetof(irm_object, type_index) == offsetof(irm_function_head_, type_index_),
               "irm_function_head_ in function.h must match irm_function");

int irm_func_call_failed_(irm_object *f, unsigned generation_before, irm_any *ret) {
  irm_any_release(ret); /* a failing callee's partial result is dropped */
  if (irm_error_generation_ == generation_before)
    return irm_error(IRM_ERUNTIME, "function '%s' failed", irm_error_quote(irm_func_name(f)));
  return irm_error_code_of(irm_last_error());
}

int (irm_func_call)(irm_object *f, const irm_any *args, int32_t nargs, irm_any *ret) {
  if (__builtin_expect(!irm_is_type_(f, IRM_TYPE_FUNCTION), 0)) {
    if (ret) *ret = irm_any_none();
    return irm_error(IRM_ETYPE, "irm_func_call: expected ffi.Function, got %s",
                     f ? irm_object_type_key(f) : "NULL");
  }
  if (__builtin_expect(!ret || nargs < 0 || (!args && nargs > 0), 0)) {
    if (ret) *ret = irm_any_none();
    return irm_error(IRM_EVALUE, "irm_func_call: %s", !ret ? "ret must not be NULL"
                                                       : "args must hold nargs >= 0 values");
  }
  const irm_function *fn = (const irm_function *)f;
  ret->type_code = IRM_NONE;
  ret->v_int = 0;
  unsigned generation = irm_error_generation_;
  if (__builtin_expect(fn->fn(args, nargs, ret, fn->resource) == 0, 1)) return IRM_OK;
  return irm_func_call_failed_(f, generation, ret);
}
