//! The frames of emitted rows and the output built from them.
//!
//! For a bounded frame (`n PRECEDING`), each key keeps only the rows a
//! later frame can still need — its last `n` emitted rows (ROWS), or its
//! rows from `last emitted - d` on (RANGE) — and each emitted row records
//! its frame's rows. Building the output then feeds all frames' rows to
//! fresh accumulators at once, one group per output row. For an unbounded
//! frame each key keeps running accumulators instead, and nothing else.

use crate::store::{RowRef, Store};
use crate::OverSpec;
use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::SchemaRef;
use std::collections::{HashMap, VecDeque};
use tidemark_common::expr::AggregateCall;
use tidemark_common::window::{FrameUnits, OverFrame};
use tidemark_common::{Error, Result};
use tidemark_engine::accumulators::{new_accumulator, Accumulator};
use tidemark_engine::stream::Chunk;

/// Where emitted rows go out: their key, rowtime, and the watermark they
/// carry downstream (the one before the advance that let them out).
pub struct Out {
    pub key: u32,
    pub rowtime: i64,
    pub watermark: i64,
}

pub struct Frames {
    frame: OverFrame,
    aggregates: Vec<AggregateCall>,
    /// How many input columns pass through to the output.
    input_width: usize,
    /// Bounded frames: per key, the emitted rows later frames can need.
    history: HashMap<u32, VecDeque<(i64, RowRef)>>,
    /// Unbounded frames: running accumulators, a group per key.
    running: Vec<Box<dyn Accumulator>>,
    running_group: HashMap<u32, u32>,
    /// The output under construction: rows, the watermark each carries,
    /// and (bounded) the rows of each one's frame or (unbounded) its
    /// aggregate values.
    rows: Vec<RowRef>,
    watermarks: Vec<i64>,
    frame_rows: Vec<RowRef>,
    frame_groups: Vec<u32>,
    values: Vec<Vec<ArrayRef>>,
}

impl Frames {
    pub fn new(spec: &OverSpec) -> Result<Self> {
        let running = match spec.frame.preceding {
            None => spec
                .aggregates
                .iter()
                .map(new_accumulator)
                .collect::<Result<Vec<_>>>()?,
            Some(_) => {
                for call in &spec.aggregates {
                    new_accumulator(call)?;
                }
                Vec::new()
            }
        };
        let input_width = spec
            .output_schema
            .fields()
            .len()
            .checked_sub(spec.aggregates.len())
            .ok_or_else(|| Error::Internal("OVER output narrower than its aggregates".into()))?;
        Ok(Frames {
            frame: spec.frame,
            aggregates: spec.aggregates.clone(),
            input_width,
            history: HashMap::new(),
            running,
            running_group: HashMap::new(),
            rows: Vec::new(),
            watermarks: Vec::new(),
            frame_rows: Vec::new(),
            frame_groups: Vec::new(),
            values: vec![Vec::new(); spec.aggregates.len()],
        })
    }

