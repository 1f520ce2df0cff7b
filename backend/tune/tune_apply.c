/* A build's use of the tuning database (tune_build.h, docs/tuning.md):
 * the file its tune.database setting names, opened read-only once per
 * build, and for each conv workload the best record whose target and CPU
 * features match and whose knobs the workload's space allows, else the
 * default rule with the reason in the record's note. */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/dataflow/expr.h"
#include "irm/dataflow/op.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/kind.h"
#include "irm/pass.h"
#include "irm/target.h"
#include "irm_internal.h"
#include "tune_build.h"
#include "tune_internal.h"

struct irm_sched_tuning_ {
  irm_tune_db *db;
  char *target, *features;
  irm_object *target_obj; /* what a plugin's FTuneSpace is asked for */
  pthread_mutex_t lock;   /* one SQLite handle: generators may run on several threads */
};

int irm_register_tune_settings_(void) {
  int rc = irm_module_attr_register(IRM_TUNE_DATABASE_KEY, "str", 0);
  return rc ? rc : irm_pass_config_register(IRM_TUNE_DATABASE_KEY, "str", NULL, IRM_TUNE_DATABASE_KEY);
}

int irm_tune_target_text_(const irm_object *target, char **out) {
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
  if (!rc) rc = irm_tune_target_text_(target, &t->target);
  if (!rc && target) irm_object_retain((irm_object *)(t->target_obj = (irm_object *)target));
  if (!rc && !(t->features = irm_strdup(features ? features : "")))
    rc = irm_error(IRM_ENOMEM, "out of memory opening the tuning database");
  if (!rc && pthread_mutex_init(&t->lock, NULL)) rc = irm_error(IRM_ERUNTIME, "cannot make a lock");
  if (!rc) {
    *out = t;
    return IRM_OK;
  }
  if (t) {
    irm_object_release(t->target_obj);
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
  irm_object_release(t->target_obj);
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

/* ---- plugin op families (docs/tuning.md, "Plugin families") ------------------------------- */

/* Whether JSON value j is the legal value v (an int, bool, float or str). */
static int same_value(const json_t *j, const irm_any *v) {
  const char *s = NULL;
  if (v->type_code == IRM_BOOL) return json_is_boolean(j) && json_is_true(j) == (v->v_int != 0);
  if (v->type_code == IRM_INT) return json_is_integer(j) && json_integer_value(j) == v->v_int;
  if (v->type_code == IRM_FLOAT) return json_is_number(j) && json_number_value(j) == v->v_float;
  if (!irm_any_to_str(v, &s, NULL)) return json_is_string(j) && !strcmp(json_string_value(j), s);
  irm_clear_error();
  return 0;
}

int irm_tune_knobs_legal_(const irm_object *space, const char *knobs, char *why, size_t why_size) {
  json_error_t err;
  json_t *j = json_loads(knobs, 0, &err), *val;
  const char *key;
  int ok = json_is_object(j);
  if (!ok) snprintf(why, why_size, "the knobs are no JSON object");
  json_object_foreach(ok ? j : NULL, key, val) {
    const irm_any *legal = irm_map_find_cstr(space, key);
    size_t n = legal && legal->type_code == IRM_OBJECT ? irm_array_size(legal->v_obj) : 0, i = 0;
    while (i < n && !same_value(val, irm_array_at(legal->v_obj, i))) i++;
    if (i < n) continue;
    char *text = json_dumps(val, JSON_ENCODE_ANY | JSON_COMPACT);
    if (!legal) snprintf(why, why_size, "the family has no knob '%s'", key);
    else snprintf(why, why_size, "%s %s is not one of the %zu legal values here", key, text ? text : "?", n);
    free(text);
    ok = 0;
    break;
  }
  json_decref(j);
  return ok;
}

static int check_plugin_knobs(const char *knobs, void *space, char *why, size_t why_size) {
  return irm_tune_knobs_legal_(space, knobs, why, why_size);
}

/* knobs (JSON object text, legal: ints, bools, floats, strs) as a Map; NEW. */
static int knobs_map(const char *knobs, irm_object **out) {
  json_error_t err;
  json_t *j = knobs ? json_loads(knobs, 0, &err) : NULL, *val;
  const char *key;
  int rc = irm_map_new(out);
  json_object_foreach(j, key, val) {
    irm_any v = json_is_boolean(val)   ? irm_any_bool(json_is_true(val))
                : json_is_integer(val) ? irm_any_int(json_integer_value(val))
                : json_is_number(val)  ? irm_any_float(json_number_value(val))
                : json_is_string(val)  ? irm_any_str(json_string_value(val))
                                       : irm_any_none();
    if (!rc) rc = irm_map_set_move(out, key, &v);
  }
  json_decref(j);
  return rc;
}

/* The best legal record of the plugin call's workload (its op's
 * FTuneSpace), into *best; found 0 when the op has none or says None. */
static int plugin_best(irm_sched_tuning_ *t, const irm_object *call, irm_object **space, irm_tune_record *best) {
  irm_object *op = irm_call_callee(call);
  irm_any f = irm_any_none(), sp = irm_any_none();
  memset(best, 0, sizeof *best);
  if (!op || irm_expr_kind_of(op) != IRM_EXPR_OP || irm_kind_get_attr(irm_op_kind(op), IRM_OP_ATTR_TUNE_SPACE, &f) ||
      f.type_code != IRM_OBJECT) {
    irm_clear_error();
    irm_any_release(&f);
    return IRM_OK;
  }
  irm_any args[2] = {irm_any_object((irm_object *)call), irm_any_object(t->target_obj)};
  int rc = irm_func_call(f.v_obj, args, 2, &sp);
  irm_any_release(&f);
  if (rc) return irm_error_context(rc, "FTuneSpace of op '%s'", irm_op_name(op));
  const irm_any *fam = sp.type_code == IRM_OBJECT ? irm_map_find_cstr(sp.v_obj, "family") : NULL,
                *wl = fam ? irm_map_find_cstr(sp.v_obj, "workload") : NULL,
                *kn = wl ? irm_map_find_cstr(sp.v_obj, "knobs") : NULL;
  irm_tune_workload w = {NULL, NULL, "float32", t->target, t->features};
  if (!kn || kn->type_code != IRM_OBJECT || irm_any_to_str(fam, &w.family, NULL) ||
      irm_any_to_str(wl, &w.shapes, NULL)) {
    irm_clear_error();
    irm_any_release(&sp);
    return IRM_OK;
  }
  pthread_mutex_lock(&t->lock);
  rc = irm_tune_db_best(t->db, &w, check_plugin_knobs, kn->v_obj, best);
  pthread_mutex_unlock(&t->lock);
  *space = sp.v_obj;
  return rc ? irm_error_context(rc, "the " IRM_TUNE_DATABASE_KEY " setting") : IRM_OK;
}

int irm_sched_tune_plugin_(irm_sched_tuning_ *t, const irm_object *call, irm_object **out) {
  irm_tune_record best;
  irm_object *space = NULL, *knobs = NULL;
  memset(&best, 0, sizeof best);
  int rc = t && call ? plugin_best(t, call, &space, &best) : IRM_OK;
  if (!rc) rc = knobs_map(best.found ? best.knobs : NULL, &knobs);
  if (!rc) {
    const char *keys[] = {"knobs", "tuned", "note"};
    irm_any v[] = {irm_any_object(knobs), irm_any_bool(best.found != 0),
                   irm_any_str(best.found || !space ? "" : best.reason)};
    rc = irm_map_from_pairs(keys, v, 3, out);
  }
  irm_object_release(knobs);
  irm_object_release(space);
  irm_tune_record_clear(&best);
  return rc;
}
