//! Window aggregation over a window TVF, on the shared event-time service.
//!
//! State is kept per slice and key: a slice is the stretch of time all of
//! whose rows share their windows (for TUMBLE, the window itself). Each
//! slice holds a hash table from the key (in arrow's row format) to a dense
//! group id, and one columnar [`Accumulator`] per aggregate. A window fires
//! when the watermark reaches `window_end - 1`: it emits one row per key, in
//! the order of each key's first row in the window, then its state is
//! freed once it can no longer change (`window_end - 1 + lateness`).

use crate::ops::accumulators::{new_accumulator, Accumulator};
use crate::ops::emit::{
    key_converter, late_rows, window_time_zone, Emitter, Windowed, WindowedState,
};
use crate::ops::emitted::{Emitted, ResultRows};
use crate::ops::operator::{vec_bytes, OperatorMetrics, StateSize};
use crate::runtime::snapshot::{corrupt, get_keys, put_keys, Persist, StateReader, StateWriter};
use crate::runtime::stream::Chunk;
use crate::time::last_instant;
use crate::time::service::{EventTime, TimerHandler};
use crate::time::slicing::Slicing;
use crate::time::trace::{instant, TraceEvent, TraceLine};
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, TimestampMillisecondArray, UInt32Array};
use arrow::datatypes::{SchemaRef, TimestampMillisecondType};
use arrow::row::{RowConverter, Rows};
use hashbrown::HashTable;
use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::ops::Range;
use std::sync::Arc;
use tidemark_common::expr::AggregateCall;
use tidemark_common::time::window_start;
use tidemark_common::window::WindowKind;
use tidemark_common::{Error, Result, RowKind, SqlType};

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
    pub trace: bool,
    /// Early firing: open windows emit their partial results every this
    /// many ms of watermark progress (`tidemark.emit.early-fire`).
    pub early_fire: Option<i64>,
    /// The operator is one of several that split the keys between them
    /// (see [`crate::ops::partitioned`]).
    pub key_share: Option<KeyShare>,
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

/// Where Flink's two-phase window aggregation flushes its buffers, which
/// decides how DOUBLE additions are grouped. At a watermark advance that
/// reaches a window boundary (every timer here sits on one), the local
/// buffer flushes if a window it holds rows of is due or it holds a late
/// row; then the global side flushes if a window it holds partials of is
/// due; then due windows fire.
#[derive(Debug)]
struct TwoPhase {
    /// A late row arrived since the last local flush.
    late_row_buffered: bool,
    /// The watermark at which flushing was last considered.
    checked_at: i64,
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
    /// Keys in arrow's row format, one per group.
    keys: Option<Rows>,
    table: HashTable<u32>,
    hashes: Vec<u64>,
    /// Arrival number of each group's first row: a window emits its keys
    /// in that order.
    first_seq: Vec<u64>,
    accumulators: Vec<Box<dyn Accumulator>>,
    groups: u32,
    /// Rows added, per group; counted only for the trace.
    group_rows: Vec<u64>,
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
    window_time_zone: Option<Arc<str>>,
    trace: bool,
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
    hasher: foldhash::fast::FixedState,
    metrics: OperatorMetrics,
    /// Scratch buffers reused across chunks.
    scratch_rows: Vec<(i64, u32, Vec<u32>)>,
    /// How many rows came in before the current run: rows' arrival numbers.
    rows_seen: u64,
    /// This operator aggregates some of the keys only.
    key_share: Option<KeyShare>,
    two_phase: Option<TwoPhase>,
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
        let two_phase_sums =
            spec.two_phase_sums && matches!(slicing, Slicing::Tumble { .. }) && spec.zone.is_none();
        for call in &spec.aggregates {
            new_accumulator(call)?;
        }
        let key_converter = key_converter(&spec.key_types)?;
        let window_time_zone = window_time_zone(&spec.output_schema, spec.key_columns.len())?;
        let result_rows = (spec.lateness > 0 || spec.early_fire.is_some())
            .then(|| ResultRows::new(&spec.output_schema))
            .transpose()?;
        Ok(Windowed::from_state(WindowState {
            slicing,
            zone: spec.zone,
            lateness: spec.lateness,
            time_column: spec.time_column,
            key_columns: spec.key_columns,
            key_types: spec.key_types,
            key_converter,
            aggregates: spec.aggregates,
            output_schema: spec.output_schema,
            window_time_zone,
            trace: spec.trace,
            early_fire: spec.early_fire.filter(|every| *every > 0),
            early_tick: None,
            slices: BTreeMap::new(),
            fired: BTreeMap::new(),
            result_rows,
            hasher: foldhash::fast::FixedState::with_seed(0x7469_6465),
            metrics: OperatorMetrics::default(),
            scratch_rows: Vec::new(),
            rows_seen: 0,
            key_share: spec.key_share,
            two_phase: two_phase_sums.then_some(TwoPhase {
                late_row_buffered: false,
                checked_at: tidemark_common::time::NO_WATERMARK,
            }),
        }))
    }
}

