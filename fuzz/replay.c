/* Runs a harness's LLVMFuzzerTestOneInput over every file of the
 * directories (or files) given, without libFuzzer: the corpora in
 * fuzz/corpus/<name>/ are regression tests in every build. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return perror(path), 1;
  uint8_t *data = NULL;
  size_t size = 0, cap = 0, got;
  do {
    if (size == cap && !(data = realloc(data, cap = cap ? 2 * cap : 4096))) abort();
    got = fread(data + size, 1, cap - size, f);
    size += got;
  } while (got);
  int failed = ferror(f);
  fclose(f);
  if (failed) perror(path);
  else LLVMFuzzerTestOneInput(data, size);
  free(data);
  return failed;
}

static int name_order(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Runs every regular file of dir, in name order so runs repeat. */
static int run_dir(const char *dir, size_t *count) {
  DIR *d = opendir(dir);
  if (!d) return perror(dir), 1;
  char **paths = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (!(paths = realloc(paths, (n + 1) * sizeof *paths))) abort();
    if (!(paths[n] = malloc(strlen(dir) + strlen(e->d_name) + 2))) abort();
    sprintf(paths[n++], "%s/%s", dir, e->d_name);
  }
  closedir(d);
  qsort(paths, n, sizeof *paths, name_order);
  int failed = 0;
  for (size_t i = 0; i < n; i++) {
    failed |= run_file(paths[i]);
    free(paths[i]);
  }
  free(paths);
  *count += n;
  return failed;
}

int main(int argc, char **argv) {
  size_t count = 0;
  int failed = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st)) failed = (perror(argv[i]), 1);
    else if (S_ISDIR(st.st_mode)) failed |= run_dir(argv[i], &count);
    else failed |= run_file(argv[i]), count++;
  }
  printf("%s: %zu inputs replayed\n", argc > 0 ? argv[0] : "replay", count);
  return failed || count == 0;
}
