/* The timing instrument (transform.PassTimingInstrument) and its report
 * (transform.RenderTiming): before/after hooks keep, per thread, a stack of
 * open records; each record hangs under the record open when it started, so
 * the passes a Sequential runs appear inside it. A pass that fails gets no
 * after hook but the private failed hook, which closes its record marked
 * failed, so the passes run after it do not nest under it. The exit hook
 * clears everything.
 *
 * irm_timing_render gets only the instrument object, so the states of live
 * timing instruments are kept in a private list keyed by the instrument;
 * a state leaves the list when its last hook Function dies. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "irm_internal.h"
#include "instrument_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"

#define NO_RECORD SIZE_MAX

/* One run of one pass. Children and roots are linked lists, in start order. */
typedef struct record {
  char *name;
  uint64_t start, total; /* nanoseconds */
  int done;              /* the after (or failed) hook ran */
  int failed;            /* the failed hook ran */
  size_t depth, parent, first_child, last_child, next;
} record;

/* The records a thread has open, innermost last. */
typedef struct open_stack {
  pthread_t thread;
  size_t *at;
  size_t n, cap;
} open_stack;

typedef struct timing_state {
  irm_hook_state_ head; /* first */
  pthread_mutex_t lock;
  record *recs;
  size_t n_recs, cap_recs, first_root, last_root;
  open_stack *stacks;
  size_t n_stacks, cap_stacks;
  /* The private registry, guarded by registry_lock. */
  const irm_instrument *owner;
  struct timing_state *next_state;
} timing_state;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static timing_state *registry_head;

static int on_exit_hook(const irm_any *args, int32_t nargs, irm_any *ret, void *res);
static int on_before(const irm_any *args, int32_t nargs, irm_any *ret, void *res);
static int on_after(const irm_any *args, int32_t nargs, irm_any *ret, void *res);
static int on_failed(const irm_any *args, int32_t nargs, irm_any *ret, void *res);
static void drop_state(void *state);
static void clear_records(timing_state *s);
static int render_locked(const timing_state *s, irm_object **out);

int irm_timing_instrument_new(irm_instrument **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_timing_instrument_new: out must not be NULL");
  *out = NULL;
  timing_state *s = irm_calloc(1, sizeof *s);
  if (!s) return irm_error_nomem_("making a timing instrument");
  atomic_init(&s->head.refs, 1);
  s->head.drop = drop_state;
  s->first_root = s->last_root = NO_RECORD;
  pthread_mutex_init(&s->lock, NULL);
  irm_hooks_ hooks = {NULL, on_exit_hook, NULL, on_before, on_after, on_failed};
  /* The state stays alive while *out lives: the hooks hold it. */
  int rc = irm_instrument_from_hooks_("PassTimingInstrument", &hooks, &s->head, out);
  if (rc) return rc;
  pthread_mutex_lock(&registry_lock);
  s->owner = *out;
  s->next_state = registry_head;
  registry_head = s;
  pthread_mutex_unlock(&registry_lock);
  return IRM_OK;
}

int irm_timing_render(const irm_instrument *timing, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_timing_render: out must not be NULL");
  *out = NULL;
  if (!timing) return irm_error(IRM_EVALUE, "irm_timing_render: the instrument must not be NULL");
  /* The registry lock is held throughout so the state cannot be dropped. */
  pthread_mutex_lock(&registry_lock);
  timing_state *s = registry_head;
  while (s && s->owner != timing) s = s->next_state;
  int rc;
  if (!s) {
    const char *name = irm_object_is(timing, "ffi.Function") ? "a Function" : irm_object_type_key(timing);
    rc = irm_error(IRM_ETYPE, "expected a timing instrument (from transform.PassTimingInstrument), got %s",
                   name ? name : "an unknown object");
  } else {
    pthread_mutex_lock(&s->lock);
    rc = render_locked(s, out);
    pthread_mutex_unlock(&s->lock);
  }
  pthread_mutex_unlock(&registry_lock);
  return rc;
}

