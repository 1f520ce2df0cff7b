/* irm opt: the flags (mlir-opt's workflow with tvmc's configuration). Each
 * flag's value is checked here, so a bad value is a usage error (status
 * 2) before anything runs; the run itself is cmd_opt_run.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_opt.h"

static void opt_usage(FILE *to) {
  fprintf(to,
          "usage: irm opt [MODEL] [--passes PIPELINE] [flags]\n"
          "       irm opt --run-reproducer FILE [flags]\n\n"
          "Runs a pass pipeline on MODEL and prints the module after it. MODEL is a file of IR text,\n"
          "a JSON file (ffi.ToJSON of an IRModule) or the name of a built-in example model\n"
          "(cnn, mlp, residual); default: cnn. MODEL - reads stdin.\n\n"
          "Flags:\n"
          "  --passes PIPELINE          pipeline text (default: " OPT_DEFAULT_PIPELINE ")\n"
          "  --opt-level N              the PassContext's opt_level (default 2)\n"
          "  --pass-config KEY=VALUE    a PassContext config option, VALUE parsed by the option's type\n"
          "                             (irm list configs); repeatable\n"
          "  --disable-pass NAME        never run pass NAME; repeatable\n"
          "  --required-pass NAME       always run pass NAME; repeatable\n"
          "  --time-passes              the timing tree of the passes run, on stderr\n"
          "  --print-ir-before NAME|all print the module before pass NAME (or every pass) on stderr; repeatable\n"
          "  --print-ir-after NAME|all  print the module after pass NAME (or every pass) on stderr; repeatable\n"
          "  --bisect-limit N           run only the first N optional passes (LLVM's -opt-bisect-limit)\n"
          "  --load-plugin FILE         load a plugin first; repeatable (IRM_PLUGIN_PATH too)\n"
          "  --verify-each              ir.Verify after each pass (the default)\n"
          "  --no-verify-each           skip ir.Verify after each pass (config pass.verify_each=false)\n"
          "  --elide-constants N        print tensors of more than N elements elided (default %d)\n"
          "  --print-all-constants      print every tensor in full (text that parses back)\n"
          "  --reproducer FILE          when a pass fails, write a reproducer to FILE\n"
          "  --run-reproducer FILE      run a reproducer: its module, pipeline, config and plugins\n"
          "  --summary                  print the configuration, the passes run with their time, then the module\n"
          "  -o FILE                    write the module to FILE (default: stdout)\n"
          "  -h, --help                 this text\n\n"
          "Exit status: 0 success, 1 failure (a pass failed, a file could not be read or written),\n"
          "2 usage error (an unknown flag, a value that does not parse).\n",
          OPT_DEFAULT_ELIDE);
}

enum { F_VERIFY = OPT_F_COMMON_END, F_NO_VERIFY, F_ELIDE, F_ALL_CONSTANTS, F_REPRODUCER, F_RUN_REPRODUCER, F_SUMMARY };

static const struct option longopts[] = {OPT_COMMON_LONGOPTS,
                                         {"verify-each", no_argument, NULL, F_VERIFY},
                                         {"no-verify-each", no_argument, NULL, F_NO_VERIFY},
                                         {"elide-constants", required_argument, NULL, F_ELIDE},
                                         {"print-all-constants", no_argument, NULL, F_ALL_CONSTANTS},
                                         {"reproducer", required_argument, NULL, F_REPRODUCER},
                                         {"run-reproducer", required_argument, NULL, F_RUN_REPRODUCER},
                                         {"summary", no_argument, NULL, F_SUMMARY},
                                         {"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};

int opt_parse_int(const char *command, const char *flag, const char *text, int64_t min, int64_t max, int64_t *out) {
  errno = 0;
  char *end = NULL;
  long long v = strtoll(text, &end, 10);
  if (errno || end == text || *end || v < min || v > max)
    return cli_usage_error(command, "%s: expected an integer from %lld to %lld, got '%s'", flag, (long long)min,
                           (long long)max, cli_quote(text));
  *out = v;
  return CLI_OK;
}

static int append(irm_object **arr, const char *s) {
  irm_any v = irm_any_str(s);
  if (!*arr && irm_array_new(NULL, 0, arr)) return cli_fail("flags");
  return irm_array_append_move(arr, &v) ? cli_fail("flags") : CLI_OK;
}

int opt_common_flag(opt_parse *st, int c, const char *value) {
  opt_flags *f = st->f;
  int64_t n = 0;
  int rc = CLI_OK;
  switch (c) {
  case OPT_F_PASSES: f->passes = value; break;
  case OPT_F_OPT_LEVEL:
    if (!(rc = opt_parse_int(f->command, "--opt-level", value, 0, 1000000, &n))) f->opt_level = (int)n;
    break;
  case OPT_F_PASS_CONFIG: st->configs[st->n_configs++] = value; break;
  case OPT_F_DISABLE: rc = append(&f->disabled, value); break;
  case OPT_F_REQUIRE: rc = append(&f->required, value); break;
  case OPT_F_TIME: f->time_passes = 1; break;
  case OPT_F_BEFORE: rc = append(&f->print_before, value); break;
  case OPT_F_AFTER: rc = append(&f->print_after, value); break;
  case OPT_F_BISECT:
    if (!(rc = opt_parse_int(f->command, "--bisect-limit", value, -1, INT64_MAX, &n)))
      f->bisect_limit = n, f->bisect_set = 1;
    break;
  case OPT_F_PLUGIN: rc = cli_load_plugin(value); break;
  default: break;
  }
  return rc;
}

static int on_flag(int c, const char *value, void *data) {
  opt_parse *st = data;
  opt_flags *f = st->f;
  int rc = CLI_OK;
  switch (c) {
  case F_VERIFY: f->no_verify_each = 0; break;
  case F_NO_VERIFY: f->no_verify_each = 1; break;
  case F_ELIDE: rc = opt_parse_int("opt", "--elide-constants", value, 0, INT64_MAX, &f->elide); break;
  case F_ALL_CONSTANTS: f->elide = 0; break;
  case F_REPRODUCER: f->reproducer = value; break;
  case F_RUN_REPRODUCER: f->run_reproducer = value; break;
  case F_SUMMARY: f->summary = 1; break;
  case 'o': f->output = value; break;
  case 'h': f->help = 1; break;
  default: rc = opt_common_flag(st, c, value); break;
  }
  return rc;
}

/* ---- --pass-config ------------------------------------------------------------- */

