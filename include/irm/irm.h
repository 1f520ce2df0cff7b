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
#include "irm/dataflow/type.h"
#include "irm/dataflow/expr.h"
#include "irm/dataflow/op.h"
#include "irm/dataflow/text.h"
#include "irm/dataflow/evaluate.h"
#include "irm/dataflow/analysis.h"
#include "irm/pass.h"
#include "irm/dataflow/passes.h"
#include "irm/build.h"
#include "irm/json.h"
#include "irm/structural.h"

#endif
