//! Measurements for `cargo xtask bench`: per-stage wall time and peak memory inside one run,
//! and wall time and peak memory of whole child processes (ctkgen itself and the peer).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::{GenerateOptions, HeaderSource, Languages, PipelineError, ReadOptions, Workspace};

/// One stage of the pipeline: how long it took and the process's peak memory once it ended.
#[derive(Debug, Clone)]
pub struct Stage {
    pub name: &'static str,
    pub wall: Duration,
    pub peak_rss_kib: u64,
}

/// Runs the pipeline once for `source`, writing into `out`, timing each stage.
pub fn stages(ws: &Workspace, source: &HeaderSource, out: &Path) -> Result<Vec<Stage>, PipelineError> {
    let mut stages = Vec::new();
    let mark = |name: &'static str, start: Instant, stages: &mut Vec<Stage>| {
        stages.push(Stage { name, wall: start.elapsed(), peak_rss_kib: peak_rss_kib() });
    };
    let t = Instant::now();
    let headers = crate::resolve_headers(ws, source)?;
    mark("headers (cached)", t, &mut stages);
    let t = Instant::now();
    let api = crate::read_api(ws, &headers, &ReadOptions::default())?;
    mark("parse (c11 + c++17)", t, &mut stages);
    let options = |languages| GenerateOptions {
        languages,
        python_package: "ctkgen_cuda".into(),
        legacy_inline_layout: false,
        command: "cargo xtask bench".into(),
    };
    let t = Instant::now();
    let mut files = crate::emit(&api, &headers, &options(Languages::Cython))?;
    mark("cython emission", t, &mut stages);
    let t = Instant::now();
    files.extend(crate::emit(&api, &headers, &options(Languages::Rust))?);
    mark("rust emission", t, &mut stages);
    let t = Instant::now();
    crate::write_tree(out, &files)?;
    mark("write", t, &mut stages);
    Ok(stages)
}

/// The process's high-water mark of resident memory (`VmHWM`), in KiB.
pub fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

/// A finished child process: wall time, peak resident memory, and whether it succeeded.
#[derive(Debug, Clone)]
pub struct ProcessRun {
    pub wall: Duration,
    pub peak_rss_kib: u64,
    pub success: bool,
    pub stderr_tail: String,
}

/// Runs `command` to completion and reads its own peak memory from `wait4`.
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
        peak_rss_kib: usage.ru_maxrss as u64,
        success: libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        stderr_tail: tail,
    })
}

/// The median of some durations (the lower middle for an even count).
pub fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values.get(values.len().saturating_sub(1) / 2).copied().unwrap_or_default()
}
