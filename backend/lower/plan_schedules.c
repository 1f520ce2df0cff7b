/* The "schedules" field of a library's metadata (plan.h): the schedule
 * record of every runtime/kernels conv the plan's kernels call, for both
 * executors' metadata, so a tuner can read what each workload ran with
 * and whether a tuned record chose it (docs/tuning.md). */
#include <inttypes.h>

#include "plan.h"

/* The length of the valid UTF-8 sequence at s (2 to 4), or 0. */
static size_t utf8_length(const unsigned char *s) {
  size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : 0;
  if (s[0] >= 0xf5) n = 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
      (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
    return 0; /* overlong, a surrogate, past U+10FFFF */
  return n;
}

void irm_plan_json_str_(irm_text_buf *b, const char *s) {
  irm_text_buf_putc_(b, '"');
  for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
    unsigned char c = *u;
    size_t n = c >= 0x80 ? utf8_length(u) : 1;
    if (c == '"' || c == '\\') irm_text_buf_printf_(b, "\\%c", c);
    else if (c < 0x20 || c == 0x7f) irm_text_buf_printf_(b, "\\u%04x", c);
    else if (!n) irm_text_buf_puts_(b, "\\ufffd"); /* not UTF-8: JSON readers (jansson) refuse the text */
    else {
      irm_text_buf_append_(b, (const char *)u, n);
      u += n - 1;
    }
  }
  irm_text_buf_putc_(b, '"');
}

static void pair(irm_text_buf *b, const char *key, const int64_t v[2]) {
  irm_text_buf_printf_(b, ", \"%s\": [%" PRId64 ", %" PRId64 "]", key, v[0], v[1]);
}

void irm_sched_workload_json_(const irm_sched_workload_ *w, struct irm_text_buf *b) {
  irm_text_buf_printf_(b,
                       "{\"n\": %" PRId64 ", \"ic\": %" PRId64 ", \"ih\": %" PRId64 ", \"iw\": %" PRId64
                       ", \"oc\": %" PRId64 ", \"oh\": %" PRId64 ", \"ow\": %" PRId64 ", \"kh\": %" PRId64
                       ", \"kw\": %" PRId64,
                       w->n, w->ic, w->ih, w->iw, w->oc, w->oh, w->ow, w->kh, w->kw);
  pair(b, "strides", w->strides);
  pair(b, "dilation", w->dilation);
  pair(b, "padding", w->padding);
  irm_text_buf_printf_(b,
                       ", \"groups\": %" PRId64 ", \"block\": %" PRId64 ", \"in_block\": %" PRId64
                       ", \"packed_ic\": %" PRId64 ", \"out_blocks\": %" PRId64 ", \"weight_elems\": %" PRId64,
                       w->groups, w->block, w->in_block, w->packed_ic, w->out_blocks, w->weight_elems);
  /* Winograd's output tile: F(2x2) and F(4x4) are distinct workloads */
  if (w->kind == IRM_SCHED_WINOGRAD_NCHWC) irm_text_buf_printf_(b, ", \"tile\": %" PRId64, w->tile);
  irm_text_buf_putc_(b, '}');
}

static void record_json(irm_text_buf *b, const char *symbol, const irm_sched_record_ *r) {
  const irm_sched_choice_ *c = &r->choice;
  /* kernel symbols are C identifiers: nothing to escape */
  irm_text_buf_printf_(b, "{\"kernel\": \"%s\", \"kind\": \"%s\", \"workload\": ", symbol,
                       irm_sched_kind_name_(r->workload.kind));
  irm_sched_workload_json_(&r->workload, b);
  irm_text_buf_printf_(b,
                       ", \"choices\": {\"block\": %" PRId64
                       ", \"ow_tile\": %d, \"oc_vecs\": %d, \"unroll\": %d, \"order\": \"%s\", \"padded\": %s"
                       ", \"split\": {\"items\": %" PRId64 ", \"chunk\": %" PRId64 ", \"across\": \"%s\"}}"
                       ", \"tuned\": %s",
                       c->block, c->ow_tile, c->oc_vecs, c->unroll, irm_sched_order_name_(c->order),
                       c->padded ? "true" : "false", c->items, c->chunk, irm_sched_split_name_(c->split),
                       r->tuned ? "true" : "false");
  if (r->note[0]) {
    irm_text_buf_puts_(b, ", \"tune_note\": ");
    irm_plan_json_str_(b, r->note);
  }
  irm_text_buf_putc_(b, '}');
}

void irm_plan_schedules_json_(const lowered_plan *p, irm_text_buf *b) {
  if (p->isa.kernel_isa[0]) irm_text_buf_printf_(b, ", \"kernel_isa\": \"%s\"", p->isa.kernel_isa);
  irm_text_buf_puts_(b, ", \"schedules\": [");
  const char *sep = "";
  for (size_t k = 0; k < p->n_kernels; k++)
    for (size_t i = 0; i < p->kernels[k].n_schedules; i++) {
      irm_text_buf_puts_(b, sep);
      record_json(b, p->kernels[k].symbol, &p->kernels[k].schedules[i]);
      sep = ", ";
    }
  irm_text_buf_putc_(b, ']');
}
