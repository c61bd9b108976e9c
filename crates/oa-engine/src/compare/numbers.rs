//! The number comparators: `invdiff` = 1/(1+|g-p|) and `relative` =
//! 1 - min(1, |g-p|/max(|g|,|p|)) (1 when both are 0), and numeric equality.
//!
//! The bits follow `oa_core/comparators.py`: both values are first converted to floats
//! (an integer beyond the float range is refused, as Python's `float(int)` refuses it);
//! |g-p| of two integers is exact before one rounding (infinite beyond the largest
//! float); otherwise it is the float difference. NaN propagates through both formulas
//! as numpy's `maximum`/`minimum` propagate it.

use std::cmp::Ordering;

use super::integer::Integer;
use super::CompareError;

/// A JSON number: an integer of any size or a float (NaN and infinities included).
#[derive(Clone, Debug, PartialEq)]
pub enum Number {
    Int(Integer),
    Float(f64),
}

/// A number comparator's formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NumberMeasure {
    InvDiff,
    Relative,
}

impl Number {
    /// The value as a float, or `IntegerTooLarge` beyond the float range.
    pub fn to_f64(&self) -> Result<f64, CompareError> {
        match self {
            Number::Int(integer) => integer.to_f64().ok_or(CompareError::IntegerTooLarge),
            Number::Float(value) => Ok(*value),
        }
    }

    /// Exact numeric equality (1 equals 1.0; NaN equals nothing), as Python's `==`.
    pub fn equals(&self, other: &Number) -> bool {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a == b,
            (Number::Int(a), Number::Float(b)) | (Number::Float(b), Number::Int(a)) => {
                a.equals_f64(*b)
            }
            (Number::Float(a), Number::Float(b)) => a == b,
        }
    }

    /// Exact numeric order (1 equals 1.0), as Python's `<`; `None` with a NaN.
    pub fn order(&self, other: &Number) -> Option<Ordering> {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => Some(a.cmp(b)),
            (Number::Int(a), Number::Float(b)) => a.cmp_f64(*b),
            (Number::Float(a), Number::Int(b)) => b.cmp_f64(*a).map(Ordering::reverse),
            (Number::Float(a), Number::Float(b)) => a.partial_cmp(b),
        }
    }
}

impl NumberMeasure {
    pub fn similarity(self, gold: &Number, candidate: &Number) -> Result<f64, CompareError> {
        let (g, p) = (gold.to_f64()?, candidate.to_f64()?);
        let difference = match (gold, candidate) {
            (Number::Int(a), Number::Int(b)) => a.abs_diff_f64(b),
            _ => (g - p).abs(),
        };
        Ok(match self {
            NumberMeasure::InvDiff => 1.0 / (1.0 + difference),
            NumberMeasure::Relative => {
                let scale = nan_max(g.abs(), p.abs());
                let ratio = if scale == 0.0 {
                    0.0
                } else {
                    difference / scale
                };
                1.0 - nan_min(1.0, ratio)
            }
        })
    }
}

// numpy's maximum and minimum: NaN when either operand is (f64::max/min drop it).
fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(value: i64) -> Number {
        Number::Int(Integer::Small(value))
    }

    fn wide(bytes: &[u8]) -> Number {
        Number::Int(Integer::from_le_bytes_signed(bytes))
    }

    #[test]
    fn invdiff_matches_the_docstring() {
        let measure = NumberMeasure::InvDiff;
        assert_eq!(measure.similarity(&int(2025), &int(2026)), Ok(0.5));
        let mut big = [0u8; 9];
        big[7] = 0x10; // 2**60
        let two_60 = wide(&big);
        big[0] = 1; // 2**60 + 1
        assert_eq!(measure.similarity(&two_60, &wide(&big)), Ok(0.5));
        assert_eq!(
            measure.similarity(&int(1), &Number::Float(1.5)),
            Ok(1.0 / 1.5)
        );
        assert_eq!(
            measure.similarity(&int(0), &Number::Float(f64::INFINITY)),
            Ok(0.0)
        );
    }

    #[test]
    fn relative_is_one_on_zeros_and_nan_propagates() {
        let measure = NumberMeasure::Relative;
        assert_eq!(measure.similarity(&int(0), &Number::Float(-0.0)), Ok(1.0));
        assert_eq!(measure.similarity(&int(10), &int(5)), Ok(0.5));
        assert_eq!(measure.similarity(&int(10), &int(-10)), Ok(0.0));
        for nan_pair in [
            (f64::NAN, 1.0),
            (f64::INFINITY, 1.0),
            (f64::INFINITY, f64::INFINITY),
        ] {
            let (g, p) = (Number::Float(nan_pair.0), Number::Float(nan_pair.1));
            assert!(measure.similarity(&g, &p).is_ok_and(f64::is_nan));
        }
    }

    #[test]
    fn integers_beyond_the_float_range_are_refused() {
        let mut huge = [0u8; 129];
        huge[128] = 0x01; // 2**1024
        for measure in [NumberMeasure::InvDiff, NumberMeasure::Relative] {
            assert_eq!(
                measure.similarity(&wide(&huge), &int(0)),
                Err(CompareError::IntegerTooLarge)
            );
            assert_eq!(
                measure.similarity(&int(0), &wide(&huge)),
                Err(CompareError::IntegerTooLarge)
            );
        }
    }

    #[test]
    fn equality_crosses_int_and_float_exactly() {
        assert!(int(1).equals(&Number::Float(1.0)));
        assert!(!Number::Float(f64::NAN).equals(&Number::Float(f64::NAN)));
        let mut bytes = [0u8; 8];
        bytes[6] = 0x20;
        bytes[0] = 1; // 2**53 + 1: no float equals it
        assert!(!wide(&bytes).equals(&Number::Float(9_007_199_254_740_992.0)));
    }
}
