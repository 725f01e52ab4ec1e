//! The `replay` connector (tidemark's own): recorded rows played back as a
//! live stream. Each row arrives at the instant its arrival column gives,
//! on the run's scripted clock ([`crate::time::clock`]), which moves only
//! when every input waits, straight to the next arrival or idle timeout.
//! A replay is therefore a live stream whose pauses are written down: it
//! shows what an idle timeout does to a job, the same way every run.
//!
//! The path is a file, a folder or a glob, as for the filesystem
//! connector; each file is one split, which may pause between arrivals
//! (so it can go idle) and ends after its last row.

use super::filesystem::folder::{names_several, Folder};
use super::split::{Split, SplitReader};
use super::{Connector, OpenedSource, SourceSpec, IDLE_OPTION};
use crate::runtime::read::{ReadBatch, ReadStats};
use crate::time::clock::Clock;
use crate::time::trace::instant;
use arrow::array::{Array, AsArray};
use arrow::datatypes::TimestampMillisecondType;
use tidemark_common::catalog::TableDef;
use tidemark_common::connector::{
    Capabilities, ConnectorDecl, FormatUse, OptionDecl, Origin, ValueKind,
};
use tidemark_common::{Error, Result, SqlType};

pub struct Replay;

const ARRIVAL: &str = "replay.arrival-column";

static DECLARATION: ConnectorDecl = ConnectorDecl {
    name: "replay",
    origin: Origin::Tidemark,
    doc: "recorded rows played back as a live stream, each at its arrival time on the run's scripted clock",
    format: FormatUse::Required,
    formats: &["csv", "json"],
    options: &[
        OptionDecl::own(
            "path",
            "the file, folder or glob played back (a folder: every file in it, one split each) — relative to the script's folder",
        )
        .required(),
        OptionDecl::own(
            ARRIVAL,
            "the TIMESTAMP(3) column giving when each row arrives; rows of a file in arrival order",
        )
        .required()
        .kind(ValueKind::Text),
        IDLE_OPTION,
    ],
    capabilities: Capabilities {
        read: true,
        unbounded: true,
        ..Capabilities::NONE
    },
    metadata: &[],
    example: "WITH ('connector' = 'replay', 'path' = 'arrivals/', 'format' = 'csv', 'replay.arrival-column' = 'arrived')",
    check: None,
};

impl Connector for Replay {
    fn declaration(&self) -> &'static ConnectorDecl {
        &DECLARATION
    }

    fn open_source(&self, spec: SourceSpec<'_>) -> Result<OpenedSource> {
        let table = spec.table;
        let written = table
            .option("path")
            .ok_or_else(|| Error::Internal(format!("table {} has no path", table.name)))?;
        let arrival = arrival_column(table, &spec.columns)?;
        let path = super::filesystem::resolve(table, written);
        let mut folder = Folder::new(table, written, &path)?;
        let files = folder.new_files()?;
        if files.is_empty() {
            let what = if names_several(&path, written) {
                "holds no file to read (names starting with '.' or '_' are skipped)"
            } else {
                "cannot be opened"
            };
            return Err(Error::Input(format!(
                "table {}: '{written}' {what}",
                table.name
            )));
        }
        let splits = folder
            .splits(table, files, &spec.columns, spec.batch_size)?
            .into_iter()
            .map(|split| {
                let reader = ReplayReader {
                    inner: split.reader,
                    arrival,
                    column: spec.columns[arrival].0.clone(),
                    file: split.name.clone(),
                    clock: spec.clock.clone(),
                    held: None,
                    released: 0,
                    last_arrival: i64::MIN,
                    pending: None,
                    last_released: None,
                };
                Split::new(split.name, Box::new(reader))
            })
            .collect();
        let ignore_parse_errors = crate::formats::ignores_parse_errors(&table.options)?;
        Ok(OpenedSource {
            splits,
            ignore_parse_errors,
            discovery: None,
        })
    }

    fn split_kind(&self, table: &TableDef) -> Option<&'static str> {
        let written = table.option("path")?;
        names_several(&super::filesystem::resolve(table, written), written).then_some("file")
    }

    fn may_pause(&self, _table: &TableDef) -> bool {
        true
    }
}

/// The physical column `replay.arrival-column` names: a TIMESTAMP(3) or
/// TIMESTAMP_LTZ(3).
fn arrival_column(table: &TableDef, columns: &[(String, SqlType)]) -> Result<usize> {
    let name = table.option(ARRIVAL).unwrap_or_default();
    let found = columns
        .iter()
        .position(|(n, _)| n.eq_ignore_ascii_case(name));
    match found.map(|i| (i, &columns[i].1)) {
        Some((i, SqlType::Timestamp(p) | SqlType::TimestampLtz(p))) if *p <= 3 => Ok(i),
        Some((_, ty)) => Err(Error::Input(format!(
            "table {}: '{ARRIVAL}' = '{name}' names a column of type {ty}; it must be TIMESTAMP(3) or TIMESTAMP_LTZ(3)",
            table.name
        ))),
        None => Err(Error::Input(format!(
            "table {}: '{ARRIVAL}' = '{name}' names no physical column of the table",
            table.name
        ))),
    }
}

