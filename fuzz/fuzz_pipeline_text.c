/* Pipeline text: whatever parses prints to text that parses and prints the
 * same again; the pipeline then runs on an empty module (it may fail, with
 * a message, but never crash). */
#include "fuzz_util.h"

static irm_object *print_or_die(const irm_pass *p) {
  irm_object *s = NULL;
  FUZZ_CHECK(irm_pipeline_print(p, &s) == 0, "a parsed pipeline prints");
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  char *text = fuzz_text(data, size);
  irm_pass *p = NULL, *p2 = NULL;
  int rc = irm_pipeline_parse(text, &p);
  free(text);
  if (rc) {
    fuzz_check_error(rc);
    return 0;
  }
  irm_object *s1 = NULL;
  rc = irm_pipeline_print(p, &s1);
  if (rc) {
    /* Map-valued options have no text form (documented); nothing to compare. */
    fuzz_check_error(rc);
  } else {
    FUZZ_CHECK(irm_pipeline_parse(irm_string_data(s1), &p2) == 0, "printed pipeline parses");
    irm_object *s2 = print_or_die(p2);
    FUZZ_CHECK(irm_string_size(s1) == irm_string_size(s2) &&
                   memcmp(irm_string_data(s1), irm_string_data(s2), irm_string_size(s1)) == 0,
               "print(parse(print(p))) == print(p)");
    irm_object_release(s2);
    irm_object_release(p2);
    irm_object_release(s1);
  }
  irm_module *mod = NULL, *out = NULL;
  FUZZ_CHECK(irm_module_new(NULL, NULL, &mod) == 0, "empty module");
  rc = irm_pass_run(p, mod, &out);
  if (rc) fuzz_check_error(rc);
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(p);
  return 0;
}
