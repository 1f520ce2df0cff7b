/* irm cache info|clear: the build cache export_library compiles through
 * (irm/build_cache.h, docs/build.md#the-build-cache): where it is, what it
 * holds against its cap, and emptying it. */
#include <string.h>

#include "cli_util.h"

static void cache_usage(FILE *to) {
  fputs("usage: irm cache info [--json] | irm cache clear\n\n"
        "The build cache: the objects export_library (irm build --export, irm run, Python\n"
        "export_library) compiled, keyed by their source, the compiler and its flags.\n\n"
        "  info     the folder, its entries and bytes, and the cap\n"
        "  clear    removes every entry\n\n"
        "Flags:\n"
        "  --json       info as a JSON object {dir, entries, bytes, cap}\n"
        "  -h, --help   this text\n\n"
        "Environment: IRM_CACHE_DIR (default $XDG_CACHE_HOME/irm, else ~/.cache/irm), IRM_CACHE_SIZE\n"
        "(the cap: bytes, or a number with K, M or G; default 1G), IRM_CACHE=0 (export_library\n"
        "compiles without the cache).\n",
        to);
}

typedef struct cache_flags {
  int json, help;
} cache_flags;

static int on_flag(int c, const char *value, void *data) {
  cache_flags *f = data;
  (void)value;
  if (c == 'J') f->json = 1;
  else if (c == 'h') f->help = 1;
  return CLI_OK;
}

static const struct option longopts[] = {
    {"json", no_argument, NULL, 'J'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

static int info(const char *dir, int json) {
  irm_build_cache_info_t in;
  if (irm_build_cache_info(dir, &in)) return cli_fail("cache info");
  if (json) {
    irm_object *doc = NULL;
    const char *keys[] = {"dir", "entries", "bytes", "cap"};
    irm_any vals[] = {irm_any_str(dir), irm_any_int((int64_t)in.entries), irm_any_int((int64_t)in.bytes),
                      irm_any_int((int64_t)in.cap)};
    if (irm_map_from_pairs(keys, vals, 4, &doc)) return cli_fail("cache info");
    irm_any v = irm_any_object(doc);
    int rc = cli_write_json(cli_out, &v, 0);
    fputc('\n', cli_out);
    irm_object_release(doc);
    return rc;
  }
  fprintf(cli_out, "build cache %s\n  %llu entries, %.1f MB of a %.1f MB cap\n", cli_quote(dir),
          (unsigned long long)in.entries, (double)in.bytes / 1e6, (double)in.cap / 1e6);
  return CLI_OK;
}

int cmd_cache(int argc, char **argv) {
  cache_flags f = {0, 0};
  int first = 0;
  int rc = cli_parse_flags("cache", argc, argv, "h", longopts, on_flag, &f, &first);
  if (rc) return rc;
  if (f.help) {
    cache_usage(cli_out);
    return CLI_OK;
  }
  if (argc - first != 1) {
    if (argc - first == 0) return cli_usage_error("cache", "expected 'info' or 'clear'");
    return cli_usage_error("cache", "unexpected argument '%s'", cli_quote(argv[first + 1]));
  }
  const char *action = argv[first], *actions[] = {"info", "clear"};
  char dir[4096];
  if (strcmp(action, "info") != 0 && strcmp(action, "clear") != 0) {
    const char *close = irm_closest_name(action, actions, 2);
    if (close) return cli_usage_error("cache", "unknown action '%s' (did you mean '%s'?)", cli_quote(action), close);
    return cli_usage_error("cache", "unknown action '%s' (info or clear)", cli_quote(action));
  }
  if (f.json && strcmp(action, "info") != 0) return cli_usage_error("cache", "--json goes with info");
  if (irm_build_cache_default_dir(dir, sizeof dir)) return cli_fail("cache");
  if (strcmp(action, "info") == 0) return info(dir, f.json);
  uint64_t removed = 0;
  if (irm_build_cache_clear(dir, &removed)) return cli_fail("cache clear");
  fprintf(cli_out, "build cache %s: %llu entries removed\n", cli_quote(dir), (unsigned long long)removed);
  return CLI_OK;
}
