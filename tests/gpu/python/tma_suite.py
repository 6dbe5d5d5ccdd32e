"""Tensor-map tests of the generated Python bindings on a Hopper GPU.

Every driver call goes through the generated package (`ctkgen_cuda.driver`, or the module named
by --module), written to be call-compatible with `cuda.bindings.driver`. Each test runs in its
own process (run_suite.py starts them), so a test that must run before cuInit gets a fresh
process and a crash is reported against one test only.

    python3 tma_suite.py --list
    python3 tma_suite.py --test NAME --cubin tma_kernels.cubin --map-align 128
    python3 tma_suite.py --probe

The last line a test prints is `RESULT {json}`.
"""
import argparse
import ctypes
import importlib
import json
import sys
import traceback

import numpy as np

import fatbin_programs
import graph_programs

# Tile shapes compiled into tests/gpu/kernels/tma_kernels.cu.
F32_TILE = (32, 16)  # (width, height) in elements
BF16_TILE = (64, 32)
IM2COL_PIXELS = 36
IM2COL_CHANNELS = 8
THREADS = 128
# Written into outputs before each launch: a NaN payload no computation here produces.
POISON_F32_BITS = 0x7FBADBAD
POISON_BF16_BITS = 0x7FBD

driver = None  # the generated module, bound in main()
ARGS = None


class TestFailure(Exception):
    pass


def code_name(code):
    return getattr(code, "name", None) or str(int(code))


def ok(result, what):
    """Unpacks a `(CUresult, *outputs)` tuple, failing the test on anything but success."""
    if not isinstance(result, tuple) or not result:
        raise TestFailure(f"{what}: expected a (CUresult, ...) tuple, got {result!r}")
    code = result[0]
    if code != driver.CUresult.CUDA_SUCCESS:
        raise TestFailure(f"{what} returned {code_name(code)}")
    outputs = result[1:]
    if not outputs:
        return None
    return outputs[0] if len(outputs) == 1 else outputs


def expect(condition, message):
    if not condition:
        raise TestFailure(message)


def rng():
    # Fresh inputs every run: seeded from the OS, the seed reported with the result.
    seed = int.from_bytes(np.random.SeedSequence().entropy.to_bytes(16, "little")[:8], "little")
    return np.random.default_rng(seed), seed


# ---------------------------------------------------------------------------------------------
# Driver plumbing, all through the generated bindings


