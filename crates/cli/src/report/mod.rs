//! The run report (`tidemark run --report run.html`, `SET 'tidemark.report'
//! = 'run.html'`): one self-contained HTML page with pictures of each
//! query's time — rows in arrival order against the watermark, late rows
//! by what became of them, windows on a time axis, each split's and
//! input's watermark with idle spells, lateness, and state over the run.
//!
//! What the pictures show comes from the run itself: the engine's records
//! of its inputs ([`tidemark_engine::observe`]), the trace's events in
//! numbers, the late rows as they leave the operators, and the run
//! summary's own counters. Nothing is recorded unless a report is asked
//! for. This module gathers one query's records ([`QueryRecorder`]);
//! [`charts`] draws them and [`page`] lays out the page.

mod charts;
pub mod page;
mod svg;

use crate::summary::render_summary;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tidemark_common::{Error, Result};
use tidemark_engine::observe::{Observations, Observer, Sampled};
use tidemark_engine::{AcceptedRow, LateRows, RunSummary, TraceEvent, TraceRecord};

/// The option naming the report's file.
pub const REPORT_OPTION: &str = "tidemark.report";

/// Late rows drawn per table at most; past it, every other is dropped
/// (the counts stay whole).
const MAX_FATES: usize = 2_000;

/// OVER emissions drawn per operator at most, sampled the same way.
const MAX_EMISSIONS: usize = 2_000;

/// Windows remembered per operator at most: later ones are counted, not
/// drawn.
const MAX_WINDOWS: usize = 20_000;

/// What became of a late row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fate {
    /// Behind every window it belonged to: not counted in any result.
    Dropped,
    /// Written to a late-records sink table.
    Routed,
    /// Added within the allowed lateness: its window fired again.
    Accepted,
}

impl Fate {
    pub fn label(self) -> &'static str {
        match self {
            Fate::Dropped => "dropped",
            Fate::Routed => "routed to a sink",
            Fate::Accepted => "accepted within lateness",
        }
    }

    pub fn class(self) -> &'static str {
        match self {
            Fate::Dropped => "dropped",
            Fate::Routed => "routed",
            Fate::Accepted => "accepted",
        }
    }
}

/// A late row, as drawn.
#[derive(Clone, Debug)]
pub struct LatePoint {
    pub arrival: u64,
    pub rowtime: Option<i64>,
    pub watermark: i64,
    pub fate: Fate,
    pub operator: String,
}

/// One table's late rows.
#[derive(Clone, Debug)]
pub struct TableFates {
    pub table: String,
    /// By the order they were told, sampled.
    pub points: Sampled<LatePoint>,
    /// Told so far (the next one's number), and per fate.
    pub told: u64,
    pub counts: HashMap<Fate, u64>,
}

/// A window as its trace events tell it.
#[derive(Clone, Debug, Default)]
pub struct WindowRecord {
    /// The start, when the events say it.
    pub start: Option<i64>,
    pub end: i64,
    /// Keys and rows in it when it (last) fired: summed over keys for an
    /// operator whose events are per key.
    pub keys: u64,
    pub rows: u64,
    /// The watermark at each firing (on time, early), at each late
    /// re-fire, and at its cleanup.
    pub fired: Option<i64>,
    pub early: Vec<i64>,
    pub refires: Vec<i64>,
    pub cleaned: Option<i64>,
    /// The watermark each row too late for it met (per key, as traced).
    pub late: Vec<i64>,
}

/// Emissions of an operator whose rows are not windows (OVER): rows made
/// final at a time, when the watermark passed it.
#[derive(Clone, Debug)]
pub struct Emission {
    pub rowtime: i64,
    pub rows: u64,
    pub watermark: i64,
}

/// One operator's windows (or emissions).
#[derive(Clone, Debug)]
pub struct OperatorWindows {
    pub operator: String,
    /// In the order they were first told.
    pub windows: Vec<WindowRecord>,
    index: HashMap<(Option<i64>, i64), usize>,
    /// Windows past [`MAX_WINDOWS`], counted only.
    pub windows_left_out: u64,
    pub emissions: Sampled<Emission>,
    pub emissions_told: u64,
}

/// What one query recorded, and its summary once it has run.
pub struct QueryRecorder {
    pub title: String,
    pub sql: String,
    pub observer: Observer,
    pub fates: Vec<TableFates>,
    pub windows: Vec<OperatorWindows>,
}

/// One query's report: complete, or (on a live page) so far.
#[derive(Clone)]
pub struct QueryReport {
    pub title: String,
    pub sql: String,
    pub observations: Observations,
    pub fates: Vec<TableFates>,
    pub windows: Vec<OperatorWindows>,
    pub summary: RunSummary,
    /// The summary as printed (with timing), notes and all.
    pub summary_text: String,
}

impl QueryRecorder {
    pub fn new(title: String, sql: String) -> Self {
        QueryRecorder {
            title,
            sql,
            observer: Observer::new(),
            fates: Vec::new(),
            windows: Vec::new(),
        }
    }

    fn table_fates(&mut self, table: &str) -> &mut TableFates {
        let i = match self.fates.iter().position(|f| f.table == table) {
            Some(i) => i,
            None => {
                self.fates.push(TableFates {
                    table: table.to_string(),
                    points: Sampled::new(MAX_FATES),
                    told: 0,
                    counts: HashMap::new(),
                });
                self.fates.len() - 1
            }
        };
        &mut self.fates[i]
    }

    fn tell_fate(&mut self, table: &str, point: LatePoint) {
        let fates = self.table_fates(table);
        *fates.counts.entry(point.fate).or_default() += 1;
        let n = fates.told;
        fates.told += 1;
        if fates.points.next_kept(n) == n {
            fates.points.push(n, point);
        }
    }

