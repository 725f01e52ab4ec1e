//! What a window aggregation reads when its FROM is not a window TVF
//! itself: a subquery over a TVF, or rows that already carry their window
//! (another window aggregation's results, a window Top-N's or a window
//! join's rows).
//!
//! A subquery that only filters and projects the TVF's rows, without
//! reading the window columns, is moved under the TVF, as a WHERE beside
//! the TVF is (and as Flink plans it, SESSION included): the aggregation
//! then keeps its state per slice as over any TVF. Any other rows with a
//! window are aggregated per the window they carry (Flink's windows
//! attached to the input): each distinct `window_end` is a window of its
//! own that fires when the watermark reaches `window_end - 1`, with
//! `window_start` and `window_end` kept as they come.

use super::relation::Relation;
use crate::plan::{LogicalPlan, WindowSpec};
use tidemark_common::expr::Expr;
use tidemark_common::window::WindowKind;
use tidemark_common::{Field, Schema, Span, SqlType};

/// A window aggregation's input laid out as a window TVF's: the rows'
/// own columns, then `window_start`, `window_end` and `window_time` as
/// the last three columns of `schema`.
pub(super) struct WindowInput {
    /// What the aggregation reads: for a TVF, the rows before windows are
    /// assigned (`schema` without its last three columns); for attached
    /// windows, rows with every column of `schema`.
    pub input: LogicalPlan,
    pub window: WindowSpec,
    /// The columns the query's expressions bind against.
    pub schema: Schema,
    /// SESSION's `PARTITION BY` columns of `input`.
    pub partition: Vec<(usize, Span)>,
}

impl WindowInput {
    /// A window TVF in FROM.
    pub(super) fn of_tvf(relation: Relation) -> Option<WindowInput> {
        let schema = relation.plan.schema().clone();
        let (input, window) = relation.tvf?;
        Some(WindowInput {
            input,
            window,
            schema,
            partition: relation.partition,
        })
    }

    /// A subquery that filters and projects a window TVF's rows without
    /// reading its window columns, moved under the TVF.
    pub(super) fn pulled_up(plan: &LogicalPlan) -> Option<WindowInput> {
        let (base, window, columns) = pull_up(plan)?;
        let out = plan.schema();
        let mut exprs = Vec::new();
        let mut fields = Vec::new();
        let mut window_names: [Option<String>; 3] = [None, None, None];
        for (column, field) in columns.iter().zip(&out.fields) {
            match column {
                Column::Plain(e) => {
                    exprs.push(e.clone());
                    fields.push(Field::new(field.name.clone(), e.ty()));
                }
                // The same window column twice under two names: bound as
                // attached windows instead.
                Column::Window(j) if window_names[*j].is_some() => return None,
                Column::Window(j) => window_names[*j] = Some(field.name.clone()),
            }
        }
        // The rowtime the windows are assigned by, whether or not the
        // subquery kept it.
        let time = base.schema().field(window.time_column).clone();
        let time_column = exprs.len();
        exprs.push(Expr::column(
            window.time_column,
            time.name.clone(),
            time.ty.clone(),
        ));
        fields.push(Field {
            name: "$rowtime".into(),
            ..time
        });
        let mut partition = Vec::new();
        for p in &window.partition {
            let at = exprs.iter().position(|e| e.as_column() == Some(*p))?;
            partition.push((at, window.span));
        }
        let input_schema = Schema::new(fields.clone());
        let time_type = input_schema.field(time_column).ty.clone();
        for (j, (name, ty)) in [
            ("window_start", SqlType::Timestamp(3)),
            ("window_end", SqlType::Timestamp(3)),
            ("window_time", time_type),
        ]
        .into_iter()
        .enumerate()
        {
            let name = window_names[j]
                .clone()
                .unwrap_or_else(|| format!("${name}"));
            fields.push(Field::new(name, ty).rowtime(j == 2));
        }
        Some(WindowInput {
            input: LogicalPlan::Project {
                input: Box::new(base),
                exprs,
                schema: input_schema,
            },
            window: WindowSpec {
                time_column,
                partition: partition.iter().map(|(c, _)| *c).collect(),
                ..window
            },
            schema: Schema::new(fields),
            partition,
        })
    }

