/* The default schedule rule of runtime/kernels' blocked convs (schedule.h):
 * the one place the generators' tile choices come from. */
#include "schedule.h"

/* The register tile's width: accumulators for ow_tile pixels x oc_vecs
 * vectors, oc_vecs weights and one broadcast in the vector registers (32
 * with 16 lanes, 16 below). */
static int register_tile(const irm_sched_workload_ *w, int oc_vecs) {
  int regs = w->block >= 16 ? 32 : 16;
  int t = w->kind == IRM_SCHED_DEPTHWISE_NCHWC ? (w->block >= 16 ? 14 : 8) : (regs - oc_vecs - 1) / oc_vecs;
  return t > 14 ? 14 : t;
}

/* The direct convs' tile is no wider than the interior columns (those
 * whose window stays inside the input), when there are any. */
static int interior_tile(const irm_sched_workload_ *w, int t) {
  int64_t lo = (w->padding[1] + w->strides[1] - 1) / w->strides[1];
  int64_t hi = w->iw - 1 - (w->kw - 1) * w->dilation[1] + w->padding[1];
  hi = hi < 0 ? 0 : hi / w->strides[1] + 1;
  if (hi > w->ow) hi = w->ow;
  if (hi - lo >= 1 && hi - lo < t) t = (int)(hi - lo);
  return t < 1 ? 1 : t;
}

void irm_cg_schedule_default_(const irm_sched_workload_ *w, int oc_vecs, irm_sched_choice_ *out) {
  out->block = w->block;
  out->oc_vecs = w->kind == IRM_SCHED_DEPTHWISE_NCHWC ? 1 : oc_vecs;
  out->unroll = 1;
  out->order = IRM_SCHED_OC_OUTER;
  out->padded = 0;
  out->items = out->chunk = 0;
  int t = register_tile(w, out->oc_vecs);
  if (w->kind == IRM_SCHED_WINOGRAD_NCHWC) {
    int64_t m = w->tile > 0 ? w->tile : 2, tiles = (w->ow + m - 1) / m; /* output tiles per row */
    out->ow_tile = tiles < t ? (int)tiles : t;
  } else {
    out->padded =
        w->kind == IRM_SCHED_CONV2D_NCHWC && w->groups == 1 && (w->padding[0] || w->padding[1]) && w->ow <= 28;
    out->ow_tile = out->padded ? (w->ow < t ? (int)w->ow : t) : interior_tile(w, t);
  }
  if (w->kind == IRM_SCHED_CONV2D_NCHWC) {
    /* the loop order that streams less: the input once per tile of output
     * channels, or the weights once per output row */
    int64_t tiles = (w->out_blocks + oc_vecs - 1) / oc_vecs;
    double in_traffic = (double)tiles * (double)(w->packed_ic * w->ih * w->iw);
    double w_traffic = (double)w->oh * (double)w->weight_elems;
    out->order = in_traffic <= w_traffic ? IRM_SCHED_OC_OUTER : IRM_SCHED_ROW_OUTER;
  }
  irm_cg_schedule_split_(w, out);
}

void irm_cg_schedule_split_(const irm_sched_workload_ *w, irm_sched_choice_ *c) {
  double in = (double)w->n * (double)w->packed_ic * (double)(w->ih * w->iw),
         out = (double)w->n * (double)(w->out_blocks * w->block) * (double)(w->oh * w->ow);
  int tiles = w->kind == IRM_SCHED_CONV2D_NCHWC && c->order == IRM_SCHED_OC_OUTER && (double)w->weight_elems > in + out;
  c->split = tiles ? IRM_SCHED_SPLIT_TILES : IRM_SCHED_SPLIT_ROWS;
}

const char *irm_sched_kind_name_(irm_sched_kind_ kind) {
  switch (kind) {
  case IRM_SCHED_CONV2D_NCHWC: return "conv2d_nchwc";
  case IRM_SCHED_DEPTHWISE_NCHWC: return "depthwise_nchwc";
  default: return "winograd_nchwc";
  }
}

const char *irm_sched_order_name_(irm_sched_order_ order) {
  return order == IRM_SCHED_ROW_OUTER ? "row_outer" : "oc_outer";
}

const char *irm_sched_split_name_(irm_sched_split_ split) { return split == IRM_SCHED_SPLIT_ROWS ? "rows" : "tiles"; }
