//! The intermediate model of a CUDA driver header: plain serde data, no clang types.
//!
//! One [`Api`] describes one `cuda.h` (with the extra headers read alongside it, each
//! declaration naming its header) as read by the parser: every function, record, enum,
//! typedef and constant macro, plus the exact layout of every record and where each explicit
//! alignment came from. Every container is ordered, so serialising an `Api` gives the same bytes
//! on every run and host. Emitters read this model and nothing else.
//!
//! # The JSON form (`cargo xtask ir`)
//!
//! One object: `format_version` ([`FORMAT_VERSION`]), `provenance`, then `functions`,
//! `records`, `enums`, `typedefs` and `constants`, each an array sorted by `name`. Fields follow
//! the structs below, snake_case. Types are objects tagged by `kind`: `void`, `primitive`
//! (`name`: `int`, `unsigned_long_long`, ...), `typedef`, `record`, `enum` (each with `name`),
//! `pointer` (`pointee`, `pointee_const` when true), `array` (`element`, `len`), `function`
//! (`ret`, `params`, `variadic` when true). Constant values are `{"kind": "int" | "float" |
//! "str", "value": ...}`; integers are exact (enum values and constants beyond 64 bits fit).
//! Offsets are in bits, sizes and alignments in bytes. Fields that are `false` by default
//! (`anonymous`, `packed`, `deprecated`, `system`) are left out when false. A declaration's
//! `header` is left out for the main header's, and `provenance.extra_headers` when there are
//! none, so a model of a lone header reads as before. Output is pretty-printed with `\n` line
//! endings and ends with a newline.

pub mod abi;
pub mod conventions;
pub mod doc;
pub mod layout;
pub mod shared;

use serde::{Deserialize, Serialize};

pub use conventions::{
    CallConvention, EntryPointTypedef, ExtraHeader, InternalModule, LibraryConventions, LibrarySearch, NameCase,
    OptionCheck, PackageConventions, PerThread, ProcAddress, PythonConventions, RaiseNames, RecordHelper, UtilsModule,
    WheelSource,
};

/// Bumped whenever the JSON form changes shape.
pub const FORMAT_VERSION: u32 = 1;

/// Everything ctkgen knows about one header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Api {
    pub format_version: u32,
    pub provenance: Provenance,
    /// Sorted by public name.
    pub functions: Vec<Function>,
    /// Sorted by name (tag or synthetic name).
    pub records: Vec<Record>,
    /// Sorted by name.
    pub enums: Vec<Enum>,
    /// Sorted by name.
    pub typedefs: Vec<Typedef>,
    /// Sorted by name.
    pub constants: Vec<Constant>,
}

/// Where the model came from and how the header was read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// File name of the main header (never an absolute path), e.g. `cuda.h`.
    pub header: String,
    /// sha256 of the main header's bytes.
    pub header_sha256: String,
    /// CTK release the header belongs to, e.g. `13.1.0`; `None` for a free-standing header.
    pub ctk: Option<String>,
    /// Value of the header's `CUDA_VERSION` macro, e.g. `13010`.
    pub cuda_version: Option<u32>,
    /// Target triple passed to clang, e.g. `x86_64-unknown-linux-gnu`.
    pub target: String,
    /// Language modes the header was read in; layouts agree across all of them.
    pub language_modes: Vec<LanguageMode>,
    /// `clang_getClangVersion()` of the libclang that parsed the header.
    pub libclang_version: String,
    /// The further headers read with the main one, in reading order; generated C includes them
    /// in this order after the main header.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_headers: Vec<ExtraHeaderRead>,
}

impl Provenance {
    /// A provenance with nothing known yet: the parser fills it in, tests build models with it.
    pub fn unknown(header: impl Into<String>) -> Provenance {
        Provenance {
            header: header.into(),
            header_sha256: String::new(),
            ctk: None,
            cuda_version: None,
            target: String::new(),
            language_modes: Vec::new(),
            libclang_version: String::new(),
            extra_headers: Vec::new(),
        }
    }
}

