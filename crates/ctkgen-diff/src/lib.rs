//! Compares two models of `cuda.h` by ABI, for whoever reviews a CTK bump.
//!
//! Spelling is not ABI: typedefs are resolved and records compared by layout (size, alignment,
//! every field's offset and type, recursively), so a struct tag renamed with an identical
//! layout is reported as a rename rather than as a changed signature. What does change the ABI
//! is sorted by how much a binding has to care:
//!
//! | exit code | [`Verdict`]      | meaning                                                    |
//! |-----------|------------------|------------------------------------------------------------|
//! | 0         | `Identical`      | nothing ABI-relevant changed (notes and churn may remain)  |
//! | 1         | `Compatible`     | only additions and same-layout renames                     |
//! | 2         | `Incompatible`   | something a binding of the old side relies on changed      |
//!
//! Sentinels that move every release (`*_MAX`, `*_NUM_*`, widened `*_MASK`, `CUDA_VERSION`)
//! are reported as expected churn and never decide the verdict.
//!
//! The crate does no I/O: [`diff`] takes two [`Api`]s and returns an [`AbiDiff`], which renders
//! itself as Markdown for a pull-request comment or as JSON for tools. Both forms list changes
//! in a fixed order, so equal inputs give equal bytes.

mod enums;
mod functions;
mod layout_eq;
mod markdown;
mod records;

use ctkgen_ir::{Api, Provenance};
use serde::Serialize;

/// Everything that differs between two models, in report order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AbiDiff {
    pub old: Side,
    pub new: Side,
    /// Sorted by section, impact (incompatible first), then subject.
    pub changes: Vec<Change>,
}

/// Which header one side of the comparison is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Side {
    pub header: String,
    pub header_sha256: String,
    pub ctk: Option<String>,
    pub cuda_version: Option<u32>,
}

impl Side {
    fn from_provenance(p: &Provenance) -> Side {
        Side {
            header: p.header.clone(),
            header_sha256: p.header_sha256.clone(),
            ctk: p.ctk.clone(),
            cuda_version: p.cuda_version,
        }
    }

    /// `CTK 13.0.3 (CUDA_VERSION 13000)`, or the header name for a free-standing header.
    pub fn label(&self) -> String {
        let name = match &self.ctk {
            Some(ctk) => format!("CTK {ctk}"),
            None => self.header.clone(),
        };
        match self.cuda_version {
            Some(v) => format!("{name} (CUDA_VERSION {v})"),
            None => name,
        }
    }
}

/// The overall answer, ordered from harmless to breaking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Identical,
    /// Additions and same-layout renames only: code built against the old side keeps working.
    Compatible,
    Incompatible,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Identical => "identical",
            Verdict::Compatible => "compatible",
            Verdict::Incompatible => "incompatible",
        }
    }
}

/// How much one change matters to a binding built against the old side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Impact {
    Incompatible,
    /// An addition, or a rename that keeps the layout.
    Compatible,
    /// A sentinel that moves every release.
    Churn,
    /// Worth reading, but no ABI change (parameter renames, deprecations).
    Note,
}

/// Report sections, in the order the Markdown prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    AlignmentChanges,
    AbiSymbolChanges,
    RemovedFunctions,
    RemovedTypes,
    ChangedSignatures,
    OtherLayoutChanges,
    Renames,
    AddedFunctions,
    AddedTypes,
    FieldsAddedInPlace,
    EnumChanges,
    ExpectedChurn,
    Constants,
    Notes,
}

impl Section {
    pub const ALL: [Section; 14] = [
        Section::AlignmentChanges,
        Section::AbiSymbolChanges,
        Section::RemovedFunctions,
        Section::RemovedTypes,
        Section::ChangedSignatures,
        Section::OtherLayoutChanges,
        Section::Renames,
        Section::AddedFunctions,
        Section::AddedTypes,
        Section::FieldsAddedInPlace,
        Section::EnumChanges,
        Section::ExpectedChurn,
        Section::Constants,
        Section::Notes,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Section::AlignmentChanges => "Alignment changes",
            Section::AbiSymbolChanges => "ABI symbol changes",
            Section::RemovedFunctions => "Removed functions",
            Section::RemovedTypes => "Removed types",
            Section::ChangedSignatures => "Changed signatures",
            Section::OtherLayoutChanges => "Other layout changes",
            Section::Renames => "Renames (same layout)",
            Section::AddedFunctions => "Added functions",
            Section::AddedTypes => "Added types",
            Section::FieldsAddedInPlace => "Fields added without changing size or alignment",
            Section::EnumChanges => "Enum changes",
            Section::ExpectedChurn => "Expected churn",
            Section::Constants => "Constants",
            Section::Notes => "Notes",
        }
    }
}

/// One difference, about one named declaration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub section: Section,
    pub impact: Impact,
    /// The declaration on the old side (the new side for additions): a function, record, typedef,
    /// enum, `Enum::CONSTANT`, macro or ABI symbol name.
    pub subject: String,
    pub detail: Detail,
}

/// Size and alignment in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Shape {
    pub size: u64,
    pub align: u64,
}

/// A field as it sits in its record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldSlot {
    pub name: String,
    pub offset_bits: u64,
    pub bit_width: Option<u32>,
    pub size: u64,
    /// The field's type in C.
    pub ty: String,
}

/// How one field of a record differs; `old`/`new` is `None` when the field is added/removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldChange {
    pub old: Option<FieldSlot>,
    pub new: Option<FieldSlot>,
    pub impact: Impact,
    /// Why the change got its impact, e.g. `reserved bytes put to use`.
    pub reason: String,
}

