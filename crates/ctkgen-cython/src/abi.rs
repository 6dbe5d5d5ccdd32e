//! The Cython-level ABI as data (`headers/libraries/<library>.cython-abi.toml`): how a library's
//! `cy` module spells what compiled packages import from it, where the compatible package's
//! spelling differs from the header's.
//!
//! A package that `cimport`s the module finds each `cdef` function in the module's `__pyx_capi__`
//! by name and checks a signature string Cython prints from the declared types. Packages compiled
//! against the compatible module expect its strings, so the module declares what it declares: the
//! same parameter spellings, and the types it declares as its own (outside its extern block), which
//! Cython prints with the module's prefix. The C compiler still sees the header's types: such a
//! type keeps its C meaning through a `#define` of the prefixed name in the module's types header.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::CythonEmitError;

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CythonAbi {
    /// What a function returns when it raised (`except ?<value>`): callers compiled against the
    /// compatible module look for an exception only on this value. Default: the library's
    /// missing-function status.
    #[serde(default)]
    pub except_value: Option<String>,
    /// Types the compatible module declares as its own: signature strings name them with the
    /// module's prefix.
    #[serde(default)]
    pub module_types: BTreeSet<String>,
    /// `function.parameter` = its C type in Cython syntax, where the compatible module spells it
    /// otherwise than the header. Calls into the library cast back to the header's type.
    #[serde(default)]
    pub parameters: BTreeMap<String, Spelling>,
    /// Functions the compatible module adds that behave as a function of the library: name =
    /// that function's name.
    #[serde(default)]
    pub function_aliases: BTreeMap<String, String>,
    /// Functions the compatible module exports that the header no longer declares (the library
    /// still has them), by name; one the IR declares is left to the IR.
    #[serde(default)]
    pub extra_functions: BTreeMap<String, ExtraFunction>,
    /// Constants the compatible module declares that the IR does not (reserved names, its own):
    /// name = the integer macro or enumerator whose value it has, or the value itself.
    #[serde(default)]
    pub constant_aliases: BTreeMap<String, ConstantSource>,
    /// Members the compatible module adds to the library's status enum (the description's
    /// `result_type`): name = value. Declared in that enum, so `except_value` may name one (Cython
    /// takes only a member of the return type); C reads each as the value cast to the status type.
    #[serde(default)]
    pub status_members: BTreeMap<String, i64>,
    /// Whether the description's record helpers (`[python.record_helpers]`) are Cython-level
    /// functions too, as in the compatible module.
    #[serde(default)]
    pub record_helpers: bool,
}

/// Where a constant of the table takes its value from.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum ConstantSource {
    Named(String),
    Value(i64),
}

/// A function declared by the table: its C declaration and how the loader finds it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraFunction {
    /// The return type, Cython syntax.
    pub returns: String,
    /// Each parameter as `type name`, Cython syntax.
    pub params: Vec<String>,
    /// The name the versioned lookup is asked for, with `version`; the ABI symbol is the name.
    pub lookup: String,
    pub version: u32,
    /// The per-thread-default-stream symbol, for functions that have one.
    #[serde(default)]
    pub per_thread_symbol: Option<String>,
}

/// A parameter's spelling: always, or only where the header spells the type a given way (the
/// header changed it in some releases and the compatible module followed).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Spelling {
    Always(String),
    Where {
        /// The header's type, in Cython syntax (`void *const *`); spaces are not significant.
        header: String,
        spelling: String,
    },
}

impl CythonAbi {
    pub fn parse(text: &str) -> Result<CythonAbi, CythonEmitError> {
        toml::from_str(text).map_err(|e| CythonEmitError::Overrides(format!("Cython ABI: {e}")))
    }

    /// The spelling of `function`'s parameter `param` whose header type is `header` (Cython
    /// syntax), when the table gives one for it.
    pub fn parameter(&self, function: &str, param: &str, header: &str) -> Option<&str> {
        let squeezed = |s: &str| s.split_whitespace().collect::<String>();
        match self.parameters.get(&format!("{function}.{param}"))? {
            Spelling::Always(spelling) => Some(spelling),
            Spelling::Where { header: h, spelling } => (squeezed(h) == squeezed(header)).then_some(spelling.as_str()),
        }
    }
}

/// The C name Cython gives a type that module `module` (dotted, `pkg.cyfoo`) declares itself:
/// `__pyx_t_`, each dotted part as its length and itself followed by `_`, then the name.
pub fn module_type_cname(module: &str, name: &str) -> String {
    let prefix: String = module.split('.').map(|part| format!("{}{part}_", part.len())).collect();
    format!("__pyx_t_{prefix}{name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_type_names_follow_cythons_prefix() {
        assert_eq!(module_type_cname("a.bc.cym", "Alias"), "__pyx_t_1a_2bc_3cym_Alias");
        assert_eq!(module_type_cname("pkg_x.cym", "T"), "__pyx_t_5pkg_x_3cym_T");
    }

    #[test]
    fn the_table_parses_and_refuses_unknown_fields() {
        let abi = CythonAbi::parse(
            "except_value = \"E\"\nmodule_types = [\"T\"]\nrecord_helpers = true\n[parameters]\n\"f.p\" = \"const void **\"\n\"f.q\" = { header = \"void *const *\", spelling = \"void **\" }\n",
        )
        .unwrap();
        assert_eq!(abi.parameter("f", "p", "int"), Some("const void **"));
        assert_eq!(abi.parameter("f", "q", "void * const *"), Some("void **"));
        assert_eq!(abi.parameter("f", "q", "void **"), None);
        assert!(abi.module_types.contains("T"));
        assert!(CythonAbi::parse("typo = 1").is_err());
        let abi = CythonAbi::parse("except_value = \"_LOADING\"\n[status_members]\n_LOADING = -42\n").unwrap();
        assert_eq!(abi.status_members.get("_LOADING"), Some(&-42));
    }
}
