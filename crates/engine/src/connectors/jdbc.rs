//! The `jdbc` connector's PostgreSQL sink: an INSERT INTO's changelog
//! written to a real database table.
//!
//! With a primary key the table is kept as an upsert: `+I`/`+U` become
//! `INSERT ... ON CONFLICT (key) DO UPDATE`, `-D` a `DELETE`, and `-U` is
//! left out (the `+U` after it overwrites the row). Without a key, rows are
//! appended. Each batch of changes the query hands over — the rows of one
//! window fire — is collapsed to the last change per key and written in one
//! transaction: one statement over arrays of the values (`unnest`), so a
//! batch is all there or not at all, whatever its size.
//!
//! Values travel as text, cast by the server to each column's type; the
//! declared columns are checked against the database table before any row
//! is written. A lost connection is retried with backoff (the transaction
//! of the batch is sent again: upserts and deletes are idempotent).
//! Credentials come from the options or the standard `PG*` environment
//! variables and are never shown: errors name the server without them.

use super::sink::{PrintLines, SinkWriter};
use crate::formats::print::format_value;
use arrow::array::{Array, RecordBatch};
use postgres::{Client, Config, NoTls};
use std::collections::HashMap;
use std::time::Duration;
use tidemark_common::catalog::TableDef;
use tidemark_common::connector::{Capabilities, ConnectorDecl, FormatUse, OptionDecl, Origin};
use tidemark_common::{Error, Result, RowKind, Span, SqlType};

/// Retries of a batch after a lost connection, unless `'sink.max-retries'`
/// says otherwise (Flink's default).
const DEFAULT_MAX_RETRIES: u32 = 3;

/// The first wait before a retry; it doubles with each.
const FIRST_BACKOFF: Duration = Duration::from_millis(200);

pub struct PgSink {
    config: Config,
    /// The server and database, without credentials, for messages.
    server: String,
    /// The table as the options name it.
    table: String,
    /// The key's columns (positions), empty for an append-only table.
    key: Vec<usize>,
    /// Statements over text arrays, one per column.
    upsert_sql: String,
    delete_sql: String,
    client: Option<Client>,
    /// The session zone the connection shows TIMESTAMP_LTZ values in.
    zone: Option<chrono_tz::Tz>,
    max_retries: u32,
    retry_wait: Duration,
    /// Batches sent again after a lost connection.
    resent: u64,
}

/// Values as text, a vector per column: the arrays a statement takes.
type TextColumns = Vec<Vec<Option<String>>>;

/// A change collapsed for one key: its last row, written or deleted.
#[derive(Clone, Copy)]
enum Last {
    Write(usize),
    Delete,
}

