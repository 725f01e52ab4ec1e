//! `UNION ALL` of several tables: their rows interleaved into one stream,
//! deterministically, with the minimum of their watermarks.
//!
//! Rows are taken row by row from the input whose watermark is lowest (on
//! a tie, the input declared first) — the spec's rule, which keeps the
//! inputs aligned in event time and makes the result independent of batch
//! size and timing. Since the chosen input's watermark is the lowest, each
//! row keeps its own watermark as the union's. An input that has ended no
//! longer holds the watermark back. Each input first goes through its own
//! steps to the union's columns: projections and filters, or a whole
//! windowed query (a window join of two window aggregations).
//!
//! An input's steps are told its own watermark as soon as it rises, before
//! the union tells the combined one: a window aggregation among them fires
//! then, so the rows it fires reach the operator after the union ahead of
//! the watermark that would find them late.

use crate::connectors::source::{SourceMetrics, TableSource};
use crate::ops::operator::Operator;
use crate::runtime::observe::{Observer, StreamObserver};
use crate::runtime::snapshot::{corrupt, StateReader, StateWriter};
use crate::runtime::stream::{SideItem, StreamItem};
use crate::time::align::{Aligner, HeldWatermark, Lane, Next, PREFETCH_ROWS};
use crate::time::journal::{Change, Journal, Seat};
use tidemark_common::time::{FINAL_WATERMARK, NO_WATERMARK};
use tidemark_common::{Error, Result};

/// One input of a union: a table and the steps that shape its rows.
pub struct Branch {
    pub source: TableSource,
    pub operators: Vec<Box<dyn Operator>>,
    /// An error reading the input, raised once the rows read before it
    /// have gone out.
    pending_error: Option<Error>,
    /// The input's watermark last told to its steps; the final one once
    /// the input has ended.
    told: i64,
}

impl Branch {
    pub fn new(source: TableSource, operators: Vec<Box<dyn Operator>>) -> Self {
        Branch {
            source,
            operators,
            pending_error: None,
            told: NO_WATERMARK,
        }
    }

    /// Tells the steps the input's watermark `watermark` if it rose; what
    /// they fire goes to `out` (their own watermarks are not the union's).
    fn tell(&mut self, watermark: i64, out: &mut Vec<StreamItem>) -> Result<()> {
        if watermark <= self.told {
            return Ok(());
        }
        self.told = watermark;
        let from = out.len();
        self.shape(StreamItem::Watermark(watermark), out)?;
        let mut kept = from;
        for i in from..out.len() {
            if !matches!(out[i], StreamItem::Watermark(_)) {
                out.swap(kept, i);
                kept += 1;
            }
        }
        out.truncate(kept);
        Ok(())
    }

    /// Reads into `lane` until an item is queued, the input ends or has
    /// nothing for now (an unbounded input: the union waits on it, as its
    /// watermark may be the lowest, without blocking). The source's trace
    /// lines (a split going idle) are about when, not about event time:
    /// they go to `notices`, out at once, not queued behind rows.
    fn fill(&mut self, lane: &mut Lane, notices: &mut Vec<StreamItem>) -> Result<()> {
        if self.pending_error.is_none() {
            let (source, pending) = (&mut self.source, &mut self.pending_error);
            lane.fill(PREFETCH_ROWS, |items| {
                if pending.is_some() {
                    return Ok(true);
                }
                let more = match source.next_items(items) {
                    Ok(more) => more,
                    Err(e) => {
                        *pending = Some(e);
                        return Ok(true);
                    }
                };
                items.retain(|item| match item {
                    StreamItem::Side(SideItem::Trace(_)) => {
                        notices.push(item.clone());
                        false
                    }
                    _ => true,
                });
                Ok(more)
            })?;
        }
        match self.pending_error.take() {
            Some(e) if !lane.holds_items() => Err(e),
            pending => {
                self.pending_error = pending;
                Ok(())
            }
        }
    }

