/* The plugin loader (irm/plugin.h): dlopen with the IRM_REGISTER_* macros'
 * registrations deferred, an ABI check, then the deferred registrations and
 * init inside one registration journal.
 *
 * Each file (by realpath) has one entry, which lives for the process: a
 * loaded plugin (listed), a library whose load failed after it was opened
 * (kept open, since its code may have run; a later load replays it), or a
 * load in progress (other threads wait on the condition variable; no irm
 * lock is held while a plugin's code runs). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/journal.h"
#include "irm/plugin.h"
#include "name_table.h"
#include "plugin_defer.h"
#include "irm_internal.h"

typedef enum { PLUGIN_LOADING, PLUGIN_LOADED, PLUGIN_DORMANT } plugin_state;

typedef struct plugin_entry {
  struct plugin_entry *next;
  plugin_state state;
  pthread_t loader; /* while LOADING */
  char *realpath;
  void *handle;                /* NULL until opened */
  const irm_plugin_info *info; /* borrowed from the library */
  irm_plugin_defer *queue;     /* its macros' registrations, kept for replays */
  irm_object *info_map;        /* while LOADED */
  uint64_t seq;                /* irm_plugin_load_seq_ when it became LOADED */
} plugin_entry;

/* In load order (an entry moves to the end when it becomes LOADED). */
static plugin_entry *plugins;
static pthread_mutex_t plugins_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t plugins_changed = PTHREAD_COND_INITIALIZER;

static int claim_entry(const char *path, char *real, irm_object **info, plugin_entry **out);
static int open_library(const char *path, plugin_entry *e);
static int check_info(const char *path, const irm_plugin_info *info);
static int run_init(const char *path, plugin_entry *e);
static int make_info_map(const plugin_entry *e, irm_object **out);
static void finish(plugin_entry *e, plugin_state state);
static void forget(plugin_entry *e);
static void unload_undo(void *data);
static char *resolve(const char *path, int *rc);

int irm_plugin_load(const char *path) { return irm_plugin_load_info(path, NULL); }

int irm_plugin_load_info(const char *path, irm_object **info) {
  if (info) *info = NULL;
  if (!path) return irm_error(IRM_EVALUE, "irm_plugin_load: path must not be NULL");
  int handled = 0;
  int rc = irm_plugin_file_load_(path, &handled, info); /* a file of a registered kind (*.rules) */
  if (handled || rc) return rc;
  char *real = resolve(path, &rc);
  if (!real) return rc;
  plugin_entry *e = NULL;
  irm_object *loaded = NULL;
  rc = claim_entry(path, real, &loaded, &e); /* takes real */
  if (rc || loaded) {
    if (info) *info = loaded;
    else irm_object_release(loaded);
    return rc;
  }
  if (!e->handle && (rc = open_library(path, e))) {
    forget(e); /* init never ran: nothing of the library is in use */
    return rc;
  }
  if ((rc = run_init(path, e))) {
    finish(e, PLUGIN_DORMANT);
    return rc;
  }
  finish(e, PLUGIN_LOADED);
  /* Loaded inside an enclosing journal (a user's, or another plugin's
   * init): rolling that back undoes our registrations, so it unlists us.
   * Out of memory here only means the entry would stay listed. */
  (void)irm_journal_record(unload_undo, NULL, e);
  if (info) {
    irm_object_retain(e->info_map);
    *info = e->info_map;
  }
  return IRM_OK;
}

/* The canonical path, or NULL with a PluginError. irm_malloc'd. */
static char *resolve(const char *path, int *rc) {
  char *sys = realpath(path, NULL);
  if (!sys) {
    int err = errno;
    char buf[128];
    const char *why = err == ENOENT ? "the file does not exist" : strerror_r(err, buf, sizeof buf);
    *rc = irm_error(IRM_EPLUGIN, "cannot load plugin '%s': %s", irm_error_quote(path), why);
    return NULL;
  }
  char *copy = irm_strdup(sys);
  free(sys); /* realpath allocates with malloc */
  if (!copy) *rc = irm_error(IRM_ENOMEM, "loading plugin '%s'", irm_error_quote(path));
  return copy;
}

static plugin_entry *find_locked(const char *real) {
  for (plugin_entry *e = plugins; e; e = e->next)
    if (strcmp(e->realpath, real) == 0) return e;
  return NULL;
}

/* Either *info (a loaded plugin's info, NEW) or *out (an entry this thread
 * now loads). Waits while another thread loads the same file. Takes real. */
