//! CAST and TRY_CAST with Flink's semantics: text read as Flink's CAST
//! reads it, numbers narrowed and rounded by Java's rules, timestamps moved
//! between wall clock and instant in the session zone, and anything cast
//! to STRING printed as Flink prints it. A text that does not convert is
//! an error naming it for CAST and NULL for TRY_CAST.

use crate::expr::decimal::{rescale, POW10};
use crate::expr::eval::EvalContext;
use crate::formats::print::format_value;
use arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, BooleanArray, Date32Array, Decimal128Array,
    Float32Array, Int16Array, Int32Array, Int64Array, Int8Array, Time32MillisecondArray,
    TimestampMillisecondArray,
};
use arrow::compute::{cast_with_options, CastOptions};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type, Time32MillisecondType, TimestampMillisecondType,
};
use std::sync::Arc;
use tidemark_common::{Error, Result, SqlType};

/// CAST with Flink's semantics on top of arrow's cast kernel.
pub(crate) fn cast(
    v: &ArrayRef,
    from: &SqlType,
    to: &SqlType,
    try_cast: bool,
    ctx: &EvalContext,
) -> Result<ArrayRef> {
    if from == to {
        return Ok(v.clone());
    }

    if *from == SqlType::Null {
        return Ok(new_null_array(&to.to_arrow(), v.len()));
    }
    // Timestamps of another precision share the millisecond representation:
    // a wider one is the same value, a narrower one drops the digits.
    if let (SqlType::Timestamp(p), SqlType::Timestamp(q))
    | (SqlType::TimestampLtz(p), SqlType::TimestampLtz(q)) = (from, to)
    {
        if q >= p {
            return Ok(v.clone());
        }
        let unit = 10i64.pow(u32::from(3 - (*q).min(3)));
        let ts = v.as_primitive::<arrow::datatypes::TimestampMillisecondType>();
        let cut: TimestampMillisecondArray = ts.unary(|t| t - t.rem_euclid(unit));
        return Ok(Arc::new(cut.with_timezone_opt(ts.timezone())));
    }
    // To STRING, values print as Flink prints them (`1.0E7`, `TRUE`,
    // `2020-01-01 00:00:00.000`), not as arrow's display does.
    if *to == SqlType::String {
        let mut buf = String::new();
        let mut out = arrow::array::StringBuilder::with_capacity(v.len(), v.len() * 8);
        for i in 0..v.len() {
            if v.is_null(i) {
                out.append_null();
            } else {
                buf.clear();
                format_value(v.as_ref(), from, i, ctx.time_zone, &mut buf)?;
                out.append_value(&buf);
            }
        }
        return Ok(Arc::new(out.finish()));
    }
    let out = match (from, to) {
        (SqlType::String, t) if t.is_numeric() => parse_strings(v.as_string::<i32>(), to)?,
        (SqlType::String, SqlType::Date) => Arc::new(
            v.as_string::<i32>()
                .iter()
                .map(|t| t.and_then(|t| crate::formats::text::parse_date_lenient(t.as_bytes())))
                .collect::<Date32Array>(),
        ),
        (SqlType::String, SqlType::Time(p)) => Arc::new(
            v.as_string::<i32>()
                .iter()
                .map(|t| t.and_then(|t| crate::formats::text::parse_time(t.as_bytes(), *p)))
                .collect::<Time32MillisecondArray>(),
        ),
        (SqlType::Time(_), SqlType::Time(q)) => {
            let q = *q;
            let t = v.as_primitive::<Time32MillisecondType>();
            Arc::new(
                t.unary::<_, Time32MillisecondType>(|ms| {
                    crate::formats::text::truncate_time(ms, q)
                }),
            )
        }
        (SqlType::Timestamp(_) | SqlType::TimestampLtz(_), SqlType::Date | SqlType::Time(_)) => {
            let ts = v.as_primitive::<TimestampMillisecondType>();
            let wall: TimestampMillisecondArray = if matches!(from, SqlType::TimestampLtz(_)) {
                ts.iter()
                    .map(|t| t.and_then(|t| crate::time::zone::to_wall_clock(t, ctx.time_zone)))
                    .collect()
            } else {
                ts.clone()
            };
            let out: ArrayRef = match to {
                SqlType::Date => Arc::new(
                    wall.iter()
                        .map(|w| w.and_then(|w| i32::try_from(w.div_euclid(MS_PER_DAY)).ok()))
                        .collect::<Date32Array>(),
                ),
                SqlType::Time(q) => Arc::new(
                    wall.iter()
                        .map(|w| {
                            w.map(|w| {
                                let ms = w.rem_euclid(MS_PER_DAY) as i32;
                                crate::formats::text::truncate_time(ms, *q)
                            })
                        })
                        .collect::<Time32MillisecondArray>(),
                ),
                _ => return Err(Error::Internal(format!("no cast from {from} to {to}"))),
            };
            out
        }
        (SqlType::Date | SqlType::Time(_), SqlType::Timestamp(_) | SqlType::TimestampLtz(_)) => {
            // A day is its midnight, a time of day that time on 1970-01-01.
            let wall: TimestampMillisecondArray = if *from == SqlType::Date {
                v.as_primitive::<Date32Type>()
                    .unary(|d| i64::from(d) * MS_PER_DAY)
            } else {
                v.as_primitive::<Time32MillisecondType>().unary(i64::from)
            };
            match to {
                SqlType::TimestampLtz(_) => {
                    let instants: TimestampMillisecondArray = wall
                        .iter()
                        .map(|w| w.and_then(|w| local_instant(w, ctx.time_zone)))
                        .collect();
                    Arc::new(instants.with_timezone(tidemark_common::LTZ_ARROW_TZ))
                }
                _ => Arc::new(wall),
            }
        }
        (SqlType::String, SqlType::Timestamp(_) | SqlType::TimestampLtz(_)) => {
            let ltz = matches!(to, SqlType::TimestampLtz(_));
            let parsed: TimestampMillisecondArray = v
                .as_string::<i32>()
                .iter()
                .map(|t| {
                    t.and_then(|t| crate::formats::text::parse_timestamp(t, ltz, ctx.time_zone))
                })
                .collect();
            Arc::new(parsed.with_timezone_opt(ltz.then_some(tidemark_common::LTZ_ARROW_TZ)))
        }
        (SqlType::String, SqlType::Boolean) => {
            // Flink's CAST reads these words, in any case, and nothing else.
            let s = v.as_string::<i32>();
            Arc::new(
                s.iter()
                    .map(|t| {
                        t.and_then(|t| match t.trim().to_ascii_lowercase().as_str() {
                            "true" | "t" | "yes" | "y" | "1" => Some(true),
                            "false" | "f" | "no" | "n" | "0" => Some(false),
                            _ => None,
                        })
                    })
                    .collect::<BooleanArray>(),
            )
        }
        (SqlType::Timestamp(_), SqlType::TimestampLtz(_)) => {
            let wall = v.as_primitive::<arrow::datatypes::TimestampMillisecondType>();
            let instants: TimestampMillisecondArray = wall
                .iter()
                .map(|w| w.and_then(|w| local_instant(w, ctx.time_zone)))
                .collect();
            Arc::new(instants.with_timezone(tidemark_common::LTZ_ARROW_TZ))
        }
        (SqlType::TimestampLtz(_), SqlType::Timestamp(_)) => {
            let instants = v.as_primitive::<arrow::datatypes::TimestampMillisecondType>();
            let wall: TimestampMillisecondArray = instants
                .iter()
                .map(|t| t.and_then(|t| crate::time::zone::to_wall_clock(t, ctx.time_zone)))
                .collect();
            Arc::new(wall)
        }
        (t, SqlType::TimestampLtz(_)) if t.is_integer() => {
            // As Flink: a number cast to TIMESTAMP_LTZ counts seconds.
            let secs = cast_with_options(v, &DataType::Int64, &CastOptions::default())?;
            let ms: TimestampMillisecondArray = secs
                .as_primitive::<Int64Type>()
                .iter()
                .map(|x| x.and_then(|x| x.checked_mul(1000)))
                .collect();
            Arc::new(ms.with_timezone(tidemark_common::LTZ_ARROW_TZ))
        }
        _ if is_number_like(from) && is_number_like(to) => numeric_cast(v, from, to)?,
        _ => return Err(Error::Internal(format!("no cast from {from} to {to}"))),
    };
    // Only text can fail to convert; numbers wrap, saturate or (for a
    // DECIMAL that is too small) become NULL, as in Flink.
    if !try_cast && from.is_string() && out.null_count() > v.null_count() {
        if let Some(i) = (0..v.len()).find(|&i| v.is_valid(i) && out.is_null(i)) {
            let mut shown = String::new();
            format_value(v.as_ref(), from, i, ctx.time_zone, &mut shown)?;
            return Err(Error::Execution(format!("cannot cast '{shown}' to {to}")));
        }
    }
    Ok(out)
}

