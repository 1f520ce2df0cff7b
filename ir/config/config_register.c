/* Registering a kind from a description Map (irm_config_register_kind, the
 * `*.RegisterKind` globals): option -> type name, or option -> {type,
 * default, doc, required}. All-or-nothing through a registration journal. */
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "irm/structural.h"
#include "irm_internal.h"

/* One option as a description gives it; default_value is NEW (converted to
 * the option's type), NONE when there is none. */
typedef struct option_spec {
  irm_option_type type;
  irm_any default_value;
  const char *doc; /* borrowed from the description */
  int required;
} option_spec;

static int register_all(const char *category, const char *name, const irm_object *spec);

int irm_config_register_kind(const char *category, const char *name, const irm_object *spec) {
  if (!category || !name) return irm_error(IRM_EVALUE, "irm_config_register_kind: category and name must not be NULL");
  if (spec && !irm_object_is(spec, "ffi.Map"))
    return irm_error(IRM_ETYPE, "options of %s kind '%s': expected an ffi.Map option -> type, got %s", category,
                     irm_error_quote(name), irm_object_type_key(spec));
  irm_journal *journal = NULL;
  int rc = irm_journal_open(&journal);
  if (rc) return rc;
  rc = register_all(category, name, spec);
  if (rc == IRM_OK && (rc = irm_journal_commit(journal)) == IRM_OK) return IRM_OK;
  (void)irm_journal_rollback(journal); /* undo runs no code that sets errors */
  return rc;
}

/* ---- reading a description ------------------------------------------------- */

static const char *const spec_fields[] = {"type", "default", "doc", "required"};
enum { n_spec_fields = sizeof spec_fields / sizeof spec_fields[0] };

static int check_spec_fields(const irm_object *desc) {
  irm_map_iter it = irm_map_iter_begin(desc);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value)) {
    const char *k = irm_string_data(key);
    int known = 0;
    for (size_t i = 0; i < n_spec_fields; i++) known |= strcmp(k, spec_fields[i]) == 0;
    if (known) continue;
    const char *best = irm_closest_name(k, spec_fields, n_spec_fields);
    return irm_error(IRM_EATTR, "unknown field '%s'%s%s%s; an option description has type, default, doc, required",
                     irm_error_quote(k), best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
  }
  return IRM_OK;
}

static int parse_type(const irm_any *v, irm_option_type *out) {
  const char *s = NULL;
  int rc = irm_any_to_str(v, &s, NULL);
  return rc ? irm_error_context(rc, "field 'type'") : irm_option_type_parse(s, out);
}

/* Reads a Map description {type, default, doc, required}. */
static int parse_description(const irm_object *desc, option_spec *out) {
  int rc = check_spec_fields(desc);
  if (rc) return rc;
  const irm_any *type = irm_map_find_cstr(desc, "type"), *def = irm_map_find_cstr(desc, "default"),
                *doc = irm_map_find_cstr(desc, "doc"), *required = irm_map_find_cstr(desc, "required");
  if (!type) return irm_error(IRM_EVALUE, "an option description needs a 'type'");
  if ((rc = parse_type(type, &out->type))) return rc;
  if (doc && doc->type_code != IRM_NONE && (rc = irm_any_to_str(doc, &out->doc, NULL)))
    return irm_error_context(rc, "field 'doc'");
  bool req = false;
  if (required && required->type_code != IRM_NONE && (rc = irm_any_to_bool(required, &req)))
    return irm_error_context(rc, "field 'required'");
  out->required = req;
  if (def && def->type_code != IRM_NONE && (rc = irm_option_check_value(out->type, def, &out->default_value)))
    return irm_error_context(rc, "field 'default'");
  if (out->required && out->default_value.type_code != IRM_NONE)
    return irm_error(IRM_EVALUE, "a required option cannot have a default");
  return IRM_OK;
}

