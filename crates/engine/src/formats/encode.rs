//! How a row is written as one line of text, as Flink's csv and json
//! formats write it (or, for a Kafka record's key or value, one STRING
//! column's raw text). The file sinks write a line per row, and the kafka
//! sinks make a record's value (and key) of one, so both encode through
//! [`LineEncoder`]; a changelog printed as Flink prints it goes through
//! the same column encoders ([`Changelog`]).
//!
//! What Flink 2.3 writes, checked value by value against it: a string is
//! quoted when the quick check of Flink's CSV writer asks for it (a
//! character below the delimiter, quote and line break, the escape
//! character or else a backslash, or more than 24 UTF-16 units), with the
//! quote and escape characters doubled inside; numbers, booleans and NULLs are never
//! quoted. A DECIMAL is written in Java's shortest form (`12.5`, `1E+2`,
//! `0`); a timestamp with as few fraction digits as it needs
//! (`2020-01-01 00:00:00.5`); a TIMESTAMP_LTZ as its instant in UTC with a
//! `Z`, whatever the session's time zone.

use crate::formats::csv::CsvOptions;
use crate::formats::json::JsonOptions;
use crate::formats::lines::{Assembly, ColumnText};
use crate::formats::print::{
    format_value, push_integer, write_decimal, write_instant, write_java_double, write_time,
    write_timestamp, TimeFraction,
};
use arrow::array::{Array, AsArray, RecordBatch, TimestampMillisecondArray};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{
    Decimal128Type, Float64Type, Int32Type, Int64Type, Time32MillisecondType,
    TimestampMillisecondType,
};
use std::collections::BTreeMap;
use std::fmt::Write;
use tidemark_common::{Error, Result, RowKind, SqlType};

/// How a row is written: CSV, a JSON object (one field per encoded
/// column), or one column's text as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineFormat {
    Csv(CsvLayout),
    Json(JsonLayout),
    Raw,
}

impl LineFormat {
    /// The format a table's (or a record part's) options name under
    /// `format` (csv unless json or raw), with its options, for columns
    /// called `names`.
    pub fn of(options: &BTreeMap<String, String>, names: Vec<String>) -> Result<LineFormat> {
        Ok(match options.get("format").map(String::as_str) {
            Some("json") => {
                LineFormat::Json(JsonLayout::of(&JsonOptions::from_options(options)?, names))
            }
            Some("raw") => LineFormat::Raw,
            _ => LineFormat::Csv(CsvLayout::of(&CsvOptions::from_options(options)?)),
        })
    }

    /// How a value of `ty` is put in a line, the text of its NULL, and
    /// the style of the values whose form an option chooses.
    fn placement(&self, ty: &SqlType) -> (Wrap<'_>, &str, Style) {
        match self {
            LineFormat::Raw => (Wrap::Bare, "", Style::CSV),
            LineFormat::Csv(layout) => {
                let wrap = match is_quotable(ty) {
                    true => Wrap::Csv(layout),
                    false => Wrap::Bare,
                };
                (wrap, layout.null_literal.as_str(), Style::CSV)
            }
            LineFormat::Json(layout) => {
                let wrap = match ty {
                    SqlType::TinyInt
                    | SqlType::SmallInt
                    | SqlType::Int
                    | SqlType::BigInt
                    | SqlType::Decimal(..)
                    | SqlType::Boolean => Wrap::Bare,
                    SqlType::Double | SqlType::Float => Wrap::JsonFloat,
                    _ => Wrap::JsonString,
                };
                let style = Style {
                    iso_timestamps: layout.iso_timestamps,
                    plain_decimals: layout.plain_decimals,
                    printed: None,
                };
                (wrap, "null", style)
            }
        }
    }

    pub fn extension(&self) -> &'static str {
        match self {
            LineFormat::Csv(_) => "csv",
            LineFormat::Json(_) => "json",
            LineFormat::Raw => "raw",
        }
    }
}

/// How CSV fields are written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvLayout {
    delimiter: char,
    /// None when quoting is disabled: every string is written as it is.
    quote: Option<char>,
    escape: Option<char>,
    null_literal: String,
    /// The lowest character a string may hold and go unquoted: one past
    /// the delimiter, the quote and the line break.
    min_safe: char,
    /// For each ASCII byte, whether a string holding it is quoted: below
    /// `min_safe`, or the escape character (a backslash when there is
    /// none).
    quoted_ascii: [bool; 128],
    /// A file's first line names the columns (`csv.header`).
    pub header: bool,
}

/// Flink's CSV writer checks at most this many UTF-16 units of a string;
/// a longer one is always quoted.
const QUOTE_CHECK_LIMIT: usize = 24;

impl CsvLayout {
    pub fn of(options: &CsvOptions) -> Self {
        let highest = options
            .field_delimiter
            .max(options.quote_character.unwrap_or(0))
            .max(b'\n');
        let escape = options.escape_character.unwrap_or(b'\\');
        let quoted_ascii =
            std::array::from_fn(|b| b <= usize::from(highest) || b == usize::from(escape));
        CsvLayout {
            quoted_ascii,
            delimiter: char::from(options.field_delimiter),
            quote: options.quote_character.map(char::from),
            escape: options.escape_character.map(char::from),
            null_literal: options.null_literal.clone().unwrap_or_default(),
            min_safe: char::from(highest + 1),
            header: options.header,
        }
    }

    /// A string field, quoted when Flink's writer would quote it.
    fn push_string(&self, out: &mut String, value: &str) {
        let Some(quote) = self.quote else {
            out.push_str(value);
            return;
        };
        let long =
            value.len() > QUOTE_CHECK_LIMIT && value.encode_utf16().count() > QUOTE_CHECK_LIMIT;
        // The escape character asks for quotes, and so does a backslash
        // when there is none.
        let escape = self.escape.unwrap_or('\\');
        let unsafe_char = |c: char| c < self.min_safe || c == escape;
        // ASCII text (most of it) is looked at byte by byte, in a table.
        let needs_quotes = match value
            .bytes()
            .find(|&b| b >= 0x80 || self.quoted_ascii[usize::from(b)])
        {
            None => false,
            Some(b) if b < 0x80 => true,
            Some(_) => value.chars().any(unsafe_char),
        };
        if !long && !needs_quotes {
            out.push_str(value);
            return;
        }
        // The quote and the escape character are doubled; the text between
        // them is copied as it is.
        let doubled = |c: char| c == quote || Some(c) == self.escape;
        out.push(quote);
        let mut from = 0;
        for (at, c) in value.match_indices(doubled) {
            out.push_str(&value[from..at]);
            out.push_str(c);
            from = at;
        }
        out.push_str(&value[from..]);
        out.push(quote);
    }
}

