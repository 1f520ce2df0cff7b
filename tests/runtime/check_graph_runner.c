/* The graph runner of runtime/ on its own (irm_graph_runner.h, no libirm):
 * hand-written graphs over kernels defined here and bound through a
 * resolver; inputs, params, outputs; every malformed graph JSON and params
 * blob refused with a message naming what is wrong; truncated and mutated
 * graphs never crash. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_crt.h"
#include "irm_graph_runner.h"
#include "irm_params.h"

/* ---- kernels ------------------------------------------------------------------------ */

static int32_t k_add(void *args, int32_t *codes, int32_t n, void *ret, int32_t *ret_code, void *resource) {
  (void)ret, (void)ret_code, (void)resource;
  int32_t err = 0;
  if (n != 3) return IRM_CRT_EARGS;
  float *a = irm_crt_tensor_arg(args, codes, 0, kDLFloat, 32, 4, &err);
  float *b = err ? NULL : irm_crt_tensor_arg(args, codes, 1, kDLFloat, 32, 4, &err);
  float *o = err ? NULL : irm_crt_tensor_arg(args, codes, 2, kDLFloat, 32, 4, &err);
  if (err) return err;
  for (int i = 0; i < 4; i++) o[i] = a[i] + b[i];
  return 0;
}

static int32_t k_neg(void *args, int32_t *codes, int32_t n, void *ret, int32_t *ret_code, void *resource) {
  (void)ret, (void)ret_code, (void)resource;
  int32_t err = 0;
  if (n != 2) return IRM_CRT_EARGS;
  float *a = irm_crt_tensor_arg(args, codes, 0, kDLFloat, 32, 4, &err);
  float *o = err ? NULL : irm_crt_tensor_arg(args, codes, 1, kDLFloat, 32, 4, &err);
  if (err) return err;
  for (int i = 0; i < 4; i++) o[i] = -a[i];
  return 0;
}

static int32_t k_fail(void *args, int32_t *codes, int32_t n, void *ret, int32_t *ret_code, void *resource) {
  (void)args, (void)codes, (void)n, (void)ret, (void)ret_code, (void)resource;
  return IRM_CRT_EKERNEL;
}

static void *resolve(void *ctx, const char *name) {
  (void)ctx;
  if (strcmp(name, "add_packed") == 0) return (void *)(uintptr_t)k_add;
  if (strcmp(name, "neg_packed") == 0) return (void *)(uintptr_t)k_neg;
  if (strcmp(name, "fail_packed") == 0) return (void *)(uintptr_t)k_fail;
  return NULL;
}

/* x + y -> t; -t -> out. Entries: x 0, y 1, t 2, out 3; t and out could
 * not share (t is read by the node writing out). */
static const char GRAPH[] =
    "{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"inputs\": []},"
    " {\"op\": \"null\", \"name\": \"y\", \"inputs\": []},"
    " {\"op\": \"tvm_op\", \"name\": \"add\", \"attrs\": {\"func_name\": \"add_packed\", \"num_inputs\": \"2\","
    " \"num_outputs\": \"1\", \"flatten_data\": \"0\"}, \"inputs\": [[0, 0, 0], [1, 0, 0]]},"
    " {\"op\": \"tvm_op\", \"name\": \"neg\", \"attrs\": {\"func_name\": \"neg_packed\", \"num_inputs\": \"1\","
    " \"num_outputs\": \"1\", \"flatten_data\": \"0\", \"scratch_bytes\": \"16\"}, \"inputs\": [[2, 0, 0]]}],"
    " \"arg_nodes\": [0, 1], \"heads\": [[3, 0, 0]],"
    " \"attrs\": {\"dltype\": [\"list_str\", [\"float32\", \"float32\", \"float32\", \"float32\"]],"
    " \"storage_id\": [\"list_int\", [0, 1, 2, 3]],"
    " \"shape\": [\"list_shape\", [[4], [4], [4], [4]]]},"
    " \"node_row_ptr\": [0, 1, 2, 3, 4]}";

