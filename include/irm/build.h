/* The compilation driver and the typed CompilationConfig (docs/build.md).
 *
 * backend/ is layer 3: it sees every library below it and nothing below
 * sees it. This header has two parts.
 *
 * ---- CompilationConfig ("ir.CompilationConfig") --------------------------
 * One immutable, typed view of a module's separate configuration
 * attributes, as TVM's CompilationConfig (src/target/compilation_config.cc):
 *   - the module attribute `target` is one Target or an Array of Targets
 *     (of different device kinds, sharing one host); the attribute key is
 *     typed "target|array<target>";
 *   - host target: the host every target names (they must agree: two
 *     different hosts are a ValueError naming both); when none names one,
 *     the first primitive target of device type 1 (CPU) without its host,
 *     else `llvm`;
 *   - primitive targets: the targets in the order given, each with its
 *     host set to the host target; their device types (the target kind's
 *     "device_type" kind attribute, a DLPack device type) must differ: two
 *     targets of one device type are a ValueError naming both;
 *   - default primitive target: the one target, or among several the CPU
 *     one, else the first;
 *   - executor and runtime: the module's attributes, `graph` and `cpp`
 *     (with default options) when unset.
 * The view is computed once per module and cached in the module itself
 * (a slot of its payload, owned and released by the module; modules are
 * immutable once shared, a changed copy starts without a cache, and an
 * in-place *_move change, possible only for the sole owner, empties it),
 * so asking twice gives the same object and nothing outlives the module.
 * Its fields (JSON, equality, repr): {host_target, primitive_targets,
 * default_primitive_target, executor, runtime}.
 *
 * ---- build() -----------------------------------------------------------
 * irm_build sets target (with its host), executor, runtime, mod_name and
 * params on a copy of the module, checks the configuration (the view
 * above; functions pinned by their `target` attribute must name one of
 * the module's targets), runs MigratePassConfig, freezes the module and
 * runs the executor kind's pipeline (its "executor.pipeline" kind
 * attribute) under the calling thread's current PassContext, where the
 * pass manager checks invariants and calls ir.Verify after each pass.
 * Functions with a `Compiler` attribute then go to the global
 * `codegen.ext.<Compiler>` (TVM's BYOC hook), and the executor kind's
 * "executor.codegen" attribute, when set, makes the rest of the
 * artifacts: `aot` has one (C source, a header with interface-api "c", a
 * params file with link-params false; docs/runtime.md), and so has `graph`
 * (the graph JSON, the kernels, a params file with link-params false;
 * docs/graph.md).
 * irm_build_export_library compiles a build into a shared library that
 * include/irm/runtime.h loads and runs.
 *
 * Kind attributes the driver reads (set with executor.SetKindAttr,
 * runtime.SetKindAttr, target.SetKindAttr):
 *   executor "executor.pipeline": Function(config: ir.CompilationConfig)
 *       -> transform.Pass. graph and aot have the default pipeline:
 *       InferType, BindParams, ConvertLayout, SimplifyExpr, FoldConstant,
 *       DeadCodeElimination, FuseOps (a Sequential named "driver.default").
 *   executor "executor.codegen": Function(mod, config) -> Map file name ->
 *       String (text or bytes). aot's is the AOT code generator, graph's the
 *       graph executor's.
 *   executor "executor.validate", runtime "runtime.validate":
 *       Function(executor, runtime) -> NONE that fails to reject the pair,
 *       run before the pipeline. aot's: with runtime crt it needs
 *       unpacked-api = true or interface-api = "packed"; with cpp it needs
 *       unpacked-api = false and interface-api = "packed".
 *   target "codegen": any value but NONE makes a target kind buildable;
 *       `c` and `llvm` are buildable without it.
 *
 * Ownership follows c_api.h: out-parameters are NEW references, arguments
 * are borrowed; the accessors below return pointers borrowed from the
 * config. A failing call changes nothing: the input module is immutable,
 * and the driver registers nothing.
 *
 * Thread safety: every function may be called from any thread; configs
 * are immutable; two threads asking for one module's config may both
 * compute it, and one result stays in the cache.
 */
