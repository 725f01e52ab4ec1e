//! What the csv tests share: a temporary file, the options and columns
//! they are written with, and reading a whole file into rows printed as
//! Flink prints them, with their line numbers.

use super::{CsvOptions, CsvSource};
use crate::formats::open_file;
use crate::runtime::read::ReadStats;
use std::collections::BTreeMap;
use std::io::Write;
use tidemark_common::{Error, Result, SqlType};

/// A file in the system temp directory, removed when dropped.
pub(in crate::formats) struct TempCsv(pub(in crate::formats) std::path::PathBuf);

impl TempCsv {
    pub(in crate::formats) fn new(content: &[u8]) -> Result<Self> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "tidemark-csv-{}-{}.csv",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let mut f = std::fs::File::create(&path).map_err(|e| Error::io("create", e))?;
        f.write_all(content).map_err(|e| Error::io("write", e))?;
        Ok(TempCsv(path))
    }
}

impl Drop for TempCsv {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

pub(in crate::formats) fn opts(pairs: &[(&str, &str)]) -> Result<CsvOptions> {
    let map: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    CsvOptions::from_options(&map)
}

pub(in crate::formats) fn cols(spec: &[(&str, SqlType)]) -> Vec<(String, SqlType)> {
    spec.iter()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect()
}

/// Reads the whole file; each row printed as Flink prints it, with its
/// line number.
pub(in crate::formats) fn read_all(
    content: &[u8],
    columns: &[(&str, SqlType)],
    options: CsvOptions,
    batch_size: usize,
) -> Result<(Vec<(u64, String)>, ReadStats)> {
    let file = TempCsv::new(content)?;
    let columns = cols(columns);
    let types: Vec<SqlType> = columns.iter().map(|(_, t)| t.clone()).collect();
    let mut source = open_file(&file.0, "t.csv".into(), |input, name| {
        CsvSource::from_reader(input, name, columns, options, batch_size)
    })?;
    let mut rows = Vec::new();
    while let Some(b) = source.next_batch()? {
        assert!(b.batch.num_rows() > 0 && b.batch.num_rows() <= batch_size.max(1));
        assert_eq!(b.lines.len(), b.batch.num_rows());
        for (row, line) in b.lines.iter().enumerate() {
            let mut text = String::new();
            for (i, ty) in types.iter().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                let column = b.batch.column(i);
                crate::formats::print::format_value(column, ty, row, chrono_tz::UTC, &mut text)?;
            }
            rows.push((*line, text));
        }
    }
    Ok((rows, source.stats()))
}

pub(in crate::formats) fn read_err(
    content: &[u8],
    columns: &[(&str, SqlType)],
    options: CsvOptions,
) -> String {
    match read_all(content, columns, options, 3) {
        Ok(rows) => format!("no error: {rows:?}"),
        Err(e) => e.to_string(),
    }
}

pub(in crate::formats) fn rows(v: &[(u64, &str)]) -> Vec<(u64, String)> {
    v.iter().map(|(l, r)| (*l, r.to_string())).collect()
}

pub(in crate::formats) type Columns<'a> = &'a [(&'a str, SqlType)];
pub(in crate::formats) type Rows<'a> = &'a [(u64, &'a str)];
pub(in crate::formats) type Pairs<'a> = &'a [(&'a str, &'a str)];
