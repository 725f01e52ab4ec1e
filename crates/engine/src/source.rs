//! A declared table as a stream: reads its connector, computes computed
//! columns, drops (and counts) rows that cannot be placed in time, and
//! assigns the watermark row by row.

use crate::csv_source::{CsvOptions, CsvSource, CsvStats};
use crate::eval::{evaluate, EvalContext};
use crate::stream::{Chunk, StreamItem};
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{SchemaRef, TimestampMillisecondType};
use std::path::PathBuf;
use std::sync::Arc;
use tidemark_common::catalog::TableDef;
use tidemark_common::time::{FINAL_WATERMARK, NO_WATERMARK};
use tidemark_common::{Error, Result, SqlType};

/// What a source reports for the run summary.
#[derive(Clone, Debug, Default)]
pub struct SourceMetrics {
    pub table: String,
    pub rows_read: u64,
    /// Rows skipped because their rowtime is NULL or unparsable.
    pub rows_without_rowtime: u64,
    pub csv: CsvStats,
    pub watermark: i64,
}

pub struct TableSource {
    table: Arc<TableDef>,
    reader: CsvSource,
    schema: SchemaRef,
    ctx: EvalContext,
    ignore_parse_errors: bool,
    display_path: String,
    watermark: i64,
    rows_without_rowtime: u64,
    done: bool,
}

impl TableSource {
    pub fn open(table: Arc<TableDef>, batch_size: usize, ctx: EvalContext) -> Result<Self> {
        let path_text = table
            .option("path")
            .ok_or_else(|| Error::Internal(format!("table {} has no path", table.name)))?
            .to_string();
        let path = PathBuf::from(&path_text);
        let full = if path.is_absolute() { path } else { table.base_dir.join(path) };
        let options = CsvOptions::from_options(&table.options)?;
        let ignore_parse_errors = table.option("csv.ignore-parse-errors") == Some("true");
        let columns = table.schema.fields[..table.physical]
            .iter()
            .map(|f| (f.name.clone(), f.ty.clone()))
            .collect();
        let reader = CsvSource::open(&full, path_text.clone(), columns, options, batch_size)?;
        Ok(TableSource {
            schema: table.schema.to_arrow(),
            table,
            reader,
            ctx,
            ignore_parse_errors,
            display_path: path_text,
            watermark: NO_WATERMARK,
            rows_without_rowtime: 0,
            done: false,
        })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    pub fn metrics(&self) -> SourceMetrics {
        let csv = self.reader.stats();
        SourceMetrics {
            table: self.table.name.clone(),
            rows_read: csv.rows_read,
            rows_without_rowtime: self.rows_without_rowtime,
            csv,
            watermark: self.watermark,
        }
    }

    /// The next items: a chunk and the watermark after it; at the end the
    /// final watermark and `End`. `None` once `End` was returned.
    pub fn next_items(&mut self, out: &mut Vec<StreamItem>) -> Result<bool> {
        if self.done {
            return Ok(false);
        }
        loop {
            let Some(csv) = self.reader.next_batch()? else {
                self.done = true;
                self.watermark = FINAL_WATERMARK;
                out.push(StreamItem::Watermark(FINAL_WATERMARK));
                out.push(StreamItem::End);
                return Ok(true);
            };
            let mut columns: Vec<ArrayRef> = csv.batch.columns().to_vec();
            for expr in &self.table.computed {
                columns.push(evaluate(expr, &csv.batch, &self.ctx)?);
            }
            let mut batch = RecordBatch::try_new(self.schema.clone(), columns)?;
            let Some(wm) = &self.table.watermark else {
                let n = batch.num_rows();
                out.push(StreamItem::Chunk(Chunk::new(batch, vec![self.watermark; n])));
                return Ok(true);
            };
            let rowtime = batch.column(wm.column);
            if rowtime.null_count() > 0 {
                if !self.ignore_parse_errors {
                    let i = (0..rowtime.len()).find(|&i| rowtime.is_null(i)).unwrap_or(0);
                    let field = &self.table.schema.field(wm.column).name;
                    return Err(Error::Input(format!(
                        "{}:{}: field '{field}': the rowtime is NULL, so the row cannot be placed in time",
                        self.display_path, csv.lines[i]
                    )));
                }
                self.rows_without_rowtime += rowtime.null_count() as u64;
                let mask = arrow::compute::is_not_null(rowtime)?;
                batch = filter_record_batch(&batch, &mask)?;
            }
            let n = batch.num_rows();
            if n == 0 {
                continue;
            }
            let marks = evaluate(&wm.expr, &batch, &self.ctx)?;
            let marks = marks.as_primitive::<TimestampMillisecondType>();
            let mut before = Vec::with_capacity(n);
            let mut current = self.watermark;
            for i in 0..n {
                before.push(current);
                if marks.is_valid(i) {
                    current = current.max(marks.value(i));
                }
            }
            out.push(StreamItem::Chunk(Chunk::new(batch, before)));
            if current > self.watermark {
                self.watermark = current;
                out.push(StreamItem::Watermark(current));
            }
            return Ok(true);
        }
    }
}

/// The SQL types of a table's columns, physical then computed.
pub fn column_types(table: &TableDef) -> Vec<SqlType> {
    table.schema.fields.iter().map(|f| f.ty.clone()).collect()
}
