// README.md's ```js blocks run in order, in one module, and print what their
// comments say (as python/tests/test_readme.py does for ```python).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as irm from '../index.js';

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test("README.md's js blocks run and print what they say", async () => {
  const text = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const blocks = [...text.matchAll(/^```js\n(.*?)^```/gms)].map((m) => m[1]);
  assert.ok(blocks.length >= 1);
  // The blocks import './node/index.js' from the repository root.
  const indexUrl = pathToFileURL(path.join(REPO, 'node', 'index.js')).href;
  const source = blocks.join('\n').replaceAll("'./node/index.js'", `'${indexUrl}'`);
  const printed = [];
  const log = console.log;
  console.log = (...args) => printed.push(args.map(String).join(' '));
  try {
    await import(`data:text/javascript,${encodeURIComponent(source)}`);
  } finally {
    console.log = log;
    irm.removeGlobalFunc('demo.twice');
  }
  const expected = blocks.flatMap((b) => [...b.matchAll(/console\.log\(.*\);\s+\/\/ (.*)$/gm)].map((m) => m[1].trim()));
  assert.ok(expected.length >= 3);
  assert.deepEqual(printed, expected);
});
