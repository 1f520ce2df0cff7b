/* export_library's units (backend/export/units.c, compile_jobs.c): the
 * generated C cut at its markers and compiled at once, a failing unit
 * named with the compiler's first error and no partial library left; and
 * link-params' weights as data (backend/aot/aot_params.c): the params
 * file .incbin'd at constant-byte-alignment, and a library linked with a
 * params file that does not match refused at load; the build ID and the
 * stack flag of what it links. Every test builds
 * with the cache off, so what it checks is the compile itself. */
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check_aot_util.h"
#include "check_util.h"
#include "irm_params.h"

/* aot, interface c, unpacked, link-params, constant-byte-alignment align. */
static irm_object *linked_executor(int64_t align) {
  const char *keys[] = {"interface-api", "unpacked-api", "link-params", "constant-byte-alignment"};
  irm_any vals[] = {irm_any_str("c"), irm_any_bool(true), irm_any_bool(true), irm_any_int(align)};
  return aot_executor(keys, vals, 4);
}

static int export_with(const irm_object *result, const char *path, int jobs, irm_export_options *o) {
  *o = (irm_export_options)IRM_EXPORT_OPTIONS_DEFAULT;
  o->jobs = jobs;
  o->cache = 0;
  o->progress = 0;
  return irm_build_export_library_with(result, path, o);
}

/* result with artifact name's text replaced by text (size bytes), NEW. */
static irm_object *with_artifact(const irm_object *result, const char *name, const char *text, size_t size) {
  irm_object *s = NULL, *files = NULL, *out = NULL;
  ck_assert_ok(irm_string_new(text, size, &s));
  irm_any v = irm_any_object(s);
  ck_assert_ok(irm_map_with_set(bu_part(result, "artifacts"), name, &v, &files));
  irm_any f = irm_any_object(files);
  ck_assert_ok(irm_map_with_set(result, "artifacts", &f, &out));
  irm_object_release(s);
  irm_object_release(files);
  return out;
}

