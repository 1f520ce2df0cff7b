/* tune.Measure (irm/tune_measure.h, docs/tuning.md "Tasks and
 * measurement"): a candidate of a task checked against the task's space,
 * built through a scratch tuning database (the path builds apply records
 * by), run in a child beside the default rule's build, and compared. */
#include <dirent.h>
#include <sched.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend_internal.h"
#include "export/export_internal.h"
#include "irm/build.h"
#include "irm/container.h"
#include "irm/dataflow/expr.h"
#include "irm/dataflow/type.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/json.h"
#include "irm/tensor.h"
#include "irm/tune_db.h"
#include "irm/tune_measure.h"
#include "tune_build.h"
#include "tune_internal.h"
#include "tune_run.h"

/* A measurement's result as it is being made. */
typedef struct outcome {
  double mean, spread, compile_s, run_s;
  const char *kind; /* "" or an error kind */
  char error[1024];
  char *compiler;
} outcome;

/* Everything a measurement holds; released by done(). */
typedef struct measure {
  const irm_module *task;
  irm_object *fields; /* tune.task's Map */
  irm_compilation_config *cfg;
  char dir[4096]; /* the temporary folder ("" before it is made) */
  char *target_text;
  irm_cc_isa_ isa;
  irm_object *ref; /* the reference build's result */
  irm_tensor **in, **want, **got;
  size_t n_in, n_out;
} measure;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fail(outcome *o, const char *kind, const char *fmt, const char *what) {
  o->kind = kind;
  snprintf(o->error, sizeof o->error, fmt, what);
}

/* The first line of the last error, without its kind ("RuntimeError: "). */
static const char *first_line(char *buf, size_t size) {
  const char *e = irm_last_error(), *colon = e ? strstr(e, ": ") : NULL;
  if (colon && colon - e < 24) e = colon + 2;
  snprintf(buf, size, "%.*s", e ? (int)strcspn(e, "\n") : 0, e ? e : "");
  irm_clear_error();
  return buf;
}

/* ---- the task and the candidate ----------------------------------------------------------- */

/* tune.task's Map has str family and workload and a Map of Arrays knobs. */
static int fields_ok(const irm_any *f) {
  if (f->type_code != IRM_OBJECT || irm_object_type_index(f->v_obj) != IRM_TYPE_MAP) return 0;
  const irm_any *fam = irm_map_find_cstr(f->v_obj, "family"), *wl = irm_map_find_cstr(f->v_obj, "workload"),
                *knobs = irm_map_find_cstr(f->v_obj, "knobs");
  const char *s = NULL;
  if (!fam || !wl || irm_any_to_str(fam, &s, NULL) || irm_any_to_str(wl, &s, NULL) || !knobs ||
      knobs->type_code != IRM_OBJECT || irm_object_type_index(knobs->v_obj) != IRM_TYPE_MAP) {
    irm_clear_error();
    return 0;
  }
  irm_map_iter it = irm_map_iter_begin(knobs->v_obj);
  const irm_object *k;
  const irm_any *v;
  while (irm_map_iter_next(&it, &k, &v))
    if (v->type_code != IRM_OBJECT || irm_object_type_index(v->v_obj) != IRM_TYPE_ARRAY) return 0;
  return 1;
}

static int read_task(measure *m) {
  irm_any v = irm_any_none(), fields = irm_any_none();
  const char *text = NULL;
  size_t len = 0;
  int rc = irm_module_get_attr(m->task, IRM_TUNE_TASK_KEY, &v);
  if (rc || v.type_code == IRM_NONE || irm_any_to_str(&v, &text, &len)) {
    irm_any_release(&v);
    return irm_error(IRM_EVALUE, "the module is no tuning task: it has no str attribute '" IRM_TUNE_TASK_KEY
                                 "' (make tasks with tune.ExtractTasks)");
  }
  rc = irm_from_json(text, len, &fields);
  irm_any_release(&v);
  if (!rc && !fields_ok(&fields))
    rc = irm_error(IRM_EVALUE, "the task's '" IRM_TUNE_TASK_KEY
                               "' attribute is damaged: no Map with str family and workload and a Map of knobs");
  if (rc) {
    irm_any_release(&fields);
    return irm_error_context(rc, "reading the task");
  }
  m->fields = fields.v_obj;
  rc = irm_module_compilation_config(m->task, &m->cfg);
  const irm_object *target = rc ? NULL : irm_compilation_config_default_primitive_target(m->cfg);
  if (!rc) rc = irm_tune_target_text_(target, &m->target_text);
  if (!rc && irm_cc_target_isa_(target, &m->isa)) { /* as lowering: unknown features */
    irm_clear_error();
    memset(&m->isa, 0, sizeof m->isa);
  }
  return rc;
}

