"""Call overhead of the generated Python module against cuda.bindings, in one process, with the
C floor (floor.c) measured in the same run. A binding's overhead is its time per call minus the
raw C time of the same call; the targets are ratios of overheads (or of times, where there is no
driver call). Both sides get the same prepared inputs: every argument is built once, outside the
timed calls, in the form each binding takes. One row ("as users often write it") builds the
lists inside the call and is reported only.

Every call is timed as `timeit` times a statement: the statement is compiled inline into
timeit's loop with its names as local variables, so the harness adds the same few
instructions per call to both bindings (and to the C-extension floor) and no Python function
call of its own. timeit turns the garbage collector off while it times, on both sides.

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
import timeit


def timed(statement, **names):
    """A timeit Timer running `statement` with `names` bound as locals of its loop."""
    setup = "; ".join(f"{name} = _names[{name!r}]" for name in names) or "pass"
    return timeit.Timer(statement, setup, globals={"_names": names})


def per_call_ns(timer, n, reps=7):
    """Median over `reps` samples of the time per call of `timer`'s statement over `n` runs."""
    return statistics.median(timer.timeit(n) * 1e9 / n for _ in range(reps))


def paired_overhead(ours, theirs, floor):
    """Median over back-to-back pairs of (ours - floor) / (theirs - floor)."""
    return statistics.median((o - floor) / (t - floor) for o, t in zip(ours, theirs))


def paired_time(ours, theirs):
    """Median over back-to-back pairs of ours / theirs."""
    return statistics.median(o / t for o, t in zip(ours, theirs))


def check(result):
    err = result[0] if isinstance(result, tuple) else result
    if int(err) != 0:
        raise RuntimeError(f"driver call failed: {err!r}")
    return result[1] if isinstance(result, tuple) and len(result) == 2 else result