static irm_graph_runner *make(const char *json) {
  irm_graph_runner *r = NULL;
  char err[512] = "";
  int rc = irm_graph_runner_create(json, strlen(json), resolve, NULL, &r, err, sizeof err);
  ck_assert_msg(rc == 0, "create failed: %s", err);
  return r;
}

/* create must fail with code and a message containing want. */
static void refused(const char *json, int code, const char *want) {
  irm_graph_runner *r = (irm_graph_runner *)1;
  char err[512] = "";
  ck_assert_int_eq(irm_graph_runner_create(json, strlen(json), resolve, NULL, &r, err, sizeof err), code);
  ck_assert_ptr_null(r);
  ck_assert_msg(strstr(err, want) != NULL, "message '%s' lacks '%s'", err, want);
}

/* GRAPH with the first `from` replaced by `to`. */
static char *edited(const char *from, const char *to) {
  const char *at = strstr(GRAPH, from);
  ck_assert_ptr_nonnull(at);
  char *out = malloc(sizeof GRAPH + strlen(to));
  size_t pre = (size_t)(at - GRAPH);
  memcpy(out, GRAPH, pre);
  strcpy(out + pre, to);
  strcat(out, at + strlen(from));
  return out;
}

static DLTensor f32(float *data, int64_t *shape, int32_t ndim) {
  DLTensor t;
  irm_crt_tensor_view(&t, data, ndim, shape, kDLFloat, 32);
  return t;
}

START_TEST(test_runs_by_index_and_name) {
  irm_graph_runner *r = make(GRAPH);
  ck_assert_uint_eq(irm_graph_runner_num_inputs(r), 2);
  ck_assert_uint_eq(irm_graph_runner_num_outputs(r), 1);
  const char *name = NULL;
  DLDataType dt;
  int32_t nd = 0;
  const int64_t *shape = NULL;
  ck_assert_int_eq(irm_graph_runner_input_info(r, 1, &name, &dt, &nd, &shape), 0);
  ck_assert_str_eq(name, "y");
  ck_assert_int_eq(nd, 1);
  ck_assert_int_eq(shape[0], 4);
  ck_assert_int_eq(dt.code, kDLFloat);
  ck_assert_int_eq(irm_graph_runner_output_info(r, 0, &dt, &nd, &shape), 0);
  ck_assert_int_eq(shape[0], 4);
  float x[] = {1, 2, 3, 4}, y[] = {10, 20, 30, 40}, out[4] = {0};
  int64_t s4[] = {4};
  DLTensor tx = f32(x, s4, 1), ty = f32(y, s4, 1), to = f32(out, s4, 1);
  ck_assert_int_eq(irm_graph_runner_set_input(r, 0, &tx), 0);
  /* y never set */
  ck_assert_int_eq(irm_graph_runner_run(r), IRM_GRAPH_EUNSET);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "input 'y' was never set"));
  ck_assert_int_eq(irm_graph_runner_set_input_by_name(r, "y", &ty), 0);
  ck_assert_int_eq(irm_graph_runner_run(r), 0);
  ck_assert_int_eq(irm_graph_runner_get_output(r, 0, &to), 0);
  for (int i = 0; i < 4; i++) ck_assert_float_eq(out[i], -(x[i] + y[i]));
  size_t shared = 0, unshared = 0;
  irm_graph_runner_storage_bytes(r, &shared, &unshared);
  ck_assert_uint_eq(shared, 64);
  ck_assert_uint_eq(unshared, 64);
  irm_graph_runner_free(r);
}
END_TEST

/* TVM's __nop (issue 40): a reshape sharing its input's storage; the
 * runner runs nothing for it, and the next node reads the same bytes. */
