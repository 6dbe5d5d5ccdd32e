//! The raise convention, chosen by a library's description: a made-up library `widget` whose
//! description asks for it gets snake_case functions without its prefix, enums without its
//! prefixes, its exception, outputs returned alone, no handle or record classes, and the
//! `_internal` loader module; a parameter the convention has no form for stops generation by
//! name.

use ctkgen_cython::{emit, CythonOptions, Overrides};
use ctkgen_ir::{
    Api, CallConvention, Enum, EnumConstant, Function, InternalModule, LibraryConventions, NameCase, Param, Primitive,
    Provenance, RaiseNames, Record, RecordKind, Type, Typedef,
};

fn conventions() -> LibraryConventions {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/libraries/nvrtc.toml");
    let mut conventions: LibraryConventions = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    conventions.library = "libwidget.so.7".into();
    conventions.result_type = "widgetStatus".into();
    conventions.success_constant = "WIDGET_SUCCESS".into();
    conventions.missing_function_constant = "WIDGET_ERROR_INTERNAL".into();
    conventions.missing_library_constant = "WIDGET_ERROR_INTERNAL".into();
    conventions.search = Default::default();
    conventions.python.module = "widget".into();
    conventions.python.cython_module = "cywidget".into();
    conventions.python.compatible_module = "other.package.widget".into();
    conventions.python.convention = CallConvention::Raise;
    conventions.python.raise_names = Some(RaiseNames {
        function_prefix: "widget".into(),
        type_prefix: "widget".into(),
        constant_prefix: "WIDGET_".into(),
        case: NameCase::Snake,
        error: "widgetError".into(),
        null_string: None,
    });
    conventions.python.internal = Some(InternalModule { module: "widget".into(), key: "__{name}".into() });
    assert_eq!(conventions.problem(), None);
    conventions
}

fn typedef(name: &str, ty: Type) -> Typedef {
    Typedef {
        name: name.into(),
        ty,
        size: 8,
        align: 8,
        explicit_alignments: Vec::new(),
        system: false,
        doc: None,
        header: None,
    }
}

fn param(name: &str, ty: Type) -> Param {
    Param { name: name.into(), ty }
}

fn pointer(pointee: Type, pointee_const: bool) -> Type {
    Type::Pointer { pointee: Box::new(pointee), pointee_const }
}

fn prim(name: Primitive) -> Type {
    Type::Primitive { name }
}

fn function(name: &str, params: Vec<Param>) -> Function {
    Function {
        name: name.into(),
        symbol: name.into(),
        lookup_name: name.into(),
        per_thread_symbol: None,
        first_version: None,
        per_thread_first_version: None,
        ret: Type::Typedef { name: "widgetStatus".into() },
        params,
        deprecated: false,
        doc: None,
        header: None,
    }
}

fn api() -> Api {
    let constant = |name: &str, value| EnumConstant { name: name.into(), value, doc: None };
    let handle = || Type::Typedef { name: "widgetHandle".into() };
    let chars = || pointer(prim(Primitive::Char), true);
    let enumeration = |name: &str, constants| Enum {
        name: name.into(),
        typedef_names: vec![name.into()],
        underlying: Primitive::UnsignedInt,
        constants,
        doc: None,
        header: None,
    };
    let mut api = Api {
        format_version: ctkgen_ir::FORMAT_VERSION,
        provenance: Provenance {
            header: "widget.h".into(),
            header_sha256: String::new(),
            ctk: Some("7.1.0".into()),
            cuda_version: None,
            target: "x86_64-unknown-linux-gnu".into(),
            language_modes: Vec::new(),
            libclang_version: String::new(),
            extra_headers: Vec::new(),
        },
        functions: vec![
            function(
                "widgetCreateThing",
                vec![
                    param("handle", pointer(handle(), false)),
                    param("numOptions", prim(Primitive::UnsignedInt)),
                    param("options", pointer(chars(), false)),
                ],
            ),
            function(
                "widgetAddData",
                vec![
                    param("handle", handle()),
                    param("inputKind", Type::Typedef { name: "widgetInputKind".into() }),
                    param("data", pointer(Type::Void, true)),
                    param("size", Type::Typedef { name: "size_t".into() }),
                    param("name", chars()),
                ],
            ),
            function(
                "widgetGetLogSize",
                vec![param("handle", handle()), param("sizeRet", pointer(prim(Primitive::UnsignedLong), false))],
            ),
            function(
                "widgetGetLog",
                vec![param("handle", handle()), param("log", pointer(prim(Primitive::Char), false))],
            ),
            function(
                "widgetIRVersion",
                vec![
                    param("majorIR", pointer(prim(Primitive::Int), false)),
                    param("minorIR", pointer(prim(Primitive::Int), false)),
                ],
            ),
            function("widgetDestroy", vec![param("handle", pointer(handle(), false))]),
            // The header's implementation, which an inline function of the API calls: no binding.
            function("__widgetDestroy_7_1", vec![param("handle", pointer(handle(), false))]),
        ],
        records: vec![Record {
            complete: false,
            size: 0,
            align: 0,
            ..Record::complete("widgetThing", RecordKind::Struct, 0, 0, Vec::new())
        }],
        enums: vec![
            enumeration(
                "widgetStatus",
                vec![
                    constant("WIDGET_SUCCESS", 0),
                    constant("WIDGET_ERROR_INVALID", 1),
                    constant("WIDGET_ERROR_INTERNAL", 2),
                ],
            ),
            enumeration("widgetInputKind", vec![constant("WIDGET_INPUT_NONE", 0), constant("WIDGET_INPUT_TEXT", 2)]),
        ],
        typedefs: vec![
            typedef("widgetStatus", Type::Enum { name: "widgetStatus".into() }),
            typedef("widgetInputKind", Type::Enum { name: "widgetInputKind".into() }),
            typedef("widgetHandle", pointer(Type::Record { name: "widgetThing".into() }, false)),
            Typedef { system: true, ..typedef("size_t", prim(Primitive::UnsignedLong)) },
        ],
        constants: Vec::new(),
    };
    api.sort();
    api
}

