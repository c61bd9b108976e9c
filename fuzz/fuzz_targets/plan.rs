//! Plans built from drawn schema-shaped nodes (up to two scopes, one maybe nested;
//! references anywhere, cycles included): building, the scopes' schema, the
//! resolution order and indexing arbitrary documents never panic, and a plan's
//! reachability marks the root's descendants.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use oa_engine::align::refer::index_document;
use oa_engine_fuzz::{json, plan, LIMITS, MAX_DEPTH};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(drawn) = plan(&mut u) else {
        return;
    };
    let plan = drawn.plan();
    let reached = plan.reaching([plan.root()]);
    assert_eq!(reached.len(), plan.len());
    assert_eq!(reached.get(plan.root().index()), Some(&true));
    for scope in plan.scopes() {
        assert!(plan.node(scope.records).is_ok());
    }
    for _ in 0..2 {
        let Ok(document) = json(&mut u, MAX_DEPTH + 2) else {
            return;
        };
        // a refusal is an error value, never a panic
        if let Ok(index) = index_document(&document, &drawn.schema, LIMITS.max_depth) {
            for scope in plan.scopes() {
                if let Some(id) = plan.scope_id(&scope.name) {
                    let records = index.scope_records(id);
                    assert!(index.named_records(id).iter().all(|&k| k < records.len()));
                }
            }
        }
    }
});
