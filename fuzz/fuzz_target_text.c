/* Target text: whatever parses prints to text that parses to an equal
 * target, printing is idempotent, and the Map form and JSON round-trip. */
#include "fuzz_util.h"

static void check_map_form(irm_target *t) {
  irm_object *config = NULL;
  irm_target *back = NULL;
  FUZZ_CHECK(irm_target_export(t, &config) == 0, "a parsed target exports its Map");
  FUZZ_CHECK(irm_target_from_config(config, &back) == 0, "the exported Map makes a target");
  irm_any a = irm_any_object(t), b = irm_any_object(back);
  FUZZ_CHECK(fuzz_equal(&a, &b), "the Map form gives an equal target");
  fuzz_check_same_hash(&a, &b);
  irm_any c = irm_any_object(config);
  fuzz_check_json_round_trip(&c);
  irm_object_release(back);
  irm_object_release(config);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  char *text = fuzz_text(data, size);
  irm_target *t = NULL, *t2 = NULL;
  irm_object *s1 = NULL, *s2 = NULL;
  int rc = irm_target_parse(text, &t);
  if (rc) {
    fuzz_check_error(rc);
    free(text);
    return 0;
  }
  FUZZ_CHECK(irm_target_as_string(t, &s1) == 0, "a parsed target prints");
  FUZZ_CHECK(irm_target_parse(irm_string_data(s1), &t2) == 0, "printed text parses");
  irm_any a = irm_any_object(t), b = irm_any_object(t2);
  FUZZ_CHECK(fuzz_equal(&a, &b), "parse(print(t)) equals t");
  fuzz_check_same_hash(&a, &b);
  FUZZ_CHECK(irm_target_as_string(t2, &s2) == 0, "a reparsed target prints");
  FUZZ_CHECK(irm_string_size(s1) == irm_string_size(s2) &&
                 memcmp(irm_string_data(s1), irm_string_data(s2), irm_string_size(s1)) == 0,
             "printing is idempotent");
  check_map_form(t);
  fuzz_check_json_round_trip(&a);
  irm_object_release(s2);
  irm_object_release(s1);
  irm_object_release(t2);
  irm_object_release(t);
  free(text);
  return 0;
}
