/* target.ConvertLegacy: the input's first line is the target text, the
 * rest (if there is a newline) the host text. Whatever converts leaves no
 * legacy option in the target or its host. */
#include "fuzz_util.h"

static const char *const legacy_options[] = {
    "executor",
    "runtime",
    "system-lib",
    "link-params",
    "unpacked-api",
    "interface-api",
    "workspace-byte-alignment",
    "constant-byte-alignment",
};

static void check_no_legacy(const irm_target *t) {
  for (; t; t = irm_target_host(t)) {
    const irm_object *attrs = irm_target_attrs(t);
    for (size_t i = 0; i < sizeof legacy_options / sizeof *legacy_options; i++)
      FUZZ_CHECK(irm_map_find_cstr(attrs, legacy_options[i]) == NULL, "no legacy option survives the conversion");
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  char *text = fuzz_text(data, size);
  char *host = strchr(text, '\n');
  if (host) *host++ = '\0';
  irm_target *t = NULL;
  irm_object *executor = NULL, *runtime = NULL;
  int rc = irm_target_convert_legacy(text, host, &t, &executor, &runtime);
  if (rc) {
    fuzz_check_error(rc);
    FUZZ_CHECK(!t && !executor && !runtime, "a failing conversion makes nothing");
  } else {
    check_no_legacy(t);
    irm_object *s = NULL;
    irm_target *back = NULL;
    FUZZ_CHECK(irm_target_as_string(t, &s) == 0, "the converted target prints");
    FUZZ_CHECK(irm_target_parse(irm_string_data(s), &back) == 0,
               "the converted target's text parses without legacy options");
    irm_object_release(back);
    irm_object_release(s);
  }
  irm_object_release(runtime);
  irm_object_release(executor);
  irm_object_release(t);
  free(text);
  return 0;
}
