//! A session: declared tables and options, and the execution of a
//! script's statements in order. `run`, the golden-file tests and the
//! benchmarks all go through [`Session::execute_script`].

use crate::checkpoint::{Checkpoint, CheckpointStore};
use crate::late::LateRouting;
use crate::live::LiveServer;
use crate::report::{QueryRecorder, ReportFile};
use crate::show;
use crate::summary::{render_summary, render_summary_line};
use crate::tableau::Tableau;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use tidemark_common::catalog::TableDef;
use tidemark_common::{Error, Result, ResultMode, SessionOptions, CHECKPOINT_DIR};
use tidemark_engine::snapshot::{StateReader, StateWriter};
use tidemark_engine::Changelog;
use tidemark_engine::{open_sink, TableSink};
use tidemark_engine::{RunOutput, RunSummary, SideItem};
use tidemark_planner::{explain, plan_query};
use tidemark_sql::{insert_plan, parse_script, Catalog, LogicalPlan, QueryBinder, Statement};

pub struct Session {
    pub catalog: Catalog,
    pub options: SessionOptions,
    /// The folder relative `'path'` options resolve against.
    pub base_dir: PathBuf,
    /// Explain queries and INSERTs instead of running them (`tidemark
    /// explain`).
    pub explain_only: bool,
    /// How query rows are shown when `sql-client.execution.result-mode`
    /// is not set: changelog lines for scripts, a table interactively.
    pub default_result_mode: ResultMode,
    /// Typed at a prompt: each run is summarised in one line rather than
    /// a block, and statements that print nothing else are acknowledged,
    /// so that the user sees that they took effect.
    pub interactive: bool,
    /// Show a progress line on stderr during long runs (`run` sets it
    /// when stderr is a terminal and the rows go elsewhere).
    pub progress: bool,
    /// Set (by an interrupt) to stop the running query before its next
    /// batch.
    pub cancel: Arc<AtomicBool>,
    /// Go on from the job's last checkpoint (`tidemark run --resume`).
    pub resume: bool,
    /// Queries and INSERTs run so far: a checkpoint names its statement
    /// by this count.
    statements_run: u64,
    /// The checkpoint folder the script used, removed when the script
    /// completes.
    checkpoint_store: Option<PathBuf>,
    /// The run report being written (`tidemark.report`), and the text of
    /// the script its queries come from.
    report: Option<ReportFile>,
    script_text: String,
    /// The live page's server (`tidemark run --ui`), when one runs.
    pub live: Option<Arc<LiveServer>>,
    /// The identity of the job's checkpoints: new when the script starts
    /// from the beginning, the checkpoint's when it is resumed.
    job: Option<u64>,
}

/// How a statement runs with regard to checkpoints.
enum Checkpointing {
    Off,
    /// It finished before the run was resumed: it is not run again.
    Finished,
    On(Box<CheckpointedRun>),
}

/// A statement run with checkpoints.
struct CheckpointedRun {
    store: CheckpointStore,
    statement: u64,
    fingerprint: u32,
    /// The checkpoint it goes on from.
    resume_from: Option<Checkpoint>,
    /// The number of the last checkpoint taken (or resumed from).
    taken: u64,
    job: u64,
    /// The last checkpoint confirmed (at first the one resumed from, or
    /// the statement's start): a pending checkpoint holds it.
    last: Checkpoint,
}

/// `TIDEMARK_CRASH_AT_EPOCH=N:pending` (or `N:committed`): a run that
/// writes a transactional sink aborts the process (no cleanup, as a crash
/// would) once the checkpoint closing epoch N is written as pending (or
/// once the epoch is committed), so that tests resume from either side of
/// the commit.
const CRASH_AT_EPOCH: &str = "TIDEMARK_CRASH_AT_EPOCH";

fn crash_point(epoch: u64, step: &str) {
    if std::env::var(CRASH_AT_EPOCH).is_ok_and(|at| at.trim() == format!("{epoch}:{step}")) {
        std::process::abort();
    }
}

/// For a statement that writes a transactional sink: writes `checkpoint`
/// as pending, holding the last confirmed one, and commits the epoch it
/// closes; the caller then confirms it.
fn commit_epoch(
    run: &CheckpointedRun,
    target: &mut Option<InsertTarget>,
    checkpoint: &Checkpoint,
) -> Result<()> {
    let Some(target) = target.as_mut().filter(|t| t.sink.transactional()) else {
        return Ok(());
    };
    let pending = Checkpoint {
        previous: Some(Box::new(run.last.clone())),
        ..checkpoint.clone()
    };
    let epoch = pending
        .pending_epoch()
        .ok_or_else(|| Error::Internal("a pending checkpoint without an epoch".into()))?;
    run.store.write(&pending)?;
    crash_point(epoch.number, "pending");
    target.sink.commit_epoch(&epoch)?;
    crash_point(epoch.number, "committed");
    Ok(())
}

/// A new job's identity: unlike the last one's, without being secret.
fn new_job_id() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 40)
}

/// Where a script's output goes.
pub struct Output<'a> {
    /// Changelog rows and statement results.
    pub rows: &'a mut dyn Write,
    /// Run summaries.
    pub summary: &'a mut dyn Write,
    /// Whether summaries include the elapsed time (not in golden files).
    pub timing: bool,
}

