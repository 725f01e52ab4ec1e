//! The event-time core every stateful operator shares: the watermark and
//! timers of an operator ([`service`], the timers kept by [`timers`]), how
//! aligned windows cut time into slices ([`slicing`]), how merging windows
//! join ([`merging`]), the injectable clock for processing time
//! ([`clock`]), what happens to a late row ([`late`]), the window columns
//! rows carry ([`window_columns`]), the trace of what happened when
//! ([`trace`]), the instant a wall-clock time in a zone names ([`zone`]),
//! how inputs are interleaved ([`align`]) and the journal of what was
//! decided on the clock ([`journal`]).

pub mod align;
pub mod clock;
pub mod journal;
pub mod late;
pub mod merging;
pub mod service;
pub mod slicing;
pub mod timers;
pub mod trace;
pub mod window_columns;
pub(crate) mod zone;

/// A window's last instant, `window_end - 1`: its `window_time`, and the
/// watermark at which it fires (a window `[start, end)` is complete once
/// the watermark reaches its last instant, as in Flink).
pub fn last_instant(window_end: i64) -> i64 {
    window_end.saturating_sub(1)
}
