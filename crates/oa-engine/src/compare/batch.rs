//! The similarity matrix of many texts, each distinct pair of texts compared once.
//!
//! A built-in comparator's similarity of two texts depends on the two texts only, so
//! a gold text repeated in the list has the row of its first occurrence, and a
//! candidate text repeated has the column of its first: a big list of names with
//! repeats (twins, common names, a handful of roles) is compared distinct text
//! against distinct text, with the same bits as every pair compared.

use std::borrow::Borrow;

use rapidfuzz::distance::jaro;

use super::{Comparator, CompareError, Externals, StringMeasure, Value};

/// Below this many cells a matrix is compared pair by pair: finding the distinct
/// texts costs more than it saves.
pub const DISTINCT_FROM_CELLS: usize = 4096;

/// Whether `golds` x `candidates` texts have too few cells for their distinct form
/// (fewer than [`DISTINCT_FROM_CELLS`]): [`TextRows::new`] declines them, and a caller
/// need not gather their texts.
pub fn below_distinct_form(golds: usize, candidates: usize) -> bool {
    golds.saturating_mul(candidates) < DISTINCT_FROM_CELLS
}

/// The row-major similarities of `golds` x `candidates` under `comparator` (a
/// built-in one, whose kind check the caller made) when every value is a text and
/// the matrix has at least [`DISTINCT_FROM_CELLS`] cells; `None` otherwise.
///
/// ```
/// use oa_engine::compare::{batch::text_matrix, Comparator, Externals, StringMeasure, Value};
/// let names: Vec<Value> = ["ann", "bob", "ann"].into_iter().map(Value::from).collect();
/// let many: Vec<Value> = names.iter().cycle().take(3000).cloned().collect();
/// let jaro = Comparator::String(StringMeasure::Jaro);
/// let externals = Externals::default();
/// let out = text_matrix(jaro, &externals, &names, &many).unwrap().unwrap();
/// assert_eq!(out.len(), 9000);
/// assert_eq!(out[3000], 0.0); // "bob" x "ann"
/// assert_eq!(out[6001], out[1]); // the second "ann" has the first's row
/// ```
pub fn text_matrix<V: Borrow<Value>>(
    comparator: Comparator,
    externals: &Externals,
    golds: &[V],
    candidates: &[V],
) -> Result<Option<Vec<f64>>, CompareError> {
    let Some(mut rows) = TextRows::new(comparator, externals, golds, candidates) else {
        return Ok(None);
    };
    let too_large = || CompareError::MatrixTooLarge {
        rows: golds.len(),
        columns: candidates.len(),
    };
    let cells = golds.len().saturating_mul(candidates.len());
    let mut out = Vec::new();
    out.try_reserve_exact(cells).map_err(|_| too_large())?;
    let width = candidates.len();
    let mut row = Vec::with_capacity(rows.others.len());
    for i in 0..golds.len() {
        let first = rows.golds.first.get(i).copied().unwrap_or(i);
        if first < i {
            // the row of the text's first occurrence, already in `out`
            let start = first * width;
            if start + width > out.len() {
                return Err(too_large());
            }
            out.extend_from_within(start..start + width);
            continue;
        }
        rows.row(i, &mut row)?;
        for &c in &rows.columns.slot {
            out.push(*row.get(c).ok_or_else(too_large)?);
        }
    }
    Ok(Some(out))
}

/// A text similarity matrix in its distinct form, for a caller that folds it into
/// a bigger matrix without spelling out every cell: each distinct gold text's row
/// over the distinct candidate texts, and where each text sits. The values may be
/// owned or borrowed (`V`: `Value` or `&Value`).
pub struct TextRows<'v, V = Value> {
    comparator: Comparator,
    externals: &'v Externals,
    gold_values: &'v [V],
    candidate_values: &'v [V],
    golds: Distinct,
    columns: Distinct,
    /// The distinct candidate texts, in order.
    others: Vec<&'v [u32]>,
    jaro: Option<Jaro>,
}

impl<'v, V: Borrow<Value>> TextRows<'v, V> {
    /// The distinct form of `golds` x `candidates` under `comparator` (a built-in one
    /// comparing texts) when every value is a text and the matrix has at least
    /// [`DISTINCT_FROM_CELLS`] cells; `None` otherwise.
    pub fn new(
        comparator: Comparator,
        externals: &'v Externals,
        golds: &'v [V],
        candidates: &'v [V],
    ) -> Option<Self> {
        if below_distinct_form(golds.len(), candidates.len())
            || matches!(comparator, Comparator::External(_))
        {
            return None;
        }
        let (gold_texts, candidate_texts) = (texts(golds)?, texts(candidates)?);
        let columns = Distinct::of(&candidate_texts);
        let others = columns.texts(&candidate_texts);
        Some(Self {
            comparator,
            externals,
            gold_values: golds,
            candidate_values: candidates,
            golds: Distinct::of(&gold_texts),
            columns,
            others,
            jaro: None,
        })
    }

