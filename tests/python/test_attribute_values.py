"""Values whose type an enum argument sets (attribute getters and setters, JIT and library
options, shareable handles): what the generated functions return and what reaches the driver,
against the fake driver (fake_driver/fake_libcuda.c writes the bytes a test sets and records what
setters received); then the same calls on the official cuda.bindings in the same process,
compared result by result (side_by_side.py)."""
import pytest

from conftest import probe
from side_by_side import official_version, run_both

COMMON = r'''
import ctypes, json, os, struct
fake = ctypes.CDLL(os.environ["CTKGEN_LIBCUDA"])
fake.fake_recorded_selector.restype = ctypes.c_ulonglong
fake.fake_recorded_size.restype = ctypes.c_ulonglong
fake.fake_recorded_pointer.restype = ctypes.c_ulonglong
fake.fake_recorded_slot.restype = ctypes.c_ulonglong
fake.fake_recorded_first_address.restype = ctypes.c_ulonglong
fake.fake_recorded_first_name.restype = ctypes.c_char_p
fake.fake_recorded_value.restype = ctypes.c_size_t
fake.fake_recorded_option.restype = ctypes.c_int

def setv(data):
    fake.fake_set_value(data, ctypes.c_size_t(len(data)))

def got(n):
    buf = ctypes.create_string_buffer(n)
    size = fake.fake_recorded_value(buf, ctypes.c_size_t(n))
    return buf.raw[:size]

def raised(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001
        return [type(error).__name__, str(error)]
    return None

def described(value):
    """A result as [type name, comparable value]."""
    name = type(value).__name__
    if isinstance(value, (bool, bytes)) or value is None:
        return [name, value if not isinstance(value, bytes) else value.decode("latin-1")]
    if isinstance(value, list):
        return [name, [described(v) for v in value]]
    if isinstance(value, int):
        return [name, int(value)]
    if hasattr(value, "p2pToken"):
        return [name, [int(value.p2pToken), int(value.vaSpaceToken)]]
    if hasattr(value, "data"):
        return [name, list(bytes(value.data))]
    return [name, int(value)]
'''

