//! The output-parameter pass: decides for every pointer parameter whether it is an input, an
//! output the binding allocates, an array or an in/out value. It reads the header documentation
//! (`\param[out]`, "Returned ...", "Pointer to ...", "Array of ...", the `\p name` the body says a
//! value is returned in), the parameter's type (`const T *` is an input) and the pairing of arrays
//! with their count parameters; `overrides.toml` settles the exceptions. Anything it cannot decide
//! is reported by name, never guessed.

use std::collections::BTreeMap;

use ctkgen_ir::doc::{Direction, Doc, ParsedDocs};
use ctkgen_ir::{Api, Function, Primitive, Type};

use crate::types::{value_kind, ValueKind};
use crate::CythonEmitError;

/// What an override in `overrides.toml` says about one parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Override {
    /// An output the binding allocates and returns.
    Out,
    /// A record or value read and written in place.
    InOut,
    /// An input; pointers to scalars become lists.
    In,
    /// An input list whose elements are written into a C array.
    Array,
    /// A raw address (int, None, buffer or object with `getPtr`).
    Address,
    /// `H *` with H a handle type: the caller's handle object itself, which the callee reads and
    /// may update (its storage's address), or an address.
    HandleRef,
    /// `void **kernelParams`: a list of argument addresses.
    KernelParams,
    /// `const char **` read as a list of strings (the callee does not write it): as
    /// `const char *const *` is classified without an override.
    Strings,
    /// `const void *` or `const char *` holding `len` (another parameter) bytes of data, not a
    /// NUL-terminated string: an address where the status convention takes one, a buffer of
    /// exactly `len` bytes where the raise convention does.
    InBytes { len: String },
    /// An output array whose element count is another parameter.
    OutArray { len: String },
    /// `char *` of `len` bytes that are data, not text: returned whole, NULs included.
    OutBytes { len: String },
    /// `const T **`: the callee points it at an array it owns; `len` names the output
    /// parameter that says how many elements it holds.
    OutBorrowed { len: String },
    /// A record's pointer member that is an array of `count` (a sibling member) elements: a
    /// list in Python. Settles pairs the member pass cannot find from names and comments.
    List { count: String },
    /// A record's pointer member that is not a list, whatever its siblings are called.
    Pointer,
    /// A record's byte-array member that `repr()` prints as hex digits.
    ReprHex,
}

/// Per-function parameter overrides, read from TOML tables `[function] param = "kind"` (a table
/// named after a record marks its members: `kernel_params`, `list(<count member>)`, `pointer`
/// and `repr_hex` apply there), and
/// the top-level `keep_gil = [...]` list of functions whose wrappers do not release the GIL.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    pub params: BTreeMap<String, BTreeMap<String, Override>>,
    pub keep_gil: Vec<String>,
    /// Values typed by an enum argument (`<library>.typed-values.toml`).
    pub typed: crate::typed_values::TypedValues,
    /// The Cython-level ABI's spellings (`<library>.cython-abi.toml`).
    pub abi: crate::abi::CythonAbi,
}

impl Overrides {
    pub fn parse(text: &str) -> Result<Overrides, CythonEmitError> {
        let mut raw: BTreeMap<String, toml::Value> =
            toml::from_str(text).map_err(|e| CythonEmitError::Overrides(e.to_string()))?;
        let keep_gil = match raw.remove("keep_gil") {
            None => Vec::new(),
            Some(value) => value
                .as_array()
                .and_then(|items| items.iter().map(|i| i.as_str().map(str::to_string)).collect::<Option<Vec<_>>>())
                .ok_or_else(|| CythonEmitError::Overrides("keep_gil: expected a list of function names".into()))?,
        };
        let mut params = BTreeMap::new();
        for (function, entries) in raw {
            let entries: BTreeMap<String, String> = entries
                .try_into()
                .map_err(|e: toml::de::Error| CythonEmitError::Overrides(format!("{function}: {e}")))?;
            let mut parsed = BTreeMap::new();
            for (param, kind) in entries {
                let value = match kind.as_str() {
                    "out" => Override::Out,
                    "inout" => Override::InOut,
                    "in" => Override::In,
                    "array" => Override::Array,
                    "address" => Override::Address,
                    "handle_ref" => Override::HandleRef,
                    "kernel_params" => Override::KernelParams,
                    "strings" => Override::Strings,
                    "pointer" => Override::Pointer,
                    "repr_hex" => Override::ReprHex,
                    other => {
                        let with_len = |prefix: &str| {
                            other.strip_prefix(prefix).and_then(|r| r.strip_suffix(')')).map(str::to_string)
                        };
                        if let Some(len) = with_len("out_array(") {
                            Override::OutArray { len }
                        } else if let Some(len) = with_len("out_bytes(") {
                            Override::OutBytes { len }
                        } else if let Some(len) = with_len("out_borrowed(") {
                            Override::OutBorrowed { len }
                        } else if let Some(len) = with_len("in_bytes(") {
                            Override::InBytes { len }
                        } else if let Some(count) = with_len("list(") {
                            Override::List { count }
                        } else {
                            return Err(CythonEmitError::Overrides(format!(
                                "{function}.{param}: unknown kind `{other}`"
                            )));
                        }
                    }
                };
                parsed.insert(param, value);
            }
            params.insert(function, parsed);
        }
        Ok(Overrides { params, keep_gil, typed: Default::default(), abi: Default::default() })
    }

