//! Evaluates bound expressions over whole Arrow batches with arrow's
//! compute kernels: columns, literals, operators, CASE and COALESCE here;
//! CAST in [`crate::expr::cast`], DECIMAL arithmetic in
//! [`crate::expr::decimal`] and every function call through
//! [`crate::expr::functions::evaluate_function`].
//!
//! Runtime errors follow Flink: a CAST that cannot convert a value and an
//! integer division by zero stop the query with an error naming the value;
//! integer overflow wraps; `TRY_CAST` gives NULL.

use crate::expr::cast::cast;
use crate::expr::decimal::decimal_arithmetic;
use crate::expr::functions::evaluate_function;
use crate::formats::print::format_value;
use arrow::array::{
    new_null_array, Array, ArrayRef, ArrowPrimitiveType, AsArray, BooleanArray, RecordBatch,
    TimestampMillisecondArray,
};
use arrow::compute::kernels::{boolean, cmp, numeric, zip::zip};
use arrow::compute::prep_null_mask_filter;
use arrow::datatypes::{ArrowNativeTypeOp, DataType, Int16Type, Int32Type, Int64Type, Int8Type};

const MS_PER_DAY: i64 = 86_400_000;
use std::sync::Arc;
use tidemark_common::expr::{BinaryOp, Expr};
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
            match v.data_type() {
                // As Flink: a DATE moves by the interval's whole days (cut
                // toward zero), a TIME around the clock.
                DataType::Date32 => {
                    let days = i32::try_from(millis / MS_PER_DAY).unwrap_or(i32::MAX);
                    let d = v.as_primitive::<arrow::datatypes::Date32Type>();
                    return Ok(Arc::new(d.unary::<_, arrow::datatypes::Date32Type>(|d| {
                        d.saturating_add(days)
                    })));
                }
                DataType::Time32(_) => {
                    let shift = millis.rem_euclid(MS_PER_DAY) as i32;
                    let t = v.as_primitive::<arrow::datatypes::Time32MillisecondType>();
                    return Ok(Arc::new(
                        t.unary::<_, arrow::datatypes::Time32MillisecondType>(|t| {
                            (t + shift).rem_euclid(MS_PER_DAY as i32)
                        }),
                    ));
                }
                _ => {}
            }
            let ts = v.as_primitive::<arrow::datatypes::TimestampMillisecondType>();
            let shifted: TimestampMillisecondArray = ts.unary(|t| t.saturating_add(*millis));
            Ok(Arc::new(shifted.with_timezone_opt(ts.timezone())))
        }
        Expr::Function { func, args, ty } => {
            let values = args
                .iter()
                .map(|a| evaluate(a, batch, ctx))
                .collect::<Result<Vec<_>>>()?;
            evaluate_function(*func, args, &values, ty, ctx.time_zone)
        }
    }
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
            SqlType::Double | SqlType::Float => match op {
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
    match r.data_type() {
        DataType::Int8 => wrapping_division::<Int8Type>(op, l, r),
        DataType::Int16 => wrapping_division::<Int16Type>(op, l, r),
        DataType::Int32 => wrapping_division::<Int32Type>(op, l, r),
        _ => wrapping_division::<Int64Type>(op, l, r),
    }
}

/// [`integer_division`] over INT or BIGINT arrays of type `T`.
fn wrapping_division<T: ArrowPrimitiveType>(
    op: BinaryOp,
    l: &ArrayRef,
    r: &ArrayRef,
) -> Result<ArrayRef> {
    let (dividends, divisors) = (l.as_primitive::<T>(), r.as_primitive::<T>());
    let zero_at =
        (0..r.len()).find(|&i| r.is_valid(i) && l.is_valid(i) && divisors.value(i).is_zero());
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
    // MIN / -1 overflows: wrap as the JVM does.
    Ok(Arc::new(arrow::compute::binary::<_, _, _, T>(
        dividends,
        divisors,
        |a, b| {
            if b.is_zero() {
                T::Native::ZERO
            } else if op == BinaryOp::Divide {
                a.div_wrapping(b)
            } else {
                a.mod_wrapping(b)
            }
        },
    )?))
}

fn int_type(dt: &DataType) -> SqlType {
    match dt {
        DataType::Int8 => SqlType::TinyInt,
        DataType::Int16 => SqlType::SmallInt,
        DataType::Int32 => SqlType::Int,
        _ => SqlType::BigInt,
    }
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
pub(super) mod tests {
    use super::*;
    use arrow::array::Int32Array;
    use datafusion_common::ScalarValue;

    pub(crate) fn lit(value: ScalarValue, ty: SqlType) -> Expr {
        Expr::Literal { value, ty }
    }

    pub(crate) fn dec(v: i128, p: u8, s: i8) -> Expr {
        lit(
            ScalarValue::Decimal128(Some(v), p, s),
            SqlType::Decimal(p, s),
        )
    }

    fn one_row() -> RecordBatch {
        RecordBatch::try_from_iter([("x", Arc::new(Int32Array::from(vec![1])) as ArrayRef)])
            .expect("valid batch")
    }

    /// `expr` evaluated over one row, as Flink prints its value.
    pub(crate) fn show(expr: &Expr) -> Result<String> {
        let v = evaluate(expr, &one_row(), &EvalContext::default())?;
        let mut out = String::new();
        format_value(v.as_ref(), &expr.ty(), 0, chrono_tz::UTC, &mut out)?;
        Ok(out)
    }

    pub(crate) fn bin(op: BinaryOp, l: Expr, r: Expr, ty: SqlType) -> Expr {
        Expr::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
            ty,
        }
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
}