static const char NOP_GRAPH[] =
    "{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"inputs\": []},"
    " {\"op\": \"null\", \"name\": \"y\", \"inputs\": []},"
    " {\"op\": \"tvm_op\", \"name\": \"add\", \"attrs\": {\"func_name\": \"add_packed\", \"num_inputs\": \"2\","
    " \"num_outputs\": \"1\", \"flatten_data\": \"0\"}, \"inputs\": [[0, 0, 0], [1, 0, 0]]},"
    " {\"op\": \"tvm_op\", \"name\": \"reshape\", \"attrs\": {\"func_name\": \"__nop\", \"num_inputs\": \"1\","
    " \"num_outputs\": \"1\", \"flatten_data\": \"0\"}, \"inputs\": [[2, 0, 0]]},"
    " {\"op\": \"tvm_op\", \"name\": \"neg\", \"attrs\": {\"func_name\": \"neg_packed\", \"num_inputs\": \"1\","
    " \"num_outputs\": \"1\", \"flatten_data\": \"0\"}, \"inputs\": [[3, 0, 0]]}],"
    " \"arg_nodes\": [0, 1], \"heads\": [[4, 0, 0]],"
    " \"attrs\": {\"dltype\": [\"list_str\", [\"float32\", \"float32\", \"float32\", \"float32\", \"float32\"]],"
    " \"storage_id\": [\"list_int\", [0, 1, 2, 2, 3]],"
    " \"shape\": [\"list_shape\", [[4], [4], [4], [2, 2], [4]]]},"
    " \"node_row_ptr\": [0, 1, 2, 3, 4, 5]}";

START_TEST(test_nop_nodes_run_nothing_and_share_storage) {
  irm_graph_runner *r = make(NOP_GRAPH);
  float x[] = {1, 2, 3, 4}, y[] = {10, 20, 30, 40}, out[4] = {0};
  int64_t s4[] = {4};
  DLTensor tx = f32(x, s4, 1), ty = f32(y, s4, 1), to = f32(out, s4, 1);
  ck_assert_int_eq(irm_graph_runner_set_input(r, 0, &tx), 0);
  ck_assert_int_eq(irm_graph_runner_set_input(r, 1, &ty), 0);
  ck_assert_int_eq(irm_graph_runner_run(r), 0);
  ck_assert_int_eq(irm_graph_runner_get_output(r, 0, &to), 0);
  for (int i = 0; i < 4; i++) ck_assert_float_eq(out[i], -(x[i] + y[i]));
  irm_graph_runner_free(r);
}
END_TEST

