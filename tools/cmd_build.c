/* irm build: a model compiled by the driver (irm_build) under a
 * PassContext made from the flags irm opt shares (cmd_opt.h), its
 * artifacts and the record irm run needs (BUILD_RECORD) written to a
 * folder, and a summary: the configuration, the passes run, the files. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd_build.h"
#include "cmd_onnx.h"
#include "cmd_opt.h"

static void build_usage(FILE *to) {
  fputs(
      "usage: irm build [MODEL] [--target TEXT] [--executor E] [--runtime R] [-o DIR] [flags]\n\n"
      "Compiles MODEL with the driver (irm_build) and writes its artifacts to DIR with the record irm run\n"
      "reads (" BUILD_RECORD "). MODEL is a file of IR text, a JSON file (ffi.ToJSON of an IRModule),\n"
      "an ONNX model (MODEL.onnx, or a file starting as one; imported by python3 -m irm.frontend.onnx,\n"
      "IRM_PYTHON to choose the interpreter) or a built-in example model (cnn, mlp, residual); default: cnn.\n\n"
      "Flags:\n"
      "  --target TEXT              the target (default: " BUILD_DEFAULT_TARGET "); legacy options are converted\n"
      "  --target-host TEXT         the host target every target gets\n"
      "  --executor E               aot | aot,unpacked-api=1,interface-api=c | a JSON object {\"kind\": \"aot\", ...}\n"
      "                             (default: the driver's, graph)\n"
      "  --runtime R                the same forms: cpp | crt,system-lib=1 | {\"kind\": \"crt\"} (default: cpp)\n"
      "  --mod-name NAME            the module's name (default: default)\n"
      "  --params FILE              the weights: TVM's param dict (relay.save_param_dict's bytes) or a\n"
      "                             JSON file (ffi.ToJSON) of a Map name -> Tensor\n"
      "  --input-shapes NAME:1x3x224x224[,NAME:...]  an ONNX model's input shapes\n"
      "  --input-dtypes NAME:float32[,NAME:...]      an ONNX model's input dtypes\n"
      "  --passes PIPELINE          a pipeline run on the model before the driver's own\n"
      "  --opt-level N              the PassContext's opt_level (default 2)\n"
      "  --pass-config KEY=VALUE    a PassContext config option (irm list configs); repeatable\n"
      "  --disable-pass NAME        never run pass NAME; repeatable\n"
      "  --required-pass NAME       always run pass NAME; repeatable\n"
      "  --time-passes              the timing tree of the passes run, on stderr too\n"
      "  --print-ir-before NAME|all print the module before pass NAME (or every pass) on stderr; repeatable\n"
      "  --print-ir-after NAME|all  print the module after pass NAME (or every pass) on stderr; repeatable\n"
      "  --bisect-limit N           run only the first N optional passes\n"
      "  --load-plugin FILE         load a plugin first; repeatable (IRM_PLUGIN_PATH too)\n"
      "  -o, --output DIR           where the files go (default: ./build-<mod_name>)\n"
      "  --export                   also compile the C into DIR/lib<mod_name>.so (export_library), its\n"
      "                             units at once, through the build cache (progress on a terminal)\n"
      "  -j, --jobs N               with --export: compilers run at once (default: IRM_BUILD_JOBS, else\n"
      "                             the processors available)\n"
      "  --no-cache                 with --export: compile every unit, storing nothing (as IRM_CACHE=0)\n"
      "  --cross-compiler CC        with --export: the C compiler (default: <triple>-gcc for a target whose\n"
      "                             -mtriple names another architecture, else CC, else cc)\n"
      "  -h, --help                 this text\n\n"
      "Exit status: 0 success, 1 failure (the build failed, a file could not be read or written),\n"
      "2 usage error (an unknown flag, a value that does not parse).\n",
      to);
}

enum {
  F_TARGET = OPT_F_COMMON_END + 100,
  F_HOST,
  F_EXECUTOR,
  F_RUNTIME,
  F_MOD_NAME,
  F_PARAMS,
  F_EXPORT,
  F_NO_CACHE,
  F_INPUT_SHAPES,
  F_INPUT_DTYPES,
  F_CROSS_CC
};

static const struct option longopts[] = {OPT_COMMON_LONGOPTS,
                                         {"target", required_argument, NULL, F_TARGET},
                                         {"target-host", required_argument, NULL, F_HOST},
                                         {"executor", required_argument, NULL, F_EXECUTOR},
                                         {"runtime", required_argument, NULL, F_RUNTIME},
                                         {"mod-name", required_argument, NULL, F_MOD_NAME},
                                         {"params", required_argument, NULL, F_PARAMS},
                                         {"input-shapes", required_argument, NULL, F_INPUT_SHAPES},
                                         {"input-dtypes", required_argument, NULL, F_INPUT_DTYPES},
                                         {"output", required_argument, NULL, 'o'},
                                         {"export", no_argument, NULL, F_EXPORT},
                                         {"jobs", required_argument, NULL, 'j'},
                                         {"no-cache", no_argument, NULL, F_NO_CACHE},
                                         {"cross-compiler", required_argument, NULL, F_CROSS_CC},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};

typedef struct build_flags {
  opt_parse common;
  const char *target, *target_host, *executor_text, *runtime_text, *mod_name, *params_path, *dir, *cross_cc;
  const char *input_shapes, *input_dtypes;
  int help, export_lib, jobs, no_cache;
} build_flags;

static int on_flag(int c, const char *value, void *data) {
  build_flags *b = data;
  switch (c) {
  case F_TARGET: b->target = value; break;
  case F_HOST: b->target_host = value; break;
  case F_EXECUTOR: b->executor_text = value; break;
  case F_RUNTIME: b->runtime_text = value; break;
  case F_MOD_NAME:
    if (!value[0] || strchr(value, '/'))
      return cli_usage_error("build", "--mod-name: expected a plain name, got '%s'", cli_quote(value));
    b->mod_name = value;
    break;
  case F_PARAMS: b->params_path = value; break;
  case F_INPUT_SHAPES: b->input_shapes = value; break;
  case F_INPUT_DTYPES: b->input_dtypes = value; break;
  case 'o': b->dir = value; break;
  case F_EXPORT: b->export_lib = 1; break;
  case F_NO_CACHE: b->no_cache = 1; break;
  case F_CROSS_CC: b->cross_cc = value; break;
  case 'j': {
    char *end = NULL;
    long j = strtol(value, &end, 10);
    if (!value[0] || *end || j < 1 || j > 1024)
      return cli_usage_error("build", "--jobs: expected a count from 1 to 1024, got '%s'", cli_quote(value));
    b->jobs = (int)j;
    break;
  }
  case 'h': b->help = 1; break;
  default: return opt_common_flag(&b->common, c, value);
  }
  return CLI_OK;
}

/* ---- --executor and --runtime ---------------------------------------------------- */

