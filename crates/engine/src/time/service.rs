//! The event-time service every stateful operator shares: the operator's
//! watermark, its timers ordered by (time, key), and the cutting of chunks
//! at timer crossings that makes batch processing give exactly the
//! row-at-a-time result.
//!
//! An operator implements [`TimerHandler`]; [`EventTime::process_chunk`]
//! calls it for runs of rows that cross no timer, and fires each timer as
//! the watermark in force reaches it — between the row before and the row
//! after, as a row-at-a-time engine would.
//!
//! Timers fire when the watermark advances: a timer set at or before the
//! watermark in force (an OVER row accepted behind the watermark) waits for
//! the next advance, as Flink's timer service does.

use super::timers::Timers;
use crate::runtime::snapshot::{Persist, StateReader, StateWriter};
use crate::runtime::stream::Chunk;
use std::ops::Range;
use tidemark_common::time::NO_WATERMARK;
use tidemark_common::{Error, Result};

/// An operator's view of event time: what it does with rows and timers.
pub trait TimerHandler {
    type Key: Ord + Clone + Persist;
    /// What the handler emits as it works (e.g. fired results).
    type Output;

    /// Processes rows `range` of `chunk`. No pending timer is due before
    /// `range.end`. The rows may register timers, and a timer registered
    /// by a row must fire before the first later row whose watermark
    /// makes it due (see [`due_at`]). So the handler asks
    /// [`EventTime::admit`] before each row and ends the run when told,
    /// announces with [`EventTime::foresee`] a timer it will register only
    /// after its row loop, and returns how many rows it consumed. The
    /// service checks the run against what was registered and foreseen: a
    /// run past a due timer is an internal error, never a silent
    /// difference from the row-at-a-time result.
    fn on_rows(
        &mut self,
        time: &mut EventTime<Self::Key>,
        chunk: &Chunk,
        range: Range<usize>,
        out: &mut Self::Output,
    ) -> Result<usize>;

    /// A timer fired: the watermark reached `at`.
    fn on_timer(
        &mut self,
        time: &mut EventTime<Self::Key>,
        at: i64,
        key: Self::Key,
        out: &mut Self::Output,
    ) -> Result<()>;

    /// An advance of the watermark fired its last timer: results the
    /// handler held back to build together go out now, before anything
    /// else happens.
    fn on_timers_done(&mut self, _out: &mut Self::Output) -> Result<()> {
        Ok(())
    }
}

/// The watermark at which a timer set at `at`, while the watermark in
/// force was `watermark`, fires: the first advance that reaches it.
pub fn due_at(at: i64, watermark: i64) -> i64 {
    at.max(watermark.saturating_add(1))
}

/// The watermark and the timers of one operator.
#[derive(Debug)]
pub struct EventTime<K: Ord> {
    watermark: i64,
    /// The watermark before the last advance: what rows emitted by the
    /// timers it fired met.
    before_advance: i64,
    timers: Timers<K>,
    /// During a run: the watermark at which it must end, the earliest due
    /// time of the timers its rows registered or foresaw.
    run_cut: i64,
    /// During a run: the watermark of the row last admitted, which a timer
    /// registered for it is due after.
    row_watermark: i64,
}

impl<K: Ord + Clone> Default for EventTime<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Ord + Clone> EventTime<K> {
    pub fn new() -> Self {
        EventTime {
            watermark: NO_WATERMARK,
            before_advance: NO_WATERMARK,
            timers: Timers::new(),
            run_cut: i64::MAX,
            row_watermark: NO_WATERMARK,
        }
    }

    /// Writes the watermarks and timers for a checkpoint.
    pub fn save(&self, w: &mut StateWriter)
    where
        K: Persist,
    {
        w.put(&self.watermark);
        w.put(&self.before_advance);
        w.put(&self.timers);
    }

