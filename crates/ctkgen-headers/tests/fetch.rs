//! `fetch` against wheels built here, served by a stand-in for python that plays pip: the cache,
//! the hash checks, the lock and every failure path, without the network.
#![cfg(unix)]

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use ctkgen_headers::{fetch_static_library_with, fetch_with, Cache, Companion, HeadersError, Pip, Release};
use sha2::{Digest, Sha256};
use tempfile::TempDir;

/// The driver's headers, as its description names them.
fn driver() -> ctkgen_headers::LibraryHeaders {
    ctkgen_headers::LibraryHeaders {
        main: "cuda.h".into(),
        typedefs: Some("cudaTypedefs.h".into()),
        version_macro: Some("CUDA_VERSION".into()),
    }
}

const CUDA_H: &[u8] = b"#ifndef __cuda_cuda_h__\n#define __cuda_cuda_h__\n#define CUDA_VERSION 13010\n#endif\n";
const TYPEDEFS_H: &[u8] = b"typedef int PFN_cuInit_v2000;\n";
const EGL_H: &[u8] = b"#include \"cuda.h\"\n";
const PROFILER_H: &[u8] = b"#include <cuda.h>\n";
const HOST_DEFINES_H: &[u8] = b"#define CTKGEN_TEST_HOST_DEFINES 1\n";
const WHEEL_FILE: &str = "nvidia_cuda_runtime-13.1.80-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl";
const COMPANION_FILE: &str = "nvidia_cuda_profiler_api-13.1.80-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl";
const INCLUDE_DIR: &str = "nvidia/cu13/include";
const ARCHIVE: &[u8] = b"!<arch>\nnot really an archive\n";
const ARCHIVE_MEMBER: &str = "nvidia/cu13/lib/libfoo_static.a";

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A wheel with the layout of the real 13.x runtime wheel, and its catalogue entry.
struct Fixture {
    dir: TempDir,
    wheel: PathBuf,
    release: Release,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let served = dir.path().join("served");
        fs::create_dir(&served).unwrap();
        let wheel = served.join(WHEEL_FILE);
        let mut zip = zip::ZipWriter::new(fs::File::create(&wheel).unwrap());
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        let runtime =
            [("cuda.h", CUDA_H), ("cudaTypedefs.h", TYPEDEFS_H), ("cudaEGL.h", EGL_H), ("cuda_runtime.h", b"")];
        for (name, bytes) in runtime {
            zip.start_file(format!("{INCLUDE_DIR}/{name}"), options).unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.start_file(ARCHIVE_MEMBER, options).unwrap();
        zip.write_all(ARCHIVE).unwrap();
        zip.finish().unwrap();
        // The profiler API's own wheel, with the layout of the real one, and a header in a
        // subfolder as the compiler's wheel has them.
        let mut zip = zip::ZipWriter::new(fs::File::create(served.join(COMPANION_FILE)).unwrap());
        zip.start_file(format!("{INCLUDE_DIR}/cudaProfiler.h"), options).unwrap();
        zip.write_all(PROFILER_H).unwrap();
        zip.start_file(format!("{INCLUDE_DIR}/crt/host_defines.h"), options).unwrap();
        zip.write_all(HOST_DEFINES_H).unwrap();
        zip.finish().unwrap();
        let release = Release {
            ctk: "13.1.0".into(),
            toolkit_version: "13.1.0".into(),
            package: "nvidia-cuda-runtime".into(),
            wheel_version: "13.1.80".into(),
            wheel_file: WHEEL_FILE.into(),
            wheel_sha256: sha256(&fs::read(&wheel).unwrap()),
            headers: BTreeMap::from([
                ("cuda.h".to_string(), sha256(CUDA_H)),
                ("cudaTypedefs.h".to_string(), sha256(TYPEDEFS_H)),
            ]),
            include_dir: INCLUDE_DIR.into(),
            static_libraries: BTreeMap::new(),
            companions: Vec::new(),
        };
        Fixture { dir, wheel, release }
    }

    fn cache(&self) -> Cache {
        Cache::new(self.dir.path().join("cache"))
    }

    fn pip_log(&self) -> PathBuf {
        self.dir.path().join("pip.log")
    }

    fn pip_runs(&self) -> Vec<String> {
        fs::read_to_string(self.pip_log()).unwrap_or_default().lines().map(str::to_string).collect()
    }

