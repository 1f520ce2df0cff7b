/* Private to backend/: the schedule records of runtime/kernels' blocked
 * convs (docs/kernels.md, "Schedules") and the default rule that fills
 * them. One record per conv workload a generated kernel instantiates: the
 * workload (kind and shape) and the tile choices of its kernel call. The
 * generators (backend/codegen/conv.c, winograd.c) take their choices from
 * irm_cg_schedule_default_ and append the record to their call's
 * collector; lowering keeps each kernel's records and the executors write
 * them into the library's metadata ("schedules"). Plain data: no
 * allocation, no error state; every function is pure and thread-safe. */
#ifndef IRM_BACKEND_CODEGEN_SCHEDULE_H
#define IRM_BACKEND_CODEGEN_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "irm/object.h"

/* The kernel a record instantiates: irm_kernel_conv2d_nchwc,
 * irm_kernel_depthwise_nchwc, irm_kernel_winograd_nchwc. */
typedef enum irm_sched_kind_ {
  IRM_SCHED_CONV2D_NCHWC,
  IRM_SCHED_DEPTHWISE_NCHWC,
  IRM_SCHED_WINOGRAD_NCHWC
} irm_sched_kind_;

/* The loop order (irm_kernel_conv2d.h's IRM_KERNEL_ORDER_*, same values). */
typedef enum irm_sched_order_ { IRM_SCHED_OC_OUTER = 0, IRM_SCHED_ROW_OUTER = 1 } irm_sched_order_;

/* What threads split (docs/threads.md): output rows, or output-channel
 * tiles. An OC_OUTER conv split by rows runs IRM_KERNEL_ORDER_ROW_BANDS. */
typedef enum irm_sched_split_ { IRM_SCHED_SPLIT_TILES = 0, IRM_SCHED_SPLIT_ROWS = 1 } irm_sched_split_;

/* A workload: the kernel's shape (irm_kernel_conv2d_shape's logical
 * channel counts), its channel block, and the sizes of the packed tensors
 * the loop-order rule weighs (the data's channels rounded to whole blocks,
 * the output's channel blocks, the packed weight's elements). */
typedef struct irm_sched_workload_ {
  irm_sched_kind_ kind;
  int64_t n, ic, ih, iw, oc, oh, ow, kh, kw;
  int64_t strides[2], dilation[2], padding[2]; /* padding: top, left */
  int64_t groups, block, in_block;             /* in_block: the input's channel block (a stem's 1) */
  int64_t packed_ic, out_blocks, weight_elems;
  int64_t tile; /* Winograd's output tile side (2: F(2x2, 3x3), 4: F(4x4, 3x3)); 0 for the others */
} irm_sched_workload_;

/* The choices: the layout block, the register tile (ow_tile output pixels
 * x oc_vecs output-channel vectors), the input lanes unrolled, the order.
 * oc_vecs is the packed weight's (AlterOpLayout chose it: kernel_layout's
 * output block / block); 1 for depthwise. Winograd's inner conv runs
 * unroll 1, OC_OUTER; depthwise takes only ow_tile (the others recorded as
 * 1 and OC_OUTER). */
typedef struct irm_sched_choice_ {
  int64_t block;
  int ow_tile, oc_vecs, unroll;
  irm_sched_order_ order;
  int padded; /* direct convs: through a zero-padded copy of the input (irm_kernel_conv2d_nchwc_padded) */
  /* The thread split (docs/threads.md): the kernel's items (rows of
   * output-channel tiles; Winograd, rows of 2x2 tiles) handed out in
   * chunks of `chunk`; chunk == items is one chunk, run inline. The
   * generator fills it (irm_cg_chunk_), the default rule leaves it 0.
   * split: what the items' numbering cuts (irm_cg_schedule_split_). */
  int64_t items, chunk;
  irm_sched_split_ split;
} irm_sched_choice_;

typedef struct irm_sched_record_ {
  irm_sched_workload_ workload;
  irm_sched_choice_ choice;
  /* With a tuning database (tune.database, docs/tuning.md): tuned when
   * its record replaced the default rule's choice, else note says why not
   * (empty without a database). */
  int tuned;
  char note[512];
} irm_sched_record_;

/* The default rule (one per target, by the block: 16 lanes means 32 vector
 * registers, fewer lanes 16): fills *out for workload w whose packed
 * weight has oc_vecs vectors per tile. ow_tile: as many accumulators as
 * the registers hold beside oc_vecs weights and a broadcast (14 at most; 14
 * with 16 lanes, 8 below, for depthwise), no wider than the interior
 * columns (Winograd: than its 2x2 tiles per row); unroll 1; order: the one
 * streaming fewer elements, the input once per output-channel tile
 * (OC_OUTER, on a tie too) or the weights once per output row; padded
 * for a padded direct conv (groups 1) on a map up to 28 wide, whose
 * border columns would otherwise run one pixel at a time (its ow_tile is
 * then bounded by the map's width, every column being inside). */
