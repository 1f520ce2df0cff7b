/* The tensor library's built-in registrations: the ffi.Tensor type, then
 * the globals that make its objects. */
#include "tensor_internal.h"

int irm_register_ir_tensor_builtins_(void) {
  int rc = irm_register_tensor_type_();
  return rc ? rc : irm_register_tensor_globals_();
}