    /// Each candidate's number among the distinct candidate texts (its place in a row).
    pub fn column_slots(&self) -> &[usize] {
        &self.columns.slot
    }

    /// The gold positions holding each distinct gold text, one list per text in
    /// the order of first occurrence.
    pub fn gold_groups(&self) -> Vec<Vec<usize>> {
        let mut groups = vec![Vec::new(); self.golds.leads.len()];
        for (i, &slot) in self.golds.slot.iter().enumerate() {
            if let Some(group) = groups.get_mut(slot) {
                group.push(i);
            }
        }
        groups
    }

    /// The similarities of gold `i`'s text to each distinct candidate text, in `row`
    /// (cleared first).
    pub fn row(&mut self, i: usize, row: &mut Vec<f64>) -> Result<(), CompareError> {
        row.clear();
        let gold = self
            .gold_values
            .get(i)
            .ok_or(CompareError::MatrixTooLarge {
                rows: self.gold_values.len(),
                columns: self.candidate_values.len(),
            })?
            .borrow();
        match (self.comparator, gold) {
            (Comparator::String(StringMeasure::Jaro), Value::Text(text)) => {
                let others = &self.others;
                self.jaro
                    .get_or_insert_with(|| Jaro::new(others))
                    .extend_row(text, others, row);
            }
            (Comparator::String(measure), Value::Text(text)) => {
                measure.extend_row(text, &self.others, row);
            }
            _ => {
                for &k in &self.columns.leads {
                    let candidate =
                        self.candidate_values
                            .get(k)
                            .ok_or(CompareError::MatrixTooLarge {
                                rows: self.gold_values.len(),
                                columns: self.candidate_values.len(),
                            })?;
                    row.push(
                        self.comparator
                            .scalar(self.externals, gold, candidate.borrow())?,
                    );
                }
            }
        }
        Ok(())
    }
}

/// Jaro of short texts against fixed candidates, bit for bit rapidfuzz's
/// `jaro::BatchComparator::similarity` (the word-sized path of its
/// `similarity_with_pm`, written over the candidates' characters numbered once, so
/// that a gold text's pattern vector is an array, not a hash map); a pair whose
/// window is wider than a word goes to rapidfuzz itself.
///
/// The candidates are walked sorted by length, then text: the matching loop's
/// state after a window prefix depends on the gold, the lengths and that prefix
/// only, so a candidate resumes from where its predecessor had the prefix they
/// share (names such as `Person00042`, `Person00043` share all but a character).
struct Jaro {
    /// The candidates' characters, numbered (sorted, for the gold's look-up).
    alphabet: Vec<u32>,
    /// The candidates as numbers of their characters, one after another in the
    /// order of `order` (walked in turn, not fetched from a heap of small vectors).
    numbered: Vec<u32>,
    /// The gold's pattern vector: the positions (< 64) of each character number.
    pattern: Vec<u64>,
    /// The candidates sorted by length, then text.
    order: Vec<Sorted>,
}

/// One candidate in the walk's order.
struct Sorted {
    /// Its index among the candidates.
    index: usize,
    /// Where its characters are in `numbered`.
    start: usize,
    len: usize,
    /// The length of the prefix it shares with the previous candidate (0 for
    /// another length).
    shared: usize,
}

impl Jaro {
    fn new(candidates: &[&[u32]]) -> Self {
        let mut alphabet: Vec<u32> = candidates.iter().flat_map(|t| t.iter().copied()).collect();
        alphabet.sort_unstable();
        alphabet.dedup();
        let numbered: Vec<Vec<u32>> = candidates
            .iter()
            .map(|t| {
                t.iter()
                    .map(|c| alphabet.binary_search(c).map_or(u32::MAX, |k| k as u32))
                    .collect()
            })
            .collect();
        let mut sorted: Vec<usize> = (0..numbered.len()).collect();
        sorted.sort_by(|&a, &b| {
            let (a, b) = (numbered.get(a), numbered.get(b));
            a.map(Vec::len)
                .cmp(&b.map(Vec::len))
                .then_with(|| a.cmp(&b))
        });
        let mut order = Vec::with_capacity(sorted.len());
        let mut flat = Vec::with_capacity(numbered.iter().map(Vec::len).sum());
        let mut previous: &[u32] = &[];
        for &k in &sorted {
            let text = numbered.get(k).map_or(&[][..], Vec::as_slice);
            let shared = if text.len() == previous.len() {
                text.iter()
                    .zip(previous)
                    .take_while(|(a, b)| a == b)
                    .count()
            } else {
                0
            };
            order.push(Sorted {
                index: k,
                start: flat.len(),
                len: text.len(),
                shared,
            });
            flat.extend_from_slice(text);
            previous = text;
        }
        let pattern = vec![0; alphabet.len()];
        Self {
            alphabet,
            numbered: flat,
            pattern,
            order,
        }
    }

