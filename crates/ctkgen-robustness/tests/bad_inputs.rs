//! The bad-input corpus, as one table run through `cargo xtask generate`.
//!
//! Every case writes into an output folder that already holds a good previous output, and must:
//! exit non-zero without panicking (101), print exactly one stderr line starting `error: ` that
//! names the file, declaration or version at fault, leave the previous output byte-identical,
//! and leave nothing beside it (no staging or partial folders).
//!
//! Cases that go through the catalogue and pip use a fabricated release served from a local
//! folder (`PIP_NO_INDEX`, `PIP_FIND_LINKS`), so they run offline; a positive control shows the
//! same set-up succeeds when nothing is wrong with it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

fn root() -> PathBuf {
    ctkgen_robustness::workspace_root()
}

/// The `xtask` binary, built once per test process into this test's own target folder.
fn xtask_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status =
            Command::new(cargo).args(["build", "-q", "-p", "xtask"]).current_dir(root()).status().expect("cargo runs");
        assert!(status.success(), "cargo build -p xtask failed");
        // This test runs from <target>/debug/deps; the binary sits in <target>/debug.
        let exe = std::env::current_exe().unwrap();
        let binary = exe.parent().and_then(Path::parent).unwrap().join("xtask");
        assert!(binary.is_file(), "no xtask at {}", binary.display());
        binary
    })
}

fn bad(name: &str) -> String {
    root().join("tests/bad-inputs").join(name).display().to_string()
}

fn fixture(name: &str) -> String {
    root().join("tests/headers").join(name).display().to_string()
}

