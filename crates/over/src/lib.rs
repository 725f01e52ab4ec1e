//! OVER aggregation ordered by rowtime (spec §4), on the shared event-time
//! service: `agg(x) OVER (PARTITION BY k ORDER BY ts ROWS|RANGE BETWEEN
//! ... PRECEDING AND CURRENT ROW)`.
//!
//! A row is buffered under its rowtime with a timer there; when the
//! watermark advances past it, the row goes out with its aggregates, so
//! each key's rows come out in rowtime order (ties in arrival order) even
//! when they arrived out of order. A row accepted behind the watermark goes
//! out at the next advance. A row is late — dropped, counted, traced and
//! routed like any late row — only when its rowtime is not after the last
//! rowtime its key has emitted.
//!
//! With `tidemark.state.ttl` (spec §10) a key's state — its frame rows,
//! running aggregates and last emitted rowtime — expires when the
//! watermark reaches its last emitted rowtime + ttl, on a timer of its
//! own; the key's number is given back once no row of it waits. A row of
//! a key without state is late (`expired`) when its rowtime is ttl or
//! more behind the watermark, and otherwise starts from empty state, as a
//! first row does.
//!
//! The work per row is small: rows are kept as references into the input
//! batches they came in, a timer firing only records which rows went out
//! and which rows were in their frames, and the output of a whole input
//! chunk is built at once — input columns with `interleave`, aggregates by
//! feeding every frame's rows to the same accumulators the window
//! aggregations use, one group per output row.

mod frames;
mod pending;
mod store;
#[cfg(test)]
mod tests;

use arrow::array::Array;
use arrow::datatypes::SchemaRef;
use arrow::row::RowConverter;
use frames::{Frames, Layout, Out};
use pending::Pending;
use std::ops::Range;
use store::{RowRef, Store};
use tidemark_common::expr::AggregateCall;
use tidemark_common::time::NO_WATERMARK;
use tidemark_common::window::OverFrame;
use tidemark_common::{Error, Result, SqlType};
use tidemark_engine::snapshot::{StateReader, StateWriter};
use tidemark_engine::StateSize;
use tidemark_engine::{instant, TraceEvent, TraceLine};
use tidemark_engine::{key_converter, ChunkRows, KeyIds, LateBook};
use tidemark_engine::{Chunk, SideItem, StreamItem};
use tidemark_engine::{EventTime, TimerHandler};
use tidemark_engine::{Operator, OperatorMetrics};

/// What an OVER aggregation computes.
pub struct OverSpec {
    pub partition: Vec<usize>,
    pub key_types: Vec<SqlType>,
    pub time_column: usize,
    pub frame: OverFrame,
    pub aggregates: Vec<AggregateCall>,
    /// Output: every input column, then one column per aggregate.
    pub output_schema: SchemaRef,
    pub trace: bool,
    /// `tidemark.state.ttl` in milliseconds: how long after its last
    /// emitted rowtime (in event time) a key's state is kept.
    pub ttl: Option<i64>,
}

/// Why an OVER aggregation drops a row (the `late_reason` of late-row
/// sinks).
pub const LATE_REASON: &str = "its key already emitted a row at or after its rowtime";

/// Why an OVER aggregation with a state ttl drops a row of a key whose
/// state has expired (or that never had any).
pub const EXPIRED_REASON: &str =
    "expired: its key has no state and the row is at least tidemark.state.ttl behind the watermark";

/// The timers of an OVER aggregation: the rows waiting go out, or a key's
/// state expires. At one instant rows go out first, so a key's last row
/// there counts before its state is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum OverTimer {
    Emit,
    Expire(u32),
}

