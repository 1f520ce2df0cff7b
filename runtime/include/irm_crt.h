/* irm_crt.h: the small C runtime support that AOT-generated code includes
 * (docs/runtime.md). Stands alone: C11, the C library and DLPack's header,
 * nothing of libirm.
 *
 * The packed calling convention (the shape TVM's C runtime uses):
 *
 *   int32_t fn(void *args, int32_t *type_codes, int32_t num_args,
 *              void *ret, int32_t *ret_code, void *resource);
 *
 * args points at num_args irm_crt_value slots, type_codes at their codes
 * (IRM_CRT_DLTENSOR for a DLTensor pointer in v_handle); ret / ret_code
 * receive a result (the generated functions return none); resource is the
 * caller's context (unused by generated code). A function returns 0, or
 * one of the negative IRM_CRT_E* codes below.
 *
 * Return codes, everywhere in runtime/ (this header, irm_params.h,
 * irm_graph_runner.h, irm_library.h) and in generated code's exported
 * functions (entry points, packed wrappers, set_params): 0 is success, an
 * error is negative. (A generated kernel, static or called only by its
 * wrapper, returns nonzero on failure; the wrapper and the entry point
 * turn that into IRM_CRT_EKERNEL.)
 *
 * Thread safety: nothing here holds state. */
#ifndef IRM_CRT_H
#define IRM_CRT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One argument slot of a packed call. */
typedef union irm_crt_value {
  int64_t v_int64;
  double v_float64;
  void *v_handle;
  const char *v_str;
} irm_crt_value;

/* Type codes of a slot (DLPack's and TVM's numbering for the first ones). */
enum {
  IRM_CRT_INT = 0,
  IRM_CRT_UINT = 1,
  IRM_CRT_FLOAT = 2,
  IRM_CRT_HANDLE = 3,
  IRM_CRT_NULL = 4,
  IRM_CRT_DLTENSOR = 7, /* v_handle is a DLTensor * */
  IRM_CRT_STR = 11      /* v_str is a NUL-terminated string */
};

/* Return codes of generated functions (0 or negative, above). */
enum {
  IRM_CRT_OK = 0,
  IRM_CRT_EKERNEL = -1,   /* a kernel failed (an integer division by zero, an index out of range) */
  IRM_CRT_EARGS = -2,     /* wrong number of arguments */
  IRM_CRT_ETYPE = -3,     /* an argument of the wrong type code or dtype */
  IRM_CRT_ESHAPE = -4,    /* a tensor argument of the wrong shape */
  IRM_CRT_ENOPARAMS = -5, /* run before the parameters were set */
  IRM_CRT_EPARAMS = -6,   /* a params blob that does not match */
  IRM_CRT_EINDEX = -7     /* a kernel read an index out of range (take, gather, scatter) */
};

/* What a generated kernel returns: 0, IRM_CRT_KERNEL_EDIV (an integer
 * division by zero) or IRM_CRT_KERNEL_EINDEX (an index outside its axis). */
#define IRM_CRT_KERNEL_EDIV 1
#define IRM_CRT_KERNEL_EINDEX 2

/* What a kernel that read an index out of range reports (D9): the op,
 * the index, the valid range [lower, upper) and the axis (-1: the data
 * flattened), the kernel's symbol, and all of it as one line in text. A
 * generated library keeps one record per thread (a thread-local of the
 * library, hidden): a run's kernels run on the thread calling the run, so
 * runs in flight at once on several threads each fill their own. Only the
 * failing path writes it. tvmgen_<mod_name>_last_error() returns the text
 * of the calling thread's last one; a packed wrapper returns it in ret as
 * an IRM_CRT_STR. */
#define IRM_CRT_INDEX_TEXT_MAX 256

/* The storage of a module's index-error record: one per thread, since one
 * loaded module may run on several threads at once. A bare-metal
 * toolchain without thread-local storage compiles the generated files
 * with -DIRM_CRT_THREAD_LOCAL= (one record: one thread runs the module). */
#ifndef IRM_CRT_THREAD_LOCAL
#define IRM_CRT_THREAD_LOCAL _Thread_local
#endif
typedef struct irm_crt_index_error {
  const char *op;     /* static text */
  const char *kernel; /* static text */
  int64_t index, lower, upper;
  int32_t axis;
  char text[IRM_CRT_INDEX_TEXT_MAX];
} irm_crt_index_error;

/* Fills *e (when not NULL) and returns IRM_CRT_KERNEL_EINDEX: what a
 * generated kernel returns for an index outside [lower, upper). */
