/* The tuning database's queries (irm/tune_db.h): the best record of a
 * workload, with the reason when none applies, and the walk over the
 * workloads `irm tune --show` prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm/alloc.h"
#include "irm/error.h"
#include "tune_internal.h"

void irm_tune_record_clear(irm_tune_record *r) {
  irm_free(r->knobs);
  irm_free(r->compiler);
  irm_free(r->irm_version);
  irm_free(r->time);
  memset(r, 0, sizeof *r);
}

static int query_error(const irm_tune_db *db) {
  return irm_tune_sql_error_(db, IRM_ERUNTIME, "cannot query tuning database");
}

/* Prepares head col tail: a query naming a column version 1 lacks
 * (tune_internal.h). */
static int prepare_with(const irm_tune_db *db, const char *head, const char *col, const char *tail, sqlite3_stmt **st) {
  char sql[512];
  snprintf(sql, sizeof sql, "%s%s%s", head, col, tail);
  return irm_tune_prepare_(db, sql, st);
}

/* Fills out from a row of best_of's query. */
static int take_row(sqlite3_stmt *st, irm_tune_record *out) {
  out->knobs = irm_strdup(irm_tune_col_text_(st, 0));
  out->mean = sqlite3_column_double(st, 1);
  out->spread = sqlite3_column_double(st, 2);
  out->compiler = irm_strdup(irm_tune_col_text_(st, 3));
  out->irm_version = irm_strdup(irm_tune_col_text_(st, 4));
  out->time = irm_strdup(irm_tune_col_text_(st, 5));
  if (!out->knobs || !out->compiler || !out->irm_version || !out->time) {
    irm_tune_record_clear(out);
    return irm_error(IRM_ENOMEM, "out of memory reading the tuning database");
  }
  out->found = 1;
  return IRM_OK;
}

/* The number of measurements of workload id and of failed ones, and one
 * failure's text into err (err_size > 0). */
static int counts(const irm_tune_db *db, int64_t id, int64_t *n, int64_t *failed, char *err, size_t err_size) {
  sqlite3_stmt *st = NULL;
  int rc = irm_tune_prepare_(db,
                             "SELECT count(m.id), count(m.error), max(m.error) FROM measurements m"
                             " JOIN candidates c ON c.id = m.candidate_id WHERE c.workload_id = ?1",
                             &st);
  if (rc) return rc;
  sqlite3_bind_int64(st, 1, id);
  if (sqlite3_step(st) == SQLITE_ROW) {
    *n = sqlite3_column_int64(st, 0);
    *failed = sqlite3_column_int64(st, 1);
    snprintf(err, err_size, "%s", irm_tune_col_text_(st, 2));
  } else rc = query_error(db);
  sqlite3_finalize(st);
  return rc;
}

/* The reason no measurement of workload id applies: none, all failed, or
 * all refused. */
static int why_none(const irm_tune_db *db, int64_t id, int64_t refused, const char *refusal, irm_tune_record *out) {
  int64_t n = 0, failed = 0;
  char err[256];
  int rc = counts(db, id, &n, &failed, err, sizeof err);
  if (rc) return rc;
  if (refused)
    snprintf(out->reason, sizeof out->reason, "every measured candidate (%lld) is invalid here: %s", (long long)refused,
             refusal);
  else if (!n) snprintf(out->reason, sizeof out->reason, "the workload has no measurement");
  else
    snprintf(out->reason, sizeof out->reason, "every measurement failed (%lld), one with: %s", (long long)failed, err);
  return IRM_OK;
}

/* The fastest error-free measurement of workload id that check accepts. */
static int best_of(const irm_tune_db *db, int64_t id, irm_tune_knobs_check check, void *ctx, irm_tune_record *out) {
  sqlite3_stmt *st = NULL;
  int rc = prepare_with(db, "SELECT c.knobs, m.mean, m.spread, ", db->compiler_col,
                        ", m.irm_version, m.time FROM measurements m JOIN candidates c ON c.id = m.candidate_id"
                        " WHERE c.workload_id = ?1 AND m.error IS NULL ORDER BY m.mean, m.id",
                        &st);
  if (rc) return rc;
  sqlite3_bind_int64(st, 1, id);
  out->workload_id = id;
  int64_t refused = 0;
  char refusal[320] = "";
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    char why[200] = "";
    if (check && !check(irm_tune_col_text_(st, 0), ctx, why, sizeof why)) {
      if (!refused++) snprintf(refusal, sizeof refusal, "%s (%s)", why, irm_tune_col_text_(st, 0));
      continue;
    }
    rc = take_row(st, out);
    break;
  }
  if (!rc && step != SQLITE_ROW && step != SQLITE_DONE) rc = query_error(db);
  sqlite3_finalize(st);
  if (rc || out->found) return rc;
  return why_none(db, id, refused, refusal, out);
}

