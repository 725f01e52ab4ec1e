//! Binding a SELECT with OVER aggregates: the one window they share
//! (inline or named in `WINDOW w AS (...)`), its partition, its order (the
//! rowtime, ascending) and its frame, into an `OverAggregate` under the
//! select list.

use crate::binder::{filter, select_list};
use crate::expr_binder::{interval_millis, spanned, BoundAggregate, ExprBinder};
use crate::plan::{LogicalPlan, OrderKey};
use crate::statement::span_of;
use datafusion_common::ScalarValue;
use sqlparser::ast;
use tidemark_common::expr::{AggregateCall, AggregateFunction, BinaryOp, Expr};
use tidemark_common::window::{FrameUnits, OverFrame};
use tidemark_common::{Error, Field, Result, Schema, Span, SqlType};

/// `SELECT ..., agg(x) OVER w, ... FROM input [WHERE ...] [WINDOW w AS (...)]`.
pub(crate) fn bind_over(
    select: &ast::Select,
    input: LogicalPlan,
    calls: Vec<(ast::Function, ast::Expr)>,
    span: Span,
) -> Result<LogicalPlan> {
    let grouped = match &select.group_by {
        ast::GroupByExpr::Expressions(exprs, _) => !exprs.is_empty(),
        ast::GroupByExpr::All(_) => true,
    };
    if grouped || select.having.is_some() {
        return Err(Error::plan(
            "OVER aggregates and GROUP BY in one SELECT are not supported",
            span,
        )
        .with_hint("aggregate in a view first, then apply the OVER window to it"));
    }
    let mut plan = input;
    if let Some(w) = &select.selection {
        let predicate = ExprBinder::new(plan.schema(), "WHERE").bind(w)?;
        plan = filter(plan, predicate, spanned(w))?;
    }
    let input_schema = plan.schema().clone();
    if let Some(ranked) = window_rank(select, &plan, &calls)? {
        return finish_window_rank(select, plan, ranked, &calls);
    }

    // The one window of all the calls, compared as bound (a default frame
    // equals the one it stands for).
    let mut window: Option<(Vec<usize>, usize, OverFrame)> = None;
    for (call, e) in &calls {
        let spec = resolve_window(call, select)?;
        let at = spanned(e);
        let bound = (
            partition_columns(&spec, &input_schema)?,
            order_column(&spec, &input_schema, at)?,
            frame(&spec, at)?,
        );
        match &window {
            None => window = Some(bound),
            Some(first) if *first == bound => {}
            Some(_) => {
                return Err(Error::plan(
                    "different OVER windows in one SELECT are not supported: each needs its own ordering of the rows",
                    at,
                )
                .with_hint("give every aggregate the same window (a named WINDOW helps), or use one query per window"))
            }
        }
    }
    let Some((partition, time_column, frame)) = window else {
        return Err(Error::Internal("OVER binding without calls".into()));
    };

    // Arguments that are not plain columns are computed first, after the
    // input's own columns.
    let mut pre_exprs: Vec<Expr> = input_schema
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| Expr::column(i, f.name.clone(), f.ty.clone()))
        .collect();
    let mut pre_fields = input_schema.fields.clone();
    let binder = ExprBinder::new(&input_schema, "an OVER aggregate");
    let mut aggregates: Vec<AggregateCall> = Vec::new();
    let mut bound_calls = Vec::new();
    for (call, e) in &calls {
        let name = call.name.to_string().to_ascii_uppercase();
        match name.as_str() {
            "COUNT" | "SUM" | "MIN" | "MAX" | "AVG" | "FIRST_VALUE" | "LAST_VALUE" | "LISTAGG" => {}
            "ROW_NUMBER" | "RANK" | "DENSE_RANK" | "LAG" => {}
            "LEAD" => {
                return Err(Error::plan(
                    "LEAD is not supported on a stream: it would wait for rows that have not come (as in Flink)",
                    spanned(e),
                ))
            }
            _ => {
                return Err(Error::plan(
                    format!("{name} is not an aggregate function, so it takes no OVER"),
                    spanned(e),
                ))
            }
        }
        let (bound, offset, lag_default) = match ranking(call, e, &binder, select)? {
            Some(ranked) => ranked,
            None => (binder.bound_aggregate(call, e)?, 0, None),
        };
        if matches!(bound.func, AggregateFunction::ListAgg) {
            return Err(Error::plan(
                format!("{} is not supported in an OVER window", bound),
                spanned(e),
            ));
        }
        if bound.filter.is_some() {
            return Err(Error::plan(
                format!("{bound} is not supported with OVER (as in Flink)"),
                spanned(e),
            )
            .with_hint("aggregate a CASE instead: COUNT(CASE WHEN c THEN 1 END) OVER w"));
        }
        let (func, arg) = (bound.func, bound.arg.clone());
        let arg_type = arg.as_ref().map(Expr::ty);
        // A DOUBLE sum over a bounded frame must add and retract in Flink's
        // order to give its last bits; over distinct values that order is
        // the order values first came and last left, which the frames do
        // not keep. An unbounded frame only adds, in arrival order.
        if bound.distinct
            && frame.preceding.is_some()
            && matches!(func, AggregateFunction::Sum | AggregateFunction::Avg)
            && arg_type == Some(SqlType::Double)
        {
            return Err(Error::plan(
                format!("{bound} of a DOUBLE is not supported over a bounded OVER frame"),
                spanned(e),
            )
            .with_hint("CAST the argument to a DECIMAL, or use an unbounded frame"));
        }
        let mut column_of = |a: &Expr| match a.as_column() {
            Some(c) => c,
            None => {
                pre_exprs.push(a.clone());
                pre_fields.push(Field::new(format!("$arg{}", pre_exprs.len()), a.ty()));
                pre_exprs.len() - 1
            }
        };
        let arg = arg.as_ref().map(&mut column_of);
        let lag_default = lag_default.as_ref().map(&mut column_of);
        let call_of = AggregateCall {
            func,
            arg,
            arg_type,
            distinct: bound.distinct,
            separator: None,
            offset,
            lag_default,
            ty: bound.ty.clone(),
        };
        let index = match aggregates.iter().position(|a| *a == call_of) {
            Some(i) => i,
            None => {
                aggregates.push(call_of);
                aggregates.len() - 1
            }
        };
        bound_calls.push((call.clone(), index, bound));
    }
    if pre_exprs.len() > input_schema.len() {
        plan = LogicalPlan::Project {
            input: Box::new(plan),
            exprs: pre_exprs,
            schema: Schema::new(pre_fields.clone()),
        };
    }
    let width = pre_fields.len();
    let mut fields = pre_fields;
    for (i, a) in aggregates.iter().enumerate() {
        let name = bound_calls
            .iter()
            .find(|(_, index, _)| *index == i)
            .map_or_else(|| a.to_string(), |(_, _, b)| format!("{b} OVER"));
        fields.push(Field::new(name, a.ty.clone()));
    }
    let over_schema = Schema::new(fields);
    let columns: Vec<(ast::Function, Expr)> = bound_calls
        .into_iter()
        .map(|(call, index, bound)| {
            let column = Expr::column(width + index, format!("{bound} OVER"), bound.ty);
            (call, column)
        })
        .collect();
    let plan = LogicalPlan::OverAggregate {
        input: Box::new(plan),
        partition,
        time_column,
        frame,
        aggregates,
        schema: over_schema,
    };
    project_select_list(select, &input_schema, plan, &columns)
}

