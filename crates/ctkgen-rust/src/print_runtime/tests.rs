//! The fixed runtime sources compiled against stand-ins for what the emitter puts beside them,
//! and exercised: the load failure, the search of an installed toolkit's folders, lazy
//! resolution and its cache, the versioned lookup and its fallback, the per-thread switch, the
//! text returned for an unreachable function, the bit helpers. The sources must also lex, as the
//! emitter parses them.

#[test]
fn the_fixed_sources_lex() {
    let sources = [
        (super::LOADER, "loader.rs"),
        (super::OPEN, "open.rs"),
        (super::SEARCH, "search.rs"),
        (super::STATUS, "status.rs"),
        (super::PER_THREAD, "per_thread.rs"),
        (super::ENTRIES, "entries.rs"),
        (super::TEXT, "text.rs"),
        (super::BITS, "bits.rs"),
    ];
    for (source, file) in sources {
        assert!(!super::fixed(source, file).unwrap().is_empty(), "{file}");
    }
}

/// The runtime as the emitter puts it together: `open` (the system loader alone) or `search`
/// (an installed toolkit's folders first), and the per-thread switch or its stand-in.
macro_rules! runtime_sources {
    (open, per_thread) => {
        include!("../../runtime/loader.rs");
        include!("../../runtime/open.rs");
        include!("../../runtime/status.rs");
        include!("../../runtime/per_thread.rs");
        include!("../../runtime/entries.rs");
        include!("../../runtime/text.rs");
    };
    (search, no_per_thread) => {
        include!("../../runtime/loader.rs");
        include!("../../runtime/search.rs");
        include!("../../runtime/status.rs");
        fn per_thread_default_stream() -> bool {
            false
        }
        include!("../../runtime/entries.rs");
        include!("../../runtime/text.rs");
    };
}

/// A library that is not there.
mod absent {
    static FUNCTIONS: [runtime::Entry; 1] = [runtime::Entry::new(c"f", c"f", Some(1), None)];

    fn entry_named(name: &str) -> Option<&'static runtime::Entry> {
        (name == "f").then(|| &FUNCTIONS[0])
    }

    #[allow(dead_code, reason = "this stand-in exercises only the load failure")]
    mod runtime {
        pub const LIBRARY: &str = "libctkgen-test-no-such-library.so";
        const LIBRARY_DESCRIPTION: &str = "test library";
        const PER_THREAD_ENV_VAR: &str = "CTKGEN_RUNTIME_TEST_UNSET";
        const LOOKUP_SYMBOL: Option<&CStr> = None;

        fn lookup_versioned(
            _lookup: *mut c_void,
            _name: &CStr,
            _version: u32,
            _per_thread: bool,
        ) -> Option<*mut c_void> {
            unreachable!("there is no lookup")
        }

        runtime_sources!(open, per_thread);

        #[test]
        fn a_missing_library_is_an_error_that_names_it() {
            let error = library_status().unwrap_err();
            assert_eq!(error.library(), LIBRARY);
            assert!(!error.reason().is_empty());
            let text = error.to_string();
            assert!(text.starts_with("test library not found (libctkgen-test-no-such-library.so: "), "{text}");
            assert_eq!(text.matches(LIBRARY).count(), 1, "the library is named once: {text}");
            assert_eq!(function_available("f"), Err(error.clone()));
            assert_eq!(function_available("unknown"), Err(error));
            assert_eq!(super::FUNCTIONS[0].address(), Err(Missing::Library));
        }

        #[test]
        fn text_for_a_missing_library_is_the_load_error() {
            let text = unreachable_text(Missing::Library);
            // SAFETY: the runtime returns a NUL-terminated string that lives as long as the process.
            let text = unsafe { CStr::from_ptr(text) }.to_str().unwrap();
            assert_eq!(text, library_status().unwrap_err().to_string());
            assert_eq!(unreachable_text(Missing::Library), unreachable_text(Missing::Library), "made once");
        }
    }
}

