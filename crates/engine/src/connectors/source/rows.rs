//! A batch read from a split into the stream's items: computed columns,
//! rows without a rowtime, the split's watermark before each row, and
//! skipped rows among the rows in file order.

use super::*;

impl TableSource {
    /// The table's columns from a batch read; `proc_times` holds the
    /// processing time of each row, for `PROCTIME()` columns.
    pub(super) fn with_computed(
        &self,
        read: &RecordBatch,
        proc_times: &[i64],
    ) -> Result<RecordBatch> {
        self.layout.columns(read, proc_times, &self.ctx)
    }

    /// Pushes `chunk` (its rows at `lines`) with the skipped rows `bad`
    /// among them in file order, so that what a sink sees of them does not
    /// depend on the batch size: before a skipped row goes the watermark
    /// the rows before it reached (`after`: the one after the whole chunk),
    /// as it would row by row. Empty chunks are not pushed.
    pub(super) fn push_among_bad_rows(
        &self,
        split: usize,
        chunk: Chunk,
        lines: &[u64],
        mut bad: Vec<BadRow>,
        after: Option<i64>,
        out: &mut Vec<StreamItem>,
    ) {
        let mut told = self.splits[split].watermark;
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
                file: self.splits[split].split.name.clone(),
                rows: rest[..run].to_vec(),
            })));
            rest = &rest[run..];
        }
        if chunk.num_rows() > pos {
            out.push(StreamItem::Chunk(chunk.slice(pos, chunk.num_rows() - pos)));
        }
    }

    pub(super) fn with_origin(&self, mut chunk: Chunk) -> Chunk {
        if let Some(table) = &self.origin {
            chunk.origin = Some(Origin {
                batch: chunk.batch.clone(),
                rows: (0..chunk.num_rows() as u32).collect(),
                table: table.clone(),
                arrivals: std::sync::Arc::from([]),
            });
        }
        chunk
    }

    /// Turns a batch read from split `k` into its items: chunks of rows
    /// with the split's watermark before each row, skipped rows among
    /// them, and the split's watermark after them. False when the split
    /// has nothing for now.
    pub(super) fn read_batch(
        &mut self,
        k: usize,
        csv: crate::runtime::read::ReadBatch,
        out: &mut Vec<StreamItem>,
    ) -> Result<bool> {
        let (mut batch, mut lines) = (csv.batch, csv.lines);
        let (raw, mut bad) = (csv.raw, csv.skipped);
        if batch.num_rows() == 0 && bad.is_empty() {
            // An unbounded input with nothing for now.
            return Ok(false);
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
                self.splits[k].pending_error = Some(e);
                lines.truncate(i);
                self.with_computed(&batch.slice(0, i), &proc_times[..i])?
            }
        };
        batch = full;
        let Some(wm) = &self.table.watermark else {
            let n = batch.num_rows();
            let watermark = self.splits[k].watermark;
            let chunk = self.with_origin(Chunk::new(batch, vec![watermark; n]));
            self.push_among_bad_rows(k, chunk, &lines, bad, None, out);
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
                let why = match self.table.computed(wm.column) {
                        Some(computed) => format!(
                            " ('{field}' is {computed}, which is NULL when its input is NULL or out of range, as an epoch in micro- or nanoseconds read as milliseconds is)"
                        ),
                        None => String::new(),
                    };
                let err = Error::Input(format!(
                        "{}:{}: field '{field}': the rowtime is NULL, so the row cannot be placed in time{why}",
                        self.splits[k].split.name, lines[i]
                    ));
                if i == 0 {
                    return Err(err);
                }
                self.splits[k].pending_error = Some(err);
                batch = batch.slice(0, i);
            }
        }
        let n = batch.num_rows();
        if n == 0 {
            if !bad.is_empty() {
                let empty = Chunk::new(batch, Vec::new());
                self.push_among_bad_rows(k, empty, &[], bad, None, out);
            }
            // No rows left: the lane reads on.
            return Ok(true);
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
        let mut current = self.splits[k].watermark;
        for i in 0..n {
            before.push(current);
            if marks.is_valid(i) {
                current = current.max(marks.value(i));
            }
        }
        let chunk = self.with_origin(Chunk::new(batch, before));
        self.push_among_bad_rows(k, chunk, &lines, bad, Some(current), out);
        if current > self.splits[k].watermark {
            self.splits[k].watermark = current;
            out.push(StreamItem::Watermark(current));
        }
        Ok(true)
    }
}
