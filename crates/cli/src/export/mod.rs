//! `tidemark export --flink`: a tidemark script written as a script that
//! Flink's SQL client runs with the same results, and a report of every
//! rewrite and every difference.
//!
//! The script is parsed and planned as `tidemark run` would plan it, so
//! that each construct is judged by what it means (a TUMBLE aggregation
//! under allowed lateness, a table read from a folder of files), and then
//! changed in place in the user's own text ([`edits`]): names respelt
//! ([`spelling`]), lateness on a window TVF written as a legacy group
//! window ([`legacy_window`]), session options kept, dropped or refused
//! ([`settings`]), relative paths made absolute, and each SELECT sent to a
//! print or blackhole table. What Flink cannot express is refused with a
//! caret under it, or, with `allow_differences`, exported anyway with a
//! `-- tidemark:` comment above the statement it changes.

mod edits;
mod legacy_window;
mod reserved;
mod settings;
mod spelling;

use crate::session::Session;
use edits::{Edits, Source};
use settings::Fate;
use std::path::{Path, PathBuf};
use tidemark_common::connector::Origin;
use tidemark_common::expr::{AggregateCall, AggregateFunction};
use tidemark_common::window::WindowKind;
use tidemark_common::SqlType;
use tidemark_common::{Error, Result, Span};
use tidemark_sql::{parse_script, LogicalPlan, QueryBinder, Statement};

/// Where the rows of a SELECT go in the exported job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectsTo {
    /// A `'print'` table: each row on the task managers' standard output.
    Print,
    /// A `'blackhole'` table: rows computed and dropped.
    Blackhole,
    /// Left a SELECT, for the SQL client to show.
    Client,
}

#[derive(Clone, Debug)]
pub struct ExportOptions {
    pub selects: SelectsTo,
    /// Export what Flink cannot express too, marking each difference.
    pub allow_differences: bool,
    /// The folder relative paths are taken from on the cluster; by
    /// default the script's own folder, as an absolute path.
    pub base: Option<PathBuf>,
}

/// What the report says about one construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindingKind {
    /// Written differently, with the same meaning.
    Rewrote,
    /// A statement or option added.
    Added,
    /// Left out; it changes no result.
    Dropped,
    /// Exported, but Flink's results or behaviour differ.
    Differs,
    /// Flink cannot express it: not exported.
    Refused,
}

