//! Walks one translation unit and builds the model's declarations from it.
// clang-sys keeps libclang's C names for its constants.
#![allow(non_upper_case_globals)]

use crate::comments::{clean_comment, comment_above_conditionals};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use clang_sys::*;
use ctkgen_ir as ir;
use ir::{AlignmentSpelling, AlignmentTarget, ExplicitAlignment, LanguageMode};

use crate::libclang::{Cursor, SourceFile, TranslationUnit, Type};
use crate::ParseError;

/// Which file a declaration came from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// One of the driver headers: 0 for the main one, then the extra headers in order.
    Driver(usize),
    /// A header of `PFN_*` typedefs.
    Typedefs,
    /// A C library stand-in (top of the stand-in folder).
    System,
    /// A graphics API stand-in (a subfolder of the stand-in folder).
    Interop,
    Other,
}

/// A macro definition from a driver header: its name and body tokens.
pub struct MacroDef {
    pub name: String,
    /// Which driver header (see [`Origin::Driver`]).
    pub file: usize,
    /// That header's name, `None` for the main one.
    pub header: Option<String>,
    /// Byte offset of the definition in its header.
    pub offset: u32,
    pub body: Vec<String>,
    pub doc: Option<String>,
}

/// One `PFN_<name>_v<version>` typedef: a signature of `name` introduced in `version`.
pub struct PfnVersion {
    pub name: String,
    pub version: u32,
    pub per_thread: bool,
    /// Canonical spellings of the parameter types (typedefs resolved).
    pub params: Vec<String>,
}

/// Everything one language mode yields, before cross-mode checks and macro evaluation.
pub struct ModeModel {
    pub functions: Vec<ir::Function>,
    pub records: Vec<ir::Record>,
    pub enums: Vec<ir::Enum>,
    pub typedefs: Vec<ir::Typedef>,
    pub macros: Vec<MacroDef>,
    /// Renames that only apply in per-thread-default-stream mode (read from skipped source).
    pub per_thread_macros: Vec<MacroDef>,
    /// `PFN_<name>_v<N>[_ptds|_ptsz]` typedefs from the typedef header.
    pub pfn_versions: Vec<PfnVersion>,
    /// Canonical parameter type spellings of each declared function, by symbol.
    pub signatures: HashMap<String, Vec<String>>,
    /// Record extents in the driver headers by byte offset, for locating skipped alignments.
    pub record_spans: Vec<RecordSpan>,
}

/// Where a record's definition lies: the driver header (see [`Origin::Driver`]) and byte range.
pub struct RecordSpan {
    pub file: usize,
    pub start: u32,
    pub end: u32,
    pub record: String,
}

pub struct Builder<'tu> {
    tu: &'tu TranslationUnit<'tu>,
    mode: LanguageMode,
    /// The driver headers, canonical, each with the name the model records (`None`: the main one).
    driver_headers: Vec<(PathBuf, Option<String>)>,
    typedef_headers: Vec<PathBuf>,
    system_dir: PathBuf,
    /// Each file's origin and recorded header name, by clang's handle: declarations are many,
    /// files few.
    file_cache: HashMap<SourceFile, (Origin, Option<String>)>,
    record_names: HashMap<String, String>,
    records: BTreeMap<String, ir::Record>,
    enum_names: HashMap<String, String>,
    enums: BTreeMap<String, ir::Enum>,
    /// USR of an untagged record or enum -> the typedef that names it.
    typedef_of_anonymous: HashMap<String, String>,
    record_spans: Vec<RecordSpan>,
    /// Typedefs of the graphics API stand-ins, kept only when a declaration uses them.
    interop_typedefs: std::collections::BTreeSet<String>,
    /// Every macro definition in the translation unit; tokenized into `macro_table` only when
    /// an attribute turns out to be spelled through a macro.
    macro_cursors: Vec<Cursor<'tu>>,
    macro_table: std::cell::OnceCell<HashMap<String, MacroBody>>,
    /// The mode whose declarations become the model. Other modes only need layouts, so they
    /// skip functions, macros and comments.
    primary: bool,
    /// How the typedef headers name entry points' signatures; without it they are not read.
    entry_points: Option<EntryPointTypedefs>,
}

/// The form of the typedef headers' names and the suffixes that mark a per-thread variant.
pub struct EntryPointTypedefs {
    pub form: ir::EntryPointTypedef,
    pub per_thread_suffixes: Vec<String>,
}

/// A macro's parameters (`None` when object-like) and body tokens.
struct MacroBody {
    params: Option<Vec<String>>,
    body: Vec<String>,
}

