"""Runs every test of tma_suite.py against one built package, each in its own process.

    python3 run_suite.py --package-dir build/13.1 --cubin kernels-13.1.cubin --map-align 128 \
        --label 13.1 --json results-13.1.json

A process per test keeps the before-cuInit test honest and confines a crash (a signal, a hang
past --timeout) to the test that caused it, which is then reported as a failure.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "tma_suite.py")


def run(args, extra, timeout):
    search_path = os.pathsep.join(p for p in (args.package_dir, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONPATH=search_path, PYTHONUNBUFFERED="1")
    command = [sys.executable, SUITE, "--cubin", args.cubin, "--map-align", str(args.map_align)] + extra
    try:
        finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s", ""
    lines = [line for line in finished.stdout.splitlines() if line.startswith("RESULT ")]
    log = finished.stdout + finished.stderr
    if not lines:
        return None, f"no result (exit status {finished.returncode}): {log.strip()[-300:]}", log
    return json.loads(lines[-1][len("RESULT "):]), None, log


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package-dir", required=True)
    parser.add_argument("--cubin", required=True)
    parser.add_argument("--map-align", type=int, required=True)
    parser.add_argument("--label", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--log")
    parser.add_argument("--jobs", type=int, default=6)
    parser.add_argument("--timeout", type=int, default=120)
    args = parser.parse_args()

    names = subprocess.run([sys.executable, SUITE, "--list"], capture_output=True, text=True,
                           check=True).stdout.split()
    probe, probe_problem, probe_log = run(args, ["--probe"], args.timeout)
    logs = [f"== probe\n{probe_log}"]
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {name: pool.submit(run, args, ["--test", name], args.timeout) for name in names}
        for name in names:
            record, problem, log = futures[name].result()
            if record is None:
                record = {"name": name, "doc": "", "outcome": "fail", "detail": problem}
            results.append(record)
            logs.append(f"== {name}: {record['outcome']}\n{log}")

    with open(args.json, "w") as f:
        json.dump({"label": args.label, "probe": probe or {"error": probe_problem}, "tests": results}, f, indent=1)
    if args.log:
        with open(args.log, "w") as f:
            f.write("\n".join(logs))
    failed = [r["name"] for r in results if r["outcome"] == "fail"]
    print(f"{args.label}: {len(results) - len(failed)} of {len(results)} passed"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