/// One of the binding facts of a function: `symbol`, `lookup_name`, `first_version`, ...
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BindingChange {
    pub field: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// A struct tag that changed at one place of a signature while the layout stayed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TagRename {
    /// `return` or the parameter name.
    pub position: String,
    pub old_tag: String,
    pub new_tag: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParamRename {
    pub index: usize,
    pub old: String,
    pub new: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NamedValue {
    pub name: String,
    pub value: i128,
}

/// What changed, with the facts a reader needs to judge it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Detail {
    FunctionAdded {
        symbol: String,
        declaration: String,
    },
    /// `symbol_now_bound_by` lists the new public names bound to the same symbol; empty when
    /// the new header no longer declares the symbol at all.
    FunctionRemoved {
        symbol: String,
        declaration: String,
        symbol_now_bound_by: Vec<String>,
    },
    SignatureChanged {
        old_declaration: String,
        new_declaration: String,
        differences: Vec<String>,
    },
    /// The public name now binds to another symbol or driver version.
    SymbolBinding {
        changes: Vec<BindingChange>,
        /// This function's old symbols (plain or per-thread) that the new header no longer declares.
        dropped_symbols: Vec<String>,
    },
    /// Same layout everywhere, but a struct tag in the signature is spelled differently.
    SignatureTagsRenamed {
        tags: Vec<TagRename>,
    },
    ParamsRenamed {
        renames: Vec<ParamRename>,
    },
    DeprecationChanged {
        deprecated: bool,
    },
    RecordAdded {
        shape: Option<Shape>,
    },
    RecordRemoved {
        shape: Option<Shape>,
    },
    RecordRenamed {
        new_name: String,
        shape: Option<Shape>,
        evidence: Vec<String>,
    },
    RecordLayout {
        old: Option<Shape>,
        new: Option<Shape>,
        fields: Vec<FieldChange>,
        /// Functions of the new side whose parameters or result reach this record (by value,
        /// through pointers, typedefs or other records); filled for incompatible changes.
        used_by: Vec<String>,
    },
    TypedefAdded {
        target: String,
    },
    TypedefRemoved {
        target: String,
    },
    TypedefRetargeted {
        old_target: String,
        new_target: String,
        old: Shape,
        new: Shape,
        same_layout: bool,
    },
    /// The typedef's own alignment attribute changed.
    TypedefLayout {
        old: Shape,
        new: Shape,
    },
    EnumAdded {
        constants: usize,
    },
    EnumRemoved {
        constants: usize,
    },
    EnumUnderlyingChanged {
        old: String,
        new: String,
    },
    EnumConstantsAdded {
        constants: Vec<NamedValue>,
    },
    EnumConstantRemoved {
        enumeration: String,
        value: i128,
    },
    EnumConstantChanged {
        enumeration: String,
        old: i128,
        new: i128,
    },
    ConstantAdded {
        value: String,
        ty: String,
    },
    ConstantRemoved {
        value: String,
        ty: String,
    },
    ConstantChanged {
        old_value: String,
        new_value: String,
        old_ty: String,
        new_ty: String,
    },
}

/// Compares `old` with `new`; see the crate documentation for what counts as what.
pub fn diff(old: &Api, new: &Api) -> AbiDiff {
    let eq = layout_eq::LayoutEq::new(old, new);
    let mut changes = Vec::new();
    functions::compare(&eq, &mut changes);
    records::compare(&eq, &mut changes);
    enums::compare(old, new, &mut changes);
    // Breaking changes lead each section; the sort is stable, so one subject keeps its order.
    changes.sort_by(|a, b| (a.section, a.impact, &a.subject).cmp(&(b.section, b.impact, &b.subject)));
    AbiDiff { old: Side::from_provenance(&old.provenance), new: Side::from_provenance(&new.provenance), changes }
}

impl AbiDiff {
    /// The worst impact found; churn and notes never count.
    pub fn verdict(&self) -> Verdict {
        if self.changes.iter().any(|c| c.impact == Impact::Incompatible) {
            Verdict::Incompatible
        } else if self.changes.iter().any(|c| c.impact == Impact::Compatible) {
            Verdict::Compatible
        } else {
            Verdict::Identical
        }
    }

    /// The process exit code for the verdict: 0 identical, 1 compatible additions, 2 incompatible.
    pub fn exit_code(&self) -> u8 {
        match self.verdict() {
            Verdict::Identical => 0,
            Verdict::Compatible => 1,
            Verdict::Incompatible => 2,
        }
    }

    /// Changes listed in `section`, in report order.
    pub fn section(&self, section: Section) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.section == section)
    }

    /// How many changes have `impact`.
    pub fn count(&self, impact: Impact) -> usize {
        self.changes.iter().filter(|c| c.impact == impact).count()
    }

    /// A report to paste into a pull-request comment.
    pub fn to_markdown(&self) -> String {
        markdown::render(self)
    }

    /// The deterministic JSON form (pretty, trailing newline), verdict and exit code included.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Report<'a> {
            verdict: Verdict,
            exit_code: u8,
            #[serde(flatten)]
            diff: &'a AbiDiff,
        }
        let report = Report { verdict: self.verdict(), exit_code: self.exit_code(), diff: self };
        let mut text = serde_json::to_string_pretty(&report).expect("the diff serialises");
        text.push('\n');
        text
    }
}