int irm_tune_db_best(irm_tune_db *db, const irm_tune_workload *w, irm_tune_knobs_check check, void *ctx,
                     irm_tune_record *out) {
  memset(out, 0, sizeof *out);
  sqlite3_stmt *st = NULL;
  int rc = prepare_with(db, "SELECT id, target, ", db->features_col,
                        " FROM workloads WHERE family = ?1 AND shapes = ?2 AND dtypes = ?3 ORDER BY id", &st);
  if (rc) return rc;
  char *shapes = NULL;
  if ((rc = irm_tune_canonical_shapes_(w->shapes ? w->shapes : "", &shapes))) {
    sqlite3_finalize(st);
    return rc;
  }
  const char *t[] = {w->family, shapes, w->dtypes};
  for (int i = 0; i < 3; i++) sqlite3_bind_text(st, i + 1, t[i] ? t[i] : "", -1, SQLITE_TRANSIENT);
  free(shapes);
  const char *target = w->target ? w->target : "", *features = w->features ? w->features : "";
  int64_t match = 0, other_cpu = 0;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *rt = irm_tune_col_text_(st, 1), *rf = irm_tune_col_text_(st, 2);
    if (strcmp(rt, target) == 0 && strcmp(rf, features) == 0) {
      match = sqlite3_column_int64(st, 0);
      break;
    }
    /* the nearest miss explains best: the same target on another CPU */
    if (strcmp(rt, target) == 0 && !other_cpu++)
      snprintf(out->reason, sizeof out->reason,
               "recorded on a CPU with features '%s', not this build's '%s' (target '%s')", rf, features, target);
    else if (!other_cpu && !out->reason[0])
      snprintf(out->reason, sizeof out->reason, "recorded for target '%s' only, not '%s'", rt, target);
  }
  if (step != SQLITE_ROW && step != SQLITE_DONE) rc = query_error(db);
  sqlite3_finalize(st);
  if (rc) return rc;
  if (!match) {
    if (!out->reason[0]) snprintf(out->reason, sizeof out->reason, "no record for this workload");
    return IRM_OK;
  }
  out->reason[0] = '\0';
  return best_of(db, match, check, ctx, out);
}

int irm_tune_db_each(irm_tune_db *db, const char *filter, irm_tune_db_visit fn, void *ctx) {
  sqlite3_stmt *st = NULL;
  int rc = prepare_with(db, "SELECT id, family, shapes, dtypes, target, ", db->features_col,
                        " FROM workloads WHERE ?1 = '' OR instr(family, ?1) > 0 OR instr(shapes, ?1) > 0"
                        " OR instr(target, ?1) > 0 ORDER BY id",
                        &st);
  if (rc) return rc;
  sqlite3_bind_text(st, 1, filter ? filter : "", -1, SQLITE_TRANSIENT);
  int step = SQLITE_DONE;
  while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
    irm_tune_workload w = {irm_tune_col_text_(st, 1), irm_tune_col_text_(st, 2), irm_tune_col_text_(st, 3),
                           irm_tune_col_text_(st, 4), irm_tune_col_text_(st, 5)};
    int64_t id = sqlite3_column_int64(st, 0), n = 0, failed = 0;
    char err[8];
    irm_tune_record best;
    memset(&best, 0, sizeof best);
    if (!(rc = best_of(db, id, NULL, NULL, &best)) && !(rc = counts(db, id, &n, &failed, err, sizeof err)))
      rc = fn(&w, &best, n, failed, ctx);
    irm_tune_record_clear(&best);
  }
  if (!rc && step != SQLITE_DONE) rc = query_error(db);
  sqlite3_finalize(st);
  return rc;
}