    /// The same overrides with the library's typed values (`<library>.typed-values.toml`).
    pub fn with_typed_values(self, text: &str) -> Result<Overrides, CythonEmitError> {
        Ok(Overrides { typed: crate::typed_values::TypedValues::parse(text)?, ..self })
    }

    /// The same overrides with the library's Cython-level ABI spellings (`<library>.cython-abi.toml`).
    pub fn with_abi(self, text: &str) -> Result<Overrides, CythonEmitError> {
        Ok(Overrides { abi: crate::abi::CythonAbi::parse(text)?, ..self })
    }

    /// What the overrides say about `param` of `function`, if anything.
    pub fn get(&self, function: &str, param: &str) -> Option<&Override> {
        self.params.get(function)?.get(param)
    }

    /// Whether `member` of `record` (a table named after the record) holds kernel parameters.
    pub fn is_kernel_params(&self, record: &str, member: &str) -> bool {
        self.get(record, member) == Some(&Override::KernelParams)
    }

    /// What the table named after `record` says about its `member`, if anything.
    pub fn member(&self, record: &str, member: &str) -> Option<&Override> {
        self.get(record, member)
    }
}

/// The decision for one parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamClass {
    /// Passed by value (integers, enums, handles, records by value).
    Value(ValueKind),
    /// `const char *`: bytes or str.
    Str,
    /// `const char *const *`: a list of bytes or str; `count` is the by-value parameter that
    /// says how many the callee reads, when the function has exactly one.
    StrArray {
        count: Option<String>,
    },
    /// `H *` with H a handle type: the caller's handle object, by the address of its storage.
    HandleRef,
    /// A raw address.
    Address,
    /// A pointer to one record: the caller's object, read (and possibly written) in place.
    RecordIn {
        class: String,
        record: String,
    },
    /// `T *` with T a scalar, handle or pointer: a list copied into a C array.
    Array(ValueKind),
    /// `T *` with T a record: a list of record objects copied into one C array.
    RecordArray {
        class: String,
        record: String,
    },
    KernelParams,
    /// Allocated by the binding and returned.
    Out(ValueKind),
    /// `const char **`: the callee points it at a string the binding returns as bytes.
    OutString,
    /// `char *` or `T *` of `len` elements, allocated and returned. `len` names an input
    /// parameter, or an in/out one (`len_inout`) that says on return how many were written.
    OutArray {
        element: ValueKind,
        len: String,
    },
    /// `char *` of `len` bytes returned whole (binary data, NULs included).
    OutBytes {
        len: String,
    },
    /// `const T **` pointed at a callee-owned array of `len` (an output) elements, copied out.
    OutBorrowed {
        element: ValueKind,
        len: String,
    },
    /// A scalar read and written back: passed in, returned.
    InOut(ValueKind),
}

/// Why a parameter got its class; written to the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub class: ParamClass,
    pub reason: &'static str,
}

/// A parameter the pass could not classify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unclassified {
    pub function: String,
    pub param: String,
    pub c_type: String,
}

/// The documentation of one parameter: its `\param` text, as plain text, and stated direction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParamDoc {
    pub text: String,
    pub direction: Option<Direction>,
}

/// The `\param` entries of a function's parsed doc comment, keyed by parameter name (a later
/// entry for the same name wins).
pub fn param_docs(doc: &Doc) -> BTreeMap<String, ParamDoc> {
    doc.params.iter().map(|p| (p.name.clone(), ParamDoc { text: p.text(), direction: p.direction })).collect()
}

