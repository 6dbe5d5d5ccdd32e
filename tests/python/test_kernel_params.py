"""Every kernelParams form cuda.bindings documents, on cuLaunchKernel and on a record member,
against the fake driver (which records the pointer array it was given and the first 8 bytes each
entry points at): None, an int address, a buffer holding the pointer array, and
`(values, types)` with ctypes types, ctypes instances, binding classes and None. A form that
is not supported is a TypeError naming the element, never a wrong pointer. The GPU suite
checks the same forms with a real kernel."""
from conftest import probe

PROBE = r'''
import array as arrays, ctypes, gc, json, os
import ctkgen_cuda.driver as cuda
fake = ctypes.CDLL(os.environ["CTKGEN_LIBCUDA"])
for name in ("fake_recorded_params_array", "fake_recorded_param_pointer"):
    getattr(fake, name).restype = ctypes.c_void_p
fake.fake_recorded_param_bytes.restype = ctypes.c_uint64
ok = cuda.CUresult.CUDA_SUCCESS
cuda.cuInit(0)
out = {}

def launch(params, count):
    # gridDimX tells the fake driver how many entries to record.
    err, = cuda.cuLaunchKernel(cuda.CUfunction(0), count, 1, 1, 1, 1, 1, 0, None, params, None)
    assert err is ok, err
    n = fake.fake_recorded_param_count()
    return [fake.fake_recorded_param_bytes(i) for i in range(n)]

class Pair(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_float)]

values = [ctypes.c_int(7), ctypes.c_float(2.5), ctypes.c_uint64(0x123456789)]
addresses = [ctypes.addressof(v) for v in values]
# A buffer holding the pointer array (numpy arrays are the usual one): the driver gets the
# buffer's own data.
array = arrays.array("Q", addresses)
words = launch(array, 3)
out["buffer"] = [fake.fake_recorded_params_array() == array.buffer_info()[0], words[0] & 0xffffffff, words[1] & 0xffffffff,
                 words[2]]
pointers = (ctypes.c_void_p * 3)(*addresses)
out["bytes_buffer"] = launch(bytes(pointers), 3)[2]
out["address"] = launch(ctypes.addressof(pointers), 3)[2]
out["none"] = [launch(None, 0), fake.fake_recorded_params_array()]

typed = (ctypes.c_int, ctypes.c_float, ctypes.c_uint64, Pair, ctypes.c_void_p)
words = launch(((-3, 2.5, 2**64 - 1, Pair(5, 0.5), 0x7f0000001000), typed), 5)
out["ctypes_types"] = [words[0] & 0xffffffff, words[1] & 0xffffffff, words[2], words[3] & 0xffffffff, words[3] >> 32,
                       words[4]]
instances = (ctypes.c_int(9), ctypes.c_float(1.5), ctypes.c_uint64(11), Pair(6, 0.25), ctypes.c_void_p(0x2000))
launch((instances, typed), 5)
out["instances_used_as_they_are"] = [fake.fake_recorded_param_pointer(i) == ctypes.addressof(v)
                                     for i, v in enumerate(instances)]
words = launch(((0x7f0000003000, cuda.CUdeviceptr(0x7f0000004000), 0x55), (cuda.CUdeviceptr, cuda.CUdeviceptr,
                                                                           cuda.CUstream)), 3)
out["binding_classes"] = words

# Every simple ctypes type stores its value in the launch's own slots (no ctypes object): the
# bytes the driver reads are those ctypes itself would give, at both ends of each range.
simple = [(ctypes.c_byte, -128), (ctypes.c_ubyte, 255), (ctypes.c_short, -32768), (ctypes.c_ushort, 65535),
          (ctypes.c_int, -2**31), (ctypes.c_uint, 2**32 - 1), (ctypes.c_long, -2**63), (ctypes.c_ulong, 2**64 - 1),
          (ctypes.c_longlong, 2**63 - 1), (ctypes.c_ulonglong, 0), (ctypes.c_size_t, 2**64 - 1), (ctypes.c_ssize_t, -5),
          (ctypes.c_double, 0.1), (ctypes.c_float, 3), (ctypes.c_void_p, None), (ctypes.c_void_p, 2**64 - 1)]
words = launch((tuple(v for _, v in simple), tuple(k for k, _ in simple)), len(simple))
out["simple_kinds"] = [[w & ((1 << 8 * ctypes.sizeof(k)) - 1), int.from_bytes(bytes(k(v)), "little")]
                       for w, (k, v) in zip(words, simple)]
# More entries than the launch keeps on its stack: one allocation holds pointers and values.
words = launch((tuple(range(-10, 10)), (ctypes.c_short,) * 20), 20)
out["many_entries"] = [w & 0xffff for w in words]
beyond = {}
for kind, value in [(ctypes.c_byte, 128), (ctypes.c_byte, -129), (ctypes.c_ubyte, 256), (ctypes.c_uint, -1),
                    (ctypes.c_long, 2**63), (ctypes.c_ulonglong, 2**64), (ctypes.c_void_p, -1)]:
    try:
        launch(((1, value), (ctypes.c_int, kind)), 2)
        beyond[f"{kind.__name__} {value}"] = "accepted"
    except OverflowError as error:
        beyond[f"{kind.__name__} {value}"] = f"OverflowError: {error}"
out["beyond"] = beyond

errors = {}
for label, params in [("dict", {"a": 1}), ("object value", ((object(),), (None,))),
                      ("str type", ((1,), ("int",))), ("float for c_int", ((1.5,), (ctypes.c_int,))),
                      ("negative address", -1)]:
    try:
        launch(params, 1)
        errors[label] = "accepted"
    except TypeError as error:
        errors[label] = f"TypeError: {error}"
    except OverflowError as error:
        errors[label] = f"OverflowError: {error}"
try:
    launch(((2**40,), (ctypes.c_int,)), 1)
    errors["too wide for c_int"] = "accepted"
except OverflowError as error:
    errors["too wide for c_int"] = f"OverflowError: {error}"
out["errors"] = errors

# A record member takes the same forms; the record keeps the converted values alive.
node = cuda.CUDA_KERNEL_NODE_PARAMS()
node.kernelParams = ((41, 0.75), (ctypes.c_int, ctypes.c_float))
gc.collect()
entries = (ctypes.c_void_p * 2).from_address(int(node.kernelParams))
out["member"] = [ctypes.c_int.from_address(entries[0]).value, ctypes.c_float.from_address(entries[1]).value]
node.kernelParams = array
out["member_buffer"] = int(node.kernelParams) == array.buffer_info()[0]
node.kernelParams = None
out["member_none"] = int(node.kernelParams)
try:
    node.kernelParams = ((object(),), (None,))
    out["member_error"] = "accepted"
except TypeError as error:
    out["member_error"] = str(error)
print(json.dumps(out))
'''