class Gpu:
    def __init__(self):
        ok(driver.cuInit(0), "cuInit")
        self.device = ok(driver.cuDeviceGet(0), "cuDeviceGet")
        major = ok(driver.cuDeviceGetAttribute(
            driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.device),
            "cuDeviceGetAttribute(major)")
        expect(major >= 9, f"compute capability {major}.x has no TMA")
        self.context = ok(driver.cuDevicePrimaryCtxRetain(self.device), "cuDevicePrimaryCtxRetain")
        ok(driver.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")
        with open(ARGS.cubin, "rb") as f:
            self.image = f.read()
        self.module = ok(driver.cuModuleLoadData(self.image), "cuModuleLoadData")
        self.allocations = []

    def function(self, name):
        return ok(driver.cuModuleGetFunction(self.module, name.encode()), f"cuModuleGetFunction({name})")

    def alloc(self, nbytes):
        pointer = ok(driver.cuMemAlloc(nbytes), f"cuMemAlloc({nbytes})")
        self.allocations.append(pointer)
        return pointer

    def upload(self, array):
        array = np.ascontiguousarray(array)
        pointer = self.alloc(array.nbytes)
        ok(driver.cuMemcpyHtoD(pointer, array, array.nbytes), "cuMemcpyHtoD")
        return pointer

    def write(self, pointer, array):
        array = np.ascontiguousarray(array)
        ok(driver.cuMemcpyHtoD(pointer, array, array.nbytes), "cuMemcpyHtoD")

    def download(self, pointer, shape, dtype):
        array = np.empty(shape, dtype=dtype)
        ok(driver.cuMemcpyDtoH(array, pointer, array.nbytes), "cuMemcpyDtoH")
        return array

    def launch(self, function, grid, shared_bytes, params):
        ok(driver.cuLaunchKernel(function, grid[0], grid[1], grid[2], THREADS, 1, 1, shared_bytes, None,
                                 params, None), "cuLaunchKernel")
        ok(driver.cuCtxSynchronize(), "cuCtxSynchronize after the launch")

    def close(self):
        for pointer in self.allocations:
            driver.cuMemFree(pointer)
        driver.cuModuleUnload(self.module)


def enum(name, member):
    return getattr(getattr(driver, name), member)


def encode_tiled(dtype, address, dims, strides, box, element_strides=None, interleave="NONE",
                 swizzle="NONE", fill="NONE", rank=None):
    """cuTensorMapEncodeTiled with plain int lists, as cuda.bindings callers write them."""
    return driver.cuTensorMapEncodeTiled(
        enum("CUtensorMapDataType", f"CU_TENSOR_MAP_DATA_TYPE_{dtype}"),
        len(dims) if rank is None else rank,
        address,
        list(dims),
        list(strides),
        list(box),
        list(element_strides or [1] * len(dims)),
        enum("CUtensorMapInterleave", f"CU_TENSOR_MAP_INTERLEAVE_{interleave}"),
        enum("CUtensorMapSwizzle", f"CU_TENSOR_MAP_SWIZZLE_{swizzle}"),
        enum("CUtensorMapL2promotion", "CU_TENSOR_MAP_L2_PROMOTION_NONE"),
        enum("CUtensorMapFloatOOBfill", f"CU_TENSOR_MAP_FLOAT_OOB_FILL_{fill}"),
    )


def map_alignment():
    # What the generator derived from the IR for this header (64 for 12.x, 128 for 13.x).
    return int(driver.CUtensorMap._ctkgen_align)


def check_map_storage(tensor_map):
    align = map_alignment()
    expect(tensor_map.getPtr() % align == 0,
           f"CUtensorMap storage at {tensor_map.getPtr():#x} is not {align}-byte aligned")


def tiles(shape, tile):
    width, height = tile
    return ((shape[1] + width - 1) // width, (shape[0] + height - 1) // height)


def compare(label, got, want):
    """Every element, bit for bit (NaN payloads included): returns a mismatch description or None."""
    got_bits = got.view(np.uint32 if got.dtype.itemsize == 4 else np.uint16)
    want_bits = want.view(got_bits.dtype)
    bad = np.argwhere(got_bits != want_bits)
    if len(bad) == 0:
        return None
    first = tuple(int(i) for i in bad[0])
    return (f"{label}: {len(bad)} of {got.size} elements differ, first at {first}: "
            f"got {got_bits[first]:#x}, want {want_bits[first]:#x}")


# ---------------------------------------------------------------------------------------------
# f32 round trip, shared by the round-trip, replace-address and negative-control tests


def f32_reference(source):
    return source * np.float32(2) + np.float32(1)


def f32_loaded_reference(source, grid, fill_bits):
    """What TMA must deliver per tile: the source where in bounds, the fill value elsewhere."""
    width, height = F32_TILE
    padded = np.full((grid[1] * height, grid[0] * width), fill_bits, dtype=np.uint32).view(np.float32)
    padded[:source.shape[0], :source.shape[1]] = source
    return padded.reshape(grid[1], height, grid[0], width).transpose(0, 2, 1, 3).copy()


class F32RoundTrip:
    """Buffers and maps for affine_f32 on one HxW tensor whose edge tiles run past its bounds."""

    def __init__(self, gpu, shape=(70, 100), fill="NONE", box=F32_TILE):
        self.gpu = gpu
        self.shape = shape
        self.fill = fill
        self.generator, self.seed = rng()
        self.function = gpu.function("affine_f32")
        self.grid = tiles(shape, F32_TILE)
        self.source = self.random_input()
        self.input = gpu.upload(self.source)
        self.output = gpu.alloc(self.source.nbytes)
        self.loaded = gpu.alloc(self.grid[0] * self.grid[1] * F32_TILE[0] * F32_TILE[1] * 4)
        self.in_map = ok(self.encode(self.input, box), "cuTensorMapEncodeTiled(input)")
        self.out_map = ok(self.encode(self.output, F32_TILE), "cuTensorMapEncodeTiled(output)")
        check_map_storage(self.in_map)
        check_map_storage(self.out_map)

    def random_input(self):
        return self.generator.uniform(-1000, 1000, self.shape).astype(np.float32)

    def encode(self, pointer, box):
        return encode_tiled("FLOAT32", int(pointer), [self.shape[1], self.shape[0]], [self.shape[1] * 4],
                            list(box), fill=self.fill)

    def poison(self, pointer, count):
        self.gpu.write(pointer, np.full(count, POISON_F32_BITS, dtype=np.uint32))

    def run(self, source, output):
        """Launches once and returns the mismatches against the host reference (empty: correct)."""
        loaded_count = self.grid[0] * self.grid[1] * F32_TILE[0] * F32_TILE[1]
        self.poison(output, source.size)
        self.poison(self.loaded, loaded_count)
        self.gpu.launch(self.function, (self.grid[0], self.grid[1], 1), 0,
                        [self.in_map.getPtr(), self.out_map.getPtr(), self.loaded.getPtr()])
        got = self.gpu.download(output, source.shape, np.float32)
        loaded = self.gpu.download(self.loaded, (self.grid[1], self.grid[0], F32_TILE[1], F32_TILE[0]),
                                   np.float32)
        fill_bits = 0 if self.fill == "NONE" else None
        problems = [compare("output", got, f32_reference(source))]
        if fill_bits is None:
            # NaN fill: every out-of-bounds element must be NaN, every in-bounds one the source.
            reference = f32_loaded_reference(source, self.grid, 0)
            inside = f32_loaded_reference(np.ones_like(source), self.grid, 0) == 1
            if not np.all(np.isnan(loaded[~inside])):
                problems.append(f"loaded tiles: {int(np.sum(~np.isnan(loaded[~inside])))} out-of-bounds "
                                f"elements are not NaN")
            problems.append(compare("loaded tiles (in bounds)", loaded[inside], reference[inside]))
        else:
            problems.append(compare("loaded tiles", loaded, f32_loaded_reference(source, self.grid, fill_bits)))
        return [p for p in problems if p]


# ---------------------------------------------------------------------------------------------
# Tests


def test_roundtrip_f32_zero_fill():
    """2-D f32, edge tiles past the bounds, zero fill; out = in*2+1 via TMA load and store."""
    gpu = Gpu()
    case = F32RoundTrip(gpu, fill="NONE")
    problems = case.run(case.source, case.output)
    expect(not problems, "; ".join(problems))
    return f"{case.shape[0]}x{case.shape[1]} f32, grid {case.grid}, seed {case.seed}"


def test_roundtrip_f32_nan_fill():
    """As above with NaN out-of-bounds fill: the tiles TMA delivers hold NaN past the edges."""
    gpu = Gpu()
    case = F32RoundTrip(gpu, shape=(45, 76), fill="NAN_REQUEST_ZERO_FMA")  # rows of 304 bytes: a multiple of 16
    problems = case.run(case.source, case.output)
    expect(not problems, "; ".join(problems))
    return f"{case.shape[0]}x{case.shape[1]} f32, grid {case.grid}, seed {case.seed}"


def test_replace_address():
    """cuTensorMapReplaceAddress retargets both maps to new buffers; the old output stays as it was."""
    gpu = Gpu()
    case = F32RoundTrip(gpu)
    problems = case.run(case.source, case.output)
    expect(not problems, "first launch: " + "; ".join(problems))
    first_output = gpu.download(case.output, case.shape, np.float32)

    second_source = case.random_input()
    second_input = gpu.upload(second_source)
    second_output = gpu.alloc(second_source.nbytes)
    ok(driver.cuTensorMapReplaceAddress(case.in_map, int(second_input)), "cuTensorMapReplaceAddress(input)")
    ok(driver.cuTensorMapReplaceAddress(case.out_map, int(second_output)), "cuTensorMapReplaceAddress(output)")
    problems = case.run(second_source, second_output)
    expect(not problems, "after replace: " + "; ".join(problems))
    untouched = compare("first output after the relaunch", gpu.download(case.output, case.shape, np.float32),
                        first_output)
    expect(untouched is None, untouched)
    return f"seed {case.seed}"


def bf16_from_f32(values):
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_affine(bits):
    widened = (bits.astype(np.uint32) << 16).view(np.float32)
    return bf16_from_f32(widened * np.float32(2) + np.float32(1))


def swizzle_128b(tile_bytes):
    """The 128-byte swizzle: 16-byte chunk j of row r lands at chunk j ^ (r % 8)."""
    rows = tile_bytes.reshape(tile_bytes.shape[0], 8, 16)
    out = np.empty_like(rows)
    for r in range(rows.shape[0]):
        for j in range(8):
            out[r, j ^ (r % 8)] = rows[r, j]
    return out.reshape(tile_bytes.shape)


def test_bf16_swizzle_128b():
    """bf16 with 128-byte swizzle (tile 1024-aligned in shared memory): output and the swizzled layout."""
    gpu = Gpu()
    generator, seed = rng()
    height, width = 100, 200
    source = bf16_from_f32(generator.uniform(-50, 50, (height, width)))
    grid = tiles((height, width), BF16_TILE)
    input_pointer = gpu.upload(source)
    output = gpu.alloc(source.nbytes)
    tile_elements = BF16_TILE[0] * BF16_TILE[1]
    raw = gpu.alloc(grid[0] * grid[1] * tile_elements * 2)
    maps = [ok(encode_tiled("BFLOAT16", int(p), [width, height], [width * 2], list(BF16_TILE), swizzle="128B"),
               "cuTensorMapEncodeTiled(bf16, 128B swizzle)") for p in (input_pointer, output)]
    for m in maps:
        check_map_storage(m)
    gpu.write(output, np.full(source.size, POISON_BF16_BITS, dtype=np.uint16))
    gpu.write(raw, np.full(grid[0] * grid[1] * tile_elements, POISON_BF16_BITS, dtype=np.uint16))
    gpu.launch(gpu.function("affine_bf16_swizzle128"), (grid[0], grid[1], 1), tile_elements * 2 + 1024,
               [maps[0].getPtr(), maps[1].getPtr(), raw.getPtr()])
    problems = [compare("output", gpu.download(output, source.shape, np.uint16), bf16_affine(source))]

    padded = np.zeros((grid[1] * BF16_TILE[1], grid[0] * BF16_TILE[0]), dtype=np.uint16)
    padded[:height, :width] = source
    logical = padded.reshape(grid[1], BF16_TILE[1], grid[0], BF16_TILE[0]).transpose(0, 2, 1, 3)
    got_raw = gpu.download(raw, (grid[1], grid[0], BF16_TILE[1], BF16_TILE[0]), np.uint16)
    for ty in range(grid[1]):
        for tx in range(grid[0]):
            want = swizzle_128b(np.ascontiguousarray(logical[ty, tx]).view(np.uint8)).view(np.uint16)
            problem = compare(f"swizzled tile ({tx},{ty})", got_raw[ty, tx], want)
            if problem:
                problems.append(problem)
                break
    problems = [p for p in problems if p]
    expect(not problems, "; ".join(problems))
    return f"{height}x{width} bf16, grid {grid}, seed {seed}"


def test_im2col_nhwc():
    """cuTensorMapEncodeIm2col on a 2x6x6x16 NHWC f32 tensor: 3x3 taps with padding 1, zero fill."""
    gpu = Gpu()
    generator, seed = rng()
    n, h, w, c = 2, 6, 6, 16
    filter_h = filter_w = 3
    source = generator.uniform(-10, 10, (n, h, w, c)).astype(np.float32)
    pointer = gpu.upload(source)
    tensor_map = ok(driver.cuTensorMapEncodeIm2col(
        enum("CUtensorMapDataType", "CU_TENSOR_MAP_DATA_TYPE_FLOAT32"), 4, int(pointer),
        [c, w, h, n], [c * 4, w * c * 4, h * w * c * 4],
        [-1, -1],  # bounding box of the filter's corner: one pixel of padding before ...
        [-1, -1],  # ... and it ends one pixel before the far edge (padding 1 - (3 - 1))
        IM2COL_CHANNELS, IM2COL_PIXELS, [1, 1, 1, 1],
        enum("CUtensorMapInterleave", "CU_TENSOR_MAP_INTERLEAVE_NONE"),
        enum("CUtensorMapSwizzle", "CU_TENSOR_MAP_SWIZZLE_NONE"),
        enum("CUtensorMapL2promotion", "CU_TENSOR_MAP_L2_PROMOTION_NONE"),
        enum("CUtensorMapFloatOOBfill", "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE")), "cuTensorMapEncodeIm2col")
    check_map_storage(tensor_map)
    taps = filter_h * filter_w
    halves = c // IM2COL_CHANNELS
    shape = (n, taps, halves, IM2COL_PIXELS, IM2COL_CHANNELS)
    columns = gpu.alloc(int(np.prod(shape)) * 4)
    gpu.write(columns, np.full(int(np.prod(shape)), POISON_F32_BITS, dtype=np.uint32))
    filter_width = np.array([filter_w], dtype=np.int32)
    gpu.launch(gpu.function("im2col_f32"), (n, taps, halves), 0,
               [tensor_map.getPtr(), columns.getPtr(), filter_width.ctypes.data])

    padded = np.zeros((n, h + 2, w + 2, c), dtype=np.float32)
    padded[:, 1:h + 1, 1:w + 1, :] = source
    want = np.empty(shape, dtype=np.float32)
    for tap in range(taps):
        r, s = divmod(tap, filter_w)
        window = padded[:, r:r + h, s:s + w, :].reshape(n, h * w, halves, IM2COL_CHANNELS)
        want[:, tap] = window.transpose(0, 2, 1, 3)
    problem = compare("im2col columns", gpu.download(columns, shape, np.float32), want)
    expect(problem is None, problem)
    return f"N={n} H={h} W={w} C={c}, 3x3 taps, seed {seed}"


def test_packed_parameter_buffer():
    """CU_LAUNCH_PARAM_BUFFER_POINTER: the map placed where cuFuncGetParamInfo says, launch checked."""
    gpu = Gpu()
    function = gpu.function("packed_params")
    align = map_alignment()
    expect(align == ARGS.map_align,
           f"the package says alignof(CUtensorMap) = {align}, this header set needs {ARGS.map_align}")
    layout = [tuple(int(v) for v in ok(driver.cuFuncGetParamInfo(function, i), f"cuFuncGetParamInfo({i})"))
              for i in range(3)]
    map_offset = layout[1][0]
    # ptxas aligns the map's address in the parameter bank, which starts 16 bytes past a 64-byte
    # boundary on sm_90, so the buffer offset is not alignof itself: take what the driver reports.
    expect(layout[0] == (0, 4) and layout[1][1] == 128 and layout[2] == (map_offset + 128, 8)
           and map_offset >= 4 and map_offset % 16 == 0,
           f"parameter (offset, size) {layout} is not (int, CUtensorMap, pointer) with a 16-aligned map")
    generator, seed = rng()
    height, width = 12, 40  # the 16x32 tile at the origin runs past both edges: zero fill
    source = generator.uniform(-100, 100, (height, width)).astype(np.float32)
    pointer = gpu.upload(source)
    tensor_map = ok(encode_tiled("FLOAT32", int(pointer), [width, height], [width * 4], list(F32_TILE)),
                    "cuTensorMapEncodeTiled")
    out = gpu.alloc(F32_TILE[0] * F32_TILE[1] * 4)
    gpu.write(out, np.full(F32_TILE[0] * F32_TILE[1], POISON_F32_BITS, dtype=np.uint32))
    tag = int(generator.integers(1, 1000))

    size = map_offset + 128 + 8
    buffer = np.zeros(size + align, dtype=np.uint8)
    start = (-buffer.ctypes.data) % align  # the buffer itself at the map's alignment
    packed = buffer[start:start + size]
    packed[0:4] = np.array([tag], dtype=np.int32).view(np.uint8)
    packed[map_offset:map_offset + 128] = np.frombuffer(ctypes.string_at(tensor_map.getPtr(), 128), dtype=np.uint8)
    packed[map_offset + 128:map_offset + 136] = np.array([int(out)], dtype=np.uint64).view(np.uint8)
    size_value = np.array([size], dtype=np.uint64)
    extra = np.array([int(driver.CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT), packed.ctypes.data,
                      int(driver.CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT), size_value.ctypes.data,
                      int(driver.CU_LAUNCH_PARAM_END_AS_INT)], dtype=np.uint64)
    ok(driver.cuLaunchKernel(function, 1, 1, 1, THREADS, 1, 1, 0, None, None, extra.ctypes.data),
       "cuLaunchKernel(extra=packed buffer)")
    ok(driver.cuCtxSynchronize(), "cuCtxSynchronize")
    tile = np.zeros((F32_TILE[1], F32_TILE[0]), dtype=np.float32)
    tile[:height, :min(width, F32_TILE[0])] = source[:, :F32_TILE[0]]
    problem = compare("packed launch output", gpu.download(out, tile.shape, np.float32), tile + np.float32(tag))
    expect(problem is None, problem)
    return ("pass", f"alignof {align}, cuFuncGetParamInfo layout {layout}, packed launch correct, seed {seed}",
            {"packed_map_offset": f"map parameter at offset {map_offset} (alignof(CUtensorMap) = {align})"})


def test_not_initialized_before_cuinit():
    """In a fresh process, a call before cuInit returns CUDA_ERROR_NOT_INITIALIZED."""
    code = driver.cuDeviceGet(0)[0]
    expect(code == driver.CUresult.CUDA_ERROR_NOT_INITIALIZED,
           f"cuDeviceGet before cuInit returned {code_name(code)}")
    return f"cuDeviceGet -> {code_name(code)}"


def test_im2col_wide_recorded_on_sm90():
    """cuTensorMapEncodeIm2colWide is for compute capability 10.0+: on Hopper it must fail."""
    if not hasattr(driver, "cuTensorMapEncodeIm2colWide"):
        return "skip", "not in this CTK's cuda.h (added in 12.8)"
    gpu = Gpu()
    n, h, w, c = 1, 8, 64, 64
    pointer = gpu.alloc(n * h * w * c * 2)
    result = driver.cuTensorMapEncodeIm2colWide(
        enum("CUtensorMapDataType", "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"), 4, int(pointer),
        [c, w, h, n], [c * 2, w * c * 2, h * w * c * 2], -1, -1, 64, 64, [1, 1, 1, 1],
        enum("CUtensorMapInterleave", "CU_TENSOR_MAP_INTERLEAVE_NONE"),
        enum("CUtensorMapIm2ColWideMode", "CU_TENSOR_MAP_IM2COL_WIDE_MODE_W"),
        enum("CUtensorMapSwizzle", "CU_TENSOR_MAP_SWIZZLE_128B"),
        enum("CUtensorMapL2promotion", "CU_TENSOR_MAP_L2_PROMOTION_NONE"),
        enum("CUtensorMapFloatOOBfill", "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE"))
    code = result[0]
    # The driver's answer to a valid call is recorded, not judged (tensor-maps.md expected a
    # failure; driver 580 encodes it). What is checked: an out-of-range mode, passed in the mode
    # slot, is refused without a crash.
    bad_mode = driver.cuTensorMapEncodeIm2colWide(
        enum("CUtensorMapDataType", "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"), 4, int(pointer),
        [c, w, h, n], [c * 2, w * c * 2, h * w * c * 2], -1, -1, 64, 64, [1, 1, 1, 1],
        enum("CUtensorMapInterleave", "CU_TENSOR_MAP_INTERLEAVE_NONE"), 99,
        enum("CUtensorMapSwizzle", "CU_TENSOR_MAP_SWIZZLE_128B"),
        enum("CUtensorMapL2promotion", "CU_TENSOR_MAP_L2_PROMOTION_NONE"),
        enum("CUtensorMapFloatOOBfill", "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE"))[0]
    expect(bad_mode == driver.CUresult.CUDA_ERROR_INVALID_VALUE,
           f"valid call returned {code_name(code)}; mode 99 returned {code_name(bad_mode)}, expected INVALID_VALUE")
    recorded = f"{code_name(code)} ({int(code)})"
    return "pass", f"valid call on 9.0 returned {recorded}; mode 99 returned {code_name(bad_mode)}", \
        {"im2col_wide_code": recorded}


def test_negative_control_swapped_box():
    """A wrong descriptor (input box 16x32 instead of 32x16, same bytes) must make the round trip fail."""
    gpu = Gpu()
    case = F32RoundTrip(gpu, box=(F32_TILE[1], F32_TILE[0]))
    problems = case.run(case.source, case.output)
    expect(problems, "the round-trip check passed with a wrong box size: it cannot catch a broken descriptor")
    return f"detected: {problems[0]}"


def test_global_address_takes_cudeviceptr():
    """As with cuda.bindings, a CUdeviceptr object as globalAddress means the device address it holds."""
    gpu = Gpu()
    pointer = gpu.alloc(70 * 100 * 4)
    by_int = ok(encode_tiled("FLOAT32", int(pointer), [100, 70], [400], list(F32_TILE)), "encode with int")
    result = encode_tiled("FLOAT32", pointer, [100, 70], [400], list(F32_TILE))
    expect(result[0] == driver.CUresult.CUDA_SUCCESS,
           f"encode with the CUdeviceptr object returned {code_name(result[0])}")
    expect(result[1].opaque == by_int.opaque,
           "the descriptor encoded from the CUdeviceptr object differs from the one encoded from int(pointer): "
           "the binding passed another address than the device pointer's value")
    return "descriptors identical"


# --- Parameter rules: each violated alone must give CUDA_ERROR_INVALID_VALUE, never a crash ----

def f32_baseline(address):
    return dict(dtype="FLOAT32", address=address, dims=[100, 70], strides=[400], box=[32, 16],
                element_strides=[1, 1])


def interleave16_baseline(address):
    # NC/8HWC8 with f16 channels: 8 channels x 2 bytes = 16 bytes per pixel.
    return dict(dtype="FLOAT16", address=address, dims=[8, 40, 30], strides=[16, 640], box=[8, 16, 8],
                element_strides=[1, 1, 1], interleave="16B")


def interleave32_baseline(address):
    # NC/16HWC16 with f16 channels, 32 bytes per pixel; 32-byte interleave requires 32-byte swizzle.
    return dict(dtype="FLOAT16", address=address, dims=[16, 40, 30], strides=[32, 1280], box=[16, 16, 8],
                element_strides=[1, 1, 1], interleave="32B", swizzle="32B")


def violate(baseline, **changes):
    params = dict(baseline)
    params.update(changes)
    return params


RULES = {
    "rank_zero": (f32_baseline, lambda b: violate(b, rank=0)),
    "rank_six": (f32_baseline, lambda b: violate(b, dims=[100, 70, 1, 1, 1, 1], strides=[400, 28000, 28000, 28000, 28000],
                                                 box=[32, 16, 1, 1, 1, 1], element_strides=[1] * 6)),
    "interleave_rank_two": (interleave16_baseline,
                            lambda b: violate(b, dims=[8, 40], strides=[16], box=[8, 16], element_strides=[1, 1])),
    "address_not_16_aligned": (f32_baseline, lambda b: violate(b, address=b["address"] + 8)),
    "address_not_32_aligned_interleave32": (interleave32_baseline, lambda b: violate(b, address=b["address"] + 16)),
    "global_dim_zero": (f32_baseline, lambda b: violate(b, dims=[100, 0])),
    "global_dim_over_2_32": (f32_baseline, lambda b: violate(b, dims=[100, 2**32 + 1])),
    "stride_not_multiple_of_16": (f32_baseline, lambda b: violate(b, strides=[408])),
    "stride_2_40": (f32_baseline, lambda b: violate(b, strides=[2**40])),
    "box_dim_zero": (f32_baseline, lambda b: violate(b, box=[32, 0])),
    "box_dim_257": (f32_baseline, lambda b: violate(b, box=[32, 257])),
    "box_inner_bytes_not_16": (f32_baseline, lambda b: violate(b, box=[3, 16])),
    "element_stride_zero": (f32_baseline, lambda b: violate(b, element_strides=[1, 0])),
    "element_stride_nine": (f32_baseline, lambda b: violate(b, element_strides=[1, 9])),
    "inner_box_over_swizzle_span": (f32_baseline, lambda b: violate(b, swizzle="32B")),
    "nan_fill_integer_type": (lambda a: violate(f32_baseline(a), dtype="INT32"),
                              lambda b: violate(b, fill="NAN_REQUEST_ZERO_FMA")),
}


def make_rule_test(name, baseline_of, violation_of):
    def rule_test():
        gpu = Gpu()
        pointer = gpu.alloc(1 << 20)  # 256-byte aligned and large enough for every baseline
        baseline = baseline_of(int(pointer))
        result = encode_tiled(**baseline)
        expect(result[0] == driver.CUresult.CUDA_SUCCESS,
               f"baseline (no rule broken) returned {code_name(result[0])}")
        code = encode_tiled(**violation_of(baseline))[0]
        expect(code == driver.CUresult.CUDA_ERROR_INVALID_VALUE,
               f"returned {code_name(code)}, expected CUDA_ERROR_INVALID_VALUE")
        return f"baseline SUCCESS, violation {code_name(code)}"

    rule_test.__doc__ = f"Parameter rule violated alone: {name.replace('_', ' ')}."
    return rule_test


def test_interleave32_without_swizzle32_recorded():
    """32-byte interleave with swizzle NONE: the header's contract asks for 32-byte swizzle, but
    driver 580 encodes it, so the driver's answer is recorded, not judged. Checked: the binding
    passes the call through without a crash, and the valid combination succeeds."""
    gpu = Gpu()
    pointer = gpu.alloc(1 << 20)
    baseline = interleave32_baseline(int(pointer))
    valid = encode_tiled(**baseline)[0]
    expect(valid == driver.CUresult.CUDA_SUCCESS, f"valid 32B/32B call returned {code_name(valid)}")
    codes = {swizzle: encode_tiled(**violate(baseline, swizzle=swizzle))[0] for swizzle in ("NONE", "64B")}
    recorded = ", ".join(f"swizzle {k}: {code_name(v)} ({int(v)})" for k, v in codes.items())
    return "pass", f"interleave 32B with {recorded}", {"interleave32_swizzle_codes": recorded}


def test_rule_replace_address_misaligned():
    """cuTensorMapReplaceAddress with a misaligned address: INVALID_VALUE (a 16-aligned one: SUCCESS)."""
    gpu = Gpu()
    pointer = int(gpu.alloc(1 << 20))
    tensor_map = ok(encode_tiled(**f32_baseline(pointer)), "cuTensorMapEncodeTiled")
    ok(driver.cuTensorMapReplaceAddress(tensor_map, pointer + 16), "cuTensorMapReplaceAddress(+16)")
    code = driver.cuTensorMapReplaceAddress(tensor_map, pointer + 8)[0]
    expect(code == driver.CUresult.CUDA_ERROR_INVALID_VALUE,
           f"returned {code_name(code)}, expected CUDA_ERROR_INVALID_VALUE")
    return f"+16 SUCCESS, +8 {code_name(code)}"


# ---------------------------------------------------------------------------------------------
# kernelParams in every form cuda.bindings documents, checked by the values the kernel received.
# Each test runs the form through the generated module and, when cuda.bindings is importable,
# through it too in the same process; the official module's outcome is recorded, not judged.


class ParamPair(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_float)]


def f32_bits(value):
    return int(np.array([value], dtype=np.float32).view(np.uint32)[0])


def primary_context(module):
    """Initialises `module`'s driver and makes device 0's primary context current; returns it."""
    ok(module.cuInit(0), "cuInit")
    device = ok(module.cuDeviceGet(0), "cuDeviceGet")
    context = ok(module.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
    ok(module.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    return context


def official_driver():
    """cuda.bindings' driver module when it is installed beside ours, else None."""
    try:
        return importlib.import_module("cuda.bindings.driver")
    except ImportError:
        return None


def received_through(module, make_params, use_graph=False):
    """Launches record_params through `module` with the params `make_params(module, out)`
    builds; returns the five words the kernel wrote."""
    primary_context(module)
    with open(ARGS.cubin, "rb") as f:
        image = f.read()
    library = ok(module.cuModuleLoadData(image), "cuModuleLoadData")
    function = ok(module.cuModuleGetFunction(library, b"record_params"), "cuModuleGetFunction(record_params)")
    out = ok(module.cuMemAlloc(5 * 8), "cuMemAlloc")
    poison = np.full(5, 0xBADBADBADBAD, dtype=np.uint64)
    ok(module.cuMemcpyHtoD(out, poison, poison.nbytes), "cuMemcpyHtoD")
    keep = make_params(module, out)
    if use_graph:
        node = module.CUDA_KERNEL_NODE_PARAMS()
        node.func = function
        node.gridDimX = node.gridDimY = node.gridDimZ = 1
        node.blockDimX, node.blockDimY, node.blockDimZ = 32, 1, 1
        node.sharedMemBytes = 0
        node.kernelParams = keep
        graph = ok(module.cuGraphCreate(0), "cuGraphCreate")
        ok(module.cuGraphAddKernelNode(graph, None, 0, node), "cuGraphAddKernelNode")
        executable = ok(module.cuGraphInstantiate(graph, 0), "cuGraphInstantiate")
        ok(module.cuGraphLaunch(executable, 0), "cuGraphLaunch")
    else:
        ok(module.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, 0, keep, 0), "cuLaunchKernel")
    ok(module.cuCtxSynchronize(), "cuCtxSynchronize")
    words = np.zeros(5, dtype=np.uint64)
    ok(module.cuMemcpyDtoH(words, out, words.nbytes), "cuMemcpyDtoH")
    module.cuMemFree(out)
    module.cuModuleUnload(library)
    return [int(w) for w in words]


def kernel_params_test(make_params, use_graph=False):
    """A test of one form: the kernel must receive a=-7, b=2.5, c=2**63+5, d=(11, 0.75) and the
    output pointer, through the generated module; cuda.bindings' outcome is recorded beside."""
    expected = [2**32 - 7, f32_bits(2.5), 2**63 + 5, 11, f32_bits(0.75)]

    def test():
        got = received_through(driver, make_params, use_graph)
        expect(got == expected, f"the kernel received {[hex(w) for w in got]}, expected {[hex(w) for w in expected]}")
        facts = {}
        official = official_driver()
        if official is None:
            facts["cuda.bindings"] = "not installed"
        else:
            try:
                theirs = received_through(official, make_params, use_graph)
                facts["cuda.bindings"] = "same values" if theirs == expected else f"received {[hex(w) for w in theirs]}"
            except Exception as failure:  # recorded: the official module's behaviour is not ours to judge
                where = traceback.extract_tb(failure.__traceback__)[-1]
                facts["cuda.bindings"] = f"{type(failure).__name__}: {failure} (at `{where.line}`)"
        return "pass", f"kernel received every value; cuda.bindings: {facts['cuda.bindings']}", facts

    return test


TYPES = (ctypes.c_int, ctypes.c_float, ctypes.c_uint64, ParamPair, ctypes.c_void_p)


def plain_values(module, out):
    return (-7, 2.5, 2**63 + 5, ParamPair(11, 0.75), int(out))


def storage(module, out):
    """One ctypes value per parameter, kept alive with the test."""
    values = [ctypes.c_int(-7), ctypes.c_float(2.5), ctypes.c_uint64(2**63 + 5), ParamPair(11, 0.75),
              ctypes.c_uint64(int(out))]
    storage.kept = values
    return values


def form_ctypes_types(module, out):
    return (plain_values(module, out), TYPES)


def form_ctypes_instances(module, out):
    values = storage(module, out)
    return (tuple(values[:4]) + (ctypes.c_void_p(int(out)),), TYPES)


def form_binding_class(module, out):
    return (plain_values(module, out)[:4] + (out,), TYPES[:4] + (module.CUdeviceptr,))


def form_address(module, out):
    values = storage(module, out)
    form_address.array = (ctypes.c_void_p * 5)(*[ctypes.addressof(v) for v in values])
    return ctypes.addressof(form_address.array)


def form_buffer(module, out):
    values = storage(module, out)
    return np.array([ctypes.addressof(v) for v in values], dtype=np.uint64)


def test_kernel_params_none():
    """kernelParams None launches a kernel without parameters."""
    gpu = Gpu()
    gpu.launch(gpu.function("mark_without_params"), (1, 1, 1), 0, None)
    marker, size = ok(driver.cuModuleGetGlobal(gpu.module, b"param_marker"), "cuModuleGetGlobal")
    got = int(gpu.download(marker, (1,), np.uint64)[0])
    expect(got == 0x5EED5EED, f"marker {got:#x}")
    return f"kernel ran with no parameters ({int(size)}-byte marker read back)"


def words_received(module, objects):
    """Launches record_words through `module` with (objects..., c_float(123.456), out) typed
    (c_void_p x 3, c_double, c_void_p); returns the four words the kernel wrote."""
    primary_context(module)
    with open(ARGS.cubin, "rb") as f:
        library = ok(module.cuModuleLoadData(f.read()), "cuModuleLoadData")
    function = ok(module.cuModuleGetFunction(library, b"record_words"), "cuModuleGetFunction(record_words)")
    out = ok(module.cuMemAlloc(4 * 8), "cuMemAlloc")
    values = (*objects, ctypes.c_float(123.456), int(out))
    types = (ctypes.c_void_p,) * len(objects) + (ctypes.c_double, ctypes.c_void_p)
    ok(module.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, 0, (values, types), 0), "cuLaunchKernel")
    ok(module.cuCtxSynchronize(), "cuCtxSynchronize")
    words = np.zeros(4, dtype=np.uint64)
    ok(module.cuMemcpyDtoH(words, out, words.nbytes), "cuMemcpyDtoH")
    module.cuMemFree(out)
    module.cuModuleUnload(library)
    return [int(w) for w in words]


def objects_of(module):
    """A handle, a record and (when the official package is installed) the official runtime's
    `dim3`: each declared c_void_p passes the address of its storage, getPtr()."""
    objects = [module.CUdeviceptr(0x1234), module.CUDA_MEMCPY2D()]
    try:
        from cuda.bindings import runtime
        objects.append(runtime.dim3())
    except ImportError:
        objects.append(module.CUuuid())
    return objects


def test_kernel_params_value_conversions():
    """kernelParams: objects declared c_void_p arrive as their getPtr(), c_float declared c_double as its double"""
    double_bits = int(np.array([ctypes.c_float(123.456).value], dtype=np.float64).view(np.uint64)[0])
    objects = objects_of(driver)
    got = words_received(driver, objects)
    wanted = [o.getPtr() for o in objects] + [double_bits]
    expect(got == wanted, f"the kernel received {[hex(w) for w in got]}, expected {[hex(w) for w in wanted]}")
    facts = {}
    official = official_driver()
    if official is None:
        facts["cuda.bindings"] = "not installed"
    else:
        theirs = objects_of(official)
        received = words_received(official, theirs)
        same = received == [o.getPtr() for o in theirs] + [double_bits]
        facts["cuda.bindings"] = "same conversions" if same else f"received {[hex(w) for w in received]}"
        expect(same, f"cuda.bindings: {facts['cuda.bindings']}")
    return "pass", f"every value arrived converted (123.456f as the double {ctypes.c_float(123.456).value!r}); " \
                   f"cuda.bindings: {facts['cuda.bindings']}", facts


def typed_none_received(drv, rt):
    """cuda-python's test_kernelParams_types_cuda through `drv` and `rt` (a driver and a runtime
    module of one package): a runtime enum member, a `cudaSurfaceObject_t` and a `dim3` typed
    None, objects over mapped host memory (`_ptr=`) typed c_void_p. Returns what the kernel wrote:
    the enum's value, the surface and the dim3 read back through those objects."""
    primary_context(drv)
    with open(ARGS.cubin, "rb") as f:
        library = ok(drv.cuModuleLoadData(f.read()), "cuModuleLoadData")
    function = ok(drv.cuModuleGetFunction(library, b"record_typed_none"), "cuModuleGetFunction(record_typed_none)")
    perr = ok(rt.cudaMalloc(ctypes.sizeof(ctypes.c_int)), "cudaMalloc")
    surface_host = ok(rt.cudaHostAlloc(rt.sizeof(rt.cudaSurfaceObject_t), rt.cudaHostAllocMapped), "cudaHostAlloc")
    dim_host = ok(rt.cudaHostAlloc(rt.sizeof(rt.dim3), rt.cudaHostAllocMapped), "cudaHostAlloc")
    values = (rt.cudaError_t.cudaErrorUnknown, perr, rt.cudaSurfaceObject_t(248),
              rt.cudaSurfaceObject_t(_ptr=surface_host), rt.dim3(), rt.dim3(_ptr=dim_host))
    values[4].x, values[4].y, values[4].z = 1, 2, 3
    types = (None, ctypes.c_void_p, None, ctypes.c_void_p, None, ctypes.c_void_p)
    ok(drv.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, (values, types), 0), "cuLaunchKernel")
    ok(drv.cuCtxSynchronize(), "cuCtxSynchronize")
    err = ctypes.c_int()
    ok(rt.cudaMemcpy(ctypes.addressof(err), perr, ctypes.sizeof(err), rt.cudaMemcpyKind.cudaMemcpyDeviceToHost),
       "cudaMemcpy")
    got = [err.value, int(values[3]), values[5].x, values[5].y, values[5].z]
    for pointer in (surface_host, dim_host):
        rt.cudaFreeHost(pointer)
    rt.cudaFree(perr)
    drv.cuModuleUnload(library)
    return got