impl PgSink {
    /// Connects to the database `table` names and checks that its table
    /// can take the declared columns (and, with a key, has a unique key on
    /// those columns), before any row is written.
    pub fn open(table: &TableDef, span: Span) -> Result<Self> {
        let plan_error = |message: String| Error::plan(message, span);
        let url = table
            .option("url")
            .ok_or_else(|| plan_error(format!("table {} needs a 'url' option", table.name)))?;
        let name = table.option("table-name").ok_or_else(|| {
            plan_error(format!("table {} needs a 'table-name' option", table.name))
        })?;
        let config = connection_config(url, table)
            .map_err(|why| plan_error(format!("table {}: {why}", table.name)))?;
        let server = describe(&config);
        let max_retries = match table.option("sink.max-retries") {
            None => DEFAULT_MAX_RETRIES,
            Some(v) => v.trim().parse().map_err(|_| {
                plan_error(format!(
                    "'sink.max-retries' must be a whole number, got '{v}'"
                ))
            })?,
        };
        // The rows a sink takes: computed columns are not written.
        let written = table.written_schema();
        let key: Vec<usize> = table
            .primary_key
            .iter()
            .filter_map(|k| written.index_of(k))
            .collect();
        let mut client = config.connect(NoTls).map_err(|e| {
            Error::Execution(format!(
                "table {}: cannot connect to {server}: {}",
                table.name,
                error_text(&e)
            ))
        })?;
        let columns = database_columns(&mut client, name).map_err(|e| {
            Error::Execution(format!(
                "table {}: cannot read the columns of '{name}' in {server}: {}",
                table.name,
                error_text(&e)
            ))
        })?;
        if columns.is_empty() {
            return Err(plan_error(format!(
                "table {}: '{name}' does not exist in {server}",
                table.name
            )));
        }
        let mut casts = Vec::with_capacity(written.fields.len());
        for field in &written.fields {
            let Some(db_type) = columns.get(&field.name.to_ascii_lowercase()) else {
                return Err(plan_error(format!(
                    "table {}: '{name}' in {server} has no column {}",
                    table.name, field.name
                )));
            };
            if !fits(&field.ty, db_type) {
                return Err(plan_error(format!(
                    "table {}: column {} is {} here but {db_type} in '{name}' ({server}); declare a type that matches",
                    table.name, field.name, field.ty
                )));
            }
            casts.push(db_type.clone());
        }
        let names: Vec<String> = written
            .fields
            .iter()
            .map(|f| quote_ident(&f.name))
            .collect();
        if !key.is_empty() {
            let key_names: Vec<String> = key
                .iter()
                .map(|k| written.fields[*k].name.to_ascii_lowercase())
                .collect();
            let unique = has_unique_key(&mut client, name, &key_names).map_err(|e| {
                Error::Execution(format!(
                    "table {}: cannot read the keys of '{name}' in {server}: {}",
                    table.name,
                    error_text(&e)
                ))
            })?;
            if !unique {
                return Err(plan_error(format!(
                    "table {}: PRIMARY KEY ({}) is declared, but '{name}' in {server} has no primary or unique key on those columns, which an upsert needs",
                    table.name,
                    key_names.join(", ")
                )));
            }
        }
        let (upsert_sql, delete_sql) = statements(name, &names, &casts, &key);
        Ok(PgSink {
            config,
            server,
            table: table.name.clone(),
            key,
            upsert_sql,
            delete_sql,
            client: Some(client),
            zone: None,
            max_retries,
            retry_wait: FIRST_BACKOFF,
            resent: 0,
        })
    }

    /// What the run summary says of the sink: batches sent again.
    pub fn note(&self) -> Option<String> {
        (self.resent > 0).then(|| {
            format!(
                "table {}: {} batches sent again after the connection to {} was lost",
                self.table, self.resent, self.server
            )
        })
    }

    /// Whether the table is kept as an upsert on a key.
    pub fn has_key(&self) -> bool {
        !self.key.is_empty()
    }

    /// Writes one batch of changes in one transaction, retrying after a
    /// lost connection.
    pub fn write(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let (writes, deletes) = self.collapse(batch, types, kinds, tz)?;
        let mut attempt = 0;
        loop {
            match self.send(&writes, &deletes, tz) {
                Ok(()) => {
                    self.resent += u64::from(attempt > 0);
                    return Ok(());
                }
                Err(e) if attempt < self.max_retries && is_connection_error(&e) => {
                    // The connection is gone: a new one, after a wait.
                    self.client = None;
                    std::thread::sleep(self.retry_wait * 2u32.pow(attempt));
                    attempt += 1;
                }
                Err(e) => {
                    let tried = if attempt > 0 {
                        format!(" (after {attempt} retries)")
                    } else {
                        String::new()
                    };
                    return Err(Error::Execution(format!(
                        "table {}: writing a batch of {} rows to {}{tried} failed: {}",
                        self.table,
                        batch.num_rows(),
                        self.server,
                        error_text(&e)
                    )));
                }
            }
        }
    }

