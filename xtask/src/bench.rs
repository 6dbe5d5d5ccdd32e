//! `cargo xtask bench`: the generator timed stage by stage and as whole processes, against
//! bindgen on the same header.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use ctkgen::{HeaderSource, Workspace};

use crate::args::BenchArgs;
use crate::measure::ProcessRun;

/// The peer for the generator benchmark, pinned.
const BINDGEN_VERSION: &str = "0.73.2";

/// bindgen's CLI from PATH at the pinned version, or installed from crates.io into the cache.
fn bindgen(ws: &Workspace, install: bool) -> Result<Option<PathBuf>> {
    let root = ws.cache.root().join(format!("bindgen-{BINDGEN_VERSION}"));
    let cached = root.join("bin").join("bindgen");
    if cached.is_file() {
        return Ok(Some(cached));
    }
    if !install {
        return Ok(None);
    }
    eprintln!("installing bindgen-cli {BINDGEN_VERSION} into {} (once)", root.display());
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args(["install", "bindgen-cli", "--locked", "--version", BINDGEN_VERSION, "--root"])
        .arg(&root)
        .status()
        .context("cannot run cargo install")?;
    if !status.success() {
        bail!("cargo install bindgen-cli {BINDGEN_VERSION} failed");
    }
    Ok(Some(cached))
}

