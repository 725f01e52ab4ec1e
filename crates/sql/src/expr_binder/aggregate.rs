//! The aggregate scope: how aggregate calls (and OVER calls) are found in
//! an expression, bound to their function, argument and result type, and
//! referenced as columns of the aggregation's output; and how an
//! expression equal to a grouping key reads that key's column.

use super::{spanned, ExprBinder};
use crate::binder::grouping_sets::{grouping_call, GroupingIds};
use datafusion_common::ScalarValue;
use sqlparser::ast::{self, DuplicateTreatment, FunctionArg, FunctionArgExpr, FunctionArguments};
use tidemark_common::expr::{AggregateFunction, Expr};
use tidemark_common::{Error, Result, SqlType};

/// The state of binding the SELECT list and HAVING of an aggregation.
pub struct AggregateScope {
    /// The grouping expressions over the aggregation's input, with the
    /// output column each maps to.
    pub groups: Vec<(Expr, Expr)>,
    /// The aggregate calls found so far, with arguments over the input.
    pub calls: Vec<BoundAggregate>,
    /// Index of the first aggregate column in the aggregation's output.
    pub first_aggregate_column: usize,
    /// The grouping sets, when GROUP BY has several.
    pub grouping: Option<GroupingIds>,
}

/// Shown as it reads in SQL: `COUNT(*)`, `SUM(price)`, `COUNT(DISTINCT k)`,
/// `COUNT(*) FILTER (WHERE price > 10)`.
impl std::fmt::Display for BoundAggregate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let distinct = if self.distinct { "DISTINCT " } else { "" };
        match &self.arg {
            None => write!(f, "{}(*)", self.func.name())?,
            Some(a) => write!(f, "{}({distinct}{a})", self.func.name())?,
        }
        match &self.filter {
            Some(c) => write!(f, " FILTER (WHERE {c})"),
            None => Ok(()),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BoundAggregate {
    pub func: AggregateFunction,
    pub arg: Option<Expr>,
    pub distinct: bool,
    pub separator: Option<String>,
    /// `FILTER (WHERE c)`: only rows where `c` is TRUE are aggregated.
    pub filter: Option<Expr>,
    pub ty: SqlType,
}

impl BoundAggregate {
    /// The function and argument the engine computes: a FILTER becomes a
    /// CASE that gives NULL for the rows it leaves out, which every
    /// aggregate skips (`COUNT(*)` becomes a COUNT of a constant).
    pub fn computed(&self) -> (AggregateFunction, Option<Expr>) {
        let Some(condition) = &self.filter else {
            return (self.func, self.arg.clone());
        };
        let (func, value) = match (&self.arg, self.func) {
            (Some(a), func) => (func, a.clone()),
            (None, _) => (
                AggregateFunction::Count,
                Expr::Literal {
                    value: ScalarValue::Int32(Some(1)),
                    ty: SqlType::Int,
                },
            ),
        };
        let ty = value.ty();
        let case = Expr::Case {
            branches: vec![(condition.clone(), value)],
            otherwise: None,
            ty,
        };
        (func, Some(case))
    }
}

impl ExprBinder<'_> {
    pub(super) fn bind_in_aggregate(&mut self, e: &ast::Expr) -> Result<Expr> {
        if let Some(call) = grouping_call(e) {
            return self.bind_grouping(call, e);
        }
        if let Some(call) = aggregate_call(e) {
            return self.bind_aggregate_call(call, e);
        }
        // An expression that equals a grouping key reads the key's column.
        let mut plain = ExprBinder::new(self.schema, self.clause);
        if let Ok(bound) = plain.bind_plain(e) {
            let scope = self
                .aggregate
                .as_deref()
                .expect("aggregate scope checked by caller");
            if let Some((_, column)) = scope.groups.iter().find(|(g, _)| *g == bound) {
                return Ok(column.clone());
            }
            if let ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) = e {
                return Err(Error::plan(
                    format!("column '{bound}' is neither grouped nor aggregated"),
                    spanned(e),
                )
                .with_hint(format!(
                    "add it to GROUP BY or use it in an aggregate such as FIRST_VALUE({bound})"
                )));
            }
        }
        self.bind_plain(e)
    }

    /// `GROUPING(k, ..)` / `GROUPING_ID(k, ..)`: which of its arguments,
    /// each a GROUP BY expression, the row's grouping set leaves out.
    fn bind_grouping(&mut self, call: &ast::Function, e: &ast::Expr) -> Result<Expr> {
        let name = call.name.to_string().to_ascii_uppercase();
        let args: Vec<&ast::Expr> = match &call.args {
            FunctionArguments::List(list) if list.duplicate_treatment.is_none() => list
                .args
                .iter()
                .map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Ok(x),
                    _ => Err(Error::plan(
                        format!("unsupported argument to {name}"),
                        spanned(e),
                    )),
                })
                .collect::<Result<_>>()?,
            _ => vec![],
        };
        if args.is_empty() {
            return Err(Error::plan(
                format!("{name} takes the GROUP BY expressions to test"),
                spanned(e),
            )
            .with_hint(format!("{name}(k)")));
        }
        let scope = self
            .aggregate
            .as_deref()
            .expect("aggregate scope checked by caller");
        let mut key_of = Vec::with_capacity(args.len());
        for a in args {
            let bound = ExprBinder::new(self.schema, "GROUPING").bind_plain(a)?;
            let keys = scope.grouping.as_ref().map_or(&[][..], |g| &g.keys[..]);
            match keys.iter().position(|k| *k == bound) {
                Some(k) => key_of.push(Some(k)),
                None if scope.groups.iter().any(|(g, _)| *g == bound) => key_of.push(None),
                None => {
                    return Err(Error::plan(
                        format!("{name}'s argument '{bound}' is not a GROUP BY expression"),
                        spanned(a),
                    ))
                }
            }
        }
        Ok(GroupingIds::value(scope.grouping.as_ref(), &key_of))
    }

    pub(super) fn bind_aggregate_call(
        &mut self,
        call: &ast::Function,
        e: &ast::Expr,
    ) -> Result<Expr> {
        let span = spanned(e);
        if call.over.is_some() {
            let name = call.name.to_string().to_ascii_uppercase();
            return Err(Error::plan(
                format!("{name} with OVER is not supported here"),
                span,
            ));
        }
        let bound = self.bound_aggregate(call, e)?;
        let ty = bound.ty.clone();
        let Some(scope) = self.aggregate.as_deref_mut() else {
            return Err(Error::plan(
                format!("aggregate functions are not allowed in {}", self.clause),
                span,
            ));
        };
        let index = match scope.calls.iter().position(|c| *c == bound) {
            Some(i) => i,
            None => {
                scope.calls.push(bound);
                scope.calls.len() - 1
            }
        };
        let name = scope.calls[index].to_string();
        Ok(Expr::column(scope.first_aggregate_column + index, name, ty))
    }

    /// An aggregate call's function, argument (over this binder's schema)
    /// and Flink's result type. Its OVER clause, if any, is the caller's.
    pub fn bound_aggregate(&self, call: &ast::Function, e: &ast::Expr) -> Result<BoundAggregate> {
        let span = spanned(e);
        let name = call.name.to_string().to_ascii_uppercase();
        let (args, distinct) = match &call.args {
            FunctionArguments::List(list) => (
                list.args.iter().collect::<Vec<_>>(),
                matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct)),
            ),
            _ => (vec![], false),
        };
        let mut inner = ExprBinder::new(self.schema, "aggregate argument");
        let mut bound_args = Vec::new();
        let mut star = false;
        for a in &args {
            match a {
                FunctionArg::Unnamed(FunctionArgExpr::Wildcard) => star = true,
                FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => {
                    if aggregate_call(x).is_some() {
                        return Err(Error::plan("aggregate calls cannot be nested", spanned(x)));
                    }
                    bound_args.push((inner.bind_plain(x)?, x));
                }
                _ => return Err(Error::plan(format!("unsupported argument to {name}"), span)),
            }
        }
        let func = match name.as_str() {
            "COUNT" if star || bound_args.is_empty() => AggregateFunction::CountStar,
            "COUNT" => AggregateFunction::Count,
            "SUM" => AggregateFunction::Sum,
            "MIN" => AggregateFunction::Min,
            "MAX" => AggregateFunction::Max,
            "AVG" => AggregateFunction::Avg,
            "LISTAGG" => AggregateFunction::ListAgg,
            "FIRST_VALUE" => AggregateFunction::FirstValue,
            "LAST_VALUE" => AggregateFunction::LastValue,
            _ => return Err(Error::Internal(format!("{name} is not an aggregate"))),
        };
        let expected_args = match func {
            AggregateFunction::CountStar => 0,
            AggregateFunction::ListAgg => bound_args.len().clamp(1, 2),
            _ => 1,
        };
        if bound_args.len() != expected_args || (star && func != AggregateFunction::CountStar) {
            return Err(Error::plan(
                format!(
                    "{name} takes {expected_args} argument(s), got {}",
                    bound_args.len() + star as usize
                ),
                span,
            ));
        }
        if distinct && func == AggregateFunction::CountStar {
            return Err(Error::plan("COUNT(DISTINCT *) is not valid SQL", span)
                .with_hint("name the column: COUNT(DISTINCT x)"));
        }
        let filter = match &call.filter {
            None => None,
            Some(condition) => {
                if aggregate_call(condition).is_some() || contains_aggregate(condition) {
                    return Err(Error::plan(
                        "an aggregate's FILTER cannot hold another aggregate",
                        spanned(condition),
                    ));
                }
                let mut filter_binder = ExprBinder::new(self.schema, "FILTER");
                Some(filter_binder.bind_boolean(condition)?)
            }
        };
        let arg = bound_args.first().map(|(b, _)| b.clone());
        let arg_type = arg.as_ref().map(|a| a.ty());
        let arg_span = bound_args.first().map(|(_, x)| spanned(x)).unwrap_or(span);
        let numeric = |t: &SqlType| -> Result<()> {
            if t.is_numeric() {
                Ok(())
            } else {
                Err(Error::plan(
                    format!("{name} needs a numeric argument, got {t}"),
                    arg_span,
                ))
            }
        };
        let ty = match (func, &arg_type) {
            (AggregateFunction::CountStar | AggregateFunction::Count, _) => SqlType::BigInt,
            (AggregateFunction::Sum, Some(t)) => {
                numeric(t)?;
                match t {
                    SqlType::Decimal(_, s) => SqlType::Decimal(38, *s),
                    t => t.clone(),
                }
            }
            (AggregateFunction::Avg, Some(t)) => {
                numeric(t)?;
                match t {
                    SqlType::Decimal(_, s) => SqlType::Decimal(38, (*s).max(6)),
                    t => t.clone(),
                }
            }
            (AggregateFunction::ListAgg, Some(t)) => {
                if !t.is_string() {
                    return Err(Error::plan(
                        format!("LISTAGG needs a STRING argument, got {t}"),
                        arg_span,
                    )
                    .with_hint("use CAST(x AS STRING)"));
                }
                SqlType::String
            }
            (_, Some(SqlType::Null)) => {
                return Err(Error::plan(format!("{name} of an untyped NULL"), arg_span)
                    .with_hint("CAST the NULL to a type"))
            }
            (_, Some(t)) => t.clone(),
            (_, None) => return Err(Error::Internal("aggregate without argument".into())),
        };
        let separator = if func == AggregateFunction::ListAgg {
            match bound_args.get(1) {
                None => Some(",".to_string()),
                Some((
                    Expr::Literal {
                        value: ScalarValue::Utf8(Some(s)),
                        ..
                    },
                    _,
                )) => Some(s.clone()),
                Some((_, x)) => {
                    return Err(Error::plan(
                        "LISTAGG's separator must be a string literal",
                        spanned(x),
                    ))
                }
            }
        } else {
            None
        };
        Ok(BoundAggregate {
            func,
            arg,
            distinct,
            separator,
            filter,
            ty,
        })
    }
}

