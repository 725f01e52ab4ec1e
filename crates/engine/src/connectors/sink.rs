//! Sink tables: where rows go when a table is written rather than read —
//! an INSERT INTO's rows, late rows (`table.exec.late-records.sink`) and
//! skipped input rows (`table.exec.bad-records.sink`) — and how late and
//! skipped rows are laid out as a sink table's rows.
//!
//! Connectors: `print` (stdout, in the changelog format, optionally behind
//! `'print-identifier'`), `blackhole` (discards), and `filesystem` with
//! `'format' = 'csv'` or `'json'`, staged and committed atomically (see
//! [`crate::connectors::filesystem::sink`]).

pub use crate::connectors::filesystem::sink::StagedRename;
use crate::connectors::filesystem::sink::{CsvFileSink, LineFormat};
use crate::formats::print::write_changelog;
use crate::runtime::snapshot::{StateReader, StateWriter};
use crate::runtime::stream::{BadRows, LateRows};
use arrow::array::{ArrayRef, RecordBatch, StringArray, TimestampMillisecondArray};
use std::path::PathBuf;
use std::sync::Arc;
use tidemark_common::catalog::TableDef;
use tidemark_common::{Error, Result, RowKind, Span, SqlType};

/// An open sink table.
pub enum TableSink {
    /// Lines for stdout, handed to the caller as they are made so they
    /// keep their place among the query's own output.
    Print {
        prefix: String,
    },
    Blackhole,
    Csv(Box<CsvFileSink>),
    /// A PostgreSQL table (`'connector' = 'jdbc'`).
    Postgres(Box<crate::connectors::jdbc::PgSink>),
}

/// What a sink produced that the caller must show (print sinks).
pub type PrintLines = String;

impl TableSink {
    /// Opens the sink table `table`.
    pub fn open(table: &TableDef) -> Result<Self> {
        Self::open_as(table, None)
    }

    /// Opens `table` for a checkpointed run: a file is staged under a name
    /// that does not depend on the process and is kept if the run dies, so
    /// that a resumed run takes it over. `resuming`: the staged file of
    /// an earlier run is kept as it is, for [`TableSink::load_state`] to
    /// cut back to its checkpoint; otherwise it starts empty.
    pub fn open_staged(table: &TableDef, resuming: bool) -> Result<Self> {
        Self::open_as(table, Some(resuming))
    }

    fn open_as(table: &TableDef, staged: Option<bool>) -> Result<Self> {
        match table.option("connector") {
            Some("print") => Ok(TableSink::Print {
                prefix: table
                    .option("print-identifier")
                    .map(|id| format!("{id}> "))
                    .unwrap_or_default(),
            }),
            Some("blackhole") => Ok(TableSink::Blackhole),
            Some("filesystem") => {
                let path = table
                    .option("path")
                    .ok_or_else(|| Error::Internal(format!("table {} has no path", table.name)))?;
                let path = PathBuf::from(path);
                let path = if path.is_absolute() {
                    path
                } else {
                    table.base_dir.join(path)
                };
                let delimiter = table.option("csv.field-delimiter").unwrap_or(",");
                let delimiter = match delimiter.as_bytes() {
                    [b] => *b as char,
                    _ => ',',
                };
                let format = match table.option("format") {
                    Some("json") => LineFormat::Json(
                        table.schema.fields.iter().map(|f| f.name.clone()).collect(),
                    ),
                    _ => LineFormat::Csv(delimiter),
                };
                Ok(TableSink::Csv(Box::new(CsvFileSink::create(
                    &path, format, staged,
                )?)))
            }
            Some("jdbc") => Ok(TableSink::Postgres(Box::new(
                crate::connectors::jdbc::PgSink::open(table, Span::default())?,
            ))),
            other => Err(Error::Internal(format!(
                "table {} cannot be written (connector {other:?})",
                table.name
            ))),
        }
    }

    /// A file sink keeps the last row per key (`key`: column positions):
    /// `+I`/`+U` replace a key's row, `-D` removes it, `-U` is left out.
    pub fn upsert_on(&mut self, key: Vec<usize>) {
        if let TableSink::Csv(csv) = self {
            csv.upsert_on(key);
        }
    }

