//! Values whose type is set by an enum argument: a `void *` (or `void **`) parameter whose size
//! and meaning depend on a selector enum. The library's `typed-values` data names each such value
//! (its function, selector, direction and layout); every enumerator of the selector gets a type
//! from the header's text (a fixed phrase on the enumerator, or in the function's bullet for it),
//! or from the data's `[types]`. The binding then takes the selector and converts the value by it.
//! [`audit`] lists what the data does not cover, so a new header cannot add a value silently.

use std::collections::BTreeMap;

use ctkgen_ir::{Api, Function, Primitive, Type};
use serde::{Deserialize, Serialize};

use crate::types::{cy_qualified, int_range, value_kind, IntRange, ValueKind};
use crate::CythonEmitError;

/// Whether the callee reads the value or writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    In,
    Out,
}

/// How the value parameter holds the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// `void *` points at one value.
    #[default]
    One,
    /// `void **`: one pointer per selector entry, each at its value.
    Pointers,
    /// `void **`: each slot holds its entry's value itself (or a pointer, for lists and buffers).
    Slots,
    /// `void *` that is the value itself when it fits a pointer, else points at it.
    Handle,
}

/// One typed value, as the data names it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueSpec {
    pub function: String,
    pub value: String,
    pub selector: String,
    pub direction: Direction,
    #[serde(default)]
    pub layout: Layout,
    pub count: Option<String>,
    pub size: Option<String>,
}

/// The library's typed values (`headers/libraries/<library>.typed-values.toml`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypedValues {
    #[serde(default)]
    pub bookkeeping_suffixes: Vec<String>,
    #[serde(default, rename = "value")]
    pub values: Vec<ValueSpec>,
    /// `function.param` of a `void *` next to an enum that is not typed by it, with the reason.
    #[serde(default)]
    pub not_typed: BTreeMap<String, String>,
    /// Enumerator name to type spelling, where the text gives none.
    #[serde(default)]
    pub types: BTreeMap<String, String>,
}

impl TypedValues {
    pub fn parse(text: &str) -> Result<TypedValues, CythonEmitError> {
        let parsed: TypedValues = toml::from_str(text).map_err(|e| CythonEmitError::Overrides(e.to_string()))?;
        for (name, spelling) in &parsed.types {
            TypeSpec::parse(spelling)
                .ok_or_else(|| CythonEmitError::Overrides(format!("types.{name}: cannot read `{spelling}`")))?;
        }
        Ok(parsed)
    }

    pub fn spec(&self, function: &str, param: &str) -> Option<&ValueSpec> {
        self.values.iter().find(|v| v.function == function && v.value == param)
    }

    /// The parameter that another parameter of `function` serves as size or count for.
    pub fn sized_by(&self, function: &str, param: &str) -> Option<&ValueSpec> {
        self.values.iter().find(|v| v.function == function && v.size.as_deref() == Some(param))
    }
}

/// A type as the text or the data spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeSpec {
    /// A C type of the header.
    C(String),
    /// A truth value stored in that C integer type.
    Bool(String),
    /// A NUL-terminated string in a buffer of this many bytes.
    Text(u64),
    /// Elements of the C type filling the value's size.
    List(String),
    /// No value.
    Nothing,
    /// Not a value: the binding rejects it.
    Refused,
}

impl TypeSpec {
    pub fn parse(text: &str) -> Option<TypeSpec> {
        let text = text.trim();
        Some(match text.split_once(':') {
            Some(("bool", c)) => TypeSpec::Bool(c.trim().to_string()),
            Some(("text", n)) => TypeSpec::Text(n.trim().parse().ok()?),
            Some(("list", c)) => TypeSpec::List(c.trim().to_string()),
            Some(_) => return None,
            None if text == "none" => TypeSpec::Nothing,
            None if text == "refused" => TypeSpec::Refused,
            None if !text.is_empty() => TypeSpec::C(text.to_string()),
            None => return None,
        })
    }
}

/// Where an enumerator's type came from, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Data,
    Bookkeeping,
    EnumeratorDoc,
    FunctionDoc,
}

