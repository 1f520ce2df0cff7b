/* bench/ir: the dataflow IR at scale. Printing and parsing the example CNN
 * and generated programs of 10 000 and 100 000 nodes, and the built-in
 * passes InferType, FoldConstant and FuseOps over chains of 1 000, 10 000
 * and 100 000 calls, each against the same process walking the same nodes
 * with irm_expr_visit (the least any pass over the program costs). One line
 * per figure: `name ns_per_node ratio visit`; then, for each subject, the
 * time at 100k over the time at 10k (aim: <= 12, i.e. linear), and that
 * growth over the walk's own growth between the same two programs.
 *
 * Why both: a 100k-node program (about 40 MB with its types and
 * attributes) does not fit this kind of machine's cache and a 10k one
 * does, so every traversal costs more per node at 100k; the bare walk
 * shows how much on the machine at hand. A subject whose growth over the
 * walk's stays <= 12 adds nothing superlinear of its own. Passes not
 * registered in this build are skipped.
 *
 * Then (alone with `--scale [N [rounds [subject]]]`) every subject at N/10 and N
 * nodes (default 1 000 000) on a chain of adds: parse, print (to a String
 * and to a sink), verify, JSON write and read, structural hash and
 * equality, the bare walk, each registered pass and a pass that changes
 * nothing (noop_pass), with N over N/10
 * (aim: <= 12); and, from a counting allocator in a child process (the
 * timings use the system's), the bytes per node of the parsed chain, the
 * peaks of parse and print, and the bytes of one typed add and of one
 * defaulted nn.conv2d call. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "dataflow_gen.h"
#include "dataflow_gen_ops.h"

static int count_node(void *ctx, irm_object *node) {
  (void)node;
  ++*(int64_t *)ctx;
  return 0;
}

/* The distinct nodes of every function of mod (walked once each). */
static int64_t visit_module(const irm_module *mod) {
  irm_object *names = NULL;
  if (irm_module_function_names(mod, &names)) bench_die("function names");
  int64_t n = 0;
  for (size_t i = 0; i < irm_array_size(names); i++) {
    irm_object *f = irm_module_function(mod, irm_string_data(irm_array_at(names, i)->v_obj));
    if (irm_expr_kind_of(f) == IRM_EXPR_FUNCTION && irm_expr_visit(f, count_node, &n)) bench_die("visit");
  }
  irm_object_release(names);
  return n;
}

typedef enum subject { PRINT, PARSE, PASS } subject;

typedef struct job {
  irm_module *mod;
  irm_object *text; /* for PARSE */
  irm_pass *pass;   /* for PASS */
} job;

static void run_subject(subject s, job *j) {
  irm_object *text = NULL;
  irm_module *out = NULL;
  if (s == PRINT) {
    if (irm_dataflow_print(j->mod, &text)) bench_die("print");
    irm_object_release(text);
  } else if (s == PARSE) {
    if (irm_dataflow_parse(irm_string_data(j->text), irm_string_size(j->text), &out)) bench_die("parse");
    irm_object_release(out);
  } else {
    if (irm_pass_run(j->pass, j->mod, &out)) bench_die(irm_pass_name(j->pass));
    irm_object_release(out);
  }
}

/* Best times (ns) for the whole program of a subject and of the walk. */
typedef struct timing {
  double subject, walk;
} timing;

/* Best ns per node of the subject and of the visit baseline, interleaved;
 * runs enough repetitions per round for ~1e5 nodes of work. Reports the
 * line and returns the best times for the whole program. */
