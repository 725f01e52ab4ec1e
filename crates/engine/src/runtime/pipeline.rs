//! A running query: a source, a chain of operators, and a sink that
//! receives the changelog, plus the numbers of the run summary.

use crate::connectors::source::{SourceMetrics, TableSource};
use crate::ops::operator::{Operator, OperatorMetrics, StateSize};
use crate::ops::union::UnionSource;
use crate::runtime::observe::Observer;
use crate::runtime::snapshot::{StateReader, StateWriter};
use crate::runtime::stream::{Chunk, SideItem, StreamItem};
use crate::time::align::HeldWatermark;
use crate::time::journal::Journal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tidemark_common::show_bytes;
use tidemark_common::time::NO_WATERMARK;
pub use tidemark_common::CheckpointEvery;
use tidemark_common::{Error, Result};

/// What a run hands its sink.
pub enum RunOutput<'a> {
    Rows(&'a Chunk),
    Side(&'a SideItem),
    /// A checkpoint is due: the sources' and operators' state, taken after
    /// every row handed over so far. The sink stages what it holds and
    /// writes the checkpoint.
    Checkpoint {
        state: &'a [u8],
        rows_read: u64,
    },
    /// Decisions made on the clock in the step whose output follows: the
    /// sink writes and syncs them beside the checkpoint first (spec §8).
    Journal(&'a [u8]),
}

pub struct Pipeline {
    pub source: PipelineSource,
    pub operators: Vec<Box<dyn Operator>>,
    /// `tidemark.state.max-memory`: the run stops with an error when the
    /// operators' state grows past this many bytes.
    pub state_limit: Option<u64>,
    /// Take checkpoints this often (`execution.checkpointing.interval`).
    pub checkpoint_every: Option<CheckpointEvery>,
    /// Take a checkpoint at the latest this many milliseconds on the
    /// inputs' clock after the last, when something was read or emitted
    /// since: a transactional sink's transaction must not outlive the
    /// brokers' timeout on a quiet input. Where the checkpoints fall
    /// does not change the output.
    pub checkpoint_within: Option<i64>,
    /// Rows emitted and the watermark told the sink before the checkpoint
    /// a resumed run goes on from: the run summary counts the whole job.
    pub resumed: (u64, i64),
    /// A held watermark is named in the summary when the others were
    /// ahead of it by more than this (the largest window), or when it
    /// held for [`HELD_FOR`] on the clock.
    pub hold_gap_ms: i64,
    /// The journal of decisions on the clock, in a checkpointed run.
    pub journal: Option<Journal>,
    /// What the run records for its report, when one is made
    /// ([`Pipeline::observe`]).
    pub observer: Option<Observer>,
    /// Each progress report carries the summary so far (a live page).
    pub live: bool,
}

/// How long on the clock an input may hold the watermark before the
/// summary names it, however close the others are (spec §8).
pub const HELD_FOR: i64 = 10_000;

/// How much longer than its idle timeout a hold may last on the wall
/// clock and still be the timeout at work: the clock is looked at between
/// reads, not at the instant.
const IDLE_SLACK: i64 = 1_000;

/// When the next checkpoint is due.
struct CheckpointClock {
    every: Option<CheckpointEvery>,
    /// The multiple of the interval last passed.
    passed: Option<i64>,
    /// See [`Pipeline::checkpoint_within`].
    within: Option<i64>,
    /// When the last was taken, on the inputs' clock, and the rows read
    /// and emitted by then.
    last: (i64, u64, u64),
}

/// Where a run stands when a checkpoint may be due: rows read, the
/// input's watermark, rows emitted, and the time on the inputs' clock.
#[derive(Clone, Copy)]
struct Position {
    rows: u64,
    watermark: i64,
    emitted: u64,
    now: i64,
}

impl CheckpointClock {
    /// Whether a checkpoint is due at `at`; a due checkpoint stays due
    /// until taken.
    fn due(&self, at: Position) -> bool {
        let interval = self
            .step(at)
            .is_some_and(|step| self.passed.is_none_or(|p| step > p));
        let (time, rows, emitted) = self.last;
        let bound = self.within.is_some_and(|within| {
            at.now.saturating_sub(time) >= within && (at.rows > rows || at.emitted > emitted)
        });
        interval || bound
    }

    fn step(&self, at: Position) -> Option<i64> {
        match self.every? {
            CheckpointEvery::Rows(n) => Some((at.rows / n.max(1)) as i64),
            CheckpointEvery::EventTime(_) if at.watermark == NO_WATERMARK => None,
            CheckpointEvery::EventTime(ms) => Some(at.watermark.div_euclid(ms.max(1))),
        }
    }

    fn taken(&mut self, at: Position) {
        self.passed = self.step(at);
        self.last = (at.now, at.rows, at.emitted);
    }
}

/// `TIDEMARK_CRASH_AFTER_BATCHES=n`: a checkpointed run aborts the process
/// (no cleanup, as a crash would) after reading its n-th batch, so that
/// tests can resume from wherever that leaves the checkpoint and files.
const CRASH_AFTER_BATCHES: &str = "TIDEMARK_CRASH_AFTER_BATCHES";

/// Where a pipeline's rows come from: one table, or the `UNION ALL` of
/// several.
pub enum PipelineSource {
    Table(Box<TableSource>),
    Union(Box<UnionSource>),
}

impl PipelineSource {
    fn next_items(&mut self, out: &mut Vec<StreamItem>) -> Result<bool> {
        match self {
            PipelineSource::Table(t) => t.next_items(out),
            PipelineSource::Union(u) => u.next_items(out),
        }
    }

    /// The input's watermark: a table's, or the union's over its inputs
    /// (an idle input left out).
    fn watermark(&self) -> i64 {
        match self {
            PipelineSource::Table(t) => t.watermark(),
            PipelineSource::Union(u) => u.watermark(),
        }
    }

    /// The operators inside the source: each input's steps of a union or
    /// a window join (a window aggregation among them).
    fn operators(&self) -> Vec<&dyn Operator> {
        match self {
            PipelineSource::Table(_) => Vec::new(),
            PipelineSource::Union(u) => u.step_operators(),
        }
    }

    fn metrics(&self) -> Vec<SourceMetrics> {
        match self {
            PipelineSource::Table(t) => vec![t.metrics()],
            PipelineSource::Union(u) => u.metrics(),
        }
    }

    /// The metrics with each split's rows and watermark (no report), for
    /// a live page.
    fn metrics_live(&self) -> Vec<SourceMetrics> {
        match self {
            PipelineSource::Table(t) => vec![t.metrics_live()],
            PipelineSource::Union(u) => u.metrics_live(),
        }
    }

    /// The metrics with each split's report, for the run summary.
    fn metrics_at_end(&self) -> Vec<SourceMetrics> {
        match self {
            PipelineSource::Table(t) => vec![t.metrics_at_end()],
            PipelineSource::Union(u) => u.metrics_at_end(),
        }
    }

    /// Ends the input at this point, as if it had no more rows.
    /// Waits while every input has nothing for now, on the inputs'
    /// clock: until the next instant something is known to happen.
    fn wait(&self) {
        let (clock, until) = match self {
            PipelineSource::Table(t) if t.is_waiting() => (Some(t.clock()), t.wake_at()),
            PipelineSource::Union(u) if u.is_waiting() => (u.clock(), u.wake_at()),
            _ => return,
        };
        if let Some(clock) = clock {
            clock.wait(until);
        }
    }

    /// The time on the inputs' clock (the wall clock for inputs that
    /// keep none).
    fn now(&self) -> i64 {
        let clock = match self {
            PipelineSource::Table(t) => Some(t.clock()),
            PipelineSource::Union(u) => u.clock(),
        };
        clock.map_or_else(|| chrono::Utc::now().timestamp_millis(), |c| c.now())
    }

    /// What held the watermark: now, or (`longest`) longest in the run.
    fn held(&self, longest: bool) -> Option<HeldWatermark> {
        match self {
            PipelineSource::Table(t) => t.held(longest),
            PipelineSource::Union(u) => u.held(longest),
        }
    }

    fn stop_input(&mut self) {
        match self {
            PipelineSource::Table(t) => t.stop_input(),
            PipelineSource::Union(u) => u.stop_input(),
        }
    }

    /// Whether journaled decisions of the run before are still to apply:
    /// no checkpoint is taken meanwhile, so none is lost.
    fn replaying(&self) -> bool {
        let seat = match self {
            PipelineSource::Table(t) => t.seat(),
            PipelineSource::Union(u) => u.seat(),
        };
        seat.is_some_and(|s| s.replaying())
    }

    /// Gives each aligner of the input its seat in `journal`.
    fn keep_journal(&mut self, journal: &Journal) {
        match self {
            PipelineSource::Table(t) => t.keep_journal(journal.seat(0)),
            PipelineSource::Union(u) => u.keep_journal(journal),
        }
    }

    /// Records the input's rows and watermarks in `observer`.
    fn observe(&mut self, observer: &Observer) {
        match self {
            PipelineSource::Table(t) => t.observe(observer),
            PipelineSource::Union(u) => u.observe(observer),
        }
    }

    /// Chunks carry their source rows (for routing late rows).
    pub fn keep_origin(&mut self) {
        match self {
            PipelineSource::Table(t) => t.keep_origin(),
            PipelineSource::Union(u) => u.branches_mut().for_each(|b| b.source.keep_origin()),
        }
    }

    /// Why the input cannot be checkpointed, if it cannot.
    pub fn checkpoint_blocker(&self) -> Option<Error> {
        match self {
            PipelineSource::Table(t) => t.checkpoint_blocker(),
            PipelineSource::Union(u) => u.checkpoint_blocker(),
        }
    }

    /// The checkpoint just written is durable: inputs may say so
    /// upstream (a Kafka group's committed offsets).
    fn checkpoint_taken(&mut self) -> Result<()> {
        match self {
            PipelineSource::Table(t) => t.checkpoint_taken(),
            PipelineSource::Union(u) => u
                .branches_mut()
                .try_for_each(|b| b.source.checkpoint_taken()),
        }
    }

    fn at_checkpoint_point(&self) -> bool {
        match self {
            _ if self.replaying() => false,
            PipelineSource::Table(t) => t.at_checkpoint_point(),
            PipelineSource::Union(u) => u.at_checkpoint_point(),
        }
    }

    fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        match self {
            PipelineSource::Table(t) => t.save_state(w),
            PipelineSource::Union(u) => u.save_state(w),
        }
    }

    fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        match self {
            PipelineSource::Table(t) => t.load_state(r),
            PipelineSource::Union(u) => u.load_state(r),
        }
    }

    /// Sources keep what checkpoints need (a checksum of the bytes read).
    pub fn track_positions(&mut self) {
        match self {
            PipelineSource::Table(t) => t.track_position(),
            PipelineSource::Union(u) => u.branches_mut().for_each(|b| b.source.track_position()),
        }
    }

    /// Sources keep the rows they skip (for a bad-records sink).
    pub fn keep_bad_rows(&mut self) {
        match self {
            PipelineSource::Table(t) => t.keep_bad_rows(),
            PipelineSource::Union(u) => u.branches_mut().for_each(|b| b.source.keep_bad_rows()),
        }
    }
}

