/* The registration journal: undo for registries.
 *
 * A journal opened on a thread records every registration that thread makes
 * (globals, types, and later kinds, options, passes...). Rolling it back
 * undoes exactly those registrations, newest first: a registered name
 * disappears, an overridden entry comes back, a removed one returns. The
 * plugin loader runs each plugin's init inside a journal so that a failed
 * init leaves every registry as it was.
 *
 * Journals nest per thread: committing an inner journal hands its records
 * to the enclosing one, so rolling back the outer one undoes them too.
 *
 * A registry of your own can record its changes with irm_journal_record.
 *
 * Thread safety: journals belong to the thread that opened them; each thread
 * has its own stack. Undo runs take the registries' locks as usual.
 */
#ifndef IRM_JOURNAL_H
#define IRM_JOURNAL_H

#include "irm/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct irm_journal irm_journal;

/* Opens a journal on the calling thread and makes it the innermost one.
 * *out is owned by the thread until commit or rollback. Errors: ValueError
 * (NULL out), MemoryError. */
IRM_API int irm_journal_open(irm_journal **out);

/* Closes j keeping its registrations. j must be the thread's innermost
 * journal (RuntimeError otherwise, and nothing changes). Frees j.
 * Committing a nested journal moves its records to the enclosing one; if
 * that needs memory and there is none, MemoryError, and j stays open (roll
 * it back or try again). */
IRM_API int irm_journal_commit(irm_journal *j);

/* Closes j undoing its registrations, newest first. j must be the
 * innermost journal (RuntimeError otherwise). Frees j. */
IRM_API int irm_journal_rollback(irm_journal *j);

/* The number of records in j (for tests and diagnostics). */
IRM_API size_t irm_journal_size(const irm_journal *j);

/* Records one registration in the innermost open journal of this thread.
 * undo(data) reverts it on rollback; dispose(data) (may be NULL) frees data
 * once the record is no longer needed (after undo, or when the outermost
 * journal commits). With no open journal, dispose runs at once and 0 is
 * returned. On MemoryError, dispose runs and the caller must revert the
 * registration itself. */
IRM_API int irm_journal_record(void (*undo)(void *data), void (*dispose)(void *data), void *data);

/* Nonzero when registrations on this thread are being recorded. Lets a
 * registry skip building undo data nobody will use. */
IRM_API int irm_journal_active(void);

#ifdef __cplusplus
}
#endif

#endif
