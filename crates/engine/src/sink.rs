//! Sink tables: where rows go when a table is written rather than read —
//! today the late rows of a query (`table.exec.late-records.sink`).
//!
//! Connectors: `print` (stdout, in the changelog format, optionally behind
//! `'print-identifier'`), `blackhole` (discards), and `filesystem` with
//! `'format' = 'csv'`, written atomically: rows go to a hidden file beside
//! the target, renamed into place only when the run ends well, so a failed
//! run never leaves a half-written file under the final name.

use crate::format::{format_value, write_changelog};
use crate::snapshot::{Persist, StateReader, StateWriter};
use crate::stream::{BadRows, LateRows};
use arrow::array::{Array, ArrayRef, RecordBatch, StringArray, TimestampMillisecondArray};
use std::collections::HashMap;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
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
    Csv(CsvFileSink),
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
                Ok(TableSink::Csv(CsvFileSink::create(&path, format, staged)?))
            }
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
            csv.upsert = Some(Upsert {
                key,
                rows: Vec::new(),
                index: HashMap::new(),
            });
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
            csv.keep_staged = false;
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
            _ => None,
        }
    }

    /// Stages what was written so far for a checkpoint (flushed and synced
    /// to disk) and writes where the staged output stands.
    pub fn save_state(&mut self, w: &mut StateWriter) -> Result<()> {
        match self {
            TableSink::Csv(csv) => csv.save_state(w),
            TableSink::Blackhole => Ok(()),
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
            TableSink::Blackhole => Ok(()),
            TableSink::Print { .. } => Err(Error::Internal("resuming a print sink".into())),
        }
    }

    /// The first half of the commit at the end of a checkpointed run:
    /// everything is staged and synced; returns the renames that complete
    /// it, for the checkpoint to record before they are made.
    pub fn prepare_commit(&mut self) -> Result<Option<StagedRename>> {
        match self {
            TableSink::Csv(csv) => csv.prepare_commit().map(Some),
            _ => Ok(None),
        }
    }
}

/// A staged file and the name it is committed under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StagedRename {
    pub staged: PathBuf,
    pub target: PathBuf,
}

impl StagedRename {
    /// Moves the staged file into place; done already if it is gone and
    /// the target is there (a commit repeated after a restart).
    pub fn commit(&self) -> Result<()> {
        if !self.staged.exists() && self.target.exists() {
            return Ok(());
        }
        std::fs::rename(&self.staged, &self.target).map_err(|e| io_error(&self.target, e))
    }
}

