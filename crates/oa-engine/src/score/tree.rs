//! The match tree as a node table (issue 22): one row per node of the match tree,
//! in preorder, each naming its parent, with the fields `oa_core.matchtree.MatchNode`
//! holds, filled in by the same recursion that
//! scores (the [`Table`] sink) and so with the same bits.

use std::collections::BTreeSet;

use super::scoping::declined;
use super::sink::{NodeKind, Sink, Status, Step};
use super::{ScopedDocuments, Scorer, Unsupported};
use crate::align::refer::{Referential, ResolveError};
use crate::align::Matrix;
use crate::compare::Comparator;
use crate::plan::{NodeId, Order, ScopeId};
use crate::pointer::{escaped, is_plain, push_decimal_bytes};
use crate::value::Json;

/// One node of the match tree (a `MatchNode` without its values, its effective
/// weights and its children: the children of a row are the later rows naming it).
/// Its label, pointers and keys are pieces of its table's text ([`Table::text`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The parent's row (None: the root); a parent comes before its children.
    pub parent: Option<usize>,
    pub kind: NodeKind,
    pub status: Status,
    /// For display only (`"name"`, `"3"`, `"gold ~ candidate"`).
    pub label: Text,
    /// JSON Pointers into each document (None on the side the node is absent from).
    pub gold_pointer: Option<Text>,
    pub candidate_pointer: Option<Text>,
    /// The plan node the values were compared under (after `concrete`).
    pub node: NodeId,
    /// The step from the parent's values: the key of each side (map slots) or the
    /// index of each side (list and tuple items).
    pub gold_key: Option<Text>,
    pub candidate_key: Option<Text>,
    pub gold_index: Option<usize>,
    pub candidate_index: Option<usize>,
    pub score: f64,
    /// The share of the parent's score (`MatchNode.weight`), of its key term
    /// (`key_weight`) and the key similarity (`key_score`, map slots only).
    pub weight: f64,
    pub key_weight: f64,
    pub key_score: Option<f64>,
    /// Leaves: the comparator's name, the threshold and the similarity (when compared).
    pub comparator: Option<Comparator>,
    pub threshold: Option<f64>,
    pub similarity: Option<f64>,
    /// Identifiers, references and records arrays paired by pointer: their scope.
    pub scope: Option<ScopeId>,
    /// A reference whose gold id maps to a candidate id (`MatchNode.expected` is
    /// that id, as the bijection holds it).
    pub expected: bool,
    /// An identifier whose candidate value is its gold value's image under the
    /// scope's bijection.
    pub image: bool,
    /// Whether rows follow with this one as their parent (in the whole table, before
    /// [`Table::compact`]).
    pub children: bool,
    /// Lists: their order (`align`, `fixed`, `scope`), the score matrix they were
    /// paired with and the matched pairs (indices into the whole lists).
    pub order: Option<&'static str>,
    pub matrix: Option<Matrix<f64>>,
    pub pairs: Vec<(usize, usize)>,
}

/// A piece of a table's text: the bytes `start..end` of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Text {
    start: usize,
    end: usize,
}

/// The rows of one match tree, in preorder, and their text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    rows: Vec<Row>,
    /// Every row's label, pointers and keys, written one after another (UTF-8): one
    /// buffer rather than a string per field, and a row's pointer is its parent's
    /// copied within it. A key written unescaped at the end of its pointer, and an
    /// index's label, are that end of the pointer, not written again.
    text: Vec<u8>,
}

impl Table {
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// A label, pointer or key of one of this table's rows.
    pub fn text(&self, text: Text) -> &str {
        // the table wrote whole `str`s there, so this finds one
        self.text
            .get(text.start..text.end)
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
            .unwrap_or_default()
    }

