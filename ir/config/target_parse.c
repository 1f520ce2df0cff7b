/* Target text (target.h), TVM's rules: words split on whitespace outside
 * single quotes; the first word is a kind or a tag; then -key=value,
 * --key=value, -key value or a bare -flag. The words become a config Map
 * that target_build.c turns into a Target. Text that starts with '{' is
 * the JSON form of the Map config (target_json.c). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "target_internal.h"

/* The raw words of a text: quotes and escapes are kept, to be interpreted
 * once a word's role is known. */
typedef struct words {
  char *buf;
  char **at;
  size_t n;
} words;

/* One option word (and maybe the word after it) taken apart. */
typedef struct option_word {
  char *key;         /* owned */
  const char *value; /* raw, borrowed from the words; NULL for a bare flag */
  size_t used;       /* words consumed: 1 or 2 */
} option_word;

static int split_words(const char *text, words *w);
static int start_config(const char *first, irm_object **config, irm_kind **kind);
static int read_options(const words *w, irm_kind *kind, int depth, target_legacy *legacy, irm_object **config);

int irm_target_parse_(const char *text, int depth, target_legacy *legacy, irm_object **out) {
  *out = NULL;
  if (depth > IRM_TARGET_MAX_DEPTH)
    return irm_error(IRM_EVALUE, "target hosts nest deeper than %d levels", IRM_TARGET_MAX_DEPTH);
  /* Checked before anything quotes the text: a message must stay UTF-8. */
  int rc = irm_utf8_check_("the target string", text);
  if (rc) return rc;
  words w = {0};
  irm_object *config = NULL;
  irm_kind *kind = NULL;
  const char *start = text;
  while (isspace((unsigned char)*start)) start++;
  rc = *start == '{' ? irm_target_json_config_(text, &config) : split_words(text, &w);
  if (!rc && !config) rc = start_config(w.at[0], &config, &kind);
  if (!rc && kind) rc = read_options(&w, kind, depth, legacy, &config);
  if (!rc) rc = irm_target_build_(config, depth, legacy, out);
  irm_object_release(config);
  irm_free(w.buf);
  irm_free(w.at);
  return rc ? irm_error_context(rc, "in target string '%s'", irm_error_quote(text)) : IRM_OK;
}

/* ---- words ---------------------------------------------------------------- */

/* A backslash escapes a quote or a backslash; the pair stays in the word. */
static int is_escape(const char *s) { return s[0] == '\\' && (s[1] == '\'' || s[1] == '\\'); }

static int split_words(const char *text, words *w) {
  size_t len = strlen(text);
  w->buf = irm_malloc(len + 1); /* each word ends with a NUL in place of a space, the last one extra */
  w->at = irm_malloc((len / 2 + 1) * sizeof *w->at);
  if (!w->buf || !w->at) return irm_error_nomem_("splitting a target string");
  size_t o = 0;
  int quoted = 0, in_word = 0;
  for (size_t i = 0; i < len;) {
    char c = text[i];
    if (!quoted && isspace((unsigned char)c)) {
      if (in_word) w->buf[o++] = '\0';
      in_word = 0;
      i++;
      continue;
    }
    if (!in_word) w->at[w->n++] = w->buf + o;
    in_word = 1;
    if (is_escape(text + i)) {
      w->buf[o++] = text[i++];
    } else if (c == '\'') {
      quoted = !quoted;
    }
    w->buf[o++] = text[i++];
  }
  if (in_word) w->buf[o++] = '\0';
  if (quoted) return irm_error(IRM_EVALUE, "unbalanced single quote ('): close it, or write \\' for a quote");
  if (w->n == 0)
    return irm_error(IRM_EVALUE, "the target string is empty: expected a target kind or tag name, then options, "
                                 "as in 'llvm -mcpu=cortex-a72'");
  return IRM_OK;
}

/* A raw word without its quotes and escapes. NULL when out of memory. */
static char *interpret(const char *raw) {
  char *s = irm_malloc(strlen(raw) + 1);
  if (!s) return NULL;
  size_t o = 0;
  for (size_t i = 0; raw[i]; i++) {
    if (is_escape(raw + i)) s[o++] = raw[++i];
    else if (raw[i] != '\'') s[o++] = raw[i];
  }
  s[o] = '\0';
  return s;
}

/* ---- the first word: a tag or a kind ----------------------------------------- */