/// How far a running query has got, for a progress display.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    pub rows_read: u64,
    pub rows_emitted: u64,
    pub late_rows: u64,
    /// The input's watermark (a union's over its inputs).
    pub watermark: i64,
    pub elapsed: Duration,
    /// The split or input holding the watermark now, if one is.
    pub held: Option<HeldWatermark>,
    /// The records the inputs hold past what was read (Kafka's lag), when
    /// known.
    pub lag: Option<u64>,
    /// The run summary so far, for a live page ([`Pipeline::live`]).
    pub so_far: Option<Box<RunSummary>>,
}

/// How often a progress callback is called, at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// How often operators' state is measured (for its peak and its limit):
/// measuring walks the state, so not at every batch.
const STATE_EVERY: Duration = Duration::from_millis(200);

/// The numbers a run ends with.
#[derive(Clone, Debug, Default)]
pub struct RunSummary {
    pub sources: Vec<SourceMetrics>,
    pub operators: Vec<(String, OperatorMetrics)>,
    pub rows_emitted: u64,
    pub final_watermark: i64,
    /// The input's watermark: a table's, or a union's over its inputs
    /// (idle ones left out).
    pub input_watermark: i64,
    pub elapsed: Duration,
    /// The run was cancelled before the end of input: the numbers are
    /// those so far, and windows still open were not fired.
    pub cancelled: bool,
    /// On the cancel, the input was ended there and open windows fired
    /// with the final watermark (`drain`).
    pub drained: bool,
    /// Per operator (as `operators`), the most state it was seen holding;
    /// measured every 200 ms or so, so a sample, not an exact peak.
    pub peak_state: Vec<StateSize>,
    /// Per operator, the state at the last measure.
    pub state_now: Vec<StateSize>,
    /// The longest hold of the watermark by one split or input, when it
    /// was long or wide enough to name (spec §8).
    pub held: Option<HeldWatermark>,
    /// Late rows written to a late-records sink, by whoever routes them:
    /// (operator that dropped them, sink table, rows).
    pub late_routed: Vec<(String, String, u64)>,
}

