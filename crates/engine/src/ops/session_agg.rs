//! Session window aggregation on the shared event-time service.
//!
//! Per key, a row opens the session `[ts, ts + gap)`; sessions that
//! overlap or touch merge, also when a row arrives out of order and bridges
//! two of them. A session fires when the watermark reaches its end - 1. A
//! row is late only when the session it would belong to after merging has
//! already been cleaned up, so a row far behind the watermark that touches
//! an open session is kept (spec §2). Which sessions a row joins is the
//! engine's [`crate::time::merging`].

use crate::ops::accumulators::{new_accumulator, Accumulator};
use crate::ops::emit::{key_converter, ChunkRows, Emitter, Windowed, WindowedState};
use crate::ops::keys::KeyIds;
use crate::ops::operator::StateSize;
use crate::ops::window_agg::WindowAggregateSpec;
use crate::runtime::snapshot::{get_batch, put_batch, StateReader, StateWriter};
use crate::runtime::stream::Chunk;
use crate::time::last_instant;
use crate::time::merging::{merge_into, Interval, Intervals, Merge};
use crate::time::service::{EventTime, TimerHandler};
use crate::time::trace::{TraceEvent, TraceLine, Tracing};
use crate::time::window_columns::WindowColumns;
use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::datatypes::SchemaRef;
use arrow::row::RowConverter;
use std::ops::Range;
use tidemark_common::expr::AggregateCall;
use tidemark_common::window::WindowKind;
use tidemark_common::{Error, Result, RowKind};

/// A session's fire or cleanup timer. Ordered by window end, then by the
/// arrival of the session's first row: the spec's output order within one
/// firing (no two sessions share a first row, so the key never decides).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SessionTimer {
    end: i64,
    first_seq: u64,
    /// The key's number in the operator's [`KeyTable`].
    key: u32,
    /// Frees a fired session (with allowed lateness); otherwise fires it.
    cleanup: bool,
}

impl crate::runtime::snapshot::Persist for SessionTimer {
    fn save(&self, w: &mut crate::runtime::snapshot::StateWriter) {
        w.put(&self.end);
        w.put(&self.first_seq);
        w.put(&self.key);
        w.put(&self.cleanup);
    }

    fn load(r: &mut crate::runtime::snapshot::StateReader<'_>) -> Result<Self> {
        Ok(SessionTimer {
            end: r.get()?,
            first_seq: r.get()?,
            key: r.get()?,
            cleanup: r.get()?,
        })
    }
}

/// One key's open sessions, by start.
type KeySessions = Intervals<Session>;

/// The keys that have open sessions, each with a number: timers name a key
/// by it, so moving a timer copies no key, and a row finds its key's
/// sessions with one fast hash. A key's number is given back when its
/// last session ends, so the table holds only live keys; its slot keeps
/// its vector for the next key given the number.
#[derive(Default)]
struct KeyTable {
    ids: KeyIds,
    /// By key number: its open sessions.
    sessions: Vec<KeySessions>,
}

impl KeyTable {
    /// Gives `key` (hashed `hash`), which has no number, one.
    fn number(&mut self, key: &[u8], hash: u64) -> u32 {
        let id = self.ids.number(key, hash);
        if id as usize == self.sessions.len() {
            self.sessions.push(KeySessions::default());
        }
        id
    }

    fn key(&self, id: u32) -> &[u8] {
        self.ids.key(id)
    }

    fn sessions(&self, id: u32) -> &KeySessions {
        &self.sessions[id as usize]
    }

    /// The key's sessions, taken out to work on; [`KeyTable::put_back`]
    /// returns them.
    fn take(&mut self, id: u32) -> KeySessions {
        std::mem::take(&mut self.sessions[id as usize])
    }

    /// Returns a key's sessions. With none left, the caller says when the
    /// key leaves the table ([`KeyTable::forget`]): not before the
    /// results that name it are built.
    fn put_back(&mut self, id: u32, sessions: KeySessions) {
        self.sessions[id as usize] = sessions;
    }

    /// Key number `id`, which has no session left, leaves the table.
    fn forget(&mut self, id: u32) {
        self.ids.forget(id);
    }
}

/// The sessions' aggregate state: one accumulator per aggregate call,
/// each session a group of them. Groups of ended sessions are emptied and
/// given to new ones, so no session costs an allocation of its own.
struct Groups {
    accumulators: Vec<Box<dyn Accumulator>>,
    /// One group per accumulator: where a session's state passes through
    /// when it merges into another's (an accumulator merges from another
    /// accumulator, not from itself).
    scratch: Vec<Box<dyn Accumulator>>,
    /// Numbers given so far; the next new group's.
    next: u32,
    /// Emptied groups, to give again.
    free: Vec<u32>,
    /// Rows of the current run (and their groups) whose update waits to
    /// go to the accumulators in one call each: rows that extend their
    /// key's open session in order, the common case. Flushed in row order
    /// before any other use of the groups, so every group sees its rows in
    /// arrival order (a DOUBLE sum's order of additions is its result).
    deferred_rows: Vec<u32>,
    deferred_groups: Vec<u32>,
}

impl Groups {
    fn new(aggregates: &[AggregateCall]) -> Result<Self> {
        let fresh = || {
            aggregates
                .iter()
                .map(new_accumulator)
                .collect::<Result<Vec<_>>>()
        };
        Ok(Groups {
            accumulators: fresh()?,
            scratch: fresh()?,
            next: 0,
            free: Vec::new(),
            deferred_rows: Vec::new(),
            deferred_groups: Vec::new(),
        })
    }

    /// Row `row` of the current chunk goes to `group` at the next
    /// [`Groups::flush`].
    fn defer(&mut self, row: usize, group: u32) {
        self.deferred_rows.push(row as u32);
        self.deferred_groups.push(group);
    }

    /// Adds the deferred rows of `values` (the current chunk's arrays) to
    /// their groups, in the order they came.
    fn flush(&mut self, values: &[Option<ArrayRef>]) -> Result<()> {
        if self.deferred_rows.is_empty() {
            return Ok(());
        }
        let (rows, groups) = (&self.deferred_rows, &self.deferred_groups);
        let updated = self
            .accumulators
            .iter_mut()
            .zip(values)
            .try_for_each(|(acc, v)| acc.update(v.as_ref(), rows, groups));
        self.deferred_rows.clear();
        self.deferred_groups.clear();
        updated
    }

    fn settled(&self) -> bool {
        self.deferred_rows.is_empty()
    }

