//! What the operators' unit tests share: input rows of `(key, rowtime)`
//! with the watermarks a source of bounded out-of-orderness gives them, and
//! an operator's output written out one line per row, watermark and late
//! row, so that a test states the whole output it expects.
//!
//! Built for the engine's own tests, and for the tests of crates that build
//! operators on it (OVER) through the `testing` feature; with them, the
//! small deterministic random generator the engine's tests make awkward
//! input with ([`Rng`]).

use crate::ops::operator::Operator;
use crate::ops::stateless::WindowLabels;
use crate::runtime::snapshot::{StateReader, StateWriter};
use crate::runtime::stream::{Chunk, Origin, SideItem, SourceTable, StreamItem};
use arrow::array::TimestampMillisecondArray;
use arrow::array::{Array, ArrayRef, AsArray, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit, TimestampMillisecondType};
use std::sync::Arc;
use tidemark_common::time::{FINAL_WATERMARK, NO_WATERMARK};
use tidemark_common::window::WindowKind;
use tidemark_common::{Result, RowKind};

/// `COUNT(*)`.
pub fn count_star() -> tidemark_common::expr::AggregateCall {
    tidemark_common::expr::AggregateCall {
        func: tidemark_common::expr::AggregateFunction::CountStar,
        arg: None,
        arg_type: None,
        distinct: false,
        separator: None,
        offset: 0,
        lag_default: None,
        ty: tidemark_common::SqlType::BigInt,
    }
}

/// Seconds, in the engine's milliseconds.
pub fn s(seconds: i64) -> i64 {
    seconds * 1_000
}

/// The schema of the test rows: `k STRING, ts TIMESTAMP(3), v BIGINT`.
pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("k", DataType::Utf8, true),
        Field::new("ts", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        Field::new("v", DataType::Int64, true),
    ]))
}

/// Rows `(key, rowtime, v)` as one chunk, each meeting the watermark the
/// rows before it set: the largest rowtime so far minus `delay` (as
/// `WATERMARK FOR ts AS ts - delay` gives), −∞ before the first. The
/// chunk knows its source rows (as when late rows are routed), which are
/// the rows themselves.
pub fn events(rows: &[(&str, i64, i64)], delay: i64) -> Chunk {
    let mut watermarks = Vec::with_capacity(rows.len());
    let mut watermark = NO_WATERMARK;
    for (_, ts, _) in rows {
        watermarks.push(watermark);
        watermark = watermark.max(ts - delay);
    }
    let batch = RecordBatch::try_new(
        schema(),
        vec![
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.0))) as ArrayRef,
            Arc::new(TimestampMillisecondArray::from_iter_values(
                rows.iter().map(|r| r.1),
            )),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.2))),
        ],
    )
    .expect("the test rows fit their schema");
    let mut chunk = Chunk::new(batch.clone(), watermarks);
    chunk.origin = Some(Origin {
        batch,
        rows: (0..rows.len() as u32).collect(),
        table: Arc::new(SourceTable {
            name: "events".into(),
            types: vec![],
            rowtime: None,
        }),
        arrivals: std::sync::Arc::from([]),
    });
    chunk
}

/// Feeds `items` through `op`, then the end of input (the final watermark,
/// then the end), and writes out what came out: `+I[a, 0, 5000, 3]` per
/// row (timestamps in ms), `WM 4999` per watermark, `LATE[a, 1000, 4]
/// @9000` per late row with the watermark it met; trace lines are left
/// out.
pub fn run(op: &mut dyn Operator, items: Vec<StreamItem>) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for item in items {
        op.process(item, &mut out)?;
    }
    op.process(StreamItem::Watermark(FINAL_WATERMARK), &mut out)?;
    op.process(StreamItem::End, &mut out)?;
    Ok(lines(out))
}

