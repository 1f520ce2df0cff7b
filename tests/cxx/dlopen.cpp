// libirm loaded at run time, the way Python's ctypes loads it: dlopen, then
// every call through a dlsym'd pointer, so each goes through the exported
// irm_func_call (never the inline path of function.h). Covers the exported
// path's behaviour on success and failure, for packed and native functions,
// and that libirm's initial-exec thread-locals work in a dlopen'd library.
// Usage: cxx_dlopen <path of libirm.so>
#include <irm/irm.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstring>

namespace {

int failures = 0;

void expect(bool ok, const char *what, int line) {
  if (ok) return;
  std::fprintf(stderr, "dlopen.cpp:%d: %s\n", line, what);
  failures++;
}
#define EXPECT(cond) expect((cond), #cond, __LINE__)

// The entry points, as ctypes would declare them.
struct Irm {
  const char *(*version)(void);
  const char *(*last_error)(void);
  int (*call)(irm_object *, const irm_any *, int32_t, irm_any *);
  int (*new_packed)(irm_packed_cfunc, void *, void (*)(void *), irm_object **);
  int (*new_native)(irm_native_fn, const char *, irm_object **);
  int (*string_new)(const char *, size_t, irm_object **);
  uint32_t (*refcount)(const irm_object *);
  void (*retain)(irm_object *);
  void (*release)(irm_object *);
};

Irm irm_entry_points;

template <typename T> bool load(void *lib, const char *name, T *out) {
  void *p = dlsym(lib, name);
  if (!p) std::fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
  std::memcpy(out, &p, sizeof p); // object pointer to function pointer, as dlsym intends
  return p != nullptr;
}

int64_t add_i64(int64_t a, int64_t b) { return a + b; }
int64_t answer() { return 42; }

int add_packed(const irm_any *args, int32_t nargs, irm_any *ret, void *) {
  *ret = irm_any_int(args[0].v_int + args[nargs - 1].v_int);
  return 0;
}

// Fails without a message and with a positive status, after storing a
// result (a new reference to resource) that irm must drop.
int fail_quietly(const irm_any *, int32_t, irm_any *ret, void *resource) {
  irm_entry_points.retain(static_cast<irm_object *>(resource));
  *ret = irm_any_object(static_cast<irm_object *>(resource));
  return 1;
}

bool is_none(const irm_any &v) { return v.type_code == IRM_NONE; }
bool starts_with(const char *s, const char *prefix) { return std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

void packed_calls(const Irm &irm) {
  irm_object *f = nullptr;
  EXPECT(irm.new_packed(add_packed, nullptr, nullptr, &f) == IRM_OK);
  irm_any args[2] = {irm_any_int(40), irm_any_int(2)};
  irm_any ret = irm_any_str("stale");
  EXPECT(irm.call(f, args, 2, &ret) == IRM_OK && ret.type_code == IRM_INT && ret.v_int == 42);
  irm.release(f);

  irm_object *s = nullptr;
  EXPECT(irm.string_new("partial", 7, &s) == IRM_OK);
  EXPECT(irm.new_packed(fail_quietly, s, nullptr, &f) == IRM_OK);
  irm_any partial = irm_any_none();
  EXPECT(irm.call(f, args, 2, &partial) == IRM_ERUNTIME);
  EXPECT(std::strcmp(irm.last_error(), "RuntimeError: function '<anonymous>' failed") == 0);
  EXPECT(is_none(partial));
  EXPECT(irm.refcount(s) == 1); // the dropped result's reference was released
  irm.release(f);
  irm.release(s);
}

void native_calls(const Irm &irm) {
  irm_object *f = nullptr;
  EXPECT(irm.new_native(reinterpret_cast<irm_native_fn>(add_i64), "i64(i64,i64)", &f) == IRM_OK);
  irm_any args[2] = {irm_any_bool(true), irm_any_int(41)};
  irm_any ret = irm_any_str("stale");
  EXPECT(irm.call(f, args, 2, &ret) == IRM_OK && ret.type_code == IRM_INT && ret.v_int == 42);

  ret = irm_any_str("stale");
  EXPECT(irm.call(f, args, 1, &ret) == IRM_ETYPE && is_none(ret));
  EXPECT(std::strcmp(irm.last_error(),
                     "TypeError: function '<anonymous>' (i64(i64,i64)) takes 2 arguments, got 1") == 0);

  irm_any wrong[2] = {irm_any_int(1), irm_any_str("2")};
  ret = irm_any_str("stale");
  EXPECT(irm.call(f, wrong, 2, &ret) == IRM_ETYPE && is_none(ret));
  EXPECT(std::strcmp(irm.last_error(), "TypeError: function '<anonymous>' (i64(i64,i64)): argument 2: expected i64, "
                                       "got str '2'") == 0);
  irm.release(f);

  EXPECT(irm.new_native(reinterpret_cast<irm_native_fn>(answer), "i64()", &f) == IRM_OK);
  EXPECT(irm.call(f, nullptr, 0, &ret) == IRM_OK && ret.v_int == 42);
  irm.release(f);
}

void refused_calls(const Irm &irm) {
  irm_object *f = nullptr;
  EXPECT(irm.new_packed(add_packed, nullptr, nullptr, &f) == IRM_OK);
  irm_any args[2] = {irm_any_int(1), irm_any_int(2)};
  irm_any ret = irm_any_str("stale");
  EXPECT(irm.call(nullptr, args, 2, &ret) == IRM_ETYPE && is_none(ret));
  EXPECT(starts_with(irm.last_error(), "TypeError: irm_func_call: expected ffi.Function"));
  EXPECT(irm.call(f, args, 2, nullptr) == IRM_EVALUE);
  EXPECT(irm.call(f, args, -1, &ret) == IRM_EVALUE && is_none(ret));
  EXPECT(irm.call(f, nullptr, 2, &ret) == IRM_EVALUE);
  irm.release(f);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <libirm.so>\n", argv[0]);
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  Irm &irm = irm_entry_points;
  bool ok = load(lib, "irm_version", &irm.version) && load(lib, "irm_last_error", &irm.last_error) &&
            load(lib, "irm_func_call", &irm.call) && load(lib, "irm_func_new_packed", &irm.new_packed) &&
            load(lib, "irm_func_new_native", &irm.new_native) &&
            load(lib, "irm_string_new", &irm.string_new) &&
            load(lib, "irm_object_refcount", &irm.refcount) &&
            load(lib, "irm_object_retain", &irm.retain) &&
            load(lib, "irm_object_release", &irm.release);
  if (!ok) return 1;
  EXPECT(std::strcmp(irm.version(), IRM_VERSION_STRING) == 0);
  packed_calls(irm);
  native_calls(irm);
  refused_calls(irm);
  return failures == 0 ? 0 : 1;
}
