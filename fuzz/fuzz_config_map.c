/* Config Maps built from the input for every executor, runtime and target
 * kind: the first bytes pick the category and the kind, the rest build
 * option -> value entries (mostly the kind's own option names, values of
 * every type). Whatever is made round-trips through JSON; a target also
 * through its text. */
#include "fuzz_util.h"

static const char *const categories[] = {"executor", "runtime", "target"};

/* The name of the item at index % size of an Array of Strings (borrowed),
 * or NULL when it is empty. */
static const char *pick(const irm_object *names, uint8_t index) {
  size_t n = irm_array_size(names);
  return n ? irm_string_data(irm_array_at(names, index % n)->v_obj) : NULL;
}

static void check_made(const char *category, irm_object *made) {
  irm_any v = irm_any_object(made);
  fuzz_check_json_round_trip(&v);
  if (strcmp(category, "target") != 0) return;
  irm_object *s = NULL;
  irm_target *back = NULL;
  FUZZ_CHECK(irm_target_as_string(made, &s) == 0, "a target made from a Map prints");
  FUZZ_CHECK(irm_target_parse(irm_string_data(s), &back) == 0, "its text parses");
  irm_any b = irm_any_object(back);
  FUZZ_CHECK(fuzz_equal(&v, &b), "the text gives an equal target");
  irm_object_release(back);
  irm_object_release(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  fuzz_bytes in = {data, size, 0};
  const char *category = categories[fuzz_byte(&in) % 3];
  irm_object *kinds = NULL, *options = NULL, *config = NULL, *made = NULL;
  irm_kind *kind = NULL;
  FUZZ_CHECK(irm_kind_list(category, &kinds) == 0, "kind list");
  const char *kind_name = pick(kinds, fuzz_byte(&in));
  FUZZ_CHECK(kind_name && irm_kind_find(category, kind_name, &kind) == 0, "a listed kind");
  FUZZ_CHECK(irm_kind_list_options(kind, &options) == 0, "option list");
  FUZZ_CHECK(irm_map_new(&config) == 0, "Map");
  for (int i = 0; i < 8 && fuzz_more(&in); i++) {
    uint8_t choice = fuzz_byte(&in);
    char *name = NULL;
    size_t n = irm_map_size(options);
    if (choice % 8 != 7 && n) {
      name = fuzz_map_key(options, choice);
    } else {
      name = fuzz_take_string(&in, 16);
    }
    irm_any value = fuzz_take_value(&in);
    FUZZ_CHECK(irm_map_set_move(&config, name, &value) == 0, "Map set");
    irm_any_release(&value);
    free(name);
  }
  int rc;
  if (!strcmp(category, "executor")) {
    rc = irm_executor_create(kind_name, config, &made);
  } else if (!strcmp(category, "runtime")) {
    rc = irm_runtime_create(kind_name, config, &made);
  } else {
    irm_any k = irm_any_str(kind_name);
    FUZZ_CHECK(irm_map_set_move(&config, "kind", &k) == 0, "Map set");
    rc = irm_target_from_config(config, &made);
  }
  if (rc) {
    fuzz_check_error(rc);
    FUZZ_CHECK(made == NULL, "a failing call makes nothing");
  } else {
    check_made(category, made);
  }
  irm_object_release(made);
  irm_object_release(config);
  irm_object_release(options);
  irm_object_release(kinds);
  return 0;
}
