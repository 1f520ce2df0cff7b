/* irm tune --show DB [--workload TEXT]: the best record of each workload
 * of a tuning database (irm/tune_db.h, docs/tuning.md). Tuning a model
 * (irm tune MODEL --target ...) is not built yet: the command says so. */
#include "cli_util.h"
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
