//! The input rows an OVER aggregation still needs — waiting for the
//! watermark, in some key's frame, or emitted but not yet built into
//! output — kept as references into the batches they arrived in. A batch
//! is dropped once none of its rows is referenced.

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::Float64Type;
use std::collections::HashMap;

type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;
use tidemark_common::{Error, Result};
use tidemark_engine::stream::Chunk;

/// A row of a stored batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RowRef {
    batch: u32,
    row: u32,
}

#[derive(Default)]
pub struct Store {
    /// Batch id to the batch and how many references it has.
    batches: Map<u32, (RecordBatch, u32)>,
    next: u32,
}

impl Store {
    /// Stores the chunk's batch; its rows are referred to until the next
    /// call.
    pub fn add(&mut self, chunk: &Chunk) {
        self.next += 1;
        self.batches.insert(self.next, (chunk.batch.clone(), 0));
    }

    /// Row `row` of the chunk last added.
    pub fn row_ref(&self, chunk: &Chunk, row: usize) -> Result<RowRef> {
        match self.batches.get(&self.next) {
            Some((batch, _)) if batch.num_rows() == chunk.num_rows() => Ok(RowRef {
                batch: self.next,
                row: row as u32,
            }),
            _ => Err(Error::Internal("a row of a chunk not stored".into())),
        }
    }

    pub fn retain(&mut self, at: RowRef) {
        if let Some((_, refs)) = self.batches.get_mut(&at.batch) {
            *refs += 1;
        }
    }

    pub fn release(&mut self, at: RowRef) {
        if let Some((_, refs)) = self.batches.get_mut(&at.batch) {
            *refs = refs.saturating_sub(1);
        }
    }

    /// Drops the batches no row refers to, but the one being read.
    pub fn sweep(&mut self) {
        let current = self.next;
        self.batches
            .retain(|id, (_, refs)| *refs > 0 || *id == current);
    }

    /// Rows `refs` of the stored batches as positions into
    /// [`Store::column`]'s arrays.
    pub fn positions(&self, refs: &[RowRef]) -> Result<(Vec<u32>, Vec<(usize, usize)>)> {
        let mut ids: Vec<u32> = self.batches.keys().copied().collect();
        ids.sort_unstable();
        let slot: Map<u32, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
        // Neighbouring rows mostly share a batch: look it up once per run.
        let mut last: Option<(u32, usize)> = None;
        let mut picks = Vec::with_capacity(refs.len());
        for r in refs {
            let at = match last {
                Some((batch, at)) if batch == r.batch => at,
                _ => {
                    let at = *slot
                        .get(&r.batch)
                        .ok_or_else(|| Error::Internal("a row of a dropped batch".into()))?;
                    last = Some((r.batch, at));
                    at
                }
            };
            picks.push((at, r.row as usize));
        }
        Ok((ids, picks))
    }

    /// Column `column` of the stored batches `ids`, picked at `picks`.
    pub fn column(&self, ids: &[u32], column: usize, picks: &[(usize, usize)]) -> Result<ArrayRef> {
        let arrays = ids
            .iter()
            .map(|id| {
                self.batches
                    .get(id)
                    .map(|(b, _)| b.column(column).as_ref())
                    .ok_or_else(|| Error::Internal("a stored batch vanished".into()))
            })
            .collect::<Result<Vec<&dyn Array>>>()?;
        Ok(arrow::compute::interleave(&arrays, picks)?)
    }

    /// Row `at` of DOUBLE column `column`.
    pub fn f64(&self, at: RowRef, column: usize) -> Result<Option<f64>> {
        let (batch, _) = self
            .batches
            .get(&at.batch)
            .ok_or_else(|| Error::Internal("a row of a dropped batch".into()))?;
        let values = batch
            .column(column)
            .as_primitive_opt::<Float64Type>()
            .ok_or_else(|| Error::Internal("a DOUBLE argument of another type".into()))?;
        let row = at.row as usize;
        Ok(values.is_valid(row).then(|| values.value(row)))
    }

    /// Row `at` of column `column`, as a one-row array.
    pub fn value(&self, at: RowRef, column: usize) -> Result<ArrayRef> {
        self.batches
            .get(&at.batch)
            .map(|(b, _)| b.column(column).slice(at.row as usize, 1))
            .ok_or_else(|| Error::Internal("a row of a dropped batch".into()))
    }
}
