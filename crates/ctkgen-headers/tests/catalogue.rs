//! The committed catalogue and the catalogue reader.

use std::path::{Path, PathBuf};

use ctkgen_headers::{Catalogue, HeadersError};

fn committed_catalogue_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/ctk.toml")
}

fn committed_catalogue() -> Catalogue {
    Catalogue::load(&committed_catalogue_path()).expect("headers/ctk.toml loads")
}

/// Every `cuda-toolkit` release on the index from 12.0.0 on, as the meta-package spells it.
const TOOLKIT_RELEASES: [&str; 40] = [
    "12.0.0", "12.0.1", "12.1.0", "12.1.1", "12.2.0", "12.2.1", "12.2.2", "12.3.0", "12.3.1", "12.3.2", "12.4.0",
    "12.4.1", "12.5.0", "12.5.1", "12.6.0", "12.6.1", "12.6.2", "12.6.3", "12.8.0", "12.8.1", "12.8.2.0", "12.9.0",
    "12.9.1", "12.9.2.0", "13.0.0", "13.0.1", "13.0.2", "13.0.3.0", "13.1.0", "13.1.1", "13.1.2.0", "13.2.0", "13.2.1",
    "13.2.2", "13.3.0", "13.3.1", "13.4.1.0", "13.4.2", "13.4.3", "13.5.0",
];

