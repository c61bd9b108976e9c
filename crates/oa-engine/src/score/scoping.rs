//! The scorer as the scope resolution asks it (`align::refer::ScopeScores`): a
//! scope's C matrix and the documents' score under a resolution in progress, each
//! under the [`RefState`] made of it (`record_matrix` and `document_score` of
//! `oa_core/aligner.py`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::refs::{RecordPairs, RefState};
use super::{Limits, MapCache, Scorer, Unsupported};
use crate::align::refer::{Referential, ResolveError, ScopeScores};
use crate::align::Matrix;
use crate::plan::{NodeId, Plan, ScopeId};
use crate::value::{IdKey, Json};

/// Two documents scored under a plan with scopes; `records`: each scope's record
/// node (the items of its records array), what C is scored under.
pub struct ScopedDocuments<'a> {
    pub plan: &'a Plan,
    pub limits: Limits,
    pub cache: &'a mut MapCache,
    pub gold: &'a Json,
    pub candidate: &'a Json,
    pub records: &'a BTreeMap<ScopeId, NodeId>,
}

pub(super) fn declined(error: Unsupported) -> ResolveError {
    ResolveError::Score(Arc::new(error))
}

fn key(value: &Json) -> Result<IdKey, ResolveError> {
    IdKey::of(value)
        .map_err(|error| declined(error.into()))?
        .ok_or(ResolveError::Declined("an identifier that is no key"))
}

impl ScopedDocuments<'_> {
    /// The state `Scorer(bijections, candidate_ids, unresolved, record_pairs)` reads.
    pub(super) fn state(
        &self,
        refs: &Referential,
        unresolved: &BTreeSet<ScopeId>,
        with_pairs: bool,
    ) -> Result<RefState, ResolveError> {
        let mut state = RefState::new();
        // each map made whole from its sorted source (not grown entry by entry)
        for (&scope, bijection) in &refs.bijections {
            state.scope_mut(scope).bijection = bijection
                .iter()
                .map(|(gold, image)| Ok((gold.clone(), image.as_ref().map(key).transpose()?)))
                .collect::<Result<_, ResolveError>>()?;
        }
        for (&scope, ids) in &refs.candidate_ids {
            // the scope's ids are set here only
            state.scope_mut(scope).candidate_ids = ids.clone();
        }
        for &scope in unresolved {
            state.scope_mut(scope).unresolved = true;
        }
        if with_pairs {
            for (&scope, pairs) in &refs.record_pairs {
                let records = self
                    .plan
                    .scope(scope)
                    .map_err(|e| declined(e.into()))?
                    .records;
                let pairs = pairs.iter().cloned().collect();
                state.pair_records(records, RecordPairs { scope, pairs });
            }
        }
        Ok(state)
    }
}

impl ScopeScores for ScopedDocuments<'_> {
    fn matrix(
        &mut self,
        scope: ScopeId,
        golds: &[&Json],
        candidates: &[&Json],
        refs: &Referential,
        unresolved: &BTreeSet<ScopeId>,
    ) -> Result<Matrix<f64>, ResolveError> {
        let node = *self
            .records
            .get(&scope)
            .ok_or(ResolveError::Declined("a scope without its record node"))?;
        let state = self.state(refs, unresolved, false)?;
        Scorer::new(self.plan, self.limits, self.cache)
            .with_state(&state)
            .score_matrix(golds, candidates, node, None)
            .map_err(declined)
    }

    fn document(
        &mut self,
        refs: &Referential,
        unresolved: &BTreeSet<ScopeId>,
    ) -> Result<f64, ResolveError> {
        let state = self.state(refs, unresolved, true)?;
        Scorer::new(self.plan, self.limits, self.cache)
            .with_state(&state)
            .score(self.gold, self.candidate)
            .map_err(declined)
    }
}
