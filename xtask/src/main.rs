//! `cargo xtask`: the ctkgen command line. A thin layer over the `ctkgen` pipeline crate.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use ctkgen::{HeaderSource, Languages, ReadOptions, Workspace};
use ctkgen_ir::LanguageMode;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Generate CUDA driver bindings from cuda.h")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print or save the intermediate model of one header.
    Ir(IrArgs),
    /// Write the Cython package and/or the Rust -sys crate for one or every CTK.
    Generate(GenerateArgs),
    /// Fetch, list or refresh the CTK headers.
    #[command(subcommand)]
    Headers(HeadersCommand),
    /// Write the C file of static layout assertions (the gcc oracle) for one header.
    Oracle(OracleArgs),
    /// Regenerate the committed per-CTK ABI summaries in tests/abi/ (or check them with --check).
    AbiSummaries {
        #[arg(long)]
        check: bool,
    },
    /// Generate the Rust crate of every CTK (or one) and build and test each with cargo.
    RustCrates {
        /// One CTK instead of every CTK in the catalogue.
        #[arg(long)]
        ctk: Option<String>,
    },
    /// Compare two CTKs by ABI. Exit 0: identical, 1: compatible additions, 2: incompatible
    /// changes, 3: the comparison itself failed.
    Diff(DiffArgs),
    /// Time the generator stage by stage and against bindgen on the same header; print ratios.
    Bench(BenchArgs),
    /// The GPU suite: tensor maps encoded through the generated bindings and used by TMA kernels.
    /// Without a Hopper GPU, driver, nvcc or Cython it says what it skipped and exits 0.
    GpuTest {
        /// Only build the bundle (target/gpu-bundle) to run on a GPU host.
        #[arg(long)]
        prepare_only: bool,
    },
    /// Run every test suite: the workspace's cargo tests, the Python suite, the GPU suite.
    Test,
}

/// Where the header comes from: exactly one of these.
#[derive(Args, Clone)]
#[group(multiple = false)]
struct SourceArgs {
    /// A CTK from headers/ctk.toml: `13.1` (newest patch) or `12.8.1` (exact).
    #[arg(long)]
    ctk: Option<String>,
    /// An installed toolkit (also read from CUDA_HOME when nothing else is given).
    #[arg(long)]
    cuda_home: Option<PathBuf>,
    /// Any header file.
    #[arg(long)]
    header: Option<PathBuf>,
}

impl SourceArgs {
    fn source(&self) -> Result<HeaderSource> {
        if let Some(ctk) = &self.ctk {
            Ok(HeaderSource::Ctk(ctk.clone()))
        } else if let Some(header) = &self.header {
            Ok(HeaderSource::Header(header.clone()))
        } else if let Some(dir) = self.cuda_home.clone().or_else(|| std::env::var_os("CUDA_HOME").map(PathBuf::from)) {
            Ok(HeaderSource::CudaHome(dir))
        } else {
            bail!("give --ctk VERSION, --header FILE or --cuda-home DIR (or set CUDA_HOME)")
        }
    }
}

#[derive(Args, Clone)]
struct ReadArgs {
    /// Target triple for layouts.
    #[arg(long, default_value = ctkgen_clang::DEFAULT_TARGET)]
    target: String,
    /// Language modes to read the header in, comma-separated; all must agree.
    #[arg(long, value_delimiter = ',', default_value = "c11,c++17")]
    std: Vec<String>,
}

