//! The tie policy of referential alignment as data: the ordered list of rules that
//! decide how one scope's records are paired (paper, Section III.D, and the spec
//! notes). This is the one place the order lives; `oa_core.kinds.TieRule`, the docs
//! (docs/schema.md, "Ties, in order") and the explorer's rule words are checked
//! against [`TIE_RULES`] (tests/test_rust_ties.py).

use std::fmt;

/// What decided the pairing of one scope record, in the order the rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TieRule {
    /// The records' own score `C` (their attributes).
    Attributes,
    /// The paper's bonus `b`: equal stable WL colours.
    Colour,
    /// The agreement depth `a`: the share of refinement rounds with equal colours.
    Depth,
    /// The content rule: references through the pairing, then the documents' score,
    /// then the records' canonical JSON.
    Content,
    /// `wl_mode="none"` only (the paper's ablation): twins paired by list order.
    Position,
}

/// Every rule, in the order they break ties (`Position` replaces `Colour`, `Depth`
/// and `Content` when WL is off).
pub const TIE_RULES: [TieRule; 5] = [
    TieRule::Attributes,
    TieRule::Colour,
    TieRule::Depth,
    TieRule::Content,
    TieRule::Position,
];

/// The rules of the twin repair's levels, level by level: b, a, then the references
/// agreeing through the pairing (the content rule's first step).
const LEVEL_RULES: [TieRule; 3] = [TieRule::Colour, TieRule::Depth, TieRule::Content];

/// The twin repair's verdict when no level told a group apart: the records'
/// canonical JSON decided (a label tie).
pub const BY_LABELS: usize = LEVEL_RULES.len();

impl TieRule {
    /// The rule's name, as results and warnings write it (`tie-depth`).
    ///
    /// ```
    /// use oa_engine::align::TieRule;
    /// assert_eq!(TieRule::Colour.name(), "colour");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Self::Attributes => "attributes",
            Self::Colour => "colour",
            Self::Depth => "depth",
            Self::Content => "content",
            Self::Position => "position",
        }
    }

    /// One line saying what the rule compares.
    pub fn description(self) -> &'static str {
        match self {
            Self::Attributes => "the records' own score C (their attributes)",
            Self::Colour => "the paper's bonus b: the records' stable WL colours are equal",
            Self::Depth => {
                "the agreement depth a: the share of WL rounds in which the records share a colour"
            }
            Self::Content => {
                "the content rule: references agreeing through the pairing, then the \
                 documents' score, then the records' canonical JSON"
            }
            Self::Position => "WL off (the paper's ablation): twins paired by list order",
        }
    }

    /// The rule of a twin repair verdict (the level that told a group apart, or
    /// [`BY_LABELS`] and beyond: the content rule).
    ///
    /// ```
    /// use oa_engine::align::{TieRule, BY_LABELS};
    /// assert_eq!(TieRule::of_level(1), TieRule::Depth);
    /// assert_eq!(TieRule::of_level(BY_LABELS), TieRule::Content);
    /// ```
    pub fn of_level(level: usize) -> Self {
        LEVEL_RULES.get(level).copied().unwrap_or(Self::Content)
    }
}

impl fmt::Display for TieRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_in_order_and_complete() {
        let mut sorted = TIE_RULES;
        sorted.sort();
        assert_eq!(sorted, TIE_RULES);
        let names: Vec<&str> = TIE_RULES.iter().map(|r| r.name()).collect();
        assert_eq!(
            names,
            ["attributes", "colour", "depth", "content", "position"]
        );
        assert!(TIE_RULES.iter().all(|r| !r.description().is_empty()));
        assert_eq!(TieRule::of_level(0), TieRule::Colour);
        assert_eq!(TieRule::of_level(usize::MAX), TieRule::Content);
        assert_eq!(TieRule::Depth.to_string(), "depth");
    }
}