/* text parsed as the option type named type_name; a target's text becomes
 * a Target, as pipeline text's target options do. */
static int parse_typed(const char *type_name, const char *text, irm_any *out) {
  irm_option_type type;
  int rc = irm_option_type_parse(type_name, &type);
  if (!rc) rc = irm_option_parse_text(type, text, out);
  if (rc || (type != IRM_OPTION_TARGET && type != IRM_OPTION_ARRAY_TARGET)) return rc;
  if (type == IRM_OPTION_TARGET) {
    irm_any target;
    rc = cli_call("target.Target", out, 1, &target);
    irm_any_release(out);
    *out = target;
    return rc;
  }
  irm_object *targets = NULL;
  rc = irm_array_new(NULL, 0, &targets);
  for (size_t i = 0; !rc && i < irm_array_size(out->v_obj); i++) {
    irm_any target;
    rc = cli_call("target.Target", irm_array_at(out->v_obj, i), 1, &target);
    if (!rc) rc = irm_array_append_move(&targets, &target);
    irm_any_release(&target);
  }
  irm_any_release(out);
  *out = irm_any_object(targets);
  if (rc) irm_any_release(out);
  return rc;
}

static int add_config(opt_flags *f, const irm_object *known, const char *arg) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg)
    return cli_usage_error(f->command, "--pass-config: expected KEY=VALUE, got '%s'", cli_quote(arg));
  char key[256];
  size_t len = (size_t)(eq - arg);
  if (len >= sizeof key) return cli_usage_error(f->command, "--pass-config: no config option '%s'", cli_quote(arg));
  memcpy(key, arg, len);
  key[len] = '\0';
  const irm_any *entry = irm_map_find_cstr(known, key);
  if (!entry) {
    const char *names[512];
    size_t n = 0;
    irm_map_iter it = irm_map_iter_begin(known);
    const irm_object *k;
    const irm_any *v;
    while (n < 512 && irm_map_iter_next(&it, &k, &v)) names[n++] = irm_string_data(k);
    const char *close = irm_closest_name(key, names, n);
    if (close)
      return cli_usage_error(f->command, "--pass-config: no config option '%s' (did you mean '%s'?)", cli_quote(key),
                             close);
    return cli_usage_error(f->command, "--pass-config: no config option '%s' (irm list configs names them)",
                           cli_quote(key));
  }
  const char *alias_of = cli_str(irm_map_find_cstr(entry->v_obj, "alias_of"));
  if (alias_of) entry = irm_map_find_cstr(known, alias_of);
  const char *type = entry ? cli_str(irm_map_find_cstr(entry->v_obj, "type")) : NULL;
  irm_any value = irm_any_none();
  if (!type || parse_typed(type, eq + 1, &value))
    return cli_usage_error(f->command, "--pass-config '%s': %s", cli_quote(arg), irm_last_error());
  if (!f->config && irm_map_new(&f->config)) return cli_fail(f->command);
  int rc = irm_map_set_move(&f->config, key, &value);
  irm_any_release(&value);
  return rc ? cli_fail(f->command) : CLI_OK;
}