    /// This table without the subtrees that agree with the gold: the root, and every
    /// row at or above a row that disagrees, each naming its parent among them (rows
    /// keep their order, fields and `children`). A row agrees when it is matched,
    /// scores 1 under the same key on both sides, is an identifier only if its
    /// candidate value is the gold's image and a reference only if it points at that
    /// image; a subtree agrees when all its rows do. Nothing in such a subtree differs
    /// from the gold in value, key or identity, so a reader looking for what to
    /// change (the repairs of `oa_core.feedback`) needs none of its rows.
    pub fn compact(&self) -> Table {
        let mut agrees: Vec<bool> = self.rows.iter().map(|row| self.agrees(row)).collect();
        // children come after their parent: one backward pass carries a
        // disagreement up to every ancestor
        for index in (1..self.rows.len()).rev() {
            let parent = self.rows.get(index).and_then(|row| row.parent);
            if agrees.get(index) == Some(&false) {
                if let Some(above) = parent.and_then(|parent| agrees.get_mut(parent)) {
                    *above = false;
                }
            }
        }
        if let Some(root) = agrees.first_mut() {
            *root = false; // always kept: the score is read off it
        }
        // each kept row's place among the kept ones
        let mut renumbered: Vec<Option<usize>> = Vec::with_capacity(self.rows.len());
        let mut rows = Vec::new();
        for (row, agrees) in self.rows.iter().zip(&agrees) {
            if *agrees {
                renumbered.push(None);
                continue;
            }
            let mut kept = row.clone();
            // a kept row's parent disagrees too, and came first: it is renumbered
            kept.parent = row
                .parent
                .and_then(|parent| renumbered.get(parent).copied().flatten());
            renumbered.push(Some(rows.len()));
            rows.push(kept);
        }
        Table {
            rows,
            text: self.text.clone(),
        }
    }

    /// Whether a row agrees with the gold by itself ([`Table::compact`]).
    fn agrees(&self, row: &Row) -> bool {
        let same_key = match (row.gold_key, row.candidate_key) {
            (Some(gold), Some(candidate)) => self.text(gold) == self.text(candidate),
            _ => true,
        };
        row.status == Status::Matched
            && row.score >= 1.0
            && same_key
            && match row.kind {
                NodeKind::Id => row.image,
                NodeKind::Ref => row.expected,
                _ => true,
            }
    }

    fn row(&mut self, row: usize) -> Option<&mut Row> {
        // a handle is an index this table handed out, so this finds it
        self.rows.get_mut(row)
    }

    /// The text written from `start` to the end.
    fn since(&self, start: usize) -> Text {
        Text {
            start,
            end: self.text.len(),
        }
    }

    /// `token` written at the end of the text.
    fn write(&mut self, token: &str) -> Text {
        let start = self.text.len();
        self.text.extend_from_slice(token.as_bytes());
        self.since(start)
    }

    /// `base` (the empty pointer when None) and a `/`, written at the end of the text;
    /// returns where it starts.
    fn base(&mut self, base: Option<Text>) -> usize {
        let start = self.text.len();
        if let Some(base) = base {
            self.text.extend_from_within(base.start..base.end);
        }
        self.text.push(b'/');
        start
    }

    /// `join` of `oa_core/pointer.py`: `base` with one escaped reference token
    /// appended, written at the end of the text.
    fn join(&mut self, base: Option<Text>, token: &str) -> Text {
        let start = self.base(base);
        escaped(token).for_each(|piece| self.text.extend_from_slice(piece.as_bytes()));
        self.since(start)
    }

    /// The label of a slot whose key differs on each side: `gold ~ candidate`.
    fn renamed(&mut self, gold: &str, candidate: &str) -> Text {
        let start = self.text.len();
        self.text.extend_from_slice(gold.as_bytes());
        self.text.extend_from_slice(b" ~ ");
        self.text.extend_from_slice(candidate.as_bytes());
        self.since(start)
    }

    /// A map slot's key, given its `pointer` (`join`ed with it): the pointer's end
    /// when the key needed no escape.
    fn key(&mut self, pointer: Text, key: &str) -> Text {
        if is_plain(key) {
            Text {
                start: pointer.end - key.len(),
                end: pointer.end,
            }
        } else {
            self.write(key)
        }
    }

    /// A list item's pointer (`base` joined with its index: digits need no escape)
    /// and its index's digits (the pointer's end).
    fn index(&mut self, base: Option<Text>, index: usize) -> (Text, Text) {
        let start = self.base(base);
        let digits = self.text.len();
        push_decimal_bytes(&mut self.text, index);
        (self.since(start), self.since(digits))
    }
}

impl Sink for Table {
    type Row = usize;
    const RECORDS: bool = true;

