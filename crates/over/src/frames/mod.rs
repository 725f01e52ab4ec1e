//! The frames of emitted rows and the output built from them.
//!
//! A bounded frame (`n PRECEDING`) keeps, per key, what a later frame
//! needs of the emitted rows it can still hold: its last `n + 1` rows
//! (ROWS), or its rows from `last emitted - d` on (RANGE) — the rows
//! themselves when some aggregate reads them, else only their rowtimes
//! or count ([`history`]). Ways to aggregate over it:
//!
//! - DOUBLE `SUM` and `AVG` run incrementally in Flink's order — for each
//!   row, first retract what left the frame, then add the row — because
//!   floating-point results depend on that order and must match Flink's
//!   bit for bit.
//! - `MIN` and `MAX` of primitive types keep a monotonic queue per key (the
//!   values that can still be the extreme), in Flink's value order.
//! - Every other aggregate is exact whatever the order (integers wrap,
//!   decimals are exact, FIRST/LAST pick a value), so each emitted row
//!   records its frame's rows and the output build feeds them all to fresh
//!   accumulators at once, one group per output row.
//!
//! A ROWS frame of up to 62 rows back whose every aggregate is one of the
//! first two kinds, a COUNT or a SUM of an integer type keeps each key's
//! whole state in one block of words instead ([`blocks`]), the counts and
//! integer sums kept incrementally there too: its rows go through it a
//! column at a time when the output is built.
//!
//! An unbounded frame keeps running accumulators per key (adding only, as
//! Flink does), and no rows.
//!
//! This module keeps [`Frames`]: how it is made, its checkpoint state, the
//! output build and the histories. [`bounded`] emits through ROWS and RANGE
//! frames and holds the incremental aggregates; [`blocks`] keeps the short
//! ROWS frames; [`unbounded`] emits through unbounded frames and holds the
//! ranking functions.

mod blocks;
mod bounded;
mod history;
mod paged;
mod queues;
mod unbounded;

use crate::store::{RowRef, Store};
use crate::OverSpec;
use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::SchemaRef;
use blocks::Blocks;
use bounded::{Extreme, Running};
use history::History;
use queues::KeyQueues;
use std::collections::{HashMap, VecDeque};
use tidemark_common::expr::AggregateCall;
use tidemark_common::window::{FrameUnits, OverFrame};
use tidemark_common::{Error, Result};
use tidemark_engine::snapshot::{StateReader, StateWriter};
use tidemark_engine::Chunk;
use tidemark_engine::{new_over_accumulator, Accumulator};
use unbounded::Ranking;

/// Where short ROWS frames of incremental aggregates keep each key's
/// state: in one block ([`blocks`]), or in the queues longer frames use.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Layout {
    Blocks,
    /// Only for tests, which compare the two.
    #[cfg(test)]
    Queues,
}

/// Where emitted rows go out: their key, rowtime, and the watermark they
/// carry downstream (the one before the advance that let them out).
pub struct Out {
    pub key: u32,
    pub rowtime: i64,
    pub watermark: i64,
}

pub struct Frames {
    frame: OverFrame,
    aggregates: Vec<AggregateCall>,
    /// How many input columns pass through to the output.
    input_width: usize,
    /// Per aggregate: computed incrementally (bounded DOUBLE SUM/AVG).
    running: Vec<Option<Running>>,
    /// Per aggregate: a MIN/MAX queue (bounded, primitive types).
    extremes: Vec<Option<Extreme>>,
    /// A short ROWS frame of only such aggregates, counts and integer
    /// sums: all of them, and the frame itself, kept in one block per key
    /// instead (then `running` and `extremes` hold none, and `history`
    /// nothing).
    blocks: Option<Blocks>,
    /// Whether some aggregate is computed from its frame's rows.
    from_frames: bool,
    /// Bounded frames: per key id, what later frames need of its emitted
    /// rows.
    history: History,
    /// Rows that left a key's history since the last build: still in the
    /// frames of rows emitted before, so released only after the build.
    leaving: Vec<RowRef>,
    /// Unbounded frames: running accumulators, a group per key (none for
    /// the ranking functions).
    unbounded: Vec<Option<Box<dyn Accumulator>>>,
    /// Per aggregate: ROW_NUMBER, RANK, DENSE_RANK or LAG.
    ranking: Vec<Option<Ranking>>,
    unbounded_group: Vec<Option<u32>>,
    unbounded_groups: u32,
    /// The output under construction: rows, the watermark each carries,
    /// the rows of each one's frame (bounded) or its aggregate values
    /// (unbounded).
    rows: Vec<RowRef>,
    watermarks: Vec<i64>,
    frame_rows: Vec<RowRef>,
    frame_groups: Vec<u32>,
    values: Vec<Vec<ArrayRef>>,
}

