//! `power_of_two_scale`: weights divided by the power of two that brings the largest
//! into [1, 2). Exact, so only overflow and underflow change: the scaled problem has
//! the same optima and the same ties.

/// `math.frexp(x)[1] - 1` for a finite `x > 0`: the exponent e with 2**e <= x < 2**(e+1).
fn exponent(x: f64) -> i32 {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7FF) as i32;
    if biased == 0 {
        // subnormal: 2**-1074 times the mantissa
        let mantissa = bits & ((1 << 52) - 1);
        63 - mantissa.leading_zeros() as i32 - 1074
    } else {
        biased - 1023
    }
}

/// `math.ldexp(x, n)`: x * 2**n rounded once (musl's `scalbn`).
fn ldexp(x: f64, mut n: i32) -> f64 {
    let mut y = x;
    let two_1023 = f64::from_bits(0x7FE0_0000_0000_0000);
    // 2**-1022 * 2**53: a step that keeps a normal number normal
    let down = f64::from_bits(0x0010_0000_0000_0000) * f64::from_bits(0x4340_0000_0000_0000);
    if n > 1023 {
        y *= two_1023;
        n -= 1023;
        if n > 1023 {
            y *= two_1023;
            n = (n - 1023).min(1023);
        }
    } else if n < -1022 {
        y *= down;
        n += 1022 - 53;
        if n < -1022 {
            y *= down;
            n = (n + 1022 - 53).max(-1022);
        }
    }
    // n is now in [-1022, 1023]: 2**n is a normal float
    y * f64::from_bits(((0x3FF + n) as u64) << 52)
}

/// The weights scaled so that the largest lies in [1, 2) (unchanged when none is
/// positive); `None` for a non-finite largest weight (Python's `frexp` of it differs).
///
/// ```
/// use oa_engine::align::power_of_two_scale;
/// assert_eq!(power_of_two_scale(&[3.0, 1.0]), Some(vec![1.5, 0.5]));
/// assert_eq!(power_of_two_scale(&[1e308, 1e308]),
///            Some(vec![1.1125369292536007, 1.1125369292536007]));
/// ```
pub fn power_of_two_scale(weights: &[f64]) -> Option<Vec<f64>> {
    // max(weights, default=0.0): the first of equal maxima; NaN is never larger
    let mut largest = 0.0_f64;
    let mut first = true;
    for &weight in weights {
        if first || weight > largest {
            largest = weight;
            first = false;
        }
    }
    if largest.is_nan() {
        return None;
    }
    if largest <= 0.0 {
        return Some(weights.to_vec());
    }
    if !largest.is_finite() {
        return None;
    }
    let shift = -exponent(largest);
    Some(weights.iter().map(|&w| ldexp(w, shift)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_lands_in_one_to_two_from_any_exponent() {
        // the sparse solver's weights: from subnormal to the largest float
        assert_eq!(power_of_two_scale(&[3.0, 12.0]), Some(vec![0.375, 1.5]));
        assert_eq!(power_of_two_scale(&[5e-324]), Some(vec![1.0]));
        assert_eq!(
            power_of_two_scale(&[f64::MAX]),
            Some(vec![f64::MAX / 2f64.powi(1023)])
        );
    }

    #[test]
    fn subnormal_and_huge_weights_scale_exactly() {
        assert_eq!(power_of_two_scale(&[5e-324]), Some(vec![1.0]));
        assert_eq!(power_of_two_scale(&[5e-324, 0.0]), Some(vec![1.0, 0.0]));
        assert_eq!(
            power_of_two_scale(&[f64::MAX]),
            Some(vec![f64::MAX / 2f64.powi(1023)])
        );
        assert_eq!(power_of_two_scale(&[1.0, 0.5]), Some(vec![1.0, 0.5]));
        assert_eq!(power_of_two_scale(&[0.0, 0.0]), Some(vec![0.0, 0.0]));
        assert_eq!(power_of_two_scale(&[]), Some(vec![]));
    }

    #[test]
    fn ldexp_rounds_once_into_subnormals() {
        assert_eq!(ldexp(1.5, -1074), 5e-324 * 2.0);
        assert_eq!(ldexp(1.0, 1023), f64::from_bits(0x7FE0_0000_0000_0000));
        assert_eq!(ldexp(3.0, -1075), 5e-324 * 2.0);
    }
}