    fn open(
        &mut self,
        parent: Option<usize>,
        step: Step<'_>,
        node: NodeId,
        kind: NodeKind,
        status: Status,
    ) -> usize {
        // the parent's pointers: a row's own are written after them
        let (gold_base, candidate_base) = parent
            .and_then(|parent| self.rows.get(parent))
            .map_or((None, None), |row| {
                (row.gold_pointer, row.candidate_pointer)
            });
        let mut row = Row {
            parent,
            kind,
            status,
            label: self.since(self.text.len()),
            gold_pointer: None,
            candidate_pointer: None,
            node,
            gold_key: None,
            candidate_key: None,
            gold_index: None,
            candidate_index: None,
            score: 0.0,
            weight: 0.0,
            key_weight: 0.0,
            key_score: None,
            comparator: None,
            threshold: None,
            similarity: None,
            scope: None,
            expected: false,
            image: false,
            children: false,
            order: None,
            matrix: None,
            pairs: Vec::new(),
        };
        match step {
            Step::Root => {
                row.gold_pointer = Some(row.label);
                row.candidate_pointer = Some(row.label);
            }
            Step::Key { gold, candidate } => {
                if let Some(key) = gold {
                    let pointer = self.join(gold_base, key);
                    row.gold_pointer = Some(pointer);
                    row.gold_key = Some(self.key(pointer, key));
                }
                if let Some(key) = candidate {
                    let pointer = self.join(candidate_base, key);
                    row.candidate_pointer = Some(pointer);
                    // the same key on both sides is one piece of text
                    row.candidate_key = match (gold, row.gold_key) {
                        (Some(gold), Some(shared)) if gold == key => Some(shared),
                        _ => Some(self.key(pointer, key)),
                    };
                }
                row.label = match (gold, candidate, row.gold_key, row.candidate_key) {
                    (Some(g), Some(c), _, _) if g != c => self.renamed(g, c),
                    (_, _, Some(key), _) | (_, _, None, Some(key)) => key,
                    _ => row.label,
                };
            }
            Step::Index { gold, candidate } => {
                let gold_at = gold.map(|index| self.index(gold_base, index));
                let candidate_at = candidate.map(|index| self.index(candidate_base, index));
                row.gold_pointer = gold_at.map(|(pointer, _)| pointer);
                row.candidate_pointer = candidate_at.map(|(pointer, _)| pointer);
                row.label = gold_at
                    .or(candidate_at)
                    .map_or(row.label, |(_, digits)| digits);
                row.gold_index = gold;
                row.candidate_index = candidate;
            }
        }
        if let Some(parent) = parent.and_then(|parent| self.rows.get_mut(parent)) {
            parent.children = true;
        }
        self.rows.push(row);
        self.rows.len() - 1
    }

    fn kind(&mut self, row: usize, kind: NodeKind) {
        if let Some(row) = self.row(row) {
            row.kind = kind;
        }
    }

    fn status(&mut self, row: usize, status: Status) {
        if let Some(row) = self.row(row) {
            row.status = status;
        }
    }

    fn score(&mut self, row: usize, score: f64) {
        if let Some(row) = self.row(row) {
            row.score = score;
        }
    }

    fn leaf(
        &mut self,
        row: usize,
        comparator: Option<Comparator>,
        threshold: f64,
        similarity: Option<f64>,
    ) {
        if let Some(row) = self.row(row) {
            row.comparator = comparator;
            row.threshold = Some(threshold);
            row.similarity = similarity;
        }
    }

    fn scope(&mut self, row: usize, scope: ScopeId, expected: bool) {
        if let Some(row) = self.row(row) {
            row.scope = Some(scope);
            row.expected = expected;
        }
    }

    fn image(&mut self, row: usize) {
        if let Some(row) = self.row(row) {
            row.image = true;
        }
    }

    fn order(&mut self, row: usize, order: Order) {
        if let Some(row) = self.row(row) {
            row.order = Some(match order {
                Order::Align => "align",
                Order::Fixed => "fixed",
            });
        }
    }

    fn records(&mut self, row: usize, scope: ScopeId) {
        if let Some(row) = self.row(row) {
            row.order = Some("scope");
            row.scope = Some(scope);
        }
    }

    fn matrix(&mut self, row: usize, matrix: Matrix<f64>) {
        if let Some(row) = self.row(row) {
            row.matrix = Some(matrix);
        }
    }

    fn pairs(&mut self, row: usize, pairs: &[(usize, usize)]) {
        if let Some(row) = self.row(row) {
            row.pairs = pairs.to_vec();
        }
    }

    fn share(&mut self, row: usize, weight: f64, key_weight: f64, key_score: Option<f64>) {
        if let Some(row) = self.row(row) {
            row.weight = weight;
            row.key_weight = key_weight;
            row.key_score = key_score;
        }
    }
}