impl Session {
    pub fn new(base_dir: impl Into<PathBuf>) -> Self {
        Session {
            catalog: Catalog::new(tidemark_engine::declarations()),
            options: SessionOptions::default(),
            base_dir: base_dir.into(),
            explain_only: false,
            default_result_mode: ResultMode::Changelog,
            interactive: false,
            progress: false,
            cancel: Arc::new(AtomicBool::new(false)),
            resume: false,
            statements_run: 0,
            checkpoint_store: None,
            job: None,
            report: None,
            script_text: String::new(),
            live: None,
        }
    }

    /// Opens the report file `tidemark.report` names (created at once, so
    /// that a path that cannot be written fails before anything runs), or
    /// closes it when the option is unset. A relative path is taken from
    /// the current folder, as a redirection of the output would be.
    pub fn sync_report(&mut self) -> Result<()> {
        let wanted = self
            .options
            .get(crate::report::REPORT_OPTION)
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from);
        if wanted.as_deref() == self.report.as_ref().map(|r| r.path.as_path()) {
            return Ok(());
        }
        self.report = match wanted {
            Some(path) => Some(ReportFile::create(&path).map_err(|e| {
                Error::plan(e.to_string(), tidemark_common::Span::default()).with_hint(
                    "'tidemark.report' names the HTML file the run report is written to; its folder must exist",
                )
            })?),
            None => None,
        };
        Ok(())
    }

    /// How query rows are shown now.
    pub fn result_mode(&self) -> Result<ResultMode> {
        Ok(self
            .options
            .result_mode()?
            .unwrap_or(self.default_result_mode))
    }

    /// Runs every statement of `sql` in order. A panic — always a bug —
    /// is caught and reported as an internal error rather than a crash.
    pub fn execute_script(&mut self, sql: &str, out: &mut Output<'_>) -> Result<Vec<RunSummary>> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.execute_script_inner(sql, out)
        })) {
            Ok(result) => result,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                Err(Error::Internal(message))
            }
        }
    }

    fn execute_script_inner(&mut self, sql: &str, out: &mut Output<'_>) -> Result<Vec<RunSummary>> {
        let statements = parse_script(sql)?;
        self.script_text = sql.to_string();
        let mut summaries = Vec::new();
        for statement in &statements {
            if let Some(summary) = self.execute(statement, out)? {
                let stopped = summary.cancelled;
                summaries.push(summary);
                // A stopped script runs nothing more (and keeps its
                // checkpoint, to be resumed).
                if stopped {
                    return Ok(summaries);
                }
            }
        }
        // The job finished: its checkpoint has nothing more to give.
        if let Some(dir) = self.checkpoint_store.take() {
            CheckpointStore::new(dir).remove()?;
        }
        Ok(summaries)
    }

    pub fn execute(
        &mut self,
        statement: &Statement,
        out: &mut Output<'_>,
    ) -> Result<Option<RunSummary>> {
        let io = |e: std::io::Error| Error::io("cannot write output", e);
        match statement {
            Statement::CreateTable(create) => {
                let base = self.base_dir.clone();
                let existed = self.catalog.declaration(&create.name.value).is_some();
                self.catalog.create_table(create, &base)?;
                let done = if existed { "exists already" } else { "created" };
                self.acknowledge(out, &format!("table '{}' {done}", create.name.value))?;
                Ok(None)
            }
            Statement::CreateView { name, query, span } => {
                // Bound once here so that a broken view fails where it is
                // declared; it is bound again where it is used.
                QueryBinder::new(&self.catalog).bind_query(query, *span)?;
                self.catalog.create_view(name, query)?;
                self.acknowledge(out, &format!("view '{}' created", name.value))?;
                Ok(None)
            }
            Statement::Set {
                key: Some((k, v)), ..
            } => {
                // Read the typed options now, so a bad value fails here
                // and leaves the session as it was.
                let mut next = self.options.clone();
                next.set(k.clone(), v.clone());
                next.validate().map_err(|e| e.or_span(statement.span()))?;
                let before = std::mem::replace(&mut self.options, next);
                if let Err(e) = self.sync_report() {
                    self.options = before;
                    return Err(e.or_span(statement.span()));
                }
                let quote = tidemark_sql::quote_string;
                self.acknowledge(out, &format!("set {} = {}", quote(k), quote(v)))?;
                if let Some(warning) = unread_setting(k) {
                    writeln!(out.summary, "{warning}")
                        .map_err(|e| Error::io("cannot write output", e))?;
                }
                Ok(None)
            }
            Statement::Set { key: None, .. } => {
                write!(
                    out.rows,
                    "{}",
                    show::list_options(&self.options, self.default_result_mode)
                )
                .map_err(io)?;
                Ok(None)
            }
            Statement::Reset { key, .. } => {
                match key {
                    Some(k) => {
                        self.options.remove(k);
                        self.sync_report()?;
                        let k = tidemark_sql::quote_string(k);
                        self.acknowledge(out, &format!("reset {k}"))?;
                    }
                    None => {
                        self.options = SessionOptions::default();
                        self.sync_report()?;
                        self.acknowledge(out, "all options reset")?;
                    }
                }
                Ok(None)
            }
            Statement::ShowTables { .. } => {
                for t in self.catalog.tables() {
                    writeln!(out.rows, "{}", t.name).map_err(io)?;
                }
                Ok(None)
            }
            Statement::ShowViews { .. } => {
                let mut names: Vec<_> = self.catalog.view_names().collect();
                names.sort_by_key(|n| n.to_ascii_lowercase());
                for name in names {
                    writeln!(out.rows, "{name}").map_err(io)?;
                }
                Ok(None)
            }
            Statement::ShowCreate { view, name, .. } => {
                let span = tidemark_sql::span_of(name.span);
                let text = if *view {
                    self.catalog.show_create_view(&name.value, span)?
                } else {
                    self.catalog.show_create_table(&name.value, span)?
                };
                write!(out.rows, "{text}").map_err(io)?;
                Ok(None)
            }
            Statement::Describe { table, .. } => {
                let text = show::describe(
                    &self.catalog,
                    &table.value,
                    tidemark_sql::span_of(table.span),
                )?;
                write!(out.rows, "{text}").map_err(io)?;
                Ok(None)
            }
            Statement::Explain {
                statement,
                analyze,
                span,
            } => match statement.as_ref() {
                Statement::Query { .. } | Statement::Insert { .. } => {
                    self.explain(statement, out)?;
                    if *analyze && !self.explain_only {
                        self.analyze(statement, out)?;
                    }
                    Ok(None)
                }
                _ => Err(Error::plan(
                    "EXPLAIN works on queries and INSERT INTO",
                    *span,
                )),
            },
            Statement::Query { .. } | Statement::Insert { .. } if self.explain_only => {
                self.explain(statement, out)?;
                Ok(None)
            }
            Statement::Query { query, span } => {
                let plan = QueryBinder::new(&self.catalog).bind_query(query, *span)?;
                if self.options.get(CHECKPOINT_DIR).is_some() {
                    return Err(Error::plan(
                        "checkpointing covers INSERT INTO jobs: a query's rows go to standard output, which a resumed run could only show again",
                        *span,
                    )
                    .with_hint("INSERT INTO a filesystem table, or RESET 'execution.checkpointing.dir' before the query"));
                }
                self.run_query(&plan, *span, None, Checkpointing::Off, out)
                    .map(Some)
            }
            Statement::Insert { table, query, span } => {
                let (sink, plan) = self.bind_insert(table, query, *span)?;
                let updating = plan.has_window_aggregate()
                    && (self.options.allow_lateness()? > 0 || self.options.early_fire()?.is_some());
                let checkpointing = self.checkpointing(&plan, *span, Some(&sink), out)?;
                let staged = match &checkpointing {
                    Checkpointing::Off => None,
                    Checkpointing::On(run) => Some(run.resume_from.is_some()),
                    Checkpointing::Finished => {
                        writeln!(
                            out.summary,
                            "INSERT INTO {}: finished before the restart, not run again",
                            sink.name
                        )
                        .map_err(io)?;
                        return Ok(None);
                    }
                };
                // Refused before the brokers are asked anything.
                let transactional = tidemark_engine::is_transactional(&sink)?;
                if transactional && matches!(checkpointing, Checkpointing::Off) {
                    return Err(Error::plan(
                        format!(
                            "table {} is written 'exactly-once', a transaction per checkpoint, and this run takes no checkpoints",
                            sink.name
                        ),
                        *span,
                    )
                    .with_hint("SET 'execution.checkpointing.dir' (and 'execution.checkpointing.interval'), or write 'at-least-once'"));
                }
                let target = InsertTarget::open(&sink, updating, *span, staged)
                    .map_err(|e| e.or_span(*span))?;
                self.run_query(&plan, *span, Some(target), checkpointing, out)
                    .map(Some)
            }
        }
    }

    /// Whether and how a statement runs with checkpoints: on when
    /// `execution.checkpointing.dir` is set; with `--resume`, a statement
    /// that finished before is skipped and the one the checkpoint was
    /// taken in goes on from it.
    fn checkpointing(
        &mut self,
        plan: &LogicalPlan,
        span: tidemark_common::Span,
        sink: Option<&TableDef>,
        out: &mut Output<'_>,
    ) -> Result<Checkpointing> {
        let Some(dir) = self.options.get(CHECKPOINT_DIR) else {
            return Ok(Checkpointing::Off);
        };
        let dir = self.base_dir.join(dir);
        let statement = self.statements_run;
        self.statements_run += 1;
        let store = CheckpointStore::new(dir.clone());
        self.checkpoint_store = Some(dir.clone());
        let plan_text = explain(plan, &self.options).map_err(|e| e.or_span(span))?;
        let fingerprint = crate::checkpoint::fingerprint(&plan_text, &self.options);
        let run = |resume_from: Option<Checkpoint>, job: u64| {
            let last = resume_from.clone().unwrap_or(Checkpoint {
                statement,
                fingerprint,
                job,
                ..Checkpoint::default()
            });
            Ok(Checkpointing::On(Box::new(CheckpointedRun {
                store: CheckpointStore::new(dir.clone()),
                statement,
                fingerprint,
                taken: resume_from.as_ref().map_or(0, |c| c.number),
                resume_from,
                job,
                last,
            })))
        };
        if !self.resume {
            let job = *self.job.get_or_insert_with(new_job_id);
            if statement == 0 && matches!(store.read(), Ok(Some(_)) | Err(_)) {
                writeln!(
                    out.summary,
                    "starting from the beginning: the checkpoint in {} is replaced (`tidemark run --resume` goes on from it)",
                    store.path().display()
                )
                .map_err(|e| Error::io("cannot write output", e))?;
            }
            return run(None, job);
        }
        let Some(saved) = store.read()? else {
            let job = *self.job.get_or_insert_with(new_job_id);
            if statement == 0 {
                writeln!(
                    out.summary,
                    "no checkpoint in {}: starting from the beginning",
                    store.path().display()
                )
                .map_err(|e| Error::io("cannot write output", e))?;
            }
            return run(None, job);
        };
        let job = *self.job.get_or_insert(saved.job);
        let saved = match saved.pending_epoch() {
            Some(epoch) if epoch.statement == statement => {
                settle(saved, epoch, sink, &store, out).map_err(|e| e.or_span(span))?
            }
            _ => saved,
        };
        // Finished statements' output goes in place, if a crash came
        // between their commit's two phases.
        for rename in &saved.commits {
            rename.commit()?;
        }
        if saved.statement > statement {
            return Ok(Checkpointing::Finished);
        }
        if saved.statement < statement || saved.state.is_none() {
            return run(None, job);
        }
        if saved.fingerprint != fingerprint {
            return Err(Error::plan(
                format!(
                    "the checkpoint in {} was taken by another version of this statement (its query, tables or options changed since)",
                    store.path().display()
                ),
                span,
            )
            .with_hint("run without --resume to start from the beginning"));
        }
        run(Some(saved), job)
    }

    /// Says that a statement took effect, at a prompt only: scripts and
    /// golden files stay as quiet as Flink's.
    fn acknowledge(&self, out: &mut Output<'_>, message: &str) -> Result<()> {
        if self.interactive {
            writeln!(out.summary, "{message}").map_err(|e| Error::io("cannot write output", e))?;
        }
        Ok(())
    }

    /// `EXPLAIN` of a query, or of an INSERT: the sink above its query.
    /// Runs `statement` (its rows go nowhere; an INSERT writes its sink)
    /// and shows what each operator did: rows in and out, windows fired,
    /// late rows and, with timing, the state it held and the time taken.
    fn analyze(&mut self, statement: &Statement, out: &mut Output<'_>) -> Result<()> {
        let io = |e: std::io::Error| Error::io("cannot write output", e);
        let (mut rows, mut summary) = (std::io::sink(), std::io::sink());
        let mut quiet = Output {
            rows: &mut rows,
            summary: &mut summary,
            timing: out.timing,
        };
        let Some(run) = self.execute(statement, &mut quiet)? else {
            return Ok(());
        };
        write!(
            out.rows,
            "{}",
            crate::summary::render_analysis(&run, out.timing)
        )
        .map_err(io)
    }

    fn explain(&self, statement: &Statement, out: &mut Output<'_>) -> Result<()> {
        let io = |e: std::io::Error| Error::io("cannot write output", e);
        let (text, span) = match statement {
            Statement::Query { query, span } => {
                let plan = QueryBinder::new(&self.catalog).bind_query(query, *span)?;
                (explain(&plan, &self.options), *span)
            }
            Statement::Insert { table, query, span } => {
                let (sink, plan) = self.bind_insert(table, query, *span)?;
                let connector = sink.options.get("connector").map_or("?", String::as_str);
                let checkpoints = match self.options.get(CHECKPOINT_DIR) {
                    Some(dir) => {
                        let every = match self.options.checkpoint_every()? {
                            tidemark_common::CheckpointEvery::Rows(n) => format!("{n} rows read"),
                            tidemark_common::CheckpointEvery::EventTime(ms) => {
                                format!("{} of event time", tidemark_common::window::ms(ms))
                            }
                        };
                        format!(
                            "| checkpoints: every {every}, into '{dir}'; the query runs on one thread\n"
                        )
                    }
                    None => String::new(),
                };
                let writes = tidemark_engine::of_table(&sink)
                    .and_then(|c| c.explain_write(&sink))
                    .map(|w| format!("| writes: {w}\n"))
                    .unwrap_or_default();
                let text = explain(&plan, &self.options).map(|t| {
                    let body: String = t.lines().map(|l| format!("  {l}\n")).collect();
                    format!(
                        "Sink: {} (connector {connector})\n{writes}{checkpoints}{body}",
                        sink.name
                    )
                });
                (text, *span)
            }
            _ => {
                return Err(Error::Internal(
                    "explain of a statement that is not a query".into(),
                ))
            }
        };
        let text = text.map_err(|e| e.or_span(span))?;
        write!(out.rows, "{text}").map_err(io)?;
        if self.explain_only {
            // `tidemark explain`: the settings the statement would run with.
            writeln!(
                out.rows,
                "{}",
                crate::show::settings_in_effect(&self.options)
            )
            .map_err(io)?;
        }
        Ok(())
    }

    /// The sink table and the plan of `INSERT INTO table query`, its
    /// columns conformed to the sink's.
    fn bind_insert(
        &self,
        table: &tidemark_sql::sql_ast::Ident,
        query: &tidemark_sql::sql_ast::Query,
        span: tidemark_common::Span,
    ) -> Result<(std::sync::Arc<TableDef>, LogicalPlan)> {
        let sink = self.catalog.table(&table.value, span)?;
        let plan = QueryBinder::new(&self.catalog).bind_query(query, span)?;
        if plan
            .scans()
            .iter()
            .any(|t| t.name.eq_ignore_ascii_case(&sink.name))
        {
            return Err(Error::plan(
                format!(
                    "INSERT INTO {} reads {} too: writing the file a query reads is not supported",
                    sink.name, sink.name
                ),
                span,
            )
            .with_hint("write to another table"));
        }
        let plan = insert_plan(plan, &sink, span)?;
        Ok((sink, plan))
    }

    /// Runs a bound query: its changelog goes to `target` (INSERT INTO) or
    /// to the rows output, its summary to the summary output.
    fn run_query(
        &mut self,
        plan: &LogicalPlan,
        span: tidemark_common::Span,
        mut target: Option<InsertTarget>,
        checkpointing: Checkpointing,
        out: &mut Output<'_>,
    ) -> Result<RunSummary> {
        let io = |e: std::io::Error| Error::io("cannot write output", e);
        let stdin_tables: Vec<&str> = plan
            .scans()
            .iter()
            .filter(|t| t.option("connector") == Some("stdin"))
            .map(|t| t.name.as_str())
            .collect();
        if self.interactive && !stdin_tables.is_empty() {
            return Err(Error::plan(
                format!(
                    "table {} reads standard input, where this client reads statements",
                    stdin_tables[0]
                ),
                span,
            )
            .with_hint("pipe the rows to `tidemark run job.sql` instead"));
        }
        if stdin_tables.len() > 1 {
            return Err(Error::plan(
                "a query can read standard input once: it has one stream of rows",
                span,
            ));
        }
        // A live page draws the trace's events, as a report does: the
        // operators make them. They are printed only when the session's
        // own 'tidemark.trace' says so (`traced` below).
        let planned_with = match &self.live {
            Some(_) => {
                let mut options = self.options.clone();
                options.set("tidemark.trace", "true");
                std::borrow::Cow::Owned(options)
            }
            None => std::borrow::Cow::Borrowed(&self.options),
        };
        let mut physical = plan_query(plan, &planned_with).map_err(|e| e.or_span(span))?;
        for warning in &physical.warnings {
            writeln!(out.summary, "{warning}").map_err(io)?;
        }
        let mut checkpoints = match checkpointing {
            Checkpointing::On(run) => Some(run),
            _ => None,
        };
        let staged = checkpoints.as_ref().map(|c| c.resume_from.is_some());
        let mut late = LateRouting::new(&self.options, &self.catalog, plan, span, staged)?;
        self.sync_report().map_err(|e| e.or_span(span))?;
        // A report or a live page records the run; the live page also
        // takes the summary so far with each progress report.
        let recording = self.report.is_some() || self.live.is_some();
        let recorder = std::cell::RefCell::new(recording.then(|| {
            let recorder = QueryRecorder::new(
                query_title(&self.script_text, span),
                statement_text(&self.script_text, span),
            );
            physical.pipeline.observe(recorder.observer.clone());
            recorder
        }));
        physical.pipeline.live = self.live.is_some();
        if late.enabled() {
            physical.pipeline.source.keep_origin();
        }
        if late.keeps_bad_rows() {
            physical.pipeline.source.keep_bad_rows();
        }
        if let Some(run) = checkpoints.as_mut() {
            let blocker = physical
                .pipeline
                .checkpoint_blocker()
                .or_else(|| late.checkpoint_blocker())
                .or_else(|| {
                    target
                        .as_ref()
                        .and_then(|t| t.sink.checkpoint_blocker(&t.name))
                });
            if let Some(e) = blocker {
                // Nothing was written: the files staged for it go.
                if run.resume_from.is_none() {
                    late.discard();
                    if let Some(t) = target {
                        t.sink.discard();
                    }
                }
                return Err(e.or_span(span));
            }
            // A transaction must be committed before the brokers time it
            // out, however quiet the input.
            physical.pipeline.checkpoint_within = target
                .as_ref()
                .and_then(|t| t.sink.checkpoint_within())
                .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
            if let Some(saved) = &run.resume_from {
                let Some((pipeline, sinks)) = &saved.state else {
                    return Err(Error::Internal(
                        "resuming from a checkpoint without state".into(),
                    ));
                };
                physical.pipeline.load_state(pipeline)?;
                let mut r = StateReader::new(sinks);
                for sink in all_sinks(&mut target, &mut late) {
                    sink.load_state(&mut r.section()?)?;
                }
                late.load_counts(&mut r.section()?)?;
                r.finish()?;
                writeln!(
                    out.summary,
                    "resuming from checkpoint {} ({} rows read before it)",
                    saved.number, saved.rows_read
                )
                .map_err(io)?;
            }
        }
        // Decisions on the clock since the checkpoint: applied again where
        // they were made, and recorded anew.
        let mut journal = match checkpoints.as_ref() {
            None => None,
            Some(run) => {
                let follows = crate::journal::Follows {
                    statement: run.statement,
                    fingerprint: run.fingerprint,
                    checkpoint: run.taken,
                };
                let (journal, records) =
                    crate::journal::JournalFile::open(run.store.dir(), follows, self.resume)?;
                physical.pipeline.keep_journal(&records)?;
                Some(journal)
            }
        };
        let types = physical.output_types.clone();
        let tz = physical.eval.time_zone;
        let tableau = match (&target, self.result_mode()?) {
            (None, ResultMode::Tableau) => Some(Tableau::new(
                plan.schema()
                    .fields
                    .iter()
                    .map(|f| f.name.clone())
                    .collect(),
                types.clone(),
            )),
            _ => None,
        };
        if let Some(t) = &tableau {
            out.rows.write_all(t.header().as_bytes()).map_err(io)?;
            out.rows.flush().map_err(io)?;
        }
        let mut text = String::new();
        let mut changelog = Changelog::default();
        let rows = &mut *out.rows;
        let summary = &mut *out.summary;
        let cancel = Arc::clone(&self.cancel);
        // Rows read from a pipe or a followed file come out as they are
        // made, not when an output buffer fills.
        let streaming = plan.scans().iter().any(|t| tidemark_engine::may_pause(t));
        // Trace events are made for a report too; printed only when asked.
        let traced = self.options.trace()?;
        // Trace lines share stderr with the progress line: one or the other.
        let mut progress = (self.progress && !self.interactive && !traced)
            .then(crate::progress::ProgressLine::default);
        let live = self.live.clone();
        let routed_so_far = std::cell::RefCell::new(Vec::new());
        let mut published: Option<std::time::Instant> = None;
        let mut report = |p: &tidemark_engine::Progress| {
            if let Some(line) = progress.as_mut() {
                line.update(p);
            }
            if let (Some(live), Some(so_far)) = (&live, &p.so_far) {
                // A copy of the records twice a second at most.
                if published.is_none_or(|t| t.elapsed() >= LIVE_EVERY) {
                    published = Some(std::time::Instant::now());
                    if let Some(recorder) = recorder.borrow().as_ref() {
                        let mut so_far = (**so_far).clone();
                        so_far.late_routed = routed_so_far.borrow().clone();
                        live.publish(recorder.snapshot(&so_far));
                    }
                }
            }
        };
        let result = physical.pipeline.run_watched(
            &cancel,
            self.options.drain_on_stop()?,
            Some(&mut report),
            &mut |output| match output {
                RunOutput::Rows(chunk) => {
                    text.clear();
                    let kinds: Vec<_> = (0..chunk.num_rows()).map(|i| chunk.kind(i)).collect();
                    match (&mut target, &tableau) {
                        (Some(t), _) => text = t.sink.write(&chunk.batch, &t.types, &kinds, tz)?,
                        (None, Some(t)) => text = t.rows(&chunk.batch, &kinds, tz)?,
                        // The lines go out as they were laid out.
                        (None, None) => {
                            let lines = changelog.lines(&chunk.batch, &types, &kinds, tz)?;
                            rows.write_all(lines).map_err(io)?;
                        }
                    }
                    rows.write_all(text.as_bytes()).map_err(io)?;
                    // Rows are shown as they arrive, not when a buffer fills.
                    if tableau.is_some() || streaming {
                        rows.flush().map_err(io)?;
                    }
                    Ok(())
                }
                RunOutput::Side(SideItem::Trace(record)) => {
                    if let Some(recorder) = recorder.borrow_mut().as_mut() {
                        recorder.trace(record);
                    }
                    if traced {
                        writeln!(summary, "{record}").map_err(io)?;
                    }
                    Ok(())
                }
                RunOutput::Side(SideItem::Late(late_rows)) => {
                    if let Some(recorder) = recorder.borrow_mut().as_mut() {
                        recorder.late(late_rows, late.sink_for(&late_rows.table.name));
                    }
                    late.route(late_rows, tz, rows)?;
                    if live.is_some() {
                        *routed_so_far.borrow_mut() = late.routed();
                    }
                    Ok(())
                }
                RunOutput::Side(SideItem::Accepted(row)) => {
                    if let Some(recorder) = recorder.borrow_mut().as_mut() {
                        recorder.accepted(row);
                    }
                    Ok(())
                }
                RunOutput::Side(SideItem::Bad(bad)) => late.route_bad(bad, tz, rows),
                RunOutput::Checkpoint { state, rows_read } => {
                    let Some(run) = checkpoints.as_mut() else {
                        return Ok(());
                    };
                    let mut sinks = StateWriter::new();
                    for sink in all_sinks(&mut target, &mut late) {
                        sinks.section(|w| sink.save_state(w))?;
                    }
                    sinks.section(|w| late.save_counts(w))?;
                    run.taken += 1;
                    let checkpoint = Checkpoint {
                        statement: run.statement,
                        fingerprint: run.fingerprint,
                        number: run.taken,
                        rows_read,
                        state: Some((state.to_vec(), sinks.into_bytes())),
                        commits: Vec::new(),
                        job: run.job,
                        previous: None,
                    };
                    commit_epoch(run, &mut target, &checkpoint)?;
                    run.store.write(&checkpoint)?;
                    if let Some(journal) = journal.as_mut() {
                        journal.restart(run.taken)?;
                    }
                    // Written: what it closed of the output goes in place.
                    for sink in all_sinks(&mut target, &mut late) {
                        sink.commit_checkpoint()?;
                    }
                    run.last = checkpoint;
                    Ok(())
                }
                RunOutput::Journal(record) => match journal.as_mut() {
                    Some(journal) => journal.append(record),
                    None => Ok(()),
                },
            },
        );
        if let Some(t) = &tableau {
            // Only an interrupt at a terminal cancels a run, and the
            // terminal has echoed `^C` where the border should start.
            if result.as_ref().is_ok_and(|s| s.cancelled) {
                out.rows.write_all(b"\r").map_err(io)?;
            }
            out.rows.write_all(t.footer().as_bytes()).map_err(io)?;
        }
        out.rows.flush().map_err(io)?;
        drop(report);
        if let Some(line) = progress.as_mut() {
            line.clear();
        }
        if let (Err(_), Some(live)) = (&result, &self.live) {
            // The page says so rather than show the query still running.
            live.failed();
        }
        let mut summary = result?;
        summary.late_routed = late.routed();
        if let Some(note) = target.as_ref().and_then(|t| t.sink.note()) {
            writeln!(out.summary, "{note}").map_err(io)?;
        }
        match checkpoints {
            None => {
                late.finish()?;
                if let Some(t) = target {
                    t.sink.finish()?;
                }
            }
            // Stopped: the staged output stays for `--resume`.
            Some(run) if summary.cancelled => {
                let number = run.taken;
                writeln!(
                    out.summary,
                    "stopped at checkpoint {number}: `tidemark run --resume` goes on from it"
                )
                .map_err(io)?;
            }
            Some(run) => {
                // Two-phase commit: stage everything, record the renames
                // with the statement finished, then make them.
                let mut commits = Vec::new();
                for sink in all_sinks(&mut target, &mut late) {
                    commits.extend(sink.prepare_commit()?);
                }
                let done = Checkpoint {
                    statement: run.statement + 1,
                    commits: commits.clone(),
                    job: run.job,
                    ..Checkpoint::default()
                };
                commit_epoch(&run, &mut target, &done)?;
                run.store.write(&done)?;
                // The statement is done: nothing of it is replayed again.
                if let Some(journal) = journal.take() {
                    journal.remove()?;
                }
                for rename in &commits {
                    rename.commit()?;
                }
            }
        }
        let text = if self.interactive {
            render_summary_line(&summary, out.timing)
        } else {
            render_summary(&summary, out.timing)
        };
        out.summary.write_all(text.as_bytes()).map_err(io)?;
        if let Some(recorder) = recorder.into_inner() {
            let done = recorder.snapshot(&summary);
            if let Some(live) = &self.live {
                live.finished(done.clone());
            }
            if let Some(report) = self.report.as_mut() {
                report.add(done)?;
            }
        }
        Ok(summary)
    }
}

