"""Fatbinaries packed by the package's `nvfatbin` module and run by its driver module, with the
official cuda.bindings installed beside it packing the same inputs in the same process: tests for
tma_suite.py, which adds them with `tests(suite)` (the suite module gives the driver under test
and its helpers)."""
import hashlib
import importlib

import numpy as np

# The first four bytes of a fatbinary (its magic, 0xba55ed50, little-endian).
FATBIN_MAGIC = bytes.fromhex("50ed55ba")


def saxpy_ptx(suite, nvrtc, arch):
    """SAXPY compiled by `nvrtc` to PTX for compute_`arch`."""
    err, prog = nvrtc.nvrtcCreateProgram(suite.SAXPY, b"saxpy.cu", 0, [], [])
    suite.expect(int(err) == 0, f"nvrtcCreateProgram: {err}")
    options = [f"--gpu-architecture=compute_{arch}".encode()]
    suite.expect(int(nvrtc.nvrtcCompileProgram(prog, len(options), options)[0]) == 0, "nvrtcCompileProgram")
    err, size = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * size
    suite.expect(int(nvrtc.nvrtcGetPTX(prog, ptx)[0]) == 0, "nvrtcGetPTX")
    nvrtc.nvrtcDestroyProgram(prog)
    return ptx


def packed(fatbin, arch, cubin=None, ptx=None):
    """The fatbinary `fatbin` (an nvfatbin module) makes of a cubin and/or PTX of SAXPY."""
    handle = fatbin.create([], 0)
    try:
        if cubin is not None:
            fatbin.add_cubin(handle, cubin, len(cubin), arch, "saxpy")
        if ptx is not None:
            fatbin.add_ptx(handle, ptx, len(ptx), arch, "saxpy", "")
        out = bytearray(fatbin.size(handle))
        fatbin.get(handle, out)
        return bytes(out)
    finally:
        fatbin.destroy(handle)


def tests(suite):
    """The tests, by name, bound to `suite` (tma_suite as it runs)."""

    def test_nvfatbin_cubin_and_ptx_load_and_run():
        """a fatbinary packed by the nvfatbin module from a cubin and the PTX of one kernel loads with cuModuleLoadData and runs; the same bytes as cuda.bindings'"""
        facts = {}
        _, nvrtc = suite.family(facts)
        fatbin = suite.sibling("nvfatbin")
        suite.loaded(fatbin, lambda: fatbin.version(), "CTKGEN_LIBNVFATBIN", "libnvfatbin", facts)
        facts["nvfatbin_version"] = list(fatbin.version())
        device = suite.ok(suite.driver.cuDeviceGet(0), "cuDeviceGet")
        cc = [suite.ok(suite.driver.cuDeviceGetAttribute(suite.enum(
            "CUdevice_attribute", f"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_{p}"), device), p) for p in ("MAJOR", "MINOR")]
        arch = f"{cc[0]}{cc[1]}"
        cubin, _ = suite.compile_cubin(nvrtc, arch)
        ptx = saxpy_ptx(suite, nvrtc, arch)
        images = {"cubin and PTX": packed(fatbin, arch, cubin, ptx), "PTX alone": packed(fatbin, arch, ptx=ptx)}
        for label, image in images.items():
            suite.expect(image[:4] == FATBIN_MAGIC, f"{label}: not a fatbinary ({image[:8].hex()})")
            got, want = suite.saxpy_with(suite.driver, image)
            suite.expect(np.array_equal(got, want), f"{label}: SAXPY from the fatbinary: {got[:4]} ..., expected {want[:4]} ...")
        facts["fatbin_bytes"] = {label: len(image) for label, image in images.items()}
        facts["sha256"] = {label: hashlib.sha256(image).hexdigest() for label, image in images.items()}
        try:
            official = importlib.import_module("cuda.bindings.nvfatbin")
        except ImportError as absent:
            facts["cuda.bindings"] = f"no nvfatbin module ({absent})"
            return "pass", f"sm_{arch}: {facts['fatbin_bytes']} bytes, SAXPY exact from each; cuda.bindings: {facts['cuda.bindings']}", facts
        try:
            theirs = {"cubin and PTX": packed(official, arch, cubin, ptx), "PTX alone": packed(official, arch, ptx=ptx)}
        except Exception as failure:  # recorded: the official module's setup is not ours to judge
            facts["cuda.bindings"] = f"could not pack: {type(failure).__name__}: {failure}"
        else:
            same = all(theirs[label] == images[label] for label in images)
            facts["cuda.bindings"] = "same bytes" if same else {k: hashlib.sha256(v).hexdigest() for k, v in theirs.items()}
            suite.expect(same, f"cuda.bindings.nvfatbin packed other bytes: {facts['cuda.bindings']}")
            got, _ = suite.saxpy_with(suite.official_driver(), images["cubin and PTX"])
            suite.expect(np.array_equal(got, suite.saxpy_with(suite.driver, images["cubin and PTX"])[0]),
                         "cuda.bindings ran the fatbinary to another result")
        return "pass", (f"sm_{arch}: fatbinaries of {facts['fatbin_bytes']} bytes (nvFatbin "
                        f"{facts['nvfatbin_version'][0]}.{facts['nvfatbin_version'][1]}), SAXPY exact from each; "
                        f"cuda.bindings: {facts['cuda.bindings'] if isinstance(facts['cuda.bindings'], str) else 'differs'}"), facts

    return {"nvfatbin_cubin_and_ptx_load_and_run": test_nvfatbin_cubin_and_ptx_load_and_run}
