//! Rebuilding `headers/ctk.toml` from the package index (`cargo xtask headers refresh`).

use std::collections::BTreeMap;
use std::path::Path;

use crate::catalogue::{normalize_ctk, version_components};
use crate::hash::{sha256_bytes, sha256_file};
use crate::wheel::Wheel;
use crate::{Catalogue, HeadersError, Pip, Release, MAIN_HEADER, TYPEDEFS_HEADER};

/// The meta-package whose metadata maps each CTK release to its runtime wheel.
const TOOLKIT_PACKAGE: &str = "cuda-toolkit";
/// Oldest CTK major the catalogue covers.
const OLDEST_MAJOR: u32 = 12;
/// The catalogue pins the Linux x86-64 wheels; pip only picks a wheel whose platform tag it is
/// told, and older releases carry older tags, hence the list.
const REFRESH_PLATFORMS: [&str; 5] = [
    "manylinux1_x86_64",
    "manylinux2010_x86_64",
    "manylinux2014_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux_2_28_x86_64",
];

/// What one runtime wheel holds, keyed by the requirement that resolved to it.
struct RuntimeWheel {
    wheel_version: String,
    wheel_file: String,
    wheel_sha256: String,
    include_dir: String,
    headers: BTreeMap<String, String>,
}

/// Asks the index for every `cuda-toolkit` release from 12.0 on, reads which runtime wheel each
/// one requires, downloads and hashes those wheels and their headers, and writes the catalogue
/// to `out` (replacing it atomically). `progress` receives one line per step.
pub fn refresh_catalogue(out: &Path, pip: &Pip, progress: &mut dyn FnMut(&str)) -> Result<Catalogue, HeadersError> {
    let mut toolkit_versions: Vec<(Vec<u32>, String)> = pip
        .index_versions(TOOLKIT_PACKAGE)?
        .into_iter()
        .filter_map(|version| Some((version_components(&version)?, version)))
        .filter(|(parts, _)| parts[0] >= OLDEST_MAJOR)
        .collect();
    toolkit_versions.sort();
    let work = tempfile::tempdir().map_err(|source| HeadersError::Write { path: std::env::temp_dir(), source })?;

    let mut requirements = Vec::new();
    for (index, (_, toolkit_version)) in toolkit_versions.iter().enumerate() {
        let dest = work.path().join(format!("toolkit-{index}"));
        create_dir(&dest)?;
        let wheel = pip.download_wheel(&format!("{TOOLKIT_PACKAGE}=={toolkit_version}"), &[], &dest)?;
        let (package, version_prefix) = runtime_requirement(&wheel)?;
        progress(&format!("{TOOLKIT_PACKAGE} {toolkit_version} needs {package}=={version_prefix}.*"));
        requirements.push((toolkit_version.clone(), package, version_prefix));
    }

    let mut wheels: BTreeMap<(String, String), RuntimeWheel> = BTreeMap::new();
    let platforms: Vec<String> = REFRESH_PLATFORMS.iter().map(|p| p.to_string()).collect();
    for (_, package, version_prefix) in &requirements {
        let key = (package.clone(), version_prefix.clone());
        if wheels.contains_key(&key) {
            continue;
        }
        let dest = work.path().join(format!("runtime-{}", wheels.len()));
        create_dir(&dest)?;
        let requirement = format!("{package}=={version_prefix}.*");
        let wheel = pip.download_wheel(&requirement, &platforms, &dest)?;
        let runtime = inspect_runtime_wheel(&wheel)?;
        progress(&format!("{requirement} resolved to {}", runtime.wheel_file));
        wheels.insert(key, runtime);
    }

    let mut releases = Vec::with_capacity(requirements.len());
    for (toolkit_version, package, version_prefix) in requirements {
        let runtime = &wheels[&(package.clone(), version_prefix)];
        let ctk = normalize_ctk(&toolkit_version).ok_or_else(|| HeadersError::PipOutput {
            command: format!("pip index versions {TOOLKIT_PACKAGE}"),
            detail: format!("{toolkit_version:?} is not a release number"),
        })?;
        releases.push(Release {
            ctk,
            toolkit_version,
            package,
            wheel_version: runtime.wheel_version.clone(),
            wheel_file: runtime.wheel_file.clone(),
            wheel_sha256: runtime.wheel_sha256.clone(),
            headers: runtime.headers.clone(),
            include_dir: runtime.include_dir.clone(),
        });
    }

    // Going through the text and back checks every entry exactly as `Catalogue::load` will.
    let text = Catalogue { releases }.to_toml();
    let catalogue = Catalogue::parse(&text, out)?;
    write_atomically(out, &text)?;
    progress(&format!("wrote {} releases to {}", catalogue.releases.len(), out.display()));
    Ok(catalogue)
}

