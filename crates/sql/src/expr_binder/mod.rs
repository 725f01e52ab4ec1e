//! Binds sqlparser expressions to typed [`Expr`] trees over a schema.
//!
//! In an aggregation the binder works in an [`AggregateScope`]: aggregate
//! calls become references to the aggregation's output, expressions equal
//! to a grouping key become references to that key, and any other column is
//! an error that points at it.
//!
//! The binding is split by what it binds: [`aggregate`] (the aggregate
//! scope, and finding aggregate and OVER calls), [`expr`] (column
//! references, operators, CASE, ...), [`function`] (function calls),
//! [`literal`] (literals, INTERVAL and typed strings) and [`typing`]
//! (operator result types and coercion). This module holds the binder
//! itself, its nesting limit and the name suggestions of its errors.

mod aggregate;
mod expr;
mod function;
mod literal;
mod typing;

pub(crate) use aggregate::{contains_aggregate, over_calls, AggregateScope, BoundAggregate};
pub use literal::interval_millis;
pub(crate) use typing::{coerce, unify_branches};

use crate::statement::span_of;
use sqlparser::ast::{self, Spanned};
use tidemark_common::expr::Expr;
use tidemark_common::{Error, Result, Schema, Span};

pub struct ExprBinder<'a> {
    pub schema: &'a Schema,
    pub aggregate: Option<&'a mut AggregateScope>,
    /// OVER aggregate calls already computed, with the column that holds
    /// each one's result.
    pub over: &'a [(ast::Function, Expr)],
    /// What the expression is for, in messages: "WHERE", "SELECT", ...
    pub clause: &'static str,
    /// How deep the expression being bound nests so far.
    depth: usize,
}

/// How deep an expression may nest (`a + b + c + ...` nests one level per
/// term), so that no expression can exhaust the stack.
const MAX_EXPR_DEPTH: usize = 200;

pub fn spanned(e: &ast::Expr) -> Span {
    span_of(e.span())
}

impl<'a> ExprBinder<'a> {
    pub fn new(schema: &'a Schema, clause: &'static str) -> Self {
        ExprBinder {
            schema,
            aggregate: None,
            over: &[],
            clause,
            depth: 0,
        }
    }

    pub fn bind(&mut self, e: &ast::Expr) -> Result<Expr> {
        self.depth += 1;
        // Operator chains nest along their left side: measure that without
        // recursion first, so a huge chain fails before anything walks it.
        let result = if self.depth + left_spine(e, MAX_EXPR_DEPTH) > MAX_EXPR_DEPTH {
            Err(Error::plan(
                format!("the expression nests more than {MAX_EXPR_DEPTH} levels deep"),
                // The span of a deep tree is costly to compute: point at the
                // first leaf on the left.
                leftmost_span(e),
            ))
        } else if self.aggregate.is_some() {
            self.bind_in_aggregate(e)
        } else {
            self.bind_plain(e)
        };
        self.depth -= 1;
        result
    }
}

/// How many operators nest along the left side of `e`, counting up to
/// `limit` at most.
fn left_spine(mut e: &ast::Expr, limit: usize) -> usize {
    let mut n = 0;
    while n <= limit {
        match left_child(e) {
            Some(child) => e = child,
            None => return n,
        }
        n += 1;
    }
    n
}

fn leftmost_span(mut e: &ast::Expr) -> Span {
    while let Some(child) = left_child(e) {
        e = child;
    }
    spanned(e)
}

/// The next expression down the left side of `e`: the operand an operator
/// chain nests along.
fn left_child(e: &ast::Expr) -> Option<&ast::Expr> {
    match e {
        ast::Expr::BinaryOp { left, .. } => Some(left),
        ast::Expr::UnaryOp { expr, .. }
        | ast::Expr::Nested(expr)
        | ast::Expr::IsNull(expr)
        | ast::Expr::IsNotNull(expr)
        | ast::Expr::Cast { expr, .. } => Some(expr),
        _ => None,
    }
}

/// The closest name to `name` among `candidates`, if one is close enough to
/// be what the user meant.
pub fn nearest<'n>(name: &str, candidates: impl Iterator<Item = &'n str>) -> Option<&'n str> {
    let lower = name.to_ascii_lowercase();
    candidates
        // Columns the binder adds for itself (`$rowtime`) are not offered.
        .filter(|c| !c.starts_with('$'))
        .map(|c| (strsim::levenshtein(&lower, &c.to_ascii_lowercase()), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}
