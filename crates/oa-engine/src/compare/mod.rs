//! Leaf comparators (paper III.B): similarities in [0, 1] on primitive values.
//!
//! [`Comparator`] names every built-in comparator of `oa_core/comparators.py`, or an
//! external one in a plan's table ([`custom`]), and is the single dispatcher:
//! [`Comparator::scalar`] for one pair and [`Comparator::matrix`] for every
//! gold-candidate pair (row-major), with the same bits. The rules live in
//! [`strings`], [`numbers`] (with exact integers in [`integer`]) and here (`exact`
//! and the kind check).

pub mod batch;
pub mod custom;
pub mod integer;
pub mod numbers;
pub mod strings;

use std::borrow::Borrow;
use std::fmt;

pub use custom::{External, ExternalError, ExternalId, Externals, Kinds};
pub use integer::Integer;
pub use numbers::{Number, NumberMeasure};
pub use strings::StringMeasure;

/// The kind of a primitive JSON value a comparator may compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    String,
    Number,
    Boolean,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
        }
    }
}

/// A primitive value: a string as code points, a number or a boolean.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Text(Vec<u32>),
    Number(Number),
    Boolean(bool),
}

impl Value {
    pub fn kind(&self) -> Kind {
        match self {
            Value::Text(_) => Kind::String,
            Value::Number(_) => Kind::Number,
            Value::Boolean(_) => Kind::Boolean,
        }
    }
}

impl From<&str> for Value {
    fn from(text: &str) -> Self {
        Value::Text(text.chars().map(u32::from).collect())
    }
}

/// Why a comparison has no similarity.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareError {
    /// The comparator does not compare values of this kind (the scorer scores such a
    /// pair as a type mismatch before it asks a comparator).
    Kind { comparator: Comparator, kind: Kind },
    /// An integer beyond the float range reached a number formula (Python's
    /// `float(int)` raises `OverflowError` on it too).
    IntegerTooLarge,
    /// A matrix of this many cells could not be allocated (refused, not aborted on).
    MatrixTooLarge { rows: usize, columns: usize },
    /// An external comparator failed or returned no similarity.
    External(ExternalError),
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::Kind { comparator, kind } => write!(
                f,
                "comparator {comparator} does not compare {} values",
                kind.name()
            ),
            CompareError::IntegerTooLarge => f.write_str("int too large to convert to float"),
            CompareError::MatrixTooLarge { rows, columns } => {
                write!(
                    f,
                    "a {rows} x {columns} similarity matrix does not fit in memory"
                )
            }
            CompareError::External(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for CompareError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CompareError::External(error) => Some(error),
            _ => None,
        }
    }
}

impl From<ExternalError> for CompareError {
    fn from(error: ExternalError) -> Self {
        CompareError::External(error)
    }
}

/// A built-in comparator, or an external one of a plan's [`Externals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Comparator {
    /// 1.0 on equal values of one kind (1 equals 1.0, NaN equals nothing), else 0.0.
    Exact,
    String(StringMeasure),
    Number(NumberMeasure),
    External(ExternalId),
}

/// A built-in by its name, an external one by its place in the table.
impl fmt::Display for Comparator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name:?}"),
            None => f.write_str("external"),
        }
    }
}

impl Comparator {
    /// Every built-in comparator, in the order of `BUILTIN_COMPARATORS`.
    pub const ALL: [Comparator; 10] = [
        Comparator::Exact,
        Comparator::String(StringMeasure::Jaro),
        Comparator::String(StringMeasure::JaroWinkler),
        Comparator::String(StringMeasure::Levenshtein),
        Comparator::String(StringMeasure::DamerauLevenshtein),
        Comparator::String(StringMeasure::Osa),
        Comparator::String(StringMeasure::Indel),
        Comparator::String(StringMeasure::LcsSeq),
        Comparator::Number(NumberMeasure::InvDiff),
        Comparator::Number(NumberMeasure::Relative),
    ];

