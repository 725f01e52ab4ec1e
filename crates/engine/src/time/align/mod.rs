//! Aligning several inputs in event time: the one rule that interleaves a
//! source's splits, a union's inputs and a window join's two sides.
//!
//! Each input is a [`Lane`]: items read from it and not yet taken, and its
//! own watermark. The [`Aligner`] takes rows from the lane whose watermark
//! is lowest (ties: the lowest lane number), row by row in effect: a run of
//! rows is cut where the lane's watermark would pass the next lowest
//! lane's. The combined watermark is `max(previous, min over counting
//! lanes)`: a lane that has ended or is idle does not count, and the
//! combined watermark never goes back when a lane joins or rejoins behind
//! it — its rows then carry the combined watermark, so a downstream
//! operator judges them late as it would any row behind the watermark.
//! The result is the same at every batch size and timing (spec §1, §8).

mod replay;

pub use replay::LanePosition;

use crate::runtime::snapshot::{corrupt, get_batch, put_batch, StateReader, StateWriter};
use crate::runtime::stream::{BadRow, BadRows, Chunk, Origin, SideItem, SourceTable, StreamItem};
use crate::time::trace::TraceRecord;
use std::collections::VecDeque;
use std::sync::Arc;
use tidemark_common::time::{FINAL_WATERMARK, NO_WATERMARK};
use tidemark_common::{Error, Result};

/// Rows read ahead from an input before it waits for the others (spec
/// §8's bounded prefetch): a fixed count, so that what is known of an
/// input ahead does not depend on the batch size.
pub const PREFETCH_ROWS: usize = 8192;

/// One input of an [`Aligner`].
#[derive(Debug, Default)]
pub struct Lane {
    /// Items read but not yet taken (chunks, side items, watermarks
    /// behind rows).
    queue: VecDeque<StreamItem>,
    /// Rows of the chunk at the front of `queue` already taken: a chunk
    /// taken in many short runs (inputs that interleave closely) is not
    /// cut again, its rest copied, for each.
    front_taken: usize,
    /// The lane's watermark after the rows taken so far.
    watermark: i64,
    ended: bool,
    /// The input has ended with rows still queued: the lane ends once
    /// they are taken and the watermark after them is told.
    ending: bool,
    /// Left out of the minimum until its next row (spec §8); never set
    /// while rows are queued, but by a journaled decision replayed.
    idle: bool,
    /// Rows read into the lane, and taken from it, since the start.
    fetched: u64,
    taken: u64,
    /// While a journaled decision is replayed: the position the lane may
    /// read to, and what it read beyond it, held back ([`replay`]).
    cap: Option<LanePosition>,
    held: VecDeque<StreamItem>,
}

impl Lane {
    fn new() -> Self {
        Lane {
            watermark: NO_WATERMARK,
            ..Lane::default()
        }
    }

    /// Rows queued, not yet taken.
    fn queued_rows(&self) -> usize {
        let queued: usize = self
            .queue
            .iter()
            .map(|item| match item {
                StreamItem::Chunk(c) => c.num_rows(),
                _ => 0,
            })
            .sum();
        queued - self.front_taken
    }

