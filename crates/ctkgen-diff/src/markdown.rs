//! The Markdown report: title, one summary line, then one section per [`Section`] that has
//! changes. Long sections with nothing incompatible in them fold away so the breaking ones stay
//! on screen.

use std::fmt::Write;

use crate::{AbiDiff, Change, Detail, FieldChange, FieldSlot, Impact, Section, Shape};

/// Sections longer than this fold into a `<details>` block, unless they hold a breaking change.
const FOLD_AFTER: usize = 20;

/// Functions named after a changed record before the rest are only counted.
const USED_BY_SHOWN: usize = 8;

pub(crate) fn render(diff: &AbiDiff) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# ABI diff: {} → {}\n", diff.old.label(), diff.new.label());
    let verdict = diff.verdict();
    let _ = writeln!(
        out,
        "**Verdict: {}** (exit code {}): {} incompatible, {} compatible, {} expected churn, {} notes.",
        verdict.as_str(),
        diff.exit_code(),
        diff.count(Impact::Incompatible),
        diff.count(Impact::Compatible),
        diff.count(Impact::Churn),
        diff.count(Impact::Note),
    );
    for section in Section::ALL {
        let changes: Vec<&Change> = diff.section(section).collect();
        if changes.is_empty() {
            continue;
        }
        let breaking = changes.iter().filter(|c| c.impact == Impact::Incompatible).count();
        let mixed = breaking > 0 && breaking < changes.len();
        let _ = write!(out, "\n## {} ({})\n\n", section.title(), changes.len());
        let fold = breaking == 0 && changes.len() > FOLD_AFTER;
        if fold {
            let _ = write!(out, "<details><summary>{} entries</summary>\n\n", changes.len());
        }
        for change in changes {
            let tag = if mixed && change.impact == Impact::Incompatible { "**incompatible** " } else { "" };
            let _ = writeln!(out, "- {tag}{}", item(change));
        }
        if fold {
            out.push_str("\n</details>\n");
        }
    }
    out
}

fn shape_text(shape: Option<Shape>) -> String {
    match shape {
        Some(s) => format!("size {}, align {}", s.size, s.align),
        None => "opaque".to_string(),
    }
}

fn place(slot: &FieldSlot) -> String {
    let at = match (slot.offset_bits / 8, slot.offset_bits % 8) {
        (byte, 0) => format!("byte {byte}"),
        _ => format!("bit {}", slot.offset_bits),
    };
    let width = match slot.bit_width {
        Some(w) => format!("{w} bits"),
        None => format!("{} bytes", slot.size),
    };
    format!("`{}` at {at}, {width} (`{}`)", slot.name, slot.ty)
}

fn field_line(f: &FieldChange) -> String {
    let what = match (&f.old, &f.new) {
        (Some(a), Some(b)) => format!("{} → {}", place(a), place(b)),
        (Some(a), None) => format!("{} gone", place(a)),
        (None, Some(b)) => format!("{} new", place(b)),
        (None, None) => String::new(),
    };
    let tag = if f.impact == Impact::Incompatible { "**incompatible** " } else { "" };
    format!("  - {tag}{what}: {}", f.reason)
}

fn delta(name: &str, old: u64, new: u64) -> String {
    if old == new {
        format!("{name} {old}")
    } else {
        format!("{name} {old} → {new}")
    }
}