impl Persist for StagedRename {
    fn save(&self, w: &mut StateWriter) {
        w.put(&self.staged.to_string_lossy().into_owned());
        w.put(&self.target.to_string_lossy().into_owned());
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok(StagedRename {
            staged: PathBuf::from(r.get::<String>()?),
            target: PathBuf::from(r.get::<String>()?),
        })
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

/// How a file sink writes a row: CSV with a delimiter, or a JSON object
/// per line with these field names.
pub enum LineFormat {
    Csv(char),
    Json(Vec<String>),
}

/// A CSV or JSON-lines file written under a hidden name and renamed into
/// place at the end. Dropped without `finish`, it removes the hidden file.
pub struct CsvFileSink {
    target: PathBuf,
    hidden: PathBuf,
    file: Option<std::io::BufWriter<std::fs::File>>,
    format: LineFormat,
    line: String,
    /// With a key: the last line per key, written at the end.
    upsert: Option<Upsert>,
    /// A checkpointed run's staged file: kept when the run dies.
    keep_staged: bool,
}

/// The rows of an upsert file: the last line per key, in the order keys
/// first came; a deleted key's line is gone.
struct Upsert {
    key: Vec<usize>,
    rows: Vec<Option<String>>,
    index: HashMap<String, usize>,
}

impl CsvFileSink {
    /// `staged`: for a checkpointed run, whether a staged file left by an
    /// earlier run is kept (resuming) or started afresh; `None` for a run
    /// without checkpoints.
    fn create(target: &Path, format: LineFormat, staged: Option<bool>) -> Result<Self> {
        // A folder (as Flink's filesystem sink takes): one part file in it.
        let target = if target.is_dir() || target.to_string_lossy().ends_with('/') {
            std::fs::create_dir_all(target).map_err(|e| io_error(target, e))?;
            target.join(match format {
                LineFormat::Json(_) => "part-0.json",
                LineFormat::Csv(_) => "part-0.csv",
            })
        } else {
            target.to_path_buf()
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (hidden, file) = match staged {
            None => {
                let hidden =
                    target.with_file_name(format!(".{name}.inprogress.{}", std::process::id()));
                let file = std::fs::File::create(&hidden).map_err(|e| io_error(&hidden, e))?;
                (hidden, file)
            }
            Some(resuming) => {
                let hidden = target.with_file_name(format!(".{name}.inprogress"));
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(!resuming)
                    .open(&hidden)
                    .map_err(|e| io_error(&hidden, e))?;
                (hidden, file)
            }
        };
        Ok(CsvFileSink {
            target,
            hidden,
            file: Some(std::io::BufWriter::new(file)),
            format,
            line: String::new(),
            upsert: None,
            keep_staged: staged.is_some(),
        })
    }

    /// Flushes and syncs the staged file; returns its length.
    fn sync(&mut self) -> Result<u64> {
        let Some(file) = self.file.as_mut() else {
            return Err(Error::Internal("checkpointing a finished sink".into()));
        };
        file.flush().map_err(|e| io_error(&self.hidden, e))?;
        let file = file.get_mut();
        file.sync_data().map_err(|e| io_error(&self.hidden, e))?;
        file.stream_position()
            .map_err(|e| io_error(&self.hidden, e))
    }

    fn save_state(&mut self, w: &mut StateWriter) -> Result<()> {
        let length = self.sync()?;
        w.put(&length);
        match &self.upsert {
            None => w.put(&false),
            Some(upsert) => {
                w.put(&true);
                w.put(&upsert.rows);
                let mut index: Vec<(&String, &usize)> = upsert.index.iter().collect();
                index.sort_by_key(|(_, i)| **i);
                w.u64(index.len() as u64);
                for (key, i) in index {
                    w.put(key);
                    w.put(i);
                }
            }
        }
        Ok(())
    }

    fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let length: u64 = r.get()?;
        let Some(file) = self.file.as_mut() else {
            return Err(Error::Internal("resuming a finished sink".into()));
        };
        let file = file.get_mut();
        let staged = file
            .metadata()
            .map_err(|e| io_error(&self.hidden, e))?
            .len();
        if staged < length {
            return Err(Error::Execution(format!(
                "the staged output {} holds {staged} bytes where the checkpoint staged {length}: it was changed or removed since",
                self.hidden.display()
            )));
        }
        file.set_len(length)
            .map_err(|e| io_error(&self.hidden, e))?;
        file.seek(std::io::SeekFrom::Start(length))
            .map_err(|e| io_error(&self.hidden, e))?;
        let has_upsert: bool = r.get()?;
        match (&mut self.upsert, has_upsert) {
            (Some(upsert), true) => {
                upsert.rows = r.get()?;
                let n = r.len()?;
                for _ in 0..n {
                    let key: String = r.get()?;
                    let i: usize = r.get()?;
                    if i >= upsert.rows.len() {
                        return Err(crate::snapshot::corrupt("a kept row is missing"));
                    }
                    upsert.index.insert(key, i);
                }
            }
            (None, false) => {}
            _ => {
                return Err(crate::snapshot::corrupt(
                    "the sink kept rows per key differently",
                ))
            }
        }
        Ok(())
    }

    /// Writes the rows kept per key and syncs: what is staged is then the
    /// whole output.
    fn prepare_commit(&mut self) -> Result<StagedRename> {
        self.write_upserts()?;
        self.sync()?;
        self.file = None;
        Ok(StagedRename {
            staged: self.hidden.clone(),
            target: self.target.clone(),
        })
    }

    fn write_upserts(&mut self) -> Result<()> {
        if let (Some(file), Some(upsert)) = (self.file.as_mut(), self.upsert.take()) {
            for line in upsert.rows.into_iter().flatten() {
                file.write_all(line.as_bytes())
                    .map_err(|e| io_error(&self.hidden, e))?;
            }
        }
        Ok(())
    }

    fn write(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<()> {
        let Some(file) = self.file.as_mut() else {
            return Err(Error::Internal("writing a finished sink".into()));
        };
        let mut value = String::new();
        for row in 0..batch.num_rows() {
            let kind = kinds.get(row).copied().unwrap_or(RowKind::Insert);
            if self.upsert.is_none() && kind != RowKind::Insert {
                return Err(Error::Internal(
                    "an update written to an append-only file".into(),
                ));
            }
            self.line.clear();
            match &self.format {
                LineFormat::Csv(delimiter) => {
                    for (i, (column, ty)) in batch.columns().iter().zip(types).enumerate() {
                        if i > 0 {
                            self.line.push(*delimiter);
                        }
                        if column.is_null(row) {
                            continue;
                        }
                        value.clear();
                        format_value(column.as_ref(), ty, row, tz, &mut value)?;
                        push_csv_field(&mut self.line, &value, *delimiter);
                    }
                }
                LineFormat::Json(names) => {
                    self.line.push('{');
                    for (i, ((column, ty), name)) in
                        batch.columns().iter().zip(types).zip(names).enumerate()
                    {
                        if i > 0 {
                            self.line.push(',');
                        }
                        push_json_string(&mut self.line, name);
                        self.line.push(':');
                        if column.is_null(row) {
                            self.line.push_str("null");
                            continue;
                        }
                        value.clear();
                        format_value(column.as_ref(), ty, row, tz, &mut value)?;
                        match ty {
                            SqlType::Int | SqlType::BigInt | SqlType::Decimal(..) => {
                                self.line.push_str(&value)
                            }
                            SqlType::Double if value.parse::<f64>().is_ok_and(f64::is_finite) => {
                                self.line.push_str(&value)
                            }
                            SqlType::Boolean => self.line.push_str(&value.to_ascii_lowercase()),
                            _ => push_json_string(&mut self.line, &value),
                        }
                    }
                    self.line.push('}');
                }
            }
            self.line.push('\n');
            match &mut self.upsert {
                None => file
                    .write_all(self.line.as_bytes())
                    .map_err(|e| io_error(&self.hidden, e))?,
                Some(upsert) => {
                    let mut key = String::new();
                    for c in &upsert.key {
                        value.clear();
                        if batch.column(*c).is_valid(row) {
                            format_value(
                                batch.column(*c).as_ref(),
                                &types[*c],
                                row,
                                tz,
                                &mut value,
                            )?;
                        }
                        key.push_str(&value);
                        key.push('\u{1}');
                    }
                    match kind {
                        RowKind::UpdateBefore => {}
                        RowKind::Delete => {
                            if let Some(i) = upsert.index.remove(&key) {
                                upsert.rows[i] = None;
                            }
                        }
                        RowKind::Insert | RowKind::UpdateAfter => match upsert.index.get(&key) {
                            Some(i) => upsert.rows[*i] = Some(self.line.clone()),
                            None => {
                                upsert.index.insert(key, upsert.rows.len());
                                upsert.rows.push(Some(self.line.clone()));
                            }
                        },
                    }
                }
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<()> {
        self.write_upserts()?;
        if let Some(mut file) = self.file.take() {
            file.flush().map_err(|e| io_error(&self.hidden, e))?;
        }
        std::fs::rename(&self.hidden, &self.target).map_err(|e| io_error(&self.target, e))
    }
}

impl Drop for CsvFileSink {
    fn drop(&mut self) {
        if self.file.take().is_some() && !self.keep_staged {
            let _ = std::fs::remove_file(&self.hidden);
        }
    }
}

/// A JSON string literal.
fn push_json_string(out: &mut String, value: &str) {
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A CSV field, quoted when it holds the delimiter, a quote or a line break.
fn push_csv_field(out: &mut String, value: &str, delimiter: char) {
    if value.contains([delimiter, '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&value.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(value);
    }
}

fn io_error(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        context: format!("writing {}", path.display()),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        let mut line = String::new();
        push_csv_field(&mut line, "plain", ',');
        line.push(',');
        push_csv_field(&mut line, "a,b \"c\"", ',');
        assert_eq!(line, "plain,\"a,b \"\"c\"\"\"");
    }

    #[test]
    fn a_csv_file_appears_only_when_finished() -> Result<()> {
        let dir = std::env::temp_dir().join(format!("tidemark-sink-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let target = dir.join("late.csv");
        let batch = RecordBatch::try_from_iter([(
            "v",
            std::sync::Arc::new(arrow::array::Int32Array::from(vec![Some(1), None])) as _,
        )])?;
        let kinds = [RowKind::Insert; 2];
        let mut sink = CsvFileSink::create(&target, LineFormat::Csv(','), None)?;
        sink.write(&batch, &[SqlType::Int], &kinds, chrono_tz::UTC)?;
        assert!(
            !target.exists(),
            "nothing under the final name before the end"
        );
        drop(sink);
        assert!(!target.exists(), "an unfinished sink leaves no file");
        let mut sink = CsvFileSink::create(&target, LineFormat::Csv(','), None)?;
        sink.write(&batch, &[SqlType::Int], &kinds, chrono_tz::UTC)?;
        sink.finish()?;
        let text = std::fs::read_to_string(&target).map_err(|e| io_error(&target, e))?;
        assert_eq!(text, "1\n\n");
        std::fs::remove_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        Ok(())
    }
}
