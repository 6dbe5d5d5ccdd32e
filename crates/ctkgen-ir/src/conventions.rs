//! A library's conventions as data: what every binding of it must know that the declarations
//! alone do not say. One description per library lives under `headers/libraries/`; both emitters
//! read it, so neither spells a name of the library it binds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Api, Enum, EnumConstant};

/// How a C library reports status, is loaded and resolves its entry points.
///
/// Names here are looked up in the IR where the IR has them (the status enum and its values,
/// the ABI symbol of the proc-address function); the description only says which ones to use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibraryConventions {
    /// Shared library opened on first use, e.g. `libfoo.so.1`; `{major}` stands for the major
    /// version of the toolkit the bindings are generated from (`libfoo.so.{major}`), for
    /// libraries whose soname changes with it.
    pub library: String,
    /// What the library is called in messages and documentation ("<description> not found").
    pub library_description: String,
    /// Main header the IR is read from; generated C includes it.
    pub header: String,
    /// The main header's companion of entry-point typedefs (`PFN_<name>_v<version>`), read in
    /// the same translation unit for the version each function was introduced in.
    #[serde(default)]
    pub typedefs_header: Option<String>,
    /// How the typedef headers name an entry point's signatures: a pattern with `{name}` and
    /// `{version}` (`PFN_{name}_v{version}`), a per-thread suffix (see [`PerThread::macros`])
    /// possibly after it. Required when the library has typedef headers.
    #[serde(default)]
    pub entry_point_typedef: Option<String>,
    /// The library's other headers, read after [`LibraryConventions::header`] in the same
    /// translation unit and in this order; each declaration in the IR records which header
    /// declared it. A source that lacks one of them (an installed toolkit without that
    /// component) is read without it; a catalogue release must have them all.
    #[serde(default)]
    pub extra_headers: Vec<ExtraHeader>,
    /// Headers the library's headers include that declare nothing it binds (`foo_defines.h`,
    /// `sub/attributes.h`): pinned by the catalogue with the others, found in the same include
    /// folder when parsing, and shipped with the Python package that builds against them.
    #[serde(default)]
    pub includes: Vec<String>,
    /// The wheels of the package index that carry the headers, each named by the extra of the
    /// toolkit meta-package that requires it; the catalogue pins them per release.
    #[serde(default)]
    pub wheels: Vec<WheelSource>,
    /// Typedef of the status type every wrapped function returns. Functions returning a
    /// string are wrapped too (the status is then success); others are left out.
    pub result_type: String,
    /// Enum constant meaning success; its value is read from the IR, never assumed.
    pub success_constant: String,
    /// Status returned by a wrapper whose entry point the library lacks.
    pub missing_function_constant: String,
    /// Status returned by every wrapper when the library itself cannot be loaded.
    pub missing_library_constant: String,
    /// The versioned entry-point lookup, for libraries that have one; without it every function
    /// is found with `dlsym` alone.
    #[serde(default)]
    pub proc_address: Option<ProcAddress>,
    /// How the library selects its per-thread-default-stream variants, if it has them.
    #[serde(default)]
    pub per_thread: Option<PerThread>,
    /// Macro holding the version the header declares, e.g. `FOO_VERSION`, if it has one.
    #[serde(default)]
    pub version_macro: Option<String>,
    /// Function the generated example and test call (with all-zero arguments) to show what a
    /// call does on the machine at hand; without one they call nothing.
    #[serde(default)]
    pub init_function: Option<String>,
    /// Cargo package name of the generated Rust crate, e.g. `foo-sys`.
    pub rust_crate: String,
    /// The libraries (by description file name) whose types this one's headers use.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Where an installed copy of the library is looked for at run time, beyond the system's
    /// loader path.
    #[serde(default)]
    pub search: LibrarySearch,
    /// The library's static archive, where a release's wheel ships one: the Python package
    /// links it into the library's loader module, so no shared library is needed at run time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_library: Option<StaticLibrary>,
    /// What the Python bindings add: names their users see.
    pub python: PythonConventions,
    /// The library's doc alias commands: `\name` in its comments stands for this sentence,
    /// which the bindings' documentation shows as a note. Any other unknown command is dropped.
    #[serde(default)]
    pub doc_aliases: crate::doc::DocAliases,
}

