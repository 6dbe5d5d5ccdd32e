"""The conventions code written for `cuda.bindings.driver` relies on, run on both modules in one
process (both_modules.py): ours (the 13.x package the suite builds) and the official release of
the same CTK major.minor, against the fake driver, on CPU. Each `case_*` function below runs
once per module; the tests compare the outcomes. Where ours is deliberately different (the
`[[behaviour]]` entries of tests/parity/exceptions.toml), the test asserts both sides."""
import array
import ctypes
import decimal
import fractions
import gc
import os
import re

import pytest

from conftest import CACHE, build

# ---- cases: each takes a driver module and returns JSON data -----------------------------------


def attempt(action):
    """What `action()` did: its value, or the name of the exception it raised."""
    try:
        return {"value": action()}
    except Exception as error:  # noqa: BLE001
        return {"error": type(error).__name__}


def case_repr_nested_record(d):
    desc = d.CUDA_RESOURCE_DESC()
    desc.resType = d.CUresourcetype.CU_RESOURCE_TYPE_PITCH2D
    pitch = desc.res.pitch2D
    pitch.devPtr = d.CUdeviceptr(0x7F0000001000)
    pitch.format = d.CUarray_format.CU_AD_FORMAT_FLOAT
    pitch.numChannels = 4
    pitch.width, pitch.height, pitch.pitchInBytes = 640, 480, 2560
    return repr(desc)


def case_repr_pointers_and_handles(d):
    host = d.CUDA_HOST_NODE_PARAMS()
    host.userData = 0x1234ABCD
    kernel = d.CUDA_KERNEL_NODE_PARAMS()
    kernel.func = d.CUfunction(0xABC)
    kernel.gridDimX, kernel.blockDimX = 2, 128
    kernel.ctx = d.CUcontext(0x55)
    return [repr(host), repr(kernel)]


def case_repr_uuid(d):
    raw = ctypes.create_string_buffer(bytes(range(0xF0, 0x100)), 16)
    uuid = d.CUuuid(_ptr=ctypes.addressof(raw))
    return [repr(uuid), uuid.bytes.hex()]


def case_repr_enum_members(d):
    node = d.CUDA_MEM_ALLOC_NODE_PARAMS()
    props = node.poolProps
    props.allocType = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    props.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    props.location.id = 1
    node.bytesize = 1 << 20
    texture = d.CUDA_TEXTURE_DESC()
    texture.filterMode = d.CUfilter_mode.CU_TR_FILTER_MODE_LINEAR
    return [repr(node), repr(texture)]


def case_list_member_of_records(d):
    node = d.CUDA_MEM_ALLOC_NODE_PARAMS()
    descs = []
    for i in range(3):
        desc = d.CUmemAccessDesc()
        desc.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        desc.location.id = i
        desc.flags = d.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
        descs.append(desc)
    node.accessDescs = descs
    node.accessDescCount = 3
    del descs, desc
    gc.collect()
    got = node.accessDescs
    # The elements are views of the array the record points at: a write goes there.
    got[1].location.id = 42
    again = node.accessDescs
    out = {"types": [type(g).__name__ for g in got], "ids": [g.location.id for g in again],
           "flags": [int(g.flags) for g in again], "contiguous": [g.getPtr() - again[0].getPtr() for g in again]}
    return out


# Cases the official module cannot run without corrupting the heap: only ours runs them.
OURS_ONLY = {
    "list_member_emptied": "13.1.1 frees the array when given [] but keeps the pointer, and frees it again "
                           "when the record goes (glibc aborts: double free)",
    "driver_filled_member_longer_than_one": "13.1.1 reads element i of a NULL array at address 8 * i "
                                            "(a segmentation fault from the second on)",
}


def case_list_member_emptied(d):
    node = d.CUDA_MEM_ALLOC_NODE_PARAMS()
    node.accessDescs = [d.CUmemAccessDesc()]
    node.accessDescs = []
    return [node.accessDescs, node.accessDescCount]


def case_list_member_count(d):
    node = d.CUDA_MEM_ALLOC_NODE_PARAMS()
    node.accessDescs = [d.CUmemAccessDesc(), d.CUmemAccessDesc()]
    return [node.accessDescCount, len(node.accessDescs)]


def case_list_member_of_handles(d):
    node = d.CUDA_EXT_SEM_SIGNAL_NODE_PARAMS()
    node.extSemArray = [d.CUexternalSemaphore(0x10), d.CUexternalSemaphore(0x20)]
    first = d.CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS()
    first.params.fence.value = 7
    node.paramsArray = [first, d.CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS()]
    node.numExtSems = 2
    return {"semaphores": [[type(s).__name__, int(s)] for s in node.extSemArray],
            "fences": [p.params.fence.value for p in node.paramsArray]}


