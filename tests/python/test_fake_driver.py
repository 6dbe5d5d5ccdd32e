"""Calls through the generated functions against a fake libcuda (fake_driver/fake_libcuda.c),
under the UBSan build: outputs, in/out counts with output arrays, output strings, lists of
records, kernel parameters, and wrapper objects for typedef'd members."""
from conftest import probe

PROBE = r'''
import json
import ctkgen_cuda.driver as cuda
ok = cuda.CUresult.CUDA_SUCCESS
out = {}
out["init"] = cuda.cuInit(0)[0] is ok
err, dev = cuda.cuCtxGetDevice()
out["device"] = [err is ok, type(dev).__name__, int(dev)]
text = cuda.cuGetErrorString(cuda.CUresult.CUDA_ERROR_INVALID_VALUE)[1]
out["error_string"] = [type(text).__name__, text.decode()]
graph = cuda.CUgraph(0x1234)
err, nodes, count = cuda.cuGraphGetNodes(graph, 0)
out["count_only"] = [err is ok, nodes, count]
err, nodes, count = cuda.cuGraphGetNodes(graph, 5)
out["nodes"] = [[type(n).__name__ for n in nodes], [int(n) for n in nodes], count]
bus_id = cuda.cuDeviceGetPCIBusId(16, dev)[1]
out["pci"] = [type(bus_id).__name__, bus_id.decode()]
records = []
for i in range(3):
    p = cuda.CUDA_LAUNCH_PARAMS()
    p.gridDimX = i + 1
    records.append(p)
out["record_list"] = [cuda.cuLaunchCooperativeKernelMultiDevice(records, 3, 0)[0] is ok,
                      cuda.cuLaunchCooperativeKernelMultiDevice(records[::-1], 3, 0)[0] is ok]
try:
    cuda.cuLaunchCooperativeKernelMultiDevice([records[0], 5], 2, 0)
except TypeError as error:
    out["record_list_type_error"] = str(error)
maps = [cuda.CUtensorMap(), cuda.CUtensorMap()]
out["launch"] = [cuda.cuLaunchKernel(cuda.CUfunction(0), 1, 1, 1, 32, 1, 1, 0, cuda.CUstream(0), maps, 0)[0] is ok,
                 cuda.cuLaunchKernel(cuda.CUfunction(0), 1, 1, 1, 32, 1, 1, 0, None, [m.getPtr() for m in maps], None)[0] is ok]
copy = cuda.CUDA_MEMCPY2D()
copy.srcDevice = cuda.CUdeviceptr(0x5000)
copy.dstDevice = 0x6000
out["member"] = [type(copy.srcDevice).__name__, int(copy.srcDevice), int(copy.dstDevice)]
name = cuda.cuGetErrorName(cuda.CUresult.CUDA_ERROR_INVALID_VALUE)
out["error_name"] = [len(name), type(name[0]).__name__, name[0] is ok, type(name[1]).__name__, name[1].decode()]
string = cuda.cuGetErrorString(cuda.CUresult.CUDA_SUCCESS)
out["error_string_tuple"] = [len(string), string[0] is ok, string[1].decode()]
err, luid, mask = cuda.cuDeviceGetLuid(dev)
out["luid"] = [type(luid).__name__, list(luid), mask]
capture = getattr(cuda, "cuStreamGetCaptureInfo_v3", cuda.cuStreamGetCaptureInfo)
result = capture(cuda.CUstream(0))
err, status, ident, graph, deps = result[:5]
out["capture"] = [err is ok, int(status), int(ident), int(graph), [type(d).__name__ for d in deps],
                  [int(d) for d in deps], result[-1]]
if len(result) == 7:
    out["capture_edges"] = [[type(e).__name__ for e in result[5]], [e.from_port for e in result[5]]]
print(json.dumps(out))
'''


def test_calls_through_a_fake_driver(package, fake_libcuda):
    ctk, path = package
    out = probe(path, PROBE, {"CTKGEN_LIBCUDA": fake_libcuda})
    assert out["init"] is True
    assert out["device"] == [True, "CUdevice", 7]
    assert out["error_string"] == ["bytes", "fake error"]
    assert out["count_only"] == [True, [], 3]
    assert out["nodes"] == [["CUgraphNode"] * 3, [0x10, 0x20, 0x30], 3]
    assert out["pci"] == ["bytes", "0000:65:00.0"]
    assert out["record_list"] == [True, False]
    assert "CUDA_LAUNCH_PARAMS" in out["record_list_type_error"]
    assert out["launch"] == [True, True]
    assert out["member"] == ["CUdeviceptr", 0x5000, 0x6000]
    # (CUresult, bytes), as cuda.bindings returns them.
    assert out["error_name"] == [2, "CUresult", True, "bytes", "CUDA_ERROR_FAKE"]
    assert out["error_string_tuple"] == [2, True, "no error"]
    # Binary data: all 8 bytes, NULs included.
    assert out["luid"] == ["bytes", [1, 0, 2, 0, 3, 0, 4, 5], 3]
    # Arrays the driver owns come back as lists of wrapper objects.
    assert out["capture"] == [True, 1, 9, 0x77, ["CUgraphNode"] * 2, [0x100, 0x200], 2]
    assert out["capture_edges"] == [["CUgraphEdgeData"] * 2, [1, 2]]