/* The closest tag name to name, copied into buf ("" when none). */
static void closest_tag(const char *name, char *buf, size_t size) {
  irm_object *tags = NULL;
  buf[0] = '\0';
  if (irm_target_tag_list(&tags)) return;
  size_t n = irm_array_size(tags);
  const char **names = irm_malloc((n ? n : 1) * sizeof *names);
  if (names) {
    for (size_t i = 0; i < n; i++) names[i] = irm_string_data(irm_array_at(tags, i)->v_obj);
    const char *best = irm_closest_name(name, names, n);
    if (best) snprintf(buf, size, "%s", best);
  }
  irm_free(names);
  irm_object_release(tags);
}

/* The kind registry's ValueError, completed: no tag has the name either. */
static int unknown_name_error(const char *name) {
  char *msg = irm_strdup(irm_last_error());
  if (!msg) return irm_error_nomem_("reporting an unknown target kind");
  const char *prefix = "ValueError: ";
  const char *text = strncmp(msg, prefix, strlen(prefix)) == 0 ? msg + strlen(prefix) : msg;
  char tag[256];
  closest_tag(name, tag, sizeof tag);
  int rc = tag[0] ? irm_error(IRM_EVALUE, "%s; no target tag is called '%s' either (did you mean the tag '%s'?)", text,
                              irm_error_quote(name), tag)
                  : irm_error(IRM_EVALUE, "%s; no target tag is called '%s' either", text, irm_error_quote(name));
  irm_free(msg);
  return rc;
}

static int start_config(const char *first, irm_object **config, irm_kind **kind) {
  char *name = interpret(first);
  if (!name) return irm_error_nomem_("parsing a target string");
  int rc = irm_target_tag_lookup_(name, config, NULL);
  if (rc == IRM_OK && *config) {
    const char *kind_name = NULL;
    (void)irm_any_to_str(irm_map_find_cstr(*config, "kind"), &kind_name, NULL);
    rc = irm_kind_find("target", kind_name ? kind_name : "", kind);
  } else if (rc == IRM_OK) {
    rc = irm_kind_find("target", name, kind);
    if (rc == IRM_EVALUE) rc = unknown_name_error(name);
    const char *keys[] = {"kind"};
    irm_any values[] = {irm_any_str(name)};
    if (!rc) rc = irm_map_from_pairs(keys, values, 1, config);
  }
  irm_free(name);
  return rc;
}

/* ---- options ------------------------------------------------------------------- */

/* Takes word (and maybe next) apart into key and raw value. */
static int split_option(const char *word, const char *next, option_word *opt) {
  memset(opt, 0, sizeof *opt);
  size_t dashes = 0;
  while (word[dashes] == '-') dashes++;
  if (dashes == 0)
    return irm_error(IRM_EVALUE, "'%s' is not an option: options start with '-' (did you mean '-%s'?)",
                     irm_error_quote(word), irm_error_quote(word));
  if (dashes > 2 || !word[dashes])
    return irm_error(IRM_EVALUE, "'%s' is not an option: write -name=value, -name value or -name",
                     irm_error_quote(word));
  const char *body = word + dashes;
  const char *eq = strchr(body, '=');
  if (eq == body) return irm_error(IRM_EVALUE, "'%s' has no option name before '='", irm_error_quote(word));
  opt->key = eq ? irm_strndup(body, (size_t)(eq - body)) : irm_strdup(body);
  if (!opt->key) return irm_error_nomem_("parsing a target string");
  opt->used = 1;
  if (eq) {
    opt->value = eq + 1;
  } else if (next && next[0] != '-') {
    opt->value = next;
    opt->used = 2;
  }
  return IRM_OK;
}

/* How word i gave its option, for messages: "-mcpu=a" or "-fast-math". */
static void shown_as(const words *w, size_t i, char *buf, size_t size) {
  option_word opt;
  if (split_option(w->at[i], i + 1 < w->n ? w->at[i + 1] : NULL, &opt) != IRM_OK) {
    snprintf(buf, size, "%s", w->at[i]);
    return;
  }
  if (opt.value) snprintf(buf, size, "-%s=%s", opt.key, opt.value);
  else snprintf(buf, size, "-%s", opt.key);
  irm_free(opt.key);
}

/* ValueError when key was given before; else remembers the word (its
 * index), so the message can show both. */
