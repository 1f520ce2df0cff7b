/* The runtime's threads in lowering and in the generated library
 * (plan.h, docs/threads.md): the split the kernels are generated for, the
 * metadata's record of it, and the pool pointer parallel code calls. */
#include <inttypes.h>
#include <string.h>

#include "irm/build.h"
#include "irm/config.h"
#include "irm_threadpool.h"
#include "plan.h"

/* The most threads a split aims at: beyond it chunks get too small to
 * pay for their dispatch on the layers of a batch-1 network. */
#define MAX_SPLIT 64

static int option_int(const irm_object *rt, const char *key, bool *found, int64_t *out) {
  irm_any v = irm_any_none();
  int rc = irm_config_get_attr(rt, key, &v);
  *found = false;
  if (rc == IRM_EATTR || rc == IRM_EKEY) {
    irm_clear_error();
    return IRM_OK;
  }
  if (!rc && v.type_code != IRM_NONE) {
    *found = true;
    rc = irm_any_to_int(&v, out);
  }
  irm_any_release(&v);
  return rc ? irm_error_context(rc, "runtime option '%s'", key) : IRM_OK;
}

int irm_plan_threads_of_(const irm_compilation_config *cfg, plan_threads *out) {
  memset(out, 0, sizeof *out);
  out->num_threads = 1;
  const irm_object *rt = irm_compilation_config_runtime(cfg);
  if (!rt || strcmp(irm_config_kind_name(rt), "crt") == 0) return IRM_OK;
  bool found = false, pin_found = false;
  int64_t n = 0, pin = 0;
  int rc = option_int(rt, "num-threads", &found, &n);
  if (!rc) rc = option_int(rt, "thread-affinity", &pin_found, &pin);
  if (rc || !found) return rc;
  out->num_threads = n;
  out->affinity = pin_found && pin != 0;
  int64_t split = n > 0 ? n : irm_threadpool_cpu_count();
  out->split = (int)(split < 1 ? 1 : split > MAX_SPLIT ? MAX_SPLIT : split);
  return IRM_OK;
}

void irm_plan_threads_json_(const lowered_plan *p, const char *mod_name, irm_text_buf *b) {
  irm_text_buf_printf_(b, ", \"num_threads\": %" PRId64 ", \"parallel\": %s, \"thread_affinity\": %s",
                       p->threads.num_threads, p->threads.split > 0 ? "true" : "false",
                       p->threads.affinity ? "true" : "false");
  if (p->cblas) irm_text_buf_printf_(b, ", \"blas_threads\": \"tvmgen_%s_set_blas_threads\"", mod_name);
}

void irm_plan_emit_pool_(const lowered_plan *p, const char *mod_name, irm_text_buf *b) {
  irm_text_buf_printf_(
      b,
      "/* A kernel's index error, one record per thread (irm_crt.h): a run's kernels run on its "
      "thread. */\nIRM_KERNEL_LINKAGE IRM_CRT_THREAD_LOCAL irm_crt_index_error tvmgen_%s_index_error;\n"
      "const char *tvmgen_%s_last_error(void);\n"
      "const char *tvmgen_%s_last_error(void) { return tvmgen_%s_index_error.text; }\n\n",
      mod_name, mod_name, mod_name, mod_name);
  if (p->cblas) /* declared here too: a cblas.h other than OpenBLAS's lacks it */
    irm_text_buf_printf_(
        b,
        "/* OpenBLAS runs with the module's thread count, not a pool of its own (docs/threads.md). */\n"
        "void openblas_set_num_threads(int num_threads);\n"
        "int32_t tvmgen_%s_set_blas_threads(int32_t n);\n"
        "int32_t tvmgen_%s_set_blas_threads(int32_t n) {\n"
        "  openblas_set_num_threads(n > 0 ? (int)n : 1);\n  return IRM_CRT_OK;\n}\n\n",
        mod_name, mod_name);
  if (p->threads.split <= 0) return;
  irm_text_buf_printf_(b,
                       "/* The pool the kernels split their work on (irm_parallel.h); NULL: the calling thread. */\n"
                       "const irm_parallel_pool *tvmgen_%s_pool;\n"
                       "int32_t tvmgen_%s_set_pool(const irm_parallel_pool *pool);\n"
                       "int32_t tvmgen_%s_set_pool(const irm_parallel_pool *pool) {\n"
                       "  tvmgen_%s_pool = pool;\n  return IRM_CRT_OK;\n}\n\n",
                       mod_name, mod_name, mod_name, mod_name);
}
