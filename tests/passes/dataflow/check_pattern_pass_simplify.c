#include "check_util.h"
START_TEST(test_x) { ck_assert(1); } END_TEST
int main(void) { Suite *s = suite_create("x"); TCase *tc = tcase_create("c"); tcase_add_test(tc, test_x); suite_add_tcase(s, tc); return run_suite(s); }
