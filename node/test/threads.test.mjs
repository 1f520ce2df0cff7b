// JavaScript globals called by C from another thread. koffi's registered
// callbacks are thread-safe by relay: a call from a thread that is not
// Node's main thread waits while koffi runs the function on the main thread,
// at its event loop's next turn. So such calls are handled as long as the
// main thread is not blocked waiting for that thread (docs/node.md,
// "Threads"): here the C thread is polled from timers, or joined from a
// koffi worker thread (.async).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMainThread } from 'node:worker_threads';
import koffi from 'koffi';
import * as irm from '../index.js';

const helperPath = process.env.IRM_TEST_THREAD_CALL;
const skip = helperPath ? false : 'IRM_TEST_THREAD_CALL (the test helper library) is not set';
let helper = null;
if (helperPath) {
  const lib = koffi.load(helperPath);
  helper = {
    start: lib.func('void *irm_node_test_thread_start(const char *name, int64_t arg)'),
    done: lib.func('int irm_node_test_thread_done(void *call)'),
    join: lib.func('int irm_node_test_thread_join(void *call, _Out_ int64_t *out)'),
    callInThread: lib.func('int irm_node_test_call_in_thread(const char *name, int64_t arg, ' +
      '_Out_ int64_t *out, _Out_ uint8_t *error, size_t size)'),
    register: lib.func('int irm_node_test_register(void)'),
  };
  assert.equal(helper.register(), 0);
}

async function callFromThread(name, arg) {
  const call = helper.start(name, arg);
  assert.ok(call, 'pthread_create failed');
  while (!helper.done(call)) await new Promise((resolve) => setTimeout(resolve, 1));
  const out = [0];
  const rc = helper.join(call, out);
  if (rc !== 0) throw new Error(`the call from the C thread failed with status ${rc}`);
  return out[0];
}

test('a JavaScript global called from a C thread runs on the main thread', { skip }, async () => {
  const seen = [];
  irm.registerFunc('test.node.thread_double', (x) => {
    seen.push(isMainThread);
    return x * 2;
  });
  try {
    assert.equal(await callFromThread('test.node.thread_double', 21), 42);
    assert.deepEqual(seen, [true]);
    // Several threads at once.
    const results = await Promise.all([1, 2, 3, 4].map((i) => callFromThread('test.node.thread_double', i)));
    assert.deepEqual(results, [2, 4, 6, 8]);
    // Joined from a koffi worker thread: the main thread awaits, so the
    // relayed call runs.
    const out = [0];
    const error = Buffer.alloc(256);
    const rc = await new Promise((resolve, reject) => {
      helper.callInThread.async('test.node.thread_double', 50, out, error, error.length,
        (err, res) => (err ? reject(err) : resolve(res)));
    });
    assert.equal(rc, 0);
    assert.equal(out[0], 100);
  } finally {
    irm.removeGlobalFunc('test.node.thread_double');
  }
});

test('an exception in a callback called from a C thread is that thread\'s irm error', { skip }, async () => {
  irm.registerFunc('test.node.thread_throw', (x) => { throw new irm.IndexError(`index ${x} out of range`); });
  const warned = new Promise((resolve) => process.once('warning', resolve));
  try {
    const out = [0];
    const error = Buffer.alloc(256);
    const rc = await new Promise((resolve, reject) => {
      helper.callInThread.async('test.node.thread_throw', 7, out, error, error.length,
        (err, res) => (err ? reject(err) : resolve(res)));
    });
    // irm's error is per thread and koffi ran the callback on the main
    // thread: the C thread sees the library's generic failure, and the
    // package reports the JavaScript error as a warning.
    assert.notEqual(rc, 0);
    assert.equal(error.toString('utf8', 0, error.indexOf(0)), "RuntimeError: function 'test.node.thread_throw' failed");
    const warning = await warned;
    assert.equal(warning.name, 'IrmWarning');
    assert.match(warning.message, /^IndexError: index 7 out of range \(in a JavaScript callback called outside/);
  } finally {
    irm.removeGlobalFunc('test.node.thread_throw');
  }
});

test('a C global called from a C thread needs no relay', { skip }, async () => {
  // ffi.ArraySize of an int is a TypeError reported on the C thread.
  const out = [0];
  const error = Buffer.alloc(256);
  const rc = helper.callInThread('ffi.ArraySize', 3, out, error, error.length);
  assert.notEqual(rc, 0);
  assert.match(error.toString('utf8', 0, error.indexOf(0)), /^TypeError: ffi\.ArraySize: argument 1/);
});

test('a JavaScript global called from a C thread while the main thread waits in irm is refused', { skip }, async () => {
  let ran = 0;
  irm.registerFunc('test.node.thread_refused', (x) => { ran++; return x + 1; });
  try {
    // test.node.call_in_thread starts a thread calling the JavaScript global
    // and joins it, inside one synchronous call into irm: formerly a
    // deadlock (koffi relays to the blocked main thread), now an error.
    const callInThread = irm.getGlobalFunc('test.node.call_in_thread');
    assert.throws(() => callInThread('test.node.thread_refused', 1), (err) => {
      assert.ok(err instanceof irm.RuntimeError);
      assert.equal(err.message, "function 'test.node.thread_refused' belongs to the thread that " +
        'made it, which is blocked in a call into irm: calling it from another thread now would ' +
        "deadlock; make that blocking call from a worker thread (in Node, with koffi's .async), " +
        'or keep this function out of the other thread');
      return true;
    });
    assert.equal(ran, 0);
    // The main thread carries on: the same function from a thread it does
    // not wait for, and from the main thread itself.
    assert.equal(await callFromThread('test.node.thread_refused', 2), 3);
    assert.equal(irm.getGlobalFunc('test.node.thread_refused')(4), 5);
    assert.equal(ran, 2);
    // A C global in the thread is no callback: it runs there as before.
    assert.throws(() => callInThread('ffi.ArraySize', 3), irm.TypeError);
  } finally {
    irm.removeGlobalFunc('test.node.thread_refused');
  }
});

test('a callback released on a C thread while the main thread waits in irm is finalized after the call', { skip }, () => {
  const before = irm.liveCallbacks();
  // The registry holds the only reference: removing the global on another
  // thread while the main thread waits in irm finalizes it there, which
  // must not wait for the main thread either; the package runs the queued
  // finalizer when the call returns.
  irm.registerFunc('test.node.thread_release', (x) => x);
  assert.equal(irm.liveCallbacks(), before + 1);
  assert.equal(irm.getGlobalFunc('test.node.remove_in_thread')('test.node.thread_release'), true);
  assert.equal(irm.liveCallbacks(), before);
  assert.equal(irm.getGlobalFunc('test.node.thread_release', { allowMissing: true }), null);
});
