/* The tuning database (irm/tune_db.h): opening, the schema and its
 * migration, and the writes. Queries are in tune_db_query.c. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "irm/alloc.h"
#include "irm/error.h"
#include "irm/version.h"
#include "tune_internal.h"

/* A writer waits this long for another's transaction before giving up. */
#define BUSY_TIMEOUT_MS_ 30000

/* The current schema (version 2). */
static const char schema_[] =
    "CREATE TABLE workloads(id INTEGER PRIMARY KEY, family TEXT NOT NULL, shapes TEXT NOT NULL,"
    " dtypes TEXT NOT NULL, target TEXT NOT NULL, features TEXT NOT NULL DEFAULT '',"
    " UNIQUE(family, shapes, dtypes, target, features));"
    "CREATE TABLE candidates(id INTEGER PRIMARY KEY, workload_id INTEGER NOT NULL REFERENCES workloads(id),"
    " knobs TEXT NOT NULL, UNIQUE(workload_id, knobs));"
    "CREATE TABLE measurements(id INTEGER PRIMARY KEY, candidate_id INTEGER NOT NULL REFERENCES candidates(id),"
    " mean REAL, spread REAL, error TEXT, compiler TEXT NOT NULL DEFAULT '', irm_version TEXT NOT NULL,"
    " time TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));"
    "CREATE INDEX measurements_by_candidate ON measurements(candidate_id);"
    "PRAGMA user_version = 2;";

/* Version 1 -> 2: workloads gain the CPU features they were measured on
 * (unknown, '', for the old rows, which therefore match no build that
 * knows its features), measurements the compiler's identity. SQLite
 * cannot change a UNIQUE constraint in place: the table is rebuilt. */
static const char migrate_1_2_[] =
    "CREATE TABLE workloads_2(id INTEGER PRIMARY KEY, family TEXT NOT NULL, shapes TEXT NOT NULL,"
    " dtypes TEXT NOT NULL, target TEXT NOT NULL, features TEXT NOT NULL DEFAULT '',"
    " UNIQUE(family, shapes, dtypes, target, features));"
    "INSERT INTO workloads_2(id, family, shapes, dtypes, target) SELECT id, family, shapes, dtypes, target"
    " FROM workloads;"
    "DROP TABLE workloads;"
    "ALTER TABLE workloads_2 RENAME TO workloads;"
    "ALTER TABLE measurements ADD COLUMN compiler TEXT NOT NULL DEFAULT '';"
    "PRAGMA user_version = 2;";

int irm_tune_sql_error_(const irm_tune_db *db, int code, const char *what) {
  return irm_error(code, "%s '%s': %s", what, irm_error_quote(db->path), sqlite3_errmsg(db->sql));
}

int irm_tune_exec_(const irm_tune_db *db, const char *sql, const char *what) {
  if (sqlite3_exec(db->sql, sql, NULL, NULL, NULL) != SQLITE_OK) return irm_tune_sql_error_(db, IRM_ERUNTIME, what);
  return IRM_OK;
}

int irm_tune_prepare_(const irm_tune_db *db, const char *sql, sqlite3_stmt **out) {
  if (sqlite3_prepare_v2(db->sql, sql, -1, out, NULL) != SQLITE_OK)
    return irm_tune_sql_error_(db, IRM_ERUNTIME, "cannot query tuning database");
  return IRM_OK;
}

const char *irm_tune_col_text_(sqlite3_stmt *st, int col) {
  const unsigned char *t = sqlite3_column_text(st, col);
  return t ? (const char *)t : "";
}

/* One integer of a query (PRAGMA user_version, a count); the SQLite
 * result code, *out 0 when there is no row. */
static int query_int(sqlite3 *sql, const char *q, int64_t *out) {
  sqlite3_stmt *st = NULL;
  *out = 0;
  int rc = sqlite3_prepare_v2(sql, q, -1, &st, NULL);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *out = sqlite3_column_int64(st, 0);
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
  }
  sqlite3_finalize(st);
  return rc;
}

/* The path as a file: URI opened immutable (%, ? and # escaped): a
 * read-only file in a read-only folder whose WAL index cannot be made. */
static char *immutable_uri(const char *path) {
  size_t n = strlen(path);
  char *u = irm_malloc(3 * n + 32);
  if (!u) return NULL;
  char *p = u + sprintf(u, "file:");
  for (const char *s = path; *s; s++)
    p += *s == '%' || *s == '?' || *s == '#' ? sprintf(p, "%%%02X", (unsigned char)*s) : sprintf(p, "%c", *s);
  strcpy(p, "?immutable=1");
  return u;
}

/* The file's schema version; a damaged file, or one that is no SQLite
 * database, is a ValueError. */
