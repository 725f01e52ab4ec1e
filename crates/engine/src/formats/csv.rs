//! The `'format' = 'csv'` source: reads a header-less CSV file, as Flink's
//! CSV format does, into Arrow record batches.
//!
//! This module owns the `csv.*` table options, the text-to-value rules of
//! every SQL type, line numbers, and what a bad row does: stop the query
//! with an error naming file, line and field, or — under
//! `'csv.ignore-parse-errors' = 'true'` — repair or drop it and count that
//! in [`ReadStats`].
//!
//! Flink's behaviour that is kept on purpose:
//! - An empty line is a row of one empty field (a short row), not skipped;
//!   with `csv.allow-comments`, blank lines, lines of spaces and lines whose
//!   first non-space is `#` are skipped, and leading spaces of a line are
//!   dropped.
//! - INT, BIGINT, DOUBLE, BOOLEAN and TIMESTAMP text is trimmed; DECIMAL and
//!   STRING text is not.
//! - BOOLEAN is `true` in any case, and anything else is `false`.
//! - DOUBLE takes Java's syntax (`1d`, `.5`, `NaN`, `-Infinity`, `1e400` is
//!   Infinity); DECIMAL rounds HALF_UP to its scale.
//! - TIMESTAMP is `yyyy-MM-dd HH:mm:ss[.f…]` with 0-9 fraction digits; a day
//!   past the end of its month is clamped to the last day, and `24:00:00`
//!   is midnight of the next day. TIMESTAMP_LTZ text ends in `Z` and is UTC.
//! - The null literal is compared with the field as read, quoted or not,
//!   case-sensitively.
//!
//! Where tidemark goes further than Flink:
//! - TIMESTAMP_LTZ text without `Z` is a wall-clock time in the session
//!   time zone.
//! - A DECIMAL with too many integer digits is a parse error (Flink reads
//!   NULL without a word); invalid UTF-8 is an error naming the field, and
//!   under ignore-parse-errors drops the row (Flink fails either way).
//! - `csv.null-literal = ''` makes an empty field NULL for every type.

use crate::runtime::read::{ReadBatch, ReadPosition, ReadStats};
use crate::runtime::stream::BadRow;
use arrow::array::{
    ArrayRef, BooleanBuilder, Decimal128Builder, Float64Builder, Int32Builder, Int64Builder,
    StringBuilder, TimestampMillisecondBuilder,
};
use arrow::datatypes::{Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use chrono::{NaiveDate, Offset, TimeZone};
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::Arc;
use tidemark_common::connector::{FormatDecl, OptionDecl, ValueKind};
use tidemark_common::{Error, Result, Span, SqlType};

/// The `csv.*` options of a table, as Flink names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvOptions {
    pub field_delimiter: u8,
    /// None when `csv.disable-quote-character` is set.
    pub quote_character: Option<u8>,
    pub escape_character: Option<u8>,
    pub allow_comments: bool,
    pub ignore_parse_errors: bool,
    pub null_literal: Option<String>,
    /// Not a table option: Flink reads an empty line as a row of one empty
    /// field; setting this skips such lines instead.
    pub skip_empty_lines: bool,
    /// `'csv.header' = 'true'` (tidemark's own): the first record holds
    /// column names and is skipped.
    pub header: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            field_delimiter: b',',
            quote_character: Some(b'"'),
            escape_character: None,
            allow_comments: false,
            ignore_parse_errors: false,
            null_literal: None,
            skip_empty_lines: false,
            header: false,
        }
    }
}

/// Every `csv.*` key Flink's CSV format knows, and tidemark's `csv.header`.
/// The csv format's declaration: its options, Flink's names but for
/// `csv.header`.
pub static DECLARATION: FormatDecl = FormatDecl {
    name: "csv",
    doc: "comma-separated values, one row per line, as Flink's csv format reads and writes them",
    options: &[
        OptionDecl::flink(
            "csv.field-delimiter",
            "the field separator; Java escapes such as '\\t' are read",
        )
        .default_value(",")
        .checked(|v| {
            single_ascii("csv.field-delimiter", v, &unescape_java(v))
                .map(drop)
                .map_err(|e| e.to_string())
        }),
        OptionDecl::flink("csv.quote-character", "the character around quoted fields")
            .default_value("\"")
            .checked(|v| one_character("csv.quote-character", v)),
        OptionDecl::flink(
            "csv.disable-quote-character",
            "read quotes as plain characters",
        )
        .default_value("false")
        .kind(ValueKind::Bool),
        OptionDecl::flink("csv.allow-comments", "skip lines that start with '#'")
            .default_value("false")
            .kind(ValueKind::Bool),
        OptionDecl::flink(
            "csv.ignore-parse-errors",
            "skip or null what does not parse, and count it, instead of failing",
        )
        .default_value("false")
        .kind(ValueKind::Bool),
        OptionDecl::flink("csv.null-literal", "the text read as NULL"),
        OptionDecl::flink(
            "csv.escape-character",
            "the character that escapes the next one",
        )
        .checked(|v| one_character("csv.escape-character", v)),
        OptionDecl::flink(
            "csv.array-element-delimiter",
            "the separator of array elements (checked; tidemark has no ARRAY columns)",
        )
        .checked(|v| one_character("csv.array-element-delimiter", v)),
        OptionDecl::flink(
            "csv.write-bigdecimal-in-scientific-notation",
            "a writing option, accepted so that one table serves both ways",
        )
        .kind(ValueKind::Bool),
        OptionDecl::own(
            "csv.header",
            "the first line holds column names and is skipped",
        )
        .default_value("false")
        .kind(ValueKind::Bool),
    ],
    check: |options| {
        CsvOptions::from_options(options)
            .map(drop)
            .map_err(|e| e.to_string())
    },
};

impl CsvOptions {
    /// From the WITH options of a table (other keys are left alone; which
    /// keys a table may have was checked against [`DECLARATION`] when it
    /// was declared).
    pub fn from_options(options: &BTreeMap<String, String>) -> Result<Self> {
        let mut out = CsvOptions::default();
        let get = |key: &str| options.get(key).map(String::as_str);
        if let Some(v) = get("csv.field-delimiter") {
            out.field_delimiter = single_ascii("csv.field-delimiter", v, &unescape_java(v))?;
        }
        let disable_quote = parse_bool_option(options, "csv.disable-quote-character")?;
        match (disable_quote, get("csv.quote-character")) {
            (Some(true), Some(_)) => {
                return Err(option_error(
                    "the csv format cannot have both 'csv.quote-character' and \
                     'csv.disable-quote-character' = 'true'"
                        .to_string(),
                ))
            }
            (Some(true), None) => out.quote_character = None,
            (_, Some(v)) => out.quote_character = Some(single_ascii("csv.quote-character", v, v)?),
            (_, None) => {}
        }
        if let Some(v) = get("csv.escape-character") {
            out.escape_character = Some(single_ascii("csv.escape-character", v, v)?);
        }
        if let Some(v) = get("csv.array-element-delimiter") {
            // Only ARRAY columns use it, and tidemark has none; still
            // validated so a typo fails as it does in Flink.
            single_ascii("csv.array-element-delimiter", v, v)?;
        }
        // A writing option; accepted so that one table can serve both ways.
        parse_bool_option(options, "csv.write-bigdecimal-in-scientific-notation")?;
        out.allow_comments = parse_bool_option(options, "csv.allow-comments")?.unwrap_or(false);
        out.ignore_parse_errors =
            parse_bool_option(options, "csv.ignore-parse-errors")?.unwrap_or(false);
        out.null_literal = get("csv.null-literal").map(str::to_string);
        out.header = parse_bool_option(options, "csv.header")?.unwrap_or(false);
        Ok(out)
    }
}

pub(crate) fn option_error(message: String) -> Error {
    Error::plan(message, Span::default())
}

pub(crate) fn parse_bool_option(
    options: &BTreeMap<String, String>,
    key: &str,
) -> Result<Option<bool>> {
    match options.get(key) {
        None => Ok(None),
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(Some(true)),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(Some(false)),
        Some(v) => Err(option_error(format!(
            "option '{key}' must be 'true' or 'false', not '{v}'"
        ))),
    }
}

/// The one byte of a single-character option; `written` is the value as
/// the user wrote it, for the message.
fn single_ascii(key: &str, written: &str, value: &str) -> Result<u8> {
    let mut chars = value.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii() => Ok(c as u8),
        (Some(_), None) => Err(option_error(format!(
            "option '{key}' must be a single ASCII character, but was: {written}"
        ))),
        _ => Err(option_error(format!(
            "option '{key}' must be a string with single character, but was: {written}"
        ))),
    }
}