class Binding:
    """One binding module, set up with a context, a buffer, the empty kernels and two maps, and
    every argument of the timed calls prepared once, outside the timed calls."""

    def __init__(self, name, module, cubin):
        self.name, self.m = name, module
        m = module
        check(m.cuInit(0))
        self.dev = check(m.cuDeviceGet(0))
        self.ctx = check(m.cuDevicePrimaryCtxRetain(self.dev))
        check(m.cuCtxSetCurrent(self.ctx))
        self.buf = check(m.cuMemAlloc(1 << 20))
        self.mod = check(m.cuModuleLoadData(cubin))
        self.two_maps = check(m.cuModuleGetFunction(self.mod, b"empty_two_maps"))
        self.scalars = check(m.cuModuleGetFunction(self.mod, b"empty_scalars"))
        T = m.CUtensorMapDataType
        self.args = (T.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, int(self.buf))
        self.tail = (
            m.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            m.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
            m.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
            m.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
        u64, u32 = m.cuuint64_t, m.cuuint32_t
        # The shape, built once: as plain ints, and as the module's own wrapper objects.
        self.int_lists = ([256, 256], [1024], [32, 32], [1, 1])
        self.wrapper_lists = ([u64(256), u64(256)], [u64(1024)], [u32(32), u32(32)], [u32(1), u32(1)])
        self.maps = (self._encoder(self.wrapper_lists)()[1], self._encoder(self.wrapper_lists)()[1])
        self.member_record = m.CUDA_KERNEL_NODE_PARAMS()
        self.forms = {}

    def _encode_names(self, lists):
        """Every argument of the encode call, as the locals its statement names."""
        dtype, rank, address = self.args
        interleave, swizzle, promotion, fill = self.tail
        dims, strides, box, steps = lists
        return dict(encode=self.m.cuTensorMapEncodeTiled, dtype=dtype, rank=rank, address=address, dims=dims,
                    strides=strides, box=box, steps=steps, interleave=interleave, swizzle=swizzle,
                    promotion=promotion, fill=fill, u64=self.m.cuuint64_t, u32=self.m.cuuint32_t)

    _ENCODE = "encode(dtype, rank, address, dims, strides, box, steps, interleave, swizzle, promotion, fill)"
    # As users often write it: the lists built inside the call, as ints where the binding takes
    # them, else as wrapper objects.
    _ENCODE_INT_LISTS = ("encode(dtype, rank, address, [256, 256], [1024], [32, 32], [1, 1], "
                         "interleave, swizzle, promotion, fill)")
    _ENCODE_WRAPPER_LISTS = ("encode(dtype, rank, address, [u64(256), u64(256)], [u64(1024)], [u32(32), u32(32)], "
                             "[u32(1), u32(1)], interleave, swizzle, promotion, fill)")

    def _encoder(self, lists):
        """The encode call, for setting up and probing (not timed)."""
        names = self._encode_names(lists)
        return lambda: eval(self._ENCODE, {}, names)

    def _launch_forms(self):
        """kernelParams in each form cuda.bindings documents, prepared once: name -> (function,
        params). A form the binding refuses is recorded in `self.forms` and left out."""
        import numpy as np
        addresses = (self.maps[0].getPtr(), self.maps[1].getPtr())
        self._array = (ctypes.c_void_p * 2)(*addresses)
        self._numpy = np.array(addresses, dtype=np.uint64)
        forms = {
            "launch_objects": (self.two_maps, (self.maps, (None, None))),
            "launch_address": (self.two_maps, ctypes.addressof(self._array)),
            "launch_buffer": (self.two_maps, self._numpy),
            "launch_ctypes": (self.scalars, ((7, 2.5, int(self.buf)), (ctypes.c_int, ctypes.c_float, ctypes.c_void_p))),
        }
        usable = {}
        for name, (function, params) in forms.items():
            try:
                check(self.m.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, 0, params, 0))
                check(self.m.cuCtxSynchronize())
                self.forms[name] = "accepted"
                usable[name] = (function, params)
            except Exception as exc:  # noqa: BLE001 - reported, the form is then not timed
                self.forms[name] = f"refused ({type(exc).__name__}: {exc})"
        return usable

    def calls(self):
        """The timed calls: name -> (timer, calls per sample). Every argument is prepared."""
        m = self.m
        plain_ints = self.plain_int_lists()
        ints_or_wrappers = self.int_lists if plain_ints else self.wrapper_lists
        in_call = self._ENCODE_INT_LISTS if plain_ints else self._ENCODE_WRAPPER_LISTS
        record, function = self.member_record, self.two_maps
        calls = {
            "encode": (timed(self._ENCODE, **self._encode_names(ints_or_wrappers)), 5000),
            "encode_wrappers": (timed(self._ENCODE, **self._encode_names(self.wrapper_lists)), 5000),
            "encode_in_call": (timed(in_call, **self._encode_names(ints_or_wrappers)), 5000),
            "get_device": (timed("get_device()", get_device=m.cuCtxGetDevice), 50000),
            "construct": (timed("make()", make=m.CUtensorMap), 50000),
            "member_scalar": (timed("record.gridDimX = 7; record.gridDimX", record=record), 50000),
            "member_handle": (timed("record.func = function; record.func", record=record, function=function), 50000),
            "get_ptr": (timed("record.getPtr()", record=record), 50000),
            "htod64": (timed("copy(buf, host, 64)", copy=m.cuMemcpyHtoD, buf=self.buf, host=bytearray(64)), 1000),
        }
        for name, (fn, params) in self._launch_forms().items():
            # 200 launches per sample keep the launch queue far from full.
            calls[name] = (timed("launch(fn, 1, 1, 1, 32, 1, 1, 0, 0, params, 0)", launch=m.cuLaunchKernel, fn=fn,
                                 params=params), 200)
        return calls

    def plain_int_lists(self):
        """Whether the encoder takes plain ints for its `cuuint*_t` lists."""
        try:
            check(self._encoder(self.int_lists)())
            return True
        except Exception:  # noqa: BLE001 - cuda.bindings wants its wrapper objects
            return False

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
    ours = Binding("ctkgen", ours_module, cubin)
    theirs = Binding(f"cuda.bindings {cuda.bindings.__version__}", theirs_module, cubin)

    callfloor = None
    if args.python_floor:
        sys.path.insert(0, args.python_floor)
        import callfloor
        callfloor.setup(int(ours.buf))

    # The host is shared and its speed drifts, so the bindings are timed in pairs, one sample of
    # each back to back, and every ratio is the median of the per-pair ratios. The C floor runs
    # in its own process between pairs; its lowest sample is used.
    ours_calls, theirs_calls = ours.calls(), theirs.calls()
    if callfloor:
        # The same empty kernel and pointer array as ours' int-address launch form.
        callfloor.set_launch(int(ours.two_maps), ctypes.addressof(ours._array))
    # Only calls both sides make in the same form are compared.
    common = [c for c in ours_calls if c in theirs_calls]
    samples = {k: {c: [] for c in common} for k in ("ours", "theirs")}
    # Lower bounds (python_floor.c): the same statements on unchecked C code with the bindings'
    # signatures, sampled beside each pair so their ratios to cuda.bindings pair up too.
    bound_calls = {}
    if callfloor:
        encode_names = ours._encode_names(ours.int_lists)
        encode_names["encode"] = callfloor.encode_bound
        records = {kind: getattr(callfloor, f"{kind.capitalize()}Record")() for kind in ("member", "getset", "direct")}
        bound_calls = {
            "encode": {"encode_bound": (timed(Binding._ENCODE, **encode_names), 5000)},
            "member_scalar": {
                f"member_{kind}_bound": (timed("record.gridDimX = 7; record.gridDimX", record=record), 50000)
                for kind, record in records.items()
            },
            "get_ptr": {
                f"get_ptr_{kind}_bound": (timed("record.getPtr()", record=record), 50000)
                for kind, record in records.items()
            },
        }
    samples["bounds"] = {name: [] for calls in bound_calls.values() for name in calls}
    floors = []
    python_floor = {"noop": [], "get_device": [], "encode": [], "launch": [], "launch_nogil": []}
    # What a member write + read costs in the interpreter alone: the same statement on an
    # attribute of a plain `__slots__` object, so no binding code runs.
    slots_floor = []
    # What the harness itself costs per call: an empty statement.
    harness = []

    class Slots:
        __slots__ = ("gridDimX",)

    member_floor = timed("plain.gridDimX = 7; plain.gridDimX", plain=Slots())
    empty = timed("pass")

    for _ in range(args.rounds):
        for call in common:
            for _ in range(5):
                for side, table in (("ours", ours_calls), ("theirs", theirs_calls)):
                    fn, n = table[call]
                    if call.startswith("launch"):
                        (ours if side == "ours" else theirs).sync()
                    samples[side][call].append(per_call_ns(fn, n, reps=1))
                for name, (fn, n) in bound_calls.get(call, {}).items():
                    samples["bounds"][name].append(per_call_ns(fn, n, reps=1))
            ours.sync()
        slots_floor.append(per_call_ns(member_floor, 50000))
        harness.append(per_call_ns(empty, 50000))
        floor = subprocess.run([args.floor, args.cubin], capture_output=True, text=True, check=True)
        floors.append(json.loads(floor.stdout))
        if callfloor:
            python_floor["noop"].append(per_call_ns(timed("noop()", noop=callfloor.noop), 50000))
            python_floor["get_device"].append(per_call_ns(timed("get_device()", get_device=callfloor.get_device), 50000))
            python_floor["encode"].append(per_call_ns(timed("encode()", encode=callfloor.encode), 5000))
            for _ in range(5):
                for key in ("launch", "launch_nogil"):
                    ours.sync()
                    python_floor[key].append(per_call_ns(timed("launch()", launch=getattr(callfloor, key)), 200, reps=1))
    c_floor = {c: min(f[c] for f in floors) for c in floors[0]}
    med = {
        "ours": {c: statistics.median(v) for c, v in samples["ours"].items()},
        "theirs": {c: statistics.median(v) for c, v in samples["theirs"].items()},
        "bounds": {c: statistics.median(v) for c, v in samples["bounds"].items()},
        "floor": c_floor,
    }
    if callfloor:
        med["python_floor"] = {c: min(v) for c, v in python_floor.items()}
    med["harness"] = min(harness)
    rounds = {"samples": samples, "floor": floors, "python_floor": python_floor, "harness": harness}

    # Every encode form makes the same driver call; every launch form launches an empty kernel.
    def floor_key(call):
        if call.startswith("encode"):
            return "encode"
        if call.startswith("launch"):
            return "launch"
        return call

    def overhead_ratio(call, floor=None):
        return paired_overhead(samples["ours"][call], samples["theirs"][call], (floor or med["floor"])[floor_key(call)])

    def time_ratio(call):
        return paired_time(samples["ours"][call], samples["theirs"][call])

    # (call, label, kind of ratio, target); a kind of None is reported only.
    table = [
        ("encode", "cuTensorMapEncodeTiled, arguments prepared (ctkgen int lists, cuda.bindings wrapper lists)", "overhead", 0.35),
        ("encode_wrappers", "cuTensorMapEncodeTiled, wrapper lists prepared on both sides", "overhead", 0.5),
        ("encode_in_call", "cuTensorMapEncodeTiled as users often write it, lists built in the call (reported only)", "overhead", None),
        ("get_device", "cuCtxGetDevice", "overhead", 0.4),
        ("construct", "CUtensorMap() construction", "time", 0.8),
        ("launch_objects", "cuLaunchKernel, (maps, (None, None))", "overhead", 0.5),
        ("launch_address", "cuLaunchKernel, int address of the pointer array", "overhead", 0.5),
        ("launch_buffer", "cuLaunchKernel, numpy array of addresses (buffer)", "overhead", 0.5),
        ("launch_ctypes", "cuLaunchKernel, (values, ctypes types)", "overhead", 0.5),
        ("member_scalar", "CUDA_KERNEL_NODE_PARAMS.gridDimX write + read", "time", 0.5),
        ("member_handle", "CUDA_KERNEL_NODE_PARAMS.func write + read", "time", 0.5),
        ("get_ptr", "CUDA_KERNEL_NODE_PARAMS.getPtr() (reported only)", "time", None),
        ("htod64", "cuMemcpyHtoD 64 B (reported only)", "overhead", None),
    ]
    # Hosts of the same kind differ in speed by up to 2x: name the processor beside the figures.
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "unknown")
    print(f"host processor: {cpu}")
    print(f"medians of {len(samples['ours']['encode'])} paired samples per call; ratios are medians of per-pair ratios;")
    print("every argument is prepared once outside the timed calls unless the row says otherwise\n")
    print(f"| call | ctkgen ns | {theirs.name} ns | C ns | ratio | target | |")
    print("|---|---|---|---|---|---|---|")
    rows = {}
    for call, label, kind, target in table:
        if call not in samples["ours"]:
            print(f"| {label} | not timed: ctkgen {ours.forms.get(call, 'n/a')}; cuda.bindings {theirs.forms.get(call, 'n/a')} | | | | | |")
            continue
        ratio = overhead_ratio(call) if kind == "overhead" else time_ratio(call)
        c = "-" if kind == "time" else f"{med['floor'][floor_key(call)]:.0f}"
        verdict = "" if target is None else ("met" if ratio <= target else "NOT met")
        rows[call] = {"ratio": ratio, "kind": kind, "target": target}
        print(f"| {label} | {med['ours'][call]:.0f} | {med['theirs'][call]:.0f} | {c} | {ratio:.2f}x ({kind}) | "
              f"{'' if target is None else f'<= {target}x'} | {verdict} |")
    print(f"\nkernelParams forms: ctkgen {ours.forms}; {theirs.name} {theirs.forms}")
    med["member_floor"] = min(slots_floor)
    print(f"\nmember write + read in the interpreter alone (a __slots__ attribute, same statement): {med['member_floor']:.0f} ns")
    print(f"harness cost per call (timeit's loop with an empty statement): {med['harness']:.1f} ns")
    if "python_floor" in med:
        pf = med["python_floor"]
        print(f"\nfloor from Python (C extension, arguments prepared in C): empty call {pf['noop']:.0f} ns, "
              f"cuCtxGetDevice {pf['get_device']:.0f} ns, cuTensorMapEncodeTiled {pf['encode']:.0f} ns")
        to_floor = med["ours"]["encode"] / pf["encode"]
        rows["encode_vs_floor"] = {"ratio": to_floor, "kind": "time", "target": 2.0}
        print(f"cuTensorMapEncodeTiled, prepared: ctkgen {med['ours']['encode']:.0f} ns is {to_floor:.2f}x the C-extension "
              f"floor (target <= 2x: {'met' if to_floor <= 2.0 else 'NOT met'})")
        # The launch floor inside this process (the same kernel, pointer array and launches per
        # sample): the C program's launches run in another process and can cost less.
        print(f"cuLaunchKernel from the C extension: {pf['launch']:.0f} ns, {pf['launch_nogil']:.0f} ns with the GIL released "
              f"as the bindings do (the C program: {med['floor']['launch']:.0f} ns)")
        released = {"launch": pf["launch_nogil"]}
        for call in ("encode", "get_device") + tuple(c for c in common if c.startswith("launch")):
            floors_of_call = [("Python floor", "_vs_python_floor", pf)]
            if call.startswith("launch"):
                floors_of_call.append(("GIL-releasing floor", "_vs_python_floor_nogil", released))
            for label, suffix, floor in floors_of_call:
                r = overhead_ratio(call, floor)
                rows[f"{call}{suffix}"] = {"ratio": r, "kind": "overhead", "target": None}
                c = floor[floor_key(call)]
                print(f"{call}: overhead over the {label}: ctkgen {med['ours'][call] - c:.0f} ns, "
                      f"cuda.bindings {med['theirs'][call] - c:.0f} ns, ratio {r:.2f}x")
    if bound_calls:
        print_bounds(bound_calls, samples, med, rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu, "medians": med, "rows": rows, "rounds": rounds, "ours_forms": ours.forms, "theirs_forms": theirs.forms},
                      f, indent=1)


