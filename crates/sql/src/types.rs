//! Flink's type rules for the front end: SQL type names, result types of
//! arithmetic, the common type of comparisons and CASE, and which casts
//! exist.

use sqlparser::ast::{DataType, ExactNumberInfo, TimezoneInfo};
use tidemark_common::{Error, Result, Span, SqlType};

const MAX_PRECISION: u8 = 38;

/// The SQL type a column definition or CAST names.
pub fn sql_type(data_type: &DataType, span: Span) -> Result<SqlType> {
    let precision = |p: &Option<u64>| -> Result<u8> {
        match p {
            None => Ok(3),
            Some(p) if *p <= 9 => Ok((*p).min(3) as u8),
            Some(p) => Err(Error::plan(
                format!("timestamp precision must be 0 to 9, got {p}"),
                span,
            )),
        }
    };
    Ok(match data_type {
        DataType::String(_) | DataType::Varchar(_) | DataType::Text | DataType::Char(_) | DataType::CharVarying(_) => {
            SqlType::String
        }
        DataType::Boolean | DataType::Bool => SqlType::Boolean,
        DataType::Int(_) | DataType::Integer(_) => SqlType::Int,
        DataType::BigInt(_) => SqlType::BigInt,
        DataType::Double(_) | DataType::DoublePrecision | DataType::Float64 => SqlType::Double,
        DataType::Decimal(info) | DataType::Numeric(info) | DataType::Dec(info) => {
            let (p, s) = match info {
                ExactNumberInfo::None => (10, 0),
                ExactNumberInfo::Precision(p) => (*p, 0),
                ExactNumberInfo::PrecisionAndScale(p, s) => (*p, *s),
            };
            if p == 0 || p > MAX_PRECISION as u64 || s < 0 || s as u64 > p {
                return Err(Error::plan(
                    format!("DECIMAL({p}, {s}) is not a valid type: precision must be 1 to 38 and scale 0 to the precision"),
                    span,
                ));
            }
            SqlType::Decimal(p as u8, s as i8)
        }
        DataType::Timestamp(p, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            SqlType::Timestamp(precision(p)?)
        }
        DataType::Timestamp(p, TimezoneInfo::WithTimeZone | TimezoneInfo::Tz) => SqlType::TimestampLtz(precision(p)?),
        DataType::Custom(name, args) if name.to_string().eq_ignore_ascii_case("TIMESTAMP_LTZ") => {
            let p = match args.first() {
                None => None,
                Some(a) => Some(
                    a.parse::<u64>()
                        .map_err(|_| Error::plan(format!("bad TIMESTAMP_LTZ precision '{a}'"), span))?,
                ),
            };
            SqlType::TimestampLtz(precision(&p)?)
        }
        other => {
            return Err(Error::plan(format!("type {other} is not supported"), span).with_hint(
                "supported types: STRING, VARCHAR, BOOLEAN, INT, BIGINT, DOUBLE, DECIMAL(p, s), TIMESTAMP(3), TIMESTAMP_LTZ(3)",
            ))
        }
    })
}

/// Flink's rule for fitting a decimal result into 38 digits: keep the
/// integer digits, give up scale down to 6.
fn adjust_decimal(precision: i32, scale: i32) -> SqlType {
    if precision <= MAX_PRECISION as i32 {
        return SqlType::Decimal(precision.max(1) as u8, scale as i8);
    }
    let int_digits = precision - scale;
    let min_scale = scale.min(6);
    let scale = (MAX_PRECISION as i32 - int_digits).max(min_scale);
    SqlType::Decimal(MAX_PRECISION, scale as i8)
}

/// Whether a numeric operation of `a` and `b` stays in exact decimals.
fn as_decimal(t: &SqlType) -> Option<(i32, i32)> {
    t.decimal_precision_scale()
        .map(|(p, s)| (p as i32, s as i32))
}

