// `load` for a library found by its file name alone, through the system loader's path (see
// `loader.rs` for how the runtime's pieces fit together).

fn load() -> Result<Loaded, LoadError> {
    // SAFETY: opening the library runs its initialisers, which need nothing from us.
    let library =
        unsafe { ::libloading::Library::new(LIBRARY) }.map_err(|error| LoadError { reason: error.to_string() })?;
    let lookup = LOOKUP_SYMBOL.and_then(|name| symbol(&library, name)).map(Address);
    Ok(Loaded { library, lookup })
}