/* "illegal" with the reason when a knob of candidate (canonical JSON)
 * is not in the space. */
static void check_legal(const measure *m, const char *candidate, outcome *o) {
  if (!irm_tune_knobs_legal_(irm_map_find_cstr(m->fields, "knobs")->v_obj, candidate, o->error, sizeof o->error))
    o->kind = "illegal";
}

/* ---- builds --------------------------------------------------------------------------------- */

/* Builds mod and exports it to <dir>/<name>.so: 0, or the failure in o. */
static int build_export(measure *m, const irm_module *mod, const char *name, irm_object **result, outcome *o) {
  char path[4200], line[1024];
  snprintf(path, sizeof path, "%s/%s.so", m->dir, name);
  irm_any target = irm_any_object(irm_module_target(m->task));
  irm_export_options eo = IRM_EXPORT_OPTIONS_DEFAULT;
  eo.progress = 0;
  int rc =
      irm_build(mod, &target, NULL, irm_module_executor(m->task), irm_module_runtime(m->task), NULL, "default", result);
  if (!rc) rc = irm_build_export_library_with(*result, path, &eo);
  if (rc) fail(o, "compile", "%s", first_line(line, sizeof line));
  return rc;
}

/* "illegal" when the candidate's build kept the default rule (its
 * metadata's schedule record says "tuned": false, with the note why):
 * the record was refused where the space allowed it. */
static void check_applied(const irm_object *result, outcome *o) {
  static const char off[] = "\\\"tuned\\\": false", note[] = "\\\"tune_note\\\": \\\"";
  const irm_any *arts = irm_map_find_cstr(result, "artifacts");
  if (!arts || arts->type_code != IRM_OBJECT) return;
  irm_map_iter it = irm_map_iter_begin(arts->v_obj);
  const irm_object *key;
  const irm_any *v;
  while (irm_map_iter_next(&it, &key, &v)) {
    const char *text = NULL, *at = NULL;
    if (irm_any_to_str(v, &text, NULL)) {
      irm_clear_error();
      continue;
    }
    if (!strstr(text, off)) continue;
    at = strstr(text, note);
    at = at ? at + strlen(note) : "";
    o->kind = "illegal";
    snprintf(o->error, sizeof o->error, "the build did not apply the candidate: %.*s", (int)strcspn(at, "\\"), at);
    return;
  }
}

/* A scratch database at <dir>/candidate.db holding only candidate
 * (canonical JSON) for the task's workload, as a build looks it up. */
static int scratch_db(const measure *m, const char *candidate, char *path, size_t size) {
  snprintf(path, size, "%s/candidate.db", m->dir);
  irm_tune_db *db = NULL;
  irm_tune_workload w = {NULL, NULL, "float32", m->target_text, m->isa.features};
  int rc = irm_any_to_str(irm_map_find_cstr(m->fields, "family"), &w.family, NULL);
  if (!rc) rc = irm_any_to_str(irm_map_find_cstr(m->fields, "workload"), &w.shapes, NULL);
  irm_tune_measurement meas = {candidate, 1.0, 0.0, NULL, ""};
  int64_t id = 0;
  if (!rc) rc = irm_tune_db_open(path, IRM_TUNE_DB_WRITE, &db);
  if (!rc) rc = irm_tune_db_add_workload(db, &w, &id);
  if (!rc) rc = irm_tune_db_add_measurement(db, id, &meas, NULL);
  irm_tune_db_close(db);
  return rc;
}

