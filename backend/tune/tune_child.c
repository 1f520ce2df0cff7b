/* A measured run of an exported task library in a child process
 * (tune_run.h): a crash, a hang or a bad return code of the candidate's
 * code stays in the child. The library is loaded in the parent (its
 * generated code has no constructors: nothing of the candidate runs
 * there) and the child only calls it and reads the clock, so the child
 * touches no lock another thread of the parent might have held at the
 * fork. Outputs and timings come back through shared memory. */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "irm/alloc.h"
#include "irm/error.h"
#include "tune_run.h"

/* What the child writes at the start of the shared block. */
typedef struct shared_head {
  int32_t rc;   /* the entry point's return code */
  int32_t done; /* 1 once the child wrote everything (its exit status may be lost: SIGCHLD ignored) */
  double best, worst;
} shared_head;

#define ALIGN_ 64

typedef int32_t (*run_fn)(void *inputs, void *outputs);

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t round_up(size_t n) { return (n + ALIGN_ - 1) / ALIGN_ * ALIGN_; }

/* Evicts inputs 1.. (the weights: in a network each is read once an
 * inference, from memory, while the data was just written by the kernel
 * before) from every cache level, as TVM's cache_flush_cpu_non_first_arg
 * does: a kernel measured warm can win with a schedule that loses in the
 * network (a Winograd choice at 7x7 did, 1.03x slower). Elsewhere than
 * x86 (with SSE2) and AArch64 it does nothing. */
static void flush_inputs(const irm_tune_run_spec_ *s) {
  for (size_t i = 1; i < s->n_in; i++) {
    const char *p = s->in[i], *end = p + s->in_bytes[i];
    for (; p < end; p += ALIGN_) {
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
      __builtin_ia32_clflush(p);
#elif defined(__aarch64__)
      __asm__ volatile("dc civac, %0" : : "r"(p) : "memory");
#endif
    }
  }
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
  __builtin_ia32_mfence();
#elif defined(__aarch64__)
  __asm__ volatile("dsb ish" : : : "memory");
#endif
}

/* The child: one run for the outputs, the warm-up, then the timed
 * batches. Exits 0, or 3 when the entry point failed (its code in head). */
static _Noreturn void child(const irm_tune_run_spec_ *s, run_fn run, void **in, void **out, shared_head *head) {
  /* a fault kills the child by its signal, whatever handler the host
   * installed (a sanitizer's, a language runtime's) */
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP};
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) sigaction(fatal[i], &dfl, NULL);
  if (s->cpu >= 0) { /* one measurement per core: the runner gives each its own */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)s->cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
  }
  int32_t rc = run(in, out);
  for (int64_t i = 0; !rc && i < s->warmup; i++) rc = run(in, out);
  head->best = head->worst = 0;
  for (int64_t b = 0; !rc && b < s->repeat; b++) {
    double t0 = now_s(), t = 0;
    int64_t runs = 0;
    do { /* at least one run, then until the batch lasted min_repeat_ms */
      if (s->flush) {
        flush_inputs(s);
        double r0 = now_s();
        rc = run(in, out);
        t += now_s() - r0;
      } else {
        rc = run(in, out);
        t = now_s() - t0;
      }
      runs++;
    } while (!rc && t * 1e3 < (double)s->min_repeat_ms);
    double per = t / (double)runs;
    if (b == 0 || per < head->best) head->best = per;
    if (b == 0 || per > head->worst) head->worst = per;
  }
  head->rc = rc;
  head->done = 1;
  _exit(rc ? 3 : 0);
}

static const char *signal_name(int sig) {
  switch (sig) {
  case SIGSEGV: return "SIGSEGV (a bad memory access)";
  case SIGBUS: return "SIGBUS (a bad memory access)";
  case SIGFPE: return "SIGFPE (an arithmetic error)";
  case SIGILL: return "SIGILL (an illegal instruction)";
  case SIGABRT: return "SIGABRT (an abort)";
  case SIGTRAP: return "SIGTRAP (a trap)";
  case SIGKILL: return "SIGKILL";
  default: return "a signal";
  }
}

/* Waits for the child pid at most timeout seconds, killing it past
 * that; *status its wait status; 1 when it timed out. Polled (a pipe's
 * end would be held too by children other threads fork meanwhile). */
