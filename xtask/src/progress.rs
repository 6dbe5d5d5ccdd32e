//! What a suite running side by side has done so far, read from its log: the line `cargo xtask
//! test` prints at least every 30 s while the suites write only to their logs.

/// Tests done and failed so far in a log of `cargo test` or of `pytest -v`, and what the log
/// shows it is doing when no test has finished lately (a build step).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SuiteProgress {
    pub done: usize,
    pub failed: usize,
    /// pytest's count of collected tests, once it has printed it.
    pub total: Option<usize>,
    /// The last line that names work other than a test's outcome (`Compiling foo v0.1.0`).
    pub last_step: Option<String>,
}

/// The outcome words at the end of a `cargo test` line (`test name ... ok`).
const CARGO_OUTCOMES: [&str; 3] = [" ... ok", " ... FAILED", " ... ignored"];
/// pytest -v's outcome words before the percentage (`file.py::test PASSED [ 12%]`).
const PYTEST_OUTCOMES: [&str; 6] = ["PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL", "XPASS"];

pub fn read_progress(log: &str) -> SuiteProgress {
    let mut progress = SuiteProgress::default();
    for line in log.lines().map(str::trim_end) {
        if line.starts_with("test ") && CARGO_OUTCOMES.iter().any(|o| line.ends_with(o)) {
            progress.done += 1;
            progress.failed += usize::from(line.ends_with(" ... FAILED"));
        } else if let Some(outcome) = pytest_outcome(line) {
            progress.done += 1;
            progress.failed += usize::from(outcome == "FAILED" || outcome == "ERROR");
        } else if let Some(count) = collected(line) {
            progress.total = count.parse().ok().or(progress.total);
        } else if is_build_step(line) {
            progress.last_step = Some(line.trim().to_string());
        }
    }
    // pytest -v writes a test's id when it starts and its outcome when it ends: an unfinished
    // last line is the test running now.
    if let Some(last) = log.lines().last().filter(|_| !log.ends_with('\n')) {
        if last.contains("::") && pytest_outcome(last).is_none() {
            progress.last_step = Some(format!("running {}", last.trim()));
        }
    }
    progress
}

/// pytest's count of collected tests (`collecting ... collected 315 items`, `collected 3 items / 1 deselected`).
fn collected(line: &str) -> Option<&str> {
    let (before, after) = line.split_once("collected ")?;
    (before.is_empty() || before.ends_with("... ")).then(|| after.split_whitespace().next()).flatten()
}

/// The outcome of a pytest -v result line, if `line` is one.
fn pytest_outcome(line: &str) -> Option<&'static str> {
    let (head, tail) = line.rsplit_once(" [")?;
    let mut words = head.split_whitespace();
    let (id, word) = (words.next()?, words.next()?);
    if !tail.ends_with("%]") || !id.contains("::") {
        return None;
    }
    // A skip's reason may follow its word (`SKIPPED (no GPU)`).
    PYTEST_OUTCOMES.into_iter().find(|o| *o == word)
}

/// Lines that say what a build or a test binary is doing (cargo's and the suites' own `==>`).
fn is_build_step(line: &str) -> bool {
    let line = line.trim_start();
    ["Compiling ", "Running ", "Building ", "Doc-tests ", "==> ", "-- "].iter().any(|p| line.starts_with(p))
}

impl SuiteProgress {
    /// `412 tests done (2 failed)`, `120 of 290 tests done`, or the build step when none is.
    pub fn summary(&self) -> String {
        let mut text = match self.total {
            Some(total) => format!("{} of {total} tests done", self.done),
            None => format!("{} tests done", self.done),
        };
        if self.failed > 0 {
            text.push_str(&format!(" ({} failed)", self.failed));
        }
        if let Some(step) = &self.last_step {
            text.push_str(&format!("; last step: {}", shorten(step, 70)));
        }
        text
    }
}

fn shorten(text: &str, width: usize) -> String {
    match text.char_indices().nth(width) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_test_logs_count_outcomes_and_show_the_build() {
        let log = "   Compiling ctkgen-ir v0.1.0 (/r/crates/ctkgen-ir)\n     Running tests/fixtures.rs (target/x)\n\nrunning 3 tests\ntest a ... ok\ntest b ... FAILED\ntest c ... ignored\n   Compiling xtask v0.1.0\n";
        let progress = read_progress(log);
        assert_eq!((progress.done, progress.failed, progress.total), (3, 1, None));
        assert_eq!(progress.last_step.as_deref(), Some("Compiling xtask v0.1.0"));
        assert_eq!(progress.summary(), "3 tests done (1 failed); last step: Compiling xtask v0.1.0");
    }

    #[test]
    fn pytest_logs_count_outcomes_against_the_collected_total() {
        let log = "collecting ... collected 290 items / 25 deselected / 265 selected\n\ntest_a.py::test_one PASSED [  1%]\ntest_a.py::test_two[13.1] FAILED [  2%]\ntest_b.py::test_three SKIPPED (no GPU) [  3%]\ntest_b.py::test_four ERROR [  4%]\n-- typed values 12.9: 446 enumerators compared\n";
        let progress = read_progress(log);
        assert_eq!((progress.done, progress.failed, progress.total), (4, 2, Some(290)));
        assert_eq!(
            progress.summary(),
            "4 of 290 tests done (2 failed); last step: -- typed values 12.9: 446 enumerators compared"
        );
    }

    #[test]
    fn an_unfinished_pytest_line_is_the_test_running_now() {
        let log = "test_a.py::test_one PASSED [  1%]\ntest_asan.py::test_stress ";
        let progress = read_progress(log);
        assert_eq!(progress.done, 1);
        assert_eq!(progress.last_step.as_deref(), Some("running test_asan.py::test_stress"));
        assert_eq!(read_progress(&format!("{log}PASSED [  2%]\n")).last_step, None);
    }

    #[test]
    fn lines_that_only_look_like_outcomes_are_not_counted() {
        let log = "PASSED [ 1%]\nsome text FAILED\ntest not a result\nwarning: x::y PASSED in words\n";
        assert_eq!(read_progress(log), SuiteProgress::default());
    }
}