    /// An empty group for a new session.
    fn take(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            self.next += 1;
            self.next - 1
        })
    }

    /// Adds row `row` of `values` (one array per call) to `group`, after
    /// the rows deferred before it.
    fn update(&mut self, values: &[Option<ArrayRef>], row: usize, group: u32) -> Result<()> {
        self.flush(values)?;
        for (acc, v) in self.accumulators.iter_mut().zip(values) {
            acc.update(v.as_ref(), &[row as u32], &[group])?;
        }
        Ok(())
    }

    /// Adds group `from` into `into` (`from` holds the later session) and
    /// gives `from` back.
    fn merge(&mut self, into: u32, from: u32) -> Result<()> {
        debug_assert!(self.settled(), "merging groups with rows deferred");
        for (acc, scratch) in self.accumulators.iter_mut().zip(&mut self.scratch) {
            scratch.merge_from(acc.as_ref(), &[(from, 0)], false)?;
            acc.merge_from(scratch.as_ref(), &[(0, into)], false)?;
            scratch.reset(0);
        }
        self.give_back(from);
        Ok(())
    }

    /// Empties `group` and keeps it for another session.
    fn give_back(&mut self, group: u32) {
        debug_assert!(self.settled(), "freeing a group with rows deferred");
        for acc in &mut self.accumulators {
            acc.reset(group);
        }
        self.free.push(group);
    }

    /// Each call's results for `groups`, in that order.
    fn evaluate(&self, groups: &[u32]) -> Result<Vec<ArrayRef>> {
        debug_assert!(self.settled(), "evaluating groups with rows deferred");
        self.accumulators
            .iter()
            .map(|acc| acc.evaluate(groups))
            .collect()
    }

    fn state_bytes(&self) -> u64 {
        self.accumulators.iter().map(|a| a.state_bytes()).sum()
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        debug_assert!(self.settled(), "saving groups with rows deferred");
        w.put(&self.next);
        w.put(&self.free);
        for acc in &self.accumulators {
            acc.save(w)?;
        }
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.next = r.get()?;
        self.free = r.get()?;
        for acc in &mut self.accumulators {
            acc.load(r)?;
        }
        Ok(())
    }
}

/// A session's bounds and accumulator group: what its result row is
/// built from, with its key.
struct Fired {
    start: i64,
    end: i64,
    group: u32,
}

/// Sessions that fired and ended, whose results wait to be built in one
/// batch with the others fired while the same input item went through
/// (not one batch per advance of the watermark: when keys' sessions fire
/// one by one, as each row's watermark passes an end, building a batch of
/// one row per advance cost more than the sessions themselves). Each
/// keeps a copy of its key, whose number may serve another key before
/// the results are built, and the watermark its row carries: the one
/// before the advance that fired it.
#[derive(Default)]
struct FiredSessions {
    sessions: Vec<Fired>,
    watermarks: Vec<i64>,
    /// The keys, end to end in arrow's row format; `key_ends[i]` is where
    /// session `i`'s ends.
    keys: Vec<u8>,
    key_ends: Vec<usize>,
}

impl FiredSessions {
    fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    fn push(&mut self, key: &[u8], session: Fired, watermark: i64) {
        self.keys.extend_from_slice(key);
        self.key_ends.push(self.keys.len());
        self.sessions.push(session);
        self.watermarks.push(watermark);
    }

    /// The sessions' keys, in order.
    fn keys(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let starts = std::iter::once(0).chain(self.key_ends.iter().copied());
        starts
            .zip(&self.key_ends)
            .map(|(start, end)| &self.keys[start..*end])
    }

    fn clear(&mut self) {
        self.sessions.clear();
        self.watermarks.clear();
        self.keys.clear();
        self.key_ends.clear();
    }
}

struct Session {
    end: i64,
    /// The end its fire timer was set for, while it waits to fire: a row
    /// that extends the session moves `end` but leaves the timer, which on
    /// firing is set again at the real end — one timer per gap, not a
    /// delete and an insert per row.
    timer_end: i64,
    first_seq: u64,
    /// Its group in [`Groups`].
    group: u32,
    /// Rows in the session (for the trace).
    rows: u64,
    /// What the session emitted when it fired, kept until its cleanup
    /// (with allowed lateness) so a late row can update or retract it.
    emitted: Option<RecordBatch>,
}

impl Interval for Session {
    fn end(&self) -> i64 {
        self.end
    }
}

pub struct SessionState {
    gap: i64,
    lateness: i64,
    time_column: usize,
    key_columns: Vec<usize>,
    key_types: Vec<tidemark_common::SqlType>,
    trace: Tracing,
    key_converter: Option<RowConverter>,
    aggregates: Vec<AggregateCall>,
    output_schema: SchemaRef,
    window_columns: WindowColumns,
    /// Show window_start and window_end on this zone's wall clock
    /// (TIMESTAMP_LTZ rowtimes).
    zone: Option<chrono_tz::Tz>,
    /// Open sessions per key.
    keys: KeyTable,
    groups: Groups,
    /// Sessions fired and ended whose results are not built yet (without
    /// allowed lateness): their groups are kept until then.
    fired: FiredSessions,
    /// Keys left without sessions by the timers of an advance, which leave
    /// the table once it is done.
    emptied: Vec<u32>,
    rows_seen: u64,
    /// The key numbers of the current run's rows as found before it (or
    /// the hashes of keys without one).
    known_ids: Vec<std::result::Result<u32, u64>>,
    /// The rowtimes and keys of the chunk going through, read once for all
    /// its runs (with a key per row, nearly every row fires a session and
    /// ends a run).
    chunk_rows: Option<ChunkRows>,
}

/// Why a session aggregation drops a row (the `late_reason` of late-row
/// sinks).
pub const LATE_REASON: &str = "the row's session was cleaned up";

/// The operator: its state on the shared event-time service.
pub type SessionAggregate = Windowed<SessionState>;

