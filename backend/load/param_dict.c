/* TVM's param dict in libirm (irm/param_dict.h): runtime/'s reader and
 * writer (irm_params.h, the one copy of the layout) between irm's Maps of
 * Tensors and bytes, and the globals runtime.SaveParams / LoadParams. */
#include <string.h>

#include "backend_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/tensor.h"
#include "irm/param_dict.h"
#include "irm_params.h"

int irm_param_dict_is(const void *data, size_t size) {
  uint64_t magic = 0;
  if (!data || size < 8) return 0;
  memcpy(&magic, data, 8);
  return magic == IRM_PARAM_DICT_MAGIC;
}

int irm_param_dict_save(const irm_object *params, irm_object **out) {
  *out = NULL;
  if (!params || !irm_object_is(params, "ffi.Map"))
    return irm_error(IRM_ETYPE, "SaveParams: expected a Map name -> Tensor, got %s",
                     params ? irm_object_type_key(params) : "None");
  size_t n = irm_map_size(params), i = 0;
  const char **names = irm_calloc(n + 1, sizeof *names);
  const DLTensor **tensors = irm_calloc(n + 1, sizeof *tensors);
  int rc = names && tensors ? IRM_OK : irm_error(IRM_ENOMEM, "SaveParams: out of memory");
  irm_map_iter it = irm_map_iter_begin(params);
  const irm_object *k;
  const irm_any *v;
  while (!rc && irm_map_iter_next(&it, &k, &v)) {
    names[i] = irm_string_data(k);
    if (v->type_code != IRM_OBJECT || !irm_is_tensor(v->v_obj))
      rc =
          irm_error(IRM_ETYPE, "SaveParams: '%s' is %s, not a Tensor", irm_error_quote(names[i]), irm_any_type_name(v));
    else tensors[i++] = irm_tensor_dl(v->v_obj);
  }
  size_t size = 0;
  unsigned char *buf = NULL;
  if (!rc && irm_params_write(NULL, 0, n, names, tensors, &size) != IRM_PARAMS_OK)
    rc = irm_error(IRM_EVALUE, "SaveParams: a tensor has more than %d dimensions", IRM_PARAMS_MAX_NDIM);
  if (!rc && !(buf = irm_malloc(size ? size : 1))) rc = irm_error(IRM_ENOMEM, "SaveParams: out of memory");
  if (!rc) irm_params_write(buf, size, n, names, tensors, &size);
  if (!rc) rc = irm_string_new((const char *)buf, size, out);
  irm_free(buf);
  irm_free(names);
  irm_free(tensors);
  return rc;
}

/* One entry as a Tensor in *map under its name. */
static int add_entry(const irm_params_entry *e, irm_object **map) {
  char name[1024];
  if (e->name_len >= sizeof name || memchr(e->name, '\0', e->name_len))
    return irm_error(IRM_EVALUE, "LoadParams: a name of %zu bytes%s", e->name_len,
                     e->name_len >= sizeof name ? " (longer than 1023)" : " holding a NUL byte");
  memcpy(name, e->name, e->name_len);
  name[e->name_len] = '\0';
  if (irm_map_find_cstr(*map, name))
    return irm_error(IRM_EVALUE, "LoadParams: the name '%s' is given twice", irm_error_quote(name));
  DLDataType dt, given = e->dtype;
  /* TVM writes bool as uint1, one byte per element (DLPack before 0.8 had no bool code). */
  if (given.code == kDLUInt && given.bits == 1 && given.lanes == 1 && !irm_dtype_parse("bool", &dt)) given = dt;
  const char *dtype = given.lanes == 1 ? irm_dtype_name(given) : NULL;
  if (!dtype || irm_dtype_parse(dtype, &dt) || !irm_dtype_equal(dt, given)) {
    irm_clear_error();
    return irm_error(IRM_EVALUE, "LoadParams: '%s' has a dtype irm does not have (code %u, bits %u, lanes %u)",
                     irm_error_quote(name), e->dtype.code, e->dtype.bits, e->dtype.lanes);
  }
  uint64_t numel = 1;
  for (int32_t d = 0; d < e->ndim; d++) numel *= (uint64_t)e->shape[d];
  if (irm_dtype_size(dt) * numel != e->nbytes)
    return irm_error(IRM_EVALUE, "LoadParams: '%s' (%s) stores %u bits per element, irm %zu", irm_error_quote(name),
                     dtype, e->dtype.bits, irm_dtype_size(dt) * 8);
  irm_tensor *t = NULL;
  int rc = irm_tensor_new(dt, e->shape, e->ndim, NULL, &t);
  if (rc) return rc;
  if (e->nbytes) memcpy(irm_tensor_data(t), e->data, (size_t)e->nbytes);
  irm_any v = irm_any_object(t);
  rc = irm_map_set_move(map, name, &v);
  irm_any_release(&v);
  return rc;
}

int irm_param_dict_load(const void *data, size_t size, irm_object **out) {
  *out = NULL;
  irm_params_iter it;
  int prc = data ? irm_params_iter_begin(data, size, &it) : IRM_PARAMS_ETRUNCATED;
  if (prc) return irm_error(IRM_EVALUE, "LoadParams: not a valid param dict: %s", irm_params_strerror(prc));
  irm_object *map = NULL;
  int rc = irm_map_new(&map);
  irm_params_entry e;
  while (!rc && irm_params_iter_next(&it, &e)) rc = add_entry(&e, &map);
  if (rc) irm_object_release(map);
  else *out = map;
  return rc;
}

/* ---- globals ------------------------------------------------------------------------ */

static int g_save(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "runtime.SaveParams";
  (void)resource;
  irm_object *map = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Map", &map);
  if (!rc) rc = irm_param_dict_save(map, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

static int g_load(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "runtime.LoadParams";
  (void)resource;
  const char *data = NULL;
  size_t len = 0;
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &data, &len);
  if (!rc) rc = irm_param_dict_load(data, len, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

int irm_register_param_dict_globals_(void) {
  static const irm_builtin_global globals[] = {{"runtime.SaveParams", g_save}, {"runtime.LoadParams", g_load}};
  return irm_global_register_builtins_(globals, sizeof globals / sizeof globals[0]);
}
