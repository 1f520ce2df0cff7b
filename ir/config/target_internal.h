/* Private to libirm: what the target files share (target.c, target_build.c,
 * target_parse.c, target_print.c, target_kinds.c, target_tags.c,
 * target_legacy.c, target_globals.c, target_json.c, target_scope.c). */
#ifndef IRM_IR_TARGET_INTERNAL_H
#define IRM_IR_TARGET_INTERNAL_H

#include "irm/target.h"

/* The payload of a target.Target. */
typedef struct target_payload {
  irm_kind *kind;    /* borrowed: kinds live for the process */
  irm_object *attrs; /* Map: keys first, then the set options in schema order; never host */
  irm_object *host;  /* Target or NULL */
  irm_object *keys;  /* borrowed from attrs: its "keys" Array */
} target_payload;

/* Legacy options found while parsing in legacy mode (irm_target_convert_
 * legacy): one Map per nesting depth (0: the target, 1: its host, ...),
 * option name -> typed value, in the order given. NULL entries: none
 * found. A NULL collector means legacy options are errors. */
typedef struct target_legacy {
  irm_object *found[IRM_TARGET_MAX_DEPTH + 1];
} target_legacy;

void irm_target_legacy_clear_(target_legacy *legacy);

/* ---- target.c -------------------------------------------------------------- */

/* The payload of t when t is a Target, else NULL. */
const target_payload *irm_target_payload_(const irm_object *t);

/* A new Target of kind with attrs and host (both taken: the Target owns
 * the references, also on failure). attrs must hold "keys". */
int irm_target_new_(irm_kind *kind, irm_object *attrs, irm_object *host, irm_object **out);

/* ---- target_build.c: config Map -> Target ---------------------------------- */

/* Validates config (kind, options, host, keys, FValidate) into a Target.
 * depth counts host nesting; legacy may be NULL. */
int irm_target_build_(const irm_object *config, int depth, target_legacy *legacy, irm_object **out);

/* A Target from text, a tag name, a Map or a Target (what a host may be
 * given as); TypeError naming the accepted forms otherwise. */
int irm_target_from_any_(const irm_any *value, int depth, target_legacy *legacy, irm_object **out);

/* The error for an option the kind does not have: the pointer to Executor
 * or Runtime for their options, else the kind's AttributeError with the
 * closest option. Always returns a negative status. */
int irm_target_unknown_option_(const irm_kind *kind, const char *option);

/* ---- target_parse.c --------------------------------------------------------- */

int irm_target_parse_(const char *text, int depth, target_legacy *legacy, irm_object **out);

/* ---- target_json.c ---------------------------------------------------------- */

/* The Map config of a JSON target text. *out NEW. ValueError for malformed
 * JSON (with jansson's line and column), a JSON value that is not an
 * object, or nesting deeper than any target needs. */
int irm_target_json_config_(const char *text, irm_object **out);

/* ---- target_legacy.c -------------------------------------------------------- */

/* Nonzero when name is an executor or runtime option that targets used to
 * have; *type (may be NULL) receives its type. */
int irm_target_legacy_option_(const char *name, irm_option_type *type);

/* AttributeError for a legacy option given to a kind without it, naming
 * the Executor or Runtime that owns it now. */
int irm_target_legacy_error_(const irm_kind *kind, const char *option);

/* ---- target_kinds.c, target_tags.c, target_globals.c ------------------------ */

int irm_register_target_type_(void); /* target.c */
int irm_target_register_kinds_(void);
int irm_target_register_globals_(void);

/* Registers a target kind from a Map option -> type name or {type,
 * default, doc} (target.RegisterKind). Identical re-registration succeeds;
 * a different definition is a KeyError. All or nothing. */
int irm_target_kind_register_schema_(const char *name, const irm_object *options);

/* The tag's config and Target (NEW references, either pointer may be NULL),
 * or NULLs with status 0 when no tag has that name. */
int irm_target_tag_lookup_(const char *name, irm_object **config, irm_object **target);

#endif
