/* Closest-name suggestions for error messages ("did you mean 'x'?"). */
#include <ctype.h>
#include <string.h>

#include "irm/alloc.h"
#include "irm/error.h"

static size_t min3(size_t a, size_t b, size_t c) {
  size_t m = a < b ? a : b;
  return m < c ? m : c;
}

static int same_char(char a, char b) {
  return tolower((unsigned char)a) == tolower((unsigned char)b);
}

/* Optimal string alignment distance (Damerau-Levenshtein where an adjacent
 * transposition is one edit), ignoring case, with three rolling rows. */
size_t irm_edit_distance(const char *a, const char *b) {
  if (!a) a = "";
  if (!b) b = "";
  size_t n = strlen(a), m = strlen(b);
  if (n == 0) return m;
  if (m == 0) return n;
  size_t *rows = irm_malloc(3 * (m + 1) * sizeof *rows);
  if (!rows) return n > m ? n : m; /* no memory: claim "nothing alike" */
  size_t *prev2 = rows, *prev = rows + (m + 1), *cur = rows + 2 * (m + 1);
  for (size_t j = 0; j <= m; j++) prev[j] = j;
  for (size_t i = 1; i <= n; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t cost = same_char(a[i - 1], b[j - 1]) ? 0 : 1;
      cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && same_char(a[i - 1], b[j - 2]) && same_char(a[i - 2], b[j - 1]) &&
          prev2[j - 2] + 1 < cur[j])
        cur[j] = prev2[j - 2] + 1;
    }
    size_t *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  size_t d = prev[m];
  irm_free(rows);
  return d;
}

const char *irm_closest_name(const char *name, const char *const *candidates, size_t n) {
  if (!name || !candidates) return NULL;
  size_t name_len = strlen(name);
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    const char *c = candidates[i];
    if (!c) continue;
    size_t clen = strlen(c);
    size_t longer = name_len > clen ? name_len : clen;
    size_t limit = longer / 3 > 2 ? longer / 3 : 2;
    size_t d = irm_edit_distance(name, c);
    /* A full rewrite of a short name is no typo, whatever the limit says. */
    if (d > limit || d >= longer) continue;
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}