fn is_number_like(t: &SqlType) -> bool {
    t.is_numeric() || *t == SqlType::Boolean
}

const MS_PER_DAY: i64 = 86_400_000;

/// The instant of a wall-clock time in `tz`.
fn local_instant(wall_ms: i64, tz: chrono_tz::Tz) -> Option<i64> {
    if tz == chrono_tz::UTC {
        return Some(wall_ms);
    }
    crate::time::zone::local_to_instant(wall_ms, tz)
}

/// One number on its way through a cast.
#[derive(Clone, Copy)]
enum Number {
    Int(i64),
    Float(f64),
    /// Unscaled value and scale.
    Decimal(i128, i8),
}

/// Casts between numbers and BOOLEAN with Java's and Flink's rules:
/// integers narrow by wrapping; DOUBLE to an integer truncates toward zero
/// and saturates (NaN is 0); DECIMAL to an integer truncates, then wraps;
/// to DECIMAL rounds half up and is NULL when it does not fit; BOOLEAN is
/// 1 or 0, and a number is TRUE when it is not zero.
fn numeric_cast(v: &ArrayRef, from: &SqlType, to: &SqlType) -> Result<ArrayRef> {
    // DECIMAL to DOUBLE (`SUM(CAST(price AS DOUBLE))`) a column at a time.
    if let (SqlType::Decimal(_, scale), SqlType::Double) = (from, to) {
        let values = v.as_primitive::<Decimal128Type>();
        return Ok(Arc::new(
            values.unary::<_, Float64Type>(|x| decimal_to_f64(x, *scale)),
        ));
    }
    let read: Box<dyn Fn(usize) -> Number> = match from {
        SqlType::Boolean => {
            let a = v.as_boolean().clone();
            Box::new(move |i| Number::Int(a.value(i) as i64))
        }
        SqlType::TinyInt => {
            let a = v.as_primitive::<Int8Type>().clone();
            Box::new(move |i| Number::Int(a.value(i) as i64))
        }
        SqlType::SmallInt => {
            let a = v.as_primitive::<Int16Type>().clone();
            Box::new(move |i| Number::Int(a.value(i) as i64))
        }
        SqlType::Int => {
            let a = v.as_primitive::<Int32Type>().clone();
            Box::new(move |i| Number::Int(a.value(i) as i64))
        }
        SqlType::Float => {
            // Widening to a double is exact, so every rule below sees the
            // float's own value (0.1f is 0.10000000149011612).
            let a = v.as_primitive::<Float32Type>().clone();
            Box::new(move |i| Number::Float(f64::from(a.value(i))))
        }
        SqlType::BigInt => {
            let a = v.as_primitive::<Int64Type>().clone();
            Box::new(move |i| Number::Int(a.value(i)))
        }
        SqlType::Double => {
            let a = v.as_primitive::<Float64Type>().clone();
            Box::new(move |i| Number::Float(a.value(i)))
        }
        SqlType::Decimal(_, s) => {
            let a = v.as_primitive::<Decimal128Type>().clone();
            let s = *s;
            Box::new(move |i| Number::Decimal(a.value(i), s))
        }
        other => return Err(Error::Internal(format!("numeric cast from {other}"))),
    };
    let valid = |i: usize| v.is_valid(i);
    let n = v.len();
    Ok(match to {
        SqlType::Boolean => Arc::new(
            (0..n)
                .map(|i| {
                    valid(i).then(|| match read(i) {
                        Number::Int(x) => x != 0,
                        Number::Float(x) => x != 0.0,
                        Number::Decimal(x, _) => x != 0,
                    })
                })
                .collect::<BooleanArray>(),
        ),
        SqlType::TinyInt => Arc::new(
            (0..n)
                .map(|i| valid(i).then(|| to_i32(read(i)) as i8))
                .collect::<Int8Array>(),
        ),
        SqlType::SmallInt => Arc::new(
            (0..n)
                .map(|i| valid(i).then(|| to_i32(read(i)) as i16))
                .collect::<Int16Array>(),
        ),
        SqlType::Int => Arc::new(
            (0..n)
                .map(|i| valid(i).then(|| to_i32(read(i))))
                .collect::<Int32Array>(),
        ),
        SqlType::Float => Arc::new(
            (0..n)
                .map(|i| {
                    valid(i).then(|| match read(i) {
                        Number::Int(x) => x as f32,
                        Number::Float(x) => x as f32,
                        Number::Decimal(x, s) => decimal_to_f32(x, s),
                    })
                })
                .collect::<Float32Array>(),
        ),
        SqlType::BigInt => Arc::new(
            (0..n)
                .map(|i| valid(i).then(|| to_i64(read(i))))
                .collect::<Int64Array>(),
        ),
        SqlType::Double => Arc::new(
            (0..n)
                .map(|i| {
                    valid(i).then(|| match read(i) {
                        Number::Int(x) => x as f64,
                        Number::Float(x) => x,
                        // Not met: DECIMAL to DOUBLE returned above.
                        Number::Decimal(x, s) => decimal_to_f64(x, s),
                    })
                })
                .collect::<arrow::array::Float64Array>(),
        ),
        SqlType::Decimal(p, s) => {
            let limit = POW10[*p as usize];
            let out: Decimal128Array = (0..n)
                .map(|i| {
                    if !valid(i) {
                        return None;
                    }
                    let unscaled = match read(i) {
                        Number::Int(x) => rescale(x as i128, 0, *s),
                        Number::Decimal(x, from_scale) => rescale(x, from_scale, *s),
                        // As BigDecimal.valueOf(double): the shortest
                        // decimal that reads back as the same double.
                        Number::Float(x) if x.is_finite() => crate::formats::text::parse_decimal(
                            crate::formats::print::java_double_to_string(x).as_bytes(),
                            38,
                            *s,
                        ),
                        Number::Float(_) => None,
                    }?;
                    (unscaled.abs() < limit).then_some(unscaled)
                })
                .collect();
            Arc::new(out.with_precision_and_scale(*p, *s)?)
        }
        other => return Err(Error::Internal(format!("numeric cast to {other}"))),
    })
}