impl Scorer<'_> {
    /// The match tree of `candidate` against `gold` under the plan's root
    /// (pointers empty at the root), as a node table.
    ///
    /// ```
    /// use oa_engine::compare::{Number, Value};
    /// use oa_engine::plan::{Node, NodeType, PlanBuilder};
    /// use oa_engine::score::{Limits, MapCache, Scorer, Status};
    /// use oa_engine::value::Json;
    /// let mut builder = PlanBuilder::default();
    /// let ids: Vec<_> = (0..4).map(|_| builder.reserve()).collect();
    /// for (id, ty) in ids.iter().zip([NodeType::Any, NodeType::Any, NodeType::Object,
    ///                                 NodeType::Array]) {
    ///     builder.set(*id, Node::new(ty)).unwrap();
    /// }
    /// let plan = builder.finish(ids[0], ids[1], ids[2], ids[3]).unwrap();
    /// let number = |x| Json::Leaf(Value::Number(Number::Float(x)));
    /// let gold = Json::object(vec![("a".into(), number(1.0)), ("b".into(), number(1.0))]);
    /// let candidate = Json::object(vec![("a".into(), number(1.0))]);
    /// let limits = Limits { max_depth: 100, max_matrix_cells: 1000 };
    /// let mut cache = MapCache::default();
    /// let table = Scorer::new(&plan, limits, &mut cache).table(&gold, &candidate).unwrap();
    /// let rows = table.rows();
    /// assert_eq!(rows.len(), 3);
    /// assert_eq!((rows[0].score, rows[1].weight), (0.5, 0.5));
    /// assert_eq!(rows[2].gold_pointer.map(|pointer| table.text(pointer)), Some("/b"));
    /// assert_eq!(rows[2].status, Status::Missing);
    /// ```
    pub fn table(&mut self, gold: &Json, candidate: &Json) -> Result<Table, Unsupported> {
        self.place(Some(("", "")));
        let mut table = Table::default();
        let root = self.plan.root();
        self.value(&mut table, None, Step::Root, gold, candidate, root, 0)?;
        Ok(table)
    }
}