    /// The name schemas use (`score`, `keyScore`) for a built-in; an external one's
    /// is in its table ([`External::name`]).
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Comparator::Exact => "exact",
            Comparator::String(StringMeasure::Jaro) => "jaro",
            Comparator::String(StringMeasure::JaroWinkler) => "jaro_winkler",
            Comparator::String(StringMeasure::Levenshtein) => "levenshtein",
            Comparator::String(StringMeasure::DamerauLevenshtein) => "damerau_levenshtein",
            Comparator::String(StringMeasure::Osa) => "osa",
            Comparator::String(StringMeasure::Indel) => "indel",
            Comparator::String(StringMeasure::LcsSeq) => "lcsseq",
            Comparator::Number(NumberMeasure::InvDiff) => "invdiff",
            Comparator::Number(NumberMeasure::Relative) => "relative",
            Comparator::External(_) => return None,
        })
    }

    /// The name schemas use for it: a built-in's, or an external one's in
    /// `externals`.
    pub fn name_in(self, externals: &Externals) -> Option<&str> {
        match self {
            Comparator::External(id) => externals.name(id),
            builtin => builtin.name(),
        }
    }

    /// The built-in comparator of this name, if any.
    pub fn from_name(name: &str) -> Option<Comparator> {
        Comparator::ALL
            .into_iter()
            .find(|comparator| comparator.name() == Some(name))
    }

    /// The comparator a leaf of this kind uses when its schema names none.
    pub fn default_for(kind: Kind) -> Comparator {
        match kind {
            Kind::String => Comparator::String(StringMeasure::Jaro),
            Kind::Number => Comparator::Number(NumberMeasure::InvDiff),
            Kind::Boolean => Comparator::Exact,
        }
    }

    /// Whether the comparator compares values of this kind.
    pub fn compares(self, kind: Kind) -> bool {
        match self {
            Comparator::Exact => true,
            Comparator::String(_) => kind == Kind::String,
            Comparator::Number(_) => kind == Kind::Number,
            Comparator::External(id) => id.kinds().contains(kind),
        }
    }

    fn check(self, value: &Value) -> Result<(), CompareError> {
        if self.compares(value.kind()) {
            Ok(())
        } else {
            Err(CompareError::Kind {
                comparator: self,
                kind: value.kind(),
            })
        }
    }

    /// The similarity of one gold-candidate pair; `externals` holds the external
    /// comparators (an external one is given the values as they are, as Python
    /// calls a custom comparator without a kind check).
    pub fn scalar(
        self,
        externals: &Externals,
        gold: &Value,
        candidate: &Value,
    ) -> Result<f64, CompareError> {
        if let Comparator::External(id) = self {
            return Ok(externals.scalar(id, gold, candidate)?);
        }
        self.check(gold)?;
        self.check(candidate)?;
        match (self, gold, candidate) {
            (Comparator::Exact, _, _) => Ok(if exact_equal(gold, candidate) {
                1.0
            } else {
                0.0
            }),
            (Comparator::String(measure), Value::Text(g), Value::Text(p)) => {
                Ok(measure.similarity(g, p))
            }
            (Comparator::Number(measure), Value::Number(g), Value::Number(p)) => {
                measure.similarity(g, p)
            }
            // returned above for an external; check() admitted only the kinds matched
            (comparator, value, _) => Err(CompareError::Kind {
                comparator,
                kind: value.kind(),
            }),
        }
    }

    /// The similarities of every gold-candidate pair, row-major (`golds.len()` rows of
    /// `candidates.len()`); every value is checked, even when the other side is empty,
    /// as Python converts each list before it compares (an external comparator is
    /// given the lists as they are). The values may be owned or borrowed (a score
    /// matrix compares its documents' leaves without copying them).
    pub fn matrix<V: Borrow<Value>>(
        self,
        externals: &Externals,
        golds: &[V],
        candidates: &[V],
    ) -> Result<Vec<f64>, CompareError> {
        if let Comparator::External(id) = self {
            // an external comparator takes owned values: copied for its call only
            let owned = |values: &[V]| -> Vec<Value> {
                values.iter().map(|value| value.borrow().clone()).collect()
            };
            return Ok(externals.matrix(id, &owned(golds), &owned(candidates))?);
        }
        for value in golds.iter().chain(candidates).map(Borrow::borrow) {
            self.check(value)?;
            if let (Comparator::Number(_), Value::Number(number)) = (self, value) {
                number.to_f64()?;
            }
        }
        if let Some(out) = batch::text_matrix(self, externals, golds, candidates)? {
            return Ok(out);
        }
        let mut out = matrix_buffer(golds.len(), candidates.len())?;
        if let Comparator::String(measure) = self {
            let texts: Vec<&[u32]> = candidates
                .iter()
                .filter_map(|value| text_of(value.borrow()))
                .collect();
            for gold in golds.iter().filter_map(|value| text_of(value.borrow())) {
                measure.extend_row(gold, &texts, &mut out);
            }
            return Ok(out);
        }
        for gold in golds.iter().map(Borrow::borrow) {
            for candidate in candidates.iter().map(Borrow::borrow) {
                out.push(self.scalar(externals, gold, candidate)?);
            }
        }
        Ok(out)
    }
}

