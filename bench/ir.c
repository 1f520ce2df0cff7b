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
 * registered in this build are skipped. */
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "ir_gen.h"
#include "ir_gen_ops.h"

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
    if (irm_ir_print(j->mod, &text)) bench_die("print");
    irm_object_release(text);
  } else if (s == PARSE) {
    if (irm_ir_parse(irm_string_data(j->text), irm_string_size(j->text), &out)) bench_die("parse");
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
  if (irm_ir_example_model(NULL, &model) || irm_module_without_attr(model, IRM_ATTR_PARAMS, &j.mod))
    bench_die("example model");
  irm_object_release(model);
  if (irm_ir_print(j.mod, &j.text)) bench_die("print");
  measure("print_cnn", PRINT, &j);
  measure("parse_cnn", PARSE, &j);
  irm_object_release(j.text);
  irm_object_release(j.mod);

  timing t[2][2];
  static const size_t sizes[2] = {10000, 100000};
  for (int i = 0; i < 2; i++) {
    j.mod = irm_test_random_module(11, 2 * sizes[i]); /* about one node in two is distinct */
    if (!j.mod) bench_die("random module");
    if (irm_ir_print(j.mod, &j.text)) bench_die("print");
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
        if (irm_ir_infer_type(chain, &j.mod)) bench_die("InferType");
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

int main(void) {
  if (irm_test_gen_ops()) bench_die("generator ops");
  text_benchmarks();
  pass_benchmarks();
  return 0;
}