OURS = COMMON + r'''
import ctkgen_cuda.driver as cuda
ok = cuda.CUresult.CUDA_SUCCESS
P = cuda.CUpointer_attribute
out = {}

setv(struct.pack("<Q", 0x1234))
out["context"] = described(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_CONTEXT, 0x5000)[1])
out["context_selector"] = fake.fake_recorded_selector()
setv(struct.pack("<I", 1))
out["managed"] = described(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_IS_MANAGED, 0)[1])
setv(struct.pack("<I", 2))
out["memory_type"] = described(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, 0)[1])
setv(struct.pack("<Q", 2**63 + 5))
out["buffer_id"] = described(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_BUFFER_ID, 0)[1])
out["device_pointer"] = described(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, 0)[1])
out["host_pointer"] = described(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_HOST_POINTER, 0)[1])
out["pool"] = described(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, 0)[1])
setv(struct.pack("<QI4x", 5, 6))
out["tokens"] = described(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_P2P_TOKENS, 0)[1])
before = fake.fake_recorded_selector()
out["unknown"] = raised(lambda: cuda.cuPointerGetAttribute(999, 0))
out["unknown_reached_driver"] = fake.fake_recorded_selector() != before
out["not_an_int"] = raised(lambda: cuda.cuPointerGetAttribute("context", 0))

setv(struct.pack("<Q", 0x40))
err, values = cuda.cuPointerGetAttributes(2, [P.CU_POINTER_ATTRIBUTE_CONTEXT, P.CU_POINTER_ATTRIBUTE_DEVICE_POINTER], 0)
out["many"] = described(values)
out["many_short"] = raised(lambda: cuda.cuPointerGetAttributes(3, [P.CU_POINTER_ATTRIBUTE_CONTEXT], 0))

setv(bytes(4))
cuda.cuPointerSetAttribute(True, P.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 0)
out["set_sync"] = [fake.fake_recorded_selector(), got(4).hex()]
out["set_sync_2"] = raised(lambda: cuda.cuPointerSetAttribute(2, P.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 0))
out["set_sync_str"] = raised(lambda: cuda.cuPointerSetAttribute("yes", P.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 0))

M = cuda.CUmemPool_attribute
pool = cuda.CUmemoryPool(0x77)
setv(struct.pack("<Q", 2**40))
out["threshold"] = described(cuda.cuMemPoolGetAttribute(pool, M.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)[1])
setv(struct.pack("<i", 1))
out["reuse"] = described(cuda.cuMemPoolGetAttribute(pool, M.CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC)[1])
setv(bytes(8))
cuda.cuMemPoolSetAttribute(pool, M.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, cuda.cuuint64_t(2**40 + 3))
out["set_threshold"] = got(8).hex()
cuda.cuMemPoolSetAttribute(pool, M.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 9)
out["set_threshold_int"] = got(8).hex()
out["set_threshold_negative"] = raised(lambda: cuda.cuMemPoolSetAttribute(pool, M.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, -1))
out["set_reuse_wide"] = raised(lambda: cuda.cuMemPoolSetAttribute(pool, M.CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, 2**31))

G = cuda.CUgraphMem_attribute
setv(struct.pack("<Q", 12345))
out["graph_mem"] = described(cuda.cuDeviceGetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)[1])

R = cuda.CUmem_range_attribute
setv(struct.pack("<i", 1))
out["read_mostly"] = described(cuda.cuMemRangeGetAttribute(4, R.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 0, 0)[1])
setv(struct.pack("<3i", 0, -2, -2))
out["accessed_by"] = described(cuda.cuMemRangeGetAttribute(12, R.CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, 0, 0)[1])
out["accessed_by_size"] = fake.fake_recorded_size()
setv(struct.pack("<2i", 3, 4))
err, values = cuda.cuMemRangeGetAttributes([4, 8], [R.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, R.CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY], 2, 0, 0)
out["ranges"] = described(values)

C = cuda.CUcoredumpSettings
setv(b"\x01")
out["coredump_bool"] = [described(cuda.cuCoredumpGetAttribute(C.CU_COREDUMP_ENABLE_ON_EXCEPTION)[1]), fake.fake_recorded_size()]
setv(b"core.%p\x00junk")
out["coredump_file"] = [described(cuda.cuCoredumpGetAttributeGlobal(C.CU_COREDUMP_FILE)[1]), fake.fake_recorded_size()]
setv(struct.pack("<i", 6))
out["coredump_flags"] = [described(cuda.cuCoredumpGetAttribute(C.CU_COREDUMP_GENERATION_FLAGS)[1]), fake.fake_recorded_size()]
out["coredump_max"] = raised(lambda: cuda.cuCoredumpGetAttribute(C.CU_COREDUMP_MAX))
cuda.cuCoredumpSetAttribute(C.CU_COREDUMP_FILE, b"/tmp/core")
out["set_coredump_file"] = [fake.fake_recorded_size(), got(9).decode()]
cuda.cuCoredumpSetAttributeGlobal(C.CU_COREDUMP_ENABLE_ON_EXCEPTION, True)
out["set_coredump_bool"] = [fake.fake_recorded_size(), got(1).hex()]
out["set_coredump_file_int"] = raised(lambda: cuda.cuCoredumpSetAttribute(C.CU_COREDUMP_FILE, 5))

H = cuda.CUmemAllocationHandleType
setv(struct.pack("<i", 42))
out["export_fd"] = described(cuda.cuMemExportToShareableHandle(cuda.CUmemGenericAllocationHandle(1), H.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)[1])
setv(bytes(range(64)))
out["export_fabric"] = described(cuda.cuMemPoolExportToShareableHandle(pool, H.CU_MEM_HANDLE_TYPE_FABRIC, 0)[1])
setv(struct.pack("<i", 7))
out["range_handle"] = described(cuda.cuMemGetHandleForAddressRange(0, 0, cuda.CUmemRangeHandleType.CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0)[1])
cuda.cuMemImportFromShareableHandle(42, H.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
out["import_fd"] = fake.fake_recorded_pointer()
cuda.cuMemImportFromShareableHandle(-1, H.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
out["import_fd_negative"] = fake.fake_recorded_pointer() == 2**64 - 1
fabric = cuda.CUmemFabricHandle()
cuda.cuMemPoolImportFromShareableHandle(fabric, H.CU_MEM_HANDLE_TYPE_FABRIC, 0)
out["import_fabric"] = fake.fake_recorded_pointer() == fabric.getPtr()
out["import_fd_record"] = raised(lambda: cuda.cuMemImportFromShareableHandle(fabric, H.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
cuda.cuMemImportFromShareableHandle(fabric.getPtr(), H.CU_MEM_HANDLE_TYPE_FABRIC)
out["import_fabric_address"] = fake.fake_recorded_pointer() == fabric.getPtr()

J = cuda.CUjit_option
log = bytearray(32)
err, module = cuda.cuModuleLoadDataEx(b"image", 7,
    [J.CU_JIT_MAX_REGISTERS, J.CU_JIT_WALL_TIME, J.CU_JIT_INFO_LOG_BUFFER, J.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
     J.CU_JIT_TARGET, J.CU_JIT_GLOBAL_SYMBOL_NAMES, J.CU_JIT_GLOBAL_SYMBOL_ADDRESSES],
    [32, 1.5, log, 32, cuda.CUjit_target.CU_TARGET_COMPUTE_90, [b"foo", "bar"], [0x1000, 0x2000]])
out["jit"] = [err is ok, int(module), fake.fake_recorded_option_count(),
              [fake.fake_recorded_option(i) for i in range(7)],
              fake.fake_recorded_slot(0), struct.pack("<Q", fake.fake_recorded_slot(1))[:4].hex(),
              fake.fake_recorded_slot(3), fake.fake_recorded_slot(4),
              fake.fake_recorded_first_name(5).decode(), fake.fake_recorded_first_address(6),
              bytes(log).split(b"\0")[0].decode()]
out["jit_bytes_log"] = raised(lambda: cuda.cuModuleLoadDataEx(b"image", 2, [J.CU_JIT_INFO_LOG_BUFFER, J.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES], [bytes(32), 32]))
out["jit_log_too_small"] = raised(lambda: cuda.cuModuleLoadDataEx(b"image", 2, [J.CU_JIT_ERROR_LOG_BUFFER, J.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES], [bytearray(8), 64]))
out["jit_num_options"] = raised(lambda: cuda.cuModuleLoadDataEx(b"image", 1, [J.CU_JIT_NUM_OPTIONS], [0]))
out["jit_short"] = raised(lambda: cuda.cuModuleLoadDataEx(b"image", 2, [J.CU_JIT_MAX_REGISTERS], [1]))
out["jit_short_values"] = raised(lambda: cuda.cuModuleLoadDataEx(b"image", 2, [J.CU_JIT_MAX_REGISTERS, J.CU_JIT_LOG_VERBOSE], [1]))
out["jit_wide"] = raised(lambda: cuda.cuModuleLoadDataEx(b"image", 1, [J.CU_JIT_MAX_REGISTERS], [2**32]))
out["jit_no_value"] = raised(lambda: cuda.cuModuleLoadDataEx(b"image", 1, [J.CU_JIT_TARGET_FROM_CUCONTEXT], [5]))
cuda.cuModuleLoadDataEx(b"image", 1, [J.CU_JIT_TARGET_FROM_CUCONTEXT], [None])
out["jit_none"] = fake.fake_recorded_slot(0)
err, state = cuda.cuLinkCreate(1, [J.CU_JIT_LOG_VERBOSE], [1])
out["link"] = [type(state).__name__, int(state), fake.fake_recorded_slot(0)]
print(json.dumps(out))
'''