impl<'tu> Builder<'tu> {
    pub fn new(
        tu: &'tu TranslationUnit<'tu>,
        mode: LanguageMode,
        driver_headers: &[(PathBuf, Option<String>)],
        typedef_headers: &[&Path],
        system_dir: &Path,
        primary: bool,
        entry_points: Option<EntryPointTypedefs>,
    ) -> Builder<'tu> {
        Builder {
            tu,
            mode,
            driver_headers: driver_headers.iter().map(|(path, name)| (canonical(path), name.clone())).collect(),
            typedef_headers: typedef_headers.iter().map(|path| canonical(path)).collect(),
            system_dir: canonical(system_dir),
            file_cache: HashMap::new(),
            record_names: HashMap::new(),
            records: BTreeMap::new(),
            enum_names: HashMap::new(),
            enums: BTreeMap::new(),
            typedef_of_anonymous: HashMap::new(),
            record_spans: Vec::new(),
            interop_typedefs: std::collections::BTreeSet::new(),
            macro_cursors: Vec::new(),
            macro_table: std::cell::OnceCell::new(),
            primary,
            entry_points,
        }
    }

    fn origin(&mut self, cursor: Cursor) -> Origin {
        self.file_of(cursor).0
    }

    /// The header the model records for a declaration: `None` for the main header and for
    /// files that are neither a driver header nor a stand-in.
    fn header_of(&mut self, cursor: Cursor) -> Option<String> {
        self.file_of(cursor).1.clone()
    }

    /// The origin and recorded header name of the file a declaration is in, worked out (with the
    /// file's canonical path) once per file by [`Builder::file_info`].
    fn file_of(&mut self, cursor: Cursor) -> &(Origin, Option<String>) {
        let source = cursor.location().file();
        if !self.file_cache.contains_key(&source) {
            let known = self.file_info(source);
            self.file_cache.insert(source, known);
        }
        &self.file_cache[&source]
    }

    fn file_info(&self, source: SourceFile) -> (Origin, Option<String>) {
        let path = canonical(Path::new(&source.name()));
        let origin = if let Some(index) = self.driver_headers.iter().position(|(p, _)| *p == path) {
            Origin::Driver(index)
        } else if self.typedef_headers.contains(&path) {
            Origin::Typedefs
        } else if path.parent() == Some(self.system_dir.as_path()) {
            Origin::System
        } else if path.starts_with(&self.system_dir) {
            Origin::Interop
        } else {
            Origin::Other
        };
        let header = match origin {
            Origin::Driver(index) => self.driver_headers[index].1.clone(),
            Origin::Interop | Origin::System => path.strip_prefix(&self.system_dir).ok().map(|relative| {
                relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
            }),
            _ => None,
        };
        (origin, header)
    }

    fn where_(&self, cursor: Cursor) -> String {
        let (file, line, column) = cursor.location().spelling();
        let name = Path::new(&file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(file);
        format!("{name}:{line}:{column}")
    }

    pub fn build(mut self) -> Result<ModeModel, ParseError> {
        let mut decls = Vec::new();
        flatten(self.tu.cursor(), &mut decls);

        self.macro_cursors = decls.iter().copied().filter(|c| c.kind() == CXCursor_MacroDefinition).collect();

        // Untagged records and enums take their typedef's name, so learn those first.
        for &cursor in &decls {
            if cursor.kind() == CXCursor_TypedefDecl {
                let underlying = strip_sugar(cursor.typedef_underlying());
                if matches!(underlying.kind(), CXType_Record | CXType_Enum) {
                    let decl = underlying.declaration();
                    if self.is_untagged(decl) {
                        self.typedef_of_anonymous.entry(decl.usr()).or_insert_with(|| cursor.spelling());
                    }
                }
            }
        }

        let mut functions: BTreeMap<String, ir::Function> = BTreeMap::new();
        let mut typedefs: BTreeMap<String, ir::Typedef> = BTreeMap::new();
        let mut macros = Vec::new();
        let mut pfn_versions = Vec::new();
        let mut signatures = HashMap::new();
        for &cursor in &decls {
            let origin = self.origin(cursor);
            match (cursor.kind(), origin) {
                (CXCursor_StructDecl | CXCursor_UnionDecl, Origin::Driver(_))
                    if !self.is_untagged(cursor) || self.typedef_of_anonymous.contains_key(&cursor.usr()) =>
                {
                    self.record_name(cursor)?;
                }
                (CXCursor_EnumDecl, Origin::Driver(_)) => {
                    self.enum_name(cursor)?;
                }
                (CXCursor_TypedefDecl, Origin::Driver(_) | Origin::System | Origin::Interop) => {
                    let def = self.typedef(cursor, origin == Origin::System)?;
                    if origin == Origin::Interop {
                        self.interop_typedefs.insert(def.name.clone());
                    }
                    typedefs.entry(def.name.clone()).or_insert(def);
                }
                (CXCursor_TypedefDecl, Origin::Typedefs) if self.primary => {
                    if let Some((name, version, per_thread)) = self.entry_point_version(&cursor.spelling()) {
                        let signature = strip_sugar(cursor.typedef_underlying()).pointee();
                        let params = signature.arg_types().iter().map(|t| t.canonical().spelling()).collect();
                        pfn_versions.push(PfnVersion { name, version, per_thread, params });
                    }
                }
                (CXCursor_FunctionDecl, Origin::Driver(_)) if self.primary => {
                    let f = self.function(cursor)?;
                    let canonical = cursor.ty().arg_types().iter().map(|t| t.canonical().spelling()).collect();
                    signatures.insert(f.symbol.clone(), canonical);
                    functions.entry(f.symbol.clone()).or_insert(f);
                }
                (CXCursor_MacroDefinition, Origin::Driver(file))
                    if self.primary && !cursor.is_macro_function_like() =>
                {
                    let mut tokens = self.tu.tokens(cursor.extent());
                    if !tokens.is_empty() {
                        let name = tokens.remove(0);
                        let offset = cursor.extent().start().offset();
                        let header = self.driver_headers[file].1.clone();
                        macros.push(MacroDef { name, file, header, offset, body: tokens, doc: None });
                    }
                }
                _ => {}
            }
        }

        // System and graphics API typedefs are kept only when the driver headers use them.
        let used: std::collections::BTreeSet<String> =
            used_typedef_names(&typedefs, &functions, &self.records, &self.interop_typedefs)
                .into_iter()
                .map(str::to_string)
                .collect();
        let interop = std::mem::take(&mut self.interop_typedefs);
        typedefs.retain(|name, def| !(def.system || interop.contains(name)) || used.contains(name));

        Ok(ModeModel {
            functions: functions.into_values().collect(),
            records: self.records.into_values().collect(),
            enums: self.enums.into_values().collect(),
            typedefs: typedefs.into_values().collect(),
            macros,
            per_thread_macros: Vec::new(),
            pfn_versions,
            signatures,
            record_spans: self.record_spans,
        })
    }

    /// Registers (once) and returns the model name of a record declaration.
    fn record_name(&mut self, decl: Cursor) -> Result<String, ParseError> {
        let usr = decl.usr();
        if let Some(name) = self.record_names.get(&record_key(decl)) {
            return Ok(name.clone());
        }
        let untagged = self.is_untagged(decl);
        let (name, typedef_name) = match self.typedef_of_anonymous.get(&usr) {
            Some(typedef) if untagged => (typedef.clone(), Some(typedef.clone())),
            _ if untagged => {
                return Err(ParseError::Unsupported {
                    location: self.where_(decl),
                    what: "an untagged record outside any record or typedef".into(),
                })
            }
            _ => (decl.spelling(), None),
        };
        self.register_record(decl, name.clone(), typedef_name, None)?;
        Ok(name)
    }

    fn register_record(
        &mut self,
        decl: Cursor,
        name: String,
        typedef_name: Option<String>,
        parent: Option<ir::FieldPath>,
    ) -> Result<(), ParseError> {
        self.record_names.insert(record_key(decl), name.clone());
        let kind = match decl.kind() {
            CXCursor_UnionDecl => ir::RecordKind::Union,
            _ => ir::RecordKind::Struct,
        };
        let anonymous = self.is_untagged(decl);
        // A forward declaration only (an opaque handle's struct) stays incomplete and empty.
        let mut record = ir::Record {
            name: name.clone(),
            kind,
            anonymous,
            parent,
            typedef_name,
            complete: false,
            size: 0,
            align: 0,
            packed: false,
            fields: Vec::new(),
            explicit_alignments: Vec::new(),
            declared_end: None,
            doc: self.doc(decl),
            header: self.header_of(decl),
        };
        let Some(def) = decl.definition() else {
            self.records.insert(name, record);
            return Ok(());
        };
        let ty = def.ty();
        let (size, align) = (ty.size_of(), ty.align_of());
        if size < 0 || align <= 0 {
            return Err(ParseError::Layout { location: self.where_(def), name, code: size.min(align) });
        }
        let extent = def.extent();
        if let Origin::Driver(file) = self.origin(def) {
            let (start, end) = (extent.start().offset(), extent.end().offset());
            self.record_spans.push(RecordSpan { file, start, end, record: name.clone() });
            // Declaration order across the driver headers: by header, then where the definition ends.
            record.declared_end = Some(((file as u64) << 32) | u64::from(end));
        }

        let mut explicit = Vec::new();
        let mut packed = false;
        for child in def.children() {
            match child.kind() {
                CXCursor_AlignedAttr => {
                    explicit.push(self.alignment(child, def, AlignmentTarget::Record { record: name.clone() })?)
                }
                CXCursor_PackedAttr => packed = true,
                _ => {}
            }
        }

        let mut fields = Vec::new();
        let mut anonymous_members = 0;
        for field in ty.fields() {
            let field_ty = field.ty();
            let inner = innermost(field_ty);
            let inner_decl = inner.declaration();
            let member_is_anonymous = field.spelling().is_empty()
                || (matches!(inner.kind(), CXType_Record) && is_anonymous_member(field, inner_decl));
            let field_name = if member_is_anonymous {
                let n = format!("_anon{anonymous_members}");
                anonymous_members += 1;
                n
            } else {
                field.spelling()
            };
            // Records declared inside this one remember the member they came with: C++ scopes
            // them to this record, and untagged ones are named after that member.
            if matches!(inner.kind(), CXType_Record)
                && !self.record_names.contains_key(&record_key(inner_decl))
                && !self.typedef_of_anonymous.contains_key(&inner_decl.usr())
                && (self.is_untagged(inner_decl) || inner_decl.lexical_parent() == def)
            {
                let nested_name =
                    if self.is_untagged(inner_decl) { format!("{name}__{field_name}") } else { inner_decl.spelling() };
                self.register_record(
                    inner_decl,
                    nested_name,
                    None,
                    Some(ir::FieldPath { record: name.clone(), field: field_name.clone() }),
                )?;
            }
            let offset = field.offset_of_field();
            if offset < 0 {
                return Err(ParseError::Layout {
                    location: self.where_(field),
                    name: format!("{name}.{field_name}"),
                    code: offset,
                });
            }
            let bit_width = field.is_bitfield().then(|| field.bit_width().max(0) as u32);
            for child in field.children() {
                if child.kind() == CXCursor_AlignedAttr {
                    explicit.push(self.alignment(
                        child,
                        field,
                        AlignmentTarget::Field { record: name.clone(), field: field_name.clone() },
                    )?);
                }
            }
            fields.push(ir::Field {
                name: field_name,
                anonymous: member_is_anonymous,
                ty: self.convert(field_ty, field)?,
                offset_bits: offset as u64,
                bit_width,
                size: field_ty.size_of().max(0) as u64,
                align: field_ty.align_of().max(0) as u64,
                doc: self.doc(field),
            });
        }

        record.complete = true;
        record.size = size as u64;
        record.align = align as u64;
        record.packed = packed;
        record.fields = fields;
        record.explicit_alignments = explicit;
        record.doc = self.doc(def);
        record.header = self.header_of(def);
        self.records.insert(name, record);
        Ok(())
    }

    /// Reads an alignment attribute: its spelling and value come from the source tokens
    /// between the attribute and the end of the declaration it sits on.
    fn alignment(&self, attr: Cursor, owner: Cursor, target: AlignmentTarget) -> Result<ExplicitAlignment, ParseError> {
        // libclang gives the attribute's position but not its argument; read the source
        // tokens where it was written (expanding macros when it was spelled through one).
        let start = self.tu.expansion(attr.extent().start());
        let attr_end = self.tu.expansion(attr.extent().end());
        let owner_end = self.tu.expansion(owner.extent().end());
        let mut candidates = vec![self.tu.tokens(self.tu.range(start, attr_end))];
        if owner_end.offset() > start.offset() {
            candidates.push(self.tu.tokens(self.tu.range(start, owner_end)));
        }
        let found = candidates.iter().find_map(|tokens| {
            parse_alignment_tokens(tokens).or_else(|| parse_alignment_tokens(&self.expand_macros(tokens)))
        });
        found.map(|(spelling, value)| ExplicitAlignment { target, spelling, value, mode: self.mode }).ok_or_else(|| {
            ParseError::Unsupported {
                location: self.where_(attr),
                what: format!("an alignment attribute whose value is not an integer ({})", candidates[0].join(" ")),
            }
        })
    }

    /// The function, version and per-thread flag an entry-point typedef's name gives.
    fn entry_point_version(&self, typedef: &str) -> Option<(String, u32, bool)> {
        let entry_points = self.entry_points.as_ref()?;
        let suffixes: Vec<&str> = entry_points.per_thread_suffixes.iter().map(String::as_str).collect();
        entry_points.form.read(typedef, &suffixes)
    }

    /// Whether C gives the record or enum no tag. libclang calls `typedef struct {..} X;` named
    /// in some versions, so the source is the judge: no identifier between keyword and `{`.
    fn is_untagged(&self, decl: Cursor) -> bool {
        if decl.is_anonymous() {
            return true;
        }
        let Some(def) = decl.definition() else { return false };
        // The keyword, then attributes, then a tag name or the body: only that much is spelled.
        let found = self.tu.find_token(def.extent(), || {
            let (mut depth, mut keyword) = (0i32, true);
            move |token: &str| {
                if std::mem::take(&mut keyword) {
                    return None;
                }
                match token {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    "{" if depth == 0 => return Some(true),
                    "__attribute__" | "__declspec" | "alignas" | "_Alignas" => {}
                    t if depth == 0 && t.starts_with(|c: char| c.is_alphabetic() || c == '_') => return Some(false),
                    _ => {}
                }
                None
            }
        });
        found.unwrap_or(false)
    }

    fn macro_table(&self) -> &HashMap<String, MacroBody> {
        self.macro_table.get_or_init(|| {
            let mut table = HashMap::new();
            for cursor in &self.macro_cursors {
                let tokens = self.tu.tokens(cursor.extent());
                if let Some((name, rest)) = tokens.split_first() {
                    let body = if cursor.is_macro_function_like() {
                        let close = rest.iter().position(|t| t == ")").unwrap_or(0);
                        let params =
                            rest.get(1..close).unwrap_or_default().iter().filter(|t| *t != ",").cloned().collect();
                        MacroBody { params: Some(params), body: rest.get(close + 1..).unwrap_or_default().to_vec() }
                    } else {
                        MacroBody { params: None, body: rest.to_vec() }
                    };
                    table.insert(name.clone(), body);
                }
            }
            table
        })
    }

    /// The cleaned doc comment of a declaration, read only in the primary mode.
    fn doc(&self, cursor: Cursor) -> Option<String> {
        if self.primary {
            clean_comment(cursor.raw_comment())
        } else {
            None
        }
    }

    /// A function's doc comment: clang's, or else one that only preprocessor conditionals separate
    /// from the declaration (clang attaches none across a `#`: a header that picks between an
    /// inline and an extern definition documents both once, above the `#if`).
    fn function_doc(&self, cursor: Cursor) -> Option<String> {
        if !self.primary {
            return None;
        }
        clean_comment(cursor.raw_comment()).or_else(|| {
            let text = self.tu.text_before(cursor.extent().start())?;
            clean_comment(comment_above_conditionals(text).map(str::to_string))
        })
    }

    /// Expands object-like and simple function-like macros (no `#` or `##`), a few levels
    /// deep: enough for attributes such as `ALIGN(64)`.
    fn expand_macros(&self, tokens: &[String]) -> Vec<String> {
        let mut current = tokens.to_vec();
        for _ in 0..8 {
            let mut next = Vec::new();
            let mut changed = false;
            let mut i = 0;
            while i < current.len() {
                let token = &current[i];
                match self.macro_table().get(token) {
                    Some(MacroBody { params: None, body }) => {
                        next.extend(body.iter().cloned());
                        changed = true;
                        i += 1;
                    }
                    Some(MacroBody { params: Some(params), body })
                        if current.get(i + 1).map(String::as_str) == Some("(") =>
                    {
                        let mut args: Vec<Vec<String>> = vec![Vec::new()];
                        let mut depth = 0;
                        let mut j = i + 2;
                        while j < current.len() {
                            match current[j].as_str() {
                                "(" => depth += 1,
                                ")" if depth == 0 => break,
                                ")" => depth -= 1,
                                "," if depth == 0 => {
                                    args.push(Vec::new());
                                    j += 1;
                                    continue;
                                }
                                _ => {}
                            }
                            args.last_mut().expect("one argument list").push(current[j].clone());
                            j += 1;
                        }
                        for t in body {
                            match params.iter().position(|p| p == t) {
                                Some(k) => next.extend(args.get(k).cloned().unwrap_or_default()),
                                None => next.push(t.clone()),
                            }
                        }
                        changed = true;
                        i = j + 1;
                    }
                    _ => {
                        next.push(token.clone());
                        i += 1;
                    }
                }
            }
            current = next;
            if !changed {
                break;
            }
        }
        current
    }

    fn enum_name(&mut self, decl: Cursor) -> Result<String, ParseError> {
        let usr = decl.usr();
        if let Some(name) = self.enum_names.get(&usr) {
            return Ok(name.clone());
        }
        let def = decl.definition().unwrap_or(decl);
        let name = if self.is_untagged(decl) {
            match self.typedef_of_anonymous.get(&usr) {
                Some(t) => t.clone(),
                None => {
                    let first = def.children().into_iter().find(|c| c.kind() == CXCursor_EnumConstantDecl);
                    format!("enum_{}", first.map(|c| c.spelling()).unwrap_or_else(|| "empty".into()))
                }
            }
        } else {
            decl.spelling()
        };
        self.enum_names.insert(usr, name.clone());
        let underlying = primitive(def.enum_integer_type()).ok_or_else(|| ParseError::Unsupported {
            location: self.where_(def),
            what: format!("enum {name} with underlying type {}", def.enum_integer_type().spelling()),
        })?;
        let unsigned = !underlying.is_signed_integer() && underlying != ir::Primitive::Char;
        let mut constants = Vec::new();
        let mut previous_end = None;
        for c in def.children().into_iter().filter(|c| c.kind() == CXCursor_EnumConstantDecl) {
            // Only commas separate enumerators, so clang hands the comment before one constant to
            // the uncommented ones after it too (`..._NUM_OPTIONS`): a comment that ends before
            // the previous constant does is that constant's.
            let earlier = |end| c.comment_range().end().offset() <= end;
            let doc = self.doc(c).filter(|_| !previous_end.is_some_and(earlier));
            previous_end = Some(c.extent().end().offset());
            constants.push(ir::EnumConstant {
                name: c.spelling(),
                value: if unsigned { c.enum_unsigned_value() } else { c.enum_value() },
                doc,
            });
        }
        let header = self.header_of(def);
        self.enums.insert(
            name.clone(),
            ir::Enum {
                name: name.clone(),
                typedef_names: Vec::new(),
                underlying,
                constants,
                doc: self.doc(def),
                header,
            },
        );
        Ok(name)
    }

    fn typedef(&mut self, cursor: Cursor, system: bool) -> Result<ir::Typedef, ParseError> {
        let name = cursor.spelling();
        let underlying = cursor.typedef_underlying();
        let ty = self.convert(underlying, cursor)?;
        if let ir::Type::Enum { name: enum_name } = &ty {
            if let Some(e) = self.enums.get_mut(enum_name) {
                if !e.typedef_names.contains(&name) {
                    e.typedef_names.push(name.clone());
                }
            }
        }
        let mut explicit = Vec::new();
        for child in cursor.children() {
            if child.kind() == CXCursor_AlignedAttr {
                explicit.push(self.alignment(child, cursor, AlignmentTarget::Typedef { typedef: name.clone() })?);
            }
        }
        let own = cursor.ty();
        // GNU C gives a function type size 1; the model says 0, as C++ has no size for it.
        let sized = !matches!(own.canonical().kind(), CXType_FunctionProto | CXType_FunctionNoProto);
        Ok(ir::Typedef {
            name,
            ty,
            size: if sized { own.size_of().max(0) as u64 } else { 0 },
            align: if sized { own.align_of().max(0) as u64 } else { 0 },
            explicit_alignments: explicit,
            system,
            doc: self.doc(cursor),
            header: if system { None } else { self.header_of(cursor) },
        })
    }

    fn function(&mut self, cursor: Cursor) -> Result<ir::Function, ParseError> {
        let symbol = cursor.spelling();
        let fn_ty = cursor.ty();
        let arg_types = fn_ty.arg_types();
        let mut params = Vec::new();
        for (i, arg_ty) in arg_types.iter().enumerate() {
            let arg = cursor.argument(i as u32);
            let name = arg.spelling();
            params.push(ir::Param {
                name: if name.is_empty() { format!("arg{i}") } else { name },
                ty: self.convert(*arg_ty, cursor)?,
            });
        }
        Ok(ir::Function {
            name: symbol.clone(),
            lookup_name: symbol.clone(),
            symbol,
            per_thread_symbol: None,
            first_version: None,
            per_thread_first_version: None,
            ret: self.convert(cursor.result_type(), cursor)?,
            params,
            deprecated: cursor.is_deprecated(),
            doc: self.function_doc(cursor),
            header: self.header_of(cursor),
        })
    }

    /// Turns a clang type into a model type, keeping typedef names.
    fn convert(&mut self, ty: Type, at: Cursor) -> Result<ir::Type, ParseError> {
        let kind = ty.kind();
        if let Some(p) = primitive(ty) {
            return Ok(ir::Type::Primitive { name: p });
        }
        Ok(match kind {
            CXType_Void => ir::Type::Void,
            CXType_Typedef => {
                let decl = ty.declaration();
                ir::Type::Typedef { name: decl.spelling() }
            }
            CXType_Elaborated => return self.convert(ty.named(), at),
            CXType_Attributed => return self.convert(ty.modified(), at),
            CXType_Record => {
                let decl = ty.declaration();
                ir::Type::Record { name: self.record_name_in_context(decl)? }
            }
            CXType_Enum => ir::Type::Enum { name: self.enum_name(ty.declaration())? },
            CXType_Pointer => {
                let pointee = ty.pointee();
                ir::Type::Pointer { pointee: Box::new(self.convert(pointee, at)?), pointee_const: pointee.is_const() }
            }
            CXType_ConstantArray => ir::Type::Array {
                element: Box::new(self.convert(ty.element(), at)?),
                len: ty.array_len().max(0) as u64,
            },
            CXType_IncompleteArray => ir::Type::Array { element: Box::new(self.convert(ty.element(), at)?), len: 0 },
            CXType_FunctionProto | CXType_FunctionNoProto => {
                let mut params = Vec::new();
                for p in ty.arg_types() {
                    params.push(self.convert(p, at)?);
                }
                ir::Type::Function { ret: Box::new(self.convert(ty.result(), at)?), params, variadic: ty.is_variadic() }
            }
            _ => {
                let canonical = ty.canonical();
                if canonical.kind() != kind && canonical.kind() != CXType_Unexposed {
                    return self.convert(canonical, at);
                }
                return Err(ParseError::Unsupported {
                    location: self.where_(at),
                    what: format!("type `{}`", ty.spelling()),
                });
            }
        })
    }

    /// A record reached through a type: tagged ones by tag, untagged ones must already be
    /// named by their parent member or typedef.
    fn record_name_in_context(&mut self, decl: Cursor) -> Result<String, ParseError> {
        if let Some(name) = self.record_names.get(&record_key(decl)) {
            return Ok(name.clone());
        }
        self.record_name(decl)
    }
}