static int json_value(const json_t *j, int depth, irm_any *out);

static int json_object_map(const json_t *j, int depth, irm_any *out) {
  irm_object *map = NULL;
  int rc = irm_map_new(&map);
  const char *key;
  json_t *item;
  json_object_foreach((json_t *)j, key, item) {
    irm_any v = irm_any_none();
    if (!rc) rc = json_value(item, depth + 1, &v);
    if (!rc) rc = irm_map_set_move(&map, key, &v);
    irm_any_release(&v);
  }
  if (rc) irm_object_release(map);
  else *out = irm_any_object(map);
  return rc;
}

/* Plain JSON as irm values: objects Maps, arrays Arrays, strings,
 * integers, reals, booleans, null NONE. */
static int json_value(const json_t *j, int depth, irm_any *out) {
  *out = irm_any_none();
  if (depth > 16) return irm_error(IRM_EVALUE, "JSON nested more than 16 levels deep");
  if (json_is_object(j)) return json_object_map(j, depth, out);
  if (json_is_array(j)) {
    irm_object *arr = NULL;
    int rc = irm_array_new(NULL, 0, &arr);
    for (size_t i = 0; !rc && i < json_array_size(j); i++) {
      irm_any v = irm_any_none();
      rc = json_value(json_array_get(j, i), depth + 1, &v);
      if (!rc) rc = irm_array_append_move(&arr, &v);
      irm_any_release(&v);
    }
    if (rc) irm_object_release(arr);
    else *out = irm_any_object(arr);
    return rc;
  }
  if (json_is_string(j)) {
    irm_object *s = NULL;
    int rc = irm_string_new(json_string_value(j), json_string_length(j), &s);
    if (!rc) *out = irm_any_object(s);
    return rc;
  }
  if (json_is_integer(j)) *out = irm_any_int(json_integer_value(j));
  else if (json_is_real(j)) *out = irm_any_float(json_real_value(j));
  else if (json_is_boolean(j)) *out = irm_any_bool(json_is_true(j));
  return IRM_OK;
}