def test_kernel_params_typed_none():
    """kernelParams typed None (an enum member, a typedef of a primitive, a record) and objects over foreign memory"""
    facts = {}
    runtime, _ = family(facts)
    wanted = [int(runtime.cudaError_t.cudaErrorUnknown), 248, 1, 2, 3]
    got = typed_none_received(driver, runtime)
    expect(got == wanted, f"the kernel wrote {got}, expected {wanted}")
    official = official_driver()
    if official is None:
        facts["cuda.bindings"] = "not installed"
    else:
        theirs = typed_none_received(official, importlib.import_module("cuda.bindings.runtime"))
        facts["cuda.bindings"] = "same values" if theirs == wanted else f"wrote {theirs}"
        expect(theirs == wanted, f"cuda.bindings: {facts['cuda.bindings']}")
    return "pass", f"the kernel wrote {got} back; cuda.bindings: {facts['cuda.bindings']}", facts


def body_graphs_filled(module):
    """Adds an IF conditional node through `module`; returns the body graphs read from the caller's
    params before and after cuGraphAddNode, and how many nodes the first body graph has."""
    context = primary_context(module)
    graph = ok(module.cuGraphCreate(0), "cuGraphCreate")
    handle = ok(module.cuGraphConditionalHandleCreate(graph, context, 0, 0), "cuGraphConditionalHandleCreate")
    params = module.CUgraphNodeParams()
    params.type = module.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    params.conditional.handle = handle
    params.conditional.type = module.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF
    params.conditional.size = 1
    params.conditional.ctx = context
    before = [int(g) for g in params.conditional.phGraph_out]
    # 12.x: (graph, dependencies, count, params); 13.x adds the edge data after the dependencies.
    if module.cuGraphAddNode.__code__.co_argcount == 4:
        ok(module.cuGraphAddNode(graph, None, 0, params), "cuGraphAddNode")
    else:
        ok(module.cuGraphAddNode(graph, None, None, 0, params), "cuGraphAddNode")
    bodies = params.conditional.phGraph_out
    after = [int(g) for g in bodies]
    nodes = ok(module.cuGraphGetNodes(bodies[0], 0), "cuGraphGetNodes(body)")[1] if after and after[0] else None
    module.cuGraphDestroy(graph)
    return before, after, nodes


