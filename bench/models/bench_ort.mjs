// ONNX Runtime against irm's compiled libraries in one Node process, for
// bench_models.py (which writes the config and reads the lines).
//
//   node --expose-gc bench/models/bench_ort.mjs config.json
//
// config: {network, onnx, input (raw float32 file), input_shape, reference
// (raw float32: PyTorch's logits), rounds, min_sample_ms, libs: [{label, folder, so,
// threads}], ort_threads (default [1]), pool_shim (a shared object of
// pool_shim.c) or null, machine_threads (default []: thread counts of the
// shim's register-only loop, labels 'machine@N', the machine's own figure
// beside the systems), profile: {prefix, runs} or null}. ONNX Runtime
// (onnxruntime-node) runs with 1 inter-op thread, graph optimization 'all'
// and each intra-op thread count of ort_threads (labels 'ort' for 1,
// 'ort@N' for N); each irm library (so, default default.so, with
// default.params; aot) is called through koffi at its workspace entry
// with set_params given the params file and, for a library built for the
// cpp runtime, set_pool given a pool of `threads` threads from the shim
// (one library file per thread count: the pool pointer is the library's).
// Every round takes one sample of each system, in an order that rotates
// per round, each after a 20 ms pause (so no pool's spinning threads from
// the system before share its cores or its CPU time); the best CPU time
// (process.cpuUsage) and wall time per inference over the rounds are kept.
// A sample is `number` inferences back to back, the fewest that last
// min_sample_ms (default 10) by the best of five warm runs, as TVM's
// time_evaluator does: one inference of a sub-millisecond network after a
// pause measures its cold caches and its pool's wake-up more than the
// network.
// Prints one `@json {...}` line: per system its best CPU and wall ms per
// inference, its number and the max abs difference of its logits from the
// reference, and with profile,
// ONNX Runtime's per-node best durations from a second, profiled session.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function optional(name) {
  try {
    return require(name);
  } catch (e) {
    return { missing: `${name}: ${e.message.split('\n')[0]}` };
  }
}

function readFloats(file) {
  const b = fs.readFileSync(file);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

const ORT_OPTIONS = {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};

async function ortSystem(ort, cfg, x, threads) {
  const session = await ort.InferenceSession.create(cfg.onnx, { ...ORT_OPTIONS, intraOpNumThreads: threads });
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', x, cfg.input_shape) };
  const name = session.outputNames[0];
  return { label: threads === 1 ? 'ort' : `ort@${threads}`, run: async () => (await session.run(feeds))[name].data };
}

function irmSystem(koffi, shim, lib, x) {
  const so = koffi.load(path.join(lib.folder, lib.so || 'default.so'));
  const meta = JSON.parse(so.func('const char *tvmgen_default_metadata(void)')());
  if (!meta.workspace_entry) throw new Error(`${lib.label}: an aot library without a workspace entry (rebuild it)`);
  const entry = so.func(`int32_t ${meta.workspace_entry}(void **inputs, void **outputs, void *ws)`);
  if (meta.parallel) {
    if (!shim) throw new Error(`${lib.label}: built for threads, but no pool shim was given`);
    const pool = shim.pool(lib.threads || 1);
    if (!pool) throw new Error(`${lib.label}: no pool of ${lib.threads} threads`);
    const rc = so.func('int32_t tvmgen_default_set_pool(void *pool)')(pool);
    if (rc !== 0) throw new Error(`${lib.label}: set_pool returned ${rc}`);
  }
  const ws = shim ? shim.workspace(meta.workspace_bytes + 1, Math.max(meta.workspace_alignment, 64)) : null;
  if (!ws) throw new Error(`${lib.label}: no workspace (the pool shim is missing)`);
  const run = (ins, outs) => entry(ins, outs, ws);
  if (meta.set_params) {
    const blob = fs.readFileSync(path.join(lib.folder, meta.params_file));
    const rc = so.func(`int32_t ${meta.set_params}(const void *blob, size_t size)`)(blob, blob.length);
    if (rc !== 0) throw new Error(`${lib.label}: ${meta.set_params} returned ${rc}`);
  }
  if (meta.inputs.length !== 1 || meta.outputs.length !== 1) throw new Error(`${lib.label}: expected one input and one output`);
  const y = new Float32Array(meta.outputs[0].shape.reduce((a, b) => a * b, 1));
  // the entry's structs hold one pointer per input / output: arrays of one pointer
  const ins = [x];
  const outs = [y];
  return {
    label: `irm:${lib.label}`,
    run: async () => {
      const rc = run(ins, outs);
      if (rc !== 0) throw new Error(`${lib.label}: ${meta.entry} returned ${rc}`);
      return y;
    },
  };
}

// The shim's loop of register-only arithmetic on a pool of `threads`: how
// much of two cores the host gave in the same rounds as the systems.
function machineSystem(shim, threads) {
  const pool = shim.pool(threads);
  if (!pool) throw new Error(`machine@${threads}: no pool`);
  return {
    label: `machine@${threads}`,
    run: async () => {
      if (shim.machine(pool, 64) < 0) throw new Error('machine: bad unit count');
      return null;
    },
  };
}

async function measure(systems, rounds, ref, minSampleMs) {
  for (const s of systems) {
    s.cpu = Infinity;
    s.wall = Infinity;
    const first = await s.run(); // also the warm-up
    s.diff = first ? maxAbsDiff(first, ref) : null;
    // an inference's time: the best of a few, since one slow first run
    // (a pool waking, a page fault) gave a 0.7 ms network samples of 3
    // inferences, each paying a third of the next sample's wake-up
    let once = Infinity;
    for (let k = 0; k < 5; k++) {
      const w0 = process.hrtime.bigint();
      await s.run();
      once = Math.min(once, Number(process.hrtime.bigint() - w0) / 1e6);
    }
    s.number = Math.max(1, Math.ceil(minSampleMs / Math.max(once, 1e-3)));
  }
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < systems.length; i++) {
      const s = systems[(i + r) % systems.length];
      // a collection, then a pause: neither V8's garbage (ONNX Runtime's
      // outputs; its helper threads collected it during the next sample,
      // whose CPU time then exceeded its wall time) nor the last system's
      // idle threads (ONNX Runtime's and irm's pools spin before they
      // sleep) may run beside this one
      if (globalThis.gc) globalThis.gc();
      await new Promise((res) => setTimeout(res, 20));
      const c0 = process.cpuUsage();
      const w0 = process.hrtime.bigint();
      for (let k = 0; k < s.number; k++) await s.run();
      const wall = Number(process.hrtime.bigint() - w0) / 1e6 / s.number;
      const c = process.cpuUsage(c0);
      s.wall = Math.min(s.wall, wall);
      s.cpu = Math.min(s.cpu, (c.user + c.system) / 1e3 / s.number);
    }
  }
}

