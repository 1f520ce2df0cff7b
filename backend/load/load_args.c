/* What the executor kinds' executor.load functions share (load_internal.h):
 * reading their arguments, making their result, the tensors of a run and
 * the params file beside a library. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/tensor.h"
#include "load_internal.h"

int irm_load_args_(const char *fn, const irm_any *args, int32_t nargs, const char **path, const char **mod_name,
                   const char **metadata, void **handle) {
  int rc = irm_arg_count(fn, nargs, 4, 4);
  if (!rc) rc = irm_arg_str(fn, args, 0, path, NULL);
  if (!rc) rc = irm_arg_str(fn, args, 1, mod_name, NULL);
  if (!rc) rc = irm_arg_str(fn, args, 2, metadata, NULL);
  if (!rc && (args[3].type_code != IRM_PTR || !args[3].v_ptr))
    rc = irm_error(IRM_ETYPE, "%s: argument 4: expected the library's handle (a pointer), got %s", fn,
                   irm_any_describe_(&args[3]));
  if (!rc) *handle = args[3].v_ptr;
  return rc;
}

int irm_load_result_(const char *fn, irm_packed_cfunc run, void *resource, void (*finalizer)(void *),
                     irm_object *metadata, bool concurrent, irm_any *ret) {
  irm_object *f = NULL, *map = NULL;
  int rc = irm_func_new_packed(run, resource, finalizer, &f);
  if (rc) {
    finalizer(resource);
    return irm_error_context(rc, "%s", fn);
  }
  rc = irm_map_new(&map);
  irm_any fv = irm_any_object(f), mv = irm_any_object(metadata);
  if (!rc) rc = irm_map_set_move(&map, "run", &fv);
  if (!rc && metadata) rc = irm_map_set_move(&map, "metadata", &mv);
  irm_any cv = irm_any_bool(true);
  if (!rc && concurrent) rc = irm_map_set_move(&map, "concurrent", &cv);
  irm_object_release(f);
  if (rc) {
    irm_object_release(map);
    return irm_error_context(rc, "%s", fn);
  }
  return irm_ret_object(fn, rc, &map, ret);
}

int irm_load_run_tensors_(const char *fn, const irm_any *args, int32_t nargs, size_t n_in, size_t n_out, DLTensor *dl) {
  irm_object *lists[2] = {NULL, NULL};
  int rc = irm_arg_count(fn, nargs, 2, 2);
  for (int32_t a = 0; !rc && a < 2; a++) rc = irm_arg_object(fn, args, a, "ffi.Array", &lists[a]);
  if (!rc && (irm_array_size(lists[0]) != n_in || irm_array_size(lists[1]) != n_out))
    rc = irm_error(IRM_EVALUE, "%s: expected %zu inputs and %zu outputs, got %zu and %zu", fn, n_in, n_out,
                   irm_array_size(lists[0]), irm_array_size(lists[1]));
  for (size_t i = 0; !rc && i < n_in + n_out; i++) {
    const irm_any *v = i < n_in ? irm_array_at(lists[0], i) : irm_array_at(lists[1], i - n_in);
    if (v->type_code != IRM_OBJECT || !irm_is_tensor(v->v_obj))
      rc = irm_error(IRM_ETYPE, "%s: %s %zu: expected ffi.Tensor, got %s", fn, i < n_in ? "input" : "output",
                     i < n_in ? i : i - n_in, irm_any_describe_(v));
    else dl[i] = *irm_tensor_dl((const irm_tensor *)v->v_obj);
  }
  return rc;
}

int irm_load_file_beside_(const char *path, const char *file, char **data, size_t *size, char **full_out) {
  const char *slash = strrchr(path, '/');
  size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
  char *full = irm_malloc(dirlen + strlen(file) + 1);
  if (!full) return irm_error(IRM_ENOMEM, "runtime.Load: out of memory");
  memcpy(full, path, dirlen);
  strcpy(full + dirlen, file);
  *full_out = full;
  FILE *f = fopen(full, "rb");
  if (!f) return irm_error(IRM_ERUNTIME, "cannot read the params file '%s': %s", full, strerror(errno));
  irm_text_buf b;
  irm_text_buf_init_(&b, NULL, 0);
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) irm_text_buf_append_(&b, chunk, n);
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    irm_text_buf_free_(&b);
    return irm_error(IRM_ERUNTIME, "cannot read the params file '%s'", full);
  }
  *size = b.len;
  return irm_text_buf_take_cstr_(&b, "for the params file", data);
}

void irm_load_free_list_init_(irm_load_free_list_ *l) {
  pthread_mutex_init(&l->lock, NULL);
  l->head = NULL;
}

irm_load_item_ *irm_load_free_list_take_(irm_load_free_list_ *l) {
  pthread_mutex_lock(&l->lock);
  irm_load_item_ *item = l->head;
  if (item) l->head = item->next;
  pthread_mutex_unlock(&l->lock);
  return item;
}

void irm_load_free_list_give_(irm_load_free_list_ *l, irm_load_item_ *item) {
  pthread_mutex_lock(&l->lock);
  item->next = l->head;
  l->head = item;
  pthread_mutex_unlock(&l->lock);
}

void irm_load_free_list_free_(irm_load_free_list_ *l, void (*free_item)(irm_load_item_ *)) {
  while (l->head) {
    irm_load_item_ *item = l->head;
    l->head = item->next;
    free_item(item);
  }
  pthread_mutex_destroy(&l->lock);
}
