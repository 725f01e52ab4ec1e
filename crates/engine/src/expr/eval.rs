//! Evaluates bound expressions over whole Arrow batches with arrow's
//! compute kernels.
//!
//! Runtime errors follow Flink: a CAST that cannot convert a value and an
//! integer division by zero stop the query with an error naming the value;
//! integer overflow wraps; `TRY_CAST` gives NULL.

use crate::formats::print::format_value;
use arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, BooleanArray, Decimal128Array, Int32Array,
    Int64Array, RecordBatch, StringArray, TimestampMillisecondArray,
};
use arrow::compute::kernels::{boolean, cmp, numeric, zip::zip};
use arrow::compute::{cast_with_options, prep_null_mask_filter, CastOptions};
use arrow::datatypes::{i256, DataType, Decimal128Type, Float64Type, Int32Type, Int64Type};
use std::sync::Arc;
use tidemark_common::expr::{BinaryOp, Expr, ScalarFunction};
use tidemark_common::{Error, Result, SqlType};

/// What evaluation needs besides the batch: the zone `TIMESTAMP_LTZ`
/// values are rendered in when cast to strings.
#[derive(Clone, Copy, Debug)]
pub struct EvalContext {
    pub time_zone: chrono_tz::Tz,
}

impl Default for EvalContext {
    fn default() -> Self {
        EvalContext {
            time_zone: chrono_tz::UTC,
        }
    }
}

pub fn evaluate(expr: &Expr, batch: &RecordBatch, ctx: &EvalContext) -> Result<ArrayRef> {
    let n = batch.num_rows();
    match expr {
        Expr::Column { index, .. } => Ok(batch.column(*index).clone()),
        Expr::Literal { value, ty } => {
            if value.is_null() {
                return Ok(new_null_array(&ty.to_arrow(), n));
            }
            Ok(value
                .to_array_of_size(n)
                .map_err(|e| Error::Internal(e.to_string()))?)
        }
        Expr::Binary {
            op: op @ (BinaryOp::And | BinaryOp::Or),
            left,
            right,
            ..
        } => {
            // Short-circuit as Flink does: the right side is computed only
            // where the left one does not decide the result.
            let l = evaluate(left, batch, ctx)?;
            let decided = *op != BinaryOp::And;
            let lb = l.as_boolean();
            let undecided: BooleanArray = (0..n)
                .map(|i| Some(!(lb.is_valid(i) && lb.value(i) == decided)))
                .collect();
            let r = evaluate_where(right, batch, &undecided, ctx)?;
            binary(*op, &l, &r, &SqlType::Boolean)
        }
        Expr::Binary {
            op,
            left,
            right,
            ty,
        } => {
            let l = evaluate(left, batch, ctx)?;
            let r = evaluate(right, batch, ctx)?;
            binary(*op, &l, &r, ty)
        }
        Expr::Not(e) => Ok(Arc::new(boolean::not(
            evaluate(e, batch, ctx)?.as_boolean(),
        )?)),
        Expr::Negate(e) => Ok(numeric::neg_wrapping(&evaluate(e, batch, ctx)?)?),
        Expr::IsNull { expr, negated } => {
            let v = evaluate(expr, batch, ctx)?;
            Ok(Arc::new(if *negated {
                boolean::is_not_null(&v)?
            } else {
                boolean::is_null(&v)?
            }))
        }
        Expr::Cast { expr, to, try_cast } => {
            let v = evaluate(expr, batch, ctx)?;
            cast(&v, &expr.ty(), to, *try_cast, ctx)
        }
        Expr::Case {
            branches,
            otherwise,
            ty,
        } => {
            // Like Flink's generated code, a branch's value is computed only
            // for the rows that take it: `CASE WHEN x = 0 THEN 0 ELSE 10 / x
            // END` must not divide by zero.
            let mut remaining = BooleanArray::from(vec![true; n]);
            let mut taken = Vec::with_capacity(branches.len());
            for (cond, value) in branches {
                let c = evaluate_where(cond, batch, &remaining, ctx)?;
                let take = boolean::and(&remaining, &null_as_false(c.as_boolean()))?;
                let v = evaluate_where(value, batch, &take, ctx)?;
                remaining = boolean::and(&remaining, &boolean::not(&take)?)?;
                taken.push((take, v));
            }
            let mut result = match otherwise {
                Some(o) => evaluate_where(o, batch, &remaining, ctx)?,
                None => new_null_array(&ty.to_arrow(), n),
            };
            for (take, v) in taken.iter().rev() {
                result = zip(take, v, &result)?;
            }
            Ok(result)
        }
        Expr::Coalesce { args, ty } => {
            let mut result: Option<ArrayRef> = None;
            for a in args.iter().rev() {
                let v = evaluate(a, batch, ctx)?;
                result = Some(match result {
                    None => v,
                    Some(rest) => zip(&boolean::is_not_null(&v)?, &v, &rest)?,
                });
            }
            Ok(result.unwrap_or_else(|| new_null_array(&ty.to_arrow(), n)))
        }
        Expr::TimestampAdd { expr, millis } => {
            let v = evaluate(expr, batch, ctx)?;
            let ts = v.as_primitive::<arrow::datatypes::TimestampMillisecondType>();
            let shifted: TimestampMillisecondArray = ts.unary(|t| t.saturating_add(*millis));
            Ok(Arc::new(shifted.with_timezone_opt(ts.timezone())))
        }
        Expr::Function { func, args, ty } => {
            let values = args
                .iter()
                .map(|a| evaluate(a, batch, ctx))
                .collect::<Result<Vec<_>>>()?;
            if crate::expr::functions::is_library(*func) {
                return crate::expr::functions::evaluate_function(
                    *func,
                    args,
                    &values,
                    ty,
                    ctx.time_zone,
                );
            }
            function(*func, &values)
        }
    }
}

