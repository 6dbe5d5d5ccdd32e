/* The runtime API's floor and lower bounds seen from Python (runtime_overhead.py), as
   python_floor.c is the driver's: the floor makes each call with arguments prepared once in C;
   the bounds take the bindings' Python arguments and return their result tuple with no checks
   at all, the least any binding with that signature can do. libcudart is opened by the path the
   binding under test loaded, so both call the same library. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

static cudaError_t (*get_device_fn)(int *);
static cudaError_t (*stream_query_fn)(cudaStream_t);
static cudaError_t (*memcpy_async_fn)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
static cudaError_t (*launch_fn)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
/* The success member of the binding's status enum, returned as a binding returns it. */
static PyObject *success;
/* The prepared arguments of the floor's calls. */
static cudaStream_t stream;
static void *device_buffer, *host_buffer, *kernel, **kernel_params;
static size_t copy_bytes;

static PyObject *setup(PyObject *self, PyObject *args) {
    const char *path;
    PyObject *status;
    unsigned long long stream_value, device_value, host_value, kernel_value, params_value, bytes;
    if (!PyArg_ParseTuple(args, "sOKKKKKK", &path, &status, &stream_value, &device_value, &host_value, &bytes,
                          &kernel_value, &params_value))
        return NULL;
    void *lib = dlopen(path, RTLD_NOW);
    if (!lib) return PyErr_Format(PyExc_RuntimeError, "cannot open %s", path);
    get_device_fn = dlsym(lib, "cudaGetDevice");
    stream_query_fn = dlsym(lib, "cudaStreamQuery");
    memcpy_async_fn = dlsym(lib, "cudaMemcpyAsync");
    launch_fn = dlsym(lib, "cudaLaunchKernel");
    if (!get_device_fn || !stream_query_fn || !memcpy_async_fn || !launch_fn)
        return PyErr_Format(PyExc_RuntimeError, "missing symbols in %s", path);
    Py_XSETREF(success, Py_NewRef(status));
    stream = (cudaStream_t)(uintptr_t)stream_value;
    device_buffer = (void *)(uintptr_t)device_value;
    host_buffer = (void *)(uintptr_t)host_value;
    copy_bytes = (size_t)bytes;
    kernel = (void *)(uintptr_t)kernel_value;
    kernel_params = (void **)(uintptr_t)params_value;
    Py_RETURN_NONE;
}

/* (status,) or (status, value): the success member, or the bare code on failure (unchecked). */
static PyObject *status_of(cudaError_t err) { return err == cudaSuccess ? Py_NewRef(success) : PyLong_FromLong(err); }

static PyObject *result1(cudaError_t err) {
    PyObject *status = status_of(err);
    if (!status) return NULL;
    PyObject *tuple = PyTuple_New(1);
    if (!tuple) { Py_DECREF(status); return NULL; }
    PyTuple_SET_ITEM(tuple, 0, status);
    return tuple;
}

/* A pointer from an int or an object with __index__ (a handle), CPython's own check only. */
static void *pointer_of(PyObject *value) {
    if (PyLong_CheckExact(value)) return PyLong_AsVoidPtr(value);
    PyObject *index = PyNumber_Index(value);
    if (!index) return NULL;
    void *p = PyLong_AsVoidPtr(index);
    Py_DECREF(index);
    return p;
}

/* --- the floor: C arguments, the Python call's cost only -------------------------------------- */

static PyObject *get_device(PyObject *self, PyObject *unused) {
    int d;
    return PyLong_FromLong(get_device_fn(&d));
}

static PyObject *stream_query(PyObject *self, PyObject *unused) {
    cudaError_t err;
    Py_BEGIN_ALLOW_THREADS
    err = stream_query_fn(stream);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(err);
}

static PyObject *memcpy_async(PyObject *self, PyObject *unused) {
    cudaError_t err;
    Py_BEGIN_ALLOW_THREADS
    err = memcpy_async_fn(device_buffer, host_buffer, copy_bytes, cudaMemcpyHostToDevice, stream);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(err);
}

static PyObject *launch(PyObject *self, PyObject *unused) {
    cudaError_t err;
    dim3 grid = {1, 1, 1}, block = {32, 1, 1};
    Py_BEGIN_ALLOW_THREADS
    err = launch_fn(kernel, grid, block, kernel_params, 0, stream);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(err);
}

/* --- the bounds: the bindings' Python arguments and results, unchecked ------------------------- */

/* cudaGetDevice() -> (status, device) */
static PyObject *get_device_bound(PyObject *self, PyObject *unused) {
    int d = 0;
    cudaError_t err = get_device_fn(&d);
    PyObject *status = status_of(err), *device = PyLong_FromLong(d);
    if (!status || !device) { Py_XDECREF(status); Py_XDECREF(device); return NULL; }
    PyObject *tuple = PyTuple_New(2);
    if (!tuple) { Py_DECREF(status); Py_DECREF(device); return NULL; }
    PyTuple_SET_ITEM(tuple, 0, status);
    PyTuple_SET_ITEM(tuple, 1, device);
    return tuple;
}

/* cudaStreamQuery(stream) -> (status,) */
static PyObject *stream_query_bound(PyObject *self, PyObject *arg) {
    void *s = pointer_of(arg);
    if (!s && PyErr_Occurred()) return NULL;
    cudaError_t err;
    Py_BEGIN_ALLOW_THREADS
    err = stream_query_fn((cudaStream_t)s);
    Py_END_ALLOW_THREADS
    return result1(err);
}

