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


def case_pool_attribute_values(r):
    """Pool attributes typed by the header as the driver's `cuuint64_t`: each module converts the
    value before libcudart answers (here, that there is no driver)."""
    import importlib
    d = importlib.import_module(r.__name__.rsplit(".", 1)[0] + ".driver")
    a = r.cudaMemPoolAttr
    pool = r.cudaMemPool_t(0x10)
    calls = {
        "release threshold, int": lambda: r.cudaMemPoolSetAttribute(pool, a.cudaMemPoolAttrReleaseThreshold, 2**40),
        "release threshold, cuuint64_t": lambda: r.cudaMemPoolSetAttribute(
            pool, a.cudaMemPoolAttrReleaseThreshold, d.cuuint64_t(2**40)),
        "used high, reset": lambda: r.cudaMemPoolSetAttribute(pool, a.cudaMemPoolAttrUsedMemHigh, 0),
        "follow events, int": lambda: r.cudaMemPoolSetAttribute(pool, a.cudaMemPoolReuseFollowEventDependencies, 1),
        "release threshold, get": lambda: r.cudaMemPoolGetAttribute(pool, a.cudaMemPoolAttrReleaseThreshold),
    }
    out = {}
    for label, call in calls.items():
        try:
            out[label] = parts(call())
        except Exception as error:  # noqa: BLE001 (a refusal is compared too)
            out[label] = type(error).__name__
    return out