static int config_from_json(const char *category, const char *text, irm_object **out) {
  json_error_t err;
  json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
  if (!root) return irm_error(IRM_EVALUE, "malformed JSON at line %d, column %d: %s", err.line, err.column, err.text);
  irm_any map = irm_any_none();
  int rc = json_is_object(root) ? json_value(root, 0, &map)
                                : irm_error(IRM_EVALUE, "expected a JSON object {\"kind\": ...}");
  json_decref(root);
  if (!rc)
    rc = !strcmp(category, "executor") ? irm_executor_from_map(map.v_obj, out) : irm_runtime_from_map(map.v_obj, out);
  irm_any_release(&map);
  return rc;
}

/* "kind,key=value,...": each value parsed by its option's type. */
static int config_from_text(const char *category, const char *text, irm_object **out) {
  char *copy = strdup(text);
  if (!copy) return irm_error(IRM_ENOMEM, "out of memory");
  char *save = NULL, *kind_name = strtok_r(copy, ",", &save);
  irm_kind *kind = NULL;
  irm_object *options = NULL;
  int rc = kind_name ? irm_kind_find(category, kind_name, &kind) : irm_error(IRM_EVALUE, "expected a kind name");
  if (!rc) rc = irm_map_new(&options);
  for (char *item; !rc && (item = strtok_r(NULL, ",", &save));) {
    char *eq = strchr(item, '=');
    irm_option_type type;
    irm_any v = irm_any_none();
    if (eq) *eq = '\0';
    rc = irm_kind_option(kind, item, &type, NULL);
    /* A bare option is a true bool ("aot,unpacked-api"). */
    if (!rc) rc = irm_option_parse_text(type, eq ? eq + 1 : "true", &v);
    if (!rc) rc = irm_map_set_move(&options, item, &v);
    irm_any_release(&v);
  }
  if (!rc)
    rc = !strcmp(category, "executor") ? irm_executor_create(kind_name, options, out)
                                       : irm_runtime_create(kind_name, options, out);
  irm_object_release(options);
  free(copy);
  return rc;
}

static int parse_config(const char *category, const char *text, irm_object **out) {
  *out = NULL;
  if (!text) return CLI_OK;
  const char *p = text + strspn(text, " \t\n");
  int rc = *p == '{' ? config_from_json(category, p, out) : config_from_text(category, p, out);
  if (rc) return cli_usage_error("build", "--%s '%s': %s", category, cli_quote(text), irm_last_error());
  return CLI_OK;
}

/* ---- reading and writing files --------------------------------------------------------- */