static timing measure(const char *name, subject s, job *j) {
  int64_t nodes = visit_module(j->mod);
  long reps = nodes >= 100000 ? 1 : (long)(100000 / nodes) + 1;
  int rounds = nodes >= 100000 ? ROUNDS : ROUNDS * 2;
  double best_visit = 1e30, best = 1e30;
  int64_t sink = 0;
  run_subject(s, j); /* warm up */
  for (int r = 0; r < rounds; r++) {
    double t0 = bench_now_ns();
    for (long k = 0; k < reps; k++) sink += visit_module(j->mod);
    double t1 = bench_now_ns();
    for (long k = 0; k < reps; k++) run_subject(s, j);
    double t2 = bench_now_ns();
    bench_keep_best(&best_visit, t0, t1, (double)(reps * nodes));
    bench_keep_best(&best, t1, t2, (double)(reps * nodes));
  }
  if (sink < 0) bench_die("sink");
  char full[128];
  snprintf(full, sizeof full, "%s_%lld_nodes", name, (long long)nodes);
  bench_report(full, best, best_visit, "visit");
  fflush(stdout);
  return (timing){best * (double)nodes, best_visit * (double)nodes};
}

static void scaling(const char *name, timing t10k, timing t100k) {
  double growth = t100k.subject / t10k.subject, walk = t100k.walk / t10k.walk;
  printf("%s_100k_over_10k %.2f (aim <= 12)\n", name, growth);
  printf("%s_100k_over_10k_vs_walk %.2f (aim <= 12; the walk grew %.2f)\n", name, 10 * growth / walk, walk);
}

static void text_benchmarks(void) {
  job j = {NULL, NULL, NULL};
  irm_module *model = NULL;
  /* without its params: their 2 000 numbers in text would swamp the IR's 28 nodes */
  if (irm_dataflow_example_model(NULL, &model) || irm_module_without_attr(model, IRM_ATTR_PARAMS, &j.mod))
    bench_die("example model");
  irm_object_release(model);
  if (irm_dataflow_print(j.mod, &j.text)) bench_die("print");
  measure("print_cnn", PRINT, &j);
  measure("parse_cnn", PARSE, &j);
  irm_object_release(j.text);
  irm_object_release(j.mod);

  timing t[2][2];
  static const size_t sizes[2] = {10000, 100000};
  for (int i = 0; i < 2; i++) {
    j.mod = irm_test_random_module(11, 2 * sizes[i]); /* about one node in two is distinct */
    if (!j.mod) bench_die("random module");
    if (irm_dataflow_print(j.mod, &j.text)) bench_die("print");
    t[0][i] = measure("print_random", PRINT, &j);
    t[1][i] = measure("parse_random", PARSE, &j);
    irm_object_release(j.text);
    irm_object_release(j.mod);
  }
  scaling("print_random", t[0][0], t[0][1]);
  scaling("parse_random", t[1][0], t[1][1]);
}

static int registered(const char *name) {
  irm_object *names = NULL;
  if (irm_pass_list(&names)) bench_die("pass list");
  int found = 0;
  for (size_t i = 0; i < irm_array_size(names); i++)
    found |= strcmp(irm_string_data(irm_array_at(names, i)->v_obj), name) == 0;
  irm_object_release(names);
  return found;
}

static void pass_benchmarks(void) {
  static const char *const passes[] = {"InferType", "FoldConstant", "FuseOps"};
  static const size_t sizes[] = {1000, 10000, 100000};
  for (size_t p = 0; p < sizeof passes / sizeof passes[0]; p++) {
    if (!registered(passes[p])) {
      printf("# %s: not registered in this build, skipped\n", passes[p]);
      continue;
    }
    timing t[3];
    for (size_t i = 0; i < 3; i++) {
      irm_module *chain = irm_test_op_chain(5, sizes[i]);
      if (!chain) bench_die("chain");
      job j = {chain, NULL, NULL};
      /* the later passes see a typed program, as in a pipeline */
      if (p > 0) {
        if (irm_dataflow_infer_type(chain, &j.mod)) bench_die("InferType");
        irm_object_release(chain);
      }
      if (irm_pass_get(passes[p], NULL, &j.pass)) bench_die(passes[p]);
      char name[64];
      snprintf(name, sizeof name, "%s_chain", passes[p]);
      t[i] = measure(name, PASS, &j);
      irm_object_release(j.pass);
      irm_object_release(j.mod);
    }
    scaling(passes[p], t[1], t[2]);
  }
}

