// What the loaded library has (see `loader.rs` for how the runtime's pieces fit together).

/// The address of an exported symbol, if the library has it.
fn symbol(library: &::libloading::Library, name: &CStr) -> Option<*mut c_void> {
    // SAFETY: the symbol is only read as an address here; callers give it its type.
    let symbol = unsafe { library.get::<*mut c_void>(name.to_bytes_with_nul()) }.ok()?;
    let address = *symbol;
    (!address.is_null()).then_some(address)
}

/// Whether the library loads; the error names the library and says why not.
pub fn library_status() -> Result<(), LoadError> {
    loaded().map(|_| ()).map_err(Clone::clone)
}

/// Whether the library has the entry point `name` (a documented function name).
/// `Ok(false)` for a function the library lacks or the bindings do not know.
pub fn function_available(name: &str) -> Result<bool, LoadError> {
    library_status()?;
    Ok(super::entry_named(name).is_some_and(|entry| entry.address().is_ok()))
}
