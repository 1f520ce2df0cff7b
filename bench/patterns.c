/* bench/patterns: the pattern driver at scale. 50 rules (rooted at the ops
 * of the program and at others, with conditions that do not hold, so the
 * program comes back unchanged and every candidate is matched) over typed
 * op chains (dataflow_gen_ops.h) of about 100 000 and 1 000 000 nodes, against a
 * rewrite that changes nothing (irm_expr_rewrite without callbacks: the
 * walk every pass makes). Lines: `name ns_per_node ratio rewrite_walk`
 * (aim: ratio <= 3), then the time at 1M over the time at 100k (aim:
 * <= 12, linear). A last line shows the rules firing: a program of 100 000
 * nodes where a tenth of the calls are rewritten. */
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "dataflow_gen_ops.h"

/* 50 rules: 5 per op of the chain (none firing: no constant there holds
 * 12345) and 15 rooted at ops the chain does not use. */
static char *rules_text(void) {
  static const char *const chain_ops[] = {"add", "multiply", "subtract", "maximum", "negative", "nn.relu", "nn.dense"};
  static const char *const other_ops[] = {"exp", "sqrt", "nn.softmax", "transpose", "reshape"};
  static char text[16384];
  size_t len = 0;
  int n = 0;
  for (size_t i = 0; i < sizeof chain_ops / sizeof chain_ops[0] && n < 35; i++)
    for (int k = 0; k < 5 && n < 35; k++, n++) {
      int unary = strcmp(chain_ops[i], "negative") == 0 || strcmp(chain_ops[i], "nn.relu") == 0;
      if (unary)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "rule r%d benefit %d : %s(%s(%%x)) where ndim(%%x) == %d => %%x\n", n, k, chain_ops[i],
                                chain_ops[i], 7 + k);
      else
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "rule r%d benefit %d : %s(%%x, %%c: const) where value(%%c) == %d => %%x\n", n, k,
                                chain_ops[i], 12345 + k);
    }
  for (int i = 0; n < 50; i++, n++)
    len += (size_t)snprintf(text + len, sizeof text - len, "rule r%d : %s(%s(%%x)) => %%x\n", n, other_ops[i % 5],
                            other_ops[i % 5]);
  return text;
}

static int count_node(void *ctx, irm_object *node) {
  (void)node;
  ++*(int64_t *)ctx;
  return 0;
}

typedef struct job {
  irm_object *rules;
  irm_object *main;
} job;

/* One run: the pattern rewrite (which 1) or the plain walk (which 0); ns. */
static double run_once(int which, const job *j) {
  irm_object *out = NULL;
  double t0 = bench_now_ns();
  int rc;
  if (which) {
    rc = irm_pattern_rewrite(j->rules, j->main, NULL, &out);
  } else {
    irm_expr_rewriter none = {NULL, NULL, NULL};
    rc = irm_expr_rewrite(&none, j->main, &out);
  }
  double t1 = bench_now_ns();
  if (rc) bench_die(which ? "pattern rewrite" : "rewrite");
  if (out != j->main) bench_die("the program changed");
  irm_object_release(out);
  return t1 - t0;
}

/* Best of ROUNDS interleaved runs of both, so a busy neighbour on a shared
 * machine does not land on one side only. */
static void best_pair(const job *j, double *walk, double *subject) {
  *walk = *subject = 1e30;
  for (int r = 0; r < 2 * ROUNDS; r++) {
    double w = run_once(0, j), p = run_once(1, j);
    if (w < *walk) *walk = w;
    if (p < *subject) *subject = p;
  }
}

typedef struct timing {
  double subject, walk;
} timing;

static timing measure(size_t calls, irm_object *rules) {
  irm_module *chain = irm_test_op_chain(7, calls), *typed = NULL;
  if (!chain || irm_dataflow_infer_type(chain, &typed)) bench_die("chain");
  irm_object_release(chain);
  job j = {rules, irm_module_function(typed, "main")};
  int64_t nodes = 0;
  if (irm_expr_visit(j.main, count_node, &nodes)) bench_die("visit");
  double walk = 0, subject = 0;
  best_pair(&j, &walk, &subject);
  char name[64];
  snprintf(name, sizeof name, "rules50_%lld_nodes", (long long)nodes);
  bench_report(name, subject / (double)nodes, walk / (double)nodes, "rewrite_walk");
  fflush(stdout);
  irm_object_release(typed);
  return (timing){subject, walk};
}

int main(void) {
  irm_object *rules = NULL;
  const char *text = rules_text();
  if (irm_rewrite_rules_parse(text, strlen(text), &rules)) bench_die("rules");
  if (irm_array_size(rules) != 50) bench_die("50 rules");
  long scale = getenv("IRM_BENCH_SMALL") ? 10 : 1;
  timing small = measure(60000 / scale, rules), big = measure(600000 / scale, rules);
  printf("rules50_1M_over_100k %.2f (aim <= 12)\n", big.subject / small.subject);
  printf("rules50_1M_over_100k_vs_walk %.2f (aim <= 12; the walk grew %.2f)\n",
         10 * (big.subject / small.subject) / (big.walk / small.walk), big.walk / small.walk);
  irm_object_release(rules);
  return 0;
}
