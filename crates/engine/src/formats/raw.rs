//! The `raw` format: a record's whole key or value as one STRING column,
//! as Flink's raw format reads and writes it. Only Kafka records carry it
//! (a file has no record boundaries but lines); the kafka connector hands
//! each record's bytes over whole ([`crate::connectors`]), decoded as
//! UTF-8 the way Java decodes bytes (malformed sequences become U+FFFD),
//! a record without a value giving a NULL.

use tidemark_common::connector::{FormatDecl, OptionDecl};
use tidemark_common::SqlType;

/// The raw format's declaration: Flink's options, neither of which
/// tidemark varies.
pub static DECLARATION: FormatDecl = FormatDecl {
    name: "raw",
    doc: "a Kafka record's whole key or value as one STRING column (UTF-8)",
    options: &[
        OptionDecl::not_yet("raw.charset", "raw text is read and written as UTF-8"),
        OptionDecl::not_yet(
            "raw.endianness",
            "a raw column is a STRING, which has no byte order",
        ),
    ],
    check: |_| Ok(()),
};

/// Why `columns` cannot be a raw key or value, if they cannot: raw holds
/// exactly one STRING column.
pub fn unfit(columns: &[(String, SqlType)]) -> Option<String> {
    match columns {
        [(_, SqlType::String)] => None,
        [(name, other)] => Some(format!(
            "the 'raw' format holds a STRING, and column '{name}' is {other}: declare it STRING and CAST it in the query"
        )),
        _ => Some(format!(
            "the 'raw' format holds one STRING column, not {} ({}): use 'csv' or 'json' for several",
            columns.len(),
            columns
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
