/* irm run DIR: builds nothing. The artifacts irm build wrote to DIR are
 * compiled with cc (irm_build_export_library, from the build result
 * rebuilt out of DIR's files and its record, cmd_build.h), loaded
 * (irm_runtime_load) and run on seeded random inputs or given ones; the
 * outputs are printed, elided, with the largest difference from
 * ir.Evaluate of the model the build was made from. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_qemu.h"
#include "cmd_build.h"
#include "irm/runtime.h"
#include "cmd_opt.h"

#define RUN_DEFAULT_SEED 0
#define RUN_DEFAULT_SHOW 8
#define RUN_DEFAULT_TOLERANCE 1e-4

static void run_usage(FILE *to) {
  fprintf(to,
          "usage: irm run DIR [--seed N] [--input NAME=FILE]... [flags]\n\n"
          "Compiles the artifacts irm build wrote to DIR with cc into DIR/lib<mod_name>.so, loads it, runs\n"
          "it on random inputs (seeded; the same seed gives the same inputs) or given ones, prints the\n"
          "outputs and the largest difference from ir.Evaluate of the model the build was made from\n"
          "(" BUILD_RECORD " holds it). Builds nothing: DIR must hold generated C (graph and aot do).\n\n"
          "Flags:\n"
          "  --seed N               the random inputs' seed (default %d); values uniform in [-1, 1),\n"
          "                         integers in [-8, 8)\n"
          "  --input NAME=FILE      input NAME from FILE, a JSON file (ffi.ToJSON) of a Tensor; repeatable\n"
          "  --show N               print the first N values of each output (default %d; 0: all)\n"
          "  --tolerance X          fail (status 1) when an output differs from ir.Evaluate by more\n"
          "                         than X (default %g)\n"
          "  --load-plugin FILE     load a plugin first; repeatable (IRM_PLUGIN_PATH too)\n"
          "  -h, --help             this text\n\n"
          "Exit status: 0 success, 1 failure (DIR is no build, the compiler or the run failed, outputs\n"
          "differ), 2 usage error.\n",
          RUN_DEFAULT_SEED, RUN_DEFAULT_SHOW, RUN_DEFAULT_TOLERANCE);
}

enum { F_SEED = 256, F_INPUT, F_SHOW, F_TOLERANCE, F_PLUGIN };

static const struct option longopts[] = {{"seed", required_argument, NULL, F_SEED},
                                         {"input", required_argument, NULL, F_INPUT},
                                         {"show", required_argument, NULL, F_SHOW},
                                         {"tolerance", required_argument, NULL, F_TOLERANCE},
                                         {"load-plugin", required_argument, NULL, F_PLUGIN},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};

typedef struct run_flags {
  const char *dir;
  int64_t seed, show;
  double tolerance;
  const char **inputs; /* NAME=FILE */
  size_t n_inputs;
  int help;
} run_flags;

static int on_flag(int c, const char *value, void *data) {
  run_flags *r = data;
  char *end = NULL;
  switch (c) {
  case F_SEED: return opt_parse_int("run", "--seed", value, 0, INT64_MAX, &r->seed);
  case F_SHOW: return opt_parse_int("run", "--show", value, 0, INT64_MAX, &r->show);
  case F_TOLERANCE:
    errno = 0;
    r->tolerance = strtod(value, &end);
    if (errno || end == value || *end || !(r->tolerance >= 0) || isinf(r->tolerance))
      return cli_usage_error("run", "--tolerance: expected a number >= 0, got '%s'", cli_quote(value));
    return CLI_OK;
  case F_INPUT:
    if (!strchr(value, '=') || value[0] == '=')
      return cli_usage_error("run", "--input: expected NAME=FILE, got '%s'", cli_quote(value));
    r->inputs[r->n_inputs++] = value;
    return CLI_OK;
  case F_PLUGIN: return cli_load_plugin(value);
  case 'h': r->help = 1; return CLI_OK;
  default: return CLI_OK;
  }
}

/* ---- DIR: the record and the build result ---------------------------------------------- */

