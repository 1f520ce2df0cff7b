/* The tuning database's globals (docs/globals.md, "tune"): each call
 * opens the file, does one thing and closes it, so any language (the
 * Python package's irm.tune.Database) shares the C API's behaviour. */
#include "backend_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "tune_internal.h"

/* The workload of args[first..first+4]: family, shapes, dtypes, target,
 * features. */
static int workload_args(const char *fn, const irm_any *args, int32_t first, irm_tune_workload *w) {
  const char **f[] = {&w->family, &w->shapes, &w->dtypes, &w->target, &w->features};
  for (int32_t i = 0; i < 5; i++) {
    int rc = irm_arg_str(fn, args, first + i, f[i], NULL);
    if (rc) return rc;
  }
  return IRM_OK;
}

static int open_arg(const char *fn, const irm_any *args, irm_tune_db_mode mode, irm_tune_db **db) {
  const char *path = NULL;
  int rc = irm_arg_str(fn, args, 0, &path, NULL);
  if (!rc && (rc = irm_tune_db_open(path, mode, db))) rc = irm_error_context(rc, "%s", fn);
  return rc;
}

/* tune.DatabaseOpen(path [, read_only]) -> int: the schema version the
 * file had (0 for a new one); made or migrated unless read_only. */
static int db_open(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "tune.DatabaseOpen";
  (void)resource;
  bool ro = false;
  irm_tune_db *db = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_bool(fn, args, 1, &ro);
  if (!rc) rc = open_arg(fn, args, ro ? IRM_TUNE_DB_READ : IRM_TUNE_DB_WRITE, &db);
  if (rc) return rc;
  *ret = irm_any_int(irm_tune_db_opened_version(db));
  irm_tune_db_close(db);
  return IRM_OK;
}

/* tune.DatabaseAddWorkload(path, family, shapes, dtypes, target,
 * features) -> int: the workload's id */
static int db_add_workload(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "tune.DatabaseAddWorkload";
  (void)resource;
  irm_tune_workload w;
  irm_tune_db *db = NULL;
  int64_t id = 0;
  int rc = irm_arg_count(fn, nargs, 6, 6);
  if (!rc) rc = workload_args(fn, args, 1, &w);
  if (!rc) rc = open_arg(fn, args, IRM_TUNE_DB_WRITE, &db);
  if (!rc && (rc = irm_tune_db_add_workload(db, &w, &id))) rc = irm_error_context(rc, "%s", fn);
  irm_tune_db_close(db);
  if (!rc) *ret = irm_any_int(id);
  return rc;
}

/* tune.DatabaseAddMeasurement(path, workload_id, knobs, mean, spread
 * [, error str or None] [, compiler str]) -> int: the measurement's id */
static int db_add_measurement(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "tune.DatabaseAddMeasurement";
  (void)resource;
  irm_tune_measurement m = {NULL, 0, 0, NULL, ""};
  int64_t wid = 0, id = 0;
  irm_tune_db *db = NULL;
  int rc = irm_arg_count(fn, nargs, 5, 7);
  if (!rc) rc = irm_arg_int(fn, args, 1, &wid);
  if (!rc) rc = irm_arg_str(fn, args, 2, &m.knobs, NULL);
  if (!rc) rc = irm_arg_float(fn, args, 3, &m.mean);
  if (!rc) rc = irm_arg_float(fn, args, 4, &m.spread);
  if (!rc && irm_arg_present(args, nargs, 5)) rc = irm_arg_str(fn, args, 5, &m.error, NULL);
  if (!rc && irm_arg_present(args, nargs, 6)) rc = irm_arg_str(fn, args, 6, &m.compiler, NULL);
  if (!rc) rc = open_arg(fn, args, IRM_TUNE_DB_WRITE, &db);
  if (!rc && (rc = irm_tune_db_add_measurement(db, wid, &m, &id))) rc = irm_error_context(rc, "%s", fn);
  irm_tune_db_close(db);
  if (!rc) *ret = irm_any_int(id);
  return rc;
}

/* The Map of a best record: {found, knobs, mean, spread, measurements,
 * compiler, irm_version, time, reason}; knobs and the measurement's
 * fields NONE when not found. */
static int record_map(const char *fn, const irm_tune_record *r, irm_any *ret) {
  const char *keys[] = {"found",    "knobs",       "mean", "spread", "measurements",
                        "compiler", "irm_version", "time", "reason"};
  irm_any none = irm_any_none();
  irm_any values[] = {irm_any_bool(r->found != 0),
                      r->found ? irm_any_str(r->knobs) : none,
                      r->found ? irm_any_float(r->mean) : none,
                      r->found ? irm_any_float(r->spread) : none,
                      r->found ? irm_any_int(r->measurements) : none,
                      r->found ? irm_any_str(r->compiler) : none,
                      r->found ? irm_any_str(r->irm_version) : none,
                      r->found ? irm_any_str(r->time) : none,
                      irm_any_str(r->reason)};
  irm_object *map = NULL;
  return irm_ret_object(fn, irm_map_from_pairs(keys, values, 9, &map), &map, ret);
}

/* tune.DatabaseBest(path, family, shapes, dtypes, target, features) ->
 * Map (record_map); the file is opened read-only. */
static int db_best(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "tune.DatabaseBest";
  (void)resource;
  irm_tune_workload w;
  irm_tune_db *db = NULL;
  irm_tune_record r;
  int rc = irm_arg_count(fn, nargs, 6, 6);
  if (!rc) rc = workload_args(fn, args, 1, &w);
  if (!rc) rc = open_arg(fn, args, IRM_TUNE_DB_READ, &db);
  if (rc) return rc;
  if ((rc = irm_tune_db_best(db, &w, NULL, NULL, &r))) rc = irm_error_context(rc, "%s", fn);
  irm_tune_db_close(db);
  if (!rc) rc = record_map(fn, &r, ret);
  irm_tune_record_clear(&r);
  return rc;
}

int irm_register_tune_globals_(void) {
  static const irm_builtin_global globals[] = {
      {"tune.DatabaseOpen", db_open},
      {"tune.DatabaseAddWorkload", db_add_workload},
      {"tune.DatabaseAddMeasurement", db_add_measurement},
      {"tune.DatabaseBest", db_best},
  };
  return irm_global_register_builtins_(globals, sizeof globals / sizeof globals[0]);
}