impl FindingKind {
    fn word(self) -> &'static str {
        match self {
            FindingKind::Rewrote => "rewrote",
            FindingKind::Added => "added",
            FindingKind::Dropped => "left out",
            FindingKind::Differs => "differs",
            FindingKind::Refused => "refused",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Finding {
    pub span: Span,
    pub kind: FindingKind,
    pub message: String,
    pub hint: Option<String>,
}

impl Finding {
    fn new(kind: FindingKind, span: Span, message: impl Into<String>) -> Self {
        Finding {
            span,
            kind,
            message: message.into(),
            hint: None,
        }
    }

    pub fn rewrote(span: Span, message: impl Into<String>) -> Self {
        Finding::new(FindingKind::Rewrote, span, message)
    }

    fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The report line (a refusal with its caret, as an error shows).
    pub fn render(&self, file: &str, source: &str) -> String {
        if self.kind == FindingKind::Refused {
            let mut error = Error::plan(format!("not exportable: {}", self.message), self.span);
            if let Some(hint) = &self.hint {
                error = error.with_hint(hint.clone());
            }
            return error.render(file, source);
        }
        let at = if self.span.is_known() {
            format!("{file}:{}", self.span)
        } else {
            file.to_string()
        };
        let mut line = format!("{at}: {}: {}\n", self.kind.word(), self.message);
        if let Some(hint) = &self.hint {
            line.push_str(&format!("  hint: {hint}\n"));
        }
        line
    }
}

pub type Findings = Vec<Finding>;

/// One statement of the exported script.
#[derive(Clone, Debug)]
pub struct ExportedStatement {
    /// Its text, without the `;`.
    pub sql: String,
    pub kind: StatementKind,
}

/// What a statement of the exported script does, as far as its results go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatementKind {
    /// A SELECT whose rows the client shows.
    Query,
    /// A SELECT of the original sent to a table, or an INSERT INTO.
    Insert,
    Other,
}

#[derive(Debug)]
pub struct Exported {
    /// The script, ready for `sql-client.sh -f`.
    pub script: String,
    /// The same statements one by one.
    pub statements: Vec<ExportedStatement>,
    pub findings: Findings,
}

impl Exported {
    /// Whether something could not be exported.
    pub fn refused(&self) -> bool {
        self.findings.iter().any(|f| f.kind == FindingKind::Refused)
    }
}

/// What happens to one statement of the script.
#[derive(Default)]
struct Plan {
    /// Statements that go before it.
    before: Vec<String>,
    /// Left out, with why.
    dropped: Option<String>,
    /// A SELECT sent to a table: the table's CREATE, and the text before
    /// and after the query in its INSERT.
    into_table: Option<(String, String, String)>,
    /// `-- tidemark:` comments above it.
    comments: Vec<String>,
    /// Statements that go after it.
    after: Vec<String>,
}

/// Exports `sql` (a script in `dir`, named `name` in the report).
pub fn export(sql: &str, name: &str, dir: &Path, options: &ExportOptions) -> Result<Exported> {
    let statements = parse_script(sql)?;
    let source = Source::new(sql);
    let mut edits = Edits::default();
    let mut findings = Findings::new();
    spelling::respell(&statements, &source, &mut edits, &mut findings);
    let idleness = uses_idleness(&statements);
    let mut header_findings = Findings::new();
    let mut header = vec!["SET 'table.local-time-zone' = 'UTC'".to_string()];
    header_findings.push(Finding::new(
        FindingKind::Added,
        Span::default(),
        "SET 'table.local-time-zone' = 'UTC': tidemark's default zone; Flink's is the machine's",
    ));
    let watermarked = statements
        .iter()
        .any(|s| matches!(s, Statement::CreateTable(c) if c.watermark.is_some()));
    if watermarked && !idleness {
        header.push("SET 'pipeline.auto-watermark-interval' = '0 ms'".to_string());
        header_findings.push(Finding::new(
            FindingKind::Added,
            Span::default(),
            "SET 'pipeline.auto-watermark-interval' = '0 ms': a watermark after every row, as tidemark's, so the same rows are late",
        ));
    }
    if statements
        .iter()
        .any(|s| matches!(s, Statement::Insert { .. }))
        || (options.selects != SelectsTo::Client
            && statements
                .iter()
                .any(|s| matches!(s, Statement::Query { .. })))
    {
        header.push("SET 'table.dml-sync' = 'true'".to_string());
        header_findings.push(Finding::new(
            FindingKind::Added,
            Span::default(),
            "SET 'table.dml-sync' = 'true': each INSERT finishes before the next statement, as in tidemark",
        ));
    }
    let mut exporter = Exporter {
        header: header.clone(),
        session: Session::new(dir),
        source: &source,
        statements: &statements,
        edits,
        findings,
        options,
        dir: dir.to_path_buf(),
        selects: 0,
        late_fire_set: false,
        uses_idleness: idleness,
        multi_file_tables: Vec::new(),
        statement_span: Span::default(),
        rewritten: Default::default(),
    };
    let mut plans = Vec::new();
    for statement in &statements {
        plans.push(exporter.statement(statement)?);
    }
    let Exporter {
        edits,
        mut findings,
        ..
    } = exporter;
    findings.extend(header_findings);
    let mut script = format!(
        "-- Flink SQL exported by tidemark {} from {name}; run it with `sql-client.sh -f`.\n",
        env!("CARGO_PKG_VERSION")
    );
    let mut exported: Vec<ExportedStatement> = Vec::new();
    for line in &header {
        script.push_str(&format!("{line};\n"));
        exported.push(ExportedStatement {
            sql: line.clone(),
            kind: StatementKind::Other,
        });
    }
    let mut previous_end = 0;
    for (statement, plan) in statements.iter().zip(&plans) {
        let (start, end) = source.range(statement.span());
        let gap = &sql[previous_end..start];
        script.push_str(gap.strip_prefix(';').unwrap_or(gap));
        previous_end = end;
        for comment in &plan.comments {
            script.push_str(&format!("-- tidemark: {comment}\n"));
        }
        if let Some(why) = &plan.dropped {
            let text = one_line(&source.text[start..end]);
            script.push_str(&format!("-- tidemark: left out `{text}`: {why}\n"));
            // The statement's `;` is left out with it.
            if sql[end..].starts_with(';') {
                previous_end = end + 1;
            }
            continue;
        }
        for before in &plan.before {
            script.push_str(&format!("{before};\n"));
            exported.push(ExportedStatement {
                sql: before.clone(),
                kind: StatementKind::Other,
            });
        }
        let text = edits.render(sql, start, end);
        match &plan.into_table {
            Some((create, head, tail)) => {
                script.push_str(&format!("{create};\n{head}\n{text}{tail}"));
                exported.push(ExportedStatement {
                    sql: create.clone(),
                    kind: StatementKind::Other,
                });
                exported.push(ExportedStatement {
                    sql: format!("{head}\n{text}{tail}"),
                    kind: StatementKind::Insert,
                });
            }
            None => {
                script.push_str(&text);
                exported.push(ExportedStatement {
                    sql: text,
                    kind: match statement {
                        Statement::Query { .. } => StatementKind::Query,
                        Statement::Insert { .. } => StatementKind::Insert,
                        _ => StatementKind::Other,
                    },
                });
            }
        }
        script.push(';');
        for after in &plan.after {
            script.push_str(&format!("\n{after};"));
            exported.push(ExportedStatement {
                sql: after.clone(),
                kind: StatementKind::Other,
            });
        }
    }
    let rest = &sql[previous_end..];
    script.push_str(rest.strip_prefix(';').unwrap_or(rest));
    if !script.ends_with('\n') {
        script.push('\n');
    }
    Ok(Exported {
        script,
        statements: exported,
        findings,
    })
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the script lets a quiet split go idle somewhere: Flink checks
/// idleness only with periodic watermarks.
fn uses_idleness(statements: &[Statement]) -> bool {
    statements.iter().any(|s| match s {
        Statement::Set {
            key: Some((k, v)), ..
        } => {
            k == tidemark_common::IDLE_TIMEOUT
                && tidemark_common::time::parse_duration_ms(v).is_ok_and(|ms| ms > 0)
        }
        Statement::CreateTable(c) => c
            .options
            .iter()
            .any(|(k, _, _)| k == "scan.watermark.idle-timeout"),
        _ => false,
    })
}

struct Exporter<'a> {
    session: Session,
    source: &'a Source<'a>,
    statements: &'a [Statement],
    edits: Edits,
    findings: Findings,
    options: &'a ExportOptions,
    dir: PathBuf,
    /// SELECTs sent to tables so far.
    selects: usize,
    /// Whether the late-fire options Flink's lateness needs are set.
    late_fire_set: bool,
    uses_idleness: bool,
    /// Tables read from a folder of several files, with their path's span.
    multi_file_tables: Vec<(String, Span)>,
    /// The settings the script starts with, where Flink's defaults are not
    /// tidemark's (the zone first).
    header: Vec<String>,
    /// The statement being exported.
    statement_span: Span,
    /// Window TVFs already written as legacy group windows (a view's,
    /// read by several queries).
    rewritten: std::collections::BTreeSet<Span>,
}

impl Exporter<'_> {
    /// A construct Flink cannot express: refused, or with
    /// `allow_differences` a difference marked above its statement.
    fn refuse(&mut self, plan: &mut Plan, span: Span, message: String, hint: &str) {
        if self.options.allow_differences {
            plan.comments.push(format!("differs: {message}"));
            self.findings
                .push(Finding::new(FindingKind::Differs, span, message));
        } else {
            self.findings
                .push(Finding::new(FindingKind::Refused, span, message).with_hint(hint));
        }
    }