/// The options of the widget library in a package described as the shipped one is (its private
/// folder, where the loader module goes).
fn options(conventions: LibraryConventions) -> CythonOptions {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/package.toml");
    let package = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    CythonOptions { package, ..CythonOptions::new(conventions, overrides()) }
}

fn overrides() -> Overrides {
    Overrides::parse(
        "[widgetCreateThing]\nhandle = \"out\"\noptions = \"strings\"\n[widgetAddData]\ndata = \"in_bytes(size)\"\n\
         [widgetGetLogSize]\nsizeRet = \"out\"\n[widgetGetLog]\nlog = \"address\"\n[widgetIRVersion]\nmajorIR = \"out\"\n\
         minorIR = \"out\"\n[widgetDestroy]\nhandle = \"handle_ref\"\n[__widgetDestroy_7_1]\nhandle = \"handle_ref\"\n",
    )
    .unwrap()
}

#[test]
fn the_description_s_names_and_exception_make_the_module() {
    let files = emit(&api(), &options(conventions())).unwrap();
    let file = |suffix: &str| {
        files.iter().find(|f| f.path.ends_with(suffix)).unwrap_or_else(|| panic!("no {suffix}")).contents.clone()
    };
    let stub = file("/widget.pyi");
    for signature in [
        "def create_thing(num_options, options) -> int",
        "def add_data(handle, input_kind, data, size, name) -> None",
        "def get_log_size(handle) -> int",
        "def get_log(handle, log) -> None",
        "def ir_version() -> tuple[int, int]",
        "def destroy(handle) -> None",
    ] {
        assert!(stub.contains(signature), "{signature}:\n{stub}");
    }
    assert!(
        stub.contains(
            "class InputKind(_FastEnum):\n    \"\"\"InputKind\"\"\"\n    NONE: InputKind\n    TEXT: InputKind"
        ),
        "{stub}"
    );
    assert!(stub.contains("class Status(_FastEnum):") && stub.contains("    ERROR_INVALID: Status"), "{stub}");
    assert!(!stub.contains("widget_destroy") && !stub.contains("7_1"), "{stub}");
    let enums = file("/_widget_enums.py");
    assert!(enums.contains("class widgetError(Exception):"), "{enums}");
    assert!(enums.contains("member = Status._value2member_map_.get(status)"), "{enums}");
    let functions = file("/_widget_functions_0.pyx");
    assert!(functions.contains("    if status != 0:\n        raise widgetError(status)"), "{functions}");
    // A buffer as long as the `size` argument; the handle's copy passed by address.
    assert!(functions.contains("_buffer(data, &_w_data, &_h_data, <Py_ssize_t>_v_size, False, \"add_data: data\")"));
    assert!(functions.contains("_buffer(log, &_w_log, &_h_log, -1, True, \"get_log: log\")"));
    assert!(functions.contains("cywidget.widgetDestroy(<cywidget.widgetHandle *>&_p_handle)"), "{functions}");
    assert!(functions.contains("    return (_o_major_ir, _o_minor_ir)"), "{functions}");
    // No handle, record or status-convention module; the loader module under `_internal`.
    assert!(!files.iter().any(|f| f.path.ends_with("/_widget_types.pyx") || f.path.contains("/_widget_records_")));
    assert!(files.iter().any(|f| f.path.ends_with("/ctkgen_widget_types.h")));
    let internal = file("/_internal/widget.py");
    assert!(internal.contains("f\"__{name}\": address"), "{internal}");
    assert!(internal.contains("other.package._internal.widget"), "{internal}");
    assert!(file("/cywidget.pyx").contains("def _entry_point_addresses():"));
    assert!(!file("/cywidget.pxd").contains("__widgetDestroy_7_1"));
    assert!(files.iter().any(|f| f.path.ends_with("/_internal/__init__.py")));
    // The not-found error derives from the private class the description names, which must be one.
    let loader = file("/cywidget.pyx");
    assert!(loader.contains("from ._internal.utils import FunctionNotFoundError as _FunctionNotFoundBase\n"));
    let own = format!("class {}(_FunctionNotFoundBase):", conventions().python.function_not_found_error);
    assert!(loader.contains(&own), "{loader}");
    let mut wrong = options(conventions());
    wrong.package.private.as_mut().unwrap().function_not_found_error = Some("MissingError".into());
    let error = emit(&api(), &wrong).unwrap_err().to_string();
    assert!(error.contains("function_not_found_error `MissingError` is not one of its private errors"), "{error}");
    // A loader module needs the package's private folder.
    let error = emit(&api(), &CythonOptions::new(conventions(), overrides())).unwrap_err().to_string();
    assert!(error.contains("`widget` asks for a loader module, but the package description names no private package"));
}

