/* irm tune --show DB [--workload TEXT]: the best record of each workload
 * of a tuning database (irm/tune_db.h, docs/tuning.md); and irm list
 * tunables MODEL [TARGET] (cmd_list.c hands it here): each tunable
 * workload of a model and the size of its search space. Tuning a model
 * (irm tune MODEL --target ...) is not built yet: the command says so. */
#include "cli_util.h"
#include "cmd_opt.h"
#include "irm/tune_db.h"

static void tune_usage(FILE *to) {
  fputs("usage: irm tune --show DB [--workload TEXT]\n\n"
        "The tuning database: the schedules measured for kernel workloads, which builds apply\n"
        "through the tune.database setting (irm build --pass-config tune.database=DB).\n\n"
        "Flags:\n"
        "  --show DB          print each workload of DB: its family, shapes, dtypes, target and CPU\n"
        "                     features, the best measurement and its knobs (or why none applies),\n"
        "                     and how many were measured and failed\n"
        "  --workload TEXT    only the workloads whose family, shapes or target contains TEXT\n"
        "  -h, --help         this text\n\n"
        "DB is opened read-only: a read-only file or folder will do. Tuning a model (measuring\n"
        "candidates into DB) is not available yet.\n",
        to);
}

typedef struct tune_flags {
  const char *show, *workload;
  int help;
} tune_flags;

static int on_flag(int c, const char *value, void *data) {
  tune_flags *f = data;
  if (c == 'S') f->show = value;
  else if (c == 'W') f->workload = value;
  else if (c == 'h') f->help = 1;
  return CLI_OK;
}

static const struct option longopts[] = {{"show", required_argument, NULL, 'S'},
                                         {"workload", required_argument, NULL, 'W'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};

static int show_one(const irm_tune_workload *w, const irm_tune_record *best, int64_t n, int64_t failed, void *ctx) {
  int *count = ctx;
  ++*count;
  fprintf(cli_out, "%s %s %s\n  target '%s', CPU features '%s'\n", w->family, w->shapes, w->dtypes, w->target,
          w->features);
  if (best->found)
    fprintf(cli_out, "  best %.4f ms (spread %.4f ms) with %s\n  measured %s by irm %s%s%s\n", best->mean * 1e3,
            best->spread * 1e3, best->knobs, best->time, best->irm_version, best->compiler[0] ? ", " : "",
            best->compiler);
  else fprintf(cli_out, "  no record applies: %s\n", best->reason);
  fprintf(cli_out, "  %lld measurements, %lld failed\n", (long long)n, (long long)failed);
  return 0;
}

int cmd_tune(int argc, char **argv) {
  tune_flags f = {NULL, NULL, 0};
  int first = 0;
  int rc = cli_parse_flags("tune", argc, argv, "h", longopts, on_flag, &f, &first);
  if (rc) return rc;
  if (f.help) {
    tune_usage(cli_out);
    return CLI_OK;
  }
  if (argc - first > 0)
    return cli_usage_error("tune",
                           "unexpected argument '%s' (tuning a model is not available yet; --show DB prints "
                           "a database)",
                           cli_quote(argv[first]));
  if (!f.show) return cli_usage_error("tune", "expected --show DB");
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
