//! Late rows: the one definition of how late a dropped row is, and the one
//! way an operator accounts for the rows it drops. Each is counted, with
//! its lateness, in the operator's numbers for the run summary, and its
//! source row goes on as a side item (to the late-row sink, or the inline
//! `LATE[...]` lines) in its place among the operator's output.
//!
//! Which rows are late is each operator's rule (spec §5 and §4: every
//! window cleaned up, the window fired, the key emitted past it); what
//! happens to a late row is decided here only.

use crate::ops::operator::OperatorMetrics;
use crate::runtime::stream::{AcceptedRow, Chunk, LateRows, SideItem, SourceTable};
use arrow::array::{RecordBatch, UInt32Array};
use std::sync::Arc;
use tidemark_common::Result;

/// How late a dropped row is: how far the watermark it met had passed its
/// time attribute (for the rows of a window TVF, their `window_time`), in
/// ms. A dropped row never has a time after the watermark it met, so this
/// is never negative; it is clamped so that no rule of an operator can make
/// the summary's figures say otherwise.
pub fn lateness(watermark: i64, rowtime: i64) -> i64 {
    watermark.saturating_sub(rowtime).max(0)
}

/// The rows an operator dropped as late and has not sent on yet.
/// Consecutive drops from one chunk go out as one side item, so a replay
/// with many late rows does not build a batch per row.
pub struct LateBook {
    operator: &'static str,
    reason: &'static str,
    pending: Option<PendingLate>,
}

/// Dropped rows of one source batch, waiting to go out together.
struct PendingLate {
    batch: RecordBatch,
    table: Arc<SourceTable>,
    rows: Vec<u32>,
    watermarks: Vec<i64>,
    arrivals: Vec<u64>,
}

impl LateBook {
    /// The book of operator `operator`, whose late rows go out with
    /// `reason` (the `late_reason` of late-row sinks).
    pub fn new(operator: &'static str, reason: &'static str) -> Self {
        LateBook {
            operator,
            reason,
            pending: None,
        }
    }

    /// Drops row `row` of `chunk`, whose time attribute is `rowtime`, as
    /// late: it is counted with its lateness in `metrics`, and its source
    /// row is kept to go out (when the chunk knows its source rows, which
    /// it does when late rows are routed somewhere). Rows pending from
    /// another source batch are returned to go out first.
    pub fn drop_row(
        &mut self,
        metrics: &mut OperatorMetrics,
        chunk: &Chunk,
        row: usize,
        rowtime: i64,
    ) -> Result<Option<SideItem>> {
        let watermark = chunk.watermarks[row];
        metrics.late_rows += 1;
        metrics.lateness.push(lateness(watermark, rowtime));
        let Some(origin) = &chunk.origin else {
            return Ok(None);
        };
        let other_batch = self.pending.as_ref().is_some_and(|p| {
            !Arc::ptr_eq(&p.table, &origin.table) || !same_batch(&p.batch, &origin.batch)
        });
        let closed = if other_batch { self.take()? } else { None };
        let pending = self.pending.get_or_insert_with(|| PendingLate {
            batch: origin.batch.clone(),
            table: origin.table.clone(),
            rows: Vec::new(),
            watermarks: Vec::new(),
            arrivals: Vec::new(),
        });
        pending.rows.push(origin.rows[row]);
        pending.watermarks.push(watermark);
        if let Some(arrival) = origin.arrival(row) {
            pending.arrivals.push(arrival);
        }
        Ok(closed)
    }

    /// The operator whose book this is.
    pub fn operator(&self) -> &'static str {
        self.operator
    }

    /// The rows dropped since the last call, as one side item.
    pub fn take(&mut self) -> Result<Option<SideItem>> {
        let Some(pending) = self.pending.take() else {
            return Ok(None);
        };
        let indices = UInt32Array::from(pending.rows);
        Ok(Some(SideItem::Late(LateRows {
            batch: arrow::compute::take_record_batch(&pending.batch, &indices)?,
            table: pending.table,
            operator: self.operator,
            watermarks: pending.watermarks,
            reason: self.reason,
            arrivals: pending.arrivals,
        })))
    }
}

/// Row `row` of `chunk`, behind the watermark, was added within the
/// allowed lateness by `operator` (its windows fire again): it is counted
/// in `metrics`, and when a run report records arrivals, it is told so.
pub fn accept_row(
    metrics: &mut OperatorMetrics,
    operator: &'static str,
    chunk: &Chunk,
    row: usize,
) -> Option<SideItem> {
    metrics.late_rows_accepted += 1;
    let origin = chunk.origin.as_ref()?;
    Some(SideItem::Accepted(AcceptedRow {
        table: origin.table.clone(),
        arrival: origin.arrival(row)?,
        rowtime: origin
            .table
            .rowtime_of(&origin.batch, origin.rows[row] as usize),
        operator,
        watermark: chunk.watermarks[row],
    }))
}