impl ReadArgs {
    fn options(&self) -> Result<ReadOptions> {
        let modes = self
            .std
            .iter()
            .map(|s| {
                LanguageMode::parse(s)
                    .with_context(|| format!("unknown language mode {s}; known: c99, c11, c17, c++03, c++11, c++17"))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ReadOptions { target: self.target.clone(), modes })
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum IrFormat {
    Json,
    Abi,
}

#[derive(Args)]
struct IrArgs {
    #[command(flatten)]
    source: SourceArgs,
    #[command(flatten)]
    read: ReadArgs,
    #[arg(long, value_enum, default_value = "json")]
    format: IrFormat,
    /// Write to this file instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Lang {
    Cython,
    Rust,
    All,
}

#[derive(Args)]
struct GenerateArgs {
    /// A CTK from headers/ctk.toml.
    #[arg(long, conflicts_with_all = ["all", "header", "cuda_home"])]
    ctk: Option<String>,
    /// Every CTK in the catalogue (newest patch of each minor), in parallel.
    #[arg(long)]
    all: bool,
    /// Any header file.
    #[arg(long)]
    header: Option<PathBuf>,
    /// An installed toolkit.
    #[arg(long)]
    cuda_home: Option<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    /// Output folder (with --all: the parent of one folder per CTK). Default: target/ctkgen/.
    #[arg(long)]
    out: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "all")]
    lang: Lang,
    /// Name of the generated Python package.
    #[arg(long, default_value = "ctkgen_cuda")]
    python_package: String,
    /// Compare with the existing output instead of writing; exit 1 when anything differs.
    #[arg(long)]
    check: bool,
    /// Threads for --all (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Store over-aligned records inline in Python objects, as legacy bindings do. Only for
    /// the negative-control tests: the result is knowingly broken.
    #[arg(long, hide = true)]
    legacy_inline_layout: bool,
}

#[derive(Subcommand)]
enum HeadersCommand {
    /// Download and verify headers into the cache.
    Fetch {
        #[arg(long, conflicts_with = "all")]
        ctk: Option<String>,
        #[arg(long)]
        all: bool,
    },
    /// List the catalogue.
    List,
    /// Rebuild headers/ctk.toml from the cuda-toolkit meta-package on the package index.
    Refresh,
}

#[derive(Clone, Copy, ValueEnum)]
enum DiffFormat {
    Md,
    Json,
}

#[derive(Args)]
struct DiffArgs {
    /// The older CTK, e.g. 12.9.
    #[arg(long)]
    from: String,
    /// The newer CTK, e.g. 13.0.
    #[arg(long)]
    to: String,
    #[arg(long, value_enum, default_value = "md")]
    format: DiffFormat,
}

#[derive(Args)]
struct BenchArgs {
    /// The CTK to time (newest patch of the minor).
    #[arg(long, default_value = "13.1")]
    ctk: String,
    /// Alternating runs of ctkgen and the peer; medians are reported.
    #[arg(long, default_value_t = 7)]
    runs: usize,
    /// A fixture header and one run: proves the command works, measures nothing of note.
    #[arg(long)]
    tiny: bool,
}

#[derive(Args)]
struct OracleArgs {
    #[command(flatten)]
    source: SourceArgs,
    #[command(flatten)]
    read: ReadArgs,
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn workspace() -> Workspace {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace").to_path_buf();
    Workspace::new(root)
}

/// glibc's allocator defaults suit long-running servers: an arena per thread and large freed
/// blocks kept for reuse. A short run that parses in two threads and emits on a pool peaks about
/// 10% lower with three arenas (one each for the main thread and the two pool threads; fewer
/// make them queue) and multi-megabyte blocks handed straight back (BENCHMARKS.md).
fn tune_allocator() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets allocator parameters; called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 3);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1024 * 1024);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 128 * 1024);
    }
}

