//! How each parameter of a wrapped function is passed: the [`ParamKind`] the pass decides from
//! the classification, printed by one macro per kind in `_functions.pyx.j2`.

use ctkgen_ir::{Api, Type};
use serde::Serialize;

use crate::names::ParamNames;
use crate::params::{length_query, ParamClass};
use crate::typed_values::{Direction, Layout, TypedView};
use crate::types::{cy_qualified, int_range, IntRange, ValueKind};

/// How one element of a list, or one in/out value, converts between Python and C.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Element {
    Handle,
    Scalar,
    Enum,
    Record,
    Address,
    Float,
    Int,
}

impl Element {
    fn of(kind: &ValueKind) -> Element {
        match kind {
            ValueKind::Handle { .. } => Element::Handle,
            ValueKind::Scalar { .. } => Element::Scalar,
            ValueKind::Enum { .. } => Element::Enum,
            ValueKind::Record { .. } => Element::Record,
            ValueKind::Pointer => Element::Address,
            ValueKind::Float => Element::Float,
            _ => Element::Int,
        }
    }
}

/// A function of the library that writes an array's length through its only parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LenQuery {
    pub function: String,
    /// The Cython type of the length it writes.
    pub cy_type: String,
}

/// Which wrapper an output object is: the callee writes into its storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectKind {
    Scalar,
    Handle,
    Record,
}

/// How a parameter is passed; the template has one macro per kind. Inputs are arguments of the
/// Python function; outputs are allocated by the wrapper and returned after the status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ParamKind {
    /// A float, passed as is.
    Value,
    /// An integer or integer-typedef value, checked against the range of its C type.
    Int { range: IntRange },
    /// An enum member (or any int in range of the enum's C type), passed as its integer value.
    EnumValue { range: IntRange },
    /// A handle object, passed as the pointer it holds.
    Handle,
    /// A raw address: an int, None, a buffer, or an object that holds a pointer.
    Address,
    /// `const char *` from `str` or `bytes` (None is NULL).
    Str,
    /// `const char *const *` from a list of `str` or `bytes` (None is NULL), NULL-terminated;
    /// `count` names the argument that says how many the callee reads (checked against the list).
    StrArray { count: Option<String> },
    /// A pointer to the caller's handle object (its storage), an address, or None.
    HandleRef,
    /// A pointer to the caller's record object, read (and possibly written) in place.
    RecordIn,
    /// A record passed by value.
    RecordValue,
    /// A list converted into a C array (on the stack when short); integer elements are checked
    /// against `range`.
    Array { element: Element, range: Option<IntRange> },
    /// A list of records copied into a C array aligned as the record is.
    RecordArray { align: u64 },
    /// `void **` kernel parameters: a list of argument values converted for the launch.
    KernelParams,
    /// `const char **` the callee points at a string it owns.
    OutString,
    /// An integer or float the callee writes.
    OutValue,
    /// An enum the callee writes.
    OutEnum,
    /// A pointer the callee writes, returned as an int.
    OutAddress,
    /// A wrapper object allocated here, whose storage the callee writes.
    OutObject { object: ObjectKind },
    /// A buffer of `len` elements the callee fills, returned as bytes: whole (`raw`, data) or
    /// up to the first NUL (text). `len_inout`: `len` is an in/out count.
    OutBytes { len: String, raw: bool, len_inout: bool },
    /// An array of `len` elements the callee fills, returned as a list. `len_inout`: `len` is an
    /// in/out count; its value on return says how many elements were written. `len_query`: the
    /// length is asked of another function of the library first (`len` is then its local).
    OutArray { element: Element, len: String, len_inout: bool, len_query: Option<LenQuery> },
    /// `const T **` the callee points at an array it owns; the output `len` counts it.
    OutBorrowed { element: Element, len: String },
    /// A value read from the argument and written back by the callee, then returned.
    InOut { element: Element, range: Option<IntRange> },
    /// A `void *` value whose type the selector argument sets: converted by the selector's case;
    /// an enumerator with no case is a TypeError before the call.
    TypedValue(TypedView),
    /// The size of a typed value passed by pointer: the binding fills it in from the case.
    ValueSize,
}

