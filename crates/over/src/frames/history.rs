//! What a bounded frame keeps of each key's emitted rows: as much as its
//! aggregates need to know which rows the next frame holds.
//!
//! An aggregate computed from its frame's rows needs the rows themselves,
//! held in the store until they leave every frame. When every aggregate is
//! kept incrementally (DOUBLE SUM/AVG, MIN/MAX of primitive types), the
//! rows are not needed once emitted: a RANGE frame needs only their
//! rowtimes, to know when each leaves, and a ROWS frame only how many it
//! holds. Holding rows no aggregate reads kept input batches alive and
//! cost a store reference, a queue entry and a compaction copy per row.

use super::paged::Paged;
use super::queues::KeyQueues;
use crate::store::{RowRef, Store};
use tidemark_common::window::FrameUnits;
use tidemark_common::Result;
use tidemark_engine::snapshot::{StateReader, StateWriter};

pub(super) enum History {
    /// Some aggregate reads its frame's rows: each key's rows, oldest
    /// first, with their rowtimes; each holds a store reference.
    Rows(KeyQueues<(i64, RowRef)>),
    /// A RANGE frame of incremental aggregates: the rowtimes of each
    /// key's frame rows, oldest first.
    Times(KeyQueues<i64>),
    /// A ROWS frame of incremental aggregates: how many rows each key's
    /// frame holds.
    Counts(Paged<u32>),
}

impl History {
    /// The history of a bounded frame whose aggregates read its rows
    /// (`rows`) or not; a queue holds at most `bound` entries, if known.
    pub(super) fn new(units: FrameUnits, rows: bool, bound: Option<usize>) -> Self {
        match (rows, units) {
            (true, _) => History::Rows(KeyQueues::new(bound)),
            (false, FrameUnits::Range) => History::Times(KeyQueues::new(bound)),
            (false, FrameUnits::Rows) => History::Counts(Paged::new()),
        }
    }

    /// Makes room for key `key`, with nothing held.
    #[inline(always)]
    pub(super) fn ensure(&mut self, key: usize) {
        match self {
            History::Rows(q) => q.ensure(key),
            History::Times(q) => q.ensure(key),
            History::Counts(c) => {
                if c.len() <= key {
                    c.grow(key + 1, 0);
                }
            }
        }
    }

    /// How many rows key `key`'s frame holds.
    #[inline(always)]
    pub(super) fn len(&self, key: usize) -> usize {
        match self {
            History::Rows(q) => q.len(key),
            History::Times(q) => q.len(key),
            History::Counts(c) => c.get(key).map_or(0, |n| *n as usize),
        }
    }

    /// The rowtime of key `key`'s oldest frame row (none for counts,
    /// which only ROWS frames keep).
    #[inline(always)]
    pub(super) fn front_time(&self, key: usize) -> Option<i64> {
        match self {
            History::Rows(q) => q.front(key).map(|(t, _)| *t),
            History::Times(q) => q.front(key).copied(),
            History::Counts(_) => None,
        }
    }

    /// Key `key`'s oldest row leaves its frame (its row, if held, into
    /// `leaving`: rows emitted before may still have it in their frames);
    /// false if the frame was empty.
    #[inline(always)]
    pub(super) fn pop_front(&mut self, key: usize, leaving: &mut Vec<RowRef>) -> bool {
        match self {
            History::Rows(q) => q.pop_front(key).map(|(_, row)| leaving.push(row)).is_some(),
            History::Times(q) => q.pop_front(key).is_some(),
            History::Counts(c) => match c.get_mut(key) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            },
        }
    }

    /// Row `row` at `rowtime` joins key `key`'s frame (made with
    /// [`History::ensure`]).
    #[inline(always)]
    pub(super) fn push_back(
        &mut self,
        store: &mut Store,
        key: usize,
        rowtime: i64,
        row: RowRef,
    ) -> Result<()> {
        match self {
            History::Rows(q) => {
                store.retain(row);
                q.push_back(key, (rowtime, row))
            }
            History::Times(q) => q.push_back(key, rowtime),
            History::Counts(c) => {
                c[key] += 1;
                Ok(())
            }
        }
    }

    /// Key `key`'s frame rows, the `from`-th on, if rows are held.
    pub(super) fn rows_from(&self, key: usize, from: usize) -> impl Iterator<Item = &RowRef> {
        let rows = match self {
            History::Rows(q) => Some(q.iter_from(key, from).map(|(_, row)| row)),
            _ => None,
        };
        rows.into_iter().flatten()
    }

    /// Key `key` starts over: its rows, if held, leave into `leaving`.
    pub(super) fn forget(&mut self, key: usize, leaving: &mut Vec<RowRef>) {
        match self {
            History::Rows(q) => {
                let mut rows = Vec::new();
                q.drain_into(key, &mut rows);
                leaving.extend(rows.into_iter().map(|(_, row)| row));
            }
            History::Times(q) => q.drain_into(key, &mut Vec::new()),
            History::Counts(c) => {
                if let Some(n) = c.get_mut(key) {
                    *n = 0;
                }
            }
        }
    }

    /// Every row held, key after key, oldest first.
    pub(super) fn rows(&self) -> impl Iterator<Item = RowRef> + '_ {
        let rows = match self {
            History::Rows(q) => Some(q.iter_all().map(|(_, row)| *row)),
            _ => None,
        };
        rows.into_iter().flatten()
    }

    /// Points the rows held at new rows, in [`History::rows`] order.
    pub(super) fn set_rows(&mut self, mut next: impl FnMut() -> Result<RowRef>) -> Result<()> {
        if let History::Rows(q) = self {
            q.for_each_mut(|(_, r)| {
                *r = next()?;
                Ok(())
            })?;
        }
        Ok(())
    }

    pub(super) fn state_bytes(&self) -> u64 {
        match self {
            History::Rows(q) => q.state_bytes(),
            History::Times(q) => q.state_bytes(),
            History::Counts(c) => (c.capacity() * size_of::<u32>()) as u64,
        }
    }

    pub(super) fn save(&self, w: &mut StateWriter) {
        match self {
            History::Rows(q) => q.save(w),
            History::Times(q) => q.save(w),
            History::Counts(c) => {
                w.u64(c.len() as u64);
                for key in 0..c.len() {
                    w.put(&c[key]);
                }
            }
        }
    }

    /// Reads what [`History::save`] wrote into this empty history.
    pub(super) fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        match self {
            History::Rows(q) => q.load(r),
            History::Times(q) => q.load(r),
            History::Counts(c) => {
                let keys = r.count()?;
                c.grow(keys, 0);
                for key in 0..keys {
                    c[key] = r.get()?;
                }
                Ok(())
            }
        }
    }
}
