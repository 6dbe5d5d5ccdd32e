//! One crate from the plans of several toolkits: each item's distinct forms, and the toolkits that
//! have each form. Two toolkits share a form when what the printer writes for the item is the same
//! (the key of each kind below). A record's or typedef's comments are part of its key, since they
//! state its layout (a tensor map's alignment) and cost little to repeat. A function's, enum's or
//! constant's are not: the toolkits of one form are grouped again by comment (the item's
//! `comments`), and only the comment is printed once per group, under its `cfg`, not the whole item
//! (repeating every function with a revised comment would grow the driver crate by two thirds).
//!
//! An enum is one item whose members carry their own toolkits, so a member that a release added
//! reads as one line under its `cfg`, not as a second copy of the whole enum.

use std::fmt::Write as _;

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;

use crate::features::{Features, Toolkits};
use crate::names::Name;
use crate::plan::{EnumPlan, FunctionPlan, Member, Plan, RecordPlan, RecordShape, TypedefPlan};
use crate::print_items;
use crate::types::Position;
use crate::RustEmitError;

/// One form of an item: the toolkits that have it, and where the newest of them plans it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Form {
    pub set: Features,
    /// The toolkit whose plan is printed (the newest of `set`: its comments are the ones shown).
    pub toolkit: usize,
    /// The item's index in that plan's list.
    pub index: usize,
}

/// One name's forms, oldest first.
#[derive(Debug, Clone)]
pub struct Item {
    pub forms: Vec<Form>,
    /// The toolkits of each form grouped again by their comment, each group printed from its
    /// newest toolkit; oldest first. One group per form when the comment is part of the key.
    pub comments: Vec<Form>,
}

impl Item {
    /// Every toolkit that has the item in some form.
    pub fn set(&self) -> Features {
        self.forms.iter().fold(Features::default(), |set, form| set.with(form.set))
    }

    /// The comment groups of `form`, oldest first: one (covering the whole form) when all its
    /// toolkits have the same comment.
    pub fn comments_of(&self, form: &Form) -> impl Iterator<Item = &Form> {
        let set = form.set;
        self.comments.iter().filter(move |comment| set.covers(comment.set))
    }
}

/// A part of an enum that differs between toolkits on its own (a member, a `name()` arm, the
/// `Debug` impl), within one form of the enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    pub set: Features,
    pub toolkit: usize,
    /// The enum's index in that toolkit's plan.
    pub item: usize,
    /// Index in that toolkit's list of the part (its enum's constants, `names`).
    pub index: usize,
}

/// One form of an enum (its declaration: name and underlying type) with its parts merged.
#[derive(Debug, Clone)]
pub struct EnumForm {
    pub form: Form,
    /// The enum's comment groups within the form (see [`Item::comments`]).
    pub comments: Vec<Form>,
    pub constants: Vec<Part>,
    /// Each constant's comment groups, as `constants`.
    pub constant_comments: Vec<Vec<Part>>,
    /// `name()` arms; `index` is into the toolkit's `EnumPlan::names`.
    pub names: Vec<Part>,
    /// The `Debug` impl (plain or flags); `index` is unused.
    pub debug: Vec<Part>,
}

/// Every item of the crate, each with its forms.
pub struct Merged {
    pub records: Vec<Item>,
    pub enums: Vec<Vec<EnumForm>>,
    pub typedefs: Vec<Item>,
    pub constants: Vec<Item>,
    /// Sorted by name.
    pub functions: Vec<Item>,
    /// Per dependency (as in each plan's `dependencies`): the names re-exported from it, grouped
    /// by the toolkits that re-export them, the set every toolkit shares first.
    pub reexports: Vec<Vec<(Features, Vec<Name>)>>,
}

/// An item of one toolkit: its name, what decides its printed form and its raw comment (`None`
/// where the comment is part of the form).
type Keyed<'p> = (String, String, Option<&'p str>);

impl Merged {
    pub fn new(plans: &[Plan], toolkits: &Toolkits) -> Result<Merged, RustEmitError> {
        fn keyed<'p, 'a: 'p>(
            plans: &'p [Plan<'a>],
            f: &(dyn Fn(&'p Plan<'a>) -> Result<Vec<Keyed<'p>>, RustEmitError> + Sync),
        ) -> Result<Vec<Vec<Keyed<'p>>>, RustEmitError> {
            plans.par_iter().map(f).collect()
        }
        let records = merge_items(&keyed(plans, &|p| p.records.iter().map(|r| record_key(p, r)).collect())?);
        let typedefs = merge_items(&keyed(plans, &|p| p.typedefs.iter().map(|t| typedef_key(p, t)).collect())?);
        let constants = merge_items(&keyed(plans, &|p| {
            p.constants
                .iter()
                .map(|c| {
                    let (ty, value) = print_items::constant_parts(p, c)?;
                    Ok((c.name.to_string(), format!("{}: {ty} = {value}", c.ident), c.doc.as_deref()))
                })
                .collect()
        })?);
        let functions = merge_items(&keyed(plans, &|p| p.functions.iter().map(|f| function_key(p, f)).collect())?);
        let enums = merge_enums(plans)?;
        let dependencies = plans.first().map_or(0, |p| p.dependencies.len());
        let reexports = (0..dependencies)
            .map(|d| {
                let names = plans.iter().map(|p| p.dependencies[d].reexports.iter().map(|n| (n.to_string(), n)));
                group_names(names, toolkits.all())
            })
            .collect();
        Ok(Merged { records, enums, typedefs, constants, functions, reexports })
    }
}

