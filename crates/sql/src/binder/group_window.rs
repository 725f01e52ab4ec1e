//! Flink's legacy group windows: `GROUP BY TUMBLE(ts, size)`,
//! `HOP(ts, slide, size)` and `SESSION(ts, gap)`, read with
//! `TUMBLE_START`, `TUMBLE_END`, `TUMBLE_ROWTIME` (and the `HOP_` and
//! `SESSION_` forms).
//!
//! Such a query is the same computation as a window TVF aggregation, so it
//! is rewritten into one here and bound by [`super::window_aggregate`]:
//! the FROM item is wrapped into the window TVF, the group window becomes
//! `window_start, window_end`, and the auxiliary calls become
//! `window_start`, `window_end` and `window_time` (a rowtime attribute of
//! the result, so another window can be stacked on it). Allowed lateness,
//! late rows and EXPLAIN are therefore the TVF's.

use super::relation::{tvf_schema, Relation};
use super::QueryBinder;
use crate::expr_binder::{interval_millis, spanned, ExprBinder};
use crate::plan::{LogicalPlan, WindowSpec};
use crate::window_tvf::TvfCall;
use sqlparser::ast::{self, FunctionArg, FunctionArgExpr, FunctionArguments, SelectItem, Spanned};
use std::ops::ControlFlow;
use tidemark_common::{Error, Result, Span};

const KINDS: [&str; 3] = ["TUMBLE", "HOP", "SESSION"];

/// Whether the SELECT uses a legacy group window: one in GROUP BY, or an
/// auxiliary call such as `TUMBLE_START(..)` in SELECT or HAVING.
pub(super) fn uses_group_window(select: &ast::Select, group_exprs: &[ast::Expr]) -> bool {
    group_exprs.iter().any(|g| window_call(g).is_some())
        || select_exprs(select).any(|e| {
            ast::visit_expressions(e, |x| match auxiliary_call(x) {
                Some(_) => ControlFlow::Break(()),
                None => ControlFlow::Continue(()),
            })
            .is_break()
        })
}

impl QueryBinder<'_> {
    /// Binds a SELECT over a legacy group window as the window TVF
    /// aggregation it stands for.
    pub(super) fn bind_group_window(
        &mut self,
        select: &ast::Select,
        relation: Relation,
        group_exprs: &[ast::Expr],
        span: Span,
    ) -> Result<LogicalPlan> {
        let mut windows = group_exprs.iter().filter_map(window_call);
        let Some((kind, call)) = windows.next() else {
            let (name, at) = select_exprs(select)
                .find_map(first_auxiliary)
                .ok_or_else(|| Error::Internal("a group window query without its window".into()))?;
            let kind = &name[..name.rfind('_').unwrap_or(name.len())];
            return Err(Error::plan(
                format!(
                    "{name} needs a group window: GROUP BY {kind}(...) with the same arguments"
                ),
                at,
            ));
        };
        if let Some((_, second)) = windows.next() {
            return Err(Error::plan(
                "a query can GROUP BY only one group window",
                spanned(second),
            ));
        }
        let args = plain_args(call, kind)?;
        let input = relation.plan;
        let schema = input.schema().clone();
        let time_column = time_attribute(&schema, kind, args[0])?;
        let expected: &[&str] = match kind {
            "TUMBLE" => &["SIZE"],
            "HOP" => &["SLIDE", "SIZE"],
            _ => &["GAP"],
        };
        if args.len() != expected.len() + 1 {
            return Err(Error::plan(
                format!(
                    "{kind} takes a time attribute and {}",
                    expected.join(" and ").to_lowercase()
                ),
                spanned(call),
            )
            .with_hint(match kind {
                "TUMBLE" => "TUMBLE(ts, INTERVAL '1' MINUTE)",
                "HOP" => "HOP(ts, slide, size): HOP(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)",
                _ => "SESSION(ts, INTERVAL '5' MINUTE)",
            }));
        }
        // The TVF's checks (positive lengths, a HOP size that is a multiple
        // of its slide) apply as they are.
        let tvf = TvfCall {
            kind_name: kind.to_string(),
            table: ast::ObjectName(vec![]),
            table_span: spanned(call),
            partition: vec![],
            descriptor: args[0],
            args: expected
                .iter()
                .map(|n| n.to_string())
                .zip(args[1..].iter().copied())
                .collect(),
            span: spanned(call),
        };
        let window_kind = tvf.kind()?;

        // The group window becomes the window's columns; the other items
        // are keys, and a SESSION is kept per key as with PARTITION BY.
        let mut new_group = Vec::new();
        let mut partition = Vec::new();
        for g in group_exprs {
            if window_call(g).is_some() {
                new_group.push(window_ident("window_start", g));
                new_group.push(window_ident("window_end", g));
                continue;
            }
            if kind == "SESSION" {
                if let Ok(Some(c)) = ExprBinder::new(&schema, "GROUP BY")
                    .bind(g)
                    .map(|e| e.as_column())
                {
                    partition.push((c, spanned(g)));
                }
            }
            new_group.push(g.clone());
        }
        let window = WindowSpec {
            kind: window_kind,
            time_column,
            partition: partition.iter().map(|(c, _)| *c).collect(),
            span: spanned(call),
            legacy: true,
            attached: None,
        };
        let rewritten = rewrite_select(select, kind, call, &schema, time_column)?;
        let relation = Relation {
            plan: LogicalPlan::WindowTvf {
                input: Box::new(input.clone()),
                window: window.clone(),
                schema: tvf_schema(&schema, &window),
            },
            tvf: Some((input, window)),
            partition,
        };
        self.bind_window_aggregate(&rewritten, relation, &new_group, span)
    }
}

