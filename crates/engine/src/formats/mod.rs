//! How rows are written as text and read from it: the csv and json
//! formats that decode bytes for any connector carrying them ([`csv`],
//! [`json`]), how a row is written as a line of either ([`encode`]) and
//! how a batch's lines are put together from their columns' texts
//! ([`lines`]), the Arrow columns both fill from text ([`column`]), the
//! rules by which text becomes a value, which CAST and the connectors
//! share ([`text`]), what reading any table's options shares
//! ([`options`]), Flink's print format of changelog rows ([`print`]), and
//! the caret picture under a data error ([`excerpt`]), the raw format
//! of a whole Kafka key or value ([`raw`]), and the marking of bytes a
//! block at a time that both readers scan by ([`marks`]).

mod column;
pub mod csv;
pub mod encode;
pub mod excerpt;
pub mod json;
mod lines;
mod marks;
pub(crate) mod options;
pub mod print;
pub mod raw;
pub(crate) mod text;

use crate::runtime::read::{ReadBatch, ReadPosition, ReadStats};
use csv::{CsvOptions, CsvSource};
use json::{JsonOptions, JsonSource};
use std::collections::BTreeMap;
use std::io::Read;
use tidemark_common::connector::FormatDecl;
use tidemark_common::{Result, SqlType};

/// Every format a connector can carry.
pub static FORMATS: &[&FormatDecl] = &[&csv::DECLARATION, &json::DECLARATION, &raw::DECLARATION];

/// A format's reader over one byte stream: it decodes records into
/// batches of a table's physical columns, for any connector that carries
/// the format.
pub trait FormatReader: Send {
    fn next_batch(&mut self) -> Result<Option<ReadBatch>>;
    fn stats(&self) -> ReadStats;
    /// Keeps each malformed record's text, for a bad-record sink.
    fn keep_raw(&mut self);
    fn set_time_zone(&mut self, tz: chrono_tz::Tz);
    /// See [`crate::connectors::split::SplitReader::leave_unread`].
    fn leave_unread(&mut self, unread: &[bool]);
    /// Keeps a checksum of the bytes read, for positions.
    fn hash_prefix(&mut self);
    fn position(&self) -> Option<ReadPosition>;
    fn between_batches(&self) -> bool;
    /// Goes on reading `input`, which stands at `at`.
    fn resume(&mut self, input: Box<dyn Read + Send>, at: &ReadPosition);
    /// At the end of the input, waits `interval` and reads again.
    fn follow(&mut self, interval: std::time::Duration);
    /// Hands rows over as they come, the end being the writer's close.
    fn stream(&mut self);
}

/// How a byte stream's end is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The end is the end of the input (a file read once).
    Final,
    /// The end is where the input stands now: it is read again this often
    /// (a followed file).
    Follow(std::time::Duration),
    /// Rows go out as they come, and the end is the writer closing it
    /// (a pipe).
    Stream,
}

/// A table's format reader, and whether it skips what does not parse.
pub struct Decoder {
    pub reader: Box<dyn FormatReader>,
    pub ignore_parse_errors: bool,
}

/// Whether the format `options` name (csv unless json) skips malformed
/// rows (`csv.ignore-parse-errors` / `json.ignore-parse-errors`).
pub fn ignores_parse_errors(options: &BTreeMap<String, String>) -> Result<bool> {
    Ok(
        if options.get("format").map(String::as_str) == Some("json") {
            JsonOptions::from_options(options)?.ignore_parse_errors
        } else {
            CsvOptions::from_options(options)?.ignore_parse_errors
        },
    )
}

/// Opens the reader of the format `options` name (csv unless json) over
/// `input`, named `display` in messages.
pub fn open_decoder(
    options: &BTreeMap<String, String>,
    input: Box<dyn Read + Send>,
    display: String,
    columns: Vec<(String, SqlType)>,
    batch_size: usize,
    ending: Ending,
) -> Result<Decoder> {
    let (mut reader, ignore_parse_errors): (Box<dyn FormatReader>, bool) =
        if options.get("format").map(String::as_str) == Some("json") {
            let options = JsonOptions::from_options(options)?;
            let ignore = options.ignore_parse_errors;
            let reader = JsonSource::from_reader(input, display, columns, options, batch_size)?;
            (Box::new(reader), ignore)
        } else {
            let options = CsvOptions::from_options(options)?;
            let ignore = options.ignore_parse_errors;
            let reader = CsvSource::from_reader(input, display, columns, options, batch_size)?;
            (Box::new(reader), ignore)
        };
    match ending {
        Ending::Final => {}
        Ending::Follow(interval) => reader.follow(interval),
        Ending::Stream => reader.stream(),
    }
    Ok(Decoder {
        reader,
        ignore_parse_errors,
    })
}

/// A format's reader over the file at `path`, made by `from_reader`;
/// `display_path` names the file in errors. The tests of both formats read
/// their files this way.
#[cfg(test)]
fn open_file<R>(
    path: &std::path::Path,
    display_path: String,
    from_reader: impl FnOnce(Box<dyn Read + Send>, String) -> Result<R>,
) -> Result<R> {
    let file = std::fs::File::open(path)
        .map_err(|e| tidemark_common::Error::io(format!("cannot open '{display_path}'"), e))?;
    from_reader(Box::new(file), display_path)
}

/// Both text formats read the same way through [`FormatReader`].
macro_rules! format_reader {
    ($reader:ty) => {
        impl FormatReader for $reader {
            fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
                <$reader>::next_batch(self)
            }
            fn stats(&self) -> ReadStats {
                <$reader>::stats(self)
            }
            fn keep_raw(&mut self) {
                <$reader>::keep_raw(self)
            }
            fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
                <$reader>::set_time_zone(self, tz)
            }
            fn leave_unread(&mut self, unread: &[bool]) {
                <$reader>::leave_unread(self, unread)
            }
            fn hash_prefix(&mut self) {
                <$reader>::hash_prefix(self)
            }
            fn position(&self) -> Option<ReadPosition> {
                <$reader>::position(self)
            }
            fn between_batches(&self) -> bool {
                <$reader>::between_batches(self)
            }
            fn resume(&mut self, input: Box<dyn Read + Send>, at: &ReadPosition) {
                <$reader>::resume(self, input, at)
            }
            fn follow(&mut self, interval: std::time::Duration) {
                <$reader>::follow(self, interval)
            }
            fn stream(&mut self) {
                <$reader>::stream(self)
            }
        }
    };
}

format_reader!(CsvSource);
format_reader!(JsonSource);