impl tidemark_engine::snapshot::Persist for OverTimer {
    fn save(&self, w: &mut StateWriter) {
        match self {
            OverTimer::Emit => w.u8(0),
            OverTimer::Expire(key) => {
                w.u8(1);
                w.put(key);
            }
        }
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok(match r.u8()? {
            0 => OverTimer::Emit,
            1 => OverTimer::Expire(r.get()?),
            _ => {
                return Err(Error::Internal(
                    "a checkpoint names an unknown OVER timer".into(),
                ))
            }
        })
    }
}

const NAME: &str = "OverAggregate";

/// The operator: the OVER state on the shared event-time service.
pub struct OverAggregate {
    time: EventTime<OverTimer>,
    state: OverState,
    /// The watermark downstream has been told.
    forwarded: i64,
}

struct OverState {
    spec: OverSpec,
    key_converter: Option<RowConverter>,
    /// Key (arrow's row format) to key id, in first-arrival order.
    key_ids: KeyIds,
    keys: Vec<KeyState>,
    /// Rows waiting for the watermark, earliest (rowtime, arrival) first.
    pending: Pending,
    /// The one timer set: at the earliest rowtime waiting. When it fires,
    /// every row the watermark has passed goes out, and the next is set.
    timer: Option<i64>,
    store: Store,
    frames: Frames,
    /// Scratch for a timer: the rows due, and the same rows by key (one
    /// key's, or all of them sorted out).
    due: Vec<(u32, RowRef)>,
    group: Vec<RowRef>,
    by_key: ByKey,
    /// The rowtimes and keys of the chunk going through, read once for all
    /// its runs (a run is mostly a row: the watermark reaches the next
    /// rowtime waiting at nearly every row).
    chunk_rows: Option<ChunkRows>,
    /// Rows seen so far: each row's arrival number.
    seen: u64,
    metrics: OperatorMetrics,
    /// The late rows of the current run: behind their key's last emitted
    /// rowtime, or of a key whose state expired.
    late: LateBook,
    expired: LateBook,
    /// Output and side items, in the order they happened.
    out: Vec<StreamItem>,
}

#[derive(Clone, Copy)]
struct KeyState {
    /// The rowtime of the key's last emitted row; −∞ before the first (or
    /// once its state expired).
    last_emitted: i64,
    /// Its rows waiting for the watermark.
    waiting: u32,
    /// When its state expires, with a ttl.
    expires_at: Expiry,
    /// When its expiry timer is set, if it is: at or before `expires_at`.
    /// A row going out moves `expires_at` later but leaves the timer,
    /// which on firing is set again at `expires_at` — one timer per ttl,
    /// not one per row.
    expiry_timer: Expiry,
}

/// An instant of a key's expiry, or none, in the 8 bytes of the instant
/// (an `Option<i64>` takes 16, and with millions of keys each holds two):
/// none is `i64::MIN`, which no expiry is — it comes after a rowtime the
/// key emitted, and an emitted rowtime is after −∞.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Expiry(i64);

impl Expiry {
    const NONE: Expiry = Expiry(i64::MIN);

    fn at(instant: i64) -> Self {
        debug_assert_ne!(instant, i64::MIN, "an expiry at −∞");
        Expiry(instant)
    }

    fn get(self) -> Option<i64> {
        (self != Self::NONE).then_some(self.0)
    }

    /// Written as an `Option<i64>`, as before it was packed.
    fn save(self, w: &mut StateWriter) {
        w.put(&self.get());
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        match r.get::<Option<i64>>()? {
            None => Ok(Self::NONE),
            Some(i64::MIN) => Err(tidemark_engine::snapshot::corrupt(
                "an OVER key expiring at −∞",
            )),
            Some(instant) => Ok(Expiry(instant)),
        }
    }
}

impl KeyState {
    const EMPTY: KeyState = KeyState {
        last_emitted: NO_WATERMARK,
        waiting: 0,
        expires_at: Expiry::NONE,
        expiry_timer: Expiry::NONE,
    };

    /// Whether the key holds no state: no row emitted since its state
    /// last expired (or ever), none waiting.
    fn is_empty(&self) -> bool {
        self.last_emitted == NO_WATERMARK && self.waiting == 0
    }
}