impl ParamKind {
    /// Whether the parameter's value is returned after the status.
    pub fn is_output(&self) -> bool {
        !matches!(
            self,
            ParamKind::Value
                | ParamKind::Int { .. }
                | ParamKind::EnumValue { .. }
                | ParamKind::Handle
                | ParamKind::Address
                | ParamKind::Str
                | ParamKind::StrArray { .. }
                | ParamKind::HandleRef
                | ParamKind::RecordIn
                | ParamKind::RecordValue
                | ParamKind::Array { .. }
                | ParamKind::RecordArray { .. }
                | ParamKind::KernelParams
                | ParamKind::ValueSize
        ) && !matches!(self, ParamKind::TypedValue(t) if t.direction == Direction::In)
    }

    /// The in/out count this output is sized by, when the callee writes back how many it wrote.
    pub fn inout_len(&self) -> Option<&str> {
        match self {
            ParamKind::OutBytes { len, len_inout: true, .. } | ParamKind::OutArray { len, len_inout: true, .. } => {
                Some(len)
            }
            _ => None,
        }
    }

    /// Whether the wrapper allocates memory it frees after the call.
    pub fn needs_cleanup(&self) -> bool {
        matches!(
            self,
            ParamKind::TypedValue(_)
                | ParamKind::StrArray { .. }
                | ParamKind::Array { .. }
                | ParamKind::RecordArray { .. }
                | ParamKind::KernelParams
                | ParamKind::OutBytes { .. }
                | ParamKind::OutArray { .. }
        )
    }

    /// The Python type an output has in the type stubs (`class` when it is an object of one).
    fn stub_type(&self, class: Option<&str>) -> String {
        match self {
            ParamKind::OutBytes { .. } | ParamKind::OutString => "bytes".into(),
            ParamKind::OutArray { .. } | ParamKind::OutBorrowed { .. } => "list".into(),
            ParamKind::OutAddress => "int".into(),
            ParamKind::TypedValue(t) if t.layout == Layout::Pointers => "list".into(),
            ParamKind::TypedValue(_) => "Any".into(),
            _ => class.unwrap_or("int").to_string(),
        }
    }
}

/// Serialized as one struct whose fields are its own and its kind's (`kind` naming the variant):
/// see [`fields_into`].
#[derive(Debug, Clone)]
pub struct ParamView {
    pub py_name: String,
    /// How error messages name the parameter: `function: parameter`.
    pub what: String,
    pub kind: ParamKind,
    /// Cython type of the `def` argument, when the parameter is one.
    pub arg_type: Option<String>,
    /// The argument's default value (Python source), when it may be left out.
    pub default: Option<String>,
    /// Cython spelling of the parameter's C type, for the cast in the call.
    pub c_type: String,
    /// Cython type of what the parameter points at (outputs, arrays, in/out values).
    pub cy_type: String,
    /// Python class of the value (record, handle, integer typedef, enum), if any.
    pub class: Option<String>,
    /// Whether the value is returned after the status.
    pub output: bool,
    /// Whether the wrapper frees memory for it after the call.
    pub cleanup: bool,
    /// Its type in the stubs, for outputs.
    pub stub_type: String,
    /// Whether its conversion runs after every other parameter's (it reads their converted values).
    pub prepare_last: bool,
    /// Further classes its conversion uses (the cases of a typed value).
    pub extra_classes: Vec<String>,
}

