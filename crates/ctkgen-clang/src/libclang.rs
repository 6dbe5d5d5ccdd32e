//! The one unsafe boundary: safe wrappers over the libclang calls ctkgen uses.
//!
//! Every `CXString` is turned into a `String` and disposed here; nothing outside this module
//! sees a raw pointer. Cursors and types borrow the translation unit they came from.

use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::{c_char, c_uint, c_void};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use clang_sys::*;

/// How far [`TranslationUnit::find_token`] tokenizes before it tokenizes a whole range: past a
/// record's or enum's keyword, attributes and tag name.
const TOKEN_PREFIX_BYTES: u32 = 256;

/// The libclang this process opened. clang-sys keeps the library per thread; this is the one
/// handle every thread shares.
static LIBRARY: OnceLock<Mutex<Option<Arc<SharedLibrary>>>> = OnceLock::new();

/// libclang, opened once per process and shared with every thread that parses.
pub fn ensure_loaded(path: &Path) -> Result<(), String> {
    if is_loaded() {
        return Ok(());
    }
    let slot = LIBRARY.get_or_init(|| Mutex::new(None));
    let mut guard = slot.lock().map_err(|_| "libclang loader lock poisoned".to_string())?;
    if guard.is_none() {
        // clang-sys only takes the location from the environment.
        std::env::set_var("LIBCLANG_PATH", path);
        let library = load_manually().map_err(|e| format!("{}: {e}", path.display()))?;
        *guard = Some(Arc::new(library));
    }
    set_library(guard.clone());
    Ok(())
}

/// Takes libclang's clean pages out of this process's resident memory, for a process that
/// will parse nothing more; returns how many bytes were released. libclang is linked
/// `-z nodelete` and cannot be closed, but its code and read-only data are never written: a
/// page touched again is read back from the file unchanged, exactly as after the kernel
/// reclaimed it under memory pressure. Mappings with any written (copy-on-write) page, such
/// as relocated data, are left alone.
/// Any thread may call it, not only one that parsed.
pub fn release_clean_pages() -> usize {
    let opened = LIBRARY.get().and_then(|slot| slot.lock().ok().and_then(|library| library.clone()));
    let Some(library) = opened else { return 0 };
    let Ok(file) = std::fs::canonicalize(library.path()) else { return 0 };
    let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else { return 0 };
    let mut released = 0;
    for mapping in clean_read_only_mappings(&smaps, &file) {
        // SAFETY: the range is a whole mapping of an unmodified, read-only private file
        // mapping (checked above); dropping its pages cannot change what it reads as.
        if unsafe { libc::madvise(mapping.start as *mut c_void, mapping.end - mapping.start, libc::MADV_DONTNEED) } == 0
        {
            released += mapping.end - mapping.start;
        }
    }
    released
}

struct Mapping {
    start: usize,
    end: usize,
}

/// The mappings of `file` in an smaps listing that are not writable and hold no written page.
fn clean_read_only_mappings(smaps: &str, file: &Path) -> Vec<Mapping> {
    let mut found = Vec::new();
    let mut current: Option<(Mapping, bool)> = None;
    let mut finish = |current: &mut Option<(Mapping, bool)>| {
        if let Some((mapping, true)) = current.take() {
            found.push(mapping);
        }
    };
    for line in smaps.lines() {
        let mut fields = line.split_whitespace();
        let first = fields.next().unwrap_or_default();
        if let Some((start, end)) = first.split_once('-').filter(|_| !first.ends_with(':')) {
            finish(&mut current);
            let perms = fields.next().unwrap_or_default();
            let path = fields.nth(3).unwrap_or_default();
            let (Ok(start), Ok(end)) = (usize::from_str_radix(start, 16), usize::from_str_radix(end, 16)) else {
                continue;
            };
            let candidate = Path::new(path) == file && perms.starts_with('r') && !perms.contains('w');
            current = Some((Mapping { start, end }, candidate));
        } else if matches!(first, "Anonymous:" | "Private_Dirty:" | "Shared_Dirty:") && fields.next() != Some("0") {
            if let Some((_, candidate)) = current.as_mut() {
                *candidate = false;
            }
        }
    }
    finish(&mut current);
    found
}

