/* Tuning tasks and measurement (irm/tune_measure.h, docs/tuning.md "Tasks
 * and measurement"): tasks of the example CNN (families, sizes, calls)
 * and of a model whose two convs share a workload; the default rule and a
 * legal candidate of a real conv measured; a task's text round trip; a
 * plugin op family ("test.tune_mode") whose FTuneSpace declares a knob
 * "mode" and whose FCodegenC reads the chosen record (desc["schedule"])
 * and emits, per mode, correct code, slower code, raise(SIGSEGV) (a
 * signal, not a bad write, so memcheck reports nothing), an endless loop,
 * wrong values or bad C: each failure recorded as its kind,
 * and written to a database, never applied by a build; illegal
 * candidates; bad arguments. */
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "check_build_util.h"
#include "irm/tune_db.h"
#include "irm/tune_measure.h"

#define TY(shape) "Tensor[" shape ", float32]"

/* ---- the maps --------------------------------------------------------------------------------- */

static const char *str_at(const irm_object *m, const char *key) {
  const irm_any *v = irm_map_find_cstr(m, key);
  const char *s = NULL;
  ck_assert_msg(v && !irm_any_to_str(v, &s, NULL), "no str '%s'", key);
  return s;
}

static int64_t int_at(const irm_object *m, const char *key) {
  const irm_any *v = irm_map_find_cstr(m, key);
  ck_assert_msg(v && v->type_code == IRM_INT, "no int '%s'", key);
  return v->v_int;
}

static double float_at(const irm_object *m, const char *key) {
  const irm_any *v = irm_map_find_cstr(m, key);
  ck_assert_msg(v && v->type_code == IRM_FLOAT, "no float '%s'", key);
  return v->v_float;
}

static irm_object *tasks_of(const irm_module *m) {
  irm_object *tasks = NULL;
  irm_any target = irm_any_str("c");
  ck_assert_ok(irm_tune_extract_tasks(m, &target, &tasks));
  return tasks;
}

/* The example CNN's tasks for "c". */
static irm_object *cnn_tasks_c(void) {
  irm_module *cnn = NULL;
  ck_assert_ok(irm_dataflow_example_model("cnn", &cnn));
  irm_object *tasks = tasks_of(cnn);
  irm_object_release((irm_object *)cnn);
  return tasks;
}

static irm_object *task_at(const irm_object *tasks, size_t i) { return irm_array_at(tasks, i)->v_obj; }
static const irm_module *module_of(const irm_object *task) {
  return (const irm_module *)irm_map_find_cstr(task, "task")->v_obj;
}

/* A measurement with small batches, pinned to cpu (-1: any). */
/* Measures with the caches flushed (the default) when pinned to a CPU,
 * warm otherwise: both paths of the child. */
static irm_object *measure_on(const irm_module *task, const char *candidate, double timeout, int64_t cpu) {
  irm_tune_measure_options o = {2, 1, 1, timeout, 7, cpu, cpu >= 0};
  irm_object *r = NULL;
  ck_assert_ok(irm_tune_measure(task, candidate, &o, &r));
  return r;
}

static irm_object *measure(const irm_module *task, const char *candidate, double timeout) {
  return measure_on(task, candidate, timeout, -1);
}

/* The last CPU this process may run on. */
static int64_t some_cpu(void) {
  cpu_set_t set;
  ck_assert_int_eq(sched_getaffinity(0, sizeof set, &set), 0);
  int64_t cpu = -1;
  for (int i = 0; i < CPU_SETSIZE; i++)
    if (CPU_ISSET(i, &set)) cpu = i;
  return cpu;
}

static void assert_fine(const irm_object *r) {
  ck_assert_msg(!*str_at(r, "error_kind"), "measurement failed: %s: %s", str_at(r, "error_kind"), str_at(r, "error"));
  ck_assert_str_eq(str_at(r, "error"), "");
  ck_assert(float_at(r, "mean") > 0);
  ck_assert(float_at(r, "spread") >= 0);
  ck_assert(float_at(r, "compile_seconds") > 0);
  ck_assert(float_at(r, "run_seconds") > 0);
  ck_assert_ptr_nonnull(strstr(str_at(r, "compiler"), "/"));
}

