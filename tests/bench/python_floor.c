/* The floor seen from Python: a CPython extension whose functions make the same driver calls
   with arguments prepared once in C, so timing them measures the interpreter's call cost plus
   the driver call as it runs inside a Python process, with no argument conversion at all. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>
#include <dlfcn.h>

static CUresult (*get_device_fn)(CUdevice *);
static CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *, const cuuint64_t *,
                             const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                             CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
static void *global_address;
static CUfunction launch_function;
static void **launch_params;
static _Alignas(CUtensorMap) CUtensorMap map;

static PyObject *setup(PyObject *self, PyObject *arg) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) return PyErr_Format(PyExc_RuntimeError, "no libcuda.so.1");
    get_device_fn = dlsym(lib, "cuCtxGetDevice");
    encode_fn = dlsym(lib, "cuTensorMapEncodeTiled");
    launch_fn = dlsym(lib, "cuLaunchKernel");
    global_address = PyLong_AsVoidPtr(arg);
    if (!get_device_fn || !encode_fn || !launch_fn) return PyErr_Format(PyExc_RuntimeError, "missing symbols");
    Py_RETURN_NONE;
}

static PyObject *noop(PyObject *self, PyObject *unused) { Py_RETURN_NONE; }

static PyObject *get_device(PyObject *self, PyObject *unused) {
    CUdevice d;
    return PyLong_FromLong(get_device_fn(&d));
}

static PyObject *encode(PyObject *self, PyObject *unused) {
    static const cuuint64_t dims[2] = {256, 256}, strides[1] = {1024};
    static const cuuint32_t box[2] = {32, 32}, estrides[2] = {1, 1};
    return PyLong_FromLong(encode_fn(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, global_address, dims, strides, box, estrides,
                                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                     CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

/* The kernel (a CUfunction's value) and its pointer array (an address) the launches use. */
static PyObject *set_launch(PyObject *self, PyObject *args) {
    PyObject *function, *params;
    if (!PyArg_ParseTuple(args, "OO", &function, &params)) return NULL;
    launch_function = (CUfunction)PyLong_AsVoidPtr(function);
    launch_params = (void **)PyLong_AsVoidPtr(params);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* The bench's launch: 1 block of 32 threads, no shared memory, the default stream. */
static CUresult launch_once(void) {
    return launch_fn(launch_function, 1, 1, 1, 32, 1, 1, 0, NULL, launch_params, NULL);
}

static PyObject *launch(PyObject *self, PyObject *unused) { return PyLong_FromLong(launch_once()); }

/* The same launch with the GIL released around it, as both bindings make it. */
static PyObject *launch_nogil(PyObject *self, PyObject *unused) {
    CUresult result;
    Py_BEGIN_ALLOW_THREADS
    result = launch_once();
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(result);
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_O, "resolve the driver functions; the argument is the global address to encode"},
    {"noop", noop, METH_NOARGS, "returns None"},
    {"get_device", get_device, METH_NOARGS, "cuCtxGetDevice with C arguments"},
    {"encode", encode, METH_NOARGS, "cuTensorMapEncodeTiled with C arguments"},
    {"set_launch", set_launch, METH_VARARGS, "the kernel and pointer-array address launch() uses"},
    {"launch", launch, METH_NOARGS, "cuLaunchKernel with C arguments"},
    {"launch_nogil", launch_nogil, METH_NOARGS, "cuLaunchKernel with C arguments, the GIL released"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "callfloor", NULL, -1, methods};

PyMODINIT_FUNC PyInit_callfloor(void) { return PyModule_Create(&module); }
