//! Exact JSON integers of any size, for the number comparators.
//!
//! Python subtracts two integers exactly and rounds the difference to a float once;
//! this module does the same with a sign and a magnitude in 64-bit limbs, so integers
//! beyond 2**53 (where two neighbours share one float) keep their distance.

use std::cmp::Ordering;

/// An integer: `Small` inside `i64`, `Wide` outside it (never both for one value, so
/// the derived equality is numeric equality).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Integer {
    Small(i64),
    /// Sign and magnitude, little-endian limbs, the top limb non-zero, the magnitude
    /// outside `i64`.
    Wide {
        negative: bool,
        magnitude: Box<[u64]>,
    },
}

/// The largest float as an integer, 2**1024 - 2**971, in limbs (Python's
/// `int(sys.float_info.max)`, `LARGEST_FLOAT_INTEGER` in `oa_core/errors.py`).
const MAX_FLOAT_MAGNITUDE: [u64; 16] = [
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0xFFFF_FFFF_FFFF_F800,
];

impl From<i64> for Integer {
    fn from(value: i64) -> Self {
        Integer::Small(value)
    }
}

impl Integer {
    /// The integer whose two's complement little-endian bytes are `bytes` (Python's
    /// `int.to_bytes(n, "little", signed=True)`); no bytes is 0.
    pub fn from_le_bytes_signed(bytes: &[u8]) -> Integer {
        let negative = bytes.last().is_some_and(|top| top & 0x80 != 0);
        // Two's complement to magnitude: invert and add one when negative.
        let mut magnitude = Vec::with_capacity(bytes.len().div_ceil(8));
        let mut carry = negative;
        for chunk in bytes.chunks(8) {
            let mut word = [if negative { 0xFF } else { 0 }; 8];
            for (slot, byte) in word.iter_mut().zip(chunk) {
                *slot = *byte;
            }
            let mut limb = u64::from_le_bytes(word);
            if negative {
                let (sum, overflow) = (!limb).overflowing_add(u64::from(carry));
                limb = sum;
                carry = overflow;
            }
            magnitude.push(limb);
        }
        Integer::from_sign_magnitude(negative, magnitude)
    }

    fn from_sign_magnitude(negative: bool, mut magnitude: Vec<u64>) -> Integer {
        while magnitude.last() == Some(&0) {
            magnitude.pop();
        }
        match magnitude.as_slice() {
            [] => Integer::Small(0),
            [limb] if !negative && *limb <= i64::MAX as u64 => Integer::Small(*limb as i64),
            [limb] if negative && *limb <= 1 << 63 => {
                Integer::Small(0i64.wrapping_sub_unsigned(*limb))
            }
            _ => Integer::Wide {
                negative,
                magnitude: magnitude.into_boxed_slice(),
            },
        }
    }

    fn negative(&self) -> bool {
        match self {
            Integer::Small(value) => *value < 0,
            Integer::Wide { negative, .. } => *negative,
        }
    }

    fn magnitude(&self) -> Magnitude<'_> {
        match self {
            Integer::Small(value) => Magnitude::One([value.unsigned_abs()]),
            Integer::Wide { magnitude, .. } => Magnitude::Many(magnitude),
        }
    }

    /// The nearest float (ties to even), or `None` when it would overflow: Python's
    /// `float(int)`, which raises `OverflowError` there.
    pub fn to_f64(&self) -> Option<f64> {
        let rounded = match self {
            Integer::Small(value) => *value as f64,
            Integer::Wide {
                negative,
                magnitude,
            } => {
                let rounded = magnitude_to_f64(magnitude);
                if *negative {
                    -rounded
                } else {
                    rounded
                }
            }
        };
        rounded.is_finite().then_some(rounded)
    }

    /// |self - other| as a float: exact before one rounding, and infinite beyond the
    /// largest float (not rounded down to it).
    pub fn abs_diff_f64(&self, other: &Integer) -> f64 {
        if let (Integer::Small(a), Integer::Small(b)) = (self, other) {
            // i128 holds any difference of two i64; the cast rounds to nearest, ties to even
            return (i128::from(*a) - i128::from(*b)).unsigned_abs() as f64;
        }
        let (a, b) = (self.magnitude(), other.magnitude());
        let difference = if self.negative() == other.negative() {
            match compare_magnitudes(a.limbs(), b.limbs()) {
                Ordering::Less => subtract(b.limbs(), a.limbs()),
                _ => subtract(a.limbs(), b.limbs()),
            }
        } else {
            add(a.limbs(), b.limbs())
        };
        if compare_magnitudes(&difference, &MAX_FLOAT_MAGNITUDE) == Ordering::Greater {
            f64::INFINITY
        } else {
            magnitude_to_f64(&difference)
        }
    }

    /// Whether the integer equals a float exactly (Python's `int == float`).
    pub fn equals_f64(&self, value: f64) -> bool {
        value.is_finite() && value.fract() == 0.0 && *self == Integer::from_whole_f64(value)
    }

    /// The integer a finite float with no fraction holds, exactly (any other float
    /// gives an unspecified integer).
    pub fn from_whole_f64(value: f64) -> Integer {
        // Inside [-2**63, 2**63) the cast is exact; a `Wide` integer lies outside.
        if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&value) {
            return Integer::Small(value as i64);
        }
        // An integral float outside i64: mantissa * 2**shift with shift >= 11.
        let bits = value.to_bits();
        let exponent = ((bits >> 52) & 0x7FF) as usize;
        let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
        let shift = exponent.saturating_sub(1075);
        let mut limbs = vec![0u64; shift / 64];
        let offset = shift % 64;
        limbs.push(mantissa << offset);
        if offset > 0 {
            limbs.push(mantissa >> (64 - offset));
        }
        Integer::from_sign_magnitude(value < 0.0, limbs)
    }

    /// The order of the integer and a float, exact (Python's `int < float`); `None`
    /// for NaN.
    pub fn cmp_f64(&self, value: f64) -> Option<Ordering> {
        if value.is_nan() {
            return None;
        }
        if value.is_infinite() {
            return Some(if value > 0.0 {
                Ordering::Less
            } else {
                Ordering::Greater
            });
        }
        let whole = value.floor();
        // an integer above floor(value) is at least floor(value) + 1 > value
        Some(match self.cmp(&Integer::from_whole_f64(whole)) {
            Ordering::Equal if value > whole => Ordering::Less,
            order => order,
        })
    }
}