#[test]
fn a_parameter_without_a_form_stops_generation_by_name() {
    let mut api = api();
    let ints = pointer(prim(Primitive::Int), true);
    api.functions.push(function("widgetTakeList", vec![param("values", ints), param("count", prim(Primitive::Int))]));
    api.sort();
    let overrides = Overrides { ..Overrides::parse("[widgetTakeList]\nvalues = \"array\"\n").unwrap() };
    let mut all = overrides.clone();
    all.params.extend(self::overrides().params);
    let error = emit(&api, &CythonOptions { overrides: all, ..options(conventions()) }).unwrap_err().to_string();
    assert_eq!(
        error,
        "raise convention: widgetTakeList.values: the raise convention has no form for this parameter (array)"
    );
}

#[test]
fn the_status_convention_is_the_default_and_the_names_need_the_raise_one() {
    let mut status = conventions();
    status.python.convention = CallConvention::Status;
    assert!(status.problem().unwrap().contains("[python.raise] is only read with convention = \"raise\""));
    status.python.raise_names = None;
    assert_eq!(status.problem(), None);
    let files = emit(&api(), &options(status.clone())).unwrap();
    let stub = &files.iter().find(|f| f.path.ends_with("/widget.pyi")).unwrap().contents;
    assert!(stub.contains("def widgetCreateThing(numOptions, options) -> tuple[widgetStatus, widgetHandle]"), "{stub}");
    let mut raise = conventions();
    raise.python.raise_names = None;
    assert!(raise.problem().unwrap().contains("convention = \"raise\" needs a [python.raise] table"));
    let mut keyless = conventions();
    keyless.python.internal = Some(InternalModule { module: "widget".into(), key: "__".into() });
    assert!(keyless.problem().unwrap().contains("has no `{name}`"));
}

/// The package's helpers follow its description: the shipped one's option check, major version
/// check and compiler function are made under the names it gives, and a description without them
/// makes `utils` and `_internal.utils` without them (the native-handle registry stays).
#[test]
fn the_package_helpers_are_made_as_the_description_asks() {
    let contents = |files: &[ctkgen_ir::OutputFile], suffix: &str| {
        files.iter().find(|f| f.path.ends_with(suffix)).map(|f| f.contents.clone()).unwrap_or_default()
    };
    let shipped = options(conventions());
    let utils = shipped.package.utils.clone().unwrap();
    let check = utils.option_check.clone().unwrap();
    let compiler = shipped.package.private.clone().unwrap().compiler_function.unwrap();
    let module = format!("/{}/{}.py", shipped.python_package, utils.module);
    let files = emit(&api(), &shipped).unwrap();
    let made = contents(&files, &module);
    for name in [&check.function, &utils.major_version_check.as_ref().unwrap().function, &utils.env_flag_function] {
        assert!(made.contains(&format!("\ndef {name}(")), "{name}:\n{made}");
    }
    assert!(made.contains(&format!("_inspect_function_pointer(\"{}\")", check.entry_point)), "{made}");
    assert!(contents(&files, "/_internal/utils.py").contains(&format!("\ndef {compiler}():")));
    let mut bare = shipped.clone();
    let bare_utils = bare.package.utils.as_mut().unwrap();
    bare_utils.option_check = None;
    bare_utils.major_version_check = None;
    bare.package.private.as_mut().unwrap().compiler_function = None;
    let files = emit(&api(), &bare).unwrap();
    let made = contents(&files, &module);
    assert!(!made.contains(&check.function) && !made.contains("import threading"), "{made}");
    assert!(made.contains(&format!("{} = {{}}", utils.handle_getters)), "{made}");
    assert!(made.contains(&format!("\ndef {}(t, getter):", utils.add_handle_getter)), "{made}");
    assert!(!contents(&files, &format!("{module}i")).contains(&check.function));
    assert!(!contents(&files, "/_internal/utils.py").contains(&compiler));
}
