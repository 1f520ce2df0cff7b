/* Private to libirm: pausing the registration journal. */
#ifndef IRM_REGISTRY_JOURNAL_INTERNAL_H
#define IRM_REGISTRY_JOURNAL_INTERNAL_H

#include <stddef.h>

/* Built-in registrations run lazily, possibly while the user has a journal
 * open; they must not be recorded in it (a rollback would remove built-ins).
 * Calls nest. */
void irm_journal_pause_(void);
void irm_journal_resume_(void);

/* Makes room for n more records in the innermost journal, so a registry
 * can record after changing itself without a failure in between. 0 when no
 * journal records. */
int irm_journal_reserve_(size_t n);

#endif