pub fn bench(ws: &Workspace, args: BenchArgs) -> Result<ExitCode> {
    use crate::measure::{load_average, machine, median, rss_kib, run_process, stages, Runs, STAGES};
    let (source, runs) = if args.tiny {
        (HeaderSource::Header(ws.root.join("tests/headers/functions_enums.h")), 1)
    } else {
        (HeaderSource::Ctk(args.ctk.clone()), args.runs.max(1))
    };
    let headers = ctkgen::resolve_headers(ws, &source)?;
    let label = ctkgen::source_label(&headers);
    // The peer reads each library's main header in a run of its own; a lone header is one library.
    let library_headers: Vec<ctkgen::HeaderSet> = match &source {
        HeaderSource::Header(_) => vec![headers.clone()],
        _ => ws
            .libraries()?
            .iter()
            .map(|library| ctkgen::resolve_library_headers(ws, &source, library))
            .collect::<Result<_, _>>()?,
    };
    let libclang = ctkgen::locate_libclang(ws)?;
    let scratch = tempfile::tempdir()?;
    let me = std::env::current_exe()?;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let mib = |kib: u64| kib as f64 / 1024.0;

    println!("# ctkgen bench: {label}, {runs} run(s)");
    println!("machine: {}; load average at start: {}", machine(), load_average());

    let source_args: Vec<String> = match &source {
        HeaderSource::Header(p) => vec!["--header".into(), p.display().to_string()],
        _ => vec!["--ctk".into(), label.clone()],
    };
    let ours_ir = |n: usize| {
        let mut c = std::process::Command::new(&me);
        c.arg("ir").args(&source_args).arg("-o").arg(scratch.path().join(format!("ir-{n}.json")));
        c
    };
    let ours = |n: usize| {
        let mut c = std::process::Command::new(&me);
        c.arg("generate")
            .args(&source_args)
            .args(["--lang", "all", "--out"])
            .arg(scratch.path().join(format!("ours-{n}")));
        c
    };
    let peer = bindgen(ws, !args.tiny)?;
    let peer_cmd = |bin: &Path, headers: &ctkgen::HeaderSet, n: usize, dynamic: bool| {
        let stem = headers.main_header.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        let mut c = std::process::Command::new(bin);
        c.arg(&headers.main_header).arg("-o").arg(scratch.path().join(format!("bindgen-{stem}-{n}-{dynamic}.rs")));
        if dynamic {
            c.args(["--dynamic-loading", "Library"]);
        }
        c.args(["--", "-x", "c", "-std=c11", &format!("--target={}", ctkgen::DEFAULT_TARGET), "-nostdinc", "-isystem"])
            .arg(ws.system_include_dir())
            .arg(format!("-I{}", headers.include_dir.display()))
            .env("LIBCLANG_PATH", &libclang);
        c
    };
    let check = |run: ProcessRun, what: &str| -> Result<ProcessRun> {
        if !run.success {
            bail!("{what} failed: {}", run.stderr_tail);
        }
        Ok(run)
    };

    // Child processes first: a child's peak memory counts this process's resident memory at
    // the spawn, so they run before this process loads libclang or parses anything.
    let floor = rss_kib();
    let (mut ir_runs, mut ours_runs, mut peer_runs, mut plain_runs) =
        (Runs::default(), Runs::default(), Runs::default(), Runs::default());
    for n in 0..runs + 1 {
        // Run 0 warms caches for every command and is not counted.
        let ir = check(run_process(&mut ours_ir(n))?, "ctkgen ir")?;
        let run = check(run_process(&mut ours(n))?, "ctkgen generate")?;
        if n > 0 {
            ir_runs.push(&ir);
            ours_runs.push(&run);
        }
        if let Some(bin) = &peer {
            for dynamic in [true, false] {
                let each = library_headers
                    .iter()
                    .map(|headers| check(run_process(&mut peer_cmd(bin, headers, n, dynamic))?, "bindgen"))
                    .collect::<Result<Vec<_>>>()?;
                let run = ProcessRun::sequence(&each);
                match (n > 0, dynamic) {
                    (true, true) => peer_runs.push(&run),
                    (true, false) => plain_runs.push(&run),
                    _ => {}
                }
            }
        }
    }
    let mut all_runs = Runs::default();
    if !args.tiny {
        for n in 0..runs.min(5) {
            let mut c = std::process::Command::new(&me);
            c.args(["generate", "--all", "--out"]).arg(scratch.path().join(format!("all-{n}")));
            all_runs.push(&check(run_process(&mut c)?, "generate --all")?);
        }
    }

    println!("\n## whole processes, median of {runs} alternating runs (peak: largest of the runs)");
    println!("{:<40} {:>9} {:>9} {:>9}", "command", "wall ms", "cpu ms", "peak MiB");
    let row = |name: &str, r: &Runs| {
        println!("{name:<40} {:>9.1} {:>9.1} {:>9.1}", ms(r.wall()), ms(r.cpu()), mib(r.peak_kib()))
    };
    row("ctkgen ir (json)", &ir_runs);
    let libraries = library_headers.len();
    row(&format!("ctkgen generate, cython + rust, {libraries} lib(s)"), &ours_runs);
    if peer.is_some() {
        let headers: Vec<String> = library_headers
            .iter()
            .map(|h| h.main_header.file_name().unwrap_or_default().to_string_lossy().into_owned())
            .collect();
        println!("(bindgen: one run per library header, {}, one after the other)", headers.join(", "));
        row(&format!("bindgen {BINDGEN_VERSION} --dynamic-loading"), &peer_runs);
        row(&format!("bindgen {BINDGEN_VERSION} (plain)"), &plain_runs);
    } else {
        println!("peer skipped: bindgen {BINDGEN_VERSION} is not installed (a run without --tiny installs it)");
    }
    if !all_runs.is_empty() {
        row("ctkgen generate --all", &all_runs);
    }
    println!("(no peak can read below {:.1} MiB, this process's resident memory when spawning)", mib(floor));

    println!("\n## stages in this process, libclang {}", ctkgen::libclang_version(&libclang)?);
    println!("(median of {runs} runs after a warm-up; peak: process high-water mark after the stage in the first run)");
    let mut measured = Vec::new();
    for n in 0..runs + 1 {
        measured.push(stages(ws, &source, &scratch.path().join(format!("stages-{n}")))?);
    }
    let first_peaks: Vec<u64> = measured[0].iter().map(|s| s.peak_rss_kib).collect();
    let measured = &measured[1..];
    let stage_wall = |i: usize| median(measured.iter().map(|run| run[i].wall).collect());
    let stage_cpu = |i: usize| median(measured.iter().map(|run| run[i].cpu).collect());
    println!("{:<24} {:>9} {:>9} {:>9}", "stage", "wall ms", "cpu ms", "peak MiB");
    for (i, name) in STAGES.iter().enumerate() {
        println!("{name:<24} {:>9.1} {:>9.1} {:>9.1}", ms(stage_wall(i)), ms(stage_cpu(i)), mib(first_peaks[i]));
    }

    if !args.tiny {
        println!(
            "\n## every CTK in the catalogue, stages in this process (one run each, {} threads)",
            rayon::current_num_threads()
        );
        let header = ["ctk", "parse ms", "IR ms", "cython ms", "rust ms", "write ms", "cpu ms"];
        println!("{:<10}{}", header[0], header[1..].iter().map(|h| format!(" {h:>10}")).collect::<String>());
        let row = |label: &str, figures: &[f64]| {
            println!("{label:<10}{}", figures.iter().map(|f| format!(" {f:>10.1}")).collect::<String>())
        };
        let mut totals = [0.0f64; 6];
        for release in ws.catalogue()?.newest_per_minor() {
            let run = stages(
                ws,
                &HeaderSource::Ctk(release.ctk.clone()),
                &scratch.path().join(format!("each-{}", release.ctk)),
            )?;
            let cpu: std::time::Duration = run.iter().map(|s| s.cpu).sum();
            let figures =
                [ms(run[1].wall), ms(run[2].wall), ms(run[3].wall), ms(run[4].wall), ms(run[5].wall), ms(cpu)];
            for (total, figure) in totals.iter_mut().zip(figures) {
                *total += figure;
            }
            row(&release.ctk, &figures);
        }
        row("total", &totals);
    }

    println!("\n## targets{}", if args.tiny { " (a fixture header: proves the command, not the targets)" } else { "" });
    let verdict = |met: bool| if met { "met" } else { "missed" };
    let target = |name: &str, figure: String, goal: &str, met: bool| {
        println!("{name:<44} {figure:>16}  target {goal:<8} {}", verdict(met))
    };
    target(
        "IR of one CTK (ctkgen ir, whole process)",
        format!("{:.1} ms", ms(ir_runs.wall())),
        "<= 100 ms",
        ms(ir_runs.wall()) <= 100.0,
    );
    target("cython emission (stage)", format!("{:.1} ms", ms(stage_wall(3))), "<= 150 ms", ms(stage_wall(3)) <= 150.0);
    target("rust emission (stage)", format!("{:.1} ms", ms(stage_wall(4))), "<= 150 ms", ms(stage_wall(4)) <= 150.0);
    if peer.is_some() {
        let time = ms(ours_runs.wall()) / ms(peer_runs.wall());
        let cpu = ms(ours_runs.cpu()) / ms(peer_runs.cpu());
        let memory = ours_runs.peak_kib() as f64 / peer_runs.peak_kib().max(1) as f64;
        target("one CTK, every library / bindgen --dyn: time", format!("{time:.2}x"), "<= 0.4x", time <= 0.4);
        println!("{:<44} {:>16}", "  (cpu time, for reference)", format!("{cpu:.2}x"));
        target("one CTK, every library / bindgen --dyn: peak", format!("{memory:.2}x"), "<= 1.0x", memory <= 1.0);
    }
    if !all_runs.is_empty() {
        let all = all_runs.wall().as_secs_f64();
        target("all CTKs, both languages (generate --all)", format!("{all:.2} s"), "<= 3 s", all <= 3.0);
    }
    println!("load average at end: {}", load_average());
    Ok(ExitCode::SUCCESS)
}