/// How JSON objects are written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonLayout {
    /// Each column's member name as written, quoted and escaped, with its
    /// colon: `"name":`.
    members: Vec<String>,
    iso_timestamps: bool,
    omit_nulls: bool,
    plain_decimals: bool,
}

impl JsonLayout {
    pub fn of(options: &JsonOptions, names: Vec<String>) -> Self {
        let members = names
            .iter()
            .map(|name| {
                let mut member = String::new();
                push_json_string(&mut member, name);
                member.push(':');
                member
            })
            .collect();
        JsonLayout {
            members,
            iso_timestamps: options.iso_timestamps,
            omit_nulls: options.omit_null_fields,
            plain_decimals: options.plain_decimals,
        }
    }
}

/// Encodes chosen columns of a batch's rows, a line per row (without its
/// line break). A batch is encoded column by column ([`LineEncoder::encode`]:
/// each column's type is looked at once, not once per row), and each row's
/// line is then put together from its columns' texts ([`LineEncoder::line`]).
pub struct LineEncoder {
    format: LineFormat,
    /// The columns encoded, in order (positions in the batch).
    columns: Vec<usize>,
    /// Per encoded column, its values' text in the batch last encoded.
    texts: Vec<ColumnText>,
    /// How many rows the batch last encoded has.
    rows: usize,
    /// The pieces of a line around its values; none for JSON objects
    /// whose member names are not one per column.
    assembly: Option<Assembly>,
    /// One value's text, reused.
    value: String,
}

/// How a value's text is put in a line, by format and type.
#[derive(Clone, Copy)]
enum Wrap<'a> {
    /// As it is: numbers, booleans, and every value of the raw format.
    Bare,
    /// A CSV field that is quoted when Flink's writer would quote it.
    Csv(&'a CsvLayout),
    /// A JSON string.
    JsonString,
    /// A JSON number, but NaN and the infinities, which are not JSON
    /// numbers, as strings, as Flink writes them.
    JsonFloat,
}

impl Wrap<'_> {
    fn push(self, out: &mut String, text: &str) {
        match self {
            Wrap::Bare => out.push_str(text),
            Wrap::Csv(layout) => layout.push_string(out, text),
            Wrap::JsonString => push_json_string(out, text),
            Wrap::JsonFloat if text.ends_with("NaN") || text.ends_with("Infinity") => {
                push_json_string(out, text)
            }
            Wrap::JsonFloat => out.push_str(text),
        }
    }

    /// Whether a value's text goes into the line as it is written.
    fn is_bare(self) -> bool {
        matches!(self, Wrap::Bare)
    }
}

impl LineEncoder {
    pub fn new(format: LineFormat, columns: Vec<usize>) -> Self {
        LineEncoder {
            assembly: Self::assembly(&format, columns.len()),
            format,
            texts: columns.iter().map(|_| ColumnText::default()).collect(),
            columns,
            rows: 0,
            value: String::new(),
        }
    }

    /// The pieces of a line of `columns` values in `format`, its line
    /// break included.
    fn assembly(format: &LineFormat, columns: usize) -> Option<Assembly> {
        Some(match format {
            LineFormat::Raw => Assembly::new(["", "\n"]),
            LineFormat::Csv(layout) => {
                let delimiter = layout.delimiter.to_string();
                let between = (1..columns).map(|_| delimiter.as_str());
                Assembly::new(std::iter::once("").chain(between).chain(["\n"]))
            }
            LineFormat::Json(layout) if layout.members.len() != columns => return None,
            LineFormat::Json(layout) => {
                let mut pieces: Vec<String> = layout
                    .members
                    .iter()
                    .enumerate()
                    .map(|(i, member)| format!("{}{member}", if i == 0 { '{' } else { ',' }))
                    .collect();
                match pieces.is_empty() {
                    true => pieces.push("{}\n".into()),
                    false => pieces.push("}\n".into()),
                }
                Assembly::new(pieces.iter().map(String::as_str))
            }
        })
    }

    /// The line naming the columns that starts a CSV file written with
    /// `csv.header`, or None.
    pub fn header(&self, names: &[String]) -> Option<String> {
        let LineFormat::Csv(layout) = &self.format else {
            return None;
        };
        if !layout.header {
            return None;
        }
        let mut line = String::new();
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                line.push(layout.delimiter);
            }
            layout.push_string(&mut line, name);
        }
        line.push('\n');
        Some(line)
    }

    /// Encodes the chosen columns of `batch` (column types `types`, the
    /// batch's whole width), for [`LineEncoder::line`] to put together.
    pub fn encode(&mut self, batch: &RecordBatch, types: &[SqlType]) -> Result<()> {
        self.rows = batch.num_rows();
        for (c, text) in self.columns.iter().zip(&mut self.texts) {
            let column = batch.column(*c);
            let ty = &types[*c];
            let (wrap, null, style) = self.format.placement(ty);
            encode_column(
                column.as_ref(),
                ty,
                wrap,
                null,
                style,
                &mut self.value,
                text,
            )?;
        }
        Ok(())
    }

    /// The line of every row of the batch last encoded, each ending in a
    /// line break, as [`LineEncoder::line`] writes them (a raw NULL as an
    /// empty line), written in `room`, which is kept from batch to batch
    /// (its bytes past the lines are left as they are).
    pub fn lines<'r>(&self, room: &'r mut Vec<u8>) -> &'r [u8] {
        // A JSON line whose NULL members are left out is put together
        // row by row.
        let leaves_out = matches!(&self.format, LineFormat::Json(layout) if layout.omit_nulls);
        let assembly = self.assembly.as_ref();
        let Some(assembly) =
            assembly.filter(|_| !leaves_out || self.texts.iter().all(|t| t.nulls.is_none()))
        else {
            let mut line = String::new();
            room.clear();
            for row in 0..self.rows {
                line.clear();
                self.line(row, &mut line);
                room.extend_from_slice(line.as_bytes());
                room.push(b'\n');
            }
            return room;
        };
        assembly.lines(&self.texts, self.rows, |_| 0, room)
    }

    /// Appends the line of row `row` of the batch last encoded to `out`;
    /// false when there is nothing to write (a raw column's NULL), which a
    /// record writes as no bytes at all.
    pub fn line(&self, row: usize, out: &mut String) -> bool {
        match &self.format {
            LineFormat::Raw => {
                let text = &self.texts[0];
                if text.is_null(row) {
                    return false;
                }
                out.push_str(text.value(row));
            }
            LineFormat::Csv(layout) => {
                for (i, text) in self.texts.iter().enumerate() {
                    if i > 0 {
                        out.push(layout.delimiter);
                    }
                    out.push_str(text.value(row));
                }
            }
            LineFormat::Json(layout) => {
                out.push('{');
                let mut first = true;
                for (text, member) in self.texts.iter().zip(&layout.members) {
                    if layout.omit_nulls && text.is_null(row) {
                        continue;
                    }
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(member);
                    out.push_str(text.value(row));
                }
                out.push('}');
            }
        }
        true
    }
}

