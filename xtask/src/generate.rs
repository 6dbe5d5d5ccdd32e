//! `cargo xtask generate`: one source or every CTK, written or checked against what is there.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use ctkgen::{HeaderSource, Languages, Ownership, ReadOptions, Workspace};

use crate::args::{GenerateArgs, Lang};
use crate::model::read_source_reporting;

pub fn generate(ws: &Workspace, args: GenerateArgs) -> Result<ExitCode> {
    let languages = match args.lang {
        Lang::Cython => Languages::Cython,
        Lang::Rust => Languages::Rust,
        Lang::All => Languages::All,
    };
    let read = args.read.options()?;
    // Refused before any header is read, which takes seconds.
    if languages.cython() {
        ctkgen::check_python_package(&args.python_package)?;
    }
    if let Some(out) = &args.out {
        ctkgen::check_output_folder(out).map_err(|e| anyhow!("{e}; choose another --out"))?;
    }
    let mut libraries = ws.chosen_libraries(&args.libraries)?;
    if args.header.is_some() {
        // A lone header is one library's main header.
        if args.libraries.len() > 1 {
            bail!("--header reads one library's header; give at most one --library");
        }
        libraries.retain(|library| args.libraries.is_empty() || args.libraries.contains(&library.name));
        libraries.truncate(1);
    }
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
        if args.all {
            every_ctk(ws, &sources, &libraries, &args, languages, &read, &progress)
        } else {
            sources.iter().map(|source| generate_one(ws, source, &libraries, &args, languages, &read)).collect()
        }
    });
    progress.done();

    let mut stale_files = 0;
    let mut first_error = None;
    for outcome in outcomes {
        match outcome {
            Ok(generated) => {
                stale_files += generated.stale_files;
                print!("{}", generated.report);
            }
            Err(e) if first_error.is_none() => first_error = Some(e),
            Err(_) => {}
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    if args.check && stale_files > 0 {
        let plural = if stale_files == 1 { "" } else { "s" };
        println!("{stale_files} stale file{plural}; run `{}` to refresh", refresh_command(&args));
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The command that rewrites what `args --check` compared.
fn refresh_command(args: &GenerateArgs) -> String {
    let mut command = String::from("cargo xtask generate");
    if args.all {
        command.push_str(" --all");
    } else if let Some(ctk) = &args.ctk {
        command.push_str(&format!(" --ctk {ctk}"));
    } else if let Some(header) = &args.header {
        command.push_str(&format!(" --header {}", header.display()));
    } else if let Some(dir) = &args.cuda_home {
        command.push_str(&format!(" --cuda-home {}", dir.display()));
    }
    for library in &args.libraries {
        command.push_str(&format!(" --library {library}"));
    }
    if let Some(out) = &args.out {
        command.push_str(&format!(" --out {}", out.display()));
    }
    match args.lang {
        Lang::All => {}
        Lang::Cython => command.push_str(" --lang cython"),
        Lang::Rust => command.push_str(" --lang rust"),
    }
    command
}

/// What one source's generation (or the Rust crates') did.
struct Generated {
    label: String,
    /// What to print about it.
    report: String,
    /// With --check: how many files differ from what generation would write.
    stale_files: usize,
}

/// What one source has of the chosen libraries: those it ships, each with its headers and
/// model, and those it does not (the catalogue lists their header for other releases only).
pub struct Models {
    pub libraries: Vec<ctkgen::Library>,
    pub models: Vec<(ctkgen::HeaderSet, ctkgen::Api)>,
    skipped: Vec<ctkgen::Library>,
}

impl Models {
    fn bound(&self) -> Vec<ctkgen::BoundLibrary<'_>> {
        (self.libraries.iter().zip(&self.models))
            .map(|(library, (headers, api))| ctkgen::BoundLibrary { library, headers, api })
            .collect()
    }
}

/// `--all`: every CTK's models are read first (in parallel); then each CTK's Python package and
/// the Rust crates, which bind every CTK at once, are emitted side by side. The outcomes: one
/// per CTK's package, then the crates'.
fn every_ctk(
    ws: &Workspace,
    sources: &[HeaderSource],
    libraries: &[ctkgen::Library],
    args: &GenerateArgs,
    languages: Languages,
    read: &ReadOptions,
    progress: &Progress,
) -> Vec<Result<Generated>> {
    use rayon::prelude::*;
    let read: Vec<Result<Models>> =
        sources.par_iter().map(|source| read_models(ws, source, libraries, read, false)).collect();
    let mut models = Vec::with_capacity(read.len());
    for outcome in read {
        match outcome {
            Ok(read) => models.push(read),
            Err(e) => return vec![Err(e)],
        }
    }
    let (mut packages, crates) = rayon::join(
        || {
            if !languages.cython() {
                return Vec::new();
            }
            (sources.par_iter().zip(&models))
                .map(|(source, models)| {
                    let outcome = emit_one(ws, source, models, args, Languages::Cython);
                    progress.finished(outcome.as_ref().map(|g| g.label.as_str()).unwrap_or("failed"));
                    outcome
                })
                .collect()
        },
        || languages.rust().then(|| rust_crates(ws, args, &models)),
    );
    packages.extend(crates);
    packages
}

/// The command named in the Rust crates that bind every CTK: the same whatever else the run
/// wrote, so that `--all --lang rust --check` judges what `--all` wrote.
fn all_command(args: &GenerateArgs) -> String {
    let mut command = String::from("cargo xtask generate --all");
    for library in &args.libraries {
        command.push_str(&format!(" --library {library}"));
    }
    command
}

/// Reads one source's models of the chosen libraries it ships (a release that does not ship one
/// is generated without it, and the report says so); each library is asked in turn, so a
/// source's first problem is the one reported. With `alone`, the process parses nothing after
/// this source: libclang's pages go as soon as the last library is read, and stages are told.
pub fn read_models(
    ws: &Workspace,
    source: &HeaderSource,
    libraries: &[ctkgen::Library],
    read: &ReadOptions,
    alone: bool,
) -> Result<Models> {
    let mut found = Models { libraries: Vec::new(), models: Vec::new(), skipped: Vec::new() };
    for (index, library) in libraries.iter().enumerate() {
        if !ctkgen::source_has_library(ws, source, library)? {
            found.skipped.push(library.clone());
            continue;
        }
        let last = alone && index + 1 == libraries.len();
        let report = |line: &str| {
            if alone {
                stage(line);
            }
        };
        let (headers, api, ()) = read_source_reporting(ws, source, read, library, last, report, || ())?;
        found.models.push((headers, api));
        found.libraries.push(library.clone());
    }
    if found.models.is_empty() {
        bail!("none of the chosen libraries is in this release");
    }
    Ok(found)
}

/// Writes (or with --check compares) each library's one crate for every CTK read, under
/// `<out>/rust/`; returns the report and, with --check, how many files are stale.
fn rust_crates(ws: &Workspace, args: &GenerateArgs, models: &[Models]) -> Result<Generated> {
    let command = all_command(args);
    let toolkits: Vec<Vec<ctkgen::BoundLibrary>> = models.iter().map(Models::bound).collect();
    let files = ctkgen::emit_rust_crates(&toolkits, &command).context("generating the Rust crates")?;
    let out = args.out.clone().unwrap_or_else(|| ws.root.join("target").join("ctkgen")).join("rust");
    let label = format!("rust crates ({} CTKs)", models.len());
    let (report, stale_files) = report_tree(&out, &files, &command, check_mode(args), &label)?;
    Ok(Generated { label, report, stale_files })
}

/// How `--check` reports: every stale file with its diff for one source, a line per CTK for
/// `--all` (what a release pipeline reads).
#[derive(Clone, Copy, PartialEq, Eq)]
enum CheckMode {
    Write,
    Detailed,
    OneLine,
}

fn check_mode(args: &GenerateArgs) -> CheckMode {
    match (args.check, args.all) {
        (false, _) => CheckMode::Write,
        (true, false) => CheckMode::Detailed,
        (true, true) => CheckMode::OneLine,
    }
}

/// `label`'s one line of `--check --all`: fresh, or how many files are stale and the first.
fn one_line_check(label: &str, out: &std::path::Path, staleness: &ctkgen::Staleness) -> String {
    let kept = match staleness.foreign.len() {
        0 => String::new(),
        n => format!("; {n} other files kept"),
    };
    if staleness.is_fresh() {
        return format!("{label}: fresh ({}{kept})\n", out.display());
    }
    let counts = [
        (staleness.changed.len(), "changed"),
        (staleness.missing.len(), "missing"),
        (staleness.obsolete.len(), "no longer generated"),
    ];
    let parts: Vec<String> = counts.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")).collect();
    let first = (staleness.changed.iter().map(|(path, _)| path))
        .chain(&staleness.missing)
        .chain(&staleness.obsolete)
        .next()
        .map(|path| format!(", first {path}"))
        .unwrap_or_default();
    format!("{label}: STALE: {}{first} (in {}{kept})\n", parts.join(", "), out.display())
}

/// Writes `files` to `out` (or with a check mode compares them) and says what it did; returns
/// that and the number of stale files.
fn report_tree(
    out: &std::path::Path,
    files: &[ctkgen::OutputFile],
    command: &str,
    mode: CheckMode,
    label: &str,
) -> Result<(String, usize)> {
    let mut report = String::new();
    if mode == CheckMode::OneLine {
        let staleness = ctkgen::check_tree(out, files, Ownership::Manifest { command })?;
        return Ok((one_line_check(label, out, &staleness), staleness.stale_files()));
    }
    if mode == CheckMode::Detailed {
        let staleness = ctkgen::check_tree(out, files, Ownership::Manifest { command })?;
        for (path, diff) in &staleness.changed {
            report.push_str(&format!("stale: {path}\n{diff}"));
        }
        for path in &staleness.missing {
            report.push_str(&format!("missing: {path}\n"));
        }
        for path in &staleness.obsolete {
            report.push_str(&format!("no longer generated: {path}\n"));
        }
        if !staleness.foreign.is_empty() {
            // Build products and the user's files: listed, never judged.
            report.push_str(&format!(
                "{label}: {} other files, not written by ctkgen (kept):\n",
                staleness.foreign.len()
            ));
            for path in &staleness.foreign {
                report.push_str(&format!("  {path}\n"));
            }
        }
        if staleness.is_fresh() {
            report.push_str(&format!("{label}: {} is fresh\n", out.display()));
        }
        return Ok((report, staleness.stale_files()));
    }
    let summary = ctkgen::write_tree(out, files, Ownership::Manifest { command })?;
    let kept = match summary.kept {
        0 => String::new(),
        n => format!(", {n} other files kept"),
    };
    report.push_str(&format!(
        "{label}: {} files in {} ({} written, {} unchanged, {} removed{kept})\n",
        files.len(),
        out.display(),
        summary.written.len(),
        summary.unchanged,
        summary.removed.len()
    ));
    Ok((report, 0))
}

/// Generates (or with --check compares) one source.
fn generate_one(
    ws: &Workspace,
    source: &HeaderSource,
    libraries: &[ctkgen::Library],
    args: &GenerateArgs,
    languages: Languages,
    read: &ReadOptions,
) -> Result<Generated> {
    let models = read_models(ws, source, libraries, read, true)?;
    let generated = emit_one(ws, source, &models, args, languages);
    // One source: the process ends next, and the system reclaims the models' megabytes at once;
    // freeing them block by block first only costs time.
    std::mem::forget(models);
    generated
}

/// One source at a time on the screen: what stage it is in. Many at once have a bar.
fn stage(line: &str) {
    crate::progress(line);
}

/// Emits (or with --check compares) one source's bindings in `languages`.
fn emit_one(
    ws: &Workspace,
    source: &HeaderSource,
    models: &Models,
    args: &GenerateArgs,
    languages: Languages,
) -> Result<Generated> {
    let stage = |line: &str| {
        if !args.all {
            stage(line);
        }
    };
    let label = ctkgen::source_label(&models.models[0].0);
    let mut command = match source {
        HeaderSource::Ctk(_) => format!("cargo xtask generate --ctk {label}"),
        HeaderSource::Header(p) => {
            format!("cargo xtask generate --header {}", p.file_name().unwrap_or_default().to_string_lossy())
        }
        HeaderSource::CudaHome(_) => format!("cargo xtask generate --cuda-home <CUDA {label}>"),
    };
    // The files say how they were made: this option changes what the Python package accepts.
    if args.strict_integers {
        command.push_str(" --strict-integers");
    }
    let options = ctkgen::GenerateOptions {
        languages,
        python_package: args.python_package.clone(),
        legacy_inline_layout: args.legacy_inline_layout,
        strict_integers: args.strict_integers,
        command,
        package: ws.package()?,
    };
    let bound = models.bound();
    let emitters = match languages {
        Languages::All => "cython and rust",
        Languages::Cython => "cython",
        Languages::Rust => "rust",
    };
    stage(&format!("emitting {emitters}"));
    let files = ctkgen::emit(&bound, &options).with_context(|| format!("generating {label}"))?;
    let out = match (&args.out, args.all) {
        (Some(dir), true) => dir.join(&label),
        (Some(dir), false) => dir.clone(),
        (None, _) => ws.default_output(&label),
    };
    if !args.check {
        stage(&format!("writing {}", out.display()));
    }
    let mut report = String::new();
    for library in &models.skipped {
        report.push_str(&format!(
            "{label}: no {} in this release (the catalogue lists it for others): {} skipped\n",
            library.conventions.header, library.name
        ));
    }
    let (written, stale_files) = report_tree(&out, &files, &options.command, check_mode(args), &label)?;
    report.push_str(&written);
    if !args.all {
        // See generate_one: the files' megabytes go with the process.
        std::mem::forget(files);
    }
    Ok(Generated { label, report, stale_files })
}

/// Writes what `generate --ctk <ctk> --out <out>` writes, every language, with the package
/// named `python_package`; returns the release's label (`13.1.2`), what generation said and the
/// models read (a release's notes compare them with the previous CTK's).
pub fn generate_into(
    ws: &Workspace,
    ctk: &str,
    libraries: &[String],
    python_package: &str,
    out: &std::path::Path,
) -> Result<(String, String, Models)> {
    let args = GenerateArgs {
        ctk: Some(ctk.to_string()),
        all: false,
        header: None,
        cuda_home: None,
        libraries: libraries.to_vec(),
        // Emitting reads no option of these; the headers are read with the defaults below.
        read: crate::args::ReadArgs { target: ctkgen::DEFAULT_TARGET.into(), std: Vec::new() },
        out: Some(out.to_path_buf()),
        lang: Lang::All,
        python_package: python_package.to_string(),
        check: false,
        jobs: None,
        legacy_inline_layout: false,
        strict_integers: false,
    };
    ctkgen::check_python_package(python_package)?;
    let chosen = ws.chosen_libraries(libraries)?;
    let source = HeaderSource::Ctk(ctk.to_string());
    let models = read_models(ws, &source, &chosen, &ReadOptions::default(), false)?;
    let generated = emit_one(ws, &source, &models, &args, Languages::All)?;
    Ok((generated.label, generated.report, models))
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
