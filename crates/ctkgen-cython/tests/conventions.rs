//! The emitter takes a library's names and status values from its conventions and the IR: a
//! made-up library whose success value is not zero gets bindings that test against that value
//! and look up its own proc-address symbol.

use ctkgen_cython::{emit, CythonOptions, Overrides};
use ctkgen_ir::{Api, Enum, EnumConstant, Function, LibraryConventions, Primitive, Provenance, Type, Typedef};

fn conventions() -> LibraryConventions {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/libraries/cuda-driver.toml");
    let mut conventions: LibraryConventions = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    conventions.result_type = "widget_status".into();
    conventions.success_constant = "WIDGET_FINE".into();
    conventions.missing_function_constant = "WIDGET_MISSING".into();
    conventions.proc_address.as_mut().expect("the driver has a lookup").function = "widgetLookup".into();
    conventions.library = "libwidget.so.3".into();
    conventions
}

fn function(name: &str, symbol: &str) -> Function {
    Function {
        name: name.into(),
        symbol: symbol.into(),
        lookup_name: name.into(),
        per_thread_symbol: None,
        first_version: Some(1),
        per_thread_first_version: None,
        ret: Type::Typedef { name: "widget_status".into() },
        params: Vec::new(),
        deprecated: false,
        doc: None,
        header: None,
    }
}

fn api() -> Api {
    let constant = |name: &str, value| EnumConstant { name: name.into(), value, doc: None };
    Api {
        format_version: ctkgen_ir::FORMAT_VERSION,
        provenance: Provenance {
            header: "widget.h".into(),
            header_sha256: String::new(),
            ctk: None,
            cuda_version: None,
            target: "x86_64-unknown-linux-gnu".into(),
            language_modes: Vec::new(),
            libclang_version: String::new(),
            extra_headers: Vec::new(),
        },
        functions: vec![function("widgetLookup", "widgetLookup_v9"), function("widgetPoke", "widgetPoke")],
        records: Vec::new(),
        enums: vec![Enum {
            name: "widget_status".into(),
            typedef_names: vec!["widget_status".into()],
            underlying: Primitive::UnsignedInt,
            constants: vec![constant("WIDGET_MISSING", 3), constant("WIDGET_FINE", 7)],
            doc: None,
            header: None,
        }],
        typedefs: vec![Typedef {
            name: "widget_status".into(),
            ty: Type::Enum { name: "widget_status".into() },
            size: 4,
            align: 4,
            explicit_alignments: Vec::new(),
            system: false,
            doc: None,
            header: None,
        }],
        constants: Vec::new(),
    }
}

#[test]
fn names_and_success_value_come_from_the_conventions_and_the_ir() {
    let options = CythonOptions::new(conventions(), Overrides::default());
    let files = emit(&api(), &options).unwrap();
    let file = |suffix: &str| files.iter().find(|f| f.path.ends_with(suffix)).unwrap().contents.clone();
    let functions = file("_functions_0.pyx");
    assert!(functions.contains("cdef object _SUCCESS = _EC_widget_status(7)"), "{functions}");
    assert!(functions.contains("    if _err != 7:"), "{functions}");
    assert!(!functions.contains("_err != 0"), "{functions}");
    let loader = file("cydriver.pyx");
    assert!(loader.contains("dlsym(handle, \"widgetLookup_v9\")"), "{loader}");
    assert!(loader.contains("or \"libwidget.so.3\""), "{loader}");
    assert!(loader.contains("cdef widget_status widgetPoke() except ?WIDGET_MISSING nogil:"), "{loader}");
}

/// A library like NVRTC's: no versioned lookup, no version macro, no per-thread variants, a soname
/// that carries the toolkit's major version and is also looked for in a wheel's folder.
fn plain_library() -> LibraryConventions {
    let mut conventions = conventions();
    conventions.proc_address = None;
    conventions.per_thread = None;
    conventions.version_macro = None;
    conventions.python.per_thread_env_var = None;
    conventions.library = "libwidget.so.{major}".into();
    conventions.search.wheel_dirs.insert("4".into(), "widgets/lib".into());
    conventions.search.home_dirs = vec!["lib64".into()];
    conventions.python.module = "widget".into();
    conventions.python.cython_module = "cywidget".into();
    conventions
}