START_TEST(test_units_compile_at_once_and_agree) {
  irm_module *m = aot_example("cnn");
  irm_object *e = linked_executor(16);
  irm_object *r = aot_build(m, "c", e, "crt", NULL, "un");
  const char *c = irm_string_data(aot_artifact(r, "tvmgen_un.c"));
  ck_assert_ptr_nonnull(strstr(c, "/* irm-unit: kernels_"));
  ck_assert_ptr_nonnull(strstr(c, "/* irm-unit: glue */\n"));
  for (int jobs = 1; jobs <= 2; jobs++) {
    char path[1024], tag[32];
    snprintf(tag, sizeof tag, "units_j%d", jobs);
    aot_path(tag, "lib.so", path, sizeof path);
    irm_export_options o;
    ck_assert_ok(export_with(r, path, jobs, &o));
    ck_assert_uint_ge(o.units, 3); /* kernels, the glue, the params' assembler unit */
    ck_assert_uint_eq(o.compiled, o.units);
    ck_assert_uint_eq(o.cache_hits, 0);
    irm_object *loaded = NULL;
    ck_assert_ok(irm_runtime_load(path, &loaded));
    aot_compare(m, loaded, 1, 3 + (uint64_t)jobs);
    irm_object_release(loaded);
  }
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* The library at path loaded and run against ir.Evaluate of m with params p. */
static void load_and_compare(const irm_module *m, const irm_object *p, const char *path, uint64_t seed) {
  irm_object *loaded = NULL;
  ck_assert_ok(irm_runtime_load(path, &loaded));
  aot_compare_with(m, p, loaded, 1, seed);
  irm_object_release(loaded);
}

static char warned[1024];
static void keep_warning(const char *msg, void *user) {
  (void)user;
  snprintf(warned, sizeof warned, "%s", msg);
}

START_TEST(test_jobs_from_the_environment) {
  irm_module *m = parse_module(AOT_MAIN);
  irm_object *p = aot_weight_params(), *e = linked_executor(16);
  irm_object *r = aot_build(m, "c", e, "crt", p, "jo");
  char path[1024];
  aot_path("units_jobs", "lib.so", path, sizeof path);
  irm_export_options o;
  irm_set_warning_handler(keep_warning, NULL);
  setenv("IRM_BUILD_JOBS", "1", 1);
  ck_assert_ok(export_with(r, path, 0, &o));
  ck_assert_str_eq(warned, "");
  setenv("IRM_BUILD_JOBS", "lots", 1); /* a warning, and the processors' count */
  ck_assert_ok(export_with(r, path, 0, &o));
  ck_assert_ptr_nonnull(strstr(warned, "IRM_BUILD_JOBS='lots' is not a job count"));
  unsetenv("IRM_BUILD_JOBS");
  irm_set_warning_handler(NULL, NULL);
  /* progress: drawn on stderr when asked (the default draws it on a terminal only) */
  char log[1024];
  aot_path("units_jobs", "stderr.txt", log, sizeof log);
  fflush(stderr);
  int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert_int_ge(fd, 0);
  dup2(fd, 2);
  o = (irm_export_options)IRM_EXPORT_OPTIONS_DEFAULT;
  o.cache = 0;
  o.progress = 1;
  int rc = irm_build_export_library_with(r, path, &o);
  o.progress = -1; /* stderr is a file: nothing more */
  if (!rc) rc = irm_build_export_library_with(r, path, &o);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  ck_assert_ok(rc);
  FILE *f = fopen(log, "r");
  char text[4096] = {0};
  size_t got = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[got] = '\0';
  ck_assert_msg(strstr(text, "\rirm: compiling 3/3 units (0 from the cache)\n") != NULL, "progress: %s", text);
  ck_assert_ptr_null(strstr(strstr(text, "\n") + 1, "compiling")); /* once: the second export drew nothing */
  load_and_compare(m, p, path, 9);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(p);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_failing_unit_is_named_and_leaves_no_library) {
  irm_module *m = aot_example("cnn");
  irm_object *e = linked_executor(16);
  irm_object *r = aot_build(m, "c", e, "crt", NULL, "fl");
  const char *c = irm_string_data(aot_artifact(r, "tvmgen_fl.c"));
  const char *glue = strstr(c, "/* irm-unit: glue */\n");
  ck_assert_ptr_nonnull(glue);
  glue += strlen("/* irm-unit: glue */\n");
  /* a planted error in the glue unit only */
  size_t head = (size_t)(glue - c), n = strlen(c);
  static const char planted[] = "#error planted failure\n";
  char *text = malloc(n + sizeof planted);
  memcpy(text, c, head);
  memcpy(text + head, planted, sizeof planted - 1);
  memcpy(text + head + sizeof planted - 1, glue, n - head);
  irm_object *bad = with_artifact(r, "tvmgen_fl.c", text, n + sizeof planted - 1);
  free(text);
  char path[1024], dir[1024];
  aot_path("units_fail", "lib.so", path, sizeof path);
  unlink(path);
  irm_export_options o;
  ck_assert_int_eq(export_with(bad, path, 2, &o), IRM_ERUNTIME);
  ck_assert_error_mentions("the compiler failed on 'tvmgen_fl__glue.c'");
  ck_assert_error_mentions("planted failure"); /* the compiler's first error */
  ck_assert_error_mentions("command: cd ");
  ck_assert_int_ne(access(path, F_OK), 0); /* no library */
  aot_path("units_fail", "", dir, sizeof dir);
  DIR *d = opendir(dir);
  struct dirent *ent;
  while ((ent = readdir(d))) ck_assert_msg(!strstr(ent->d_name, "irm-tmp"), "left behind: %s", ent->d_name);
  closedir(d);
  /* a library there before a failed export stays as it was */
  ck_assert_ok(export_with(r, path, 2, &o));
  struct stat before, after;
  ck_assert_int_eq(stat(path, &before), 0);
  ck_assert_int_eq(export_with(bad, path, 2, &o), IRM_ERUNTIME);
  ck_assert_int_eq(stat(path, &after), 0);
  ck_assert_int_eq(before.st_ino, after.st_ino);
  irm_object_release(bad);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* The linked params' address and size, read through the library's accessor. */
static const void *linked_params(const char *path, const char *mod_name, size_t *size, void **handle) {
  *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ck_assert_ptr_nonnull(*handle);
  char name[128];
  snprintf(name, sizeof name, "tvmgen_%s_linked_params", mod_name);
  const void *(*fn)(size_t *) = NULL;
  void *sym = dlsym(*handle, name);
  ck_assert_ptr_nonnull(sym);
  memcpy(&fn, &sym, sizeof fn);
  return fn(size);
}

START_TEST(test_incbin_params_aligned_and_exact) {
  irm_module *m = parse_module(AOT_MAIN);
  irm_object *p = aot_weight_params();
  int64_t aligns[] = {16, 128, 4096};
  for (size_t i = 0; i < 3; i++) {
    irm_object *e = linked_executor(aligns[i]);
    irm_object *r = aot_build(m, "c", e, "crt", p, "al");
    /* the weights are no C literals: the C file holds no byte of them */
    ck_assert_ptr_null(strstr(irm_string_data(aot_artifact(r, "tvmgen_al.c")), "0x1."));
    irm_object *bin = aot_artifact(r, "tvmgen_al_params.bin");
    char path[1024], tag[32];
    snprintf(tag, sizeof tag, "incbin_%lld", (long long)aligns[i]);
    aot_path(tag, "lib.so", path, sizeof path);
    irm_export_options o;
    ck_assert_ok(export_with(r, path, 2, &o));
    void *handle = NULL;
    size_t size = 0;
    const void *data = linked_params(path, "al", &size, &handle);
    ck_assert_uint_eq((uintptr_t)data % (uintptr_t)aligns[i], 0);
    ck_assert_uint_eq(size, irm_string_size(bin));
    ck_assert_int_eq(memcmp(data, irm_string_data(bin), size), 0);
    dlclose(handle);
    load_and_compare(m, p, path, 21);
    irm_object_release(r);
    irm_object_release(e);
  }
  irm_object_release(p);
  irm_object_release(m);
}
END_TEST

/* A params file of one float32 entry `name` of shape. */
static char *one_param(const char *name, const int64_t *shape, int ndim, size_t *size) {
  float data[64] = {0};
  DLTensor t = {data, {kDLCPU, 0}, ndim, {kDLFloat, 32, 1}, (int64_t *)shape, NULL, 0};
  const DLTensor *ts[] = {&t};
  ck_assert_int_eq(irm_params_write(NULL, 0, 1, &name, ts, size), IRM_PARAMS_OK);
  char *buf = malloc(*size);
  ck_assert_int_eq(irm_params_write((unsigned char *)buf, *size, 1, &name, ts, size), IRM_PARAMS_OK);
  return buf;
}

/* The library exported from result with its linked params file replaced. */
static int load_with_params(const irm_object *result, const char *bin_name, const char *tag, const char *blob,
                            size_t size) {
  irm_object *r = with_artifact(result, bin_name, blob, size);
  char path[1024];
  aot_path(tag, "lib.so", path, sizeof path);
  irm_export_options o;
  ck_assert_ok(export_with(r, path, 2, &o));
  irm_object *loaded = NULL;
  int rc = irm_runtime_load(path, &loaded);
  irm_object_release(loaded);
  irm_object_release(r);
  return rc;
}

START_TEST(test_mismatched_linked_params_refused_at_load) {
  irm_module *m = parse_module(AOT_MAIN);
  irm_object *p = aot_weight_params(), *e = linked_executor(16);
  irm_object *r = aot_build(m, "c", e, "crt", p, "mm");
  int64_t right[] = {2, 8}, wrong[] = {4, 4};
  size_t size = 0;
  char *blob = one_param("w", right, 2, &size);
  ck_assert_ok(load_with_params(r, "tvmgen_mm_params.bin", "mm_right", blob, size)); /* the same layout: taken */
  free(blob);
  blob = one_param("w", wrong, 2, &size); /* as many bytes, another shape */
  ck_assert_int_eq(load_with_params(r, "tvmgen_mm_params.bin", "mm_shape", blob, size), IRM_EVALUE);
  ck_assert_error_mentions("refuses the params linked into it");
  free(blob);
  blob = one_param("v", right, 2, &size); /* another name */
  ck_assert_int_eq(load_with_params(r, "tvmgen_mm_params.bin", "mm_name", blob, size), IRM_EVALUE);
  ck_assert_error_mentions("refuses the params linked into it");
  free(blob);
  ck_assert_int_eq(load_with_params(r, "tvmgen_mm_params.bin", "mm_junk", "not a params file", 17), IRM_EVALUE);
  irm_object_release(r);
  irm_object_release(e);
  /* the graph executor's loader checks its linked blob as it always did */
  const char *keys[] = {"link-params"};
  irm_any vals[] = {irm_any_bool(true)};
  irm_object *opts = new_map(keys, vals, 1);
  ck_assert_ok(irm_executor_create("graph", opts, &e));
  r = aot_build(m, "c", e, "cpp", p, "gm");
  blob = one_param("w", wrong, 2, &size);
  ck_assert_int_ne(load_with_params(r, "tvmgen_gm_params.bin", "gm_shape", blob, size), IRM_OK);
  free(blob);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(opts);
  irm_object_release(p);
  irm_object_release(m);
}
END_TEST

/* What dl_iterate_phdr tells of one loaded library: its GNU build ID (hex)
 * and whether its stack is executable. */
typedef struct elf_facts {
  const char *path;
  char build_id[2 * 64 + 1];
  int stack_seen, stack_exec;
} elf_facts;

static int read_facts(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  elf_facts *f = arg;
  if (!info->dlpi_name || !strstr(info->dlpi_name, f->path)) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_GNU_STACK) {
      f->stack_seen = 1;
      f->stack_exec = (ph->p_flags & PF_X) != 0;
    }
    if (ph->p_type != PT_NOTE) continue;
    const unsigned char *at = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr), *end = at + ph->p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)at;
      const unsigned char *name = at + sizeof *n, *desc = name + ((n->n_namesz + 3) & ~3u);
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 && n->n_descsz <= 64)
        for (unsigned k = 0; k < n->n_descsz; k++) snprintf(f->build_id + 2 * k, 3, "%02x", desc[k]);
      at = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