static int read_json(const char *path, irm_any *out) {
  char *text = NULL;
  size_t len = 0;
  if (cli_read_all("run", path, &text, &len)) return CLI_FAIL;
  int rc = irm_from_json(text, len, out);
  free(text);
  return rc ? cli_say(CLI_FAIL, "run: '%s': %s", cli_quote(path), irm_last_error()) : CLI_OK;
}

static const irm_object *record_part(const irm_object *record, const char *key, const char *type) {
  const irm_any *v = irm_map_find_cstr(record, key);
  return v && v->type_code == IRM_OBJECT && irm_object_is(v->v_obj, type) ? v->v_obj : NULL;
}

static int read_record(const char *dir, irm_object **out) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, BUILD_RECORD);
  FILE *probe = fopen(path, "rb");
  if (!probe)
    return cli_say(CLI_FAIL, "run: '%s' holds no %s (%s): give a folder irm build wrote", cli_quote(dir), BUILD_RECORD,
                   strerror(errno));
  fclose(probe);
  irm_any v = irm_any_none();
  if (read_json(path, &v)) return CLI_FAIL;
  const irm_object *rec = v.type_code == IRM_OBJECT && irm_object_is(v.v_obj, "ffi.Map") ? v.v_obj : NULL;
  if (!rec || !record_part(rec, "module", "ir.IRModule") || !record_part(rec, "built", "ir.IRModule") ||
      !record_part(rec, "params", "ffi.Map") || !record_part(rec, "mod_name", "ffi.String") ||
      !record_part(rec, "artifacts", "ffi.Array")) {
    irm_any_release(&v);
    return cli_say(CLI_FAIL,
                   "run: '%s' is no record of irm build (it needs module, built, params, mod_name and "
                   "artifacts)",
                   cli_quote(path));
  }
  *out = v.v_obj;
  return CLI_OK;
}

/* ---- what the record names: confined to DIR ---------------------------------------------- */

/* The record is data: a name it gives must be a C identifier (mod_name, as
 * irm build requires) or a plain file name, and the file DIR/name, when it
 * exists, must be DIR's own: a symlink may not lead out of DIR. */
static bool plain_identifier(const char *s) {
  if (!s || !s[0] || (s[0] >= '0' && s[0] <= '9') || strlen(s) > 200) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return false;
  return true;
}

