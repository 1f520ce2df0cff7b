/* Private to libirm: the per-thread error generation, read on hot paths. */
#ifndef IRM_REGISTRY_ERROR_INTERNAL_H
#define IRM_REGISTRY_ERROR_INTERNAL_H

#include "irm/function.h" /* irm_error_generation_, read inline by callers */

/* "MemoryError: out of memory <what>"; returns IRM_ENOMEM. */
int irm_error_nomem_(const char *what);

#endif