    /// Late rows an operator let go: to `sink` when one takes them.
    pub fn late(&mut self, late: &LateRows, sink: Option<&str>) {
        let fate = if sink.is_some() {
            Fate::Routed
        } else {
            Fate::Dropped
        };
        for (i, arrival) in late.arrivals.iter().enumerate() {
            let point = LatePoint {
                arrival: *arrival,
                rowtime: late.table.rowtime_of(&late.batch, i),
                watermark: late.watermarks[i],
                fate,
                operator: late.operator.to_string(),
            };
            self.tell_fate(&late.table.name, point);
        }
    }

    /// A late row a window took within the allowed lateness.
    pub fn accepted(&mut self, row: &AcceptedRow) {
        let point = LatePoint {
            arrival: row.arrival,
            rowtime: row.rowtime,
            watermark: row.watermark,
            fate: Fate::Accepted,
            operator: row.operator.to_string(),
        };
        self.tell_fate(&row.table.name, point);
    }

    /// An event of the trace.
    pub fn trace(&mut self, record: &TraceRecord) {
        let Some(facts) = &record.facts else {
            return;
        };
        let i = match self
            .windows
            .iter()
            .position(|w| w.operator == *facts.operator)
        {
            Some(i) => i,
            None => {
                self.windows.push(OperatorWindows {
                    operator: facts.operator.to_string(),
                    windows: Vec::new(),
                    index: HashMap::new(),
                    windows_left_out: 0,
                    emissions: Sampled::new(MAX_EMISSIONS),
                    emissions_told: 0,
                });
                self.windows.len() - 1
            }
        };
        let op = &mut self.windows[i];
        let Some((start, end)) = facts.window else {
            // Rows made final at a time (OVER).
            if let (TraceEvent::Fire, Some(rowtime)) = (facts.event, facts.rowtime) {
                let n = op.emissions_told;
                op.emissions_told += 1;
                if op.emissions.next_kept(n) == n {
                    op.emissions.push(
                        n,
                        Emission {
                            rowtime,
                            rows: facts.rows.unwrap_or(0),
                            watermark: facts.watermark,
                        },
                    );
                }
            }
            return;
        };
        if !matches!(
            facts.event,
            TraceEvent::Fire
                | TraceEvent::Early
                | TraceEvent::Refire
                | TraceEvent::Cleanup
                | TraceEvent::Late
        ) {
            return;
        }
        let w = match op.index.get(&(start, end)) {
            Some(w) => *w,
            None if op.windows.len() >= MAX_WINDOWS => {
                if matches!(facts.event, TraceEvent::Fire | TraceEvent::Early) {
                    op.windows_left_out += 1;
                }
                return;
            }
            None => {
                op.windows.push(WindowRecord {
                    start,
                    end,
                    ..WindowRecord::default()
                });
                op.index.insert((start, end), op.windows.len() - 1);
                op.windows.len() - 1
            }
        };
        let window = &mut op.windows[w];
        match facts.event {
            TraceEvent::Fire => {
                window.fired = Some(
                    window
                        .fired
                        .map_or(facts.watermark, |f| f.max(facts.watermark)),
                );
                match facts.keys {
                    // A line for the whole window.
                    Some(keys) => {
                        window.keys = keys;
                        window.rows = facts.rows.unwrap_or(0);
                    }
                    // A line per key (or for the one group of a query
                    // without keys): a session's.
                    None => {
                        window.keys += 1;
                        window.rows += facts.rows.unwrap_or(0);
                    }
                }
            }
            TraceEvent::Early => {
                window.early.push(facts.watermark);
                window.keys = window.keys.max(facts.keys.unwrap_or(1));
                window.rows = window.rows.max(facts.rows.unwrap_or(0));
            }
            TraceEvent::Refire => {
                window.refires.push(facts.watermark);
                // A re-fire counts the key's rows now; the window's grow.
                window.rows += 1;
            }
            TraceEvent::Late => window.late.push(facts.watermark),
            _ => window.cleaned = Some(facts.watermark),
        }
    }

    /// The query's report from its records so far and `summary`: while it
    /// runs (a live page), or once it has run.
    pub fn snapshot(&self, summary: &RunSummary) -> QueryReport {
        QueryReport {
            title: self.title.clone(),
            sql: self.sql.clone(),
            observations: self.observer.snapshot(),
            fates: self.fates.clone(),
            windows: self.windows.clone(),
            summary: summary.clone(),
            summary_text: render_summary(summary, true),
        }
    }
}

/// The report file of a session: every query run while it is set, one
/// section each, written again after each query so that it is always
/// whole.
pub struct ReportFile {
    pub path: PathBuf,
    pub queries: Vec<QueryReport>,
}

impl ReportFile {
    /// Checks that `path` can be written before anything runs: it is
    /// created (or emptied) at once.
    pub fn create(path: &Path) -> Result<Self> {
        std::fs::write(path, page::placeholder())
            .map_err(|e| Error::io(format!("cannot write the report {}", path.display()), e))?;
        Ok(ReportFile {
            path: path.to_path_buf(),
            queries: Vec::new(),
        })
    }

    /// Adds a query's report and writes the page again.
    pub fn add(&mut self, query: QueryReport) -> Result<()> {
        self.queries.push(query);
        self.write()
    }

    fn write(&self) -> Result<()> {
        let queries: Vec<&QueryReport> = self.queries.iter().collect();
        let html = page::render(&queries);
        std::fs::write(&self.path, html).map_err(|e| {
            Error::io(
                format!("cannot write the report {}", self.path.display()),
                e,
            )
        })
    }
}