/// `bytes` as text, invalid UTF-8 replaced; valid text (nearly all) is checked by the fast
/// validator rather than the replacing one.
pub(crate) fn utf8_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

fn take_string(s: CXString) -> String {
    // SAFETY: `s` is a fresh CXString from libclang; it is read once and disposed once.
    unsafe {
        let ptr = clang_getCString(s);
        let text = if ptr.is_null() { String::new() } else { utf8_text(CStr::from_ptr(ptr).to_bytes()) };
        clang_disposeString(s);
        text
    }
}

pub fn clang_version() -> String {
    // SAFETY: no arguments; returns an owned CXString.
    take_string(unsafe { clang_getClangVersion() })
}

pub struct Index(CXIndex);

impl Index {
    pub fn new() -> Index {
        // SAFETY: plain constructor; disposed in Drop.
        Index(unsafe { clang_createIndex(0, 0) })
    }
}

impl Drop for Index {
    fn drop(&mut self) {
        // SAFETY: created by clang_createIndex and disposed once.
        unsafe { clang_disposeIndex(self.0) }
    }
}

/// A diagnostic as plain data.
pub struct Diagnostic {
    pub severity: CXDiagnosticSeverity,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

pub struct TranslationUnit<'i> {
    raw: CXTranslationUnit,
    _index: PhantomData<&'i Index>,
}