/// A wheel that carries some of a library's headers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WheelSource {
    /// The extra of the toolkit meta-package that requires the wheel, e.g. `foo`.
    pub extra: String,
    /// The wheel's package name, or the start of it when the name carries a major-version
    /// suffix (`nvidia-foo` matches `nvidia-foo-cu12`).
    pub package: String,
}

/// A static archive of the library that one of its wheels ships (not every release's need have
/// it): the catalogue pins it per release, a generated package carries it and links it into the
/// library's loader module; for a release whose wheel lacks it, the package requires that wheel
/// (of the release's major.minor), whose shared library the loader then finds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticLibrary {
    /// The archive's file name in the wheel, e.g. `libfoo_static.a`.
    pub file: String,
    /// The extra (one of [`LibraryConventions::wheels`]) of the wheel that carries it.
    pub wheel: String,
    /// System libraries the archive's code calls into, linked after it (`dl`, `pthread`).
    #[serde(default)]
    pub link_libraries: Vec<String>,
}

/// The versioned entry-point lookup (`get_proc_address(name, &fn, version, flags, &status)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcAddress {
    /// Public name of the lookup; its ABI symbol comes from the IR. When the IR lacks it,
    /// every function is found with `dlsym` alone.
    pub function: String,
    /// Integer typedef of the lookup's flags argument.
    pub flags_type: String,
    /// Flag constant asking the lookup for the default (legacy stream) variant.
    pub default_flag: String,
    /// Flag constant asking the lookup for the per-thread-default-stream variant.
    pub per_thread_flag: String,
}

/// Per-thread-default-stream variants: how the header names them and how a program asks for them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerThread {
    /// Environment variable that selects the per-thread-default-stream variants (read once).
    pub env_var: String,
    /// Function-like macros that wrap a symbol into its per-thread variant
    /// (`#define f WRAP(f_v2)`), each with the suffix it adds (`_ptds`).
    #[serde(default)]
    pub macros: std::collections::BTreeMap<String, String>,
}

/// Places an installed library is found in, beside the system loader's path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibrarySearch {
    /// Folders under the toolkit folder that [`PythonConventions::home_env_var`] names, e.g. `lib64`.
    #[serde(default)]
    pub home_dirs: Vec<String>,
    /// Folders, relative to a `site-packages`, where the library's wheel installs it, by the
    /// toolkit's major version (`"13" = "nvidia/foo/lib"`).
    #[serde(default)]
    pub wheel_dirs: std::collections::BTreeMap<String, String>,
    /// The library's file name in its wheel, by the toolkit's major version, where the wheel
    /// ships it under another name than the soname (`"12" = "libfoo.so"`, the development name).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub wheel_files: BTreeMap<String, String>,
}

/// One of the library's other headers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraHeader {
    /// File name, e.g. `foo_interop.h`.
    pub header: String,
    /// Its header of entry-point typedefs (`PFN_<name>_v<version>`), when it has one.
    #[serde(default)]
    pub typedefs: Option<String>,
    /// Headers it needs included before it but does not include itself, e.g. `bar/bar.h`.
    #[serde(default)]
    pub requires: Vec<String>,
}

/// Names the Python bindings of a library expose or read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PythonConventions {
    /// Name of the library's Python module in the generated package, e.g. `foo`.
    pub module: String,
    /// Name of its Cython-level module (the declarations other Cython code cimports), e.g. `cyfoo`.
    pub cython_module: String,
    /// The module the generated Python module is call-compatible with.
    pub compatible_module: String,
    /// Environment variable that selects the per-thread-default-stream variants, as the
    /// compatible module reads it (for libraries with such variants).
    #[serde(default)]
    pub per_thread_env_var: Option<String>,
    /// Environment variable naming another library file to open instead of [`LibraryConventions::library`].
    pub library_path_env_var: String,
    /// Environment variable naming the toolkit folder whose `include/` the build reads.
    pub home_env_var: String,
    /// Exception raised when the library cannot be loaded.
    pub library_not_found_error: String,
    /// Exception raised when the library lacks an entry point.
    pub function_not_found_error: String,
    /// Where the compatible module names untagged nested records `<prefix>struct<N>` and
    /// `<prefix>union<N>`: the prefix. N counts each kind in the order the header closes them,
    /// unnamed members included (they take a number, not a name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anonymous_record_prefix: Option<String>,
    /// How the compatible module spells C parameter names in Python (`type` = `typename`), in
    /// signatures, stubs, docstrings and messages alike, so keyword calls written for it work.
    /// A name not listed keeps the emitter's own rule (a reserved word gets a trailing `_`).
    /// Left out of [`LibraryConventions::names`]: these are common words the emitter spells too.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parameter_names: BTreeMap<String, String>,
    /// Functions the compatible module defines beyond the declarations that make a record from
    /// its fields (the header's inline `make_*` helpers), by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub record_helpers: BTreeMap<String, RecordHelper>,
    /// How the module's functions report the library's status (see [`CallConvention`]).
    #[serde(default)]
    pub convention: CallConvention,
    /// How the raise convention names what it binds; required with it, refused without.
    #[serde(default, rename = "raise", skip_serializing_if = "Option::is_none")]
    pub raise_names: Option<RaiseNames>,
    /// The compatible package's private loader module for the library, when it has one
    /// (`<package>._internal.<module>`), which clients ask for the entry points' addresses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal: Option<InternalModule>,
}