static int check_once(irm_object **seen, const words *w, size_t i, const option_word *opt) {
  const irm_any *before = irm_map_find_cstr(*seen, opt->key);
  if (!before) {
    irm_any at = irm_any_int((int64_t)i);
    return irm_map_set_move(seen, opt->key, &at);
  }
  char first[256], second[256];
  shown_as(w, (size_t)before->v_int, first, sizeof first);
  shown_as(w, i, second, sizeof second);
  return irm_error(IRM_EVALUE, "option '%s' is given twice: %s and %s", irm_error_quote(opt->key), first, second);
}

/* The typed value of an option given in text. *out NEW. */
static int parse_value(const irm_kind *kind, const option_word *opt, irm_option_type type, int depth,
                       target_legacy *legacy, irm_any *out) {
  const char *type_name = irm_option_type_name(type);
  if (!opt->value) {
    if (type == IRM_OPTION_BOOL) {
      *out = irm_any_bool(true);
      return IRM_OK;
    }
    return irm_error(IRM_EVALUE,
                     "option '%s' of target '%s' needs a value of type %s: write -%s=<%s> (only bool options "
                     "may be given as a bare flag)",
                     irm_error_quote(opt->key), irm_kind_name(kind), type_name, irm_error_quote(opt->key), type_name);
  }
  if (!opt->value[0])
    return irm_error(IRM_EVALUE,
                     "option '%s' of target '%s' has an empty value; expected %s (write -%s='' for an "
                     "empty string)",
                     irm_error_quote(opt->key), irm_kind_name(kind), type_name, irm_error_quote(opt->key));
  char *text = interpret(opt->value);
  if (!text) return irm_error_nomem_("parsing a target string");
  int rc;
  if (type == IRM_OPTION_TARGET) {
    irm_object *t = NULL;
    rc = irm_target_parse_(text, depth + 1, legacy, &t);
    *out = irm_any_object(t);
  } else {
    rc = irm_option_parse_text(type, text, out);
  }
  irm_free(text);
  return rc ? irm_error_context(rc, "option '%s' of target '%s'", irm_error_quote(opt->key), irm_kind_name(kind))
            : IRM_OK;
}

/* Legacy mode: an executor or runtime option the kind lacks is collected
 * for irm_target_convert_legacy instead of refused. 1 when collected. */
static int collect_legacy(const irm_kind *kind, const option_word *opt, int depth, target_legacy *legacy, int *rc) {
  irm_option_type type;
  if (!legacy || !irm_target_legacy_option_(opt->key, &type)) return 0;
  irm_any value = irm_any_none();
  *rc = parse_value(kind, opt, type, depth, NULL, &value);
  if (!*rc && !legacy->found[depth]) *rc = irm_map_new(&legacy->found[depth]);
  if (!*rc) *rc = irm_map_set_move(&legacy->found[depth], opt->key, &value);
  irm_any_release(&value);
  return 1;
}

static int read_option(irm_kind *kind, const option_word *opt, int depth, target_legacy *legacy, irm_object **config) {
  irm_option_type type;
  int rc;
  /* Without a default to copy, the lookup fails only when the option is
   * missing; the message it builds (which may itself run out of memory) is
   * not needed then. */
  if (irm_kind_option(kind, opt->key, &type, NULL) != IRM_OK) {
    if (collect_legacy(kind, opt, depth, legacy, &rc)) return rc;
    return irm_target_unknown_option_(kind, opt->key);
  }
  irm_any value = irm_any_none();
  rc = parse_value(kind, opt, type, depth, legacy, &value);
  if (!rc) rc = irm_map_set_move(config, opt->key, &value);
  irm_any_release(&value);
  return rc;
}

static int read_options(const words *w, irm_kind *kind, int depth, target_legacy *legacy, irm_object **config) {
  irm_object *seen = NULL;
  int rc = irm_map_new(&seen);
  for (size_t i = 1; rc == IRM_OK && i < w->n;) {
    option_word opt;
    rc = split_option(w->at[i], i + 1 < w->n ? w->at[i + 1] : NULL, &opt);
    if (!rc) rc = check_once(&seen, w, i, &opt);
    if (!rc) rc = read_option(kind, &opt, depth, legacy, config);
    i += opt.used;
    irm_free(opt.key);
  }
  irm_object_release(seen);
  return rc;
}

void irm_target_legacy_clear_(target_legacy *legacy) {
  for (size_t i = 0; i <= IRM_TARGET_MAX_DEPTH; i++) {
    irm_object_release(legacy->found[i]);
    legacy->found[i] = NULL;
  }
}