/// The C library stands in for the bound library: its functions are the entry points, `getpid`
/// the versioned lookup.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod present {
    use std::ffi::{c_char, c_long};

    static FUNCTIONS: [runtime::Entry; 4] = [
        // Found through the lookup, which answers with `labs`.
        runtime::Entry::new(c"abs_by_lookup", c"abs", Some(2), None),
        runtime::Entry::new(c"missing", c"ctkgen_no_such_symbol", None, None),
        // The lookup knows nothing before version 2: found by its symbol.
        runtime::Entry::new(c"strlen", c"strlen", Some(1), None),
        runtime::Entry::new(c"strlen", c"strlen", None, Some((c"strnlen", None))),
    ];

    /// As the emitter writes it: a match on the names.
    fn entry_named(name: &str) -> Option<&'static runtime::Entry> {
        match name {
            "abs" => Some(&FUNCTIONS[ABS]),
            "missing" => Some(&FUNCTIONS[MISSING]),
            "strlen" => Some(&FUNCTIONS[STRLEN]),
            "strlen_or_per_thread" => Some(&FUNCTIONS[PER_THREAD]),
            _ => None,
        }
    }

    const ABS: usize = 0;
    const MISSING: usize = 1;
    const STRLEN: usize = 2;
    const PER_THREAD: usize = 3;

    #[allow(dead_code, reason = "the stand-in leaves parts of the runtime unused")]
    mod runtime {
        use std::sync::atomic::{AtomicUsize, Ordering};

        pub const LIBRARY: &str = "libc.so.6";
        const LIBRARY_DESCRIPTION: &str = "C library";
        const PER_THREAD_ENV_VAR: &str = "CTKGEN_RUNTIME_TEST_PER_THREAD";
        const LOOKUP_SYMBOL: Option<&CStr> = Some(c"getpid");

        /// How often the lookup was asked for `abs_by_lookup`.
        pub static ABS_LOOKUPS: AtomicUsize = AtomicUsize::new(0);

        fn lookup_versioned(lookup: *mut c_void, name: &CStr, version: u32, per_thread: bool) -> Option<*mut c_void> {
            let library = &loaded().ok()?.library;
            assert_eq!(Some(lookup), symbol(library, c"getpid"));
            assert!(!per_thread);
            if name == c"abs_by_lookup" {
                ABS_LOOKUPS.fetch_add(1, Ordering::Relaxed);
            }
            (version >= 2).then(|| symbol(library, c"labs")).flatten()
        }

        runtime_sources!(open, per_thread);

        /// The address the library gives `name`.
        pub fn address_of(name: &CStr) -> *mut c_void {
            symbol(&loaded().unwrap().library, name).unwrap()
        }

        /// What a function returning text gives for an entry point the library lacks.
        pub fn text_for_a_missing_function() -> String {
            // SAFETY: the runtime returns a NUL-terminated string that lives as long as the process.
            unsafe { CStr::from_ptr(unreachable_text(Missing::Function)) }.to_str().unwrap().to_string()
        }

        pub fn switch(value: &str) -> bool {
            switched_on(value)
        }

        pub const MISSING_FUNCTION: Result<*mut c_void, Missing> = Err(Missing::Function);
    }

    #[test]
    fn the_library_loads() {
        assert_eq!(runtime::library_status(), Ok(()));
        assert_eq!(runtime::function_available("strlen"), Ok(true));
        assert_eq!(runtime::function_available("missing"), Ok(false));
        assert_eq!(runtime::function_available("not_in_the_table"), Ok(false));
    }

    #[test]
    fn a_versioned_entry_is_resolved_by_the_lookup_once() {
        let entry = &FUNCTIONS[ABS];
        let first = entry.address().unwrap();
        assert_eq!(first, runtime::address_of(c"labs"));
        for _ in 0..3 {
            assert_eq!(entry.address(), Ok(first));
        }
        assert_eq!(runtime::ABS_LOOKUPS.load(std::sync::atomic::Ordering::Relaxed), 1);
        // SAFETY: the entry resolved to `labs`, of this type.
        let labs = unsafe { entry.function::<unsafe extern "C" fn(c_long) -> c_long>() }.unwrap();
        // SAFETY: `labs` takes any value.
        assert_eq!(unsafe { labs(-5) }, 5);
    }

    #[test]
    fn an_entry_the_lookup_lacks_falls_back_to_its_symbol() {
        let entry = &FUNCTIONS[STRLEN];
        assert_eq!(entry.address(), Ok(runtime::address_of(c"strlen")));
        // SAFETY: `strlen` has this type.
        let strlen = unsafe { entry.function::<unsafe extern "C" fn(*const c_char) -> usize>() }.unwrap();
        // SAFETY: the argument is NUL-terminated.
        assert_eq!(unsafe { strlen(c"four".as_ptr()) }, 4);
    }

    #[test]
    fn a_missing_symbol_is_a_missing_function() {
        assert_eq!(FUNCTIONS[MISSING].address(), runtime::MISSING_FUNCTION);
        // SAFETY: never called.
        assert!(unsafe { FUNCTIONS[MISSING].function::<unsafe extern "C" fn()>() }.is_err());
    }

    #[test]
    fn text_for_a_missing_function_names_the_library() {
        assert_eq!(runtime::text_for_a_missing_function(), "entry point not found in libc.so.6");
    }

    #[test]
    fn the_switch_reads_non_zero_integers_as_on() {
        for on in ["1", " 2\n", "-1"] {
            assert!(runtime::switch(on), "{on:?}");
        }
        for off in ["0", "", "yes", "1.0", "on"] {
            assert!(!runtime::switch(off), "{off:?}");
        }
    }

    /// Set in the child process this test starts with the switch on.
    const CHILD: &str = "CTKGEN_RUNTIME_TEST_CHILD";

    /// The switch is read once per process, so the variant is checked in a child process that
    /// runs only this test, with the variable set.
    #[test]
    fn the_per_thread_variant_is_used_when_the_switch_is_on() {
        if std::env::var_os(CHILD).is_some() {
            assert!(runtime::per_thread_default_stream());
            assert_eq!(FUNCTIONS[PER_THREAD].address(), Ok(runtime::address_of(c"strnlen")));
            return;
        }
        // In this process the variable is unset: the plain symbol.
        assert!(!runtime::per_thread_default_stream());
        assert_eq!(FUNCTIONS[PER_THREAD].address(), Ok(runtime::address_of(c"strlen")));
        let path = module_path!().split_once("::").unwrap().1;
        let name = format!("{path}::the_per_thread_variant_is_used_when_the_switch_is_on");
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name.as_str(), "--exact", "--test-threads=1"])
            .env(CHILD, "1")
            .env("CTKGEN_RUNTIME_TEST_PER_THREAD", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
        assert!(stdout.contains("1 passed"), "the child ran no test:\n{stdout}");
    }
}

