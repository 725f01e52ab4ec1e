//! The `'format' = 'json'` source: JSON lines (one object per line), as
//! Flink's JSON format reads them, into Arrow record batches.
//!
//! Fields are found by column name; a missing field or `null` is NULL, and
//! fields the table does not declare are ignored. Each value is read as
//! text — a JSON string's contents, a number or boolean as written, a
//! nested object or array as its JSON text — and converted with the same
//! rules as the csv format (so `'2020-04-15 08:05:00'`, Java doubles and
//! DECIMAL rounding behave alike in both), with the `json.*` options:
//! - `json.ignore-parse-errors`: a value that does not convert becomes
//!   NULL, a line that is not a JSON object is skipped; both are counted.
//!   Without it either stops the query with file, line and field.
//! - `json.fail-on-missing-field`: a missing field is an error (or, when
//!   errors are ignored, NULL).
//! - `json.timestamp-format.standard`: `'SQL'` (`yyyy-MM-dd HH:mm:ss`, the
//!   default) or `'ISO-8601'` (`yyyy-MM-ddTHH:mm:ss`).
//!
//! A batch whose lines are all flat objects of plain values is read in one
//! pass over each line ([`flat`]); any other batch is tokenised at once by
//! arrow-json into text columns, and only a batch with a line arrow-json
//! rejects (a nested value, broken JSON) is taken apart line by line with
//! serde_json. Blank lines are skipped.

mod flat;
mod lines;
mod options;
mod reader;

pub use options::JsonOptions;
pub use reader::JsonSource;

use tidemark_common::connector::{FormatDecl, OptionDecl, ValueKind};

/// The json format's declaration: Flink's options.
pub static DECLARATION: FormatDecl = FormatDecl {
    name: "json",
    doc: "JSON lines: one object per line, fields found by name, as Flink's json format reads and writes them",
    options: &[
        OptionDecl::flink("json.ignore-parse-errors", "skip or null what does not parse, and count it, instead of failing")
            .default_value("false")
            .kind(ValueKind::Bool),
        OptionDecl::flink("json.fail-on-missing-field", "a missing field is an error rather than NULL")
            .default_value("false")
            .kind(ValueKind::Bool),
        OptionDecl::flink("json.timestamp-format.standard", "timestamps as 'SQL' (a space) or 'ISO-8601' (a T)")
            .default_value("SQL")
            .kind(ValueKind::OneOf(&["SQL", "ISO-8601"])),
        OptionDecl::flink("json.map-null-key.mode", "a writing option of Flink's for MAP keys (tidemark has no MAP columns)"),
        OptionDecl::flink("json.map-null-key.literal", "a writing option of Flink's for MAP keys (tidemark has no MAP columns)"),
        OptionDecl::flink("json.encode.decimal-as-plain-number", "writing: a DECIMAL with all its digits (12.50) rather than Java's shortest form (12.5, 1E+2)")
            .default_value("false")
            .kind(ValueKind::Bool),
        OptionDecl::flink("json.encode.ignore-null-fields", "writing: a NULL field is left out of its object")
            .default_value("false")
            .kind(ValueKind::Bool),
        OptionDecl::flink("json.decode.json-parser.enabled", "Flink's choice of JSON parser; the rows are the same either way")
            .kind(ValueKind::Bool),
    ],
    check: |options| JsonOptions::from_options(options).map(drop).map_err(|e| e.to_string()),
};
