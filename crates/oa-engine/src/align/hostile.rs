//! Hostile inputs for every solver: NaN, infinities, extremes, empty and mis-shaped
//! matrices, bad indices. Each call must return `Ok` with pairs in range or an
//! `Err`, never panic (debug builds also check every integer operation).

use std::collections::BTreeMap;

use super::*;

/// xorshift64: a fixed stream of test values (no dependency, no seed from the clock);
/// the tie policy's hostile tests draw from it too.
pub(super) struct Stream(pub(super) u64);

impl Stream {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub(super) fn pick<T: Copy>(&mut self, values: &[T]) -> T {
        let k = self.below(values.len());
        values
            .get(k)
            .copied()
            .unwrap_or_else(|| panic!("empty pick"))
    }
}

const FLOATS: [f64; 11] = [
    0.0,
    0.5,
    1.0,
    -0.0,
    0.25,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1e308,
    -1e308,
    5e-324,
];
const INTS: [i64; 6] = [0, 1, 2, -1, i64::MAX, i64::MIN];

fn floats(stream: &mut Stream, n: usize, m: usize, hostile: bool) -> Matrix<f64> {
    let pool = if hostile { &FLOATS[..] } else { &FLOATS[..5] };
    let cells = (0..n * m).map(|_| stream.pick(pool)).collect();
    Matrix::new(n, m, cells).unwrap_or_else(|e| panic!("{e}"))
}

fn check_pairs(pairs: &[(usize, usize)], n: usize, m: usize) {
    let rows: std::collections::BTreeSet<_> = pairs.iter().map(|p| p.0).collect();
    let cols: std::collections::BTreeSet<_> = pairs.iter().map(|p| p.1).collect();
    assert!(pairs.iter().all(|&(i, j)| i < n && j < m));
    assert_eq!((rows.len(), cols.len()), (pairs.len(), pairs.len()));
}

/// A dynamic level of random values and, now and then, a wrong shape.
struct Noise(Stream);

impl DynamicLevel for Noise {
    fn values(
        &mut self,
        _: &BTreeMap<usize, usize>,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<Matrix<f64>, AlignError> {
        let n = if self.0.below(20) == 0 {
            rows.len() + 1
        } else {
            rows.len()
        };
        let cells = (0..n * cols.len()).map(|_| self.0.pick(&FLOATS)).collect();
        Matrix::new(n, cols.len(), cells)
    }
}

#[test]
fn no_input_makes_a_solver_panic() {
    let mut stream = Stream(0x9E37_79B9_7F4A_7C15);
    for round in 0..3000 {
        let (n, m) = (stream.below(7), stream.below(7));
        let hostile = round % 3 == 0;
        let matrix = floats(&mut stream, n, m, hostile);
        for maximize in [false, true] {
            if let Ok(pairs) = linear_sum_assignment(&matrix, maximize) {
                check_pairs(&pairs, n, m);
            }
        }
        let bonus = floats(&mut stream, n, m, hostile);
        for extra in [None, Some(&bonus)] {
            if let Ok(pairs) = max_weight_matching(&matrix, extra) {
                check_pairs(&pairs, n, m);
            }
        }
        let colours: Vec<i64> = (0..n + stream.below(2))
            .map(|_| stream.pick(&INTS))
            .collect();
        let col_colours: Vec<i64> = (0..m).map(|_| stream.pick(&INTS)).collect();
        if let Ok(pairs) = canonical_matching(&matrix, Some(&bonus), 0.5, &colours, &col_colours) {
            check_pairs(&pairs, n, m);
        }
        if let Ok(pairs) = monotone_matching(&matrix) {
            check_pairs(&pairs, n, m);
        }
        let _ = tie_epsilon(&matrix);
        for axis in [Axis::Rows, Axis::Columns] {
            assert!(twin_groups(&matrix, axis).is_ok());
        }
        let labels = Matrix::new(n, m, (0..n * m).map(|_| stream.pick(&INTS)).collect())
            .unwrap_or_else(|e| panic!("{e}"));
        if let Ok((rows, cols)) = bipartite_colours(&labels, &colours, &col_colours) {
            assert_eq!((rows.len(), cols.len()), (n, m));
        }
        let vertices = n + m;
        let edges: Vec<WlEdge> = (0..stream.below(12))
            .map(|_| WlEdge {
                source: stream.below(vertices + 1),
                target: stream.below(vertices + 1),
                relation: stream.pick(&["a", "b", "é"]).to_owned(),
                label: String::new(),
            })
            .collect();
        let seeds: Vec<i64> = (0..vertices).map(|_| stream.pick(&INTS)).collect();
        if let Ok(rounds) = refine(vertices, &edges, &seeds) {
            assert!(rounds.iter().all(|r| r.len() == vertices));
        }
        let mut pairs = linear_sum_assignment(&floats(&mut stream, n, m, false), true)
            .unwrap_or_else(|e| panic!("{e}"));
        let foreign = round % 7 == 0; // a pair outside the matrix, from a careless caller
        if foreign {
            pairs.push((n + 3, m));
        }
        let mut noise = Noise(Stream(stream.next() | 1));
        let mut levels = [Level::Static(bonus.clone()), Level::Dynamic(&mut noise)];
        let ones = Matrix::new(n, m, vec![1.0; n * m]).unwrap_or_else(|e| panic!("{e}"));
        let row_colours: Vec<i64> = (0..n).map(|_| stream.pick(&INTS)).collect();
        if let Ok((repaired, _)) =
            repair_twins(&pairs, &ones, &mut levels, &row_colours, &col_colours, 2)
        {
            if !foreign {
                check_pairs(&repaired, n, m);
            }
        }
    }
}