    /// The items queued, the front chunk without the rows already taken.
    fn untaken(&self) -> impl Iterator<Item = std::borrow::Cow<'_, StreamItem>> {
        self.queue.iter().enumerate().map(|(i, item)| match item {
            StreamItem::Chunk(c) if i == 0 && self.front_taken > 0 => {
                let rest = c.num_rows() - self.front_taken;
                std::borrow::Cow::Owned(StreamItem::Chunk(c.slice(self.front_taken, rest)))
            }
            _ => std::borrow::Cow::Borrowed(item),
        })
    }

    /// Takes items read from the lane's input: watermarks before any
    /// queued row are applied at once, `End` ends the lane (the final
    /// watermark before it says nothing more: an ended lane no longer
    /// counts). Whether a lane that gets rows is active again is its
    /// owner's to say.
    pub fn push(&mut self, items: impl IntoIterator<Item = StreamItem>) {
        for item in items {
            self.admit(item);
        }
        self.apply_leading_watermarks();
    }

    /// Takes one item into the lane (past its cap, if it has one: see
    /// [`Lane::admit`]).
    fn enter(&mut self, item: StreamItem) {
        match item {
            StreamItem::Watermark(FINAL_WATERMARK) => {}
            StreamItem::Watermark(w) if self.queue.is_empty() => {
                self.watermark = self.watermark.max(w)
            }
            StreamItem::End => self.end(),
            StreamItem::Chunk(c) => {
                self.fetched += c.num_rows() as u64;
                self.queue.push_back(StreamItem::Chunk(c));
            }
            other => self.queue.push_back(other),
        }
    }

    /// Reads into the lane: an empty lane until an item is queued, one
    /// that holds rows once more while it holds fewer than `prefetch`
    /// (the bounded prefetch of spec §8: an input ahead of the others
    /// reads on, a batch per step, that far, then waits); no further once
    /// the input ends or has nothing for now. Then applies the watermarks
    /// before the first queued row. `read` adds the input's next items
    /// (none: nothing for now) and says false once the input has ended.
    /// One read per step keeps an input that paces its rows (a generator
    /// at a set rate) from holding up the step.
    pub fn fill(
        &mut self,
        prefetch: usize,
        mut read: impl FnMut(&mut Vec<StreamItem>) -> Result<bool>,
    ) -> Result<()> {
        self.release();
        let mut items = Vec::new();
        let mut reads = 0;
        while !self.ended()
            && self.held.is_empty()
            && (self.queue.is_empty() || reads == 0)
            && self.queued_rows() < prefetch.max(1)
        {
            reads += 1;
            let more = read(&mut items)?;
            let nothing = items.is_empty();
            self.push(items.drain(..));
            if !more {
                // Held back, like any item, past a replayed decision's cap.
                self.admit(StreamItem::End);
            }
            if nothing {
                break;
            }
        }
        self.apply_leading_watermarks();
        Ok(())
    }

    /// Ends the lane: rows queued still go out first, and the watermark
    /// after them is told before the lane stops counting.
    pub fn end(&mut self) {
        if self.queue.is_empty() {
            self.ended = true;
        } else {
            self.ending = true;
        }
    }

    /// Whether the lane's input has ended (rows may still be queued).
    pub fn ended(&self) -> bool {
        self.ended || self.ending
    }

    pub fn idle(&self) -> bool {
        self.idle
    }

    /// Whether items are queued.
    pub fn holds_items(&self) -> bool {
        !self.queue.is_empty()
    }

    /// The highest watermark read from the lane's input: after its rows
    /// queued, or before its next item when none are.
    pub fn read_watermark(&self) -> i64 {
        let queued = self.queue.iter().rev().find_map(|item| match item {
            StreamItem::Watermark(w) => Some(*w),
            StreamItem::Chunk(c) => c.watermarks.last().copied(),
            _ => None,
        });
        queued.unwrap_or(NO_WATERMARK).max(self.next_watermark())
    }

    /// The lane's own watermark before its next item.
    pub fn next_watermark(&self) -> i64 {
        match self.queue.front() {
            Some(StreamItem::Chunk(c)) => c.watermarks[self.front_taken],
            _ => self.watermark,
        }
    }

    /// Whether rows may still come from this lane.
    fn live(&self) -> bool {
        !self.ended || !self.queue.is_empty()
    }

    /// Whether the lane holds the combined watermark: live and not idle.
    fn counts(&self) -> bool {
        self.live() && !self.idle
    }

    fn apply_leading_watermarks(&mut self) {
        while let Some(StreamItem::Watermark(w)) = self.queue.front() {
            self.watermark = self.watermark.max(*w);
            self.queue.pop_front();
        }
    }
}

/// What [`Aligner::next`] found.
#[derive(Debug)]
pub enum Next {
    /// An item of lane `lane`: a run of rows (their watermarks raised to
    /// the combined one) or a side item.
    Item { lane: usize, item: StreamItem },
    /// The lowest lane has nothing queued: nothing can go out before it
    /// reads more, ends or goes idle.
    Waiting { lane: usize },
    /// Every lane has idled with nothing queued: the watermark stays.
    AllIdle,
    /// Every lane has ended and nothing is queued.
    Ended,
}