static int read_params(const char *path, irm_object **out) {
  *out = NULL;
  if (!path) return CLI_OK;
  char *text = NULL;
  size_t len = 0;
  if (cli_read_all("build", path, &text, &len)) return CLI_FAIL;
  irm_any v = irm_any_none();
  /* TVM's param dict by its magic number, else irm's JSON. */
  irm_object *dict = NULL;
  int binary = irm_param_dict_is(text, len);
  int rc = binary ? irm_param_dict_load(text, len, &dict) : irm_from_json(text, len, &v);
  if (binary && !rc) v = irm_any_object(dict);
  free(text);
  if (!rc && (v.type_code != IRM_OBJECT || !irm_object_is(v.v_obj, "ffi.Map")))
    rc = irm_error(IRM_ETYPE, "expected a Map name -> Tensor, got %s", irm_any_type_name(&v));
  if (rc) {
    irm_any_release(&v);
    return cli_say(CLI_FAIL, "build: --params '%s': %s", cli_quote(path), irm_last_error());
  }
  *out = v.v_obj;
  return CLI_OK;
}

/* ---- the summary ------------------------------------------------------------------------ */

static void show(const char *label, const irm_any *v) {
  fprintf(cli_out, "  %-11s ", label);
  opt_summary_value(label, v);
  fputc('\n', cli_out);
}

static int print_configuration(const build_flags *b, const irm_module *built, const char *mod_name) {
  const opt_flags *f = b->common.f;
  irm_compilation_config *cfg = NULL;
  if (irm_module_compilation_config(built, &cfg)) return cli_fail("build");
  fprintf(cli_out, "irm %s: build of %s%s%s\n\nconfiguration\n", irm_version(),
          b->common.f->model ? "'" : "the example model 'cnn'", f->model ? cli_quote(f->model) : "",
          f->model ? "'" : "");
  const irm_object *prims = irm_compilation_config_primitive_targets(cfg);
  for (size_t i = 0; i < irm_array_size(prims); i++) show("target", irm_array_at(prims, i));
  irm_any v = irm_any_object(irm_compilation_config_host_target(cfg));
  show("target-host", &v);
  v = irm_any_object(irm_compilation_config_executor(cfg));
  show("executor", &v);
  v = irm_any_object(irm_compilation_config_runtime(cfg));
  show("runtime", &v);
  irm_object_release(cfg);
  fprintf(cli_out, "  %-11s %s\n  %-11s %d\n  %-11s ", "mod_name", mod_name, "opt_level",
          f->opt_level < 0 ? 2 : f->opt_level, "config");
  opt_print_config(f);
  fprintf(cli_out, "  %-11s %s\n\n", "passes", f->passes ? f->passes : "(the executor's pipeline only)");
  return CLI_OK;
}

/* ---- the build ---------------------------------------------------------------------------- */

/* A part of irm_build's result (build.h: "module", "artifacts",
 * "params"); NONE if the driver ever gave none. */
static irm_any result_part(const irm_object *result, const char *key) {
  const irm_any *v = result ? irm_map_find_cstr(result, key) : NULL;
  return v ? *v : irm_any_none();
}

/* The weights the model was built with: the driver's params, else the
 * model's own (what irm run --check evaluates it with). Borrowed. */
static const irm_object *model_weights(const irm_module *model, const irm_object *result) {
  irm_any p = result_part(result, "params");
  if (p.type_code == IRM_OBJECT && irm_map_size(p.v_obj)) return p.v_obj;
  return irm_module_params(model);
}

/* m without its "params" attribute (m itself, retained, when it has none). */
static int without_params(const irm_module *m, irm_module **out) {
  if (irm_module_params(m)) return irm_module_without_attr(m, "params", out);
  irm_object_retain((irm_object *)m);
  *out = (irm_module *)m;
  return IRM_OK;
}

/* A module holding only m's attributes (its configuration, what
 * export_library reads) without the params: the record's "built". */
static int config_only(const irm_module *m, irm_module **out) {
  irm_object *funcs = NULL;
  irm_module *with = NULL;
  int rc = irm_map_new(&funcs);
  if (!rc) rc = irm_module_new(funcs, irm_dict_attrs_map(irm_module_attrs(m)), &with);
  if (!rc) rc = without_params(with, out);
  irm_object_release(with);
  irm_object_release(funcs);
  return rc;
}

