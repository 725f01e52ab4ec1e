//! When a window aggregation's windows fire and are freed: a window
//! merges its slices (newest first for HOP, oldest first for CUMULATE),
//! emits one row per key in first-arrival order, re-fires for a late row
//! within the allowed lateness (`-U`/`+U`), fires early on event time, and
//! is cleaned up at `window_end - 1 + lateness`, freeing the slices no
//! later window needs.

use super::{Slice, WindowState, WindowTimer};
use crate::ops::emit::{Emitter, WindowedState};
use crate::ops::emitted::Emitted;
use crate::ops::keys::key_hash;
use crate::time::service::EventTime;
use crate::time::slicing::Slicing;
use crate::time::trace::TraceEvent;
use arrow::array::{ArrayRef, RecordBatch};
use std::sync::Arc;
use tidemark_common::time::window_start;
use tidemark_common::{Error, Result, RowKind};

impl Slice {
    /// Its groups in the order of their first rows: how a window emits
    /// its keys.
    fn arrival_order(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.keys.len()).collect();
        order.sort_by_key(|g| self.first_seq[*g as usize]);
        order
    }
}

impl WindowState {
    /// The slices of the window ending at `window_end`, in the order its
    /// results merge them: a HOP window starts from its newest slice and
    /// adds older ones (which LISTAGG shows); a CUMULATE window grows from
    /// its oldest. FIRST_VALUE and LAST_VALUE go by time either way.
    pub(super) fn window_parts(&self, window_end: i64) -> (Vec<&Slice>, bool) {
        use std::ops::Bound::{Excluded, Included};
        let start = self.slicing.window_start(window_end);
        let mut parts: Vec<&Slice> = self
            .slices
            .range((Excluded(start), Included(window_end)))
            .map(|(_, s)| s)
            .collect();
        let newest_first = matches!(self.slicing, Slicing::Hop { .. });
        if newest_first {
            parts.reverse();
        }
        (parts, newest_first)
    }

    /// Emits the window ending at `window_end`: on time, or `early` (its
    /// partial result). A window that emitted before emits only what
    /// changed for each key: `-U` old `+U` new, `+I` for a new key.
    pub(super) fn emit_window(
        &mut self,
        window_end: i64,
        watermark: i64,
        emitter: &mut Emitter,
        early: bool,
    ) -> Result<()> {
        // An on-time fire may come from merges kept since the last one.
        let reused = !early && self.advance_reuse(window_end)?;
        let merged;
        let (slice, order): (&Slice, Vec<u32>) = if reused {
            let Some(window) = self.reuse.window() else {
                return Ok(());
            };
            (window, window.arrival_order())
        } else {
            let (parts, newest_first) = self.window_parts(window_end);
            match parts.as_slice() {
                [] => return Ok(()),
                // One slice (always, for TUMBLE): its groups are numbered in
                // the order of their first row already.
                [only] => (*only, (0..only.keys.len()).collect()),
                _ => {
                    merged = self.merge_slices(&parts, newest_first, None)?;
                    (&merged, merged.arrival_order())
                }
            }
        };
        if order.is_empty() {
            return Ok(());
        }
        let batch = self.window_batch(window_end, slice, &order)?;
        if self.trace.is_on() {
            let event = if early {
                TraceEvent::Early
            } else {
                TraceEvent::Fire
            };
            emitter.side(
                self.trace
                    .line(event, Self::NAME)
                    .window_of(self.traced_window(window_end))
                    .keys(order.len() as u64)
                    .rows(slice.group_rows.iter().sum::<u64>())
                    .watermark(watermark),
            )?;
        }
        let keys: Vec<Box<[u8]>> = order.iter().map(|g| slice.keys.key(*g).into()).collect();
        if !early {
            emitter.window_fired(watermark);
        }
        // What was emitted is kept while rows may still change it: until
        // the window fires (early firing) or is cleaned up (lateness).
        let keep = early || self.lateness > 0;
        let Some(compare) = &self.result_rows else {
            emitter.rows(batch, RowKind::Insert)?;
            return Ok(());
        };
        match self.fired.remove(&window_end) {
            None => {
                if keep {
                    let emitted = Emitted::first(compare, batch.clone(), keys)?;
                    self.fired.insert(window_end, emitted);
                }
                emitter.rows(batch, RowKind::Insert)?;
            }
            // Results were emitted before (early): each key's changes only.
            Some(mut emitted) => {
                if let Some((changes, kinds)) = emitted.update(compare, batch, keys)? {
                    emitter.changelog(changes, kinds)?;
                }
                if keep {
                    self.fired.insert(window_end, emitted);
                }
            }
        }
        Ok(())
    }