/// A lane that held the combined watermark: the lowest, with nothing
/// read, while another had read further (spec §8: never silent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hold {
    pub lane: usize,
    /// The watermark it held the others at.
    pub watermark: i64,
    /// On the clock: from when, and until when it was last seen holding.
    pub since: i64,
    pub until: i64,
    /// The lane furthest ahead, and the watermark it had read to.
    pub ahead_lane: usize,
    pub ahead: i64,
}

impl Hold {
    /// How long it held, on the clock.
    pub fn lasted(&self) -> i64 {
        self.until.saturating_sub(self.since)
    }

    /// How far the others were ahead.
    pub fn gap(&self) -> i64 {
        self.ahead.saturating_sub(self.watermark)
    }
}

/// A held watermark as the progress line and the run summary name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldWatermark {
    /// What held it: `input b`, `input b (split data/b.csv)`, `split
    /// data/b.csv of table hosts`.
    pub holder: String,
    pub watermark: i64,
    /// How long, on the clock.
    pub lasted_ms: i64,
    /// What had read furthest meanwhile, and to which watermark.
    pub ahead: String,
    pub ahead_watermark: i64,
    /// The idle timeout in force for the holder (0: none).
    pub idle_timeout_ms: i64,
}

/// Lanes interleaved by lowest watermark, with their combined watermark.
#[derive(Debug)]
pub struct Aligner {
    lanes: Vec<Lane>,
    /// The combined watermark so far.
    watermark: i64,
    /// The hold in effect, and the longest one seen.
    hold: Option<Hold>,
    longest_hold: Option<Hold>,
    /// The last step found nothing to give for now: the lane it waits
    /// for, if one holds it (none: every lane idle, or an open source
    /// with every lane ended).
    waiting: Option<Option<usize>>,
    /// Rows taken from all lanes since the start, and (while a journaled
    /// decision is replayed) how many may be taken before it applies.
    taken: u64,
    limit: Option<u64>,
    /// The lane's own watermarks of the last run taken, when they were
    /// raised to the combined one (a lane that rejoined behind it); empty
    /// otherwise. A run report draws the lane's own.
    raised_from: Vec<i64>,
}

impl Aligner {
    pub fn new(lanes: usize) -> Self {
        Aligner {
            lanes: (0..lanes).map(|_| Lane::new()).collect(),
            watermark: NO_WATERMARK,
            hold: None,
            longest_hold: None,
            waiting: None,
            taken: 0,
            limit: None,
            raised_from: Vec::new(),
        }
    }

    /// The lane's own watermark before row `row` of the run last taken,
    /// given the watermark the row carries: the same, unless the run was
    /// raised to the combined watermark.
    pub fn own_watermark(&self, row: usize, carried: i64) -> i64 {
        self.raised_from.get(row).copied().unwrap_or(carried)
    }

    pub fn lane(&self, i: usize) -> &Lane {
        &self.lanes[i]
    }

    pub fn lane_mut(&mut self, i: usize) -> &mut Lane {
        &mut self.lanes[i]
    }

    pub fn lanes(&self) -> &[Lane] {
        &self.lanes
    }

    /// A lane added after the start (a file that appeared in a followed
    /// folder): it joins at −∞ and holds the watermark until its rows or
    /// its end come (or it goes idle); its number is the next one.
    pub fn add_lane(&mut self) -> usize {
        self.lanes.push(Lane::new());
        self.lanes.len() - 1
    }

    /// Marks lane `i` idle (left out of the minimum) or active again; a
    /// lane holding items is never idle. Whether that changed anything.
    pub fn set_idle(&mut self, i: usize, idle: bool) -> bool {
        let lane = &mut self.lanes[i];
        let idle = idle && lane.queue.is_empty();
        std::mem::replace(&mut lane.idle, idle) != idle
    }

    /// Ends every lane (a drained stop): what is queued still goes out.
    pub fn end_all(&mut self) {
        self.lanes.iter_mut().for_each(Lane::end);
    }

    /// The combined watermark told so far.
    pub fn watermark(&self) -> i64 {
        self.watermark
    }

