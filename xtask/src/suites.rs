//! `cargo xtask test` and the suites it runs, the Rust crates of every CTK, the GPU suite, and
//! `accept-goldens`.

use std::process::ExitCode;

use anyhow::{Context, Result};
use ctkgen::{HeaderSource, OutputFile, Ownership, ReadOptions, Workspace};

use crate::model::read_source;

/// Generates each library's crate for every CTK (`target/ctkgen/rust`, as `generate --all --lang
/// rust` does) and runs clippy and the tests of all of them under each feature, or under the
/// feature of `ctk` alone.
pub fn rust_crates(ws: &Workspace, ctk: Option<String>) -> Result<ExitCode> {
    use rayon::prelude::*;
    let catalogue = ws.catalogue()?;
    let releases: Vec<String> = catalogue.newest_per_minor().into_iter().map(|r| r.ctk.clone()).collect();
    let chosen = match ctk {
        Some(query) => Some(catalogue.resolve(&query)?.ctk.clone()),
        None => None,
    };
    let all_libraries = ws.libraries()?;
    // Per release, the libraries it ships (see `source_has_library`) and their models.
    let read: Vec<Vec<(ctkgen::Library, ctkgen::HeaderSet, ctkgen::Api)>> = releases
        .par_iter()
        .map(|ctk| {
            let source = HeaderSource::Ctk(ctk.clone());
            let mut models = Vec::new();
            for library in &all_libraries {
                if ctkgen::source_has_library(ws, &source, library)? {
                    let (headers, api) = read_source(ws, &source, &ReadOptions::default(), library)?;
                    models.push((library.clone(), headers, api));
                }
            }
            Ok(models)
        })
        .collect::<Result<_>>()?;
    let bound: Vec<Vec<ctkgen::BoundLibrary>> = read
        .iter()
        .map(|models| {
            (models.iter()).map(|(library, headers, api)| ctkgen::BoundLibrary { library, headers, api }).collect()
        })
        .collect();
    let command = "cargo xtask generate --all";
    let files = ctkgen::emit_rust_crates(&bound, command)?;
    let out = ws.root.join("target").join("ctkgen").join("rust");
    ctkgen::write_tree(&out, &files, Ownership::Manifest { command })?;
    // One target folder for every feature: each keeps its own artifacts there.
    let target_dir = ws.root.join("target").join("ctkgen").join("rust-crates-target");
    let mut failed = Vec::new();
    let mut built = 0;
    for (ctk, models) in releases.iter().zip(&read).filter(|(ctk, _)| chosen.as_ref().is_none_or(|c| c == *ctk)) {
        let mut numbers = ctk.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
        let feature = format!("cuda-{}", numbers.next().unwrap_or(0) * 1000 + numbers.next().unwrap_or(0) * 10);
        // The crates of the libraries this release ships have its feature.
        let features: Vec<String> =
            models.iter().map(|(l, _, _)| format!("{}/{feature}", l.conventions.rust_crate)).collect();
        let features = features.join(",");
        built += 1;
        // The crates of the libraries it does not ship have no such feature: left out.
        let mut selection = vec!["--workspace".to_string()];
        for library in all_libraries.iter().filter(|l| !models.iter().any(|(m, _, _)| m.name == l.name)) {
            selection.extend(["--exclude".to_string(), library.conventions.rust_crate.clone()]);
        }
        selection.extend(["--features".to_string(), features]);
        let clippy = [
            &["clippy"][..],
            &selection.iter().map(String::as_str).collect::<Vec<_>>(),
            &["--all-targets", "--quiet", "--", "-D", "warnings"],
        ]
        .concat();
        let test = [&["test"][..], &selection.iter().map(String::as_str).collect::<Vec<_>>(), &["--quiet"]].concat();
        for (step, args) in [("clippy", &clippy[..]), ("test", &test[..])] {
            println!("==> {feature} ({ctk}): cargo {step}");
            let status = std::process::Command::new(cargo())
                .args(args)
                .current_dir(&out)
                .env("CARGO_TARGET_DIR", &target_dir)
                .status()
                .with_context(|| format!("cannot run cargo {step}"))?;
            if !status.success() {
                failed.push(format!("{feature} ({step})"));
                break;
            }
        }
    }
    println!("rust crates: {} of {built} features passed", built - failed.len());
    if !failed.is_empty() {
        println!("failed: {}", failed.join(", "));
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// What the GPU suite needs and this machine lacks, each as a reason to print.
fn missing_gpu_prerequisites() -> Vec<String> {
    let succeeds = |program: &str, args: &[&str]| {
        std::process::Command::new(program).args(args).output().map(|o| o.status.success()).unwrap_or(false)
    };
    let mut missing = Vec::new();
    match std::process::Command::new("nvidia-smi")
        .args(["--query-gpu=compute_cap", "--format=csv,noheader", "-i", "0"])
        .output()
    {
        Ok(out) if out.status.success() => {
            let cap = String::from_utf8_lossy(&out.stdout).trim().to_string();
            let major: u32 = cap.split('.').next().and_then(|m| m.parse().ok()).unwrap_or(0);
            if major < 9 {
                missing.push(format!("GPU 0 has compute capability {cap:?}; TMA needs 9.0 or later"));
            }
        }
        _ => missing.push("no NVIDIA GPU or driver (nvidia-smi failed or is absent)".into()),
    }
    if !succeeds("nvcc", &["--version"]) {
        missing.push("nvcc is not on PATH".into());
    }
    if let Some(reason) = gpu_python_lacks() {
        missing.push(reason);
    }
    missing
}

/// Why the interpreter the GPU suite runs (`tests/gpu/run.sh`: `$PYTHON`, else `python3`) cannot
/// build and drive the package, naming the modules it lacks. The Python suite's own virtual
/// environment is not it: that one holds only what the CPU tests need.
fn gpu_python_lacks() -> Option<String> {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let probe = "import importlib.util as u\nprint(' '.join(m for m in ('Cython', 'numpy', 'setuptools') if u.find_spec(m) is None))";
    match std::process::Command::new(&python).args(["-c", probe]).output() {
        Ok(out) if out.status.success() => {
            let lacking = String::from_utf8_lossy(&out.stdout).trim().replace(' ', ", ");
            (!lacking.is_empty()).then(|| format!("{python}, the GPU suite's interpreter ($PYTHON), lacks {lacking}"))
        }
        _ => Some(format!("{python}, the GPU suite's interpreter ($PYTHON), does not run")),
    }
}

pub fn gpu_test(ws: &Workspace, prepare_only: bool) -> Result<ExitCode> {
    let script = if prepare_only { "tests/gpu/prepare.sh" } else { "tests/gpu/gpu-test.sh" };
    if !prepare_only {
        let missing = missing_gpu_prerequisites();
        if !missing.is_empty() {
            for reason in &missing {
                println!("SKIPPED GPU suite: {reason}");
            }
            println!("GPU suite not run (prepare a bundle with `cargo xtask gpu-test --prepare-only` for a GPU host)");
            return Ok(ExitCode::SUCCESS);
        }
    }
    let status = std::process::Command::new("bash")
        .arg(script)
        .current_dir(&ws.root)
        .env("CTKGEN_XTASK", std::env::current_exe()?)
        .status()
        .with_context(|| format!("cannot run {script}"))?;
    Ok(if status.success() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// One suite of `cargo xtask test`: a name and the command that runs it.
struct Suite {
    name: &'static str,
    program: &'static str,
    args: &'static [&'static str],
    /// Runs beside the other such suites, its output kept in a log printed when it ends: the
    /// Rust and Python suites each leave a core idle much of the time (single-threaded tests,
    /// linking, one compiler process), so side by side they take little more than the longer.
    side_by_side: bool,
}

/// The suites `cargo xtask test` runs in order, each failing the run on its own; formatting
/// and lints first, as they take seconds.
const SUITES: [Suite; 5] = [
    Suite { name: "format", program: "cargo", args: &["fmt", "--all", "--check"], side_by_side: false },
    // Emitted verbatim and pulled in with include!, so `cargo fmt` never reaches them.
    Suite {
        name: "format (runtime sources)",
        program: "rustfmt",
        args: &[
            "--check",
            "--edition",
            "2021",
            "crates/ctkgen-rust/runtime/loader.rs",
            "crates/ctkgen-rust/runtime/bits.rs",
            "crates/ctkgen-rust/runtime/entries.rs",
            "crates/ctkgen-rust/runtime/open.rs",
            "crates/ctkgen-rust/runtime/per_thread.rs",
            "crates/ctkgen-rust/runtime/search.rs",
            "crates/ctkgen-rust/runtime/status.rs",
            "crates/ctkgen-rust/runtime/text.rs",
        ],
        side_by_side: false,
    },
    Suite {
        name: "clippy",
        program: "cargo",
        args: &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"],
        side_by_side: false,
    },
    // In the release profile: the dependencies are those `cargo xtask` itself was built with, and
    // the tests that generate every CTK run at the generator's real speed.
    Suite { name: "rust", program: "cargo", args: &["test", "--workspace", "--release"], side_by_side: true },
    Suite { name: "python", program: "bash", args: &["tests/python/run.sh"], side_by_side: true },
];

/// CTKs whose generated Rust crates the test suite builds: both ends of 12.x, the first 13.x,
/// the default, and the newest in the catalogue.
fn crate_test_ctks(ws: &Workspace) -> Result<Vec<String>> {
    let newest = ws.catalogue()?.newest_per_minor().last().map(|r| r.ctk.clone()).context("empty catalogue")?;
    Ok(["12.0", "12.9", "13.0", "13.1"].iter().map(|s| s.to_string()).chain(std::iter::once(newest)).collect())
}

/// How often `cargo xtask test` says what the suites running side by side have done.
const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(20);

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// The phases of a test run and their durations: the suites, and what they report in the file
/// named by `CTKGEN_PHASES` (a line per phase: seconds, a tab, its name).
struct Phases {
    file: std::path::PathBuf,
    timed: Vec<(f64, String)>,
}

impl Phases {
    fn new(ws: &Workspace) -> Result<Phases> {
        let file = ws.root.join("target").join("ctkgen").join("test-phases.tsv");
        std::fs::create_dir_all(file.parent().expect("a folder"))?;
        std::fs::write(&file, "").with_context(|| format!("cannot write {}", file.display()))?;
        Ok(Phases { file, timed: Vec::new() })
    }

    fn add(&mut self, name: String, started: std::time::Instant) -> f64 {
        let seconds = started.elapsed().as_secs_f64();
        self.timed.push((seconds, name));
        seconds
    }

    /// The slowest phases, the suites' own and those the suites reported, slowest first.
    fn print_slowest(&self, count: usize) {
        let reported = std::fs::read_to_string(&self.file).unwrap_or_default();
        let mut all: Vec<(f64, String)> = reported
            .lines()
            .filter_map(|line| line.split_once('\t'))
            .filter_map(|(seconds, name)| Some((seconds.parse().ok()?, name.to_string())))
            .chain(self.timed.iter().cloned())
            .collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!("slowest phases (a suite's time includes the phases it reported):");
        for (seconds, name) in all.iter().take(count) {
            println!("  {seconds:7.1} s  {name}");
        }
    }
}

pub fn test(ws: &Workspace) -> Result<ExitCode> {
    let mut phases = Phases::new(ws)?;
    let started = std::time::Instant::now();
    // The Rust emitter's tests build a generated crate from each of these models.
    let ir_dir = ws.root.join("target").join("ctkgen").join("ir-for-tests");
    let mut models = Vec::new();
    for ctk in crate_test_ctks(ws)? {
        let (headers, api) =
            read_source(ws, &HeaderSource::Ctk(ctk.clone()), &ReadOptions::default(), &ws.primary_library()?)?;
        models.push(OutputFile::text(format!("{}.json", ctkgen::source_label(&headers)), api.to_json()));
    }
    ctkgen::write_tree(&ir_dir, &models, Ownership::Whole)?;
    phases.add("models for the Rust emitter's tests".into(), started);
    // The Python suite generates its packages with this very binary, copied: the Rust suite,
    // running beside it, may link the same file anew.
    let xtask = ws.root.join("target").join("ctkgen").join("xtask-for-tests");
    std::fs::copy(std::env::current_exe()?, &xtask).context("cannot copy the xtask binary")?;
    let mut passed = 0;
    let mut failed = Vec::new();
    let phases_file = phases.file.clone();
    let command = |suite: &Suite| {
        let program = if suite.program == "cargo" { cargo() } else { suite.program.to_string() };
        let mut command = std::process::Command::new(program);
        command
            .args(suite.args)
            .current_dir(&ws.root)
            .env("CTKGEN_IR_DIR", &ir_dir)
            .env("CTKGEN_XTASK", &xtask)
            .env("CTKGEN_PHASES", &phases_file);
        command
    };
    let mut record = |name: &str, success: bool, seconds: f64| {
        let verdict = if success { "passed" } else { "FAILED" };
        println!("==> {name} suite: {verdict} in {seconds:.1} s");
        if success {
            passed += 1;
        } else {
            failed.push(name.to_string());
        }
    };
    for suite in SUITES.iter().filter(|s| !s.side_by_side) {
        println!("==> {} suite: {} {}", suite.name, suite.program, suite.args.join(" "));
        let suite_started = std::time::Instant::now();
        let status = command(suite).status().with_context(|| format!("cannot run {}", suite.program))?;
        record(suite.name, status.success(), phases.add(format!("suite: {}", suite.name), suite_started));
    }
    let mut running = Vec::new();
    let side_started = std::time::Instant::now();
    for suite in SUITES.iter().filter(|s| s.side_by_side) {
        let log = ws.root.join("target").join("ctkgen").join(format!("test-{}.log", suite.name));
        println!(
            "==> {} suite: {} {} (side by side; output in {})",
            suite.name,
            suite.program,
            suite.args.join(" "),
            log.display()
        );
        let out = std::fs::File::create(&log).with_context(|| format!("cannot write {}", log.display()))?;
        let child = command(suite)
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()
            .with_context(|| format!("cannot run {}", suite.program))?;
        running.push((suite, child, log, None));
    }
    // Each suite's own time, from the start to when it is seen finished; what each has done,
    // read from its log, every PROGRESS_EVERY while any runs.
    let mut last_report = std::time::Instant::now();
    while running.iter().any(|(_, _, _, ended)| ended.is_none()) {
        for (suite, child, _, ended) in running.iter_mut().filter(|r| r.3.is_none()) {
            if let Some(status) = child.try_wait()? {
                let seconds = side_started.elapsed().as_secs_f64();
                let verdict = if status.success() { "passed" } else { "FAILED" };
                println!("==> {} suite: {verdict} after {seconds:.0} s (output below)", suite.name);
                *ended = Some((status.success(), seconds));
            }
        }
        if last_report.elapsed() >= PROGRESS_EVERY {
            last_report = std::time::Instant::now();
            let states: Vec<String> = running
                .iter()
                .map(|(suite, _, log, ended)| match ended {
                    Some((success, _)) => format!("{}: {}", suite.name, if *success { "passed" } else { "FAILED" }),
                    None => {
                        let text = std::fs::read_to_string(log).unwrap_or_default();
                        format!("{}: {}", suite.name, crate::progress::read_progress(&text).summary())
                    }
                })
                .collect();
            println!("  [{:>4.0} s] {}", side_started.elapsed().as_secs_f64(), states.join(" | "));
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    for (suite, _, log, ended) in running {
        let (success, seconds) = ended.expect("every suite has ended");
        println!("==> {} suite output ({}):", suite.name, log.display());
        print!("{}", std::fs::read_to_string(&log).unwrap_or_default());
        phases.timed.push((seconds, format!("suite: {} (side by side)", suite.name)));
        record(suite.name, success, seconds);
    }
    println!("==> gpu suite: cargo xtask gpu-test");
    let mut skipped = 0;
    let missing = missing_gpu_prerequisites();
    if missing.is_empty() {
        if gpu_test(ws, false)? == ExitCode::SUCCESS {
            passed += 1;
        } else {
            failed.push("gpu".to_string());
        }
    } else {
        for reason in &missing {
            println!("SKIPPED GPU suite: {reason}");
        }
        println!(
            "  to run it: `cargo xtask gpu-test` on a host with a Hopper GPU, nvcc and Python (Cython, numpy), \
             or `cargo xtask gpu-test --prepare-only` here and `bash tests/gpu/on-device.sh` there (tests/gpu/README.md)"
        );
        skipped += 1;
    }
    phases.add("the whole run".into(), started);
    phases.print_slowest(12);
    println!("suites: {passed} passed, {} failed, {skipped} skipped", failed.len());
    if !failed.is_empty() {
        println!("failed suites: {}", failed.join(", "));
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The tests that hold golden outputs, each rewriting its goldens when `CTKGEN_ACCEPT` (ours)
/// and `INSTA_UPDATE=always` (insta's) are set.
const GOLDEN_TESTS: [(&str, &str); 2] = [
    // The fixtures' IR snapshots and their Cython and Rust outputs.
    ("ctkgen", "fixtures"),
    // The ABI diff report of two real CTKs.
    ("ctkgen-diff", "ctk_bumps"),
];

/// Rewrites every golden output from what the code produces now, then lists what changed.
pub fn accept_goldens(ws: &Workspace) -> Result<ExitCode> {
    for (package, test) in GOLDEN_TESTS {
        println!("==> cargo test -p {package} --test {test}, accepting");
        let status = std::process::Command::new(cargo())
            .args(["test", "--quiet", "-p", package, "--test", test])
            .current_dir(&ws.root)
            .env("CTKGEN_ACCEPT", "1")
            .env("INSTA_UPDATE", "always")
            .status()
            .context("cannot run cargo test")?;
        if !status.success() {
            println!("cargo test -p {package} --test {test} failed for a reason other than its goldens");
            return Ok(ExitCode::from(1));
        }
    }
    println!("==> per-CTK ABI summaries");
    crate::model::abi_summaries(ws, false)?;
    println!("review the changes: git diff --stat -- tests/golden tests/abi");
    Ok(ExitCode::SUCCESS)
}
