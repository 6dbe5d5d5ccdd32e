//! Rebuilding `headers/ctk.toml` from the package index (`cargo xtask headers refresh`).

use std::collections::BTreeMap;
use std::path::Path;

use crate::catalogue::{normalize_ctk, version_components};
use crate::hash::{sha256_bytes, sha256_file};
use crate::wheel::Wheel;
use crate::{Catalogue, Companion, HeadersError, Pip, Release};

/// The meta-package whose metadata maps each CTK release to its runtime wheel.
const TOOLKIT_PACKAGE: &str = "cuda-toolkit";

/// What a refresh catalogues: which wheels, and which headers in them. The bound libraries'
/// descriptions say it (their `wheels` and headers).
#[derive(Debug, Clone)]
pub struct RefreshPlan {
    /// `(extra, package)`: each wheel by the meta-package extra that requires it and the start
    /// of its package name (a major-version suffix such as `-cu12` may follow). The first is a
    /// release's main wheel; the others are its companions.
    pub wheels: Vec<(String, String)>,
    /// Headers the main wheel must carry.
    pub required: Vec<String>,
    /// Headers catalogued from whichever wheel carries them first.
    pub optional: Vec<String>,
    /// `(extra, file name)`: static archives catalogued, with their path and sha256, from the
    /// wheel of that extra in the releases whose wheel has them.
    pub static_libraries: Vec<(String, String)>,
}
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

/// What one wheel holds, keyed by the requirement that resolved to it.
struct InspectedWheel {
    wheel_version: String,
    wheel_file: String,
    wheel_sha256: String,
    /// The include folders that hold wanted headers, the anchor's first, each with its headers
    /// (name -> sha256). A compiler wheel may keep one library's headers apart (`<lib>/include`).
    folders: Vec<(String, BTreeMap<String, String>)>,
    /// The static archives of the plan found in the wheel: path in the wheel -> sha256.
    static_libraries: BTreeMap<String, String>,
}

