//! Property tests over random C records: nesting, arrays, unions, bitfields, `_Alignas` /
//! `alignas` and `__attribute__((aligned(N)))` with N a power of two from 1 to 256, packing.
//!
//! Records come in batches of 50 per header (one libclang parse, one gcc and one g++ run per
//! batch). For every batch:
//! (a) the model's layouts equal gcc's and g++'s: the oracle's static assertions compile;
//! (b) the Cython emitter keeps a record in separately allocated aligned storage exactly when
//!     its alignment in the model exceeds 16;
//! (c) the Rust emitter refuses, naming it, a packed record that also carries an explicit
//!     alignment; every other record is collected, and at the end all of them are emitted
//!     into one crate that must build, which runs its compile-time layout assertions.
//!
//! 20 batches (1000 records) by default; `PROPTEST_CASES` sets the number of batches and
//! `PROPTEST_RNG_SEED` the seed (fixed by default, printed on failure).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use ctkgen_ir::Api;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};

const RECORDS_PER_BATCH: usize = 50;
const DEFAULT_BATCHES: u32 = 20;
const DEFAULT_SEED: u64 = 0x00c7_6e11_a119_0001;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Scalar {
    Bool,
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
    Float,
    Double,
    Pointer,
    Int128,
    Enum,
}

impl Scalar {
    const ALL: [Scalar; 17] = [
        Scalar::Bool,
        Scalar::Char,
        Scalar::SignedChar,
        Scalar::UnsignedChar,
        Scalar::Short,
        Scalar::UnsignedShort,
        Scalar::Int,
        Scalar::UnsignedInt,
        Scalar::Long,
        Scalar::UnsignedLong,
        Scalar::LongLong,
        Scalar::UnsignedLongLong,
        Scalar::Float,
        Scalar::Double,
        Scalar::Pointer,
        Scalar::Int128,
        Scalar::Enum,
    ];

    /// The spelling before the declarator (`PT_BOOL` is `_Bool` in C and `bool` in C++).
    fn spelling(self) -> &'static str {
        match self {
            Scalar::Bool => "PT_BOOL",
            Scalar::Char => "char",
            Scalar::SignedChar => "signed char",
            Scalar::UnsignedChar => "unsigned char",
            Scalar::Short => "short",
            Scalar::UnsignedShort => "unsigned short",
            Scalar::Int => "int",
            Scalar::UnsignedInt => "unsigned int",
            Scalar::Long => "long",
            Scalar::UnsignedLong => "unsigned long",
            Scalar::LongLong => "long long",
            Scalar::UnsignedLongLong => "unsigned long long",
            Scalar::Float => "float",
            Scalar::Double => "double",
            Scalar::Pointer => "void *",
            Scalar::Int128 => "__int128",
            Scalar::Enum => "enum PT_Enum",
        }
    }

    /// Size in bytes, which is also the natural alignment on x86-64 Linux.
    fn size(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::Char | Scalar::SignedChar | Scalar::UnsignedChar => 1,
            Scalar::Short | Scalar::UnsignedShort => 2,
            Scalar::Int | Scalar::UnsignedInt | Scalar::Float | Scalar::Enum => 4,
            Scalar::Int128 => 16,
            _ => 8,
        }
    }

    /// Types that may be bitfields (`__int128` bitfields are left to another day).
    fn is_integer(self) -> bool {
        !matches!(self, Scalar::Bool | Scalar::Float | Scalar::Double | Scalar::Pointer | Scalar::Int128)
    }
}

