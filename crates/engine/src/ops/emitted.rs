//! What a window last emitted per key, for windows that emit more than once
//! (early firing, allowed lateness): a new result becomes `+I` for a new
//! key, `-U` old / `+U` new for a changed one, and nothing for an unchanged
//! one. Results are compared in arrow's row format and the changelog is
//! built with one `interleave` per emission, not row by row.

use crate::runtime::snapshot::{corrupt, get_batch, put_batch, StateReader, StateWriter};
use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::datatypes::SchemaRef;
use arrow::row::{RowConverter, Rows, SortField};
use std::collections::HashMap;
use tidemark_common::{Result, RowKind};

/// Compares result rows of one output schema.
pub struct ResultRows {
    converter: RowConverter,
}

impl ResultRows {
    pub fn new(schema: &SchemaRef) -> Result<Self> {
        let fields = schema
            .fields()
            .iter()
            .map(|f| SortField::new(f.data_type().clone()))
            .collect();
        Ok(ResultRows {
            converter: RowConverter::new(fields)?,
        })
    }

    fn rows(&self, batch: &RecordBatch) -> Result<Rows> {
        Ok(self.converter.convert_columns(batch.columns())?)
    }
}

/// A window's last emitted result per key.
#[derive(Default)]
pub struct Emitted {
    /// Batches emitted, with their rows in arrow's row format.
    parts: Vec<(RecordBatch, Rows)>,
    /// Each key's last emitted row: (part, row).
    by_key: HashMap<Box<[u8]>, (u32, u32)>,
}

/// A changelog: rows with their kinds.
pub type Changes = Option<(RecordBatch, Vec<RowKind>)>;

impl Emitted {
    /// The bytes the emitted rows and the key index hold.
    pub fn state_bytes(&self) -> u64 {
        let parts: usize = self
            .parts
            .iter()
            .map(|(batch, rows)| batch.get_array_memory_size() + rows.size())
            .sum();
        let keys: usize = self.by_key.keys().map(|k| k.len() + 32).sum();
        (parts + keys) as u64
    }