/// Asks the index for every `cuda-toolkit` release from 12.0 on, reads which runtime wheel each
/// one requires, downloads and hashes those wheels and their headers, and writes the catalogue
/// to `out` (replacing it atomically). Besides the headers the main wheel must carry, every
/// optional header a release's wheels carry is catalogued: from the main wheel, else from the
/// first companion wheel that has it. `progress` receives one line per step.
pub fn refresh_catalogue(
    out: &Path,
    pip: &Pip,
    plan: &RefreshPlan,
    progress: &mut dyn FnMut(&str),
) -> Result<Catalogue, HeadersError> {
    let Some(((main_extra, main_package), companion_extras)) = plan.wheels.split_first() else {
        return Err(HeadersError::PipOutput {
            command: "headers refresh".to_string(),
            detail: "the library descriptions name no wheels".to_string(),
        });
    };
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
        let (package, version_prefix) = extra_requirement(&wheel, (main_extra, main_package))?.ok_or_else(|| {
            malformed_metadata(&wheel, format!("no {main_package} requirement for the {main_extra} extra"))
        })?;
        progress(&format!("{TOOLKIT_PACKAGE} {toolkit_version} needs {package}=={version_prefix}.*"));
        let mut companions = Vec::new();
        for (extra, package_start) in companion_extras {
            if let Some(requirement) = extra_requirement(&wheel, (extra, package_start))? {
                companions.push((extra.as_str(), requirement));
            }
        }
        requirements.push((toolkit_version.clone(), package, version_prefix, companions));
    }

    // The headers wanted from every release: the two the catalogue always has, then the others.
    let required: Vec<&str> = plan.required.iter().map(String::as_str).collect();
    let optional: Vec<&str> =
        plan.optional.iter().map(String::as_str).filter(|name| !required.contains(name)).collect();
    let mut wheels: BTreeMap<(String, String), InspectedWheel> = BTreeMap::new();
    let platforms: Vec<String> = REFRESH_PLATFORMS.iter().map(|p| p.to_string()).collect();
    let archives_of = |extra: &str| -> Vec<&str> {
        plan.static_libraries.iter().filter(|(e, _)| e == extra).map(|(_, file)| file.as_str()).collect()
    };
    let mut fetch = |package: &str,
                     version_prefix: &str,
                     extra: &str,
                     optional: &[&str],
                     required: &[&str],
                     progress: &mut dyn FnMut(&str)| {
        let key = (package.to_string(), version_prefix.to_string());
        if !wheels.contains_key(&key) {
            let dest = work.path().join(format!("wheel-{}", wheels.len()));
            create_dir(&dest)?;
            let requirement = format!("{package}=={version_prefix}.*");
            let wheel = pip.download_wheel(&requirement, &platforms, &dest)?;
            let found = inspect_wheel(&wheel, required, optional, &archives_of(extra))?;
            progress(&format!("{requirement} resolved to {}", found.wheel_file));
            wheels.insert(key.clone(), found);
        }
        Ok::<_, HeadersError>(key)
    };
    let mut keyed = Vec::with_capacity(requirements.len());
    for (toolkit_version, package, version_prefix, companion_requirements) in requirements {
        let runtime_key = fetch(&package, &version_prefix, main_extra, &optional, &required, progress)?;
        let mut companion_keys = Vec::new();
        for (extra, (companion_package, companion_prefix)) in companion_requirements {
            let key = fetch(&companion_package, &companion_prefix, extra, &optional, &[], progress)?;
            companion_keys.push((extra, key));
        }
        keyed.push((toolkit_version, package, runtime_key, companion_keys));
    }

    let mut releases = Vec::with_capacity(keyed.len());
    for (toolkit_version, package, runtime_key, companion_keys) in keyed {
        let runtime = &wheels[&runtime_key];
        let Some(((include_dir, runtime_headers), runtime_others)) = runtime.folders.split_first() else {
            return Err(HeadersError::CorruptWheel {
                wheel: work.path().join(&runtime.wheel_file),
                reason: "no include folder".to_string(),
            });
        };
        let mut companions = Vec::new();
        let mut seen: Vec<&String> = runtime_headers.keys().collect();
        // The main wheel's other folders, then each companion wheel's folders, each a companion
        // entry of its own.
        let folders = runtime_others.iter().map(|folder| (main_extra.as_str(), &runtime_key, folder)).chain(
            companion_keys.iter().flat_map(|(extra, key)| wheels[key].folders.iter().map(move |f| (*extra, key, f))),
        );
        // A companion wheel's archives go with its first entry.
        let mut archives_placed: Vec<&(String, String)> = Vec::new();
        for (extra, key, (folder, folder_headers)) in folders {
            let wheel = &wheels[key];
            // Only headers no earlier wheel of the release carries.
            let headers: BTreeMap<String, String> = folder_headers
                .iter()
                .filter(|(name, _)| !seen.contains(name))
                .map(|(n, h)| (n.clone(), h.clone()))
                .collect();
            if headers.is_empty() {
                continue;
            }
            seen.extend(folder_headers.keys());
            let static_libraries = if key == &runtime_key || archives_placed.contains(&key) {
                BTreeMap::new()
            } else {
                archives_placed.push(key);
                wheel.static_libraries.clone()
            };
            companions.push(Companion {
                extra: extra.to_string(),
                package: key.0.clone(),
                wheel_version: wheel.wheel_version.clone(),
                wheel_file: wheel.wheel_file.clone(),
                wheel_sha256: wheel.wheel_sha256.clone(),
                include_dir: folder.clone(),
                headers,
                static_libraries,
            });
        }
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
            headers: runtime_headers.clone(),
            include_dir: include_dir.clone(),
            static_libraries: runtime.static_libraries.clone(),
            companions,
        });
    }

    // Going through the text and back checks every entry exactly as `Catalogue::load` will.
    let text = Catalogue { releases }.to_toml();
    let catalogue = Catalogue::parse(&text, out)?;
    write_atomically(out, &text)?;
    progress(&format!("wrote {} releases to {}", catalogue.releases.len(), out.display()));
    Ok(catalogue)
}

fn malformed_metadata(toolkit_wheel: &Path, detail: String) -> HeadersError {
    HeadersError::MalformedFile { path: toolkit_wheel.join("METADATA"), what: "metadata".to_string(), detail }
}

/// The wheel named by one of the meta-package's extras (`(extra, package name start)`): package
/// and version prefix, from a line such as
/// `Requires-Dist: nvidia-foo-runtime==13.1.80.*; (sys_platform == 'linux') and extra == 'foo'`;
/// `None` when the meta-package has no such requirement.
fn extra_requirement(
    toolkit_wheel: &Path,
    (extra, package_start): (&str, &str),
) -> Result<Option<(String, String)>, HeadersError> {
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
        let wanted_extra = marker.replace('"', "'").contains(&format!("extra == '{extra}'"));
        let Some((package, version)) = pinned_version(spec) else {
            continue;
        };
        if !wanted_extra || !package.starts_with(package_start) {
            continue;
        }
        let prefix = version.strip_suffix(".*").unwrap_or(version).to_string();
        if version_components(&prefix).is_none() {
            return Err(malformed(format!("cannot read the version in {:?}", spec.trim())));
        }
        let entry = (package.to_string(), prefix);
        match &found {
            Some(previous) if previous != &entry => {
                return Err(malformed(format!(
                    "two requirements for the {extra} extra: {}=={} and {}=={}",
                    previous.0, previous.1, entry.0, entry.1
                )))
            }
            _ => found = Some(entry),
        }
    }
    Ok(found)
}