impl<'i> TranslationUnit<'i> {
    /// Parses `file` with `args`; `None` when libclang could not even start. With `contents`,
    /// the file is not read from disk: those bytes stand for it (it need not exist).
    pub fn parse(
        index: &'i Index,
        file: &Path,
        contents: Option<&str>,
        args: &[String],
    ) -> Result<TranslationUnit<'i>, String> {
        let file_c = CString::new(file.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
        let mut unsaved: Vec<CXUnsavedFile> = contents
            .map(|text| CXUnsavedFile {
                Filename: file_c.as_ptr(),
                Contents: text.as_ptr() as *const c_char,
                Length: text.len() as _,
            })
            .into_iter()
            .collect();
        let args_c: Vec<CString> = args.iter().map(|a| CString::new(a.as_bytes()).expect("no NUL in args")).collect();
        let argv: Vec<*const c_char> = args_c.iter().map(|a| a.as_ptr()).collect();
        let mut raw: CXTranslationUnit = std::ptr::null_mut();
        let options = CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_SkipFunctionBodies;
        // SAFETY: all pointers live across the call; `raw` is written by libclang.
        let code = unsafe {
            clang_parseTranslationUnit2(
                index.0,
                file_c.as_ptr(),
                argv.as_ptr(),
                argv.len() as i32,
                unsaved.as_mut_ptr(),
                unsaved.len() as c_uint,
                options,
                &mut raw,
            )
        };
        if code != CXError_Success || raw.is_null() {
            return Err(format!("libclang could not parse (error code {code})"));
        }
        Ok(TranslationUnit { raw, _index: PhantomData })
    }

    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        // SAFETY: the TU is alive; each diagnostic is disposed after use.
        unsafe {
            for i in 0..clang_getNumDiagnostics(self.raw) {
                let diag = clang_getDiagnostic(self.raw, i);
                let location = Location(clang_getDiagnosticLocation(diag));
                let (file, line, column) = location.spelling();
                out.push(Diagnostic {
                    severity: clang_getDiagnosticSeverity(diag),
                    file,
                    line,
                    column,
                    message: take_string(clang_getDiagnosticSpelling(diag)),
                });
                clang_disposeDiagnostic(diag);
            }
        }
        out
    }

    pub fn cursor(&self) -> Cursor<'_> {
        // SAFETY: the TU is alive for the cursor's lifetime.
        Cursor { raw: unsafe { clang_getTranslationUnitCursor(self.raw) }, _tu: PhantomData }
    }

    /// Spellings of the tokens in `range`.
    pub fn tokens(&self, range: Range) -> Vec<String> {
        let mut tokens: *mut CXToken = std::ptr::null_mut();
        let mut count: c_uint = 0;
        // SAFETY: tokens are read then disposed with the same TU.
        unsafe {
            clang_tokenize(self.raw, range.0, &mut tokens, &mut count);
            if tokens.is_null() {
                return Vec::new();
            }
            let out =
                (0..count as usize).map(|i| take_string(clang_getTokenSpelling(self.raw, *tokens.add(i)))).collect();
            clang_disposeTokens(self.raw, tokens, count);
            out
        }
    }

    /// Visits the spellings of the tokens in `range` in order until a visitor made by
    /// `new_visit` returns a value: only the tokens visited are spelled. A range longer than
    /// [`TOKEN_PREFIX_BYTES`] is first tokenized only that far (tokenizing a whole enum to read
    /// its first words is most of the cost); an answer given on the prefix's last token, or none,
    /// sends a fresh visitor over the whole range.
    pub fn find_token<T, V: FnMut(&str) -> Option<T>>(&self, range: Range, new_visit: impl Fn() -> V) -> Option<T> {
        if let Some(prefix) = self.prefix(range, TOKEN_PREFIX_BYTES) {
            if let Some(found) = self.visit_tokens(prefix, new_visit(), true) {
                return Some(found);
            }
        }
        self.visit_tokens(range, new_visit(), false)
    }

    fn visit_tokens<T>(&self, range: Range, mut visit: impl FnMut(&str) -> Option<T>, skip_last: bool) -> Option<T> {
        let mut tokens: *mut CXToken = std::ptr::null_mut();
        let mut count: c_uint = 0;
        // SAFETY: tokens are read then disposed with the same TU.
        unsafe {
            clang_tokenize(self.raw, range.0, &mut tokens, &mut count);
            if tokens.is_null() {
                return None;
            }
            let visited = count as usize - usize::from(skip_last);
            let found =
                (0..visited).find_map(|i| visit(&take_string(clang_getTokenSpelling(self.raw, *tokens.add(i)))));
            clang_disposeTokens(self.raw, tokens, count);
            found
        }
    }

    /// The first `bytes` bytes of `range`, when it is longer and both its ends are plain file
    /// positions (not inside a macro expansion) of one file.
    fn prefix(&self, range: Range, bytes: u32) -> Option<Range> {
        let (file, start) = range.start().file_position()?;
        let (end_file, end) = range.end().file_position()?;
        // SAFETY: both files belong to this TU; the new location lies inside the range.
        unsafe {
            if clang_File_isEqual(file, end_file) == 0 || end - start <= bytes {
                return None;
            }
            let cut = clang_getLocationForOffset(self.raw, file, start + bytes);
            Some(Range(clang_getRange(clang_getRangeStart(range.0), cut)))
        }
    }

    /// Ranges the preprocessor skipped (inactive `#if` branches) in every file.
    pub fn skipped_ranges(&self) -> Vec<Range> {
        // SAFETY: the list is copied out then disposed.
        unsafe {
            let list = clang_getAllSkippedRanges(self.raw);
            if list.is_null() {
                return Vec::new();
            }
            let ranges = (0..(*list).count as usize).map(|i| Range(*(*list).ranges.add(i))).collect();
            clang_disposeSourceRangeList(list);
            ranges
        }
    }

    /// The file position a (possibly macro-expanded) location was expanded at.
    pub fn expansion(&self, location: Location) -> Location {
        let mut file: CXFile = std::ptr::null_mut();
        let mut offset = 0;
        // SAFETY: out-parameters only; the file handle belongs to this TU.
        unsafe {
            clang_getExpansionLocation(location.0, &mut file, std::ptr::null_mut(), std::ptr::null_mut(), &mut offset);
            if file.is_null() {
                return location;
            }
            Location(clang_getLocationForOffset(self.raw, file, offset))
        }
    }

    /// The text of the file `location` is written in, up to that location (where no macro
    /// expansion produced it).
    pub fn text_before(&self, location: Location) -> Option<&[u8]> {
        let (file, offset) = location.file_position()?;
        let mut size = 0;
        // SAFETY: the file belongs to this TU; clang keeps its buffer alive as long as the TU.
        let data = unsafe { clang_getFileContents(self.raw, file, &mut size) };
        if data.is_null() || offset as usize > size {
            return None;
        }
        // SAFETY: `data` points at `size` bytes owned by the TU, which outlives the borrow.
        Some(unsafe { std::slice::from_raw_parts(data as *const u8, offset as usize) })
    }

    pub fn range(&self, start: Location, end: Location) -> Range {
        // SAFETY: both locations come from this TU.
        Range(unsafe { clang_getRange(start.0, end.0) })
    }
}

