//! The rows of an OVER aggregation waiting for the watermark, taken out
//! earliest rowtime first and, at one rowtime, in arrival order.
//!
//! A row arrives at most the watermark delay ahead of the rows going out,
//! and the watermark moves a little at nearly every row, so thousands of
//! rows wait and one or two go out at a time. A binary heap sifted through
//! a dozen levels for every row (13.5 % of OVER 10 rows in the benchmark).
//! Here a radix heap keyed by rowtime holds them, measured from `last`
//! (the last rowtime taken out, or the earliest waiting once looked for;
//! every row in it is at or after `last`):
//!
//! - A row within the same 2^16 milliseconds as `last` (its rowtime
//!   differs from `last` only in the low 16 bits) goes into the bucket of
//!   its rowtime itself, one of 65,536: with a watermark delay of up to a
//!   minute most rows go there once and are taken out from there, never
//!   moved nor compared.
//! - A later row goes into the bucket named by the highest byte in which
//!   its rowtime differs from `last` and its own value of that byte.
//!
//! Buckets in that order hold ever later rows. When the lowest bucket in
//! use is one of the latter, its rows all go lower, measured from its
//! earliest rowtime (a row moves at most once per byte). Before, every
//! byte had 256 buckets and the benchmark's rows (a 2-second delay) moved
//! twice before they went out; the heap took about 250 instructions a row.
//!
//! A bucket is a list of its rows in arrival order, linked through one
//! vector of entries whose free places are used again, so that a bucket
//! costs 8 bytes whether it is used or not; a bucket is only ever emptied
//! into empty buckets, so the rows of one rowtime stay in arrival order.
//! A bitmap of the buckets in use and a bitmap of its words in use find
//! the lowest.
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

/// The low bits of a rowtime that have a bucket for each value.
const NEAR_BITS: u32 = 16;

/// Buckets of rows that differ from `last` only in the low bits.
const NEAR: usize = 1 << NEAR_BITS;

/// Buckets per byte above the low bits, one per value.
const FAR: usize = (64 - NEAR_BITS as usize) / 8 * 256;

const BUCKETS: usize = NEAR + FAR;

/// Free places in the entries kept however few rows wait; beyond them,
/// once three in four places are free, the rows are filed anew in
/// entries of their own number.
const KEPT_FREE: usize = 1 << 16;

/// Words of the bitmap of buckets in use.
const WORDS: usize = BUCKETS / 64;

/// A row in a bucket.
#[derive(Clone, Copy)]
struct Entry {
    /// Its rowtime as an unsigned number in the same order ([`order`]).
    at: u64,
    seq: u64,
    key: u32,
    /// The next row of its bucket (left as it was for the bucket's last,
    /// which the bucket's ends tell).
    next: u32,
    row: RowRef,
}

/// The rowtime with its sign bit flipped: unsigned order is time order.
fn order(rowtime: i64) -> u64 {
    (rowtime as u64) ^ (1 << 63)
}

fn rowtime(order: u64) -> i64 {
    (order ^ (1 << 63)) as i64
}

pub(crate) struct Pending {
    /// The last rowtime taken out, or the earliest waiting once
    /// [`Pending::earliest`] looked for it (as [`order`]).
    last: u64,
    /// Per bucket in use: its first and last entry.
    ends: Vec<[u32; 2]>,
    entries: Vec<Entry>,
    /// Places in `entries` free for the next row.
    free: Vec<u32>,
    /// Bit `b % 64` of word `b / 64` set: bucket `b` holds rows.
    occupied: Vec<u64>,
    /// Bit `w % 64` of word `w / 64` set: word `w` of `occupied` is not 0.
    words_used: [u64; WORDS.div_ceil(64)],
    /// Rows behind `last`, earliest (rowtime, arrival) first.
    behind: BinaryHeap<Reverse<Waiting>>,
}

impl Default for Pending {
    fn default() -> Self {
        Pending {
            last: 0,
            // Zeroed, so that the pages of buckets never used are never
            // touched.
            ends: vec![[0; 2]; BUCKETS],
            entries: Vec::new(),
            free: Vec::new(),
            occupied: vec![0; WORDS],
            words_used: [0; WORDS.div_ceil(64)],
            behind: BinaryHeap::new(),
        }
    }
}

impl Pending {
    /// Rows waiting: every entry not free, and those behind.
    pub(crate) fn len(&self) -> usize {
        self.entries.len() - self.free.len() + self.behind.len()
    }

    /// The bucket of a row at `order`, at or after `last`.
    #[inline]
    fn bucket(&self, order: u64) -> usize {
        let differ = order ^ self.last;
        if differ < NEAR as u64 {
            return order as usize & (NEAR - 1);
        }
        let byte = (63 - differ.leading_zeros()) / 8;
        let value = (order >> (byte * 8)) & 0xff;
        NEAR + (byte as usize - NEAR_BITS as usize / 8) * 256 + value as usize
    }

    /// Entry `i` goes last into its bucket.
    #[inline]
    fn file(&mut self, i: u32) {
        let b = self.bucket(self.entries[i as usize].at);
        let (word, bit) = (b / 64, 1 << (b % 64));
        if self.occupied[word] & bit == 0 {
            self.occupied[word] |= bit;
            self.words_used[word / 64] |= 1 << (word % 64);
            self.ends[b] = [i, i];
        } else {
            let tail = self.ends[b][1];
            self.entries[tail as usize].next = i;
            self.ends[b][1] = i;
        }
    }