/* The name of an artifact holding exactly blob's bytes, or NULL. */
static const char *same_artifact(const irm_object *artifacts, const irm_object *blob) {
  irm_map_iter it = irm_map_iter_begin(artifacts);
  const irm_object *k;
  const irm_any *v;
  while (irm_map_iter_next(&it, &k, &v))
    if (irm_string_size(v->v_obj) == irm_string_size(blob) &&
        !memcmp(irm_string_data(v->v_obj), irm_string_data(blob), irm_string_size(blob)))
      return irm_string_data(k);
  return NULL;
}

/* The record irm run reads and the model's weights as a param dict
 * (BUILD_WEIGHTS_SUFFIX), written into dir: the record names the weights'
 * file and holds no tensor of its own. */
static int write_record(const irm_module *model, const irm_object *result, const char *mod_name, const char *dir,
                        const char *cross_cc) {
  irm_object *names = NULL, *record = NULL, *text = NULL, *files = NULL, *one = NULL, *blob = NULL, *empty = NULL;
  irm_module *bare = NULL, *built = NULL;
  const irm_object *artifacts = result_part(result, "artifacts").v_obj;
  const irm_object *weights = model_weights(model, result);
  char weights_name[300];
  snprintf(weights_name, sizeof weights_name, "%s" BUILD_WEIGHTS_SUFFIX, mod_name);
  int rc = irm_array_new(NULL, 0, &names);
  irm_map_iter it = irm_map_iter_begin(artifacts);
  const irm_object *k;
  const irm_any *v;
  while (!rc && irm_map_iter_next(&it, &k, &v)) {
    irm_any name = irm_any_str(irm_string_data(k));
    rc = irm_array_append_move(&names, &name);
  }
  if (!rc && !weights) rc = irm_map_new(&empty);
  if (!rc) rc = irm_param_dict_save(weights ? weights : empty, &blob);
  /* Weights the build left unchanged are its params artifact already: no second copy. */
  const char *same = rc ? NULL : same_artifact(artifacts, blob);
  if (same) snprintf(weights_name, sizeof weights_name, "%s", same);
  if (!rc) rc = without_params(model, &bare);
  if (!rc) rc = config_only(result_part(result, "module").v_obj, &built);
  /* cross_compiler: --cross-compiler, which irm run compiles with too */
  const char *keys[] = {"module", "built", "params", "mod_name", "artifacts", "cross_compiler"};
  irm_any vals[] = {irm_any_object(bare),  irm_any_object(built), irm_any_str(weights_name),
                    irm_any_str(mod_name), irm_any_object(names), irm_any_str(cross_cc ? cross_cc : "")};
  if (!rc) rc = irm_map_from_pairs(keys, vals, cross_cc ? 6 : 5, &record);
  irm_any rv = irm_any_object(record);
  if (!rc) rc = irm_to_json(&rv, &text);
  /* Written as an artifact is: one mechanism for the folder's files. */
  irm_any tv = irm_any_object(text), bv = irm_any_object(blob);
  text = blob = NULL;
  if (!rc) rc = irm_map_new(&files);
  if (!rc) rc = irm_map_set_move(&files, BUILD_RECORD, &tv);
  if (!rc && !same) rc = irm_map_set_move(&files, weights_name, &bv);
  const char *okeys[] = {"artifacts"};
  irm_any ovals[] = {irm_any_object(files)};
  if (!rc) rc = irm_map_from_pairs(okeys, ovals, 1, &one);
  if (!rc) rc = irm_build_write(one, dir);
  irm_any_release(&tv);
  irm_any_release(&bv);
  irm_object_release(one);
  irm_object_release(files);
  irm_object_release(record);
  irm_object_release(names);
  irm_object_release(empty);
  irm_object_release(bare);
  irm_object_release(built);
  return rc;
}

