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
            Some(p) if *p <= 3 => Ok(*p as u8),
            Some(p) if *p <= 9 => Err(Error::plan(
                format!("a timestamp precision of {p} is not supported: tidemark keeps timestamps to the millisecond"),
                span,
            )
            .with_hint("declare TIMESTAMP(3) or TIMESTAMP_LTZ(3)")),
            Some(p) => Err(Error::plan(
                format!("timestamp precision must be 0 to 9, got {p}"),
                span,
            )),
        }
    };
    let time_precision = |p: &Option<u64>| -> Result<u8> {
        match p {
            None => Ok(0),
            Some(p) if *p <= 3 => Ok(*p as u8),
            Some(p) if *p <= 9 => Err(Error::plan(
                format!(
                    "TIME({p}) is not supported: tidemark keeps times of day to the millisecond"
                ),
                span,
            )
            .with_hint("use TIME(0) to TIME(3)")),
            Some(p) => Err(Error::plan(
                format!("time precision must be 0 to 9, got {p}"),
                span,
            )),
        }
    };
    Ok(match data_type {
        DataType::String(_) | DataType::Varchar(_) | DataType::Text | DataType::Char(_) | DataType::CharVarying(_) => {
            SqlType::String
        }
        DataType::Boolean | DataType::Bool => SqlType::Boolean,
        DataType::TinyInt(_) => SqlType::TinyInt,
        DataType::SmallInt(_) | DataType::Int2(_) => SqlType::SmallInt,
        DataType::Int(_) | DataType::Integer(_) => SqlType::Int,
        DataType::BigInt(_) => SqlType::BigInt,
        // Flink's FLOAT is 4 bytes, as REAL; DOUBLE is 8.
        DataType::Float(ExactNumberInfo::None) | DataType::Real | DataType::Float4 => SqlType::Float,
        DataType::Float(_) => {
            return Err(Error::plan("FLOAT takes no precision", span)
                .with_hint("FLOAT is 4 bytes and DOUBLE 8, as in Flink"))
        }
        DataType::Double(_) | DataType::DoublePrecision | DataType::Float64 => SqlType::Double,
        DataType::Date => SqlType::Date,
        DataType::Time(p, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            SqlType::Time(time_precision(p)?)
        }
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
                "supported types: STRING, VARCHAR, BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), DATE, TIME(0-3), TIMESTAMP(3), TIMESTAMP_LTZ(3)",
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

/// Where an integer type ranks among the integers, narrowest first.
fn integer_rank(t: &SqlType) -> Option<u8> {
    match t {
        SqlType::TinyInt => Some(0),
        SqlType::SmallInt => Some(1),
        SqlType::Int => Some(2),
        SqlType::BigInt => Some(3),
        _ => None,
    }
}

/// The wider of two numeric types, as Flink widens them for comparisons
/// and COALESCE: integers to the wider integer, FLOAT with an integer
/// stays FLOAT, FLOAT with a DECIMAL or a DOUBLE is DOUBLE.
pub fn numeric_common(a: &SqlType, b: &SqlType) -> Option<SqlType> {
    use SqlType::*;
    Some(match (a, b) {
        (Null, t) | (t, Null) if t.is_numeric() => t.clone(),
        _ if a.is_integer() && b.is_integer() => {
            if integer_rank(a)? >= integer_rank(b)? {
                a.clone()
            } else {
                b.clone()
            }
        }
        (Double, t) | (t, Double) if t.is_numeric() => Double,
        (Float, Decimal(..)) | (Decimal(..), Float) => Double,
        (Float, t) | (t, Float) if t.is_numeric() => Float,
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
/// FLOAT and DOUBLE are equally wide to Flink's planner, so their sum,
/// difference, product and quotient take the left operand's type (`f + d`
/// is FLOAT, `d + f` DOUBLE). An integer remainder has the divisor's type.
pub fn arithmetic_type(
    op: tidemark_common::expr::BinaryOp,
    a: &SqlType,
    b: &SqlType,
) -> Option<SqlType> {
    use tidemark_common::expr::BinaryOp::*;
    if let (SqlType::Float | SqlType::Double, SqlType::Float | SqlType::Double) = (a, b) {
        return Some(a.clone());
    }
    let common = numeric_common(a, b)?;
    let SqlType::Decimal(..) = common else {
        if op == Modulo && a.is_integer() && b.is_integer() {
            return Some(b.clone());
        }
        return Some(common);
    };
    let (p1, s1) = as_decimal(if *a == SqlType::Null { b } else { a })?;
    let (p2, s2) = as_decimal(if *b == SqlType::Null { a } else { b })?;
    Some(match op {
        Plus | Minus => {
            let s = s1.max(s2);
            adjust_decimal((p1 - s1).max(p2 - s2) + s + 1, s)
        }
        Multiply => adjust_decimal(p1 + p2 + 1, s1 + s2),
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
        (Time(p), Time(q)) => Some(Time((*p).max(*q))),
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
        (t, TimestampLtz(_)) if t.is_integer() => true,
        (Time(_), Time(_)) => true,
        (Timestamp(_) | TimestampLtz(_), Date | Time(_)) => true,
        (Date | Time(_), Timestamp(_) | TimestampLtz(_)) => true,
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
            (BinaryOp::Multiply, d(10, 2), d(5, 1), d(16, 3)),
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

    #[test]
    fn small_integers_and_floats_follow_flink() {
        use SqlType::*;
        // Each as Flink 2.3's TYPEOF gives it.
        let cases = [
            (BinaryOp::Plus, TinyInt, TinyInt, TinyInt),
            (BinaryOp::Plus, TinyInt, SmallInt, SmallInt),
            (BinaryOp::Multiply, SmallInt, Int, Int),
            (BinaryOp::Divide, TinyInt, TinyInt, TinyInt),
            (BinaryOp::Divide, SmallInt, TinyInt, SmallInt),
            (BinaryOp::Modulo, TinyInt, SmallInt, SmallInt),
            (BinaryOp::Modulo, SmallInt, TinyInt, TinyInt),
            (BinaryOp::Plus, TinyInt, BigInt, BigInt),
            (BinaryOp::Plus, TinyInt, Decimal(5, 2), Decimal(6, 2)),
            (BinaryOp::Plus, SmallInt, Decimal(5, 2), Decimal(8, 2)),
            (BinaryOp::Multiply, TinyInt, Decimal(2, 1), Decimal(6, 1)),
            (BinaryOp::Multiply, SmallInt, Decimal(2, 1), Decimal(8, 1)),
            (BinaryOp::Multiply, Int, Decimal(2, 1), Decimal(13, 1)),
            (BinaryOp::Divide, TinyInt, Decimal(2, 1), Decimal(10, 6)),
            (BinaryOp::Minus, TinyInt, Decimal(2, 1), Decimal(5, 1)),
            (BinaryOp::Plus, Float, Int, Float),
            (BinaryOp::Plus, Int, Float, Float),
            (BinaryOp::Plus, BigInt, Float, Float),
            (BinaryOp::Plus, TinyInt, Float, Float),
            (BinaryOp::Plus, Float, Float, Float),
            (BinaryOp::Plus, Float, Decimal(3, 1), Double),
            (BinaryOp::Plus, Float, Double, Float),
            (BinaryOp::Multiply, Float, Double, Float),
            (BinaryOp::Plus, Double, Float, Double),
            (BinaryOp::Divide, Double, Float, Double),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(
                arithmetic_type(op, &a, &b),
                Some(want.clone()),
                "{a} {} {b}",
                op.symbol()
            );
        }
        // Comparisons and COALESCE meet in the wider type.
        assert_eq!(common_type(&Float, &Double), Some(Double));
        assert_eq!(common_type(&Double, &Float), Some(Double));
        assert_eq!(common_type(&TinyInt, &Int), Some(Int));
        assert_eq!(common_type(&Float, &Decimal(2, 1)), Some(Double));
        assert_eq!(common_type(&Time(0), &Time(3)), Some(Time(3)));
        assert_eq!(common_type(&Date, &Timestamp(3)), None);
    }

    #[test]
    fn casts_between_dates_times_and_timestamps() {
        use SqlType::*;
        assert!(can_cast(&Timestamp(3), &Date));
        assert!(can_cast(&TimestampLtz(3), &Time(0)));
        assert!(can_cast(&Date, &Timestamp(3)));
        assert!(can_cast(&Time(0), &Timestamp(3)));
        assert!(can_cast(&String, &Date));
        assert!(can_cast(&TinyInt, &TimestampLtz(3)));
        assert!(!can_cast(&Date, &Time(0)));
        assert!(!can_cast(&Date, &Int));
        assert!(!can_cast(&Float, &Date));
    }

    #[test]
    fn type_names() -> Result<()> {
        let span = Span::default();
        let ty = |t: DataType| sql_type(&t, span);
        assert_eq!(ty(DataType::TinyInt(None))?, SqlType::TinyInt);
        assert_eq!(ty(DataType::SmallInt(None))?, SqlType::SmallInt);
        assert_eq!(
            ty(DataType::Float(sqlparser::ast::ExactNumberInfo::None))?,
            SqlType::Float
        );
        assert_eq!(ty(DataType::Real)?, SqlType::Float);
        assert_eq!(ty(DataType::Date)?, SqlType::Date);
        assert_eq!(
            ty(DataType::Time(None, TimezoneInfo::None))?,
            SqlType::Time(0)
        );
        assert_eq!(
            ty(DataType::Time(Some(3), TimezoneInfo::None))?,
            SqlType::Time(3)
        );
        assert!(ty(DataType::Time(Some(6), TimezoneInfo::None)).is_err());
        assert!(ty(DataType::Bytea).is_err());
        assert!(ty(DataType::Timestamp(Some(6), TimezoneInfo::None)).is_err());
        assert_eq!(
            ty(DataType::Timestamp(Some(0), TimezoneInfo::None))?,
            SqlType::Timestamp(0)
        );
        Ok(())
    }
}
