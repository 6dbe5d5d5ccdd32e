//! A library's conventions as data: what every binding of it must know that the declarations
//! alone do not say. One description per library lives under `headers/libraries/`; both emitters
//! read it, so neither spells a name of the library it binds.

use serde::{Deserialize, Serialize};

use crate::{Api, Enum, EnumConstant};

/// How a C library reports status, is loaded and resolves its entry points.
///
/// Names here are looked up in the IR where the IR has them (the status enum and its values,
/// the ABI symbol of the proc-address function); the description only says which ones to use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibraryConventions {
    /// Shared library opened on first use, e.g. `libfoo.so.1`.
    pub library: String,
    /// What the library is called in messages and documentation ("<description> not found").
    pub library_description: String,
    /// Main header the IR is read from; generated C includes it.
    pub header: String,
    /// The library's other headers, read after [`LibraryConventions::header`] in the same
    /// translation unit and in this order; each declaration in the IR records which header
    /// declared it. A source that lacks one of them (an installed toolkit without that
    /// component) is read without it; a catalogue release must have them all.
    #[serde(default)]
    pub extra_headers: Vec<ExtraHeader>,
    /// Typedef of the status type every wrapped function returns; functions returning
    /// anything else are not wrapped.
    pub result_type: String,
    /// Enum constant meaning success; its value is read from the IR, never assumed.
    pub success_constant: String,
    /// Status returned by a wrapper whose entry point the library lacks.
    pub missing_function_constant: String,
    /// Status returned by every wrapper when the library itself cannot be loaded.
    pub missing_library_constant: String,
    /// Public name of the versioned entry-point lookup; its ABI symbol comes from the IR.
    /// When the IR lacks it, every function is found with `dlsym` alone.
    pub proc_address_function: String,
    /// Integer typedef of the lookup's flags argument.
    pub proc_address_flags_type: String,
    /// Flag constant asking the lookup for the default (legacy stream) variant.
    pub proc_address_default_flag: String,
    /// Flag constant asking the lookup for the per-thread-default-stream variant.
    pub proc_address_per_thread_flag: String,
    /// Environment variable that selects the per-thread-default-stream variants (read once).
    pub per_thread_env_var: String,
    /// Macro holding the version the header declares, e.g. `FOO_VERSION`.
    pub version_macro: String,
    /// Function the generated example and test call (with all-zero arguments) to show what a
    /// call does on the machine at hand.
    pub init_function: String,
    /// Cargo package name of the generated Rust crate, e.g. `foo-sys`.
    pub rust_crate: String,
    /// What the Python bindings add: names their users see.
    pub python: PythonConventions,
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
    /// compatible module reads it.
    pub per_thread_env_var: String,
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
}

impl LibraryConventions {
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
            &self.library,
            &self.library_description,
            &self.header,
            &self.result_type,
            &self.success_constant,
            &self.missing_function_constant,
            &self.missing_library_constant,
            &self.proc_address_function,
            &self.proc_address_flags_type,
            &self.proc_address_default_flag,
            &self.proc_address_per_thread_flag,
            &self.per_thread_env_var,
            &self.version_macro,
            &self.init_function,
            &self.rust_crate,
            &p.cython_module,
            &p.compatible_module,
            &p.per_thread_env_var,
            &p.library_path_env_var,
            &p.home_env_var,
            &p.library_not_found_error,
            &p.function_not_found_error,
        ]
        .into_iter()
        .chain(&p.anonymous_record_prefix)
        .map(String::as_str)
        .collect();
        names.extend(extra.map(String::as_str));
        names
    }

    /// The file names of the extra headers and of their typedef headers, in order.
    pub fn extra_header_files(&self) -> Vec<String> {
        self.extra_headers.iter().flat_map(|e| std::iter::once(e.header.clone()).chain(e.typedefs.clone())).collect()
    }
}
