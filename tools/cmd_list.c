/* irm list WHAT: what the registries hold, with options, types, defaults
 * and docs where the registries have them; --json for machines. Each list
 * is built as one irm value (a Map or an Array) from the registries'
 * globals and kind schemas, then printed as text or as plain JSON, so the
 * two forms never disagree. */
#include <string.h>

#include "cli_util.h"

static void list_usage(FILE *to) {
  fprintf(to, "usage: irm list [--json] [--load-plugin FILE]... WHAT\n\n"
              "WHAT is one of:\n"
              "  globals       the global functions (ffi.ListGlobalFuncNames)\n"
              "  targets       target kinds and their options (type, default, doc)\n"
              "  tags          target tags and the target each stands for\n"
              "  executors     executor kinds and their options\n"
              "  runtimes      runtime kinds and their options\n"
              "  passes        registered passes: opt_level, required passes, options\n"
              "  configs       PassContext config options: type, default, module attribute, alias, deprecation\n"
              "  module-attrs  registered module attribute keys, their types, which are pass-invariant\n"
              "  plugins       the plugins loaded (IRM_PLUGIN_PATH, --load-plugin)\n"
              "  ops           ops of the dataflow IR: inputs and attributes\n"
              "  tunables MODEL [TARGET]\n"
              "                each tunable kernel workload of MODEL built for TARGET (default c), its\n"
              "                knobs and the size of its search space (docs/tuning.md)\n\n"
              "Flags:\n"
              "  --json               print JSON instead of text\n"
              "  --load-plugin FILE   load a plugin first (repeatable)\n"
              "  -h, --help           this text\n");
}

/* ---- building the lists ------------------------------------------------------ */

/* name -> {"options": describe-Map} for every kind of category, plus what
 * extra(name, entry) adds. */
typedef int (*extra_fn)(const char *name, irm_object **entry);

static int set(irm_object **map, const char *key, irm_any value) {
  int rc = irm_map_set_move(map, key, &value);
  irm_any_release(&value);
  return rc;
}

static int kinds(const char *category, extra_fn extra, irm_object **out) {
  irm_object *names = NULL, *result = NULL;
  int rc = irm_kind_list(category, &names);
  if (!rc) rc = irm_map_new(&result);
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_kind *kind = NULL;
    irm_object *entry = NULL, *options = NULL;
    rc = irm_kind_find(category, name, &kind);
    if (!rc) rc = irm_map_new(&entry);
    if (!rc && extra) rc = extra(name, &entry);
    if (!rc) rc = irm_kind_describe_options(kind, &options);
    if (!rc) rc = set(&entry, "options", irm_any_object(options)), options = NULL;
    if (!rc) rc = set(&result, name, irm_any_object(entry)), entry = NULL;
    irm_object_release(entry);
    irm_object_release(options);
  }
  irm_object_release(names);
  if (rc) irm_object_release(result);
  else *out = result;
  return rc;
}

/* A pass's opt_level and required passes, when it can be made without
 * options (a pass with a required option cannot). */
static int pass_extra(const char *name, irm_object **entry) {
  irm_pass *p = NULL;
  if (irm_pass_get(name, NULL, &p)) {
    irm_clear_error();
    return IRM_OK;
  }
  int rc = set(entry, "opt_level", irm_any_int(irm_pass_opt_level(p)));
  irm_object *req = (irm_object *)irm_pass_required(p);
  irm_object_retain(req);
  if (!rc) rc = set(entry, "required", irm_any_object(req));
  else irm_object_release(req);
  irm_object_release(p);
  return rc;
}

static int op_extra(const char *name, irm_object **entry) {
  irm_any args[2] = {irm_any_str(name), irm_any_str("num_inputs")}, n;
  if (cli_call("op.GetAttr", args, 2, &n)) {
    irm_clear_error(); /* an op without the attribute: nothing to add */
    return IRM_OK;
  }
  return set(entry, "num_inputs", n);
}

static int tags(irm_object **out) {
  irm_any names;
  irm_object *result = NULL;
  int rc = cli_call("target.ListTags", NULL, 0, &names);
  if (!rc) rc = irm_map_new(&result);
  for (size_t i = 0; !rc && i < irm_array_size(names.v_obj); i++) {
    const irm_any *name = irm_array_at(names.v_obj, i);
    irm_any target, text;
    rc = cli_call("target.Target", name, 1, &target);
    if (!rc) rc = cli_call("target.AsString", &target, 1, &text);
    irm_any_release(&target);
    if (!rc) rc = set(&result, cli_str(name), text);
  }
  irm_any_release(&names);
  if (rc) irm_object_release(result);
  else *out = result;
  return rc;
}