impl OverAggregate {
    pub fn new(spec: OverSpec) -> Result<Self> {
        Self::with_layout(spec, Layout::Blocks)
    }

    /// An OVER aggregation keeping short ROWS frames in `layout`.
    fn with_layout(spec: OverSpec, layout: Layout) -> Result<Self> {
        if spec.frame.preceding.is_some_and(|p| p < 0) {
            return Err(Error::Internal("a negative OVER frame".into()));
        }
        let key_converter = key_converter(&spec.key_types)?;
        let frames = Frames::with_layout(&spec, layout)?;
        Ok(OverAggregate {
            time: EventTime::new(),
            state: OverState {
                spec,
                key_converter,
                key_ids: KeyIds::default(),
                due: Vec::new(),
                group: Vec::new(),
                by_key: ByKey::default(),
                keys: Vec::new(),
                pending: Pending::default(),
                timer: None,
                store: Store::default(),
                frames,
                chunk_rows: None,
                seen: 0,
                metrics: OperatorMetrics::default(),
                late: LateBook::new(NAME, LATE_REASON),
                expired: LateBook::new(NAME, EXPIRED_REASON),
                out: Vec::new(),
            },
            forwarded: NO_WATERMARK,
        })
    }
}

impl Operator for OverAggregate {
    fn name(&self) -> String {
        NAME.into()
    }

    fn process(&mut self, item: StreamItem, out: &mut Vec<StreamItem>) -> Result<()> {
        let mut ignored = ();
        let ended = matches!(item, StreamItem::End);
        match item {
            StreamItem::Chunk(chunk) => {
                self.state.metrics.rows_in += chunk.num_rows() as u64;
                self.state.store.add(&chunk);
                let s = &mut self.state;
                s.chunk_rows = Some(ChunkRows::new(
                    &chunk,
                    s.spec.time_column,
                    s.key_converter.as_ref(),
                    &s.spec.partition,
                )?);
                let done = self.time.process_chunk(
                    &chunk,
                    &mut self.state,
                    &mut ignored,
                    |_, _, _| Ok(()),
                );
                self.state.chunk_rows = None;
                done?;
            }
            StreamItem::Watermark(w) => {
                self.time.advance(w, &mut self.state, &mut ignored)?;
            }
            StreamItem::Side(side) => {
                self.state.flush()?;
                self.state.out.push(StreamItem::Side(side));
            }
            StreamItem::End => {}
        }
        self.state.flush()?;
        self.state.compact()?;
        let rows_out: u64 = self
            .state
            .out
            .iter()
            .map(|i| match i {
                StreamItem::Chunk(c) => c.num_rows() as u64,
                _ => 0,
            })
            .sum();
        self.state.metrics.rows_out += rows_out;
        out.append(&mut self.state.out);
        // Downstream learns the watermark after the rows it let out.
        if self.time.watermark() > self.forwarded {
            self.forwarded = self.time.watermark();
            out.push(StreamItem::Watermark(self.forwarded));
        }
        // The end goes on after everything, as from every operator: an
        // operator downstream may hold results until it comes.
        if ended {
            out.push(StreamItem::End);
        }
        Ok(())
    }

    fn metrics(&self) -> OperatorMetrics {
        self.state.metrics.clone()
    }

    fn state(&self) -> StateSize {
        let s = &self.state;
        StateSize {
            bytes: s.store.state_bytes()
                + s.frames.state_bytes()
                + s.key_ids.state_bytes()
                + (s.pending.len() * std::mem::size_of::<pending::Waiting>()) as u64,
            entries: s.keys.len() as u64 + s.pending.len() as u64,
            // An OVER aggregation keeps no windows.
            windows: 0,
        }
    }

    fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        let s = &self.state;
        if !s.out.is_empty() {
            return Err(Error::Internal(
                "a checkpoint of an OVER aggregation with output waiting".into(),
            ));
        }
        self.time.save(w);
        w.put(&self.forwarded);
        s.store.save(w)?;
        // Keys are never given up: their numbers are 0, 1, 2, ...
        s.key_ids.save(w, s.key_converter.as_ref())?;
        for key in &s.keys {
            w.put(&key.last_emitted);
            w.put(&key.waiting);
            key.expires_at.save(w);
            key.expiry_timer.save(w);
        }
        // The waiting rows in (rowtime, arrival) order: equal state, equal
        // bytes.
        let pending = s.pending.sorted();
        w.u64(pending.len() as u64);
        for (rowtime, seq, key, row) in pending {
            w.put(&(rowtime, seq, key));
            w.put(&row);
        }
        w.put(&s.timer);
        s.frames.save(w)?;
        w.put(&s.seen);
        w.put(&s.metrics);
        Ok(())
    }

    fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.time = EventTime::load(r)?;
        self.forwarded = r.get()?;
        let s = &mut self.state;
        s.store = Store::load(r)?;
        s.key_ids = KeyIds::load(r, s.key_converter.as_ref())?;
        for _ in 0..s.key_ids.slots() {
            s.keys.push(KeyState {
                last_emitted: r.get()?,
                waiting: r.get()?,
                expires_at: Expiry::load(r)?,
                expiry_timer: Expiry::load(r)?,
            });
        }
        let mut pending = Vec::new();
        for _ in 0..r.count()? {
            let (rowtime, seq, key): (i64, u64, u32) = r.get()?;
            let row: RowRef = r.get()?;
            pending.push((rowtime, seq, key, row));
        }
        s.pending = Pending::from_sorted(pending);
        s.timer = r.get()?;
        s.frames.load(r)?;
        s.seen = r.get()?;
        s.metrics = r.get()?;
        Ok(())
    }
}

impl OverState {
    fn key_id(&mut self, key: &[u8]) -> u32 {
        let id = self.key_ids.id(key);
        if id as usize == self.keys.len() {
            self.keys.push(KeyState::EMPTY);
        }
        id
    }

    /// Drops row `row` of `chunk` as late into `book`, after the rows the
    /// other book dropped before it.
    fn drop_late(&mut self, expired: bool, chunk: &Chunk, row: usize, rowtime: i64) -> Result<()> {
        let (book, other) = if expired {
            (&mut self.expired, &mut self.late)
        } else {
            (&mut self.late, &mut self.expired)
        };
        let before = other.take()?;
        if expired {
            self.metrics.late_rows_expired += 1;
        }
        let closed = book.drop_row(&mut self.metrics, chunk, row, rowtime)?;
        for item in before.into_iter().chain(closed) {
            self.flush()?;
            self.out.push(StreamItem::Side(item));
        }
        Ok(())
    }

    /// The late rows dropped and not yet sent, out now.
    fn take_late(&mut self) -> Result<()> {
        for expired in [false, true] {
            let book = if expired {
                &mut self.expired
            } else {
                &mut self.late
            };
            if let Some(item) = book.take()? {
                self.flush()?;
                self.out.push(StreamItem::Side(item));
            }
        }
        Ok(())
    }

    /// Key `id`'s state expires at the watermark `watermark`: its frames
    /// and last emitted rowtime go; its number too, unless rows of it
    /// wait.
    fn expire(&mut self, id: u32, watermark: i64) -> Result<()> {
        let key = self.keys[id as usize];
        if self.spec.trace {
            let line = self
                .trace_line(TraceEvent::Expire, id)?
                .field("last_emitted", instant(key.last_emitted))
                .watermark(watermark);
            self.side(line)?;
        }
        self.frames.forget(&self.store, id)?;
        self.metrics.keys_expired += 1;
        self.keys[id as usize] = KeyState {
            waiting: key.waiting,
            ..KeyState::EMPTY
        };
        if key.waiting == 0 {
            self.key_ids.forget(id);
        }
        Ok(())
    }

