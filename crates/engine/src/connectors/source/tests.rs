//! The table source over splits of its own: order, checkpoints.

use super::*;
use crate::connectors::split::{SplitDiscovery, SplitReader};
use crate::runtime::read::ReadBatch;
use arrow::array::{ArrayRef, Int64Array};
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
        kinds: vec![tidemark_common::catalog::ColumnKind::Physical],
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
    .expect("a table of physical columns")
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

/// A split of one batch of instants, read once; a rowtime table's.
struct Instants(Vec<i64>, bool);

impl SplitReader for Instants {
    fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        if std::mem::replace(&mut self.1, true) {
            return Ok(None);
        }
        let batch = RecordBatch::try_from_iter([(
            "ts",
            Arc::new(arrow::array::TimestampMillisecondArray::from(
                self.0.clone(),
            )) as ArrayRef,
        )])?;
        let n = self.0.len() as u64;
        Ok(Some(ReadBatch {
            batch,
            lines: (1..=n).collect(),
            raw: vec![],
            skipped: vec![],
        }))
    }
    fn stats(&self) -> ReadStats {
        ReadStats::default()
    }
    fn unpositioned(&self) -> Option<&'static str> {
        None
    }
    fn between_batches(&self) -> bool {
        true
    }
    fn position(&self) -> Option<ReadPosition> {
        None
    }
    fn resume(&mut self, _at: &ReadPosition) -> Result<()> {
        Ok(())
    }
}

/// Finds split `b` at its second look.
struct Appears(Option<Split>, u32);

impl SplitDiscovery for Appears {
    fn new_splits(&mut self) -> Result<Vec<Split>> {
        self.1 += 1;
        Ok(if self.1 == 2 {
            self.0.take().into_iter().collect()
        } else {
            Vec::new()
        })
    }
    fn interval_ms(&self) -> i64 {
        0
    }
}

/// A table of one rowtime column, `WATERMARK FOR ts AS ts`, over a.csv
/// holding 1 s and 5 s; b.csv (2 s) joins at the second look, or waits
/// among the files found on resume (`found_on_resume`).
fn followed_folder(found_on_resume: bool) -> TableSource {
    let ts = SqlType::Timestamp(3);
    let table = TableDef {
        name: "t".into(),
        schema: Schema::new(vec![Field::new("ts", ts.clone())]),
        kinds: vec![tidemark_common::catalog::ColumnKind::Physical],
        watermark: Some(tidemark_common::catalog::Watermark {
            column: 0,
            expr: Expr::Column {
                index: 0,
                name: "ts".into(),
                ty: ts,
            },
        }),
        options: Default::default(),
        base_dir: Default::default(),
        primary_key: vec![],
    };
    let split = |name: &str, at: i64| {
        Split::new(
            name,
            Box::new(Instants(vec![at], false)) as Box<dyn SplitReader>,
        )
    };
    let a = Split::new("a.csv", Box::new(Instants(vec![1_000, 5_000], false)));
    let mut t = TableSource::with_splits(
        Arc::new(table),
        vec![a],
        EvalContext::default(),
        Clock::System,
        false,
    )
    .expect("a table of physical columns");
    if found_on_resume {
        t.unjoined.push(SplitState::new(split("b.csv", 2_000)));
    } else {
        t.discovery = Some(Box::new(Appears(Some(split("b.csv", 2_000)), 0)));
    }
    t
}

/// Each row's instant and watermark until the end (or 20 steps).
fn rows_and_watermarks(t: &mut TableSource) -> Result<Vec<(i64, i64)>> {
    let mut items = Vec::new();
    for _ in 0..20 {
        if !t.next_items(&mut items)? {
            break;
        }
        // A followed folder stays open: its end is when both were read.
        if t.splits.len() == 2 && t.aligner.lanes().iter().all(|l| l.ended()) {
            t.stop_input();
        }
    }
    let mut rows = Vec::new();
    for item in items {
        if let StreamItem::Chunk(c) = item {
            let ts = c.batch.column(0).as_primitive::<TimestampMillisecondType>();
            rows.extend(
                ts.values()
                    .iter()
                    .copied()
                    .zip(c.watermarks.iter().copied()),
            );
        }
    }
    Ok(rows)
}

#[test]
fn a_journaled_join_puts_a_new_file_where_it_joined_before() -> Result<()> {
    let journal = crate::time::journal::Journal::new();
    let mut live = followed_folder(false);
    live.keep_journal(journal.seat(0));
    let first = rows_and_watermarks(&mut live)?;
    // b.csv joined after a's rows went out: its row meets 5 s.
    assert_eq!(
        first,
        [(1_000, NO_WATERMARK), (5_000, 1_000), (2_000, 5_000)]
    );
    let record = journal.take_record().expect("the join was journaled");

    let resumed = crate::time::journal::Journal::new();
    resumed.replay(&[record])?;
    let mut again = followed_folder(true);
    again.keep_journal(resumed.seat(0));
    assert_eq!(rows_and_watermarks(&mut again)?, first);

    // Without the journal the file found on resume joins at once.
    let mut plain = followed_folder(true);
    plain.keep_journal(crate::time::journal::Journal::new().seat(0));
    let rows = rows_and_watermarks(&mut plain)?;
    assert_eq!(rows[1], (2_000, NO_WATERMARK), "{rows:?}");
    Ok(())
}