/// How a Python module's functions report the library's status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallConvention {
    /// Every function keeps its C name and returns `(status, *outputs)`; handles, records and
    /// enums are classes named as in C.
    #[default]
    Status,
    /// Functions are named from the C names by [`RaiseNames`], raise [`RaiseNames::error`] when
    /// the status is not success and return their outputs alone (none, one, or a tuple);
    /// handles are plain ints and enums are named without the library's prefixes.
    Raise,
}

/// The names of the raise convention, derived from the C names by stripping prefixes and
/// changing case as these say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RaiseNames {
    /// Stripped from function names (`fooCreateThing` -> `CreateThing`, then `create_thing`).
    pub function_prefix: String,
    /// Stripped from enum type names (`fooResult` -> `Result`).
    pub type_prefix: String,
    /// Stripped from enumerator names; what the members of one enum then still share up to an
    /// underscore is stripped too (`FOO_INPUT_PTX`, `FOO_INPUT_CUBIN` -> `PTX`, `CUBIN`).
    pub constant_prefix: String,
    /// The case of function and parameter names after stripping.
    pub case: NameCase,
    /// The exception raised for a status other than success; it carries the status as `.status`.
    pub error: String,
    /// What a function that returns a string gives back where the library returns NULL: this
    /// text, or None when absent.
    #[serde(default)]
    pub null_string: Option<String>,
}

/// How a name is spelled after its prefix is stripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NameCase {
    /// `getLinkedCubinSize` -> `get_linked_cubin_size`, `majorIR` -> `major_ir`.
    Snake,
    /// As written.
    Keep,
}

/// The private loader module of a library, as the compatible package has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InternalModule {
    /// Its name under the package's `_internal` folder.
    pub module: String,
    /// The key of each entry point in the dict of addresses, with `{name}` for the function's
    /// name (`__{name}`).
    pub key: String,
}

/// A function that returns a new record with the given fields set from its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordHelper {
    /// The record's Python class (its tag or typedef name).
    pub record: String,
    /// The Python parameter names, in order, and the member each sets.
    pub params: Vec<String>,
    pub fields: Vec<String>,
    /// The result is `(success, record)`, as for a declared function (one the header declares
    /// returning the record instead of a status, such as a channel-descriptor maker).
    #[serde(default)]
    pub status_first: bool,
}

impl LibraryConventions {
    /// What the fields alone cannot say is wrong with the description, if anything: typedef
    /// headers without the pattern that reads them, or a pattern without its placeholders.
    pub fn problem(&self) -> Option<String> {
        let has_typedef_headers =
            self.typedefs_header.is_some() || self.extra_headers.iter().any(|e| e.typedefs.is_some());
        match &self.entry_point_typedef {
            None if has_typedef_headers => Some("it has typedef headers but no entry_point_typedef pattern".into()),
            Some(pattern) if EntryPointTypedef::parse(pattern).is_none() => Some(format!(
                "entry_point_typedef {pattern:?} needs `{{name}}` before `{{version}}`, with text between them"
            )),
            _ => self.static_library_problem().or_else(|| self.python_problem()),
        }
    }

    /// What is wrong with the static archive's description, if anything: a wheel that is not
    /// one of the library's, or a file name that is no plain archive name.
    fn static_library_problem(&self) -> Option<String> {
        let archive = self.static_library.as_ref()?;
        if !self.wheels.iter().any(|w| w.extra == archive.wheel) {
            return Some(format!("static_library: wheel {:?} is not one of the library's wheels", archive.wheel));
        }
        let plain =
            |name: &str| !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-+".contains(&b));
        if !plain(&archive.file) || !archive.file.ends_with(".a") {
            return Some(format!("static_library: file {:?} is not an archive's file name", archive.file));
        }
        archive
            .link_libraries
            .iter()
            .find(|l| !plain(l))
            .map(|l| format!("static_library: {l:?} is not a library name"))
    }

