"""The conventions code written for `cuda.bindings.runtime` relies on, on both modules in one
process (both_modules.py), on CPU: what the runtime module does before any library call (records,
enums, handles, the family's classes, the record helpers). Calls into libcudart are not compared
here: the official module finds the real library, which a CPU host lacks; the value sweep and
test_runtime_library.py cover ours."""
import pytest

from conftest import CACHE, build
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


def case_channel_desc(r):
    err, desc = r.cudaCreateChannelDesc(8, 8, 8, 8, r.cudaChannelFormatKind.cudaChannelFormatKindUnsigned)
    return [desc.x, desc.y, desc.z, desc.w, int(desc.f)]


# cudaCreateChannelDesc calls libcudart in the official module.
OURS_ONLY = {"channel_desc": "the official module calls libcudart, which this CPU host lacks"}


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


def test_channel_desc_fills_the_record(outcomes):
    assert outcomes["channel_desc"]["ours"] == {"value": [8, 8, 8, 8, 1]}
