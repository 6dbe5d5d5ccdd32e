"""Import time of the whole package against the official one: each round starts one interpreter
per side, in turn, that imports every module of the list and reports the time the imports took
(inside the process) and the whole process's wall time; the floor beside them is an interpreter
that imports nothing. Prints a markdown table; writes JSON with --json.

    python3 tests/bench/import_time.py --ours DIR [--official DIR] --package cuda.bindings \
        --modules driver,runtime,nvrtc,utils [--rounds 15] [--json out.json]

DIR is put first on sys.path (`--official` empty: the installed package)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CHILD = """
import sys, time
started = time.perf_counter()
import importlib
for name in sys.argv[2].split(","):
    if name:
        importlib.import_module(sys.argv[1] + "." + name if sys.argv[1] else name)
took = time.perf_counter() - started
package = sys.modules.get(sys.argv[1])
print(took, getattr(package, "__file__", None))
"""


def run(path, package, modules):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if path:
        env["PYTHONPATH"] = path
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, package, modules], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    return float(out[0]), time.perf_counter() - started, out[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ours", required=True)
    parser.add_argument("--official", default="")
    parser.add_argument("--package", default="cuda.bindings")
    parser.add_argument("--modules", required=True)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json")
    args = parser.parse_args()
    sides = {"ours": args.ours, "official": args.official}
    samples = {side: [] for side in sides}
    samples["floor"] = []
    files = {}
    run(args.ours, args.package, args.modules)  # warm the file cache for both sides
    run(args.official, args.package, args.modules)
    for _ in range(args.rounds):
        for side, path in sides.items():
            took, wall, file = run(path, args.package, args.modules)
            samples[side].append((took, wall))
            files[side] = file
        samples["floor"].append(run("", "", "")[:2])
    if os.path.dirname(files["ours"]) == os.path.dirname(files["official"]):
        sys.exit(f"both sides imported the same package ({files['ours']}): nothing to compare")
    median = {side: (statistics.median(t for t, _ in s), statistics.median(w for _, w in s)) for side, s in samples.items()}
    ratio = median["ours"][0] / median["official"][0]
    wall_ratio = (median["ours"][1] - median["floor"][1]) / (median["official"][1] - median["floor"][1])
    print(f"Import of {args.package}.{{{args.modules}}}, {args.rounds} rounds, median ms "
          f"(python {sys.version.split()[0]})\n")
    print("| side | imports (in process) | whole process | package |")
    print("| --- | ---: | ---: | --- |")
    for side in ("ours", "official", "floor"):
        print(f"| {side} | {median[side][0] * 1e3:.1f} | {median[side][1] * 1e3:.1f} | {files.get(side, '-')} |")
    print(f"\nours / official: **{ratio:.2f}x** in process, {wall_ratio:.2f}x of the whole process above the "
          f"floor (an interpreter importing nothing)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"modules": args.modules, "rounds": args.rounds, "median_s": median, "files": files,
                       "ratio": ratio, "wall_ratio_above_floor": wall_ratio}, f, indent=1)


if __name__ == "__main__":
    main()
