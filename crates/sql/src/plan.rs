//! The logical plan: what a query computes, before operators are chosen.
//!
//! Every node knows its output [`Schema`]; `Display` prints the tree the
//! way `EXPLAIN` shows it.

use std::fmt;
use std::sync::Arc;
use tidemark_common::catalog::TableDef;
use tidemark_common::expr::{AggregateCall, Expr};
use tidemark_common::window::{JoinType, WindowKind};
use tidemark_common::Schema;

/// One ORDER BY key of a window ranking: a column, its direction, and
/// whether NULLs come first. Flink takes NULL as the smallest value: first
/// ascending, last descending, unless `NULLS FIRST` or `NULLS LAST` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderKey {
    pub column: usize,
    pub descending: bool,
    pub nulls_first: bool,
}

#[derive(Clone, Debug)]
pub enum LogicalPlan {
    /// Reads a declared table: its physical columns, then its computed
    /// columns; the table's watermark is assigned here.
    Scan {
        table: Arc<TableDef>,
        schema: Schema,
    },
    Filter {
        input: Box<LogicalPlan>,
        predicate: Expr,
    },
    Project {
        input: Box<LogicalPlan>,
        exprs: Vec<Expr>,
        schema: Schema,
    },
    /// `GROUPING SETS`, `ROLLUP` and `CUBE`: each input row once per
    /// grouping set, in row order, with the key columns the set leaves out
    /// NULL (`nulled[set]`) and the set's number (BIGINT, from 0) after
    /// the input's columns.
    Expand {
        input: Box<LogicalPlan>,
        nulled: Vec<Vec<usize>>,
        schema: Schema,
    },
    /// A window TVF not followed by an aggregation: every input column plus
    /// `window_start`, `window_end`, `window_time`, per window of the row.
    WindowTvf {
        input: Box<LogicalPlan>,
        window: WindowSpec,
        schema: Schema,
    },
    /// Aggregates over an OVER window ordered by the rowtime: every input
    /// column, then one column per aggregate, for each row, emitted when
    /// the watermark passes the row's rowtime.
    OverAggregate {
        input: Box<LogicalPlan>,
        partition: Vec<usize>,
        time_column: usize,
        frame: tidemark_common::window::OverFrame,
        aggregates: Vec<AggregateCall>,
        schema: Schema,
    },
    /// Window Top-N and deduplication: `ROW_NUMBER()` (or `RANK()`,
    /// `DENSE_RANK()`) `OVER (PARTITION BY window_start, window_end, ...
    /// ORDER BY ...)`: every input column and the row's rank in its
    /// partition, for each row, emitted when its window ends (the watermark
    /// passes `window_end - 1`).
    WindowRank {
        input: Box<LogicalPlan>,
        partition: Vec<usize>,
        /// Sort columns, with their directions and where NULLs go.
        order: Vec<OrderKey>,
        /// Rows equal in the order rank the latest arrival first rather
        /// than the earliest: Flink's window deduplication keeping the
        /// last row (see [`crate::over`]).
        latest_first: bool,
        /// The input's `window_end` column.
        window_end: usize,
        /// One output column each: ROW_NUMBER, RANK or DENSE_RANK.
        funcs: Vec<tidemark_common::expr::AggregateFunction>,
        /// `(k, n)`: a filter above keeps only rows whose rank by
        /// `funcs[k]` is at most `n` (`WHERE rownum <= n`, through
        /// projections), so the ranking may forget the others as they fall
        /// out of reach, as Flink's rank range lets it.
        limit: Option<(usize, i64)>,
        schema: Schema,
    },
    /// A window join of two window TVFs over the same windows, on equal
    /// keys: the left columns then the right ones (named `alias.column`).
    WindowJoin {
        left: Box<LogicalPlan>,
        right: Box<LogicalPlan>,
        kind: JoinType,
        /// Equal key columns: (left column, right column).
        keys: Vec<(usize, usize)>,
        /// Per key: compared with `IS NOT DISTINCT FROM` (NULL meets
        /// NULL) rather than `=` (NULL meets nothing).
        null_equal: Vec<bool>,
        /// The rest of the ON condition: a predicate over the left
        /// columns then the right ones that a pair of equal keys must
        /// also meet.
        condition: Option<Expr>,
        /// Each side's `window_end` column.
        window_ends: (usize, usize),
        schema: Schema,
    },
    /// `UNION ALL` of inputs with the same columns: every row of each.
    /// A column is a rowtime attribute if it is one in every input; the
    /// watermark is the minimum of the inputs'.
    Union {
        inputs: Vec<LogicalPlan>,
        schema: Schema,
    },
    /// `GROUP BY window_start, window_end, keys...` over a window TVF, fused
    /// with the TVF so that state is kept per slice, not per window. Output:
    /// the key columns, `window_start`, `window_end`, `window_time`, then one
    /// column per aggregate.
    WindowAggregate {
        input: Box<LogicalPlan>,
        window: WindowSpec,
        keys: Vec<usize>,
        aggregates: Vec<AggregateCall>,
        schema: Schema,
    },
}