/// Writes batches as Flink prints a changelog, a line per row
/// (`+I[k, 2020-01-01 00:00:05.000, 4, 1.0E7, <NULL>]`): each column's
/// values as [`format_value`] prints them, a column at a time, then the
/// lines put together. Its room is kept from batch to batch.
#[derive(Default)]
pub struct Changelog {
    /// Per column, its values' text in the batch being printed.
    texts: Vec<ColumnText>,
    /// The pieces of a line of so many columns, made for the first batch.
    assembly: Option<(usize, Assembly)>,
    /// One value's text, reused.
    value: String,
    /// Room for a batch's lines.
    lines: Vec<u8>,
}

impl Changelog {
    /// Appends a line per row of `batch` (column types `types`, row kinds
    /// `kinds`) to `out`, TIMESTAMP_LTZ values at their time in `tz`.
    pub fn write(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
        out: &mut String,
    ) -> Result<()> {
        let lines = self.lines(batch, types, kinds, tz)?;
        let lines = std::str::from_utf8(lines)
            .map_err(|e| Error::Internal(format!("a printed line is not UTF-8: {e}")))?;
        out.push_str(lines);
        Ok(())
    }

    /// A line per row of `batch`, as [`Changelog::write`] appends them, as
    /// bytes to write out (valid UTF-8), held until the next batch.
    pub fn lines(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<&[u8]> {
        let columns = batch.num_columns();
        if types.len() != columns {
            return Err(Error::Internal(format!(
                "printing a batch of {columns} columns with {} types",
                types.len()
            )));
        }
        if kinds.len() != batch.num_rows() {
            return Err(Error::Internal(format!(
                "printing a batch of {} rows with {} row kinds",
                batch.num_rows(),
                kinds.len()
            )));
        }
        self.texts.resize_with(columns, ColumnText::default);
        let style = Style::printed(tz);
        for ((column, ty), text) in batch.columns().iter().zip(types).zip(&mut self.texts) {
            // The text of a repeated timestamp is kept within a batch only:
            // the next may be printed in another zone.
            text.last = None;
            encode_column(
                column.as_ref(),
                ty,
                Wrap::Bare,
                "<NULL>",
                style,
                &mut self.value,
                text,
            )?;
        }
        let assembly = match &self.assembly {
            Some((n, assembly)) if *n == columns => assembly,
            _ => {
                let pieces = match columns {
                    0 => vec!["[]\n"],
                    n => std::iter::once("[")
                        .chain((1..n).map(|_| ", "))
                        .chain(["]\n"])
                        .collect(),
                };
                let kinds = ["+I", "-U", "+U", "-D"];
                &self
                    .assembly
                    .insert((columns, Assembly::with_leads(pieces, kinds)))
                    .1
            }
        };
        let lead = |row: usize| match kinds[row] {
            RowKind::Insert => 0,
            RowKind::UpdateBefore => 1,
            RowKind::UpdateAfter => 2,
            RowKind::Delete => 3,
        };
        Ok(assembly.lines(&self.texts, kinds.len(), lead, &mut self.lines))
    }
}

/// Writes the text of every row of a column (`null` for its NULLs) into
/// `into`, each value put in the line as `wrap` says. The common types are
/// looked at once for the column; the others go through [`write_text`]
/// row by row.
fn encode_column(
    array: &dyn Array,
    ty: &SqlType,
    wrap: Wrap<'_>,
    null: &str,
    style: Style,
    value: &mut String,
    into: &mut ColumnText,
) -> Result<()> {
    into.start(match ty {
        // A NullArray has no validity buffer to say its rows are NULL.
        SqlType::Null => Some(NullBuffer::new_null(array.len())),
        _ => array
            .nulls()
            .filter(|nulls| nulls.null_count() > 0)
            .cloned(),
    });
    let mismatch = || type_mismatch(ty, array);
    let written = match ty {
        SqlType::Int => {
            let values = array.as_primitive_opt::<Int32Type>().ok_or_else(mismatch)?;
            fill(into, array.len(), null, wrap, value, |row, out| {
                push_integer(out, values.value(row));
                Ok(())
            })
        }
        SqlType::BigInt => {
            let values = array.as_primitive_opt::<Int64Type>().ok_or_else(mismatch)?;
            fill(into, array.len(), null, wrap, value, |row, out| {
                push_integer(out, values.value(row));
                Ok(())
            })
        }
        SqlType::Double => {
            let values = array
                .as_primitive_opt::<Float64Type>()
                .ok_or_else(mismatch)?;
            fill(into, array.len(), null, wrap, value, |row, out| {
                write_java_double(values.value(row), out);
                Ok(())
            })
        }
        // A string is placed in the line straight from the array.
        SqlType::String if array.as_string_opt::<i32>().is_some() => {
            let values = array.as_string::<i32>();
            let ColumnText {
                text, ends, nulls, ..
            } = into;
            fill_rows(text, ends, nulls, array.len(), null, |row, text| {
                wrap.push(text, values.value(row));
                Ok(())
            })
        }
        SqlType::Timestamp(_) | SqlType::TimestampLtz(_) => {
            let values = array
                .as_primitive_opt::<TimestampMillisecondType>()
                .ok_or_else(mismatch)?;
            fill_timestamps(into, values, null, wrap, value, |ms, out| {
                write_text_instant(ms, ty, style, out)
            })
        }
        _ => fill(into, array.len(), null, wrap, value, |row, out| {
            write_text(array, ty, row, style, out)
        }),
    };
    into.finish();
    written
}

/// The error of a column whose Arrow type is not its SQL type's.
fn type_mismatch(ty: &SqlType, array: &dyn Array) -> Error {
    Error::Internal(format!(
        "writing a {ty} value from an Arrow column of type {}",
        array.data_type()
    ))
}

/// Writes each of `rows` rows into a column's `text` through `write`
/// (`null` for a NULL), marking in `ends` where each row's text ends.
fn fill_rows(
    text: &mut String,
    ends: &mut Vec<usize>,
    nulls: &Option<NullBuffer>,
    rows: usize,
    null: &str,
    mut write: impl FnMut(usize, &mut String) -> Result<()>,
) -> Result<()> {
    for row in 0..rows {
        if nulls.as_ref().is_some_and(|nulls| nulls.is_null(row)) {
            text.push_str(null);
        } else {
            write(row, text)?;
        }
        ends.push(text.len());
    }
    Ok(())
}

/// [`fill_rows`] with each value written by `write` and put in the line
/// as `wrap` says: straight into the column's text when it goes as it is,
/// else through `value` first.
fn fill(
    into: &mut ColumnText,
    rows: usize,
    null: &str,
    wrap: Wrap<'_>,
    value: &mut String,
    mut write: impl FnMut(usize, &mut String) -> Result<()>,
) -> Result<()> {
    let ColumnText {
        text, ends, nulls, ..
    } = into;
    fill_rows(text, ends, nulls, rows, null, |row, text| {
        if wrap.is_bare() {
            return write(row, text);
        }
        value.clear();
        write(row, value)?;
        wrap.push(text, value);
        Ok(())
    })
}

/// [`fill`] for a timestamp column: a row repeating the last timestamp
/// written copies its text, quotes and all.
fn fill_timestamps(
    into: &mut ColumnText,
    values: &TimestampMillisecondArray,
    null: &str,
    wrap: Wrap<'_>,
    value: &mut String,
    write: impl Fn(i64, &mut String) -> Result<()>,
) -> Result<()> {
    let ColumnText {
        text,
        ends,
        nulls,
        last,
    } = into;
    fill_rows(text, ends, nulls, values.len(), null, |row, text| {
        let ms = values.value(row);
        if let Some((repeated, kept)) = last.as_ref() {
            if *repeated == ms {
                text.push_str(kept);
                return Ok(());
            }
        }
        value.clear();
        write(ms, value)?;
        let from = text.len();
        wrap.push(text, value);
        let kept = last.get_or_insert_with(|| (ms, String::new()));
        kept.0 = ms;
        kept.1.clear();
        kept.1.push_str(&text[from..]);
        Ok(())
    })
}

/// Whether a value of `ty` is written as a string (and so may be quoted)
/// rather than as a number or a boolean.
fn is_quotable(ty: &SqlType) -> bool {
    matches!(
        ty,
        SqlType::String
            | SqlType::Timestamp(_)
            | SqlType::TimestampLtz(_)
            | SqlType::Date
            | SqlType::Time(_)
    )
}

/// How the text formats write the values whose form an option chooses,
/// or that values are written as Flink prints them.
#[derive(Clone, Copy, Debug)]
struct Style {
    iso_timestamps: bool,
    plain_decimals: bool,
    /// Some: every value as Flink prints it ([`format_value`]), a
    /// TIMESTAMP_LTZ at its wall-clock time in this zone.
    printed: Option<chrono_tz::Tz>,
}

impl Style {
    const CSV: Style = Style {
        iso_timestamps: false,
        plain_decimals: false,
        printed: None,
    };

