//! Placeholder CSV reader, replaced by the full Flink CSV format.
use arrow::array::{ArrayRef, RecordBatch};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use tidemark_common::{Error, Result, SqlType};

#[derive(Clone, Debug, Default)]
pub struct CsvOptions {
    pub delimiter: u8,
    pub null_literal: Option<String>,
    pub ignore_parse_errors: bool,
}
impl CsvOptions {
    pub fn from_options(options: &BTreeMap<String, String>) -> Result<Self> {
        Ok(CsvOptions {
            delimiter: options.get("csv.field-delimiter").and_then(|d| d.bytes().next()).unwrap_or(b','),
            null_literal: options.get("csv.null-literal").cloned(),
            ignore_parse_errors: options.get("csv.ignore-parse-errors").is_some_and(|v| v == "true"),
        })
    }
}
#[derive(Clone, Debug, Default)]
pub struct CsvStats {
    pub rows_read: u64,
    pub fields_nulled: u64,
    pub rows_padded: u64,
    pub rows_skipped: u64,
}
pub struct CsvBatch {
    pub batch: RecordBatch,
    pub lines: Vec<u64>,
}
pub struct CsvSource {
    reader: csv::Reader<std::fs::File>,
    columns: Vec<(String, SqlType)>,
    options: CsvOptions,
    batch_size: usize,
    stats: CsvStats,
    display: String,
}
impl CsvSource {
    pub fn open(path: &Path, display_path: String, columns: Vec<(String, SqlType)>, options: CsvOptions, batch_size: usize) -> Result<Self> {
        let f = std::fs::File::open(path).map_err(|e| Error::io(format!("cannot open {display_path}"), e))?;
        let reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).delimiter(options.delimiter).from_reader(f);
        Ok(CsvSource { reader, columns, options, batch_size, stats: CsvStats::default(), display: display_path })
    }
    pub fn stats(&self) -> CsvStats {
        self.stats.clone()
    }
    pub fn next_batch(&mut self) -> Result<Option<CsvBatch>> {
        let mut rows: Vec<Vec<Option<String>>> = vec![];
        let mut lines = vec![];
        let mut rec = csv::StringRecord::new();
        while rows.len() < self.batch_size {
            if !self.reader.read_record(&mut rec).map_err(|e| Error::Input(format!("{}: {e}", self.display)))? {
                break;
            }
            let line = rec.position().map_or(0, |p| p.line());
            if rec.len() != self.columns.len() {
                return Err(Error::Input(format!("{}:{line}: expected {} fields, found {}", self.display, self.columns.len(), rec.len())));
            }
            rows.push(rec.iter().map(|f| if Some(f) == self.options.null_literal.as_deref() { None } else { Some(f.to_string()) }).collect());
            lines.push(line);
        }
        if rows.is_empty() {
            return Ok(None);
        }
        self.stats.rows_read += rows.len() as u64;
        let mut cols: Vec<ArrayRef> = vec![];
        for (c, (name, ty)) in self.columns.iter().enumerate() {
            let strings: arrow::array::StringArray = rows.iter().map(|r| r[c].clone()).collect();
            let arr = arrow::compute::cast_with_options(&strings, &ty.to_arrow(), &arrow::compute::CastOptions { safe: false, ..Default::default() })
                .map_err(|e| Error::Input(format!("{}: field '{name}': {e}", self.display)))?;
            cols.push(arr);
        }
        let schema = Arc::new(arrow::datatypes::Schema::new(self.columns.iter().map(|(n, t)| arrow::datatypes::Field::new(n, t.to_arrow(), true)).collect::<Vec<_>>()));
        Ok(Some(CsvBatch { batch: RecordBatch::try_new(schema, cols)?, lines }))
    }
}
