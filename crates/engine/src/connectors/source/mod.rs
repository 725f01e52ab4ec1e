//! A declared table as a stream: reads its connector's splits, computes
//! computed columns, drops (and counts) rows that cannot be placed in
//! time, and assigns the watermark row by row — each split's own, and the
//! table's as the minimum over its splits, with rows interleaved by lowest
//! watermark ([`crate::time::align`], spec §8).

mod checkpoint;
mod idle;
mod journal;
mod layout;
pub(crate) use layout::physical_columns;
mod rows;

use super::filesystem::parallel::ParallelRead;
use super::split::{Split, SplitDiscovery};
use super::SourceSpec;
use crate::expr::eval::{evaluate, EvalContext};
use crate::runtime::observe::{Observer, StreamObserver};
use crate::runtime::read::{ReadPosition, ReadStats};
use crate::runtime::snapshot::{StateReader, StateWriter};
use crate::runtime::stream::{BadRow, BadRows, Chunk, Origin, SideItem, SourceTable, StreamItem};
use crate::time::align::{Aligner, HeldWatermark, Next, PREFETCH_ROWS};
use crate::time::clock::Clock;
use crate::time::journal::{Decision, Seat};
use crate::time::trace::{instant, TraceEvent, TraceLine, TraceRecord};
use arrow::array::{Array, AsArray, RecordBatch};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{SchemaRef, TimestampMillisecondType};
use std::sync::Arc;
use tidemark_common::catalog::TableDef;
use tidemark_common::expr::Expr;
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
    /// Each split, where its reader has something to report (a Kafka
    /// partition); filled at the end of a run only.
    pub splits: Vec<SplitMetrics>,
    /// The records its splits' inputs hold past what was read (a Kafka
    /// table's lag), when the readers know it.
    pub lag: Option<u64>,
}

