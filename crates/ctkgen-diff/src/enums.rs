//! Enum constants and constant macros, with the sentinels that move every release set apart.

use ctkgen_ir::abi::c_decl;
use ctkgen_ir::{Api, Constant, ConstantValue};

use crate::{Change, Detail, Impact, NamedValue, Section};

/// Names that count something rather than mean something: a new entry moves them.
fn is_counting_sentinel(name: &str) -> bool {
    name.ends_with("_MAX") || name.contains("_NUM_")
}

/// A mask of all valid flags grows whenever a flag is added; it only churns while it keeps
/// every bit it had.
fn is_widened_mask(name: &str, old: i128, new: i128) -> bool {
    name.ends_with("_MASK") && old & new == old
}

pub(crate) fn compare(old: &Api, new: &Api, out: &mut Vec<Change>) {
    enums(old, new, out);
    constants(old, new, out);
}

fn enums(old: &Api, new: &Api, out: &mut Vec<Change>) {
    for e in &old.enums {
        let Some(f) = new.enumeration(&e.name) else {
            out.push(Change {
                section: Section::RemovedTypes,
                impact: Impact::Incompatible,
                subject: e.name.clone(),
                detail: Detail::EnumRemoved { constants: e.constants.len() },
            });
            continue;
        };
        if e.underlying.layout() != f.underlying.layout()
            || e.underlying.is_signed_integer() != f.underlying.is_signed_integer()
        {
            out.push(Change {
                section: Section::EnumChanges,
                impact: Impact::Incompatible,
                subject: e.name.clone(),
                detail: Detail::EnumUnderlyingChanged {
                    old: e.underlying.c_name().to_string(),
                    new: f.underlying.c_name().to_string(),
                },
            });
        }
        for c in &e.constants {
            let subject = format!("{}::{}", e.name, c.name);
            match f.constants.iter().find(|d| d.name == c.name) {
                None => out.push(Change {
                    section: Section::EnumChanges,
                    impact: Impact::Incompatible,
                    subject,
                    detail: Detail::EnumConstantRemoved { enumeration: e.name.clone(), value: c.value },
                }),
                Some(d) if d.value != c.value => {
                    let churn = is_counting_sentinel(&c.name) || is_widened_mask(&c.name, c.value, d.value);
                    out.push(Change {
                        section: if churn { Section::ExpectedChurn } else { Section::EnumChanges },
                        impact: if churn { Impact::Churn } else { Impact::Incompatible },
                        subject,
                        detail: Detail::EnumConstantChanged { enumeration: e.name.clone(), old: c.value, new: d.value },
                    });
                }
                Some(_) => {}
            }
        }
        let added: Vec<NamedValue> = f
            .constants
            .iter()
            .filter(|d| e.constants.iter().all(|c| c.name != d.name))
            .map(|d| NamedValue { name: d.name.clone(), value: d.value })
            .collect();
        if !added.is_empty() {
            out.push(Change {
                section: Section::EnumChanges,
                impact: Impact::Compatible,
                subject: e.name.clone(),
                detail: Detail::EnumConstantsAdded { constants: added },
            });
        }
    }
    for f in &new.enums {
        if old.enumeration(&f.name).is_none() {
            out.push(Change {
                section: Section::AddedTypes,
                impact: Impact::Compatible,
                subject: f.name.clone(),
                detail: Detail::EnumAdded { constants: f.constants.len() },
            });
        }
    }
}

fn value_text(c: &Constant) -> String {
    match &c.value {
        ConstantValue::Int(v) => v.to_string(),
        ConstantValue::Float(v) => format!("{v:?}"),
        ConstantValue::Str(s) => format!("{s:?}"),
    }
}

fn constants(old: &Api, new: &Api, out: &mut Vec<Change>) {
    let find = |api: &'_ Api, name: &str| api.constants.binary_search_by(|c| c.name.as_str().cmp(name)).ok();
    for c in &old.constants {
        let ty = c_decl(old, &c.ty, "");
        let Some(i) = find(new, &c.name) else {
            out.push(Change {
                section: Section::Constants,
                impact: Impact::Incompatible,
                subject: c.name.clone(),
                detail: Detail::ConstantRemoved { value: value_text(c), ty },
            });
            continue;
        };
        let d = &new.constants[i];
        let new_ty = c_decl(new, &d.ty, "");
        if c.value == d.value && ty == new_ty {
            continue;
        }
        let churn = c.name == "CUDA_VERSION"
            || is_counting_sentinel(&c.name)
            || matches!((&c.value, &d.value), (ConstantValue::Int(a), ConstantValue::Int(b)) if is_widened_mask(&c.name, *a, *b));
        out.push(Change {
            section: if churn { Section::ExpectedChurn } else { Section::Constants },
            impact: if churn { Impact::Churn } else { Impact::Incompatible },
            subject: c.name.clone(),
            detail: Detail::ConstantChanged { old_value: value_text(c), new_value: value_text(d), old_ty: ty, new_ty },
        });
    }
    for d in &new.constants {
        if find(old, &d.name).is_none() {
            out.push(Change {
                section: Section::Constants,
                impact: Impact::Compatible,
                subject: d.name.clone(),
                detail: Detail::ConstantAdded { value: value_text(d), ty: c_decl(new, &d.ty, "") },
            });
        }
    }
}
