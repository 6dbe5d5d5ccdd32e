"""Where the import of a package's modules goes: per module, the median over fresh interpreters of
its own time under `-X importtime` (an extension module: dlopen and its init; a Python module:
running its body, class creation included), grouped by kind, against two floors measured beside
it: an interpreter that imports nothing, and one that only dlopens the same shared objects
(ctypes, RTLD_LOCAL, no init), timed inside the process. Prints markdown; --json writes the data.

    python3 tests/bench/import_breakdown.py --path DIR --package cuda.bindings \
        --modules driver,runtime,nvrtc [--rounds 15] [--json out.json]

DIR goes first on sys.path (empty: the installed package). Bytecode is written by a first run, so
the rounds time what an installed package does."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

IMPORTS = """
import importlib, sys, time
started = time.perf_counter()
for name in sys.argv[2].split(","):
    importlib.import_module(sys.argv[1] + "." + name)
took = time.perf_counter() - started
print(took)
for name, module in sorted(sys.modules.items()):
    print(name, getattr(module, "__file__", None) or "-")
"""

DLOPENS = """
import ctypes, sys, time
files = sys.argv[1:]
started = time.perf_counter()
for path in files:
    ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
print(time.perf_counter() - started)
"""

LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def env_with(path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    if path:
        env["PYTHONPATH"] = path
    return env


def one_import(path, package, modules):
    """(in-process seconds, {module: own microseconds}, {module: file}, whole-process seconds)."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", IMPORTS, package, modules],
                            env=env_with(path), capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    own = {}
    for line in result.stderr.splitlines():
        match = LINE.match(line)
        if match:
            own[match.group(4)] = own.get(match.group(4), 0) + int(match.group(1))
    lines = result.stdout.splitlines()
    files = dict(line.split(" ", 1) for line in lines[1:])
    return float(lines[0]), own, files, wall


def one_floor():
    """(seconds, the modules an interpreter has loaded before it runs anything)."""
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", "import sys; print(' '.join(sys.modules))"], env=env_with(""),
                         capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - started, set(out.split())


def one_dlopen(files):
    out = subprocess.run([sys.executable, "-c", DLOPENS, *files], env=env_with(""), capture_output=True, text=True,
                         check=True).stdout
    return float(out)


def kind_of(name, file, package, at_start_up=frozenset()):
    if name in at_start_up:
        return "interpreter start-up (in the floor, before the imports)"
    if not (name == package or name.startswith(package + ".")):
        return "outside the package: the standard library and dependencies it imports"
    if file.endswith(".so"):
        return "extension modules: dlopen + init"
    return "Python modules: their bodies (enum classes, re-exports)"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--path", default="")
    parser.add_argument("--package", default="cuda.bindings")
    parser.add_argument("--modules", required=True)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--json")
    args = parser.parse_args()
    _, _, files, _ = one_import(args.path, args.package, args.modules)  # writes bytecode, warms the cache
    shared = sorted(f for n, f in files.items() if f.endswith(".so") and (n == args.package or n.startswith(args.package + ".")))
    samples = {"in_process": [], "wall": [], "floor": [], "dlopen": []}
    own = {}
    for _ in range(args.rounds):
        took, times, _, wall = one_import(args.path, args.package, args.modules)
        samples["in_process"].append(took)
        samples["wall"].append(wall)
        for name, us in times.items():
            own.setdefault(name, []).append(us)
        floor, at_start_up = one_floor()
        samples["floor"].append(floor)
        samples["dlopen"].append(one_dlopen(shared))
    median = {k: statistics.median(v) for k, v in samples.items()}
    # A module seen in only some rounds counts 0 in the others.
    own_median = {name: statistics.median(v + [0] * (args.rounds - len(v))) / 1e3 for name, v in own.items()}
    kinds = {}
    for name, ms in own_median.items():
        kind = kind_of(name, files.get(name, "-"), args.package, at_start_up)
        kinds[kind] = kinds.get(kind, 0.0) + ms
    print(f"Import of {args.package}.{{{args.modules}}} from {args.path or 'the installed package'}: "
          f"{args.rounds} fresh interpreters, medians (python {sys.version.split()[0]})\n")
    print("| what | ms |")
    print("| --- | ---: |")
    print(f"| the imports, timed inside the process | {median['in_process'] * 1e3:.1f} |")
    start_up = kinds.pop(kind_of("", "", args.package, {""}), 0.0)
    for kind, ms in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"| of which {kind} (own times under -X importtime) | {ms:.1f} |")
    print(f"| floor: dlopen of the same {len(shared)} shared objects alone, inside the process | {median['dlopen'] * 1e3:.1f} |")
    print(f"| whole process | {median['wall'] * 1e3:.1f} |")
    print(f"| floor: an interpreter that imports nothing | {median['floor'] * 1e3:.1f} |")
    print(f"| of which the modules it loads at start-up (own times under -X importtime) | {start_up:.1f} |")
    print(f"\nThe {args.top} largest own times after start-up:\n")
    print("| module | kind | ms |")
    print("| --- | --- | ---: |")
    for name, ms in sorted(((n, ms) for n, ms in own_median.items() if n not in at_start_up), key=lambda kv: -kv[1])[:args.top]:
        print(f"| {name} | {kind_of(name, files.get(name, '-'), args.package, at_start_up).split(':')[0]} | {ms:.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"modules": args.modules, "rounds": args.rounds, "median_s": median, "kinds_ms": kinds,
                       "start_up_ms": start_up,
                       "own_ms": own_median, "shared_objects": shared}, f, indent=1)


if __name__ == "__main__":
    main()
