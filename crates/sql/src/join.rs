//! Window joins, bound to `LogicalPlan::WindowJoin`: the rows of two
//! windows of the same kind (window TVFs, or window aggregations or Top-N
//! over them) joined per window on equal keys.
//!
//! Written `L [INNER|LEFT|RIGHT|FULL] JOIN R ON L.window_start =
//! R.window_start AND L.window_end = R.window_end AND L.k = R.k`, or, for
//! the semi and anti joins, as a subquery over the right TVF:
//! `WHERE [NOT] EXISTS (SELECT * FROM R WHERE <the same equalities>)` and
//! `WHERE L.k [NOT] IN (SELECT k FROM R WHERE <window equalities>)`.

use crate::binder::QueryBinder;
use crate::expr_binder::spanned;
use crate::expr_binder::ExprBinder;
use crate::plan::LogicalPlan;
use crate::statement::span_of;
use sqlparser::ast::{self, SetExpr, Spanned, TableFactor};
use tidemark_common::expr::{BinaryOp, Expr};
use tidemark_common::window::JoinType;
use tidemark_common::window::WindowKind;
use tidemark_common::{Error, Field, Result, Schema, Span, SqlType};

/// What a join's ON (or a semi join's correlation) says, before binding.
struct JoinCondition<'e> {
    /// Equalities joined by AND.
    conjuncts: Vec<&'e ast::Expr>,
    /// `x IN (SELECT y ...)`: x of the left side, y of the right.
    in_key: Option<(&'e ast::Expr, &'e ast::Expr)>,
    /// Whether a plain column name means the right side first (inside a
    /// subquery over the right side).
    right_first: bool,
    /// Where the condition is written, for errors about what it lacks.
    span: Span,
}