/// A library the system loader cannot find, found in an installed toolkit's folders: the first
/// of `HOME_DIRS` that holds it, under the folder the variable names. Links in those folders
/// stand in for the library: to the C maths library (which has `cos`) or the C library (which
/// has not). The runtime here has no per-thread switch.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod searched {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// `cos` has a per-thread variant, which a runtime without the switch never takes.
    static FUNCTIONS: [runtime::Entry; 1] = [runtime::Entry::new(c"cos", c"cos", None, Some((c"sin", None)))];

    fn entry_named(name: &str) -> Option<&'static runtime::Entry> {
        (name == "cos").then(|| &FUNCTIONS[0])
    }

    #[allow(dead_code, reason = "the stand-in leaves parts of the runtime unused")]
    mod runtime {
        pub const LIBRARY: &str = "libctkgen-runtime-test-searched.so";
        const LIBRARY_DESCRIPTION: &str = "searched test library";
        pub const HOME_ENV_VAR: &str = "CTKGEN_RUNTIME_TEST_HOME";
        const HOME_DIRS: &[&str] = &["lib64", "lib"];
        const LOOKUP_SYMBOL: Option<&CStr> = None;

        fn lookup_versioned(
            _lookup: *mut c_void,
            _name: &CStr,
            _version: u32,
            _per_thread: bool,
        ) -> Option<*mut c_void> {
            unreachable!("there is no lookup")
        }

        runtime_sources!(search, no_per_thread);

        /// The address the loaded library gives `name`, if it loaded and has it.
        pub fn address_of(name: &CStr) -> Option<*mut c_void> {
            symbol(&loaded().ok()?.library, name)
        }
    }

    /// Set in the child processes, to what the child must find: `maths` or `nothing`.
    const EXPECT: &str = "CTKGEN_RUNTIME_TEST_EXPECT";

    /// The file the process maps for the library whose file name starts with one of `stems`.
    fn mapped(stems: &[&str]) -> PathBuf {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let path = maps.lines().filter_map(|line| line.split_whitespace().nth(5)).find(|path| {
            let name = Path::new(path).file_name().and_then(|n| n.to_str()).unwrap_or("");
            stems.iter().any(|stem| name.starts_with(stem))
        });
        PathBuf::from(path.unwrap_or_else(|| panic!("none of {stems:?} is mapped")))
    }

    /// Runs this test again in a child process, with the toolkit variable set to `home`.
    fn child(home: &Path, current_dir: &Path, expect: &str) {
        let path = module_path!().split_once("::").unwrap().1;
        let name = format!("{path}::the_toolkit_folders_come_first_in_order");
        let output = Command::new(std::env::current_exe().unwrap())
            .args([name.as_str(), "--exact", "--test-threads=1"])
            .current_dir(current_dir)
            .env(EXPECT, expect)
            .env(runtime::HOME_ENV_VAR, home)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{home:?}: {stdout}{}", String::from_utf8_lossy(&output.stderr));
        assert!(stdout.contains("1 passed"), "the child ran no test:\n{stdout}");
    }

    #[test]
    fn the_toolkit_folders_come_first_in_order() {
        match std::env::var(EXPECT).as_deref() {
            Ok("maths") => {
                assert_eq!(runtime::library_status(), Ok(()));
                let cos = runtime::address_of(c"cos").expect("the maths library was loaded");
                assert_eq!(FUNCTIONS[0].address(), Ok(cos), "the default symbol, not the per-thread one");
                return;
            }
            Ok("nothing") => {
                let error = runtime::library_status().unwrap_err();
                assert!(error.reason().contains(runtime::LIBRARY), "{error}");
                return;
            }
            _ => {}
        }
        // Without the variable only the system loader is asked, and it knows no such library.
        assert!(std::env::var_os(runtime::HOME_ENV_VAR).is_none());
        let error = runtime::library_status().unwrap_err();
        assert!(error.to_string().starts_with("searched test library not found ("), "{error}");
        assert_eq!(FUNCTIONS[0].address(), Err(runtime::Missing::Library));

        // SAFETY: the C maths library's initialisers need nothing from us.
        let _maths = unsafe { libloading::Library::new("libm.so.6") }.unwrap();
        let (maths, c) = (mapped(&["libm.so", "libm-"]), mapped(&["libc.so", "libc-"]));
        let dir = tempfile::tempdir().unwrap();
        let link = |home: &str, folder: &str, target: &Path| {
            let folder = dir.path().join(home).join(folder);
            std::fs::create_dir_all(&folder).unwrap();
            std::os::unix::fs::symlink(target, folder.join(runtime::LIBRARY)).unwrap();
        };
        // Both folders hold a copy: the first one listed is loaded.
        link("both", "lib64", &maths);
        link("both", "lib", &c);
        child(&dir.path().join("both"), dir.path(), "maths");
        // Only the second folder holds one.
        link("second", "lib", &maths);
        child(&dir.path().join("second"), dir.path(), "maths");
        // An empty value names no folder, though relative paths would reach a copy from here.
        child(Path::new(""), &dir.path().join("both"), "nothing");
    }
}

