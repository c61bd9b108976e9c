//! Comparators defined outside the engine (a user's Python function, through the
//! binding): the [`External`] trait, the [`Externals`] table a plan holds, and the
//! checks every external similarity passes before the scorer reads it.
//!
//! A [`Comparator::External`](super::Comparator::External) names one by its index in
//! the table and carries the kinds it compares, so a `Comparator` stays `Copy` and
//! [`Comparator::compares`](super::Comparator::compares) needs no table.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

use super::{Kind, Value};

/// A set of [`Kind`]s (the kinds an external comparator compares).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kinds(u8);

impl Kinds {
    fn bit(kind: Kind) -> u8 {
        match kind {
            Kind::String => 1,
            Kind::Number => 2,
            Kind::Boolean => 4,
        }
    }

    pub fn contains(self, kind: Kind) -> bool {
        self.0 & Kinds::bit(kind) != 0
    }
}

impl FromIterator<Kind> for Kinds {
    fn from_iter<I: IntoIterator<Item = Kind>>(kinds: I) -> Self {
        Kinds(
            kinds
                .into_iter()
                .fold(0, |set, kind| set | Kinds::bit(kind)),
        )
    }
}

/// Why an external comparator gave no similarity. `cause` is the error it raised,
/// kept whole for the caller that knows its type (the binding's Python exception).
#[derive(Clone, Debug)]
pub struct ExternalError {
    pub comparator: String,
    pub message: String,
    pub cause: Option<Arc<dyn Error + Send + Sync>>,
}

impl ExternalError {
    /// An error of comparator `comparator` without a cause.
    pub fn new(comparator: &str, message: impl Into<String>) -> ExternalError {
        ExternalError {
            comparator: comparator.to_owned(),
            message: message.into(),
            cause: None,
        }
    }
}

/// Two errors are equal when they say the same (a cause has no equality).
impl PartialEq for ExternalError {
    fn eq(&self, other: &Self) -> bool {
        self.comparator == other.comparator && self.message == other.message
    }
}

impl fmt::Display for ExternalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "comparator {:?}: {}", self.comparator, self.message)
    }
}

impl Error for ExternalError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.cause
            .as_deref()
            .map(|cause| cause as &(dyn Error + 'static))
    }
}

/// A comparator written outside the engine. Both forms must give the same bits
/// (as the built-ins'), since the scorer uses whichever suits it; what they return
/// is checked by [`Externals`], not trusted.
pub trait External: fmt::Debug + Send + Sync {
    /// The name schemas use for it.
    fn name(&self) -> &str;

    /// The value kinds it compares (a leaf of another kind takes its default).
    fn kinds(&self) -> Kinds;

    /// The similarity of one gold-candidate pair.
    fn scalar(&self, gold: &Value, candidate: &Value) -> Result<f64, ExternalError>;

    /// The similarities of every gold-candidate pair, row-major; by default the
    /// scalar form on each pair, gold by gold.
    fn matrix(&self, golds: &[Value], candidates: &[Value]) -> Result<Vec<f64>, ExternalError> {
        let mut out = Vec::new();
        for gold in golds {
            for candidate in candidates {
                out.push(self.scalar(gold, candidate)?);
            }
        }
        Ok(out)
    }
}

/// An index into a plan's [`Externals`], with the kinds of the comparator there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExternalId {
    index: usize,
    kinds: Kinds,
}

impl ExternalId {
    pub fn kinds(self) -> Kinds {
        self.kinds
    }
}

/// The external comparators of one plan.
#[derive(Clone, Debug, Default)]
pub struct Externals(Vec<Arc<dyn External>>);

/// A similarity the scorer can use: a number in [0, 1] (NaN fails the test).
fn checked(external: &dyn External, similarity: f64) -> Result<f64, ExternalError> {
    if (0.0..=1.0).contains(&similarity) {
        Ok(similarity)
    } else {
        Err(ExternalError::new(
            external.name(),
            format!("returned {similarity}, not a number in [0, 1]"),
        ))
    }
}

impl Externals {
    /// The empty table (a plan of built-in comparators only).
    pub const NONE: Externals = Externals(Vec::new());

    /// Adds a comparator to the table; the id names it in plan nodes.
    pub fn add(&mut self, external: Arc<dyn External>) -> ExternalId {
        let kinds = external.kinds();
        self.0.push(external);
        ExternalId {
            index: self.0.len() - 1,
            kinds,
        }
    }

    /// The name of the comparator `id` names, if in this table.
    pub fn name(&self, id: ExternalId) -> Option<&str> {
        self.0.get(id.index).map(|external| external.name())
    }

    fn get(&self, id: ExternalId) -> Result<&dyn External, ExternalError> {
        self.0
            .get(id.index)
            .map(|external| external.as_ref())
            .ok_or_else(|| {
                ExternalError::new(
                    &format!("#{}", id.index),
                    "is not in the plan's table of external comparators",
                )
            })
    }

    /// The similarity of one pair under `id` (checked to lie in [0, 1]).
    pub fn scalar(
        &self,
        id: ExternalId,
        gold: &Value,
        candidate: &Value,
    ) -> Result<f64, ExternalError> {
        let external = self.get(id)?;
        checked(external, external.scalar(gold, candidate)?)
    }