    /// Writes the emitted rows and the key index for a checkpoint.
    pub fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.parts.len() as u64);
        for (batch, _) in &self.parts {
            put_batch(w, batch)?;
        }
        // In key order, so that equal state writes equal bytes.
        let mut keys: Vec<_> = self.by_key.iter().collect();
        keys.sort();
        w.u64(keys.len() as u64);
        for (key, place) in keys {
            w.put(key);
            w.put(place);
        }
        Ok(())
    }

    /// Reads what [`Emitted::save`] wrote.
    pub fn load(r: &mut StateReader<'_>, compare: &ResultRows) -> Result<Self> {
        let n = r.count()?;
        let mut parts = Vec::with_capacity(n);
        for _ in 0..n {
            let batch = get_batch(r)?;
            let rows = compare.rows(&batch)?;
            parts.push((batch, rows));
        }
        let keys = r.count()?;
        let mut by_key = HashMap::with_capacity(keys);
        for _ in 0..keys {
            let key: Box<[u8]> = r.get()?;
            let (part, row): (u32, u32) = r.get()?;
            if parts
                .get(part as usize)
                .is_none_or(|(b, _): &(RecordBatch, Rows)| row as usize >= b.num_rows())
            {
                return Err(corrupt("an emitted row is missing"));
            }
            by_key.insert(key, (part, row));
        }
        Ok(Emitted { parts, by_key })
    }

    /// A first emission: every row of `batch` (key `keys[i]`) as `+I`.
    pub fn first(compare: &ResultRows, batch: RecordBatch, keys: Vec<Box<[u8]>>) -> Result<Self> {
        let rows = compare.rows(&batch)?;
        let by_key = keys
            .into_iter()
            .enumerate()
            .map(|(i, key)| (key, (0, i as u32)))
            .collect();
        Ok(Emitted {
            parts: vec![(batch, rows)],
            by_key,
        })
    }

    /// The changes from what was emitted to `batch` (key `keys[i]`), in
    /// the batch's order; `batch` becomes what was emitted.
    pub fn update(
        &mut self,
        compare: &ResultRows,
        batch: RecordBatch,
        keys: Vec<Box<[u8]>>,
    ) -> Result<Changes> {
        let rows = compare.rows(&batch)?;
        let new_part = self.parts.len();
        let mut picks: Vec<(usize, usize)> = Vec::new();
        let mut kinds = Vec::new();
        let mut by_key = HashMap::with_capacity(keys.len());
        for (i, key) in keys.into_iter().enumerate() {
            match self.by_key.get(&key) {
                Some(&(part, row))
                    if self.parts[part as usize].1.row(row as usize) == rows.row(i) => {}
                Some(&(part, row)) => {
                    picks.push((part as usize, row as usize));
                    kinds.push(RowKind::UpdateBefore);
                    picks.push((new_part, i));
                    kinds.push(RowKind::UpdateAfter);
                }
                None => {
                    picks.push((new_part, i));
                    kinds.push(RowKind::Insert);
                }
            }
            by_key.insert(key, (0, i as u32));
        }
        let changes = self.changelog(&batch, &picks, kinds)?;
        // Keys not in `batch` keep their rows only if the window can still
        // emit for them; a full result lists every key, so none are left.
        self.parts = vec![(batch, rows)];
        self.by_key = by_key;
        Ok(changes)
    }

    /// The changes for one key's new result row (a late row's re-fire);
    /// the key's other rows stay as they were.
    pub fn update_key(
        &mut self,
        compare: &ResultRows,
        row: RecordBatch,
        key: Box<[u8]>,
    ) -> Result<Changes> {
        let rows = compare.rows(&row)?;
        let new_part = self.parts.len();
        let (picks, kinds) = match self.by_key.get(&key) {
            Some(&(part, old)) if self.parts[part as usize].1.row(old as usize) == rows.row(0) => {
                return Ok(None)
            }
            Some(&(part, old)) => (
                vec![(part as usize, old as usize), (new_part, 0)],
                vec![RowKind::UpdateBefore, RowKind::UpdateAfter],
            ),
            None => (vec![(new_part, 0)], vec![RowKind::Insert]),
        };
        let changes = self.changelog(&row, &picks, kinds)?;
        self.parts.push((row, rows));
        self.by_key.insert(key, (new_part as u32, 0));
        Ok(changes)
    }

    /// Rows `picks` ((part, row); part `parts.len()` is `new`) as one batch.
    fn changelog(
        &self,
        new: &RecordBatch,
        picks: &[(usize, usize)],
        kinds: Vec<RowKind>,
    ) -> Result<Changes> {
        if picks.is_empty() {
            return Ok(None);
        }
        let sources: Vec<&RecordBatch> = self
            .parts
            .iter()
            .map(|(b, _)| b)
            .chain(std::iter::once(new))
            .collect();
        let columns = (0..new.num_columns())
            .map(|c| {
                let arrays: Vec<&dyn Array> =
                    sources.iter().map(|b| b.column(c).as_ref()).collect();
                arrow::compute::interleave(&arrays, picks)
            })
            .collect::<std::result::Result<Vec<ArrayRef>, _>>()?;
        Ok(Some((RecordBatch::try_new(new.schema(), columns)?, kinds)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use std::sync::Arc;

    fn batch(keys: &[&str], values: &[i64]) -> RecordBatch {
        RecordBatch::try_from_iter([
            ("k", Arc::new(StringArray::from(keys.to_vec())) as ArrayRef),
            ("v", Arc::new(Int64Array::from(values.to_vec())) as ArrayRef),
        ])
        .expect("valid test batch")
    }

    fn keys(names: &[&str]) -> Vec<Box<[u8]>> {
        names.iter().map(|k| k.as_bytes().into()).collect()
    }

    fn shown(changes: Changes) -> Vec<String> {
        let Some((batch, kinds)) = changes else {
            return vec![];
        };
        let k = batch
            .column(0)
            .as_any()
            .downcast_ref::<StringArray>()
            .expect("keys");
        let v = batch
            .column(1)
            .as_any()
            .downcast_ref::<Int64Array>()
            .expect("values");
        kinds
            .iter()
            .enumerate()
            .map(|(i, kind)| format!("{kind}[{}, {}]", k.value(i), v.value(i)))
            .collect()
    }

    #[test]
    fn only_changes_are_emitted() -> Result<()> {
        let first = batch(&["a", "b"], &[1, 2]);
        let compare = ResultRows::new(&first.schema())?;
        let mut emitted = Emitted::first(&compare, first, keys(&["a", "b"]))?;
        let changes = emitted.update(
            &compare,
            batch(&["a", "b", "c"], &[1, 5, 7]),
            keys(&["a", "b", "c"]),
        )?;
        assert_eq!(shown(changes), ["-U[b, 2]", "+U[b, 5]", "+I[c, 7]"]);
        let changes = emitted.update_key(&compare, batch(&["c"], &[8]), "c".as_bytes().into())?;
        assert_eq!(shown(changes), ["-U[c, 7]", "+U[c, 8]"]);
        let same = emitted.update_key(&compare, batch(&["a"], &[1]), "a".as_bytes().into())?;
        assert!(same.is_none());
        Ok(())
    }
}
