/* Builds that read the tuning database (docs/tuning.md): tune.database
 * given as a module attribute or a PassContext option; the best valid
 * record of a workload applied (its choices in the library's metadata,
 * "tuned": true, the outputs still the evaluator's); a faster record with
 * knobs the workload's space refuses skipped; a record for another CPU
 * or target ignored with the reason in "tune_note"; a damaged database
 * stopping the build; a read-only one applied. Also the knob space's
 * rules (backend/codegen/schedule_knobs.c, compiled in). */
#include <jansson.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_aot_util.h"
#include "irm/tune_db.h"
#include "schedule.h"

#define TY(shape) "Tensor[" shape ", float32]"
/* a conv of 8 into 12 channels (weight tiles of two blocks of 4), relu, a
 * depthwise conv of the 12: two kernels at block 4 (target "c") */
#define BLOCKED_MODEL                                                                                         \
  IP_HEAD "def @main(%d: " TY("(1, 2, 7, 9, 4)") ", %w: " TY("(2, 2, 3, 3, 4, 8)") ", %v: " TY(               \
      "(3, 1, 3, 3, 1, 4)") ") {\n"                                                                           \
                            "  %0 = nn.contrib_conv2d_NCHWc(%d, %w, padding=[1, 1], channels=12, "            \
                            "data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i8o\");\n"                          \
                            "  %1 = nn.relu(%0);\n"                                                           \
                            "  %2 = nn.contrib_conv2d_NCHWc(%1, %v, padding=[1, 1], groups=12, channels=12, " \
                            "data_layout=\"NCHW4c\", kernel_layout=\"OIHW1i4o\");\n"                          \
                            "  %2\n}\n"

static char db_path_[1024];

static irm_object *aot(void) {
  irm_object *e = NULL;
  ck_assert_ok(irm_executor_create("aot", NULL, &e));
  return e;
}

/* A library of m built for "c", exported, loaded; its metadata parsed. */
typedef struct built {
  irm_object *result, *loaded;
  json_t *root, *list;
} built;

static built build_load(const irm_module *m, const char *tag) {
  built b;
  irm_object *e = aot(), *meta = NULL;
  b.result = aot_build(m, "c", e, "crt", NULL, tag);
  irm_object_release(e);
  b.loaded = aot_export_load(b.result, tag);
  ck_assert_ok(irm_runtime_module_metadata(b.loaded, &meta));
  json_error_t err;
  b.root = json_loads(irm_string_data(meta), 0, &err);
  irm_object_release(meta);
  ck_assert_ptr_nonnull(b.root);
  b.list = json_object_get(b.root, "schedules");
  ck_assert_uint_eq(json_array_size(b.list), 2);
  return b;
}

static void built_free(built *b) {
  json_decref(b->root);
  irm_object_release(b->loaded);
  irm_object_release(b->result);
}

/* m with tune.database = path; NEW. */
static irm_module *with_db(irm_module *m, const char *path) {
  irm_any v = irm_any_str(path);
  irm_module *out = NULL;
  ck_assert_ok(irm_module_with_attr(m, "tune.database", &v, &out));
  return out;
}

/* The default primitive target's text of a build result (what records
 * are looked up with). */
static char *target_text(const irm_object *result) {
  irm_compilation_config *cfg = NULL;
  ck_assert_ok(irm_module_compilation_config((const irm_module *)bu_part(result, "module"), &cfg));
  irm_object *s = NULL;
  ck_assert_ok(irm_target_as_string((irm_target *)irm_compilation_config_default_primitive_target(cfg), &s));
  char *text = strdup(irm_string_data(s));
  irm_object_release(s);
  irm_object_release((irm_object *)cfg);
  return text;
}

static const char *str_of(json_t *o, const char *key) {
  const char *s = json_string_value(json_object_get(o, key));
  return s ? s : "";
}

/* Records for the model's two workloads, taken from an untuned build:
 * the conv gets a valid record (ow_tile 3, unroll 2, row_outer) and a
 * faster one its space refuses (ow_tile 99); the depthwise conv a record
 * measured on another CPU. */
