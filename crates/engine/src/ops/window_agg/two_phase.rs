//! Flink's two-phase (local/global) window aggregation, modelled so that
//! DOUBLE sums match Flink bit for bit: where its buffers flush decides how
//! the additions are grouped.

use super::WindowState;
use crate::time::last_instant;

/// Where Flink's two-phase window aggregation flushes its buffers, which
/// decides how DOUBLE additions are grouped. At a watermark advance that
/// reaches a window boundary (every timer here sits on one), the local
/// buffer flushes if a window it holds rows of is due or it holds a late
/// row; then the global side flushes if a window it holds partials of is
/// due; then due windows fire.
#[derive(Debug)]
pub(super) struct TwoPhase {
    /// A late row arrived since the last local flush.
    pub(super) late_row_buffered: bool,
    /// The watermark at which flushing was last considered.
    pub(super) checked_at: i64,
}

impl WindowState {
    /// Flink's buffer flushes at this watermark advance, once per advance
    /// and before any window fires.
    pub(super) fn flush_two_phase(&mut self, watermark: i64) {
        let Some(tp) = &mut self.two_phase else {
            return;
        };
        if tp.checked_at == watermark {
            return;
        }
        tp.checked_at = watermark;
        let due = |end: i64| last_instant(end) <= watermark;
        if tp.late_row_buffered
            || self
                .slices
                .iter()
                .any(|(end, s)| s.local_dirty && due(*end))
        {
            tp.late_row_buffered = false;
            for slice in self.slices.values_mut().filter(|s| s.local_dirty) {
                slice.accumulators.iter_mut().for_each(|a| a.local_flush());
                slice.local_dirty = false;
                slice.global_dirty = true;
            }
        }
        if self
            .slices
            .iter()
            .any(|(end, s)| s.global_dirty && due(*end))
        {
            for slice in self.slices.values_mut().filter(|s| s.global_dirty) {
                slice.accumulators.iter_mut().for_each(|a| a.global_flush());
                slice.global_dirty = false;
            }
        }
    }
}
