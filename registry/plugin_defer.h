/* Private to libirm: registrations made by a plugin's constructors.
 *
 * While the loader dlopens a plugin it points this thread's deferral queue
 * at a list of its own. The static registration functions behind the
 * IRM_REGISTER_* macros (global.c, native.c, kind.c, pass_registry.c) then
 * queue their registration instead of doing it, and the loader replays the
 * queue inside the plugin's registration journal, right before init, so a
 * failed load undoes them too. The queue is per thread, so two threads may
 * load different plugins at once. */
#ifndef IRM_REGISTRY_PLUGIN_DEFER_H
#define IRM_REGISTRY_PLUGIN_DEFER_H

#include "irm/function.h"
#include "irm/kind.h"
#include "irm_internal.h"

typedef struct irm_plugin_defer irm_plugin_defer;

/* ---- the registration side: each returns 1 when the registration was
 * queued (*rc its status: 0, or MemoryError), 0 when no plugin is being
 * opened on this thread and the caller should register at once. ---- */
int irm_plugin_defer_packed_(const char *name, irm_packed_cfunc fn, int *rc);
int irm_plugin_defer_native_(const char *name, irm_native_fn fn, const char *signature, int *rc);
int irm_plugin_defer_kind_(const char *category, const char *name, irm_kind_setup_fn setup, int *rc);
/* For registrations of upper layers (passes): irm_plugin_defer_call_, in
 * irm_internal.h. */

/* ---- the loader side ---- */

/* A new, empty queue; NULL when out of memory. */
irm_plugin_defer *irm_plugin_defer_new_(void);

/* Makes q this thread's queue and returns the previous one (a plugin whose
 * init loads another plugin nests); restore it with irm_plugin_defer_set_. */
irm_plugin_defer *irm_plugin_defer_set_(irm_plugin_defer *q);

/* Nonzero when a registration could not be queued (out of memory): the
 * load must fail. */
int irm_plugin_defer_failed_(const irm_plugin_defer *q);

/* Performs the queued registrations in order (the queue is kept, so a
 * later load of the same library can replay it). Stops at the first
 * failure, whose message names the registration. */
int irm_plugin_defer_run_(const irm_plugin_defer *q);

/* Frees q (NULL ignored). */
void irm_plugin_defer_free_(irm_plugin_defer *q);

#endif
