// irm from Node.js: the registries, kinds, module attributes and passes of
// libirm over its C ABI, through koffi (nothing to compile). See docs/node.md.
//
// libirm is found through IRM_LIBRARY, then beside this package, then the
// source tree's build folders (build, build-test), then the install prefix
// holding the package, then the system loader (lib/native.js); the error
// lists every path tried. The plugins named by IRM_PLUGIN_PATH are loaded
// when the package is imported.
import { C, LIBRARY_PATH, koffi } from './lib/native.js';
import {
  IrmError, ERRORS, IrmObject, IrmFunction, IrmArray, IrmMap, Pointer, registerObject, global,
  getGlobalFunc, registerFunc, removeGlobalFunc, listGlobalFuncNames, fromJSON, liveCallbacks,
  check, busyCall,
} from './lib/ffi.js';

export {
  IrmError, IrmObject, IrmFunction, IrmArray, IrmMap, Pointer, getGlobalFunc, registerFunc,
  removeGlobalFunc, listGlobalFuncNames, fromJSON, LIBRARY_PATH,
};
export const {
  ValueError, TypeError, KeyError, AttributeError, IndexError, RuntimeError, PluginError, MemoryError,
} = ERRORS;
export const version = C.version();

/** How many JavaScript functions handed to the library are still alive
 * there (each is released when the library drops it). */
export { liveCallbacks };

function made(cls, obj) {
  // A constructor's result: the wrapper the global returned, adopted by `this`.
  if (!(obj instanceof IrmObject)) throw new RuntimeError(`${cls.name}: the library returned ${obj}`);
  return obj;
}

function toPlain(v) {
  if (v instanceof IrmMap) return Object.fromEntries(v.entries().map(([k, x]) => [k, toPlain(x)]));
  if (v instanceof IrmArray) return v.toArray().map(toPlain);
  return v;
}

// ---- targets, executors, runtimes -------------------------------------------

/** A compilation target: `new Target('llvm -mcpu=skylake')`, `new
 * Target({kind: 'llvm', mcpu: 'skylake'})` or a tag; `host` takes the same
 * forms. String(target) is the canonical text. */
export class Target extends IrmObject {
  constructor(target, host) {
    const args = host === undefined || host === null ? [target] : [target, host];
    return made(Target, global('target.Target')(...args));
  }

  get kind() { return global('target.Kind')(this); }

  get keys() { return [...global('target.Keys')(this)]; }

  get host() { return global('target.Host')(this); }

  getAttr(key) { return global('target.GetAttr')(this, key); }

  /** The full configuration as a plain object (target.Export). */
  export() { return toPlain(global('target.Export')(this)); }

  toString() { return global('target.AsString')(this); }

  /** Runs fn with this target as the thread's current one. */
  run(fn) {
    global('target.EnterScope')(this);
    try {
      return fn();
    } finally {
      global('target.ExitScope')(this);
    }
  }

  static current() { return global('target.Current')(); }

  static listKinds() { return [...global('target.ListKinds')()]; }

  static listKindOptions(kind) { return toPlain(global('target.ListKindOptions')(kind)); }

  static listTags() { return [...global('target.ListTags')()]; }
}
registerObject('target.Target', Target);

class Config extends IrmObject {
  static create(cls, kind, options) {
    const args = options === undefined || options === null ? [kind] : [kind, options];
    return made(cls, global(`${cls.prefix}.Create`)(...args));
  }

  /** The kind name ("aot", "crt", ...). */
  get name() { return global(`${this.constructor.prefix}.Name`)(this); }

  /** Every option with its value (defaults filled in), as a plain object. */
  get attrs() { return toPlain(global(`${this.constructor.prefix}.Attrs`)(this)); }

  /** An option's value (null when unset; irm.AttributeError for an unknown one). */
  get(key) { return global(`${this.constructor.prefix}.GetAttr`)(this, key); }

  toString() { return this.name; }

  static listRegistered() { return [...global(`${this.prefix}.ListKinds`)()]; }

  static listRegisteredOptions(kind) { return toPlain(global(`${this.prefix}.ListOptions`)(String(kind))); }