/// The runtime wheel named by the meta-package's `cudart` extra: package and version prefix,
/// from a line such as
/// `Requires-Dist: nvidia-cuda-runtime==13.1.80.*; (sys_platform == 'linux') and extra == 'cudart'`.
fn runtime_requirement(toolkit_wheel: &Path) -> Result<(String, String), HeadersError> {
    let mut wheel = Wheel::open(toolkit_wheel)?;
    let metadata_member = wheel
        .member_names()
        .into_iter()
        .find(|name| name.ends_with(".dist-info/METADATA") && name.matches('/').count() == 1)
        .ok_or_else(|| HeadersError::MissingMember {
            wheel: toolkit_wheel.to_path_buf(),
            member: "*.dist-info/METADATA".to_string(),
        })?;
    let metadata = String::from_utf8_lossy(&wheel.read_small(&metadata_member)?).into_owned();
    let malformed = |detail: String| HeadersError::MalformedFile {
        path: toolkit_wheel.join(&metadata_member),
        what: "metadata".to_string(),
        detail,
    };

    let mut found: Option<(String, String)> = None;
    for line in metadata.lines() {
        let Some(requirement) = line.strip_prefix("Requires-Dist:") else {
            continue;
        };
        let (spec, marker) = requirement.split_once(';').unwrap_or((requirement, ""));
        let cudart_extra = marker.replace('"', "'").contains("extra == 'cudart'");
        let Some((package, version)) = spec.trim().split_once("==") else {
            continue;
        };
        let package = package.trim();
        if !cudart_extra || !package.starts_with("nvidia-cuda-runtime") {
            continue;
        }
        let version = version.trim();
        let prefix = version.strip_suffix(".*").unwrap_or(version).to_string();
        if version_components(&prefix).is_none() {
            return Err(malformed(format!("cannot read the version in {:?}", spec.trim())));
        }
        let entry = (package.to_string(), prefix);
        match &found {
            Some(previous) if previous != &entry => {
                return Err(malformed(format!(
                    "two runtime requirements: {}=={} and {}=={}",
                    previous.0, previous.1, entry.0, entry.1
                )))
            }
            _ => found = Some(entry),
        }
    }
    found.ok_or_else(|| malformed("no nvidia-cuda-runtime requirement for the cudart extra".to_string()))
}

fn inspect_runtime_wheel(wheel_path: &Path) -> Result<RuntimeWheel, HeadersError> {
    let wheel_file = wheel_path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let wheel_version = wheel_file.split('-').nth(1).unwrap_or_default().to_string();
    let wheel_sha256 = sha256_file(wheel_path)?;
    let mut wheel = Wheel::open(wheel_path)?;
    let main_suffix = format!("/include/{MAIN_HEADER}");
    let candidates: Vec<String> =
        wheel.member_names().into_iter().filter(|name| name.ends_with(&main_suffix)).collect();
    let main_member = match candidates.as_slice() {
        [only] => only.clone(),
        _ => {
            return Err(HeadersError::CorruptWheel {
                wheel: wheel_path.to_path_buf(),
                reason: format!("expected one */include/{MAIN_HEADER}, found {}", candidates.len()),
            })
        }
    };
    let include_dir = main_member.trim_end_matches(&format!("/{MAIN_HEADER}")).to_string();
    let mut headers = BTreeMap::new();
    for name in [MAIN_HEADER, TYPEDEFS_HEADER] {
        let bytes = wheel.read_small(&format!("{include_dir}/{name}"))?;
        headers.insert(name.to_string(), sha256_bytes(&bytes));
    }
    Ok(RuntimeWheel { wheel_version, wheel_file, wheel_sha256, include_dir, headers })
}

fn create_dir(dir: &Path) -> Result<(), HeadersError> {
    std::fs::create_dir_all(dir).map_err(|source| HeadersError::Write { path: dir.to_path_buf(), source })
}

fn write_atomically(path: &Path, text: &str) -> Result<(), HeadersError> {
    let write_error = |source| HeadersError::Write { path: path.to_path_buf(), source };
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut staged = tempfile::NamedTempFile::new_in(dir).map_err(write_error)?;
    std::io::Write::write_all(&mut staged, text.as_bytes()).map_err(write_error)?;
    staged.persist(path).map_err(|error| write_error(error.error))?;
    Ok(())
}
