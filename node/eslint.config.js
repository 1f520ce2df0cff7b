// ESLint (flat config, ESLint 8.57 or later; scripts/check-lint runs it):
// the recommended checks that find bugs, with Node's globals declared here
// so that the config needs no package of its own.
const node = Object.fromEntries(
  ['process', 'Buffer', 'console', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate',
    'queueMicrotask', 'globalThis', 'URL', 'TextEncoder', 'TextDecoder', 'FinalizationRegistry', 'WeakRef',
    'SharedArrayBuffer', 'Atomics', 'BigInt', 'BigInt64Array', 'BigUint64Array', 'gc', 'structuredClone']
    .map((name) => [name, 'readonly']));

export default [
  { ignores: ['node_modules/**'] },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: node },
    rules: {
      'no-undef': 'error',
      'no-unused-vars': ['error', { args: 'none' }],
      'no-unreachable': 'error',
      'no-dupe-keys': 'error',
      'no-redeclare': 'error',
      'no-var': 'error',
      'prefer-const': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
];