    /// What is wrong with the Python conventions, if anything: the raise convention without
    /// its names (or names without it), a loader key without its placeholder.
    fn python_problem(&self) -> Option<String> {
        let p = &self.python;
        match (p.convention, &p.raise_names) {
            (CallConvention::Raise, None) => return Some("convention = \"raise\" needs a [python.raise] table".into()),
            (CallConvention::Status, Some(_)) => {
                return Some("[python.raise] is only read with convention = \"raise\"".into())
            }
            _ => {}
        }
        match &p.internal {
            Some(internal) if !internal.key.contains("{name}") => {
                Some(format!("[python.internal] key {:?} has no `{{name}}`", internal.key))
            }
            _ => None,
        }
    }

    /// The status enum, the one [`LibraryConventions::result_type`] names, from the IR.
    pub fn result_enum<'a>(&self, api: &'a Api) -> Option<&'a Enum> {
        api.enums.iter().find(|e| e.typedef_names.contains(&self.result_type))
    }

    /// The status enum's constant named by `name`, from the IR.
    pub fn status<'a>(&self, api: &'a Api, name: &str) -> Option<&'a EnumConstant> {
        self.result_enum(api)?.constants.iter().find(|c| c.name == name)
    }

    /// The value meaning success, from the IR; `None` when the IR lacks the status enum.
    pub fn success_value(&self, api: &Api) -> Option<i128> {
        self.status(api, &self.success_constant).map(|c| c.value)
    }

    /// Every string of the description, for checks that no emitter spells one itself. The Python
    /// module's bare name is left out: a common word (`driver`), it is checked where it is a
    /// file or import name, as part of the Cython module's and the crate's names.
    pub fn names(&self) -> Vec<&str> {
        let p = &self.python;
        let extra = self.extra_headers.iter().flat_map(|e| std::iter::once(&e.header).chain(&e.typedefs));
        let mut names: Vec<&str> = vec![
            self.soname_stem(),
            &self.library_description,
            &self.header,
            &self.result_type,
            &self.success_constant,
            &self.missing_function_constant,
            &self.missing_library_constant,
            &self.rust_crate,
            &p.cython_module,
            &p.compatible_module,
            &p.library_path_env_var,
            &p.home_env_var,
            &p.library_not_found_error,
            &p.function_not_found_error,
        ];
        if let Some(lookup) = &self.proc_address {
            names.extend(
                [&lookup.function, &lookup.flags_type, &lookup.default_flag, &lookup.per_thread_flag]
                    .map(String::as_str),
            );
        }
        if let Some(per_thread) = &self.per_thread {
            names.push(&per_thread.env_var);
            names.extend(per_thread.macros.keys().map(String::as_str));
        }
        names.extend(
            [
                &self.typedefs_header,
                &self.version_macro,
                &self.init_function,
                &p.per_thread_env_var,
                &p.anonymous_record_prefix,
            ]
            .into_iter()
            .flatten()
            .map(String::as_str),
        );
        names.extend(self.wheels.iter().map(|w| w.package.as_str()));
        names.extend(self.search.wheel_dirs.values().map(String::as_str));
        names.extend(self.search.wheel_files.values().map(String::as_str));
        names.extend(self.static_library.as_ref().map(|s| s.file.as_str()));
        if let Some(raise) = &p.raise_names {
            names.extend(
                [&raise.function_prefix, &raise.type_prefix, &raise.constant_prefix, &raise.error].map(String::as_str),
            );
        }
        names.extend(extra.map(String::as_str));
        names.extend(self.includes.iter().map(String::as_str));
        names.extend(self.doc_aliases.iter().flat_map(|(name, sentence)| [name.as_str(), sentence.as_str()]));
        names
    }

    /// The soname up to its `{major}` placeholder, if it has one (`libfoo.so.`).
    fn soname_stem(&self) -> &str {
        self.library.split("{major}").next().unwrap_or(&self.library)
    }

    /// The shared library's file name for bindings generated from a toolkit of major version
    /// `major`; `None` when the soname depends on it and it is not known.
    pub fn soname(&self, major: Option<u32>) -> Option<String> {
        match major {
            _ if !self.library.contains("{major}") => Some(self.library.clone()),
            Some(major) => Some(self.library.replace("{major}", &major.to_string())),
            None => None,
        }
    }

    /// Every header file of the library: the main one, its typedef header, the extra headers
    /// and theirs.
    pub fn header_files(&self) -> Vec<String> {
        let mut files = vec![self.header.clone()];
        files.extend(self.typedefs_header.clone());
        files.extend(self.extra_header_files());
        files.extend(self.includes.iter().cloned());
        files
    }

    /// The file names of the extra headers and of their typedef headers, in order.
    pub fn extra_header_files(&self) -> Vec<String> {
        self.extra_headers.iter().flat_map(|e| std::iter::once(e.header.clone()).chain(e.typedefs.clone())).collect()
    }
}

