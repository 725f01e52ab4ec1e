//! The journal of what a run decides on its clock rather than from its
//! data (spec §8): a split or input going idle or coming back, and a split
//! joining (a file that appeared in a followed folder).
//!
//! Each aligner of a run (a table's splits, a union's or a join's inputs)
//! has a seat in the journal. A decision is recorded with the rows its
//! aligner had taken and where each of its lanes stood; the run hands the
//! step's records to its sink, which writes and syncs them beside the
//! checkpoint before any output of that step. A resumed run is given the
//! records written since its checkpoint: while any is left, no aligner
//! decides on the clock, each is held to its next decision's position
//! ([`crate::time::align`]) and applies it there, so that the decision
//! falls between the same rows as in the run that was stopped.

use crate::runtime::snapshot::{corrupt, Persist, StateReader, StateWriter};
use crate::time::align::{Aligner, LanePosition};
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use tidemark_common::Result;

/// One decision of an aligner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Splits joined, named, with `taken` rows taken before and the
    /// aligner's watermark at `watermark`; the trace lines that told it.
    Join {
        taken: u64,
        watermark: i64,
        names: Vec<String>,
        traces: Vec<String>,
    },
    /// Lanes went idle or came back, with `taken` rows taken before, the
    /// aligner's watermark at `watermark` (whether a rise was told before
    /// the decision decides which rows it makes late) and the lanes where
    /// `lanes` says.
    Turn {
        taken: u64,
        watermark: i64,
        lanes: Vec<LanePosition>,
        changes: Vec<Change>,
    },
}

impl Decision {
    /// Rows the aligner had taken when it decided.
    pub fn taken(&self) -> u64 {
        match self {
            Decision::Join { taken, .. } | Decision::Turn { taken, .. } => *taken,
        }
    }
}

/// A lane going idle (or coming back), when on the clock, and the trace
/// line that told it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub lane: usize,
    pub idle: bool,
    pub at: i64,
    pub trace: Option<String>,
}

impl Persist for Change {
    fn save(&self, w: &mut StateWriter) {
        w.put(&(self.lane, self.idle));
        w.put(&(self.at, self.trace.clone()));
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        let (lane, idle) = r.get()?;
        let (at, trace) = r.get()?;
        Ok(Change {
            lane,
            idle,
            at,
            trace,
        })
    }
}

impl Persist for Decision {
    fn save(&self, w: &mut StateWriter) {
        match self {
            Decision::Join {
                taken,
                watermark,
                names,
                traces,
            } => {
                w.u8(0);
                w.put(taken);
                w.put(watermark);
                w.put(names);
                w.put(traces);
            }
            Decision::Turn {
                taken,
                watermark,
                lanes,
                changes,
            } => {
                w.u8(1);
                w.put(taken);
                w.put(watermark);
                w.put(lanes);
                w.put(changes);
            }
        }
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok(match r.u8()? {
            0 => Decision::Join {
                taken: r.get()?,
                watermark: r.get()?,
                names: r.get()?,
                traces: r.get()?,
            },
            1 => Decision::Turn {
                taken: r.get()?,
                watermark: r.get()?,
                lanes: r.get()?,
                changes: r.get()?,
            },
            _ => return Err(corrupt("a journaled decision has an unknown kind")),
        })
    }
}

#[derive(Debug, Default)]
struct Book {
    /// Decisions of the run before still to apply, per seat.
    pending: BTreeMap<u32, VecDeque<Decision>>,
    /// Decisions made since the last record was handed out.
    recorded: Vec<(u32, Decision)>,
}

/// A run's journal, shared by the aligners that sit in it.
#[derive(Clone, Debug, Default)]
pub struct Journal(Arc<Mutex<Book>>);

impl Journal {
    pub fn new() -> Self {
        Self::default()
    }