def test_conditional_node_body_graphs():
    """a driver-filled member: null handles before cuGraphAddNode, the driver's body graph after"""
    before, after, nodes = body_graphs_filled(driver)
    expect(before == [0], f"before cuGraphAddNode the body graphs read {before}, expected one null handle")
    expect(len(after) == 1 and after[0] != 0, f"after cuGraphAddNode the body graphs read {after}")
    expect(nodes == 0, f"the body graph the driver made has {nodes} nodes, expected an empty graph")
    facts = {}
    official = official_driver()
    if official is None:
        facts["cuda.bindings"] = "not installed"
    else:
        theirs = body_graphs_filled(official)
        facts["cuda.bindings"] = f"before {theirs[0]}, after {'a handle' if theirs[1] and theirs[1][0] else theirs[1]}"
        expect(theirs[0] == [0] and len(theirs[1]) == 1 and theirs[1][0] != 0, f"cuda.bindings: {facts['cuda.bindings']}")
    return "pass", f"[null] before, the driver's empty body graph after; cuda.bindings: {facts['cuda.bindings']}", facts


TESTS_KERNEL_PARAMS = {
    "kernel_params_none": test_kernel_params_none,
    "kernel_params_ctypes_types": kernel_params_test(form_ctypes_types),
    "kernel_params_ctypes_instances": kernel_params_test(form_ctypes_instances),
    "kernel_params_binding_class": kernel_params_test(form_binding_class),
    "kernel_params_int_address": kernel_params_test(form_address),
    "kernel_params_buffer": kernel_params_test(form_buffer),
    "kernel_params_record_member": kernel_params_test(form_ctypes_types, use_graph=True),
    "kernel_params_value_conversions": test_kernel_params_value_conversions,
    "kernel_params_typed_none": test_kernel_params_typed_none,
    "conditional_node_body_graphs": test_conditional_node_body_graphs,
}
for _name, _test in TESTS_KERNEL_PARAMS.items():
    if _test.__doc__ is None:
        _test.__doc__ = f"kernelParams as {_name[len('kernel_params_'):].replace('_', ' ')}: the kernel receives every value"


