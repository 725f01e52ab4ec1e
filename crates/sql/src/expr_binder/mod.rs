//! Binds sqlparser expressions to typed [`Expr`] trees over a schema.
//!
//! In an aggregation the binder works in an [`AggregateScope`]: aggregate
//! calls become references to the aggregation's output, expressions equal
//! to a grouping key become references to that key, and any other column is
//! an error that points at it.

use crate::dialect::TABLE_ARG;
use crate::functions::{self as library, Arg};
use crate::statement::span_of;
use crate::types::{arithmetic_type, can_cast, common_type, sql_type};
use datafusion_common::ScalarValue;
use sqlparser::ast::{
    self, BinaryOperator, CastKind, DuplicateTreatment, FunctionArg, FunctionArgExpr,
    FunctionArguments, Spanned, UnaryOperator, Value,
};
use tidemark_common::date_pattern::{java_to_chrono_pattern, PatternMode};
use tidemark_common::expr::{AggregateFunction, BinaryOp, Expr, ScalarFunction};
use tidemark_common::{Error, Result, Schema, Span, SqlType};

/// The state of binding the SELECT list and HAVING of an aggregation.
pub struct AggregateScope {
    /// The grouping expressions over the aggregation's input, with the
    /// output column each maps to.
    pub groups: Vec<(Expr, Expr)>,
    /// The aggregate calls found so far, with arguments over the input.
    pub calls: Vec<BoundAggregate>,
    /// Index of the first aggregate column in the aggregation's output.
    pub first_aggregate_column: usize,
}