static int print_files(const irm_object *result, const char *dir, const char *mod_name) {
  const irm_object *artifacts = result_part(result, "artifacts").v_obj;
  irm_map_iter it = irm_map_iter_begin(artifacts);
  const irm_object *k;
  const irm_any *v;
  int sources = 0;
  fputs("files written\n", cli_out);
  while (irm_map_iter_next(&it, &k, &v)) {
    const char *name = irm_string_data(k);
    size_t len = strlen(name);
    sources += len > 2 && !strcmp(name + len - 2, ".c");
    fprintf(cli_out, "  %s/%s (%zu bytes)\n", cli_quote(dir), name, irm_string_size(v->v_obj));
  }
  struct stat sb;
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, BUILD_RECORD);
  fprintf(cli_out, "  %s (%lld bytes: the model and the build, for irm run)\n", cli_quote(path),
          stat(path, &sb) == 0 ? (long long)sb.st_size : 0LL);
  snprintf(path, sizeof path, "%s/%s" BUILD_WEIGHTS_SUFFIX, dir, mod_name);
  if (stat(path, &sb) == 0) /* absent when the params artifact holds the same weights */
    fprintf(cli_out, "  %s (%lld bytes: the model's weights, for irm run --check)\n", cli_quote(path),
            (long long)sb.st_size);
  if (!sources)
    fputs("\nThe executor generated no C source (its kind has no 'executor.codegen'), so irm run has\n"
          "nothing to compile: build with --executor graph or aot for a program irm run can run.\n",
          cli_out);
  else fprintf(cli_out, "\nirm run %s compiles and runs it.\n", cli_quote(dir));
  return CLI_OK;
}

/* --export: the library DIR/lib<mod_name>.so and what compiling it took. */
static int export_lib(const build_flags *b, const irm_object *result, const char *dir, const char *mod_name) {
  char path[4400];
  snprintf(path, sizeof path, "%s/lib%s.so", dir, mod_name);
  irm_export_options o = IRM_EXPORT_OPTIONS_DEFAULT;
  o.jobs = b->jobs;
  o.cache = b->no_cache ? 0 : -1;
  o.cc = b->cross_cc;
  if (irm_build_export_library_with(result, path, &o)) return cli_fail("build: --export");
  fprintf(cli_out, "\nlibrary\n  %s: %zu units, %zu compiled, %zu from the build cache\n", cli_quote(path), o.units,
          o.compiled, o.cache_hits);
  return CLI_OK;
}

static int build_in_context(build_flags *b, irm_module *model, const irm_object *executor, const irm_object *runtime,
                            const irm_object *params, irm_object **result, irm_module **given, irm_object **report) {
  opt_flags *f = b->common.f;
  print_state ps[2];
  irm_instrument *timing = NULL;
  irm_object *instruments = NULL;
  irm_pass_context *ctx = NULL;
  irm_pass *pipeline = NULL;
  *given = model;
  irm_object_retain(model);
  *report = NULL;
  if (f->passes && irm_pipeline_parse(f->passes, &pipeline))
    return cli_usage_error("build", "--passes: %s", irm_last_error());
  f->summary = 1; /* the timing instrument, for the summary's "passes run" */
  int rc = opt_make_instruments(f, ps, &timing, &instruments) ? cli_fail("build") : CLI_OK;
  if (!rc &&
      irm_pass_context_new(f->opt_level < 0 ? 2 : f->opt_level, f->required, f->disabled, f->config, instruments, &ctx))
    rc = cli_usage_error("build", "%s", irm_last_error());
  if (!rc && irm_pass_context_enter(ctx)) rc = cli_fail("build");
  if (!rc) {
    int failed = 0;
    if (pipeline) {
      irm_module *after = NULL;
      failed = irm_pass_run(pipeline, model, &after);
      if (!failed) irm_object_release(*given), *given = after;
    }
    irm_any target = irm_any_str(b->target ? b->target : BUILD_DEFAULT_TARGET);
    irm_any host = b->target_host ? irm_any_str(b->target_host) : irm_any_none();
    if (!failed) failed = irm_build(*given, &target, &host, executor, runtime, params, b->mod_name, result);
    char *error = failed ? strdup(irm_last_error()) : NULL;
    /* The records go when the context is exited. */
    if (timing && irm_timing_render(timing, report)) *report = NULL, irm_clear_error();
    if (f->time_passes && *report) opt_show_report(f, *report, stderr);
    if (irm_pass_context_exit(ctx) && !failed) failed = 1, error = strdup(irm_last_error());
    if (failed) rc = cli_say(CLI_FAIL, "build: %s", error ? error : "out of memory");
    free(error);
  }
  irm_object_release(ctx);
  irm_object_release(pipeline);
  irm_object_release(instruments);
  irm_object_release(timing);
  return rc;
}

