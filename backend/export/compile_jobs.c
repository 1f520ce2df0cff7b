/* The units of an export compiled at once (export_internal.h): a pool of
 * threads, each taking the next unit, looking its object up in the build
 * cache and else running the compiler on it (and storing the object).
 * Units are taken longest first: the assembler units (a params blob of
 * megabytes, taken last it ran alone after every C unit: 0.1 s of a
 * 0.35 s build), then the C units by size. A
 * failure stops new compiles; the first failing unit (in unit order) is
 * reported with the compiler's first error line. Progress, when asked
 * for, is one line on stderr redrawn in place. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "export_internal.h"
#include "irm/alloc.h"
#include "irm/build_cache.h"
#include "irm/error.h"

typedef struct job_ {
  int status; /* 0 ok, else the compiler's exit status (-1: could not run) */
  irm_text_buf output;
  char *command;
} job_;

typedef struct pool_ {
  export_unit_ *units;
  size_t n;
  export_compile_ *c;
  job_ *jobs;
  size_t *order; /* the units in the order they are taken */
  atomic_size_t next, done, hits;
  atomic_int failed, oom;
  pthread_mutex_t lock; /* progress drawing */
} pool_;

static void progress(pool_ *p) {
  if (!p->c->progress) return;
  pthread_mutex_lock(&p->lock);
  fprintf(stderr, "\rirm: compiling %zu/%zu units (%zu from the cache)", atomic_load(&p->done), p->n,
          atomic_load(&p->hits));
  fflush(stderr);
  pthread_mutex_unlock(&p->lock);
}

/* Runs cmd through sh; its output into out. The exit status, -1 when it
 * cannot run. */
static int run(const char *cmd, irm_text_buf *out) {
  FILE *f = popen(cmd, "r");
  if (!f) {
    irm_text_buf_printf_(out, "cannot run the compiler: %s\n", strerror(errno));
    return -1;
  }
  char chunk[1024];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    if (out->len < 64000) irm_text_buf_append_(out, chunk, n);
  int status = pclose(f);
  return status == 0 ? 0 : WIFEXITED(status) ? WEXITSTATUS(status) ? WEXITSTATUS(status) : -1 : -1;
}

static void key_of(const export_unit_ *u, const export_compile_ *c, char key[65]) {
  const void *parts[] = {u->text, c->headers, c->identity, c->flags, u->opt};
  size_t sizes[] = {u->size, strlen(c->headers), strlen(c->identity), strlen(c->flags), strlen(u->opt)};
  irm_build_cache_key(parts, sizes, 5, key);
}

static void one(pool_ *p, size_t i) {
  export_unit_ *u = &p->units[i];
  job_ *j = &p->jobs[i];
  export_compile_ *c = p->c;
  irm_text_buf path, cmd;
  irm_text_buf_init_(&path, NULL, 0);
  irm_text_buf_init_(&cmd, NULL, 0);
  irm_text_buf_printf_(&path, "%s/%s.o", c->dir, u->name);
  char key[65];
  int cached = c->cache != NULL && !u->uncached; /* the params blob: assembled while the C compiles, not stored */
  if (cached) key_of(u, c, key);
  irm_build_cache_status st = IRM_BUILD_CACHE_MISS;
  if (cached && !path.failed && irm_build_cache_fetch(c->cache, key, irm_text_buf_cstr_(&path), &st) != IRM_OK) {
    irm_clear_error(); /* an object that cannot be fetched is compiled */
    st = IRM_BUILD_CACHE_MISS;
  }
  if (st == IRM_BUILD_CACHE_HIT) atomic_fetch_add(&p->hits, 1);
  else {
    irm_text_buf_puts_(&cmd, "cd ");
    irm_export_quote_(&cmd, c->dir);
    irm_text_buf_printf_(&cmd, " && %s %s%s -c ", c->cc, c->flags, u->opt);
    irm_export_quote_(&cmd, u->name);
    irm_text_buf_puts_(&cmd, " -o ");
    irm_export_quote_(&cmd, irm_text_buf_cstr_(&path));
    irm_text_buf_puts_(&cmd, " 2>&1");
    if (cmd.failed) atomic_store(&p->oom, 1);
    else {
      j->status = run(irm_text_buf_cstr_(&cmd), &j->output);
      if (j->status) atomic_store(&p->failed, 1);
      else if (cached && irm_build_cache_store(c->cache, key, irm_text_buf_cstr_(&path)) != IRM_OK)
        irm_clear_error(); /* not stored: the next build compiles it again */
      irm_text_buf_take_cstr_(&cmd, "for the command", &j->command);
    }
  }
  irm_text_buf_free_(&path);
  irm_text_buf_free_(&cmd);
  atomic_fetch_add(&p->done, 1);
  progress(p);
}

