//! The numeric functions added beside ABS, ROUND, MOD and POWER in
//! [`crate::expr::functions`]: LN, LOG, LOG10, LOG2, EXP, SQRT, SIGN,
//! TRUNCATE, CEIL and FLOOR of numbers, BIN, HEX, GREATEST and LEAST, over
//! whole arrays with Flink 2.3's results (Java's `Math`: LN(0) is
//! -Infinity, SQRT(-1) NaN, never an error).

use arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, Decimal128Array, Float64Array, StringArray,
};
use arrow::compute::kernels::{boolean, cmp, zip::zip};
use arrow::datatypes::{DataType, Decimal128Type, Float64Type, Int32Type, Int64Type};
use std::sync::Arc;
use tidemark_common::{Error, Result};

/// A DOUBLE function of one DOUBLE argument (the binder casts to DOUBLE).
pub(crate) fn unary_double(v: &ArrayRef, f: fn(f64) -> f64) -> ArrayRef {
    let out: Float64Array = v.as_primitive::<Float64Type>().unary(f);
    Arc::new(out)
}

/// LOG(base, x): ln(x) / ln(base), as Flink computes it.
pub(crate) fn log_base(base: &ArrayRef, x: &ArrayRef) -> Result<ArrayRef> {
    let out: Float64Array = arrow::compute::binary(
        base.as_primitive::<Float64Type>(),
        x.as_primitive::<Float64Type>(),
        |b, x| x.ln() / b.ln(),
    )?;
    Ok(Arc::new(out))
}

/// Java's `Math.signum`: zero (of either sign) and NaN stay as they are.
fn signum(x: f64) -> f64 {
    if x == 0.0 || x.is_nan() {
        x
    } else {
        x.signum()
    }
}

/// SIGN: -1, 0 or 1 in the argument's type (a DECIMAL's at its scale).
pub(crate) fn sign(v: &ArrayRef) -> Result<ArrayRef> {
    Ok(match v.data_type() {
        DataType::Int32 => Arc::new(
            v.as_primitive::<Int32Type>()
                .unary::<_, Int32Type>(i32::signum),
        ),
        DataType::Int64 => Arc::new(
            v.as_primitive::<Int64Type>()
                .unary::<_, Int64Type>(i64::signum),
        ),
        DataType::Float64 => unary_double(v, signum),
        DataType::Decimal128(p, s) => {
            let one = 10i128.pow(u32::from(s.unsigned_abs()));
            let out: Decimal128Array = v
                .as_primitive::<Decimal128Type>()
                .unary::<_, Decimal128Type>(|x| x.signum() * one);
            Arc::new(out.with_precision_and_scale(*p, *s)?)
        }
        other => return Err(Error::Internal(format!("SIGN over {other}"))),
    })
}

/// `x` cut toward zero to `digits` decimal places of a number of scale
/// `scale` (an integer's scale is 0); negative digits zero whole digits.
fn truncate_scaled(x: i128, scale: i32, digits: i32) -> i128 {
    if digits >= scale {
        return x;
    }
    let dropped = i64::from(scale) - i64::from(digits);
    let Some(unit) = u32::try_from(dropped)
        .ok()
        .and_then(|d| 10i128.checked_pow(d))
    else {
        return 0;
    };
    let kept = x / unit;
    if digits >= 0 {
        kept
    } else {
        // Back to the integer scale: digits below zero come back as zeros.
        10i128
            .checked_pow(digits.unsigned_abs())
            .and_then(|u| kept.checked_mul(u))
            .unwrap_or(0)
    }
}

/// TRUNCATE(x, digits): toward zero; integers keep their type (narrowed
/// by wrapping), a DECIMAL gets the type the binder gave (ROUND's), a
/// DOUBLE is cut on its shortest decimal form.
pub(crate) fn truncate(v: &ArrayRef, digits: i32, to: &DataType) -> Result<ArrayRef> {
    Ok(match v.data_type() {
        DataType::Int32 => Arc::new(
            v.as_primitive::<Int32Type>()
                .unary::<_, Int32Type>(|x| truncate_scaled(i128::from(x), 0, digits) as i32),
        ),
        DataType::Int64 => Arc::new(
            v.as_primitive::<Int64Type>()
                .unary::<_, Int64Type>(|x| truncate_scaled(i128::from(x), 0, digits) as i64),
        ),
        DataType::Float64 => Arc::new(v.as_primitive::<Float64Type>().unary::<_, Float64Type>(
            // `+ 0.0` makes -0.0 0.0, as Flink's decimal route does.
            |x| crate::expr::functions::round_double_to(x, digits, false) + 0.0,
        )),
        DataType::Decimal128(_, s) => {
            let DataType::Decimal128(to_p, to_s) = to else {
                return Err(Error::Internal(format!("TRUNCATE of a DECIMAL to {to}")));
            };
            let s = i32::from(*s);
            let out: Decimal128Array = v
                .as_primitive::<Decimal128Type>()
                .unary::<_, Decimal128Type>(|x| truncate_scaled(x, s, digits));
            Arc::new(out.with_precision_and_scale(*to_p, *to_s)?)
        }
        other => return Err(Error::Internal(format!("TRUNCATE over {other}"))),
    })
}