/// The check of an option that takes one character, as written.
fn one_character(key: &str, value: &str) -> std::result::Result<(), String> {
    single_ascii(key, value, value)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Java string escapes, as Flink applies them to `csv.field-delimiter`, so
/// that `'\t'` (backslash, t) means a tab.
fn unescape_java(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\x0c'),
            Some('b') => out.push('\x08'),
            Some('u') => {
                let hex: String = (0..4).filter_map(|_| chars.next()).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) if hex.len() == 4 => out.push(ch),
                    _ => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Where a data error's caret goes in the record it shows.
#[derive(Clone, Copy)]
enum Mark {
    Field(usize),
    /// From this field to the end of the record.
    FieldsFrom(usize),
    /// Just after the record.
    End,
}

/// The input bytes and the parser state between records.
struct Input {
    file: Box<dyn Read + Send>,
    /// Follow a growing file: at its end, wait this long and read again
    /// (`source.monitor-interval`) instead of ending.
    follow: Option<std::time::Duration>,
    /// In follow mode, the end of the data so far was reached between
    /// records: the batch goes out as it is.
    idle: bool,
    /// The last record ended with `\r`; its text is then in `cr_record`.
    ended_by_cr: bool,
    cr_record: Vec<u8>,
    buf: Vec<u8>,
    /// The offset in the file of `buf[0]`.
    base: u64,
    /// For checkpoints: the CRC-32 of the bytes read, up to `hashed`
    /// (bytes are hashed before the buffer lets them go).
    prefix: Option<crc32fast::Hasher>,
    hashed: u64,
    /// First byte not yet consumed.
    pos: usize,
    /// First byte of the record being read; bytes from here on are kept
    /// across refills so that the record's raw text stays at hand.
    rec_start: usize,
    end: usize,
    eof: bool,
    /// Line of the byte at `pos`, 1-based.
    line: u64,
    core: csv_core::Reader,
    /// Field bytes of the current record, and where each field ends.
    fields: Vec<u8>,
    ends: Vec<usize>,
    nfields: usize,
    /// Keep each record's raw text in `raw` (for a bad-records sink).
    keep_raw: bool,
    raw: Vec<u8>,
}

enum Next {
    Record {
        line: u64,
    },
    /// A record whose quote is never closed; it runs to the end of file.
    Unterminated {
        line: u64,
        field: usize,
    },
    End,
}

const READ_CHUNK: usize = 256 * 1024;

impl Input {
    /// Reads more of the file; false at end of file.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.rec_start > 0 {
            if let Some(prefix) = self.prefix.as_mut() {
                let from = (self.hashed - self.base) as usize;
                prefix.update(&self.buf[from..self.rec_start]);
                self.hashed = self.base + self.rec_start as u64;
            }
            self.base += self.rec_start as u64;
            self.buf.copy_within(self.rec_start..self.end, 0);
            self.pos -= self.rec_start;
            self.end -= self.rec_start;
            self.rec_start = 0;
        }
        if self.end == self.buf.len() {
            let grown = self.buf.len().max(READ_CHUNK) * 2;
            self.buf.resize(grown, 0);
        }
        loop {
            let between_records = self.rec_start == self.end && self.pos == self.end;
            match self.file.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    let Some(interval) = self.follow else {
                        self.eof = true;
                        return Ok(false);
                    };
                    if between_records {
                        // The end of the data so far.
                        self.idle = true;
                        return Ok(false);
                    }
                    // A record being written: wait for the rest of it.
                    std::thread::sleep(interval.min(std::time::Duration::from_millis(100)));
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                // A pipe with nothing for now (the read has already waited
                // a little): rows so far go out; inside a record, wait on.
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if between_records {
                        self.idle = true;
                        return Ok(false);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The next byte, reading more if needed; None at end of file.
    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        if self.pos == self.end && !self.fill()? {
            return Ok(None);
        }
        Ok(Some(self.buf[self.pos]))
    }

    /// Consumes a line end that starts with `\r`: `\r\n` or a lone `\r`.
    fn finish_cr_line(&mut self) -> std::io::Result<()> {
        self.line += 1;
        self.rec_start = self.pos;
        if self.peek()? == Some(b'\n') {
            self.pos += 1;
        }
        Ok(())
    }

    /// Skips to the end of the current line, line end included.
    fn skip_line(&mut self) -> std::io::Result<()> {
        loop {
            self.rec_start = self.pos;
            let Some(b) = self.peek()? else { return Ok(()) };
            self.pos += 1;
            match b {
                b'\n' => {
                    self.line += 1;
                    return Ok(());
                }
                b'\r' => return self.finish_cr_line(),
                _ => {}
            }
        }
    }

    fn set_empty_record(&mut self) {
        self.nfields = 1;
        self.ends[0] = 0;
        // Its text is empty, not the previous record's.
        self.raw.clear();
    }

    /// Reads the next record into `fields`/`ends`, handling what Flink does
    /// at the start of a line: empty lines, comments, leading spaces.
    fn next_record(&mut self, options: &CsvOptions) -> std::io::Result<Next> {
        self.ended_by_cr = false;
        loop {
            self.rec_start = self.pos;
            let Some(b) = self.peek()? else {
                return Ok(Next::End);
            };
            if b == b'\n' || b == b'\r' {
                let line = self.line;
                self.pos += 1;
                if b == b'\n' {
                    self.line += 1;
                } else {
                    self.finish_cr_line()?;
                }
                if options.allow_comments || options.skip_empty_lines {
                    continue;
                }
                self.set_empty_record();
                return Ok(Next::Record { line });
            }
            if options.allow_comments {
                if b == b' ' {
                    self.pos += 1;
                    continue;
                }
                if b == b'#' {
                    self.skip_line()?;
                    continue;
                }
            }
            break;
        }
        let line = self.line;
        self.core.reset();
        let (mut out_len, mut ends_len) = (0, 0);
        loop {
            let input_was_empty = self.pos == self.end;
            let (result, n_in, n_out, n_ends) = self.core.read_record(
                &self.buf[self.pos..self.end],
                &mut self.fields[out_len..],
                &mut self.ends[ends_len..],
            );
            self.pos += n_in;
            out_len += n_out;
            ends_len += n_ends;
            match result {
                // Empty input means end of file to the parser, which then
                // always finishes; the check only guards against a hang.
                csv_core::ReadRecordResult::InputEmpty if input_was_empty && self.eof => break,
                csv_core::ReadRecordResult::InputEmpty => {
                    self.fill()?;
                }
                csv_core::ReadRecordResult::OutputFull => {
                    let grown = self.fields.len() * 2;
                    self.fields.resize(grown, 0);
                }
                csv_core::ReadRecordResult::OutputEndsFull => {
                    let grown = self.ends.len() * 2;
                    self.ends.resize(grown, 0);
                }
                csv_core::ReadRecordResult::Record | csv_core::ReadRecordResult::End => break,
            }
        }
        self.nfields = ends_len;
        // The parser counts the `\n`s it consumed, quoted ones included.
        self.line += self.core.line() - 1;
        if ends_len == 0 {
            // Only reachable if the parser saw nothing, which the line-start
            // checks above rule out; treat it as the end.
            return Ok(Next::End);
        }
        if self.keep_raw {
            let raw = &self.buf[self.rec_start..self.pos];
            let text = raw.strip_suffix(b"\n").unwrap_or(raw);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            self.raw.clear();
            self.raw.extend_from_slice(text);
        }
        if self.eof && self.pos == self.end {
            let raw = &self.buf[self.rec_start..self.pos];
            if let Some(field) = unterminated_quote(raw, options) {
                return Ok(Next::Unterminated { line, field });
            }
        }
        self.ended_by_cr = self.pos > self.rec_start && self.buf[self.pos - 1] == b'\r';
        if self.ended_by_cr {
            // Finishing the line moves the buffer past the record: keep
            // its text for an error to show.
            self.cr_record.clear();
            self.cr_record
                .extend_from_slice(&self.buf[self.rec_start..self.pos]);
            self.finish_cr_line()?;
        }
        Ok(Next::Record { line })
    }

    fn field(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.fields[start..self.ends[i]]
    }
}

/// The index of the field whose quote is still open at the end of `raw`,
/// by the same rules as the parser: a quote opens a field only as its first
/// byte, and a doubled quote or an escaped byte inside stays in it.
fn unterminated_quote(raw: &[u8], options: &CsvOptions) -> Option<usize> {
    let quote = options.quote_character?;
    let (mut field, mut at_start, mut in_quotes) = (0, true, false);
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if in_quotes {
            if Some(b) == options.escape_character {
                i += 1;
            } else if b == quote {
                if raw.get(i + 1) == Some(&quote) {
                    i += 1;
                } else {
                    in_quotes = false;
                }
            }
        } else if b == options.field_delimiter {
            field += 1;
            at_start = true;
            i += 1;
            continue;
        } else if at_start && b == quote {
            in_quotes = true;
        }
        at_start = false;
        i += 1;
    }
    in_quotes.then_some(field)
}

/// One output column: its Arrow builder and how text becomes a value.
pub(crate) enum ColumnBuilder {
    Boolean(BooleanBuilder),
    Int(Int32Builder),
    BigInt(Int64Builder),
    Double(Float64Builder),
    Decimal(Decimal128Builder, u8, i8),
    String(StringBuilder),
    Timestamp(TimestampMillisecondBuilder),
    TimestampLtz(TimestampMillisecondBuilder),
}

impl ColumnBuilder {
    pub(crate) fn new(ty: &SqlType, capacity: usize) -> Option<Self> {
        Some(match ty {
            SqlType::Boolean => ColumnBuilder::Boolean(BooleanBuilder::with_capacity(capacity)),
            SqlType::Int => ColumnBuilder::Int(Int32Builder::with_capacity(capacity)),
            SqlType::BigInt => ColumnBuilder::BigInt(Int64Builder::with_capacity(capacity)),
            SqlType::Double => ColumnBuilder::Double(Float64Builder::with_capacity(capacity)),
            SqlType::Decimal(p, s) => ColumnBuilder::Decimal(
                Decimal128Builder::with_capacity(capacity)
                    .with_precision_and_scale(*p, *s)
                    .ok()?,
                *p,
                *s,
            ),
            SqlType::String => {
                ColumnBuilder::String(StringBuilder::with_capacity(capacity, capacity * 16))
            }
            SqlType::Timestamp(_) => {
                ColumnBuilder::Timestamp(TimestampMillisecondBuilder::with_capacity(capacity))
            }
            // The zone tag comes from the SQL type so that batches and schema
            // agree.
            SqlType::TimestampLtz(_) => ColumnBuilder::TimestampLtz(
                TimestampMillisecondBuilder::with_capacity(capacity).with_data_type(ty.to_arrow()),
            ),
            SqlType::Null => return None,
        })
    }

    pub(crate) fn append_null(&mut self) {
        match self {
            ColumnBuilder::Boolean(b) => b.append_null(),
            ColumnBuilder::Int(b) => b.append_null(),
            ColumnBuilder::BigInt(b) => b.append_null(),
            ColumnBuilder::Double(b) => b.append_null(),
            ColumnBuilder::Decimal(b, ..) => b.append_null(),
            ColumnBuilder::String(b) => b.append_null(),
            ColumnBuilder::Timestamp(b) | ColumnBuilder::TimestampLtz(b) => b.append_null(),
        }
    }

    /// Parses `text` and appends it; false, with nothing appended, when it
    /// does not parse.
    pub(crate) fn append_text(&mut self, text: &[u8], parser: &mut Parser) -> bool {
        match self {
            ColumnBuilder::Boolean(b) => match parse_boolean(text) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::Int(b) => match parse_i64(text).and_then(|v| i32::try_from(v).ok()) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::BigInt(b) => match parse_i64(text) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::Double(b) => match parse_java_double(text) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::Decimal(b, p, s) => match parse_decimal(text, *p, *s) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::String(b) => match std::str::from_utf8(text) {
                Ok(v) => b.append_value(v),
                Err(_) => return false,
            },
            ColumnBuilder::Timestamp(b) => match parser.timestamp(text, false) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::TimestampLtz(b) => match parser.timestamp(text, true) {
                Some(v) => b.append_value(v),
                None => return false,
            },
        }
        true
    }

    pub(crate) fn finish(&mut self) -> ArrayRef {
        match self {
            ColumnBuilder::Boolean(b) => Arc::new(b.finish()),
            ColumnBuilder::Int(b) => Arc::new(b.finish()),
            ColumnBuilder::BigInt(b) => Arc::new(b.finish()),
            ColumnBuilder::Double(b) => Arc::new(b.finish()),
            ColumnBuilder::Decimal(b, ..) => Arc::new(b.finish()),
            ColumnBuilder::String(b) => Arc::new(b.finish()),
            ColumnBuilder::Timestamp(b) | ColumnBuilder::TimestampLtz(b) => Arc::new(b.finish()),
        }
    }
}

/// State the value parsers keep between rows.
pub(crate) struct Parser {
    tz: chrono_tz::Tz,
    /// The last date parsed and its day number: timestamp columns mostly
    /// repeat the date of the row before.
    last_date: Option<((i32, u32, u32), i64)>,
}

/// Epoch milliseconds of a timestamp written as the CSV format reads it
/// (CAST from STRING uses the same rules); a date alone is its midnight.
pub(crate) fn parse_timestamp(text: &str, ltz: bool, tz: chrono_tz::Tz) -> Option<i64> {
    let mut parser = Parser {
        tz,
        last_date: None,
    };
    let trimmed = text.trim();
    if trimmed.len() == 10 {
        return parser.timestamp(format!("{trimmed} 00:00:00").as_bytes(), ltz);
    }
    parser.timestamp(trimmed.as_bytes(), ltz)
}

impl Parser {
    /// Value parsers for the session time zone `tz`.
    pub(crate) fn new(tz: chrono_tz::Tz) -> Self {
        Parser {
            tz,
            last_date: None,
        }
    }

    /// Epoch milliseconds of `yyyy-MM-dd HH:mm:ss[.fffffffff]`; for
    /// TIMESTAMP_LTZ with an optional `Z`. Like Flink, no `T` separator.
    fn timestamp(&mut self, text: &[u8], ltz: bool) -> Option<i64> {
        let t = java_trim(text);
        let (t, utc) = match t.split_last() {
            Some((b'Z', rest)) if ltz => (rest, true),
            _ => (t, false),
        };
        if t.len() < 19
            || t[4] != b'-'
            || t[7] != b'-'
            || t[10] != b' '
            || t[13] != b':'
            || t[16] != b':'
        {
            return None;
        }
        let year = digits(&t[0..4])? as i32;
        let month = digits(&t[5..7])?;
        let day = digits(&t[8..10])?;
        let mut hour = digits(&t[11..13])?;
        let minute = digits(&t[14..16])?;
        let second = digits(&t[17..19])?;
        let mut millis = 0;
        let mut fraction_is_zero = true;
        match &t[19..] {
            [] => {}
            [b'.', frac @ ..] if frac.len() <= 9 => {
                for (i, &d) in frac.iter().enumerate() {
                    if !d.is_ascii_digit() {
                        return None;
                    }
                    if i < 3 {
                        millis += u32::from(d - b'0') * [100, 10, 1][i];
                    }
                    fraction_is_zero &= d == b'0';
                }
            }
            _ => return None,
        }
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) || minute > 59 || second > 59 {
            return None;
        }
        let mut days = self.days_from_epoch(year, month, day)?;
        // As Java's resolver does: 24:00:00 is the midnight that ends the day.
        if hour == 24 && minute == 0 && second == 0 && fraction_is_zero {
            hour = 0;
            days += 1;
        } else if hour > 23 {
            return None;
        }
        let wall = days * 86_400_000
            + i64::from((hour * 60 + minute) * 60 + second) * 1000
            + i64::from(millis);
        if !ltz || utc || self.tz == chrono_tz::UTC {
            return Some(wall);
        }
        local_to_instant(wall, self.tz)
    }

    fn days_from_epoch(&mut self, year: i32, month: u32, day: u32) -> Option<i64> {
        if let Some((ymd, days)) = self.last_date {
            if ymd == (year, month, day) {
                return Some(days);
            }
        }
        // As Java's default resolver does, a day past the end of its month
        // is the month's last day (2019-02-29 is 2019-02-28).
        let date = (28..=day)
            .rev()
            .find_map(|d| NaiveDate::from_ymd_opt(year, month, d))
            .or_else(|| NaiveDate::from_ymd_opt(year, month, day))?;
        let days = date.signed_duration_since(UNIX_EPOCH_DATE).num_days();
        self.last_date = Some(((year, month, day), days));
        Some(days)
    }
}

