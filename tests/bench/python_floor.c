/* The floor seen from Python: a CPython extension whose functions make the same driver calls
   with arguments prepared once in C, so timing them measures the interpreter's call cost plus
   the driver call as it runs inside a Python process, with no argument conversion at all. Below
   them, lower bounds: the same calls and member accesses with the bindings' Python signatures,
   done with the least work CPython allows and no checks. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
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
/* The result code the bounds return on success, made once as a binding caches its enum member. */
static PyObject *success;

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

/* Lower bounds: the least any binding with the same Python signature and result can do, with no
   range or type checks at all. A target below what these reach cannot be met by checked code. */

/* The result object of the encode bound: the tensor map inside the object itself, at the first
   suitably aligned address after the header, so one allocation and no memset. */
static void inline_map_dealloc(PyObject *object);

static PyTypeObject InlineMapType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "callfloor.InlineMap",
    .tp_basicsize = sizeof(PyObject) + sizeof(CUtensorMap) + _Alignof(CUtensorMap),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = inline_map_dealloc,
};

static CUtensorMap *inline_map(PyObject *object) {
    uintptr_t start = (uintptr_t)object + sizeof(PyObject);
    return (CUtensorMap *)((start + _Alignof(CUtensorMap) - 1) & ~(uintptr_t)(_Alignof(CUtensorMap) - 1));
}

/* An int (or an object with __index__) as a C integer; the only check is CPython's own. Small
   ints (enum members included) are read straight from the object where CPython allows it. */
static int unchecked_u64(PyObject *value, unsigned long long *out) {
    if (PyLong_Check(value)) {
#if PY_VERSION_HEX >= 0x030C0000
        if (PyUnstable_Long_IsCompact((PyLongObject *)value)) {
            *out = (unsigned long long)PyUnstable_Long_CompactValue((PyLongObject *)value);
            return 0;
        }
#endif
        *out = PyLong_AsUnsignedLongLong(value);
    } else {
        PyObject *index = PyNumber_Index(value);
        if (!index) return -1;
        *out = PyLong_AsUnsignedLongLong(index);
        Py_DECREF(index);
    }
    return (*out == (unsigned long long)-1 && PyErr_Occurred()) ? -1 : 0;
}

#define BOUND_MAX_RANK 16

/* A list or tuple of ints into `out` (64- or 32-bit elements), items read in place. */
static int unchecked_array(PyObject *items, void *out, int wide) {
    PyObject **item;
    Py_ssize_t n;
    if (PyList_CheckExact(items)) {
        item = ((PyListObject *)items)->ob_item;
        n = PyList_GET_SIZE(items);
    } else if (PyTuple_CheckExact(items)) {
        item = ((PyTupleObject *)items)->ob_item;
        n = PyTuple_GET_SIZE(items);
    } else {
        PyErr_SetString(PyExc_TypeError, "an array argument must be a list or a tuple");
        return -1;
    }
    if (n > BOUND_MAX_RANK) n = BOUND_MAX_RANK;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long long v;
        if (unchecked_u64(item[i], &v) < 0) return -1;
        if (wide) ((cuuint64_t *)out)[i] = v;
        else ((cuuint32_t *)out)[i] = (cuuint32_t)v;
    }
    return 0;
}

/* One freed map object kept for the next call, so the steady state allocates nothing. */
static PyObject *spare_map;

static void inline_map_dealloc(PyObject *object) {
    if (spare_map == NULL) spare_map = object;
    else PyObject_Free(object);
}

/* cuTensorMapEncodeTiled with the bindings' signature and result: eleven Python arguments in,
   `(0, map)` or `(error, None)` out, a new map object per call. */
static PyObject *encode_bound(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    unsigned long long dtype, rank, interleave, swizzle, promotion, fill, address;
    cuuint64_t dims[BOUND_MAX_RANK], strides[BOUND_MAX_RANK];
    cuuint32_t box[BOUND_MAX_RANK], steps[BOUND_MAX_RANK];
    if (nargs != 11) return PyErr_Format(PyExc_TypeError, "encode_bound takes 11 arguments");
    if (unchecked_u64(args[0], &dtype) || unchecked_u64(args[1], &rank) || unchecked_u64(args[2], &address) ||
        unchecked_array(args[3], dims, 1) || unchecked_array(args[4], strides, 1) ||
        unchecked_array(args[5], box, 0) || unchecked_array(args[6], steps, 0) ||
        unchecked_u64(args[7], &interleave) || unchecked_u64(args[8], &swizzle) ||
        unchecked_u64(args[9], &promotion) || unchecked_u64(args[10], &fill))
        return NULL;
    PyObject *result = spare_map;
    if (result) {
        spare_map = NULL;
    } else if (!(result = PyObject_Malloc(InlineMapType.tp_basicsize))) {
        return PyErr_NoMemory();
    }
    PyObject_Init(result, &InlineMapType);
    CUresult err = encode_fn(inline_map(result), (CUtensorMapDataType)dtype, (cuuint32_t)rank, (void *)(uintptr_t)address,
                             dims, strides, box, steps, (CUtensorMapInterleave)interleave, (CUtensorMapSwizzle)swizzle,
                             (CUtensorMapL2promotion)promotion, (CUtensorMapFloatOOBfill)fill);
    if (err != CUDA_SUCCESS) {
        Py_DECREF(result);
        return Py_BuildValue("(iO)", (int)err, Py_None);
    }
    PyObject *pair = PyTuple_New(2);
    if (!pair) {
        Py_DECREF(result);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, Py_NewRef(success));
    PyTuple_SET_ITEM(pair, 1, result);
    return pair;
}