    /// Early firing: every open window emits what changed since it last
    /// emitted, and the next tick is set if windows are still open.
    pub(super) fn fire_early(
        &mut self,
        time: &mut EventTime<WindowTimer>,
        emitter: &mut Emitter,
    ) -> Result<()> {
        let watermark = time.watermark();
        let open: std::collections::BTreeSet<i64> = self
            .slices
            .keys()
            .flat_map(|slice_end| self.slicing.window_ends(*slice_end))
            .filter(|end| self.fire_time(*end) > watermark)
            .collect();
        for window_end in &open {
            self.emit_window(*window_end, watermark, emitter, true)?;
        }
        self.early_tick = None;
        if !open.is_empty() {
            self.schedule_early(time, watermark);
        }
        Ok(())
    }

    /// Sets the next early-firing tick after `watermark`, unless one is
    /// set. Returns it.
    pub(super) fn schedule_early(
        &mut self,
        time: &mut EventTime<WindowTimer>,
        watermark: i64,
    ) -> Option<i64> {
        let every = self.early_fire?;
        if self.early_tick.is_none() {
            let tick = window_start(watermark.saturating_add(1), 0, every).saturating_add(every);
            time.register(tick, WindowTimer::Early);
            self.early_tick = Some(tick);
        }
        self.early_tick
    }

