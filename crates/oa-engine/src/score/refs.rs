//! The referential state a document is scored under (the scopes' bijections, the
//! candidate's ids, the scopes still unresolved and the record pairs), and
//! the two rules that read it: an identifier field is worth 1, and a reference
//! scores 1 iff the candidate's value is the image of the gold's under its scope's
//! bijection and exists among the candidate's ids (paper III.C).

use std::collections::{BTreeMap, BTreeSet};

use super::{Scorer, Unsupported};
use crate::plan::{Node, NodeId, ScopeId};
use crate::value::{IdKey, Json};

/// One scope's part of the state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScopeState {
    /// Gold id -> the candidate id it maps to (None: to no record).
    pub bijection: BTreeMap<IdKey, Option<IdKey>>,
    /// The candidate's ids.
    pub candidate_ids: BTreeSet<IdKey>,
    /// References to the scope count as matching (its bijection is being derived).
    pub unresolved: bool,
}

/// A records array paired by pointer: its scope, and gold record pointer ->
/// candidate record pointer.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordPairs {
    pub scope: ScopeId,
    pub pairs: BTreeMap<String, String>,
}

/// The referential state: per scope (indexed by [`ScopeId`]) its bijection,
/// candidate ids and whether it is unresolved; per records array (by its plan
/// node) the record pairs of the main pass. The default is Python's `Scorer()`
/// without state: every reference dangling, no records paired.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RefState {
    scopes: BTreeMap<ScopeId, ScopeState>,
    record_pairs: BTreeMap<NodeId, RecordPairs>,
}

/// What the reference rule found ([`RefState::ref_score`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RefOutcome {
    pub score: f64,
    /// One value is null and the other is not (status `NULL_MISMATCH`).
    pub null_mismatch: bool,
    /// The gold reference was looked up and maps to a candidate id.
    pub expected: bool,
}

/// A gold reference's side of the rule: its key's entry in the scope's bijection,
/// `None` for a reference to no known id (a value that identifies nothing included).
type Image<'s> = Option<&'s Option<IdKey>>;

/// A candidate reference's side of the rule: its key, and whether the key is among
/// the candidate's ids.
struct Target {
    key: Option<IdKey>,
    exists: bool,
}

impl ScopeState {
    fn image(&self, gold: &Json) -> Result<Image<'_>, Unsupported> {
        Ok(IdKey::of(gold)?.and_then(|key| self.bijection.get(&key)))
    }

    fn target(&self, candidate: &Json) -> Result<Target, Unsupported> {
        let key = IdKey::of(candidate)?;
        let exists = key
            .as_ref()
            .is_some_and(|key| self.candidate_ids.contains(key));
        Ok(Target { key, exists })
    }
}

/// The rule between two non-null references: a dangling gold one agrees only with
/// a dangling candidate one, else the candidate must be the gold's image and exist
/// (the candidate being the image, its existence is the image's).
fn agree(image: Image<'_>, target: &Target) -> f64 {
    let ok = match image {
        None => !target.exists,
        Some(image) => {
            target.exists
                && image
                    .as_ref()
                    .is_some_and(|image| target.key.as_ref() == Some(image))
        }
    };
    if ok {
        1.0
    } else {
        0.0
    }
}

/// The scope state read by a scope without one: no bijection, no candidate ids.
static EMPTY_SCOPE: ScopeState = ScopeState {
    bijection: BTreeMap::new(),
    candidate_ids: BTreeSet::new(),
    unresolved: false,
};

impl RefState {
    /// No state: every reference dangling, no records paired.
    pub const fn new() -> Self {
        RefState {
            scopes: BTreeMap::new(),
            record_pairs: BTreeMap::new(),
        }
    }

    /// The state of one scope (created empty on first use).
    pub fn scope_mut(&mut self, scope: ScopeId) -> &mut ScopeState {
        self.scopes.entry(scope).or_default()
    }

    /// Pairs the records of the array `records` by pointer.
    pub fn pair_records(&mut self, records: NodeId, pairs: RecordPairs) {
        self.record_pairs.insert(records, pairs);
    }

    /// The record pairs of an array node, if it is paired by pointer.
    pub fn record_pairs(&self, records: NodeId) -> Option<&RecordPairs> {
        self.record_pairs.get(&records)
    }

    /// The array nodes paired by pointer.
    pub fn paired_arrays(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.record_pairs.keys().copied()
    }

    pub fn has_record_pairs(&self) -> bool {
        !self.record_pairs.is_empty()
    }

