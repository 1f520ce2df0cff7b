/* runtime/include/irm_params.h alone (no libirm): a round trip of the
 * params file, lookups by name and index, checked finds, finds of many
 * names in one walk over a file of many entries, and every malformed blob
 * refused with its code. */
#include <stdio.h>
#include <check.h>
#include <stdlib.h>

#include "irm_params.h"

static DLTensor tensor(void *data, int32_t ndim, int64_t *shape, uint8_t code, uint8_t bits) {
  DLTensor t = {0};
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.shape = shape;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = 1;
  return t;
}

static unsigned char *blob_of(size_t *size) {
  static float w[6] = {1, 2, 3, 4, 5, 6};
  static int32_t b[2] = {-7, 9};
  static int64_t ws[2] = {2, 3}, bs[1] = {2};
  DLTensor t0 = tensor(w, 2, ws, kDLFloat, 32), t1 = tensor(b, 1, bs, kDLInt, 32);
  const DLTensor *ts[] = {&t0, &t1};
  const char *names[] = {"weight", "bias"};
  ck_assert_int_eq(irm_params_write(NULL, 0, 2, names, ts, size), IRM_PARAMS_OK);
  unsigned char *buf = malloc(*size);
  size_t again = 0;
  ck_assert_int_eq(irm_params_write(buf, *size, 2, names, ts, &again), IRM_PARAMS_OK);
  ck_assert_uint_eq(again, *size);
  return buf;
}

START_TEST(test_round_trip) {
  size_t size = 0;
  unsigned char *buf = blob_of(&size);
  /* magic, reserved, 2 names (8 + 6, 8 + 4), count, then two arrays */
  ck_assert_uint_eq(size,
                    8 + 8 + 8 + 14 + 12 + 8 + (8 + 8 + 8 + 4 + 4 + 16 + 8 + 24) + (8 + 8 + 8 + 4 + 4 + 8 + 8 + 8));
  uint64_t n = 0;
  ck_assert_int_eq(irm_params_count(buf, size, &n), IRM_PARAMS_OK);
  ck_assert_uint_eq(n, 2);
  irm_params_entry e;
  ck_assert_int_eq(irm_params_get(buf, size, 1, &e), IRM_PARAMS_OK);
  ck_assert_uint_eq(e.name_len, 4);
  ck_assert(memcmp(e.name, "bias", 4) == 0);
  ck_assert_int_eq(e.ndim, 1);
  ck_assert_int_eq(e.shape[0], 2);
  int32_t b[2];
  memcpy(b, e.data, sizeof b);
  ck_assert_int_eq(b[0], -7);
  ck_assert_int_eq(b[1], 9);
  ck_assert_int_eq(irm_params_find(buf, size, "weight", &e), IRM_PARAMS_OK);
  ck_assert_uint_eq(e.nbytes, 24);
  float w[6];
  memcpy(w, e.data, sizeof w);
  ck_assert(w[5] == 6.0f);
  int64_t shape[] = {2, 3}, wrong[] = {3, 2};
  ck_assert_int_eq(irm_params_find_as(buf, size, "weight", kDLFloat, 32, 2, shape, 24, &e), IRM_PARAMS_OK);
  ck_assert_int_eq(irm_params_find_as(buf, size, "weight", kDLFloat, 32, 2, wrong, 24, &e), IRM_PARAMS_ESIZE);
  ck_assert_int_eq(irm_params_find_as(buf, size, "weight", kDLInt, 32, 2, shape, 24, &e), IRM_PARAMS_ESIZE);
  ck_assert_int_eq(irm_params_find(buf, size, "nothing", &e), IRM_PARAMS_EINDEX);
  ck_assert_int_eq(irm_params_get(buf, size, 2, &e), IRM_PARAMS_EINDEX);
  free(buf);
}
END_TEST

/* Issue 39, D7: a file of 100000 entries is read in one walk per lookup
 * (the old reader rescanned it per entry: hours, not milliseconds). */
