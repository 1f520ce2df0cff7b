/* FCodegenC of the comparisons, logical ops and where
 * (ir/dataflow/ops/compare.c), each a scalar C expression (bool results
 * as uint8_t), so chains fuse into one loop like the elementwise ops.
 * Comparisons of floats are double comparisons (NaN unequal to
 * everything), of ints int64 ones. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

static int compare_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  static const char *const ops[][2] = {{"equal", "=="},      {"not_equal", "!="}, {"less", "<"},
                                       {"less_equal", "<="}, {"greater", ">"},    {"greater_equal", ">="}};
  const char *sym = "==";
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(c->op, ops[i][0]) == 0) sym = ops[i][1];
  const char *as = irm_cg_is_float_(c->in[0].dt) ? "double" : "int64_t";
  P(b, "(uint8_t)((%s)%s %s (%s)%s)", as, a[0], sym, as, a[1]);
  return IRM_OK;
}

static int logical_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  if (strcmp(c->op, "logical_not") == 0) P(b, "(uint8_t)(%s == 0)", a[0]);
  else P(b, "(uint8_t)((%s != 0) %c (%s != 0))", a[0], strcmp(c->op, "logical_and") == 0 ? '&' : '|', a[1]);
  return IRM_OK;
}

static int where_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  (void)c;
  P(b, "(%s ? %s : %s)", a[0], a[1], a[2]);
  return IRM_OK;
}

const cg_op irm_cg_compare_ops_[] = {
    {"equal", compare_expr, NULL, NULL},       {"not_equal", compare_expr, NULL, NULL},
    {"less", compare_expr, NULL, NULL},        {"less_equal", compare_expr, NULL, NULL},
    {"greater", compare_expr, NULL, NULL},     {"greater_equal", compare_expr, NULL, NULL},
    {"logical_and", logical_expr, NULL, NULL}, {"logical_or", logical_expr, NULL, NULL},
    {"logical_not", logical_expr, NULL, NULL}, {"where", where_expr, NULL, NULL},
};
const size_t irm_cg_compare_ops_count_ = sizeof irm_cg_compare_ops_ / sizeof irm_cg_compare_ops_[0];