#[test]
fn a_library_without_lookup_or_version_macro_is_found_by_dlsym_and_its_major() {
    let mut api = api();
    api.provenance.ctk = Some("4.2.1".into());
    // A function that returns a string instead of the status type is wrapped too.
    let mut name = function("widgetName", "widgetName");
    name.ret = Type::Pointer { pointee: Box::new(Type::Primitive { name: Primitive::Char }), pointee_const: true };
    api.functions.push(name);
    let files = emit(&api, &CythonOptions::new(plain_library(), Overrides::default())).unwrap();
    let file = |suffix: &str| files.iter().find(|f| f.path.ends_with(suffix)).unwrap().contents.clone();
    let loader = file("/cywidget.pyx");
    assert!(!loader.contains("_get_proc_address"), "{loader}");
    assert!(loader.contains("\"widgets/lib\", \"libwidget.so.4\""), "{loader}");
    assert!(loader.contains("for sub in (\"lib64\", ):"), "{loader}");
    assert!(loader.contains("cdef const char * widgetName() except? NULL nogil:"), "{loader}");
    assert!(!loader.contains("_per_thread = os.environ"), "{loader}");
    let guard = file("/ctkgen_widget_layout_check.h");
    assert!(!guard.contains("#error"), "{guard}");
    let functions = file("/_widget_functions_0.pyx");
    assert!(functions.contains("return (_SUCCESS, None if _text == NULL else <bytes>_text)"), "{functions}");
    let stub = file("/widget.pyi");
    assert!(stub.contains("def widgetName() -> tuple[widget_status, Optional[bytes]]:"), "{stub}");
}

#[test]
fn a_soname_with_the_major_needs_a_known_major() {
    let error = emit(&api(), &CythonOptions::new(plain_library(), Overrides::default())).unwrap_err().to_string();
    assert!(error.contains("libwidget.so.{major}") && error.contains("widget.h"), "{error}");
}

/// `widgetFill(char *text, int len, unsigned kind, int lambda)`: `text` is filled up to `len`.
fn fill_api() -> Api {
    let mut api = api();
    let int = |name: Primitive| Type::Primitive { name };
    let param = |name: &str, ty: Type| ctkgen_ir::Param { name: name.into(), ty };
    let mut fill = function("widgetFill", "widgetFill");
    fill.params = vec![
        param("text", Type::Pointer { pointee: Box::new(int(Primitive::Char)), pointee_const: false }),
        param("len", int(Primitive::Int)),
        param("kind", int(Primitive::UnsignedInt)),
        param("lambda", int(Primitive::Int)),
    ];
    fill.doc = Some("\\brief Fills\n\n\\param text - Returned text\n\\param len - Room\n\\param kind - Kind\n".into());
    api.functions.push(fill);
    // Sorted by name, as the IR keeps its lists (lookups by name rely on it).
    api.sort();
    api
}