/// One split of a source, as the run summary shows it.
#[derive(Clone, Debug, Default)]
pub struct SplitMetrics {
    pub name: String,
    pub rows_read: u64,
    /// The split's own watermark.
    pub watermark: i64,
    /// Left out of the table's watermark as idle when the run ended.
    pub idle: bool,
    /// What its reader says of where it stands.
    pub report: String,
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
    /// How the table's columns are made from what is read.
    layout: layout::Layout,
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
    /// The physical columns no step of the query reads, left undecoded
    /// by the splits' formats (empty: every column is decoded); set for
    /// those that join later too.
    unread: Vec<bool>,
    /// Late rows go out as whole rows of the table: every column is
    /// decoded ([`TableSource::keep_origin`]).
    whole_rows: bool,
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
    /// The table's place in the run's journal of decisions on the clock,
    /// in a checkpointed run.
    seat: Option<Seat>,
    /// Files of a followed folder that a resumed run found beside those
    /// its checkpoint read: they join when the journal says, or at once.
    unjoined: Vec<SplitState>,
    /// Records the rows and splits for a run report, when one is made.
    observer: Option<StreamObserver>,
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
        let opened = super::opening(&table)?.open_source(SourceSpec {
            table: &table,
            columns: layout::physical_columns(&table),
            metadata: layout::metadata_keys(&table),
            batch_size,
            parallel,
            clock: clock.clone(),
        })?;
        let mut source =
            Self::with_splits(table, opened.splits, ctx, clock, opened.ignore_parse_errors)?;
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
    ) -> Result<Self> {
        for split in &mut splits {
            split.reader.set_time_zone(ctx.time_zone);
        }
        let given = super::of_table(&table).map_or(&[][..], |c| c.declaration().metadata);
        Ok(TableSource {
            layout: layout::Layout::of(&table, given)?,
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
            unread: Vec::new(),
            whole_rows: false,
            idleness: Idleness::default(),
            went_idle: 0,
            came_back: 0,
            clock,
            origin: None,
            rowtimes: None,
            seat: None,
            unjoined: Vec::new(),
            observer: None,
        })
    }

    /// Records this table's rows and splits in `observer` (a run report);
    /// its chunks then carry their source rows with arrival numbers.
    pub fn observe(&mut self, observer: &Observer) {
        // Arrival numbers and rowtimes only: undecoded columns may stay so.
        self.carry_origin();
        let lanes = self.splits.iter().map(|s| s.split.name.clone()).collect();
        self.observer = Some(observer.stream(
            format!("table {}", self.table.name),
            Some(self.table.name.clone()),
            lanes,
        ));
    }

    /// The column of the table's time attribute, if it has one.
    pub fn rowtime_column(&self) -> Option<usize> {
        self.table.watermark.as_ref().map(|w| w.column)
    }

    /// The clock this table reads (shared with the run's other tables).
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
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
            splits: Vec::new(),
            lag: self
                .splits
                .iter()
                .filter_map(|s| s.split.reader.lag())
                .reduce(|a, b| a + b),
        }
    }

    /// [`TableSource::metrics`] with every split's rows, watermark and
    /// idleness, but no report (which may ask the input): for a live page.
    pub fn metrics_live(&self) -> SourceMetrics {
        let mut metrics = self.metrics();
        metrics.splits = self
            .splits
            .iter()
            .map(|s| SplitMetrics {
                name: s.split.name.clone(),
                rows_read: s.split.reader.stats().rows_read,
                watermark: s.watermark,
                idle: s.idle_since.is_some(),
                report: String::new(),
            })
            .collect();
        metrics
    }

    /// [`TableSource::metrics`] with each split's report, for the run
    /// summary: only at the end, as a report may ask the input.
    pub fn metrics_at_end(&self) -> SourceMetrics {
        let mut metrics = self.metrics();
        metrics.splits = self
            .splits
            .iter()
            .filter_map(|s| {
                Some(SplitMetrics {
                    name: s.split.name.clone(),
                    rows_read: s.split.reader.stats().rows_read,
                    watermark: s.watermark,
                    idle: s.idle_since.is_some(),
                    report: s.split.reader.report()?,
                })
            })
            .collect();
        metrics
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

    /// Leaves the physical columns `unread` flags (in the table's
    /// physical order) undecoded: no step of the query reads them (the
    /// planner's projection push-down). Ignored once whole rows are kept
    /// ([`TableSource::keep_origin`]). Before the first read.
    pub fn leave_unread(&mut self, unread: Vec<bool>) {
        if self.whole_rows {
            return;
        }
        self.unread = if unread.iter().any(|u| *u) {
            unread
        } else {
            Vec::new()
        };
        for s in &mut self.splits {
            s.split.reader.leave_unread(&self.unread);
        }
    }

    /// Chunks will say which source rows they hold, so that late rows
    /// can be routed as rows of this table: every column is decoded, as
    /// a late row goes out whole.
    pub fn keep_origin(&mut self) {
        self.whole_rows = true;
        if !self.unread.is_empty() {
            self.unread.clear();
            for s in &mut self.splits {
                s.split.reader.leave_unread(&[]);
            }
        }
        self.carry_origin();
    }

    /// Chunks will say which source rows they hold (their arrival numbers
    /// and rowtimes, for a run report).
    fn carry_origin(&mut self) {
        if self.origin.is_some() {
            return;
        }
        self.origin = Some(Arc::new(SourceTable {
            name: self.table.name.clone(),
            types: self
                .table
                .schema
                .fields
                .iter()
                .map(|f| f.ty.clone())
                .collect(),
            rowtime: self.table.watermark.as_ref().map(|w| w.column),
        }));
    }

    /// The table chunks name as their rows' origin, when they do.
    pub fn origin_table(&self) -> Option<Arc<SourceTable>> {
        self.origin.clone()
    }

    fn next_items_inner(&mut self, out: &mut Vec<StreamItem>) -> Result<bool> {
        if self.done {
            return Ok(false);
        }
        if self.stopped {
            self.aligner.end_all();
            self.discovery = None;
        }
        // While the journal of the run before is replayed, its decisions
        // are applied where they were made, and none is made on the clock.
        let replaying = self.seat.as_ref().is_some_and(Seat::replaying);
        if replaying {
            self.replay_join(out)?;
        } else {
            self.join_unjoined();
            self.discover(out)?;
        }
        for k in 0..self.splits.len() {
            if let Err(e) = self.fill(k) {
                self.done = true;
                return Err(e);
            }
        }
        if replaying {
            self.replay_turn(out)?;
        } else {
            self.judge_idleness(out);
        }
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
            Next::Item { lane, mut item } => {
                if let (Some(observer), StreamItem::Chunk(chunk)) = (&self.observer, &mut item) {
                    observer.took(lane, chunk, self.rowtime_column(), &self.aligner);
                }
                out.push(item)
            }
        }
        let splits = &self.splits;
        self.aligner.close_step(
            self.clock.now(),
            |k| splits[k].split.reader.may_pause(),
            out,
        );
        Ok(true)
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.table.name
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
        let (mut names, mut traces) = (Vec::new(), Vec::new());
        for mut split in discovery.new_splits()? {
            self.prepare(&mut split);
            if self.idleness.trace {
                let line = TraceLine::new(TraceEvent::Split, &format!("Scan {}", self.table.name))
                    .field("split", &split.name)
                    .field("clock", instant(now))
                    .watermark(self.aligner.watermark());
                if let SideItem::Trace(record) = &line {
                    traces.push(record.line.clone());
                }
                out.push(StreamItem::Side(line));
            }
            names.push(split.name.clone());
            if let Some(observer) = &self.observer {
                observer.lane_added(split.name.clone());
            }
            self.splits.push(SplitState::new(split));
            self.aligner.add_lane();
        }
        if let Some(seat) = &self.seat {
            seat.record_join(&self.aligner, names, traces);
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
        if !self.unread.is_empty() {
            split.reader.leave_unread(&self.unread);
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
mod tests;