/// Shown as it reads in SQL: `COUNT(*)`, `SUM(price)`, `COUNT(DISTINCT k)`.
impl std::fmt::Display for BoundAggregate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let distinct = if self.distinct { "DISTINCT " } else { "" };
        match &self.arg {
            None => write!(f, "{}(*)", self.func.name()),
            Some(a) => write!(f, "{}({distinct}{a})", self.func.name()),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BoundAggregate {
    pub func: AggregateFunction,
    pub arg: Option<Expr>,
    pub distinct: bool,
    pub separator: Option<String>,
    pub ty: SqlType,
}

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

    fn bind_in_aggregate(&mut self, e: &ast::Expr) -> Result<Expr> {
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

    fn bind_aggregate_call(&mut self, call: &ast::Function, e: &ast::Expr) -> Result<Expr> {
        let span = spanned(e);
        if call.filter.is_some() || call.over.is_some() {
            let name = call.name.to_string().to_ascii_uppercase();
            return Err(Error::plan(
                format!("{name} with FILTER or OVER is not supported here"),
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
        if call.filter.is_some() {
            return Err(Error::plan(
                format!("{name} with FILTER is not supported"),
                span,
            ));
        }
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
        if distinct && func != AggregateFunction::Count {
            return Err(Error::plan(
                format!("{name}(DISTINCT ...) is not supported yet; only COUNT(DISTINCT x) is"),
                span,
            ));
        }
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
            ty,
        })
    }

    fn column(&self, name: &str, span: Span) -> Result<Expr> {
        // A join's columns are `alias.column`: a plain name finds the one
        // side that has it.
        let qualified = || {
            let suffix = format!(".{}", name.to_ascii_lowercase());
            let mut found = self
                .schema
                .fields
                .iter()
                .enumerate()
                .filter(|(_, f)| f.name.to_ascii_lowercase().ends_with(&suffix));
            match (found.next(), found.next()) {
                (Some((i, _)), None) => Ok(Some(i)),
                (Some(_), Some(_)) => Err(Error::plan(
                    format!("column '{name}' is ambiguous: qualify it, as L.{name}"),
                    span,
                )),
                _ => Ok(None),
            }
        };
        let index = match self.schema.index_of(name) {
            Some(i) => Some(i),
            None => qualified()?,
        };
        match index {
            Some(i) => {
                let f = self.schema.field(i);
                Ok(Expr::column(i, f.name.clone(), f.ty.clone()))
            }
            None => {
                let mut err = Error::plan(format!("unknown column '{name}'"), span);
                if let Some(near) = nearest(name, self.schema.names()) {
                    err = err.with_hint(format!("did you mean '{near}'?"));
                } else {
                    let names: Vec<_> = self.schema.names().collect();
                    err = err.with_hint(format!("available columns: {}", names.join(", ")));
                }
                Err(err)
            }
        }
    }

    pub fn bind_plain(&mut self, e: &ast::Expr) -> Result<Expr> {
        let span = spanned(e);
        match e {
            ast::Expr::Identifier(id) => self.column(&id.value, span),
            ast::Expr::CompoundIdentifier(ids) => match ids.as_slice() {
                // `L.k` of a join names the column `L.k`.
                [q, n]
                    if self
                        .schema
                        .index_of(&format!("{}.{}", q.value, n.value))
                        .is_some() =>
                {
                    self.column(&format!("{}.{}", q.value, n.value), span)
                }
                [.., id] => self.column(&id.value, span),
                [] => Err(Error::plan("empty identifier", span)),
            },
            ast::Expr::Nested(inner) => self.bind(inner),
            ast::Expr::Value(v) => literal(&v.value, span),
            ast::Expr::TypedString(ts) => {
                let text = match &ts.value.value {
                    Value::SingleQuotedString(s) => s.clone(),
                    other => other.to_string(),
                };
                let ty = match &ts.data_type {
                    // A TIMESTAMP literal's precision is its number of
                    // fractional digits, as Flink types it.
                    ast::DataType::Timestamp(None, _) => {
                        let digits = text.trim().split_once('.').map_or(0, |(_, f)| f.len());
                        SqlType::Timestamp(digits.min(3) as u8)
                    }
                    other => sql_type(other, span)?,
                };
                Ok(Expr::Cast {
                    expr: Box::new(Expr::Literal {
                        value: ScalarValue::Utf8(Some(text)),
                        ty: SqlType::String,
                    }),
                    to: ty,
                    try_cast: false,
                })
            }
            ast::Expr::UnaryOp { op, expr } => {
                let inner = self.bind(expr)?;
                match op {
                    UnaryOperator::Not => {
                        Ok(Expr::Not(Box::new(expect_boolean(inner, spanned(expr))?)))
                    }
                    UnaryOperator::Minus => {
                        if !inner.ty().is_numeric() {
                            return Err(Error::plan(
                                format!("cannot negate a {}", inner.ty()),
                                span,
                            ));
                        }
                        Ok(Expr::Negate(Box::new(inner)))
                    }
                    UnaryOperator::Plus => Ok(inner),
                    other => Err(Error::plan(
                        format!("operator {other} is not supported"),
                        span,
                    )),
                }
            }
            ast::Expr::IsNull(inner) => Ok(Expr::IsNull {
                expr: Box::new(self.bind(inner)?),
                negated: false,
            }),
            ast::Expr::IsNotNull(inner) => Ok(Expr::IsNull {
                expr: Box::new(self.bind(inner)?),
                negated: true,
            }),
            ast::Expr::BinaryOp { left, op, right } => {
                if matches!(op, BinaryOperator::Plus | BinaryOperator::Minus)
                    && interval_millis(right).is_some()
                {
                    let l = self.bind(left)?;
                    if !l.ty().is_timestamp() {
                        return Err(Error::plan(
                            format!("an INTERVAL can only shift a timestamp, not a {}", l.ty()),
                            span,
                        ));
                    }
                    let op = if *op == BinaryOperator::Minus {
                        BinaryOp::Minus
                    } else {
                        BinaryOp::Plus
                    };
                    return timestamp_shift(op, l, right, span);
                }
                let l = self.bind(left)?;
                let r = self.bind(right)?;
                let op = match op {
                    BinaryOperator::Plus => BinaryOp::Plus,
                    BinaryOperator::Minus => BinaryOp::Minus,
                    BinaryOperator::Multiply => BinaryOp::Multiply,
                    BinaryOperator::Divide => BinaryOp::Divide,
                    BinaryOperator::Modulo => BinaryOp::Modulo,
                    BinaryOperator::StringConcat => BinaryOp::Concat,
                    BinaryOperator::Gt => BinaryOp::Gt,
                    BinaryOperator::Lt => BinaryOp::Lt,
                    BinaryOperator::GtEq => BinaryOp::GtEq,
                    BinaryOperator::LtEq => BinaryOp::LtEq,
                    BinaryOperator::Eq => BinaryOp::Eq,
                    BinaryOperator::NotEq => BinaryOp::NotEq,
                    BinaryOperator::And => BinaryOp::And,
                    BinaryOperator::Or => BinaryOp::Or,
                    other => {
                        return Err(Error::plan(
                            format!("operator {other} is not supported"),
                            span,
                        ))
                    }
                };
                binary(op, l, r, span, right)
            }
            ast::Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let x = self.bind(expr)?;
                let lo = self.bind(low)?;
                let hi = self.bind(high)?;
                let ge = binary(BinaryOp::GtEq, x.clone(), lo, span, low)?;
                let le = binary(BinaryOp::LtEq, x, hi, span, high)?;
                let both = binary(BinaryOp::And, ge, le, span, high)?;
                Ok(if *negated {
                    Expr::Not(Box::new(both))
                } else {
                    both
                })
            }
            ast::Expr::InList {
                expr,
                list,
                negated,
            } => {
                let x = self.bind(expr)?;
                let mut tests = Vec::with_capacity(list.len());
                for item in list {
                    let v = self.bind(item)?;
                    tests.push(binary(BinaryOp::Eq, x.clone(), v, span, item)?);
                }
                let any = balanced_or(tests, span)?;
                Ok(if *negated {
                    Expr::Not(Box::new(any))
                } else {
                    any
                })
            }
            ast::Expr::Cast {
                kind,
                expr,
                data_type,
                ..
            } => {
                let inner = self.bind(expr)?;
                let to = sql_type(data_type, span)?;
                if !can_cast(&inner.ty(), &to) {
                    return Err(Error::plan(
                        format!("cannot cast {} to {to}", inner.ty()),
                        span,
                    ));
                }
                Ok(Expr::Cast {
                    expr: Box::new(inner),
                    to,
                    try_cast: matches!(kind, CastKind::TryCast | CastKind::SafeCast),
                })
            }
            ast::Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let operand = operand.as_ref().map(|o| self.bind(o)).transpose()?;
                let mut branches = Vec::new();
                let mut ty = SqlType::Null;
                for when in conditions {
                    let c = self.bind(&when.condition)?;
                    let c = match &operand {
                        Some(o) => binary(BinaryOp::Eq, o.clone(), c, span, &when.condition)?,
                        None => expect_boolean(c, spanned(&when.condition))?,
                    };
                    let v = self.bind(&when.result)?;
                    ty = unify(&ty, &v.ty(), spanned(&when.result))?;
                    branches.push((c, v));
                }
                let otherwise = match else_result {
                    Some(e) => {
                        let v = self.bind(e)?;
                        ty = unify(&ty, &v.ty(), spanned(e))?;
                        Some(v)
                    }
                    None => None,
                };
                let branches = branches
                    .into_iter()
                    .map(|(c, v)| (c, coerce(v, &ty)))
                    .collect();
                Ok(Expr::Case {
                    branches,
                    otherwise: otherwise.map(|v| Box::new(coerce(v, &ty))),
                    ty,
                })
            }
            ast::Expr::Function(f) if f.over.is_some() => {
                match self.over.iter().find(|(call, _)| call == f) {
                    Some((_, column)) => Ok(column.clone()),
                    None => Err(Error::plan(
                        format!("OVER is not allowed in {}", self.clause),
                        span,
                    )),
                }
            }
            ast::Expr::Function(f) => self.bind_function(f, e),
            ast::Expr::Extract { field, expr, .. } => {
                let ts = self.arg(expr)?;
                library::bind_extract(field, ts, span)
            }
            ast::Expr::Floor { expr, field } | ast::Expr::Ceil { expr, field } => {
                let ceil = matches!(e, ast::Expr::Ceil { .. });
                let ts = self.arg(expr)?;
                match field {
                    ast::CeilFloorKind::DateTimeField(unit) => {
                        library::bind_floor_ceil(ceil, unit, ts, span)
                    }
                    ast::CeilFloorKind::Scale(_) => Err(Error::plan(
                        "FLOOR and CEIL with a scale are not supported",
                        span,
                    )),
                }
            }
            ast::Expr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let s = self.arg(expr)?;
                let from = substring_from.as_deref().map(|x| self.arg(x)).transpose()?;
                let len = substring_for.as_deref().map(|x| self.arg(x)).transpose()?;
                library::bind_substring(s, from, len, span)
            }
            ast::Expr::Trim {
                expr,
                trim_where,
                trim_what,
                trim_characters,
            } => {
                if trim_characters.is_some() {
                    return Err(Error::plan("TRIM(s, chars) is not Flink syntax", span)
                        .with_hint("write TRIM(BOTH chars FROM s)"));
                }
                let s = self.arg(expr)?;
                let chars = trim_what.as_deref().map(|x| self.arg(x)).transpose()?;
                library::bind_trim(trim_where.as_ref(), chars, s, span)
            }
            ast::Expr::Interval(_) => Err(Error::plan(
                "an INTERVAL can only be added to or subtracted from a timestamp here",
                span,
            )),
            other => Err(Error::plan(
                format!("expression '{other}' is not supported"),
                span,
            )),
        }
    }

    /// A function argument bound, with its span.
    fn arg(&mut self, x: &ast::Expr) -> Result<Arg> {
        Ok(Arg {
            expr: self.bind(x)?,
            span: spanned(x),
        })
    }

    fn bind_function(&mut self, f: &ast::Function, e: &ast::Expr) -> Result<Expr> {
        let span = spanned(e);
        let name = f.name.to_string().to_ascii_uppercase();
        if aggregate_call(e).is_some() {
            if self.aggregate.is_none() {
                return Err(Error::plan(format!("aggregate function {name} is not allowed in {}", self.clause), span)
                    .with_hint("aggregate over a window: FROM TABLE(TUMBLE(...)) GROUP BY window_start, window_end"));
            }
            return self.bind_aggregate_call(f, e);
        }
        if name == TABLE_ARG || name == "DESCRIPTOR" {
            return Err(Error::plan(
                format!(
                    "{} is only allowed as an argument of a window function",
                    if name == TABLE_ARG {
                        "TABLE"
                    } else {
                        "DESCRIPTOR"
                    }
                ),
                span,
            ));
        }
        let args = match &f.args {
            FunctionArguments::List(list) => list
                .args
                .iter()
                .map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => self.arg(x),
                    _ => Err(Error::plan(format!("unsupported argument to {name}"), span)),
                })
                .collect::<Result<Vec<_>>>()?,
            FunctionArguments::None => vec![],
            FunctionArguments::Subquery(_) => {
                return Err(Error::plan("subqueries are not supported", span))
            }
        };
        let args = match library::bind_call(&name, args, span) {
            Ok(bound) => return bound,
            Err(args) => args,
        };
        let args: Vec<Expr> = args.into_iter().map(|a| a.expr).collect();
        let arity = |n: usize| -> Result<()> {
            if args.len() == n {
                Ok(())
            } else {
                Err(Error::plan(
                    format!("{name} takes {n} argument(s), got {}", args.len()),
                    span,
                ))
            }
        };
        let string_fn = |func: ScalarFunction, ty: SqlType, args: Vec<Expr>| -> Result<Expr> {
            if !args[0].ty().is_string() && args[0].ty() != SqlType::Null {
                return Err(Error::plan(
                    format!("{name} needs a STRING argument, got {}", args[0].ty()),
                    span,
                ));
            }
            Ok(Expr::Function { func, args, ty })
        };
        match name.as_str() {
            "COALESCE" => {
                if args.is_empty() {
                    return Err(Error::plan("COALESCE needs at least one argument", span));
                }
                let mut ty = SqlType::Null;
                for a in &args {
                    ty = unify(&ty, &a.ty(), span)?;
                }
                let args = args.into_iter().map(|a| coerce(a, &ty)).collect();
                Ok(Expr::Coalesce { args, ty })
            }
            "UPPER" => {
                arity(1)?;
                string_fn(ScalarFunction::Upper, SqlType::String, args)
            }
            "LOWER" => {
                arity(1)?;
                string_fn(ScalarFunction::Lower, SqlType::String, args)
            }
            "CHAR_LENGTH" | "CHARACTER_LENGTH" => {
                arity(1)?;
                string_fn(ScalarFunction::CharLength, SqlType::Int, args)
            }
            "ABS" => {
                arity(1)?;
                let ty = args[0].ty();
                if !ty.is_numeric() {
                    return Err(Error::plan(
                        format!("ABS needs a numeric argument, got {ty}"),
                        span,
                    ));
                }
                Ok(Expr::Function {
                    func: ScalarFunction::Abs,
                    args,
                    ty,
                })
            }
            "CURRENT_WATERMARK" => {
                arity(1)?;
                if matches!(self.clause, "a computed column" | "a WATERMARK expression") {
                    return Err(Error::plan(
                        format!("CURRENT_WATERMARK is not allowed in {}", self.clause),
                        span,
                    ));
                }
                let rowtime = args[0]
                    .as_column()
                    .map(|c| self.schema.field(c))
                    .filter(|f| f.rowtime);
                let Some(field) = rowtime else {
                    return Err(Error::plan(
                        "CURRENT_WATERMARK takes a rowtime attribute (the column of a WATERMARK FOR clause, or window_time)",
                        span,
                    ));
                };
                Ok(Expr::Function {
                    func: ScalarFunction::CurrentWatermark,
                    args,
                    ty: match field.ty {
                        SqlType::TimestampLtz(_) => SqlType::TimestampLtz(3),
                        _ => SqlType::Timestamp(3),
                    },
                })
            }
            "PROCTIME" => {
                arity(0)?;
                if self.clause != "a computed column" {
                    return Err(
                        Error::plan("PROCTIME() can only define a computed column", span)
                            .with_hint("declare `pt AS PROCTIME()` in CREATE TABLE"),
                    );
                }
                Ok(Expr::Function {
                    func: ScalarFunction::ProcTime,
                    args,
                    ty: SqlType::TimestampLtz(3),
                })
            }
            "TO_TIMESTAMP" => {
                if args.is_empty()
                    || args.len() > 2
                    || !(args[0].ty().is_string() || args[0].ty() == SqlType::Null)
                {
                    return Err(Error::plan(
                        "TO_TIMESTAMP takes a STRING and an optional format literal",
                        span,
                    ));
                }
                let pattern = match args.get(1) {
                    None => "yyyy-MM-dd HH:mm:ss".to_string(),
                    Some(Expr::Literal {
                        value: ScalarValue::Utf8(Some(p)),
                        ..
                    }) => p.clone(),
                    Some(_) => {
                        return Err(Error::plan(
                            "TO_TIMESTAMP's format must be a string literal",
                            span,
                        ))
                    }
                };
                let format =
                    java_to_chrono_pattern(&pattern, PatternMode::Parse).ok_or_else(|| {
                        Error::plan(format!("format '{pattern}' is not supported"), span).with_hint(
                        "use the letters yyyy, MM, dd, HH, mm, ss and SSS with literal separators",
                    )
                    })?;
                let text = coerce(
                    args.into_iter().next().expect("arity checked above"),
                    &SqlType::String,
                );
                Ok(Expr::Function {
                    func: ScalarFunction::ToTimestamp,
                    args: vec![
                        text,
                        Expr::Literal {
                            value: ScalarValue::Utf8(Some(format)),
                            ty: SqlType::String,
                        },
                    ],
                    ty: SqlType::Timestamp(3),
                })
            }
            "TO_TIMESTAMP_LTZ" => {
                let millis = match args.get(1) {
                    None => true,
                    Some(Expr::Literal {
                        value: ScalarValue::Int32(Some(p)),
                        ..
                    }) if *p == 0 || *p == 3 => *p == 3,
                    Some(_) => {
                        return Err(Error::plan(
                            "TO_TIMESTAMP_LTZ's precision must be the literal 0 or 3",
                            span,
                        ))
                    }
                };
                if args.is_empty() || args.len() > 2 || !args[0].ty().is_integer() {
                    return Err(Error::plan(
                        "TO_TIMESTAMP_LTZ takes an integer epoch and a precision (0 or 3)",
                        span,
                    ));
                }
                let epoch = coerce(
                    args.into_iter().next().expect("arity checked above"),
                    &SqlType::BigInt,
                );
                Ok(Expr::Function {
                    func: ScalarFunction::ToTimestampLtz { millis },
                    args: vec![epoch],
                    ty: SqlType::TimestampLtz(3),
                })
            }
            _ => Err(Error::plan(format!("unknown function {name}"), span)),
        }
    }
}

