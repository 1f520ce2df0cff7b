/* irm tune MODEL --db DB ...: the model's workloads tuned into DB by
 * Python's irm.tune (python3 -m irm.tune, run as irm build runs the ONNX
 * frontend: cmd_onnx.c); irm tune --show DB [--workload TEXT]: the best
 * record of each workload of a tuning database (irm/tune_db.h,
 * docs/tuning.md); and irm list tunables MODEL [TARGET] (cmd_list.c hands
 * it here): each tunable workload of a model and the size of its search
 * space. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_util.h"
#include "cmd_onnx.h"
#include "cmd_opt.h"
#include "irm/tune_db.h"

/* python/irm/tune/__main__.py's exit statuses */
#define TUNE_EXIT_NO_ONNX 3
#define TUNE_EXIT_INTERRUPTED 130
#define TUNE_EXIT_NO_EXEC 127

static void tune_usage(FILE *to) {
  fputs("usage: irm tune MODEL --db DB [--target T] [--trials N] [--jobs J | --dask ADDRESS] [--seconds S]\n"
        "                 [--early-stopping N] [--seed N] [--timeout S]\n"
        "       irm tune --show DB [--workload TEXT]\n\n"
        "The tuning database: the schedules measured for kernel workloads, which builds apply\n"
        "through the tune.database setting (irm build --pass-config tune.database=DB).\n\n"
        "MODEL (an ONNX file, an IR text file or an example model's name): each tunable workload\n"
        "searched and its candidates measured into DB, a line per workload (trials, best, errors).\n"
        "Candidates DB has are not measured again: an interrupted run resumes.\n\n"
        "Flags:\n"
        "  --db DB            the tuning database to write (made when missing)\n"
        "  --target T         the target to tune for (default c)\n"
        "  --trials N         measurements per workload (default 32)\n"
        "  --jobs J           candidates compiled and measured at once on this machine, each on a\n"
        "                     core of its own (default: the cores less one, at least 1)\n"
        "  --dask ADDRESS     measure on the workers of a Dask scheduler instead (tcp://host:8786)\n"
        "  --seconds S        stop starting measurements after S seconds in all\n"
        "  --early-stopping N a workload stops when its best has not improved for N trials\n"
        "  --seed N           the search's seed (default 0: runs repeat)\n"
        "  --timeout S        a candidate's run is killed after S seconds (default 10)\n"
        "  --show DB          print each workload of DB: its family, shapes, dtypes, target and CPU\n"
        "                     features, the best measurement and its knobs (or why none applies),\n"
        "                     and how many were measured and failed\n"
        "  --workload TEXT    only the workloads whose family, shapes or target contains TEXT\n"
        "  -h, --help         this text\n\n"
        "With --show, DB is opened read-only: a read-only file or folder will do.\n",
        to);
}

/* The flags passed on to python3 -m irm.tune, by their getopt codes. */
static const char tune_pass_codes[] = "dtnjkswer";
enum { TUNE_PASS = sizeof tune_pass_codes - 1 };

typedef struct tune_flags {
  const char *show, *workload;
  const char *pass[TUNE_PASS]; /* each flag's value, in tune_pass_codes' order */
  int help;
} tune_flags;