#[derive(Clone, Debug)]
enum Member {
    Scalar(Scalar),
    /// A record declared earlier in the batch (index taken modulo the records before it).
    Earlier(usize),
    /// A tagged record declared inside this one.
    Inline(Box<RecordSpec>),
    /// An unnamed struct or union member (C11 anonymous member).
    Anonymous(Box<RecordSpec>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Spelling {
    /// `_Alignas(N)` in C, `alignas(N)` in C++ (through one macro, as `cuda.h` does).
    Standard,
    /// `__attribute__((aligned(N)))`.
    Gnu,
}

#[derive(Clone, Debug)]
struct FieldSpec {
    member: Member,
    dims: Vec<u8>,
    bits: Option<u8>,
    align: Option<(Spelling, u32)>,
}

#[derive(Clone, Debug)]
struct RecordSpec {
    /// Top-level only: `typedef struct {..} Name;`, a record C names only through its typedef.
    typedef_only: bool,
    union: bool,
    packed: bool,
    record_align: Option<u32>,
    fields: Vec<FieldSpec>,
}

fn power_of_two() -> impl Strategy<Value = u32> {
    (0u32..=8).prop_map(|shift| 1 << shift)
}

fn scalar() -> impl Strategy<Value = Scalar> {
    proptest::sample::select(Scalar::ALL.to_vec())
}

fn field(depth: u32) -> BoxedStrategy<FieldSpec> {
    let member = if depth >= 2 {
        prop_oneof![4 => scalar().prop_map(Member::Scalar), 1 => any::<usize>().prop_map(Member::Earlier)].boxed()
    } else {
        prop_oneof![
            8 => scalar().prop_map(Member::Scalar),
            2 => any::<usize>().prop_map(Member::Earlier),
            1 => record(depth + 1).prop_map(|r| Member::Inline(Box::new(r))),
            1 => record(depth + 1).prop_map(|r| Member::Anonymous(Box::new(r))),
        ]
        .boxed()
    };
    let dims = prop_oneof![6 => Just(Vec::new()), 2 => proptest::collection::vec(1u8..=4, 1..=2)];
    let bits = prop_oneof![5 => Just(None), 1 => (0u8..=64).prop_map(Some)];
    let align = prop_oneof![
        6 => Just(None),
        1 => power_of_two().prop_map(|n| Some((Spelling::Standard, n))),
        1 => power_of_two().prop_map(|n| Some((Spelling::Gnu, n))),
    ];
    (member, dims, bits, align)
        .prop_map(|(member, dims, bits, align)| {
            let mut field = FieldSpec { member, dims, bits, align };
            // Only integer scalars may be bitfields, and a bitfield takes no array or alignment.
            match (&field.member, field.bits) {
                (Member::Scalar(s), Some(bits)) if s.is_integer() => {
                    // `enum E : 0;` reads in C++ as an enum declaration with a fixed underlying type.
                    let least = if *s == Scalar::Enum { 1 } else { 0 };
                    field.bits = Some(bits.clamp(least, 8 * s.size() as u8));
                    field.dims.clear();
                    field.align = None;
                }
                _ => field.bits = None,
            }
            match (&field.member, field.align) {
                // The standard specifier may not lower a type's alignment.
                (Member::Scalar(s), Some((Spelling::Standard, n))) => {
                    field.align = Some((Spelling::Standard, n.max(s.size())))
                }
                (Member::Scalar(_), _) => {}
                // Unnamed members take neither arrays nor alignment; records take the GNU spelling only.
                (Member::Anonymous(inner), _) => {
                    field.member = Member::Anonymous(Box::new(without_tags(inner)));
                    field.dims.clear();
                    field.align = None;
                }
                (_, Some((_, n))) => field.align = Some((Spelling::Gnu, n)),
                (_, None) => {}
            }
            field
        })
        .boxed()
}

/// C++ declares no types inside an unnamed member: its tagged inner records become unnamed too.
fn without_tags(spec: &RecordSpec) -> RecordSpec {
    let mut spec = spec.clone();
    for field in &mut spec.fields {
        if let Member::Inline(inner) | Member::Anonymous(inner) = &field.member {
            field.member = Member::Anonymous(Box::new(without_tags(inner)));
            field.dims.clear();
            field.align = None;
            field.bits = None;
        }
    }
    spec
}

fn record(depth: u32) -> BoxedStrategy<RecordSpec> {
    let count = if depth == 0 { 1..=6usize } else { 1..=3usize };
    let typedef_only =
        if depth == 0 { prop_oneof![5 => Just(false), 1 => Just(true)].boxed() } else { Just(false).boxed() };
    (
        typedef_only,
        prop_oneof![3 => Just(false), 1 => Just(true)],
        prop_oneof![4 => Just(false), 1 => Just(true)],
        prop_oneof![5 => Just(None), 1 => power_of_two().prop_map(Some)],
        proptest::collection::vec(field(depth), count),
    )
        .prop_map(|(typedef_only, union, packed, record_align, mut fields)| {
            // A first member that is a zero-width bitfield would leave a record with no named
            // member (0 bytes in C, 1 in C++).
            if let Some(first) = fields.first_mut() {
                if first.bits == Some(0) {
                    first.bits = Some(1);
                }
            }
            RecordSpec { typedef_only, union, packed, record_align, fields }
        })
        .boxed()
}

fn batch() -> impl Strategy<Value = Vec<RecordSpec>> {
    proptest::collection::vec(record(0), RECORDS_PER_BATCH)
}

const PRELUDE: &str = "enum PT_Enum { PT_ENUM_A = 0, PT_ENUM_B = 100000 };\n#ifdef __cplusplus\n#define PT_ALIGNAS(n) alignas(n)\n#define PT_BOOL bool\n#else\n#define PT_ALIGNAS(n) _Alignas(n)\n#define PT_BOOL _Bool\n#endif\n";

/// C source for a batch; record `i` is named `{prefix}_{i}` and its inner tags `{prefix}_{i}_in{k}`.
struct Renderer<'a> {
    prefix: &'a str,
    out: String,
    /// Inner tags and field names so far in the current top-level record: members of unnamed
    /// members share their parent's scope, so names are unique across the whole record.
    inner: usize,
    fields: usize,
}

impl Renderer<'_> {
    fn record(&mut self, index: usize, spec: &RecordSpec) {
        let name = format!("{}_{index}", self.prefix);
        self.inner = 0;
        self.fields = 0;
        if spec.typedef_only {
            let _ = write!(self.out, "typedef {} {}", keyword(spec), attributes(spec));
            self.body(index, spec, 0);
            let _ = writeln!(self.out, " {name};");
            return;
        }
        let _ = write!(self.out, "{} {}{name} ", keyword(spec), attributes(spec));
        self.body(index, spec, 0);
        self.out.push_str(";\n");
    }