SAXPY = b"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def loaded_library(stem):
    """The file of the shared library named `stem*` this process has loaded, from /proc/self/maps."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "/" in path and path.rsplit("/", 1)[1].startswith(stem):
                return path
    return None


def other_nvrtc_libraries():
    """NVRTC libraries of other majors on this host (site-packages wheels, the system toolkit)."""
    import glob
    import site
    folders = [*site.getsitepackages(), site.getusersitepackages()]
    found = [p for f in folders for p in glob.glob(f"{f}/nvidia/*/lib/libnvrtc.so.[0-9]*")]
    found += glob.glob("/usr/local/cuda/lib64/libnvrtc.so.[0-9]*")
    return sorted(p for p in found if p.count(".so.") == 1 and p.rsplit(".so.", 1)[1].isdigit())


def compile_cubin(nvrtc, arch):
    """SAXPY compiled by `nvrtc` for `arch`; returns the CUBIN bytes and the compile log."""
    err, prog = nvrtc.nvrtcCreateProgram(SAXPY, b"saxpy.cu", 0, [], [])
    expect(int(err) == 0, f"nvrtcCreateProgram: {err}")
    options = [f"--gpu-architecture=sm_{arch}".encode()]
    status = nvrtc.nvrtcCompileProgram(prog, len(options), options)[0]
    err, size = nvrtc.nvrtcGetProgramLogSize(prog)
    log = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, log)
    expect(int(status) == 0, f"nvrtcCompileProgram: {status}: {log.decode(errors='replace')}")
    err, size = nvrtc.nvrtcGetCUBINSize(prog)
    cubin = b" " * size
    expect(int(nvrtc.nvrtcGetCUBIN(prog, cubin)[0]) == 0, "nvrtcGetCUBIN")
    nvrtc.nvrtcDestroyProgram(prog)
    expect(int(prog) == 0, "nvrtcDestroyProgram left the handle set")
    return cubin, log


def saxpy_with(module, cubin, n=1000, a=2.5):
    """Loads `cubin` with `module` (a driver module) and runs SAXPY on n elements; returns y."""
    primary_context(module)
    image = ok(module.cuModuleLoadData(cubin), "cuModuleLoadData")
    function = ok(module.cuModuleGetFunction(image, b"saxpy"), "cuModuleGetFunction")
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 1.0, dtype=np.float32)
    px = ok(module.cuMemAlloc(x.nbytes), "cuMemAlloc")
    py = ok(module.cuMemAlloc(y.nbytes), "cuMemAlloc")
    ok(module.cuMemcpyHtoD(px, x, x.nbytes), "cuMemcpyHtoD")
    ok(module.cuMemcpyHtoD(py, y, y.nbytes), "cuMemcpyHtoD")
    # Device addresses as ints: a binding object typed c_void_p passes its own storage (getPtr()).
    params = ((a, int(px), int(py), n), (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))
    ok(module.cuLaunchKernel(function, (n + 127) // 128, 1, 1, 128, 1, 1, 0, None, params, 0), "cuLaunchKernel")
    ok(module.cuCtxSynchronize(), "cuCtxSynchronize")
    out = np.empty(n, dtype=np.float32)
    ok(module.cuMemcpyDtoH(out, py, out.nbytes), "cuMemcpyDtoH")
    module.cuMemFree(px)
    module.cuMemFree(py)
    module.cuModuleUnload(image)
    return out, a * x + y


def test_nvrtc_compile_and_launch():
    """a kernel compiled by the generated nvrtc module runs through the generated driver module"""
    nvrtc = importlib.import_module(ARGS.module.rsplit(".", 1)[0] + ".nvrtc")
    facts = {}
    try:
        facts["nvrtc_version"] = list(nvrtc.nvrtcVersion()[1:])
    except nvrtc.NVRTCNotFoundError as missing:
        # This package's NVRTC major is not installed here: use another major's, by name, and say so.
        others = other_nvrtc_libraries()
        expect(others, f"no NVRTC on this host: {missing}")
        import os
        os.environ["CTKGEN_LIBNVRTC"] = others[-1]
        facts["note"] = f"no NVRTC of this package's major here ({missing}); ran with {others[-1]}"
        facts["nvrtc_version"] = list(nvrtc.nvrtcVersion()[1:])
    facts["library"] = loaded_library("libnvrtc.so")
    primary_context(driver)
    device = ok(driver.cuDeviceGet(0), "cuDeviceGet")
    cc = [ok(driver.cuDeviceGetAttribute(enum("CUdevice_attribute", f"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_{p}"),
                                         device), p) for p in ("MAJOR", "MINOR")]
    arch = f"{cc[0]}{cc[1]}"
    cubin, _ = compile_cubin(nvrtc, arch)
    got, want = saxpy_with(driver, cubin)
    expect(np.array_equal(got, want), f"SAXPY through the generated modules: {got[:4]} ..., expected {want[:4]} ...")
    facts["cubin_bytes"] = len(cubin)
    try:
        from cuda.bindings import nvrtc as official_nvrtc
    except ImportError:
        official_nvrtc = None
    if official_nvrtc is None:
        facts["cuda.bindings"] = "not installed"
    else:
        theirs, _ = compile_cubin(official_nvrtc, arch)
        facts["cuda.bindings"] = "same CUBIN bytes" if theirs == cubin else f"CUBIN of {len(theirs)} bytes differs"
        official = official_driver()
        their_y, _ = saxpy_with(official, cubin)
        facts["cuda.bindings launch"] = "same output" if np.array_equal(their_y, got) else "different output"
        expect(np.array_equal(their_y, got), "cuda.bindings ran the same CUBIN to another result")
    return "pass", (f"sm_{arch} CUBIN from NVRTC {facts['nvrtc_version'][0]}.{facts['nvrtc_version'][1]} "
                    f"({facts['library']}), SAXPY of 1000 floats exact; cuda.bindings: {facts['cuda.bindings']}"), facts


# ---------------------------------------------------------------------------------------------
# The family: runtime, driver and NVRTC modules of one package passing objects to each other


def sibling(name):
    """Another module of the package the driver module under test belongs to."""
    return importlib.import_module(ARGS.module.rsplit(".", 1)[0] + "." + name)


def loaded(module, probe, env_var, stem, facts):
    """`module` with its library loaded: on a host without this package's major of it, another
    major's file (from $CTKGEN_GPU_LIBS, the bundle's, or the host's) is named in `env_var`, and
    the fact is recorded."""
    import glob
    import os
    try:
        probe()
    except RuntimeError as missing:
        if "not found" not in type(missing).__name__.lower() and "NotFound" not in type(missing).__name__:
            raise
        folders = [os.environ.get("CTKGEN_GPU_LIBS", ""), "/usr/local/cuda/lib64"]
        candidates = [p for f in folders if f for p in sorted(glob.glob(os.path.join(f, f"{stem}.so.[0-9]*")))
                      if p.rsplit(".so.", 1)[1].isdigit()]
        # The package's own major first (the bundle's 12.x runtime), folders in their order.
        major = getattr(module, "CTK_VERSION", "").split(".")[0]
        candidates.sort(key=lambda p: p.rsplit(".so.", 1)[1] != major)
        expect(candidates, f"{missing}")
        os.environ[env_var] = candidates[0]
        facts[f"{stem} note"] = f"not found as the package names it; ran with {candidates[0]}"
        probe()
    facts[stem] = loaded_library(stem + ".so")
    return module


def family(facts):
    """(runtime, nvrtc) of this package, each with its library loaded; the runtime's device set."""
    runtime = sibling("runtime")
    loaded(runtime, lambda: runtime.cudaRuntimeGetVersion(), "CTKGEN_LIBCUDART", "libcudart", facts)
    nvrtc = sibling("nvrtc")
    loaded(nvrtc, lambda: nvrtc.nvrtcVersion(), "CTKGEN_LIBNVRTC", "libnvrtc", facts)
    ok(runtime.cudaSetDevice(0), "cudaSetDevice")
    ok(runtime.cudaFree(0), "cudaFree(0): the runtime's context is the primary one, current")
    primary_context(driver)
    return runtime, nvrtc