const UNIX_EPOCH_DATE: NaiveDate = match NaiveDate::from_ymd_opt(1970, 1, 1) {
    Some(d) => d,
    None => NaiveDate::MIN,
};

/// The instant of a wall-clock time in `tz`. In a daylight-saving gap the
/// time moves forward by the gap and in an overlap the earlier instant
/// wins, as Java resolves local times.
pub(crate) fn local_to_instant(wall_ms: i64, tz: chrono_tz::Tz) -> Option<i64> {
    let naive = chrono::DateTime::from_timestamp_millis(wall_ms)?.naive_utc();
    let offset_secs = match tz.from_local_datetime(&naive).earliest() {
        Some(dt) => dt.offset().fix().local_minus_utc(),
        None => {
            let before = naive.checked_sub_signed(chrono::TimeDelta::days(1))?;
            tz.offset_from_utc_datetime(&before).fix().local_minus_utc()
        }
    };
    wall_ms.checked_sub(i64::from(offset_secs) * 1000)
}

/// A field as an error message shows it: long text is cut with an
/// ellipsis, so a huge field cannot make a huge message.
pub(crate) fn shorten(text: &str) -> String {
    const MAX_CHARS: usize = 80;
    match text.char_indices().nth(MAX_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// Digits only, as a number.
fn digits(text: &[u8]) -> Option<u32> {
    text.iter().try_fold(0u32, |acc, &d| {
        d.is_ascii_digit().then(|| acc * 10 + u32::from(d - b'0'))
    })
}

/// Java's `String.trim`: strips every byte up to and including space.
pub(crate) fn java_trim(text: &[u8]) -> &[u8] {
    let start = text.iter().position(|&b| b > b' ').unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|&b| b > b' ')
        .map_or(start, |i| i + 1);
    &text[start..end]
}

/// As Flink's CSV format reads BOOLEAN: `true` in any case is true and any
/// other text is false, never an error. Invalid UTF-8 is the one exception,
/// so that it is reported like in every other column.
fn parse_boolean(text: &[u8]) -> Option<bool> {
    let t = java_trim(text);
    if t.eq_ignore_ascii_case(b"true") {
        Some(true)
    } else if t.is_ascii() || std::str::from_utf8(t).is_ok() {
        Some(false)
    } else {
        None
    }
}

/// A decimal integer with an optional sign, trimmed; None past i64.
pub(crate) fn parse_i64(text: &[u8]) -> Option<i64> {
    let t = java_trim(text);
    let (negative, body) = match t.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, t),
    };
    if body.is_empty() {
        return None;
    }
    let mut magnitude: u64 = 0;
    for &d in body {
        if !d.is_ascii_digit() {
            return None;
        }
        magnitude = magnitude
            .checked_mul(10)?
            .checked_add(u64::from(d - b'0'))?;
    }
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// Java's `Double.parseDouble` on trimmed text: `1.5`, `-2`, `.5`, `5.`,
/// `1e3`, `1d`, `NaN`, `-Infinity`; out-of-range exponents give ±Infinity
/// or ±0. Hexadecimal floats are not read.
pub(crate) fn parse_java_double(text: &[u8]) -> Option<f64> {
    let t = java_trim(text);
    let (negative, body) = match t.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, t),
    };
    let magnitude = match body {
        b"NaN" => f64::NAN,
        b"Infinity" => f64::INFINITY,
        _ => {
            let number = match body.split_last()? {
                (b'd' | b'D' | b'f' | b'F', rest) => rest,
                _ => body,
            };
            match short_decimal(number) {
                Some(v) => v,
                None if is_java_decimal_float(number) => {
                    std::str::from_utf8(number).ok()?.parse::<f64>().ok()?
                }
                None => return None,
            }
        }
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// `digits [. digits]` with at most 15 digits, the common case, read
/// without the general algorithm: the digits as an integer and the power
/// of ten are both exact in an f64, so the one division is rounded
/// correctly and gives the value `str::parse` gives.
fn short_decimal(t: &[u8]) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let (mut mantissa, mut digits, mut fraction) = (0u64, 0usize, None::<usize>);
    for &b in t {
        match b {
            b'0'..=b'9' => {
                digits += 1;
                // More digits than an f64 holds exactly: the general
                // parser reads them. Stopping here also keeps the u64
                // mantissa from overflowing on a long run of digits.
                if digits > 15 {
                    return None;
                }
                mantissa = mantissa * 10 + u64::from(b - b'0');
                if let Some(f) = fraction.as_mut() {
                    *f += 1;
                }
            }
            b'.' if fraction.is_none() => fraction = Some(0),
            _ => return None,
        }
    }
    if digits == 0 {
        return None;
    }
    Some(mantissa as f64 / POW10[fraction.unwrap_or(0)])
}

