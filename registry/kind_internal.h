/* Private to libirm: the kind registry's structures, shared by kind.c
 * (categories, kinds, options) and kind_attr.c (kind attributes). */
#ifndef IRM_REGISTRY_KIND_INTERNAL_H
#define IRM_REGISTRY_KIND_INTERNAL_H

#include <pthread.h>

#include "irm/kind.h"
#include "name_table.h"
#include "uthash_irm.h"

typedef struct option_def {
  char *name;
  irm_option_type type;
  irm_any default_value; /* NONE when there is none */
  char *doc;
  int required;
} option_def;

typedef struct attr_value {
  UT_hash_handle hh;
  irm_any value;
  int plevel;
  char name[];
} attr_value;

typedef struct attr_name { /* an attribute some kind of the category set */
  UT_hash_handle hh;
  char name[];
} attr_name;

typedef struct category category;

struct irm_kind {
  category *cat;
  int detached; /* rolled back: its category's table keeps it aside */
  option_def *options;
  size_t n_options, cap_options;
  attr_value *attrs;
  char name[];
};

struct category {
  irm_kind_setup_fn prepare; /* run on every new kind (see kind.h) */
  irm_name_table kinds;      /* name -> irm_kind, kept */
  attr_name *attr_names;
  char name[];
};

/* Guards every option and attribute and a category's attribute names;
 * categories and kinds are name tables with their own locks, always taken
 * after this one. */
extern pthread_rwlock_t irm_kind_lock_;

/* After gone left its category's table (write lock held): forgets the
 * attribute names only gone had, so asking for them is an AttributeError
 * again, as before gone was registered. */
void irm_kind_forget_attr_names_locked_(irm_kind *gone);

/* RuntimeError: registering on a kind a journal rolled back. */
int irm_kind_detached_error_(const irm_kind *k);

#endif
