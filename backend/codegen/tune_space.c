/* FTuneSpace of the built-in blocked convs (docs/tuning.md, "Search
 * spaces"): the op kind attribute that says, for one typed call and a
 * target, which kernel family it runs, its workload and the knobs with
 * their legal values. A plugin's op family gives its own FTuneSpace the
 * same way, so `irm list tunables` and tuners see it too. */
#include "backend_internal.h"
#include "codegen_c_internal.h"
#include "irm/container.h"
#include "irm/dataflow/expr.h"
#include "irm/dataflow/op.h"
#include "irm/dataflow/type.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/kind.h"
#include "irm/tune_db.h"

/* A typed value's tensor as the generators see it; 0 when not a tensor. */
static int tensor_of(const irm_object *type, cg_tensor *t) {
  if (!type || irm_tensor_type_ndim(type) < 0) return 0;
  t->name = "";
  t->dt = irm_cg_dt_of_(irm_tensor_type_dtype(type));
  t->ndim = irm_tensor_type_ndim(type);
  t->shape = irm_tensor_type_shape(type);
  t->numel = irm_tensor_type_numel(type);
  return 1;
}

/* Knob k's values as an Array (ints, order names, bools). */
static int knob_values(const irm_sched_knob_ *k, irm_object **out) {
  irm_any v[IRM_SCHED_MAX_VALUES_];
  for (int i = 0; i < k->n; i++)
    v[i] = k->kind == IRM_KNOB_INT    ? irm_any_int(k->values[i])
           : k->kind == IRM_KNOB_BOOL ? irm_any_bool(k->values[i] != 0)
                                      : irm_any_str(irm_sched_order_name_((irm_sched_order_)k->values[i]));
  return irm_array_new(v, (size_t)k->n, out);
}

/* {"family", "workload" (JSON text), "knobs": {name: [values]}, "size"} of r. */
static int space_map(const irm_sched_record_ *r, irm_object **out) {
  irm_sched_knob_ k[IRM_SCHED_MAX_KNOBS_];
  int n = irm_sched_space_(&r->workload, &r->choice, k);
  irm_object *arrays[IRM_SCHED_MAX_KNOBS_] = {NULL}, *knobs = NULL;
  const char *names[IRM_SCHED_MAX_KNOBS_];
  irm_any vals[IRM_SCHED_MAX_KNOBS_];
  int rc = IRM_OK;
  for (int i = 0; i < n && !rc; i++) {
    names[i] = k[i].name;
    rc = knob_values(&k[i], &arrays[i]);
    vals[i] = irm_any_object(arrays[i]);
  }
  if (!rc) rc = irm_map_from_pairs(names, vals, (size_t)n, &knobs);
  for (int i = 0; i < n; i++) irm_object_release(arrays[i]);
  irm_text_buf w;
  irm_text_buf_init_(&w, NULL, 0);
  irm_sched_workload_json_(&r->workload, &w);
  if (!rc && w.failed) rc = irm_error(IRM_ENOMEM, "out of memory describing a workload");
  if (!rc) {
    const char *keys[] = {"family", "workload", "knobs", "size"};
    irm_any v[] = {irm_any_str(irm_sched_kind_name_(r->workload.kind)), irm_any_str(irm_text_buf_cstr_(&w)),
                   irm_any_object(knobs), irm_any_float(irm_sched_space_size_(k, n))};
    rc = irm_map_from_pairs(keys, v, 4, out);
  }
  irm_text_buf_free_(&w);
  irm_object_release(knobs);
  return rc;
}

/* FTuneSpace(call, target) -> Map (space_map) or NONE: the call runs no
 * blocked kernel for this target (another layout or block, plain loops). */
static int conv_tune_space(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "FTuneSpace";
  (void)resource;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (rc) return rc;
  irm_object *call = args[0].type_code == IRM_OBJECT ? args[0].v_obj : NULL;
  if (!call || irm_expr_kind_of(call) != IRM_EXPR_CALL || irm_call_arg_count(call) != 2)
    return irm_error(IRM_ETYPE, "%s: argument 1: expected a call of a blocked conv", fn);
  const irm_object *target = nargs > 1 && args[1].type_code == IRM_OBJECT ? args[1].v_obj : NULL;
  cg_tensor in[2];
  cg_call c;
  memset(&c, 0, sizeof c);
  irm_cc_isa_ isa;
  if (irm_cc_target_isa_(target, &isa)) { /* a CPU cc does not know: no kernels */
    irm_clear_error();
    return IRM_OK;
  }
  c.op = irm_op_name(irm_call_callee(call));
  c.symbol = "";
  c.attrs = irm_call_attrs(call);
  c.n_in = 2;
  c.in = in;
  c.kernel_block = isa.kernel_block;
  if (!c.op || !tensor_of(irm_expr_type(irm_call_arg(call, 0)), &in[0]) ||
      !tensor_of(irm_expr_type(irm_call_arg(call, 1)), &in[1]) || !tensor_of(irm_expr_type(call), &c.out))
    return IRM_OK;
  irm_sched_record_ r;
  int ok = strcmp(c.op, "nn.contrib_conv2d_NCHWc") == 0 ? irm_cg_conv_nchwc_record_(&c, &r)
                                                        : irm_cg_winograd_record_(&c, &r);
  if (!ok) return IRM_OK;
  irm_object *map = NULL;
  return irm_ret_object(fn, space_map(&r, &map), &map, ret);
}

int irm_register_tune_spaces_(void) {
  static const char *const ops[] = {"nn.contrib_conv2d_NCHWc", "nn.contrib_conv2d_winograd_without_weight_transform"};
  int rc = IRM_OK;
  for (size_t i = 0; i < 2 && !rc; i++) {
    irm_kind *kind = NULL;
    irm_object *f = NULL;
    irm_any cur = irm_any_none();
    if ((rc = irm_kind_find(IRM_OP_CATEGORY, ops[i], &kind))) return rc;
    if (irm_kind_get_attr(kind, IRM_OP_ATTR_TUNE_SPACE, &cur) == IRM_OK && cur.type_code != IRM_NONE) {
      irm_any_release(&cur); /* there already: ours from an earlier run, or someone's */
      continue;
    }
    irm_clear_error();
    if ((rc = irm_func_new_packed(conv_tune_space, NULL, NULL, &f))) return rc;
    irm_any v = irm_any_object(f);
    rc = irm_kind_set_attr(kind, IRM_OP_ATTR_TUNE_SPACE, &v, 10);
    irm_object_release(f);
  }
  return rc;
}