START_TEST(test_set_output_zero_copy) {
  float x[] = {1, 2, 3, 4}, y[] = {10, 20, 30, 40}, out[4] = {0}, other[4] = {7, 7, 7, 7};
  int64_t s4[] = {4}, s3[] = {3};
  DLTensor tx = f32(x, s4, 1), ty = f32(y, s4, 1), to = f32(out, s4, 1), tother = f32(other, s4, 1);
  /* out's storage holds nothing else: the kernel writes into out itself */
  irm_graph_runner *r = make(GRAPH);
  ck_assert_int_eq(irm_graph_runner_set_input(r, 0, &tx), 0);
  ck_assert_int_eq(irm_graph_runner_set_input(r, 1, &ty), 0);
  ck_assert_int_eq(irm_graph_runner_set_output_zero_copy(r, 0, &to), 0);
  for (int k = 1; k <= 2; k++) { /* later runs keep writing there */
    x[0] = (float)k;
    ck_assert_int_eq(irm_graph_runner_set_input(r, 0, &tx), 0);
    ck_assert_int_eq(irm_graph_runner_run(r), 0);
    for (int i = 0; i < 4; i++) ck_assert_float_eq(out[i], -(x[i] + y[i]));
  }
  ck_assert_int_eq(irm_graph_runner_get_output(r, 0, &tother), 0); /* reads the bound memory */
  for (int i = 0; i < 4; i++) ck_assert_float_eq(other[i], out[i]);
  /* unbound: the runner's own storage was never written (no copy happened) */
  ck_assert_int_eq(irm_graph_runner_set_output_zero_copy(r, 0, NULL), 0);
  ck_assert_int_eq(irm_graph_runner_get_output(r, 0, &tother), 0);
  for (int i = 0; i < 4; i++) ck_assert_float_eq(other[i], 0);
  ck_assert_int_eq(irm_graph_runner_run(r), 0);
  ck_assert_int_eq(irm_graph_runner_get_output(r, 0, &tother), 0);
  for (int i = 0; i < 4; i++) ck_assert_float_eq(other[i], out[i]);
  /* errors change nothing */
  DLTensor bad = f32(other, s3, 1);
  ck_assert_int_eq(irm_graph_runner_set_output_zero_copy(r, 0, &bad), IRM_GRAPH_EARG);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "set_output_zero_copy 0: expected shape (4,), got (3,)"));
  ck_assert_int_eq(irm_graph_runner_set_output_zero_copy(r, 1, &to), IRM_GRAPH_EARG);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "output 1 out of range (1 outputs)"));
  irm_graph_runner_free(r);
  /* out sharing x's storage cannot be bound: each run copies it at its end */
  char *shared = edited("[0, 1, 2, 3]]", "[0, 1, 2, 0]]");
  r = make(shared);
  free(shared);
  memset(out, 0, sizeof out);
  x[0] = 1;
  ck_assert_int_eq(irm_graph_runner_set_input(r, 0, &tx), 0);
  ck_assert_int_eq(irm_graph_runner_set_input(r, 1, &ty), 0);
  ck_assert_int_eq(irm_graph_runner_set_output_zero_copy(r, 0, &to), 0);
  ck_assert_int_eq(irm_graph_runner_run(r), 0);
  for (int i = 0; i < 4; i++) ck_assert_float_eq(out[i], -(x[i] + y[i]));
  irm_graph_runner_free(r);
}
END_TEST

START_TEST(test_wrong_arguments) {
  irm_graph_runner *r = make(GRAPH);
  float x[6] = {0};
  int64_t s4[] = {4}, s6[] = {6}, s22[] = {2, 2};
  DLTensor t6 = f32(x, s6, 1), t22 = f32(x, s22, 2), t4 = f32(x, s4, 1);
  ck_assert_int_eq(irm_graph_runner_set_input(r, 0, &t6), IRM_GRAPH_EARG);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "input 0 ('x'): expected shape (4,), got (6,)"));
  ck_assert_int_eq(irm_graph_runner_set_input(r, 0, &t22), IRM_GRAPH_EARG);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "got (2, 2)"));
  t4.dtype.code = kDLInt;
  ck_assert_int_eq(irm_graph_runner_set_input(r, 0, &t4), IRM_GRAPH_EARG);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "expected dtype float32, got int32"));
  t4 = f32(x, s4, 1);
  ck_assert_int_eq(irm_graph_runner_set_input(r, 2, &t4), IRM_GRAPH_EARG);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "input 2 out of range (2 inputs)"));
  ck_assert_int_eq(irm_graph_runner_set_input_by_name(r, "z", &t4), IRM_GRAPH_EARG);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "no input named 'z' (the inputs: 'x', 'y')"));
  ck_assert_int_eq(irm_graph_runner_set_input(r, 0, NULL), IRM_GRAPH_EARG);
  ck_assert_int_eq(irm_graph_runner_get_output(r, 1, &t4), IRM_GRAPH_EARG);
  ck_assert_int_eq(irm_graph_runner_get_output(r, 0, &t6), IRM_GRAPH_EARG);
  ck_assert_int_eq(irm_graph_runner_input_info(r, 5, NULL, NULL, NULL, NULL), IRM_GRAPH_EARG);
  ck_assert_int_eq(irm_graph_runner_output_info(r, 5, NULL, NULL, NULL), IRM_GRAPH_EARG);
  irm_graph_runner_free(r);
  irm_graph_runner_free(NULL);
}
END_TEST