static inline int32_t irm_crt_index_fail(irm_crt_index_error *e, const char *op, const char *kernel, int64_t index,
                                         int64_t lower, int64_t upper, int32_t axis) {
  if (e) {
    e->op = op;
    e->kernel = kernel;
    e->index = index;
    e->lower = lower;
    e->upper = upper;
    e->axis = axis;
    char where[32] = "of the flattened data";
    if (axis >= 0) snprintf(where, sizeof where, "on axis %d", (int)axis);
    snprintf(e->text, sizeof e->text, "%s: index %lld is out of range [%lld, %lld) %s (kernel %s)", op,
             (long long)index, (long long)lower, (long long)upper, where, kernel);
  }
  return IRM_CRT_KERNEL_EINDEX;
}

/* Kernel hooks. The entry point of AOT-generated code brackets each
 * kernel call with IRM_CRT_KERNEL_ENTER(step, "symbol") and
 * IRM_CRT_KERNEL_EXIT(step, "symbol") (step: the call's index in the
 * entry point, from 0; the exit runs whether the kernel failed or not).
 * They compile to nothing unless IRM_CRT_KERNEL_HOOKS is defined before
 * this header; then they call the two functions below, which the program
 * or another generated file defines (a profiler, a tracer, an executor
 * kind's code generator: docs/runtime.md). */
#ifdef IRM_CRT_KERNEL_HOOKS
void irm_crt_kernel_enter(int32_t step, const char *symbol);
void irm_crt_kernel_exit(int32_t step, const char *symbol);
#define IRM_CRT_KERNEL_ENTER(step, symbol) irm_crt_kernel_enter((step), (symbol))
#define IRM_CRT_KERNEL_EXIT(step, symbol) irm_crt_kernel_exit((step), (symbol))
#else
#define IRM_CRT_KERNEL_ENTER(step, symbol) ((void)0)
#define IRM_CRT_KERNEL_EXIT(step, symbol) ((void)0)
#endif

typedef int32_t (*irm_crt_packed_func)(void *args, int32_t *type_codes, int32_t num_args, void *ret, int32_t *ret_code,
                                       void *resource);

/* A short description of a return code (static text). */
static inline const char *irm_crt_strerror(int32_t code) {
  switch (code) {
  case IRM_CRT_OK: return "ok";
  case IRM_CRT_EKERNEL: return "a kernel failed (integer division by zero)";
  case IRM_CRT_EARGS: return "wrong number of arguments";
  case IRM_CRT_ETYPE: return "an argument of the wrong type";
  case IRM_CRT_ESHAPE: return "a tensor of the wrong shape";
  case IRM_CRT_ENOPARAMS: return "the parameters were not set (call set_params first)";
  case IRM_CRT_EPARAMS: return "the params blob does not match the module's parameters";
  case IRM_CRT_EINDEX:
    return "a kernel read an index out of range (take, gather or scatter: an index outside its axis)";
  default: return "unknown error";
  }
}

/* The return code of a generated kernel's status (0, IRM_CRT_KERNEL_*). */
static inline int32_t irm_crt_kernel_status(int32_t status) {
  return status == 0 ? IRM_CRT_OK : status == IRM_CRT_KERNEL_EINDEX ? IRM_CRT_EINDEX : IRM_CRT_EKERNEL;
}

/* The DLTensor of slot i, checked: type code IRM_CRT_DLTENSOR, on the CPU,
 * of dtype (code, bits) and with numel elements (compact). Returns the
 * data pointer (with byte_offset applied) or NULL, storing the error code
 * in *err. */
static inline void *irm_crt_tensor_arg(const irm_crt_value *args, const int32_t *type_codes, int32_t i, uint8_t code,
                                       uint8_t bits, int64_t numel, int32_t *err) {
  if (type_codes[i] != IRM_CRT_DLTENSOR || !args[i].v_handle) {
    *err = IRM_CRT_ETYPE;
    return NULL;
  }
  const DLTensor *t = (const DLTensor *)args[i].v_handle;
  if (t->device.device_type != kDLCPU || t->dtype.code != code || t->dtype.bits != bits || t->dtype.lanes != 1) {
    *err = IRM_CRT_ETYPE;
    return NULL;
  }
  int64_t n = 1;
  for (int32_t d = 0; d < t->ndim; d++) n *= t->shape[d];
  if (n != numel) {
    *err = IRM_CRT_ESHAPE;
    return NULL;
  }
  return (char *)t->data + t->byte_offset;
}

/* Fills a DLTensor view of CPU memory (shape borrowed). */
static inline void irm_crt_tensor_view(DLTensor *t, void *data, int32_t ndim, int64_t *shape, uint8_t code,
                                       uint8_t bits) {
  t->data = data;
  t->device.device_type = kDLCPU;
  t->device.device_id = 0;
  t->ndim = ndim;
  t->dtype.code = code;
  t->dtype.bits = bits;
  t->dtype.lanes = 1;
  t->shape = shape;
  t->strides = NULL;
  t->byte_offset = 0;
}

#ifdef __cplusplus
}
#endif

#endif