def case_list_member_filled_by_the_driver(d):
    # The conditional node's graphs: an array the driver owns, `size` long. Written here as the
    # driver would, at the member's offset in the C struct (checked through `size`).
    node = d.CUDA_CONDITIONAL_NODE_PARAMS()
    node.size = 2
    graphs = (ctypes.c_void_p * 2)(0x100, 0x200)
    assert ctypes.c_uint.from_address(node.getPtr() + 12).value == 2
    ctypes.c_void_p.from_address(node.getPtr() + 16).value = ctypes.addressof(graphs)
    return [[type(g).__name__, int(g)] for g in node.phGraph_out]


def case_unsigned_char_members(d):
    handle = d.CUmemFabricHandle()
    out = {"type": type(handle.data).__name__, "zeros": handle.data == bytes(64)}
    handle.data = bytes(range(64))
    out["bytes"] = handle.data == bytes(range(64))
    handle.data = [255] * 64
    out["list"] = handle.data == b"\xff" * 64
    out["too_big"] = attempt(lambda: setattr(handle, "data", [256] + [0] * 63))
    out["negative"] = attempt(lambda: setattr(handle, "data", [-1] + [0] * 63))
    out["after"] = handle.data == b"\xff" * 64
    return out


def case_char_members(d):
    handle = d.CUipcMemHandle()
    out = {"type": type(handle.reserved).__name__}
    handle.reserved = [-128, 127, 200, -1] + [0] * 60
    out["range"] = handle.reserved[:5].hex()
    out["below"] = attempt(lambda: setattr(handle, "reserved", [-129] + [0] * 63))
    out["above"] = attempt(lambda: setattr(handle, "reserved", [256] + [0] * 63))
    handle.reserved = bytes(range(64))
    out["bytes"] = handle.reserved == bytes(range(64))
    return out


def case_char_member_shorter_value(d):
    handle = d.CUipcMemHandle()
    handle.reserved = b"\x01" * 64
    return attempt(lambda: (setattr(handle, "reserved", b"ab"), handle.reserved[:3].hex())[1])


def case_none_for_integer_typedef_members(d):
    node = d.CUDA_MEM_ALLOC_NODE_PARAMS()
    node.dptr = 0x5000
    node.dptr = None
    copy = d.CUDA_MEMCPY2D()
    copy.srcDevice = d.CUdeviceptr(0x6000)
    copy.srcDevice = None
    op = d.CUstreamBatchMemOpParams()
    op.writeValue.value64 = 9
    op.writeValue.value64 = None
    return {"dptr": [type(node.dptr).__name__, int(node.dptr)], "srcDevice": int(copy.srcDevice),
            "value64": [type(op.writeValue.value64).__name__, int(op.writeValue.value64)],
            "plain_int": attempt(lambda: setattr(copy, "WidthInBytes", None))}


def case_enum_members(d):
    kind = d.CUmemAllocationType
    member = kind.CU_MEM_ALLOCATION_TYPE_PINNED
    props = d.CUmemPoolProps()
    props.allocType = member
    return {"int": int(member), "is_int": isinstance(member, int), "equals_int": member == 1,
            "name": member.name, "value": member.value, "repr": repr(member), "by_value": kind(1) is member,
            "by_name": kind["CU_MEM_ALLOCATION_TYPE_PINNED"] is member, "unknown": attempt(lambda: kind(12345)),
            "hash": hash(member) == hash(1), "names": list(kind.__members__)[:3], "in": 1 in kind.__members__.values(),
            "read_back": [type(props.allocType).__name__, props.allocType is member],
            "result_is_enum": type(d.cuInit(0)[0]).__name__}


def case_enum_text(d):
    member = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    return [str(member), f"{member}"]


def case_enum_member_set_from_int(d):
    props = d.CUmemPoolProps()
    return attempt(lambda: (setattr(props, "allocType", 1), int(props.allocType))[1])