static int inside_dir(const char *dir, const char *name, const char *what) {
  if (!name || !name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    return cli_say(CLI_FAIL, "run: %s/%s names %s '%s', which is no plain file name", cli_quote(dir), BUILD_RECORD,
                   what, cli_quote(name ? name : ""));
  char path[4096], real_dir[PATH_MAX], real[PATH_MAX];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (lstat(path, &st) != 0) return CLI_OK; /* to be made, in DIR */
  if (!realpath(dir, real_dir) || !realpath(path, real))
    return cli_say(CLI_FAIL, "run: cannot resolve '%s': %s", cli_quote(path), strerror(errno));
  size_t n = strlen(real_dir);
  if (strncmp(real, real_dir, n) != 0 || real[n] != '/' || strchr(real + n + 1, '/'))
    return cli_say(CLI_FAIL, "run: '%s' (%s) leads out of '%s' to '%s'; irm run reads and writes DIR's own files only",
                   cli_quote(path), what, cli_quote(dir), cli_quote(real));
  return CLI_OK;
}

/* mod_name a C identifier, and every file irm run reads or writes in DIR. */
static int check_record_names(const char *dir, const irm_object *record) {
  const char *mod_name = irm_string_data(record_part(record, "mod_name", "ffi.String"));
  if (!plain_identifier(mod_name))
    return cli_say(CLI_FAIL,
                   "run: %s/%s gives mod_name '%s', which is no C identifier (letters, digits, '_'; irm build "
                   "writes no other)",
                   cli_quote(dir), BUILD_RECORD, cli_quote(mod_name));
  char lib[300];
  snprintf(lib, sizeof lib, "lib%s.so", mod_name);
  int rc = inside_dir(dir, BUILD_RECORD, "the record");
  if (!rc) rc = inside_dir(dir, lib, "the library");
  const irm_object *names = record_part(record, "artifacts", "ffi.Array");
  for (size_t i = 0; !rc && i < irm_array_size(names); i++)
    rc = inside_dir(dir, cli_str(irm_array_at(names, i)), "an artifact");
  return rc;
}

/* {"module": built, "artifacts": DIR's files as the record names them,
 * "params": ...}: what irm_build gave irm build. */
static int rebuild_result(const char *dir, const irm_object *record, irm_object **out) {
  const irm_object *names = record_part(record, "artifacts", "ffi.Array");
  irm_object *files = NULL;
  int rc = irm_map_new(&files) ? cli_fail("run") : CLI_OK;
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    const char *name = cli_str(irm_array_at(names, i));
    char path[4096];
    char *data = NULL;
    size_t len = 0;
    if (!name || strchr(name, '/')) {
      rc = cli_say(CLI_FAIL, "run: %s/%s names an artifact that is no plain file name", cli_quote(dir), BUILD_RECORD);
      break;
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if ((rc = cli_read_all("run", path, &data, &len))) break;
    irm_any s = irm_any_none();
    if (irm_string_new(data, len, &s.v_obj) == 0) {
      s.type_code = IRM_OBJECT;
      if (irm_map_set_move(&files, name, &s)) rc = cli_fail("run");
    } else {
      rc = cli_fail("run");
    }
    irm_any_release(&s);
    free(data);
  }
  const char *keys[] = {"module", "artifacts", "params"};
  irm_any vals[] = {*irm_map_find_cstr(record, "built"), irm_any_object(files), *irm_map_find_cstr(record, "params")};
  if (!rc && irm_map_from_pairs(keys, vals, 3, out)) rc = cli_fail("run");
  irm_object_release(files);
  return rc;
}

/* ---- inputs ------------------------------------------------------------------------------- */

static uint64_t next_random(uint64_t *state) { /* splitmix64 */
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static int random_input(const irm_object *var, uint64_t seed, irm_any *out) {
  const irm_object *type = irm_expr_type(var);
  if (!type || !irm_object_is(type, "dataflow.TensorType"))
    return cli_say(CLI_FAIL, "run: input '%s' has no tensor type to make a random value of: give it with --input",
                   cli_quote(irm_var_name(var)));
  DLDataType dt = irm_tensor_type_dtype(type);
  irm_tensor *t = NULL;
  if (irm_tensor_new(dt, irm_tensor_type_shape(type), irm_tensor_type_ndim(type), NULL, &t)) return cli_fail("run");
  uint64_t state = seed;
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) {
    double u = (double)(next_random(&state) >> 11) / 9007199254740992.0; /* [0, 1) */
    double x = dt.code == kDLFloat || dt.code == kDLBfloat ? 2 * u - 1 : dt.bits == 1 ? (u < 0.5) : floor(16 * u) - 8;
    if (dt.code == kDLUInt && x < 0) x += 8;
    irm_tensor_set_f64(t, i, x);
  }
  *out = irm_any_object(t);
  return CLI_OK;
}

/* The --input for name, or NULL. */
static const char *given_input(const run_flags *r, const char *name) {
  size_t len = strlen(name);
  for (size_t i = 0; i < r->n_inputs; i++)
    if (!strncmp(r->inputs[i], name, len) && r->inputs[i][len] == '=') return r->inputs[i] + len + 1;
  return NULL;
}

/* Every --input must name a data input. */
static int check_input_names(const run_flags *r, const char **names, size_t n) {
  for (size_t i = 0; i < r->n_inputs; i++) {
    size_t len = strcspn(r->inputs[i], "=");
    char name[256];
    if (len >= sizeof name) len = sizeof name - 1;
    memcpy(name, r->inputs[i], len);
    name[len] = '\0';
    size_t j = 0;
    while (j < n && strcmp(names[j], name)) j++;
    if (j < n) continue;
    const char *close = irm_closest_name(name, names, n);
    return cli_usage_error("run", "--input: the model has no input '%s'%s%s%s", cli_quote(name),
                           close ? " (did you mean '" : "", close ? close : "", close ? "'?)" : "");
  }
  return CLI_OK;
}

static int input_from_file(const char *name, const char *path, irm_any *out) {
  if (read_json(path, out)) return CLI_FAIL;
  if (out->type_code == IRM_OBJECT && irm_is_tensor(out->v_obj)) return CLI_OK;
  irm_any_release(out);
  return cli_say(CLI_FAIL, "run: --input %s: '%s' holds no Tensor (expected ffi.ToJSON of one)", cli_quote(name),
                 cli_quote(path));
}

/* main's parameters: the params' values, the others (the data inputs,
 * also into *data, in order) given or random. */
static int make_inputs(const run_flags *r, const irm_object *record, irm_object **all, irm_object **data) {
  const irm_module *mod = record_part(record, "module", "ir.IRModule");
  const irm_object *params = record_part(record, "params", "ffi.Map");
  if (!irm_map_size(params)) params = irm_module_params(mod);
  const irm_object *main_fn = irm_module_function(mod, "main");
  if (!main_fn) return cli_say(CLI_FAIL, "run: the model of %s has no function 'main'", BUILD_RECORD);
  size_t n = irm_function_param_count(main_fn), n_data = 0;
  const char **names = calloc(n + 1, sizeof *names);
  int rc = !names || irm_array_new(NULL, 0, all) || irm_array_new(NULL, 0, data) ? cli_say(CLI_FAIL, "out of memory")
                                                                                 : CLI_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    const irm_object *var = irm_function_param(main_fn, i);
    const char *name = irm_var_name(var);
    const irm_any *p = params ? irm_map_find_cstr(params, name) : NULL;
    irm_any v = irm_any_none();
    if (p) {
      if (p->type_code == IRM_OBJECT) irm_object_retain(p->v_obj);
      v = *p;
    } else {
      names[n_data++] = name;
      const char *file = given_input(r, name);
      rc = file ? input_from_file(name, file, &v) : random_input(var, (uint64_t)r->seed * 1000003u + i, &v);
      if (!rc && irm_array_append_move(data, &v)) rc = cli_fail("run");
    }
    if (!rc && irm_array_append_move(all, &v)) rc = cli_fail("run");
    irm_any_release(&v);
  }
  if (!rc) rc = check_input_names(r, names, n_data);
  free(names);
  return rc;
}