/// A ranking function bound: the call, LAG's offset and LAG's default.
type BoundRanking = (BoundAggregate, u32, Option<Expr>);

/// ROW_NUMBER(), RANK(), DENSE_RANK() and LAG(x [, n [, default]]): bound,
/// with LAG's offset and default; `None` for other functions. As in Flink
/// they take the window's default frame only.
fn ranking(
    call: &ast::Function,
    e: &ast::Expr,
    binder: &ExprBinder<'_>,
    select: &ast::Select,
) -> Result<Option<BoundRanking>> {
    use ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    let name = call.name.to_string().to_ascii_uppercase();
    let func = match name.as_str() {
        "ROW_NUMBER" => AggregateFunction::RowNumber,
        "RANK" => AggregateFunction::Rank,
        "DENSE_RANK" => AggregateFunction::DenseRank,
        "LAG" => AggregateFunction::Lag,
        _ => return Ok(None),
    };
    let span = spanned(e);
    if resolve_window(call, select)?.window_frame.is_some() {
        return Err(Error::plan(
            format!("{name} takes no ROWS or RANGE frame (as in Flink): it uses the window's order alone"),
            span,
        ));
    }
    let args: Vec<&ast::Expr> = match &call.args {
        FunctionArguments::List(list) => list
            .args
            .iter()
            .map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Ok(x),
                _ => Err(Error::plan(format!("unsupported argument to {name}"), span)),
            })
            .collect::<Result<_>>()?,
        _ => Vec::new(),
    };
    if func != AggregateFunction::Lag {
        if !args.is_empty() {
            return Err(Error::plan(format!("{name} takes no arguments"), span));
        }
        let bound = BoundAggregate {
            func,
            arg: None,
            distinct: false,
            separator: None,
            filter: None,
            ty: SqlType::BigInt,
        };
        return Ok(Some((bound, 0, None)));
    }
    let lag_offset = |n: &ast::Expr| {
        match n {
            ast::Expr::Value(v) => match &v.value {
                ast::Value::Number(text, _) => text.parse::<u32>().ok(),
                _ => None,
            },
            _ => None,
        }
        .ok_or_else(|| Error::plan("LAG's offset is a whole number of rows", spanned(n)))
    };
    let (value, offset, default) = match args.as_slice() {
        [value] => (value, 1, None),
        [value, n] => (value, lag_offset(n)?, None),
        [value, n, default] => (value, lag_offset(n)?, Some(default)),
        _ => {
            return Err(
                Error::plan("LAG takes a value, an offset and a default", span)
                    .with_hint("LAG(x), LAG(x, n) or LAG(x, n, default)"),
            )
        }
    };
    let mut inner = ExprBinder::new(binder.schema, "LAG's argument");
    let arg = inner.bind(value)?;
    let ty = arg.ty();
    let default = match default {
        None => None,
        Some(d) => {
            let bound = inner.bind(d)?;
            let dty = bound.ty();
            // Flink asks for the value's own type (a CAST otherwise); any
            // string and an untyped NULL are taken as it.
            if dty == ty || dty == SqlType::Null || (dty.is_string() && ty.is_string()) {
                Some(crate::expr_binder::coerce(bound, &ty))
            } else {
                return Err(Error::plan(
                    format!("LAG's default must have the value's type {ty}, got {dty}"),
                    spanned(d),
                )
                .with_hint(format!("CAST the default: CAST({d} AS {ty})")));
            }
        }
    };
    let bound = BoundAggregate {
        func,
        arg: Some(arg),
        distinct: false,
        separator: None,
        filter: None,
        ty,
    };
    Ok(Some((bound, offset, default)))
}

