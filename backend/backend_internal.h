/* Private to backend/: what the driver's files share. */
#ifndef IRM_BACKEND_BACKEND_INTERNAL_H
#define IRM_BACKEND_BACKEND_INTERNAL_H

#include <stdatomic.h>

#include "irm/build.h"
#include "irm_internal.h"

/* ---- the ir.CompilationConfig type (compilation_config_type.c) ---------- */

extern _Atomic int32_t irm_compilation_config_type_;

typedef struct compilation_config_payload {
  irm_object *host;       /* Target */
  irm_object *primitives; /* Array of Targets, each with host as its host */
  irm_object *fallback;   /* the default primitive target (one of primitives) */
  irm_object *executor;   /* ir.Executor */
  irm_object *runtime;    /* ir.Runtime */
} compilation_config_payload;

/* A config of the five parts (each taken: released on failure too). */
int irm_compilation_config_make_(irm_object *host, irm_object *primitives, irm_object *fallback, irm_object *executor,
                                 irm_object *runtime, irm_object **out);

int irm_register_compilation_config_type_(void);

/* ---- the driver's pieces ------------------------------------------------- */

/* A kind attribute, NONE when the kind has none (also when no kind of the
 * category ever set it). *out NEW. */
int irm_backend_kind_attr_(const irm_kind *kind, const char *attr, irm_any *out);

/* The default pipeline and aot's compatibility check as kind attributes
 * of graph and aot (build_kinds.c). */
int irm_register_build_kinds_(void);

/* Resolves driver.Build's target and target_host into one Target or an
 * Array of Targets (*targets NEW) and the Executor / Runtime the legacy
 * options give (NEW or NULL) (build_args.c). */
int irm_build_resolve_targets_(const irm_any *target, const irm_any *target_host, irm_object **targets,
                               irm_object **legacy_executor, irm_object **legacy_runtime);

/* The executor / runtime to build with: given, legacy, or the default
 * kind; ValueError naming both when given and legacy disagree. *out NEW. */
int irm_build_pick_config_(const char *category, const irm_object *given, const irm_object *legacy,
                           const char *default_kind, irm_object **out);
/* irm_build's steps short of the pipeline (build.c): the targets, executor
 * and runtime resolved and checked, the configured module (params checked,
 * the hosts set), MigratePassConfig run, and *frozen (NEW) that module
 * frozen: what the pipeline would run on. Errors: those of irm_build,
 * without its "in build of" context. */
int irm_build_prepare_(const irm_module *mod, const irm_any *target, const irm_any *target_host,
                       const irm_object *executor, const irm_object *runtime, const irm_object *params,
                       const char *mod_name, irm_module **frozen);

int irm_register_build_globals_(void);     /* build_globals.c */
int irm_register_tune_globals_(void);      /* tune/tune_globals.c: tune.Database* */
int irm_register_tune_list_globals_(void); /* tune/tune_list.c: tune.ListTunables */
/* tune/tune_task.c: tune.ExtractTasks and the tune.task attribute; tune/tune_measure.c: tune.Measure */
int irm_register_tune_task_globals_(void);
int irm_register_tune_measure_globals_(void);

/* ---- code generation, export, loading ------------------------------------ */

/* executor.codegen of aot (aot_codegen.c): (mod, config) -> Map. */
int irm_aot_codegen_packed_(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);
/* executor.codegen of graph (graph_codegen.c, docs/graph.md). */
int irm_graph_codegen_packed_(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);
int irm_register_export_globals_(void);      /* export.c: driver.ExportLibrary */
int irm_register_runtime_module_type_(void); /* loader.c: runtime.Module */
int irm_register_runtime_globals_(void);     /* loader.c: runtime.Load, ModuleRun, ModuleMetadata */
int irm_register_param_dict_globals_(void);  /* param_dict.c: runtime.SaveParams, LoadParams */
/* runtime/'s include folder: IRM_RUNTIME_INCLUDE, else the built-in one. */
const char *irm_runtime_include_dir_(void);
/* The cc flags (-march or -mcpu, -m<feature> or +feature) and libraries
 * (-lopenblas) a target asks for, for its own architecture (its -mtriple's;
 * -mcpu=native only for this host's). */
int irm_export_target_flags_(const irm_object *target, irm_text_buf *flags, irm_text_buf *libs);

/* ---- the C compiler's view of a target (export/cc_target.c) --------------- */

/* Runs cmd through sh, its output (stdout and what cmd sends there)
 * appended to out (NULL: dropped); RuntimeError with who, the command and
 * the output when it fails. */
int irm_cc_run_(const char *who, const char *cmd, irm_text_buf *out);
/* Nonzero when an -mtriple names this host's architecture. */
int irm_cc_host_arch_(const char *triple);
/* Nonzero when target (NULL: none) has an -mtriple of another
 * architecture than this host's; the triple then copied into triple. */
int irm_cc_foreign_triple_(const irm_object *target, char *triple, size_t size);
/* Nonzero when triple (NULL: this host) is an ARM one (aarch64*, arm*),
 * whose compilers take -mcpu and +feature suffixes, not -march / -m<f>. */
int irm_cc_arm_arch_(const char *triple);
/* The C compiler command for target into out: given when not NULL or
 * empty; for an -mtriple of another architecture <triple>-gcc, which must
 * be installed (ValueError naming it and its Debian package otherwise;
 * ValueError for a triple with characters no triple has); else the
 * environment's CC or cc (irm_cc_command_). */
int irm_cc_for_target_(const irm_object *target, const char *given, char *out, size_t size);

/* The CPU features a target's C code may use: those cc enables under the
 * target's flags (-march, -m<feature>), named as irm_library.h's
 * IRM_LIBRARY_*_FEATURES, and the widest float vector they give. */
typedef struct irm_cc_isa_ {
  char features[512];  /* comma-separated names; "" when unknown (another architecture) */
  int vector_bits;     /* 512, 256, 128, or 0 (scalar or unknown) */
  int kernel_block;    /* IRM_KERNEL_BLOCK of runtime/kernels under these flags: 16 (AVX-512), 8 (AVX2 and FMA), 4 */
  char kernel_isa[16]; /* IRM_KV_ISA runtime/kernels picks under these flags: avx512, avx2, sse2, neon, scalar;
                          "" when unknown (another architecture without its compiler) */
} irm_cc_isa_;
/* *out for target (NULL: plain c); cached per flags. Errors: cc fails
 * (the flags name a CPU it does not know: its message, which suggests the
 * closest), MemoryError. A target of another architecture gives "". */
int irm_cc_target_isa_(const irm_object *target, irm_cc_isa_ *out);
/* target with every c or llvm target of it (its host included) that says
 * -mcpu=native given the CPU cc resolves native to and, as -mattr, the
 * features native adds to or takes from that CPU, so the module records
 * what it was built for. *out NEW (target itself, retained, when nothing
 * says native). Errors: cc cannot be run or fails, MemoryError. */
int irm_cc_resolve_native_(irm_object *target, irm_object **out);

#endif
