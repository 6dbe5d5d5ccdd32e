"""Calls through the generated functions against a fake libcuda (fake_driver/fake_libcuda.c),
under the UBSan build: outputs, in/out counts with output arrays, output strings, lists of
records, kernel parameters, and wrapper objects for typedef'd members."""
import json
import os
import subprocess

import pytest

from conftest import python

HERE = os.path.dirname(os.path.abspath(__file__))

PROBE = r'''
import json
import ctkgen_cuda.driver as cuda
ok = cuda.CUresult.CUDA_SUCCESS
out = {}
out["init"] = cuda.cuInit(0)[0] is ok
err, dev = cuda.cuCtxGetDevice()
out["device"] = [err is ok, type(dev).__name__, int(dev)]
text = cuda.cuGetErrorString(cuda.CUresult.CUDA_ERROR_INVALID_VALUE)[1]
out["error_string"] = [type(text).__name__, text.decode()]
graph = cuda.CUgraph(0x1234)
err, nodes, count = cuda.cuGraphGetNodes(graph, 0)
out["count_only"] = [err is ok, nodes, count]
err, nodes, count = cuda.cuGraphGetNodes(graph, 5)
out["nodes"] = [[type(n).__name__ for n in nodes], [int(n) for n in nodes], count]
bus_id = cuda.cuDeviceGetPCIBusId(16, dev)[1]
out["pci"] = [type(bus_id).__name__, bus_id.decode()]
records = []
for i in range(3):
    p = cuda.CUDA_LAUNCH_PARAMS()
    p.gridDimX = i + 1
    records.append(p)
out["record_list"] = [cuda.cuLaunchCooperativeKernelMultiDevice(records, 3, 0)[0] is ok,
                      cuda.cuLaunchCooperativeKernelMultiDevice(records[::-1], 3, 0)[0] is ok]
try:
    cuda.cuLaunchCooperativeKernelMultiDevice([records[0], 5], 2, 0)
except TypeError as error:
    out["record_list_type_error"] = str(error)
maps = [cuda.CUtensorMap(), cuda.CUtensorMap()]
out["launch"] = [cuda.cuLaunchKernel(cuda.CUfunction(0), 1, 1, 1, 32, 1, 1, 0, cuda.CUstream(0), maps, 0)[0] is ok,
                 cuda.cuLaunchKernel(cuda.CUfunction(0), 1, 1, 1, 32, 1, 1, 0, None, [m.getPtr() for m in maps], None)[0] is ok]
copy = cuda.CUDA_MEMCPY2D()
copy.srcDevice = cuda.CUdeviceptr(0x5000)
copy.dstDevice = 0x6000
out["member"] = [type(copy.srcDevice).__name__, int(copy.srcDevice), int(copy.dstDevice)]
print(json.dumps(out))
'''


@pytest.fixture(scope="session")
def fake_libcuda(tmp_path_factory):
    target = str(tmp_path_factory.mktemp("fake-driver") / "libcuda.so.1")
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", target, os.path.join(HERE, "fake_driver", "fake_libcuda.c")],
                   check=True)
    return target


def test_calls_through_a_fake_driver(package, fake_libcuda):
    ctk, path = package
    result = python(path, PROBE, {"CTKGEN_LIBCUDA": fake_libcuda})
    assert result.returncode == 0, result.stderr[-4000:]
    assert "runtime error" not in result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["init"] is True
    assert out["device"] == [True, "CUdevice", 7]
    assert out["error_string"] == ["bytes", "fake error"]
    assert out["count_only"] == [True, [], 3]
    assert out["nodes"] == [["CUgraphNode"] * 3, [0x10, 0x20, 0x30], 3]
    assert out["pci"] == ["bytes", "0000:65:00.0"]
    assert out["record_list"] == [True, False]
    assert "CUDA_LAUNCH_PARAMS" in out["record_list_type_error"]
    assert out["launch"] == [True, True]
    assert out["member"] == ["CUdeviceptr", 0x5000, 0x6000]
