/* irm opt's run: the model in, the PassContext with the instruments the
 * flags ask for, the pipeline, the module out; the reproducer's run; and
 * irm's main job (no arguments), opt of the example CNN with a summary. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_opt.h"

/* ---- the model ------------------------------------------------------------------- */

static int model_from_file(const char *command, const char *path, irm_module **out) {
  char *text = NULL;
  size_t len = 0;
  if (cli_read_all(command, path, &text, &len)) return CLI_FAIL;
  size_t i = 0;
  while (i < len && isspace((unsigned char)text[i])) i++;
  int rc;
  if (i < len && text[i] == '{') {
    irm_any v = irm_any_none();
    rc = irm_from_json(text, len, &v);
    if (!rc && (v.type_code != IRM_OBJECT || !irm_object_is(v.v_obj, "ir.IRModule"))) {
      rc = irm_error(IRM_EVALUE, "the JSON holds %s, not an ir.IRModule", irm_any_type_name(&v));
      irm_any_release(&v);
    }
    if (!rc) *out = v.v_obj;
  } else {
    rc = irm_dataflow_parse(text, len, out);
  }
  free(text);
  if (rc) {
    return cli_say(CLI_FAIL, "%s: %s: %s", command, cli_quote(path), irm_last_error());
  }
  return CLI_OK;
}

int opt_load_model(const char *command, const char *model, irm_module **out) {
  struct stat sb;
  if (model && (!strcmp(model, "-") || stat(model, &sb) == 0)) return model_from_file(command, model, out);
  if (model && (strchr(model, '/') || strchr(model, '.')))
    return cli_say(CLI_FAIL, "%s: cannot read '%s': %s", command, cli_quote(model), strerror(ENOENT));
  if (irm_dataflow_example_model(model, out) == 0) return CLI_OK;
  return cli_say(CLI_FAIL, "%s: MODEL '%s' is no file and no example model: %s", command, cli_quote(model),
                 irm_last_error());
}

/* ---- printing the module before and after passes (to stderr) ------------------------- */

static int wanted(const irm_object *names, const char *pass) {
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const char *n = irm_string_data(irm_array_at(names, i)->v_obj);
    if (!strcmp(n, "all") || !strcmp(n, pass)) return 1;
  }
  return 0;
}

static int print_hook(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)ret;
  const print_state *s = resource;
  if (nargs < 2) return IRM_OK;
  const char *pass = cli_str(irm_map_find_cstr(args[1].v_obj, "name"));
  if (!pass || !wanted(s->names, pass)) return IRM_OK;
  irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
  opts.elide_larger_than = s->elide;
  irm_object *text = NULL;
  int rc = irm_dataflow_print_ex(args[0].v_obj, &opts, &text);
  if (rc) return rc;
  fprintf(stderr, "; IR %s pass '%s'\n%s\n", s->when, pass, irm_string_data(text));
  irm_object_release(text);
  return IRM_OK;
}

static int printing_instrument(print_state *before, print_state *after, irm_instrument **out) {
  irm_object *b = NULL, *a = NULL;
  int rc = IRM_OK;
  if (before->names) rc = irm_func_new_packed(print_hook, before, NULL, &b);
  if (!rc && after->names) rc = irm_func_new_packed(print_hook, after, NULL, &a);
  if (!rc) rc = irm_instrument_new("PrintIR", NULL, NULL, NULL, b, a, out);
  irm_object_release(b);
  irm_object_release(a);
  return rc;
}

/* ---- the summary ------------------------------------------------------------------------ */

void opt_summary_value(const char *key, const irm_any *v) {
  if (!strcmp(key, "params") && v->type_code == IRM_OBJECT && irm_object_is(v->v_obj, "ffi.Map")) {
    fprintf(cli_out, "%zu tensors (the weights)", irm_map_size(v->v_obj));
    return;
  }
  irm_any text;
  if (cli_call(v->type_code == IRM_OBJECT && irm_object_is(v->v_obj, "target.Target") ? "target.AsString" : "ffi.Repr",
               v, 1, &text) == 0) {
    fputs(cli_str(&text), cli_out);
    irm_any_release(&text);
  } else {
    irm_clear_error();
    fputs("?", cli_out);
  }
}

void opt_print_config(const opt_flags *f) {
  if (!irm_map_size(f->config)) fputs("(the defaults; irm list configs)", cli_out);
  irm_map_iter it = irm_map_iter_begin(f->config);
  const irm_object *key;
  const irm_any *value;
  for (int n = 0; irm_map_iter_next(&it, &key, &value); n++) {
    fprintf(cli_out, "%s%s = ", n ? ", " : "", irm_string_data(key));
    cli_write_json(cli_out, value, -1);
  }
  fputc('\n', cli_out);
}

