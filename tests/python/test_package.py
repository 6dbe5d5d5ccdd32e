"""The generated package imports without a driver, and behaves like cuda.bindings.driver."""
import json

from conftest import probe, python

PROBE = r'''
import json
import ctkgen_cuda.driver as cuda
out = {}
try:
    cuda.cuInit(0)
except RuntimeError as error:
    out["error_type"] = type(error).__name__
    out["error"] = str(error)
out["success"] = [int(cuda.CUresult.CUDA_SUCCESS), cuda.CUresult(0) is cuda.CUresult.CUDA_SUCCESS]
out["legacy_stream"] = [type(cuda.CU_STREAM_LEGACY).__name__, int(cuda.CU_STREAM_LEGACY)]
h = cuda.CUstream(5)
out["handle"] = [int(h), h == cuda.CUstream(5), h == 5, hash(h) == hash(cuda.CUstream(5))]
out["scalar"] = [int(cuda.cuuint32_t(7)), int(cuda.CUdevice(-1))]
m = cuda.CUtensorMap()
out["tensor_map"] = [isinstance(m, cuda.CUtensorMap_st), m.getPtr() % cuda.CUtensorMap._ctkgen_align, len(m.opaque)]
out["n_functions"] = sum(1 for n in dir(cuda) if n.startswith("cu") and callable(getattr(cuda, n)))
print(json.dumps(out))
'''


def test_imports_and_reports_missing_driver(package):
    ctk, path = package
    result = python(path, PROBE)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["error_type"] == "CUDADriverNotFoundError"
    assert "CUDA driver not found" in out["error"]
    assert out["success"] == [0, True]
    assert out["legacy_stream"] == ["CUstream", 1]
    assert out["handle"] == [5, True, True, True]
    assert out["scalar"] == [7, -1]
    assert out["tensor_map"][0] is True and out["tensor_map"][1] == 0
    assert out["n_functions"] > 400


MEMBERS = r'''
import ctypes, json
import ctkgen_cuda.driver as cuda
copy = cuda.CUDA_MEMCPY2D()
dptr = cuda.CUdeviceptr(0x1234500)
copy.srcHost = dptr          # a `void *` member: the wrapper's value, as for `void *` arguments
buf = bytearray(16)
copy.dstHost = buf           # a buffer: its data
launch = cuda.CUDA_LAUNCH_PARAMS()
params = cuda.CUdeviceptr(7)
launch.kernelParams = [params]  # kernel parameters: an array whose entry is the wrapper's storage
entry = ctypes.c_void_p.from_address(launch.kernelParams).value
print(json.dumps([copy.srcHost, copy.dstHost != 0, entry == params.getPtr()]))
'''


def test_void_pointer_members_take_wrapper_values(package):
    ctk, path = package
    result = python(path, MEMBERS)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [0x1234500, True, True]


REFS_PROBE = r'''
import array, gc, json, weakref
import ctkgen_cuda.driver as cuda
out = {}
# Only records with pointer members are garbage-collector objects.
out["tracked"] = [gc.is_tracked(cuda.CUtensorMap()), gc.is_tracked(cuda.CUDA_HOST_NODE_PARAMS())]
# A pointer member set through a view of a nested record keeps its target alive with the
# outer record, not with the short-lived view.
params = cuda.CUgraphNodeParams()
target = array.array("Q", [1, 2, 3])
alive = weakref.ref(target)
params.kernel.kernelParams = target
address = params.kernel.kernelParams
del target
gc.collect()
out["nested_kept"] = [alive() is not None, address == alive().buffer_info()[0] if alive() else None]
params.kernel.kernelParams = None
gc.collect()
out["nested_released"] = alive() is None
# A cycle through a pointer member (userData referring back to its owner) is collected.
class Owner:
    def getPtr(self):
        return 0x1000
owner = Owner()
owner.params = cuda.CUDA_HOST_NODE_PARAMS()
owner.params.userData = owner
gone = weakref.ref(owner)
del owner
gc.collect()
out["cycle_collected"] = gone() is None
print(json.dumps(out))
'''


def test_pointer_members_keep_targets_alive_in_the_outer_record(package):
    ctk, path = package
    out = probe(path, REFS_PROBE)
    assert out["tracked"] == [False, True]
    assert out["nested_kept"] == [True, True]
    assert out["nested_released"] is True
    assert out["cycle_collected"] is True


