/* Objects, the runtime type registry and irm_any helpers.
 *
 * Every irm value that is not a scalar is an object: a reference-counted
 * block with a type index. Types form a tree rooted at "ffi.Object" and can
 * be registered at run time (plugins do), each with a finalizer and optional
 * hooks used by JSON, structural equality/hash and repr.
 *
 * Objects are immutable once shared (docs/architecture.md); the payload of a new
 * object may be filled in before it is handed to anyone else.
 *
 * Thread safety: reference counting is atomic; the type registry is safe for
 * concurrent lookup and registration.
 */
#ifndef IRM_OBJECT_H
#define IRM_OBJECT_H

#include <stdbool.h>

#include "irm/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Type indices of the built-in types; they never change. */
enum {
  IRM_TYPE_OBJECT = 0,         /* "ffi.Object", the root */
  IRM_TYPE_STRING = 1,         /* "ffi.String" */
  IRM_TYPE_ARRAY = 2,          /* "ffi.Array" */
  IRM_TYPE_MAP = 3,            /* "ffi.Map" */
  IRM_TYPE_FUNCTION = 4,       /* "ffi.Function" */
  IRM_TYPE_NATIVE_CLOSURE = 5, /* "ffi.NativeClosure", from irm_func_to_native */
  IRM_TYPE_FIRST_DYNAMIC = 16
};

/* Describes a type. Only type_key is required. struct_size lets irm accept
 * descriptions from code compiled against older headers. */
typedef struct irm_type_info {
  uint32_t struct_size;   /* sizeof(irm_type_info) as the caller saw it */
  const char *type_key;   /* "my.Thing"; copied */
  const char *parent_key; /* NULL means "ffi.Object"; must be registered */
  /* Releases what the payload owns (child objects, buffers). Runs once,
   * when the last reference goes; must not touch other objects' payloads.
   * Releasing children from here is safe at any depth: irm defers them
   * instead of recursing. NULL when the payload owns nothing. */
  void (*finalize)(irm_object *self);
  /* Optional hooks, filled in by types that support them. */
  /* A Map of the object's fields (NEW reference), for JSON and generic
   * equality/hash/repr. */
  int (*to_fields)(const irm_object *self, irm_object **out_map);
  /* Rebuilds an object from the Map to_fields made; *out NEW reference. */
  int (*from_fields)(const irm_object *fields, irm_object **out);
  /* Structural equality and hash of two objects of this type, when the
   * fields Map is not the right notion. */
  int (*equal)(const irm_object *a, const irm_object *b, int *out_equal);
  int (*hash)(const irm_object *self, uint64_t *out_hash);
  /* A readable one-line form; *out_string a NEW String. */
  int (*repr)(const irm_object *self, irm_object **out_string);
  /* Keys the type had before a rename, as a NULL-terminated array (NULL:
   * none), so that what was saved under them still loads. A former key
   * names the type wherever a key is looked up (irm_type_find, the JSON
   * reader, irm_object_is, irm_type_ensure, a parent_key), while the type
   * reports only type_key (irm_type_key, irm_object_type_key, JSON
   * writing). Each must be non-empty, differ from type_key and the others,
   * and name no registered type, current or former. Copied.
   * Added after repr: a struct_size that stops before this field means
   * none. irm_type_info_of gives irm's copy (NULL when none). */
  const char *const *former_keys;
} irm_type_info;

/* Registers a type and gives its index. info and its strings are copied.
 * Recorded in the open registration journal, if any: a rollback removes the
 * key and every former key together.
 * Errors: ValueError (NULL or empty key, NULL info/out, struct_size too
 * small, an empty or repeated former key), KeyError (key or a former key
 * already names a type, current or former; or unknown parent, with the
 * closest registered key), MemoryError. Nothing is registered on error. */
IRM_API int irm_type_register(const irm_type_info *info, int32_t *out_index);

/* Registers a type unless its key is registered already (as a current or a
 * former key), in which case the existing index is given (and info is not
 * compared): what built-in registrations use to be safe to run again.
 * Errors as irm_type_register. */
IRM_API int irm_type_ensure(const irm_type_info *info, int32_t *out_index);

/* Finds a registered type by key, current or former (a former key gives
 * the renamed type's index). Errors: KeyError with the closest key (a
 * typo of a former key suggests the current one), ValueError (NULL
 * arguments). */
IRM_API int irm_type_find(const char *type_key, int32_t *out_index);

/* The current key of a type index; NULL if no such type. Static for the
 * process. */
IRM_API const char *irm_type_key(int32_t type_index);

/* Nonzero when type_index is ancestor or one of its descendants. */
IRM_API int irm_type_is_subtype(int32_t type_index, int32_t ancestor);