/// The SELECT list, HAVING and WHERE: where auxiliary calls may be written.
fn select_exprs(select: &ast::Select) -> impl Iterator<Item = &ast::Expr> {
    select
        .projection
        .iter()
        .filter_map(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
            _ => None,
        })
        .chain(select.having.as_ref())
        .chain(select.selection.as_ref())
}

/// `TUMBLE(..)`, `HOP(..)` or `SESSION(..)` as a GROUP BY item.
fn window_call(e: &ast::Expr) -> Option<(&'static str, &ast::Expr)> {
    let ast::Expr::Function(f) = e else {
        return None;
    };
    let name = function_name(f)?;
    KINDS
        .into_iter()
        .find(|k| name.eq_ignore_ascii_case(k))
        .map(|k| (k, e))
}

/// `TUMBLE_START(..)` and the like: the window kind and the suffix.
fn auxiliary_call(e: &ast::Expr) -> Option<(&'static str, String)> {
    let ast::Expr::Function(f) = e else {
        return None;
    };
    let name = function_name(f)?.to_ascii_uppercase();
    let (kind, suffix) = name.split_once('_')?;
    let kind = KINDS.into_iter().find(|k| *k == kind)?;
    ["START", "END", "ROWTIME", "PROCTIME"]
        .contains(&suffix)
        .then(|| (kind, suffix.to_string()))
}

fn first_auxiliary(e: &ast::Expr) -> Option<(String, Span)> {
    let mut found = None;
    let _ = ast::visit_expressions(e, |x| match auxiliary_call(x) {
        Some((kind, suffix)) => {
            found = Some((format!("{kind}_{suffix}"), spanned(x)));
            ControlFlow::Break(())
        }
        None => ControlFlow::Continue(()),
    });
    found
}

fn function_name(f: &ast::Function) -> Option<&str> {
    match f.name.0.as_slice() {
        [part] => part.as_ident().map(|i| i.value.as_str()),
        _ => None,
    }
}

/// The positional arguments of a group window or auxiliary call.
fn plain_args<'e>(call: &'e ast::Expr, name: &str) -> Result<Vec<&'e ast::Expr>> {
    let ast::Expr::Function(f) = call else {
        return Err(Error::Internal(
            "a group window call is a function call".into(),
        ));
    };
    let list = match &f.args {
        FunctionArguments::List(l) => &l.args,
        _ => {
            return Err(Error::plan(
                format!("{name} needs arguments"),
                spanned(call),
            ))
        }
    };
    let mut args = Vec::new();
    for a in list {
        match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => args.push(e),
            other => {
                return Err(Error::plan(
                    format!("{name} takes positional arguments only"),
                    crate::statement::span_of(other.span()),
                ))
            }
        }
    }
    if args.is_empty() {
        return Err(Error::plan(
            format!("{name} needs a time attribute and an interval"),
            spanned(call),
        ));
    }
    Ok(args)
}

/// The column a group window is over: a rowtime (or processing-time)
/// attribute of the FROM item.
fn time_attribute(schema: &tidemark_common::Schema, kind: &str, e: &ast::Expr) -> Result<usize> {
    let bound = ExprBinder::new(schema, "GROUP BY").bind(e)?;
    let Some(c) = bound.as_column() else {
        return Err(Error::plan(
            format!("the first argument of {kind} must be a time attribute column"),
            spanned(e),
        ));
    };
    let field = schema.field(c);
    if !field.rowtime && !field.proctime {
        return Err(crate::window_tvf::not_a_time_attribute(
            schema,
            c,
            spanned(e),
        ));
    }
    Ok(c)
}