    fn statement(&mut self, statement: &Statement) -> Result<Plan> {
        let mut plan = Plan::default();
        self.statement_span = statement.span();
        match statement {
            Statement::CreateTable(create) => {
                let dir = self.dir.clone();
                self.session.catalog.create_table(create, &dir)?;
                self.create_table(create, &mut plan);
            }
            Statement::CreateView { name, query, span } => {
                QueryBinder::new(&self.session.catalog).bind_query(query, *span)?;
                self.session.catalog.create_view(name, query)?;
            }
            Statement::Set {
                key: Some((key, value)),
                span,
            } => {
                self.session.options.set(key.clone(), value.clone());
                self.session
                    .options
                    .validate()
                    .map_err(|e| e.or_span(*span))?;
                match settings::fate(key, value) {
                    Fate::Keep => {
                        if key == "table.exec.emit.late-fire.enabled" {
                            self.late_fire_set = value.trim().eq_ignore_ascii_case("true");
                        }
                    }
                    Fate::Drop(why) => {
                        self.findings.push(Finding::new(
                            FindingKind::Dropped,
                            *span,
                            format!("SET '{key}': {why}"),
                        ));
                        plan.dropped = Some(why.to_string());
                    }
                    Fate::Refuse(message, hint) => {
                        self.refuse(&mut plan, *span, message.to_string(), hint);
                        if self.options.allow_differences {
                            // The left-out comment says it.
                            plan.comments.clear();
                            plan.dropped = Some(message.to_string());
                        }
                    }
                }
            }
            Statement::Reset { key, span } => {
                match key {
                    Some(k) => self.session.options.remove(k),
                    None => {
                        self.session.options = Default::default();
                    }
                }
                match key.as_deref() {
                    Some(k) if k.starts_with("tidemark.") => {
                        plan.dropped = Some(format!("'{k}' is tidemark's own"));
                    }
                    // Flink's defaults are not tidemark's: set them again.
                    Some("table.local-time-zone") => {
                        plan.after.push(self.header[0].clone());
                        self.findings.push(Finding::new(
                            FindingKind::Added,
                            *span,
                            "SET 'table.local-time-zone' = 'UTC' after the RESET: tidemark's default zone, where Flink's is the machine's",
                        ));
                    }
                    Some("table.exec.emit.late-fire.enabled") => self.late_fire_set = false,
                    Some(_) => {}
                    None => {
                        plan.after.extend(self.header.iter().cloned());
                        self.late_fire_set = false;
                        self.findings.push(Finding::new(
                            FindingKind::Added,
                            *span,
                            "the settings the script starts with, again after the RESET: Flink's defaults are not tidemark's",
                        ));
                    }
                }
            }
            Statement::Query { query, span } => {
                let logical = QueryBinder::new(&self.session.catalog).bind_query(query, *span)?;
                self.check_plan(&logical, &mut plan);
                if self.options.selects != SelectsTo::Client {
                    self.selects += 1;
                    let table = format!("select_{}", self.selects);
                    let connector = match self.options.selects {
                        SelectsTo::Print => "print",
                        _ => "blackhole",
                    };
                    let schema = logical.schema();
                    let names =
                        unique_names((0..schema.len()).map(|i| bare_name(&schema.field(i).name)));
                    let columns: Vec<String> = names
                        .iter()
                        .enumerate()
                        .map(|(i, name)| format!("  {} {}", flink_name(name), schema.field(i).ty))
                        .collect();
                    // Flink writes at most one time attribute into a table:
                    // with more, each is cast to its plain type.
                    // A table's rowtime column and window_time stay time
                    // attributes in Flink through window TVFs and joins,
                    // where tidemark's plan may no longer mark them.
                    let mut declared_rowtimes: Vec<String> = logical
                        .scans()
                        .iter()
                        .filter_map(|t| {
                            let w = t.watermark.as_ref()?;
                            Some(t.schema.field(w.column).name.to_ascii_lowercase())
                        })
                        .collect();
                    declared_rowtimes.push("window_time".into());
                    let is_time_attribute = |i: usize| {
                        let field = schema.field(i);
                        field.rowtime
                            || (matches!(
                                field.ty,
                                SqlType::Timestamp(3) | SqlType::TimestampLtz(3)
                            ) && declared_rowtimes
                                .contains(&bare_name(&field.name).to_ascii_lowercase()))
                    };
                    let rowtimes = (0..schema.len()).filter(|i| is_time_attribute(*i)).count();
                    let (head, tail) = if rowtimes > 1 {
                        let columns: Vec<String> =
                            (0..names.len()).map(|i| format!("c{i}")).collect();
                        let items: Vec<String> = columns
                            .iter()
                            .enumerate()
                            .map(|(i, c)| {
                                if is_time_attribute(i) {
                                    format!("CAST({c} AS {})", schema.field(i).ty)
                                } else {
                                    c.clone()
                                }
                            })
                            .collect();
                        self.findings.push(Finding::rewrote(
                            *span,
                            format!("the query's {rowtimes} time attributes cast to plain timestamps for {table}: Flink writes at most one into a table"),
                        ));
                        (
                            format!("INSERT INTO {table}\nSELECT {} FROM (", items.join(", ")),
                            format!("\n) AS q({})", columns.join(", ")),
                        )
                    } else {
                        (format!("INSERT INTO {table}"), String::new())
                    };
                    plan.into_table = Some((
                        format!(
                            "CREATE TEMPORARY TABLE {table} (\n{}\n) WITH ('connector' = '{connector}')",
                            columns.join(",\n")
                        ),
                        head,
                        tail,
                    ));
                    self.findings.push(Finding::new(
                        FindingKind::Rewrote,
                        *span,
                        format!("the query's rows go to the {connector} table {table}"),
                    ));
                }
            }
            Statement::Insert { table, query, span } => {
                let logical = QueryBinder::new(&self.session.catalog).bind_query(query, *span)?;
                self.check_plan(&logical, &mut plan);
                let sink = self
                    .session
                    .catalog
                    .table(&table.value, tidemark_sql::span_of(table.span))?;
                let connector = sink.options.get("connector").map(String::as_str);
                let updating = logical.has_window_aggregate()
                    && (self.session.options.allow_lateness()? > 0
                        || self.session.options.early_fire()?.is_some());
                if connector == Some("filesystem") {
                    if updating {
                        self.refuse(
                            &mut plan,
                            *span,
                            format!("Flink's filesystem sink takes only inserted rows, and this query re-fires windows with updates into {}", sink.name),
                            "write to a table that takes updates (jdbc or upsert-kafka with a PRIMARY KEY)",
                        );
                    } else {
                        self.findings.push(Finding::new(
                            FindingKind::Differs,
                            *span,
                            format!("Flink writes {}'s 'path' as a folder of part files, committed at checkpoints and at the end of input, where tidemark writes one file", sink.name),
                        ));
                    }
                }
            }
            Statement::Explain {
                analyze: true,
                span,
                ..
            } => {
                self.findings.push(Finding::new(
                    FindingKind::Dropped,
                    *span,
                    "EXPLAIN ANALYZE runs the query in tidemark to show what each operator did; Flink has no such statement",
                ));
                plan.dropped = Some("Flink has no EXPLAIN ANALYZE".into());
            }
            Statement::Explain { .. }
            | Statement::Set { key: None, .. }
            | Statement::ShowTables { .. }
            | Statement::ShowViews { .. }
            | Statement::ShowCreate { .. }
            | Statement::Describe { .. } => {}
        }
        Ok(plan)
    }