/// Lowercased `\param` text without an "Optional" lead-in, so phrases can be matched at the start.
fn normalized(text: &str) -> String {
    let lower = text.trim().to_lowercase();
    let mut rest = lower.as_str();
    for lead in ["optional;", "optional:", "optional,", "optionally", "optional", "(optional)"] {
        if let Some(r) = rest.strip_prefix(lead) {
            rest = r.trim_start();
            break;
        }
    }
    rest.to_string()
}

/// Whether a `\param` text says the callee writes the value.
pub fn doc_says_returned(text: &str) -> bool {
    let lower = normalized(text);
    const STARTS: &[&str] = &[
        "returned",
        "returns ",
        "pointer to returned",
        "location to return",
        "location to store",
        "location where",
        "output ",
        "the returned",
        "on success",
        "pointer to store",
        "pointer for the output",
        "receives",
        "buffer where",
        "array to store",
        "value of handle returned",
        "resulting ",
    ];
    const CONTAINS: &[&str] = &[
        " to return ",
        "will be returned",
        " are returned",
        " is returned",
        " is placed in here",
        " to receive ",
        " returned.",
        "in which the ",
    ];
    STARTS.iter().any(|s| lower.starts_with(s))
        || CONTAINS.iter().any(|s| lower.contains(s))
        || (lower.ends_with(" to create") && !lower.contains("parameters"))
}

/// Whether a `\param` text describes an input list ("Array of ...", "List of ...").
pub fn doc_says_input_list(text: &str) -> bool {
    let lower = normalized(text);
    const STARTS: &[&str] = &[
        "array of",
        "an array of",
        "the array of",
        "list of",
        "array containing",
        "the set of",
        "options ",
        "option values",
        "the types and parameters of",
    ];
    STARTS.iter().any(|s| lower.starts_with(s))
}

/// Whether a `\param` text calls the value an array or buffer of elements (an output with a
/// length). "Array" alone is not enough: CUDA arrays are objects ("Returned mipmapped array").
fn doc_says_many(text: &str) -> bool {
    let lower = format!(" {}", normalized(text));
    [" array of", " array to", " output array", " buffer", " list of", " array containing", " the array"]
        .iter()
        .any(|w| lower.contains(w))
}

/// Whether the doc body, as plain text, says a value is returned in `\p name` ("returns the
/// handle in \p pool", which reads "in `pool`").
fn body_returns_in(body: &str, name: &str) -> bool {
    let plain = format!("in `{name}`");
    let star = format!("in `*{name}`");
    body.split(". ").any(|sentence| {
        let lower = sentence.to_lowercase();
        lower.contains("return")
            && [&plain, &star].iter().any(|p| {
                sentence.match_indices(p.as_str()).any(|(at, _)| {
                    !sentence[at + p.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                })
            })
    })
}

/// A name without a pointer's `p` prefix where one stands before a count's word: `pNumNodes`
/// reads as `numNodes`.
fn without_pointer_prefix(name: &str) -> std::borrow::Cow<'_, str> {
    match name.strip_prefix('p') {
        Some(rest) if rest.starts_with("Num") || rest.starts_with("Nb") => {
            std::borrow::Cow::Owned(format!("n{}", &rest[1..]))
        }
        _ => std::borrow::Cow::Borrowed(name),
    }
}

/// Whether a parameter name reads as an element count (`numNodes`, `pNumNodes`, `nbGroups`,
/// `count`).
fn is_count_name(name: &str) -> bool {
    let name = without_pointer_prefix(name);
    let upper_after =
        |prefix: &str| name.strip_prefix(prefix).is_some_and(|r| r.starts_with(|c: char| c.is_ascii_uppercase()));
    name == "count" || upper_after("num") || upper_after("nb")
}

/// The word a count parameter counts, singular and lowercased: `numEdges` -> `edge`.
fn count_stem(name: &str) -> String {
    let name = without_pointer_prefix(name);
    let stem = name.strip_prefix("num").or_else(|| name.strip_prefix("nb")).unwrap_or("");
    let stem = stem.strip_suffix("_out").unwrap_or(stem).to_lowercase();
    stem.strip_suffix('s').map(str::to_string).unwrap_or(stem)
}

fn is_integer(api: &Api, ty: &Type) -> bool {
    matches!(value_kind(api, ty), ValueKind::Int | ValueKind::Scalar { .. })
        && !matches!(api.resolve(ty), Type::Primitive { name } if name.is_float())
}

/// The pointee of a pointer parameter (typedefs followed, handle typedefs kept) and its constness.
fn pointer_parts(api: &Api, ty: &Type) -> Option<(Type, bool)> {
    match api.resolve_keep_handles(ty) {
        Type::Pointer { pointee, pointee_const } => Some(((**pointee).clone(), *pointee_const)),
        _ => None,
    }
}

