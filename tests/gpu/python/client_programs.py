"""Programs written for the libraries built on cuda.bindings, run once on the official package and
once on ours as the only cuda.bindings; each prints (and writes with --json) one JSON object whose
"results" two runs must share exactly.

    python3 client_programs.py core    [--expect-bindings DIR] [--json FILE]   # cuda.core, GPU
    python3 client_programs.py numba   [--expect-bindings DIR] [--json FILE]   # numba-cuda, GPU
    python3 client_programs.py offline [--expect-bindings DIR] [--json FILE]   # no GPU needed

The object holds "bindings" (which cuda.bindings answered: its file, version and distribution, and
any other folder on sys.path that holds a cuda/bindings), "results" (what the program computed:
numbers, lists, flags; never an address or a time) and "info" (versions, names, times: shown, not
compared); with --json it goes to the file and a summary to stdout. A step that raises is
{"error": ...} and makes the exit status 1; a step the host cannot run (nvJitLink or NVVM absent)
is {"unavailable": reason}, which is no failure by itself but differs from a result. --expect-bindings DIR makes the program stop (exit 2) unless
cuda.bindings is imported from under DIR and no other sys.path folder holds a cuda/bindings.

`offline` is the part that needs no GPU (compilers and linkers only): cuda.core's Program (C++ to
PTX, LTO-IR and cubin), its Linker over nvJitLink, numba-cuda's compile_ptx and LTO-IR through
NVVM. Its results are digests of the compiled code, identical for identical libraries and inputs;
tests/python/test_clients_cpu.py runs it on CPU with a stand-in libcuda (cuda.core asks the
driver's version before it compiles PTX)."""
import argparse
import ctypes
import hashlib
import importlib
import importlib.metadata
import json
import os
import sys
import time
import traceback
import warnings


class Unavailable(Exception):
    """What the host lacks (a library, a module of the package), as opposed to a failure."""


class Missing(Exception):
    """A step's prerequisite failed earlier (that step's error says why)."""


class Steps:
    """Runs named steps in order; each one's outcome goes into `results` (compared) and may add to
    `info` (not compared). A step whose prerequisite failed is an error naming it."""

    def __init__(self):
        self.results, self.info, self.failed, self.state = {}, {}, [], {}

    def run(self, name, function):
        started = time.monotonic()
        try:
            value = function(self)
        except Unavailable as reason:
            value = {"unavailable": str(reason)}
        except Missing as reason:
            value = {"error": str(reason)}
            self.failed.append(name)
        except Exception as error:  # noqa: BLE001 (every failure is a finding to report)
            value = {"error": f"{type(error).__name__}: {error}"}
            self.failed.append(name)
            self.info.setdefault("tracebacks", {})[name] = traceback.format_exc(limit=-6)[-3000:]
        self.results[name] = value
        self.info.setdefault("step_seconds", {})[name] = round(time.monotonic() - started, 3)
        return value

    def need(self, key):
        if key not in self.state:
            raise Missing(f"not run: the step that makes '{key}' failed")
        return self.state[key]


def bindings_report(expect):
    """Which cuda.bindings answers, and every other sys.path folder that holds one."""
    import cuda.bindings

    found = os.path.realpath(cuda.bindings.__file__)
    ours_root = os.path.realpath(expect) if expect else None
    others = []
    for entry in sys.path:
        candidate = os.path.join(entry or ".", "cuda", "bindings")
        if os.path.isdir(candidate):
            real = os.path.realpath(candidate)
            if real != os.path.dirname(found):
                others.append(real)
    try:
        distribution = importlib.metadata.version("cuda-bindings")
    except importlib.metadata.PackageNotFoundError:
        distribution = None
    named = sorted({str(d._path) for d in importlib.metadata.distributions()  # noqa: SLF001
                    if (d.metadata["Name"] or "").lower().replace("_", "-") == "cuda-bindings"})
    report = {"file": cuda.bindings.__file__, "version": getattr(cuda.bindings, "__version__", None),
              "distribution": distribution, "distributions_named_cuda_bindings": named,
              "other_cuda_bindings_on_path": others}
    if ours_root is not None:
        problems = []
        if not found.startswith(ours_root + os.sep):
            problems.append(f"cuda.bindings came from {found}, not from under {ours_root}")
        if others:
            problems.append(f"other cuda/bindings folders are reachable: {others}")
        if len(named) != 1:
            problems.append(f"distributions named cuda-bindings: {named}")
        if problems:
            report["problems"] = problems
    return report


