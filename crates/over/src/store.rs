//! The input rows an OVER aggregation still needs — waiting for the
//! watermark, in some key's frame, or emitted but not yet built into
//! output — kept as references into the batches they arrived in. A batch
//! is dropped once none of its rows is referenced.
//!
//! Batches are numbered in arrival order and kept in a queue indexed by
//! that number, so finding a row's batch is an index, not a hash lookup.

use arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray, RecordBatch};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time32MillisecondType, TimeUnit, TimestampMillisecondType,
};
use std::collections::VecDeque;
use tidemark_common::{Error, Result};
use tidemark_engine::snapshot::{get_batch, put_batch, Persist, StateReader, StateWriter};
use tidemark_engine::{held_bytes, Chunk};

/// A row of a stored batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct RowRef {
    batch: u32,
    row: u32,
}

#[cfg(test)]
impl RowRef {
    /// Row `row` of batch number `batch`.
    pub fn at(batch: u32, row: u32) -> Self {
        RowRef { batch, row }
    }
}

impl Persist for RowRef {
    fn save(&self, w: &mut StateWriter) {
        w.put(&self.batch);
        w.put(&self.row);
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok(RowRef {
            batch: r.get()?,
            row: r.get()?,
        })
    }
}

/// Rows of stored batches picked for output: the batches by slot, and
/// (slot, row) per row.
pub struct Picks {
    slots: Vec<u32>,
    rows: Vec<(usize, usize)>,
}

#[derive(Default)]
pub struct Store {
    /// Batch number `first + i` at `i`; `None` once dropped.
    batches: VecDeque<Option<Stored>>,
    first: u32,
}

/// A stored batch, how many references it has, and its columns of
/// primitive types already downcast: an aggregate reads one value of a
/// row at a time, and finding the column's type at every read cost more
/// than the read.
struct Stored {
    batch: RecordBatch,
    refs: u32,
    numeric: Vec<Numeric>,
}

impl Stored {
    fn new(batch: RecordBatch, refs: u32) -> Self {
        let numeric = batch.columns().iter().map(Numeric::of).collect();
        Stored {
            batch,
            refs,
            numeric,
        }
    }
}

/// A column of a primitive type, downcast once, read a value at a time.
pub enum Numeric {
    Int8(PrimitiveArray<Int8Type>),
    Int16(PrimitiveArray<Int16Type>),
    Int32(PrimitiveArray<Int32Type>),
    Date(PrimitiveArray<Date32Type>),
    Time(PrimitiveArray<Time32MillisecondType>),
    Int64(PrimitiveArray<Int64Type>),
    Double(PrimitiveArray<Float64Type>),
    Decimal(PrimitiveArray<Decimal128Type>),
    Timestamp(PrimitiveArray<TimestampMillisecondType>),
    /// No primitive column (or not one read as such).
    Other(DataType),
}

impl Numeric {
    pub fn of(array: &ArrayRef) -> Self {
        match array.data_type() {
            DataType::Int8 => Numeric::Int8(array.as_primitive().clone()),
            DataType::Int16 => Numeric::Int16(array.as_primitive().clone()),
            DataType::Int32 => Numeric::Int32(array.as_primitive().clone()),
            DataType::Date32 => Numeric::Date(array.as_primitive().clone()),
            DataType::Time32(TimeUnit::Millisecond) => Numeric::Time(array.as_primitive().clone()),
            DataType::Int64 => Numeric::Int64(array.as_primitive().clone()),
            DataType::Float64 => Numeric::Double(array.as_primitive().clone()),
            DataType::Decimal128(..) => Numeric::Decimal(array.as_primitive().clone()),
            DataType::Timestamp(TimeUnit::Millisecond, _) => {
                Numeric::Timestamp(array.as_primitive().clone())
            }
            other => Numeric::Other(other.clone()),
        }
    }

    /// Row `row`'s value (TINYINT to BIGINT, DOUBLE as its bits, DECIMAL
    /// unscaled, TIMESTAMP ms, DATE days, TIME ms), widened to i128.
    #[inline]
    pub fn raw(&self, row: usize) -> Result<Option<i128>> {
        Ok(match self {
            Numeric::Int8(a) => value_of(a, row, i128::from),
            Numeric::Int16(a) => value_of(a, row, i128::from),
            Numeric::Int32(a) => value_of(a, row, i128::from),
            Numeric::Date(a) => value_of(a, row, i128::from),
            Numeric::Time(a) => value_of(a, row, i128::from),
            Numeric::Int64(a) => value_of(a, row, i128::from),
            Numeric::Double(a) => value_of(a, row, |v| v.to_bits() as i128),
            Numeric::Decimal(a) => value_of(a, row, |v| v),
            Numeric::Timestamp(a) => value_of(a, row, i128::from),
            Numeric::Other(other) => {
                return Err(Error::Internal(format!("no raw value of {other}")))
            }
        })
    }