/// A number as Java's `(int)` cast gives it; `(byte)` and `(short)` of a
/// floating point number go through it too, so 1e10 as TINYINT is -1.
fn to_i32(n: Number) -> i32 {
    match n {
        // Java's (int) of a double saturates at INT's bounds.
        Number::Float(x) => x as i32,
        other => to_i64(other) as i32,
    }
}

/// A number as Java's `(long)` cast gives it.
fn to_i64(n: Number) -> i64 {
    match n {
        Number::Int(x) => x,
        // Rust's float-to-int `as` saturates and maps NaN to 0, as Java's.
        Number::Float(x) => x as i64,
        Number::Decimal(x, s) => {
            let whole = if s > 0 { x / POW10[s as usize] } else { x };
            whole as i64
        }
    }
}

/// `unscaled / 10^scale` correctly rounded to a double, as
/// BigDecimal.doubleValue() gives it. When the unscaled value and the
/// power of ten are both exact doubles (up to 2^53 and 10^22), one IEEE
/// division of the two is correctly rounded by definition; only other
/// values go through the decimal's text, which the float parser rounds
/// correctly (formatting and parsing each value took a quarter of a
/// TUMBLE's time with `SUM(CAST(price AS DOUBLE))` over DECIMAL(10, 2)).
fn decimal_to_f64(unscaled: i128, scale: i8) -> f64 {
    const EXACT: u128 = 1 << f64::MANTISSA_DIGITS;
    if (0..=22).contains(&scale) && unscaled.unsigned_abs() <= EXACT {
        return unscaled as f64 / POW10[scale as usize] as f64;
    }
    decimal_text(unscaled, scale)
        .parse::<f64>()
        .unwrap_or(f64::NAN)
}

