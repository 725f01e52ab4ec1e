//! The SELECT list, bound over a schema (by a projection, a window
//! aggregation and an OVER aggregation alike); filters, which must be
//! BOOLEAN; and a SELECT without aggregation: filter, then project.

use super::relation::Relation;
use super::QueryBinder;
use crate::expr_binder::{spanned, ExprBinder};
use crate::plan::LogicalPlan;
use crate::statement::span_of;
use sqlparser::ast::{self, SelectItem, Spanned};
use tidemark_common::expr::Expr;
use tidemark_common::{Error, Field, Result, Schema, Span, SqlType};

impl QueryBinder<'_> {
    /// A SELECT without aggregation: filter, then project.
    pub(super) fn bind_projection(
        &mut self,
        select: &ast::Select,
        relation: Relation,
    ) -> Result<LogicalPlan> {
        let mut plan = relation.plan;
        if let Some(w) = &select.selection {
            let predicate = ExprBinder::new(plan.schema(), "WHERE").bind(w)?;
            plan = filter(plan, predicate, spanned(w))?;
        }
        let (exprs, fields) = {
            let schema = plan.schema().clone();
            let mut binder = ExprBinder::new(&schema, "SELECT");
            select_list(&select.projection, &schema, &schema, &mut binder)?
        };
        Ok(LogicalPlan::Project {
            input: Box::new(plan),
            exprs,
            schema: Schema::new(fields),
        })
    }
}

pub(crate) fn filter(mut plan: LogicalPlan, predicate: Expr, span: Span) -> Result<LogicalPlan> {
    crate::over::mark_deduplication(&mut plan, &predicate);
    crate::over::mark_rank_limit(&mut plan, &predicate);
    match predicate.ty() {
        SqlType::Boolean => Ok(LogicalPlan::Filter {
            input: Box::new(plan),
            predicate,
        }),
        other => Err(Error::plan(
            format!("a filter must be a BOOLEAN expression, not {other}"),
            span,
        )),
    }
}

/// Binds a SELECT list. `columns` is the schema the bound column
/// references point into (the aggregation's output under GROUP BY): a
/// plain reference to a rowtime attribute stays one, so a later window can
/// use it (`window_time` of a window aggregation, say).
pub(crate) fn select_list(
    items: &[SelectItem],
    schema: &Schema,
    columns: &Schema,
    binder: &mut ExprBinder<'_>,
) -> Result<(Vec<Expr>, Vec<Field>)> {
    let rowtime = |e: &Expr| {
        e.as_column()
            .and_then(|i| columns.fields.get(i))
            .is_some_and(|f| f.rowtime)
    };
    let mut exprs = Vec::new();
    let mut fields = Vec::new();
    for item in items {
        match item {
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => {
                for f in &schema.fields {
                    let col = ast::Expr::Identifier(ast::Ident::new(f.name.clone()));
                    let e = match binder.bind(&col) {
                        Ok(e) => e,
                        Err(_) if binder.aggregate.is_some() => {
                            return Err(Error::plan(
                                "SELECT * is not allowed in an aggregation",
                                span_of(item.span()),
                            ))
                        }
                        Err(e) => return Err(e),
                    };
                    fields.push(Field::new(f.name.clone(), e.ty()).rowtime(rowtime(&e)));
                    exprs.push(e);
                }
            }
            SelectItem::UnnamedExpr(e) => {
                let bound = binder.bind(e)?;
                let name = match e {
                    ast::Expr::Identifier(id) => id.value.clone(),
                    ast::Expr::CompoundIdentifier(ids) => {
                        ids.last().map(|i| i.value.clone()).unwrap_or_default()
                    }
                    _ => format!("EXPR${}", exprs.len()),
                };
                fields.push(Field::new(name, bound.ty()).rowtime(rowtime(&bound)));
                exprs.push(bound);
            }
            SelectItem::ExprWithAlias { expr, alias } => {
                let bound = binder.bind(expr)?;
                fields.push(Field::new(alias.value.clone(), bound.ty()).rowtime(rowtime(&bound)));
                exprs.push(bound);
            }
            other => {
                return Err(Error::plan(
                    format!("'{other}' is not supported in SELECT"),
                    span_of(other.span()),
                ))
            }
        }
    }
    Ok((exprs, fields))
}