impl ScopedDocuments<'_> {
    /// The documents' match tree under a finished resolution `refs` (the final pass
    /// `ScopeScores::document` scores, every scope resolved and its records paired),
    /// as a node table: `align()`'s tree without converting the documents again.
    pub fn table(&mut self, refs: &Referential) -> Result<Table, ResolveError> {
        let state = self.state(refs, &BTreeSet::new(), true)?;
        Scorer::new(self.plan, self.limits, self.cache)
            .with_state(&state)
            .table(self.gold, self.candidate)
            .map_err(declined)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Value;
    use crate::plan::{Node, NodeType, Plan, PlanBuilder, Scope};
    use crate::score::{Limits, MapCache, RefState};
    use crate::value::IdKey;

    fn plan(root: Node) -> Plan {
        let mut builder = PlanBuilder::default();
        let ids: Vec<NodeId> = (0..4).map(|_| builder.reserve()).collect();
        let nodes = [
            root,
            Node::new(NodeType::Any),
            Node::new(NodeType::Object),
            Node::new(NodeType::Array),
        ];
        for (id, node) in ids.iter().zip(nodes) {
            builder.set(*id, node).unwrap();
        }
        let &[root, any, any_object, any_array] = ids.as_slice() else {
            unreachable!("four ids")
        };
        builder.finish(root, any, any_object, any_array).unwrap()
    }

    fn at(table: &Table, index: usize) -> &Row {
        table.rows().get(index).unwrap()
    }

    fn table(plan: &Plan, gold: &Json, candidate: &Json) -> Table {
        let limits = Limits {
            max_depth: 100,
            max_matrix_cells: 1_000,
        };
        Scorer::new(plan, limits, &mut MapCache::default())
            .table(gold, candidate)
            .unwrap()
    }

    #[test]
    fn pointers_escape_their_tokens_and_keys_keep_theirs() {
        let mut table = Table::default();
        let base = table.join(None, "a");
        let pointer = table.join(Some(base), "b/c~d");
        let key = table.key(pointer, "b/c~d");
        let plain = table.join(Some(pointer), "é");
        let plain_key = table.key(plain, "é");
        let (item, digits) = table.index(Some(base), 120);
        let (first, zero) = table.index(None, 0);
        let found = [pointer, key, plain, plain_key, item, digits, first, zero]
            .map(|text| table.text(text));
        let expected = [
            "/a/b~1c~0d",
            "b/c~d",
            "/a/b~1c~0d/é",
            "é",
            "/a/120",
            "120",
            "/0",
            "0",
        ];
        assert_eq!(found, expected);
        let renamed = table.renamed("x", "y");
        assert_eq!(table.text(renamed), "x ~ y");
    }

    #[test]
    fn a_list_lists_matched_and_missing_items_by_gold_index_then_the_excess() {
        let mut list = Node::new(NodeType::Array);
        list.array.order = Order::Align;
        let plan = plan(list);
        let gold = Json::Array(vec![Json::int(1), Json::int(2), Json::int(3)]);
        let candidate = Json::Array(vec![
            Json::int(3),
            Json::Leaf(Value::from("x")),
            Json::int(1),
        ]);
        let table = table(&plan, &gold, &candidate);
        let rows = table.rows();
        let statuses: Vec<_> = rows.iter().skip(1).map(|row| row.status).collect();
        assert_eq!(
            statuses,
            [
                Status::Matched,
                Status::Missing,
                Status::Matched,
                Status::Excess
            ]
        );
        let labels: Vec<_> = rows.iter().map(|row| table.text(row.label)).collect();
        assert_eq!(labels, ["", "0", "1", "2", "1"]);
        assert_eq!(at(&table, 0).pairs, [(0, 2), (2, 0)]);
        let excess = at(&table, 4)
            .candidate_pointer
            .map(|pointer| table.text(pointer));
        assert_eq!(excess, Some("/1"));
        // 2 matched of 4 slots: each child's share is a quarter, the root scores half
        assert!(rows.iter().skip(1).all(|row| row.weight == 0.25));
        assert_eq!(at(&table, 0).score, 0.5);
        let matrix = at(&table, 0).matrix.as_ref().unwrap();
        assert_eq!((matrix.rows(), matrix.cols()), (3, 3));
    }

    #[test]
    fn a_type_mismatch_and_a_null_are_marked() {
        let mut object = Node::new(NodeType::Object);
        object.null_score = 0.5;
        let plan = plan(object);
        let mismatch = table(&plan, &Json::object(vec![]), &Json::Array(vec![]));
        let root = at(&mismatch, 0);
        assert_eq!(
            (root.kind, root.status),
            (NodeKind::Map, Status::TypeMismatch)
        );
        let null = table(&plan, &Json::object(vec![]), &Json::Null);
        let root = at(&null, 0);
        let found = (root.kind, root.status, root.score);
        assert_eq!(found, (NodeKind::Null, Status::NullMismatch, 0.5));
    }

    #[test]
    fn ids_and_references_keep_their_scope_and_a_mapped_reference_is_marked() {
        // records [{id (idScope p), boss (ref p)}] under the bijection 1 -> 7
        let mut builder = PlanBuilder::default();
        let [root, record, id, boss, any, any_object, any_array] =
            [(); 7].map(|()| builder.reserve());
        let records = Scope {
            name: "p".into(),
            records: root,
        };
        builder.declare_scopes(vec![records]).unwrap();
        let scope = builder.scope_id("p");
        let mut array = Node::new(NodeType::Array);
        array.array.items = Some(record);
        let mut object = Node::new(NodeType::Object);
        object.object.properties = vec![("boss".into(), boss), ("id".into(), id)];
        let (mut key, mut reference) = (Node::new(NodeType::Integer), Node::new(NodeType::Integer));
        key.id_scope = scope;
        reference.reference = scope;
        let nodes = [
            (root, array),
            (record, object),
            (id, key),
            (boss, reference),
            (any, Node::new(NodeType::Any)),
            (any_object, Node::new(NodeType::Object)),
            (any_array, Node::new(NodeType::Array)),
        ];
        for (slot, node) in nodes {
            builder.set(slot, node).unwrap();
        }
        let plan = builder.finish(root, any, any_object, any_array).unwrap();
        let scope = scope.unwrap();
        let key_of = |n| IdKey::of(&Json::int(n)).unwrap().unwrap();
        let mut state = RefState::default();
        state
            .scope_mut(scope)
            .bijection
            .insert(key_of(1), Some(key_of(7)));
        state.scope_mut(scope).candidate_ids.insert(key_of(7));
        let gold = Json::Array(vec![Json::object(vec![
            ("id".into(), Json::int(1)),
            ("boss".into(), Json::int(1)),
        ])]);
        let candidate = Json::Array(vec![Json::object(vec![("id".into(), Json::int(7))])]);
        let limits = Limits {
            max_depth: 10,
            max_matrix_cells: 100,
        };
        let table = Scorer::new(&plan, limits, &mut MapCache::default())
            .with_state(&state)
            .table(&gold, &candidate)
            .unwrap();
        // root, record, then the matched slot (id) before the missing one (boss: still
        // a reference: an unmatched value takes its node's kind)
        let found: Vec<_> = table
            .rows()
            .iter()
            .map(|row| (row.kind, row.status, row.scope))
            .collect();
        assert_eq!(
            found,
            [
                (NodeKind::Sequence, Status::Matched, None),
                (NodeKind::Map, Status::Matched, None),
                (NodeKind::Id, Status::Matched, Some(scope)),
                (NodeKind::Ref, Status::Missing, None),
            ]
        );
        let candidate = Json::Array(vec![Json::object(vec![
            ("id".into(), Json::int(7)),
            ("boss".into(), Json::int(7)),
        ])]);
        let table = Scorer::new(&plan, limits, &mut MapCache::default())
            .with_state(&state)
            .table(&gold, &candidate)
            .unwrap();
        let boss = at(&table, 2);
        assert_eq!(
            (boss.kind, boss.scope, boss.expected),
            (NodeKind::Ref, Some(scope), true)
        );
        assert!(at(&table, 3).image); // the candidate's id 7 is the image of 1
        assert_eq!(at(&table, 0).score, 1.0);
        // everything agrees: the root alone is left
        assert_eq!(table.compact().rows().len(), 1);
        // an id that is not the image disagrees
        let candidate = Json::Array(vec![Json::object(vec![
            ("id".into(), Json::int(8)),
            ("boss".into(), Json::int(7)),
        ])]);
        let table = Scorer::new(&plan, limits, &mut MapCache::default())
            .with_state(&state)
            .table(&gold, &candidate)
            .unwrap();
        let kinds: Vec<_> = table.compact().rows().iter().map(|row| row.kind).collect();
        assert_eq!(kinds, [NodeKind::Sequence, NodeKind::Map, NodeKind::Id]);
    }

    #[test]
    fn compact_leaves_out_the_subtrees_that_agree() {
        // {"a": 1, "b": [1, 2], "c": [5]} against {"a": 1, "b": [1, 3], "c": [5]}
        let plan = plan(Node::new(NodeType::Any));
        let object = |b: i64| {
            Json::object(vec![
                ("a".into(), Json::int(1)),
                ("b".into(), Json::Array(vec![Json::int(1), Json::int(b)])),
                ("c".into(), Json::Array(vec![Json::int(5)])),
            ])
        };
        let full = table(&plan, &object(2), &object(3));
        let compact = full.compact();
        let pointers: Vec<_> = compact
            .rows()
            .iter()
            .map(|row| row.gold_pointer.map(|pointer| compact.text(pointer)))
            .collect();
        let changed: Vec<_> = full
            .rows()
            .iter()
            .filter(|row| row.score < 1.0)
            .map(|row| row.gold_pointer.map(|pointer| full.text(pointer)))
            .collect();
        // the root, the list that differs and its differing item(s); not "a", "c",
        // "/b/0" or "/c/0"
        assert_eq!(pointers.first(), Some(&Some("")));
        assert!(pointers.contains(&Some("/b")));
        assert!(!pointers.contains(&Some("/a")) && !pointers.contains(&Some("/c")));
        assert!(!pointers.contains(&Some("/b/0")) && !pointers.contains(&Some("/c/0")));
        assert!(changed.iter().all(|pointer| pointers.contains(pointer)));
        // parents renumbered among the kept rows; `children` as in the whole table
        for row in compact.rows().iter().skip(1) {
            let parent = row.parent.and_then(|parent| compact.rows().get(parent));
            assert!(parent.is_some_and(|parent| parent.children));
        }
        assert!(compact.rows().iter().skip(2).all(|row| !row.children));
        // a document that agrees everywhere leaves its root
        let same = table(&plan, &object(2), &object(2)).compact();
        assert_eq!(same.rows().len(), 1);
        assert!(at(&same, 0).children);
    }

    #[test]
    fn a_leaf_keeps_its_comparator_threshold_and_similarity() {
        let mut leaf = Node::new(NodeType::Any);
        leaf.threshold = 0.9;
        let plan = plan(leaf);
        let (gold, candidate) = (Json::Leaf(Value::from("ab")), Json::Leaf(Value::from("ac")));
        let leaves = table(&plan, &gold, &candidate);
        let row = at(&leaves, 0);
        assert_eq!(row.comparator.and_then(Comparator::name), Some("jaro"));
        assert_eq!(row.threshold, Some(0.9));
        assert!(row.similarity.is_some_and(|s| s > 0.0 && s < 0.9));
        assert_eq!(row.score, 0.0);
    }
}