impl Drop for TranslationUnit<'_> {
    fn drop(&mut self) {
        // SAFETY: created by clang_parseTranslationUnit2 and disposed once.
        unsafe { clang_disposeTranslationUnit(self.raw) }
    }
}

/// A file of a translation unit (or none, for built-in declarations).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SourceFile(CXFile);

impl SourceFile {
    /// The name clang gives the file; empty for none.
    pub fn name(self) -> String {
        // SAFETY: the handle belongs to a live TU.
        if self.0.is_null() {
            String::new()
        } else {
            take_string(unsafe { clang_getFileName(self.0) })
        }
    }
}

#[derive(Clone, Copy)]
pub struct Location(CXSourceLocation);

impl Location {
    /// `(file, line, column)` of the expansion point; file is as clang names it.
    pub fn spelling(self) -> (String, u32, u32) {
        let mut file: CXFile = std::ptr::null_mut();
        let (mut line, mut column, mut offset) = (0, 0, 0);
        // SAFETY: out-parameters only.
        unsafe {
            clang_getExpansionLocation(self.0, &mut file, &mut line, &mut column, &mut offset);
            let name = if file.is_null() { String::new() } else { take_string(clang_getFileName(file)) };
            (name, line, column)
        }
    }

    /// The file of the expansion point, as a handle: one per file of the TU, so it identifies the
    /// file without spelling its name.
    pub fn file(self) -> SourceFile {
        let mut file: CXFile = std::ptr::null_mut();
        let none = std::ptr::null_mut();
        // SAFETY: out-parameters only.
        unsafe { clang_getExpansionLocation(self.0, &mut file, none, none, none) };
        SourceFile(file)
    }

    /// `(file, offset)` when the location is written in a file as it stands, not produced by a
    /// macro expansion (its spelling and expansion positions agree).
    fn file_position(self) -> Option<(CXFile, u32)> {
        let (mut file, mut offset): (CXFile, u32) = (std::ptr::null_mut(), 0);
        let (mut spelled_file, mut spelled_offset): (CXFile, u32) = (std::ptr::null_mut(), 0);
        let none = std::ptr::null_mut();
        // SAFETY: out-parameters only.
        unsafe {
            clang_getExpansionLocation(self.0, &mut file, none, none, &mut offset);
            clang_getSpellingLocation(self.0, &mut spelled_file, none, none, &mut spelled_offset);
            let same = !file.is_null() && clang_File_isEqual(file, spelled_file) != 0 && offset == spelled_offset;
            same.then_some((file, offset))
        }
    }

    pub fn offset(self) -> u32 {
        let mut offset = 0;
        // SAFETY: out-parameters only.
        unsafe {
            clang_getExpansionLocation(
                self.0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut offset,
            )
        };
        offset
    }
}

#[derive(Clone, Copy)]
pub struct Range(CXSourceRange);

impl Range {
    pub fn start(self) -> Location {
        // SAFETY: plain accessor.
        Location(unsafe { clang_getRangeStart(self.0) })
    }
    pub fn end(self) -> Location {
        // SAFETY: plain accessor.
        Location(unsafe { clang_getRangeEnd(self.0) })
    }
}

#[derive(Clone, Copy)]
pub struct Cursor<'tu> {
    raw: CXCursor,
    _tu: PhantomData<&'tu ()>,
}