static void write_records(const built *plain) {
  char *target = target_text(plain->result);
  const char *features = str_of(plain->root, "target_features");
  unlink(db_path_);
  irm_tune_db *db = NULL;
  ck_assert_ok(irm_tune_db_open(db_path_, IRM_TUNE_DB_WRITE, &db));
  for (size_t i = 0; i < 2; i++) {
    json_t *r = json_array_get(plain->list, i);
    char *shapes = json_dumps(json_object_get(r, "workload"), JSON_COMPACT);
    int conv = strcmp(str_of(r, "kind"), "conv2d_nchwc") == 0;
    irm_tune_workload w = {str_of(r, "kind"), shapes, "float32", target, conv ? features : "avx512f,other-cpu"};
    int64_t id = 0;
    ck_assert_ok(irm_tune_db_add_workload(db, &w, &id));
    irm_tune_measurement good = {"{\"ow_tile\": 3, \"unroll\": 2, \"order\": \"row_outer\"}", 2e-5, 1e-7, NULL, ""};
    irm_tune_measurement bad = {"{\"ow_tile\": 99}", 1e-5, 1e-7, NULL, ""};
    ck_assert_ok(irm_tune_db_add_measurement(db, id, &good, NULL));
    ck_assert_ok(irm_tune_db_add_measurement(db, id, &bad, NULL));
    free(shapes);
  }
  irm_tune_db_close(db);
  free(target);
}

/* The tuned build's records: the conv's from the database, the depthwise
 * conv's the default rule's with the reason. */
static void check_tuned(const built *b, const built *plain) {
  json_t *conv = json_array_get(b->list, 0), *dw = json_array_get(b->list, 1);
  json_t *cc = json_object_get(conv, "choices");
  ck_assert(json_is_true(json_object_get(conv, "tuned")));
  ck_assert_int_eq(json_integer_value(json_object_get(cc, "ow_tile")), 3);
  ck_assert_int_eq(json_integer_value(json_object_get(cc, "unroll")), 2);
  ck_assert_str_eq(str_of(cc, "order"), "row_outer");
  ck_assert_ptr_null(json_object_get(conv, "tune_note"));
  ck_assert(json_is_false(json_object_get(dw, "tuned")));
  const char *note = str_of(dw, "tune_note");
  ck_assert_msg(strstr(note, "recorded on a CPU with features 'avx512f,other-cpu', not this build's"), "%s", note);
  ck_assert(json_equal(json_object_get(dw, "choices"), json_object_get(json_array_get(plain->list, 1), "choices")));
}

START_TEST(test_module_attribute_applies_best_valid_record) {
  snprintf(db_path_, sizeof db_path_, "%s/tune_apply.db", IRM_AOT_TEST_DIR);
  mkdir(IRM_AOT_TEST_DIR, 0777);
  irm_module *m = parse_module(BLOCKED_MODEL);
  built plain = build_load(m, "tune_plain");
  for (size_t i = 0; i < 2; i++) {
    json_t *r = json_array_get(plain.list, i);
    ck_assert(json_is_false(json_object_get(r, "tuned")));
    ck_assert_ptr_null(json_object_get(r, "tune_note")); /* no database: no note */
  }
  write_records(&plain);
  irm_module *tm = with_db(m, db_path_);
  built tuned = build_load(tm, "tune_attr");
  check_tuned(&tuned, &plain);
  aot_compare(tm, tuned.loaded, 3, 11); /* the tuned kernel computes the same */
  built_free(&tuned);
  /* a read-only database applies the same way */
  ck_assert_int_eq(chmod(db_path_, 0444), 0);
  tuned = build_load(tm, "tune_ro");
  check_tuned(&tuned, &plain);
  built_free(&tuned);
  ck_assert_int_eq(chmod(db_path_, 0644), 0);
  built_free(&plain);
  irm_object_release(tm);
  irm_object_release(m);
}
END_TEST

