//! Checks a `CREATE TABLE`'s `WITH (...)` options against what its
//! connector and format declare, so that a missing, misspelt or badly
//! valued option fails where it is written, with a caret under it and a
//! hint, rather than when the first query opens the table — and no option
//! is accepted that nothing acts on.

use crate::expr_binder::nearest;
use crate::statement::{ColumnDef, CreateTable};
use std::collections::BTreeMap;
use tidemark_common::connector::{
    ConnectorDecl, Declarations, FormatDecl, FormatUse, OptionDecl, ValueKind,
};
use tidemark_common::{Error, Result, Schema, Span};

/// Checks `options` (the map of `create.options`) against `declarations`.
pub fn validate(
    declarations: &Declarations,
    options: &BTreeMap<String, String>,
    create: &CreateTable,
) -> Result<()> {
    let span_of = |key: &str| {
        create
            .options
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, _, s)| *s)
            .unwrap_or(create.span)
    };
    let Some(name) = options.get("connector") else {
        return Err(Error::plan(
            format!("table '{}' needs a 'connector' option", create.name.value),
            create.span,
        )
        .with_hint(
            "e.g. WITH ('connector' = 'filesystem', 'path' = 'data.csv', 'format' = 'csv')",
        ));
    };
    let Some(connector) = declarations.connector(name) else {
        return Err(unknown_connector(declarations, name, span_of("connector")));
    };
    // Before the format: `value.format` in place of `format` is refused
    // by its name, not as a missing 'format'.
    for key in options.keys() {
        if let Some(refused) = connector
            .option(key)
            .filter(|o| o.kind == ValueKind::NotSupported)
        {
            return Err(Error::plan(
                format!(
                    "option '{key}' of the {} connector is not supported yet: {}",
                    connector.name, refused.doc
                ),
                span_of(key),
            ));
        }
    }
    let format = format_of(declarations, connector, options, &span_of)?;
    let parts = part_formats(declarations, connector, options);
    for (key, value) in options {
        if key == "connector" || (key == "format" && format.is_some()) {
            continue;
        }
        // `key.csv.field-delimiter` is the key format's `csv.field-delimiter`.
        let part = parts.iter().find_map(|(part, f)| {
            let rest = key.strip_prefix(part)?;
            rest.starts_with(&format!("{}.", f.name))
                .then_some((rest, *f))
        });
        let declared = match (part, format) {
            (Some((rest, f)), _) => f.option(rest),
            (None, Some(f)) if key.starts_with(&format!("{}.", f.name)) => f.option(key),
            _ => connector.option(key),
        };
        let Some(declared) = declared else {
            return Err(match part {
                Some((rest, f)) => unknown_option(connector, Some(f), rest, key, span_of(key)),
                None => unknown_option(connector, format, key, key, span_of(key)),
            });
        };
        check_value(declared, key, value).map_err(|message| Error::plan(message, span_of(key)))?;
    }
    // After the keys, so that a misspelt required option gets its hint.
    for required in connector.options.iter().filter(|o| o.required) {
        if !options.keys().any(|k| required.matches(k)) {
            return Err(Error::plan(
                format!(
                    "the {} connector needs a '{}' option",
                    connector.name, required.key
                ),
                span_of("connector"),
            )
            .with_hint(format!("e.g. {}", connector.example)));
        }
    }
    if let Some(format) = format {
        (format.check)(options).map_err(|message| Error::plan(message, span_of("format")))?;
    }
    for (part, format) in &parts {
        let own = tidemark_common::connector::part_options(options, part);
        (format.check)(&own)
            .map_err(|message| Error::plan(message, span_of(&format!("{part}format"))))?;
    }
    if let Some(check) = connector.check {
        check(options).map_err(|(key, message)| Error::plan(message, span_of(key)))?;
    }
    Ok(())
}

