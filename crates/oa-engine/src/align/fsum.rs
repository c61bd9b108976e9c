//! The exact, correctly rounded sum of floats (Python's `math.fsum`).
//!
//! Shewchuk's non-overlapping partials ("Adaptive precision floating-point
//! arithmetic", 1997) and the final half-way correction that makes the rounding
//! exact, as `math.fsum` documents them. The solvers compare such sums for
//! equality, so they must be the same number Python computes.

use super::error::AlignError;

/// `math.fsum(values)` of finite values; [`AlignError::Overflow`] where Python raises
/// `OverflowError` (a partial sum leaves the finite range) or is given a non-finite value.
///
/// ```
/// use oa_engine::align::fsum;
/// assert_eq!(fsum(&[0.1; 10]), Ok(1.0));
/// assert_eq!(fsum(&[1e100, 1.0, -1e100]), Ok(1.0));
/// ```
pub fn fsum(values: &[f64]) -> Result<f64, AlignError> {
    let mut partials: Vec<f64> = Vec::new();
    for &value in values {
        if !value.is_finite() {
            return Err(AlignError::Overflow);
        }
        let mut x = value;
        let mut kept = 0;
        for k in 0..partials.len() {
            let Some(&partial) = partials.get(k) else {
                break;
            };
            let mut y = partial;
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                if let Some(slot) = partials.get_mut(kept) {
                    *slot = lo;
                }
                kept += 1;
            }
            x = hi;
        }
        partials.truncate(kept);
        if x != 0.0 {
            if !x.is_finite() {
                return Err(AlignError::Overflow);
            }
            partials.push(x);
        }
    }
    Ok(rounded(&partials))
}

/// The sum of non-overlapping `partials` (increasing magnitude), correctly rounded:
/// the top partials are added until one is inexact; if the rest lies beyond the
/// half-way point of that rounding, it is redone in the rest's direction.
fn rounded(partials: &[f64]) -> f64 {
    let mut rest = partials.iter().rev().copied();
    let Some(mut hi) = rest.next() else {
        return 0.0;
    };
    let mut lo = 0.0;
    let mut next = None;
    while let Some(y) = rest.next() {
        let x = hi;
        hi = x + y;
        lo = y - (hi - x);
        if lo != 0.0 {
            next = rest.next();
            break;
        }
    }
    if let Some(below) = next {
        if (lo < 0.0 && below < 0.0) || (lo > 0.0 && below > 0.0) {
            let y = lo * 2.0;
            let x = hi + y;
            if y == x - hi {
                hi = x;
            }
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sums() {
        assert_eq!(fsum(&[]), Ok(0.0));
        assert_eq!(fsum(&[0.1; 10]), Ok(1.0));
        assert_eq!(fsum(&[1.0, 1e-16, 1e-16]), Ok(1.0000000000000002));
        assert_eq!(fsum(&[1e308, 1e308, -1e308]), Err(AlignError::Overflow));
        assert_eq!(fsum(&[f64::NAN]), Err(AlignError::Overflow));
        // the half-way case math.fsum documents: 1 + 2**-53 + 2**-106 rounds up
        let tiny = 2f64.powi(-53);
        assert_eq!(fsum(&[1.0, tiny, tiny * tiny]), Ok(1.0 + 2.0 * tiny));
        assert_eq!(fsum(&[1.0, tiny]), Ok(1.0));
    }
}