impl Frames {
    /// The bytes the frames' per-key values hold (rows themselves are in
    /// the store).
    pub fn state_bytes(&self) -> u64 {
        let running: u64 = self
            .running
            .iter()
            .flatten()
            .map(Running::state_bytes)
            .sum();
        let extremes: u64 = self
            .extremes
            .iter()
            .flatten()
            .map(Extreme::state_bytes)
            .sum();
        let ranking: u64 = self
            .ranking
            .iter()
            .flatten()
            .map(Ranking::state_bytes)
            .sum();
        let unbounded: u64 = self
            .unbounded
            .iter()
            .flatten()
            .map(|a| a.state_bytes())
            .sum();
        let blocks = self.blocks.as_ref().map_or(0, Blocks::state_bytes);
        self.history.state_bytes() + running + extremes + blocks + ranking + unbounded
    }

    /// Writes the per-key state for a checkpoint, between two items (when
    /// no output is under construction).
    pub fn save(&self, w: &mut StateWriter) -> Result<()> {
        if !self.rows.is_empty() || !self.leaving.is_empty() {
            return Err(Error::Internal(
                "a checkpoint of an OVER aggregation with output being built".into(),
            ));
        }
        for running in self.running.iter().flatten() {
            running.save(w);
        }
        for extreme in self.extremes.iter().flatten() {
            extreme.save(w);
        }
        self.history.save(w);
        if let Some(blocks) = &self.blocks {
            blocks.save(w);
        }
        for acc in self.unbounded.iter().flatten() {
            acc.save(w)?;
        }
        for ranking in self.ranking.iter().flatten() {
            ranking.save(w);
        }
        w.put(&self.unbounded_group);
        w.put(&self.unbounded_groups);
        Ok(())
    }