int opt_print_summary_head(const opt_flags *f, irm_module *mod, const char *pipeline) {
  irm_object *names = NULL;
  if (irm_func_list_globals(&names)) return cli_fail("opt");
  fprintf(cli_out, "irm %s: opt of %s%s%s, %zu global functions (irm --help lists the commands)\n\n", irm_version(),
          f->model ? "'" : "the example model 'cnn'", f->model ? cli_quote(f->model) : "", f->model ? "'" : "",
          irm_array_size(names));
  irm_object_release(names);
  fputs("configuration\n", cli_out);
  irm_any attrs, mod_arg = irm_any_object(mod);
  if (cli_call("ir.ModuleAttrs", &mod_arg, 1, &attrs)) return cli_fail("opt");
  irm_map_iter it = irm_map_iter_begin(attrs.v_obj);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value)) {
    fprintf(cli_out, "  module %-10s ", irm_string_data(key));
    opt_summary_value(irm_string_data(key), value);
    fputc('\n', cli_out);
  }
  irm_any_release(&attrs);
  fprintf(cli_out, "  opt_level        %d\n", f->opt_level < 0 ? 2 : f->opt_level);
  fputs("  config           ", cli_out);
  opt_print_config(f);
  fprintf(cli_out, "  pipeline         %s\n\n", pipeline);
  return CLI_OK;
}

/* ---- the run --------------------------------------------------------------------------------- */

typedef struct run_parts {
  irm_module *mod;
  irm_pass *pass;
  irm_object *base_config; /* the reproducer's context's config, under the flags' */
  int opt_level;
  const irm_object *required, *disabled;
  irm_object *repro;
} run_parts;

static int parts_from_flags(opt_flags *f, run_parts *p) {
  if (opt_load_model("opt", f->model, &p->mod)) return CLI_FAIL;
  const char *text = f->passes ? f->passes : OPT_DEFAULT_PIPELINE;
  if (irm_pipeline_parse(text, &p->pass)) return cli_usage_error("opt", "--passes: %s", irm_last_error());
  p->opt_level = f->opt_level < 0 ? 2 : f->opt_level;
  p->required = f->required;
  p->disabled = f->disabled;
  return CLI_OK;
}

static int parts_from_reproducer(opt_flags *f, run_parts *p) {
  if (irm_pass_reproducer_load(f->run_reproducer, &p->repro)) return cli_fail("opt");
  p->mod = irm_map_find_cstr(p->repro, "module")->v_obj;
  p->pass = irm_map_find_cstr(p->repro, "pipeline")->v_obj;
  irm_object_retain(p->mod);
  irm_object_retain(p->pass);
  const irm_pass_context *ctx = irm_map_find_cstr(p->repro, "context")->v_obj;
  p->opt_level = f->opt_level >= 0 ? f->opt_level : irm_pass_context_opt_level(ctx);
  p->required = f->required ? f->required : irm_pass_context_required(ctx);
  p->disabled = f->disabled ? f->disabled : irm_pass_context_disabled(ctx);
  p->base_config = (irm_object *)irm_pass_context_config(ctx);
  irm_object_retain(p->base_config);
  const char *failed = cli_str(irm_map_find_cstr(p->repro, "failed_pass"));
  const char *error = cli_str(irm_map_find_cstr(p->repro, "error"));
  cli_say(CLI_OK, "opt: reproducing the failure of pass '%s': %s", failed ? failed : "?", error ? error : "?");
  return CLI_OK;
}

/* The flags' config over the reproducer's. */
static int merged_config(const opt_flags *f, const run_parts *p, irm_object **out) {
  irm_object *config = p->base_config;
  irm_object_retain(config);
  if (!config && irm_map_new(&config)) return IRM_ENOMEM;
  irm_map_iter it = irm_map_iter_begin(f->config);
  const irm_object *key;
  const irm_any *value;
  int rc = IRM_OK;
  while (!rc && irm_map_iter_next(&it, &key, &value)) rc = irm_map_set_move(&config, irm_string_data(key), value);
  if (rc) irm_object_release(config);
  else *out = config;
  return rc;
}

int opt_make_instruments(opt_flags *f, print_state ps[2], irm_instrument **timing, irm_object **out) {
  irm_object *list = NULL;
  irm_instrument *inst = NULL;
  int rc = irm_array_new(NULL, 0, &list);
  if (!rc && (f->time_passes || f->summary)) {
    rc = irm_timing_instrument_new(timing);
    irm_any v = irm_any_object(*timing);
    if (!rc) rc = irm_array_append_move(&list, &v);
  }
  ps[0] = (print_state){f->print_before, f->elide, "before"};
  ps[1] = (print_state){f->print_after, f->elide, "after"};
  if (!rc && (f->print_before || f->print_after)) {
    rc = printing_instrument(&ps[0], &ps[1], &inst);
    irm_any v = irm_any_object(inst);
    if (!rc) rc = irm_array_append_move(&list, &v);
    irm_object_release(inst), inst = NULL;
  }
  if (!rc && f->bisect_set) {
    rc = irm_bisect_instrument_new(f->bisect_limit, &inst);
    irm_any v = irm_any_object(inst);
    if (!rc) rc = irm_array_append_move(&list, &v);
    irm_object_release(inst);
  }
  if (rc) irm_object_release(list);
  else *out = list;
  return rc;
}