# What the binding passes for `void *` arguments and kernel parameters, read back from the
# fake library's recorders (the probe opens the same library with ctypes).
POINTERS = r'''
import ctypes, json, os
import ctkgen_cuda.driver as cuda
fake = ctypes.CDLL(os.environ["CTKGEN_LIBCUDA"])
for name in ("fake_recorded_address", "fake_recorded_params_array", "fake_recorded_param_pointer"):
    getattr(fake, name).restype = ctypes.c_void_p
fake.fake_recorded_param_bytes.restype = ctypes.c_uint64
ok = cuda.CUresult.CUDA_SUCCESS
out = {}
cuda.cuInit(0)

def first_word(tensor_map):
    return ctypes.c_uint64.from_address(tensor_map.getPtr()).value

def encode(address):
    err, tmap = cuda.cuTensorMapEncodeTiled(cuda.CUtensorMapDataType(0), 1, address, [64], [], [16], [1],
                                            cuda.CUtensorMapInterleave(0), cuda.CUtensorMapSwizzle(0),
                                            cuda.CUtensorMapL2promotion(0), cuda.CUtensorMapFloatOOBfill(0))
    assert err is ok, err
    return first_word(tmap)

dptr = cuda.CUdeviceptr(0x7f0000001000)
buffer = bytearray(64)
buffer_address = ctypes.addressof((ctypes.c_char * 64).from_buffer(buffer))
record = cuda.CUtensorMap()
out["encode"] = [encode(dptr), encode(0x7f0000002000), encode(None), encode(cuda.CUgraph(0x4000)),
                 encode(buffer) == buffer_address, encode(record) == record.getPtr(),
                 encode(ctypes.c_void_p(0x5000))]
tmap = cuda.CUtensorMap()
assert cuda.cuTensorMapReplaceAddress(tmap, cuda.CUdeviceptr(0x7f0000003000))[0] is ok
out["replace"] = first_word(tmap)
assert cuda.cuMemcpyHtoD(cuda.CUdeviceptr(0x9000), buffer, 64)[0] is ok
out["memcpy_buffer"] = fake.fake_recorded_address() == buffer_address
assert cuda.cuMemcpyHtoD(0x9000, memoryview(buffer)[8:], 56)[0] is ok
out["memcpy_view"] = fake.fake_recorded_address() == buffer_address + 8
assert cuda.cuMemcpyHtoD(0x9000, dptr, 8)[0] is ok
out["memcpy_wrapper"] = fake.fake_recorded_address()
# numpy: an array of one dimension or more is its data; an integer scalar or a 0-d array carries
# a value, as any object with __index__ does; a strided array is refused.
import numpy
host = numpy.arange(16, dtype=numpy.uint32)
data = b"sixteen bytes..."
for name, value in (("bytes", data), ("array", host), ("array_2d", host.reshape(4, 4))):
    assert cuda.cuMemcpyHtoD(0x9000, value, 16)[0] is ok
    out["memcpy_" + name] = fake.fake_recorded_address()
out["numpy_expected"] = [ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value, host.ctypes.data]
out["numpy_values"] = [encode(numpy.uint64(0x6000)), encode(numpy.array(0x7000, dtype=numpy.uint64)),
                       encode(numpy.int32(0x8000))]
try:
    cuda.cuMemcpyHtoD(0x9000, host[::2], 16)
except (BufferError, ValueError) as error:
    out["strided"] = type(error).__name__

def launch(params, count):
    err, = cuda.cuLaunchKernel(cuda.CUfunction(0), count, 1, 1, 1, 1, 1, 0, None, params, None)
    assert err is ok, err
    n = fake.fake_recorded_param_count()
    return ([fake.fake_recorded_param_pointer(i) for i in range(n)],
            [fake.fake_recorded_param_bytes(i) for i in range(n)])

kmap = cuda.CUtensorMap()
ctypes.c_uint64.from_address(kmap.getPtr()).value = 0x1111
handle = cuda.CUdeviceptr(0x2222)
number = ctypes.c_uint64(0x3333)
pointers, words = launch(((kmap, handle, number, 7, -2, dptr, 0x4444), (None, None, None, ctypes.c_int, ctypes.c_int,
                                                                        ctypes.c_void_p, ctypes.c_uint64)), 7)
out["typed_form"] = [pointers[0] == kmap.getPtr(), pointers[1] == handle.getPtr(),
                     pointers[2] == ctypes.addressof(number),
                     [w for w in words[:3]], words[3] & 0xffffffff, words[4] & 0xffffffff, words[5] == dptr.getPtr(),
                     words[6]]
pointers, words = launch([kmap, handle, number], 3)
out["list_form"] = [pointers[0] == kmap.getPtr(), pointers[1] == handle.getPtr(), pointers[2] == ctypes.addressof(number),
                    words]
array = (ctypes.c_void_p * 2)(kmap.getPtr(), handle.getPtr())
launch(ctypes.addressof(array), 2)
out["int_form"] = fake.fake_recorded_params_array() == ctypes.addressof(array)
launch(0, 0)
out["zero"] = fake.fake_recorded_params_array()
launch(None, 0)
out["none"] = fake.fake_recorded_params_array()
many = [ctypes.c_uint64(i) for i in range(40)]
pointers, words = launch((tuple(many), (None,) * 40), 16)
out["many"] = words
try:
    launch(((1, 2), (ctypes.c_int,)), 2)
except ValueError as error:
    out["mismatch"] = str(error)
print(json.dumps(out))
'''