    /// Rows `rows` of one key, all at `out.rowtime` in arrival order, go
    /// out now.
    pub fn emit(&mut self, store: &mut Store, out: Out, rows: &[RowRef]) -> Result<()> {
        match (self.frame.units, self.frame.preceding) {
            (FrameUnits::Rows, Some(n)) => {
                let mut history = self.history.remove(&out.key).unwrap_or_default();
                for row in rows {
                    let group = self.rows.len() as u32;
                    let keep = n as usize;
                    let from = history.len().saturating_sub(keep);
                    for (_, past) in history.range(from..) {
                        store.retain(*past);
                        self.frame_rows.push(*past);
                        self.frame_groups.push(group);
                    }
                    store.retain(*row);
                    self.frame_rows.push(*row);
                    self.frame_groups.push(group);
                    if keep > 0 {
                        store.retain(*row);
                        history.push_back((out.rowtime, *row));
                        while history.len() > keep {
                            if let Some((_, old)) = history.pop_front() {
                                store.release(old);
                            }
                        }
                    }
                    self.push_row(store, *row, out.watermark);
                }
                self.history.insert(out.key, history);
            }
            (FrameUnits::Range, Some(d)) => {
                let mut history = self.history.remove(&out.key).unwrap_or_default();
                for row in rows {
                    store.retain(*row);
                    history.push_back((out.rowtime, *row));
                }
                // A later row (rowtime after this one) needs rows from
                // rowtime - d on; so does each of these rows.
                let from = out.rowtime.saturating_sub(d);
                while history.front().is_some_and(|(t, _)| *t < from) {
                    if let Some((_, old)) = history.pop_front() {
                        store.release(old);
                    }
                }
                for row in rows {
                    let group = self.rows.len() as u32;
                    for (_, member) in history.iter() {
                        store.retain(*member);
                        self.frame_rows.push(*member);
                        self.frame_groups.push(group);
                    }
                    self.push_row(store, *row, out.watermark);
                }
                self.history.insert(out.key, history);
            }
            (units, None) => {
                let next = self.running_group.len() as u32;
                let group = *self.running_group.entry(out.key).or_insert(next);
                // ROWS: each row sees the rows before it and itself; RANGE:
                // every row of the key at this rowtime sees all of them.
                let steps: Vec<&[RowRef]> = match units {
                    FrameUnits::Rows => rows.chunks(1).collect(),
                    FrameUnits::Range => vec![rows],
                };
                for step in steps {
                    for (acc, call) in self.running.iter_mut().zip(&self.aggregates) {
                        for row in step {
                            let value = call.arg.map(|c| store.value(*row, c)).transpose()?;
                            acc.update(value.as_ref(), &[0], &[group])?;
                        }
                    }
                    for (values, acc) in self.values.iter_mut().zip(&self.running) {
                        let value = acc.evaluate(&[group])?;
                        for _ in step {
                            values.push(value.clone());
                        }
                    }
                    for row in step {
                        self.push_row(store, *row, out.watermark);
                    }
                }
            }
        }
        Ok(())
    }

    fn push_row(&mut self, store: &mut Store, row: RowRef, watermark: i64) {
        store.retain(row);
        self.rows.push(row);
        self.watermarks.push(watermark);
    }

    /// The rows emitted since the last build, with their aggregates.
    pub fn build(&mut self, store: &mut Store, schema: &SchemaRef) -> Result<Option<Chunk>> {
        if self.rows.is_empty() {
            store.sweep();
            return Ok(None);
        }
        let (ids, picks) = store.positions(&self.rows)?;
        let mut columns = (0..self.input_width)
            .map(|c| store.column(&ids, c, &picks))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let n = self.rows.len();
        if self.frame.preceding.is_some() {
            let (ids, picks) = store.positions(&self.frame_rows)?;
            let mut args: HashMap<usize, ArrayRef> = HashMap::new();
            let all: Vec<u32> = (0..self.frame_rows.len() as u32).collect();
            let groups: Vec<u32> = (0..n as u32).collect();
            for call in &self.aggregates {
                let values = match call.arg {
                    None => None,
                    Some(c) => Some(match args.get(&c) {
                        Some(v) => v.clone(),
                        None => {
                            let v = store.column(&ids, c, &picks)?;
                            args.insert(c, v.clone());
                            v
                        }
                    }),
                };
                let mut acc = new_accumulator(call)?;
                acc.update(values.as_ref(), &all, &self.frame_groups)?;
                columns.push(acc.evaluate(&groups)?);
            }
        } else {
            for values in &mut self.values {
                let parts: Vec<&dyn arrow::array::Array> =
                    values.iter().map(|v| v.as_ref()).collect();
                columns.push(arrow::compute::concat(&parts)?);
                values.clear();
            }
        }
        let batch = RecordBatch::try_new(schema.clone(), columns)?;
        let chunk = Chunk::new(batch, std::mem::take(&mut self.watermarks));
        for row in self.rows.drain(..).chain(self.frame_rows.drain(..)) {
            store.release(row);
        }
        self.frame_groups.clear();
        store.sweep();
        Ok(Some(chunk))
    }
}
