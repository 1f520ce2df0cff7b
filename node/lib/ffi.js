// Values, objects, functions and errors across the irm C ABI.
import {
  C, koffi, PackedCFunc, Finalizer, HOME, HOME_STATE, NONE, INT, BOOL, FLOAT, PTR, STR, OBJECT, ANY_SIZE,
} from './native.js';

const TWO32 = 4294967296;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

// ---- errors -----------------------------------------------------------------

/** Every error irm reports: `kind` is the library's kind name. */
export class IrmError extends Error {
  get kind() { return this.constructor.kind; }
}
IrmError.kind = 'RuntimeError';

function kindClass(kind) {
  const cls = { [kind]: class extends IrmError {} }[kind];
  Object.defineProperty(cls.prototype, 'name', { value: kind });
  cls.kind = kind;
  return cls;
}

export const KINDS = ['TypeError', 'ValueError', 'KeyError', 'AttributeError', 'IndexError',
  'RuntimeError', 'PluginError', 'MemoryError'];
export const ERRORS = Object.fromEntries(KINDS.map((k) => [k, kindClass(k)]));
// Status codes of c_api.h's IRM_ERROR_KINDS, for a failure without a message.
const STATUS_KIND = { '-1': 'TypeError', '-2': 'ValueError', '-3': 'KeyError',
  '-4': 'AttributeError', '-5': 'IndexError', '-6': 'RuntimeError', '-7': 'PluginError',
  '-8': 'MemoryError' };

/** The error a library message "Kind: text" stands for (text without the kind). */
export function errorOf(msg, rc) {
  const sep = msg.indexOf(': ');
  const kind = sep > 0 ? msg.slice(0, sep) : '';
  if (ERRORS[kind]) return new ERRORS[kind](msg.slice(sep + 2));
  const fallback = STATUS_KIND[String(rc)] || 'RuntimeError';
  return new ERRORS[fallback](msg || `irm call failed with status ${rc}`);
}

export function lastError(rc) {
  return errorOf(C.lastError() || '', rc);
}

export function check(rc) {
  if (rc !== 0) throw lastError(rc);
}

/** "Kind: text" for a JavaScript exception thrown in a callback. */
function errorText(err) {
  let kind = 'RuntimeError';
  if (err instanceof IrmError) kind = err.kind;
  else if (err instanceof TypeError) kind = 'TypeError';
  else if (err instanceof RangeError) kind = 'ValueError';
  const text = err instanceof Error ? err.message : String(err);
  return `${kind}: ${text}`;
}

function valueError(text) { return new ERRORS.ValueError(text); }
function typeError(text) { return new ERRORS.TypeError(text); }

// ---- objects ----------------------------------------------------------------

const released = new FinalizationRegistry((handle) => C.release(handle));
const CLASSES = new Map(); // type key -> class

export function registerObject(typeKey, cls) {
  CLASSES.set(typeKey, cls);
  cls.typeKey = typeKey;
  return cls;
}

/** A reference-counted irm object; the wrapper owns one reference, released
 * by dispose() or when the wrapper is garbage collected. */
export class IrmObject {
  constructor() {
    throw typeError(`${new.target.name} objects are made by the library`);
  }

  /** Takes the reference of a freshly made object (used by constructors). */
  _adopt(made) {
    const handle = made._handle;
    released.unregister(made);
    made._handle = 0;
    this._handle = handle;
    released.register(this, handle, this);
    return this;
  }

  get handle() {
    if (!this._handle) throw valueError(`this ${this.constructor.name} was disposed`);
    return this._handle;
  }

  /** Releases the object now; the wrapper is unusable afterwards. */
  dispose() {
    if (this._handle) {
      released.unregister(this);
      C.release(this._handle);
      this._handle = 0;
    }
  }

  // `using` (explicit resource management) where the runtime has it.
  [Symbol.dispose || Symbol.for('nodejs.dispose')]() { this.dispose(); }

  get typeKey() { return C.typeKey(this.handle); }

  toString() { return global('ffi.Repr')(this); }

  /** The object as the library's JSON text (ffi.ToJSON), lossless for
   * 64-bit integers; irm.fromJSON(text) reads it back. */
  toJSON() { return global('ffi.ToJSON')(this); }