static int claim_entry(const char *path, char *real, irm_object **info, plugin_entry **out) {
  plugin_entry *fresh = irm_calloc(1, sizeof *fresh); /* allocated before locking */
  if (!fresh) {
    irm_free(real);
    return irm_error(IRM_ENOMEM, "loading plugin '%s'", irm_error_quote(path));
  }
  pthread_t self = pthread_self();
  int rc = IRM_OK;
  pthread_mutex_lock(&plugins_lock);
  plugin_entry *e;
  while ((e = find_locked(real)) && e->state == PLUGIN_LOADING && !pthread_equal(e->loader, self))
    pthread_cond_wait(&plugins_changed, &plugins_lock);
  if (!e) {
    fresh->realpath = real;
    fresh->state = PLUGIN_DORMANT; /* claimed just below */
    fresh->next = plugins;
    plugins = fresh;
    e = fresh;
    fresh = NULL;
    real = NULL;
  }
  if (e->state == PLUGIN_LOADED) {
    irm_object_retain(e->info_map);
    *info = e->info_map;
  } else if (e->state == PLUGIN_LOADING) {
    rc = 1; /* this very thread is loading it: its init loads itself */
  } else {
    e->state = PLUGIN_LOADING;
    e->loader = self;
    *out = e;
  }
  pthread_mutex_unlock(&plugins_lock);
  irm_free(fresh);
  irm_free(real);
  if (rc)
    return irm_error(IRM_EPLUGIN,
                     "cannot load plugin '%s': this thread is loading it already (does its init load itself?)",
                     irm_error_quote(path));
  return IRM_OK;
}

/* dlopen with the macros' registrations queued, then the ABI check. On
 * failure the library is closed again: none of its code but constructors
 * (which only queued) has run. */
static int open_library(const char *path, plugin_entry *e) {
  irm_plugin_defer *q = irm_plugin_defer_new_();
  if (!q) return irm_error(IRM_ENOMEM, "loading plugin '%s'", irm_error_quote(path));
  irm_plugin_defer *outer = irm_plugin_defer_set_(q);
  void *handle = dlopen(e->realpath, RTLD_NOW | RTLD_LOCAL);
  irm_plugin_defer_set_(outer);
  if (!handle) {
    const char *why = dlerror();
    irm_plugin_defer_free_(q);
    return irm_error(IRM_EPLUGIN, "cannot load plugin '%s': dlopen failed: %s", irm_error_quote(path),
                     why ? why : "unknown error");
  }
  int rc = IRM_OK;
  void *sym = dlsym(handle, IRM_PLUGIN_ENTRY_POINT);
  irm_plugin_info_get_fn get = NULL;
  memcpy(&get, &sym, sizeof get); /* ISO C has no object-to-function pointer cast */
  const irm_plugin_info *info = get ? get() : NULL;
  if (!get)
    rc = irm_error(IRM_EPLUGIN, "cannot load plugin '%s': it does not export %s (is it an irm plugin?)",
                   irm_error_quote(path), IRM_PLUGIN_ENTRY_POINT);
  else if (!info)
    rc = irm_error(IRM_EPLUGIN, "cannot load plugin '%s': %s returned NULL", irm_error_quote(path),
                   IRM_PLUGIN_ENTRY_POINT);
  else rc = check_info(path, info);
  if (!rc && irm_plugin_defer_failed_(q))
    rc = irm_error(IRM_EPLUGIN, "cannot load plugin '%s': out of memory queueing its registrations",
                   irm_error_quote(path));
  if (rc) {
    irm_plugin_defer_free_(q);
    dlclose(handle);
    return rc;
  }
  e->handle = handle;
  e->info = info;
  e->queue = q;
  return IRM_OK;
}

/* The fields of ABI version 1 end with init. */
#define PLUGIN_INFO_V1_SIZE (offsetof(irm_plugin_info, init) + sizeof(int (*)(void)))

static int check_info(const char *path, const irm_plugin_info *info) {
  if (info->abi_version < 1 || info->abi_version > IRM_PLUGIN_ABI_VERSION)
    return irm_error(IRM_EPLUGIN,
                     "cannot load plugin '%s': unsupported plugin ABI version %u (this irm supports ABI version %u)",
                     irm_error_quote(path), (unsigned)info->abi_version, (unsigned)IRM_PLUGIN_ABI_VERSION);
  if (info->struct_size < PLUGIN_INFO_V1_SIZE)
    return irm_error(
        IRM_EPLUGIN, "cannot load plugin '%s': unsupported irm_plugin_info size %u (ABI version %u needs at least %u)",
        irm_error_quote(path), (unsigned)info->struct_size, (unsigned)info->abi_version, (unsigned)PLUGIN_INFO_V1_SIZE);
  if (!info->name || !info->name[0])
    return irm_error(IRM_EPLUGIN, "cannot load plugin '%s': its irm_plugin_info has no name", irm_error_quote(path));
  return IRM_OK;
}

