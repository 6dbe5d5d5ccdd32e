"""Graph programs as published for cuda.bindings, run on the package under test and on the
official cuda.bindings installed beside it, in the same process: tests for tma_suite.py, which
adds them with `tests(suite)` (the suite module gives the driver under test and its helpers).

- The hand-built graph of NVIDIA's simpleCudaGraphs sample: runtime memcpy and memset nodes from
  records made with make_cudaPitchedPtr/Pos/Extent (a ctypes.c_double as the host end), driver
  kernel nodes whose kernelParams give `c_uint` for a `size_t` parameter, dependencies as lists of
  the runtime's nodes, cudaGraphGetNodes, instantiate, clone, launch on a non-blocking stream.
- Every function whose count is optional, called without it, then with it, on a real graph."""
import ctypes
import importlib
import inspect
import re

import numpy as np

THREADS = 512
LAUNCHES = 3

# The sample's two kernels, without cooperative groups: both declare `size_t` counts, and the
# program passes one of them as `c_uint`, so a kernel reads 4 bytes past the value it was given.
REDUCE = rb"""
#define THREADS 512
extern "C" __global__ void reduce(float *in, double *out, size_t n, size_t outputSize) {
    __shared__ double tmp[THREADS];
    double sum = 0.0;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
    tmp[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) tmp[threadIdx.x] += tmp[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0 && blockIdx.x < outputSize) out[blockIdx.x] = tmp[0];
}
extern "C" __global__ void reduceFinal(double *in, double *result, size_t n) {
    __shared__ double tmp[THREADS];
    double sum = 0.0;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) sum += in[i];
    tmp[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) tmp[threadIdx.x] += tmp[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) result[0] = tmp[0];
}
"""