static int wait_child(pid_t pid, double timeout, int *status) {
  double end = now_s() + timeout, step = 2e-4;
  for (;;) {
    pid_t got = waitpid(pid, status, WNOHANG);
    if (got == pid || (got < 0 && errno != EINTR)) return 0;
    double left = end - now_s();
    if (left <= 0) break;
    double nap = step < left ? step : left;
    struct timespec ts = {(time_t)nap, (long)((nap - (double)(time_t)nap) * 1e9)};
    nanosleep(&ts, NULL);
    if (step < 0.01) step *= 2;
  }
  kill(pid, SIGKILL);
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
  return 1;
}

int irm_tune_run_(const irm_tune_run_spec_ *s, irm_tune_run_result_ *r) {
  memset(r, 0, sizeof *r);
  char sym[256];
  snprintf(sym, sizeof sym, "tvmgen_%s_run", s->mod_name);
  void *lib = dlopen(s->library, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    r->kind = IRM_TUNE_RUN_FAILED;
    snprintf(r->error, sizeof r->error, "cannot load '%s': %s", s->library, dlerror());
    return IRM_OK;
  }
  run_fn run = NULL;
  void *f = dlsym(lib, sym);
  memcpy(&run, &f, sizeof run); /* POSIX: a data pointer to a function pointer */
  size_t total = round_up(sizeof(shared_head));
  for (size_t i = 0; i < s->n_out; i++) total += round_up(s->out_bytes[i]);
  void **ptrs = irm_calloc(s->n_in + s->n_out + 1, sizeof *ptrs);
  void *block = MAP_FAILED;
  int rc = IRM_OK;
  if (!run) {
    r->kind = IRM_TUNE_RUN_FAILED;
    snprintf(r->error, sizeof r->error, "'%s' has no %s", s->library, sym);
  } else if (!ptrs) rc = irm_error(IRM_ENOMEM, "out of memory measuring");
  else if ((block = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
    rc = irm_error(IRM_ERUNTIME, "cannot map %zu bytes of shared memory: %s", total, strerror(errno));
  if (!rc && run) {
    shared_head *head = block;
    char *at = (char *)block + round_up(sizeof *head);
    for (size_t i = 0; i < s->n_in; i++) ptrs[i] = s->in[i];
    for (size_t i = 0; i < s->n_out; i++, at += round_up(s->out_bytes[i - 1])) ptrs[s->n_in + i] = at;
    head->rc = -100; /* unset: the child died before writing it */
    head->done = 0;
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) child(s, run, ptrs, ptrs + s->n_in, head);
    if (pid < 0) rc = irm_error(IRM_ERUNTIME, "cannot start a measuring process: %s", strerror(errno));
    int status = 0;
    if (!rc && wait_child(pid, s->timeout, &status)) {
      r->kind = IRM_TUNE_RUN_TIMEOUT;
      snprintf(r->error, sizeof r->error, "still running after the timeout of %g s: killed", s->timeout);
    } else if (!rc && WIFSIGNALED(status)) {
      r->kind = IRM_TUNE_RUN_CRASH;
      snprintf(r->error, sizeof r->error, "the run was killed by signal %d, %s", WTERMSIG(status),
               signal_name(WTERMSIG(status)));
    } else if (!rc && !head->done) { /* no status (a process ignoring SIGCHLD reaps its children) */
      r->kind = IRM_TUNE_RUN_CRASH;
      snprintf(r->error, sizeof r->error, "the run ended without a result (exit status %d)",
               WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    } else if (!rc && (!WIFEXITED(status) || WEXITSTATUS(status))) {
      r->kind = IRM_TUNE_RUN_CRASH;
      snprintf(r->error, sizeof r->error, "the run failed: the entry point returned %d", (int)head->rc);
    } else if (!rc) {
      r->mean = head->best;
      r->spread = head->worst - head->best;
      for (size_t i = 0; i < s->n_out; i++) memcpy(s->out[i], ptrs[s->n_in + i], s->out_bytes[i]);
    }
    r->seconds = now_s() - t0;
  }
  if (block != MAP_FAILED) munmap(block, total);
  irm_free(ptrs);
  dlclose(lib);
  return rc;
}
