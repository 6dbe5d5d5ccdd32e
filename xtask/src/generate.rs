//! `cargo xtask generate`: one source or every CTK, written or checked against what is there.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use ctkgen::{HeaderSource, Languages, ReadOptions, Workspace};

use crate::args::{GenerateArgs, Lang};
use crate::model::read_source;

pub fn generate(ws: &Workspace, args: GenerateArgs) -> Result<ExitCode> {
    let languages = match args.lang {
        Lang::Cython => Languages::Cython,
        Lang::Rust => Languages::Rust,
        Lang::All => Languages::All,
    };
    let read = args.read.options()?;
    let sources: Vec<HeaderSource> = if args.all {
        ws.catalogue()?.newest_per_minor().into_iter().map(|r| HeaderSource::Ctk(r.ctk.clone())).collect()
    } else if let Some(ctk) = &args.ctk {
        vec![HeaderSource::Ctk(ctk.clone())]
    } else if let Some(header) = &args.header {
        vec![HeaderSource::Header(header.clone())]
    } else if let Some(dir) = args.cuda_home.clone().or_else(|| std::env::var_os("CUDA_HOME").map(PathBuf::from)) {
        vec![HeaderSource::CudaHome(dir)]
    } else {
        bail!("give --ctk VERSION, --all, --header FILE or --cuda-home DIR");
    };

    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.jobs.unwrap_or(0)).build()?;
    let progress = Progress::new(sources.len() as u64);
    let outcomes: Vec<Result<Generated>> = pool.install(|| {
        use rayon::prelude::*;
        sources
            .par_iter()
            .map(|source| {
                let outcome = generate_one(ws, source, &args, languages, &read);
                progress.finished(outcome.as_ref().map(|g| g.label.as_str()).unwrap_or("failed"));
                outcome
            })
            .collect()
    });
    progress.done();

    let mut stale = false;
    let mut first_error = None;
    for outcome in outcomes {
        match outcome {
            Ok(generated) => {
                stale |= generated.stale;
                print!("{}", generated.report);
            }
            Err(e) if first_error.is_none() => first_error = Some(e),
            Err(_) => {}
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    Ok(if stale { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// What one source's generation did.
struct Generated {
    label: String,
    /// What to print about it.
    report: String,
    /// With --check: the output differs from what generation would write.
    stale: bool,
}

/// Generates (or with --check compares) one source.
fn generate_one(
    ws: &Workspace,
    source: &HeaderSource,
    args: &GenerateArgs,
    languages: Languages,
    read: &ReadOptions,
) -> Result<Generated> {
    let (headers, api) = read_source(ws, source, read)?;
    if !args.all {
        // One source: nothing is parsed after this.
        ctkgen::release_libclang_pages();
    }
    let label = ctkgen::source_label(&headers);
    let command = match source {
        HeaderSource::Ctk(_) => format!("cargo xtask generate --ctk {label}"),
        HeaderSource::Header(p) => {
            format!("cargo xtask generate --header {}", p.file_name().unwrap_or_default().to_string_lossy())
        }
        HeaderSource::CudaHome(_) => format!("cargo xtask generate --cuda-home <CUDA {label}>"),
    };
    let options = ctkgen::GenerateOptions {
        languages,
        python_package: args.python_package.clone(),
        legacy_inline_layout: args.legacy_inline_layout,
        command,
        library: ws.library(ctkgen::DRIVER_LIBRARY)?,
    };
    let files = ctkgen::emit(&api, &headers, &options).with_context(|| format!("generating {label}"))?;
    let out = match (&args.out, args.all) {
        (Some(dir), true) => dir.join(&label),
        (Some(dir), false) => dir.clone(),
        (None, _) => ws.default_output(&label),
    };
    let mut report = String::new();
    let mut stale = false;
    if args.check {
        let staleness = ctkgen::check_tree(&out, &files)?;
        stale = !staleness.is_fresh();
        for (path, diff) in &staleness.changed {
            report.push_str(&format!("stale: {path}\n{diff}"));
        }
        for path in &staleness.missing {
            report.push_str(&format!("missing: {path}\n"));
        }
        for path in &staleness.extra {
            report.push_str(&format!("not generated: {path}\n"));
        }
        if staleness.is_fresh() {
            report.push_str(&format!("{label}: {} is fresh\n", out.display()));
        }
    } else {
        let summary = ctkgen::write_tree(&out, &files)?;
        report.push_str(&format!(
            "{label}: {} files in {} ({} written, {} unchanged, {} removed)\n",
            files.len(),
            out.display(),
            summary.written.len(),
            summary.unchanged,
            summary.removed.len()
        ));
    }
    Ok(Generated { label, report, stale })
}

/// A progress bar on a terminal, plain lines elsewhere (logs, CI).
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    /// Plain progress lines, for several sources without a terminal.
    plain: bool,
}

impl Progress {
    fn new(total: u64) -> Progress {
        use std::io::IsTerminal;
        let bar = (total > 1 && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(total);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").expect("valid template"),
            );
            bar
        });
        let plain = total > 1 && bar.is_none();
        Progress { bar, plain }
    }

    fn finished(&self, label: &str) {
        match &self.bar {
            Some(bar) => {
                bar.set_message(label.to_string());
                bar.inc(1);
            }
            None if self.plain => eprintln!("done: {label}"),
            None => {}
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
