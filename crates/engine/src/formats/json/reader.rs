//! The json reader: lines of a byte stream tokenised into each column's
//! text (arrow-json for a batch at once, serde_json for a line alone) and
//! converted into Arrow batches, with the errors, counts and positions of
//! a source.

use super::lines::Lines;
use super::JsonOptions;
use crate::formats::column::{leave_unread, ColumnBuilder};
use crate::formats::excerpt::shorten;
use crate::formats::options::option_error;
use crate::formats::text::{Parser, TextDialect};
use crate::runtime::read::ReadPosition;
use crate::runtime::read::{ReadBatch, ReadStats};
use crate::runtime::stream::BadRow;
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use std::io::{BufRead, BufReader, Read};
use std::ops::Range;
use std::sync::Arc;
use tidemark_common::{Error, Result, SqlType};

/// One line's values as text, by column (None: NULL or missing).
type LineValues = Vec<Option<String>>;

/// A batch's values: already in the builders when every line is flat,
/// else as text to convert line by line.
enum Values {
    /// Every line a flat object ([`super::flat`]), its values converted;
    /// the first line with a value that does not convert, and why.
    Flat {
        first_bad: Option<(usize, String)>,
    },
    Text(TextValues),
}

/// A batch's values as text: one text column per field for all its lines,
/// or each line's own when the lines were read one by one.
enum TextValues {
    Columns(Vec<StringArray>),
    EachLine(Vec<std::result::Result<LineValues, String>>),
}

impl TextValues {
    /// Line `i`'s values, into `out`; or why the line cannot be read.
    fn row<'v>(
        &'v self,
        i: usize,
        out: &mut Vec<Option<&'v str>>,
    ) -> std::result::Result<(), String> {
        out.clear();
        match self {
            TextValues::Columns(columns) => {
                out.extend(columns.iter().map(|c| c.is_valid(i).then(|| c.value(i))));
            }
            TextValues::EachLine(lines) => match &lines[i] {
                Ok(values) => out.extend(values.iter().map(|v| v.as_deref())),
                Err(error) => return Err(error.clone()),
            },
        }
        Ok(())
    }
}

/// Line `i`'s values in `columns`, owned.
fn owned_row(columns: &[StringArray], i: usize) -> LineValues {
    columns
        .iter()
        .map(|c| c.is_valid(i).then(|| c.value(i).to_string()))
        .collect()
}

pub struct JsonSource {
    display_path: String,
    columns: Vec<(String, SqlType)>,
    options: JsonOptions,
    batch_size: usize,
    schema: SchemaRef,
    /// Every column as text: what arrow-json tokenises a batch into.
    text_schema: SchemaRef,
    builders: Vec<ColumnBuilder>,
    parser: Parser,
    /// The columns' names, as a flat line's keys are matched against them.
    names: super::flat::Names,
    /// What reading flat lines keeps (string ends, the last shape), and
    /// their value ranges, kept for reuse.
    flat: super::flat::Scanner,
    flat_ranges: Vec<Option<(u32, u32)>>,
    input: BufReader<Box<dyn Read + Send>>,
    /// The line being read; between batches, the start of a line still
    /// being written (a followed file).
    partial: Vec<u8>,
    /// The size of the last batch's text, to size the next one's.
    last_batch_bytes: usize,
    /// Send rows as they come rather than in full batches.
    streaming: bool,
    /// Follow the file as it grows: at its end wait and read again.
    follow: Option<std::time::Duration>,
    /// The end of the data so far was reached between lines; the input
    /// has not ended.
    idle: bool,
    /// Number of the last line read, 1-based.
    line: u64,
    /// Bytes read from the input, `partial` included.
    bytes_read: u64,
    /// For checkpoints: the CRC-32 of the lines taken so far.
    prefix: Option<crc32fast::Hasher>,
    stats: ReadStats,
    done: bool,
    /// An error met after some rows of a batch: reported by the next call,
    /// once those rows have gone out.
    pending_error: Option<Error>,
    keep_raw: bool,
}

impl JsonSource {
    /// Reads `file`, any byte stream (a file, standard input).
    /// `display_path` names the file in errors; `columns` are the physical
    /// columns with their SQL types.
    pub fn from_reader(
        file: Box<dyn Read + Send>,
        display_path: String,
        columns: Vec<(String, SqlType)>,
        options: JsonOptions,
        batch_size: usize,
    ) -> Result<Self> {
        let batch_size = batch_size.max(1);
        let builders = columns
            .iter()
            .map(|(name, ty)| {
                ColumnBuilder::new(ty, batch_size).ok_or_else(|| {
                    option_error(format!(
                        "column '{name}' has type {ty}, which the json format cannot read"
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let field = |name: &String, ty: DataType| Field::new(name, ty, true);
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|(name, ty)| field(name, ty.to_arrow()))
                .collect::<Vec<_>>(),
        ));
        let text_schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|(name, _)| field(name, DataType::Utf8))
                .collect::<Vec<_>>(),
        ));
        let names = super::flat::Names::new(columns.iter().map(|(name, _)| name.as_str()));
        Ok(JsonSource {
            display_path,
            columns,
            options,
            batch_size,
            schema,
            text_schema,
            builders,
            parser: Parser::new(chrono_tz::UTC).with_dialect(TextDialect::Json),
            names,
            flat: super::flat::Scanner::default(),
            flat_ranges: Vec::new(),
            input: BufReader::with_capacity(256 * 1024, file),
            partial: Vec::new(),
            last_batch_bytes: 0,
            streaming: false,
            follow: None,
            idle: false,
            line: 0,
            bytes_read: 0,
            prefix: None,
            stats: ReadStats::default(),
            done: false,
            pending_error: None,
            keep_raw: false,
        })
    }