    /// The Jaro similarity of `gold` to each candidate (in the order given to
    /// [`Jaro::new`], which `texts` repeats), appended to `out`.
    fn extend_row(&mut self, gold: &[u32], texts: &[&[u32]], out: &mut Vec<f64>) {
        self.pattern.fill(0);
        for (position, c) in gold.iter().take(64).enumerate() {
            if let Ok(k) = self.alphabet.binary_search(c) {
                if let Some(bits) = self.pattern.get_mut(k) {
                    *bits |= 1 << position;
                }
            }
        }
        let start = out.len();
        out.resize(start + self.order.len(), 0.0);
        let mut slow: Option<jaro::BatchComparator<u32>> = None;
        let mut prefixes = [Flags::default(); 65];
        let mut looks = [0u64; 64];
        let mut ratios = Ratios::default();
        for &Sorted {
            index: k,
            start: from,
            len,
            shared,
        } in &self.order
        {
            let Some(candidate) = self.numbered.get(from..from + len) else {
                continue;
            };
            let value = match word_jaro(
                &self.pattern,
                gold,
                candidate,
                (&mut prefixes, &mut looks),
                shared,
                &mut ratios,
            ) {
                Some(value) => value,
                None => {
                    let Some(text) = texts.get(k) else {
                        continue;
                    };
                    slow.get_or_insert_with(|| jaro::BatchComparator::new(gold.iter().copied()))
                        .similarity(text.iter().copied())
                }
            };
            if let Some(cell) = out.get_mut(start + k) {
                *cell = value;
            }
        }
    }
}

/// The matching loop's state after a window prefix.
#[derive(Clone, Copy, Default)]
struct Flags {
    /// The gold positions matched.
    gold: u64,
    /// The window positions matched.
    window: u64,
    /// The gold positions the next window position may match.
    bound_mask: u64,
}

/// The similarity from the counts of common characters and transpositions, for
/// one pair of lengths at a time: the candidates come sorted by length, and their
/// counts repeat, so each pair of counts' three divisions are made once per length.
#[derive(Default)]
struct Ratios {
    /// The lengths (gold, candidate) the values are for.
    lengths: (usize, usize),
    /// The transpositions' range (at most half the common characters, plus one).
    width: usize,
    /// By `common * width + transpositions`; NaN where not yet computed (a
    /// similarity is never NaN).
    values: Vec<f64>,
}

impl Ratios {
    fn similarity(&mut self, lengths: (usize, usize), common: usize, transpositions: usize) -> f64 {
        if lengths != self.lengths || self.values.is_empty() {
            let most = lengths.0.min(lengths.1).min(64);
            self.lengths = lengths;
            self.width = most / 2 + 1;
            self.values.clear();
            self.values.resize((most + 1) * self.width, f64::NAN);
        }
        let slot = (transpositions < self.width)
            .then(|| self.values.get_mut(common * self.width + transpositions))
            .flatten();
        match slot {
            Some(value) if !value.is_nan() => *value,
            Some(value) => {
                *value = jaro_of(lengths, common, transpositions);
                *value
            }
            None => jaro_of(lengths, common, transpositions),
        }
    }
}

/// rapidfuzz's similarity from the counts, its float operations in its order.
fn jaro_of((len1, len2): (usize, usize), common: usize, transpositions: usize) -> f64 {
    let mut sim = 0.0;
    sim += common as f64 / len1 as f64;
    sim += common as f64 / len2 as f64;
    sim += (common as f64 - transpositions as f64) / common as f64;
    sim / 3.0
}

