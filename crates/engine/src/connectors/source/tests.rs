//! The table source over splits of its own: order, checkpoints.

use super::*;
use crate::connectors::split::SplitReader;
use crate::runtime::read::ReadBatch;
use arrow::array::Int64Array;
use arrow::datatypes::Int64Type;
use tidemark_common::SqlType;
use tidemark_common::{Field, Schema};

/// A split of one batch of `values`; its position is whether it was
/// read.
struct Values {
    values: Vec<i64>,
    read: bool,
}

impl SplitReader for Values {
    fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        if std::mem::replace(&mut self.read, true) {
            return Ok(None);
        }
        let batch = RecordBatch::try_from_iter([(
            "n",
            Arc::new(Int64Array::from(self.values.clone())) as ArrayRef,
        )])?;
        let n = self.values.len() as u64;
        Ok(Some(ReadBatch {
            batch,
            lines: (1..=n).collect(),
            raw: vec![],
            skipped: vec![],
        }))
    }
    fn stats(&self) -> ReadStats {
        ReadStats {
            rows_read: if self.read {
                self.values.len() as u64
            } else {
                0
            },
            ..ReadStats::default()
        }
    }
    fn unpositioned(&self) -> Option<&'static str> {
        None
    }
    fn between_batches(&self) -> bool {
        true
    }
    fn position(&self) -> Option<ReadPosition> {
        Some(ReadPosition {
            offset: u64::from(self.read),
            ..ReadPosition::default()
        })
    }
    fn resume(&mut self, at: &ReadPosition) -> Result<()> {
        self.read = at.offset == 1;
        Ok(())
    }
}

fn source(splits: &[(&str, Vec<i64>)]) -> TableSource {
    let table = TableDef {
        name: "t".into(),
        schema: Schema::new(vec![Field::new("n", SqlType::BigInt)]),
        physical: 1,
        computed: vec![],
        watermark: None,
        options: Default::default(),
        base_dir: Default::default(),
        primary_key: vec![],
    };
    let splits = splits
        .iter()
        .map(|(name, values)| {
            let reader = Values {
                values: values.clone(),
                read: false,
            };
            Split::new(*name, Box::new(reader))
        })
        .collect();
    TableSource::with_splits(
        Arc::new(table),
        splits,
        EvalContext::default(),
        Clock::System,
        false,
    )
}

/// The values of the chunks `source` gives until its end.
fn read_all(source: &mut TableSource) -> Result<Vec<i64>> {
    let mut items = Vec::new();
    while source.next_items(&mut items)? {}
    let mut values = Vec::new();
    for item in items {
        if let StreamItem::Chunk(chunk) = item {
            values.extend(chunk.batch.column(0).as_primitive::<Int64Type>().values());
        }
    }
    Ok(values)
}

#[test]
fn a_tables_splits_are_read_one_after_another_in_order() -> Result<()> {
    let mut t = source(&[("a.csv", vec![1, 2]), ("b.csv", vec![3])]);
    assert_eq!(read_all(&mut t)?, [1, 2, 3]);
    assert_eq!(t.metrics().rows_read, 3);
    Ok(())
}

#[test]
fn a_checkpoint_records_each_splits_position_and_resumes_from_them() -> Result<()> {
    let mut t = source(&[("a.csv", vec![1, 2]), ("b.csv", vec![3])]);
    let mut items = Vec::new();
    t.next_items(&mut items)?;
    let mut w = StateWriter::new();
    t.save_state(&mut w)?;
    let bytes = w.into_bytes();

    let mut resumed = source(&[("a.csv", vec![1, 2]), ("b.csv", vec![3])]);
    resumed.load_state(&mut StateReader::new(&bytes))?;
    assert_eq!(read_all(&mut resumed)?, [3]);

    // A table that now reads other splits is not resumed from it.
    let mut changed = source(&[("a.csv", vec![1, 2]), ("c.csv", vec![3])]);
    let err = changed
        .load_state(&mut StateReader::new(&bytes))
        .expect_err("other splits");
    assert!(
        err.to_string()
            .contains("taken reading a.csv, b.csv, but the table now reads a.csv, c.csv"),
        "{err}"
    );
    Ok(())
}
