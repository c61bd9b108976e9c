//! The schema the unit tests of `index` and `graph` index documents under.

use std::collections::BTreeMap;

use super::schema::ScopeSchema;
use crate::compare::Comparator;
use crate::plan::{Node, NodeId, NodeType, Order, PlanBuilder, Scope};

/// `{people: [{id (person), boss -> person, team -> team, tag (exact), steps: [tag]
///   (fixed), aliases: [tag] (unordered)}], links: [{b -> person, a -> person}]
///   (unordered), teams: [{name (team)}], chain: [link] (fixed)}`, properties in
/// that (schema) order.
pub fn schema() -> ScopeSchema {
    let mut b = PlanBuilder::default();
    let [root, people, person, id, boss, team, tag, links, link, teams, record, name] =
        [(); 12].map(|()| b.reserve());
    let [steps, aliases, chain] = [(); 3].map(|()| b.reserve());
    let [any, any_object, any_array] = [(); 3].map(|()| b.reserve());
    b.declare_scopes(vec![
        Scope {
            name: "person".into(),
            records: people,
        },
        Scope {
            name: "team".into(),
            records: teams,
        },
    ])
    .unwrap();
    let (p, t) = (b.scope_id("person"), b.scope_id("team"));
    let object = |pointer: &str, properties: Vec<(&str, NodeId)>| {
        let mut node = Node::new(NodeType::Object);
        node.pointer = pointer.into();
        node.object.properties = properties.into_iter().map(|(k, v)| (k.into(), v)).collect();
        node.object.properties.sort();
        node
    };
    let array = |pointer: &str, items, order| {
        let mut node = Node::new(NodeType::Array);
        node.pointer = pointer.into();
        node.array.items = Some(items);
        node.array.order = order;
        node
    };
    let leaf = |pointer: &str, id_scope, reference, exact: bool| {
        let mut node = Node::new(NodeType::String);
        node.pointer = pointer.into();
        node.id_scope = id_scope;
        node.reference = reference;
        node.comparator = exact.then_some(Comparator::Exact);
        node
    };
    let nodes = [
        (
            root,
            object(
                "",
                vec![
                    ("people", people),
                    ("links", links),
                    ("teams", teams),
                    ("chain", chain),
                ],
            ),
        ),
        (steps, array("/steps", tag, Order::Fixed)),
        (aliases, array("/aliases", tag, Order::Align)),
        (chain, array("/chain", link, Order::Fixed)),
        (people, array("/people", person, Order::Align)),
        (
            person,
            object(
                "/person",
                vec![
                    ("id", id),
                    ("boss", boss),
                    ("team", team),
                    ("tag", tag),
                    ("steps", steps),
                    ("aliases", aliases),
                ],
            ),
        ),
        (id, leaf("/id", p, None, false)),
        (boss, leaf("/boss", None, p, false)),
        (team, leaf("/team", None, t, false)),
        (tag, leaf("/tag", None, None, true)),
        (links, array("/links", link, Order::Align)),
        (link, object("/link", vec![("a", boss), ("b", boss)])),
        (teams, array("/teams", record, Order::Align)),
        (record, object("/team", vec![("name", name)])),
        (name, leaf("/name", t, None, false)),
        (any, Node::new(NodeType::Any)),
        (any_object, Node::new(NodeType::Object)),
        (any_array, Node::new(NodeType::Array)),
    ];
    for (slot, node) in nodes {
        b.set(slot, node).unwrap();
    }
    let plan = b.finish(root, any, any_object, any_array).unwrap();
    let keys = |names: &[&str]| names.iter().map(|k| (*k).to_owned()).collect();
    let order = BTreeMap::from([
        ("".to_owned(), keys(&["people", "links", "teams", "chain"])),
        (
            "/person".to_owned(),
            keys(&["id", "boss", "team", "tag", "steps", "aliases"]),
        ),
        ("/link".to_owned(), keys(&["b", "a"])),
    ]);
    let ids = BTreeMap::from([
        ("person".to_owned(), "id".to_owned()),
        ("team".to_owned(), "name".to_owned()),
    ]);
    ScopeSchema::new(plan, &order, &ids).unwrap()
}
