// Call overhead of the irm Node.js package against koffi calling the same C
// function directly, interleaved in one process. Prints
// `name ns_per_op ratio baseline` lines like bench/ and bench/python.
//
//     node bench/node/bench_call.mjs [path/to/libirm_bench_calls.so]
//
// (the library is built with the benchmarks, in <build>/bench/; the package
// finds libirm as it always does, IRM_LIBRARY first).
//
// - call_native_i64: a native C function i64(i64,i64) registered with irm
//   (irm_func_new_native) and called through the package (which calls a
//   native scalar function straight through a koffi prototype), vs the same
//   C function bound with koffi directly. Bound: ratio <= 1.5.
// - call_c_global: a C global (ffi.ArraySize) called through the package vs
//   the same irm_func_call through koffi with the argument array built once.
// - call_js_from_c: a JavaScript function registered through the package,
//   called from C (irm_func_call on a packed callback), vs the same call of
//   a raw koffi callback made into a function with irm_func_new_packed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.join(HERE, '..', '..');
const require = createRequire(path.join(REPO, 'node', 'package.json'));
const koffi = require('koffi');
const irm = await import(path.join(REPO, 'node', 'index.js'));

const ROUNDS = 7;
const N = 200000;

function nsPerOp(fn) {
  const start = process.hrtime.bigint();
  fn(N);
  return Number(process.hrtime.bigint() - start) / N;
}

function compare(name, candidate, baseline) {
  let bestC = Infinity;
  let bestB = Infinity;
  candidate(N); // warm up (the JIT)
  baseline(N);
  for (let r = 0; r < ROUNDS; r++) { // interleaved, best of ROUNDS each
    bestB = Math.min(bestB, nsPerOp(baseline));
    bestC = Math.min(bestC, nsPerOp(candidate));
  }
  console.log(`${name} ${bestC.toFixed(1)} ${(bestC / bestB).toFixed(2)} ${bestB.toFixed(1)}`);
  return bestC / bestB;
}

function benchCallsLibrary() {
  if (process.argv[2]) return process.argv[2];
  for (const build of ['build-test', 'build', 'build-asan']) {
    const p = path.join(REPO, build, 'bench', 'libirm_bench_calls.so');
    if (fs.existsSync(p)) return p;
  }
  console.error('bench_call: pass the path of libirm_bench_calls.so (built with the benchmarks)');
  process.exit(2);
}

const libirm = koffi.load(irm.LIBRARY_PATH);
const calls = koffi.load(benchCallsLibrary());
const raw = calls.func('int64_t bench_calls_add_i64(int64_t a, int64_t b)');
const newNative = libirm.func('int irm_func_new_native(void *fn, const char *sig, _Out_ uintptr_t *out)');
const register = libirm.func('int irm_func_register_global(const char *name, uintptr_t f, int override)');
const release = libirm.func('void irm_object_release(uintptr_t o)');
const funcCall = libirm.func('int irm_func_call(uintptr_t f, void *args, int32_t n, void *ret)');
const getGlobal = libirm.func('int irm_func_get_global(const char *name, _Out_ uintptr_t *out)');

let sink = 0;

// The C function's address: dlsym in the library koffi loaded (dlopen of a
// loaded library gives its handle).
const addPtr = (() => {
  const libc = koffi.load(null);
  const dlopen = libc.func('void *dlopen(const char *path, int flags)');
  const dlsym = libc.func('void *dlsym(void *handle, const char *name)');
  return dlsym(dlopen(benchCallsLibrary(), 1 /* RTLD_LAZY */), 'bench_calls_add_i64');
})();

{
  const out = [0];
  if (newNative(addPtr, 'i64(i64,i64)', out) !== 0) throw new Error('irm_func_new_native failed');
  if (register('bench.add_i64', out[0], 0) !== 0) throw new Error('register failed');
  release(out[0]);
}
const add = irm.getGlobalFunc('bench.add_i64');
if (add(20, 22) !== 42 || raw(20, 22) !== 42) throw new Error('bench.add_i64 is wrong');

const ratios = {};
ratios.call_native_i64 = compare('call_native_i64',
  (n) => { for (let i = 0; i < n; i++) sink += add(20, 22); },
  (n) => { for (let i = 0; i < n; i++) sink += raw(20, 22); });

// call_c_global: ffi.ArraySize through the package vs irm_func_call through koffi.
const arr = irm.getGlobalFunc('ffi.Array')(1, 2, 3);
const size = irm.getGlobalFunc('ffi.ArraySize');
const sizeHandle = (() => { const o = [0]; getGlobal('ffi.ArraySize', o); return o[0]; })();
const args = Buffer.alloc(16);
args.writeInt32LE(6, 0);
args.writeBigUInt64LE(BigInt(arr.handle), 8);
const ret = Buffer.alloc(16);
ratios.call_c_global = compare('call_c_global',
  (n) => { for (let i = 0; i < n; i++) sink += size(arr); },
  (n) => { for (let i = 0; i < n; i++) { funcCall(sizeHandle, args, 1, ret); sink += ret.readInt32LE(8); } });

// call_js_from_c: a registered JS function vs a raw koffi packed callback,
// both called from C through irm_func_call.
irm.registerFunc('bench.js_add', (a, b) => a + b);
const jsHandle = (() => { const o = [0]; getGlobal('bench.js_add', o); return o[0]; })();
const Packed = koffi.proto('int bench_packed(void *args, int32_t n, void *ret, void *res)');
const newPacked = libirm.func('int irm_func_new_packed(bench_packed *fn, void *res, void *fin, _Out_ uintptr_t *out)');
const rawCb = koffi.register((a, n, r) => {
  const view = Buffer.from(koffi.view(a, 32));
  const out = Buffer.from(koffi.view(r, 16));
  out.writeInt32LE(1, 0);
  out.writeBigInt64LE(view.readBigInt64LE(8) + view.readBigInt64LE(24), 8);
  return 0;
}, koffi.pointer(Packed));
const rawHandle = (() => { const o = [0]; newPacked(rawCb, null, null, o); return o[0]; })();
const two = Buffer.alloc(32);
two.writeInt32LE(1, 0); two.writeBigInt64LE(20n, 8); two.writeInt32LE(1, 16); two.writeBigInt64LE(22n, 24);
ratios.call_js_from_c = compare('call_js_from_c',
  (n) => { for (let i = 0; i < n; i++) { funcCall(jsHandle, two, 2, ret); sink += ret.readInt32LE(8); } },
  (n) => { for (let i = 0; i < n; i++) { funcCall(rawHandle, two, 2, ret); sink += ret.readInt32LE(8); } });
release(jsHandle);
release(rawHandle);
release(sizeHandle);
irm.removeGlobalFunc('bench.js_add');
irm.removeGlobalFunc('bench.add_i64');

if (sink === 0.5) console.log(sink); // keep the loops' results alive
if (process.env.IRM_BENCH_CHECK && ratios.call_native_i64 > 1.5) {
  console.error(`bench_call: call_native_i64 ratio ${ratios.call_native_i64.toFixed(2)} > 1.5`);
  process.exit(1);
}