const PRIMITIVES: &[Primitive] = &[
    Primitive::Bool,
    Primitive::Char,
    Primitive::SignedChar,
    Primitive::UnsignedChar,
    Primitive::Short,
    Primitive::UnsignedShort,
    Primitive::Int,
    Primitive::UnsignedInt,
    Primitive::Long,
    Primitive::UnsignedLong,
    Primitive::LongLong,
    Primitive::UnsignedLongLong,
    Primitive::Float,
    Primitive::Double,
];

/// The IR type a C spelling names (`unsigned int`, `const char **`, `Ctx`), if the header
/// declares it.
pub fn parse_c_type(api: &Api, spelling: &str) -> Option<Type> {
    let mut text = spelling.trim().trim_start_matches("::").trim();
    let mut stars = Vec::new();
    while let Some(rest) = text.strip_suffix('*') {
        text = rest.trim_end();
        stars.push(());
    }
    let (base_const, base) = match text.strip_prefix("const ") {
        Some(rest) => (true, rest.trim()),
        None => (false, text),
    };
    let base = base.trim_start_matches("::");
    let mut ty = if base == "void" {
        Type::Void
    } else if let Some(p) = PRIMITIVES.iter().find(|p| p.c_name() == base || (**p == Primitive::Bool && base == "bool"))
    {
        Type::Primitive { name: *p }
    } else if api.typedef(base).is_some() || crate::types::builtin_typedef(base).is_some() {
        Type::Typedef { name: base.to_string() }
    } else if api.enumeration(base).is_some() {
        Type::Enum { name: base.to_string() }
    } else if api.record(base).is_some() {
        Type::Record { name: base.to_string() }
    } else {
        return None;
    };
    for (i, _) in stars.iter().enumerate() {
        ty = Type::Pointer { pointee: Box::new(ty), pointee_const: i == 0 && base_const };
    }
    if stars.is_empty() && base_const {
        return None;
    }
    Some(ty)
}

/// The lines of a doc comment's per-enumerator bullets (`- ::NAME: text`), by enumerator: each
/// runs to the next bullet or to the next command line (`\param`, `\par`, `\note`).
pub fn bullets(doc: &str) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("- ::") {
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let text = rest[name.len()..].trim_start_matches(':').trim().to_string();
            current = (!name.is_empty()).then(|| name.clone());
            if let Some(name) = &current {
                out.entry(name.clone()).or_insert(text);
            }
            continue;
        }
        // A command line (`\param`, `\par`, `\note`) ends the bullets; an inline `\p` does not.
        let command = trimmed.strip_prefix('\\').is_some_and(|c| !c.starts_with("p ") && !c.starts_with("p\t"));
        if command || trimmed.starts_with("/note") {
            current = None;
            continue;
        }
        if let Some(name) = &current {
            let entry = out.get_mut(name).expect("the bullet was inserted");
            entry.push(' ');
            entry.push_str(trimmed);
        }
    }
    out
}

/// The text after `lead` up to the first of `ends` (or the end), trimmed.
fn after<'a>(text: &'a str, lead: &str, ends: &[&str]) -> Option<&'a str> {
    let start = text.find(lead)? + lead.len();
    let rest = &text[start..];
    let end = ends.iter().filter_map(|e| rest.find(e)).min().unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// The type an enumerator's own doc states: `(value type = T)`, an `Option type: T` line, or a
/// trailing `(T)` naming a type the header declares.
pub fn type_from_enumerator_doc(api: &Api, doc: &str) -> Option<TypeSpec> {
    if let Some(t) = after(doc, "(value type = ", &[")"]) {
        return Some(TypeSpec::C(t.to_string()));
    }
    if let Some(t) = after(doc, "Option type: ", &["\\n", "\n"]) {
        if t.starts_with("No option value") {
            return Some(TypeSpec::Nothing);
        }
        if let Some(e) = after(t, "for enumerated type ", &[" "]) {
            return Some(TypeSpec::C(e.trim_start_matches("::").to_string()));
        }
        return Some(TypeSpec::C(t.to_string()));
    }
    let trimmed = doc.trim_end().trim_end_matches('.');
    if let Some(inner) = trimmed.strip_suffix(')').and_then(|t| t.rsplit_once('(')).map(|(_, t)| t) {
        if parse_c_type(api, inner).is_some() {
            return Some(TypeSpec::C(inner.to_string()));
        }
    }
    None
}