START_TEST(test_pass_context_option_and_other_target) {
  snprintf(db_path_, sizeof db_path_, "%s/tune_ctx.db", IRM_AOT_TEST_DIR);
  mkdir(IRM_AOT_TEST_DIR, 0777);
  irm_module *m = parse_module(BLOCKED_MODEL);
  built plain = build_load(m, "tune_plain2");
  write_records(&plain);
  irm_object *cfg = NULL;
  const char *keys[] = {"tune.database"};
  irm_any vals[] = {irm_any_str(db_path_)};
  ck_assert_ok(irm_map_from_pairs(keys, vals, 1, &cfg));
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  built tuned = build_load(m, "tune_ctx");
  check_tuned(&tuned, &plain);
  built_free(&tuned);
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release((irm_object *)ctx);
  irm_object_release(cfg);
  /* records for another target are ignored, with the reason */
  sqlite3 *s = NULL;
  ck_assert_int_eq(sqlite3_open(db_path_, &s), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(s, "UPDATE workloads SET target = 'llvm -mcpu=other'", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(s);
  irm_module *tm = with_db(m, db_path_);
  tuned = build_load(tm, "tune_other_target");
  for (size_t i = 0; i < 2; i++) {
    json_t *r = json_array_get(tuned.list, i);
    ck_assert(json_is_false(json_object_get(r, "tuned")));
    ck_assert_msg(strstr(str_of(r, "tune_note"), "recorded for target 'llvm -mcpu=other' only"), "%s",
                  str_of(r, "tune_note"));
  }
  built_free(&tuned);
  irm_object_release(tm);
  built_free(&plain);
  irm_object_release(m);
}
END_TEST

START_TEST(test_damaged_database_stops_the_build) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tune_junk.db", IRM_AOT_TEST_DIR);
  mkdir(IRM_AOT_TEST_DIR, 0777);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  for (int i = 0; i < 64; i++) fputs("not a database ", f);
  fclose(f);
  irm_module *m = parse_module(BLOCKED_MODEL), *tm = with_db(m, path);
  irm_object *e = aot(), *result = NULL;
  int rc = aot_try_build(tm, "c", e, "crt", NULL, "tune_junk", &result);
  ck_assert_int_eq(rc, IRM_EVALUE);
  ck_assert_ptr_null(result);
  ck_assert_error_mentions("the tune.database setting: not a readable tuning database '");
  ck_assert_error_mentions("file is not a database");
  /* a setting of the wrong type is refused when set */
  irm_any v = irm_any_int(3);
  irm_module *bad = NULL;
  ck_assert_int_ne(irm_module_with_attr(m, "tune.database", &v, &bad), 0);
  irm_object_release(e);
  irm_object_release(tm);
  irm_object_release(m);
}
END_TEST

/* ---- the knob space ----------------------------------------------------------------------------------- */

static irm_sched_workload_ conv_workload(void) {
  irm_sched_workload_ w;
  memset(&w, 0, sizeof w);
  w.kind = IRM_SCHED_CONV2D_NCHWC, w.n = 1, w.ic = 8, w.ih = 7, w.iw = 9, w.oc = 12, w.oh = 7, w.ow = 9;
  w.kh = w.kw = 3, w.strides[0] = w.strides[1] = 1, w.dilation[0] = w.dilation[1] = 1;
  w.padding[0] = w.padding[1] = 1, w.groups = 1, w.block = 4, w.packed_ic = 8, w.out_blocks = 3;
  w.weight_elems = 1152;
  return w;
}

START_TEST(test_space_and_knobs) {
  irm_sched_workload_ w = conv_workload();
  irm_sched_choice_ c;
  irm_cg_schedule_default_(&w, 2, &c);
  irm_sched_knob_ k[IRM_SCHED_MAX_KNOBS_];
  int n = irm_sched_space_(&w, &c, k);
  ck_assert_int_eq(n, 6);
  /* block 1, oc_vecs 1, ow_tile 1..8 (16 registers / 2 vectors), unroll 1 2 4, 2 orders, padded or not */
  ck_assert_int_eq(k[2].n, 8);
  ck_assert_int_eq(k[3].n, 3);
  ck_assert_double_eq(irm_sched_space_size_(k, n), 8 * 3 * 2 * 2);
  char why[256];
  irm_sched_choice_ t = c;
  ck_assert_int_eq(
      irm_sched_apply_knobs_(&w, "{\"ow_tile\": 2, \"padded\": true, \"order\": \"row_outer\"}", &t, why, sizeof why),
      1);
  ck_assert(t.ow_tile == 2 && t.padded == 1 && t.order == IRM_SCHED_ROW_OUTER && t.unroll == c.unroll);
  t = c;
  ck_assert_int_eq(irm_sched_apply_knobs_(&w, "{\"ow_tile\": 9}", &t, why, sizeof why), 0);
  ck_assert_str_eq(why, "ow_tile 9 is not one of 1..8 here");
  ck_assert_int_eq(t.ow_tile, c.ow_tile);
  ck_assert_int_eq(irm_sched_apply_knobs_(&w, "{\"unroll\": 3}", &t, why, sizeof why), 0);
  ck_assert_str_eq(why, "unroll 3 is not one of 1, 2, 4 here");
  ck_assert_int_eq(irm_sched_apply_knobs_(&w, "{\"ow_tiles\": 3}", &t, why, sizeof why), 0);
  ck_assert_str_eq(why, "'ow_tiles' is no knob of conv2d_nchwc (did you mean 'ow_tile'?)");
  ck_assert_int_eq(irm_sched_apply_knobs_(&w, "{\"oc_vecs\": 1}", &t, why, sizeof why), 0);
  ck_assert_str_eq(why, "oc_vecs 1 is not one of 2 here");
  ck_assert_int_eq(irm_sched_apply_knobs_(&w, "{\"order\": \"sideways\"}", &t, why, sizeof why), 0);
  ck_assert_str_eq(why, "order \"sideways\" is not one of oc_outer, row_outer here");
  /* depthwise: only ow_tile varies */
  w.kind = IRM_SCHED_DEPTHWISE_NCHWC, w.groups = 12;
  irm_cg_schedule_default_(&w, 1, &c);
  n = irm_sched_space_(&w, &c, k);
  ck_assert_double_eq(irm_sched_space_size_(k, n), 8);
  ck_assert_int_eq(irm_sched_apply_knobs_(&w, "{\"padded\": true}", &t, why, sizeof why), 0);
  ck_assert_str_eq(why, "padded true is not one of false here");
}
END_TEST

/* ---- FTuneSpace and tune.ListTunables ---------------------------------------------------------------- */

/* A plugin op family's space: every relu call is one workload of a knob
 * "vec" (1 or 2); mode 1 gives a value that is no Map. */
static int relu_space(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  if (resource) {
    *ret = irm_any_int(7);
    return IRM_OK;
  }
  irm_any vals[] = {irm_any_int(1), irm_any_int(2)};
  irm_object *a = new_array(vals, 2), *knobs = NULL, *m = NULL;
  const char *kk[] = {"vec"};
  irm_any kv[] = {irm_any_object(a)};
  ck_assert_ok(irm_map_from_pairs(kk, kv, 1, &knobs));
  const char *keys[] = {"family", "workload", "knobs", "size"};
  irm_any v[] = {irm_any_str("relu_plugin"), irm_any_str("{}"), irm_any_object(knobs), irm_any_float(2)};
  ck_assert_ok(irm_map_from_pairs(keys, v, 4, &m));
  irm_object_release(a);
  irm_object_release(knobs);
  *ret = irm_any_object(m);
  return IRM_OK;
}

static void set_relu_space(int bad) {
  irm_kind *kind = NULL;
  irm_object *f = NULL;
  ck_assert_ok(irm_kind_find("op", "nn.relu", &kind));
  ck_assert_ok(irm_func_new_packed(relu_space, bad ? (void *)1 : NULL, NULL, &f));
  irm_any v = irm_any_object(f);
  ck_assert_ok(irm_kind_set_attr(kind, IRM_OP_ATTR_TUNE_SPACE, &v, 20));
  irm_object_release(f);
}

/* tune.ListTunables of the example CNN for "c"; NEW Array. */
static irm_object *list_tunables(irm_module *m) {
  irm_any args[2] = {irm_any_object((irm_object *)m), irm_any_str("c")}, ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("tune.ListTunables", args, 2, &ret));
  return ret.v_obj;
}