/// The OVER aggregate call an expression is, if it is one.
pub fn over_call(e: &ast::Expr) -> Option<&ast::Function> {
    match e {
        ast::Expr::Function(f) if f.over.is_some() => Some(f),
        _ => None,
    }
}

/// Every OVER call in an expression (copies), outermost first.
pub fn over_calls(e: &ast::Expr) -> Vec<(ast::Function, ast::Expr)> {
    let mut found = Vec::new();
    let _ = sqlparser::ast::visit_expressions(e, |x| {
        if let Some(f) = over_call(x) {
            found.push((f.clone(), x.clone()));
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    found
}

/// The aggregate call an expression is, if it is one.
pub fn aggregate_call(e: &ast::Expr) -> Option<&ast::Function> {
    match e {
        ast::Expr::Function(f) if f.over.is_none() => {
            let name = f.name.to_string().to_ascii_uppercase();
            matches!(
                name.as_str(),
                "COUNT" | "SUM" | "MIN" | "MAX" | "AVG" | "LISTAGG" | "FIRST_VALUE" | "LAST_VALUE"
            )
            .then_some(f)
        }
        _ => None,
    }
}

/// Whether an expression contains an aggregate call anywhere.
pub fn contains_aggregate(e: &ast::Expr) -> bool {
    let mut found = false;
    let _ = sqlparser::ast::visit_expressions(e, |x| {
        if aggregate_call(x).is_some() {
            found = true;
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    found
}