    /// Numbers the input's lines from `line` on.
    pub fn start_at_line(&mut self, line: u64) {
        self.line = line - 1;
    }

    /// Lines read so far (after the end: the lines of the input); line
    /// numbers count from 1 in the input given.
    pub fn lines_read(&self) -> u64 {
        self.line
    }

    /// Send rows as soon as the input has no more for now.
    pub fn stream(&mut self) {
        self.streaming = true;
    }

    /// Follow the file as it grows (`source.monitor-interval`).
    pub fn follow(&mut self, interval: std::time::Duration) {
        self.streaming = true;
        self.follow = Some(interval);
    }

    /// Leaves column `i` undecoded where `unread[i]` (no step of the
    /// query reads it): its fields are skipped, and the batch holds zeros
    /// of its type in its place. Every other column is decoded. Before
    /// the first batch only.
    pub fn leave_unread(&mut self, unread: &[bool]) {
        leave_unread(&mut self.builders, &self.columns, unread, self.batch_size);
    }

    /// Keep each row's text and the skipped lines, for a bad-records sink.
    pub fn keep_raw(&mut self) {
        self.keep_raw = true;
    }

    /// The session time zone: TIMESTAMP_LTZ text without `Z` is a
    /// wall-clock time there.
    pub fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
        self.parser = Parser::new(tz).with_dialect(TextDialect::Json);
    }

    /// Keeps a CRC-32 of the bytes read, for [`JsonSource::position`]:
    /// called before the first read (a resumed source has one already).
    pub fn hash_prefix(&mut self) {
        if self.prefix.is_none() {
            self.prefix = Some(crc32fast::Hasher::new());
        }
    }

    /// Where the next line starts, between two batches (at the end of
    /// input: the end); None when the source cannot go on from a position
    /// (an error waits to be reported, a line is half read, or the bytes
    /// read are not hashed).
    pub fn position(&self) -> Option<ReadPosition> {
        let prefix = self.prefix.clone().filter(|_| self.between_batches())?;
        Some(ReadPosition {
            offset: self.bytes_read,
            line: self.line + 1,
            stats: self.stats.clone(),
            prefix_crc: prefix.finalize(),
            end: None,
        })
    }

    /// Whether [`JsonSource::position`] has a position to give.
    pub fn between_batches(&self) -> bool {
        self.pending_error.is_none() && self.partial.is_empty() && self.prefix.is_some()
    }

    /// Goes on from `at` in `file`, which must already stand at
    /// `at.offset` (a restart from a checkpoint).
    pub fn resume(&mut self, file: Box<dyn Read + Send>, at: &ReadPosition) {
        self.input = BufReader::with_capacity(self.input.capacity(), file);
        self.bytes_read = at.offset;
        self.prefix = Some(crc32fast::Hasher::new_with_initial_len(
            at.prefix_crc,
            at.offset,
        ));
        self.line = at.line - 1;
        self.stats = at.stats.clone();
    }

    pub fn stats(&self) -> ReadStats {
        self.stats.clone()
    }

    /// Next batch of at most batch_size rows, or None at end of file.
    pub fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        if self.done {
            return Ok(None);
        }
        if let Some(e) = self.pending_error.take() {
            self.done = true;
            return Err(e);
        }
        let result = self.fill_batch();
        if !matches!(result, Ok(Some(_))) {
            self.done = true;
        }
        result
    }

    fn fill_batch(&mut self) -> Result<Option<ReadBatch>> {
        let lines = self.read_lines()?;
        if lines.is_empty() {
            if !std::mem::take(&mut self.idle) {
                return Ok(None);
            }
            // Nothing new for now: hand back an empty batch at once; the
            // run waits on its clock while every input has nothing.
        }
        // A line is read the same way whatever batch it is in: by
        // arrow-json when it takes it, else by serde_json.
        let values = if let Some(first_bad) = self.read_flat(&lines) {
            Values::Flat { first_bad }
        } else if let Some(columns) = self.tokenise(&lines) {
            Values::Text(TextValues::Columns(columns))
        } else {
            Values::Text(TextValues::EachLine(
                (0..lines.len())
                    .map(|i| {
                        let Ok(text) = lines.text(i) else {
                            return Err("invalid UTF-8".to_string());
                        };
                        let mut one = Lines::default();
                        one.push(lines.number(i), text.as_bytes());
                        match self.tokenise(&one) {
                            Some(columns) => Ok(owned_row(&columns, 0)),
                            None => self.line_values(text),
                        }
                    })
                    .collect(),
            ))
        };
        let mut rows = Vec::with_capacity(lines.len());
        let mut raw = Vec::new();
        let mut skipped = Vec::new();
        let mut row_values: Vec<Option<&str>> = Vec::with_capacity(self.columns.len());
        for i in 0..lines.len() {
            let line = lines.number(i);
            let text = match lines.text(i) {
                Ok(t) | Err(t) => t,
            };
            let appended = match &values {
                Values::Flat { first_bad } => match first_bad {
                    Some((row, error)) if *row == i => Err(error.clone()),
                    _ => Ok(()),
                },
                Values::Text(values) => match values.row(i, &mut row_values) {
                    Ok(()) => self.append_row(line, &row_values),
                    Err(error) => Err(error),
                },
            };
            match appended {
                Ok(()) => {
                    rows.push(line);
                    if self.keep_raw {
                        raw.push(text.to_string());
                    }
                }
                Err(error) if self.options.ignore_parse_errors => {
                    self.stats.rows_skipped += 1;
                    if self.keep_raw {
                        skipped.push(BadRow {
                            line,
                            raw: text.to_string(),
                            error,
                        });
                    }
                }
                Err(error) => {
                    // The caret goes under the field's value, or the line.
                    let text = text.trim_end_matches(['\n', '\r']);
                    let (from, to) = field_named(&error)
                        .and_then(|name| crate::formats::excerpt::json_member_value(text, name))
                        .unwrap_or((0, text.chars().count()));
                    let excerpt = crate::formats::excerpt::excerpt(line, text, from, to);
                    let e =
                        Error::Input(format!("{}:{line}: {error}\n{excerpt}", self.display_path));
                    if rows.is_empty() {
                        return Err(e);
                    }
                    // The rows before the bad one go out first, whatever
                    // the batch size.
                    self.pending_error = Some(e);
                    break;
                }
            }
        }
        let arrays: Vec<ArrayRef> = self
            .builders
            .iter_mut()
            .map(|b| Ok(b.finish()?.slice(0, rows.len())))
            .collect::<Result<_>>()?;
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)?;
        self.stats.rows_read += rows.len() as u64;
        self.last_batch_bytes = lines.bytes();
        Ok(Some(ReadBatch {
            batch,
            lines: rows,
            raw,
            skipped,
        }))
    }

    /// Up to batch_size non-blank lines with their numbers; a line that
    /// is not UTF-8 is `Err` with its text made readable.
    fn read_lines(&mut self) -> Result<Lines> {
        // Room for a batch a little longer than the last: growing would
        // copy all of it.
        let mut bytes =
            Vec::with_capacity(self.last_batch_bytes + self.last_batch_bytes / 8 + 4096);
        let mut spans = Vec::with_capacity(self.batch_size);
        while spans.len() < self.batch_size {
            // A streaming input sends what it has before a read that may
            // wait for more.
            if self.streaming && !spans.is_empty() && self.input.buffer().is_empty() {
                break;
            }
            // The whole lines already in the input's buffer are taken from
            // there, copied in one go.
            if self.partial.is_empty() {
                let buffer = self.input.buffer();
                let base = bytes.len();
                let mut taken = 0;
                for end in memchr::memchr_iter(b'\n', buffer) {
                    self.line += 1;
                    if let Some(text_end) = text_end(&buffer[taken..=end]) {
                        spans.push((self.line, base + taken..base + taken + text_end));
                    }
                    taken = end + 1;
                    if spans.len() == self.batch_size {
                        break;
                    }
                }
                if taken > 0 {
                    let lines = &buffer[..taken];
                    if let Some(prefix) = self.prefix.as_mut() {
                        prefix.update(lines);
                    }
                    self.bytes_read += taken as u64;
                    bytes.extend_from_slice(lines);
                    self.input.consume(taken);
                    continue;
                }
            }
            let n = match self.input.read_until(b'\n', &mut self.partial) {
                Ok(n) => {
                    self.bytes_read += n as u64;
                    n
                }
                // A pipe with nothing for now (the read has already waited
                // a little): lines so far go out; inside a line, wait on.
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if self.partial.is_empty() {
                        self.idle = true;
                        break;
                    }
                    continue;
                }
                Err(e) => return Err(Error::io(format!("cannot read '{}'", self.display_path), e)),
            };
            let complete = self.partial.last() == Some(&b'\n');
            if !complete {
                if let Some(interval) = self.follow {
                    if self.partial.is_empty() {
                        // The end of the data so far, between lines.
                        self.idle = true;
                        break;
                    }
                    // A line being written: wait for the rest of it.
                    if n == 0 {
                        std::thread::sleep(interval.min(std::time::Duration::from_millis(100)));
                    }
                    continue;
                }
                if self.partial.is_empty() {
                    break;
                }
            }
            if let Some(prefix) = self.prefix.as_mut() {
                prefix.update(&self.partial);
            }
            self.line += 1;
            push_line(&mut bytes, &mut spans, self.line, &self.partial);
            self.partial.clear();
        }
        Ok(Lines::from_bytes(bytes, spans))
    }

    /// Reads every line as a flat object ([`super::flat`]) and converts
    /// its values, a column at a time, into the builders. A value that
    /// does not convert is NULL; returned is the first line with one (by
    /// line, then column), and why, which stops the batch there as it
    /// would line by line; unless parse errors are ignored, when the NULLs
    /// are counted. None, with nothing converted, when a line is not flat.
    fn read_flat(&mut self, lines: &Lines) -> Option<Option<(usize, String)>> {
        if self.options.fail_on_missing_field {
            return None;
        }
        let mut ranges = std::mem::take(&mut self.flat_ranges);
        ranges.clear();
        let read = super::flat::flat_lines(lines, &mut self.flat, &self.names, &mut ranges)
            .then(|| self.append_flat(lines, &ranges));
        self.flat_ranges = ranges;
        let (first_bad, nulled) = read?;
        if self.options.ignore_parse_errors {
            self.stats.fields_nulled += nulled;
            return Some(None);
        }
        Some(first_bad)
    }

    /// Every line's values, tokenised by arrow-json at once into one text
    /// column per field; None when a line needs a closer look (or missing
    /// fields must be told from NULLs).
    fn tokenise(&self, lines: &Lines) -> Option<Vec<StringArray>> {
        if self.options.fail_on_missing_field {
            return None;
        }
        let mut decoder = arrow_json::ReaderBuilder::new(self.text_schema.clone())
            .with_batch_size(lines.len())
            .with_coerce_primitive(true)
            .build_decoder()
            .ok()?;
        for i in 0..lines.len() {
            let text = lines.text(i).ok()?;
            decoder.decode(text.as_bytes()).ok()?;
            decoder.decode(b"\n").ok()?;
            // Each line must be exactly one whole value: an unterminated
            // string would otherwise run on into the next line.
            if decoder.has_partial_record() || decoder.len() != i + 1 {
                return None;
            }
        }
        let batch = decoder.flush().ok()??;
        if batch.num_rows() != lines.len() {
            return None;
        }
        Some(
            batch
                .columns()
                .iter()
                .map(|c| c.as_string::<i32>().clone())
                .collect(),
        )
    }

    /// One line's values, read with serde_json: an error when it is not a
    /// JSON object (or lacks a field that must be there).
    fn line_values(&self, text: &str) -> std::result::Result<LineValues, String> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| format!("not valid JSON: {}", shorten(&e.to_string())))?;
        let serde_json::Value::Object(object) = value else {
            return Err(format!("not a JSON object: {}", shorten(text)));
        };
        self.columns
            .iter()
            .zip(&self.builders)
            .map(|((name, _), builder)| match object.get(name) {
                // Only a field the query reads must be there.
                None if self.options.fail_on_missing_field && !builder.is_unread() => {
                    Err(format!("field '{name}' is missing"))
                }
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Ok(Some(other.to_string())),
            })
            .collect()
    }

    /// Converts the values of flat lines, a row of `ranges` each
    /// ([`super::flat::flat_lines`]), a column at a time into the
    /// builders; a value that does not convert is NULL. Returns the first
    /// line with such a value, and why, and the number of them.
    fn append_flat(
        &mut self,
        lines: &Lines,
        ranges: &[Option<(u32, u32)>],
    ) -> (Option<(usize, String)>, u64) {
        let width = self.columns.len().max(1);
        let rows = ranges.len() / width;
        let whole = lines.whole();
        // Flat lines are UTF-8: each has its span.
        let starts: Vec<usize> = (0..rows)
            .map(|i| lines.span(i).map_or(0, |span| span.start))
            .collect();
        let mut first_bad: Option<(usize, usize)> = None;
        let mut nulled = 0;
        for (column, builder) in self.builders.iter_mut().enumerate() {
            if builder.is_unread() {
                builder.append_nulls(rows);
                continue;
            }
            let ty = &self.columns[column].1;
            let iso = self.options.iso_timestamps
                && matches!(ty, SqlType::Timestamp(_) | SqlType::TimestampLtz(_));
            let integral = matches!(ty, SqlType::Int | SqlType::BigInt);
            // A row's values side by side: the column's is picked from each
            // (a stepping iterator costs a call to skip each row's others).
            for (row, (values, start)) in ranges.chunks_exact(width).zip(&starts).enumerate() {
                let Some((from, to)) = values[column] else {
                    builder.append_null();
                    continue;
                };
                let range = start + from as usize..start + to as usize;
                // Taken as bytes: the line is UTF-8 and the value a whole
                // part of it, so no character boundary needs a look.
                let bytes = &whole.as_bytes()[range.clone()];
                let appended = if iso {
                    builder.append_str(&iso_timestamp_text(&whole[range]), &mut self.parser)
                } else if builder.append_utf8(bytes, &mut self.parser) {
                    true
                } else if integral && fractional(bytes) {
                    // Refused for its fraction or exponent (an integer is
                    // digits alone): cut as Flink does. Looked for only
                    // now, as nearly every integer is taken at once.
                    let text = &whole[range];
                    builder.append_str(&cut_to_integral(ty, text.into()), &mut self.parser)
                } else {
                    false
                };
                if !appended {
                    builder.append_null();
                    nulled += 1;
                    if first_bad.is_none_or(|(bad_row, _)| row < bad_row) {
                        first_bad = Some((row, column));
                    }
                }
            }
        }
        let bad = first_bad.map(|(row, column)| {
            let (name, ty) = &self.columns[column];
            let (from, to) = ranges[row * width + column].unwrap_or_default();
            let text = &whole[starts[row] + from as usize..starts[row] + to as usize];
            (row, cannot_parse(name, ty, text))
        });
        (bad, nulled)
    }

    /// Converts one line's values into the builders; on an error, nothing
    /// of the row is left behind.
    fn append_row(
        &mut self,
        _line: u64,
        values: &[Option<&str>],
    ) -> std::result::Result<(), String> {
        let ignore = self.options.ignore_parse_errors;
        let mut nulled = 0;
        let mut failed = None;
        for (i, value) in values.iter().enumerate() {
            let Some(text) = value.filter(|_| !self.builders[i].is_unread()) else {
                self.builders[i].append_null();
                continue;
            };
            let text = self.timestamp_text(i, text);
            let text = integral_text(&self.columns[i].1, text);
            if !self.builders[i].append_str(&text, &mut self.parser) {
                self.builders[i].append_null();
                nulled += 1;
                if failed.is_none() {
                    failed = Some(i);
                }
            }
        }
        match failed {
            Some(i) if !ignore => {
                // The row's values are cut off by the caller's slice: the
                // batch ends before this row.
                let (name, ty) = &self.columns[i];
                Err(cannot_parse(name, ty, values[i].unwrap_or_default()))
            }
            _ => {
                self.stats.fields_nulled += nulled;
                Ok(())
            }
        }
    }

    /// A timestamp written ISO-style (`T` between date and time) in the
    /// SQL layout the value parsers read.
    fn timestamp_text<'t>(&self, column: usize, text: &'t str) -> std::borrow::Cow<'t, str> {
        let is_timestamp = matches!(
            self.columns[column].1,
            SqlType::Timestamp(_) | SqlType::TimestampLtz(_)
        );
        if self.options.iso_timestamps && is_timestamp {
            return iso_timestamp_text(text);
        }
        text.into()
    }
}