  /** Structural equality (ffi.StructuralEqual). */
  equals(other) {
    if (!(other instanceof IrmObject)) return false;
    return global('ffi.StructuralEqual')(this, other);
  }

  /** Structural hash (ffi.StructuralHash). */
  hash() { return global('ffi.StructuralHash')(this); }

  /** Identity: both wrappers hold the same object. */
  sameAs(other) { return other instanceof IrmObject && other._handle === this._handle; }

  get _refcount() { return C.refcount(this.handle); }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return this._handle ? `${this.constructor.name} ${this.toString()}` : `${this.constructor.name} <disposed>`;
  }
}

/** Wraps a NEW reference in the JavaScript class of its type. */
export function wrap(handle) {
  const key = C.typeKey(handle);
  if (key === 'ffi.String') {
    const s = readString(handle);
    C.release(handle);
    return s;
  }
  if (key === 'ffi.Function') return wrapFunction(handle);
  let cls = CLASSES.get(key);
  if (cls === undefined) {
    cls = IrmObject;
    for (const [other, ocls] of CLASSES) {
      if (ocls.prototype instanceof cls && C.isA(handle, other)) cls = ocls;
    }
  }
  const obj = Object.create(cls.prototype);
  obj._handle = handle;
  released.register(obj, handle, obj);
  return obj;
}

function readString(handle) {
  const n = Number(C.stringSize(handle));
  if (n === 0) return '';
  return Buffer.from(koffi.view(C.stringData(handle), n)).toString('utf8');
}

function newString(text) {
  const data = Buffer.from(text, 'utf8');
  const out = new BigUint64Array(1);
  check(C.stringNew(data, data.length, out));
  return Number(out[0]);
}

// ---- values -----------------------------------------------------------------

function readAddress(buf, off) {
  return buf.readUInt32LE(off) + buf.readUInt32LE(off + 4) * TWO32;
}

function writeAddress(buf, off, address) {
  buf.writeUInt32LE(address % TWO32, off);
  buf.writeUInt32LE(Math.floor(address / TWO32), off + 4);
}

function readInt(buf, off) {
  const hi = buf.readInt32LE(off + 4);
  const lo = buf.readUInt32LE(off);
  // Exact as a Number when |value| < 2^53 (hi within 21 bits).
  if (hi >= -0x200000 && hi < 0x200000) return hi * TWO32 + lo;
  return buf.readBigInt64LE(off);
}

/** A returned irm_any (owning its object) as a JavaScript value. */
export function fromAny(buf, off = 0) {
  const code = buf.readInt32LE(off);
  switch (code) {
    case NONE: return null;
    case INT: return readInt(buf, off + 8);
    case BOOL: return buf.readUInt32LE(off + 8) !== 0 || buf.readUInt32LE(off + 12) !== 0;
    case FLOAT: return buf.readDoubleLE(off + 8);
    case OBJECT: {
      const h = readAddress(buf, off + 8);
      return h ? wrap(h) : null;
    }
    case PTR: return new Pointer(readAddress(buf, off + 8));
    case STR: return koffi.decode(buf, off + 8, 'const char *');
    default: throw typeError(`irm: unknown type code ${code}`);
  }
}

/** An opaque pointer (IRM_PTR): never owned. `address` is a Number. */
export class Pointer {
  constructor(address) { this.address = Number(address); }
  toString() { return `0x${this.address.toString(16)}`; }
}

