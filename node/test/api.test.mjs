// The package's API: globals, values both ways, objects, errors by kind,
// targets, executors, runtimes, modules, IR text, passes, plugins, tensors.
// Run with `node --expose-gc --test node/test/` (ctest case `node`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as irm from '../index.js';

const ffiArray = (...items) => irm.getGlobalFunc('ffi.Array')(...items);

test('getGlobalFunc returns a JavaScript function; listGlobalFuncNames lists every global', () => {
  const size = irm.getGlobalFunc('ffi.ArraySize');
  assert.equal(typeof size, 'function');
  assert.equal(size([1, 2, 3]), 3);
  const names = irm.listGlobalFuncNames();
  assert.ok(Array.isArray(names));
  for (const name of ['ffi.Array', 'target.Target', 'transform.ParsePipeline']) assert.ok(names.includes(name));
  assert.equal(irm.getGlobalFunc('no.such.global', { allowMissing: true }), null);
});

test('an unknown global is an irm.KeyError naming the closest one', () => {
  assert.throws(() => irm.getGlobalFunc('ffi.Arrray'), (err) => {
    assert.ok(err instanceof irm.KeyError);
    assert.ok(err instanceof irm.IrmError);
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'KeyError');
    assert.equal(err.kind, 'KeyError');
    assert.match(err.message, /did you mean 'ffi\.Array'\?/);
    assert.doesNotMatch(err.message, /^KeyError/);
    return true;
  });
});

test('values convert both ways', () => {
  const echo = (v) => ffiArray(v).at(0);
  assert.equal(echo(42), 42);
  assert.equal(echo(-7), -7);
  assert.equal(echo(2 ** 53 - 1), 2 ** 53 - 1);
  assert.equal(echo(2n ** 60n), 2n ** 60n); // beyond 2^53: a BigInt
  assert.equal(echo(-(2n ** 63n)), -(2n ** 63n));
  assert.equal(echo(2.5), 2.5);
  assert.equal(echo('héllo'), 'héllo');
  assert.equal(echo('a\0b'), 'a\0b'); // a NUL travels in a String object
  assert.equal(echo(''), '');
  assert.equal(echo(true), true);
  assert.equal(echo(false), false);
  assert.equal(echo(null), null);
  assert.equal(echo(undefined), null);
  const arr = echo([1, 'two', [3]]);
  assert.ok(arr instanceof irm.IrmArray);
  assert.equal(arr.typeKey, 'ffi.Array');
  assert.equal(arr.length, 3);
  assert.equal(arr.at(1), 'two');
  assert.equal(arr.at(-1).at(0), 3);
  assert.deepEqual(arr.toArray().slice(0, 2), [1, 'two']);
  const map = echo({ a: 1, b: 'x', c: { d: true } });
  assert.ok(map instanceof irm.IrmMap);
  assert.equal(map.size, 3);
  assert.equal(map.get('b'), 'x');
  assert.equal(map.get('c').get('d'), true);
  assert.deepEqual(map.keys(), ['a', 'b', 'c']);
  assert.ok(map.has('a'));
  assert.deepEqual(echo(new Map([['k', 2]])).toObject(), { k: 2 });
  assert.throws(() => echo(new Map([[1, 2]])), irm.TypeError);
  assert.throws(() => echo(Symbol('s')), irm.TypeError);
});

test('integers are range-checked', () => {
  assert.throws(() => ffiArray(2n ** 63n), (e) => e instanceof irm.ValueError && /does not fit in int64/.test(e.message));
  assert.throws(() => ffiArray(-(2n ** 63n) - 1n), irm.ValueError);
  assert.throws(() => ffiArray(2 ** 64), irm.ValueError);
  assert.equal(ffiArray(2 ** 62).at(0), 2n ** 62n);
});

