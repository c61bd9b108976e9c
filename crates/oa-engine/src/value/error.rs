//! The one way a value fails to be read: a number JSON has no text for.

use std::fmt;

/// A NaN or infinite number: it has no canonical text and identifies nothing (no
/// JSON document holds one). The scorer reports it as
/// `Unsupported::NonFiniteNumber`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NonFiniteNumber;

impl fmt::Display for NonFiniteNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a NaN or infinite number")
    }
}

impl std::error::Error for NonFiniteNumber {}
