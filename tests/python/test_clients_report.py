"""tests/gpu/python/clients_env.py's report, on logs written as numba's test runner writes them:
what fails on ours only is named and fails the report, counts come from the summary or, for a run
stopped by its time limit, from the verbose lines, and each suite is reported on its own; a pytest
suite (cuda.core's) is read from its JUnit XML."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("clients_env", ROOT / "tests/gpu/python/clients_env.py")
clients_env = importlib.util.module_from_spec(spec)
spec.loader.exec_module(clients_env)

MODULE = "numba.cuda.tests.cudapy.test_x.TestX"


def verbose(outcomes):
    return "".join(f"{name} ({MODULE}.{name}) ... {outcome}\n" for name, outcome in outcomes)


def finished_log(outcomes, seconds=12.5):
    failing = [(n, o) for n, o in outcomes if o in ("FAIL", "ERROR")]
    text = verbose(outcomes)
    for name, outcome in failing:
        text += f"\n{'=' * 70}\n{outcome}: {name} ({MODULE}.{name})\n{'-' * 70}\nTraceback (most recent call last):\n"
    text += f"\n{'-' * 70}\nRan {len(outcomes)} tests in {seconds}s\n\n"
    failures = sum(o == "FAIL" for _, o in outcomes)
    errors = sum(o == "ERROR" for _, o in outcomes)
    skipped = sum(o.startswith("skipped") for _, o in outcomes)
    parts = [f"{k}={v}" for k, v in (("failures", failures), ("errors", errors), ("skipped", skipped)) if v]
    text += ("FAILED" if failures or errors else "OK") + (f" ({', '.join(parts)})" if parts else "") + "\n"
    return text


def write_side(folder, suite, log, status):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"tests-{suite}.log").write_text(log)
    (folder / f"tests-{suite}.status").write_text(f"{status}\n")


def report(tmp_path, suites):
    out = tmp_path / "clients.md"
    status = clients_env.report(str(tmp_path / "official"), str(tmp_path / "ours"), str(out),
                                [(name, ["numba.cuda.tests." + name]) for name in suites])
    return status, out.read_text()


SAME = [("test_a", "ok"), ("test_b", "ok"), ("test_c", "skipped 'no LTO'"), ("test_d", "FAIL")]


def test_a_test_failing_on_ours_only_is_named_and_fails_the_report(tmp_path):
    write_side(tmp_path / "official", "cudapy", finished_log(SAME), 1)
    ours = [("test_a", "ok"), ("test_b", "ERROR"), ("test_c", "skipped 'no LTO'"), ("test_d", "FAIL")]
    write_side(tmp_path / "ours", "cudapy", finished_log(ours), 1)
    status, text = report(tmp_path, ["cudapy"])
    assert status == 1
    assert f"Failing on ours only (1): {MODULE}.test_b" in text
    assert f"Failing on both (1): {MODULE}.test_d" in text
    assert "| passed | 2 | 1 |" in text


def test_the_same_results_pass_and_every_suite_is_reported(tmp_path):
    for side in ("official", "ours"):
        write_side(tmp_path / side, "cudapy", finished_log(SAME), 1)
        write_side(tmp_path / side, "cudadrv", finished_log([("test_e", "ok")]), 0)
    status, text = report(tmp_path, ["cudapy", "cudadrv"])
    assert status == 0, text
    assert "## numba-cuda's own tests: cudapy" in text and "## numba-cuda's own tests: cudadrv" in text
    assert "| ran | 4 | 4 |" in text and "| skipped | 1 | 1 |" in text


def test_a_run_stopped_by_its_time_limit_counts_its_verbose_lines_and_fails(tmp_path):
    write_side(tmp_path / "official", "cudapy", finished_log(SAME), 1)
    write_side(tmp_path / "ours", "cudapy", verbose(SAME[:3]), 124)
    counts, failing, _ = clients_env.test_counts(str(tmp_path / "ours"), "cudapy")
    assert counts["timed out"] and counts["ran"] == 3 and counts["passed"] == 2 and failing == []
    status, text = report(tmp_path, ["cudapy"])
    assert status == 1
    assert "| timed out | None | True |" in text


def test_failures_seen_only_in_verbose_lines_are_named(tmp_path):
    write_side(tmp_path / "ours", "cudapy", verbose([("test_a", "ok"), ("test_b", "FAIL")]), 124)
    _, failing, _ = clients_env.test_counts(str(tmp_path / "ours"), "cudapy")
    assert failing == [f"{MODULE}.test_b"]


def junit(cases):
    """A JUnit XML as pytest writes it: (name, outcome) with outcome passed, failure, error or skipped."""
    body = "".join(f'<testcase classname="tests.test_x" name="{name}" time="0.1">'
                   + ("" if outcome == "passed" else f'<{outcome} message="m">text</{outcome}>') + "</testcase>"
                   for name, outcome in cases)
    return f'<?xml version="1.0"?><testsuites><testsuite name="pytest">{body}</testsuite></testsuites>'


def write_pytest_side(folder, suite, cases, status):
    write_side(folder, suite, "pytest output\n", status)
    (folder / f"tests-{suite}.xml").write_text(junit(cases))


def pytest_report(tmp_path):
    out = tmp_path / "clients.md"
    status = clients_env.report(str(tmp_path / "official"), str(tmp_path / "ours"), str(out),
                                [("core", ["pytest:/somewhere/tests"])])
    return status, out.read_text()


def test_a_pytest_suite_names_what_fails_and_what_only_official_ran(tmp_path):
    official = [("test_a", "passed"), ("test_b", "passed"), ("test_c", "passed"), ("test_d", "failure")]
    ours = [("test_a", "passed"), ("test_b", "error"), ("test_c", "skipped"), ("test_d", "failure")]
    write_pytest_side(tmp_path / "official", "core", official, 1)
    write_pytest_side(tmp_path / "ours", "core", ours, 1)
    status, text = pytest_report(tmp_path)
    assert status == 1
    assert "## pytest suite: core" in text
    assert "Failing on ours only (1): tests.test_x::test_b" in text
    assert "Failing on both (1): tests.test_x::test_d" in text
    assert "Passed on official, not run or skipped on ours (1): tests.test_x::test_c" in text
    assert "| passed | 3 | 1 |" in text and "| skipped | 0 | 1 |" in text


def test_a_pytest_suite_with_the_same_outcomes_passes(tmp_path):
    cases = [("test_a", "passed"), ("test_b", "skipped"), ("test_d", "failure")]
    for side in ("official", "ours"):
        write_pytest_side(tmp_path / side, "core", cases, 1)
    status, text = pytest_report(tmp_path)
    assert status == 0, text
    assert "Passed on official, not run" not in text


def test_a_crash_on_ours_only_fails_the_report_though_every_outcome_agrees(tmp_path):
    cases = [("test_a", "passed"), ("test_d", "failure")]
    write_pytest_side(tmp_path / "official", "core", cases, 1)
    write_pytest_side(tmp_path / "ours", "core", cases, 139)
    status, text = pytest_report(tmp_path)
    assert status == 1
    assert "Ours was killed by signal 11 (exit status 139); official exited with 1" in text