impl<'tu> Cursor<'tu> {
    fn wrap(raw: CXCursor) -> Cursor<'tu> {
        Cursor { raw, _tu: PhantomData }
    }

    pub fn kind(self) -> CXCursorKind {
        // SAFETY: plain accessor on a live cursor (here and in the accessors below).
        unsafe { clang_getCursorKind(self.raw) }
    }
    pub fn spelling(self) -> String {
        take_string(unsafe { clang_getCursorSpelling(self.raw) })
    }
    pub fn usr(self) -> String {
        take_string(unsafe { clang_getCursorUSR(self.raw) })
    }
    pub fn location(self) -> Location {
        Location(unsafe { clang_getCursorLocation(self.raw) })
    }
    pub fn extent(self) -> Range {
        Range(unsafe { clang_getCursorExtent(self.raw) })
    }
    pub fn ty(self) -> Type<'tu> {
        Type::wrap(unsafe { clang_getCursorType(self.raw) })
    }
    pub fn definition(self) -> Option<Cursor<'tu>> {
        let def = unsafe { clang_getCursorDefinition(self.raw) };
        (unsafe { clang_Cursor_isNull(def) } == 0).then(|| Cursor::wrap(def))
    }
    pub fn lexical_parent(self) -> Cursor<'tu> {
        Cursor::wrap(unsafe { clang_getCursorLexicalParent(self.raw) })
    }
    pub fn is_anonymous(self) -> bool {
        unsafe { clang_Cursor_isAnonymous(self.raw) != 0 }
    }
    pub fn is_bitfield(self) -> bool {
        unsafe { clang_Cursor_isBitField(self.raw) != 0 }
    }
    pub fn bit_width(self) -> i32 {
        unsafe { clang_getFieldDeclBitWidth(self.raw) }
    }
    /// Offset of a field from the start of its record, in bits.
    pub fn offset_of_field(self) -> i64 {
        unsafe { clang_Cursor_getOffsetOfField(self.raw) }
    }
    pub fn typedef_underlying(self) -> Type<'tu> {
        Type::wrap(unsafe { clang_getTypedefDeclUnderlyingType(self.raw) })
    }
    pub fn enum_integer_type(self) -> Type<'tu> {
        Type::wrap(unsafe { clang_getEnumDeclIntegerType(self.raw) })
    }
    pub fn enum_value(self) -> i128 {
        let signed = unsafe { clang_getEnumConstantDeclValue(self.raw) };
        signed as i128
    }
    pub fn enum_unsigned_value(self) -> i128 {
        (unsafe { clang_getEnumConstantDeclUnsignedValue(self.raw) }) as i128
    }
    pub fn is_deprecated(self) -> bool {
        unsafe { clang_getCursorAvailability(self.raw) == CXAvailability_Deprecated }
    }
    pub fn is_macro_function_like(self) -> bool {
        unsafe { clang_Cursor_isMacroFunctionLike(self.raw) != 0 }
    }
    pub fn raw_comment(self) -> Option<String> {
        let text = take_string(unsafe { clang_Cursor_getRawCommentText(self.raw) });
        (!text.is_empty()).then_some(text)
    }
    /// Where the comment `raw_comment` returns lies in the source.
    pub fn comment_range(self) -> Range {
        Range(unsafe { clang_Cursor_getCommentRange(self.raw) })
    }
    pub fn argument(self, i: u32) -> Cursor<'tu> {
        Cursor::wrap(unsafe { clang_Cursor_getArgument(self.raw, i) })
    }
    pub fn result_type(self) -> Type<'tu> {
        Type::wrap(unsafe { clang_getCursorResultType(self.raw) })
    }

    /// Direct children in source order.
    pub fn children(self) -> Vec<Cursor<'tu>> {
        extern "C" fn visit(child: CXCursor, _parent: CXCursor, data: CXClientData) -> CXChildVisitResult {
            // SAFETY: `data` is the Vec passed below, alive for the whole visit.
            let out = unsafe { &mut *(data as *mut Vec<CXCursor>) };
            out.push(child);
            CXChildVisit_Continue
        }
        let mut raw: Vec<CXCursor> = Vec::new();
        // SAFETY: the callback only pushes into `raw`.
        unsafe { clang_visitChildren(self.raw, visit, &mut raw as *mut Vec<CXCursor> as *mut c_void) };
        raw.into_iter().map(Cursor::wrap).collect()
    }
}

impl PartialEq for Cursor<'_> {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: plain comparison.
        unsafe { clang_equalCursors(self.raw, other.raw) != 0 }
    }
}

#[derive(Clone, Copy)]
pub struct Type<'tu> {
    raw: CXType,
    _tu: PhantomData<&'tu ()>,
}

