//! Window aggregation over a window TVF, on the shared event-time service.
//!
//! State is kept per slice and key: a slice is the stretch of time all of
//! whose rows share their windows (for TUMBLE, the window itself). Each
//! slice holds a hash table from the key (in arrow's row format) to a dense
//! group id, and one columnar [`Accumulator`] per aggregate. A window fires
//! when the watermark reaches `window_end - 1`: it emits one row per key, in
//! the order of each key's first row in the window, then its state is
//! freed once it can no longer change (`window_end - 1 + lateness`).

mod fire;
mod reuse;
mod rows;
mod two_phase;

use crate::ops::accumulators::{new_accumulator, Accumulator};
use crate::ops::emit::{key_converter, Emitter, Windowed, WindowedState};
use crate::ops::emitted::{Emitted, ResultRows};
use crate::ops::keys::GroupKeys;
use crate::ops::operator::{vec_bytes, StateSize};
use crate::runtime::snapshot::{corrupt, get_keys, put_keys, Persist, StateReader, StateWriter};
use crate::runtime::stream::Chunk;
use crate::time::last_instant;
use crate::time::service::{EventTime, TimerHandler};
use crate::time::slicing::Slicing;
use crate::time::trace::{TracedWindow, Tracing};
use crate::time::window_columns::WindowColumns;
use arrow::datatypes::SchemaRef;
use arrow::row::RowConverter;
use reuse::Reuse;
use std::collections::BTreeMap;
use std::ops::Range;
use tidemark_common::expr::AggregateCall;
use tidemark_common::window::WindowKind;
use tidemark_common::{Error, Result, SqlType};
use two_phase::TwoPhase;

/// What an aggregation's configuration says, checked by [`WindowAggregate::new`].
#[derive(Clone)]
pub struct WindowAggregateSpec {
    pub kind: WindowKind,
    pub time_column: usize,
    pub key_columns: Vec<usize>,
    pub key_types: Vec<SqlType>,
    pub aggregates: Vec<AggregateCall>,
    pub lateness: i64,
    /// Output: keys, window_start, window_end, window_time, aggregates.
    pub output_schema: SchemaRef,
    /// Group DOUBLE additions as Flink's two-phase (local/global) window
    /// aggregation does, so that DOUBLE sums match Flink bit for bit.
    pub two_phase_sums: bool,
    /// For a TIMESTAMP_LTZ rowtime in a zone other than UTC: windows are
    /// laid out on that zone's wall clock.
    pub zone: Option<chrono_tz::Tz>,
    /// Report every fire, re-fire, late row and cleanup as a trace line.
    pub trace: Tracing,
    /// Early firing: open windows emit their partial results every this
    /// many ms of watermark progress (`tidemark.emit.early-fire`).
    pub early_fire: Option<i64>,
    /// The operator is one of several that split the keys between them
    /// (see [`crate::ops::partitioned`]).
    pub key_share: Option<KeyShare>,
    /// The windows are those the rows carry (another window's results):
    /// `kind` is a 1 ms TUMBLE over their `window_time`, laid out on the
    /// instant whatever `zone` says, and the trace names each by its end
    /// (on `zone`'s wall clock, as the rows' `window_end`).
    pub attached: bool,
}

/// One of several window aggregations that split the keys between them.
/// Every row comes in, so that time moves exactly as for one operator
/// (slices, timers, late rows, two-phase flushes), but only the rows it
/// owns are aggregated; each result row
/// ends with the first arrival number of its key in the window (a `UInt64`
/// column the output schema declares last), by which the shares' results
/// are merged in the order one operator emits them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyShare {
    /// The rows whose owner (the input's last column, `UInt8`) is this
    /// are this share's to aggregate. Share 0 also counts late rows (of
    /// every key) and routes them.
    pub index: u8,
}

/// The timers of a window aggregation, keyed by window end. At equal
/// times a fire comes before the cleanup of the same window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum WindowTimer {
    Fire(i64),
    Cleanup(i64),
    /// The next window boundary after a late row: where Flink's local
    /// buffer, still holding that row, next flushes (see [`TwoPhase`]).
    Gate,
    /// An early-firing tick; after the fires at the same time.
    Early,
}

