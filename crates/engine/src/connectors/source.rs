//! A declared table as a stream: reads its connector's splits, computes
//! computed columns, drops (and counts) rows that cannot be placed in
//! time, and assigns the watermark row by row — each split's own, and the
//! table's as the minimum over its splits, with rows interleaved by lowest
//! watermark ([`crate::time::align`], spec §8).

use super::filesystem::parallel::ParallelRead;
use super::split::{Split, SplitDiscovery};
use super::SourceSpec;
use crate::expr::eval::{evaluate, EvalContext};
use crate::runtime::read::{ReadPosition, ReadStats};
use crate::runtime::snapshot::{StateReader, StateWriter};
use crate::runtime::stream::{BadRow, BadRows, Chunk, Origin, SideItem, SourceTable, StreamItem};
use crate::time::align::{Aligner, HeldWatermark, Next, PREFETCH_ROWS};
use crate::time::clock::Clock;
use crate::time::trace::{instant, TraceEvent, TraceLine};
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{SchemaRef, TimestampMillisecondType};
use std::sync::Arc;
use tidemark_common::catalog::TableDef;
use tidemark_common::expr::{Expr, ScalarFunction};
use tidemark_common::time::{FINAL_WATERMARK, NO_WATERMARK};
use tidemark_common::{Error, Result};

/// What a source reports for the run summary.
#[derive(Clone, Debug, Default)]
pub struct SourceMetrics {
    pub table: String,
    pub rows_read: u64,
    /// Rows skipped because their rowtime is NULL or unparsable.
    pub rows_without_rowtime: u64,
    pub csv: ReadStats,
    pub watermark: i64,
    /// The earliest and latest rowtime read, if the table has one.
    pub rowtimes: Option<(i64, i64)>,
    /// The table's watermark delay, when its watermark is `rowtime - d`.
    pub watermark_delay: Option<i64>,
    /// How often a split went idle, and came back (spec §8).
    pub went_idle: u64,
    pub came_back: u64,
}

/// A split of the table and what the source knows of it.
struct SplitState {
    split: Split,
    /// The running maximum of the WATERMARK expression over this split's
    /// rows: the split's own watermark.
    watermark: i64,
    /// An error found after some rows of a batch: raised once those rows
    /// have gone out.
    pending_error: Option<Error>,
    /// When on the clock the split last read rows (or joined): what its
    /// idle timeout counts from. Unset until the clock has started.
    quiet_since: Option<i64>,
    /// When on the clock the split went idle, while it is.
    idle_since: Option<i64>,
}

impl SplitState {
    fn new(split: Split) -> Self {
        SplitState {
            split,
            watermark: NO_WATERMARK,
            pending_error: None,
            quiet_since: None,
            idle_since: None,
        }
    }
}

/// How a source's splits go idle (spec §8).
#[derive(Clone, Copy, Debug, Default)]
pub struct Idleness {
    /// A split that may pause and has read no row for this long on the
    /// engine's clock is idle; 0: never.
    pub timeout_ms: i64,
    /// Transitions are traced.
    pub trace: bool,
}

pub struct TableSource {
    table: Arc<TableDef>,
    /// The table's splits; split `k` is lane `k` of `aligner`.
    splits: Vec<SplitState>,
    /// The splits' rows read and not yet taken, interleaved by lowest
    /// watermark; its combined watermark is the table's.
    aligner: Aligner,
    schema: SchemaRef,
    ctx: EvalContext,
    ignore_parse_errors: bool,
    rows_without_rowtime: u64,
    done: bool,
    /// The input was ended early ([`TableSource::stop_input`]).
    stopped: bool,
    /// What finds splits that appear later (a followed folder's new
    /// files), and when it last looked, on the clock.
    discovery: Option<Box<dyn SplitDiscovery>>,
    looked_at: i64,
    /// Splits keep malformed rows' text, and positions: set for those
    /// that join later too.
    keeps_bad_rows: bool,
    tracks_positions: bool,
    idleness: Idleness,
    /// How often a split went idle, and came back.
    went_idle: u64,
    came_back: u64,
    /// Processing time, for `PROCTIME()` columns.
    clock: Clock,
    /// Set when late rows are routed: chunks then say which source rows
    /// they hold.
    origin: Option<Arc<SourceTable>>,
    rowtimes: Option<(i64, i64)>,
}