/// Names found in each toolkit (oldest first), grouped by the toolkits that have them; each group
/// sorted by name, the groups by their toolkits with the one for every toolkit first.
fn group_names<'n>(
    per_toolkit: impl Iterator<Item = impl Iterator<Item = (String, &'n Name)>>,
    all: Features,
) -> Vec<(Features, Vec<Name>)> {
    let mut sets: std::collections::BTreeMap<String, (Features, &Name)> = Default::default();
    for (toolkit, names) in per_toolkit.enumerate() {
        for (text, name) in names {
            let entry = sets.entry(text).or_insert((Features::default(), name));
            entry.0 = entry.0.with(Features::one(toolkit));
        }
    }
    let mut groups: std::collections::BTreeMap<(bool, Features), Vec<Name>> = Default::default();
    for (set, name) in sets.into_values() {
        groups.entry((set != all, set)).or_default().push(name.clone());
    }
    groups.into_iter().map(|((_, set), names)| (set, names)).collect()
}

/// The items of every toolkit (oldest first), merged by name, then by key, then by comment.
fn merge_items(per_toolkit: &[Vec<Keyed>]) -> Vec<Item> {
    #[derive(Default)]
    struct Merging<'k> {
        forms: Vec<Form>,
        keys: Vec<&'k str>,
        comments: Vec<Form>,
        /// Each comment group's form (index into `forms`) and comment.
        comment_keys: Vec<(usize, Option<&'k str>)>,
    }
    let mut by_name: HashMap<&str, Merging> = HashMap::default();
    // Newest first: the first toolkit to show a form (or a comment) is the one whose plan prints it.
    for (toolkit, items) in per_toolkit.iter().enumerate().rev() {
        let this = Features::one(toolkit);
        for (index, (name, key, comment)) in items.iter().enumerate() {
            let m = by_name.entry(name).or_default();
            let form = match m.keys.iter().position(|k| k == key) {
                Some(at) => {
                    m.forms[at].set = m.forms[at].set.with(this);
                    at
                }
                None => {
                    m.forms.push(Form { set: this, toolkit, index });
                    m.keys.push(key);
                    m.forms.len() - 1
                }
            };
            match m.comment_keys.iter().position(|k| *k == (form, *comment)) {
                Some(at) => m.comments[at].set = m.comments[at].set.with(this),
                None => {
                    m.comments.push(Form { set: this, toolkit, index });
                    m.comment_keys.push((form, *comment));
                }
            }
        }
    }
    let order = merge_order(per_toolkit.iter().map(|items| items.iter().map(|(name, ..)| name.as_str()).collect()));
    order
        .into_iter()
        .map(|name| {
            let Merging { mut forms, mut comments, .. } = by_name.remove(name).expect("every ordered name was merged");
            forms.sort_by_key(|form| form.set.indices().next());
            comments.sort_by_key(|comment| comment.set.indices().next());
            Item { forms, comments }
        })
        .collect()
}

/// One order for the names of every toolkit (oldest first): the newest toolkit's, with each name
/// only older ones have placed after the name it follows there.
pub fn merge_order<'n>(per_toolkit: impl DoubleEndedIterator<Item = Vec<&'n str>>) -> Vec<&'n str> {
    let mut order: Vec<&str> = Vec::new();
    let mut placed: HashMap<&str, ()> = HashMap::default();
    for names in per_toolkit.rev() {
        // Names new to the order, by the name they follow (`None`: the start).
        let mut after: HashMap<Option<&str>, Vec<&str>> = HashMap::default();
        let mut anchor: Option<&str> = None;
        for &name in &names {
            if placed.contains_key(name) {
                anchor = Some(name);
            } else {
                after.entry(anchor).or_default().push(name);
                placed.insert(name, ());
                anchor = Some(name);
            }
        }
        if after.is_empty() {
            continue;
        }
        let mut merged = Vec::with_capacity(order.len() + after.values().map(Vec::len).sum::<usize>());
        // A new name's anchor may itself be new: placing each run right after its anchor, in
        // the toolkit's order, keeps such chains in order.
        fn place<'n>(
            name: Option<&'n str>,
            after: &mut HashMap<Option<&'n str>, Vec<&'n str>>,
            out: &mut Vec<&'n str>,
        ) {
            if let Some(run) = after.remove(&name) {
                for new in run {
                    out.push(new);
                    place(Some(new), after, out);
                }
            }
        }
        place(None, &mut after, &mut merged);
        for name in order {
            merged.push(name);
            place(Some(name), &mut after, &mut merged);
        }
        order = merged;
    }
    order
}

