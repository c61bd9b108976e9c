//! The resolution a score reads: every scope's pairing, group
//! after group in resolution order, then the label ties scored while some scope was
//! unresolved settled again; the resolution the final scoring pass reads.
//!
//! Per group: each scope's C matrix under the resolution so far (its own scopes
//! unresolved), one joint WL refinement of the group's gold and candidate reference
//! graphs, the tie policy's pairing (`pair_scope`), label ties settled by the
//! documents' score (`settle_by_score`), and the pairing adopted as the scope's
//! bijection and record pairs. The C matrices and the documents' score are the
//! scorer's, reached through [`ScopeScores`] (this layer does not score).
//!
//! A scope with `blockBy` is paired block by block (`blocked`). A scope, or a block,
//! over `max_matrix_cells` is refused ([`TooBig`], the user's to fix); declined: an
//! undeclared scope, anything the scorer declines.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use super::blocked::{cell_levels, keeps_whole, pair_blocks, BlockedScope, Context};
use super::error::ReferError;
use super::graph::{build_graph, Graph, Resolution, Side, VertexKind, OCCURRENCE};
use super::histories::Histories;
use super::index::{DocumentIndex, Record};
use super::schema::ScopeSchema;
use super::size::{check_size, TooBig};
use super::state::{Documents, Levels, PairCells, Paired, Referential, State};
use crate::align::{
    blocks, pair_scope, refine, settle_by_score, AlignError, Budget, Canonical, DocumentScore,
    Incident, Levels as SettleLevels, Matrix, Pairs, RecordKey, RecordKeys, TieRule, WlEdge,
    WlMode, SCORED_RECORDS,
};
use crate::plan::ScopeId;
use crate::value::Json;

/// Why a resolution was not made here.
#[derive(Debug, Clone)]
pub enum ResolveError {
    Align(AlignError),
    Refer(ReferError),
    /// The scorer declined: its own error, for the caller to read (an interruption
    /// raised by a custom comparator must reach Python as it was).
    Score(Arc<dyn std::error::Error + Send + Sync>),
    /// A scope, or a block of one, over `max_matrix_cells`.
    Limit(TooBig),
    /// A construct this resolution leaves to Python.
    Declined(&'static str),
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::Align(error) => write!(f, "{error}"),
            ResolveError::Refer(error) => write!(f, "{error}"),
            ResolveError::Score(error) => write!(f, "the scorer declined: {error}"),
            ResolveError::Limit(error) => write!(f, "{error}"),
            ResolveError::Declined(what) => write!(f, "left to Python: {what}"),
        }
    }
}

impl std::error::Error for ResolveError {}

impl From<AlignError> for ResolveError {
    fn from(error: AlignError) -> Self {
        ResolveError::Align(error)
    }
}

impl From<TooBig> for ResolveError {
    fn from(error: TooBig) -> Self {
        ResolveError::Limit(error)
    }
}

impl From<ReferError> for ResolveError {
    fn from(error: ReferError) -> Self {
        ResolveError::Refer(error)
    }
}

/// The scorer as the resolution asks it.
pub trait ScopeScores {
    /// C: the score of each gold record of `scope` against each candidate record
    /// under `refs` with the scopes `unresolved` counted as matching (the record
    /// pairs are not read: records are scored as values).
    fn matrix(
        &mut self,
        scope: ScopeId,
        golds: &[&Json],
        candidates: &[&Json],
        refs: &Referential,
        unresolved: &BTreeSet<ScopeId>,
    ) -> Result<Matrix<f64>, ResolveError>;

    /// The documents' score under `refs`, the scopes `unresolved` counted as matching.
    fn document(
        &mut self,
        refs: &Referential,
        unresolved: &BTreeSet<ScopeId>,
    ) -> Result<f64, ResolveError>;
}

/// How the records are paired: the WL mode and the blend's lambda.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mode {
    pub wl: WlMode,
    pub wl_lambda: f64,
    pub max_matrix_cells: usize,
    /// What `align()` shows is wanted: every scope's levels
    /// kept whole, a blocked scope's size checked whole. Without it (a score), a
    /// scope whose label ties cannot be settled by score keeps its levels at its
    /// pairs only, and only each block of a blocked scope must fit the limit.
    pub describe: bool,
}

/// The resolution of `groups` (scopes in resolution order, a cycle's together) of
/// the `gold` and `candidate` documents' indexes, and the documents' score under it.
pub fn resolve_and_score(
    schema: &ScopeSchema,
    gold: &DocumentIndex,
    candidate: &DocumentIndex,
    groups: &[Vec<ScopeId>],
    mode: Mode,
    scores: &mut dyn ScopeScores,
) -> Result<f64, ResolveError> {
    let (id_fields, block_by) = id_fields(schema)?;
    let state = resolved(
        schema, gold, candidate, groups, mode, scores, &id_fields, block_by,
    )?;
    scores.document(&state.refs, &BTreeSet::new())
}

/// The id field of each scope (by scope number), and the `blockBy` properties of
/// the scopes that have them.
pub(super) type ScopeFields = (Vec<String>, BTreeMap<ScopeId, Vec<String>>);