/// An empty vector with room for `rows * columns` similarities, or an error where the
/// allocator would abort the process.
fn matrix_buffer(rows: usize, columns: usize) -> Result<Vec<f64>, CompareError> {
    let too_large = || CompareError::MatrixTooLarge { rows, columns };
    let mut out = Vec::new();
    out.try_reserve_exact(rows.checked_mul(columns).ok_or_else(too_large)?)
        .map_err(|_| too_large())?;
    Ok(out)
}

fn text_of(value: &Value) -> Option<&[u32]> {
    match value {
        Value::Text(text) => Some(text),
        _ => None,
    }
}

/// `exact`: equal kinds and equal values.
fn exact_equal(gold: &Value, candidate: &Value) -> bool {
    match (gold, candidate) {
        (Value::Text(g), Value::Text(p)) => g == p,
        (Value::Number(g), Value::Number(p)) => g.equals(p),
        (Value::Boolean(g), Value::Boolean(p)) => g == p,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(value: i64) -> Value {
        Value::Number(Number::Int(Integer::Small(value)))
    }

    fn float(value: f64) -> Value {
        Value::Number(Number::Float(value))
    }

    #[test]
    fn names_round_trip_and_defaults() {
        for comparator in Comparator::ALL {
            let name = comparator.name().unwrap_or_default();
            assert_eq!(Comparator::from_name(name), Some(comparator));
        }
        assert_eq!(Comparator::from_name("Jaro"), None);
        assert_eq!(Comparator::default_for(Kind::String).name(), Some("jaro"));
        assert_eq!(
            Comparator::default_for(Kind::Number).name(),
            Some("invdiff")
        );
        assert_eq!(Comparator::default_for(Kind::Boolean).name(), Some("exact"));
    }

    #[test]
    fn exact_compares_kind_and_value() {
        let exact = Comparator::Exact;
        assert_eq!(
            exact.scalar(&Externals::NONE, &int(1), &float(1.0)),
            Ok(1.0)
        );
        assert_eq!(
            exact.scalar(&Externals::NONE, &int(1), &Value::Boolean(true)),
            Ok(0.0)
        );
        assert_eq!(
            exact.scalar(&Externals::NONE, &int(1), &Value::from("1")),
            Ok(0.0)
        );
        assert_eq!(
            exact.scalar(&Externals::NONE, &float(f64::NAN), &float(f64::NAN)),
            Ok(0.0)
        );
        assert_eq!(
            exact.scalar(&Externals::NONE, &Value::from("é"), &Value::from("é")),
            Ok(1.0)
        );
        assert_eq!(
            exact.scalar(
                &Externals::NONE,
                &Value::Boolean(false),
                &Value::Boolean(false)
            ),
            Ok(1.0)
        );
    }

    #[test]
    fn other_kinds_are_typed_errors() {
        let jaro = Comparator::from_name("jaro");
        assert!(jaro.is_some_and(|c| c
            .scalar(&Externals::NONE, &int(1), &Value::from("1"))
            .is_err()));
        let invdiff = Comparator::Number(NumberMeasure::InvDiff);
        let error = invdiff.scalar(&Externals::NONE, &int(1), &Value::Boolean(true));
        assert_eq!(
            error,
            Err(CompareError::Kind {
                comparator: invdiff,
                kind: Kind::Boolean
            })
        );
        assert_eq!(
            error.map_err(|e| e.to_string()),
            Err("comparator \"invdiff\" does not compare boolean values".to_owned())
        );
        assert!(invdiff
            .matrix(&Externals::NONE, &[], &[Value::from("a")])
            .is_err());
    }

    #[test]
    fn matrices_are_row_major_and_equal_the_scalars() {
        let golds = [int(1), float(2.5), int(-7)];
        let candidates = [int(2), float(f64::INFINITY)];
        for comparator in [
            Comparator::Exact,
            Comparator::Number(NumberMeasure::Relative),
        ] {
            let matrix = comparator.matrix(&Externals::NONE, &golds, &candidates);
            let mut expected = Vec::new();
            for g in &golds {
                for p in &candidates {
                    expected.push(comparator.scalar(&Externals::NONE, g, p).map(f64::to_bits));
                }
            }
            let bits: Vec<_> = matrix
                .into_iter()
                .flatten()
                .map(f64::to_bits)
                .map(Ok)
                .collect();
            assert_eq!(bits, expected);
        }
        let jaro = Comparator::default_for(Kind::String);
        let texts = [Value::from("intro"), Value::from("outro")];
        assert_eq!(
            jaro.matrix(&Externals::NONE, &texts[..1], &texts)
                .map(|m| m.len()),
            Ok(2)
        );
        assert_eq!(jaro.matrix(&Externals::NONE, &[], &texts), Ok(Vec::new()));
    }

    #[test]
    fn borrowed_values_have_the_matrix_of_owned_ones() {
        let values = [
            Value::from("martha"),
            Value::from("marhta"),
            int(3),
            float(2.5),
            Value::Boolean(true),
        ];
        let borrowed: Vec<&Value> = values.iter().collect();
        for comparator in Comparator::ALL {
            let texts = match comparator {
                Comparator::String(_) => &values[..2],
                Comparator::Number(_) => &values[2..4],
                _ => &values[..],
            };
            let refs: Vec<&Value> = texts.iter().collect();
            let owned = comparator.matrix(&Externals::NONE, texts, texts);
            let shared = comparator.matrix(&Externals::NONE, &refs, &refs);
            assert_eq!(
                owned.map(|m| m.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
                shared.map(|m| m.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
                "{comparator}"
            );
        }
        let jaro = Comparator::default_for(Kind::String);
        assert_eq!(
            jaro.matrix(&Externals::NONE, &borrowed, &borrowed),
            jaro.matrix(&Externals::NONE, &values[..], &values[..])
        );
    }

    #[test]
    fn a_matrix_beyond_memory_is_refused() {
        let error = CompareError::MatrixTooLarge {
            rows: usize::MAX,
            columns: 2,
        };
        assert_eq!(matrix_buffer(usize::MAX, 2), Err(error));
        // more bytes than any address space: the allocator refuses, nothing aborts
        let error = CompareError::MatrixTooLarge {
            rows: usize::MAX / 8,
            columns: 1,
        };
        assert_eq!(matrix_buffer(usize::MAX / 8, 1), Err(error.clone()));
        assert!(error.to_string().contains("does not fit in memory"));
        assert_eq!(matrix_buffer(3, 4).map(|m| m.capacity()), Ok(12));
    }
}