def test_typed_values_on_the_fake_driver(package, fake_libcuda):
    ctk, path = package
    out = probe(path, OURS, {"CTKGEN_LIBCUDA": fake_libcuda})
    assert out["context"] == ["CUcontext", 0x1234] and out["context_selector"] == 1
    assert out["managed"] == ["bool", True]
    assert out["memory_type"] == ["int", 2]
    assert out["buffer_id"] == ["int", 2**63 + 5]
    assert out["device_pointer"] == ["CUdeviceptr", 2**63 + 5]
    assert out["host_pointer"] == ["int", 2**63 + 5]
    assert out["pool"] == ["CUmemoryPool", 2**63 + 5]
    assert out["tokens"] == ["CUDA_POINTER_ATTRIBUTE_P2P_TOKENS", [5, 6]]
    # An enumerator with no typed value is refused before any driver call, naming both.
    assert out["unknown"] == ["TypeError", "cuPointerGetAttribute: attribute: 999 is not supported"]
    assert out["unknown_reached_driver"] is False
    assert out["not_an_int"][0] == "TypeError"
    # Entry i of a list getter gets its first byte raised by i (the fake's convention).
    assert out["many"] == ["list", [["CUcontext", 0x40], ["CUdeviceptr", 0x41]]]
    assert out["many_short"][0] == "ValueError"
    assert out["set_sync"] == [6, "01000000"]
    assert out["set_sync_2"][0] == "OverflowError" and out["set_sync_str"][0] == "TypeError"
    assert out["threshold"] == ["cuuint64_t", 2**40] and out["reuse"] == ["int", 1]
    assert out["set_threshold"] == (2**40 + 3).to_bytes(8, "little").hex()
    assert out["set_threshold_int"] == (9).to_bytes(8, "little").hex()
    assert out["set_threshold_negative"][0] == "OverflowError" and out["set_reuse_wide"][0] == "OverflowError"
    assert out["graph_mem"] == ["cuuint64_t", 12345]
    assert out["read_mostly"] == ["int", 1]
    assert out["accessed_by"] == ["list", [["int", 0], ["int", -2], ["int", -2]]] and out["accessed_by_size"] == 12
    assert out["ranges"] == ["list", [["int", 3], ["list", [["int", 4], ["int", 4]]]]]
    assert out["coredump_bool"] == [["bool", True], 1]
    assert out["coredump_file"] == [["bytes", "core.%p"], 1024]
    assert out["coredump_flags"] == [["int", 6], 4]
    assert out["coredump_max"] == ["TypeError", "cuCoredumpGetAttribute: attrib: CU_COREDUMP_MAX is not supported"]
    assert out["set_coredump_file"] == [9, "/tmp/core"] and out["set_coredump_bool"] == [1, "01"]
    assert out["set_coredump_file_int"][0] == "TypeError"
    assert out["export_fd"] == ["int", 42] and out["range_handle"] == ["int", 7]
    assert out["export_fabric"] == ["CUmemFabricHandle", list(range(64))]
    assert out["import_fd"] == 42 and out["import_fd_negative"] and out["import_fabric"]
    assert out["import_fd_record"][0] == "TypeError" and out["import_fabric_address"]
    ok, module, count, options, max_registers, wall_time, log_size, target, name, address, log = out["jit"]
    assert ok and module == 0x55 and count == 7 and options == [0, 2, 3, 4, 9, 17, 18]
    assert max_registers == 32 and wall_time == "0000c03f" and log_size == 32 and target == 90
    assert name == "foo" and address == 0x1000 and log == "log 3"
    assert out["jit_bytes_log"][0] == "TypeError" and "writable" in out["jit_bytes_log"][1]
    assert out["jit_log_too_small"][0] == "ValueError"
    assert out["jit_num_options"] == ["TypeError", "cuModuleLoadDataEx: options: CU_JIT_NUM_OPTIONS is not supported"]
    assert out["jit_short"][0] == "ValueError" and out["jit_short_values"][0] == "ValueError"
    assert out["jit_wide"][0] == "OverflowError" and out["jit_no_value"][0] == "TypeError"
    assert out["jit_none"] == 0
    assert out["link"] == ["CUlinkState", 0x56, 1]


