/* irm._cext: the Python package's optional fast path, a CPython extension
 * (Debian's python3-dev). It does in C what python/irm/_ffi.py does with
 * ctypes on the hot paths: calling a Function (packing the arguments,
 * irm_func_call, converting the result) and the trampoline through which C
 * calls a Python function. Everything uncommon (lists, dicts, numpy
 * values, errors, wrapping objects in their classes) is handed to the same
 * Python helpers the ctypes path uses, so both paths behave the same; the
 * package falls back to ctypes when this module is missing
 * (IRM_PYTHON_CEXT=0 forces that).
 *
 * It does not link libirm: init() receives the addresses of the functions
 * it calls from the libirm the package loaded, so there is one libirm in
 * the process whichever one that is. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* The C ABI's value (include/irm/object.h), declared here so the module
 * needs no irm header at build time beyond this layout, which is stable. */
typedef struct irm_any {
  int32_t type_code;
  int32_t pad;
  union {
    int64_t v_int;
    double v_float;
    void *v_ptr;
    const char *v_str;
  };
} irm_any;

enum { T_NONE = 0, T_INT = 1, T_BOOL = 2, T_FLOAT = 3, T_PTR = 4, T_STR = 5, T_OBJECT = 6 };
enum { SMALL = 8 }; /* arguments packed on the stack */

typedef int (*packed_fn)(const irm_any *, int32_t, irm_any *, void *);
static int (*func_call)(void *f, const irm_any *args, int32_t n, irm_any *ret);
static void (*object_retain)(void *o);
static int (*func_new_packed)(packed_fn fn, void *resource, void (*finalizer)(void *), void **out);
static void (*set_last_error)(const char *msg);

/* The Python side (set by init): the Object class, and helpers of _ffi.py. */
static PyObject *object_class, *wrap, *raise_error, *slot_of, *from_raw, *owned_slot, *callback_failed;
static PyObject *handle_name; /* "handle" */

/* ---- Python values -> irm_any ------------------------------------------- */

/* Fills slot from a Python value the common way; anything else goes to
 * _slot_of(value) -> (type_code, payload, keepalive), whose keepalive is
 * appended to keep. 0, or -1 with a Python exception. */
static int to_any(PyObject *v, irm_any *slot, PyObject **keep) {
  if (v == Py_None) {
    slot->type_code = T_NONE;
    slot->v_int = 0;
    return 0;
  }
  if (PyBool_Check(v)) {
    slot->type_code = T_BOOL;
    slot->v_int = v == Py_True;
    return 0;
  }
  if (PyLong_CheckExact(v)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (!overflow && !(x == -1 && PyErr_Occurred())) {
      slot->type_code = T_INT;
      slot->v_int = x;
      return 0;
    }
    PyErr_Clear(); /* the Python path words the overflow */
  } else if (PyFloat_CheckExact(v)) {
    slot->type_code = T_FLOAT;
    slot->v_float = PyFloat_AS_DOUBLE(v);
    return 0;
  } else if (PyUnicode_CheckExact(v)) {
    Py_ssize_t n = 0;
    const char *s = PyUnicode_AsUTF8AndSize(v, &n); /* cached in v, lives as long as v */
    if (!s) return -1;
    if (!memchr(s, '\0', (size_t)n)) {
      slot->type_code = T_STR;
      slot->v_str = s;
      return 0;
    }
  } else {
    int is = PyObject_IsInstance(v, object_class);
    if (is < 0) return -1;
    if (is) {
      PyObject *h = PyObject_GetAttr(v, handle_name);
      if (!h) return -1;
      void *p = h == Py_None ? NULL : PyLong_AsVoidPtr(h);
      Py_DECREF(h);
      if (PyErr_Occurred()) return -1;
      slot->type_code = T_OBJECT;
      slot->v_ptr = p;
      return 0;
    }
  }
  PyObject *t = PyObject_CallOneArg(slot_of, v);
  if (!t) return -1;
  int code = 0;
  PyObject *payload = NULL, *alive = NULL;
  if (!PyArg_ParseTuple(t, "iOO", &code, &payload, &alive)) {
    Py_DECREF(t);
    return -1;
  }
  slot->type_code = code;
  if (code == T_FLOAT) slot->v_float = PyFloat_AsDouble(payload);
  else slot->v_int = PyLong_AsLongLong(payload);
  if (!*keep && !(*keep = PyList_New(0))) {
    Py_DECREF(t);
    return -1;
  }
  int rc = PyErr_Occurred() ? -1 : PyList_Append(*keep, alive);
  Py_DECREF(t);
  return rc;
}