    fn body(&mut self, index: usize, spec: &RecordSpec, depth: usize) {
        self.out.push_str("{\n");
        for field in &spec.fields {
            let indent = "    ".repeat(depth + 1);
            self.out.push_str(&indent);
            if let Some((Spelling::Standard, n)) = field.align {
                let _ = write!(self.out, "PT_ALIGNAS({n}) ");
            }
            match &field.member {
                Member::Scalar(s) => self.out.push_str(s.spelling()),
                Member::Earlier(pick) => {
                    // The first record has nothing before it: it gets an int instead.
                    if index == 0 {
                        self.out.push_str("int");
                    } else {
                        let _ = write!(self.out, "struct_or_union_{}_{}", self.prefix, pick % index);
                    }
                }
                Member::Inline(inner) => {
                    let name = format!("{}_{index}_in{}", self.prefix, self.inner);
                    self.inner += 1;
                    let _ = write!(self.out, "{} {}{name} ", keyword(inner), attributes(inner));
                    self.body(index, inner, depth + 1);
                }
                Member::Anonymous(inner) => {
                    let _ = write!(self.out, "{} {}", keyword(inner), attributes(inner));
                    self.body(index, inner, depth + 1);
                    self.out.push_str(";\n");
                    continue;
                }
            }
            let k = self.fields;
            self.fields += 1;
            match field.bits {
                Some(0) => self.out.push_str(" : 0"),
                Some(bits) => {
                    let _ = write!(self.out, " f{k} : {bits}");
                }
                None => {
                    let _ = write!(self.out, " f{k}");
                }
            }
            for dim in &field.dims {
                let _ = write!(self.out, "[{dim}]");
            }
            if let Some((Spelling::Gnu, n)) = field.align {
                let _ = write!(self.out, " __attribute__((aligned({n})))");
            }
            self.out.push_str(";\n");
        }
        let _ = write!(self.out, "{}}}", "    ".repeat(depth));
    }
}

fn keyword(spec: &RecordSpec) -> &'static str {
    if spec.union {
        "union"
    } else {
        "struct"
    }
}

