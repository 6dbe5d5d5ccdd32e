"""Writes RESULTS.md from the JSON results of run_suite.py and tma-rust-tests (one per CTK each).

    python3 report.py --out RESULTS.md --env env.json results-13.1.json results-12.9.json \
        rust-13.1.json rust-12.9.json
"""
import argparse
import json
import sys


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--env", required=True, help="JSON of facts gathered by run.sh")
    parser.add_argument("results", nargs="+")
    args = parser.parse_args()
    with open(args.env) as f:
        env = json.load(f)
    suites = []
    for path in args.results:
        try:
            with open(path) as f:
                suites.append(json.load(f))
        except (OSError, ValueError) as error:
            suites.append({"label": path, "tests": [{"name": "(suite)", "outcome": "fail",
                                                     "detail": f"no results: {error}"}]})

    lines = ["# GPU suite results", "",
             "Written by `tests/gpu/run.sh` on the GPU host; committed from the run named below.", ""]
    for key in ("date", "gpu", "driver", "nvcc", "python", "cython"):
        lines.append(f"- {key}: {env.get(key, '?')}")
    for suite in suites:
        probe = suite.get("probe")
        if probe:
            lines.append(f"- bindings {suite['label']}: CTK {probe.get('ctk', '?')}, cuDriverGetVersion "
                         f"{probe.get('driver_version', '?')}, device {probe.get('device', '?')} "
                         f"(compute capability {probe.get('compute_capability', '?')}), "
                         f"alignof(CUtensorMap) {probe.get('map_align', '?')}"
                         + (f", probe error: {probe['error']}" if "error" in probe else ""))
    for note in env.get("notes", []):
        lines.append(f"- {note}")

    wide = [(s["label"], t["facts"]["im2col_wide_code"]) for s in suites for t in s["tests"]
            if t.get("facts", {}).get("im2col_wide_code")]
    lines += ["", "## cuTensorMapEncodeIm2colWide on compute capability 9.0", ""]
    lines += [f"- {label}: {code}" for label, code in wide] or ["- not run"]
    recorded = [(s["label"], key, value) for s in suites for t in s["tests"]
                for key, value in t.get("facts", {}).items() if key != "im2col_wide_code"]
    if recorded:
        lines += ["", "## Recorded values", ""]
        lines += [f"- {label}, {key}: {value}" for label, key, value in recorded]

    total = failed = 0
    for suite in suites:
        lines += ["", f"## {suite['label']}", "", "| test | outcome | detail |", "| --- | --- | --- |"]
        for test in suite["tests"]:
            total += 1
            failed += test["outcome"] == "fail"
            lines.append(f"| `{test['name']}` | {test['outcome'].upper()} | {cell(test.get('detail', ''))} |")
    passed = sum(1 for s in suites for t in s["tests"] if t["outcome"] == "pass")
    skipped = total - passed - failed
    lines += ["", f"{passed} passed, {failed} failed, {skipped} skipped", ""]
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
