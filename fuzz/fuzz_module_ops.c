/* Sequences of module-attribute and PassContext operations, one per input
 * byte (plus the bytes an operation takes): set, remove, persistent set,
 * freeze, invariant checks, config reads, and PassContexts entered and
 * exited. A persistent change never changes the module it starts from; a
 * set that succeeds is read back; every entered context is exited. */
#include "fuzz_util.h"

enum { max_depth = 8 };

typedef struct state {
  fuzz_bytes in;
  irm_module *mod;
  irm_object *attr_keys, *config_keys;
  irm_pass_context *entered[max_depth];
  int depth;
} state;

/* A registered module attribute key mostly, sometimes any text (malloc). */
static char *take_key(state *st, const irm_object *keys) {
  uint8_t b = fuzz_byte(&st->in);
  if (b % 4 != 3 && irm_map_size(keys)) return fuzz_map_key(keys, b / 4);
  return fuzz_take_string(&st->in, 12);
}

static uint64_t module_hash(const irm_module *mod) {
  uint64_t h = 0;
  irm_any v = irm_any_object((irm_object *)mod);
  FUZZ_CHECK(irm_structural_hash(&v, &h) == 0, "module hash");
  return h;
}

static void op_set(state *st, int persistent) {
  char *key = take_key(st, st->attr_keys);
  irm_any value = fuzz_take_value(&st->in), back = irm_any_none();
  irm_module *after = NULL;
  int rc;
  if (persistent) {
    uint64_t before = module_hash(st->mod);
    rc = irm_module_with_attr(st->mod, key, &value, &after);
    FUZZ_CHECK(module_hash(st->mod) == before, "with_attr leaves its module as it was");
  } else {
    rc = irm_module_set_attr_move(&st->mod, key, &value);
  }
  if (rc) {
    fuzz_check_error(rc);
  } else {
    if (persistent) {
      irm_object_release(st->mod);
      st->mod = after;
    }
    FUZZ_CHECK(irm_module_get_attr(st->mod, key, &back) == 0 &&
                   (back.type_code != IRM_NONE || value.type_code == IRM_NONE),
               "a set attribute reads back");
    irm_any_release(&back);
  }
  irm_any_release(&value);
  free(key);
}

static void op_remove(state *st) {
  char *key = take_key(st, st->attr_keys);
  int rc = irm_module_remove_attr_move(&st->mod, key);
  irm_any back = irm_any_none();
  if (rc) fuzz_check_error(rc);
  else
    FUZZ_CHECK(irm_module_get_attr(st->mod, key, &back) == 0 && back.type_code == IRM_NONE,
               "a removed attribute is gone");
  irm_any_release(&back);
  free(key);
}

static void op_freeze(state *st) {
  irm_module *frozen = NULL;
  FUZZ_CHECK(irm_module_freeze(st->mod, &frozen) == 0, "freeze");
  FUZZ_CHECK(irm_module_is_frozen(frozen), "a frozen module is frozen");
  const char *differs = "";
  FUZZ_CHECK(irm_module_check_invariants(st->mod, frozen, &differs) == 0 && !differs, "freezing keeps every attribute");
  irm_object_release(st->mod);
  st->mod = frozen;
}

static void op_enter(state *st) {
  if (st->depth == max_depth) return;
  irm_object *config = NULL;
  irm_pass_context *ctx = NULL;
  FUZZ_CHECK(irm_map_new(&config) == 0, "Map");
  if (fuzz_byte(&st->in) & 1) {
    char *key = take_key(st, st->config_keys);
    irm_any value = fuzz_take_value(&st->in);
    FUZZ_CHECK(irm_map_set_move(&config, key, &value) == 0, "Map set");
    irm_any_release(&value);
    free(key);
  }
  int rc = irm_pass_context_new((int8_t)fuzz_byte(&st->in) % 5, NULL, NULL, config, NULL, &ctx);
  if (rc) fuzz_check_error(rc);
  else if ((rc = irm_pass_context_enter(ctx))) fuzz_check_error(rc);
  else st->entered[st->depth++] = ctx, ctx = NULL;
  irm_object_release(ctx);
  irm_object_release(config);
}

static void op_exit(state *st) {
  if (!st->depth) {
    irm_pass_context *ctx = NULL;
    FUZZ_CHECK(irm_pass_context_current(&ctx) == 0, "current context");
    FUZZ_CHECK(irm_pass_context_exit(ctx) < 0, "the default context cannot be exited");
    irm_object_release(ctx);
    return;
  }
  irm_pass_context *ctx = st->entered[--st->depth];
  FUZZ_CHECK(irm_pass_context_exit(ctx) == 0, "the innermost context exits");
  irm_object_release(ctx);
}

static void op_get_config(state *st) {
  char *key = take_key(st, st->config_keys);
  irm_any v = irm_any_none();
  int rc = irm_pass_get_config(st->mod, key, &v);
  if (rc) fuzz_check_error(rc);
  irm_any_release(&v);
  free(key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  state st = {{data, size, 0}, NULL, NULL, NULL, {NULL}, 0};
  FUZZ_CHECK(irm_module_new(NULL, NULL, &st.mod) == 0, "empty module");
  FUZZ_CHECK(irm_module_attr_list(&st.attr_keys) == 0, "module attribute keys");
  FUZZ_CHECK(irm_pass_config_list(&st.config_keys) == 0, "config keys");
  for (int n = 0; n < 64 && fuzz_more(&st.in); n++) {
    switch (fuzz_byte(&st.in) % 7) {
    case 0: op_set(&st, 0); break;
    case 1: op_set(&st, 1); break;
    case 2: op_remove(&st); break;
    case 3: op_freeze(&st); break;
    case 4: op_enter(&st); break;
    case 5: op_exit(&st); break;
    default: op_get_config(&st); break;
    }
  }
  while (st.depth) op_exit(&st);
  irm_object_release(st.config_keys);
  irm_object_release(st.attr_keys);
  irm_object_release(st.mod);
  return 0;
}