/// Why a row stops at a value that does not convert: the field, its text
/// and the type (the caret goes under the field named).
fn cannot_parse(name: &str, ty: &SqlType, text: &str) -> String {
    format!("field '{name}': cannot parse '{}' as {ty}", shorten(text))
}

/// A timestamp's text with the `T` between date and time, if there is
/// one, made a space: the SQL layout the value parsers read.
fn iso_timestamp_text(text: &str) -> std::borrow::Cow<'_, str> {
    if text.as_bytes().get(10) == Some(&b'T') {
        let mut owned = text.to_string();
        owned.replace_range(10..11, " ");
        return owned.into();
    }
    text.into()
}

/// Adds line `number`, read as `line` (with its line end), to `bytes`
/// with its span there, unless it is blank. A line that is not UTF-8 is
/// kept too: it is judged in its place among the lines, so the rows
/// before it go out first at every batch size.
fn push_line(bytes: &mut Vec<u8>, spans: &mut Vec<(u64, Range<usize>)>, number: u64, line: &[u8]) {
    if let Some(end) = text_end(line) {
        let from = bytes.len();
        bytes.extend_from_slice(&line[..end]);
        spans.push((number, from..bytes.len()));
    }
}

/// Where a line's text ends in `line` (its line end left off), or None
/// when it is blank.
fn text_end(line: &[u8]) -> Option<usize> {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    (!line[..end].iter().all(u8::is_ascii_whitespace)).then_some(end)
}