# Bytes each getter's value takes, by enumerator: the fake writes exactly this many, so neither
# module's storage is overrun.
WIDTHS = {
    "CUpointer_attribute": {
        "CONTEXT": 8, "MEMORY_TYPE": 4, "DEVICE_POINTER": 8, "HOST_POINTER": 8, "P2P_TOKENS": 16,
        "SYNC_MEMOPS": 4, "BUFFER_ID": 8, "IS_MANAGED": 4, "DEVICE_ORDINAL": 4, "IS_LEGACY_CUDA_IPC_CAPABLE": 4,
        "RANGE_START_ADDR": 8, "RANGE_SIZE": 8, "MAPPED": 4, "ALLOWED_HANDLE_TYPES": 4,
        "IS_GPU_DIRECT_RDMA_CAPABLE": 4, "ACCESS_FLAGS": 4, "MEMPOOL_HANDLE": 8, "MAPPING_SIZE": 8,
        "MAPPING_BASE_ADDR": 8, "MEMORY_BLOCK_ID": 8, "IS_HW_DECOMPRESS_CAPABLE": 4,
    },
    "CUmemPool_attribute": {"REUSE_FOLLOW_EVENT_DEPENDENCIES": 4, "REUSE_ALLOW_OPPORTUNISTIC": 4,
                            "REUSE_ALLOW_INTERNAL_DEPENDENCIES": 4, "RELEASE_THRESHOLD": 8, "RESERVED_MEM_CURRENT": 8,
                            "RESERVED_MEM_HIGH": 8, "USED_MEM_CURRENT": 8, "USED_MEM_HIGH": 8},
    "CUgraphMem_attribute": {"USED_MEM_CURRENT": 8, "USED_MEM_HIGH": 8, "RESERVED_MEM_CURRENT": 8, "RESERVED_MEM_HIGH": 8},
    "CUmem_range_attribute": {"READ_MOSTLY": 4, "PREFERRED_LOCATION": 4, "ACCESSED_BY": 12, "LAST_PREFETCH_LOCATION": 4,
                              "PREFERRED_LOCATION_TYPE": 4, "PREFERRED_LOCATION_ID": 4,
                              "LAST_PREFETCH_LOCATION_TYPE": 4, "LAST_PREFETCH_LOCATION_ID": 4},
    "CUcoredumpSettings": {"ENABLE_ON_EXCEPTION": 1, "TRIGGER_HOST": 1, "LIGHTWEIGHT": 1, "ENABLE_USER_TRIGGER": 1,
                           "FILE": 8, "PIPE": 8, "GENERATION_FLAGS": 4},
    "CUmemAllocationHandleType": {"NONE": 4, "POSIX_FILE_DESCRIPTOR": 4, "WIN32": 8, "WIN32_KMT": 4, "FABRIC": 64},
}