    /// The release as a newer catalogue lists it: a further header of the runtime wheel, and
    /// one from the profiler API's wheel.
    fn release_with_companion(&self) -> Release {
        let mut release = self.release.clone();
        release.headers.insert("cudaEGL.h".into(), sha256(EGL_H));
        release.companions.push(Companion {
            extra: "profiler".into(),
            package: "nvidia-cuda-profiler-api".into(),
            wheel_version: "13.1.80".into(),
            wheel_file: COMPANION_FILE.into(),
            wheel_sha256: sha256(&fs::read(self.dir.path().join("served").join(COMPANION_FILE)).unwrap()),
            include_dir: INCLUDE_DIR.into(),
            headers: BTreeMap::from([
                ("cudaProfiler.h".to_string(), sha256(PROFILER_H)),
                ("crt/host_defines.h".to_string(), sha256(HOST_DEFINES_H)),
            ]),
            static_libraries: BTreeMap::new(),
        });
        release
    }

    /// A python whose `-m pip download` logs its arguments and copies the served wheel of the
    /// requested package.
    fn serving_pip_by_package(&self) -> Pip {
        let script = write_script(
            self.dir.path(),
            "serving-python-by-package",
            r#"echo "$@" >> "$FAKE_PIP_LOG"
while [ $# -gt 0 ]; do
  if [ "$1" = "--dest" ]; then dest="$2"; fi
  requirement="$1"
  shift
done
package=$(echo "$requirement" | sed 's/==.*//; s/-/_/g')
cp "$FAKE_SERVED"/"$package"-*.whl "$dest/""#,
        );
        Pip::with_python(script).env("FAKE_PIP_LOG", self.pip_log()).env("FAKE_SERVED", self.dir.path().join("served"))
    }

    /// A python whose `-m pip download` logs its arguments and copies the served wheel.
    fn serving_pip(&self) -> Pip {
        let script = write_script(
            self.dir.path(),
            "serving-python",
            r#"echo "$@" >> "$FAKE_PIP_LOG"
while [ $# -gt 0 ]; do
  if [ "$1" = "--dest" ]; then dest="$2"; fi
  shift
done
cp "$FAKE_WHEEL" "$dest/""#,
        );
        Pip::with_python(script).env("FAKE_PIP_LOG", self.pip_log()).env("FAKE_WHEEL", &self.wheel)
    }
}

fn write_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A python that must never be run: proves a call stayed off the network.
fn absent_pip() -> Pip {
    Pip::with_python("/nonexistent/python3")
}

#[test]
fn fetch_installs_verified_headers_then_reuses_them() {
    let fixture = Fixture::new();
    let cache = fixture.cache();
    let headers = fetch_with(&fixture.release, &cache, &fixture.serving_pip(), &driver()).unwrap();
    let include_dir = cache.root().join("ctk/13.1.0/include");
    assert_eq!(headers.include_dir, include_dir);
    assert_eq!(headers.main_header, include_dir.join("cuda.h"));
    assert_eq!(headers.typedefs_header, Some(include_dir.join("cudaTypedefs.h")));
    assert_eq!(headers.ctk.as_deref(), Some("13.1.0"));
    assert_eq!(headers.cuda_version, Some(13010));
    assert_eq!(fs::read(&headers.main_header).unwrap(), CUDA_H);
    assert_eq!(fs::read(include_dir.join("cudaTypedefs.h")).unwrap(), TYPEDEFS_H);
    // Only the catalogued headers are extracted, and no download folder is left behind.
    assert!(!include_dir.join("cuda_runtime.h").exists());
    assert_eq!(fs::read_dir(cache.root().join("wheels")).unwrap().count(), 0);

    let runs = fixture.pip_runs();
    assert_eq!(runs.len(), 1);
    assert!(runs[0].starts_with("-m pip "), "{}", runs[0]);
    for expected in [
        "download --no-deps --only-binary=:all:",
        "--platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64",
        "nvidia-cuda-runtime==13.1.80",
    ] {
        assert!(runs[0].contains(expected), "{}", runs[0]);
    }

    let again = fetch_with(&fixture.release, &cache, &absent_pip(), &driver()).unwrap();
    assert_eq!(again, headers);
}

/// The fixture's release with its wheel's archive pinned (as `expected`).
fn with_archive(release: &Release, expected: &str) -> Release {
    let mut release = release.clone();
    release.static_libraries.insert(ARCHIVE_MEMBER.into(), expected.into());
    release
}

#[test]
fn a_static_archive_is_fetched_verified_then_reused() {
    let fixture = Fixture::new();
    let cache = fixture.cache();
    let release = with_archive(&fixture.release, &sha256(ARCHIVE));
    let path = fetch_static_library_with(&release, &cache, &fixture.serving_pip(), "libfoo_static.a").unwrap().unwrap();
    assert_eq!(path, cache.library_dir("13.1.0").join("libfoo_static.a"));
    assert_eq!(fs::read(&path).unwrap(), ARCHIVE);
    assert_eq!(fixture.pip_runs().len(), 1);
    // Cached: no pip. Damaged: fetched again.
    assert_eq!(
        fetch_static_library_with(&release, &cache, &absent_pip(), "libfoo_static.a").unwrap(),
        Some(path.clone())
    );
    fs::write(&path, b"damaged").unwrap();
    fetch_static_library_with(&release, &cache, &fixture.serving_pip(), "libfoo_static.a").unwrap();
    assert_eq!(fs::read(&path).unwrap(), ARCHIVE);
    assert_eq!(fixture.pip_runs().len(), 2);
    // One the release does not pin is none, asked of no pip.
    assert_eq!(fetch_static_library_with(&release, &cache, &absent_pip(), "libbar_static.a").unwrap(), None);
    assert_eq!(fetch_static_library_with(&fixture.release, &cache, &absent_pip(), "libfoo_static.a").unwrap(), None);
}

#[test]
fn a_static_archive_hash_mismatch_installs_nothing() {
    let fixture = Fixture::new();
    let cache = fixture.cache();
    let release = with_archive(&fixture.release, &"0".repeat(64));
    let error = fetch_static_library_with(&release, &cache, &fixture.serving_pip(), "libfoo_static.a").unwrap_err();
    assert!(matches!(&error, HeadersError::HashMismatch { file, .. } if file.contains(ARCHIVE_MEMBER)), "{error:?}");
    let left: Vec<_> = fs::read_dir(cache.library_dir("13.1.0")).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_damaged_cached_header_is_fetched_again() {
    let fixture = Fixture::new();
    let cache = fixture.cache();
    let headers = fetch_with(&fixture.release, &cache, &fixture.serving_pip(), &driver()).unwrap();
    fs::write(&headers.main_header, b"garbage").unwrap();
    fetch_with(&fixture.release, &cache, &fixture.serving_pip(), &driver()).unwrap();
    assert_eq!(fs::read(&headers.main_header).unwrap(), CUDA_H);
    assert_eq!(fixture.pip_runs().len(), 2);
}

#[test]
fn a_header_hash_mismatch_leaves_good_files_intact() {
    let fixture = Fixture::new();
    let cache = fixture.cache();
    let good = fetch_with(&fixture.release, &cache, &fixture.serving_pip(), &driver()).unwrap();

    let mut doctored = fixture.release.clone();
    let wrong = "0".repeat(64);
    doctored.headers.insert("cuda.h".into(), wrong.clone());
    let error = fetch_with(&doctored, &cache, &fixture.serving_pip(), &driver()).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, HeadersError::HashMismatch { .. }), "{error:?}");
    assert!(message.contains("nvidia/cu13/include/cuda.h"), "{message}");
    assert!(message.contains(&format!("expected {wrong}")), "{message}");
    assert!(message.contains(&format!("got {}", sha256(CUDA_H))), "{message}");
    assert!(!message.contains('\n'));

    assert_eq!(fs::read(&good.main_header).unwrap(), CUDA_H);
    assert_eq!(fs::read(good.typedefs_header.as_ref().unwrap()).unwrap(), TYPEDEFS_H);
    // Nothing half-written is left next to the good files.
    let ctk_dir = cache.root().join("ctk/13.1.0");
    let leftovers: Vec<_> = fs::read_dir(&ctk_dir).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(leftovers, ["include"]);
    assert_eq!(fetch_with(&fixture.release, &cache, &absent_pip(), &driver()).unwrap(), good);
}

#[test]
fn a_wheel_hash_mismatch_installs_nothing() {
    let fixture = Fixture::new();
    let cache = fixture.cache();
    let mut doctored = fixture.release.clone();
    doctored.wheel_sha256 = "f".repeat(64);
    let error = fetch_with(&doctored, &cache, &fixture.serving_pip(), &driver()).unwrap_err();
    let message = error.to_string();
    assert!(message.starts_with(&format!("sha256 mismatch for {WHEEL_FILE} (CTK 13.1.0): expected ffff")), "{message}");
    assert!(message.contains(&fixture.release.wheel_sha256), "{message}");
    assert!(!cache.root().join("ctk/13.1.0/include/cuda.h").exists());
}

#[test]
fn a_truncated_wheel_is_reported_as_corrupt() {
    let fixture = Fixture::new();
    let bytes = fs::read(&fixture.wheel).unwrap();
    fs::write(&fixture.wheel, &bytes[..bytes.len() / 2]).unwrap();
    // The hash matches the truncated file, so the zip reader is what notices.
    let mut release = fixture.release.clone();
    release.wheel_sha256 = sha256(&bytes[..bytes.len() / 2]);
    let cache = fixture.cache();
    let error = fetch_with(&release, &cache, &fixture.serving_pip(), &driver()).unwrap_err();
    assert!(matches!(error, HeadersError::CorruptWheel { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains(WHEEL_FILE) && message.contains("is not a readable wheel"), "{message}");
    assert!(!message.contains('\n'));
}

#[test]
fn a_wheel_without_the_headers_is_reported() {
    let fixture = Fixture::new();
    let mut release = fixture.release.clone();
    release.include_dir = "nvidia/cuda_runtime/include".into();
    let error = fetch_with(&release, &fixture.cache(), &fixture.serving_pip(), &driver()).unwrap_err();
    assert!(matches!(error, HeadersError::MissingMember { .. }), "{error:?}");
    assert!(
        error.to_string().ends_with("has no nvidia/cuda_runtime/include/cuda.h (a header of CTK 13.1.0)"),
        "{error}"
    );
}

#[test]
fn a_cache_filled_from_an_older_catalogue_gains_the_new_headers() {
    let fixture = Fixture::new();
    let cache = fixture.cache();
    let pip = fixture.serving_pip_by_package();
    let old = fetch_with(&fixture.release, &cache, &pip, &driver()).unwrap();
    let include_dir = cache.root().join("ctk/13.1.0/include");
    assert!(!include_dir.join("cudaEGL.h").exists());
    assert_eq!(old.catalogued.as_ref().unwrap().len(), 2);

    // The newer catalogue's headers come from both wheels into the same folder.
    let release = fixture.release_with_companion();
    let headers = fetch_with(&release, &cache, &pip, &driver()).unwrap();
    assert_eq!(fs::read(include_dir.join("cudaEGL.h")).unwrap(), EGL_H);
    assert_eq!(fs::read(include_dir.join("cudaProfiler.h")).unwrap(), PROFILER_H);
    assert_eq!(fs::read(include_dir.join("crt/host_defines.h")).unwrap(), HOST_DEFINES_H);
    assert_eq!(fs::read(&headers.main_header).unwrap(), CUDA_H);
    let catalogued: Vec<&str> = headers.catalogued.as_ref().unwrap().iter().map(String::as_str).collect();
    assert_eq!(catalogued, ["crt/host_defines.h", "cuda.h", "cudaEGL.h", "cudaProfiler.h", "cudaTypedefs.h"]);
    let runs = fixture.pip_runs();
    assert_eq!(runs.len(), 3, "{runs:?}");
    assert!(
        runs[1].ends_with("nvidia-cuda-runtime==13.1.80") && runs[2].ends_with("nvidia-cuda-profiler-api==13.1.80")
    );
    assert_eq!(fetch_with(&release, &cache, &absent_pip(), &driver()).unwrap(), headers);

    // A damaged companion header fetches its own wheel again, and only that one.
    fs::write(include_dir.join("cudaProfiler.h"), b"garbage").unwrap();
    fetch_with(&release, &cache, &pip, &driver()).unwrap();
    assert_eq!(fs::read(include_dir.join("cudaProfiler.h")).unwrap(), PROFILER_H);
    let runs = fixture.pip_runs();
    assert_eq!(runs.len(), 4, "{runs:?}");
    assert!(runs[3].ends_with("nvidia-cuda-profiler-api==13.1.80"), "{}", runs[3]);
}

#[test]
fn a_companion_header_hash_mismatch_names_the_file_and_the_ctk() {
    let fixture = Fixture::new();
    let cache = fixture.cache();
    let mut release = fixture.release_with_companion();
    release.companions[0].headers.insert("cudaProfiler.h".into(), "0".repeat(64));
    let error = fetch_with(&release, &cache, &fixture.serving_pip_by_package(), &driver()).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, HeadersError::HashMismatch { .. }), "{error:?}");
    assert!(message.contains(&format!("{INCLUDE_DIR}/cudaProfiler.h in {COMPANION_FILE} (CTK 13.1.0)")), "{message}");
    assert!(!message.contains('\n'));
    // Checked before anything is written: not even the runtime wheel's good headers are installed.
    assert!(!cache.root().join("ctk/13.1.0/include/cuda.h").exists());

    let mut release = fixture.release_with_companion();
    release.companions[0].headers = BTreeMap::from([("cudaMissing.h".to_string(), "0".repeat(64))]);
    let error = fetch_with(&release, &cache, &fixture.serving_pip_by_package(), &driver()).unwrap_err();
    assert!(matches!(error, HeadersError::MissingMember { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains(COMPANION_FILE), "{message}");
    assert!(message.ends_with(&format!("has no {INCLUDE_DIR}/cudaMissing.h (a header of CTK 13.1.0)")), "{message}");
}

#[test]
fn a_pip_failure_is_one_line_with_pips_last_words() {
    let fixture = Fixture::new();
    let failing = write_script(
        fixture.dir.path(),
        "failing-python",
        "echo 'WARNING: Retrying after connection broken' >&2\necho 'ERROR: could not reach the index' >&2\nexit 1",
    );
    let error = fetch_with(&fixture.release, &fixture.cache(), &Pip::with_python(failing), &driver()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "pip could not download nvidia-cuda-runtime==13.1.80: ERROR: could not reach the index"
    );
}

#[test]
fn a_missing_python_is_reported() {
    let fixture = Fixture::new();
    let error = fetch_with(&fixture.release, &fixture.cache(), &absent_pip(), &driver()).unwrap_err();
    assert!(matches!(error, HeadersError::PythonNotFound { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.starts_with("cannot run /nonexistent/python3 to call pip"), "{message}");
    assert!(message.contains("CTKGEN_PYTHON") && !message.contains('\n'), "{message}");
}

#[test]
fn an_unreachable_index_is_one_clear_line() {
    let fixture = Fixture::new();
    let offline = Pip::from_env()
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
        .env("PIP_EXTRA_INDEX_URL", "")
        .env("PIP_FIND_LINKS", "")
        .env("PIP_NO_CACHE_DIR", "1")
        .env("PIP_RETRIES", "0")
        .env("PIP_TIMEOUT", "5");
    let error = fetch_with(&fixture.release, &fixture.cache(), &offline, &driver()).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, HeadersError::PipFailed { .. }), "{error:?}");
    assert!(message.starts_with("pip could not download nvidia-cuda-runtime==13.1.80: "), "{message}");
    assert!(!message.contains('\n'), "{message}");
    assert!(!fixture.cache().root().join("ctk/13.1.0/include/cuda.h").exists());
}

#[test]
fn an_unwritable_cache_is_reported() {
    let fixture = Fixture::new();
    // A regular file where the cache folder should be: unwritable even for root.
    let blocked = fixture.dir.path().join("not-a-folder");
    fs::write(&blocked, b"").unwrap();
    let error =
        fetch_with(&fixture.release, &Cache::new(blocked.clone()), &fixture.serving_pip(), &driver()).unwrap_err();
    assert!(matches!(error, HeadersError::UnwritableCache { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.starts_with(&format!("cache directory {}/", blocked.display())), "{message}");
    assert!(message.contains("is not writable"), "{message}");
    assert!(fixture.pip_runs().is_empty());
}

#[test]
fn concurrent_fetches_download_once() {
    let fixture = Fixture::new();
    let cache = fixture.cache();
    let pip = fixture.serving_pip();
    let results: Vec<_> = std::thread::scope(|scope| {
        let workers: Vec<_> =
            (0..4).map(|_| scope.spawn(|| fetch_with(&fixture.release, &cache, &pip, &driver()))).collect();
        workers.into_iter().map(|worker| worker.join().unwrap()).collect()
    });
    let first = results[0].as_ref().unwrap().clone();
    for result in &results {
        assert_eq!(result.as_ref().unwrap(), &first);
    }
    assert_eq!(fs::read(&first.main_header).unwrap(), CUDA_H);
    assert_eq!(fixture.pip_runs().len(), 1, "the lock lets one worker download and the rest reuse");
}

#[test]
fn a_release_that_escapes_the_cache_is_refused() {
    let fixture = Fixture::new();
    let mut release = fixture.release.clone();
    release.ctk = "../13.1.0".into();
    let error = fetch_with(&release, &fixture.cache(), &fixture.serving_pip(), &driver()).unwrap_err();
    assert!(matches!(error, HeadersError::InvalidRelease { .. }), "{error:?}");
    assert!(fixture.pip_runs().is_empty());
}