/* ---- outputs ------------------------------------------------------------------------------- */

static void print_tensor(const char *label, const irm_tensor *t, int64_t show) {
  const DLTensor *dl = irm_tensor_dl(t);
  fprintf(cli_out, "%s: Tensor[(", label);
  for (int32_t d = 0; d < dl->ndim; d++) fprintf(cli_out, "%s%lld", d ? ", " : "", (long long)dl->shape[d]);
  fprintf(cli_out, "%s), %s] = [", dl->ndim == 1 ? "," : "", irm_dtype_name(dl->dtype));
  int64_t n = irm_tensor_numel(t), k = show && show < n ? show : n;
  for (int64_t i = 0; i < k; i++) fprintf(cli_out, "%s%.6g", i ? ", " : "", irm_tensor_get_f64(t, i));
  if (k < n) fprintf(cli_out, ", ... (%lld more)", (long long)(n - k));
  fputs("]\n", cli_out);
}

static double largest_difference(const irm_tensor *a, const irm_tensor *b) {
  if (irm_tensor_numel(a) != irm_tensor_numel(b)) return INFINITY;
  double worst = 0;
  for (int64_t i = 0; i < irm_tensor_numel(a); i++) {
    double x = irm_tensor_get_f64(a, i), y = irm_tensor_get_f64(b, i), d = fabs(x - y);
    if (isnan(x) != isnan(y)) d = INFINITY;
    if (d > worst) worst = d;
  }
  return worst;
}

static int compare(const run_flags *r, const irm_object *outs, const irm_any *want) {
  int tuple = want->type_code == IRM_OBJECT && irm_object_is(want->v_obj, "ffi.Array");
  size_t n_want = tuple ? irm_array_size(want->v_obj) : 1;
  if (irm_array_size(outs) != n_want)
    return cli_say(CLI_FAIL, "run: the library gave %zu outputs, ir.Evaluate %zu", irm_array_size(outs), n_want);
  double worst = 0;
  for (size_t j = 0; j < n_want; j++) {
    const irm_any *w = tuple ? irm_array_at(want->v_obj, j) : want;
    const irm_object *got = irm_array_at(outs, j)->v_obj;
    char label[32];
    snprintf(label, sizeof label, "output %zu", j);
    print_tensor(label, got, r->show);
    if (w->type_code != IRM_OBJECT || !irm_is_tensor(w->v_obj))
      return cli_say(CLI_FAIL, "run: ir.Evaluate gave %s for output %zu, not a Tensor", irm_any_type_name(w), j);
    double d = largest_difference(got, w->v_obj);
    if (d > worst || isnan(d)) worst = d;
  }
  fprintf(cli_out, "largest difference from ir.Evaluate: %.3g (tolerance %g)\n", worst, r->tolerance);
  if (!(worst <= r->tolerance))
    return cli_say(CLI_FAIL, "run: the outputs differ from ir.Evaluate by %.3g, more than --tolerance %g", worst,
                   r->tolerance);
  return CLI_OK;
}

