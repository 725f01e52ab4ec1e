//! Replaying a journaled decision (spec §8): where a lane stood when a
//! split or input went idle or came back, a lane held to what it had read
//! then, the aligner held to the rows it had taken, and the check that it
//! stands there again before the decision is applied.
//!
//! A resumed run reads faster than the run it goes on from: rows that
//! arrived later then are there at once now. Held to each decision's
//! position, its lanes read and give out exactly what the first run had
//! when it decided, so the decision falls between the same rows.

use super::*;
use crate::runtime::snapshot::Persist;

/// Where a lane stood: rows read into it and taken from it since the
/// start, the highest watermark read, whether its input had ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LanePosition {
    pub fetched: u64,
    pub taken: u64,
    pub read_watermark: i64,
    pub ended: bool,
}

impl Persist for LanePosition {
    fn save(&self, w: &mut StateWriter) {
        w.put(&(self.fetched, self.taken));
        w.put(&(self.read_watermark, self.ended));
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        let (fetched, taken) = r.get()?;
        let (read_watermark, ended) = r.get()?;
        Ok(LanePosition {
            fetched,
            taken,
            read_watermark,
            ended,
        })
    }
}

impl Lane {
    /// Where the lane stands now.
    pub fn position(&self) -> LanePosition {
        LanePosition {
            fetched: self.fetched,
            taken: self.taken,
            read_watermark: self.read_watermark(),
            ended: self.ended(),
        }
    }

    /// Takes an item read from the lane's input, unless it lies past the
    /// lane's cap: then it is held back, and so is everything after it.
    /// A run of rows is cut at the cap; a watermark past it is told up to
    /// the cap's watermark, the rest held; the end is held unless the
    /// input had ended at the cap.
    pub(super) fn admit(&mut self, item: StreamItem) {
        let Some(cap) = self.cap.filter(|_| self.held.is_empty()) else {
            if self.cap.is_some() {
                self.held.push_back(item);
            } else {
                self.enter(item);
            }
            return;
        };
        match item {
            StreamItem::Chunk(chunk) => {
                let room = cap.fetched.saturating_sub(self.fetched) as usize;
                if room >= chunk.num_rows() {
                    self.enter(StreamItem::Chunk(chunk));
                } else {
                    if room > 0 {
                        self.enter(StreamItem::Chunk(chunk.slice(0, room)));
                    }
                    let rest = chunk.slice(room, chunk.num_rows() - room);
                    self.held.push_back(StreamItem::Chunk(rest));
                }
            }
            StreamItem::Watermark(w) if w != FINAL_WATERMARK && w > cap.read_watermark => {
                if cap.read_watermark > self.read_watermark() {
                    self.enter(StreamItem::Watermark(cap.read_watermark));
                }
                self.held.push_back(item);
            }
            StreamItem::End if !cap.ended => self.held.push_back(item),
            other => self.enter(other),
        }
    }

    /// Takes what was held back, as far as the cap now allows.
    pub(super) fn release(&mut self) {
        let held = std::mem::take(&mut self.held);
        for item in held {
            self.admit(item);
        }
        self.apply_leading_watermarks();
    }

    fn set_cap(&mut self, cap: Option<LanePosition>) {
        self.cap = cap;
        self.release();
    }

    /// How the lane stands against `p`: there, short of it (it may still
    /// get there by reading or giving out rows), or past it or unable to
    /// reach it.
    fn against(&self, p: &LanePosition) -> Standing {
        let now = self.position();
        if now.fetched > p.fetched
            || now.taken > p.taken
            || now.read_watermark > p.read_watermark
            || (now.ended && !p.ended)
        {
            return Standing::Off;
        }
        if now == *p {
            return Standing::There;
        }
        // Short of rows with no more to come: it cannot get there.
        let rows_held = self
            .held
            .iter()
            .any(|item| matches!(item, StreamItem::Chunk(_)));
        let end_read = now.ended || self.held.iter().any(|item| matches!(item, StreamItem::End));
        if now.fetched < p.fetched && !rows_held && end_read {
            return Standing::Off;
        }
        Standing::Short
    }
}

/// How a lane stands against a journaled position.
enum Standing {
    There,
    Short,
    Off,
}

impl Aligner {
    /// Rows taken from all lanes since the start.
    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// Where each lane stands now.
    pub fn positions(&self) -> Vec<LanePosition> {
        self.lanes.iter().map(Lane::position).collect()
    }

    /// Holds lane `i` to `positions[i]` (what it had read when a decision
    /// was made; lanes it does not name are free) and the aligner to
    /// `taken` rows taken in all, until the decision is applied; `None`
    /// frees them.
    pub fn hold_to(&mut self, positions: Option<&[LanePosition]>, taken: Option<u64>) {
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            lane.set_cap(positions.and_then(|p| p.get(i).copied()));
        }
        self.limit = taken;
    }

    /// Whether the aligner stands where a decision was made, having taken
    /// `taken` rows and told the watermark `watermark`, its lanes at
    /// `positions`: `Ok(false)` while it can
    /// still get there, `Err(lane)` naming a lane that went past it or
    /// cannot reach it (the input is not the one the decision was made
    /// on).
    pub fn stands_at(
        &self,
        taken: u64,
        watermark: i64,
        positions: &[LanePosition],
    ) -> std::result::Result<bool, usize> {
        if positions.len() != self.lanes.len() {
            return Err(self.lanes.len().min(positions.len()));
        }
        if self.taken > taken || (self.taken == taken && self.watermark > watermark) {
            return Err(0);
        }
        let mut there = self.taken == taken && self.watermark == watermark;
        for (i, (lane, p)) in self.lanes.iter().zip(positions).enumerate() {
            match lane.against(p) {
                Standing::There => {}
                Standing::Short => there = false,
                Standing::Off => return Err(i),
            }
        }
        if self.taken == taken && self.watermark == watermark && !there {
            // Every row taken, yet a lane short of what it had taken.
            if let Some(i) =
                (0..self.lanes.len()).find(|i| self.lanes[*i].taken != positions[*i].taken)
            {
                return Err(i);
            }
        }
        Ok(there)
    }

    /// Marks lane `i` idle or active as a journaled decision says, rows
    /// queued or not.
    pub fn force_idle(&mut self, i: usize, idle: bool) {
        self.lanes[i].idle = idle;
    }
}
