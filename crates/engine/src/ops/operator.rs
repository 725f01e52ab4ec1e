//! The operator interface: every stage of a pipeline takes stream items and
//! pushes the items it produces.

use crate::runtime::snapshot::{Persist, StateReader, StateWriter};
use crate::runtime::stream::StreamItem;
use arrow::array::{Array, ArrayData, RecordBatch};
use std::collections::HashSet;
use tidemark_common::{Error, Result, Span};

/// What an operator reports for the run summary.
#[derive(Clone, Debug, Default)]
pub struct OperatorMetrics {
    pub rows_in: u64,
    pub rows_out: u64,
    /// Rows added to no window because all their windows had been cleaned
    /// up already.
    pub late_rows: u64,
    /// Rows too late for some of their windows but added to others.
    pub partially_late_rows: u64,
    pub windows_fired: u64,
    /// Rows that arrived after their window fired, within the allowed
    /// lateness: added, and the window fired again for their key.
    pub late_rows_accepted: u64,
    /// How far behind the watermark the dropped rows were (watermark
    /// minus rowtime, ms), for the summary's lateness figures.
    pub lateness: Lateness,
    /// Windows fired before the end of input (the rest fired only because
    /// the input ended).
    pub windows_fired_before_end: u64,
    /// Keys whose state expired (`tidemark.state.ttl`, spec §10), and of
    /// the late rows, those dropped because their key's state had.
    pub keys_expired: u64,
    pub late_rows_expired: u64,
}

impl OperatorMetrics {
    /// A window fired at `watermark`; the final watermark means it fired
    /// only because the input ended.
    pub fn window_fired(&mut self, watermark: i64) {
        self.windows_fired += 1;
        if watermark != tidemark_common::time::FINAL_WATERMARK {
            self.windows_fired_before_end += 1;
        }
    }
}

/// How far behind the watermark dropped rows were, counted per value so
/// that the summary's percentiles are exact. Past [`Lateness::MAX_EXACT`]
/// distinct values (a replay with millions of late rows, each late by a
/// different amount) values are kept to three significant digits, rounded
/// up, so memory stays bounded; the figures are then approximate, and say
/// so. The largest value is always exact.
#[derive(Clone, Debug, Default)]
pub struct Lateness {
    counts: std::collections::BTreeMap<i64, u64>,
    rows: u64,
    max: Option<i64>,
    coarse: bool,
}

impl Lateness {
    pub const MAX_EXACT: usize = 1 << 16;

    pub fn push(&mut self, behind: i64) {
        self.rows += 1;
        self.max = Some(self.max.map_or(behind, |m| m.max(behind)));
        let value = if self.coarse { coarse(behind) } else { behind };
        *self.counts.entry(value).or_default() += 1;
        if !self.coarse && self.counts.len() > Self::MAX_EXACT {
            self.coarse = true;
            let exact = std::mem::take(&mut self.counts);
            for (v, n) in exact {
                *self.counts.entry(coarse(v)).or_default() += n;
            }
        }
    }

    pub fn max(&self) -> Option<i64> {
        self.max
    }

    /// Rows counted.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Rows per value (per rounded value once coarse), in order.
    pub fn counts(&self) -> impl Iterator<Item = (i64, u64)> + '_ {
        self.counts.iter().map(|(v, n)| (*v, *n))
    }

    /// Whether [`Lateness::percentile`] is exact.
    pub fn is_exact(&self) -> bool {
        !self.coarse
    }

    /// The value at or below which `p` % of the rows lie (nearest rank).
    pub fn percentile(&self, p: u64) -> Option<i64> {
        self.permille(p.saturating_mul(10))
    }

    /// The value at or below which `p` ‰ of the rows lie (nearest rank):
    /// 999 for the 99.9th percentile.
    pub fn permille(&self, p: u64) -> Option<i64> {
        if p >= 1000 {
            return self.max;
        }
        let rank = (self.rows * p).div_ceil(1000).max(1);
        let mut seen = 0;
        for (value, n) in &self.counts {
            seen += n;
            if seen >= rank {
                return Some(*value);
            }
        }
        self.max
    }
}