function isPlainObject(v) {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Converts a JavaScript value that is not a scalar to an irm object wrapper
 * (a new one the caller may dispose, or the value itself). */
export function asObject(value) {
  if (value instanceof IrmObject) return value;
  if (typeof value === 'function') {
    return value[FUNC] || convertFunc(value);
  }
  if (typeof value === 'string') return wrapRaw(newString(value));
  if (Array.isArray(value)) return global('ffi.Array')(...value);
  if (value instanceof Map) {
    const flat = [];
    for (const [k, v] of value) {
      if (typeof k !== 'string') throw typeError(`irm: Map keys must be strings, got ${typeof k}`);
      flat.push(k, v);
    }
    return global('ffi.Map')(...flat);
  }
  if (value !== null && typeof value === 'object' && isPlainObject(value)) {
    const flat = [];
    for (const k of Object.keys(value)) flat.push(k, value[k]);
    return global('ffi.Map')(...flat);
  }
  throw typeError(`irm: cannot convert ${describe(value)} to an irm value`);
}

function wrapRaw(handle) {
  const obj = Object.create(IrmObject.prototype);
  obj._handle = handle;
  released.register(obj, handle, obj);
  return obj;
}

function describe(v) {
  if (v === null) return 'null';
  if (typeof v === 'object') return v.constructor ? `a ${v.constructor.name}` : 'an object';
  return `${typeof v} ${String(v)}`;
}

function checkInt(v) {
  if (typeof v === 'bigint') {
    if (v < INT64_MIN || v > INT64_MAX) throw valueError(`irm: integer ${v} does not fit in int64`);
    return v;
  }
  if (v < -9223372036854775808 || v >= 9223372036854775808) {
    throw valueError(`irm: integer ${v} does not fit in int64`);
  }
  return v;
}

/** Stores value as the borrowed irm_any at buf[off]; keep collects what
 * must stay alive until the call returns (and owned: wrappers to dispose). */
function toAny(value, buf, off, keep) {
  if (value === null || value === undefined) {
    buf.writeInt32LE(NONE, off);
    buf.writeInt32LE(0, off + 4);
    buf.writeDoubleLE(0, off + 8);
    return;
  }
  buf.writeInt32LE(0, off + 4);
  switch (typeof value) {
    case 'number':
      if (Number.isInteger(value)) {
        checkInt(value);
        buf.writeInt32LE(INT, off);
        if (Number.isSafeInteger(value)) {
          buf.writeInt32LE(Math.floor(value / TWO32), off + 12);
          buf.writeUInt32LE(((value % TWO32) + TWO32) % TWO32, off + 8);
        } else {
          buf.writeBigInt64LE(BigInt(value), off + 8);
        }
      } else {
        buf.writeInt32LE(FLOAT, off);
        buf.writeDoubleLE(value, off + 8);
      }
      return;
    case 'bigint':
      checkInt(value);
      buf.writeInt32LE(INT, off);
      buf.writeBigInt64LE(value, off + 8);
      return;
    case 'boolean':
      buf.writeInt32LE(BOOL, off);
      buf.writeInt32LE(value ? 1 : 0, off + 8);
      buf.writeInt32LE(0, off + 12);
      return;
    case 'string': {
      if (value.indexOf('\0') < 0) {
        const data = Buffer.from(value + '\0', 'utf8');
        keep.push(data);
        buf.writeInt32LE(STR, off);
        writeAddress(buf, off + 8, Number(koffi.address(data)));
        return;
      }
      const obj = wrapRaw(newString(value)); // a C string cannot hold a NUL
      keep.push(obj);
      keep.owned.push(obj);
      buf.writeInt32LE(OBJECT, off);
      writeAddress(buf, off + 8, obj._handle);
      return;
    }
    default:
      break;
  }
  if (value instanceof IrmObject) {
    buf.writeInt32LE(OBJECT, off);
    writeAddress(buf, off + 8, value.handle);
    return;
  }
  if (value instanceof Pointer) {
    buf.writeInt32LE(PTR, off);
    writeAddress(buf, off + 8, value.address);
    return;
  }
  const fn = typeof value === 'function' ? value[FUNC] : undefined;
  if (fn !== undefined) {
    buf.writeInt32LE(OBJECT, off);
    writeAddress(buf, off + 8, fn.handle);
    return;
  }
  const obj = asObject(value);
  keep.push(obj);
  keep.owned.push(obj);
  buf.writeInt32LE(OBJECT, off);
  writeAddress(buf, off + 8, obj.handle);
}

// ---- calls ------------------------------------------------------------------

// Every synchronous call into libirm that may run code which waits for
// another thread (function calls, plugin loads) marks the main thread busy
// (HOME[0], nesting) for the guard of the package's callbacks, which then
// refuses calls relayed from other threads instead of deadlocking
// (docs/node.md, "Threads"). Leaving the outermost call runs the finalizers
// other threads deferred meanwhile.
function leave() {
  if (--HOME[0] === 0 && HOME[1] !== 0) C.runDeferredFinalizers();
}

/** Calls the C function f(...args) with the main thread marked busy. */
export function busyCall(f, ...args) {
  HOME[0]++;
  try {
    return f(...args);
  } finally {
    leave();
  }
}

// Argument and result buffers, one pair per nesting depth (a callback may
// call irm again while its caller's arguments are still being read).
const frames = [];
let depth = 0;

function frame(nargs) {
  let fr = frames[depth];
  if (fr === undefined) fr = frames[depth] = { args: Buffer.alloc(ANY_SIZE * 8), ret: Buffer.alloc(ANY_SIZE) };
  if (fr.args.length < nargs * ANY_SIZE) fr.args = Buffer.alloc(nargs * ANY_SIZE);
  return fr;
}

function disposeAll(list) {
  for (const o of list) o.dispose();
}

const NO_KEEP = Object.freeze(Object.assign([], { owned: Object.freeze([]) }));

/** Calls the function object handle with JavaScript arguments. */
export function callPacked(handle, args) {
  const n = args.length;
  const fr = frame(n);
  const buf = fr.args;
  let keep = NO_KEEP;
  depth++;
  try {
    for (let i = 0; i < n; i++) {
      const v = args[i];
      const off = i * ANY_SIZE;
      if (v instanceof IrmObject) { // the common case first
        buf.writeInt32LE(OBJECT, off);
        buf.writeInt32LE(0, off + 4);
        writeAddress(buf, off + 8, v.handle);
        continue;
      }
      if (keep === NO_KEEP && typeof v !== 'number' && typeof v !== 'boolean' && v != null) {
        keep = [];
        keep.owned = [];
      }
      toAny(v, buf, off, keep);
    }
    // irm sets *ret to NONE before the call
    HOME[0]++;
    let rc;
    try {
      rc = C.call(handle, buf, n, fr.ret);
    } finally {
      leave();
    }
    if (rc !== 0) throw lastError(rc);
    return fromAny(fr.ret);
  } finally {
    depth--;
    if (keep.owned.length) disposeAll(keep.owned);
  }
}

// ---- functions --------------------------------------------------------------

export const FUNC = Symbol('irm.Function');

/** The object behind a JavaScript function that calls an irm function. */
export class IrmFunction extends IrmObject {}
registerObject('ffi.Function', IrmFunction);

// Native functions of scalar signatures are called straight through a koffi
// prototype built from irm_func_signature and irm_func_native_pointer: the C
// call irm would make, without packing irm_any arrays. Arguments must have
// exactly the JavaScript type and range of their C type; anything else takes
// the packed path, which converts or reports the error.
const SCALARS = {
  i64: ['int64_t', 'Number.isSafeInteger(%)'],
  i32: ['int32_t', '(typeof % === "number" && (% | 0) === %)'],
  u64: ['uint64_t', '(Number.isSafeInteger(%) && % >= 0)'],
  f64: ['double', 'typeof % === "number"'],
  f32: ['float', 'typeof % === "number"'],
  bool: ['bool', 'typeof % === "boolean"'],
};
const directCache = new Map(); // "address signature" -> maker

function directMaker(handle) {
  const sig = C.signature(handle);
  if (!sig) return null;
  const ptr = C.nativePointer(handle);
  const key = `${koffi.address(ptr)} ${sig}`;
  if (directCache.has(key)) return directCache.get(key);
  const m = /^(\w+)\(([\w,]*)\)$/.exec(sig);
  let maker = null;
  if (m) {
    const ret = m[1];
    const names = m[2] ? m[2].split(',') : [];
    if (names.every((a) => SCALARS[a]) && (ret === 'void' || SCALARS[ret])) {
      const proto = koffi.proto(`${ret === 'void' ? 'void' : SCALARS[ret][0]} irm_node_native_${directCache.size}(${
        names.map((a, i) => `${SCALARS[a][0]} a${i}`).join(', ')})`);
      const direct = koffi.decode(ptr, proto);
      const params = names.map((_, i) => `a${i}`);
      const checks = names.map((a, i) => SCALARS[a][1].replaceAll('%', `a${i}`));
      const body = `return function irmNative(${params.join(', ')}) {\n` +
        `  if (arguments.length === ${names.length}${checks.map((c) => ` && ${c}`).join('')}) {\n` +
        `    HOME[0]++;\n    try { return direct(${params.join(', ')}); } finally { leave(); }\n  }\n` +
        '  return callPacked(holder.handle, Array.prototype.slice.call(arguments));\n};';
      // new Function: the body is built above from fixed pieces only
      maker = new Function('direct', 'callPacked', 'HOME', 'leave', 'holder', body)
        .bind(null, direct, callPacked, HOME, leave);
    }
  }
  directCache.set(key, maker);
  return maker;
}

/** A JavaScript function calling the irm function of handle (a NEW reference,
 * owned by the returned function). fn[FUNC] is its IrmFunction; fn.dispose()
 * releases it. */
export function wrapFunction(handle) {
  const holder = Object.create(IrmFunction.prototype);
  holder._handle = handle;
  const maker = directMaker(handle);
  const fn = maker ? maker(holder) : function irmFunction(...args) { return callPacked(holder.handle, args); };
  Object.defineProperty(fn, FUNC, { value: holder });
  fn.dispose = () => holder.dispose();
  // The function keeps the holder alive; the registry releases the handle
  // when the function (and so the holder) is collected.
  released.register(fn, handle, holder);
  return fn;
}

// Every JavaScript function handed to the library shares one registered
// trampoline; its resource is a key into callbacks, removed by the shared
// finalizer when the library drops the function.
const callbacks = new Map();
let nextKey = 1;

function trampoline(argsPtr, nargs, retPtr, resource) {
  try {
    const fn = callbacks.get(resource);
    if (fn === undefined) throw new ERRORS.RuntimeError('irm: JavaScript callback was released');
    const jsArgs = new Array(nargs);
    if (nargs > 0) {
      const args = Buffer.from(koffi.view(argsPtr, nargs * ANY_SIZE));
      for (let i = 0; i < nargs; i++) {
        const off = i * ANY_SIZE;
        const code = args.readInt32LE(off);
        if (code === OBJECT) {
          const h = readAddress(args, off + 8);
          if (h) C.retain(h); // borrowed: the wrapper takes its own reference
          jsArgs[i] = h ? wrap(h) : null;
        } else if (code === STR) {
          jsArgs[i] = koffi.decode(argsPtr, off + 8, 'const char *');
        } else {
          jsArgs[i] = fromAny(args, off);
        }
      }
    }
    const result = fn(...jsArgs);
    if (result === undefined || result === null) return 0; // irm set *ret to NONE
    const ret = Buffer.from(koffi.view(retPtr, ANY_SIZE));
    storeOwned(result, ret);
    return 0;
  } catch (err) {
    const text = errorText(err);
    C.setLastError(text);
    if (depth === 0) {
      // Not inside a call of this package: most likely koffi relayed a call
      // from another thread, whose irm error (per thread) this cannot set.
      process.emitWarning(`${text} (in a JavaScript callback called outside a call of the irm ` +
        'package, most likely from another thread, which sees "RuntimeError: function ... failed")',
      { type: 'IrmWarning', code: 'IRM_CALLBACK_ERROR_OTHER_THREAD' });
    }
    return -1;
  }
}

/** Stores value in ret owning a NEW reference (callback results). */
function storeOwned(value, ret) {
  const keep = [];
  keep.owned = [];
  if (typeof value === 'string') { // results hold Strings, never borrowed C strings
    const s = wrapRaw(newString(value));
    keep.owned.push(s);
    value = s;
  }
  try {
    toAny(value, ret, 0, keep);
    if (ret.readInt32LE(0) === OBJECT) C.retain(readAddress(ret, 8));
  } finally {
    disposeAll(keep.owned);
  }
}

function finalize(resource) {
  callbacks.delete(resource);
}

const TRAMPOLINE = koffi.register(trampoline, koffi.pointer(PackedCFunc));
const FINALIZER = koffi.register(finalize, koffi.pointer(Finalizer));

/** A new irm function object (IrmFunction wrapper) calling the JavaScript function fn. */
export function convertFunc(fn) {
  const key = nextKey++;
  callbacks.set(key, fn);
  const out = new BigUint64Array(1);
  const rc = C.newPackedGuarded(TRAMPOLINE, key, FINALIZER, HOME_STATE, out);
  if (rc !== 0) {
    finalize(key);
    throw lastError(rc);
  }
  const holder = Object.create(IrmFunction.prototype);
  holder._handle = Number(out[0]);
  released.register(holder, holder._handle, holder);
  return holder;
}

/** How many JavaScript functions the library still holds. */
export function liveCallbacks() {
  if (HOME[0] === 0 && HOME[1] !== 0) C.runDeferredFinalizers();
  return callbacks.size;
}

// ---- globals ----------------------------------------------------------------

const globalCache = new Map();

/** The global name as a cached JavaScript function (for the package's own use). */
export function global(name) {
  let fn = globalCache.get(name);
  if (fn === undefined) {
    fn = getGlobalFunc(name);
    globalCache.set(name, fn);
  }
  return fn;
}

/** The global function registered under name, as a JavaScript function. An
 * unknown name throws irm.KeyError with the closest registered name, or
 * gives null with {allowMissing: true}. */
export function getGlobalFunc(name, { allowMissing = false } = {}) {
  if (typeof name !== 'string') throw typeError(`getGlobalFunc(): name must be a string, got ${describe(name)}`);
  const out = new BigUint64Array(1);
  check(C.getGlobal(name, out));
  if (out[0] !== 0n) return wrapFunction(Number(out[0]));
  if (allowMissing) return null;
  // irm_func_call_global words the KeyError with the closest registered
  // name; for an absent name it calls nothing.
  const ret = Buffer.alloc(ANY_SIZE);
  const rc = busyCall(C.callGlobal, name, null, 0, ret);
  if (rc !== 0) throw lastError(rc);
  C.anyRelease(ret); // registered meanwhile: look again
  return getGlobalFunc(name, { allowMissing });
}

/** Registers a JavaScript function as the global name, callable from C (and
 * from Python in the same process). override replaces an existing one. */
export function registerFunc(name, fn, { override = false } = {}) {
  if (typeof fn !== 'function') throw typeError(`registerFunc(): argument 2 (fn) must be a function, got ${describe(fn)}`);
  const obj = fn[FUNC] || convertFunc(fn);
  try {
    check(C.registerGlobal(name, obj.handle, override ? 1 : 0));
  } finally {
    if (!fn[FUNC]) obj.dispose(); // the registry holds its own reference
  }
  globalCache.delete(name);
  return fn;
}

/** Removes a global function (irm.KeyError, with the closest name, when absent). */
export function removeGlobalFunc(name) {
  globalCache.delete(name);
  check(C.removeGlobal(name));
}

export function listGlobalFuncNames() {
  return [...global('ffi.ListGlobalFuncNames')()];
}

/** The object a JSON text (what toJSON() gives) describes (ffi.FromJSON). */
export function fromJSON(text) {
  return global('ffi.FromJSON')(text);
}

// ---- containers -------------------------------------------------------------

/** A read-only sequence (ffi.Array): length, at(i), iteration, toArray(). */
export class IrmArray extends IrmObject {
  get length() { return global('ffi.ArraySize')(this); }

  at(index) {
    const n = this.length;
    const i = index < 0 ? index + n : index;
    if (!(i >= 0 && i < n)) throw new ERRORS.IndexError(`array index ${index} out of range [0, ${n})`);
    return global('ffi.ArrayGetItem')(this, i);
  }

  * [Symbol.iterator]() {
    const get = global('ffi.ArrayGetItem');
    const n = this.length;
    for (let i = 0; i < n; i++) yield get(this, i);
  }

  toArray() { return [...this]; }
}
registerObject('ffi.Array', IrmArray);

/** A read-only map from strings to values, in insertion order (ffi.Map). */
export class IrmMap extends IrmObject {
  get size() { return global('ffi.MapSize')(this); }

  get(key) { return global('ffi.MapGetItem')(this, key); }

  has(key) { return this.keys().includes(key); }

  entries() {
    const flat = [...global('ffi.MapItems')(this)];
    const out = [];
    for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
    return out;
  }

  keys() { return this.entries().map(([k]) => k); }

  values() { return this.entries().map(([, v]) => v); }

  [Symbol.iterator]() { return this.entries()[Symbol.iterator](); }

  /** A plain object of the entries (values as they convert). */
  toObject() { return Object.fromEntries(this.entries()); }
}
registerObject('ffi.Map', IrmMap);
