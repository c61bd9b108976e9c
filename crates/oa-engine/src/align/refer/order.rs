//! `resolution_order`: the scopes in dependency order, in groups. Scope A depends on
//! B when a reference to B lies in A's records; the scopes of a reference cycle (or
//! a scope referencing itself) form one group, aligned together, with a warning.
//! Groups come dependencies first; among the groups ready at a step, the one with
//! the smallest scope name (networkx's lexicographical topological sort of the
//! condensation: kept so that the order, and every pairing that depends on it, do
//! not change).

use std::collections::{BTreeMap, BTreeSet};

use super::error::ReferError;
use crate::pointer::join;

/// The `reference-cycle` warning of one cycle: where it points (the `idScope` of its
/// smallest scope) and what it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeWarning {
    pub code: &'static str,
    pub pointer: String,
    pub message: String,
}

/// The resolution groups, the scopes in cycles, and a warning per cycle (ordered by
/// their smallest scope name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Groups {
    pub groups: Vec<Vec<String>>,
    pub cyclic: BTreeSet<String>,
    pub warnings: Vec<ScopeWarning>,
}

/// The resolution groups from each scope's dependencies and the pointer of each scope's
/// id node.
///
/// ```
/// use std::collections::{BTreeMap, BTreeSet};
/// use oa_engine::align::refer::resolution_groups;
/// let deps = BTreeMap::from([
///     ("a".to_string(), BTreeSet::from(["b".to_string()])),
///     ("b".to_string(), BTreeSet::new()),
///     ("c".to_string(), BTreeSet::from(["c".to_string()])),
/// ]);
/// let ids = deps.keys().map(|k| (k.clone(), format!("/{k}"))).collect();
/// let found = resolution_groups(&deps, &ids).unwrap();
/// assert_eq!(found.groups, [vec!["b"], vec!["a"], vec!["c"]]);
/// assert_eq!(found.warnings[0].pointer, "/c/idScope");
/// ```
pub fn resolution_groups(
    dependencies: &BTreeMap<String, BTreeSet<String>>,
    id_pointers: &BTreeMap<String, String>,
) -> Result<Groups, ReferError> {
    // every scope, and every target (a graph adds the nodes its edges name)
    let names: Vec<&String> = dependencies
        .keys()
        .chain(dependencies.values().flatten())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let position = |name: &String| names.binary_search(&name).ok();
    let mut out: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); names.len()];
    for (scope, targets) in dependencies {
        if let Some(from) = position(scope) {
            for target in targets {
                if let (Some(set), Some(to)) = (out.get_mut(from), position(target)) {
                    set.insert(to);
                }
            }
        }
    }
    let component = components(&out);
    let count = component.iter().max().map_or(0, |c| c + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (node, &c) in component.iter().enumerate() {
        if let Some(list) = members.get_mut(c) {
            list.push(node); // in name order: the first is the smallest name
        }
    }
    let name = |node: usize| names.get(node).map(|n| n.as_str()).unwrap_or_default();
    let mut cyclic = BTreeSet::new();
    let mut warnings = Vec::new();
    // components by their smallest name: `members` lists each in name order
    let mut by_first: Vec<usize> = (0..count).collect();
    by_first.sort_by_key(|&c| members.get(c).and_then(|m| m.first()).copied());
    for &c in &by_first {
        let nodes = members.get(c).map_or(&[][..], Vec::as_slice);
        let looped = nodes
            .iter()
            .any(|&n| out.get(n).is_some_and(|set| set.contains(&n)));
        if nodes.len() > 1 || looped {
            let listed: Vec<&str> = nodes.iter().map(|&n| name(n)).collect();
            cyclic.extend(listed.iter().map(|n| (*n).to_owned()));
            let first = listed.first().copied().unwrap_or_default();
            let id_pointer = id_pointers
                .get(first)
                .ok_or_else(|| ReferError::UnknownScope(first.to_owned()))?;
            warnings.push(ScopeWarning {
                code: "reference-cycle",
                pointer: join(id_pointer, "idScope"),
                message: format!(
                    "scopes {{{}}} reference each other (or themselves): their records are \
                     aligned by properties only (their references count as matching while \
                     the pairing is derived); WL structure still breaks ties",
                    listed.join(", ")
                ),
            });
        }
    }
    // Kahn's algorithm on the condensation, dependencies first, the ready component
    // with the smallest name next
    let mut waiting: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); count]; // its dependencies
    let mut dependents: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); count];
    for (from, targets) in out.iter().enumerate() {
        for &to in targets {
            let (Some(&a), Some(&b)) = (component.get(from), component.get(to)) else {
                continue;
            };
            if a != b {
                if let Some(set) = waiting.get_mut(a) {
                    set.insert(b);
                }
                if let Some(set) = dependents.get_mut(b) {
                    set.insert(a);
                }
            }
        }
    }
    let first = |c: usize| members.get(c).and_then(|m| m.first()).copied().unwrap_or(0);
    let mut ready: BTreeSet<(usize, usize)> = (0..count)
        .filter(|&c| waiting.get(c).is_some_and(BTreeSet::is_empty))
        .map(|c| (first(c), c))
        .collect();
    let mut groups = Vec::with_capacity(count);
    while let Some((_, c)) = ready.pop_first() {
        groups.push(
            members
                .get(c)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|&n| name(n).to_owned())
                .collect(),
        );
        for &d in dependents.get(c).into_iter().flatten() {
            if let Some(set) = waiting.get_mut(d) {
                set.remove(&c);
                if set.is_empty() {
                    ready.insert((first(d), d));
                }
            }
        }
    }
    Ok(Groups {
        groups,
        cyclic,
        warnings,
    })
}

