//! Where values are, and a scope's records paired by where they are.
//!
//! In the main pass a scope's record arrays are paired by the resolved record
//! pairs, keyed by the records' JSON Pointers. The pointers of the values being
//! compared are therefore followed, but only below nodes that hold such an array
//! (elsewhere no score depends on them), and built by appending to and truncating
//! two strings rather than allocating one per value.

use super::refs::RefState;
use super::sink::Step;
use super::{Scorer, Unsupported};
use crate::align::Pairs;
use crate::plan::{NodeId, Order, ScopeId};
use crate::pointer::{push_decimal, push_token};
use crate::value::Json;

/// The state of a scorer given none: Python's `Scorer()` (no bijection, nothing
/// paired).
pub(super) static NO_STATE: RefState = RefState::new();

/// The referential part of a scorer: its state, the plan nodes holding an array
/// paired by pointer, and the two values' pointers while they are followed.
#[derive(Debug)]
pub(super) struct Referential<'a> {
    pub(super) state: &'a RefState,
    holding: Vec<bool>,
    paths: Option<(String, String)>,
}

impl Default for Referential<'_> {
    fn default() -> Self {
        Referential {
            state: &NO_STATE,
            holding: Vec::new(),
            paths: None,
        }
    }
}

/// One reference token of a pointer.
#[derive(Clone, Copy, Debug)]
enum Token<'k> {
    Key(&'k str),
    Index(usize),
}

/// How [`Scorer::leave`] undoes an [`Scorer::enter`].
#[derive(Debug)]
pub(super) enum Mark {
    Untracked,
    Pushed(usize, usize),
    Suspended(String, String),
}

fn push(path: &mut String, token: Token<'_>) {
    match token {
        Token::Key(key) => push_token(path, key),
        Token::Index(index) => {
            path.push('/');
            push_decimal(path, index);
        }
    }
}

/// The index `k` in `offset..offset + len` whose pointer below `base` is `target`
/// (`join(base, k)`), if any.
fn index_below(target: &str, base: &str, offset: usize, len: usize) -> Option<usize> {
    let digits = target.strip_prefix(base)?.strip_prefix('/')?;
    // str(int) of an index: decimal digits, no sign, no leading zero but "0"
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if !canonical {
        return None;
    }
    let k: usize = digits.parse().ok()?;
    k.checked_sub(offset).filter(|j| *j < len)
}

impl<'a> Scorer<'a> {
    /// Scores under `state`; when it pairs record arrays, the documents' pointers
    /// are followed from the root (`""`).
    pub fn with_state(mut self, state: &'a RefState) -> Self {
        self.refs = Referential {
            state,
            holding: self.plan.reaching(state.paired_arrays()),
            paths: state
                .has_record_pairs()
                .then(|| (String::new(), String::new())),
        };
        self
    }

    /// Sets the pointers of the next two values compared at the top (a matrix's
    /// row and column); `None`: not known (an array paired by pointer then refuses).
    pub(super) fn place(&mut self, paths: Option<(&str, &str)>) {
        self.refs.paths = paths
            .filter(|_| self.refs.state.has_record_pairs())
            .map(|(g, c)| (g.to_owned(), c.to_owned()));
    }

    pub(super) fn holds(&self, id: NodeId) -> bool {
        self.refs.holding.get(id.index()).copied().unwrap_or(false)
    }

    /// Steps the pointers one level down to values compared under `sub` (`step`:
    /// their keys or indices): followed while `sub` holds an array paired by
    /// pointer, else set aside.
    pub(super) fn enter(&mut self, sub: NodeId, step: Step<'_>) -> Mark {
        let tokens = match step {
            Step::Key {
                gold: Some(g),
                candidate: Some(c),
            } => (Token::Key(g), Token::Key(c)),
            Step::Index {
                gold: Some(g),
                candidate: Some(c),
            } => (Token::Index(g), Token::Index(c)),
            // the top, or one side only (no value is compared there)
            _ => return Mark::Untracked,
        };
        if !self.holds(sub) {
            return self.aside();
        }
        let Some((g, c)) = self.refs.paths.as_mut() else {
            return Mark::Untracked;
        };
        let mark = Mark::Pushed(g.len(), c.len());
        push(g, tokens.0);
        push(c, tokens.1);
        mark
    }