/* A params blob of the named float32 tensors of shape (n,). */
static unsigned char *blob_of(const char *const *names, const int64_t *n, size_t count, DLDataType dt, size_t *size) {
  static float data[64];
  DLTensor t[4];
  int64_t shapes[4][1];
  const DLTensor *ts[4];
  for (size_t k = 0; k < count; k++) {
    shapes[k][0] = n[k];
    irm_crt_tensor_view(&t[k], data, 1, shapes[k], dt.code, dt.bits);
    ts[k] = &t[k];
  }
  ck_assert_int_eq(irm_params_write(NULL, 0, count, names, ts, size), 0);
  unsigned char *b = malloc(*size);
  ck_assert_int_eq(irm_params_write(b, *size, count, names, ts, size), 0);
  return b;
}

START_TEST(test_params) {
  irm_graph_runner *r = make(GRAPH);
  DLDataType f = {kDLFloat, 32, 1}, i = {kDLInt, 32, 1};
  const char *y[] = {"y"}, *z[] = {"z"};
  int64_t four[] = {4}, five[] = {5};
  size_t size = 0;
  unsigned char *b = blob_of(z, four, 1, f, &size);
  ck_assert_int_eq(irm_graph_runner_load_params(r, b, size), IRM_GRAPH_EPARAMS);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "params entry 'z': the graph has no input of that name"));
  free(b);
  b = blob_of(y, five, 1, f, &size);
  ck_assert_int_eq(irm_graph_runner_load_params(r, b, size), IRM_GRAPH_EPARAMS);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "params entry 'y': expected shape (4,), got (5,)"));
  free(b);
  b = blob_of(y, four, 1, i, &size);
  ck_assert_int_eq(irm_graph_runner_load_params(r, b, size), IRM_GRAPH_EPARAMS);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "expected dtype float32, got int32"));
  free(b);
  b = blob_of(y, four, 1, f, &size);
  ck_assert_int_eq(irm_graph_runner_load_params(r, b, size - 1), IRM_GRAPH_EPARAMS);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "truncated"));
  b[0] ^= 1;
  ck_assert_int_eq(irm_graph_runner_load_params(r, b, size), IRM_GRAPH_EPARAMS);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "magic"));
  b[0] ^= 1;
  ck_assert_uint_eq(irm_graph_runner_num_inputs(r), 2); /* the failures changed nothing */
  ck_assert_int_eq(irm_graph_runner_load_params(r, b, size), 0);
  ck_assert_uint_eq(irm_graph_runner_num_inputs(r), 1);
  size_t idx = 9;
  ck_assert_int_eq(irm_graph_runner_input_index(r, "x", &idx), 0);
  ck_assert_uint_eq(idx, 0);
  ck_assert_int_eq(irm_graph_runner_input_index(r, "y", &idx), IRM_GRAPH_EARG);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "'y' is a parameter"));
  ck_assert_int_eq(irm_graph_runner_run(r), IRM_GRAPH_EUNSET);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "'x'"));
  free(b);
  irm_graph_runner_free(r);
}
END_TEST