def print_bounds(bound_calls, samples, med, rows):
    """What unchecked C code with the same Python signature reaches, against each target: a
    target below its bound cannot be met by a binding that checks its values."""
    print("\nlower bounds: the same statements on C code with no checks (python_floor.c), paired with cuda.bindings")
    theirs = samples["theirs"]
    overhead = paired_overhead(samples["bounds"]["encode_bound"], theirs["encode"], med["floor"]["encode"])
    to_floor = med["bounds"]["encode_bound"] / med["python_floor"]["encode"]
    rows["encode_bound"] = {"ratio": overhead, "kind": "overhead", "target": 0.35}
    rows["encode_bound_vs_floor"] = {"ratio": to_floor, "kind": "time", "target": 2.0}
    print(f"cuTensorMapEncodeTiled, int lists, result tuple with a new map: {med['bounds']['encode_bound']:.0f} ns; "
          f"overhead {overhead:.2f}x of cuda.bindings' (target for ours <= 0.35x); "
          f"{to_floor:.2f}x the C-extension floor (target for ours <= 2x); "
          f"ctkgen is {med['ours']['encode'] / med['bounds']['encode_bound']:.2f}x this bound")
    for call, label, target in (("member_scalar", "gridDimX write + read", 0.5), ("get_ptr", "getPtr()", None)):
        for name in bound_calls[call]:
            ratio = paired_time(samples["bounds"][name], theirs[call])
            rows[name] = {"ratio": ratio, "kind": "time", "target": target}
            aim = "reported only" if target is None else f"target for ours <= {target}x"
            print(f"{label}, {name.split('_')[-2]} access: {med['bounds'][name]:.0f} ns, {ratio:.2f}x cuda.bindings' time "
                  f"({aim}); ctkgen is {med['ours'][call] / med['bounds'][name]:.2f}x this bound")


if __name__ == "__main__":
    main()