    fn printed(tz: chrono_tz::Tz) -> Style {
        Style {
            printed: Some(tz),
            ..Style::CSV
        }
    }
}

/// One non-NULL value as the text formats write it, unquoted.
fn write_text(
    array: &dyn Array,
    ty: &SqlType,
    row: usize,
    style: Style,
    out: &mut String,
) -> Result<()> {
    if let Some(tz) = style.printed {
        return format_value(array, ty, row, tz, out);
    }
    let mismatch = || type_mismatch(ty, array);
    match ty {
        SqlType::Boolean => {
            let a = array.as_boolean_opt().ok_or_else(mismatch)?;
            out.push_str(if a.value(row) { "true" } else { "false" });
        }
        SqlType::Decimal(_, scale) => {
            let a = array
                .as_primitive_opt::<Decimal128Type>()
                .ok_or_else(mismatch)?;
            if style.plain_decimals {
                write_decimal(a.value(row), *scale, out);
            } else {
                write_shortest_decimal(a.value(row), *scale, out);
            }
        }
        SqlType::Timestamp(_) | SqlType::TimestampLtz(_) => {
            let a = array
                .as_primitive_opt::<TimestampMillisecondType>()
                .ok_or_else(mismatch)?;
            write_text_instant(a.value(row), ty, style, out)?;
        }
        // As Java's ISO_LOCAL_TIME: no fraction when it is zero.
        SqlType::Time(p) => {
            let a = array
                .as_primitive_opt::<Time32MillisecondType>()
                .ok_or_else(mismatch)?;
            write_time(a.value(row), *p, TimeFraction::Iso, out);
        }
        _ => format_value(array, ty, row, chrono_tz::UTC, out)?,
    }
    Ok(())
}

/// Java's `BigDecimal.stripTrailingZeros().toString()`, as Flink writes a
/// DECIMAL: no trailing zeros, and an exponent where Java puts one (a
/// negative scale once the zeros are gone, or a value below 1E-6): `12.5`,
/// `1E+2`, `0.0001`, `1E-8`, `0`.
pub fn write_shortest_decimal(unscaled: i128, scale: i8, out: &mut String) {
    if unscaled == 0 {
        out.push('0');
        return;
    }
    let (mut unscaled, mut scale) = (unscaled, i32::from(scale));
    while unscaled % 10 == 0 {
        unscaled /= 10;
        scale -= 1;
    }
    let digits = unscaled.unsigned_abs().to_string();
    let adjusted = digits.len() as i32 - 1 - scale;
    if scale >= 0 && adjusted >= -6 {
        // The scale only shrank, so it still fits.
        write_decimal(unscaled, scale as i8, out);
        return;
    }
    if unscaled < 0 {
        out.push('-');
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    let _ = write!(out, "E{}{adjusted}", if adjusted > 0 { "+" } else { "" });
}

/// A TIMESTAMP (or a TIMESTAMP_LTZ, in UTC with a `Z`) as the text
/// formats write it.
fn write_text_instant(ms: i64, ty: &SqlType, style: Style, out: &mut String) -> Result<()> {
    if let Some(tz) = style.printed {
        return write_instant(ms, ty, tz, out);
    }
    write_text_timestamp(ms, style.iso_timestamps, out)?;
    if matches!(ty, SqlType::TimestampLtz(_)) {
        out.push('Z');
    }
    Ok(())
}

/// A timestamp as Flink's text formats write it: the date, a space (or a
/// `T` for ISO-8601) and the time, with only the fraction digits it needs.
fn write_text_timestamp(epoch_ms: i64, iso: bool, out: &mut String) -> Result<()> {
    let start = out.len();
    write_timestamp(epoch_ms, 3, out)?;
    let fraction = out.trim_end_matches('0').len();
    out.truncate(if out[..fraction].ends_with('.') {
        fraction - 1
    } else {
        fraction
    });
    if iso {
        if let Some(space) = out[start..].find(' ') {
            out.replace_range(start + space..start + space + 1, "T");
        }
    }
    Ok(())
}

/// A JSON string literal, escaped as Flink's JSON writer escapes it.
fn push_json_string(out: &mut String, value: &str) {
    out.push('"');
    // Only ASCII characters are escaped: the text between them is copied
    // as it is.
    let mut from = 0;
    for (at, byte) in value.bytes().enumerate() {
        let short = match byte {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0..0x20 => None,
            _ => continue,
        };
        out.push_str(&value[from..at]);
        match short {
            Some(escape) => out.push_str(escape),
            None => {
                let _ = write!(out, "\\u{byte:04X}");
            }
        }
        from = at + 1;
    }
    out.push_str(&value[from..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{
        ArrayRef, BooleanArray, Decimal128Array, Float64Array, Int32Array, Int64Array, StringArray,
        TimestampMillisecondArray,
    };
    use std::sync::Arc;

    fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn csv(pairs: &[(&str, &str)]) -> CsvLayout {
        CsvLayout::of(&CsvOptions::from_options(&options(pairs)).expect("valid csv options"))
    }

    fn field(layout: &CsvLayout, value: &str) -> String {
        let mut out = String::new();
        layout.push_string(&mut out, value);
        out
    }

    /// Flink 2.3 wrote `a?b` for every ASCII character `?` through these
    /// options; the characters it quoted are these.
    /// Options, and which characters make a string quoted under them.
    type QuotingCase = (&'static [(&'static str, &'static str)], fn(u8) -> bool);

    #[test]
    fn strings_are_quoted_where_flinks_writer_quotes_them() {
        let cases: [QuotingCase; 5] = [
            (&[], |c| c < b'-' || c == b'\\'),
            (
                &[("csv.field-delimiter", ";"), ("csv.quote-character", "'")],
                |c| c < b'<' || c == b'\\',
            ),
            (&[("csv.quote-character", "_")], |c| c < b'`'),
            // An escape character other than the backslash: the backslash
            // no longer asks for quotes.
            (&[("csv.escape-character", "#")], |c| c < b'-'),
            (&[("csv.disable-quote-character", "true")], |_| false),
        ];
        for (pairs, quoted) in cases {
            let layout = csv(pairs);
            for c in 1u8..128 {
                let value = format!("a{}b", c as char);
                let written = field(&layout, &value);
                assert_eq!(
                    written != value,
                    quoted(c),
                    "{pairs:?}: {value:?} written {written:?}"
                );
            }
        }
    }

    #[test]
    fn quotes_and_escapes_are_doubled_and_long_strings_quoted() {
        let plain = csv(&[]);
        assert_eq!(field(&plain, "a\"b"), "\"a\"\"b\"");
        assert_eq!(field(&plain, "a\\b"), "\"a\\b\"");
        assert_eq!(field(&plain, ""), "");
        assert_eq!(field(&plain, &"x".repeat(24)), "x".repeat(24));
        assert_eq!(
            field(&plain, &"x".repeat(25)),
            format!("\"{}\"", "x".repeat(25))
        );
        // Java counts UTF-16 units: 13 é's are 26 bytes but 13 units.
        assert_eq!(field(&plain, &"é".repeat(13)), "é".repeat(13));
        assert_eq!(
            field(&csv(&[("csv.quote-character", "'")]), "it's"),
            "'it''s'"
        );
        let backslash = csv(&[("csv.escape-character", "\\")]);
        assert_eq!(field(&backslash, "a\\b\"c"), "\"a\\\\b\"\"c\"");
        assert_eq!(
            field(&csv(&[("csv.escape-character", "#")]), "a#b"),
            "\"a##b\""
        );
        let unquoted = csv(&[
            ("csv.disable-quote-character", "true"),
            ("csv.escape-character", "\\"),
        ]);
        assert_eq!(field(&unquoted, "a,b \"q\" \\"), "a,b \"q\" \\");
    }

    #[test]
    fn decimals_are_written_in_javas_shortest_form() {
        let shortest = |unscaled: i128, scale: i8| {
            let mut out = String::new();
            write_shortest_decimal(unscaled, scale, &mut out);
            out
        };
        // As Flink 2.3 wrote DECIMAL(12,4) and DECIMAL(5,0) values.
        assert_eq!(shortest(1_000_000, 4), "1E+2");
        assert_eq!(shortest(10_005_000, 4), "1000.5");
        assert_eq!(shortest(1, 4), "0.0001");
        assert_eq!(shortest(0, 4), "0");
        assert_eq!(shortest(123_456_781_000, 4), "12345678.1");
        assert_eq!(shortest(100, 0), "1E+2");
        assert_eq!(shortest(-10, 0), "-1E+1");
        assert_eq!(shortest(99_999, 0), "99999");
        assert_eq!(shortest(1, 8), "1E-8");
        assert_eq!(shortest(1_250_000_000, 8), "12.5");
        // Java's threshold: plain down to 1E-6, an exponent below it.
        assert_eq!(shortest(1, 6), "0.000001");
        assert_eq!(shortest(15, 8), "1.5E-7");
        assert_eq!(shortest(-12, 8), "-1.2E-7");
        assert_eq!(shortest(i128::MAX, 0), i128::MAX.to_string());
        assert_eq!(shortest(10i128.pow(37), 0), "1E+37");
    }

    const NEW_YEAR_2020: i64 = 1_577_836_800_000;

    /// The rows Flink 2.3 wrote through each format below.
    fn rows() -> (RecordBatch, Vec<SqlType>) {
        let ms = |offset: i64| Some(NEW_YEAR_2020 + offset);
        let columns: Vec<(&str, ArrayRef)> = vec![
            (
                "s",
                Arc::new(StringArray::from(vec![
                    Some("plain"),
                    Some("a,b \"q\""),
                    Some(""),
                    Some(" lead"),
                ])),
            ),
            (
                "i",
                Arc::new(Int32Array::from(vec![Some(1), Some(-2), None, Some(3)])),
            ),
            (
                "d",
                Arc::new(
                    Decimal128Array::from(vec![
                        Some(1),
                        Some(1_250_000_000),
                        None,
                        Some(10_000_000),
                    ])
                    .with_precision_and_scale(10, 8)
                    .expect("valid"),
                ),
            ),
            (
                "x",
                Arc::new(Float64Array::from(vec![
                    Some(1.5),
                    Some(1.0e7),
                    None,
                    Some(0.001),
                ])),
            ),
            (
                "b",
                Arc::new(BooleanArray::from(vec![
                    Some(true),
                    Some(false),
                    None,
                    Some(true),
                ])),
            ),
            (
                "ts",
                Arc::new(TimestampMillisecondArray::from(vec![
                    ms(0),
                    ms(500),
                    None,
                    ms(123),
                ])),
            ),
            (
                "lt",
                Arc::new(
                    TimestampMillisecondArray::from(vec![ms(0), ms(120), None, ms(1)])
                        .with_timezone("UTC"),
                ),
            ),
        ];
        let types = vec![
            SqlType::String,
            SqlType::Int,
            SqlType::Decimal(10, 8),
            SqlType::Double,
            SqlType::Boolean,
            SqlType::Timestamp(3),
            SqlType::TimestampLtz(3),
        ];
        (RecordBatch::try_from_iter(columns).expect("a batch"), types)
    }

    fn written(pairs: &[(&str, &str)]) -> Vec<String> {
        let (batch, types) = rows();
        let names = ["s", "i", "d", "x", "b", "ts", "lt"]
            .map(String::from)
            .to_vec();
        let format = LineFormat::of(&options(pairs), names).expect("valid options");
        let mut encoder = LineEncoder::new(format, (0..types.len()).collect());
        encoder.encode(&batch, &types).expect("encoded");
        (0..batch.num_rows())
            .map(|row| {
                let mut line = String::new();
                encoder.line(row, &mut line);
                line
            })
            .collect()
    }

    /// A timestamp repeated row after row is copied from the text written
    /// for it: each row reads as it would on its own.
    #[test]
    fn a_repeated_timestamp_reads_as_if_written_alone() {
        let ms = |offset: i64| Some(NEW_YEAR_2020 + offset);
        let stamps = vec![ms(0), ms(0), None, ms(0), ms(250), ms(0), ms(0)];
        let batch = RecordBatch::try_from_iter([
            (
                "ts",
                Arc::new(TimestampMillisecondArray::from(stamps.clone())) as ArrayRef,
            ),
            (
                "lt",
                Arc::new(TimestampMillisecondArray::from(stamps).with_timezone("UTC")),
            ),
        ])
        .expect("a batch");
        let types = [SqlType::Timestamp(3), SqlType::TimestampLtz(3)];
        for pairs in [
            vec![("format", "csv")],
            vec![("format", "csv"), ("csv.quote-character", "'")],
            vec![
                ("format", "json"),
                ("json.timestamp-format.standard", "ISO-8601"),
            ],
        ] {
            let format = || {
                let names = vec!["ts".to_string(), "lt".to_string()];
                LineFormat::of(&options(&pairs), names).expect("valid options")
            };
            // The whole batch, then each row in a batch of its own.
            let mut in_turn = LineEncoder::new(format(), vec![0, 1]);
            in_turn.encode(&batch, &types).expect("encoded");
            for row in 0..batch.num_rows() {
                let (mut line, mut alone) = (String::new(), String::new());
                in_turn.line(row, &mut line);
                let mut single = LineEncoder::new(format(), vec![0, 1]);
                single
                    .encode(&batch.slice(row, 1), &types)
                    .expect("encoded");
                single.line(0, &mut alone);
                assert_eq!(line, alone, "{pairs:?} row {row}");
            }
        }
    }

    /// The types encoded column-wise (INT, BIGINT, DOUBLE, STRING and the
    /// timestamps) give each value the text the general path, row by row
    /// through `write_text`, gives it, in every format.
    #[test]
    fn columns_encoded_whole_read_as_values_written_one_by_one() {
        let mut rng = crate::ops::testing::Rng(23);
        let rows = 300;
        let doubles = [
            0.0,
            -0.0,
            1.5,
            1.0e7,
            0.001,
            1.0e-4,
            123_456.789,
            -42.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            9_007_199_254_740_993.0,
            1.0e300,
        ];
        let long = "x".repeat(30);
        let strings = [
            "",
            "plain",
            "a,b",
            "say \"hi\"",
            " lead",
            "tab\there",
            "é ü",
            &long,
            "line\nbreak",
            "back\\slash",
            "semi;colon",
        ];
        let stamps = [NEW_YEAR_2020, NEW_YEAR_2020 + 500, -1, 253_402_300_799_999];
        // A value index per row, or None for a NULL (one row in six).
        let mut picks = |n: usize| -> Vec<Option<usize>> {
            (0..rows)
                .map(|_| (rng.below(6) > 0).then(|| rng.below(n as u64) as usize))
                .collect()
        };
        let (ints, longs, reals, texts, ts, lts) = (
            picks(1000),
            picks(1 << 20),
            picks(doubles.len()),
            picks(strings.len()),
            picks(stamps.len()),
            picks(stamps.len()),
        );
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from_iter(
                ints.iter().map(|i| i.map(|i| i as i32 - 500)),
            )),
            Arc::new(Int64Array::from_iter(
                longs
                    .iter()
                    .map(|i| i.map(|i| (i as i64 - (1 << 19)) << 30)),
            )),
            Arc::new(Float64Array::from_iter(
                reals.iter().map(|i| i.map(|i| doubles[i])),
            )),
            Arc::new(StringArray::from_iter(
                texts.iter().map(|i| i.map(|i| strings[i])),
            )),
            // Runs of one timestamp, as windows' bounds come.
            Arc::new(TimestampMillisecondArray::from_iter(
                (0..rows).map(|r| ts[r].and(ts[r / 7]).map(|i| stamps[i])),
            )),
            Arc::new(
                TimestampMillisecondArray::from_iter(lts.iter().map(|i| i.map(|i| stamps[i])))
                    .with_timezone("UTC"),
            ),
        ];
        let types = [
            SqlType::Int,
            SqlType::BigInt,
            SqlType::Double,
            SqlType::String,
            SqlType::Timestamp(3),
            SqlType::TimestampLtz(3),
        ];
        for pairs in [
            vec![("format", "csv")],
            vec![
                ("format", "csv"),
                ("csv.field-delimiter", ";"),
                ("csv.quote-character", "'"),
                ("csv.null-literal", "N"),
            ],
            vec![("format", "csv"), ("csv.disable-quote-character", "true")],
            vec![("format", "json")],
            vec![
                ("format", "json"),
                ("json.timestamp-format.standard", "ISO-8601"),
            ],
            vec![("format", "raw")],
        ] {
            let format = LineFormat::of(&options(&pairs), vec![String::new(); 6]).expect("valid");
            for (array, ty) in columns.iter().zip(&types) {
                let (wrap, null, style) = format.placement(ty);
                let (mut whole, mut one_by_one) = (ColumnText::default(), ColumnText::default());
                let mut value = String::new();
                encode_column(
                    array.as_ref(),
                    ty,
                    wrap,
                    null,
                    style,
                    &mut value,
                    &mut whole,
                )
                .expect("encoded");
                one_by_one.nulls = array.nulls().cloned();
                fill(&mut one_by_one, rows, null, wrap, &mut value, |row, out| {
                    write_text(array.as_ref(), ty, row, style, out)
                })
                .expect("encoded");
                for row in 0..rows {
                    assert_eq!(
                        whole.value(row),
                        one_by_one.value(row),
                        "{pairs:?} {ty} row {row}"
                    );
                    assert_eq!(whole.is_null(row), array.is_null(row));
                }
            }
        }
    }

    #[test]
    fn rows_are_written_as_flink_writes_csv() {
        assert_eq!(
            written(&[("format", "csv")]),
            [
                r#"plain,1,1E-8,1.5,true,"2020-01-01 00:00:00","2020-01-01 00:00:00Z""#,
                r#""a,b ""q""",-2,12.5,1.0E7,false,"2020-01-01 00:00:00.5","2020-01-01 00:00:00.12Z""#,
                ",,,,,,",
                r#"" lead",3,0.1,0.001,true,"2020-01-01 00:00:00.123","2020-01-01 00:00:00.001Z""#,
            ]
        );
        assert_eq!(
            written(&[
                ("format", "csv"),
                ("csv.field-delimiter", "\\t"),
                ("csv.quote-character", "'"),
                ("csv.null-literal", "NULL"),
                ("csv.write-bigdecimal-in-scientific-notation", "false"),
            ]),
            [
                "plain\t1\t1E-8\t1.5\ttrue\t'2020-01-01 00:00:00'\t'2020-01-01 00:00:00Z'",
                "'a,b \"q\"'\t-2\t12.5\t1.0E7\tfalse\t'2020-01-01 00:00:00.5'\t'2020-01-01 00:00:00.12Z'",
                "\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL",
                "' lead'\t3\t0.1\t0.001\ttrue\t'2020-01-01 00:00:00.123'\t'2020-01-01 00:00:00.001Z'",
            ]
        );
        assert_eq!(
            written(&[
                ("csv.disable-quote-character", "true"),
                ("csv.escape-character", "\\"),
            ])[1],
            "a,b \"q\",-2,12.5,1.0E7,false,2020-01-01 00:00:00.5,2020-01-01 00:00:00.12Z"
        );
    }

    #[test]
    fn rows_are_written_as_flink_writes_json() {
        assert_eq!(
            written(&[("format", "json")]),
            [
                r#"{"s":"plain","i":1,"d":1E-8,"x":1.5,"b":true,"ts":"2020-01-01 00:00:00","lt":"2020-01-01 00:00:00Z"}"#,
                r#"{"s":"a,b \"q\"","i":-2,"d":12.5,"x":1.0E7,"b":false,"ts":"2020-01-01 00:00:00.5","lt":"2020-01-01 00:00:00.12Z"}"#,
                r#"{"s":"","i":null,"d":null,"x":null,"b":null,"ts":null,"lt":null}"#,
                r#"{"s":" lead","i":3,"d":0.1,"x":0.001,"b":true,"ts":"2020-01-01 00:00:00.123","lt":"2020-01-01 00:00:00.001Z"}"#,
            ]
        );
        assert_eq!(
            written(&[
                ("format", "json"),
                ("json.timestamp-format.standard", "ISO-8601"),
                ("json.encode.ignore-null-fields", "true"),
                ("json.encode.decimal-as-plain-number", "true"),
            ]),
            [
                r#"{"s":"plain","i":1,"d":0.00000001,"x":1.5,"b":true,"ts":"2020-01-01T00:00:00","lt":"2020-01-01T00:00:00Z"}"#,
                r#"{"s":"a,b \"q\"","i":-2,"d":12.50000000,"x":1.0E7,"b":false,"ts":"2020-01-01T00:00:00.5","lt":"2020-01-01T00:00:00.12Z"}"#,
                r#"{"s":""}"#,
                r#"{"s":" lead","i":3,"d":0.10000000,"x":0.001,"b":true,"ts":"2020-01-01T00:00:00.123","lt":"2020-01-01T00:00:00.001Z"}"#,
            ]
        );
    }

    /// A batch's lines put together at once read as its rows' lines
    /// written one by one, each with its line break, in every format (a
    /// JSON line leaving NULL members out among them).
    #[test]
    fn lines_put_together_read_as_each_row_written_alone() {
        let (batch, types) = rows();
        let names = ["s", "i", "d", "x", "b", "ts", "lt"].map(String::from);
        for pairs in [
            vec![("format", "csv")],
            vec![("format", "csv"), ("csv.field-delimiter", "\t")],
            vec![("format", "json")],
            vec![
                ("format", "json"),
                ("json.encode.ignore-null-fields", "true"),
            ],
            vec![("format", "raw")],
        ] {
            let format = LineFormat::of(&options(&pairs), names.to_vec()).expect("valid");
            let columns = match format {
                LineFormat::Raw => vec![0],
                _ => (0..types.len()).collect(),
            };
            let mut encoder = LineEncoder::new(format, columns);
            // A room holding more than the lines, as a room used before
            // does.
            let mut room = vec![b'?'; 2000];
            // Twice, so that a batch's text starts over.
            for _ in 0..2 {
                encoder.encode(&batch, &types).expect("encoded");
                let mut one_by_one = String::new();
                for row in 0..batch.num_rows() {
                    encoder.line(row, &mut one_by_one);
                    one_by_one.push('\n');
                }
                let together = encoder.lines(&mut room).to_vec();
                let together = String::from_utf8(together).expect("utf-8");
                assert_eq!(together, one_by_one, "{pairs:?}");
            }
        }
    }

    /// A changelog printed a column at a time reads as each value printed
    /// on its own by `format_value`, joined as Flink's print connector
    /// joins them: every row kind, NULLs of every type, a column of
    /// nothing but NULLs, repeated timestamps and a zone of its own.
    #[test]
    fn a_printed_changelog_reads_as_each_value_printed_alone() {
        let (batch, mut types) = rows();
        let mut columns = batch.columns().to_vec();
        columns.push(Arc::new(arrow::array::NullArray::new(batch.num_rows())));
        types.push(SqlType::Null);
        columns.push(Arc::new(Int64Array::from(vec![
            Some(i64::MIN),
            None,
            Some(0),
            Some(7),
        ])));
        types.push(SqlType::BigInt);
        let fields: Vec<(String, ArrayRef)> = columns
            .into_iter()
            .enumerate()
            .map(|(i, c)| (format!("c{i}"), c))
            .collect();
        let batch = RecordBatch::try_from_iter(fields).expect("a batch");
        let kinds = [
            RowKind::Insert,
            RowKind::UpdateBefore,
            RowKind::UpdateAfter,
            RowKind::Delete,
        ];
        let mut changelog = Changelog::default();
        for tz in [chrono_tz::UTC, chrono_tz::Asia::Shanghai] {
            let mut expected = String::new();
            for (row, kind) in kinds.iter().enumerate() {
                expected.push_str(kind.short());
                expected.push('[');
                for (i, (column, ty)) in batch.columns().iter().zip(&types).enumerate() {
                    if i > 0 {
                        expected.push_str(", ");
                    }
                    format_value(column.as_ref(), ty, row, tz, &mut expected).expect("printed");
                }
                expected.push_str("]\n");
            }
            let mut out = String::from("kept\n");
            changelog
                .write(&batch, &types, &kinds, tz, &mut out)
                .expect("printed");
            assert_eq!(out, format!("kept\n{expected}"), "{tz}");
        }
        let empty = RecordBatch::new_empty(Arc::new(arrow::datatypes::Schema::empty()));
        let mut out = String::new();
        let none = RecordBatch::try_new_with_options(
            empty.schema(),
            vec![],
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(2)),
        )
        .expect("a batch of no columns");
        changelog
            .write(
                &none,
                &[],
                &[RowKind::Insert, RowKind::Delete],
                chrono_tz::UTC,
                &mut out,
            )
            .expect("printed");
        assert_eq!(out, "+I[]\n-D[]\n");
    }

    #[test]
    fn json_strings_are_escaped_as_flink_escapes_them() {
        let mut out = String::new();
        push_json_string(
            &mut out,
            "\u{1}\u{8}\t\n\u{b}\u{c}\r\u{1f}/\\\"\u{7f}\u{2028}é",
        );
        assert_eq!(
            out,
            "\"\\u0001\\b\\t\\n\\u000B\\f\\r\\u001F/\\\\\\\"\u{7f}\u{2028}é\""
        );
    }

    #[test]
    fn a_header_names_the_columns_when_asked_for() {
        let names = ["id", "a b"].map(String::from);
        let with = LineEncoder::new(
            LineFormat::of(&options(&[("csv.header", "true")]), vec![]).expect("valid"),
            vec![],
        );
        assert_eq!(with.header(&names).as_deref(), Some("id,\"a b\"\n"));
        let without = LineEncoder::new(
            LineFormat::of(&options(&[]), vec![]).expect("valid"),
            vec![],
        );
        assert_eq!(without.header(&names), None);
    }

    #[test]
    fn a_raw_null_writes_nothing() {
        let batch = RecordBatch::try_from_iter([(
            "v",
            Arc::new(StringArray::from(vec![Some("x y"), None])) as ArrayRef,
        )])
        .expect("valid");
        let mut raw = LineEncoder::new(LineFormat::Raw, vec![0]);
        raw.encode(&batch, &[SqlType::String]).expect("valid");
        let mut out = String::new();
        assert!(raw.line(0, &mut out));
        assert!(!raw.line(1, &mut out));
        assert_eq!(out, "x y");
    }
}