/* The plugin whose registrations this thread is running (loads nest). */
static _Thread_local const char *current_plugin;

const char *irm_plugin_current_name_(void) { return current_plugin; }

/* The queued registrations and init inside one journal, rolled back on
 * failure; the info Map is made inside it too, so running out of memory
 * there also leaves nothing behind. */
static int run_init(const char *path, plugin_entry *e) {
  irm_journal *j = NULL;
  int rc = irm_journal_open(&j);
  if (rc) return irm_error_context(rc, "loading plugin '%s'", irm_error_quote(path));
  const char *stage = "registering what its IRM_REGISTER_* macros declare";
  const char *outer_plugin = current_plugin;
  current_plugin = e->info->name; /* the library stays open: the name lives on */
  rc = irm_plugin_defer_run_(e->queue);
  if (!rc && e->info->init) {
    stage = "init failed";
    unsigned generation = irm_error_generation_;
    rc = e->info->init();
    if (rc && generation == irm_error_generation_)
      irm_error(IRM_ERUNTIME, "init returned %d without setting an error", rc);
  }
  current_plugin = outer_plugin;
  if (!rc) {
    stage = "making its info";
    rc = make_info_map(e, &e->info_map);
  }
  if (!rc && (rc = irm_journal_commit(j)) == IRM_OK) return IRM_OK;
  char *cause = irm_strdup(irm_last_error()); /* rollback may run code that sets errors */
  irm_journal_rollback(j);
  irm_object_release(e->info_map);
  e->info_map = NULL;
  rc = irm_error(IRM_EPLUGIN, "cannot load plugin '%s' ('%s'): %s: %s", irm_error_quote(path), e->info->name, stage,
                 cause ? cause : "out of memory");
  irm_free(cause);
  return rc;
}

static int make_info_map(const plugin_entry *e, irm_object **out) {
  const char *keys[] = {"name", "version", "path"};
  irm_any values[] = {irm_any_str(e->info->name), irm_any_str(e->info->version ? e->info->version : ""),
                      irm_any_str(e->realpath)};
  return irm_map_from_pairs(keys, values, 3, out);
}

/* Ends this thread's load of e: LOADED entries go to the end of the list
 * (load order), and waiting threads look again. */
static void finish(plugin_entry *e, plugin_state state) {
  pthread_mutex_lock(&plugins_lock);
  e->state = state;
  if (state == PLUGIN_LOADED) {
    e->seq = irm_plugin_load_seq_();
    plugin_entry **p = &plugins;
    while (*p != e) p = &(*p)->next;
    *p = e->next;
    while (*p) p = &(*p)->next;
    *p = e;
    e->next = NULL;
  }
  pthread_cond_broadcast(&plugins_changed);
  pthread_mutex_unlock(&plugins_lock);
}

/* Removes an entry whose library is not open, and frees it. */
static void forget(plugin_entry *e) {
  pthread_mutex_lock(&plugins_lock);
  plugin_entry **p = &plugins;
  while (*p != e) p = &(*p)->next;
  *p = e->next;
  pthread_cond_broadcast(&plugins_changed);
  pthread_mutex_unlock(&plugins_lock);
  irm_free(e->realpath);
  irm_free(e);
}

/* Undo of a load inside an enclosing journal: the library stays open and
 * its queue kept, so loading it again replays both. */
static void unload_undo(void *data) {
  plugin_entry *e = data;
  pthread_mutex_lock(&plugins_lock);
  irm_object *map = e->info_map;
  e->info_map = NULL;
  e->state = PLUGIN_DORMANT;
  pthread_cond_broadcast(&plugins_changed);
  pthread_mutex_unlock(&plugins_lock);
  irm_object_release(map);
}

/* ---- listing ---- */

uint64_t irm_plugin_load_seq_(void) {
  static _Atomic uint64_t next;
  return atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
}

/* The loaded shared objects' info Maps (NEW) and load numbers, in load
 * order. */
static int loaded_libraries(irm_any **items_out, uint64_t **seqs_out, size_t *n_out) {
  size_t capacity = 8, n;
  irm_any *items = NULL;
  uint64_t *seqs = NULL;
  for (;;) { /* allocate outside the lock; retry if plugins arrived meanwhile */
    irm_any *bigger = irm_realloc(items, capacity * sizeof *items);
    if (bigger) items = bigger;
    uint64_t *more = bigger ? irm_realloc(seqs, capacity * sizeof *seqs) : NULL;
    if (!more) {
      irm_free(items);
      irm_free(seqs);
      return irm_error_nomem_("listing plugins");
    }
    seqs = more;
    n = 0;
    size_t total = 0;
    pthread_mutex_lock(&plugins_lock);
    for (plugin_entry *e = plugins; e; e = e->next) {
      if (e->state != PLUGIN_LOADED) continue;
      if (total++ < capacity) {
        irm_object_retain(e->info_map);
        seqs[n] = e->seq;
        items[n++] = irm_any_object(e->info_map);
      }
    }
    pthread_mutex_unlock(&plugins_lock);
    if (total <= capacity) break;
    for (size_t i = 0; i < n; i++) irm_any_release(&items[i]);
    capacity = total * 2;
  }
  *items_out = items;
  *seqs_out = seqs;
  *n_out = n;
  return IRM_OK;
}

