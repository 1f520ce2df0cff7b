/* IR text (dataflow/text.h): parsing never crashes and a failure leaves a
 * message; whatever parses prints to text that parses again to a
 * structurally equal module, whose text is the same (printing is
 * idempotent); its repr is the text with large tensors elided, which the
 * parser refuses. The input is handed over with its length, not
 * NUL-terminated, so reads past the end show up under ASan. */
#include "fuzz_util.h"

/* The ops of tests/support/dataflow_gen.c (its random modules seed the corpus). */
static void register_ops(void) {
  static int done;
  if (done) return;
  done = 1;
  irm_kind *k = NULL;
  irm_any one = irm_any_float(1.0), same = irm_any_str("same"), no = irm_any_bool(false), none = irm_any_none();
  irm_object *empty = NULL;
  FUZZ_CHECK(irm_array_new(NULL, 0, &empty) == 0, "an empty Array");
  irm_any axes = irm_any_object(empty);
  FUZZ_CHECK(irm_op_register("gen.unary", 1, &k) == 0 &&
                 irm_kind_add_option(k, "alpha", IRM_OPTION_FLOAT, &one, "scale", 0) == 0 &&
                 irm_kind_add_option(k, "mode", IRM_OPTION_STR, &same, "mode", 0) == 0 &&
                 irm_op_register("gen.binary", 2, &k) == 0 &&
                 irm_kind_add_option(k, "axes", IRM_OPTION_ARRAY_INT, &axes, "axes", 0) == 0 &&
                 irm_kind_add_option(k, "flag", IRM_OPTION_BOOL, &no, "flag", 0) == 0 &&
                 irm_op_register("gen.any", -1, &k) == 0 &&
                 irm_kind_add_option(k, "count", IRM_OPTION_INT, &none, "count", 1) == 0,
             "the test ops register");
  irm_object_release(empty);
}

/* Whether structural equality compares IR up to renaming yet (a
 * placeholder compares identity, and then only the texts are compared). */
static int ir_equality_ready(void) {
  static int ready = -1;
  if (ready >= 0) return ready;
  static const char text[] = "#[version = \"irm-0.1\"]\ndef @f(%x) { %x }";
  irm_module *a = NULL, *b = NULL;
  FUZZ_CHECK(irm_dataflow_parse(text, sizeof text - 1, &a) == 0 && irm_dataflow_parse(text, sizeof text - 1, &b) == 0,
             "a fixed text parses");
  irm_any va = irm_any_object(a), vb = irm_any_object(b);
  ready = fuzz_equal(&va, &vb);
  irm_object_release(a);
  irm_object_release(b);
  return ready;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  register_ops();
  /* an exact-size copy, so a read past the end is caught */
  char *text = malloc(size ? size : 1);
  if (!text) abort();
  if (size) memcpy(text, data, size);
  irm_module *m = NULL;
  int rc = irm_dataflow_parse(text, size, &m);
  free(text);
  if (rc) {
    fuzz_check_error(rc);
    FUZZ_CHECK(m == NULL, "a failed parse gives nothing");
    return 0;
  }
  irm_object *s1 = NULL, *s2 = NULL;
  irm_module *m2 = NULL;
  FUZZ_CHECK(irm_dataflow_print(m, &s1) == 0, "a parsed module prints");
  FUZZ_CHECK(irm_dataflow_parse(irm_string_data(s1), irm_string_size(s1), &m2) == 0, "printed text parses");
  FUZZ_CHECK(irm_dataflow_print(m2, &s2) == 0, "a reparsed module prints");
  FUZZ_CHECK(irm_string_size(s1) == irm_string_size(s2) &&
                 memcmp(irm_string_data(s1), irm_string_data(s2), irm_string_size(s1)) == 0,
             "printing is idempotent");
  if (ir_equality_ready()) {
    irm_any a = irm_any_object(m), b = irm_any_object(m2);
    FUZZ_CHECK(fuzz_equal(&a, &b), "parse(print(parse(t))) equals parse(t)");
    fuzz_check_same_hash(&a, &b);
  }
  irm_any a = irm_any_object(m);
  irm_object *r = NULL, *e = NULL;
  irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
  opts.elide_larger_than = IRM_DATAFLOW_PRINT_ELIDE_DEFAULT;
  FUZZ_CHECK(irm_repr(&a, &r) == 0, "the module has a repr");
  FUZZ_CHECK(irm_dataflow_print_ex(m, &opts, &e) == 0, "a parsed module prints elided");
  FUZZ_CHECK(irm_string_size(r) == irm_string_size(e) &&
                 memcmp(irm_string_data(r), irm_string_data(e), irm_string_size(r)) == 0,
             "the repr is the elided text");
  if (irm_string_size(e) != irm_string_size(s1) ||
      memcmp(irm_string_data(e), irm_string_data(s1), irm_string_size(s1)) != 0) {
    irm_module *m3 = NULL; /* tensors were elided: the text does not parse */
    FUZZ_CHECK(irm_dataflow_parse(irm_string_data(e), irm_string_size(e), &m3) == IRM_EVALUE && !m3,
               "text with elided tensors is refused");
    irm_clear_error();
  }
  irm_object_release(e);
  irm_object_release(r);
  irm_object_release(s2);
  irm_object_release(s1);
  irm_object_release(m2);
  irm_object_release(m);
  return 0;
}