    /// Reads what [`EventTime::save`] wrote.
    pub fn load(r: &mut StateReader<'_>) -> Result<Self>
    where
        K: Persist,
    {
        Ok(EventTime {
            watermark: r.get()?,
            before_advance: r.get()?,
            timers: r.get()?,
            run_cut: i64::MAX,
            row_watermark: NO_WATERMARK,
        })
    }

    /// The watermark in force.
    pub fn watermark(&self) -> i64 {
        self.watermark
    }

    pub fn register(&mut self, at: i64, key: K) {
        self.foresee(at);
        self.timers.insert((at, key));
    }

    /// Whether the row of a run whose watermark is `watermark` belongs to
    /// the run: false when a timer an earlier row of the run registered
    /// (or foresaw) is due at it — the handler then ends the run before
    /// the row, and the timer fires between the two.
    pub fn admit(&mut self, watermark: i64) -> bool {
        if watermark >= self.run_cut {
            return false;
        }
        self.row_watermark = watermark;
        true
    }

    /// The row last admitted will have a timer at `at`, registered later
    /// in the run (after the handler's row loop): later rows are admitted
    /// as if it were registered now.
    pub fn foresee(&mut self, at: i64) {
        self.run_cut = self.run_cut.min(due_at(at, self.row_watermark));
    }

    pub fn delete(&mut self, at: i64, key: &K) {
        self.timers.remove(&(at, key.clone()));
    }

    /// The pending timers' keys, in time order.
    pub fn timers(&self) -> impl Iterator<Item = &K> {
        self.timers.iter().map(|(_, key)| key)
    }

    /// How many timers are set.
    pub fn timer_count(&self) -> usize {
        self.timers.len()
    }

    pub fn next_timer(&self) -> Option<i64> {
        self.timers.first().map(|(t, _)| *t)
    }

    /// The watermark before the last advance.
    pub fn watermark_before_advance(&self) -> i64 {
        self.before_advance
    }

    /// The watermark a row at which the next timer fires must reach.
    fn next_due(&self) -> Option<i64> {
        self.next_timer().map(|t| due_at(t, self.watermark))
    }

    /// Moves the watermark to `watermark` and, if that advances it, fires
    /// in (time, key) order every timer it reaches — including timers that
    /// firing registers. Returns how many fired.
    pub fn advance<H: TimerHandler<Key = K>>(
        &mut self,
        watermark: i64,
        handler: &mut H,
        out: &mut H::Output,
    ) -> Result<usize> {
        if watermark <= self.watermark {
            return Ok(0);
        }
        self.before_advance = self.watermark;
        self.watermark = watermark;
        let mut fired = 0;
        while let Some(first) = self.timers.first() {
            if first.0 > self.watermark {
                break;
            }
            let Some((at, key)) = self.timers.pop_first() else {
                break;
            };
            handler.on_timer(self, at, key, out)?;
            fired += 1;
        }
        if fired > 0 {
            handler.on_timers_done(out)?;
        }
        Ok(fired)
    }

    /// The watermark rose to `watermark` with no timer due (the rows of a
    /// run): nothing fires, but a timer set from now on waits for the next
    /// advance past it.
    fn pass(&mut self, watermark: i64) {
        if watermark > self.watermark {
            self.before_advance = self.watermark;
            self.watermark = watermark;
        }
    }

    /// Runs a chunk through `handler`: rows in runs that cross no timer,
    /// timers fired between the rows where the watermark reaches them.
    /// `on_fire` is called after each advance that fired timers, with the
    /// watermarks before and after it, so the operator can flush what the
    /// timers emitted.
    pub fn process_chunk<H: TimerHandler<Key = K>>(
        &mut self,
        chunk: &Chunk,
        handler: &mut H,
        out: &mut H::Output,
        mut on_fire: impl FnMut(&mut H::Output, i64, i64) -> Result<()>,
    ) -> Result<()> {
        let n = chunk.num_rows();
        let mut pos = 0;
        while pos < n {
            if self.advance(chunk.watermarks[pos], handler, out)? > 0 {
                on_fire(out, self.before_advance, self.watermark)?;
            }
            let end = match self.next_due() {
                // Rows before the first whose watermark makes it due.
                Some(due) => pos + chunk.watermarks[pos..].partition_point(|w| *w < due),
                None => n,
            };
            if end <= pos {
                return Err(Error::Internal("a due timer survived advance()".into()));
            }
            self.run_cut = i64::MAX;
            self.row_watermark = self.watermark;
            let consumed = handler.on_rows(self, chunk, pos..end, out)?;
            if consumed == 0
                || consumed > end - pos
                || chunk.watermarks[pos + consumed - 1] >= self.run_cut
            {
                return Err(Error::Internal(format!(
                    "a run of {consumed} rows (of {}) went past a timer its rows set, due at watermark {}",
                    end - pos,
                    self.run_cut
                )));
            }
            // The rows of the run met their watermarks; no timer was due.
            self.pass(chunk.watermarks[pos + consumed - 1]);
            pos += consumed;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, RecordBatch};
    use std::sync::Arc;

    /// Records what a row-at-a-time engine would: rows and timer firings
    /// in order. Each row registers a timer at its value.
    struct Recorder {
        log: Vec<String>,
    }

    impl TimerHandler for Recorder {
        type Key = u32;
        type Output = ();
        fn on_rows(
            &mut self,
            time: &mut EventTime<u32>,
            chunk: &Chunk,
            range: Range<usize>,
            _: &mut (),
        ) -> Result<usize> {
            let col = chunk
                .batch
                .column(0)
                .as_any()
                .downcast_ref::<Int64Array>()
                .expect("test column is Int64");
            for i in range.clone() {
                if !time.admit(chunk.watermarks[i]) {
                    return Ok(i - range.start);
                }
                self.log.push(format!("row {}", col.value(i)));
                time.register(col.value(i), 0);
            }
            Ok(range.len())
        }
        fn on_timer(&mut self, _: &mut EventTime<u32>, at: i64, _: u32, _: &mut ()) -> Result<()> {
            self.log.push(format!("timer {at}"));
            Ok(())
        }
    }

    fn run(values: &[i64], watermarks: &[i64], batch: usize) -> Result<Vec<String>> {
        let mut time = EventTime::new();
        let mut rec = Recorder { log: vec![] };
        for (vals, wms) in values.chunks(batch).zip(watermarks.chunks(batch)) {
            let b =
                RecordBatch::try_from_iter([("v", Arc::new(Int64Array::from(vals.to_vec())) as _)])
                    .expect("valid test batch");
            time.process_chunk(
                &Chunk::new(b, wms.to_vec()),
                &mut rec,
                &mut (),
                |_, _, _| Ok(()),
            )?;
        }
        time.advance(i64::MAX, &mut rec, &mut ())?;
        Ok(rec.log)
    }

    /// Takes every row it is given, never asking whether a timer it set
    /// has fallen due.
    struct Careless;

    impl TimerHandler for Careless {
        type Key = u32;
        type Output = ();
        fn on_rows(
            &mut self,
            time: &mut EventTime<u32>,
            _: &Chunk,
            range: Range<usize>,
            _: &mut (),
        ) -> Result<usize> {
            time.register(5, 0);
            Ok(range.len())
        }
        fn on_timer(&mut self, _: &mut EventTime<u32>, _: i64, _: u32, _: &mut ()) -> Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_run_past_a_timer_it_set_is_an_error_not_a_silent_difference() {
        let b = RecordBatch::try_from_iter([("v", Arc::new(Int64Array::from(vec![1, 2])) as _)])
            .expect("valid test batch");
        let mut time = EventTime::new();
        // The first row sets a timer at 5; the second meets watermark 5.
        let result = time.process_chunk(
            &Chunk::new(b, vec![i64::MIN, 5]),
            &mut Careless,
            &mut (),
            |_, _, _| Ok(()),
        );
        assert!(matches!(result, Err(Error::Internal(m)) if m.contains("went past a timer")));
    }

    #[test]
    fn timers_fire_between_the_rows_where_the_watermark_reaches_them() -> Result<()> {
        let values = [5, 3, 9, 4, 12];
        let wms = [i64::MIN, 5, 5, 9, 9];
        let expected = run(&values, &wms, 1)?;
        // Timer 3 is set behind the watermark (5): it waits for the next
        // advance, to 9, which also reaches timer 9; timer 4, set behind 9,
        // waits for the end of input.
        assert_eq!(
            expected,
            [
                "row 5", "timer 5", "row 3", "row 9", "timer 3", "timer 9", "row 4", "row 12",
                "timer 4", "timer 12"
            ]
        );
        for batch in [2, 3, 7] {
            assert_eq!(run(&values, &wms, batch)?, expected, "batch size {batch}");
        }
        Ok(())
    }
}