/// Every entry under `dir` (files with their sha256, folders marked), relative to it.
fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.insert(rel, "dir".into());
                walk(base, &path, out);
            } else {
                out.insert(rel, format!("{:x}", Sha256::digest(std::fs::read(&path).unwrap_or_default())));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// A fabricated runtime release: the wheel pip serves from `links/`, and its catalogue.
struct FakeRelease {
    links: PathBuf,
    catalogue: PathBuf,
}

const FAKE_PACKAGE: &str = "ctkgen-fake-runtime";
const FAKE_WHEEL: &str = "ctkgen_fake_runtime-1.0.0-py3-none-any.whl";
const FAKE_CTK: &str = "99.0.0";

/// The driver's other headers, which a catalogue release must list: empty in the fake wheel.
const EXTRA_HEADERS: [&str; 4] = ["cudaProfiler.h", "cudaEGL.h", "cudaGL.h", "cudaVDPAU.h"];

/// A wheel holding `cuda_h` as `fake/include/cuda.h` and the extra headers (empty), with the
/// metadata pip reads.
fn wheel_bytes(cuda_h: &[u8]) -> Vec<u8> {
    wheel_bytes_without(cuda_h, "")
}

/// [`wheel_bytes`] without the extra header `omitted`.
fn wheel_bytes_without(cuda_h: &[u8], omitted: &str) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let members: [(&str, &[u8]); 4] = [
        (
            "ctkgen_fake_runtime-1.0.0.dist-info/METADATA",
            b"Metadata-Version: 2.1\nName: ctkgen-fake-runtime\nVersion: 1.0.0\n",
        ),
        (
            "ctkgen_fake_runtime-1.0.0.dist-info/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: ctkgen-robustness\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        ),
        ("ctkgen_fake_runtime-1.0.0.dist-info/RECORD", b""),
        ("fake/include/cuda.h", cuda_h),
    ];
    for (name, bytes) in members {
        zip.start_file(name, stored).unwrap();
        zip.write_all(bytes).unwrap();
    }
    for name in EXTRA_HEADERS.into_iter().filter(|name| *name != omitted) {
        zip.start_file(format!("fake/include/{name}"), stored).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// Writes the wheel (as served) and a catalogue that lists it with the given hashes, and the
/// extra headers with the hash of an empty file.
fn fake_release(dir: &Path, served: &[u8], wheel_sha256: &str, cuda_h_sha256: &str) -> FakeRelease {
    let mut headers = vec![("cuda.h".to_string(), cuda_h_sha256.to_string())];
    headers.extend(EXTRA_HEADERS.iter().map(|name| (name.to_string(), sha256_hex(b""))));
    fake_release_listing(dir, served, wheel_sha256, &headers)
}

/// Writes the wheel (as served) and a catalogue that lists it with `headers` (name, sha256).
fn fake_release_listing(dir: &Path, served: &[u8], wheel_sha256: &str, headers: &[(String, String)]) -> FakeRelease {
    let links = dir.join("links");
    std::fs::create_dir_all(&links).unwrap();
    std::fs::write(links.join(FAKE_WHEEL), served).unwrap();
    let catalogue = dir.join("ctk.toml");
    let mut text = format!(
        "[[release]]\nctk = \"{FAKE_CTK}\"\ntoolkit_version = \"{FAKE_CTK}\"\npackage = \"{FAKE_PACKAGE}\"\nwheel_version = \"1.0.0\"\n\
         wheel_file = \"{FAKE_WHEEL}\"\nwheel_sha256 = \"{wheel_sha256}\"\ninclude_dir = \"fake/include\"\n\n\
         [release.headers]\n"
    );
    for (name, sha256) in headers {
        text.push_str(&format!("\"{name}\" = \"{sha256}\"\n"));
    }
    std::fs::write(&catalogue, text).unwrap();
    FakeRelease { links, catalogue }
}

/// The header the fabricated release carries: a real fixture plus a CUDA_VERSION.
fn fake_cuda_h() -> Vec<u8> {
    let mut text = std::fs::read(fixture("packed.h")).unwrap();
    text.extend_from_slice(b"\n#define CUDA_VERSION 99000\n");
    text
}

/// One case's private folders.
struct Sandbox {
    /// Holds `out/` (the previous good output) and whatever a case puts beside it.
    area: PathBuf,
    /// The case's own files (catalogues, wheels, caches), outside the area.
    scratch: PathBuf,
}

impl Sandbox {
    fn out(&self) -> String {
        self.area.join("out").display().to_string()
    }
}

/// What a case runs: arguments after `generate --out <out>`, extra environment, and the text
/// its error line must contain.
struct Run {
    args: Vec<String>,
    env: Vec<(String, String)>,
    out: Option<String>,
    names: String,
}

fn run(args: &[&str], names: &str) -> Run {
    Run { args: args.iter().map(|a| a.to_string()).collect(), env: Vec::new(), out: None, names: names.to_string() }
}

impl Run {
    fn env(mut self, key: &str, value: impl Into<String>) -> Run {
        self.env.push((key.to_string(), value.into()));
        self
    }
    fn out(mut self, out: impl Into<String>) -> Run {
        self.out = Some(out.into());
        self
    }
    /// Fetches go through the fabricated release: its catalogue, a fresh cache, no index.
    fn through(self, release: &FakeRelease, sandbox: &Sandbox) -> Run {
        self.env("CTKGEN_CATALOGUE", release.catalogue.display().to_string())
            .env("CTKGEN_CACHE", sandbox.scratch.join("cache").display().to_string())
            .env("PIP_NO_INDEX", "1")
            .env("PIP_FIND_LINKS", release.links.display().to_string())
            .env("LIBCLANG_PATH", ctkgen_robustness::parse_options().libclang.display().to_string())
    }
}

type Setup = fn(&Sandbox) -> Run;

/// A part of a `: `-joined cause chain that appears twice (a message that also prints its
/// source, which the chain then prints again).
fn repeated_part(line: &str) -> Option<&str> {
    let parts: Vec<&str> = line.split(": ").map(str::trim).filter(|p| p.len() > 3).collect();
    parts.iter().enumerate().find(|(i, p)| parts[i + 1..].contains(p)).map(|(_, p)| *p)
}

/// The corpus: a name and how to provoke the failure.
const CASES: &[(&str, Setup)] = &[
    ("missing header", |_| run(&["--header", &bad("no_such_header.h")], "no_such_header.h")),
    ("header is a folder", |_| {
        run(&["--header", &root().join("tests/bad-inputs").display().to_string()], "bad-inputs is a folder")
    }),
    ("empty header", |_| run(&["--header", &bad("empty.h")], "empty.h")),
    ("binary garbage", |_| run(&["--header", &bad("garbage.h")], "garbage.h:1:1")),
    ("syntax error", |_| run(&["--header", &bad("syntax_error.h")], "syntax_error.h:2:10")),
    ("missing include", |_| run(&["--header", &bad("missing_include.h")], "does_not_exist.h")),
    ("include cycle", |_| run(&["--header", &bad("include_cycle.h")], "include_cycle.h:2:")),
    ("#error directive", |_| run(&["--header", &bad("error_directive.h")], "error_directive.h:2:2")),
    ("member of incomplete type", |_| run(&["--header", &bad("incomplete_field.h")], "incomplete_field.h:5:")),
    ("unsupported member type", |_| run(&["--header", &bad("unsupported_type.h")], "unsupported_type.h:3:")),
    ("alignment not a power of two", |_| {
        run(&["--header", &bad("alignment_not_power_of_two.h")], "alignment_not_power_of_two.h:4:")
    }),
    ("alignment only in C++", |_| run(&["--header", &bad("cxx_only_alignment.h")], "cxx_only_alignment.h:3:1")),
    ("modes lay a record out differently", |_| run(&["--header", &bad("mode_mismatch.h")], "Differs")),
    ("empty record differs between C and C++", |_| run(&["--header", &bad("empty_record_modes_differ.h")], "Empty")),
    ("c99 drops alignas", |_| run(&["--header", &fixture("propagate.h"), "--std", "c99"], "c99")),
    ("c++03 drops alignas", |_| run(&["--header", &fixture("propagate.h"), "--std", "c11,c++03"], "c++03")),
    ("unknown language mode", |_| run(&["--header", &fixture("propagate.h"), "--std", "c2x"], "c2x")),
    ("unknown target", |_| {
        run(&["--header", &fixture("packed.h"), "--target", "riscv64-unknown-linux-gnu"], "riscv64")
    }),
    ("unknown CTK", |_| run(&["--ctk", "11.2"], "11.2")),
    ("invalid python package name", |_| {
        run(&["--header", &fixture("packed.h"), "--python-package", "9lives"], "9lives")
    }),
    ("layout Rust cannot express", |_| {
        run(&["--header", &fixture("packed_aligned.h"), "--lang", "rust"], "PackedAligned")
    }),
    ("no libclang", |_| {
        run(&["--header", &fixture("packed.h")], "/nonexistent/libclang.so")
            .env("LIBCLANG_PATH", "/nonexistent/libclang.so")
    }),
    ("libclang that is not a library", |_| {
        run(&["--header", &fixture("packed.h")], "packed.h").env("LIBCLANG_PATH", fixture("packed.h"))
    }),
    ("malformed catalogue", |s| {
        let catalogue = s.scratch.join("ctk.toml");
        std::fs::write(&catalogue, "[[release]]\nctk = \"13.1.0\"\nwheel_sha256 = 12\n").unwrap();
        run(&["--ctk", "13.1"], "ctk.toml:3").env("CTKGEN_CATALOGUE", catalogue.display().to_string())
    }),
    ("catalogue path escapes the cache", |s| {
        let text = std::fs::read_to_string(root().join("headers/ctk.toml"))
            .unwrap()
            .replace("include_dir = \"nvidia/cu13/include\"", "include_dir = \"../../../etc\"");
        let catalogue = s.scratch.join("ctk.toml");
        std::fs::write(&catalogue, text).unwrap();
        run(&["--ctk", "13.1"], "include_dir").env("CTKGEN_CATALOGUE", catalogue.display().to_string())
    }),
    ("missing catalogue", |s| {
        run(&["--ctk", "13.1"], "no-such-ctk.toml")
            .env("CTKGEN_CATALOGUE", s.scratch.join("no-such-ctk.toml").display().to_string())
    }),
    ("wheel sha256 mismatch", |s| {
        let wheel = wheel_bytes(&fake_cuda_h());
        let release = fake_release(&s.scratch, &wheel, &"0".repeat(64), &sha256_hex(&fake_cuda_h()));
        run(&["--ctk", FAKE_CTK], FAKE_WHEEL).through(&release, s)
    }),
    ("header sha256 mismatch inside the wheel", |s| {
        let wheel = wheel_bytes(&fake_cuda_h());
        let release = fake_release(&s.scratch, &wheel, &sha256_hex(&wheel), &"1".repeat(64));
        run(&["--ctk", FAKE_CTK], "fake/include/cuda.h in ").through(&release, s)
    }),
    ("truncated wheel", |s| {
        let wheel = wheel_bytes(&fake_cuda_h());
        let truncated = &wheel[..wheel.len() / 2];
        let release = fake_release(&s.scratch, truncated, &sha256_hex(truncated), &sha256_hex(&fake_cuda_h()));
        run(&["--ctk", FAKE_CTK], FAKE_WHEEL).through(&release, s)
    }),
    ("wheel member fails its checksum", |s| {
        let header = fake_cuda_h();
        let mut wheel = wheel_bytes(&header);
        // Flip a byte inside the stored header: the archive still opens, the member's CRC fails.
        let at = wheel.windows(header.len()).position(|w| w == header.as_slice()).unwrap() + header.len() / 2;
        wheel[at] ^= 0x20;
        let release = fake_release(&s.scratch, &wheel, &sha256_hex(&wheel), &sha256_hex(&header));
        run(&["--ctk", FAKE_CTK], FAKE_WHEEL).through(&release, s)
    }),
    ("CUDA_VERSION that is not a number", |s| {
        let header = b"#define CUDA_VERSION twelve\nstruct A { int x; };\n".to_vec();
        let wheel = wheel_bytes(&header);
        let release = fake_release(&s.scratch, &wheel, &sha256_hex(&wheel), &sha256_hex(&header));
        run(&["--ctk", FAKE_CTK], "cuda.h").through(&release, s)
    }),
    ("extra header missing from the catalogue", |s| {
        let wheel = wheel_bytes(&fake_cuda_h());
        let headers = [("cuda.h".to_string(), sha256_hex(&fake_cuda_h()))];
        let release = fake_release_listing(&s.scratch, &wheel, &sha256_hex(&wheel), &headers);
        run(&["--ctk", FAKE_CTK], &format!("CTK {FAKE_CTK} has no cudaProfiler.h in ")).through(&release, s)
    }),
    ("extra header sha256 mismatch inside the wheel", |s| {
        let wheel = wheel_bytes(&fake_cuda_h());
        let mut headers = vec![("cuda.h".to_string(), sha256_hex(&fake_cuda_h()))];
        headers.extend(EXTRA_HEADERS.iter().map(|name| (name.to_string(), sha256_hex(b""))));
        headers[2].1 = "2".repeat(64);
        let release = fake_release_listing(&s.scratch, &wheel, &sha256_hex(&wheel), &headers);
        run(&["--ctk", FAKE_CTK], &format!("fake/include/cudaEGL.h in {FAKE_WHEEL} (CTK {FAKE_CTK})"))
            .through(&release, s)
    }),
    ("extra header missing from the wheel", |s| {
        let wheel = wheel_bytes_without(&fake_cuda_h(), "cudaGL.h");
        let release = fake_release(&s.scratch, &wheel, &sha256_hex(&wheel), &sha256_hex(&fake_cuda_h()));
        run(&["--ctk", FAKE_CTK], &format!("has no fake/include/cudaGL.h (a header of CTK {FAKE_CTK})"))
            .through(&release, s)
    }),
    ("unwritable cache", |s| {
        let wheel = wheel_bytes(&fake_cuda_h());
        let release = fake_release(&s.scratch, &wheel, &sha256_hex(&wheel), &sha256_hex(&fake_cuda_h()));
        // Tests run as root, so permissions stop nothing: a file where the cache folder should be does.
        let blocker = s.scratch.join("cache-blocker");
        std::fs::write(&blocker, "a file, not a folder").unwrap();
        run(&["--ctk", FAKE_CTK], "cache-blocker")
            .through(&release, s)
            .env("CTKGEN_CACHE", blocker.join("cache").display().to_string())
    }),
    ("no python for pip", |s| {
        let wheel = wheel_bytes(&fake_cuda_h());
        let release = fake_release(&s.scratch, &wheel, &sha256_hex(&wheel), &sha256_hex(&fake_cuda_h()));
        run(&["--ctk", FAKE_CTK], "/nonexistent/python3")
            .through(&release, s)
            .env("CTKGEN_PYTHON", "/nonexistent/python3")
    }),
    ("output parent is a file", |s| {
        let blocker = s.area.join("parent-blocker");
        std::fs::write(&blocker, "a file, not a folder").unwrap();
        run(&["--header", &fixture("packed.h")], "parent-blocker").out(blocker.join("out").display().to_string())
    }),
    ("output path is a file", |s| {
        let file = s.area.join("out-file");
        std::fs::write(&file, "a file, not a folder").unwrap();
        run(&["--header", &fixture("packed.h")], "out-file").out(file.display().to_string())
    }),
];

/// The arguments that produce the previous good output every case starts from.
fn good_args(out: &str) -> Vec<String> {
    ["generate", "--header", &fixture("packed.h"), "--out", out].iter().map(|a| a.to_string()).collect()
}

fn xtask(args: &[String], env: &[(String, String)]) -> Output {
    Command::new(xtask_binary()).args(args).envs(env.iter().map(|(k, v)| (k, v))).current_dir(root()).output().unwrap()
}

fn new_sandbox(base: &Path, index: usize) -> Sandbox {
    let sandbox =
        Sandbox { area: base.join(format!("case{index}/area")), scratch: base.join(format!("case{index}/scratch")) };
    std::fs::create_dir_all(&sandbox.area).unwrap();
    std::fs::create_dir_all(&sandbox.scratch).unwrap();
    let out = xtask(&good_args(&sandbox.out()), &[]);
    assert!(out.status.success(), "the previous good output: {}", String::from_utf8_lossy(&out.stderr));
    sandbox
}

/// Runs one case and returns what is wrong with its outcome (nothing when it behaves).
fn check_case(name: &str, setup: Setup, sandbox: &Sandbox) -> Vec<String> {
    let case = setup(sandbox);
    let before = snapshot(&sandbox.area);
    let out = case.out.clone().unwrap_or_else(|| sandbox.out());
    let mut args: Vec<String> = vec!["generate".into(), "--out".into(), out];
    args.extend(case.args.iter().cloned());
    let started = Instant::now();
    let output = xtask(&args, &case.env);
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    // Progress lines (`-- fetching ...`) may come first; the error is the one other line.
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.starts_with("-- ")).collect();
    let mut problems = Vec::new();
    if output.status.success() {
        problems.push("succeeded".to_string());
    }
    if output.status.code() == Some(101) || output.status.code().is_none() {
        problems.push(format!("crashed or panicked ({:?})", output.status));
    }
    if lines.len() != 1 || !lines[0].starts_with("error: ") {
        problems.push(format!("expected one `error: ` line, got {} lines", lines.len()));
    } else if !lines[0].contains(&case.names) {
        problems.push(format!("`{}` not named", case.names));
    } else if let Some(repeated) = repeated_part(lines[0]) {
        problems.push(format!("`{repeated}` is said twice"));
    }
    let after = snapshot(&sandbox.area);
    if after != before {
        let changed: Vec<_> = before.keys().chain(after.keys()).filter(|k| before.get(*k) != after.get(*k)).collect();
        problems.push(format!("the output area changed: {changed:?}"));
    }
    // A failed fetch leaves no download or staging folder, and no header the catalogue does
    // not vouch for (a verified header may stay: the next run reuses it).
    let cache = snapshot(&sandbox.scratch.join("cache"));
    let catalogue = std::fs::read_to_string(sandbox.scratch.join("ctk.toml")).unwrap_or_default();
    let leftovers: Vec<&String> = cache
        .iter()
        .filter(|(k, sha)| {
            (k.ends_with(".h") && !catalogue.contains(sha.as_str()))
                || k.contains(".staging-")
                || k.contains(".download-")
        })
        .map(|(k, _)| k)
        .collect();
    if !leftovers.is_empty() {
        problems.push(format!("the cache keeps {leftovers:?}"));
    }
    // Shown with `--nocapture`: the corpus as a user sees it.
    println!("{name} ({} ms): {}", took.as_millis(), lines.first().unwrap_or(&""));
    if took > Duration::from_secs(60) {
        problems.push(format!("took {took:?}"));
    }
    problems
        .into_iter()
        .map(|p| format!("{name}: {p}\n    stderr: {}", stderr.trim_end().replace('\n', "\n            ")))
        .collect()
}

#[test]
fn every_bad_input_fails_cleanly_and_keeps_the_previous_output() {
    assert!(CASES.len() >= 30, "{} cases", CASES.len());
    let base = tempfile::tempdir().unwrap();
    xtask_binary();
    // Two workers: the cases are independent, each in its own sandbox.
    let problems: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|worker| {
                let base = base.path();
                scope.spawn(move || {
                    let mut problems = Vec::new();
                    for (index, (name, setup)) in CASES.iter().enumerate().filter(|(i, _)| i % 2 == worker) {
                        let sandbox = new_sandbox(base, index);
                        problems.extend(check_case(name, *setup, &sandbox));
                    }
                    problems
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    assert!(problems.is_empty(), "{} of {} cases misbehave:\n{}", problems.len(), CASES.len(), problems.join("\n"));
}

/// The fabricated release is sound: with honest hashes it generates, so each failure above
/// comes from the one thing its case breaks.
#[test]
fn the_fabricated_release_generates_when_nothing_is_wrong() {
    let base = tempfile::tempdir().unwrap();
    let sandbox = new_sandbox(base.path(), 0);
    let header = fake_cuda_h();
    let wheel = wheel_bytes(&header);
    let release = fake_release(&sandbox.scratch, &wheel, &sha256_hex(&wheel), &sha256_hex(&header));
    // The fabricated release carries the driver's header only.
    let case = run(&["--ctk", FAKE_CTK, "--library", "cuda-driver"], "").through(&release, &sandbox);
    let mut args = vec!["generate".to_string(), "--out".into(), sandbox.out()];
    args.extend(case.args);
    let out = xtask(&args, &case.env);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cached = sandbox.scratch.join(format!("cache/ctk/{FAKE_CTK}/include/cuda.h"));
    assert_eq!(std::fs::read(cached).unwrap(), header);
}

/// The checks above can fail: a run that does write changes the snapshot, and a case whose
/// expected name is wrong is reported.
#[test]
fn the_corpus_checks_can_fail() {
    let base = tempfile::tempdir().unwrap();
    let sandbox = new_sandbox(base.path(), 0);
    let rewrites: Setup = |s| run(&["--header", &fixture("bitfields.h")], "").out(s.out());
    let problems = check_case("rewrites", rewrites, &sandbox);
    assert!(problems.iter().any(|p| p.contains("succeeded")), "{problems:?}");
    assert!(problems.iter().any(|p| p.contains("the output area changed")), "{problems:?}");
    let misnamed: Setup = |_| run(&["--header", &bad("empty.h")], "some-other-file.h");
    let problems = check_case("misnamed", misnamed, &sandbox);
    assert!(problems.len() == 1 && problems[0].contains("not named"), "{problems:?}");
    let litters: Setup = |s| {
        std::fs::create_dir_all(s.scratch.join("cache/wheels/.download-left")).unwrap();
        run(&["--header", &bad("empty.h")], "empty.h")
    };
    let problems = check_case("litters", litters, &sandbox);
    assert!(problems.len() == 1 && problems[0].contains("the cache keeps"), "{problems:?}");
    assert_eq!(
        repeated_part("error: cannot read x.toml: No such file (os error 2): No such file (os error 2)"),
        Some("No such file (os error 2)")
    );
    assert_eq!(repeated_part("error: cannot read x.toml: No such file (os error 2)"), None);
}

fn spawn(args: &[String], env: &[(&str, &str)]) -> Child {
    Command::new(xtask_binary())
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A failing run next to a succeeding one on the same folder: the failure touches nothing and
/// the folder ends as the good run's complete output. (`xtask/tests/output.rs` covers two
/// succeeding runs and kills on a full CTK; this repeats both lightly on a fixture.)
#[test]
fn a_bad_run_beside_a_good_run_leaves_one_complete_output() {
    let base = tempfile::tempdir().unwrap();
    let sandbox = new_sandbox(base.path(), 0);
    let out = sandbox.out();
    let mut good = good_args(&out);
    good.extend(["--python-package".into(), "renamed_cuda".into()]);
    let bad_args: Vec<String> =
        ["generate", "--out", &out, "--header", &bad("garbage.h")].iter().map(|a| a.to_string()).collect();
    for _ in 0..3 {
        let writer = spawn(&good, &[("CTKGEN_TEST_WRITE_PAUSE_MS", "5")]);
        let failing = spawn(&bad_args, &[]).wait_with_output().unwrap();
        let writer = writer.wait_with_output().unwrap();
        assert!(writer.status.success(), "{}", String::from_utf8_lossy(&writer.stderr));
        assert_eq!(failing.status.code(), Some(2), "{}", String::from_utf8_lossy(&failing.stderr));
        let mut check = good.clone();
        check.push("--check".into());
        assert!(xtask(&check, &[]).status.success(), "the folder is not the good run's complete output");
        assert!(xtask(&good_args(&out), &[]).status.success());
    }
    let names: Vec<String> = std::fs::read_dir(&sandbox.area)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["out"]);
}

#[test]
fn a_run_killed_while_writing_leaves_the_previous_output_whole() {
    let base = tempfile::tempdir().unwrap();
    let sandbox = new_sandbox(base.path(), 0);
    let out = sandbox.out();
    let previous = snapshot(&sandbox.area.join("out"));
    let mut renamed = good_args(&out);
    renamed.extend(["--python-package".into(), "renamed_cuda".into()]);
    let mut killed_mid_write = 0;
    for _ in 0..3 {
        let mut child = spawn(&renamed, &[("CTKGEN_TEST_WRITE_PAUSE_MS", "50")]);
        // Writing has begun once a staging folder appears beside the output.
        let deadline = Instant::now() + Duration::from_secs(60);
        let staging_seen = loop {
            let staging = std::fs::read_dir(&sandbox.area)
                .unwrap()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().contains("staging"));
            if staging || child.try_wait().unwrap().is_some() || Instant::now() > deadline {
                break staging;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        std::thread::sleep(Duration::from_millis(120));
        let finished = child.try_wait().unwrap().is_some();
        child.kill().unwrap_or(()); // SIGKILL
        child.wait().unwrap();
        killed_mid_write += usize::from(staging_seen && !finished);
        assert_eq!(snapshot(&sandbox.area.join("out")), previous, "a killed run changed the output");
    }
    assert_eq!(killed_mid_write, 3, "every kill must land while writing");
    // The next run clears what the killed ones left beside the output.
    assert!(xtask(&good_args(&out), &[]).status.success());
    let names: Vec<String> = std::fs::read_dir(&sandbox.area)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["out"]);
}
