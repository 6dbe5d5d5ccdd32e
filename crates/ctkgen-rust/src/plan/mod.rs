//! The pass: every decision about the generated crate, taken once over the model. Printers read
//! a [`Plan`] and never look at the model to decide anything.

use std::collections::{BTreeMap, BTreeSet};

use ctkgen_ir::{Api, Enum, Function, Primitive, Type, Typedef};

use crate::conventions::LibraryConventions;
use crate::names::{self, ident, synthetic, Name};
use crate::types::{Position, Scalar, Types};

mod record;
mod values;

use crate::docs::DocLinks;
use crate::{Dependency, RustEmitError, RustOptions};
use ctkgen_ir::shared::SharedDeclarations;
pub use record::{Accessor, BitConversion, Member, RecordPlan, RecordShape, Repr};

/// Everything the printers need.
pub struct Plan<'a> {
    pub api: &'a Api,
    pub types: Types<'a>,
    pub options: &'a RustOptions,
    pub conventions: &'a LibraryConventions,
    /// The shared library's file name, for the toolkit the model comes from.
    pub library: String,
    /// The environment variable that selects the per-thread-default-stream variants, when the
    /// library has them.
    pub per_thread_env_var: Option<&'a str>,
    /// Where an installed toolkit's copy of the library is looked for before the system
    /// loader's path, when the library says where.
    pub search: Option<SearchPlan<'a>>,
    /// The Cargo package name: the options', else the conventions'.
    pub crate_name: String,
    /// The package name as a Rust crate identifier.
    pub crate_ident: Name,
    pub records: Vec<RecordPlan<'a>>,
    pub enums: Vec<EnumPlan<'a>>,
    pub typedefs: Vec<TypedefPlan>,
    pub constants: Vec<ConstantPlan<'a>>,
    /// Sorted by name.
    pub functions: Vec<FunctionPlan<'a>>,
    pub status: Option<StatusPlan>,
    pub proc_address: Option<ProcAddressPlan>,
    /// Whether any record has bitfields (the bit helpers are emitted only then).
    pub uses_bitfields: bool,
    /// Records whose alignment comes from an explicit attribute, with the names users see them
    /// by; the generated test prints and checks their alignment.
    pub aligned_types: Vec<AlignedType>,
    /// Index of [`LibraryConventions::init_function`] in `functions`, when the library names one
    /// and the model has it.
    pub init_function: Option<usize>,
    /// The crates of the libraries this one depends on, with the items they define for it.
    pub dependencies: Vec<DependencyPlan>,
    /// What the comments may link to: every item of the model, re-exported ones included.
    pub links: DocLinks,
}

/// A crate the generated one depends on, and the items of this model it already defines
/// identically: re-exported from it (`pub use`), never defined a second time.
pub struct DependencyPlan {
    pub crate_name: String,
    pub crate_ident: Name,
    pub version: String,
    /// Sorted by name.
    pub reexports: Vec<Name>,
}

pub struct EnumPlan<'a> {
    pub enumeration: &'a Enum,
    pub ident: Name,
    pub underlying: Name,
    pub constants: Vec<EnumConstantPlan>,
    pub doc: Option<String>,
    /// Debug names: the first constant for each distinct value, in declaration order.
    pub names: Vec<(i128, String)>,
    /// Flag enums get bitwise operators and a `A | B` Debug form.
    pub is_flags: bool,
    /// Single-bit constants used to spell a flag set, first name per bit.
    pub flag_bits: Vec<(i128, String)>,
}

pub struct EnumConstantPlan {
    pub ident: Name,
    pub value: i128,
    pub doc: Option<String>,
}

pub struct TypedefPlan {
    pub name: String,
    pub ident: Name,
    pub ty: Type,
    pub doc: Option<String>,
}

pub struct ConstantPlan<'a> {
    pub name: &'a str,
    pub ident: Name,
    pub ty: ConstantType,
    pub value: ConstantExpr,
    pub expr: &'a str,
    pub doc: Option<String>,
}

pub enum ConstantType {
    /// The type as the model spells it.
    Declared(Type),
    CStr,
    Bytes,
}

pub enum ConstantExpr {
    Int(i128),
    Bool(bool),
    Float(f64),
    /// An enum newtype value.
    Enum {
        ident: Name,
        value: i128,
    },
    NullPointer {
        is_const: bool,
    },
    /// An integer cast to a pointer type (`((Handle)0x1)`), as an address.
    Address {
        is_const: bool,
        address: u128,
    },
    CStr(String),
    Bytes(Vec<u8>),
}

