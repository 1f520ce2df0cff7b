/* Private to libirm: pausing the registration journal and reserving room
 * in it. Declared in irm_internal.h, since upper layers' registries use them
 * too. */
#ifndef IRM_REGISTRY_JOURNAL_INTERNAL_H
#define IRM_REGISTRY_JOURNAL_INTERNAL_H

#include "irm_internal.h"

#endif
