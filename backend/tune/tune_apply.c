/* A build's use of the tuning database (tune_build.h, docs/tuning.md):
 * the file its tune.database setting names, opened read-only once per
 * build, and for each conv workload the best record whose target and CPU
 * features match and whose knobs the workload's space allows, else the
 * default rule with the reason in the record's note. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/pass.h"
#include "irm/target.h"
#include "irm_internal.h"
#include "tune_build.h"
#include "tune_internal.h"

struct irm_sched_tuning_ {
  irm_tune_db *db;
  char *target, *features;
  pthread_mutex_t lock; /* one SQLite handle: generators may run on several threads */
};

int irm_register_tune_settings_(void) {
  int rc = irm_module_attr_register(IRM_TUNE_DATABASE_KEY, "str", 0);
  return rc ? rc : irm_pass_config_register(IRM_TUNE_DATABASE_KEY, "str", NULL, IRM_TUNE_DATABASE_KEY);
}

/* target's canonical text, NEW (irm_free). */
static int target_text(const irm_object *target, char **out) {
  irm_object *s = NULL;
  int rc = target && irm_is_target(target) ? irm_target_as_string((const irm_target *)target, &s) : IRM_OK;
  if (rc) return rc;
  *out = irm_strdup(s ? irm_string_data(s) : "c");
  irm_object_release(s);
  return *out ? IRM_OK : irm_error(IRM_ENOMEM, "out of memory reading the target");
}

int irm_tune_build_open_(const irm_module *mod, const irm_object *target, const char *features,
                         irm_sched_tuning_ **out) {
  *out = NULL;
  irm_any v = irm_any_none();
  const char *path = NULL;
  int rc = irm_pass_get_config(mod, IRM_TUNE_DATABASE_KEY, &v);
  if (!rc && v.type_code != IRM_NONE && irm_any_to_str(&v, &path, NULL))
    rc = irm_error(IRM_ETYPE, IRM_TUNE_DATABASE_KEY " must be a str (a path), got %s", irm_any_type_name(&v));
  if (rc || !path) {
    irm_any_release(&v);
    return rc;
  }
  irm_sched_tuning_ *t = irm_calloc(1, sizeof *t);
  if (!t) rc = irm_error(IRM_ENOMEM, "out of memory opening the tuning database");
  if (!rc && (rc = irm_tune_db_open(path, IRM_TUNE_DB_READ, &t->db)))
    rc = irm_error_context(rc, "the " IRM_TUNE_DATABASE_KEY " setting");
  irm_any_release(&v);
  if (!rc) rc = target_text(target, &t->target);
  if (!rc && !(t->features = irm_strdup(features ? features : "")))
    rc = irm_error(IRM_ENOMEM, "out of memory opening the tuning database");
  if (!rc && pthread_mutex_init(&t->lock, NULL)) rc = irm_error(IRM_ERUNTIME, "cannot make a lock");
  if (!rc) {
    *out = t;
    return IRM_OK;
  }
  if (t) {
    irm_tune_db_close(t->db);
    irm_free(t->target);
    irm_free(t->features);
    irm_free(t);
  }
  return rc;
}

void irm_tune_build_close_(irm_sched_tuning_ *t) {
  if (!t) return;
  pthread_mutex_destroy(&t->lock);
  irm_tune_db_close(t->db);
  irm_free(t->target);
  irm_free(t->features);
  irm_free(t);
}

/* The knob check of irm_tune_db_best: a record's knobs applied to a copy
 * of the default choice; the last accepted one is the best. */
typedef struct apply_ctx {
  const irm_sched_workload_ *w;
  const irm_sched_choice_ *dflt;
  irm_sched_choice_ tuned;
} apply_ctx;

static int check_knobs(const char *knobs, void *data, char *why, size_t why_size) {
  apply_ctx *a = data;
  a->tuned = *a->dflt;
  return irm_sched_apply_knobs_(a->w, knobs, &a->tuned, why, why_size);
}

int irm_sched_tune_(irm_sched_tuning_ *t, irm_sched_record_ *r) {
  r->tuned = 0;
  r->note[0] = '\0';
  if (!t) return IRM_OK;
  irm_text_buf shapes;
  irm_text_buf_init_(&shapes, NULL, 0);
  irm_sched_workload_json_(&r->workload, &shapes);
  if (shapes.failed) {
    irm_text_buf_free_(&shapes);
    return irm_error(IRM_ENOMEM, "out of memory looking up a tuned schedule");
  }
  irm_tune_workload w = {irm_sched_kind_name_(r->workload.kind), irm_text_buf_cstr_(&shapes), "float32", t->target,
                         t->features};
  apply_ctx a = {&r->workload, &r->choice, r->choice};
  irm_tune_record best;
  pthread_mutex_lock(&t->lock);
  int rc = irm_tune_db_best(t->db, &w, check_knobs, &a, &best);
  pthread_mutex_unlock(&t->lock);
  irm_text_buf_free_(&shapes);
  if (rc) return irm_error_context(rc, "the " IRM_TUNE_DATABASE_KEY " setting");
  if (best.found) {
    r->choice = a.tuned;
    r->tuned = 1;
  } else snprintf(r->note, sizeof r->note, "%s", best.reason);
  irm_tune_record_clear(&best);
  return IRM_OK;
}
