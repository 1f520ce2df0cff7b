/* What the irm program's commands share (cli_util.h). */
#include "cli_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

FILE *cli_out;

static size_t utf8_char(const unsigned char *s, size_t n);

/* s with bytes that are not UTF-8 (and control bytes other than newline
 * and tab) as \xNN: library messages may quote what a user typed. */
static void write_safe(FILE *f, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  for (size_t i = 0; i < n;) {
    size_t len = (p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7F ? 0 : utf8_char(p + i, n - i);
    if (len == 0) {
      fprintf(f, "\\x%02X", p[i]);
      i++;
    } else {
      fwrite(p + i, 1, len, f);
      i += len;
    }
  }
}

static void vsay(const char *prefix, const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  fputs(prefix, stderr);
  if (text) {
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    write_safe(stderr, text);
    free(text);
  } else {
    fputs("(out of memory)", stderr);
  }
  fputc('\n', stderr);
}

int cli_fail(const char *what) { return cli_say(CLI_FAIL, "%s: %s", what, irm_last_error()); }

int cli_say(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsay("irm: ", fmt, ap);
  va_end(ap);
  return code;
}

int cli_usage_error(const char *command, const char *fmt, ...) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, "irm%s%s: ", command ? " " : "", command ? command : "");
  va_list ap;
  va_start(ap, fmt);
  vsay(prefix, fmt, ap);
  va_end(ap);
  fprintf(stderr, "(irm%s%s --help for usage)\n", command ? " " : "", command ? command : "");
  return CLI_USAGE;
}

/* ---- quoting ------------------------------------------------------------------ */

/* The length of the valid UTF-8 character at s (n bytes left), 0 if none. */
static size_t utf8_char(const unsigned char *s, size_t n) {
  if (s[0] < 0x80) return 1;
  size_t len = s[0] >= 0xC2 && s[0] <= 0xDF   ? 2
               : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
               : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4
                                              : 0;
  if (!len || len > n) return 0;
  for (size_t i = 1; i < len; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (len == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0))) return 0;
  if (len == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))) return 0;
  return len;
}

const char *cli_quote(const char *s) {
  /* Four bytes out per byte in, at most, for IRM_ERROR_QUOTE_MAX bytes and "...". */
  static char bufs[4][4 * IRM_ERROR_QUOTE_MAX + 8];
  static int next;
  char *out = bufs[next];
  next = (next + 1) % 4;
  const char *cut = irm_error_quote(s);
  const unsigned char *p = (const unsigned char *)cut;
  size_t n = strlen(cut), o = 0;
  for (size_t i = 0; i < n;) {
    size_t len = p[i] < 0x20 || p[i] == 0x7F ? 0 : utf8_char(p + i, n - i);
    if (len == 0) {
      o += (size_t)snprintf(out + o, 5, "\\x%02X", p[i]);
      i++;
    } else {
      memcpy(out + o, p + i, len);
      o += len;
      i += len;
    }
  }
  out[o] = '\0';
  return out;
}

/* ---- flags ---------------------------------------------------------------------- */

static int unknown_flag(const char *command, const char *arg, const struct option *longopts) {
  const char *names[128];
  size_t n = 0;
  for (; longopts[n].name && n < 128; n++) names[n] = longopts[n].name;
  char name[80] = "";
  if (strncmp(arg, "--", 2) == 0) {
    size_t len = strcspn(arg + 2, "=");
    if (len < sizeof name) memcpy(name, arg + 2, len), name[len] = '\0';
  }
  const char *close = name[0] ? irm_closest_name(name, names, n) : NULL;
  if (close) return cli_usage_error(command, "unknown flag '%s' (did you mean '--%s'?)", cli_quote(arg), close);
  return cli_usage_error(command, "unknown flag '%s'", cli_quote(arg));
}

int cli_parse_flags(const char *command, int argc, char **argv, const char *shortopts, const struct option *longopts,
                    cli_flag_fn on_flag, void *data, int *first_arg) {
  char opts[64];
  snprintf(opts, sizeof opts, ":%s", shortopts); /* ':' reports a missing value as ':' */
  opterr = 0;
  optind = 0; /* glibc: start afresh for each command */
  int c, rc;
  while ((c = getopt_long(argc, argv, opts, longopts, NULL)) != -1) {
    const char *arg = argv[optind - 1];
    if (c == ':') return cli_usage_error(command, "flag '%s' needs a value", cli_quote(arg));
    if (c == '?') {
      if (optopt && strncmp(arg, "--", 2) == 0 && strchr(arg, '='))
        return cli_usage_error(command, "flag '%s' takes no value", cli_quote(arg));
      if (optopt && strncmp(arg, "--", 2) != 0) {
        char flag[3] = {'-', (char)optopt, '\0'};
        return unknown_flag(command, flag, longopts);
      }
      return unknown_flag(command, arg, longopts);
    }
    if ((rc = on_flag(c, optarg, data))) return rc;
  }
  *first_arg = optind;
  return CLI_OK;
}

/* ---- files ----------------------------------------------------------------------- */