pub struct FunctionPlan<'a> {
    pub function: &'a Function,
    pub ident: Name,
    pub params: Vec<(Name, Type)>,
    pub doc: Option<String>,
    /// What the wrapper does when its entry point cannot be reached.
    pub unreachable: Unreachable,
    /// The per-thread-default-stream variant's symbol, for a library that has such variants.
    pub per_thread_symbol: Option<&'a str>,
}

impl FunctionPlan<'_> {
    /// The return type is the status enum, so a missing entry point is reported as a status.
    pub fn returns_status(&self) -> bool {
        self.unreachable == Unreachable::Status
    }
}

/// How a wrapper reports an entry point it cannot reach, by what the function returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreachable {
    /// The status enum: the status the conventions name for a missing library or function.
    Status,
    /// A C string (`const char *`): a static one saying why, so a caller that prints it
    /// (an error's description) reads the reason rather than a null pointer.
    Text,
    /// Anything else has no value that could say so: the wrapper panics.
    Panic,
}

/// The installed toolkit's folders the library is looked for in.
pub struct SearchPlan<'a> {
    /// Environment variable naming the toolkit's folder.
    pub env_var: &'a str,
    /// Folders under it, in the order they are tried.
    pub dirs: &'a [String],
}

/// The status enum and the constants the runtime returns.
pub struct StatusPlan {
    pub enum_ident: Name,
    pub success: Name,
    pub missing_function: Name,
    pub missing_library: Name,
}

/// How the versioned entry-point lookup is called.
pub struct ProcAddressPlan {
    /// Index of the lookup function in [`Plan::functions`].
    pub index: usize,
    pub default_flag: i128,
    pub per_thread_flag: i128,
}

pub struct AlignedType {
    pub name: String,
    pub align: u64,
    pub size: u64,
}