impl WindowedState for WindowState {
    const NAME: &'static str = "WindowAggregate";

    fn metrics(&self) -> &OperatorMetrics {
        &self.metrics
    }

    fn metrics_mut(&mut self) -> &mut OperatorMetrics {
        &mut self.metrics
    }

    fn state(&self) -> StateSize {
        let mut size = StateSize::default();
        for slice in self.slices.values() {
            size.entries += u64::from(slice.groups);
            size.bytes += slice.keys.as_ref().map_or(0, |k| k.size() as u64)
                + vec_bytes(&slice.hashes)
                + vec_bytes(&slice.first_seq)
                + vec_bytes(&slice.group_rows)
                + (slice.table.capacity() * (std::mem::size_of::<u32>() + 1)) as u64
                + slice
                    .accumulators
                    .iter()
                    .map(|a| a.state_bytes())
                    .sum::<u64>();
        }
        size.bytes += self.fired.values().map(Emitted::state_bytes).sum::<u64>();
        size
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.slices.len() as u64);
        for (end, slice) in &self.slices {
            w.put(end);
            w.put(&slice.local_dirty);
            w.put(&slice.global_dirty);
            w.put(&slice.groups);
            if let (Some(keys), Some(conv)) = (&slice.keys, &self.key_converter) {
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
        w.put(&self.metrics);
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
            slice.groups = r.get()?;
            if let Some(conv) = &self.key_converter {
                let keys = get_keys(r, conv)?;
                if keys.num_rows() != slice.groups as usize {
                    return Err(corrupt("a slice's groups do not add up"));
                }
                // Keyed groups are found by their hash (a keyless slice
                // has its one group without).
                slice.hashes = keys
                    .iter()
                    .map(|row| self.hasher.hash_one(row.as_ref()))
                    .collect();
                let hashes = &slice.hashes;
                for g in 0..slice.groups {
                    slice
                        .table
                        .insert_unique(hashes[g as usize], g, |&x| hashes[x as usize]);
                }
                slice.keys = Some(keys);
            }
            slice.first_seq = r.get()?;
            slice.group_rows = r.get()?;
            let groups = slice.groups as usize;
            // Rows per group are only counted for the trace.
            if slice.first_seq.len() != groups || slice.group_rows.len() > groups {
                return Err(corrupt("a slice's groups do not add up"));
            }
            if self.trace {
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
        self.metrics = r.get()?;
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
            Some(tz) => crate::formats::csv::local_to_instant(window_end, tz).unwrap_or(window_end),
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
            Some(tz) => crate::formats::print::to_wall_clock(instant, tz).unwrap_or(instant),
        }
    }

    fn new_slice(&self) -> Result<Slice> {
        Ok(Slice {
            local_dirty: false,
            global_dirty: false,
            keys: self.key_converter.as_ref().map(|c| c.empty_rows(0, 0)),
            table: HashTable::new(),
            hashes: Vec::new(),
            first_seq: Vec::new(),
            accumulators: self
                .aggregates
                .iter()
                .map(new_accumulator)
                .collect::<Result<Vec<_>>>()?,
            groups: 0,
            group_rows: Vec::new(),
        })
    }

    /// The slices of the window ending at `window_end`, in the order its
    /// results merge them: a HOP window starts from its newest slice and
    /// adds older ones (which LISTAGG shows); a CUMULATE window grows from
    /// its oldest. FIRST_VALUE and LAST_VALUE go by time either way.
    fn window_parts(&self, window_end: i64) -> (Vec<&Slice>, bool) {
        use std::ops::Bound::{Excluded, Included};
        let start = self.slicing.window_start(window_end);
        let mut parts: Vec<&Slice> = self
            .slices
            .range((Excluded(start), Included(window_end)))
            .map(|(_, s)| s)
            .collect();
        let newest_first = matches!(self.slicing, Slicing::Hop { .. });
        if newest_first {
            parts.reverse();
        }
        (parts, newest_first)
    }

    /// Emits the window ending at `window_end`: on time, or `early` (its
    /// partial result). A window that emitted before emits only what
    /// changed for each key: `-U` old `+U` new, `+I` for a new key.
    fn emit_window(
        &mut self,
        window_end: i64,
        watermark: i64,
        emitter: &mut Emitter,
        early: bool,
    ) -> Result<()> {
        let (parts, newest_first) = self.window_parts(window_end);
        let merged;
        let (slice, order): (&Slice, Vec<u32>) = match parts.as_slice() {
            [] => return Ok(()),
            // One slice (always, for TUMBLE): its groups are numbered in
            // the order of their first row already.
            [only] => (only, (0..only.groups).collect()),
            _ => {
                merged = self.merge_slices(&parts, newest_first, None)?;
                let mut order: Vec<u32> = (0..merged.groups).collect();
                order.sort_by_key(|g| merged.first_seq[*g as usize]);
                (&merged, order)
            }
        };
        if order.is_empty() {
            return Ok(());
        }
        let batch = self.window_batch(window_end, slice, &order)?;
        if self.trace {
            let event = if early {
                TraceEvent::Early
            } else {
                TraceEvent::Fire
            };
            emitter.side(
                TraceLine::new(event, Self::NAME)
                    .window(self.slicing.window_start(window_end), window_end)
                    .field("keys", order.len())
                    .field("rows", slice.group_rows.iter().sum::<u64>())
                    .watermark(watermark),
            );
        }
        let keys: Vec<Box<[u8]>> = order
            .iter()
            .map(|g| match &slice.keys {
                Some(keys) => keys.row(*g as usize).as_ref().into(),
                None => Box::default(),
            })
            .collect();
        if !early {
            self.metrics.window_fired(watermark);
        }
        // What was emitted is kept while rows may still change it: until
        // the window fires (early firing) or is cleaned up (lateness).
        let keep = early || self.lateness > 0;
        let Some(compare) = &self.result_rows else {
            emitter.rows(batch, RowKind::Insert);
            return Ok(());
        };
        match self.fired.remove(&window_end) {
            None => {
                if keep {
                    let emitted = Emitted::first(compare, batch.clone(), keys)?;
                    self.fired.insert(window_end, emitted);
                }
                emitter.rows(batch, RowKind::Insert);
            }
            // Results were emitted before (early): each key's changes only.
            Some(mut emitted) => {
                if let Some((changes, kinds)) = emitted.update(compare, batch, keys)? {
                    emitter.changelog(changes, kinds);
                }
                if keep {
                    self.fired.insert(window_end, emitted);
                }
            }
        }
        Ok(())
    }

    /// Early firing: every open window emits what changed since it last
    /// emitted, and the next tick is set if windows are still open.
    fn fire_early(
        &mut self,
        time: &mut EventTime<WindowTimer>,
        emitter: &mut Emitter,
    ) -> Result<()> {
        let watermark = time.watermark();
        let open: std::collections::BTreeSet<i64> = self
            .slices
            .keys()
            .flat_map(|slice_end| self.slicing.window_ends(*slice_end))
            .filter(|end| self.fire_time(*end) > watermark)
            .collect();
        for window_end in &open {
            self.emit_window(*window_end, watermark, emitter, true)?;
        }
        self.early_tick = None;
        if !open.is_empty() {
            self.schedule_early(time, watermark);
        }
        Ok(())
    }

    /// Sets the next early-firing tick after `watermark`, unless one is
    /// set. Returns it.
    fn schedule_early(&mut self, time: &mut EventTime<WindowTimer>, watermark: i64) -> Option<i64> {
        let every = self.early_fire?;
        if self.early_tick.is_none() {
            let tick = window_start(watermark.saturating_add(1), 0, every).saturating_add(every);
            time.register(tick, WindowTimer::Early);
            self.early_tick = Some(tick);
        }
        self.early_tick
    }

    /// The result rows of `groups` of `slice` (merged for the window ending
    /// at `window_end`), in that order.
    fn window_batch(&self, window_end: i64, slice: &Slice, groups: &[u32]) -> Result<RecordBatch> {
        let n = groups.len();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.output_schema.fields().len());
        if let (Some(conv), Some(keys)) = (&self.key_converter, &slice.keys) {
            columns.extend(conv.convert_rows(groups.iter().map(|g| keys.row(*g as usize)))?);
        }
        columns.push(Arc::new(TimestampMillisecondArray::from_value(
            self.slicing.window_start(window_end),
            n,
        )));
        columns.push(Arc::new(TimestampMillisecondArray::from_value(
            window_end, n,
        )));
        columns.push(Arc::new(
            TimestampMillisecondArray::from_value(self.fire_time(window_end), n)
                .with_timezone_opt(self.window_time_zone.clone()),
        ));
        for acc in &slice.accumulators {
            columns.push(acc.evaluate(groups)?);
        }
        if self.key_share.is_some() {
            columns.push(Arc::new(arrow::array::UInt64Array::from_iter_values(
                groups.iter().map(|g| slice.first_seq[*g as usize]),
            )));
        }
        Ok(RecordBatch::try_new(self.output_schema.clone(), columns)?)
    }

