//! Which of a kafka table's physical columns a record's key holds and
//! which its value, and the format each is in, by Flink's options:
//! `key.format` with `key.fields` (an upsert-kafka table's key is its
//! PRIMARY KEY), `key.fields-prefix`, `format` or `value.format`, and
//! `value.fields-include`. Reading and writing share it, so that a table
//! reads back what it wrote.

use crate::formats::raw;
use std::collections::BTreeMap;
use tidemark_common::catalog::TableDef;
use tidemark_common::connector::part_options;
use tidemark_common::SqlType;

/// One part of a record, the key or the value.
#[derive(Clone, Debug)]
pub(super) struct Part {
    /// `csv`, `json` or `raw`.
    pub(super) format: String,
    /// The part's options as its format reads them (`format`, `csv.*`).
    pub(super) options: BTreeMap<String, String>,
    /// Positions among the physical columns, in the table's order.
    pub(super) columns: Vec<usize>,
    /// The columns' names in the format: a key's without the
    /// `key.fields-prefix`.
    pub(super) names: Vec<String>,
}

impl Part {
    pub(super) fn is_raw(&self) -> bool {
        self.format == "raw"
    }
}

/// A kafka table's record layout.
#[derive(Clone, Debug)]
pub(super) struct RecordLayout {
    pub(super) key: Option<Part>,
    pub(super) value: Part,
    /// `'value.fields-include' = 'EXCEPT_KEY'`: the key's columns are
    /// read from the key only.
    pub(super) except_key: bool,
}

impl RecordLayout {
    /// The layout of `table`, whose physical columns are `physical`.
    pub(super) fn of_table(
        table: &TableDef,
        physical: &[(String, SqlType)],
        upsert: bool,
    ) -> Result<Self, String> {
        Self::of(&table.options, &table.primary_key, physical, upsert)
    }