/// Columns of rows that carry their window (see
/// [`LogicalPlan::windowed_rows`]).
#[derive(Clone, Debug, PartialEq)]
pub struct WindowedRows {
    /// The window that made them.
    pub kind: WindowKind,
    /// Their `window_start`, `window_end` and, if kept, `window_time`.
    pub start: usize,
    pub end: usize,
    pub time: Option<usize>,
    /// The type of the window's rowtime: `window_time`'s type, whether or
    /// not it is kept (a TIMESTAMP_LTZ rowtime's windows end on the wall
    /// clock of the session zone).
    pub time_type: tidemark_common::SqlType,
}

/// A window TVF's kind and the rowtime column (of its input) it windows on.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowSpec {
    pub kind: WindowKind,
    pub time_column: usize,
    /// SESSION's `PARTITION BY` columns (of the input), which key the
    /// sessions of a TVF read without aggregation.
    pub partition: Vec<usize>,
    /// The TVF call, for errors about it.
    pub span: tidemark_common::Span,
    /// Written as a legacy group window (`GROUP BY SESSION(ts, ..)`),
    /// where Flink takes no emit strategy on SESSION.
    pub legacy: bool,
    /// An aggregation over rows that carry their window (the kind named
    /// here): each `window_end` is its window, which `kind` lays out as a
    /// 1 ms TUMBLE over `window_time`, with `window_start` and
    /// `window_end` the last two keys.
    pub attached: Option<WindowKind>,
}

impl LogicalPlan {
    /// The tables the plan reads, in the order they appear.
    pub fn scans(&self) -> Vec<&Arc<TableDef>> {
        match self {
            LogicalPlan::Scan { table, .. } => vec![table],
            LogicalPlan::Union { inputs, .. } => inputs.iter().flat_map(|i| i.scans()).collect(),
            LogicalPlan::WindowJoin { left, right, .. } => {
                let mut scans = left.scans();
                scans.extend(right.scans());
                scans
            }
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Project { input, .. }
            | LogicalPlan::Expand { input, .. }
            | LogicalPlan::WindowTvf { input, .. }
            | LogicalPlan::OverAggregate { input, .. }
            | LogicalPlan::WindowRank { input, .. }
            | LogicalPlan::WindowAggregate { input, .. } => input.scans(),
        }
    }

    /// Whether a window aggregation runs somewhere below (or at) this node.
    pub fn has_window_aggregate(&self) -> bool {
        match self {
            LogicalPlan::Scan { .. } => false,
            LogicalPlan::WindowAggregate { .. } => true,
            LogicalPlan::Union { inputs, .. } => inputs.iter().any(|i| i.has_window_aggregate()),
            LogicalPlan::WindowJoin { left, right, .. } => {
                left.has_window_aggregate() || right.has_window_aggregate()
            }
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Project { input, .. }
            | LogicalPlan::Expand { input, .. }
            | LogicalPlan::OverAggregate { input, .. }
            | LogicalPlan::WindowRank { input, .. }
            | LogicalPlan::WindowTvf { input, .. } => input.has_window_aggregate(),
        }
    }