    /// A late row of `key` was added to the window ending at `window_end`,
    /// which had fired: it fires again for that key at once, as an update
    /// of what it emitted (`-U` old, `+U` new), as a first result (`+I`)
    /// if the key had none there, and not at all if nothing changed.
    fn refire(
        &mut self,
        window_end: i64,
        key: &[u8],
        watermark: i64,
        emitter: &mut Emitter,
    ) -> Result<()> {
        let (parts, newest_first) = self.window_parts(window_end);
        let only = (key, self.hasher.hash_one(key));
        let merged = self.merge_slices(&parts, newest_first, Some(only))?;
        if merged.groups == 0 {
            return Err(Error::Internal("a re-fired key has no rows".into()));
        }
        let new = self.window_batch(window_end, &merged, &[0])?;
        if self.trace {
            emitter.side(
                TraceLine::new(TraceEvent::Refire, Self::NAME)
                    .key(&new.columns()[..self.key_columns.len()], &self.key_types, 0)?
                    .window(self.slicing.window_start(window_end), window_end)
                    .field("rows", merged.group_rows.iter().sum::<u64>())
                    .watermark(watermark),
            );
        }
        let Some(compare) = &self.result_rows else {
            return Err(Error::Internal("a re-fire without lateness".into()));
        };
        let changes =
            self.fired
                .entry(window_end)
                .or_default()
                .update_key(compare, new, key.into())?;
        if let Some((changes, kinds)) = changes {
            emitter.changelog(changes, kinds);
        }
        Ok(())
    }