#ifndef IRM_BUILD_H
#define IRM_BUILD_H

#include "irm/module.h"
#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef irm_object irm_compilation_config;

#define IRM_COMPILATION_CONFIG_TYPE_KEY "ir.CompilationConfig"

/* Kind attribute names (see the top of this file). */
#define IRM_EXECUTOR_PIPELINE_ATTR "executor.pipeline"
#define IRM_EXECUTOR_CODEGEN_ATTR "executor.codegen"
#define IRM_EXECUTOR_VALIDATE_ATTR "executor.validate"
#define IRM_RUNTIME_VALIDATE_ATTR "runtime.validate"
#define IRM_TARGET_CODEGEN_ATTR "codegen"

/* ---- CompilationConfig ------------------------------------------------- */

/* The module's CompilationConfig (cached in the module; see the top).
 * *out NEW. Errors: TypeError (mod is not an ir.IRModule; the `target`
 * attribute holds something else than Targets), ValueError (no `target`
 * attribute; an empty Array; two different hosts, naming both; two
 * targets of one device type, naming both; a target kind without a
 * "device_type" kind attribute, naming the kind), MemoryError. */
IRM_API int irm_module_compilation_config(const irm_module *mod, irm_compilation_config **out);

/* Accessors, borrowed from cfg; NULL (or 0) when cfg is not an
 * ir.CompilationConfig. */
IRM_API irm_object *irm_compilation_config_host_target(const irm_compilation_config *cfg);
/* An Array of Targets, each with the host target as its host. */
IRM_API const irm_object *irm_compilation_config_primitive_targets(const irm_compilation_config *cfg);
IRM_API irm_object *irm_compilation_config_default_primitive_target(const irm_compilation_config *cfg);
IRM_API irm_object *irm_compilation_config_executor(const irm_compilation_config *cfg);
IRM_API irm_object *irm_compilation_config_runtime(const irm_compilation_config *cfg);
/* The primitive target of a device type (DLPack's code: 1 CPU, 2 CUDA,
 * ...), borrowed; NULL when the config has none. */
IRM_API irm_object *irm_compilation_config_find_primitive_target(const irm_compilation_config *cfg,
                                                                 int64_t device_type);

/* The device type of a target: its kind's "device_type" kind attribute.
 * Errors: TypeError (t is not a Target), ValueError (the kind has no
 * device_type; set one with target.SetKindAttr), ValueError (NULL out). */
IRM_API int irm_target_device_type(const irm_object *t, int64_t *out);

/* ---- build ----------------------------------------------------------------- */

/* Builds mod (borrowed; never changed).
 * target: a Target, target text (legacy executor and runtime options are
 *   converted as target.ConvertLegacy does, with its warnings), a Map
 *   config, or an Array of these (a heterogeneous build). Required.
 * target_host: NULL or NONE, or a Target, text or Map that replaces every
 *   target's own host (its legacy options are read when it is text).
 * executor, runtime: NULL (the legacy options', else graph / cpp) or an
 *   ir.Executor / ir.Runtime; one that disagrees with the legacy options
 *   is a ValueError naming both.
 * params: NULL or a Map name -> Tensor, set as the module's `params`
 *   (replacing those the module has).
 * mod_name: NULL ("default") or the name.
 * *result: a NEW Map {"module": the final frozen IRModule, "artifacts":
 *   Map file name -> String, "params": Map}.
 * Errors, each with "in build of '<mod_name>': " as context: TypeError
 * (arguments of the wrong type), ValueError (a target kind that cannot be
 * built, naming it and the kind attribute that would make it buildable;
 * legacy options that disagree; an executor/runtime pair the kinds'
 * validate attributes reject; the configuration's errors, as
 * irm_module_compilation_config; a function pinned to a target the module
 * does not have; an executor kind without "executor.pipeline"; a function
 * whose `Compiler` has no `codegen.ext.<Compiler>` global, naming it),
 * the errors of the pipeline's passes ("in pass '<name>': ..."), of
 * external codegens and of "executor.codegen", MemoryError. */
IRM_API int irm_build(const irm_module *mod, const irm_any *target, const irm_any *target_host,
                      const irm_object *executor, const irm_object *runtime, const irm_object *params,
                      const char *mod_name, irm_object **result);

