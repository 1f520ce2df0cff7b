/* The queue of registrations a plugin's constructors make while it is being
 * opened (see plugin_defer.h). */
#include "plugin_defer.h"

#include <string.h>

#include "irm/alloc.h"
#include "irm/error.h"

typedef enum { DEFER_PACKED, DEFER_NATIVE, DEFER_KIND, DEFER_CALL } defer_what;

typedef struct defer_item {
  struct defer_item *next;
  defer_what what;
  char *name;
  char *extra; /* native: signature; kind: category */
  irm_packed_cfunc packed;
  irm_native_fn native;
  irm_plugin_replay_fn replay; /* DEFER_CALL: an upper layer's registration */
  void (*fn)(void);
  irm_kind_setup_fn setup;
} defer_item;

struct irm_plugin_defer {
  defer_item *head, **tail;
  int failed;
};

static _Thread_local irm_plugin_defer *current;

irm_plugin_defer *irm_plugin_defer_new_(void) {
  irm_plugin_defer *q = irm_calloc(1, sizeof *q);
  if (q) q->tail = &q->head;
  return q;
}

irm_plugin_defer *irm_plugin_defer_set_(irm_plugin_defer *q) {
  irm_plugin_defer *previous = current;
  current = q;
  return previous;
}

int irm_plugin_defer_failed_(const irm_plugin_defer *q) { return q->failed; }

void irm_plugin_defer_free_(irm_plugin_defer *q) {
  if (!q) return;
  for (defer_item *it = q->head, *next; it; it = next) {
    next = it->next;
    irm_free(it->name);
    irm_free(it->extra);
    irm_free(it);
  }
  irm_free(q);
}

static char *copy_text(const char *s, int *nomem) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *c = irm_malloc(n);
  if (c) memcpy(c, s, n);
  else *nomem = 1;
  return c;
}

/* Queues item (filled by the caller, strings still borrowed) on this
 * thread's queue. */
static int enqueue(defer_item proto, const char *name, const char *extra, int *rc) {
  irm_plugin_defer *q = current;
  if (!q) return 0;
  int nomem = 0;
  defer_item *it = irm_malloc(sizeof *it);
  if (it) {
    *it = proto;
    it->next = NULL;
    it->name = copy_text(name, &nomem);
    it->extra = copy_text(extra, &nomem);
  }
  if (!it || nomem) {
    if (it) {
      irm_free(it->name);
      irm_free(it->extra);
      irm_free(it);
    }
    q->failed = 1;
    *rc = irm_error(IRM_ENOMEM, "queueing the registration of '%s'", irm_error_quote(name));
    return 1;
  }
  *q->tail = it;
  q->tail = &it->next;
  *rc = IRM_OK;
  return 1;
}

int irm_plugin_defer_packed_(const char *name, irm_packed_cfunc fn, int *rc) {
  return enqueue((defer_item){.what = DEFER_PACKED, .packed = fn}, name, NULL, rc);
}

int irm_plugin_defer_native_(const char *name, irm_native_fn fn, const char *signature, int *rc) {
  return enqueue((defer_item){.what = DEFER_NATIVE, .native = fn}, name, signature, rc);
}

int irm_plugin_defer_kind_(const char *category, const char *name, irm_kind_setup_fn setup, int *rc) {
  return enqueue((defer_item){.what = DEFER_KIND, .setup = setup}, name, category, rc);
}

int irm_plugin_defer_call_(irm_plugin_replay_fn replay, const char *name, void (*fn)(void), irm_kind_setup_fn setup,
                           int *rc) {
  return enqueue((defer_item){.what = DEFER_CALL, .replay = replay, .fn = fn, .setup = setup}, name, NULL, rc);
}

/* ---- replay ---- */

static int register_function(const defer_item *it) {
  irm_object *f = NULL;
  int rc = it->what == DEFER_PACKED ? irm_func_new_packed(it->packed, NULL, NULL, &f)
                                    : irm_func_new_native(it->native, it->extra, &f);
  if (!rc) rc = irm_func_register_global(it->name, f, 0);
  irm_object_release(f);
  return rc ? irm_error_context(rc, "registering global '%s'", irm_error_quote(it->name)) : IRM_OK;
}

static int register_kind(const defer_item *it) {
  irm_kind *k = NULL;
  int rc = irm_kind_register(it->extra, it->name, &k);
  if (!rc && it->setup) rc = it->setup(k);
  return rc ? irm_error_context(rc, "registering %s kind '%s'", it->extra ? it->extra : "(null)",
                                irm_error_quote(it->name))
            : IRM_OK;
}

int irm_plugin_defer_run_(const irm_plugin_defer *q) {
  for (const defer_item *it = q->head; it; it = it->next) {
    int rc = it->what == DEFER_KIND   ? register_kind(it)
             : it->what == DEFER_CALL ? it->replay(it->name, it->fn, it->setup)
                                      : register_function(it);
    if (rc) return rc;
  }
  return IRM_OK;
}
