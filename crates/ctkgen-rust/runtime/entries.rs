// Each entry point, resolved on its first call and cached (see `loader.rs` for how the
// runtime's pieces fit together).

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

/// How one function is found (its lookup name, symbol and versions), and its address once
/// resolved.
pub(crate) struct Entry {
    lookup: &'static CStr,
    symbol: &'static CStr,
    version: Option<u32>,
    per_thread: Option<(&'static CStr, Option<u32>)>,
    address: OnceLock<Result<Address, Missing>>,
}

impl Entry {
    pub(crate) const fn new(
        lookup: &'static CStr,
        symbol: &'static CStr,
        version: Option<u32>,
        per_thread: Option<(&'static CStr, Option<u32>)>,
    ) -> Self {
        Entry { lookup, symbol, version, per_thread, address: OnceLock::new() }
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
        let loaded = loaded().map_err(|_| Missing::Library)?;
        let (symbol_name, version, per_thread) = match self.per_thread {
            Some((symbol_name, version)) if per_thread_default_stream() => (symbol_name, version, true),
            _ => (self.symbol, self.version, false),
        };
        if let (Some(lookup), Some(version)) = (loaded.lookup, version) {
            if let Some(address) = lookup_versioned(lookup.0, self.lookup, version, per_thread) {
                return Ok(Address(address));
            }
        }
        symbol(&loaded.library, symbol_name).map(Address).ok_or(Missing::Function)
    }
}