/// How many operators nest along the left side of `e`, counting up to
/// `limit` at most.
fn left_spine(mut e: &ast::Expr, limit: usize) -> usize {
    let mut n = 0;
    while n <= limit {
        match e {
            ast::Expr::BinaryOp { left, .. } => e = left,
            ast::Expr::UnaryOp { expr, .. }
            | ast::Expr::Nested(expr)
            | ast::Expr::IsNull(expr)
            | ast::Expr::IsNotNull(expr)
            | ast::Expr::Cast { expr, .. } => e = expr,
            _ => return n,
        }
        n += 1;
    }
    n
}

fn leftmost_span(mut e: &ast::Expr) -> Span {
    loop {
        match e {
            ast::Expr::BinaryOp { left, .. } => e = left,
            ast::Expr::UnaryOp { expr, .. }
            | ast::Expr::Nested(expr)
            | ast::Expr::IsNull(expr)
            | ast::Expr::IsNotNull(expr)
            | ast::Expr::Cast { expr, .. } => e = expr,
            other => return spanned(other),
        }
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

fn literal(v: &Value, span: Span) -> Result<Expr> {
    Ok(match v {
        Value::Number(text, _) => number_literal(text, span)?,
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Expr::Literal {
            value: ScalarValue::Utf8(Some(s.clone())),
            ty: SqlType::String,
        },
        Value::Boolean(b) => Expr::Literal {
            value: ScalarValue::Boolean(Some(*b)),
            ty: SqlType::Boolean,
        },
        Value::Null => Expr::Literal {
            value: ScalarValue::Null,
            ty: SqlType::Null,
        },
        other => {
            return Err(Error::plan(
                format!("literal {other} is not supported"),
                span,
            ))
        }
    })
}

/// Numbers as Flink types them: `5` INT (BIGINT if it does not fit),
/// `1.50` DECIMAL(3, 2), `1e3` DOUBLE.
fn number_literal(text: &str, span: Span) -> Result<Expr> {
    let bad = || Error::plan(format!("bad number '{text}'"), span);
    if text.contains(['e', 'E']) {
        let v: f64 = text.parse().map_err(|_| bad())?;
        return Ok(Expr::Literal {
            value: ScalarValue::Float64(Some(v)),
            ty: SqlType::Double,
        });
    }
    if let Some((int, frac)) = text.split_once('.') {
        let int = int.trim_start_matches('0');
        let scale = frac.len();
        let precision = (int.len() + scale).max(1).max(scale);
        if precision > 38 {
            return Err(Error::plan(
                format!("number '{text}' has more than 38 digits"),
                span,
            ));
        }
        let digits: i128 = format!("{int}{frac}").parse::<i128>().or_else(|_| {
            if int.is_empty() && frac.is_empty() {
                Ok(0)
            } else {
                Err(bad())
            }
        })?;
        return Ok(Expr::Literal {
            value: ScalarValue::Decimal128(Some(digits), precision as u8, scale as i8),
            ty: SqlType::Decimal(precision as u8, scale as i8),
        });
    }
    if let Ok(v) = text.parse::<i32>() {
        return Ok(Expr::Literal {
            value: ScalarValue::Int32(Some(v)),
            ty: SqlType::Int,
        });
    }
    if let Ok(v) = text.parse::<i64>() {
        return Ok(Expr::Literal {
            value: ScalarValue::Int64(Some(v)),
            ty: SqlType::BigInt,
        });
    }
    // Beyond BIGINT Flink reads an integer literal as a DECIMAL.
    let digits: i128 = text.parse().map_err(|_| bad())?;
    if text.len() > 38 {
        return Err(bad());
    }
    Ok(Expr::Literal {
        value: ScalarValue::Decimal128(Some(digits), text.len() as u8, 0),
        ty: SqlType::Decimal(text.len() as u8, 0),
    })
}

/// `t1 OR t2 OR ...` as a balanced tree, so that a long IN list does not
/// make a deep one.
fn balanced_or(mut tests: Vec<Expr>, span: Span) -> Result<Expr> {
    if tests.is_empty() {
        return Err(Error::plan("IN needs at least one value", span));
    }
    while tests.len() > 1 {
        let mut next = Vec::with_capacity(tests.len().div_ceil(2));
        let mut pairs = tests.into_iter();
        while let Some(a) = pairs.next() {
            next.push(match pairs.next() {
                Some(b) => Expr::Binary {
                    op: BinaryOp::Or,
                    left: Box::new(a),
                    right: Box::new(b),
                    ty: SqlType::Boolean,
                },
                None => a,
            });
        }
        tests = next;
    }
    tests
        .pop()
        .ok_or_else(|| Error::Internal("empty IN list".into()))
}

fn expect_boolean(e: Expr, span: Span) -> Result<Expr> {
    match e.ty() {
        SqlType::Boolean => Ok(e),
        SqlType::Null => Ok(coerce(e, &SqlType::Boolean)),
        other => Err(Error::plan(
            format!("expected a BOOLEAN expression, got {other}"),
            span,
        )),
    }
}

pub(crate) fn unify(a: &SqlType, b: &SqlType, span: Span) -> Result<SqlType> {
    common_type(a, b).ok_or_else(|| Error::plan(format!("cannot mix {a} and {b} here"), span))
}

/// `e` as type `ty`: unchanged if it already has it, else a safe CAST.
pub fn coerce(e: Expr, ty: &SqlType) -> Expr {
    if e.ty() == *ty {
        e
    } else {
        Expr::Cast {
            expr: Box::new(e),
            to: ty.clone(),
            try_cast: false,
        }
    }
}

/// The interval an `INTERVAL 'n' unit` expression stands for, in ms.
pub fn interval_millis(e: &ast::Expr) -> Option<Result<i64>> {
    let ast::Expr::Interval(iv) = e else {
        return None;
    };
    let span = spanned(e);
    let text = match iv.value.as_ref() {
        ast::Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => s.clone(),
            Value::Number(n, _) => n.clone(),
            _ => return Some(Err(Error::plan("an INTERVAL needs a quoted number", span))),
        },
        _ => return Some(Err(Error::plan("an INTERVAL needs a quoted number", span))),
    };
    use ast::DateTimeField as F;
    let unit: i64 = match &iv.leading_field {
        Some(F::Millisecond | F::Milliseconds) => 1,
        Some(F::Second | F::Seconds) => 1_000,
        Some(F::Minute | F::Minutes) => 60_000,
        Some(F::Hour | F::Hours) => 3_600_000,
        Some(F::Day | F::Days) => 86_400_000,
        Some(other) => {
            return Some(Err(Error::plan(
                format!("INTERVAL unit {other} is not supported; use MILLISECOND, SECOND, MINUTE, HOUR or DAY"),
                span,
            )))
        }
        None => return Some(Err(Error::plan("an INTERVAL needs a unit, e.g. INTERVAL '5' SECOND", span))),
    };
    if iv.last_field.is_some() {
        return Some(Err(Error::plan(
            "INTERVAL ranges (e.g. DAY TO SECOND) are not supported",
            span,
        )));
    }
    let trimmed = text.trim();
    let (negative, digits) = match trimmed.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, trimmed),
    };
    let value = match digits.split_once('.') {
        None => digits.parse::<i64>().ok().and_then(|v| v.checked_mul(unit)),
        Some((whole, frac))
            if unit >= 1_000 && frac.len() <= 3 && frac.chars().all(|c| c.is_ascii_digit()) =>
        {
            let whole = if whole.is_empty() {
                Some(0)
            } else {
                whole.parse::<i64>().ok()
            };
            let frac_ms = format!("{frac:0<3}")
                .parse::<i64>()
                .ok()
                .map(|f| f * (unit / 1_000));
            whole
                .and_then(|w| w.checked_mul(unit))
                .zip(frac_ms)
                .map(|(w, f)| w + f)
        }
        Some(_) => None,
    };
    Some(
        value
            .map(|v| if negative { -v } else { v })
            .ok_or_else(|| Error::plan(format!("cannot read INTERVAL '{text}'"), span)),
    )
}

