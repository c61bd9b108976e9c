//! One compiled schema node: its type, leaf rule, object rule and array rule
//! (the fields of `SchemaNode` the scorer reads).

use super::{NodeId, ScopeId};
use crate::compare::{Comparator, Kind, StringMeasure};

/// The node's JSON Schema type; `Any` compares values by their kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeType {
    Object,
    Array,
    String,
    Number,
    Integer,
    Boolean,
    Null,
    Any,
}

impl NodeType {
    /// The type of this schema name (`SchemaNode.type`).
    pub fn from_name(name: &str) -> Option<NodeType> {
        Some(match name {
            "object" => NodeType::Object,
            "array" => NodeType::Array,
            "string" => NodeType::String,
            "number" => NodeType::Number,
            "integer" => NodeType::Integer,
            "boolean" => NodeType::Boolean,
            "null" => NodeType::Null,
            "any" => NodeType::Any,
            _ => return None,
        })
    }
}

/// A list's `order`: assignment (`align`) or the monotone DP (`fixed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Align,
    Fixed,
}

/// How objects under the node are compared (paper, Eq. dict).
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectRule {
    /// Declared properties, sorted by key (looked up by binary search).
    pub properties: Vec<(String, NodeId)>,
    /// `valueWeight`s, sorted by key; an undeclared key weighs 1.
    pub weights: Vec<(String, f64)>,
    pub additional: Option<NodeId>,
    pub key_score: Comparator,
    pub key_threshold: f64,
    pub key_importance: f64,
    pub value_importance: f64,
}

/// How arrays under the node are compared (lists and prefixItems tuples).
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayRule {
    pub items: Option<NodeId>,
    /// `prefixItems` with their weights.
    pub prefix: Vec<(NodeId, f64)>,
    pub prefix_importance: f64,
    pub rest_importance: f64,
    pub order: Order,
    pub ignore_missing: bool,
    pub ignore_excess: bool,
    /// `blockBy`: properties whose equal values an unordered list's items must share
    /// to be paired (empty: every pair is compared).
    pub block_by: Vec<String>,
}

/// A compiled node (defaults as `SchemaNode`'s).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The `SchemaNode`'s JSON Pointer in the schema (its identity in Python).
    pub pointer: String,
    pub ty: NodeType,
    /// The type was read from `properties`/`items`, not declared.
    pub inferred: bool,
    pub null_score: f64,
    /// The leaf comparator the schema names (`score`), if any.
    pub comparator: Option<Comparator>,
    pub threshold: f64,
    pub object: ObjectRule,
    pub array: ArrayRule,
    /// `idScope`: the field is its record's identifier in this scope.
    pub id_scope: Option<ScopeId>,
    /// `ref`: the field names a record of this scope by its identifier.
    pub reference: Option<ScopeId>,
    /// The schema declares an `enum` here.
    pub enumerated: bool,
}

impl Node {
    /// A node of this type with `SchemaNode`'s defaults.
    pub fn new(ty: NodeType) -> Node {
        Node {
            pointer: String::new(),
            ty,
            inferred: false,
            null_score: 0.0,
            comparator: None,
            threshold: 0.0,
            object: ObjectRule {
                properties: Vec::new(),
                weights: Vec::new(),
                additional: None,
                key_score: Comparator::String(StringMeasure::Jaro),
                key_threshold: 0.0,
                key_importance: 0.0,
                value_importance: 1.0,
            },
            array: ArrayRule {
                items: None,
                prefix: Vec::new(),
                prefix_importance: 1.0,
                rest_importance: 1.0,
                order: Order::Fixed,
                ignore_missing: false,
                ignore_excess: false,
                block_by: Vec::new(),
            },
            id_scope: None,
            reference: None,
            enumerated: false,
        }
    }

    /// Every node id this node names.
    pub fn children(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.object
            .properties
            .iter()
            .map(|(_, id)| *id)
            .chain(self.object.additional)
            .chain(self.array.items)
            .chain(self.array.prefix.iter().map(|(id, _)| *id))
    }

    /// The node of a property: declared, `additionalProperties`, else `any`
    /// (`SchemaNode.property_schema`).
    pub fn property(&self, key: &str, any: NodeId) -> NodeId {
        match self
            .object
            .properties
            .binary_search_by(|(name, _)| name.as_str().cmp(key))
        {
            Ok(found) => self.object.properties.get(found).map_or(any, |(_, id)| *id),
            Err(_) => self.object.additional.unwrap_or(any),
        }
    }

    /// A property's `valueWeight` (1 when undeclared).
    pub fn weight(&self, key: &str) -> f64 {
        self.object
            .weights
            .binary_search_by(|(name, _)| name.as_str().cmp(key))
            .ok()
            .and_then(|found| self.object.weights.get(found))
            .map_or(1.0, |(_, weight)| *weight)
    }

    /// The node of the element at `index` (`SchemaNode.item_schema`).
    pub fn item(&self, index: usize, any: NodeId) -> NodeId {
        match self.array.prefix.get(index) {
            Some((id, _)) => *id,
            None => self.array.items.unwrap_or(any),
        }
    }

    /// The comparator of a leaf for values of `kind`: the schema's
    /// own where it compares that kind, none for a typed node whose comparator does
    /// not (a type mismatch), else the kind's default.
    pub fn comparator_for(&self, kind: Kind) -> Option<Comparator> {
        if let Some(comparator) = self.comparator {
            if comparator.compares(kind) {
                return Some(comparator);
            }
            if self.ty != NodeType::Any {
                return None;
            }
        }
        Some(Comparator::default_for(kind))
    }
}
