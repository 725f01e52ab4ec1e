//! The `filesystem` connector: a file read once, on one thread or several
//! ([`parallel`]), or followed as it grows; a folder or glob of files,
//! one split each ([`folder`]); files and folders written ([`sink`]). Its
//! rows are encoded by the csv or json format.

pub(crate) mod folder;
pub mod parallel;
mod read;
pub mod sink;

use super::sink::SinkWriter;
use super::split::Split;
use super::{in_table, Connector, OpenedSource, SourceSpec};
use crate::formats::csv::CsvOptions;
use crate::formats::encode::LineFormat;
use crate::formats::json::JsonOptions;
use crate::formats::{open_decoder, Ending};
use parallel::{ParallelFile, PieceFormat};
use sink::CsvFileSink;
use std::path::PathBuf;
use tidemark_common::catalog::TableDef;
use tidemark_common::connector::{
    Capabilities, ConnectorDecl, FormatUse, OptionDecl, Origin, ValueKind,
};
use tidemark_common::{Error, Result};

pub struct Filesystem;

static DECLARATION: ConnectorDecl = ConnectorDecl {
    name: "filesystem",
    origin: Origin::Flink,
    doc: "a file, folder or glob read once, or a file or folder followed for what is added; a file or a folder of part files written",
    format: FormatUse::Required,
    formats: &["csv", "json"],
    options: &[
        OptionDecl::flink(
            "path",
            "the file, folder or glob read (a folder: every file in it, one split each); the file or folder written — relative to the script's folder",
        )
        .required(),
        OptionDecl::flink(
            "source.monitor-interval",
            "follow the file as it grows, or the folder for new files, looking this often",
        )
        .kind(ValueKind::PositiveDuration),
        super::IDLE_OPTION,
    ],
    capabilities: Capabilities {
        read: true,
        write: true,
        upsert: true,
        side_output: true,
        checkpoint_read: true,
        unbounded: true,
        ..Capabilities::NONE
    },
    metadata: &[],
    example: "WITH ('connector' = 'filesystem', 'path' = 'data.csv', 'format' = 'csv')",
    check: None,
};