impl Pipeline {
    /// Records what a run report shows in `observer`: the inputs' rows
    /// and watermarks, and the operators' state over the run. Late rows
    /// then say which input rows they are (their arrival numbers), and
    /// accepted late rows are told as side items.
    pub fn observe(&mut self, observer: Observer) {
        self.source.observe(&observer);
        observer.operators(self.all_operators().iter().map(|o| o.name()).collect());
        self.observer = Some(observer);
    }

    /// Every operator of the run, those inside the source first: what the
    /// summary reports and the state limit measures.
    fn all_operators(&self) -> Vec<&dyn Operator> {
        let mut all = self.source.operators();
        all.extend(self.operators.iter().map(|o| o.as_ref()));
        all
    }

    fn progress(&self, tally: &Tally, started: Instant) -> Progress {
        let rows_emitted = tally.rows_emitted;
        let sources = self.source.metrics();
        Progress {
            so_far: self
                .live
                .then(|| Box::new(self.summary(tally, started, false))),
            rows_read: sources.iter().map(|s| s.rows_read).sum(),
            rows_emitted,
            late_rows: self
                .all_operators()
                .iter()
                .map(|o| o.metrics().late_rows)
                .sum(),
            watermark: self.source.watermark(),
            elapsed: started.elapsed(),
            held: self.source.held(false),
            lag: sources.iter().filter_map(|s| s.lag).reduce(|a, b| a + b),
        }
    }

