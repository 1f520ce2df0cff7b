/* irm: everything. Include this, or the one header you need. */
#ifndef IRM_IRM_H
#define IRM_IRM_H

#include "irm/version.h"
#include "irm/c_api.h"
#include "irm/alloc.h"
#include "irm/error.h"
#include "irm/object.h"
#include "irm/container.h"
#include "irm/function.h"
#include "irm/journal.h"
#include "irm/plugin.h"
#include "irm/kind.h"
#include "irm/target.h"
#include "irm/config.h"
#include "irm/module.h"
#include "irm/tensor.h"
#include "irm/ir_type.h"
#include "irm/expr.h"
#include "irm/op.h"
#include "irm/ir_text.h"
#include "irm/evaluate.h"
#include "irm/pass.h"
#include "irm/ir_passes.h"
#include "irm/json.h"
#include "irm/structural.h"

#endif