static int run_dir(const run_flags *r) {
  irm_object *record = NULL, *result = NULL, *all = NULL, *data = NULL, *outs = NULL;
  irm_runtime_module *loaded = NULL;
  irm_any want = irm_any_none();
  char lib[4096];
  int rc = read_record(r->dir, &record);
  if (!rc) rc = check_record_names(r->dir, record);
  const char *mod_name = rc ? "" : irm_string_data(record_part(record, "mod_name", "ffi.String"));
  snprintf(lib, sizeof lib, "%s/lib%s.so", r->dir, mod_name);
  if (!rc) rc = make_inputs(r, record, &all, &data);
  if (!rc) rc = rebuild_result(r->dir, record, &result);
  if (!rc && irm_build_export_library(result, lib)) rc = cli_fail("run: compiling");
  int qemu = !rc && cli_qemu_needed(lib); /* built for another architecture: run under qemu-user */
  if (!rc && !qemu && irm_runtime_load(lib, &loaded)) rc = cli_fail("run: loading");
  if (!rc) {
    fprintf(cli_out, "irm run: %s compiled to %s; inputs: ", cli_quote(r->dir), cli_quote(lib));
    for (size_t i = 0; i < irm_array_size(data); i++) {
      const irm_object *t = irm_array_at(data, i)->v_obj;
      fprintf(cli_out, "%s%lld %s values", i ? ", " : "", (long long)irm_tensor_numel(t),
              irm_dtype_name(irm_tensor_dl(t)->dtype));
    }
    if (r->n_inputs) fputs(" (given)\n", cli_out);
    else fprintf(cli_out, " (random, seed %lld)\n", (long long)r->seed);
  }
  if (!rc && qemu) rc = cli_qemu_run(r->dir, lib, mod_name, data, &outs);
  else if (!rc && irm_runtime_module_run(loaded, data, &outs)) rc = cli_fail("run: running");
  if (!rc && irm_dataflow_evaluate(record_part(record, "module", "ir.IRModule"), "main", all, &want))
    rc = cli_fail("run: ir.Evaluate");
  if (!rc) rc = compare(r, outs, &want);
  irm_any_release(&want);
  irm_object_release(outs);
  irm_object_release(loaded);
  irm_object_release(data);
  irm_object_release(all);
  irm_object_release(result);
  irm_object_release(record);
  return rc;
}

int cmd_run(int argc, char **argv) {
  run_flags r;
  memset(&r, 0, sizeof r);
  r.seed = RUN_DEFAULT_SEED;
  r.show = RUN_DEFAULT_SHOW;
  r.tolerance = RUN_DEFAULT_TOLERANCE;
  r.inputs = calloc((size_t)argc + 1, sizeof *r.inputs);
  if (!r.inputs) return cli_say(CLI_FAIL, "out of memory");
  int first = 0;
  int rc = cli_load_env_plugins();
  if (!rc) rc = cli_parse_flags("run", argc, argv, "h", longopts, on_flag, &r, &first);
  if (!rc && r.help) {
    run_usage(cli_out);
  } else if (!rc) {
    if (argc - first > 1) rc = cli_usage_error("run", "unexpected argument '%s'", cli_quote(argv[first + 1]));
    else if (argc - first == 0) rc = cli_usage_error("run", "expected DIR, the folder irm build wrote");
    else r.dir = argv[first];
    if (!rc) rc = run_dir(&r);
  }
  free(r.inputs);
  return rc;
}