static int global_list(const char *global, irm_object **out) {
  irm_any v;
  int rc = cli_call(global, NULL, 0, &v);
  if (!rc) *out = v.v_obj;
  return rc;
}

static const char *const whats[] = {"globals", "targets", "tags",         "executors", "runtimes",
                                    "passes",  "configs", "module-attrs", "plugins",   "ops"};
#define N_WHATS (sizeof whats / sizeof whats[0])

static int build(const char *what, irm_object **out) {
  if (!strcmp(what, "globals")) return global_list("ffi.ListGlobalFuncNames", out);
  if (!strcmp(what, "targets")) return kinds("target", NULL, out);
  if (!strcmp(what, "tags")) return tags(out);
  if (!strcmp(what, "executors")) return kinds("executor", NULL, out);
  if (!strcmp(what, "runtimes")) return kinds("runtime", NULL, out);
  if (!strcmp(what, "passes")) return kinds("pass", pass_extra, out);
  if (!strcmp(what, "configs")) return global_list("transform.ListConfigs", out);
  if (!strcmp(what, "module-attrs")) return global_list("ir.DescribeModuleAttrKeys", out);
  if (!strcmp(what, "plugins")) return global_list("plugin.List", out);
  return kinds("op", op_extra, out);
}

/* ---- text ------------------------------------------------------------------------- */

static void value_text(const irm_any *v) { cli_write_json(cli_out, v, -1); }

/* "  name: type = default (required) - doc" for each option. */
static void print_options(const irm_object *options) {
  irm_map_iter it = irm_map_iter_begin(options);
  const irm_object *key;
  const irm_any *d;
  while (irm_map_iter_next(&it, &key, &d)) {
    const irm_object *desc = d->v_obj;
    fprintf(cli_out, "  %s: %s", irm_string_data(key), cli_str(irm_map_find_cstr(desc, "type")));
    const irm_any *def = irm_map_find_cstr(desc, "default"), *req = irm_map_find_cstr(desc, "required");
    const char *doc = cli_str(irm_map_find_cstr(desc, "doc"));
    if (def && def->type_code != IRM_NONE) {
      fputs(" = ", cli_out);
      value_text(def);
    }
    if (req && req->type_code == IRM_BOOL && req->v_int) fputs(" (required)", cli_out);
    if (doc && doc[0]) fprintf(cli_out, "  -- %s", doc);
    fputc('\n', cli_out);
  }
}

static void print_kinds(const irm_object *list) {
  irm_map_iter it = irm_map_iter_begin(list);
  const irm_object *key;
  const irm_any *e;
  while (irm_map_iter_next(&it, &key, &e)) {
    fputs(irm_string_data(key), cli_out);
    const irm_any *level = irm_map_find_cstr(e->v_obj, "opt_level");
    const irm_any *req = irm_map_find_cstr(e->v_obj, "required");
    const irm_any *n = irm_map_find_cstr(e->v_obj, "num_inputs");
    if (level) fprintf(cli_out, " (opt_level %lld)", (long long)level->v_int);
    if (req && irm_array_size(req->v_obj)) {
      fputs(" requires ", cli_out);
      value_text(req);
    }
    if (n && n->type_code == IRM_INT)
      fprintf(cli_out,
              n->v_int < 0    ? " (any number of inputs)"
              : n->v_int == 1 ? " (%lld input)"
                              : " (%lld inputs)",
              (long long)n->v_int);
    fputc('\n', cli_out);
    print_options(irm_map_find_cstr(e->v_obj, "options")->v_obj);
  }
}

static void print_configs(const irm_object *list) {
  irm_map_iter it = irm_map_iter_begin(list);
  const irm_object *key;
  const irm_any *e;
  while (irm_map_iter_next(&it, &key, &e)) {
    const irm_object *c = e->v_obj;
    const char *alias = cli_str(irm_map_find_cstr(c, "alias_of"));
    if (alias) {
      fprintf(cli_out, "%s: alias of %s\n", irm_string_data(key), alias);
      continue;
    }
    fprintf(cli_out, "%s: %s", irm_string_data(key), cli_str(irm_map_find_cstr(c, "type")));
    const irm_any *def = irm_map_find_cstr(c, "default");
    if (def && def->type_code != IRM_NONE) {
      fputs(" = ", cli_out);
      value_text(def);
    }
    const char *attr = cli_str(irm_map_find_cstr(c, "module_attr"));
    const char *dep = cli_str(irm_map_find_cstr(c, "deprecated"));
    if (attr) fprintf(cli_out, " (migrates to module attribute '%s')", attr);
    if (dep) fprintf(cli_out, " (deprecated: %s)", dep);
    fputc('\n', cli_out);
  }
}