    /// One slice holding the merge of `parts`, in the order given: keys are
    /// matched across slices, each key's first arrival is the earliest, and
    /// accumulators merge in that order. With `only` (a key in arrow's row
    /// format and its hash), just that key's group.
    fn merge_slices(
        &self,
        parts: &[&Slice],
        newest_first: bool,
        only: Option<(&[u8], u64)>,
    ) -> Result<Slice> {
        let mut window = self.new_slice()?;
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for part in parts {
            pairs.clear();
            let groups: Vec<u32> = match (only, &part.keys) {
                (Some((key, hash)), Some(keys)) => part
                    .table
                    .find(hash, |&g| {
                        part.hashes[g as usize] == hash && keys.row(g as usize).as_ref() == key
                    })
                    .copied()
                    .into_iter()
                    .collect(),
                _ => (0..part.groups).collect(),
            };
            for g in groups {
                let dst = match (&part.keys, &mut window.keys) {
                    (Some(keys), Some(window_keys)) => {
                        let row = keys.row(g as usize);
                        let hash = part.hashes[g as usize];
                        let hashes = &window.hashes;
                        let found = window
                            .table
                            .find(hash, |&w| {
                                hashes[w as usize] == hash && window_keys.row(w as usize) == row
                            })
                            .copied();
                        match found {
                            Some(w) => w,
                            None => {
                                let w = window.groups;
                                window.groups += 1;
                                window_keys.push(row);
                                window.hashes.push(hash);
                                window.first_seq.push(part.first_seq[g as usize]);
                                let hashes = &window.hashes;
                                window.table.insert_unique(hash, w, |&x| hashes[x as usize]);
                                w
                            }
                        }
                    }
                    _ => {
                        if window.groups == 0 {
                            window.groups = 1;
                            window.first_seq.push(part.first_seq[0]);
                        }
                        0
                    }
                };
                let seq = &mut window.first_seq[dst as usize];
                *seq = (*seq).min(part.first_seq[g as usize]);
                pairs.push((g, dst));
            }
            for (into, from) in window.accumulators.iter_mut().zip(&part.accumulators) {
                into.merge_from(from.as_ref(), &pairs, newest_first)?;
            }
            if self.trace {
                window.group_rows.resize(window.groups as usize, 0);
                for (src, dst) in &pairs {
                    window.group_rows[*dst as usize] += part.group_rows[*src as usize];
                }
            }
        }
        Ok(window)
    }