/// How often a live page gets a new copy of the running query's records.
const LIVE_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// A query's name in the report: its first line, and where it is.
fn query_title(script: &str, span: tidemark_common::Span) -> String {
    let first = statement_text(script, span)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("--"))
        .unwrap_or("query")
        .to_string();
    let first = if first.chars().count() > 80 {
        format!("{}…", first.chars().take(80).collect::<String>())
    } else {
        first
    };
    if span.is_known() {
        format!("{first} (line {})", span.start_line)
    } else {
        first
    }
}

/// The text of the statement at `span` in `script` (whole lines).
fn statement_text(script: &str, span: tidemark_common::Span) -> String {
    if !span.is_known() {
        return String::new();
    }
    let from = span.start_line.saturating_sub(1) as usize;
    let to = span.end_line.max(span.start_line) as usize;
    script
        .lines()
        .skip(from)
        .take(to - from)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Decides where a run resumed from `pending` goes on from: the pending
/// checkpoint if the epoch it closes was committed to `sink` before the
/// run stopped, the one before it if not (the epoch is then written
/// again, the same rows). The decision is written down.
fn settle(
    pending: Checkpoint,
    epoch: tidemark_engine::Epoch,
    sink: Option<&TableDef>,
    store: &CheckpointStore,
    out: &mut Output<'_>,
) -> Result<Checkpoint> {
    let Some(table) = sink else {
        return Err(Error::Internal(
            "a pending checkpoint of a statement that writes no table".into(),
        ));
    };
    let committed = tidemark_engine::epoch_committed(table, &epoch)?;
    let n = epoch.number;
    let settled = if committed {
        writeln!(
            out.summary,
            "epoch {n} was committed to table {} before the run stopped: going on after it",
            table.name
        )
        .map_err(|e| Error::io("cannot write output", e))?;
        Checkpoint {
            previous: None,
            ..pending
        }
    } else {
        let from = match n - 1 {
            0 => "the statement's start".to_string(),
            before => format!("checkpoint {before}"),
        };
        writeln!(
            out.summary,
            "epoch {n} was not committed to table {} before the run stopped: it is written again, from {from}",
            table.name
        )
        .map_err(|e| Error::io("cannot write output", e))?;
        *pending.previous.unwrap_or_default()
    };
    store.write(&settled)?;
    Ok(settled)
}

/// Every sink a query writes, in the order checkpoints keep them: the
/// INSERT's table, then the late-row and bad-record tables.
fn all_sinks<'a>(
    target: &'a mut Option<InsertTarget>,
    late: &'a mut LateRouting,
) -> impl Iterator<Item = &'a mut TableSink> {
    target
        .iter_mut()
        .map(|t| &mut t.sink)
        .chain(late.sinks_mut())
}