    pub fn schema(&self) -> &Schema {
        match self {
            LogicalPlan::Scan { schema, .. }
            | LogicalPlan::Union { schema, .. }
            | LogicalPlan::WindowJoin { schema, .. }
            | LogicalPlan::OverAggregate { schema, .. }
            | LogicalPlan::WindowRank { schema, .. }
            | LogicalPlan::Project { schema, .. }
            | LogicalPlan::Expand { schema, .. }
            | LogicalPlan::WindowTvf { schema, .. }
            | LogicalPlan::WindowAggregate { schema, .. } => schema,
            LogicalPlan::Filter { input, .. } => input.schema(),
        }
    }

    /// The node's inputs.
    pub fn inputs(&self) -> Vec<&LogicalPlan> {
        match self {
            LogicalPlan::Union { inputs, .. } => inputs.iter().collect(),
            LogicalPlan::WindowJoin { left, right, .. } => vec![left, right],
            other => other.input().into_iter().collect(),
        }
    }

    /// Where the node's rows carry the window they belong to: the rows
    /// of a window TVF, a window aggregation's results, a window Top-N's
    /// or a window join's rows, through projections that keep
    /// `window_start` and `window_end` and through filters. What a later
    /// window aggregation, Top-N or join over these rows windows by
    /// (Flink's windows attached to their input).
    pub fn windowed_rows(&self) -> Option<WindowedRows> {
        match self {
            LogicalPlan::WindowTvf {
                input,
                window,
                schema,
            } => {
                let n = input.schema().len();
                Some(WindowedRows {
                    kind: window.kind,
                    start: n,
                    end: n + 1,
                    time: Some(n + 2),
                    time_type: schema.field(n + 2).ty.clone(),
                })
            }
            LogicalPlan::WindowAggregate {
                window,
                aggregates,
                schema,
                ..
            } => {
                let own = schema.len().checked_sub(3 + aggregates.len())?;
                // Over attached windows the bounds are the last two keys.
                let (kind, start) = match window.attached {
                    Some(kind) => (kind, own.checked_sub(2)?),
                    None => (window.kind, own),
                };
                Some(WindowedRows {
                    kind,
                    start,
                    end: start + 1,
                    time: Some(own + 2),
                    time_type: schema.field(own + 2).ty.clone(),
                })
            }
            LogicalPlan::Filter { input, .. } | LogicalPlan::WindowRank { input, .. } => {
                input.windowed_rows()
            }
            LogicalPlan::Project { input, exprs, .. } => {
                let rows = input.windowed_rows()?;
                let find = |column: usize| exprs.iter().position(|e| e.as_column() == Some(column));
                Some(WindowedRows {
                    start: find(rows.start)?,
                    end: find(rows.end)?,
                    time: rows.time.and_then(find),
                    ..rows
                })
            }
            LogicalPlan::WindowJoin {
                left, right, kind, ..
            } => match kind {
                // The window of the side that is never padded with NULLs.
                JoinType::Inner | JoinType::Left | JoinType::Semi | JoinType::Anti { .. } => {
                    left.windowed_rows()
                }
                JoinType::Right => {
                    let width = left.schema().len();
                    let rows = right.windowed_rows()?;
                    Some(WindowedRows {
                        start: width + rows.start,
                        end: width + rows.end,
                        time: rows.time.map(|t| width + t),
                        ..rows
                    })
                }
                JoinType::Full => None,
            },
            // Inputs whose rows all carry the same window in the same
            // columns.
            LogicalPlan::Union { inputs, .. } => {
                let mut each = inputs.iter().map(LogicalPlan::windowed_rows);
                let first = each.next()??;
                each.all(|rows| rows.as_ref() == Some(&first))
                    .then_some(first)
            }
            LogicalPlan::Scan { .. }
            | LogicalPlan::Expand { .. }
            | LogicalPlan::OverAggregate { .. } => None,
        }
    }