/// Each scope's id field and `blockBy` properties.
pub(super) fn id_fields(schema: &ScopeSchema) -> Result<ScopeFields, ResolveError> {
    let mut id_fields = Vec::new();
    let mut block_by = BTreeMap::new();
    for declared in schema.plan().scopes() {
        let scope = schema
            .plan()
            .scope_id(&declared.name)
            .ok_or(ResolveError::Declined("an undeclared scope"))?;
        id_fields.push(schema.id_field(scope)?.to_string());
        let records = schema
            .plan()
            .node(declared.records)
            .map_err(ReferError::from)?;
        if !records.array.block_by.is_empty() {
            block_by.insert(scope, records.array.block_by.clone());
        }
    }
    Ok((id_fields, block_by))
}

/// Every group paired, then the provisional label ties settled again.
#[allow(clippy::too_many_arguments)] // the resolution's inputs, one by one
pub(super) fn resolved(
    schema: &ScopeSchema,
    gold: &DocumentIndex,
    candidate: &DocumentIndex,
    groups: &[Vec<ScopeId>],
    mode: Mode,
    scores: &mut dyn ScopeScores,
    id_fields: &[String],
    block_by: BTreeMap<ScopeId, Vec<String>>,
) -> Result<State, ResolveError> {
    let resolver = Resolver {
        schema,
        documents: Documents {
            gold,
            candidate,
            id_fields,
        },
        mode,
        scopes: groups.iter().flatten().copied().collect(),
        block_by,
    };
    let mut budget = Budget::default();
    let mut state = State::default();
    for group in groups {
        resolver.group(scores, &mut budget, &mut state, group, true)?;
    }
    resolver.settle_provisional(scores, &mut budget, state, groups)
}

struct Resolver<'a> {
    schema: &'a ScopeSchema,
    documents: Documents<'a>,
    mode: Mode,
    scopes: BTreeSet<ScopeId>,
    /// The `blockBy` properties of the scopes that have them.
    block_by: BTreeMap<ScopeId, Vec<String>>,
}

/// Record sort keys as UTF-8 bytes (a lone surrogate as its three bytes, as
/// Python's `surrogatepass`): their order is the code points'.
pub(super) struct Keys<'r> {
    pub(super) gold: &'r [Record<'r>],
    pub(super) candidate: &'r [Record<'r>],
}

fn utf8(text: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for &c in text {
        // the generalized UTF-8 encoding: surrogates encode like any other BMP point
        #[allow(clippy::cast_possible_truncation)] // each byte masked to its bits
        match c {
            0..=0x7f => out.push(c as u8),
            0x80..=0x7ff => out.extend([0xc0 | (c >> 6) as u8, 0x80 | (c & 0x3f) as u8]),
            0x800..=0xffff => out.extend([
                0xe0 | (c >> 12) as u8,
                0x80 | ((c >> 6) & 0x3f) as u8,
                0x80 | (c & 0x3f) as u8,
            ]),
            _ => out.extend([
                0xf0 | (c >> 18) as u8,
                0x80 | ((c >> 12) & 0x3f) as u8,
                0x80 | ((c >> 6) & 0x3f) as u8,
                0x80 | (c & 0x3f) as u8,
            ]),
        }
    }
    out
}

impl RecordKeys for Keys<'_> {
    fn keys(&mut self, gold: bool, records: &[usize]) -> Result<Vec<RecordKey>, AlignError> {
        let side = if gold { self.gold } else { self.candidate };
        records
            .iter()
            .map(|&k| {
                let record = side.get(k).ok_or(AlignError::Internal("record key"))?;
                let (free, text) = DocumentIndex::record_key(record);
                Ok((utf8(&free), utf8(&text)))
            })
            .collect()
    }
}

/// The documents' score with one scope's records paired by the
/// pairs given. The scorer's own error is kept aside (the settling sees an internal
/// error and stops).
struct TrialScore<'s, 'd> {
    scores: &'s mut dyn ScopeScores,
    documents: &'s Documents<'d>,
    refs: &'s Referential,
    scope: ScopeId,
    levels: &'s Levels,
    unresolved: &'s BTreeSet<ScopeId>,
    failed: Option<ResolveError>,
}

impl DocumentScore for TrialScore<'_, '_> {
    fn alike(&mut self, trials: &[Pairs]) -> Result<Vec<usize>, AlignError> {
        self.documents.alike(self.scope, trials)
    }

    fn score(&mut self, pairs: &[(usize, usize)]) -> Result<f64, AlignError> {
        let pairs = pairs.to_vec();
        let mut refs = self.refs.clone();
        refs.bijections.insert(
            self.scope,
            self.documents.mapping(self.scope, self.levels, &pairs)?,
        );
        let (gold, candidate) = self.documents.records(self.scope);
        refs.record_pairs
            .insert(self.scope, pointer_pairs(gold, candidate, &pairs)?);
        self.scores
            .document(&refs, self.unresolved)
            .map_err(|error| {
                self.failed = Some(error);
                AlignError::Internal("the documents' score")
            })
    }
}