def case_kernel_params_member(d):
    node = d.CUDA_KERNEL_NODE_PARAMS()
    out = {}
    node.kernelParams = ((41, 0.75, 0x1234), (ctypes.c_int, ctypes.c_float, ctypes.c_void_p))
    gc.collect()
    entries = (ctypes.c_void_p * 3).from_address(int(node.kernelParams))
    out["ctypes_types"] = [ctypes.c_int.from_address(entries[0]).value, ctypes.c_float.from_address(entries[1]).value,
                           ctypes.c_void_p.from_address(entries[2]).value]
    pointer = d.CUdeviceptr(0x99)
    node.kernelParams = ((pointer,), (None,))
    out["binding_object"] = ctypes.c_uint64.from_address(ctypes.c_void_p.from_address(int(node.kernelParams)).value).value
    values = [ctypes.c_int(5), ctypes.c_int(6)]
    addresses = array.array("Q", [ctypes.addressof(v) for v in values])
    node.kernelParams = addresses
    out["buffer"] = int(node.kernelParams) == addresses.buffer_info()[0]
    node.kernelParams = addresses.buffer_info()[0]
    out["address"] = int(node.kernelParams) == addresses.buffer_info()[0]
    node.kernelParams = None
    out["none"] = int(node.kernelParams)
    return out


def case_get_ptr(d):
    address = d.CUdeviceptr(0x1234)
    word = d.cuuint32_t(77)
    stream = d.CUstream(0x55)
    desc = d.CUDA_RESOURCE_DESC()
    desc.res.linear.sizeInBytes = 4096
    view = d.CUDA_RESOURCE_DESC(_ptr=desc.getPtr())
    return {"scalar": ctypes.c_uint64.from_address(address.getPtr()).value,
            "u32": ctypes.c_uint32.from_address(word.getPtr()).value,
            "handle": ctypes.c_void_p.from_address(stream.getPtr()).value,
            "nested": desc.res.getPtr() - desc.getPtr(), "deeper": desc.res.linear.getPtr() - desc.getPtr(),
            "view": [view.getPtr() == desc.getPtr(), view.res.linear.sizeInBytes]}


def case_result_tuples(d):
    def shape(result):
        return [type(result).__name__, len(result)] + [type(item).__name__ for item in result]

    err, device = d.cuCtxGetDevice()
    out = {"init": shape(d.cuInit(0)), "device": shape((err, device)) + [int(device)],
           "error_name": shape(d.cuGetErrorName(d.CUresult.CUDA_ERROR_INVALID_VALUE)),
           "error_string": d.cuGetErrorString(d.CUresult.CUDA_ERROR_INVALID_VALUE)[1].decode(),
           "version": shape(d.cuDriverGetVersion()), "luid": shape(d.cuDeviceGetLuid(device)),
           "success": [d.cuInit(0)[0] == d.CUresult.CUDA_SUCCESS, d.cuInit(0)[0] is d.CUresult.CUDA_SUCCESS]}
    err, nodes, count = d.cuGraphGetNodes(d.CUgraph(0x1234), 3)
    out["nodes"] = [[type(n).__name__ for n in nodes], [int(n) for n in nodes], count]
    return out


def case_compat_names(d):
    desc = d.CUDA_RESOURCE_DESC()
    priority = d.CU_STREAM_ATTRIBUTE_PRIORITY
    return {"nested_class": [isinstance(desc.res, d.anon_union4), isinstance(desc.res.linear, d.anon_struct9)],
            "alias_value": [int(priority), priority == d.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PRIORITY,
                            int(d.CU_KERNEL_NODE_ATTRIBUTE_COOPERATIVE)],
            "enum_alias": d.CUstreamAttrID.CU_LAUNCH_ATTRIBUTE_PRIORITY == priority}


def case_compat_alias_as_argument(d):
    return attempt(lambda: int(d.cuStreamGetAttribute(d.CUstream(0), d.CU_STREAM_ATTRIBUTE_PRIORITY)[0]))


def case_keyword_names(d):
    """Parameters whose C names clash with Python's, called by keyword as cuda.bindings spells
    them (`typename`, `length`, `pformat`, `numbytes`, `input_`, `object`)."""
    calls = {
        "length": lambda: d.cuDeviceGetName(length=16, dev=0),
        "typename": lambda: d.cuCtxGetExecAffinity(typename=d.CUexecAffinityType.CU_EXEC_AFFINITY_TYPE_SM_COUNT),
        "pformat": lambda: d.cuDeviceGetTexture1DLinearMaxWidth(
            pformat=d.CUarray_format.CU_AD_FORMAT_FLOAT, numChannels=1, dev=0),
        "numbytes": lambda: d.cuFuncSetSharedSize(hfunc=d.CUfunction(0x10), numbytes=64),
        "input_": lambda: d.cuDevSmResourceSplitByCount(nbGroups=0, input_=d.CUdevResource(), flags=0, minCount=1),
        "object": lambda: d.cuUserObjectRetain(object=d.CUuserObject(0x10), count=1),
    }

    def shape(result):
        return [int(result[0])] + [type(item).__name__ for item in result[1:]]

    return {name: attempt(lambda: shape(call())) for name, call in calls.items()}