/* A type name or a description Map. */
static int parse_spec(const irm_any *v, option_spec *out) {
  memset(out, 0, sizeof *out);
  out->default_value = irm_any_none();
  out->doc = "";
  if (v->type_code == IRM_STR || (v->type_code == IRM_OBJECT && irm_string_data(v->v_obj)))
    return parse_type(v, &out->type);
  if (v->type_code == IRM_OBJECT && irm_object_is(v->v_obj, "ffi.Map")) return parse_description(v->v_obj, out);
  return irm_error(IRM_ETYPE, "expected a type name or an ffi.Map {type, default, doc, required}, got %s",
                   irm_any_describe_(v));
}

/* ---- comparing with a registered option ------------------------------------- */

/* "int (default 16)", "bool (required)", "str (no default)" into buf. */
static int describe(irm_option_type type, const irm_any *def, int required, char *buf, size_t size) {
  if (required || def->type_code == IRM_NONE) {
    snprintf(buf, size, "%s (%s)", irm_option_type_name(type), required ? "required" : "no default");
    return IRM_OK;
  }
  irm_object *text = NULL;
  int rc = irm_repr(def, &text);
  if (rc) return rc;
  snprintf(buf, size, "%s (default %s)", irm_option_type_name(type), irm_string_data(text));
  irm_object_release(text);
  return IRM_OK;
}

/* 0 when the registered option matches s, else KeyError naming both. */
static int compare_option(const irm_kind *kind, const char *option, const option_spec *s) {
  irm_object *all = NULL;
  int rc = irm_kind_describe_options(kind, &all);
  if (rc) return rc;
  const irm_any *info = irm_map_find_cstr(all, option);
  const irm_object *desc = info && info->type_code == IRM_OBJECT ? info->v_obj : NULL;
  const irm_any *type = irm_map_find_cstr(desc, "type"), *def = irm_map_find_cstr(desc, "default"),
                *req = irm_map_find_cstr(desc, "required");
  if (!type || !def || !req) {
    irm_object_release(all);
    return irm_error(IRM_ERUNTIME, "%s '%s' lost option '%s' while it was being registered", irm_kind_category(kind),
                     irm_kind_name(kind), irm_error_quote(option));
  }
  irm_option_type old_type = s->type;
  int same_default = 0;
  rc = irm_option_type_parse(irm_string_data(type->v_obj), &old_type);
  if (!rc) rc = irm_structural_equal(def, &s->default_value, &same_default);
  if (!rc && (old_type != s->type || !same_default || (req->v_int != 0) != (s->required != 0))) {
    char was[256], now[256];
    rc = describe(old_type, def, req->v_int != 0, was, sizeof was);
    if (!rc) rc = describe(s->type, &s->default_value, s->required, now, sizeof now);
    if (!rc)
      rc = irm_error(IRM_EKEY, "%s kind '%s' already has option '%s' as %s; it cannot be redefined as %s",
                     irm_kind_category(kind), irm_kind_name(kind), irm_error_quote(option), was, now);
  }
  irm_object_release(all);
  return rc;
}

/* Adds the option, or checks that the registered one is the same. */
static int define_option(irm_kind *kind, const char *option, const option_spec *s) {
  int rc = irm_kind_option(kind, option, NULL, NULL);
  if (rc == IRM_EATTR) {
    irm_clear_error();
    rc = irm_kind_add_option(kind, option, s->type, &s->default_value, s->doc, s->required);
    if (rc != IRM_EKEY) return rc;
    irm_clear_error(); /* another thread added it first: compare with theirs */
  } else if (rc) {
    return rc;
  }
  return compare_option(kind, option, s);
}

static int register_all(const char *category, const char *name, const irm_object *spec) {
  irm_kind *kind = NULL;
  int rc = irm_kind_register(category, name, &kind);
  if (rc) return rc;
  irm_map_iter it = irm_map_iter_begin(spec);
  const irm_object *key;
  const irm_any *value;
  while (rc == IRM_OK && irm_map_iter_next(&it, &key, &value)) {
    const char *option = irm_string_data(key);
    option_spec s;
    rc = parse_spec(value, &s);
    if (rc)
      rc = irm_error_context(rc, "option '%s' of %s kind '%s'", irm_error_quote(option), category,
                             irm_error_quote(name));
    else rc = define_option(kind, option, &s);
    irm_any_release(&s.default_value);
  }
  return rc;
}
