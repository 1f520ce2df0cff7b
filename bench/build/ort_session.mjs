// ONNX Runtime's session creation, for bench_build.py: reads one ONNX file
// path per line on stdin, creates a session for it (1 intra-op and 1
// inter-op thread, graph optimization 'all', as bench/models does) and
// prints one JSON line {wall_ms, cpu_ms} per file; {"missing": reason}
// first when onnxruntime-node is not installed (bench/models: npm ci).
import readline from 'node:readline';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'models', 'package.json'));
let ort = null;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  console.log(JSON.stringify({ missing: `onnxruntime-node: ${e.message.split('\n')[0]}` }));
  process.exit(0);
}
console.log(JSON.stringify({ ready: true }));
const options = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(line.trim(), options);
  const t1 = process.hrtime.bigint();
  const c1 = process.cpuUsage(c0);
  await session.release();
  console.log(JSON.stringify({ wall_ms: Number(t1 - t0) / 1e6, cpu_ms: (c1.user + c1.system) / 1e3 }));
}
