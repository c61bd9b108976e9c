//! The schema compiled once into a plan (paper III.A): flat, typed nodes in an arena.
//!
//! Python parses and validates a schema (`oa_core/schema.py`); the plan keeps what
//! the scorer reads of each node, with children as [`NodeId`]s into one vector
//! (a `$ref` cycle is a cycle of ids, never a recursive type). Every id a node holds
//! was handed out by the [`PlanBuilder`] that made it, and [`PlanBuilder::finish`]
//! checks each one was filled in, so [`Plan::node`] cannot miss; it still returns a
//! `Result` rather than index unchecked.

mod node;

pub use node::{ArrayRule, Node, NodeType, ObjectRule, Order};

use std::fmt;
use std::sync::Arc;

use crate::compare::{External, ExternalId, Externals};

/// A node's place in its [`Plan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(usize);

impl NodeId {
    /// The node's index among the plan's nodes (`0..plan.len()`).
    pub fn index(self) -> usize {
        self.0
    }
}

/// A scope's place among its [`Plan`]'s scopes (sorted by name).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScopeId(usize);

impl ScopeId {
    /// The scope's rank among the plan's scope names.
    pub fn index(self) -> usize {
        self.0
    }
}

/// An identifier scope: its name and the array node whose items are its records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    pub name: String,
    pub records: NodeId,
}

/// Why a plan could not be built (a builder misuse, reported instead of a panic).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// An id was reserved but no node was set for it.
    Unset(NodeId),
    /// An id that this builder did not hand out.
    Unknown(NodeId),
    /// A scope id that names no declared scope.
    UnknownScope(ScopeId),
    /// Two scopes of one name.
    DuplicateScope(String),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Unset(id) => write!(f, "plan node {} was reserved but never set", id.0),
            PlanError::Unknown(id) => write!(f, "plan node {} does not exist", id.0),
            PlanError::UnknownScope(id) => write!(f, "plan scope {} does not exist", id.0),
            PlanError::DuplicateScope(name) => write!(f, "scope {name:?} is declared twice"),
        }
    }
}

impl std::error::Error for PlanError {}

/// The compiled schema: its nodes, the root, the three implicit nodes a value
/// may be compared under (`ANY`, `ANY_OBJECT`, `ANY_ARRAY` of `oa_core/schema.py`)
/// and its identifier scopes, sorted by name.
#[derive(Clone, Debug)]
pub struct Plan {
    nodes: Vec<Node>,
    scopes: Vec<Scope>,
    root: NodeId,
    any: NodeId,
    any_object: NodeId,
    any_array: NodeId,
    externals: Externals,
}

impl Plan {
    pub fn node(&self, id: NodeId) -> Result<&Node, PlanError> {
        self.nodes.get(id.0).ok_or(PlanError::Unknown(id))
    }

    pub fn root(&self) -> NodeId {
        self.root
    }

    /// The node of values compared by their kinds (a property or item undeclared).
    pub fn any(&self) -> NodeId {
        self.any
    }

    pub fn any_object(&self) -> NodeId {
        self.any_object
    }

