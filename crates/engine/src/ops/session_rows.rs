//! A SESSION TVF read without aggregation: rows are held per session and,
//! when the session fires, come out each with the session's
//! `window_start`, `window_end` and `window_time` (as Flink does). A
//! session's rows keep their arrival order, except that when a row joins
//! sessions, their rows come first, earliest session first, then the row.
//! Sessions are keyed by the `PARTITION BY` columns and merge as in
//! [`crate::time::merging`].

use crate::ops::emit::{key_converter, ChunkRows, Emitter, Windowed, WindowedState};
use crate::ops::operator::{HeldBytes, StateSize};
use crate::runtime::snapshot::{
    corrupt, get_batch, get_keys, put_batch, put_keys, StateReader, StateWriter,
};
use crate::runtime::stream::Chunk;
use crate::time::last_instant;
use crate::time::merging::{merge_into, Interval, Intervals, Merge};
use crate::time::service::{EventTime, TimerHandler};
use crate::time::trace::{TraceEvent, TraceLine, Tracing};
use crate::time::window_columns::WindowColumns;
use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::datatypes::SchemaRef;
use arrow::row::RowConverter;
use std::collections::HashMap;
use std::ops::Range;
use tidemark_common::{Error, Result, RowKind, SqlType};

struct Held {
    end: i64,
    /// The session's rows, each a one-row slice of its input batch.
    rows: Vec<RecordBatch>,
}

impl Interval for Held {
    fn end(&self) -> i64 {
        self.end
    }
}

pub struct RowsState {
    gap: i64,
    time_column: usize,
    key_columns: Vec<usize>,
    key_converter: Option<RowConverter>,
    key_types: Vec<SqlType>,
    trace: Tracing,
    output_schema: SchemaRef,
    zone: Option<chrono_tz::Tz>,
    sessions: HashMap<Vec<u8>, Intervals<Held>>,
    /// The rowtimes and keys of the chunk going through, read once for all
    /// its runs.
    chunk_rows: Option<ChunkRows>,
}

/// The operator: its state on the shared event-time service.
pub type SessionRows = Windowed<RowsState>;

impl SessionRows {
    pub fn new(
        gap: i64,
        time_column: usize,
        key_columns: Vec<usize>,
        key_types: Vec<SqlType>,
        output_schema: SchemaRef,
        zone: Option<chrono_tz::Tz>,
        trace: Tracing,
    ) -> Result<Self> {
        if gap <= 0 {
            return Err(Error::Internal("a session gap must be positive".into()));
        }
        let key_converter = key_converter(&key_types)?;
        Ok(Windowed::from_state(RowsState {
            gap,
            time_column,
            key_columns,
            key_converter,
            key_types,
            trace,
            output_schema,
            zone,
            sessions: HashMap::new(),
            chunk_rows: None,
        }))
    }
}

impl WindowedState for RowsState {
    const NAME: &'static str = "SessionTvf";
    const LATE_REASON: &'static str = crate::ops::session_agg::LATE_REASON;

    fn on_chunk(&mut self, chunk: &Chunk) -> Result<()> {
        self.chunk_rows = Some(ChunkRows::new(
            chunk,
            self.time_column,
            self.key_converter.as_ref(),
            &self.key_columns,
        )?);
        Ok(())
    }

    fn on_item_done(&mut self, _out: &mut Emitter) -> Result<()> {
        self.chunk_rows = None;
        Ok(())
    }

    fn state(&self) -> StateSize {
        let mut size = StateSize::default();
        let mut rows = HeldBytes::default();
        for (key, sessions) in &self.sessions {
            size.bytes += (key.len() + 64) as u64;
            for held in sessions.values() {
                for batch in &held.rows {
                    size.entries += batch.num_rows() as u64;
                    rows.add(batch);
                }
            }
        }
        size.bytes += rows.bytes();
        size
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        // By key, so that equal state writes equal bytes.
        let mut keys: Vec<&Vec<u8>> = self.sessions.keys().collect();
        keys.sort();
        w.u64(keys.len() as u64);
        if let Some(conv) = &self.key_converter {
            put_keys(w, conv, keys.iter().map(|k| k.as_slice()))?;
        }
        for key in keys {
            let sessions = &self.sessions[key];
            w.u64(sessions.len() as u64);
            for (start, held) in sessions.iter() {
                w.put(&start);
                w.put(&held.end);
                w.u64(held.rows.len() as u64);
                if let Some(first) = held.rows.first() {
                    // The rows as one batch; read back a row at a time.
                    let rows = arrow::compute::concat_batches(&first.schema(), &held.rows)?;
                    put_batch(w, &rows)?;
                }
            }
        }
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let n = r.count()?;
        // A SESSION without PARTITION BY has one key, empty.
        let keys: Vec<Vec<u8>> = match &self.key_converter {
            Some(conv) => get_keys(r, conv)?
                .iter()
                .map(|k| k.as_ref().to_vec())
                .collect(),
            None => vec![Vec::new(); n],
        };
        if keys.len() != n {
            return Err(corrupt("the keys do not add up"));
        }
        for key in keys {
            let count = r.count()?;
            let mut sessions = Intervals::default();
            for _ in 0..count {
                let start: i64 = r.get()?;
                let end = r.get()?;
                let n = r.count()?;
                let rows = if n == 0 {
                    Vec::new()
                } else {
                    let batch = get_batch(r)?;
                    if batch.num_rows() != n {
                        return Err(corrupt("a session's rows do not add up"));
                    }
                    (0..n).map(|i| batch.slice(i, 1)).collect()
                };
                sessions.insert(start, Held { end, rows });
            }
            self.sessions.insert(key, sessions);
        }
        Ok(())
    }
}

