/* Out of memory in the config objects (ir/config): making Executors from
 * options and from a config Map, parsing a Target and printing it.
 *
 * Each sweep (check_alloc_sweep_util.h) warms the operation up, then runs
 * it with N = 1, 2, 3, ... (allocation N fails, then: every allocation
 * after N fails) until it succeeds without meeting the failure, and checks
 * each time that irm either succeeded or reported MemoryError, leaked
 * nothing, left the registry of globals as it was and left its inputs
 * unchanged. N is sampled past the first few (see check_alloc_util.h).
 *
 * main() installs the counting allocator of check_alloc_util.h before any
 * other irm call. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>
#include <irm/config.h>
#include <irm/target.h>

#include "check_alloc_sweep_util.h"
#include "check_target_util.h"

/* ---- Executors ------------------------------------------------------------ */

static const char *const aot_keys[] = {"link-params", "unpacked-api", "interface-api", "workspace-byte-alignment"};

static irm_object *aot_options(int with_kind) {
  const char *keys[5];
  irm_any values[5] = {irm_any_bool(false), irm_any_bool(true), irm_any_str("c"), irm_any_int(8), irm_any_str("aot")};
  memcpy(keys, aot_keys, sizeof aot_keys);
  keys[4] = "kind";
  return new_map(keys, values, with_kind ? 5 : 4);
}

static void check_aot(const irm_executor *e) {
  ck_require(e != NULL && irm_object_is(e, "ir.Executor"), "not an Executor");
  ck_require(strcmp(irm_config_kind_name(e), "aot") == 0, "kind %s", irm_config_kind_name(e));
  const irm_object *attrs = irm_config_attrs(e);
  ck_require(irm_map_size(attrs) == 5, "%zu attrs", irm_map_size(attrs));
  const irm_any *v = irm_map_find_cstr(attrs, "workspace-byte-alignment");
  ck_require(v != NULL && v->type_code == IRM_INT && v->v_int == 8, "workspace-byte-alignment lost");
  v = irm_map_find_cstr(attrs, "interface-api");
  ck_require(v != NULL && v->type_code == IRM_OBJECT && strcmp(irm_string_data(v->v_obj), "c") == 0,
             "interface-api lost");
}

static int run_executor_create(void *ctx) {
  irm_executor *e = NULL;
  int rc = irm_executor_create("aot", ctx, &e);
  if (rc != 0) {
    ck_require(e == NULL, "irm_executor_create failed but set *out");
    return rc;
  }
  check_aot(e);
  irm_object_release(e);
  return 0;
}

static int run_executor_from_map(void *ctx) {
  irm_executor *e = NULL;
  int rc = irm_executor_from_map(ctx, &e);
  if (rc != 0) {
    ck_require(e == NULL, "irm_executor_from_map failed but set *out");
    return rc;
  }
  check_aot(e);
  irm_object_release(e);
  return 0;
}

START_TEST(test_oom_executor_create_from_4_options) {
  irm_object *opts = aot_options(0);
  operation op = {.what = "irm_executor_create(aot, 4 options)", .run = run_executor_create, .ctx = opts};
  sweep(&op);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_oom_executor_from_map) {
  irm_object *config = aot_options(1);
  operation op = {.what = "irm_executor_from_map", .run = run_executor_from_map, .ctx = config};
  sweep(&op);
  irm_object_release(config);
}
END_TEST

/* ---- Targets -------------------------------------------------------------- */

static const char target_text[] =
    "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon,+crc -num-cores=4 --host='llvm -mcpu=a'";

static int run_target_parse(void *ctx) {
  irm_target *t = NULL;
  (void)ctx;
  int rc = irm_target_parse(target_text, &t);
  if (rc != 0) {
    ck_require(t == NULL, "irm_target_parse failed but set *out");
    return rc;
  }
  ck_require(strcmp(irm_target_kind_name(t), "llvm") == 0, "kind %s", irm_target_kind_name(t));
  ck_require(irm_target_host(t) != NULL, "the host is lost");
  const irm_any *mattr = irm_map_find_cstr(irm_target_attrs(t), "mattr");
  ck_require(mattr != NULL && mattr->type_code == IRM_OBJECT && irm_array_size(mattr->v_obj) == 2, "mattr lost");
  irm_object_release(t);
  return 0;
}

START_TEST(test_oom_target_parse) {
  operation op = {.what = "irm_target_parse", .run = run_target_parse};
  sweep(&op);
}
END_TEST

typedef struct as_string_ctx {
  irm_target *target;
  char expected[512];
} as_string_ctx;

static int run_target_as_string(void *ctx) {
  as_string_ctx *c = ctx;
  irm_object *s = NULL;
  int rc = irm_target_as_string(c->target, &s);
  if (rc != 0) {
    ck_require(s == NULL, "irm_target_as_string failed but set *out");
    return rc;
  }
  ck_require(strcmp(irm_string_data(s), c->expected) == 0, "printed '%s', expected '%s'", irm_string_data(s),
             c->expected);
  irm_object_release(s);
  return 0;
}

START_TEST(test_oom_target_as_string) {
  as_string_ctx c;
  c.target = target_of(target_text);
  irm_object *s = NULL;
  ck_assert_ok(irm_target_as_string(c.target, &s));
  ck_assert_uint_lt(irm_string_size(s), sizeof c.expected);
  strcpy(c.expected, irm_string_data(s));
  irm_object_release(s);
  operation op = {.what = "irm_target_as_string", .run = run_target_as_string, .ctx = &c};
  sweep(&op);
  irm_object_release(c.target);
}
END_TEST

static Suite *config_alloc_suite(void) {
  Suite *s = suite_create("config_alloc");

  TCase *tc = tcase_create("out_of_memory");
  tcase_add_test(tc, test_oom_executor_create_from_4_options);
  tcase_add_test(tc, test_oom_executor_from_map);
  tcase_add_test(tc, test_oom_target_parse);
  tcase_add_test(tc, test_oom_target_as_string);
  tcase_set_timeout(tc, 240);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* Before any other irm call: every allocation irm makes is counted. */
  if (install_counting_allocator("check_config_alloc") != 0) return EXIT_FAILURE;
  return run_suite(config_alloc_suite());
}