fn attributes(spec: &RecordSpec) -> String {
    let mut parts = Vec::new();
    if spec.packed {
        parts.push("packed".to_string());
    }
    if let Some(n) = spec.record_align {
        parts.push(format!("aligned({n})"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("__attribute__(({})) ", parts.join(", "))
    }
}

/// The header for `records` (a subset keeps its original indices and names).
fn render(prefix: &str, records: &[(usize, &RecordSpec)], all: &[RecordSpec]) -> String {
    let mut renderer = Renderer { prefix, out: String::new(), inner: 0, fields: 0 };
    // Members of earlier records are spelled through a macro, so the keyword matches the record.
    for (index, spec) in all.iter().enumerate() {
        let spelled = if spec.typedef_only { String::new() } else { format!("{} ", keyword(spec)) };
        let _ = writeln!(renderer.out, "#define struct_or_union_{prefix}_{index} {spelled}{prefix}_{index}");
    }
    for (index, spec) in records {
        renderer.record(*index, spec);
    }
    for (index, _) in all.iter().enumerate() {
        let _ = writeln!(renderer.out, "#undef struct_or_union_{prefix}_{index}");
    }
    renderer.out
}

/// Whether a record carries an explicit alignment anywhere in it (fields, inner records, the
/// records it holds). A packed record around one may have no Rust form; records for the Rust
/// build leave all of them out, which may skip a few that Rust could express.
fn has_explicit_alignment(spec: &RecordSpec, index: usize, all: &[RecordSpec]) -> bool {
    spec.record_align.is_some()
        || spec.fields.iter().any(|f| {
            f.align.is_some()
                || match &f.member {
                    Member::Scalar(_) => false,
                    Member::Earlier(pick) => index > 0 && has_explicit_alignment(&all[pick % index], pick % index, all),
                    Member::Inline(inner) | Member::Anonymous(inner) => has_explicit_alignment(inner, index, all),
                }
        })
}

fn packed_around_alignment(spec: &RecordSpec, index: usize, all: &[RecordSpec]) -> bool {
    let inner_packed = spec.fields.iter().any(|f| match &f.member {
        Member::Inline(inner) | Member::Anonymous(inner) => packed_around_alignment(inner, index, all),
        _ => false,
    });
    inner_packed || (spec.packed && has_explicit_alignment(spec, index, all))
}

/// Records Rust can express: not packed around an alignment, and holding no record that is.
fn rust_expressible(all: &[RecordSpec]) -> Vec<bool> {
    let mut ok: Vec<bool> = Vec::with_capacity(all.len());
    for (index, spec) in all.iter().enumerate() {
        let uses_bad = spec_uses(spec).into_iter().any(|pick| index > 0 && !ok[pick % index]);
        ok.push(!uses_bad && !packed_around_alignment(spec, index, all));
    }
    ok
}

fn spec_uses(spec: &RecordSpec) -> Vec<usize> {
    let mut out = Vec::new();
    for f in &spec.fields {
        match &f.member {
            Member::Earlier(pick) => out.push(*pick),
            Member::Inline(inner) | Member::Anonymous(inner) => out.extend(spec_uses(inner)),
            Member::Scalar(_) => {}
        }
    }
    out
}

fn parse(dir: &Path, name: &str, source: &str) -> Result<Api, String> {
    let path = dir.join(name);
    std::fs::write(&path, format!("{PRELUDE}{source}")).unwrap();
    ctkgen_clang::parse_header(&path, ctkgen_robustness::parse_options()).map_err(|e| format!("{name}: {e}"))
}

/// (a) gcc (C11) and g++ (C++17) agree with every size, alignment and offset in the model.
fn check_with_gcc(dir: &Path, api: &Api, header: &str) -> Result<(), String> {
    let oracle = dir.join("oracle.c");
    std::fs::write(&oracle, ctkgen::oracle::c_source(api, header)).unwrap();
    for (compiler, lang, std) in [("gcc", "c", "-std=c11"), ("g++", "c++", "-std=c++17")] {
        let out = Command::new(compiler)
            .args([std, "-fsyntax-only", "-w", "-x", lang])
            .arg("-I")
            .arg(dir)
            .arg(&oracle)
            .output()
            .unwrap();
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let first: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).take(5).collect();
            return Err(format!("{compiler} {std} disagrees with the model:\n{}", first.join("\n")));
        }
    }
    Ok(())
}