WRITES_PROBE = r'''
import json
import ctkgen_cuda.driver as cuda
out = {}
p = cuda.CUDA_KERNEL_NODE_PARAMS()
p.gridDimX = 7
setattr(p, "".join(["grid", "DimY"]), 9)  # a name that is not interned: the generic path
p.func = cuda.CUfunction(0x1000)
out["direct"] = [p.gridDimX, p.gridDimY, int(p.func)]
class Mine(cuda.CUDA_KERNEL_NODE_PARAMS):
    seen = None
    @property
    def gridDimX(self):
        return "mine"
    @gridDimX.setter
    def gridDimX(self, value):
        type(self).seen = value
m = Mine()
m.gridDimX = 5
m.gridDimY = 6
m.extra = 1
member = cuda.CUDA_KERNEL_NODE_PARAMS_v2_st.gridDimX.__get__(m)
out["subclass"] = [Mine.seen, m.gridDimX, member, m.gridDimY, m.extra]
errors = []
for attempt in (lambda: setattr(p, "gridDimX", 1 << 32), lambda: setattr(p, "gridDimX", -1),
                lambda: setattr(p, "gridDimX", "1"), lambda: setattr(p, "func", "x"),
                lambda: setattr(p, "nosuch", 1), lambda: delattr(p, "gridDimX")):
    try:
        attempt()
        errors.append(None)
    except Exception as error:
        errors.append(type(error).__name__)
out["errors"] = errors
out["after"] = [p.gridDimX, int(p.func)]
print(json.dumps(out))
'''


def test_direct_member_writes_keep_checks_and_subclass_attributes(package):
    """A record's own `__setattr__` writes single C values directly: the same checks as the
    properties, and a Python subclass's own attribute of a member's name still wins."""
    ctk, path = package
    out = probe(path, WRITES_PROBE)
    assert out["direct"] == [7, 9, 0x1000]
    # The subclass's property took the write; the member underneath stayed 0.
    assert out["subclass"] == [5, "mine", 0, 6, 1]
    assert out["errors"] == ["OverflowError", "OverflowError", "TypeError", "TypeError", "AttributeError",
                             "NotImplementedError"]
    assert out["after"] == [7, 0x1000]


LAZY_MEMBERS = r'''
import json, pickle
import ctkgen_cuda.driver as cuda
import ctkgen_cuda._driver_enums as enums
classes = [c for c in vars(enums).values() if isinstance(c, type) and issubclass(c, cuda.CUresult.__mro__[1])
           and c is not cuda.CUresult.__mro__[1]]
pending = lambda c: "_ctkgen_pending" in vars(c)
out = {"classes": len(classes), "pending_after_import": sum(map(pending, classes))}
fmt = cuda.CUarray_format
out["format_pending"] = pending(fmt)
# A compiled record reads an enum member through the table it took at import.
desc = cuda.CUDA_ARRAY_DESCRIPTOR()
desc.Format = 3
member = desc.Format
out["read_through_table"] = [type(member).__name__, member.name, pending(fmt)]
kinds = cuda.CUmemAllocationType
out["dir_makes"] = [pending(kinds), "CU_MEM_ALLOCATION_TYPE_PINNED" in dir(kinds), pending(kinds)]
out["after"] = [repr(kinds.CU_MEM_ALLOCATION_TYPE_PINNED), kinds(1) is kinds.CU_MEM_ALLOCATION_TYPE_PINNED,
                pickle.loads(pickle.dumps(kinds(1))) is kinds(1), len(kinds) == len(list(kinds)) > 1,
                1 in kinds, kinds["CU_MEM_ALLOCATION_TYPE_PINNED"] is kinds(1)]
attr = cuda.CUmemLocationType
out["attribute_makes"] = [pending(attr), int(attr.CU_MEM_LOCATION_TYPE_DEVICE) == 1, pending(attr)]
try:
    cuda.CUmemLocationType.NO_SUCH_MEMBER
except AttributeError as error:
    out["missing"] = str(error)
print(json.dumps(out))
'''


def test_enum_members_are_made_on_first_use(package):
    """Importing the driver makes the classes, not their members (import time, issue 48); a
    member comes to be when the class is first asked for one, by name, by value, by `dir()`, or
    through a compiled module's table, and is then the one member of that value."""
    ctk, path = package
    result = python(path, LAZY_MEMBERS)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    # The module's own aliases (`X_enum = X`) and the few classes a compiled module makes a
    # member of at import (CUresult's success value) are the exceptions.
    assert out["classes"] > 100 and out["pending_after_import"] > out["classes"] - 10, out
    assert out["format_pending"] is True
    assert out["read_through_table"] == ["CUarray_format", "CU_AD_FORMAT_UNSIGNED_INT32", False]
    assert out["dir_makes"] == [True, True, False]
    assert out["after"] == ["<CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED: 1>", True, True, True, True, True]
    assert out["attribute_makes"] == [True, True, False]
    assert out["missing"] == "type object 'CUmemLocationType' has no attribute 'NO_SUCH_MEMBER'"
