//! The toolkits one crate binds, a cargo feature each, and the `cfg` that selects a set of them.
//!
//! A feature is named as the ecosystem names CUDA versions, `cuda-` and the version number the
//! header declares (`cuda-12090` for 12.9, `cuda-13010` for 13.1): major times 1000 plus minor
//! times 10. The number comes from the toolkit's release, else from the version macro's value.

use ctkgen_ir::Api;
use proc_macro2::TokenStream;
use quote::quote;

use crate::RustEmitError;

/// A set of the crate's toolkits, by index (bit `i` is toolkit `i`, oldest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Features(u64);

impl Features {
    /// The most toolkits one crate binds: a set is one machine word.
    pub const MAX: usize = u64::BITS as usize;

    pub fn one(index: usize) -> Features {
        Features(1 << index)
    }

    /// The first `count` toolkits.
    pub fn first(count: usize) -> Features {
        Features(if count >= Self::MAX { u64::MAX } else { (1u64 << count) - 1 })
    }

    pub fn with(self, other: Features) -> Features {
        Features(self.0 | other.0)
    }

    /// Every toolkit of `other` is in `self`.
    pub fn covers(self, other: Features) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The toolkits of `self` not in `other`.
    pub fn without(self, other: Features) -> Features {
        Features(self.0 & !other.0)
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The toolkits' indices, oldest first.
    pub fn indices(self) -> impl Iterator<Item = usize> {
        (0..Self::MAX).filter(move |i| self.0 >> i & 1 == 1)
    }
}

/// One toolkit of the crate: its feature and the release it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolkit {
    /// `cuda-13010`; `None` for a lone header that states no version (a crate of one model).
    pub feature: Option<String>,
    /// `13010`, for ordering.
    pub number: u32,
    /// How the docs name it: the release (`13.1.2`), else the version (`13.1`).
    pub release: String,
}

impl Toolkit {
    /// The toolkit a model comes from.
    pub fn of(api: &Api) -> Toolkit {
        let p = &api.provenance;
        let from_release = p.ctk.as_deref().and_then(|ctk| {
            let mut parts = ctk.split('.').map(|part| part.parse::<u32>().ok());
            let (Some(Some(major)), Some(Some(minor))) = (parts.next(), parts.next()) else { return None };
            Some((major * 1000 + minor * 10, ctk.to_string()))
        });
        let from_macro = || p.cuda_version.map(|v| (v, format!("{}.{}", v / 1000, v % 1000 / 10)));
        match from_release.or_else(from_macro) {
            Some((number, release)) => Toolkit { feature: Some(format!("cuda-{number}")), number, release },
            None => Toolkit { feature: None, number: 0, release: String::new() },
        }
    }
}

/// The crate's toolkits, oldest first, and how a set of them is written as a `cfg`.
#[derive(Debug, Clone)]
pub struct Toolkits {
    pub list: Vec<Toolkit>,
}

impl Toolkits {
    /// The toolkits of `models`, checked: at most [`Features::MAX`], each a different version,
    /// and each with a version unless the crate has one model. Returns them with the order that
    /// sorts the models oldest first.
    pub fn new(models: &[&Api]) -> Result<(Toolkits, Vec<usize>), RustEmitError> {
        let invalid = |reason: String| RustEmitError::InvalidOption { option: "toolkits", reason };
        if models.is_empty() {
            return Err(invalid("no model to bind".into()));
        }
        if models.len() > Features::MAX {
            return Err(invalid(format!("{} models; one crate binds at most {}", models.len(), Features::MAX)));
        }
        let mut found: Vec<(usize, Toolkit)> = models.iter().map(|api| Toolkit::of(api)).enumerate().collect();
        if models.len() > 1 && found.iter().any(|(_, t)| t.feature.is_none()) {
            return Err(invalid("a model states no toolkit release or version, so it cannot be a feature".into()));
        }
        found.sort_by_key(|(_, t)| t.number);
        if let Some(pair) = found.windows(2).find(|pair| pair[0].1.number == pair[1].1.number) {
            return Err(invalid(format!(
                "two models of one toolkit version ({} and {})",
                pair[0].1.release, pair[1].1.release
            )));
        }
        let order = found.iter().map(|(i, _)| *i).collect();
        Ok((Toolkits { list: found.into_iter().map(|(_, t)| t).collect() }, order))
    }

    pub fn all(&self) -> Features {
        Features::first(self.list.len())
    }

    /// The feature names, oldest first (none for a lone unversioned header).
    pub fn features(&self) -> Vec<&str> {
        self.list.iter().filter_map(|t| t.feature.as_deref()).collect()
    }

    /// The predicate for `set` as text, where only the features of `within` can be on (an item
    /// under `within`'s `cfg`): `set`'s own, or `not(...)` of the rest of `within` when that is
    /// shorter.
    pub fn predicate_within(&self, set: Features, within: Features) -> String {
        let rest = within.without(set);
        if rest.len() < set.len() {
            return format!("not({})", self.predicate_text(rest));
        }
        self.predicate_text(set)
    }

    /// `feature = "cuda-12000"` or `any(feature = ..., ...)` for `set`.
    pub fn predicate(&self, set: Features) -> TokenStream {
        self.predicate_text(set).parse().expect("feature names are plain words")
    }