    /// Builds what was emitted so far into one chunk.
    fn flush(&mut self) -> Result<()> {
        if let Some(chunk) = self
            .frames
            .build(&mut self.store, &self.spec.output_schema)?
        {
            self.out.push(StreamItem::Chunk(chunk));
        }
        Ok(())
    }

    /// Copies the rows still needed into one batch when the stored batches
    /// hold far more (memory stays bounded by keys and frames, not by how
    /// long ago a key was last seen). Only between items: nothing is being
    /// emitted then.
    fn compact(&mut self) -> Result<()> {
        // Counted by the store: the histories are per key, too many to
        // walk after every item.
        let live = self.store.referenced();
        debug_assert_eq!(live, self.pending.len() + self.frames.history_len());
        if !self.store.bloated(live) {
            return Ok(());
        }
        let mut pending = self.pending.sorted();
        let mut refs: Vec<RowRef> = pending.iter().map(|p| p.3).collect();
        refs.extend(self.frames.history_refs());
        let moved = self.store.compact(&refs)?;
        for (p, r) in pending.iter_mut().zip(&moved) {
            p.3 = *r;
        }
        self.frames.set_history_refs(&moved[pending.len()..])?;
        self.pending = Pending::from_sorted(pending);
        Ok(())
    }

    /// Queues a side item after the rows emitted before it.
    /// Sends `item` after what was emitted and the late rows dropped
    /// before it.
    fn side(&mut self, item: SideItem) -> Result<()> {
        self.take_late()?;
        self.flush()?;
        self.out.push(StreamItem::Side(item));
        Ok(())
    }

    fn trace_line(&self, event: TraceEvent, key: u32) -> Result<TraceLine> {
        let key = self.key_ids.key(key);
        let columns = match &self.key_converter {
            Some(conv) => conv.convert_rows(std::iter::once(conv.parser().parse(key)))?,
            None => Vec::new(),
        };
        TraceLine::new(event, NAME).key(&columns, &self.spec.key_types, 0)
    }
}

impl TimerHandler for OverState {
    type Key = OverTimer;
    type Output = ();

    fn on_rows(
        &mut self,
        time: &mut EventTime<OverTimer>,
        chunk: &Chunk,
        range: Range<usize>,
        _: &mut (),
    ) -> Result<usize> {
        ChunkRows::lend(
            self,
            |s| &mut s.chunk_rows,
            |s, rows| s.admit(time, chunk, range, rows),
        )
    }

    /// The watermark passed the earliest rowtime waiting: every row it
    /// passed goes out, rowtime by rowtime; at each, each key's rows in
    /// arrival order, keys in the order of their first row there.
    fn on_timer(
        &mut self,
        time: &mut EventTime<OverTimer>,
        at: i64,
        timer: OverTimer,
        _: &mut (),
    ) -> Result<()> {
        if let OverTimer::Expire(id) = timer {
            let key = &mut self.keys[id as usize];
            key.expiry_timer = Expiry::NONE;
            match key.expires_at.get() {
                Some(expires_at) if expires_at <= at => {
                    key.expires_at = Expiry::NONE;
                    self.expire(id, time.watermark())?;
                }
                // Rows went out since the timer was set: it moves to the
                // real expiry, in this advance if the watermark is there.
                Some(later) => {
                    key.expiry_timer = Expiry::at(later);
                    time.register(later, OverTimer::Expire(id));
                }
                None => {}
            }
            return Ok(());
        }
        self.timer = None;
        let mut due = std::mem::take(&mut self.due);
        while let Some(at) = self.pending.take_due(time.watermark(), &mut due) {
            self.emit_rowtime(time, at, &mut due)?;
            if self.spec.ttl.is_some() {
                // With state that expires, one instant per timer: a key
                // whose state expires between two of its rows' instants
                // must have expired before the later one goes out.
                break;
            }
        }
        self.due = due;
        if let Some(next) = self.pending.earliest() {
            time.register(next, OverTimer::Emit);
            self.timer = Some(next);
        }
        Ok(())
    }
}