impl SessionAggregate {
    pub fn new(spec: WindowAggregateSpec) -> Result<Self> {
        let WindowKind::Session { gap } = spec.kind else {
            return Err(Error::Internal(format!(
                "session aggregation over {}",
                spec.kind.name()
            )));
        };
        if gap <= 0 || spec.lateness < 0 {
            return Err(Error::Internal("a session gap must be positive".into()));
        }
        let groups = Groups::new(&spec.aggregates)?;
        let key_converter = key_converter(&spec.key_types)?;
        let window_columns = WindowColumns::declared(&spec.output_schema, spec.key_columns.len())?;
        Ok(Windowed::from_state(SessionState {
            gap,
            lateness: spec.lateness,
            time_column: spec.time_column,
            key_columns: spec.key_columns,
            key_types: spec.key_types,
            trace: spec.trace,
            key_converter,
            aggregates: spec.aggregates,
            output_schema: spec.output_schema,
            window_columns,
            zone: spec.zone,
            keys: KeyTable::default(),
            groups,
            fired: FiredSessions::default(),
            emptied: Vec::new(),
            rows_seen: 0,
            known_ids: Vec::new(),
            chunk_rows: None,
        }))
    }
}

impl WindowedState for SessionState {
    const NAME: &'static str = "SessionAggregate";
    const LATE_REASON: &'static str = LATE_REASON;
    // Sessions of keys that each fire alone would otherwise go out as a
    // chunk and a watermark per session. (Fired results are held until
    // the item is done, or something else goes out, so this must be on:
    // the emitter must not send an advance's watermark before them.)
    const COALESCE_ADVANCES: bool = true;

    fn on_item_done(&mut self, out: &mut Emitter) -> Result<()> {
        self.chunk_rows = None;
        self.send_fired(out)
    }

    fn on_chunk(&mut self, chunk: &Chunk) -> Result<()> {
        self.chunk_rows = Some(ChunkRows::new(
            chunk,
            self.time_column,
            self.key_converter.as_ref(),
            &self.key_columns,
        )?);
        Ok(())
    }

    fn state(&self) -> StateSize {
        let mut size = StateSize {
            bytes: self.groups.state_bytes(),
            ..StateSize::default()
        };
        for (id, sessions) in self.keys.sessions.iter().enumerate() {
            size.bytes += (self.keys.key(id as u32).len() + 64) as u64;
            for session in sessions.values() {
                size.entries += 1;
                size.windows += 1;
                size.bytes += 64
                    + session
                        .emitted
                        .as_ref()
                        .map_or(0, |b| b.get_array_memory_size() as u64);
            }
        }
        size
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        if !self.fired.is_empty() || !self.emptied.is_empty() {
            return Err(Error::Internal(
                "a checkpoint with fired sessions not yet sent".into(),
            ));
        }
        // Key numbers are kept as they are: timers name keys by them.
        self.keys.ids.save(w, self.key_converter.as_ref())?;
        for sessions in &self.keys.sessions {
            w.u64(sessions.len() as u64);
            for (start, session) in sessions.iter() {
                w.put(&start);
                w.put(&session.end);
                w.put(&session.timer_end);
                w.put(&session.first_seq);
                w.put(&session.group);
                w.put(&session.rows);
                match &session.emitted {
                    None => w.put(&false),
                    Some(batch) => {
                        w.put(&true);
                        put_batch(w, batch)?;
                    }
                }
            }
        }
        self.groups.save(w)?;
        w.put(&self.rows_seen);
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.keys.ids = KeyIds::load(r, self.key_converter.as_ref())?;
        for _ in 0..self.keys.ids.slots() {
            let count = r.count()?;
            let mut sessions = KeySessions::default();
            for _ in 0..count {
                let start: i64 = r.get()?;
                let end = r.get()?;
                let timer_end = r.get()?;
                let first_seq = r.get()?;
                let group = r.get()?;
                let rows = r.get()?;
                let emitted = if r.get::<bool>()? {
                    Some(get_batch(r)?)
                } else {
                    None
                };
                sessions.insert(
                    start,
                    Session {
                        end,
                        timer_end,
                        first_seq,
                        group,
                        rows,
                        emitted,
                    },
                );
            }
            self.keys.sessions.push(sessions);
        }
        self.groups.load(r)?;
        self.rows_seen = r.get()?;
        Ok(())
    }
}

impl SessionState {
    fn cleanup_time(&self, end: i64) -> i64 {
        last_instant(end).saturating_add(self.lateness)
    }

    /// A trace line about a key's session `[start, end)`.
    fn trace_line(&self, event: TraceEvent, key: &[u8], start: i64, end: i64) -> Result<TraceLine> {
        let shape = crate::time::trace::KeyShape {
            converter: self.key_converter.as_ref(),
            types: &self.key_types,
            zone: self.zone,
            tracing: self.trace,
        };
        shape.line(event, Self::NAME, key, start, end)
    }

    /// The result row of key number `key`'s session.
    fn result(&self, key: u32, start: i64, session: &Session) -> Result<RecordBatch> {
        let fired = Fired {
            start,
            end: session.end,
            group: session.group,
        };
        self.results(std::iter::once(self.keys.key(key)), &[fired])
    }

    /// The result rows of `sessions`, in that order, of keys `keys` (in
    /// arrow's row format).
    fn results<'k>(
        &self,
        keys: impl Iterator<Item = &'k [u8]>,
        sessions: &[Fired],
    ) -> Result<RecordBatch> {
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.output_schema.fields().len());
        if let Some(conv) = &self.key_converter {
            let parser = conv.parser();
            columns.extend(conv.convert_rows(keys.map(|key| parser.parse(key)))?);
        }
        let wall = |t: i64| match self.zone {
            Some(tz) => crate::time::zone::to_wall_clock(t, tz).unwrap_or(t),
            None => t,
        };
        columns.extend(self.window_columns.per_row(
            sessions.iter().map(|f| wall(f.start)).collect(),
            sessions.iter().map(|f| wall(f.end)).collect(),
            sessions.iter().map(|f| last_instant(f.end)).collect(),
        ));
        let groups: Vec<u32> = sessions.iter().map(|f| f.group).collect();
        columns.extend(self.groups.evaluate(&groups)?);
        Ok(RecordBatch::try_new(self.output_schema.clone(), columns)?)
    }

    /// Sends the results of the sessions fired since the last call as one
    /// batch, each row with its watermark, then gives back their groups.
    /// Called before anything else goes out, so results keep their place
    /// among trace lines, late rows and other results, and when the input
    /// item is done.
    fn send_fired(&mut self, out: &mut Emitter) -> Result<()> {
        if self.fired.is_empty() {
            return Ok(());
        }
        let mut fired = std::mem::take(&mut self.fired);
        let batch = self.results(fired.keys(), &fired.sessions)?;
        out.rows_tagged(
            batch,
            RowKind::Insert,
            std::mem::take(&mut fired.watermarks),
        )?;
        for f in &fired.sessions {
            self.groups.give_back(f.group);
        }
        // Kept for its capacity.
        fired.clear();
        self.fired = fired;
        Ok(())
    }

    /// [`SessionState::send_fired`] within a run, whose rows' updates may
    /// wait (`values`: the chunk's arrays): they go to their groups first,
    /// so the groups are settled when the results are built.
    fn send_fired_in_run(&mut self, values: &[Option<ArrayRef>], out: &mut Emitter) -> Result<()> {
        if self.fired.is_empty() {
            return Ok(());
        }
        self.groups.flush(values)?;
        self.send_fired(out)
    }

    /// The session's fire timer, as set (at `timer_end`).
    fn fire_timer(key: u32, session: &Session) -> (i64, SessionTimer) {
        (
            last_instant(session.timer_end),
            SessionTimer {
                end: session.timer_end,
                first_seq: session.first_seq,
                key,
                cleanup: false,
            },
        )
    }

    fn cleanup_timer(&self, key: u32, session: &Session) -> (i64, SessionTimer) {
        (
            self.cleanup_time(session.end),
            SessionTimer {
                end: session.end,
                first_seq: session.first_seq,
                key,
                cleanup: true,
            },
        )
    }
}