fn function(func: ScalarFunction, args: &[ArrayRef]) -> Result<ArrayRef> {
    let arg = &args[0];
    Ok(match func {
        ScalarFunction::Upper | ScalarFunction::Lower => {
            let s = arg.as_string::<i32>();
            let upper = func == ScalarFunction::Upper;
            Arc::new(
                s.iter()
                    .map(|v| {
                        v.map(|v| {
                            if upper {
                                v.to_uppercase()
                            } else {
                                v.to_lowercase()
                            }
                        })
                    })
                    .collect::<StringArray>(),
            )
        }
        ScalarFunction::CharLength => {
            let s = arg.as_string::<i32>();
            Arc::new(
                s.iter()
                    .map(|v| v.map(|v| v.chars().count() as i32))
                    .collect::<Int32Array>(),
            )
        }
        ScalarFunction::Abs => match arg.data_type() {
            DataType::Int32 => Arc::new(
                arg.as_primitive::<Int32Type>()
                    .unary::<_, Int32Type>(|v| v.wrapping_abs()),
            ),
            DataType::Int64 => Arc::new(
                arg.as_primitive::<Int64Type>()
                    .unary::<_, Int64Type>(|v| v.wrapping_abs()),
            ),
            DataType::Float64 => Arc::new(
                arg.as_primitive::<Float64Type>()
                    .unary::<_, Float64Type>(f64::abs),
            ),
            DataType::Decimal128(p, s) => Arc::new(
                arg.as_primitive::<Decimal128Type>()
                    .unary::<_, Decimal128Type>(|v| v.wrapping_abs())
                    .with_precision_and_scale(*p, *s)?,
            ),
            other => return Err(Error::Internal(format!("ABS over {other}"))),
        },
        ScalarFunction::ProcTime => {
            return Err(Error::Internal(
                "PROCTIME() is filled in by the source".into(),
            ))
        }
        ScalarFunction::CurrentWatermark => {
            return Err(Error::Internal(
                "CURRENT_WATERMARK() is read from the column its operator adds".into(),
            ))
        }
        ScalarFunction::ToTimestamp => {
            let text = arg.as_string::<i32>();
            let format = args[1].as_string::<i32>();
            let format = if format.is_empty() {
                ""
            } else {
                format.value(0)
            };
            let parsed: TimestampMillisecondArray = text
                .iter()
                .map(|t| {
                    let t = t?.trim();
                    chrono::NaiveDateTime::parse_from_str(t, format)
                        .ok()
                        .or_else(|| {
                            chrono::NaiveDate::parse_from_str(t, format)
                                .ok()
                                .and_then(|d| d.and_hms_opt(0, 0, 0))
                        })
                        .map(|dt| dt.and_utc().timestamp_millis())
                        // As Flink: text in the default form is read even
                        // when another format was given.
                        .or_else(|| crate::formats::text::parse_timestamp(t, false, chrono_tz::UTC))
                })
                .collect();
            Arc::new(parsed)
        }
        ScalarFunction::ToTimestampLtz { millis } => {
            let v = arg.as_primitive::<Int64Type>();
            let factor = if millis { 1 } else { 1_000 };
            // Outside years 0000-9999 Flink gives NULL.
            const FIRST: i64 = -62_167_219_200_000;
            const LAST: i64 = 253_402_300_799_999;
            let ts: TimestampMillisecondArray = v
                .iter()
                .map(|x| {
                    x.and_then(|x| x.checked_mul(factor))
                        .filter(|t| (FIRST..=LAST).contains(t))
                })
                .collect();
            Arc::new(ts.with_timezone(tidemark_common::LTZ_ARROW_TZ))
        }
        other => {
            return Err(Error::Internal(format!(
                "{} is evaluated by the function library",
                other.name()
            )))
        }
    })
}