START_TEST(test_many_entries_read_in_linear_time) {
  enum { N = 100000 };
  static char names_buf[N][12];
  static const char *names[N];
  static DLTensor ts[N];
  static const DLTensor *tp[N];
  static float value[N];
  for (size_t i = 0; i < N; i++) {
    snprintf(names_buf[i], sizeof names_buf[i], "p%06zu", i);
    names[i] = names_buf[i];
    value[i] = (float)i;
    ts[i] = tensor(&value[i], 0, NULL, kDLFloat, 32);
    tp[i] = &ts[i];
  }
  size_t size = 0;
  ck_assert_int_eq(irm_params_write(NULL, 0, N, names, tp, &size), IRM_PARAMS_OK);
  unsigned char *buf = malloc(size);
  ck_assert_int_eq(irm_params_write(buf, size, N, names, tp, &size), IRM_PARAMS_OK);
  irm_params_entry e, found[3];
  float v = 0;
  ck_assert_int_eq(irm_params_find(buf, size, "p099999", &e), IRM_PARAMS_OK);
  memcpy(&v, e.data, 4);
  ck_assert(v == 99999.0f);
  ck_assert_int_eq(irm_params_get(buf, size, N - 2, &e), IRM_PARAMS_OK);
  ck_assert(e.name_len == 7 && memcmp(e.name, "p099998", 7) == 0);
  int64_t none[1] = {0};
  for (int k = 0; k < 5; k++) /* generated set_params: found and checked one by one */
    ck_assert_int_eq(irm_params_find_as(buf, size, "p050000", kDLFloat, 32, 0, none, 4, &e), IRM_PARAMS_OK);
  /* all at once, sorted names, a binary search per entry */
  const char *want[] = {"p000007", "p050000", "p099999"};
  ck_assert_int_eq(irm_params_find_sorted(buf, size, want, 3, found, NULL), IRM_PARAMS_OK);
  memcpy(&v, found[1].data, 4);
  ck_assert(v == 50000.0f);
  const char *missing[] = {"p000007", "p2", "q"};
  size_t at = 99;
  ck_assert_int_eq(irm_params_find_sorted(buf, size, missing, 3, found, &at), IRM_PARAMS_EINDEX);
  ck_assert_uint_eq(at, 1);
  ck_assert_int_eq(irm_params_check_as(&found[0], kDLFloat, 32, 0, none, 4), IRM_PARAMS_OK);
  ck_assert_int_eq(irm_params_check_as(&found[0], kDLFloat, 64, 0, none, 4), IRM_PARAMS_ESIZE);
  free(buf);
}
END_TEST

START_TEST(test_malformed_blobs_are_refused) {
  size_t size = 0;
  unsigned char *buf = blob_of(&size);
  uint64_t n = 0;
  for (size_t cut = 0; cut < size; cut++) /* every truncation */
    ck_assert_int_eq(irm_params_count(buf, cut, &n), IRM_PARAMS_ETRUNCATED);
  buf[0] ^= 1;
  ck_assert_int_eq(irm_params_count(buf, size, &n), IRM_PARAMS_EMAGIC);
  buf[0] ^= 1;
  size_t count_at = 8 + 8 + 8 + 14 + 12; /* the arrays' count */
  buf[count_at] = 3;
  ck_assert_int_eq(irm_params_count(buf, size, &n), IRM_PARAMS_ECOUNT);
  buf[count_at] = 2;
  size_t first = count_at + 8; /* the first array's magic */
  buf[first] ^= 1;
  ck_assert_int_eq(irm_params_count(buf, size, &n), IRM_PARAMS_EMAGIC);
  buf[first] ^= 1;
  buf[first + 16] = 2; /* device type CUDA */
  ck_assert_int_eq(irm_params_count(buf, size, &n), IRM_PARAMS_EDEVICE);
  buf[first + 16] = 1;
  buf[first + 24] = 99; /* ndim */
  ck_assert_int_eq(irm_params_count(buf, size, &n), IRM_PARAMS_ENDIM);
  buf[first + 24] = 2;
  buf[first + 32 + 16] = 25; /* byte size no longer 24 */
  ck_assert_int_eq(irm_params_count(buf, size, &n), IRM_PARAMS_ESIZE);
  buf[first + 32 + 16] = 24;
  ck_assert_int_eq(irm_params_count(buf, size, &n), IRM_PARAMS_OK);
  ck_assert_str_eq(irm_params_strerror(IRM_PARAMS_EMAGIC), "bad magic number (not a params file)");
  free(buf);
}
END_TEST

int main(void) {
  Suite *s = suite_create("params");
  TCase *tc = tcase_create("params");
  tcase_add_test(tc, test_round_trip);
  tcase_add_test(tc, test_many_entries_read_in_linear_time);
  tcase_add_test(tc, test_malformed_blobs_are_refused);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
