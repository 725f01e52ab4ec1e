//! How a row is written as one line of text: CSV fields with a delimiter
//! or a JSON object (or, for a Kafka record's key or value, one STRING
//! column's raw text). The file sinks write a line per row, and the kafka
//! sinks make a record's value (and key) of one, so both encode through
//! [`LineEncoder`].

use crate::formats::print::format_value;
use arrow::array::{Array, RecordBatch};
use std::collections::BTreeMap;
use tidemark_common::{Result, SqlType};

/// How a row is written: CSV with a delimiter, a JSON object with these
/// field names (one per encoded column), or one column's text as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineFormat {
    Csv(char),
    Json(Vec<String>),
    Raw,
}

impl LineFormat {
    /// The format `options` name under `format_key` (csv unless json), for
    /// columns called `names`; `prefix` is where the format's own options
    /// start (`csv.` for a table's format, `key.csv.` for a record key's).
    pub fn of(
        options: &BTreeMap<String, String>,
        format_key: &str,
        prefix: &str,
        names: Vec<String>,
    ) -> LineFormat {
        match options.get(format_key).map(String::as_str) {
            Some("json") => LineFormat::Json(names),
            Some("raw") => LineFormat::Raw,
            _ => {
                let delimiter = options
                    .get(&format!("{prefix}csv.field-delimiter"))
                    .map(String::as_str)
                    .unwrap_or(",");
                LineFormat::Csv(match delimiter.as_bytes() {
                    [b] => *b as char,
                    _ => ',',
                })
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

/// Encodes chosen columns of a row as one line, without its line break.
pub struct LineEncoder {
    format: LineFormat,
    /// The columns encoded, in order (positions in the batch).
    columns: Vec<usize>,
    /// One value's text, reused.
    value: String,
}

impl LineEncoder {
    pub fn new(format: LineFormat, columns: Vec<usize>) -> Self {
        LineEncoder {
            format,
            columns,
            value: String::new(),
        }
    }

    /// Appends row `row` of `batch` (column types `types`, the batch's
    /// whole width) to `out`; false when there is nothing to write (a
    /// raw column's NULL), which a record writes as no bytes at all.
    pub fn encode(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        row: usize,
        tz: chrono_tz::Tz,
        out: &mut String,
    ) -> Result<bool> {
        let value = &mut self.value;
        match &self.format {
            LineFormat::Raw => {
                let c = self.columns[0];
                let column = batch.column(c);
                if column.is_null(row) {
                    return Ok(false);
                }
                format_value(column.as_ref(), &types[c], row, tz, out)?;
            }
            LineFormat::Csv(delimiter) => {
                for (i, c) in self.columns.iter().enumerate() {
                    if i > 0 {
                        out.push(*delimiter);
                    }
                    let column = batch.column(*c);
                    if column.is_null(row) {
                        continue;
                    }
                    value.clear();
                    format_value(column.as_ref(), &types[*c], row, tz, value)?;
                    push_csv_field(out, value, *delimiter);
                }
            }
            LineFormat::Json(names) => {
                out.push('{');
                for (i, (c, name)) in self.columns.iter().zip(names).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_json_string(out, name);
                    out.push(':');
                    let column = batch.column(*c);
                    if column.is_null(row) {
                        out.push_str("null");
                        continue;
                    }
                    let ty = &types[*c];
                    value.clear();
                    format_value(column.as_ref(), ty, row, tz, value)?;
                    match ty {
                        SqlType::Int | SqlType::BigInt | SqlType::Decimal(..) => {
                            out.push_str(value)
                        }
                        SqlType::Double if value.parse::<f64>().is_ok_and(f64::is_finite) => {
                            out.push_str(value)
                        }
                        SqlType::Boolean => out.push_str(&value.to_ascii_lowercase()),
                        _ => push_json_string(out, value),
                    }
                }
                out.push('}');
            }
        }
        Ok(true)
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

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int32Array, StringArray};
    use std::sync::Arc;

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        let mut line = String::new();
        push_csv_field(&mut line, "plain", ',');
        line.push(',');
        push_csv_field(&mut line, "a,b \"c\"", ',');
        assert_eq!(line, "plain,\"a,b \"\"c\"\"\"");
    }

    #[test]
    fn chosen_columns_are_encoded_in_their_order() -> Result<()> {
        let batch = RecordBatch::try_from_iter([
            ("n", Arc::new(Int32Array::from(vec![Some(7), None])) as _),
            ("s", Arc::new(StringArray::from(vec!["a\"b", "c;d"])) as _),
        ])?;
        let types = [SqlType::Int, SqlType::String];
        let mut out = String::new();
        let mut json = LineEncoder::new(LineFormat::Json(vec!["s".into(), "n".into()]), vec![1, 0]);
        json.encode(&batch, &types, 0, chrono_tz::UTC, &mut out)?;
        assert_eq!(out, r#"{"s":"a\"b","n":7}"#);
        out.clear();
        json.encode(&batch, &types, 1, chrono_tz::UTC, &mut out)?;
        assert_eq!(out, r#"{"s":"c;d","n":null}"#);
        out.clear();
        let mut csv = LineEncoder::new(LineFormat::Csv(';'), vec![0, 1]);
        csv.encode(&batch, &types, 1, chrono_tz::UTC, &mut out)?;
        assert_eq!(out, ";\"c;d\"");
        Ok(())
    }
}