def version_of(distribution):
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def digest(data):
    return hashlib.sha256(bytes(data)).hexdigest()


def host_read(buffer, dtype, count):
    """The first `count` elements of a host-accessible cuda.core Buffer, as a list."""
    import numpy as np

    raw = ctypes.string_at(int(buffer.handle), count * np.dtype(dtype).itemsize)
    return np.frombuffer(raw, dtype=dtype).tolist()


def host_write(buffer, array):
    ctypes.memmove(int(buffer.handle), array.ctypes.data, array.nbytes)


# ---- cuda.core -------------------------------------------------------------------------------

CORE_SOURCE = r"""
extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

// A block-wide sum in shared memory, then one atomic add per block. blockDim.x must be 256.
extern "C" __global__ void block_sum(const int *in, unsigned long long *total, unsigned int n) {
    __shared__ unsigned long long partial[256];
    unsigned int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? (unsigned long long)in[i] : 0ull;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(total, partial[0]);
}

extern "C" __global__ void add_scalar(int *data, int value, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += value;
}

extern "C" __global__ void grid_index(unsigned int *out, unsigned int width) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    out[y * width + x] = y * 1000u + x;
}

template <typename T> __global__ void scale(T *data, T factor, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}
"""

LINK_CALLER = r"""
extern "C" __device__ int combine(int a, int b);
extern "C" __global__ void apply(int *data, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = combine(data[i], (int)i);
}
"""
LINK_CALLEE = r"""
extern "C" __device__ int combine(int a, int b) { return a * 3 + b; }
"""

N = 1000  # elements of the 1-D arrays; not a multiple of the block size