impl Serialize for ParamView {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        // Every field named: a new one fails to compile until it is serialized here too.
        let ParamView {
            py_name,
            what,
            kind,
            arg_type,
            default,
            c_type,
            cy_type,
            class,
            output,
            cleanup,
            stub_type,
            prepare_last,
            extra_classes,
        } = self;
        let mut view = serializer.serialize_struct("ParamView", 17)?;
        view.serialize_field("py_name", py_name)?;
        view.serialize_field("what", what)?;
        kind.serialize(fields_into::FieldsInto(&mut view))?;
        view.serialize_field("arg_type", arg_type)?;
        view.serialize_field("default", default)?;
        view.serialize_field("c_type", c_type)?;
        view.serialize_field("cy_type", cy_type)?;
        view.serialize_field("class", class)?;
        view.serialize_field("output", output)?;
        view.serialize_field("cleanup", cleanup)?;
        view.serialize_field("stub_type", stub_type)?;
        view.serialize_field("prepare_last", prepare_last)?;
        view.serialize_field("extra_classes", extra_classes)?;
        view.end()
    }
}

/// A serializer that takes a struct (an internally tagged enum's variant is one) and adds its
/// fields to a struct being serialized. `#[serde(flatten)]` would do the same, but turns the
/// outer struct into a map, which the template engine then builds and searches as a sorted map:
/// about 2% of a generation's instructions for the parameters alone.
mod fields_into {
    use serde::ser::{Error, Impossible, Serialize, SerializeStruct, Serializer};