/// Checks the metadata columns of `create` (typed in `schema`) against
/// what its connector gives: a key it has, once, as a type it casts to.
pub fn validate_metadata(
    declarations: &Declarations,
    options: &BTreeMap<String, String>,
    create: &CreateTable,
    schema: &Schema,
) -> Result<()> {
    let Some(connector) = options
        .get("connector")
        .and_then(|name| declarations.connector(name))
    else {
        return Ok(());
    };
    let mut used: Vec<(String, &str)> = Vec::new();
    for col in &create.columns {
        let ColumnDef::Metadata {
            name, key, span, ..
        } = col
        else {
            continue;
        };
        let (key, key_span) = match key {
            Some((k, s)) => (k.as_str(), *s),
            None => (name.value.as_str(), *span),
        };
        let known: Vec<&str> = connector
            .metadata
            .iter()
            .filter(|m| m.not_supported.is_none())
            .map(|m| m.key)
            .collect();
        let Some(decl) = connector.metadata.iter().find(|m| m.key == key) else {
            let mut err = Error::plan(
                format!(
                    "the {} connector has no metadata key '{key}'",
                    connector.name
                ),
                key_span,
            );
            err = match nearest(key, known.iter().copied()) {
                Some(near) => err.with_hint(format!("did you mean '{near}'?")),
                None if known.is_empty() => err.with_hint(format!(
                    "the {} connector gives no metadata columns: declare '{}' as a column of the rows",
                    connector.name, name.value
                )),
                None => err.with_hint(format!(
                    "the {} connector gives {}",
                    connector.name,
                    known.join(", ")
                )),
            };
            return Err(err);
        };
        if let Some(why) = decl.not_supported {
            return Err(Error::plan(
                format!(
                    "metadata '{key}' of the {} connector is not supported yet: {why}",
                    connector.name
                ),
                key_span,
            ));
        }
        if let Some((other, _)) = used.iter().find(|(_, k)| *k == key) {
            return Err(Error::plan(
                format!(
                    "columns '{other}' and '{}' both read metadata '{key}'",
                    name.value
                ),
                *span,
            )
            .with_hint("declare one and compute the other from it"));
        }
        used.push((name.value.clone(), key));
        let Some(field) = schema.index_of(&name.value).map(|i| schema.field(i)) else {
            continue;
        };
        if field.ty != decl.ty && !crate::types::can_cast(&decl.ty, &field.ty) {
            return Err(Error::plan(
                format!(
                    "metadata column '{}' cannot be {}: the {} connector gives '{key}' as {}, which does not cast to it",
                    name.value, field.ty, connector.name, decl.ty
                ),
                *span,
            ));
        }
    }
    Ok(())
}

/// The parts of a record with formats of their own (`key.format`,
/// `value.format`) that the connector takes and the table names, each
/// with its format.
fn part_formats(
    declarations: &Declarations,
    connector: &ConnectorDecl,
    options: &BTreeMap<String, String>,
) -> Vec<(&'static str, &'static FormatDecl)> {
    ["key.", "value."]
        .into_iter()
        .filter_map(|part| {
            let key = format!("{part}format");
            connector
                .option(&key)
                .filter(|o| o.kind != ValueKind::NotSupported)?;
            let format = declarations.format(options.get(&key)?)?;
            connector
                .formats
                .contains(&format.name)
                .then_some((part, format))
        })
        .collect()
}

/// The format the table's rows are in, checked against the connector.
fn format_of(
    declarations: &Declarations,
    connector: &ConnectorDecl,
    options: &BTreeMap<String, String>,
    span_of: &impl Fn(&str) -> Span,
) -> Result<Option<&'static FormatDecl>> {
    let choices = || {
        let quoted: Vec<String> = connector.formats.iter().map(|f| format!("'{f}'")).collect();
        or_list(&quoted)
    };
    // Flink's kafka table names its value's format either way.
    let value_format = options.contains_key("value.format")
        && connector
            .option("value.format")
            .is_some_and(|o| o.kind != ValueKind::NotSupported);
    if value_format && connector.format != FormatUse::None {
        if options.contains_key("format") {
            return Err(Error::plan(
                "'format' and 'value.format' both name the format of a record's value",
                span_of("value.format"),
            )
            .with_hint("keep one of them"));
        }
        return Ok(None);
    }
    match (connector.format, options.get("format")) {
        (FormatUse::None, None) => Ok(None),
        (FormatUse::None, Some(_)) => Err(Error::plan(
            format!("the {} connector takes no 'format' option", connector.name),
            span_of("format"),
        )
        .with_hint(format!("e.g. {}", connector.example))),
        (FormatUse::Required, None) => Err(Error::plan(
            format!("the {} connector needs a 'format' option", connector.name),
            span_of("connector"),
        )
        .with_hint(format!("'format' = {}", choices()))),
        (FormatUse::Optional, None) => Ok(None),
        (_, Some(name)) => match declarations.format(name) {
            Some(f) if connector.formats.contains(&f.name) => Ok(Some(f)),
            _ => Err(Error::plan(
                format!("format '{name}' is not supported; use {}", choices()),
                span_of("format"),
            )),
        },
    }
}

