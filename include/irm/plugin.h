/* Plugins: shared objects that add globals, kinds, passes, config options,
 * attribute keys and tags to a running irm (docs/plugins.md).
 *
 * A plugin exports one function, irm_plugin_info_get, best written with
 * IRM_PLUGIN_EXPORT:
 *
 *   static int init(void) { return irm_func_register_global("my.F", f, 0); }
 *   static const irm_plugin_info info = IRM_PLUGIN_INFO("my-plugin", "1.0", init);
 *   IRM_PLUGIN_EXPORT(info);
 *
 * Loading checks the info's abi_version and struct_size (as SQLite checks
 * its extensions' API version), then runs init inside a registration
 * journal (journal.h). If init fails, the journal is rolled back: every
 * registry is exactly as it was before the load. The IRM_REGISTER_*
 * macros work in a plugin too: their registrations are queued while the
 * library is opened and run inside the same journal right before init.
 * A library whose init ran is never unloaded. Plugins link against the
 * shared libirm (pkg-config irm).
 *
 * Thread safety: every function here may be called from any thread; two
 * threads may load different plugins at once, and a thread loading a
 * plugin another thread is loading waits for it. No irm lock is held
 * while a plugin's constructors or init run.
 */
#ifndef IRM_PLUGIN_H
#define IRM_PLUGIN_H

#include "irm/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin ABI these headers describe. Bumped when irm_plugin_info
 * changes; fields are only ever appended. */
#define IRM_PLUGIN_ABI_VERSION 1u

typedef struct irm_plugin_info {
  uint32_t abi_version; /* IRM_PLUGIN_ABI_VERSION of the headers it was built with */
  uint32_t struct_size; /* sizeof(irm_plugin_info) it was built with */
  const char *name;
  const char *version;
  int (*init)(void); /* registers everything; 0 or an irm status */
} irm_plugin_info;

/* An initializer for a static irm_plugin_info of these headers. */
#define IRM_PLUGIN_INFO(name, version, init) \
  { IRM_PLUGIN_ABI_VERSION, (uint32_t)sizeof(irm_plugin_info), (name), (version), (init) }

/* Defines the exported entry point returning &info (a static
 * irm_plugin_info that lives as long as the library). Use at file scope. */
#ifdef __cplusplus
#define IRM_PLUGIN_EXTERN_C_ extern "C" /* the loader looks the name up unmangled */
#else
#define IRM_PLUGIN_EXTERN_C_
#endif
#define IRM_PLUGIN_EXPORT(info)                                                                             \
  IRM_PLUGIN_EXTERN_C_ IRM_API_EXPORT_ const irm_plugin_info *irm_plugin_info_get(void);                    \
  IRM_PLUGIN_EXTERN_C_ IRM_API_EXPORT_ const irm_plugin_info *irm_plugin_info_get(void) { return &(info); } \
  typedef int irm_plugin_export_semicolon_

/* The entry point's name and type, for loaders of their own. */
#define IRM_PLUGIN_ENTRY_POINT "irm_plugin_info_get"
typedef const irm_plugin_info *(*irm_plugin_info_get_fn)(void);

/* irm_plugin_load (c_api.h): loads the plugin at path (see above). Loading
 * a file that is loaded already (same realpath) does nothing and succeeds.
 * Every failure is a PluginError "cannot load plugin '<path>': <cause>":
 * the file does not exist; dlopen failed (dlerror's text); the library
 * does not export irm_plugin_info_get; its ABI version or struct size is
 * unsupported (both values given); a registration queued by its
 * IRM_REGISTER_* macros failed, or init failed (the registration's or
 * init's own message appended). After a failure the registries are as they
 * were. */

/* irm_plugin_load that also gives the plugin's info: *info (may be NULL) a
 * NEW reference to a Map {"name", "version", "path" (the realpath)}; the
 * same Map for every load of the same file. Errors as irm_plugin_load,
 * ValueError for a NULL path. */
IRM_API int irm_plugin_load_info(const char *path, irm_object **info);

/* Loads every plugin named by the environment variable IRM_PLUGIN_PATH: a
 * colon-separated list of files and folders (a folder: its *.so files in
 * sorted order; empty entries are skipped). Unset or empty: nothing to do.
 * Stops at the first failure (with the PluginError of that plugin);
 * plugins loaded before it stay loaded. Loading a plugin loaded already
 * is a no-op, so calling this twice is harmless. Errors: PluginError (with
 * "IRM_PLUGIN_PATH" as context), MemoryError. */
IRM_API int irm_plugin_load_from_env(void);

/* The loaded plugins, shared objects and plugin files (*.rules) alike, in
 * load order, as a NEW Array of info Maps (as irm_plugin_load_info gives
 * them). Failed loads, and loads an enclosing journal rolled back, are not
 * listed. Errors: ValueError (NULL out), MemoryError. Thread safe. */
IRM_API int irm_plugin_list(irm_object **out);

/* The globals plugin.Load(path) -> Map info and plugin.List() -> Array of
 * Map info call irm_plugin_load_info and irm_plugin_list. */

#ifdef __cplusplus
}
#endif

#endif
