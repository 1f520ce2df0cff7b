/* bench/config: making config objects, against baselines in the same
 * process. One line per figure: `name ns_per_op ratio baseline`. Targets
 * (issue): an executor under 1 us, a target parse under 3 us. */
#include <string.h>

#include "bench_util.h"

enum { CHUNK = 2000 };

static const char *const option_keys[4] = {"link-params", "unpacked-api", "interface-api", "workspace-byte-alignment"};

static int make_options(irm_object **out) {
  irm_any values[4] = {irm_any_bool(false), irm_any_bool(true), irm_any_str("c"), irm_any_int(8)};
  return irm_map_from_pairs(option_keys, values, 4, out);
}

/* ---- aot executor from a 4-option Map vs building that Map -------------- */

static int64_t build_map_loop(void *ctx, long n) {
  (void)ctx;
  int64_t made = 0;
  for (long i = 0; i < n; i++) {
    irm_object *m = NULL;
    made += make_options(&m) == 0;
    irm_object_release(m);
  }
  return made;
}

static int64_t executor_loop(void *ctx, long n) {
  irm_object *options = ctx;
  int64_t made = 0;
  for (long i = 0; i < n; i++) {
    irm_object *e = NULL;
    made += irm_executor_create("aot", options, &e) == 0;
    irm_object_release(e);
  }
  return made;
}

/* ---- target text: parse and print vs copying the text ------------------- */

static const char target_text[] = "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon,+crc -num-cores=4";

static int64_t copy_text_loop(void *ctx, long n) {
  (void)ctx;
  int64_t made = 0;
  for (long i = 0; i < n; i++) {
    irm_object *s = NULL;
    made += irm_string_new(target_text, sizeof target_text - 1, &s) == 0;
    irm_object_release(s);
  }
  return made;
}

static int64_t parse_loop(void *ctx, long n) {
  (void)ctx;
  int64_t made = 0;
  for (long i = 0; i < n; i++) {
    irm_target *t = NULL;
    made += irm_target_parse(target_text, &t) == 0;
    irm_object_release(t);
  }
  return made;
}

static int64_t print_loop(void *ctx, long n) {
  irm_target *t = ctx;
  int64_t made = 0;
  for (long i = 0; i < n; i++) {
    irm_object *s = NULL;
    made += irm_target_as_string(t, &s) == 0;
    irm_object_release(s);
  }
  return made;
}

int main(void) {
  irm_object *options = NULL;
  irm_target *target = NULL;
  if (make_options(&options)) bench_die("options");
  if (irm_target_parse(target_text, &target)) bench_die("irm_target_parse");
  const int64_t expected = (int64_t)ROUNDS * CHUNKS * CHUNK * 2;
  double base, subject;
  int64_t made = 0;

  bench_pair(build_map_loop, executor_loop, options, CHUNK, &base, &subject, &made);
  if (made != expected) bench_die("executor");
  bench_report("executor_aot_4_options", subject, base, "build_4_option_map");

  made = 0;
  bench_pair(copy_text_loop, parse_loop, NULL, CHUNK, &base, &subject, &made);
  if (made != expected) bench_die("parse");
  bench_report("target_parse_llvm", subject, base, "copy_text");

  made = 0;
  bench_pair(copy_text_loop, print_loop, target, CHUNK, &base, &subject, &made);
  if (made != expected) bench_die("print");
  bench_report("target_print_llvm", subject, base, "copy_text");

  irm_object_release(target);
  irm_object_release(options);
  return 0;
}