NON_INTEGERS = {"196.9": 196.9, "-1.5": -1.5, "-0.5": -0.5, "nan": float("nan"), "inf": float("inf"), "2.0": 2.0,
                "Fraction(7, 2)": fractions.Fraction(7, 2), "Decimal(2.5)": decimal.Decimal("2.5"), "str": "3"}


def fake_driver():
    """The fake driver both modules talk to (the same loaded library)."""
    fake = ctypes.CDLL(os.environ["CTKGEN_LIBCUDA"])
    fake.fake_recorded_arg.restype = ctypes.c_uint64
    return fake


def case_floats_for_integers(d):
    """What published programs pass: sizes computed with true division, on every integer path."""
    node = d.CUDA_KERNEL_NODE_PARAMS()
    prop = d.CUdevprop()
    fake = fake_driver()
    out = {}
    for label, value in NON_INTEGERS.items():
        out[f"unsigned member {label}"] = attempt(lambda: (setattr(node, "gridDimX", value), int(node.gridDimX))[1])
        out[f"signed member {label}"] = attempt(lambda: (setattr(prop, "clockRate", value), int(prop.clockRate))[1])
        out[f"list member {label}"] = attempt(lambda: (setattr(prop, "maxThreadsDim", [value, 2, 3]),
                                                       list(prop.maxThreadsDim))[1])
        out[f"constructor {label}"] = attempt(lambda: int(d.cuuint32_t(value)))
        out[f"handle {label}"] = attempt(lambda: int(d.CUstream(value)))
        out[f"argument {label}"] = attempt(lambda: (d.cuMemsetD8(0x1000, 7, value), fake.fake_recorded_arg(2))[1])
    return out


def case_kernel_params_conversions(d):
    """kernelParams values converted as cuda.bindings converts them: a ctypes number of another
    type by its value, an object of a binding (also of the official runtime module) declared
    `c_void_p` as the address of its storage."""
    from cuda.bindings import runtime

    node = d.CUDA_KERNEL_NODE_PARAMS()
    handle, record, dim = d.CUdeviceptr(0x99), d.CUDA_MEMCPY2D(), runtime.dim3()
    surface = ctypes.c_uint64(0x4242)
    sibling = runtime.cudaSurfaceObject_t(_ptr=ctypes.addressof(surface))

    def slots(params, types, read):
        node.kernelParams = (params, types)
        entries = (ctypes.c_void_p * len(params)).from_address(int(node.kernelParams))
        return [kind.from_address(entries[i]).value for i, kind in enumerate(read)]

    return {
        "c_float as c_double": attempt(lambda: slots((ctypes.c_float(123.456),), (ctypes.c_double,), (ctypes.c_double,))),
        "storage as c_void_p": attempt(lambda: [a == b.getPtr() for a, b in zip(
            slots((handle, record, dim, sibling), (ctypes.c_void_p,) * 4, (ctypes.c_void_p,) * 4),
            (handle, record, dim, sibling))]),
        "float as c_int": attempt(lambda: slots((2.5,), (ctypes.c_int,), (ctypes.c_int,))),
    }


def case_kernel_params_typed_none(d):
    """cuda-python's own kernelParams test of the runtime's types (the one that crashed ours):
    values typed None (an enum member, a typedef of a primitive, a record) and objects over
    foreign memory (`_ptr=`) typed `c_void_p`, launched through the fake driver, which records
    the first 8 bytes each entry points at; then what neither module can pass typed None."""
    from cuda.bindings import runtime

    fake = fake_driver()
    fake.fake_recorded_param_bytes.restype = ctypes.c_uint64
    surface, dim = ctypes.c_uint64(0), (ctypes.c_uint * 3)()
    values = (runtime.cudaError_t.cudaErrorUnknown, 0x7F0000001000, runtime.cudaSurfaceObject_t(248),
              runtime.cudaSurfaceObject_t(_ptr=ctypes.addressof(surface)), runtime.dim3(),
              runtime.dim3(_ptr=ctypes.addressof(dim)), d.CUresult.CUDA_ERROR_NOT_FOUND)
    values[4].x, values[4].y, values[4].z = 1, 2, 3
    types = (None, ctypes.c_void_p, None, ctypes.c_void_p, None, ctypes.c_void_p, None)

    def launch(params, count):
        (err,) = d.cuLaunchKernel(d.CUfunction(1), count, 1, 1, 1, 1, 1, 0, None, params, 0)
        return [int(err)] + [fake.fake_recorded_param_bytes(i) for i in range(count)]

    words = launch((values, types), len(values))
    # An enum is a C int: the 4 bytes past it are not the argument's (the official module leaves
    # whatever its slot held there).
    enum = 0xFFFFFFFF
    out = {"launch": [words[0], words[1] & enum, words[2], words[3], words[4] == ctypes.addressof(surface), words[5],
                      words[6] == ctypes.addressof(dim), words[7] & enum]}
    for label, value in [("int", 5), ("bool", True), ("float", 1.5), ("object", object())]:
        out[f"{label} typed None"] = attempt(lambda: launch(((value,), (None,)), 1))
    return out