/* Writes every artifact of a build result (the Map irm_build gives) into
 * the folder dir (made when missing; its parent must exist), one file per
 * entry, named by the entry's key. Errors: TypeError (result is not such a
 * Map, an artifact that is not a String), ValueError (NULL dir; a file
 * name that is empty, absolute or holds "/" or ".."), RuntimeError (a
 * folder or file that cannot be made or written, naming the path and the
 * system's reason). Files written before a failure stay. */
IRM_API int irm_build_write(const irm_object *result, const char *dir);

/* Compiles a build result's C artifacts into the shared library path with
 * the system's C compiler (the environment's CC, else `cc`; TVM's
 * export_library), against runtime/'s headers: the folder named by the
 * environment variable IRM_RUNTIME_INCLUDE, else the one this libirm was
 * built with. Each C artifact is cut into translation units at the
 * markers its executor's emitter wrote (kernels grouped by family at -O2,
 * the glue at -O1; a file without markers is one unit at -O2), assembler
 * artifacts (.S: link-params' weights, an .incbin of the params file) are
 * units too; the units compile at once (irm_export_options.jobs) with
 * `-std=c11 -fPIC -c`, each object taken from or stored in the build cache
 * (irm/build_cache.h), and are linked with `-shared` into a temporary file
 * renamed onto path, so a failure leaves no partial library. The build
 * target's options add flags: -libs=cblas links -lopenblas; -mcpu becomes
 * -march (x86) or -mcpu, each -mattr feature -m<feature> (+f) or
 * -mno-<feature> (-f) on x86, a +f / +nof suffix on ARM. A target whose
 * -mtriple names another architecture (aarch64-linux-gnu on x86-64) is
 * cross-compiled with irm_export_options.cc, else <triple>-gcc (its
 * -mcpu=native dropped). A params file artifact (<mod_name>.params) is
 * written beside path, where the loader (runtime.h) looks for it. The
 * global driver.ExportLibrary(result, path[, jobs[, cache[, cc]]]). Errors:
 * TypeError (result is no build result), ValueError (empty path; no C
 * source among the artifacts; a cross target whose <triple>-gcc is not
 * installed, naming it and its Debian package), RuntimeError (a temporary folder or file that cannot be
 * made; the compiler failing: the unit's file name, the compiler's first
 * error line, its command line and output). Thread safety: any thread;
 * each call uses its own temporary folder. */
IRM_API int irm_build_export_library(const irm_object *result, const char *path);

/* How irm_build_export_library_with compiles, and what it did. */
typedef struct irm_export_options {
  int jobs;              /* compilers run at once; 0: IRM_BUILD_JOBS, else the processors available */
  int cache;             /* 1 use the build cache, 0 not, -1 unless IRM_CACHE=0 */
  const char *cache_dir; /* NULL: irm_build_cache_default_dir (build_cache.h) */
  int progress;          /* 1 draw progress on stderr, 0 not, -1 when stderr is a terminal */
  const char *cc;        /* the C compiler command; NULL: <triple>-gcc for a target of another architecture, else
                            the environment's CC, else cc */
  size_t units;          /* out: the translation units */
  size_t compiled;       /* out: those the compiler ran on */
  size_t cache_hits;     /* out: those taken from the cache */
} irm_export_options;
#define IRM_EXPORT_OPTIONS_DEFAULT \
  { 0, -1, NULL, -1, NULL, 0, 0, 0 }

/* irm_build_export_library with options (NULL: the defaults, as
 * irm_build_export_library uses); the out fields are filled. A cache
 * folder that cannot be written is a warning, and the build goes on
 * without storing. Errors and thread safety: irm_build_export_library's. */
IRM_API int irm_build_export_library_with(const irm_object *result, const char *path, irm_export_options *opts);

/* ---- model-level reuse (docs/build.md#model-level-reuse) ---------------- */