    pub fn any_array(&self) -> NodeId {
        self.any_array
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// For every node (by [`NodeId::index`]), whether one of `targets` is the node
    /// or lies below it (`$ref` cycles followed to a fixed point).
    pub fn reaching(&self, targets: impl IntoIterator<Item = NodeId>) -> Vec<bool> {
        let mut marked = vec![false; self.nodes.len()];
        let mut any = false;
        for target in targets {
            if let Some(flag) = marked.get_mut(target.0) {
                *flag = true;
                any = true;
            }
        }
        // no target: nothing reaches one (a C matrix is scored without record pairs)
        let mut grown = any;
        while grown {
            grown = false;
            // children are mostly numbered after their parents: from the last node
            // up, a pass marks a whole chain of ancestors (the fixed point is the
            // same in any order)
            for (index, node) in self.nodes.iter().enumerate().rev() {
                if marked.get(index).copied().unwrap_or(true) {
                    continue;
                }
                if node
                    .children()
                    .any(|child| marked.get(child.0).copied().unwrap_or(false))
                {
                    if let Some(flag) = marked.get_mut(index) {
                        *flag = true;
                    }
                    grown = true;
                }
            }
        }
        marked
    }

    /// The scopes, sorted by name (a [`ScopeId`] is an index into them).
    pub fn scopes(&self) -> &[Scope] {
        &self.scopes
    }

    pub fn scope(&self, id: ScopeId) -> Result<&Scope, PlanError> {
        self.scopes.get(id.0).ok_or(PlanError::UnknownScope(id))
    }

    /// The scope of this name, if declared.
    pub fn scope_id(&self, name: &str) -> Option<ScopeId> {
        scope_id(&self.scopes, name)
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The external comparators its nodes name (`Comparator::External`).
    pub fn externals(&self) -> &Externals {
        &self.externals
    }
}

/// Builds a [`Plan`]: reserve an id for each node first (children may point back
/// up through `$ref`), then set every node.
///
/// ```
/// use oa_engine::plan::{Node, NodeType, PlanBuilder};
/// let mut builder = PlanBuilder::default();
/// let ids: Vec<_> = (0..4).map(|_| builder.reserve()).collect();
/// for (id, ty) in ids.iter().zip([NodeType::Any, NodeType::Any, NodeType::Object,
///                                 NodeType::Array]) {
///     builder.set(*id, Node::new(ty)).unwrap();
/// }
/// let plan = builder.finish(ids[0], ids[1], ids[2], ids[3]).unwrap();
/// assert_eq!(plan.len(), 4);
/// ```
#[derive(Debug, Default)]
pub struct PlanBuilder {
    nodes: Vec<Option<Node>>,
    scopes: Vec<Scope>,
    externals: Externals,
}

fn scope_id(scopes: &[Scope], name: &str) -> Option<ScopeId> {
    scopes
        .binary_search_by(|scope| scope.name.as_str().cmp(name))
        .ok()
        .map(ScopeId)
}

impl PlanBuilder {
    pub fn reserve(&mut self) -> NodeId {
        self.nodes.push(None);
        NodeId(self.nodes.len() - 1)
    }

    /// Declares the scopes (name, records-array node), before the nodes that name
    /// them are set; ids follow the names' order.
    pub fn declare_scopes(&mut self, mut scopes: Vec<Scope>) -> Result<(), PlanError> {
        scopes.sort_by(|a, b| a.name.cmp(&b.name));
        for pair in scopes.windows(2) {
            if let [a, b] = pair {
                if a.name == b.name {
                    return Err(PlanError::DuplicateScope(a.name.clone()));
                }
            }
        }
        self.scopes = scopes;
        Ok(())
    }

    /// The declared scope of this name.
    pub fn scope_id(&self, name: &str) -> Option<ScopeId> {
        scope_id(&self.scopes, name)
    }

    /// Adds an external comparator to the plan's table, for its nodes to name.
    pub fn external(&mut self, external: Arc<dyn External>) -> ExternalId {
        self.externals.add(external)
    }

    pub fn set(&mut self, id: NodeId, node: Node) -> Result<(), PlanError> {
        let slot = self.nodes.get_mut(id.0).ok_or(PlanError::Unknown(id))?;
        *slot = Some(node);
        Ok(())
    }

    /// The plan, once every reserved node is set and every id it names exists.
    pub fn finish(
        self,
        root: NodeId,
        any: NodeId,
        any_object: NodeId,
        any_array: NodeId,
    ) -> Result<Plan, PlanError> {
        let mut nodes = Vec::with_capacity(self.nodes.len());
        for (index, node) in self.nodes.into_iter().enumerate() {
            nodes.push(node.ok_or(PlanError::Unset(NodeId(index)))?);
        }
        let known = |id: NodeId| {
            if id.0 < nodes.len() {
                Ok(())
            } else {
                Err(PlanError::Unknown(id))
            }
        };
        for id in [root, any, any_object, any_array] {
            known(id)?;
        }
        for scope in &self.scopes {
            known(scope.records)?;
        }
        let known_scope = |id: Option<ScopeId>| match id {
            Some(id) if id.0 >= self.scopes.len() => Err(PlanError::UnknownScope(id)),
            _ => Ok(()),
        };
        for node in &nodes {
            for child in node.children() {
                known(child)?;
            }
            known_scope(node.id_scope)?;
            known_scope(node.reference)?;
        }
        Ok(Plan {
            nodes,
            scopes: self.scopes,
            root,
            any,
            any_object,
            any_array,
            externals: self.externals,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builder_with(names: &[&str]) -> (PlanBuilder, [NodeId; 4]) {
        let mut builder = PlanBuilder::default();
        let ids = [(); 4].map(|()| builder.reserve());
        let [records, ..] = ids;
        for (id, ty) in ids.iter().zip([
            NodeType::Array,
            NodeType::Any,
            NodeType::Object,
            NodeType::Array,
        ]) {
            builder.set(*id, Node::new(ty)).unwrap();
        }
        let scopes = names
            .iter()
            .map(|name| Scope {
                name: (*name).to_owned(),
                records,
            })
            .collect();
        builder.declare_scopes(scopes).unwrap();
        (builder, ids)
    }

    #[test]
    fn scopes_are_sorted_by_name_and_looked_up_by_it() {
        let (builder, [root, any, any_object, any_array]) = builder_with(&["person", "org"]);
        assert_eq!(builder.scope_id("org").map(ScopeId::index), Some(0));
        let plan = builder.finish(root, any, any_object, any_array).unwrap();
        let names: Vec<&str> = plan.scopes().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["org", "person"]);
        assert_eq!(plan.scope_id("person").map(ScopeId::index), Some(1));
        assert_eq!(plan.scope_id("nobody"), None);
    }

    #[test]
    fn a_scope_named_twice_or_unknown_is_an_error() {
        let mut builder = PlanBuilder::default();
        let id = builder.reserve();
        let twice = vec![
            Scope {
                name: "p".into(),
                records: id,
            },
            Scope {
                name: "p".into(),
                records: id,
            },
        ];
        assert_eq!(
            builder.declare_scopes(twice),
            Err(PlanError::DuplicateScope("p".into()))
        );
        let (mut builder, [root, any, any_object, any_array]) = builder_with(&["p"]);
        let mut field = Node::new(NodeType::Integer);
        field.reference = Some(ScopeId(3));
        builder.set(any, field).unwrap();
        assert_eq!(
            builder.finish(root, any, any_object, any_array).err(),
            Some(PlanError::UnknownScope(ScopeId(3)))
        );
    }
}