/// Top-level declarations, looking through `extern "C"` blocks (C++ mode puts everything there).
fn flatten<'tu>(cursor: Cursor<'tu>, out: &mut Vec<Cursor<'tu>>) {
    for child in cursor.children() {
        match child.kind() {
            CXCursor_LinkageSpec | CXCursor_Namespace | CXCursor_UnexposedDecl => flatten(child, out),
            _ => out.push(child),
        }
    }
}

/// What identifies a record declaration among all others. libclang gives every anonymous
/// member of one record the same USR (`c:@S@T@Ua` for each unnamed union in `T`), so those are
/// told apart by where their definition starts.
fn record_key(decl: Cursor) -> String {
    let usr = decl.usr();
    if !decl.is_anonymous() {
        return usr;
    }
    let def = decl.definition().unwrap_or(decl);
    let (file, _, _) = def.location().spelling();
    format!("{usr}@{file}:{}", def.location().offset())
}

fn is_anonymous_member(field: Cursor, decl: Cursor) -> bool {
    // SAFETY-free check through the record declaration: an anonymous member is an untagged
    // record whose field carries no name of its own.
    decl.is_anonymous()
        && (field.spelling().is_empty()
            || field.spelling().contains("(anonymous")
            || field.spelling().contains("(unnamed"))
}

