//! Where a query's late rows go besides the run summary: inline as
//! `LATE[...]` lines (`SET 'tidemark.display.late-records' = 'true'`), and
//! into a declared sink table (`SET 'table.exec.late-records.sink' = 't'`,
//! or `'table.exec.late-records.sink.<source>'` per source table). Input
//! rows the sources skipped go to `'table.exec.bad-records.sink'`.

use std::io::Write;
use tidemark_common::{Error, Result, RowKind, SessionOptions, Span};
use tidemark_engine::snapshot::{StateReader, StateWriter};
use tidemark_engine::write_changelog;
use tidemark_engine::BadRows;
use tidemark_engine::LateRows;
use tidemark_engine::{open_sink, BadLayout, LateLayout, TableSink};
use tidemark_sql::{Catalog, LogicalPlan};

/// The late-row routing of one query.
pub struct LateRouting {
    display: bool,
    /// Per source table (by name, lower case): its column layout and its
    /// sink in `tables`.
    sinks: Vec<(String, LateLayout, usize)>,
    /// The late-row sink tables, each opened once however many sources
    /// write to it: (name, sink).
    tables: Vec<(String, TableSink)>,
    /// The bad-records sink, if one is set.
    bad: Option<(BadLayout, TableSink)>,
    /// Late rows written: (operator that dropped them, sink table, rows).
    routed: Vec<(String, String, u64)>,
}

impl LateRouting {
    /// Reads the options for `plan`; opens the sinks it names (`staged`:
    /// for a checkpointed run, see [`open_sink`]).
    pub fn new(
        options: &SessionOptions,
        catalog: &Catalog,
        plan: &LogicalPlan,
        span: Span,
        staged: Option<bool>,
    ) -> Result<Self> {
        let open = |sink: &tidemark_common::catalog::TableDef| {
            let opened = open_sink(sink, staged)?;
            // One transaction per checkpoint is the INSERT's table's.
            if opened.transactional() {
                return Err(Error::plan(
                    format!(
                        "table {} takes late or skipped rows, and cannot be written 'exactly-once': a run commits the transactions of its INSERT's table only",
                        sink.name
                    ),
                    span,
                )
                .with_hint("write it 'at-least-once' (the default)"));
            }
            Ok(opened)
        };
        let display = options.flag("tidemark.display.late-records")?;
        let bad = match options.get("table.exec.bad-records.sink") {
            None => None,
            Some(name) => {
                let sink = writable(catalog, name, span, "bad-records")?;
                Some((BadLayout::new(&sink, span)?, open(&sink)?))
            }
        };
        let mut sinks: Vec<(String, LateLayout, usize)> = Vec::new();
        let mut tables: Vec<(String, TableSink)> = Vec::new();
        for source in plan.scans() {
            let source_name = source.name.to_ascii_lowercase();
            // A table read twice (a self-join) routes its late rows once.
            if sinks.iter().any(|(s, _, _)| *s == source_name) {
                continue;
            }
            let per_source = format!("table.exec.late-records.sink.{}", source.name);
            let Some(name) = options
                .get(&per_source)
                .or_else(|| options.get("table.exec.late-records.sink"))
            else {
                continue;
            };
            let sink = writable(catalog, name, span, "late-records")?;
            let layout = LateLayout::new(&sink, source, span)?;
            let table = match tables
                .iter()
                .position(|(n, _)| n.eq_ignore_ascii_case(&sink.name))
            {
                Some(i) => i,
                None => {
                    tables.push((sink.name.clone(), open(&sink)?));
                    tables.len() - 1
                }
            };
            sinks.push((source_name, layout, table));
        }
        Ok(LateRouting {
            display,
            sinks,
            tables,
            bad,
            routed: Vec::new(),
        })
    }

    /// The sink table that takes source `source`'s late rows, if one does.
    pub fn sink_for(&self, source: &str) -> Option<&str> {
        let source = source.to_ascii_lowercase();
        let (.., table) = self.sinks.iter().find(|(name, ..)| *name == source)?;
        Some(self.tables[*table].0.as_str())
    }

    /// Whether late rows must be kept as source rows at all.
    pub fn enabled(&self) -> bool {
        self.display || !self.sinks.is_empty()
    }

    /// Whether sources must keep the rows they skip.
    pub fn keeps_bad_rows(&self) -> bool {
        self.bad.is_some()
    }

    /// Writes skipped input rows to the bad-records sink.
    pub fn route_bad(
        &mut self,
        bad: &BadRows,
        tz: chrono_tz::Tz,
        rows: &mut dyn Write,
    ) -> Result<()> {
        let Some((layout, sink)) = &mut self.bad else {
            return Ok(());
        };
        let batch = layout.batch(bad)?;
        let kinds = vec![RowKind::Insert; batch.num_rows()];
        let shown = sink.write(&batch, &layout.types, &kinds, tz)?;
        rows.write_all(shown.as_bytes())
            .map_err(|e| Error::io("cannot write output", e))
    }

