/* irm run DIR: builds nothing. The artifacts irm build wrote to DIR are
 * compiled with cc (irm_build_export_library, from the build result
 * rebuilt out of DIR's files and its record, cmd_build.h) unless the
 * library there is newer than them, loaded (irm_runtime_load_threads) and
 * run on seeded random inputs or given ones (cmd_run_io.c); the outputs
 * are printed, elided, and with --check compared with ir.Evaluate of the
 * model the build was made from; --repeat and --profile time it
 * (cmd_run_bench.c). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_qemu.h"
#include "cmd_build.h"
#include "cmd_opt.h"
#include "cmd_run.h"

#define RUN_DEFAULT_SEED 0
#define RUN_DEFAULT_SHOW 8
#define RUN_DEFAULT_TOLERANCE 1e-4

static void run_usage(FILE *to) {
  fprintf(to,
          "usage: irm run DIR [--inputs FILE.npz] [--outputs FILE.npz] [--repeat N --number M] [--profile]\n"
          "               [--check [--tolerance X]] [flags]\n\n"
          "Compiles the artifacts irm build wrote to DIR with cc into DIR/lib<mod_name>.so (unless that library\n"
          "is newer than them: then it is reused), loads it, runs it on random inputs (seeded; the same seed\n"
          "gives the same inputs) or given ones and prints the outputs. Builds nothing: DIR must hold\n"
          "generated C (graph and aot do).\n\n"
          "Flags:\n"
          "  --inputs FILE          the inputs from FILE: an .npz (numpy.savez; one entry per input, by name)\n"
          "                         or an .npy for a model with one input; others stay random\n"
          "  --input NAME=FILE      input NAME from FILE, a JSON file (ffi.ToJSON) of a Tensor; repeatable\n"
          "  --seed N               the random inputs' seed (default %d); values uniform in [-1, 1),\n"
          "                         integers in [-8, 8)\n"
          "  --outputs FILE         write the outputs to FILE, an .npz (output_0, output_1, ...)\n"
          "  --show N               print the first N values of each output (default %d; 0: all)\n"
          "  --repeat N             time N measurements (mean, median, max, min, std in ms)\n"
          "  --number M             each measurement the mean of M runs (default 1)\n"
          "  --profile              per-kernel times (name, calls, total ms, share) of an aot or graph build, from\n"
          "                         DIR/lib<mod_name>.profile.so, compiled with the kernel hooks\n"
          "  --num-threads N        the threads the kernels may use (0: every CPU; default: IRM_NUM_THREADS,\n"
          "                         else the build's num-threads)\n"
          "  --check                compare the outputs with ir.Evaluate of the model (" BUILD_RECORD ")\n"
          "  --tolerance X          with --check (implies it): fail (status 1) when an output differs by\n"
          "                         more than X (default %g)\n"
          "  --load-plugin FILE     load a plugin first; repeatable (IRM_PLUGIN_PATH too)\n"
          "  -h, --help             this text\n\n"
          "Exit status: 0 success, 1 failure (DIR is no build, the compiler or the run failed, outputs\n"
          "differ), 2 usage error.\n",
          RUN_DEFAULT_SEED, RUN_DEFAULT_SHOW, RUN_DEFAULT_TOLERANCE);
}

enum {
  F_SEED = 256,
  F_INPUT,
  F_SHOW,
  F_TOLERANCE,
  F_PLUGIN,
  F_INPUTS,
  F_OUTPUTS,
  F_REPEAT,
  F_NUMBER,
  F_PROFILE,
  F_THREADS,
  F_CHECK
};

static const struct option longopts[] = {{"seed", required_argument, NULL, F_SEED},
                                         {"input", required_argument, NULL, F_INPUT},
                                         {"inputs", required_argument, NULL, F_INPUTS},
                                         {"outputs", required_argument, NULL, F_OUTPUTS},
                                         {"show", required_argument, NULL, F_SHOW},
                                         {"repeat", required_argument, NULL, F_REPEAT},
                                         {"number", required_argument, NULL, F_NUMBER},
                                         {"profile", no_argument, NULL, F_PROFILE},
                                         {"num-threads", required_argument, NULL, F_THREADS},
                                         {"check", no_argument, NULL, F_CHECK},
                                         {"tolerance", required_argument, NULL, F_TOLERANCE},
                                         {"load-plugin", required_argument, NULL, F_PLUGIN},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};

static int on_flag(int c, const char *value, void *data) {
  run_flags *r = data;
  char *end = NULL;
  switch (c) {
  case F_SEED: return opt_parse_int("run", "--seed", value, 0, INT64_MAX, &r->seed);
  case F_SHOW: return opt_parse_int("run", "--show", value, 0, INT64_MAX, &r->show);
  case F_REPEAT: return opt_parse_int("run", "--repeat", value, 1, 1000000, &r->repeat);
  case F_NUMBER: return opt_parse_int("run", "--number", value, 1, 1000000, &r->number);
  case F_THREADS: return opt_parse_int("run", "--num-threads", value, 0, 256, &r->num_threads);
  case F_PROFILE: r->profile = 1; return CLI_OK;
  case F_CHECK: r->check = 1; return CLI_OK;
  case F_INPUTS: r->inputs_file = value; return CLI_OK;
  case F_OUTPUTS: r->outputs_file = value; return CLI_OK;
  case F_TOLERANCE:
    errno = 0;
    r->tolerance = strtod(value, &end);
    if (errno || end == value || *end || !(r->tolerance >= 0) || isinf(r->tolerance))
      return cli_usage_error("run", "--tolerance: expected a number >= 0, got '%s'", cli_quote(value));
    r->check = 1;
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
      !record_part(rec, "params", "ffi.String") || !record_part(rec, "mod_name", "ffi.String") ||
      !record_part(rec, "artifacts", "ffi.Array")) {
    irm_any_release(&v);
    return cli_say(CLI_FAIL,
                   "run: '%s' is no record of irm build (it needs module, built, params (a file name), "
                   "mod_name and artifacts; build the folder again)",
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
  snprintf(lib, sizeof lib, "lib%s.profile.so", mod_name);
  if (!rc) rc = inside_dir(dir, lib, "the profiled library");
  if (!rc) rc = inside_dir(dir, irm_string_data(record_part(record, "params", "ffi.String")), "the weights");
  const irm_object *names = record_part(record, "artifacts", "ffi.Array");
  for (size_t i = 0; !rc && i < irm_array_size(names); i++)
    rc = inside_dir(dir, cli_str(irm_array_at(names, i)), "an artifact");
  return rc;
}

/* {"module": built, "artifacts": DIR's files as the record names them,
 * "params": ...}: what irm_build gave irm build. */