/// The form of an entry-point typedef's name, `<prefix>{name}<separator>{version}<suffix>`,
/// read from a pattern such as `PFN_{name}_v{version}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPointTypedef {
    prefix: String,
    separator: String,
    suffix: String,
}

impl EntryPointTypedef {
    /// `None` unless the pattern has `{name}`, then `{version}`, with text between them (the
    /// name itself may contain anything the separator does not end).
    pub fn parse(pattern: &str) -> Option<EntryPointTypedef> {
        let (prefix, rest) = pattern.split_once("{name}")?;
        let (separator, suffix) = rest.split_once("{version}")?;
        if separator.is_empty() || suffix.contains('{') || prefix.contains('{') {
            return None;
        }
        Some(EntryPointTypedef { prefix: prefix.into(), separator: separator.into(), suffix: suffix.into() })
    }

    /// The function a typedef names, the version it was introduced in, and whether it is a
    /// per-thread variant (its name ends in one of `per_thread_suffixes`); `None` for a name
    /// of another form.
    pub fn read(&self, typedef: &str, per_thread_suffixes: &[&str]) -> Option<(String, u32, bool)> {
        let rest = typedef.strip_prefix(self.prefix.as_str())?;
        let (rest, per_thread) = match per_thread_suffixes.iter().find_map(|s| rest.strip_suffix(s)) {
            Some(rest) => (rest, true),
            None => (rest, false),
        };
        let rest = rest.strip_suffix(self.suffix.as_str())?;
        let (name, version) = rest.rsplit_once(self.separator.as_str())?;
        if name.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some((name.to_string(), version.parse().ok()?, per_thread))
    }
}

#[cfg(test)]
mod entry_point_typedef_tests {
    use super::EntryPointTypedef;

    #[test]
    fn reads_names_versions_and_per_thread_suffixes() {
        let form = EntryPointTypedef::parse("PFN_{name}_v{version}").unwrap();
        let suffixes = ["_ptds", "_ptsz"];
        assert_eq!(form.read("PFN_fooCreate_v12050", &suffixes), Some(("fooCreate".into(), 12050, false)));
        assert_eq!(form.read("PFN_foo_v2_v3020_ptds", &suffixes), Some(("foo_v2".into(), 3020, true)));
        assert_eq!(form.read("PFN_fooCreate", &suffixes), None);
        assert_eq!(form.read("PFN_foo_vX", &suffixes), None);
        assert_eq!(form.read("fooCreate_v2", &suffixes), None);
        let other = EntryPointTypedef::parse("{name}_fn_t{version}").unwrap();
        assert_eq!(other.read("barOpen_fn_t3", &[]), Some(("barOpen".into(), 3, false)));
        for bad in ["PFN_{name}", "{version}{name}", "{name}{version}", "PFN_{name}_v{version}{x}"] {
            assert!(EntryPointTypedef::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn typedef_headers_need_a_pattern_that_reads_them() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/libraries/cuda-driver.toml");
        let text = std::fs::read_to_string(path).unwrap();
        let described: super::LibraryConventions = toml::from_str(&text).unwrap();
        assert_eq!(described.problem(), None);
        let without = super::LibraryConventions { entry_point_typedef: None, ..described.clone() };
        assert!(without.problem().unwrap().contains("no entry_point_typedef"));
        let broken = super::LibraryConventions { entry_point_typedef: Some("PFN_{name}".into()), ..described };
        assert!(broken.problem().unwrap().contains("needs `{name}` before `{version}`"));
    }

    #[test]
    fn a_static_archive_comes_from_one_of_the_library_s_wheels() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/libraries/cuda-runtime.toml");
        let described: super::LibraryConventions = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let archive = described.static_library.clone().expect("the runtime describes its static archive");
        assert_eq!(described.problem(), None);
        let with = |archive: super::StaticLibrary| super::LibraryConventions {
            static_library: Some(archive),
            ..described.clone()
        };
        let elsewhere = with(super::StaticLibrary { wheel: "absent".into(), ..archive.clone() });
        assert!(elsewhere.problem().unwrap().contains("not one of the library's wheels"));
        let shared = with(super::StaticLibrary { file: "libfoo.so".into(), ..archive.clone() });
        assert!(shared.problem().unwrap().contains("is not an archive's file name"));
        let path = with(super::StaticLibrary { file: "../libfoo.a".into(), ..archive.clone() });
        assert!(path.problem().unwrap().contains("is not an archive's file name"));
        let flag = with(super::StaticLibrary { link_libraries: vec!["-lfoo bar".into()], ..archive });
        assert!(flag.problem().unwrap().contains("is not a library name"));
    }
}

#[cfg(test)]
mod requirement_tests {
    use super::{PackageConventions, RequirementSet};