static elf_facts facts_of(const char *path) {
  elf_facts f = {path, "", 0, 0};
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ck_assert_ptr_nonnull(handle);
  dl_iterate_phdr(read_facts, &f);
  dlclose(handle);
  return f;
}

/* The build ID export_library gives (the library's key, where ld would
 * hash the output: 40 ms per 8 MB of linked weights) is the same for the
 * same build exported twice and differs for other weights; and the
 * assembler unit, which has no preprocessor, still marks the stack
 * non-executable (without its note ld makes it executable). */
START_TEST(test_build_id_tells_builds_apart_and_the_stack_stays_private) {
  irm_module *m = parse_module(AOT_MAIN);
  irm_object *p = aot_weight_params(), *e = linked_executor(64);
  irm_object *r = aot_build(m, "c", e, "crt", p, "bid");
  const char *asm_text = irm_string_data(aot_artifact(r, "tvmgen_bid_params.s"));
  ck_assert_ptr_null(strchr(asm_text, '#')); /* assembled as is: no preprocessor line */
  irm_object *bin = aot_artifact(r, "tvmgen_bid_params.bin");
  char *other = malloc(irm_string_size(bin));
  memcpy(other, irm_string_data(bin), irm_string_size(bin));
  other[irm_string_size(bin) - 1] ^= 1; /* the last byte of the last weight */
  irm_object *r2 = with_artifact(r, "tvmgen_bid_params.bin", other, irm_string_size(bin));
  char a[1024], b[1024], c[1024];
  aot_path("bid_a", "lib.so", a, sizeof a);
  aot_path("bid_b", "lib.so", b, sizeof b);
  aot_path("bid_c", "lib.so", c, sizeof c);
  irm_export_options o;
  ck_assert_ok(export_with(r, a, 2, &o));
  ck_assert_ok(export_with(r, b, 1, &o));
  ck_assert_ok(export_with(r2, c, 2, &o));
  elf_facts fa = facts_of(a), fb = facts_of(b), fc = facts_of(c);
  ck_assert_uint_eq(strlen(fa.build_id), 40);
  ck_assert_str_eq(fa.build_id, fb.build_id);
  ck_assert_str_ne(fa.build_id, fc.build_id);
  ck_assert_int_eq(fa.stack_seen, 1);
  ck_assert_int_eq(fa.stack_exec, 0);
  free(other);
  irm_object_release(r2);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(p);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("export_units");
  TCase *tc = tcase_create("export_units");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_units_compile_at_once_and_agree);
  tcase_add_test(tc, test_jobs_from_the_environment);
  tcase_add_test(tc, test_a_failing_unit_is_named_and_leaves_no_library);
  tcase_add_test(tc, test_incbin_params_aligned_and_exact);
  tcase_add_test(tc, test_mismatched_linked_params_refused_at_load);
  tcase_add_test(tc, test_build_id_tells_builds_apart_and_the_stack_stays_private);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