static int rebuild_result(const char *dir, const irm_object *record, const irm_object *weights, irm_object **out) {
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
  irm_any vals[] = {*irm_map_find_cstr(record, "built"), irm_any_object(files), irm_any_object((irm_object *)weights)};
  if (!rc && irm_map_from_pairs(keys, vals, 3, out)) rc = cli_fail("run");
  irm_object_release(files);
  return rc;
}

/* The model's weights: the param dict file the record names. */
static int read_weights(const char *dir, const irm_object *record, irm_object **out) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", dir, irm_string_data(record_part(record, "params", "ffi.String")));
  char *data = NULL;
  size_t len = 0;
  if (cli_read_all("run", path, &data, &len)) return CLI_FAIL;
  int rc = irm_param_dict_load(data, len, out);
  free(data);
  return rc ? cli_say(CLI_FAIL, "run: the weights '%s': %s", cli_quote(path), irm_last_error()) : CLI_OK;
}

/* ---- the library: compiled when older than its sources ---------------------------------------- */

static int newer(const struct stat *a, const struct stat *b) {
  return a->st_mtim.tv_sec > b->st_mtim.tv_sec ||
         (a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec >= b->st_mtim.tv_nsec);
}

/* 1 when lib exists and is newer than the record and every artifact. */
static int library_fresh(const char *dir, const irm_object *record, const char *lib) {
  struct stat ls, ss;
  char path[4400];
  if (stat(lib, &ls) != 0) return 0;
  snprintf(path, sizeof path, "%s/%s", dir, BUILD_RECORD);
  if (stat(path, &ss) != 0 || !newer(&ls, &ss)) return 0;
  const irm_object *names = record_part(record, "artifacts", "ffi.Array");
  for (size_t i = 0; i < irm_array_size(names); i++) {
    snprintf(path, sizeof path, "%s/%s", dir, cli_str(irm_array_at(names, i)));
    if (stat(path, &ss) != 0 || !newer(&ls, &ss)) return 0;
  }
  return 1;
}

