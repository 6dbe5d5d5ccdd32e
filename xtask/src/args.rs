//! The command line's arguments, shared by the commands that take them.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use ctkgen::{HeaderSource, LanguageMode, ReadOptions};

/// Where the header comes from: exactly one of these.
#[derive(Args, Clone)]
#[group(multiple = false)]
pub struct SourceArgs {
    /// A CTK from headers/ctk.toml: `13.1` (newest patch) or `12.8.1` (exact).
    #[arg(long)]
    pub ctk: Option<String>,
    /// An installed toolkit (also read from CUDA_HOME when nothing else is given).
    #[arg(long)]
    pub cuda_home: Option<PathBuf>,
    /// Any header file.
    #[arg(long)]
    pub header: Option<PathBuf>,
}

impl SourceArgs {
    pub fn source(&self) -> Result<HeaderSource> {
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
pub struct ReadArgs {
    /// Target triple for layouts.
    #[arg(long, default_value = ctkgen::DEFAULT_TARGET)]
    pub target: String,
    /// Language modes to read the header in, comma-separated; all must agree.
    #[arg(long, value_delimiter = ',', default_value = "c11,c++17")]
    pub std: Vec<String>,
}

impl ReadArgs {
    pub fn options(&self) -> Result<ReadOptions> {
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
pub enum IrFormat {
    Json,
    Abi,
}

#[derive(Args)]
pub struct IrArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The library whose headers to read, by its description's name under headers/libraries/
    /// (`cuda-driver`, `nvrtc`); default: the first one.
    #[arg(long, value_name = "NAME")]
    pub library: Option<String>,

    #[command(flatten)]
    pub read: ReadArgs,
    /// `json`: the whole model; `abi`: one sorted line per declaration (sizes and alignments in
    /// bytes, field offsets in bits).
    #[arg(long, value_enum, default_value = "json")]
    pub format: IrFormat,
    /// Write to this file instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Lang {
    /// The Cython package only.
    Cython,
    /// The Rust -sys crate only.
    Rust,
    /// Both.
    All,
}

#[derive(Args)]
pub struct GenerateArgs {
    /// A CTK from headers/ctk.toml: `13.1` means the newest patch of 13.1, `12.8.1` exactly
    /// that release (`cargo xtask headers list` shows them).
    #[arg(long, conflicts_with_all = ["all", "header", "cuda_home"])]
    pub ctk: Option<String>,
    /// Every CTK in the catalogue (newest patch of each minor), in parallel.
    #[arg(long)]
    pub all: bool,
    /// Any header file; the default output folder is named after its stem (`cuda.h`:
    /// target/ctkgen/cuda/).
    #[arg(long, value_name = "FILE")]
    pub header: Option<PathBuf>,
    /// An installed toolkit: DIR/include/cuda.h and the driver's other headers found there (also
    /// read from CUDA_HOME when no other source is given). The default output folder is named
    /// after the release in DIR/version.json (target/ctkgen/12.8.1/), else target/ctkgen/cuda/.
    #[arg(long, value_name = "DIR")]
    pub cuda_home: Option<PathBuf>,
    /// Bind only this library (repeat for several), by its description's name under
    /// headers/libraries/; default: every described library. With --header, one library, the
    /// first described by default.
    #[arg(long = "library", value_name = "NAME")]
    pub libraries: Vec<String>,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Output folder: the Cython package goes to DIR/python/ (one module per library), each Rust
    /// crate to DIR/rust/<crate>/. With --all, each CTK's Cython package goes to
    /// DIR/<release>/python/ and each library's one Rust crate for every CTK (a feature per CTK)
    /// to DIR/rust/<crate>/. Default: the repository's target/ctkgen/<release>/
    /// (target/ctkgen/13.1.2/ for --ctk 13.1; --header and --cuda-home name theirs above), and
    /// target/ctkgen/ for --all.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Which bindings to write: the Cython package (python/), the Rust -sys crates (rust/), or both.
    #[arg(long, value_enum, default_value = "all")]
    pub lang: Lang,
    /// Import name of the generated Python package: a Python identifier of ASCII letters, digits
    /// and underscores, not starting with a digit and not a keyword (e.g. my_cuda), or several
    /// joined by dots (cuda.bindings: installs in place of the package of that name).
    #[arg(long, value_name = "NAME", default_value = "ctkgen_cuda")]
    pub python_package: String,
    /// Compare with the existing output instead of writing; exit 1 when a generated file differs,
    /// is missing or is no longer generated (other files in the folder are listed, not judged;
    /// those of a build, under python/build/, are not listed).
    #[arg(long)]
    pub check: bool,
    /// Threads for --all (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Store over-aligned records inline in Python objects, as legacy bindings do. Only for
    /// the negative-control tests: the result is knowingly broken.
    #[arg(long, hide = true)]
    pub legacy_inline_layout: bool,
    /// Python integer paths (arguments, members, constructors, list items) refuse a float whose
    /// value is not integral with TypeError. By default a float converts as int() converts it,
    /// toward zero, then is range-checked, as cuda.bindings does.
    #[arg(long)]
    pub strict_integers: bool,
}

#[derive(Subcommand)]
pub enum HeadersCommand {
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
pub enum DiffFormat {
    Md,
    Json,
}

#[derive(Args)]
pub struct DiffArgs {
    /// The older CTK, e.g. 12.9.
    #[arg(long)]
    pub from: String,
    /// The newer CTK, e.g. 13.0.
    #[arg(long)]
    pub to: String,
    #[arg(long, value_enum, default_value = "md")]
    pub format: DiffFormat,
    /// The library to compare, by its description's name (default: the first described one).
    #[arg(long, value_name = "NAME")]
    pub library: Option<String>,
}

#[derive(Args)]
pub struct BenchArgs {
    /// The CTK to time (newest patch of the minor).
    #[arg(long, default_value = "13.1")]
    pub ctk: String,
    /// Alternating runs of ctkgen and the peer; medians are reported.
    #[arg(long, default_value_t = 7)]
    pub runs: usize,
    /// A fixture header and one run: proves the command works, measures nothing of note.
    #[arg(long)]
    pub tiny: bool,
}

#[derive(Args)]
pub struct OracleArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The library whose headers to read, by its description's name under headers/libraries/
    /// (`cuda-driver`, `nvrtc`); default: the first one.
    #[arg(long, value_name = "NAME")]
    pub library: Option<String>,

    #[command(flatten)]
    pub read: ReadArgs,
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

#[derive(Args)]
pub struct ReleaseArgs {
    /// A CTK from headers/ctk.toml: `13.1` means the newest patch of 13.1.
    #[arg(long, conflicts_with = "all")]
    pub ctk: Option<String>,
    /// Every CTK in the catalogue (newest patch of each minor), one after another.
    #[arg(long)]
    pub all: bool,
    /// Bind only this library (repeat for several), as `generate --library` does; default: every
    /// described library.
    #[arg(long = "library", value_name = "NAME")]
    pub libraries: Vec<String>,
    /// Build a wheel with this interpreter (repeat for several) instead of with every CPython 3
    /// found (pyenv's versions, then python3.N on PATH; one per wheel tag). Either way an
    /// interpreter the release's Requires-Python does not admit is skipped, saying so.
    #[arg(long = "python", value_name = "PATH")]
    pub pythons: Vec<PathBuf>,
    /// Import name of the package, as for `generate`: by default the official one, so the
    /// distribution is `cuda-bindings` and its metadata follows the official wheel's.
    #[arg(long, value_name = "NAME", default_value = "cuda.bindings")]
    pub python_package: String,
    /// Output folder: each CTK's release goes to DIR/<release>/. Default: the repository's
    /// target/ctkgen/release/.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Wheels built side by side (default: one per core; each compiles on its share of them).
    #[arg(long)]
    pub jobs: Option<usize>,
}
