// The generated crate's `runtime` module is the same for every header but for a few pieces, so it
// is real source in this folder, emitted as written (`include_str!`, then parsed) in this order:
//
// - `loader.rs` (this file): the load error and the library, loaded once;
// - `open.rs` or `search.rs`: `load`, which opens the library by its file name through the system
//   loader alone, or first in the folders of an installed toolkit;
// - `status.rs`: what the loaded library has;
// - `per_thread.rs`, for libraries with per-thread-default-stream variants (for the others the
//   emitter writes in its place a private `per_thread_default_stream` that is always `false`);
// - `entries.rs`: each entry point, resolved on its first call;
// - then the emitter's items (below), then `text.rs` for headers with functions that return a C
//   string, and `bits.rs` for headers with bitfields.
//
// The files hold no `//!` docs and no name of the bound library; the emitter puts beside them
// what varies with the input:
//
// - `LIBRARY` and `LIBRARY_DESCRIPTION`, with `per_thread.rs` `PER_THREAD_ENV_VAR`, and with
//   `search.rs` `HOME_ENV_VAR` and `HOME_DIRS`, from the library's conventions;
// - `LOOKUP_SYMBOL`, the symbol of the versioned entry-point lookup, and
//   `fn lookup_versioned(lookup: *mut c_void, name: &CStr, version: u32, per_thread: bool)
//   -> Option<*mut c_void>`, which calls it (or, without one, returns `None`);
// - in the crate root, a `static` `Entry` per function and `fn entry_named(name: &str) ->
//   Option<&'static runtime::Entry>`, which finds a function's entry by its name.
//
// Comments like these are dropped when the files are emitted; only `///` docs reach the output.
// The emitter's tests compile these files against stand-ins for those items and exercise them.

use ::std::ffi::{c_void, CStr};
use ::std::sync::OnceLock;

/// Why the library could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    reason: String,
}

impl LoadError {
    /// The library that was looked for.
    pub fn library(&self) -> &'static str {
        LIBRARY
    }

    /// What the dynamic loader said.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl ::core::fmt::Display for LoadError {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        // The loader's own message usually starts with the library's name already.
        if self.reason.starts_with(LIBRARY) {
            write!(f, "{} not found ({})", LIBRARY_DESCRIPTION, self.reason)
        } else {
            write!(f, "{} not found ({}: {})", LIBRARY_DESCRIPTION, LIBRARY, self.reason)
        }
    }
}

impl ::std::error::Error for LoadError {}

struct Loaded {
    library: ::libloading::Library,
    /// The versioned entry-point lookup, when the header has one and the library exports it.
    lookup: Option<Address>,
}

static LOADED: OnceLock<Result<Loaded, LoadError>> = OnceLock::new();

fn loaded() -> Result<&'static Loaded, &'static LoadError> {
    LOADED.get_or_init(load).as_ref()
}
