/* Private to libirm: one-time initialization that can fail and be retried.
 *
 * pthread_once cannot report failure: if built-in registrations run out of
 * memory, the registry would stay without them for good. irm_lazy runs its
 * init function until it succeeds once; init must be safe to run again
 * after a partial failure (skip what is already there). The type and
 * irm_lazy_run_ live in irm_internal.h, since upper layers use them too. */
#ifndef IRM_REGISTRY_LAZY_H
#define IRM_REGISTRY_LAZY_H

#include "irm_internal.h"

#endif