/* A record whose C struct lives inside the object, so members need no indirection. */
typedef struct {
    PyObject_HEAD
    CUDA_KERNEL_NODE_PARAMS params;
} InlineRecord;

/* The record's address, as the bindings' getPtr() returns it: a method, to time method calls. */
static PyObject *record_ptr(PyObject *self, PyObject *unused) {
    return PyLong_FromVoidPtr(&((InlineRecord *)self)->params);
}

static PyMethodDef record_methods[] = {
    {"getPtr", record_ptr, METH_NOARGS, "the address of the record's struct"},
    {NULL},
};

/* gridDimX as CPython's own member (no range check: CPython only warns on truncation). */
static PyMemberDef member_bound_members[] = {
    {"gridDimX", T_UINT, offsetof(InlineRecord, params) + offsetof(CUDA_KERNEL_NODE_PARAMS, gridDimX), 0, NULL},
    {NULL},
};

/* One record type of the bounds: the struct inside the object, getPtr(), and how it reaches
   gridDimX (the designated initializers given). */
#define BOUND_RECORD_TYPE(name, ...)                                                              \
    {                                                                                             \
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = "callfloor." name,                              \
        .tp_basicsize = sizeof(InlineRecord), .tp_flags = Py_TPFLAGS_DEFAULT,                     \
        .tp_methods = record_methods, .tp_new = PyType_GenericNew, __VA_ARGS__                    \
    }

static PyTypeObject MemberRecordType = BOUND_RECORD_TYPE("MemberRecord", .tp_members = member_bound_members);

/* gridDimX as a property in C, what a compiled getter and setter reduce to without checks. */
static PyObject *get_grid_dim_x(PyObject *self, void *closure) {
    return PyLong_FromUnsignedLong(((InlineRecord *)self)->params.gridDimX);
}

static int set_grid_dim_x(PyObject *self, PyObject *value, void *closure) {
    unsigned long v = PyLong_AsUnsignedLong(value);
    if (v == (unsigned long)-1 && PyErr_Occurred()) return -1;
    ((InlineRecord *)self)->params.gridDimX = (unsigned int)v;
    return 0;
}

static PyGetSetDef getset_bound_members[] = {
    {"gridDimX", get_grid_dim_x, set_grid_dim_x, NULL, NULL},
    {NULL},
};

static PyTypeObject GetsetRecordType = BOUND_RECORD_TYPE("GetsetRecord", .tp_getset = getset_bound_members);

/* gridDimX read and written by the type's own attribute hooks, before CPython's generic lookup:
   a name compared by pointer (interned, as the compiler interns attribute names), then the
   struct. Every other name takes the generic path. */
static PyObject *grid_dim_x_name;

static PyObject *direct_getattro(PyObject *self, PyObject *name) {
    if (name == grid_dim_x_name) return get_grid_dim_x(self, NULL);
    return PyObject_GenericGetAttr(self, name);
}

static int direct_setattro(PyObject *self, PyObject *name, PyObject *value) {
    if (name == grid_dim_x_name && value != NULL) return set_grid_dim_x(self, value, NULL);
    return PyObject_GenericSetAttr(self, name, value);
}

static PyTypeObject DirectRecordType =
    BOUND_RECORD_TYPE("DirectRecord", .tp_getattro = direct_getattro, .tp_setattro = direct_setattro,
                      .tp_getset = getset_bound_members);

static PyMethodDef methods[] = {
    {"setup", setup, METH_O, "resolve the driver functions; the argument is the global address to encode"},
    {"noop", noop, METH_NOARGS, "returns None"},
    {"get_device", get_device, METH_NOARGS, "cuCtxGetDevice with C arguments"},
    {"encode", encode, METH_NOARGS, "cuTensorMapEncodeTiled with C arguments"},
    {"set_launch", set_launch, METH_VARARGS, "the kernel and pointer-array address launch() uses"},
    {"launch", launch, METH_NOARGS, "cuLaunchKernel with C arguments"},
    {"launch_nogil", launch_nogil, METH_NOARGS, "cuLaunchKernel with C arguments, the GIL released"},
    {"encode_bound", (PyCFunction)(void (*)(void))encode_bound, METH_FASTCALL,
     "cuTensorMapEncodeTiled with the bindings' arguments and result, unchecked"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "callfloor", NULL, -1, methods};

PyMODINIT_FUNC PyInit_callfloor(void) {
    if (PyType_Ready(&InlineMapType) < 0 || PyType_Ready(&MemberRecordType) < 0 || PyType_Ready(&GetsetRecordType) < 0 ||
        PyType_Ready(&DirectRecordType) < 0)
        return NULL;
    grid_dim_x_name = PyUnicode_InternFromString("gridDimX");
    success = PyLong_FromLong(CUDA_SUCCESS);
    if (!success) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m || PyModule_AddObjectRef(m, "MemberRecord", (PyObject *)&MemberRecordType) < 0 ||
        PyModule_AddObjectRef(m, "GetsetRecord", (PyObject *)&GetsetRecordType) < 0 ||
        PyModule_AddObjectRef(m, "DirectRecord", (PyObject *)&DirectRecordType) < 0)
        return NULL;
    return m;
}
