/* The search space of runtime/kernels' blocked convs and tuned choices
 * (schedule.h): which knob values the kernels take for a workload, a
 * record's knobs checked against them and applied. The default rule
 * stays in schedule.c. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm/error.h"
#include "schedule.h"

/* The kernels' widest register tile (IRM_KERNEL_CONV2D_MAX_TILE_). */
#define MAX_TILE_ 32

static void fixed(irm_sched_knob_ *k, const char *name, irm_sched_knob_kind_ kind, int v) {
  k->name = name, k->kind = kind, k->n = 1, k->values[0] = v;
}

static void range(irm_sched_knob_ *k, const char *name, int64_t hi) {
  if (hi > MAX_TILE_) hi = MAX_TILE_;
  if (hi < 1) hi = 1;
  k->name = name, k->kind = IRM_KNOB_INT, k->n = (int)hi;
  for (int i = 0; i < k->n; i++) k->values[i] = i + 1;
}

int irm_sched_space_(const irm_sched_workload_ *w, const irm_sched_choice_ *dflt, irm_sched_knob_ *knobs) {
  int regs = w->block >= 16 ? 32 : 16, vecs = dflt->oc_vecs > 0 ? dflt->oc_vecs : 1;
  int direct = w->kind == IRM_SCHED_CONV2D_NCHWC;
  fixed(&knobs[0], "block", IRM_KNOB_INT, (int)dflt->block);
  fixed(&knobs[1], "oc_vecs", IRM_KNOB_INT, vecs);
  /* accumulators beside the weights: a tile a little past the register
   * file still runs (the compiler spills), so the space reaches it */
  int64_t m = w->tile > 0 ? w->tile : 2; /* Winograd's output tile side */
  int64_t cols = w->kind == IRM_SCHED_WINOGRAD_NCHWC ? (w->ow + m - 1) / m : w->ow;
  int64_t hi = w->kind == IRM_SCHED_DEPTHWISE_NCHWC ? regs / 2 : regs / vecs;
  range(&knobs[2], "ow_tile", hi < cols ? hi : cols);
  /* unroll divides the block and the input's (the kernel's rule: a stem
   * reading NCHW1c takes only 1); only direct convs take it */
  int64_t in_block = w->in_block > 0 ? w->in_block : w->block;
  knobs[3].name = "unroll", knobs[3].kind = IRM_KNOB_INT, knobs[3].n = 0;
  for (int u = 1; u <= (direct ? w->block : 1); u *= 2)
    if (w->block % u == 0 && in_block % u == 0) knobs[3].values[knobs[3].n++] = u;
  knobs[4].name = "order", knobs[4].kind = IRM_KNOB_ORDER, knobs[4].n = direct ? 2 : 1;
  knobs[4].values[0] = IRM_SCHED_OC_OUTER, knobs[4].values[1] = IRM_SCHED_ROW_OUTER;
  /* the zero-padded copy: a direct conv (groups 1) with padding */
  knobs[5].name = "padded", knobs[5].kind = IRM_KNOB_BOOL;
  knobs[5].n = direct && w->groups == 1 && (w->padding[0] || w->padding[1]) ? 2 : 1;
  knobs[5].values[0] = 0, knobs[5].values[1] = 1;
  return 6;
}

double irm_sched_space_size_(const irm_sched_knob_ *knobs, int n) {
  double size = 1;
  for (int i = 0; i < n; i++) size *= knobs[i].n;
  return size;
}

/* The value of j as knob k's int, or -1 (no legal value is negative). */
static int knob_value(const irm_sched_knob_ *k, const json_t *j) {
  if (k->kind == IRM_KNOB_BOOL) return json_is_boolean(j) ? json_is_true(j) : -1;
  if (k->kind == IRM_KNOB_ORDER) {
    const char *s = json_string_value(j);
    if (!s) return -1;
    return strcmp(s, "oc_outer") == 0 ? IRM_SCHED_OC_OUTER : strcmp(s, "row_outer") == 0 ? IRM_SCHED_ROW_OUTER : -1;
  }
  if (!json_is_integer(j) || json_integer_value(j) < 0 || json_integer_value(j) > 1 << 20) return -1;
  return (int)json_integer_value(j);
}

/* "1..14", "1, 2, 4", "oc_outer, row_outer", "false, true" into buf. */
static void legal_values(const irm_sched_knob_ *k, char *buf, size_t size) {
  size_t at = 0;
  buf[0] = '\0';
  if (k->kind == IRM_KNOB_INT && k->n > 2 && k->values[k->n - 1] - k->values[0] == k->n - 1) {
    snprintf(buf, size, "%d..%d", k->values[0], k->values[k->n - 1]);
    return;
  }
  for (int i = 0; i < k->n && at < size; i++) {
    const char *sep = i ? ", " : "";
    int v = k->values[i];
    int len = k->kind == IRM_KNOB_INT ? snprintf(buf + at, size - at, "%s%d", sep, v)
              : k->kind == IRM_KNOB_BOOL
                  ? snprintf(buf + at, size - at, "%s%s", sep, v ? "true" : "false")
                  : snprintf(buf + at, size - at, "%s%s", sep, irm_sched_order_name_((irm_sched_order_)v));
    at += len > 0 ? (size_t)len : 0;
  }
}

static void set_choice(irm_sched_choice_ *c, const char *name, int v) {
  if (strcmp(name, "ow_tile") == 0) c->ow_tile = v;
  else if (strcmp(name, "unroll") == 0) c->unroll = v;
  else if (strcmp(name, "order") == 0) c->order = (irm_sched_order_)v;
  else if (strcmp(name, "padded") == 0) c->padded = v;
  /* block and oc_vecs are fixed: a legal value is the one there is */
}

int irm_sched_apply_knobs_(const irm_sched_workload_ *w, const char *knobs, irm_sched_choice_ *choice, char *why,
                           size_t why_size) {
  irm_sched_knob_ space[IRM_SCHED_MAX_KNOBS_];
  int n = irm_sched_space_(w, choice, space);
  json_error_t err;
  json_t *j = json_loads(knobs, 0, &err);
  if (!json_is_object(j)) {
    snprintf(why, why_size, "knobs are no JSON object");
    json_decref(j);
    return 0;
  }
  irm_sched_choice_ out = *choice;
  const char *key;
  json_t *value;
  int ok = 1;
  json_object_foreach(j, key, value) {
    const irm_sched_knob_ *k = NULL;
    const char *names[IRM_SCHED_MAX_KNOBS_];
    for (int i = 0; i < n; i++) {
      names[i] = space[i].name;
      if (strcmp(space[i].name, key) == 0) k = &space[i];
    }
    if (!k) {
      const char *close = irm_closest_name(key, names, (size_t)n);
      snprintf(why, why_size, "'%s' is no knob of %s%s%s%s", key, irm_sched_kind_name_(w->kind),
               close ? " (did you mean '" : "", close ? close : "", close ? "'?)" : "");
      ok = 0;
      break;
    }
    int v = knob_value(k, value), legal = 0;
    for (int i = 0; i < k->n && v >= 0; i++) legal |= k->values[i] == v;
    if (!legal) {
      char values[160], *text = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);
      legal_values(k, values, sizeof values);
      snprintf(why, why_size, "%s %s is not one of %s here", key, text ? text : "?", values);
      free(text);
      ok = 0;
      break;
    }
    set_choice(&out, key, v);
  }
  json_decref(j);
  if (ok) *choice = out;
  return ok;
}
