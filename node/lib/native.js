// Finds and loads libirm, and declares the C ABI of irm/c_api.h to koffi.
//
// libirm is looked for in this order; the first path that loads wins:
//
// 1. IRM_LIBRARY, the library's path (when it does not load: an error).
// 2. Beside the package: <package>/libirm.so.0, <package>/libirm.so.
// 3. The build folders of the source tree (build, build-test; their lib
//    folder, then the folder itself), when the package is node/ of a source
//    tree.
// 4. The install prefix holding the package, for a package installed at
//    <prefix>/share/irm/node: <prefix>/lib, <prefix>/lib64 and
//    <prefix>/lib/<multiarch>.
// 5. The system loader (libirm.so.0, libirm.so).
//
// When none loads, the error lists every path tried and why it failed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import koffi from 'koffi';

const HERE = path.dirname(fileURLToPath(import.meta.url)); // node/lib
const PACKAGE = path.dirname(HERE); // node
const REPO = path.dirname(PACKAGE);
const NAMES = ['libirm.so.0', 'libirm.so'];
const BUILD_FOLDERS = ['build', 'build-test'];
const MULTIARCH = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };

function inFolder(folder) {
  return NAMES.map((name) => path.join(folder, name));
}

export function candidates(env = process.env) {
  const out = [];
  if (env.IRM_LIBRARY) out.push(['IRM_LIBRARY', env.IRM_LIBRARY]);
  for (const p of inFolder(PACKAGE)) out.push(['beside the package', p]);
  if (fs.existsSync(path.join(REPO, 'include', 'irm', 'version.h'))) {
    for (const build of BUILD_FOLDERS) {
      for (const sub of ['lib', '']) {
        for (const p of inFolder(path.join(REPO, build, sub))) {
          out.push([`the source tree's ${build} folder`, p]);
        }
      }
    }
  }
  // <prefix>/share/irm/node -> <prefix>
  const parts = PACKAGE.split(path.sep);
  if (parts.length > 3 && parts.slice(-3).join('/') === 'share/irm/node') {
    const prefix = parts.slice(0, -3).join(path.sep) || path.sep;
    const libdirs = ['lib', 'lib64'];
    if (MULTIARCH[process.arch]) libdirs.push(path.join('lib', MULTIARCH[process.arch]));
    for (const dir of libdirs) {
      for (const p of inFolder(path.join(prefix, dir))) out.push(['the install prefix', p]);
    }
  }
  return out;
}

function load() {
  const tried = [];
  for (const [where, p] of candidates()) {
    if (where !== 'IRM_LIBRARY' && !fs.existsSync(p)) {
      tried.push(`${where}: ${p} (no such file)`);
      continue;
    }
    try {
      return { lib: koffi.load(p, { global: true }), path: p };
    } catch (err) {
      if (where === 'IRM_LIBRARY') {
        throw new Error(`irm: cannot load IRM_LIBRARY=${p}: ${err.message}`);
      }
      tried.push(`${where}: ${p} (${err.message})`);
    }
  }
  for (const name of NAMES) {
    try {
      return { lib: koffi.load(name, { global: true }), path: name };
    } catch (err) {
      tried.push(`the system loader: ${name} (${err.message})`);
    }
  }
  throw new Error('irm: cannot find libirm. Tried, in order:\n  ' + tried.join('\n  ') +
    '\nSet IRM_LIBRARY to libirm\'s path, or build the source tree (build/ or build-test/) ' +
    '(docs/node.md, "Finding libirm").');
}

const loaded = load();
export const LIB = loaded.lib;
export const LIBRARY_PATH = loaded.path;

// Objects travel as their addresses (uintptr_t: a Number, exact below 2^53,
// which holds every user-space address). Out-parameters are a BigUint64Array
// of one slot; irm_any arrays are Buffers of 16 bytes per value.
const f = (decl) => LIB.func(decl);
export const C = {
  version: f('const char *irm_version(void)'),
  lastError: f('const char *irm_last_error(void)'),
  setLastError: f('void irm_set_last_error(const char *msg)'),
  retain: f('void irm_object_retain(uintptr_t o)'),
  release: f('void irm_object_release(uintptr_t o)'),
  typeKey: f('const char *irm_object_type_key(uintptr_t o)'),
  isA: f('int irm_object_is(uintptr_t o, const char *key)'),
  refcount: f('uint32_t irm_object_refcount(uintptr_t o)'),
  anyRelease: f('void irm_any_release(void *v)'),
  stringNew: f('int irm_string_new(const void *data, size_t len, void *out)'),
  stringData: f('void *irm_string_data(uintptr_t s)'),
  stringSize: f('size_t irm_string_size(uintptr_t s)'),
  getGlobal: f('int irm_func_get_global(const char *name, void *out)'),
  call: f('int irm_func_call(uintptr_t fn, void *args, int32_t nargs, void *ret)'),
  callGlobal: f('int irm_func_call_global(const char *name, void *args, int32_t nargs, void *ret)'),
  registerGlobal: f('int irm_func_register_global(const char *name, uintptr_t fn, int override)'),
  removeGlobal: f('int irm_func_remove_global(const char *name)'),
  signature: f('const char *irm_func_signature(uintptr_t fn)'),
  nativePointer: f('void *irm_func_native_pointer(uintptr_t fn)'),
  pluginLoad: f('int irm_plugin_load(const char *path)'),
  pluginLoadFromEnv: f('int irm_plugin_load_from_env(void)'),
};

export const PackedCFunc = koffi.proto(
  'int irm_node_packed_cfunc(void *args, int32_t nargs, void *ret, uintptr_t resource)');
export const Finalizer = koffi.proto('void irm_node_finalizer(uintptr_t resource)');
C.newPackedGuarded = f('int irm_func_new_packed_guarded(irm_node_packed_cfunc *fn, ' +
  'uintptr_t resource, irm_node_finalizer *finalizer, void *home_state, void *out)');
C.runDeferredFinalizers = f('int irm_func_run_deferred_finalizers(void)');

// The home state of every JavaScript function handed to the library
// (irm_func_new_packed_guarded): HOME[0] counts the synchronous calls into
// libirm the main thread is in (nesting), HOME[1] the finalizers other
// threads queued meanwhile. Native memory, never freed: the library may
// read it until the process ends.
export const HOME_STATE = koffi.alloc('int32_t', 2);
export const HOME = new Int32Array(koffi.view(HOME_STATE, 8));
HOME[0] = 0;
HOME[1] = 0;

export const NONE = 0;
export const INT = 1;
export const BOOL = 2;
export const FLOAT = 3;
export const PTR = 4;
export const STR = 5;
export const OBJECT = 6;
export const ANY_SIZE = 16;

export { koffi };