/* ---- data ----------------------------------------------------------------------------------- */

static uint64_t next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static int tensor_of_type(const irm_object *type, irm_tensor **out) {
  if (!type || irm_tensor_type_ndim(type) < 0)
    return irm_error(IRM_ETYPE, "the task's main takes or gives something else than tensors");
  return irm_tensor_new(irm_tensor_type_dtype(type), irm_tensor_type_shape(type), irm_tensor_type_ndim(type), NULL,
                        out);
}

/* Seeded inputs for the built main's params, and output tensors twice. */
static int make_data(measure *m, int64_t seed) {
  const irm_any *fm = irm_map_find_cstr(m->ref, "module");
  irm_object *main = irm_module_function((const irm_module *)fm->v_obj, "main");
  irm_object *ret = main ? irm_expr_type(irm_function_body(main)) : NULL;
  if (!main) return irm_error(IRM_EVALUE, "the task's build has no main");
  m->n_in = irm_function_param_count(main);
  m->n_out = ret && irm_dataflow_type_kind_of(ret) == IRM_DATAFLOW_TYPE_TUPLE ? irm_tuple_type_size(ret) : 1;
  m->in = irm_calloc(m->n_in + 1, sizeof *m->in);
  m->want = irm_calloc(m->n_out, sizeof *m->want);
  m->got = irm_calloc(m->n_out, sizeof *m->got);
  if (!m->in || !m->want || !m->got) return irm_error(IRM_ENOMEM, "out of memory measuring");
  uint64_t s = (uint64_t)seed;
  int rc = IRM_OK;
  for (size_t i = 0; i < m->n_in && !rc; i++) {
    rc = tensor_of_type(irm_expr_type(irm_function_param(main, i)), &m->in[i]);
    int is_float = !rc && irm_tensor_dl(m->in[i])->dtype.code == kDLFloat;
    for (int64_t k = 0; !rc && k < irm_tensor_numel(m->in[i]); k++) {
      uint64_t r = next(&s);
      irm_tensor_set_f64(m->in[i], k, is_float ? (double)(r >> 11) / 4503599627370496.0 - 1.0 : (double)(r % 4));
    }
  }
  for (size_t i = 0; i < m->n_out && !rc; i++) {
    const irm_object *t =
        m->n_out > 1 || irm_dataflow_type_kind_of(ret) == IRM_DATAFLOW_TYPE_TUPLE ? irm_tuple_type_field(ret, i) : ret;
    rc = tensor_of_type(t, &m->want[i]);
    if (!rc) rc = tensor_of_type(t, &m->got[i]);
  }
  return rc;
}

/* Runs <dir>/<name>.so into outs; its failure into o (what: "" or "the
 * reference's "). */
static int run_lib(measure *m, const char *name, irm_tensor **outs, const irm_tune_measure_options *opts, int timed,
                   outcome *o) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.so", m->dir, name);
  void **in = irm_calloc(m->n_in + 1, sizeof *in), **out = irm_calloc(m->n_out, sizeof *out);
  size_t *bytes = irm_calloc(m->n_out, sizeof *bytes), *in_bytes = irm_calloc(m->n_in + 1, sizeof *in_bytes);
  int rc = in && out && bytes && in_bytes ? IRM_OK : irm_error(IRM_ENOMEM, "out of memory measuring");
  for (size_t i = 0; !rc && i < m->n_in; i++) {
    in[i] = irm_tensor_data(m->in[i]);
    in_bytes[i] = irm_tensor_nbytes(m->in[i]);
  }
  for (size_t i = 0; !rc && i < m->n_out; i++) {
    out[i] = irm_tensor_data(outs[i]);
    bytes[i] = irm_tensor_nbytes(outs[i]);
  }
  irm_tune_run_spec_ s = {path,
                          "default",
                          m->n_in,
                          m->n_out,
                          in,
                          in_bytes,
                          out,
                          bytes,
                          opts->warmup,
                          opts->repeat,
                          opts->min_repeat_ms,
                          opts->timeout,
                          opts->cpu,
                          (int)opts->flush};
  if (!timed) s.warmup = s.repeat = 0;
  irm_tune_run_result_ r;
  if (!rc) rc = irm_tune_run_(&s, &r);
  if (!rc) {
    o->run_s += r.seconds;
    static const char *const kinds[] = {"", "compile", "crash", "timeout"};
    if (r.kind != IRM_TUNE_RUN_OK) fail(o, kinds[r.kind], timed ? "%s" : "the default rule's build: %s", r.error);
    else if (timed) o->mean = r.mean, o->spread = r.spread;
  }
  irm_free(in);
  irm_free(in_bytes);
  irm_free(out);
  irm_free(bytes);
  return rc;
}

