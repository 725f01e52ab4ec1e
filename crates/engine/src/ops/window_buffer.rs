//! Sorting a run of rows out by window, for the operators that keep a
//! window's rows whole until it fires (window Top-N, window join): which
//! rows are late, which windows are new (their fire timer is set here),
//! and where the run must stop for a timer it set.

use crate::ops::emit::Emitter;
use crate::runtime::stream::Chunk;
use crate::time::last_instant;
use crate::time::service::EventTime;
use arrow::array::{Array, AsArray, RecordBatch, UInt32Array};
use arrow::datatypes::TimestampMillisecondType;
use std::ops::Range;
use tidemark_common::Result;

/// A run of rows, sorted out by window end.
pub(crate) struct ByWindow {
    /// Rows of the run taken; the rest wait until a timer set by one of
    /// them has fired.
    pub consumed: usize,
    /// On-time rows of each window, in arrival order.
    pub windows: Vec<(i64, RecordBatch)>,
    /// Late rows (their window has fired): row of the chunk, window end.
    pub late: Vec<(usize, i64)>,
}

/// Sorts rows `range` of `chunk` out by the window end in column
/// `window_end`. A row whose window fires at or before the watermark it met
/// is late; a window neither `known` nor seen earlier in the run gets a
/// fire timer at `window_end - 1`, and the run stops before the first row
/// that timer is due for. Rows without a window end are skipped.
pub(crate) fn by_window(
    time: &mut EventTime<i64>,
    chunk: &Chunk,
    range: Range<usize>,
    window_end: usize,
    known: impl Fn(i64) -> bool,
) -> Result<ByWindow> {
    let (start, len) = (range.start, range.len());
    let watermarks = &chunk.watermarks[range];
    let ends = chunk
        .batch
        .column(window_end)
        .as_primitive::<TimestampMillisecondType>();
    let mut consumed = len;
    // Rows by window, in the order windows first appear; a run mostly
    // holds one or two, so they are looked for among the few, the last
    // one used first.
    let mut rows: Vec<(i64, Vec<u32>)> = Vec::new();
    let mut last = 0;
    let mut late = Vec::new();
    for (i, watermark) in watermarks.iter().enumerate() {
        if !time.admit(*watermark) {
            consumed = i;
            break;
        }
        let row = start + i;
        if ends.is_null(row) {
            continue;
        }
        let end = ends.value(row);
        let fire = last_instant(end);
        if fire <= *watermark {
            late.push((row, end));
            continue;
        }
        if rows.get(last).is_none_or(|(e, _)| *e != end) {
            match rows.iter().position(|(e, _)| *e == end) {
                Some(at) => last = at,
                None => {
                    if !known(end) {
                        time.register(fire, end);
                    }
                    // The run's first window gets room for the rest of the
                    // run at once: most runs are of one window, and growing
                    // row by row copied the list again and again. Later
                    // windows grow as they go, so a run spanning many
                    // windows does not reserve the run for each.
                    let room = if rows.is_empty() { len - i } else { 0 };
                    rows.push((end, Vec::with_capacity(room)));
                    last = rows.len() - 1;
                }
            }
        }
        rows[last].1.push(row as u32);
    }
    rows.sort_unstable_by_key(|(end, _)| *end);
    let mut windows = Vec::with_capacity(rows.len());
    for (end, rows) in rows {
        // A run of rows of one window (the common case) is kept as a
        // slice, without copying.
        let contiguous = rows.len() == 1 + (rows[rows.len() - 1] - rows[0]) as usize;
        let picked = if contiguous {
            chunk.batch.slice(rows[0] as usize, rows.len())
        } else {
            arrow::compute::take_record_batch(&chunk.batch, &UInt32Array::from(rows))?
        };
        windows.push((end, picked));
    }
    Ok(ByWindow {
        consumed,
        windows,
        late,
    })
}

/// Drops late row `row` of `chunk` (window end `end`): its time attribute
/// is its window's `window_time`, the instant the window fired.
pub(crate) fn drop_late(chunk: &Chunk, (row, end): (usize, i64), out: &mut Emitter) -> Result<()> {
    out.late(chunk, row, last_instant(end))
}