fn pointer_pairs(
    gold: &[Record],
    candidate: &[Record],
    pairs: &Pairs,
) -> Result<Vec<(String, String)>, AlignError> {
    pairs
        .iter()
        .map(|&(i, j)| {
            Ok((
                gold.get(i)
                    .ok_or(AlignError::Internal("gold record"))?
                    .pointer
                    .clone(),
                candidate
                    .get(j)
                    .ok_or(AlignError::Internal("candidate record"))?
                    .pointer
                    .clone(),
            ))
        })
        .collect()
}

/// The settling's view of a scope's levels: (C, b) kept, a ranking.
fn settle_levels(levels: &Levels) -> (Vec<Matrix<f64>>, Vec<Matrix<i64>>) {
    match &levels.structure {
        None => (vec![levels.matrix.clone()], Vec::new()),
        Some((same, depth)) => (
            vec![levels.matrix.clone(), same.clone()],
            vec![depth.clone()],
        ),
    }
}

/// The graph's edge labels as the refinement reads them: each label (code points,
/// a lone surrogate included) as its rank among the distinct labels, so that the
/// ranks order as the labels do (code point order, Python's) and equal labels stay
/// equal.
fn ranked_labels(graph: &Graph) -> Vec<usize> {
    // a carrier's edges come together and share its label: one entry per run
    ranks_by_code_points(
        &graph.edges,
        |a, b| std::ptr::eq(&*a.label, &*b.label),
        |edge| &edge.label,
    )
}

/// Texts (code points) as their ranks, a run of items that are the `same` keyed
/// once: each run's text as bytes that compare as its code points do (four
/// big-endian bytes each), all in one buffer. Labels share long prefixes, and bytes
/// compare a block at a time where code points compare one by one.
fn ranks_by_code_points<T>(
    items: &[T],
    same: impl Fn(&T, &T) -> bool,
    text_of: impl Fn(&T) -> &[u32],
) -> Vec<usize> {
    let (firsts, run_of) = runs(items, same);
    let texts = || firsts.iter().filter_map(|&k| items.get(k)).map(&text_of);
    // the buffer sized once and each text written in place: a push per code point
    // checked the capacity at every character
    let mut bytes = vec![0; texts().map(|text| 4 * text.len()).sum()];
    let mut bounds = Vec::with_capacity(firsts.len() + 1);
    bounds.push(0);
    let mut end = 0;
    for text in texts() {
        let start = end;
        end += 4 * text.len();
        if let Some(out) = bytes.get_mut(start..end) {
            for (chunk, c) in out.chunks_exact_mut(4).zip(text) {
                chunk.copy_from_slice(&c.to_be_bytes());
            }
        }
        bounds.push(end);
    }
    let keys = bounds
        .windows(2)
        .map(|w| match *w {
            [start, end] => bytes.get(start..end).unwrap_or_default(),
            _ => &[],
        })
        .collect();
    ranks_of_runs(keys, &run_of)
}

/// Code points as bytes that compare as the code points do (four big-endian bytes
/// each), as [`ranks_by_code_points`] keys them.
#[cfg(test)]
fn big_endian(text: &[u32]) -> Vec<u8> {
    text.iter().flat_map(|c| c.to_be_bytes()).collect()
}

/// One side's records of a scope in a refined graph: their vertices, in order.
fn record_vertices(graph: &Graph, range: std::ops::Range<usize>, scope: ScopeId) -> Vec<usize> {
    graph
        .vertices
        .iter()
        .enumerate()
        .skip(range.start)
        .take(range.len())
        .filter(
            |(_, vertex)| matches!(vertex.kind, VertexKind::Record { scope: s, .. } if s == scope),
        )
        .map(|(k, _)| k)
        .collect()
}

/// The graph's edge relations as the refinement reads them: each relation as its
/// rank among the distinct relations (`str` order, code point order), so that
/// signatures compare numbers, not texts, and order as the texts would.
fn ranked_relations(graph: &Graph) -> Vec<usize> {
    // an edge's relation is often the one before it: one entry per run
    ranks_by_runs(
        &graph.edges,
        |a, b| a.relation == b.relation,
        |edge| &*edge.relation,
    )
}

/// The graph's seeds as the refinement reads them: each seed as its rank among the
/// distinct seeds, so that the first round's colours are the seeds' own (ranks
/// order as the seeds do, and equal seeds stay equal) from numbers, not texts.
fn ranked_seeds(graph: &Graph) -> Vec<usize> {
    // a scope's records share one seed (blend mode aside): one entry per run
    ranks_by_code_points(&graph.seeds, |a, b| std::ptr::eq(&**a, &**b), |seed| seed)
}

/// Each item's key (`key_of`) as its rank among the distinct keys. Items in a row
/// that are the `same` (which must imply equal keys) form a run: only a run's first
/// item is keyed, and the run shares its rank.
fn ranks_by_runs<'a, T, K: Ord>(
    items: &'a [T],
    same: impl Fn(&T, &T) -> bool,
    key_of: impl Fn(&'a T) -> K,
) -> Vec<usize> {
    let (firsts, run_of) = runs(items, same);
    let keys = firsts
        .iter()
        .filter_map(|&k| items.get(k))
        .map(key_of)
        .collect();
    ranks_of_runs(keys, &run_of)
}

