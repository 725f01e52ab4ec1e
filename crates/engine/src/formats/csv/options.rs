//! The `csv.*` options of a table, read into [`CsvOptions`] as Flink reads
//! them: single characters (the delimiter with Java's escapes), and the
//! switches for quotes, comments, parse errors, the null literal and the
//! header.

use crate::formats::options::{option_error, parse_bool_option};
use std::collections::BTreeMap;
use tidemark_common::Result;

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

impl CsvOptions {
    /// From the WITH options of a table (other keys are left alone; which
    /// keys a table may have was checked against [`DECLARATION`](super::DECLARATION) when it
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

/// The one byte of a single-character option; `written` is the value as
/// the user wrote it, for the message.
pub(super) fn single_ascii(key: &str, written: &str, value: &str) -> Result<u8> {
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
pub(super) fn one_character(key: &str, value: &str) -> std::result::Result<(), String> {
    single_ascii(key, value, value)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Java string escapes, as Flink applies them to `csv.field-delimiter`, so
/// that `'\t'` (backslash, t) means a tab.
pub(super) fn unescape_java(text: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::csv::testing::opts;
    use tidemark_common::Error;

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
