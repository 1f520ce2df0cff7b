// How the package finds libirm, and what it says when it cannot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as irm from '../index.js';
import { candidates } from '../lib/native.js';

const PACKAGE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

function importIn(dir, env) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', "await import('./index.js')"],
    { cwd: dir, env, encoding: 'utf8' });
}

test('the search order: IRM_LIBRARY, beside the package, the build folders', () => {
  const list = candidates({ IRM_LIBRARY: '/x/libirm.so' });
  assert.deepEqual(list[0], ['IRM_LIBRARY', '/x/libirm.so']);
  assert.deepEqual(list.slice(1, 3).map(([where]) => where), ['beside the package', 'beside the package']);
  const builds = list.filter(([where]) => where.startsWith("the source tree's"));
  assert.deepEqual(builds.map(([, p]) => path.relative(path.join(PACKAGE, '..'), p)), [
    'build/lib/libirm.so.0', 'build/lib/libirm.so', 'build/libirm.so.0', 'build/libirm.so',
    'build-test/lib/libirm.so.0', 'build-test/lib/libirm.so', 'build-test/libirm.so.0', 'build-test/libirm.so']);
  assert.equal(candidates({})[0][0], 'beside the package');
  assert.ok(irm.LIBRARY_PATH);
  assert.match(irm.version, /^\d+\.\d+\.\d+$/);
});

test('an IRM_LIBRARY that does not load is an error naming it', () => {
  const env = { ...process.env, IRM_LIBRARY: '/nonexistent/libirm.so.0' };
  delete env.IRM_PLUGIN_PATH;
  const run = importIn(PACKAGE, env);
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /irm: cannot load IRM_LIBRARY=\/nonexistent\/libirm\.so\.0: /);
});

test('without a library anywhere, the error lists every path tried', () => {
  // A copy of the package outside the source tree, with no libirm beside it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'irm-node-'));
  try {
    fs.copyFileSync(path.join(PACKAGE, 'index.js'), path.join(dir, 'index.js'));
    fs.copyFileSync(path.join(PACKAGE, 'package.json'), path.join(dir, 'package.json'));
    fs.cpSync(path.join(PACKAGE, 'lib'), path.join(dir, 'lib'), { recursive: true });
    fs.symlinkSync(path.join(PACKAGE, 'node_modules'), path.join(dir, 'node_modules'));
    const env = { ...process.env };
    delete env.IRM_LIBRARY;
    delete env.IRM_PLUGIN_PATH;
    delete env.LD_LIBRARY_PATH;
    const run = importIn(dir, env);
    if (run.status === 0) return; // an installed libirm: the system loader found it
    assert.match(run.stderr, /irm: cannot find libirm\. Tried, in order:/);
    assert.ok(run.stderr.includes(`beside the package: ${path.join(dir, 'libirm.so.0')} (no such file)`), run.stderr);
    assert.match(run.stderr, /the system loader: libirm\.so\.0 \(/);
    assert.match(run.stderr, /Set IRM_LIBRARY/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
