//! The string comparators: rapidfuzz's normalized similarities on code points.
//!
//! Strings are sequences of Unicode code points as `u32` (Python's `str` indexing:
//! astral characters count once, combining marks count as characters of their own,
//! and a lone surrogate, which JSON may carry, is a code point like any other).
//!
//! The bits follow `oa_core/comparators.py`, which calls rapidfuzz 3 (C++):
//! - the edit measures give `1 - distance / maximum` (1 when both are empty), with
//!   maximum `max(|g|, |p|)`, or `|g| + |p|` for `indel`;
//! - `jaro` and `jaro_winkler` go through `process.cdist`, whose kernels return the
//!   similarity itself, `(m/|g| + m/|p| + (m-t)/m) / 3`, not the single-pair
//!   functions' `1 - (1 - similarity)`, which differs in the last bit for about one
//!   pair in twenty. `jaro_winkler` adds `prefix * 0.1 * (1 - jaro)` (common prefix
//!   up to 4) when `jaro > 0.7`. Two empty strings are 1, one empty string 0.
//!
//! The `rapidfuzz` crate computes each of these with the same float operations in
//! the same order (tests/test_rust_comparators.py checks every bit against Python).

use rapidfuzz::distance::{
    damerau_levenshtein, indel, jaro, jaro_winkler, lcs_seq, levenshtein, osa,
};

/// A string comparator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StringMeasure {
    Jaro,
    JaroWinkler,
    Levenshtein,
    DamerauLevenshtein,
    Osa,
    Indel,
    LcsSeq,
}

type Chars<'a> = std::iter::Copied<std::slice::Iter<'a, u32>>;

fn chars(text: &[u32]) -> Chars<'_> {
    text.iter().copied()
}

impl StringMeasure {
    /// The similarity in [0, 1] of two strings.
    pub fn similarity(self, gold: &[u32], candidate: &[u32]) -> f64 {
        let (g, p) = (chars(gold), chars(candidate));
        match self {
            StringMeasure::Jaro => jaro::similarity(g, p),
            StringMeasure::JaroWinkler => jaro_winkler::similarity(g, p),
            StringMeasure::Levenshtein => levenshtein::normalized_similarity(g, p),
            StringMeasure::DamerauLevenshtein => damerau_levenshtein::normalized_similarity(g, p),
            StringMeasure::Osa => osa::normalized_similarity(g, p),
            StringMeasure::Indel => indel::normalized_similarity(g, p),
            StringMeasure::LcsSeq => lcs_seq::normalized_similarity(g, p),
        }
    }