/* irm build --cross-compiler's compiler, or NULL: the library and the
 * qemu runner (cli_qemu.c, through IRM_CROSS_CC) compile with it too. */
static const char *recorded_cross_cc(const irm_object *record) {
  const irm_any *cc = irm_map_find_cstr(record, "cross_compiler");
  return cc && cc->type_code == IRM_OBJECT && irm_object_is(cc->v_obj, "ffi.String") ? irm_string_data(cc->v_obj)
                                                                                     : NULL;
}

/* lib compiled from result unless it is fresh; with hooks, the C compiled
 * with -DIRM_CRT_KERNEL_HOOKS (CC extended for this export: the build
 * cache keys on the command, so these units are cached apart). */
static int ensure_library(const char *dir, const irm_object *record, const irm_object *result, const char *lib,
                          int hooks, int *reused) {
  *reused = library_fresh(dir, record, lib);
  if (*reused) return CLI_OK;
  if (recorded_cross_cc(record)) {
    irm_export_options o = IRM_EXPORT_OPTIONS_DEFAULT;
    o.cc = recorded_cross_cc(record);
    return irm_build_export_library_with(result, lib, &o) ? cli_fail("run: compiling") : CLI_OK;
  }
  char *saved = getenv("CC") ? strdup(getenv("CC")) : NULL, cc[4200];
  if (hooks) {
    snprintf(cc, sizeof cc, "%s -DIRM_CRT_KERNEL_HOOKS", saved && saved[strspn(saved, " \t")] ? saved : "cc");
    setenv("CC", cc, 1);
  }
  int rc = irm_build_export_library(result, lib) ? cli_fail("run: compiling") : CLI_OK;
  if (hooks && saved) setenv("CC", saved, 1);
  else if (hooks) unsetenv("CC");
  free(saved);
  return rc;
}

/* --profile: the generated C must call the kernel hooks (aot's entry
 * point and the graph executor's kernel wrappers do; another executor
 * kind's code may not). */
static int check_hooks(const irm_object *result) {
  const irm_object *files = irm_map_find_cstr(result, "artifacts")->v_obj;
  irm_map_iter it = irm_map_iter_begin(files);
  const irm_object *k;
  const irm_any *v;
  while (irm_map_iter_next(&it, &k, &v))
    if (strstr(irm_string_data(v->v_obj), "IRM_CRT_KERNEL_ENTER(")) return CLI_OK;
  return cli_say(CLI_FAIL, "run: --profile: the build's code calls no kernel hooks (the aot executor's entry point "
                           "and the graph executor's kernel wrappers do): build with --executor aot or graph");
}

/* The one place the library runs: loaded into this process, run on data
 * (outputs into *outs), timed (--repeat) and profiled (--profile, from
 * the profiled library). A library for a target this machine cannot run
 * runs under qemu-user instead (cli_qemu.c). */
