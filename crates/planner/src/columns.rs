//! Which columns each step of a plan reads, from the sink down to the
//! tables: a table's physical columns that no step reads are left
//! undecoded by its format (projection push-down, as Flink's file and
//! Kafka sources do), and `EXPLAIN` shows which those are.
//!
//! The walk is conservative: a step needs every column its expressions
//! name, whether or not the step above uses what it computes from them
//! (so no expression is ever evaluated over a column left undecoded), and
//! every input column a step passes on that the step above needs.

use tidemark_common::catalog::{ColumnKind, TableDef};
use tidemark_common::expr::{AggregateCall, Expr};
use tidemark_sql::LogicalPlan;

/// Column flags of one node's output (or input): `true` where needed.
pub(crate) type Needed = Vec<bool>;

/// Every column of `plan`'s output: what a sink or the screen takes.
pub(crate) fn all_of(plan: &LogicalPlan) -> Needed {
    vec![true; plan.schema().fields.len()]
}

/// What each input of `plan` (in [`LogicalPlan::inputs`] order) must
/// give, for `needed` of `plan`'s own columns.
pub(crate) fn needed_by_inputs(plan: &LogicalPlan, needed: &[bool]) -> Vec<Needed> {
    let width = |p: &LogicalPlan| p.schema().fields.len();
    // Input columns passed on as the node's first columns.
    let passed = |input: &LogicalPlan| -> Needed {
        (0..width(input))
            .map(|c| needed.get(c).copied().unwrap_or(true))
            .collect()
    };
    match plan {
        LogicalPlan::Scan { .. } => Vec::new(),
        LogicalPlan::Filter { input, predicate } => {
            let mut wants = passed(input);
            mark_expr(&mut wants, predicate);
            vec![wants]
        }
        LogicalPlan::Project { input, exprs, .. } => {
            let mut wants = vec![false; width(input)];
            for expr in exprs {
                mark_expr(&mut wants, expr);
            }
            vec![wants]
        }
        LogicalPlan::Expand { input, .. } => vec![passed(input)],
        LogicalPlan::WindowTvf { input, window, .. } => {
            let mut wants = passed(input);
            mark(&mut wants, window.time_column);
            window.partition.iter().for_each(|c| mark(&mut wants, *c));
            vec![wants]
        }
        LogicalPlan::OverAggregate {
            input,
            partition,
            time_column,
            aggregates,
            ..
        } => {
            let mut wants = passed(input);
            mark(&mut wants, *time_column);
            partition.iter().for_each(|c| mark(&mut wants, *c));
            mark_calls(&mut wants, aggregates);
            vec![wants]
        }
        LogicalPlan::WindowRank {
            input,
            partition,
            order,
            window_end,
            ..
        } => {
            let mut wants = passed(input);
            mark(&mut wants, *window_end);
            partition.iter().for_each(|c| mark(&mut wants, *c));
            order.iter().for_each(|k| mark(&mut wants, k.column));
            vec![wants]
        }
        LogicalPlan::WindowJoin {
            left,
            right,
            keys,
            condition,
            window_ends,
            ..
        } => {
            let left_width = width(left);
            let mut both: Needed = (0..left_width + width(right))
                .map(|c| needed.get(c).copied().unwrap_or(true))
                .collect();
            if let Some(condition) = condition {
                mark_expr(&mut both, condition);
            }
            let mut right_wants = both.split_off(left_width);
            let mut left_wants = both;
            for (l, r) in keys {
                mark(&mut left_wants, *l);
                mark(&mut right_wants, *r);
            }
            mark(&mut left_wants, window_ends.0);
            mark(&mut right_wants, window_ends.1);
            // The join reads each side's window_start too.
            for (side, wants) in [(left, &mut left_wants), (right, &mut right_wants)] {
                if let Some(rows) = side.windowed_rows() {
                    mark(wants, rows.start);
                }
            }
            vec![left_wants, right_wants]
        }
        LogicalPlan::Union { inputs, .. } => inputs.iter().map(passed).collect(),
        LogicalPlan::WindowAggregate {
            input,
            window,
            keys,
            aggregates,
            ..
        } => {
            let mut wants = vec![false; width(input)];
            mark(&mut wants, window.time_column);
            window.partition.iter().for_each(|c| mark(&mut wants, *c));
            keys.iter().for_each(|c| mark(&mut wants, *c));
            mark_calls(&mut wants, aggregates);
            vec![wants]
        }
    }
}

/// For each physical column of `table` (in [`TableDef::physical_columns`]
/// order), whether its read leaves it undecoded when the query needs
/// `needed` of the table's columns: no step reads it, no computed column
/// is made from it, the watermark is not, and its connector decodes text
/// it can skip ([`tidemark_engine::undecoded`]).
pub(crate) fn unread_physical(table: &TableDef, needed: &[bool]) -> Vec<bool> {
    let mut wants: Needed = (0..table.schema.fields.len())
        .map(|c| needed.get(c).copied().unwrap_or(true))
        .collect();
    // Computed columns are made from the read columns whether or not a
    // step takes them (their expressions index the read columns).
    let read = table.read_columns();
    for kind in &table.kinds {
        if let ColumnKind::Computed(expr) = kind {
            expr.visit_columns(&mut |at| match read.get(at) {
                Some(column) => mark(&mut wants, *column),
                None => wants.iter_mut().for_each(|w| *w = true),
            });
        }
    }
    if let Some(watermark) = &table.watermark {
        mark(&mut wants, watermark.column);
        mark_expr(&mut wants, &watermark.expr);
    }
    let unread: Vec<bool> = table
        .physical_columns()
        .into_iter()
        .map(|c| !wants[c])
        .collect();
    tidemark_engine::undecoded(table, &unread)
}

/// The names of the physical columns `unread` flags, when there are any.
pub(crate) fn unread_names<'t>(table: &'t TableDef, unread: &[bool]) -> Vec<&'t str> {
    table
        .physical_columns()
        .into_iter()
        .zip(unread)
        .filter(|(_, skip)| **skip)
        .map(|(c, _)| table.schema.field(c).name.as_str())
        .collect()
}

fn mark(wants: &mut [bool], column: usize) {
    match wants.get_mut(column) {
        Some(w) => *w = true,
        // A column out of range is a plan this walk does not know: read
        // every column rather than guess.
        None => wants.iter_mut().for_each(|w| *w = true),
    }
}

fn mark_expr(wants: &mut [bool], expr: &Expr) {
    expr.visit_columns(&mut |c| mark(wants, c));
}

fn mark_calls(wants: &mut [bool], calls: &[AggregateCall]) {
    for call in calls {
        if let Some(arg) = call.arg {
            mark(wants, arg);
        }
        if let Some(default) = call.lag_default {
            mark(wants, default);
        }
    }
}
