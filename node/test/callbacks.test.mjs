// JavaScript functions called by C: registered globals, passes in C
// pipelines, errors thrown in callbacks, and the release of callbacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as irm from '../index.js';

async function collect(until) {
  // FinalizationRegistry callbacks run as tasks after a collection.
  for (let i = 0; i < 50 && !until(); i++) {
    globalThis.gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return until();
}

test('registerFunc: a JavaScript function that C calls through the registry', () => {
  const seen = [];
  irm.registerFunc('test.node.add', (a, b, ...rest) => {
    seen.push([a, b, ...rest]);
    return a + b;
  });
  try {
    const add = irm.getGlobalFunc('test.node.add');
    assert.equal(add(2, 3), 5);
    assert.equal(add(2n ** 60n, 2n ** 60n), 2n ** 61n);
    assert.equal(add('a', 'b'), 'ab');
    add(1, 2, 'x', true, null, [1], { k: 1 });
    const last = seen.at(-1);
    assert.deepEqual(last.slice(0, 5), [1, 2, 'x', true, null]);
    assert.ok(last[5] instanceof irm.IrmArray);
    assert.ok(last[6] instanceof irm.IrmMap);
    assert.ok(irm.listGlobalFuncNames().includes('test.node.add'));
    // A duplicate is a KeyError unless override is given.
    assert.throws(() => irm.registerFunc('test.node.add', () => 0), irm.KeyError);
    irm.registerFunc('test.node.add', (a, b) => a * b, { override: true });
    assert.equal(irm.getGlobalFunc('test.node.add')(4, 5), 20);
    assert.equal(add(4, 5), 9); // holders of the old function keep it
    add.dispose();
  } finally {
    irm.removeGlobalFunc('test.node.add');
  }
  assert.equal(irm.getGlobalFunc('test.node.add', { allowMissing: true }), null);
});

test('callbacks return objects, functions and strings that C owns', () => {
  irm.registerFunc('test.node.make', (kind) => {
    if (kind === 'array') return [1, 2];
    if (kind === 'target') return new irm.Target('llvm');
    if (kind === 'fn') return (x) => x + 1;
    if (kind === 'float') return 1.5;
    return `str:${kind}`;
  });
  try {
    const make = irm.getGlobalFunc('test.node.make');
    assert.deepEqual(make('array').toArray(), [1, 2]);
    assert.equal(String(make('target')), 'llvm -keys=cpu');
    assert.equal(make('fn')(41), 42);
    assert.equal(make('float'), 1.5);
    assert.equal(make('x'), 'str:x');
    const wrapped = irm.getGlobalFunc('ffi.Array')(make);
    assert.equal(wrapped.at(0)('array').length, 2); // a JS function went through C and back
  } finally {
    irm.removeGlobalFunc('test.node.make');
  }
});

test('an exception thrown in a callback is an irm error in C, by kind', () => {
  const cases = [
    [() => { throw new irm.KeyError('no key k'); }, irm.KeyError, 'no key k'],
    [() => { throw new irm.IndexError('index 9'); }, irm.IndexError, 'index 9'],
    [() => { throw new TypeError('not a number'); }, irm.TypeError, 'not a number'],
    [() => { throw new RangeError('too big'); }, irm.ValueError, 'too big'],
    [() => { throw new Error('plain'); }, irm.RuntimeError, 'plain'],
    [() => { throw 'a string'; }, irm.RuntimeError, 'a string'],
  ];
  for (const [fn, cls, message] of cases) {
    irm.registerFunc('test.node.throws', fn, { override: true });
    assert.throws(() => irm.getGlobalFunc('test.node.throws')(), (e) => {
      assert.ok(e instanceof cls, `${e.name}: ${e.message}`);
      assert.equal(e.message, message);
      return true;
    });
  }
  irm.removeGlobalFunc('test.node.throws');
});

test('a JavaScript module pass inside a C pipeline', () => {
  const calls = [];
  const jsPass = irm.modulePass((mod, ctx) => {
    calls.push(ctx.optLevel);
    assert.ok(mod instanceof irm.IRModule);
    return mod.withAttr('js_marker', 'from_js');
  }, { optLevel: 0, name: 'JsRename' });
  assert.ok(jsPass instanceof irm.Pass);
  assert.equal(jsPass.name, 'JsRename');
  const pipeline = irm.sequential([irm.parsePipeline('FoldConstant'), jsPass, irm.parsePipeline('SimplifyExpr')]);
  const mod = irm.ir.exampleModel('mlp');
  const out = new irm.PassContext({ optLevel: 3 }).run(() => pipeline.run(mod));
  assert.deepEqual(calls, [3]);
  assert.equal(out.getAttr('js_marker'), 'from_js');
  assert.equal(mod.getAttr('js_marker'), null);
  // The pass's exception comes back through C with the pass named.
  const failing = irm.modulePass(() => { throw new irm.ValueError('js pass refused'); }, { name: 'JsFail' });
  assert.throws(() => irm.sequential([irm.parsePipeline('FoldConstant'), failing]).run(mod),
    (e) => e instanceof irm.ValueError && /js pass refused/.test(e.message));
  // A wrong result type is the library's error, not a crash.
  const wrong = irm.modulePass(() => 42, { name: 'JsWrong' });
  assert.throws(() => wrong.run(mod), irm.IrmError);
});

test('callbacks are released when the library drops them', async () => {
  const before = irm.liveCallbacks();
  irm.registerFunc('test.node.released', () => 1);
  assert.equal(irm.liveCallbacks(), before + 1);
  irm.removeGlobalFunc('test.node.released'); // the registry held the only reference
  assert.equal(irm.liveCallbacks(), before);

  // Held by a JavaScript wrapper: released once the wrapper is collected.
  irm.registerFunc('test.node.held', () => 2);
  (() => { assert.equal(irm.getGlobalFunc('test.node.held')(), 2); })();
  irm.removeGlobalFunc('test.node.held');
  if (globalThis.gc) assert.ok(await collect(() => irm.liveCallbacks() <= before), 'the wrapper was not collected');

  // Passes made from JavaScript functions, and many of them.
  for (let i = 0; i < 200; i++) {
    const p = irm.modulePass((m) => m, { name: `JsTmp${i}` });
    p.dispose();
  }
  assert.ok(irm.liveCallbacks() <= before);
  for (let i = 0; i < 200; i++) irm.modulePass((m) => m, { name: `JsGc${i}` });
  if (globalThis.gc) assert.ok(await collect(() => irm.liveCallbacks() <= before), `${irm.liveCallbacks() - before} left`);
});