static int run_library_command(const run_flags *r, const char *mod_name, const char *lib, const char *profile_lib,
                               const irm_object *data, irm_object **outs) {
  if (cli_qemu_needed(lib)) { /* built for another architecture: once, under qemu-user */
    if (r->repeat || r->number || profile_lib)
      return cli_say(CLI_FAIL,
                     "run: %s is for another architecture and runs under qemu once: --repeat, --number "
                     "and --profile time this machine's libraries only",
                     cli_quote(lib));
    return cli_qemu_run(r->dir, lib, mod_name, data, outs);
  }
  irm_runtime_module *loaded = NULL;
  int32_t threads = r->num_threads < 0 ? -1 : (int32_t)r->num_threads;
  int rc = irm_runtime_load_threads(lib, NULL, threads, &loaded) ? cli_fail("run: loading") : CLI_OK;
  if (!rc && irm_runtime_module_run(loaded, data, outs)) rc = cli_fail("run: running");
  if (!rc && (r->repeat || r->number)) rc = run_timing(r, loaded, data, *outs);
  irm_object_release(loaded);
  loaded = NULL;
  if (!rc && profile_lib && irm_runtime_load_threads(profile_lib, NULL, threads, &loaded))
    rc = cli_fail("run: loading the profiled library");
  if (!rc && profile_lib) rc = run_profile(r, loaded, data, *outs);
  irm_object_release(loaded);
  return rc;
}

static void print_header(const run_flags *r, const char *lib, int reused, const irm_object *data) {
  fprintf(cli_out, "irm run: %s %s %s; inputs: ", cli_quote(r->dir), reused ? "reuses" : "compiled to", cli_quote(lib));
  for (size_t i = 0; i < irm_array_size(data); i++) {
    const irm_object *t = irm_array_at(data, i)->v_obj;
    fprintf(cli_out, "%s%lld %s values", i ? ", " : "", (long long)irm_tensor_numel(t),
            irm_dtype_name(irm_tensor_dl(t)->dtype));
  }
  if (r->n_inputs || r->inputs_file) fputs(" (given)\n", cli_out);
  else fprintf(cli_out, " (random, seed %lld)\n", (long long)r->seed);
}

static int run_dir(const run_flags *r) {
  irm_object *record = NULL, *result = NULL, *all = NULL, *data = NULL, *outs = NULL, *weights = NULL;
  irm_any want = irm_any_none();
  char lib[4096], plib[4096];
  int reused = 0, preused = 0;
  int rc = read_record(r->dir, &record);
  if (!rc) rc = check_record_names(r->dir, record);
  if (!rc && recorded_cross_cc(record)) setenv("IRM_CROSS_CC", recorded_cross_cc(record), 0);
  const char *mod_name = rc ? "" : irm_string_data(record_part(record, "mod_name", "ffi.String"));
  const irm_module *model = rc ? NULL : record_part(record, "module", "ir.IRModule");
  snprintf(lib, sizeof lib, "%s/lib%s.so", r->dir, mod_name);
  snprintf(plib, sizeof plib, "%s/lib%s.profile.so", r->dir, mod_name);
  if (!rc) rc = read_weights(r->dir, record, &weights);
  if (!rc) rc = run_make_inputs(r, model, weights, &all, &data);
  if (!rc) rc = rebuild_result(r->dir, record, weights, &result);
  if (!rc && r->profile) rc = check_hooks(result);
  if (!rc) rc = ensure_library(r->dir, record, result, lib, 0, &reused);
  if (!rc && r->profile) rc = ensure_library(r->dir, record, result, plib, 1, &preused);
  if (!rc) print_header(r, lib, reused, data);
  if (!rc) rc = run_library_command(r, mod_name, lib, r->profile ? plib : NULL, data, &outs);
  if (!rc) run_print_outputs(r, outs);
  if (!rc && r->outputs_file) rc = run_write_outputs(r->outputs_file, outs);
  if (!rc && r->check && irm_dataflow_evaluate(model, "main", all, &want)) rc = cli_fail("run: ir.Evaluate");
  if (!rc && r->check) rc = run_compare(r, outs, &want);
  irm_any_release(&want);
  irm_object_release(outs);
  irm_object_release(data);
  irm_object_release(all);
  irm_object_release(result);
  irm_object_release(record);
  irm_object_release(weights);
  return rc;
}

int cmd_run(int argc, char **argv) {
  run_flags r;
  memset(&r, 0, sizeof r);
  r.seed = RUN_DEFAULT_SEED;
  r.show = RUN_DEFAULT_SHOW;
  r.tolerance = RUN_DEFAULT_TOLERANCE;
  r.num_threads = -1;
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
