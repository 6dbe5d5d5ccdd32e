//! Measurements for `cargo xtask bench`: per-stage wall time, CPU time and memory inside one
//! run, and wall time, CPU time and peak memory of whole child processes (ctkgen itself and the
//! peer), plus the facts about the machine a figure needs next to it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use ctkgen::{GenerateOptions, HeaderSource, Languages, PipelineError, ReadOptions, Workspace};

/// One stage of the pipeline, named by its place in [`STAGES`]: how long it took, the CPU time
/// of all the process's threads meanwhile, and the process's peak memory once it ended.
#[derive(Debug, Clone)]
pub struct Stage {
    pub wall: Duration,
    pub cpu: Duration,
    pub peak_rss_kib: u64,
}

/// The stage names [`stages`] reports, in order.
pub const STAGES: [&str; 6] =
    ["headers (cached)", "parse (c11 + c++17)", "IR passes", "cython emission", "rust emission", "write"];

/// Runs the pipeline once for `source`, writing into `out`, timing each stage.
pub fn stages(ws: &Workspace, source: &HeaderSource, out: &Path) -> Result<Vec<Stage>, PipelineError> {
    let mut stages = Vec::new();
    let mut start = (Instant::now(), process_cpu());
    let mut mark = |stages: &mut Vec<Stage>| {
        let (wall, cpu) = (start.0.elapsed(), process_cpu().saturating_sub(start.1));
        stages.push(Stage { wall, cpu, peak_rss_kib: peak_rss_kib() });
        start = (Instant::now(), process_cpu());
    };
    let library = ws.primary_library()?;
    let package = ws.package()?;
    let headers = ctkgen::resolve_library_headers(ws, source, &library)?;
    mark(&mut stages);
    let api = ctkgen::read_api_observed(ws, &headers, &ReadOptions::default(), || mark(&mut stages))?;
    mark(&mut stages);
    let options = |languages| GenerateOptions {
        languages,
        python_package: "ctkgen_cuda".into(),
        legacy_inline_layout: false,
        strict_integers: false,
        command: "cargo xtask bench".into(),
        package: package.clone(),
    };
    let bound = [ctkgen::BoundLibrary { library: &library, headers: &headers, api: &api }];
    let mut files = ctkgen::emit(&bound, &options(Languages::Cython))?;
    mark(&mut stages);
    files.extend(ctkgen::emit(&bound, &options(Languages::Rust))?);
    mark(&mut stages);
    ctkgen::write_tree(out, &files, ctkgen::Ownership::Manifest { command: "cargo xtask bench" })?;
    mark(&mut stages);
    Ok(stages)
}

/// User plus system CPU time of every thread of this process so far.
pub fn process_cpu() -> Duration {
    // SAFETY: an all-zero rusage is a valid out-parameter; getrusage only writes it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    cpu_of(&usage)
}

fn cpu_of(usage: &libc::rusage) -> Duration {
    let time =
        |t: libc::timeval| Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The process's high-water mark of resident memory (`VmHWM`), in KiB.
pub fn peak_rss_kib() -> u64 {
    status_kib("VmHWM:")
}

/// The process's resident memory now (`VmRSS`), in KiB.
pub fn rss_kib() -> u64 {
    status_kib("VmRSS:")
}

fn status_kib(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with(key)).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

/// The one-, five- and fifteen-minute load averages, as `/proc/loadavg` writes them.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// `N cores, MODEL`: what the machine offers this process.
pub fn machine() -> String {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("model name")).and_then(|l| Some(l.split_once(':')?.1.trim().to_string()))
        })
        .unwrap_or_else(|| "unknown CPU".into());
    format!("{cores} cores, {model}")
}

/// A finished child process: wall time, CPU time, peak resident memory, and whether it
/// succeeded.
#[derive(Debug, Clone)]
pub struct ProcessRun {
    pub wall: Duration,
    pub cpu: Duration,
    pub peak_rss_kib: u64,
    pub success: bool,
    pub stderr_tail: String,
}

/// Runs `command` to completion and reads its CPU time and peak memory from `wait4`.
///
/// Linux counts the parent's resident memory at the moment of spawning into the child's peak
/// (the child starts as a copy of the parent's address space), so a peak read here is never
/// below [`rss_kib`] of the caller: spawn measured processes while this process is still small.
pub fn run_process(command: &mut Command) -> std::io::Result<ProcessRun> {
    command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    let start = Instant::now();
    let mut child = command.spawn()?;
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut s) = stderr {
            let _ = std::io::Read::read_to_string(&mut s, &mut text);
        }
        text
    });
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid out-parameter for wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; both out-pointers are valid for the call.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let text = reader.join().unwrap_or_default();
    let tail = text.lines().rev().take(3).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
    Ok(ProcessRun {
        wall,
        cpu: cpu_of(&usage),
        peak_rss_kib: usage.ru_maxrss as u64,
        success: libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        stderr_tail: tail,
    })
}

/// The median of some values (the lower middle for an even count).
pub fn median<T: Ord + Copy + Default>(mut values: Vec<T>) -> T {
    values.sort();
    values.get(values.len().saturating_sub(1) / 2).copied().unwrap_or_default()
}

/// Repeated runs of one command: medians of wall and CPU time, the largest peak.
#[derive(Debug, Clone, Default)]
pub struct Runs {
    walls: Vec<Duration>,
    cpus: Vec<Duration>,
    peaks: Vec<u64>,
}

impl ProcessRun {
    /// Several processes run one after the other, as one: times add up, the peak is the largest.
    pub fn sequence(runs: &[ProcessRun]) -> ProcessRun {
        ProcessRun {
            wall: runs.iter().map(|r| r.wall).sum(),
            cpu: runs.iter().map(|r| r.cpu).sum(),
            peak_rss_kib: runs.iter().map(|r| r.peak_rss_kib).max().unwrap_or(0),
            success: runs.iter().all(|r| r.success),
            stderr_tail: runs.iter().map(|r| r.stderr_tail.as_str()).collect::<Vec<_>>().join("\n"),
        }
    }
}

impl Runs {
    pub fn push(&mut self, run: &ProcessRun) {
        self.walls.push(run.wall);
        self.cpus.push(run.cpu);
        self.peaks.push(run.peak_rss_kib);
    }
    pub fn wall(&self) -> Duration {
        median(self.walls.clone())
    }
    pub fn cpu(&self) -> Duration {
        median(self.cpus.clone())
    }
    pub fn peak_kib(&self) -> u64 {
        self.peaks.iter().max().copied().unwrap_or(0)
    }
    pub fn is_empty(&self) -> bool {
        self.walls.is_empty()
    }
}