    pub struct FieldsInto<'a, S>(pub &'a mut S);

    fn unsupported<E: Error>() -> E {
        E::custom("only a struct can be flattened into another")
    }

    impl<'a, S: SerializeStruct> SerializeStruct for FieldsInto<'a, S> {
        type Ok = ();
        type Error = S::Error;
        fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), S::Error> {
            self.0.serialize_field(key, value)
        }
        fn end(self) -> Result<(), S::Error> {
            Ok(())
        }
    }

    impl<'a, S: SerializeStruct> Serializer for FieldsInto<'a, S> {
        type Ok = ();
        type Error = S::Error;
        type SerializeSeq = Impossible<(), S::Error>;
        type SerializeTuple = Impossible<(), S::Error>;
        type SerializeTupleStruct = Impossible<(), S::Error>;
        type SerializeTupleVariant = Impossible<(), S::Error>;
        type SerializeMap = Impossible<(), S::Error>;
        type SerializeStruct = Self;
        type SerializeStructVariant = Impossible<(), S::Error>;

        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, S::Error> {
            Ok(self)
        }
        fn serialize_bool(self, _: bool) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_i8(self, _: i8) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_i16(self, _: i16) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_i32(self, _: i32) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_i64(self, _: i64) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_u8(self, _: u8) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_u16(self, _: u16) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_u32(self, _: u32) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_u64(self, _: u64) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_f32(self, _: f32) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_f64(self, _: f64) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_char(self, _: char) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_str(self, _: &str) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_bytes(self, _: &[u8]) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_none(self) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_unit(self) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), S::Error> {
            value.serialize(self)
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<(), S::Error> {
            Err(unsupported())
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
            Err(unsupported())
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, S::Error> {
            Err(unsupported())
        }
        fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, S::Error> {
            Err(unsupported())
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, S::Error> {
            Err(unsupported())
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
            Err(unsupported())
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, S::Error> {
            Err(unsupported())
        }
    }
}

/// What the views of one function's parameters share.
#[derive(Clone, Copy)]
pub(super) struct ParamScope<'a> {
    pub api: &'a Api,
    /// The Cython module that declares the C types.
    pub cy_module: &'a str,
    /// How the parameter, and the parameters it refers to, are spelled in Python.
    pub names: ParamNames<'a>,
    /// The function, as messages name it.
    pub function: &'a str,
}

/// The view of a typed value parameter (`typed_values`), or of its hidden size.
pub(super) fn typed_param_view(at: ParamScope, name: &str, ty: &Type, typed: Option<TypedView>) -> ParamView {
    let ParamScope { api, cy_module, names, function } = at;
    let (arg_type, extra_classes, class) = match &typed {
        Some(t) => {
            let mut classes: Vec<String> = t.cases.iter().filter_map(|c| c.conv.class().map(str::to_string)).collect();
            classes.sort();
            classes.dedup();
            let arg = (t.direction == Direction::In).then(|| "object".to_string());
            (arg, classes, Some(t.selector_class.clone()))
        }
        None => (None, Vec::new(), None),
    };
    let kind = match typed {
        Some(t) => ParamKind::TypedValue(t),
        None => ParamKind::ValueSize,
    };
    ParamView {
        what: format!("{function}: {}", names.get(name)),
        py_name: names.get(name),
        arg_type,
        default: None,
        c_type: cy_qualified(api, ty, cy_module),
        cy_type: cy_qualified(api, &pointee_of(api, ty), cy_module),
        output: kind.is_output(),
        cleanup: kind.needs_cleanup(),
        stub_type: kind.stub_type(None),
        prepare_last: matches!(kind, ParamKind::TypedValue(_)),
        class,
        extra_classes,
        kind,
    }
}

/// What `ty` points at, through typedefs.
fn pointee_of(api: &Api, ty: &Type) -> Type {
    let mut current = ty;
    loop {
        match current {
            Type::Pointer { pointee, .. } => return (**pointee).clone(),
            Type::Typedef { name } => match api.typedef(name) {
                Some(def) => current = &def.ty,
                None => return Type::Void,
            },
            _ => return Type::Void,
        }
    }
}

/// The class a value kind converts through, if it has one.
fn class_of(kind: &ValueKind) -> Option<String> {
    match kind {
        ValueKind::Handle { class }
        | ValueKind::Scalar { class }
        | ValueKind::Record { class, .. }
        | ValueKind::Enum { class } => Some(class.clone()),
        _ => None,
    }
}

/// Decides how the parameter `name: ty` of `at.function`, classified as `class`, is passed.
/// `inout_names` are the function's in/out parameters (counts that go in and come back).
pub(super) fn param_view(at: ParamScope, name: &str, ty: &Type, class: ParamClass, inout_names: &[&str]) -> ParamView {
    let ParamScope { api, cy_module, names, function } = at;
    let object = Some("object".to_string());
    let pointee = || cy_qualified(api, &pointee_of(api, ty), cy_module);
    let pointee_range = || int_range(api, &pointee_of(api, ty));
    // Every integer kind has a C integer type behind it; a missing one is a pass error.
    let range = || int_range(api, ty).expect("an integer parameter has an integer C type");
    let (kind, arg_type, cy_type, class) = match class {
        ParamClass::Value(value) => match value {
            ValueKind::Float => (ParamKind::Value, Some(cy_qualified(api, ty, cy_module)), String::new(), None),
            ValueKind::Int => match int_range(api, ty) {
                Some(range) => (ParamKind::Int { range }, object, String::new(), None),
                None => (ParamKind::Value, Some(cy_qualified(api, ty, cy_module)), String::new(), None),
            },
            ValueKind::Scalar { class } => (ParamKind::Int { range: range() }, object, String::new(), Some(class)),
            ValueKind::Enum { class } => (ParamKind::EnumValue { range: range() }, object, String::new(), Some(class)),
            ValueKind::Handle { class } => (ParamKind::Handle, object, String::new(), Some(class)),
            ValueKind::Record { class, .. } => (ParamKind::RecordValue, object, String::new(), Some(class)),
            _ => (ParamKind::Address, object, String::new(), None),
        },
        ParamClass::Str => (ParamKind::Str, object, String::new(), None),
        ParamClass::StrArray { count } => {
            (ParamKind::StrArray { count: count.as_deref().map(|c| names.get(c)) }, object, String::new(), None)
        }
        ParamClass::HandleRef => (ParamKind::HandleRef, object, String::new(), None),
        ParamClass::Address => (ParamKind::Address, object, String::new(), None),
        ParamClass::RecordIn { class, .. } => (ParamKind::RecordIn, object, String::new(), Some(class)),
        ParamClass::Array(element) => {
            let kind = ParamKind::Array { element: Element::of(&element), range: pointee_range() };
            (kind, object, pointee(), None)
        }
        ParamClass::RecordArray { class, record } => {
            let align = api.record(&record).map(|r| r.align).unwrap_or(1);
            (ParamKind::RecordArray { align }, object, pointee(), Some(class))
        }
        ParamClass::OutString => (ParamKind::OutString, None, "const char*".into(), None),
        ParamClass::KernelParams => (ParamKind::KernelParams, object, String::new(), None),
        ParamClass::Out(value) => match value {
            ValueKind::Int | ValueKind::Float => (ParamKind::OutValue, None, pointee(), None),
            ValueKind::Enum { class } => (ParamKind::OutEnum, None, pointee(), Some(class)),
            ValueKind::Pointer => (ParamKind::OutAddress, None, "void*".into(), None),
            ValueKind::Scalar { class } => {
                (ParamKind::OutObject { object: ObjectKind::Scalar }, None, pointee(), Some(class))
            }
            ValueKind::Handle { class } => {
                (ParamKind::OutObject { object: ObjectKind::Handle }, None, pointee(), Some(class))
            }
            ValueKind::Record { class, .. } => {
                (ParamKind::OutObject { object: ObjectKind::Record }, None, pointee(), Some(class))
            }
            _ => unreachable!("out_class admits only the kinds above"),
        },
        ParamClass::OutBytes { len } => {
            (ParamKind::OutBytes { len: names.get(&len), raw: true, len_inout: false }, None, pointee(), None)
        }
        ParamClass::OutBorrowed { element, len } => {
            let inner = pointee_of(api, &pointee_of(api, ty));
            let class = class_of(&element);
            let kind = ParamKind::OutBorrowed { element: Element::of(&element), len: names.get(&len) };
            (kind, None, cy_qualified(api, &inner, cy_module), class)
        }
        ParamClass::OutArray { element, len } => {
            let len_inout = inout_names.contains(&len.as_str());
            // `f()`: the length is what the library's function `f` writes through its one parameter.
            let len_query = length_query(api, &len).map(|(function, count)| LenQuery {
                function: function.name.clone(),
                cy_type: cy_qualified(api, &count, cy_module),
            });
            let len = if len_query.is_some() { format!("_q_{}", names.get(name)) } else { names.get(&len) };
            match element {
                ValueKind::CharArray { .. } => {
                    (ParamKind::OutBytes { len, raw: false, len_inout }, None, pointee(), None)
                }
                element => {
                    let class = class_of(&element);
                    let kind = ParamKind::OutArray { element: Element::of(&element), len, len_inout, len_query };
                    (kind, None, pointee(), class)
                }
            }
        }
        ParamClass::InOut(value) => {
            let class = match &value {
                ValueKind::Enum { class } | ValueKind::Handle { class } | ValueKind::Scalar { class } => {
                    Some(class.clone())
                }
                _ => None,
            };
            (ParamKind::InOut { element: Element::of(&value), range: pointee_range() }, object, pointee(), class)
        }
    };
    ParamView {
        what: format!("{function}: {}", names.get(name)),
        py_name: names.get(name),
        arg_type,
        default: None,
        c_type: cy_qualified(api, ty, cy_module),
        cy_type,
        output: kind.is_output(),
        cleanup: kind.needs_cleanup(),
        stub_type: kind.stub_type(class.as_deref()),
        prepare_last: false,
        extra_classes: Vec::new(),
        class,
        kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One value of every kind; the match makes a new kind a compile error here until listed.
    fn every_kind() -> Vec<ParamKind> {
        let element = Element::Int;
        let range = IntRange { bits: 32, signed: false, convert: "_as_unsigned" };
        let all = vec![
            ParamKind::Value,
            ParamKind::Int { range },
            ParamKind::EnumValue { range },
            ParamKind::Handle,
            ParamKind::Address,
            ParamKind::Str,
            ParamKind::StrArray { count: Some("n".into()) },
            ParamKind::HandleRef,
            ParamKind::RecordIn,
            ParamKind::RecordValue,
            ParamKind::Array { element, range: Some(range) },
            ParamKind::RecordArray { align: 1 },
            ParamKind::KernelParams,
            ParamKind::OutString,
            ParamKind::OutValue,
            ParamKind::OutEnum,
            ParamKind::OutAddress,
            ParamKind::OutObject { object: ObjectKind::Record },
            ParamKind::OutBytes { len: "n".into(), raw: true, len_inout: false },
            ParamKind::OutArray { element, len: "n".into(), len_inout: false, len_query: None },
            ParamKind::OutBorrowed { element, len: "n".into() },
            ParamKind::InOut { element, range: None },
            ParamKind::TypedValue(TypedView {
                direction: Direction::Out,
                layout: Layout::One,
                selector: "s".into(),
                selector_class: "S".into(),
                selector_what: "f: s".into(),
                count: None,
                size: None,
                size_hidden: false,
                size_list: false,
                cases: Vec::new(),
                max_size: 1,
                refused: Vec::new(),
            }),
            ParamKind::ValueSize,
        ];
        for kind in &all {
            match kind {
                ParamKind::Value
                | ParamKind::Int { .. }
                | ParamKind::EnumValue { .. }
                | ParamKind::Handle
                | ParamKind::Address
                | ParamKind::Str
                | ParamKind::StrArray { .. }
                | ParamKind::HandleRef
                | ParamKind::RecordIn
                | ParamKind::RecordValue
                | ParamKind::Array { .. }
                | ParamKind::RecordArray { .. }
                | ParamKind::KernelParams
                | ParamKind::OutString
                | ParamKind::OutValue
                | ParamKind::OutEnum
                | ParamKind::OutAddress
                | ParamKind::OutObject { .. }
                | ParamKind::OutBytes { .. }
                | ParamKind::OutArray { .. }
                | ParamKind::OutBorrowed { .. }
                | ParamKind::InOut { .. }
                | ParamKind::TypedValue(_)
                | ParamKind::ValueSize => {}
            }
        }
        all
    }

    #[test]
    fn a_parameter_serializes_as_one_struct_with_its_kind_s_fields() {
        for kind in every_kind() {
            let view = ParamView {
                py_name: "x".into(),
                what: "f: x".into(),
                kind: kind.clone(),
                arg_type: None,
                default: None,
                c_type: "int".into(),
                cy_type: "int".into(),
                class: None,
                output: false,
                cleanup: false,
                stub_type: "int".into(),
                prepare_last: false,
                extra_classes: Vec::new(),
            };
            let json = serde_json::to_value(&view).unwrap();
            let object = json.as_object().unwrap();
            let kind_fields = serde_json::to_value(&kind).unwrap();
            for (key, value) in kind_fields.as_object().unwrap() {
                assert_eq!(object.get(key), Some(value), "{key} of {kind:?}");
            }
            assert_eq!(object.len(), 12 + kind_fields.as_object().unwrap().len(), "{object:?}");
            // The template engine reads it as a struct, every field by name.
            let value = minijinja::Value::from_serialize(&view);
            assert_eq!(value.get_attr("kind").unwrap(), minijinja::Value::from(kind_fields["kind"].as_str().unwrap()));
            assert_eq!(value.get_attr("py_name").unwrap(), minijinja::Value::from("x"));
        }
    }

    #[test]
    fn every_kind_has_its_macro_and_nothing_else_does() {
        let template = ctkgen_templates::CYTHON.iter().find(|(n, _)| *n == "_functions.pyx.j2").unwrap().1;
        let mut names = Vec::new();
        for kind in every_kind() {
            let value = serde_json::to_value(&kind).unwrap();
            let name = value["kind"].as_str().unwrap().to_string();
            assert!(template.contains(&format!("{{% macro p_{name}(p, part, ind) %}}")), "no macro for {name}");
            assert!(template.contains(&format!("\"{name}\": p_{name}")), "{name} is not dispatched");
            names.push(name);
        }
        let macros = template.matches("{% macro p_").count();
        assert_eq!(macros, names.len(), "macros for kinds the pass never decides");
    }
}
