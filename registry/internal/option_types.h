/* Layer 0's internals for upper layers: option types they plug in.
 *
 * Layer 0 knows the option types made of plain values (bool, int, float,
 * str, array<str>, array<int>, map). Types whose values are objects of an
 * upper library (the configs' target) are registered by that library at its
 * built-in registration time, into the slot its public enum value names
 * (kind.h). Until then such a slot is no type: its name is NULL and values
 * of it are refused. Registration is not journaled: it is meant for
 * built-ins, which are never rolled back. */
#ifndef IRM_REGISTRY_OPTION_TYPES_H
#define IRM_REGISTRY_OPTION_TYPES_H

#include "irm/kind.h"

/* The first slot an upper layer may fill, and one past the last. */
#define IRM_OPTION_FIRST_PLUGGABLE_ IRM_OPTION_TARGET
#define IRM_OPTION_TYPE_LIMIT_ 16

/* An option type whose values are objects of an upper layer's type. */
typedef struct irm_option_type_def {
  const char *name;       /* "target", "array<target>": what schemas and messages say */
  const char *object_key; /* values are objects of this type key */
  int is_array;           /* nonzero: values are Arrays of such objects */
} irm_option_type_def;

/* Fills slot type with def (borrowed: it must live for the process, so a
 * static). Values given natively must be objects of def->object_key (or,
 * for an array type, Arrays of them); text values come back as a String
 * (an array type: an Array of Strings, split as array<str> is) for the
 * caller to turn into objects. Registering the same def again succeeds.
 * ValueError for a slot outside [IRM_OPTION_FIRST_PLUGGABLE_,
 * IRM_OPTION_TYPE_LIMIT_) or a NULL/empty name or key; KeyError when the
 * slot holds another def or another slot has the name. Thread-safe. */
int irm_option_type_register_(irm_option_type type, const irm_option_type_def *def);

#endif
