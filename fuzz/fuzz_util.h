/* Helpers shared by the libFuzzer harnesses (fuzz/fuzz_<name>.c). Each
 * harness defines LLVMFuzzerTestOneInput; the same source links either
 * with libFuzzer (the IRM_FUZZ build) or with fuzz/replay.c, which runs it
 * over its corpus as a ctest in every build. A broken property aborts, so
 * both report it as a crash. */
#ifndef IRM_FUZZ_UTIL_H
#define IRM_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm/irm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with the location, the message and irm's last error when cond is
 * false: a property the harness checks does not hold. */
#define FUZZ_CHECK(cond, what)                                                                              \
  do {                                                                                                      \
    if (!(cond)) {                                                                                          \
      fprintf(stderr, "%s:%d: property broken: %s (%s)\nlast error: %s\n", __FILE__, __LINE__, what, #cond, \
              irm_last_error());                                                                            \
      abort();                                                                                              \
    }                                                                                                       \
  } while (0)

/* A NUL-terminated copy of the input (malloc; the harness frees it). */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) abort();
  if (size) memcpy(text, data, size);
  text[size] = '\0';
  return text;
}

/* A failed call returns a negative code and leaves a message. */
static inline void fuzz_check_error(int rc) {
  FUZZ_CHECK(rc < 0, "failure is a negative code");
  FUZZ_CHECK(irm_last_error()[0] != '\0', "a failure leaves a message");
}

/* Nonzero when a and b are structurally equal (aborts if the comparison
 * itself fails). */
static inline int fuzz_equal(const irm_any *a, const irm_any *b) {
  int eq = 0;
  FUZZ_CHECK(irm_structural_equal(a, b, &eq) == 0, "structural_equal runs");
  return eq;
}

/* Equal values hash equally. */
static inline void fuzz_check_same_hash(const irm_any *a, const irm_any *b) {
  uint64_t ha = 0, hb = 0;
  FUZZ_CHECK(irm_structural_hash(a, &ha) == 0 && irm_structural_hash(b, &hb) == 0, "structural_hash runs");
  FUZZ_CHECK(ha == hb, "equal values hash equally");
}

/* JSON round trip: write v, read it back, the result is equal with an
 * equal hash. */
static inline void fuzz_check_json_round_trip(const irm_any *v) {
  irm_object *text = NULL;
  irm_any back = irm_any_none();
  FUZZ_CHECK(irm_to_json(v, &text) == 0, "a value irm made can be written as JSON");
  FUZZ_CHECK(irm_from_json(irm_string_data(text), irm_string_size(text), &back) == 0, "JSON irm wrote can be read");
  FUZZ_CHECK(fuzz_equal(v, &back), "JSON round trip gives an equal value");
  fuzz_check_same_hash(v, &back);
  irm_any_release(&back);
  irm_object_release(text);
}

/* Warnings (deprecations and the like) would flood the fuzzer's output. */
static inline void fuzz_quiet_warning(const char *msg, void *user_data) {
  (void)msg;
  (void)user_data;
}
static inline void fuzz_quiet(void) { irm_set_warning_handler(fuzz_quiet_warning, NULL); }

/* Reads bytes from the input one by one; 0 once it is used up. */
typedef struct fuzz_bytes {
  const uint8_t *data;
  size_t size, pos;
} fuzz_bytes;

static inline uint8_t fuzz_byte(fuzz_bytes *in) { return in->pos < in->size ? in->data[in->pos++] : 0; }
static inline int fuzz_more(const fuzz_bytes *in) { return in->pos < in->size; }

/* A string of up to max bytes taken from the input (its first byte gives
 * the length), folded to ASCII: Strings irm is handed directly may hold
 * any bytes, which the JSON writer rightly refuses; malloc,
 * NUL-terminated. */
static inline char *fuzz_take_string(fuzz_bytes *in, size_t max) {
  size_t len = fuzz_byte(in) % (max + 1);
  if (len > in->size - in->pos) len = in->size - in->pos;
  char *s = fuzz_text(in->data + in->pos, len);
  in->pos += len;
  for (size_t i = 0; i < len; i++) s[i] &= 0x7f;
  return s;
}

/* A value of a type chosen by the input; *out NEW. */
static inline irm_any fuzz_take_value(fuzz_bytes *in) {
  uint8_t type = fuzz_byte(in) % 8;
  irm_object *o = NULL;
  char *s;
  switch (type) {
  case 0: return irm_any_none();
  case 1: return irm_any_int((int8_t)fuzz_byte(in));
  case 2: return irm_any_bool(fuzz_byte(in) & 1);
  case 3: return irm_any_float((double)(int8_t)fuzz_byte(in) / 4);
  case 4:
  case 5:
    s = fuzz_take_string(in, 24);
    FUZZ_CHECK(irm_string_new(s, strlen(s), &o) == 0, "String");
    free(s);
    if (type == 5) {
      irm_any item = irm_any_object(o);
      irm_object *arr = NULL;
      FUZZ_CHECK(irm_array_new(&item, 1, &arr) == 0, "Array");
      irm_object_release(o);
      o = arr;
    }
    return irm_any_object(o);
  case 6: FUZZ_CHECK(irm_map_new(&o) == 0, "Map"); return irm_any_object(o);
  default: FUZZ_CHECK(irm_array_new(NULL, 0, &o) == 0, "Array"); return irm_any_object(o);
  }
}

/* A copy (malloc) of the key at index % size of a non-empty Map. */
static inline char *fuzz_map_key(const irm_object *map, size_t index) {
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *key = NULL;
  const irm_any *value = NULL;
  for (size_t k = 0; k <= index % irm_map_size(map); k++) irm_map_iter_next(&it, &key, &value);
  return fuzz_text((const uint8_t *)irm_string_data(key), irm_string_size(key));
}

#endif