fn binary(op: BinaryOp, l: Expr, r: Expr, span: Span, _right: &ast::Expr) -> Result<Expr> {
    let (lt, rt) = (l.ty(), r.ty());
    let mismatch = || {
        Error::plan(
            format!("cannot apply '{}' to {lt} and {rt}", op.symbol()),
            span,
        )
    };
    match op {
        BinaryOp::And | BinaryOp::Or => {
            let l = expect_boolean(l, span)?;
            let r = expect_boolean(r, span)?;
            Ok(Expr::Binary {
                op,
                left: Box::new(l),
                right: Box::new(r),
                ty: SqlType::Boolean,
            })
        }
        BinaryOp::Concat => {
            for t in [&lt, &rt] {
                if !t.is_string() && *t != SqlType::Null {
                    return Err(mismatch().with_hint("'||' joins strings; use CAST(x AS STRING)"));
                }
            }
            Ok(Expr::Binary {
                op,
                left: Box::new(coerce(l, &SqlType::String)),
                right: Box::new(coerce(r, &SqlType::String)),
                ty: SqlType::String,
            })
        }
        _ if op.is_comparison() => {
            let ty = common_type(&lt, &rt).ok_or_else(mismatch)?;
            Ok(Expr::Binary {
                op,
                left: Box::new(coerce(l, &ty)),
                right: Box::new(coerce(r, &ty)),
                ty: SqlType::Boolean,
            })
        }
        _ => {
            let ty = arithmetic_type(op, &lt, &rt).ok_or_else(mismatch)?;
            // Operands meet in the result's family: integers and doubles are
            // cast to the result type; decimals keep their own scale, the
            // engine rescales exactly.
            let operand_ty = |t: &SqlType| match (&ty, t) {
                (SqlType::Decimal(..), SqlType::Decimal(..)) => t.clone(),
                (SqlType::Decimal(..), SqlType::Int | SqlType::BigInt | SqlType::Null) => {
                    let (p, s) = t.decimal_precision_scale().unwrap_or((10, 0));
                    SqlType::Decimal(p, s)
                }
                _ => ty.clone(),
            };
            let (lt2, rt2) = (operand_ty(&lt), operand_ty(&rt));
            Ok(Expr::Binary {
                op,
                left: Box::new(coerce(l, &lt2)),
                right: Box::new(coerce(r, &rt2)),
                ty,
            })
        }
    }
}

fn timestamp_shift(op: BinaryOp, l: Expr, right: &ast::Expr, span: Span) -> Result<Expr> {
    let millis = match interval_millis(right) {
        Some(ms) => ms?,
        None => {
            return Err(Error::plan(
                format!(
                    "cannot apply '{}' to {} and a non-interval",
                    op.symbol(),
                    l.ty()
                ),
                span,
            )
            .with_hint("write e.g. ts - INTERVAL '5' SECOND"))
        }
    };
    let millis = if op == BinaryOp::Minus {
        millis.checked_neg().unwrap_or(i64::MAX)
    } else {
        millis
    };
    Ok(Expr::TimestampAdd {
        expr: Box::new(l),
        millis,
    })
}

/// The closest name to `name` among `candidates`, if one is close enough to
/// be what the user meant.
pub fn nearest<'n>(name: &str, candidates: impl Iterator<Item = &'n str>) -> Option<&'n str> {
    let lower = name.to_ascii_lowercase();
    candidates
        .map(|c| (strsim::levenshtein(&lower, &c.to_ascii_lowercase()), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}
