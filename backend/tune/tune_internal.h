/* Private to backend/tune/: the tuning database's handle (irm/tune_db.h)
 * and the SQLite helpers its files share. */
#ifndef IRM_BACKEND_TUNE_INTERNAL_H
#define IRM_BACKEND_TUNE_INTERNAL_H

#include <sqlite3.h>

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

#endif