    /// Rows that carry their window, aggregated per that window: their
    /// columns reordered so that the window's come last, with
    /// `window_time` computed from `window_end` where it was not kept.
    pub(super) fn attached(plan: LogicalPlan, span: Span) -> Option<WindowInput> {
        let rows = plan.windowed_rows()?;
        let schema = plan.schema().clone();
        let column = |i: usize| {
            let f = schema.field(i);
            Expr::column(i, f.name.clone(), f.ty.clone())
        };
        let is_window = |i: usize| i == rows.start || i == rows.end || Some(i) == rows.time;
        let mut exprs = Vec::new();
        let mut fields = Vec::new();
        for (i, f) in schema.fields.iter().enumerate() {
            if !is_window(i) {
                exprs.push(column(i));
                fields.push(Field::new(f.name.clone(), f.ty.clone()));
            }
        }
        let time = match rows.time {
            Some(t) => column(t),
            None => {
                let end = column(rows.end);
                let end = match rows.time_type {
                    SqlType::Timestamp(_) => end,
                    // window_end is on the session zone's wall clock.
                    ref other => Expr::Cast {
                        expr: Box::new(end),
                        to: other.clone(),
                        try_cast: false,
                    },
                };
                Expr::TimestampAdd {
                    expr: Box::new(end),
                    millis: -1,
                }
            }
        };
        let time_name = rows.time.map_or_else(
            || "$window_time".to_string(),
            |t| schema.field(t).name.clone(),
        );
        for (e, name, rowtime) in [
            (
                column(rows.start),
                schema.field(rows.start).name.clone(),
                false,
            ),
            (column(rows.end), schema.field(rows.end).name.clone(), false),
            (time, time_name, true),
        ] {
            fields.push(Field::new(name, e.ty()).rowtime(rowtime));
            exprs.push(e);
        }
        let time_column = exprs.len() - 1;
        let schema = Schema::new(fields);
        Some(WindowInput {
            input: LogicalPlan::Project {
                input: Box::new(plan),
                exprs,
                schema: schema.clone(),
            },
            window: WindowSpec {
                // One window per window_end: it fires when the watermark
                // reaches window_end - 1, its last instant.
                kind: WindowKind::Tumble { size: 1, offset: 0 },
                time_column,
                partition: vec![],
                span,
                legacy: false,
                attached: Some(rows.kind),
            },
            schema,
            partition: vec![],
        })
    }
}

/// A column of a subquery over a window TVF: an expression over the TVF's
/// input, or one of its window columns (0: start, 1: end, 2: time).
#[derive(Clone)]
enum Column {
    Plain(Expr),
    Window(usize),
}

/// `plan` as filters and projections of a window TVF's input, then the
/// TVF: the input with the filters, the window, and each column of `plan`.
/// None when a filter or a computed column reads a window column.
fn pull_up(plan: &LogicalPlan) -> Option<(LogicalPlan, WindowSpec, Vec<Column>)> {
    match plan {
        LogicalPlan::WindowTvf { input, window, .. } => {
            let n = input.schema().len();
            let mut columns: Vec<Column> = input
                .schema()
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| Column::Plain(Expr::column(i, f.name.clone(), f.ty.clone())))
                .collect();
            columns.extend((0..3).map(Column::Window));
            debug_assert_eq!(columns.len(), n + 3);
            Some(((**input).clone(), window.clone(), columns))
        }
        LogicalPlan::Filter { input, predicate } => {
            let (base, window, columns) = pull_up(input)?;
            let predicate = over_input(predicate, &columns)?;
            let base = LogicalPlan::Filter {
                input: Box::new(base),
                predicate,
            };
            Some((base, window, columns))
        }
        LogicalPlan::Project { input, exprs, .. } => {
            let (base, window, columns) = pull_up(input)?;
            let projected = exprs
                .iter()
                .map(|e| match e.as_column().map(|c| &columns[c]) {
                    Some(Column::Window(j)) => Some(Column::Window(*j)),
                    _ => over_input(e, &columns).map(Column::Plain),
                })
                .collect::<Option<Vec<_>>>()?;
            Some((base, window, projected))
        }
        _ => None,
    }
}

