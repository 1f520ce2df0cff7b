/* transform.PassContext (pass.h): making a context, its fields, its info
 * Map, the required/disabled look-ups the pass runner asks for, and the
 * entry point of the context subsystem's built-ins. The per-thread stack
 * is in context_stack.c, instruments in instrument_object.c, config
 * options in pass_config.c, the globals in context_globals.c. */
#include <string.h>

#include "irm_internal.h"
#include "context_impl.h"
#include "context_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"

_Atomic int32_t irm_pass_context_type_ = -1;

context_payload *irm_context_payload_(const irm_pass_context *ctx) {
  int32_t t = atomic_load_explicit(&irm_pass_context_type_, memory_order_acquire);
  if (!ctx || t < 0 || irm_object_type_index(ctx) != t) return NULL;
  return irm_object_payload((irm_object *)ctx);
}

int irm_context_type_error_(const char *fn, const irm_object *o) {
  return irm_error(IRM_ETYPE, "%s: expected transform.PassContext, got %s", fn, o ? irm_object_type_key(o) : "NULL");
}

/* ---- making contexts ----------------------------------------------------------- */

static int check_names(const char *what, const irm_object *names, irm_object **out);
static int check_instruments(const irm_object *instruments, irm_object **out);

int irm_pass_context_new(int opt_level, const irm_object *required, const irm_object *disabled,
                         const irm_object *config, const irm_object *instruments, irm_pass_context **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pass_context_new: out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  if (opt_level < 0) return irm_error(IRM_EVALUE, "PassContext: opt_level must be >= 0, got %d", opt_level);
  irm_object *req = NULL, *dis = NULL, *cfg = NULL, *inst = NULL, *ctx = NULL;
  rc = check_names("required", required, &req);
  if (!rc) rc = check_names("disabled", disabled, &dis);
  if (!rc && (rc = irm_pass_config_check_(config, &cfg))) rc = irm_error_context(rc, "PassContext config");
  if (!rc) rc = check_instruments(instruments, &inst);
  if (!rc)
    rc = irm_object_new(atomic_load_explicit(&irm_pass_context_type_, memory_order_acquire), sizeof(context_payload),
                        &ctx);
  if (!rc) {
    context_payload *p = irm_object_payload(ctx);
    p->opt_level = opt_level;
    p->required = req;
    p->disabled = dis;
    p->config = cfg;
    p->instruments = inst;
    atomic_init(&p->n_instruments, irm_array_size(inst));
    pthread_mutex_init(&p->lock, NULL);
    *out = ctx;
    return IRM_OK;
  }
  irm_object_release(req);
  irm_object_release(dis);
  irm_object_release(cfg);
  irm_object_release(inst);
  return rc;
}

/* An Array of Strings (NULL: a new empty Array); *out NEW. */
static int check_names(const char *what, const irm_object *names, irm_object **out) {
  if (!names) return irm_array_new(NULL, 0, out);
  if (irm_object_type_index(names) != IRM_TYPE_ARRAY)
    return irm_error(IRM_ETYPE, "PassContext %s: expected an ffi.Array of pass names, got %s", what,
                     irm_object_type_key(names));
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const irm_any *v = irm_array_at(names, i);
    if (v->type_code != IRM_OBJECT || !irm_string_data(v->v_obj))
      return irm_error(IRM_ETYPE, "PassContext %s[%zu]: expected a pass name (str), got %s", what, i,
                       irm_any_describe_(v));
  }
  irm_object_retain((irm_object *)names);
  *out = (irm_object *)names;
  return IRM_OK;
}

static int check_instruments(const irm_object *instruments, irm_object **out) {
  if (!instruments) return irm_array_new(NULL, 0, out);
  if (irm_object_type_index(instruments) != IRM_TYPE_ARRAY)
    return irm_error(IRM_ETYPE, "PassContext instruments: expected an ffi.Array of %s, got %s", IRM_INSTRUMENT_KEY,
                     irm_object_type_key(instruments));
  for (size_t i = 0; i < irm_array_size(instruments); i++) {
    const irm_any *v = irm_array_at(instruments, i);
    if (v->type_code != IRM_OBJECT || !irm_is_instrument_(v->v_obj))
      return irm_error(IRM_ETYPE, "PassContext instruments[%zu]: expected %s, got %s", i, IRM_INSTRUMENT_KEY,
                       irm_any_describe_(v));
  }
  irm_object_retain((irm_object *)instruments);
  *out = (irm_object *)instruments;
  return IRM_OK;
}