impl TimerHandler for SessionState {
    type Key = SessionTimer;
    type Output = Emitter;

    fn on_rows(
        &mut self,
        time: &mut EventTime<SessionTimer>,
        chunk: &Chunk,
        range: Range<usize>,
        out: &mut Emitter,
    ) -> Result<usize> {
        ChunkRows::lend(
            self,
            |s| &mut s.chunk_rows,
            |s, rows| s.admit(time, chunk, range, rows, out),
        )
    }

    fn on_timer(
        &mut self,
        time: &mut EventTime<SessionTimer>,
        _at: i64,
        timer: SessionTimer,
        out: &mut Emitter,
    ) -> Result<()> {
        // A live key always has a session: none means the timer outlived
        // its key's sessions, and the number may be free or another key's.
        if self.keys.sessions(timer.key).is_empty() {
            return Ok(());
        }
        let mut sessions = self.keys.take(timer.key);
        let fired = self.on_session_timer(time, &timer, &mut sessions, out);
        if sessions.is_empty() {
            self.emptied.push(timer.key);
        }
        self.keys.put_back(timer.key, sessions);
        fired
    }

    /// Keys the advance left without sessions leave the table (the
    /// results of their sessions have copies of them).
    fn on_timers_done(&mut self, out: &mut Emitter) -> Result<()> {
        if !self.fired.is_empty() {
            out.hold_back()?;
        }
        for id in self.emptied.drain(..) {
            self.keys.forget(id);
        }
        Ok(())
    }
}

impl SessionState {
    /// Rows `range` of `chunk` (rowtimes and keys in `rows`) join their
    /// keys' sessions, or are dropped as late; returns how many went
    /// through before a timer they set came due.
    fn admit(
        &mut self,
        time: &mut EventTime<SessionTimer>,
        chunk: &Chunk,
        range: Range<usize>,
        rows: &ChunkRows,
        out: &mut Emitter,
    ) -> Result<usize> {
        let len = range.len();
        let (watermarks, ts) = (&chunk.watermarks[range.clone()], &rows.rowtimes);
        // The chunk's arrays: rows are numbered in the chunk.
        let values: Vec<Option<ArrayRef>> = self
            .aggregates
            .iter()
            .map(|call| call.arg.map(|c| chunk.batch.column(c).clone()))
            .collect();

        // Keys keep their numbers while rows are added (they are given
        // back only after timers fire), so a run's keys are looked up at
        // once.
        debug_assert!(self.emptied.is_empty(), "keys left to give back in a run");
        self.keys
            .ids
            .find_each(range.clone().map(|at| rows.key(at)), &mut self.known_ids);
        // Rows one at a time: each may merge sessions and move timers.
        // The run ends before the first row whose watermark reaches a timer
        // an earlier row of the run registered.
        for i in 0..len {
            if !time.admit(watermarks[i]) {
                self.groups.flush(&values)?;
                self.rows_seen += i as u64;
                return Ok(i);
            }
            let at = range.start + i;
            if ts.is_null(at) {
                continue;
            }
            let row_start = ts.value(at);
            let row_end = row_start.saturating_add(self.gap);
            let key: &[u8] = rows.key(at);
            // Numbered before the run, or by an earlier row of it.
            let known = match self.known_ids[i] {
                Ok(id) => Ok(id),
                Err(hash) => self.keys.ids.find_hashed(key, hash).ok_or(hash),
            };
            let merge = merge_into(
                known.ok().map(|id| self.keys.sessions(id)),
                row_start,
                row_end,
            );
            if self.cleanup_time(merge.end) <= watermarks[i] {
                // After the results fired before it.
                self.send_fired_in_run(&values, out)?;
                if self.trace.is_on() {
                    let line = self
                        .trace_line(TraceEvent::Late, key, merge.start, merge.end)?
                        .rowtime(row_start);
                    out.side(line.watermark(watermarks[i]))?;
                }
                out.late(chunk, at, row_start)?;
                continue;
            }
            let seq = self.rows_seen + i as u64;
            let id = match known {
                Ok(id) => id,
                Err(hash) => self.keys.number(key, hash),
            };
            let mut sessions = self.keys.take(id);
            let added = self.add_row(
                time,
                id,
                &mut sessions,
                merge,
                (at, seq, watermarks[i]),
                chunk,
                &values,
                out,
            );
            self.keys.put_back(id, sessions);
            added?;
        }
        self.groups.flush(&values)?;
        self.rows_seen += len as u64;
        Ok(len)
    }
}

