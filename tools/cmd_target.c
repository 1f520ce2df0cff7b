/* irm target TEXT: a target's canonical text, or with --json its Map form
 * (target.Export). Text goes through target.ConvertLegacy, so legacy
 * executor and runtime options (`c -executor=aot -runtime=c`) come out as
 * the Executor and Runtime they stand for, with the library's deprecation
 * warnings on stderr. */
#include <string.h>

#include "cli_util.h"

static void target_usage(FILE *to) {
  fprintf(to, "usage: irm target [--json] [--host TEXT] [--load-plugin FILE]... TEXT\n\n"
              "Prints the canonical text of the target TEXT (a target string, a tag or JSON target text),\n"
              "then, when legacy options (-executor=, -runtime=, -system-lib, ...) were converted, the\n"
              "executor and runtime they stand for. Deprecation warnings go to stderr.\n\n"
              "Flags:\n"
              "  --json               print {\"target\": Map (target.Export), \"executor\", \"runtime\"} as JSON\n"
              "  --host TEXT          the host target\n"
              "  --load-plugin FILE   load a plugin first (repeatable)\n"
              "  -h, --help           this text\n");
}

typedef struct target_flags {
  int json, help;
  const char *host;
} target_flags;

static int on_flag(int c, const char *value, void *data) {
  target_flags *f = data;
  if (c == 'j') f->json = 1;
  else if (c == 'h') f->help = 1;
  else if (c == 'H') f->host = value;
  else if (c == 'p') return cli_load_plugin(value);
  return CLI_OK;
}

/* {"kind": name, options...} of an Executor or Runtime; NONE stays NONE. */
static int config_map(const char *prefix, const irm_any *config, irm_any *out) {
  *out = irm_any_none();
  if (config->type_code == IRM_NONE) return IRM_OK;
  char global[32];
  irm_any name, attrs;
  snprintf(global, sizeof global, "%s.Name", prefix);
  int rc = cli_call(global, config, 1, &name);
  snprintf(global, sizeof global, "%s.Attrs", prefix);
  if (!rc) rc = cli_call(global, config, 1, &attrs);
  irm_object *map = NULL;
  if (!rc) rc = irm_map_new(&map);
  if (!rc) rc = irm_map_set_move(&map, "kind", &name);
  irm_map_iter it = irm_map_iter_begin(rc ? NULL : attrs.v_obj);
  const irm_object *key;
  const irm_any *value;
  while (!rc && irm_map_iter_next(&it, &key, &value)) rc = irm_map_set_move(&map, irm_string_data(key), value);
  irm_any_release(&name);
  irm_any_release(&attrs);
  if (rc) irm_object_release(map);
  else *out = irm_any_object(map);
  return rc;
}

static int print_json(const irm_object *parts) {
  irm_any exported, executor = irm_any_none(), runtime = irm_any_none();
  int rc = cli_call("target.Export", irm_array_at(parts, 0), 1, &exported);
  if (!rc) rc = config_map("executor", irm_array_at(parts, 1), &executor);
  if (!rc) rc = config_map("runtime", irm_array_at(parts, 2), &runtime);
  irm_object *doc = NULL;
  const char *keys[] = {"target", "executor", "runtime"};
  irm_any values[] = {exported, executor, runtime};
  if (!rc) rc = irm_map_from_pairs(keys, values, 3, &doc);
  for (int i = 0; i < 3; i++) irm_any_release(&values[i]);
  if (rc) return cli_fail("target");
  irm_any v = irm_any_object(doc);
  rc = cli_write_json(cli_out, &v, 0);
  fputc('\n', cli_out);
  irm_object_release(doc);
  return rc;
}

static int print_text(const irm_object *parts) {
  irm_any text;
  if (cli_call("target.AsString", irm_array_at(parts, 0), 1, &text)) return cli_fail("target");
  fprintf(cli_out, "%s\n", cli_str(&text));
  irm_any_release(&text);
  const char *labels[] = {NULL, "executor", "runtime"};
  for (int i = 1; i < 3; i++) {
    const irm_any *config = irm_array_at(parts, (size_t)i);
    if (config->type_code == IRM_NONE) continue;
    irm_any map;
    if (config_map(labels[i], config, &map)) return cli_fail("target");
    fprintf(cli_out, "%s: ", labels[i]);
    cli_write_json(cli_out, &map, -1);
    fputc('\n', cli_out);
    irm_any_release(&map);
  }
  return CLI_OK;
}

int cmd_target(int argc, char **argv) {
  static const struct option longopts[] = {{"json", no_argument, NULL, 'j'},
                                           {"host", required_argument, NULL, 'H'},
                                           {"load-plugin", required_argument, NULL, 'p'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  target_flags f = {0, 0, NULL};
  int first = 0;
  int rc = cli_load_env_plugins();
  if (!rc) rc = cli_parse_flags("target", argc, argv, "h", longopts, on_flag, &f, &first);
  if (rc) return rc;
  if (f.help) {
    target_usage(cli_out);
    return CLI_OK;
  }
  if (first >= argc) return cli_usage_error("target", "give the target text (e.g. irm target 'llvm -mcpu=skylake')");
  if (argc - first > 1)
    return cli_usage_error("target", "unexpected argument '%s' (quote a target with options: 'c -mcpu=x')",
                           cli_quote(argv[first + 1]));
  irm_any args[2] = {irm_any_str(argv[first]), irm_any_str(f.host ? f.host : "")}, parts;
  if (cli_call("target.ConvertLegacy", args, f.host ? 2 : 1, &parts)) return cli_fail("target");
  rc = f.json ? print_json(parts.v_obj) : print_text(parts.v_obj);
  irm_any_release(&parts);
  return rc;
}