  static getKindAttr(kind, attr) { return global(`${this.prefix}.GetKindAttr`)(kind, attr); }

  static setKindAttr(kind, attr, value, plevel = 10) {
    global(`${this.prefix}.SetKindAttr`)(kind, attr, value, plevel);
  }
}

/** How the compiled model runs: `new Executor('aot', {'unpacked-api': true})`.
 * String(executor) is the kind name, as Python's str(). */
export class Executor extends Config {
  constructor(kind, options) { return Config.create(Executor, kind, options); }
}
Executor.prefix = 'executor';
registerObject('ir.Executor', Executor);

/** The runtime the compiled model links against: `new Runtime('crt', {'system-lib': true})`. */
export class Runtime extends Config {
  constructor(kind, options) { return Config.create(Runtime, kind, options); }
}
Runtime.prefix = 'runtime';
registerObject('ir.Runtime', Runtime);

function registerKind(prefix, name, options, attrs) {
  global(`${prefix}.RegisterKind`)(name, options || {});
  for (const [attr, value] of Object.entries(attrs || {})) global(`${prefix}.SetKindAttr`)(name, attr, value);
}

/** Registers an executor kind: options maps an option name to a type name
 * ("bool", "int", "float", "str", ...) or to {type, default, doc, required};
 * attrs sets kind attributes. */
export function registerExecutorKind(name, options, attrs) { registerKind('executor', name, options, attrs); }

export function registerRuntimeKind(name, options, attrs) { registerKind('runtime', name, options, attrs); }

export function registerTargetKind(name, options, attrs) { registerKind('target', name, options, attrs); }

// ---- modules and IR -----------------------------------------------------------

/** A module: functions by name and typed attributes. Modules are values:
 * withAttr/withoutAttr return a new module. */
export class IRModule extends IrmObject {
  constructor(functions, attrs) {
    const args = [functions || {}];
    if (attrs) args.push(attrs);
    return made(IRModule, global('ir.IRModule')(...args));
  }

  getAttr(key) { return global('ir.ModuleGetAttr')(this, key); }

  withAttr(key, value) { return global('ir.ModuleWithAttr')(this, key, value); }

  withoutAttr(key) { return global('ir.ModuleWithoutAttr')(this, key); }

  get attrs() { return global('ir.ModuleAttrs')(this); }

  get functionNames() { return [...global('ir.ModuleFunctionNames')(this)]; }

  freeze() { return global('ir.ModuleFreeze')(this); }

  get isFrozen() { return global('ir.ModuleIsFrozen')(this); }

  /** The IR text (ir.Print); ir.parse reads it back. */
  text(options) { return ir.text(this, options); }

  static listAttrKeys() { return toPlain(global('ir.ListModuleAttrKeys')()); }

  static registerAttrKey(key, typeName, passInvariant = false) {
    global('ir.RegisterModuleAttrKey')(key, typeName, passInvariant);
  }
}
registerObject('ir.IRModule', IRModule);

export const ir = {
  /** The IRModule an IR text describes (ir.Parse). */
  parse(text) { return global('ir.Parse')(text); },
  /** The IR text of a module or node (ir.Print); {elideLargerThan: N} elides big tensors. */
  text(node, { elideLargerThan } = {}) {
    return elideLargerThan ? global('ir.Print')(node, { elide_larger_than: elideLargerThan })
      : global('ir.Print')(node);
  },
  exampleModel(name = 'cnn') { return global('ir.ExampleModel')(name); },
  evaluate(mod, name, inputs) { return global('ir.Evaluate')(mod, name, inputs); },
};

// ---- passes -----------------------------------------------------------------

/** A pass: pass.run(mod) runs it under the current PassContext. String(pass)
 * is its pipeline text. */
export class Pass extends IrmObject {
  run(mod) { return global('transform.RunPass')(this, mod); }

  get info() { return toPlain(global('transform.PassInfo')(this)); }

  get name() { return this.info.name; }

  toString() { return global('transform.PrintPipeline')(this); }