def case_kernel_params_read_wider(d):
    """A kernel that declares a wider parameter than the ctypes type given (`c_uint` for a
    `size_t`, as NVIDIA's graph sample does) reads zeros past the value, as in a ctypes object's
    zeroed storage, not what the slot held before: through a launch, and through a record member
    set twice."""
    fake = fake_driver()
    fake.fake_recorded_param_bytes.restype = ctypes.c_uint64
    wide, narrow = (2**64 - 1,) * 4, (7, -2, 9, 0.5)
    narrow_types = (ctypes.c_uint, ctypes.c_int, ctypes.c_ushort, ctypes.c_float)
    out = {}
    for _ in range(2):
        d.cuLaunchKernel(d.CUfunction(1), 4, 1, 1, 1, 1, 1, 0, None, (wide, (ctypes.c_uint64,) * 4), 0)
        d.cuLaunchKernel(d.CUfunction(1), 4, 1, 1, 1, 1, 1, 0, None, (narrow, narrow_types), 0)
    out["launch"] = [fake.fake_recorded_param_bytes(i) for i in range(4)]
    node = d.CUDA_KERNEL_NODE_PARAMS()
    node.kernelParams = (wide, (ctypes.c_uint64,) * 4)
    node.kernelParams = (narrow, narrow_types)
    entries = (ctypes.c_void_p * 4).from_address(int(node.kernelParams))
    out["member"] = [ctypes.c_uint64.from_address(entries[i]).value for i in range(4)]
    return out


def case_driver_filled_member_before_and_after(d):
    """A conditional node's body graphs: before the driver fills them the member reads as `size`
    null handles; after cuGraphAddNode (the fake writes its own array into the record, as the
    driver does) it reads the driver's handles."""
    params = d.CUgraphNodeParams()
    params.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    params.conditional.size = 1
    before = [[type(g).__name__, int(g)] for g in params.conditional.phGraph_out]
    err, node = d.cuGraphAddNode(d.CUgraph(0x1234), None, None, 0, params)
    return {"before": before, "added": [int(err), int(node)],
            "after": [[type(g).__name__, int(g)] for g in params.conditional.phGraph_out]}


def case_driver_filled_member_longer_than_one(d):
    params = d.CUgraphNodeParams()
    params.conditional.size = 3
    return [int(g) for g in params.conditional.phGraph_out]


def case_size_queries(d):
    """The in/out counts default to 0: `f(graph)` asks how many there are."""
    graph, node = d.CUgraph(0x1234), d.CUgraphNode(0x55)
    err, edges_from, edges_to, data, count = d.cuGraphGetEdges(graph)
    out = {"edges": [int(err), edges_from, edges_to, data, count],
           "nodes": [int(x) if isinstance(x, int) else x for x in d.cuGraphGetNodes(graph)][1:],
           "dependencies": list(d.cuGraphNodeGetDependencies(node)[1:]),
           "dependent nodes": list(d.cuGraphNodeGetDependentNodes(node)[1:])}
    return out


def case_returned_records_own_their_storage(d):
    """Edge data returned by a call stays readable after the call and after later allocations."""
    err, edges_from, edges_to, data, count = d.cuGraphGetEdges(d.CUgraph(0x1234), 3)
    deps = d.cuGraphNodeGetDependencies(d.CUgraphNode(0x55), 2)
    dependents = d.cuGraphNodeGetDependentNodes(d.CUgraphNode(0x55), 2)
    churn = [bytearray(64) for _ in range(10000)]
    gc.collect()
    del churn
    return {"edges": [[int(f), int(t), e.from_port, e.to_port] for f, t, e in zip(edges_from, edges_to, data)],
            "dependencies": [[int(n), e.from_port, e.to_port] for n, e in zip(deps[1], deps[2])],
            "dependent nodes": [int(dependents[0]), type(dependents[2]).__name__,
                                [[int(n), e.from_port, e.to_port] for n, e in zip(dependents[1], dependents[2])]]}


