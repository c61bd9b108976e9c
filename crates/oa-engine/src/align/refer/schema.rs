//! What referential indexing reads of a schema beyond the scorer's plan: each
//! object node's properties in schema order (the plan keeps them sorted, but a
//! carrier's references are read in schema order, and that order directs its
//! edges), each scope's id field, the scope whose records each array holds, and the
//! nested scopes.

use std::collections::{BTreeMap, BTreeSet};

use super::error::ReferError;
use crate::plan::{Node, NodeId, Plan, ScopeId};

/// A plan with what referential indexing needs of its scopes.
#[derive(Clone, Debug)]
pub struct ScopeSchema {
    plan: Plan,
    declared: BTreeMap<NodeId, Vec<(String, NodeId)>>,
    id_fields: Vec<String>,
    records_of: BTreeMap<NodeId, ScopeId>,
    nested: BTreeSet<ScopeId>,
}

impl ScopeSchema {
    /// `plan` with the properties in schema order by node pointer (`order`: each
    /// object node's property names as the schema lists them; a node not listed keeps
    /// the plan's order) and each scope's id field by scope name.
    pub fn new(
        plan: Plan,
        order: &BTreeMap<String, Vec<String>>,
        id_fields: &BTreeMap<String, String>,
    ) -> Result<ScopeSchema, ReferError> {
        let reachable = reachable(&plan, &[plan.root()])?;
        let mut declared = BTreeMap::new();
        for &id in &reachable {
            let node = plan.node(id)?;
            if let Some(listed) = order.get(&node.pointer) {
                declared.insert(id, schema_order(node, listed));
            }
        }
        let mut fields = Vec::with_capacity(plan.scopes().len());
        let mut records_of = BTreeMap::new();
        for scope in plan.scopes() {
            let id = plan
                .scope_id(&scope.name)
                .ok_or_else(|| ReferError::UnknownScope(scope.name.clone()))?;
            let field = id_fields
                .get(&scope.name)
                .ok_or_else(|| ReferError::UnknownScope(scope.name.clone()))?;
            fields.push(field.clone());
            records_of.insert(scope.records, id);
        }
        let mut nested = BTreeSet::new();
        for (&records, &scope) in &records_of {
            if below_another_array(&plan, &reachable, records)? {
                nested.insert(scope);
            }
        }
        Ok(ScopeSchema {
            plan,
            declared,
            id_fields: fields,
            records_of,
            nested,
        })
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The declared properties of an object node and their nodes, in schema order.
    pub fn properties(
        &self,
        id: NodeId,
    ) -> Result<impl Iterator<Item = (&str, NodeId)> + Clone + '_, ReferError> {
        let keys = match self.declared.get(&id) {
            Some(keys) => keys,
            None => &self.plan.node(id)?.object.properties,
        };
        Ok(keys.iter().map(|(key, id)| (key.as_str(), *id)))
    }

    /// The scope whose records are the items of this array node.
    pub fn scope_of_records(&self, id: NodeId) -> Option<ScopeId> {
        self.records_of.get(&id).copied()
    }

    /// The id field of a scope's records.
    pub fn id_field(&self, scope: ScopeId) -> Result<&str, ReferError> {
        self.id_fields
            .get(scope.index())
            .map(String::as_str)
            .ok_or(ReferError::Plan(crate::plan::PlanError::UnknownScope(
                scope,
            )))
    }

    /// The scope's name.
    pub fn name(&self, scope: ScopeId) -> Result<&str, ReferError> {
        Ok(self.plan.scope(scope)?.name.as_str())
    }

    /// Whether the scope's record array sits below the items of another array (its
    /// records come in several occurrences of the array).
    pub fn is_nested(&self, scope: ScopeId) -> bool {
        self.nested.contains(&scope)
    }
}

/// The node's declared properties: those of `listed` it declares, in that order,
/// then any it declares that `listed` misses, sorted.
fn schema_order(node: &Node, listed: &[String]) -> Vec<(String, NodeId)> {
    let declared = |key: &str| {
        node.object
            .properties
            .binary_search_by(|(name, _)| name.as_str().cmp(key))
            .ok()
            .and_then(|found| node.object.properties.get(found))
    };
    let mut keys: Vec<(String, NodeId)> = Vec::with_capacity(node.object.properties.len());
    let has = |keys: &[(String, NodeId)], key: &str| keys.iter().any(|(name, _)| name == key);
    for key in listed {
        if let Some(&(_, id)) = declared(key) {
            if !has(&keys, key) {
                keys.push((key.clone(), id));
            }
        }
    }
    for (key, id) in &node.object.properties {
        if !has(&keys, key) {
            keys.push((key.clone(), *id));
        }
    }
    keys
}

/// Every node reachable from `starts` (each once).
fn reachable(plan: &Plan, starts: &[NodeId]) -> Result<BTreeSet<NodeId>, ReferError> {
    let mut seen: BTreeSet<NodeId> = BTreeSet::new();
    let mut stack: Vec<NodeId> = starts.to_vec();
    while let Some(id) = stack.pop() {
        if seen.insert(id) {
            stack.extend(plan.node(id)?.children());
        }
    }
    Ok(seen)
}

/// Whether `records` is reached through the items (or
/// prefix items) of an array node other than itself.
fn below_another_array(
    plan: &Plan,
    nodes: &BTreeSet<NodeId>,
    records: NodeId,
) -> Result<bool, ReferError> {
    let mut inner = Vec::new();
    for &id in nodes {
        if id == records {
            continue;
        }
        let node = plan.node(id)?;
        inner.extend(node.array.prefix.iter().map(|(child, _)| *child));
        inner.extend(node.array.items);
    }
    Ok(reachable(plan, &inner)?.contains(&records))
}
