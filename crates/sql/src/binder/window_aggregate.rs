//! GROUP BY over a window TVF: the keys and window columns it must group
//! by, SESSION's partition keys, the aggregate calls of the SELECT list and
//! HAVING, and the plan that projects the input, aggregates per window and
//! projects the SELECT list.

use super::grouping_sets::{grouping_sets, GroupingIds};
use super::relation::Relation;
use super::select::{filter, select_list};
use super::windowed_input::WindowInput;
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
        let at = if group_span.is_known() {
            group_span
        } else {
            span
        };
        let full_join = full_join_below(&relation.plan);
        // A WHERE that reads the window columns filters the rows with
        // their windows, which are then aggregated per the window each
        // carries; any other WHERE filters the rows before windows are
        // assigned.
        let mut relation = relation;
        let mut filtered = false;
        if let (Some(w), Some(rows)) = (&select.selection, relation.plan.windowed_rows()) {
            let predicate = ExprBinder::new(relation.plan.schema(), "WHERE").bind(w)?;
            let mut reads = false;
            predicate.visit_columns(&mut |c| {
                reads |= c == rows.start || c == rows.end || Some(c) == rows.time
            });
            if reads {
                relation = Relation::plain(filter(relation.plan, predicate, spanned(w))?);
                filtered = true;
            }
        }
        let source = if relation.tvf.is_some() {
            WindowInput::of_tvf(relation)
        } else {
            WindowInput::pulled_up(&relation.plan)
                .or_else(|| WindowInput::attached(relation.plan, at))
        };
        let Some(WindowInput {
            input,
            window,
            schema: tvf_schema,
            partition,
        }) = source
        else {
            let err = Error::plan(
                "aggregation without a window is not supported on a stream",
                at,
            );
            return Err(if full_join {
                err.with_hint("a FULL window join's rows carry no window of their own (either side's window_start may be NULL): aggregate an INNER, LEFT or RIGHT window join's rows by its window_start, window_end")
            } else {
                err.with_hint("aggregate over a window TVF: FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, ...")
            });
        };
        let attached = window.attached.is_some();
        let n_in = tvf_schema.len() - 3;
        let (ws, we, wt) = (n_in, n_in + 1, n_in + 2);

        // WHERE over a TVF may only read the TVF's input columns: it then
        // filters the input before windows are assigned. Rows that carry
        // their window are filtered as they are.
        let mut input = input;
        if let Some(w) = select.selection.as_ref().filter(|_| !filtered) {
            let predicate = ExprBinder::new(&tvf_schema, "WHERE").bind(w)?;
            if !attached && reads_window(&predicate, n_in) {
                // Rows whose window_start or window_end was left out.
                return Err(Error::plan(
                    "a WHERE before a window aggregation cannot read window_start, window_end or window_time here: the rows do not keep both window_start and window_end",
                    spanned(w),
                )
                .with_hint("select both window_start and window_end in the subquery, or filter on the aggregated result with HAVING"));
            }
            input = filter(input, predicate, spanned(w))?;
        }

        // The keys of every grouping set, and which of them each set has.
        let sets = grouping_sets(group_exprs)?;
        let mut keys: Vec<(Expr, Span)> = Vec::new();
        let mut present: Vec<Vec<usize>> = Vec::new();
        let mut set_windows: Vec<[bool; 3]> = Vec::new();
        for set in &sets {
            let mut window_columns = [false; 3];
            let mut has = Vec::new();
            for g in set {
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
                        let index = match keys.iter().position(|(k, _)| *k == bound) {
                            Some(i) => i,
                            None => {
                                keys.push((bound, spanned(g)));
                                keys.len() - 1
                            }
                        };
                        has.push(index);
                    }
                }
            }
            present.push(has);
            set_windows.push(window_columns);
        }
        let window_columns = set_windows[0];
        let several_sets = sets.len() > 1;
        if several_sets
            && !set_windows
                .iter()
                .all(|w| w[0] && w[1] && w[2] == window_columns[2])
        {
            return Err(Error::plan(
                "a grouping set without window_start and window_end (or with window_time in some sets only) would aggregate without a window, which is not supported on a stream",
                group_span,
            )
            .with_hint("put the window columns outside the sets: GROUP BY window_start, window_end, GROUPING SETS (...)"));
        }
        if several_sets && attached {
            return Err(Error::plan(
                "GROUPING SETS, ROLLUP and CUBE are not supported yet on the windows of another window's results",
                group_span,
            )
            .with_hint("window the first aggregation's window_time again: FROM TABLE(TUMBLE(TABLE first_view, DESCRIPTOR(window_time), INTERVAL ...)) GROUP BY window_start, window_end, GROUPING SETS (...)"));
        }
        if several_sets
            && (!partition.is_empty()
                || matches!(
                    window.kind,
                    tidemark_common::window::WindowKind::Session { .. }
                ))
        {
            return Err(Error::plan(
                "GROUPING SETS, ROLLUP and CUBE are not supported on a SESSION window",
                group_span,
            )
            .with_hint("aggregate each grouping in its own query and UNION ALL them"));
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
        for (column, column_span) in &partition {
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

        // Rows aggregated per the window they carry: their window_start
        // and window_end are the last keys, and the aggregation's own
        // 1 ms windows are only when each fires.
        if attached {
            for c in [ws, we] {
                keys.push((
                    Expr::column(c, tvf_schema.field(c).name.clone(), SqlType::Timestamp(3)),
                    at,
                ));
            }
        }

        // Output of the aggregation: keys, the grouping set's number when
        // there are several, window columns, aggregates.
        let n_keys = keys.len();
        let n_group = n_keys + usize::from(several_sets);
        let mut groups: Vec<(Expr, Expr)> = Vec::new();
        let mut out_fields = Vec::new();
        for (i, (k, _)) in keys.iter().enumerate() {
            let name = match k {
                Expr::Column { name, .. } => name.clone(),
                _ => format!("$key{i}"),
            };
            let mut field = Field::new(name.clone(), k.ty());
            field.nullable |= several_sets;
            out_fields.push(field);
            groups.push((k.clone(), Expr::column(i, name, k.ty())));
        }
        let grouping = several_sets.then(|| GroupingIds {
            keys: keys.iter().map(|(k, _)| k.clone()).collect(),
            present: present
                .iter()
                .map(|has| (0..n_keys).map(|k| has.contains(&k)).collect())
                .collect(),
            set_column: Expr::column(n_keys, GROUPING_SET, SqlType::BigInt),
        });
        if several_sets {
            out_fields.push(Field::new(GROUPING_SET, SqlType::BigInt));
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
            if attached && j < 2 {
                // The keys above are the window's bounds.
                out_fields.push(Field::new(format!("${name}"), ty));
                continue;
            }
            out_fields.push(Field::new(name, ty.clone()).rowtime(j == 2));
            groups.push((
                Expr::column(col, name, ty.clone()),
                Expr::column(n_group + j, name, ty),
            ));
        }
        let mut scope = AggregateScope {
            groups,
            calls: Vec::new(),
            first_aggregate_column: n_group + 3,
            grouping,
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
        // With grouping sets the key columns are NULL where a set leaves
        // them out, so an argument equal to a key gets its own column.
        let shared_from = if several_sets { 1 + n_keys } else { 0 };
        let mut aggregates = Vec::new();
        for (call, (func, computed_arg)) in scope.calls.iter().zip(computed) {
            let arg = computed_arg.as_ref().map(|a| {
                match pre_exprs[shared_from..].iter().position(|e| e == a) {
                    Some(i) => shared_from + i,
                    None => {
                        pre_exprs.push(a.clone());
                        pre_fields.push(Field::new(a.to_string(), a.ty()));
                        pre_exprs.len() - 1
                    }
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
        let pre_width = pre_exprs.len();
        let mut pre = LogicalPlan::Project {
            input: Box::new(input),
            exprs: pre_exprs,
            schema: Schema::new(pre_fields.clone()),
        };
        let mut agg_keys: Vec<usize> = (1..=n_keys).collect();
        if several_sets {
            let mut fields = pre_fields;
            for f in &mut fields[1..=n_keys] {
                f.nullable = true;
            }
            fields.push(Field::new(GROUPING_SET, SqlType::BigInt));
            pre = LogicalPlan::Expand {
                input: Box::new(pre),
                nulled: present
                    .iter()
                    .map(|has| {
                        (0..n_keys)
                            .filter(|k| !has.contains(k))
                            .map(|k| 1 + k)
                            .collect()
                    })
                    .collect(),
                schema: Schema::new(fields),
            };
            agg_keys.push(pre_width);
        }
        let mut plan = LogicalPlan::WindowAggregate {
            input: Box::new(pre),
            window: WindowSpec {
                kind: window.kind,
                time_column: 0,
                partition: vec![],
                span: window.span,
                legacy: window.legacy,
                attached: window.attached,
            },
            keys: agg_keys,
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

/// Whether `plan` is a FULL window join's rows, under projections and
/// filters.
fn full_join_below(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::WindowJoin { kind, .. } => {
            matches!(kind, tidemark_common::window::JoinType::Full)
        }
        LogicalPlan::Project { input, .. } | LogicalPlan::Filter { input, .. } => {
            full_join_below(input)
        }
        _ => false,
    }
}

/// The name of the column holding a row's grouping set number.
const GROUPING_SET: &str = "$grouping_set";

/// Whether `e` reads window_start, window_end or window_time: the columns
/// a window TVF puts after its `n_in` input columns.
fn reads_window(e: &Expr, n_in: usize) -> bool {
    let mut reads = false;
    e.visit_columns(&mut |c| reads |= c >= n_in);
    reads
}