fn unknown_connector(declarations: &Declarations, name: &str, span: Span) -> Error {
    let err = Error::plan(format!("connector '{name}' is not supported"), span);
    if let Some(near) = nearest(name, declarations.connectors.iter().map(|c| c.name)) {
        return err.with_hint(format!("did you mean '{near}'?"));
    }
    let quoted = |read: bool| -> Vec<String> {
        declarations
            .connectors
            .iter()
            .filter(|c| c.capabilities.read == read)
            .map(|c| format!("'{}'", c.name))
            .collect()
    };
    err.with_hint(format!(
        "use {}, or {} for a sink table",
        or_list(&quoted(true)),
        quoted(false).join(" / ")
    ))
}

/// `key` is the option as its format or connector knows it, `shown` as
/// the table names it (`key.csv.x` for the key format's `csv.x`).
fn unknown_option(
    connector: &ConnectorDecl,
    format: Option<&FormatDecl>,
    key: &str,
    shown: &str,
    span: Span,
) -> Error {
    let (owner, known): (String, Vec<&OptionDecl>) = match format {
        Some(f) if key.starts_with(&format!("{}.", f.name)) => {
            (format!("the {} format", f.name), f.options.iter().collect())
        }
        _ => (
            format!("the {} connector", connector.name),
            connector.options.iter().collect(),
        ),
    };
    let err = Error::plan(format!("unknown option '{shown}' of {owner}"), span);
    let keys = known.iter().map(|o| o.key);
    if let Some(near) = nearest(key, keys.clone()) {
        return err.with_hint(format!("did you mean '{near}'?"));
    }
    let keys: Vec<&str> = keys.collect();
    if keys.is_empty() {
        err.with_hint(format!("{owner} has no options of its own"))
    } else {
        err.with_hint(format!("{owner} knows {}", keys.join(", ")))
    }
}

/// Whether `value` is one `declared` takes: the message says why not.
fn check_value(declared: &OptionDecl, key: &str, value: &str) -> Result<(), String> {
    match declared.kind {
        ValueKind::Text => {}
        // A format's option (a connector's is refused before the format).
        ValueKind::NotSupported => {
            return Err(format!(
                "option '{key}' is not supported yet: {}",
                declared.doc
            ))
        }
        ValueKind::Bool => {
            if !value.eq_ignore_ascii_case("true") && !value.eq_ignore_ascii_case("false") {
                return Err(format!(
                    "option '{key}' must be 'true' or 'false', not '{value}'"
                ));
            }
        }
        ValueKind::OneOf(words) => {
            if !words.contains(&value) {
                let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
                return Err(format!(
                    "option '{key}' must be {}, not '{value}'",
                    or_list(&quoted)
                ));
            }
        }
        ValueKind::Duration => {
            if !tidemark_common::time::parse_duration_ms(value).is_ok_and(|ms| ms >= 0) {
                return Err(format!(
                    "'{key}' must be a duration such as '30 s' (or 0: never), not '{value}'"
                ));
            }
        }
        ValueKind::PositiveDuration => {
            if !tidemark_common::time::parse_duration_ms(value).is_ok_and(|ms| ms > 0) {
                return Err(format!(
                    "'{key}' must be a positive duration such as '1 s', not '{value}'"
                ));
            }
        }
    }
    match declared.check {
        Some(check) => check(value),
        None => Ok(()),
    }
}