/// Where an INSERT INTO writes: the sink table, opened, and its types.
struct InsertTarget {
    name: String,
    sink: TableSink,
    types: Vec<tidemark_common::SqlType>,
}

impl InsertTarget {
    /// Opens `sink` for a query that emits updates or not: a file can
    /// only take updates as upserts on the key it declares.
    /// `staged`: for a checkpointed run (see [`open_sink`]).
    fn open(
        sink: &TableDef,
        updating: bool,
        span: tidemark_common::Span,
        staged: Option<bool>,
    ) -> Result<Self> {
        let Some(connector) = tidemark_engine::of_table(sink)
            .map(|c| c.declaration())
            .filter(|c| c.capabilities.write)
        else {
            return Err(Error::plan(
                format!("table '{}' cannot be written", sink.name),
                span,
            ));
        };
        // A persisted metadata column is written: its key must take it.
        for (i, key) in sink.metadata_columns() {
            let persisted = matches!(
                &sink.kinds[i],
                tidemark_common::catalog::ColumnKind::Metadata {
                    virtual_column: false,
                    ..
                }
            );
            let writable = connector
                .metadata
                .iter()
                .any(|m| m.key == key && m.writable);
            if persisted && !writable {
                return Err(Error::plan(
                    format!(
                        "INSERT INTO {}: column '{}' is metadata '{key}', which {} tables give but do not take",
                        sink.name, sink.schema.fields[i].name, connector.name
                    ),
                    span,
                )
                .with_hint(format!(
                    "declare it METADATA FROM '{key}' VIRTUAL: a virtual column is read and never written"
                )));
            }
        }
        let written = sink.written_schema();
        let key: Vec<usize> = sink
            .primary_key
            .iter()
            .filter_map(|k| written.index_of(k))
            .collect();
        // A connector that neither shows a changelog nor keeps a row per
        // key only appends: updates cannot be written to it at all.
        let capabilities = connector.capabilities;
        if updating && !capabilities.changelog && !capabilities.upsert {
            let upserting: Vec<String> = tidemark_engine::declarations()
                .connectors
                .iter()
                .filter(|c| c.capabilities.upsert)
                .map(|c| format!("'{}'", c.name))
                .collect();
            return Err(Error::plan(
                format!(
                    "INSERT INTO {}: the query emits updates (allowed lateness or early firing), and a {} table is only appended to",
                    sink.name, connector.name
                ),
                span,
            )
            .with_hint(format!(
                "write to a table with a PRIMARY KEY whose connector keeps each key's latest row ({}), or to a print table",
                upserting.join(", ")
            )));
        }
        if updating && !connector.capabilities.changelog && key.is_empty() {
            return Err(Error::plan(
                format!(
                    "INSERT INTO {}: the query emits updates (allowed lateness or early firing), and {} cannot take a written row back",
                    sink.name,
                    if connector.name == "jdbc" {
                        "a table without key"
                    } else {
                        "a file"
                    }
                ),
                span,
            )
            .with_hint(format!(
                "declare PRIMARY KEY (...) NOT ENFORCED on {} to write the last row per key, or write to a print table",
                sink.name
            )));
        }
        let mut opened = open_sink(sink, staged)?;
        if updating && !key.is_empty() {
            opened.upsert_on(key);
        }
        Ok(InsertTarget {
            name: sink.name.clone(),
            sink: opened,
            types: written.fields.iter().map(|f| f.ty.clone()).collect(),
        })
    }
}