/* ---- at scale: 100 000 and 1 000 000 nodes ------------------------------------
 * A counting allocator (installed before irm allocates anything) gives the
 * bytes irm holds: live and peak. Each allocation carries a 16-byte header
 * with its size, not counted. */
static _Atomic long long live_bytes, peak_bytes;

static void *count_malloc(size_t n) {
  size_t *p = malloc(n + 16);
  if (!p) return NULL;
  *p = n;
  long long now = atomic_fetch_add_explicit(&live_bytes, (long long)n, memory_order_relaxed) + (long long)n;
  long long peak = atomic_load_explicit(&peak_bytes, memory_order_relaxed);
  while (now > peak && !atomic_compare_exchange_weak(&peak_bytes, &peak, now)) {
  }
  return (char *)p + 16;
}
static void count_free(void *q) {
  if (!q) return;
  size_t *p = (size_t *)((char *)q - 16);
  atomic_fetch_sub_explicit(&live_bytes, (long long)*p, memory_order_relaxed);
  free(p);
}
static void *count_realloc(void *q, size_t n) {
  if (!q) return count_malloc(n);
  size_t *p = (size_t *)((char *)q - 16);
  size_t old = *p;
  size_t *r = realloc(p, n + 16);
  if (!r) return NULL;
  *r = n;
  long long now = atomic_fetch_add_explicit(&live_bytes, (long long)n - (long long)old, memory_order_relaxed) +
                  (long long)n - (long long)old;
  long long peak = atomic_load_explicit(&peak_bytes, memory_order_relaxed);
  while (now > peak && !atomic_compare_exchange_weak(&peak_bytes, &peak, now)) {
  }
  return (char *)r + 16;
}

/* The text of a chain of n calls `%i = op(%i-1, %i-1)` (unary ops: one
 * argument, plus extra) in @main(%x: type). NEW String. */
static irm_object *chain_text(size_t n, const char *op, int binary, const char *params, const char *extra) {
  size_t cap = 128 + n * (strlen(op) + strlen(extra) + 40), len = 0;
  char *buf = malloc(cap);
  if (!buf) bench_die("chain text");
  len += (size_t)snprintf(buf + len, cap - len, "#[version = \"irm-0.1\"]\ndef @main(%s) {\n", params);
  for (size_t i = 0; i < n; i++) {
    char prev[32];
    if (i) snprintf(prev, sizeof prev, "%%%zu", i - 1);
    else snprintf(prev, sizeof prev, "%%x");
    if (binary) len += (size_t)snprintf(buf + len, cap - len, "  %%%zu = %s(%s, %s%s);\n", i, op, prev, prev, extra);
    else len += (size_t)snprintf(buf + len, cap - len, "  %%%zu = %s(%s%s);\n", i, op, prev, extra);
  }
  len += (size_t)snprintf(buf + len, cap - len, "  %%%zu\n}\n", n - 1);
  irm_object *s = NULL;
  if (irm_string_new(buf, len, &s)) bench_die("chain string");
  free(buf);
  return s;
}

static irm_module *parse_text(irm_object *text) {
  irm_module *m = NULL;
  if (irm_dataflow_parse(irm_string_data(text), irm_string_size(text), &m)) bench_die("parse");
  return m;
}

/* Bytes irm holds per call for a chain of n calls of op. */
static double chain_bytes(size_t n, const char *op, int binary, const char *params, const char *extra, int typed) {
  irm_object *text = chain_text(n, op, binary, params, extra);
  long long before = atomic_load(&live_bytes);
  irm_module *m = parse_text(text);
  if (typed) {
    irm_module *t = NULL;
    if (irm_dataflow_infer_type(m, &t)) bench_die("InferType");
    irm_object_release(m);
    m = t;
  }
  double per = (double)(atomic_load(&live_bytes) - before) / (double)n;
  irm_object_release(m);
  irm_object_release(text);
  return per;
}