    fn create_table(&mut self, create: &tidemark_sql::CreateTable, plan: &mut Plan) {
        let declarations = tidemark_engine::declarations();
        let options = tidemark_sql::options_map(&create.options);
        let connector_name = options.get("connector").cloned().unwrap_or_default();
        let span_of = |key: &str| {
            create
                .options
                .iter()
                .find(|(k, _, _)| k == key)
                .map_or(create.span, |(_, _, s)| *s)
        };
        let Some(connector) = declarations.connector(&connector_name) else {
            return;
        };
        if connector.origin == Origin::Tidemark {
            let hint = match connector.name {
                "stdin" => "read the rows from a Kafka topic or a file in Flink",
                "nexmark" => "Flink's Nexmark benchmark has its own event generator (the nexmark-flink project); or write the events to files with tidemark first",
                _ => "write the rows to a Kafka topic or a file, which Flink reads",
            };
            self.refuse(
                plan,
                span_of("connector"),
                format!(
                    "the {} connector is tidemark's own; Flink has none",
                    connector.name
                ),
                hint,
            );
            return;
        }
        let format = options.get("format").and_then(|f| declarations.format(f));
        for (key, value, span) in &create.options {
            let declared = connector
                .option(key)
                .or_else(|| format.and_then(|f| f.option(key)));
            if declared.is_some_and(|d| d.origin == Origin::Tidemark) {
                match key.as_str() {
                    "seed" | "sink.epoch-topic" => {
                        self.drop_option(*span);
                        self.findings.push(Finding::new(
                            FindingKind::Dropped,
                            *span,
                            match key.as_str() {
                                "seed" => "'seed': Flink's datagen has no seed; its random values differ from tidemark's".to_string(),
                                _ => "'sink.epoch-topic': Flink's exactly-once Kafka sink keeps its own transactions".to_string(),
                            },
                        ));
                    }
                    _ => self.refuse(
                        plan,
                        *span,
                        format!("option '{key}' is tidemark's own; Flink's {} has none", connector.name),
                        match key.as_str() {
                            "csv.header" => "Flink's csv format reads a header line as a row: remove the line from the file",
                            _ => "remove the option",
                        },
                    ),
                }
            }
            if key == "path" && connector.name == "filesystem" {
                self.export_path(create, value, *span, plan);
            }
        }
        let has_strategy = create
            .options
            .iter()
            .any(|(k, _, _)| k == "scan.watermark.emit.strategy");
        if self.uses_idleness && create.watermark.is_some() && !has_strategy {
            if let Some((_, _, last)) = create.options.last() {
                let at = self.source.range(*last).1;
                self.edits
                    .replace(at, at, ",\n  'scan.watermark.emit.strategy' = 'on-event'");
                self.findings.push(Finding::new(
                    FindingKind::Added,
                    *last,
                    format!("'scan.watermark.emit.strategy' = 'on-event' on {}: a watermark after every row, as tidemark's, where a 0 ms watermark interval would switch Flink's idleness check off", create.name.value),
                ));
            }
        }
    }