    /// The counting lane with the lowest watermark (ties: lowest number),
    /// when one counts.
    pub fn lowest(&self) -> Option<usize> {
        self.lanes
            .iter()
            .enumerate()
            .filter(|(_, l)| l.counts())
            .min_by_key(|(i, l)| (l.next_watermark(), *i))
            .map(|(i, _)| i)
    }

    /// The next item in event-time order.
    pub fn next(&mut self) -> Next {
        let next = self.next_item();
        self.waiting = match next {
            Next::Waiting { lane } => Some(Some(lane)),
            Next::AllIdle => Some(None),
            Next::Item { .. } | Next::Ended => None,
        };
        next
    }

    /// Whether the last step found nothing for now, and the lane it waits
    /// for if one holds it.
    pub fn waiting(&self) -> Option<Option<usize>> {
        self.waiting
    }

    /// Notes that the last step waits with no lane to wait for (a source
    /// that stays open for splits to come).
    pub fn wait_for_none(&mut self) {
        self.waiting = Some(None);
    }

    /// Ends a step: the combined watermark goes out if it rose, and a
    /// lane that may pause and holds the others back is noted, at `now`
    /// on the clock.
    pub fn close_step(
        &mut self,
        now: i64,
        may_pause: impl Fn(usize) -> bool,
        out: &mut Vec<StreamItem>,
    ) {
        if let Some(w) = self.watermark_rose() {
            out.push(StreamItem::Watermark(w));
        }
        self.note_hold(now, self.waiting.flatten(), may_pause);
    }

    /// The hold in effect at the last step, or (`longest`) the longest of
    /// the run (the widest, among equally long ones).
    pub fn hold_seen(&self, longest: bool) -> Option<Hold> {
        if longest {
            self.longest_hold
        } else {
            self.hold
        }
    }

    fn next_item(&mut self) -> Next {
        self.settle();
        let Some(i) = self.lowest() else {
            return if self.lanes.iter().any(Lane::live) {
                Next::AllIdle
            } else {
                Next::Ended
            };
        };
        // The others' lowest watermark, and whether they win a tie.
        let rival = self
            .lanes
            .iter()
            .enumerate()
            .filter(|(j, l)| *j != i && l.counts())
            .map(|(j, l)| (l.next_watermark(), j))
            .min();
        let combined = self.watermark;
        // Rows that may be taken before a replayed decision applies.
        let room = self.limit.map(|l| l.saturating_sub(self.taken) as usize);
        let lane = &mut self.lanes[i];
        let item = match lane.queue.pop_front() {
            None => return Next::Waiting { lane: i },
            Some(StreamItem::Chunk(chunk)) if room == Some(0) => {
                lane.queue.push_front(StreamItem::Chunk(chunk));
                return Next::Waiting { lane: i };
            }
            Some(StreamItem::Chunk(chunk)) => {
                // Rows while this lane stays the lowest, from the first
                // not taken yet.
                let start = lane.front_taken;
                let left = chunk.num_rows() - start;
                let take = match rival {
                    None => left,
                    Some((w, j)) => chunk.watermarks[start..].partition_point(|x| (*x, i) < (w, j)),
                }
                .max(1)
                .min(room.unwrap_or(usize::MAX));
                let mut run = if take < left {
                    // The rows taken lift the lane's watermark to the one
                    // its next row meets.
                    lane.watermark = lane.watermark.max(chunk.watermarks[start + take]);
                    let run = chunk.slice(start, take);
                    lane.front_taken = start + take;
                    lane.queue.push_front(StreamItem::Chunk(chunk));
                    run
                } else if start > 0 {
                    lane.front_taken = 0;
                    chunk.slice(start, left)
                } else {
                    chunk
                };
                // Only a lane that rejoined behind the combined watermark
                // has rows below it (watermarks never decrease in a run).
                self.raised_from.clear();
                if run.watermarks.first().is_some_and(|w| *w < combined) {
                    self.raised_from.extend_from_slice(&run.watermarks);
                    for w in &mut run.watermarks {
                        *w = (*w).max(combined);
                    }
                }
                lane.taken += run.num_rows() as u64;
                self.taken += run.num_rows() as u64;
                StreamItem::Chunk(run)
            }
            Some(other) => other,
        };
        Next::Item { lane: i, item }
    }