/* MODEL: an ONNX model through the Python frontend (its params too,
 * unless --params gave them), else what irm opt reads. */
static int load_model(build_flags *b, irm_module **model, irm_object **params) {
  const char *path = b->common.f->model;
  if (!onnx_is_model(path)) {
    if (b->input_shapes || b->input_dtypes)
      return cli_usage_error("build", "--input-shapes and --input-dtypes apply to an ONNX model only");
    return opt_load_model("build", path, model);
  }
  struct stat sb;
  if (stat(path, &sb) != 0) return cli_say(CLI_FAIL, "build: cannot read '%s': %s", cli_quote(path), strerror(errno));
  onnx_result r;
  int rc = onnx_import(path, b->input_shapes, b->input_dtypes, &r);
  if (!rc) rc = opt_load_model("build", r.ir_path, model);
  if (!rc && !*params) rc = read_params(r.params_path, params);
  onnx_result_clean(&r);
  return rc;
}

static int build_run(build_flags *b) {
  opt_flags *f = b->common.f;
  irm_object *executor = NULL, *runtime = NULL, *params = NULL, *result = NULL;
  irm_module *model = NULL, *given = NULL;
  irm_object *report = NULL;
  int rc = parse_config("executor", b->executor_text, &executor);
  if (!rc) rc = parse_config("runtime", b->runtime_text, &runtime);
  if (!rc) rc = read_params(b->params_path, &params);
  if (!rc) rc = load_model(b, &model, &params);
  if (!rc) rc = build_in_context(b, model, executor, runtime, params, &result, &given, &report);
  irm_any built = result_part(result, "module");
  const char *mod_name = built.type_code == IRM_OBJECT ? irm_module_mod_name(built.v_obj) : NULL;
  if (!mod_name) mod_name = b->mod_name ? b->mod_name : "default";
  char dir[4096];
  snprintf(dir, sizeof dir, "%s%s", b->dir ? "" : "build-", b->dir ? b->dir : mod_name);
  if (!rc) rc = print_configuration(b, built.v_obj, mod_name);
  if (!rc && report) opt_show_report(f, report, cli_out);
  if (!rc && (irm_build_write(result, dir) || write_record(given, result, mod_name, dir, b->cross_cc)))
    rc = cli_fail("build: writing the files");
  if (!rc) rc = print_files(result, dir, mod_name);
  if (!rc && b->export_lib) rc = export_lib(b, result, dir, mod_name);
  irm_object_release(executor);
  irm_object_release(runtime);
  irm_object_release(params);
  irm_object_release(result);
  irm_object_release(model);
  irm_object_release(given);
  irm_object_release(report);
  return rc;
}

int cmd_build(int argc, char **argv) {
  opt_flags f;
  build_flags b;
  memset(&b, 0, sizeof b);
  if (opt_parse_begin(&b.common, &f, "build", argc)) return CLI_FAIL;
  int first = 0;
  int rc = cli_load_env_plugins();
  if (!rc) rc = cli_parse_flags("build", argc, argv, "ho:j:", longopts, on_flag, &b, &first);
  if (!rc && b.help) {
    build_usage(cli_out);
  } else if (!rc) {
    if (argc - first > 1) rc = cli_usage_error("build", "unexpected argument '%s'", cli_quote(argv[first + 1]));
    else if (argc - first == 1) f.model = argv[first];
    if (!rc) rc = opt_finish_flags(&b.common);
    if (!rc) rc = build_run(&b);
  }
  opt_parse_end(&b.common);
  return rc;
}