/// The runs of items in a row that are the `same`: each run's first item, and each
/// item's run.
fn runs<T>(items: &[T], same: impl Fn(&T, &T) -> bool) -> (Vec<usize>, Vec<usize>) {
    let mut firsts = Vec::new();
    let mut run_of = Vec::with_capacity(items.len());
    let mut previous: Option<&T> = None;
    for (k, item) in items.iter().enumerate() {
        if !previous.is_some_and(|p| same(p, item)) {
            firsts.push(k);
        }
        previous = Some(item);
        run_of.push(firsts.len().saturating_sub(1));
    }
    (firsts, run_of)
}

/// Each item's rank among the distinct `keys` (one per run) by its run.
fn ranks_of_runs<K: Ord>(keys: Vec<K>, run_of: &[usize]) -> Vec<usize> {
    let mut order: Vec<(K, usize)> = keys.into_iter().zip(0..).collect();
    order.sort_unstable();
    let mut run_ranks = vec![0; order.len()];
    let mut rank = 0;
    let mut last: Option<&K> = None;
    for (key, run) in &order {
        if last.is_some_and(|last| last != key) {
            rank += 1;
        }
        last = Some(key);
        if let Some(slot) = run_ranks.get_mut(*run) {
            *slot = rank;
        }
    }
    run_of
        .iter()
        .map(|&run| run_ranks.get(run).copied().unwrap_or(0))
        .collect()
}

/// How an incident edge meets a record (a kind's part: only told apart, never ordered).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Meets {
    Loop,
    Out,
    In,
}

/// An incident edge: (direction, relation's rank, label's rank, other).
type RawIncident = (Meets, usize, usize, i64);

/// A refined group: its graph, where the candidate side starts, every round, and
/// each edge's label as its rank among the graph's labels (equal labels, equal ranks).
#[derive(Clone, Debug)]
pub struct Trace {
    pub graph: Graph,
    pub gold_vertices: usize,
    pub gold_edges: usize,
    pub rounds: Vec<Vec<usize>>,
    pub labels: Vec<usize>,
    /// Each edge's relation as its rank among the graph's relations (equal
    /// relations, equal ranks).
    relations: Vec<usize>,
}

impl Trace {
    /// The scope's colour histories, incident edges (kinds numbered as first seen,
    /// gold lines first)
    /// and occurrences of the scope's records.
    fn histories(&self, scope: ScopeId) -> Result<Histories, ResolveError> {
        let total = self.graph.vertices.len();
        let sides = [
            record_vertices(&self.graph, 0..self.gold_vertices, scope),
            record_vertices(&self.graph, self.gold_vertices..total, scope),
        ];
        let mut histories = Vec::new();
        for vertices in &sides {
            let mut data = Vec::with_capacity(self.rounds.len() * vertices.len());
            for colours in &self.rounds {
                for &v in vertices {
                    let colour = *colours.get(v).ok_or(AlignError::Internal("colour"))?;
                    data.push(i64::try_from(colour).map_err(|_| AlignError::Overflow)?);
                }
            }
            histories.push(Matrix::new(self.rounds.len(), vertices.len(), data)?);
        }
        let mut kinds: BTreeMap<(Meets, usize, usize), usize> = BTreeMap::new();
        let mut next_kind = 0;
        let mut lines: Vec<Vec<Vec<Incident>>> = Vec::new();
        let mut occurrences: Vec<Vec<i64>> = Vec::new();
        // each vertex's place among its side's records of the scope (none elsewhere)
        let mut place: Vec<Option<usize>> = vec![None; total];
        for (side, vertices) in sides.iter().enumerate() {
            for (k, &v) in vertices.iter().enumerate() {
                *place.get_mut(v).ok_or(AlignError::Internal("vertex"))? = Some(k);
            }
            let index_of = |v: usize| place.get(v).copied().flatten();
            let span = if side == 0 {
                0..self.gold_edges
            } else {
                self.gold_edges..self.graph.edges.len()
            };
            let (Some(edges), Some(labels), Some(relations)) = (
                self.graph.edges.get(span.clone()),
                self.labels.get(span.clone()),
                self.relations.get(span),
            ) else {
                return Err(AlignError::Internal("edges").into());
            };
            let mut raw: Vec<Vec<RawIncident>> = vec![Vec::new(); vertices.len()];
            let mut hubs = vec![-1i64; vertices.len()];
            for ((edge, &label), &relation) in edges.iter().zip(labels).zip(relations) {
                if &*edge.relation == OCCURRENCE {
                    if let Some(t) = index_of(edge.target) {
                        if let Some(hub) = hubs.get_mut(t) {
                            *hub = i64::try_from(edge.source).map_err(|_| AlignError::Overflow)?;
                        }
                    }
                }
                let (Some(s), Some(t)) = (index_of(edge.source), index_of(edge.target)) else {
                    continue;
                };
                let wide = |k: usize| i64::try_from(k).map_err(|_| AlignError::Overflow);
                if s == t {
                    // stored with -1 on the candidate side so that a loop meets a loop
                    let other = if side == 0 { wide(s)? } else { -1 };
                    if let Some(line) = raw.get_mut(s) {
                        line.push((Meets::Loop, relation, label, other));
                    }
                    continue;
                }
                let (source, target) = (wide(s)?, wide(t)?);
                if let Some(line) = raw.get_mut(s) {
                    line.push((Meets::Out, relation, label, target));
                }
                if let Some(line) = raw.get_mut(t) {
                    line.push((Meets::In, relation, label, source));
                }
            }
            let mut numbered = Vec::with_capacity(raw.len());
            for line in raw {
                let mut incidents = Vec::with_capacity(line.len());
                for (direction, relation, label, other) in line {
                    let kind = *kinds
                        .entry((direction, relation, label))
                        .or_insert_with(|| {
                            next_kind += 1;
                            next_kind - 1
                        });
                    incidents.push(Incident { kind, other });
                }
                numbered.push(incidents);
            }
            lines.push(numbered);
            occurrences.push(hubs);
            for &v in vertices {
                if let Some(slot) = place.get_mut(v) {
                    *slot = None;
                }
            }
        }
        let (Some(candidate_lines), Some(gold_lines)) = (lines.pop(), lines.pop()) else {
            return Err(AlignError::Internal("incident lines").into());
        };
        let (Some(candidate_hubs), Some(gold_hubs)) = (occurrences.pop(), occurrences.pop()) else {
            return Err(AlignError::Internal("occurrences").into());
        };
        let (Some(candidate), Some(gold)) = (histories.pop(), histories.pop()) else {
            return Err(AlignError::Internal("histories").into());
        };
        Ok(Histories {
            gold,
            candidate,
            gold_lines,
            candidate_lines,
            gold_hubs,
            candidate_hubs,
        })
    }
}