/* The model key of irm_build's arguments: a SHA-256 (64 hex digits and a
 * NUL into key) of irm's version and this libirm's identity (irm_version,
 * when not NULL, replaces both), the thread's current PassContext and the
 * text of the module the pipeline would run on (*prepared, NEW: the targets
 * resolved, the configuration set, frozen), each tensor of more than 16
 * elements by a 128-bit hash of its bytes, and the loaded plugins (info,
 * file size and time). It runs no pass but MigratePassConfig. When the
 * key cannot vouch for the build (instruments in the PassContext, a
 * tune.database setting, an executor other than aot and graph, a module
 * without a text form) key is "" and
 * *prepared NULL, and IRM_OK is returned. Errors: those irm_build gives
 * for bad arguments, before its pipeline ("in build of '<mod_name>'"),
 * ValueError (NULL key or prepared), MemoryError. Thread safety: any
 * thread; the key reads that thread's PassContext. */
IRM_API int irm_build_model_key(const irm_module *mod, const irm_any *target, const irm_any *target_host,
                                const irm_object *executor, const irm_object *runtime, const irm_object *params,
                                const char *mod_name, const char *irm_version, char key[65], irm_module **prepared);

/* The library the build cache (cache_dir; NULL: the default) holds for
 * model_key and prepared (irm_build_model_key) built with the compiler cc
 * (NULL: as export_library picks it), its identity, flags and the runtime
 * headers, written to path (atomically) with *hit 1; else *hit 0 and path
 * untouched. path NULL: *hit says whether the cache holds such an entry
 * (its integrity is checked only when it is fetched). Errors: ValueError (a key that is not 64 hex digits, NULL
 * arguments), RuntimeError (path cannot be written), the compiler choice's
 * errors, MemoryError. Thread safety: any thread. */
IRM_API int irm_build_model_library_fetch(const char *model_key, const irm_module *prepared, const char *path,
                                          const char *cc, const char *cache_dir, int *hit);

/* Stores the library at path, exported from result (irm_build of the same
 * arguments), under the key irm_build_model_library_fetch looks up;
 * *stored 1 when it went in. A result with a params file beside its
 * library is not stored (*stored 0); nor is anything on a cache that
 * cannot be written. result NULL: the caller knows the library stands
 * alone (it was fetched from such an entry). Errors: as irm_build_model_library_fetch. */
IRM_API int irm_build_model_library_store(const char *model_key, const irm_module *prepared, const irm_object *result,
                                          const char *path, const char *cc, const char *cache_dir, int *stored);

/* ---- reuse from the source file (docs/build.md#reuse-from-the-onnx-file) -- */

/* The content digest of the regular file path (hash128 of its bytes: 32
 * hex digits and a NUL into digest), taken from the build cache's stat
 * memo (cache_dir; NULL: the default) when it holds one for the file's
 * real path, device, inode, size, mtime and ctime, so that an unchanged
 * file is not read (*memo_hit 1; memo_hit may be NULL). Else the file is
 * hashed and the memo stored, unless the file changed within the last 2 s
 * or the cache is off (IRM_CACHE=0). A memo that cannot be read or fails
 * its check is ignored. Errors: RuntimeError (the file cannot be read),
 * ValueError (not a regular file, NULL arguments). Thread safety: any
 * thread. */
IRM_API int irm_build_file_digest(const char *path, const char *cache_dir, char digest[33], int *memo_hit);

/* The source key of a build from the model file path read by frontend (a
 * text naming the frontend, its identity and its options: any change to
 * what it makes of the file must change it): irm_build_model_key's key,
 * with the module built from nothing (*prepared, NEW: an empty module with
 * the build's configuration resolved) and, in place of the module's text,
 * path's content digest (irm_build_file_digest with cache_dir) and
 * frontend. Its library goes through irm_build_model_library_fetch and
 * _store with *prepared. Not reusable cases, errors and thread safety as
 * irm_build_model_key, and irm_build_file_digest's errors. */
IRM_API int irm_build_source_key(const char *path, const char *frontend, const irm_any *target,
                                 const irm_any *target_host, const irm_object *executor, const irm_object *runtime,
                                 const char *mod_name, const char *irm_version, const char *cache_dir, char key[65],
                                 irm_module **prepared);

#ifdef __cplusplus
}
#endif

#endif
