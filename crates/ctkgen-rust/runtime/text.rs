// For functions that return a C string rather than a status: what they return when their entry
// point cannot be reached (see `loader.rs` for how the runtime's pieces fit together).

/// What a function returning a C string returns when it cannot be reached: the reason, as a C
/// string that lives as long as the process (never null, so a caller printing it reads why).
#[cold]
pub(crate) fn unreachable_text(missing: Missing) -> *const ::core::ffi::c_char {
    static LIBRARY_MISSING: OnceLock<::std::ffi::CString> = OnceLock::new();
    static FUNCTION_MISSING: OnceLock<::std::ffi::CString> = OnceLock::new();
    let text = match (missing, loaded()) {
        (Missing::Library, Err(error)) => LIBRARY_MISSING.get_or_init(|| c_text(&error.to_string())),
        _ => FUNCTION_MISSING.get_or_init(|| c_text(&format!("entry point not found in {LIBRARY}"))),
    };
    text.as_ptr()
}

/// `text` as a C string; a NUL byte (which no loader message has) would end it early, so it goes.
fn c_text(text: &str) -> ::std::ffi::CString {
    ::std::ffi::CString::new(text.replace('\0', "")).unwrap_or_default()
}
