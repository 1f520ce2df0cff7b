/* Argument helpers for packed functions: counts and typed reads whose
 * errors name the function and the argument. */
#include "irm/error.h"
#include "irm/function.h"
#include "irm_internal.h"

int irm_arg_count(const char *fn, int32_t nargs, int32_t min, int32_t max) {
  if (nargs >= min && (max < 0 || nargs <= max)) return IRM_OK;
  if (min == max)
    return irm_error(IRM_ETYPE, "%s takes %d argument%s, got %d", fn, (int)min, min == 1 ? "" : "s", (int)nargs);
  if (max < 0)
    return irm_error(IRM_ETYPE, "%s takes at least %d argument%s, got %d", fn, (int)min, min == 1 ? "" : "s",
                     (int)nargs);
  return irm_error(IRM_ETYPE, "%s takes %d to %d arguments, got %d", fn, (int)min, (int)max, (int)nargs);
}

int irm_arg_present(const irm_any *args, int32_t nargs, int32_t i) {
  return args && i >= 0 && i < nargs && args[i].type_code != IRM_NONE;
}

#define ARG_READ(call)                                                               \
  do {                                                                               \
    int rc_ = (call);                                                                \
    return rc_ ? irm_error_context(rc_, "%s: argument %d", fn, (int)i + 1) : IRM_OK; \
  } while (0)

int irm_arg_object(const char *fn, const irm_any *args, int32_t i, const char *type_key, irm_object **out) {
  ARG_READ(irm_any_to_object(&args[i], type_key, out));
}

int irm_arg_int(const char *fn, const irm_any *args, int32_t i, int64_t *out) {
  ARG_READ(irm_any_to_int(&args[i], out));
}

int irm_arg_bool(const char *fn, const irm_any *args, int32_t i, bool *out) {
  ARG_READ(irm_any_to_bool(&args[i], out));
}

int irm_arg_float(const char *fn, const irm_any *args, int32_t i, double *out) {
  ARG_READ(irm_any_to_float(&args[i], out));
}

int irm_arg_str(const char *fn, const irm_any *args, int32_t i, const char **out, size_t *len) {
  ARG_READ(irm_any_to_str(&args[i], out, len));
}

int irm_ret_object(const char *fn, int rc, irm_object **obj, irm_any *ret) {
  if (rc) return irm_error_context_global_(rc, fn);
  *ret = irm_any_object(*obj);
  return IRM_OK;
}