/// CEIL / FLOOR of a number: integers unchanged, a DOUBLE to a whole
/// DOUBLE, a DECIMAL(p, s) to DECIMAL(p, 0).
pub(crate) fn ceil_floor(v: &ArrayRef, ceil: bool, to: &DataType) -> Result<ArrayRef> {
    Ok(match v.data_type() {
        DataType::Int32 | DataType::Int64 => v.clone(),
        DataType::Float64 => unary_double(v, if ceil { f64::ceil } else { f64::floor }),
        DataType::Decimal128(_, s) => {
            let DataType::Decimal128(to_p, to_s) = to else {
                return Err(Error::Internal(format!("CEIL of a DECIMAL to {to}")));
            };
            let unit = 10i128.pow(u32::from(s.unsigned_abs()));
            let out: Decimal128Array = v
                .as_primitive::<Decimal128Type>()
                .unary::<_, Decimal128Type>(|x| {
                    let q = x.div_euclid(unit);
                    if ceil && x.rem_euclid(unit) != 0 {
                        q + 1
                    } else {
                        q
                    }
                });
            Arc::new(out.with_precision_and_scale(*to_p, *to_s)?)
        }
        other => return Err(Error::Internal(format!("CEIL/FLOOR over {other}"))),
    })
}

/// BIN / HEX of an integer: its 64-bit two's complement in base 2 or
/// (upper-case) 16, as Java's `Long.toBinaryString` / `toHexString`.
pub(crate) fn integer_digits(v: &ArrayRef, hex: bool) -> ArrayRef {
    let out: StringArray = v
        .as_primitive::<Int64Type>()
        .iter()
        .map(|x| {
            let x = x? as u64;
            Some(if hex {
                format!("{x:X}")
            } else {
                format!("{x:b}")
            })
        })
        .collect();
    Arc::new(out)
}

/// HEX of a string: its UTF-8 bytes in upper-case hex.
pub(crate) fn string_hex(v: &ArrayRef) -> ArrayRef {
    let out: StringArray = v
        .as_string::<i32>()
        .iter()
        .map(|s| {
            Some(s?.bytes().fold(String::new(), |mut out, b| {
                out.push_str(&format!("{b:02X}"));
                out
            }))
        })
        .collect();
    Arc::new(out)
}

/// GREATEST / LEAST of arguments already cast to one type: NULL when any
/// argument is, as in Flink.
pub(crate) fn greatest_least(values: &[ArrayRef], greatest: bool) -> Result<ArrayRef> {
    let Some(first) = values.first() else {
        return Err(Error::Internal("GREATEST/LEAST without arguments".into()));
    };
    let mut result = first.clone();
    let mut any_null = boolean::is_null(first)?;
    for v in &values[1..] {
        let better = if greatest {
            cmp::gt(v, &result)?
        } else {
            cmp::lt(v, &result)?
        };
        result = zip(&better, v, &result)?;
        any_null = boolean::or(&any_null, &boolean::is_null(v)?)?;
    }
    let nulls = new_null_array(result.data_type(), result.len());
    Ok(zip(&any_null, &nulls, &result)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_goes_toward_zero() {
        assert_eq!(truncate_scaled(12345, 3, 2), 1234);
        assert_eq!(truncate_scaled(-12345, 3, 1), -123);
        assert_eq!(truncate_scaled(123, 0, -1), 120);
        assert_eq!(truncate_scaled(-129, 0, -1), -120);
        assert_eq!(truncate_scaled(123, 0, i32::MIN), 0);
        assert_eq!(truncate_scaled(123, 0, i32::MAX), 123);
        assert_eq!(signum(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(signum(-3.0), -1.0);
    }
}