    /// The layout of a table with `options` and `primary_key`.
    pub(super) fn of(
        options: &BTreeMap<String, String>,
        primary_key: &[String],
        physical: &[(String, SqlType)],
        upsert: bool,
    ) -> Result<Self, String> {
        let option = |key: &str| options.get(key).map(String::as_str);
        let key_names: Vec<String> = if upsert {
            primary_key.to_vec()
        } else {
            option("key.fields")
                .map(|f| {
                    f.split(';')
                        .map(|k| k.trim().to_string())
                        .filter(|k| !k.is_empty())
                        .collect()
                })
                .unwrap_or_default()
        };
        let except_key = match option("value.fields-include").unwrap_or("ALL") {
            "ALL" => false,
            "EXCEPT_KEY" => true,
            other => {
                return Err(format!(
                    "'value.fields-include' must be 'ALL' or 'EXCEPT_KEY', not '{other}'"
                ))
            }
        };
        let prefix = option("key.fields-prefix").unwrap_or("");
        if !prefix.is_empty() && !except_key {
            return Err(format!(
                "'key.fields-prefix' = '{prefix}' needs 'value.fields-include' = 'EXCEPT_KEY': with 'ALL' the value holds the key's columns too, under the same names"
            ));
        }
        let position = |name: &str| {
            physical
                .iter()
                .position(|(n, _)| n.eq_ignore_ascii_case(name))
        };
        let mut key_columns = Vec::new();
        let mut key_format_names = Vec::new();
        for name in &key_names {
            let Some(at) = position(name) else {
                return Err(format!(
                    "key field '{name}' is not a physical column of the table"
                ));
            };
            let Some(unprefixed) = strip_prefix_ignoring_case(&physical[at].0, prefix) else {
                return Err(format!(
                    "key field '{name}' does not start with the 'key.fields-prefix' '{prefix}': every key column must"
                ));
            };
            key_columns.push(at);
            key_format_names.push(unprefixed.to_string());
        }
        let key = match (option("key.format"), key_columns.is_empty()) {
            (Some(format), false) => Some(Part {
                format: format.to_string(),
                options: part_options(options, "key."),
                columns: key_columns.clone(),
                names: key_format_names,
            }),
            (None, true) => None,
            (Some(_), true) if upsert => {
                return Err(
                    "an upsert-kafka table needs a PRIMARY KEY (...) NOT ENFORCED: its columns are each record's key".into(),
                )
            }
            (Some(_), true) => {
                return Err("'key.format' needs the key's columns in 'key.fields' ('a;b')".into())
            }
            (None, false) => return Err("'key.fields' needs a 'key.format'".into()),
        };
        if let Some(part) = &key {
            let skip = format!("{}.ignore-parse-errors", part.format);
            if part
                .options
                .get(&skip)
                .is_some_and(|v| v.eq_ignore_ascii_case("true"))
            {
                return Err(format!(
                    "'key.{skip}' is not supported yet: a key that does not parse stops the job, naming its record (a row is never dropped for its key)"
                ));
            }
        }
        let value_columns: Vec<usize> = (0..physical.len())
            .filter(|c| !(except_key && key_columns.contains(c)))
            .collect();
        let (format, options) = match (option("format"), option("value.format")) {
            (Some(format), _) => (format.to_string(), own_options(options, format)),
            (None, Some(format)) => (format.to_string(), part_options(options, "value.")),
            (None, None) => ("csv".to_string(), own_options(options, "csv")),
        };
        let value = Part {
            format,
            options,
            names: value_columns
                .iter()
                .map(|c| physical[*c].0.clone())
                .collect(),
            columns: value_columns,
        };
        let value_prefix = if option("format").is_some() {
            ""
        } else {
            "value."
        };
        for (part, prefix) in [(Some(&value), value_prefix), (key.as_ref(), "key.")] {
            let header = part
                .and_then(|p| p.options.get("csv.header"))
                .filter(|_| part.is_some_and(|p| p.format == "csv"));
            if header.is_some_and(|v| v.eq_ignore_ascii_case("true")) {
                return Err(format!(
                    "'{prefix}csv.header' = 'true' does not fit a kafka table: each record's key or value is one row, with no line of column names"
                ));
            }
        }
        for (part, what) in [(Some(&value), "value"), (key.as_ref(), "key")] {
            let Some(part) = part.filter(|p| p.is_raw()) else {
                continue;
            };
            let columns: Vec<(String, SqlType)> =
                part.columns.iter().map(|c| physical[*c].clone()).collect();
            if let Some(why) = raw::unfit(&columns) {
                return Err(format!("a record's {what}: {why}"));
            }
        }
        Ok(RecordLayout {
            key,
            value,
            except_key,
        })
    }

    /// Whether reading takes columns from the key: only with
    /// `EXCEPT_KEY`, since with `ALL` the value's columns win.
    pub(super) fn reads_key(&self) -> bool {
        self.except_key && self.key.is_some()
    }
}

/// `format` and the table's own options of that format (`csv.*`).
fn own_options(options: &BTreeMap<String, String>, format: &str) -> BTreeMap<String, String> {
    let own = format!("{format}.");
    let mut out: BTreeMap<String, String> = options
        .iter()
        .filter(|(k, _)| k.starts_with(&own))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    out.insert("format".into(), format.into());
    out
}

