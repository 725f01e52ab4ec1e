//! What operators pass to each other: chunks of rows that carry, per row,
//! the watermark in force before the row arrived, and watermark advances.
//!
//! Carrying the per-row watermark lets every operator reproduce exactly the
//! row-at-a-time outcome (which rows are late, which windows fire before
//! which row) while still working on whole Arrow batches.

use arrow::array::RecordBatch;
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
}

impl Chunk {
    pub fn new(batch: RecordBatch, watermarks: Vec<i64>) -> Self {
        debug_assert_eq!(batch.num_rows(), watermarks.len());
        Chunk {
            batch,
            watermarks,
            kinds: None,
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
        }
    }
}

/// What travels beside the changelog, in order with it, so that what a
/// user sees of it is the same at every batch size.
#[derive(Clone, Debug)]
pub enum SideItem {
    /// One event of the trace (`SET 'tidemark.trace' = 'true'`), as the line
    /// printed for it.
    Trace(String),
    /// Rows a window operator added to no window.
    Late(LateRows),
}

/// Late rows as they left their source table, and why they were dropped.
#[derive(Clone, Debug)]
pub struct LateRows {
    /// The source table's columns.
    pub batch: RecordBatch,
    pub types: std::sync::Arc<[tidemark_common::SqlType]>,
    /// The source table's name.
    pub source: std::sync::Arc<str>,
    /// The operator that dropped them.
    pub operator: &'static str,
    /// The watermark each row was judged against.
    pub watermarks: Vec<i64>,
    pub reason: &'static str,
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
