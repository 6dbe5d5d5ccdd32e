"""Call overhead of the generated runtime module against cuda.bindings.runtime, in one process,
by the method of call_overhead.py: every argument prepared once outside the timed calls, the
bindings timed in back-to-back pairs, every ratio the median of the per-pair ratios. Beside each
pair are sampled the floor (runtime_floor.c: the same call with arguments prepared in C, so only
the Python call's cost is added) and the lower bound (the same call with the bindings' Python
arguments and result tuple, no checks). Overhead = time - floor.

cuda.bindings.runtime has no cudaLaunchKernel; that row compares ours with the floor and the
bound only (the bound reads our dim3 records through their getPtr(), as C code outside the
package must, and converts the (values, ctypes types) form by type identity).

Usage: python3 runtime_overhead.py --package-dir DIR --cubin empty.cubin --floor-dir DIR [--json FILE]
"""
import argparse
import ctypes
import importlib
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from call_overhead import paired_overhead, paired_time, per_call_ns, timed  # noqa: E402


def check(result):
    err = result[0]
    if int(err) != 0:
        raise RuntimeError(f"runtime call failed: {err!r}")
    return result[1] if len(result) == 2 else result[1:]


def loaded_cudart():
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "/libcudart.so." in path:
                return path
    raise RuntimeError("no libcudart loaded")