  static get(name, options) {
    return options ? global('transform.GetPass')(name, options) : global('transform.GetPass')(name);
  }

  static listRegistered() { return [...global('transform.ListPasses')()]; }
}
registerObject('transform.Pass', Pass);

/** The pass a pipeline text describes, e.g. "Sequential(A,B{x=1})". */
export function parsePipeline(text) { return global('transform.ParsePipeline')(text); }

export function sequential(passes, { optLevel = 0, name = 'sequential' } = {}) {
  return global('transform.Sequential')(passes, optLevel, name);
}

/** A module pass running fn(mod, ctx) -> mod, usable anywhere a C pass is
 * (inside C Sequentials and pipelines). */
export function modulePass(fn, { optLevel = 0, name = fn.name || 'js_pass', required } = {}) {
  const args = [fn, optLevel, name];
  if (required) args.push(required);
  return global('transform.CreateModulePass')(...args);
}

/** A function pass running fn(func, mod, ctx) -> func on each function. */
export function functionPass(fn, { optLevel = 0, name = fn.name || 'js_pass', required } = {}) {
  const args = [fn, optLevel, name];
  if (required) args.push(required);
  return global('transform.CreateFunctionPass')(...args);
}

/** The settings passes run under: `new PassContext({optLevel: 3, config:
 * {...}})`; ctx.run(() => ...) runs a function inside it. */
export class PassContext extends IrmObject {
  constructor({ optLevel = 2, requiredPass = [], disabledPass = [], config = {}, instruments = [] } = {}) {
    const ctx = global('transform.PassContext')(optLevel, requiredPass, disabledPass, config, instruments);
    return made(PassContext, ctx);
  }

  /** Calls fn() between transform.EnterPassContext and ExitPassContext. */
  run(fn) {
    global('transform.EnterPassContext')(this);
    try {
      return fn();
    } finally {
      global('transform.ExitPassContext')(this);
    }
  }

  get info() { return toPlain(global('transform.PassContextInfo')(this)); }

  get optLevel() { return this.info.opt_level; }

  get config() { return this.info.config; }

  static current() { return global('transform.CurrentPassContext')(); }
}
registerObject('transform.PassContext', PassContext);

// ---- plugins ----------------------------------------------------------------

/** Loads a plugin shared object; gives {name, version, path}. irm.PluginError when it cannot. */
export function loadPlugin(path) { return toPlain(global('plugin.Load')(String(path))); }

export function listPlugins() { return toPlain(global('plugin.List')()); }

// ---- tensors ----------------------------------------------------------------

const DTYPES = new Map([
  [Float32Array, 'float32'], [Int32Array, 'int32'], [Int8Array, 'int8'], [Uint8Array, 'uint8'],
]);
const ARRAYS = { float32: Float32Array, int32: Int32Array, int8: Int8Array, uint8: Uint8Array,
  bool: Uint8Array, float16: Uint16Array };
const TENSOR_VIEW = Symbol('irm.Tensor');

/** A dense CPU tensor (ffi.Tensor), read-only once made. */
export class Tensor extends IrmObject {
  /** A tensor holding a copy of a typed array (Float32Array, Int32Array,
   * Int8Array, Uint8Array; dtype 'bool' or 'float16' for Uint8Array /
   * Uint16Array bits; another dtype, such as 'int64', from any typed array
   * of exactly its bytes), shaped by shape (default: one dimension). */
  constructor(data, shape, dtype) {
    if (!ArrayBuffer.isView(data) || data instanceof DataView) {
      throw new TypeError(`Tensor(): argument 1 (data) must be a typed array, got ${typeof data}`);
    }
    const dt = dtype || DTYPES.get(data.constructor);
    if (!dt) throw new TypeError(`Tensor(): ${data.constructor.name} has no irm dtype; pass one of float32, int32, int8, uint8, bool, float16`);
    if (dtype && ARRAYS[dtype] && !(data instanceof ARRAYS[dtype])) {
      throw new TypeError(`Tensor(): dtype ${dtype} needs a ${ARRAYS[dtype].name}, got ${data.constructor.name}`);
    }
    const dims = shape ? [...shape] : [data.length];
    const count = dims.reduce((a, b) => a * b, 1);
    if (ARRAYS[dt] && count !== data.length) {
      throw new ValueError(`Tensor(): shape [${dims}] holds ${count} elements, the data has ${data.length}`);
    }
    // ffi.Tensor copies count elements of dt: the typed array must hold that
    // many bytes for every dtype, not only the ones of the table above
    const elem = global('ffi.TensorNbytes')(global('ffi.Tensor')(dt, [1], null));
    if (count * elem !== data.byteLength) {
      throw new ValueError(`Tensor(): ${count} elements of ${dt} take ${count * elem} bytes, the ${data.constructor.name} holds ${data.byteLength}`);
    }
    const ptr = data.byteLength ? new Pointer(koffi.address(data)) : null;
    const t = global('ffi.Tensor')(dt, dims, ptr); // copies the data
    return made(Tensor, t);
  }

