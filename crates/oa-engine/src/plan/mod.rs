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

/// A node's place in its [`Plan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(usize);

/// Why a plan could not be built (a builder misuse, reported instead of a panic).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// An id was reserved but no node was set for it.
    Unset(NodeId),
    /// An id that this builder did not hand out.
    Unknown(NodeId),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Unset(id) => write!(f, "plan node {} was reserved but never set", id.0),
            PlanError::Unknown(id) => write!(f, "plan node {} does not exist", id.0),
        }
    }
}

impl std::error::Error for PlanError {}

/// The compiled schema: its nodes, the root, and the three implicit nodes a value
/// may be compared under (`ANY`, `ANY_OBJECT`, `ANY_ARRAY` of `oa_core/schema.py`).
#[derive(Clone, Debug)]
pub struct Plan {
    nodes: Vec<Node>,
    root: NodeId,
    any: NodeId,
    any_object: NodeId,
    any_array: NodeId,
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

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
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
}

impl PlanBuilder {
    pub fn reserve(&mut self) -> NodeId {
        self.nodes.push(None);
        NodeId(self.nodes.len() - 1)
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
        for node in &nodes {
            for child in node.children() {
                known(child)?;
            }
        }
        Ok(Plan {
            nodes,
            root,
            any,
            any_object,
            any_array,
        })
    }
}
