//! What operators pass to each other: chunks of rows that carry, per row,
//! the watermark in force before the row arrived, and watermark advances.
//!
//! Carrying the per-row watermark lets every operator reproduce exactly the
//! row-at-a-time outcome (which rows are late, which windows fire before
//! which row) while still working on whole Arrow batches.

use arrow::array::RecordBatch;
use std::sync::Arc;
use tidemark_common::RowKind;

/// Rows with their arrival watermarks and, for a changelog, their kinds.
#[derive(Clone, Debug)]
pub struct Chunk {
    pub batch: RecordBatch,
    /// `watermarks[i]`: the watermark in force just before row `i` arrived;
    /// non-decreasing.
    pub watermarks: Vec<i64>,
    /// The row kinds; `None` means every row is an insert.
    pub kinds: Option<Vec<RowKind>>,
    /// The source rows these rows came from, when late rows are routed
    /// somewhere (they are routed as their source table's rows).
    pub origin: Option<Origin>,
    /// Which input of a two-input operator (a window join) the rows are.
    pub input: u8,
}

/// The source rows a chunk's rows came from.
#[derive(Clone, Debug)]
pub struct Origin {
    /// Rows of the source table, as it declares them.
    pub batch: RecordBatch,
    /// For each row of the chunk, its row in `batch`. Shared, so that a
    /// step that keeps every row (a projection) copies nothing.
    pub rows: Arc<[u32]>,
    pub table: Arc<SourceTable>,
    /// For each row of the chunk, its arrival number in its source's
    /// stream, when a run report records them; else empty.
    pub arrivals: Arc<[u64]>,
}

impl Origin {
    /// Rows `rows` of this origin (as [`Chunk::select`]).
    fn pick(&self, rows: &[u32]) -> Self {
        let pick = |values: &[u64]| -> Arc<[u64]> {
            if values.is_empty() {
                Arc::from([])
            } else {
                rows.iter().map(|r| values[*r as usize]).collect()
            }
        };
        Origin {
            batch: self.batch.clone(),
            rows: rows.iter().map(|r| self.rows[*r as usize]).collect(),
            table: self.table.clone(),
            arrivals: pick(&self.arrivals),
        }
    }

    /// The arrival number of the chunk's row `row`, when recorded.
    pub fn arrival(&self, row: usize) -> Option<u64> {
        self.arrivals.get(row).copied()
    }
}

/// A source table, as late rows name it.
#[derive(Debug)]
pub struct SourceTable {
    pub name: String,
    pub types: Vec<tidemark_common::SqlType>,
    /// The column of its time attribute, if it has one.
    pub rowtime: Option<usize>,
}

impl SourceTable {
    /// The time attribute of row `row` of `batch` (rows of this table).
    pub fn rowtime_of(&self, batch: &RecordBatch, row: usize) -> Option<i64> {
        use arrow::array::{Array, AsArray};
        let column = batch.columns().get(self.rowtime?)?;
        let times = column.as_primitive_opt::<arrow::datatypes::TimestampMillisecondType>()?;
        times.is_valid(row).then(|| times.value(row))
    }
}

impl Chunk {
    pub fn new(batch: RecordBatch, watermarks: Vec<i64>) -> Self {
        debug_assert_eq!(batch.num_rows(), watermarks.len());
        Chunk {
            batch,
            watermarks,
            kinds: None,
            origin: None,
            input: 0,
        }
    }

    /// `batch`, made of rows `rows` of this chunk (a filter, a window TVF
    /// repeating rows), with their watermarks, kinds and origins.
    pub fn select(&self, batch: RecordBatch, rows: &[u32]) -> Self {
        fn pick<T: Copy>(values: &[T], rows: &[u32]) -> Vec<T> {
            rows.iter().map(|r| values[*r as usize]).collect()
        }
        Chunk {
            batch,
            watermarks: pick(&self.watermarks, rows),
            kinds: self.kinds.as_ref().map(|k| pick(k, rows)),
            origin: self.origin.as_ref().map(|o| o.pick(rows)),
            input: self.input,
        }
    }

    /// Rows `start .. start + len`.
    pub fn slice(&self, start: usize, len: usize) -> Self {
        Chunk {
            batch: self.batch.slice(start, len),
            watermarks: self.watermarks[start..start + len].to_vec(),
            kinds: self.kinds.as_ref().map(|k| k[start..start + len].to_vec()),
            origin: self.origin.as_ref().map(|o| Origin {
                batch: o.batch.clone(),
                rows: o.rows[start..start + len].into(),
                table: o.table.clone(),
                arrivals: o
                    .arrivals
                    .get(start..start + len)
                    .map_or_else(|| Arc::from([]), Arc::from),
            }),
            input: self.input,
        }
    }

    pub fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    pub fn kind(&self, row: usize) -> RowKind {
        self.kinds.as_ref().map_or(RowKind::Insert, |k| k[row])
    }

    /// The same rows with other columns (a projection).
    pub fn with_batch(&self, batch: RecordBatch) -> Self {
        Chunk {
            batch,
            watermarks: self.watermarks.clone(),
            kinds: self.kinds.clone(),
            origin: self.origin.clone(),
            input: self.input,
        }
    }
}

/// What travels beside the changelog, in order with it, so that what a
/// user sees of it is the same at every batch size.
#[derive(Clone, Debug)]
pub enum SideItem {
    /// One event of the trace (`SET 'tidemark.trace' = 'true'`, or a run
    /// report): the line printed for it, and what it says in numbers.
    Trace(crate::time::trace::TraceRecord),
    /// Rows a window operator added to no window.
    Late(LateRows),
    /// Input rows a source skipped: malformed (with ignore-parse-errors)
    /// or without a rowtime.
    Bad(BadRows),
    /// A late row a window took within the allowed lateness; only when a
    /// run report records arrivals.
    Accepted(AcceptedRow),
}

/// Rows of one source file that could not be read or placed in time.
#[derive(Clone, Debug)]
pub struct BadRows {
    pub source: String,
    pub file: String,
    pub rows: Vec<BadRow>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRow {
    /// 1-based line in the file.
    pub line: u64,
    /// The row's text as read.
    pub raw: String,
    pub error: String,
}

/// Late rows as they left their source table, and why they were dropped.
#[derive(Clone, Debug)]
pub struct LateRows {
    /// The rows, with the source table's columns.
    pub batch: RecordBatch,
    pub table: Arc<SourceTable>,
    /// The operator that dropped them.
    pub operator: &'static str,
    /// The watermark each row was judged against.
    pub watermarks: Vec<i64>,
    pub reason: &'static str,
    /// Each row's arrival number in its source's stream, when a run
    /// report records them; else empty.
    pub arrivals: Vec<u64>,
}

/// A late row added within the allowed lateness (its window fired again),
/// for a run report: which row, and who took it.
#[derive(Clone, Debug)]
pub struct AcceptedRow {
    pub table: Arc<SourceTable>,
    /// Its arrival number in its source's stream.
    pub arrival: u64,
    pub rowtime: Option<i64>,
    pub operator: &'static str,
    pub watermark: i64,
}

#[derive(Clone, Debug)]
pub enum StreamItem {
    Chunk(Chunk),
    /// Trace events and late rows, in order among the chunks.
    Side(SideItem),
    /// The watermark advanced to this instant (`i64::MAX` at end of input).
    Watermark(i64),
    /// The input ended; nothing follows.
    End,
}