fn item(change: &Change) -> String {
    let s = &change.subject;
    match &change.detail {
        Detail::FunctionAdded { symbol, declaration } => {
            let via = if symbol != s { format!(" (symbol `{symbol}`)") } else { String::new() };
            format!("`{s}`{via}: `{declaration}`")
        }
        Detail::FunctionRemoved { symbol, declaration, symbol_now_bound_by } => {
            let mut line = format!("`{s}` (symbol `{symbol}`): `{declaration}`");
            if symbol_now_bound_by.is_empty() {
                line.push_str("; the symbol is no longer declared");
            } else {
                let _ = write!(line, "; the symbol is now reached through {}", code_list(symbol_now_bound_by));
            }
            line
        }
        Detail::SignatureChanged { old_declaration, new_declaration, differences } => {
            let mut text = format!("`{s}`\n  - old: `{old_declaration}`\n  - new: `{new_declaration}`");
            for d in differences {
                let _ = write!(text, "\n  - {d}");
            }
            text
        }
        Detail::SymbolBinding { changes, dropped_symbols } => {
            let parts: Vec<String> = changes
                .iter()
                .map(|c| format!("{} {} → {}", c.field, code_or_none(c.old.as_deref()), code_or_none(c.new.as_deref())))
                .collect();
            let mut line = format!("`{s}`: {}", parts.join("; "));
            if !dropped_symbols.is_empty() {
                let _ = write!(line, " ({} no longer declared)", code_list(dropped_symbols));
            }
            line
        }
        Detail::SignatureTagsRenamed { tags } => {
            let parts: Vec<String> =
                tags.iter().map(|t| format!("`{}`: `{}` → `{}`", t.position, t.old_tag, t.new_tag)).collect();
            format!("`{s}` (same layout): {}", parts.join("; "))
        }
        Detail::ParamsRenamed { renames } => {
            let parts: Vec<String> =
                renames.iter().map(|r| format!("parameter {} `{}` → `{}`", r.index, r.old, r.new)).collect();
            format!("`{s}`: {}", parts.join("; "))
        }
        Detail::DeprecationChanged { deprecated } => {
            format!("`{s}` is {}", if *deprecated { "now deprecated" } else { "no longer deprecated" })
        }
        Detail::RecordAdded { shape } => format!("record `{s}` ({})", shape_text(*shape)),
        Detail::RecordRemoved { shape } => format!("record `{s}` ({})", shape_text(*shape)),
        Detail::RecordRenamed { new_name, shape, evidence } => {
            format!("record `{s}` → `{new_name}` ({}; seen through {})", shape_text(*shape), evidence.join(", "))
        }
        Detail::RecordLayout { old, new, fields, used_by } => {
            let head = match (old, new) {
                (Some(a), Some(b)) => {
                    format!("{}, {}", delta("align", a.align, b.align), delta("size", a.size, b.size))
                }
                (a, b) => format!("{} → {}", shape_text(*a), shape_text(*b)),
            };
            let mut text = format!("`{s}`: {head}");
            if !used_by.is_empty() {
                let _ = write!(text, "; reached from {}", names_capped(used_by));
            }
            for f in fields {
                text.push('\n');
                text.push_str(&field_line(f));
            }
            text
        }
        Detail::TypedefAdded { target } | Detail::TypedefRemoved { target } => format!("typedef `{s}` = `{target}`"),
        Detail::TypedefRetargeted { old_target, new_target, old, new, same_layout } => {
            let layout = if *same_layout {
                format!("same layout, size {}, align {}", new.size, new.align)
            } else {
                format!("{}, {}", delta("align", old.align, new.align), delta("size", old.size, new.size))
            };
            format!("typedef `{s}`: `{old_target}` → `{new_target}` ({layout})")
        }
        Detail::TypedefLayout { old, new } => {
            format!("typedef `{s}`: {}, {}", delta("align", old.align, new.align), delta("size", old.size, new.size))
        }
        Detail::EnumAdded { constants } | Detail::EnumRemoved { constants } => {
            format!("enum `{s}` ({constants} constants)")
        }
        Detail::EnumUnderlyingChanged { old, new } => format!("enum `{s}`: underlying `{old}` → `{new}`"),
        Detail::EnumConstantsAdded { constants } => {
            let parts: Vec<String> = constants.iter().map(|c| format!("`{}` = {}", c.name, c.value)).collect();
            format!("`{s}`: {} added: {}", constants.len(), parts.join(", "))
        }
        Detail::EnumConstantRemoved { value, .. } => format!("`{s}` (= {value}) removed"),
        Detail::EnumConstantChanged { old, new, .. } => format!("`{s}`: {old} → {new}"),
        Detail::ConstantAdded { value, ty } => format!("`{s}` = {value} (`{ty}`) added"),
        Detail::ConstantRemoved { value, ty } => format!("`{s}` = {value} (`{ty}`) removed"),
        Detail::ConstantChanged { old_value, new_value, old_ty, new_ty } => {
            if old_ty == new_ty {
                format!("`{s}`: {old_value} → {new_value}")
            } else {
                format!("`{s}`: {old_value} (`{old_ty}`) → {new_value} (`{new_ty}`)")
            }
        }
    }
}

fn code_or_none(value: Option<&str>) -> String {
    value.map(|v| format!("`{v}`")).unwrap_or_else(|| "none".to_string())
}

fn code_list(names: &[String]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// At most [`USED_BY_SHOWN`] names, then how many more; the JSON form has them all.
fn names_capped(names: &[String]) -> String {
    let shown = code_list(&names[..names.len().min(USED_BY_SHOWN)]);
    match names.len().saturating_sub(USED_BY_SHOWN) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}