/* A sink that only counts (irm_dataflow_print_to). */
static int count_sink(void *ctx, const char *data, size_t len) {
  (void)data;
  *(size_t *)ctx += len;
  return 0;
}

typedef enum scale_subject {
  S_PARSE,
  S_PRINT,
  S_PRINT_TO,
  S_VERIFY,
  S_JSON_WRITE,
  S_JSON_READ,
  S_HASH,
  S_EQUAL,
  S_PASS,
  S_WALK
} scale_subject;

typedef struct scale_job {
  irm_object *text, *json;
  irm_module *mod, *copy, *typed;
  irm_pass *pass;
} scale_job;

static void run_scale(scale_subject s, scale_job *j) {
  irm_object *o = NULL;
  irm_module *m = NULL;
  irm_any v;
  uint64_t h = 0;
  int eq = 0;
  int64_t n = 0;
  switch (s) {
  case S_PARSE: irm_object_release(parse_text(j->text)); break;
  case S_PRINT:
    if (irm_dataflow_print(j->mod, &o)) bench_die("print");
    irm_object_release(o);
    break;
  case S_PRINT_TO: {
    size_t bytes = 0;
    if (irm_dataflow_print_to(j->mod, NULL, count_sink, &bytes) || !bytes) bench_die("print_to");
    break;
  }
  case S_VERIFY:
    if (irm_dataflow_verify(j->mod)) bench_die("verify");
    break;
  case S_JSON_WRITE:
    v = irm_any_object((irm_object *)j->mod);
    if (irm_to_json(&v, &o)) bench_die("to_json");
    irm_object_release(o);
    break;
  case S_JSON_READ:
    if (irm_from_json(irm_string_data(j->json), irm_string_size(j->json), &v)) bench_die("from_json");
    irm_any_release(&v);
    break;
  case S_HASH:
    v = irm_any_object((irm_object *)j->mod);
    if (irm_structural_hash(&v, &h)) bench_die("hash");
    break;
  case S_EQUAL: {
    irm_any a = irm_any_object((irm_object *)j->mod), b = irm_any_object((irm_object *)j->copy);
    if (irm_structural_equal(&a, &b, &eq) || !eq) bench_die("equal");
    break;
  }
  case S_PASS:
    if (irm_pass_run(j->pass, j->typed, &m)) bench_die(irm_pass_name(j->pass));
    irm_object_release(m);
    break;
  case S_WALK:
    n = visit_module(j->mod);
    (void)n;
    break;
  }
}

/* CPU time of this thread (ns): on a shared, loaded machine the wall
 * clock counts the time others run; this counts only ours. */
static double cpu_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Best CPU time (ns) of a subject on the job. */
static double time_scale(scale_subject s, scale_job *j, int rounds) {
  double best = 1e30;
  for (int r = 0; r < rounds; r++) {
    double t0 = cpu_now_ns();
    run_scale(s, j);
    double t1 = cpu_now_ns();
    if (t1 - t0 < best) best = t1 - t0;
  }
  return best;
}

enum { N_FIXED = 9, MAX_SUBJECTS = 24 };
static const char *const fixed_names[N_FIXED] = {
    "parse", "print", "print_to", "verify", "json_write", "json_read", "structural_hash", "structural_equal", "walk"};
static const scale_subject fixed_subjects[N_FIXED] = {S_PARSE,     S_PRINT, S_PRINT_TO, S_VERIFY, S_JSON_WRITE,
                                                      S_JSON_READ, S_HASH,  S_EQUAL,    S_WALK};

/* The parameters of @main in the scale section's chains of adds. */
static const char chain_params[] = "%x: Tensor[(1, 8), float32]";