    /// Row `row`'s value of a DOUBLE column.
    #[inline]
    pub fn f64(&self, row: usize) -> Result<Option<f64>> {
        match self {
            Numeric::Double(values) => Ok(values.is_valid(row).then(|| values.value(row))),
            _ => Err(Error::Internal("a DOUBLE argument of another type".into())),
        }
    }
}

/// One stored row's primitive values.
pub struct RowValues<'a> {
    numeric: &'a [Numeric],
    row: usize,
}

impl RowValues<'_> {
    fn column(&self, column: usize) -> Result<&Numeric> {
        self.numeric
            .get(column)
            .ok_or_else(|| Error::Internal("a value of a column not stored".into()))
    }

    /// The row's value of a primitive column, as [`Numeric::raw`] gives it.
    #[inline]
    pub fn raw(&self, column: usize) -> Result<Option<i128>> {
        self.column(column)?.raw(self.row)
    }

    /// The row's value of DOUBLE column `column`.
    #[inline]
    pub fn f64(&self, column: usize) -> Result<Option<f64>> {
        self.column(column)?.f64(self.row)
    }
}

/// Row `row` of `array`, or None where it is NULL, widened by `widen`.
#[inline(always)]
fn value_of<T: arrow::datatypes::ArrowPrimitiveType>(
    array: &PrimitiveArray<T>,
    row: usize,
    widen: impl Fn(T::Native) -> i128,
) -> Option<i128> {
    array.is_valid(row).then(|| widen(array.value(row)))
}

