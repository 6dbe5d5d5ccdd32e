"""NVRTC calls run on the generated `nvrtc` module and on the official `cuda.bindings.nvrtc` of the
same CTK major.minor, in one process, against the real NVRTC library of that CTK (from its wheel;
no GPU is needed to compile). Run as a script by test_nvrtc.py with both on sys.path and the
library's folder on LD_LIBRARY_PATH; prints one JSON line `{case: {"ours": ..., "official": ...}}`
(outcomes as in both_modules.py)."""
import json
import sys

KERNEL = b"""
#include "scale.h"
template <typename T> __global__ void scale(T *data, T factor) { data[threadIdx.x] *= factor * SCALE_BIAS; }
extern "C" __global__ void add(float *a, float b) { a[threadIdx.x] += b; }
"""
HEADER = b"#define SCALE_BIAS 2\n"
ARCH = b"--gpu-architecture=compute_90"


def compiled(n, options=(ARCH,), source=KERNEL, headers=(HEADER,), names=(b"scale.h",)):
    err, prog = n.nvrtcCreateProgram(source, b"cases.cu", len(headers), list(headers), list(names))
    assert int(err) == 0, err
    err, = n.nvrtcCompileProgram(prog, len(options), list(options))
    return prog, int(err)


def log_of(n, prog):
    err, size = n.nvrtcGetProgramLogSize(prog)
    log = b" " * size
    return int(err), int(n.nvrtcGetProgramLog(prog, log)[0]), log


def case_version(n):
    err, major, minor = n.nvrtcVersion()
    return [int(err), major, minor]


def case_supported_archs(n):
    err, count = n.nvrtcGetNumSupportedArchs()
    err2, archs = n.nvrtcGetSupportedArchs()
    return [int(err), count, int(err2), list(archs)]


def case_error_strings(n):
    return [[int(e), n.nvrtcGetErrorString(e)[1], int(n.nvrtcGetErrorString(e)[0])] for e in n.nvrtcResult]


def case_compile_ptx(n):
    prog, status = compiled(n)
    err, size = n.nvrtcGetPTXSize(prog)
    ptx = b" " * size
    got = n.nvrtcGetPTX(prog, ptx)
    n.nvrtcDestroyProgram(prog)
    return [status, int(err), size, int(got[0]), ptx.decode()]


def case_compile_cubin_size(n):
    prog, status = compiled(n, options=(b"--gpu-architecture=sm_90",))
    err, size = n.nvrtcGetCUBINSize(prog)
    cubin = b" " * size
    got = n.nvrtcGetCUBIN(prog, cubin)
    n.nvrtcDestroyProgram(prog)
    return [status, int(err), size > 0, int(got[0]), cubin[:4].hex()]


def case_compile_error_and_log(n):
    prog, status = compiled(n, source=b"__global__ void broken( { }")
    err, got, log = log_of(n, prog)
    n.nvrtcDestroyProgram(prog)
    return [status, err, got, b"error" in log, log.endswith(b"\0")]


def case_invalid_option(n):
    prog, status = compiled(n, options=(b"--no-such-option",))
    n.nvrtcDestroyProgram(prog)
    return status


def case_name_expressions(n):
    err, prog = n.nvrtcCreateProgram(KERNEL, b"cases.cu", 1, [HEADER], [b"scale.h"])
    added = [int(n.nvrtcAddNameExpression(prog, e)[0]) for e in (b"scale<float>", b"scale<int>")]
    before = n.nvrtcGetLoweredName(prog, b"scale<float>")
    status = int(n.nvrtcCompileProgram(prog, 1, [ARCH])[0])
    lowered = [n.nvrtcGetLoweredName(prog, e) for e in (b"scale<float>", b"scale<int>")]
    n.nvrtcDestroyProgram(prog)
    return [added, int(before[0]), before[1], status, [[int(e), name] for e, name in lowered]]


def case_destroy_resets_the_handle(n):
    prog, _ = compiled(n)
    before = int(prog) != 0
    err = n.nvrtcDestroyProgram(prog)
    return [before, int(err[0]), int(prog)]


def case_too_few_headers(n):
    # numHeaders 2 with one header: refused before the library could read past the list.
    return n.nvrtcCreateProgram(KERNEL, b"cases.cu", 2, [HEADER], [b"scale.h"])


def case_too_few_options(n):
    prog, _ = compiled(n)
    try:
        return n.nvrtcCompileProgram(prog, 3, [ARCH])
    finally:
        n.nvrtcDestroyProgram(prog)


def case_no_headers_as_none(n):
    err, prog = n.nvrtcCreateProgram(b'extern "C" __global__ void k() {}', b"k.cu", 0, None, None)
    status = int(n.nvrtcCompileProgram(prog, 0, None)[0])
    n.nvrtcDestroyProgram(prog)
    return [int(err), status]


def case_options_as_tuple(n):
    prog, status = compiled(n, options=(ARCH, b"-default-device"))
    n.nvrtcDestroyProgram(prog)
    return status


def case_pch_heap_size(n):
    err, size = n.nvrtcGetPCHHeapSize()
    return [int(err), size > 0]


def jsonable(value):
    if isinstance(value, bytes):
        return {"bytes": value.decode("latin-1")}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "getPtr"):
        return {"object": type(value).__name__}
    if isinstance(value, int):
        return int(value)
    return value


def main():
    sys.path.insert(0, sys.argv[1])
    import ctkgen_cuda.nvrtc as ours
    from cuda.bindings import nvrtc as official

    import both_modules

    out = {}
    for name in sorted(n for n in globals() if n.startswith("case_")):
        case = globals()[name]
        out[name[len("case_"):]] = {
            label: {k: jsonable(v) for k, v in both_modules.outcome(case, module).items()}
            for module, label in ((ours, "ours"), (official, "official"))
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
