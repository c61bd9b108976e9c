//! The distinct values of a score matrix, sorted, and each cell's rank among them
//! (`np.unique` and `np.searchsorted`), found in one pass over the cells.
//!
//! A score matrix of a big scope holds few distinct values among many cells (the
//! scores of a few hundred string lengths and match counts): a hash table of their
//! bits finds them without sorting every cell, and gives a cell's rank in one probe
//! instead of a binary search. A matrix holding a NaN (never a score, but reachable
//! through the public solvers) is sorted as before, whose order places NaNs apart.

use super::error::AlignError;

/// The multiplier of the table's hash (2^64 / golden ratio): consecutive scores'
/// bits, which differ in their low bits, spread over the table.
const SPREAD: u64 = 0x9E37_79B9_7F4A_7C15;

/// Below this many cells a sort is cheaper than a table (a small scope's matrix).
const HASHED_FROM_CELLS: usize = 1024;

/// The bits of -0.0.
const NEGATIVE_ZERO: u64 = 0x8000_0000_0000_0000;

/// The sorted distinct values of some cells, with the rank of each.
#[derive(Debug, Clone)]
pub(crate) struct Distinct {
    /// Sorted; -0.0 and 0.0 are one value (the first met in sorted order, -0.0).
    values: Vec<f64>,
    /// Open addressing on the values' bits (-0.0 stored as 0.0): (bits, rank + 1),
    /// rank + 1 == 0 marking an empty slot. `None` when a NaN was met.
    table: Option<Table>,
}

#[derive(Debug, Clone)]
struct Table {
    slots: Vec<(u64, u32)>,
    shift: u32,
}

impl Table {
    fn with_capacity(count: usize) -> Self {
        let size = (count.max(4) * 2).next_power_of_two();
        Self {
            slots: vec![(0, 0); size],
            shift: 64 - size.trailing_zeros(),
        }
    }

    /// The slot holding `bits`, or the empty slot where they go.
    fn slot(&self, bits: u64) -> usize {
        let mask = self.slots.len() - 1;
        // the top bits of the product, the best mixed
        let mut k = (bits.wrapping_mul(SPREAD) >> self.shift) as usize;
        loop {
            match self.slots.get(k & mask) {
                Some(&(stored, mark)) if mark != 0 && stored != bits => k = (k & mask) + 1,
                _ => return k & mask,
            }
        }
    }
}

/// The bits a value is stored under: -0.0 and 0.0 are one value.
fn key(value: f64) -> u64 {
    (value + 0.0).to_bits()
}

impl Distinct {
    /// The distinct values of `cells`.
    pub(crate) fn of(cells: &[f64]) -> Self {
        if cells.len() < HASHED_FROM_CELLS {
            return Self::sorted(cells);
        }
        let mut table = Table::with_capacity(64);
        let mut found: Vec<f64> = Vec::new();
        let mut negative_zero = false;
        for &value in cells {
            negative_zero |= value.to_bits() == NEGATIVE_ZERO;
            if value.is_nan() {
                return Self::sorted(cells);
            }
            let bits = key(value);
            let k = table.slot(bits);
            let Some(slot) = table.slots.get_mut(k) else {
                return Self::sorted(cells);
            };
            if slot.1 == 0 {
                *slot = (bits, 1);
                found.push(value);
                if found.len() * 2 > table.slots.len() {
                    table = Table::with_capacity(found.len() * 2);
                    for &seen in &found {
                        let k = table.slot(key(seen));
                        if let Some(slot) = table.slots.get_mut(k) {
                            *slot = (key(seen), 1);
                        }
                    }
                }
            }
        }
        // -0.0 sorts before 0.0 and is the one kept, as a sort and dedup keeps it
        for value in &mut found {
            if *value == 0.0 && negative_zero {
                *value = -0.0;
            }
        }
        found.sort_unstable_by(f64::total_cmp);
        let Ok(_) = u32::try_from(found.len()) else {
            return Self::sorted(cells);
        };
        for (rank, &value) in found.iter().enumerate() {
            let k = table.slot(key(value));
            if let Some(slot) = table.slots.get_mut(k) {
                // fits: checked above
                *slot = (key(value), rank as u32 + 1);
            }
        }
        Self {
            values: found,
            table: Some(table),
        }
    }

    /// Every cell sorted, then deduplicated (the reference algorithm).
    fn sorted(cells: &[f64]) -> Self {
        let mut values = cells.to_vec();
        values.sort_unstable_by(f64::total_cmp);
        values.dedup_by(|a, b| a == b);
        Self {
            values,
            table: None,
        }
    }

    /// The distinct values, sorted.
    pub(crate) fn values(&self) -> &[f64] {
        &self.values
    }

    /// How many distinct values are below `value` (`np.searchsorted`, left).
    pub(crate) fn rank(&self, value: f64) -> Result<usize, AlignError> {
        match &self.table {
            Some(table) => {
                let bits = key(value);
                match table.slots.get(table.slot(bits)) {
                    Some(&(stored, mark)) if mark != 0 && stored == bits => Ok(mark as usize - 1),
                    _ => Err(AlignError::Internal("a value outside the matrix")),
                }
            }
            None => Ok(self.values.partition_point(|&d| d < value)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: sort every cell, deduplicate, binary search.
    fn reference(cells: &[f64]) -> Vec<f64> {
        Distinct::sorted(cells).values
    }

    #[test]
    fn values_and_ranks_match_the_sort() -> Result<(), AlignError> {
        let mut cells: Vec<f64> = (0..5000).map(|k| f64::from(k % 997) / 7.0).collect();
        assert!(cells.len() >= HASHED_FROM_CELLS);
        cells.extend([-0.0, 0.0, -1.5, 1e300, -1e-300, 0.0]);
        let found = Distinct::of(&cells);
        assert!(found.table.is_some());
        let expected = reference(&cells);
        assert_eq!(found.values().len(), expected.len());
        for (a, b) in found.values().iter().zip(&expected) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
        for &c in &cells {
            assert_eq!(found.rank(c)?, expected.partition_point(|&d| d < c));
        }
        let zeros = Distinct::of(&[0.0, -0.0]);
        assert_eq!(
            zeros.values().first().map(|v| v.to_bits()),
            Some(NEGATIVE_ZERO)
        );
        assert!(found.rank(0.123_456).is_err());
        Ok(())
    }

    #[test]
    fn a_nan_sorts_every_cell() -> Result<(), AlignError> {
        let mut cells = vec![1.0, f64::NAN, 0.5, f64::NAN];
        cells.extend((0..HASHED_FROM_CELLS).map(|_| 1.0));
        let found = Distinct::of(&cells);
        assert!(found.table.is_none());
        assert_eq!(found.values().len(), 4);
        assert_eq!(found.rank(0.75)?, 1);
        assert!(Distinct::of(&[]).values().is_empty());
        Ok(())
    }
}
