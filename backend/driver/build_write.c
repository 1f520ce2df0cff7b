/* irm_build_write (build.h): a build's artifacts written out, one file
 * each, every error naming the path. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "backend_internal.h"
#include "irm/container.h"
#include "irm/error.h"

static int check_name(const char *name) {
  if (!name[0] || name[0] == '/' || strchr(name, '/') || strcmp(name, "..") == 0 || strcmp(name, ".") == 0)
    return irm_error(IRM_EVALUE,
                     "artifact '%s': a file name must be a plain name (not empty, no '/', not '.' "
                     "or '..')",
                     irm_error_quote(name));
  return IRM_OK;
}

static int write_one(const char *dir, const char *name, const irm_object *data) {
  size_t need = strlen(dir) + strlen(name) + 2;
  char *path = irm_malloc(need);
  if (!path) return irm_error_nomem_("writing an artifact");
  snprintf(path, need, "%s/%s", dir, name);
  int rc = IRM_OK;
  FILE *f = fopen(path, "wb");
  size_t n = irm_string_size(data);
  if (!f) rc = irm_error(IRM_ERUNTIME, "cannot write '%s': %s", irm_error_quote(path), strerror(errno));
  else if (fwrite(irm_string_data(data), 1, n, f) != n)
    rc = irm_error(IRM_ERUNTIME, "cannot write '%s': %s", irm_error_quote(path), strerror(errno));
  if (f && fclose(f) != 0 && !rc)
    rc = irm_error(IRM_ERUNTIME, "cannot write '%s': %s", irm_error_quote(path), strerror(errno));
  irm_free(path);
  return rc;
}

int irm_build_write(const irm_object *result, const char *dir) {
  if (!dir) return irm_error(IRM_EVALUE, "irm_build_write: dir must not be NULL");
  const irm_any *a = irm_object_type_index(result) == IRM_TYPE_MAP ? irm_map_find_cstr(result, "artifacts") : NULL;
  if (!a || a->type_code != IRM_OBJECT || irm_object_type_index(a->v_obj) != IRM_TYPE_MAP)
    return irm_error(IRM_ETYPE, "irm_build_write: expected a build result (a Map with an \"artifacts\" Map), got %s",
                     result ? irm_object_type_key(result) : "NULL");
  irm_map_iter it = irm_map_iter_begin(a->v_obj);
  const irm_object *k;
  const irm_any *v;
  while (irm_map_iter_next(&it, &k, &v)) { /* check every name before writing any file */
    int rc = check_name(irm_string_data(k));
    if (!rc && (v->type_code != IRM_OBJECT || !irm_string_data(v->v_obj)))
      rc = irm_error(IRM_ETYPE, "artifact '%s': expected a String, got %s", irm_string_data(k), irm_any_describe_(v));
    if (rc) return irm_error_context(rc, "irm_build_write");
  }
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return irm_error(IRM_ERUNTIME, "irm_build_write: cannot make the folder '%s': %s", irm_error_quote(dir),
                     strerror(errno));
  it = irm_map_iter_begin(a->v_obj);
  while (irm_map_iter_next(&it, &k, &v)) {
    int rc = write_one(dir, irm_string_data(k), v->v_obj);
    if (rc) return irm_error_context(rc, "irm_build_write");
  }
  return IRM_OK;
}