impl TableSource {
    /// Opens `table` through its connector; a file that is read to its
    /// end is parsed as `parallel` says (in file order all the same).
    pub fn open(
        table: Arc<TableDef>,
        batch_size: usize,
        parallel: ParallelRead,
        ctx: EvalContext,
        clock: Clock,
    ) -> Result<Self> {
        let columns: Vec<(String, tidemark_common::SqlType)> = table.schema.fields
            [..table.physical]
            .iter()
            .map(|f| (f.name.clone(), f.ty.clone()))
            .collect();
        let opened = super::opening(&table)?.open_source(SourceSpec {
            table: &table,
            columns,
            batch_size,
            parallel,
            clock: clock.clone(),
        })?;
        let mut source =
            Self::with_splits(table, opened.splits, ctx, clock, opened.ignore_parse_errors);
        source.looked_at = source.clock.now();
        source.discovery = opened.discovery;
        Ok(source)
    }

    fn with_splits(
        table: Arc<TableDef>,
        mut splits: Vec<Split>,
        ctx: EvalContext,
        clock: Clock,
        ignore_parse_errors: bool,
    ) -> Self {
        for split in &mut splits {
            split.reader.set_time_zone(ctx.time_zone);
        }
        TableSource {
            schema: table.schema.to_arrow(),
            table,
            aligner: Aligner::new(splits.len()),
            splits: splits.into_iter().map(SplitState::new).collect(),
            ctx,
            ignore_parse_errors,
            rows_without_rowtime: 0,
            done: false,
            stopped: false,
            discovery: None,
            looked_at: NO_WATERMARK,
            keeps_bad_rows: false,
            tracks_positions: false,
            idleness: Idleness::default(),
            went_idle: 0,
            came_back: 0,
            clock,
            origin: None,
            rowtimes: None,
        }
    }

    /// Sets how the table's splits go idle.
    pub fn set_idleness(&mut self, idleness: Idleness) {
        self.idleness = idleness;
    }

    /// Whether every split that has not ended is idle, with nothing read
    /// and not yet taken: the table no longer holds a union's or join's
    /// watermark (spec §8).
    pub fn is_idle(&self) -> bool {
        let lanes = self.aligner.lanes();
        !self.done
            && lanes.iter().any(|l| !l.ended())
            && lanes
                .iter()
                .all(|l| !l.holds_items() && (l.ended() || l.idle()))
    }

    /// Whether the last read found nothing for now, every split waiting.
    pub fn is_waiting(&self) -> bool {
        self.aligner.waiting().is_some()
    }

    /// The split the table waits for, when its lowest split has nothing
    /// read: it holds the table's rows and watermark.
    pub fn waiting_for(&self) -> Option<&str> {
        let k = self.aligner.waiting().flatten()?;
        Some(self.splits[k].split.name.as_str())
    }

    /// The clock this table reads (shared with the run's other tables).
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The next instant on the clock at which something is known to
    /// happen to this table: a split's rows arrive (a replay), a split's
    /// idle timeout ends, the folder is looked at again.
    pub fn wake_at(&self) -> Option<i64> {
        if self.done {
            return None;
        }
        let arrivals = self.splits.iter().filter_map(|s| s.split.reader.wake_at());
        let timeout = self.idleness.timeout_ms;
        let deadlines = self
            .splits
            .iter()
            .zip(self.aligner.lanes())
            .filter(|(s, l)| {
                timeout > 0
                    && s.split.reader.may_pause()
                    && !l.ended()
                    && !l.idle()
                    && !l.holds_items()
            })
            .filter_map(|(s, _)| s.quiet_since.map(|t| t.saturating_add(timeout)));
        let look = self
            .discovery
            .as_ref()
            .map(|d| self.looked_at.saturating_add(d.interval_ms()));
        arrivals.chain(deadlines).chain(look).min()
    }

    /// Why this table cannot be checkpointed, if it cannot: only files
    /// read on one thread can be read again from a position.
    pub fn checkpoint_blocker(&self) -> Option<Error> {
        let what = self
            .splits
            .iter()
            .find_map(|s| s.split.reader.unpositioned())?;
        Some(
            Error::plan(
                format!(
                    "checkpointing covers tables read from files: table {} reads {what}",
                    self.table.name
                ),
                tidemark_common::Span::default(),
            )
            .with_hint("run the query without 'execution.checkpointing.dir'"),
        )
    }

    /// Keeps what checkpoints need of the reading: a checksum of the bytes
    /// read (called before the first read).
    pub fn track_position(&mut self) {
        self.tracks_positions = true;
        for s in &mut self.splits {
            s.split.reader.track_position();
        }
    }