/// A window Top-N or deduplication: the ranking functions, partition (with
/// window_start and window_end), order, and the input's window_end.
struct Ranked {
    funcs: Vec<AggregateFunction>,
    partition: Vec<usize>,
    order: Vec<OrderKey>,
    window_end: usize,
}

/// Whether the OVER calls rank rows within windows: ranking functions
/// partitioned by the window's start and end (Flink's window Top-N and
/// deduplication), all over the same window.
fn window_rank(
    select: &ast::Select,
    plan: &LogicalPlan,
    calls: &[(ast::Function, ast::Expr)],
) -> Result<Option<Ranked>> {
    let schema = plan.schema();
    let mut ranked: Option<Ranked> = None;
    for (call, e) in calls {
        let func = match call.name.to_string().to_ascii_uppercase().as_str() {
            "ROW_NUMBER" => AggregateFunction::RowNumber,
            "RANK" => AggregateFunction::Rank,
            "DENSE_RANK" => AggregateFunction::DenseRank,
            _ => return Ok(None),
        };
        let spec = resolve_window(call, select)?;
        let partition = partition_columns(&spec, schema)?;
        let named = |name: &str| {
            partition
                .iter()
                .copied()
                .find(|c| schema.field(*c).name.eq_ignore_ascii_case(name))
        };
        let (Some(_), Some(window_end)) = (named("window_start"), named("window_end")) else {
            return Ok(None);
        };
        if spec.window_frame.is_some() {
            return Err(Error::plan(
                "a ranking function takes no ROWS or RANGE frame (as in Flink)",
                spanned(e),
            ));
        }
        if spec.order_by.is_empty() {
            return Err(Error::plan(
                "a window Top-N needs ORDER BY: which rows come first in each window",
                spanned(e),
            ));
        }
        let mut order = Vec::new();
        for o in &spec.order_by {
            let bound = ExprBinder::new(schema, "ORDER BY").bind(&o.expr)?;
            let Some(c) = bound.as_column() else {
                return Err(Error::plan(
                    "a window Top-N orders by columns",
                    spanned(&o.expr),
                ));
            };
            let descending = o.options.asc == Some(false);
            order.push(OrderKey {
                column: c,
                descending,
                // NULL is the smallest value, as in Flink.
                nulls_first: o.options.nulls_first.unwrap_or(!descending),
            });
        }
        match &mut ranked {
            None => {
                ranked = Some(Ranked {
                    funcs: vec![func],
                    partition,
                    order,
                    window_end,
                })
            }
            Some(r) if r.partition == partition && r.order == order => r.funcs.push(func),
            Some(_) => {
                return Err(Error::plan(
                    "different windows for ranking functions in one SELECT are not supported",
                    spanned(e),
                ))
            }
        }
    }
    Ok(ranked)
}