/// The type a function's bullet for an enumerator states, in the phrases the header uses.
pub fn type_from_bullet(text: &str) -> Option<TypeSpec> {
    let text = text.trim();
    let stops: &[&str] = &[".", ",", " and ", "\n"];
    if let Some(t) = after(text, "(value type = ", &[")"]) {
        return Some(TypeSpec::C(t.to_string()));
    }
    // "The type of \p data must be ::Ctx *": the value is what `data` points at.
    for lead in ["The type of \\p data must be ", "The type of \\p value must be "] {
        if let Some(t) = after(text, lead, stops) {
            let t = t.trim_start_matches("::").trim();
            return Some(TypeSpec::C(t.strip_suffix('*').unwrap_or(t).trim().to_string()));
        }
    }
    if let Some(t) = after(text, "must be a struct of type ", stops) {
        return Some(TypeSpec::C(t.trim_start_matches("::").to_string()));
    }
    for lead in ["must point to an ", "must point to a "] {
        if let Some(t) = after(text, lead, stops) {
            return Some(TypeSpec::C(t.to_string()));
        }
    }
    if text.contains("interpreted as an array of 32-bit integers") {
        return Some(TypeSpec::List("int".into()));
    }
    if text.contains("interpreted as a 32-bit integer") {
        return Some(TypeSpec::C("int".into()));
    }
    if let Some(t) = after(text, "interpreted as a ::", stops) {
        return Some(TypeSpec::C(t.to_string()));
    }
    if text.starts_with("Bool where") {
        return Some(TypeSpec::Bool("bool".into()));
    }
    if let Some(n) = after(text, "String of up to ", &[" characters"]) {
        // Room for the terminating NUL.
        return n.parse::<u64>().ok().map(|n| TypeSpec::Text(n + 1));
    }
    if text.starts_with("An integer with values") {
        return Some(TypeSpec::C("int".into()));
    }
    if text.contains("Returns in \\p *data a boolean") || text.starts_with("A boolean attribute") {
        return Some(TypeSpec::Bool("int".into()));
    }
    if text.contains("Returns in \\p *data an integer") {
        return Some(TypeSpec::C("int".into()));
    }
    None
}

/// The selector enum of a value: the enum the selector parameter is, or points at.
fn selector_enum<'a>(api: &'a Api, function: &Function, spec: &ValueSpec) -> Option<&'a ctkgen_ir::Enum> {
    let param = function.params.iter().find(|p| p.name == spec.selector)?;
    let mut ty = api.resolve(&param.ty);
    if let Type::Pointer { pointee, .. } = ty {
        ty = api.resolve(pointee);
    }
    match ty {
        Type::Enum { name } => api.enumeration(name),
        _ => None,
    }
}

/// An enumerator's name, value, and type with where it came from (`None` where nothing says).
pub type EnumeratorType = (String, i128, Option<(TypeSpec, Source)>);

/// Types every enumerator of `enumeration`, from the data, the enumerator docs and the bullets
/// of the functions whose values it selects (in header order); `None` where nothing says.
pub fn enumerator_types(api: &Api, data: &TypedValues, enumeration: &ctkgen_ir::Enum) -> Vec<EnumeratorType> {
    let docs: Vec<BTreeMap<String, String>> = api
        .functions
        .iter()
        .filter(|f| {
            data.values
                .iter()
                .any(|v| v.function == f.name && selector_enum(api, f, v).is_some_and(|e| e.name == enumeration.name))
        })
        .filter_map(|f| f.doc.as_deref().map(bullets))
        .collect();
    enumeration
        .constants
        .iter()
        .map(|c| {
            let found = if let Some(t) = data.types.get(&c.name) {
                TypeSpec::parse(t).map(|t| (t, Source::Data))
            } else if data.bookkeeping_suffixes.iter().any(|s| c.name.ends_with(s.as_str())) {
                Some((TypeSpec::Refused, Source::Bookkeeping))
            } else if let Some(t) = c.doc.as_deref().and_then(|d| type_from_enumerator_doc(api, d)) {
                Some((t, Source::EnumeratorDoc))
            } else {
                docs.iter()
                    .filter_map(|b| b.get(&c.name))
                    .find_map(|text| type_from_bullet(text))
                    .map(|t| (t, Source::FunctionDoc))
            };
            (c.name.clone(), c.value, found)
        })
        .collect()
}