/// Whether two batches are the same batch, not merely equal ones: a
/// chunk's source batch is shared, never copied, along the pipeline.
fn same_batch(a: &RecordBatch, b: &RecordBatch) -> bool {
    a.num_rows() == b.num_rows()
        && a.num_columns() == b.num_columns()
        && a.columns()
            .iter()
            .zip(b.columns())
            .all(|(x, y)| Arc::ptr_eq(x, y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::stream::Origin;
    use arrow::array::{AsArray, Int64Array};
    use arrow::datatypes::Int64Type;

    /// A chunk of rows `values` (their rowtimes) that met `watermarks`,
    /// whose source rows are known, in reverse order of the chunk's rows.
    fn routed_chunk(values: &[i64], watermarks: &[i64]) -> Chunk {
        let batch =
            RecordBatch::try_from_iter([("ts", Arc::new(Int64Array::from(values.to_vec())) as _)])
                .expect("valid test batch");
        let source = RecordBatch::try_from_iter([(
            "raw",
            Arc::new(Int64Array::from_iter_values(values.iter().rev().copied())) as _,
        )])
        .expect("valid test batch");
        let mut chunk = Chunk::new(batch, watermarks.to_vec());
        chunk.origin = Some(Origin {
            batch: source,
            rows: (0..values.len() as u32).rev().collect(),
            table: Arc::new(SourceTable {
                name: "events".into(),
                types: vec![],
                rowtime: None,
            }),
            arrivals: std::sync::Arc::from([]),
        });
        chunk
    }

    #[test]
    fn lateness_is_how_far_the_watermark_had_passed_the_row() {
        assert_eq!(lateness(10_000, 4_000), 6_000);
        assert_eq!(lateness(4_000, 4_000), 0);
        // Never negative, and no overflow at the ends of time.
        assert_eq!(lateness(1, 5), 0);
        assert_eq!(lateness(i64::MAX, i64::MIN), i64::MAX);
    }

    #[test]
    fn dropped_rows_are_counted_and_go_out_together_as_their_source_rows() -> Result<()> {
        let chunk = routed_chunk(&[1, 2, 3], &[5, 6, 9]);
        let mut book = LateBook::new("WindowAggregate", "every window was cleaned up");
        let mut metrics = OperatorMetrics::default();
        assert!(book.drop_row(&mut metrics, &chunk, 0, 1)?.is_none());
        assert!(book.drop_row(&mut metrics, &chunk, 2, 3)?.is_none());
        assert_eq!(metrics.late_rows, 2);
        assert_eq!(metrics.lateness.max(), Some(6));
        let Some(SideItem::Late(late)) = book.take()? else {
            panic!("the dropped rows go out");
        };
        // The source rows of chunk rows 0 and 2, with their watermarks.
        let raw = late.batch.column(0).as_primitive::<Int64Type>();
        assert_eq!(raw.values().to_vec(), [1, 3]);
        assert_eq!(late.watermarks, [5, 9]);
        assert_eq!(late.operator, "WindowAggregate");
        assert!(book.take()?.is_none(), "nothing goes out twice");
        Ok(())
    }

    #[test]
    fn rows_of_another_chunk_close_what_is_pending() -> Result<()> {
        let (a, b) = (routed_chunk(&[1], &[5]), routed_chunk(&[2], &[7]));
        let mut book = LateBook::new("OverAggregate", "its key emitted past it");
        let mut metrics = OperatorMetrics::default();
        assert!(book.drop_row(&mut metrics, &a, 0, 1)?.is_none());
        let Some(SideItem::Late(first)) = book.drop_row(&mut metrics, &b, 0, 2)? else {
            panic!("the first chunk's row goes out first");
        };
        assert_eq!(first.watermarks, [5]);
        let Some(SideItem::Late(second)) = book.take()? else {
            panic!("the second chunk's row goes out");
        };
        assert_eq!(second.watermarks, [7]);
        Ok(())
    }

    #[test]
    fn without_source_rows_late_rows_are_only_counted() -> Result<()> {
        let batch = RecordBatch::try_from_iter([("ts", Arc::new(Int64Array::from(vec![1])) as _)])
            .expect("valid test batch");
        let chunk = Chunk::new(batch, vec![3]);
        let mut book = LateBook::new("WindowRank", "its window was already ranked");
        let mut metrics = OperatorMetrics::default();
        assert!(book.drop_row(&mut metrics, &chunk, 0, 1)?.is_none());
        assert!(book.take()?.is_none());
        assert_eq!((metrics.late_rows, metrics.lateness.max()), (1, Some(2)));
        Ok(())
    }
}