/// A header read after the main one, in the same translation unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtraHeaderRead {
    /// File name (never a path), e.g. `foo_interop.h`.
    pub header: String,
    /// sha256 of its bytes.
    pub sha256: String,
    /// Headers included before it because it needs but does not include them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
}

/// A language standard the header is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum LanguageMode {
    #[serde(rename = "c99")]
    C99,
    #[serde(rename = "c11")]
    C11,
    #[serde(rename = "c17")]
    C17,
    #[serde(rename = "c++03")]
    Cxx03,
    #[serde(rename = "c++11")]
    Cxx11,
    #[serde(rename = "c++17")]
    Cxx17,
}

impl LanguageMode {
    pub const ALL: [LanguageMode; 6] = [
        LanguageMode::C99,
        LanguageMode::C11,
        LanguageMode::C17,
        LanguageMode::Cxx03,
        LanguageMode::Cxx11,
        LanguageMode::Cxx17,
    ];

    /// The `-std=` value for clang and gcc.
    pub fn std_flag(self) -> &'static str {
        match self {
            LanguageMode::C99 => "c99",
            LanguageMode::C11 => "c11",
            LanguageMode::C17 => "c17",
            LanguageMode::Cxx03 => "c++03",
            LanguageMode::Cxx11 => "c++11",
            LanguageMode::Cxx17 => "c++17",
        }
    }

    pub fn is_cxx(self) -> bool {
        matches!(self, LanguageMode::Cxx03 | LanguageMode::Cxx11 | LanguageMode::Cxx17)
    }

    /// Whether the standard has a standard alignment specifier (`_Alignas` / `alignas`).
    /// Headers guard their alignment on exactly this, so older modes silently drop it.
    pub fn has_alignment_specifier(self) -> bool {
        !matches!(self, LanguageMode::C99 | LanguageMode::Cxx03)
    }

    pub fn parse(text: &str) -> Option<LanguageMode> {
        LanguageMode::ALL.into_iter().find(|m| m.std_flag() == text)
    }
}

impl std::fmt::Display for LanguageMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.std_flag())
    }
}

/// A C scalar type, named after its C spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Primitive {
    Bool,
    /// Plain `char` (signedness is target-defined).
    Char,
    SignedChar,
    UnsignedChar,
    Short,
    UnsignedShort,
    Int,
    UnsignedInt,
    Long,
    UnsignedLong,
    LongLong,
    UnsignedLongLong,
    Int128,
    UnsignedInt128,
    Float,
    Double,
    LongDouble,
}

impl Primitive {
    /// The C spelling.
    pub fn c_name(self) -> &'static str {
        match self {
            Primitive::Bool => "_Bool",
            Primitive::Char => "char",
            Primitive::SignedChar => "signed char",
            Primitive::UnsignedChar => "unsigned char",
            Primitive::Short => "short",
            Primitive::UnsignedShort => "unsigned short",
            Primitive::Int => "int",
            Primitive::UnsignedInt => "unsigned int",
            Primitive::Long => "long",
            Primitive::UnsignedLong => "unsigned long",
            Primitive::LongLong => "long long",
            Primitive::UnsignedLongLong => "unsigned long long",
            Primitive::Int128 => "__int128",
            Primitive::UnsignedInt128 => "unsigned __int128",
            Primitive::Float => "float",
            Primitive::Double => "double",
            Primitive::LongDouble => "long double",
        }
    }

    pub fn is_signed_integer(self) -> bool {
        matches!(
            self,
            Primitive::SignedChar
                | Primitive::Short
                | Primitive::Int
                | Primitive::Long
                | Primitive::LongLong
                | Primitive::Int128
        )
    }

    pub fn is_float(self) -> bool {
        matches!(self, Primitive::Float | Primitive::Double | Primitive::LongDouble)
    }
}