    /// The state of one scope, if it has any.
    pub fn scope(&self, scope: ScopeId) -> Option<&ScopeState> {
        self.scopes.get(&scope)
    }

    pub fn unresolved(&self, scope: ScopeId) -> bool {
        self.scopes
            .get(&scope)
            .is_some_and(|state| state.unresolved)
    }

    /// The reference rule (paper III.C): an unresolved scope's references match; two nulls agree
    /// and one scores `null_score`; a gold reference to no known id agrees only
    /// with a candidate one to no candidate id; else the candidate value must be
    /// the gold's image and exist.
    ///
    /// ```
    /// use oa_engine::compare::Value;
    /// use oa_engine::plan::ScopeId;
    /// use oa_engine::score::RefState;
    /// use oa_engine::value::{IdKey, Json};
    /// # fn main() -> Result<(), oa_engine::score::Unsupported> {
    /// let scope = oa_engine::plan::ScopeId::default();
    /// let key = |s: &str| IdKey::of_value(&Value::from(s)).map(Option::unwrap);
    /// let mut state = RefState::default();
    /// state.scope_mut(scope).bijection.insert(key("a")?, Some(key("x")?));
    /// state.scope_mut(scope).candidate_ids.insert(key("x")?);
    /// let text = |s: &str| Json::Leaf(Value::from(s));
    /// assert_eq!(state.ref_score(scope, &text("a"), &text("x"), 0.0)?.score, 1.0);
    /// assert_eq!(state.ref_score(scope, &text("a"), &text("y"), 0.0)?.score, 0.0);
    /// // dangling on both sides agrees
    /// assert_eq!(state.ref_score(scope, &text("b"), &text("y"), 0.0)?.score, 1.0);
    /// # Ok(()) }
    /// ```
    pub fn ref_score(
        &self,
        scope: ScopeId,
        gold: &Json,
        candidate: &Json,
        null_score: f64,
    ) -> Result<RefOutcome, Unsupported> {
        let outcome = |score, null_mismatch, expected| RefOutcome {
            score,
            null_mismatch,
            expected,
        };
        let state = self.scopes.get(&scope).unwrap_or(&EMPTY_SCOPE);
        if state.unresolved {
            return Ok(outcome(1.0, false, false));
        }
        match (gold, candidate) {
            (Json::Null, Json::Null) => return Ok(outcome(1.0, false, false)),
            (Json::Null, _) | (_, Json::Null) => return Ok(outcome(null_score, true, false)),
            _ => {}
        }
        let (image, target) = (state.image(gold)?, state.target(candidate)?);
        let expected = image.is_some_and(Option::is_some);
        Ok(outcome(agree(image, &target), false, expected))
    }

    /// [`RefState::ref_score`] of every pair of `golds` x `candidates`, row-major,
    /// pushed onto `out`: each value keyed and looked up once, not once per pair; an
    /// error where the pair by pair rule meets its first one.
    pub fn ref_scores(
        &self,
        scope: ScopeId,
        (golds, candidates): (&[&Json], &[&Json]),
        null_score: f64,
        out: &mut Vec<f64>,
    ) -> Result<(), Unsupported> {
        let state = self.scopes.get(&scope).unwrap_or(&EMPTY_SCOPE);
        if state.unresolved {
            let cells = golds.len().saturating_mul(candidates.len());
            out.resize(out.len() + cells, 1.0);
            return Ok(());
        }
        let images: Vec<_> = golds.iter().map(|gold| state.image(gold)).collect();
        let targets: Vec<_> = candidates
            .iter()
            .map(|candidate| state.target(candidate))
            .collect();
        for (gold, image) in golds.iter().zip(&images) {
            for (candidate, target) in candidates.iter().zip(&targets) {
                out.push(match (gold, candidate) {
                    (Json::Null, Json::Null) => 1.0,
                    (Json::Null, _) | (_, Json::Null) => null_score,
                    _ => {
                        // the pair by pair rule keys the gold, then the candidate
                        let image = *image.as_ref().map_err(Clone::clone)?;
                        agree(image, target.as_ref().map_err(Clone::clone)?)
                    }
                });
            }
        }
        Ok(())
    }
}