    fn set(ctk: &str) -> RequirementSet {
        RequirementSet { ctk: ctk.into(), ..Default::default() }
    }

    #[test]
    fn release_ranges_admit_as_written() {
        let cases = [
            (">=12.0, <12.9", [("12.0.0", true), ("12.8.2", true), ("12.9.0", false), ("11.8.0", false)]),
            ("==12.9.*", [("12.9.0", true), ("12.9.2", true), ("12.10.0", false), ("13.0.0", false)]),
            (">=13.3", [("13.3.0", true), ("13.5.0", true), ("13.2.2", false), ("14.0.0", true)]),
            ("==13.2.*,!=13.2.1", [("13.2.0", true), ("13.2.1", false), ("13.2.2", true), ("13.20.0", false)]),
        ];
        for (range, releases) in cases {
            for (ctk, admitted) in releases {
                assert_eq!(set(range).admits(ctk), Ok(admitted), "{range} {ctk}");
            }
        }
        for bad in ["13.1", ">=x", "~=13.1", ">=13.*", ""] {
            assert!(set(bad).admits("13.1.0").is_err(), "{bad:?} read");
        }
    }

    #[test]
    fn a_release_takes_the_one_set_that_admits_it() {
        let package = PackageConventions {
            requirements: vec![set(">=12.0,<13"), set(">=13.0,<13.2"), set(">=13.1")],
            ..Default::default()
        };
        assert_eq!(package.requirements_for("12.4.1").unwrap().unwrap().ctk, ">=12.0,<13");
        assert_eq!(package.requirements_for("11.8.0").unwrap(), None);
        assert!(package.requirements_for("13.1.2").unwrap_err().contains("admitted by two sets"));
        let unreadable = PackageConventions { requirements: vec![set(">=14.0, 13")], ..Default::default() };
        assert!(unreadable.problem().unwrap().contains("is not an operator and a version"));
    }

    #[test]
    fn the_shipped_description_gives_every_catalogued_release_one_set() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let package: PackageConventions =
            toml::from_str(&std::fs::read_to_string(root.join("headers/package.toml")).unwrap()).unwrap();
        assert_eq!(package.problem(), None);
        let catalogue: toml::Value =
            toml::from_str(&std::fs::read_to_string(root.join("headers/ctk.toml")).unwrap()).unwrap();
        for release in catalogue["release"].as_array().unwrap() {
            let ctk = release["ctk"].as_str().unwrap();
            assert!(package.requirements_for(ctk).unwrap().is_some(), "no requirement set admits {ctk}");
        }
    }
}

/// The package as a whole: modules it ships beside the library modules
/// (`headers/package.toml`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageConventions {
    /// Helpers over every library module, when the compatible package has such a module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utils: Option<UtilsModule>,
    /// Private modules of the compatible package that libraries built on it import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private: Option<PrivateModules>,
    /// What the package's metadata requires, by release: the sets, each for the releases its
    /// range admits; a release takes the one set that admits it (none: no requirements).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requirements: Vec<RequirementSet>,
}