impl SessionState {
    /// Adds row `row` of `chunk` (with its arrival number and the watermark
    /// it met) to a key's sessions, as `merge` says it joins them.
    ///
    /// A row inside one session's bounds updates that session; if it has
    /// fired (allowed lateness), it fires again at once as `-U` old, `+U`
    /// new, or not at all when its result did not change. Otherwise the
    /// joined sessions and the row become one new session: those that had
    /// fired are retracted (`-D`), and it fires afresh with `+I` — at once
    /// if its end is already behind the watermark (allowed lateness).
    #[allow(clippy::too_many_arguments)]
    fn add_row(
        &mut self,
        time: &mut EventTime<SessionTimer>,
        key: u32,
        sessions: &mut KeySessions,
        merge: Merge,
        (row, seq, watermark): (usize, u64, i64),
        chunk: &Chunk,
        values: &[Option<ArrayRef>],
        out: &mut Emitter,
    ) -> Result<()> {
        let Merge { start, end, joined } = merge;
        if joined.len() == 1 {
            let (only, session) = sessions
                .at_mut(joined.start)
                .ok_or_else(|| Error::Internal("session vanished".into()))?;
            if only == start && session.end == end {
                session.rows += 1;
                let Some(old) = session.emitted.take() else {
                    // Inside an open session that has not fired: nothing
                    // moves, and its update waits with the others.
                    self.groups.defer(row, session.group);
                    return Ok(());
                };
                // It fires again after the results fired before.
                self.send_fired_in_run(values, out)?;
                self.groups.update(values, row, session.group)?;
                let new = self.result(key, start, session)?;
                if self.trace.is_on() {
                    let line =
                        self.trace_line(TraceEvent::Refire, self.keys.key(key), start, end)?;
                    out.side(line.rows(session.rows).watermark(watermark))?;
                }
                if old != new {
                    out.rows(old, RowKind::UpdateBefore)?;
                    out.rows(new.clone(), RowKind::UpdateAfter)?;
                }
                session.emitted = Some(new);
                out.accept_late(chunk, row)?;
                return Ok(());
            }
            // The common case in order: the row extends the end of the
            // key's open session. It stays where it is, and so does its
            // timer, which moves to the new end when it fires.
            if only == start
                && session.emitted.is_none()
                && end > session.end
                && last_instant(end) > watermark
            {
                self.groups.defer(row, session.group);
                session.end = end;
                session.rows += 1;
                return Ok(());
            }
        }
        // Sessions merge or start here: the rows deferred so far go first.
        self.groups.flush(values)?;
        let mut merged: Option<Session> = None;
        let retracted = sessions
            .run(joined.clone())
            .any(|(_, s)| s.emitted.is_some());
        // Growing one open session is not worth a line; joining several,
        // or changing the bounds of one that fired, is.
        if self.trace.is_on() && (joined.len() > 1 || retracted) {
            self.send_fired(out)?;
            let rows: u64 = sessions
                .run(joined.clone())
                .map(|(_, s)| s.rows)
                .sum::<u64>()
                + 1;
            let line = self.trace_line(TraceEvent::Merge, self.keys.key(key), start, end)?;
            out.side(
                line.field("sessions", joined.len())
                    .rows(rows)
                    .watermark(watermark),
            )?;
        }
        for (_, old) in sessions.take_run(joined) {
            let (at, timer) = match &old.emitted {
                Some(emitted) => {
                    self.send_fired(out)?;
                    out.rows(emitted.clone(), RowKind::Delete)?;
                    self.cleanup_timer(key, &old)
                }
                None => Self::fire_timer(key, &old),
            };
            time.delete(at, &timer);
            merged = Some(match merged {
                None => old,
                Some(mut into) => {
                    self.groups.merge(into.group, old.group)?;
                    into.first_seq = into.first_seq.min(old.first_seq);
                    into.rows += old.rows;
                    into
                }
            });
        }
        let mut session = match merged {
            Some(s) => s,
            None => Session {
                end,
                timer_end: end,
                first_seq: seq,
                group: self.groups.take(),
                rows: 0,
                emitted: None,
            },
        };
        self.groups.update(values, row, session.group)?;
        session.end = end;
        session.timer_end = end;
        session.first_seq = session.first_seq.min(seq);
        session.emitted = None;
        session.rows += 1;
        let (at, timer) = Self::fire_timer(key, &session);
        if retracted || at <= watermark {
            self.send_fired(out)?;
            out.accept_late(chunk, row)?;
        }
        if at <= watermark {
            // Its end is behind the watermark already: it fires at once,
            // before the next row, and waits for its cleanup.
            let result = self.fire(key, start, &session, watermark, out)?;
            session.emitted = Some(result);
            let (cleanup_at, cleanup) = self.cleanup_timer(key, &session);
            time.register(cleanup_at, cleanup);
            sessions.insert(start, session);
            return Ok(());
        }
        time.register(at, timer);
        sessions.insert(start, session);
        Ok(())
    }

    /// A key's session timer: fire (and, with allowed lateness, keep the
    /// session until its cleanup), or clean up.
    fn on_session_timer(
        &mut self,
        time: &mut EventTime<SessionTimer>,
        timer: &SessionTimer,
        sessions: &mut KeySessions,
        out: &mut Emitter,
    ) -> Result<()> {
        let Some((start, session)) = sessions.iter().find(|(_, s)| {
            s.first_seq == timer.first_seq
                && if timer.cleanup {
                    s.end == timer.end
                } else {
                    s.timer_end == timer.end && s.emitted.is_none()
                }
        }) else {
            return Ok(());
        };
        if !timer.cleanup && session.end > session.timer_end {
            // Rows extended it since its timer was set: the timer moves to
            // its end (and fires in this advance if the watermark is there).
            let session = sessions
                .get_mut(start)
                .ok_or_else(|| Error::Internal("session vanished".into()))?;
            session.timer_end = session.end;
            let (at, moved) = Self::fire_timer(timer.key, session);
            time.register(at, moved);
            return Ok(());
        }
        let watermark = time.watermark();
        if timer.cleanup || self.lateness == 0 {
            let session = sessions
                .remove(start)
                .ok_or_else(|| Error::Internal("session vanished".into()))?;
            if timer.cleanup {
                self.groups.give_back(session.group);
            } else {
                // It ends as it fires: its result waits to be built with
                // the others fired while this input item goes through.
                self.trace_fire(timer.key, start, &session, watermark, out)?;
                let fired = Fired {
                    start,
                    end: session.end,
                    group: session.group,
                };
                let key = self.keys.key(timer.key);
                self.fired.push(key, fired, time.watermark_before_advance());
                out.window_fired(watermark);
            }
            if self.trace.is_on() {
                let line = self.trace_line(
                    TraceEvent::Cleanup,
                    self.keys.key(timer.key),
                    start,
                    session.end,
                )?;
                self.send_fired(out)?;
                out.side(line.watermark(watermark))?;
            }
            return Ok(());
        }
        let session = sessions
            .get_mut(start)
            .ok_or_else(|| Error::Internal("session vanished".into()))?;
        let result = self.fire(timer.key, start, session, watermark, out)?;
        session.emitted = Some(result);
        let (at, cleanup) = self.cleanup_timer(timer.key, session);
        time.register(at, cleanup);
        Ok(())
    }

