// The generated crate's `runtime` module, the part that is the same for every header: opening
// the library once, resolving each entry point on its first call, the per-thread-default-stream
// switch. It is emitted as written (`include_str!`, then parsed), so it holds no `//!` docs and
// no name of the bound library; the emitter puts beside it what varies with the input:
//
// - `LIBRARY`, `LIBRARY_DESCRIPTION` and `PER_THREAD_ENV_VAR`, from the library's conventions;
// - `LOOKUP_SYMBOL`, the symbol of the versioned entry-point lookup, and
//   `fn lookup_versioned(lookup: *mut c_void, name: &CStr, version: u32, per_thread: bool)
//   -> Option<*mut c_void>`, which calls it (or, without one, returns `None`);
// - the crate root's `FUNCTIONS: [runtime::Entry; N]`, sorted by name.
//
// Comments like these are dropped when the file is emitted; only `///` docs reach the output.
// The emitter's tests compile this file against stand-ins for those items and exercise it.

use ::std::ffi::{c_void, CStr};
use ::std::sync::OnceLock;

/// Why the driver library could not be loaded.
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

struct Driver {
    library: ::libloading::Library,
    /// The versioned entry-point lookup, when the header has one and the library exports it.
    lookup: Option<Address>,
}

static DRIVER: OnceLock<Result<Driver, LoadError>> = OnceLock::new();

fn driver() -> Result<&'static Driver, &'static LoadError> {
    DRIVER.get_or_init(load).as_ref()
}

fn load() -> Result<Driver, LoadError> {
    // SAFETY: opening the driver runs its initialisers, which need nothing from us.
    let library =
        unsafe { ::libloading::Library::new(LIBRARY) }.map_err(|error| LoadError { reason: error.to_string() })?;
    let lookup = LOOKUP_SYMBOL.and_then(|name| symbol(&library, name)).map(Address);
    Ok(Driver { library, lookup })
}

/// The address of an exported symbol, if the library has it.
fn symbol(library: &::libloading::Library, name: &CStr) -> Option<*mut c_void> {
    // SAFETY: the symbol is only read as an address here; callers give it its type.
    let symbol = unsafe { library.get::<*mut c_void>(name.to_bytes_with_nul()) }.ok()?;
    let address = *symbol;
    (!address.is_null()).then_some(address)
}

/// Whether the driver library loads; the error names the library and says why not.
pub fn driver_status() -> Result<(), LoadError> {
    driver().map(|_| ()).map_err(Clone::clone)
}

/// Whether the driver has the entry point `name` (a documented function name).
/// `Ok(false)` for a function the driver lacks or the bindings do not know.
pub fn function_available(name: &str) -> Result<bool, LoadError> {
    driver_status()?;
    Ok(match super::FUNCTIONS.binary_search_by(|entry| entry.name.to_bytes().cmp(name.as_bytes())) {
        Ok(index) => super::FUNCTIONS[index].address().is_ok(),
        Err(_) => false,
    })
}

/// Whether functions with a per-thread-default-stream variant use it. Read once from
/// the environment variable, as C code decides it once at compile time.
pub fn per_thread_default_stream() -> bool {
    static SELECTED: OnceLock<bool> = OnceLock::new();
    *SELECTED.get_or_init(|| ::std::env::var(PER_THREAD_ENV_VAR).is_ok_and(|value| switched_on(&value)))
}

/// Whether an environment variable's value turns a switch on: a non-zero integer, as C reads it.
fn switched_on(value: &str) -> bool {
    value.trim().parse::<i64>().is_ok_and(|n| n != 0)
}

/// Why an entry point cannot be called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Missing {
    Library,
    Function,
}

#[derive(Clone, Copy)]
struct Address(*mut c_void);

// SAFETY: an entry point's address is immutable and valid process-wide.
unsafe impl Send for Address {}
// SAFETY: as above.
unsafe impl Sync for Address {}

/// One function's names and versions, and its address once resolved.
pub(crate) struct Entry {
    name: &'static CStr,
    lookup: &'static CStr,
    symbol: &'static CStr,
    version: Option<u32>,
    per_thread: Option<(&'static CStr, Option<u32>)>,
    address: OnceLock<Result<Address, Missing>>,
}

impl Entry {
    pub(crate) const fn new(
        name: &'static CStr,
        lookup: &'static CStr,
        symbol: &'static CStr,
        version: Option<u32>,
        per_thread: Option<(&'static CStr, Option<u32>)>,
    ) -> Self {
        Entry { name, lookup, symbol, version, per_thread, address: OnceLock::new() }
    }

    /// The entry point, resolved on the first call and cached.
    #[inline]
    pub(crate) fn address(&self) -> Result<*mut c_void, Missing> {
        self.address.get_or_init(|| self.resolve()).map(|address| address.0)
    }

    /// The entry point as a function pointer of type `F`.
    ///
    /// # Safety
    ///
    /// `F` must be the `unsafe extern "C" fn` type of this entry's C signature.
    #[inline]
    pub(crate) unsafe fn function<F: Copy>(&self) -> Result<F, Missing> {
        // A plain `if`, not `assert!`: its tokens print as code, not as macro input.
        const {
            if ::core::mem::size_of::<F>() != ::core::mem::size_of::<*mut c_void>() {
                panic!("`F` must be a function pointer type");
            }
        };
        let address = self.address()?;
        // SAFETY: `F` is a function pointer type (the caller's promise, and the size
        // check above), and the address is that function's entry point.
        Ok(unsafe { ::core::mem::transmute_copy::<*mut c_void, F>(&address) })
    }

    fn resolve(&self) -> Result<Address, Missing> {
        let driver = driver().map_err(|_| Missing::Library)?;
        let (symbol_name, version, per_thread) = match self.per_thread {
            Some((symbol_name, version)) if per_thread_default_stream() => (symbol_name, version, true),
            _ => (self.symbol, self.version, false),
        };
        if let (Some(lookup), Some(version)) = (driver.lookup, version) {
            if let Some(address) = lookup_versioned(lookup.0, self.lookup, version, per_thread) {
                return Ok(Address(address));
            }
        }
        symbol(&driver.library, symbol_name).map(Address).ok_or(Missing::Function)
    }
}