/// The WindowRank node under the select list.
fn finish_window_rank(
    select: &ast::Select,
    plan: LogicalPlan,
    ranked: Ranked,
    calls: &[(ast::Function, ast::Expr)],
) -> Result<LogicalPlan> {
    let input_schema = plan.schema().clone();
    let mut fields = input_schema.fields.clone();
    let mut columns: Vec<(ast::Function, Expr)> = Vec::new();
    for ((call, _), func) in calls.iter().zip(&ranked.funcs) {
        let name = format!("{}()", func.name());
        let column = Expr::column(fields.len(), name.clone(), SqlType::BigInt);
        fields.push(Field::new(name, SqlType::BigInt));
        columns.push((call.clone(), column));
    }
    let rank_schema = Schema::new(fields);
    let plan = LogicalPlan::WindowRank {
        input: Box::new(plan),
        partition: ranked.partition,
        order: ranked.order,
        window_end: ranked.window_end,
        funcs: ranked.funcs,
        latest_first: false,
        limit: None,
        schema: rank_schema,
    };
    project_select_list(select, &input_schema, plan, &columns)
}

/// The select list projected over `plan`, the node that computes the OVER
/// calls: each call reads the column `columns` gives it, and `*` stands for
/// the columns of `input_schema`, the rows under that node.
fn project_select_list(
    select: &ast::Select,
    input_schema: &Schema,
    plan: LogicalPlan,
    columns: &[(ast::Function, Expr)],
) -> Result<LogicalPlan> {
    let schema = plan.schema().clone();
    let (exprs, out_fields) = {
        let mut binder = ExprBinder::new(&schema, "SELECT");
        binder.over = columns;
        select_list(&select.projection, input_schema, &schema, &mut binder)?
    };
    Ok(LogicalPlan::Project {
        input: Box::new(plan),
        exprs,
        schema: Schema::new(out_fields),
    })
}

/// A call's window: inline, or by name from the SELECT's WINDOW clause.
fn resolve_window(call: &ast::Function, select: &ast::Select) -> Result<ast::WindowSpec> {
    let mut current = match &call.over {
        Some(ast::WindowType::WindowSpec(spec)) => return Ok(spec.clone()),
        Some(ast::WindowType::NamedWindow(name)) => name.clone(),
        None => return Err(Error::Internal("an OVER call without a window".into())),
    };
    // A named window may name another; a cycle ends after as many steps.
    for _ in 0..=select.named_window.len() {
        let Some(ast::NamedWindowDefinition(_, def)) = select
            .named_window
            .iter()
            .find(|ast::NamedWindowDefinition(n, _)| n.value.eq_ignore_ascii_case(&current.value))
        else {
            return Err(Error::plan(
                format!("unknown window '{}'", current.value),
                span_of(current.span),
            )
            .with_hint("declare it after WHERE: WINDOW w AS (PARTITION BY ... ORDER BY ts ...)"));
        };
        match def {
            ast::NamedWindowExpr::WindowSpec(spec) => return Ok(spec.clone()),
            ast::NamedWindowExpr::NamedWindow(next) => current = next.clone(),
        }
    }
    Err(Error::plan(
        format!("window '{}' is defined in terms of itself", current.value),
        span_of(current.span),
    ))
}

fn partition_columns(window: &ast::WindowSpec, schema: &Schema) -> Result<Vec<usize>> {
    window
        .partition_by
        .iter()
        .map(|p| {
            let bound = ExprBinder::new(schema, "PARTITION BY").bind(p)?;
            bound.as_column().ok_or_else(|| {
                Error::plan("PARTITION BY of an OVER window takes columns", spanned(p))
            })
        })
        .collect()
}

