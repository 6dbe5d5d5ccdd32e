"""Call-overhead figures on a machine with a GPU: CTKGEN_BENCH_PATH=<built python dir> python bench_driver.py.
Not collected by pytest (no test_ prefix)."""
import sys, time, os
sys.path.insert(0, os.environ.get("CTKGEN_BENCH_PATH", "."))
import ctkgen_cuda.driver as cuda
def t(label, fn, n=200000):
    fn()
    s = time.perf_counter_ns()
    for _ in range(n): fn()
    print(f"{label}: {(time.perf_counter_ns()-s)/n:.0f} ns/call")
print(cuda.cuInit(0))
err, dev = cuda.cuDeviceGet(0); print(err, dev)
err, ctx = cuda.cuDevicePrimaryCtxRetain(dev); print(err)
print(cuda.cuCtxSetCurrent(ctx))
t("CUtensorMap()", cuda.CUtensorMap)
t("cuCtxGetDevice", cuda.cuCtxGetDevice)
err, ptr = cuda.cuMemAlloc(1 << 20); print(err)
addr = int(ptr)
args = (cuda.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, addr, [256, 256], [1024], [32, 32], [1, 1],
        cuda.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, cuda.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
        cuda.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE, cuda.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
r = cuda.cuTensorMapEncodeTiled(*args); print(r[0], r[1].getPtr() % cuda.CUtensorMap._ctkgen_align)
t("cuTensorMapEncodeTiled(lists)", lambda: cuda.cuTensorMapEncodeTiled(*args), 100000)
