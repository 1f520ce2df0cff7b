/* irm_library.h: the names of a generated library's symbols and how a
 * loader finds the modules a loaded library holds (docs/runtime.md).
 * Stands alone: C11, POSIX's dlfcn, nothing of libirm.
 *
 * Every symbol a generated library exports starts with tvmgen_<mod_name>_
 * (mod_name a C identifier), so libraries of different mod_names link
 * into one program. Each module defines one description:
 *
 *   const char *tvmgen_<mod_name>_metadata(void);
 *
 * returning JSON with at least "executor" (the kind that built it, whose
 * executor.load loads it) and "mod_name". A graph-executor module also
 * defines tvmgen_<mod_name>_graph_json and, with link-params,
 * tvmgen_<mod_name>_linked_params (docs/graph.md).
 *
 * Return codes: 0, or a negative IRM_LIBRARY_E* (the convention of every
 * runtime header: irm_crt.h, irm_params.h, irm_graph_runner.h).
 *
 * Thread safety: nothing here holds state. */
#ifndef IRM_LIBRARY_H
#define IRM_LIBRARY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IRM_LIBRARY_PREFIX "tvmgen_"
#define IRM_LIBRARY_METADATA "_metadata"
#define IRM_LIBRARY_GRAPH_JSON "_graph_json"
#define IRM_LIBRARY_LINKED_PARAMS "_linked_params"

enum {
  IRM_LIBRARY_OK = 0,
  IRM_LIBRARY_ENOSYMTAB = -1, /* the object has no dynamic symbol table the loader can read */
  IRM_LIBRARY_ENAME = -2      /* a name longer than the buffer */
};

/* The mod_names of the modules the dlopen()ed library `handle` holds:
 * every tvmgen_<mod_name>_metadata of its dynamic symbol table (read
 * through dlinfo's link map: DT_SYMTAB, DT_STRTAB and DT_GNU_HASH or
 * DT_HASH), in table order, as "a, b" in names (size bytes, truncated
 * with "..." when longer) and their number in *count. When *count is 1,
 * names is that mod_name. */
int irm_library_modules(void *handle, char *names, size_t size, size_t *count);

/* dlsym(handle, "tvmgen_<mod_name><suffix>"); NULL when the library has
 * none or the name is longer than 511 bytes. */
void *irm_library_symbol(void *handle, const char *mod_name, const char *suffix);

#ifdef __cplusplus
}
#endif

#endif
