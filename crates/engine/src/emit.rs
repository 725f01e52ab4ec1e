//! Windowed operators ([`Windowed`]): how stream items reach a window
//! state (a [`TimerHandler`]) through the event-time service, how fired
//! results wait in an [`Emitter`], and how each watermark that fired
//! something follows those results downstream. Window aggregation, session
//! aggregation and the SESSION TVF are each a `Windowed` of their state.

use crate::operator::{Operator, OperatorMetrics};
use crate::stream::{Chunk, StreamItem};
use crate::time_service::{EventTime, TimerHandler};
use arrow::array::RecordBatch;
use arrow::row::{RowConverter, SortField};
use tidemark_common::time::NO_WATERMARK;
use tidemark_common::Result;
use tidemark_common::SqlType;

/// Fired results waiting to go downstream, and the watermark downstream
/// has been told.
pub struct Emitter {
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

/// The state of a windowed operator: what it does with rows and timers,
/// its name and its numbers.
pub trait WindowedState: TimerHandler<Output = Emitter> + Send {
    const NAME: &'static str;
    fn metrics(&self) -> &OperatorMetrics;
    fn metrics_mut(&mut self) -> &mut OperatorMetrics;
}

/// A windowed operator: its state on the event-time service, and the
/// results it fired on their way out.
pub struct Windowed<S: WindowedState> {
    time: EventTime<S::Key>,
    state: S,
    emitter: Emitter,
}

impl<S: WindowedState> Windowed<S> {
    pub(crate) fn from_state(state: S) -> Self {
        Windowed {
            time: EventTime::new(),
            state,
            emitter: Emitter::new(),
        }
    }
}

impl<S: WindowedState> Operator for Windowed<S>
where
    S::Key: Send,
{
    fn name(&self) -> String {
        S::NAME.into()
    }

    fn process(&mut self, item: StreamItem, out: &mut Vec<StreamItem>) -> Result<()> {
        let (rows_in, rows_out) = process_item(
            &mut self.time,
            &mut self.state,
            &mut self.emitter,
            item,
            out,
        )?;
        let metrics = self.state.metrics_mut();
        metrics.rows_in += rows_in;
        metrics.rows_out += rows_out;
        Ok(())
    }

    fn metrics(&self) -> OperatorMetrics {
        self.state.metrics().clone()
    }
}

/// The key converter of a windowed operator's group keys, if it has any.
pub(crate) fn key_converter(key_types: &[SqlType]) -> Result<Option<RowConverter>> {
    if key_types.is_empty() {
        return Ok(None);
    }
    Ok(Some(RowConverter::new(
        key_types
            .iter()
            .map(|t| SortField::new(t.to_arrow()))
            .collect(),
    )?))
}

/// The time zone tag of `window_time` in a window aggregation's output
/// (keys, window_start, window_end, window_time, ...): the rowtime's.
pub(crate) fn window_time_zone(
    output: &arrow::datatypes::Schema,
    n_keys: usize,
) -> Result<Option<std::sync::Arc<str>>> {
    match output.field(n_keys + 2).data_type() {
        arrow::datatypes::DataType::Timestamp(_, tz) => Ok(tz.clone()),
        other => Err(tidemark_common::Error::Internal(format!(
            "window_time of type {other}"
        ))),
    }
}

/// One item through a windowed operator whose state is `handler`;
/// returns how many rows came in and went out.
fn process_item<H: TimerHandler<Output = Emitter>>(
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
