//! The rows of an OVER aggregation waiting for the watermark, taken out
//! earliest rowtime first and, at one rowtime, in arrival order.
//!
//! A row arrives at most the watermark delay ahead of the rows going out,
//! and the watermark moves a little at nearly every row, so thousands of
//! rows wait and one or two go out at a time. A binary heap sifted through
//! a dozen levels for every row (13.5 % of OVER 10 rows in the benchmark).
//! Here a radix heap keyed by rowtime, 256 ways at each byte, holds them:
//! a row goes into the bucket named by the highest byte in which its
//! rowtime differs from `last` (the last rowtime taken out, or the
//! earliest waiting once looked for) and its own value of that byte
//! (bucket 0: the same rowtime). Buckets in that order hold ever later
//! rows, so taking the earliest rowtime empties the lowest bucket in use
//! into lower buckets, measured from its earliest rowtime: a row moves
//! down at most once per byte (twice for the benchmark's 2-second delay)
//! and is never compared with the rows of other buckets. Buckets keep the
//! order rows came in, and a bucket is only ever emptied into empty
//! buckets, so the rows of one rowtime stay in arrival order. (Sixteen
//! ways at each hex digit moved a row three times there, and the heap
//! took a fifth more instructions.)
//!
//! (The `radix-heap` crate was measured first: it has no way to look at
//! the earliest row without taking it and scans every bucket to find the
//! lowest in use, and cost as much as the binary heap.)
//!
//! A radix heap takes only rows at or after `last`. A row accepted behind
//! it (behind the watermark, after its key's last emitted row) waits in a
//! small binary heap beside it; every row there goes out before any row
//! of the radix heap.

use crate::store::RowRef;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A waiting row: its rowtime, arrival number, key and where it is stored.
pub(crate) type Waiting = (i64, u64, u32, RowRef);

/// A row in a bucket: its rowtime as an unsigned number in the same order
/// ([`order`]), then as [`Waiting`].
type Entry = (u64, u64, u32, RowRef);

/// Bucket 0, then per byte of a rowtime (lowest first) one per value.
const BUCKETS: usize = 1 + 8 * 256;

/// The most rows an emptied bucket keeps room for.
const KEPT_ROOM: usize = 64;

/// The rowtime with its sign bit flipped: unsigned order is time order.
fn order(rowtime: i64) -> u64 {
    (rowtime as u64) ^ (1 << 63)
}

fn rowtime(order: u64) -> i64 {
    (order ^ (1 << 63)) as i64
}

pub(crate) struct Pending {
    /// The last rowtime taken out, or the earliest waiting once
    /// [`Pending::earliest`] looked for it (as [`order`]); every row in
    /// the buckets is at or after it.
    last: u64,
    buckets: Vec<Vec<Entry>>,
    /// Bit `b % 64` of word `b / 64` set: bucket `b` holds rows.
    occupied: [u64; BUCKETS.div_ceil(64)],
    /// Rows behind `last`, earliest (rowtime, arrival) first.
    behind: BinaryHeap<Reverse<Waiting>>,
    len: usize,
}

impl Default for Pending {
    fn default() -> Self {
        Pending {
            last: 0,
            buckets: vec![Vec::new(); BUCKETS],
            occupied: [0; BUCKETS.div_ceil(64)],
            behind: BinaryHeap::new(),
            len: 0,
        }
    }
}

impl Pending {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The bucket of a row at `order`, at or after `last`.
    #[inline]
    fn bucket(&self, order: u64) -> usize {
        let differ = order ^ self.last;
        if differ == 0 {
            return 0;
        }
        let digit = (63 - differ.leading_zeros()) / 8;
        let value = (order >> (digit * 8)) & 0xff;
        1 + (digit * 256) as usize + value as usize
    }

    #[inline]
    fn file(&mut self, entry: Entry) {
        let b = self.bucket(entry.0);
        self.buckets[b].push(entry);
        self.occupied[b / 64] |= 1 << (b % 64);
    }

    /// The lowest bucket holding rows.
    fn lowest(&self) -> Option<usize> {
        let (word, bits) = self
            .occupied
            .iter()
            .enumerate()
            .find(|(_, bits)| **bits != 0)?;
        Some(word * 64 + bits.trailing_zeros() as usize)
    }

    /// Adds a row; rows are added in arrival order.
    pub(crate) fn push(&mut self, rowtime: i64, seq: u64, key: u32, row: RowRef) {
        self.len += 1;
        let at = order(rowtime);
        if at < self.last {
            self.behind.push(Reverse((rowtime, seq, key, row)));
        } else {
            self.file((at, seq, key, row));
        }
    }

    /// The earliest rowtime waiting. When it is in the radix heap, its
    /// rows are in bucket 0 after this.
    pub(crate) fn earliest(&mut self) -> Option<i64> {
        if let Some(Reverse((rowtime, ..))) = self.behind.peek() {
            return Some(*rowtime);
        }
        let lowest = self.lowest()?;
        if lowest != 0 {
            // The lowest bucket in use holds the earliest row: it becomes
            // the new `last`, and the bucket's rows all go lower.
            let mut moving = std::mem::take(&mut self.buckets[lowest]);
            self.occupied[lowest / 64] &= !(1 << (lowest % 64));
            self.last = moving.iter().map(|e| e.0).min()?;
            for entry in moving.drain(..) {
                self.file(entry);
            }
            // The emptied vector keeps its room for the bucket, unless
            // that is large: most of the 2,049 buckets are used now and
            // then, and each keeping the room it once needed held
            // megabytes.
            if moving.capacity() <= KEPT_ROOM {
                self.buckets[lowest] = moving;
            }
        }
        Some(rowtime(self.last))
    }