impl Resolver<'_> {
    fn unresolved(&self, state: &State) -> BTreeSet<ScopeId> {
        self.scopes.difference(&state.resolved).copied().collect()
    }

    /// Pair the scopes of one group into `state`; with `settle`,
    /// label ties are settled by the documents' score right away.
    fn group(
        &self,
        scores: &mut dyn ScopeScores,
        budget: &mut Budget,
        state: &mut State,
        group: &[ScopeId],
        settle: bool,
    ) -> Result<(), ResolveError> {
        fn values<'r>(records: &'r [Record<'r>]) -> Vec<&'r Json> {
            records.iter().map(|r| r.value).collect()
        }
        let unresolved = self.unresolved(state);
        let mut blocked = BTreeMap::new();
        for &scope in group {
            let (gold, candidate) = self.documents.records(scope);
            let ids = candidate.iter().filter_map(|r| r.key.clone()).collect();
            state.refs.candidate_ids.insert(scope, ids);
            let limit = self.mode.max_matrix_cells;
            let Some(properties) = self.block_by.get(&scope) else {
                check_size(gold.len(), candidate.len(), candidate.first(), limit)?;
                continue;
            };
            let found = blocks(&values(gold), &values(candidate), properties)
                .map_err(|error| ResolveError::Score(Arc::new(error)))?;
            if self.mode.describe {
                // its levels are kept whole
                check_size(gold.len(), candidate.len(), candidate.first(), limit)?;
            } else {
                for block in &found {
                    let first = block.candidate.first().and_then(|&j| candidate.get(j));
                    check_size(block.gold.len(), block.candidate.len(), first, limit)?;
                }
            }
            blocked.insert(scope, found);
        }
        // the scopes of a group are scored under the pairing before any of them: a
        // blocked scope's blocks are scored after the scopes before it were adopted
        let context = (!blocked.is_empty()).then(|| state.refs.clone());
        let mut matrices = Vec::with_capacity(group.len());
        for &scope in group {
            if blocked.contains_key(&scope) {
                matrices.push(None);
                continue;
            }
            let (gold, candidate) = self.documents.records(scope);
            matrices.push(Some(scores.matrix(
                scope,
                &values(gold),
                &values(candidate),
                &state.refs,
                &unresolved,
            )?));
        }
        let compared = matrices.iter().flatten().any(|m| m.rows() * m.cols() > 0)
            || blocked
                .values()
                .flatten()
                .any(|b| !b.gold.is_empty() && !b.candidate.is_empty());
        let trace = if self.mode.wl != WlMode::None && compared {
            Some(Rc::new(self.refine(state, group)?))
        } else {
            None
        };
        for (&scope, matrix) in group.iter().zip(matrices) {
            let (gold, candidate) = self.documents.records(scope);
            // what align() shows of the group's refinement: a scope with records on
            // both sides (whole or blocked) keeps it
            if let Some(trace) = trace
                .as_ref()
                .filter(|_| !gold.is_empty() && !candidate.is_empty())
            {
                state.traces.insert(scope, Rc::clone(trace));
            }
            let mut scope_pairing = match (matrix, blocked.get(&scope), &context) {
                (Some(matrix), _, _) => {
                    self.pair_whole(scope, matrix, trace.as_deref(), !settle)?
                }
                (None, Some(found), Some(refs)) => {
                    let histories = match &trace {
                        Some(trace) if !gold.is_empty() && !candidate.is_empty() => {
                            Some(trace.histories(scope)?)
                        }
                        _ => None,
                    };
                    let context = Context {
                        refs,
                        unresolved: &unresolved,
                        histories: histories.as_ref(),
                        mode: self.mode,
                    };
                    let scope = BlockedScope {
                        scope,
                        gold,
                        candidate,
                        blocks: found,
                    };
                    pair_blocks(&scope, &context, scores, !settle)?
                }
                _ => return Err(AlignError::Internal("a scope without its matrix").into()),
            };
            if settle {
                let mut left = self.unresolved(state);
                left.remove(&scope);
                self.settle(scores, budget, state, &mut scope_pairing, &left)?;
            }
            state.adopt(&self.documents, scope_pairing)?;
        }
        Ok(())
    }

    /// A scope paired as a whole: `matrix` its C, `trace` its group's refinement. Its
    /// levels are kept whole only where its label ties may be settled by score
    /// (`keeps_whole`); else at its pairs' cells, all adopting the pairs reads.
    fn pair_whole(
        &self,
        scope: ScopeId,
        matrix: Matrix<f64>,
        trace: Option<&Trace>,
        provisional: bool,
    ) -> Result<Paired, ResolveError> {
        let (n, m) = (matrix.rows(), matrix.cols());
        let histories = match trace {
            Some(trace) if n * m > 0 => Some(trace.histories(scope)?),
            _ => None,
        };
        let structure = histories.as_ref().map(|h| h.structure(None)).transpose()?;
        let whole = keeps_whole(n, m, self.mode);
        let kept = structure
            .as_ref()
            .filter(|_| whole)
            .map(|s| Ok::<_, AlignError>((s.same_matrix()?, s.depth_matrix()?)))
            .transpose()?;
        let (gold, candidate) = self.documents.records(scope);
        let paired = pair_scope(
            &matrix,
            self.mode.wl,
            self.mode.wl_lambda,
            structure,
            &mut Keys { gold, candidate },
        )?;
        let levels = if whole {
            Levels {
                matrix,
                structure: kept,
                at_pairs: None,
            }
        } else {
            let mut cells = PairCells::new();
            for &(i, j) in &paired.pairs {
                cells.insert(
                    (i, j),
                    cell_levels(matrix.get(i, j)?, histories.as_ref(), (i, j))?,
                );
            }
            Levels {
                matrix: Matrix::new(0, 0, Vec::new())?,
                structure: None,
                at_pairs: Some(cells),
            }
        };
        Ok(Paired {
            scope,
            levels: Rc::new(levels),
            rules: paired.pairs.iter().copied().zip(paired.rules).collect(),
            pairs: paired.pairs,
            label_ties: paired.label_ties,
            rows: Rc::new(paired.rows),
            cols: Rc::new(paired.cols),
            provisional,
        })
    }

    /// The group's gold and candidate reference graphs, refined together.
    fn refine(&self, state: &mut State, group: &[ScopeId]) -> Result<Trace, ResolveError> {
        // the resolved scopes' bijections lent to the graphs (moved, not copied),
        // then put back whatever the graphs made of them
        let mut resolution = Resolution::default();
        for scope in &state.resolved {
            if let Some(bijection) = state.refs.bijections.remove(scope) {
                resolution.bijections.insert(*scope, bijection);
            }
        }
        let built = self.graphs(&resolution, group);
        state.refs.bijections.append(&mut resolution.bijections);
        let (graph, gold_vertices, gold_edges) = built?;
        let labels = ranked_labels(&graph);
        let relations = ranked_relations(&graph);
        let edges: Vec<WlEdge<usize, usize>> = graph
            .edges
            .iter()
            .zip(relations.iter().copied())
            .zip(labels.iter().copied())
            .map(|((edge, relation), label)| WlEdge {
                source: edge.source,
                target: edge.target,
                relation,
                label,
            })
            .collect();
        let rounds = refine(graph.vertices.len(), &edges, &ranked_seeds(&graph))?;
        Ok(Trace {
            graph,
            gold_vertices,
            gold_edges,
            rounds,
            labels,
            relations,
        })
    }

    /// The group's gold and candidate reference graphs in one, with the number of
    /// gold vertices and edges.
    fn graphs(
        &self,
        resolution: &Resolution,
        group: &[ScopeId],
    ) -> Result<(Graph, usize, usize), ResolveError> {
        let members: BTreeSet<ScopeId> = group.iter().copied().collect();
        let blend = self.mode.wl == WlMode::Blend;
        let mut graph = Graph::default();
        build_graph(
            self.documents.gold,
            self.schema,
            Side::Gold,
            &members,
            resolution,
            blend,
            &mut graph,
        )?;
        let (gold_vertices, gold_edges) = (graph.vertices.len(), graph.edges.len());
        build_graph(
            self.documents.candidate,
            self.schema,
            Side::Candidate,
            &members,
            resolution,
            blend,
            &mut graph,
        )?;
        Ok((graph, gold_vertices, gold_edges))
    }

    /// Settle `paired`'s label ties by the documents' score.
    fn settle(
        &self,
        scores: &mut dyn ScopeScores,
        budget: &mut Budget,
        state: &State,
        paired: &mut Paired,
        unresolved: &BTreeSet<ScopeId>,
    ) -> Result<(), ResolveError> {
        if paired.label_ties.is_empty() || !settleable(&self.documents, paired) {
            return Ok(());
        }
        let (kept, ranked) = settle_levels(&paired.levels);
        let mut trial = TrialScore {
            scores,
            documents: &self.documents,
            refs: &state.refs,
            scope: paired.scope,
            levels: &paired.levels,
            unresolved,
            failed: None,
        };
        let settled = settle_by_score(
            &paired.pairs,
            &paired.label_ties,
            &SettleLevels {
                kept: &kept,
                ranked: &ranked,
            },
            &mut trial,
            budget,
            &Canonical {
                rows: &paired.rows,
                cols: &paired.cols,
            },
        );
        if let Some(error) = trial.failed {
            return Err(error);
        }
        (paired.pairs, paired.label_ties) = settled?;
        paired.rules = kept_rules(&paired.rules, &paired.pairs);
        paired.provisional = !unresolved.is_empty();
        Ok(())
    }

    /// `settle_provisional`: the label ties scored while some scope was unresolved,
    /// settled again now that every scope is, in resolution order.
    fn settle_provisional(
        &self,
        scores: &mut dyn ScopeScores,
        budget: &mut Budget,
        mut state: State,
        groups: &[Vec<ScopeId>],
    ) -> Result<State, ResolveError> {
        for (k, group) in groups.iter().enumerate() {
            let later = groups.get(k + 1..).unwrap_or_default();
            for &scope in group {
                let Some(paired) = state.paired.get(&scope).cloned() else {
                    continue;
                };
                if !paired.provisional || paired.label_ties.is_empty() {
                    continue;
                }
                if later.is_empty() {
                    let mut paired = paired;
                    self.settle(scores, budget, &state, &mut paired, &BTreeSet::new())?;
                    state.adopt(&self.documents, paired)?;
                    continue;
                }
                state = self.settle_with_later(scores, budget, state, paired, later)?;
            }
        }
        Ok(state)
    }

    /// Each pairing tried with the groups after the scope
    /// resolved again; the best one wins only if it beats the current resolution.
    fn settle_with_later(
        &self,
        scores: &mut dyn ScopeScores,
        budget: &mut Budget,
        mut state: State,
        mut scope: Paired,
        later: &[Vec<ScopeId>],
    ) -> Result<State, ResolveError> {
        scope.provisional = false;
        if let Some(kept) = state.paired.get_mut(&scope.scope) {
            kept.provisional = false;
        }
        if !settleable(&self.documents, &scope) {
            return Ok(state);
        }
        let (kept, ranked) = settle_levels(&scope.levels);
        let mut trials = Trials {
            resolver: self,
            scores,
            state: &state,
            scope: &scope,
            later,
            outcomes: BTreeMap::new(),
            failed: None,
        };
        let settled = settle_by_score(
            &scope.pairs,
            &scope.label_ties,
            &SettleLevels {
                kept: &kept,
                ranked: &ranked,
            },
            &mut trials,
            budget,
            &Canonical {
                rows: &scope.rows,
                cols: &scope.cols,
            },
        );
        if let Some(error) = trials.failed {
            return Err(error);
        }
        let Trials {
            scores, outcomes, ..
        } = trials;
        let (pairs, remaining) = settled?;
        let Some((value, chosen)) = outcomes.get(&pairs) else {
            return Ok(state); // no block fitted the budget
        };
        let mut sorted_before = scope.pairs.clone();
        sorted_before.sort_unstable();
        let before = scope.pairs.clone();
        let settled = Paired {
            rules: kept_rules(&scope.rules, &pairs),
            pairs,
            label_ties: remaining,
            ..scope.clone()
        };
        if *value > scores.document(&state.refs, &BTreeSet::new())? {
            let mut chosen = chosen.clone();
            chosen.adopt(&self.documents, settled)?;
            return Ok(chosen);
        }
        if settled.pairs == sorted_before {
            // it won: keep what followed from it
            state.adopt(
                &self.documents,
                Paired {
                    pairs: before,
                    ..settled
                },
            )?;
        }
        Ok(state)
    }
}

