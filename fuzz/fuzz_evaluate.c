/* The reference interpreter (dataflow/evaluate.h) on IR text: whatever
 * parses, @main evaluated on random inputs (seeded by the input) never
 * crashes, never asks for more than the evaluator's limit (the harness
 * runs under libFuzzer's -malloc_limit_mb), fails with a bounded message,
 * and gives the same result when run again. */
#include "fuzz_eval_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_eval_setup();
  irm_module *m = fuzz_parse_ir(data, size);
  if (!m) return 0;
  irm_object *inputs = fuzz_random_inputs(m, fuzz_seed(data, size));
  if (inputs) {
    irm_any a = irm_any_none(), b = irm_any_none();
    int rc = fuzz_evaluate(m, inputs, &a);
    if (!rc) {
      FUZZ_CHECK(irm_dataflow_evaluate(m, "main", inputs, &b) == 0, "evaluating again succeeds too");
      FUZZ_CHECK(fuzz_same_value(&a, &b), "evaluation is deterministic");
    } else {
      FUZZ_CHECK(a.type_code == IRM_NONE, "a failed evaluation gives nothing");
    }
    irm_any_release(&a);
    irm_any_release(&b);
    irm_object_release(inputs);
  }
  irm_object_release(m);
  return 0;
}