/* "key: type", marked when passes may not change the key. */
static void print_module_attrs(const irm_object *list) {
  irm_map_iter it = irm_map_iter_begin(list);
  const irm_object *key;
  const irm_any *d;
  while (irm_map_iter_next(&it, &key, &d)) {
    const irm_any *inv = irm_map_find_cstr(d->v_obj, "pass_invariant");
    fprintf(cli_out, "%s: %s%s\n", irm_string_data(key), cli_str(irm_map_find_cstr(d->v_obj, "type")),
            inv && inv->v_int ? " (pass-invariant: no pass may change it)" : "");
  }
}

static void print_text(const char *what, const irm_object *list) {
  if (!strcmp(what, "globals")) {
    for (size_t i = 0; i < irm_array_size(list); i++)
      fprintf(cli_out, "%s\n", irm_string_data(irm_array_at(list, i)->v_obj));
  } else if (!strcmp(what, "plugins")) {
    for (size_t i = 0; i < irm_array_size(list); i++) {
      const irm_object *p = irm_array_at(list, i)->v_obj;
      fprintf(cli_out, "%s %s  %s\n", cli_str(irm_map_find_cstr(p, "name")), cli_str(irm_map_find_cstr(p, "version")),
              cli_str(irm_map_find_cstr(p, "path")));
    }
  } else if (!strcmp(what, "tags")) {
    irm_map_iter it = irm_map_iter_begin(list);
    const irm_object *key;
    const irm_any *v;
    while (irm_map_iter_next(&it, &key, &v)) fprintf(cli_out, "%s: %s\n", irm_string_data(key), cli_str(v));
  } else if (!strcmp(what, "module-attrs")) {
    print_module_attrs(list);
  } else if (!strcmp(what, "configs")) {
    print_configs(list);
  } else {
    print_kinds(list);
  }
}

/* ---- the command ---------------------------------------------------------------------- */

typedef struct list_flags {
  int json, help, rc;
} list_flags;

static int on_flag(int c, const char *value, void *data) {
  list_flags *f = data;
  if (c == 'j') f->json = 1;
  else if (c == 'h') f->help = 1;
  else if (c == 'p') return cli_load_plugin(value);
  return CLI_OK;
}

int cmd_list(int argc, char **argv) {
  static const struct option longopts[] = {{"json", no_argument, NULL, 'j'},
                                           {"load-plugin", required_argument, NULL, 'p'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  list_flags f = {0, 0, 0};
  int first = 0;
  int rc = cli_load_env_plugins();
  if (!rc) rc = cli_parse_flags("list", argc, argv, "h", longopts, on_flag, &f, &first);
  if (rc) return rc;
  if (f.help) {
    list_usage(cli_out);
    return CLI_OK;
  }
  if (first >= argc)
    return cli_usage_error("list", "say what to list: %s",
                           "globals, targets, tags, executors, "
                           "runtimes, passes, configs, module-attrs, "
                           "plugins or ops");
  if (!strcmp(argv[first], "tunables")) return cmd_list_tunables(argc - first - 1, argv + first + 1, f.json);
  if (argc - first > 1) return cli_usage_error("list", "unexpected argument '%s'", cli_quote(argv[first + 1]));
  const char *what = argv[first];
  size_t i = 0;
  while (i < N_WHATS && strcmp(what, whats[i]) != 0) i++;
  if (i == N_WHATS) {
    const char *close = irm_closest_name(what, whats, N_WHATS);
    if (close) return cli_usage_error("list", "cannot list '%s' (did you mean '%s'?)", cli_quote(what), close);
    return cli_usage_error("list", "cannot list '%s'", cli_quote(what));
  }
  irm_object *list = NULL;
  if (build(what, &list)) return cli_fail(what);
  if (f.json) {
    irm_any v = irm_any_object(list);
    rc = cli_write_json(cli_out, &v, 0);
    fputc('\n', cli_out);
  } else {
    print_text(what, list);
  }
  irm_object_release(list);
  return rc;
}
