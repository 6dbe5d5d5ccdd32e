"""The conventions code written for `cuda.bindings.runtime` relies on, on both modules in one
process (both_modules.py), on CPU: what the runtime module does before any library call (records,
enums, handles, the family's classes, the record helpers), and, in runtime_cudart_cases.py, calls
into the real libcudart of the CTK (the catalogued runtime wheel, found by both modules in a
site-packages folder) on a host with no driver."""
import pytest

from conftest import CACHE, build, wheel_library
from test_behaviour import attempt

MODULE = "runtime"


def sibling_driver(r):
    import importlib
    return importlib.import_module(r.__name__.rsplit(".", 1)[0] + ".driver")


# ---- cases: each takes a runtime module --------------------------------------------------------


def case_helpers_and_members(r):
    pos = r.make_cudaPos(1, 2, 3)
    extent = r.make_cudaExtent(640, 480, 1)
    pitched = r.make_cudaPitchedPtr(0x1000, 2560, 640, 480)
    return [[pos.x, pos.y, pos.z], [extent.width, extent.height, extent.depth],
            [int(pitched.ptr), pitched.pitch, pitched.xsize, pitched.ysize], type(pitched).__name__]


def case_dim3_members_take_what_ints_take(r):
    d = r.dim3()
    out = {}
    for value in (7, 2.0, 2.5, -1, 2**32, "7", None):
        out[repr(value)] = attempt(lambda value=value: (setattr(d, "x", value), d.x)[1])
    return out


def case_enum_members(r):
    e = r.cudaError_t
    return [int(e.cudaSuccess), e.cudaErrorInvalidValue.name, int(e.cudaErrorInvalidValue),
            int(r.cudaMemcpyKind.cudaMemcpyDeviceToHost), r.cudaMemcpyKind(2).name]


def case_handles(r):
    s = r.cudaStream_t(0x1234)
    return [int(s), s.getPtr() != 0, int(r.cudaStream_t()), int(r.cudaEvent_t(5)), attempt(lambda: r.cudaStream_t(-1))]


def case_family_classes(r):
    d = sibling_driver(r)
    pairs = [("cudaStream_t", "CUstream"), ("cudaEvent_t", "CUevent"), ("cudaGraph_t", "CUgraph"),
             ("cudaGraphNode_t", "CUgraphNode"), ("cudaGraphExec_t", "CUgraphExec"), ("cudaFunction_t", "CUfunction"),
             ("cudaMemPool_t", "CUmemoryPool"), ("cudaUserObject_t", "CUuserObject")]
    return {a: issubclass(getattr(r, a), getattr(d, b)) for a, b in pairs}


def case_uuid_member(r):
    # (Writing `bytes` is a listed difference: ours takes it, 13.1.1's is read-only.)
    prop = r.cudaDeviceProp()
    prop.uuid = r.cudaUUID_t()
    return [type(prop.uuid).__name__, prop.uuid.bytes.hex(), attempt(lambda: setattr(prop, "uuid", 5))]


def case_egl_frame_plane_items(r):
    # An array member of records takes items of the struct's class and of its typedef's class
    # alike (the same C type), as the official module takes anything with getPtr().
    frame = r.cudaEglFrame()
    planes = [r.cudaEglPlaneDesc_st(), r.cudaEglPlaneDesc(), r.cudaEglPlaneDesc_st()]
    planes[0].width, planes[1].width, planes[2].pitch = 640, 320, 4096
    frame.planeDesc = planes
    frame.eglColorFormat = r.cudaEglColorFormat.cudaEglColorFormatYUV420Planar
    return [[p.width for p in frame.planeDesc], frame.planeDesc[2].pitch, int(frame.eglColorFormat)]




# ---- the tests ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def outcomes(ctk13, fake_libcuda):
    import both_modules

    official = both_modules.official_path(CACHE, ctk13)
    if official is None:
        pytest.skip(f"no official cuda-bindings release pinned for CTK {ctk13}")
    return both_modules.run("test_behaviour_runtime", build(ctk13), official, fake_libcuda)


@pytest.mark.parametrize("case", ["helpers_and_members", "dim3_members_take_what_ints_take", "enum_members",
                                  "family_classes", "uuid_member", "egl_frame_plane_items"])
def test_same_as_the_official_module(outcomes, case):
    ours, official = outcomes[case]["ours"], outcomes[case]["official"]
    assert ours == official


def test_handles_as_the_official_ones(outcomes):
    ours, official = outcomes["handles"]["ours"], outcomes["handles"]["official"]
    assert ours["value"][:4] == official["value"][:4]
    # A negative address: ours refuses it (OverflowError), as every integer path does.
    assert ours["value"][4] == {"error": "OverflowError"}, ours


@pytest.fixture(scope="module")
def cudart_outcomes(ctk13):
    import both_modules
    from test_runtime_library import catalogued_wheel

    official = both_modules.official_path(CACHE, ctk13)
    if official is None:
        pytest.skip(f"no official cuda-bindings release pinned for CTK {ctk13}")
    site, _ = wheel_library(*catalogued_wheel(ctk13), "libcudart")
    return both_modules.run("runtime_cudart_cases", build(ctk13), official, None, site=site)


@pytest.mark.parametrize("case", ["versions", "calls_without_a_driver", "error_names_and_strings", "channel_desc"])
def test_libcudart_calls_as_the_official_module(cudart_outcomes, case):
    ours, official = cudart_outcomes[case]["ours"], cudart_outcomes[case]["official"]
    assert "value" in ours, ours
    assert ours == official


def test_libcudart_answered_without_a_driver(cudart_outcomes):
    """The comparison above is of libcudart's answers, not of two not-found errors: the runtime
    version is the CTK's and the calls that need a driver say there is none."""
    (_, status), (_, version) = cudart_outcomes["versions"]["ours"]["value"][0]
    assert status == 0 and version >= 13000, cudart_outcomes["versions"]
    codes = [call[0][1] for call in cudart_outcomes["calls_without_a_driver"]["ours"]["value"]]
    # cudaErrorInsufficientDriver from each call, and as the last error (it stays: no driver).
    assert codes == [35] * 10, codes


def test_pool_attributes_typed_by_driver_types_are_taken(cudart_outcomes):
    """Issue 32's `cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, value)`: taken
    and converted (libcudart then answers that there is no driver), not refused before the call."""
    ours = cudart_outcomes["pool_attribute_values"]["ours"]["value"]
    official = cudart_outcomes["pool_attribute_values"]["official"]["value"]
    assert all(isinstance(result, list) and result[0][1] == 35 for result in ours.values()), ours
    # Where the official module takes the value, the result is the same; it refuses a plain int
    # where it wants a `cuuint64_t` object (AttributeError), which ours takes as every integer path does.
    assert {k: v for k, v in official.items() if isinstance(v, list)} == {k: ours[k] for k, v in official.items()
                                                                         if isinstance(v, list)}
    assert official["release threshold, cuuint64_t"] == ours["release threshold, cuuint64_t"]