START_TEST(test_malformed_graphs) {
  refused("{\"nodes\": [", IRM_GRAPH_EJSON, "graph JSON: line 1, column");
  refused("[]", IRM_GRAPH_EJSON, "an object with a \"nodes\" list");
  refused("", IRM_GRAPH_EJSON, "line");
  struct {
    const char *from, *to;
    int code;
    const char *want;
  } cases[] = {
      {"\"node_row_ptr\": [0, 1, 2, 3, 4]", "\"node_row_ptr\": [0, 1, 2]", IRM_GRAPH_EJSON,
       "node_row_ptr must be a list of 5"},
      {"\"node_row_ptr\": [0, 1, 2, 3, 4]", "\"node_row_ptr\": [0, 2, 1, 3, 4]", IRM_GRAPH_EJSON, "node_row_ptr[2]"},
      {"[[2, 0, 0]]", "[[3, 0, 0]]", IRM_GRAPH_EJSON, "node 3 ('neg'): input 0 must be [node, index, version]"},
      {"[[2, 0, 0]]", "[[2, 1, 0]]", IRM_GRAPH_EJSON, "node 3 ('neg'): input 0"},
      {"[[2, 0, 0]]", "[[-1, 0, 0]]", IRM_GRAPH_EJSON, "input 0"},
      {"\"neg_packed\"", "\"nope_packed\"", IRM_GRAPH_EKERNEL, "node 3 ('neg'): no kernel 'nope_packed'"},
      {"\"num_inputs\": \"1\"", "\"num_inputs\": \"2\"", IRM_GRAPH_EJSON, "num_inputs 2"},
      {"\"num_inputs\": \"1\"", "\"num_inputs\": \"x\"", IRM_GRAPH_EJSON, "attrs need func_name"},
      {"\"op\": \"tvm_op\", \"name\": \"neg\"", "\"op\": \"conv\", \"name\": \"neg\"", IRM_GRAPH_EJSON, "op must be"},
      {"\"float32\", \"float32\"]]", "\"float32\", \"complex9\"]]", IRM_GRAPH_EJSON,
       "attrs.dltype[3] is no supported dtype (complex9)"},
      {"[0, 1, 2, 3]", "[0, 1, 2, 4]", IRM_GRAPH_EJSON, "attrs.storage_id[3]"},
      {"[0, 1, 2, 3]", "[0, 1, 2]", IRM_GRAPH_EJSON, "attrs.storage_id must be"},
      {"\"list_shape\"", "\"list_int\"", IRM_GRAPH_EJSON, "attrs.shape must be"},
      {"[[4], [4], [4], [4]]", "[[4], [4], [4], [-4]]", IRM_GRAPH_EJSON, "attrs.shape[3][0]"},
      {"[[4], [4], [4], [4]]", "[[4], [4], [4], [1099511627776, 1099511627776]]", IRM_GRAPH_EJSON, "attrs.shape[3]"},
      {"[[4], [4], [4], [4]]", "[[4], [4], [4], [4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4]]", IRM_GRAPH_EJSON, "at most 16"},
      {"\"arg_nodes\": [0, 1]", "\"arg_nodes\": [0, 2]", IRM_GRAPH_EJSON,
       "arg_nodes[1] must be the index of a \"null\" node"},
      {"\"arg_nodes\": [0, 1]", "\"arg_nodes\": [0, 0]", IRM_GRAPH_EJSON, "lists node 0 twice"},
      {"\"arg_nodes\": [0, 1]", "\"arg_nodes\": [0]", IRM_GRAPH_EJSON, "\"null\" node 1 is not in arg_nodes"},
      {"\"heads\": [[3, 0, 0]]", "\"heads\": [[3, 1, 0]]", IRM_GRAPH_EJSON, "heads[0]"},
      {"\"heads\": [[3, 0, 0]]", "\"heads\": 3", IRM_GRAPH_EJSON, "arg_nodes and heads must be lists"},
      {"{\"op\": \"null\", \"name\": \"x\", \"inputs\": []}", "{\"op\": \"null\", \"inputs\": []}", IRM_GRAPH_EJSON,
       "node 0 needs"},
      {"\"name\": \"y\", \"inputs\": []", "\"name\": \"y\", \"inputs\": [[0, 0, 0]]", IRM_GRAPH_EJSON,
       "a \"null\" node has no inputs"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char *json = edited(cases[k].from, cases[k].to);
    refused(json, cases[k].code, cases[k].want);
    free(json);
  }
}
END_TEST

START_TEST(test_a_failing_kernel_is_named) {
  char *json = edited("\"neg_packed\"", "\"fail_packed\"");
  irm_graph_runner *r = make(json);
  float x[4] = {0};
  int64_t s4[] = {4};
  DLTensor t = f32(x, s4, 1);
  irm_graph_runner_set_input(r, 0, &t);
  irm_graph_runner_set_input(r, 1, &t);
  ck_assert_int_eq(irm_graph_runner_run(r), IRM_GRAPH_EKERNEL);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "node 3 ('neg', kernel fail_packed) failed"));
  irm_graph_runner_free(r);
  free(json);
}
END_TEST

