//! Function calls: aggregate calls are handed to the aggregate scope,
//! the function library binds what it knows, and the calls left (COALESCE,
//! string functions, ABS, CURRENT_WATERMARK, PROCTIME, TO_TIMESTAMP and
//! TO_TIMESTAMP_LTZ) are bound here. The unit keyword that TIMESTAMPDIFF
//! and TIMESTAMPADD take first is split off here, before the other
//! arguments are bound as expressions.

use super::aggregate::aggregate_call;
use super::typing::{coerce, unify};
use super::{spanned, ExprBinder};
use crate::dialect::TABLE_ARG;
use crate::functions::{self as library, Arg};
use datafusion_common::ScalarValue;
use sqlparser::ast::{self, FunctionArg, FunctionArgExpr, FunctionArguments};
use tidemark_common::date_pattern::{java_to_chrono_pattern, DatePattern};
use tidemark_common::expr::{Expr, ScalarFunction};
use tidemark_common::{Error, Result, SqlType};

impl ExprBinder<'_> {
    /// A function argument bound, with its span.
    pub(super) fn arg(&mut self, x: &ast::Expr) -> Result<Arg> {
        Ok(Arg {
            expr: self.bind(x)?,
            span: spanned(x),
        })
    }

    pub(super) fn bind_function(&mut self, f: &ast::Function, e: &ast::Expr) -> Result<Expr> {
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
        // TIMESTAMPDIFF and TIMESTAMPADD take a unit keyword first, which
        // sqlparser hands over as an identifier: it is no column.
        let unit_first = matches!(name.as_str(), "TIMESTAMPDIFF" | "TIMESTAMPADD");
        let mut unit = None;
        let args = match &f.args {
            FunctionArguments::List(list) => list
                .args
                .iter()
                .enumerate()
                .filter_map(|(i, a)| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) if unit_first && i == 0 => {
                        unit = Some(x);
                        None
                    }
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(self.arg(x)),
                    _ => Some(Err(Error::plan(
                        format!("unsupported argument to {name}"),
                        span,
                    ))),
                })
                .collect::<Result<Vec<_>>>()?,
            FunctionArguments::None => vec![],
            FunctionArguments::Subquery(_) => {
                return Err(Error::plan("subqueries are not supported", span))
            }
        };
        if unit_first {
            return library::bind_timestamp_unit_call(&name, unit, args, span);
        }
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
                // Flink reads with java.time's DateTimeFormatter, and a
                // pattern it refuses gives NULL for every row.
                if !DatePattern::java_time_accepts(&pattern) {
                    return Ok(Expr::Literal {
                        value: ScalarValue::TimestampMillisecond(None, None),
                        ty: SqlType::Timestamp(3),
                    });
                }
                let format = java_to_chrono_pattern(&pattern).map_err(|why| {
                    Error::plan(format!("TO_TIMESTAMP's pattern '{pattern}': {why}"), span)
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