/// `e`, which reads `columns`, as an expression over the TVF's input;
/// None when it reads a window column.
fn over_input(e: &Expr, columns: &[Column]) -> Option<Expr> {
    let mut reads_window = false;
    e.visit_columns(&mut |c| {
        reads_window |= matches!(columns.get(c), Some(Column::Window(_)) | None)
    });
    if reads_window {
        return None;
    }
    Some(e.clone().substitute_columns(&mut |c| match &columns[c] {
        Column::Plain(p) => Some(p.clone()),
        Column::Window(_) => None,
    }))
}

#[cfg(test)]
mod tests {
    use crate::plan::LogicalPlan;
    use crate::{parse_script, Catalog, QueryBinder, Statement};
    use tidemark_common::{Error, Result};

    const TABLE: &str = "CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), \
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = 'x.csv', 'format' = 'csv');\n";

    /// The plan of `query` over table `t`.
    fn plan(query: &str) -> Result<LogicalPlan> {
        let statements = parse_script(&format!("{TABLE}{query}"))?;
        let mut catalog = Catalog::new(tidemark_engine::declarations());
        for s in &statements {
            match s {
                Statement::CreateTable(c) => catalog.create_table(c, std::path::Path::new("."))?,
                Statement::Query { query, span } => {
                    return QueryBinder::new(&catalog).bind_query(query, *span)
                }
                _ => {}
            }
        }
        Err(Error::Internal("no query".into()))
    }

    /// The top window aggregation of `plan`, and how many there are.
    fn aggregations(plan: &LogicalPlan) -> Vec<&LogicalPlan> {
        let mut found: Vec<&LogicalPlan> =
            plan.inputs().into_iter().flat_map(aggregations).collect();
        if let LogicalPlan::WindowAggregate { .. } = plan {
            found.insert(0, plan);
        }
        found
    }

    #[test]
    fn a_filtered_tvf_subquery_is_aggregated_as_the_tvf() -> Result<()> {
        let plan = plan(
            "SELECT window_start, window_end, k, SUM(v) FROM (SELECT k, v * 2 AS v, window_start, window_end \
             FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND)) WHERE v > 3) \
             GROUP BY window_start, window_end, k",
        )?;
        let found = aggregations(&plan);
        let [LogicalPlan::WindowAggregate { window, input, .. }] = found.as_slice() else {
            panic!("one aggregation expected: {plan}");
        };
        assert!(window.attached.is_none(), "{plan}");
        assert_eq!(window.kind.to_string(), "HOP(slide=1 s, size=4 s)");
        // The filter and the projection run before windows are assigned.
        let text = input.to_string();
        assert!(text.contains("Filter: (v > 3)"), "{text}");
        assert!(!text.contains("WindowTvf"), "{text}");
        Ok(())
    }

    #[test]
    fn results_of_a_window_are_aggregated_per_the_window_they_carry() -> Result<()> {
        let plan = plan(
            "SELECT window_start, window_end, COUNT(*), MAX(c) FROM (SELECT window_start, window_end, k, COUNT(*) AS c \
             FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k) \
             WHERE c > 1 GROUP BY window_start, window_end",
        )?;
        let found = aggregations(&plan);
        let [LogicalPlan::WindowAggregate { window, keys, .. }, LogicalPlan::WindowAggregate { window: below, .. }] =
            found.as_slice()
        else {
            panic!("two aggregations expected: {plan}");
        };
        assert_eq!(window.attached, Some(below.kind));
        // window_start and window_end are the keys: the results' own.
        assert_eq!(keys.len(), 2);
        assert_eq!(
            plan.windowed_rows().map(|w| (w.start, w.end)),
            Some((0, 1)),
            "{plan}"
        );
        Ok(())
    }

    #[test]
    fn grouping_sets_over_attached_windows_are_refused() {
        let err = plan(
            "SELECT window_start, window_end, k, COUNT(*) FROM (SELECT window_start, window_end, k, v, COUNT(*) AS c \
             FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k, v) \
             GROUP BY window_start, window_end, ROLLUP (k)",
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(
            err.contains("not supported yet on the windows of another window's results"),
            "{err}"
        );
    }
}