    /// The windows of the slice ending at `slice_end` that have fired at
    /// `watermark` but are not cleaned up: a row added to the slice then
    /// re-fires them. Earliest first.
    fn refires(&self, slice_end: i64, watermark: i64) -> impl Iterator<Item = i64> + '_ {
        self.slicing.window_ends(slice_end).filter(move |end| {
            self.fire_time(*end) <= watermark && self.cleanup_time(*end) > watermark
        })
    }

    /// The window ending at `window_end` can no longer change: its slices
    /// no later window needs are freed, and what it emitted is forgotten.
    fn clean_up(&mut self, window_end: i64, watermark: i64, out: &mut Emitter) {
        self.free_slices_through(window_end);
        self.fired.retain(|end, _| *end > window_end);
        if self.trace {
            out.side(
                TraceLine::new(TraceEvent::Cleanup, Self::NAME)
                    .window(self.slicing.window_start(window_end), window_end)
                    .watermark(watermark),
            );
        }
    }

    /// Frees the slices no window after `window_end` needs.
    fn free_slices_through(&mut self, window_end: i64) {
        let slicing = self.slicing;
        self.slices
            .retain(|slice_end, _| slicing.last_window_end(*slice_end) > window_end);
    }
}

impl WindowState {
    /// Flink's buffer flushes at this watermark advance, once per advance
    /// and before any window fires.
    fn flush_two_phase(&mut self, watermark: i64) {
        let Some(tp) = &mut self.two_phase else {
            return;
        };
        if tp.checked_at == watermark {
            return;
        }
        tp.checked_at = watermark;
        let due = |end: i64| last_instant(end) <= watermark;
        if tp.late_row_buffered
            || self
                .slices
                .iter()
                .any(|(end, s)| s.local_dirty && due(*end))
        {
            tp.late_row_buffered = false;
            for slice in self.slices.values_mut().filter(|s| s.local_dirty) {
                slice.accumulators.iter_mut().for_each(|a| a.local_flush());
                slice.local_dirty = false;
                slice.global_dirty = true;
            }
        }
        if self
            .slices
            .iter()
            .any(|(end, s)| s.global_dirty && due(*end))
        {
            for slice in self.slices.values_mut().filter(|s| s.global_dirty) {
                slice.accumulators.iter_mut().for_each(|a| a.global_flush());
                slice.global_dirty = false;
            }
        }
    }
}