fn binary(op: BinaryOp, l: &ArrayRef, r: &ArrayRef, ty: &SqlType) -> Result<ArrayRef> {
    Ok(match op {
        BinaryOp::And => Arc::new(boolean::and_kleene(l.as_boolean(), r.as_boolean())?),
        BinaryOp::Or => Arc::new(boolean::or_kleene(l.as_boolean(), r.as_boolean())?),
        BinaryOp::Eq => Arc::new(cmp::eq(l, r)?),
        BinaryOp::NotEq => Arc::new(cmp::neq(l, r)?),
        BinaryOp::Lt => Arc::new(cmp::lt(l, r)?),
        BinaryOp::LtEq => Arc::new(cmp::lt_eq(l, r)?),
        BinaryOp::Gt => Arc::new(cmp::gt(l, r)?),
        BinaryOp::GtEq => Arc::new(cmp::gt_eq(l, r)?),
        BinaryOp::Concat => Arc::new(
            arrow::compute::kernels::concat_elements::concat_elements_utf8(
                l.as_string::<i32>(),
                r.as_string::<i32>(),
            )?,
        ),
        _ => match ty {
            SqlType::Decimal(p, s) => decimal_arithmetic(op, l, r, *p, *s)?,
            SqlType::Double => match op {
                BinaryOp::Plus => numeric::add(l, r)?,
                BinaryOp::Minus => numeric::sub(l, r)?,
                BinaryOp::Multiply => numeric::mul(l, r)?,
                BinaryOp::Divide => numeric::div(l, r)?,
                _ => numeric::rem(l, r)?,
            },
            _ => match op {
                BinaryOp::Plus => numeric::add_wrapping(l, r)?,
                BinaryOp::Minus => numeric::sub_wrapping(l, r)?,
                BinaryOp::Multiply => numeric::mul_wrapping(l, r)?,
                _ => integer_division(op, l, r)?,
            },
        },
    })
}