/// (b) Separate aligned storage exactly for records aligned beyond 16 in the model.
fn check_cython_storage(api: &Api, options: &ctkgen_cython::CythonOptions) -> Result<usize, String> {
    let files = ctkgen_cython::emit(api, options).map_err(|e| format!("cython: {e}"))?;
    let mut decided = 0;
    let mut classes = std::collections::BTreeMap::new();
    for file in files.iter().filter(|f| f.path.contains("_records_") && f.path.ends_with(".pyx")) {
        let mut current: Option<(String, String)> = None;
        for line in file.contents.lines().chain(std::iter::once("cdef class END(_Record):")) {
            if let Some(rest) = line.strip_prefix("cdef class ") {
                if let Some((name, body)) = current.take() {
                    classes.insert(name, body);
                }
                // Records derive from _Record, or from _RefRecord when they have pointer members.
                if let Some(name) = rest.strip_suffix("(_Record):").or_else(|| rest.strip_suffix("(_RefRecord):")) {
                    current = Some((name.to_string(), String::new()));
                }
            } else if let Some((_, body)) = current.as_mut() {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    for record in api.records.iter().filter(|r| r.complete) {
        let class = ctkgen_cython::types::record_class(record);
        let Some(body) = classes.get(&class) else {
            if !record.anonymous {
                return Err(format!("no class for tagged record {}", record.name));
            }
            continue;
        };
        // Inline: a by-value C member declared on the class. Separate: a block allocated with
        // the record's alignment (the helper's name may change; the call's shape may not).
        let inline = body.lines().any(|l| l.starts_with("    cdef cydriver.") && !l.contains('('));
        let separate = body.lines().any(|l| l.contains("block(") && l.contains(&format!(", {})", record.align)));
        let want_separate = record.align > ctkgen_ir::layout::PYTHON_OBJECT_ALIGNMENT;
        if inline == separate || separate != want_separate {
            return Err(format!(
                "{} (align {}): inline storage {inline}, aligned block {separate}",
                record.name, record.align
            ));
        }
        decided += 1;
    }
    Ok(decided)
}

/// What the passing batches leave for the one Rust build at the end.
struct RustCollection {
    /// Per batch: its prefix, its records, and the indices that go to the Rust build.
    batches: Vec<(String, Vec<RecordSpec>, Vec<usize>)>,
    /// Packed records around an alignment of their own, refused by name as they must be.
    refused: usize,
}

impl RustCollection {
    fn records(&self) -> usize {
        self.batches.iter().map(|(_, _, chosen)| chosen.len()).sum()
    }

    fn source(&self) -> String {
        self.batches
            .iter()
            .map(|(prefix, specs, chosen)| {
                render(prefix, &chosen.iter().map(|i| (*i, &specs[*i])).collect::<Vec<_>>(), specs)
            })
            .collect()
    }

    /// Drops the top-level record `B<batch>_<index>` and every record that holds it.
    fn drop_record(&mut self, name: &str) -> bool {
        let Some((batch, index)) = name.strip_prefix('B').and_then(|rest| {
            let mut parts = rest.splitn(3, '_');
            Some((
                parts.next()?.to_string(),
                parts.next()?.trim_end_matches(|c: char| !c.is_ascii_digit()).parse::<usize>().ok()?,
            ))
        }) else {
            return false;
        };
        let Some((_, specs, chosen)) = self.batches.iter_mut().find(|(prefix, _, _)| prefix[1..] == batch) else {
            return false;
        };
        let mut dropped = vec![index];
        for (i, spec) in specs.iter().enumerate().skip(index + 1) {
            if spec_uses(spec).iter().any(|p| dropped.contains(&(p % i))) {
                dropped.push(i);
            }
        }
        let before = chosen.len();
        chosen.retain(|i| !dropped.contains(i));
        chosen.len() < before
    }
}

fn run_batch(
    dir: &Path,
    prefix: &str,
    specs: &[RecordSpec],
    rust: &Mutex<RustCollection>,
) -> Result<(), TestCaseError> {
    let all: Vec<(usize, &RecordSpec)> = specs.iter().enumerate().collect();
    let source = render(prefix, &all, specs);
    let fail = |what: String| TestCaseError::fail(format!("{what}\n--- header ---\n{PRELUDE}{source}"));
    let api = parse(dir, "batch.h", &source).map_err(fail)?;
    check_with_gcc(dir, &api, "batch.h").map_err(fail)?;
    check_cython_storage(&api, ctkgen_robustness::cython_options()).map_err(fail)?;

    let expressible = rust_expressible(specs);
    let chosen: Vec<(usize, &RecordSpec)> = all.iter().copied().filter(|(i, _)| expressible[*i]).collect();
    // A packed record with an alignment attribute of its own (on it or a field), whose members'
    // records are all expressible, alone with what it uses: the emitter must refuse it by name.
    let refusable = |i: usize, s: &RecordSpec| {
        s.packed
            && (s.record_align.is_some() || s.fields.iter().any(|f| f.align.is_some()))
            && spec_uses(s).iter().all(|p| i == 0 || expressible[p % i])
    };
    if let Some((index, _)) = all.iter().find(|(i, s)| refusable(*i, s)) {
        let mut needed = vec![*index];
        let mut k = 0;
        while k < needed.len() {
            let i = needed[k];
            needed.extend(spec_uses(&specs[i]).into_iter().filter(|_| i > 0).map(|p| p % i));
            k += 1;
        }
        needed.sort();
        needed.dedup();
        let subset: Vec<(usize, &RecordSpec)> = needed.iter().map(|i| (*i, &specs[*i])).collect();
        let refused_source = render(prefix, &subset, specs);
        let api = parse(dir, "refused.h", &refused_source).map_err(fail)?;
        match ctkgen_rust::emit(
            &api,
            &ctkgen_rust::RustOptions::with_command("layout properties"),
            ctkgen_robustness::driver_conventions(),
        ) {
            Ok(_) => {
                return Err(fail(format!(
                    "the Rust emitter accepted {prefix}_{index}, packed around an explicit alignment"
                )))
            }
            Err(error) => {
                if !error.to_string().contains(&format!("`{prefix}_{index}")) {
                    return Err(fail(format!("the Rust refusal names no record of {prefix}_{index}: {error}")));
                }
            }
        }
        rust.lock().unwrap().refused += 1;
    }
    let mut collection = rust.lock().unwrap();
    collection.batches.push((prefix.to_string(), specs.to_vec(), chosen.iter().map(|(i, _)| *i).collect()));
    Ok(())
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The target folder of this test binary, for the generated crate's own target folder.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).and_then(Path::parent).unwrap().join("robustness-rust")
}

/// (c) All collected records in one generated crate; `cargo build` runs its layout assertions.
/// Emits the collection as one crate. The emitter may refuse more packed records than the
/// generator predicts (a packed record around one whose alignment comes from a bitfield's
/// type, say); such a refusal must name a packed record, which is then left out. Returns how
/// many were left out that way.
fn emit_collection(
    dir: &Path,
    collection: &mut RustCollection,
) -> Result<(Vec<ctkgen_ir::OutputFile>, String, usize), String> {
    let mut left_out = 0;
    loop {
        let source = collection.source();
        let kept = std::env::temp_dir().join("ctkgen-layout-properties-rust.h");
        std::fs::write(&kept, format!("{PRELUDE}{source}")).unwrap();
        let api = parse(dir, "collected.h", &source)?;
        match ctkgen_rust::emit(
            &api,
            &ctkgen_rust::RustOptions::with_command("layout properties"),
            ctkgen_robustness::driver_conventions(),
        ) {
            Ok(files) => return Ok((files, source, left_out)),
            Err(ctkgen_rust::RustEmitError::UnrepresentableLayout { record, .. })
                if api.record(&record).is_some_and(|r| r.packed) && collection.drop_record(&record) =>
            {
                left_out += 1;
            }
            Err(error) => return Err(format!("rust emitter (header kept at {}): {error}", kept.display())),
        }
    }
}

fn build_rust_crate(source: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let api = parse(dir.path(), "crate.h", source)?;
    let files = ctkgen_rust::emit(
        &api,
        &ctkgen_rust::RustOptions::with_command("layout properties"),
        ctkgen_robustness::driver_conventions(),
    )
    .map_err(|e| format!("rust emitter: {e}"))?;
    build_files(dir.path(), files, source)
}

fn build_files(dir: &Path, files: Vec<ctkgen_ir::OutputFile>, source: &str) -> Result<(), String> {
    let kept = std::env::temp_dir().join("ctkgen-layout-properties-rust.h");
    std::fs::write(&kept, format!("{PRELUDE}{source}")).unwrap();
    let krate = dir.join("crate");
    for file in files {
        let path = krate.join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, file.contents).unwrap();
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let build = |offline: bool| {
        let mut command = Command::new(&cargo);
        command
            .args(["build", "--quiet"])
            .current_dir(&krate)
            .env("CARGO_TARGET_DIR", target_dir())
            .env_remove("RUSTFLAGS");
        if offline {
            command.arg("--offline");
        }
        command.output().unwrap()
    };
    // Offline when libloading is already in the local registry; otherwise let cargo fetch it.
    let mut out = build(true);
    if !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("offline") {
        out = build(false);
    }
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "the generated crate does not build (header kept at {}):\n{}",
            kept.display(),
            &stderr[..stderr.len().min(6000)]
        ));
    }
    Ok(())
}