    /// Bucket `b` is emptied (its entries stay where they are).
    #[inline]
    fn clear(&mut self, b: usize) {
        let word = b / 64;
        self.occupied[word] &= !(1 << (b % 64));
        if self.occupied[word] == 0 {
            self.words_used[word / 64] &= !(1 << (word % 64));
        }
    }

    /// The entries of bucket `b` in order, read before each is handed to
    /// `each` (which may file it elsewhere).
    #[inline]
    fn walk(&mut self, b: usize, mut each: impl FnMut(&mut Self, u32)) {
        let [mut i, tail] = self.ends[b];
        loop {
            let next = self.entries[i as usize].next;
            each(self, i);
            if i == tail {
                return;
            }
            i = next;
        }
    }

    /// The lowest bucket holding rows.
    fn lowest(&self) -> Option<usize> {
        // No bucket below the one of `last` holds rows.
        let start = (self.last as usize & (NEAR - 1)) / 64 / 64;
        let (s, used) = self.words_used[start..]
            .iter()
            .enumerate()
            .find(|(_, used)| **used != 0)?;
        let word = (start + s) * 64 + used.trailing_zeros() as usize;
        Some(word * 64 + self.occupied[word].trailing_zeros() as usize)
    }

    /// Adds a row; rows are added in arrival order.
    pub(crate) fn push(&mut self, rowtime: i64, seq: u64, key: u32, row: RowRef) {
        let at = order(rowtime);
        if at < self.last {
            self.behind.push(Reverse((rowtime, seq, key, row)));
            return;
        }
        let entry = Entry {
            at,
            seq,
            key,
            next: 0,
            row,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.entries[i as usize] = entry;
                i
            }
            None => {
                self.entries.push(entry);
                (self.entries.len() - 1) as u32
            }
        };
        self.file(i);
    }

    /// The earliest rowtime waiting. When it is in the radix heap, it is
    /// `last` after this, and its rows are in the bucket of its low bits.
    pub(crate) fn earliest(&mut self) -> Option<i64> {
        if let Some(Reverse((rowtime, ..))) = self.behind.peek() {
            return Some(*rowtime);
        }
        loop {
            let lowest = self.lowest()?;
            if lowest < NEAR {
                self.last = (self.last & !(NEAR as u64 - 1)) | lowest as u64;
                return Some(rowtime(self.last));
            }
            // The lowest bucket in use holds the earliest row: it becomes
            // the new `last`, and the bucket's rows all go lower.
            self.clear(lowest);
            let mut earliest = u64::MAX;
            self.walk(lowest, |p, i| {
                earliest = earliest.min(p.entries[i as usize].at)
            });
            self.last = earliest;
            self.walk(lowest, |p, i| p.file(i));
        }
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
            let b = self.last as usize & (NEAR - 1);
            self.clear(b);
            self.walk(b, |p, i| {
                let entry = &p.entries[i as usize];
                due.push((entry.key, entry.row));
                p.free.push(i);
            });
        }
        if self.free.len() > KEPT_FREE && self.free.len() > 3 * self.len() {
            // A backlog has drained: its places go back to the allocator
            // (the rows left are filed anew, in their order).
            *self = Pending::from_sorted(self.sorted());
        }
        Some(at)
    }

    /// Every row waiting, in (rowtime, arrival) order.
    pub(crate) fn sorted(&self) -> Vec<Waiting> {
        let mut all: Vec<Waiting> = self.behind.iter().map(|Reverse(w)| *w).collect();
        for (word, bits) in self.occupied.iter().enumerate() {
            let mut bits = *bits;
            while bits != 0 {
                let b = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let [mut i, tail] = self.ends[b];
                loop {
                    let e = &self.entries[i as usize];
                    all.push((rowtime(e.at), e.seq, e.key, e.row));
                    if i == tail {
                        break;
                    }
                    i = e.next;
                }
            }
        }
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
    /// one taken, rowtimes apart by milliseconds (each row in the bucket
    /// of its rowtime) or by spans that reach the third to fifth bytes
    /// (rows moving down), come out as the model says: at each advance of
    /// the watermark, every row waiting at or before it, by (rowtime,
    /// arrival). Rebuilding from the sorted rows (a checkpoint) keeps it.
    #[test]
    fn rows_come_out_by_rowtime_then_arrival() {
        for scale in [1, 300, 70_001, 90_000_007] {
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

    /// A backlog that drained gives its room back, and the rows left
    /// still come out in order.
    #[test]
    fn a_drained_backlog_gives_its_room_back() {
        let mut pending = Pending::default();
        let rows = 4 * KEPT_FREE as u64;
        for seq in 0..rows {
            // Two rows a millisecond, every other one a millisecond back.
            let rowtime = (seq / 2) as i64 - (seq % 2) as i64;
            pending.push(rowtime, seq, seq as u32, RowRef::default());
        }
        let (mut due, mut taken, mut room_left) = (Vec::new(), Vec::new(), None);
        while let Some(at) = pending.take_due(i64::MAX, &mut due) {
            taken.extend(due.iter().map(|(key, _)| (at, *key)));
            if pending.len() <= 100 && room_left.is_none() {
                room_left = Some(pending.entries.len());
            }
        }
        assert!(
            room_left.is_some_and(|room| room < 4 * KEPT_FREE / 3),
            "{room_left:?} places for 100 rows"
        );
        let mut expected: Vec<(i64, u32)> = (0..rows)
            .map(|seq| ((seq / 2) as i64 - (seq % 2) as i64, seq as u32))
            .collect();
        expected.sort_unstable();
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