/* Prints the memory figures of a chain of n adds (counting allocator). */
static void chain_memory(size_t n) {
  irm_object *text = chain_text(n, "add", 1, chain_params, "");
  long long base = atomic_load(&live_bytes);
  atomic_store(&peak_bytes, base);
  irm_module *mod = parse_text(text);
  long long after_parse = atomic_load(&live_bytes);
  double parsed = (double)(after_parse - base) / (double)n;
  double parse_peak = (double)(atomic_load(&peak_bytes) - base) / (double)n;
  atomic_store(&peak_bytes, after_parse);
  irm_object *printed = NULL;
  if (irm_dataflow_print(mod, &printed)) bench_die("print");
  double peak = (double)(atomic_load(&peak_bytes) - base) / (double)n;
  irm_object_release(printed);
  atomic_store(&peak_bytes, after_parse);
  size_t bytes = 0;
  if (irm_dataflow_print_to(mod, NULL, count_sink, &bytes)) bench_die("print_to");
  double peak_to = (double)(atomic_load(&peak_bytes) - base) / (double)n;
  printf("# chain of %zu adds: parsed module %.1f bytes/node; peak of parse %.1f; of parse + print to a String "
         "%.1f, to a sink %.1f bytes/node (aim <= 250; the input text not counted)\n",
         n, parsed, parse_peak, peak > parse_peak ? peak : parse_peak, peak_to > parse_peak ? peak_to : parse_peak);
  irm_object_release(mod);
  irm_object_release(text);
}

/* The memory figures, counted in a child process that installs the
 * counting allocator (irm takes an allocator only before its first
 * allocation). The timings run in this process on the system allocator:
 * the counter's 16-byte header on every block would make each 64-byte
 * node an 80-byte one, and time a layout no user has. */
static void memory_figures(size_t small, size_t large) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) bench_die("fork");
  if (pid == 0) {
    if (irm_set_allocator(count_malloc, count_realloc, count_free)) bench_die("allocator");
    if (irm_test_gen_ops()) bench_die("generator ops");
    chain_memory(small);
    chain_memory(large);
    printf(
        "# bytes per call: untyped add %.1f, typed add %.1f (aim <= 64), nn.conv2d with defaults %.1f (aim <= 128)\n",
        chain_bytes(100000, "add", 1, chain_params, "", 0), chain_bytes(100000, "add", 1, chain_params, "", 1),
        chain_bytes(100000, "nn.conv2d", 0, "%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(8, 8, 3, 3), float32]",
                    ", %w", 0));
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) bench_die("memory figures");
}

/* Makes the job of a chain of n adds. */
static void scale_job_make(scale_job *j, size_t n) {
  memset(j, 0, sizeof *j);
  j->text = chain_text(n, "add", 1, chain_params, "");
  j->mod = parse_text(j->text);
  j->copy = parse_text(j->text);
  irm_any v = irm_any_object((irm_object *)j->mod);
  if (irm_to_json(&v, &j->json)) bench_die("to_json");
  if (irm_dataflow_infer_type(j->mod, &j->typed)) bench_die("InferType");
}

static void scale_job_free(scale_job *j) {
  irm_object_release(j->text);
  irm_object_release(j->json);
  irm_object_release(j->mod);
  irm_object_release(j->copy);
  irm_object_release(j->typed);
}

/* The two sizes' best times, their rounds interleaved (small, large, small,
 * ...), so a busy neighbour on a shared machine weighs on both alike. */
static void time_pair(scale_subject s, scale_job *jobs, int rounds, double *t_small, double *t_large) {
  *t_small = *t_large = 1e30;
  for (int r = 0; r < rounds; r++) {
    double a = time_scale(s, &jobs[0], 1), b = time_scale(s, &jobs[1], 1);
    if (a < *t_small) *t_small = a;
    if (b < *t_large) *t_large = b;
  }
}

/* A function pass that changes nothing: what the pass manager costs
 * around a pass (its checks of the input included). */
static int noop_function(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                         void *resource, irm_object **out) {
  (void)mod, (void)ctx, (void)options, (void)resource;
  irm_object_retain(func);
  *out = func;
  return 0;
}