/// The rowtime column the window is ordered by.
fn order_column(window: &ast::WindowSpec, schema: &Schema, span: Span) -> Result<usize> {
    let order = match window.order_by.as_slice() {
        [one] => one,
        [] => return Err(
            Error::plan("an OVER window needs ORDER BY a time attribute", span).with_hint(
                "e.g. OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
            ),
        ),
        [_, second, ..] => {
            return Err(Error::plan(
                "an OVER window is ordered by its time attribute alone",
                spanned(&second.expr),
            ))
        }
    };
    let at = spanned(&order.expr);
    let bound = ExprBinder::new(schema, "ORDER BY").bind(&order.expr)?;
    let Some(column) = bound.as_column() else {
        return Err(Error::plan(
            "an OVER window must be ordered by a time attribute column",
            at,
        ));
    };
    let field = schema.field(column);
    if field.proctime {
        return Err(Error::plan(
            "OVER windows ordered by a processing-time attribute are not supported yet",
            at,
        ));
    }
    if !field.rowtime {
        return Err(Error::plan(
            format!(
                "an OVER window must be ordered by a time attribute, and '{}' is not one",
                field.name
            ),
            at,
        )
        .with_hint("order by the column of the table's WATERMARK FOR clause"));
    }
    if order.options.asc == Some(false) {
        return Err(Error::plan(
            "an OVER window is ordered by its time attribute ascending; DESC is not supported (as in Flink)",
            at,
        ));
    }
    Ok(column)
}

fn frame(window: &ast::WindowSpec, span: Span) -> Result<OverFrame> {
    let Some(frame) = &window.window_frame else {
        // With ORDER BY and no frame: all rows up to the current one and
        // its peers, as SQL (and Flink) define it.
        return Ok(OverFrame {
            units: FrameUnits::Range,
            preceding: None,
        });
    };
    let units = match frame.units {
        ast::WindowFrameUnits::Rows => FrameUnits::Rows,
        ast::WindowFrameUnits::Range => FrameUnits::Range,
        ast::WindowFrameUnits::Groups => {
            return Err(Error::plan("GROUPS frames are not supported", span))
        }
    };
    match &frame.end_bound {
        None | Some(ast::WindowFrameBound::CurrentRow) => {}
        Some(ast::WindowFrameBound::Following(_)) => {
            return Err(Error::plan(
                "an OVER window on a stream ends at the current row: FOLLOWING is not supported (as in Flink)",
                span,
            ))
        }
        Some(ast::WindowFrameBound::Preceding(_)) => {
            return Err(Error::plan(
                "an OVER window ends at the current row",
                span,
            ))
        }
    }
    let preceding = match &frame.start_bound {
        ast::WindowFrameBound::CurrentRow => Some(0),
        ast::WindowFrameBound::Preceding(None) => None,
        ast::WindowFrameBound::Following(_) => {
            return Err(Error::plan(
                "an OVER window starts at or before the current row: FOLLOWING is not supported (as in Flink)",
                span,
            ))
        }
        ast::WindowFrameBound::Preceding(Some(e)) => Some(match units {
            FrameUnits::Rows => match e.as_ref() {
                ast::Expr::Value(v) => match &v.value {
                    ast::Value::Number(n, _) => n.parse::<i64>().ok().filter(|n| *n >= 0),
                    _ => None,
                },
                _ => None,
            }
            .ok_or_else(|| {
                Error::plan(
                    "ROWS takes a whole number of preceding rows",
                    spanned(e),
                )
            })?,
            FrameUnits::Range => match interval_millis(e) {
                Some(ms) => ms?,
                None => {
                    return Err(Error::plan(
                        "RANGE over a time attribute takes an INTERVAL: RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW",
                        spanned(e),
                    ))
                }
            },
        }),
    };
    Ok(OverFrame { units, preceding })
}

/// Flink's window deduplication keeping the last row: a `ROW_NUMBER()`
/// ordered by a rowtime attribute descending, kept where it is 1
/// (`rownum = 1`, `<= 1`, `< 2`, alone or in an AND), is planned by Flink
/// as its own operator, in which a later row with an equal rowtime
/// replaces the one kept. Marks the ranking under `plan` so that equal
/// rowtimes rank the latest arrival first. A Top-N of more rows ranks
/// them in arrival order, as Flink's does, and so does keeping the first
/// row (ascending).
pub(crate) fn mark_deduplication(plan: &mut LogicalPlan, predicate: &Expr) {
    for conjunct in conjuncts(predicate) {
        if let Some(column) = kept_at_one(conjunct) {
            mark(plan, column);
        }
    }
}