    /// The batch's changes as text columns: the rows to write and the keys
    /// to delete, the last change per key only (all rows, appended, for a
    /// table without key).
    fn collapse(
        &self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<(TextColumns, TextColumns)> {
        let n = batch.num_rows();
        let text = |column: usize, row: usize| -> Result<Option<String>> {
            let array = batch.column(column);
            if array.is_null(row) {
                return Ok(None);
            }
            let mut value = String::new();
            format_value(array.as_ref(), &types[column], row, tz, &mut value)?;
            Ok(Some(value))
        };
        let width = batch.num_columns();
        let mut writes: TextColumns = vec![Vec::new(); width];
        let mut deletes: TextColumns = vec![Vec::new(); self.key.len()];
        if self.key.is_empty() {
            for row in 0..n {
                if kinds.get(row).copied().unwrap_or(RowKind::Insert) != RowKind::Insert {
                    return Err(Error::Internal(
                        "an update written to a table without key".into(),
                    ));
                }
                for (c, column) in writes.iter_mut().enumerate() {
                    column.push(text(c, row)?);
                }
            }
            return Ok((writes, deletes));
        }
        // The last change per key, keys in the order they first changed.
        let mut order: Vec<Vec<Option<String>>> = Vec::new();
        let mut last: HashMap<Vec<Option<String>>, Last> = HashMap::new();
        for row in 0..n {
            let change = match kinds.get(row).copied().unwrap_or(RowKind::Insert) {
                RowKind::UpdateBefore => continue,
                RowKind::Delete => Last::Delete,
                RowKind::Insert | RowKind::UpdateAfter => Last::Write(row),
            };
            let key = self
                .key
                .iter()
                .map(|c| text(*c, row))
                .collect::<Result<Vec<_>>>()?;
            if last.insert(key.clone(), change).is_none() {
                order.push(key);
            }
        }
        for key in order {
            match last[&key] {
                Last::Write(row) => {
                    for (c, column) in writes.iter_mut().enumerate() {
                        column.push(text(c, row)?);
                    }
                }
                Last::Delete => {
                    for (column, value) in deletes.iter_mut().zip(key) {
                        column.push(value);
                    }
                }
            }
        }
        Ok((writes, deletes))
    }

    /// One transaction: the writes, then the deletes.
    fn send(
        &mut self,
        writes: &[Vec<Option<String>>],
        deletes: &[Vec<Option<String>>],
        tz: chrono_tz::Tz,
    ) -> std::result::Result<(), postgres::Error> {
        let client = match self.client.take() {
            Some(client) if !client.is_closed() => client,
            _ => {
                self.zone = None;
                self.config.connect(NoTls)?
            }
        };
        let client = self.client.insert(client);
        if self.zone != Some(tz) {
            // TIMESTAMP_LTZ values are written as the session zone shows
            // them: the connection reads them in that zone.
            client.batch_execute(&format!("SET TIME ZONE {}", quote_literal(tz.name())))?;
            self.zone = Some(tz);
        }
        let mut tx = client.transaction()?;
        if writes.first().is_some_and(|c| !c.is_empty()) {
            let params: Vec<&(dyn postgres::types::ToSql + Sync)> = writes
                .iter()
                .map(|c| c as &(dyn postgres::types::ToSql + Sync))
                .collect();
            tx.execute(self.upsert_sql.as_str(), &params)?;
        }
        if deletes.first().is_some_and(|c| !c.is_empty()) {
            let params: Vec<&(dyn postgres::types::ToSql + Sync)> = deletes
                .iter()
                .map(|c| c as &(dyn postgres::types::ToSql + Sync))
                .collect();
            tx.execute(self.delete_sql.as_str(), &params)?;
        }
        tx.commit()
    }
}

/// The connection settings: the URL (`postgresql://...`, with or without
/// JDBC's `jdbc:` in front), then `'username'` and `'password'`, then the
/// standard `PG*` environment variables for what is still missing.
fn connection_config(url: &str, table: &TableDef) -> std::result::Result<Config, String> {
    let url = url.trim();
    let url = url.strip_prefix("jdbc:").unwrap_or(url);
    if !url.starts_with("postgresql://") && !url.starts_with("postgres://") {
        return Err(format!(
            "'url' must be a PostgreSQL URL such as 'postgresql://host:5432/db', got '{}'",
            redact(url)
        ));
    }
    let mut config: Config = url
        .parse()
        .map_err(|e| format!("'url' is not a PostgreSQL URL ({e}): '{}'", redact(url)))?;
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if let Some(user) = table.option("username") {
        config.user(user);
    } else if config.get_user().is_none() {
        if let Some(user) = env("PGUSER").or_else(|| env("USER")) {
            config.user(&user);
        }
    }
    if let Some(password) = table.option("password") {
        config.password(password);
    } else if config.get_password().is_none() {
        if let Some(password) = env("PGPASSWORD") {
            config.password(password);
        }
    }
    if config.get_hosts().is_empty() {
        config.host(&env("PGHOST").unwrap_or_else(|| "localhost".into()));
    }
    if config.get_ports().is_empty() {
        if let Some(port) = env("PGPORT").and_then(|p| p.parse().ok()) {
            config.port(port);
        }
    }
    if config.get_dbname().is_none() {
        if let Some(db) = env("PGDATABASE") {
            config.dbname(&db);
        }
    }
    config.connect_timeout(Duration::from_secs(10));
    Ok(config)
}

/// The server and database of `config`, without credentials.
fn describe(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config.get_dbname().unwrap_or("");
    format!("postgresql://{host}:{port}/{db}")
}

/// What EXPLAIN says a jdbc table does with the changelog.
pub fn explain_writes(table: &TableDef) -> String {
    let url = table.option("url").unwrap_or_default();
    let url = url.strip_prefix("jdbc:").unwrap_or(url);
    let name = table.option("table-name").unwrap_or_default();
    let where_to = format!("'{name}' at {}", redact(url));
    if table.primary_key.is_empty() {
        return format!("appends to {where_to}, one transaction per window fire");
    }
    format!(
        "upserts by ({}) into {where_to}: +I/+U as INSERT ... ON CONFLICT DO UPDATE, -D as DELETE, -U left out; one transaction per window fire",
        table.primary_key.join(", ")
    )
}

/// A URL with its credentials (user and password) taken out.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    match rest.split_once('@') {
        Some((_, host)) => format!("{scheme}://{host}"),
        None => url.to_string(),
    }
}

