"""Call overhead of the generated Python module against cuda.bindings, in one process, with the
C floor (floor.c) measured in the same run. A binding's overhead is its time per call minus the
raw C time of the same call; the targets are ratios of overheads.

Usage: python3 call_overhead.py --package-dir DIR --package NAME --cubin empty.cubin --floor ./floor
Prints a Markdown table and writes the figures as JSON with --json FILE.
"""

import argparse
import ctypes
import importlib
import json
import statistics
import subprocess
import sys
import time


def per_call_ns(fn, n, reps=7):
    """Median over `reps` samples of the time per call of `fn` over `n` calls."""
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter_ns() - t0) / n)
    return statistics.median(samples)


def check(result):
    err = result[0] if isinstance(result, tuple) else result
    if int(err) != 0:
        raise RuntimeError(f"driver call failed: {err!r}")
    return result[1] if isinstance(result, tuple) and len(result) == 2 else result


class Binding:
    """One binding module, set up with a context, a buffer, the empty kernel and two maps."""

    def __init__(self, name, module, cubin, plain_ints):
        self.name, self.m, self.plain_ints = name, module, plain_ints
        m = module
        check(m.cuInit(0))
        self.dev = check(m.cuDeviceGet(0))
        self.ctx = check(m.cuDevicePrimaryCtxRetain(self.dev))
        check(m.cuCtxSetCurrent(self.ctx))
        self.buf = check(m.cuMemAlloc(1 << 20))
        self.mod = check(m.cuModuleLoadData(cubin))
        self.fn = check(m.cuModuleGetFunction(self.mod, b"empty_two_maps"))
        T = m.CUtensorMapDataType
        self.args = (T.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, int(self.buf))
        self.tail = (
            m.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            m.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
            m.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
            m.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
        self.encode = self._encoder(inline_lists=False)
        self.encode_inline = self._encoder(inline_lists=True)
        self.maps = (self.encode()[1], self.encode()[1])
        self.params = self._kernel_params()

    def _encoder(self, inline_lists):
        """The encode call as a user writes it, arguments in locals and passed positionally.

        The shape is given as plain int lists. ctkgen takes them as they are; cuda.bindings wants
        its wrapper objects, so its call builds them from the values every time, as its users
        must. With `inline_lists` ctkgen's lists are built inside the call too (reported only).
        """
        m = self.m
        encode = m.cuTensorMapEncodeTiled
        dtype, rank, address = self.args
        interleave, swizzle, promotion, fill = self.tail
        dims, strides, box, steps = [256, 256], [1024], [32, 32], [1, 1]
        if not self.plain_ints:
            u64, u32 = m.cuuint64_t, m.cuuint32_t
            return lambda: encode(dtype, rank, address, [u64(256), u64(256)], [u64(1024)], [u32(32), u32(32)],
                                  [u32(1), u32(1)], interleave, swizzle, promotion, fill)
        if inline_lists:
            return lambda: encode(dtype, rank, address, [256, 256], [1024], [32, 32], [1, 1],
                                  interleave, swizzle, promotion, fill)
        return lambda: encode(dtype, rank, address, dims, strides, box, steps, interleave, swizzle, promotion, fill)

    def _kernel_params(self):
        """Tensor maps passed as objects, the form cuda.bindings documents."""
        params = (self.maps, (None, None))
        try:
            check(self.launch_with(params))
            check(self.m.cuCtxSynchronize())
            self.params_form = "objects"
            return params
        except Exception as exc:  # noqa: BLE001 - reported, then the raw form is timed
            self.params_form = f"raw pointer array ({type(exc).__name__}: {exc})"
            self._array = (ctypes.c_void_p * 2)(self.maps[0].getPtr(), self.maps[1].getPtr())
            return ctypes.addressof(self._array)

    def launch_with(self, params):
        return self.m.cuLaunchKernel(self.fn, 1, 1, 1, 32, 1, 1, 0, 0, params, 0)

    def calls(self):
        """The timed calls: name -> (function, calls per sample)."""
        m, params, launch = self.m, self.params, self.launch_with
        host = bytearray(64)
        return {
            "encode": (self.encode, 5000),
            "encode_inline": (self.encode_inline, 5000),
            "get_device": (m.cuCtxGetDevice, 50000),
            "construct": (m.CUtensorMap, 50000),
            # 200 launches per sample keep the launch queue far from full.
            "launch": (lambda: launch(params), 200),
            "htod64": (lambda: m.cuMemcpyHtoD(self.buf, host, 64), 1000),
        }

    def sync(self):
        check(self.m.cuCtxSynchronize())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--package-dir", required=True)
    ap.add_argument("--package", default="ctkgen_cuda")
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--json")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--python-floor", help="folder holding the callfloor extension (python_floor.c)")
    args = ap.parse_args()
    sys.path.insert(0, args.package_dir)
    ours_module = importlib.import_module(f"{args.package}.driver")
    from cuda.bindings import driver as theirs_module
    import cuda.bindings

    cubin = open(args.cubin, "rb").read()
    ours = Binding("ctkgen", ours_module, cubin, plain_ints=True)
    theirs = Binding(f"cuda.bindings {cuda.bindings.__version__}", theirs_module, cubin, plain_ints=False)

    callfloor = None
    if args.python_floor:
        sys.path.insert(0, args.python_floor)
        import callfloor
        callfloor.setup(int(ours.buf))

    # The host is shared and its speed drifts, so the bindings are timed in pairs, one sample of
    # each back to back, and every ratio is the median of the per-pair ratios. The C floor runs
    # in its own process between pairs; its lowest sample is used.
    ours_calls, theirs_calls = ours.calls(), theirs.calls()
    samples = {k: {c: [] for c in ours_calls} for k in ("ours", "theirs")}
    floors = []
    python_floor = {"noop": [], "get_device": [], "encode": []}
    for _ in range(args.rounds):
        for call in ours_calls:
            for _ in range(5):
                for side, table in (("ours", ours_calls), ("theirs", theirs_calls)):
                    fn, n = table[call]
                    if call == "launch":
                        (ours if side == "ours" else theirs).sync()
                    samples[side][call].append(per_call_ns(fn, n, reps=1))
            ours.sync()
        floor = subprocess.run([args.floor, args.cubin], capture_output=True, text=True, check=True)
        floors.append(json.loads(floor.stdout))
        if callfloor:
            python_floor["noop"].append(per_call_ns(callfloor.noop, 50000))
            python_floor["get_device"].append(per_call_ns(callfloor.get_device, 50000))
            python_floor["encode"].append(per_call_ns(callfloor.encode, 5000))
    c_floor = {c: min(f[c] for f in floors) for c in floors[0]}
    med = {
        "ours": {c: statistics.median(v) for c, v in samples["ours"].items()},
        "theirs": {c: statistics.median(v) for c, v in samples["theirs"].items()},
        "floor": c_floor,
    }
    if callfloor:
        med["python_floor"] = {c: min(v) for c, v in python_floor.items()}
    rounds = {"samples": samples, "floor": floors, "python_floor": python_floor}

    # Both encode forms make the same driver call.
    floor_of = {"encode_inline": "encode"}

    def overhead_ratio(call, floor=None):
        c = (floor or med["floor"])[floor_of.get(call, call)]
        pairs = zip(samples["ours"][call], samples["theirs"][call])
        return statistics.median((o - c) / (t - c) for o, t in pairs)

    targets = {"encode": 0.25, "get_device": 0.5, "launch": 0.5}
    rows = []
    for call, label in [("encode", "cuTensorMapEncodeTiled (lists)"), ("encode_inline", "cuTensorMapEncodeTiled, list literals in the call (reported only)"), ("get_device", "cuCtxGetDevice"), ("launch", "cuLaunchKernel, 2 maps"), ("htod64", "cuMemcpyHtoD 64 B (reported only)")]:
        ratio = overhead_ratio(call)
        target = targets.get(call)
        verdict = "" if target is None else ("met" if ratio <= target else "NOT met")
        rows.append((label, med["ours"][call], med["theirs"][call], med["floor"][floor_of.get(call, call)], ratio, target, verdict))
    construct_ratio = statistics.median(o / t for o, t in zip(samples["ours"]["construct"], samples["theirs"]["construct"]))

    print(f"medians of {len(samples['ours']['encode'])} paired samples per call; ratios are medians of per-pair ratios\n")
    print(f"| call | ctkgen ns | {theirs.name} ns | C ns | overhead ratio | target | |")
    print("|---|---|---|---|---|---|---|")
    for label, o, t, c, r, target, verdict in rows:
        print(f"| {label} | {o:.0f} | {t:.0f} | {c:.0f} | {r:.2f}x | {'' if target is None else f'<= {target}x'} | {verdict} |")
    verdict = "met" if construct_ratio <= 1.0 else "NOT met"
    print(f"| CUtensorMap() construction | {med['ours']['construct']:.0f} | {med['theirs']['construct']:.0f} | - | {construct_ratio:.2f}x (time) | <= 1.0x | {verdict} |")
    print(f"\nkernelParams form: ctkgen {ours.params_form}; {theirs.name} {theirs.params_form}")
    if "python_floor" in med:
        pf = med["python_floor"]
        print(f"\nfloor from Python (C extension, arguments prepared in C): empty call {pf['noop']:.0f} ns, "
              f"cuCtxGetDevice {pf['get_device']:.0f} ns, cuTensorMapEncodeTiled {pf['encode']:.0f} ns")
        for call in ("encode", "get_device"):
            r = overhead_ratio(call, pf)
            print(f"{call}: overhead over the Python floor: ctkgen {med['ours'][call] - pf[call]:.0f} ns, "
                  f"cuda.bindings {med['theirs'][call] - pf[call]:.0f} ns, ratio {r:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"medians": med, "rounds": rounds, "ours_params": ours.params_form, "theirs_params": theirs.params_form}, f, indent=1)


if __name__ == "__main__":
    main()