def saxpy_cubin(nvrtc):
    device = ok(driver.cuDeviceGet(0), "cuDeviceGet")
    cc = [ok(driver.cuDeviceGetAttribute(enum("CUdevice_attribute", f"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_{p}"),
                                         device), p) for p in ("MAJOR", "MINOR")]
    cubin, _ = compile_cubin(nvrtc, f"{cc[0]}{cc[1]}")
    return cubin


SAXPY_N, SAXPY_A = 1000, 2.5


def saxpy_inputs():
    x = np.arange(SAXPY_N, dtype=np.float32)
    y = np.full(SAXPY_N, 1.0, dtype=np.float32)
    return x, y, SAXPY_A * x + y


def saxpy_setup(facts):
    """The family, an NVRTC-compiled SAXPY loaded by the driver, its inputs and the runtime's
    device buffers for them: (runtime, cubin, function, (x, y, expected y), (x buffer, y buffer))."""
    runtime, nvrtc = family(facts)
    cubin = saxpy_cubin(nvrtc)
    image = ok(driver.cuModuleLoadData(cubin), "cuModuleLoadData")
    saxpy = ok(driver.cuModuleGetFunction(image, b"saxpy"), "cuModuleGetFunction")
    x, y, want = saxpy_inputs()
    px, py = ok(runtime.cudaMalloc(x.nbytes), "cudaMalloc"), ok(runtime.cudaMalloc(y.nbytes), "cudaMalloc")
    return runtime, cubin, saxpy, (x, y, want), (px, py)