/// `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`.
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use crate::{parse_script, Catalog, Statement};
    use tidemark_common::{Error, Result};

    /// Declares `CREATE TABLE t (a INT) WITH (<with>)`; `with` marks where
    /// the error must point with `⟨`. Returns the message, the hint and
    /// whether the error's column is the marker's.
    fn error_of(with: &str) -> Result<(String, Option<String>, bool)> {
        let head = "CREATE TABLE t (a INT) WITH (";
        let marker = with.find('⟨').expect("the case marks the error position");
        let col = (head.len() + with[..marker].chars().count() + 1) as u64;
        declare(&format!("{head}{})", with.replace('⟨', "")), col)
    }

    /// Declares `sql`, which must fail: the message, the hint and whether
    /// the error is at column `col`.
    fn declare(sql: &str, col: u64) -> Result<(String, Option<String>, bool)> {
        let with = sql;
        let mut catalog = Catalog::new(tidemark_engine::declarations());
        let statements = parse_script(sql)?;
        let Some(Statement::CreateTable(create)) = statements.first() else {
            panic!("not a CREATE TABLE: {sql}");
        };
        match catalog.create_table(create, std::path::Path::new(".")) {
            Err(Error::Plan {
                message,
                span,
                hint,
            }) => Ok((message, hint, span.start_col == col)),
            other => panic!("expected an error for {with}, got {other:?}"),
        }
    }

    #[test]
    fn bad_metadata_columns_fail_where_they_are_written() -> Result<()> {
        let kafka = "'connector' = 'kafka', 'topic' = 'x', \
                     'properties.bootstrap.servers' = 'h:9092', 'format' = 'csv'";
        let fs = "'connector' = 'filesystem', 'path' = 'x.csv', 'format' = 'csv'";
        let cases = [
            (
                "a INT, ts TIMESTAMP_LTZ(3) METADATA FROM ⟨'timestmp'",
                kafka,
                "the kafka connector has no metadata key 'timestmp'",
                Some("did you mean 'timestamp'?"),
            ),
            (
                "a INT, h STRING METADATA FROM ⟨'headers'",
                kafka,
                "metadata 'headers' of the kafka connector is not supported yet: it is a MAP<STRING, BYTES>, and tidemark has no MAP or BYTES type",
                None,
            ),
            (
                "a INT, ⟨p TIMESTAMP(3) METADATA FROM 'partition'",
                kafka,
                "metadata column 'p' cannot be TIMESTAMP(3): the kafka connector gives 'partition' as INT, which does not cast to it",
                None,
            ),
            (
                "a INT, t1 TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', ⟨`timestamp` TIMESTAMP(3) METADATA",
                kafka,
                "columns 't1' and 'timestamp' both read metadata 'timestamp'",
                Some("declare one and compute the other from it"),
            ),
            (
                "a INT, f STRING METADATA FROM ⟨'file.path'",
                fs,
                "the filesystem connector has no metadata key 'file.path'",
                Some("the filesystem connector gives no metadata columns: declare 'f' as a column of the rows"),
            ),
        ];
        for (columns, with, message, hint) in cases {
            let head = "CREATE TABLE t (";
            let marker = columns
                .find('⟨')
                .expect("the case marks the error position");
            let col = (head.len() + columns[..marker].chars().count() + 1) as u64;
            let sql = format!("{head}{}) WITH ({with})", columns.replace('⟨', ""));
            let (got, got_hint, at_marker) = declare(&sql, col)?;
            assert_eq!(got, message, "{sql}");
            assert!(at_marker, "the caret is not at the marker: {sql}");
            assert_eq!(got_hint.as_deref(), hint, "{sql}");
        }
        Ok(())
    }

    #[test]
    fn bad_options_fail_where_they_are_written() -> Result<()> {
        let fs = "'connector' = 'filesystem', 'path' = 'x.csv', 'format' = 'csv'";
        let cases = [
            (
                format!("{fs}, ⟨'source.monitor-intervall' = '1 s'"),
                "unknown option 'source.monitor-intervall' of the filesystem connector",
                Some("did you mean 'source.monitor-interval'?"),
            ),
            (
                format!("{fs}, ⟨'csv.heder' = 'true'"),
                "unknown option 'csv.heder' of the csv format",
                Some("did you mean 'csv.header'?"),
            ),
            (
                "'connector' = 'filesystem', 'path' = 'x.json', 'format' = 'json', \
                 ⟨'json.no-such-key' = 'true'"
                    .into(),
                "unknown option 'json.no-such-key' of the json format",
                Some("the json format knows json.ignore-parse-errors, json.fail-on-missing-field, json.timestamp-format.standard, json.map-null-key.mode, json.map-null-key.literal, json.encode.decimal-as-plain-number, json.encode.ignore-null-fields, json.decode.json-parser.enabled"),
            ),
            (
                format!("{fs}, ⟨'json.ignore-parse-errors' = 'true'"),
                "unknown option 'json.ignore-parse-errors' of the filesystem connector",
                None,
            ),
            (
                format!("{fs}, ⟨'csv.header' = 'yes'"),
                "option 'csv.header' must be 'true' or 'false', not 'yes'",
                None,
            ),
            (
                format!("{fs}, ⟨'csv.field-delimiter' = ';;'"),
                "option 'csv.field-delimiter' must be a string with single character, but was: ;;",
                None,
            ),
            (
                "'connector' = 'filesystem', 'path' = 'x.csv', ⟨'format' = 'csv', \
                 'csv.quote-character' = '''', 'csv.disable-quote-character' = 'true'"
                    .into(),
                "the csv format cannot have both 'csv.quote-character' and 'csv.disable-quote-character' = 'true'",
                None,
            ),
            (
                "'connector' = 'filesystem', 'path' = 'x.json', 'format' = 'json', \
                 ⟨'json.timestamp-format.standard' = 'iso'"
                    .into(),
                "option 'json.timestamp-format.standard' must be 'SQL' or 'ISO-8601', not 'iso'",
                None,
            ),
            (
                "⟨'connector' = 'filesytem', 'path' = 'x.csv'".into(),
                "connector 'filesytem' is not supported",
                Some("did you mean 'filesystem'?"),
            ),
            (
                "⟨'connector' = 'kinesis'".into(),
                "connector 'kinesis' is not supported",
                Some("use 'filesystem', 'stdin', 'datagen', 'nexmark', 'replay' or 'kafka', or 'upsert-kafka' / 'print' / 'blackhole' / 'jdbc' for a sink table"),
            ),
            (
                "'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'format' = 'csv', ⟨'value.format' = 'json'"
                    .into(),
                "'format' and 'value.format' both name the format of a record's value",
                Some("keep one of them"),
            ),
            (
                "'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'value.format' = 'json', 'key.format' = 'json', ⟨'key.json.fail-on-missing' = 'true'"
                    .into(),
                "unknown option 'key.json.fail-on-missing' of the json format",
                Some("did you mean 'json.fail-on-missing-field'?"),
            ),
            (
                "'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'value.format' = 'json', ⟨'value.csv.field-delimiter' = ';'"
                    .into(),
                "unknown option 'value.csv.field-delimiter' of the kafka connector",
                None,
            ),
            (
                "'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'value.format' = 'json', ⟨'value.json.timestamp-format.standard' = 'iso'"
                    .into(),
                "option 'value.json.timestamp-format.standard' must be 'SQL' or 'ISO-8601', not 'iso'",
                None,
            ),
            (
                "'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'format' = 'raw', ⟨'raw.charset' = 'ISO-8859-1'"
                    .into(),
                "option 'raw.charset' is not supported yet: raw text is read and written as UTF-8",
                None,
            ),
            (
                "'connector' = 'kafka', ⟨'topic-pattern' = 'bids-.*', 'properties.bootstrap.servers' = 'h:9092', \
                 'format' = 'csv'"
                    .into(),
                "option 'topic-pattern' of the kafka connector is not supported yet: name the topics in 'topic', as 't1;t2'",
                None,
            ),
            (
                "'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'format' = 'csv', ⟨'sink.partitioner' = 'org.acme.ByRegion'"
                    .into(),
                "'sink.partitioner' must be 'default', 'fixed' or 'round-robin', not 'org.acme.ByRegion': tidemark cannot load a Java partitioner class",
                None,
            ),
            (
                "'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'format' = 'csv', ⟨'sink.delivery-guarantee' = 'exactly-once'"
                    .into(),
                "'exactly-once' delivery needs 'sink.transactional-id-prefix': the start of the transactional id, unique to this sink, by which a resumed run fences off the one that stopped",
                None,
            ),
            (
                "'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'format' = 'csv', ⟨'sink.transactional-id-prefix' = 'bids-out'"
                    .into(),
                "'sink.transactional-id-prefix' goes with 'sink.delivery-guarantee' = 'exactly-once', which this table does not have",
                None,
            ),
            (
                "'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'format' = 'csv', 'sink.delivery-guarantee' = 'exactly-once', \
                 'sink.transactional-id-prefix' = 'bids-out', ⟨'sink.epoch-topic' = 'bids out'"
                    .into(),
                "'bids out' is not a topic name: letters, digits, '.', '_' and '-', at most 249",
                None,
            ),
            (
                "'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'format' = 'csv', ⟨'key.format' = 'avro'"
                    .into(),
                "the format must be 'csv', 'json' or 'raw', not 'avro'",
                None,
            ),
            (
                "⟨'connector' = 'upsert-kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'value.format' = 'json'"
                    .into(),
                "the upsert-kafka connector needs a 'key.format' option",
                None,
            ),
            (
                "'connector' = 'upsert-kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:9092', \
                 'key.format' = 'json', 'value.format' = 'json', ⟨'format' = 'json'"
                    .into(),
                "the upsert-kafka connector takes no 'format' option",
                None,
            ),
            (
                "'connector' = 'print', ⟨'sink.parallelism' = '2'".into(),
                "unknown option 'sink.parallelism' of the print connector",
                Some("the print connector knows print-identifier"),
            ),
            (
                "'connector' = 'blackhole', ⟨'format' = 'csv'".into(),
                "the blackhole connector takes no 'format' option",
                None,
            ),
            (
                "⟨'connector' = 'stdin'".into(),
                "the stdin connector needs a 'format' option",
                Some("'format' = 'csv' or 'json'"),
            ),
            (
                "⟨'connector' = 'jdbc', 'url' = 'postgresql://h/db'".into(),
                "the jdbc connector needs a 'table-name' option",
                None,
            ),
            (
                "'connector' = 'filesystem', 'path' = 'x', ⟨'format' = 'avro'".into(),
                "format 'avro' is not supported; use 'csv' or 'json'",
                None,
            ),
        ];
        for (with, message, hint) in cases {
            let (got, got_hint, at_marker) = error_of(&with)?;
            assert_eq!(got, message, "{with}");
            assert!(at_marker, "the caret is not at the marker: {with}");
            if let Some(hint) = hint {
                assert_eq!(got_hint.as_deref(), Some(hint), "{with}");
            }
        }
        Ok(())
    }

    #[test]
    fn declared_options_are_taken() -> Result<()> {
        let sql = "CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = 'x.csv', \
                   'format' = 'csv', 'csv.field-delimiter' = '\\t', 'csv.header' = 'TRUE', \
                   'source.monitor-interval' = '500 ms');
                   CREATE TABLE g (a INT) WITH ('connector' = 'datagen', 'fields.a.kind' = 'sequence',
                   'fields.a.start' = '1', 'fields.a.end' = '5')";
        let mut catalog = Catalog::new(tidemark_engine::declarations());
        for statement in parse_script(sql)? {
            if let Statement::CreateTable(create) = statement {
                catalog.create_table(&create, std::path::Path::new("."))?;
            }
        }
        Ok(())
    }
}
