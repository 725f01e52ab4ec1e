//! A session: declared tables and options, and the execution of a
//! script's statements in order. `run`, the golden-file tests and the
//! benchmarks all go through [`Session::execute_script`].

use crate::late::LateRouting;
use crate::summary::render_summary;
use std::io::Write;
use std::path::{Path, PathBuf};
use tidemark_common::{Error, Result, SessionOptions};
use tidemark_engine::format::write_changelog;
use tidemark_engine::{RunOutput, RunSummary, SideItem};
use tidemark_planner::{explain, plan_query};
use tidemark_sql::{parse_script, Catalog, QueryBinder, Statement};

pub struct Session {
    pub catalog: Catalog,
    pub options: SessionOptions,
    /// The folder relative `'path'` options resolve against.
    pub base_dir: PathBuf,
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
            catalog: Catalog::default(),
            options: SessionOptions::default(),
            base_dir: base_dir.into(),
        }
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
        let mut summaries = Vec::new();
        for statement in &statements {
            if let Some(summary) = self.execute(statement, out)? {
                summaries.push(summary);
            }
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
                self.catalog.create_table(create, &base)?;
                Ok(None)
            }
            Statement::CreateView { name, query, span } => {
                // Bound once here so that a broken view fails where it is
                // declared; it is bound again where it is used.
                QueryBinder::new(&self.catalog).bind_query(query, *span)?;
                self.catalog.create_view(name, query)?;
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
                self.options = next;
                Ok(None)
            }
            Statement::Set { key: None, .. } => {
                for (k, v) in self.options.iter() {
                    writeln!(out.rows, "'{k}' = '{v}'").map_err(io)?;
                }
                Ok(None)
            }
            Statement::Reset { key, .. } => {
                match key {
                    Some(k) => self.options.remove(k),
                    None => self.options = SessionOptions::default(),
                }
                Ok(None)
            }
            Statement::ShowTables { .. } => {
                for t in self.catalog.tables() {
                    writeln!(out.rows, "{}", t.name).map_err(io)?;
                }
                Ok(None)
            }
            Statement::Describe { table, span } => {
                let t = self.catalog.table(&table.value, *span)?;
                for f in &t.schema.fields {
                    let mut extra = String::new();
                    if let Some(w) = t
                        .watermark
                        .as_ref()
                        .filter(|w| t.schema.field(w.column).name == f.name)
                    {
                        extra = format!(" *ROWTIME* WATERMARK AS {}", w.expr);
                    }
                    writeln!(out.rows, "{} {}{extra}", f.name, f.ty).map_err(io)?;
                }
                Ok(None)
            }
            Statement::Explain { statement, span } => match statement.as_ref() {
                Statement::Query { query, span } => {
                    let plan = QueryBinder::new(&self.catalog).bind_query(query, *span)?;
                    let text = explain(&plan, &self.options).map_err(|e| e.or_span(*span))?;
                    write!(out.rows, "{text}").map_err(io)?;
                    Ok(None)
                }
                _ => Err(Error::plan("EXPLAIN works on queries", *span)),
            },
            Statement::Query { query, span } => {
                let plan = QueryBinder::new(&self.catalog).bind_query(query, *span)?;
                let mut physical =
                    plan_query(&plan, &self.options).map_err(|e| e.or_span(*span))?;
                let mut late = LateRouting::new(&self.options, &self.catalog, &plan, *span)?;
                if late.enabled() {
                    physical.pipeline.source.keep_origin();
                }
                if late.keeps_bad_rows() {
                    physical.pipeline.source.keep_bad_rows();
                }
                let types = physical.output_types.clone();
                let tz = physical.eval.time_zone;
                let mut text = String::new();
                let rows = &mut *out.rows;
                let summary = &mut *out.summary;
                let result = physical.pipeline.run(&mut |output| match output {
                    RunOutput::Rows(chunk) => {
                        text.clear();
                        let kinds: Vec<_> = (0..chunk.num_rows()).map(|i| chunk.kind(i)).collect();
                        write_changelog(&chunk.batch, &types, &kinds, tz, &mut text)?;
                        rows.write_all(text.as_bytes()).map_err(io)
                    }
                    RunOutput::Side(SideItem::Trace(line)) => {
                        writeln!(summary, "{line}").map_err(io)
                    }
                    RunOutput::Side(SideItem::Late(late_rows)) => late.route(late_rows, tz, rows),
                    RunOutput::Side(SideItem::Bad(bad)) => late.route_bad(bad, tz, rows),
                });
                out.rows.flush().map_err(io)?;
                let summary = result?;
                late.finish()?;
                out.summary
                    .write_all(render_summary(&summary, out.timing).as_bytes())
                    .map_err(io)?;
                Ok(Some(summary))
            }
        }
    }
}

/// The folder a script's relative paths resolve against.
pub fn script_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