/// How one case's value converts, printed by the template's `conv_*` macros.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "conv", rename_all = "snake_case")]
pub enum Conv {
    Int {
        cy_type: String,
        range: IntRange,
    },
    Bool {
        cy_type: String,
    },
    Float {
        cy_type: String,
    },
    Enum {
        cy_type: String,
        range: IntRange,
        class: String,
    },
    Scalar {
        cy_type: String,
        range: IntRange,
        class: String,
    },
    Handle {
        class: String,
    },
    Record {
        cy_type: String,
        class: String,
    },
    Address,
    Text {
        len: u64,
    },
    IntList {
        cy_type: String,
        range: IntRange,
    },
    /// A writable buffer the callee fills; `size_option` is the enumerator whose value says how
    /// much it may write.
    Buffer {
        size_option: Option<SizeOption>,
    },
    StrList,
    AddressList,
    Nothing,
}

impl Conv {
    /// The C type an integer-like case stores.
    pub fn cy_type(&self) -> Option<&str> {
        match self {
            Conv::Int { cy_type, .. } | Conv::Enum { cy_type, .. } | Conv::Scalar { cy_type, .. } => Some(cy_type),
            _ => None,
        }
    }

    /// The Python class the conversion needs imported.
    pub fn class(&self) -> Option<&str> {
        match self {
            Conv::Enum { class, .. }
            | Conv::Scalar { class, .. }
            | Conv::Handle { class }
            | Conv::Record { class, .. } => Some(class),
            _ => None,
        }
    }
}

/// The enumerator whose value says how many bytes a buffer may take, and its slot's C type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SizeOption {
    pub name: String,
    pub value: String,
    pub cy_type: String,
}

/// One supported enumerator of a value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Case {
    pub name: String,
    pub value: String,
    #[serde(flatten)]
    pub conv: Conv,
    /// Bytes the value takes (the size handed to the callee where it asks for one).
    pub size: u64,
}

/// A typed value of one function, decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TypedView {
    pub direction: Direction,
    pub layout: Layout,
    /// Python names of the selector, count and size parameters.
    pub selector: String,
    pub selector_class: String,
    /// How messages name the selector: `function: parameter`.
    pub selector_what: String,
    pub count: Option<String>,
    pub size: Option<String>,
    /// Whether the size parameter is filled in by the binding (passed by pointer) rather than given.
    pub size_hidden: bool,
    /// Whether the size parameter is a list (one size per selector entry).
    pub size_list: bool,
    pub cases: Vec<Case>,
    /// Bytes of the largest case: the storage allocated for one value.
    pub max_size: u64,
    /// Every enumerator without a case, refused with a TypeError naming it.
    pub refused: Vec<String>,
}

fn size_of(api: &Api, ty: &Type) -> Option<u64> {
    match api.resolve(ty) {
        Type::Typedef { name } => crate::types::builtin_typedef(name).map(|p| p.layout().0),
        Type::Pointer { .. } => Some(Primitive::UnsignedLong.layout().0),
        other => api.type_layout(other).map(|(size, _)| size),
    }
}

fn is_char(api: &Api, ty: &Type) -> bool {
    matches!(api.resolve(ty), Type::Primitive { name: Primitive::Char | Primitive::SignedChar })
}

/// The primitive C type an integer or floating type of `api` stores, spelled without any module:
/// how a module that does not cimport `api`'s declarations reads and writes it.
fn plain_c_type(api: &Api, ty: &Type) -> Option<String> {
    match api.resolve(ty) {
        Type::Primitive { name } => Some(name.c_name().to_string()),
        Type::Typedef { name } => crate::types::builtin_typedef(name).map(|p| p.c_name().to_string()),
        _ => None,
    }
}