/// The folder a script's relative paths resolve against.
pub fn script_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The warning for a setting tidemark does not read, if `key` is one.
/// Flink's SQL client keeps any key; tidemark keeps it too (a script
/// written for Flink still runs) but says that it changes nothing, with
/// the nearest key it reads when one is close.
pub fn unread_setting(key: &str) -> Option<String> {
    if tidemark_common::is_known_option(key) {
        return None;
    }
    let quote = tidemark_sql::quote_string;
    if key.eq_ignore_ascii_case("table.exec.state.ttl") {
        // Flink's ttl counts processing time: results would depend on the
        // machine's speed (spec §10).
        return Some(format!(
            "warning: tidemark does not apply {}: it counts processing time, so results would depend on how fast the machine reads; the setting is kept but changes nothing. For state that expires on event time, set {}",
            quote(key),
            quote(tidemark_common::STATE_TTL)
        ));
    }
    let known = tidemark_common::KNOWN_OPTIONS
        .iter()
        .map(|o| o.key)
        .filter(|k| !k.ends_with('.'));
    let hint = tidemark_sql::nearest(key, known)
        .map(|near| format!("; did you mean {}?", quote(near)))
        .unwrap_or_default();
    Some(format!(
        "warning: tidemark does not read {}: the setting is kept but changes nothing{hint}",
        quote(key)
    ))
}
