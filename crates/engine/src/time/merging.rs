//! Merging windows: the piece of the event-time engine that keeps, per
//! key, disjoint intervals and tells which of them a new interval joins.
//!
//! SESSION windows are built on it: a row's `[ts, ts + gap)` merges with
//! every open session it overlaps or touches, and the union is the new
//! session. Intervals are half-open; touching (`end == start`) counts as
//! joining, as in Flink.

use std::collections::BTreeMap;

/// Something stored per interval: it must know where it ends.
pub trait Interval {
    fn end(&self) -> i64;
}

/// What adding `[start, end)` to a key's intervals would give.
#[derive(Debug, PartialEq, Eq)]
pub struct Merge {
    /// The union of the new interval and the ones it joins.
    pub start: i64,
    pub end: i64,
    /// Starts of the intervals it joins, earliest first.
    pub joined: Vec<i64>,
}

/// How `[start, end)` merges into `open` (disjoint intervals by start).
/// Nothing changes: the caller removes `joined` and stores the union.
pub fn merge_into<T: Interval>(open: Option<&BTreeMap<i64, T>>, start: i64, end: i64) -> Merge {
    let Some(open) = open else {
        return Merge {
            start,
            end,
            joined: Vec::new(),
        };
    };
    // Disjoint and sorted by start, so also by end: the joined ones are a
    // run that ends at the last start not after `end`.
    let mut joined: Vec<i64> = open
        .range(..=end)
        .rev()
        .take_while(|(_, s)| s.end() >= start)
        .map(|(s, _)| *s)
        .collect();
    joined.reverse();
    let mut merged = Merge { start, end, joined };
    for s in &merged.joined {
        merged.start = merged.start.min(*s);
        merged.end = merged.end.max(open[s].end());
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Interval for i64 {
        fn end(&self) -> i64 {
            *self
        }
    }

    #[test]
    fn joins_overlapping_and_touching_intervals() {
        let open: BTreeMap<i64, i64> = [(1, 4), (6, 9), (12, 15)].into_iter().collect();
        let cases = [
            (
                (4, 7),
                Merge {
                    start: 1,
                    end: 9,
                    joined: vec![1, 6],
                },
            ),
            (
                (9, 12),
                Merge {
                    start: 6,
                    end: 15,
                    joined: vec![6, 12],
                },
            ),
            (
                (10, 11),
                Merge {
                    start: 10,
                    end: 11,
                    joined: vec![],
                },
            ),
            (
                (0, 20),
                Merge {
                    start: 0,
                    end: 20,
                    joined: vec![1, 6, 12],
                },
            ),
            (
                (-5, 0),
                Merge {
                    start: -5,
                    end: 0,
                    joined: vec![],
                },
            ),
            (
                (-5, 1),
                Merge {
                    start: -5,
                    end: 4,
                    joined: vec![1],
                },
            ),
        ];
        for ((start, end), want) in cases {
            assert_eq!(
                merge_into(Some(&open), start, end),
                want,
                "[{start}, {end})"
            );
        }
        assert_eq!(merge_into::<i64>(None, 3, 5).joined, Vec::<i64>::new());
    }
}