/// The conversion of a type the library's own header does not declare but a library it depends
/// on does (a runtime attribute documented as a driver typedef): the dependency's class carries
/// it, and the value is read and written as the primitive C type it stores. Records and enums
/// of the dependency are not carried this way (their C declarations are not cimported).
fn foreign_conversion(foreign: &[&Api], c: &str, layout: Layout) -> Option<(Conv, u64)> {
    let pointer = Primitive::UnsignedLong.layout().0;
    foreign.iter().find_map(|dep| {
        let ty = parse_c_type(dep, c)?;
        if matches!(ty, Type::Pointer { .. }) {
            return None;
        }
        let size = size_of(dep, &ty)?;
        let conv = match value_kind(dep, &ty) {
            ValueKind::Int => Conv::Int { cy_type: plain_c_type(dep, &ty)?, range: int_range(dep, &ty)? },
            ValueKind::Float => Conv::Float { cy_type: plain_c_type(dep, &ty)? },
            ValueKind::Scalar { class } => {
                Conv::Scalar { cy_type: plain_c_type(dep, &ty)?, range: int_range(dep, &ty)?, class }
            }
            ValueKind::Handle { class } => Conv::Handle { class },
            _ => return None,
        };
        (layout != Layout::Handle && layout != Layout::Slots || size <= pointer).then_some((conv, size))
    })
}

/// The conversion of one enumerator's type, in `layout`; `None` when the binding cannot carry it.
/// A type the library does not declare is looked up in `foreign` (the libraries it depends on).
pub fn conversion(
    api: &Api,
    foreign: &[&Api],
    cy_module: &str,
    spec: &TypeSpec,
    layout: Layout,
) -> Option<(Conv, u64)> {
    if let TypeSpec::C(c) = spec {
        if parse_c_type(api, c).is_none() {
            return foreign_conversion(foreign, c, layout);
        }
    }
    let pointer = Primitive::UnsignedLong.layout().0;
    let scalar = |ty: &Type| -> Option<(Conv, u64)> {
        let size = size_of(api, ty)?;
        let cy_type = cy_qualified(api, ty, cy_module);
        let conv = match value_kind(api, ty) {
            ValueKind::Int => Conv::Int { cy_type, range: int_range(api, ty)? },
            ValueKind::Float => Conv::Float { cy_type },
            ValueKind::Enum { class } => Conv::Enum { cy_type, range: int_range(api, ty)?, class },
            ValueKind::Scalar { class } => Conv::Scalar { cy_type, range: int_range(api, ty)?, class },
            ValueKind::Handle { class } => Conv::Handle { class },
            ValueKind::Record { class, .. } => Conv::Record { cy_type, class },
            ValueKind::Pointer => Conv::Address,
            _ => return None,
        };
        Some((conv, size))
    };
    let found = match spec {
        TypeSpec::Refused => return None,
        TypeSpec::Nothing => (layout == Layout::Slots).then_some((Conv::Nothing, pointer))?,
        TypeSpec::Text(len) => {
            (matches!(layout, Layout::One | Layout::Pointers)).then_some((Conv::Text { len: *len }, *len))?
        }
        TypeSpec::Bool(c) => {
            let ty = parse_c_type(api, c)?;
            int_range(api, &ty)?;
            let size = size_of(api, &ty)?;
            // Cython's `bint` is an int: a C `_Bool` is read through the unsigned type of its size.
            let cy_type = match ty {
                Type::Primitive { name: Primitive::Bool } => PRIMITIVES
                    .iter()
                    .find(|p| {
                        !p.is_signed_integer()
                            && !matches!(p, Primitive::Bool | Primitive::Char)
                            && !p.is_float()
                            && p.layout().0 == size
                    })?
                    .c_name()
                    .to_string(),
                _ => cy_qualified(api, &ty, cy_module),
            };
            (Conv::Bool { cy_type }, size)
        }
        TypeSpec::List(c) => {
            let ty = parse_c_type(api, c)?;
            let range = int_range(api, &ty)?;
            (layout != Layout::Slots && layout != Layout::Handle).then(|| {
                (Conv::IntList { cy_type: cy_qualified(api, &ty, cy_module), range }, size_of(api, &ty).unwrap_or(1))
            })?
        }
        TypeSpec::C(c) => {
            let ty = parse_c_type(api, c)?;
            if layout == Layout::Slots {
                // A slot holds a scalar or pointer by value; pointers to characters or pointers
                // are buffers and lists the binding keeps alive for the call.
                if let Type::Pointer { pointee, pointee_const } = &ty {
                    match api.resolve(pointee) {
                        p if is_char(api, p) && !pointee_const => (Conv::Buffer { size_option: None }, pointer),
                        Type::Pointer { pointee: inner, pointee_const: true } if is_char(api, inner) => {
                            (Conv::StrList, pointer)
                        }
                        Type::Pointer { pointee: inner, .. } if matches!(api.resolve(inner), Type::Void) => {
                            (Conv::AddressList, pointer)
                        }
                        Type::Void => (Conv::Address, pointer),
                        _ => return None,
                    }
                } else {
                    let (conv, size) = scalar(&ty)?;
                    if matches!(conv, Conv::Record { .. }) || size > pointer {
                        return None;
                    }
                    (conv, size)
                }
            } else {
                if let Type::Pointer { pointee, .. } = &ty {
                    if !matches!(api.resolve(pointee), Type::Void) {
                        return None;
                    }
                }
                let (conv, size) = scalar(&ty)?;
                // A value that fits a pointer is passed in it; a larger one only by address.
                if layout == Layout::Handle && !matches!(conv, Conv::Record { .. }) && size > pointer {
                    return None;
                }
                (conv, size)
            }
        }
    };
    Some(found)
}