/* path "-" reads stdin, as mlir-opt does. */
int cli_read_all(const char *command, const char *path, char **text, size_t *len) {
  int from_stdin = !strcmp(path, "-");
  FILE *in = from_stdin ? stdin : fopen(path, "rb");
  if (!in) return cli_say(CLI_FAIL, "%s: cannot read '%s': %s", command, cli_quote(path), strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, in);
    if (n < cap) break;
    char *grown = realloc(buf, cap * 2);
    if (!grown) free(buf);
    buf = grown;
    cap *= 2;
  }
  int bad = ferror(in), err = errno;
  if (!from_stdin) fclose(in);
  if (!buf || bad) {
    free(buf);
    return cli_say(CLI_FAIL, "%s: cannot read '%s': %s", command, cli_quote(path),
                   buf ? strerror(err) : "out of memory");
  }
  *text = buf;
  *len = n;
  return CLI_OK;
}

/* ---- output -------------------------------------------------------------------------- */

int cli_open_output(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return cli_say(CLI_FAIL, "cannot write '%s': %s", cli_quote(path), strerror(errno));
  cli_out = f;
  return CLI_OK;
}

int cli_finish_output(int status) {
  int lost = fflush(cli_out) != 0 || ferror(cli_out);
  int err = errno;
  if (cli_out != stdout) {
    if (fclose(cli_out) != 0) lost = 1, err = errno;
    cli_out = stdout;
  }
  if (fflush(stdout) != 0 || ferror(stdout)) lost = 1, err = errno;
  if (lost) {
    cli_say(CLI_FAIL, "cannot write the output: %s", strerror(err));
    return CLI_FAIL;
  }
  return status;
}

/* ---- globals ----------------------------------------------------------------------------- */

int cli_call(const char *name, const irm_any *args, int32_t nargs, irm_any *out) {
  *out = irm_any_none();
  return irm_func_call_global(name, args, nargs, out);
}

const char *cli_str(const irm_any *v) {
  if (!v) return NULL;
  if (v->type_code == IRM_STR) return v->v_str;
  if (v->type_code == IRM_OBJECT && irm_object_is(v->v_obj, "ffi.String")) return irm_string_data(v->v_obj);
  return NULL;
}

int cli_load_env_plugins(void) {
  if (irm_plugin_load_from_env()) return cli_fail("loading plugins");
  return CLI_OK;
}

int cli_load_plugin(const char *path) {
  if (irm_plugin_load(path)) return cli_fail("--load-plugin");
  return CLI_OK;
}

/* ---- JSON ----------------------------------------------------------------------------- */

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p == '\n') fputs("\\n", f);
    else if (*p == '\t') fputs("\\t", f);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

static void newline(FILE *f, int indent) {
  if (indent < 0) return;
  fputc('\n', f);
  for (int i = 0; i < indent; i++) fputs("  ", f);
}

int cli_write_json(FILE *f, const irm_any *v, int indent) {
  int inner = indent < 0 ? -1 : indent + 1;
  switch (v->type_code) {
  case IRM_NONE: fputs("null", f); return CLI_OK;
  case IRM_BOOL: fputs(v->v_int ? "true" : "false", f); return CLI_OK;
  case IRM_INT: fprintf(f, "%lld", (long long)v->v_int); return CLI_OK;
  case IRM_FLOAT:
    if (isfinite(v->v_float)) fprintf(f, "%.17g", v->v_float);
    else fputs("null", f);
    return CLI_OK;
  case IRM_STR: json_string(f, v->v_str); return CLI_OK;
  case IRM_OBJECT: break;
  default: fputs("null", f); return CLI_OK;
  }
  const irm_object *o = v->v_obj;
  if (irm_object_is(o, "ffi.String")) {
    json_string(f, irm_string_data(o));
  } else if (irm_object_is(o, "ffi.Array")) {
    size_t n = irm_array_size(o);
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
      if (i) fputs(indent < 0 ? ", " : ",", f);
      newline(f, inner);
      if (cli_write_json(f, irm_array_at(o, i), inner)) return CLI_FAIL;
    }
    if (n) newline(f, indent);
    fputc(']', f);
  } else if (irm_object_is(o, "ffi.Map")) {
    irm_map_iter it = irm_map_iter_begin(o);
    const irm_object *key;
    const irm_any *value;
    int first = 1;
    fputc('{', f);
    while (irm_map_iter_next(&it, &key, &value)) {
      if (!first) fputs(indent < 0 ? ", " : ",", f);
      first = 0;
      newline(f, inner);
      json_string(f, irm_string_data(key));
      fputs(": ", f);
      if (cli_write_json(f, value, inner)) return CLI_FAIL;
    }
    if (!first) newline(f, indent);
    fputc('}', f);
  } else {
    irm_any text;
    if (cli_call(irm_object_is(o, "target.Target") ? "target.AsString" : "ffi.Repr", v, 1, &text))
      return cli_fail("writing JSON");
    json_string(f, cli_str(&text));
    irm_any_release(&text);
  }
  return CLI_OK;
}