/// Requirements of the package's metadata for some releases, as the compatible package of those
/// releases declares them (each a PEP 508 requirement string, markers included).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequirementSet {
    /// The releases it holds for: comma-separated clauses each all must meet, an operator
    /// (`>=`, `<`, `<=`, `>`, `==`, `!=`) and a version, `==` also a prefix (`==13.2.*`).
    pub ctk: String,
    /// Why these: where they were read (shown to maintainers only).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// Required with the package itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<String>,
    /// Each extra's requirements, by extra name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extras: BTreeMap<String, Vec<String>>,
    /// The Python releases the package supports, as the metadata's `Requires-Python` states them
    /// (`>=3.10`); `cargo xtask release` builds a wheel for each interpreter it admits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_python: Option<String>,
    /// The metadata's trove classifiers (`Programming Language :: Python :: 3.12`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classifiers: Vec<String>,
}

impl RequirementSet {
    /// Whether the set holds for release `ctk` (`13.1.2`); `Err` names a clause it cannot read.
    pub fn admits(&self, ctk: &str) -> Result<bool, String> {
        let version = numeric_version(ctk).ok_or_else(|| format!("{ctk:?} is not a release number"))?;
        // Every clause is read, so an unreadable one is found whatever the release.
        let mut admitted = true;
        for clause in self.ctk.split(',').map(str::trim) {
            let unreadable =
                || format!("requirements: release range clause {clause:?} is not an operator and a version");
            let op_len = clause.find(|c: char| c.is_ascii_digit()).ok_or_else(unreadable)?;
            let (op, wanted) = (clause[..op_len].trim(), clause[op_len..].trim());
            let (wanted, prefix) = match wanted.strip_suffix(".*") {
                Some(stem) if op == "==" || op == "!=" => (stem, true),
                Some(_) => return Err(unreadable()),
                None => (wanted, false),
            };
            let wanted = numeric_version(wanted).ok_or_else(unreadable)?;
            let same = if prefix {
                version.len() >= wanted.len() && version[..wanted.len()] == wanted[..]
            } else {
                padded_cmp(&version, &wanted).is_eq()
            };
            let order = padded_cmp(&version, &wanted);
            let met = match op {
                "==" => same,
                "!=" => !same,
                ">=" => order.is_ge(),
                ">" => order.is_gt(),
                "<=" => order.is_le(),
                "<" => order.is_lt(),
                _ => return Err(unreadable()),
            };
            admitted &= met;
        }
        Ok(admitted)
    }
}

/// The numbers of a dotted version; `None` for anything else.
fn numeric_version(text: &str) -> Option<Vec<u64>> {
    text.split('.').map(|part| part.parse().ok().filter(|_| part.bytes().all(|b| b.is_ascii_digit()))).collect()
}

/// Versions compared number by number, the shorter padded with zeros (`13.1` = `13.1.0`).
fn padded_cmp(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let len = a.len().max(b.len());
    (0..len)
        .map(|i| a.get(i).unwrap_or(&0).cmp(b.get(i).unwrap_or(&0)))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// Private modules of the compatible package, by the names clients import them under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrivateModules {
    /// Module holding the release: `__version__` and `__version_tuple__` (ints).
    pub version_module: String,
    /// Subpackage of private helpers, e.g. `_internal`.
    pub internal_package: String,
    /// Its module of exception classes (each a `RuntimeError`).
    pub errors_module: String,
    /// The exceptions it defines: class name = what it means (its docstring).
    pub errors: BTreeMap<String, String>,
    /// Of `errors`, the class the compatible package raises for an entry point the loaded
    /// library lacks: every library's own not-found error derives from it, so code that catches
    /// the compatible package's class catches ours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_not_found_error: Option<String>,
    /// Its module of the light integer enum base: the module, the base class and its metaclass.
    pub enum_module: String,
    pub enum_class: String,
    pub enum_metaclass: String,
    /// A function of `errors_module` naming the C compiler that built the package's extension
    /// modules: `GCC <version>`, `Clang <version>`, `MSVC <version>` or `Unknown`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiler_function: Option<String>,
}