/// Facts about one function that several of its parameters' decisions depend on.
struct FunctionFacts<'a> {
    docs: BTreeMap<String, ParamDoc>,
    body: String,
    /// Count parameters passed by pointer that go in and come back (`size_t *numNodes`).
    inout_counts: Vec<&'a str>,
    /// Count parameters passed by value.
    value_counts: Vec<&'a str>,
}

impl<'a> FunctionFacts<'a> {
    fn new(api: &Api, function: &'a Function, overrides: &Overrides, parsed: &ParsedDocs) -> FunctionFacts<'a> {
        // The comment's one parse gives the parameters' entries and the prose; the prose is read
        // only for a parameter without a `\param` text, so it is written out only then.
        let (docs, body) = match function.doc.as_deref() {
            Some(raw) => {
                let doc = parsed.get(raw);
                let docs = param_docs(&doc);
                let undocumented = function.params.iter().any(|p| docs.get(&p.name).is_none_or(|d| d.text.is_empty()));
                (docs, if undocumented { doc.prose() } else { String::new() })
            }
            None => (BTreeMap::new(), String::new()),
        };
        let mut facts = FunctionFacts { docs, body, inout_counts: Vec::new(), value_counts: Vec::new() };
        let pointer_params =
            function.params.iter().filter(|p| pointer_parts(api, &p.ty).is_some_and(|(_, c)| !c)).count();
        for param in &function.params {
            let name = param.name.as_str();
            match pointer_parts(api, &param.ty) {
                None if is_count_name(name) && is_integer(api, &param.ty) => facts.value_counts.push(name),
                Some((pointee, false)) if is_integer(api, &pointee) => {
                    let doc = facts.doc(name);
                    let explicit = overrides.get(&function.name, name);
                    let inout = match explicit {
                        Some(o) => *o == Override::InOut,
                        None => {
                            is_count_name(name)
                                && pointer_params > 1
                                && (doc.direction == Some(Direction::InOut)
                                    || (doc.direction.is_none() && !doc_says_returned(&doc.text)))
                        }
                    };
                    if inout {
                        facts.inout_counts.push(name);
                    }
                }
                _ => {}
            }
        }
        facts
    }

    fn doc(&self, name: &str) -> ParamDoc {
        self.docs.get(name).cloned().unwrap_or_default()
    }

    /// The count an output array `name` pairs with: an in/out count first, then a value count,
    /// when the array's name or text mentions what the count counts or calls itself an array.
    fn array_len(&self, name: &str, text: &str, inout_only: bool) -> Option<String> {
        // The text spells a camel-case stem as words: `numDependentNodes` counts "dependent nodes".
        let joined: String = text.to_lowercase().split_whitespace().collect();
        let mentions = |count: &str| {
            let stem = count_stem(count);
            doc_says_many(text) || (!stem.is_empty() && (name.to_lowercase().contains(&stem) || joined.contains(&stem)))
        };
        let inout = self.inout_counts.iter().filter(|c| **c != name && mentions(c)).collect::<Vec<_>>();
        if let [only] = inout.as_slice() {
            return Some(only.to_string());
        }
        if inout_only || !doc_says_many(text) {
            return None;
        }
        match self.value_counts.as_slice() {
            [only] => Some(only.to_string()),
            _ => None,
        }
    }
}

/// Classifies every parameter of `function`, whose doc comment `parsed` holds (or parses);
/// `Err` carries the one it cannot decide.
pub fn classify(
    api: &Api,
    function: &Function,
    overrides: &Overrides,
    parsed: &ParsedDocs,
) -> Vec<Result<Decision, Unclassified>> {
    let facts = FunctionFacts::new(api, function, overrides, parsed);
    function
        .params
        .iter()
        .map(|param| {
            classify_one(api, &facts, &param.name, &param.ty, overrides.get(&function.name, &param.name)).ok_or_else(
                || Unclassified {
                    function: function.name.clone(),
                    param: param.name.clone(),
                    c_type: ctkgen_ir::abi::c_decl(api, &param.ty, ""),
                },
            )
        })
        .collect()
}

fn decided(class: ParamClass, reason: &'static str) -> Option<Decision> {
    Some(Decision { class, reason })
}

fn classify_one(
    api: &Api,
    facts: &FunctionFacts<'_>,
    name: &str,
    ty: &Type,
    ov: Option<&Override>,
) -> Option<Decision> {
    let Some((pointee, pointee_const)) = pointer_parts(api, ty) else {
        return match value_kind(api, ty) {
            ValueKind::Opaque | ValueKind::Array { .. } | ValueKind::CharArray { .. } => None,
            ValueKind::Pointer => decided(ParamClass::Address, "pointer value"),
            kind => decided(ParamClass::Value(kind), "by value"),
        };
    };
    let target = value_kind(api, &pointee);
    let is_char = matches!(
        api.resolve(&pointee),
        Type::Primitive { name: Primitive::Char | Primitive::SignedChar | Primitive::UnsignedChar }
    );
    let is_void = matches!(api.resolve(&pointee), Type::Void);
    match ov {
        Some(Override::Address) => return decided(ParamClass::Address, "override"),
        Some(Override::InBytes { .. }) if is_char || is_void => {
            return decided(ParamClass::Address, "override (bytes of a given length)")
        }
        Some(Override::InBytes { .. }) => return None,
        Some(Override::Strings) => {
            let strings = matches!(pointer_parts(api, &pointee), Some((inner, true))
                if matches!(api.resolve(&inner), Type::Primitive { name: Primitive::Char }));
            let count = match facts.value_counts.as_slice() {
                [only] => Some(only.to_string()),
                _ => None,
            };
            return strings.then_some(Decision { class: ParamClass::StrArray { count }, reason: "override" });
        }
        Some(Override::HandleRef) => {
            return matches!(target, ValueKind::Handle { .. })
                .then_some(Decision { class: ParamClass::HandleRef, reason: "override" });
        }
        Some(Override::KernelParams) => return decided(ParamClass::KernelParams, "override"),
        Some(Override::OutArray { len }) => {
            // `f()` names a length query; one that is not (or a text buffer) leaves the parameter
            // unclassified (an error).
            if len.ends_with("()") && (length_query(api, len).is_none() || is_char) {
                return None;
            }
            let element = if is_char { ValueKind::CharArray { len: 0 } } else { target };
            return decided(ParamClass::OutArray { element, len: len.clone() }, "override");
        }
        Some(Override::OutBytes { len }) if is_char => {
            return decided(ParamClass::OutBytes { len: len.clone() }, "override");
        }
        Some(Override::OutBytes { .. }) => return None,
        Some(Override::OutBorrowed { len }) => {
            let (inner, _) = pointer_parts(api, &pointee)?;
            let element = value_kind(api, &inner);
            return element_kind_ok(&element).then(|| Decision {
                class: ParamClass::OutBorrowed { element, len: len.clone() },
                reason: "override",
            });
        }
        Some(Override::Out) => return out_class(api, &pointee, target, "override"),
        Some(Override::InOut) => return inout_class(target, "override"),
        Some(Override::In) => return input_class(target, is_char, is_void, "override"),
        Some(Override::Array) => return list_class(target, "override"),
        // Kinds for record members only: a parameter is classified as if it had none.
        Some(Override::List { .. } | Override::Pointer | Override::ReprHex) | None => {}
    }
    let doc = facts.doc(name);
    if pointee_const && is_const_string(api, &pointee) {
        let count = match facts.value_counts.as_slice() {
            [only] => Some(only.to_string()),
            _ => None,
        };
        return decided(ParamClass::StrArray { count }, "const pointee, strings");
    }
    if pointee_const {
        if doc_says_input_list(&doc.text) && matches!(target, ValueKind::Record { .. }) {
            return list_class(target, "const pointee, documented as a list");
        }
        return input_class(target, is_char, is_void, "const pointee");
    }
    if facts.inout_counts.contains(&name) {
        return inout_class(target, "count that goes in and comes back");
    }
    let out_named = name.ends_with("_out") || name.ends_with("Out");
    let says_out = match doc.direction {
        Some(Direction::Out) => true,
        Some(Direction::InOut | Direction::In) => false,
        // The body sentence is read only when the comment has no `\param` line for the parameter.
        None => {
            doc_says_returned(&doc.text) || out_named || (doc.text.is_empty() && body_returns_in(&facts.body, name))
        }
    };
    if says_out {
        // A `char *` output is a buffer whose size the type does not give: an override names it.
        if is_char && facts.array_len(name, &doc.text, false).is_none() {
            return None;
        }
        if let Some(len) = element_kind_ok(&target).then(|| facts.array_len(name, &doc.text, false)).flatten() {
            let element = if is_char { ValueKind::CharArray { len: 0 } } else { target };
            return decided(ParamClass::OutArray { element, len }, "documented as returned, paired with a count");
        }
        if is_void {
            return decided(ParamClass::Address, "documented as returned into caller memory");
        }
        // Records "returned" as an array with no count to size it: one record would overflow.
        if matches!(target, ValueKind::Record { .. }) && doc_says_many(&doc.text) {
            return None;
        }
        return out_class(api, &pointee, target, "documented as returned");
    }
    if doc.direction == Some(Direction::InOut) {
        return inout_class(target, "documented in/out");
    }
    if doc_says_input_list(&doc.text) {
        if is_void {
            return decided(ParamClass::Address, "documented as a list of raw values");
        }
        return list_class(target, "documented as a list");
    }
    if is_void {
        return decided(ParamClass::Address, "void pointer input");
    }
    let text = normalized(&doc.text);
    match target {
        // The caller's record is passed as is: what the callee reads or writes is in the object.
        ValueKind::Record { class, record } if !text.is_empty() => {
            decided(ParamClass::RecordIn { class, record }, "record passed in place")
        }
        ValueKind::Int
        | ValueKind::Float
        | ValueKind::Enum { .. }
        | ValueKind::Scalar { .. }
        | ValueKind::Handle { .. }
        | ValueKind::Pointer
            if !is_char && (text.starts_with("pointer to") || text.starts_with("address of")) =>
        {
            out_class(api, &pointee, target, "documented as a pointer to the result")
        }
        ValueKind::Int | ValueKind::Scalar { .. } if text.starts_with("number of") => {
            out_class(api, &pointee, target, "documented as a count")
        }
        _ => None,
    }
}

fn element_kind_ok(target: &ValueKind) -> bool {
    matches!(
        target,
        ValueKind::Int
            | ValueKind::Float
            | ValueKind::Enum { .. }
            | ValueKind::Scalar { .. }
            | ValueKind::Handle { .. }
            | ValueKind::Record { .. }
    )
}

/// `f()`: the library's function `f`, which writes an array's length through its only
/// parameter, an integer pointer; with that integer's type. `None` for any other `len`.
pub(crate) fn length_query<'a>(api: &'a Api, len: &str) -> Option<(&'a Function, Type)> {
    let function = api.function(len.strip_suffix("()")?)?;
    let [param] = function.params.as_slice() else { return None };
    let (count, _) = pointer_parts(api, &param.ty)?;
    is_integer(api, &count).then_some((function, count))
}

