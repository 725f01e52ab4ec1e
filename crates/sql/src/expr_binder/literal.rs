//! Literals: numbers, strings, booleans and NULL as Flink types them,
//! typed strings such as `TIMESTAMP '2024-01-01 00:00:00.5'`, and the
//! milliseconds of an `INTERVAL 'n' unit`.

use super::spanned;
use crate::types::sql_type;
use datafusion_common::ScalarValue;
use sqlparser::ast::{self, Value};
use tidemark_common::expr::Expr;
use tidemark_common::{Error, Result, Span, SqlType};

pub(super) fn literal(v: &Value, span: Span) -> Result<Expr> {
    Ok(match v {
        Value::Number(text, _) => number_literal(text, span)?,
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Expr::Literal {
            value: ScalarValue::Utf8(Some(s.clone())),
            ty: SqlType::String,
        },
        Value::Boolean(b) => Expr::boolean(*b),
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

/// A typed string, `TYPE 'text'`: the text cast to the type.
pub(super) fn typed_string(ts: &ast::TypedString, span: Span) -> Result<Expr> {
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
        // Likewise a TIME literal's.
        ast::DataType::Time(None, _) => {
            let digits = text.trim().split_once('.').map_or(0, |(_, f)| f.len());
            if digits > 3 {
                return Err(Error::plan(
                    format!("TIME({digits}) is not supported: tidemark keeps times of day to the millisecond"),
                    span,
                ));
            }
            SqlType::Time(digits as u8)
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