#[test]
fn random_records_agree_with_gcc_and_both_emitters() {
    let seed = env_or("PROPTEST_RNG_SEED", DEFAULT_SEED);
    let batches = env_or("PROPTEST_CASES", DEFAULT_BATCHES);
    let config = Config {
        cases: batches,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        max_shrink_iters: 200,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let dir = tempfile::tempdir().unwrap();
    let counter = std::sync::atomic::AtomicUsize::new(0);
    let rust = Mutex::new(RustCollection { batches: Vec::new(), refused: 0 });
    let outcome = runner.run(&batch(), |specs| {
        let prefix = format!("B{}", counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        run_batch(dir.path(), &prefix, &specs, &rust)
    });
    if let Err(error) = outcome {
        panic!("PROPTEST_RNG_SEED={seed} PROPTEST_CASES={batches}: {error}");
    }
    let mut collection = rust.into_inner().unwrap();
    let checked = batches as usize * RECORDS_PER_BATCH;
    let crate_dir = tempfile::tempdir().unwrap();
    let (files, source, left_out) = emit_collection(crate_dir.path(), &mut collection)
        .unwrap_or_else(|e| panic!("PROPTEST_RNG_SEED={seed} PROPTEST_CASES={batches}: {e}"));
    let records = collection.records();
    println!(
        "{checked} records against gcc and Cython; {records} built in one Rust crate; {} packed records refused by name as required, {left_out} more left out after a refusal naming a packed record",
        collection.refused
    );
    assert!(records * 5 > checked * 2, "only {records} records reached Rust");
    if let Err(error) = build_files(crate_dir.path(), files, &source) {
        panic!("PROPTEST_RNG_SEED={seed} PROPTEST_CASES={batches}: {error}");
    }
}

/// Alignments that are not powers of two are refused by clang, in both spellings.
#[test]
fn alignments_that_are_not_powers_of_two_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for n in [3u32, 6, 12, 24, 48, 96, 100, 255] {
        for (i, source) in [
            format!("struct S {{ PT_ALIGNAS({n}) int x; }};\n"),
            format!("struct S {{ int x; }} __attribute__((aligned({n})));\n"),
        ]
        .iter()
        .enumerate()
        {
            let name = format!("odd{n}_{i}.h");
            let error = parse(dir.path(), &name, source).expect_err(&format!("aligned({n}) accepted"));
            assert!(error.contains("power of 2") || error.contains("alignment"), "{error}");
            assert!(error.contains(&name), "{error}");
        }
    }
}

/// The checks can fail: a model with one doctored offset is refused by gcc, the legacy inline
/// layout fails the Cython storage check, and packed around aligned is refused by Rust.
#[test]
fn the_checks_catch_a_wrong_model() {
    let dir = tempfile::tempdir().unwrap();
    let source = "struct W { char c; PT_ALIGNAS(32) int x; };\nstruct __attribute__((packed)) P { char c; int x __attribute__((aligned(8))); };\n";
    let api = parse(dir.path(), "w.h", source).unwrap();
    check_with_gcc(dir.path(), &api, "w.h").unwrap();
    check_cython_storage(&api, ctkgen_robustness::cython_options()).unwrap();

    let mut wrong = api.clone();
    let w = wrong.records.iter_mut().find(|r| r.name == "W").unwrap();
    w.fields[1].offset_bits = 64;
    assert!(check_with_gcc(dir.path(), &wrong, "w.h").unwrap_err().contains("offset W.x"));

    // The negative-control layout keeps over-aligned records inline.
    let legacy =
        ctkgen_cython::CythonOptions { legacy_inline_layout: true, ..ctkgen_robustness::cython_options().clone() };
    assert!(check_cython_storage(&api, &legacy).unwrap_err().contains("W (align 32)"));

    let error = ctkgen_rust::emit(&api, &ctkgen_rust::RustOptions::default(), ctkgen_robustness::driver_conventions())
        .unwrap_err();
    assert!(error.to_string().contains("`P`"), "{error}");
}

/// A union with bitfields once gave accessors that borrowed a union field outside `unsafe`, so
/// the crate did not compile (E0133).
#[test]
fn rust_bitfields_in_a_union_build() {
    build_rust_crate("union U { unsigned int low : 4; unsigned int all; };\n").unwrap();
}
