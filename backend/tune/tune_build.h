/* Private to backend/: how a build reads the tuning database (docs/tuning.md,
 * tune_apply.c). Lowering opens it once per build when the module's
 * `tune.database` setting names one, and the conv generators ask it for
 * each workload's record (irm_sched_tune_, codegen/schedule.h). */
#ifndef IRM_BACKEND_TUNE_BUILD_H
#define IRM_BACKEND_TUNE_BUILD_H

#include "codegen/schedule.h"
#include "irm/module.h"

/* The setting's name: a module attribute (str) and the PassContext option
 * migrating onto it. */
#define IRM_TUNE_DATABASE_KEY "tune.database"

/* Opens the database mod's tune.database names, read-only, for a build
 * for target (its text; NULL: "c") on a CPU with features (the target's,
 * comma-separated; "" unknown). *out NEW (irm_tune_build_close_), NULL
 * when the setting is unset. Errors: TypeError for a setting that is no
 * str; the database's (a damaged or foreign file is a ValueError naming
 * it: the build stops, nothing applied); MemoryError. */
int irm_tune_build_open_(const irm_module *mod, const irm_object *target, const char *features,
                         irm_sched_tuning_ **out);
void irm_tune_build_close_(irm_sched_tuning_ *t);

/* Registers tune.database (backend/builtins.c). */
int irm_register_tune_settings_(void);

#endif