/// `v` to three significant digits, rounded away from zero.
fn coarse(v: i64) -> i64 {
    let magnitude = v.unsigned_abs();
    let mut step = 1u64;
    while magnitude / step >= 1000 {
        step *= 10;
    }
    let up = magnitude.div_ceil(step).saturating_mul(step);
    let up = i64::try_from(up).unwrap_or(i64::MAX);
    if v < 0 {
        -up
    } else {
        up
    }
}

/// How much state an operator holds, estimated from what it keeps (key
/// bytes, accumulators, buffered rows, timers), for the run summary and
/// `tidemark.state.max-memory`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateSize {
    pub bytes: u64,
    /// Keyed entries: a key in one slice or window, a session, a buffered
    /// row, a key of an OVER window.
    pub entries: u64,
    /// Windows holding state: not fired yet, or fired and kept for late
    /// rows (for sessions, the sessions held).
    pub windows: u64,
}

impl StateSize {
    pub fn add(&mut self, other: StateSize) {
        self.bytes += other.bytes;
        self.entries += other.entries;
        self.windows += other.windows;
    }
}

/// The bytes a vector's buffer holds.
pub fn vec_bytes<T>(v: &Vec<T>) -> u64 {
    (v.capacity() * std::mem::size_of::<T>()) as u64
}

/// The bytes that batches an operator holds keep alive, each buffer
/// counted once. A run of rows is mostly a slice of the batch it was read
/// in, and arrow's memory size of a slice is the whole of that batch's
/// buffers: a window holding hundreds of runs cut from a few batches
/// counted each batch hundreds of times (a window join of two closely
/// interleaved inputs reported 55.9 MiB in a process of 35 MB).
#[derive(Default)]
pub struct HeldBytes {
    /// The start of each allocation counted.
    seen: HashSet<usize>,
    bytes: u64,
}

impl HeldBytes {
    pub fn add(&mut self, batch: &RecordBatch) {
        for column in batch.columns() {
            // The array itself, beside its buffers.
            let own = column
                .get_array_memory_size()
                .saturating_sub(column.get_buffer_memory_size());
            self.bytes += own as u64;
            self.add_data(&column.to_data());
        }
    }

    fn add_data(&mut self, data: &ArrayData) {
        let nulls = data.nulls().map(|n| n.buffer());
        for buffer in data.buffers().iter().chain(nulls) {
            if self.seen.insert(buffer.data_ptr().as_ptr() as usize) {
                // An allocation arrow does not own reports no capacity.
                self.bytes += buffer.capacity().max(buffer.len()) as u64;
            }
        }
        for child in data.child_data() {
            self.add_data(child);
        }
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// [`HeldBytes`] of `batches`.
pub fn held_bytes<'a>(batches: impl IntoIterator<Item = &'a RecordBatch>) -> u64 {
    let mut held = HeldBytes::default();
    batches.into_iter().for_each(|b| held.add(b));
    held.bytes()
}

pub trait Operator: Send {
    /// A short name for summaries and errors, e.g. `WindowAggregate`.
    fn name(&self) -> String;

    /// Consumes one item, appending what it produces to `out`. A `Chunk`
    /// pushed to `out` is never empty.
    fn process(&mut self, item: StreamItem, out: &mut Vec<StreamItem>) -> Result<()>;

    fn metrics(&self) -> OperatorMetrics {
        OperatorMetrics::default()
    }

    /// The state the operator holds now; nothing for a stateless one.
    fn state(&self) -> StateSize {
        StateSize::default()
    }

    /// Hands over results an operator made but held back to overlap its
    /// work with the next items' (a split aggregation): called when a run
    /// is stopped before its end, so that nothing made is lost.
    fn release_held(&mut self, _out: &mut Vec<StreamItem>) -> Result<()> {
        Ok(())
    }

    /// Writes what a checkpoint keeps of the operator, between two items:
    /// enough for a fresh operator of the same plan to go on, after a
    /// restart, exactly as this one would. One that cannot says so.
    fn save_state(&self, _w: &mut StateWriter) -> Result<()> {
        Err(not_checkpointable(&self.name()))
    }

