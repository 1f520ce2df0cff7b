/* FCodegenC of the Winograd convs (ir/dataflow/ops/winograd.c), F(2x2,
 * 3x3) or F(4x4, 3x3) by the ops' tile_size.
 *
 * nn.contrib_conv2d_winograd_without_weight_transform, float32 with the
 * target's block and a transformed weight of whole vectors
 * (HWOI{x}i{V*x}o, V = 1..4): runtime/kernels/irm_kernel_winograd.h, one
 * inlined instance per workload, its scratch in the kernel's, the epilogue
 * fused (irm_cg_takes_epilogue_). Otherwise loops of the definition in
 * double, as the evaluator. The weight transform (folded at build when
 * the weight is a constant) is loops in double. */
#include <stdio.h>
#include <string.h>

#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

/* The transforms' matrices as C declarations (G, BT, AT) of F(2x2, 3x3)
 * and F(4x4, 3x3), the ops' (ir/dataflow/ops/winograd.c). */
static const char *const MATS2[3] = {
    "    static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};\n",
    "    static const double BT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};\n",
    "    static const double AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};\n"};
static const char *const MATS4[3] = {
    "    static const double G[6][3] = {{1.0 / 4, 0, 0}, {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / "
    "6}, {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};\n",
    "    static const double BT[6][6] = {{4, 0, -5, 0, 1, 0}, {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0}, {0, -2, -1, "
    "2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};\n",
    "    static const double AT[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, "
    "-8, 1}};\n"};

/* ---- the weight transform --------------------------------------------------------------------- */

