/* The registration journal: per-thread stacks of undo records. */
#include "error_internal.h"
#include "irm/alloc.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "journal_internal.h"

typedef struct record {
  void (*undo)(void *data);
  void (*dispose)(void *data);
  void *data;
} record;

struct irm_journal {
  irm_journal *outer;
  record *records;
  size_t size, capacity;
};

static _Thread_local irm_journal *innermost;
static _Thread_local int paused;

void irm_journal_pause_(void) { paused++; }
void irm_journal_resume_(void) { paused--; }

int irm_journal_active(void) { return innermost != NULL && paused == 0; }

int irm_journal_open(irm_journal **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_journal_open: out must not be NULL");
  irm_journal *j = irm_calloc(1, sizeof *j);
  if (!j) return irm_error_nomem_("opening a registration journal");
  j->outer = innermost;
  innermost = j;
  *out = j;
  return IRM_OK;
}

size_t irm_journal_size(const irm_journal *j) { return j ? j->size : 0; }

static int reserve(irm_journal *j, size_t extra) {
  if (j->size + extra <= j->capacity) return IRM_OK;
  size_t cap = j->capacity ? j->capacity * 2 : 16;
  while (cap < j->size + extra) cap *= 2;
  record *r = irm_realloc(j->records, cap * sizeof *r);
  if (!r) return irm_error_nomem_("recording a registration in the journal");
  j->records = r;
  j->capacity = cap;
  return IRM_OK;
}

int irm_journal_reserve_(size_t n) { return irm_journal_active() ? reserve(innermost, n) : IRM_OK; }

int irm_journal_record(void (*undo)(void *), void (*dispose)(void *), void *data) {
  if (!undo) {
    if (dispose) dispose(data);
    return irm_error(IRM_EVALUE, "irm_journal_record: undo must not be NULL");
  }
  if (!irm_journal_active()) {
    if (dispose) dispose(data);
    return IRM_OK;
  }
  int rc = reserve(innermost, 1);
  if (rc) {
    if (dispose) dispose(data);
    return rc;
  }
  innermost->records[innermost->size++] = (record){undo, dispose, data};
  return IRM_OK;
}

static int check_innermost(const char *fn, const irm_journal *j) {
  if (!j) return irm_error(IRM_EVALUE, "%s: journal must not be NULL", fn);
  if (j != innermost)
    return irm_error(IRM_ERUNTIME,
                     "%s: the journal is not the innermost one open on this thread; "
                     "close journals in the reverse order of opening them",
                     fn);
  return IRM_OK;
}

static void journal_free(irm_journal *j) {
  irm_free(j->records);
  irm_free(j);
}

int irm_journal_commit(irm_journal *j) {
  int rc = check_innermost("irm_journal_commit", j);
  if (rc) return rc;
  irm_journal *outer = j->outer;
  if (outer) {
    /* The enclosing journal inherits the records, so rolling it back
     * undoes these too. */
    if ((rc = reserve(outer, j->size))) return rc;
    for (size_t i = 0; i < j->size; i++) outer->records[outer->size++] = j->records[i];
  } else {
    for (size_t i = 0; i < j->size; i++)
      if (j->records[i].dispose) j->records[i].dispose(j->records[i].data);
  }
  innermost = outer;
  journal_free(j);
  return IRM_OK;
}

int irm_journal_rollback(irm_journal *j) {
  int rc = check_innermost("irm_journal_rollback", j);
  if (rc) return rc;
  innermost = j->outer;
  paused++; /* undoing must not record anything */
  for (size_t i = j->size; i-- > 0;) {
    record *r = &j->records[i];
    r->undo(r->data);
    if (r->dispose) r->dispose(r->data);
  }
  paused--;
  journal_free(j);
  return IRM_OK;
}
