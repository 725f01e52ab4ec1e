//! Typing rules: the result type of a binary operator and the casts that
//! bring its operands to it, shifting a timestamp by an INTERVAL, and the
//! common type and implicit coercion other bindings share.

use super::literal::interval_millis;
use crate::types::{arithmetic_type, common_type};
use sqlparser::ast;
use tidemark_common::expr::{BinaryOp, Expr};
use tidemark_common::{Error, Result, Span, SqlType};

pub(super) fn expect_boolean(e: Expr, span: Span) -> Result<Expr> {
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

/// The type of CASE and IF branches so far (`a`) and the next one (`b`):
/// their common type, except that a FLOAT and a DOUBLE branch take the
/// first one's type, as Flink's planner gives it (`CASE .. THEN f ELSE d
/// END` is a FLOAT; COALESCE and comparisons widen to DOUBLE instead).
pub(crate) fn unify_branches(a: &SqlType, b: &SqlType, span: Span) -> Result<SqlType> {
    match (a, b) {
        (SqlType::Float, SqlType::Double) | (SqlType::Double, SqlType::Float) => Ok(a.clone()),
        _ => unify(a, b, span),
    }
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

pub(super) fn binary(
    op: BinaryOp,
    l: Expr,
    r: Expr,
    span: Span,
    _right: &ast::Expr,
) -> Result<Expr> {
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
        BinaryOp::Modulo if lt.is_integer() && rt.is_integer() => {
            // As Flink: the remainder has the divisor's type (it always
            // fits), computed in the wider of the two.
            let wide = common_type(&lt, &rt).ok_or_else(mismatch)?;
            let rem = Expr::Binary {
                op,
                left: Box::new(coerce(l, &wide)),
                right: Box::new(coerce(r, &wide)),
                ty: wide,
            };
            Ok(coerce(rem, &rt))
        }
        _ => {
            let ty = arithmetic_type(op, &lt, &rt).ok_or_else(mismatch)?;
            // Operands meet in the result's family: integers and doubles are
            // cast to the result type; decimals keep their own scale, the
            // engine rescales exactly.
            let operand_ty = |t: &SqlType| match (&ty, t) {
                (SqlType::Decimal(..), SqlType::Decimal(..)) => t.clone(),
                (SqlType::Decimal(..), t) if t.is_integer() || *t == SqlType::Null => {
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

pub(super) fn timestamp_shift(
    op: BinaryOp,
    l: Expr,
    right: &ast::Expr,
    span: Span,
) -> Result<Expr> {
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