def case_list_member_of_a_wrapper_over_shared_storage(d):
    """A record made over another's storage owns the array it is given; when the wrapper goes,
    the member of the shared struct is set back to NULL, not left pointing at freed memory."""
    outer = d.CUlaunchConfig()
    inner = d.CUlaunchConfig(_ptr=outer.getPtr())
    inner.attrs = [d.CUlaunchAttribute(), d.CUlaunchAttribute()]
    slot = ctypes.c_void_p.from_address(outer.getPtr() + 40)  # attrs follows the dims, memory and stream
    before = slot.value == inner.attrs[0].getPtr()
    del inner
    gc.collect()
    return {"set": before, "after": slot.value}


# ---- the tests ----------------------------------------------------------------------------------

ENUM_REPR = re.compile(r"<(\w+)\.(\w+): (-?\d+)>")


@pytest.fixture(scope="module")
def outcomes(ctk13, fake_libcuda):
    import both_modules

    official = both_modules.official_path(CACHE, ctk13)
    if official is None:
        pytest.skip(f"no official cuda-bindings release pinned for CTK {ctk13}")
    return both_modules.run("test_behaviour", build(ctk13), official, fake_libcuda)


def both(outcomes, case):
    """The two outcomes of a case; each must have returned (no exception)."""
    ours, official = outcomes[case]["ours"], outcomes[case]["official"]
    assert "value" in ours, ours
    assert "value" in official, official
    return ours["value"], official["value"]


def same(outcomes, case):
    ours, official = both(outcomes, case)
    assert ours == official
    return ours


def members_as_ints(text):
    """Enum members printed as `<Enum.MEMBER: value>`, turned into their values."""
    return ENUM_REPR.sub(r"\3", text)


def test_repr_of_a_nested_record_opens_an_indented_block(outcomes):
    ours, official = both(outcomes, "repr_nested_record")
    assert members_as_ints(ours) == official
    assert "res :\n    array :\n        hArray : <CUarray 0x7f0000001000>\n" in ours
    assert "\n    pitch2D :\n        devPtr : <CUdeviceptr 139637976731648>\n" in ours


def test_repr_prints_untyped_pointers_and_handles_in_hex(outcomes):
    ours = same(outcomes, "repr_pointers_and_handles")
    assert "userData : 0x1234abcd" in ours[0]
    assert "func : <CUfunction 0xabc>" in ours[1] and "ctx : <CUcontext 0x55>" in ours[1]


def test_repr_prints_the_uuid_as_hex_digits(outcomes):
    ours = same(outcomes, "repr_uuid")
    assert ours[0] == "bytes : " + bytes(range(0xF0, 0x100)).hex()


def test_repr_prints_enum_members(outcomes):
    """Ours prints a member as itself, as the releases since 13.3 do; 13.1.1 prints `str()` of
    its IntEnum members, which on Python 3.11 and later is the bare value."""
    ours, official = both(outcomes, "repr_enum_members")
    assert [members_as_ints(text) for text in ours] == [members_as_ints(text) for text in official]
    assert "    allocType : <CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED: 1>\n" in ours[0]
    assert "filterMode : <CUfilter_mode.CU_TR_FILTER_MODE_LINEAR: 1>" in ours[1]
    assert "    allocType : 1\n" in official[0] or "<CUmemAllocationType." in official[0]


def test_a_counted_pointer_member_is_a_list_of_records(outcomes):
    ours = same(outcomes, "list_member_of_records")
    assert ours["types"] == ["CUmemAccessDesc"] * 3
    assert ours["ids"] == [0, 42, 2]
    assert ours["contiguous"] == [0, 12, 24]


def test_an_empty_list_empties_a_list_member(outcomes):
    assert outcomes["list_member_emptied"]["ours"] == {"value": [[], 0]}
    assert "skipped" in outcomes["list_member_emptied"]["official"]


def test_setting_a_list_member_sets_its_count_too(outcomes):
    """Listed in exceptions.toml: ours writes the count member with the list (the C struct
    then says what it holds); the official module leaves it for the caller to set."""
    ours, official = both(outcomes, "list_member_count")
    assert ours == [2, 2]
    assert official == [0, 2]


def test_a_counted_pointer_member_is_a_list_of_handles(outcomes):
    ours = same(outcomes, "list_member_of_handles")
    assert ours == {"semaphores": [["CUexternalSemaphore", 0x10], ["CUexternalSemaphore", 0x20]], "fences": [7, 0]}


def test_a_driver_filled_array_reads_back_as_a_list(outcomes):
    assert same(outcomes, "list_member_filled_by_the_driver") == [["CUgraph", 0x100], ["CUgraph", 0x200]]