#[test]
fn lists_every_release_from_12_0_0_to_13_5_0() {
    let catalogue = committed_catalogue();
    let listed: Vec<&str> = catalogue.releases.iter().map(|r| r.toolkit_version.as_str()).collect();
    assert_eq!(listed, TOOLKIT_RELEASES);
    let first = &catalogue.releases[0];
    let last = catalogue.releases.last().unwrap();
    assert_eq!((first.ctk.as_str(), last.ctk.as_str()), ("12.0.0", "13.5.0"));
    for release in &catalogue.releases {
        let cu12 = release.ctk.starts_with("12.");
        let (package, include_dir) = if cu12 {
            ("nvidia-cuda-runtime-cu12", "nvidia/cuda_runtime/include")
        } else {
            ("nvidia-cuda-runtime", "nvidia/cu13/include")
        };
        assert_eq!(release.package, package, "{}", release.ctk);
        assert_eq!(release.include_dir, include_dir, "{}", release.ctk);
        let names: Vec<&str> = release.headers.keys().map(String::as_str).collect();
        // The runtime wheel holds the driver's headers and the runtime API's (cuda_runtime.h and
        // the headers it includes, for the EGL interoperability header).
        let runtime_headers = [
            "builtin_types.h",
            "channel_descriptor.h",
            "cuda.h",
            "cudaEGL.h",
            "cudaEGLTypedefs.h",
            "cudaGL.h",
            "cudaGLTypedefs.h",
            "cudaProfilerTypedefs.h",
            "cudaTypedefs.h",
            "cudaVDPAU.h",
            "cudaVDPAUTypedefs.h",
            "cuda_device_runtime_api.h",
            "cuda_egl_interop.h",
            "cuda_gl_interop.h",
            "cuda_runtime.h",
            "cuda_runtime_api.h",
            "cuda_vdpau_interop.h",
            "cudart_platform.h",
            "device_types.h",
            "driver_functions.h",
            "driver_types.h",
            "library_types.h",
            "surface_types.h",
            "texture_types.h",
            "vector_functions.h",
            "vector_functions.hpp",
            "vector_types.h",
        ];
        assert_eq!(names, runtime_headers, "{}", release.ctk);
        // The profiler API's headers ship in its own wheel of the same release, crt/host_defines.h
        // and crt/host_config.h (which the runtime's headers include) in nvcc's wheel in 12.x and crt's in 13.x, nvrtc.h in
        // NVRTC's, nvJitLink.h in nvJitLink's, nvvm.h in nvcc's (under nvvm/include) in 12.x and
        // NVVM's own in 13.x: one companion entry per include folder.
        let by_header = |header: &str| {
            let mut found = release.companions.iter().filter(|c| c.headers.contains_key(header));
            match (found.next(), found.next()) {
                (Some(one), None) => one,
                _ => panic!("{}: not one companion with {header}: {:?}", release.ctk, release.companions),
            }
        };
        // nvFatbin.h in nvFatbin's own wheel, from 12.4 on.
        let minor_number: Vec<u32> = release.ctk.split('.').take(2).map(|p| p.parse().unwrap()).collect();
        let has_fatbin = minor_number >= vec![12, 4];
        assert_eq!(release.companions.len(), 5 + usize::from(has_fatbin), "{}: {:?}", release.ctk, release.companions);
        if has_fatbin {
            let fatbin = by_header("nvFatbin.h");
            let names: Vec<&str> = fatbin.headers.keys().map(String::as_str).collect();
            assert_eq!((fatbin.extra.as_str(), names), ("nvfatbin", vec!["nvFatbin.h"]), "{}", release.ctk);
            let (expected_package, folder) = if cu12 {
                ("nvidia-nvfatbin-cu12", "nvidia/nvfatbin/include")
            } else {
                ("nvidia-nvfatbin", "nvidia/cu13/include")
            };
            assert_eq!(
                (fatbin.package.as_str(), fatbin.include_dir.as_str()),
                (expected_package, folder),
                "{}",
                release.ctk
            );
            let (minor, _) = release.ctk.rsplit_once('.').unwrap();
            assert!(fatbin.wheel_version.starts_with(&format!("{minor}.")), "{}", release.ctk);
        }
        let (profiler, crt, nvrtc) =
            (by_header("cudaProfiler.h"), by_header("crt/host_defines.h"), by_header("nvrtc.h"));
        let (nvjitlink, nvvm) = (by_header("nvJitLink.h"), by_header("nvvm.h"));
        let names: Vec<&str> = nvjitlink.headers.keys().map(String::as_str).collect();
        let expected_package = if cu12 { "nvidia-nvjitlink-cu12" } else { "nvidia-nvjitlink" };
        assert_eq!((nvjitlink.extra.as_str(), names), ("nvjitlink", vec!["nvJitLink.h"]), "{}", release.ctk);
        assert_eq!(nvjitlink.package, expected_package, "{}", release.ctk);
        let names: Vec<&str> = nvvm.headers.keys().map(String::as_str).collect();
        let (extra, expected_package, folder) = if cu12 {
            ("nvcc", "nvidia-cuda-nvcc-cu12", "nvidia/cuda_nvcc/nvvm/include")
        } else {
            ("nvvm", "nvidia-nvvm", "nvidia/cu13/include")
        };
        assert_eq!((nvvm.extra.as_str(), names), (extra, vec!["nvvm.h"]), "{}", release.ctk);
        assert_eq!((nvvm.package.as_str(), nvvm.include_dir.as_str()), (expected_package, folder), "{}", release.ctk);
        let names: Vec<&str> = nvrtc.headers.keys().map(String::as_str).collect();
        assert_eq!((nvrtc.extra.as_str(), names), ("nvrtc", vec!["nvrtc.h"]), "{}", release.ctk);
        let expected_package = if cu12 { "nvidia-cuda-nvrtc-cu12" } else { "nvidia-cuda-nvrtc" };
        assert_eq!(nvrtc.package, expected_package, "{}", release.ctk);
        let names: Vec<&str> = profiler.headers.keys().map(String::as_str).collect();
        assert_eq!(
            (profiler.extra.as_str(), names),
            ("profiler", vec!["cudaProfiler.h", "cuda_profiler_api.h"]),
            "{}",
            release.ctk
        );
        let expected_package = if cu12 { "nvidia-cuda-profiler-api-cu12" } else { "nvidia-cuda-profiler-api" };
        assert_eq!(profiler.package, expected_package, "{}", release.ctk);
        let names: Vec<&str> = crt.headers.keys().map(String::as_str).collect();
        let (extra, expected_package) =
            if cu12 { ("nvcc", "nvidia-cuda-nvcc-cu12") } else { ("crt", "nvidia-cuda-crt") };
        assert_eq!(
            (crt.extra.as_str(), names),
            (extra, vec!["crt/host_config.h", "crt/host_defines.h"]),
            "{}",
            release.ctk
        );
        assert_eq!(crt.package, expected_package, "{}", release.ctk);
        // Every wheel carries the release's major.minor in its own version.
        let (minor, _) = release.ctk.rsplit_once('.').unwrap();
        assert!(release.wheel_version.starts_with(&format!("{minor}.")), "{}", release.ctk);
        assert!(profiler.wheel_version.starts_with(&format!("{minor}.")), "{}", release.ctk);
        assert!(nvrtc.wheel_version.starts_with(&format!("{minor}.")), "{}", release.ctk);
        assert!(crt.wheel_version.starts_with(&format!("{minor}.")), "{}", release.ctk);
        assert!(nvjitlink.wheel_version.starts_with(&format!("{minor}.")), "{}", release.ctk);
        assert!(nvvm.wheel_version.starts_with(&format!("{minor}.")), "{}", release.ctk);
    }
}