static int print_module(const opt_flags *f, irm_module *mod) {
  irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
  opts.elide_larger_than = f->elide;
  irm_object *text = NULL;
  if (irm_dataflow_print_ex(mod, &opts, &text)) return cli_fail("opt: printing the module");
  fputs(irm_string_data(text), cli_out);
  size_t n = irm_string_size(text);
  if (n == 0 || irm_string_data(text)[n - 1] != '\n') fputc('\n', cli_out);
  irm_object_release(text);
  return CLI_OK;
}

void opt_show_report(const opt_flags *f, const irm_object *report, FILE *to) {
  if (f->summary && to == cli_out) fputs("passes run\n", to);
  const char *text = irm_string_data(report);
  if (f->summary && to == cli_out) {
    /* Indented under its heading. */
    for (const char *line = text; *line;) {
      const char *end = strchr(line, '\n');
      size_t len = end ? (size_t)(end - line) : strlen(line);
      fprintf(to, "  %.*s\n", (int)len, line);
      line += len + (end ? 1 : 0);
    }
    fputc('\n', to);
  } else {
    fputs(text, to);
  }
}

void opt_show_timing(const opt_flags *f, irm_instrument *timing, FILE *to) {
  irm_object *report = NULL;
  if (!timing || irm_timing_render(timing, &report)) return;
  opt_show_report(f, report, to);
  irm_object_release(report);
}

static int run_in_context(opt_flags *f, run_parts *p, irm_object *instruments, irm_instrument *timing) {
  irm_object *config = NULL;
  irm_pass_context *ctx = NULL;
  irm_module *out = NULL;
  if (merged_config(f, p, &config)) return cli_fail("opt");
  int rc = irm_pass_context_new(p->opt_level, p->required, p->disabled, config, instruments, &ctx);
  irm_object_release(config);
  if (rc) return cli_usage_error("opt", "%s", irm_last_error());
  /* The library writes the reproducer only when a pass fails; a file that
   * is new or changed afterwards is this run's. */
  struct stat before;
  int existed = f->reproducer && stat(f->reproducer, &before) == 0;
  if (irm_pass_context_enter(ctx)) {
    irm_object_release(ctx);
    return cli_fail("opt");
  }
  int failed = irm_pass_run(p->pass, p->mod, &out);
  char *error = failed ? strdup(irm_last_error()) : NULL;
  opt_show_timing(f, timing, failed || !f->summary ? stderr : cli_out);
  if (irm_pass_context_exit(ctx) && !failed) failed = 1, error = strdup(irm_last_error());
  irm_object_release(ctx);
  if (failed) {
    cli_say(CLI_FAIL, "opt: %s", error ? error : "out of memory");
    free(error);
    struct stat after;
    if (f->reproducer && stat(f->reproducer, &after) == 0 &&
        (!existed || after.st_mtim.tv_sec != before.st_mtim.tv_sec || after.st_mtim.tv_nsec != before.st_mtim.tv_nsec ||
         after.st_size != before.st_size))
      cli_say(CLI_FAIL, "opt: reproducer written to '%s' (irm opt --run-reproducer '%s' reproduces it)",
              cli_quote(f->reproducer), cli_quote(f->reproducer));
    return CLI_FAIL;
  }
  if (f->summary) fprintf(cli_out, "module after the pipeline%s\n", f->elide ? " (large tensors elided)" : "");
  rc = print_module(f, out);
  irm_object_release(out);
  return rc;
}

int opt_run(opt_flags *f) {
  run_parts p;
  memset(&p, 0, sizeof p);
  print_state ps[2];
  irm_instrument *timing = NULL;
  irm_object *instruments = NULL, *pipeline_text = NULL;
  int rc = f->run_reproducer ? parts_from_reproducer(f, &p) : parts_from_flags(f, &p);
  if (!rc && opt_make_instruments(f, ps, &timing, &instruments)) rc = cli_fail("opt");
  if (!rc && f->output) rc = cli_open_output(f->output);
  if (!rc && f->summary) {
    if (irm_pipeline_print(p.pass, &pipeline_text)) rc = cli_fail("opt");
    else rc = opt_print_summary_head(f, p.mod, irm_string_data(pipeline_text));
  }
  if (!rc) rc = run_in_context(f, &p, instruments, timing);
  irm_object_release(pipeline_text);
  irm_object_release(instruments);
  irm_object_release(timing);
  irm_object_release(p.mod);
  irm_object_release(p.pass);
  irm_object_release(p.base_config);
  irm_object_release(p.repro);
  return rc;
}

int cmd_default(void) {
  char *argv[] = {"opt", "--summary", NULL};
  return cmd_opt(2, argv);
}