static void assert_failed(const irm_object *r, const char *kind, const char *mentions) {
  ck_assert_str_eq(str_at(r, "error_kind"), kind);
  ck_assert_msg(strstr(str_at(r, "error"), mentions), "error '%s' should mention '%s'", str_at(r, "error"), mentions);
  ck_assert(float_at(r, "mean") == 0);
}

/* Measures candidate: fine when kind is "", else failed as kind, the
 * error mentioning mentions. */
static void expect(const irm_module *task, const char *candidate, double timeout, const char *kind,
                   const char *mentions) {
  irm_object *r = measure(task, candidate, timeout);
  if (*kind) assert_failed(r, kind, mentions);
  else assert_fine(r);
  irm_object_release(r);
}

/* No measurement leaves a folder behind. */
static size_t temp_entries(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
  FILE *p = popen(cmd, "r");
  size_t n = 0;
  ck_assert_int_eq(fscanf(p, "%zu", &n), 1);
  pclose(p);
  return n;
}

static char tmp_[512];

static void setup(void) {
  snprintf(tmp_, sizeof tmp_, "/tmp/irm-check-tune-measure-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmp_));
  setenv("TMPDIR", tmp_, 1);
}

static void teardown(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp_);
  ck_assert_int_eq(system(cmd), 0);
}

/* ---- tasks of real convs ------------------------------------------------------------------ */

START_TEST(cnn_tasks) {
  irm_object *tasks = cnn_tasks_c();
  ck_assert_uint_eq(irm_array_size(tasks), 2);
  const char *families[] = {"winograd_nchwc", "conv2d_nchwc"};
  int64_t sizes[] = {8, 32};
  for (size_t i = 0; i < 2; i++) {
    irm_object *t = task_at(tasks, i);
    ck_assert_str_eq(str_at(t, "family"), families[i]);
    ck_assert_int_eq(int_at(t, "size"), sizes[i]);
    ck_assert_int_eq(int_at(t, "calls"), 1);
    ck_assert_ptr_nonnull(strstr(str_at(t, "workload"), "\"block\": 4"));
    ck_assert_str_eq(str_at(t, "target"), "c -keys=cpu --host='c -keys=cpu'");
    char key[2048];
    snprintf(key, sizeof key, "%s|%s|float32|%s|%s", families[i], str_at(t, "workload"), str_at(t, "target"),
             str_at(t, "features"));
    ck_assert_str_eq(str_at(t, "key"), key);
    const irm_any *knobs = irm_map_find_cstr(t, "knobs");
    ck_assert_uint_eq(irm_array_size(irm_map_find_cstr(knobs->v_obj, "ow_tile")->v_obj), 8);
    /* the task: one call over fresh parameters, no constants */
    irm_object *main = irm_module_function(module_of(t), "main");
    ck_assert_uint_eq(irm_function_param_count(main), 2);
    ck_assert_int_eq(irm_expr_kind_of(irm_function_body(main)), IRM_EXPR_CALL);
  }
  irm_object_release(tasks);
}
END_TEST

/* two convs of one workload (different weights) and a third of another */
#define SHARED_MODEL                                                                                                      \
  IP_HEAD                                                                                                                 \
  "def @main(%d: " TY("(1, 2, 7, 9, 4)") ", %w: " TY("(2, 2, 3, 3, 4, 4)") ", %v: " TY("(2, 2, 3, 3, 4, 4)") ", %u: " TY( \
      "(2, 2, 1, 1, 4, 4)") ") {\n"                                                                                       \
                            "  %0 = nn.contrib_conv2d_NCHWc(%d, %w, padding=[1, 1], channels=8, "                         \
                            "data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\");\n"                                      \
                            "  %1 = nn.contrib_conv2d_NCHWc(%d, %v, padding=[1, 1], channels=8, "                         \
                            "data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\");\n"                                      \
                            "  %2 = nn.contrib_conv2d_NCHWc(%d, %u, channels=8, "                                         \
                            "data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\");\n"                                      \
                            "  %3 = add(%0, %1);\n  %4 = add(%3, %2);\n  %4\n}\n"