fn strip_prefix_ignoring_case<'a>(name: &'a str, prefix: &str) -> Option<&'a str> {
    let head = name.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &name[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(options: &[(&str, &str)], upsert: bool) -> Result<RecordLayout, String> {
        let options: BTreeMap<String, String> = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        RecordLayout::of(&options, &[], &physical(), upsert)
    }

    fn physical() -> Vec<(String, SqlType)> {
        vec![
            ("k_id".into(), SqlType::Int),
            ("name".into(), SqlType::String),
            ("n".into(), SqlType::BigInt),
        ]
    }

    #[test]
    fn a_prefixed_key_is_named_without_its_prefix_and_left_out_of_the_value() {
        let layout = layout(
            &[
                ("format", "json"),
                ("key.format", "json"),
                ("key.fields", "k_id"),
                ("key.fields-prefix", "k_"),
                ("value.fields-include", "EXCEPT_KEY"),
                ("key.json.fail-on-missing-field", "true"),
            ],
            false,
        )
        .unwrap();
        let key = layout.key.as_ref().unwrap();
        assert_eq!(
            (key.columns.clone(), key.names.clone()),
            (vec![0], vec!["id".to_string()])
        );
        assert_eq!(
            key.options
                .get("json.fail-on-missing-field")
                .map(String::as_str),
            Some("true")
        );
        assert_eq!(key.options.get("format").map(String::as_str), Some("json"));
        assert_eq!(layout.value.columns, vec![1, 2]);
        assert!(layout.reads_key());
    }

    #[test]
    fn the_value_format_may_be_named_either_way() {
        let by_value = [("value.format", "csv"), ("value.csv.field-delimiter", ";")];
        let layout = layout(&by_value, false).unwrap();
        assert_eq!(
            layout
                .value
                .options
                .get("csv.field-delimiter")
                .map(String::as_str),
            Some(";")
        );
        let by_format = [("format", "csv"), ("csv.field-delimiter", "|")];
        let layout = super::tests::layout(&by_format, false).unwrap();
        assert_eq!(
            layout
                .value
                .options
                .get("csv.field-delimiter")
                .map(String::as_str),
            Some("|")
        );
        assert_eq!(layout.value.columns, vec![0, 1, 2]);
        assert!(layout.key.is_none() && !layout.reads_key());
    }

    #[test]
    fn what_flink_refuses_is_refused() {
        let cases: &[(&[(&str, &str)], bool, &str)] = &[
            (&[("key.format", "csv")], false, "needs the key's columns"),
            (&[("key.fields", "k_id")], false, "needs a 'key.format'"),
            (
                &[("key.format", "csv"), ("key.fields", "nope")],
                false,
                "not a physical column",
            ),
            (
                &[
                    ("key.format", "csv"),
                    ("key.fields", "k_id"),
                    ("key.fields-prefix", "k_"),
                ],
                false,
                "needs 'value.fields-include' = 'EXCEPT_KEY'",
            ),
            (
                &[
                    ("key.format", "csv"),
                    ("key.fields", "name"),
                    ("key.fields-prefix", "k_"),
                    ("value.fields-include", "EXCEPT_KEY"),
                ],
                false,
                "does not start with",
            ),
            (&[("format", "raw")], false, "one STRING column, not 3"),
            (
                &[
                    ("key.format", "raw"),
                    ("key.fields", "k_id"),
                    ("format", "csv"),
                ],
                false,
                "column 'k_id' is INT",
            ),
            (
                &[("key.format", "csv"), ("value.format", "csv")],
                true,
                "needs a PRIMARY KEY",
            ),
            (
                &[
                    ("key.format", "csv"),
                    ("key.fields", "k_id"),
                    ("key.csv.ignore-parse-errors", "true"),
                ],
                false,
                "'key.csv.ignore-parse-errors' is not supported yet",
            ),
            (
                &[("format", "csv"), ("csv.header", "true")],
                false,
                "'csv.header' = 'true' does not fit",
            ),
            (
                &[("value.format", "csv"), ("value.csv.header", "true")],
                false,
                "'value.csv.header' = 'true' does not fit",
            ),
        ];
        for (options, upsert, want) in cases {
            let err = layout(options, *upsert).unwrap_err();
            assert!(err.contains(want), "{options:?}: {err}");
        }
        let raw_key = [
            ("key.format", "raw"),
            ("key.fields", "name"),
            ("format", "json"),
        ];
        assert!(layout(&raw_key, false).is_ok());
    }
}