/// The JIT-style pairing of a buffer with the enumerator that sizes it: "specified via option
/// ::NAME" in the buffer enumerator's doc.
fn size_option(enumeration: &ctkgen_ir::Enum, name: &str) -> Option<SizeOption> {
    let doc = enumeration.constants.iter().find(|c| c.name == name)?.doc.as_deref()?;
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let sized = after(&doc, "specified via option ::", &[")", " ", "\n", "\\"])?;
    enumeration.constants.iter().find(|c| c.name == sized).map(|c| SizeOption {
        name: c.name.clone(),
        value: c.value.to_string(),
        cy_type: String::new(),
    })
}

/// Decides the typed value `spec` of `function`: one case per enumerator with a type the binding
/// can carry, the rest refused.
pub fn typed_view(
    api: &Api,
    foreign: &[&Api],
    cy_module: &str,
    names: crate::names::ParamNames,
    data: &TypedValues,
    function: &Function,
    spec: &ValueSpec,
) -> Option<TypedView> {
    let enumeration = selector_enum(api, function, spec)?;
    let size_param = spec.size.as_ref().and_then(|s| function.params.iter().find(|p| &p.name == s));
    let size_hidden =
        size_param.is_some_and(|p| matches!(api.resolve(&p.ty), Type::Pointer { .. })) && spec.layout == Layout::One;
    let size_list = size_param.is_some_and(|p| matches!(api.resolve(&p.ty), Type::Pointer { .. }))
        && spec.layout == Layout::Pointers;
    let mut cases = Vec::new();
    let mut refused = Vec::new();
    for (name, value, found) in enumerator_types(api, data, enumeration) {
        let conv = found.and_then(|(t, _)| conversion(api, foreign, cy_module, &t, spec.layout));
        match conv {
            // A list fills the size the caller gives; without one it has no length.
            Some((Conv::IntList { .. }, _)) if size_param.is_none() || size_hidden => refused.push(name),
            Some((Conv::Buffer { .. }, size)) => {
                let size_option = size_option(enumeration, &name);
                cases.push(Case { name, value: value.to_string(), conv: Conv::Buffer { size_option }, size })
            }
            Some((conv, size)) => cases.push(Case { name, value: value.to_string(), conv, size }),
            None => refused.push(name),
        }
    }
    // A buffer's size option is read from its slot as the type its own case stores.
    let sized: Vec<(String, String)> =
        cases.iter().filter_map(|c| c.conv.cy_type().map(|t| (c.value.clone(), t.to_string()))).collect();
    for case in &mut cases {
        if let Conv::Buffer { size_option: Some(option) } = &mut case.conv {
            match sized.iter().find(|(v, _)| *v == option.value) {
                Some((_, cy_type)) => option.cy_type = cy_type.clone(),
                None => case.conv = Conv::Buffer { size_option: None },
            }
        }
    }
    let max_size = cases.iter().map(|c| c.size).max().unwrap_or(1);
    Some(TypedView {
        direction: spec.direction,
        layout: spec.layout,
        selector: names.get(&spec.selector),
        selector_what: format!("{}: {}", function.name, names.get(&spec.selector)),
        selector_class: crate::types::enum_class(api, &enumeration.name),
        count: spec.count.as_deref().map(|c| names.get(c)),
        size: spec.size.as_deref().map(|s| names.get(s)),
        size_hidden,
        size_list,
        cases,
        max_size,
        refused,
    })
}

