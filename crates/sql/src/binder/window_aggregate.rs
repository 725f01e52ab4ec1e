//! GROUP BY over a window TVF: the keys and window columns it must group
//! by, SESSION's partition keys, the aggregate calls of the SELECT list and
//! HAVING, and the plan that projects the input, aggregates per window and
//! projects the SELECT list.

use super::relation::Relation;
use super::select::{filter, select_list};
use super::QueryBinder;
use crate::expr_binder::{spanned, AggregateScope, ExprBinder};
use crate::plan::{LogicalPlan, WindowSpec};
use sqlparser::ast;
use tidemark_common::expr::{AggregateCall, Expr};
use tidemark_common::{Error, Field, Result, Schema, Span, SqlType};

impl QueryBinder<'_> {
    pub(super) fn bind_window_aggregate(
        &mut self,
        select: &ast::Select,
        relation: Relation,
        group_exprs: &[ast::Expr],
        span: Span,
    ) -> Result<LogicalPlan> {
        let group_span = group_exprs
            .iter()
            .map(spanned)
            .fold(Span::default(), Span::union);
        let Some((input, window)) = relation.tvf else {
            if let LogicalPlan::WindowJoin { .. } = relation.plan {
                return Err(Error::plan(
                    "aggregating a window join's rows is not supported yet: they have no rowtime to window on",
                    if group_span.is_known() { group_span } else { span },
                ));
            }
            return Err(Error::plan(
                "aggregation without a window is not supported on a stream",
                if group_span.is_known() { group_span } else { span },
            )
            .with_hint("aggregate over a window TVF: FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, ..."));
        };
        let tvf_schema = relation.plan.schema().clone();
        let n_in = input.schema().len();
        let (ws, we, wt) = (n_in, n_in + 1, n_in + 2);

        // WHERE over a TVF may only read the TVF's input columns: it then
        // filters the input before windows are assigned.
        let mut input = input;
        if let Some(w) = &select.selection {
            let predicate = ExprBinder::new(&tvf_schema, "WHERE").bind(w)?;
            if reads_window(&predicate, n_in) {
                return Err(Error::plan(
                    "a WHERE before a window aggregation cannot read window_start, window_end or window_time",
                    spanned(w),
                )
                .with_hint("filter on the aggregated result with HAVING"));
            }
            input = filter(input, predicate, spanned(w))?;
        }

        let mut keys: Vec<(Expr, Span)> = Vec::new();
        let mut window_columns = [false; 3];
        for g in group_exprs {
            let bound = ExprBinder::new(&tvf_schema, "GROUP BY").bind(g)?;
            match bound.as_column() {
                Some(c) if c >= n_in => window_columns[c - n_in] = true,
                _ => {
                    if reads_window(&bound, n_in) {
                        return Err(Error::plan(
                            "group by window_start, window_end or window_time as plain columns",
                            spanned(g),
                        ));
                    }
                    if !keys.iter().any(|(k, _)| *k == bound) {
                        keys.push((bound, spanned(g)));
                    }
                }
            }
        }
        if !(window_columns[0] && window_columns[1]) {
            return Err(Error::plan(
                "a window aggregation must GROUP BY window_start, window_end",
                if group_span.is_known() {
                    group_span
                } else {
                    span
                },
            )
            .with_hint("add window_start, window_end to GROUP BY"));
        }

        // A session is kept per group key; PARTITION BY names (some of)
        // those keys, as Flink requires.
        for (column, column_span) in &relation.partition {
            if !keys.iter().any(|(k, _)| k.as_column() == Some(*column)) {
                return Err(Error::plan(
                    format!(
                        "SESSION is partitioned by '{}', which the query does not GROUP BY",
                        tvf_schema.field(*column).name
                    ),
                    *column_span,
                )
                .with_hint("group by the PARTITION BY columns"));
            }
        }

        // Output of the aggregation: keys, window columns, aggregates.
        let n_keys = keys.len();
        let mut groups: Vec<(Expr, Expr)> = Vec::new();
        let mut out_fields = Vec::new();
        for (i, (k, _)) in keys.iter().enumerate() {
            let name = match k {
                Expr::Column { name, .. } => name.clone(),
                _ => format!("$key{i}"),
            };
            out_fields.push(Field::new(name.clone(), k.ty()));
            groups.push((k.clone(), Expr::column(i, name, k.ty())));
        }
        let time_ty = tvf_schema.field(wt).ty.clone();
        for (j, (col, name, ty)) in [
            (ws, "window_start", SqlType::Timestamp(3)),
            (we, "window_end", SqlType::Timestamp(3)),
            (wt, "window_time", time_ty),
        ]
        .into_iter()
        .enumerate()
        {
            // window_time is a rowtime attribute of the result only when it
            // is not grouped on explicitly; either way it can be read.
            out_fields.push(Field::new(name, ty.clone()).rowtime(j == 2));
            groups.push((
                Expr::column(col, name, ty.clone()),
                Expr::column(n_keys + j, name, ty),
            ));
        }
        let mut scope = AggregateScope {
            groups,
            calls: Vec::new(),
            first_aggregate_column: n_keys + 3,
        };

        let having = match &select.having {
            None => None,
            Some(h) => {
                let mut binder = ExprBinder::new(&tvf_schema, "HAVING");
                binder.aggregate = Some(&mut scope);
                Some((binder.bind(h)?, spanned(h)))
            }
        };
        let (select_exprs, select_fields) = {
            let output_columns = Schema::new(out_fields.clone());
            let mut binder = ExprBinder::new(&tvf_schema, "SELECT");
            binder.aggregate = Some(&mut scope);
            select_list(
                &select.projection,
                &tvf_schema,
                &output_columns,
                &mut binder,
            )?
        };

        let computed: Vec<_> = scope.calls.iter().map(|c| c.computed()).collect();
        for (call, (_, arg)) in scope.calls.iter().zip(&computed) {
            if arg.as_ref().is_some_and(|a| reads_window(a, n_in)) {
                return Err(Error::plan(
                    format!(
                        "{} cannot read window_start, window_end or window_time: they are the same for every row of a window",
                        call.func.name()
                    ),
                    span,
                ));
            }
        }

        // Project the aggregation's input: the rowtime, the keys, then one
        // column per distinct aggregate argument.
        let mut pre_exprs: Vec<Expr> = vec![input.schema().field(window.time_column).ty.clone()]
            .into_iter()
            .map(|ty| {
                Expr::column(
                    window.time_column,
                    input.schema().field(window.time_column).name.clone(),
                    ty,
                )
            })
            .collect();
        let mut pre_fields = vec![input.schema().field(window.time_column).clone()];
        for (k, _) in &keys {
            pre_exprs.push(k.clone());
            pre_fields.push(Field::new(k.to_string(), k.ty()));
        }
        let mut aggregates = Vec::new();
        for (call, (func, computed_arg)) in scope.calls.iter().zip(computed) {
            let arg = computed_arg
                .as_ref()
                .map(|a| match pre_exprs.iter().position(|e| e == a) {
                    Some(i) => i,
                    None => {
                        pre_exprs.push(a.clone());
                        pre_fields.push(Field::new(a.to_string(), a.ty()));
                        pre_exprs.len() - 1
                    }
                });
            aggregates.push(AggregateCall {
                func,
                arg,
                arg_type: computed_arg.as_ref().map(Expr::ty),
                distinct: call.distinct,
                separator: call.separator.clone(),
                offset: 0,
                lag_default: None,
                ty: call.ty.clone(),
            });
            out_fields.push(Field::new(call.to_string(), call.ty.clone()));
        }
        let pre = LogicalPlan::Project {
            input: Box::new(input),
            exprs: pre_exprs,
            schema: Schema::new(pre_fields),
        };
        let mut plan = LogicalPlan::WindowAggregate {
            input: Box::new(pre),
            window: WindowSpec {
                kind: window.kind,
                time_column: 0,
                partition: vec![],
                span: window.span,
                legacy: window.legacy,
            },
            keys: (1..=n_keys).collect(),
            aggregates,
            schema: Schema::new(out_fields),
        };
        if let Some((predicate, h_span)) = having {
            plan = filter(plan, predicate, h_span)?;
        }
        Ok(LogicalPlan::Project {
            input: Box::new(plan),
            exprs: select_exprs,
            schema: Schema::new(select_fields),
        })
    }
}

/// Whether `e` reads window_start, window_end or window_time: the columns
/// a window TVF puts after its `n_in` input columns.
fn reads_window(e: &Expr, n_in: usize) -> bool {
    let mut reads = false;
    e.visit_columns(&mut |c| reads |= c >= n_in);
    reads
}