// ONNX Runtime's trace: per node, its op, provider and best duration (us) over the runs.
async function ortProfile(ort, cfg, x) {
  const session = await ort.InferenceSession.create(cfg.onnx, {
    ...ORT_OPTIONS,
    enableProfiling: true,
    profileFilePrefix: cfg.profile.prefix,
  });
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', x, cfg.input_shape) };
  for (let i = 0; i < cfg.profile.runs + 1; i++) await session.run(feeds);
  session.endProfiling();
  const dir = path.dirname(cfg.profile.prefix);
  const base = path.basename(cfg.profile.prefix);
  const files = fs.readdirSync(dir).filter((f) => f.startsWith(base) && f.endsWith('.json'))
    .map((f) => path.join(dir, f)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  if (!files.length) throw new Error(`no profile written at ${cfg.profile.prefix}*.json`);
  const nodes = new Map();
  const runs = [];
  for (const ev of JSON.parse(fs.readFileSync(files[0], 'utf8'))) {
    if (ev.cat === 'Session' && ev.name === 'model_run') runs.push(ev.dur);
    if (ev.cat !== 'Node' || !ev.name.endsWith('_kernel_time')) continue;
    const name = ev.name.slice(0, -'_kernel_time'.length);
    const n = nodes.get(name) || { name, op: ev.args.op_name, provider: ev.args.provider, us: Infinity, order: nodes.size };
    n.us = Math.min(n.us, ev.dur);
    nodes.set(name, n);
  }
  for (const f of files) fs.unlinkSync(f);
  return { file: files[0], model_run_us: Math.min(...runs.slice(1)), nodes: [...nodes.values()] };
}

async function main() {
  const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const x = readFloats(cfg.input);
  const ref = readFloats(cfg.reference);
  const ort = optional('onnxruntime-node');
  const koffi = optional('koffi');
  const systems = [];
  const skipped = [];
  let ortVersion = null;
  if (ort.missing) skipped.push(`ort (${ort.missing}; cd bench/models && npm ci --ignore-scripts)`);
  else {
    ortVersion = require('onnxruntime-node/package.json').version;
    for (const t of cfg.ort_threads || [1]) systems.push(await ortSystem(ort, cfg, x, t));
  }
  let shim = null;
  if (!koffi.missing && cfg.pool_shim) {
    const lib = koffi.load(cfg.pool_shim);
    shim = {
      pool: lib.func('void *irm_bench_pool(int threads)'),
      workspace: lib.func('void *irm_bench_workspace(size_t bytes, size_t align)'),
      machine: lib.func('double irm_bench_machine(void *pool, int units)'),
    };
  }
  if (koffi.missing) skipped.push(`irm (${koffi.missing})`);
  else for (const lib of cfg.libs) systems.push(irmSystem(koffi, shim, lib, x));
  if (shim) for (const t of cfg.machine_threads || []) systems.push(machineSystem(shim, t));
  for (const s of skipped) console.log(`# ${cfg.network}: skipping ${s}`);
  await measure(systems, cfg.rounds, ref, cfg.min_sample_ms ?? 10);
  const result = { ort_version: ortVersion, skipped, systems: {} };
  for (const s of systems) result.systems[s.label] = { cpu_ms: s.cpu, wall_ms: s.wall, number: s.number, diff: s.diff };
  if (cfg.profile && !ort.missing) result.profile = await ortProfile(ort, cfg, x);
  console.log(`@json ${JSON.stringify(result)}`);
}

main().catch((e) => {
  console.log(`@error ${e.stack || e}`);
  process.exitCode = 1;
});