    /// The node's input, if it has exactly one.
    pub fn input(&self) -> Option<&LogicalPlan> {
        match self {
            LogicalPlan::Scan { .. }
            | LogicalPlan::Union { .. }
            | LogicalPlan::WindowJoin { .. } => None,
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Project { input, .. }
            | LogicalPlan::Expand { input, .. }
            | LogicalPlan::WindowTvf { input, .. }
            | LogicalPlan::OverAggregate { input, .. }
            | LogicalPlan::WindowRank { input, .. }
            | LogicalPlan::WindowAggregate { input, .. } => Some(input),
        }
    }

    /// The node on one line, as `EXPLAIN` shows it.
    pub fn header(&self) -> String {
        match self {
            LogicalPlan::Scan { table, schema } => {
                let cols: Vec<_> = schema.names().collect();
                let mut line = format!("Scan: {} [{}]", table.name, cols.join(", "));
                if let Some(w) = &table.watermark {
                    line.push_str(&format!(
                        " rowtime={} watermark={}",
                        schema.field(w.column).name,
                        w.expr
                    ));
                }
                line
            }
            LogicalPlan::Filter { predicate, .. } => format!("Filter: {predicate}"),
            LogicalPlan::Expand { input, nulled, .. } => {
                // The keys some set leaves out; the others are in all.
                let varying: std::collections::BTreeSet<usize> =
                    nulled.iter().flatten().copied().collect();
                let sets: Vec<String> = nulled
                    .iter()
                    .map(|set| {
                        let kept: Vec<&str> = varying
                            .iter()
                            .copied()
                            .filter(|c| !set.contains(c))
                            .map(|c| input.schema().field(c).name.as_str())
                            .collect();
                        format!("({})", kept.join(", "))
                    })
                    .collect();
                format!("Expand: a copy per grouping set [{}]", sets.join(", "))
            }
            LogicalPlan::OverAggregate {
                input,
                partition,
                time_column,
                frame,
                aggregates,
                ..
            } => {
                let in_schema = input.schema();
                let keys = names(in_schema, partition);
                let aggs: Vec<_> = aggregates
                    .iter()
                    .map(|a| match a.arg {
                        None => format!("{}(*)", a.func.name()),
                        Some(c) => format!("{}({})", a.func.name(), in_schema.field(c).name),
                    })
                    .collect();
                format!(
                    "OverAggregate: PARTITION BY [{}] ORDER BY {} {frame} aggregates=[{}]",
                    keys.join(", "),
                    in_schema.field(*time_column).name,
                    aggs.join(", ")
                )
            }
            LogicalPlan::WindowRank {
                input,
                partition,
                order,
                funcs,
                latest_first,
                limit,
                ..
            } => {
                let in_schema = input.schema();
                let keys = names(in_schema, partition);
                let order: Vec<_> = order
                    .iter()
                    .map(|key| {
                        let dir = if key.descending { " DESC" } else { "" };
                        // Only a place other than Flink's default is shown.
                        let nulls = match (key.descending, key.nulls_first) {
                            (false, false) => " NULLS LAST",
                            (true, true) => " NULLS FIRST",
                            _ => "",
                        };
                        format!("{}{dir}{nulls}", in_schema.field(key.column).name)
                    })
                    .collect();
                let funcs: Vec<_> = funcs.iter().map(|f| format!("{}()", f.name())).collect();
                let ties = match latest_first {
                    true => ", equal rowtimes: latest arrival first (deduplication)",
                    false => "",
                };
                let kept = match limit {
                    Some((k, n)) => format!(", keeps {} <= {n}", funcs[*k]),
                    None => String::new(),
                };
                format!(
                    "WindowRank: {} PARTITION BY [{}] ORDER BY [{}]{ties}{kept}",
                    funcs.join(", "),
                    keys.join(", "),
                    order.join(", ")
                )
            }
            LogicalPlan::WindowJoin {
                left,
                right,
                kind,
                keys,
                null_equal,
                condition,
                ..
            } => {
                let keys: Vec<_> = keys
                    .iter()
                    .zip(null_equal)
                    .map(|((l, r), null_equal)| {
                        format!(
                            "L.{} {} R.{}",
                            left.schema().field(*l).name,
                            if *null_equal {
                                "IS NOT DISTINCT FROM"
                            } else {
                                "="
                            },
                            right.schema().field(*r).name
                        )
                    })
                    .collect();
                let kind = match kind {
                    JoinType::Inner => "INNER",
                    JoinType::Left => "LEFT OUTER",
                    JoinType::Right => "RIGHT OUTER",
                    JoinType::Full => "FULL OUTER",
                    JoinType::Semi => "SEMI",
                    JoinType::Anti { null_aware: false } => "ANTI",
                    JoinType::Anti { null_aware: true } => "ANTI (NOT IN, NULL-aware)",
                };
                let window = left
                    .windowed_rows()
                    .map(|w| format!(" window={}", w.kind))
                    .unwrap_or_default();
                let rest = condition
                    .as_ref()
                    .map(|c| format!(" AND {c}"))
                    .unwrap_or_default();
                format!("WindowJoin: {kind}{window} ON [{}]{rest}", keys.join(", "))
            }
            LogicalPlan::Union { schema, .. } => {
                let cols: Vec<_> = schema.names().collect();
                format!(
                    "UnionAll: [{}] watermark=minimum of the inputs'",
                    cols.join(", ")
                )
            }
            LogicalPlan::Project { exprs, schema, .. } => {
                let items: Vec<_> = exprs
                    .iter()
                    .zip(&schema.fields)
                    .map(|(e, field)| {
                        let text = e.to_string();
                        if text == field.name {
                            text
                        } else {
                            format!("{text} AS {}", field.name)
                        }
                    })
                    .collect();
                format!("Project: {}", items.join(", "))
            }
            LogicalPlan::WindowTvf { input, window, .. } => format!(
                "WindowTvf: {} on {}",
                window.kind,
                input.schema().field(window.time_column).name
            ),
            LogicalPlan::WindowAggregate {
                input,
                window,
                keys,
                aggregates,
                ..
            } => {
                let in_schema = input.schema();
                let keys = names(in_schema, keys);
                let aggs: Vec<_> = aggregates
                    .iter()
                    .map(|a| {
                        let distinct = if a.distinct { "DISTINCT " } else { "" };
                        match a.arg {
                            None => format!("{}(*)", a.func.name()),
                            Some(c) => {
                                format!("{}({distinct}{})", a.func.name(), in_schema.field(c).name)
                            }
                        }
                    })
                    .collect();
                let on = match window.attached {
                    Some(kind) => format!("the {kind} windows its rows carry"),
                    None => format!(
                        "{} on {}",
                        window.kind,
                        in_schema.field(window.time_column).name
                    ),
                };
                format!(
                    "WindowAggregate: {on} keys=[{}] aggregates=[{}]",
                    keys.join(", "),
                    aggs.join(", ")
                )
            }
        }
    }

    fn fmt_indent(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        writeln!(f, "{}{}", "  ".repeat(depth), self.header())?;
        for input in self.inputs() {
            input.fmt_indent(f, depth + 1)?;
        }
        Ok(())
    }
}

/// The names of columns `columns` of `schema`.
fn names(schema: &Schema, columns: &[usize]) -> Vec<String> {
    columns
        .iter()
        .map(|c| schema.field(*c).name.clone())
        .collect()
}

impl fmt::Display for LogicalPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_indent(f, 0)
    }
}
