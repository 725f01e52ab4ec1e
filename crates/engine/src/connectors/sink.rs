//! Sink tables: where rows go when a table is written rather than read —
//! an INSERT INTO's rows, late rows (`table.exec.late-records.sink`) and
//! skipped input rows (`table.exec.bad-records.sink`) — and how late and
//! skipped rows are laid out as a sink table's rows.
//!
//! Each connector that writes opens a [`SinkWriter`] for its tables
//! ([`super::Connector::open_sink`], through [`open_sink`]); a
//! [`TableSink`] is the open table the session holds, whatever its
//! connector.

pub use crate::connectors::filesystem::sink::StagedRename;
use crate::runtime::snapshot::{StateReader, StateWriter};
use crate::runtime::stream::{BadRows, LateRows};
use arrow::array::{ArrayRef, RecordBatch, StringArray, TimestampMillisecondArray};
use std::sync::Arc;
use tidemark_common::catalog::TableDef;
use tidemark_common::{Error, Result, RowKind, Span, SqlType};

/// What a connector writes with: one open sink table. Only `write` is
/// every writer's own; the rest is for writers that stage, commit, keep
/// rows per key or report something.
pub trait SinkWriter: Send {
    /// Writes `batch` (columns of `types`) with its row kinds; a writer
    /// for stdout returns the lines to show, so that they keep their place
    /// among the query's own output.
    fn write(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<PrintLines>;

    /// Keeps the last row per key (`key`: column positions): `+I`/`+U`
    /// replace a key's row, `-D` removes it, `-U` is left out.
    fn upsert_on(&mut self, _key: Vec<usize>) {}

    /// What the run summary says of the sink, if anything.
    fn note(&self) -> Option<String> {
        None
    }

    /// Completes the sink (a staged file is moved into place).
    fn finish(self: Box<Self>) -> Result<()> {
        Ok(())
    }

    /// Gives up a sink that wrote nothing worth keeping: what it staged is
    /// removed, even a checkpointed run's.
    fn discard(self: Box<Self>) {}

    /// Why this sink cannot take part in a checkpoint, if it cannot: what
    /// it has written cannot be taken back.
    fn checkpoint_blocker(&self, _name: &str) -> Option<Error> {
        None
    }

    /// Stages what was written so far for a checkpoint and writes where
    /// the staged output stands. By default nothing: each batch is
    /// committed as it comes.
    fn save_state(&mut self, _w: &mut StateWriter) -> Result<()> {
        Ok(())
    }

    /// Goes on from a checkpoint: what was staged is cut back to what the
    /// checkpoint staged.
    fn load_state(&mut self, _r: &mut StateReader<'_>) -> Result<()> {
        Ok(())
    }

    /// The first half of the commit at the end of a checkpointed run:
    /// everything is staged and synced; returns the renames that complete
    /// it, for the checkpoint to record before they are made.
    fn prepare_commit(&mut self) -> Result<Vec<StagedRename>> {
        Ok(Vec::new())
    }

    /// The checkpoint just written is complete: what it closed of the
    /// output (a folder's parts) is moved into place.
    fn commit_checkpoint(&mut self) -> Result<()> {
        Ok(())
    }

    /// Whether the sink commits its output in transactions, one per
    /// checkpoint (`'exactly-once'`): a checkpoint is then written as
    /// pending, [`SinkWriter::commit_epoch`] commits, and the checkpoint
    /// is confirmed.
    fn transactional(&self) -> bool {
        false
    }

    /// How long on the clock a checkpoint may wait at most: a transaction
    /// left open longer would be aborted by the brokers.
    fn checkpoint_within(&self) -> Option<std::time::Duration> {
        None
    }

    /// Commits the output of `epoch` (everything written since the last
    /// checkpoint) with its marker, and opens the next epoch's
    /// transaction. Called once the checkpoint closing it is pending.
    fn commit_epoch(&mut self, _epoch: &Epoch) -> Result<()> {
        Ok(())
    }
}

/// The output between two checkpoints of a job: epoch `number` of
/// statement `statement` ends at checkpoint `number` (spec §9). `job`
/// tells apart runs that started from the beginning, which number their
/// epochs from 1 again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Epoch {
    pub job: u64,
    pub statement: u64,
    pub number: u64,
}