    /// The run summary from `tally`: at the end, with each split's report
    /// (which may ask the input); before it, with their rows and
    /// watermarks only.
    fn summary(&self, tally: &Tally, started: Instant, at_end: bool) -> RunSummary {
        RunSummary {
            sources: if at_end {
                self.source.metrics_at_end()
            } else {
                self.source.metrics_live()
            },
            operators: self
                .all_operators()
                .iter()
                .map(|o| (o.name(), o.metrics()))
                .collect(),
            rows_emitted: tally.rows_emitted,
            final_watermark: tally.final_watermark,
            input_watermark: self.source.watermark(),
            elapsed: started.elapsed(),
            cancelled: tally.cancelled,
            drained: tally.cancelled && tally.drain,
            peak_state: tally.peak_state.clone(),
            state_now: tally.state_now.clone(),
            late_routed: Vec::new(),
            // A hold that its idle timeout ended is that timeout at work.
            held: self.source.held(true).filter(|h| {
                let ended_by_idleness = h.idle_timeout_ms > 0
                    && h.lasted_ms <= h.idle_timeout_ms.saturating_add(IDLE_SLACK);
                !ended_by_idleness
                    && (h.lasted_ms >= HELD_FOR
                        || h.ahead_watermark.saturating_sub(h.watermark) > self.hold_gap_ms)
            }),
        }
    }

