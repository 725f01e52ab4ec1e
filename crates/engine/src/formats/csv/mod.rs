//! The `'format' = 'csv'` source: reads a header-less CSV file, as Flink's
//! CSV format does, into Arrow record batches.
//!
//! This module owns the `csv.*` table options ([`options`]), the splitting
//! of bytes into records and fields with their line numbers ([`framing`]),
//! and what a bad row does ([`reader`]): stop the query with an error
//! naming file, line and field, or — under
//! `'csv.ignore-parse-errors' = 'true'` — repair or drop it and count that
//! in [`ReadStats`](crate::runtime::read::ReadStats). A field's text becomes
//! a value by the rules every format shares ([`super::text`]).
//!
//! Flink's behaviour that is kept on purpose:
//! - An empty line is a row of one empty field (a short row), not skipped;
//!   with `csv.allow-comments`, blank lines, lines of spaces and lines whose
//!   first non-space is `#` are skipped, and leading spaces of a line are
//!   dropped.
//! - The null literal is compared with the field as read, quoted or not,
//!   case-sensitively.
//!
//! Where tidemark goes further than Flink:
//! - A DECIMAL with too many integer digits is a parse error (Flink reads
//!   NULL without a word); invalid UTF-8 is an error naming the field, and
//!   under ignore-parse-errors drops the row (Flink fails either way).
//! - `csv.null-literal = ''` makes an empty field NULL for every type.

mod framing;
mod options;
mod reader;
#[cfg(test)]
pub(super) mod testing;

pub use options::CsvOptions;
pub use reader::CsvSource;

use options::{one_character, single_ascii, unescape_java};
use tidemark_common::connector::{FormatDecl, OptionDecl, ValueKind};

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
        OptionDecl::flink("csv.quote-character", "the character around quoted fields (written doubled inside them)")
            .default_value("\"")
            .checked(|v| one_character("csv.quote-character", v)),
        OptionDecl::flink(
            "csv.disable-quote-character",
            "read quotes as plain characters, and write fields without them",
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
        OptionDecl::flink("csv.null-literal", "the text read and written as NULL"),
        OptionDecl::flink(
            "csv.escape-character",
            "the character that escapes the next one (written doubled inside quotes)",
        )
        .checked(|v| one_character("csv.escape-character", v)),
        OptionDecl::flink(
            "csv.array-element-delimiter",
            "the separator of array elements (checked; tidemark has no ARRAY columns)",
        )
        .checked(|v| one_character("csv.array-element-delimiter", v)),
        OptionDecl::flink(
            "csv.write-bigdecimal-in-scientific-notation",
            "writing: Flink 2.3 writes a DECIMAL in Java's shortest form (12.5, 1E+2) either way, and so does tidemark",
        )
        .kind(ValueKind::Bool),
        OptionDecl::own(
            "csv.header",
            "the first line holds column names: skipped when read, written by a file sink",
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
