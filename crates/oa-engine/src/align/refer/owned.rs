//! `OwnedIndex`: a document kept together with its [`DocumentIndex`], which borrows
//! it (a prepared gold is indexed once and scored against many candidates).

use std::sync::Arc;

use super::error::ReferError;
use super::index::{index_document, DocumentIndex};
use super::schema::ScopeSchema;
use crate::value::Json;

/// A document and its index, made once and never changed.
///
/// ```
/// use std::collections::BTreeMap;
/// use oa_engine::align::refer::{OwnedIndex, ScopeSchema};
/// use oa_engine::plan::{Node, NodeType, PlanBuilder, Scope};
/// use oa_engine::value::Json;
/// use oa_engine::compare::Value;
/// let mut builder = PlanBuilder::default();
/// let [root, record, id, any, object, array] = [(); 6].map(|()| builder.reserve());
/// builder.declare_scopes(vec![Scope { name: "p".into(), records: root }]).unwrap();
/// let mut list = Node::new(NodeType::Array);
/// list.array.items = Some(record);
/// let mut item = Node::new(NodeType::Object);
/// item.object.properties = vec![("id".into(), id)];
/// let mut field = Node::new(NodeType::String);
/// field.id_scope = builder.scope_id("p");
/// for (slot, node) in [(root, list), (record, item), (id, field),
///                      (any, Node::new(NodeType::Any)), (object, Node::new(NodeType::Object)),
///                      (array, Node::new(NodeType::Array))] {
///     builder.set(slot, node).unwrap();
/// }
/// let plan = builder.finish(root, any, object, array).unwrap();
/// let schema = ScopeSchema::new(plan, &BTreeMap::new(),
///                               &BTreeMap::from([("p".into(), "id".into())])).unwrap();
/// let doc = Json::Array(vec![Json::object(vec![("id".into(), Json::Leaf(Value::from("a")))])]);
/// let owned = OwnedIndex::new(doc, &schema, 64).unwrap();
/// let Json::Array(items) = owned.document() else { unreachable!() };
/// assert!(std::ptr::eq(owned.index().records[0][0].value, &items[0]));
/// ```
pub struct OwnedIndex {
    /// Borrows `document`: declared first, so dropped before it.
    index: DocumentIndex<'static>,
    document: Arc<Json>,
}

impl OwnedIndex {
    /// `document` indexed under `schema` (nested at most `max_depth` containers deep).
    pub fn new(
        document: Json,
        schema: &ScopeSchema,
        max_depth: usize,
    ) -> Result<OwnedIndex, ReferError> {
        let document = Arc::new(document);
        // SAFETY: the reference points into the Arc's allocation, which neither moves
        // (moving `OwnedIndex` moves only the Arc's pointer; an Arc, unlike a Box,
        // asserts no uniqueness when moved) nor changes (the Arc is private and never
        // cloned out or mutated: a `Json` has no interior mutability) nor is freed
        // while `index` lives (fields drop in declaration order: `index` first).
        // `index()` lends the index only for the borrow of `self` (it is covariant in
        // its lifetime), so no `'static` reference escapes.
        #[allow(unsafe_code)]
        let borrowed: &'static Json = unsafe { &*Arc::as_ptr(&document) };
        let index = index_document(borrowed, schema, max_depth)?;
        Ok(OwnedIndex { index, document })
    }

    /// The document.
    pub fn document(&self) -> &Json {
        &self.document
    }

    /// Its index, borrowing it for as long as `self` is borrowed.
    pub fn index(&self) -> &DocumentIndex<'_> {
        &self.index
    }
}
