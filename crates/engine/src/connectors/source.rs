//! A declared table as a stream: reads its connector, computes computed
//! columns, drops (and counts) rows that cannot be placed in time, and
//! assigns the watermark row by row.

use super::filesystem::parallel::ParallelRead;
use super::split::Split;
use super::SourceSpec;
use crate::expr::eval::{evaluate, EvalContext};
use crate::runtime::read::{ReadPosition, ReadStats};
use crate::runtime::snapshot::{StateReader, StateWriter};
use crate::runtime::stream::{BadRow, BadRows, Chunk, Origin, SideItem, SourceTable, StreamItem};
use crate::time::clock::Clock;
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{SchemaRef, TimestampMillisecondType};
use std::sync::Arc;
use tidemark_common::catalog::TableDef;
use tidemark_common::expr::{Expr, ScalarFunction};
use tidemark_common::time::{FINAL_WATERMARK, NO_WATERMARK};
use tidemark_common::{Error, Result};

/// What a source reports for the run summary.
#[derive(Clone, Debug, Default)]
pub struct SourceMetrics {
    pub table: String,
    pub rows_read: u64,
    /// Rows skipped because their rowtime is NULL or unparsable.
    pub rows_without_rowtime: u64,
    pub csv: ReadStats,
    pub watermark: i64,
    /// The earliest and latest rowtime read, if the table has one.
    pub rowtimes: Option<(i64, i64)>,
    /// The table's watermark delay, when its watermark is `rowtime - d`.
    pub watermark_delay: Option<i64>,
}

pub struct TableSource {
    table: Arc<TableDef>,
    /// The table's splits, read one after another in order.
    splits: Vec<Split>,
    /// The split being read: those before it have ended.
    current: usize,
    schema: SchemaRef,
    ctx: EvalContext,
    ignore_parse_errors: bool,
    display_path: String,
    watermark: i64,
    rows_without_rowtime: u64,
    done: bool,
    /// The input was ended early ([`TableSource::stop_input`]).
    stopped: bool,
    /// An error found after some rows of a batch: raised on the next call,
    /// once those rows have gone out.
    pending_error: Option<Error>,
    /// Processing time, for `PROCTIME()` columns.
    clock: Clock,
    /// Set when late rows are routed: chunks then say which source rows
    /// they hold.
    origin: Option<Arc<SourceTable>>,
    rowtimes: Option<(i64, i64)>,
}

impl TableSource {
    /// Opens `table` through its connector; a file that is read to its
    /// end is parsed as `parallel` says (in file order all the same).
    pub fn open(
        table: Arc<TableDef>,
        batch_size: usize,
        parallel: ParallelRead,
        ctx: EvalContext,
        clock: Clock,
    ) -> Result<Self> {
        let columns: Vec<(String, tidemark_common::SqlType)> = table.schema.fields
            [..table.physical]
            .iter()
            .map(|f| (f.name.clone(), f.ty.clone()))
            .collect();
        let opened = super::opening(&table)?.open_source(SourceSpec {
            table: &table,
            columns,
            batch_size,
            parallel,
            clock: clock.clone(),
        })?;
        Ok(Self::with_splits(
            table,
            opened.splits,
            ctx,
            clock,
            opened.ignore_parse_errors,
            opened.display,
        ))
    }

    fn with_splits(
        table: Arc<TableDef>,
        mut splits: Vec<Split>,
        ctx: EvalContext,
        clock: Clock,
        ignore_parse_errors: bool,
        display_path: String,
    ) -> Self {
        for split in &mut splits {
            split.reader.set_time_zone(ctx.time_zone);
        }
        TableSource {
            schema: table.schema.to_arrow(),
            table,
            splits,
            current: 0,
            ctx,
            ignore_parse_errors,
            display_path,
            watermark: NO_WATERMARK,
            rows_without_rowtime: 0,
            done: false,
            stopped: false,
            pending_error: None,
            clock,
            origin: None,
            rowtimes: None,
        }
    }

    /// Why this table cannot be checkpointed, if it cannot: only files
    /// read on one thread can be read again from a position.
    pub fn checkpoint_blocker(&self) -> Option<Error> {
        let what = self.splits.iter().find_map(|s| s.reader.unpositioned())?;
        Some(
            Error::plan(
                format!(
                    "checkpointing covers tables read from files: table {} reads {what}",
                    self.table.name
                ),
                tidemark_common::Span::default(),
            )
            .with_hint("run the query without 'execution.checkpointing.dir'"),
        )
    }

    /// Keeps what checkpoints need of the reading: a checksum of the bytes
    /// read (called before the first read).
    pub fn track_position(&mut self) {
        for split in &mut self.splits {
            split.reader.track_position();
        }
    }

