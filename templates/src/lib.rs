//! The templates of the ctkgen emitters, embedded so that generation does not depend on the
//! folder it runs in. The `.j2` files sit beside this crate (`templates/cython/`), where they
//! are edited; this crate only makes them a package of their own. They hold no name of the
//! library they print bindings for: that comes from the IR and the library's conventions.
//! `cython/runtime/` holds the Python package's shared runtime as real Cython source, emitted as
//! written (after the generated files' first line).

/// Every template of the Cython emitter, by file name.
pub const CYTHON: &[(&str, &str)] = &[
    ("cylib.pxd.j2", include_str!("../cython/cylib.pxd.j2")),
    ("cylib.pyx.j2", include_str!("../cython/cylib.pyx.j2")),
    ("ctkgen_types.h.j2", include_str!("../cython/ctkgen_types.h.j2")),
    ("ctkgen_layout_check.h.j2", include_str!("../cython/ctkgen_layout_check.h.j2")),
    ("_base_config.pxi.j2", include_str!("../cython/_base_config.pxi.j2")),
    ("_types.pxd.j2", include_str!("../cython/_types.pxd.j2")),
    ("_types.pyx.j2", include_str!("../cython/_types.pyx.j2")),
    ("_records.pyx.j2", include_str!("../cython/_records.pyx.j2")),
    ("_functions.pyx.j2", include_str!("../cython/_functions.pyx.j2")),
    ("_raise_functions.pyx.j2", include_str!("../cython/_raise_functions.pyx.j2")),
    ("raise_module.py.j2", include_str!("../cython/raise_module.py.j2")),
    ("raise_module.pyi.j2", include_str!("../cython/raise_module.pyi.j2")),
    ("_internal.py.j2", include_str!("../cython/_internal.py.j2")),
    ("_enums.py.j2", include_str!("../cython/_enums.py.j2")),
    ("_fast_enum.j2", include_str!("../cython/_fast_enum.j2")),
    ("module.py.j2", include_str!("../cython/module.py.j2")),
    ("module.pyi.j2", include_str!("../cython/module.pyi.j2")),
    ("__init__.py.j2", include_str!("../cython/__init__.py.j2")),
    ("utils.py.j2", include_str!("../cython/utils.py.j2")),
    ("utils.pyi.j2", include_str!("../cython/utils.pyi.j2")),
    ("_version.py.j2", include_str!("../cython/_version.py.j2")),
    ("_internal_init.py.j2", include_str!("../cython/_internal_init.py.j2")),
    ("_internal_errors.py.j2", include_str!("../cython/_internal_errors.py.j2")),
    ("_internal_enum.py.j2", include_str!("../cython/_internal_enum.py.j2")),
    ("setup.py.j2", include_str!("../cython/setup.py.j2")),
    ("pyproject.toml.j2", include_str!("../cython/pyproject.toml.j2")),
    ("MANIFEST.in.j2", include_str!("../cython/MANIFEST.in.j2")),
    ("README.md.j2", include_str!("../cython/README.md.j2")),
    ("report.txt.j2", include_str!("../cython/report.txt.j2")),
];

/// The Python package's build requirements, one pinned `name==version` a line (`#` comments):
/// its `pyproject.toml` requires them, and the Python test suite installs the same file.
pub const CYTHON_BUILD_REQUIREMENTS: &str = include_str!("../cython/build-requirements.txt");

/// The Python package's shared runtime, real Cython source: every library's modules cimport
/// it. By file name in the package.
pub const CYTHON_RUNTIME: &[(&str, &str)] = &[
    ("_base.pxd", include_str!("../cython/runtime/_base.pxd")),
    ("_base.pyx", include_str!("../cython/runtime/_base.pyx")),
];