static int wt_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  irm_winograd_weight_transform_attrs a;
  int rc = irm_winograd_weight_transform_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  const int64_t *w = c->in[0].shape;
  int64_t pairs = w[0] * w[1], al = a.tile_size + 2;
  P(b, "%s", (a.tile_size == 4 ? MATS4 : MATS2)[0]);
  P(b,
    "    for (int64_t p = 0; p < %lld; p++)\n    for (int r = 0; r < %lld; r++)\n    for (int s = 0; s < %lld; s++) "
    "{\n",
    LL(pairs), LL(al), LL(al));
  P(b, "      double u = 0;\n      for (int i = 0; i < 3; i++)\n      for (int j = 0; j < 3; j++)\n");
  P(b, "        u += G[r][i] * (double)%s[p * 9 + i * 3 + j] * G[s][j];\n", c->in[0].name);
  P(b, "      %s[(r * %lld + s) * %lld + p] = ", c->out.name, LL(al), LL(pairs));
  irm_cg_from_double_(c->out.dt, "u", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

/* ---- the conv ---------------------------------------------------------------------------------- */

typedef struct wino {
  irm_conv2d_winograd_attrs a;
  int64_t n, cb, h, w, x, ob, ib, ki, ko, ocb, oh, ow;
} wino;

static int wino_of(const cg_call *c, wino *v) {
  int rc = irm_conv2d_winograd_attrs_decode(c->op, c->attrs, &v->a);
  if (rc) return rc;
  const int64_t *d = c->in[0].shape, *w = c->in[1].shape, *o = c->out.shape;
  v->n = d[0], v->cb = d[1], v->h = d[2], v->w = d[3], v->x = d[4];
  v->ob = w[2], v->ib = w[3], v->ki = w[4], v->ko = w[5];
  v->ocb = o[1], v->oh = o[2], v->ow = o[3];
  return IRM_OK;
}

static int wino_kernel_ok(const cg_call *c, const wino *v) {
  return c->kernel_block > 0 && v->x == c->kernel_block && c->out.shape[4] == v->x && v->ki == v->x &&
         v->ko % v->x == 0 && v->ko / v->x <= 4 && c->out.dt == CG_F32 && c->in[0].dt == CG_F32 &&
         c->in[1].dt == CG_F32;
}

int irm_cg_winograd_takes_epilogue_(const cg_call *c) {
  wino v;
  if (wino_of(c, &v)) return irm_clear_error(), 0;
  return wino_kernel_ok(c, &v);
}

/* The call's schedule record: its workload (a 3x3, stride-1 conv), the
 * choices of the default rule (schedule.h) for the weight's oc_vecs. */
static void wino_schedule(const cg_call *c, const wino *v, irm_sched_record_ *r) {
  irm_sched_workload_ *w = &r->workload;
  w->kind = IRM_SCHED_WINOGRAD_NCHWC;
  w->n = v->n, w->ic = v->cb * v->x, w->ih = v->h, w->iw = v->w, w->oc = v->a.channels, w->oh = v->oh, w->ow = v->ow;
  w->kh = 3, w->kw = 3, w->groups = 1, w->block = v->x, w->in_block = v->x;
  for (int d = 0; d < 2; d++) w->strides[d] = 1, w->dilation[d] = 1, w->padding[d] = v->a.padding[d];
  w->packed_ic = v->cb * v->x, w->out_blocks = v->ocb, w->weight_elems = c->in[1].numel, w->tile = v->a.tile_size;
  irm_cg_schedule_default_(w, (int)(v->ko / v->x), &r->choice);
}

int irm_cg_winograd_record_(const cg_call *c, irm_sched_record_ *r) {
  wino v;
  if (wino_of(c, &v)) return irm_clear_error(), 0;
  if (!wino_kernel_ok(c, &v)) return 0;
  wino_schedule(c, &v, r);
  return 1;
}

/* The kernel's statements over rows of output tiles [begin, end), each
 * running chunk with its own transforms' scratch (slot: the lowest free
 * one, so that a thread's stays in its cache). */
static int wino_kernel(const cg_call *c, const wino *v, irm_text_buf *b, size_t *scratch) {
  static const char *const headers[] = {"irm_kernel_winograd.h", NULL};
  int64_t m = v->a.tile_size, tiles = (v->ow + m - 1) / m, cin = v->cb * v->x;
  size_t one = (size_t)((m + 2) * (m + 2) * tiles * v->x * (v->cb + v->ocb)) * sizeof(float);
  (void)irm_cg_use_kernels_(c, v->x, headers);
  irm_sched_record_ r;
  wino_schedule(c, v, &r);
  int rc = irm_sched_tune_(c->tuning, &r);
  if (rc) return rc;
  irm_sched_choice_ *k = &r.choice;
  k->items = v->n * ((v->oh + m - 1) / m);
  /* the products' multiplies per output: alpha^2 / m^2 */
  double work = (double)v->n * (double)v->oh * (double)v->ow * (double)v->a.channels * (double)cin *
                (double)((m + 2) * (m + 2)) / (double)(m * m);
  k->chunk = irm_cg_chunk_(c, k->items, work);
  size_t slot_bytes = one * (size_t)((k->items + k->chunk - 1) / k->chunk); /* the flags follow the slots */
  *scratch = slot_bytes + irm_cg_slot_flags_bytes_(k->items, k->chunk);
  char busy[160];
  if (snprintf(busy, sizeof busy, "%s + %zu", c->scratch, slot_bytes) >= (int)sizeof busy)
    return irm_error_nomem_("generating C"); /* no scratch expression is this long */
  irm_text_buf run;
  irm_text_buf_init_(&run, NULL, 0);
  P(&run,
    "    const irm_kernel_conv2d_shape s = {%lld, %lld, %lld, %lld, %lld, %lld, %lld, 3, 3, 1, 1, 1, 1, %lld, %lld, 1, 0};\n",
    LL(v->n), LL(cin), LL(v->h), LL(v->w), LL(v->a.channels), LL(v->oh), LL(v->ow), LL(v->a.padding[0]),
    LL(v->a.padding[1]));
  irm_cg_epilogue_decl_(c->epilogue, &run);
  P(&run,
    "    irm_kernel_winograd_range(&s, %d, %s, %s, %s, &e, flags, (float *)(void *)(%s + (size_t)slot * %zu), %d, "
    "%d, begin, end);\n",
    (int)m, c->in[0].name, c->in[1].name, c->out.name, c->scratch, one, k->ow_tile, k->oc_vecs);
  rc = run.failed ? irm_error_nomem_("generating C")
                  : irm_cg_parallel_slots_(c, b, k->items, k->chunk, work, run.data, busy);
  irm_text_buf_free_(&run);
  return rc ? rc : irm_cg_record_schedule_(c, &r);
}

/* The definition, in double: per output tile and output channel. */
static void wino_loops(const cg_call *c, const wino *v, irm_text_buf *b) {
  int64_t cin = v->cb * v->x, wch = v->ob * v->ko, mt = v->a.tile_size, al = mt + 2;
  const char *const *mats = mt == 4 ? MATS4 : MATS2;
  P(b, "%s%s", mats[1], mats[2]);
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t o = 0; o < %lld; o++)\n", LL(v->n), LL(v->ocb * v->x));
  P(b, "    for (int64_t ty = 0; ty < %lld; ty += %lld)\n    for (int64_t tx = 0; tx < %lld; tx += %lld) {\n",
    LL(v->oh), LL(mt), LL(v->ow), LL(mt));
  P(b, "      double m[%lld][%lld] = {{0}};\n      for (int64_t i = 0; i < (o < %lld ? %lld : 0); i++) {\n", LL(al),
    LL(al), LL(wch), LL(cin));
  P(b,
    "        double d[%lld][%lld], t[%lld][%lld];\n        for (int r = 0; r < %lld; r++)\n        for (int q = 0; q "
    "< %lld; q++) {\n",
    LL(al), LL(al), LL(al), LL(al), LL(al), LL(al));
  P(b, "          const int64_t y = ty + r - %lld, x = tx + q - %lld;\n", LL(v->a.padding[0]), LL(v->a.padding[1]));
  P(b,
    "          d[r][q] = y < 0 || y >= %lld || x < 0 || x >= %lld ? 0 : (double)%s[(((n * %lld + i / %lld) * %lld + y) * "
    "%lld + x) * %lld + i %% %lld];\n        }\n",
    LL(v->h), LL(v->w), c->in[0].name, LL(v->cb), LL(v->x), LL(v->h), LL(v->w), LL(v->x), LL(v->x));
  P(b, "        for (int r = 0; r < %lld; r++)\n        for (int q = 0; q < %lld; q++) {\n", LL(al), LL(al));
  P(b, "          t[r][q] = 0;\n          for (int u = 0; u < %lld; u++) t[r][q] += BT[r][u] * d[u][q];\n        }\n",
    LL(al));
  P(b, "        for (int r = 0; r < %lld; r++)\n        for (int q = 0; q < %lld; q++) {\n", LL(al), LL(al));
  P(b, "          double u = 0;\n          for (int z = 0; z < %lld; z++) u += t[r][z] * BT[q][z];\n", LL(al));
  P(b,
    "          m[r][q] += (double)%s[((((r * %lld + q) * %lld + o / %lld) * %lld + i / %lld) * %lld + i %% %lld) * %lld "
    "+ o %% %lld] * u;\n        }\n      }\n",
    c->in[1].name, LL(al), LL(v->ob), LL(v->ko), LL(v->ib), LL(v->ki), LL(v->ki), LL(v->ki), LL(v->ko), LL(v->ko));
  P(b, "      for (int r = 0; r < %lld; r++)\n      for (int q = 0; q < %lld; q++) {\n", LL(mt), LL(mt));
  P(b,
    "        double y = 0;\n        for (int u = 0; u < %lld; u++)\n        for (int s = 0; s < %lld; s++) y += "
    "AT[r][u] * m[u][s] * AT[q][s];\n",
    LL(al), LL(al));
  P(b,
    "        if (ty + r < %lld && tx + q < %lld)\n          %s[(((n * %lld + o / %lld) * %lld + ty + r) * %lld + tx + "
    "q) * %lld + o %% %lld] = ",
    LL(v->oh), LL(v->ow), c->out.name, LL(v->ocb), LL(v->x), LL(v->oh), LL(v->ow), LL(v->x), LL(v->x));
  irm_cg_from_double_(c->out.dt, "y", b);
  P(b, ";\n      }\n    }\n");
}

static int wino_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  wino v;
  int rc = wino_of(c, &v);
  if (rc || c->out.numel == 0) return rc;
  if (c->file_scope && wino_kernel_ok(c, &v)) return wino_kernel(c, &v, b, scratch);
  if (c->epilogue) return irm_cg_fail_(c, "an epilogue was fused where the kernels cannot run");
  wino_loops(c, &v, b);
  return IRM_OK;
}

const cg_op irm_cg_winograd_ops_[] = {
    {"nn.contrib_conv2d_winograd_weight_transform", NULL, NULL, wt_stmts},
    {"nn.contrib_conv2d_winograd_without_weight_transform", NULL, NULL, wino_stmts},
};
const size_t irm_cg_winograd_ops_count_ = sizeof irm_cg_winograd_ops_ / sizeof irm_cg_winograd_ops_[0];
