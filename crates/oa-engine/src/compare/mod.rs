//! Leaf comparators: similarities in [0, 1] on primitive values.

/// The similarity of two equal values under `exact`: 1.0 when equal, else 0.0.
pub fn exact<T: PartialEq + ?Sized>(gold: &T, candidate: &T) -> f64 {
    if gold == candidate {
        1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_is_one_only_on_equal_values() {
        assert_eq!(exact("a", "a"), 1.0);
        assert_eq!(exact("a", "b"), 0.0);
    }
}