/// `digits [. digits] [e [sign] digits]` with a digit before or after the
/// point; what Java and Rust both read the same way.
fn is_java_decimal_float(t: &[u8]) -> bool {
    let int_len = t.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut rest = &t[int_len..];
    let mut frac_len = 0;
    if let Some((b'.', after)) = rest.split_first() {
        frac_len = after.iter().take_while(|b| b.is_ascii_digit()).count();
        rest = &after[frac_len..];
    }
    if int_len + frac_len == 0 {
        return false;
    }
    match rest.split_first() {
        None => true,
        Some((b'e' | b'E', exp)) => {
            let exp = match exp.split_first() {
                Some((b'+' | b'-', digits)) => digits,
                _ => exp,
            };
            !exp.is_empty() && exp.iter().all(u8::is_ascii_digit)
        }
        Some(_) => false,
    }
}

/// Java's `new BigDecimal(text)` (no trimming) rounded HALF_UP to `scale`,
/// as the unscaled value; None when it does not parse or needs more than
/// `precision` digits.
pub(crate) fn parse_decimal(text: &[u8], precision: u8, scale: i8) -> Option<i128> {
    let (negative, body) = match text.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, text),
    };
    let int_len = body.iter().take_while(|b| b.is_ascii_digit()).count();
    let (int_digits, mut rest) = body.split_at(int_len);
    let mut frac_digits: &[u8] = &[];
    if let Some((b'.', after)) = rest.split_first() {
        let n = after.iter().take_while(|b| b.is_ascii_digit()).count();
        frac_digits = &after[..n];
        rest = &after[n..];
    }
    if int_digits.is_empty() && frac_digits.is_empty() {
        return None;
    }
    let exponent: i64 = match rest.split_first() {
        None => 0,
        Some((b'e' | b'E', exp)) => {
            let (sign, digits) = match exp.split_first() {
                Some((b'-', d)) => (-1, d),
                Some((b'+', d)) => (1, d),
                _ => (1, exp),
            };
            // BigDecimal takes an int exponent.
            if digits.is_empty() || digits.len() > 10 || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let e = sign
                * digits
                    .iter()
                    .fold(0i64, |a, &d| a * 10 + i64::from(d - b'0'));
            i32::try_from(e).ok()?;
            e
        }
        Some(_) => return None,
    };
    // The value is 0.D × 10^point for the digits D; the unscaled result
    // keeps the first `point + scale` of them and rounds on the next one.
    let all_digits = || int_digits.iter().chain(frac_digits);
    let n_digits = (int_digits.len() + frac_digits.len()) as i64;
    let keep = int_digits.len() as i64 + exponent + i64::from(scale);
    let limit = 10i128.checked_pow(u32::from(precision))?;
    let mut unscaled: i128 = 0;
    // Checked steps: one more digit past the limit can overflow i128.
    for &d in all_digits().take(keep.clamp(0, n_digits) as usize) {
        unscaled = unscaled
            .checked_mul(10)?
            .checked_add(i128::from(d - b'0'))?;
        if unscaled >= limit {
            return None;
        }
    }
    if unscaled != 0 {
        for _ in n_digits..keep {
            unscaled = unscaled.checked_mul(10)?;
            if unscaled >= limit {
                return None;
            }
        }
    }
    let round_digit = if (0..n_digits).contains(&keep) {
        all_digits().nth(keep as usize).copied().unwrap_or(b'0')
    } else {
        b'0'
    };
    if round_digit >= b'5' {
        unscaled += 1;
        if unscaled >= limit {
            return None;
        }
    }
    Some(if negative { -unscaled } else { unscaled })
}

/// Reads one CSV file as Flink's CSV format does, a batch at a time.
pub struct CsvSource {
    display_path: String,
    columns: Vec<(String, SqlType)>,
    options: CsvOptions,
    batch_size: usize,
    schema: SchemaRef,
    builders: Vec<ColumnBuilder>,
    parser: Parser,
    input: Input,
    stats: ReadStats,
    /// Set after the end of file or an error: later calls return None.
    done: bool,
    /// An error met after some rows of a batch: reported by the next call,
    /// once those rows have gone out.
    pending_error: Option<Error>,
    raw: Vec<String>,
    skipped: Vec<BadRow>,
    /// Whether the header line (`csv.header`) has been passed.
    header_skipped: bool,
    /// Send rows as they come rather than in full batches (standard
    /// input, a followed file).
    streaming: bool,
    /// The last record was cut off inside a quoted field.
    ended_in_open_quote: bool,
}

impl CsvSource {
    /// Send rows as soon as the input has no more for now, instead of
    /// waiting for a full batch.
    pub fn stream(&mut self) {
        self.streaming = true;
    }

    /// Follow the file as it grows (`source.monitor-interval`): at its end,
    /// batches (possibly empty) go out and reading resumes after `interval`.
    pub fn follow(&mut self, interval: std::time::Duration) {
        self.streaming = true;
        self.input.follow = Some(interval);
    }

    /// Keep each row's text, and the rows skipped as malformed, so they
    /// can be written to a bad-records sink.
    pub fn keep_raw(&mut self) {
        self.input.keep_raw = true;
    }

    fn raw_text(&self) -> String {
        String::from_utf8_lossy(&self.input.raw).into_owned()
    }

    /// Counts a malformed row as skipped, keeping it when asked.
    fn skip(&mut self, line: u64, error: String) {
        self.stats.rows_skipped += 1;
        if self.input.keep_raw {
            self.skipped.push(BadRow {
                line,
                raw: self.raw_text(),
                error,
            });
        }
    }

    /// `display_path` is how errors name the file (e.g. the path as written
    /// in the SQL). `columns`: the physical columns in file order with their
    /// SQL types.
    #[cfg(test)]
    pub fn open(
        path: &std::path::Path,
        display_path: String,
        columns: Vec<(String, SqlType)>,
        options: CsvOptions,
        batch_size: usize,
    ) -> Result<Self> {
        let file = std::fs::File::open(path)
            .map_err(|e| Error::io(format!("cannot open '{display_path}'"), e))?;
        Self::from_reader(Box::new(file), display_path, columns, options, batch_size)
    }

