/* Plugins that are not shared objects (irm_internal.h): upper layers
 * register a loader for a file name extension (the dataflow passes: *.rules
 * files), and irm_plugin_load / IRM_PLUGIN_PATH hand such files to it,
 * inside a registration journal, so a file loads completely or not at all.
 * A file (by real path) loads once; rolling back an enclosing journal
 * forgets it. The loaders know nothing of plugins, the loader nothing of
 * their formats. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "irm/container.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "irm_internal.h"

#define MAX_LOADERS 8

typedef struct file_loader {
  char ext[16];
  irm_plugin_file_loader_fn fn;
} file_loader;

typedef struct loaded_file {
  struct loaded_file *next; /* newest first */
  char *realpath;
  uint64_t seq; /* irm_plugin_load_seq_ when it loaded */
} loaded_file;

static file_loader loaders[MAX_LOADERS];
static size_t n_loaders;
static loaded_file *loaded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int irm_plugin_file_loader_register_(const char *ext, irm_plugin_file_loader_fn fn) {
  if (!ext || ext[0] != '.' || strlen(ext) >= sizeof loaders[0].ext || !fn)
    return irm_error(IRM_EVALUE, "a plugin file loader needs an extension like '.rules' and a function");
  int rc = IRM_OK;
  pthread_mutex_lock(&lock);
  size_t i = 0;
  while (i < n_loaders && strcmp(loaders[i].ext, ext) != 0) i++;
  if (i < n_loaders && loaders[i].fn != fn) rc = irm_error(IRM_EKEY, "plugin files '*%s' have a loader already", ext);
  else if (i == n_loaders && n_loaders == MAX_LOADERS)
    rc = irm_error(IRM_EVALUE, "no room for another plugin file loader ('*%s')", ext);
  else if (i == n_loaders) {
    strcpy(loaders[n_loaders].ext, ext);
    loaders[n_loaders++].fn = fn;
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

static irm_plugin_file_loader_fn loader_of(const char *name) {
  size_t n = strlen(name);
  irm_plugin_file_loader_fn fn = NULL;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; !fn && i < n_loaders; i++) {
    size_t e = strlen(loaders[i].ext);
    if (n > e && strcmp(name + n - e, loaders[i].ext) == 0) fn = loaders[i].fn;
  }
  pthread_mutex_unlock(&lock);
  return fn;
}

int irm_plugin_file_is_loadable_(const char *name) {
  if (irm_builtins_ready_()) irm_clear_error(); /* the loaders are registered by the built-ins */
  return loader_of(name) != NULL;
}

static int is_loaded(const char *real) {
  for (loaded_file *f = loaded; f; f = f->next)
    if (strcmp(f->realpath, real) == 0) return 1;
  return 0;
}

static void forget(void *data) {
  pthread_mutex_lock(&lock);
  for (loaded_file **p = &loaded; *p; p = &(*p)->next)
    if (*p == data) {
      *p = ((loaded_file *)data)->next;
      break;
    }
  pthread_mutex_unlock(&lock);
  irm_free(((loaded_file *)data)->realpath);
  irm_free(data);
}

/* {name: the file's name, version: "", path: its real path}, as
 * irm_plugin_load_info gives for a shared object. */
static int file_info(const char *real, irm_object **info) {
  if (!info) return IRM_OK;
  const char *base = strrchr(real, '/');
  const char *keys[] = {"name", "version", "path"};
  irm_any values[] = {irm_any_str(base ? base + 1 : real), irm_any_str(""), irm_any_str(real)};
  return irm_map_from_pairs(keys, values, 3, info);
}

int irm_plugin_file_load_(const char *path, int *handled, irm_object **info) {
  *handled = 0;
  int rc = irm_builtins_ready_(); /* the upper layers register their loaders there */
  if (rc) return rc;
  irm_plugin_file_loader_fn fn = loader_of(path);
  *handled = fn != NULL;
  if (!fn) return IRM_OK;
  char *sys = realpath(path, NULL);
  if (!sys) return irm_error(IRM_EPLUGIN, "cannot load plugin '%s': the file does not exist", irm_error_quote(path));
  loaded_file *entry = irm_calloc(1, sizeof *entry);
  if (entry) entry->realpath = irm_strdup(sys);
  free(sys); /* realpath allocates with malloc */
  if (!entry || !entry->realpath) {
    if (entry) irm_free(entry);
    return irm_error_nomem_("loading a plugin file");
  }
  pthread_mutex_lock(&lock);
  int known = is_loaded(entry->realpath);
  pthread_mutex_unlock(&lock);
  if (known) {
    rc = file_info(entry->realpath, info);
    irm_free(entry->realpath);
    irm_free(entry);
    return rc;
  }
  irm_journal *j = NULL;
  rc = irm_journal_open(&j);
  if (!rc && (rc = fn(path)) == IRM_OK) rc = irm_journal_commit(j);
  else if (j) {
    char *cause = irm_strdup(irm_last_error()); /* rollback may run code that sets errors */
    irm_journal_rollback(j);
    rc = irm_error(IRM_EPLUGIN, "cannot load plugin '%s': %s", irm_error_quote(path), cause ? cause : "out of memory");
    irm_free(cause);
  }
  if (rc) {
    irm_free(entry->realpath);
    irm_free(entry);
    return rc;
  }
  pthread_mutex_lock(&lock);
  entry->seq = irm_plugin_load_seq_();
  entry->next = loaded;
  loaded = entry;
  pthread_mutex_unlock(&lock);
  /* Inside an enclosing journal: its rollback takes the registrations
   * back, and this file with them. Out of memory here only means the file
   * would stay listed. */
  if (irm_journal_active() && irm_journal_record(forget, NULL, entry)) irm_clear_error();
  return file_info(entry->realpath, info);
}

int irm_plugin_files_loaded_(irm_any **items, uint64_t **seqs, size_t *n) {
  *items = NULL;
  *seqs = NULL;
  *n = 0;
  pthread_mutex_lock(&lock);
  size_t count = 0;
  for (loaded_file *f = loaded; f; f = f->next) count++;
  char **paths = count ? irm_calloc(count, sizeof *paths) : NULL;
  uint64_t *order = count ? irm_malloc(count * sizeof *order) : NULL;
  int rc = count && (!paths || !order) ? IRM_ENOMEM : IRM_OK;
  size_t i = count;
  for (loaded_file *f = loaded; !rc && f; f = f->next) { /* newest first: fill from the end */
    i--;
    order[i] = f->seq;
    if (!(paths[i] = irm_strdup(f->realpath))) rc = IRM_ENOMEM;
  }
  pthread_mutex_unlock(&lock);
  irm_any *maps = !rc && count ? irm_calloc(count, sizeof *maps) : NULL;
  if (!rc && count && !maps) rc = IRM_ENOMEM;
  for (size_t k = 0; !rc && k < count; k++) {
    irm_object *info = NULL;
    if (file_info(paths[k], &info)) rc = IRM_ENOMEM;
    else maps[k] = irm_any_object(info);
  }
  for (size_t k = 0; paths && k < count; k++) irm_free(paths[k]);
  irm_free(paths);
  if (rc) {
    for (size_t k = 0; maps && k < count; k++) irm_any_release(&maps[k]);
    irm_free(maps);
    irm_free(order);
    return irm_error_nomem_("listing plugins");
  }
  *items = maps;
  *seqs = order;
  *n = count;
  return IRM_OK;
}