static int read_version(irm_tune_db *db) {
  int64_t v = 0;
  int rc = query_int(db->sql, "PRAGMA user_version", &v);
  if (rc == SQLITE_CANTOPEN && db->mode == IRM_TUNE_DB_READ) {
    /* a WAL file whose index cannot be made read-only: read it as it is */
    char *uri = immutable_uri(db->path);
    if (!uri) return irm_error(IRM_ENOMEM, "out of memory opening '%s'", irm_error_quote(db->path));
    sqlite3_close(db->sql);
    db->sql = NULL;
    rc = sqlite3_open_v2(uri, &db->sql, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    irm_free(uri);
    if (rc == SQLITE_OK) rc = query_int(db->sql, "PRAGMA user_version", &v);
  }
  if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
    return irm_tune_sql_error_(db, IRM_EVALUE, "not a readable tuning database");
  if (rc != SQLITE_OK) return irm_tune_sql_error_(db, IRM_ERUNTIME, "cannot read tuning database");
  sqlite3_stmt *st = NULL;
  if ((rc = irm_tune_prepare_(db, "PRAGMA quick_check", &st))) return rc;
  int step = sqlite3_step(st);
  const char *verdict = step == SQLITE_ROW ? irm_tune_col_text_(st, 0) : sqlite3_errmsg(db->sql);
  if (strcmp(verdict, "ok") != 0)
    rc = irm_error(IRM_EVALUE, "damaged tuning database '%s': %s", irm_error_quote(db->path), irm_error_quote(verdict));
  sqlite3_finalize(st);
  db->version = (int)v;
  return rc;
}

/* Version 0 is a new file when it has no tables, else someone else's. */
static int check_empty(irm_tune_db *db) {
  int64_t tables = 0;
  if (query_int(db->sql, "SELECT count(*) FROM sqlite_master", &tables) != SQLITE_OK)
    return irm_tune_sql_error_(db, IRM_ERUNTIME, "cannot read tuning database");
  if (tables)
    return irm_error(IRM_EVALUE, "'%s' is an SQLite database but no irm tuning database (no schema version)",
                     irm_error_quote(db->path));
  return IRM_OK;
}

/* Makes or migrates the schema in one write transaction; the version is
 * read again inside it, since another process may have done it first. */
static int upgrade(irm_tune_db *db) {
  int rc = irm_tune_exec_(db, "BEGIN IMMEDIATE", "cannot write tuning database");
  if (rc) return rc;
  int64_t v = 0;
  if (query_int(db->sql, "PRAGMA user_version", &v) != SQLITE_OK)
    rc = irm_tune_sql_error_(db, IRM_ERUNTIME, "cannot read tuning database");
  if (!rc && v == 0 && !(rc = check_empty(db))) rc = irm_tune_exec_(db, schema_, "cannot make tuning database");
  if (!rc && v == 1) rc = irm_tune_exec_(db, migrate_1_2_, "cannot migrate tuning database from version 1");
  if (!rc) return irm_tune_exec_(db, "COMMIT", "cannot write tuning database");
  sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

static int open_checked(irm_tune_db *db) {
  int flags = db->mode == IRM_TUNE_DB_READ ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(db->path, &db->sql, flags, NULL) != SQLITE_OK)
    return irm_tune_sql_error_(db, IRM_ERUNTIME, "cannot open tuning database");
  sqlite3_busy_timeout(db->sql, BUSY_TIMEOUT_MS_);
  int rc = read_version(db);
  if (rc) return rc;
  sqlite3_busy_timeout(db->sql, BUSY_TIMEOUT_MS_); /* again: read_version may have reopened it */
  if (db->version > IRM_TUNE_DB_SCHEMA_VERSION)
    return irm_error(IRM_EVALUE, "tuning database '%s' has schema version %d, newer than this irm's (%d)",
                     irm_error_quote(db->path), db->version, IRM_TUNE_DB_SCHEMA_VERSION);
  if (db->version < 0)
    return irm_error(IRM_EVALUE, "tuning database '%s' has schema version %d", irm_error_quote(db->path), db->version);
  if (db->mode == IRM_TUNE_DB_READ) {
    if (db->version == 0) {
      if ((rc = check_empty(db))) return rc;
      return irm_error(IRM_EVALUE, "'%s' is an empty file, no tuning database", irm_error_quote(db->path));
    }
    db->features_col = db->version < 2 ? "''" : "features";
    db->compiler_col = db->version < 2 ? "''" : "compiler";
    return IRM_OK;
  }
  /* A version 0 read here may be a new file another writer is making the
   * schema of: upgrade tells new from foreign inside its transaction.
   * WAL: readers never block the writer, and writers queue on the busy
   * timeout instead of failing */
  /* switching to WAL takes the file exclusively, and SQLite answers BUSY
   * at once (no busy handler) while another new writer holds it: retry */
  for (int tries = 0; tries < 300; tries++) {
    int busy = sqlite3_exec(db->sql, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
    if (busy != SQLITE_BUSY && busy != SQLITE_LOCKED) break;
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  }
  if ((rc = irm_tune_exec_(db, "PRAGMA journal_mode = WAL", "cannot use WAL mode for tuning database"))) return rc;
  if (db->version < IRM_TUNE_DB_SCHEMA_VERSION && (rc = upgrade(db))) return rc;
  db->features_col = "features";
  db->compiler_col = "compiler";
  return IRM_OK;
}

int irm_tune_db_open(const char *path, irm_tune_db_mode mode, irm_tune_db **out) {
  *out = NULL;
  if (!path || !path[0]) return irm_error(IRM_EVALUE, "tuning database: no path given");
  if (mode != IRM_TUNE_DB_READ && mode != IRM_TUNE_DB_WRITE)
    return irm_error(IRM_EVALUE, "tuning database '%s': unknown mode %d", irm_error_quote(path), (int)mode);
  struct stat st;
  if (mode == IRM_TUNE_DB_READ && stat(path, &st) != 0)
    return irm_error(IRM_EVALUE, "no tuning database '%s': %s", irm_error_quote(path), strerror(errno));
  irm_tune_db *db = irm_calloc(1, sizeof *db);
  if (db) db->path = irm_strdup(path);
  if (!db || !db->path) {
    irm_free(db);
    return irm_error(IRM_ENOMEM, "out of memory opening tuning database");
  }
  db->mode = mode;
  int rc = open_checked(db);
  if (rc) {
    irm_tune_db_close(db);
    return rc;
  }
  *out = db;
  return IRM_OK;
}

void irm_tune_db_close(irm_tune_db *db) {
  if (!db) return;
  sqlite3_close(db->sql);
  irm_free(db->path);
  irm_free(db);
}

int irm_tune_db_opened_version(const irm_tune_db *db) { return db->version; }
const char *irm_tune_db_path(const irm_tune_db *db) { return db->path; }

static int check_writable(const irm_tune_db *db) {
  if (db->mode != IRM_TUNE_DB_READ) return IRM_OK;
  return irm_error(IRM_EVALUE, "tuning database '%s' is open read-only", irm_error_quote(db->path));
}

/* Binds the text parameters of st from 1; the SQLite result code. */
static int bind_texts(sqlite3_stmt *st, const char *const *texts, int n) {
  for (int i = 0; i < n; i++) {
    int rc = texts[i] ? sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i + 1);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/* Runs st to its end; *id the first column of its last row when id. */
static int step_all(const irm_tune_db *db, sqlite3_stmt *st, int64_t *id, const char *what) {
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    if (id) *id = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? IRM_OK : irm_tune_sql_error_(db, IRM_ERUNTIME, what);
}

/* Runs sql (n text parameters); *id as step_all. */
static int run(const irm_tune_db *db, const char *sql, const char *const *texts, int n, int64_t *id) {
  sqlite3_stmt *st = NULL;
  int rc = irm_tune_prepare_(db, sql, &st);
  if (rc) return rc;
  if (bind_texts(st, texts, n) != SQLITE_OK) {
    sqlite3_finalize(st);
    return irm_tune_sql_error_(db, IRM_ERUNTIME, "cannot write tuning database");
  }
  return step_all(db, st, id, "cannot write tuning database");
}

/* JSON text in canonical form (sorted keys, compact), so one candidate
 * or workload is one row whatever spacing or key order it came with.
 * what: "knobs" (must be a JSON object) or NULL (text that is no JSON
 * object is kept as it is). *out NEW (free()). */
static int canonical_json(const char *text, const char *what, char **out) {
  json_error_t err;
  *out = NULL;
  json_t *j = text ? json_loads(text, JSON_REJECT_DUPLICATES, &err) : NULL;
  if (!j || !json_is_object(j)) {
    json_decref(j);
    if (!what) {
      size_t n = strlen(text) + 1;
      if (!(*out = malloc(n))) return irm_error(IRM_ENOMEM, "out of memory");
      memcpy(*out, text, n);
      return IRM_OK;
    }
    return irm_error(IRM_EVALUE, "tuning database: %s must be a JSON object, got '%s'%s%s", what, irm_error_quote(text),
                     j ? "" : ": ", j ? "" : (text ? err.text : "nothing"));
  }
  *out = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
  json_decref(j);
  return *out ? IRM_OK : irm_error(IRM_ENOMEM, "out of memory writing JSON");
}

int irm_tune_canonical_shapes_(const char *shapes, char **out) { return canonical_json(shapes, NULL, out); }

int irm_tune_db_add_workload(irm_tune_db *db, const irm_tune_workload *w, int64_t *id) {
  int rc = check_writable(db);
  if (rc) return rc;
  const char *t[] = {w->family, w->shapes, w->dtypes, w->target, w->features};
  static const char *const names[] = {"family", "shapes", "dtypes", "target", "features"};
  for (int i = 0; i < 5; i++)
    if (!t[i]) return irm_error(IRM_EVALUE, "tuning database workload: no %s given", names[i]);
  int64_t found = 0;
  char *shapes = NULL;
  if ((rc = canonical_json(w->shapes, NULL, &shapes))) return rc;
  t[1] = shapes;
  if (!(rc = run(db,
                 "INSERT INTO workloads(family, shapes, dtypes, target, features) VALUES (?1, ?2, ?3, ?4, ?5)"
                 " ON CONFLICT DO NOTHING",
                 t, 5, NULL)))
    rc = run(db,
             "SELECT id FROM workloads WHERE family = ?1 AND shapes = ?2 AND dtypes = ?3 AND target = ?4"
             " AND features = ?5",
             t, 5, &found);
  free(shapes);
  if (!rc && id) *id = found;
  return rc;
}

/* The measurement's rows, inside the caller's transaction. */
static int insert_measurement(irm_tune_db *db, int64_t workload_id, const char *knobs, const irm_tune_measurement *m,
                              int64_t *id) {
  char wid[32];
  snprintf(wid, sizeof wid, "%lld", (long long)workload_id);
  int64_t n = 0, cand = 0;
  const char *t[] = {wid, knobs};
  int rc = run(db, "SELECT count(*) FROM workloads WHERE id = CAST(?1 AS INTEGER)", t, 1, &n);
  if (!rc && !n)
    rc = irm_error(IRM_EVALUE, "tuning database '%s': no workload %lld", irm_error_quote(db->path),
                   (long long)workload_id);
  if (!rc)
    rc = run(db, "INSERT INTO candidates(workload_id, knobs) VALUES (CAST(?1 AS INTEGER), ?2) ON CONFLICT DO NOTHING",
             t, 2, NULL);
  if (!rc)
    rc = run(db, "SELECT id FROM candidates WHERE workload_id = CAST(?1 AS INTEGER) AND knobs = ?2", t, 2, &cand);
  if (rc) return rc;
  sqlite3_stmt *st = NULL;
  if ((rc = irm_tune_prepare_(db,
                              "INSERT INTO measurements(candidate_id, mean, spread, error, compiler, irm_version)"
                              " VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
                              &st)))
    return rc;
  sqlite3_bind_int64(st, 1, cand);
  if (m->error) {
    sqlite3_bind_null(st, 2);
    sqlite3_bind_null(st, 3);
  } else {
    sqlite3_bind_double(st, 2, m->mean);
    sqlite3_bind_double(st, 3, m->spread);
  }
  const char *texts[] = {m->error, m->compiler ? m->compiler : "", IRM_VERSION_STRING};
  for (int i = 0; i < 3; i++)
    if (texts[i] ? sqlite3_bind_text(st, 4 + i, texts[i], -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, 4 + i)) {
      sqlite3_finalize(st);
      return irm_tune_sql_error_(db, IRM_ERUNTIME, "cannot write tuning database");
    }
  return step_all(db, st, id, "cannot write tuning database");
}

int irm_tune_db_add_measurement(irm_tune_db *db, int64_t workload_id, const irm_tune_measurement *m, int64_t *id) {
  int rc = check_writable(db);
  if (rc) return rc;
  if (!m->error && (!(m->mean > 0) || !(m->spread >= 0)))
    return irm_error(IRM_EVALUE, "tuning database: a measurement needs a mean > 0 and a spread >= 0 (got %g, %g)",
                     m->mean, m->spread);
  char *knobs = NULL;
  if ((rc = canonical_json(m->knobs, "knobs", &knobs))) return rc;
  int64_t got = 0;
  /* IMMEDIATE: take the write lock first, so the transaction never has
   * to upgrade a read (which fails at once in WAL when another wrote) */
  if (!(rc = irm_tune_exec_(db, "BEGIN IMMEDIATE", "cannot write tuning database")) &&
      !(rc = insert_measurement(db, workload_id, knobs, m, &got)))
    rc = irm_tune_exec_(db, "COMMIT", "cannot write tuning database");
  if (rc) sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
  free(knobs);
  if (!rc && id) *id = got;
  return rc;
}