def tests(suite):
    """The tests, by name, bound to `suite` (tma_suite as it runs)."""

    def modules_of(package):
        return (importlib.import_module(f"{package}.driver"), importlib.import_module(f"{package}.runtime"))

    def ours():
        return modules_of(suite.ARGS.module.rsplit(".", 1)[0])

    def official():
        try:
            return modules_of("cuda.bindings")
        except ImportError:
            return None

    def reduce_cubin(facts):
        _, nvrtc = suite.family(facts)
        device = suite.ok(suite.driver.cuDeviceGet(0), "cuDeviceGet")
        cc = [suite.ok(suite.driver.cuDeviceGetAttribute(suite.enum(
            "CUdevice_attribute", f"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_{p}"), device), p) for p in ("MAJOR", "MINOR")]
        err, prog = nvrtc.nvrtcCreateProgram(REDUCE, b"reduce.cu", 0, [], [])
        suite.expect(int(err) == 0, f"nvrtcCreateProgram: {err}")
        options = [f"--gpu-architecture=sm_{cc[0]}{cc[1]}".encode()]
        suite.expect(int(nvrtc.nvrtcCompileProgram(prog, 1, options)[0]) == 0, "nvrtcCompileProgram")
        size = suite.ok(nvrtc.nvrtcGetCUBINSize(prog), "nvrtcGetCUBINSize")
        cubin = b" " * size
        suite.expect(int(nvrtc.nvrtcGetCUBIN(prog, cubin)[0]) == 0, "nvrtcGetCUBIN")
        nvrtc.nvrtcDestroyProgram(prog)
        return cubin

    def hand_built_graph(cuda, cudart, cubin, values, reuse_record):
        """The sample's cudaGraphsManual on `values` (float32); returns (nodes, results of the
        graph's launches and of its clone's). `reuse_record` builds both kernel nodes from one
        CUDA_KERNEL_NODE_PARAMS, its kernelParams set first with wider values."""
        ok = suite.ok
        ok(cudart.cudaSetDevice(0), "cudaSetDevice")
        image = ok(cuda.cuModuleLoadData(cubin), "cuModuleLoadData")
        reduce_fn = ok(cuda.cuModuleGetFunction(image, b"reduce"), "cuModuleGetFunction(reduce)")
        final_fn = ok(cuda.cuModuleGetFunction(image, b"reduceFinal"), "cuModuleGetFunction(reduceFinal)")
        size, blocks = len(values), 64
        f32, f64 = np.dtype(np.float32).itemsize, np.dtype(np.float64).itemsize
        host_in = ok(cudart.cudaMallocHost(size * f32), "cudaMallocHost")
        ctypes.memmove(host_in, values.ctypes.data, values.nbytes)
        dev_in = ok(cudart.cudaMalloc(size * f32), "cudaMalloc(input)")
        dev_out = ok(cudart.cudaMalloc(blocks * f64), "cudaMalloc(partial sums)")
        dev_result = ok(cudart.cudaMalloc(f64), "cudaMalloc(result)")
        result_h = ctypes.c_double(0.0)
        stream = ok(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking), "cudaStreamCreateWithFlags")
        graph = ok(cudart.cudaGraphCreate(0), "cudaGraphCreate")

        copy_in = cudart.cudaMemcpy3DParms()
        copy_in.srcArray = None
        copy_in.srcPos = cudart.make_cudaPos(0, 0, 0)
        copy_in.srcPtr = cudart.make_cudaPitchedPtr(host_in, f32 * size, size, 1)
        copy_in.dstArray = None
        copy_in.dstPos = cudart.make_cudaPos(0, 0, 0)
        copy_in.dstPtr = cudart.make_cudaPitchedPtr(dev_in, f32 * size, size, 1)
        copy_in.extent = cudart.make_cudaExtent(f32 * size, 1, 1)
        copy_in.kind = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
        memset = cudart.cudaMemsetParams()
        memset.dst = dev_out
        memset.value = 0
        memset.pitch = 0
        memset.elementSize = f32
        memset.width = blocks * 2
        memset.height = 1
        copy_node = ok(cudart.cudaGraphAddMemcpyNode(graph, None, 0, copy_in), "cudaGraphAddMemcpyNode")
        memset_node = ok(cudart.cudaGraphAddMemsetNode(graph, None, 0, memset), "cudaGraphAddMemsetNode")
        dependencies = [memset_node, copy_node]

        kernel = cuda.CUDA_KERNEL_NODE_PARAMS()
        if reuse_record:
            kernel.kernelParams = ((2**64 - 1,) * 4, (ctypes.c_uint64,) * 4)
        kernel.func = reduce_fn
        kernel.gridDimX = blocks
        kernel.gridDimY = kernel.gridDimZ = 1
        kernel.blockDimX = THREADS
        kernel.blockDimY = kernel.blockDimZ = 1
        kernel.sharedMemBytes = 0
        kernel.kernelParams = ((dev_in, dev_out, size, blocks),
                               (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint))
        reduce_node = ok(cuda.cuGraphAddKernelNode(graph, dependencies, len(dependencies), kernel),
                         "cuGraphAddKernelNode(reduce)")
        dependencies = [reduce_node]
        memset = memset if reuse_record else cudart.cudaMemsetParams()
        memset.dst = dev_result
        memset.value = 0
        memset.elementSize = f32
        memset.width = 2
        memset.height = 1
        dependencies.append(ok(cudart.cudaGraphAddMemsetNode(graph, None, 0, memset), "cudaGraphAddMemsetNode"))

        kernel = kernel if reuse_record else cuda.CUDA_KERNEL_NODE_PARAMS()
        kernel.func = final_fn
        kernel.gridDimX = kernel.gridDimY = kernel.gridDimZ = 1
        kernel.blockDimX = THREADS
        kernel.blockDimY = kernel.blockDimZ = 1
        kernel.sharedMemBytes = 0
        kernel.kernelParams = ((dev_out, dev_result, blocks), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint))
        final_node = ok(cuda.cuGraphAddKernelNode(graph, dependencies, len(dependencies), kernel),
                        "cuGraphAddKernelNode(reduceFinal)")

        copy_out = cudart.cudaMemcpy3DParms()
        copy_out.srcArray = None
        copy_out.srcPos = cudart.make_cudaPos(0, 0, 0)
        copy_out.srcPtr = cudart.make_cudaPitchedPtr(dev_result, f64, 1, 1)
        copy_out.dstArray = None
        copy_out.dstPos = cudart.make_cudaPos(0, 0, 0)
        copy_out.dstPtr = cudart.make_cudaPitchedPtr(result_h, f64, 1, 1)
        copy_out.extent = cudart.make_cudaExtent(f64, 1, 1)
        copy_out.kind = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
        ok(cudart.cudaGraphAddMemcpyNode(graph, [final_node], 1, copy_out), "cudaGraphAddMemcpyNode(result)")

        nodes, count = ok(cudart.cudaGraphGetNodes(graph), "cudaGraphGetNodes")
        executable = ok(cudart.cudaGraphInstantiate(graph, 0), "cudaGraphInstantiate")
        clone = ok(cudart.cudaGraphClone(graph), "cudaGraphClone")
        clone_executable = ok(cudart.cudaGraphInstantiate(clone, 0), "cudaGraphInstantiate(clone)")
        results = []
        for which in (executable, clone_executable):
            for _ in range(LAUNCHES):
                result_h.value = float("nan")
                ok(cudart.cudaGraphLaunch(which, stream), "cudaGraphLaunch")
                ok(cudart.cudaStreamSynchronize(stream), "cudaStreamSynchronize")
                results.append(result_h.value)
        for executable_ in (executable, clone_executable):
            ok(cudart.cudaGraphExecDestroy(executable_), "cudaGraphExecDestroy")
        for graph_ in (graph, clone):
            ok(cudart.cudaGraphDestroy(graph_), "cudaGraphDestroy")
        ok(cudart.cudaStreamDestroy(stream), "cudaStreamDestroy")
        for pointer in (dev_in, dev_out, dev_result):
            cudart.cudaFree(pointer)
        cudart.cudaFreeHost(host_in)
        cuda.cuModuleUnload(image)
        return int(count), results

    def test_graph_built_by_hand():
        """NVIDIA's hand-built graph (runtime copy/memset nodes, driver kernel nodes, clone) sums exactly"""
        facts = {}
        cubin = reduce_cubin(facts)
        values = np.random.default_rng().random(1 << 20, dtype=np.float32)
        want = float(np.sum(values, dtype=np.float64))
        outcomes = {}
        for reuse in (False, True):
            label = "one record reused" if reuse else "as the sample writes it"
            count, results = hand_built_graph(*ours(), cubin, values, reuse)
            suite.expect(count == 6, f"{label}: cudaGraphGetNodes counted {count} nodes, expected 6")
            suite.expect(all(abs(r - want) <= 1e-9 * abs(want) for r in results),
                         f"{label}: the graph computed {results}, expected {want}")
            outcomes[label] = results
            theirs = official()
            if theirs is None:
                facts[f"cuda.bindings, {label}"] = "not installed"
                continue
            try:
                _, official_results = hand_built_graph(*theirs, cubin, values, reuse)
                facts[f"cuda.bindings, {label}"] = ("same results" if official_results == results
                                                    else f"computed {official_results}")
            except Exception as failure:  # recorded: the official module's behaviour is not ours to judge
                facts[f"cuda.bindings, {label}"] = f"{type(failure).__name__}: {failure}"
        return "pass", f"sum of {len(values)} floats {want!r} from both graphs and their clones, 3 launches each", facts

    def optional_count_functions(module):
        """Every function of `module` whose last parameter is a count that defaults to 0."""
        found = {}
        for name in dir(module):
            function = getattr(module, name)
            if isinstance(function, type) or not callable(function):
                continue
            try:
                parameters = list(inspect.signature(function).parameters.values())
            except (TypeError, ValueError):
                continue
            if parameters and parameters[-1].default == 0 and len(parameters) == 2:
                found[name] = parameters[0].name
        return found

    def small_graph(cuda):
        """A graph of three empty nodes, a -> b and a -> c: (graph, {role: node})."""
        ok = suite.ok
        graph = ok(cuda.cuGraphCreate(0), "cuGraphCreate")
        a = ok(cuda.cuGraphAddEmptyNode(graph, None, 0), "cuGraphAddEmptyNode(a)")
        b = ok(cuda.cuGraphAddEmptyNode(graph, [a], 1), "cuGraphAddEmptyNode(b)")
        c = ok(cuda.cuGraphAddEmptyNode(graph, [a], 1), "cuGraphAddEmptyNode(c)")
        return graph, {"a": a, "b": b, "c": c}

    # What each query counts on the small graph, by the word its function name ends in, and the
    # node it asks about.
    EXPECTED = {"Edges": (None, 2), "Nodes": (None, 3), "RootNodes": (None, 1),
                "Dependencies": ("b", 1), "DependentNodes": ("a", 2)}

    def query_word(name):
        """What a query counts, by its name without a version suffix (`cuGraphGetEdges_v2`)."""
        base = re.sub(r"_v\d+$", "", name)
        return next((w for w in sorted(EXPECTED, key=len, reverse=True) if base.endswith(w)), None)

    def counts_of(cuda, cudart, names):
        graph, nodes = small_graph(cuda)
        out = {}
        for module, functions in ((cuda, names["driver"]), (cudart, names["runtime"])):
            for name in sorted(functions):
                word = query_word(name)
                role, want = EXPECTED[word]
                target = graph if role is None else nodes[role]
                without = getattr(module, name)(target)
                code, count = int(without[0]), without[-1]
                if code != 0:
                    out[name] = f"without a count: error {code}"
                    continue
                with_count = getattr(module, name)(target, count)
                lists = [len(x) for x in with_count[1:-1]]
                out[name] = [int(count), int(with_count[0]), lists]
                suite.expect(count == want and lists == [want] * len(lists),
                             f"{name}: counted {count}, lists {lists}; the graph has {want}")
        suite.ok(cuda.cuGraphDestroy(graph), "cuGraphDestroy")
        return out

    def test_optional_counts_without_count():
        """every function whose count is optional, called without it and then with the count it gave"""
        facts = {}
        suite.family(facts)
        cuda, cudart = ours()
        names = {"driver": optional_count_functions(cuda), "runtime": optional_count_functions(cudart)}
        suite.expect(all(names.values()), f"no optional counts found: {names}")
        for module, functions in names.items():
            for name in functions:
                suite.expect(query_word(name) is not None, f"{module}.{name}: no case for this query")
        got = counts_of(cuda, cudart, names)
        failed = {name: outcome for name, outcome in got.items() if isinstance(outcome, str)}
        suite.expect(not failed, f"{failed}")
        theirs = official()
        if theirs is None:
            facts["cuda.bindings"] = "not installed"
        else:
            try:
                official_got = counts_of(*theirs, names)
                facts["cuda.bindings"] = "same counts" if official_got == got else f"{official_got}"
            except Exception as failure:  # recorded, not judged
                facts["cuda.bindings"] = f"{type(failure).__name__}: {failure}"
        return "pass", f"{len(got)} functions: " + ", ".join(f"{n} {v[0]}" for n, v in sorted(got.items())), facts

    return {
        "family_graph_built_by_hand": test_graph_built_by_hand,
        "family_optional_counts_without_count": test_optional_counts_without_count,
    }