    /// Writes `batch` (columns of `types`) with its row kinds; a print sink
    /// returns the lines to show.
    pub fn write(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<PrintLines> {
        match self {
            TableSink::Blackhole => Ok(String::new()),
            TableSink::Print { prefix } => {
                let mut text = String::new();
                write_changelog(batch, types, kinds, tz, &mut text)?;
                if prefix.is_empty() {
                    return Ok(text);
                }
                Ok(text.lines().map(|l| format!("{prefix}{l}\n")).collect())
            }
            TableSink::Csv(csv) => {
                csv.write(batch, types, kinds, tz)?;
                Ok(String::new())
            }
            TableSink::Postgres(pg) => {
                pg.write(batch, types, kinds, tz)?;
                Ok(String::new())
            }
        }
    }

    /// What the run summary says of the sink, if anything.
    pub fn note(&self) -> Option<String> {
        match self {
            TableSink::Postgres(pg) => pg.note(),
            _ => None,
        }
    }

    /// Completes the sink: the file is moved into place.
    pub fn finish(self) -> Result<()> {
        match self {
            TableSink::Csv(csv) => csv.finish(),
            _ => Ok(()),
        }
    }

    /// Gives up a sink that wrote nothing worth keeping: its staged file is
    /// removed, even a checkpointed run's.
    pub fn discard(self) {
        if let TableSink::Csv(mut csv) = self {
            csv.discard();
        }
    }

    /// Why this sink cannot take part in a checkpoint, if it cannot: what
    /// it has shown cannot be taken back.
    pub fn checkpoint_blocker(&self, name: &str) -> Option<Error> {
        match self {
            TableSink::Print { .. } => Some(Error::plan(
                format!("checkpointing needs outputs that can be taken back to the last checkpoint: table {name} prints to standard output"),
                Span::default(),
            ).with_hint("write to a filesystem table, or run without 'execution.checkpointing.dir'")),
            TableSink::Postgres(pg) if !pg.has_key() => Some(Error::plan(
                format!("checkpointing needs outputs that can be taken back to the last checkpoint: table {name} appends to a database table"),
                Span::default(),
            ).with_hint(format!("declare PRIMARY KEY (...) NOT ENFORCED on {name}: upserts written again after a resume change nothing"))),
            _ => None,
        }
    }

    /// Stages what was written so far for a checkpoint (flushed and synced
    /// to disk) and writes where the staged output stands.
    pub fn save_state(&mut self, w: &mut StateWriter) -> Result<()> {
        match self {
            TableSink::Csv(csv) => csv.save_state(w),
            // Each batch is committed as it comes; the upserts a resumed
            // run sends again leave the same rows.
            TableSink::Blackhole | TableSink::Postgres(_) => Ok(()),
            TableSink::Print { .. } => Err(self
                .checkpoint_blocker("?")
                .unwrap_or_else(|| Error::Internal("checkpointing a print sink".into()))),
        }
    }

    /// Goes on from a checkpoint: the staged file is cut back to what the
    /// checkpoint staged, and the rows kept per key are put back.
    pub fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        match self {
            TableSink::Csv(csv) => csv.load_state(r),
            TableSink::Blackhole | TableSink::Postgres(_) => Ok(()),
            TableSink::Print { .. } => Err(Error::Internal("resuming a print sink".into())),
        }
    }

    /// The first half of the commit at the end of a checkpointed run:
    /// everything is staged and synced; returns the renames that complete
    /// it, for the checkpoint to record before they are made.
    pub fn prepare_commit(&mut self) -> Result<Vec<StagedRename>> {
        match self {
            TableSink::Csv(csv) => csv.prepare_commit(),
            _ => Ok(Vec::new()),
        }
    }

    /// The checkpoint just written is complete: what it closed of the
    /// output (a folder's parts) is renamed into place.
    pub fn commit_checkpoint(&mut self) -> Result<()> {
        match self {
            TableSink::Csv(csv) => csv.commit_checkpoint(),
            _ => Ok(()),
        }
    }
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