/// The strongly connected component of each node (Kosaraju's two passes, without
/// recursion: a schema's scopes never overflow the stack).
fn components(out: &[BTreeSet<usize>]) -> Vec<usize> {
    let n = out.len();
    let mut finished = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for start in 0..n {
        if seen.get(start).copied().unwrap_or(true) {
            continue;
        }
        if let Some(flag) = seen.get_mut(start) {
            *flag = true;
        }
        let mut stack: Vec<(usize, Vec<usize>)> = vec![(
            start,
            out.get(start).into_iter().flatten().copied().collect(),
        )];
        while let Some((node, pending)) = stack.last_mut() {
            if let Some(next) = pending.pop() {
                if let Some(flag) = seen.get_mut(next) {
                    if !*flag {
                        *flag = true;
                        let edges = out.get(next).into_iter().flatten().copied().collect();
                        stack.push((next, edges));
                    }
                }
            } else {
                finished.push(*node);
                stack.pop();
            }
        }
    }
    let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (from, targets) in out.iter().enumerate() {
        for &to in targets {
            if let Some(list) = incoming.get_mut(to) {
                list.push(from);
            }
        }
    }
    let mut component = vec![usize::MAX; n];
    let mut count = 0;
    for &start in finished.iter().rev() {
        if component.get(start) != Some(&usize::MAX) {
            continue;
        }
        let mut stack = vec![start];
        if let Some(slot) = component.get_mut(start) {
            *slot = count;
        }
        while let Some(node) = stack.pop() {
            for &prev in incoming.get(node).into_iter().flatten() {
                if let Some(slot) = component.get_mut(prev) {
                    if *slot == usize::MAX {
                        *slot = count;
                        stack.push(prev);
                    }
                }
            }
        }
        count += 1;
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deps(pairs: &[(&str, &[&str])]) -> BTreeMap<String, BTreeSet<String>> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.iter().map(|s| (*s).to_owned()).collect()))
            .collect()
    }

    fn ids(d: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, String> {
        d.keys().map(|k| (k.clone(), format!("/{k}"))).collect()
    }

    #[test]
    fn a_cycle_is_one_group_after_what_it_depends_on() {
        let d = deps(&[("x", &["y", "z"]), ("y", &["x"]), ("z", &[]), ("a", &["x"])]);
        let found = resolution_groups(&d, &ids(&d)).unwrap();
        assert_eq!(found.groups, [vec!["z"], vec!["x", "y"], vec!["a"]]);
        assert_eq!(found.cyclic, BTreeSet::from(["x".into(), "y".into()]));
        let [warning] = found.warnings.as_slice() else {
            panic!("one warning expected: {:?}", found.warnings);
        };
        assert!(warning.message.starts_with("scopes {x, y} reference"));
        assert_eq!(warning.pointer, "/x/idScope");
    }

    #[test]
    fn ties_go_by_the_smallest_name() {
        let d = deps(&[("b", &[]), ("a", &[]), ("c", &["b"])]);
        let found = resolution_groups(&d, &ids(&d)).unwrap();
        assert_eq!(found.groups, [vec!["a"], vec!["b"], vec!["c"]]);
        assert!(found.warnings.is_empty());
    }

    #[test]
    fn a_long_chain_needs_no_recursion() {
        let names: Vec<String> = (0..20_000).map(|k| format!("s{k:05}")).collect();
        let d: BTreeMap<String, BTreeSet<String>> = names
            .iter()
            .enumerate()
            .map(|(k, n)| (n.clone(), names.get(k + 1).cloned().into_iter().collect()))
            .collect();
        let found = resolution_groups(&d, &ids(&d)).unwrap();
        assert_eq!(found.groups.len(), 20_000);
        assert_eq!(
            found.groups.first().map(Vec::as_slice),
            Some(&["s19999".to_owned()][..])
        );
    }
}