    /// Emits a session's result (`+I`) at once, and returns it: it is
    /// kept for the allowed lateness.
    fn fire(
        &mut self,
        key: u32,
        start: i64,
        session: &Session,
        watermark: i64,
        out: &mut Emitter,
    ) -> Result<RecordBatch> {
        self.send_fired(out)?;
        self.trace_fire(key, start, session, watermark, out)?;
        let result = self.result(key, start, session)?;
        out.rows(result.clone(), RowKind::Insert)?;
        out.window_fired(watermark);
        Ok(result)
    }

    /// The trace line of a session firing, after the results fired before.
    fn trace_fire(
        &mut self,
        key: u32,
        start: i64,
        session: &Session,
        watermark: i64,
        out: &mut Emitter,
    ) -> Result<()> {
        if self.trace.is_on() {
            let line = self.trace_line(TraceEvent::Fire, self.keys.key(key), start, session.end)?;
            self.send_fired(out)?;
            out.side(line.rows(session.rows).watermark(watermark))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Session aggregation against spec §2 and §5: sessions merging per
    //! key, late rows, and allowed lateness on fired sessions.

    use super::*;
    use crate::ops::operator::Operator;
    use crate::ops::testing::{count_star, events, in_chunks, lines, resumed, rows_only, run, s};
    use crate::runtime::stream::StreamItem;
    use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
    use std::sync::Arc;
    use tidemark_common::SqlType;

    /// `COUNT(*)` per key `k` over `SESSION(gap 3 s)`, with `lateness` ms
    /// allowed.
    fn count_per_session(lateness: i64) -> Result<SessionAggregate> {
        per_session(
            vec![count_star()],
            vec![Field::new("cnt", DataType::Int64, false)],
            lateness,
        )
    }

    /// `COUNT(*), SUM(v), MAX(v)` per key `k` over `SESSION(gap 3 s)`,
    /// without lateness.
    fn count_sum_max() -> Result<SessionAggregate> {
        use tidemark_common::expr::{AggregateCall, AggregateFunction};
        let of_v = |func| AggregateCall {
            func,
            arg: Some(2),
            arg_type: Some(SqlType::BigInt),
            ty: SqlType::BigInt,
            ..count_star()
        };
        per_session(
            vec![
                count_star(),
                of_v(AggregateFunction::Sum),
                of_v(AggregateFunction::Max),
            ],
            vec![
                Field::new("cnt", DataType::Int64, false),
                Field::new("total", DataType::Int64, true),
                Field::new("top", DataType::Int64, true),
            ],
            0,
        )
    }

    /// `aggregates` (with their output `fields`) per key `k` over
    /// `SESSION(gap 3 s)`, with `lateness` ms allowed.
    fn per_session(
        aggregates: Vec<AggregateCall>,
        fields: Vec<Field>,
        lateness: i64,
    ) -> Result<SessionAggregate> {
        let ts = DataType::Timestamp(TimeUnit::Millisecond, None);
        let mut columns = vec![
            Field::new("k", DataType::Utf8, true),
            Field::new("window_start", ts.clone(), false),
            Field::new("window_end", ts.clone(), false),
            Field::new("window_time", ts, false),
        ];
        columns.extend(fields);
        SessionAggregate::new(WindowAggregateSpec {
            kind: WindowKind::Session { gap: s(3) },
            time_column: 1,
            key_columns: vec![0],
            key_types: vec![SqlType::String],
            aggregates,
            lateness,
            output_schema: Arc::new(Schema::new(columns)),
            two_phase_sums: false,
            zone: None,
            trace: Tracing::Off,
            early_fire: None,
            key_share: None,
            attached: false,
        })
    }

    #[test]
    fn sessions_fired_by_one_advance_go_out_together_and_their_state_serves_new_ones() -> Result<()>
    {
        // a@1 [1,4) and a@5 [5,8) merge through a@3 into [1,8): 3 rows,
        // 10 + 40 + 50, at most 50. e@21 meets the watermark 18 s (from
        // d@20), which fires b, c and a at once, by end. f and g then open
        // sessions in the state the fired ones gave back, which must hold
        // nothing of theirs.
        let rows = [
            ("a", s(1), 10),
            ("b", s(1), 20),
            ("c", s(2), 30),
            ("a", s(5), 40),
            ("a", s(3), 50),
            ("d", s(20), 60),
            ("e", s(21), 70),
            ("f", s(22), 80),
            ("g", s(23), 90),
        ];
        let chunk = events(&rows, s(2));
        let mut op = count_sum_max()?;
        let mut out = Vec::new();
        op.process(StreamItem::Chunk(chunk.slice(0, 7)), &mut out)?;
        let chunks: Vec<usize> = out
            .iter()
            .filter_map(|item| match item {
                StreamItem::Chunk(c) => Some(c.num_rows()),
                _ => None,
            })
            .collect();
        assert_eq!(chunks, [3], "one chunk for the three sessions");
        let mut resumed_op = resumed(&op, count_sum_max()?)?;
        let rest = vec![StreamItem::Chunk(chunk.slice(7, 2))];
        let mut all = lines(out);
        all.extend(run(&mut resumed_op, rest.clone())?);
        assert_eq!(
            all,
            [
                "+I[b, 1000, 4000, 3999, 1, 20, 20]",
                "+I[c, 2000, 5000, 4999, 1, 30, 30]",
                "+I[a, 1000, 8000, 7999, 3, 100, 50]",
                "WM 18000",
                "WM 20000",
                "+I[d, 20000, 23000, 22999, 1, 60, 60]",
                "+I[e, 21000, 24000, 23999, 1, 70, 70]",
                "+I[f, 22000, 25000, 24999, 1, 80, 80]",
                "+I[g, 23000, 26000, 25999, 1, 90, 90]",
                "WM end",
                "END",
            ]
        );
        assert_eq!(run(&mut op, rest)?, all[4..]);
        Ok(())
    }

    #[test]
    fn a_session_extended_in_order_fires_at_its_real_end_in_its_place() -> Result<()> {
        // a@1, a@3, a@5 grow a's session to [1,8) row by row; its timer
        // was set for [1,4) and fires at the watermark 5 s (before b@4),
        // which moves it to 7.999 s. b's [4,7) then ends first: at the end
        // of input b fires, then a, then c. The same across a checkpoint
        // taken while a's timer is still set for 3.999 s, and row by row.
        let rows = [
            ("a", s(1), 1),
            ("a", s(3), 2),
            ("a", s(5), 4),
            ("b", s(4), 8),
            ("c", s(20), 16),
        ];
        let chunk = events(&rows, 0);
        let expected = [
            "+I[b, 4000, 7000, 6999, 1, 8, 8]",
            "+I[a, 1000, 8000, 7999, 3, 7, 4]",
            "+I[c, 20000, 23000, 22999, 1, 16, 16]",
            "END",
        ];
        whole_and_row_by_row(&chunk, &expected)?;
        let mut first = count_sum_max()?;
        let mut out = Vec::new();
        first.process(StreamItem::Chunk(chunk.slice(0, 2)), &mut out)?;
        let mut got = lines(out);
        let mut second = resumed(&first, count_sum_max()?)?;
        got.extend(run(
            &mut second,
            vec![StreamItem::Chunk(chunk.slice(2, 3))],
        )?);
        assert_eq!(rows_only(got), expected);
        Ok(())
    }

    /// `chunk` through [`count_sum_max`] whole and a row at a time: both
    /// give `expected`.
    fn whole_and_row_by_row(chunk: &Chunk, expected: &[&str]) -> Result<()> {
        let whole = rows_only(run(
            &mut count_sum_max()?,
            vec![StreamItem::Chunk(chunk.clone())],
        )?);
        assert_eq!(whole, expected);
        let one_by_one = rows_only(run(&mut count_sum_max()?, in_chunks(chunk, 1))?);
        assert_eq!(one_by_one, expected, "row by row");
        Ok(())
    }

    #[test]
    fn rows_inside_an_open_session_count_in_arrival_order() -> Result<()> {
        // a@2 and a@4 fall inside a's open session (grown in order by a@3
        // and a@5) and wait with the rows that extend it; b@2 between them
        // is another key's. Every row counts, whole or row by row.
        let rows = [
            ("a", s(1), 1),
            ("a", s(3), 2),
            ("a", s(2), 4),
            ("b", s(2), 8),
            ("a", s(5), 16),
            ("a", s(4), 32),
            ("c", s(20), 64),
        ];
        let chunk = events(&rows, s(2));
        let expected = [
            "+I[b, 2000, 5000, 4999, 1, 8, 8]",
            "+I[a, 1000, 8000, 7999, 5, 55, 32]",
            "+I[c, 20000, 23000, 22999, 1, 64, 64]",
            "END",
        ];
        whole_and_row_by_row(&chunk, &expected)
    }

    /// Two keys, watermark `ts - 2 s`, no lateness; `v` is the arrival
    /// number. Watermarks met: -inf, -1, -1, 3, 3, 3, 10, 10, 10 s.
    fn two_keys() -> Vec<(&'static str, i64, i64)> {
        [
            ("a", 1),
            ("b", 1),
            ("a", 5),
            ("a", 3),
            ("b", 4),
            ("a", 12),
            ("b", 9),
            ("a", 2),
            ("a", 9),
        ]
        .iter()
        .enumerate()
        .map(|(i, (k, t))| (*k, s(*t), i as i64))
        .collect()
    }

    /// One key, watermark `ts - 2 s`, 5 s of lateness allowed. Watermarks
    /// met: -inf, -1, 1, 7, 8, 8, 8, 8, 18 s.
    fn fired_sessions() -> Vec<(&'static str, i64, i64)> {
        [1, 3, 9, 10, 2, 4, 7, 20, 5]
            .iter()
            .enumerate()
            .map(|(i, t)| ("a", s(*t), i as i64))
            .collect()
    }

    #[test]
    fn sessions_fired_one_by_one_in_a_chunk_go_out_as_one_chunk_with_their_watermarks() -> Result<()>
    {
        // Keys k0..k5, a row each 4 s apart, watermark ts: a row meets the
        // watermark of the row before it, so k2's row (at 4 s) fires k0's
        // session (gap 3 s), k3's fires k1's, and so on. The four fired
        // within the chunk go out as one chunk, each row with the
        // watermark before the advance that fired it; k4's and k5's wait.
        let names = ["k0", "k1", "k2", "k3", "k4", "k5"];
        let rows: Vec<(&str, i64, i64)> = names
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, s(4 * i as i64), i as i64))
            .collect();
        let mut op = count_per_session(0)?;
        let mut out = Vec::new();
        op.process(StreamItem::Chunk(events(&rows, 0)), &mut out)?;
        let chunks: Vec<&Chunk> = out
            .iter()
            .filter_map(|item| match item {
                StreamItem::Chunk(chunk) => Some(chunk),
                _ => None,
            })
            .collect();
        assert_eq!(chunks.len(), 1, "{out:?}");
        assert_eq!(chunks[0].watermarks, [0, s(4), s(8), s(12)]);
        assert!(matches!(out.last(), Some(StreamItem::Watermark(w)) if *w == s(16)));
        assert_eq!(
            lines(out)[..4],
            [
                "+I[k0, 0, 3000, 2999, 1]",
                "+I[k1, 4000, 7000, 6999, 1]",
                "+I[k2, 8000, 11000, 10999, 1]",
                "+I[k3, 12000, 15000, 14999, 1]",
            ]
        );
        Ok(())
    }