/// The database table's columns (lower-cased names) and their types as
/// PostgreSQL writes them; empty when the table does not exist.
fn database_columns(
    client: &mut Client,
    table: &str,
) -> std::result::Result<HashMap<String, String>, postgres::Error> {
    let rows = client.query(
        "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod) \
         FROM pg_attribute a \
         WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped",
        &[&table],
    )?;
    Ok(rows
        .iter()
        .map(|r| (r.get::<_, String>(0).to_ascii_lowercase(), r.get(1)))
        .collect())
}

/// Whether the table has a primary or unique key on exactly `columns`.
fn has_unique_key(
    client: &mut Client,
    table: &str,
    columns: &[String],
) -> std::result::Result<bool, postgres::Error> {
    let rows = client.query(
        "SELECT array_agg(a.attname::text ORDER BY a.attname) \
         FROM pg_index i JOIN pg_attribute a \
           ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) \
         WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indpred IS NULL \
         GROUP BY i.indexrelid",
        &[&table],
    )?;
    let mut want: Vec<String> = columns.to_vec();
    want.sort();
    Ok(rows.iter().any(|r| {
        let mut have: Vec<String> = r.get::<_, Vec<String>>(0);
        have.iter_mut().for_each(|c| *c = c.to_ascii_lowercase());
        have.sort();
        have == want
    }))
}