/// `function.param` of every `void *`/`void **` parameter of a function that also takes an enum
/// (by value or as an array): the places a value typed by an enum can hide.
pub fn candidates(api: &Api) -> Vec<String> {
    let mut out = Vec::new();
    for function in &api.functions {
        let enum_param = function.params.iter().any(|p| {
            let ty = match api.resolve(&p.ty) {
                Type::Pointer { pointee, .. } => api.resolve(pointee),
                other => other,
            };
            matches!(ty, Type::Enum { .. })
        });
        if !enum_param {
            continue;
        }
        for p in &function.params {
            let Type::Pointer { pointee, .. } = api.resolve(&p.ty) else { continue };
            let void = match api.resolve(pointee) {
                Type::Void => true,
                Type::Pointer { pointee: inner, .. } => matches!(api.resolve(inner), Type::Void),
                _ => false,
            };
            if void {
                out.push(format!("{}.{}", function.name, p.name));
            }
        }
    }
    out
}

/// What the data leaves open for one header.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Audit {
    /// Candidates neither typed nor listed as `not_typed`.
    pub unlisted: Vec<String>,
    /// Typed values the header does not have (or whose selector is no enum).
    pub missing: Vec<String>,
    /// `function: ENUMERATOR` with no type from the text or the data.
    pub untyped: Vec<String>,
    /// `function: ENUMERATOR (type)` typed but not carried by the binding (and not bookkeeping).
    pub uncarried: Vec<String>,
    /// Typed functions and the enumerators each carries.
    pub typed: BTreeMap<String, usize>,
}