fn window_ident(name: &str, at: &ast::Expr) -> ast::Expr {
    ast::Expr::Identifier(ast::Ident::with_span(at.span(), name))
}

/// Whether an auxiliary call's arguments are the group window's: the same
/// column and the same lengths (`INTERVAL '60' SECOND` is `'1' MINUTE`).
fn same_args(a: &[&ast::Expr], b: &[&ast::Expr]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| match (interval_millis(x), interval_millis(y)) {
                (Some(Ok(p)), Some(Ok(q))) => p == q,
                _ => x.to_string().eq_ignore_ascii_case(&y.to_string()),
            })
}

/// Replaces the auxiliary calls of the SELECT list and HAVING by window
/// columns. An unaliased one keeps Flink's name for it, `EXPR$n`.
fn rewrite_select(
    select: &ast::Select,
    kind: &str,
    call: &ast::Expr,
    schema: &tidemark_common::Schema,
    time_column: usize,
) -> Result<ast::Select> {
    let group = GroupWindow {
        kind,
        call,
        args: plain_args(call, kind)?,
        proctime: schema
            .field(time_column)
            .proctime
            .then(|| schema.field(time_column).name.clone()),
    };
    if let Some((name, at)) = select.selection.as_ref().and_then(first_auxiliary) {
        return Err(Error::plan(
            format!("{name} cannot be used in WHERE: a window is known only once rows are grouped"),
            at,
        )
        .with_hint("filter on it in HAVING"));
    }
    let mut select = select.clone();
    for (i, item) in select.projection.iter_mut().enumerate() {
        match item {
            SelectItem::UnnamedExpr(e) => {
                let top_level = auxiliary_call(e).is_some();
                group.replace(e)?;
                if top_level {
                    *item = SelectItem::ExprWithAlias {
                        expr: e.clone(),
                        alias: ast::Ident::new(format!("EXPR${i}")),
                    };
                }
            }
            SelectItem::ExprWithAlias { expr, .. } => group.replace(expr)?,
            _ => {}
        }
    }
    if let Some(h) = &mut select.having {
        group.replace(h)?;
    }
    Ok(select)
}

/// The group window that auxiliary calls must repeat.
struct GroupWindow<'a> {
    kind: &'a str,
    call: &'a ast::Expr,
    args: Vec<&'a ast::Expr>,
    /// The time column's name, when it is a processing-time attribute.
    proctime: Option<String>,
}

impl GroupWindow<'_> {
    fn replace(&self, e: &mut ast::Expr) -> Result<()> {
        let flow = ast::visit_expressions_mut(e, |x| match self.column_for(x) {
            Ok(Some(column)) => {
                *x = window_ident(column, x);
                ControlFlow::Continue(())
            }
            Ok(None) => ControlFlow::Continue(()),
            Err(err) => ControlFlow::Break(err),
        });
        match flow {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(err) => Err(err),
        }
    }

    /// The window column an auxiliary call stands for; `None` for any
    /// other expression.
    fn column_for(&self, x: &ast::Expr) -> Result<Option<&'static str>> {
        let Some((aux_kind, suffix)) = auxiliary_call(x) else {
            return Ok(None);
        };
        let name = format!("{aux_kind}_{suffix}");
        let at = spanned(x);
        if suffix == "PROCTIME" {
            return Err(Error::plan(
                format!(
                    "{name} is not supported: the result of a window has no processing-time attribute"
                ),
                at,
            )
            .with_hint(format!("{aux_kind}_END(..) gives the window's end")));
        }
        let args = plain_args(x, &name)?;
        if aux_kind != self.kind || !same_args(&args, &self.args) {
            return Err(Error::plan(
                format!(
                    "{name}({}) does not match the group window {}",
                    join(&args),
                    self.call
                ),
                at,
            )
            .with_hint(format!(
                "repeat GROUP BY's window: {}_{suffix}({})",
                self.kind,
                join(&self.args)
            )));
        }
        Ok(Some(match suffix.as_str() {
            "START" => "window_start",
            "END" => "window_end",
            _ => {
                if let Some(column) = &self.proctime {
                    return Err(Error::plan(
                        format!(
                            "{name} needs an event-time window: '{column}' is a processing-time attribute"
                        ),
                        at,
                    ));
                }
                "window_time"
            }
        }))
    }
}

fn join(args: &[&ast::Expr]) -> String {
    args.iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