/// `items` written out as [`run`] writes them.
pub fn lines(items: Vec<StreamItem>) -> Vec<String> {
    let mut lines = Vec::new();
    for item in items {
        match item {
            StreamItem::Chunk(chunk) => {
                for row in 0..chunk.num_rows() {
                    let kind = chunk.kinds.as_ref().map_or(RowKind::Insert, |k| k[row]);
                    lines.push(format!("{kind}[{}]", row_text(&chunk.batch, row)));
                }
            }
            StreamItem::Watermark(FINAL_WATERMARK) => lines.push("WM end".into()),
            StreamItem::Watermark(wm) => lines.push(format!("WM {wm}")),
            StreamItem::Side(SideItem::Late(late)) => {
                for row in 0..late.batch.num_rows() {
                    let text = row_text(&late.batch, row);
                    lines.push(format!("LATE[{text}] @{}", late.watermarks[row]));
                }
            }
            StreamItem::Side(_) => {}
            StreamItem::End => lines.push("END".into()),
        }
    }
    lines
}

/// The lines of rows and late rows only: where watermarks go downstream
/// depends on where chunks end; rows and late rows do not.
pub fn rows_only(lines: Vec<String>) -> Vec<String> {
    lines.into_iter().filter(|l| !l.starts_with("WM")).collect()
}

/// Row `row` of `batch`, values separated by ", ", timestamps in ms.
fn row_text(batch: &RecordBatch, row: usize) -> String {
    let values: Vec<String> = batch
        .columns()
        .iter()
        .map(|column| {
            if column.is_null(row) {
                return "NULL".to_string();
            }
            match column.data_type() {
                DataType::Timestamp(..) => column
                    .as_primitive::<TimestampMillisecondType>()
                    .value(row)
                    .to_string(),
                _ => arrow::util::display::array_value_to_string(column, row)
                    .unwrap_or_else(|e| format!("<{e}>")),
            }
        })
        .collect();
    values.join(", ")
}

/// Rows `at..at + n` of `chunk`, as a chunk of their own.
pub fn part(chunk: &Chunk, at: usize, n: usize) -> StreamItem {
    let rows: Vec<u32> = (at as u32..(at + n) as u32).collect();
    StreamItem::Chunk(chunk.select(chunk.batch.slice(at, n), &rows))
}

/// `chunk` cut into chunks of `batch` rows (the last may be shorter).
pub fn in_chunks(chunk: &Chunk, batch: usize) -> Vec<StreamItem> {
    let n = chunk.num_rows();
    (0..n)
        .step_by(batch)
        .map(|at| part(chunk, at, batch.min(n - at)))
        .collect()
}

/// `fresh` with the state `op` saves for a checkpoint.
pub fn resumed<O: Operator>(op: &O, mut fresh: O) -> Result<O> {
    let mut w = StateWriter::new();
    op.save_state(&mut w)?;
    let bytes = w.into_bytes();
    let mut r = StateReader::new(&bytes);
    fresh.load_state(&mut r)?;
    r.finish()?;
    Ok(fresh)
}

/// The schema of the test rows labelled with their windows: `k, ts, v,
/// window_start, window_end, window_time`, every column nullable (as the
/// columns of an outer join's side are).
pub fn windowed_schema() -> SchemaRef {
    let ts = DataType::Timestamp(TimeUnit::Millisecond, None);
    let mut fields: Vec<Field> = schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    for name in ["window_start", "window_end", "window_time"] {
        fields.push(Field::new(name, ts.clone(), true));
    }
    Arc::new(Schema::new(fields))
}

/// `chunk`'s rows labelled with their `kind` windows by the window TVF, as
/// an operator after a window TVF receives them.
pub fn windowed(kind: WindowKind, chunk: Chunk) -> Result<Chunk> {
    let mut labels = WindowLabels::new(kind, 1, windowed_schema(), None)?;
    let mut out = Vec::new();
    labels.process(StreamItem::Chunk(chunk), &mut out)?;
    match out.pop() {
        Some(StreamItem::Chunk(labelled)) if out.is_empty() => Ok(labelled),
        _ => Err(tidemark_common::Error::Internal(
            "a window TVF gave no single chunk".into(),
        )),
    }
}

/// A small deterministic generator (xorshift): the same seed, the same
/// input, on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}