/// The bit helpers on their own: they need nothing from the rest of the runtime.
mod bits {
    #[allow(dead_code, reason = "not every conversion is exercised")]
    mod runtime {
        include!("../../runtime/bits.rs");

        #[test]
        fn bits_round_trip_across_byte_boundaries() {
            let mut unit = [0u8; 4];
            set_bits(&mut unit, 5, 7, 0b101_1011);
            assert_eq!(get_bits(&unit, 5, 7), 0b101_1011);
            assert_eq!(unit, [0b0110_0000, 0b0000_1011, 0, 0]);
            // Writing one field leaves its neighbours alone.
            set_bits(&mut unit, 12, 3, 0b111);
            set_bits(&mut unit, 5, 7, 0);
            assert_eq!(get_bits(&unit, 12, 3), 0b111);
            assert_eq!(unit, [0, 0b0111_0000, 0, 0]);
            // Only the low `width` bits of the value are written.
            set_bits(&mut unit, 24, 4, u64::MAX);
            assert_eq!(unit[3], 0b0000_1111);
        }

        #[test]
        fn a_whole_u64_unit_round_trips() {
            let mut unit = [0u8; 8];
            let value = 0x0123_4567_89ab_cdef_u64;
            set_bits(&mut unit, 0, u64::BITS, value);
            assert_eq!(unit, value.to_le_bytes());
            assert_eq!(get_bits(&unit, 0, u64::BITS), value);
            assert_eq!(u64::from_bits(value, u64::BITS), value);
            assert_eq!(i64::from_bits(u64::MAX, u64::BITS), -1);
        }

        #[test]
        fn signed_fields_are_sign_extended() {
            assert_eq!(i8::from_bits(0b101, 3), -3);
            assert_eq!(i8::from_bits(0b011, 3), 3);
            assert_eq!(i32::from_bits(0b1, 1), -1);
            assert_eq!(isize::from_bits(0xff, 9), 0xff);
            assert_eq!((-3i8).to_bits() & 0b111, 0b101);
            assert_eq!(u16::from_bits(0xbeef, 16), 0xbeef);
            assert!(bool::from_bits(1, 1));
            assert_eq!(true.to_bits(), 1);
        }
    }
}
