/* The tuning database (docs/tuning.md): the schedules measured for kernel
 * workloads, in one SQLite file that builds read through the module's
 * `tune.database` setting and tuners write.
 *
 * Three tables: workloads (kernel family, shapes, dtypes, target and the
 * CPU features measured on), candidates (a workload's knob values, a JSON
 * object stored in canonical form: sorted keys, no spaces) and
 * measurements (a candidate's mean and spread in seconds, or the error
 * text of a failed one, the compiler's identity, the irm version and the
 * UTC time). The file runs in WAL mode with a busy timeout, so several
 * processes may write at once; each write is one transaction. The schema
 * has a version (PRAGMA user_version, IRM_TUNE_DB_SCHEMA_VERSION): a file
 * of an older version is migrated when opened for writing (read only, it
 * is read as it is); a newer one is refused.
 *
 * Errors: every function returns IRM_OK or an error code with the last
 * error set (irm/error.h). A file that is no SQLite database, a damaged
 * one or one without irm's tables gives a ValueError naming the file and
 * SQLite's reason, and the handle is not made.
 *
 * Thread safety: a handle is used by one thread at a time; separate
 * handles (in threads or processes) on one file may be used at once. */
#ifndef IRM_TUNE_DB_H
#define IRM_TUNE_DB_H

#include <stddef.h>
#include <stdint.h>

#include "irm/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The schema version this irm writes (PRAGMA user_version). Version 1
 * had no CPU features per workload and no compiler per measurement. */
#define IRM_TUNE_DB_SCHEMA_VERSION 2

typedef struct irm_tune_db irm_tune_db;

/* The op kind attribute by which an op family declares its search space
 * (docs/tuning.md, "Search spaces"): a Function (call, target) -> NONE
 * when this typed call runs no tunable kernel for target, else a Map
 * {"family": str, "workload": str (JSON), "knobs": Map knob -> Array of
 * legal values, "size": float (the product of their counts)}. The
 * built-in blocked convs have one; a plugin op family sets its own with
 * irm_kind_set_attr. tune.ListTunables collects them for a model. */
#define IRM_OP_ATTR_TUNE_SPACE "FTuneSpace"

/* How to open: READ never writes the file (nor migrates it, nor makes
 * it), which a read-only file or folder allows. */
typedef enum irm_tune_db_mode { IRM_TUNE_DB_WRITE = 0, IRM_TUNE_DB_READ = 1 } irm_tune_db_mode;

/* A workload: what a measurement is valid for. Every field is text:
 * family (a kernel family: "conv2d_nchwc"), shapes (the workload's shape
 * fields, JSON), dtypes ("float32"), target (the target's text) and
 * features (the CPU features, comma-separated, "" when unknown).
 * Borrowed by the functions that take it. */
typedef struct irm_tune_workload {
  const char *family, *shapes, *dtypes, *target, *features;
} irm_tune_workload;

/* One measurement of a candidate: knobs (a JSON object), mean and spread
 * (seconds; spread: the best-of-k runs' range), error (NULL for a good
 * measurement, else why it failed: such a record is never applied),
 * compiler (the C compiler's identity, "" when unknown). */
typedef struct irm_tune_measurement {
  const char *knobs;
  double mean, spread;
  const char *error, *compiler;
} irm_tune_measurement;

/* A best record (irm_tune_db_best): a candidate's knobs, the median
 * (mean) and range (spread: of its measurements when it has several, else
 * its one measurement's) of its error-free measurements, how many there
 * are, and the provenance of the newest (compiler, irm_version, time).
 * found 0: none applies, and reason says why. The strings are owned by
 * the record (irm_tune_record_clear). */
typedef struct irm_tune_record {
  int found;
  char *knobs, *compiler, *irm_version, *time;
  double mean, spread;
  int64_t measurements;
  int64_t workload_id;
  char reason[512];
} irm_tune_record;

/* Says whether knobs (canonical JSON) are legal for the workload the
 * caller looks up: 1 yes, 0 no with why (a sentence) written into why. */
typedef int (*irm_tune_knobs_check)(const char *knobs, void *ctx, char *why, size_t why_size);

/* Opens (in WRITE mode making, migrating when older) the database at
 * path. *out NEW (irm_tune_db_close). Errors: ValueError for a damaged
 * file, one that is no irm tuning database or of a newer schema, a
 * missing file in READ mode; RuntimeError when it cannot be opened or
 * migrated (SQLite's reason); MemoryError. */
IRM_API int irm_tune_db_open(const char *path, irm_tune_db_mode mode, irm_tune_db **out);
/* Closes db (NULL: nothing). */
IRM_API void irm_tune_db_close(irm_tune_db *db);
/* The file's schema version as opened (before any migration) and the
 * path (borrowed from the handle). */
IRM_API int irm_tune_db_opened_version(const irm_tune_db *db);
IRM_API const char *irm_tune_db_path(const irm_tune_db *db);

/* Adds workload w unless present; *id (may be NULL) its row id.
 * Errors: ValueError for a NULL field or a READ handle; RuntimeError
 * from SQLite (a busy file past the timeout). */
IRM_API int irm_tune_db_add_workload(irm_tune_db *db, const irm_tune_workload *w, int64_t *id);

/* Adds measurement m of the candidate m->knobs of workload workload_id
 * (the candidate is added unless present); *id (may be NULL) the
 * measurement's row id. Errors: ValueError for knobs that are no JSON
 * object, an unknown workload id, a READ handle; RuntimeError from SQLite. */
IRM_API int irm_tune_db_add_measurement(irm_tune_db *db, int64_t workload_id, const irm_tune_measurement *m,
                                        int64_t *id);

/* A candidate replaces the default rule (the candidate "{}") only when
 * its median time is at least this fraction below the default rule's:
 * a smaller gain is within a measurement's noise, and the default rule,
 * the schedule every build tests, stays. */
#define IRM_TUNE_DB_MIN_GAIN 0.02

/* The best record of workload w: of the candidates whose knobs check
 * accepts (check NULL: any), the one with the lowest median over its
 * error-free measurements (a candidate measured once by luck loses its
 * place once measured again), unless it beats the default rule's median
 * by less than IRM_TUNE_DB_MIN_GAIN, when the default rule's record is
 * the best. When check is given, the last call that accepted knobs was
 * the best's. Into *out (cleared first). When
 * none applies out->found is 0 and out->reason says why: no workload of
 * that family, shapes and dtypes; recorded only for other targets or
 * CPU features (naming them); every measurement failed; every candidate
 * refused by check (its reason). Errors: RuntimeError from SQLite,
 * MemoryError; *out then has found 0. */
IRM_API int irm_tune_db_best(irm_tune_db *db, const irm_tune_workload *w, irm_tune_knobs_check check, void *ctx,
                             irm_tune_record *out);
/* Frees the strings of r and zeroes it. */
IRM_API void irm_tune_record_clear(irm_tune_record *r);

/* Calls fn for each workload (in row order) whose family, shapes or
 * target contains filter (NULL or "": every one), with its best record
 * (found 0 with the reason when every measurement failed) and the
 * number of measurements and failed ones. fn returning nonzero stops the
 * walk and is returned. Errors: RuntimeError from SQLite. */
typedef int (*irm_tune_db_visit)(const irm_tune_workload *w, const irm_tune_record *best, int64_t n_measured,
                                 int64_t n_failed, void *ctx);
IRM_API int irm_tune_db_each(irm_tune_db *db, const char *filter, irm_tune_db_visit fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