def test_pointer_arguments_and_kernel_params(package, fake_libcuda):
    ctk, path = package
    out = probe(path, POINTERS, {"CTKGEN_LIBCUDA": fake_libcuda})
    # A wrapper of a pointer-sized typedef or a handle gives its value, not its storage's address.
    assert out["encode"] == [0x7f0000001000, 0x7f0000002000, 0, 0x4000, True, True, 0x5000]
    assert out["replace"] == 0x7f0000003000
    assert out["memcpy_buffer"] and out["memcpy_view"]
    assert out["memcpy_wrapper"] == 0x7f0000001000
    bytes_address, array_address = out["numpy_expected"]
    assert [out["memcpy_bytes"], out["memcpy_array"], out["memcpy_array_2d"]] == [bytes_address] + [array_address] * 2
    assert out["numpy_values"] == [0x6000, 0x7000, 0x8000]
    assert out["strided"] in ("BufferError", "ValueError")
    # Kernel parameters point at each argument's value: storage for None types, a converted copy
    # for ctypes types; a binding object typed c_void_p passes its storage's address (getPtr()),
    # as cuda.bindings passes it.
    assert out["typed_form"] == [True, True, True, [0x1111, 0x2222, 0x3333], 7, 0xfffffffe, True, 0x4444]
    assert out["list_form"] == [True, True, True, [0x1111, 0x2222, 0x3333]]
    assert out["int_form"] is True
    assert out["zero"] is None and out["none"] is None
    assert out["many"] == list(range(16))
    assert "2 values but 1 types" in out["mismatch"]


# Result tuples are reused only when the caller let go of the previous one, and the items the
# previous result held are released when the tuple is reused.
REUSE_PROBE = r'''
import json, sys
import ctkgen_cuda.driver as cuda
ok = cuda.CUresult.CUDA_SUCCESS
cuda.cuInit(0)
out = {}
held = cuda.cuCtxGetDevice()
other = cuda.cuDeviceGet(0)
again = cuda.cuCtxGetDevice()
out["held"] = [held is not other, held is not again, held[0] is ok, int(held[1]), int(other[1]), int(again[1])]
del held, other, again
for _ in range(3):
    err, dev = cuda.cuCtxGetDevice()
before = sys.getrefcount(dev)
cuda.cuDeviceGet(0)
out["released"] = before - sys.getrefcount(dev)
values = [int(cuda.cuCtxGetDevice()[1]) for _ in range(1000)]
out["values"] = sorted(set(values))
print(json.dumps(out))
'''


def test_result_tuples_are_reused_only_when_free(package, fake_libcuda):
    ctk, path = package
    out = probe(path, REUSE_PROBE, {"CTKGEN_LIBCUDA": fake_libcuda})
    # A result the caller holds is never overwritten by a later call of the same arity.
    assert out["held"] == [True, True, True, 7, 0, 7]
    # The reused tuple dropped its reference to the previous device object.
    assert out["released"] == 1
    assert out["values"] == [7]