impl OverState {
    /// Rows `range` of `chunk` (rowtimes and keys in `rows`) wait for the
    /// watermark, or are dropped as late; returns how many went through
    /// before a timer they set came due.
    fn admit(
        &mut self,
        time: &mut EventTime<OverTimer>,
        chunk: &Chunk,
        range: Range<usize>,
        rows: &ChunkRows,
    ) -> Result<usize> {
        let len = range.len();
        let (watermarks, ts) = (&chunk.watermarks[range.clone()], &rows.rowtimes);
        // The run ends before the first row whose watermark makes due a
        // timer an earlier row of the run set.
        let mut consumed = len;
        for i in 0..len {
            if !time.admit(watermarks[i]) {
                consumed = i;
                break;
            }
            let at = range.start + i;
            if ts.is_null(at) {
                continue;
            }
            let rowtime = ts.value(at);
            let key = rows.key(at);
            let id = self.key_id(key);
            let state = self.keys[id as usize];
            // A key without state takes a row as a first row, unless the
            // row is ttl or more behind the watermark (spec §10).
            let expired = self.spec.ttl.is_some_and(|ttl| {
                state.is_empty() && rowtime <= watermarks[i].saturating_sub(ttl)
            });
            if expired || rowtime <= state.last_emitted {
                if self.spec.trace {
                    let line = self.trace_line(TraceEvent::Late, id)?.rowtime(rowtime);
                    let line = if expired {
                        line.field("expired", "no state")
                    } else {
                        line.field("last_emitted", instant(state.last_emitted))
                    };
                    self.side(line.watermark(watermarks[i]))?;
                }
                // Each late row in its place among the output: rows go out
                // only when timers fire, between runs, so the run's late
                // rows go out together after it.
                self.drop_late(expired, chunk, at, rowtime)?;
                if state.is_empty() {
                    // The number was given for nothing.
                    self.key_ids.forget(id);
                }
                continue;
            }
            self.keys[id as usize].waiting += 1;
            let stored = self.store.row_ref(chunk, at)?;
            self.store.retain(stored);
            let seq = self.seen + i as u64;
            self.pending.push(rowtime, seq, id, stored);
            if self.timer.is_none_or(|t| rowtime < t) {
                if let Some(t) = self.timer {
                    time.delete(t, &OverTimer::Emit);
                }
                time.register(rowtime, OverTimer::Emit);
                self.timer = Some(rowtime);
            }
        }
        self.take_late()?;
        self.seen += consumed as u64;
        Ok(consumed)
    }
}

impl OverState {
    /// The rows waiting at rowtime `at`, `due` (key and row, in arrival
    /// order), go out: each key's together, keys in the order of their
    /// first row at `at`, a key's rows in arrival order.
    fn emit_rowtime(
        &mut self,
        time: &mut EventTime<OverTimer>,
        at: i64,
        due: &mut [(u32, RowRef)],
    ) -> Result<()> {
        if due.len() > ByKey::FEW {
            return self.emit_many(time, at, due);
        }
        // Mostly a row or two a rowtime: each row against the later ones
        // costs less than sorting.
        let mut group = std::mem::take(&mut self.group);
        for i in 0..due.len() {
            let (id, row) = due[i];
            if id == u32::MAX {
                continue;
            }
            group.clear();
            group.push(row);
            for later in due.iter_mut().skip(i + 1) {
                if later.0 == id {
                    group.push(later.1);
                    later.0 = u32::MAX;
                }
            }
            self.emit_key(time, at, id, &group)?;
        }
        self.group = group;
        Ok(())
    }