/// A file's rows, each given out once the scripted clock has reached its
/// arrival.
struct ReplayReader {
    inner: Box<dyn SplitReader>,
    /// The arrival column, among the physical ones, and its name.
    arrival: usize,
    column: String,
    file: String,
    clock: Clock,
    /// A batch read and not wholly given out, and how many of its rows
    /// were.
    held: Option<ReadBatch>,
    released: usize,
    last_arrival: i64,
    /// An error met reading ahead, raised at the next read.
    pending: Option<Error>,
    /// The arrival of the last row given out.
    last_released: Option<i64>,
}

impl ReplayReader {
    /// Reads the next batch to hold, checking its arrivals; false at the
    /// end of the file.
    fn hold_next(&mut self) -> Result<bool> {
        let Some(batch) = self.inner.next_batch()? else {
            return Ok(false);
        };
        let times = batch
            .batch
            .column(self.arrival)
            .as_primitive::<TimestampMillisecondType>();
        for (i, line) in batch.lines.iter().enumerate() {
            if times.is_null(i) {
                return Err(Error::Input(format!(
                    "{}:{line}: field '{}': a replayed row needs its arrival time",
                    self.file, self.column
                )));
            }
            let t = times.value(i);
            if t < self.last_arrival {
                return Err(Error::Input(format!(
                    "{}:{line}: field '{}': the row arrives at {}, before the row above it ({}): a replayed file must be in arrival order",
                    self.file,
                    self.column,
                    instant(t),
                    instant(self.last_arrival)
                )));
            }
            self.last_arrival = t;
        }
        self.held = Some(batch);
        self.released = 0;
        Ok(true)
    }

    /// The arrival of the next row held, if one is.
    fn next_arrival(&self) -> Option<i64> {
        let held = self.held.as_ref()?;
        let times = held
            .batch
            .column(self.arrival)
            .as_primitive::<TimestampMillisecondType>();
        (self.released < times.len()).then(|| times.value(self.released))
    }
}

impl SplitReader for ReplayReader {
    fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.held.is_none() && !self.hold_next()? {
            return Ok(None);
        }
        let now = self.clock.now();
        let Some(held) = self.held.as_ref() else {
            return Ok(None);
        };
        let times = held
            .batch
            .column(self.arrival)
            .as_primitive::<TimestampMillisecondType>();
        let n = times.len();
        let from = self.released;
        let upto = from + times.values()[from..].partition_point(|t| *t <= now);
        // Rows skipped as malformed go out with the rows around them.
        let before_line = held.lines.get(upto).copied().unwrap_or(u64::MAX);
        let (skipped, kept): (Vec<_>, Vec<_>) = held
            .skipped
            .iter()
            .cloned()
            .partition(|b| b.line < before_line);
        if upto > from {
            self.last_released = Some(times.value(upto - 1));
        }
        let out = ReadBatch {
            batch: held.batch.slice(from, upto - from),
            lines: held.lines[from..upto].to_vec(),
            raw: held
                .raw
                .get(from..upto)
                .map(<[_]>::to_vec)
                .unwrap_or_default(),
            skipped,
        };
        if upto == n && kept.is_empty() {
            // Read the next rows now, so that the clock knows when they
            // arrive.
            self.held = None;
            if let Err(e) = self.hold_next() {
                self.pending = Some(e);
            }
        } else if let Some(held) = self.held.as_mut() {
            held.skipped = kept;
            self.released = upto;
        }
        Ok(Some(out))
    }

    fn may_pause(&self) -> bool {
        true
    }

    fn wake_at(&self) -> Option<i64> {
        self.next_arrival().filter(|t| *t > self.clock.now())
    }

    fn last_arrival(&self) -> Option<i64> {
        self.last_released
    }

    fn stats(&self) -> ReadStats {
        let mut stats = self.inner.stats();
        if let Some(held) = &self.held {
            stats.rows_read -= (held.lines.len() - self.released) as u64;
        }
        stats
    }

    fn keep_raw(&mut self) {
        self.inner.keep_raw();
    }

    fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
        self.inner.set_time_zone(tz);
    }

    /// A replay reads ahead of its clock, so the file's position is not
    /// the replay's: it is not checkpointed.
    fn unpositioned(&self) -> Option<&'static str> {
        Some("a replay")
    }
}
