//! Merging windows: the piece of the event-time engine that keeps, per
//! key, disjoint intervals and tells which of them a new interval joins.
//!
//! SESSION windows are built on it: a row's `[ts, ts + gap)` merges with
//! every open session it overlaps or touches, and the union is the new
//! session. Intervals are half-open; touching (`end == start`) counts as
//! joining, as in Flink.

use std::ops::Range;

/// Something stored per interval: it must know where it ends.
pub trait Interval {
    fn end(&self) -> i64;
}

/// One key's disjoint intervals, by start. A sorted vector: a key has one
/// open session or a few, and a key of its own per row (a user or device
/// id) must not cost a tree node.
#[derive(Debug)]
pub struct Intervals<T> {
    by_start: Vec<(i64, T)>,
}

impl<T> Default for Intervals<T> {
    fn default() -> Self {
        Intervals {
            by_start: Vec::new(),
        }
    }
}

impl<T> Intervals<T> {
    pub fn is_empty(&self) -> bool {
        self.by_start.is_empty()
    }

    pub fn len(&self) -> usize {
        self.by_start.len()
    }

    fn position(&self, start: i64) -> Result<usize, usize> {
        self.by_start.binary_search_by_key(&start, |(s, _)| *s)
    }

    pub fn get_mut(&mut self, start: i64) -> Option<&mut T> {
        self.position(start).ok().map(|i| &mut self.by_start[i].1)
    }

    pub fn remove(&mut self, start: i64) -> Option<T> {
        self.position(start).ok().map(|i| self.by_start.remove(i).1)
    }

    /// Stores `value` at `start`, replacing what was there.
    pub fn insert(&mut self, start: i64, value: T) {
        match self.position(start) {
            Ok(i) => self.by_start[i].1 = value,
            Err(i) => self.by_start.insert(i, (start, value)),
        }
    }

    /// The interval at position `at` (by start, earliest first) and its
    /// start.
    pub fn at_mut(&mut self, at: usize) -> Option<(i64, &mut T)> {
        self.by_start.get_mut(at).map(|(s, v)| (*s, v))
    }

    /// The intervals at positions `run`, by start.
    pub fn run(&self, run: Range<usize>) -> impl Iterator<Item = (i64, &T)> {
        self.by_start[run].iter().map(|(s, v)| (*s, v))
    }

    /// Takes out the intervals at positions `run`, earliest first.
    pub fn take_run(&mut self, run: Range<usize>) -> impl Iterator<Item = (i64, T)> + '_ {
        self.by_start.drain(run)
    }

    /// The intervals by start, earliest first.
    pub fn iter(&self) -> impl Iterator<Item = (i64, &T)> {
        self.by_start.iter().map(|(s, v)| (*s, v))
    }

    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.by_start.iter().map(|(_, v)| v)
    }
}

/// What adding `[start, end)` to a key's intervals would give.
#[derive(Debug, PartialEq, Eq)]
pub struct Merge {
    /// The union of the new interval and the ones it joins.
    pub start: i64,
    pub end: i64,
    /// Positions of the intervals it joins among the key's (by start): a
    /// run, as they are disjoint. Valid until the intervals change.
    pub joined: Range<usize>,
}

/// How `[start, end)` merges into `open` (disjoint intervals by start).
/// Nothing changes: the caller removes `joined` and stores the union.
pub fn merge_into<T: Interval>(open: Option<&Intervals<T>>, start: i64, end: i64) -> Merge {
    let Some(open) = open else {
        return Merge {
            start,
            end,
            joined: 0..0,
        };
    };
    // Disjoint and sorted by start, so also by end: the joined ones are a
    // run that ends at the last start not after `end`.
    let last = open.by_start.partition_point(|(s, _)| *s <= end);
    let first = open.by_start[..last].partition_point(|(_, v)| v.end() < start);
    let joined = &open.by_start[first..last];
    Merge {
        start: joined.first().map_or(start, |(s, _)| start.min(*s)),
        end: joined.last().map_or(end, |(_, v)| end.max(v.end())),
        joined: first..last,
    }
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
        let mut open = Intervals::default();
        for (start, end) in [(12, 15), (1, 4), (6, 9)] {
            open.insert(start, end);
        }
        assert_eq!(open.iter().map(|(s, _)| s).collect::<Vec<_>>(), [1, 6, 12]);
        let cases = [
            (
                (4, 7),
                Merge {
                    start: 1,
                    end: 9,
                    joined: 0..2,
                },
            ),
            (
                (9, 12),
                Merge {
                    start: 6,
                    end: 15,
                    joined: 1..3,
                },
            ),
            (
                (10, 11),
                Merge {
                    start: 10,
                    end: 11,
                    joined: 2..2,
                },
            ),
            (
                (0, 20),
                Merge {
                    start: 0,
                    end: 20,
                    joined: 0..3,
                },
            ),
            (
                (-5, 0),
                Merge {
                    start: -5,
                    end: 0,
                    joined: 0..0,
                },
            ),
            (
                (-5, 1),
                Merge {
                    start: -5,
                    end: 4,
                    joined: 0..1,
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
        assert_eq!(merge_into::<i64>(None, 3, 5).joined, 0..0);
    }
}