fn main() -> ExitCode {
    tune_allocator();
    let cli = Cli::parse();
    // `diff` reports its verdict in exit codes 0-2, so its own failures use 3.
    let failure = if matches!(cli.command, Command::Diff(_)) { 3 } else { 2 };
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            let chain: Vec<String> = error.chain().map(|e| e.to_string()).collect();
            eprintln!("error: {}", chain.join(": "));
            ExitCode::from(failure)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let ws = workspace();
    match cli.command {
        Command::Ir(args) => {
            let (_, api) = read_source(&ws, &args.source.source()?, &args.read.options()?)?;
            let text = match args.format {
                IrFormat::Json => api.to_json(),
                IrFormat::Abi => ctkgen_ir::abi::summary(&api),
            };
            emit_text(args.output.as_deref(), &text)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Oracle(args) => {
            let (headers, api) = read_source(&ws, &args.source.source()?, &args.read.options()?)?;
            let name = headers.main_header.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            emit_text(args.output.as_deref(), &ctkgen::oracle::c_source(&api, &name))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Headers(command) => headers(&ws, command),
        Command::Test => test(&ws),
        Command::RustCrates { ctk } => rust_crates(&ws, ctk),
        Command::GpuTest { prepare_only } => gpu_test(&ws, prepare_only),
        Command::Bench(args) => bench(&ws, args),
        Command::Diff(args) => {
            let read = |ctk: &str| -> Result<ctkgen_ir::Api> {
                Ok(read_source(&ws, &HeaderSource::Ctk(ctk.to_string()), &ReadOptions::default())?.1)
            };
            let (old, new) = (read(&args.from)?, read(&args.to)?);
            let diff = ctkgen_diff::diff(&old, &new);
            match args.format {
                DiffFormat::Md => print!("{}", diff.to_markdown()),
                DiffFormat::Json => print!("{}", diff.to_json()),
            }
            Ok(ExitCode::from(diff.exit_code()))
        }
        Command::AbiSummaries { check } => abi_summaries(&ws, check),
        Command::Generate(args) => generate(&ws, args),
    }
}

/// The headers of a source, fetched if needed, and their model.
fn read_source(
    ws: &Workspace,
    source: &HeaderSource,
    read: &ReadOptions,
) -> Result<(ctkgen_headers::HeaderSet, ctkgen_ir::Api)> {
    // Opening libclang and checking the cached headers take about as long as each other: side by side.
    let headers = std::thread::scope(|scope| {
        scope.spawn(|| ctkgen::preload_libclang(ws));
        ctkgen::resolve_headers(ws, source)
    })?;
    let api =
        ctkgen::read_api(ws, &headers, read).with_context(|| format!("reading {}", ctkgen::source_label(&headers)))?;
    Ok((headers, api))
}

fn emit_text(output: Option<&Path>, text: &str) -> Result<()> {
    match output {
        Some(path) => {
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let mut tmp = tempfile_in(dir)?;
            std::io::Write::write_all(&mut tmp, text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            // Temporary files are private; the result is an ordinary file.
            tmp.as_file().set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
            tmp.persist(path).with_context(|| format!("cannot write {}", path.display()))?;
        }
        None => print!("{text}"),
    }
    Ok(())
}

fn tempfile_in(dir: &Path) -> Result<tempfile::NamedTempFile> {
    tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write in {}", dir.display()))
}

fn headers(ws: &Workspace, command: HeadersCommand) -> Result<ExitCode> {
    let catalogue = ws.catalogue()?;
    match command {
        HeadersCommand::Fetch { ctk, all } => {
            let releases = match (ctk, all) {
                (Some(q), false) => vec![catalogue.resolve(&q)?],
                (None, true) => catalogue.newest_per_minor(),
                _ => bail!("give --ctk VERSION or --all"),
            };
            for release in releases {
                let set = ctkgen_headers::fetch(release, &ws.cache)?;
                println!("{} {}", release.ctk, set.include_dir.display());
            }
        }
        HeadersCommand::List => {
            for release in &catalogue.releases {
                println!("{} {}=={}", release.ctk, release.package, release.wheel_version);
            }
        }
        HeadersCommand::Refresh => {
            let pip = ctkgen_headers::Pip::from_env();
            ctkgen_headers::refresh_catalogue(&ws.catalogue_path(), &pip, &mut |line| eprintln!("{line}"))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn generate(ws: &Workspace, args: GenerateArgs) -> Result<ExitCode> {
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
        ctkgen_clang::release_libclang_pages();
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

/// `tests/abi/<ctk>.txt` for the newest patch of every minor: what reviewers diff when the
/// parser or the catalogue changes.
fn abi_summaries(ws: &Workspace, check: bool) -> Result<ExitCode> {
    use rayon::prelude::*;
    let releases: Vec<String> = ws.catalogue()?.newest_per_minor().into_iter().map(|r| r.ctk.clone()).collect();
    let files: Vec<ctkgen_ir::OutputFile> = releases
        .par_iter()
        .map(|ctk| -> Result<ctkgen_ir::OutputFile> {
            let (_, api) = read_source(ws, &HeaderSource::Ctk(ctk.clone()), &ReadOptions::default())?;
            let minor: String = ctk.split('.').take(2).collect::<Vec<_>>().join(".");
            Ok(ctkgen_ir::OutputFile { path: format!("{minor}.txt"), contents: ctkgen_ir::abi::summary(&api) })
        })
        .collect::<Result<_>>()?;
    let dir = ws.root.join("tests").join("abi");
    if check {
        let staleness = ctkgen::check_tree(&dir, &files)?;
        for (path, diff) in &staleness.changed {
            println!("stale: tests/abi/{path}\n{diff}");
        }
        for path in staleness.missing.iter().chain(&staleness.extra) {
            println!("missing or extra: tests/abi/{path}");
        }
        if !staleness.is_fresh() {
            println!("run `cargo xtask abi-summaries` and review the diff");
            return Ok(ExitCode::from(1));
        }
        println!("tests/abi is fresh ({} summaries)", files.len());
    } else {
        let summary = ctkgen::write_tree(&dir, &files)?;
        println!("tests/abi: {} written, {} unchanged", summary.written.len(), summary.unchanged);
    }
    Ok(ExitCode::SUCCESS)
}

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

fn bench(ws: &Workspace, args: BenchArgs) -> Result<ExitCode> {
    use ctkgen::bench::{load_average, machine, median, rss_kib, run_process, stages, Runs, STAGES};
    let (source, runs) = if args.tiny {
        (HeaderSource::Header(ws.root.join("tests/headers/functions_enums.h")), 1)
    } else {
        (HeaderSource::Ctk(args.ctk.clone()), args.runs.max(1))
    };
    let headers = ctkgen::resolve_headers(ws, &source)?;
    let label = ctkgen::source_label(&headers);
    let libclang = ctkgen_headers::locate_libclang(&ws.cache)?;
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
    let peer_cmd = |bin: &Path, n: usize, dynamic: bool| {
        let mut c = std::process::Command::new(bin);
        c.arg(&headers.main_header).arg("-o").arg(scratch.path().join(format!("bindgen-{n}-{dynamic}.rs")));
        if dynamic {
            c.args(["--dynamic-loading", "CudaDriver"]);
        }
        c.args([
            "--",
            "-x",
            "c",
            "-std=c11",
            &format!("--target={}", ctkgen_clang::DEFAULT_TARGET),
            "-nostdinc",
            "-isystem",
        ])
        .arg(ws.system_include_dir())
        .arg(format!("-I{}", headers.include_dir.display()))
        .env("LIBCLANG_PATH", &libclang);
        c
    };
    let check = |run: ctkgen::bench::ProcessRun, what: &str| -> Result<ctkgen::bench::ProcessRun> {
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
                let run = check(run_process(&mut peer_cmd(bin, n, dynamic))?, "bindgen")?;
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
    row("ctkgen generate, cython + rust", &ours_runs);
    if peer.is_some() {
        row(&format!("bindgen {BINDGEN_VERSION} --dynamic-loading"), &peer_runs);
        row(&format!("bindgen {BINDGEN_VERSION} (plain)"), &plain_runs);
    } else {
        println!("peer skipped: bindgen {BINDGEN_VERSION} is not installed (a run without --tiny installs it)");
    }
    if !all_runs.is_empty() {
        row("ctkgen generate --all", &all_runs);
    }
    println!("(no peak can read below {:.1} MiB, this process's resident memory when spawning)", mib(floor));

    println!("\n## stages in this process, libclang {}", ctkgen_clang::libclang_version(&libclang)?);
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
        target("one CTK, both languages / bindgen --dyn: time", format!("{time:.2}x"), "<= 0.5x", time <= 0.5);
        println!("{:<44} {:>16}", "  (cpu time, for reference)", format!("{cpu:.2}x"));
        target("one CTK, both languages / bindgen --dyn: peak", format!("{memory:.2}x"), "<= 1.0x", memory <= 1.0);
    }
    if !all_runs.is_empty() {
        let all = all_runs.wall().as_secs_f64();
        target("all CTKs, both languages (generate --all)", format!("{all:.2} s"), "<= 3 s", all <= 3.0);
    }
    println!("load average at end: {}", load_average());
    Ok(ExitCode::SUCCESS)
}

fn rust_crates(ws: &Workspace, ctk: Option<String>) -> Result<ExitCode> {
    let releases: Vec<String> = match ctk {
        Some(query) => vec![ws.catalogue()?.resolve(&query)?.ctk.clone()],
        None => ws.catalogue()?.newest_per_minor().into_iter().map(|r| r.ctk.clone()).collect(),
    };
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // One target folder for all of them, so libloading builds once.
    let target_dir = ws.root.join("target").join("ctkgen").join("rust-crates-target");
    let mut failed = Vec::new();
    for ctk in &releases {
        let (headers, api) = read_source(ws, &HeaderSource::Ctk(ctk.clone()), &ReadOptions::default())?;
        let options = ctkgen::GenerateOptions {
            languages: Languages::Rust,
            python_package: String::new(),
            legacy_inline_layout: false,
            command: format!("cargo xtask generate --ctk {ctk}"),
            library: ws.library(ctkgen::DRIVER_LIBRARY)?,
        };
        let out = ws.default_output(ctk);
        let files = ctkgen::emit(&api, &headers, &options)?;
        // Only the rust/ part of the output folder is this command's.
        let rust: Vec<ctkgen_ir::OutputFile> = files
            .into_iter()
            .filter_map(|f| {
                f.path
                    .strip_prefix("rust/")
                    .map(|p| ctkgen_ir::OutputFile { path: p.to_string(), contents: f.contents })
            })
            .collect();
        let dir = out.join("rust");
        ctkgen::write_tree(&dir, &rust)?;
        for step in ["build", "test"] {
            println!("==> {ctk}: cargo {step}");
            let status = std::process::Command::new(&cargo)
                .args([step, "--quiet", "--manifest-path"])
                .arg(dir.join("Cargo.toml"))
                .arg("--target-dir")
                .arg(&target_dir)
                .status()
                .with_context(|| format!("cannot run cargo {step}"))?;
            if !status.success() {
                failed.push(format!("{ctk} ({step})"));
                break;
            }
        }
    }
    println!("rust crates: {} passed, {} failed", releases.len() - failed.len(), failed.len());
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
    if !succeeds("python3", &["-c", "import Cython, numpy, setuptools"]) {
        missing.push("python3 lacks Cython, numpy or setuptools".into());
    }
    missing
}

fn gpu_test(ws: &Workspace, prepare_only: bool) -> Result<ExitCode> {
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
    args: Vec<String>,
}

/// CTKs whose generated Rust crates the test suite builds: both ends of 12.x, the first 13.x,
/// the default, and the newest in the catalogue.
fn crate_test_ctks(ws: &Workspace) -> Result<Vec<String>> {
    let newest = ws.catalogue()?.newest_per_minor().last().map(|r| r.ctk.clone()).context("empty catalogue")?;
    Ok(["12.0", "12.9", "13.0", "13.1"].iter().map(|s| s.to_string()).chain(std::iter::once(newest)).collect())
}

fn test(ws: &Workspace) -> Result<ExitCode> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // The Rust emitter's tests build a generated crate from each of these models.
    let ir_dir = ws.root.join("target").join("ctkgen").join("ir-for-tests");
    let _ = std::fs::remove_dir_all(&ir_dir);
    std::fs::create_dir_all(&ir_dir).with_context(|| format!("cannot create {}", ir_dir.display()))?;
    for ctk in crate_test_ctks(ws)? {
        let (headers, api) = read_source(ws, &HeaderSource::Ctk(ctk.clone()), &ReadOptions::default())?;
        emit_text(Some(&ir_dir.join(format!("{}.json", ctkgen::source_label(&headers)))), &api.to_json())?;
    }
    std::env::set_var("CTKGEN_IR_DIR", &ir_dir);
    let suites = [
        Suite { name: "rust", program: "cargo", args: vec!["test".into(), "--workspace".into()] },
        Suite { name: "python", program: "bash", args: vec!["tests/python/run.sh".into()] },
    ];
    let mut passed = 0;
    let mut failed = Vec::new();
    for suite in &suites {
        println!("==> {} suite: {} {}", suite.name, suite.program, suite.args.join(" "));
        let program = if suite.program == "cargo" { cargo.as_str() } else { suite.program };
        let status = std::process::Command::new(program)
            .args(&suite.args)
            .current_dir(&ws.root)
            .status()
            .with_context(|| format!("cannot run {program}"))?;
        if status.success() {
            passed += 1;
        } else {
            failed.push(suite.name);
        }
    }
    println!("==> gpu suite: cargo xtask gpu-test");
    let mut skipped = 0;
    let missing = missing_gpu_prerequisites();
    if missing.is_empty() {
        if gpu_test(ws, false)? == ExitCode::SUCCESS {
            passed += 1;
        } else {
            failed.push("gpu");
        }
    } else {
        for reason in &missing {
            println!("SKIPPED GPU suite: {reason}");
        }
        skipped += 1;
    }
    println!("suites: {passed} passed, {} failed, {skipped} skipped", failed.len());
    if !failed.is_empty() {
        println!("failed suites: {}", failed.join(", "));
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