    /// Sets the pointers aside while values that need none are scored (restored by
    /// [`Scorer::leave`]).
    pub(super) fn aside(&mut self) -> Mark {
        match self.refs.paths.take() {
            Some((g, c)) => Mark::Suspended(g, c),
            None => Mark::Untracked,
        }
    }

    pub(super) fn leave(&mut self, mark: Mark) {
        match mark {
            Mark::Untracked => {}
            Mark::Pushed(g_len, c_len) => {
                if let Some((g, c)) = self.refs.paths.as_mut() {
                    g.truncate(g_len);
                    c.truncate(c_len);
                }
            }
            Mark::Suspended(g, c) => self.refs.paths = Some((g, c)),
        }
    }

    /// Whether `item`'s objects are a scope's records (an identifier among its
    /// properties): such lists are unordered whatever their `order`.
    pub(super) fn record_items(&self, item: NodeId) -> Result<bool, Unsupported> {
        for (_, property) in &self.plan.node(item)?.object.properties {
            if self.plan.node(*property)?.id_scope.is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The tail pairs of a records array paired by pointer (None: the list is not):
    /// its scope, and each gold record with the candidate record its pointer is
    /// paired with, and the items that are no records aligned among themselves,
    /// unordered.
    pub(super) fn paired_records(
        &mut self,
        gold: &[Json],
        candidate: &[Json],
        id: NodeId,
        offset: usize,
        depth: usize,
    ) -> Result<Option<(ScopeId, Pairs)>, Unsupported> {
        let node = self.plan.node(id)?;
        let Some(item) = node.array.items else {
            return Ok(None);
        };
        let Some(paired) = self.refs.state.record_pairs(id) else {
            return Ok(None);
        };
        let scope = paired.scope;
        let Some((gold_path, cand_path)) = self.refs.paths.as_ref() else {
            return Err(Unsupported::Untracked);
        };
        let mut pairs = Vec::new();
        let mut pointer = gold_path.clone();
        let base = pointer.len();
        for i in 0..gold.len() {
            pointer.truncate(base);
            push(&mut pointer, Token::Index(offset + i));
            let target = paired.pairs.get(&pointer);
            if let Some(j) = target.and_then(|t| index_below(t, cand_path, offset, candidate.len()))
            {
                pairs.push((i, j));
            }
        }
        let rest_gold: Vec<usize> = (0..gold.len())
            .filter(|&i| !gold.get(i).is_some_and(Json::is_object))
            .collect();
        let rest_cand: Vec<usize> = (0..candidate.len())
            .filter(|&j| !candidate.get(j).is_some_and(Json::is_object))
            .collect();
        if !rest_gold.is_empty() && !rest_cand.is_empty() {
            let pick = |values: &[Json], at: &[usize]| -> Vec<Json> {
                at.iter().filter_map(|&k| values.get(k).cloned()).collect()
            };
            let (rest_g, rest_c) = (pick(gold, &rest_gold), pick(candidate, &rest_cand));
            // Python scores these without their pointers
            let paths = self.refs.paths.take();
            let block_by = node.array.block_by.as_slice();
            let found = self.solve(&rest_g, &rest_c, item, Order::Align, block_by, depth, 0);
            self.refs.paths = paths;
            for (a, b) in found?.0 {
                if let (Some(&i), Some(&j)) = (rest_gold.get(a), rest_cand.get(b)) {
                    pairs.push((i, j));
                }
            }
        }
        pairs.sort_unstable();
        Ok(Some((scope, pairs)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{Comparator, Integer, Number, Value};
    use crate::plan::{Node, NodeType, Plan, PlanBuilder, Scope};
    use crate::score::{Limits, MapCache, RecordPairs};

    /// A root array of records `{id (idScope p), v (exact string)}`.
    fn records_plan() -> Plan {
        let mut builder = PlanBuilder::default();
        let [root, record, id, v, any, any_object, any_array] = [(); 7].map(|()| builder.reserve());
        builder
            .declare_scopes(vec![Scope {
                name: "p".into(),
                records: root,
            }])
            .unwrap();
        let mut array = Node::new(NodeType::Array);
        array.array.items = Some(record);
        let mut object = Node::new(NodeType::Object);
        object.object.properties = vec![("id".into(), id), ("v".into(), v)];
        let mut key = Node::new(NodeType::Integer);
        key.id_scope = builder.scope_id("p");
        let mut text = Node::new(NodeType::String);
        text.comparator = Some(Comparator::Exact);
        for (slot, node) in [
            (root, array),
            (record, object),
            (id, key),
            (v, text),
            (any, Node::new(NodeType::Any)),
            (any_object, Node::new(NodeType::Object)),
            (any_array, Node::new(NodeType::Array)),
        ] {
            builder.set(slot, node).unwrap();
        }
        builder.finish(root, any, any_object, any_array).unwrap()
    }

    fn record(id: i64, v: &str) -> Json {
        let id = Json::Leaf(Value::Number(Number::Int(Integer::Small(id))));
        Json::object(vec![
            ("id".into(), id),
            ("v".into(), Json::Leaf(Value::from(v))),
        ])
    }

    fn score(plan: &Plan, state: &RefState, gold: &Json, candidate: &Json) -> f64 {
        let limits = Limits {
            max_depth: 10,
            max_matrix_cells: 100,
        };
        let mut cache = MapCache::default();
        Scorer::new(plan, limits, &mut cache)
            .with_state(state)
            .score(gold, candidate)
            .unwrap()
    }

    #[test]
    fn records_are_paired_by_pointer_in_the_main_pass_and_by_score_before() {
        let plan = records_plan();
        let gold = Json::Array(vec![record(1, "a"), record(2, "b"), Json::Null]);
        let candidate = Json::Array(vec![record(9, "b"), Json::Null, record(8, "a")]);
        // not paired yet: unordered by score, the nulls together
        assert_eq!(score(&plan, &RefState::new(), &gold, &candidate), 1.0);
        let paired = |pairs: &[(&str, &str)]| {
            let mut state = RefState::new();
            let records = plan.scope(plan.scope_id("p").unwrap()).unwrap().records;
            let pairs = pairs
                .iter()
                .map(|(g, c)| ((*g).to_owned(), (*c).to_owned()))
                .collect();
            state.pair_records(
                records,
                RecordPairs {
                    scope: plan.scope_id("p").unwrap(),
                    pairs,
                },
            );
            state
        };
        // as resolved: every record with its partner, the nulls aligned apart
        let resolved = paired(&[("/0", "/2"), ("/1", "/0")]);
        assert_eq!(score(&plan, &resolved, &gold, &candidate), 1.0);
        // paired crosswise: each pair scores its id only, (1 + 0) / 2
        let crossed = paired(&[("/0", "/0"), ("/1", "/2")]);
        assert_eq!(
            score(&plan, &crossed, &gold, &candidate),
            (0.5 + 0.5 + 1.0) / 3.0
        );
        // a pointer that names no record of the candidate pairs nothing
        let dangling = paired(&[("/0", "/7"), ("/1", "/00")]);
        assert_eq!(score(&plan, &dangling, &gold, &candidate), 1.0 / 5.0);
    }

    #[test]
    fn tokens_are_escaped_as_pointer_join_does() {
        let mut path = String::from("/a");
        push(&mut path, Token::Key("x/y~z"));
        push(&mut path, Token::Index(12));
        push(&mut path, Token::Index(0));
        assert_eq!(path, "/a/x~1y~0z/12/0");
    }

    #[test]
    fn a_target_names_an_index_only_in_its_canonical_form() {
        assert_eq!(index_below("/r/3", "/r", 0, 5), Some(3));
        assert_eq!(index_below("/r/3", "/r", 2, 5), Some(1));
        assert_eq!(index_below("/r/03", "/r", 0, 5), None);
        assert_eq!(index_below("/r/+3", "/r", 0, 5), None);
        assert_eq!(index_below("/r/5", "/r", 0, 5), None);
        assert_eq!(index_below("/r/1", "/r", 2, 5), None);
        assert_eq!(index_below("/rx/1", "/r", 0, 5), None);
        assert_eq!(index_below("/r/1/a", "/r", 0, 5), None);
        assert_eq!(index_below("/0", "", 0, 1), Some(0));
    }
}