impl<'tu> Type<'tu> {
    fn wrap(raw: CXType) -> Type<'tu> {
        Type { raw, _tu: PhantomData }
    }

    pub fn kind(self) -> CXTypeKind {
        self.raw.kind
    }
    pub fn spelling(self) -> String {
        // SAFETY: plain accessor on a live type (here and below).
        take_string(unsafe { clang_getTypeSpelling(self.raw) })
    }
    pub fn canonical(self) -> Type<'tu> {
        Type::wrap(unsafe { clang_getCanonicalType(self.raw) })
    }
    pub fn pointee(self) -> Type<'tu> {
        Type::wrap(unsafe { clang_getPointeeType(self.raw) })
    }
    pub fn named(self) -> Type<'tu> {
        Type::wrap(unsafe { clang_Type_getNamedType(self.raw) })
    }
    pub fn modified(self) -> Type<'tu> {
        Type::wrap(unsafe { clang_Type_getModifiedType(self.raw) })
    }
    pub fn element(self) -> Type<'tu> {
        Type::wrap(unsafe { clang_getArrayElementType(self.raw) })
    }
    pub fn array_len(self) -> i64 {
        unsafe { clang_getArraySize(self.raw) }
    }
    pub fn is_const(self) -> bool {
        unsafe { clang_isConstQualifiedType(self.raw) != 0 }
    }
    pub fn declaration(self) -> Cursor<'tu> {
        Cursor::wrap(unsafe { clang_getTypeDeclaration(self.raw) })
    }
    pub fn result(self) -> Type<'tu> {
        Type::wrap(unsafe { clang_getResultType(self.raw) })
    }
    pub fn arg_types(self) -> Vec<Type<'tu>> {
        let n = unsafe { clang_getNumArgTypes(self.raw) };
        (0..n.max(0) as u32).map(|i| Type::wrap(unsafe { clang_getArgType(self.raw, i) })).collect()
    }
    pub fn is_variadic(self) -> bool {
        unsafe { clang_isFunctionTypeVariadic(self.raw) != 0 }
    }
    /// Size in bytes, or a negative `CXTypeLayoutError`.
    pub fn size_of(self) -> i64 {
        unsafe { clang_Type_getSizeOf(self.raw) }
    }
    pub fn align_of(self) -> i64 {
        unsafe { clang_Type_getAlignOf(self.raw) }
    }

    /// The record's fields as the compiler sees them, including the unnamed fields that carry
    /// anonymous struct and union members (a child walk does not report those).
    pub fn fields(self) -> Vec<Cursor<'tu>> {
        extern "C" fn visit(field: CXCursor, data: CXClientData) -> CXVisitorResult {
            // SAFETY: `data` is the Vec passed below.
            let out = unsafe { &mut *(data as *mut Vec<CXCursor>) };
            out.push(field);
            CXVisit_Continue
        }
        let mut raw: Vec<CXCursor> = Vec::new();
        // SAFETY: the callback only pushes into `raw`.
        unsafe { clang_Type_visitFields(self.raw, visit, &mut raw as *mut Vec<CXCursor> as *mut c_void) };
        raw.into_iter().map(Cursor::wrap).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
7f0000000000-7f0000100000 r--p 00000000 fd:01 42 /lib/libclang.so
Size:               1024 kB
Anonymous:             0 kB
Private_Dirty:         0 kB
Shared_Dirty:          0 kB
VmFlags: rd mr mw me
7f0000100000-7f0000800000 r-xp 00100000 fd:01 42 /lib/libclang.so
Private_Dirty:         0 kB
Anonymous:             0 kB
7f0000800000-7f0000900000 r--p 00800000 fd:01 42 /lib/libclang.so
Private_Dirty:       512 kB
Anonymous:           512 kB
7f0000900000-7f0000a00000 rw-p 00900000 fd:01 42 /lib/libclang.so
Private_Dirty:         0 kB
7f0000a00000-7f0000b00000 r-xp 00000000 fd:01 43 /lib/libother.so
Private_Dirty:         0 kB
";

    #[test]
    fn only_unwritten_read_only_mappings_of_the_library_are_released() {
        let found: Vec<(usize, usize)> = clean_read_only_mappings(SMAPS, Path::new("/lib/libclang.so"))
            .into_iter()
            .map(|m| (m.start, m.end))
            .collect();
        // Read-only data and code; not the relocated (copy-on-write) part, not the writable
        // mapping, not another library.
        assert_eq!(found, vec![(0x7f0000000000, 0x7f0000100000), (0x7f0000100000, 0x7f0000800000)]);
    }
}