static void *worker(void *arg) {
  pool_ *p = arg;
  for (;;) {
    if (atomic_load(&p->failed) || atomic_load(&p->oom)) break; /* fail fast */
    size_t i = atomic_fetch_add(&p->next, 1);
    if (i >= p->n) break;
    one(p, p->order[i]);
  }
  return NULL;
}

/* The compiler's first error line of output (else its first line). */
static void first_error(const char *out, char *line, size_t size) {
  const char *s = strstr(out, "error");
  if (s)
    while (s > out && s[-1] != '\n') s--;
  else s = out;
  size_t n = strcspn(s, "\n");
  snprintf(line, size, "%.*s", (int)n, s);
}

typedef struct ranked_ {
  int assembler;
  size_t size, index;
} ranked_;

/* Assembler units first, then larger C units first; else unit order. */
static int by_cost(const void *a, const void *b) {
  const ranked_ *x = a, *y = b;
  if (x->assembler != y->assembler) return x->assembler ? -1 : 1;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return x->index < y->index ? -1 : 1;
}

/* order[k]: the k-th unit to take; NEW (irm_free), NULL when out of memory. */
static size_t *schedule(const export_unit_ *units, size_t n) {
  ranked_ *r = irm_calloc(n + 1, sizeof *r);
  size_t *order = irm_calloc(n + 1, sizeof *order);
  if (!r || !order) {
    irm_free(r);
    irm_free(order);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) r[i] = (ranked_){units[i].uncached, units[i].size, i};
  qsort(r, n, sizeof *r, by_cost);
  for (size_t i = 0; i < n; i++) order[i] = r[i].index;
  irm_free(r);
  return order;
}

int irm_export_compile_units_(export_unit_ *units, size_t n, export_compile_ *c) {
  pool_ p = {units, n, c, irm_calloc(n + 1, sizeof(job_)), schedule(units, n), 0, 0,
             0,     0, 0, PTHREAD_MUTEX_INITIALIZER};
  if (!p.jobs || !p.order) {
    irm_free(p.jobs);
    irm_free(p.order);
    return irm_error(IRM_ENOMEM, "export_library: out of memory");
  }
  for (size_t i = 0; i < n; i++) irm_text_buf_init_(&p.jobs[i].output, NULL, 0);
  size_t threads = c->jobs < 1 ? 1 : (size_t)c->jobs;
  if (threads > n) threads = n ? n : 1;
  pthread_t *tid = irm_calloc(threads, sizeof *tid);
  size_t started = 0;
  for (; tid && started + 1 < threads; started++) /* this thread is the last worker */
    if (pthread_create(&tid[started], NULL, worker, &p) != 0) break;
  worker(&p);
  for (size_t t = 0; t < started; t++) pthread_join(tid[t], NULL);
  irm_free(tid);
  if (c->progress) fputc('\n', stderr);
  int rc = atomic_load(&p.oom) ? irm_error(IRM_ENOMEM, "export_library: out of memory") : IRM_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    if (!p.jobs[i].status) continue;
    char line[512];
    const char *out = irm_text_buf_cstr_(&p.jobs[i].output);
    first_error(out, line, sizeof line);
    rc = irm_error(IRM_ERUNTIME, "export_library: the compiler failed on '%s' (exit status %d): %s\ncommand: %s\n%s",
                   units[i].name, p.jobs[i].status, line, p.jobs[i].command ? p.jobs[i].command : "", out);
  }
  c->hits = atomic_load(&p.hits);
  c->compiled = atomic_load(&p.done) - c->hits;
  for (size_t i = 0; i < n; i++) {
    irm_text_buf_free_(&p.jobs[i].output);
    irm_free(p.jobs[i].command);
  }
  irm_free(p.jobs);
  irm_free(p.order);
  pthread_mutex_destroy(&p.lock);
  return rc;
}