/// A reference to a type, as written in a declaration (typedef names are kept).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Type {
    Void,
    Primitive {
        name: Primitive,
    },
    /// A typedef, by name; see [`Api::typedefs`] (or a builtin typedef like `size_t`).
    Typedef {
        name: String,
    },
    /// A struct or union, by its IR name; see [`Api::records`].
    Record {
        name: String,
    },
    /// An enum, by its tag name; see [`Api::enums`].
    Enum {
        name: String,
    },
    Pointer {
        pointee: Box<Type>,
        /// The pointee is `const`-qualified.
        #[serde(default, skip_serializing_if = "is_false")]
        pointee_const: bool,
    },
    Array {
        element: Box<Type>,
        len: u64,
    },
    /// A function type; appears behind a pointer for function pointers.
    Function {
        ret: Box<Type>,
        params: Vec<Type>,
        #[serde(default, skip_serializing_if = "is_false")]
        variadic: bool,
    },
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// A function as declared in the header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// The documented name, e.g. `cuCtxCreate`.
    pub name: String,
    /// The symbol the header binds the name to, e.g. `cuCtxCreate_v4`.
    pub symbol: String,
    /// The name to pass to `cuGetProcAddress` with [`Function::first_version`]. Usually the
    /// public name; the symbol when the header renames to another API (`cuGraphInstantiate`
    /// is `cuGraphInstantiateWithFlags`), so the driver never hands out an older signature.
    pub lookup_name: String,
    /// The per-thread-default-stream symbol (`_ptds` / `_ptsz`), when the header has one.
    pub per_thread_symbol: Option<String>,
    /// The CUDA version to pass to `cuGetProcAddress` for this signature, from the
    /// `PFN_<name>_v<N>` typedefs; `None` when the typedef header has no entry.
    pub first_version: Option<u32>,
    /// Same, for the per-thread-default-stream variant (`PFN_<name>_v<N>_ptds`).
    pub per_thread_first_version: Option<u32>,
    pub ret: Type,
    pub params: Vec<Param>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub deprecated: bool,
    pub doc: Option<String>,
    /// The header that declares it, when not the main one: an extra header (`foo_interop.h`)
    /// or a pinned stand-in (`bar/bar.h`). `None` for the main header's declarations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// The declared name, or `argN` when the prototype leaves it out.
    pub name: String,
    pub ty: Type,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    Struct,
    Union,
}

impl Record {
    /// A complete, tagged, top-level record with the given layout and no attributes or docs
    /// (models built by hand, in tests and tools).
    pub fn complete(name: &str, kind: RecordKind, size: u64, align: u64, fields: Vec<Field>) -> Record {
        Record {
            name: name.into(),
            kind,
            anonymous: false,
            parent: None,
            typedef_name: None,
            complete: true,
            size,
            align,
            packed: false,
            fields,
            explicit_alignments: Vec::new(),
            declared_end: None,
            doc: None,
            header: None,
        }
    }
}

impl RecordKind {
    pub fn c_keyword(self) -> &'static str {
        match self {
            RecordKind::Struct => "struct",
            RecordKind::Union => "union",
        }
    }
}