def test_family_streams_cross():
    """a runtime stream carries driver launches and copies, a driver stream runtime copies"""
    facts = {}
    runtime, cubin, saxpy, (x, y, want), (px, py) = saxpy_setup(facts)
    rt_stream = ok(runtime.cudaStreamCreate(), "cudaStreamCreate")
    expect(isinstance(rt_stream, driver.CUstream), f"{type(rt_stream).__name__} is not a driver.CUstream")
    ok(driver.cuMemcpyHtoDAsync(px, x, x.nbytes, rt_stream), "cuMemcpyHtoDAsync(runtime stream)")
    ok(driver.cuMemcpyHtoDAsync(py, y, y.nbytes, rt_stream), "cuMemcpyHtoDAsync(runtime stream)")
    params = ((SAXPY_A, px, py, SAXPY_N), (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))
    ok(driver.cuLaunchKernel(saxpy, (SAXPY_N + 127) // 128, 1, 1, 128, 1, 1, 0, rt_stream, params, 0),
       "cuLaunchKernel(runtime stream)")
    ok(driver.cuStreamSynchronize(rt_stream), "cuStreamSynchronize(runtime stream)")
    # The reverse: a driver stream in runtime calls.
    drv_stream = ok(driver.cuStreamCreate(0), "cuStreamCreate")
    got = np.empty_like(y)
    kind = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost
    ok(runtime.cudaMemcpyAsync(got, py, got.nbytes, kind, drv_stream), "cudaMemcpyAsync(driver stream)")
    ok(runtime.cudaStreamSynchronize(drv_stream), "cudaStreamSynchronize(driver stream)")
    expect(np.array_equal(got, want), f"SAXPY on the runtime's stream: {got[:4]}, expected {want[:4]}")
    status = ok(runtime.cudaStreamQuery(drv_stream), "cudaStreamQuery(driver stream)")
    ok(runtime.cudaStreamDestroy(rt_stream), "cudaStreamDestroy")
    ok(driver.cuStreamDestroy(drv_stream), "cuStreamDestroy")
    runtime.cudaFree(px), runtime.cudaFree(py)
    return "pass", "SAXPY launched by the driver on a runtime stream, read back by the runtime on a driver stream", facts


def test_family_runtime_memory_in_driver_copies():
    """memory from cudaMalloc and cudaMallocManaged goes through driver copies"""
    facts = {}
    runtime, _ = family(facts)
    generator, seed = rng()
    data = generator.integers(0, 2**32, 4096, dtype=np.uint32)
    device = ok(runtime.cudaMalloc(data.nbytes), "cudaMalloc")
    managed = ok(runtime.cudaMallocManaged(data.nbytes, runtime.cudaMemAttachGlobal), "cudaMallocManaged")
    ok(driver.cuMemcpyHtoD(device, data, data.nbytes), "cuMemcpyHtoD(cudaMalloc memory)")
    ok(driver.cuMemcpyDtoD(managed, device, data.nbytes), "cuMemcpyDtoD(managed <- device)")
    ok(driver.cuCtxSynchronize(), "cuCtxSynchronize")
    host_view = np.ctypeslib.as_array((ctypes.c_uint32 * data.size).from_address(int(managed)))
    expect(np.array_equal(host_view, data), "managed memory read on the host differs")
    back = np.empty_like(data)
    ok(driver.cuMemcpyDtoH(back, managed, back.nbytes), "cuMemcpyDtoH(managed)")
    expect(np.array_equal(back, data), "driver copy of managed memory differs")
    kind = ok(driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_MANAGED, managed),
              "cuPointerGetAttribute(IS_MANAGED)")
    expect(bool(kind), "the driver does not see cudaMallocManaged memory as managed")
    runtime.cudaFree(device), runtime.cudaFree(managed)
    return "pass", f"{data.nbytes} random bytes (seed {seed}) through both allocations", facts


def launch_forms(px, py):
    """kernelParams forms for saxpy(a, x, y, n), each with what keeps its storage alive."""
    a, xp, yp, n = ctypes.c_float(SAXPY_A), ctypes.c_void_p(int(px)), ctypes.c_void_p(int(py)), ctypes.c_int(SAXPY_N)
    pointers = (ctypes.c_void_p * 4)(*[ctypes.addressof(v) for v in (a, xp, yp, n)])
    return {
        "values and ctypes types": ((SAXPY_A, int(px), int(py), SAXPY_N),
                                    (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)),
        "ctypes instances": ((a, xp, yp, n), (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)),
        "address of a void* array": ctypes.addressof(pointers),
        "buffer of addresses": np.array([ctypes.addressof(v) for v in (a, xp, yp, n)], dtype=np.uint64),
    }, (a, xp, yp, n, pointers)


def test_family_nvrtc_kernel_every_launch_form():
    """an NVRTC kernel launched by the driver in each kernelParams form and by the runtime"""
    facts = {}
    runtime, cubin, saxpy, (x, y, want), (px, py) = saxpy_setup(facts)
    forms, keep = launch_forms(px, py)
    grid = (SAXPY_N + 127) // 128
    passed = []

    def check(label, launch):
        ok(runtime.cudaMemcpy(px, x, x.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice), "cudaMemcpy(x)")
        ok(runtime.cudaMemcpy(py, y, y.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice), "cudaMemcpy(y)")
        ok(launch(), label)
        ok(runtime.cudaDeviceSynchronize(), f"cudaDeviceSynchronize after {label}")
        got = np.empty_like(y)
        ok(runtime.cudaMemcpy(got, py, got.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost), "cudaMemcpy(y)")
        expect(np.array_equal(got, want), f"{label}: {got[:4]}, expected {want[:4]}")
        passed.append(label)

    for label, params in forms.items():
        check(f"cuLaunchKernel, {label}",
              lambda params=params: driver.cuLaunchKernel(saxpy, grid, 1, 1, 128, 1, 1, 0, None, params, 0))
    # The runtime's own launch, of a kernel it loaded, and of the driver's function object.
    library = ok(runtime.cudaLibraryLoadData(cubin, None, None, 0, None, None, 0), "cudaLibraryLoadData")
    kernel = ok(runtime.cudaLibraryGetKernel(library, b"saxpy"), "cudaLibraryGetKernel")
    dim = runtime.dim3()
    dim.x, dim.y, dim.z = grid, 1, 1
    block = runtime.dim3()
    block.x, block.y, block.z = 128, 1, 1
    check("cudaLaunchKernel(cudaKernel_t)",
          lambda: runtime.cudaLaunchKernel(kernel, dim, block, forms["values and ctypes types"], 0, None))
    # A driver CUfunction as the runtime's `func`: the 13.x runtime takes it; the 12.x runtime
    # answers cudaErrorInvalidResourceHandle, which is recorded, not judged (the library's rule).
    runtime_major = ok(runtime.cudaRuntimeGetVersion(), "cudaRuntimeGetVersion") // 1000
    try:
        check("cudaLaunchKernel(driver CUfunction)",
              lambda: runtime.cudaLaunchKernel(saxpy, dim, block, forms["values and ctypes types"], 0, None))
    except TestFailure as refused:
        if runtime_major >= 13:
            raise
        facts["driver CUfunction in cudaLaunchKernel"] = f"runtime {runtime_major}.x: {refused}"
    del keep
    facts["forms"] = passed
    return "pass", f"{len(passed)} launches exact: " + "; ".join(passed), facts


def test_family_graph_driver_then_runtime():
    """a graph built by the driver (a kernel node), extended by the runtime (a copy node), run"""
    facts = {}
    runtime, cubin, saxpy, (x, y, want), (px, py) = saxpy_setup(facts)
    kind = runtime.cudaMemcpyKind
    ok(runtime.cudaMemcpy(px, x, x.nbytes, kind.cudaMemcpyHostToDevice), "cudaMemcpy(x)")
    ok(runtime.cudaMemcpy(py, y, y.nbytes, kind.cudaMemcpyHostToDevice), "cudaMemcpy(y)")
    graph = ok(driver.cuGraphCreate(0), "cuGraphCreate")
    node = driver.CUDA_KERNEL_NODE_PARAMS()
    node.func = saxpy
    node.gridDimX, node.gridDimY, node.gridDimZ = (SAXPY_N + 127) // 128, 1, 1
    node.blockDimX, node.blockDimY, node.blockDimZ = 128, 1, 1
    node.sharedMemBytes = 0
    node.kernelParams = ((SAXPY_A, int(px), int(py), SAXPY_N),
                         (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))
    kernel_node = ok(driver.cuGraphAddKernelNode(graph, None, 0, node), "cuGraphAddKernelNode")
    # The driver's graph and node objects in runtime calls.
    got = np.zeros_like(y)
    copy_node = ok(runtime.cudaGraphAddMemcpyNode1D(graph, [kernel_node], 1, got, py, got.nbytes,
                                                    kind.cudaMemcpyDeviceToHost), "cudaGraphAddMemcpyNode1D")
    count = ok(runtime.cudaGraphGetNodes(graph, 0), "cudaGraphGetNodes")
    facts["nodes"] = int(count[1]) if isinstance(count, tuple) else count
    executable = ok(runtime.cudaGraphInstantiate(graph, 0), "cudaGraphInstantiate")
    ok(runtime.cudaGraphLaunch(executable, None), "cudaGraphLaunch")
    ok(runtime.cudaDeviceSynchronize(), "cudaDeviceSynchronize")
    expect(np.array_equal(got, want), f"graph output {got[:4]}, expected {want[:4]}")
    expect(isinstance(copy_node, driver.CUgraphNode), "the runtime's node is not a driver.CUgraphNode")
    ok(driver.cuGraphExecDestroy(executable), "cuGraphExecDestroy(runtime executable)")
    ok(driver.cuGraphDestroy(graph), "cuGraphDestroy")
    return "pass", "driver kernel node, runtime copy node after it, instantiated and launched by the runtime", facts