    /// Whether the source stands between two batches with nothing waiting
    /// (no error to report, the input not ended): a checkpoint can be taken.
    pub fn at_checkpoint_point(&self) -> bool {
        self.splits
            .iter()
            .all(|s| s.split.reader.between_batches() && s.pending_error.is_none())
            && !self.stopped
    }

    /// Writes where the source stands for a checkpoint: each split's name,
    /// position (with a checksum of the bytes before it, so that a changed
    /// file is noticed on resume) and watermark, the rows read from the
    /// splits and not yet taken, and counts.
    pub fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.splits.len() as u64);
        for s in &self.splits {
            let Some(position) = s.split.reader.position() else {
                return Err(self.checkpoint_blocker().unwrap_or_else(|| {
                    Error::Internal("a checkpoint between two batches of a source".into())
                }));
            };
            w.put(&s.split.name);
            w.put(&position);
            w.put(&s.watermark);
        }
        self.aligner.save_state(w)?;
        w.put(&self.done);
        w.put(&self.rows_without_rowtime);
        w.put(&self.rowtimes);
        w.put(&match self.clock {
            Clock::Fake { rows, .. } => Some(rows),
            Clock::System | Clock::Scripted(_) => None,
        });
        w.put(&match self.clock {
            Clock::Scripted(_) => Some(self.clock.now()),
            Clock::System | Clock::Fake { .. } => None,
        });
        for s in &self.splits {
            w.put(&s.quiet_since);
            w.put(&s.idle_since);
        }
        w.put(&self.went_idle);
        w.put(&self.came_back);
        Ok(())
    }

    /// Reads what [`TableSource::save_state`] wrote, and goes on reading
    /// each split from the position saved: the table must read the splits
    /// the checkpoint read, by name.
    pub fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        if let Some(blocker) = self.checkpoint_blocker() {
            return Err(blocker);
        }
        let saved = r.count()?;
        let mut positions = Vec::with_capacity(saved);
        for _ in 0..saved {
            let name: String = r.get()?;
            let position: ReadPosition = r.get()?;
            let watermark: i64 = r.get()?;
            positions.push((name, position, watermark));
        }
        // A followed folder may hold files that came after the checkpoint:
        // they join as new splits, after those the checkpoint read.
        let names = |names: Vec<&str>| names.join(", ");
        let now_names: Vec<String> = self.splits.iter().map(|s| s.split.name.clone()).collect();
        let mut current: Vec<Option<SplitState>> = std::mem::take(&mut self.splits)
            .into_iter()
            .map(Some)
            .collect();
        let mut ordered = Vec::with_capacity(current.len());
        for (name, position, watermark) in &positions {
            let found = current
                .iter_mut()
                .find(|s| s.as_ref().is_some_and(|s| s.split.name == *name))
                .and_then(Option::take);
            let Some(mut state) = found else { break };
            state.split.reader.resume(position)?;
            state.watermark = *watermark;
            ordered.push(state);
        }
        let added: Vec<SplitState> = current.into_iter().flatten().collect();
        if ordered.len() < positions.len() || (!added.is_empty() && self.discovery.is_none()) {
            let then: Vec<&str> = positions.iter().map(|(n, ..)| n.as_str()).collect();
            return Err(Error::Input(format!(
                "table {}: the checkpoint was taken reading {}, but the table now reads {}",
                self.table.name,
                names(then),
                names(now_names.iter().map(String::as_str).collect())
            )));
        }
        self.splits = ordered;
        self.aligner = Aligner::new(0);
        let origin = self.origin.clone();
        self.aligner.load_state(r, |_| origin.clone())?;
        if self.aligner.lanes().len() != self.splits.len() {
            return Err(crate::runtime::snapshot::corrupt(
                "a source's splits and lanes differ",
            ));
        }
        for state in added {
            self.splits.push(state);
            self.aligner.add_lane();
        }
        self.done = r.get()?;
        self.rows_without_rowtime = r.get()?;
        self.rowtimes = r.get()?;
        let clock_rows: Option<i64> = r.get()?;
        if let (Clock::Fake { rows, .. }, Some(saved)) = (&mut self.clock, clock_rows) {
            *rows = saved;
        }
        let scripted_now: Option<i64> = r.get()?;
        if let (Clock::Scripted(_), Some(now)) = (&self.clock, scripted_now) {
            self.clock.wait(Some(now));
        }
        for s in self.splits.iter_mut().take(saved) {
            s.quiet_since = r.get()?;
            s.idle_since = r.get()?;
        }
        self.went_idle = r.get()?;
        self.came_back = r.get()?;
        Ok(())
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The physical columns followed by the computed ones; `proc_times`
    /// holds the processing time of each row, for `PROCTIME()` columns.
    fn with_computed(&self, physical: &RecordBatch, proc_times: &[i64]) -> Result<RecordBatch> {
        let mut columns: Vec<ArrayRef> = physical.columns().to_vec();
        for expr in &self.table.computed {
            if let Expr::Function {
                func: ScalarFunction::ProcTime,
                ..
            } = expr
            {
                let times = arrow::array::TimestampMillisecondArray::from(proc_times.to_vec())
                    .with_timezone(tidemark_common::LTZ_ARROW_TZ);
                columns.push(Arc::new(times));
                continue;
            }
            columns.push(evaluate(expr, physical, &self.ctx)?);
        }
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(physical.num_rows())),
        )?)
    }

    pub fn metrics(&self) -> SourceMetrics {
        let csv = self
            .splits
            .iter()
            .map(|s| s.split.reader.stats())
            .fold(ReadStats::default(), |sum, s| sum.plus(&s));
        SourceMetrics {
            table: self.table.name.clone(),
            rows_read: csv.rows_read,
            rows_without_rowtime: self.rows_without_rowtime,
            csv,
            watermark: self.aligner.watermark(),
            rowtimes: self.rowtimes,
            watermark_delay: self
                .table
                .watermark
                .as_ref()
                .and_then(|w| watermark_delay(&w.expr, w.column)),
            went_idle: self.went_idle,
            came_back: self.came_back,
        }
    }

    /// The next items: a chunk and the watermark after it; at the end the
    /// final watermark and `End`. `None` once `End` was returned.
    pub fn next_items(&mut self, out: &mut Vec<StreamItem>) -> Result<bool> {
        // Data errors name the table as well as the file, line and field.
        self.next_items_inner(out).map_err(|e| match e {
            Error::Input(m) => Error::Input(format!("table {}: {m}", self.table.name)),
            Error::Io { context, source } => Error::Io {
                context: format!("table {}: {context}", self.table.name),
                source,
            },
            other => other,
        })
    }

    /// Ends the input here, as if it had no more rows: the final
    /// watermark follows at the next read (a drained stop).
    pub fn stop_input(&mut self) {
        self.stopped = true;
    }

    /// Keep the rows skipped as malformed or without rowtime, for a
    /// bad-records sink: they travel among the chunks as side items.
    pub fn keep_bad_rows(&mut self) {
        self.keeps_bad_rows = true;
        for s in &mut self.splits {
            s.split.reader.keep_raw();
        }
    }

    /// Pushes `chunk` (its rows at `lines`) with the skipped rows `bad`
    /// among them in file order, so that what a sink sees of them does not
    /// depend on the batch size: before a skipped row goes the watermark
    /// the rows before it reached (`after`: the one after the whole chunk),
    /// as it would row by row. Empty chunks are not pushed.
    fn push_among_bad_rows(
        &self,
        split: usize,
        chunk: Chunk,
        lines: &[u64],
        mut bad: Vec<BadRow>,
        after: Option<i64>,
        out: &mut Vec<StreamItem>,
    ) {
        let mut told = self.splits[split].watermark;
        bad.sort_by_key(|b| b.line);
        let mut pos = 0;
        let mut rest = bad.as_slice();
        while let Some(first) = rest.first() {
            let upto = pos + lines[pos..].partition_point(|l| *l < first.line);
            if upto > pos {
                out.push(StreamItem::Chunk(chunk.slice(pos, upto - pos)));
            }
            pos = upto;
            let reached = match (chunk.watermarks.get(pos), after) {
                (Some(w), Some(_)) => Some(*w),
                (None, after) => after,
                (Some(_), None) => None,
            };
            if let Some(w) = reached.filter(|w| *w > told) {
                told = w;
                out.push(StreamItem::Watermark(w));
            }
            let next_line = lines.get(pos).copied().unwrap_or(u64::MAX);
            let run = rest.partition_point(|b| b.line < next_line);
            out.push(StreamItem::Side(SideItem::Bad(BadRows {
                source: self.table.name.clone(),
                file: self.splits[split].split.name.clone(),
                rows: rest[..run].to_vec(),
            })));
            rest = &rest[run..];
        }
        if chunk.num_rows() > pos {
            out.push(StreamItem::Chunk(chunk.slice(pos, chunk.num_rows() - pos)));
        }
    }

    /// Chunks will say which source rows they hold, so that late rows
    /// can be routed as rows of this table.
    pub fn keep_origin(&mut self) {
        self.origin = Some(Arc::new(SourceTable {
            name: self.table.name.clone(),
            types: self
                .table
                .schema
                .fields
                .iter()
                .map(|f| f.ty.clone())
                .collect(),
        }));
    }

    /// The table chunks name as their rows' origin, when they do.
    pub fn origin_table(&self) -> Option<Arc<SourceTable>> {
        self.origin.clone()
    }

    fn with_origin(&self, mut chunk: Chunk) -> Chunk {
        if let Some(table) = &self.origin {
            chunk.origin = Some(Origin {
                batch: chunk.batch.clone(),
                rows: (0..chunk.num_rows() as u32).collect(),
                table: table.clone(),
            });
        }
        chunk
    }

    fn next_items_inner(&mut self, out: &mut Vec<StreamItem>) -> Result<bool> {
        if self.done {
            return Ok(false);
        }
        if self.stopped {
            self.aligner.end_all();
            self.discovery = None;
        }
        self.discover(out)?;
        for k in 0..self.splits.len() {
            if let Err(e) = self.fill(k) {
                self.done = true;
                return Err(e);
            }
        }
        self.judge_idleness(out);
        match self.aligner.next() {
            // A followed folder stays open for files to come.
            Next::Ended if self.discovery.is_some() => self.aligner.wait_for_none(),
            Next::Ended => {
                self.done = true;
                self.aligner.finish();
                out.push(StreamItem::Watermark(FINAL_WATERMARK));
                out.push(StreamItem::End);
                return Ok(true);
            }
            // Nothing for now: hand back nothing, so the query can be
            // stopped meanwhile.
            Next::Waiting { .. } | Next::AllIdle => {}
            Next::Item { item, .. } => out.push(item),
        }
        let splits = &self.splits;
        self.aligner.close_step(
            self.clock.now(),
            |k| splits[k].split.reader.may_pause(),
            out,
        );
        Ok(true)
    }

    /// Whether a split of the table may pause (see
    /// [`SplitReader::may_pause`]).
    pub fn may_pause(&self) -> bool {
        self.splits.iter().any(|s| s.split.reader.may_pause())
    }

    /// The split that held the table's watermark while another had read
    /// further: the one holding now, or (`longest`) the longest hold of
    /// the run.
    pub fn held(&self, longest: bool) -> Option<HeldWatermark> {
        let hold = self.aligner.hold_seen(longest)?;
        let name = |k: usize| self.splits[k].split.name.as_str();
        Some(HeldWatermark {
            holder: format!("split {} of table {}", name(hold.lane), self.table.name),
            watermark: hold.watermark,
            lasted_ms: hold.lasted(),
            ahead: format!("split {}", name(hold.ahead_lane)),
            ahead_watermark: hold.ahead,
            idle_timeout_ms: self.idleness.timeout_ms,
        })
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.table.name
    }

    /// The idle timeout of the table's splits (0: none).
    pub fn idle_timeout_ms(&self) -> i64 {
        self.idleness.timeout_ms
    }

    /// Marks idle each split that may pause and has read no row for the
    /// idle timeout on the clock, and active again each idle split that
    /// has rows; traces every change with the split's and the table's
    /// watermark.
    fn judge_idleness(&mut self, out: &mut Vec<StreamItem>) {
        let now = self.clock.now();
        if now == i64::MIN {
            // A scripted clock that has not started.
            return;
        }
        let timeout = self.idleness.timeout_ms;
        for k in 0..self.splits.len() {
            let lane = self.aligner.lane(k);
            let since = *self.splits[k].quiet_since.get_or_insert(now);
            let (was_idle, has_rows) = (lane.idle(), lane.holds_items());
            let event = if was_idle && has_rows {
                self.aligner.set_idle(k, false);
                self.came_back += 1;
                TraceEvent::Active
            } else if was_idle {
                continue;
            } else if !was_idle
                && !has_rows
                && !lane.ended()
                && timeout > 0
                && self.splits[k].split.reader.may_pause()
                && now.saturating_sub(since) >= timeout
            {
                self.aligner.set_idle(k, true);
                self.went_idle += 1;
                TraceEvent::Idle
            } else {
                continue;
            };
            let state = &mut self.splits[k];
            // An idle split's quiet time is how long it had no row; an
            // active one's, how long it was idle.
            let (what, from) = match event {
                TraceEvent::Idle => ("quiet", since),
                _ => ("idle_for", state.idle_since.unwrap_or(now)),
            };
            state.idle_since = (event == TraceEvent::Idle).then_some(now);
            if self.idleness.trace {
                // The split's watermark before its next row: where it
                // leaves the minimum, or rejoins it.
                let split_watermark = self.aligner.lane(k).next_watermark();
                let line = TraceLine::new(event, &format!("Scan {}", self.table.name))
                    .field("split", &state.split.name)
                    .field("split_watermark", instant(split_watermark))
                    .field(what, tidemark_common::window::ms(now.saturating_sub(from)))
                    .field("clock", instant(now))
                    .watermark(self.aligner.watermark());
                out.push(StreamItem::Side(line));
            }
        }
    }

    /// Looks for new splits when the discovery interval has passed on the
    /// clock: each joins as a new lane, at −∞ until its rows come.
    fn discover(&mut self, out: &mut Vec<StreamItem>) -> Result<()> {
        let Some(discovery) = self.discovery.as_mut() else {
            return Ok(());
        };
        let now = self.clock.now();
        if now.saturating_sub(self.looked_at) < discovery.interval_ms() {
            return Ok(());
        }
        self.looked_at = now;
        for mut split in discovery.new_splits()? {
            self.prepare(&mut split);
            if self.idleness.trace {
                let line = TraceLine::new(TraceEvent::Split, &format!("Scan {}", self.table.name))
                    .field("split", &split.name)
                    .field("clock", instant(now))
                    .watermark(self.aligner.watermark());
                out.push(StreamItem::Side(line));
            }
            self.splits.push(SplitState::new(split));
            self.aligner.add_lane();
        }
        Ok(())
    }

    /// Gives a split the settings the table's others have.
    fn prepare(&self, split: &mut Split) {
        split.reader.set_time_zone(self.ctx.time_zone);
        if self.keeps_bad_rows {
            split.reader.keep_raw();
        }
        if self.tracks_positions {
            split.reader.track_position();
        }
    }

    /// Reads split `k` into its lane until an item is queued, the split
    /// ends or has nothing for now (one batch ahead at most: the bounded
    /// prefetch of spec §8).
    /// An error reading the split waits until the rows read before it have
    /// gone out, so that what goes out does not depend on the batch size.
    fn fill(&mut self, k: usize) -> Result<()> {
        if self.splits[k].pending_error.is_some() {
            if self.aligner.lane(k).holds_items() {
                return Ok(());
            }
            return Err(self.splits[k]
                .pending_error
                .take()
                .unwrap_or_else(|| Error::Internal("a pending error went missing".into())));
        }
        let mut lane = std::mem::take(self.aligner.lane_mut(k));
        // A lone split has no rival to read ahead of.
        let prefetch = if self.splits.len() > 1 {
            PREFETCH_ROWS
        } else {
            1
        };
        let filled = lane.fill(prefetch, |items| match self.read_split(k, items) {
            Err(e) => {
                self.splits[k].pending_error = Some(e);
                Ok(true)
            }
            read => read,
        });
        *self.aligner.lane_mut(k) = lane;
        filled?;
        if self.splits[k].pending_error.is_some() && !self.aligner.lane(k).holds_items() {
            return Err(self.splits[k]
                .pending_error
                .take()
                .unwrap_or_else(|| Error::Internal("a pending error went missing".into())));
        }
        Ok(())
    }

    /// The next items of split `k`: false once it has ended; none when it
    /// has nothing for now, or once an error is pending.
    fn read_split(&mut self, k: usize, items: &mut Vec<StreamItem>) -> Result<bool> {
        loop {
            if self.splits[k].pending_error.is_some() {
                return Ok(true);
            }
            let Some(batch) = self.splits[k].split.reader.next_batch()? else {
                return Ok(false);
            };
            if !self.read_batch(k, batch, items)? || !items.is_empty() {
                if !items.is_empty() {
                    let reader = &self.splits[k].split.reader;
                    let arrived = reader.last_arrival().unwrap_or_else(|| self.clock.now());
                    self.splits[k].quiet_since = Some(arrived);
                }
                return Ok(true);
            }
        }
    }

    /// Turns a batch read from split `k` into its items: chunks of rows
    /// with the split's watermark before each row, skipped rows among
    /// them, and the split's watermark after them. False when the split
    /// has nothing for now.
    fn read_batch(
        &mut self,
        k: usize,
        csv: crate::runtime::read::ReadBatch,
        out: &mut Vec<StreamItem>,
    ) -> Result<bool> {
        let (mut batch, mut lines) = (csv.batch, csv.lines);
        let (raw, mut bad) = (csv.raw, csv.skipped);
        if batch.num_rows() == 0 && bad.is_empty() {
            // An unbounded input with nothing for now.
            return Ok(false);
        }
        // Computed columns; on a failing row, the rows before it go out
        // first and the error follows, whatever the batch size.
        let proc_times = self.clock.next_times(batch.num_rows());
        let full = match self.with_computed(&batch, &proc_times) {
            Ok(full) => full,
            Err(e) => {
                let failing = (0..batch.num_rows()).find_map(|i| {
                    self.with_computed(&batch.slice(i, 1), &proc_times[i..=i])
                        .err()
                        .map(|e| (i, e))
                });
                let (i, e) = failing.unwrap_or((0, e));
                if i == 0 {
                    return Err(e);
                }
                self.splits[k].pending_error = Some(e);
                lines.truncate(i);
                self.with_computed(&batch.slice(0, i), &proc_times[..i])?
            }
        };
        batch = full;
        let Some(wm) = &self.table.watermark else {
            let n = batch.num_rows();
            let watermark = self.splits[k].watermark;
            let chunk = self.with_origin(Chunk::new(batch, vec![watermark; n]));
            self.push_among_bad_rows(k, chunk, &lines, bad, None, out);
            return Ok(true);
        };
        let rowtime = batch.column(wm.column).clone();
        if rowtime.null_count() > 0 {
            if self.ignore_parse_errors {
                self.rows_without_rowtime += rowtime.null_count() as u64;
                let field = &self.table.schema.field(wm.column).name;
                for i in (0..rowtime.len()).filter(|i| rowtime.is_null(*i)) {
                    if let Some(text) = raw.get(i) {
                        bad.push(BadRow {
                                line: lines[i],
                                raw: text.clone(),
                                error: format!(
                                    "field '{field}': the rowtime is NULL or unparsable, so the row cannot be placed in time"
                                ),
                            });
                    }
                }
                lines = (0..rowtime.len())
                    .filter(|i| rowtime.is_valid(*i))
                    .map(|i| lines[i])
                    .collect();
                let mask = arrow::compute::is_not_null(&rowtime)?;
                batch = filter_record_batch(&batch, &mask)?;
            } else {
                let i = (0..rowtime.len())
                    .find(|&i| rowtime.is_null(i))
                    .unwrap_or(0);
                let field = &self.table.schema.field(wm.column).name;
                let why = match wm
                        .column
                        .checked_sub(self.table.physical)
                        .and_then(|c| self.table.computed.get(c))
                    {
                        Some(computed) => format!(
                            " ('{field}' is {computed}, which is NULL when its input is NULL or out of range, as an epoch in micro- or nanoseconds read as milliseconds is)"
                        ),
                        None => String::new(),
                    };
                let err = Error::Input(format!(
                        "{}:{}: field '{field}': the rowtime is NULL, so the row cannot be placed in time{why}",
                        self.splits[k].split.name, lines[i]
                    ));
                if i == 0 {
                    return Err(err);
                }
                self.splits[k].pending_error = Some(err);
                batch = batch.slice(0, i);
            }
        }
        let n = batch.num_rows();
        if n == 0 {
            if !bad.is_empty() {
                let empty = Chunk::new(batch, Vec::new());
                self.push_among_bad_rows(k, empty, &[], bad, None, out);
            }
            // No rows left: the lane reads on.
            return Ok(true);
        }
        let times = batch
            .column(wm.column)
            .as_primitive::<TimestampMillisecondType>();
        if let (Some(lo), Some(hi)) = (arrow::compute::min(times), arrow::compute::max(times)) {
            self.rowtimes = Some(match self.rowtimes {
                None => (lo, hi),
                Some((a, b)) => (a.min(lo), b.max(hi)),
            });
        }
        let marks = evaluate(&wm.expr, &batch, &self.ctx)?;
        let marks = marks.as_primitive::<TimestampMillisecondType>();
        let mut before = Vec::with_capacity(n);
        let mut current = self.splits[k].watermark;
        for i in 0..n {
            before.push(current);
            if marks.is_valid(i) {
                current = current.max(marks.value(i));
            }
        }
        let chunk = self.with_origin(Chunk::new(batch, before));
        self.push_among_bad_rows(k, chunk, &lines, bad, Some(current), out);
        if current > self.splits[k].watermark {
            self.splits[k].watermark = current;
            out.push(StreamItem::Watermark(current));
        }
        Ok(true)
    }
}

