//! DECIMAL arithmetic as Flink computes it: exact 128-bit values (256 bits
//! on the way for products and quotients), rescaled with HALF_UP rounding,
//! NULL when a result does not fit its type.

use arrow::array::{Array, ArrayRef, AsArray, Decimal128Array};
use arrow::datatypes::{i256, DataType, Decimal128Type};
use std::sync::Arc;
use tidemark_common::expr::BinaryOp;
use tidemark_common::{Error, Result};

/// `10^i` for every exponent a DECIMAL's 38 digits can need.
pub(crate) const POW10: [i128; 39] = {
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
pub(crate) fn rescale(v: i128, from: i8, to: i8) -> Option<i128> {
    if to >= from {
        POW10
            .get((to - from) as usize)
            .and_then(|f| v.checked_mul(*f))
    } else {
        Some(div_pow10_half_up(v, (from - to) as u32))
    }
}

/// `l op r` over DECIMAL arrays into DECIMAL(p, s); a zero divisor is an
/// error, as Flink raises it.
pub(crate) fn decimal_arithmetic(
    op: BinaryOp,
    l: &ArrayRef,
    r: &ArrayRef,
    p: u8,
    s: i8,
) -> Result<ArrayRef> {
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

#[cfg(test)]
mod tests {
    use crate::expr::eval::tests::{bin, dec, show};
    use tidemark_common::expr::BinaryOp;
    use tidemark_common::{Result, SqlType};

    #[test]
    fn decimal_arithmetic_rounds_half_up_at_the_result_scale() -> Result<()> {
        // (operator, left and right as (unscaled, precision, scale), result
        // precision and scale, result)
        let cases = [
            // 1.00 / 3.0 at DECIMAL(17, 8)
            (
                BinaryOp::Divide,
                (100, 10, 2),
                (30, 5, 1),
                (17, 8),
                "0.33333333",
            ),
            // 2.00 / 3.0 rounds the last digit up
            (
                BinaryOp::Divide,
                (200, 10, 2),
                (30, 5, 1),
                (17, 8),
                "0.66666667",
            ),
            (BinaryOp::Plus, (150, 10, 2), (25, 5, 1), (11, 2), "4.00"),
            (
                BinaryOp::Multiply,
                (-150, 10, 2),
                (25, 5, 1),
                (16, 3),
                "-3.750",
            ),
            (BinaryOp::Minus, (-150, 10, 2), (25, 5, 1), (11, 2), "-4.00"),
        ];
        for (op, (a, pa, sa), (b, pb, sb), (p, s), want) in cases {
            let expr = bin(op, dec(a, pa, sa), dec(b, pb, sb), SqlType::Decimal(p, s));
            assert_eq!(show(&expr)?, want, "{expr}");
        }
        Ok(())
    }
}