    /// Whether the source stands between two batches with nothing waiting
    /// (no error to report, the input not ended): a checkpoint can be taken.
    pub fn at_checkpoint_point(&self) -> bool {
        self.splits.iter().all(|s| s.reader.between_batches())
            && self.pending_error.is_none()
            && !self.stopped
    }

    /// Writes where the source stands for a checkpoint: each split's name
    /// and position (with a checksum of the bytes before it, so that a
    /// changed file is noticed on resume), which split is being read, the
    /// watermark and counts.
    pub fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.splits.len() as u64);
        for split in &self.splits {
            let Some(position) = split.reader.position() else {
                return Err(self.checkpoint_blocker().unwrap_or_else(|| {
                    Error::Internal("a checkpoint between two batches of a source".into())
                }));
            };
            w.put(&split.name);
            w.put(&position);
        }
        w.put(&(self.current as u64));
        w.put(&self.done);
        w.put(&self.watermark);
        w.put(&self.rows_without_rowtime);
        w.put(&self.rowtimes);
        w.put(&match self.clock {
            Clock::Fake { rows, .. } => Some(rows),
            Clock::System => None,
        });
        Ok(())
    }

    /// Reads what [`TableSource::save_state`] wrote, and goes on reading
    /// each split from the position saved: the table must read the splits
    /// the checkpoint read, by name.
    pub fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        if let Some(blocker) = self.checkpoint_blocker() {
            return Err(blocker);
        }
        let saved = r.count()?;
        let mut positions = Vec::with_capacity(saved);
        for _ in 0..saved {
            let name: String = r.get()?;
            let position: ReadPosition = r.get()?;
            positions.push((name, position));
        }
        let names = |names: Vec<&str>| names.join(", ");
        let now: Vec<&str> = self.splits.iter().map(|s| s.name.as_str()).collect();
        let then: Vec<&str> = positions.iter().map(|(n, _)| n.as_str()).collect();
        if now != then {
            return Err(Error::Input(format!(
                "table {}: the checkpoint was taken reading {}, but the table now reads {}",
                self.table.name,
                names(then),
                names(now)
            )));
        }
        for (split, (_, position)) in self.splits.iter_mut().zip(&positions) {
            split.reader.resume(position)?;
        }
        let current: u64 = r.get()?;
        self.current = usize::try_from(current)
            .ok()
            .filter(|c| *c <= self.splits.len())
            .ok_or_else(|| crate::runtime::snapshot::corrupt("a source's split is out of range"))?;
        self.done = r.get()?;
        self.watermark = r.get()?;
        self.rows_without_rowtime = r.get()?;
        self.rowtimes = r.get()?;
        let clock_rows: Option<i64> = r.get()?;
        if let (Clock::Fake { rows, .. }, Some(saved)) = (&mut self.clock, clock_rows) {
            *rows = saved;
        }
        Ok(())
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The physical columns followed by the computed ones; `proc_times`
    /// holds the processing time of each row, for `PROCTIME()` columns.
    fn with_computed(&self, physical: &RecordBatch, proc_times: &[i64]) -> Result<RecordBatch> {
        let mut columns: Vec<ArrayRef> = physical.columns().to_vec();
        for expr in &self.table.computed {
            if let Expr::Function {
                func: ScalarFunction::ProcTime,
                ..
            } = expr
            {
                let times = arrow::array::TimestampMillisecondArray::from(proc_times.to_vec())
                    .with_timezone(tidemark_common::LTZ_ARROW_TZ);
                columns.push(Arc::new(times));
                continue;
            }
            columns.push(evaluate(expr, physical, &self.ctx)?);
        }
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(physical.num_rows())),
        )?)
    }

    pub fn metrics(&self) -> SourceMetrics {
        let csv = self
            .splits
            .iter()
            .map(|s| s.reader.stats())
            .fold(ReadStats::default(), |sum, s| sum.plus(&s));
        SourceMetrics {
            table: self.table.name.clone(),
            rows_read: csv.rows_read,
            rows_without_rowtime: self.rows_without_rowtime,
            csv,
            watermark: self.watermark,
            rowtimes: self.rowtimes,
            watermark_delay: self
                .table
                .watermark
                .as_ref()
                .and_then(|w| watermark_delay(&w.expr, w.column)),
        }
    }

    /// The next items: a chunk and the watermark after it; at the end the
    /// final watermark and `End`. `None` once `End` was returned.
    pub fn next_items(&mut self, out: &mut Vec<StreamItem>) -> Result<bool> {
        // Data errors name the table as well as the file, line and field.
        self.next_items_inner(out).map_err(|e| match e {
            Error::Input(m) => Error::Input(format!("table {}: {m}", self.table.name)),
            Error::Io { context, source } => Error::Io {
                context: format!("table {}: {context}", self.table.name),
                source,
            },
            other => other,
        })
    }

    /// Ends the input here, as if it had no more rows: the final
    /// watermark follows at the next read (a drained stop).
    pub fn stop_input(&mut self) {
        self.stopped = true;
    }

    /// Keep the rows skipped as malformed or without rowtime, for a
    /// bad-records sink: they travel among the chunks as side items.
    pub fn keep_bad_rows(&mut self) {
        for split in &mut self.splits {
            split.reader.keep_raw();
        }
    }

    /// Pushes `chunk` (its rows at `lines`) with the skipped rows `bad`
    /// among them in file order, so that what a sink sees of them does not
    /// depend on the batch size: before a skipped row goes the watermark
    /// the rows before it reached (`after`: the one after the whole chunk),
    /// as it would row by row. Empty chunks are not pushed.
    fn push_among_bad_rows(
        &self,
        chunk: Chunk,
        lines: &[u64],
        mut bad: Vec<BadRow>,
        after: Option<i64>,
        out: &mut Vec<StreamItem>,
    ) {
        let mut told = self.watermark;
        bad.sort_by_key(|b| b.line);
        let mut pos = 0;
        let mut rest = bad.as_slice();
        while let Some(first) = rest.first() {
            let upto = pos + lines[pos..].partition_point(|l| *l < first.line);
            if upto > pos {
                out.push(StreamItem::Chunk(chunk.slice(pos, upto - pos)));
            }
            pos = upto;
            let reached = match (chunk.watermarks.get(pos), after) {
                (Some(w), Some(_)) => Some(*w),
                (None, after) => after,
                (Some(_), None) => None,
            };
            if let Some(w) = reached.filter(|w| *w > told) {
                told = w;
                out.push(StreamItem::Watermark(w));
            }
            let next_line = lines.get(pos).copied().unwrap_or(u64::MAX);
            let run = rest.partition_point(|b| b.line < next_line);
            out.push(StreamItem::Side(SideItem::Bad(BadRows {
                source: self.table.name.clone(),
                file: self.display_path.clone(),
                rows: rest[..run].to_vec(),
            })));
            rest = &rest[run..];
        }
        if chunk.num_rows() > pos {
            out.push(StreamItem::Chunk(chunk.slice(pos, chunk.num_rows() - pos)));
        }
    }

    /// Chunks will say which source rows they hold, so that late rows
    /// can be routed as rows of this table.
    pub fn keep_origin(&mut self) {
        self.origin = Some(Arc::new(SourceTable {
            name: self.table.name.clone(),
            types: self
                .table
                .schema
                .fields
                .iter()
                .map(|f| f.ty.clone())
                .collect(),
        }));
    }

    /// The table chunks name as their rows' origin, when they do.
    pub fn origin_table(&self) -> Option<Arc<SourceTable>> {
        self.origin.clone()
    }

    fn with_origin(&self, mut chunk: Chunk) -> Chunk {
        if let Some(table) = &self.origin {
            chunk.origin = Some(Origin {
                batch: chunk.batch.clone(),
                rows: (0..chunk.num_rows() as u32).collect(),
                table: table.clone(),
            });
        }
        chunk
    }

    /// The next batch of the split being read, going on to the next split
    /// at the end of one; `None` at the end of the last.
    fn next_batch(&mut self) -> Result<Option<crate::runtime::read::ReadBatch>> {
        while let Some(split) = self.splits.get_mut(self.current) {
            if let Some(batch) = split.reader.next_batch()? {
                return Ok(Some(batch));
            }
            self.current += 1;
        }
        Ok(None)
    }

    fn next_items_inner(&mut self, out: &mut Vec<StreamItem>) -> Result<bool> {
        if self.done {
            return Ok(false);
        }
        if let Some(e) = self.pending_error.take() {
            self.done = true;
            return Err(e);
        }
        loop {
            let next = if self.stopped {
                None
            } else {
                self.next_batch()?
            };
            let Some(csv) = next else {
                self.done = true;
                self.watermark = FINAL_WATERMARK;
                out.push(StreamItem::Watermark(FINAL_WATERMARK));
                out.push(StreamItem::End);
                return Ok(true);
            };
            let (mut batch, mut lines) = (csv.batch, csv.lines);
            let (raw, mut bad) = (csv.raw, csv.skipped);
            if batch.num_rows() == 0 && bad.is_empty() {
                // An unbounded input with nothing for now: hand back
                // nothing, so the query can be stopped meanwhile.
                return Ok(true);
            }
            // Computed columns; on a failing row, the rows before it go out
            // first and the error follows, whatever the batch size.
            let proc_times = self.clock.next_times(batch.num_rows());
            let full = match self.with_computed(&batch, &proc_times) {
                Ok(full) => full,
                Err(e) => {
                    let failing = (0..batch.num_rows()).find_map(|i| {
                        self.with_computed(&batch.slice(i, 1), &proc_times[i..=i])
                            .err()
                            .map(|e| (i, e))
                    });
                    let (i, e) = failing.unwrap_or((0, e));
                    if i == 0 {
                        return Err(e);
                    }
                    self.pending_error = Some(e);
                    lines.truncate(i);
                    self.with_computed(&batch.slice(0, i), &proc_times[..i])?
                }
            };
            batch = full;
            let Some(wm) = &self.table.watermark else {
                let n = batch.num_rows();
                let chunk = self.with_origin(Chunk::new(batch, vec![self.watermark; n]));
                self.push_among_bad_rows(chunk, &lines, bad, None, out);
                return Ok(true);
            };
            let rowtime = batch.column(wm.column).clone();
            if rowtime.null_count() > 0 {
                if self.ignore_parse_errors {
                    self.rows_without_rowtime += rowtime.null_count() as u64;
                    let field = &self.table.schema.field(wm.column).name;
                    for i in (0..rowtime.len()).filter(|i| rowtime.is_null(*i)) {
                        if let Some(text) = raw.get(i) {
                            bad.push(BadRow {
                                line: lines[i],
                                raw: text.clone(),
                                error: format!(
                                    "field '{field}': the rowtime is NULL or unparsable, so the row cannot be placed in time"
                                ),
                            });
                        }
                    }
                    lines = (0..rowtime.len())
                        .filter(|i| rowtime.is_valid(*i))
                        .map(|i| lines[i])
                        .collect();
                    let mask = arrow::compute::is_not_null(&rowtime)?;
                    batch = filter_record_batch(&batch, &mask)?;
                } else {
                    let i = (0..rowtime.len())
                        .find(|&i| rowtime.is_null(i))
                        .unwrap_or(0);
                    let field = &self.table.schema.field(wm.column).name;
                    let why = match wm
                        .column
                        .checked_sub(self.table.physical)
                        .and_then(|c| self.table.computed.get(c))
                    {
                        Some(computed) => format!(
                            " ('{field}' is {computed}, which is NULL when its input is NULL or out of range, as an epoch in micro- or nanoseconds read as milliseconds is)"
                        ),
                        None => String::new(),
                    };
                    let err = Error::Input(format!(
                        "{}:{}: field '{field}': the rowtime is NULL, so the row cannot be placed in time{why}",
                        self.display_path, lines[i]
                    ));
                    if i == 0 {
                        return Err(err);
                    }
                    self.pending_error = Some(err);
                    batch = batch.slice(0, i);
                }
            }
            let n = batch.num_rows();
            if n == 0 {
                if !bad.is_empty() {
                    let empty = Chunk::new(batch, Vec::new());
                    self.push_among_bad_rows(empty, &[], bad, None, out);
                    return Ok(true);
                }
                continue;
            }
            let times = batch
                .column(wm.column)
                .as_primitive::<TimestampMillisecondType>();
            if let (Some(lo), Some(hi)) = (arrow::compute::min(times), arrow::compute::max(times)) {
                self.rowtimes = Some(match self.rowtimes {
                    None => (lo, hi),
                    Some((a, b)) => (a.min(lo), b.max(hi)),
                });
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
            let chunk = self.with_origin(Chunk::new(batch, before));
            self.push_among_bad_rows(chunk, &lines, bad, Some(current), out);
            if current > self.watermark {
                self.watermark = current;
                out.push(StreamItem::Watermark(current));
            }
            return Ok(true);
        }
    }
}

/// The CRC-32 of the first `offset` bytes of `path`, read once when a run
/// resumes, to compare with the checkpoint's; fails if the file has
/// become shorter.

/// `d` when a watermark expression is `rowtime - INTERVAL d` (or the
/// rowtime itself, d = 0): the bounded out-of-orderness it allows.
fn watermark_delay(expr: &Expr, rowtime: usize) -> Option<i64> {
    match expr {
        Expr::Column { index, .. } if *index == rowtime => Some(0),
        Expr::TimestampAdd { expr, millis } if expr.as_column() == Some(rowtime) => {
            Some(millis.saturating_neg())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
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
            "t".into(),
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
}