/* "wrong" when an output is off the reference's beyond the evaluator
 * tests' tolerance (1e-4, relative past magnitude 1). */
static void compare(const measure *m, outcome *o) {
  for (size_t i = 0; i < m->n_out; i++)
    for (int64_t k = 0; k < irm_tensor_numel(m->want[i]); k++) {
      double a = irm_tensor_get_f64(m->got[i], k), b = irm_tensor_get_f64(m->want[i], k);
      if (fabs(a - b) <= 1e-4 * (1 + fabs(b)) || (isnan(a) && isnan(b))) continue;
      snprintf(o->error, sizeof o->error,
               "output %zu element %lld is %.9g where the default rule gives %.9g (tolerance 1e-4)", i, (long long)k, a,
               b);
      o->kind = "wrong";
      return;
    }
}

/* ---- the measurement ------------------------------------------------------------------------ */

static void remove_dir(const char *dir) {
  DIR *d = *dir ? opendir(dir) : NULL;
  if (!d) return;
  struct dirent *e;
  char path[4400];
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  closedir(d);
  rmdir(dir);
}

static void done(measure *m) {
  remove_dir(m->dir);
  for (size_t i = 0; m->in && i < m->n_in; i++) irm_object_release((irm_object *)m->in[i]);
  for (size_t i = 0; i < m->n_out; i++) {
    if (m->want) irm_object_release((irm_object *)m->want[i]);
    if (m->got) irm_object_release((irm_object *)m->got[i]);
  }
  irm_free(m->in);
  irm_free(m->want);
  irm_free(m->got);
  irm_object_release(m->ref);
  irm_object_release(m->fields);
  irm_object_release((irm_object *)m->cfg);
  irm_free(m->target_text);
}

/* The compiler's identity as the build cache keys on it (the command,
 * its resolved path, the file's time and size, `--version`), shortened to
 * the path and the first line of `--version`: "/usr/bin/cc cc (Debian
 * 12.2.0-14) 12.2.0"; NEW. */
static char *compiler_identity(const measure *m) {
  char cc[1024], buf[1024] = "";
  irm_text_buf id;
  irm_text_buf_init_(&id, NULL, 0);
  if (irm_cc_for_target_(irm_compilation_config_default_primitive_target(m->cfg), NULL, cc, sizeof cc) ||
      irm_cc_identity_(cc, &id))
    irm_clear_error();
  const char *lines[4] = {id.failed ? "" : irm_text_buf_cstr_(&id)};
  for (int i = 1; i < 4; i++) lines[i] = lines[i - 1] + strcspn(lines[i - 1], "\n") + (*lines[i - 1] != '\0');
  if (*lines[3]) /* command, path, time and size, then --version */
    snprintf(buf, sizeof buf, "%.*s %.*s", (int)strcspn(lines[1], "\n"), lines[1], (int)strcspn(lines[3], "\n"),
             lines[3]);
  irm_text_buf_free_(&id);
  return irm_strdup(buf);
}