/* Whether a subject is measured: all, or only the one --only names. */
static const char *only_subject;
static int wanted(const char *name) { return !only_subject || strcmp(only_subject, name) == 0; }

static void scale_benchmarks(size_t small, size_t large, int rounds) {
  size_t sizes[2] = {small, large};
  double t[2][MAX_SUBJECTS];
  const char *names[MAX_SUBJECTS];
  int n_subjects = 0;
  irm_object *pass_names = NULL;
  if (irm_pass_list(&pass_names)) bench_die("pass list");
  scale_job jobs[2];
  scale_job_make(&jobs[0], small);
  scale_job_make(&jobs[1], large);
  for (int f = 0; f < N_FIXED; f++) {
    if (!wanted(fixed_names[f])) continue;
    names[n_subjects] = fixed_names[f];
    time_pair(fixed_subjects[f], jobs, rounds, &t[0][n_subjects], &t[1][n_subjects]);
    n_subjects++;
  }
  for (size_t p = 0; p < irm_array_size(pass_names) && n_subjects < MAX_SUBJECTS; p++) {
    const char *name = irm_string_data(irm_array_at(pass_names, p)->v_obj);
    if (!wanted(name)) continue;
    if (irm_pass_get(name, NULL, &jobs[0].pass)) bench_die(name);
    irm_module *probe = NULL;
    if (irm_pass_run(jobs[0].pass, jobs[0].typed, &probe)) {
      printf("# %s does not run on the chain (%s), skipped\n", name, irm_last_error());
    } else {
      irm_object_release(probe);
      jobs[1].pass = jobs[0].pass;
      names[n_subjects] = name;
      time_pair(S_PASS, jobs, rounds, &t[0][n_subjects], &t[1][n_subjects]);
      n_subjects++;
    }
    irm_object_release(jobs[0].pass);
    jobs[0].pass = jobs[1].pass = NULL;
  }
  if (wanted("noop_pass") && n_subjects < MAX_SUBJECTS) {
    if (irm_function_pass_new("NoOp", 0, NULL, 0, NULL, noop_function, NULL, NULL, &jobs[0].pass)) bench_die("NoOp");
    jobs[1].pass = jobs[0].pass;
    names[n_subjects] = "noop_pass";
    time_pair(S_PASS, jobs, rounds, &t[0][n_subjects], &t[1][n_subjects]);
    n_subjects++;
    irm_object_release(jobs[0].pass);
    jobs[0].pass = jobs[1].pass = NULL;
  }
  for (int k = 0; k < 2; k++)
    for (int s = 0; s < n_subjects; s++)
      printf("%s_chain_%zu ns_per_node %.1f\n", names[s], sizes[k], t[k][s] / (double)sizes[k]);
  for (int s = 0; s < n_subjects; s++)
    printf("%s_%zuk_over_%zuk %.2f (aim <= 12)\n", names[s], large / 1000, small / 1000, t[1][s] / t[0][s]);
  scale_job_free(&jobs[0]);
  scale_job_free(&jobs[1]);
  irm_object_release(pass_names);
}

int main(int argc, char **argv) {
  /* --scale [large [rounds [subject]]]: only the 100k / 1M section (large
   * nodes, default 1 000 000; rounds, default 3, interleaved; one subject,
   * as the lines name it, or all) */
  int scale_only = argc > 1 && strcmp(argv[1], "--scale") == 0;
  size_t large = scale_only && argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 1000000;
  int rounds = scale_only && argc > 3 ? atoi(argv[3]) : 3;
  only_subject = scale_only && argc > 4 ? argv[4] : NULL;
  if (rounds < 1) rounds = 1;
  memory_figures(large / 10, large); /* first: before this process allocates through irm */
  if (irm_test_gen_ops()) bench_die("generator ops");
  if (!scale_only) {
    text_benchmarks();
    pass_benchmarks();
  }
  scale_benchmarks(large / 10, large, rounds);
  return 0;
}