/// The package of a requirement and the version that pins it: the exact one (`==13.1.80.*`), else
/// the lowest its range admits (`<14,>=13.1.115`, how later meta-packages name some wheels:
/// the release's own version); `None` for a requirement with neither.
fn pinned_version(spec: &str) -> Option<(&str, &str)> {
    let spec = spec.trim();
    let name_end = spec.find(|c: char| "<>=!~ (".contains(c))?;
    let (package, constraints) = (spec[..name_end].trim(), &spec[name_end..]);
    let constraints =
        || constraints.trim_start_matches(['(', ' ']).trim_end_matches([')', ' ']).split(',').map(str::trim);
    let exact = constraints().find_map(|c| c.strip_prefix("==").filter(|v| !v.starts_with('=')));
    let version = exact.or_else(|| constraints().find_map(|c| c.strip_prefix(">=")))?.trim();
    Some((package, version))
}

/// Hashes a wheel, the headers it carries: every one of `required` (an error when missing)
/// and those of `optional` it has, and the static archives of `archives` it has (found by file
/// name anywhere in the wheel; two of one name are refused). The first include folder is the one holding the first
/// header found (required headers are read there alone); an optional header elsewhere in the
/// wheel is taken from the one other include folder that has it, which becomes a folder of its
/// own (a compiler wheel may keep a library's header under `<lib>/include`).
fn inspect_wheel(
    wheel_path: &Path,
    required: &[&str],
    optional: &[&str],
    archives: &[&str],
) -> Result<InspectedWheel, HeadersError> {
    let wheel_file = wheel_path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let wheel_version = wheel_file.split('-').nth(1).unwrap_or_default().to_string();
    let wheel_sha256 = sha256_file(wheel_path)?;
    let mut wheel = Wheel::open(wheel_path)?;
    let members = wheel.member_names();
    let located = locate_headers(&members, required, optional)
        .map_err(|reason| HeadersError::CorruptWheel { wheel: wheel_path.to_path_buf(), reason })?;
    let mut folders: Vec<(String, BTreeMap<String, String>)> = Vec::new();
    for (folder, names) in located {
        let mut headers = BTreeMap::new();
        for name in names {
            headers.insert(name.to_string(), sha256_bytes(&wheel.read_small(&format!("{folder}/{name}"))?));
        }
        folders.push((folder, headers));
    }
    let mut static_libraries = BTreeMap::new();
    for (_, member) in locate_archives(&members, archives)
        .map_err(|reason| HeadersError::CorruptWheel { wheel: wheel_path.to_path_buf(), reason })?
    {
        let path = tempfile::NamedTempFile::new()
            .map_err(|source| HeadersError::Write { path: std::env::temp_dir(), source })?
            .into_temp_path();
        wheel.extract_to(&member, &path)?;
        static_libraries.insert(member, sha256_file(&path)?);
    }
    Ok(InspectedWheel { wheel_version, wheel_file, wheel_sha256, folders, static_libraries })
}

/// The members of `members` that are the archives named in `files`, as (file, member): each
/// found by its file name in any folder; one a wheel lacks is left out, two of one name refused.
fn locate_archives<'a>(members: &[String], files: &[&'a str]) -> Result<Vec<(&'a str, String)>, String> {
    let mut found = Vec::new();
    for &file in files {
        let suffix = format!("/{file}");
        let matching: Vec<&String> = members.iter().filter(|m| m.ends_with(&suffix) || *m == file).collect();
        match matching.as_slice() {
            [] => {}
            [only] => found.push((file, (*only).clone())),
            many => return Err(format!("expected at most one {file}, found {}", many.len())),
        }
    }
    Ok(found)
}