    /// Routes late rows; lines to show go to `rows`, among the changelog,
    /// row by row (a row's `LATE` line, then what its sink shows).
    pub fn route(
        &mut self,
        late: &LateRows,
        tz: chrono_tz::Tz,
        rows: &mut dyn Write,
    ) -> Result<()> {
        if !self.display || self.sinks.is_empty() || late.batch.num_rows() == 1 {
            return self.route_together(late, tz, rows);
        }
        for i in 0..late.batch.num_rows() {
            let one = LateRows {
                batch: late.batch.slice(i, 1),
                watermarks: vec![late.watermarks[i]],
                ..late.clone()
            };
            self.route_together(&one, tz, rows)?;
        }
        Ok(())
    }

    fn route_together(
        &mut self,
        late: &LateRows,
        tz: chrono_tz::Tz,
        rows: &mut dyn Write,
    ) -> Result<()> {
        let io = |e: std::io::Error| Error::io("cannot write output", e);
        if self.display {
            let mut text = String::new();
            let kinds = vec![RowKind::Insert; late.batch.num_rows()];
            write_changelog(&late.batch, &late.table.types, &kinds, tz, &mut text)?;
            for line in text.lines() {
                let values = line.strip_prefix("+I").unwrap_or(line);
                writeln!(rows, "LATE{values}").map_err(io)?;
            }
        }
        let source = late.table.name.to_ascii_lowercase();
        for (name, layout, table) in &self.sinks {
            if *name == source {
                let batch = layout.batch(late)?;
                let kinds = vec![RowKind::Insert; batch.num_rows()];
                let (sink_name, sink) = &mut self.tables[*table];
                let shown = sink.write(&batch, &layout.types, &kinds, tz)?;
                rows.write_all(shown.as_bytes()).map_err(io)?;
                let n = batch.num_rows() as u64;
                match self
                    .routed
                    .iter_mut()
                    .find(|(op, t, _)| op == late.operator && t == sink_name)
                {
                    Some((.., count)) => *count += n,
                    None => self
                        .routed
                        .push((late.operator.to_string(), sink_name.clone(), n)),
                }
            }
        }
        Ok(())
    }

    /// Late rows written so far: (operator, sink table, rows).
    pub fn routed(&self) -> Vec<(String, String, u64)> {
        self.routed.clone()
    }

    /// Writes the counts of late rows written, for a checkpoint: a resumed
    /// run's summary counts the whole job.
    pub fn save_counts(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.routed.len() as u64);
        for (operator, table, n) in &self.routed {
            w.put(operator);
            w.put(table);
            w.put(n);
        }
        Ok(())
    }

    /// Reads what [`LateRouting::save_counts`] wrote.
    pub fn load_counts(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let n = r.count()?;
        self.routed.clear();
        for _ in 0..n {
            self.routed.push((r.get()?, r.get()?, r.get()?));
        }
        r.finish()
    }

    /// Why the routing cannot take part in a checkpoint, if it cannot:
    /// late rows shown inline or printed cannot be taken back.
    pub fn checkpoint_blocker(&self) -> Option<Error> {
        if self.display {
            return Some(Error::plan(
                "checkpointing needs outputs that can be taken back to the last checkpoint: 'tidemark.display.late-records' shows late rows on standard output",
                Span::default(),
            ).with_hint("route late rows to a filesystem table with 'table.exec.late-records.sink'"));
        }
        self.tables
            .iter()
            .map(|(name, sink)| (name.as_str(), sink))
            .chain(self.bad.iter().map(|(_, sink)| ("bad-records", sink)))
            .find_map(|(name, sink)| sink.checkpoint_blocker(name))
    }

    /// The sinks, in a fixed order (for checkpoints).
    pub fn sinks_mut(&mut self) -> impl Iterator<Item = &mut TableSink> {
        self.tables
            .iter_mut()
            .map(|(_, sink)| sink)
            .chain(self.bad.iter_mut().map(|(_, sink)| sink))
    }

    /// Gives up the sinks: their staged files are removed.
    pub fn discard(self) {
        for (_, sink) in self.tables {
            sink.discard();
        }
        if let Some((_, sink)) = self.bad {
            sink.discard();
        }
    }

    /// Completes the sinks (files move into place).
    pub fn finish(self) -> Result<()> {
        for (_, sink) in self.tables {
            sink.finish()?;
        }
        if let Some((_, sink)) = self.bad {
            sink.finish()?;
        }
        Ok(())
    }
}

/// The declared table `name`, checked to be one rows can be written to.
fn writable(
    catalog: &Catalog,
    name: &str,
    span: Span,
    what: &str,
) -> Result<std::sync::Arc<tidemark_common::catalog::TableDef>> {
    let sink = catalog.table(name, span)?;
    let takes_side_output =
        tidemark_engine::of_table(&sink).is_some_and(|c| c.declaration().capabilities.side_output);
    if !takes_side_output {
        return Err(Error::plan(
            format!("{what} sink '{}' cannot be written", sink.name),
            span,
        ));
    }
    Ok(sink)
}