    fn book(&self) -> MutexGuard<'_, Book> {
        // A poisoned lock means a panic elsewhere ended the run already.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the records of the run before (as [`Journal::take_record`]
    /// gave them) as decisions to apply.
    pub fn replay(&self, records: &[Vec<u8>]) -> Result<()> {
        let mut book = self.book();
        for record in records {
            let mut r = StateReader::new(record);
            let decisions: Vec<(u32, Decision)> = r.get()?;
            r.finish()?;
            for (seat, decision) in decisions {
                book.pending.entry(seat).or_default().push_back(decision);
            }
        }
        Ok(())
    }

    /// Whether decisions of the run before are still to apply: until
    /// then no aligner decides on the clock.
    pub fn replaying(&self) -> bool {
        self.book().pending.values().any(|p| !p.is_empty())
    }

    /// The decisions made since the last call, as one record to write
    /// before the output that follows them; none if there were none.
    pub fn take_record(&self) -> Option<Vec<u8>> {
        let recorded = std::mem::take(&mut self.book().recorded);
        if recorded.is_empty() {
            return None;
        }
        let mut w = StateWriter::new();
        w.put(&recorded);
        Some(w.into_bytes())
    }

    /// The seat of aligner `id` (numbered by the run).
    pub fn seat(&self, id: u32) -> Seat {
        Seat {
            journal: self.clone(),
            id,
        }
    }
}

/// An aligner's place in the journal.
#[derive(Clone, Debug)]
pub struct Seat {
    journal: Journal,
    id: u32,
}

impl Seat {
    pub fn replaying(&self) -> bool {
        self.journal.replaying()
    }

    /// This aligner's next decision to apply.
    pub fn next(&self) -> Option<Decision> {
        self.journal
            .book()
            .pending
            .get(&self.id)
            .and_then(|p| p.front().cloned())
    }

    /// The next decision was applied.
    pub fn applied(&self) {
        if let Some(p) = self.journal.book().pending.get_mut(&self.id) {
            p.pop_front();
        }
    }

    pub fn record(&self, decision: Decision) {
        self.journal.book().recorded.push((self.id, decision));
    }

    /// Records `changes` to `aligner`'s lanes, if there are any, where it
    /// stands now.
    pub fn record_turn(&self, aligner: &Aligner, changes: Vec<Change>) {
        if !changes.is_empty() {
            self.record(Decision::Turn {
                taken: aligner.taken(),
                watermark: aligner.watermark(),
                lanes: aligner.positions(),
                changes,
            });
        }
    }

    /// Records splits `names` joining `aligner`, if there are any.
    pub fn record_join(&self, aligner: &Aligner, names: Vec<String>, traces: Vec<String>) {
        if !names.is_empty() {
            self.record(Decision::Join {
                taken: aligner.taken(),
                watermark: aligner.watermark(),
                names,
                traces,
            });
        }
    }

    /// Holds `aligner` to its next decision: its lanes to what they had
    /// read at the next turn, its rows taken to the next decision's; frees
    /// it when none is left.
    pub fn hold(&self, aligner: &mut Aligner) {
        let book = self.journal.book();
        let pending = book.pending.get(&self.id);
        let limit = pending.and_then(|p| p.front()).map(Decision::taken);
        let lanes = pending.and_then(|p| {
            p.iter().find_map(|d| match d {
                Decision::Turn { lanes, .. } => Some(lanes.clone()),
                Decision::Join { .. } => None,
            })
        });
        drop(book);
        aligner.hold_to(lanes.as_deref(), limit);
    }

    /// The next decision, if it is a turn the aligner now stands at
    /// (else `Ok(None)`, or `Err(lane)` when it went past it).
    pub fn due_turn(&self, aligner: &Aligner) -> std::result::Result<Option<Vec<Change>>, usize> {
        match self.next() {
            Some(Decision::Turn {
                taken,
                watermark,
                lanes,
                changes,
            }) => Ok(aligner
                .stands_at(taken, watermark, &lanes)?
                .then_some(changes)),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests;