/// Whether `ty` is `const char *`: a string.
pub(crate) fn is_const_string(api: &Api, ty: &Type) -> bool {
    match api.resolve(ty) {
        Type::Pointer { pointee, pointee_const: true } => matches!(
            api.resolve(pointee),
            Type::Primitive { name: Primitive::Char | Primitive::SignedChar | Primitive::UnsignedChar }
        ),
        _ => false,
    }
}

fn input_class(target: ValueKind, is_char: bool, is_void: bool, reason: &'static str) -> Option<Decision> {
    if is_char {
        return decided(ParamClass::Str, reason);
    }
    if is_void {
        return decided(ParamClass::Address, reason);
    }
    match target {
        ValueKind::Record { class, record } => decided(ParamClass::RecordIn { class, record }, reason),
        ValueKind::Int
        | ValueKind::Float
        | ValueKind::Enum { .. }
        | ValueKind::Scalar { .. }
        | ValueKind::Handle { .. } => decided(ParamClass::Array(target), reason),
        ValueKind::Pointer => decided(ParamClass::Address, reason),
        _ => None,
    }
}

fn list_class(target: ValueKind, reason: &'static str) -> Option<Decision> {
    match target {
        ValueKind::Record { class, record } => decided(ParamClass::RecordArray { class, record }, reason),
        ValueKind::Int
        | ValueKind::Float
        | ValueKind::Enum { .. }
        | ValueKind::Scalar { .. }
        | ValueKind::Handle { .. }
        | ValueKind::Pointer => decided(ParamClass::Array(target), reason),
        _ => None,
    }
}