    /// The combined watermark when it rose since last told: `max(told, min
    /// over counting lanes)`; nothing when every lane is idle, and nothing
    /// for the final watermark, which the end tells.
    pub fn watermark_rose(&mut self) -> Option<i64> {
        self.settle();
        let lowest = self
            .lanes
            .iter()
            .filter(|l| l.counts())
            .map(Lane::next_watermark)
            .min();
        // A lane whose input ended counts until the watermark after its
        // last rows is told: now.
        for lane in &mut self.lanes {
            if lane.ending && lane.queue.is_empty() {
                lane.ending = false;
                lane.ended = true;
            }
        }
        let lowest = lowest?;
        if lowest > self.watermark && lowest != FINAL_WATERMARK {
            self.watermark = lowest;
            Some(lowest)
        } else {
            None
        }
    }

    /// Notes, at `now` on the clock, whether `waiting` — the lowest lane,
    /// found with nothing read — holds the others back: another lane has
    /// read past its watermark. Only lanes that `may_pause` can hold (a
    /// file read to its end is behind only until it is read on).
    pub fn note_hold(
        &mut self,
        now: i64,
        waiting: Option<usize>,
        may_pause: impl Fn(usize) -> bool,
    ) {
        if now == i64::MIN {
            // A scripted clock that has not started.
            return;
        }
        // A hold in effect lasted until now, whether or not it goes on.
        if let Some(h) = self.hold.as_mut() {
            h.until = now;
            let h = *h;
            self.keep_if_longest(h);
        }
        let holding = waiting.filter(|i| may_pause(*i)).and_then(|i| {
            let watermark = self.lanes[i].next_watermark();
            let (ahead, ahead_lane) = self
                .lanes
                .iter()
                .enumerate()
                .filter(|(j, l)| *j != i && l.counts())
                .map(|(j, l)| (l.read_watermark(), j))
                .max()?;
            (ahead > watermark).then_some((i, watermark, ahead, ahead_lane))
        });
        let Some((lane, watermark, ahead, ahead_lane)) = holding else {
            self.hold = None;
            return;
        };
        let hold = match self.hold {
            Some(h) if h.lane == lane && h.watermark == watermark => Hold {
                until: now,
                ahead: h.ahead.max(ahead),
                ahead_lane: if ahead >= h.ahead {
                    ahead_lane
                } else {
                    h.ahead_lane
                },
                ..h
            },
            _ => Hold {
                lane,
                watermark,
                since: now,
                until: now,
                ahead_lane,
                ahead,
            },
        };
        self.hold = Some(hold);
        self.keep_if_longest(hold);
    }

    fn keep_if_longest(&mut self, hold: Hold) {
        if self
            .longest_hold
            .is_none_or(|l| (hold.lasted(), hold.gap()) >= (l.lasted(), l.gap()))
        {
            self.longest_hold = Some(hold);
        }
    }

    /// Applies each lane's watermarks that stand before its next row.
    fn settle(&mut self) {
        self.lanes
            .iter_mut()
            .for_each(Lane::apply_leading_watermarks);
    }

    /// Notes the final watermark as told (at the end of input).
    pub fn finish(&mut self) {
        self.watermark = FINAL_WATERMARK;
    }