/* Shared objects and plugin files (*.rules), merged by load number. */
int irm_plugin_list(irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_plugin_list: out must not be NULL");
  *out = NULL;
  irm_any *libs = NULL, *files = NULL, *all = NULL;
  uint64_t *lib_seq = NULL, *file_seq = NULL;
  size_t n_libs = 0, n_files = 0;
  int rc = loaded_libraries(&libs, &lib_seq, &n_libs);
  if (!rc) rc = irm_plugin_files_loaded_(&files, &file_seq, &n_files);
  if (!rc && n_libs + n_files && !(all = irm_malloc((n_libs + n_files) * sizeof *all)))
    rc = irm_error_nomem_("listing plugins");
  if (!rc) {
    size_t i = 0, j = 0, k = 0;
    while (i < n_libs || j < n_files)
      all[k++] = j == n_files || (i < n_libs && lib_seq[i] < file_seq[j]) ? libs[i++] : files[j++];
    rc = irm_array_new(all, k, out);
  }
  for (size_t i = 0; i < n_libs; i++) irm_any_release(&libs[i]);
  for (size_t j = 0; j < n_files; j++) irm_any_release(&files[j]);
  irm_free(all);
  irm_free(libs);
  irm_free(files);
  irm_free(lib_seq);
  irm_free(file_seq);
  return rc;
}

/* ---- IRM_PLUGIN_PATH ---- */

static int load_folder(const char *folder);

int irm_plugin_load_from_env(void) {
  const char *env = getenv("IRM_PLUGIN_PATH");
  if (!env || !env[0]) return IRM_OK;
  char *list = irm_strdup(env); /* getenv's string may change under us */
  if (!list) return irm_error(IRM_ENOMEM, "reading IRM_PLUGIN_PATH");
  int rc = IRM_OK;
  for (char *item = list, *end; !rc && item; item = end) {
    end = strchr(item, ':');
    if (end) *end++ = '\0';
    if (!item[0]) continue;
    struct stat st;
    rc = stat(item, &st) == 0 && S_ISDIR(st.st_mode) ? load_folder(item) : irm_plugin_load(item);
  }
  irm_free(list);
  return rc ? irm_error_context(rc, "IRM_PLUGIN_PATH") : IRM_OK;
}

static int compare_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int has_so_suffix(const char *name) {
  size_t n = strlen(name);
  return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

/* Loads folder's *.so files in sorted order. */
static int load_folder(const char *folder) {
  DIR *dir = opendir(folder);
  if (!dir) {
    int err = errno;
    char buf[128];
    return irm_error(IRM_EPLUGIN, "cannot read plugin folder '%s': %s", irm_error_quote(folder),
                     strerror_r(err, buf, sizeof buf));
  }
  char **paths = NULL;
  size_t n = 0, capacity = 0;
  int rc = IRM_OK;
  for (struct dirent *d; !rc && (d = readdir(dir));) {
    if (!has_so_suffix(d->d_name) && !irm_plugin_file_is_loadable_(d->d_name)) continue;
    if (n == capacity) {
      capacity = capacity ? 2 * capacity : 8;
      char **bigger = irm_realloc(paths, capacity * sizeof *paths);
      if (!bigger) {
        rc = irm_error(IRM_ENOMEM, "reading plugin folder '%s'", irm_error_quote(folder));
        break;
      }
      paths = bigger;
    }
    irm_object *joined = NULL;
    if ((rc = irm_string_format(&joined, "%s/%s", folder, d->d_name))) break;
    paths[n] = irm_strdup(irm_string_data(joined));
    irm_object_release(joined);
    if (!paths[n]) rc = irm_error(IRM_ENOMEM, "reading plugin folder '%s'", irm_error_quote(folder));
    else n++;
  }
  closedir(dir);
  if (!rc && n) qsort(paths, n, sizeof *paths, compare_text);
  for (size_t i = 0; i < n; i++) {
    if (!rc) rc = irm_plugin_load(paths[i]);
    irm_free(paths[i]);
  }
  irm_free(paths);
  return rc;
}