void irm_cg_schedule_default_(const irm_sched_workload_ *w, int oc_vecs, irm_sched_choice_ *out);

/* Sets c->split from c->order (the default rule calls it; a generator
 * calls it again after a tuned record changed the order): rows for
 * ROW_OUTER, depthwise and Winograd; for an OC_OUTER direct conv, rows
 * when its packed weights are no larger than its input and output
 * together, else tiles. Split by rows, each thread reads every weight but
 * only the input rows it wrote in the kernel before, and writes the rows
 * it reads in the next; split by tiles, it reads only its tiles' weights,
 * but half its input (on two threads) is in the other core's cache, and
 * so is half of the next kernel's. */
void irm_cg_schedule_split_(const irm_sched_workload_ *w, irm_sched_choice_ *c);

/* "conv2d_nchwc", "depthwise_nchwc", "winograd_nchwc". */
const char *irm_sched_kind_name_(irm_sched_kind_ kind);
/* "oc_outer", "row_outer". */
const char *irm_sched_order_name_(irm_sched_order_ order);
/* "tiles", "rows". */
const char *irm_sched_split_name_(irm_sched_split_ split);

/* ---- the search space and tuned records (schedule_knobs.c) ---------------------------------------- */

/* A knob's kind: an integer, the loop order ("oc_outer"/"row_outer") or a
 * bool, all held as ints (order: irm_sched_order_; bool: 0/1). */
typedef enum irm_sched_knob_kind_ { IRM_KNOB_INT, IRM_KNOB_ORDER, IRM_KNOB_BOOL } irm_sched_knob_kind_;

#define IRM_SCHED_MAX_KNOBS_ 6
#define IRM_SCHED_MAX_VALUES_ 32

/* One knob of a workload's space and its legal values, in order. */
typedef struct irm_sched_knob_ {
  const char *name;
  irm_sched_knob_kind_ kind;
  int n;
  int values[IRM_SCHED_MAX_VALUES_];
} irm_sched_knob_;

/* The search space of workload w whose default choice is dflt (its
 * block and oc_vecs are the layout's, fixed): ow_tile 1 up to what the
 * vector registers hold (at most the kernel's 32, and the row's width),
 * unroll the divisors of the block, both orders and padded where the
 * kernel takes them (direct convs; padded only with padding). Fills
 * knobs (IRM_SCHED_MAX_KNOBS_) and returns how many. */
int irm_sched_space_(const irm_sched_workload_ *w, const irm_sched_choice_ *dflt, irm_sched_knob_ *knobs);

/* The number of points of a space (the product of its knobs' counts). */
double irm_sched_space_size_(const irm_sched_knob_ *knobs, int n);

/* Applies knobs (a JSON object: knob name -> value; knobs not named keep
 * choice's) to *choice when every one is a knob of w's space with a legal
 * value: 1; else 0 with why (naming the knob, its value and the legal
 * ones) and *choice unchanged. Thread-safe, no allocation beyond the
 * parse. */
int irm_sched_apply_knobs_(const irm_sched_workload_ *w, const char *knobs, irm_sched_choice_ *choice, char *why,
                           size_t why_size);

/* Appends w's fields as a JSON object (the metadata's "workload", the
 * tuning database's shapes; lower/plan_schedules.c). */
struct irm_text_buf;
void irm_sched_workload_json_(const irm_sched_workload_ *w, struct irm_text_buf *b);

/* A build's view of its tuning database (backend/tune/tune_apply.c):
 * the open file, the target text and CPU features records must match. */
typedef struct irm_sched_tuning_ irm_sched_tuning_;

/* Replaces r's default choice by the best valid record of t's database
 * for r's workload (r->tuned 1), or leaves it and says why in r->note.
 * t NULL: nothing (tuned 0, note empty). Thread-safe. Errors:
 * RuntimeError from SQLite, MemoryError. */
int irm_sched_tune_(irm_sched_tuning_ *t, irm_sched_record_ *r);

/* The "schedule" a plugin op's FCodegenC Function receives (docs/tuning.md,
 * "Plugin families"): *out a NEW Map {"knobs": Map knob -> value of the
 * best record its FTuneSpace's workload has in t's database whose knobs
 * that space allows (empty: the plugin's default), "tuned": bool, "note":
 * str (why no record applies; "" when tuned or without a database)}. t or
 * call NULL, or an op without FTuneSpace (or giving None): empty knobs.
 * Thread-safe. Errors: FTuneSpace's, RuntimeError from SQLite,
 * MemoryError. */
int irm_sched_tune_plugin_(irm_sched_tuning_ *t, const irm_object *call, irm_object **out);

#endif
