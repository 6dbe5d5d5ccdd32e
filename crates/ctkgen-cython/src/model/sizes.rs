//! What the module's `sizeof` answers: the byte size of the C type behind each class that
//! stands for a C type name of file scope. Records declared inside another record (tagged or
//! not) are left out: C++ scopes them to their parent, and the compatible module answers only
//! for the names a translation unit declares at file scope. Enums have no entry.

use ctkgen_ir::{Api, Type};
use serde::Serialize;

use super::classes::{RecordView, WrapperView};

#[derive(Debug, Clone, Serialize)]
pub struct SizeView {
    pub class: String,
    /// Bytes, from the IR (the compiler's layout, which the layout guard asserts at build).
    pub size: u64,
}

/// The entries of every record class, its alias classes, and every handle and integer-typedef
/// class, in that order. Taken before the dependencies' classes replace some of them: a class
/// re-exported from a dependency keeps its name here, and its C type is the same.
pub(super) fn sizes(
    api: &Api,
    records: &[RecordView],
    handles: &[WrapperView],
    scalars: &[WrapperView],
) -> Vec<SizeView> {
    let mut out = Vec::new();
    for r in records {
        if api.record(&r.record).is_none_or(|record| record.parent.is_some()) {
            continue;
        }
        let names = std::iter::once(&r.class).chain(r.aliases.iter().map(|(alias, _)| alias));
        out.extend(names.map(|class| SizeView { class: class.clone(), size: r.size }));
    }
    for w in handles.iter().chain(scalars) {
        // A typedef the IR gives no layout (none of a wrapper's should lack one) gets no entry.
        if let Some((size, _)) = api.type_layout(&Type::Typedef { name: w.class.clone() }) {
            out.push(SizeView { class: w.class.clone(), size });
        }
    }
    out
}