def test_unsigned_char_members_are_bytes(outcomes):
    ours = same(outcomes, "unsigned_char_members")
    assert ours["type"] == "bytes" and ours["bytes"] and ours["list"] and ours["after"]
    assert ours["too_big"] == ours["negative"] == {"error": "OverflowError"}


def test_char_members_take_signed_byte_values(outcomes):
    ours = same(outcomes, "char_members")
    assert ours["range"] == "807fc8ff00"
    assert ours["below"] == ours["above"] == {"error": "OverflowError"}


def test_a_shorter_value_fills_a_char_member_with_zeros(outcomes):
    """Listed in exceptions.toml: ours takes up to the array's length and zeroes the rest;
    the official module takes exactly the length."""
    ours, official = both(outcomes, "char_member_shorter_value")
    assert ours == {"value": "616200"}
    assert official == {"error": "ValueError"}


def test_none_sets_an_integer_typedef_member_to_zero(outcomes):
    ours = same(outcomes, "none_for_integer_typedef_members")
    assert ours == {"dptr": ["CUdeviceptr", 0], "srcDevice": 0, "value64": ["cuuint64_t", 0],
                    "plain_int": {"error": "TypeError"}}


def test_enum_members_behave_alike(outcomes):
    ours = same(outcomes, "enum_members")
    assert ours["repr"] == "<CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED: 1>"
    assert ours["unknown"] == {"error": "ValueError"}
    assert ours["read_back"] == ["CUmemAllocationType", True] and ours["result_is_enum"] == "CUresult"


def test_enum_member_text(outcomes):
    """Listed in exceptions.toml: `str()` and `format()` of a member differ (13.1.1: the value,
    IntEnum's on Python 3.11+; ours, on the enum base of 13.2 and later: `repr()`)."""
    ours, official = both(outcomes, "enum_text")
    assert ours == ["<CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED: 1>"] * 2
    assert official == ["1", "1"]


def test_an_enum_member_takes_an_int(outcomes):
    """Listed in exceptions.toml: ours takes an int in the enum's range (as the releases since
    13.3 do); 13.1.1 wants a member."""
    ours, official = both(outcomes, "enum_member_set_from_int")
    assert ours == {"value": 1}
    assert official == {"error": "AttributeError"}


def test_kernel_params_member_forms(outcomes):
    ours = same(outcomes, "kernel_params_member")
    assert ours == {"ctypes_types": [41, 0.75, 0x1234], "binding_object": 0x99, "buffer": True, "address": True,
                    "none": 0}


def test_get_ptr(outcomes):
    ours = same(outcomes, "get_ptr")
    assert ours["scalar"] == 0x1234 and ours["u32"] == 77 and ours["handle"] == 0x55
    assert ours["view"] == [True, 4096]


def test_result_tuples(outcomes):
    ours = same(outcomes, "result_tuples")
    assert ours["init"] == ["tuple", 1, "CUresult"]
    assert ours["device"] == ["tuple", 2, "CUresult", "CUdevice", 7]
    assert ours["error_name"] == ["tuple", 2, "CUresult", "bytes"]
    assert ours["success"] == [True, True]
    assert ours["nodes"] == [["CUgraphNode"] * 3, [0x10, 0x20, 0x30], 3]


def test_names_users_reach(outcomes):
    """Untagged nested records under the official module's names, macro-aliased enum members
    and enum typedef aliases."""
    ours = same(outcomes, "compat_names")
    assert ours["nested_class"] == [True, True]
    assert ours["alias_value"] == [8, True, 2] and ours["enum_alias"] is True


def test_a_macro_aliased_member_is_an_argument(outcomes):
    """Listed in exceptions.toml: ours binds the alias to the enum member, so an attribute
    argument takes it; 13.1.1 binds a plain int, which its own functions refuse."""
    ours, official = both(outcomes, "compat_alias_as_argument")
    assert ours == {"value": 0}
    assert official == {"error": "AttributeError"}


def test_keyword_calls_take_the_official_parameter_names(outcomes):
    """Code calling by keyword runs on both: names that clash with Python's are spelled as
    cuda.bindings spells them (the library description's `parameter_names`)."""
    ours = same(outcomes, "keyword_names")
    assert all("value" in result for result in ours.values()), ours
    assert ours["length"] == {"value": [0, "bytes"]} and ours["object"] == {"value": [0]}


def test_the_cases_ran_in_one_process_on_both_modules(outcomes):
    cases = [name[len("case_"):] for name in globals() if name.startswith("case_")]
    assert sorted(outcomes) == sorted(cases)


