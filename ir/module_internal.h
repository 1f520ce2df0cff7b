/* Private to libirm: what the IRModule files share (dict_attrs.c,
 * base_func.c, attr_keys.c, module.c, module_freeze.c, module_fields.c,
 * module_globals.c). */
#ifndef IRM_IR_MODULE_INTERNAL_H
#define IRM_IR_MODULE_INTERNAL_H

#include <stdatomic.h>

#include "irm/kind.h"
#include "irm/module.h"
#include "irm_internal.h"

/* Type indices, set once while the built-ins register; -1 before. No
 * object of a type exists before its index is set. */
extern _Atomic int32_t irm_dict_attrs_type_;
extern _Atomic int32_t irm_base_func_type_;
extern _Atomic int32_t irm_module_type_;

/* ---- DictAttrs (dict_attrs.c) ------------------------------------------------ */

typedef struct dict_attrs_payload {
  irm_object *map; /* Map key -> value; never NULL */
} dict_attrs_payload;

/* The payload of o when it is a DictAttrs, else NULL. */
static inline const dict_attrs_payload *irm_dict_attrs_payload_(const irm_object *o) {
  return (const dict_attrs_payload *)irm_payload_if_type_(o, &irm_dict_attrs_type_);
}

/* A DictAttrs around map (taken: released on failure too). *out NEW. */
int irm_dict_attrs_wrap_(irm_object *map, irm_object **out);

/* A DictAttrs with key set to value / key removed; in place when *ref is
 * the only reference (container.h's *_move rules). *ref untouched on
 * failure. Erasing an absent key is the Map's KeyError. */
int irm_dict_attrs_set_move_(irm_object **ref, const char *key, const irm_any *value);
int irm_dict_attrs_erase_move_(irm_object **ref, const char *key);

/* The value of key, borrowed; NULL when absent (or attrs is no DictAttrs). */
const irm_any *irm_dict_attrs_find_(const irm_object *attrs, const char *key);

int irm_register_dict_attrs_type_(void);

/* ---- functions (base_func.c) ------------------------------------------------- */

/* Nonzero when f is an ir.BaseFunc (the abstract type itself included). */
int irm_is_base_func_(const irm_object *f);

int irm_register_base_func_type_(void);

/* ---- attribute key registries (attr_keys.c) ---------------------------------- */

typedef struct attr_key_registry attr_key_registry;
extern attr_key_registry irm_module_attr_keys_;
extern attr_key_registry irm_base_func_attr_keys_;

/* A registered key. Entries are never freed (a rolled-back one is only
 * detached), so pointers and strings stay valid for the process; an entry
 * does not change once published. */
typedef struct attr_key {
  const char *name;
  const char *type_name; /* "str", "target", "ir.Executor", ... */
  int is_option;         /* option type of kind.h, else an object type key */
  irm_option_type option;
  int has_alt;         /* a union of two option types ("target|array<target>") */
  irm_option_type alt; /* the second, tried when option refuses the value */
  int pass_invariant;
} attr_key;

/* The entry of key, NULL when it is not registered. Starts the built-ins;
 * *rc receives that status. */
const attr_key *irm_attr_key_find_(attr_key_registry *r, const char *key, int *rc);

/* Checks value for key (entry k, NULL: unregistered, anything goes) and
 * gives the value to store: *out NEW (an IRM_STR becomes a String; option
 * types convert as irm_option_check_value). TypeError "module attribute
 * 'executor': expected ir.Executor, got ir.Runtime". */
int irm_attr_key_check_(const attr_key_registry *r, const attr_key *k, const char *key, const irm_any *value,
                        irm_any *out);

/* "module attribute" or "function attribute", for messages. */
const char *irm_attr_key_what_(const attr_key_registry *r);

/* Copies up to cap pass-invariant module key names (static strings) into
 * buf in registration order; returns how many there are. */
size_t irm_module_attr_invariant_keys_(const char **buf, size_t cap);

int irm_register_attr_keys_builtins_(void);

/* ---- IRModule (module.c) ----------------------------------------------------- */

typedef struct module_payload {
  irm_object *functions; /* Map name -> ir.BaseFunc; never NULL */
  irm_object *attrs;     /* DictAttrs; never NULL */
  int frozen;
  /* The config cache slot (ir_internal.h): NULL until filled, then an
   * object derived from attrs, owned by the module. Never copied into a
   * derived module; emptied when a *_move changes the module in place. */
  _Atomic(irm_object *) config_cache;
} module_payload;

/* The payload of m when it is an IRModule, else NULL. */
static inline const module_payload *irm_module_payload_(const irm_object *m) {
  return (const module_payload *)irm_payload_if_type_(m, &irm_module_type_);
}

/* The module's attributes as a Map, borrowed. */
static inline const irm_object *irm_module_attr_map_(const module_payload *p) {
  return irm_dict_attrs_payload_(p->attrs)->map;
}

/* A module of functions and attrs (both taken, also on failure). */
int irm_module_make_(irm_object *functions, irm_object *attrs, int frozen, irm_module **out);

/* TypeError "<fn>: expected ir.IRModule, got <type>". */
int irm_module_type_error_(const char *fn, const irm_object *o);

/* KeyError "module has no <what> '<key>' (did you mean '<closest>'?)",
 * the closest among map's keys. */
int irm_module_missing_error_(const char *what, const irm_object *map, const char *key);

int irm_register_module_type_(void); /* module_fields.c: the type and its hooks */

int irm_register_module_globals_(void); /* module_globals.c */

/* The module core's provider of built-ins (builtins.c; lib/builtins.c runs it). */
int irm_register_ir_builtins_(void);

#endif
