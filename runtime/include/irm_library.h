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

/* The metadata's key listing the CPU features the library's code uses
 * (a string: names from IRM_LIBRARY_CPU_FEATURES joined by ','). */
#define IRM_LIBRARY_FEATURES_KEY "target_features"

/* The CPU features a generated library can require, X(name, macro): the
 * name the metadata uses (and GCC's __builtin_cpu_supports), and the macro a C
 * compiler defines when it may emit them. The build reads the compiler's
 * macros for the target's flags; the loader checks the names. */
/* clang-format off: one feature a line */
#define IRM_LIBRARY_X86_FEATURES(X) \
  X("sse2", "__SSE2__")             \
  X("sse3", "__SSE3__")             \
  X("ssse3", "__SSSE3__")           \
  X("sse4.1", "__SSE4_1__")         \
  X("sse4.2", "__SSE4_2__")         \
  X("avx", "__AVX__")               \
  X("avx2", "__AVX2__")             \
  X("fma", "__FMA__")               \
  X("f16c", "__F16C__")             \
  X("avx512f", "__AVX512F__")       \
  X("avx512cd", "__AVX512CD__")     \
  X("avx512bw", "__AVX512BW__")     \
  X("avx512dq", "__AVX512DQ__")     \
  X("avx512vl", "__AVX512VL__")     \
  X("avx512vnni", "__AVX512VNNI__") \
  X("avx512bf16", "__AVX512BF16__") \
  X("avx512fp16", "__AVX512FP16__") \
  X("avxvnni", "__AVXVNNI__")
#define IRM_LIBRARY_ARM_FEATURES(X)                 \
  X("neon", "__ARM_NEON")                           \
  X("fp16", "__ARM_FEATURE_FP16_VECTOR_ARITHMETIC") \
  X("dotprod", "__ARM_FEATURE_DOTPROD")             \
  X("sve", "__ARM_FEATURE_SVE")
/* clang-format on */

enum {
  IRM_LIBRARY_OK = 0,
  IRM_LIBRARY_ENOSYMTAB = -1, /* the object has no dynamic symbol table the loader can read */
  IRM_LIBRARY_ENAME = -2,     /* a name longer than the buffer */
  IRM_LIBRARY_ECPU = -3       /* the code uses CPU features this machine lacks */
};

/* The mod_names of the modules the dlopen()ed library `handle` holds:
 * every tvmgen_<mod_name>_metadata of its dynamic symbol table (read
 * through dlinfo's link map: DT_SYMTAB, DT_STRTAB and DT_GNU_HASH or
 * DT_HASH), in table order, as "a, b" in names (size bytes, truncated
 * with "..." when longer) and their number in *count. When *count is 1,
 * names is that mod_name. */
int irm_library_modules(void *handle, char *names, size_t size, size_t *count);

/* The CPU features of `required` (comma-separated names, as the
 * metadata's "target_features" lists them) this machine lacks, as "a, b"
 * in missing (size bytes, truncated with "..."); returns their number,
 * 0 when the code can run here. A name this runtime cannot check (another
 * architecture's, or unknown) counts as missing: running code built for
 * features the CPU lacks dies of an illegal instruction, so a loader must
 * refuse it before calling anything. NULL or "" requires nothing. */
size_t irm_library_missing_features(const char *required, char *missing, size_t size);

/* The "target_features" string of a module's metadata JSON (as the
 * generated libraries write it: a plain string, no escapes), copied to
 * out (size bytes); "" when the metadata has none. IRM_LIBRARY_ENAME when
 * it does not fit (out is then "", and the caller must not run the code:
 * a cut list would check fewer features than the code uses). */
int irm_library_metadata_features(const char *metadata, char *out, size_t size);

/* Whether this CPU runs the code of module mod_name, whose metadata JSON
 * is given: IRM_LIBRARY_OK, or IRM_LIBRARY_ECPU with the message in msg
 * (size bytes) naming the missing features and what to build instead.
 * What both loaders call before running anything of a module. */
int irm_library_check_cpu(const char *metadata, const char *mod_name, char *msg, size_t size);

/* dlsym(handle, "tvmgen_<mod_name><suffix>"); NULL when the library has
 * none or the name is longer than 511 bytes. */
void *irm_library_symbol(void *handle, const char *mod_name, const char *suffix);

#ifdef __cplusplus
}
#endif

#endif