START_TEST(shared_workloads) {
  irm_module *m = ip_parse(SHARED_MODEL);
  irm_object *tasks = tasks_of(m);
  ck_assert_uint_eq(irm_array_size(tasks), 2);
  ck_assert_int_eq(int_at(task_at(tasks, 0), "calls"), 2);
  ck_assert_int_eq(int_at(task_at(tasks, 1), "calls"), 1);
  ck_assert_ptr_nonnull(strstr(str_at(task_at(tasks, 1), "workload"), "\"kh\": 1"));
  irm_object_release(tasks);
  irm_object_release((irm_object *)m);
}
END_TEST

START_TEST(measure_conv) {
  irm_object *tasks = cnn_tasks_c();
  const irm_module *conv = module_of(task_at(tasks, 1));
  expect(conv, "{}", 10.0, "", "");
  irm_object *r = measure_on(conv, "{\"ow_tile\": 3, \"order\": \"row_outer\", \"padded\": true}", 10.0, some_cpu());
  assert_fine(r);
  irm_object_release(r);
  /* illegal: nothing compiled */
  r = measure(conv, "{\"ow_tile\": 9}", 10.0);
  assert_failed(r, "illegal", "ow_tile 9 is not one of the 8 legal values here");
  ck_assert(float_at(r, "compile_seconds") == 0);
  irm_object_release(r);
  expect(conv, "{\"tile\": 2}", 10.0, "illegal", "the family has no knob 'tile'");
  expect(conv, "{\"order\": 1}", 10.0, "illegal", "order 1 is not one of the 2 legal values");
  ck_assert_uint_eq(temp_entries(tmp_), 0);
  irm_object_release(tasks);
}
END_TEST

START_TEST(text_round_trip) {
  irm_object *tasks = cnn_tasks_c(), *text = NULL, *again = NULL;
  const irm_module *task = module_of(task_at(tasks, 0));
  ck_assert_ok(irm_dataflow_print(task, &text));
  irm_module *parsed = NULL;
  ck_assert_ok(irm_dataflow_parse(irm_string_data(text), irm_string_size(text), &parsed));
  ck_assert_ok(irm_dataflow_print(parsed, &again));
  ck_assert_str_eq(irm_string_data(again), irm_string_data(text));
  irm_object *a = measure(task, "{\"ow_tile\": 5}", 10.0), *b = measure(parsed, "{\"ow_tile\": 5}", 10.0);
  assert_fine(a);
  assert_fine(b);
  ck_assert_str_eq(str_at(a, "compiler"), str_at(b, "compiler"));
  irm_object_release(b);
  b = measure(parsed, "{\"ow_tile\": 50}", 10.0);
  assert_failed(b, "illegal", "ow_tile 50");
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(text);
  irm_object_release(again);
  irm_object_release((irm_object *)parsed);
  irm_object_release(tasks);
}
END_TEST

/* ---- the plugin family ----------------------------------------------------------------------- */

static const char *const modes[] = {"good", "slow", "crash", "hang", "wrong", "bad_c"};
static char last_mode_[32];  /* the mode the last FCodegenC call used ("" none yet) */
static char last_note_[512]; /* and the schedule's note */
static int last_tuned_;

static int same_type(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)nargs, (void)res;
  return irm_any_copy(irm_array_at(args[0].v_obj, 0), ret);
}

/* FTuneSpace(call, target): family "test_mode", the element count as the
 * workload, the knob "mode". */
static int mode_space(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)nargs, (void)res;
  char workload[64];
  snprintf(workload, sizeof workload, "{\"n\": %lld}",
           (long long)irm_tensor_type_numel(irm_expr_type(irm_call_arg(args[0].v_obj, 0))));
  irm_any values[6];
  for (int i = 0; i < 6; i++) values[i] = irm_any_str(modes[i]);
  irm_object *arr = NULL, *knobs = NULL, *map = NULL;
  const char *knob[] = {"mode"}, *keys[] = {"family", "workload", "knobs", "size"};
  int rc = irm_array_new(values, 6, &arr);
  irm_any kv = irm_any_object(arr);
  if (!rc) rc = irm_map_from_pairs(knob, &kv, 1, &knobs);
  irm_any v[] = {irm_any_str("test_mode"), irm_any_str(workload), irm_any_object(knobs), irm_any_float(6)};
  if (!rc) rc = irm_map_from_pairs(keys, v, 4, &map);
  irm_object_release(arr);
  irm_object_release(knobs);
  if (!rc) *ret = irm_any_object(map);
  return rc;
}