/* ---- the state ----------------------------------------------------------------- */

static void drop_state(void *state) {
  timing_state *s = state;
  pthread_mutex_lock(&registry_lock);
  for (timing_state **p = &registry_head; *p; p = &(*p)->next_state) {
    if (*p == s) {
      *p = s->next_state;
      break;
    }
  }
  pthread_mutex_unlock(&registry_lock);
  clear_records(s);
  irm_free(s->recs);
  irm_free(s->stacks);
  pthread_mutex_destroy(&s->lock);
  irm_free(s);
}

/* Forgets every record and open stack; keeps the buffers. */
static void clear_records(timing_state *s) {
  for (size_t i = 0; i < s->n_recs; i++) irm_free(s->recs[i].name);
  for (size_t i = 0; i < s->n_stacks; i++) irm_free(s->stacks[i].at);
  s->n_recs = s->n_stacks = 0;
  s->first_root = s->last_root = NO_RECORD;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The calling thread's open stack, added when absent (NULL: out of memory). */
static open_stack *thread_stack(timing_state *s, int add) {
  pthread_t self = pthread_self();
  for (size_t i = 0; i < s->n_stacks; i++)
    if (pthread_equal(s->stacks[i].thread, self)) return &s->stacks[i];
  if (!add) return NULL;
  if (s->n_stacks == s->cap_stacks) {
    size_t cap = s->cap_stacks ? 2 * s->cap_stacks : 4;
    open_stack *grown = irm_realloc(s->stacks, cap * sizeof *grown);
    if (!grown) return NULL;
    s->stacks = grown;
    s->cap_stacks = cap;
  }
  open_stack *st = &s->stacks[s->n_stacks++];
  memset(st, 0, sizeof *st);
  st->thread = self;
  return st;
}

/* A thread whose stack emptied leaves the list, so threads do not pile up. */
static void drop_empty_stack(timing_state *s, open_stack *st) {
  if (st->n) return;
  irm_free(st->at);
  *st = s->stacks[--s->n_stacks];
}

/* Opens a record for name under the thread's innermost open record. */
static int open_record(timing_state *s, const char *name, uint64_t start) {
  open_stack *st = thread_stack(s, 1);
  if (!st) return IRM_ENOMEM;
  if (st->n == st->cap) {
    size_t cap = st->cap ? 2 * st->cap : 8;
    size_t *grown = irm_realloc(st->at, cap * sizeof *grown);
    if (!grown) return IRM_ENOMEM;
    st->at = grown;
    st->cap = cap;
  }
  if (s->n_recs == s->cap_recs) {
    size_t cap = s->cap_recs ? 2 * s->cap_recs : 16;
    record *grown = irm_realloc(s->recs, cap * sizeof *grown);
    if (!grown) return IRM_ENOMEM;
    s->recs = grown;
    s->cap_recs = cap;
  }
  char *copy = irm_strdup(name);
  if (!copy) return IRM_ENOMEM;
  size_t id = s->n_recs++;
  record *r = &s->recs[id];
  *r = (record){copy, start, 0, 0, 0, 0, NO_RECORD, NO_RECORD, NO_RECORD, NO_RECORD};
  if (st->n) {
    record *parent = &s->recs[st->at[st->n - 1]];
    r->parent = st->at[st->n - 1];
    r->depth = parent->depth + 1;
    if (parent->last_child == NO_RECORD) parent->first_child = id;
    else s->recs[parent->last_child].next = id;
    parent->last_child = id;
  } else {
    if (s->last_root == NO_RECORD) s->first_root = id;
    else s->recs[s->last_root].next = id;
    s->last_root = id;
  }
  st->at[st->n++] = id;
  return IRM_OK;
}

/* Closes the thread's innermost open record called name. Records above it
 * belong to passes that failed (their after hooks never ran): they are
 * popped and stay unfinished. */
static void close_record(timing_state *s, const char *name, uint64_t end, int failed) {
  open_stack *st = thread_stack(s, 0);
  if (!st) return;
  size_t k = st->n;
  while (k > 0 && strcmp(s->recs[st->at[k - 1]].name, name) != 0) k--;
  if (k == 0) return; /* opened before the records were cleared */
  record *r = &s->recs[st->at[k - 1]];
  r->total = end > r->start ? end - r->start : 0;
  r->done = 1;
  r->failed = failed;
  st->n = k - 1;
  drop_empty_stack(s, st);
}

/* ---- hooks ------------------------------------------------------------------------ */

static int on_exit_hook(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)nargs;
  (void)ret;
  timing_state *s = res;
  pthread_mutex_lock(&s->lock);
  clear_records(s);
  pthread_mutex_unlock(&s->lock);
  return IRM_OK;
}