/// Integer `/` and `%`: truncating, and an error naming the dividend on a
/// zero divisor, as Flink raises it.
fn integer_division(op: BinaryOp, l: &ArrayRef, r: &ArrayRef) -> Result<ArrayRef> {
    let zero_at = (0..r.len()).find(|&i| {
        r.is_valid(i)
            && l.is_valid(i)
            && match r.data_type() {
                DataType::Int32 => r.as_primitive::<Int32Type>().value(i) == 0,
                _ => r.as_primitive::<Int64Type>().value(i) == 0,
            }
    });
    if let Some(i) = zero_at {
        let mut dividend = String::new();
        format_value(
            l.as_ref(),
            &int_type(l.data_type()),
            i,
            chrono_tz::UTC,
            &mut dividend,
        )?;
        return Err(Error::Execution(format!(
            "division by zero: {dividend} {} 0",
            if op == BinaryOp::Divide { "/" } else { "%" }
        )));
    }
    // i32::MIN / -1 overflows: wrap as the JVM does.
    Ok(match r.data_type() {
        DataType::Int32 => Arc::new(arrow::compute::binary::<_, _, _, Int32Type>(
            l.as_primitive::<Int32Type>(),
            r.as_primitive::<Int32Type>(),
            |a, b| {
                if b == 0 {
                    0
                } else if op == BinaryOp::Divide {
                    a.wrapping_div(b)
                } else {
                    a.wrapping_rem(b)
                }
            },
        )?) as ArrayRef,
        _ => Arc::new(arrow::compute::binary::<_, _, _, Int64Type>(
            l.as_primitive::<Int64Type>(),
            r.as_primitive::<Int64Type>(),
            |a, b| {
                if b == 0 {
                    0
                } else if op == BinaryOp::Divide {
                    a.wrapping_div(b)
                } else {
                    a.wrapping_rem(b)
                }
            },
        )?),
    })
}

fn int_type(dt: &DataType) -> SqlType {
    match dt {
        DataType::Int32 => SqlType::Int,
        _ => SqlType::BigInt,
    }
}

const POW10: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// `v / 10^digits`, rounded half away from zero (Flink's HALF_UP).
pub(crate) fn div_pow10_half_up(v: i128, digits: u32) -> i128 {
    if digits == 0 {
        return v;
    }
    if digits as usize >= POW10.len() {
        return 0;
    }
    let d = POW10[digits as usize];
    let q = v / d;
    let rem = v % d;
    if rem.abs() * 2 >= d {
        q + v.signum()
    } else {
        q
    }
}

fn pow10_wide(digits: u32) -> Option<i256> {
    let ten = i256::from_i128(10);
    (0..digits).try_fold(i256::ONE, |acc, _| acc.checked_mul(ten))
}

/// `v / 10^digits` rounded half away from zero, back in 128 bits; `None`
/// when it does not fit.
fn wide_half_up(v: i256, digits: u32) -> Option<i128> {
    if digits == 0 {
        return v.to_i128();
    }
    let d = pow10_wide(digits)?;
    let q = v.checked_div(d)?;
    let rem = v.checked_rem(d)?;
    let twice = rem.wrapping_abs().checked_mul(i256::from_i128(2))?;
    let q = if twice >= d {
        if v < i256::ZERO {
            q.checked_sub(i256::ONE)?
        } else {
            q.checked_add(i256::ONE)?
        }
    } else {
        q
    };
    q.to_i128()
}

/// Rescales a decimal from scale `from` to scale `to`; `None` on overflow.
pub fn rescale(v: i128, from: i8, to: i8) -> Option<i128> {
    if to >= from {
        POW10
            .get((to - from) as usize)
            .and_then(|f| v.checked_mul(*f))
    } else {
        Some(div_pow10_half_up(v, (from - to) as u32))
    }
}