    /// When the earliest rowtime waiting is at or before `watermark`:
    /// its rows, in arrival order, into `due` (key and row), and the
    /// rowtime.
    pub(crate) fn take_due(&mut self, watermark: i64, due: &mut Vec<(u32, RowRef)>) -> Option<i64> {
        due.clear();
        let at = self.earliest().filter(|at| *at <= watermark)?;
        if self.behind.peek().is_some() {
            while self.behind.peek().is_some_and(|Reverse(w)| w.0 == at) {
                if let Some(Reverse((_, _, key, row))) = self.behind.pop() {
                    due.push((key, row));
                }
            }
        } else {
            due.extend(self.buckets[0].drain(..).map(|(_, _, key, row)| (key, row)));
            self.occupied[0] &= !1;
        }
        self.len -= due.len();
        Some(at)
    }

    /// Every row waiting, in (rowtime, arrival) order.
    pub(crate) fn sorted(&self) -> Vec<Waiting> {
        let mut all: Vec<Waiting> = self.behind.iter().map(|Reverse(w)| *w).collect();
        all.extend(
            self.buckets
                .iter()
                .flatten()
                .map(|(at, seq, key, row)| (rowtime(*at), *seq, *key, *row)),
        );
        all.sort_unstable();
        all
    }

    /// Rows waiting, in (rowtime, arrival) order, as [`Pending::sorted`]
    /// gives them (a checkpoint's, or the same rows stored elsewhere).
    pub(crate) fn from_sorted(rows: impl IntoIterator<Item = Waiting>) -> Self {
        let mut pending = Pending::default();
        for (rowtime, seq, key, row) in rows {
            pending.push(rowtime, seq, key, row);
        }
        pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows out of order, with many ties and rows accepted behind the last
    /// one taken, rowtimes apart by milliseconds or by spans that reach
    /// the second and third bytes, come out as the model says: at each advance of the
    /// watermark, every row waiting at or before it, by (rowtime,
    /// arrival). Rebuilding from the sorted rows (a checkpoint) keeps it.
    #[test]
    fn rows_come_out_by_rowtime_then_arrival() {
        for scale in [1, 300, 70_001] {
            rows_come_out_in_order_at(scale);
        }
    }

    /// [`rows_come_out_by_rowtime_then_arrival`] with rowtimes `scale`
    /// milliseconds apart.
    fn rows_come_out_in_order_at(scale: i64) {
        let row = RowRef::default();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut pending = Pending::default();
        let mut waiting: Vec<(i64, u64, u32)> = Vec::new();
        let (mut taken, mut expected) = (Vec::new(), Vec::new());
        let mut watermark = -50;
        let mut behind = 0;
        for seq in 0..5_000 {
            // Mostly ahead of the watermark, some behind it; few distinct
            // rowtimes, so that many rows tie.
            let rowtime = watermark + (next(60) as i64 - 10) * scale;
            let key = next(5) as u32;
            if order(rowtime) < pending.last {
                behind += 1;
            }
            pending.push(rowtime, seq, key, row);
            waiting.push((rowtime, seq, key));
            if next(3) == 0 {
                watermark += next(8) as i64 * scale;
                let mut due = Vec::new();
                while let Some(at) = pending.take_due(watermark, &mut due) {
                    taken.extend(due.iter().map(|(key, _)| (at, *key)));
                }
                assert!(pending.earliest().is_none_or(|at| at > watermark));
                waiting.sort_unstable();
                let out = waiting.partition_point(|(t, ..)| *t <= watermark);
                expected.extend(waiting.drain(..out).map(|(t, _, key)| (t, key)));
            }
            if next(500) == 0 {
                pending = Pending::from_sorted(pending.sorted());
            }
            assert_eq!(pending.len(), waiting.len());
        }
        let mut due = Vec::new();
        while let Some(at) = pending.take_due(i64::MAX, &mut due) {
            taken.extend(due.iter().map(|(key, _)| (at, *key)));
        }
        waiting.sort_unstable();
        expected.extend(waiting.iter().map(|(t, _, key)| (*t, *key)));
        assert!(behind > 100, "only {behind} rows went behind the heap");
        assert_eq!(pending.len(), 0);
        assert_eq!(taken, expected);
    }

    /// Rowtimes across the whole range, either sign, pushed in any order
    /// with ties, come out sorted by (rowtime, arrival).
    #[test]
    fn rowtimes_at_the_ends_of_the_range_order_as_numbers() {
        let times = [i64::MAX, 0, i64::MIN, -1, 1_700_000_000_000, 1, -5_000];
        let mut pending = Pending::default();
        let mut expected = Vec::new();
        for (seq, rowtime) in times.iter().chain(&times).enumerate() {
            pending.push(*rowtime, seq as u64, seq as u32, RowRef::default());
            expected.push((*rowtime, seq as u32));
        }
        expected.sort_unstable();
        let mut taken = Vec::new();
        let mut due = Vec::new();
        while let Some(at) = pending.take_due(i64::MAX, &mut due) {
            taken.extend(due.iter().map(|(key, _)| (at, *key)));
        }
        assert_eq!(taken, expected);
    }
}