/* FCodegenC(desc): out = 2 * in, as desc["schedule"]["knobs"]["mode"] says. */
static int mode_codegen(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)nargs, (void)res;
  const irm_object *desc = args[0].v_obj;
  const irm_object *sched = irm_map_find_cstr(desc, "schedule")->v_obj;
  const irm_any *mode = irm_map_find_cstr(irm_map_find_cstr(sched, "knobs")->v_obj, "mode");
  const char *m = mode ? irm_string_data(mode->v_obj) : "good";
  snprintf(last_mode_, sizeof last_mode_, "%s", m);
  snprintf(last_note_, sizeof last_note_, "%s", str_at(sched, "note"));
  last_tuned_ = irm_map_find_cstr(sched, "tuned")->v_int != 0;
  const char *in = str_at(irm_array_at(irm_map_find_cstr(desc, "inputs")->v_obj, 0)->v_obj, "name");
  const char *out = str_at(irm_map_find_cstr(desc, "output")->v_obj, "name");
  char code[1024];
  const char *body = !strcmp(m, "slow")    ? "volatile int reps = 50; for (int r = 0; r < reps; r++) "
                                             "for (long i = 0; i < 256; i++) %s[i] = %s[i] * 2.0f;"
                     : !strcmp(m, "crash") ? "{ extern int raise(int); raise(11); } (void)%s; (void)%s;"
                     : !strcmp(m, "hang")  ? "volatile int spin = 1; while (spin) { } (void)%s; (void)%s;"
                     : !strcmp(m, "wrong") ? "for (long i = 0; i < 256; i++) %s[i] = %s[i] * 3.0f;"
                     : !strcmp(m, "bad_c") ? "this is not C %s %s"
                                           : "for (long i = 0; i < 256; i++) %s[i] = %s[i] * 2.0f;";
  snprintf(code, sizeof code, body, out, in);
  irm_object *s = NULL;
  int rc = irm_string_new(code, strlen(code), &s);
  if (!rc) *ret = irm_any_object(s);
  return rc;
}

static void register_plugin(void) {
  irm_kind *kind = NULL;
  ck_assert_ok(irm_op_register("test.tune_mode", 1, &kind));
  irm_packed_cfunc fns[] = {same_type, mode_space, mode_codegen};
  const char *attrs[] = {IRM_OP_ATTR_INFER_TYPE, IRM_OP_ATTR_TUNE_SPACE, IRM_OP_ATTR_CODEGEN_C};
  for (int i = 0; i < 3; i++) {
    irm_object *f = NULL;
    ck_assert_ok(irm_func_new_packed(fns[i], NULL, NULL, &f));
    irm_any v = irm_any_object(f);
    ck_assert_ok(irm_kind_set_attr(kind, attrs[i], &v, 10));
    irm_object_release(f);
  }
}

#define PLUGIN_MODEL IP_HEAD "def @main(%x: " TY("(256,)") ") {\n  %0 = test.tune_mode(%x);\n  %0\n}\n"

static irm_object *plugin_tasks(void) {
  register_plugin();
  irm_module *m = ip_parse(PLUGIN_MODEL);
  irm_object *tasks = tasks_of(m);
  irm_object_release((irm_object *)m);
  ck_assert_uint_eq(irm_array_size(tasks), 1);
  ck_assert_str_eq(str_at(task_at(tasks, 0), "family"), "test_mode");
  ck_assert_str_eq(str_at(task_at(tasks, 0), "workload"), "{\"n\": 256}");
  ck_assert_int_eq(int_at(task_at(tasks, 0), "size"), 6);
  return tasks;
}

START_TEST(plugin_modes) {
  irm_object *tasks = plugin_tasks();
  const irm_module *task = module_of(task_at(tasks, 0));
  expect(task, "{\"mode\": \"good\"}", 1.0, "", "");
  expect(task, "{\"mode\": \"slow\"}", 1.0, "", "");
  expect(task, "{\"mode\": \"crash\"}", 1.0, "crash", "SIGSEGV");
  expect(task, "{\"mode\": \"hang\"}", 1.0, "timeout", "after the timeout of 1 s");
  expect(task, "{\"mode\": \"wrong\"}", 1.0, "wrong", "where the default rule gives");
  irm_object *r = measure(task, "{\"mode\": \"bad_c\"}", 1.0);
  assert_failed(r, "compile", "the compiler failed on");
  ck_assert_ptr_nonnull(strstr(str_at(r, "error"), "error: unknown type name"));
  irm_object_release(r);
  expect(task, "{\"mode\": \"fast\"}", 1.0, "illegal", "mode \"fast\" is not one of the 6 legal values here");
  ck_assert_uint_eq(temp_entries(tmp_), 0);
  irm_object_release(tasks);
}
END_TEST

