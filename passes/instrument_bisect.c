/* The bisection instrument (transform.PassBisectInstrument), in the spirit
 * of LLVM's -opt-bisect-limit: should_run says yes to the first `limit`
 * passes it is asked about and no afterwards, warning for each pass it
 * stops. The runner does not ask about required passes, so they always run.
 * The count starts again each time a context with the instrument is
 * entered; a negative limit means no limit. */
#include <pthread.h>
#include <stdint.h>

#include "irm_internal.h"
#include "instrument_internal.h"
#include "irm/alloc.h"
#include "irm/error.h"

typedef struct bisect_state {
  irm_hook_state_ head; /* first */
  pthread_mutex_t lock;
  int64_t limit, asked;
} bisect_state;

static int on_enter(const irm_any *args, int32_t nargs, irm_any *ret, void *res);
static int on_should_run(const irm_any *args, int32_t nargs, irm_any *ret, void *res);
static void drop_state(void *state);

int irm_bisect_instrument_new(int64_t limit, irm_instrument **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_bisect_instrument_new: out must not be NULL");
  *out = NULL;
  bisect_state *s = irm_calloc(1, sizeof *s);
  if (!s) return irm_error_nomem_("making a bisection instrument");
  atomic_init(&s->head.refs, 1);
  s->head.drop = drop_state;
  s->limit = limit;
  pthread_mutex_init(&s->lock, NULL);
  irm_hooks_ hooks = {on_enter, NULL, on_should_run, NULL, NULL, NULL};
  return irm_instrument_from_hooks_("PassBisectInstrument", &hooks, &s->head, out);
}

static void drop_state(void *state) {
  bisect_state *s = state;
  pthread_mutex_destroy(&s->lock);
  irm_free(s);
}

static int on_enter(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)nargs;
  (void)ret;
  bisect_state *s = res;
  pthread_mutex_lock(&s->lock);
  s->asked = 0;
  pthread_mutex_unlock(&s->lock);
  return IRM_OK;
}

/* The warning goes out after the lock is released: a handler is user code. */
static int on_should_run(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  bisect_state *s = res;
  pthread_mutex_lock(&s->lock);
  int64_t n = ++s->asked;
  pthread_mutex_unlock(&s->lock);
  int run = s->limit < 0 || n <= s->limit;
  if (!run)
    irm_warn("bisect: not running pass #%lld '%s' (limit %lld)", (long long)n, irm_hook_pass_name_(args, nargs),
             (long long)s->limit);
  *ret = irm_any_bool(run);
  return IRM_OK;
}