    /// Reads what [`Operator::save_state`] wrote into this fresh operator.
    fn load_state(&mut self, _r: &mut StateReader<'_>) -> Result<()> {
        Err(not_checkpointable(&self.name()))
    }
}

/// The error for a query with an operator whose state a checkpoint cannot
/// keep yet.
pub fn not_checkpointable(operator: &str) -> Error {
    Error::plan(
        format!("checkpointing does not cover {operator} yet: its state cannot be saved"),
        Span::default(),
    )
    .with_hint("run the query without 'execution.checkpointing.dir'")
}

impl Persist for Lateness {
    fn save(&self, w: &mut StateWriter) {
        w.put(&self.counts);
        w.put(&self.rows);
        w.put(&self.max);
        w.put(&self.coarse);
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok(Lateness {
            counts: r.get()?,
            rows: r.get()?,
            max: r.get()?,
            coarse: r.get()?,
        })
    }
}

impl Persist for OperatorMetrics {
    fn save(&self, w: &mut StateWriter) {
        for n in [
            self.rows_in,
            self.rows_out,
            self.late_rows,
            self.partially_late_rows,
            self.windows_fired,
            self.late_rows_accepted,
            self.windows_fired_before_end,
            self.keys_expired,
            self.late_rows_expired,
        ] {
            w.u64(n);
        }
        w.put(&self.lateness);
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok(OperatorMetrics {
            rows_in: r.get()?,
            rows_out: r.get()?,
            late_rows: r.get()?,
            partially_late_rows: r.get()?,
            windows_fired: r.get()?,
            late_rows_accepted: r.get()?,
            windows_fired_before_end: r.get()?,
            keys_expired: r.get()?,
            late_rows_expired: r.get()?,
            lateness: r.get()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use std::sync::Arc;

    fn batch(rows: i64) -> RecordBatch {
        let keys = StringArray::from_iter((0..rows).map(|i| (i % 7 != 0).then(|| format!("k{i}"))));
        RecordBatch::try_from_iter([
            ("k", Arc::new(keys) as _),
            ("v", Arc::new(Int64Array::from_iter_values(0..rows)) as _),
        ])
        .expect("a valid batch")
    }

    #[test]
    fn slices_of_one_batch_hold_its_buffers_once() {
        let whole = batch(10_000);
        let once = held_bytes([&whole]);
        let slices: Vec<RecordBatch> = (0..100).map(|i| whole.slice(i * 100, 100)).collect();
        let sliced = held_bytes(&slices);
        // The buffers once, and each slice's arrays beside them.
        assert!(sliced >= once, "{sliced} < {once}");
        assert!(
            sliced < 2 * once,
            "{sliced} counts the batch again and again"
        );
        // arrow's own size counts the whole batch for every slice.
        let each: usize = slices.iter().map(|b| b.get_array_memory_size()).sum();
        assert!(each as u64 > 50 * once);
        // Another batch's buffers count beside the first's.
        assert!(held_bytes([&whole, &batch(10_000)]) >= 2 * once - 1024);
    }

    #[test]
    fn lateness_percentiles_are_exact_until_there_are_too_many_values() {
        let mut l = Lateness::default();
        for v in [8250, 10, 10, 40, 3] {
            l.push(v);
        }
        assert_eq!(
            (l.percentile(50), l.percentile(99), l.max()),
            (Some(10), Some(8250), Some(8250))
        );
        assert!(l.is_exact());
        let mut many = Lateness::default();
        for v in 0..200_000i64 {
            many.push(v * 7);
        }
        assert!(!many.is_exact());
        assert!(many.counts.len() <= Lateness::MAX_EXACT);
        assert_eq!(many.max(), Some(199_999 * 7));
        // Within 0.1 %, rounded up.
        let p50 = many.percentile(50).unwrap();
        assert!((700_000..=700_700).contains(&p50), "{p50}");
    }

    #[test]
    fn coarse_keeps_three_significant_digits_rounding_up() {
        assert_eq!(coarse(999), 999);
        assert_eq!(coarse(1001), 1010);
        assert_eq!(coarse(123_456), 124_000);
        assert_eq!(coarse(-1001), -1010);
    }
}