    /// Writes the input's state for a checkpoint: its source and its
    /// steps.
    fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        w.section(|w| self.source.save_state(w))?;
        for op in &self.operators {
            w.section(|w| op.save_state(w))?;
        }
        Ok(())
    }

    fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let mut source = r.section()?;
        self.source.load_state(&mut source)?;
        source.finish()?;
        for op in &mut self.operators {
            let mut section = r.section()?;
            op.load_state(&mut section)?;
            section.finish()?;
        }
        Ok(())
    }

    /// Runs items through this input's steps.
    fn shape(&mut self, item: StreamItem, out: &mut Vec<StreamItem>) -> Result<()> {
        let mut items = vec![item];
        let mut next = Vec::new();
        for op in &mut self.operators {
            for item in items.drain(..) {
                op.process(item, &mut next)?;
            }
            std::mem::swap(&mut items, &mut next);
        }
        out.append(&mut items);
        Ok(())
    }
}

pub struct UnionSource {
    branches: Vec<Branch>,
    /// One lane per branch: what was read from it and not yet taken.
    aligner: Aligner,
    /// Whether each chunk says which input it is (a window join's inputs).
    tagged: bool,
    done: bool,
    /// The union's place in the run's journal (seat 0; its inputs' tables
    /// sit after it), in a checkpointed run.
    seat: Option<Seat>,
    /// Records the inputs' watermarks for a run report, when one is made.
    observer: Option<StreamObserver>,
}

impl UnionSource {
    /// Ends every input here (a drained stop); rows already read still
    /// go out in watermark order.
    pub fn stop_input(&mut self) {
        self.branches.iter_mut().for_each(|b| b.source.stop_input());
    }

    pub fn new(branches: Vec<Branch>) -> Self {
        UnionSource {
            aligner: Aligner::new(branches.len()),
            branches,
            tagged: false,
            done: false,
            seat: None,
            observer: None,
        }
    }

    /// Records the inputs' rows and watermarks in `observer` (a run
    /// report), and each input's table's own.
    pub fn observe(&mut self, observer: &Observer) {
        let names: Vec<String> = self
            .branches
            .iter_mut()
            .map(|b| {
                b.source.observe(observer);
                b.source.name().to_string()
            })
            .collect();
        let what = if self.tagged { "join of" } else { "union of" };
        self.observer = Some(observer.stream(format!("{what} {}", names.join(", ")), None, names));
    }

    /// Two inputs of one operator (a window join): rows interleaved as a
    /// union's, each chunk tagged with its input.
    pub fn tagged(branches: Vec<Branch>) -> Self {
        UnionSource {
            tagged: true,
            ..Self::new(branches)
        }
    }

    pub fn branches_mut(&mut self) -> impl Iterator<Item = &mut Branch> {
        self.branches.iter_mut()
    }

    /// Each input's steps, input by input.
    pub fn step_operators(&self) -> Vec<&dyn Operator> {
        self.branches
            .iter()
            .flat_map(|b| b.operators.iter().map(|o| o.as_ref()))
            .collect()
    }

    pub fn metrics(&self) -> Vec<SourceMetrics> {
        self.branches.iter().map(|b| b.source.metrics()).collect()
    }

    /// [`UnionSource::metrics`] with each split's rows and watermark.
    pub fn metrics_live(&self) -> Vec<SourceMetrics> {
        self.branches
            .iter()
            .map(|b| b.source.metrics_live())
            .collect()
    }

    /// [`UnionSource::metrics`] with each split's report, at the end.
    pub fn metrics_at_end(&self) -> Vec<SourceMetrics> {
        self.branches
            .iter()
            .map(|b| b.source.metrics_at_end())
            .collect()
    }

    /// Why the union cannot be checkpointed, if it cannot.
    pub fn checkpoint_blocker(&self) -> Option<Error> {
        self.branches.iter().find_map(|b| {
            b.source.checkpoint_blocker().or_else(|| {
                b.operators
                    .iter()
                    .find_map(|op| op.save_state(&mut StateWriter::new()).err())
            })
        })
    }

