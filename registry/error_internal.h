/* Private to libirm: error helpers. irm_error_nomem_ is declared in
 * irm_internal.h (upper layers use it); the per-thread error generation that
 * the inline call path reads is in irm/function.h. */
#ifndef IRM_REGISTRY_ERROR_INTERNAL_H
#define IRM_REGISTRY_ERROR_INTERNAL_H

#include "irm/function.h"
#include "irm_internal.h"

#endif
