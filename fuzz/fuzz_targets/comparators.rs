//! Every built-in comparator on arbitrary values: no panic, similarities in [0, 1]
//! (NaN only from a non-finite float), `exact` reflexive, and each matrix cell the
//! bits of its scalar.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use oa_engine::compare::{Comparator, Externals, Integer, Number, Value};

#[derive(Arbitrary, Debug)]
enum Input {
    // any u32, so lone surrogates and values beyond U+10FFFF too
    Text(Vec<u32>),
    // two's complement little-endian: any size, beyond the float range included
    Int(Vec<u8>),
    Small(i64),
    Float(f64),
    Boolean(bool),
}

impl Input {
    fn value(&self) -> Value {
        match self {
            Input::Text(text) => Value::Text(text.clone()),
            Input::Int(bytes) => Value::Number(Number::Int(Integer::from_le_bytes_signed(bytes))),
            Input::Small(value) => Value::Number(Number::Int(Integer::from(*value))),
            Input::Float(value) => Value::Number(Number::Float(*value)),
            Input::Boolean(flag) => Value::Boolean(*flag),
        }
    }

    fn non_finite(&self) -> bool {
        matches!(self, Input::Float(value) if !value.is_finite())
    }
}

fuzz_target!(|case: (u8, Vec<Input>, Vec<Input>)| {
    let (which, golds, candidates) = case;
    let Some(comparator) = Comparator::ALL.get(usize::from(which) % Comparator::ALL.len()) else {
        return;
    };
    let none = Externals::default(); // the built-ins only
    let gold_values: Vec<Value> = golds.iter().map(Input::value).collect();
    let candidate_values: Vec<Value> = candidates.iter().map(Input::value).collect();
    let matrix = comparator.matrix(&none, &gold_values, &candidate_values);
    if let Ok(cells) = &matrix {
        assert_eq!(cells.len(), golds.len() * candidates.len());
    }
    // an error for one value fails the whole matrix; then there are no cells to check
    let mut cells = matrix.iter().flatten();
    for (g, gold) in golds.iter().zip(&gold_values) {
        if matches!(comparator, Comparator::Exact) && !g.non_finite() {
            assert_eq!(comparator.scalar(&none, gold, gold), Ok(1.0));
        }
        for (p, candidate) in candidates.iter().zip(&candidate_values) {
            let Ok(similarity) = comparator.scalar(&none, gold, candidate) else {
                assert!(matrix.is_err());
                continue;
            };
            if g.non_finite() || p.non_finite() {
                assert!(similarity.is_nan() || (0.0..=1.0).contains(&similarity));
            } else {
                assert!((0.0..=1.0).contains(&similarity), "{similarity}");
            }
            if let Some(cell) = cells.next() {
                assert_eq!(cell.to_bits(), similarity.to_bits());
            }
        }
    }
});