impl Persist for WindowTimer {
    fn save(&self, w: &mut StateWriter) {
        match self {
            WindowTimer::Fire(end) => {
                w.u8(0);
                w.put(end);
            }
            WindowTimer::Cleanup(end) => {
                w.u8(1);
                w.put(end);
            }
            WindowTimer::Gate => w.u8(2),
            WindowTimer::Early => w.u8(3),
        }
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok(match r.u8()? {
            0 => WindowTimer::Fire(r.get()?),
            1 => WindowTimer::Cleanup(r.get()?),
            2 => WindowTimer::Gate,
            3 => WindowTimer::Early,
            _ => return Err(corrupt("a window timer has an unknown kind")),
        })
    }
}

/// Why a window aggregation drops a row (the `late_reason` of late-row
/// sinks).
pub const LATE_REASON: &str = "every window of the row was cleaned up";

/// The operator: its state on the shared event-time service.
pub type WindowAggregate = Windowed<WindowState>;

struct Slice {
    /// Rows were added since the last local flush (two-phase sums).
    local_dirty: bool,
    /// Partials wait for the global flush (two-phase sums).
    global_dirty: bool,
    /// The groups' keys, numbered in the order they first arrived.
    keys: GroupKeys,
    /// Arrival number of each group's first row: a window emits its keys
    /// in that order.
    first_seq: Vec<u64>,
    accumulators: Vec<Box<dyn Accumulator>>,
    /// Rows added, per group; counted only for the trace.
    group_rows: Vec<u64>,
}

impl Slice {
    /// The bytes its groups hold.
    fn bytes(&self) -> u64 {
        self.keys.state_bytes()
            + vec_bytes(&self.first_seq)
            + vec_bytes(&self.group_rows)
            + self
                .accumulators
                .iter()
                .map(|a| a.state_bytes())
                .sum::<u64>()
    }
}

/// Rows of a run that fall in one slice.
#[derive(Default)]
struct SliceRows {
    /// The slice's end.
    end: i64,
    /// The first row of the run that falls in it.
    first: u32,
    /// The rows of it this operator aggregates.
    rows: Vec<u32>,
}

pub struct WindowState {
    slicing: Slicing,
    /// Windows are laid out on this zone's wall clock: slice and window
    /// bounds are wall-clock times, timers the instants they happen at.
    zone: Option<chrono_tz::Tz>,
    lateness: i64,
    time_column: usize,
    key_columns: Vec<usize>,
    key_types: Vec<SqlType>,
    key_converter: Option<RowConverter>,
    aggregates: Vec<AggregateCall>,
    output_schema: SchemaRef,
    window_columns: WindowColumns,
    trace: Tracing,
    early_fire: Option<i64>,
    /// The pending early-firing tick.
    early_tick: Option<i64>,
    slices: BTreeMap<i64, Slice>,
    /// What each fired window last emitted, per key (in arrow's row
    /// format), from its fire to its cleanup: a late row's re-fire
    /// retracts it. Only kept when there is allowed lateness.
    fired: BTreeMap<i64, Emitted>,
    /// Compares results, when windows emit more than once.
    result_rows: Option<ResultRows>,
    /// Scratch buffers reused across chunks.
    scratch_rows: Vec<SliceRows>,
    /// How many rows came in before the current run: rows' arrival numbers.
    rows_seen: u64,
    /// This operator aggregates some of the keys only.
    key_share: Option<KeyShare>,
    two_phase: Option<TwoPhase>,
    /// See [`WindowAggregateSpec::attached`]: the windows the rows carry,
    /// whose ends the trace shows on this zone's wall clock (their
    /// `window_end` column), or None.
    attached: Option<Option<chrono_tz::Tz>>,
    /// Merges kept from one window to the next (HOP, CUMULATE).
    reuse: Reuse,
}

impl WindowState {
    /// The window ending at `window_end`, as the trace names it.
    fn traced_window(&self, window_end: i64) -> TracedWindow {
        match self.attached {
            Some(zone) => TracedWindow::Ending(
                zone.and_then(|tz| crate::time::zone::to_wall_clock(window_end, tz))
                    .unwrap_or(window_end),
            ),
            None => TracedWindow::Bounds(self.slicing.window_start(window_end), window_end),
        }
    }
}