/// The rules of settled pairs: a pair kept keeps its rule, a new one is the
/// content rule's.
fn kept_rules(
    rules: &BTreeMap<(usize, usize), TieRule>,
    pairs: &Pairs,
) -> BTreeMap<(usize, usize), TieRule> {
    pairs
        .iter()
        .map(|&p| (p, rules.get(&p).copied().unwrap_or(TieRule::Content)))
        .collect()
}

/// A scope whose label ties may be settled by the documents' score (its levels
/// kept whole).
fn settleable(documents: &Documents<'_>, paired: &Paired) -> bool {
    documents.records(paired.scope).0.len() <= SCORED_RECORDS && paired.levels.at_pairs.is_none()
}

/// The trials of settling with the later groups: a pairing adopted in a copy of the
/// state, the groups after it resolved again, the documents scored; each outcome kept.
struct Trials<'s, 'r> {
    resolver: &'s Resolver<'r>,
    scores: &'s mut dyn ScopeScores,
    state: &'s State,
    scope: &'s Paired,
    later: &'s [Vec<ScopeId>],
    outcomes: BTreeMap<Pairs, (f64, State)>,
    failed: Option<ResolveError>,
}

impl Trials<'_, '_> {
    fn trial(&mut self, pairs: &[(usize, usize)]) -> Result<f64, ResolveError> {
        let mut trial = self.state.clone();
        trial.adopt(
            &self.resolver.documents,
            Paired {
                pairs: pairs.to_vec(),
                ..self.scope.clone()
            },
        )?;
        // the groups resolved again never settle: no budget is spent there
        let mut unused = Budget::default();
        for group in self.later {
            self.resolver
                .group(&mut *self.scores, &mut unused, &mut trial, group, false)?;
        }
        let value = self.scores.document(&trial.refs, &BTreeSet::new())?;
        self.outcomes.insert(pairs.to_vec(), (value, trial));
        Ok(value)
    }
}