fn inout_class(target: ValueKind, reason: &'static str) -> Option<Decision> {
    match target {
        ValueKind::Record { class, record } => decided(ParamClass::RecordIn { class, record }, reason),
        ValueKind::Int
        | ValueKind::Float
        | ValueKind::Enum { .. }
        | ValueKind::Scalar { .. }
        | ValueKind::Handle { .. } => decided(ParamClass::InOut(target), reason),
        _ => None,
    }
}

fn out_class(api: &Api, pointee: &Type, target: ValueKind, reason: &'static str) -> Option<Decision> {
    // `const char **`: the callee stores the address of a string it owns.
    if let Type::Pointer { pointee: inner, pointee_const: true } = api.resolve(pointee) {
        if matches!(api.resolve(inner), Type::Primitive { name: Primitive::Char | Primitive::SignedChar }) {
            return decided(ParamClass::OutString, reason);
        }
    }
    match target {
        ValueKind::Int
        | ValueKind::Float
        | ValueKind::Enum { .. }
        | ValueKind::Scalar { .. }
        | ValueKind::Handle { .. }
        | ValueKind::Record { .. }
        | ValueKind::Pointer => decided(ParamClass::Out(target), reason),
        _ => None,
    }
}

/// Resolving typedefs, but stopping at a handle typedef (a handle is a value, not a pointer).
trait ResolveKeepHandles {
    fn resolve_keep_handles<'a>(&'a self, ty: &'a Type) -> &'a Type;
}

