/* Private to backend/tune/: one measured run of an exported task library
 * (aot, interface-api "c": tvmgen_<mod_name>_run(inputs, outputs), one
 * void * per input and output) in a forked child (tune_child.c). */
#ifndef IRM_BACKEND_TUNE_RUN_H
#define IRM_BACKEND_TUNE_RUN_H

#include <stddef.h>
#include <stdint.h>

typedef struct irm_tune_run_spec_ {
  const char *library, *mod_name;
  size_t n_in, n_out;
  void *const *in;         /* the input buffers */
  const size_t *in_bytes;  /* their sizes */
  void *const *out;        /* where the outputs are copied (the parent's buffers) */
  const size_t *out_bytes; /* their sizes */
  int64_t warmup, repeat, min_repeat_ms;
  double timeout; /* seconds */
  int64_t cpu;    /* the child's CPU; -1: any */
  int flush;      /* evict the inputs but the first from the caches before each timed run (tune_child.c) */
} irm_tune_run_spec_;

typedef enum irm_tune_run_kind_ {
  IRM_TUNE_RUN_OK = 0,
  IRM_TUNE_RUN_FAILED, /* not loaded, or without the entry point */
  IRM_TUNE_RUN_CRASH,  /* a signal, or the entry point's error code */
  IRM_TUNE_RUN_TIMEOUT
} irm_tune_run_kind_;

typedef struct irm_tune_run_result_ {
  irm_tune_run_kind_ kind;
  char error[512]; /* why, when kind is not OK */
  double mean;     /* seconds per run of the best batch (0 with repeat 0) */
  double spread;   /* the batches' slowest minus the best */
  double seconds;  /* the child's wall time */
} irm_tune_run_result_;

/* Loads s->library, runs it in a child (one run, s->warmup more, then
 * s->repeat batches of at least s->min_repeat_ms each; with s->flush,
 * each timed run alone after its inputs but the first left the caches,
 * the flush untimed), copies the
 * outputs when it ended well. The candidate's failures go to *r (kind,
 * error); the return code is for the parent's own: RuntimeError (no
 * shared memory, no process), MemoryError. */
int irm_tune_run_(const irm_tune_run_spec_ *s, irm_tune_run_result_ *r);

#endif
