//! The size limit of a scope's pairing: a scope, or a block of a `blockBy` scope, whose
//! C matrix would hold more than `Limits.max_matrix_cells` scores is refused, an error
//! that is the user's to fix.

use std::fmt;

use super::index::Record;

/// A pairing over `max_matrix_cells`: where (the candidate records' array), what it
/// needs and the fix, as `oa_core.errors.InputError` words them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooBig {
    /// The candidate records' array (a JSON Pointer).
    pub pointer: String,
    pub gold: usize,
    pub candidate: usize,
    pub limit: usize,
}

impl TooBig {
    /// What the user can do about it.
    pub const FIX: &'static str =
        "raise Limits.max_matrix_cells if the memory is there (8 bytes a score)";
}

impl fmt::Display for TooBig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // usize * usize always fits in u128: the product Python writes, never wrapped
        let cells = self.gold as u128 * self.candidate as u128;
        write!(
            f,
            "aligning {} gold with {} candidate records needs {} scores, over the limit of {}",
            grouped(self.gold as u128),
            grouped(self.candidate as u128),
            grouped(cells),
            grouped(self.limit as u128)
        )
    }
}

impl std::error::Error for TooBig {}

/// Python's `f"{n:,}"`: thousands separated by commas (every count a message shows).
pub fn grouped(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (k, digit) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Refused when `gold x candidate` records are over `limit` scores;
/// `first`, the first candidate record (its array names the place).
pub fn check_size(
    gold: usize,
    candidate: usize,
    first: Option<&Record>,
    limit: usize,
) -> Result<(), TooBig> {
    if gold
        .checked_mul(candidate)
        .is_some_and(|cells| cells <= limit)
    {
        return Ok(());
    }
    let pointer = first.map_or("", |record| {
        record
            .pointer
            .rfind('/')
            .map_or("", |at| record.pointer.get(..at).unwrap_or(""))
    });
    Err(TooBig {
        pointer: pointer.to_string(),
        gold,
        candidate,
        limit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(123_456_789), "123,456,789");
        let error = TooBig {
            pointer: "/people".into(),
            gold: 2000,
            candidate: 3,
            limit: 10,
        };
        assert_eq!(
            error.to_string(),
            "aligning 2,000 gold with 3 candidate records needs 6,000 scores, over the \
             limit of 10"
        );
    }
}
