"""Runtime calls into the real libcudart of the CTK (from the runtime wheel the catalogue pins)
on a host with no driver, on the generated `runtime` module and on the official
`cuda.bindings.runtime` in one process (both_modules.py, no driver reachable): what libcudart
answers without a driver, the error codes and result tuples it comes back with, and the calls
that need no driver at all. Each result is given as its parts' values and type names, so a
different tuple shape or a member where the other has an int shows."""

MODULE = "runtime"


def parts(result):
    """[type name, value] of each part of a result tuple (bytes as text, records by repr)."""
    def value(v):
        if v is None or isinstance(v, int):
            return None if v is None else int(v)
        return v.decode() if isinstance(v, bytes) else repr(v)
    return [[type(v).__name__, value(v)] for v in result]


def case_versions(r):
    return [parts(r.cudaRuntimeGetVersion()), parts(r.cudaDriverGetVersion())]


def case_calls_without_a_driver(r):
    calls = [r.cudaGetDeviceCount, r.cudaGetDevice, lambda: r.cudaMalloc(64), r.cudaStreamCreate,
             r.cudaEventCreate, lambda: r.cudaSetDevice(0), r.cudaDeviceSynchronize, r.cudaPeekAtLastError,
             r.cudaGetLastError, r.cudaGetLastError]
    return [parts(call()) for call in calls]


def case_error_names_and_strings(r):
    e = r.cudaError_t
    codes = [e.cudaSuccess, e.cudaErrorInvalidValue, e.cudaErrorInsufficientDriver, e.cudaErrorNoDevice]
    return [[parts(r.cudaGetErrorName(c)), parts(r.cudaGetErrorString(c))] for c in codes]


def case_channel_desc(r):
    err, desc = r.cudaCreateChannelDesc(8, 16, 0, 0, r.cudaChannelFormatKind.cudaChannelFormatKindFloat)
    return [int(err), type(desc).__name__, desc.x, desc.y, desc.z, desc.w, int(desc.f)]