/// Whether a column declared `declared` can be written to one of type
/// `db` (PostgreSQL's name for it): the same type, or a wider one.
fn fits(declared: &SqlType, db: &str) -> bool {
    let base = db.split('(').next().unwrap_or(db).trim();
    match declared {
        SqlType::Boolean => base == "boolean",
        // PostgreSQL has no one-byte integer: TINYINT goes to smallint.
        SqlType::TinyInt | SqlType::SmallInt => {
            matches!(base, "smallint" | "integer" | "bigint" | "numeric")
        }
        SqlType::Int => matches!(base, "integer" | "bigint" | "numeric"),
        SqlType::Float => matches!(base, "real" | "double precision"),
        SqlType::BigInt => matches!(base, "bigint" | "numeric"),
        SqlType::Double => matches!(base, "double precision" | "numeric"),
        SqlType::Decimal(..) => base == "numeric",
        SqlType::String => matches!(base, "text" | "character varying" | "character"),
        SqlType::Timestamp(_) => base == "timestamp without time zone",
        SqlType::TimestampLtz(_) => base == "timestamp with time zone",
        SqlType::Date => base == "date",
        SqlType::Time(_) => base == "time without time zone",
        _ => false,
    }
}

/// The upsert (or append) and delete statements: values come as text
/// arrays, one per column, cast to the columns' types.
fn statements(table: &str, names: &[String], casts: &[String], key: &[usize]) -> (String, String) {
    let params: Vec<String> = (1..=names.len()).map(|i| format!("${i}::text[]")).collect();
    let aliases: Vec<String> = (0..names.len()).map(|i| format!("c{i}")).collect();
    let selected: Vec<String> = aliases
        .iter()
        .zip(casts)
        .map(|(a, t)| format!("u.{a}::{t}"))
        .collect();
    let mut upsert = format!(
        "INSERT INTO {table} ({}) SELECT {} FROM unnest({}) AS u({})",
        names.join(", "),
        selected.join(", "),
        params.join(", "),
        aliases.join(", ")
    );
    if !key.is_empty() {
        let key_names: Vec<&str> = key.iter().map(|k| names[*k].as_str()).collect();
        let others: Vec<String> = names
            .iter()
            .enumerate()
            .filter(|(i, _)| !key.contains(i))
            .map(|(_, n)| format!("{n} = EXCLUDED.{n}"))
            .collect();
        upsert.push_str(&format!(" ON CONFLICT ({}) DO ", key_names.join(", ")));
        if others.is_empty() {
            upsert.push_str("NOTHING");
        } else {
            upsert.push_str(&format!("UPDATE SET {}", others.join(", ")));
        }
    }
    let key_params: Vec<String> = (1..=key.len()).map(|i| format!("${i}::text[]")).collect();
    let key_aliases: Vec<String> = (0..key.len()).map(|i| format!("k{i}")).collect();
    let matches: Vec<String> = key
        .iter()
        .zip(&key_aliases)
        .map(|(k, a)| format!("t.{} = u.{a}::{}", names[*k], casts[*k]))
        .collect();
    let delete = format!(
        "DELETE FROM {table} AS t USING unnest({}) AS u({}) WHERE {}",
        key_params.join(", "),
        key_aliases.join(", "),
        matches.join(" AND ")
    );
    (upsert, delete)
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn quote_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Whether a failure lost the connection (the server went away or
/// restarted), so that the batch may be sent again on a new one.
fn is_connection_error(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.code() {
        // Class 08 (connection exception), admin shutdown, crash shutdown,
        // cannot connect now (starting up or shutting down).
        Some(code) => {
            let code = code.code();
            code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03")
        }
        // No SQLSTATE: an I/O failure on the way.
        None => true,
    }
}

/// A database error in one line: the server's message when it sent one.
fn error_text(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{} ({})", db.message(), db.code().code());
    }
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

/// The `jdbc` connector: PostgreSQL tables, written.
pub struct Jdbc;

static DECLARATION: ConnectorDecl = ConnectorDecl {
    name: "jdbc",
    origin: Origin::Flink,
    doc: "a PostgreSQL table, written by INSERT INTO (upserted on its key, or appended)",
    format: FormatUse::None,
    formats: &[],
    options: &[
        OptionDecl::flink(
            "url",
            "postgresql://host:port/database (jdbc:postgresql://... is taken too)",
        )
        .required(),
        OptionDecl::flink("table-name", "the database table, optionally schema.table").required(),
        OptionDecl::flink("username", "the user; else the URL's, then PGUSER"),
        OptionDecl::flink("password", "the password; else the URL's, then PGPASSWORD"),
        OptionDecl::flink(
            "sink.max-retries",
            "how often a batch is sent again after a lost connection",
        )
        .default_value("3"),
    ],
    capabilities: Capabilities {
        write: true,
        upsert: true,
        ..Capabilities::NONE
    },
    metadata: &[],
    example: "WITH ('connector' = 'jdbc', 'url' = 'postgresql://localhost:5432/db', 'table-name' = 'totals')",
    check: None,
};

impl super::Connector for Jdbc {
    fn declaration(&self) -> &'static ConnectorDecl {
        &DECLARATION
    }

    fn explain_write(&self, table: &TableDef) -> Option<String> {
        Some(explain_writes(table))
    }

    fn open_sink(&self, table: &TableDef, _staged: Option<bool>) -> Result<Box<dyn SinkWriter>> {
        Ok(Box::new(PgSink::open(table, Span::default())?))
    }
}

impl SinkWriter for PgSink {
    fn write(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<PrintLines> {
        PgSink::write(self, batch, types, kinds, tz)?;
        Ok(String::new())
    }

    fn note(&self) -> Option<String> {
        PgSink::note(self)
    }

    fn checkpoint_blocker(&self, name: &str) -> Option<Error> {
        (!self.has_key()).then(|| Error::plan(
            format!("checkpointing needs outputs that can be taken back to the last checkpoint: table {name} appends to a database table"),
            Span::default(),
        ).with_hint(format!("declare PRIMARY KEY (...) NOT ENFORCED on {name}: upserts written again after a resume change nothing")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(
            redact("postgresql://ann:secret@db:5432/x"),
            "postgresql://db:5432/x"
        );
        let config: Config = "postgresql://ann:secret@db:5433/x".parse().expect("url");
        assert_eq!(describe(&config), "postgresql://db:5433/x");
    }

    #[test]
    fn declared_types_fit_the_same_or_wider_columns() {
        assert!(fits(&SqlType::Int, "bigint"));
        assert!(fits(&SqlType::TinyInt, "smallint"));
        assert!(!fits(&SqlType::Int, "smallint"));
        assert!(fits(&SqlType::Float, "real"));
        assert!(fits(&SqlType::Date, "date"));
        assert!(fits(&SqlType::Time(0), "time without time zone"));
        assert!(!fits(&SqlType::BigInt, "integer"));
        assert!(fits(&SqlType::Decimal(10, 2), "numeric(10,2)"));
        assert!(fits(&SqlType::String, "character varying(20)"));
        assert!(!fits(
            &SqlType::TimestampLtz(3),
            "timestamp without time zone"
        ));
    }

    #[test]
    fn statements_upsert_on_the_key_and_delete_by_it() {
        let names = vec!["\"k\"".to_string(), "\"n\"".to_string()];
        let casts = vec!["text".to_string(), "bigint".to_string()];
        let (upsert, delete) = statements("t", &names, &casts, &[0]);
        assert_eq!(
            upsert,
            "INSERT INTO t (\"k\", \"n\") SELECT u.c0::text, u.c1::bigint FROM unnest($1::text[], $2::text[]) AS u(c0, c1) ON CONFLICT (\"k\") DO UPDATE SET \"n\" = EXCLUDED.\"n\""
        );
        assert_eq!(
            delete,
            "DELETE FROM t AS t USING unnest($1::text[]) AS u(k0) WHERE t.\"k\" = u.k0::text"
        );
    }
}
