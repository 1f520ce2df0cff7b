/* Private to backend/tune/: the tuning database's handle (irm/tune_db.h)
 * and the SQLite helpers its files share. */
#ifndef IRM_BACKEND_TUNE_INTERNAL_H
#define IRM_BACKEND_TUNE_INTERNAL_H

#include <sqlite3.h>

#include "irm/build.h"
#include "irm/tune_db.h"

struct irm_tune_db {
  sqlite3 *sql;
  char *path;
  irm_tune_db_mode mode;
  int version; /* the file's schema version when opened */
  /* The columns version 1 lacks read as '' there (a READ handle on an
   * old file is not migrated). */
  const char *features_col, *compiler_col;
};

/* Sets the last error from SQLite's message on db: "<what> '<path>':
 * <sqlite's reason>", as code. */
int irm_tune_sql_error_(const irm_tune_db *db, int code, const char *what);

/* Runs one statement without results (SQL text, no parameters). */
int irm_tune_exec_(const irm_tune_db *db, const char *sql, const char *what);

/* Prepares sql (the last error set on failure). */
int irm_tune_prepare_(const irm_tune_db *db, const char *sql, sqlite3_stmt **out);

/* A column's text, "" for NULL. */
const char *irm_tune_col_text_(sqlite3_stmt *st, int col);

/* shapes in canonical form when it is a JSON object (else as it is);
 * *out NEW (free()). */
int irm_tune_canonical_shapes_(const char *shapes, char **out);

/* The tunable workloads of a model (tune.ListTunables, tune.ExtractTasks:
 * one mechanism): mod built for target, then every call in the final main
 * whose op has FTuneSpace asked for its space; equal workloads (family and
 * workload text) once. */
typedef struct irm_tune_found_ {
  irm_object *space; /* FTuneSpace's Map */
  const char *op;
  int64_t calls;
  irm_object *call; /* the first call of the workload (typed, in the built module) */
} irm_tune_found_;

typedef struct irm_tune_found_list_ {
  irm_object *result;          /* the build's result */
  irm_compilation_config *cfg; /* its final module's */
  irm_object *target;          /* the default primitive target (borrowed from cfg) */
  irm_tune_found_ *items;
  size_t n, cap;
} irm_tune_found_list_;

/* *out filled (irm_tune_found_list_free_); on an error nothing is left to
 * free. Errors: the build's, FTuneSpace's ("FTuneSpace of op '<name>'"),
 * TypeError for an FTuneSpace giving neither a Map nor None. */
int irm_tune_collect_(const irm_module *mod, const irm_any *target, irm_tune_found_list_ *out);
void irm_tune_found_list_free_(irm_tune_found_list_ *l);

/* A target's canonical text (NULL or no target: "c"), as builds look
 * records up with; *out NEW (irm_free). */
int irm_tune_target_text_(const irm_object *target, char **out);

/* 1 when knobs (a JSON object's text) names only knobs of space (Map knob
 * -> Array of legal values) with legal values; else 0 with why. */
int irm_tune_knobs_legal_(const irm_object *space, const char *knobs, char *why, size_t why_size);

#endif