/// A struct or union with its layout as the compiler computes it for the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The tag (`CUtensorMap_st`), or for an anonymous record a stable synthetic name built
    /// from its parent and member (`CUDA_RESOURCE_DESC_st__res`), never a path or line.
    pub name: String,
    pub kind: RecordKind,
    /// `true` when the C source gives the record no tag, so C code can only reach it through
    /// its parent member or typedef.
    #[serde(default, skip_serializing_if = "is_false")]
    pub anonymous: bool,
    /// For a record declared inside another (tagged or not): the record and member it is
    /// declared with. C++ scopes such a tag to its parent, so portable code reaches it from there.
    pub parent: Option<FieldPath>,
    /// For an anonymous record named only by a typedef (`typedef struct {..} X;`): that typedef.
    pub typedef_name: Option<String>,
    /// `false` for a forward declaration only (opaque handles such as `CUctx_st`).
    pub complete: bool,
    /// Layout; zero for an incomplete record.
    pub size: u64,
    pub align: u64,
    #[serde(default, skip_serializing_if = "is_false")]
    pub packed: bool,
    pub fields: Vec<Field>,
    /// Every explicit alignment on the record or on one of its own fields, per language mode.
    pub explicit_alignments: Vec<ExplicitAlignment>,
    /// Byte offset of the end of the definition (its closing brace) in the header that holds
    /// it: sorted by it, records come in the order the header closes them, an inner record
    /// before the one that holds it. `None` for a record only declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_end: Option<u64>,
    pub doc: Option<String>,
    /// The header that declares it, when not the main one: an extra header (`foo_interop.h`)
    /// or a pinned stand-in (`bar/bar.h`). `None` for the main header's declarations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
}

/// A (record, member) pair naming where an anonymous record sits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FieldPath {
    pub record: String,
    pub field: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Field {
    /// The member name, or `_anonN` (N counts anonymous members of this record) when the member
    /// itself is unnamed.
    pub name: String,
    /// The member has no name in C; its own members are reachable from the parent directly.
    #[serde(default, skip_serializing_if = "is_false")]
    pub anonymous: bool,
    pub ty: Type,
    /// Offset from the start of the record, in bits.
    pub offset_bits: u64,
    /// Width of a bitfield.
    pub bit_width: Option<u32>,
    /// Size and alignment of the field's type in bytes (for a bitfield: of its declared type).
    pub size: u64,
    pub align: u64,
    pub doc: Option<String>,
}

/// What an explicit alignment attribute is attached to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AlignmentTarget {
    Record { record: String },
    Field { record: String, field: String },
    Typedef { typedef: String },
}

/// How an explicit alignment was spelled in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum AlignmentSpelling {
    /// C++11 `alignas(N)` (or C23 `alignas`).
    #[serde(rename = "alignas")]
    Alignas,
    /// C11 `_Alignas(N)`.
    #[serde(rename = "_Alignas")]
    CAlignas,
    /// GNU `__attribute__((aligned(N)))`.
    #[serde(rename = "__attribute__((aligned))")]
    GnuAligned,
    /// MSVC `__declspec(align(N))`.
    #[serde(rename = "__declspec(align)")]
    Declspec,
}

impl AlignmentSpelling {
    /// The attribute as written with `value`, e.g. `__attribute__((aligned(64)))`.
    pub fn render(self, value: u64) -> String {
        match self {
            AlignmentSpelling::Alignas => format!("alignas({value})"),
            AlignmentSpelling::CAlignas => format!("_Alignas({value})"),
            AlignmentSpelling::GnuAligned => format!("__attribute__((aligned({value})))"),
            AlignmentSpelling::Declspec => format!("__declspec(align({value}))"),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            AlignmentSpelling::Alignas => "alignas",
            AlignmentSpelling::CAlignas => "_Alignas",
            AlignmentSpelling::GnuAligned => "__attribute__((aligned))",
            AlignmentSpelling::Declspec => "__declspec(align)",
        }
    }
}

/// One explicit alignment attribute seen in one language mode.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ExplicitAlignment {
    pub target: AlignmentTarget,
    pub spelling: AlignmentSpelling,
    /// The requested alignment in bytes.
    pub value: u64,
    pub mode: LanguageMode,
}

/// An enum with its constants in declaration order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Enum {
    /// The tag (`CUresult_enum`), or the typedef name for an untagged enum.
    pub name: String,
    /// Typedefs naming this enum, e.g. `["CUresult"]`.
    pub typedef_names: Vec<String>,
    pub underlying: Primitive,
    pub constants: Vec<EnumConstant>,
    pub doc: Option<String>,
    /// The header that declares it, when not the main one: an extra header (`foo_interop.h`)
    /// or a pinned stand-in (`bar/bar.h`). `None` for the main header's declarations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnumConstant {
    pub name: String,
    pub value: i128,
    pub doc: Option<String>,
}