static const struct option longopts[] = {{"show", required_argument, NULL, 'S'},
                                         {"workload", required_argument, NULL, 'W'},
                                         {"db", required_argument, NULL, 'd'},
                                         {"target", required_argument, NULL, 't'},
                                         {"trials", required_argument, NULL, 'n'},
                                         {"jobs", required_argument, NULL, 'j'},
                                         {"dask", required_argument, NULL, 'k'},
                                         {"seconds", required_argument, NULL, 's'},
                                         {"early-stopping", required_argument, NULL, 'e'},
                                         {"seed", required_argument, NULL, 'r'},
                                         {"timeout", required_argument, NULL, 'w'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};

static const char *flag_name(int c) {
  for (const struct option *o = longopts; o->name; o++)
    if (o->val == c) return o->name;
  return "?";
}

/* A number flag's value checked here, so that a bad one is a usage error
 * before Python starts: integers for n j e r (n j at least 1, e r at least 0),
 * a number of seconds at least 0 for s w. */
static int check_number(int c, const char *value) {
  char *end = NULL;
  errno = 0;
  int integer = strchr("njer", c) != NULL;
  double v = integer ? (double)strtoll(value, &end, 10) : strtod(value, &end);
  double least = strchr("nj", c) ? 1 : 0;
  if (!value[0] || *end || errno || v < least || v != v)
    return cli_usage_error("tune", "--%s: expected %s at least %.0f, got '%s'", flag_name(c),
                           integer ? "an integer" : "a number of seconds", least, cli_quote(value));
  return CLI_OK;
}

static int on_flag(int c, const char *value, void *data) {
  tune_flags *f = data;
  const char *slot = c ? strchr(tune_pass_codes, c) : NULL;
  if (c == 'S') f->show = value;
  else if (c == 'W') f->workload = value;
  else if (c == 'h') f->help = 1;
  else if (slot) {
    if (strchr("njsewr", c) && check_number(c, value)) return CLI_USAGE;
    f->pass[slot - tune_pass_codes] = value;
  }
  return CLI_OK;
}

/* irm tune MODEL ...: python3 -m irm.tune with the flags, its stdout (the
 * progress lines) this program's, its last stderr line the error. */
static int tune_model(const char *model, const tune_flags *f) {
  const char *tmp = getenv("TMPDIR");
  char dir[PATH_MAX], err_path[PATH_MAX + 16];
  snprintf(dir, sizeof dir, "%s/irm-tune-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(dir)) return cli_say(CLI_FAIL, "tune: cannot make a temporary folder: %s", strerror(errno));
  snprintf(err_path, sizeof err_path, "%s/stderr", dir);
  char *argv[8 + 2 * TUNE_PASS];
  int argc = 0;
  argv[argc++] = (char *)python_interpreter();
  argv[argc++] = "-m";
  argv[argc++] = "irm.tune";
  for (int i = 0; i < TUNE_PASS; i++) {
    if (!f->pass[i]) continue;
    static char names[TUNE_PASS][24];
    snprintf(names[i], sizeof names[i], "--%s", flag_name(tune_pass_codes[i]));
    argv[argc++] = names[i];
    argv[argc++] = (char *)f->pass[i];
  }
  argv[argc++] = "--"; /* a MODEL starting with '-' stays the model */
  argv[argc++] = (char *)model;
  argv[argc] = NULL;
  fflush(cli_out);
  int status = 0, rc = python_child_run("tune", argv, err_path, 1, &status);
  char line[2048] = "";
  FILE *err = rc ? NULL : fopen(err_path, "r");
  for (char buf[2048]; err && fgets(buf, sizeof buf, err);) {
    buf[strcspn(buf, "\r\n")] = '\0';
    if (buf[0]) snprintf(line, sizeof line, "%s", strncmp(buf, "error: ", 7) ? buf : buf + 7);
  }
  if (err) fclose(err);
  unlink(err_path);
  rmdir(dir);
  if (rc) return rc;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return CLI_OK;
  if (WIFEXITED(status) && WEXITSTATUS(status) == TUNE_EXIT_NO_EXEC)
    return cli_say(CLI_FAIL, "tune: needs Python 3 with irm's package; '%s' cannot be run (or set IRM_PYTHON)",
                   cli_quote(argv[0]));
  if (WIFEXITED(status) && WEXITSTATUS(status) == TUNE_EXIT_NO_ONNX)
    return cli_say(CLI_FAIL, "tune: '%s' needs the Python package onnx (apt-get install python3-onnx)",
                   cli_quote(model));
  if (!line[0] && WIFSIGNALED(status)) snprintf(line, sizeof line, "Python was killed by signal %d", WTERMSIG(status));
  return cli_say(CLI_FAIL, "tune: %s", line[0] ? cli_quote(line) : "tuning failed");
}

static int show_one(const irm_tune_workload *w, const irm_tune_record *best, int64_t n, int64_t failed, void *ctx) {
  int *count = ctx;
  ++*count;
  fprintf(cli_out, "%s %s %s\n  target '%s', CPU features '%s'\n", w->family, w->shapes, w->dtypes, w->target,
          w->features);
  if (best->found)
    fprintf(cli_out, "  best %.4f ms (median of %lld, spread %.4f ms) with %s\n  measured %s by irm %s%s%s\n",
            best->mean * 1e3, (long long)best->measurements, best->spread * 1e3, best->knobs, best->time,
            best->irm_version, best->compiler[0] ? ", " : "", best->compiler);
  else fprintf(cli_out, "  no record applies: %s\n", best->reason);
  fprintf(cli_out, "  %lld measurements, %lld failed\n", (long long)n, (long long)failed);
  return 0;
}

int cmd_tune(int argc, char **argv) {
  tune_flags f = {0};
  int first = 0;
  int rc = cli_parse_flags("tune", argc, argv, "h", longopts, on_flag, &f, &first);
  if (rc) return rc;
  if (f.help) {
    tune_usage(cli_out);
    return CLI_OK;
  }
  if (argc - first > 1) return cli_usage_error("tune", "unexpected argument '%s'", cli_quote(argv[first + 1]));
  int passed = 0;
  for (int i = 0; i < TUNE_PASS; i++) passed |= f.pass[i] != NULL;
  if (argc - first == 1) {
    if (f.show) return cli_usage_error("tune", "either MODEL (tune it) or --show DB (print a database), not both");
    if (!f.pass[0]) return cli_usage_error("tune", "MODEL needs --db DB, the tuning database to write");
    if (f.pass[3] && f.pass[4]) return cli_usage_error("tune", "either --jobs (this machine) or --dask, not both");
    return tune_model(argv[first], &f);
  }
  if (!f.show) return cli_usage_error("tune", "expected MODEL --db DB (tune it) or --show DB (print a database)");
  if (passed) return cli_usage_error("tune", "--show DB takes only --workload; the other flags are for MODEL");
  irm_tune_db *db = NULL;
  if (irm_tune_db_open(f.show, IRM_TUNE_DB_READ, &db)) return cli_fail("tune");
  fprintf(cli_out, "tuning database %s (schema version %d)\n", cli_quote(f.show), irm_tune_db_opened_version(db));
  int count = 0;
  rc = irm_tune_db_each(db, f.workload, show_one, &count);
  irm_tune_db_close(db);
  if (rc) return cli_fail("tune");
  if (!count) fprintf(cli_out, "no workload%s\n", f.workload ? " matches" : "");
  return CLI_OK;
}

/* A knob's values as text: "1..16" for a run of integers, else listed. */
static void print_values(const irm_object *values) {
  size_t n = irm_array_size(values);
  int64_t first = 0, last = 0;
  int run = n > 2;
  for (size_t i = 0; i < n && run; i++) {
    const irm_any *v = irm_array_at(values, i);
    run = v->type_code == IRM_INT && (i == 0 || v->v_int == last + 1);
    if (run) last = v->v_int, first = i ? first : v->v_int;
  }
  if (run) {
    fprintf(cli_out, "%lld..%lld", (long long)first, (long long)last);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    fputs(i ? ", " : "", cli_out);
    cli_write_json(cli_out, irm_array_at(values, i), 0);
  }
}

int cmd_list_tunables(int argc, char **argv, int json) {
  if (argc < 1) return cli_usage_error("list", "tunables needs a MODEL (a file, - or an example model's name)");
  if (argc > 2) return cli_usage_error("list", "unexpected argument '%s'", cli_quote(argv[2]));
  const char *target = argc > 1 ? argv[1] : "c";
  irm_module *mod = NULL;
  int rc = opt_load_model("list", argv[0], &mod);
  if (rc) return rc;
  irm_any args[2] = {irm_any_object((irm_object *)mod), irm_any_str(target)}, out = irm_any_none();
  rc = cli_call("tune.ListTunables", args, 2, &out);
  irm_object_release((irm_object *)mod);
  if (rc) return cli_fail("list tunables");
  if (json) {
    rc = cli_write_json(cli_out, &out, 0);
    fputc('\n', cli_out);
    irm_any_release(&out);
    return rc;
  }
  size_t n = irm_array_size(out.v_obj);
  fprintf(cli_out, "%zu tunable workload%s for target %s\n", n, n == 1 ? "" : "s", cli_quote(target));
  for (size_t i = 0; i < n; i++) {
    const irm_object *m = irm_array_at(out.v_obj, i)->v_obj;
    const irm_any *knobs = irm_map_find_cstr(m, "knobs");
    double size = 0;
    int64_t calls = 0;
    irm_any_to_float(irm_map_find_cstr(m, "size"), &size);
    irm_any_to_int(irm_map_find_cstr(m, "calls"), &calls);
    fprintf(cli_out, "%s %s\n  op %s, %lld call%s, %.0f candidates:", cli_str(irm_map_find_cstr(m, "family")),
            cli_str(irm_map_find_cstr(m, "workload")), cli_str(irm_map_find_cstr(m, "op")), (long long)calls,
            calls == 1 ? "" : "s", size);
    if (knobs && knobs->type_code == IRM_OBJECT) {
      irm_map_iter it = irm_map_iter_begin(knobs->v_obj);
      const irm_object *key = NULL;
      const irm_any *values = NULL;
      for (int k = 0; irm_map_iter_next(&it, &key, &values); k++) {
        fprintf(cli_out, "%s %s ", k ? ";" : "", irm_string_data(key));
        if (values->type_code == IRM_OBJECT) print_values(values->v_obj);
      }
    }
    fputc('\n', cli_out);
  }
  irm_any_release(&out);
  return CLI_OK;
}