test('objects: toString (ffi.Repr), toJSON (ffi.ToJSON), equals (ffi.StructuralEqual), dispose', () => {
  const a = ffiArray(1, 2, 'x');
  const b = ffiArray(1, 2, 'x');
  const c = ffiArray(1, 2, 'y');
  assert.equal(String(a), '[1, 2, "x"]');
  assert.ok(a.equals(b));
  assert.ok(!a.equals(c));
  assert.ok(!a.sameAs(b));
  assert.equal(a.hash(), b.hash());
  const json = a.toJSON();
  assert.equal(typeof json, 'string');
  assert.equal(JSON.parse(json).irm_json, 1);
  const back = irm.fromJSON(json);
  assert.ok(back.equals(a));
  const big = ffiArray(2n ** 60n + 1n);
  assert.equal(irm.fromJSON(big.toJSON()).at(0), 2n ** 60n + 1n); // lossless
  a.dispose();
  a.dispose(); // twice is fine
  assert.throws(() => a.length, (e) => e instanceof irm.ValueError && /disposed/.test(e.message));
  assert.throws(() => new irm.IrmObject(), irm.TypeError);
});

test('every error kind arrives as its class with the message once', () => {
  const cases = [
    [irm.TypeError, () => irm.getGlobalFunc('ffi.ArraySize')('x'), /^ffi\.ArraySize: argument 1: expected ffi\.Array, got str 'x'$/],
    [irm.ValueError, () => new irm.Target('nosuchkind'), /unknown target kind 'nosuchkind'/],
    [irm.KeyError, () => irm.removeGlobalFunc('no.such.global'), /no\.such\.global/],
    [irm.AttributeError, () => new irm.Executor('aot', { 'no-such': 1 }), /has no option 'no-such'/],
    [irm.IndexError, () => irm.getGlobalFunc('ffi.ArrayGetItem')(ffiArray(1), 4), /out of range/],
    [irm.RuntimeError, () => irm.getGlobalFunc('transform.ExitPassContext')(new irm.PassContext()), /not entered/],
    [irm.PluginError, () => irm.loadPlugin('/nonexistent/plugin.so'), /cannot load plugin '\/nonexistent\/plugin\.so'/],
  ];
  for (const [cls, fn, re] of cases) {
    assert.throws(fn, (err) => {
      assert.ok(err instanceof cls, `${err.name}: ${err.message} is not a ${cls.name}`);
      assert.ok(err instanceof irm.IrmError);
      assert.equal(err.name, cls.kind);
      assert.match(err.message, re);
      assert.ok(!err.message.startsWith(`${cls.kind}:`), err.message);
      assert.equal(err.message.split(cls.kind).length - 1, err.message.includes(cls.kind) ? 1 : 0);
      return true;
    });
  }
  // MemoryError: the library reports it only when allocation fails, so it
  // comes back here from a callback that raises it.
  irm.registerFunc('test.node.raise_memory', () => { throw new irm.MemoryError('out of memory'); });
  try {
    assert.throws(() => irm.getGlobalFunc('test.node.raise_memory')(),
      (e) => e instanceof irm.MemoryError && e.message === 'out of memory');
  } finally {
    irm.removeGlobalFunc('test.node.raise_memory');
  }
});

test('Target, Executor and Runtime: String() as in Python', () => {
  const t = new irm.Target('llvm -mcpu=skylake');
  assert.ok(t instanceof irm.Target);
  assert.equal(String(t), 'llvm -keys=cpu -mcpu=skylake');
  assert.equal(t.kind, 'llvm');
  assert.deepEqual(t.keys, ['cpu']);
  assert.equal(t.getAttr('mcpu'), 'skylake');
  assert.deepEqual(t.export(), { kind: 'llvm', keys: ['cpu'], mcpu: 'skylake' });
  const t2 = new irm.Target({ kind: 'llvm', mcpu: 'skylake' });
  assert.ok(t.equals(t2));
  assert.equal(String(new irm.Target(String(t))), String(t));
  const withHost = new irm.Target('cuda', 'llvm');
  assert.equal(withHost.host.kind, 'llvm');
  assert.equal(t.run(() => String(irm.Target.current())), String(t));
  assert.equal(irm.Target.current(), null);
  assert.ok(irm.Target.listKinds().includes('llvm'));

  const e = new irm.Executor('aot', { 'unpacked-api': true });
  assert.ok(e instanceof irm.Executor);
  assert.equal(String(e), 'aot');
  assert.equal(e.name, 'aot');
  assert.equal(e.get('unpacked-api'), true);
  assert.equal(e.attrs['interface-api'], 'packed');
  const r = new irm.Runtime('crt', { 'system-lib': true });
  assert.ok(r instanceof irm.Runtime);
  assert.equal(String(r), 'crt');
  assert.equal(r.get('system-lib'), true);
  assert.ok(new irm.Runtime({ kind: 'crt', 'system-lib': true }).equals(r));
});