impl WindowAggregate {
    pub fn new(spec: WindowAggregateSpec) -> Result<Self> {
        let slicing = Slicing::new(spec.kind)?;
        if spec.lateness < 0 {
            return Err(Error::Internal(
                "allowed lateness must not be negative".into(),
            ));
        }
        // Flink's buffer-flush grouping of DOUBLE sums is modelled for
        // TUMBLE; HOP and CUMULATE add their values in slice order.
        let layout_zone = spec.zone.filter(|_| !spec.attached);
        let two_phase_sums = spec.two_phase_sums
            && matches!(slicing, Slicing::Tumble { .. })
            && layout_zone.is_none();
        let mut associative = true;
        for call in &spec.aggregates {
            associative &= new_accumulator(call)?.merge_is_associative();
        }
        let key_converter = key_converter(&spec.key_types)?;
        let window_columns = WindowColumns::declared(&spec.output_schema, spec.key_columns.len())?;
        let result_rows = (spec.lateness > 0 || spec.early_fire.is_some())
            .then(|| ResultRows::new(&spec.output_schema))
            .transpose()?;
        Ok(Windowed::from_state(WindowState {
            slicing,
            // Windows the rows carry are laid out on the instant; the
            // zone only shows their ends.
            attached: spec.attached.then_some(spec.zone),
            zone: layout_zone,
            lateness: spec.lateness,
            time_column: spec.time_column,
            key_columns: spec.key_columns,
            key_types: spec.key_types,
            key_converter,
            aggregates: spec.aggregates,
            output_schema: spec.output_schema,
            window_columns,
            trace: spec.trace,
            early_fire: spec.early_fire.filter(|every| *every > 0),
            early_tick: None,
            slices: BTreeMap::new(),
            fired: BTreeMap::new(),
            result_rows,
            scratch_rows: Vec::new(),
            rows_seen: 0,
            key_share: spec.key_share,
            two_phase: two_phase_sums.then_some(TwoPhase {
                late_row_buffered: false,
                checked_at: tidemark_common::time::NO_WATERMARK,
            }),
            reuse: Reuse::new(slicing, associative),
        }))
    }
}

impl WindowedState for WindowState {
    const NAME: &'static str = "WindowAggregate";
    const LATE_REASON: &'static str = LATE_REASON;

    fn window_of(timer: &WindowTimer) -> Option<i64> {
        match timer {
            WindowTimer::Fire(end) | WindowTimer::Cleanup(end) => Some(*end),
            WindowTimer::Gate | WindowTimer::Early => None,
        }
    }

    fn state(&self) -> StateSize {
        let mut size = StateSize::default();
        for slice in self.slices.values() {
            size.entries += u64::from(slice.keys.len());
            size.bytes += slice.bytes();
        }
        size.bytes += self.reuse.slices().iter().map(|s| s.bytes()).sum::<u64>();
        size.bytes += self.fired.values().map(Emitted::state_bytes).sum::<u64>();
        size
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.slices.len() as u64);
        for (end, slice) in &self.slices {
            w.put(end);
            w.put(&slice.local_dirty);
            w.put(&slice.global_dirty);
            w.put(&slice.keys.len());
            if let (Some(keys), Some(conv)) = (slice.keys.rows(), &self.key_converter) {
                put_keys(w, conv, keys.iter().map(|row| row.data()))?;
            }
            w.put(&slice.first_seq);
            w.put(&slice.group_rows);
            for acc in &slice.accumulators {
                acc.save(w)?;
            }
        }
        w.u64(self.fired.len() as u64);
        for (end, emitted) in &self.fired {
            w.put(end);
            emitted.save(w)?;
        }
        w.put(&self.early_tick);
        w.put(&self.rows_seen);
        w.put(
            &self
                .two_phase
                .as_ref()
                .map(|t| (t.late_row_buffered, t.checked_at)),
        );
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let n = r.count()?;
        for _ in 0..n {
            let end: i64 = r.get()?;
            let mut slice = self.new_slice()?;
            slice.local_dirty = r.get()?;
            slice.global_dirty = r.get()?;
            let groups: u32 = r.get()?;
            let keys = match &self.key_converter {
                Some(conv) => {
                    let keys = get_keys(r, conv)?;
                    if keys.num_rows() != groups as usize {
                        return Err(corrupt("a slice's groups do not add up"));
                    }
                    Some(keys)
                }
                None => None,
            };
            slice.keys = GroupKeys::from_rows(keys, groups);
            slice.first_seq = r.get()?;
            slice.group_rows = r.get()?;
            let groups = slice.keys.len() as usize;
            // Rows per group are only counted for the trace.
            if slice.first_seq.len() != groups || slice.group_rows.len() > groups {
                return Err(corrupt("a slice's groups do not add up"));
            }
            if self.trace.is_on() {
                slice.group_rows.resize(groups, 0);
            }
            for acc in &mut slice.accumulators {
                acc.load(r)?;
            }
            self.slices.insert(end, slice);
        }
        let n = r.count()?;
        for _ in 0..n {
            let end: i64 = r.get()?;
            let compare = self
                .result_rows
                .as_ref()
                .ok_or_else(|| corrupt("emitted results of a window that emits once"))?;
            self.fired.insert(end, Emitted::load(r, compare)?);
        }
        self.early_tick = r.get()?;
        self.rows_seen = r.get()?;
        let two_phase: Option<(bool, i64)> = r.get()?;
        match (&mut self.two_phase, two_phase) {
            (Some(t), Some((late_row_buffered, checked_at))) => {
                t.late_row_buffered = late_row_buffered;
                t.checked_at = checked_at;
            }
            (None, None) => {}
            _ => {
                return Err(corrupt(
                    "the aggregation's DOUBLE sums were kept differently",
                ))
            }
        }
        Ok(())
    }
}