/// The parts of one kind of an enum, each keyed, with its raw comment where it has one.
type PartKeys = dyn for<'p> Fn(&'p EnumPlan) -> Vec<(String, Option<&'p str>)>;

/// What a toolkit's enums print, merged: per enum name its declaration forms, each with its
/// members, `name()` arms and `Debug` impl merged over the toolkits of that form.
fn merge_enums(plans: &[Plan]) -> Result<Vec<Vec<EnumForm>>, RustEmitError> {
    let by_name: Vec<HashMap<&str, usize>> = plans
        .iter()
        .map(|p| p.enums.iter().enumerate().map(|(i, e)| (e.enumeration.name.as_str(), i)).collect())
        .collect();
    let declarations: Vec<Vec<Keyed>> = plans
        .iter()
        .map(|p| {
            (p.enums.iter())
                .map(|e| (e.enumeration.name.clone(), format!("{}: {}", e.ident, e.underlying), e.doc.as_deref()))
                .collect()
        })
        .collect();
    let items = merge_items(&declarations);
    Ok(items
        .into_iter()
        .map(|item| {
            item.forms
                .iter()
                .map(|&form| {
                    let name = plans[form.toolkit].enums[form.index].enumeration.name.as_str();
                    // Each part with its comment groups.
                    let members = |part: &PartKeys| {
                        let per_toolkit: Vec<Vec<Keyed>> = (0..plans.len())
                            .map(|toolkit| {
                                if !form.set.covers(Features::one(toolkit)) {
                                    return Vec::new();
                                }
                                part(&plans[toolkit].enums[by_name[toolkit][name]])
                                    .into_iter()
                                    .map(|(key, comment)| (key.clone(), key, comment))
                                    .collect()
                            })
                            .collect();
                        let as_part = |f: &Form| Part {
                            set: f.set,
                            toolkit: f.toolkit,
                            item: by_name[f.toolkit][name],
                            index: f.index,
                        };
                        merge_items(&per_toolkit)
                            .iter()
                            .flat_map(|item| {
                                item.forms.iter().map(|f| (as_part(f), item.comments_of(f).map(as_part).collect()))
                            })
                            .collect::<Vec<(Part, Vec<Part>)>>()
                    };
                    let parts = |with_comments: Vec<(Part, Vec<Part>)>| with_comments.into_iter().map(|(p, _)| p);
                    let (constants, constant_comments) = members(&|e| {
                        e.constants.iter().map(|c| (format!("{} = {}", c.ident, c.value), c.doc.as_deref())).collect()
                    })
                    .into_iter()
                    .unzip();
                    EnumForm {
                        form,
                        comments: item.comments_of(&form).copied().collect(),
                        constants,
                        constant_comments,
                        names: parts(members(&|e| {
                            e.names.iter().map(|(value, name)| (format!("{value} => {name}"), None)).collect()
                        }))
                        .collect(),
                        debug: parts(members(&|e| vec![(format!("{} {:?}", e.is_flags, e.flag_bits), None)])).collect(),
                    }
                })
                .collect()
        })
        .collect())
}

fn record_key(plan: &Plan, r: &RecordPlan) -> Result<Keyed<'static>, RustEmitError> {
    let record = r.record;
    let context = format!("record `{}`", record.name);
    let mut key = format!("{} {:?} {:?}", r.ident, record.kind, r.doc);
    if let Some(parent) = &record.parent {
        let _ = write!(key, " in {}::{}", parent.record, parent.field);
    }
    let RecordShape::Complete { is_union, repr, members } = &r.shape else {
        key.push_str(" opaque");
        return Ok((record.name.clone(), key, None));
    };
    let _ = write!(key, " {is_union} {repr:?} size {} align {}", record.size, record.align);
    for m in members {
        match m {
            Member::Field { ident, ty, offset, doc } => {
                let ty = plan.types.tokens(ty, Position::Field, &context)?;
                let _ = write!(key, "; {ident}: {ty} @{offset} {doc:?}");
            }
            Member::Padding { ident, offset, len } => {
                let _ = write!(key, "; {ident}: [{len}] @{offset}");
            }
            Member::Bitfields { ident, offset, len, accessors } => {
                let _ = write!(key, "; {ident}: bits [{len}] @{offset}");
                for a in accessors {
                    let ty = plan.types.tokens(&a.ty, Position::Field, &context)?;
                    let conversion = match &a.conversion {
                        crate::plan::BitConversion::Value => String::new(),
                        crate::plan::BitConversion::Enum { ident, underlying } => format!("{ident}({underlying})"),
                    };
                    let _ = write!(
                        key,
                        " {}/{} {}+{} {ty} {conversion} {:?}",
                        a.getter, a.setter, a.bit_offset, a.width, a.doc
                    );
                }
            }
        }
    }
    Ok((record.name.clone(), key, None))
}

