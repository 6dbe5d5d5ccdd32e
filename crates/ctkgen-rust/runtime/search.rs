// `load` for a library that an installed toolkit may hold outside the system loader's path: the
// folders `HOME_DIRS` under the folder `HOME_ENV_VAR` names come first (see `loader.rs` for how
// the runtime's pieces fit together).

fn load() -> Result<Loaded, LoadError> {
    let library = match installed() {
        Some(library) => library,
        // SAFETY: opening the library runs its initialisers, which need nothing from us.
        None => {
            unsafe { ::libloading::Library::new(LIBRARY) }.map_err(|error| LoadError { reason: error.to_string() })?
        }
    };
    let lookup = LOOKUP_SYMBOL.and_then(|name| symbol(&library, name)).map(Address);
    Ok(Loaded { library, lookup })
}

/// The library from the first of the toolkit's folders that has it, when the toolkit's
/// environment variable names one. A copy that does not load is passed over, as the system
/// loader's path is still to be tried.
fn installed() -> Option<::libloading::Library> {
    // An empty value names no folder; joined, it would make the paths relative.
    let home = ::std::env::var_os(HOME_ENV_VAR).filter(|home| !home.is_empty())?;
    HOME_DIRS.iter().find_map(|dir| {
        let path = ::std::path::Path::new(&home).join(dir).join(LIBRARY);
        // SAFETY: as for the system loader's copy: its initialisers need nothing from us.
        unsafe { ::libloading::Library::new(path) }.ok()
    })
}