    /// Leaves an option out of its WITH list, with the comma beside it.
    fn drop_option(&mut self, span: Span) {
        let (start, end) = self.source.range(span);
        let text = self.source.text;
        let after = &text[end..];
        let trimmed = after.trim_start();
        if trimmed.starts_with(',') {
            let comma = end + (after.len() - trimmed.len()) + 1;
            self.edits.replace(start, comma, "");
        } else if let Some(comma) = text[..start].rfind(',') {
            if text[comma + 1..start].trim().is_empty() {
                self.edits.replace(comma, end, "");
                return;
            }
            self.edits.replace(start, end, "");
        } else {
            self.edits.replace(start, end, "");
        }
    }

    /// A relative 'path' made absolute (or taken from `--base`); a pattern
    /// refused; a folder of several files remembered, for the queries that
    /// read it.
    fn export_path(
        &mut self,
        create: &tidemark_sql::CreateTable,
        value: &str,
        span: Span,
        plan: &mut Plan,
    ) {
        if value.contains(['*', '?', '[']) {
            self.refuse(
                plan,
                span,
                "Flink's filesystem connector reads a file or a folder, not a pattern".into(),
                "put the files in a folder of their own and name the folder",
            );
            return;
        }
        let path = Path::new(value);
        let local = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.dir.join(path)
        };
        if local.is_dir() && create.watermark.is_some() {
            let files = std::fs::read_dir(&local)
                .map(|entries| {
                    entries
                        .filter_map(|e| e.ok())
                        .filter(|e| e.path().is_file())
                        .count()
                })
                .unwrap_or(0);
            if files > 1 {
                self.multi_file_tables
                    .push((create.name.value.to_ascii_lowercase(), span));
            }
        }
        if path.is_absolute() || value.contains("://") {
            return;
        }
        let exported = match &self.options.base {
            Some(base) => base.join(path),
            None => absolute(&self.dir).join(path),
        };
        let exported = exported.display().to_string();
        let (start, end) = self.source.range(span);
        self.edits.replace(
            start,
            end,
            format!("'path' = {}", tidemark_sql::quote_string(&exported)),
        );
        self.findings.push(Finding::rewrote(
            span,
            format!(
                "'path' = '{value}' of {} as '{exported}'",
                create.name.value
            ),
        ));
    }

    /// Judges what a query does over time: lateness on windows, and
    /// tables read from several files.
    fn check_plan(&mut self, logical: &LogicalPlan, plan: &mut Plan) {
        for table in logical.scans() {
            let key = table.name.to_ascii_lowercase();
            // Said once, at the table's path, however many queries read it.
            let found = self.multi_file_tables.iter().position(|(n, _)| *n == key);
            if let Some((_, span)) = found.map(|i| self.multi_file_tables.remove(i)) {
                self.refuse(
                    plan,
                    span,
                    format!("{} is a folder of several files, each with its own watermark in tidemark; Flink keeps one watermark over all of them, so other rows are late", table.name),
                    "merge the files into one in event-time order, or read them through a Kafka topic with a partition each",
                );
            }
        }
        self.check_flink_runs(logical, plan);
        let lateness = self.session.options.allow_lateness().unwrap_or(0);
        if lateness == 0 {
            return;
        }
        let mut windows = Vec::new();
        window_aggregates(logical, &mut windows);
        for (window, aggregates) in windows {
            if window.legacy {
                continue;
            }
            if matches!(window.kind, WindowKind::Hop { .. })
                && aggregates
                    .iter()
                    .any(|a| a.func == AggregateFunction::ListAgg)
            {
                self.refuse(plan, window.span, "LISTAGG in a HOP window with allowed lateness: Flink's legacy HOP window, which lateness needs there, lists values in arrival order, where the window TVF lists the newest slice first".into(), "export with --allow-differences to get the arrival order on Flink");
                continue;
            }
            if matches!(window.kind, WindowKind::Hop { .. })
                && aggregates.iter().any(|a| {
                    matches!(a.func, AggregateFunction::Sum | AggregateFunction::Avg)
                        && matches!(a.arg_type, Some(SqlType::Double | SqlType::Float))
                })
            {
                self.findings.push(Finding::new(
                    FindingKind::Differs,
                    window.span,
                    "a DOUBLE SUM or AVG in a HOP window with lateness: Flink's legacy HOP window adds rows in arrival order, not slice by slice, so the last digits may differ",
                ));
            }
            let shown = tidemark_common::window::ms(lateness);
            let hint = "export with --allow-differences to run it without lateness (its late rows are then dropped), or keep it on tidemark";
            if window.attached.is_some() {
                self.refuse(plan, window.span, format!("allowed lateness ({shown}) on an aggregation of windowed rows: Flink honours lateness only on legacy TUMBLE and HOP group windows"), hint);
                continue;
            }
            match window.kind {
                WindowKind::Session { .. } | WindowKind::Cumulate { .. } => {
                    self.refuse(plan, window.span, format!("allowed lateness ({shown}) on a {} window: Flink honours lateness only on legacy TUMBLE and HOP group windows", window.kind.name()), hint);
                    continue;
                }
                WindowKind::Tumble { .. } | WindowKind::Hop { .. } => {}
            }
            if self.rewritten.contains(&window.span) {
                // A view's window, read again: written once already.
                continue;
            }
            let mut outcome = Ok(false);
            for statement in self.statements {
                let query = match statement {
                    Statement::Query { query, .. }
                    | Statement::Insert { query, .. }
                    | Statement::CreateView { query, .. } => query,
                    _ => continue,
                };
                outcome = legacy_window::rewrite(query, window.span, self.source, &mut self.edits);
                if !matches!(outcome, Ok(false)) {
                    break;
                }
            }
            match outcome {
                Ok(true) => {
                    self.rewritten.insert(window.span);
                    self.findings.push(Finding::rewrote(
                        window.span,
                        format!("{} window TVF aggregation with allowed lateness {shown} as a legacy group window (GROUP BY {}(...)), which Flink re-fires for late rows; column names kept", window.kind.name(), window.kind.name()),
                    ));
                    if !self.late_fire_set {
                        self.late_fire_set = true;
                        plan.before.push("SET 'table.exec.emit.late-fire.enabled' = 'true'".into());
                        plan.before.push("SET 'table.exec.emit.late-fire.delay' = '0 s'".into());
                        self.findings.push(Finding::new(
                            FindingKind::Added,
                            window.span,
                            "SET 'table.exec.emit.late-fire.enabled' = 'true' and 'table.exec.emit.late-fire.delay' = '0 s': Flink re-fires a window for late rows only with these, at once as tidemark does",
                        ));
                    }
                }
                Ok(false) => self.refuse(
                    plan,
                    window.span,
                    format!("allowed lateness ({shown}) on this {} aggregation: it is not a SELECT ... GROUP BY directly over the window TVF, the form a legacy group window can take", window.kind.name()),
                    hint,
                ),
                Err(why) => self.refuse(
                    plan,
                    window.span,
                    format!("allowed lateness ({shown}) on this {} aggregation: as a legacy group window, which Flink needs for lateness, {why}", window.kind.name()),
                    hint,
                ),
            }
        }
    }
}

