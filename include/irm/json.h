/* JSON serialization of any irm value (ffi.ToJSON / ffi.FromJSON).
 *
 * Format (version 1): one JSON object
 *   {"irm_json": 1, "root": <value>, "nodes": [<node>, ...]}
 * where every object becomes one node in a table and is referred to by
 * index ({"ref": i}), so an object shared by several parents stays shared
 * after a round trip, and a deep chain of objects is a flat list (children
 * before parents). Values are JSON null, true/false, integers, reals,
 * {"float": "nan"|"inf"|"-inf"} for non-finite floats, or {"ref": i}.
 * Nodes: {"type": "ffi.String", "data": "..."}, {"type": "ffi.Array",
 * "items": [values]}, {"type": "ffi.Map", "keys": ["k", ...], "values":
 * [values]}, and {"type": "<key>", "fields": <ref to a Map>} for any other
 * type with to_fields/from_fields hooks (object.h).
 *
 * Thread safety: both functions may run concurrently on shared objects.
 */
#ifndef IRM_JSON_H
#define IRM_JSON_H

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Serializes *value. *out: a NEW String holding the JSON text.
 * Errors: ValueError for what JSON cannot hold (ptr values, a type without
 * a to_fields hook, naming the type), MemoryError. */
IRM_API int irm_to_json(const irm_any *value, irm_object **out);

/* Rebuilds a value from JSON text of len bytes. *out: a NEW value (NONE,
 * a scalar, or an object). Errors (ValueError unless said otherwise), each
 * naming what is wrong and where (node index, field): malformed JSON (with
 * jansson's line and column), nesting deeper than jansson allows, an
 * unsupported "irm_json" version, a missing or mistyped field, an unknown
 * type key (KeyError with the closest registered key), a reference to a node
 * that does not exist or does not come earlier in the table; MemoryError. */
IRM_API int irm_from_json(const char *text, size_t len, irm_any *out);

#ifdef __cplusplus
}
#endif

#endif