/// The wider of two numeric types, as Flink widens them.
pub fn numeric_common(a: &SqlType, b: &SqlType) -> Option<SqlType> {
    use SqlType::*;
    Some(match (a, b) {
        (Null, t) | (t, Null) if t.is_numeric() => t.clone(),
        (Int, Int) => Int,
        (Int | BigInt, Int | BigInt) => BigInt,
        (Double, t) | (t, Double) if t.is_numeric() => Double,
        (Decimal(..), _) | (_, Decimal(..)) => {
            let (p1, s1) = as_decimal(a)?;
            let (p2, s2) = as_decimal(b)?;
            let s = s1.max(s2);
            adjust_decimal((p1 - s1).max(p2 - s2) + s, s)
        }
        _ => return None,
    })
}

/// The result type of `a op b` for an arithmetic operator, following Flink.
pub fn arithmetic_type(
    op: tidemark_common::expr::BinaryOp,
    a: &SqlType,
    b: &SqlType,
) -> Option<SqlType> {
    use tidemark_common::expr::BinaryOp::*;
    let common = numeric_common(a, b)?;
    let SqlType::Decimal(..) = common else {
        return Some(common);
    };
    let (p1, s1) = as_decimal(if *a == SqlType::Null { b } else { a })?;
    let (p2, s2) = as_decimal(if *b == SqlType::Null { a } else { b })?;
    Some(match op {
        Plus | Minus => {
            let s = s1.max(s2);
            adjust_decimal((p1 - s1).max(p2 - s2) + s + 1, s)
        }
        Multiply => adjust_decimal(p1 + p2, s1 + s2),
        Divide => {
            let s = 6.max(s1 + p2 + 1);
            adjust_decimal(p1 - s1 + s2 + s, s)
        }
        Modulo => {
            let s = s1.max(s2);
            adjust_decimal((p1 - s1).min(p2 - s2) + s, s)
        }
        _ => return None,
    })
}

/// The type two values are compared in, or that CASE branches and
/// COALESCE arguments are unified to.
pub fn common_type(a: &SqlType, b: &SqlType) -> Option<SqlType> {
    use SqlType::*;
    if a == b {
        return Some(a.clone());
    }
    match (a, b) {
        (Null, t) | (t, Null) => Some(t.clone()),
        (String, String) => Some(String),
        (Timestamp(p), Timestamp(q)) => Some(Timestamp((*p).max(*q))),
        (TimestampLtz(p), TimestampLtz(q)) => Some(TimestampLtz((*p).max(*q))),
        _ if a.is_numeric() && b.is_numeric() => numeric_common(a, b),
        _ => None,
    }
}

/// Whether `CAST(x AS to)` exists for an `x` of type `from`.
pub fn can_cast(from: &SqlType, to: &SqlType) -> bool {
    use SqlType::*;
    if from == to || *from == Null || *to == String || *from == String {
        return true;
    }
    match (from, to) {
        (a, b) if a.is_numeric() && b.is_numeric() => true,
        (Boolean, b) if b.is_numeric() => true,
        (a, Boolean) if a.is_numeric() => true,
        (Timestamp(_) | TimestampLtz(_), Timestamp(_) | TimestampLtz(_)) => true,
        (Int | BigInt, TimestampLtz(_)) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tidemark_common::expr::BinaryOp;

    #[test]
    fn decimal_result_types_follow_flink() {
        let d = |p, s| SqlType::Decimal(p, s);
        let cases = [
            (BinaryOp::Plus, d(10, 2), d(5, 1), d(11, 2)),
            (BinaryOp::Multiply, d(10, 2), d(5, 1), d(15, 3)),
            (BinaryOp::Divide, d(10, 2), d(5, 1), d(17, 8)),
            (BinaryOp::Plus, d(10, 2), SqlType::Int, d(13, 2)),
            (BinaryOp::Multiply, d(38, 10), d(38, 10), d(38, 6)),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(
                arithmetic_type(op, &a, &b),
                Some(want.clone()),
                "{a} {} {b}",
                op.symbol()
            );
        }
        assert_eq!(
            arithmetic_type(BinaryOp::Divide, &SqlType::Int, &SqlType::Int),
            Some(SqlType::Int)
        );
        assert_eq!(
            arithmetic_type(BinaryOp::Plus, &SqlType::Int, &SqlType::Double),
            Some(SqlType::Double)
        );
        assert_eq!(
            arithmetic_type(BinaryOp::Plus, &SqlType::Int, &SqlType::String),
            None
        );
    }
}
