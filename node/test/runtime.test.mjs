// Loading a library a build exported (irm.load, RuntimeModule): numThreads
// and its precedence over IRM_NUM_THREADS and the Runtime's num-threads,
// bad counts, metadata, and runs that give the serial build's values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as irm from '../index.js';

// one conv above the kernels' split threshold: the cpp build calls the pool
const CONV = `#[version = "irm-0.1"]
def @main(%x: Tensor[(1, 16, 32, 32), float32], %w: Tensor[(32, 16, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1]);
  %0
}
`;

const dir = mkdtempSync(join(tmpdir(), 'irm-node-runtime-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function exportLibrary(name, runtime) {
  const build = irm.getGlobalFunc('driver.Build');
  const result = build(irm.ir.parse(CONV), 'c', null, new irm.Executor('aot'), runtime, null, name);
  const path = join(dir, `${name}.so`);
  irm.getGlobalFunc('driver.ExportLibrary')(result, path);
  return path;
}

const cpp = exportLibrary('thr_cpp', new irm.Runtime('cpp', { 'num-threads': 2 }));
const crt = exportLibrary('thr_crt', new irm.Runtime('crt'));

function withEnv(value, fn) {
  const old = process.env.IRM_NUM_THREADS;
  if (value === undefined) delete process.env.IRM_NUM_THREADS;
  else process.env.IRM_NUM_THREADS = value;
  try {
    return fn();
  } finally {
    if (old === undefined) delete process.env.IRM_NUM_THREADS;
    else process.env.IRM_NUM_THREADS = old;
  }
}

test('load: numThreads, IRM_NUM_THREADS and the Runtime option, in that order', () => {
  withEnv(undefined, () => {
    const m = irm.load(cpp);
    assert.ok(m instanceof irm.RuntimeModule);
    assert.equal(m.numThreads, 2);
    assert.equal(irm.load(cpp, { numThreads: 3 }).numThreads, 3);
    assert.equal(irm.load(cpp, { modName: 'thr_cpp', numThreads: 5 }).numThreads, 5);
    assert.equal(irm.load(cpp, { modName: 'thr_cpp' }).numThreads, 2);
    assert.equal(irm.load(cpp, { numThreads: 0 }).numThreads, availableParallelism());
  });
  withEnv('3', () => {
    assert.equal(irm.load(cpp).numThreads, 3);
    assert.equal(irm.load(cpp, { numThreads: 1 }).numThreads, 1);
    assert.equal(irm.load(crt, { numThreads: 4 }).numThreads, 1); // crt: serial whatever is asked
  });
});

test('load: bad thread counts', () => {
  for (const bad of ['2', 2.5, true, [2]]) {
    assert.throws(() => irm.load(cpp, { numThreads: bad }), irm.TypeError);
  }
  assert.throws(() => irm.load(cpp, { numThreads: -1 }), irm.ValueError);
  assert.throws(() => irm.load(cpp, { numThreads: 257 }), irm.ValueError);
  withEnv('x', () => {
    assert.throws(() => irm.load(cpp), (e) => e instanceof irm.ValueError && /IRM_NUM_THREADS='x'/.test(e.message));
    assert.equal(irm.load(cpp, { numThreads: 2 }).numThreads, 2);
  });
  assert.throws(() => irm.load(cpp, { modName: 'nope', numThreads: 2 }), irm.ValueError);
});

test('load: metadata and runs equal to the serial build for every thread count', () => {
  const meta = irm.load(cpp).metadata;
  assert.equal(meta.num_threads, 2);
  assert.equal(meta.parallel, true);
  assert.equal(irm.load(crt).metadata.parallel, false);
  const x = new Float32Array(16 * 32 * 32).map((_, i) => Math.sin(i));
  const w = new Float32Array(32 * 16 * 9).map((_, i) => Math.cos(i * 0.7));
  const inputs = [new irm.Tensor(x, [1, 16, 32, 32]), new irm.Tensor(w, [32, 16, 3, 3])];
  const want = irm.load(crt).run(inputs)[0].toArray();
  assert.equal(want.length, 32 * 32 * 32);
  for (const n of [1, 2, 3, 8]) {
    const got = irm.load(cpp, { numThreads: n }).run(inputs);
    assert.equal(got.length, 1);
    assert.deepEqual(got[0].toArray(), want, `${n} threads`);
  }
});

test('run: an index out of range names the op, the index, the range and the kernel (issue 39, D9)', () => {
  const take = `#[version = "irm-0.1"]
def @main(%x: Tensor[(5, 2), float32], %i: Tensor[(3), int32]) {
  %0 = take(%x, %i, axis=0);
  %0
}
`;
  const result = irm.getGlobalFunc('driver.Build')(irm.ir.parse(take), 'c', null, new irm.Executor('aot'),
    new irm.Runtime('crt'), null, 'tk');
  const path = join(dir, 'tk.so');
  irm.getGlobalFunc('driver.ExportLibrary')(result, path);
  const m = irm.load(path);
  const x = new irm.Tensor(new Float32Array(10).fill(1), [5, 2]);
  assert.equal(m.run([x, new irm.Tensor(new Int32Array([0, -5, 4]), [3])])[0].toArray().length, 6);
  assert.throws(() => m.run([x, new irm.Tensor(new Int32Array([1, 7, 0]), [3])]),
    (e) => /take: index 7 is out of range \[-5, 5\) on axis 0 \(kernel tvmgen_tk_fused_take/.test(e.message));
});