CONSTRUCT_PROBE = r'''
import json
import ctkgen_cuda.driver as cuda
out = {}
align = cuda.CUtensorMap._ctkgen_align
base = cuda.CUtensorMap()
class Tagged(cuda.CUtensorMap):
    def __init__(self, *args, **kwargs):
        self.tag = "init ran"
sub = Tagged()
out["subclass"] = [sub.tag, sub.getPtr() % align, type(sub).__name__]
out["keyword"] = cuda.CUtensorMap(_ptr=base.getPtr()).getPtr() == base.getPtr()
# Only the keyword points an object at memory: a positional argument is refused.
try:
    cuda.CUtensorMap(base.getPtr())
except TypeError:
    out["positional"] = True
try:
    cuda.CUtensorMap(_ptr=base.getPtr() + 16)
except ValueError as error:
    out["misaligned"] = "not aligned" in str(error)
try:
    cuda.CUtensorMap(1, 2)
except TypeError:
    out["too_many"] = True
out["scalars"] = [int(cuda.CUdevice()), int(cuda.CUdevice(5)), int(cuda.CUdevice(init_value=6)), int(cuda.cuuint64_t(2**64 - 1))]
out["handles"] = [int(cuda.CUstream()), int(cuda.CUstream(0x40)), int(cuda.CUstream(init_value=0x50))]
out["aligned"] = all(cuda.CUtensorMap().getPtr() % align == 0 for _ in range(1000))
print(json.dumps(out))
'''


def test_direct_construction_path_keeps_type_call_semantics(package):
    ctk, path = package
    out = probe(path, CONSTRUCT_PROBE)
    # Python subclasses take the ordinary type call: their __init__ runs, storage stays aligned.
    assert out["subclass"] == ["init ran", 0, "Tagged"]
    assert out["keyword"] and out["positional"] and out["misaligned"] and out["too_many"]
    assert out["scalars"] == [0, 5, 6, 2**64 - 1]
    assert out["handles"] == [0, 0x40, 0x50]
    assert out["aligned"]


# One function of each of the driver's other headers, on the package of a CTK that has them:
# each resolves under its documented name with the version its typedef header gives (the
# `_v2` symbols of cudaGL.h and cudaVDPAU.h included) and receives what the binding passed.
OTHER_HEADERS = r'''
import ctypes, json, os
import ctkgen_cuda.driver as cuda
fake = ctypes.CDLL(os.environ["CTKGEN_LIBCUDA"])
fake.fake_recorded_symbol.restype = ctypes.c_char_p
fake.fake_recorded_arg.restype = ctypes.c_uint64
ok = cuda.CUresult.CUDA_SUCCESS
cuda.cuInit(0)
out = {}

def call(function, *args):
    result = function(*args)
    lookup = [fake.fake_recorded_symbol().decode(), fake.fake_recorded_version()]
    return result, lookup, [fake.fake_recorded_arg(i) for i in range(3)]

(err,), lookup, _ = call(cuda.cuProfilerStart)
out["profiler"] = [err is ok, lookup]
(err, conn), lookup, args = call(cuda.cuEGLStreamConsumerConnect, cuda.EGLStreamKHR(0x5150))
out["egl"] = [err is ok, type(conn).__name__, lookup, args[1]]
(err, resource), lookup, args = call(cuda.cuGraphicsGLRegisterBuffer, cuda.GLuint(7), 2)
out["gl"] = [err is ok, type(resource).__name__, lookup, args[1] & 0xffffffff, args[2] & 0xffffffff]
(err, ctx), lookup, args = call(cuda.cuGLCtxCreate, 0, cuda.CUdevice(0))
out["gl_v2"] = [err is ok, lookup]
(err, device), lookup, args = call(cuda.cuVDPAUGetDevice, cuda.VdpDevice(9), 0xabc0)
out["vdpau"] = [err is ok, type(device).__name__, lookup, args[1] & 0xffffffff, args[2]]
(err, ctx), lookup, args = call(cuda.cuVDPAUCtxCreate, 0, cuda.CUdevice(0), 9, 0xabc0)
out["vdpau_v2"] = [err is ok, lookup]
(err, frame), lookup, args = call(cuda.cuGraphicsResourceGetMappedEglFrame, cuda.CUgraphicsResource(0), 0, 0)
out["frame"] = [err is ok, type(frame).__name__, lookup, args[0] == frame.getPtr(), len(frame.frame.pPitch)]
frame.width = 640
frame.frame.pPitch = [0x10, 0x20, 0x30]
frame.eglColorFormat = cuda.CUeglColorFormat.CU_EGL_COLOR_FORMAT_RGBA
out["frame_members"] = [frame.width, [int(p) for p in frame.frame.pPitch], int(frame.eglColorFormat),
                        ctypes.c_uint32.from_address(frame.getPtr() + 24).value]
out["constants"] = [cuda.MAX_PLANES, cuda.CUDA_EGL_INFINITE_TIMEOUT, int(cuda.CUoutput_mode.CU_OUT_CSV)]
print(json.dumps(out))
'''


