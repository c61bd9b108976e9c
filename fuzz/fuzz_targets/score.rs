//! The scorer and the scope resolution on drawn plans and documents (the gold shaped
//! by the plan, the candidate mostly): no panic, every score in [0, 1], the gold
//! scores 1.0 against itself, and the same bits on a second run, in every WL mode.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use oa_engine::align::WlMode;
use oa_engine_fuzz::{document, plan, score};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(drawn) = plan(&mut u) else {
        return;
    };
    let root = drawn.plan().root();
    let (Ok(gold), Ok(candidate)) = (
        document(&mut u, drawn.plan(), root, 0, false),
        document(&mut u, drawn.plan(), root, 0, true),
    ) else {
        return;
    };
    for wl in [WlMode::TieBreak, WlMode::Blend, WlMode::None] {
        let first = score(&drawn, &gold, &candidate, wl);
        if let Ok(value) = first {
            assert!((0.0..=1.0).contains(&value), "score {value} in {wl:?}");
        }
        let again = score(&drawn, &gold, &candidate, wl);
        assert_eq!(first.map(f64::to_bits), again.map(f64::to_bits), "{wl:?}");
        if let Ok(value) = score(&drawn, &gold, &gold, wl) {
            assert_eq!(value, 1.0, "score(gold, gold) in {wl:?}: {gold:?}");
        }
    }
});