/// Where the wanted headers are among a wheel's `members`: include folders (the anchor's first,
/// then the others in the order their first header is wanted) with the headers read from each.
/// The anchor is the folder of the first required header, else of the first optional header
/// the wheel has; a header is read from the anchor when it is there, else from the one other
/// `*/include/` folder that has it. Every required header must be in the anchor.
fn locate_headers<'a>(
    members: &[String],
    required: &[&'a str],
    optional: &[&'a str],
) -> Result<Vec<(String, Vec<&'a str>)>, String> {
    let Some(&first) = required.first().or(optional.first()) else {
        return Err("no header to look for".to_string());
    };
    // Every `<folder>/include/<name>` member: the folders that hold `name`.
    let find = |name: &str| -> Vec<String> {
        let suffix = format!("/include/{name}");
        members.iter().filter(|m| m.ends_with(&suffix)).map(|m| m[..m.len() - name.len() - 1].to_string()).collect()
    };
    let anchor = std::iter::once(first).chain(optional.iter().copied()).find_map(|name| match find(name).as_slice() {
        [only] => Some(Ok(only.clone())),
        [] => None,
        many => Some(Err(format!("expected one */include/{name}, found {}", many.len()))),
    });
    let anchor = match anchor {
        Some(found) => found?,
        None if required.is_empty() => return Ok(Vec::new()),
        None => return Err(format!("expected one */include/{first}, found 0")),
    };
    let mut folders: Vec<(String, Vec<&str>)> = vec![(anchor.clone(), Vec::new())];
    for &name in required {
        if !members.contains(&format!("{anchor}/{name}")) {
            return Err(format!("{anchor}/{name} is missing"));
        }
        folders[0].1.push(name);
    }
    for &name in optional {
        let folder = if members.contains(&format!("{anchor}/{name}")) {
            anchor.clone()
        } else {
            match find(name).as_slice() {
                [] => continue,
                [only] => only.clone(),
                many => return Err(format!("expected at most one */include/{name}, found {}", many.len())),
            }
        };
        match folders.iter_mut().find(|(f, _)| *f == folder) {
            Some((_, names)) => names.push(name),
            None => folders.push((folder, vec![name])),
        }
    }
    Ok(folders)
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

#[cfg(test)]
mod tests {
    use super::locate_headers;

    fn members(names: &[&str]) -> Vec<String> {
        let mut all: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        all.sort();
        all
    }

    #[test]
    fn a_header_outside_the_anchor_folder_gets_a_folder_of_its_own() {
        let wheel = members(&[
            "pkg/include/sub/config.h",
            "pkg/include/other.h",
            "pkg/sub/include/lib.h",
            "pkg/sub/lib64/lib.so",
        ]);
        let found = locate_headers(&wheel, &[], &["sub/config.h", "lib.h", "absent.h", "other.h"]).unwrap();
        assert_eq!(
            found,
            vec![
                ("pkg/include".to_string(), vec!["sub/config.h", "other.h"]),
                ("pkg/sub/include".to_string(), vec!["lib.h"]),
            ]
        );
    }

    #[test]
    fn archives_are_found_by_file_name_in_any_folder() {
        use super::locate_archives;
        let wheel = members(&["pkg/lib/libfoo_static.a", "pkg/lib/libfoo.so.1", "pkg/include/foo.h"]);
        let found = locate_archives(&wheel, &["libfoo_static.a", "libbar_static.a"]).unwrap();
        assert_eq!(found, vec![("libfoo_static.a", "pkg/lib/libfoo_static.a".to_string())]);
        let twice = members(&["a/lib/libfoo_static.a", "b/lib/libfoo_static.a"]);
        assert_eq!(
            locate_archives(&twice, &["libfoo_static.a"]).unwrap_err(),
            "expected at most one libfoo_static.a, found 2"
        );
        // A longer name that ends the same is another file.
        let other = members(&["pkg/lib/libxfoo_static.a"]);
        assert!(locate_archives(&other, &["libfoo_static.a"]).unwrap().is_empty());
    }

    #[test]
    fn a_requirement_is_pinned_by_its_exact_version_else_its_lower_bound() {
        use super::pinned_version;
        assert_eq!(pinned_version(" nvidia-foo==13.1.80.* "), Some(("nvidia-foo", "13.1.80.*")));
        assert_eq!(pinned_version("nvidia-foo<14,>=13.1.115"), Some(("nvidia-foo", "13.1.115")));
        assert_eq!(pinned_version("nvidia-foo (>=12.9.86, <13)"), Some(("nvidia-foo", "12.9.86")));
        assert_eq!(pinned_version("nvidia-foo<14"), None);
        assert_eq!(pinned_version("nvidia-foo"), None);
        assert_eq!(pinned_version("nvidia-foo===1.0"), None);
    }

    #[test]
    fn the_anchor_folder_wins_and_ambiguity_is_refused() {
        let wheel = members(&["a/include/main.h", "a/include/x.h", "b/include/x.h", "b/include/y.h", "c/include/y.h"]);
        let found = locate_headers(&wheel, &["main.h"], &["x.h"]).unwrap();
        assert_eq!(found, vec![("a/include".to_string(), vec!["main.h", "x.h"])]);
        let error = locate_headers(&wheel, &["main.h"], &["y.h"]).unwrap_err();
        assert_eq!(error, "expected at most one */include/y.h, found 2");
        assert_eq!(
            locate_headers(&wheel, &["nowhere.h"], &[]).unwrap_err(),
            "expected one */include/nowhere.h, found 0"
        );
        assert_eq!(locate_headers(&wheel, &[], &["nowhere.h"]).unwrap(), Vec::new());
        assert_eq!(locate_headers(&wheel, &["main.h", "y.h"], &[]).unwrap_err(), "a/include/y.h is missing");
    }
}