/// rapidfuzz's `similarity_with_pm` (score cutoff 0) for a window within one word,
/// or `None` beyond. `prefixes[p]` is the state after the window's first `p`
/// characters and `looks[j]` the gold positions of window character `j`; those of
/// the first `shared` characters are taken as they are (left by a candidate of the
/// same length with that prefix), the others are written.
fn word_jaro(
    pattern: &[u64],
    gold: &[u32],
    candidate: &[u32],
    (prefixes, looks): (&mut [Flags; 65], &mut [u64; 64]),
    shared: usize,
    ratios: &mut Ratios,
) -> Option<f64> {
    let (len1_orig, len2_orig) = (gold.len(), candidate.len());
    if len1_orig == 0 && len2_orig == 0 {
        return Some(1.0);
    }
    if len1_orig == 0 || len2_orig == 0 {
        return Some(0.0); // the length filter
    }
    let look = |c: u32| pattern.get(c as usize).copied().unwrap_or(0);
    if len1_orig == 1 && len2_orig == 1 {
        // one character each: equal or not (a gold character outside the
        // candidates' alphabet has no bit, and equals no candidate's)
        let first = candidate.first().map_or(0, |&c| look(c));
        return Some(if first & 1 != 0 { 1.0 } else { 0.0 });
    }
    let (mut len1, mut len2) = (len1_orig, len2_orig);
    let bound;
    if len2 > len1 {
        bound = len2 / 2 - 1;
        len2 = len2.min(len1 + bound);
    } else {
        bound = len1 / 2 - 1;
        len1 = len1.min(len2 + bound);
    }
    if len1 > 64 || len2 > 64 {
        return None;
    }
    let window = candidate.get(..len2)?;
    let from = shared.min(window.len());
    if from == 0 {
        let bound_mask = if bound + 1 >= 64 {
            u64::MAX
        } else {
            (1 << (bound + 1)) - 1
        };
        *prefixes.first_mut()? = Flags {
            gold: 0,
            window: 0,
            bound_mask,
        };
    }
    let mut state = *prefixes.get(from)?;
    for (j, &c) in window.iter().enumerate().skip(from) {
        let positions = look(c);
        *looks.get_mut(j)? = positions;
        let pm_j = positions & state.bound_mask & !state.gold;
        state.gold |= pm_j & pm_j.wrapping_neg();
        state.window |= u64::from(pm_j != 0) << j;
        state.bound_mask = if j < bound {
            (state.bound_mask << 1) | 1
        } else {
            state.bound_mask << 1
        };
        *prefixes.get_mut(j + 1)? = state;
    }
    let (mut p_flag, mut t_flag) = (state.gold, state.window);
    let common = p_flag.count_ones() as usize;
    if common == 0 {
        return Some(0.0); // the common character filter
    }
    let mut transpositions = 0usize;
    while t_flag != 0 {
        let j = t_flag.trailing_zeros() as usize;
        let lowest = p_flag & p_flag.wrapping_neg();
        transpositions += usize::from(looks.get(j)? & lowest == 0);
        t_flag &= t_flag - 1;
        p_flag ^= lowest;
    }
    transpositions /= 2;
    Some(ratios.similarity((len1_orig, len2_orig), common, transpositions))
}

/// The texts of `values`, or `None` when one is not a text.
fn texts<V: Borrow<Value>>(values: &[V]) -> Option<Vec<&[u32]>> {
    values
        .iter()
        .map(|value| match value.borrow() {
            Value::Text(text) => Some(text.as_slice()),
            _ => None,
        })
        .collect()
}

/// The distinct texts of a list.
struct Distinct {
    /// Each text's first occurrence.
    first: Vec<usize>,
    /// Each text's number among the distinct texts.
    slot: Vec<usize>,
    /// The first occurrence of each distinct text, in order.
    leads: Vec<usize>,
}

impl Distinct {
    fn of(texts: &[&[u32]]) -> Self {
        let mut order: Vec<(&[u32], usize)> = texts.iter().copied().zip(0..).collect();
        // among equal texts the first occurrence sorts first
        order.sort_unstable();
        let mut first = vec![0usize; texts.len()];
        let mut lead: Option<(&[u32], usize)> = None;
        for (text, k) in order {
            let leader = match lead {
                Some((seen, leader)) if seen == text => leader,
                _ => k,
            };
            lead = Some((text, leader));
            if let Some(cell) = first.get_mut(k) {
                *cell = leader;
            }
        }
        let mut slot = Vec::with_capacity(texts.len());
        let mut leads = Vec::new();
        for (k, &leader) in first.iter().enumerate() {
            if leader == k {
                slot.push(leads.len());
                leads.push(k);
            } else {
                // a later occurrence: its leader, earlier, has its slot
                let number = slot.get(leader).copied().unwrap_or(0);
                slot.push(number);
            }
        }
        Self { first, slot, leads }
    }