  get shape() { return [...global('ffi.TensorShape')(this)]; }

  get dtype() { return global('ffi.TensorDtype')(this); }

  get nbytes() { return global('ffi.TensorNbytes')(this); }

  /** A typed array viewing the tensor's data without a copy; it keeps the
   * tensor alive (its own reference, released when the buffer is collected)
   * even after dispose(). Read-only by contract: tensors are immutable. */
  toTypedArray() {
    const Ctor = ARRAYS[this.dtype];
    const n = this.nbytes;
    if (n === 0) return new Ctor(0);
    const ptr = global('ffi.TensorData')(this);
    const ab = koffi.view(koffi.decode(Buffer.from(new BigUint64Array([BigInt(ptr.address)]).buffer), 'void *'), n);
    const keeper = Object.create(Tensor.prototype);
    C.retain(this.handle);
    keeper._adopt({ _handle: this.handle });
    Object.defineProperty(ab, TENSOR_VIEW, { value: keeper });
    return new Ctor(ab);
  }

  /** A copy of the data in a new typed array. */
  toArray() { return new ARRAYS[this.dtype](this.toTypedArray()); }
}
registerObject('ffi.Tensor', Tensor);

// ---- loaded libraries ---------------------------------------------------------

/** A module of a library a build exported (irm.load; runtime.Module). A run
 * blocks the calling thread while the library's kernels use numThreads
 * threads (docs/threads.md). */
export class RuntimeModule extends IrmObject {
  /** The threads this module's kernels may use (1 for a library without threads). */
  get numThreads() { return global('runtime.ModuleNumThreads')(this); }

  /** The library's metadata (inputs, outputs, executor, num_threads, ...). */
  get metadata() { return JSON.parse(global('runtime.ModuleMetadata')(this)); }

  /** Runs on inputs (Tensors, in order); gives the outputs, an array of Tensors. */
  run(inputs) { return [...global('runtime.ModuleRun')(this, [...inputs])]; }
}
registerObject('runtime.Module', RuntimeModule);

/** Loads module modName of the library at path (absent: the library's only
 * module) through runtime.Load. numThreads: the threads its kernels may use,
 * 0 for every CPU the process may use; absent, the IRM_NUM_THREADS
 * environment variable, else the Runtime's num-threads the library was built
 * with. irm.TypeError for a numThreads that is no integer, irm.ValueError
 * for a negative or too large one and for a library that does not load. */
export function load(path, { modName, numThreads } = {}) {
  const args = [String(path)];
  const name = modName === undefined || modName === null ? null : String(modName);
  if (numThreads !== undefined && numThreads !== null) {
    if (typeof numThreads !== 'number' || !Number.isInteger(numThreads)) {
      throw new TypeError(`load(): numThreads must be an integer, got ${typeof numThreads} ${String(numThreads)}`);
    }
    if (numThreads < 0) {
      throw new ValueError(`load(): numThreads must be 0 (every CPU) or a thread count, got ${numThreads}`);
    }
    args.push(name, numThreads);
  } else if (name !== null) {
    args.push(name);
  }
  return global('runtime.Load')(...args);
}

check(busyCall(C.pluginLoadFromEnv));