BOTH = COMMON + r'''
import ctkgen_cuda.driver as ours
import cuda.bindings.driver as official
WIDTHS = json.loads(os.environ["WIDTHS"])
PREFIX = {"CUpointer_attribute": "CU_POINTER_ATTRIBUTE_", "CUmemPool_attribute": "CU_MEMPOOL_ATTR_",
          "CUgraphMem_attribute": "CU_GRAPH_MEM_ATTR_", "CUmem_range_attribute": "CU_MEM_RANGE_ATTRIBUTE_",
          "CUcoredumpSettings": "CU_COREDUMP_", "CUmemAllocationHandleType": "CU_MEM_HANDLE_TYPE_"}
CALLS = {
    "CUpointer_attribute": lambda m, a, w: m.cuPointerGetAttribute(a, 0x1000),
    "CUmemPool_attribute": lambda m, a, w: m.cuMemPoolGetAttribute(m.CUmemoryPool(0x77), a),
    "CUgraphMem_attribute": lambda m, a, w: m.cuDeviceGetGraphMemAttribute(0, a),
    "CUmem_range_attribute": lambda m, a, w: m.cuMemRangeGetAttribute(w, a, 0x1000, 64),
    "CUcoredumpSettings": lambda m, a, w: m.cuCoredumpGetAttribute(a),
    "CUmemAllocationHandleType": lambda m, a, w: m.cuMemExportToShareableHandle(m.CUmemGenericAllocationHandle(1), a, 0),
}

def both(call):
    """[ours, official]: each the described result, or the error."""
    results = []
    for module in (ours, official):
        try:
            err, value = call(module)[:2]
            results.append(["ok" if int(err) == 0 else int(err), described(value)])
        except Exception as error:  # noqa: BLE001
            results.append([type(error).__name__, str(error)])
    return results

out = {"getters": {}}
for enum, widths in WIDTHS.items():
    for short, width in widths.items():
        name = PREFIX[enum] + short
        if not hasattr(getattr(official, enum), name):
            continue
        pattern = b"core\0\0\0\0" if short in ("FILE", "PIPE") else bytes(0x11 + i for i in range(width))
        setv(pattern)
        out["getters"][name] = both(lambda m: CALLS[enum](m, getattr(getattr(m, enum), name), width))

setv(bytes(4))
def recorded(call, n):
    rows = []
    for module in (ours, official):
        call(module)
        rows.append([fake.fake_recorded_size(), got(n).hex()])
    return rows
out["setters"] = {
    "pointer SYNC_MEMOPS": recorded(lambda m: m.cuPointerSetAttribute(1, m.CUpointer_attribute.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 0), 4),
    "pool REUSE": recorded(lambda m: m.cuMemPoolSetAttribute(m.CUmemoryPool(1), m.CUmemPool_attribute.CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, 1), 4),
}
setv(bytes(8))
out["setters"]["pool RELEASE_THRESHOLD"] = recorded(lambda m: m.cuMemPoolSetAttribute(m.CUmemoryPool(1), m.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, m.cuuint64_t(2**40 + 1)), 8)
out["setters"]["graph mem"] = recorded(lambda m: m.cuDeviceSetGraphMemAttribute(0, m.CUgraphMem_attribute.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, m.cuuint64_t(0)), 8)
out["setters"]["coredump FILE"] = recorded(lambda m: m.cuCoredumpSetAttribute(m.CUcoredumpSettings.CU_COREDUMP_FILE, b"/tmp/core"), 9)
out["setters"]["coredump ENABLE_ON_EXCEPTION"] = recorded(lambda m: m.cuCoredumpSetAttributeGlobal(m.CUcoredumpSettings.CU_COREDUMP_ENABLE_ON_EXCEPTION, True), 1)

imports = {}
for module in (ours, official):
    module.cuMemImportFromShareableHandle(42, module.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    fd = fake.fake_recorded_pointer()
    fabric = module.CUmemFabricHandle()
    module.cuMemImportFromShareableHandle(fabric.getPtr(), module.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_FABRIC)
    imports.setdefault("fd", []).append(fd)
    imports.setdefault("fabric is the record", []).append(fake.fake_recorded_pointer() == fabric.getPtr())
out["imports"] = imports

jit = []
for module, log in ((ours, bytearray(32)), (official, bytearray(32))):
    J = module.CUjit_option
    module.cuModuleLoadDataEx(b"image", 6,
        [J.CU_JIT_MAX_REGISTERS, J.CU_JIT_OPTIMIZATION_LEVEL, J.CU_JIT_TARGET, J.CU_JIT_INFO_LOG_BUFFER,
         J.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, J.CU_JIT_GLOBAL_SYMBOL_NAMES],
        [32, 3, module.CUjit_target.CU_TARGET_COMPUTE_90, log, 32, [b"foo"]])
    jit.append([[fake.fake_recorded_option(i) for i in range(6)], [fake.fake_recorded_slot(i) for i in (0, 1, 2, 4)],
                fake.fake_recorded_first_name(5).decode(), bytes(log).split(b"\0")[0].decode()])
out["jit"] = jit
# Stricter on purpose: a read-only bytes object as a log buffer, which the driver writes into.
J = official.CUjit_option
immutable = bytes(32)
official.cuModuleLoadDataEx(b"image", 2, [J.CU_JIT_INFO_LOG_BUFFER, J.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES], [immutable, 32])
out["bytes_log"] = [raised(lambda: ours.cuModuleLoadDataEx(b"image", 2, [ours.CUjit_option.CU_JIT_INFO_LOG_BUFFER,
                                                                       ours.CUjit_option.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES],
                                                             [bytes(32), 32])),
                    immutable.split(b"\0")[0].decode()]
out["plain_int_threshold"] = [raised(lambda: m.cuMemPoolSetAttribute(m.CUmemoryPool(1), m.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 5)) for m in (ours, official)]
out["bool_two"] = [raised(lambda: m.cuPointerSetAttribute(2, m.CUpointer_attribute.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 0)) for m in (ours, official)]
print(json.dumps(out))
'''