impl WindowState {
    /// The instant a window ending at `window_end` fires: its last
    /// millisecond. On a zone's wall clock, the instant that wall-clock
    /// time happens (a day is 23 or 25 hours across a DST change).
    fn fire_time(&self, window_end: i64) -> i64 {
        let end = match self.zone {
            None => window_end,
            Some(tz) => crate::time::zone::local_to_instant(window_end, tz).unwrap_or(window_end),
        };
        last_instant(end)
    }

    fn cleanup_time(&self, window_end: i64) -> i64 {
        self.fire_time(window_end).saturating_add(self.lateness)
    }

    /// A rowtime where windows are laid out: the wall clock in `zone`.
    fn wall_clock(&self, instant: i64) -> i64 {
        match self.zone {
            None => instant,
            Some(tz) => crate::time::zone::to_wall_clock(instant, tz).unwrap_or(instant),
        }
    }

    fn new_slice(&self) -> Result<Slice> {
        Ok(Slice {
            local_dirty: false,
            global_dirty: false,
            keys: GroupKeys::new(self.key_converter.as_ref()),
            first_seq: Vec::new(),
            accumulators: self
                .aggregates
                .iter()
                .map(new_accumulator)
                .collect::<Result<Vec<_>>>()?,
            group_rows: Vec::new(),
        })
    }
}

impl TimerHandler for WindowState {
    type Key = WindowTimer;
    type Output = Emitter;

    fn on_rows(
        &mut self,
        time: &mut EventTime<WindowTimer>,
        chunk: &Chunk,
        range: Range<usize>,
        out: &mut Emitter,
    ) -> Result<usize> {
        let batch = chunk.batch.slice(range.start, range.len());
        let first_row = range.start;
        let keys = self.run_keys(&batch)?;
        let mut per_slice = std::mem::take(&mut self.scratch_rows);
        per_slice.iter_mut().for_each(|rows| rows.rows.clear());
        let run = self.sort_by_slice(
            time,
            chunk,
            range.clone(),
            &batch,
            &keys,
            &mut per_slice,
            out,
        );
        let added = run.and_then(|run| {
            let watermarks = &chunk.watermarks[range];
            self.add_to_slices(time, watermarks, &batch, &keys, &per_slice[..run.used])?;
            Ok(run)
        });
        self.scratch_rows = per_slice;
        let run = added?;
        self.rows_seen += run.consumed as u64;
        if let Some((end, watermark)) = run.refire {
            // A re-firing row is taken in a run of its own.
            out.accept_late(chunk, first_row)?;
            let key: Vec<u8> = keys
                .keys
                .as_ref()
                .map_or(Vec::new(), |k| k.row(0).as_ref().to_vec());
            // Newest window first, as Flink's late firing goes through a
            // row's windows.
            let windows: Vec<i64> = self.refires(end, watermark).collect();
            for window_end in windows.into_iter().rev() {
                self.refire(window_end, &key, watermark, out)?;
            }
        }
        Ok(run.consumed)
    }

    fn on_timer(
        &mut self,
        time: &mut EventTime<WindowTimer>,
        _at: i64,
        key: WindowTimer,
        out: &mut Emitter,
    ) -> Result<()> {
        self.flush_two_phase(time.watermark());
        match key {
            WindowTimer::Gate => {}
            WindowTimer::Fire(end) => {
                self.emit_window(end, time.watermark(), out, false)?;
                if self.lateness == 0 {
                    self.clean_up(end, time.watermark(), out)?;
                }
            }
            WindowTimer::Cleanup(end) => self.clean_up(end, time.watermark(), out)?,
            WindowTimer::Early => self.fire_early(time, out)?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
