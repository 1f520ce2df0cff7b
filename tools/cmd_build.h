/* What irm build and irm run share: the record irm build writes beside
 * the artifacts and irm run reads (docs/cli.md). */
#ifndef IRM_TOOLS_CMD_BUILD_H
#define IRM_TOOLS_CMD_BUILD_H

/* ffi.ToJSON of a Map {"module": the model given to the driver (after
 * --passes) without its params, "built": a module with the attributes of
 * the driver's final module (its configuration) and no functions,
 * "params": the name of the file holding the model's weights (TVM's
 * param dict, <mod_name> BUILD_WEIGHTS_SUFFIX, or the params artifact
 * when it holds the same bytes), "mod_name": String,
 * "artifacts": Array of the artifact file names}. */
#define BUILD_RECORD "irm-build.json"
#define BUILD_WEIGHTS_SUFFIX ".model.params"
#define BUILD_DEFAULT_TARGET "c -mcpu=native"

#endif
