//! A table's decisions on the clock replayed from the journal of the run
//! it resumes (spec §8): splits that joined, and splits that went idle or
//! came back, each applied where the run before made it.

use super::*;

impl TableSource {
    /// Takes the table's seat in the run's journal: its decisions are
    /// recorded there, and those of the run before are applied from it.
    pub fn keep_journal(&mut self, seat: Seat) {
        self.seat = Some(seat);
    }

    /// The table's seat in the run's journal, if it has one.
    pub fn seat(&self) -> Option<&Seat> {
        self.seat.as_ref()
    }

    /// Files a resumed run found beside those its checkpoint read join
    /// now, once no journaled decision is left to place them.
    pub(super) fn join_unjoined(&mut self) {
        if self.unjoined.is_empty() {
            return;
        }
        let names = self.unjoined.iter().map(|s| s.split.name.clone()).collect();
        for state in std::mem::take(&mut self.unjoined) {
            if let Some(observer) = &self.observer {
                observer.lane_added(state.split.name.clone());
            }
            self.splits.push(state);
            self.aligner.add_lane();
        }
        if let Some(seat) = &self.seat {
            seat.record_join(&self.aligner, names, Vec::new());
        }
    }

    /// Applies the next journaled join once the rows before it are taken,
    /// then holds the splits to the next decision.
    pub(super) fn replay_join(&mut self, out: &mut Vec<StreamItem>) -> Result<()> {
        let Some(seat) = self.seat.clone() else {
            return Ok(());
        };
        if let Some(Decision::Join {
            taken,
            watermark,
            names,
            traces,
        }) = seat.next()
        {
            let now = (self.aligner.taken(), self.aligner.watermark());
            if now > (taken, watermark) {
                return Err(self.journal_mismatch(
                    "the table read past the point where a file joined the run that was stopped",
                ));
            }
            if now == (taken, watermark) {
                for name in names {
                    let Some(i) = self.unjoined.iter().position(|s| s.split.name == name) else {
                        return Err(self.journal_mismatch(&format!(
                            "file {name} joined the run that was stopped, but is not there now"
                        )));
                    };
                    let state = self.unjoined.remove(i);
                    if let Some(observer) = &self.observer {
                        observer.lane_added(state.split.name.clone());
                    }
                    self.splits.push(state);
                    self.aligner.add_lane();
                }
                out.extend(
                    traces
                        .into_iter()
                        .map(|t| StreamItem::Side(SideItem::Trace(TraceRecord::plain(t)))),
                );
                seat.applied();
            }
        }
        seat.hold(&mut self.aligner);
        Ok(())
    }

    /// Applies the next journaled turn once the splits stand where they
    /// stood when it was made, with its trace lines and counts.
    pub(super) fn replay_turn(&mut self, out: &mut Vec<StreamItem>) -> Result<()> {
        let Some(seat) = self.seat.clone() else {
            return Ok(());
        };
        let changes = match seat.due_turn(&self.aligner) {
            Ok(Some(changes)) => changes,
            Ok(None) => return Ok(()),
            Err(k) => {
                let split = self
                    .splits
                    .get(k)
                    .map_or_else(|| format!("split {k}"), |s| s.split.name.clone());
                return Err(self.journal_mismatch(&format!(
                    "{split} reads otherwise than in the run that was stopped"
                )));
            }
        };
        for change in changes {
            self.aligner.force_idle(change.lane, change.idle);
            if change.idle {
                self.went_idle += 1;
            } else {
                self.came_back += 1;
            }
            if let Some(state) = self.splits.get_mut(change.lane) {
                state.idle_since = change.idle.then_some(change.at);
            }
            if let Some(observer) = &self.observer {
                observer.turned(change.lane, change.idle);
            }
            out.extend(
                change
                    .trace
                    .map(|t| StreamItem::Side(SideItem::Trace(TraceRecord::plain(t)))),
            );
        }
        seat.applied();
        seat.hold(&mut self.aligner);
        Ok(())
    }

    fn journal_mismatch(&self, what: &str) -> Error {
        // The table's name is added where the error leaves the source.
        Error::Input(format!(
            "cannot go on from the checkpoint: {what}, so the idle decisions journaled beside the checkpoint cannot be applied"
        ))
    }
}