class Side:
    """One runtime module with a stream, a device buffer, a host buffer and the empty kernel."""

    def __init__(self, name, rt, cubin):
        self.name, self.rt = name, rt
        check(rt.cudaSetDevice(0))
        check(rt.cudaFree(0))
        self.stream = check(rt.cudaStreamCreate())
        self.device = check(rt.cudaMalloc(64))
        self.host = bytearray(64)
        self.kind = rt.cudaMemcpyKind.cudaMemcpyHostToDevice
        self.library = None
        if hasattr(rt, "cudaLaunchKernel"):
            self.library = check(rt.cudaLibraryLoadData(cubin, None, None, 0, None, None, 0))
            self.kernel = check(rt.cudaLibraryGetKernel(self.library, b"empty_scalars"))
            self.grid, self.block = rt.dim3(), rt.dim3()
            self.grid.x, self.grid.y, self.grid.z = 1, 1, 1
            self.block.x, self.block.y, self.block.z = 32, 1, 1
            self.params = ((7, 2.5, int(self.device)), (ctypes.c_int, ctypes.c_float, ctypes.c_void_p))

    def calls(self):
        rt = self.rt
        out = {
            "get_device": (timed("f()", f=rt.cudaGetDevice), 50000),
            "stream_query": (timed("f(s)", f=rt.cudaStreamQuery, s=self.stream), 50000),
            "memcpy_async": (timed("f(d, h, 64, k, s)", f=rt.cudaMemcpyAsync, d=self.device, h=self.host, k=self.kind,
                                   s=self.stream), 1000),
        }
        if self.library is not None:
            out["launch"] = (timed("f(kernel, grid, block, params, 0, s)", f=rt.cudaLaunchKernel, kernel=self.kernel,
                                   grid=self.grid, block=self.block, params=self.params, s=self.stream), 200)
        return out

    def sync(self):
        check(self.rt.cudaStreamSynchronize(self.stream))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--package-dir", required=True)
    ap.add_argument("--package", default="ctkgen_cuda")
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--floor-dir", required=True, help="folder holding the rtfloor extension (runtime_floor.c)")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--json")
    args = ap.parse_args()
    sys.path.insert(0, args.package_dir)
    ours_rt = importlib.import_module(f"{args.package}.runtime")
    from cuda.bindings import runtime as theirs_rt
    import cuda.bindings

    cubin = open(args.cubin, "rb").read()
    ours = Side("ctkgen", ours_rt, cubin)
    theirs = Side(f"cuda.bindings {cuda.bindings.__version__}", theirs_rt, cubin)
    sys.path.insert(0, args.floor_dir)
    import rtfloor
    # The launch floor's pointer array: the same three values as ours' (values, types) form.
    values = (ctypes.c_int(7), ctypes.c_float(2.5), ctypes.c_void_p(int(ours.device)))
    pointers = (ctypes.c_void_p * 3)(*[ctypes.addressof(v) for v in values])
    rtfloor.setup(loaded_cudart(), ours_rt.cudaError_t.cudaSuccess, int(ours.stream), int(ours.device),
                  ctypes.addressof((ctypes.c_char * 64).from_buffer(ours.host)), 64, int(ours.kernel),
                  ctypes.addressof(pointers))

    floors = {"get_device": timed("f()", f=rtfloor.get_device), "stream_query": timed("f()", f=rtfloor.stream_query),
              "memcpy_async": timed("f()", f=rtfloor.memcpy_async), "launch": timed("f()", f=rtfloor.launch)}
    bounds = {
        "get_device": timed("f()", f=rtfloor.get_device_bound),
        "stream_query": timed("f(s)", f=rtfloor.stream_query_bound, s=ours.stream),
        # The objects ours is given: the device address, the enum member, the stream handle.
        "memcpy_async": timed("f(d, h, 64, k, s)", f=rtfloor.memcpy_async_bound, d=ours.device, h=ours.host,
                              k=ours.kind, s=ours.stream),
        # Our dim3 records, read through their getPtr() as C code outside the package must.
        "launch": timed("f(kernel, grid, block, params, 0, s)", f=rtfloor.launch_bound, kernel=ours.kernel,
                        grid=ours.grid, block=ours.block, params=ours.params, s=ours.stream),
    }
    ours_calls, theirs_calls = ours.calls(), theirs.calls()
    names = list(ours_calls)
    samples = {side: {c: [] for c in names} for side in ("ours", "theirs", "floor", "bound")}
    for _ in range(args.rounds):
        for call in names:
            n = ours_calls[call][1]
            for _ in range(5):
                for side, table, owner in (("ours", ours_calls, ours), ("theirs", theirs_calls, theirs)):
                    if call in table:
                        owner.sync()
                        samples[side][call].append(per_call_ns(table[call][0], n, reps=1))
                ours.sync()
                samples["floor"][call].append(per_call_ns(floors[call], n, reps=1))
                if call in bounds:
                    ours.sync()
                    samples["bound"][call].append(per_call_ns(bounds[call], n, reps=1))
            ours.sync()
            theirs.sync()

    med = {side: {c: statistics.median(v) for c, v in table.items() if v} for side, table in samples.items()}
    labels = {"get_device": "cudaGetDevice()", "stream_query": "cudaStreamQuery(stream)",
              "memcpy_async": "cudaMemcpyAsync 64 B host to device, on a stream",
              "launch": "cudaLaunchKernel, empty kernel, (values, ctypes types)"}
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "unknown")
    print(f"host processor: {cpu}; {len(samples['ours']['get_device'])} paired samples per call; floor: the call "
          "with C arguments from a C extension; bound: the bindings' Python arguments and result, unchecked\n")
    print(f"| call | ctkgen ns | {theirs.name} ns | bound ns | floor ns | overhead ratio to cuda.bindings | bound's ratio "
          "| ctkgen / bound (time) |")
    print("|---|---|---|---|---|---|---|---|")
    rows = {}
    for call in names:
        floor = min(samples["floor"][call])
        row = {"ours_ns": med["ours"][call], "floor_ns": floor}
        theirs_ns = med["theirs"].get(call)
        ratio = paired_overhead(samples["ours"][call], samples["theirs"][call], floor) if theirs_ns else None
        bound_ratio = (paired_overhead(samples["bound"][call], samples["theirs"][call], floor)
                       if theirs_ns and call in bounds else None)
        to_bound = paired_time(samples["ours"][call], samples["bound"][call]) if call in bounds else None
        row.update(theirs_ns=theirs_ns, overhead_ratio=ratio, bound_overhead_ratio=bound_ratio, ours_over_bound=to_bound,
                   bound_ns=med["bound"].get(call))
        rows[call] = row

        def fmt(value, spec=".0f", suffix=""):
            return "-" if value is None else f"{value:{spec}}{suffix}"

        print(f"| {labels[call]} | {med['ours'][call]:.0f} | {fmt(theirs_ns)} | {fmt(med['bound'].get(call))} | "
              f"{floor:.0f} | {fmt(ratio, '.2f', 'x')} | {fmt(bound_ratio, '.2f', 'x')} | {fmt(to_bound, '.2f', 'x')} |")
    if "launch" in names:
        print(f"\ncudaLaunchKernel: ctkgen's overhead over the C-argument launch: {med['ours']['launch'] - min(samples['floor']['launch']):.0f} ns "
              "(cuda.bindings.runtime has no cudaLaunchKernel)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu, "rows": rows, "samples": samples}, f, indent=1)


if __name__ == "__main__":
    main()