/// `d` when a watermark expression is `rowtime - INTERVAL d` (or the
/// rowtime itself, d = 0): the bounded out-of-orderness it allows.
fn watermark_delay(expr: &Expr, rowtime: usize) -> Option<i64> {
    match expr {
        Expr::Column { index, .. } if *index == rowtime => Some(0),
        Expr::TimestampAdd { expr, millis } if expr.as_column() == Some(rowtime) => {
            Some(millis.saturating_neg())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connectors::split::SplitReader;
    use crate::runtime::read::ReadBatch;
    use arrow::array::Int64Array;
    use arrow::datatypes::Int64Type;
    use tidemark_common::SqlType;
    use tidemark_common::{Field, Schema};

    /// A split of one batch of `values`; its position is whether it was
    /// read.
    struct Values {
        values: Vec<i64>,
        read: bool,
    }

    impl SplitReader for Values {
        fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
            if std::mem::replace(&mut self.read, true) {
                return Ok(None);
            }
            let batch = RecordBatch::try_from_iter([(
                "n",
                Arc::new(Int64Array::from(self.values.clone())) as ArrayRef,
            )])?;
            let n = self.values.len() as u64;
            Ok(Some(ReadBatch {
                batch,
                lines: (1..=n).collect(),
                raw: vec![],
                skipped: vec![],
            }))
        }
        fn stats(&self) -> ReadStats {
            ReadStats {
                rows_read: if self.read {
                    self.values.len() as u64
                } else {
                    0
                },
                ..ReadStats::default()
            }
        }
        fn unpositioned(&self) -> Option<&'static str> {
            None
        }
        fn between_batches(&self) -> bool {
            true
        }
        fn position(&self) -> Option<ReadPosition> {
            Some(ReadPosition {
                offset: u64::from(self.read),
                ..ReadPosition::default()
            })
        }
        fn resume(&mut self, at: &ReadPosition) -> Result<()> {
            self.read = at.offset == 1;
            Ok(())
        }
    }

    fn source(splits: &[(&str, Vec<i64>)]) -> TableSource {
        let table = TableDef {
            name: "t".into(),
            schema: Schema::new(vec![Field::new("n", SqlType::BigInt)]),
            physical: 1,
            computed: vec![],
            watermark: None,
            options: Default::default(),
            base_dir: Default::default(),
            primary_key: vec![],
        };
        let splits = splits
            .iter()
            .map(|(name, values)| {
                let reader = Values {
                    values: values.clone(),
                    read: false,
                };
                Split::new(*name, Box::new(reader))
            })
            .collect();
        TableSource::with_splits(
            Arc::new(table),
            splits,
            EvalContext::default(),
            Clock::System,
            false,
        )
    }

    /// The values of the chunks `source` gives until its end.
    fn read_all(source: &mut TableSource) -> Result<Vec<i64>> {
        let mut items = Vec::new();
        while source.next_items(&mut items)? {}
        let mut values = Vec::new();
        for item in items {
            if let StreamItem::Chunk(chunk) = item {
                values.extend(chunk.batch.column(0).as_primitive::<Int64Type>().values());
            }
        }
        Ok(values)
    }

    #[test]
    fn a_tables_splits_are_read_one_after_another_in_order() -> Result<()> {
        let mut t = source(&[("a.csv", vec![1, 2]), ("b.csv", vec![3])]);
        assert_eq!(read_all(&mut t)?, [1, 2, 3]);
        assert_eq!(t.metrics().rows_read, 3);
        Ok(())
    }

    #[test]
    fn a_checkpoint_records_each_splits_position_and_resumes_from_them() -> Result<()> {
        let mut t = source(&[("a.csv", vec![1, 2]), ("b.csv", vec![3])]);
        let mut items = Vec::new();
        t.next_items(&mut items)?;
        let mut w = StateWriter::new();
        t.save_state(&mut w)?;
        let bytes = w.into_bytes();

        let mut resumed = source(&[("a.csv", vec![1, 2]), ("b.csv", vec![3])]);
        resumed.load_state(&mut StateReader::new(&bytes))?;
        assert_eq!(read_all(&mut resumed)?, [3]);

        // A table that now reads other splits is not resumed from it.
        let mut changed = source(&[("a.csv", vec![1, 2]), ("c.csv", vec![3])]);
        let err = changed
            .load_state(&mut StateReader::new(&bytes))
            .expect_err("other splits");
        assert!(
            err.to_string()
                .contains("taken reading a.csv, b.csv, but the table now reads a.csv, c.csv"),
            "{err}"
        );
        Ok(())
    }
}