/// Peels arrays and pointers to find the record a field is built from.
fn innermost(ty: Type) -> Type {
    let mut ty = strip_sugar(ty);
    loop {
        match ty.kind() {
            CXType_ConstantArray | CXType_IncompleteArray => ty = strip_sugar(ty.element()),
            _ => return ty,
        }
    }
}

fn strip_sugar(ty: Type) -> Type {
    match ty.kind() {
        CXType_Elaborated => strip_sugar(ty.named()),
        CXType_Attributed => strip_sugar(ty.modified()),
        _ => ty,
    }
}

fn primitive(ty: Type) -> Option<ir::Primitive> {
    use ir::Primitive as P;
    Some(match ty.kind() {
        CXType_Bool => P::Bool,
        CXType_Char_S | CXType_Char_U => P::Char,
        CXType_SChar => P::SignedChar,
        CXType_UChar => P::UnsignedChar,
        CXType_Short => P::Short,
        CXType_UShort => P::UnsignedShort,
        CXType_Int => P::Int,
        CXType_UInt => P::UnsignedInt,
        CXType_Long => P::Long,
        CXType_ULong => P::UnsignedLong,
        CXType_LongLong => P::LongLong,
        CXType_ULongLong => P::UnsignedLongLong,
        CXType_Int128 => P::Int128,
        CXType_UInt128 => P::UnsignedInt128,
        CXType_Float => P::Float,
        CXType_Double => P::Double,
        CXType_LongDouble => P::LongDouble,
        _ => return None,
    })
}