/* Builds, runs and compares; the candidate's failures into o. */
static int measure_candidate(measure *m, json_t *cand, const char *canonical, const irm_tune_measure_options *opts,
                             outcome *o) {
  const char *tmp = getenv("TMPDIR");
  snprintf(m->dir, sizeof m->dir, "%s/irm-measure-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(m->dir)) {
    m->dir[0] = '\0';
    return irm_error(IRM_ERUNTIME, "cannot make a temporary folder for a measurement");
  }
  double t0 = now_s();
  irm_object *built = NULL;
  irm_module *with = NULL;
  int own = json_object_size(cand) > 0, rc = IRM_OK;
  if (build_export(m, m->task, "reference", &m->ref, o)) {
    snprintf(o->error + strlen(o->error), sizeof o->error - strlen(o->error), " (the default rule's build)");
    o->compile_s = now_s() - t0;
    return IRM_OK;
  }
  if (own) {
    char db[4200];
    irm_any v = irm_any_str(db);
    rc = scratch_db(m, canonical, db, sizeof db);
    if (!rc) rc = irm_module_with_attr(m->task, IRM_TUNE_DATABASE_KEY, &v, &with);
    if (!rc && !build_export(m, with, "candidate", &built, o)) check_applied(built, o);
    irm_object_release((irm_object *)with);
    irm_object_release(built);
  }
  o->compile_s = now_s() - t0;
  if (!rc && !*o->kind) rc = make_data(m, opts->seed);
  if (!rc && !*o->kind) rc = run_lib(m, "reference", m->want, opts, 0, o);
  if (!rc && !*o->kind) rc = run_lib(m, own ? "candidate" : "reference", m->got, opts, 1, o);
  if (!rc && !*o->kind) compare(m, o);
  return rc;
}

/* The result Map of o. */
static int result_map(const outcome *o, irm_object **out) {
  const char *keys[] = {"mean", "spread", "error", "error_kind", "compile_seconds", "run_seconds", "compiler"};
  int ok = !*o->kind;
  irm_any v[] = {irm_any_float(ok ? o->mean : 0),
                 irm_any_float(ok ? o->spread : 0),
                 irm_any_str(ok ? "" : o->error),
                 irm_any_str(o->kind),
                 irm_any_float(o->compile_s),
                 irm_any_float(o->run_s),
                 irm_any_str(o->compiler ? o->compiler : "")};
  return irm_map_from_pairs(keys, v, 7, out);
}

static int check_options(const irm_tune_measure_options *o) {
  if (o->repeat < 1) return irm_error(IRM_EVALUE, "option 'repeat' must be at least 1, got %lld", (long long)o->repeat);
  if (o->min_repeat_ms < 0 || o->warmup < 0)
    return irm_error(IRM_EVALUE, "option '%s' must not be negative", o->warmup < 0 ? "warmup" : "min_repeat_ms");
  if (!(o->timeout > 0)) return irm_error(IRM_EVALUE, "option 'timeout' must be a positive number of seconds");
  if (o->flush != 0 && o->flush != 1)
    return irm_error(IRM_EVALUE, "option 'flush' must be 0 or 1 (a bool), got %lld", (long long)o->flush);
  cpu_set_t set;
  if (o->cpu >= CPU_SETSIZE || o->cpu < -1 ||
      (o->cpu >= 0 && (sched_getaffinity(0, sizeof set, &set) || !CPU_ISSET((int)o->cpu, &set))))
    return irm_error(IRM_EVALUE, "option 'cpu' must be -1 (any) or a CPU this process may run on, got %lld",
                     (long long)o->cpu);
  return IRM_OK;
}