    /// [`Toolkits::predicate`] as prettyplease prints it.
    fn predicate_text(&self, set: Features) -> String {
        let names: Vec<String> = set
            .indices()
            .filter_map(|i| self.list[i].feature.as_deref())
            .map(|feature| format!("feature = \"{feature}\""))
            .collect();
        match names.as_slice() {
            [one] => one.clone(),
            many => format!("any({})", many.join(", ")),
        }
    }

    /// `#[cfg(...)]` for the items of `set` inside something that exists for `within`; nothing
    /// when the set is all of `within`.
    pub fn cfg(&self, set: Features, within: Features) -> TokenStream {
        if set == within {
            return TokenStream::new();
        }
        let predicate = self.predicate(set);
        quote!(#[cfg(#predicate)])
    }

    /// [`Toolkits::cfg`] as a syntax tree.
    pub fn cfg_attribute(&self, set: Features, within: Features) -> Option<syn::Attribute> {
        if set == within {
            return None;
        }
        let predicate = self.predicate(set);
        Some(syn::parse_quote!(#[cfg(#predicate)]))
    }

    /// The predicate that exactly one feature is on, for a crate of several toolkits: one is on,
    /// and none is on together with a later one.
    pub fn exactly_one(&self) -> Option<TokenStream> {
        let features = self.features();
        if features.len() < 2 {
            return None;
        }
        let any = self.predicate(self.all());
        let pairs = (0..features.len() - 1).map(|i| {
            let (feature, later) = (features[i], &features[i + 1..]);
            match later {
                [one] => quote!(all(feature = #feature, feature = #one)),
                _ => quote!(all(feature = #feature, any(#(feature = #later),*))),
            }
        });
        Some(quote!(all(#any, not(any(#(#pairs),*)))))
    }

    /// The items that refuse a build with no toolkit chosen, or with more than one: nothing for
    /// a crate without features.
    pub fn guard(&self, crate_name: &str) -> TokenStream {
        let features = self.features();
        if features.is_empty() {
            return TokenStream::new();
        }
        let listed = features.join(", ");
        let none = format!(
            "{crate_name}: choose the CUDA toolkit with exactly one feature; none is on. The features: {listed}"
        );
        let any = self.predicate(self.all());
        let mut guard = quote! {
            #[cfg(not(#any))]
            compile_error!(#none);
        };
        if features.len() > 1 {
            for (i, feature) in features.iter().enumerate() {
                let others = features.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, f)| f);
                let message = format!(
                    "{crate_name}: feature `{feature}` is on together with another toolkit's; choose exactly one of: {listed}"
                );
                guard.extend(quote! {
                    #[cfg(all(feature = #feature, any(#(feature = #others),*)))]
                    compile_error!(#message);
                });
            }
        }
        guard
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(ctk: Option<&str>, version: Option<u32>) -> Api {
        let mut api: Api = Api::from_json(
            r#"{"format_version": 0, "provenance": {"header": "h.h", "header_sha256": "", "target": "t",
            "language_modes": [], "libclang_version": ""}, "functions": [], "records": [], "enums": [],
            "typedefs": [], "constants": []}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        api.provenance.ctk = ctk.map(Into::into);
        api.provenance.cuda_version = version;
        api
    }

    #[test]
    fn features_are_named_by_the_version_number() {
        assert_eq!(Toolkit::of(&api(Some("12.9.1"), None)).feature.as_deref(), Some("cuda-12090"));
        assert_eq!(Toolkit::of(&api(Some("13.0.0"), Some(13000))).feature.as_deref(), Some("cuda-13000"));
        assert_eq!(Toolkit::of(&api(None, Some(12050))).release, "12.5");
        assert_eq!(Toolkit::of(&api(None, None)).feature, None);
    }

    #[test]
    fn models_are_ordered_and_checked() {
        let (a, b, c) = (api(Some("13.1.0"), None), api(Some("12.0.1"), None), api(Some("12.0.0"), None));
        let (toolkits, order) = Toolkits::new(&[&a, &b]).unwrap();
        assert_eq!(toolkits.features(), ["cuda-12000", "cuda-13010"]);
        assert_eq!(order, [1, 0]);
        assert!(Toolkits::new(&[&b, &c]).is_err());
        assert!(Toolkits::new(&[&a, &api(None, None)]).is_err());
        assert!(Toolkits::new(&[&api(None, None)]).is_ok());
    }

    #[test]
    fn sets_print_as_cfg() {
        let (a, b, c) = (api(Some("12.0.1"), None), api(Some("12.8.0"), None), api(Some("13.0.0"), None));
        let (toolkits, _) = Toolkits::new(&[&a, &b, &c]).unwrap();
        let all = toolkits.all();
        assert!(toolkits.cfg(all, all).is_empty());
        assert_eq!(toolkits.cfg(Features::one(2), all).to_string(), "# [cfg (feature = \"cuda-13000\")]");
        let old = Features::one(0).with(Features::one(1));
        assert_eq!(
            toolkits.cfg(old, all).to_string(),
            "# [cfg (any (feature = \"cuda-12000\" , feature = \"cuda-12080\"))]"
        );
        assert!(all.covers(old) && !old.covers(all));
    }
}