/// `alignas ( 64 )`, `_Alignas(64)`, `__attribute__((aligned(64)))`, `__declspec(align(64))`.
pub fn parse_alignment_tokens(tokens: &[String]) -> Option<(AlignmentSpelling, u64)> {
    let position = tokens
        .iter()
        .position(|t| matches!(t.as_str(), "alignas" | "_Alignas" | "aligned" | "__aligned__" | "align"))?;
    let spelling = match tokens[position].as_str() {
        "alignas" => AlignmentSpelling::Alignas,
        "_Alignas" => AlignmentSpelling::CAlignas,
        "align" => AlignmentSpelling::Declspec,
        _ => AlignmentSpelling::GnuAligned,
    };
    if tokens.get(position + 1).map(String::as_str) != Some("(") {
        // `__attribute__((aligned))` asks for the target's largest useful alignment.
        return (spelling == AlignmentSpelling::GnuAligned).then_some((spelling, 16));
    }
    // The argument runs to the matching parenthesis: a literal, or an expression such as
    // `2*sizeof(long int)`.
    let mut depth = 0usize;
    let argument_end = tokens[position + 1..].iter().position(|t| match t.as_str() {
        "(" => {
            depth += 1;
            false
        }
        ")" => {
            depth -= 1;
            depth == 0
        }
        _ => false,
    })? + position
        + 1;
    let argument = &tokens[position + 2..argument_end];
    let value = match argument {
        [literal] => parse_integer(literal)?,
        _ => crate::macros::integer_expression(argument)?,
    };
    Some((spelling, value))
}