/* A storage id shared by entries of different sizes gets the largest. */
START_TEST(test_mismatched_kernel_shapes_are_errors_not_crashes) {
  char *json = edited("[[4], [4], [4], [4]]", "[[4], [4], [4], [2, 1]]");
  irm_graph_runner *r = make(json);
  float x[4] = {0};
  int64_t s4[] = {4};
  DLTensor t = f32(x, s4, 1);
  irm_graph_runner_set_input(r, 0, &t);
  irm_graph_runner_set_input(r, 1, &t);
  ck_assert_int_eq(irm_graph_runner_run(r), IRM_GRAPH_EKERNEL); /* neg's output is not 4 floats */
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "a tensor of the wrong shape"));
  irm_graph_runner_free(r);
  free(json);
}
END_TEST

START_TEST(test_truncated_and_mutated_graphs_never_crash) {
  size_t n = strlen(GRAPH);
  char *buf = malloc(n + 1);
  for (size_t len = 0; len < n; len++) {
    irm_graph_runner *r = NULL;
    char err[256];
    ck_assert_int_ne(irm_graph_runner_create(GRAPH, len, resolve, NULL, &r, err, sizeof err), 0);
  }
  static const char repl[] = "0129-\"[]{},x";
  uint64_t seed = 1;
  for (int round = 0; round < 3000; round++) {
    memcpy(buf, GRAPH, n + 1);
    for (int k = 0; k < 3; k++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      buf[(seed >> 33) % n] = repl[(seed >> 20) % (sizeof repl - 1)];
    }
    irm_graph_runner *r = NULL;
    char err[256];
    if (irm_graph_runner_create(buf, n, resolve, NULL, &r, err, sizeof err) == 0) {
      float x[4] = {1, 2, 3, 4};
      int64_t s4[] = {4};
      DLTensor t = f32(x, s4, 1);
      for (size_t i = 0; i < irm_graph_runner_num_inputs(r); i++) irm_graph_runner_set_input(r, i, &t);
      irm_graph_runner_run(r);
      irm_graph_runner_get_output(r, 0, &t);
      irm_graph_runner_free(r);
    }
  }
  free(buf);
}
END_TEST

START_TEST(test_load_errors) {
  irm_graph_runner *r = NULL;
  char err[512];
  ck_assert_int_eq(irm_graph_runner_load("/nonexistent/lib.so", &r, err, sizeof err), IRM_GRAPH_ELOAD);
  ck_assert_ptr_nonnull(strstr(err, "cannot load the library '/nonexistent/lib.so'"));
  ck_assert_int_eq(irm_graph_runner_load("libm.so.6", &r, err, sizeof err), IRM_GRAPH_ELOAD);
  ck_assert_int_eq(irm_graph_runner_load(NULL, &r, err, sizeof err), IRM_GRAPH_EARG);
  ck_assert_int_eq(irm_graph_runner_create(GRAPH, strlen(GRAPH), resolve, NULL, NULL, err, sizeof err), IRM_GRAPH_EARG);
  ck_assert_ptr_null(r);
}
END_TEST

int main(void) {
  Suite *s = suite_create("graph_runner");
  TCase *tc = tcase_create("runner");
  tcase_add_test(tc, test_runs_by_index_and_name);
  tcase_add_test(tc, test_nop_nodes_run_nothing_and_share_storage);
  tcase_add_test(tc, test_set_output_zero_copy);
  tcase_add_test(tc, test_wrong_arguments);
  tcase_add_test(tc, test_params);
  tcase_add_test(tc, test_malformed_graphs);
  tcase_add_test(tc, test_a_failing_kernel_is_named);
  tcase_add_test(tc, test_mismatched_kernel_shapes_are_errors_not_crashes);
  tcase_add_test(tc, test_truncated_and_mutated_graphs_never_crash);
  tcase_add_test(tc, test_load_errors);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