#[test]
fn has_fifteen_minor_versions() {
    let catalogue = committed_catalogue();
    let newest: Vec<&str> = catalogue.newest_per_minor().iter().map(|r| r.ctk.as_str()).collect();
    assert_eq!(
        newest,
        [
            "12.0.1", "12.1.1", "12.2.2", "12.3.2", "12.4.1", "12.5.1", "12.6.3", "12.8.2", "12.9.2", "13.0.3",
            "13.1.2", "13.2.2", "13.3.1", "13.4.3", "13.5.0",
        ]
    );
}

#[test]
fn resolves_minor_exact_and_meta_package_versions() {
    let catalogue = committed_catalogue();
    assert_eq!(catalogue.resolve("13.1").unwrap().ctk, "13.1.2");
    assert_eq!(catalogue.resolve("12.8.1").unwrap().ctk, "12.8.1");
    assert_eq!(catalogue.resolve("12.8.1").unwrap().wheel_version, "12.8.90");
    assert_eq!(catalogue.resolve("13.4.1.0").unwrap().ctk, "13.4.1");
    assert_eq!(catalogue.resolve("13.4.1").unwrap().toolkit_version, "13.4.1.0");
    assert_eq!(catalogue.resolve("12").unwrap().ctk, "12.9.2");
    assert_eq!(catalogue.resolve(" 13.5 ").unwrap().ctk, "13.5.0");
}

#[test]
fn unknown_versions_name_the_nearest_known_ones() {
    let catalogue = committed_catalogue();
    let count = catalogue.releases.len();
    let cases = [
        ("12.7", "12.6.3, 12.8.2"),
        ("13.4.0", "13.4.1, 13.4.2, 13.4.3"),
        ("11.8.0", "12.0.1, 12.1.1"),
        ("14", "13.3.1, 13.4.3, 13.5.0"),
        ("13.1.x", "13.3.1, 13.4.3, 13.5.0"),
        ("", "13.3.1, 13.4.3, 13.5.0"),
        ("latest", "13.3.1, 13.4.3, 13.5.0"),
    ];
    for (query, nearest) in cases {
        let error = catalogue.resolve(query).unwrap_err();
        assert!(matches!(error, HeadersError::UnknownVersion { .. }), "{query}: {error:?}");
        let message = error.to_string();
        assert!(message.contains("nearest known: ") && message.contains(nearest), "{query}: {message}");
        assert!(message.contains(&format!("shows all {count}")), "{message}");
        assert!(!message.contains("12.0.0, 12.0.1, 12.1.0, 12.1.1"), "not the whole list: {message}");
        assert!(!message.contains('\n'));
    }
}

#[test]
fn rendering_is_byte_for_byte_the_committed_file() {
    let text = std::fs::read_to_string(committed_catalogue_path()).unwrap();
    assert!(text.starts_with("# Generated by `cargo xtask headers refresh`"));
    let catalogue = committed_catalogue();
    assert_eq!(catalogue.to_toml(), text);
    assert_eq!(Catalogue::parse(&catalogue.to_toml(), Path::new("again")).unwrap(), catalogue);
}

fn load_text(text: &str) -> Result<Catalogue, HeadersError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ctk.toml");
    std::fs::write(&path, text).unwrap();
    Catalogue::load(&path)
}

const GOOD_ENTRY: &str = r#"[[release]]
ctk = "13.1.0"
toolkit_version = "13.1.0"
package = "nvidia-cuda-runtime"
wheel_version = "13.1.80"
wheel_file = "nvidia_cuda_runtime-13.1.80-py3-none-manylinux2014_x86_64.whl"
wheel_sha256 = "dac25b52e69050e5a7a84957e6df470a85b185f8f648a99a1ab1dfce027576cf"
include_dir = "nvidia/cu13/include"

[release.headers]
"cuda.h" = "dac25b52e69050e5a7a84957e6df470a85b185f8f648a99a1ab1dfce027576cf"
"#;