    /// Reads what [`Frames::save`] wrote into these fresh frames.
    pub fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        for running in self.running.iter_mut().flatten() {
            running.load(r)?;
        }
        for extreme in self.extremes.iter_mut().flatten() {
            extreme.load(r)?;
        }
        self.history.load(r)?;
        if let Some(blocks) = &mut self.blocks {
            blocks.load(r)?;
        }
        for acc in self.unbounded.iter_mut().flatten() {
            acc.load(r)?;
        }
        for ranking in self.ranking.iter_mut().flatten() {
            ranking.load(r)?;
        }
        self.unbounded_group = r.get()?;
        self.unbounded_groups = r.get()?;
        Ok(())
    }

    /// Frames keeping short ROWS frames in `layout` (blocks; tests compare
    /// them with queues).
    pub(crate) fn with_layout(spec: &OverSpec, layout: Layout) -> Result<Self> {
        let ranking = spec
            .aggregates
            .iter()
            .map(Ranking::new)
            .collect::<Result<Vec<_>>>()?;
        let bounded = spec.frame.preceding.is_some();
        if bounded && ranking.iter().any(Option::is_some) {
            return Err(Error::Internal(
                "a ranking function over a bounded frame".into(),
            ));
        }
        let mut unbounded = Vec::new();
        for (call, rank) in spec.aggregates.iter().zip(&ranking) {
            let acc = match rank {
                Some(_) => None,
                None => Some(new_over_accumulator(call)?),
            };
            if !bounded {
                unbounded.push(acc);
            }
        }
        // Over a bounded frame DOUBLE SUM/AVG run incrementally and MIN/MAX
        // of primitive types keep a queue.
        // A ROWS frame of n rows bounds each key's queues at n + 1.
        let bound = match (spec.frame.units, spec.frame.preceding) {
            (FrameUnits::Rows, Some(n)) => usize::try_from(n).ok().map(|n| n.saturating_add(1)),
            _ => None,
        };
        // A short ROWS frame whose every aggregate is one of those, a
        // COUNT or an integer SUM keeps each key's whole state in a block
        // instead.
        let blocks = match (spec.frame.units, spec.frame.preceding) {
            (FrameUnits::Rows, Some(n)) if layout == Layout::Blocks => usize::try_from(n)
                .ok()
                .and_then(|n| Blocks::for_frame(&spec.aggregates, n, spec.ttl.is_some())),
            _ => None,
        };
        let queues = bounded && blocks.is_none();
        let running: Vec<Option<Running>> = spec
            .aggregates
            .iter()
            .map(|call| queues.then(|| Running::for_call(call, bound)).flatten())
            .collect();
        let extremes: Vec<Option<Extreme>> = spec
            .aggregates
            .iter()
            .map(|call| queues.then(|| Extreme::for_call(call, bound)).flatten())
            .collect();
        let from_frames = queues
            && running
                .iter()
                .zip(&extremes)
                .any(|(r, e)| r.is_none() && e.is_none());
        let input_width = spec
            .output_schema
            .fields()
            .len()
            .checked_sub(spec.aggregates.len())
            .ok_or_else(|| Error::Internal("OVER output narrower than its aggregates".into()))?;
        Ok(Frames {
            frame: spec.frame,
            aggregates: spec.aggregates.clone(),
            input_width,
            running,
            extremes,
            blocks,
            from_frames,
            history: History::new(spec.frame.units, from_frames, bound),
            leaving: Vec::new(),
            unbounded,
            ranking,
            unbounded_group: Vec::new(),
            unbounded_groups: 0,
            rows: Vec::new(),
            watermarks: Vec::new(),
            frame_rows: Vec::new(),
            frame_groups: Vec::new(),
            values: vec![Vec::new(); spec.aggregates.len()],
        })
    }

    /// Forgets key `key`'s frames (its state expired, spec §10): the rows
    /// its history holds leave after the next build, its running
    /// aggregates, extremes, ranks and accumulator group start empty —
    /// for a row that comes later, or another key given its number.
    pub fn forget(&mut self, store: &Store, key: u32) -> Result<()> {
        let k = key as usize;
        if let Some(blocks) = &mut self.blocks {
            // The rows out before go through their frames first when the
            // key is among them. (Settling them at every key that expired
            // gathered the rows out since the last for each: where every
            // row has a key of its own and keys expire as fast as rows go
            // out, a row at a time.)
            if blocks.unsettled_of(k) {
                let from = self.rows.len() - blocks.unsettled();
                let picks = store.positions(&self.rows[from..])?;
                blocks.settle(|c| store.column(&picks, c))?;
            }
            blocks.forget(k);
        }
        self.history.forget(k, &mut self.leaving);
        for running in self.running.iter_mut().flatten() {
            running.forget(k);
        }
        for extreme in self.extremes.iter_mut().flatten() {
            extreme.forget(k);
        }
        for rank in self.ranking.iter_mut().flatten() {
            rank.forget(k, &mut self.leaving);
        }
        if let Some(Some(group)) = self.unbounded_group.get(k).copied() {
            for acc in self.unbounded.iter_mut().flatten() {
                acc.reset(group);
            }
        }
        Ok(())
    }

    /// Rows `rows` of one key, all at `out.rowtime` in arrival order, go
    /// out now: each keeps the store reference it held while it waited
    /// until the output is built.
    #[inline(always)]
    pub fn emit(&mut self, store: &mut Store, out: Out, rows: &[RowRef]) -> Result<()> {
        if let Some(blocks) = &mut self.blocks {
            // Through their frames when the output is built.
            blocks.emit(out.key, rows.len());
            self.rows.extend_from_slice(rows);
            self.watermarks
                .extend(std::iter::repeat_n(out.watermark, rows.len()));
            return Ok(());
        }
        match self.frame.preceding {
            Some(back) => self.emit_bounded(store, &out, rows, back),
            None => self.emit_unbounded(store, &out, rows),
        }
    }

    /// Row `row` goes out: the output holds the reference it waited with.
    fn push_row(&mut self, row: RowRef, watermark: i64) {
        self.rows.push(row);
        self.watermarks.push(watermark);
    }

    /// The rows emitted since the last build, with their aggregates.
    pub fn build(&mut self, store: &mut Store, schema: &SchemaRef) -> Result<Option<Chunk>> {
        if self.rows.is_empty() {
            self.release_leaving(store);
            return Ok(None);
        }
        let picks = store.positions(&self.rows)?;
        let mut columns = (0..self.input_width)
            .map(|c| store.column(&picks, c))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let n = self.rows.len();
        if let Some(blocks) = &mut self.blocks {
            // The rows not yet through their frames are the last ones.
            let from = n - blocks.unsettled();
            blocks.settle(|c| Ok(columns[c].slice(from, n - from)))?;
            columns.extend(blocks.arrays()?);
        } else if self.frame.preceding.is_some() {
            let picks = store.positions(&self.frame_rows)?;
            let mut args: HashMap<usize, ArrayRef> = HashMap::new();
            let all: Vec<u32> = (0..self.frame_rows.len() as u32).collect();
            let groups: Vec<u32> = (0..n as u32).collect();
            for ((call, running), extreme) in self
                .aggregates
                .iter()
                .zip(&mut self.running)
                .zip(&mut self.extremes)
            {
                if let Some(r) = running {
                    columns.push(r.array());
                    continue;
                }
                if let Some(e) = extreme {
                    columns.push(e.array()?);
                    continue;
                }
                let values = match call.arg {
                    None => None,
                    Some(c) => Some(match args.get(&c) {
                        Some(v) => v.clone(),
                        None => {
                            let v = store.column(&picks, c)?;
                            args.insert(c, v.clone());
                            v
                        }
                    }),
                };
                let mut acc = new_over_accumulator(call)?;
                acc.update(values.as_ref(), &all, &self.frame_groups)?;
                columns.push(acc.evaluate(&groups)?);
            }
        } else {
            for (values, rank) in self.values.iter_mut().zip(&mut self.ranking) {
                if let Some(rank) = rank {
                    columns.push(rank.array(store)?);
                    continue;
                }
                let parts: Vec<&dyn arrow::array::Array> =
                    values.iter().map(|v| v.as_ref()).collect();
                columns.push(arrow::compute::concat(&parts)?);
                values.clear();
            }
        }
        let batch = RecordBatch::try_new(schema.clone(), columns)?;
        // Sized as this output was, so the next does not grow from nothing.
        let watermarks = std::mem::replace(&mut self.watermarks, Vec::with_capacity(n));
        let chunk = Chunk::new(batch, watermarks);
        for row in self.rows.drain(..) {
            store.release(row);
        }
        self.frame_rows.clear();
        self.frame_groups.clear();
        self.release_leaving(store);
        Ok(Some(chunk))
    }

    /// Whether each key's state is kept in one block.
    #[cfg(test)]
    pub fn in_blocks(&self) -> bool {
        self.blocks.is_some()
    }

    /// How many rows the keys' histories (and LAG's recent rows) hold.
    pub fn history_len(&self) -> usize {
        self.history_refs().count()
    }

    /// LAG's recent rows, per aggregate and key.
    fn lag_rows(&self) -> impl Iterator<Item = &VecDeque<RowRef>> + '_ {
        self.ranking.iter().flatten().flat_map(|r| match r {
            Ranking::Lag { recent, .. } => recent.iter(),
            _ => [].iter(),
        })
    }

    /// The rows the keys' histories and LAG's recent rows hold.
    pub fn history_refs(&self) -> impl Iterator<Item = RowRef> + '_ {
        self.history
            .rows()
            .chain(self.lag_rows().flatten().copied())
    }

    /// Points the histories and LAG's recent rows at new rows, in
    /// [`Frames::history_refs`] order.
    pub fn set_history_refs(&mut self, refs: &[RowRef]) -> Result<()> {
        let mut new = refs.iter();
        let mut next = || {
            new.next()
                .copied()
                .ok_or_else(|| Error::Internal("fewer rows than the histories hold".into()))
        };
        self.history.set_rows(&mut next)?;
        for rank in self.ranking.iter_mut().flatten() {
            if let Ranking::Lag { recent, .. } = rank {
                for r in recent.iter_mut().flatten() {
                    *r = next()?;
                }
            }
        }
        Ok(())
    }

    fn release_leaving(&mut self, store: &mut Store) {
        for row in self.leaving.drain(..) {
            store.release(row);
        }
        store.sweep();
    }
}

/// The bytes of per-key deques (their buffers and headers).
fn deque_bytes<T>(v: &[VecDeque<T>]) -> u64 {
    v.iter()
        .map(|d| (d.capacity() * std::mem::size_of::<T>() + 32) as u64)
        .sum()
}
