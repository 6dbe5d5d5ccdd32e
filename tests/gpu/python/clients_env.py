"""The two helpers of tests/gpu/clients.sh.

    python3 clients_env.py isolate --package DIR --venv DIR
        Makes a virtual environment at --venv (a pyvenv.cfg and a link to this interpreter's base
        executable; no venv module, no pip, no network) whose site-packages mirrors every folder
        this interpreter's `site` adds to sys.path, by symbolic links, except the official
        package: `cuda/bindings` (the `cuda` folder is made real and its other children linked)
        and `cuda_bindings-*.dist-info`. It adds a dist-info of ours, read from the generated
        package's pyproject.toml, so `importlib.metadata.version("cuda-bindings")` answers ours.
        With the package folder first on PYTHONPATH, ours is the only cuda.bindings there, and
        the `.pth` files still run (numba-cuda's redirection of `numba.cuda` is one), also in the
        processes numba's test runner spawns. Prints the environment's interpreter.

    python3 clients_env.py report --official DIR --ours DIR --out FILE [--suites "NAME=M,M ..."]
                                  [--host FILE] [--title TEXT]
        Compares what clients.sh left in the two folders (core.json, numba.json, their logs, and
        tests-NAME.log and tests-NAME.status per suite) and writes the markdown report; exits 1
        when ours failed or differs."""
import argparse
import json
import os
import re
import subprocess
import sys
import tomllib

SKIPPED_NAMES = ("__pycache__",)


# ---- isolate ---------------------------------------------------------------------------------

def site_folders():
    """The folders `site` puts on sys.path for this interpreter, in order."""
    def path(*flags):
        out = subprocess.run([sys.executable, *flags, "-c", "import json, sys; print(json.dumps(sys.path))"],
                             capture_output=True, text=True, check=True, cwd="/")
        return json.loads(out.stdout)

    without_site = set(path("-S"))
    return [p for p in dict.fromkeys(path()) if p and p not in without_site and os.path.isdir(p)]


def official_entry(name):
    return re.fullmatch(r"cuda_bindings-.*\.(dist|egg)-info", name) is not None


def mirror(folders, shadow):
    """Links every top-level entry of `folders` into `shadow` (the first folder that has a name
    wins, as on sys.path), leaving out the official package; returns what was left out."""
    left_out = []
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            source = os.path.join(folder, name)
            target = os.path.join(shadow, name)
            if name in SKIPPED_NAMES:
                continue
            if official_entry(name):
                left_out.append(source)
                continue
            if name == "cuda" and os.path.isdir(source):
                os.makedirs(target, exist_ok=True)
                for child in sorted(os.listdir(source)):
                    # `cuda` stays a namespace package: an __init__.py would hide ours.
                    if child in ("bindings", "__init__.py") or child in SKIPPED_NAMES:
                        left_out.append(os.path.join(source, child))
                    elif not os.path.lexists(os.path.join(target, child)):
                        os.symlink(os.path.join(source, child), os.path.join(target, child))
                continue
            if not os.path.lexists(target):
                os.symlink(source, target)
    return left_out


