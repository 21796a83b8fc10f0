//! Indices marked once each, however often the ranges asked to mark overlap: a later compaction
//! whose range covers an earlier one's again costs only the turns it adds. (A log whose every
//! condensation forgot from one start was quadratic in three places.)

/// The indices `0..n`, each either marked or not; finding the next unmarked one is amortized
/// near-constant (a union-find whose pointers skip marked runs, path-halved).
pub struct Marks {
    /// `next[i]`: an index at or after `i` not yet marked (`n` when none is).
    next: Vec<usize>,
}

impl Marks {
    pub fn new(n: usize) -> Marks {
        Marks {
            next: (0..=n).collect(),
        }
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.next[i] != i {
            self.next[i] = self.next[self.next[i]];
            i = self.next[i];
        }
        i
    }

    /// Marks `first..=last` (clamped to `0..n`); returns the runs of it that were not marked
    /// before, in order.
    pub fn mark(&mut self, first: usize, last: usize) -> Vec<(usize, usize)> {
        let n = self.next.len() - 1;
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut i = self.find(first.min(n));
        while i < n && i <= last {
            match runs.last_mut() {
                Some((_, b)) if *b + 1 == i => *b = i,
                _ => runs.push((i, i)),
            }
            self.next[i] = i + 1;
            i = self.find(i + 1);
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::Marks;

    proptest::proptest! {
        /// Each range marks exactly its indices not marked by an earlier one.
        #[test]
        fn marks_what_no_earlier_range_marked(
            n in 0usize..40,
            ranges in proptest::collection::vec((0usize..45, 0usize..45), 0..12),
        ) {
            let mut marks = Marks::new(n);
            let mut seen = vec![false; n];
            for (a, b) in ranges {
                let runs = marks.mark(a, b);
                let got: Vec<usize> = runs.iter().flat_map(|&(s, e)| s..=e).collect();
                let want: Vec<usize> = (a..=b).filter(|&i| i < n && !seen[i]).collect();
                proptest::prop_assert_eq!(&got, &want);
                // Runs are maximal: none touches the next.
                proptest::prop_assert!(runs.windows(2).all(|w| w[0].1 + 1 < w[1].0));
                for i in want {
                    seen[i] = true;
                }
            }
        }
    }
}