fn decimal_arithmetic(op: BinaryOp, l: &ArrayRef, r: &ArrayRef, p: u8, s: i8) -> Result<ArrayRef> {
    let (DataType::Decimal128(_, s1), DataType::Decimal128(_, s2)) = (l.data_type(), r.data_type())
    else {
        return Err(Error::Internal(format!(
            "decimal arithmetic over {} and {}",
            l.data_type(),
            r.data_type()
        )));
    };
    let (s1, s2) = (*s1, *s2);
    let la = l.as_primitive::<Decimal128Type>();
    let ra = r.as_primitive::<Decimal128Type>();
    let limit = POW10[p as usize];
    let mut division_by_zero = false;
    let out: Decimal128Array = la
        .iter()
        .zip(ra.iter())
        .map(|(a, b)| {
            let (a, b) = (a?, b?);
            let v = match op {
                BinaryOp::Plus => rescale(a, s1, s)?.checked_add(rescale(b, s2, s)?),
                BinaryOp::Minus => rescale(a, s1, s)?.checked_sub(rescale(b, s2, s)?),
                // Products and scaled dividends can pass 38 digits before
                // the result is rounded back into range: work in 256 bits.
                BinaryOp::Multiply => wide_half_up(
                    i256::from_i128(a).checked_mul(i256::from_i128(b))?,
                    (s1 + s2 - s) as u32,
                ),
                BinaryOp::Divide => {
                    if b == 0 {
                        division_by_zero = true;
                        return None;
                    }
                    // a / b at scale s: (a * 10^(s - s1 + s2 + 1) / b), then
                    // round the extra digit half up.
                    let shift = (s as i32 - s1 as i32 + s2 as i32 + 1) as u32;
                    let num = i256::from_i128(a).checked_mul(pow10_wide(shift)?)?;
                    wide_half_up(num.checked_div(i256::from_i128(b))?, 1)
                }
                _ => {
                    if b == 0 {
                        division_by_zero = true;
                        return None;
                    }
                    let m = s1.max(s2);
                    let v = rescale(a, s1, m)?.checked_rem(rescale(b, s2, m)?)?;
                    rescale(v, m, s)
                }
            }?;
            // A result that does not fit the type is NULL, as in Flink.
            (v.abs() < limit).then_some(v)
        })
        .collect();
    if division_by_zero {
        return Err(Error::Execution("division by zero".into()));
    }
    Ok(Arc::new(out.with_precision_and_scale(p, s)?))
}