/* ---- irm_any -> Python values ------------------------------------------- */

/* A value the library handed over; an object's reference is taken by the
 * result (owned), or retained first when the value is borrowed. NEW. */
static PyObject *from_any(const irm_any *v, int borrowed) {
  switch (v->type_code) {
  case T_NONE: Py_RETURN_NONE;
  case T_INT: return PyLong_FromLongLong(v->v_int);
  case T_BOOL: return PyBool_FromLong(v->v_int != 0);
  case T_FLOAT: return PyFloat_FromDouble(v->v_float);
  case T_OBJECT:
    if (!v->v_ptr) Py_RETURN_NONE;
    {
      PyObject *h = PyLong_FromVoidPtr(v->v_ptr);
      if (!h) return NULL;
      if (borrowed) object_retain(v->v_ptr);
      PyObject *r = PyObject_CallOneArg(wrap, h); /* takes the reference */
      Py_DECREF(h);
      return r;
    }
  default: return PyObject_CallFunction(from_raw, "iL", (int)v->type_code, (long long)v->v_int);
  }
}

/* ---- calling a Function -------------------------------------------------- */

/* call(handle, args tuple[, api]) -> result: the packed call of _ffi.py's
 * _call_packed / _Api.__call__. */
static PyObject *call(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
  (void)self;
  if (argc < 2 || argc > 3 || !PyTuple_Check(argv[1])) {
    PyErr_SetString(PyExc_TypeError, "_cext.call(handle, args tuple[, api])");
    return NULL;
  }
  void *f = PyLong_AsVoidPtr(argv[0]);
  if (!f && PyErr_Occurred()) return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(argv[1]);
  if (n > INT32_MAX) return PyErr_Format(PyExc_OverflowError, "irm: too many arguments");
  irm_any small[SMALL], *args = n <= SMALL ? small : PyMem_Malloc((size_t)n * sizeof *args);
  if (!args) return PyErr_NoMemory();
  PyObject *keep = NULL, *result = NULL;
  Py_ssize_t i = 0;
  for (; i < n; i++)
    if (to_any(PyTuple_GET_ITEM(argv[1], i), &args[i], &keep)) break;
  if (i == n) {
    irm_any ret = {T_NONE, 0, {0}};
    /* Without the GIL while the library works (a module's run, a build),
     * so other Python threads go on (Py_BEGIN_ALLOW_THREADS spelled out):
     * nothing here touches a Python object meanwhile (args point into
     * objects argv and keep hold), and a callback into Python takes the
     * GIL itself (trampoline, finalize). */
    PyThreadState *unlocked = PyEval_SaveThread();
    int rc = func_call(f, args, (int32_t)n, &ret);
    PyEval_RestoreThread(unlocked);
    if (rc) {
      PyObject *r = argc == 3 ? PyObject_CallFunction(raise_error, "iO", rc, argv[2])
                              : PyObject_CallFunction(raise_error, "i", rc);
      Py_XDECREF(r); /* raise_error raises; r is NULL */
    } else {
      result = from_any(&ret, 0);
    }
  }
  Py_XDECREF(keep);
  if (args != small) PyMem_Free(args);
  return result;
}

/* ---- Python functions called from C -------------------------------------- */

/* irm's packed convention around a Python callable (resource, a strong
 * reference): arguments borrowed, result a NEW reference, failures as the
 * calling thread's irm error. Runs on any thread: it takes the GIL. */
static int trampoline(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  PyGILState_STATE gil = PyGILState_Ensure();
  int rc = 0;
  PyObject *tuple = PyTuple_New(nargs), *result = NULL;
  for (int32_t i = 0; tuple && i < nargs; i++) {
    PyObject *v = from_any(&args[i], 1);
    if (!v) {
      Py_CLEAR(tuple);
      break;
    }
    PyTuple_SET_ITEM(tuple, i, v);
  }
  if (tuple) result = PyObject_Call((PyObject *)resource, tuple, NULL);
  Py_XDECREF(tuple);
  if (result && result != Py_None) {
    int overflow = 0;
    long long x = PyLong_CheckExact(result) ? PyLong_AsLongLongAndOverflow(result, &overflow) : 0;
    if (PyLong_CheckExact(result) && !overflow && !PyErr_Occurred()) {
      ret->type_code = T_INT;
      ret->v_int = x;
    } else {
      PyErr_Clear();
      PyObject *t = PyObject_CallOneArg(owned_slot, result); /* (code, payload): an object retained */
      int code = 0;
      PyObject *payload = NULL;
      if (t && PyArg_ParseTuple(t, "iO", &code, &payload)) {
        ret->type_code = code;
        if (code == T_FLOAT) ret->v_float = PyFloat_AsDouble(payload);
        else ret->v_int = PyLong_AsLongLong(payload);
      }
      Py_XDECREF(t);
    }
  }
  Py_XDECREF(result);
  if (PyErr_Occurred()) {
    /* _callback_failed(exc) -> "Kind: text" (and remembers a BaseException
     * for the caller to re-raise, as the ctypes path does). */
    PyObject *type = NULL, *value = NULL, *tb = NULL;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *text = PyObject_CallOneArg(callback_failed, value ? value : Py_None);
    const char *msg = text ? PyUnicode_AsUTF8(text) : NULL;
    set_last_error(msg ? msg : "RuntimeError: a Python callback failed");
    PyErr_Clear();
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    rc = -1;
  }
  PyGILState_Release(gil);
  return rc;
}

