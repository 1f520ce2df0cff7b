/* Private to libirm: error helpers. irm_error_nomem_ is declared in
 * irm_internal.h (upper layers use it); the per-thread error generation that
 * the inline call path reads is in irm/function.h. */
#ifndef IRM_REGISTRY_ERROR_INTERNAL_H
#define IRM_REGISTRY_ERROR_INTERNAL_H

#include "irm/function.h"
#include "irm_internal.h"

/* The next of the thread-local buffers that irm_error_quote returns
 * (*size: its size, at least IRM_ERROR_QUOTE_MAX + 16), for another text
 * that one message quotes (irm_any_describe_). */
char *irm_error_slot_(size_t *size);

#endif