    /// The result rows of `groups` of `slice` (merged for the window ending
    /// at `window_end`), in that order.
    pub(super) fn window_batch(
        &self,
        window_end: i64,
        slice: &Slice,
        groups: &[u32],
    ) -> Result<RecordBatch> {
        let n = groups.len();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.output_schema.fields().len());
        if let (Some(conv), Some(keys)) = (&self.key_converter, slice.keys.rows()) {
            columns.extend(conv.convert_rows(groups.iter().map(|g| keys.row(*g as usize)))?);
        }
        columns.extend(self.window_columns.repeat(
            self.slicing.window_start(window_end),
            window_end,
            self.fire_time(window_end),
            n,
        ));
        for acc in &slice.accumulators {
            columns.push(acc.evaluate(groups)?);
        }
        if self.key_share.is_some() {
            columns.push(Arc::new(arrow::array::UInt64Array::from_iter_values(
                groups.iter().map(|g| slice.first_seq[*g as usize]),
            )));
        }
        Ok(RecordBatch::try_new(self.output_schema.clone(), columns)?)
    }

    /// A late row of `key` was added to the window ending at `window_end`,
    /// which had fired: it fires again for that key at once, as an update
    /// of what it emitted (`-U` old, `+U` new), as a first result (`+I`)
    /// if the key had none there, and not at all if nothing changed.
    pub(super) fn refire(
        &mut self,
        window_end: i64,
        key: &[u8],
        watermark: i64,
        emitter: &mut Emitter,
    ) -> Result<()> {
        let (parts, newest_first) = self.window_parts(window_end);
        let only = (key, key_hash(key));
        let merged = self.merge_slices(&parts, newest_first, Some(only))?;
        if merged.keys.len() == 0 {
            return Err(Error::Internal("a re-fired key has no rows".into()));
        }
        let new = self.window_batch(window_end, &merged, &[0])?;
        if self.trace.is_on() {
            emitter.side(
                self.trace
                    .line(TraceEvent::Refire, Self::NAME)
                    .key(&new.columns()[..self.key_columns.len()], &self.key_types, 0)?
                    .window_of(self.traced_window(window_end))
                    .rows(merged.group_rows.iter().sum::<u64>())
                    .watermark(watermark),
            )?;
        }
        let Some(compare) = &self.result_rows else {
            return Err(Error::Internal("a re-fire without lateness".into()));
        };
        let changes =
            self.fired
                .entry(window_end)
                .or_default()
                .update_key(compare, new, key.into())?;
        if let Some((changes, kinds)) = changes {
            emitter.changelog(changes, kinds)?;
        }
        Ok(())
    }

    /// One slice holding the merge of `parts`, in the order given: keys are
    /// matched across slices, each key's first arrival is the earliest, and
    /// accumulators merge in that order. With `only` (a key in arrow's row
    /// format and its hash), just that key's group.
    pub(super) fn merge_slices(
        &self,
        parts: &[&Slice],
        newest_first: bool,
        only: Option<(&[u8], u64)>,
    ) -> Result<Slice> {
        let mut window = self.new_slice()?;
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for part in parts {
            self.merge_into(&mut window, part, newest_first, only, &mut pairs)?;
        }
        Ok(window)
    }

    /// Adds `part` into `window`: its keys are matched with the window's
    /// (a new key is numbered next), each key's first arrival is the
    /// earlier of the two, and accumulators merge `part` in, which holds
    /// earlier rows than `window` if `part_is_earlier`. With `only`, just
    /// that key's group. `pairs` is scratch space.
    pub(super) fn merge_into(
        &self,
        window: &mut Slice,
        part: &Slice,
        part_is_earlier: bool,
        only: Option<(&[u8], u64)>,
        pairs: &mut Vec<(u32, u32)>,
    ) -> Result<()> {
        pairs.clear();
        let groups: Vec<u32> = match only {
            Some((key, hash)) => part.keys.find(key, hash).into_iter().collect(),
            None => (0..part.keys.len()).collect(),
        };
        for g in groups {
            let key = part
                .keys
                .rows()
                .map(|rows| (rows.row(g as usize), part.keys.hash(g)));
            let (dst, new) = window.keys.intern(key);
            if new {
                window.first_seq.push(part.first_seq[g as usize]);
            }
            let seq = &mut window.first_seq[dst as usize];
            *seq = (*seq).min(part.first_seq[g as usize]);
            pairs.push((g, dst));
        }
        for (into, from) in window.accumulators.iter_mut().zip(&part.accumulators) {
            into.merge_from(from.as_ref(), pairs, part_is_earlier)?;
        }
        if self.trace.is_on() {
            window.group_rows.resize(window.keys.len() as usize, 0);
            for (src, dst) in pairs.iter() {
                window.group_rows[*dst as usize] += part.group_rows[*src as usize];
            }
        }
        Ok(())
    }

    /// The windows of the slice ending at `slice_end` that have fired at
    /// `watermark` but are not cleaned up: a row added to the slice then
    /// re-fires them. Earliest first.
    pub(super) fn refires(&self, slice_end: i64, watermark: i64) -> impl Iterator<Item = i64> + '_ {
        self.slicing.window_ends(slice_end).filter(move |end| {
            self.fire_time(*end) <= watermark && self.cleanup_time(*end) > watermark
        })
    }

    /// The window ending at `window_end` can no longer change: its slices
    /// no later window needs are freed, and what it emitted is forgotten.
    pub(super) fn clean_up(
        &mut self,
        window_end: i64,
        watermark: i64,
        out: &mut Emitter,
    ) -> Result<()> {
        self.free_slices_through(window_end);
        self.fired.retain(|end, _| *end > window_end);
        if self.trace.is_on() {
            out.side(
                self.trace
                    .line(TraceEvent::Cleanup, Self::NAME)
                    .window_of(self.traced_window(window_end))
                    .watermark(watermark),
            )?;
        }
        Ok(())
    }

    /// Frees the slices no window after `window_end` needs.
    pub(super) fn free_slices_through(&mut self, window_end: i64) {
        let slicing = self.slicing;
        self.slices
            .retain(|slice_end, _| slicing.last_window_end(*slice_end) > window_end);
    }
}