    /// [`OverState::emit_rowtime`] for many rows: sorted out by key first.
    #[cold]
    #[inline(never)]
    fn emit_many(
        &mut self,
        time: &mut EventTime<OverTimer>,
        at: i64,
        due: &[(u32, RowRef)],
    ) -> Result<()> {
        let mut by_key = std::mem::take(&mut self.by_key);
        by_key.sort(due, self.keys.len());
        for (id, group) in by_key.groups() {
            self.emit_key(time, at, id, group)?;
        }
        self.by_key = by_key;
        Ok(())
    }

    /// Key `id`'s rows at rowtime `at`, `group` in arrival order, go out.
    #[inline(always)]
    fn emit_key(
        &mut self,
        time: &mut EventTime<OverTimer>,
        at: i64,
        id: u32,
        group: &[RowRef],
    ) -> Result<()> {
        if self.spec.trace {
            let line = self
                .trace_line(TraceEvent::Fire, id)?
                .rowtime(at)
                .rows(group.len() as u64)
                .watermark(time.watermark());
            self.side(line)?;
        }
        let out = Out {
            key: id,
            rowtime: at,
            watermark: time.watermark_before_advance(),
        };
        // Each row's reference passes from waiting to the output.
        self.frames.emit(&mut self.store, out, group)?;
        let key = &mut self.keys[id as usize];
        key.last_emitted = at;
        key.waiting -= group.len() as u32;
        if let Some(ttl) = self.spec.ttl {
            let expires_at = at.saturating_add(ttl);
            key.expires_at = Expiry::at(expires_at);
            if key.expiry_timer == Expiry::NONE {
                key.expiry_timer = Expiry::at(expires_at);
                time.register(expires_at, OverTimer::Expire(id));
            }
        }
        Ok(())
    }
}

/// The rows due at one rowtime sorted out by key, keys in the order of
/// their first row, each key's rows in arrival order: a counting sort by
/// key number, linear in the rows. (Many rows of many keys share a
/// rowtime when timestamps are to the second or the day; pairing each
/// row with every later one was quadratic there.)
#[derive(Default)]
struct ByKey {
    /// Per key number: its group among the rows being sorted, or none.
    slot: Vec<u32>,
    /// Per group: its key and where its rows end in `rows`.
    groups: Vec<(u32, usize)>,
    rows: Vec<RowRef>,
}

impl ByKey {
    const NONE: u32 = u32::MAX;
    /// Up to this many rows are sorted out pairwise by
    /// [`OverState::emit_rowtime`] instead.
    const FEW: usize = 16;

    /// Sorts `due` (key numbers below `keys`) out by key.
    fn sort(&mut self, due: &[(u32, RowRef)], keys: usize) {
        self.groups.clear();
        self.rows.clear();
        if self.slot.len() < keys {
            self.slot.resize(keys, Self::NONE);
        }
        // Each group's row count, then where its rows start.
        for (id, _) in due {
            let slot = &mut self.slot[*id as usize];
            if *slot == Self::NONE {
                *slot = self.groups.len() as u32;
                self.groups.push((*id, 0));
            }
            self.groups[*slot as usize].1 += 1;
        }
        let mut start = 0;
        for (_, end) in &mut self.groups {
            start += *end;
            *end = start - *end;
        }
        self.rows.resize(due.len(), RowRef::default());
        for (id, row) in due {
            let next = &mut self.groups[self.slot[*id as usize] as usize].1;
            self.rows[*next] = *row;
            *next += 1;
        }
        // Each group's counter now stands at its end; the slots go back.
        for (id, _) in &self.groups {
            self.slot[*id as usize] = Self::NONE;
        }
    }

    /// Each key with its rows, in the order [`ByKey::sort`] put them.
    fn groups(&self) -> impl Iterator<Item = (u32, &[RowRef])> + '_ {
        let mut start = 0;
        self.groups.iter().map(move |(id, end)| {
            let rows = &self.rows[start..*end];
            start = *end;
            (*id, rows)
        })
    }
}