static const irm_object *find_family(const irm_object *list, const char *family) {
  for (size_t i = 0; i < irm_array_size(list); i++) {
    const irm_object *m = irm_array_at(list, i)->v_obj;
    const char *f = NULL;
    ck_assert_ok(irm_any_to_str(irm_map_find_cstr(m, "family"), &f, NULL));
    if (!strcmp(f, family)) return m;
  }
  return NULL;
}

START_TEST(test_list_tunables_with_a_plugin_family) {
  irm_module *m = aot_example("cnn");
  irm_object *list = list_tunables(m);
  ck_assert_uint_eq(irm_array_size(list), 2); /* a Winograd conv and a direct one */
  const irm_object *conv = find_family(list, "conv2d_nchwc");
  ck_assert_ptr_nonnull(conv);
  ck_assert_double_eq(irm_map_find_cstr(conv, "size")->v_float, 32); /* its stem reads NCHW1c: unroll only 1 */
  ck_assert_ptr_nonnull(find_family(list, "winograd_nchwc"));
  irm_object_release(list);
  /* a plugin's op family with its own knobs is listed the same way */
  set_relu_space(0);
  list = list_tunables(m);
  const irm_object *relu = find_family(list, "relu_plugin");
  ck_assert_ptr_nonnull(relu);
  ck_assert_int_ge(irm_map_find_cstr(relu, "calls")->v_int, 1);
  ck_assert_uint_eq(irm_array_size(list), 3);
  irm_object_release(list);
  irm_object_release(m);
}
END_TEST

START_TEST(test_list_tunables_refuses_a_bad_space) {
  irm_module *m = aot_example("cnn");
  set_relu_space(1);
  irm_any args[2] = {irm_any_object((irm_object *)m), irm_any_str("c")}, ret = irm_any_none();
  ck_assert_error(irm_func_call_global("tune.ListTunables", args, 2, &ret), IRM_ETYPE,
                  "TypeError: tune.ListTunables: FTuneSpace of op 'nn.relu' must give a Map or None");
  irm_object_release(m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("tune_apply");
  TCase *t = tcase_create("space");
  tcase_add_test(t, test_space_and_knobs);
  suite_add_tcase(s, t);
  t = tcase_create("list");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_list_tunables_with_a_plugin_family);
  tcase_add_test(t, test_list_tunables_refuses_a_bad_space);
  suite_add_tcase(s, t);
  t = tcase_create("build");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_module_attribute_applies_best_valid_record);
  tcase_add_test(t, test_pass_context_option_and_other_target);
  tcase_add_test(t, test_damaged_database_stops_the_build);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return run_suite(suite()); }