test('registerExecutorKind registers a kind with typed options', () => {
  irm.registerExecutorKind('node-test-exec', { threads: 'int', mode: { type: 'str', default: 'fast' } },
    { FMarker: 7 });
  assert.ok(irm.Executor.listRegistered().includes('node-test-exec'));
  const e = new irm.Executor('node-test-exec', { threads: 4 });
  assert.equal(e.get('threads'), 4);
  assert.equal(e.get('mode'), 'fast');
  assert.equal(irm.Executor.getKindAttr('node-test-exec', 'FMarker'), 7);
  assert.throws(() => new irm.Executor('node-test-exec', { threads: 'four' }), irm.TypeError);
  assert.deepEqual(irm.Executor.listRegisteredOptions('node-test-exec'), { threads: 'int', mode: 'str' });
});

test('IRModule: withAttr/getAttr; ir.parse and ir.text round-trip', () => {
  const t = new irm.Target('llvm');
  const mod = new irm.IRModule();
  const m2 = mod.withAttr('target', t).withAttr('executor', new irm.Executor('aot'));
  assert.ok(m2 instanceof irm.IRModule);
  assert.equal(mod.getAttr('target'), null); // modules are values
  assert.ok(m2.getAttr('target').equals(t));
  assert.equal(String(m2.getAttr('executor')), 'aot');
  assert.throws(() => mod.withAttr('target', 42), irm.TypeError);
  assert.deepEqual(m2.withoutAttr('target').attrs.keys(), ['executor']);

  const example = irm.ir.exampleModel('mlp');
  const text = irm.ir.text(example);
  assert.match(text, /^#\[version = "irm-0\.1"\]/);
  const parsed = irm.ir.parse(text);
  assert.ok(parsed.equals(example));
  assert.equal(parsed.text(), text);
  assert.match(irm.ir.text(example, { elideLargerThan: 16 }), /elided/);
  assert.throws(() => irm.ir.parse('def @main('), irm.ValueError);
});

test('parsePipeline and PassContext.run', () => {
  const pass = irm.parsePipeline('Sequential(FoldConstant,SimplifyExpr)');
  assert.ok(pass instanceof irm.Pass);
  assert.equal(String(pass), 'Sequential(FoldConstant,SimplifyExpr)');
  assert.throws(() => irm.parsePipeline('Sequential(FoldConstan)'), (e) => e instanceof irm.ValueError && /FoldConstant/.test(e.message));
  const ctx = new irm.PassContext({ optLevel: 3 });
  assert.equal(ctx.optLevel, 3);
  const mod = irm.ir.exampleModel('mlp');
  const out = ctx.run(() => {
    assert.ok(irm.PassContext.current().sameAs(ctx));
    return pass.run(mod);
  });
  assert.ok(out instanceof irm.IRModule);
  assert.ok(!irm.PassContext.current().sameAs(ctx)); // exited
  // An exception inside run() still exits the context.
  assert.throws(() => ctx.run(() => { throw new Error('boom'); }), /boom/);
  assert.ok(!irm.PassContext.current().sameAs(ctx));
  assert.throws(() => new irm.PassContext({ config: { 'no.such.option': 1 } }), irm.AttributeError);
});

test('tensors from and to typed arrays', () => {
  const data = new Float32Array([1, 2, 3, 4, 5, 6]);
  const t = new irm.Tensor(data, [2, 3]);
  assert.deepEqual(t.shape, [2, 3]);
  assert.equal(t.dtype, 'float32');
  assert.equal(t.nbytes, 24);
  data[0] = 100; // copied in: the tensor keeps its own data
  const view = t.toTypedArray();
  assert.ok(view instanceof Float32Array);
  assert.deepEqual([...view], [1, 2, 3, 4, 5, 6]);
  // The view reads the tensor's memory without a copy, and keeps the tensor
  // alive after the wrapper is disposed.
  const again = t.toTypedArray();
  t.dispose();
  assert.deepEqual([...again], [1, 2, 3, 4, 5, 6]);
  const ints = new irm.Tensor(new Int32Array([7, -8]));
  assert.equal(ints.dtype, 'int32');
  assert.deepEqual([...ints.toArray()], [7, -8]);
  assert.deepEqual([...new irm.Tensor(new Int8Array([-1])).toTypedArray()], [-1]);
  assert.deepEqual([...new irm.Tensor(new Uint8Array([1, 0]), [2], 'bool').toTypedArray()], [1, 0]);
  const sub = new Float32Array([0, 9, 8, 0]).subarray(1, 3); // an offset view
  assert.deepEqual([...new irm.Tensor(sub).toTypedArray()], [9, 8]);
  const empty = new irm.Tensor(new Float32Array(0), [0, 3]);
  assert.equal(empty.toTypedArray().length, 0);
  assert.throws(() => new irm.Tensor(new Float64Array(2)), irm.TypeError);
  assert.throws(() => new irm.Tensor(new Float32Array(2), [3]), irm.ValueError);
  // issue 39, D6: a dtype outside the table is checked against the bytes too (int64: 32 bytes, not 16)
  assert.throws(() => new irm.Tensor(new Int32Array(4), [4], 'int64'), /4 elements of int64 take 32 bytes, the Int32Array holds 16/);
  assert.deepEqual(new irm.Tensor(new BigInt64Array([1n, -2n, 3n, 4n]), [4], 'int64').shape, [4]);
  // Tensors go through globals: the interpreter runs on them.
  const c = irm.ir.parse('#[version = "irm-0.1"]\ndef @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {\n  %0 = nn.relu(%x);\n  %0\n}\n');
  const y = irm.ir.evaluate(c, 'main', [new irm.Tensor(new Float32Array([-1, 2]))]);
  assert.deepEqual([...y.toTypedArray()], [0, 2]);
});

test('plugins: loadPlugin, and a C global of the example plugin called from JavaScript', () => {
  const toy = process.env.IRM_TEST_TOY_FUNC_PLUGIN;
  const executor = process.env.IRM_TEST_EXECUTOR_PLUGIN;
  if (!toy || !executor) return; // run by ctest, which names the plugins
  const info = irm.loadPlugin(toy);
  assert.equal(info.name, 'toy-func');
  assert.deepEqual(irm.loadPlugin(toy), info); // loading again is a no-op
  assert.ok(irm.listPlugins().some((p) => p.name === 'micro-aot-executor')); // IRM_PLUGIN_PATH
  const f = irm.getGlobalFunc('toy.Func')(41, { note: 'x' });
  assert.equal(f.typeKey, 'toy.Func');
  assert.equal(irm.getGlobalFunc('toy.FuncBody')(f), 41);
  assert.throws(() => irm.getGlobalFunc('toy.FuncBody')(1), irm.TypeError);
  // The executor plugin's FCheckCompat, a C function, called from here.
  const check = irm.Executor.getKindAttr('micro-aot', 'FCheckCompat');
  assert.equal(typeof check, 'function');
  check(new irm.Executor('micro-aot'), new irm.Runtime('crt'));
  assert.throws(() => check(new irm.Executor('micro-aot'), new irm.Runtime('cpp')),
    (e) => e instanceof irm.ValueError && e.message === "executor 'micro-aot' needs runtime 'crt', got 'cpp'");
});