    /// Every pair's similarity under `id`, row-major (checked: one per pair, each in
    /// [0, 1]).
    pub fn matrix(
        &self,
        id: ExternalId,
        golds: &[Value],
        candidates: &[Value],
    ) -> Result<Vec<f64>, ExternalError> {
        let external = self.get(id)?;
        let matrix = external.matrix(golds, candidates)?;
        if Some(matrix.len()) != golds.len().checked_mul(candidates.len()) {
            return Err(ExternalError::new(
                external.name(),
                format!(
                    "gave {} similarities for {} x {} pairs",
                    matrix.len(),
                    golds.len(),
                    candidates.len()
                ),
            ));
        }
        for &similarity in &matrix {
            checked(external, similarity)?;
        }
        Ok(matrix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 when both strings start alike, 2 (out of range) on other kinds; raises on
    /// the gold "boom". Its matrix form is the default one.
    #[derive(Debug)]
    struct Initial;

    impl External for Initial {
        fn name(&self) -> &str {
            "initial"
        }

        fn kinds(&self) -> Kinds {
            [Kind::String].into_iter().collect()
        }

        fn scalar(&self, gold: &Value, candidate: &Value) -> Result<f64, ExternalError> {
            match (gold, candidate) {
                (Value::Text(g), Value::Text(p)) if g.as_slice() == [98, 111, 111, 109] => {
                    Err(ExternalError::new(self.name(), format!("boom on {p:?}")))
                }
                (Value::Text(g), Value::Text(p)) => Ok(f64::from(u8::from(g.first() == p.first()))),
                _ => Ok(2.0),
            }
        }
    }

    /// A broken matrix form: one similarity per gold row, all `0`.
    #[derive(Debug)]
    struct Broken(f64);

    impl External for Broken {
        fn name(&self) -> &str {
            "broken"
        }

        fn kinds(&self) -> Kinds {
            [Kind::String].into_iter().collect()
        }

        fn scalar(&self, _: &Value, _: &Value) -> Result<f64, ExternalError> {
            Ok(self.0)
        }

        fn matrix(&self, golds: &[Value], _: &[Value]) -> Result<Vec<f64>, ExternalError> {
            Ok(vec![self.0; golds.len()])
        }
    }

    fn table(external: impl External + 'static) -> (Externals, ExternalId) {
        let mut externals = Externals::default();
        let id = externals.add(Arc::new(external));
        (externals, id)
    }

    #[test]
    fn kinds_are_a_set() {
        let kinds: Kinds = [Kind::Number, Kind::Boolean, Kind::Number]
            .into_iter()
            .collect();
        assert!(kinds.contains(Kind::Number) && kinds.contains(Kind::Boolean));
        assert!(!kinds.contains(Kind::String));
        assert!(!Kinds::default().contains(Kind::String));
    }

    #[test]
    fn scalars_and_matrices_are_checked() {
        let (externals, id) = table(Initial);
        assert_eq!(externals.name(id), Some("initial"));
        let (bob, bill, ann) = (Value::from("bob"), Value::from("bill"), Value::from("ann"));
        assert_eq!(externals.scalar(id, &bob, &bill), Ok(1.0));
        assert_eq!(
            externals.matrix(id, &[bob.clone(), ann.clone()], &[bill, ann]),
            Ok(vec![1.0, 0.0, 0.0, 1.0])
        );
        let out_of_range = externals.scalar(id, &Value::Boolean(true), &Value::Boolean(true));
        assert_eq!(
            out_of_range.map_err(|e| e.to_string()),
            Err("comparator \"initial\": returned 2, not a number in [0, 1]".to_owned())
        );
        let raised = externals.matrix(id, &[Value::from("boom")], &[bob]);
        assert!(raised.is_err_and(|e| e.message.contains("boom")));
    }

    #[test]
    fn a_matrix_of_the_wrong_size_or_range_is_refused() {
        let texts = [Value::from("a"), Value::from("b")];
        let (externals, id) = table(Broken(0.5));
        let short = externals.matrix(id, &texts, &texts);
        assert!(short.is_err_and(|e| e.message == "gave 2 similarities for 2 x 2 pairs"));
        let (externals, id) = table(Broken(f64::NAN));
        assert!(externals.matrix(id, &texts, &texts[..1]).is_err());
        assert!(externals.scalar(id, &texts[0], &texts[1]).is_err());
    }

    #[test]
    fn an_id_from_another_table_is_an_error_not_a_panic() {
        let (_, id) = table(Initial);
        let empty = Externals::default();
        assert_eq!(empty.name(id), None);
        let text = Value::from("a");
        assert!(empty.scalar(id, &text, &text).is_err());
        let cause: Arc<dyn Error + Send + Sync> = Arc::new(ExternalError::new("inner", "x"));
        let error = ExternalError {
            cause: Some(cause),
            ..ExternalError::new("outer", "y")
        };
        assert!(error
            .source()
            .is_some_and(|s| s.to_string().contains("inner")));
    }

    #[test]
    fn the_dispatcher_calls_the_table() {
        use crate::compare::{Comparator, CompareError};
        let (externals, id) = table(Initial);
        let initial = Comparator::External(id);
        assert!(initial.compares(Kind::String) && !initial.compares(Kind::Number));
        assert_eq!(
            (initial.name(), initial.to_string()),
            (None, "external".to_owned())
        );
        let (bob, bill) = (Value::from("bob"), Value::from("bill"));
        assert_eq!(initial.scalar(&externals, &bob, &bill), Ok(1.0));
        // no kind check: the external answers (here out of range, an error)
        let pair = [Value::Boolean(true), Value::Boolean(false)];
        let error = initial.matrix(&externals, &pair[..1], &pair[1..]);
        assert!(matches!(error, Err(CompareError::External(_))));
        assert!(initial.scalar(&Externals::NONE, &bob, &bill).is_err());
    }
}