static int set_config(opt_flags *f, const char *key, irm_any value) {
  if (!f->config && irm_map_new(&f->config)) return cli_fail(f->command);
  return irm_map_set_move(&f->config, key, &value) ? cli_fail(f->command) : CLI_OK;
}

/* A pass name (--print-ir-*, --disable-pass, --required-pass) that no
 * registered pass has matches nothing, most likely a typo: say so (a
 * Sequential, or a pass made in a plugin's code, may carry any name, so it
 * is a warning, not an error). with_all: the flag also takes "all". */
static void check_pass_names(const char *command, const char *flag, const irm_object *names, int with_all) {
  irm_object *passes = NULL;
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_kind *kind = NULL;
    if ((with_all && !strcmp(name, "all")) || !strcmp(name, "sequential") || irm_kind_find("pass", name, &kind) == 0)
      continue;
    irm_clear_error();
    if (!passes && irm_pass_list(&passes)) return;
    const char *cands[256];
    size_t n = 0;
    for (; n < irm_array_size(passes) && n < 255; n++) cands[n] = irm_string_data(irm_array_at(passes, n)->v_obj);
    if (with_all) cands[n++] = "all";
    const char *close = irm_closest_name(name, cands, n);
    cli_say(CLI_OK, "%s: warning: %s '%s': no registered pass has this name%s%s%s", command, flag, cli_quote(name),
            close ? " (did you mean '" : "", close ? close : "", close ? "'?)" : "");
  }
  irm_object_release(passes);
}

int opt_finish_flags(opt_parse *st) {
  opt_flags *f = st->f;
  check_pass_names(f->command, "--print-ir-before", f->print_before, 1);
  check_pass_names(f->command, "--print-ir-after", f->print_after, 1);
  check_pass_names(f->command, "--disable-pass", f->disabled, 0);
  check_pass_names(f->command, "--required-pass", f->required, 0);
  irm_any known;
  if (cli_call("transform.ListConfigs", NULL, 0, &known)) return cli_fail(f->command);
  int rc = CLI_OK;
  for (size_t i = 0; !rc && i < st->n_configs; i++) rc = add_config(f, known.v_obj, st->configs[i]);
  irm_any_release(&known);
  if (!rc && f->no_verify_each) rc = set_config(f, IRM_PASS_VERIFY_EACH_CONFIG, irm_any_bool(false));
  if (!rc && f->reproducer) rc = set_config(f, IRM_PASS_REPRODUCER_CONFIG, irm_any_str(f->reproducer));
  return rc;
}

int opt_parse_begin(opt_parse *st, opt_flags *f, const char *command, int argc) {
  memset(f, 0, sizeof *f);
  f->command = command;
  f->opt_level = -1;
  f->elide = OPT_DEFAULT_ELIDE;
  f->bisect_limit = -1;
  st->f = f;
  st->n_configs = 0;
  st->configs = calloc((size_t)argc + 1, sizeof *st->configs);
  return st->configs ? CLI_OK : cli_say(CLI_FAIL, "out of memory");
}

void opt_parse_end(opt_parse *st) {
  opt_flags *f = st->f;
  free(st->configs);
  st->configs = NULL;
  irm_object_release(f->config);
  irm_object_release(f->required);
  irm_object_release(f->disabled);
  irm_object_release(f->print_before);
  irm_object_release(f->print_after);
}

int cmd_opt(int argc, char **argv) {
  opt_flags f;
  opt_parse st;
  if (opt_parse_begin(&st, &f, "opt", argc)) return CLI_FAIL;
  int first = 0;
  int rc = cli_load_env_plugins();
  if (!rc) rc = cli_parse_flags("opt", argc, argv, "ho:", longopts, on_flag, &st, &first);
  if (!rc && f.help) {
    opt_usage(cli_out);
  } else if (!rc) {
    if (argc - first > 1) rc = cli_usage_error("opt", "unexpected argument '%s'", cli_quote(argv[first + 1]));
    else if (argc - first == 1) f.model = argv[first];
    if (!rc && f.run_reproducer && (f.model || f.passes))
      rc = cli_usage_error("opt", "--run-reproducer takes the model and the pipeline from its file: give no %s",
                           f.model ? "MODEL" : "--passes");
    if (!rc) rc = opt_finish_flags(&st);
    if (!rc) rc = opt_run(&f);
  }
  opt_parse_end(&st);
  return rc;
}