    #[test]
    fn sessions_merge_per_key_and_a_row_is_late_only_if_its_merged_session_fired() -> Result<()> {
        let mut op = count_per_session(0)?;
        let lines = run(&mut op, vec![StreamItem::Chunk(events(&two_keys(), s(2)))])?;
        // a@1 [1,4) and a@5 [5,8) stay apart (4 < 5) until a@3 [3,6)
        // overlaps both: a's session is [1,8) with 3 rows. b@4 [4,7) touches
        // b@1 [1,4): b's is [1,7) with 2. The watermark 10 s (before b@9)
        // fires b's (at 6.999 s) before a's (at 7.999 s). a@2 [2,5) joins
        // no open session of a (only [12,15) is left) and its own fired at
        // 4.999 s: late. a@9 [9,12) touches a@12's [12,15): kept, though
        // 1 s behind the watermark. The end of input fires b [9,12) at
        // 11.999 s, then a [9,15) at 14.999 s.
        assert_eq!(
            lines,
            [
                "+I[b, 1000, 7000, 6999, 2]",
                "+I[a, 1000, 8000, 7999, 3]",
                "WM 10000",
                "LATE[a, 2000, 7] @10000",
                "+I[b, 9000, 12000, 11999, 1]",
                "+I[a, 9000, 15000, 14999, 2]",
                "WM end",
                "END",
            ]
        );
        let m = op.metrics();
        assert_eq!((m.late_rows, m.late_rows_accepted), (1, 0));
        assert_eq!(m.lateness.max(), Some(s(8)));
        assert_eq!((m.windows_fired, m.windows_fired_before_end), (4, 2));
        Ok(())
    }