impl Exporter<'_> {
    /// What tidemark runs and Flink 2.3 refuses to plan, or plans as
    /// something else.
    fn check_flink_runs(&mut self, logical: &LogicalPlan, plan: &mut Plan) {
        let mut windows = Vec::new();
        window_aggregates(logical, &mut windows);
        for (window, aggregates) in windows {
            let sliding = matches!(
                window.kind,
                WindowKind::Hop { .. } | WindowKind::Cumulate { .. }
            ) && !window.legacy;
            if !sliding {
                continue;
            }
            // Probed on Flink 2.3: SUM(DISTINCT) fails to plan over HOP
            // only; AVG and COUNT of DISTINCT, and CUMULATE, run.
            let hop = matches!(window.kind, WindowKind::Hop { .. });
            if hop
                && aggregates
                    .iter()
                    .any(|a| a.distinct && a.func == AggregateFunction::Sum)
            {
                self.refuse(plan, window.span, "SUM(DISTINCT ...) in a HOP window: Flink 2.3 refuses to plan it (\"This function does not support retraction\")".into(), "keep the job on tidemark, or use a TUMBLE or CUMULATE window");
            }
            if let Some(call) = aggregates.iter().find(|a| {
                matches!(
                    a.func,
                    AggregateFunction::FirstValue | AggregateFunction::LastValue
                )
            }) {
                self.refuse(
                    plan,
                    window.span,
                    format!(
                        "{} in a {} window: Flink 2.3 refuses it, as it cannot merge slices",
                        call.func.name(),
                        window.kind.name()
                    ),
                    "keep the job on tidemark, or use a TUMBLE window",
                );
            }
        }
        self.check_ranks(logical, plan);
    }

    /// Flink's window Top-N takes only ROW_NUMBER: with RANK it plans an
    /// updating Top-N over all time instead.
    fn check_ranks(&mut self, logical: &LogicalPlan, plan: &mut Plan) {
        if let LogicalPlan::WindowRank { funcs, .. } = logical {
            if let Some(f) = funcs.iter().find(|f| **f != AggregateFunction::RowNumber) {
                let span = self.statement_span;
                self.refuse(plan, span, format!("{} in a window Top-N: Flink 2.3's window Top-N takes only ROW_NUMBER, and plans this as an updating Top-N that retracts and re-ranks rows", f.name()), "use ROW_NUMBER, or keep the job on tidemark");
            }
        }
        for input in logical.inputs() {
            self.check_ranks(input, plan);
        }
    }
}

