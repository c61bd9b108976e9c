//! Hostile inputs for the tie policy (`pairing`, `structure`, `settle`): NaN and
//! infinite scores, huge and negative colours, edges to records that do not exist,
//! mis-shaped structures, pairs and ties out of range, NaN document scores. Each call
//! must return `Ok` with pairs in range or an `Err`, never panic.

use std::collections::BTreeSet;

use super::hostile::Stream;
use super::*;

const FLOATS: [f64; 8] = [0.0, 0.5, 1.0, -0.0, 0.25, f64::NAN, f64::INFINITY, 1e308];
const INTS: [i64; 7] = [0, 1, 2, -1, 7, i64::MAX, i64::MIN];

fn matrix<T: Copy>(stream: &mut Stream, n: usize, m: usize, pool: &[T]) -> Matrix<T> {
    let cells = (0..n * m).map(|_| stream.pick(pool)).collect();
    Matrix::new(n, m, cells).unwrap_or_else(|e| panic!("{e}"))
}

fn edges(stream: &mut Stream, count: usize) -> Vec<Vec<Incident>> {
    (0..count)
        .map(|_| {
            (0..stream.below(3))
                .map(|_| Incident {
                    kind: stream.below(3),
                    other: stream.pick(&INTS),
                })
                .collect()
        })
        .collect()
}

struct Keys(u64);

impl RecordKeys for Keys {
    fn keys(&mut self, _: bool, records: &[usize]) -> Result<Vec<RecordKey>, AlignError> {
        self.0 += 1;
        if self.0 % 17 == 0 {
            return Err(AlignError::Level);
        }
        // a short answer now and then: the length is checked
        let take = records.len().saturating_sub(usize::from(self.0 % 11 == 0));
        Ok(records
            .iter()
            .take(take)
            .map(|&k| (vec![(k % 2) as u8], Vec::new()))
            .collect())
    }
}

struct Scores(Stream);

impl DocumentScore for Scores {
    fn score(&mut self, _: &[(usize, usize)]) -> Result<f64, AlignError> {
        Ok(self.0.pick(&FLOATS))
    }

    fn alike(&mut self, trials: &[Vec<(usize, usize)>]) -> Result<Vec<usize>, AlignError> {
        // any classes, and a short answer now and then: the length is checked
        let take = trials
            .len()
            .saturating_sub(usize::from(self.0.below(11) == 0));
        Ok((0..take).map(|_| self.0.below(4)).collect())
    }
}

fn check(pairs: &[(usize, usize)], n: usize, m: usize) {
    let rows: BTreeSet<_> = pairs.iter().map(|p| p.0).collect();
    let cols: BTreeSet<_> = pairs.iter().map(|p| p.1).collect();
    assert!(pairs.iter().all(|&(i, j)| i < n && j < m));
    assert_eq!((rows.len(), cols.len()), (pairs.len(), pairs.len()));
}

#[test]
fn hostile_scopes_never_panic() {
    let mut stream = Stream(0x9E37_79B9_7F4A_7C15);
    let mut keys = Keys(0);
    let (mut paired_count, mut settled_count) = (0, 0);
    for round in 0..2_000 {
        let (n, m) = (stream.below(6), stream.below(6));
        let hostile = round % 3 == 0;
        let pool = if hostile { &FLOATS[..] } else { &FLOATS[..3] };
        let c = matrix(&mut stream, n, m, pool);
        let rounds = stream.below(3);
        // a structure of the wrong size now and then
        let (sn, sm) = if round % 7 == 0 {
            (stream.below(6), stream.below(6))
        } else {
            (n, m)
        };
        let gold = matrix(&mut stream, rounds, sn, &INTS);
        let candidate = matrix(&mut stream, rounds, sm, &INTS);
        let records = |stream: &mut Stream, count: usize| {
            (round % 5 == 0).then(|| (0..count).map(|_| stream.below(9)).collect())
        };
        let (gold_records, candidate_records) =
            (records(&mut stream, sn), records(&mut stream, sm));
        let (gold_edges, candidate_edges) = (edges(&mut stream, sn), edges(&mut stream, sm));
        let occurrences = |stream: &mut Stream, count: usize| {
            (0..count)
                .map(|_| stream.pick(&INTS[..5]))
                .collect::<Vec<i64>>()
        };
        let (gold_occurrences, candidate_occurrences) =
            (occurrences(&mut stream, sn), occurrences(&mut stream, sm));
        let structure = References::new(
            gold_edges,
            candidate_edges,
            gold_occurrences,
            candidate_occurrences,
            gold_records,
            candidate_records,
        )
        .and_then(|refs| Structure::new(&gold, &candidate, refs))
        .ok();
        let mode = match stream.below(3) {
            0 => WlMode::TieBreak,
            1 => WlMode::Blend,
            _ => WlMode::None,
        };
        let Ok(paired) = pair_scope(&c, mode, 0.5, structure, &mut keys) else {
            continue;
        };
        check(&paired.pairs, n, m);
        paired_count += 1;
        assert_eq!(paired.rules.len(), paired.pairs.len());
        assert_eq!((paired.rows.len(), paired.cols.len()), (n, m));
        // settle the pairing's ties, and pairs that are no pairs of it
        let mut ties = paired.label_ties.clone();
        if hostile {
            ties.push((stream.below(9), stream.below(9)));
        }
        let depth = matrix(&mut stream, n, m, &INTS);
        let kept = [c.clone(), matrix(&mut stream, n, m, &FLOATS[..2])];
        let ranked = [depth];
        let levels = Levels {
            kept: &kept,
            ranked: &ranked,
        };
        let order = Canonical {
            rows: &paired.rows,
            cols: &paired.cols,
        };
        let mut budget = Budget::default();
        let mut scores = Scores(Stream(stream.next() | 1));
        if let Ok((settled, _)) = settle_by_score(
            &paired.pairs,
            &ties,
            &levels,
            &mut scores,
            &mut budget,
            &order,
        ) {
            if !hostile {
                check(&settled, n, m);
            }
            settled_count += 1;
        }
    }
    // the stream reaches the rules, not only the refusals
    assert!(
        paired_count > 500 && settled_count > 300,
        "{paired_count} {settled_count}"
    );
}

#[test]
fn huge_empty_shapes_are_errors_or_empty() {
    let wide = Matrix::new(0, usize::MAX, Vec::<f64>::new()).unwrap_or_else(|e| panic!("{e}"));
    assert!(pair_scope(&wide, WlMode::None, 0.5, None, &mut Keys(0)).is_err());
    let rounds =
        Matrix::new(0, usize::MAX / 2, Vec::<i64>::new()).unwrap_or_else(|e| panic!("{e}"));
    let none = References::new(Vec::new(), Vec::new(), Vec::new(), Vec::new(), None, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(Structure::new(&rounds, &rounds, none).is_err());
    // no round and a huge number of gold records: an error, not an abort
    let gold = Matrix::new(0, usize::MAX / 2, Vec::<i64>::new()).unwrap_or_else(|e| panic!("{e}"));
    let candidate = Matrix::new(0, 0, Vec::<i64>::new()).unwrap_or_else(|e| panic!("{e}"));
    let none = References::new(Vec::new(), Vec::new(), Vec::new(), Vec::new(), None, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(Structure::new(&gold, &candidate, none).is_err());
}
