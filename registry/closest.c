/* Closest-name suggestions for error messages ("did you mean 'x'?"). */
#include <ctype.h>
#include <string.h>

#include "irm/alloc.h"
#include "irm/error.h"

/* Longest name irm_closest_name compares: beyond it a name is no typo of a
 * registered one, and the search stays cheap whatever the input's size. */
enum { MAX_COMPARED = 64 };

static size_t min3(size_t a, size_t b, size_t c) {
  size_t m = a < b ? a : b;
  return m < c ? m : c;
}

static int same_char(char a, char b) { return tolower((unsigned char)a) == tolower((unsigned char)b); }

/* Optimal string alignment distance (Damerau-Levenshtein where an adjacent
 * transposition is one edit), ignoring case, with three rolling rows of
 * m + 1 entries each in rows. */
static size_t osa_distance(const char *a, size_t n, const char *b, size_t m, size_t *rows) {
  size_t *prev2 = rows, *prev = rows + (m + 1), *cur = rows + 2 * (m + 1);
  for (size_t j = 0; j <= m; j++) prev[j] = j;
  for (size_t i = 1; i <= n; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t cost = same_char(a[i - 1], b[j - 1]) ? 0 : 1;
      cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && same_char(a[i - 1], b[j - 2]) && same_char(a[i - 2], b[j - 1]) && prev2[j - 2] + 1 < cur[j])
        cur[j] = prev2[j - 2] + 1;
    }
    size_t *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[m];
}

size_t irm_edit_distance(const char *a, const char *b) {
  if (!a) a = "";
  if (!b) b = "";
  size_t n = strlen(a), m = strlen(b);
  if (n == 0) return m;
  if (m == 0) return n;
  size_t *rows = irm_malloc(3 * (m + 1) * sizeof *rows);
  if (!rows) return n > m ? n : m; /* no memory: claim "nothing alike" */
  size_t d = osa_distance(a, n, b, m, rows);
  irm_free(rows);
  return d;
}

const char *irm_closest_name(const char *name, const char *const *candidates, size_t n) {
  if (!name || !candidates) return NULL;
  size_t name_len = strnlen(name, MAX_COMPARED + 1);
  if (name_len > MAX_COMPARED) return NULL;
  size_t rows[3 * (MAX_COMPARED + 1)];
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    const char *c = candidates[i];
    if (!c) continue;
    size_t clen = strnlen(c, MAX_COMPARED + 1);
    if (clen > MAX_COMPARED) continue;
    size_t longer = name_len > clen ? name_len : clen;
    size_t limit = longer / 3 > 2 ? longer / 3 : 2;
    /* The distance is at least the difference in length. */
    if (longer - (name_len < clen ? name_len : clen) > limit) continue;
    size_t d = name_len == 0 ? clen : clen == 0 ? name_len : osa_distance(name, name_len, c, clen, rows);
    /* A full rewrite of a short name is no typo, whatever the limit says. */
    if (d > limit || d >= longer) continue;
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}
