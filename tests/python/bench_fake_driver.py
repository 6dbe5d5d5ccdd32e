"""Python-side call overhead without a GPU: the generated package is pointed (CTKGEN_LIBCUDA) at
a fake libcuda whose entry points do nothing and return CUDA_SUCCESS, so what is timed is the
binding alone. Not a test (no test_ prefix) and nothing in it asserts a time.

    tests/python/bench_fake_driver.py [--ctk 13.1] [--path BUILT_PYTHON_DIR]

Without --path it generates and builds the package at -O2 (cached like the test builds).
Figures are the best of several rounds, in ns per call, loop included."""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

TIMING = r'''
import time
import ctkgen_cuda.driver as cuda

def best(fn, n, rounds=7):
    fn()
    times = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        for _ in range(n):
            fn()
        times.append((time.perf_counter_ns() - start) / n)
    return min(times)

assert cuda.cuInit(0)[0] == cuda.CUresult.CUDA_SUCCESS
t1, t2 = cuda.CUtensorMap(), cuda.CUtensorMap()
fn = cuda.CUfunction(0)
stream = cuda.CUstream(0)
objects = [t1, t2]
addresses = [t1.getPtr(), t2.getPtr()]
encode = (cuda.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, 1 << 20, [256, 256], [1024], [32, 32], [1, 1],
          cuda.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, cuda.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
          cuda.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
          cuda.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
cases = [
    ("CUtensorMap()", cuda.CUtensorMap, 300000),
    ("cuCtxGetDevice()", cuda.cuCtxGetDevice, 300000),
    ("cuLaunchKernel(2 tensor-map objects)", lambda: cuda.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, objects, 0), 200000),
    ("cuLaunchKernel(2 addresses)", lambda: cuda.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, addresses, 0), 200000),
    ("cuTensorMapEncodeTiled(lists)", lambda: cuda.cuTensorMapEncodeTiled(*encode), 200000),
]
for label, fn_, n in cases:
    print(f"{label:40s} {best(fn_, n):7.0f} ns")
'''


def fake_driver(directory):
    """Compiles the fake libcuda.so.1 into `directory`; returns its path."""
    out = os.path.join(directory, "libcuda.so.1")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", out, os.path.join(HERE, "fake_driver", "fake_libcuda.c")], check=True)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ctk", default="13.1")
    parser.add_argument("--path", help="an already built package directory (the one holding ctkgen_cuda/)")
    args = parser.parse_args()
    path = args.path
    if path is None:
        sys.path.insert(0, HERE)
        from conftest import build
        path = build(args.ctk, cflags="-O2")
    with tempfile.TemporaryDirectory() as scratch:
        library = fake_driver(scratch)
        # LD_LIBRARY_PATH as well, for builds whose loader predates CTKGEN_LIBCUDA.
        env = dict(os.environ, PYTHONPATH=path, CTKGEN_LIBCUDA=library, LD_LIBRARY_PATH=scratch)
        subprocess.run([sys.executable, "-c", TIMING], env=env, check=True)


if __name__ == "__main__":
    main()