/// [`decimal_to_f64`] to a float, as BigDecimal.floatValue(): exact
/// operands up to 2^24 and 10^10.
fn decimal_to_f32(unscaled: i128, scale: i8) -> f32 {
    const EXACT: u128 = 1 << f32::MANTISSA_DIGITS;
    if (0..=10).contains(&scale) && unscaled.unsigned_abs() <= EXACT {
        return unscaled as f32 / POW10[scale as usize] as f32;
    }
    decimal_text(unscaled, scale)
        .parse::<f32>()
        .unwrap_or(f32::NAN)
}

fn decimal_text(unscaled: i128, scale: i8) -> String {
    let mut text = String::new();
    crate::formats::print::write_decimal(unscaled, scale, &mut text);
    text
}

/// STRING to a number as Flink's CAST reads it: surrounding whitespace
/// is ignored; an integer target takes a fraction and drops it (`'1.5'` is
/// 1); DOUBLE takes Java's syntax; DECIMAL rounds half up. What does not
/// parse, or does not fit, is NULL (the caller turns that into an error
/// for CAST).
fn parse_strings(s: &arrow::array::StringArray, to: &SqlType) -> Result<ArrayRef> {
    use crate::formats::text::{java_trim, parse_decimal, parse_i64, parse_java_double};
    let integer = |text: &str| -> Option<i64> {
        let t = java_trim(text.as_bytes());
        parse_i64(t).or_else(|| {
            // `digits.digits`: the integer part, truncated toward zero.
            let text = std::str::from_utf8(t).ok()?;
            let (whole, frac) = text.split_once('.')?;
            if !frac.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            match whole {
                "" | "-" | "+" if !frac.is_empty() => Some(0),
                _ => parse_i64(whole.as_bytes()),
            }
        })
    };
    Ok(match to {
        SqlType::TinyInt => Arc::new(
            s.iter()
                .map(|v| v.and_then(integer).and_then(|i| i8::try_from(i).ok()))
                .collect::<Int8Array>(),
        ),
        SqlType::SmallInt => Arc::new(
            s.iter()
                .map(|v| v.and_then(integer).and_then(|i| i16::try_from(i).ok()))
                .collect::<Int16Array>(),
        ),
        SqlType::Int => Arc::new(
            s.iter()
                .map(|v| v.and_then(integer).and_then(|i| i32::try_from(i).ok()))
                .collect::<Int32Array>(),
        ),
        SqlType::Float => Arc::new(
            s.iter()
                .map(|v| v.and_then(|t| crate::formats::text::parse_java_float(t.as_bytes())))
                .collect::<Float32Array>(),
        ),
        SqlType::BigInt => Arc::new(
            s.iter()
                .map(|v| v.and_then(integer))
                .collect::<Int64Array>(),
        ),
        SqlType::Double => Arc::new(
            s.iter()
                .map(|v| v.and_then(|t| parse_java_double(t.as_bytes())))
                .collect::<arrow::array::Float64Array>(),
        ),
        SqlType::Decimal(p, sc) => Arc::new(
            s.iter()
                .map(|v| v.and_then(|t| parse_decimal(java_trim(t.as_bytes()), *p, *sc)))
                .collect::<Decimal128Array>()
                .with_precision_and_scale(*p, *sc)?,
        ),
        other => return Err(Error::Internal(format!("string parse to {other}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::{decimal_text, decimal_to_f32, decimal_to_f64};
    use crate::expr::eval::tests::{lit, show};
    use crate::ops::testing::Rng;
    use datafusion_common::ScalarValue;
    use tidemark_common::expr::Expr;
    use tidemark_common::{Error, Result, SqlType};

    #[test]
    fn decimals_become_the_correctly_rounded_double_and_float() {
        let mut rng = Rng(0x6465_6369_6d61_6c73);
        let edge = 1i128 << 53;
        let mut values = vec![0, 1, -1, 5, 15, 25, 105, edge, edge + 1, -edge, -edge - 1];
        values.extend([1 << 24, (1 << 24) + 1, i128::MAX, i128::MIN + 1]);
        for _ in 0..20_000 {
            // Digits of every length, around both fast paths' limits too.
            let digits = rng.below(39) as u32;
            let mut x = (rng.next() as i128) << 64 | rng.next() as i128;
            x %= 10i128.pow(digits.min(38)).max(1);
            values.push(if rng.below(2) == 0 { x } else { -x });
            values.push(edge - 50 + rng.below(100) as i128);
            values.push((1 << 24) - 50 + rng.below(100) as i128);
        }
        for x in values {
            for scale in [0, 1, 2, 3, 5, 9, 10, 11, 17, 22, 23, 30, 38] {
                let text = decimal_text(x, scale);
                let double = text.parse::<f64>().unwrap_or(f64::NAN);
                assert_eq!(
                    decimal_to_f64(x, scale).to_bits(),
                    double.to_bits(),
                    "{text}"
                );
                let float = text.parse::<f32>().unwrap_or(f32::NAN);
                assert_eq!(
                    decimal_to_f32(x, scale).to_bits(),
                    float.to_bits(),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn casts_fail_with_the_value_and_try_cast_gives_null() -> Result<()> {
        let s = |v: &str| lit(ScalarValue::Utf8(Some(v.into())), SqlType::String);
        let cast = |e: Expr, to: SqlType, try_cast: bool| Expr::Cast {
            expr: Box::new(e),
            to,
            try_cast,
        };
        assert_eq!(show(&cast(s(" 42 "), SqlType::Int, false))?, "42");
        assert_eq!(show(&cast(s("abc"), SqlType::Int, true))?, "<NULL>");
        match show(&cast(s("abc"), SqlType::Int, false)) {
            Err(Error::Execution(m)) => assert_eq!(m, "cannot cast 'abc' to INT"),
            other => panic!("expected a cast error, got {other:?}"),
        }
        let double = lit(ScalarValue::Float64(Some(-2.7)), SqlType::Double);
        assert_eq!(show(&cast(double, SqlType::Int, false))?, "-2");
        Ok(())
    }

    #[test]
    fn new_types_cast_as_flink_casts_them() -> Result<()> {
        let cast = |e: Expr, to: SqlType| Expr::Cast {
            expr: Box::new(e),
            to,
            try_cast: true,
        };
        let s = |v: &str| lit(ScalarValue::Utf8(Some(v.into())), SqlType::String);
        let int = |v| lit(ScalarValue::Int32(Some(v)), SqlType::Int);
        let double = |v| lit(ScalarValue::Float64(Some(v)), SqlType::Double);
        let float = |v| lit(ScalarValue::Float32(Some(v)), SqlType::Float);
        let ts = |ms| {
            lit(
                ScalarValue::TimestampMillisecond(Some(ms), None),
                SqlType::Timestamp(3),
            )
        };
        // Each as Flink 2.3 casts it.
        let cases = [
            (cast(int(300), SqlType::TinyInt), "44"),
            (cast(int(70_000), SqlType::SmallInt), "4464"),
            (cast(double(1e10), SqlType::TinyInt), "-1"),
            (cast(double(-1.9), SqlType::SmallInt), "-1"),
            (cast(float(1e10), SqlType::Int), "2147483647"),
            (cast(float(0.1), SqlType::Double), "0.10000000149011612"),
            (cast(float(0.1), SqlType::Decimal(10, 2)), "0.10"),
            (cast(float(1e10), SqlType::Decimal(10, 2)), "<NULL>"),
            (cast(double(1e300), SqlType::Float), "Infinity"),
            (cast(s(" 7 "), SqlType::SmallInt), "7"),
            (cast(s("300"), SqlType::TinyInt), "<NULL>"),
            (cast(s("1.5"), SqlType::TinyInt), "1"),
            (cast(s("0.1"), SqlType::Float), "0.1"),
            (cast(s("2024-3-1"), SqlType::Date), "2024-03-01"),
            (cast(s("2024-03-01 10:00:00"), SqlType::Date), "2024-03-01"),
            (cast(s("2024-02-30"), SqlType::Date), "<NULL>"),
            (cast(s("12:34:56.789"), SqlType::Time(3)), "12:34:56.789"),
            (cast(s("12:34:56.789"), SqlType::Time(0)), "12:34:56"),
            (cast(s("25:00:00"), SqlType::Time(0)), "<NULL>"),
            (cast(ts(1_709_287_296_789), SqlType::Date), "2024-03-01"),
            (
                cast(ts(1_709_287_296_789), SqlType::Time(3)),
                "10:01:36.789",
            ),
            (cast(ts(-1), SqlType::Date), "1969-12-31"),
            (cast(ts(-1), SqlType::Time(3)), "23:59:59.999"),
            (
                cast(cast(s("2024-03-01"), SqlType::Date), SqlType::Timestamp(3)),
                "2024-03-01 00:00:00.000",
            ),
            (
                cast(cast(s("12:34:56.5"), SqlType::Time(1)), SqlType::String),
                "12:34:56.5",
            ),
        ];
        for (expr, want) in cases {
            assert_eq!(show(&expr)?, want, "{expr:?}");
        }
        Ok(())
    }
}
