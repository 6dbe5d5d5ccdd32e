//! libclang's clean pages can be dropped from the process once parsing is done
//! (`ctkgen_clang::release_libclang_pages`); a later parse reads them back from the file and
//! gives the same model.

mod common;

#[test]
fn parsing_after_releasing_libclang_pages_gives_the_same_model() {
    let before = common::fixture("headers/functions_enums.h").expect("first parse");
    let released = ctkgen_clang::release_libclang_pages();
    assert!(released > 0, "no libclang pages were released");
    let after = common::fixture("headers/functions_enums.h").expect("parse after the release");
    assert_eq!(before, after);
}

#[test]
fn a_thread_that_never_parsed_can_release_the_pages() {
    common::fixture("headers/functions_enums.h").expect("parse");
    // clang-sys keeps its library handle per thread: the release must not depend on it.
    let released = std::thread::spawn(ctkgen_clang::release_libclang_pages).join().expect("release thread");
    assert!(released > 0, "a thread that did not parse released no libclang pages");
}
