//! How a run of rows reaches a window aggregation's slices: each row is
//! placed in the slice of its rowtime (where a row gets its windows, for
//! TUMBLE, HOP and CUMULATE alike); a row whose every window is cleaned up
//! is dropped as late; a row for windows that fired but are not cleaned up
//! re-fires them; a new slice sets its windows' timers; and each slice's
//! rows are added to their groups' accumulators.

use super::{SliceRows, WindowState, WindowTimer};
use crate::ops::emit::{row_keys, Emitter, WindowedState};
use crate::runtime::stream::Chunk;
use crate::time::service::EventTime;
use crate::time::slicing::Slicing;
use crate::time::trace::TraceEvent;
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, UInt32Array};
use arrow::buffer::ScalarBuffer;
use arrow::datatypes::{TimestampMillisecondType, UInt8Type};
use arrow::row::Rows;
use std::ops::Range;
use tidemark_common::time::window_start;
use tidemark_common::{Error, Result};

/// The slice of the row before, with when its windows are cleaned up:
/// consecutive rows mostly share a slice, so its bounds are computed once.
#[derive(Clone, Copy)]
struct RecentSlice {
    start: i64,
    end: i64,
    /// When the slice's first window is cleaned up: a row in it is late
    /// for some of its windows from then on.
    cleaned: i64,
    /// When its last window is: a row in it is late for all of them.
    all_cleaned: i64,
}

impl RecentSlice {
    fn holds(&self, wall: i64) -> bool {
        self.start <= wall && wall < self.end
    }
}

/// The rows of a run this operator aggregates (all, unless it has a share
/// of the keys), and their keys.
pub(super) struct RunKeys {
    /// Each row's owning share, and this operator's.
    owners: Option<(ScalarBuffer<u8>, u8)>,
    /// The keys of the rows aggregated here.
    pub(super) keys: Option<Rows>,
    /// With a share of the keys: row r's key is `keys[key_of[r]]`.
    key_of: Option<Vec<u32>>,
}

impl RunKeys {
    fn is_mine(&self, r: usize) -> bool {
        self.owners
            .as_ref()
            .is_none_or(|(owners, me)| owners[r] == *me)
    }

    fn key_row(&self, r: u32) -> usize {
        self.key_of.as_ref().map_or(r, |k| k[r as usize]) as usize
    }
}

/// How a run ended.
pub(super) struct RunEnd {
    /// Rows taken.
    pub(super) consumed: usize,
    /// Slots of the scratch rows used.
    pub(super) used: usize,
    /// The run's one row is for windows that fired but are not cleaned up:
    /// the end of its slice and its watermark.
    pub(super) refire: Option<(i64, i64)>,
}

impl WindowState {
    pub(super) fn run_keys(&self, batch: &RecordBatch) -> Result<RunKeys> {
        let Some(share) = self.key_share else {
            return Ok(RunKeys {
                owners: None,
                keys: row_keys(self.key_converter.as_ref(), batch, &self.key_columns)?,
                key_of: None,
            });
        };
        let owners = batch
            .column(batch.num_columns() - 1)
            .as_primitive::<UInt8Type>()
            .values()
            .clone();
        let own = UInt32Array::from_iter_values(
            (0..batch.num_rows() as u32).filter(|r| owners[*r as usize] == share.index),
        );
        let mut key_of = vec![u32::MAX; batch.num_rows()];
        for (k, r) in own.values().iter().enumerate() {
            key_of[*r as usize] = k as u32;
        }
        let keys = match &self.key_converter {
            None => None,
            Some(converter) => {
                let columns = self
                    .key_columns
                    .iter()
                    .map(|c| arrow::compute::take(batch.column(*c), &own, None))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                Some(converter.convert_columns(&columns)?)
            }
        };
        Ok(RunKeys {
            owners: Some((owners, share.index)),
            keys,
            key_of: Some(key_of),
        })
    }