def counted_arrays(drv, rt):
    """cuda.core's graph builder and cuda-python's conditional and EGL-frame tests through `drv` and
    `rt` (a driver and a runtime module of one package): a conditional node added with its
    dependency's edge data as a list (cuGraphAddNode, 12.x: cuGraphAddNode_v2), the graph's edges
    read back with their data; the runtime's conditional node whose `phGraph_out` is a list of
    `size` graphs after cudaGraphAddNode; an element read from and assigned to a fixed array of
    records member (copies)."""
    context = primary_context(drv)
    out = {}
    graph = ok(drv.cuGraphCreate(0), "cuGraphCreate")
    first = ok(drv.cuGraphAddEmptyNode(graph, None, 0), "cuGraphAddEmptyNode")
    handle = ok(drv.cuGraphConditionalHandleCreate(graph, context, 0, 0), "cuGraphConditionalHandleCreate")
    params = drv.CUgraphNodeParams()
    params.type = drv.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    params.conditional.handle = handle
    params.conditional.type = drv.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF
    params.conditional.size = 1
    params.conditional.ctx = context
    edge = drv.CUgraphEdgeData()
    add = getattr(drv, "cuGraphAddNode_v2", None) if drv.cuGraphAddNode.__code__.co_argcount == 4 else drv.cuGraphAddNode
    expect(add is not None, "no cuGraphAddNode taking edge data")
    ok(add(graph, [first], [edge], 1, params), "cuGraphAddNode with a list of edge data")
    get_edges = getattr(drv, "cuGraphGetEdges_v2", None) or drv.cuGraphGetEdges
    edges = ok(get_edges(graph), "cuGraphGetEdges (count)")
    out["edges"] = int(edges[-1])
    body = len(params.conditional.phGraph_out)
    out["driver bodies"] = body
    drv.cuGraphDestroy(graph)

    rgraph = ok(rt.cudaGraphCreate(0), "cudaGraphCreate")
    rhandle = ok(rt.cudaGraphConditionalHandleCreate(rgraph, 0, 0), "cudaGraphConditionalHandleCreate")
    rparams = rt.cudaGraphNodeParams()
    rparams.type = rt.cudaGraphNodeType.cudaGraphNodeTypeConditional
    rparams.conditional.handle = rhandle
    rparams.conditional.type = rt.cudaGraphConditionalNodeType.cudaGraphCondTypeIf
    rparams.conditional.size = 1
    radd = getattr(rt, "cudaGraphAddNode_v2", None) if rt.cudaGraphAddNode.__code__.co_argcount == 4 else rt.cudaGraphAddNode
    ok(radd(rgraph, None, None, 0, rparams), "cudaGraphAddNode")
    bodies = rparams.conditional.phGraph_out
    out["runtime bodies"] = [len(bodies), all(int(b) != 0 for b in bodies)]
    nodes = ok(rt.cudaGraphGetNodes(bodies[0], 0), "cudaGraphGetNodes(body)")
    out["runtime body nodes"] = int(nodes[-1])
    rt.cudaGraphDestroy(rgraph)

    frame = rt.cudaEglFrame()
    element = frame.frame.pPitch[0]
    element.pitch = 123
    out["element read is a copy"] = frame.frame.pPitch[0].pitch == 0
    frame.frame.pPitch = [element, element, element]
    element.pitch = 1234
    out["assigned elements are copies"] = [p.pitch for p in frame.frame.pPitch]
    return out


def test_counted_arrays_as_clients_use_them():
    """edge data as a list, the runtime conditional node's body graphs, copies of array-member records"""
    facts = {}
    runtime, _ = family(facts)
    wanted = {"edges": 1, "driver bodies": 1, "runtime bodies": [1, True], "runtime body nodes": 0,
              "element read is a copy": True, "assigned elements are copies": [123, 123, 123]}
    got = counted_arrays(driver, runtime)
    expect(got == wanted, f"got {got}, expected {wanted}")
    official = official_driver()
    if official is None:
        facts["cuda.bindings"] = "not installed"
    else:
        theirs = counted_arrays(official, importlib.import_module("cuda.bindings.runtime"))
        facts["cuda.bindings"] = "same results" if theirs == wanted else f"gave {theirs}"
        expect(theirs == wanted, f"cuda.bindings: {facts['cuda.bindings']}")
    return "pass", f"{got}; cuda.bindings: {facts['cuda.bindings']}", facts


class RuntimeCopies(Gpu):
    """The TMA plumbing with every allocation and copy made by the runtime module."""

    def __init__(self, runtime):
        super().__init__()
        self.runtime = runtime

    def alloc(self, nbytes):
        # The runtime returns the address as an int; the kernels take it through a driver
        # CUdeviceptr (its getPtr() in kernelParams), as a program mixing the modules would.
        pointer = driver.CUdeviceptr(ok(self.runtime.cudaMalloc(nbytes), f"cudaMalloc({nbytes})"))
        self.allocations.append(pointer)
        return pointer

    def write(self, pointer, array):
        array = np.ascontiguousarray(array)
        kind = self.runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
        ok(self.runtime.cudaMemcpy(pointer, array, array.nbytes, kind), "cudaMemcpy(host to device)")

    def upload(self, array):
        pointer = self.alloc(np.ascontiguousarray(array).nbytes)
        self.write(pointer, array)
        return pointer

    def download(self, pointer, shape, dtype):
        array = np.empty(shape, dtype=dtype)
        kind = self.runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost
        ok(self.runtime.cudaMemcpy(array, pointer, array.nbytes, kind), "cudaMemcpy(device to host)")
        return array

    def close(self):
        for pointer in self.allocations:
            self.runtime.cudaFree(pointer)


def test_family_tma_roundtrip_runtime_copies():
    """a tensor map encoded by the driver over runtime memory; copies by the runtime"""
    facts = {}
    runtime, _ = family(facts)
    gpu = RuntimeCopies(runtime)
    case = F32RoundTrip(gpu, fill="NONE")
    problems = case.run(case.source, case.output)
    expect(not problems, "; ".join(problems))
    gpu.close()
    return "pass", f"{case.shape[0]}x{case.shape[1]} f32, grid {case.grid}, seed {case.seed}", facts


TESTS = {
    "roundtrip_f32_zero_fill": test_roundtrip_f32_zero_fill,
    "roundtrip_f32_nan_fill": test_roundtrip_f32_nan_fill,
    "bf16_swizzle_128b": test_bf16_swizzle_128b,
    "replace_address": test_replace_address,
    "im2col_nhwc": test_im2col_nhwc,
    "packed_parameter_buffer": test_packed_parameter_buffer,
    "not_initialized_before_cuinit": test_not_initialized_before_cuinit,
    "im2col_wide_recorded_on_sm90": test_im2col_wide_recorded_on_sm90,
    "negative_control_swapped_box": test_negative_control_swapped_box,
    "global_address_takes_cudeviceptr": test_global_address_takes_cudeviceptr,
}
TESTS.update({f"rule_{name}": make_rule_test(name, *pair) for name, pair in RULES.items()})
TESTS["rule_replace_address_misaligned"] = test_rule_replace_address_misaligned
TESTS["interleave32_without_swizzle32_recorded"] = test_interleave32_without_swizzle32_recorded
TESTS.update(TESTS_KERNEL_PARAMS)
TESTS["nvrtc_compile_and_launch"] = test_nvrtc_compile_and_launch
TESTS.update({
    "family_streams_cross": test_family_streams_cross,
    "family_runtime_memory_in_driver_copies": test_family_runtime_memory_in_driver_copies,
    "family_nvrtc_kernel_every_launch_form": test_family_nvrtc_kernel_every_launch_form,
    "family_graph_driver_then_runtime": test_family_graph_driver_then_runtime,
    "family_tma_roundtrip_runtime_copies": test_family_tma_roundtrip_runtime_copies,
    "counted_arrays_as_clients_use_them": test_counted_arrays_as_clients_use_them,
})
# Graph programs published for cuda.bindings (graph_programs.py), on this module's package.
TESTS.update(graph_programs.tests(sys.modules[__name__]))
# Fatbinaries packed by the package's nvfatbin module (fatbin_programs.py).
TESTS.update(fatbin_programs.tests(sys.modules[__name__]))


def run_test(name):
    record = {"name": name, "doc": (TESTS[name].__doc__ or "").strip().splitlines()[0]}
    try:
        returned = TESTS[name]()
        if isinstance(returned, tuple):
            record["outcome"], record["detail"] = returned[0], returned[1]
            if len(returned) > 2:
                record["facts"] = returned[2]
        else:
            record["outcome"], record["detail"] = "pass", returned or ""
    except TestFailure as failure:
        record["outcome"], record["detail"] = "fail", str(failure)
    except Exception:  # a binding that raises instead of returning a code is a failure too
        record["outcome"], record["detail"] = "fail", traceback.format_exc(limit=4).strip().splitlines()[-1]
        traceback.print_exc()
    return record


def probe():
    """Driver version and device, read through the bindings."""
    facts = {"module": ARGS.module, "ctk": getattr(driver, "CTK_VERSION", "?")}
    ok(driver.cuInit(0), "cuInit")
    facts["driver_version"] = ok(driver.cuDriverGetVersion(), "cuDriverGetVersion")
    device = ok(driver.cuDeviceGet(0), "cuDeviceGet")
    name = ok(driver.cuDeviceGetName(100, device), "cuDeviceGetName")
    facts["device"] = name.decode() if isinstance(name, bytes) else str(name)
    cc = [ok(driver.cuDeviceGetAttribute(enum("CUdevice_attribute", f"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_{p}"),
                                         device), p) for p in ("MAJOR", "MINOR")]
    facts["compute_capability"] = f"{cc[0]}.{cc[1]}"
    facts["map_align"] = map_alignment()
    return facts


def main():
    global driver, ARGS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--module", default="ctkgen_cuda.driver")
    parser.add_argument("--cubin")
    parser.add_argument("--map-align", type=int, help="alignof(CUtensorMap) in the headers the cubin was built with")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--probe", action="store_true")
    parser.add_argument("--test")
    ARGS = parser.parse_args()
    if ARGS.list:
        print("\n".join(TESTS))
        return 0
    driver = importlib.import_module(ARGS.module)
    if ARGS.probe:
        try:
            print("RESULT " + json.dumps(probe()))
        except Exception as failure:  # reported in RESULTS.md rather than lost in a traceback
            print("RESULT " + json.dumps({"error": f"{type(failure).__name__}: {failure}"}))
            return 1
        return 0
    if ARGS.test not in TESTS:
        parser.error(f"unknown test {ARGS.test!r}; --list shows them")
    record = run_test(ARGS.test)
    print("RESULT " + json.dumps(record), flush=True)
    return 0 if record["outcome"] in ("pass", "skip") else 1


if __name__ == "__main__":
    sys.exit(main())