fn typedef_key(plan: &Plan, t: &TypedefPlan) -> Result<Keyed<'static>, RustEmitError> {
    let ty = plan.types.tokens(&t.ty, Position::Alias, &format!("typedef `{}`", t.name))?;
    Ok((t.name.clone(), format!("{} = {ty} {:?}", t.ident, t.doc), None))
}

fn function_key<'p>(plan: &Plan, f: &'p FunctionPlan) -> Result<Keyed<'p>, RustEmitError> {
    let function = f.function;
    let context = format!("function `{}`", function.name);
    let mut key = format!("{}(", f.ident);
    for (name, ty) in &f.params {
        let ty = plan.types.tokens(ty, Position::Param, &context)?;
        let _ = write!(key, "{name}: {ty}, ");
    }
    let ret = match &function.ret {
        ctkgen_ir::Type::Void => String::new(),
        ty => plan.types.tokens(ty, Position::Return, &context)?.to_string(),
    };
    let _ = write!(
        key,
        ") -> {ret} {} {:?} {} {} {} {:?} {:?} {:?}",
        function.deprecated,
        f.unreachable,
        function.name,
        function.lookup_name,
        function.symbol,
        function.first_version,
        f.per_thread_symbol,
        f.per_thread_symbol.and(function.per_thread_first_version),
    );
    Ok((function.name.clone(), key, f.doc.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_only_older_toolkits_have_follow_their_neighbour() {
        let order = merge_order(vec![vec!["a", "old", "b", "gone", "c"], vec!["a", "b", "c", "new"]].into_iter());
        assert_eq!(order, ["a", "old", "b", "gone", "c", "new"]);
        let order = merge_order(vec![vec!["first", "x", "y"], vec!["x"]].into_iter());
        assert_eq!(order, ["first", "x", "y"]);
    }

    #[test]
    fn equal_keys_share_a_form_printed_from_the_newest() {
        let keyed = |items: &[(&str, &str)]| -> Vec<Keyed> {
            items.iter().map(|(n, k)| (n.to_string(), k.to_string(), None)).collect()
        };
        let merged = merge_items(&[
            keyed(&[("a", "1"), ("b", "1")]),
            keyed(&[("a", "1"), ("b", "2")]),
            keyed(&[("b", "2"), ("a", "1")]),
        ]);
        // In the newest toolkit's order: `b`, then `a`.
        let a = &merged[1].forms;
        assert_eq!(a, &[Form { set: Features::first(3), toolkit: 2, index: 1 }]);
        let b = &merged[0].forms;
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].set, b[0].toolkit, b[0].index), (Features::one(0), 0, 1));
        assert_eq!((b[1].set, b[1].toolkit), (Features::one(1).with(Features::one(2)), 2));
    }

    #[test]
    fn a_form_shared_by_toolkits_with_different_comments_has_a_comment_group_each() {
        let keyed = |items: &[(&str, &str, Option<&'static str>)]| -> Vec<Keyed<'static>> {
            items.iter().map(|(n, k, c)| (n.to_string(), k.to_string(), *c)).collect()
        };
        let merged = merge_items(&[
            keyed(&[("f", "1", None)]),
            keyed(&[("f", "1", Some("old"))]),
            keyed(&[("f", "1", Some("new"))]),
            keyed(&[("f", "1", Some("new"))]),
            keyed(&[("f", "2", Some("new"))]),
        ]);
        let f = &merged[0];
        assert_eq!(f.forms.len(), 2);
        let groups = |form: &Form| f.comments_of(form).map(|g| (g.set, g.toolkit)).collect::<Vec<_>>();
        let three = Features::one(2).with(Features::one(3));
        assert_eq!(groups(&f.forms[0]), [(Features::one(0), 0), (Features::one(1), 1), (three, 3)]);
        // The same comment in another form is a group of that form.
        assert_eq!(groups(&f.forms[1]), [(Features::one(4), 4)]);
        assert_eq!(f.forms[0].set, Features::first(4));
    }
}