/* ---- fields ------------------------------------------------------------------------ */

int irm_pass_context_opt_level(const irm_pass_context *ctx) {
  const context_payload *p = irm_context_payload_(ctx);
  return p ? p->opt_level : -1;
}

const irm_object *irm_pass_context_required(const irm_pass_context *ctx) {
  const context_payload *p = irm_context_payload_(ctx);
  return p ? p->required : NULL;
}

const irm_object *irm_pass_context_disabled(const irm_pass_context *ctx) {
  const context_payload *p = irm_context_payload_(ctx);
  return p ? p->disabled : NULL;
}

const irm_object *irm_pass_context_config(const irm_pass_context *ctx) {
  const context_payload *p = irm_context_payload_(ctx);
  return p ? p->config : NULL;
}

int irm_context_has_instruments_(const irm_pass_context *ctx) {
  context_payload *p = irm_context_payload_(ctx);
  return p && atomic_load_explicit(&p->n_instruments, memory_order_acquire) > 0;
}

irm_object *irm_context_instruments_(irm_pass_context *ctx) {
  context_payload *p = irm_context_payload_(ctx);
  if (!p) return NULL;
  pthread_mutex_lock(&p->lock);
  irm_object *list = p->instruments;
  irm_object_retain(list);
  pthread_mutex_unlock(&p->lock);
  return list;
}

int irm_context_set_instruments_(irm_pass_context *ctx, irm_object *list) {
  context_payload *p = irm_context_payload_(ctx);
  if (!p) {
    irm_object_release(list);
    return irm_context_type_error_("setting instruments", ctx);
  }
  if (!list) {
    int rc = irm_array_new(NULL, 0, &list);
    if (rc) return rc;
  }
  pthread_mutex_lock(&p->lock);
  irm_object *old = p->instruments;
  p->instruments = list;
  atomic_store_explicit(&p->n_instruments, irm_array_size(list), memory_order_release);
  pthread_mutex_unlock(&p->lock);
  irm_object_release(old); /* may run finalizers: never under the lock */
  return IRM_OK;
}

int irm_pass_context_info(const irm_pass_context *ctx, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pass_context_info: out must not be NULL");
  *out = NULL;
  const context_payload *p = irm_context_payload_(ctx);
  if (!p) return irm_context_type_error_("irm_pass_context_info", ctx);
  irm_object *instruments = irm_context_instruments_((irm_pass_context *)ctx);
  const char *keys[] = {"opt_level", "required", "disabled", "config", "instruments"};
  irm_any values[] = {irm_any_int(p->opt_level), irm_any_object(p->required), irm_any_object(p->disabled),
                      irm_any_object(p->config), irm_any_object(instruments)};
  int rc = irm_map_from_pairs(keys, values, 5, out);
  irm_object_release(instruments);
  return rc;
}

/* ---- what the pass runner asks ------------------------------------------------------- */

static int names_contain(const irm_object *names, const char *name) {
  if (!name) return 0;
  size_t len = strlen(name);
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const irm_any *v = irm_array_at(names, i);
    if (v->type_code == IRM_OBJECT && irm_string_equals(v->v_obj, name, len)) return 1;
  }
  return 0;
}

int irm_context_requires_(const irm_pass_context *ctx, const char *name) {
  return names_contain(irm_pass_context_required(ctx), name);
}

int irm_context_disables_(const irm_pass_context *ctx, const char *name) {
  return names_contain(irm_pass_context_disabled(ctx), name);
}

/* ---- the type and the built-ins ------------------------------------------------------ */

static void context_finalize(irm_object *self) {
  context_payload *p = irm_object_payload(self);
  irm_object_release(p->required);
  irm_object_release(p->disabled);
  irm_object_release(p->config);
  irm_object_release(p->instruments);
  pthread_mutex_destroy(&p->lock);
}

static int context_repr(const irm_object *self, irm_object **out) {
  const context_payload *p = irm_object_payload_const(self);
  return irm_string_format(out, "transform.PassContext(opt_level=%d, required=%zu, disabled=%zu, config=%zu)",
                           p->opt_level, irm_array_size(p->required), irm_array_size(p->disabled),
                           irm_map_size(p->config));
}

int irm_register_context_type_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = IRM_PASS_CONTEXT_KEY,
                                                .finalize = context_finalize,
                                                .repr = context_repr},
                               &irm_pass_context_type_);
}