fn assert_malformed_at(result: Result<Catalogue, HeadersError>, expected_line: usize, needle: &str) {
    match result {
        Err(HeadersError::MalformedCatalogue { path, line, message }) => {
            assert!(path.ends_with("ctk.toml"), "{}", path.display());
            assert_eq!(line, expected_line, "{message}");
            assert!(message.contains(needle), "{message}");
            let shown = HeadersError::MalformedCatalogue { path, line, message }.to_string();
            assert!(shown.contains(&format!("ctk.toml:{expected_line}: ")), "{shown}");
            assert!(!shown.contains('\n'), "{shown}");
        }
        other => panic!("expected a malformed catalogue error, got {other:?}"),
    }
}

#[test]
fn malformed_toml_names_file_and_line() {
    assert!(load_text(GOOD_ENTRY).is_ok());
    let broken = GOOD_ENTRY.replace("package = \"nvidia-cuda-runtime\"", "package = nvidia-cuda-runtime");
    assert_malformed_at(load_text(&broken), 4, "");
    let missing = GOOD_ENTRY.replace("wheel_version = \"13.1.80\"\n", "");
    assert_malformed_at(load_text(&missing), 1, "wheel_version");
    let unknown_key = GOOD_ENTRY.replace("include_dir", "includes");
    assert_malformed_at(load_text(&unknown_key), 8, "includes");
}

#[test]
fn bad_values_name_their_line() {
    let bad_hash = GOOD_ENTRY.replace("wheel_sha256 = \"dac25b", "wheel_sha256 = \"DAC25B");
    assert_malformed_at(load_text(&bad_hash), 7, "wheel_sha256");
    let escaping = GOOD_ENTRY.replace("\"nvidia/cu13/include\"", "\"../../etc\"");
    assert_malformed_at(load_text(&escaping), 8, "include_dir");
    let no_headers =
        GOOD_ENTRY.replace("\"cuda.h\" = \"dac25b52e69050e5a7a84957e6df470a85b185f8f648a99a1ab1dfce027576cf\"\n", "");
    assert_malformed_at(load_text(&no_headers), 10, "lists no headers");
    let mismatched = GOOD_ENTRY.replace("toolkit_version = \"13.1.0\"", "toolkit_version = \"13.2.0\"");
    assert_malformed_at(load_text(&mismatched), 3, "toolkit_version");
    let twice = format!("{GOOD_ENTRY}\n{GOOD_ENTRY}");
    assert_malformed_at(load_text(&twice), 14, "twice");
    assert_malformed_at(load_text("# nothing here\n"), 1, "no [[release]]");
}

#[test]
fn missing_catalogue_is_a_read_error() {
    let error = Catalogue::load(Path::new("/nonexistent/ctk.toml")).unwrap_err();
    assert!(matches!(error, HeadersError::Read { .. }));
    assert_eq!(error.to_string(), "cannot read /nonexistent/ctk.toml");
    // The io error is the cause, printed once by whoever prints the chain.
    let cause = std::error::Error::source(&error).expect("the io error is the source");
    assert!(cause.to_string().contains("No such file"), "{cause}");
}

const COMPANION: &str = r#"
[[release.companion]]
extra = "profiler"
package = "nvidia-cuda-profiler-api"
wheel_version = "13.1.80"
wheel_file = "nvidia_cuda_profiler_api-13.1.80-py3-none-manylinux2014_x86_64.whl"
wheel_sha256 = "dac25b52e69050e5a7a84957e6df470a85b185f8f648a99a1ab1dfce027576cf"
include_dir = "nvidia/cu13/include"

[release.companion.headers]
"cudaProfiler.h" = "dac25b52e69050e5a7a84957e6df470a85b185f8f648a99a1ab1dfce027576cf"
"#;

#[test]
fn bad_companion_wheels_name_their_line() {
    let good = format!("{GOOD_ENTRY}{COMPANION}");
    let catalogue = load_text(&good).unwrap();
    assert_eq!(catalogue.releases[0].companions[0].headers.len(), 1);
    assert_eq!(Catalogue::parse(&catalogue.to_toml(), Path::new("again")).unwrap(), catalogue);
    // The companion's table starts on line 13 of `good`.
    let foreign = good.replace("wheel_file = \"nvidia_cuda_profiler", "wheel_file = \"other");
    assert_malformed_at(load_text(&foreign), 13, "companion profiler: wheel_file");
    let twice = good.replace("\"cudaProfiler.h\"", "\"cuda.h\"");
    assert_malformed_at(load_text(&twice), 13, "cuda.h is listed by two wheels");
}