impl DocumentScore for Trials<'_, '_> {
    fn alike(&mut self, trials: &[Pairs]) -> Result<Vec<usize>, AlignError> {
        self.resolver.documents.alike(self.scope.scope, trials)
    }

    fn score(&mut self, pairs: &[(usize, usize)]) -> Result<f64, AlignError> {
        self.trial(pairs).map_err(|error| {
            self.failed = Some(error);
            AlignError::Internal("a trial resolution")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{
        big_endian, ranked_labels, ranked_relations, ranks_by_code_points, ranks_by_runs, utf8,
    };
    use crate::align::refer::{Edge, Graph};

    #[test]
    fn record_keys_keep_the_code_point_order_with_lone_surrogates() {
        let points = [
            0x41, 0xe9, 0xd800, 0xdfff, 0xe000, 0xffff, 0x1_0000, 0x10_ffff,
        ];
        let encoded: Vec<Vec<u8>> = points.iter().map(|&c| utf8(&[c])).collect();
        let mut sorted = encoded.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, encoded); // strictly increasing
        assert_eq!(utf8(&[0xe9, 0x1_f600]), "é😀".as_bytes());
        assert_eq!(utf8(&[0xd800]), vec![0xed, 0xa0, 0x80]); // Python's surrogatepass
    }

    #[test]
    fn labels_rank_in_code_point_order_lone_surrogates_included() {
        let edge = |label: Vec<u32>| Edge {
            source: 0,
            target: 0,
            relation: "".into(),
            label: label.into(),
        };
        let graph = Graph {
            vertices: Vec::new(),
            edges: vec![
                edge(vec![0xe000]),
                edge(vec![0x61, 0xdc00]),
                edge(vec![]),
                edge(vec![0x61, 0xdc00]),
                edge(vec![0x1_0000]),
            ],
            seeds: Vec::new(),
        };
        let ranked = ranked_labels(&graph);
        let rank = |k: usize| ranked.get(k).copied();
        assert_eq!(rank(1), rank(3));
        assert!(rank(2) < rank(1) && rank(1) < rank(0) && rank(0) < rank(4));
    }

    #[test]
    fn big_endian_bytes_order_as_code_points() {
        let texts: [&[u32]; 9] = [
            &[],
            &[0],
            &[0, 0],
            &[1],
            &[0xff],
            &[0x100],
            &[0x100, 0],
            &[0xd800, 0x41],
            &[0x10_ffff],
        ];
        for a in texts {
            for b in texts {
                assert_eq!(big_endian(a).cmp(&big_endian(b)), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn runs_share_a_rank_and_equal_keys_in_other_runs_too() {
        // runs of equal letters; a key is its letter; "b" twice in separate runs
        let items = ['b', 'b', 'a', 'c', 'c', 'b', 'a'];
        let ranks = ranks_by_runs(&items, |x, y| x == y, |&x| x);
        assert_eq!(ranks, vec![1, 1, 0, 2, 2, 1, 0]);
        assert!(ranks_by_runs(&[] as &[char], |x, y| x == y, |&x| x).is_empty());
        let texts: [&[u32]; 5] = [&[0x100], &[0x100], &[1, 0xffff], &[], &[1, 0xffff]];
        let ranks = ranks_by_code_points(&texts, |a, b| std::ptr::eq(*a, *b), |t| t);
        assert_eq!(ranks, vec![2, 2, 1, 0, 1]);
    }

    #[test]
    fn relations_rank_in_str_order_equal_relations_equal_ranks() {
        let edge = |relation: &str| Edge {
            source: 0,
            target: 0,
            relation: relation.into(),
            label: Vec::new().into(),
        };
        let graph = Graph {
            vertices: Vec::new(),
            edges: ["b->a", "a", "b->a", "\u{0}occurrence", "é", "a"]
                .into_iter()
                .map(edge)
                .collect(),
            seeds: Vec::new(),
        };
        assert_eq!(ranked_relations(&graph), vec![2, 1, 2, 0, 3, 1]);
    }
}