/// The slice of the row before, with when its windows are cleaned up:
/// consecutive rows mostly share a slice, so its bounds are computed once.
#[derive(Clone, Copy)]
struct RecentSlice {
    start: i64,
    end: i64,
    /// When the slice's first window is cleaned up: a row in it is late
    /// for some of its windows from then on.
    cleaned: i64,
    /// When its last window is: a row in it is late for all of them.
    all_cleaned: i64,
}

impl RecentSlice {
    fn holds(&self, wall: i64) -> bool {
        self.start <= wall && wall < self.end
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
        let len = range.len();
        let batch = chunk.batch.slice(range.start, len);
        let watermarks = &chunk.watermarks[range.clone()];
        let ts = batch
            .column(self.time_column)
            .as_primitive::<TimestampMillisecondType>();
        let ts_values = ts.values();
        // The rows this operator aggregates (all, unless it has a share of
        // the keys) and their keys; `key_of[r]` is row r's key.
        let mine = self.key_share.map(|share| {
            let owners = batch.column(batch.num_columns() - 1);
            (
                owners
                    .as_primitive::<arrow::datatypes::UInt8Type>()
                    .values()
                    .clone(),
                share.index,
            )
        });
        let is_mine = |r: usize| mine.as_ref().is_none_or(|(owners, me)| owners[r] == *me);
        let (keys, key_of) = match mine {
            None => (
                crate::ops::emit::row_keys(self.key_converter.as_ref(), &batch, &self.key_columns)?,
                None,
            ),
            Some(_) => {
                let own =
                    UInt32Array::from_iter_values((0..len as u32).filter(|r| is_mine(*r as usize)));
                let mut key_of = vec![u32::MAX; len];
                for (k, r) in own.values().iter().enumerate() {
                    key_of[*r as usize] = k as u32;
                }
                let own_keys = match &self.key_converter {
                    None => None,
                    Some(converter) => {
                        let columns = self
                            .key_columns
                            .iter()
                            .map(|c| arrow::compute::take(batch.column(*c), &own, None))
                            .collect::<std::result::Result<Vec<_>, _>>()?;
                        Some(converter.convert_columns(&columns)?)
                    }
                };
                (own_keys, Some(key_of))
            }
        };
        let key_row = |r: u32| key_of.as_ref().map_or(r, |k| k[r as usize]) as usize;
        let reports_late_rows = self.key_share.is_none_or(|s| s.index == 0);

        // Rows per slice, in arrival order, with the first row of the run
        // that falls in it (a row of another share may create a slice);
        // late rows are counted and left out. Consecutive rows usually
        // share a slice, so the last one used is checked first.
        let mut per_slice = std::mem::take(&mut self.scratch_rows);
        per_slice.iter_mut().for_each(|(_, _, rows)| rows.clear());
        let mut used = 0usize;
        let mut last: Option<usize> = None;
        // The run ends before the first row whose watermark reaches a timer
        // an earlier row of the run set (a new window's fire time, or a
        // flush point after a late row): the event-time service says so.
        // New windows' timers are registered after the loop, so they are
        // foreseen in it.
        let mut consumed = len;
        // A row for windows that fired but are not cleaned up re-fires
        // them at once, before the next row: it is taken in a run of its
        // own.
        let mut refire: Option<(i64, i64)> = None;
        // Late rows, by row of the chunk, when they are routed.
        let mut late: Vec<u32> = Vec::new();
        let mut recent: Option<RecentSlice> = None;
        for i in 0..len {
            if !time.admit(watermarks[i]) {
                consumed = i;
                break;
            }
            if ts.is_null(i) {
                continue;
            }
            let wall = self.wall_clock(ts_values[i]);
            let slice = match recent {
                Some(s) if s.holds(wall) => s,
                _ => {
                    let (start, end) = self.slicing.slice_bounds(wall);
                    let s = RecentSlice {
                        start,
                        end,
                        cleaned: self.cleanup_time(end),
                        all_cleaned: self.cleanup_time(self.slicing.last_window_end(end)),
                    };
                    recent = Some(s);
                    s
                }
            };
            let mut end = slice.end;
            if slice.all_cleaned <= watermarks[i] {
                if reports_late_rows {
                    self.metrics.late_rows += 1;
                    self.metrics
                        .lateness
                        .push(watermarks[i].saturating_sub(ts_values[i]));
                    if chunk.origin.is_some() {
                        late.push((range.start + i) as u32);
                    }
                }
                if self.trace {
                    let last = self.slicing.last_window_end(end);
                    let key_columns: Vec<ArrayRef> = self
                        .key_columns
                        .iter()
                        .map(|c| batch.column(*c).clone())
                        .collect();
                    out.side(
                        TraceLine::new(TraceEvent::Late, Self::NAME)
                            .key(&key_columns, &self.key_types, i)?
                            .window(self.slicing.window_start(last), last)
                            .field("rowtime", instant(ts_values[i]))
                            .watermark(watermarks[i]),
                    );
                }
                if let Some(tp) = &mut self.two_phase {
                    tp.late_row_buffered = true;
                    let unit = self.slicing.unit();
                    let gate =
                        window_start(watermarks[i].saturating_add(1), self.slicing.offset(), unit)
                            .saturating_add(unit - 1);
                    time.register(gate, WindowTimer::Gate);
                }
                continue;
            }
            // Late for its earliest windows, on time for later ones.
            let partially_late = slice.cleaned <= watermarks[i];
            if partially_late {
                if let Slicing::Cumulate { step, offset, .. } = self.slicing {
                    // Flink adds such a row to the running total of the
                    // cycle, after every slice merged so far: the slice of
                    // the last window cleaned up (with no lateness, the
                    // last that fired).
                    let cleaned = watermarks[i].saturating_sub(self.lateness);
                    let wall = self.wall_clock(cleaned).saturating_add(1);
                    end = end.max(window_start(wall, offset, step));
                }
            }
            if self.lateness > 0
                && self.fire_time(end) <= watermarks[i]
                && self.refires(end, watermarks[i]).next().is_some()
            {
                if i > 0 {
                    consumed = i;
                    break;
                }
                refire = Some((end, watermarks[i]));
            }
            if partially_late && reports_late_rows {
                self.metrics.partially_late_rows += 1;
            }
            let slot = match last {
                Some(s) if per_slice[s].0 == end => s,
                _ => match per_slice[..used].iter().position(|(e, _, _)| *e == end) {
                    Some(s) => s,
                    None => {
                        if used == per_slice.len() {
                            per_slice.push((end, i as u32, Vec::new()));
                        } else {
                            per_slice[used].0 = end;
                            per_slice[used].1 = i as u32;
                        }
                        if !self.slices.contains_key(&end) {
                            if let Some(every) =
                                self.early_fire.filter(|_| self.early_tick.is_none())
                            {
                                let tick = window_start(watermarks[i].saturating_add(1), 0, every)
                                    .saturating_add(every);
                                time.foresee(tick);
                            }
                            // The slice's first window still to fire.
                            if let Some(first) = self
                                .slicing
                                .window_ends(end)
                                .find(|e| self.fire_time(*e) > watermarks[i])
                            {
                                time.foresee(self.fire_time(first));
                            }
                        }
                        used += 1;
                        used - 1
                    }
                },
            };
            last = Some(slot);
            if is_mine(i) {
                per_slice[slot].2.push(i as u32);
            }
            if refire.is_some() {
                consumed = 1;
                break;
            }
        }

        let mut groups: Vec<u32> = Vec::new();
        for (end, first, rows) in &per_slice[..used] {
            let end = *end;
            if !self.slices.contains_key(&end) {
                let slice = self.new_slice()?;
                self.slices.insert(end, slice);
                // Every window of the new slice that has not fired yet; the
                // earlier ones fired without it (its rows are partly late).
                let watermark = time.watermark().max(watermarks[*first as usize]);
                self.schedule_early(time, watermark);
                for window_end in self.slicing.window_ends(end) {
                    if self.fire_time(window_end) > watermark {
                        time.register(self.fire_time(window_end), WindowTimer::Fire(window_end));
                    }
                    if self.lateness > 0 && self.cleanup_time(window_end) > watermark {
                        time.register(
                            self.cleanup_time(window_end),
                            WindowTimer::Cleanup(window_end),
                        );
                    }
                }
            }
            let slice = self
                .slices
                .get_mut(&end)
                .ok_or_else(|| Error::Internal("slice vanished".into()))?;
            slice.local_dirty = true;
            if rows.is_empty() {
                continue;
            }
            groups.clear();
            match (&keys, &mut slice.keys) {
                (Some(keys), Some(slice_keys)) => {
                    for &r in rows {
                        let row = keys.row(key_row(r));
                        let hash = self.hasher.hash_one(row.as_ref());
                        let hashes = &slice.hashes;
                        let found = slice
                            .table
                            .find(hash, |&g| {
                                hashes[g as usize] == hash && slice_keys.row(g as usize) == row
                            })
                            .copied();
                        let g = match found {
                            Some(g) => g,
                            None => {
                                let g = slice.groups;
                                slice.groups += 1;
                                slice_keys.push(row);
                                slice.hashes.push(hash);
                                slice.first_seq.push(self.rows_seen + r as u64);
                                let hashes = &slice.hashes;
                                slice.table.insert_unique(hash, g, |&x| hashes[x as usize]);
                                g
                            }
                        };
                        groups.push(g);
                    }
                }
                _ => {
                    if slice.groups == 0 {
                        slice.groups = 1;
                        slice.first_seq.push(self.rows_seen + rows[0] as u64);
                    }
                    groups.resize(rows.len(), 0);
                }
            }
            for (acc, call) in slice.accumulators.iter_mut().zip(&self.aggregates) {
                let values = call.arg.map(|c| batch.column(c));
                acc.update(values, rows, &groups)?;
            }
            if self.trace {
                slice.group_rows.resize(slice.groups as usize, 0);
                for g in &groups {
                    slice.group_rows[*g as usize] += 1;
                }
            }
        }
        self.scratch_rows = per_slice;
        self.rows_seen += consumed as u64;
        if let Some(item) = late_rows(chunk, &late, Self::NAME, LATE_REASON)? {
            out.side(item);
        }
        if let Some((end, watermark)) = refire {
            self.metrics.late_rows_accepted += 1;
            let key: Vec<u8> = keys
                .as_ref()
                .map_or(Vec::new(), |k| k.row(0).as_ref().to_vec());
            // Newest window first, as Flink's late firing goes through a
            // row's windows.
            let windows: Vec<i64> = self.refires(end, watermark).collect();
            for window_end in windows.into_iter().rev() {
                self.refire(window_end, &key, watermark, out)?;
            }
        }
        Ok(consumed)
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
                    self.clean_up(end, time.watermark(), out);
                }
            }
            WindowTimer::Cleanup(end) => self.clean_up(end, time.watermark(), out),
            WindowTimer::Early => self.fire_early(time, out)?,
        }
        Ok(())
    }
}
