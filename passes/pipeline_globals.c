/* transform.ParsePipeline and transform.PrintPipeline (docs/globals.md):
 * the pipeline text of pipeline_parse.c and pipeline_print.c by name; and
 * transform.LoadReproducer, a pipeline and its module back from a
 * reproducer file (reproducer.c). */
#include "irm/error.h"
#include "irm/function.h"
#include "irm/pass.h"
#include "irm_internal.h"
#include "passes_builtins.h"

/* transform.ParsePipeline(str) -> Pass */
static int g_parse(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.ParsePipeline", *text = NULL;
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &text, NULL);
  return rc ? rc : irm_ret_object(fn, irm_pipeline_parse(text, &out), &out, ret);
}

/* transform.PrintPipeline(pass) -> str */
static int g_print(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PrintPipeline";
  irm_object *pass = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "transform.Pass", &pass);
  return rc ? rc : irm_ret_object(fn, irm_pipeline_print(pass, &out), &out, ret);
}

/* transform.LoadReproducer(path) -> Map {module, pipeline, context, ...} */
static int g_load_reproducer(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.LoadReproducer", *path = NULL;
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &path, NULL);
  return rc ? rc : irm_ret_object(fn, irm_pass_reproducer_load(path, &out), &out, ret);
}

int irm_register_pipeline_globals_(void) {
  static const irm_builtin_global table[] = {
      {"transform.ParsePipeline", g_parse},
      {"transform.PrintPipeline", g_print},
      {"transform.LoadReproducer", g_load_reproducer},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
