//! Identifiers as `id_key` in `oa_core/comparators.py` keys them: strings and
//! numbers identify (1 and 1.0 are one identifier, 1 and "1" two); null, booleans,
//! objects and arrays identify nothing.
//!
//! A number is keyed by its exact value: an integral one (an integer, or a float
//! without a fraction) by sign and magnitude, any other float by its bits, so
//! equal keys are exactly Python's equal numbers and the derived order is total
//! (for ordered maps; it is not the numeric order).

use crate::compare::{Integer, Number, Value};
use crate::score::Json;

/// The key of an identifier.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IdKey {
    /// An integral number: sign, little-endian limbs without a zero top limb (zero
    /// has none and is not negative).
    Integral { negative: bool, magnitude: Vec<u64> },
    /// A float with a fraction, by its bits.
    Fraction(u64),
    /// A string's code points.
    Text(Vec<u32>),
}

impl IdKey {
    /// The key of `value`, or `None` when it is no identifier.
    ///
    /// ```
    /// use oa_engine::align::refer::IdKey;
    /// use oa_engine::compare::{Integer, Number, Value};
    /// use oa_engine::score::Json;
    /// let one = IdKey::of(&Json::Leaf(Value::Number(Number::Int(Integer::from(1)))));
    /// let one_float = IdKey::of(&Json::Leaf(Value::Number(Number::Float(1.0))));
    /// assert_eq!(one, one_float);
    /// assert_ne!(one, IdKey::of(&Json::Leaf(Value::from("1"))));
    /// assert_eq!(IdKey::of(&Json::Leaf(Value::Boolean(true))), None);
    /// ```
    pub fn of(value: &Json) -> Option<IdKey> {
        match value {
            Json::Leaf(Value::Text(text)) => Some(IdKey::Text(text.clone())),
            Json::Leaf(Value::Number(Number::Int(integer))) => Some(integral(integer)),
            Json::Leaf(Value::Number(Number::Float(x))) => Some(float(*x)),
            _ => None,
        }
    }
}

fn integral(integer: &Integer) -> IdKey {
    match integer {
        Integer::Small(n) => IdKey::Integral {
            negative: *n < 0,
            magnitude: if *n == 0 {
                Vec::new()
            } else {
                vec![n.unsigned_abs()]
            },
        },
        Integer::Wide {
            negative,
            magnitude,
        } => IdKey::Integral {
            negative: *negative,
            magnitude: magnitude.to_vec(),
        },
    }
}

fn float(x: f64) -> IdKey {
    // NaN equals nothing, not even itself: its bits keep it apart from every number
    // (the converted documents hold no NaN or infinity)
    if !x.is_finite() || x.fract() != 0.0 {
        return IdKey::Fraction(x.to_bits());
    }
    if x == 0.0 {
        return IdKey::Integral {
            negative: false,
            magnitude: Vec::new(),
        };
    }
    let bits = x.to_bits();
    // an integral non-zero float is at least 1, so it is normal: the implicit bit is set
    let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
    let exponent = i64::try_from((bits >> 52) & 0x7FF).unwrap_or(0) - 1075;
    let mut magnitude = if exponent <= 0 {
        // integral: the bits shifted out are zeros
        vec![mantissa >> exponent.unsigned_abs().min(63)]
    } else {
        let shift = exponent.unsigned_abs();
        let (limb, bit) = (usize::try_from(shift / 64).unwrap_or(0), shift % 64);
        let mut limbs = vec![0_u64; limb];
        limbs.push(mantissa << bit);
        limbs.push(if bit == 0 { 0 } else { mantissa >> (64 - bit) });
        limbs
    };
    while magnitude.last() == Some(&0) {
        magnitude.pop();
    }
    IdKey::Integral {
        negative: x < 0.0,
        magnitude,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(n: i64) -> Json {
        Json::Leaf(Value::Number(Number::Int(Integer::from(n))))
    }

    fn flt(x: f64) -> Json {
        Json::Leaf(Value::Number(Number::Float(x)))
    }

    #[test]
    fn integral_floats_key_as_their_integers() {
        for n in [0, 1, -1, 7, 1 << 40, -(1 << 53), i64::MAX, i64::MIN + 1] {
            #[allow(clippy::cast_precision_loss)] // compared exactly below
            let x = n as f64;
            let exact = x.abs() < 9.2e18 && (x as i64) == n;
            assert_eq!(IdKey::of(&int(n)) == IdKey::of(&flt(x)), exact, "{n}");
        }
        assert_eq!(IdKey::of(&flt(-0.0)), IdKey::of(&int(0)));
        assert_ne!(IdKey::of(&flt(0.5)), IdKey::of(&int(0)));
    }

    #[test]
    fn floats_beyond_i64_key_as_wide_integers() {
        // 2**64 as a float and as Python's int 2**64
        let wide = Integer::from_le_bytes_signed(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
        let big = Json::Leaf(Value::Number(Number::Int(wide)));
        assert_eq!(
            IdKey::of(&flt(18_446_744_073_709_551_616.0)),
            IdKey::of(&big)
        );
        assert_eq!(
            IdKey::of(&flt(-1e300)),
            IdKey::of(&flt(-1e300)),
            "deterministic"
        );
        assert_ne!(IdKey::of(&flt(1e300)), IdKey::of(&flt(-1e300)));
    }

    #[test]
    fn only_strings_and_numbers_identify() {
        assert_eq!(IdKey::of(&Json::Null), None);
        assert_eq!(IdKey::of(&Json::Array(vec![int(1)])), None);
        assert_eq!(IdKey::of(&Json::Object(Vec::new())), None);
        assert_ne!(IdKey::of(&Json::Leaf(Value::from("1"))), IdKey::of(&int(1)));
    }
}