static Py_ssize_t live; /* callables the library holds (changed under the GIL) */

/* The library drops the function: drop the callable. After the interpreter
 * has finalized there is nothing left to drop it from. */
static void finalize(void *resource) {
  if (!Py_IsInitialized()) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  live--;
  Py_DECREF((PyObject *)resource);
  PyGILState_Release(gil);
}

/* new_callback(fn) -> handle: a NEW irm Function calling fn. */
static PyObject *new_callback(PyObject *self, PyObject *fn) {
  (void)self;
  void *out = NULL;
  Py_INCREF(fn);
  int rc = func_new_packed(trampoline, fn, finalize, &out);
  if (rc) {
    Py_DECREF(fn);
    PyObject *r = PyObject_CallFunction(raise_error, "i", rc);
    Py_XDECREF(r);
    return NULL;
  }
  live++;
  return PyLong_FromVoidPtr(out);
}

/* live_callbacks() -> how many Python callables the library holds. */
static PyObject *live_callbacks(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyLong_FromSsize_t(live);
}

/* ---- set-up ------------------------------------------------------------ */

static void *address(PyObject *dict, const char *name) {
  PyObject *v = PyDict_GetItemString(dict, name);
  if (!v) {
    PyErr_Format(PyExc_KeyError, "_cext.init: no address of %s", name);
    return NULL;
  }
  return PyLong_AsVoidPtr(v);
}

static int hook(PyObject *dict, const char *name, PyObject **out) {
  PyObject *v = PyDict_GetItemString(dict, name);
  if (!v) {
    PyErr_Format(PyExc_KeyError, "_cext.init: no hook %s", name);
    return -1;
  }
  Py_INCREF(v);
  Py_XSETREF(*out, v);
  return 0;
}

/* init(addresses dict, hooks dict): the libirm functions to call and the
 * _ffi.py helpers to hand the uncommon cases to. */
static PyObject *init(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *addresses = NULL, *hooks = NULL;
  if (!PyArg_ParseTuple(args, "O!O!", &PyDict_Type, &addresses, &PyDict_Type, &hooks)) return NULL;
  void *a[4] = {address(addresses, "irm_func_call"), address(addresses, "irm_object_retain"),
                address(addresses, "irm_func_new_packed"), address(addresses, "irm_set_last_error")};
  if (PyErr_Occurred()) return NULL;
  if (hook(hooks, "Object", &object_class) || hook(hooks, "wrap", &wrap) || hook(hooks, "raise_error", &raise_error) ||
      hook(hooks, "slot_of", &slot_of) || hook(hooks, "from_raw", &from_raw) ||
      hook(hooks, "owned_slot", &owned_slot) || hook(hooks, "callback_failed", &callback_failed))
    return NULL;
  /* Data and function pointers share a representation on every platform
   * libirm runs on (POSIX requires it for dlsym). */
  memcpy(&func_call, &a[0], sizeof a[0]);
  memcpy(&object_retain, &a[1], sizeof a[1]);
  memcpy(&func_new_packed, &a[2], sizeof a[2]);
  memcpy(&set_last_error, &a[3], sizeof a[3]);
  Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"init", init, METH_VARARGS, "init(addresses, hooks)"},
    {"call", (PyCFunction)(void (*)(void))call, METH_FASTCALL, "call(handle, args[, api]) -> result"},
    {"new_callback", new_callback, METH_O, "new_callback(fn) -> handle of a NEW irm Function"},
    {"live_callbacks", live_callbacks, METH_NOARGS, "live_callbacks() -> count"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "irm._cext", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cext(void);
PyMODINIT_FUNC PyInit__cext(void) {
  handle_name = PyUnicode_InternFromString("handle");
  return handle_name ? PyModule_Create(&module) : NULL;
}
