/* The per-thread cache of walk stacks (registry/internal/walk_stack.h). */
#include "walk_stack.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* A kept buffer: bytes long, from the allocator whose free function is
 * free_fn. */
typedef struct kept {
  void *buf;
  size_t bytes;
  irm_free_fn free_fn;
} kept;

enum { KEPT_SLOTS = IRM_WALK_STACK_KEPT_ };
typedef struct kept_set {
  kept slot[KEPT_SLOTS];
} kept_set;

static _Thread_local kept_set tls_kept;
/* Set once the thread's key value is set, so that its exit frees tls_kept. */
static _Thread_local bool tls_registered;

static pthread_key_t kept_key;
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;
static bool key_ok;
/* Set by the exit handler: from then on buffers are freed, not kept. */
static atomic_bool exiting;

static void drop(kept *k) {
  if (k->buf) k->free_fn(k->buf);
  k->buf = NULL;
  k->bytes = 0;
  k->free_fn = NULL;
}

static void drop_all(kept_set *s) {
  for (int i = 0; i < KEPT_SLOTS; i++) drop(&s->slot[i]);
}

/* The pthread key's destructor, on a thread's exit. */
static void thread_exit(void *p) {
  drop_all(p);
  tls_registered = false;
}

/* The exit handler: the exiting thread (the main thread, as a rule) never
 * runs its key destructor. */
static void process_exit(void) {
  atomic_store(&exiting, true);
  drop_all(&tls_kept);
}

static void init_once(void) { key_ok = pthread_key_create(&kept_key, thread_exit) == 0 && atexit(process_exit) == 0; }

/* The thread's buffers, usable with the allocator now in place: a buffer
 * from another allocator is freed with its own free function. */
static kept_set *current(irm_free_fn now) {
  kept_set *s = &tls_kept;
  for (int i = 0; i < KEPT_SLOTS; i++)
    if (s->slot[i].buf && s->slot[i].free_fn != now) drop(&s->slot[i]);
  return s;
}

/* The slot of the largest buffer kept (its buf NULL when none is), or of
 * the smallest (an empty one first). */
static kept *pick(kept_set *s, bool largest) {
  kept *best = &s->slot[0];
  for (int i = 1; i < KEPT_SLOTS; i++) {
    kept *k = &s->slot[i];
    if (largest ? (k->buf && (!best->buf || k->bytes > best->bytes))
                : (!k->buf ? best->buf != NULL : best->buf && k->bytes < best->bytes))
      best = k;
  }
  return best;
}

void *irm_walk_stack_take_(size_t elem_size, size_t min, size_t *cap) {
  void *buf = NULL;
  size_t bytes = 0;
  irm_free_fn now = irm_alloc_default_free_();
  kept *k = pick(current(now), true);
  if (now && k->buf) {
    buf = k->buf;
    bytes = k->bytes;
    k->buf = NULL;
    k->bytes = 0;
    k->free_fn = NULL;
  }
  if (bytes / elem_size < min) {
    void *grown = min > SIZE_MAX / elem_size ? NULL : irm_realloc(buf, min * elem_size);
    if (!grown) {
      irm_walk_stack_give_(buf, 1, bytes);
      *cap = 0;
      return NULL;
    }
    buf = grown;
    bytes = min * elem_size;
  }
  *cap = bytes / elem_size;
  return buf;
}

void irm_walk_stack_give_(void *buf, size_t elem_size, size_t cap) {
  if (!buf) return;
  size_t bytes = cap * elem_size;
  irm_free_fn now = irm_alloc_default_free_();
  kept *k = pick(current(now), false);
  if (!now || bytes > IRM_WALK_STACK_KEEP_MAX_ || (k->buf && bytes <= k->bytes) ||
      atomic_load_explicit(&exiting, memory_order_relaxed)) {
    irm_free(buf);
    return;
  }
  if (!tls_registered) {
    pthread_once(&kept_once, init_once);
    if (!key_ok || pthread_setspecific(kept_key, &tls_kept) != 0) {
      irm_free(buf);
      return;
    }
    tls_registered = true;
  }
  drop(k); /* the smallest one, when every slot is taken */
  k->buf = buf;
  k->bytes = bytes;
  k->free_fn = now;
}

void irm_walk_stack_drop_(void) { drop_all(&tls_kept); }