/// `foreign`: the libraries `api`'s library depends on, whose types its text may name.
pub fn audit(api: &Api, foreign: &[&Api], data: &TypedValues) -> Audit {
    let mut audit = Audit::default();
    for candidate in candidates(api) {
        let (function, param) = candidate.split_once('.').expect("function.param");
        if data.spec(function, param).is_none() && !data.not_typed.contains_key(&candidate) {
            audit.unlisted.push(candidate);
        }
    }
    for spec in &data.values {
        let Some(function) = api.function(&spec.function) else { continue };
        let Some(enumeration) = selector_enum(api, function, spec) else {
            audit.missing.push(format!("{}.{}", spec.function, spec.value));
            continue;
        };
        if !function.params.iter().any(|p| p.name == spec.value) {
            audit.missing.push(format!("{}.{}", spec.function, spec.value));
            continue;
        }
        let mut carried = 0;
        for (name, _, found) in enumerator_types(api, data, enumeration) {
            match found {
                None => audit.untyped.push(format!("{}: {name}", spec.function)),
                Some((TypeSpec::Refused, _)) => {}
                Some((t, _)) => match conversion(api, foreign, "", &t, spec.layout) {
                    Some(_) => carried += 1,
                    None => audit.uncarried.push(format!("{}: {name} ({t:?})", spec.function)),
                },
            }
        }
        *audit.typed.entry(spec.function.clone()).or_default() += carried;
    }
    audit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_parse() {
        assert_eq!(TypeSpec::parse("bool:int"), Some(TypeSpec::Bool("int".into())));
        assert_eq!(TypeSpec::parse("text:1024"), Some(TypeSpec::Text(1024)));
        assert_eq!(TypeSpec::parse("list:int"), Some(TypeSpec::List("int".into())));
        assert_eq!(TypeSpec::parse("refused"), Some(TypeSpec::Refused));
        assert_eq!(TypeSpec::parse("unsigned int"), Some(TypeSpec::C("unsigned int".into())));
        assert_eq!(TypeSpec::parse("sideways:int"), None);
        assert_eq!(TypeSpec::parse("text:many"), None);
    }

    #[test]
    fn bullet_phrases() {
        let doc = "Intro\n\n- ::A_CTX:\n\n     Returns in \\p *data the context.\n     The type of \\p data must be ::Ctx *.\n\n- ::A_FLAG: A boolean attribute which when set\n- ::A_ID:\n     \\p data must point to an unsigned long long.\n\\param data - x\n";
        let b = bullets(doc);
        assert_eq!(type_from_bullet(&b["A_CTX"]), Some(TypeSpec::C("Ctx".into())));
        assert_eq!(type_from_bullet(&b["A_FLAG"]), Some(TypeSpec::Bool("int".into())));
        assert_eq!(type_from_bullet(&b["A_ID"]), Some(TypeSpec::C("unsigned long long".into())));
        assert_eq!(type_from_bullet("String of up to 1023 characters that defines"), Some(TypeSpec::Text(1024)));
        assert_eq!(
            type_from_bullet("If set, \\p data will be interpreted as an array of 32-bit integers, and"),
            Some(TypeSpec::List("int".into()))
        );
        assert_eq!(type_from_bullet("Something else entirely"), None);
    }

    /// A small model (a fixture's IR snapshot): enough for spellings of C types.
    fn fixture_api() -> Api {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/ir/functions_enums.snap");
        let text = std::fs::read_to_string(path).unwrap();
        Api::from_json(text.splitn(3, "---\n").nth(2).unwrap()).unwrap()
    }

    #[test]
    fn c_spellings() {
        let api = fixture_api();
        assert_eq!(parse_c_type(&api, "unsigned int"), Some(Type::Primitive { name: Primitive::UnsignedInt }));
        assert_eq!(parse_c_type(&api, "::Ctx"), Some(Type::Typedef { name: "Ctx".into() }));
        let strings = parse_c_type(&api, "const char **").unwrap();
        let Type::Pointer { pointee, pointee_const: false } = strings else { panic!("{strings:?}") };
        assert!(matches!(*pointee, Type::Pointer { pointee_const: true, .. }));
        assert_eq!(parse_c_type(&api, "HANDLE"), None);
    }

    #[test]
    fn enumerator_phrases() {
        let api = fixture_api();
        assert_eq!(type_from_enumerator_doc(&api, "(value type = int)\nAllow reuse"), Some(TypeSpec::C("int".into())));
        assert_eq!(
            type_from_enumerator_doc(&api, "Max registers\\n\nOption type: unsigned int\\n\nApplies to: x"),
            Some(TypeSpec::C("unsigned int".into()))
        );
        assert_eq!(
            type_from_enumerator_doc(&api, "Target\\n\nOption type: unsigned int for enumerated type ::Target\\n"),
            Some(TypeSpec::C("Target".into()))
        );
        assert_eq!(
            type_from_enumerator_doc(&api, "From context\\n\nOption type: No option value needed\\n"),
            Some(TypeSpec::Nothing)
        );
        // A trailing parenthesis counts only when it names a declared type.
        assert_eq!(type_from_enumerator_doc(&api, "Allows a file descriptor. (int)"), Some(TypeSpec::C("int".into())));
        assert_eq!(type_from_enumerator_doc(&api, "Reuse (default enabled)"), None);
    }

    #[test]
    fn shipped_data_parses() {
        let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../headers/libraries/cuda-driver.typed-values.toml");
        let data = TypedValues::parse(&std::fs::read_to_string(shipped).unwrap()).unwrap();
        assert!(!data.values.is_empty());
        assert!(TypedValues::parse("[types]\nX = \"text:lots\"\n").is_err());
        assert!(TypedValues::parse(
            "[[value]]\nfunction = \"f\"\nvalue = \"v\"\nselector = \"s\"\ndirection = \"up\"\n"
        )
        .is_err());
    }
}
