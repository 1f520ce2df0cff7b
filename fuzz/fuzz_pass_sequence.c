/* A random sequence of the dialect's passes (run through the pass manager,
 * so ir.Verify checks the input and every result) on IR text, with the
 * differential property: when @main evaluated on random inputs before the
 * passes, it evaluates after them to the same result within a tolerance
 * (1e-3 relative; NaN equals NaN). A pass may refuse a module (with a
 * bounded message); then the sequence goes on from the module it had.
 * Input: the first two bytes pick up to four passes (a nibble each), the
 * rest is the IR text. */
#include "fuzz_eval_util.h"

static const char *const passes[] = {"InferType", "SimplifyExpr", "FoldConstant", "DeadCodeElimination", "FuseOps"};
#define N_PASSES (sizeof passes / sizeof passes[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_eval_setup();
  if (size < 2) return 0;
  irm_module *m = fuzz_parse_ir(data + 2, size - 2);
  if (!m) return 0;
  irm_object *inputs = fuzz_random_inputs(m, fuzz_seed(data, size));
  irm_any before = irm_any_none();
  int evaluated = inputs && fuzz_evaluate(m, inputs, &before) == 0;
  irm_module *cur = m;
  irm_object_retain(cur);
  for (int i = 0; i < 4; i++) {
    unsigned pick = (data[i / 2] >> (4 * (i % 2))) & 0xf;
    if (pick >= N_PASSES) continue;
    irm_pass *p = NULL;
    FUZZ_CHECK(irm_pass_get(passes[pick], NULL, &p) == 0, "a built-in pass is found");
    irm_module *next = NULL;
    int rc = irm_pass_run(p, cur, &next);
    irm_object_release(p);
    if (rc) {
      fuzz_check_bounded_error(rc);
      FUZZ_CHECK(next == NULL, "a failed pass gives nothing");
      continue;
    }
    irm_object_release(cur);
    cur = next;
  }
  if (evaluated) {
    irm_any after = irm_any_none();
    int rc = irm_dataflow_evaluate(cur, "main", inputs, &after);
    FUZZ_CHECK(rc == 0, "what evaluated before the passes evaluates after them");
    FUZZ_CHECK(fuzz_same_value(&before, &after), "the passes keep @main's result");
    irm_any_release(&after);
  }
  irm_any_release(&before);
  irm_object_release(inputs);
  irm_object_release(cur);
  irm_object_release(m);
  return 0;
}