/* The hooks of a registered type (a copy owned by irm, never freed while
 * the process lives); NULL if no such type. */
IRM_API const irm_type_info *irm_type_info_of(int32_t type_index);

/* Makes an object of a registered type with payload_size zeroed bytes of
 * payload (aligned for any C type). *out: new reference, count 1.
 * Errors: KeyError (unknown type index), MemoryError. */
IRM_API int irm_object_new(int32_t type_index, size_t payload_size, irm_object **out);

/* The payload of an object made with irm_object_new; borrowed from o. */
IRM_API void *irm_object_payload(irm_object *o);
IRM_API const void *irm_object_payload_const(const irm_object *o);

/* The type index of o; -1 for NULL. */
IRM_API int32_t irm_object_type_index(const irm_object *o);

/* Nonzero when o's type is type_key or derives from it; a former key of a
 * type (irm_type_info.former_keys) counts as its key. 0 for NULL or an
 * unknown key. */
IRM_API int irm_object_is(const irm_object *o, const char *type_key);

/* The current reference count (for *_move decisions and tests; another
 * thread may change it at any time unless the caller owns every reference). */
IRM_API uint32_t irm_object_refcount(const irm_object *o);

/* ---- irm_any ----------------------------------------------------------- */

/* Constructors. irm_any_object does not retain: the caller decides who owns.
 * ({0, 0, {0}} names every member, so C++ with -Wextra accepts it too.) */
static inline irm_any irm_any_none(void) {
  irm_any v = {0, 0, {0}};
  v.type_code = IRM_NONE;
  return v;
}
static inline irm_any irm_any_int(int64_t x) {
  irm_any v = {0, 0, {0}};
  v.type_code = IRM_INT;
  v.v_int = x;
  return v;
}
static inline irm_any irm_any_bool(bool x) {
  irm_any v = {0, 0, {0}};
  v.type_code = IRM_BOOL;
  v.v_int = x ? 1 : 0;
  return v;
}
static inline irm_any irm_any_float(double x) {
  irm_any v = {0, 0, {0}};
  v.type_code = IRM_FLOAT;
  v.v_float = x;
  return v;
}
static inline irm_any irm_any_ptr(void *x) {
  irm_any v = {0, 0, {0}};
  v.type_code = IRM_PTR;
  v.v_ptr = x;
  return v;
}
static inline irm_any irm_any_str(const char *x) {
  irm_any v = {0, 0, {0}};
  v.type_code = IRM_STR;
  v.v_str = x;
  return v;
}
static inline irm_any irm_any_object(irm_object *x) {
  irm_any v = {0, 0, {0}};
  v.type_code = x ? IRM_OBJECT : IRM_NONE;
  v.v_obj = x;
  return v;
}

/* The type name of a value for messages: "none", "int", "bool", "float",
 * "ptr", "str", an object's type key, or "invalid" for an unknown type
 * code. Static. */
IRM_API const char *irm_any_type_name(const irm_any *v);

/* Typed readers: 0 and the value, or TypeError "expected <t>, got <u>",
 * u naming the value given: "int 5", "float 0.5", "bool true", "str
 * 'four'" (a str or a String; cut as irm_error_quote cuts, with ', \,
 * control bytes and bytes that are not UTF-8 escaped: \', \\, \n, \xNN),
 * "none", "ptr", or an object's type key (ValueError for NULL pointers).
 * Callers add context such as the argument (counted from 1) with
 * irm_error_context.
 * - int: INT or BOOL.
 * - bool: BOOL, or INT 0/1 (any other int is a TypeError).
 * - float: FLOAT, or INT (widened).
 * - ptr: PTR, or NONE (gives NULL).
 * - str: a borrowed IRM_STR or a String object; *out borrowed from v, len
 *   (may be NULL) receives the byte length.
 * - object: an object of type_key or a subtype (any object when type_key is
 *   NULL); *out borrowed from v. */
IRM_API int irm_any_to_int(const irm_any *v, int64_t *out);
IRM_API int irm_any_to_bool(const irm_any *v, bool *out);
IRM_API int irm_any_to_float(const irm_any *v, double *out);
IRM_API int irm_any_to_ptr(const irm_any *v, void **out);
IRM_API int irm_any_to_str(const irm_any *v, const char **out, size_t *len);
IRM_API int irm_any_to_object(const irm_any *v, const char *type_key, irm_object **out);

/* Makes *dst an owned copy of *src: objects are retained, and a borrowed
 * IRM_STR becomes a new String object (so the copy can outlive the
 * argument). *dst is overwritten, not released. Errors: ValueError for an
 * invalid type code or NULL, MemoryError; *dst is NONE on failure. */
IRM_API int irm_any_copy(const irm_any *src, irm_any *dst);

#ifdef __cplusplus
}
#endif

#endif