def test_one_function_of_each_other_header(package, fake_libcuda):
    ctk, path = package
    out = probe(path, OTHER_HEADERS, {"CTKGEN_LIBCUDA": fake_libcuda})
    assert out["profiler"] == [True, ["cuProfilerStart", 4000]]
    assert out["egl"] == [True, "CUeglStreamConnection", ["cuEGLStreamConsumerConnect", 7000], 0x5150]
    assert out["gl"] == [True, "CUgraphicsResource", ["cuGraphicsGLRegisterBuffer", 3000], 7, 2]
    # `#define cuGLCtxCreate cuGLCtxCreate_v2`: asked for by its name, with the _v2 version.
    assert out["gl_v2"] == [True, ["cuGLCtxCreate", 3020]]
    assert out["vdpau"] == [True, "CUdevice", ["cuVDPAUGetDevice", 3010], 9, 0xabc0]
    assert out["vdpau_v2"] == [True, ["cuVDPAUCtxCreate", 3020]]
    assert out["frame"] == [True, "CUeglFrame", ["cuGraphicsResourceGetMappedEglFrame", 7000], True, 3]
    # width sits after the three-pointer union, at byte 24 (as the gcc oracle checks).
    assert out["frame_members"] == [640, [0x10, 0x20, 0x30], 7, 640]
    assert out["constants"] == [3, 0xFFFFFFFF, 1]


# Items of integer-array arguments: ints, bools, enum members and integer wrappers of any width
# are read in place, each checked against the element's C type (the fake records the arrays).
ARRAY_ITEMS = r'''
import ctypes, json, os
import ctkgen_cuda.driver as cuda
fake = ctypes.CDLL(os.environ["CTKGEN_LIBCUDA"])
fake.fake_recorded_encode_value.restype = ctypes.c_uint64
cuda.cuInit(0)
tail = (cuda.CUtensorMapInterleave(0), cuda.CUtensorMapSwizzle(0), cuda.CUtensorMapL2promotion(0),
        cuda.CUtensorMapFloatOOBfill(0))
u64, u32 = cuda.cuuint64_t, cuda.cuuint32_t

def encode(dims, strides, box, steps):
    try:
        err, _ = cuda.cuTensorMapEncodeTiled(cuda.CUtensorMapDataType(0), 2, 0x10000, dims, strides, box, steps, *tail)
    except Exception as error:
        return type(error).__name__
    return [fake.fake_recorded_encode_value(i) for i in range(fake.fake_recorded_encode_count())]

out = {}
out["mixed"] = encode([u64(2**64 - 1), 7], (u64(1024),), [u32(2**32 - 1), u64(5)], [True, cuda.CUtensorMapSwizzle(3)])
out["other_wrappers"] = encode([cuda.CUdevice(3), u32(9)], [u64(2**63)], [u32(0), cuda.CUdevice(2**31 - 1)],
                               [u32(1), u32(2)])
out["wrapper_too_wide"] = encode([1, 1], [16], [u64(2**32), 1], [1, 1])
out["signed_negative"] = encode([cuda.CUdevice(-1), 1], [16], [1, 1], [1, 1])
out["float"] = encode([1.5, 1], [16], [1, 1], [1, 1])
print(json.dumps(out))
'''


def test_integer_array_items_are_checked_against_the_element_type(package, fake_libcuda):
    ctk, path = package
    out = probe(path, ARRAY_ITEMS, {"CTKGEN_LIBCUDA": fake_libcuda})
    # globalDim, globalStrides, boxDim, elementStrides, as the driver received them.
    assert out["mixed"] == [2**64 - 1, 7, 1024, 2**32 - 1, 5, 1, 3]
    assert out["other_wrappers"] == [3, 9, 2**63, 0, 2**31 - 1, 1, 2]
    # A wrapper whose value does not fit the element is refused, never truncated.
    assert out["wrapper_too_wide"] == "OverflowError"
    assert out["signed_negative"] == "OverflowError"
    # A float truncates as int() truncates it, as cuda.bindings converts it.
    assert out["float"][:2] == [1, 1]