impl RowsState {
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
}

impl RowsState {
    /// Rows `range` of `chunk` (rowtimes and keys in `rows`) join their
    /// keys' sessions, or are dropped as late; returns how many went
    /// through before a timer they set came due.
    fn admit(
        &mut self,
        time: &mut EventTime<(i64, Vec<u8>)>,
        chunk: &Chunk,
        range: Range<usize>,
        rows: &ChunkRows,
        out: &mut Emitter,
    ) -> Result<usize> {
        let len = range.len();
        let (watermarks, ts) = (&chunk.watermarks[range.clone()], &rows.rowtimes);
        for i in 0..len {
            if !time.admit(watermarks[i]) {
                return Ok(i);
            }
            let at = range.start + i;
            if ts.is_null(at) {
                continue;
            }
            let row_start = ts.value(at);
            let key: &[u8] = rows.key(at);
            let Merge { start, end, joined } = merge_into(
                self.sessions.get(key),
                row_start,
                row_start.saturating_add(self.gap),
            );
            if last_instant(end) <= watermarks[i] {
                if self.trace.is_on() {
                    let line = self
                        .trace_line(TraceEvent::Late, key, start, end)?
                        .rowtime(row_start);
                    out.side(line.watermark(watermarks[i]))?;
                }
                out.late(chunk, at, row_start)?;
                continue;
            }
            let sessions = self.sessions.entry(key.to_vec()).or_default();
            let mut held = Vec::new();
            for (_, old) in sessions.take_run(joined) {
                time.delete(last_instant(old.end), &(old.end, key.to_vec()));
                held.extend(old.rows);
            }
            held.push(chunk.batch.slice(at, 1));
            time.register(last_instant(end), (end, key.to_vec()));
            sessions.insert(start, Held { end, rows: held });
        }
        Ok(len)
    }
}

impl TimerHandler for RowsState {
    /// (session end, key): sessions firing together come out by key.
    type Key = (i64, Vec<u8>);
    type Output = Emitter;