impl<'a> Plan<'a> {
    pub fn new(
        api: &'a Api,
        options: &'a RustOptions,
        conventions: &'a LibraryConventions,
        dependencies: &[(Dependency, &Api)],
    ) -> Result<Plan<'a>, RustEmitError> {
        let crate_name = options.crate_name.clone().unwrap_or_else(|| conventions.rust_crate.clone());
        let crate_ident = check_options(&crate_name, options)?;
        let library = conventions.soname(toolkit_major(api)).ok_or_else(|| RustEmitError::UnknownMajorVersion {
            library: conventions.library.clone(),
            description: conventions.library_description.clone(),
        })?;
        let search = (!conventions.search.home_dirs.is_empty())
            .then(|| SearchPlan { env_var: &conventions.python.home_env_var, dirs: &conventions.search.home_dirs });
        let types = Types::new(api);
        let mut plan = Plan {
            api,
            types,
            options,
            conventions,
            library,
            per_thread_env_var: conventions.per_thread.as_ref().map(|p| p.env_var.as_str()),
            search,
            crate_name,
            crate_ident,
            records: Vec::new(),
            enums: Vec::new(),
            typedefs: Vec::new(),
            constants: Vec::new(),
            functions: Vec::new(),
            status: None,
            proc_address: None,
            uses_bitfields: false,
            aligned_types: Vec::new(),
            init_function: None,
            dependencies: Vec::new(),
            links: DocLinks::default(),
        };
        for record in &api.records {
            let planned = plan.plan_record(record)?;
            plan.records.push(planned);
        }
        plan.check_packed_records()?;
        plan.uses_bitfields = plan.records.iter().any(|r| match &r.shape {
            RecordShape::Complete { members, .. } => members.iter().any(|m| matches!(m, Member::Bitfields { .. })),
            RecordShape::Opaque => false,
        });
        for e in &api.enums {
            let planned = plan.plan_enum(e)?;
            plan.enums.push(planned);
        }
        for t in &api.typedefs {
            if let Some(planned) = plan.plan_typedef(t)? {
                plan.typedefs.push(planned);
            }
        }
        plan.add_enum_typedef_names();
        for c in &api.constants {
            let planned = plan.plan_constant(c)?;
            plan.constants.push(planned);
        }
        plan.status = plan.plan_status()?;
        let mut functions: Vec<&Function> = api.functions.iter().collect();
        functions.sort_by(|a, b| a.name.cmp(&b.name));
        for f in functions {
            let planned = plan.plan_function(f)?;
            plan.functions.push(planned);
        }
        plan.proc_address = plan.plan_proc_address()?;
        plan.init_function = conventions
            .init_function
            .as_deref()
            .and_then(|init| plan.functions.iter().position(|f| f.function.name == init));
        plan.aligned_types = plan.plan_aligned_types();
        plan.check_names()?;
        // Before the re-exports leave the plan: a comment may still link to one.
        plan.links = DocLinks::new(&plan);
        for (dependency, dependency_api) in dependencies {
            plan.reuse(dependency, dependency_api)?;
        }
        Ok(plan)
    }

    /// Moves the items `dependency` already defines from this plan into a re-export of them.
    fn reuse(&mut self, dependency: &Dependency, dependency_api: &Api) -> Result<(), RustEmitError> {
        let crate_ident = check_options(dependency.crate_name, self.options)?;
        let shared = SharedDeclarations::between(self.api, dependency_api);
        let api = self.api;
        let mut reexports: Vec<Name> = Vec::new();
        let mut keep = |is_shared: bool, ident: &Name| {
            if is_shared {
                reexports.push(ident.clone());
            }
            !is_shared
        };
        self.records.retain(|r| keep(shared.records.contains(&r.record.name), &r.ident));
        self.enums.retain(|e| keep(shared.enums.contains(&e.enumeration.name), &e.ident));
        // An enum's typedef names come with it when the model has no typedef of its own for them.
        self.typedefs.retain(|t| {
            let enum_name =
                api.typedef(&t.name).is_none() && matches!(&t.ty, Type::Enum { name } if shared.enums.contains(name));
            keep(shared.typedefs.contains(&t.name) || enum_name, &t.ident)
        });
        self.constants.retain(|c| keep(shared.constants.contains(c.name), &c.ident));
        reexports.sort_by_key(|name| name.to_string());
        self.dependencies.push(DependencyPlan {
            crate_name: dependency.crate_name.to_string(),
            crate_ident,
            version: dependency.crate_version.to_string(),
            reexports,
        });
        Ok(())
    }

    fn plan_typedef(&self, t: &Typedef) -> Result<Option<TypedefPlan>, RustEmitError> {
        let context = format!("typedef `{}`", t.name);
        if t.system {
            return Ok(None); // written as Rust's own spelling wherever it is used
        }
        // `typedef struct X X;` and untagged records or enums named by the typedef: the Rust
        // type already has the name.
        match &t.ty {
            Type::Record { name } | Type::Enum { name } | Type::Typedef { name } if *name == t.name => return Ok(None),
            _ => {}
        }
        let ident = ident(&t.name, &context)?;
        if t.align != 0 || !t.explicit_alignments.is_empty() {
            let named = self.types.layout(&Type::Typedef { name: t.name.clone() }, &context);
            match named {
                Err(RustEmitError::AlignedTypedef { .. }) => return Err(named.unwrap_err()),
                Err(_) if !t.explicit_alignments.is_empty() => {
                    let align = t.explicit_alignments.iter().map(|a| a.value).max().unwrap_or(0);
                    return Err(RustEmitError::AlignedTypedef { typedef: t.name.clone(), align, natural: 0 });
                }
                Ok((_, natural)) if t.explicit_alignments.iter().any(|a| a.value > natural) => {
                    let align = t.explicit_alignments.iter().map(|a| a.value).max().unwrap_or(0);
                    return Err(RustEmitError::AlignedTypedef { typedef: t.name.clone(), align, natural });
                }
                _ => {}
            }
        }
        self.types.tokens(&t.ty, Position::Alias, &context)?;
        Ok(Some(TypedefPlan { name: t.name.clone(), ident, ty: t.ty.clone(), doc: t.doc.clone() }))
    }

    /// Enum typedef names the model lists on the enum but not as typedefs.
    fn add_enum_typedef_names(&mut self) {
        for e in &self.api.enums {
            for name in &e.typedef_names {
                if name != &e.name && self.api.typedef(name).is_none() && !self.typedefs.iter().any(|t| &t.name == name)
                {
                    if let Ok(ident) = ident(name, "enum typedef") {
                        let ty = Type::Enum { name: e.name.clone() };
                        self.typedefs.push(TypedefPlan { name: name.clone(), ident, ty, doc: None });
                    }
                }
            }
        }
        self.typedefs.sort_by(|a, b| a.name.cmp(&b.name));
    }

    fn plan_status(&self) -> Result<Option<StatusPlan>, RustEmitError> {
        let conventions = self.conventions;
        let Some(status) =
            self.api.enums.iter().find(|e| e.constants.iter().any(|c| c.name == conventions.success_constant))
        else {
            return Ok(None);
        };
        let context = format!("enum `{}`", status.name);
        let constant = |name: &str| -> Result<Name, RustEmitError> {
            if !status.constants.iter().any(|c| c.name == name) {
                return Err(RustEmitError::Convention {
                    name: name.into(),
                    reason: format!("status enum `{}` has no such constant", status.name),
                });
            }
            ident(name, &context)
        };
        Ok(Some(StatusPlan {
            enum_ident: ident(&status.name, &context)?,
            success: constant(&conventions.success_constant)?,
            missing_function: constant(&conventions.missing_function_constant)?,
            missing_library: constant(&conventions.missing_library_constant)?,
        }))
    }

    fn unreachable(&self, ty: &Type) -> Unreachable {
        let resolved = self.api.resolve(ty);
        match (resolved, &self.status) {
            (Type::Enum { name }, Some(status)) if status.enum_ident == name.as_str() => Unreachable::Status,
            (Type::Pointer { pointee, pointee_const: true }, _)
                if matches!(self.api.resolve(pointee), Type::Primitive { name: Primitive::Char }) =>
            {
                Unreachable::Text
            }
            _ => Unreachable::Panic,
        }
    }

    fn plan_function(&self, f: &'a Function) -> Result<FunctionPlan<'a>, RustEmitError> {
        let context = format!("function `{}`", f.name);
        let invalid = |reason: &str| RustEmitError::InvalidFunction { function: f.name.clone(), reason: reason.into() };
        let ident = ident(&f.name, &context)?;
        for symbol in [&f.symbol, &f.lookup_name].into_iter().chain(f.per_thread_symbol.iter()) {
            if symbol.is_empty() || symbol.contains('\0') {
                return Err(invalid("its symbol is empty or contains NUL"));
            }
        }
        if matches!(f.ret, Type::Function { .. }) {
            return Err(invalid("it returns a function type"));
        }
        self.types.return_tokens(&f.ret, &context)?;
        let mut params = Vec::new();
        let mut seen = BTreeSet::new();
        for (i, p) in f.params.iter().enumerate() {
            if matches!(p.ty, Type::Void) {
                return Err(invalid("it has a `void` parameter"));
            }
            self.types.tokens(&p.ty, Position::Param, &context)?;
            let mut name = names::plain(&p.name);
            if name.is_empty() || name == "_" {
                name = format!("arg{i}");
            }
            if names::WRAPPER_LOCALS.contains(&name.as_str()) {
                name.push('_');
            }
            while !seen.insert(name.clone()) {
                name = format!("{name}_{i}");
            }
            params.push((crate::names::ident(&name, &context)?, p.ty.clone()));
        }
        let per_thread_symbol = f.per_thread_symbol.as_deref().filter(|_| self.per_thread_env_var.is_some());
        Ok(FunctionPlan {
            function: f,
            ident,
            params,
            doc: f.doc.clone(),
            unreachable: self.unreachable(&f.ret),
            per_thread_symbol,
        })
    }

    /// The lookup is used only when the library has one and the model has it in the
    /// five-parameter form `(const char *symbol, void **pfn, int version, flags, status *)`
    /// returning the status.
    fn plan_proc_address(&self) -> Result<Option<ProcAddressPlan>, RustEmitError> {
        let Some(lookup) = &self.conventions.proc_address else { return Ok(None) };
        let Some(index) = self.functions.iter().position(|f| f.function.name == lookup.function) else {
            return Ok(None);
        };
        let f = &self.functions[index];
        let scalar = |i: usize| self.types.scalar(&f.function.params[i].ty);
        let shape_fits = f.returns_status()
            && f.function.params.len() == 5
            && matches!(scalar(0), Scalar::Pointer { .. })
            && matches!(scalar(1), Scalar::Pointer { .. })
            && matches!(scalar(2), Scalar::Int { .. })
            && matches!(scalar(3), Scalar::Int { .. })
            && matches!(scalar(4), Scalar::Pointer { is_const: false });
        if !shape_fits {
            return Ok(None);
        }
        let flag = |name: &str| -> Result<i128, RustEmitError> {
            self.api.enums.iter().flat_map(|e| e.constants.iter()).find(|c| c.name == name).map(|c| c.value).ok_or_else(
                || RustEmitError::Convention { name: name.into(), reason: "no enum constant has this name".into() },
            )
        };
        let default_flag = flag(&lookup.default_flag)?;
        let per_thread_flag = flag(&lookup.per_thread_flag)?;
        Ok(Some(ProcAddressPlan { index, default_flag, per_thread_flag }))
    }

    fn plan_aligned_types(&self) -> Vec<AlignedType> {
        let mut out = Vec::new();
        for plan in &self.records {
            let RecordShape::Complete { .. } = plan.shape else { continue };
            let r = plan.record;
            if r.explicit_alignments.is_empty() {
                continue;
            }
            let aliases = self.typedefs.iter().filter(|t| matches!(&t.ty, Type::Record { name } if *name == r.name));
            for t in aliases {
                out.push(AlignedType { name: names::plain(&t.name), align: r.align, size: r.size });
            }
            out.push(AlignedType { name: names::plain(&r.name), align: r.align, size: r.size });
        }
        out
    }

    /// Rust has one type namespace and one value namespace for all of these items.
    fn check_names(&self) -> Result<(), RustEmitError> {
        let mut types: BTreeMap<String, String> = BTreeMap::new();
        let mut values: BTreeMap<String, String> = BTreeMap::new();
        let add = |space: &mut BTreeMap<String, String>, name: String, what: String| -> Result<(), RustEmitError> {
            if names::RESERVED.contains(&name.as_str()) {
                return Err(RustEmitError::ReservedName { name });
            }
            if let Some(first) = space.insert(name.clone(), what.clone()) {
                return Err(RustEmitError::DuplicateName { name, first, second: what });
            }
            Ok(())
        };
        for r in &self.records {
            add(&mut types, r.ident.to_string(), format!("record `{}`", r.record.name))?;
        }
        for e in &self.enums {
            add(&mut types, e.ident.to_string(), format!("enum `{}`", e.enumeration.name))?;
            add(&mut values, e.ident.to_string(), format!("enum `{}`", e.enumeration.name))?;
        }
        for t in &self.typedefs {
            add(&mut types, t.ident.to_string(), format!("typedef `{}`", t.name))?;
        }
        for c in &self.constants {
            add(&mut values, c.ident.to_string(), format!("constant `{}`", c.name))?;
        }
        for f in &self.functions {
            add(&mut values, f.ident.to_string(), format!("function `{}`", f.function.name))?;
        }
        Ok(())
    }
}