    /// The similarities of one gold string to each candidate, appended to `out`: the
    /// gold is preprocessed once (rapidfuzz's batch comparators), same bits as
    /// [`StringMeasure::similarity`].
    pub fn extend_row(self, gold: &[u32], candidates: &[&[u32]], out: &mut Vec<f64>) {
        let g = chars(gold);
        let row = candidates.iter().map(|candidate| chars(candidate));
        match self {
            StringMeasure::Jaro => {
                let batch = jaro::BatchComparator::new(g);
                out.extend(row.map(|p| batch.similarity(p)));
            }
            StringMeasure::JaroWinkler => {
                let batch = jaro_winkler::BatchComparator::new(g);
                out.extend(row.map(|p| batch.similarity(p)));
            }
            StringMeasure::Levenshtein => {
                let batch = levenshtein::BatchComparator::new(g);
                out.extend(row.map(|p| batch.normalized_similarity(p)));
            }
            StringMeasure::DamerauLevenshtein => {
                let batch = damerau_levenshtein::BatchComparator::new(g);
                out.extend(row.map(|p| batch.normalized_similarity(p)));
            }
            StringMeasure::Osa => {
                let batch = osa::BatchComparator::new(g);
                out.extend(row.map(|p| batch.normalized_similarity(p)));
            }
            StringMeasure::Indel => {
                let batch = indel::BatchComparator::new(g);
                out.extend(row.map(|p| batch.normalized_similarity(p)));
            }
            StringMeasure::LcsSeq => {
                let batch = lcs_seq::BatchComparator::new(g);
                out.extend(row.map(|p| batch.normalized_similarity(p)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [StringMeasure; 7] = [
        StringMeasure::Jaro,
        StringMeasure::JaroWinkler,
        StringMeasure::Levenshtein,
        StringMeasure::DamerauLevenshtein,
        StringMeasure::Osa,
        StringMeasure::Indel,
        StringMeasure::LcsSeq,
    ];

    fn text(value: &str) -> Vec<u32> {
        value.chars().map(u32::from).collect()
    }

    #[test]
    fn known_values() {
        let (closing, closin) = (text("closing"), text("closin"));
        // (6/7 + 6/6 + 6/6) / 3, the similarity itself
        assert_eq!(
            StringMeasure::Jaro.similarity(&closing, &closin),
            (6.0 / 7.0 + 1.0 + 1.0) / 3.0
        );
        let jaro = (6.0 / 7.0 + 1.0 + 1.0) / 3.0;
        assert_eq!(
            StringMeasure::JaroWinkler.similarity(&closing, &closin),
            jaro + 4.0 * 0.1 * (1.0 - jaro)
        );
        assert_eq!(
            StringMeasure::Levenshtein.similarity(&closing, &closin),
            1.0 - 1.0 / 7.0
        );
        assert_eq!(
            StringMeasure::Indel.similarity(&closing, &closin),
            1.0 - 1.0 / 13.0
        );
        // a transposition: one edit for Damerau and OSA, two for Levenshtein
        let (ab, ba) = (text("ab"), text("ba"));
        assert_eq!(StringMeasure::DamerauLevenshtein.similarity(&ab, &ba), 0.5);
        assert_eq!(StringMeasure::Osa.similarity(&ab, &ba), 0.5);
        assert_eq!(StringMeasure::Levenshtein.similarity(&ab, &ba), 0.0);
        // OSA edits no substring twice, Damerau does: "ca" -> "abc"
        let (ca, abc) = (text("ca"), text("abc"));
        assert_eq!(StringMeasure::Osa.similarity(&ca, &abc), 0.0);
        assert_eq!(
            StringMeasure::DamerauLevenshtein.similarity(&ca, &abc),
            1.0 - 2.0 / 3.0
        );
    }

    #[test]
    fn empty_strings() {
        for measure in ALL {
            assert_eq!(measure.similarity(&[], &[]), 1.0, "{measure:?}");
            assert_eq!(measure.similarity(&[], &text("a")), 0.0, "{measure:?}");
            assert_eq!(measure.similarity(&text("a"), &[]), 0.0, "{measure:?}");
        }
    }

    #[test]
    fn code_points_not_bytes_and_lone_surrogates() {
        // "e" + combining acute is two code points; U+1F600 is one
        let combined = text("e\u{301}");
        assert_eq!(
            StringMeasure::Levenshtein.similarity(&combined, &text("e")),
            0.5
        );
        assert_eq!(
            StringMeasure::Levenshtein.similarity(&text("\u{1F600}"), &text("\u{1F601}")),
            0.0
        );
        let surrogate = [0xD800u32, 0x61];
        assert_eq!(
            StringMeasure::Indel.similarity(&surrogate, &text("a")),
            1.0 - 1.0 / 3.0
        );
    }

    #[test]
    fn rows_give_the_bits_of_single_pairs() {
        // a small deterministic generator: long and short strings over small alphabets
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound
        };
        let mut strings: Vec<Vec<u32>> = Vec::new();
        for _ in 0..40 {
            // around rapidfuzz's 64-character blocks
            let length = [0, 1, 3, 8, 63, 64, 65, 130]
                .into_iter()
                .nth(next(8) as usize)
                .unwrap_or(0);
            let alphabet = 1 + next(5) as u32;
            strings.push(
                (0..length)
                    .map(|_| 0x61 + next(u64::from(alphabet)) as u32)
                    .collect(),
            );
        }
        let candidates: Vec<&[u32]> = strings.iter().map(Vec::as_slice).collect();
        for measure in ALL {
            for gold in &strings {
                let mut row = Vec::new();
                measure.extend_row(gold, &candidates, &mut row);
                let single: Vec<u64> = candidates
                    .iter()
                    .map(|p| measure.similarity(gold, p).to_bits())
                    .collect();
                let batched: Vec<u64> = row.iter().map(|v| v.to_bits()).collect();
                assert_eq!(batched, single, "{measure:?}");
            }
        }
    }
}
