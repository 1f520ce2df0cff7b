/* The serialization globals listed in docs/globals.md: ffi.ToJSON, ffi.FromJSON,
 * ffi.StructuralEqual, ffi.StructuralHash and ffi.Repr, registered once
 * when the global registry starts. Each names itself in its errors. */
#include "global_internal.h"
#include "irm/error.h"
#include "irm/json.h"
#include "irm/structural.h"

static int ffi_to_json(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *text = NULL;
  int rc = irm_arg_count("ffi.ToJSON", nargs, 1, 1);
  if (rc) return rc;
  if ((rc = irm_to_json(&args[0], &text))) return irm_error_context_global_(rc, "ffi.ToJSON");
  *ret = irm_any_object(text);
  return IRM_OK;
}

static int ffi_from_json(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *text = NULL;
  size_t len = 0;
  int rc = irm_arg_count("ffi.FromJSON", nargs, 1, 1);
  if (!rc) rc = irm_arg_str("ffi.FromJSON", args, 0, &text, &len);
  if (rc) return rc;
  if ((rc = irm_from_json(text, len, ret))) return irm_error_context_global_(rc, "ffi.FromJSON");
  return IRM_OK;
}

static int ffi_structural_equal(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  int equal = 0;
  int rc = irm_arg_count("ffi.StructuralEqual", nargs, 2, 2);
  if (rc) return rc;
  if ((rc = irm_structural_equal(&args[0], &args[1], &equal)))
    return irm_error_context_global_(rc, "ffi.StructuralEqual");
  *ret = irm_any_bool(equal != 0);
  return IRM_OK;
}

static int ffi_structural_hash(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  uint64_t hash = 0;
  int rc = irm_arg_count("ffi.StructuralHash", nargs, 1, 1);
  if (rc) return rc;
  if ((rc = irm_structural_hash(&args[0], &hash))) return irm_error_context_global_(rc, "ffi.StructuralHash");
  *ret = irm_any_int((int64_t)hash); /* the same 64 bits, as an int */
  return IRM_OK;
}

static int ffi_repr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *text = NULL;
  int rc = irm_arg_count("ffi.Repr", nargs, 1, 1);
  if (rc) return rc;
  if ((rc = irm_repr(&args[0], &text))) return irm_error_context_global_(rc, "ffi.Repr");
  *ret = irm_any_object(text);
  return IRM_OK;
}

int irm_register_serialize_globals_(void) {
  static const irm_builtin_global table[] = {
      {"ffi.ToJSON", ffi_to_json},
      {"ffi.FromJSON", ffi_from_json},
      {"ffi.StructuralEqual", ffi_structural_equal},
      {"ffi.StructuralHash", ffi_structural_hash},
      {"ffi.Repr", ffi_repr},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
