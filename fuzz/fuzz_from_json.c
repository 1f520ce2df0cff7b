/* ffi.FromJSON on raw bytes: whatever reads writes back to JSON that reads
 * to an equal value with an equal hash. */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  irm_object *text = NULL;
  irm_any v = irm_any_none();
  FUZZ_CHECK(irm_string_new((const char *)data, size, &text) == 0, "String of the input");
  irm_any arg = irm_any_object(text);
  int rc = irm_func_call_global("ffi.FromJSON", &arg, 1, &v);
  if (rc) {
    fuzz_check_error(rc);
  } else {
    fuzz_check_json_round_trip(&v);
    irm_any_release(&v);
  }
  irm_object_release(text);
  return 0;
}