def test_every_kernel_params_form(package, fake_libcuda):
    ctk, path = package
    out = probe(path, PROBE, {"CTKGEN_LIBCUDA": fake_libcuda})
    f32 = {2.5: 0x40200000, 0.5: 0x3F000000}
    assert out["buffer"] == [True, 7, f32[2.5], 0x123456789], "the buffer is the pointer array itself"
    assert out["bytes_buffer"] == 0x123456789
    assert out["address"] == 0x123456789
    assert out["none"] == [[], None]
    assert out["ctypes_types"] == [0xFFFFFFFD, f32[2.5], 2**64 - 1, 5, f32[0.5], 0x7f0000001000]
    assert out["instances_used_as_they_are"] == [True] * 5
    assert out["binding_classes"] == [0x7f0000003000, 0x7f0000004000, 0x55]
    assert all(got == want for got, want in out["simple_kinds"]), out["simple_kinds"]
    assert out["many_entries"] == [v & 0xFFFF for v in range(-10, 6)], "the first 16 entries, as recorded"
    for case, result in out["beyond"].items():
        assert result.startswith("OverflowError: kernelParams: values[1]"), (case, result)
    errors = out["errors"]
    assert errors["dict"].startswith("TypeError: kernelParams: expected None"), errors
    assert errors["object value"].startswith("TypeError: kernelParams: values[0]"), errors
    assert errors["str type"].startswith("TypeError: kernelParams: types[0]"), errors
    assert errors["float for c_int"].startswith("TypeError: kernelParams: values[0]"), errors
    assert errors["negative address"].startswith("OverflowError"), errors
    assert errors["too wide for c_int"].startswith("OverflowError: kernelParams: values[0]"), errors
    assert out["member"] == [41, 0.75]
    assert out["member_buffer"] is True
    assert out["member_none"] == 0
    assert out["member_error"].startswith("kernelParams: values[0]")