    /// Writes the lanes for a checkpoint; the items queued in them are
    /// rows read from a source, side items and watermarks.
    pub fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        if self.lanes.iter().any(|l| !l.held.is_empty()) {
            return Err(Error::Internal(
                "a checkpoint while a journaled decision is replayed".into(),
            ));
        }
        w.u64(self.lanes.len() as u64);
        for lane in &self.lanes {
            w.put(&(lane.fetched, lane.taken));
            w.u64(lane.queue.len() as u64);
            for item in lane.untaken() {
                save_item(w, &item)?;
            }
            w.put(&lane.watermark);
            w.put(&lane.ended);
            w.put(&lane.ending);
            w.put(&lane.idle);
        }
        w.put(&self.watermark);
        Ok(())
    }

    /// Reads what [`Aligner::save_state`] wrote; `origin(i)`: the source
    /// table lane `i`'s chunks name as their rows' origin, if they do.
    pub fn load_state(
        &mut self,
        r: &mut StateReader<'_>,
        origin: impl Fn(usize) -> Option<Arc<SourceTable>>,
    ) -> Result<()> {
        let n = r.count()?;
        if n < self.lanes.len() {
            return Err(corrupt("it holds fewer inputs than the query reads"));
        }
        while self.lanes.len() < n {
            self.lanes.push(Lane::new());
        }
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            (lane.fetched, lane.taken) = r.get()?;
            let items = r.count()?;
            let table = origin(i);
            lane.queue.clear();
            lane.front_taken = 0;
            for _ in 0..items {
                lane.queue.push_back(load_item(r, table.as_ref())?);
            }
            lane.watermark = r.get()?;
            lane.ended = r.get()?;
            lane.ending = r.get()?;
            lane.idle = r.get()?;
        }
        self.watermark = r.get()?;
        self.taken = self.lanes.iter().map(|l| l.taken).sum();
        Ok(())
    }
}

/// Writes an item read from a source and not yet taken.
fn save_item(w: &mut StateWriter, item: &StreamItem) -> Result<()> {
    match item {
        StreamItem::Chunk(chunk) if chunk.kinds.is_none() && chunk.input == 0 => {
            w.u8(0);
            put_batch(w, &chunk.batch)?;
            w.put(&chunk.watermarks);
            match &chunk.origin {
                None => w.put(&false),
                Some(origin) => {
                    w.put(&true);
                    put_batch(w, &origin.batch)?;
                    w.put(&origin.rows.to_vec());
                }
            }
        }
        StreamItem::Watermark(watermark) => {
            w.u8(1);
            w.put(watermark);
        }
        StreamItem::Side(SideItem::Bad(bad)) => {
            w.u8(2);
            w.put(&bad.source);
            w.put(&bad.file);
            w.u64(bad.rows.len() as u64);
            for row in &bad.rows {
                w.put(&row.line);
                w.put(&row.raw);
                w.put(&row.error);
            }
        }
        StreamItem::Side(SideItem::Trace(record)) => {
            w.u8(3);
            w.put(&record.line);
        }
        other => {
            return Err(Error::Internal(format!(
                "a checkpoint of an input holding {other:?}"
            )))
        }
    }
    Ok(())
}

/// Reads what [`save_item`] wrote; `table`: the source table chunks name
/// as their rows' origin.
fn load_item(r: &mut StateReader<'_>, table: Option<&Arc<SourceTable>>) -> Result<StreamItem> {
    Ok(match r.u8()? {
        0 => {
            let batch = get_batch(r)?;
            let watermarks: Vec<i64> = r.get()?;
            if watermarks.len() != batch.num_rows() || batch.num_rows() == 0 {
                return Err(corrupt("queued rows and their watermarks differ"));
            }
            let mut chunk = Chunk::new(batch, watermarks);
            if r.get::<bool>()? {
                let batch = get_batch(r)?;
                let rows: Vec<u32> = r.get()?;
                let table = table
                    .cloned()
                    .ok_or_else(|| corrupt("queued rows name a source that keeps none"))?;
                chunk.origin = Some(Origin {
                    batch,
                    rows: rows.into(),
                    table,
                    arrivals: Arc::from([]),
                });
            }
            StreamItem::Chunk(chunk)
        }
        1 => StreamItem::Watermark(r.get()?),
        2 => {
            let source = r.get()?;
            let file = r.get()?;
            let n = r.count()?;
            let mut rows = Vec::with_capacity(n);
            for _ in 0..n {
                rows.push(BadRow {
                    line: r.get()?,
                    raw: r.get()?,
                    error: r.get()?,
                });
            }
            StreamItem::Side(SideItem::Bad(BadRows { source, file, rows }))
        }
        3 => StreamItem::Side(SideItem::Trace(TraceRecord::plain(r.get()?))),
        _ => return Err(corrupt("a queued item has an unknown kind")),
    })
}

#[cfg(test)]
pub(crate) mod tests;