/// CAST with Flink's semantics on top of arrow's cast kernel.
pub fn cast(
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
        (
            SqlType::String,
            SqlType::Int | SqlType::BigInt | SqlType::Double | SqlType::Decimal(..),
        ) => parse_strings(v.as_string::<i32>(), to)?,
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
        (SqlType::Int | SqlType::BigInt, SqlType::TimestampLtz(_)) => {
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
    let read: Box<dyn Fn(usize) -> Number> = match from {
        SqlType::Boolean => {
            let a = v.as_boolean().clone();
            Box::new(move |i| Number::Int(a.value(i) as i64))
        }
        SqlType::Int => {
            let a = v.as_primitive::<Int32Type>().clone();
            Box::new(move |i| Number::Int(a.value(i) as i64))
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
        SqlType::Int => Arc::new(
            (0..n)
                .map(|i| {
                    valid(i).then(|| match read(i) {
                        // Java's (int) of a double saturates at INT's bounds.
                        Number::Float(x) => x as i32,
                        other => to_i64(other) as i32,
                    })
                })
                .collect::<Int32Array>(),
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
                        // Correctly rounded, as BigDecimal.doubleValue().
                        Number::Decimal(x, s) => {
                            decimal_text(x, s).parse::<f64>().unwrap_or(f64::NAN)
                        }
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
        SqlType::Int => Arc::new(
            s.iter()
                .map(|v| v.and_then(integer).and_then(|i| i32::try_from(i).ok()))
                .collect::<Int32Array>(),
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

/// Evaluates `expr` only for the rows where `rows` is true; the others are
/// NULL. Whole-batch evaluation when every row is selected.
pub fn evaluate_where(
    expr: &Expr,
    batch: &RecordBatch,
    rows: &BooleanArray,
    ctx: &EvalContext,
) -> Result<ArrayRef> {
    let n = batch.num_rows();
    let selected = rows.true_count();
    if selected == n {
        return evaluate(expr, batch, ctx);
    }
    let null = new_null_array(&expr.ty().to_arrow(), 1);
    if selected == 0 {
        return Ok(arrow::compute::take(
            &null,
            &arrow::array::UInt32Array::from(vec![0u32; n]),
            None,
        )?);
    }
    let subset = arrow::compute::filter_record_batch(batch, rows)?;
    let values = evaluate(expr, &subset, ctx)?;
    let mut next = 0usize;
    let indices: Vec<(usize, usize)> = (0..n)
        .map(|i| {
            if rows.value(i) {
                next += 1;
                (0, next - 1)
            } else {
                (1, 0)
            }
        })
        .collect();
    Ok(arrow::compute::interleave(
        &[values.as_ref(), null.as_ref()],
        &indices,
    )?)
}

/// Evaluates a predicate to a filter mask: NULL counts as false.
pub fn predicate_mask(expr: &Expr, batch: &RecordBatch, ctx: &EvalContext) -> Result<BooleanArray> {
    let v = evaluate(expr, batch, ctx)?;
    Ok(null_as_false(v.as_boolean()))
}

/// A boolean array with NULL read as false, as WHERE and CASE read it.
fn null_as_false(b: &BooleanArray) -> BooleanArray {
    if b.null_count() > 0 {
        prep_null_mask_filter(b)
    } else {
        b.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion_common::ScalarValue;

    fn lit(value: ScalarValue, ty: SqlType) -> Expr {
        Expr::Literal { value, ty }
    }

    fn dec(v: i128, p: u8, s: i8) -> Expr {
        lit(
            ScalarValue::Decimal128(Some(v), p, s),
            SqlType::Decimal(p, s),
        )
    }

    fn one_row() -> RecordBatch {
        RecordBatch::try_from_iter([("x", Arc::new(Int32Array::from(vec![1])) as ArrayRef)])
            .expect("valid batch")
    }

    fn show(expr: &Expr) -> Result<String> {
        let v = evaluate(expr, &one_row(), &EvalContext::default())?;
        let mut out = String::new();
        format_value(v.as_ref(), &expr.ty(), 0, chrono_tz::UTC, &mut out)?;
        Ok(out)
    }

    fn bin(op: BinaryOp, l: Expr, r: Expr, ty: SqlType) -> Expr {
        Expr::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
            ty,
        }
    }

    #[test]
    fn decimal_arithmetic_rounds_half_up_at_the_result_scale() -> Result<()> {
        let cases = [
            // 1.00 / 3.0 at DECIMAL(17, 8)
            (
                bin(
                    BinaryOp::Divide,
                    dec(100, 10, 2),
                    dec(30, 5, 1),
                    SqlType::Decimal(17, 8),
                ),
                "0.33333333",
            ),
            // 2.00 / 3.0 rounds the last digit up
            (
                bin(
                    BinaryOp::Divide,
                    dec(200, 10, 2),
                    dec(30, 5, 1),
                    SqlType::Decimal(17, 8),
                ),
                "0.66666667",
            ),
            (
                bin(
                    BinaryOp::Plus,
                    dec(150, 10, 2),
                    dec(25, 5, 1),
                    SqlType::Decimal(11, 2),
                ),
                "4.00",
            ),
            (
                bin(
                    BinaryOp::Multiply,
                    dec(-150, 10, 2),
                    dec(25, 5, 1),
                    SqlType::Decimal(15, 3),
                ),
                "-3.750",
            ),
            (
                bin(
                    BinaryOp::Minus,
                    dec(-150, 10, 2),
                    dec(25, 5, 1),
                    SqlType::Decimal(11, 2),
                ),
                "-4.00",
            ),
        ];
        for (expr, want) in cases {
            assert_eq!(show(&expr)?, want, "{expr}");
        }
        Ok(())
    }

    #[test]
    fn integer_arithmetic_wraps_and_division_by_zero_names_the_value() -> Result<()> {
        let int = |v| lit(ScalarValue::Int32(Some(v)), SqlType::Int);
        assert_eq!(
            show(&bin(BinaryOp::Plus, int(i32::MAX), int(1), SqlType::Int))?,
            "-2147483648"
        );
        assert_eq!(
            show(&bin(BinaryOp::Divide, int(-7), int(2), SqlType::Int))?,
            "-3"
        );
        match show(&bin(BinaryOp::Divide, int(7), int(0), SqlType::Int)) {
            Err(Error::Execution(m)) => assert_eq!(m, "division by zero: 7 / 0"),
            other => panic!("expected a division-by-zero error, got {other:?}"),
        }
        Ok(())
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
}