    /// Runs to the end of input, handing every output chunk and side item
    /// (trace events, late rows) to `sink`, in order.
    pub fn run(&mut self, sink: &mut dyn FnMut(RunOutput<'_>) -> Result<()>) -> Result<RunSummary> {
        self.run_until_cancelled(&AtomicBool::new(false), sink)
    }

    /// As [`Pipeline::run`], but stops before the next batch once `cancel`
    /// is set (by an interrupt, from another thread). As when Flink
    /// cancels a job, windows still open are dropped, not fired: firing
    /// them would claim a completeness the input never reached.
    pub fn run_until_cancelled(
        &mut self,
        cancel: &AtomicBool,
        sink: &mut dyn FnMut(RunOutput<'_>) -> Result<()>,
    ) -> Result<RunSummary> {
        self.run_watched(cancel, false, None, sink)
    }

    /// As [`Pipeline::run_until_cancelled`], also calling `progress` every
    /// 200 ms or so with how far the run has got. With `drain`, a cancel
    /// ends the input where it is instead: the final watermark fires the
    /// open windows, as Flink's `stop --drain` does.
    pub fn run_watched(
        &mut self,
        cancel: &AtomicBool,
        drain: bool,
        mut progress: Option<&mut dyn FnMut(&Progress)>,
        sink: &mut dyn FnMut(RunOutput<'_>) -> Result<()>,
    ) -> Result<RunSummary> {
        let started = Instant::now();
        let mut last_progress = started;
        let mut items = Vec::new();
        let mut next = Vec::new();
        let (rows_emitted, final_watermark) = self.resumed;
        let operators = self.all_operators().len();
        let mut tally = Tally {
            rows_emitted,
            final_watermark,
            cancelled: false,
            drain,
            peak_state: vec![StateSize::default(); operators],
            state_now: vec![StateSize::default(); operators],
        };
        // A failing operator may first have passed on the rows before the
        // failing one (so output does not depend on batching); they travel
        // on to the sink before the error ends the run.
        let mut failure = None;
        // Measured after the first batch, then every so often.
        let mut last_state: Option<Instant> = None;
        let checkpointed = self.checkpoint_every.is_some() || self.checkpoint_within.is_some();
        let mut checkpoints = checkpointed.then(|| {
            let mut clock = CheckpointClock {
                every: self.checkpoint_every,
                passed: None,
                within: self.checkpoint_within,
                last: (0, 0, 0),
            };
            // A resumed run goes on from where its checkpoint was taken.
            clock.taken(self.position(tally.rows_emitted));
            clock
        });
        let crash_after = checkpoints
            .as_ref()
            .and_then(|_| std::env::var(CRASH_AFTER_BATCHES).ok())
            .and_then(|n| n.trim().parse::<u64>().ok());
        let mut batches = 0u64;
        let (mut state_stride, mut measures) = (1u64, 0u32);
        while failure.is_none() {
            // One relaxed load per batch: cheap next to reading a batch.
            if !tally.cancelled && cancel.load(Ordering::Relaxed) {
                tally.cancelled = true;
                if !drain {
                    // A checkpointed run stops with a checkpoint where it
                    // is, as Flink's stop with a savepoint: a resumed run
                    // goes on from here.
                    if checkpoints.is_some() && self.source.at_checkpoint_point() {
                        let (rows, _) = self.input_progress();
                        self.checkpoint(rows, tally.rows_emitted, tally.final_watermark, sink)?;
                    }
                    break;
                }
                self.source.stop_input();
            }
            if let Some(report) = progress.as_mut() {
                if last_progress.elapsed() >= PROGRESS_EVERY {
                    last_progress = Instant::now();
                    report(&self.progress(&tally, started));
                }
            }
            match self.source.next_items(&mut items) {
                // Every input may have nothing for now.
                Ok(true) if items.is_empty() => self.source.wait(),
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => failure = Some(e),
            }
            // What the step decided on the clock is on disk before any
            // output that depends on it.
            if let Some(record) = self.journal.as_ref().and_then(Journal::take_record) {
                sink(RunOutput::Journal(&record))?;
            }
            for op in &mut self.operators {
                for item in items.drain(..) {
                    if let Err(e) = op.process(item, &mut next) {
                        failure.get_or_insert(e);
                        break;
                    }
                }
                items.clear();
                std::mem::swap(&mut items, &mut next);
            }
            deliver(&mut items, sink, &mut tally)?;
            batches += 1;
            if crash_after == Some(batches) {
                std::process::abort();
            }
            if let Some(clock) = checkpoints.as_mut() {
                let at = self.position(tally.rows_emitted);
                if failure.is_none() && clock.due(at) && self.source.at_checkpoint_point() {
                    self.checkpoint(at.rows, tally.rows_emitted, tally.final_watermark, sink)?;
                    clock.taken(at);
                }
            }
            // A report's picture of state takes a measure at every
            // `state_stride`-th batch too, the stride doubling as the
            // measures add up, so a short run has its points as well.
            let for_report = self.observer.is_some() && batches.is_multiple_of(state_stride);
            if failure.is_none()
                && (for_report || last_state.is_none_or(|t| t.elapsed() >= STATE_EVERY))
            {
                last_state = Some(Instant::now());
                tally.state_now = self.measure_state(&mut tally.peak_state)?;
                if let Some(observer) = &self.observer {
                    let bytes = tally.state_now.iter().map(|s| s.bytes).collect();
                    observer.state(started.elapsed().as_millis() as u64, bytes);
                    measures += 1;
                    if measures >= 64 {
                        measures = 0;
                        state_stride = state_stride.saturating_mul(2);
                    }
                }
            }
        }
        if let Some(e) = failure {
            return Err(e);
        }
        if tally.cancelled && !drain {
            // Stopped without the end of input: what operators made and
            // held back still goes out, through the operators after them.
            for op in &mut self.operators {
                for item in items.drain(..) {
                    op.process(item, &mut next)?;
                }
                op.release_held(&mut next)?;
                std::mem::swap(&mut items, &mut next);
            }
            deliver(&mut items, sink, &mut tally)?;
        }
        // The state as the run ended (past the limit or not: the run is
        // over), for a report or a live page.
        if self.observer.is_some() || self.live {
            tally.state_now = self.all_operators().iter().map(|op| op.state()).collect();
        }
        if let Some(report) = progress.as_mut() {
            report(&self.progress(&tally, started));
        }
        if let Some(observer) = &self.observer {
            let bytes = tally.state_now.iter().map(|s| s.bytes).collect();
            observer.state(started.elapsed().as_millis() as u64, bytes);
        }
        Ok(self.summary(&tally, started, true))
    }

    /// Takes a checkpoint: the state, handed to the sink to write with its
    /// own.
    fn checkpoint(
        &mut self,
        rows_read: u64,
        rows_emitted: u64,
        final_watermark: i64,
        sink: &mut dyn FnMut(RunOutput<'_>) -> Result<()>,
    ) -> Result<()> {
        let state = self.save_state(rows_emitted, final_watermark)?;
        sink(RunOutput::Checkpoint {
            state: &state,
            rows_read,
        })?;
        self.source.checkpoint_taken()
    }

    /// Where the run stands, for the checkpoint clock.
    fn position(&self, emitted: u64) -> Position {
        let (rows, watermark) = self.input_progress();
        Position {
            rows,
            watermark,
            emitted,
            now: self.source.now(),
        }
    }

    /// Rows read and the input's watermark.
    fn input_progress(&self) -> (u64, i64) {
        let sources = self.source.metrics();
        (
            sources.iter().map(|s| s.rows_read).sum(),
            self.source.watermark(),
        )
    }

    /// Records the decisions the run makes on the clock, and applies
    /// `records` (what the run it resumes recorded since its checkpoint)
    /// where they were made.
    pub fn keep_journal(&mut self, records: &[Vec<u8>]) -> Result<()> {
        let journal = Journal::new();
        journal.replay(records)?;
        self.source.keep_journal(&journal);
        self.journal = Some(journal);
        Ok(())
    }

    /// Why this pipeline cannot be checkpointed, if it cannot: a source or
    /// an operator whose state cannot be saved yet.
    pub fn checkpoint_blocker(&self) -> Option<Error> {
        if let Some(e) = self.source.checkpoint_blocker() {
            return Some(e);
        }
        // A fresh operator holds nothing, so trying costs nothing.
        self.operators
            .iter()
            .find_map(|op| op.save_state(&mut StateWriter::new()).err())
    }

    /// The state of the sources and operators, between two batches, with
    /// the rows emitted and the watermark told the sink so far.
    pub fn save_state(&self, rows_emitted: u64, final_watermark: i64) -> Result<Vec<u8>> {
        let mut w = StateWriter::new();
        w.put(&(rows_emitted, final_watermark));
        w.section(|w| self.source.save_state(w))?;
        w.u64(self.operators.len() as u64);
        for op in &self.operators {
            w.put(&op.name());
            w.section(|w| op.save_state(w))?;
        }
        Ok(w.into_bytes())
    }

    /// Puts back what [`Pipeline::save_state`] wrote, into this fresh
    /// pipeline of the same plan.
    pub fn load_state(&mut self, state: &[u8]) -> Result<()> {
        let mut r = StateReader::new(state);
        self.resumed = r.get()?;
        let mut source = r.section()?;
        self.source.load_state(&mut source)?;
        source.finish()?;
        if r.count()? != self.operators.len() {
            return Err(crate::runtime::snapshot::corrupt(
                "it holds another number of operators",
            ));
        }
        for op in &mut self.operators {
            let name: String = r.get()?;
            if name != op.name() {
                return Err(crate::runtime::snapshot::corrupt(&format!(
                    "it holds the state of {name} where the query has {}",
                    op.name()
                )));
            }
            let mut section = r.section()?;
            op.load_state(&mut section)?;
            section.finish()?;
        }
        r.finish()
    }

    /// Measures each operator's state, keeping the peaks; fails when the
    /// state has outgrown `tidemark.state.max-memory`. What each holds now.
    fn measure_state(&self, peaks: &mut [StateSize]) -> Result<Vec<StateSize>> {
        let mut total = 0;
        let mut largest: Option<(usize, StateSize)> = None;
        let operators = self.all_operators();
        let mut sizes = Vec::with_capacity(operators.len());
        for (i, op) in operators.iter().enumerate() {
            let now = op.state();
            sizes.push(now);
            total += now.bytes;
            if now.bytes > peaks[i].bytes {
                peaks[i] = now;
            }
            if largest.is_none_or(|(_, l)| now.bytes > l.bytes) {
                largest = Some((i, now));
            }
        }
        match (self.state_limit, largest) {
            (Some(limit), Some((i, size))) if total > limit => Err(Error::Execution(format!(
                "the query's state outgrew 'tidemark.state.max-memory' = {}: operator {} holds {} in {} keyed entries ({} in all operators); raise the limit, or shorten the windows or the allowed lateness, or aggregate over fewer keys",
                show_bytes(limit),
                operators[i].name(),
                show_bytes(size.bytes),
                size.entries,
                show_bytes(total),
            ))),
            _ => Ok(sizes),
        }
    }
}

/// What a run has counted so far, for its summary.
struct Tally {
    rows_emitted: u64,
    /// The watermark told the sink.
    final_watermark: i64,
    cancelled: bool,
    drain: bool,
    peak_state: Vec<StateSize>,
    state_now: Vec<StateSize>,
}

/// Hands the last operator's items to the sink, counting rows and noting
/// the watermark.
fn deliver(
    items: &mut Vec<StreamItem>,
    sink: &mut dyn FnMut(RunOutput<'_>) -> Result<()>,
    tally: &mut Tally,
) -> Result<()> {
    for item in items.drain(..) {
        match item {
            StreamItem::Chunk(chunk) => {
                tally.rows_emitted += chunk.num_rows() as u64;
                sink(RunOutput::Rows(&chunk))?;
            }
            StreamItem::Side(side) => sink(RunOutput::Side(&side))?,
            StreamItem::Watermark(w) => tally.final_watermark = tally.final_watermark.max(w),
            StreamItem::End => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod checkpoint_clock_tests {
    use super::*;

    fn at(rows: u64, emitted: u64, now: i64) -> Position {
        Position {
            rows,
            watermark: NO_WATERMARK,
            emitted,
            now,
        }
    }

    #[test]
    fn a_transactional_bound_forces_a_checkpoint_only_after_progress() {
        let mut clock = CheckpointClock {
            every: Some(CheckpointEvery::Rows(1_000)),
            passed: None,
            within: Some(30_000),
            last: (0, 0, 0),
        };
        clock.taken(at(0, 0, 0));
        // Neither the interval nor the bound has passed.
        assert!(!clock.due(at(10, 0, 29_999)));
        // The bound has passed with rows read since: due.
        assert!(clock.due(at(10, 0, 30_000)));
        clock.taken(at(10, 0, 30_000));
        // Long after, but nothing read or emitted since: not due.
        assert!(!clock.due(at(10, 0, 90_000)));
        // Something emitted since (a timer fired): due.
        assert!(clock.due(at(10, 1, 60_000)));
        // The row interval still counts on its own.
        clock.taken(at(10, 1, 60_000));
        assert!(clock.due(at(1_000, 1, 60_001)));
    }

    #[test]
    fn without_a_bound_only_the_interval_counts() {
        let mut clock = CheckpointClock {
            every: Some(CheckpointEvery::Rows(100)),
            passed: None,
            within: None,
            last: (0, 0, 0),
        };
        clock.taken(at(0, 0, 0));
        assert!(!clock.due(at(99, 5, i64::MAX / 2)));
        assert!(clock.due(at(100, 5, 1)));
    }
}