/* Failed measurements written to a database are never applied by a build;
 * a good one is, and the plugin's FCodegenC reads it. */
START_TEST(plugin_records_applied) {
  irm_object *tasks = plugin_tasks();
  const irm_object *t = task_at(tasks, 0);
  char db_path[600];
  snprintf(db_path, sizeof db_path, "%s/tune.db", tmp_);
  irm_tune_db *db = NULL;
  ck_assert_ok(irm_tune_db_open(db_path, IRM_TUNE_DB_WRITE, &db));
  irm_tune_workload w = {str_at(t, "family"), str_at(t, "workload"), "float32", str_at(t, "target"),
                         str_at(t, "features")};
  int64_t id = 0;
  ck_assert_ok(irm_tune_db_add_workload(db, &w, &id));
  const char *failing[] = {"{\"mode\":\"crash\"}", "{\"mode\":\"hang\"}", "{\"mode\":\"wrong\"}"};
  for (int i = 0; i < 3; i++) {
    irm_object *r = measure(module_of(t), failing[i], 1.0);
    irm_tune_measurement m = {failing[i], float_at(r, "mean"), float_at(r, "spread"), str_at(r, "error"),
                              str_at(r, "compiler")};
    ck_assert_str_ne(m.error, "");
    ck_assert_ok(irm_tune_db_add_measurement(db, id, &m, NULL));
    irm_object_release(r);
  }
  irm_module *model = ip_parse(PLUGIN_MODEL), *with = NULL;
  irm_any v = irm_any_str(db_path);
  ck_assert_ok(irm_module_with_attr(model, "tune.database", &v, &with));
  last_mode_[0] = '\0';
  irm_object_release(bu_build_text(with, "c"));
  ck_assert_str_eq(last_mode_, "good"); /* the default: every record failed */
  ck_assert(!last_tuned_);
  ck_assert_msg(strstr(last_note_, "every measurement failed (3), one with: "), "note: %s", last_note_);
  /* a good measurement of "slow" applies */
  irm_tune_measurement slow = {"{\"mode\":\"slow\"}", 1e-5, 1e-7, NULL, ""};
  ck_assert_ok(irm_tune_db_add_measurement(db, id, &slow, NULL));
  last_mode_[0] = '\0';
  irm_object_release(bu_build_text(with, "c"));
  ck_assert_str_eq(last_mode_, "slow");
  ck_assert(last_tuned_);
  ck_assert_str_eq(last_note_, "");
  /* without a database: the default, no note */
  irm_object_release(bu_build_text(model, "c"));
  ck_assert_str_eq(last_mode_, "good");
  ck_assert(!last_tuned_);
  ck_assert_str_eq(last_note_, "");
  irm_tune_db_close(db);
  irm_object_release((irm_object *)with);
  irm_object_release((irm_object *)model);
  irm_object_release(tasks);
}
END_TEST

/* ---- bad arguments ---------------------------------------------------------------------------- */