    /// Whether every input stands between two batches.
    pub fn at_checkpoint_point(&self) -> bool {
        self.branches.iter().all(|b| b.source.at_checkpoint_point())
    }

    pub fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.branches.len() as u64);
        for b in &self.branches {
            b.save_state(w)?;
        }
        self.aligner.save_state(w)?;
        w.put(&self.done);
        Ok(())
    }

    pub fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        if r.count()? != self.branches.len() {
            return Err(corrupt("it holds another number of inputs"));
        }
        for b in &mut self.branches {
            b.load_state(r)?;
        }
        let origins: Vec<_> = self
            .branches
            .iter()
            .map(|b| b.source.origin_table())
            .collect();
        self.aligner
            .load_state(r, |i| origins.get(i).cloned().flatten())?;
        self.done = r.get()?;
        Ok(())
    }

    /// The next items: a run of rows from the input with the lowest
    /// watermark (or a side item), then the union's watermark if it rose;
    /// at the end the final watermark and `End`. False once `End` was
    /// returned.
    pub fn next_items(&mut self, out: &mut Vec<StreamItem>) -> Result<bool> {
        if self.done {
            return Ok(false);
        }
        self.fill(out)?;
        match self.aligner.next() {
            Next::Ended => {
                self.done = true;
                for (lane, b) in self.branches.iter_mut().enumerate() {
                    let from = out.len();
                    b.tell(FINAL_WATERMARK, out)?;
                    b.shape(StreamItem::End, &mut Vec::new())?;
                    tag(self.tagged, lane, &mut out[from..]);
                }
                self.aligner.finish();
                out.push(StreamItem::Watermark(FINAL_WATERMARK));
                out.push(StreamItem::End);
                return Ok(true);
            }
            Next::Waiting { .. } | Next::AllIdle => {}
            Next::Item { lane, mut item } => {
                if let (Some(observer), StreamItem::Chunk(chunk)) = (&self.observer, &mut item) {
                    let rowtime = self.branches[lane].source.rowtime_column();
                    observer.took(lane, chunk, rowtime, &self.aligner);
                }
                let from = out.len();
                self.branches[lane].shape(item, out)?;
                tag(self.tagged, lane, &mut out[from..]);
            }
        }
        // Watermarks of the steps are not the union's: it tells its own.
        out.retain(|item| !matches!(item, StreamItem::Watermark(_)));
        self.fill(out)?;
        self.tell_inputs(out)?;
        let now = self.clock().map_or(i64::MIN, |c| c.now());
        let branches = &self.branches;
        self.aligner
            .close_step(now, |i| branches[i].source.may_pause(), out);
        Ok(true)
    }

    /// Tells each input's steps the input's watermark where it rose (the
    /// final one where the input has ended), before the union's own
    /// watermark goes out: the rows its steps fire carry the input's
    /// watermark before the rise, which is at or above the union's.
    fn tell_inputs(&mut self, out: &mut Vec<StreamItem>) -> Result<()> {
        for lane in 0..self.branches.len() {
            let state = self.aligner.lane(lane);
            let watermark = match (state.ended(), state.holds_items()) {
                (true, false) => FINAL_WATERMARK,
                _ => state.next_watermark(),
            };
            let from = out.len();
            self.branches[lane].tell(watermark, out)?;
            tag(self.tagged, lane, &mut out[from..]);
        }
        Ok(())
    }

    /// The input that held the union's watermark while another had read
    /// further: the one holding now, or (`longest`) the longest hold of
    /// the run.
    pub fn held(&self, longest: bool) -> Option<HeldWatermark> {
        let hold = self.aligner.hold_seen(longest)?;
        let source = &self.branches[hold.lane].source;
        let split = source
            .waiting_for()
            .map(|s| format!(" (split {s})"))
            .unwrap_or_default();
        Some(HeldWatermark {
            holder: format!("input {}{split}", source.name()),
            watermark: hold.watermark,
            lasted_ms: hold.lasted(),
            ahead: format!("input {}", self.branches[hold.ahead_lane].source.name()),
            ahead_watermark: hold.ahead,
            idle_timeout_ms: source.idle_timeout_ms(),
        })
    }

    /// The union's watermark: the lowest of its inputs', an idle one left
    /// out.
    pub fn watermark(&self) -> i64 {
        self.aligner.watermark()
    }

    /// The union's seat in the run's journal, if it has one.
    pub fn seat(&self) -> Option<&Seat> {
        self.seat.as_ref()
    }

    /// Takes seat 0 of the run's journal, and gives input `i`'s table
    /// seat `i + 1`.
    pub fn keep_journal(&mut self, journal: &Journal) {
        self.seat = Some(journal.seat(0));
        for (i, b) in self.branches.iter_mut().enumerate() {
            b.source.keep_journal(journal.seat(i as u32 + 1));
        }
    }

    /// Reads from every input whose lane is empty; an input whose splits
    /// are all idle, with nothing read, no longer holds the union's
    /// watermark (spec §8). While the journal of the run before is
    /// replayed, inputs go idle and come back where it says instead.
    fn fill(&mut self, notices: &mut Vec<StreamItem>) -> Result<()> {
        let replaying = self.seat.as_ref().filter(|s| s.replaying());
        if let Some(seat) = replaying {
            seat.hold(&mut self.aligner);
        }
        for (i, b) in self.branches.iter_mut().enumerate() {
            b.fill(self.aligner.lane_mut(i), notices)?;
        }
        if let Some(seat) = replaying {
            let due = seat.due_turn(&self.aligner).map_err(|i| {
                Error::Input(format!(
                    "cannot go on from the checkpoint: input {} reads otherwise than in the run that was stopped, so the idle decisions journaled beside the checkpoint cannot be applied",
                    self.branches.get(i).map_or("?", |b| b.source.name())
                ))
            })?;
            if let Some(changes) = due {
                for change in changes {
                    self.aligner.force_idle(change.lane, change.idle);
                }
                seat.applied();
                seat.hold(&mut self.aligner);
            }
            return Ok(());
        }
        let mut changes = Vec::new();
        for (i, b) in self.branches.iter().enumerate() {
            let idle = b.source.is_idle();
            if self.aligner.set_idle(i, idle) {
                if let Some(observer) = &self.observer {
                    observer.turned(i, self.aligner.lane(i).idle());
                }
                changes.push(Change {
                    lane: i,
                    idle: self.aligner.lane(i).idle(),
                    at: b.source.clock().now(),
                    trace: None,
                });
            }
        }
        if let Some(seat) = &self.seat {
            seat.record_turn(&self.aligner, changes);
        }
        Ok(())
    }

    /// The next instant on the clock at which something is known to
    /// happen to an input (see [`TableSource::wake_at`]).
    pub fn wake_at(&self) -> Option<i64> {
        self.branches
            .iter()
            .filter_map(|b| b.source.wake_at())
            .min()
    }

    /// Whether the last read found nothing for now, every input waiting.
    pub fn is_waiting(&self) -> bool {
        self.aligner.waiting().is_some()
    }

    /// The input (by number) the union waits for, and what it waits for
    /// in it, when its lowest input has nothing read.
    pub fn waiting_for(&self) -> Option<(usize, Option<&str>)> {
        let i = self.aligner.waiting().flatten()?;
        Some((i, self.branches[i].source.waiting_for()))
    }

    /// The clock the inputs read.
    pub fn clock(&self) -> Option<&crate::time::clock::Clock> {
        self.branches.first().map(|b| b.source.clock())
    }
}

/// Marks chunks of input `lane` with it, when the union feeds a
/// two-input operator (`tagged`).
fn tag(tagged: bool, lane: usize, items: &mut [StreamItem]) {
    if !tagged {
        return;
    }
    for item in items {
        if let StreamItem::Chunk(c) = item {
            c.input = lane as u8;
        }
    }
}
