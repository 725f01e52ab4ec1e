//! What a run records for its report (`tidemark run --report`), and only
//! when one is asked for: each input stream's rows in arrival order with
//! their event time and the watermark they met, each split's (or union
//! input's) own watermark and idleness beside them, and the operators'
//! state over the run.
//!
//! Rows are sampled on their arrival number, never on batches: a row is
//! kept when its number is a multiple of the stride, and the stride
//! doubles (dropping every other point) whenever more than [`MAX_POINTS`]
//! are kept. So what is kept is the same at every batch size, and bounded
//! however long the input.

use crate::runtime::stream::Chunk;
use crate::time::align::Aligner;
use arrow::array::{Array, AsArray};
use arrow::datatypes::TimestampMillisecondType;
use std::sync::{Arc, Mutex, MutexGuard};

/// Points kept per stream at most (a little over, between two halvings).
pub const MAX_POINTS: usize = 2_000;

/// Idleness turns kept per stream at most; past it they are counted.
pub const MAX_TURNS: usize = 2_000;

/// State measurements kept at most.
pub const MAX_STATE_POINTS: usize = 512;

/// Values kept for every `stride`-th arrival number, the stride doubling
/// as they outgrow [`MAX_POINTS`].
#[derive(Clone, Debug)]
pub struct Sampled<T> {
    stride: u64,
    limit: usize,
    points: Vec<(u64, T)>,
}

impl<T> Sampled<T> {
    pub fn new(limit: usize) -> Self {
        Sampled {
            stride: 1,
            limit: limit.max(2),
            points: Vec::new(),
        }
    }

    /// Every how many arrivals a point is kept.
    pub fn stride(&self) -> u64 {
        self.stride
    }

    /// The first number at or after `from` that is kept.
    pub fn next_kept(&self, from: u64) -> u64 {
        from.div_ceil(self.stride).saturating_mul(self.stride)
    }

    /// Keeps `value` for arrival `n`, which must be [`Sampled::next_kept`]
    /// of something and above the last kept.
    pub fn push(&mut self, n: u64, value: T) {
        self.points.push((n, value));
        if self.points.len() > self.limit {
            self.stride = self.stride.saturating_mul(2);
            let stride = self.stride;
            self.points.retain(|(n, _)| n % stride == 0);
        }
    }

    pub fn points(&self) -> &[(u64, T)] {
        &self.points
    }
}

/// How a lane stood at a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneStatus {
    /// It counts in the combined watermark.
    Counting,
    /// Left out as idle (spec §8).
    Idle,
    /// Its input has ended.
    Ended,
}

/// A lane's own watermark and status at a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneMark {
    pub watermark: i64,
    pub status: LaneStatus,
}

/// One sampled row of a stream.
#[derive(Clone, Debug)]
pub struct RowPoint {
    /// The lane (split, or union input) it came from.
    pub lane: u32,
    /// Its time attribute, when the stream has one and it is not NULL.
    pub rowtime: Option<i64>,
    /// The stream's watermark in force before it.
    pub watermark: i64,
    /// Every lane's own watermark at that moment (for the row's lane, the
    /// one before the row).
    pub lanes: Vec<LaneMark>,
    /// The counting lane with the lowest watermark: the one holding the
    /// stream's watermark.
    pub holder: Option<u32>,
}

/// A lane going idle or coming back, after `taken` rows of the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    pub taken: u64,
    pub lane: u32,
    pub idle: bool,
}

/// One input stream: a table's splits interleaved, or a union's inputs.
#[derive(Clone, Debug)]
pub struct StreamRecord {
    /// `table bids`, or `union of a, b`.
    pub name: String,
    /// The table's name, for a table (late rows name it).
    pub table: Option<String>,
    /// The lanes' names: the splits, or the union's inputs.
    pub lanes: Vec<String>,
    /// Rows taken so far: the next row's arrival number.
    pub taken: u64,
    pub rows: Sampled<RowPoint>,
    pub turns: Vec<Turn>,
    /// Turns past [`MAX_TURNS`], counted only.
    pub turns_left_out: u64,
}

/// The operators' state, measured at a moment of the run.
#[derive(Clone, Debug)]
pub struct StatePoint {
    /// The wall-clock time since the start.
    pub elapsed_ms: u64,
    /// Bytes held, per operator (as [`Observations::operators`]).
    pub bytes: Vec<u64>,
}

/// Everything recorded for one run.
#[derive(Clone, Debug, Default)]
pub struct Observations {
    pub streams: Vec<StreamRecord>,
    /// The operators, as the run summary names them.
    pub operators: Vec<String>,
    pub state: Vec<StatePoint>,
}

/// Shared by the sources of a run and the pipeline; cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Observer(Arc<Mutex<Observations>>);

impl Observer {
    pub fn new() -> Self {
        Self::default()
    }

    /// What was recorded (a copy).
    pub fn snapshot(&self) -> Observations {
        self.lock().clone()
    }