    /// As [`CsvSource::open`], over any byte stream (standard input).
    pub fn from_reader(
        file: Box<dyn Read + Send>,
        display_path: String,
        columns: Vec<(String, SqlType)>,
        options: CsvOptions,
        batch_size: usize,
    ) -> Result<Self> {
        let batch_size = batch_size.max(1);
        let mut builders = Vec::with_capacity(columns.len());
        for (name, ty) in &columns {
            if let SqlType::Decimal(p, s) = ty {
                if !(1..=38).contains(p) || *s < 0 || *s as u8 > *p {
                    return Err(option_error(format!(
                        "column '{name}' has type {ty}, which the csv format cannot read \
                         (precision 1 to 38, scale 0 to precision)"
                    )));
                }
            }
            let builder = ColumnBuilder::new(ty, batch_size).ok_or_else(|| {
                option_error(format!(
                    "column '{name}' has type {ty}, which the csv format cannot read"
                ))
            })?;
            builders.push(builder);
        }
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
                .collect::<Vec<_>>(),
        ));
        let mut core = csv_core::ReaderBuilder::new();
        core.delimiter(options.field_delimiter)
            .quote(options.quote_character.unwrap_or(b'"'))
            .quoting(options.quote_character.is_some())
            .escape(options.escape_character)
            .double_quote(true);
        let input = Input {
            file,
            buf: vec![0; READ_CHUNK],
            base: 0,
            prefix: None,
            hashed: 0,
            pos: 0,
            rec_start: 0,
            end: 0,
            eof: false,
            line: 1,
            core: core.build(),
            fields: vec![0; 4096],
            ends: vec![0; columns.len().max(1) + 1],
            nfields: 0,
            keep_raw: false,
            raw: Vec::new(),
            follow: None,
            idle: false,
            ended_by_cr: false,
            cr_record: Vec::new(),
        };
        Ok(CsvSource {
            display_path,
            columns,
            options,
            batch_size,
            schema,
            builders,
            parser: Parser {
                tz: chrono_tz::UTC,
                last_date: None,
            },
            input,
            stats: ReadStats::default(),
            done: false,
            pending_error: None,
            raw: Vec::new(),
            skipped: Vec::new(),
            header_skipped: false,
            streaming: false,
            ended_in_open_quote: false,
        })
    }

    /// The session time zone: TIMESTAMP_LTZ text without `Z` is a
    /// wall-clock time there. UTC unless set.
    pub fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
        self.parser.tz = tz;
    }

    /// Reads a piece of a file that starts at a record: the header (if
    /// any) is behind it. Line numbers count from 1 in the piece; the
    /// caller shifts them.
    pub fn continue_after_header(&mut self) {
        self.header_skipped = true;
    }

    /// Numbers the input's lines from `line` on.
    pub fn start_at_line(&mut self, line: u64) {
        self.input.line = line;
    }

    /// Lines consumed so far (after the end: the lines of the input).
    pub fn lines_read(&self) -> u64 {
        self.input.line - 1
    }

    /// Keeps a CRC-32 of the bytes read, for [`CsvSource::position`]: called
    /// before the first read (a resumed source has one already).
    pub fn hash_prefix(&mut self) {
        if self.input.prefix.is_none() {
            self.input.prefix = Some(crc32fast::Hasher::new());
        }
    }

    /// Where the next record starts, between two batches (at the end of
    /// input: the end); None when the source cannot go on from a position
    /// (an error waits to be reported, a line is half read, or the bytes
    /// read are not hashed).
    pub fn position(&self) -> Option<ReadPosition> {
        let input = &self.input;
        let mut prefix = input.prefix.clone().filter(|_| self.between_batches())?;
        prefix.update(&input.buf[(input.hashed - input.base) as usize..input.pos]);
        Some(ReadPosition {
            offset: input.base + input.pos as u64,
            line: input.line,
            stats: self.stats.clone(),
            prefix_crc: prefix.finalize(),
        })
    }

    /// Whether [`CsvSource::position`] has a position to give (cheaply,
    /// without hashing).
    pub fn between_batches(&self) -> bool {
        self.pending_error.is_none()
            && self.raw.is_empty()
            && self.skipped.is_empty()
            && self.input.prefix.is_some()
    }

    /// Goes on from `at` in `file`, which must already stand at
    /// `at.offset` (a restart from a checkpoint).
    pub fn resume(&mut self, file: Box<dyn Read + Send>, at: &ReadPosition) {
        let input = &mut self.input;
        input.file = file;
        input.base = at.offset;
        input.hashed = at.offset;
        input.prefix = Some(crc32fast::Hasher::new_with_initial_len(
            at.prefix_crc,
            at.offset,
        ));
        (input.pos, input.rec_start, input.end) = (0, 0, 0);
        input.eof = false;
        input.line = at.line;
        self.header_skipped = true;
        self.stats = at.stats.clone();
    }

    /// Whether the input ended inside a quoted field: for a piece of a
    /// file, a sign that it was cut inside a record.
    pub fn ended_in_open_quote(&self) -> bool {
        self.ended_in_open_quote
    }

    /// Next batch of at most batch_size rows (never an empty batch), or None
    /// at end of file.
    pub fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        if self.done {
            return Ok(None);
        }
        match self.fill_batch() {
            Ok(None) => {
                self.done = true;
                Ok(None)
            }
            Ok(Some(batch)) => Ok(Some(batch)),
            Err(e) => {
                self.done = true;
                Err(e)
            }
        }
    }

    pub fn stats(&self) -> ReadStats {
        self.stats.clone()
    }

    fn fill_batch(&mut self) -> Result<Option<ReadBatch>> {
        if let Some(e) = self.pending_error.take() {
            return Err(e);
        }
        let mut lines = Vec::with_capacity(self.batch_size);
        if let Err(e) = self.read_rows(&mut lines) {
            if lines.is_empty() {
                return Err(e);
            }
            // The rows before the bad one go out first, so that what a query
            // prints before failing does not depend on the batch size. The
            // bad row may have left values in some builders: cut them off.
            self.pending_error = Some(e);
            let arrays: Vec<ArrayRef> = self
                .builders
                .iter_mut()
                .map(|b| b.finish().slice(0, lines.len()))
                .collect();
            let batch = RecordBatch::try_new(self.schema.clone(), arrays)?;
            self.stats.rows_read += lines.len() as u64;
            return Ok(Some(ReadBatch {
                batch,
                lines,
                raw: std::mem::take(&mut self.raw),
                skipped: std::mem::take(&mut self.skipped),
            }));
        }
        let idle = std::mem::take(&mut self.input.idle);
        if lines.is_empty() && self.skipped.is_empty() {
            if !idle {
                return Ok(None);
            }
            // Nothing new for now: wait a little (a pipe's read already
            // has), then hand back an empty batch so the query can be
            // stopped meanwhile.
            if let Some(interval) = self.input.follow {
                std::thread::sleep(interval.min(std::time::Duration::from_millis(200)));
            }
        }
        let arrays = self
            .builders
            .iter_mut()
            .map(ColumnBuilder::finish)
            .collect();
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)?;
        self.stats.rows_read += lines.len() as u64;
        Ok(Some(ReadBatch {
            batch,
            lines,
            raw: std::mem::take(&mut self.raw),
            skipped: std::mem::take(&mut self.skipped),
        }))
    }

    fn read_rows(&mut self, lines: &mut Vec<u64>) -> Result<()> {
        while lines.len() < self.batch_size {
            // A streaming input sends what it has before a read that may
            // wait for more.
            if self.streaming && !lines.is_empty() && self.input.pos == self.input.end {
                break;
            }
            if self.input.idle {
                break;
            }
            let next = self
                .input
                .next_record(&self.options)
                .map_err(|e| Error::io(format!("cannot read '{}'", self.display_path), e))?;
            match next {
                Next::End => break,
                Next::Unterminated { line, field } => {
                    self.ended_in_open_quote = true;
                    let name = self.columns.get(field).map_or("", |(n, _)| n.as_str());
                    if self.options.ignore_parse_errors {
                        let error = format!("field '{name}': missing closing quote");
                        self.skip(line, error);
                        continue;
                    }
                    return Err(
                        self.input_error(line, format!("field '{name}': missing closing quote"))
                    );
                }
                Next::Record { .. } if self.options.header && !self.header_skipped => {
                    self.header_skipped = true;
                }
                Next::Record { line } => {
                    if self.append_row(line)? {
                        lines.push(line);
                        if self.input.keep_raw {
                            self.raw.push(self.raw_text());
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Appends the current record as a row; false when it is dropped.
    fn append_row(&mut self, line: u64) -> Result<bool> {
        let mut found = self.input.nfields;
        let expected = self.columns.len();
        // As Flink's reader: one empty field after the last (a trailing
        // delimiter) is not a field.
        if found == expected + 1 && self.input.field(expected).is_empty() {
            found = expected;
        }
        let ignore = self.options.ignore_parse_errors;
        if found != expected && !ignore {
            // The caret: under the fields too many, or after the last.
            let mark = if found > expected {
                Mark::FieldsFrom(expected)
            } else {
                Mark::End
            };
            let excerpt = self.record_excerpt(line, mark);
            return Err(self.input_error(
                line,
                format!("expected {expected} fields, found {found}\n{excerpt}"),
            ));
        }
        if found > expected {
            // As Flink does: the row is dropped, not cut.
            self.skip(line, format!("expected {expected} fields, found {found}"));
            return Ok(false);
        }
        if let Some(i) = (0..found)
            .filter(|_| ignore)
            .find(|i| std::str::from_utf8(self.input.field(*i)).is_err())
        {
            // Checked first so that a dropped row leaves no values behind.
            let name = self.columns[i].0.clone();
            self.skip(line, format!("invalid UTF-8 in field '{name}'"));
            return Ok(false);
        }
        for i in 0..found {
            let text = self.input.field(i);
            if self.options.null_literal.as_deref().map(str::as_bytes) == Some(text) {
                self.builders[i].append_null();
            } else if !self.builders[i].append_text(text, &mut self.parser) {
                if ignore {
                    self.builders[i].append_null();
                    self.stats.fields_nulled += 1;
                } else {
                    return Err(self.field_error(line, i));
                }
            }
        }
        if found < expected {
            for builder in &mut self.builders[found..] {
                builder.append_null();
            }
            self.stats.rows_padded += 1;
        }
        Ok(true)
    }

    fn field_error(&self, line: u64, i: usize) -> Error {
        let (name, ty) = &self.columns[i];
        let text = self.input.field(i);
        let message = match std::str::from_utf8(text) {
            Ok(text) => format!("field '{name}': cannot parse '{}' as {ty}", shorten(text)),
            Err(_) => format!("invalid UTF-8 in field '{name}'"),
        };
        let excerpt = self.record_excerpt(line, Mark::Field(i));
        self.input_error(line, format!("{message}\n{excerpt}"))
    }

    /// The record just read, as the line it starts on shows it, with a
    /// caret where `mark` says: the same picture as under a SQL error.
    fn record_excerpt(&self, line: u64, mark: Mark) -> String {
        let raw = if self.input.ended_by_cr {
            &self.input.cr_record[..]
        } else {
            &self.input.buf[self.input.rec_start..self.input.pos]
        };
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        // Where each field starts and ends in the raw text: delimiters
        // outside quotes (close enough to place a caret).
        let quote = self.options.quote_character;
        let mut bounds = vec![0usize];
        let mut quoted = false;
        for (at, b) in raw.iter().enumerate() {
            if Some(*b) == quote {
                quoted = !quoted;
            } else if *b == self.options.field_delimiter && !quoted {
                bounds.push(at);
                bounds.push(at + 1);
            }
        }
        bounds.push(raw.len());
        let text = String::from_utf8_lossy(raw);
        let chars_before = |byte: usize| String::from_utf8_lossy(&raw[..byte]).chars().count();
        let total = text.chars().count();
        let field = |i: usize| Some((*bounds.get(2 * i)?, *bounds.get(2 * i + 1)?));
        let (from, to) = match mark {
            Mark::Field(i) => field(i).map(|(a, b)| (chars_before(a), chars_before(b))),
            Mark::FieldsFrom(i) => field(i).map(|(a, _)| (chars_before(a), total)),
            Mark::End => Some((total, total)),
        }
        .unwrap_or((0, total));
        crate::formats::excerpt::excerpt(line, &text, from, to)
    }

    fn input_error(&self, line: u64, message: String) -> Error {
        Error::Input(format!("{}:{line}: {message}", self.display_path))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_decimals_read_as_the_general_parser_reads_them() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut texts: Vec<String> = [
            "0",
            "0.0",
            "1.",
            ".5",
            "123456789012345",
            "0.000000000000001",
            "999999999999999",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let digits = format!("{}", state % 10u64.pow(1 + (state >> 60) as u32 % 15));
            let point = (state >> 40) as usize % (digits.len() + 1);
            texts.push(format!("{}.{}", &digits[..point], &digits[point..]));
        }
        for text in &texts {
            let want: f64 = text.parse().unwrap();
            let got = parse_java_double(text.as_bytes()).unwrap();
            assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        }
    }

    #[test]
    fn long_decimals_go_to_the_general_parser_without_overflow() {
        // Found by the csv fuzz target: digits worth more than u64::MAX
        // overflowed the exact short path's mantissa (a panic where
        // overflow is checked) before its 15-digit limit was looked at.
        for text in [
            "1234567890123456",
            "12345678901234567890",
            "99999999999999999999",
            "99999999999999999999999999",
            "0.00000000000000000000000001",
            "18446744073709551616.5",
            "-123456789012345678901234567890",
            "000000000000000000000000000001",
        ] {
            let want: f64 = text.parse().unwrap();
            let got = parse_java_double(text.as_bytes()).unwrap();
            assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        }
        assert_eq!(parse_java_double(b"12345678901234567890x"), None);
    }

    use super::*;
    use arrow::array::AsArray;
    use arrow::datatypes::{
        Decimal128Type, Float64Type, Int32Type, Int64Type, TimestampMillisecondType,
    };
    use std::io::Write;

    /// A file in the system temp directory, removed when dropped.
    struct TempCsv(std::path::PathBuf);

    impl TempCsv {
        fn new(content: &[u8]) -> Result<Self> {
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

    fn opts(pairs: &[(&str, &str)]) -> Result<CsvOptions> {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        CsvOptions::from_options(&map)
    }

    fn cols(spec: &[(&str, SqlType)]) -> Vec<(String, SqlType)> {
        spec.iter()
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect()
    }

    /// Reads the whole file; each row printed as Flink prints it, with its
    /// line number.
    fn read_all(
        content: &[u8],
        columns: &[(&str, SqlType)],
        options: CsvOptions,
        batch_size: usize,
    ) -> Result<(Vec<(u64, String)>, ReadStats)> {
        let file = TempCsv::new(content)?;
        let columns = cols(columns);
        let types: Vec<SqlType> = columns.iter().map(|(_, t)| t.clone()).collect();
        let mut source = CsvSource::open(&file.0, "t.csv".into(), columns, options, batch_size)?;
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
                    crate::formats::print::format_value(
                        column,
                        ty,
                        row,
                        chrono_tz::UTC,
                        &mut text,
                    )?;
                }
                rows.push((*line, text));
            }
        }
        Ok((rows, source.stats()))
    }

    fn read_err(content: &[u8], columns: &[(&str, SqlType)], options: CsvOptions) -> String {
        match read_all(content, columns, options, 3) {
            Ok(rows) => format!("no error: {rows:?}"),
            Err(e) => e.to_string(),
        }
    }

    fn rows(v: &[(u64, &str)]) -> Vec<(u64, String)> {
        v.iter().map(|(l, r)| (*l, r.to_string())).collect()
    }

    type Columns<'a> = &'a [(&'a str, SqlType)];
    type Rows<'a> = &'a [(u64, &'a str)];
    type Pairs<'a> = &'a [(&'a str, &'a str)];

    use SqlType::{BigInt, Boolean, Decimal, Double, Int, Null, Timestamp, TimestampLtz};

    #[test]
    fn options_from_with_clause() -> Result<()> {
        let o = opts(&[
            ("connector", "filesystem"),
            ("csv.field-delimiter", "\\t"),
            ("csv.quote-character", "'"),
            ("csv.allow-comments", "TRUE"),
            ("csv.ignore-parse-errors", "false"),
            ("csv.null-literal", ""),
            ("csv.escape-character", "\\"),
        ])?;
        assert_eq!(
            o,
            CsvOptions {
                field_delimiter: b'\t',
                quote_character: Some(b'\''),
                escape_character: Some(b'\\'),
                allow_comments: true,
                ignore_parse_errors: false,
                null_literal: Some(String::new()),
                skip_empty_lines: false,
                header: false,
            }
        );
        assert_eq!(opts(&[])?, CsvOptions::default());
        assert_eq!(
            opts(&[("csv.field-delimiter", "\\u0001")])?.field_delimiter,
            1
        );
        assert_eq!(
            opts(&[("csv.disable-quote-character", "true")])?.quote_character,
            None
        );
        Ok(())
    }

    #[test]
    fn bad_options() {
        let cases: &[(&[(&str, &str)], &str)] = &[
            (
                &[("csv.field-delimiter", ";;")],
                "option 'csv.field-delimiter' must be a string with single character, but was: ;;",
            ),
            (
                &[("csv.field-delimiter", "")],
                "option 'csv.field-delimiter' must be a string with single character, but was: ",
            ),
            (
                &[("csv.field-delimiter", "¦")],
                "option 'csv.field-delimiter' must be a single ASCII character, but was: ¦",
            ),
            (
                &[("csv.quote-character", "\\t")],
                "option 'csv.quote-character' must be a string with single character, but was: \\t",
            ),
            (
                &[("csv.ignore-parse-errors", "yes")],
                "option 'csv.ignore-parse-errors' must be 'true' or 'false', not 'yes'",
            ),
            (
                &[
                    ("csv.disable-quote-character", "true"),
                    ("csv.quote-character", "'"),
                ],
                "the csv format cannot have both 'csv.quote-character' and \
                 'csv.disable-quote-character' = 'true'",
            ),
        ];
        for (pairs, want) in cases {
            match opts(pairs) {
                Err(e @ Error::Plan { .. }) => assert_eq!(e.to_string(), *want),
                other => panic!("{pairs:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn reads_every_type() -> Result<()> {
        let data = b"k,1,-9000000000,1.5,11,true,2020-01-02 03:04:05.123,2020-01-02 03:04:05Z\n\
            \"q,\"\"x\"\"\", +7 , 8 ,1e3,-0.5,FALSE,1969-12-31 23:59:59.999,1969-12-31 23:59:59.999\n";
        let columns = [
            ("s", SqlType::String),
            ("i", Int),
            ("b", BigInt),
            ("d", Double),
            ("m", Decimal(10, 2)),
            ("f", Boolean),
            ("t", Timestamp(3)),
            ("l", TimestampLtz(3)),
        ];
        let (got, stats) = read_all(data, &columns, CsvOptions::default(), 10)?;
        assert_eq!(
            got,
            rows(&[
                (1, "k, 1, -9000000000, 1.5, 11.00, TRUE, 2020-01-02 03:04:05.123, 2020-01-02 03:04:05.000"),
                (2, "q,\"x\", 7, 8, 1000.0, -0.50, FALSE, 1969-12-31 23:59:59.999, 1969-12-31 23:59:59.999"),
            ])
        );
        assert_eq!(
            stats,
            ReadStats {
                rows_read: 2,
                ..ReadStats::default()
            }
        );
        Ok(())
    }

    #[test]
    fn arrow_types_and_values() -> Result<()> {
        let file = TempCsv::new(b"1,2,0.25,1.005,2020-01-01 00:00:00.5,x\n")?;
        let columns = cols(&[
            ("i", Int),
            ("b", BigInt),
            ("d", Double),
            ("m", Decimal(5, 2)),
            ("l", TimestampLtz(3)),
            ("s", SqlType::String),
        ]);
        let mut source = CsvSource::open(
            &file.0,
            "t.csv".into(),
            columns.clone(),
            CsvOptions::default(),
            8,
        )?;
        let b = source
            .next_batch()?
            .ok_or_else(|| Error::Internal("no batch".into()))?;
        for (field, (_, ty)) in b.batch.schema().fields().iter().zip(&columns) {
            assert_eq!(field.data_type(), &ty.to_arrow());
        }
        let c = b.batch.columns();
        assert_eq!(c[0].as_primitive::<Int32Type>().value(0), 1);
        assert_eq!(c[1].as_primitive::<Int64Type>().value(0), 2);
        assert_eq!(c[2].as_primitive::<Float64Type>().value(0), 0.25);
        assert_eq!(c[3].as_primitive::<Decimal128Type>().value(0), 101);
        assert_eq!(
            c[4].as_primitive::<TimestampMillisecondType>().value(0),
            1_577_836_800_500
        );
        assert_eq!(c[5].as_string::<i32>().value(0), "x");
        assert!(source.next_batch()?.is_none());
        assert!(source.next_batch()?.is_none());
        Ok(())
    }

    #[test]
    fn field_values_as_flink_reads_them() -> Result<()> {
        // (type, text, printed value or None for a parse error)
        let cases: &[(SqlType, &str, Option<&str>)] = &[
            (Int, " 7 ", Some("7")),
            (Int, "+7", Some("7")),
            (Int, "007", Some("7")),
            (Int, "-2147483648", Some("-2147483648")),
            (Int, "2147483648", None),
            (Int, "", None),
            (Int, "1.0", None),
            (Int, "1_000", None),
            (Int, "-", None),
            (BigInt, "-0", Some("0")),
            (BigInt, "-9223372036854775808", Some("-9223372036854775808")),
            (BigInt, "9223372036854775808", None),
            (BigInt, "99999999999999999999999", None),
            (Double, " 2.5 ", Some("2.5")),
            (Double, ".5", Some("0.5")),
            (Double, "5.", Some("5.0")),
            (Double, "1d", Some("1.0")),
            (Double, "1.5F", Some("1.5")),
            (Double, "1e400", Some("Infinity")),
            (Double, "1E+3", Some("1000.0")),
            (Double, "-0.0", Some("-0.0")),
            (Double, "NaN", Some("NaN")),
            (Double, "-NaN", Some("NaN")),
            (Double, "+Infinity", Some("Infinity")),
            (Double, "-Infinity", Some("-Infinity")),
            (Double, "inf", None),
            (Double, "nan", None),
            (Double, "1_000", None),
            (Double, "1e", None),
            (Double, ".", None),
            (Double, "0x1p3", None),
            (Double, "", None),
            (Decimal(5, 2), "1.005", Some("1.01")),
            (Decimal(5, 2), "-1.005", Some("-1.01")),
            (Decimal(5, 2), "1.004999", Some("1.00")),
            (Decimal(5, 2), "99.999", Some("100.00")),
            (Decimal(5, 2), "999.99", Some("999.99")),
            (Decimal(5, 2), "999.995", None),
            (Decimal(5, 2), "1234.5", None),
            (Decimal(5, 2), "00012.3", Some("12.30")),
            (Decimal(5, 2), "1e2", Some("100.00")),
            (Decimal(5, 2), "1E-1", Some("0.10")),
            (Decimal(5, 2), "1e-3", Some("0.00")),
            (Decimal(5, 2), "5e-3", Some("0.01")),
            (Decimal(5, 2), "1e3", None),
            (Decimal(5, 2), "0e999999", Some("0.00")),
            (Decimal(5, 2), "1e99999999999", None),
            (Decimal(5, 2), ".5", Some("0.50")),
            (Decimal(5, 2), "5.", Some("5.00")),
            (Decimal(5, 2), "+1.5", Some("1.50")),
            (Decimal(5, 2), "-0", Some("0.00")),
            (Decimal(5, 2), " 1.5", None),
            (Decimal(5, 2), "1.2.3", None),
            (Decimal(5, 2), "", None),
            (
                Decimal(38, 0),
                "99999999999999999999999999999999999999",
                Some("99999999999999999999999999999999999999"),
            ),
            (
                Decimal(38, 0),
                "99999999999999999999999999999999999999.5",
                None,
            ),
            (Decimal(3, 3), "0.9995", None),
            (Decimal(3, 3), "0.0005", Some("0.001")),
            (Boolean, " TRUE ", Some("TRUE")),
            (Boolean, "tRuE", Some("TRUE")),
            (Boolean, "false", Some("FALSE")),
            (Boolean, "yes", Some("FALSE")),
            (Boolean, "1", Some("FALSE")),
            (Boolean, "", Some("FALSE")),
            (SqlType::String, "  a b ", Some("  a b ")),
            (SqlType::String, "", Some("")),
            (
                Timestamp(3),
                "2020-01-01 00:00:00",
                Some("2020-01-01 00:00:00.000"),
            ),
            (
                Timestamp(3),
                " 2020-01-01 00:00:00 ",
                Some("2020-01-01 00:00:00.000"),
            ),
            (Timestamp(3), "2020-01-01T00:00:00", None),
            (
                Timestamp(3),
                "2020-01-01 00:00:00.",
                Some("2020-01-01 00:00:00.000"),
            ),
            (
                Timestamp(3),
                "2020-01-01 00:00:00.1",
                Some("2020-01-01 00:00:00.100"),
            ),
            (
                Timestamp(3),
                "2020-01-01 00:00:00.123456789",
                Some("2020-01-01 00:00:00.123"),
            ),
            (Timestamp(3), "2020-01-01 00:00:00.1234567891", None),
            (
                Timestamp(3),
                "2020-02-30 00:00:00",
                Some("2020-02-29 00:00:00.000"),
            ),
            (
                Timestamp(3),
                "2019-02-29 00:00:00",
                Some("2019-02-28 00:00:00.000"),
            ),
            (
                Timestamp(3),
                "2020-04-31 12:00:00",
                Some("2020-04-30 12:00:00.000"),
            ),
            (Timestamp(3), "2020-02-32 00:00:00", None),
            (Timestamp(3), "2020-13-01 00:00:00", None),
            (Timestamp(3), "2020-00-01 00:00:00", None),
            (
                Timestamp(3),
                "2020-01-01 24:00:00",
                Some("2020-01-02 00:00:00.000"),
            ),
            (
                Timestamp(3),
                "2020-12-31 24:00:00.000",
                Some("2021-01-01 00:00:00.000"),
            ),
            (Timestamp(3), "2020-01-01 24:00:01", None),
            (Timestamp(3), "2020-01-01 23:59:60", None),
            (Timestamp(3), "2020-01-01 23:60:00", None),
            (Timestamp(3), "2020-01-01 0:00:00", None),
            (Timestamp(3), "2020-1-01 00:00:00", None),
            (Timestamp(3), "2020-01-01 00:00", None),
            (Timestamp(3), "2020-01-01", None),
            (Timestamp(3), "+2020-01-01 00:00:00", None),
            (Timestamp(3), "2020-01-01 00:00:00Z", None),
            (Timestamp(3), "2020-01-01 00:00:00.12a", None),
            (Timestamp(3), "", None),
            (
                Timestamp(3),
                "1969-12-31 23:59:59.999",
                Some("1969-12-31 23:59:59.999"),
            ),
            (
                Timestamp(3),
                "0001-01-01 00:00:00",
                Some("0001-01-01 00:00:00.000"),
            ),
            (
                Timestamp(0),
                "2020-01-02 03:04:05.987",
                Some("2020-01-02 03:04:05"),
            ),
            (
                TimestampLtz(3),
                "2020-01-01 00:00:00Z",
                Some("2020-01-01 00:00:00.000"),
            ),
            (
                TimestampLtz(3),
                "2020-01-01 00:00:00.5Z",
                Some("2020-01-01 00:00:00.500"),
            ),
            (
                TimestampLtz(3),
                "2020-01-01 00:00:00",
                Some("2020-01-01 00:00:00.000"),
            ),
            (TimestampLtz(3), "2020-01-01 00:00:00ZZ", None),
        ];
        for (ty, text, want) in cases {
            let data = format!("{text}\n");
            let columns = [("c", ty.clone())];
            let got = read_all(data.as_bytes(), &columns, CsvOptions::default(), 4);
            match (want, got) {
                (Some(want), Ok((got, _))) => {
                    assert_eq!(got, rows(&[(1, want)]), "{ty} from '{text}'")
                }
                (None, Err(e)) => assert_eq!(
                    e.to_string().lines().next().unwrap_or_default(),
                    format!("t.csv:1: field 'c': cannot parse '{text}' as {ty}"),
                    "{ty} from '{text}'"
                ),
                (want, got) => panic!("{ty} from '{text}': want {want:?}, got {got:?}"),
            }
        }
        Ok(())
    }

    #[test]
    fn ltz_text_without_z_is_in_the_session_zone() -> Result<()> {
        let file = TempCsv::new(
            b"2020-01-01 08:00:00\n2020-01-01 00:00:00Z\n2021-03-14 02:30:00\n2021-11-07 01:30:00\n",
        )?;
        let cases: &[(chrono_tz::Tz, [i64; 4])] = &[
            (
                chrono_tz::Asia::Shanghai,
                [
                    1_577_836_800_000,
                    1_577_836_800_000,
                    1_615_660_200_000,
                    1_636_219_800_000,
                ],
            ),
            // 02:30 does not exist on 2021-03-14 in New York: it moves on
            // to 03:30 EDT; 01:30 on 2021-11-07 happens twice: the first.
            (
                chrono_tz::America::New_York,
                [
                    1_577_883_600_000,
                    1_577_836_800_000,
                    1_615_707_000_000,
                    1_636_263_000_000,
                ],
            ),
        ];
        for (tz, want) in cases {
            let columns = cols(&[("l", TimestampLtz(3))]);
            let mut source =
                CsvSource::open(&file.0, "t.csv".into(), columns, CsvOptions::default(), 8)?;
            source.set_time_zone(*tz);
            let b = source
                .next_batch()?
                .ok_or_else(|| Error::Internal("no batch".into()))?;
            let got = b
                .batch
                .column(0)
                .as_primitive::<TimestampMillisecondType>()
                .values()
                .to_vec();
            assert_eq!(got, want.to_vec(), "{tz}");
        }
        Ok(())
    }

    #[test]
    fn row_errors_name_file_line_and_field() {
        let two = [("a", Int), ("s", SqlType::String)];
        let cases: &[(&[u8], Columns, &str)] = &[
            (b"1,x\n2\n", &two, "t.csv:2: expected 2 fields, found 1"),
            (b"1,x\n2,y,z\n", &two, "t.csv:2: expected 2 fields, found 3"),
            (b"1,x\n\n2,y\n", &two, "t.csv:2: expected 2 fields, found 1"),
            (
                b"1,x\nz,y\n",
                &two,
                "t.csv:2: field 'a': cannot parse 'z' as INT",
            ),
            (
                b"1,\"a\nb\"\n2,\"c\nd\"\nq,x\n",
                &two,
                "t.csv:5: field 'a': cannot parse 'q' as INT",
            ),
            (
                b"1,x\r\n\r\nq,x\r\n",
                &two,
                "t.csv:2: expected 2 fields, found 1",
            ),
            (
                b"1,x\r\n2,x\r\nq,x\r\n",
                &two,
                "t.csv:3: field 'a': cannot parse 'q' as INT",
            ),
            (
                b"1,x\n2,\xff\xfe\n",
                &two,
                "t.csv:2: invalid UTF-8 in field 's'",
            ),
            (b"\xff,x\n", &two, "t.csv:1: invalid UTF-8 in field 'a'"),
            (
                b"1,x\n2,\"y\n3,z\n",
                &two,
                "t.csv:2: field 's': missing closing quote",
            ),
            (
                b"1,x\n\"2,y\n",
                &two,
                "t.csv:2: field 'a': missing closing quote",
            ),
            (
                b"1,x\n,y\n",
                &two,
                "t.csv:2: field 'a': cannot parse '' as INT",
            ),
            (
                b"1,2\n",
                &[("m", Decimal(3, 2))],
                "t.csv:1: expected 1 fields, found 2",
            ),
            (
                b"12.5\n",
                &[("m", Decimal(3, 2))],
                "t.csv:1: field 'm': cannot parse '12.5' as DECIMAL(3, 2)",
            ),
        ];
        for (data, columns, want) in cases {
            let got = read_err(data, columns, CsvOptions::default());
            assert_eq!(got.lines().next().unwrap_or_default(), *want);
        }
    }

    #[test]
    fn a_data_error_shows_its_record_with_a_caret() {
        let three: &[(&str, SqlType)] = &[("a", Int), ("b", SqlType::String), ("m", Decimal(6, 2))];
        let cases: &[(&[u8], &str)] = &[
            (
                b"1,x,1.5\n2,\"y, z\",abc\n",
                "t.csv:2: field 'm': cannot parse 'abc' as DECIMAL(6, 2)\n  |\n2 | 2,\"y, z\",abc\n  |          ^^^",
            ),
            (
                b"1,x,1.5,extra,more\r\n",
                "t.csv:1: expected 3 fields, found 5\n  |\n1 | 1,x,1.5,extra,more\n  |         ^^^^^^^^^^",
            ),
            (b"1,x\n", "t.csv:1: expected 3 fields, found 2\n  |\n1 | 1,x\n  |    ^"),
        ];
        for (data, want) in cases {
            assert_eq!(read_err(data, three, CsvOptions::default()), *want);
        }
        // A long line is cut around the field.
        let long = format!("{},x,bad\n", "9".repeat(150));
        let got = read_err(
            long.as_bytes(),
            &[("a", SqlType::String), ("b", SqlType::String), ("m", Int)],
            CsvOptions::default(),
        );
        let shown = got.lines().nth(2).unwrap_or_default();
        assert!(
            shown.starts_with("1 | ...") && shown.ends_with(",x,bad"),
            "{got}"
        );
        let caret = got.lines().nth(3).unwrap_or_default();
        assert_eq!(
            caret.find('^'),
            Some(shown.find("bad").unwrap_or_default()),
            "{got}"
        );
    }

    #[test]
    fn unreadable_file_is_an_io_error() {
        let columns = cols(&[("a", Int)]);
        match CsvSource::open(
            std::path::Path::new("/nonexistent/tidemark/x.csv"),
            "data/x.csv".into(),
            columns,
            CsvOptions::default(),
            8,
        ) {
            Err(e @ Error::Io { .. }) => {
                assert!(e.to_string().starts_with("cannot open 'data/x.csv': "))
            }
            Err(e) => panic!("{e:?}"),
            Ok(_) => panic!("opened a file that does not exist"),
        }
    }

    #[test]
    fn unreadable_types_are_rejected() {
        for ty in [
            Null,
            Decimal(0, 0),
            Decimal(39, 0),
            Decimal(5, 6),
            Decimal(5, -1),
        ] {
            let file = TempCsv::new(b"");
            let result = file.and_then(|f| {
                CsvSource::open(
                    &f.0,
                    "t.csv".into(),
                    cols(&[("c", ty.clone())]),
                    CsvOptions::default(),
                    8,
                )
            });
            assert!(matches!(result, Err(Error::Plan { .. })), "{ty}");
        }
    }

    #[test]
    fn ignore_parse_errors_repairs_and_counts() -> Result<()> {
        // Each row as Flink reads it under 'csv.ignore-parse-errors' = 'true'.
        let data = b"ok,1,2.5,true\n\
            short,1\n\
            long,1,2.5,true,extra\n\
            empty,,,\n\
            \n\
            bad,x,y,maybe\n\
            bad-utf8,1,\xff,true\n\
            last,2,3,TRUE";
        let columns = [
            ("id", SqlType::String),
            ("a", Int),
            ("d", Double),
            ("e", Boolean),
        ];
        let options = opts(&[("csv.ignore-parse-errors", "true")])?;
        for batch_size in [1, 2, 100] {
            let (got, stats) = read_all(data, &columns, options.clone(), batch_size)?;
            assert_eq!(
                got,
                rows(&[
                    (1, "ok, 1, 2.5, TRUE"),
                    (2, "short, 1, <NULL>, <NULL>"),
                    (4, "empty, <NULL>, <NULL>, FALSE"),
                    (5, ", <NULL>, <NULL>, <NULL>"),
                    (6, "bad, <NULL>, <NULL>, FALSE"),
                    (8, "last, 2, 3.0, TRUE"),
                ])
            );
            assert_eq!(
                stats,
                ReadStats {
                    rows_read: 6,
                    fields_nulled: 4,
                    rows_padded: 2,
                    rows_skipped: 2
                }
            );
        }
        let (got, stats) = read_all(
            b"a,\"x\nb,2\n",
            &[("id", SqlType::String), ("s", SqlType::String)],
            options,
            4,
        )?;
        assert!(got.is_empty());
        assert_eq!(stats.rows_skipped, 1);
        Ok(())
    }

    #[test]
    fn null_literal() -> Result<()> {
        let columns = [
            ("id", SqlType::String),
            ("a", Int),
            ("s", SqlType::String),
            ("e", Boolean),
            ("t", Timestamp(3)),
        ];
        let cases: &[(&str, &[u8], Rows)] = &[
            (
                "null",
                b"a,null,null,null,null\nb,1,\"null\",true,2020-01-01 00:00:00\nc,2,Null,null ,null\n",
                &[
                    (1, "a, <NULL>, <NULL>, <NULL>, <NULL>"),
                    (2, "b, 1, <NULL>, TRUE, 2020-01-01 00:00:00.000"),
                    (3, "c, 2, Null, FALSE, <NULL>"),
                ],
            ),
            ("", b"a,,,,\nb,1,\"\",,\n", &[(1, "a, <NULL>, <NULL>, <NULL>, <NULL>"), (2, "b, 1, <NULL>, <NULL>, <NULL>")]),
        ];
        for (literal, data, want) in cases {
            let (got, stats) =
                read_all(data, &columns, opts(&[("csv.null-literal", literal)])?, 8)?;
            assert_eq!(got, rows(want), "null literal '{literal}'");
            assert_eq!(stats.fields_nulled, 0);
        }
        // Without a null literal an empty STRING field is the empty string.
        let (got, _) = read_all(
            b"a,,\"\"\n",
            &[
                ("id", SqlType::String),
                ("s", SqlType::String),
                ("t", SqlType::String),
            ],
            CsvOptions::default(),
            8,
        )?;
        assert_eq!(got, rows(&[(1, "a, , ")]));
        Ok(())
    }

    #[test]
    fn empty_lines_are_rows_of_one_empty_field() -> Result<()> {
        let data = b"a\n\nb\n\n\nc\n\n";
        let (got, _) = read_all(data, &[("s", SqlType::String)], CsvOptions::default(), 2)?;
        assert_eq!(
            got,
            rows(&[
                (1, "a"),
                (2, ""),
                (3, "b"),
                (4, ""),
                (5, ""),
                (6, "c"),
                (7, "")
            ])
        );
        let skip = CsvOptions {
            skip_empty_lines: true,
            ..CsvOptions::default()
        };
        let (got, _) = read_all(data, &[("s", SqlType::String)], skip, 2)?;
        assert_eq!(got, rows(&[(1, "a"), (3, "b"), (6, "c")]));
        let (got, _) = read_all(
            b"a\r\n\r\nb\r\n",
            &[("s", SqlType::String)],
            CsvOptions::default(),
            2,
        )?;
        assert_eq!(got, rows(&[(1, "a"), (2, ""), (3, "b")]));
        Ok(())
    }

    #[test]
    fn comments() -> Result<()> {
        let data = b"# c1\na,1\n\n  # c2\n\t# c3\n  b,2\n   \n#c4,\"x\n  \"c\",3\n d,4";
        let options = opts(&[
            ("csv.allow-comments", "true"),
            ("csv.ignore-parse-errors", "true"),
        ])?;
        let (got, stats) = read_all(data, &[("id", SqlType::String), ("a", Int)], options, 8)?;
        assert_eq!(
            got,
            rows(&[
                (2, "a, 1"),
                (5, "\t# c3, <NULL>"),
                (6, "b, 2"),
                (9, "c, 3"),
                (10, "d, 4")
            ])
        );
        assert_eq!(stats.rows_padded, 1);
        // Without comments allowed, '#' and leading spaces are data.
        let (got, _) = read_all(
            b"#c,1\n  b,2\n",
            &[("id", SqlType::String), ("a", Int)],
            CsvOptions::default(),
            8,
        )?;
        assert_eq!(got, rows(&[(1, "#c, 1"), (2, "  b, 2")]));
        Ok(())
    }

    #[test]
    fn quoting_delimiters_and_line_numbers() -> Result<()> {
        let columns = [("id", SqlType::String), ("a", Int), ("s", SqlType::String)];
        let cases: &[(Pairs, &[u8], Rows)] = &[
            (
                &[("csv.field-delimiter", "\\t")],
                b"a\t1\t\"x\ny\"\n\"c\"\"d\"\t4\t\" sp \"\n",
                &[(1, "a, 1, x\ny"), (3, "c\"d, 4,  sp ")],
            ),
            (
                &[("csv.field-delimiter", ";"), ("csv.quote-character", "'")],
                b"a;1;'x;y'\nb;2;'it''s'\n",
                &[(1, "a, 1, x;y"), (2, "b, 2, it's")],
            ),
            (
                &[("csv.disable-quote-character", "true")],
                b"\"a,1,\"x\"\n",
                &[(1, "\"a, 1, \"x\"")],
            ),
            (
                &[("csv.escape-character", "\\")],
                b"a,1,\"x\\\"y\"\n",
                &[(1, "a, 1, x\"y")],
            ),
            (
                &[],
                b"a,1,\"multi\r\nline\"\r\nb,2,\"\"\r\nc,3,x",
                &[(1, "a, 1, multi\r\nline"), (3, "b, 2, "), (4, "c, 3, x")],
            ),
            (&[], b"a,1,x\rb,2,y\r", &[(1, "a, 1, x"), (2, "b, 2, y")]),
            (&[], b"", &[]),
        ];
        for (pairs, data, want) in cases {
            let (got, _) = read_all(data, &columns, opts(pairs)?, 8)?;
            assert_eq!(got, rows(want), "{pairs:?}");
        }
        Ok(())
    }

    #[test]
    fn records_larger_than_the_read_buffer() -> Result<()> {
        let long = "x".repeat(READ_CHUNK * 2 + 17);
        let mut data = Vec::new();
        for i in 0..5 {
            data.extend_from_slice(format!("{i},\"{long}\n{long}\"\n\n").as_bytes());
        }
        let (got, stats) = read_all(
            &data,
            &[("a", Int), ("s", SqlType::String)],
            opts(&[("csv.ignore-parse-errors", "true")])?,
            2,
        )?;
        let lines: Vec<u64> = got.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, vec![1, 3, 4, 6, 7, 9, 10, 12, 13, 15]);
        assert!(got[0].1.len() == 2 * long.len() + 4);
        assert_eq!(stats.rows_padded, 5);
        Ok(())
    }

    #[test]
    fn many_rows_in_batches() -> Result<()> {
        let mut data = String::new();
        for i in 0..10_000 {
            data.push_str(&format!(
                "{i},2020-01-01 00:00:{:02}.{:03}\n",
                i % 60,
                i % 1000
            ));
        }
        let (got, stats) = read_all(
            data.as_bytes(),
            &[("a", BigInt), ("t", Timestamp(3))],
            CsvOptions::default(),
            4096,
        )?;
        assert_eq!(stats.rows_read, 10_000);
        assert_eq!(
            got[9_999],
            (10_000, "9999, 2020-01-01 00:00:39.999".to_string())
        );
        Ok(())
    }

    #[test]
    fn java_escapes_of_the_delimiter() {
        let cases = [
            ("\\t", "\t"),
            ("\\u0001", "\u{1}"),
            ("\\\\", "\\"),
            (";", ";"),
            ("\\", "\\"),
            ("\\u00", "\\u00"),
        ];
        for (text, want) in cases {
            assert_eq!(unescape_java(text), want, "{text}");
        }
    }
}