impl Ord for Integer {
    fn cmp(&self, other: &Self) -> Ordering {
        if let (Integer::Small(a), Integer::Small(b)) = (self, other) {
            return a.cmp(b);
        }
        match (self.negative(), other.negative()) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (negative, _) => {
                let order = compare_magnitudes(self.magnitude().limbs(), other.magnitude().limbs());
                if negative {
                    order.reverse()
                } else {
                    order
                }
            }
        }
    }
}

impl PartialOrd for Integer {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A magnitude's limbs, borrowed or (for `Small`) held inline.
enum Magnitude<'a> {
    One([u64; 1]),
    Many(&'a [u64]),
}

impl Magnitude<'_> {
    fn limbs(&self) -> &[u64] {
        match self {
            Magnitude::One(limb) => limb,
            Magnitude::Many(limbs) => limbs,
        }
    }
}

fn significant(limbs: &[u64]) -> &[u64] {
    let length = limbs
        .iter()
        .rposition(|limb| *limb != 0)
        .map_or(0, |top| top + 1);
    limbs.get(..length).unwrap_or_default()
}

fn compare_magnitudes(a: &[u64], b: &[u64]) -> Ordering {
    let (a, b) = (significant(a), significant(b));
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

fn add(a: &[u64], b: &[u64]) -> Vec<u64> {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut sum = Vec::with_capacity(long.len() + 1);
    let mut carry = false;
    for (index, limb) in long.iter().enumerate() {
        let other = short.get(index).copied().unwrap_or(0);
        let (partial, first) = limb.overflowing_add(other);
        let (total, second) = partial.overflowing_add(u64::from(carry));
        sum.push(total);
        carry = first || second;
    }
    sum.push(u64::from(carry));
    sum
}

/// `a - b` for magnitudes with `a >= b`.
fn subtract(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut difference = Vec::with_capacity(a.len());
    let mut borrow = false;
    for (index, limb) in a.iter().enumerate() {
        let other = b.get(index).copied().unwrap_or(0);
        let (partial, first) = limb.overflowing_sub(other);
        let (total, second) = partial.overflowing_sub(u64::from(borrow));
        difference.push(total);
        borrow = first || second;
    }
    difference
}

/// The nearest float to a magnitude, ties to even (infinite when it rounds past the
/// largest float).
fn magnitude_to_f64(limbs: &[u64]) -> f64 {
    let limbs = significant(limbs);
    let Some((&top, lower)) = limbs.split_last() else {
        return 0.0;
    };
    if lower.is_empty() {
        return top as f64;
    }
    let bits = 64 * lower.len() + 64 - top.leading_zeros() as usize;
    let shift = bits - 64;
    // The top 64 bits, with the lowest set when any bit below them is: converting that
    // word rounds exactly as the whole magnitude would (the sticky bit only decides
    // between "exactly half" and "more than half", 11 bits below the float's last).
    let (word_index, offset) = (shift / 64, shift % 64);
    let low = limbs.get(word_index).copied().unwrap_or(0);
    let high = limbs.get(word_index + 1).copied().unwrap_or(0);
    let mut word = if offset == 0 {
        low
    } else {
        (low >> offset) | (high << (64 - offset))
    };
    let below_in_word = offset > 0 && low & ((1u64 << offset) - 1) != 0;
    let below = limbs
        .get(..word_index)
        .unwrap_or_default()
        .iter()
        .any(|limb| *limb != 0);
    if below_in_word || below {
        word |= 1;
    }
    if shift > 1023 {
        return f64::INFINITY;
    }
    // 2**shift exactly; the product is exact or overflows to infinity.
    (word as f64) * f64::from_bits((shift as u64 + 1023) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(negative: bool, limbs: &[u64]) -> Integer {
        Integer::from_sign_magnitude(negative, limbs.to_vec())
    }

    fn two_to(power: usize) -> Integer {
        let mut limbs = vec![0u64; power / 64];
        limbs.push(1u64 << (power % 64));
        wide(false, &limbs)
    }

    #[test]
    fn bytes_round_trip_the_edges_of_i64() {
        assert_eq!(Integer::from_le_bytes_signed(&[]), Integer::Small(0));
        assert_eq!(Integer::from_le_bytes_signed(&[0xFF]), Integer::Small(-1));
        let min = i64::MIN.to_le_bytes();
        assert_eq!(
            Integer::from_le_bytes_signed(&min),
            Integer::Small(i64::MIN)
        );
        // 2**63 needs a ninth byte for its sign
        let mut bytes = [0u8; 9];
        bytes[7] = 0x80;
        assert_eq!(
            Integer::from_le_bytes_signed(&bytes),
            wide(false, &[1 << 63])
        );
        // -(2**63) - 1
        let bytes = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF];
        assert_eq!(
            Integer::from_le_bytes_signed(&bytes),
            wide(true, &[(1 << 63) + 1])
        );
    }

    #[test]
    fn conversion_rounds_ties_to_even_and_refuses_overflow() {
        // 2**64 + 2**11 lies halfway between two floats: to even (2**64)
        let tie = wide(false, &[1 << 11, 1]);
        assert_eq!(tie.to_f64(), Some(18_446_744_073_709_551_616.0));
        // one more unit rounds up
        let above = wide(false, &[(1 << 11) + 1, 1]);
        assert_eq!(above.to_f64(), Some(18_446_744_073_709_555_712.0));
        assert_eq!(two_to(1023).to_f64(), Some(2f64.powi(1023)));
        assert_eq!(two_to(1024).to_f64(), None);
        let mut max = MAX_FLOAT_MAGNITUDE.to_vec();
        assert_eq!(wide(true, &max).to_f64(), Some(-f64::MAX));
        // 2**1024 - 2**970, halfway above the largest float, rounds to 2**1024
        if let Some(top) = max.last_mut() {
            *top |= 1 << 10;
        }
        assert_eq!(wide(false, &max).to_f64(), None);
    }

    #[test]
    fn differences_are_exact_before_rounding() {
        let a = wide(false, &[(1 << 60) + 1]);
        let b = Integer::Small(1 << 60);
        assert_eq!(a.abs_diff_f64(&b), 1.0);
        assert_eq!(b.abs_diff_f64(&a), 1.0);
        assert_eq!(
            Integer::Small(i64::MIN).abs_diff_f64(&Integer::Small(i64::MAX)),
            2f64.powi(64)
        );
        // the largest float as an integer is finite, one more is infinite
        let max = wide(false, &MAX_FLOAT_MAGNITUDE);
        assert_eq!(max.abs_diff_f64(&Integer::Small(0)), f64::MAX);
        assert_eq!(max.abs_diff_f64(&Integer::Small(-1)), f64::INFINITY);
        assert_eq!(
            max.abs_diff_f64(&wide(true, &MAX_FLOAT_MAGNITUDE)),
            f64::INFINITY
        );
    }

    #[test]
    fn equality_with_floats_is_exact() {
        assert!(Integer::Small(3).equals_f64(3.0));
        assert!(Integer::Small(0).equals_f64(-0.0));
        assert!(!Integer::Small(3).equals_f64(3.5));
        assert!(!Integer::Small(3).equals_f64(f64::NAN));
        assert!(two_to(63).equals_f64(2f64.powi(63)));
        assert!(two_to(1000).equals_f64(2f64.powi(1000)));
        assert!(!wide(false, &[1, 1]).equals_f64(2f64.powi(64)));
        assert!(Integer::Small(i64::MIN).equals_f64(-(2f64.powi(63))));
        assert!(!two_to(1024).equals_f64(f64::INFINITY));
    }

    #[test]
    fn order_with_integers_and_floats_is_exact() {
        let above = wide(false, &[1, 1]); // 2**64 + 1
        assert!(two_to(64) < above && wide(true, &[1, 1]) < Integer::Small(i64::MIN));
        assert!(Integer::Small(-1) < Integer::Small(0) && Integer::Small(0) < two_to(63));
        assert_eq!(above.cmp_f64(2f64.powi(64)), Some(Ordering::Greater));
        assert_eq!(two_to(64).cmp_f64(2f64.powi(64)), Some(Ordering::Equal));
        assert_eq!(Integer::Small(2).cmp_f64(2.5), Some(Ordering::Less));
        assert_eq!(Integer::Small(-2).cmp_f64(-2.5), Some(Ordering::Greater));
        assert_eq!(Integer::Small(-3).cmp_f64(-2.5), Some(Ordering::Less));
        assert_eq!(
            Integer::Small(i64::MAX).cmp_f64(2f64.powi(63)),
            Some(Ordering::Less)
        );
        assert_eq!(two_to(1024).cmp_f64(f64::MAX), Some(Ordering::Greater));
        assert_eq!(two_to(1024).cmp_f64(f64::INFINITY), Some(Ordering::Less));
        assert_eq!(Integer::Small(0).cmp_f64(f64::NAN), None);
    }
}