def test_floats_convert_as_int_converts_them(outcomes):
    """Item 1 of the drop-in round: a float (or Fraction, Decimal) on an integer path truncates
    toward zero and is then range-checked, with cuda.bindings' exception classes; str is refused."""
    ours = same(outcomes, "floats_for_integers")
    assert ours["unsigned member 196.9"] == ours["constructor 196.9"] == ours["handle 196.9"] == {"value": 196}
    assert ours["argument 196.9"] == {"value": 196} and ours["signed member -1.5"] == {"value": -1}
    assert ours["list member 196.9"] == {"value": [196, 2, 3]}
    assert ours["unsigned member -1.5"] == {"error": "OverflowError"} and ours["unsigned member -0.5"] == {"value": 0}
    assert ours["unsigned member nan"] == {"error": "ValueError"}
    assert ours["unsigned member inf"] == {"error": "OverflowError"}
    assert ours["constructor Fraction(7, 2)"] == {"value": 3} and ours["constructor Decimal(2.5)"] == {"value": 2}
    assert ours["unsigned member str"] == ours["argument str"] == {"error": "TypeError"}


def test_kernel_params_convert_as_the_official_module_does(outcomes):
    ours = same(outcomes, "kernel_params_conversions")
    assert ours["c_float as c_double"] == {"value": [ctypes.c_double(ctypes.c_float(123.456).value).value]}
    assert ours["c_float as c_double"]["value"][0] == 123.45600128173828
    assert ours["storage as c_void_p"] == {"value": [True] * 4}
    # ctypes itself refuses a float for c_int, on both sides.
    assert ours["float as c_int"] == {"error": "TypeError"}


def test_kernel_params_typed_none_pass_their_values(outcomes):
    """The pattern of cuda-python's test_kernelParams_types_cuda, which crashed ours: a runtime
    enum member typed None was read as an address (999) that the driver dereferenced."""
    ours = same(outcomes, "kernel_params_typed_none")
    assert ours["launch"] == [0, 999, 0x7F0000001000, 248, True, 1 | 2 << 32, True, 500]
    for label in ("int", "bool", "float", "object"):
        assert ours[f"{label} typed None"] == {"error": "TypeError"}, label


def test_a_driver_filled_member_reads_null_handles_then_the_drivers(outcomes):
    ours = same(outcomes, "driver_filled_member_before_and_after")
    assert ours == {"before": [["CUgraph", 0]], "added": [0, 0x777], "after": [["CUgraph", 0xD0]]}
    assert outcomes["driver_filled_member_longer_than_one"]["ours"] == {"value": [0, 0, 0]}


def test_size_queries_take_no_count(outcomes):
    ours = same(outcomes, "size_queries")
    assert ours["edges"] == [0, [], [], [], 3]
    assert ours["nodes"] == [[], 3] and ours["dependencies"] == [[], [], 2]
    # The edge data of dependent nodes is an array counted like the nodes: none asked, none passed.
    assert ours["dependent nodes"] == [[], [], 2]


def test_kernel_params_narrower_than_the_kernel_reads_zero_extended(outcomes):
    """The fault NVIDIA's hand-built graph sample met: `c_uint` given for a `size_t` parameter.
    Listed in exceptions.toml: the official module passes what its ctypes objects' storage held,
    here the earlier wide values (its sample works by chance, on fresh objects)."""
    ours, official = both(outcomes, "kernel_params_read_wider")
    assert official["launch"][:3] != [7, 2**32 - 2, 9], "the official module zero-extends now: drop the exception"
    float_bits = int.from_bytes(ctypes.c_float(0.5), "little")
    assert ours == {"launch": [7, 2**32 - 2, 9, float_bits], "member": [7, 2**32 - 2, 9, float_bits]}


def test_returned_records_own_their_storage(outcomes):
    """Listed in exceptions.toml: 13.1.1's returned edge data points into an array freed when the
    call returns (its issue 1804), so it reads whatever was allocated there since; not asserted,
    as that is chance."""
    ours, official = both(outcomes, "returned_records_own_their_storage")
    assert ours["edges"] == [[0x100 + i, 0x200 + i, i + 1, i + 2] for i in range(3)]
    assert ours["dependencies"] == [[0x300 + i, i + 5, i + 6] for i in range(2)]
    assert ours["dependent nodes"] == [0, "list", [[0x300 + i, i + 5, i + 6] for i in range(2)]]


def test_a_wrapper_over_shared_storage_clears_the_array_it_owned(outcomes):
    """Listed in exceptions.toml: 13.1.1 leaves the member pointing at the freed array."""
    ours, official = both(outcomes, "list_member_of_a_wrapper_over_shared_storage")
    assert ours == {"set": True, "after": None}
    assert official["set"] is True and official["after"] is not None