/// A filter that keeps rows whose rank is at most `n` (`rownum <= n`,
/// `< n + 1` or `= n`, alone or in an AND) over a window ranking, through
/// projections: tells the ranking so (its `limit`), which then need not
/// keep rows that can no longer rank that high. The filter stays: the
/// ranking still ranks what it keeps.
pub(crate) fn mark_rank_limit(plan: &mut LogicalPlan, predicate: &Expr) {
    for conjunct in conjuncts(predicate) {
        if let Some((column, n)) = kept_up_to(conjunct) {
            limit_ranking(plan, column, n);
        }
    }
}

/// The column a conjunct keeps at most `n` of, and `n` (at least 1).
fn kept_up_to(e: &Expr) -> Option<(usize, i64)> {
    let (column, op, literal) = comparison(e)?;
    let n = match op {
        BinaryOp::Eq | BinaryOp::LtEq => literal,
        BinaryOp::Lt => literal.checked_sub(1)?,
        _ => return None,
    };
    (n >= 1).then_some((column, n))
}

/// Follows `column` down through projections to a ranking's rank column.
fn limit_ranking(plan: &mut LogicalPlan, column: usize, n: i64) {
    match plan {
        LogicalPlan::Project { input, exprs, .. } => {
            if let Some(c) = exprs.get(column).and_then(Expr::as_column) {
                limit_ranking(input, c, n);
            }
        }
        LogicalPlan::WindowRank {
            input,
            funcs,
            limit,
            ..
        } => {
            let Some(k) = column.checked_sub(input.schema().len()) else {
                return;
            };
            if k < funcs.len() && limit.is_none_or(|(_, kept)| n < kept) {
                *limit = Some((k, n));
            }
        }
        _ => {}
    }
}

fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
            ..
        } => {
            let mut out = conjuncts(left);
            out.extend(conjuncts(right));
            out
        }
        other => vec![other],
    }
}

/// The column a conjunct keeps at 1: `c = 1`, `c <= 1`, `c < 2` or the
/// same the other way round.
fn kept_at_one(e: &Expr) -> Option<usize> {
    match comparison(e)? {
        (column, BinaryOp::Eq | BinaryOp::LtEq, 1) | (column, BinaryOp::Lt, 2) => Some(column),
        _ => None,
    }
}

/// A comparison of a column with an integer literal, as `column op
/// literal` (turned round when written the other way).
fn comparison(e: &Expr) -> Option<(usize, BinaryOp, i64)> {
    let Expr::Binary {
        op, left, right, ..
    } = e
    else {
        return None;
    };
    let (column, literal, op) = match (uncast(left).as_column(), uncast(right).as_column()) {
        (Some(c), None) => (c, integer(uncast(right))?, *op),
        (None, Some(c)) => (
            c,
            integer(uncast(left))?,
            match op {
                BinaryOp::Lt => BinaryOp::Gt,
                BinaryOp::LtEq => BinaryOp::GtEq,
                BinaryOp::Gt => BinaryOp::Lt,
                BinaryOp::GtEq => BinaryOp::LtEq,
                other => *other,
            },
        ),
        _ => return None,
    };
    Some((column, op, literal))
}

fn uncast(e: &Expr) -> &Expr {
    match e {
        Expr::Cast { expr, .. } => uncast(expr),
        other => other,
    }
}

fn integer(e: &Expr) -> Option<i64> {
    match e {
        Expr::Literal { value, .. } => match value {
            ScalarValue::Int32(Some(v)) => Some(i64::from(*v)),
            ScalarValue::Int64(Some(v)) => Some(*v),
            _ => None,
        },
        _ => None,
    }
}

/// Follows `column` down through projections to a ranking's row number.
fn mark(plan: &mut LogicalPlan, column: usize) {
    match plan {
        LogicalPlan::Project { input, exprs, .. } => {
            if let Some(c) = exprs.get(column).and_then(Expr::as_column) {
                mark(input, c);
            }
        }
        LogicalPlan::WindowRank {
            input,
            order,
            funcs,
            latest_first,
            ..
        } => {
            let in_schema = input.schema();
            let dedup = column == in_schema.len()
                && funcs.as_slice() == [AggregateFunction::RowNumber]
                && matches!(order.as_slice(), [key] if key.descending && is_time_attribute(input, key.column));
            if dedup {
                *latest_first = true;
            }
        }
        _ => {}
    }
}

/// Whether `column` of `plan` is a rowtime attribute: one the schema says
/// is, or the time column a window TVF read (which stays a time attribute
/// in Flink, beside `window_time`).
fn is_time_attribute(plan: &LogicalPlan, column: usize) -> bool {
    plan.schema().field(column).rowtime
        || matches!(plan, LogicalPlan::WindowTvf { window, .. } if window.time_column == column)
}