/// The major version of the toolkit the model comes from: its release (`13.1.2`), else the
/// version its header declares (`13010`).
fn toolkit_major(api: &Api) -> Option<u32> {
    let p = &api.provenance;
    let from_release = p.ctk.as_deref().and_then(|ctk| ctk.split('.').next()?.parse().ok());
    from_release.or(p.cuda_version.map(|version| version / 1000))
}

fn ident_of_enum(name: &str, context: &str) -> Result<Name, RustEmitError> {
    ident(name, context)
}

/// Inclusive range of an integer of `bits` bits.
pub fn int_range(bits: u32, signed: bool) -> (i128, i128) {
    let bits = bits.min(127);
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn check_options(name: &str, options: &RustOptions) -> Result<Name, RustEmitError> {
    let valid_name = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid_name {
        return Err(RustEmitError::InvalidOption {
            option: "crate_name",
            reason: format!("`{name}` is not a Cargo package name"),
        });
    }
    if !is_semver(&options.crate_version) {
        return Err(RustEmitError::InvalidOption {
            option: "crate_version",
            reason: format!("`{}` is not a semantic version", options.crate_version),
        });
    }
    if options.command.contains(['\n', '\r']) {
        return Err(RustEmitError::InvalidOption { option: "command", reason: "it spans several lines".into() });
    }
    Ok(synthetic(&name.replace('-', "_")))
}

/// `MAJOR.MINOR.PATCH`, optionally `-pre` and `+build` with dot-separated alphanumeric parts.
fn is_semver(text: &str) -> bool {
    let (rest, build) = match text.split_once('+') {
        Some((rest, build)) => (rest, Some(build)),
        None => (text, None),
    };
    let (core, pre) = match rest.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (rest, None),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    let idents_ok =
        |s: &str| s.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    numbers.len() == 3
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) && (n.len() == 1 || !n.starts_with('0')))
        && pre.into_iter().all(idents_ok)
        && build.into_iter().all(idents_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantic_versions() {
        assert!(is_semver("0.1.0"));
        assert!(is_semver("0.1.0+ctk.13.1.0"));
        assert!(is_semver("1.2.3-rc.1+ctk.12.9"));
        assert!(!is_semver("0.1"));
        assert!(!is_semver("0.1.0+"));
        assert!(!is_semver("01.1.0"));
    }

    #[test]
    fn integer_ranges() {
        assert_eq!(int_range(32, false), (0, u32::MAX as i128));
        assert_eq!(int_range(32, true), (i32::MIN as i128, i32::MAX as i128));
    }
}