    fn lock(&self) -> MutexGuard<'_, Observations> {
        // A panic while holding it leaves the records as they were.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts recording a stream.
    pub fn stream(
        &self,
        name: String,
        table: Option<String>,
        lanes: Vec<String>,
    ) -> StreamObserver {
        let numbers_rows = table.is_some();
        let mut all = self.lock();
        all.streams.push(StreamRecord {
            name,
            table,
            lanes,
            taken: 0,
            rows: Sampled::new(MAX_POINTS),
            turns: Vec::new(),
            turns_left_out: 0,
        });
        StreamObserver {
            observer: self.clone(),
            index: all.streams.len() - 1,
            numbers_rows,
        }
    }

    /// Names the operators whose state [`Observer::state`] measures.
    pub fn operators(&self, names: Vec<String>) {
        self.lock().operators = names;
    }

    /// Records the state per operator `elapsed_ms` into the run; past
    /// [`MAX_STATE_POINTS`], every other point is dropped.
    pub fn state(&self, elapsed_ms: u64, bytes: Vec<u64>) {
        let mut all = self.lock();
        all.state.push(StatePoint { elapsed_ms, bytes });
        if all.state.len() > MAX_STATE_POINTS {
            let mut i = 0;
            // Keeps the first and the newest.
            let last = all.state.len() - 1;
            all.state.retain(|_| {
                i += 1;
                i % 2 == 1 || i - 1 == last
            });
        }
    }
}

/// One stream's handle on the [`Observer`].
#[derive(Clone, Debug)]
pub struct StreamObserver {
    observer: Observer,
    index: usize,
    /// A table's stream numbers its rows' arrivals (in their origin): late
    /// rows are found by them. A union's inputs keep their tables'.
    numbers_rows: bool,
}

impl StreamObserver {
    /// A lane joined (a file that appeared in a followed folder).
    pub fn lane_added(&self, name: String) {
        self.observer.lock().streams[self.index].lanes.push(name);
    }

    /// Lane `lane` went idle (or came back).
    pub fn turned(&self, lane: usize, idle: bool) {
        let mut all = self.observer.lock();
        let stream = &mut all.streams[self.index];
        if stream.turns.len() >= MAX_TURNS {
            stream.turns_left_out += 1;
            return;
        }
        let taken = stream.taken;
        stream.turns.push(Turn {
            taken,
            lane: lane as u32,
            idle,
        });
    }

    /// `chunk`, a run of rows of lane `lane`, was taken by `aligner`: its
    /// rows get their arrival numbers (in their origin, when they carry
    /// one), and the rows due a point are sampled with the lanes' state.
    /// `rowtime`: the time attribute's column, if the rows have one.
    pub fn took(&self, lane: usize, chunk: &mut Chunk, rowtime: Option<usize>, aligner: &Aligner) {
        let n = chunk.num_rows() as u64;
        let mut all = self.observer.lock();
        let stream = &mut all.streams[self.index];
        let first = stream.taken;
        stream.taken += n;
        if let Some(origin) = chunk.origin.as_mut().filter(|_| self.numbers_rows) {
            origin.arrivals = (first..first + n).collect();
        }
        let times = rowtime
            .and_then(|c| chunk.batch.columns().get(c))
            .and_then(|c| c.as_primitive_opt::<TimestampMillisecondType>());
        let mut at = stream.rows.next_kept(first);
        while at < first + n {
            let row = (at - first) as usize;
            let lanes = aligner
                .lanes()
                .iter()
                .enumerate()
                .map(|(i, l)| LaneMark {
                    watermark: if i == lane {
                        aligner.own_watermark(row, chunk.watermarks[row])
                    } else {
                        l.next_watermark()
                    },
                    status: if l.ended() && !l.holds_items() && i != lane {
                        LaneStatus::Ended
                    } else if l.idle() {
                        LaneStatus::Idle
                    } else {
                        LaneStatus::Counting
                    },
                })
                .collect();
            let point = RowPoint {
                lane: lane as u32,
                rowtime: times.filter(|t| t.is_valid(row)).map(|t| t.value(row)),
                watermark: chunk.watermarks[row],
                lanes,
                holder: aligner.lowest().map(|i| i as u32),
            };
            stream.rows.push(at, point);
            at = stream.rows.next_kept(at + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_keeps_multiples_of_a_doubling_stride_whatever_the_batches() {
        let kept = |batches: &[u64]| {
            let mut s = Sampled::new(8);
            let mut n = 0;
            for b in batches {
                let mut at = s.next_kept(n);
                while at < n + b {
                    s.push(at, ());
                    at = s.next_kept(at + 1);
                }
                n += b;
            }
            (
                s.stride(),
                s.points().iter().map(|p| p.0).collect::<Vec<_>>(),
            )
        };
        let whole = kept(&[100]);
        assert_eq!(whole, kept(&[1; 100]));
        assert_eq!(whole, kept(&[7, 13, 50, 30]));
        // 100 rows into at most 8 points: every 16th.
        assert_eq!(whole.0, 16);
        assert_eq!(whole.1, vec![0, 16, 32, 48, 64, 80, 96]);
    }
}