    #[test]
    fn with_allowed_lateness_late_rows_update_retract_and_remerge_fired_sessions() -> Result<()> {
        let mut op = count_per_session(s(5))?;
        let lines = run(
            &mut op,
            vec![StreamItem::Chunk(events(&fired_sessions(), s(2)))],
        )?;
        // @1 and @3 make [1,6); @9 opens [9,12). The watermark 7 s (before
        // @10) fires [1,6) with 2 rows, kept until 5.999 + 5 s; @10 grows
        // the open [9,12) to [9,13). Then, at watermark 8 s:
        // - @2's [2,5) lies inside the fired [1,6): its bounds stay, so it
        //   is updated, -U 2 then +U 3;
        // - @4's [4,7) grows it to [1,7): the old result is retracted (-D)
        //   and, its end already behind the watermark, [1,7) fires at once
        //   with 4;
        // - @7's [7,10) touches [1,7) and overlaps [9,13): [1,7) is
        //   retracted and the merged [1,13) (7 rows) waits for its end;
        // - @20 opens [20,23).
        // The watermark 18 s (before @5) fires [1,13) at 12.999 s and
        // cleans it up at 17.999 s; @5's [5,8) then joins nothing and its
        // cleanup, 7.999 + 5 s, has passed: late. The end fires [20,23).
        // The results of one input chunk go out together until a side
        // item (the late row): each row carries the watermark in force
        // when it was emitted (below), so the watermark 7 s needs no item
        // of its own.
        assert_eq!(
            lines,
            [
                "+I[a, 1000, 6000, 5999, 2]",
                "-U[a, 1000, 6000, 5999, 2]",
                "+U[a, 1000, 6000, 5999, 3]",
                "-D[a, 1000, 6000, 5999, 3]",
                "+I[a, 1000, 7000, 6999, 4]",
                "-D[a, 1000, 7000, 6999, 4]",
                "+I[a, 1000, 13000, 12999, 7]",
                "WM 18000",
                "LATE[a, 5000, 8] @18000",
                "+I[a, 20000, 23000, 22999, 1]",
                "WM end",
                "END",
            ]
        );
        let m = op.metrics();
        assert_eq!((m.late_rows, m.late_rows_accepted), (1, 3));
        // [1,6) fired as the watermark rose from 1 s to 7 s, and carries
        // 1 s; the rows @2 to @20 emitted at 8 s (and [1,13), fired as it
        // rose from 8 s to 18 s) carry 8 s, past 7 s.
        let mut out = Vec::new();
        count_per_session(s(5))?
            .process(StreamItem::Chunk(events(&fired_sessions(), s(2))), &mut out)?;
        let carried: Vec<i64> = out
            .iter()
            .flat_map(|item| match item {
                StreamItem::Chunk(chunk) => chunk.watermarks.clone(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(carried, [s(1), s(8), s(8), s(8), s(8), s(8), s(8)]);
        Ok(())
    }

    #[test]
    fn without_lateness_rows_behind_a_fired_session_are_late_unless_they_touch_an_open_one(
    ) -> Result<()> {
        // The same rows without lateness: [1,6) is gone once it fired, so
        // @2 [2,5) is late (4.999 s ≤ 8 s); @4 [4,7) is late too (6.999 s);
        // @7 [7,10) overlaps the open [9,13) and is kept: [7,13) with 3
        // rows fires at 12.999 s when the watermark reaches 18 s; @5 [5,8)
        // joins nothing open and is late. The first two late rows wait
        // for the fire at 18 s, the first output after them, and go out
        // before it; the watermark 8 s fired nothing, so it is not sent.
        let lines = run(
            &mut count_per_session(0)?,
            vec![StreamItem::Chunk(events(&fired_sessions(), s(2)))],
        )?;
        assert_eq!(
            lines,
            [
                "+I[a, 1000, 6000, 5999, 2]",
                "WM 7000",
                "LATE[a, 2000, 4] @8000",
                "LATE[a, 4000, 5] @8000",
                "+I[a, 7000, 13000, 12999, 3]",
                "WM 18000",
                "LATE[a, 5000, 8] @18000",
                "+I[a, 20000, 23000, 22999, 1]",
                "WM end",
                "END",
            ]
        );
        Ok(())
    }

    #[test]
    fn results_do_not_depend_on_the_batch_size() -> Result<()> {
        for (rows, lateness) in [(two_keys(), 0), (fired_sessions(), s(5))] {
            let chunk = events(&rows, s(2));
            let whole = rows_only(run(
                &mut count_per_session(lateness)?,
                vec![StreamItem::Chunk(chunk.clone())],
            )?);
            for batch in [1, 2, 3] {
                let cut = rows_only(run(
                    &mut count_per_session(lateness)?,
                    in_chunks(&chunk, batch),
                )?);
                assert_eq!(cut, whole, "lateness {lateness}, batch {batch}");
            }
        }
        Ok(())
    }

    #[test]
    fn a_checkpoint_with_fired_sessions_kept_for_lateness_resumes_to_the_same_output() -> Result<()>
    {
        // After six rows, [1,7) has fired and waits for its cleanup with
        // what it emitted, and [9,13) is open: the state a late row needs
        // to retract and merge.
        let chunk = events(&fired_sessions(), s(2));
        let mut first = Vec::new();
        let mut op = count_per_session(s(5))?;
        op.process(StreamItem::Chunk(chunk.slice(0, 6)), &mut first)?;
        let mut back = resumed(&op, count_per_session(s(5))?)?;
        let rest = vec![StreamItem::Chunk(chunk.slice(6, 3))];
        let resumed_lines = run(&mut back, rest.clone())?;
        assert_eq!(resumed_lines, run(&mut op, rest)?);
        let mut all = lines(first);
        all.extend(resumed_lines);
        let straight = run(
            &mut count_per_session(s(5))?,
            vec![StreamItem::Chunk(chunk)],
        )?;
        assert_eq!(rows_only(all), rows_only(straight));
        assert_eq!(back.metrics().late_rows_accepted, 3);
        Ok(())
    }
}