/// The text an INT or BIGINT column reads: a number with a fraction or
/// an exponent (`4.0`, `1e3`) is cut toward zero and saturated, as
/// Jackson's `asInt`/`asLong` do for Flink. Other text is left alone.
fn integral_text<'t>(ty: &SqlType, text: std::borrow::Cow<'t, str>) -> std::borrow::Cow<'t, str> {
    // Plain digits (nearly every value) are read as they are.
    if !matches!(ty, SqlType::Int | SqlType::BigInt) || !fractional(text.as_bytes()) {
        return text;
    }
    cut_to_integral(ty, text)
}

/// Whether a number is written with a fraction or an exponent.
#[inline]
fn fractional(text: &[u8]) -> bool {
    text.iter().any(|&b| b == b'.' || b | 0x20 == b'e')
}

/// [`integral_text`] for a number with a fraction or an exponent.
fn cut_to_integral<'t>(ty: &SqlType, text: std::borrow::Cow<'t, str>) -> std::borrow::Cow<'t, str> {
    let (min, max) = match ty {
        SqlType::Int => (f64::from(i32::MIN), f64::from(i32::MAX)),
        _ => (i64::MIN as f64, i64::MAX as f64),
    };
    let t = text.trim();
    let numeric = t
        .bytes()
        .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
    if !numeric {
        return text;
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => {
            let cut = v.trunc().clamp(min, max);
            match ty {
                SqlType::Int => (cut as i32).to_string().into(),
                _ => (cut as i64).to_string().into(),
            }
        }
        _ => text,
    }
}