def write_dist_info(package, shadow):
    """A dist-info of the generated package (name, version, extras from its pyproject.toml); none
    where the package folder has its own (a wheel unpacked there, ours or an official one)."""
    own = [name for name in os.listdir(package) if official_entry(name)]
    if own:
        return os.path.join(package, own[0])
    with open(os.path.join(package, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    name, version = project["name"], project["version"]
    folder = os.path.join(shadow, f"{name.replace('-', '_')}-{version}.dist-info")
    os.makedirs(folder, exist_ok=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Provides-Extra: {extra}" for extra in project.get("optional-dependencies", {})]
    with open(os.path.join(folder, "METADATA"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(folder, "INSTALLER"), "w") as f:
        f.write("ctkgen-clients\n")
    with open(os.path.join(folder, "RECORD"), "w") as f:
        f.write("")
    return folder


def isolate(package, venv):
    base = getattr(sys, "_base_executable", None) or sys.executable
    os.makedirs(os.path.join(venv, "bin"), exist_ok=True)
    with open(os.path.join(venv, "pyvenv.cfg"), "w") as f:
        f.write(f"home = {os.path.dirname(base)}\ninclude-system-site-packages = false\n"
                f"version = {'.'.join(map(str, sys.version_info[:3]))}\n")
    interpreter = os.path.join(venv, "bin", "python3")
    if not os.path.lexists(interpreter):
        os.symlink(base, interpreter)
    ask = subprocess.run([interpreter, "-c", "import json, site, sys; "
                          "print(json.dumps([sys.prefix, site.getsitepackages()]))"],
                         capture_output=True, text=True, check=True)
    prefix, sites = json.loads(ask.stdout)
    own = [s for s in sites if os.path.realpath(s).startswith(os.path.realpath(venv) + os.sep)]
    if os.path.realpath(prefix) != os.path.realpath(venv) or not own:
        sys.exit(f"{interpreter} is no environment of its own (prefix {prefix}, site folders {sites})")
    shadow = own[0]
    os.makedirs(shadow, exist_ok=True)
    left_out = mirror(site_folders(), shadow)
    dist_info = write_dist_info(package, shadow)
    sys.stderr.write(f"isolated environment {venv}: site-packages {shadow} mirrors this interpreter's, "
                     f"without {left_out}; {os.path.basename(dist_info)} added\n")
    print(interpreter)


# ---- report ----------------------------------------------------------------------------------

def load(folder, name):
    path = os.path.join(folder, f"{name}.json")
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except ValueError:
        return None


def tail(folder, name, lines=40):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return "(no log)"
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-lines:]).rstrip()


def short(value, width=110):
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= width else text[: width - 3] + "..."


def cell(text):
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`"


def junit_counts(xml_path, status):
    """Counts and failing ids from a pytest suite's JUnit XML: one outcome per test case (a
    case with a failure or error element failed; with a skipped element it was skipped)."""
    import xml.etree.ElementTree as ElementTree
    outcomes = {}
    for case in ElementTree.parse(xml_path).iter("testcase"):
        test_id = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        outcome = ("error" if "error" in kinds else "failure" if "failure" in kinds
                   else "skipped" if "skipped" in kinds else "passed")
        # A test that passed but whose teardown errored appears once per phase: the worst wins.
        order = ("passed", "skipped", "failure", "error")
        if order.index(outcome) >= order.index(outcomes.get(test_id, "passed")):
            outcomes[test_id] = outcome
    values = list(outcomes.values())
    counts = {"exit status": status, "ran": len(values), "passed": values.count("passed"),
              "failures": values.count("failure"), "errors": values.count("error"), "skipped": values.count("skipped")}
    if status == "124":
        counts["timed out"] = True
    failing = sorted(t for t, o in outcomes.items() if o in ("failure", "error"))
    return counts, failing, {t for t, o in outcomes.items() if o == "passed"}


def test_counts(folder, suite):
    """Counts from the unittest summary numba's runner prints for one suite, and the ids that
    failed. A run stopped by its time limit prints no summary: the counts are then those of the
    verbose lines it printed (`... ok`), marked as timed out."""
    log = os.path.join(folder, f"tests-{suite}.log")
    status_file = os.path.join(folder, f"tests-{suite}.status")
    if not os.path.exists(log):
        return None
    with open(log, errors="replace") as f:
        text = f.read()
    status = "?"
    if os.path.exists(status_file):
        with open(status_file) as f:
            status = f.read().strip()
    xml_path = os.path.join(folder, f"tests-{suite}.xml")
    if os.path.exists(xml_path):
        return junit_counts(xml_path, status)
    counts = {"exit status": status, "ran": None, "passed": None, "failures": 0, "errors": 0, "skipped": 0,
              "expected failures": 0, "unexpected successes": 0, "seconds": None}
    ran = re.findall(r"^Ran (\d+) tests? in ([\d.]+)s", text, re.M)
    if ran:
        counts["ran"], counts["seconds"] = int(ran[-1][0]), float(ran[-1][1])
    summary = re.findall(r"^(OK|FAILED)(?: \((.*)\))?\s*$", text, re.M)
    if summary:
        for part in (summary[-1][1] or "").split(","):
            if "=" in part:
                key, value = part.strip().split("=")
                counts[key.replace("_", " ")] = int(value)
    if counts["ran"] is None:
        outcomes = re.findall(r" \.\.\. (ok|FAIL|ERROR|skipped|expected failure|unexpected success)", text)
        if outcomes:
            counts["ran"] = len(outcomes)
            counts["failures"], counts["errors"] = outcomes.count("FAIL"), outcomes.count("ERROR")
            counts["skipped"] = outcomes.count("skipped")
            counts["expected failures"] = outcomes.count("expected failure")
            counts["unexpected successes"] = outcomes.count("unexpected success")
    if counts["ran"] is not None:
        counts["passed"] = counts["ran"] - sum(counts[k] for k in ("failures", "errors", "skipped",
                                                                     "expected failures", "unexpected successes"))
    if status == "124":
        counts["timed out"] = True
    failing = {m[1] for m in re.finditer(r"^(?:FAIL|ERROR): \S+ \(([^)]+)\)", text, re.M)}
    failing |= {m[1] for m in re.finditer(r"^\S+ \(([^)]+)\)(?:\n.*)? \.\.\. (?:FAIL|ERROR)$", text, re.M)}
    return counts, sorted(failing), None


def exit_status(folder, program):
    path = os.path.join(folder, f"{program}.status")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read().strip()


def compare_program(name, official, ours, statuses):
    """Markdown lines for one program, and whether ours failed or differs."""
    lines = [f"## {name}", "", f"Exit status: official {statuses[0]}, ours {statuses[1]}", ""]
    bad = False
    if ours is None or official is None:
        lines.append(f"no result: official {'present' if official else 'missing'}, ours "
                     f"{'present' if ours else 'missing'} (see the log below)")
        return lines, True
    for side, out in (("official", official), ("ours", ours)):
        b = out.get("bindings", {})
        lines.append(f"- {side}: cuda.bindings from `{b.get('file')}`, version {b.get('version')}, distribution "
                     f"{b.get('distribution')}; other cuda/bindings on sys.path: {b.get('other_cuda_bindings_on_path')}"
                     + (f"; PROBLEMS: {b['problems']}" if b.get("problems") else ""))
    if "problems" in ours.get("bindings", {}) or "error" in ours.get("bindings", {}):
        bad = True
    a, b = official.get("results", {}), ours.get("results", {})
    steps = list(dict.fromkeys([*a, *b]))
    different = [s for s in steps if a.get(s) != b.get(s)]
    verdict = "EQUAL" if not different else f"DIFFERENT in {', '.join(different)}"
    lines += ["", f"Results: **{verdict}**; failed steps: official {official.get('failed')}, ours {ours.get('failed')}",
              "", "| step | official | ours | |", "| --- | --- | --- | --- |"]
    for step in steps:
        lines.append(f"| {step} | {cell(short(a.get(step)))} | {cell(short(b.get(step)))} | "
                     f"{'equal' if step not in different else '**differs**'} |")
    for step in [s for s in different if short(a.get(s)).endswith("...") or short(b.get(s)).endswith("...")]:
        lines += ["", f"<details><summary>{step}, in full</summary>", "", "```",
                  "official: " + json.dumps(a.get(step), sort_keys=True)[:6000],
                  "ours:     " + json.dumps(b.get(step), sort_keys=True)[:6000], "```", "</details>"]
    for side, out in (("official", official), ("ours", ours)):
        info = dict(out.get("info", {}))
        tracebacks = info.pop("tracebacks", None)
        lines += ["", f"<details><summary>{side}: info (not compared)</summary>", "", "```",
                  json.dumps(info, indent=1, sort_keys=True)[:6000], "```", "</details>"]
        if tracebacks:
            lines += ["", f"{side}: tracebacks", "", "```", "\n".join(f"{k}:\n{v}" for k, v in tracebacks.items())[:8000],
                      "```"]
    bad = bad or bool(different) or bool(ours.get("failed"))
    return lines, bad


def compare_suite(suite, modules, official_dir, ours_dir):
    """Markdown lines for one suite of numba-cuda's own tests, and whether ours failed a test that
    passed on official, ran another number of tests, or did not finish."""
    official_tests, our_tests = test_counts(official_dir, suite), test_counts(ours_dir, suite)
    if not (official_tests or our_tests):
        return [], False
    kind = "pytest suite" if modules[0].startswith("pytest:") else "numba-cuda's own tests"
    lines = [f"## {kind}: {suite}", "", f"Modules: {', '.join(modules)}", "",
             "| | official | ours |", "| --- | --- | --- |"]
    for key in dict.fromkeys([*(official_tests or ({},))[0], *(our_tests or ({},))[0]]):
        lines.append(f"| {key} | {(official_tests or ({},))[0].get(key)} | {(our_tests or ({},))[0].get(key)} |")
    ours_failing = set(our_tests[1]) if our_tests else set()
    official_failing = set(official_tests[1]) if official_tests else set()
    only_ours = sorted(ours_failing - official_failing)
    # pytest suites also tell which tests passed: one that passed on official and was skipped on
    # ours (a module ours lacks) fails nothing but is named.
    passed_not_ours = []
    if official_tests and our_tests and official_tests[2] is not None and our_tests[2] is not None:
        passed_not_ours = sorted(official_tests[2] - our_tests[2] - ours_failing)
    lines += ["", f"Failing on ours only ({len(only_ours)}): " + (", ".join(only_ours) or "none"),
              f"Failing on both ({len(ours_failing & official_failing)}): "
              + (", ".join(sorted(ours_failing & official_failing)) or "none"),
              f"Failing on official only ({len(official_failing - ours_failing)}): "
              + (", ".join(sorted(official_failing - ours_failing)) or "none")]
    if passed_not_ours:
        lines.append(f"Passed on official, not run or skipped on ours ({len(passed_not_ours)}): "
                     + ", ".join(passed_not_ours))
    # A signal (exit status 128+N: 139 is a segmentation fault) on ours where official exited
    # normally fails the suite even when every test's outcome was written before the crash.
    crashed = None
    if our_tests and official_tests:
        ours_status, official_status = str(our_tests[0]["exit status"]), str(official_tests[0]["exit status"])
        if ours_status.isdigit() and int(ours_status) > 128 and ours_status != official_status:
            crashed = ours_status
            lines += ["", f"**Ours was killed by signal {int(ours_status) - 128} (exit status {ours_status}); "
                          f"official exited with {official_status}**"]
    bad = (our_tests is None or our_tests[0]["ran"] is None or bool(only_ours) or bool(our_tests[0].get("timed out"))
           or crashed is not None
           or bool(official_tests and official_tests[0]["ran"] != our_tests[0]["ran"]))
    for side, folder in (("official", official_dir), ("ours", ours_dir)):
        lines += ["", f"<details><summary>{side}: end of tests-{suite}.log</summary>", "", "```",
                  tail(folder, f"tests-{suite}.log", 60), "```", "</details>"]
    return lines + [""], bad


def report(official_dir, ours_dir, out, suites, host=None, title=""):
    """`suites`: (name, modules) pairs, as clients.sh ran them."""
    lines = [f"# cuda.core and numba-cuda on the official cuda.bindings and on ours{title}", ""]
    if host and os.path.exists(host):
        with open(host) as f:
            lines += ["```", f.read().rstrip(), "```", ""]
    failed = False
    for program, title in (("core", "cuda.core program"), ("numba", "numba-cuda program")):
        official, ours = load(official_dir, program), load(ours_dir, program)
        statuses = (exit_status(official_dir, program), exit_status(ours_dir, program))
        if statuses == (None, None) and official is None and ours is None:
            continue  # run on neither side
        part, bad = compare_program(title, official, ours, statuses)
        failed = failed or bad or statuses[1] != "0"
        lines += part
        for side, folder in (("official", official_dir), ("ours", ours_dir)):
            lines += ["", f"<details><summary>{side}: end of {program}.log</summary>", "", "```",
                      tail(folder, f"{program}.log", 25), "```", "</details>"]
        lines.append("")
    for suite, modules in suites:
        part, bad = compare_suite(suite, modules, official_dir, ours_dir)
        lines += part
        failed = failed or bad
    lines += ["", f"**Verdict: {'ours FAILED or DIFFERS' if failed else 'ours gives the same results'}**", ""]
    with open(out, "w") as f:
        f.write("\n".join(lines))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    iso = sub.add_parser("isolate")
    iso.add_argument("--package", required=True)
    iso.add_argument("--venv", required=True)
    rep = sub.add_parser("report")
    rep.add_argument("--official", required=True)
    rep.add_argument("--ours", required=True)
    rep.add_argument("--out", required=True)
    rep.add_argument("--suites", default="", help="the suites run: NAME=MODULE,MODULE entries, space-separated")
    rep.add_argument("--title", default="", help="added to the report's heading (the CTK)")
    rep.add_argument("--host", help="a text file describing the host, shown at the top")
    args = parser.parse_args()
    if args.command == "isolate":
        isolate(os.path.abspath(args.package), os.path.abspath(args.venv))
        return 0
    suites = [(entry.split("=", 1)[0], entry.split("=", 1)[1].split(",")) for entry in args.suites.split() if "=" in entry]
    return report(args.official, args.ours, args.out, suites, args.host, f" ({args.title})" if args.title else "")


if __name__ == "__main__":
    sys.exit(main())
