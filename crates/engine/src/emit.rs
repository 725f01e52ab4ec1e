//! How a windowed operator turns stream items into output: rows go to its
//! [`TimerHandler`] through the event-time service, fired results wait in
//! an [`Emitter`], and each watermark that fired something follows those
//! results downstream.

use crate::stream::{Chunk, StreamItem};
use crate::time_service::{EventTime, TimerHandler};
use arrow::array::RecordBatch;
use tidemark_common::time::NO_WATERMARK;
use tidemark_common::Result;

/// Fired results waiting to go downstream, and the watermark downstream
/// has been told.
pub(crate) struct Emitter {
    pub(crate) pending: Vec<RecordBatch>,
    forwarded: i64,
    out: Vec<StreamItem>,
}

impl Emitter {
    pub(crate) fn new() -> Self {
        Emitter {
            pending: Vec::new(),
            forwarded: NO_WATERMARK,
            out: Vec::new(),
        }
    }

    /// Sends pending results, then the watermark that fired them: the rows
    /// carry the watermark in force before it, as they would one by one.
    fn flush(&mut self, watermark: i64) {
        for batch in self.pending.drain(..) {
            let n = batch.num_rows();
            if n > 0 {
                self.out.push(StreamItem::Chunk(Chunk::new(
                    batch,
                    vec![self.forwarded; n],
                )));
            }
        }
        if watermark > self.forwarded {
            self.forwarded = watermark;
            self.out.push(StreamItem::Watermark(watermark));
        }
    }
}

/// One item through a windowed operator whose state is `handler`;
/// returns how many rows came in and went out.
pub(crate) fn process_item<H: TimerHandler<Output = Emitter>>(
    time: &mut EventTime<H::Key>,
    handler: &mut H,
    emitter: &mut Emitter,
    item: StreamItem,
    out: &mut Vec<StreamItem>,
) -> Result<(u64, u64)> {
    let mut rows_in = 0;
    match item {
        StreamItem::Chunk(chunk) => {
            rows_in = chunk.num_rows() as u64;
            time.process_chunk(&chunk, handler, emitter, |e, wm| e.flush(wm))?;
        }
        StreamItem::Watermark(wm) => {
            time.advance(wm, handler, emitter)?;
            emitter.flush(wm);
        }
        StreamItem::End => {
            emitter.flush(time.watermark());
            emitter.out.push(StreamItem::End);
        }
    }
    let rows_out = emitter
        .out
        .iter()
        .map(|item| match item {
            StreamItem::Chunk(c) => c.num_rows() as u64,
            _ => 0,
        })
        .sum();
    out.append(&mut emitter.out);
    Ok((rows_in, rows_out))
}