/// A typedef. Alignment attributes on it are listed in [`Typedef::explicit_alignments`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Typedef {
    pub name: String,
    pub ty: Type,
    /// Size and alignment of the named type in bytes (0 for void, functions, incomplete types).
    pub size: u64,
    pub align: u64,
    pub explicit_alignments: Vec<ExplicitAlignment>,
    /// Declared by a system header (`size_t`, `uint64_t`) rather than the CUDA header; emitters
    /// map these to their own language's spelling.
    #[serde(default, skip_serializing_if = "is_false")]
    pub system: bool,
    pub doc: Option<String>,
    /// The header that declares it, when not the main one: an extra header (`foo_interop.h`)
    /// or a pinned stand-in (`bar/bar.h`). `None` for the main header's declarations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
}

/// An object-like macro that evaluates to a constant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Constant {
    pub name: String,
    pub ty: Type,
    pub value: ConstantValue,
    /// The macro body as written, tokens joined by single spaces.
    pub expr: String,
    pub doc: Option<String>,
    /// The header that declares it, when not the main one: an extra header (`foo_interop.h`)
    /// or a pinned stand-in (`bar/bar.h`). `None` for the main header's declarations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum ConstantValue {
    Int(i128),
    Float(f64),
    Str(String),
}

impl Api {
    pub fn record(&self, name: &str) -> Option<&Record> {
        self.records.binary_search_by(|r| r.name.as_str().cmp(name)).ok().map(|i| &self.records[i])
    }

    pub fn typedef(&self, name: &str) -> Option<&Typedef> {
        self.typedefs.binary_search_by(|t| t.name.as_str().cmp(name)).ok().map(|i| &self.typedefs[i])
    }

    pub fn enumeration(&self, name: &str) -> Option<&Enum> {
        self.enums.binary_search_by(|e| e.name.as_str().cmp(name)).ok().map(|i| &self.enums[i])
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.binary_search_by(|f| f.name.as_str().cmp(name)).ok().map(|i| &self.functions[i])
    }

    /// Sorts every top-level list by name, the order the JSON form promises.
    pub fn sort(&mut self) {
        self.functions.sort_by(|a, b| a.name.cmp(&b.name));
        self.records.sort_by(|a, b| a.name.cmp(&b.name));
        self.enums.sort_by(|a, b| a.name.cmp(&b.name));
        self.typedefs.sort_by(|a, b| a.name.cmp(&b.name));
        self.constants.sort_by(|a, b| a.name.cmp(&b.name));
    }

    /// The deterministic JSON form (pretty, `\n` line endings, trailing newline).
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("IR serialises");
        text.push('\n');
        text
    }

    pub fn from_json(text: &str) -> Result<Api, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// A file an emitter produces: a path relative to the output folder and its full contents.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct OutputFile {
    /// Relative, `/`-separated.
    pub path: String,
    /// The text of a text file; empty for a binary one.
    pub contents: String,
    /// The bytes of a file that is not text (a library archive the package carries), written
    /// as they are; `None` for a text file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<Vec<u8>>,
}

impl OutputFile {
    /// A text file.
    pub fn text(path: impl Into<String>, contents: impl Into<String>) -> OutputFile {
        OutputFile { path: path.into(), contents: contents.into(), binary: None }
    }

    /// A file of any bytes.
    pub fn binary(path: impl Into<String>, bytes: Vec<u8>) -> OutputFile {
        OutputFile { path: path.into(), contents: String::new(), binary: Some(bytes) }
    }

    /// What the file holds, as bytes.
    pub fn bytes(&self) -> &[u8] {
        self.binary.as_deref().unwrap_or(self.contents.as_bytes())
    }
}