/// Whether `epoch`'s output was committed to `table`, a transactional
/// sink: asked by a run that resumes from a checkpoint that was pending
/// when the job stopped. Its open transaction, if the crash left one,
/// is aborted first.
pub fn epoch_committed(table: &TableDef, epoch: &Epoch) -> Result<bool> {
    super::opening(table)?.epoch_committed(table, epoch)
}

/// Whether `table` is written in a transaction per checkpoint epoch, as
/// its connector reads its options.
pub fn is_transactional(table: &TableDef) -> Result<bool> {
    Ok(super::opening(table)?.transactional(table))
}

/// An open sink table, written by its connector's [`SinkWriter`].
pub type TableSink = Box<dyn SinkWriter>;

/// What a sink produced that the caller must show (print sinks).
pub type PrintLines = String;

/// Opens the sink table `table` through its connector. `staged` is for a
/// checkpointed run: a file is then staged under a name that does not
/// depend on the process and is kept if the run dies, so that a resumed
/// run takes it over; `Some(true)` (resuming) keeps the staged file of an
/// earlier run as it is, for [`SinkWriter::load_state`] to cut back to
/// its checkpoint, `Some(false)` starts it empty.
pub fn open_sink(table: &TableDef, staged: Option<bool>) -> Result<TableSink> {
    super::opening(table)?.open_sink(table, staged)
}

/// How late rows fill a sink table: its columns are the source table's
/// (in order, same types), plus any of the metadata columns `late_reason`,
/// `watermark` and `operator` it declares.
#[derive(Clone, Debug)]
pub struct LateLayout {
    columns: Vec<LateColumn>,
    pub types: Vec<SqlType>,
    schema: arrow::datatypes::SchemaRef,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LateColumn {
    Source(usize),
    Reason,
    Watermark,
    Operator,
}

impl LateLayout {
    /// Checks that `sink` can take late rows of `source`.
    pub fn new(sink: &TableDef, source: &TableDef, span: Span) -> Result<Self> {
        let mut columns = Vec::new();
        let mut next_source = 0;
        for field in &sink.schema.fields {
            let metadata = match field.name.to_ascii_lowercase().as_str() {
                "late_reason" => Some((LateColumn::Reason, SqlType::String)),
                "watermark" => Some((LateColumn::Watermark, SqlType::Timestamp(3))),
                "operator" => Some((LateColumn::Operator, SqlType::String)),
                _ => None,
            };
            if let Some((column, want)) = metadata {
                let fits = field.ty == want
                    || (column == LateColumn::Watermark
                        && matches!(field.ty, SqlType::Timestamp(_) | SqlType::TimestampLtz(_)));
                if !fits {
                    return Err(Error::plan(
                        format!(
                            "late-records sink '{}': column '{}' must be {want}, not {}",
                            sink.name, field.name, field.ty
                        ),
                        span,
                    ));
                }
                columns.push(column);
                continue;
            }
            let Some(src) = source.schema.fields.get(next_source) else {
                return Err(layout_error(sink, source, span));
            };
            if src.ty != field.ty {
                return Err(Error::plan(
                    format!(
                        "late-records sink '{}': column '{}' is {}, but the source's column '{}' at that place is {}",
                        sink.name, field.name, field.ty, src.name, src.ty
                    ),
                    span,
                ));
            }
            columns.push(LateColumn::Source(next_source));
            next_source += 1;
        }
        if next_source != source.schema.fields.len() {
            return Err(layout_error(sink, source, span));
        }
        Ok(LateLayout {
            columns,
            types: sink.schema.fields.iter().map(|f| f.ty.clone()).collect(),
            schema: sink.schema.to_arrow(),
        })
    }