/// The windows of every window aggregation in `plan`, with its
/// aggregates.
fn window_aggregates<'p>(
    plan: &'p LogicalPlan,
    into: &mut Vec<(&'p tidemark_sql::WindowSpec, &'p [AggregateCall])>,
) {
    if let LogicalPlan::WindowAggregate {
        window, aggregates, ..
    } = plan
    {
        into.push((window, aggregates));
    }
    for input in plan.inputs() {
        window_aggregates(input, into);
    }
}

/// A column's name without the `alias.` tidemark's join output keeps.
fn bare_name(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(_, bare)| bare)
}

/// Column names made unique as Flink names a query's columns: a repeated
/// name (a join's `id` from both sides) gets the first free number after
/// it (`id0`).
fn unique_names<'n>(names: impl Iterator<Item = &'n str>) -> Vec<String> {
    let names: Vec<&str> = names.collect();
    let mut taken: std::collections::BTreeSet<String> = Default::default();
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let mut unique = name.to_string();
        let mut n = 0;
        while !taken.insert(unique.to_ascii_lowercase()) {
            unique = format!("{name}{n}");
            n += 1;
        }
        out.push(unique);
    }
    out
}

/// A column name as Flink's parser takes it.
fn flink_name(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain && !reserved::is_reserved(name) {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

fn absolute(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|cwd| cwd.join(dir))
            .unwrap_or_else(|_| dir.to_path_buf())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn repeated_column_names_are_numbered_as_flink_numbers_them() {
        let names = super::unique_names(["id", "k", "id", "ID", "id0"].into_iter());
        assert_eq!(names, ["id", "k", "id0", "ID1", "id00"]);
    }
}