/// The field an error message is about: `field 'name': ...`.
fn field_named(error: &str) -> Option<&str> {
    error.strip_prefix("field '")?.split('\'').next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::{Int32Type, TimestampMillisecondType};
    use std::collections::BTreeMap;
    use std::io::Write;

    fn source(
        text: impl AsRef<[u8]>,
        options: &[(&str, &str)],
        batch_size: usize,
    ) -> (JsonSource, std::path::PathBuf) {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("tidemark-json-{}-{n}.json", std::process::id()));
        std::fs::File::create(&path)
            .and_then(|mut f| f.write_all(text.as_ref()))
            .expect("write temp file");
        let options: BTreeMap<String, String> = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let columns = vec![
            ("id".to_string(), SqlType::Int),
            ("name".to_string(), SqlType::String),
            ("ts".to_string(), SqlType::Timestamp(3)),
        ];
        let json = JsonOptions::from_options(&options).expect("options");
        let source = crate::formats::open_file(&path, "t.json".into(), |input, name| {
            JsonSource::from_reader(input, name, columns, json, batch_size)
        })
        .expect("open");
        (source, path)
    }

    fn all(source: &mut JsonSource) -> Result<Vec<ReadBatch>> {
        let mut out = Vec::new();
        while let Some(b) = source.next_batch()? {
            out.push(b);
        }
        Ok(out)
    }

    /// A column the query does not read is neither decoded nor required:
    /// a value of another type, or none with `json.fail-on-missing-field`,
    /// reads; its place holds zeros. Read again, the same lines fail.
    #[test]
    fn unread_columns_are_not_decoded() -> Result<()> {
        use arrow::array::{Array, AsArray};
        let lines =
            "{\"id\": \"not a number\", \"name\": \"a\", \"ts\": \"2020-01-01 00:00:01\"}\n\
            {\"name\": \"b\", \"ts\": \"2020-01-01 00:00:02\"}\n\
            {\"id\": {\"nested\": 1}, \"name\": \"c\\\"d\", \"ts\": \"2020-01-01 00:00:03\"}\n";
        for batch_size in [1, 2, 8] {
            let (mut src, path) =
                source(lines, &[("json.fail-on-missing-field", "true")], batch_size);
            src.leave_unread(&[true, false, false]);
            let batches = all(&mut src);
            let _ = std::fs::remove_file(path);
            let batches = batches?;
            let (mut names, mut ids) = (Vec::new(), Vec::new());
            for b in &batches {
                let id = b.batch.column(0).as_primitive::<Int32Type>();
                assert_eq!(id.null_count(), 0);
                ids.extend(id.values().iter().copied());
                let name = b.batch.column(1).as_string::<i32>();
                names.extend(name.iter().map(|n| n.unwrap_or("NULL").to_string()));
            }
            assert_eq!(names, ["a", "b", "c\"d"], "batch size {batch_size}");
            assert_eq!(ids, [0, 0, 0]);
        }
        let (mut src, path) = source(lines, &[], 8);
        src.leave_unread(&[true, false, false]);
        src.leave_unread(&[]);
        let read = all(&mut src);
        let _ = std::fs::remove_file(path);
        let error = read.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            error.contains("t.json:1") && error.contains("'id'"),
            "{error}"
        );
        Ok(())
    }

    /// The fast reading of flat lines takes only lines arrow-json reads,
    /// and gives exactly what arrow-json gives for them.
    #[test]
    fn flat_lines_read_as_arrow_json_reads_them() {
        let (src, path) = source("", &[], 8);
        let _ = std::fs::remove_file(path);
        let taken = [
            r#"{"id": 1, "name": "a", "ts": "2020-04-15 08:05:00"}"#,
            r#"  {"ts":null,"id":-0.5e+3,"name":""}  "#,
            "{\"id\":\t12345678901234567890,\"name\":\"x y\"}\r",
            r#"{"name": "héllo ✓", "other": 1, "also": "z"}"#,
            r#"{"id": true, "name": false, "ts": 0}"#,
            r#"{"id": 1.50, "name": "-", "ts": 1E9}"#,
            r#"{}"#,
            r#"{"ID": 1, "Name": "case matters"}"#,
        ];
        let left = [
            r#"{"id": 1, "id": 2}"#,
            r#"{"name": "a\"b"}"#,
            r#"{"name": "tab\tescaped"}"#,
            r#"{"name": {"x": 1}}"#,
            r#"{"other": [1, 2], "id": 3}"#,
            r#"{"id": 01}"#,
            r#"{"id": 1.}"#,
            r#"{"id": .5}"#,
            r#"{"id": 1e}"#,
            r#"{"id": +1}"#,
            r#"{"id": 1,}"#,
            r#"{"id": 1} x"#,
            r#"{"id": nul}"#,
            r#"{"id": truex}"#,
            r#"{"id" 1}"#,
            r#"["id", 1]"#,
            r#""id""#,
            "{\"name\": \"open",
            "{\"name\": \"control\u{1}char\"}",
            "",
        ];
        let read = |text: &str| -> Option<LineValues> {
            flat_texts(&src, &Lines::of(&[text])).map(|mut rows| rows.remove(0))
        };
        for text in taken {
            let flat = read(text).unwrap_or_else(|| panic!("not taken: {text}"));
            let columns = src
                .tokenise(&Lines::of(&[text]))
                .unwrap_or_else(|| panic!("arrow-json does not read: {text}"));
            assert_eq!(flat, owned_row(&columns, 0), "{text}");
        }
        for text in left {
            assert_eq!(read(text), None, "taken: {text}");
        }
        // Lines side by side: each keeps its own values.
        let lines = Lines::of(&taken);
        let flat = flat_texts(&src, &lines).expect("every line flat");
        let columns = src.tokenise(&lines).expect("arrow-json reads them");
        for (i, values) in flat.into_iter().enumerate() {
            assert_eq!(values, owned_row(&columns, i), "line {}", i + 1);
        }
    }

    /// Each line's values as the flat reading finds them; None when a line
    /// is not taken.
    fn flat_texts(src: &JsonSource, lines: &Lines) -> Option<Vec<LineValues>> {
        let mut scanner = super::super::flat::Scanner::default();
        let mut ranges = Vec::new();
        if !super::super::flat::flat_lines(lines, &mut scanner, &src.names, &mut ranges) {
            return None;
        }
        let width = src.columns.len();
        let rows = ranges.chunks(width).enumerate().map(|(i, row)| {
            let text = lines.text(i).expect("a flat line is UTF-8");
            row.iter()
                .map(|r| r.map(|(from, to)| text[from as usize..to as usize].to_string()))
                .collect()
        });
        Some(rows.collect())
    }

    /// A batch of flat lines, converted a column at a time, reads as the
    /// same lines read one by one: with a bad value far into it, a cut
    /// number, and (with a line that is not flat at the end) read the
    /// other way.
    #[test]
    fn a_batch_of_flat_lines_reads_as_its_lines_one_by_one() -> Result<()> {
        let line = |i: usize| {
            let name = "n".repeat(i % 200);
            match i {
                2_500 => format!("{{\"id\": \"bad\", \"name\": \"{name}\", \"ts\": null}}\n"),
                2_900 => {
                    "{\"ts\": \"2020-01-01 00:00:00\", \"name\": \"x\", \"id\": 7.9}\n".to_string()
                }
                _ => format!(
                    "{{\"id\": {i}, \"name\": \"{name}\", \"ts\": \"2020-01-01 00:00:0{}\"}}\n",
                    i % 10
                ),
            }
        };
        let flat: String = (0..3_000).map(line).collect();
        // The same lines with a nested value at the end: the batch is not
        // flat, so every line is read the other way.
        let mixed = format!("{flat}{{\"id\": 1, \"other\": [1]}}\n");
        let read = |text: &str, options: &[(&str, &str)]| -> (Vec<String>, String) {
            let (mut src, path) = source(text, options, 4_096);
            let mut rows = Vec::new();
            let end = loop {
                match src.next_batch() {
                    Ok(Some(batch)) => {
                        assert_eq!(batch.lines.len(), batch.batch.num_rows());
                        let ids = batch.batch.column(0).as_primitive::<Int32Type>();
                        let names = batch.batch.column(1).as_string::<i32>();
                        rows.extend((0..batch.batch.num_rows()).map(|r| {
                            format!(
                                "{}:{:?}:{}",
                                batch.lines[r],
                                ids.is_valid(r).then(|| ids.value(r)),
                                names.value(r).len()
                            )
                        }));
                    }
                    Ok(None) => break format!("fields nulled {}", src.stats().fields_nulled),
                    Err(e) => break e.to_string(),
                }
            };
            let _ = std::fs::remove_file(path);
            (rows, end)
        };
        for options in [&[][..], &[("json.ignore-parse-errors", "true")][..]] {
            let (flat_rows, flat_end) = read(&flat, options);
            let (mixed_rows, mixed_end) = read(&mixed, options);
            let n = flat_rows.len().min(mixed_rows.len());
            assert_eq!(flat_rows[..n], mixed_rows[..n], "{options:?}");
            if options.is_empty() {
                assert_eq!(flat_rows.len(), 2_500);
                assert!(
                    flat_end.starts_with("t.json:2501: field 'id': cannot parse 'bad' as INT"),
                    "{flat_end}"
                );
                assert_eq!(flat_end, mixed_end);
            } else {
                assert_eq!(flat_rows.len(), 3_000);
                assert_eq!(mixed_rows.len(), 3_001);
                assert_eq!(flat_rows[2_500], "2501:None:100");
                assert_eq!(flat_rows[2_900], "2901:Some(7):1");
                assert_eq!(
                    (flat_end.as_str(), mixed_end.as_str()),
                    ("fields nulled 1", "fields nulled 1")
                );
            }
        }
        Ok(())
    }

    #[test]
    fn reads_fields_by_name_with_missing_and_extra_fields() -> Result<()> {
        let text =
            "{\"name\": \"a\", \"id\": 1, \"ts\": \"2020-04-15 08:05:00\", \"extra\": [1]}\n\n\
                    {\"id\": \"2\"}\n{\"id\": null, \"name\": {\"x\": 1}}\n";
        let (mut src, path) = source(text, &[], 8);
        let batches = all(&mut src)?;
        let _ = std::fs::remove_file(path);
        assert_eq!(batches.len(), 1);
        let b = &batches[0];
        assert_eq!(b.lines, vec![1, 3, 4]);
        let ids = b.batch.column(0).as_primitive::<Int32Type>();
        assert_eq!((ids.value(0), ids.value(1), ids.is_null(2)), (1, 2, true));
        let names = b.batch.column(1).as_string::<i32>();
        assert_eq!(names.value(0), "a");
        assert!(names.is_null(1));
        // A nested value in a STRING column is its JSON text, as in Flink.
        assert_eq!(names.value(2), "{\"x\":1}");
        let ts = b.batch.column(2).as_primitive::<TimestampMillisecondType>();
        assert_eq!(ts.value(0), 1_586_937_900_000);
        Ok(())
    }

    #[test]
    fn a_bad_value_names_file_line_and_field_after_the_rows_before_it() -> Result<()> {
        let text = "{\"id\": 1}\n{\"id\": 2}\n{\"id\": \"x\"}\n{\"id\": 4}\n";
        let (mut src, path) = source(text, &[], 8);
        let first = src.next_batch()?.expect("rows before the error");
        let err = src.next_batch().expect_err("the bad row");
        let _ = std::fs::remove_file(path);
        assert_eq!(first.lines, vec![1, 2]);
        assert_eq!(
            err.to_string(),
            "t.json:3: field 'id': cannot parse 'x' as INT\n  |\n3 | {\"id\": \"x\"}\n  |        ^^^"
        );
        Ok(())
    }

    #[test]
    fn a_line_is_judged_in_its_place_whatever_the_batch() -> Result<()> {
        // Line 2 runs on unterminated; line 4 is not UTF-8; line 3 has a
        // number serde_json cannot hold. Errors come in line order and
        // rows read the same at every batch size.
        let text = b"{\"id\": 1}\n{\"name\": \"open\n{\"id\": 3, \"ts\": 1e400}\n{\"id\": \xff}\n"
            .to_vec();
        for batch_size in [1, 2, 8] {
            let (mut src, path) = source(&text, &[], batch_size);
            let first = src.next_batch()?.expect("line 1");
            let err = src.next_batch().expect_err("line 2");
            let _ = std::fs::remove_file(path);
            assert_eq!(first.lines, vec![1]);
            assert!(
                err.to_string().starts_with("t.json:2: not valid JSON"),
                "{err}"
            );
            let (mut src, path) =
                source(&text, &[("json.ignore-parse-errors", "true")], batch_size);
            let batches = all(&mut src)?;
            let _ = std::fs::remove_file(path);
            let lines: Vec<u64> = batches.iter().flat_map(|b| b.lines.clone()).collect();
            assert_eq!(lines, vec![1, 3], "batch size {batch_size}");
            assert_eq!(
                (src.stats().rows_skipped, src.stats().fields_nulled),
                (2, 1)
            );
        }
        Ok(())
    }

    #[test]
    fn ignore_parse_errors_nulls_values_and_skips_broken_lines() -> Result<()> {
        let text = "{\"id\": \"x\", \"name\": \"kept\"}\nnot json\n[1, 2]\n{\"id\": 3}\n";
        let (mut src, path) = source(text, &[("json.ignore-parse-errors", "true")], 2);
        let batches = all(&mut src)?;
        let _ = std::fs::remove_file(path);
        let lines: Vec<u64> = batches.iter().flat_map(|b| b.lines.clone()).collect();
        assert_eq!(lines, vec![1, 4]);
        let stats = src.stats();
        assert_eq!(
            (stats.rows_read, stats.fields_nulled, stats.rows_skipped),
            (2, 1, 2)
        );
        Ok(())
    }

    #[test]
    fn integral_columns_cut_fractional_numbers_as_flink_does() {
        let cut = |ty: &SqlType, t: &str| integral_text(ty, t.into()).into_owned();
        assert_eq!(cut(&SqlType::Int, "4.0"), "4");
        assert_eq!(cut(&SqlType::Int, "-4.7"), "-4");
        assert_eq!(cut(&SqlType::Int, "1e3"), "1000");
        assert_eq!(cut(&SqlType::Int, "3e10"), "2147483647");
        assert_eq!(cut(&SqlType::BigInt, "-2.5"), "-2");
        assert_eq!(cut(&SqlType::Int, "12"), "12");
        assert_eq!(cut(&SqlType::Int, "x.y"), "x.y");
        assert_eq!(cut(&SqlType::Double, "4.5"), "4.5");
    }

    #[test]
    fn missing_fields_can_be_required_and_iso_timestamps_read() -> Result<()> {
        let text = "{\"id\": 1, \"name\": \"a\", \"ts\": \"2020-04-15T08:05:00\"}\n{\"id\": 2}\n";
        let (mut src, path) = source(
            text,
            &[
                ("json.fail-on-missing-field", "true"),
                ("json.timestamp-format.standard", "ISO-8601"),
            ],
            8,
        );
        let first = src.next_batch()?.expect("first row");
        let err = src.next_batch().expect_err("missing field");
        let _ = std::fs::remove_file(path);
        let ts = first
            .batch
            .column(2)
            .as_primitive::<TimestampMillisecondType>();
        assert_eq!(ts.value(0), 1_586_937_900_000);
        // No such member to point at: the whole line is marked.
        assert_eq!(
            err.to_string(),
            "t.json:2: field 'name' is missing\n  |\n2 | {\"id\": 2}\n  | ^^^^^^^^^"
        );
        Ok(())
    }
}