#[test]
fn parameter_names_follow_the_description_s_table_everywhere() {
    let mut conventions = conventions();
    conventions.python.parameter_names = [("len", "room"), ("kind", "sort")].map(|(c, p)| (c.into(), p.into())).into();
    let overrides = Overrides::parse("[widgetFill]\ntext = \"out_bytes(len)\"\n").unwrap();
    let files = emit(&fill_api(), &CythonOptions::new(conventions.clone(), overrides.clone())).unwrap();
    let file = |suffix: &str| files.iter().find(|f| f.path.ends_with(suffix)).unwrap().contents.clone();
    let functions = file("_functions_0.pyx");
    // Signature, docstring, messages and the output sized by the renamed count; a name not in
    // the table keeps the reserved-word rule.
    assert!(functions.contains("def widgetFill(object room, object sort, object lambda_):"), "{functions}");
    // The returned `text` is described under what the function returns, not as a parameter.
    assert!(
        functions.contains(
            ":param room: Room\n:param sort: Kind\n:returns:\n\n    - ``text`` (``bytes``): Returned text\"\"\""
        ),
        "{functions}"
    );
    assert!(functions.contains("_as_signed(room, 32, \"widgetFill: room\")"), "{functions}");
    assert!(functions.contains("_as_signed(room, sizeof(Py_ssize_t) * 8, \"widgetFill: text (length room)\")"));
    assert!(file("driver.pyi").contains("def widgetFill(room, sort, lambda_) -> tuple[widget_status, bytes]:"));
    // The Cython-level declaration keeps the C names.
    assert!(file("cydriver.pxd").contains("widgetFill(char *text, int len, unsigned int kind, int lambda_)"));

    // A spelling Python cannot take, or two parameters spelled alike, stop generation.
    for (to, problem) in [("class", "`kind` = `class`"), ("_kind", "`kind` = `_kind`"), ("room", "spelled `room`")] {
        let mut bad = conventions.clone();
        bad.python.parameter_names.insert("kind".into(), to.into());
        let error = emit(&fill_api(), &CythonOptions::new(bad, overrides.clone())).unwrap_err().to_string();
        assert!(error.contains(problem), "{error}");
    }
}

/// Every enum derives from the package's light enum base, imported from the private module the
/// package description names (the classes clients such as numba-cuda recognise); a package
/// described without private modules defines the same base in each enum module. Members are
/// listed by value, names of one value in the header's order.
#[test]
fn enums_derive_from_the_package_enum_base_and_list_members_by_value() {
    let mut api = api();
    let constant = |name: &str, value| EnumConstant { name: name.into(), value, doc: None };
    api.enums[0].constants = vec![
        constant("WIDGET_FINE", 7),
        constant("WIDGET_MISSING", 3),
        constant("WIDGET_OK", 7),
        constant("WIDGET_LOW", -1),
    ];
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/package.toml");
    let package = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let described = CythonOptions { package, ..CythonOptions::new(conventions(), Overrides::default()) };
    let files = emit(&api, &described).unwrap();
    let file = |files: &[ctkgen_ir::OutputFile], suffix: &str| {
        files.iter().find(|f| f.path.ends_with(suffix)).unwrap_or_else(|| panic!("no {suffix}")).contents.clone()
    };
    let enums = file(&files, "/_driver_enums.py");
    assert!(enums.contains("\nfrom ._internal._fast_enum import FastEnum as _FastEnum, _add_members\n"), "{enums}");
    assert!(!enums.contains("metaclass"), "{enums}");
    let order = ["(\"WIDGET_LOW\", -1,", "(\"WIDGET_MISSING\", 3,", "(\"WIDGET_FINE\", 7,", "(\"WIDGET_OK\", 7,"];
    let at: Vec<usize> = order.iter().map(|m| enums.find(m).unwrap_or_else(|| panic!("{m}: {enums}"))).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{enums}");
    assert!(file(&files, "/driver.pyi").contains("\nfrom ._internal._fast_enum import FastEnum as _FastEnum\n"));
    let base = file(&files, "/_internal/_fast_enum.py");
    for definition in [
        "\ndef _add_members(cls, members):",
        "\nclass FastEnumMetaclass(type):",
        "\nclass FastEnum(int, metaclass=FastEnumMetaclass):",
    ] {
        assert!(base.contains(definition), "{definition}: {base}");
    }
    let bare = emit(&api, &CythonOptions::new(conventions(), Overrides::default())).unwrap();
    let enums = file(&bare, "/_driver_enums.py");
    for definition in [
        "\ndef _add_members(cls, members):",
        "\nclass _FastEnumMetaclass(type):",
        "\nclass _FastEnum(int, metaclass=_FastEnumMetaclass):",
    ] {
        assert!(enums.contains(definition), "{definition}: {enums}");
    }
    assert!(!enums.contains("\nfrom ") && !enums.contains("\nimport "), "{enums}");
    assert!(file(&bare, "/driver.pyi").contains("\nclass _FastEnum(int):\n"));
    assert!(!bare.iter().any(|f| f.path.contains("/_internal/")));
}
