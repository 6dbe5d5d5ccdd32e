//! `cargo xtask`: the ctkgen command line. A thin layer over the `ctkgen` pipeline crate, the
//! only ctkgen crate it uses; every file it writes goes through that crate's writer.

mod allocator;
mod args;
mod bench;
mod generate;
mod headers;
mod measure;
mod model;
mod progress;
mod release;
mod suites;

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use ctkgen::Workspace;

use args::{BenchArgs, DiffArgs, GenerateArgs, HeadersCommand, IrArgs, OracleArgs, ReleaseArgs};

#[derive(Parser)]
#[command(name = "xtask", about = "Generate CUDA driver bindings from cuda.h (run as `cargo xtask`)")]
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
    /// Build one CTK's release (or every CTK's) into target/ctkgen/release/<release>/: the sdist,
    /// a wheel per supported CPython found (repaired to a manylinux tag, checked, installed and
    /// imported in a fresh venv), the Rust crates, RELEASE-NOTES.md and SHA256SUMS.
    Release(ReleaseArgs),
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
    /// Generate each library's Rust crate for every CTK (target/ctkgen/rust) and run clippy and
    /// the tests of all of them under every feature (or one CTK's).
    RustCrates {
        /// Only this CTK's feature instead of every one.
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
    /// Run every test suite: formatting, clippy, the workspace's cargo tests, the Python suite,
    /// the GPU suite.
    Test,
    /// Rewrite every golden output from what the code produces now (IR snapshots, Cython and
    /// Rust outputs, the ABI diff report, the per-CTK ABI summaries); review the diff after.
    AcceptGoldens,
}

fn workspace() -> Workspace {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace").to_path_buf();
    let mut ws = Workspace::new(root);
    // A first run downloads headers and maybe libclang: say so, on standard error.
    ws.cache = ws.cache.with_progress(progress);
    ws
}

/// A line saying what a run is doing, on standard error. Such lines start with `-- `, so
/// they read apart from results (standard output) and from the one `error: ` line.
pub fn progress(line: &str) {
    eprintln!("-- {line}");
}

/// glibc serves the blocks larger than mimalloc's share ([`allocator`]). Its defaults suit
/// long-running servers: an arena per thread and large freed blocks kept for reuse. A short run
/// that parses in two threads and emits on a pool peaks about 10% lower with three arenas (one
/// each for the main thread and the two pool threads; fewer make them queue) and multi-megabyte
/// blocks handed straight back. Each heap grows 16 MiB past
/// what is asked and keeps that much when it shrinks: the emitters' waves of allocations then
/// reuse pages instead of faulting fresh ones in (4-6% less time and CPU, 1.4 MiB more peak;
/// BENCHMARKS.md).
fn tune_allocator() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets allocator parameters; called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 3);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1024 * 1024);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 128 * 1024);
        libc::mallopt(libc::M_TOP_PAD, 16 * 1024 * 1024);
    }
}

#[global_allocator]
static ALLOCATOR: allocator::SplitAllocator = allocator::SplitAllocator;

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
        Command::Ir(args) => model::ir(&ws, args),
        Command::Generate(args) => generate::generate(&ws, args),
        Command::Release(args) => release::release(&ws, args),
        Command::Headers(command) => headers::headers(&ws, command),
        Command::Oracle(args) => model::oracle(&ws, args),
        Command::AbiSummaries { check } => model::abi_summaries(&ws, check),
        Command::RustCrates { ctk } => suites::rust_crates(&ws, ctk),
        Command::Diff(args) => model::diff(&ws, args),
        Command::Bench(args) => bench::bench(&ws, args),
        Command::GpuTest { prepare_only } => suites::gpu_test(&ws, prepare_only),
        Command::Test => suites::test(&ws),
        Command::AcceptGoldens => suites::accept_goldens(&ws),
    }
}