impl ResolveKeepHandles for Api {
    fn resolve_keep_handles<'a>(&'a self, ty: &'a Type) -> &'a Type {
        match ty {
            Type::Typedef { name } if crate::types::typedef_class(self, name).is_some() => ty,
            Type::Typedef { name } => match self.typedef(name) {
                Some(def) => self.resolve_keep_handles(&def.ty),
                None => ty,
            },
            _ => ty,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returned_wording() {
        assert!(doc_says_returned("Returned context handle of the new context"));
        assert!(doc_says_returned("Pointer to return the parameters"));
        assert!(doc_says_returned("Optional location to store the status"));
        assert!(doc_says_returned("Pointer to an unsigned integer in which the stream's flags are returned"));
        assert!(doc_says_returned("Texture object to create"));
        assert!(!doc_says_returned("Context creation flags"));
        assert!(!doc_says_returned("Context creation parameters"));
    }

    #[test]
    fn list_wording() {
        assert!(doc_says_input_list("Array of sizes for memcpy operations."));
        assert!(doc_says_input_list("List of launch parameters, one per device"));
        assert!(!doc_says_input_list("Array to store the fabric clique information."));
    }

    fn param_docs_of(text: &str) -> BTreeMap<String, ParamDoc> {
        param_docs(&Doc::parse(text, &Default::default()))
    }

    fn entry(text: &str, direction: Option<Direction>) -> ParamDoc {
        ParamDoc { text: text.into(), direction }
    }

    #[test]
    fn param_docs_with_aligned_names_and_directions() {
        let docs = param_docs_of(
            "\\brief x\n\n\\param pHandle        - Returned array\n\\param flags - Flags\n  more\n\\param[in,out]   count  Input: size\n\\param *graphId - Pointer\n\n\\return\n",
        );
        assert_eq!(docs["pHandle"].text, "Returned array");
        assert_eq!(docs["flags"].text, "Flags more");
        assert_eq!(docs["count"].direction, Some(Direction::InOut));
        assert!(docs.contains_key("graphId"));
    }

    #[test]
    fn a_direction_written_apart_from_the_command_is_read() {
        let docs = param_docs_of("\\param   [in]  prog   Program.\n\\param   [out] sizeRet Size of the output.\n");
        assert_eq!(docs["prog"].direction, Some(Direction::In));
        assert_eq!(docs["sizeRet"].direction, Some(Direction::Out));
        assert_eq!(docs["sizeRet"].text, "Size of the output.");
    }

    /// Comments shaped like the headers' own give classification the texts and directions the
    /// line scan it replaces gave.
    #[test]
    fn real_shaped_comments_give_the_texts_and_directions_of_before() {
        let allocate = "\\brief Allocates device memory\n\nAllocates \\p bytesize bytes of linear memory on the \
            device and returns in\n\\p *dptr a pointer to the allocated memory.\n\n\
            \\param dptr     - Returned device pointer\n\\param bytesize - Requested allocation size in bytes\n\n\
            \\return\n::FOO_OK,\n::FOO_ERROR_VALUE\n\\note_errors\n\n\\sa ::fooFree";
        let docs = param_docs_of(allocate);
        assert_eq!(docs["dptr"], entry("Returned device pointer", None));
        assert_eq!(docs["bytesize"], entry("Requested allocation size in bytes", None));

        let query = "\\brief Returns the nodes\n\n\\param hGraph   - Graph to query\n\
            \\param nodes    - Pointer to return the nodes\n\\param numNodes - See description\n\n\\return\n::FOO_OK";
        let docs = param_docs_of(query);
        assert_eq!(docs["nodes"], entry("Pointer to return the nodes", None));
        assert_eq!(docs["numNodes"], entry("See description", None));

        let compile = "\\ingroup compilation\n\n\\brief Compiles the given program.\n\n\
            \\param   [in] prog       Program.\n\\param   [in] numOptions Number of compiler options passed.\n\
            \\param   [in] options    Compiler options in the form of C string array.\n\
            \\param   [out] logSizeRet Size of the compilation log\n                        (including the trailing NUL).\n\
            \\return\n  - \\link #RESULT RESULT_OK \\endlink";
        let docs = param_docs_of(compile);
        assert_eq!(docs["prog"], entry("Program.", Some(Direction::In)));
        assert_eq!(docs["options"], entry("Compiler options in the form of C string array.", Some(Direction::In)));
        assert_eq!(
            docs["logSizeRet"],
            entry("Size of the compilation log (including the trailing NUL).", Some(Direction::Out))
        );

        let streams = "Gets the flags.\n\n\\param[in] hStream - Handle to the stream\n\
            \\param[out] flags - Pointer to an unsigned integer in which the stream's flags are returned\n\
            \\param[in,out] count - Size of the array on input, entries written on output\n\n\\return\n::FOO_OK\n";
        let docs = param_docs_of(streams);
        assert_eq!(docs["hStream"], entry("Handle to the stream", Some(Direction::In)));
        assert_eq!(
            docs["flags"],
            entry("Pointer to an unsigned integer in which the stream's flags are returned", Some(Direction::Out))
        );
        assert_eq!(
            docs["count"],
            entry("Size of the array on input, entries written on output", Some(Direction::InOut))
        );
        assert_eq!(docs.len(), 3);
    }

    #[test]
    fn the_prose_names_an_output_as_before() {
        let doc = Doc::parse(
            "\\brief Creates a pool\n\nCreates a pool and returns the handle in \\p pool.\nThe \\p poolProps\n\
             say how.\n\n\\param poolProps - Properties\n",
            &Default::default(),
        );
        let prose = doc.prose();
        assert!(body_returns_in(&prose, "pool"));
        assert!(!body_returns_in(&prose, "poolProps"));
    }

    #[test]
    fn counts_and_stems() {
        assert!(is_count_name("numNodes") && is_count_name("nbGroups") && is_count_name("count"));
        assert!(!is_count_name("number") && !is_count_name("minCount"));
        assert_eq!(count_stem("numEdges"), "edge");
        assert!(is_count_name("pNumRootNodes") && !is_count_name("pNode") && !is_count_name("pnumber"));
        assert_eq!(count_stem("pNumRootNodes"), "rootnode");
        assert_eq!(count_stem("numDependencies_out"), "dependencie");
    }

    #[test]
    fn body_sentence_names_the_output() {
        assert!(body_returns_in("Creates a pool and returns the handle in `pool`. The `poolProps`", "pool"));
        assert!(!body_returns_in("Creates a pool and returns the handle in `pool`. The `poolProps`", "poolProps"));
        assert!(body_returns_in("Returns the id of `hGraphExec` in `*graphId`.", "graphId"));
    }

    #[test]
    fn overrides_parse() {
        let o = Overrides::parse(
            "keep_gil = [\"fnB\"]\n[fnA]\nx = \"out\"\ny = \"out_array(n)\"\nz = \"out_bytes(8)\"\nw = \"out_borrowed(n)\"\n",
        )
        .unwrap();
        assert_eq!(o.get("fnA", "z"), Some(&Override::OutBytes { len: "8".into() }));
        assert_eq!(o.get("fnA", "w"), Some(&Override::OutBorrowed { len: "n".into() }));
        assert_eq!(o.keep_gil, vec!["fnB".to_string()]);
        assert_eq!(o.get("fnA", "x"), Some(&Override::Out));
        assert_eq!(o.get("fnA", "y"), Some(&Override::OutArray { len: "n".into() }));
        assert!(Overrides::parse("[fnA]\nx = \"sideways\"\n").is_err());
        let o = Overrides::parse("[fnC]\nopts = \"strings\"\ndata = \"in_bytes(size)\"\n").unwrap();
        assert_eq!(o.get("fnC", "opts"), Some(&Override::Strings));
        assert_eq!(o.get("fnC", "data"), Some(&Override::InBytes { len: "size".into() }));
        let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../headers/libraries/cuda-driver.cython-params.toml");
        Overrides::parse(&std::fs::read_to_string(shipped).unwrap()).unwrap();
    }
}
