//! When a table's splits go idle and come back (spec §8), what the table
//! waits for and when, and which split held its watermark.

use super::*;
use crate::time::journal::Change;

impl TableSource {
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

    /// The table's watermark: the lowest of its splits', an idle one left
    /// out.
    pub fn watermark(&self) -> i64 {
        self.aligner.watermark()
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
        // Rows a client is fetching come within moments.
        let soon = self
            .splits
            .iter()
            .zip(self.aligner.lanes())
            .any(|(s, l)| !l.ended() && s.split.reader.rows_on_the_way())
            .then(|| self.clock().now().saturating_add(1));
        arrivals.chain(deadlines).chain(look).chain(soon).min()
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

    /// The idle timeout of the table's splits (0: none).
    pub fn idle_timeout_ms(&self) -> i64 {
        self.idleness.timeout_ms
    }

    /// Marks idle each split that may pause and has read no row for the
    /// idle timeout on the clock, and active again each idle split that
    /// has rows; traces every change with the split's and the table's
    /// watermark.
    pub(super) fn judge_idleness(&mut self, out: &mut Vec<StreamItem>) {
        let timeout = self.idleness.timeout_ms;
        if timeout == 0 {
            // Without a timeout no split goes idle (nor comes back).
            return;
        }
        let now = self.clock.now();
        if now == i64::MIN {
            // A scripted clock that has not started.
            return;
        }
        let mut changes = Vec::new();
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
            if let Some(observer) = &self.observer {
                observer.turned(k, event == TraceEvent::Idle);
            }
            let mut change = Change {
                lane: k,
                idle: event == TraceEvent::Idle,
                at: now,
                trace: None,
            };
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
                if let SideItem::Trace(record) = &line {
                    change.trace = Some(record.line.clone());
                }
                out.push(StreamItem::Side(line));
            }
            changes.push(change);
        }
        if let Some(seat) = &self.seat {
            seat.record_turn(&self.aligner, changes);
        }
    }
}
