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