/// A module of helpers over the whole package, named as the compatible package names them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UtilsModule {
    /// Its Python module name in the package, e.g. `utils`.
    pub module: String,
    /// The module it is call-compatible with.
    pub compatible_module: String,
    /// The function returning a handle object's value as an int (any module's handle).
    pub native_handle_function: String,
    /// The registry that function dispatches on: a dict from a class (exactly; not its subclasses)
    /// to the getter that gives its objects' values. Every handle class of every module adds
    /// itself as its module loads, through `add_handle_getter(class, getter)`, which code outside
    /// the package may call for classes of its own.
    pub handle_getters: String,
    pub add_handle_getter: String,
    /// The function reading an environment variable as a switch, `(name, default=False)`: unset or
    /// blank is the default; `1`/`true`/`yes`/`on` and `0`/`false`/`no`/`off` (any case) say so;
    /// another integer literal (`0x10`, `-0`) is true unless zero; any other text is true.
    pub env_flag_function: String,
    /// The function reading the ISA version of an assembly text from its version directive.
    pub isa_version_function: String,
    /// The directive that states the version, e.g. `.version`.
    pub isa_version_directive: String,
    /// The function giving the toolkit version (1000 * major + 10 * minor) that first reads an
    /// ISA version.
    pub required_version_function: String,
    /// Each ISA version and the toolkit release `[major, minor]` that introduced it.
    pub isa_releases: BTreeMap<String, [u32; 2]>,
    /// The once-per-process warning that the package's toolkit is a newer major than the driver's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub major_version_check: Option<MajorVersionCheck>,
    /// The question whether the loaded compiler library takes a set of compiler options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option_check: Option<OptionCheck>,
}

/// A function `(options) -> bool` that tells whether the loaded compiler library takes a set of
/// options: it compiles a program that does nothing with them and says no when the library
/// refuses an option, when it cannot be loaded or lacks the entry point, and when the package has
/// no module for it. Every name is one of that library's module (of the raise convention) or of
/// its `_internal` loader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionCheck {
    pub function: String,
    /// The library's module, and its loader module (both relative to the package).
    pub module: String,
    pub loader: String,
    /// The loader's key of the entry point that must be present (its address not 0).
    pub entry_point: String,
    /// The module's functions: a new program, the IR version the library reads (a tuple),
    /// adding a module `(program, bytes, size, name)`, compiling `(program, count, options)`,
    /// and freeing the program.
    pub create: String,
    pub ir_version: String,
    pub add_module: String,
    pub compile: String,
    pub destroy: String,
    /// The module's exception, its status enum and the member that means "invalid option".
    pub error: String,
    pub status_enum: String,
    pub invalid_option: String,
    /// The name the program's module is added under, and its text, a line an item: `{0}`,
    /// `{1}`, ... stand for the numbers of the IR version, in order.
    pub module_name: String,
    pub program: Vec<String>,
}

/// A function that warns (once per process) when the toolkit the package binds has a newer major
/// version than the loaded library reports, unless an environment variable says not to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MajorVersionCheck {
    pub function: String,
    /// A true value (`1`, `true`, `yes`, `on`, a non-zero integer) silences the warning.
    pub env_var: String,
    /// The library module asked, its version function (`(status, version)`), the constant of the
    /// version the package was generated for, and the status meaning success.
    pub module: String,
    pub version_function: String,
    pub version_constant: String,
    pub status_enum: String,
    pub success: String,
}

impl PackageConventions {
    /// The requirement set for release `ctk`: the one whose range admits it (`None` when none
    /// does); `Err` when two do, or a range cannot be read.
    pub fn requirements_for(&self, ctk: &str) -> Result<Option<&RequirementSet>, String> {
        let mut admitting = Vec::new();
        for set in &self.requirements {
            if set.admits(ctk)? {
                admitting.push(set);
            }
        }
        match admitting.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one)),
            [first, second, ..] => Err(format!(
                "requirements: release {ctk} is admitted by two sets ({:?} and {:?})",
                first.ctk, second.ctk
            )),
        }
    }

    /// Every extra any requirement set names, in name order: the package offers each, empty for
    /// a release whose set does not name it.
    pub fn extra_names(&self) -> Vec<&str> {
        let names: std::collections::BTreeSet<&str> =
            self.requirements.iter().flat_map(|set| set.extras.keys().map(String::as_str)).collect();
        names.into_iter().collect()
    }

    /// What is wrong with the description, if anything: an ISA version that is not `major.minor`,
    /// a release range that cannot be read.
    pub fn problem(&self) -> Option<String> {
        if let Some(error) = self.requirements.iter().find_map(|set| set.admits("0").err()) {
            return Some(error);
        }
        let utils = self.utils.as_ref()?;
        let bad = utils.isa_releases.keys().find(|v| {
            let mut parts = v.split('.');
            let numeric = |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
            !(numeric(parts.next()) && numeric(parts.next()) && parts.next().is_none())
        })?;
        Some(format!("utils: ISA version `{bad}` is not major.minor"))
    }
}