    /// Sorts the run's rows into `per_slice`: rows per slice in arrival
    /// order, with the first row of the run that falls in it (a row of
    /// another share may create a slice); late rows are dropped. The run
    /// ends before the first row whose watermark reaches a timer an
    /// earlier row set (a new window's fire time, or a flush point after
    /// a late row): the event-time service says so. New windows' timers
    /// are registered after the loop, so they are foreseen in it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sort_by_slice(
        &mut self,
        time: &mut EventTime<WindowTimer>,
        chunk: &Chunk,
        range: Range<usize>,
        batch: &RecordBatch,
        keys: &RunKeys,
        per_slice: &mut Vec<SliceRows>,
        out: &mut Emitter,
    ) -> Result<RunEnd> {
        let len = range.len();
        let watermarks = &chunk.watermarks[range.clone()];
        let ts = batch
            .column(self.time_column)
            .as_primitive::<TimestampMillisecondType>();
        let ts_values = ts.values();
        let reports_late_rows = self.key_share.is_none_or(|s| s.index == 0);
        let mut run = RunEnd {
            consumed: len,
            used: 0,
            refire: None,
        };
        // Consecutive rows usually share a slice, so the last one used is
        // checked first.
        let mut last: Option<usize> = None;
        let mut recent: Option<RecentSlice> = None;
        for i in 0..len {
            if !time.admit(watermarks[i]) {
                run.consumed = i;
                break;
            }
            if ts.is_null(i) {
                continue;
            }
            let wall = self.wall_clock(ts_values[i]);
            let slice = match recent {
                Some(s) if s.holds(wall) => s,
                _ => {
                    let (start, end) = self.slicing.slice_bounds(wall);
                    let s = RecentSlice {
                        start,
                        end,
                        cleaned: self.cleanup_time(end),
                        all_cleaned: self.cleanup_time(self.slicing.last_window_end(end)),
                    };
                    recent = Some(s);
                    s
                }
            };
            if slice.all_cleaned <= watermarks[i] {
                // Its trace line first, then the row.
                self.late_row(time, batch, i, slice.end, watermarks[i], out)?;
                if reports_late_rows {
                    out.late(chunk, range.start + i, ts_values[i])?;
                }
                continue;
            }
            let mut end = slice.end;
            // Late for its earliest windows, on time for later ones.
            let partially_late = slice.cleaned <= watermarks[i];
            if partially_late {
                if let Slicing::Cumulate { step, offset, .. } = self.slicing {
                    // Flink adds such a row to the running total of the
                    // cycle, after every slice merged so far: the slice of
                    // the last window cleaned up (with no lateness, the
                    // last that fired).
                    let cleaned = watermarks[i].saturating_sub(self.lateness);
                    let wall = self.wall_clock(cleaned).saturating_add(1);
                    end = end.max(window_start(wall, offset, step));
                }
            }
            // A row for windows that fired but are not cleaned up re-fires
            // them at once, before the next row: it is taken in a run of
            // its own.
            if self.lateness > 0
                && self.fire_time(end) <= watermarks[i]
                && self.refires(end, watermarks[i]).next().is_some()
            {
                if i > 0 {
                    run.consumed = i;
                    break;
                }
                run.refire = Some((end, watermarks[i]));
            }
            if partially_late && reports_late_rows {
                out.metrics().partially_late_rows += 1;
            }
            let slot = match last {
                Some(s) if per_slice[s].end == end => s,
                _ => match per_slice[..run.used].iter().position(|s| s.end == end) {
                    Some(s) => s,
                    None => {
                        if run.used == per_slice.len() {
                            per_slice.push(SliceRows::default());
                        }
                        per_slice[run.used].end = end;
                        per_slice[run.used].first = i as u32;
                        if !self.slices.contains_key(&end) {
                            self.foresee_new_slice(time, end, watermarks[i]);
                        }
                        run.used += 1;
                        run.used - 1
                    }
                },
            };
            last = Some(slot);
            if keys.is_mine(i) {
                per_slice[slot].rows.push(i as u32);
            }
            if run.refire.is_some() {
                run.consumed = 1;
                break;
            }
        }
        Ok(run)
    }

    /// Row `i` of the run, in the slice ending at `end`, is late for every
    /// window: traced, and noted for the two-phase flush.
    fn late_row(
        &mut self,
        time: &mut EventTime<WindowTimer>,
        batch: &RecordBatch,
        i: usize,
        end: i64,
        watermark: i64,
        out: &mut Emitter,
    ) -> Result<()> {
        if self.trace.is_on() {
            let last = self.slicing.last_window_end(end);
            let key_columns: Vec<ArrayRef> = self
                .key_columns
                .iter()
                .map(|c| batch.column(*c).clone())
                .collect();
            let rowtime = batch
                .column(self.time_column)
                .as_primitive::<TimestampMillisecondType>()
                .value(i);
            out.side(
                self.trace
                    .line(TraceEvent::Late, Self::NAME)
                    .key(&key_columns, &self.key_types, i)?
                    .window_of(self.traced_window(last))
                    .rowtime(rowtime)
                    .watermark(watermark),
            )?;
        }
        if let Some(tp) = &mut self.two_phase {
            tp.late_row_buffered = true;
            let unit = self.slicing.unit();
            let gate = window_start(watermark.saturating_add(1), self.slicing.offset(), unit)
                .saturating_add(unit - 1);
            time.register(gate, WindowTimer::Gate);
        }
        Ok(())
    }

    /// A row met `watermark` in a slice ending at `end` that does not exist
    /// yet: the timers the slice will set after the row loop are foreseen.
    fn foresee_new_slice(&self, time: &mut EventTime<WindowTimer>, end: i64, watermark: i64) {
        if let Some(every) = self.early_fire.filter(|_| self.early_tick.is_none()) {
            let tick = window_start(watermark.saturating_add(1), 0, every).saturating_add(every);
            time.foresee(tick);
        }
        // The slice's first window still to fire.
        if let Some(first) = self
            .slicing
            .window_ends(end)
            .find(|e| self.fire_time(*e) > watermark)
        {
            time.foresee(self.fire_time(first));
        }
    }

    /// Adds each slice's rows to its groups' accumulators, creating the
    /// slices that are new (and their timers).
    pub(super) fn add_to_slices(
        &mut self,
        time: &mut EventTime<WindowTimer>,
        watermarks: &[i64],
        batch: &RecordBatch,
        keys: &RunKeys,
        per_slice: &[SliceRows],
    ) -> Result<()> {
        let mut groups: Vec<u32> = Vec::new();
        for SliceRows { end, first, rows } in per_slice {
            let end = *end;
            if !self.slices.contains_key(&end) {
                let watermark = time.watermark().max(watermarks[*first as usize]);
                self.open_slice(time, end, watermark)?;
            }
            let slice = self
                .slices
                .get_mut(&end)
                .ok_or_else(|| Error::Internal("slice vanished".into()))?;
            slice.local_dirty = true;
            if rows.is_empty() {
                continue;
            }
            self.reuse.slice_changed(end);
            groups.clear();
            let first_seq = &mut slice.first_seq;
            let rows_seen = self.rows_seen;
            slice.keys.intern_all(
                keys.keys.as_ref(),
                rows,
                |r| keys.key_row(r),
                &mut groups,
                |r| first_seq.push(rows_seen + r as u64),
            );
            for (acc, call) in slice.accumulators.iter_mut().zip(&self.aggregates) {
                let values = call.arg.map(|c| batch.column(c));
                acc.update(values, rows, &groups)?;
            }
            if self.trace.is_on() {
                slice.group_rows.resize(slice.keys.len() as usize, 0);
                for g in &groups {
                    slice.group_rows[*g as usize] += 1;
                }
            }
        }
        Ok(())
    }

    /// A new slice ending at `end`, its first row met `watermark`: every
    /// window of it that has not fired yet gets its timers; the earlier
    /// ones fired without it (its rows are partly late).
    fn open_slice(
        &mut self,
        time: &mut EventTime<WindowTimer>,
        end: i64,
        watermark: i64,
    ) -> Result<()> {
        let slice = self.new_slice()?;
        self.slices.insert(end, slice);
        self.schedule_early(time, watermark);
        for window_end in self.slicing.window_ends(end) {
            if self.fire_time(window_end) > watermark {
                time.register(self.fire_time(window_end), WindowTimer::Fire(window_end));
            }
            if self.lateness > 0 && self.cleanup_time(window_end) > watermark {
                time.register(
                    self.cleanup_time(window_end),
                    WindowTimer::Cleanup(window_end),
                );
            }
        }
        Ok(())
    }
}
