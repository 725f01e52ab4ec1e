//! What `SET;` and `DESCRIBE` print: the options with their values and
//! defaults, and a table's columns, time attributes and connector options
//! as a drawn table.

use crate::tableau::draw_table;
use tidemark_common::{
    Field, Result, ResultMode, SessionOptions, Span, KNOWN_OPTIONS, RESULT_MODE,
};
use tidemark_sql::{Catalog, QueryBinder};

/// `SET;`: every known option with its value, marked where it is the
/// default or unset, then any other keys set.
pub fn list_options(options: &SessionOptions, default_mode: ResultMode) -> String {
    let mut out = String::new();
    let quote = tidemark_sql::quote_string;
    let mut listed = std::collections::HashSet::new();
    for known in KNOWN_OPTIONS {
        if known.key.ends_with('.') {
            // A prefix: list the keys set under it.
            for (k, v) in options.iter().filter(|(k, _)| k.starts_with(known.key)) {
                out.push_str(&format!("{} = {}\n", quote(k), quote(v)));
                listed.insert(k.to_string());
            }
            continue;
        }
        listed.insert(known.key.to_string());
        let default = match known.key {
            RESULT_MODE => Some(default_mode.name()),
            _ => known.default,
        };
        match (options.get(known.key), default) {
            (Some(v), _) => out.push_str(&format!("{} = {}\n", quote(known.key), quote(v))),
            (None, Some(d)) => {
                out.push_str(&format!("{} = {} (default)\n", quote(known.key), quote(d)))
            }
            (None, None) => out.push_str(&format!("{} (unset)\n", quote(known.key))),
        }
    }
    for (k, v) in options.iter().filter(|(k, _)| !listed.contains(*k)) {
        out.push_str(&format!(
            "{} = {} (not read by tidemark)\n",
            quote(k),
            quote(v)
        ));
    }
    out
}

/// The keys set (not left at their defaults), as `tidemark explain` shows
/// them after each plan: `settings: 'k' = 'v', ...; not read by tidemark:
/// 'pipeline.name'`.
pub fn settings_in_effect(options: &SessionOptions) -> String {
    let quote = tidemark_sql::quote_string;
    let (read, unread): (Vec<_>, Vec<_>) = options
        .iter()
        .partition(|(k, _)| tidemark_common::is_known_option(k));
    let pairs = |set: &[(&str, &str)]| {
        set.iter()
            .map(|(k, v)| format!("{} = {}", quote(k), quote(v)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut line = if read.is_empty() {
        "settings: every key at its default".to_string()
    } else {
        format!("settings: {}", pairs(&read))
    };
    if !unread.is_empty() {
        line.push_str(&format!("; not read by tidemark: {}", pairs(&unread)));
    }
    line
}

/// `DESCRIBE`: a table's columns with their types, nullability, key,
/// computed expression and watermark, then its connector options; a
/// view's columns as its query gives them.
pub fn describe(catalog: &Catalog, name: &str, span: Span) -> Result<String> {
    let header = ["name", "type", "null", "key", "extras", "watermark"];
    let table = match catalog.table(name, span) {
        Ok(t) => t,
        Err(e) => {
            let Some(query) = catalog.view(name) else {
                return Err(e);
            };
            let plan = QueryBinder::new(catalog).bind_query(&query, span)?;
            let rows: Vec<Vec<String>> = plan
                .schema()
                .fields
                .iter()
                .map(|f| vec![f.name.clone(), type_text(f), null_text(f)])
                .collect();
            return Ok(draw_table(&header[..3], &rows));
        }
    };
    let decl = catalog.declaration(name);
    let computed = |column: &str| {
        decl.and_then(|d| {
            d.columns.iter().find_map(|c| match c {
                tidemark_sql::ColumnDef::Computed { name, expr, .. } if name.value == column => {
                    Some(format!("AS {expr}"))
                }
                tidemark_sql::ColumnDef::Metadata {
                    name,
                    key,
                    virtual_column,
                    ..
                } if name.value == column => {
                    let from = key
                        .as_ref()
                        .map(|(k, _)| format!(" FROM {}", tidemark_sql::quote_string(k)))
                        .unwrap_or_default();
                    let virtual_column = if *virtual_column { " VIRTUAL" } else { "" };
                    Some(format!("METADATA{from}{virtual_column}"))
                }
                _ => None,
            })
        })
    };
    let watermark = decl.and_then(|d| d.watermark.as_ref());
    let rows: Vec<Vec<String>> = table
        .schema
        .fields
        .iter()
        .map(|f| {
            let key = table
                .primary_key
                .iter()
                .any(|k| k.eq_ignore_ascii_case(&f.name));
            vec![
                f.name.clone(),
                type_text(f),
                null_text(f),
                if key { "PRI".into() } else { String::new() },
                computed(&f.name).unwrap_or_default(),
                watermark
                    .filter(|w| w.column.value.eq_ignore_ascii_case(&f.name))
                    .map(|w| w.expr.to_string())
                    .unwrap_or_default(),
            ]
        })
        .collect();
    let mut out = draw_table(&header, &rows);
    let options: Vec<String> = match decl {
        Some(d) => d
            .options
            .iter()
            .map(|(k, v, _)| {
                let shown = tidemark_common::connector::shown_option_value(k, v);
                format!(
                    "  {} = {}",
                    tidemark_sql::quote_string(k),
                    tidemark_sql::quote_string(&shown)
                )
            })
            .collect(),
        None => Vec::new(),
    };
    out.push_str(&format!("WITH (\n{}\n)\n", options.join(",\n")));
    Ok(out)
}

/// A column's type as `DESCRIBE` shows it, marked as Flink marks time
/// attributes.
fn type_text(f: &Field) -> String {
    let mark = if f.rowtime {
        " *ROWTIME*"
    } else if f.proctime {
        " *PROCTIME*"
    } else {
        ""
    };
    format!("{}{mark}", f.ty)
}

fn null_text(f: &Field) -> String {
    if f.nullable { "TRUE" } else { "FALSE" }.into()
}