START_TEST(bad_arguments) {
  irm_module *cnn = NULL;
  ck_assert_ok(irm_dataflow_example_model("cnn", &cnn));
  irm_object *tasks = tasks_of(cnn), *r = NULL;
  const irm_module *task = module_of(task_at(tasks, 0));
  ck_assert_error(irm_tune_measure(cnn, "{}", NULL, &r), IRM_EVALUE,
                  "ValueError: the module is no tuning task: it has no str attribute 'tune.task'");
  ck_assert_error(irm_tune_measure(task, "{\"ow_tile\": ", NULL, &r), IRM_EVALUE,
                  "ValueError: tune measure: the candidate must be a JSON object");
  ck_assert_error(irm_tune_measure(task, "[1]", NULL, &r), IRM_EVALUE, "ValueError: tune measure: the candidate");
  ck_assert_error(irm_tune_measure((irm_module *)tasks, "{}", NULL, &r), IRM_ETYPE,
                  "TypeError: tune measure: the task must be an ir.IRModule");
  /* a damaged tune.task: no irm JSON; JSON of no Map */
  const char *damaged[] = {"x", "{\"irm_json\": 1, \"root\": 3, \"nodes\": []}"};
  for (int i = 0; i < 2; i++) {
    irm_module *bad = NULL;
    irm_any v = irm_any_str(damaged[i]);
    ck_assert_ok(irm_module_with_attr(task, IRM_TUNE_TASK_KEY, &v, &bad));
    ck_assert_error(irm_tune_measure(bad, "{}", NULL, &r), IRM_EVALUE, "ValueError: reading the task: ");
    if (i) ck_assert_error_mentions("attribute is damaged: no Map with str family and workload and a Map of knobs");
    irm_object_release((irm_object *)bad);
  }
  irm_tune_measure_options o = IRM_TUNE_MEASURE_OPTIONS_DEFAULT;
  o.repeat = 0;
  ck_assert_error(irm_tune_measure(task, "{}", &o, &r), IRM_EVALUE, "ValueError: option 'repeat' must be at least 1");
  o.repeat = 1, o.timeout = 0;
  ck_assert_error(irm_tune_measure(task, "{}", &o, &r), IRM_EVALUE, "ValueError: option 'timeout' must be a positive");
  o.timeout = 1, o.cpu = 1 << 20;
  ck_assert_error(irm_tune_measure(task, "{}", &o, &r), IRM_EVALUE,
                  "ValueError: option 'cpu' must be -1 (any) or a CPU");
  o.cpu = -1, o.flush = 2;
  ck_assert_error(irm_tune_measure(task, "{}", &o, &r), IRM_EVALUE,
                  "ValueError: option 'flush' must be 0 or 1 (a bool), got 2");
  ck_assert_ptr_null(r);
  /* the global: options by name and type */
  irm_object *opts = NULL;
  const char *keys[] = {"repet"};
  irm_any vals[] = {irm_any_int(2)};
  ck_assert_ok(irm_map_from_pairs(keys, vals, 1, &opts));
  irm_any args[] = {irm_any_object((irm_object *)task), irm_any_str("{}"), irm_any_object(opts)}, ret = irm_any_none();
  ck_assert_error(irm_func_call_global("tune.Measure", args, 3, &ret), IRM_EKEY, "KeyError: tune.Measure: ");
  ck_assert_error_mentions("unknown option 'repet'; did you mean 'repeat'?");
  irm_object_release(opts);
  const char *tkeys[] = {"timeout"};
  irm_any tvals[] = {irm_any_str("soon")};
  ck_assert_ok(irm_map_from_pairs(tkeys, tvals, 1, &opts));
  args[2] = irm_any_object(opts);
  ck_assert_error(irm_func_call_global("tune.Measure", args, 3, &ret), IRM_ETYPE, "TypeError: tune.Measure: ");
  ck_assert_error_mentions("option 'timeout' must be a float");
  irm_object_release(opts);
  const char *fkeys[] = {"flush"};
  irm_any fvals[] = {irm_any_str("yes")};
  ck_assert_ok(irm_map_from_pairs(fkeys, fvals, 1, &opts));
  args[2] = irm_any_object(opts);
  ck_assert_error(irm_func_call_global("tune.Measure", args, 3, &ret), IRM_ETYPE, "TypeError: tune.Measure: ");
  ck_assert_error_mentions("option 'flush' must be a bool, got ffi.String");
  irm_object_release(opts);
  args[0] = irm_any_int(1);
  ck_assert_error(irm_func_call_global("tune.Measure", args, 2, &ret), IRM_ETYPE, "TypeError: tune.Measure: ");
  ck_assert_error(irm_func_call_global("tune.ExtractTasks", args, 2, &ret), IRM_ETYPE,
                  "TypeError: tune.ExtractTasks: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object_release(tasks);
  irm_object_release((irm_object *)cnn);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tune_measure");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, cnn_tasks);
  tcase_add_test(tc, shared_workloads);
  tcase_add_test(tc, measure_conv);
  tcase_add_test(tc, text_round_trip);
  tcase_add_test(tc, plugin_modes);
  tcase_add_test(tc, plugin_records_applied);
  tcase_add_test(tc, bad_arguments);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
