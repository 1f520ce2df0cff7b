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
  else if (failed < n)
    snprintf(out->reason, sizeof out->reason,
             "every measured candidate failed at least once (%lld failed), one with: %s", (long long)failed, err);
  else
    snprintf(out->reason, sizeof out->reason, "every measurement failed (%lld), one with: %s", (long long)failed, err);
  return IRM_OK;
}

/* One candidate with error-free measurements, as best_of ranks it: the
 * median of its times (one lucky run does not make it fast: tune's
 * confirmation measures the leader again) and their range. */
typedef struct ranked {
  int64_t id, n;
  char *knobs;
  double median, spread;
} ranked;

static void free_ranked(ranked *r, size_t n) {
  for (size_t i = 0; r && i < n; i++) irm_free(r[i].knobs);
  irm_free(r);
}

/* Sets c's count, median and spread from its sorted times t[0..n). */
static void finish(ranked *c, const double *t, size_t n) {
  c->n = (int64_t)n;
  c->median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  if (n > 1) c->spread = t[n - 1] - t[0];
}

/* The candidates of workload id whose every measurement is error-free
 * (one that crashed, hung or went wrong once is never applied), in
 * candidate order; *out NEW (free_ranked), *count of them. */
static int gather(const irm_tune_db *db, int64_t id, ranked **out, size_t *count) {
  *out = NULL;
  *count = 0;
  int64_t total = 0, failed = 0;
  char err[8];
  int rc = counts(db, id, &total, &failed, err, sizeof err);
  total -= failed;
  if (rc || total <= 0) return rc;
  sqlite3_stmt *st = NULL;
  if ((rc = irm_tune_prepare_(db,
                              "SELECT c.id, c.knobs, m.mean, m.spread FROM measurements m JOIN candidates c"
                              " ON c.id = m.candidate_id WHERE c.workload_id = ?1 AND m.error IS NULL"
                              " AND NOT EXISTS (SELECT 1 FROM measurements e WHERE e.candidate_id = c.id"
                              " AND e.error IS NOT NULL) ORDER BY c.id, m.mean",
                              &st)))
    return rc;
  sqlite3_bind_int64(st, 1, id);
  ranked *r = irm_calloc((size_t)total, sizeof *r);
  double *t = irm_calloc((size_t)total, sizeof *t);
  size_t n = 0, nt = 0, first = 0; /* candidates, times, the current candidate's first time */
  int step = SQLITE_DONE;
  if (!r || !t) rc = irm_error(IRM_ENOMEM, "out of memory reading the tuning database");
  while (!rc && nt < (size_t)total && (step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t cid = sqlite3_column_int64(st, 0);
    if (!n || r[n - 1].id != cid) {
      if (n) finish(&r[n - 1], t + first, nt - first);
      first = nt;
      r[n] = (ranked){cid, 0, irm_strdup(irm_tune_col_text_(st, 1)), 0, sqlite3_column_double(st, 3)};
      if (!r[n++].knobs) rc = irm_error(IRM_ENOMEM, "out of memory reading the tuning database");
    }
    t[nt++] = sqlite3_column_double(st, 2);
  }
  if (!rc && step != SQLITE_ROW && step != SQLITE_DONE) rc = query_error(db);
  if (!rc && n) finish(&r[n - 1], t + first, nt - first);
  sqlite3_finalize(st);
  irm_free(t);
  if (rc) free_ranked(r, n);
  else *out = r, *count = n;
  return rc;
}

static int by_median(const void *pa, const void *pb) {
  const ranked *a = pa, *b = pb;
  if (a->median != b->median) return a->median < b->median ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* Fills out from c and its newest error-free measurement's provenance. */
static int take(const irm_tune_db *db, const ranked *c, irm_tune_record *out) {
  sqlite3_stmt *st = NULL;
  int rc = prepare_with(db, "SELECT ", db->compiler_col,
                        ", irm_version, time FROM measurements WHERE candidate_id = ?1 AND error IS NULL"
                        " ORDER BY id DESC LIMIT 1",
                        &st);
  if (rc) return rc;
  sqlite3_bind_int64(st, 1, c->id);
  if (sqlite3_step(st) != SQLITE_ROW) rc = query_error(db);
  else {
    out->knobs = irm_strdup(c->knobs);
    out->compiler = irm_strdup(irm_tune_col_text_(st, 0));
    out->irm_version = irm_strdup(irm_tune_col_text_(st, 1));
    out->time = irm_strdup(irm_tune_col_text_(st, 2));
    out->mean = c->median;
    out->spread = c->spread;
    out->measurements = c->n;
    out->found = 1;
    if (!out->knobs || !out->compiler || !out->irm_version || !out->time) {
      irm_tune_record_clear(out);
      rc = irm_error(IRM_ENOMEM, "out of memory reading the tuning database");
    }
  }
  sqlite3_finalize(st);
  return rc;
}

/* The default rule's candidate ("{}": no knob set) among r[0..n), or NULL. */
static const ranked *default_of(const ranked *r, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(r[i].knobs, "{}") == 0) return &r[i];
  return NULL;
}

/* The best record of workload id that check accepts (irm_tune_db_best):
 * the lowest median; a candidate that beats the default rule's median by
 * less than IRM_TUNE_DB_MIN_GAIN is noise, and the default rule stays.
 * check is called last on the winner (its choice is what it keeps). */
static int best_of(const irm_tune_db *db, int64_t id, irm_tune_knobs_check check, void *ctx, irm_tune_record *out) {
  ranked *r = NULL;
  size_t n = 0;
  out->workload_id = id;
  int rc = gather(db, id, &r, &n);
  if (rc) return rc;
  if (n) qsort(r, n, sizeof *r, by_median);
  int64_t refused = 0;
  char refusal[320] = "", why[200];
  const ranked *win = NULL, *dflt = default_of(r, n);
  for (size_t i = 0; i < n && !win; i++) {
    why[0] = '\0';
    if (!check || check(r[i].knobs, ctx, why, sizeof why)) win = &r[i];
    else if (!refused++) snprintf(refusal, sizeof refusal, "%s (%s)", why, r[i].knobs);
  }
  if (win && dflt && win != dflt && win->median > dflt->median * (1 - IRM_TUNE_DB_MIN_GAIN)) {
    why[0] = '\0';
    if (!check || check(dflt->knobs, ctx, why, sizeof why)) win = dflt;
    else check(win->knobs, ctx, why, sizeof why); /* the winner's choice again */
  }
  if (win) rc = take(db, win, out);
  free_ranked(r, n);
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