pub fn parse_integer(token: &str) -> Option<u64> {
    let digits = token.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8).ok()
    } else {
        digits.parse().ok()
    }
}

fn used_typedef_names<'a>(
    typedefs: &'a BTreeMap<String, ir::Typedef>,
    functions: &'a BTreeMap<String, ir::Function>,
    records: &'a BTreeMap<String, ir::Record>,
    interop: &std::collections::BTreeSet<String>,
) -> std::collections::BTreeSet<&'a str> {
    fn walk<'a>(ty: &'a ir::Type, out: &mut Vec<&'a str>) {
        match ty {
            ir::Type::Typedef { name } => out.push(name),
            ir::Type::Pointer { pointee, .. } => walk(pointee, out),
            ir::Type::Array { element, .. } => walk(element, out),
            ir::Type::Function { ret, params, .. } => {
                walk(ret, out);
                params.iter().for_each(|p| walk(p, out));
            }
            _ => {}
        }
    }
    let mut pending = Vec::new();
    for t in typedefs.values().filter(|t| !t.system && !interop.contains(&t.name)) {
        walk(&t.ty, &mut pending);
    }
    for f in functions.values() {
        walk(&f.ret, &mut pending);
        f.params.iter().for_each(|p| walk(&p.ty, &mut pending));
    }
    for r in records.values() {
        r.fields.iter().for_each(|f| walk(&f.ty, &mut pending));
    }
    let mut used = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if used.insert(name) {
            if let Some(def) = typedefs.get(name) {
                walk(&def.ty, &mut pending);
            }
        }
    }
    used
}

pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::parse_alignment_tokens;
    use ctkgen_ir::AlignmentSpelling;

    fn tokens(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn alignment_values_are_literals_or_constant_expressions_with_sizeof() {
        let value = |text: &str| parse_alignment_tokens(&tokens(text));
        assert_eq!(value("alignas ( 64 )"), Some((AlignmentSpelling::Alignas, 64)));
        assert_eq!(value("__attribute__ ( ( aligned ( 0x80 ) ) )"), Some((AlignmentSpelling::GnuAligned, 128)));
        assert_eq!(
            value("__attribute__ ( ( aligned ( 2 * sizeof ( long int ) ) ) ) pair2 {"),
            Some((AlignmentSpelling::GnuAligned, 16))
        );
        assert_eq!(value("aligned ( 2 * sizeof ( unsigned long int ) )"), Some((AlignmentSpelling::GnuAligned, 16)));
        assert_eq!(value("_Alignas ( ( 4 ) << 2 )"), Some((AlignmentSpelling::CAlignas, 16)));
        assert_eq!(value("aligned ( sizeof ( void * ) )"), Some((AlignmentSpelling::GnuAligned, 8)));
        assert_eq!(value("aligned ( _Alignof ( double ) * 4 )"), Some((AlignmentSpelling::GnuAligned, 32)));
        // A typedef's size is not known here, nor is a value below zero an alignment.
        assert_eq!(value("aligned ( sizeof ( my_t ) )"), None);
        assert_eq!(value("aligned ( 1 - 2 )"), None);
        assert_eq!(value("aligned ( 16"), None);
    }
}