def test_same_values_as_cuda_bindings(ctk13, fake_libcuda):
    """Each getter and enumerator both modules support returns the same type and value; the
    setters, imports and JIT options hand the driver the same bytes. Where cuda.bindings does not
    support an enumerator, ours must still type it; where ours is stricter, both are asserted."""
    import json
    import os

    from conftest import build

    version = official_version(ctk13)
    if version is None:
        pytest.skip(f"no official cuda-bindings release pinned for {ctk13}")
    os.environ["WIDTHS"] = json.dumps(WIDTHS)
    out = run_both(build(ctk13), version, fake_libcuda, BOTH)
    official_unsupported = []
    for name, (mine, theirs) in out["getters"].items():
        if theirs[0] == "TypeError" and "Unsupported" in theirs[1]:
            official_unsupported.append(name)
            assert mine[0] == "ok", (name, mine)
            continue
        assert mine == theirs, name
    print(f"{ctk13}: {len(out['getters']) - len(official_unsupported)} getter enumerators compared equal; "
          f"typed here but unsupported by cuda.bindings {version}: {', '.join(official_unsupported)}")
    assert len(out["getters"]) - len(official_unsupported) >= 40
    for what, (mine, theirs) in out["setters"].items():
        assert mine == theirs, what
    assert out["imports"] == {"fd": [42, 42], "fabric is the record": [True, True]}
    mine, theirs = out["jit"]
    assert mine == theirs and mine[3] == "log 3" and mine[2] == "foo"
    # Deliberately stricter (tests/parity/exceptions.toml, [[behaviour]]).
    assert out["bytes_log"][0][0] == "TypeError" and out["bytes_log"][1] == "log 3"
    ours_int, official_int = out["plain_int_threshold"]
    assert ours_int is None and official_int[0] == "AttributeError", (ours_int, official_int)
    ours_two, official_two = out["bool_two"]
    assert ours_two[0] == "OverflowError" and official_two is None