    /// Late rows as rows of the sink table.
    pub fn batch(&self, late: &LateRows) -> Result<RecordBatch> {
        let n = late.batch.num_rows();
        let columns = self
            .columns
            .iter()
            .zip(self.schema.fields())
            .map(|(column, field)| -> Result<ArrayRef> {
                Ok(match column {
                    LateColumn::Source(i) => late.batch.column(*i).clone(),
                    LateColumn::Reason => Arc::new(StringArray::from(vec![late.reason; n])),
                    LateColumn::Operator => Arc::new(StringArray::from(vec![late.operator; n])),
                    LateColumn::Watermark => {
                        let marks = TimestampMillisecondArray::from(late.watermarks.clone());
                        match field.data_type() {
                            arrow::datatypes::DataType::Timestamp(_, tz) => {
                                Arc::new(marks.with_timezone_opt(tz.clone()))
                            }
                            _ => Arc::new(marks),
                        }
                    }
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}

/// How skipped input rows fill a bad-records sink: each of its columns is
/// one of `source`, `file` (STRING), `line` (BIGINT or INT), `raw`,
/// `error` (STRING).
#[derive(Clone, Debug)]
pub struct BadLayout {
    columns: Vec<BadColumn>,
    pub types: Vec<SqlType>,
    schema: arrow::datatypes::SchemaRef,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BadColumn {
    Source,
    File,
    Line,
    Raw,
    Error,
}

impl BadLayout {
    pub fn new(sink: &TableDef, span: Span) -> Result<Self> {
        let mut columns = Vec::new();
        for field in &sink.schema.fields {
            let (column, fits) = match field.name.to_ascii_lowercase().as_str() {
                "source" => (BadColumn::Source, field.ty == SqlType::String),
                "file" => (BadColumn::File, field.ty == SqlType::String),
                "line" => (
                    BadColumn::Line,
                    matches!(field.ty, SqlType::BigInt | SqlType::Int),
                ),
                "raw" => (BadColumn::Raw, field.ty == SqlType::String),
                "error" => (BadColumn::Error, field.ty == SqlType::String),
                _ => {
                    return Err(Error::plan(
                        format!(
                            "bad-records sink '{}': column '{}' is not one of source, file, line, raw, error",
                            sink.name, field.name
                        ),
                        span,
                    ))
                }
            };
            if !fits {
                return Err(Error::plan(
                    format!(
                        "bad-records sink '{}': column '{}' cannot be {} (line is BIGINT, the others STRING)",
                        sink.name, field.name, field.ty
                    ),
                    span,
                ));
            }
            columns.push(column);
        }
        Ok(BadLayout {
            columns,
            types: sink.schema.fields.iter().map(|f| f.ty.clone()).collect(),
            schema: sink.schema.to_arrow(),
        })
    }

    /// Skipped rows as rows of the sink table.
    pub fn batch(&self, bad: &BadRows) -> Result<RecordBatch> {
        let n = bad.rows.len();
        let columns = self
            .columns
            .iter()
            .zip(&self.types)
            .map(|(column, ty)| -> ArrayRef {
                match column {
                    BadColumn::Source => Arc::new(StringArray::from(vec![bad.source.as_str(); n])),
                    BadColumn::File => Arc::new(StringArray::from(vec![bad.file.as_str(); n])),
                    BadColumn::Raw => Arc::new(StringArray::from_iter_values(
                        bad.rows.iter().map(|r| r.raw.as_str()),
                    )),
                    BadColumn::Error => Arc::new(StringArray::from_iter_values(
                        bad.rows.iter().map(|r| r.error.as_str()),
                    )),
                    BadColumn::Line if *ty == SqlType::Int => {
                        Arc::new(arrow::array::Int32Array::from_iter_values(
                            bad.rows
                                .iter()
                                .map(|r| i32::try_from(r.line).unwrap_or(i32::MAX)),
                        ))
                    }
                    BadColumn::Line => Arc::new(arrow::array::Int64Array::from_iter_values(
                        bad.rows
                            .iter()
                            .map(|r| i64::try_from(r.line).unwrap_or(i64::MAX)),
                    )),
                }
            })
            .collect();
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}

fn layout_error(sink: &TableDef, source: &TableDef, span: Span) -> Error {
    let want: Vec<String> = source
        .schema
        .fields
        .iter()
        .map(|f| format!("{} {}", f.name, f.ty))
        .collect();
    Error::plan(
        format!(
            "late-records sink '{}' must declare the columns of '{}' ({}), then any of late_reason STRING, watermark TIMESTAMP(3), operator STRING",
            sink.name,
            source.name,
            want.join(", ")
        ),
        span,
    )
}