def core_program(steps):
    import numpy as np
    from cuda.core import (Device, EventOptions, LaunchConfig, Linker, LinkerOptions, ObjectCode, Program,
                           ProgramOptions, launch)

    steps.info["versions"] = {name: version_of(name) for name in
                              ("cuda-core", "cuda-bindings", "cuda-pathfinder", "numpy")}
    blocks = (N + 255) // 256
    n = np.uint32(N)

    def device(s):
        dev = Device(0)
        dev.set_current()
        s.state["dev"] = dev
        s.state["arch"] = dev.arch
        s.state["stream"] = dev.create_stream()
        s.info["device"] = dev.name
        return {"compute_capability": list(dev.compute_capability), "arch": dev.arch,
                "stream_is_nonblocking": s.state["stream"].is_nonblocking}

    def compile_cubin(s):
        options = ProgramOptions(arch=f"sm_{s.need('arch')}", name="clients_core")
        code = Program(CORE_SOURCE, "c++", options=options).compile("cubin", name_expressions=("scale<float>",
                                                                                              "scale<int>"))
        s.state["cubin"] = code
        return {"code_type": code.code_type, "elf": bytes(code.code[:4]) == b"\x7fELF",
                "name_expressions": sorted(code.symbol_mapping)}

    def compile_ptx(s):
        options = ProgramOptions(arch=f"compute_{s.need('arch')}", name="clients_core_ptx")
        code = Program(CORE_SOURCE, "c++", options=options).compile("ptx")
        text = bytes(code.code).decode()
        # Loaded again from its text, as a program that keeps PTX on disk would.
        s.state["ptx"] = ObjectCode.from_ptx(code.code, name="clients_core_ptx")
        return {"code_type": code.code_type,
                "entries": sorted(line.split()[2].rstrip("(") for line in text.splitlines()
                                  if line.startswith(".visible .entry"))}

    def kernels(s):
        cubin, ptx = s.need("cubin"), s.need("ptx")
        s.state["k"] = {name: cubin.get_kernel(name) for name in ("saxpy", "block_sum", "add_scalar", "grid_index",
                                                                   "scale<float>", "scale<int>")}
        s.state["k_ptx"] = {"saxpy": ptx.get_kernel("saxpy")}
        return {name: kernel.num_arguments for name, kernel in sorted(s.state["k"].items())}

    def memory(s):
        dev, stream = s.need("dev"), s.need("stream")
        from cuda.core import LegacyPinnedMemoryResource, PinnedMemoryResource

        pools = dev.properties.host_memory_pools_supported
        pinned = PinnedMemoryResource() if pools else LegacyPinnedMemoryResource()
        s.state["pinned"] = pinned
        x = np.arange(N, dtype=np.float32) * np.float32(0.5)
        y = (np.arange(N, dtype=np.float32) % 7).astype(np.float32)
        hx, hy, hout = (pinned.allocate(N * 4, stream=stream) for _ in range(3))
        stream.sync()  # the pinned pool's allocations are stream-ordered; the host writes next
        host_write(hx, x)
        host_write(hy, y)
        dx = dev.memory_resource.allocate(N * 4, stream=stream)
        dy = dev.allocate(N * 4, stream=stream)
        dout = dev.allocate(N * 4, stream=stream)
        dx.copy_from(hx, stream=stream)
        dy.copy_from(hy, stream=stream)
        dout.fill(0, stream=stream)
        s.state.update(x=x, y=y, dx=dx, dy=dy, dout=dout, hout=hout)
        back = dx.copy_to(stream=stream)  # a new buffer from the same resource
        hout.copy_from(back, stream=stream)
        stream.sync()
        return {"resources": [type(dev.memory_resource).__name__, type(pinned).__name__],
                "host_memory_pools_supported": pools,
                "round_trip_equal": host_read(hout, np.float32, N) == x.tolist(),
                "device_accessible": [dx.is_device_accessible, hx.is_device_accessible],
                "host_accessible": [dx.is_host_accessible, hx.is_host_accessible],
                "sizes": [dx.size, hx.size]}

    def saxpy_cubin_and_ptx(s):
        stream, k, kp = s.need("stream"), s.need("k"), s.need("k_ptx")
        dx, dy, dout, hout = s.need("dx"), s.need("dy"), s.need("dout"), s.need("hout")
        config = LaunchConfig(grid=blocks, block=256)
        start = stream.record(options=EventOptions(timing_enabled=True))
        launch(stream, config, k["saxpy"], np.float32(2.0), dx, dy, dout, n)
        end = stream.record(options=EventOptions(timing_enabled=True))
        hout.copy_from(dout, stream=stream)
        end.sync()
        stream.sync()
        from_cubin = host_read(hout, np.float32, N)
        elapsed = end - start
        s.info["saxpy_ms"] = elapsed
        dout.fill(0, stream=stream)
        launch(stream, LaunchConfig(grid=(blocks, 1, 1), block=(256, 1, 1)), kp["saxpy"], np.float32(2.0), dx, dy,
               dout, n)
        hout.copy_from(dout, stream=stream)
        stream.sync()
        from_ptx = host_read(hout, np.float32, N)
        expected = (np.float32(2.0) * s.state["x"] + s.state["y"]).tolist()
        return {"out": from_cubin, "ptx_same_as_cubin": from_ptx == from_cubin, "as_numpy": from_cubin == expected,
                "elapsed_ms_non_negative": elapsed >= 0, "event_done": end.is_done}

    def shared_memory_atomics(s):
        stream, k, dev = s.need("stream"), s.need("k"), s.need("dev")
        values = ((np.arange(N, dtype=np.int64) * 7919) % 1000).astype(np.int32)
        host = s.need("pinned").allocate(N * 4, stream=stream)
        host_total = s.need("pinned").allocate(8, stream=stream)  # copies take buffers of one size
        total = dev.allocate(8, stream=stream)
        stream.sync()
        host_write(host, values)
        device_values = dev.allocate(N * 4, stream=stream)
        device_values.copy_from(host, stream=stream)
        total.fill(0, stream=stream)
        launch(stream, LaunchConfig(grid=blocks, block=256), k["block_sum"], device_values, total, n)
        host_total.copy_from(total, stream=stream)
        stream.sync()
        got = host_read(host_total, np.uint64, 1)[0]
        return {"sum": got, "as_numpy": got == int(values.sum())}

    def two_dimensional_launch(s):
        stream, k, dev = s.need("stream"), s.need("k"), s.need("dev")
        width, height = 32, 16
        out = dev.allocate(width * height * 4, stream=stream)
        host = s.need("pinned").allocate(width * height * 4, stream=stream)
        launch(stream, LaunchConfig(grid=(width // 8, height // 8), block=(8, 8)), k["grid_index"], out,
               np.uint32(width))
        host.copy_from(out, stream=stream)
        stream.sync()
        got = host_read(host, np.uint32, width * height)
        return {"corners": [got[0], got[width - 1], got[-width], got[-1]],
                "all_as_expected": got == [y * 1000 + x for y in range(height) for x in range(width)]}

    def templates(s):
        stream, k, dev = s.need("stream"), s.need("k"), s.need("dev")
        host = s.need("pinned").allocate(N * 4, stream=stream)
        stream.sync()
        out = {}
        for name, dtype, factor in (("scale<float>", np.float32, np.float32(1.5)), ("scale<int>", np.int32,
                                                                                     np.int32(-3))):
            data = np.arange(N, dtype=dtype)
            host_write(host, data)
            device_data = dev.allocate(N * 4, stream=stream)
            device_data.copy_from(host, stream=stream)
            launch(stream, LaunchConfig(grid=blocks, block=256), k[name], device_data, factor, n)
            host.copy_from(device_data, stream=stream)
            stream.sync()
            got = host_read(host, dtype, N)
            out[name] = {"first": got[:5], "last": got[-1], "as_numpy": got == (data * factor).tolist()}
            stream.sync()
        return out

    def graph(s):
        stream, k, dev = s.need("stream"), s.need("k"), s.need("dev")
        start = np.arange(N, dtype=np.int32) * 2
        host_in = s.need("pinned").allocate(N * 4, stream=stream)
        host_out = s.need("pinned").allocate(N * 4, stream=stream)
        data = dev.allocate(N * 4, stream=stream)
        stream.sync()
        host_write(host_in, start)
        data.copy_from(host_in, stream=stream)
        stream.sync()
        builder = stream.create_graph_builder()
        builder.begin_building()
        for value in (1, 2, 3):
            launch(builder, LaunchConfig(grid=blocks, block=256), k["add_scalar"], data, np.int32(value), n)
        host_out.copy_from(data, stream=builder)
        builder.end_building()
        executable = builder.complete()
        executable.upload(stream)
        executable.launch(stream)
        stream.sync()
        once = host_read(host_out, np.int32, N)
        executable.launch(stream)
        stream.sync()
        twice = host_read(host_out, np.int32, N)
        executable.close()
        builder.close()
        return {"after_one_launch": once[:8], "after_two_launches": twice[:8],
                "as_numpy": [once == (start + 6).tolist(), twice == (start + 12).tolist()]}

    def link_and_run(s, kind):
        stream, dev, arch = s.need("stream"), s.need("dev"), s.need("arch")
        backend = str(Linker.which_backend())
        s.info[f"linker_backend_{kind}"] = backend
        if kind == "ltoir" and "jitlink" not in backend.lower():
            raise Unavailable(f"the Linker's backend is {backend}; LTO-IR needs nvJitLink")
        lto = kind == "ltoir"
        units = [Program(source, "c++", options=ProgramOptions(arch=f"sm_{arch}", relocatable_device_code=True,
                                                                link_time_optimization=lto or None,
                                                                name=f"unit{i}")).compile(kind)
                 for i, source in enumerate((LINK_CALLER, LINK_CALLEE))]
        linked = Linker(*units, options=LinkerOptions(arch=f"sm_{arch}", link_time_optimization=lto or None)) \
            .link("cubin")
        kernel = linked.get_kernel("apply")
        values = np.arange(N, dtype=np.int32) - 500
        host = s.need("pinned").allocate(N * 4, stream=stream)
        data = dev.allocate(N * 4, stream=stream)
        stream.sync()
        host_write(host, values)
        data.copy_from(host, stream=stream)
        launch(stream, LaunchConfig(grid=blocks, block=256), kernel, data, n)
        host.copy_from(data, stream=stream)
        stream.sync()
        got = host_read(host, np.int32, N)
        return {"inputs": [u.code_type for u in units], "output": linked.code_type, "first": got[:6],
                "as_numpy": got == (values * 3 + np.arange(N, dtype=np.int32)).tolist()}

    for name, function in (("device", device), ("compile_cubin", compile_cubin), ("compile_ptx", compile_ptx),
                           ("kernels", kernels), ("memory", memory), ("saxpy", saxpy_cubin_and_ptx),
                           ("shared_memory_atomics", shared_memory_atomics),
                           ("launch_2d", two_dimensional_launch), ("templates", templates), ("graph", graph),
                           ("link_ptx", lambda s: link_and_run(s, "ptx")),
                           ("link_ltoir", lambda s: link_and_run(s, "ltoir"))):
        steps.run(name, function)
    if "stream" in steps.state:
        steps.state["stream"].sync()


# ---- numba-cuda ------------------------------------------------------------------------------

def numba_program(steps):
    import numpy as np

    steps.info["versions"] = {name: version_of(name) for name in
                              ("numba-cuda", "numba", "llvmlite", "cuda-core", "cuda-bindings", "numpy")}
    from numba import cuda, int64

    steps.info["numba_cuda_file"] = sys.modules["numba.cuda"].__file__

    @cuda.jit(device=True)
    def square(v):
        return v * v

    @cuda.jit
    def add_squares(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = square(a[i]) + b[i]

    @cuda.jit
    def block_sums(values, partial, total):
        shared = cuda.shared.array(128, int64)
        t = cuda.threadIdx.x
        i = cuda.blockIdx.x * cuda.blockDim.x + t
        shared[t] = values[i] if i < values.size else 0
        cuda.syncthreads()
        step = cuda.blockDim.x // 2
        while step > 0:
            if t < step:
                shared[t] += shared[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = shared[0]
            cuda.atomic.add(total, 0, shared[0])

    @cuda.jit
    def histogram(values, bins, extremes):
        i = cuda.grid(1)
        if i < values.size:
            cuda.atomic.add(bins, values[i] % bins.size, 1)
            cuda.atomic.max(extremes, 0, values[i])
            cuda.atomic.min(extremes, 1, values[i])

    @cuda.jit
    def transpose(a, out):
        tile = cuda.shared.array((16, 17), int64)  # one column of padding
        x, y = cuda.grid(2)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        if y < a.shape[0] and x < a.shape[1]:
            tile[ty, tx] = a[y, x]
        cuda.syncthreads()
        ox = cuda.blockIdx.y * cuda.blockDim.y + tx
        oy = cuda.blockIdx.x * cuda.blockDim.x + ty
        if oy < out.shape[0] and ox < out.shape[1]:
            out[oy, ox] = tile[tx, ty]

    @cuda.reduce
    def total(a, b):
        return a + b

    def device(s):
        dev = cuda.get_current_device()
        s.info["device"] = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
        s.info["have_nvjitlink"] = bool(sys.modules["numba.cuda.cudadrv.driver"]._have_nvjitlink())
        return {"compute_capability": list(dev.compute_capability), "is_available": cuda.is_available()}

    def arrays(s):
        a = np.arange(N, dtype=np.float32) / np.float32(4)
        b = np.full(N, 0.25, dtype=np.float32)
        out = cuda.device_array(N, dtype=np.float32)
        add_squares[(N + 127) // 128, 128](cuda.to_device(a), cuda.to_device(b), out)
        got = out.copy_to_host()
        like = cuda.device_array_like(a)
        like.copy_to_device(a)
        return {"out": got.tolist(), "as_numpy": got.tolist() == (a * a + b).tolist(),
                "slice": out[10:14].copy_to_host().tolist(), "copy_to_device": like.copy_to_host().tolist() == a.tolist()}

    def streams_and_events(s):
        stream = cuda.stream()
        values = ((np.arange(N, dtype=np.int64) * 7919) % 1000)
        host = cuda.pinned_array(N, dtype=np.int64)
        host[:] = values
        blocks = (N + 127) // 128
        start, end = cuda.event(timing=True), cuda.event(timing=True)
        start.record(stream)
        d_values = cuda.to_device(host, stream=stream)
        partial = cuda.device_array(blocks, dtype=np.int64, stream=stream)
        d_total = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
        block_sums[blocks, 128, stream](d_values, partial, d_total)
        got_partial = partial.copy_to_host(stream=stream)
        got_total = d_total.copy_to_host(stream=stream)
        end.record(stream)
        end.synchronize()
        stream.synchronize()
        elapsed = cuda.event_elapsed_time(start, end)
        s.info["block_sums_ms"] = elapsed
        return {"partial": got_partial.tolist(), "total": int(got_total[0]),
                "as_numpy": int(got_total[0]) == int(values.sum())
                and got_partial.tolist() == [int(values[i:i + 128].sum()) for i in range(0, N, 128)],
                "elapsed_ms_non_negative": elapsed >= 0, "event_query": end.query()}

    def atomics(s):
        values = ((np.arange(N, dtype=np.int32) * 37) % 101).astype(np.int32)
        bins = cuda.to_device(np.zeros(16, dtype=np.int32))
        extremes = cuda.to_device(np.array([-1, 1 << 30], dtype=np.int32))
        histogram[(N + 255) // 256, 256](cuda.to_device(values), bins, extremes)
        got = bins.copy_to_host().tolist()
        return {"bins": got, "extremes": extremes.copy_to_host().tolist(),
                "as_numpy": got == np.bincount(values % 16, minlength=16).tolist()}

    def shared_memory_2d(s):
        a = np.arange(40 * 24, dtype=np.int64).reshape(40, 24)
        out = cuda.device_array((24, 40), dtype=np.int64)
        transpose[(2, 3), (16, 16)](cuda.to_device(a), out)
        got = out.copy_to_host()
        return {"row0": got[0].tolist(), "as_numpy": got.tolist() == a.T.tolist()}

    def reduction(s):
        values = np.arange(1, N + 1, dtype=np.float64)
        on_host = total(values)
        on_device = total(cuda.to_device(values))
        return {"host_input": float(on_host), "device_input": float(on_device),
                "as_numpy": float(on_host) == float(values.sum())}

    def enum_globals(s):
        """A kernel naming a runtime and a driver enum member as globals: numba-cuda types them
        only when the classes derive from cuda.bindings' enum base (issue 45 item 3)."""
        kernel = enum_kernel()
        x = np.array([np.nextafter(np.float32(2.0 ** 127), np.float32(np.inf)), np.float32(0.75)], dtype=np.float32)
        out = cuda.device_array(6, dtype=np.int64)
        kernel[1, 1](cuda.to_device(x), out)
        got = out.copy_to_host().tolist()
        # numba-cuda's own expectations (test_fp8_bindings): NOSAT overflow NaN, SATFINITE 2^127.
        return {"values": got, "as_expected": got[:2] == [0xFF, 0xFE]}

    for name, function in (("device", device), ("arrays", arrays), ("streams_and_events", streams_and_events),
                           ("atomics", atomics), ("shared_memory_2d", shared_memory_2d), ("reduction", reduction),
                           ("enum_globals", enum_globals)):
        steps.run(name, function)
    cuda.synchronize()


def enum_kernel(compile_only=None):
    """A numba-cuda kernel that names `runtime.cudaRoundMode` members (through numba-cuda's fp8
    conversion intrinsic, as its fp8 bindings do) and a `driver.CUresult` member's value as
    global constants. `compile_only` (an output kind) compiles it to PTX or LTO-IR for sm_90
    instead, with no GPU; returns the jitted kernel, or the code and its result type."""
    from numba import cuda
    from numba.cuda._internal.cuda_fp8 import cvt_float_to_e8m0, saturation_t

    from cuda.bindings.driver import CUresult
    from cuda.bindings.runtime import cudaRoundMode

    def enum_globals(x, out):
        out[0] = cvt_float_to_e8m0(x[0], saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
        out[1] = cvt_float_to_e8m0(x[0], saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)
        out[2] = cvt_float_to_e8m0(x[1], saturation_t.NOSAT, cudaRoundMode.cudaRoundZero)
        out[3] = cudaRoundMode.cudaRoundPosInf.value
        out[4] = CUresult.CUDA_ERROR_INVALID_VALUE.value
        out[5] = CUresult.CUDA_ERROR_NOT_INITIALIZED.value + cudaRoundMode.cudaRoundZero.value

    if compile_only is None:
        return cuda.jit(enum_globals)
    signature = "void(float32[:], int64[:])"
    if compile_only == "ptx":
        code, result_type = cuda.compile_ptx(enum_globals, signature, cc=(9, 0))
        return code.encode(), result_type
    return cuda.compile(enum_globals, signature, cc=(9, 0), output=compile_only)


# ---- no GPU ----------------------------------------------------------------------------------

OFFLINE_ARCH = "90"


def module_present(name):
    """Imports cuda.bindings.<name>; Unavailable when the package has no such module."""
    try:
        return importlib.import_module(f"cuda.bindings.{name}")
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("cuda.bindings"):
            raise Unavailable(f"no module {error.name}") from error
        raise


def offline_program(steps):
    steps.info["versions"] = {name: version_of(name) for name in
                              ("cuda-core", "numba-cuda", "numba", "cuda-bindings", "cuda-pathfinder", "numpy")}
    caught = []

    def imports(s):
        import cuda.core

        out = {"cuda.core": cuda.core.__version__}
        import numba.cuda

        # numba-cuda's numba.cuda, through its redirection of numba's own (a .pth file).
        out["numba.cuda_from_numba_cuda"] = f"{os.sep}numba_cuda{os.sep}" in numba.cuda.__file__
        return out

    def program(s):
        from cuda.core import Program, ProgramOptions

        out = {}
        for target, arch in (("ptx", f"compute_{OFFLINE_ARCH}"), ("cubin", f"sm_{OFFLINE_ARCH}"),
                             ("ltoir", f"sm_{OFFLINE_ARCH}")):
            options = ProgramOptions(arch=arch, name=f"clients_{target}", link_time_optimization=target == "ltoir"
                                     or None)
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                code = Program(CORE_SOURCE, "c++", options=options).compile(
                    target, name_expressions=("scale<float>", "scale<int>"))
            caught.extend(f"{w.category.__name__}: {w.message}" for w in seen)
            out[target] = {"code_type": code.code_type, "bytes": len(code.code), "sha256": digest(code.code),
                           "symbol_mapping": dict(sorted(code.symbol_mapping.items()))}
        return out

    def link(s, kind):
        module_present("nvjitlink")
        from cuda.core import Linker, LinkerOptions, Program, ProgramOptions

        backend = str(Linker.which_backend())
        if "jitlink" not in backend.lower():
            raise Unavailable(f"the Linker's backend is {backend}; without a GPU only nvJitLink links")
        lto = kind == "ltoir"
        units = []
        for i, source in enumerate((LINK_CALLER, LINK_CALLEE)):
            options = ProgramOptions(arch=f"sm_{OFFLINE_ARCH}", relocatable_device_code=True,
                                     link_time_optimization=lto or None, name=f"unit{i}")
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                units.append(Program(source, "c++", options=options).compile(kind))
            caught.extend(f"{w.category.__name__}: {w.message}" for w in seen)
        linked = Linker(*units, options=LinkerOptions(arch=f"sm_{OFFLINE_ARCH}", link_time_optimization=lto or None))
        code = linked.link("cubin")
        return {"backend": backend, "inputs": [digest(u.code) for u in units], "cubin_bytes": len(code.code),
                "cubin_sha256": digest(code.code), "elf": bytes(code.code[:4]) == b"\x7fELF"}

    def numba_compile(s, output):
        module_present("nvvm")
        from numba import cuda, int64

        def add_squares(a, b, out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = a[i] * a[i] + b[i]

        def block_sum(values, total):
            shared = cuda.shared.array(128, int64)
            t = cuda.threadIdx.x
            i = cuda.grid(1)
            shared[t] = values[i] if i < values.size else 0
            cuda.syncthreads()
            if t == 0:
                acc = 0
                for j in range(cuda.blockDim.x):
                    acc += shared[j]
                cuda.atomic.add(total, 0, acc)

        def combine(a, b):
            return a * 3 + b

        out = {}
        for function, signature, device in ((add_squares, "void(float32[:], float32[:], float32[:])", False),
                                            (block_sum, "void(int64[:], int64[:])", False),
                                            (combine, "int32(int32, int32)", True)):
            if output == "ptx":
                code, result_type = cuda.compile_ptx(function, signature, device=device, cc=(9, 0))
                code = code.encode()
            else:  # kernels take numba's ABI; a device function the C ABI, callable from C++
                code, result_type = cuda.compile(function, signature, device=device, abi="c" if device else "numba",
                                                 cc=(9, 0), output="ltoir")
            out[function.__name__] = {"bytes": len(code), "sha256": digest(code), "result_type": str(result_type)}
        code, result_type = enum_kernel(output)
        out["enum_globals"] = {"bytes": len(code), "sha256": digest(code), "result_type": str(result_type)}
        return out

    steps.run("imports", imports)
    steps.run("program", program)
    steps.run("link_ltoir", lambda s: link(s, "ltoir"))
    steps.run("link_ptx", lambda s: link(s, "ptx"))
    steps.run("numba_compile_ptx", lambda s: numba_compile(s, "ptx"))
    steps.run("numba_compile_ltoir", lambda s: numba_compile(s, "ltoir"))
    steps.results["warnings"] = sorted(set(caught))


PROGRAMS = {"core": core_program, "numba": numba_program, "offline": offline_program}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", choices=sorted(PROGRAMS))
    parser.add_argument("--expect-bindings", help="the folder cuda.bindings must come from")
    parser.add_argument("--json", help="also write the result object to this file")
    args = parser.parse_args(argv)
    out = {"program": args.program, "python": sys.executable}
    try:
        out["bindings"] = bindings_report(args.expect_bindings)
    except Exception as error:  # noqa: BLE001
        out["bindings"] = {"error": f"{type(error).__name__}: {error}"}
    status = 0
    if "error" in out["bindings"] or out["bindings"].get("problems"):
        status = 2
    else:
        steps = Steps()
        try:
            PROGRAMS[args.program](steps)
        except Exception as error:  # noqa: BLE001 (an import or setup failure before the steps)
            steps.results["program"] = {"error": f"{type(error).__name__}: {error}"}
            steps.failed.append("program")
            steps.info.setdefault("tracebacks", {})["program"] = traceback.format_exc(limit=-8)[-4000:]
        out.update(results=steps.results, info=steps.info, failed=steps.failed)
        status = 1 if steps.failed else 0
    text = json.dumps(out, indent=1, sort_keys=True, default=str)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
        print(f"{args.program}: cuda.bindings from {out['bindings'].get('file')}; failed steps: {out.get('failed')}; "
              f"exit {status}")
        for name, trace in out.get("info", {}).get("tracebacks", {}).items():
            print(f"--- {name}\n{trace}")
    else:
        print(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