impl Store {
    /// Writes the batches kept, by number, with their reference counts:
    /// row references stay valid when read back.
    pub fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.put(&self.first);
        w.u64(self.batches.len() as u64);
        for slot in &self.batches {
            match slot {
                None => w.put(&false),
                Some(stored) => {
                    w.put(&true);
                    w.put(&stored.refs);
                    put_batch(w, &stored.batch)?;
                }
            }
        }
        Ok(())
    }

    /// Reads what [`Store::save`] wrote.
    pub fn load(r: &mut StateReader<'_>) -> Result<Self> {
        let first = r.get()?;
        let n = r.count()?;
        let mut batches = VecDeque::with_capacity(n);
        for _ in 0..n {
            batches.push_back(if r.get::<bool>()? {
                let refs = r.get()?;
                Some(Stored::new(get_batch(r)?, refs))
            } else {
                None
            });
        }
        Ok(Store { batches, first })
    }

    /// The bytes of the batches kept.
    pub fn state_bytes(&self) -> u64 {
        held_bytes(self.batches.iter().flatten().map(|stored| &stored.batch))
    }

    /// Stores the chunk's batch; its rows are referred to until the next
    /// call.
    pub fn add(&mut self, chunk: &Chunk) {
        self.batches
            .push_back(Some(Stored::new(chunk.batch.clone(), 0)));
    }

    fn current(&self) -> u32 {
        self.first + self.batches.len() as u32 - 1
    }

    fn slot(&self, batch: u32) -> Option<&Stored> {
        let i = batch.checked_sub(self.first)? as usize;
        self.batches.get(i)?.as_ref()
    }

    fn stored(&self, at: RowRef) -> Result<&Stored> {
        self.slot(at.batch)
            .ok_or_else(|| Error::Internal("a row of a dropped batch".into()))
    }

    fn batch(&self, at: RowRef) -> Result<&RecordBatch> {
        Ok(&self.stored(at)?.batch)
    }

    /// Row `row` of the chunk last added.
    pub fn row_ref(&self, chunk: &Chunk, row: usize) -> Result<RowRef> {
        let current = self.current();
        match self.slot(current) {
            Some(stored) if stored.batch.num_rows() == chunk.num_rows() => Ok(RowRef {
                batch: current,
                row: row as u32,
            }),
            _ => Err(Error::Internal("a row of a chunk not stored".into())),
        }
    }

    fn refs(&mut self, at: RowRef) -> Option<&mut u32> {
        let i = at.batch.checked_sub(self.first)? as usize;
        self.batches
            .get_mut(i)?
            .as_mut()
            .map(|stored| &mut stored.refs)
    }

    pub fn retain(&mut self, at: RowRef) {
        if let Some(refs) = self.refs(at) {
            *refs += 1;
        }
    }

    pub fn release(&mut self, at: RowRef) {
        if let Some(refs) = self.refs(at) {
            *refs = refs.saturating_sub(1);
        }
    }

    /// Drops the batches no row refers to, but the one being read.
    pub fn sweep(&mut self) {
        let last = self.batches.len().saturating_sub(1);
        for (i, entry) in self.batches.iter_mut().enumerate() {
            if i < last && entry.as_ref().is_some_and(|stored| stored.refs == 0) {
                *entry = None;
            }
        }
        while self.batches.len() > 1 && self.batches.front().is_some_and(Option::is_none) {
            self.batches.pop_front();
            self.first += 1;
        }
    }

    /// How many references to stored rows are held: between items, one
    /// per row waiting, in a key's history or in LAG's recent rows.
    pub fn referenced(&self) -> usize {
        self.batches
            .iter()
            .flatten()
            .map(|stored| stored.refs as usize)
            .sum()
    }

    /// Whether the stored batches hold far more rows than the `live` ones
    /// still referred to: a few rows of a rarely seen key can keep whole
    /// batches alive.
    pub fn bloated(&self, live: usize) -> bool {
        let stored: usize = self
            .batches
            .iter()
            .flatten()
            .map(|stored| stored.batch.num_rows())
            .sum();
        stored > 65_536 && stored > 4 * live
    }

    /// Copies rows `refs` (every row still referred to, each once) into one
    /// new batch, drops the others, and returns the rows' new references,
    /// in the same order.
    pub fn compact(&mut self, refs: &[RowRef]) -> Result<Vec<RowRef>> {
        let picks = self.positions(refs)?;
        let schema = self
            .batches
            .iter()
            .flatten()
            .next()
            .map(|stored| stored.batch.schema())
            .ok_or_else(|| Error::Internal("compacting an empty store".into()))?;
        let columns = (0..schema.fields().len())
            .map(|c| self.column(&picks, c))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let batch = RecordBatch::try_new(schema, columns)?;
        let id = self.current() + 1;
        self.batches.clear();
        self.batches
            .push_back(Some(Stored::new(batch, refs.len() as u32)));
        self.first = id;
        Ok((0..refs.len() as u32)
            .map(|row| RowRef { batch: id, row })
            .collect())
    }

    /// Where rows `refs` are, for [`Store::column`].
    pub fn positions(&self, refs: &[RowRef]) -> Result<Picks> {
        let slots: Vec<u32> = (0..self.batches.len() as u32).collect();
        // A plain loop into a vector of the right size: collecting results
        // cost twice the lookups themselves (a pick per output row).
        let mut rows = Vec::with_capacity(refs.len());
        for r in refs {
            // A row of a batch before the first wraps past the end.
            let slot = r.batch.wrapping_sub(self.first) as usize;
            match self.batches.get(slot) {
                Some(Some(_)) => rows.push((slot, r.row as usize)),
                _ => return Err(Error::Internal("a row of a dropped batch".into())),
            }
        }
        Ok(Picks { slots, rows })
    }

    /// Column `column` of the rows `picks`.
    pub fn column(&self, picks: &Picks, column: usize) -> Result<ArrayRef> {
        // A dropped slot is never picked; an empty column of the right type
        // stands in for it.
        let reference = self
            .batches
            .iter()
            .flatten()
            .next()
            .map(|stored| stored.batch.column(column).clone())
            .ok_or_else(|| Error::Internal("no stored batch".into()))?;
        let arrays: Vec<&dyn Array> = picks
            .slots
            .iter()
            .map(|slot| match &self.batches[*slot as usize] {
                Some(stored) => stored.batch.column(column).as_ref(),
                None => reference.as_ref(),
            })
            .collect();
        Ok(arrow::compute::interleave(&arrays, &picks.rows)?)
    }

    /// Row `at`'s primitive values, for [`RowValues::raw`] and
    /// [`RowValues::f64`]: the batch found once for all of a row's reads.
    #[inline]
    pub fn values(&self, at: RowRef) -> Result<RowValues<'_>> {
        Ok(RowValues {
            numeric: &self.stored(at)?.numeric,
            row: at.row as usize,
        })
    }

    /// Row `at` of a primitive column, as [`RowValues::raw`] reads it.
    #[cfg(test)]
    pub fn raw(&self, at: RowRef, column: usize) -> Result<Option<i128>> {
        self.values(at)?.raw(column)
    }

    /// Row `at` of column `column`, as a one-row array.
    pub fn value(&self, at: RowRef, column: usize) -> Result<ArrayRef> {
        Ok(self.batch(at)?.column(column).slice(at.row as usize, 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use std::sync::Arc;

    fn chunk(values: &[i64]) -> Chunk {
        let batch = RecordBatch::try_from_iter([(
            "v",
            Arc::new(Int64Array::from(values.to_vec())) as ArrayRef,
        )])
        .expect("valid test batch");
        Chunk::new(batch, vec![0; values.len()])
    }

    #[test]
    fn batches_go_when_unreferenced_and_compaction_keeps_rows() -> Result<()> {
        let mut store = Store::default();
        let first = chunk(&[1, 2, 3]);
        store.add(&first);
        let keep = store.row_ref(&first, 2)?;
        store.retain(keep);
        let second = chunk(&[4, 5]);
        store.add(&second);
        let other = store.row_ref(&second, 0)?;
        store.retain(other);
        store.release(other);
        let third = chunk(&[6]);
        store.add(&third);
        store.sweep();
        assert_eq!(store.raw(keep, 0)?, Some(3));
        assert!(store.raw(other, 0).is_err(), "the second batch is gone");
        let moved = store.compact(&[keep])?;
        assert_eq!(store.raw(moved[0], 0)?, Some(3));
        Ok(())
    }
}