impl Scorer<'_> {
    /// Whether an identifier's candidate value is its gold value's image under the
    /// scope's bijection (both values identify): the candidate's record then needs no
    /// other id for references to reach it.
    pub(super) fn is_image(
        &self,
        scope: ScopeId,
        gold: &Json,
        candidate: &Json,
    ) -> Result<bool, Unsupported> {
        let state = self.refs.state.scope(scope).unwrap_or(&EMPTY_SCOPE);
        Ok(match (state.image(gold)?, IdKey::of(candidate)?) {
            (Some(Some(image)), Some(key)) => *image == key,
            _ => false,
        })
    }

    /// What the rule of an identifier (1, whatever the values) or of a reference
    /// (`ref_score` under the scorer's state) gives; None for any other field.
    pub(super) fn scoped(
        &self,
        node: &Node,
        gold: &Json,
        candidate: &Json,
    ) -> Result<Option<RefOutcome>, Unsupported> {
        if node.id_scope.is_some() {
            return Ok(Some(RefOutcome {
                score: 1.0,
                null_mismatch: false,
                expected: false,
            }));
        }
        node.reference
            .map(|scope| {
                self.refs
                    .state
                    .ref_score(scope, gold, candidate, node.null_score)
            })
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(value: &Json) -> IdKey {
        IdKey::of(value).unwrap().unwrap()
    }

    #[test]
    fn the_reference_rule_reads_the_state() {
        let scope = ScopeId::default();
        let mut state = RefState::default();
        let (a, x, y) = (Json::int(1), Json::int(10), Json::int(20));
        state
            .scope_mut(scope)
            .bijection
            .insert(key(&a), Some(key(&x)));
        state
            .scope_mut(scope)
            .bijection
            .insert(key(&Json::int(2)), None);
        state.scope_mut(scope).candidate_ids.insert(key(&x));
        state.scope_mut(scope).candidate_ids.insert(key(&y));
        let score = |g: &Json, c: &Json| state.ref_score(scope, g, c, 0.25).unwrap();
        assert_eq!(score(&a, &Json::float(10.0)).score, 1.0);
        assert!(score(&a, &Json::float(10.0)).expected);
        assert!(!score(&Json::int(5), &Json::int(99)).expected);
        assert_eq!(score(&a, &y).score, 0.0);
        // mapped to no record: never matches
        assert_eq!(score(&Json::int(2), &Json::int(99)).score, 0.0);
        // dangling gold: agrees with a dangling candidate only
        assert_eq!(score(&Json::int(5), &Json::int(99)).score, 1.0);
        assert_eq!(score(&Json::int(5), &y).score, 0.0);
        assert_eq!(score(&Json::Null, &Json::Null).score, 1.0);
        let null = score(&Json::Null, &a);
        assert_eq!((null.score, null.null_mismatch), (0.25, true));
        state.scope_mut(scope).unresolved = true;
        assert_eq!(state.ref_score(scope, &a, &y, 0.0).unwrap().score, 1.0);
    }

    #[test]
    fn a_block_of_references_equals_the_rule_pair_by_pair() {
        let scope = ScopeId::default();
        let mut state = RefState::default();
        state
            .scope_mut(scope)
            .bijection
            .insert(key(&Json::int(1)), Some(key(&Json::int(10))));
        state
            .scope_mut(scope)
            .bijection
            .insert(key(&Json::int(2)), None);
        state
            .scope_mut(scope)
            .candidate_ids
            .insert(key(&Json::int(10)));
        let golds = [
            Json::int(1),
            Json::int(2),
            Json::int(5),
            Json::Null,
            Json::Array(vec![]),
        ];
        let candidates = [Json::float(10.0), Json::int(99), Json::Null, Json::int(10)];
        let (g, c): (Vec<&Json>, Vec<&Json>) =
            (golds.iter().collect(), candidates.iter().collect());
        for unresolved in [false, true] {
            state.scope_mut(scope).unresolved = unresolved;
            let mut block = Vec::new();
            state.ref_scores(scope, (&g, &c), 0.25, &mut block).unwrap();
            let pairs: Vec<f64> = g
                .iter()
                .flat_map(|gold| c.iter().map(move |cand| (*gold, *cand)))
                .map(|(gold, cand)| state.ref_score(scope, gold, cand, 0.25).unwrap().score)
                .collect();
            assert_eq!(block, pairs);
        }
        // a NaN fails as the pair by pair rule does: only when paired with a non-null
        state.scope_mut(scope).unresolved = false;
        let nan = Json::float(f64::NAN);
        let mut block = Vec::new();
        let only_nulls = state.ref_scores(scope, (&[&nan], &[&Json::Null]), 0.0, &mut block);
        assert_eq!((only_nulls, block), (Ok(()), vec![0.0]));
        let mut block = Vec::new();
        let paired = state.ref_scores(scope, (&[&nan], &[&Json::int(1)]), 0.0, &mut block);
        assert_eq!(paired, Err(Unsupported::NonFiniteNumber));
    }
}