static int on_before(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  timing_state *s = res;
  const char *name = irm_hook_pass_name_(args, nargs);
  uint64_t start = now_ns();
  pthread_mutex_lock(&s->lock);
  int rc = open_record(s, name, start);
  pthread_mutex_unlock(&s->lock);
  return rc ? irm_error_nomem_("recording a pass's time") : IRM_OK;
}

static int on_after(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  timing_state *s = res;
  uint64_t end = now_ns();
  const char *name = irm_hook_pass_name_(args, nargs);
  pthread_mutex_lock(&s->lock);
  close_record(s, name, end, 0);
  pthread_mutex_unlock(&s->lock);
  return IRM_OK;
}

static int on_failed(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  timing_state *s = res;
  uint64_t end = now_ns();
  const char *name = irm_hook_pass_name_(args, nargs);
  pthread_mutex_lock(&s->lock);
  close_record(s, name, end, 1);
  pthread_mutex_unlock(&s->lock);
  return IRM_OK;
}

/* ---- the report ---------------------------------------------------------------------- */

static double percent(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }

/* The time of a record's finished children. */
static uint64_t children_time(const timing_state *s, const record *r) {
  uint64_t sum = 0;
  for (size_t c = r->first_child; c != NO_RECORD; c = s->recs[c].next)
    if (s->recs[c].done) sum += s->recs[c].total;
  return sum;
}

static void render_line(const timing_state *s, const record *r, uint64_t grand, irm_text_buf *t) {
  irm_text_buf_printf_(t, "%*s%s: ", (int)(2 * r->depth), "", r->name);
  if (!r->done) {
    irm_text_buf_puts_(t, "did not finish\n");
    return;
  }
  uint64_t kids = children_time(s, r);
  uint64_t self = r->total > kids ? r->total - kids : 0;
  uint64_t parent = r->parent == NO_RECORD ? grand : s->recs[r->parent].total;
  irm_text_buf_printf_(t, "%.3fms [self %.3fms] (%.2f%% of total, %.2f%% of parent)%s\n", (double)r->total / 1e6,
                       (double)self / 1e6, percent(r->total, grand), percent(r->total, parent),
                       r->failed ? " failed" : "");
}

/* Walks the tree in order without recursion: down to the first child, else
 * across to the next sibling, else up until a sibling is found. */
static int render_locked(const timing_state *s, irm_object **out) {
  uint64_t grand = 0;
  for (size_t r = s->first_root; r != NO_RECORD; r = s->recs[r].next)
    if (s->recs[r].done) grand += s->recs[r].total;
  irm_text_buf t = {0};
  size_t at = s->first_root;
  while (at != NO_RECORD) {
    const record *r = &s->recs[at];
    render_line(s, r, grand, &t);
    if (r->first_child != NO_RECORD) {
      at = r->first_child;
      continue;
    }
    while (at != NO_RECORD && s->recs[at].next == NO_RECORD) at = s->recs[at].parent;
    if (at != NO_RECORD) at = s->recs[at].next;
  }
  return irm_text_buf_take_string_(&t, "rendering the timing report", out);
}
