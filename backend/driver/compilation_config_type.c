/* The ir.CompilationConfig type (build.h): payload, fields, accessors. */
#include "backend_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/target.h"

_Atomic int32_t irm_compilation_config_type_ = -1;

static const compilation_config_payload *payload_of(const irm_object *o) {
  return (const compilation_config_payload *)irm_payload_if_type_(o, &irm_compilation_config_type_);
}

static void config_finalize(irm_object *self) {
  compilation_config_payload *p = irm_object_payload(self);
  irm_object_release(p->host);
  irm_object_release(p->primitives);
  irm_object_release(p->fallback);
  irm_object_release(p->executor);
  irm_object_release(p->runtime);
}

static const char *const field_names[] = {"host_target", "primitive_targets", "default_primitive_target", "executor",
                                          "runtime"};

static int config_to_fields(const irm_object *self, irm_object **out) {
  const compilation_config_payload *p = irm_object_payload_const(self);
  irm_any values[] = {irm_any_object(p->host), irm_any_object(p->primitives), irm_any_object(p->fallback),
                      irm_any_object(p->executor), irm_any_object(p->runtime)};
  return irm_map_from_pairs(field_names, values, 5, out);
}

/* Read back as given: a config is only ever made from a module, so the
 * fields of a saved one were checked when it was made. */
static int config_from_fields(const irm_object *fields, irm_object **out) {
  irm_object *parts[5] = {NULL};
  const char *want[] = {IRM_TARGET_TYPE_KEY, "ffi.Array", IRM_TARGET_TYPE_KEY, "ir.Executor", "ir.Runtime"};
  for (int i = 0; i < 5; i++) {
    const irm_any *v = irm_map_find_cstr(fields, field_names[i]);
    irm_object *o = v && v->type_code == IRM_OBJECT ? v->v_obj : NULL;
    if (!o || !irm_object_is(o, want[i])) {
      for (int j = 0; j < i; j++) irm_object_release(parts[j]);
      return irm_error(IRM_ETYPE, "field '%s' of %s: expected %s, got %s", field_names[i],
                       IRM_COMPILATION_CONFIG_TYPE_KEY, want[i], v ? irm_any_describe_(v) : "nothing");
    }
    irm_object_retain(o);
    parts[i] = o;
  }
  return irm_compilation_config_make_(parts[0], parts[1], parts[2], parts[3], parts[4], out);
}

int irm_compilation_config_make_(irm_object *host, irm_object *primitives, irm_object *fallback, irm_object *executor,
                                 irm_object *runtime, irm_object **out) {
  irm_object *c = NULL;
  int rc = irm_object_new(atomic_load_explicit(&irm_compilation_config_type_, memory_order_acquire),
                          sizeof(compilation_config_payload), &c);
  if (rc) {
    irm_object_release(host);
    irm_object_release(primitives);
    irm_object_release(fallback);
    irm_object_release(executor);
    irm_object_release(runtime);
    return rc;
  }
  compilation_config_payload *p = irm_object_payload(c);
  p->host = host;
  p->primitives = primitives;
  p->fallback = fallback;
  p->executor = executor;
  p->runtime = runtime;
  *out = c;
  return IRM_OK;
}

int irm_register_compilation_config_type_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = IRM_COMPILATION_CONFIG_TYPE_KEY,
                                                .finalize = config_finalize,
                                                .to_fields = config_to_fields,
                                                .from_fields = config_from_fields},
                               &irm_compilation_config_type_);
}

/* ---- accessors ------------------------------------------------------------------ */

irm_object *irm_compilation_config_host_target(const irm_compilation_config *cfg) {
  const compilation_config_payload *p = payload_of(cfg);
  return p ? p->host : NULL;
}

const irm_object *irm_compilation_config_primitive_targets(const irm_compilation_config *cfg) {
  const compilation_config_payload *p = payload_of(cfg);
  return p ? p->primitives : NULL;
}

irm_object *irm_compilation_config_default_primitive_target(const irm_compilation_config *cfg) {
  const compilation_config_payload *p = payload_of(cfg);
  return p ? p->fallback : NULL;
}

irm_object *irm_compilation_config_executor(const irm_compilation_config *cfg) {
  const compilation_config_payload *p = payload_of(cfg);
  return p ? p->executor : NULL;
}

irm_object *irm_compilation_config_runtime(const irm_compilation_config *cfg) {
  const compilation_config_payload *p = payload_of(cfg);
  return p ? p->runtime : NULL;
}

irm_object *irm_compilation_config_find_primitive_target(const irm_compilation_config *cfg, int64_t device_type) {
  const compilation_config_payload *p = payload_of(cfg);
  size_t n = p ? irm_array_size(p->primitives) : 0;
  for (size_t i = 0; i < n; i++) {
    irm_object *t = irm_array_at(p->primitives, i)->v_obj;
    int64_t d = -1;
    if (irm_target_device_type(t, &d) == IRM_OK) {
      if (d == device_type) return t;
    } else irm_clear_error(); /* checked when the config was made: cannot happen */
  }
  return NULL;
}