    fn on_rows(
        &mut self,
        time: &mut EventTime<(i64, Vec<u8>)>,
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
        time: &mut EventTime<(i64, Vec<u8>)>,
        _at: i64,
        (end, key): (i64, Vec<u8>),
        out: &mut Emitter,
    ) -> Result<()> {
        let Some(sessions) = self.sessions.get_mut(&key) else {
            return Ok(());
        };
        let Some(start) = sessions.iter().find(|(_, s)| s.end == end).map(|(s, _)| s) else {
            return Ok(());
        };
        let held = sessions
            .remove(start)
            .ok_or_else(|| Error::Internal("session vanished".into()))?;
        if sessions.is_empty() {
            self.sessions.remove(&key);
        }
        let Some(first) = held.rows.first() else {
            return Ok(());
        };
        if self.trace.is_on() {
            let line = self
                .trace_line(TraceEvent::Fire, &key, start, end)?
                .rows(held.rows.len() as u64)
                .watermark(time.watermark());
            out.side(line)?;
        }
        let rows = arrow::compute::concat_batches(&first.schema(), &held.rows)?;
        let n = rows.num_rows();
        let wall = |t: i64| match self.zone {
            Some(tz) => crate::time::zone::to_wall_clock(t, tz).unwrap_or(t),
            None => t,
        };
        let time_zone = match rows.column(self.time_column).data_type() {
            arrow::datatypes::DataType::Timestamp(_, tz) => tz.clone(),
            _ => None,
        };
        let mut columns: Vec<ArrayRef> = rows.columns().to_vec();
        columns.extend(WindowColumns::new(time_zone).repeat(
            wall(start),
            wall(end),
            last_instant(end),
            n,
        ));
        out.rows(
            RecordBatch::try_new(self.output_schema.clone(), columns)?,
            RowKind::Insert,
        )?;
        if self.trace.is_on() {
            // The session's rows are gone with the fire.
            let line = self.trace_line(TraceEvent::Cleanup, &key, start, end)?;
            out.side(line.watermark(time.watermark()))?;
        }
        out.window_fired(time.watermark());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! The SESSION TVF against spec §2: each row with its session's
    //! bounds once the session fires, per `PARTITION BY` key.

    use super::*;
    use crate::ops::operator::Operator;
    use crate::ops::testing::{
        events, in_chunks, lines, resumed, rows_only, run, s, windowed_schema,
    };
    use crate::runtime::stream::StreamItem;

    /// `SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), 3 s)`.
    fn sessions() -> Result<SessionRows> {
        SessionRows::new(
            s(3),
            1,
            vec![0],
            vec![SqlType::String],
            windowed_schema(),
            None,
            Tracing::Off,
        )
    }

    /// Watermark `ts - 2 s`; `v` is the arrival number. Watermarks met:
    /// -inf, 1, 1, 1, 7, 7, 7, 7 s.
    fn arrivals() -> Vec<(&'static str, i64, i64)> {
        [
            ("b", 3),
            ("a", 1),
            ("a", 3),
            ("b", 9),
            ("a", 8),
            ("a", 4),
            ("a", 6),
            ("b", 12),
        ]
        .iter()
        .enumerate()
        .map(|(i, (k, t))| (*k, s(*t), i as i64))
        .collect()
    }

    #[test]
    fn rows_come_out_with_their_merged_session_when_it_fires() -> Result<()> {
        let lines = run(
            &mut sessions()?,
            vec![StreamItem::Chunk(events(&arrivals(), s(2)))],
        )?;
        // b@3 is [3,6); a@1 [1,4) and a@3 [3,6) merge into [1,6). The
        // watermark 7 s (before a@8) fires both at 5.999 s: sessions that
        // fire together come out by key, so a's rows before b's though b's
        // arrived first; each session's rows in arrival order. a@4's
        // [4,7) joins no open session of a (a@8's [8,11) starts after 7)
        // and would fire at 6.999 s ≤ 7 s: late. a@6's [6,9) overlaps
        // [8,11): kept, though behind the watermark, and the session
        // starts at 6 s. b@12's [12,15) touches b@9's [9,12).
        assert_eq!(
            lines,
            [
                "+I[a, 1000, 1, 1000, 6000, 5999]",
                "+I[a, 3000, 2, 1000, 6000, 5999]",
                "+I[b, 3000, 0, 3000, 6000, 5999]",
                "WM 7000",
                "LATE[a, 4000, 5] @7000",
                "+I[a, 8000, 4, 6000, 11000, 10999]",
                "+I[a, 6000, 6, 6000, 11000, 10999]",
                "+I[b, 9000, 3, 9000, 15000, 14999]",
                "+I[b, 12000, 7, 9000, 15000, 14999]",
                "WM end",
                "END",
            ]
        );
        Ok(())
    }

    #[test]
    fn results_do_not_depend_on_the_batch_size() -> Result<()> {
        let chunk = events(&arrivals(), s(2));
        let whole = rows_only(run(
            &mut sessions()?,
            vec![StreamItem::Chunk(chunk.clone())],
        )?);
        for batch in [1, 2, 3] {
            let cut = rows_only(run(&mut sessions()?, in_chunks(&chunk, batch))?);
            assert_eq!(cut, whole, "batch {batch}");
        }
        Ok(())
    }

    #[test]
    fn a_checkpoint_with_rows_held_resumes_to_the_same_output() -> Result<()> {
        // After five rows a's [8,11) and b's [9,12) hold their rows.
        let chunk = events(&arrivals(), s(2));
        let mut first = Vec::new();
        let mut op = sessions()?;
        op.process(StreamItem::Chunk(chunk.slice(0, 5)), &mut first)?;
        let mut back = resumed(&op, sessions()?)?;
        let rest = vec![StreamItem::Chunk(chunk.slice(5, 3))];
        let resumed_lines = run(&mut back, rest.clone())?;
        assert_eq!(resumed_lines, run(&mut op, rest)?);
        let mut all = lines(first);
        all.extend(resumed_lines);
        let straight = run(&mut sessions()?, vec![StreamItem::Chunk(chunk)])?;
        assert_eq!(rows_only(all), rows_only(straight));
        Ok(())
    }
}
