//! Declared tables and views as text: `SHOW CREATE TABLE`, `SHOW CREATE
//! VIEW`, and the computed-column and watermark expressions `DESCRIBE`
//! shows — in Flink's layout, with expressions as the user wrote them.

use crate::catalog::Catalog;
use crate::expr_binder::nearest;
use crate::statement::ColumnDef;
use tidemark_common::{Error, Result, Span};

/// `name` as a quoted identifier: `` `name` ``, inner backquotes doubled.
pub fn quote_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `value` as a string literal: `'value'`, inner quotes doubled.
pub fn quote_string(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

impl Catalog {
    /// The `CREATE TABLE` statement that declares `name` again: types as
    /// resolved, expressions and options as written, in declared order.
    pub fn show_create_table(&self, name: &str, span: Span) -> Result<String> {
        if self.table(name, span).is_err() && self.view(name).is_some() {
            return Err(
                Error::plan(format!("'{name}' is a view, not a table"), span)
                    .with_hint(format!("SHOW CREATE VIEW {name}")),
            );
        }
        let table = self.table(name, span)?;
        let Some(decl) = self.declaration(name) else {
            return Err(Error::Internal(format!(
                "table '{name}' has no declaration"
            )));
        };
        let mut items = Vec::new();
        for column in &decl.columns {
            match column {
                ColumnDef::Physical { name, .. } | ColumnDef::Metadata { name, .. } => {
                    let Some(field) = table.schema.fields.iter().find(|f| f.name == name.value)
                    else {
                        return Err(Error::Internal(format!(
                            "column '{}' of table '{}' is not in its schema",
                            name.value, table.name
                        )));
                    };
                    let not_null = if field.nullable { "" } else { " NOT NULL" };
                    let mut item = format!("{} {}{not_null}", quote_ident(&field.name), field.ty);
                    if let ColumnDef::Metadata {
                        key,
                        virtual_column,
                        ..
                    } = column
                    {
                        item.push_str(" METADATA");
                        if let Some((key, _)) = key {
                            item.push_str(&format!(" FROM {}", quote_string(key)));
                        }
                        if *virtual_column {
                            item.push_str(" VIRTUAL");
                        }
                    }
                    items.push(item);
                }
                ColumnDef::Computed { name, expr, .. } => {
                    items.push(format!("{} AS {expr}", quote_ident(&name.value)));
                }
            }
        }
        if let Some(w) = &decl.watermark {
            items.push(format!(
                "WATERMARK FOR {} AS {}",
                quote_ident(&w.column.value),
                w.expr
            ));
        }
        if !decl.primary_key.is_empty() {
            let key: Vec<_> = decl
                .primary_key
                .iter()
                .map(|k| quote_ident(&k.value))
                .collect();
            items.push(format!("PRIMARY KEY ({}) NOT ENFORCED", key.join(", ")));
        }
        let mut out = format!("CREATE TABLE {} (\n", quote_ident(&table.name));
        out.push_str(
            &items
                .iter()
                .map(|i| format!("  {i}"))
                .collect::<Vec<_>>()
                .join(",\n"),
        );
        out.push_str("\n) WITH (\n");
        let options: Vec<_> = decl
            .options
            .iter()
            .map(|(k, v, _)| {
                let shown = tidemark_common::connector::shown_option_value(k, v);
                format!("  {} = {}", quote_string(k), quote_string(&shown))
            })
            .collect();
        out.push_str(&options.join(",\n"));
        out.push_str("\n)\n");
        Ok(out)
    }

    /// The `CREATE VIEW` statement that declares view `name` again.
    pub fn show_create_view(&self, name: &str, span: Span) -> Result<String> {
        let Some(query) = self.view(name) else {
            let mut err = Error::plan(format!("unknown view '{name}'"), span);
            if self.table(name, span).is_ok() {
                err = err.with_hint(format!("'{name}' is a table: SHOW CREATE TABLE {name}"));
            } else if let Some(near) = nearest(name, self.view_names()) {
                err = err.with_hint(format!("did you mean '{near}'?"));
            }
            return Err(err);
        };
        let written = self
            .view_names()
            .find(|n| n.eq_ignore_ascii_case(name))
            .unwrap_or(name);
        Ok(format!(
            "CREATE VIEW {} AS\n{query}\n",
            quote_ident(written)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::statement::{parse_script, Statement};

    fn catalog(sql: &str) -> Result<Catalog> {
        let mut catalog = Catalog::new(tidemark_engine::declarations());
        for statement in parse_script(sql)? {
            match statement {
                Statement::CreateTable(c) => catalog.create_table(&c, std::path::Path::new("."))?,
                Statement::CreateView { name, query, .. } => catalog.create_view(&name, &query)?,
                other => panic!("not a declaration: {other:?}"),
            }
        }
        Ok(catalog)
    }

    #[test]
    fn show_create_table_round_trips() -> Result<()> {
        let sql = "CREATE TABLE `b``s` (k VARCHAR(5) NOT NULL, ts TIMESTAMP(3), c AS UPPER(k), \
                   WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (k) NOT ENFORCED) \
                   WITH ('connector' = 'filesystem', 'path' = 'it''s.csv', 'format' = 'csv')";
        let shown = catalog(sql)?.show_create_table("b`s", Span::default())?;
        assert_eq!(
            shown,
            "CREATE TABLE `b``s` (\n  `k` STRING NOT NULL,\n  `ts` TIMESTAMP(3),\n  `c` AS UPPER(k),\n  \
             WATERMARK FOR `ts` AS ts - INTERVAL '1' SECOND,\n  PRIMARY KEY (`k`) NOT ENFORCED\n) WITH (\n  \
             'connector' = 'filesystem',\n  'path' = 'it''s.csv',\n  'format' = 'csv'\n)\n"
        );
        // What it shows declares the same table again.
        let again = catalog(&shown)?.show_create_table("b`s", Span::default())?;
        assert_eq!(again, shown);
        Ok(())
    }

    #[test]
    fn tables_and_views_are_not_confused() -> Result<()> {
        let c = catalog(
            "CREATE TABLE t (a INT) WITH ('connector' = 'print'); CREATE VIEW v AS SELECT a FROM t",
        )?;
        assert!(c
            .show_create_view("V", Span::default())?
            .starts_with("CREATE VIEW `v` AS\nSELECT a FROM t"));
        for (result, hint) in [
            (
                c.show_create_table("v", Span::default()),
                "SHOW CREATE VIEW v",
            ),
            (
                c.show_create_view("t", Span::default()),
                "SHOW CREATE TABLE t",
            ),
            (
                c.show_create_view("w", Span::default()),
                "did you mean 'v'?",
            ),
        ] {
            match result {
                Err(Error::Plan { hint: Some(h), .. }) => assert!(h.contains(hint), "{h}"),
                other => panic!("expected a hint '{hint}', got {other:?}"),
            }
        }
        Ok(())
    }
}
