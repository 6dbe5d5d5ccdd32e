//! Commands that read a header's model and print, save or compare it: `ir`, `oracle`, `diff`
//! and `abi-summaries`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use ctkgen::{Api, HeaderSet, HeaderSource, Library, OutputFile, Ownership, ReadOptions, Workspace};

use crate::args::{DiffArgs, DiffFormat, IrArgs, IrFormat, OracleArgs};

/// The library `--library` names, or the first described one.
pub fn library_arg(ws: &Workspace, name: Option<&str>) -> Result<Library> {
    Ok(match name {
        // The choice brings the libraries it depends on: take the one named.
        Some(name) => ws
            .chosen_libraries(&[name.to_string()])?
            .into_iter()
            .find(|library| library.name == name)
            .with_context(|| format!("no library named {name}"))?,
        None => ws.primary_library()?,
    })
}

pub fn ir(ws: &Workspace, args: IrArgs) -> Result<ExitCode> {
    let library = library_arg(ws, args.library.as_deref())?;
    let (_, api) = read_source(ws, &args.source.source()?, &args.read.options()?, &library)?;
    let text = match args.format {
        IrFormat::Json => api.to_json(),
        IrFormat::Abi => ctkgen::abi_summary(&api),
    };
    save_or_print(args.output.as_deref(), &text)?;
    Ok(ExitCode::SUCCESS)
}

pub fn oracle(ws: &Workspace, args: OracleArgs) -> Result<ExitCode> {
    let library = library_arg(ws, args.library.as_deref())?;
    let (headers, api) = read_source(ws, &args.source.source()?, &args.read.options()?, &library)?;
    let name = headers.main_header.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    save_or_print(args.output.as_deref(), &ctkgen::oracle::c_source(&api, &name))?;
    Ok(ExitCode::SUCCESS)
}

pub fn diff(ws: &Workspace, args: DiffArgs) -> Result<ExitCode> {
    let library = library_arg(ws, args.library.as_deref())?;
    let read = |ctk: &str| -> Result<Api> {
        Ok(read_source(ws, &HeaderSource::Ctk(ctk.to_string()), &ReadOptions::default(), &library)?.1)
    };
    let (old, new) = (read(&args.from)?, read(&args.to)?);
    let diff = ctkgen::abi_diff(&old, &new);
    match args.format {
        DiffFormat::Md => print!("{}", diff.to_markdown()),
        DiffFormat::Json => print!("{}", diff.to_json()),
    }
    Ok(ExitCode::from(diff.exit_code()))
}

/// The headers of a source, fetched if needed, and their model.
pub fn read_source(
    ws: &Workspace,
    source: &HeaderSource,
    read: &ReadOptions,
    library: &Library,
) -> Result<(HeaderSet, Api)> {
    let (headers, api, ()) = read_source_reporting(ws, source, read, library, false, |_| {}, || ())?;
    Ok((headers, api))
}

/// [`read_source`], telling `stage` when parsing starts. With `last`, the process parses nothing
/// more, and libclang's pages are handed back as soon as it is done ([`ctkgen::read_api_last`]).
/// `meanwhile` runs once the headers are checked, while libclang is still opening (the longer of
/// the two), and its result is returned beside the model.
pub fn read_source_reporting<T>(
    ws: &Workspace,
    source: &HeaderSource,
    read: &ReadOptions,
    library: &Library,
    last: bool,
    stage: impl Fn(&str),
    meanwhile: impl FnOnce() -> T,
) -> Result<(HeaderSet, Api, T)> {
    // Opening libclang and checking the cached headers take about as long as each other: side by side.
    let (headers, extra) = std::thread::scope(|scope| {
        scope.spawn(|| ctkgen::preload_libclang(ws));
        let headers = ctkgen::resolve_library_headers(ws, source, library);
        (headers, meanwhile())
    });
    let headers = headers?;
    let header = headers.main_header.file_name().unwrap_or_default().to_string_lossy();
    let modes: Vec<&str> = read.modes.iter().map(|m| m.std_flag()).collect();
    stage(&format!("parsing {header} of {} as {}", ctkgen::source_label(&headers), modes.join(" and ")));
    let api = if last { ctkgen::read_api_last(ws, &headers, read) } else { ctkgen::read_api(ws, &headers, read) }
        .with_context(|| format!("reading {}", ctkgen::source_label(&headers)))?;
    Ok((headers, api, extra))
}

/// Writes `text` to `output`, or prints it when there is none.
fn save_or_print(output: Option<&Path>, text: &str) -> Result<()> {
    match output {
        Some(path) => ctkgen::write_file(path, text)?,
        None => print!("{text}"),
    }
    Ok(())
}

/// `tests/abi/<library>/<ctk>.txt` for every library and the newest patch of every minor: what
/// reviewers diff when the parser or the catalogue changes.
pub fn abi_summaries(ws: &Workspace, check: bool) -> Result<ExitCode> {
    use rayon::prelude::*;
    let releases: Vec<String> = ws.catalogue()?.newest_per_minor().into_iter().map(|r| r.ctk.clone()).collect();
    let libraries = ws.libraries()?;
    // A library a release does not ship has no summary for it.
    let mut jobs: Vec<(&String, &Library)> = Vec::new();
    for ctk in &releases {
        for library in &libraries {
            if ctkgen::source_has_library(ws, &HeaderSource::Ctk(ctk.clone()), library)? {
                jobs.push((ctk, library));
            }
        }
    }
    let files: Vec<OutputFile> = jobs
        .par_iter()
        .map(|&(ctk, library)| -> Result<OutputFile> {
            let (_, api) = read_source(ws, &HeaderSource::Ctk(ctk.clone()), &ReadOptions::default(), library)?;
            let minor: String = ctk.split('.').take(2).collect::<Vec<_>>().join(".");
            Ok(OutputFile::text(format!("{}/{minor}.txt", library.name), ctkgen::abi_summary(&api)))
        })
        .collect::<Result<_>>()?;
    let dir = ws.root.join("tests").join("abi");
    if check {
        let staleness = ctkgen::check_tree(&dir, &files, Ownership::Whole)?;
        for (path, diff) in &staleness.changed {
            println!("stale: tests/abi/{path}\n{diff}");
        }
        for path in staleness.missing.iter().chain(&staleness.obsolete) {
            println!("missing or extra: tests/abi/{path}");
        }
        if !staleness.is_fresh() {
            println!("run `cargo xtask abi-summaries` and review the diff");
            return Ok(ExitCode::from(1));
        }
        println!("tests/abi is fresh ({} summaries)", files.len());
    } else {
        let summary = ctkgen::write_tree(&dir, &files, Ownership::Whole)?;
        println!("tests/abi: {} written, {} unchanged", summary.written.len(), summary.unchanged);
    }
    Ok(ExitCode::SUCCESS)
}