impl QueryBinder<'_> {
    /// `left JOIN right ON ...`.
    pub(crate) fn bind_window_join(
        &mut self,
        left: &TableFactor,
        join: &ast::Join,
    ) -> Result<LogicalPlan> {
        let join_span = span_of(join.relation.span());
        let (kind, constraint) = match &join.join_operator {
            ast::JoinOperator::Join(c) | ast::JoinOperator::Inner(c) => (JoinType::Inner, c),
            ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => (JoinType::Left, c),
            ast::JoinOperator::Right(c) | ast::JoinOperator::RightOuter(c) => {
                (JoinType::Right, c)
            }
            ast::JoinOperator::FullOuter(c) => (JoinType::Full, c),
            _ => {
                return Err(Error::plan(
                    "only INNER, LEFT, RIGHT and FULL window joins are supported",
                    join_span,
                )
                .with_hint("a semi or anti join is written WHERE [NOT] EXISTS (SELECT ...) or x [NOT] IN (SELECT ...)"))
            }
        };
        let ast::JoinConstraint::On(on) = constraint else {
            return Err(Error::plan(
                "a window join needs ON L.window_start = R.window_start AND L.window_end = R.window_end AND keys",
                join_span,
            ));
        };
        let mut conjuncts = Vec::new();
        split_and(on, &mut conjuncts);
        let condition = JoinCondition {
            conjuncts,
            in_key: None,
            right_first: false,
            span: spanned(on),
        };
        self.window_join(left, &join.relation, kind, condition, join_span)
    }

    /// A semi or anti join written in WHERE: the join and what is left of
    /// WHERE, or None when WHERE has no `EXISTS` / `IN` subquery.
    pub(crate) fn bind_semi_join(
        &mut self,
        select: &ast::Select,
        left: &TableFactor,
    ) -> Result<Option<(LogicalPlan, Option<ast::Expr>)>> {
        let Some(selection) = &select.selection else {
            return Ok(None);
        };
        let mut conjuncts = Vec::new();
        split_and(selection, &mut conjuncts);
        let (subqueries, rest): (Vec<&ast::Expr>, Vec<&ast::Expr>) = conjuncts
            .into_iter()
            .partition(|c| matches!(c, ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. }));
        let subquery = match subqueries.as_slice() {
            [] => return Ok(None),
            [one] => *one,
            [_, second, ..] => {
                return Err(Error::plan(
                    "only one EXISTS or IN subquery per query is supported",
                    spanned(second),
                ))
            }
        };
        let (query, in_expr, negated) = match subquery {
            ast::Expr::Exists { subquery, negated } => (subquery, None, *negated),
            ast::Expr::InSubquery {
                expr,
                subquery,
                negated,
            } => (subquery, Some(expr.as_ref()), *negated),
            _ => return Ok(None),
        };
        let at = spanned(subquery);
        let inner = match query.body.as_ref() {
            SetExpr::Select(inner)
                if query.with.is_none()
                    && query.order_by.is_none()
                    && query.limit_clause.is_none()
                    && inner.from.len() == 1
                    && inner.from[0].joins.is_empty()
                    && inner.having.is_none()
                    && inner.distinct.is_none()
                    && matches!(&inner.group_by, ast::GroupByExpr::Expressions(g, _) if g.is_empty()) =>
            {
                inner
            }
            _ => {
                return Err(Error::plan(
                    "a subquery in WHERE must be SELECT ... FROM <window TVF> WHERE <window equalities>, nothing more",
                    at,
                ))
            }
        };
        let in_key = match in_expr {
            None => None,
            Some(l) => match inner.projection.as_slice() {
                [ast::SelectItem::UnnamedExpr(r)]
                | [ast::SelectItem::ExprWithAlias { expr: r, .. }] => Some((l, r)),
                _ => {
                    return Err(Error::plan(
                        "an IN subquery selects exactly one column",
                        span_of(query.body.span()),
                    ))
                }
            },
        };
        let mut correlation = Vec::new();
        if let Some(w) = &inner.selection {
            split_and(w, &mut correlation);
        }
        let kind = match (negated, in_key.is_some()) {
            (false, _) => JoinType::Semi,
            (true, null_aware) => JoinType::Anti { null_aware },
        };
        let condition = JoinCondition {
            conjuncts: correlation,
            in_key,
            right_first: true,
            span: inner.selection.as_ref().map(spanned).unwrap_or(at),
        };
        let plan = self.window_join(left, &inner.from[0].relation, kind, condition, at)?;
        let rest = rest
            .into_iter()
            .cloned()
            .reduce(|a, b| ast::Expr::BinaryOp {
                left: Box::new(a),
                op: ast::BinaryOperator::And,
                right: Box::new(b),
            });
        Ok(Some((plan, rest)))
    }

    fn window_join(
        &mut self,
        left: &TableFactor,
        right: &TableFactor,
        kind: JoinType,
        condition: JoinCondition<'_>,
        join_span: Span,
    ) -> Result<LogicalPlan> {
        let mut plans = Vec::new();
        let mut aliases = Vec::new();
        let mut windows = Vec::new();
        let mut window_columns = Vec::new();
        for factor in [left, right] {
            let at = span_of(factor.span());
            let plan = self.bind_relation(factor)?.plan;
            let Some(rows) = plan.windowed_rows() else {
                return Err(Error::plan(
                    "only window joins are supported on streams: each side must be a window TVF, or a window aggregation, Top-N or join over one",
                    at,
                )
                .with_hint("(SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))) L JOIN (...) R ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k"));
            };
            let window = rows.kind;
            if let WindowKind::Session { .. } = window {
                return Err(Error::plan(
                    "a window join over SESSION windows is not supported: the two sides' sessions do not line up",
                    at,
                )
                .with_hint("use TUMBLE, HOP or CUMULATE on both sides"));
            }
            aliases.push(alias_of(factor));
            windows.push(window);
            window_columns.push((rows.start, rows.end));
            plans.push(plan);
        }
        if windows[0] != windows[1] {
            return Err(Error::plan(
                format!(
                    "both sides of a window join must use the same window, not {} and {}",
                    windows[0], windows[1]
                ),
                join_span,
            ));
        }
        let order: [usize; 2] = if condition.right_first {
            [1, 0]
        } else {
            [0, 1]
        };
        // A column of one side: `alias.name`, or a plain name of the first
        // side (in `order`) that has it.
        let resolve = |e: &ast::Expr, sides: &[usize]| -> Option<(usize, usize)> {
            let (qualifier, name) = match e {
                ast::Expr::CompoundIdentifier(ids) if ids.len() == 2 => {
                    (Some(ids[0].value.as_str()), ids[1].value.as_str())
                }
                ast::Expr::Identifier(id) => (None, id.value.as_str()),
                _ => return None,
            };
            sides.iter().find_map(|&side| {
                let named = qualifier.is_none_or(|q| {
                    aliases[side]
                        .as_deref()
                        .is_some_and(|a| a.eq_ignore_ascii_case(q))
                });
                let column = plans[side].schema().index_of(name)?;
                named.then_some((side, column))
            })
        };
        let mut keys = Vec::new();
        let mut null_equal = Vec::new();
        let mut window_cols = Vec::new();
        // Conjuncts other than equal columns of each side: what a pair of
        // equal keys must also meet.
        let mut rest = Vec::new();
        for c in &condition.conjuncts {
            let (a, b, nulls_meet) = match c {
                ast::Expr::BinaryOp {
                    left: a,
                    op: ast::BinaryOperator::Eq,
                    right: b,
                } => (a, b, false),
                ast::Expr::IsNotDistinctFrom(a, b) => (a, b, true),
                _ => {
                    rest.push(*c);
                    continue;
                }
            };
            let (Some((sa, ca)), Some((sb, cb))) = (resolve(a, &order), resolve(b, &order)) else {
                rest.push(*c);
                continue;
            };
            let (l, r) = match (sa, sb) {
                (0, 1) => (ca, cb),
                (1, 0) => (cb, ca),
                _ => {
                    rest.push(*c);
                    continue;
                }
            };
            if (l, r) == (window_columns[0].0, window_columns[1].0) {
                window_cols.push("window_start");
                continue;
            }
            if (l, r) == (window_columns[0].1, window_columns[1].1) {
                window_cols.push("window_end");
                continue;
            }
            keys.push(check_key(&plans, l, r, spanned(c))?);
            null_equal.push(nulls_meet);
        }
        if !(window_cols.contains(&"window_start") && window_cols.contains(&"window_end")) {
            return Err(Error::plan(
                "a window join needs L.window_start = R.window_start AND L.window_end = R.window_end",
                condition.span,
            ));
        }
        // The IN key goes last: a NOT IN join treats it NULL-aware.
        if let Some((outer, inner)) = condition.in_key {
            let at = spanned(outer).union(spanned(inner));
            let (Some((0, l)), Some((1, r))) = (resolve(outer, &[0]), resolve(inner, &[1])) else {
                return Err(Error::plan(
                    "IN compares a column of the outer query with a column of the subquery",
                    at,
                ));
            };
            keys.push(check_key(&plans, l, r, at)?);
            null_equal.push(false);
        }
        let window_ends = (window_columns[0].1, window_columns[1].1);
        let condition = self.join_condition(&plans, &aliases, &rest, kind)?;
        let mut fields = Vec::new();
        for (side, plan) in plans.iter().enumerate() {
            let padded = match kind {
                JoinType::Inner => false,
                JoinType::Left => side == 1,
                JoinType::Right => side == 0,
                JoinType::Full => true,
                JoinType::Semi | JoinType::Anti { .. } if side == 1 => break,
                JoinType::Semi | JoinType::Anti { .. } => false,
            };
            for f in &plan.schema().fields {
                let name = match &aliases[side] {
                    Some(a) => format!("{a}.{}", f.name),
                    None => f.name.clone(),
                };
                let mut field = Field::new(name, f.ty.clone());
                field.nullable = f.nullable || padded;
                fields.push(field);
            }
        }
        let right = plans
            .pop()
            .ok_or_else(|| Error::Internal("join side".into()))?;
        let left = plans
            .pop()
            .ok_or_else(|| Error::Internal("join side".into()))?;
        Ok(LogicalPlan::WindowJoin {
            left: Box::new(left),
            right: Box::new(right),
            kind,
            keys,
            null_equal,
            condition,
            window_ends,
            schema: Schema::new(fields),
        })
    }

    /// The conjuncts `rest` of a window join's condition beyond equal
    /// keys, bound over both sides' columns (`alias.column`): a predicate
    /// each pair of equal keys must also meet, as Flink applies it.
    fn join_condition(
        &self,
        plans: &[LogicalPlan],
        aliases: &[Option<String>],
        rest: &[&ast::Expr],
        kind: JoinType,
    ) -> Result<Option<Expr>> {
        let Some(first) = rest.first() else {
            return Ok(None);
        };
        let at = rest
            .iter()
            .map(|c| spanned(c))
            .fold(spanned(first), Span::union);
        if let JoinType::Anti { null_aware: true } = kind {
            return Err(Error::plan(
                "a NOT IN window join with conditions beyond equal columns is not supported",
                at,
            )
            .with_hint("write it as NOT EXISTS (SELECT * FROM ... WHERE <the same conditions> AND L.k = R.k)"));
        }
        let mut fields = Vec::new();
        for (plan, alias) in plans.iter().zip(aliases) {
            for f in &plan.schema().fields {
                let name = match alias {
                    Some(a) => format!("{a}.{}", f.name),
                    None => f.name.clone(),
                };
                fields.push(Field::new(name, f.ty.clone()));
            }
        }
        let both = Schema::new(fields);
        let mut binder = ExprBinder::new(&both, "a window join's ON");
        let mut bound: Option<Expr> = None;
        for c in rest {
            let predicate = binder.bind(c)?;
            if predicate.ty() != SqlType::Boolean {
                return Err(Error::plan(
                    format!("a join condition must be BOOLEAN, not {}", predicate.ty()),
                    spanned(c),
                ));
            }
            bound = Some(match bound {
                None => predicate,
                Some(before) => Expr::Binary {
                    op: BinaryOp::And,
                    left: Box::new(before),
                    right: Box::new(predicate),
                    ty: SqlType::Boolean,
                },
            });
        }
        Ok(bound)
    }
}