/* cudaMemcpyAsync(dst, src, count, kind, stream) -> (status,); src any buffer */
static PyObject *memcpy_async_bound(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) return PyErr_Format(PyExc_TypeError, "memcpy_async_bound takes 5 arguments");
    Py_buffer view;
    void *dst = pointer_of(args[0]);
    if (!dst && PyErr_Occurred()) return NULL;
    size_t count = PyLong_AsSize_t(args[2]);
    long kind = PyLong_AsLong(args[3]);
    void *s = pointer_of(args[4]);
    if (PyErr_Occurred()) return NULL;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0) return NULL;
    cudaError_t err;
    Py_BEGIN_ALLOW_THREADS
    err = memcpy_async_fn(dst, view.buf, count, (enum cudaMemcpyKind)kind, (cudaStream_t)s);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return result1(err);
}

/* The (values, ctypes types) kernelParams form, converted with the least work: each type is one
   of the ctypes types the bench uses, told apart by identity, each value read into its slot. */
static PyObject *ctypes_int, *ctypes_float, *ctypes_void_p, *getptr_name;
#define LAUNCH_MAX_PARAMS 8

static int convert_params(PyObject *params, void **pointers, unsigned long long *slots) {
    PyObject *values = PyTuple_GET_ITEM(params, 0), *types = PyTuple_GET_ITEM(params, 1);
    Py_ssize_t n = PyTuple_GET_SIZE(values);
    if (n > LAUNCH_MAX_PARAMS) n = LAUNCH_MAX_PARAMS;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *value = PyTuple_GET_ITEM(values, i), *type = PyTuple_GET_ITEM(types, i);
        pointers[i] = &slots[i];
        if (type == ctypes_int) *(int *)&slots[i] = (int)PyLong_AsLong(value);
        else if (type == ctypes_float) *(float *)&slots[i] = (float)PyFloat_AsDouble(value);
        else slots[i] = (unsigned long long)(uintptr_t)PyLong_AsVoidPtr(value);
    }
    return PyErr_Occurred() ? -1 : 0;
}

/* A dim3 record object read as any C code outside its package can: through its getPtr(). */
static int dim3_of(PyObject *record, dim3 *out) {
    PyObject *address = PyObject_CallMethodNoArgs(record, getptr_name);
    if (!address) return -1;
    *out = *(dim3 *)PyLong_AsVoidPtr(address);
    Py_DECREF(address);
    return PyErr_Occurred() ? -1 : 0;
}

/* cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream) -> (status,), args in the
   (values, ctypes types) form */
static PyObject *launch_bound(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "launch_bound takes 6 arguments");
    void *pointers[LAUNCH_MAX_PARAMS];
    unsigned long long slots[LAUNCH_MAX_PARAMS];
    dim3 grid, block;
    void *func = pointer_of(args[0]);
    if (PyErr_Occurred() || dim3_of(args[1], &grid) || dim3_of(args[2], &block) || convert_params(args[3], pointers, slots))
        return NULL;
    size_t shared = PyLong_AsSize_t(args[4]);
    void *s = pointer_of(args[5]);
    if (PyErr_Occurred()) return NULL;
    cudaError_t err;
    Py_BEGIN_ALLOW_THREADS
    err = launch_fn(func, grid, block, pointers, shared, (cudaStream_t)s);
    Py_END_ALLOW_THREADS
    return result1(err);
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS,
     "(libcudart path, success member, stream, device buffer, host buffer, bytes, kernel, params address)"},
    {"get_device", get_device, METH_NOARGS, "cudaGetDevice with C arguments"},
    {"stream_query", stream_query, METH_NOARGS, "cudaStreamQuery with C arguments, the GIL released"},
    {"memcpy_async", memcpy_async, METH_NOARGS, "cudaMemcpyAsync host to device with C arguments, the GIL released"},
    {"launch", launch, METH_NOARGS, "cudaLaunchKernel with C arguments, the GIL released"},
    {"get_device_bound", get_device_bound, METH_NOARGS, "cudaGetDevice() with the bindings' result, unchecked"},
    {"stream_query_bound", stream_query_bound, METH_O, "cudaStreamQuery(stream) as the bindings take it, unchecked"},
    {"memcpy_async_bound", (PyCFunction)(void (*)(void))memcpy_async_bound, METH_FASTCALL,
     "cudaMemcpyAsync(dst, src, count, kind, stream) as the bindings take it, unchecked"},
    {"launch_bound", (PyCFunction)(void (*)(void))launch_bound, METH_FASTCALL,
     "cudaLaunchKernel(func, gridDim, blockDim, (values, ctypes types), sharedMem, stream), unchecked"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "rtfloor", NULL, -1, methods};

PyMODINIT_FUNC PyInit_rtfloor(void) {
    PyObject *ctypes = PyImport_ImportModule("ctypes");
    if (!ctypes) return NULL;
    ctypes_int = PyObject_GetAttrString(ctypes, "c_int");
    ctypes_float = PyObject_GetAttrString(ctypes, "c_float");
    ctypes_void_p = PyObject_GetAttrString(ctypes, "c_void_p");
    getptr_name = PyUnicode_InternFromString("getPtr");
    Py_DECREF(ctypes);
    if (!ctypes_int || !ctypes_float || !ctypes_void_p || !getptr_name) return NULL;
    return PyModule_Create(&module);
}