    /// The distinct texts, in order.
    fn texts<'t>(&self, texts: &[&'t [u32]]) -> Vec<&'t [u32]> {
        self.leads
            .iter()
            .filter_map(|&k| texts.get(k).copied())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::StringMeasure;

    #[test]
    fn word_jaro_is_rapidfuzz_bit_for_bit() {
        // a small alphabet (many matches and transpositions), lengths across the
        // one-word limit, and characters only one side has
        let mut state: u64 = 7;
        let mut draw = |below: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % below
        };
        let mut texts: Vec<Vec<u32>> = Vec::new();
        for _ in 0..400 {
            let len = match draw(4) {
                0 => draw(4),
                1 => draw(12),
                2 => draw(40),
                _ => draw(140),
            };
            let letters = 2 + draw(5) as u32;
            texts.push(
                (0..len)
                    .map(|_| 97 + draw(u64::from(letters)) as u32)
                    .collect(),
            );
        }
        texts.push(vec![0x1F600, 97]);
        let candidates: Vec<&[u32]> = texts.iter().map(Vec::as_slice).collect();
        let mut fast = Jaro::new(candidates.get(..300).unwrap_or(&[]));
        let mut row = Vec::new();
        for gold in &candidates {
            row.clear();
            fast.extend_row(gold, candidates.get(..300).unwrap_or(&[]), &mut row);
            for (value, candidate) in row.iter().zip(&candidates) {
                let expected = StringMeasure::Jaro.similarity(gold, candidate);
                assert_eq!(
                    value.to_bits(),
                    expected.to_bits(),
                    "{gold:?} {candidate:?}"
                );
            }
        }
    }

    #[test]
    fn candidates_sharing_prefixes_are_rapidfuzz_bit_for_bit() {
        // names differing in their last characters, of a few lengths, and golds
        // whose windows cut the candidates short
        let mut texts: Vec<Vec<u32>> = Vec::new();
        for k in 0..300u32 {
            let name = format!("Person{:05}", k * 37 % 1000);
            texts.push(name.chars().map(u32::from).collect());
            if k % 7 == 0 {
                texts.push(format!("{name}x").chars().map(u32::from).collect());
                texts.push(format!("P{k}").chars().map(u32::from).collect());
            }
        }
        texts.push(Vec::new());
        texts.push(vec![80]);
        let candidates: Vec<&[u32]> = texts.iter().map(Vec::as_slice).collect();
        let mut fast = Jaro::new(&candidates);
        let golds: Vec<&[u32]> = candidates.iter().step_by(13).copied().collect();
        let mut row = Vec::new();
        for gold in golds {
            row.clear();
            fast.extend_row(gold, &candidates, &mut row);
            for (value, candidate) in row.iter().zip(&candidates) {
                let expected = StringMeasure::Jaro.similarity(gold, candidate);
                assert_eq!(
                    value.to_bits(),
                    expected.to_bits(),
                    "{gold:?} {candidate:?}"
                );
            }
        }
    }

    #[test]
    fn distinct_texts_every_pair_bit_for_bit() -> Result<(), CompareError> {
        let words = [
            "martha", "marhta", "", "dixon", "dicksonx", "martha", "jones",
        ];
        let word = |k: usize| Value::from(words.get(k % words.len()).copied().unwrap_or(""));
        let golds: Vec<Value> = (0..70).map(word).collect();
        let candidates: Vec<Value> = (0..90).map(|k| word(k * 3)).collect();
        let externals = Externals::default();
        for comparator in Comparator::ALL {
            if !comparator.compares(crate::compare::Kind::String) {
                continue;
            }
            let out = text_matrix(comparator, &externals, &golds, &candidates)?
                .ok_or(CompareError::IntegerTooLarge)?;
            // borrowed values: the same matrix
            let (gold_refs, cand_refs): (Vec<&Value>, Vec<&Value>) =
                (golds.iter().collect(), candidates.iter().collect());
            assert_eq!(
                text_matrix(comparator, &externals, &gold_refs, &cand_refs)?.as_ref(),
                Some(&out)
            );
            let mut k = 0;
            for g in &golds {
                for c in &candidates {
                    let one = comparator.scalar(&externals, g, c)?;
                    assert_eq!(out.get(k).map(|v| v.to_bits()), Some(one.to_bits()));
                    k += 1;
                }
            }
        }
        let few = [Value::from("a")];
        let jaro = Comparator::String(StringMeasure::Jaro);
        assert_eq!(text_matrix(jaro, &externals, &few, &few)?, None);
        let numbers = vec![Value::Boolean(true); 100];
        assert_eq!(
            text_matrix(Comparator::Exact, &externals, &numbers, &numbers)?,
            None
        );
        Ok(())
    }
}