/// A key pair of equal types, or an error saying how to make them equal.
fn check_key(plans: &[LogicalPlan], l: usize, r: usize, at: Span) -> Result<(usize, usize)> {
    let (lt, rt) = (
        &plans[0].schema().field(l).ty,
        &plans[1].schema().field(r).ty,
    );
    if lt != rt {
        return Err(
            Error::plan(format!("a window join key compares {lt} with {rt}"), at)
                .with_hint("CAST one side in its SELECT"),
        );
    }
    Ok((l, r))
}

/// The name a FROM item is known by: its alias, or its table's name.
fn alias_of(factor: &TableFactor) -> Option<String> {
    match factor {
        TableFactor::Table { alias, name, .. } => {
            alias.as_ref().map(|a| a.name.value.clone()).or_else(|| {
                name.0
                    .last()
                    .and_then(|p| p.as_ident())
                    .map(|i| i.value.clone())
            })
        }
        TableFactor::Derived { alias, .. } | TableFactor::TableFunction { alias, .. } => {
            alias.as_ref().map(|a| a.name.value.clone())
        }
        _ => None,
    }
}

/// The conjuncts of `a AND b AND ...`.
fn split_and<'e>(e: &'e ast::Expr, out: &mut Vec<&'e ast::Expr>) {
    match e {
        ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::And,
            right,
        } => {
            split_and(left, out);
            split_and(right, out);
        }
        ast::Expr::Nested(inner) => split_and(inner, out),
        other => out.push(other),
    }
}