impl Connector for Filesystem {
    fn declaration(&self) -> &'static ConnectorDecl {
        &DECLARATION
    }

    fn undecoded(&self, _table: &TableDef, unread: &[bool]) -> Vec<bool> {
        unread.to_vec()
    }

    fn open_source(&self, spec: SourceSpec<'_>) -> Result<OpenedSource> {
        let table = spec.table;
        let display = table
            .option("path")
            .ok_or_else(|| Error::Internal(format!("table {} has no path", table.name)))?
            .to_string();
        let path = resolve(table, &display);
        if folder::names_several(&path, &display) {
            return open_folder(spec, &display, &path);
        }
        // Opened here even when pieces are read on threads, so that a
        // missing file fails at once.
        let file = std::fs::File::open(&path)
            .map_err(|e| Error::io(format!("table {}: cannot open '{display}'", table.name), e))?;
        let follow = table.monitor_interval();
        // Pieces are read where they lie in the file: a pipe or a device
        // is read on one thread, from its start to its end.
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        if spec.parallel.threads > 1 && follow.is_none() && regular {
            drop(file);
            let format = if table.option("format") == Some("json") {
                PieceFormat::Json(JsonOptions::from_options(&table.options)?)
            } else {
                PieceFormat::Csv(CsvOptions::from_options(&table.options)?)
            };
            let ignore_parse_errors = match &format {
                PieceFormat::Json(o) => o.ignore_parse_errors,
                PieceFormat::Csv(o) => o.ignore_parse_errors,
            };
            let reader = ParallelFile::new(
                path,
                display.clone(),
                spec.columns,
                format,
                spec.batch_size,
                spec.parallel,
            )
            .map_err(in_table(&table.name))?;
            return Ok(OpenedSource {
                splits: vec![Split::new(display, Box::new(reader))],
                ignore_parse_errors,
                discovery: None,
            });
        }
        let ending = follow.map_or(Ending::Final, Ending::Follow);
        let decoder = open_decoder(
            &table.options,
            Box::new(file),
            display.clone(),
            spec.columns,
            spec.batch_size,
            ending,
        )
        .map_err(in_table(&table.name))?;
        let reader = read::FileReader {
            decoder: decoder.reader,
            path,
            display: display.clone(),
            table: table.name.clone(),
            follows: follow.is_some(),
        };
        Ok(OpenedSource {
            splits: vec![Split::new(display, Box::new(reader))],
            ignore_parse_errors: decoder.ignore_parse_errors,
            discovery: None,
        })
    }

    fn open_sink(&self, table: &TableDef, staged: Option<bool>) -> Result<Box<dyn SinkWriter>> {
        let path = table
            .option("path")
            .ok_or_else(|| Error::Internal(format!("table {} has no path", table.name)))?;
        let path = resolve(table, path);
        let written = table.written_schema();
        let names: Vec<String> = written.fields.iter().map(|f| f.name.clone()).collect();
        let format = LineFormat::of(&table.options, names.clone())?;
        Ok(Box::new(CsvFileSink::create(
            &path, format, &names, staged,
        )?))
    }

    fn may_pause(&self, table: &TableDef) -> bool {
        table.monitor_interval().is_some()
    }

    fn splits_may_pause(&self, table: &TableDef) -> bool {
        self.may_pause(table) && self.split_kind(table).is_none()
    }

    fn split_kind(&self, table: &TableDef) -> Option<&'static str> {
        let written = table.option("path")?;
        folder::names_several(&resolve(table, written), written).then_some("file")
    }

    fn explain_read(&self, table: &TableDef, threads: usize) -> String {
        if self.split_kind(table).is_some() {
            let found = if self.may_pause(table) {
                ", and files that appear later as they are found"
            } else {
                ""
            };
            format!("every file once, one split each{found}, on one thread; rows taken from the split whose watermark is lowest")
        } else if self.may_pause(table) {
            super::ON_ONE_THREAD.into()
        } else {
            format!("parsed on {threads} threads, in pieces, then taken in file order")
        }
    }
}

/// A folder or glob: one split per file found now; with a monitor
/// interval, files found later join as new splits. A folder read once
/// must hold a file.
fn open_folder(
    spec: SourceSpec<'_>,
    written: &str,
    path: &std::path::Path,
) -> Result<OpenedSource> {
    let table = spec.table;
    let mut found = folder::Folder::new(table, written, path)?;
    let files = found.new_files()?;
    let follow = table.monitor_interval();
    if files.is_empty() && follow.is_none() {
        return Err(Error::Input(format!(
            "table {}: '{written}' holds no file to read (names starting with '.' or '_' are skipped); set 'source.monitor-interval' to wait for files to appear",
            table.name
        )));
    }
    let splits = found.splits(table, files, &spec.columns, spec.batch_size)?;
    let ignore_parse_errors = crate::formats::ignores_parse_errors(&table.options)?;
    let discovery = follow.map(|every| {
        Box::new(folder::FolderDiscovery {
            folder: found,
            table: table.clone(),
            columns: spec.columns.clone(),
            batch_size: spec.batch_size,
            interval_ms: i64::try_from(every.as_millis()).unwrap_or(i64::MAX),
        }) as Box<dyn super::split::SplitDiscovery>
    });
    Ok(OpenedSource {
        splits,
        ignore_parse_errors,
        discovery,
    })
}

/// `path` as written in `table`, against the script's folder when relative.
pub(crate) fn resolve(table: &TableDef, path: &str) -> PathBuf {
    let path = PathBuf::from(path);
    if path.is_absolute() {
        path
    } else {
        table.base_dir.join(path)
    }
}