int irm_tune_measure(const irm_module *task, const char *candidate, const irm_tune_measure_options *opts,
                     irm_object **out) {
  irm_tune_measure_options dflt = IRM_TUNE_MEASURE_OPTIONS_DEFAULT;
  if (!opts) opts = &dflt;
  if (!task || !irm_object_is((const irm_object *)task, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "tune measure: the task must be an ir.IRModule");
  json_error_t jerr;
  json_t *cand = candidate ? json_loads(candidate, JSON_REJECT_DUPLICATES, &jerr) : NULL;
  if (!json_is_object(cand)) {
    json_decref(cand);
    return irm_error(IRM_EVALUE, "tune measure: the candidate must be a JSON object of knob -> value, got %s",
                     irm_error_quote(candidate ? candidate : "NULL"));
  }
  char *canonical = json_dumps(cand, JSON_SORT_KEYS | JSON_COMPACT);
  measure m;
  memset(&m, 0, sizeof m);
  m.task = task;
  outcome o = {0, 0, 0, 0, "", "", NULL};
  int rc = canonical ? check_options(opts) : irm_error(IRM_ENOMEM, "out of memory measuring");
  if (!rc) rc = read_task(&m);
  if (!rc) check_legal(&m, canonical, &o);
  if (!rc) o.compiler = compiler_identity(&m);
  if (!rc && !*o.kind) rc = measure_candidate(&m, cand, canonical, opts, &o);
  if (!rc) rc = result_map(&o, out);
  done(&m);
  free(canonical);
  json_decref(cand);
  irm_free(o.compiler);
  return rc;
}

/* ---- the global ----------------------------------------------------------------------------- */

/* opts from a Map of the option names (TypeError for a mistyped one,
 * KeyError with the closest name for an unknown one). */
static int options_of(const irm_object *map, irm_tune_measure_options *opts) {
  static const char *const names[] = {"repeat", "min_repeat_ms", "warmup", "timeout", "seed", "cpu", "flush"};
  int64_t *ints[] = {&opts->repeat, &opts->min_repeat_ms, &opts->warmup, NULL, &opts->seed, &opts->cpu, &opts->flush};
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *key;
  const irm_any *v;
  int rc = IRM_OK;
  while (!rc && irm_map_iter_next(&it, &key, &v)) {
    const char *k = irm_string_data(key);
    size_t j = 0;
    while (j < 7 && strcmp(k, names[j])) j++;
    if (j == 7)
      rc = irm_error(IRM_EKEY,
                     "unknown option '%s'; did you mean '%s'? (options: repeat, min_repeat_ms, warmup, timeout, seed, "
                     "cpu, flush)",
                     k, irm_closest_name(k, names, 7));
    else if (j == 6 && v->type_code != IRM_BOOL && v->type_code != IRM_INT)
      rc = irm_error(IRM_ETYPE, "option 'flush' must be a bool, got %s", irm_any_type_name(v));
    else if (j == 6) opts->flush = v->v_int;
    else if (ints[j] && v->type_code != IRM_INT)
      rc = irm_error(IRM_ETYPE, "option '%s' must be an int, got %s", k, irm_any_type_name(v));
    else if (ints[j]) *ints[j] = v->v_int;
    else if (v->type_code != IRM_FLOAT && v->type_code != IRM_INT)
      rc = irm_error(IRM_ETYPE, "option 'timeout' must be a float (seconds), got %s", irm_any_type_name(v));
    else opts->timeout = v->type_code == IRM_FLOAT ? v->v_float : (double)v->v_int;
  }
  return rc;
}

/* tune.Measure(task, candidate str, options Map = {}) -> Map */
static int measure_global(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "tune.Measure";
  (void)resource;
  irm_object *task = NULL, *opts_map = NULL, *res = NULL;
  const char *cand = NULL;
  irm_tune_measure_options opts = IRM_TUNE_MEASURE_OPTIONS_DEFAULT;
  int rc = irm_arg_count(fn, nargs, 2, 3);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &task);
  if (!rc) rc = irm_arg_str(fn, args, 1, &cand, NULL);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_object(fn, args, 2, "ffi.Map", &opts_map);
  if (!rc && opts_map) rc = options_of(opts_map, &opts);
  if (!rc) rc = irm_tune_measure((const irm_module *)task, cand, &opts, &res);
  if (rc) return irm_error_context_global_(rc, fn);
  *ret = irm_any_object(res);
  return IRM_OK;
}

int irm_register_tune_measure_globals_(void) {
  static const irm_builtin_global globals[] = {{"tune.Measure", measure_global}};
  return irm_global_register_builtins_(globals, 1);
}
