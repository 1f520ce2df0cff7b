/* Containers: String, Array (of irm_any) and Map (string keys -> irm_any,
 * iterated in insertion order).
 *
 * Containers are immutable once shared. `*_with_*` functions return a NEW
 * container and leave their argument as it was. `*_move` functions take
 * `irm_object **` that the caller owns: when the caller holds the only
 * reference they change the container in place, otherwise they replace
 * *ref with a changed copy and release the caller's reference to the old
 * one. On failure a `*_move` leaves *ref untouched.
 *
 * Values stored in a container are owned by it: objects are retained and a
 * borrowed IRM_STR becomes a String object.
 *
 * Thread safety: reading a shared container from many threads is safe;
 * `*_move` is for containers no other thread can see.
 */
#ifndef IRM_CONTAINER_H
#define IRM_CONTAINER_H

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- String (irm_string_new/data/size are in c_api.h) ------------------ */

/* A String from a NUL-terminated C string. *out new. Errors: ValueError
 * (NULL), MemoryError. */
IRM_API int irm_string_from_cstr(const char *s, irm_object **out);

/* A String from printf-style formatting. *out new. Errors: ValueError
 * (NULL out or fmt, a format vsnprintf rejects), MemoryError. */
IRM_API int irm_string_format(irm_object **out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Nonzero when s is a String whose bytes equal the len bytes at data. */
IRM_API int irm_string_equals(const irm_object *s, const char *data, size_t len);

/* ---- Array ------------------------------------------------------------- */

/* A new Array of n owned copies of items (items may be NULL when n is 0).
 * *out new. Errors: ValueError, MemoryError. */
IRM_API int irm_array_new(const irm_any *items, size_t n, irm_object **out);

/* The number of items; 0 if arr is not an Array. */
IRM_API size_t irm_array_size(const irm_object *arr);

/* The item at index, borrowed from arr; NULL when out of range or arr is
 * not an Array. */
IRM_API const irm_any *irm_array_at(const irm_object *arr, size_t index);

/* The item at index as a NEW value. Errors: TypeError (not an Array),
 * IndexError naming the index and the size. */
IRM_API int irm_array_get(const irm_object *arr, int64_t index, irm_any *out);

/* A new Array with item (borrowed, copied) appended / with the item at
 * index replaced; arr is unchanged. *out new. Errors: ValueError (NULL item
 * or out, an invalid type code in item), TypeError (arr is not an Array),
 * IndexError (index out of range, naming it and the size), MemoryError. */
IRM_API int irm_array_with_append(const irm_object *arr, const irm_any *item, irm_object **out);
IRM_API int irm_array_with_set(const irm_object *arr, int64_t index, const irm_any *item, irm_object **out);

/* In place when *ref is the only reference (see top of file). Errors as
 * the with_ functions (ValueError for a NULL ref); *ref is untouched on
 * failure. */
IRM_API int irm_array_append_move(irm_object **ref, const irm_any *item);
IRM_API int irm_array_set_move(irm_object **ref, int64_t index, const irm_any *item);

/* ---- Map --------------------------------------------------------------- */

/* A new empty Map. *out new. Errors: ValueError (NULL out), MemoryError. */
IRM_API int irm_map_new(irm_object **out);

/* A new Map from n key/value pairs; a later pair replaces an earlier one
 * with the same key. Errors: ValueError, MemoryError. */
IRM_API int irm_map_from_pairs(const char *const *keys, const irm_any *values, size_t n, irm_object **out);

/* The number of entries; 0 if map is not a Map. */
IRM_API size_t irm_map_size(const irm_object *map);

/* The value for key (key_len bytes), borrowed from map; NULL if absent or
 * map is not a Map. irm_map_find_cstr takes a NUL-terminated key. */
IRM_API const irm_any *irm_map_find(const irm_object *map, const char *key, size_t key_len);
IRM_API const irm_any *irm_map_find_cstr(const irm_object *map, const char *key);

/* The value for key as a NEW value. Errors: TypeError (not a Map),
 * KeyError naming the key and the closest existing key. */
IRM_API int irm_map_get(const irm_object *map, const char *key, irm_any *out);
/* The same with a key of key_len bytes (may hold NUL bytes). Errors as
 * irm_map_get (ValueError for a NULL key or out). */
IRM_API int irm_map_get_n(const irm_object *map, const char *key, size_t key_len, irm_any *out);

/* A new Map with key set to value (borrowed, copied; replacing, keeping
 * its position) / with key removed; map is unchanged. *out new. Errors:
 * ValueError (NULL key, value or out, an invalid type code in value),
 * TypeError (map is not a Map), KeyError (erasing an absent key, with the
 * closest one), MemoryError. */
IRM_API int irm_map_with_set(const irm_object *map, const char *key, const irm_any *value, irm_object **out);
IRM_API int irm_map_with_erase(const irm_object *map, const char *key, irm_object **out);

/* In place when *ref is the only reference (see top of file). Errors as
 * the with_ functions (ValueError for a NULL ref); *ref is untouched on
 * failure. */
IRM_API int irm_map_set_move(irm_object **ref, const char *key, const irm_any *value);
IRM_API int irm_map_erase_move(irm_object **ref, const char *key);

/* irm_map_set_move with a key of key_len bytes, which may hold NUL bytes
 * (key may be NULL when key_len is 0). Errors as irm_map_set_move. */
IRM_API int irm_map_set_move_n(irm_object **ref, const char *key, size_t key_len, const irm_any *value);

/* Insertion-order iteration without allocation:
 *   irm_map_iter it = irm_map_iter_begin(map);
 *   const irm_object *k; const irm_any *v;
 *   while (irm_map_iter_next(&it, &k, &v)) { ... }
 * Keys are String objects and values are borrowed from the map; the map
 * must not change during the loop. */
typedef struct irm_map_iter {
  const void *map_;
  size_t next_;
} irm_map_iter;
IRM_API irm_map_iter irm_map_iter_begin(const irm_object *map);
IRM_API int irm_map_iter_next(irm_map_iter *it, const irm_object **key, const irm_any **value);

#ifdef __cplusplus
}
#endif

#endif
