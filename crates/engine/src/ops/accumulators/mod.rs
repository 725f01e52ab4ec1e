//! Columnar aggregate state: one accumulator per aggregate call holds the
//! values of many groups, updated a whole batch at a time.
//!
//! Results follow Flink's types and NULL rules: COUNT is BIGINT and never
//! NULL; SUM, MIN, MAX, AVG, FIRST_VALUE, LAST_VALUE and LISTAGG skip NULLs
//! and give NULL for a group that saw none; integer SUM wraps; AVG of
//! integers truncates toward zero; AVG of DECIMAL(p, s) has scale
//! max(6, s), rounded half up.
//!
//! This module owns the [`Accumulator`] interface, the factory
//! ([`new_accumulator`]) and what the families share: growing the
//! per-group vectors, the loop over a primitive argument's non-NULL rows,
//! and the checkpoint encoding of per-group vectors. The families live
//! apart: [`count`], [`sum`] (SUM and AVG), [`min_max`] (MIN/MAX of
//! primitive types), [`row_value`] (MIN/MAX of other types, FIRST_VALUE,
//! LAST_VALUE), [`list_agg`] and [`distinct`] (`AGG(DISTINCT x)` around
//! any of them).

mod count;
mod distinct;
mod list_agg;
mod min_max;
mod row_value;
mod sum;

use crate::runtime::snapshot::{StateReader, StateWriter};
use arrow::array::{Array, ArrayRef, ArrowPrimitiveType, AsArray};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type, Time32MillisecondType, TimestampMillisecondType,
};
use count::{Count, CountDistinct};
use distinct::Distinct;
use list_agg::ListAgg;
use min_max::MinMax;
use row_value::{Pick, RowValue};
use std::any::Any;
use sum::{Avg, DoubleSum, FloatAvg, Sum};
use tidemark_common::expr::{AggregateCall, AggregateFunction};
use tidemark_common::{Error, Result, SqlType};

/// The state of one aggregate for the groups of one slice.
/// Sets group `group` of `values` back to `empty`, if it has one.
pub(crate) fn reset_group<T>(values: &mut [T], group: u32, empty: T) {
    if let Some(v) = values.get_mut(group as usize) {
        *v = empty;
    }
}

pub trait Accumulator: Send + Any {
    /// Adds `values[rows[i]]` to group `groups[i]`; `values` is `None` for
    /// COUNT(*). Group ids are dense: a new group's id is the current count.
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()>;

    /// The results of `groups`, in that order.
    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef>;

    /// Moves what rows added since the last call into the pending partial
    /// results (Flink's local pre-aggregation flush). Only DOUBLE sums care:
    /// floating-point addition depends on grouping.
    fn local_flush(&mut self) {}

    /// Merges the pending partial results into the stored ones (Flink's
    /// global flush).
    fn global_flush(&mut self) {}

    /// Adds group `src` of `other` (an accumulator of the same aggregate)
    /// into group `dst` of this one, for each `(src, dst)` in `pairs`:
    /// how slices are merged into a window. LISTAGG appends `other` after
    /// what this one holds (Flink's merge order); FIRST_VALUE and
    /// LAST_VALUE go by time, so they need to know whether `other` holds
    /// earlier rows (`other_is_earlier`).
    fn merge_from(
        &mut self,
        other: &dyn Accumulator,
        pairs: &[(u32, u32)],
        other_is_earlier: bool,
    ) -> Result<()>;

    /// Whether merges give the same result however the slices of a window
    /// are grouped, so long as each merge says truly which side holds the
    /// earlier rows (`merge_from`'s `other_is_earlier`): exact sums and
    /// counts, MIN and MAX of types with a total order, FIRST_VALUE and
    /// LAST_VALUE. Then a long HOP window may be made of partial merges
    /// kept from earlier windows. Floating-point sums (whose rounding
    /// depends on the order of additions), MIN/MAX of floating-point
    /// numbers (NaN and -0.0 compare unordered) and LISTAGG (which appends
    /// in merge order) are not.
    fn merge_is_associative(&self) -> bool {
        false
    }

    /// Empties group `group`, as if nothing had been added to it: its
    /// number can serve another key (state that expires, spec §10).
    fn reset(&mut self, group: u32);

    /// The bytes the accumulator's groups hold (for state limits).
    fn state_bytes(&self) -> u64;

    /// Writes every group's state for a checkpoint.
    fn save(&self, w: &mut StateWriter) -> Result<()>;

    /// Reads what [`Accumulator::save`] wrote into this fresh accumulator
    /// (made for the same aggregate).
    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()>;
}

/// A fresh accumulator for `call`.
pub fn new_accumulator(call: &AggregateCall) -> Result<Box<dyn Accumulator>> {
    use AggregateFunction as F;
    let arg_type = call.arg_type.clone().unwrap_or(SqlType::BigInt);
    Ok(match call.func {
        F::RowNumber | F::Rank | F::DenseRank | F::Lag => {
            return Err(Error::Internal(format!(
                "{} is computed by the OVER operator itself",
                call.func.name()
            )))
        }
        F::CountStar => Box::new(Count::new(true)),
        F::Count if call.distinct => Box::new(CountDistinct::new(&arg_type)?),
        // A repeat changes neither a minimum, a maximum nor the first
        // value, so DISTINCT costs nothing there.
        F::Sum | F::Avg | F::ListAgg | F::LastValue if call.distinct => {
            Box::new(Distinct::new(call)?)
        }
        F::Count => Box::new(Count::new(false)),
        F::Sum => match arg_type {
            SqlType::TinyInt => Box::new(Sum::<Int8Type>::new(DataType::Int8)),
            SqlType::SmallInt => Box::new(Sum::<Int16Type>::new(DataType::Int16)),
            SqlType::Int => Box::new(Sum::<Int32Type>::new(DataType::Int32)),
            // As Flink: a FLOAT sum is added up in FLOAT.
            SqlType::Float => Box::new(Sum::<Float32Type>::new(DataType::Float32)),
            SqlType::BigInt => Box::new(Sum::<Int64Type>::new(DataType::Int64)),
            SqlType::Double => Box::new(DoubleSum::new(false)),
            SqlType::Decimal(_, s) => {
                Box::new(Sum::<Decimal128Type>::new(DataType::Decimal128(38, s)))
            }
            other => return Err(Error::Internal(format!("SUM over {other}"))),
        },
        F::Avg => match arg_type {
            SqlType::Double => Box::new(DoubleSum::new(true)),
            // As Flink: the average of FLOATs is taken in DOUBLE.
            SqlType::Float => Box::new(FloatAvg::new(DoubleSum::new(true))),
            SqlType::TinyInt => Box::new(Avg::<Int8Type>::new(0, DataType::Int8)),
            SqlType::SmallInt => Box::new(Avg::<Int16Type>::new(0, DataType::Int16)),
            SqlType::Int => Box::new(Avg::<Int32Type>::new(0, DataType::Int32)),
            SqlType::BigInt => Box::new(Avg::<Int64Type>::new(0, DataType::Int64)),
            SqlType::Decimal(_, s) => Box::new(Avg::<Decimal128Type>::new(
                s,
                DataType::Decimal128(38, s.max(6)),
            )),
            other => return Err(Error::Internal(format!("exact AVG over {other}"))),
        },
        F::Min | F::Max | F::FirstValue | F::LastValue => {
            let pick = match call.func {
                F::Min => Pick::Min,
                F::Max => Pick::Max,
                F::FirstValue => Pick::First,
                _ => Pick::Last,
            };
            match primitive_pick(&arg_type, pick) {
                Some(acc) => acc,
                None => Box::new(RowValue::new(&arg_type, pick)?),
            }
        }
        F::ListAgg => Box::new(ListAgg::new(
            call.separator.clone().unwrap_or_else(|| ",".into()),
        )),
    })
}

/// MIN, MAX, FIRST_VALUE or LAST_VALUE of a primitive type (numbers,
/// dates, times, timestamps), kept as native values; None for others.
fn primitive_pick(arg_type: &SqlType, pick: Pick) -> Option<Box<dyn Accumulator>> {
    let data_type = arg_type.to_arrow();
    Some(match arg_type {
        SqlType::TinyInt => Box::new(MinMax::<Int8Type>::new(pick, data_type)),
        SqlType::SmallInt => Box::new(MinMax::<Int16Type>::new(pick, data_type)),
        SqlType::Int => Box::new(MinMax::<Int32Type>::new(pick, data_type)),
        SqlType::BigInt => Box::new(MinMax::<Int64Type>::new(pick, data_type)),
        SqlType::Float => Box::new(MinMax::<Float32Type>::new(pick, data_type)),
        SqlType::Double => Box::new(MinMax::<Float64Type>::new(pick, data_type)),
        SqlType::Date => Box::new(MinMax::<Date32Type>::new(pick, data_type)),
        SqlType::Time(_) => Box::new(MinMax::<Time32MillisecondType>::new(pick, data_type)),
        SqlType::Decimal(..) => Box::new(MinMax::<Decimal128Type>::new(pick, data_type)),
        SqlType::Timestamp(_) | SqlType::TimestampLtz(_) => {
            Box::new(MinMax::<TimestampMillisecondType>::new(pick, data_type))
        }
        _ => return None,
    })
}

/// A fresh accumulator for `call` in an OVER aggregation: as
/// [`new_accumulator`], except that AVG of an integer sums in the
/// argument's own type, wrapping, as Flink's OVER aggregation does
/// (`AVG(si)` over SMALLINTs 32767 and 10 is -16379, where a window
/// aggregation gives 16388).
pub fn new_over_accumulator(call: &AggregateCall) -> Result<Box<dyn Accumulator>> {
    if call.func != AggregateFunction::Avg || call.distinct {
        return new_accumulator(call);
    }
    Ok(match call.arg_type {
        Some(SqlType::TinyInt) => {
            Box::new(Avg::<Int8Type>::new(0, DataType::Int8).summed_in_argument_type())
        }
        Some(SqlType::SmallInt) => {
            Box::new(Avg::<Int16Type>::new(0, DataType::Int16).summed_in_argument_type())
        }
        Some(SqlType::Int) => {
            Box::new(Avg::<Int32Type>::new(0, DataType::Int32).summed_in_argument_type())
        }
        _ => return new_accumulator(call),
    })
}

/// The argument column of an aggregate that has one; the planner never
/// builds one without.
fn argument<'a>(values: Option<&'a ArrayRef>, name: &str) -> Result<&'a ArrayRef> {
    values.ok_or_else(|| Error::Internal(format!("{name} without argument")))
}

/// `other` as the concrete accumulator `T` it must be.
fn same<T: 'static>(other: &dyn Accumulator) -> Result<&T> {
    let other: &dyn Any = other;
    other
        .downcast_ref::<T>()
        .ok_or_else(|| Error::Internal("merging accumulators of different aggregates".into()))
}

/// Checks that an accumulator's per-group vectors read from a checkpoint
/// hold the same groups.
fn same_groups(lengths: &[usize]) -> Result<()> {
    if lengths.windows(2).all(|w| w[0] == w[1]) {
        Ok(())
    } else {
        Err(crate::runtime::snapshot::corrupt(
            "an aggregate's groups do not add up",
        ))
    }
}

/// Makes room for group `g` in `v`.
fn ensure<T: Clone>(v: &mut Vec<T>, g: u32, fill: T) {
    if g as usize >= v.len() {
        v.resize(g as usize + 1, fill);
    }
}

fn grow<T: Clone>(v: &mut Vec<T>, groups: &[u32], fill: T) {
    if let Some(max) = groups.iter().max() {
        if *max as usize >= v.len() {
            v.resize(*max as usize + 1, fill);
        }
    }
}

/// Calls `add(group, value)` for each row `rows[i]` of `values` (a
/// primitive array of `T`) that is not NULL, with its group `groups[i]`,
/// in order: the update loop of every accumulator over a primitive
/// argument, compiled for each type and step.
#[inline]
fn for_each_value<T: ArrowPrimitiveType>(
    values: &ArrayRef,
    rows: &[u32],
    groups: &[u32],
    mut add: impl FnMut(usize, T::Native),
) {
    let v = values.as_primitive::<T>();
    let vals = v.values();
    let has_nulls = v.null_count() > 0;
    for (&r, &g) in rows.iter().zip(groups) {
        if has_nulls && v.is_null(r as usize) {
            continue;
        }
        add(g as usize, vals[r as usize]);
    }
}

/// The bytes of per-group slots that own a buffer (`capacity` bytes
/// each), besides the vector itself.
fn slots_bytes<T>(slots: &Vec<Option<T>>, capacity: impl Fn(&T) -> usize) -> u64 {
    crate::ops::operator::vec_bytes(slots)
        + slots
            .iter()
            .flatten()
            .map(|v| capacity(v) as u64)
            .sum::<u64>()
}

/// [`Accumulator::save`] and [`Accumulator::load`] of an accumulator whose
/// state is per-group vectors only: each vector written whole, in the order
/// named, and read back checked to hold the same groups.
macro_rules! save_group_vectors {
    ($($field:ident),+) => {
        fn save(
            &self,
            w: &mut $crate::runtime::snapshot::StateWriter,
        ) -> tidemark_common::Result<()> {
            $(w.put(&self.$field);)+
            Ok(())
        }

        fn load(
            &mut self,
            r: &mut $crate::runtime::snapshot::StateReader<'_>,
        ) -> tidemark_common::Result<()> {
            $(self.$field = r.get()?;)+
            $crate::ops::accumulators::same_groups(&[$(self.$field.len()),+])
        }
    };
}
use save_group_vectors;

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int32Array, StringArray};
    use std::sync::Arc;

    pub(super) fn call(func: AggregateFunction, ty: SqlType, result: SqlType) -> AggregateCall {
        AggregateCall {
            func,
            arg: Some(0),
            arg_type: Some(ty),
            distinct: false,
            separator: Some(" ".into()),
            offset: 0,
            lag_default: None,
            ty: result,
        }
    }

    /// Feeds `values` to groups `groups` (one row each) and shows the
    /// results of groups 0 and 1.
    pub(super) fn run(
        call: &AggregateCall,
        values: ArrayRef,
        groups: &[u32],
    ) -> Result<Vec<String>> {
        let mut acc = new_accumulator(call)?;
        let rows: Vec<u32> = (0..values.len() as u32).collect();
        // Two updates, as two runs of rows would give.
        let half = rows.len() / 2;
        acc.update(Some(&values), &rows[..half], &groups[..half])?;
        acc.update(Some(&values), &rows[half..], &groups[half..])?;
        let out = acc.evaluate(&[0, 1])?;
        (0..2)
            .map(|i| {
                let mut s = String::new();
                crate::formats::print::format_value(
                    out.as_ref(),
                    &call.ty,
                    i,
                    chrono_tz::UTC,
                    &mut s,
                )?;
                Ok(s)
            })
            .collect()
    }

    #[test]
    fn small_integers_and_floats_keep_their_type() -> Result<()> {
        use arrow::array::{Float32Array, Int16Array, Int8Array};
        use AggregateFunction::{Avg, Max, Min, Sum};
        let tiny: ArrayRef = Arc::new(Int8Array::from(vec![1, 127, 100, -128]));
        let small: ArrayRef = Arc::new(Int16Array::from(vec![10, 32767, 1000, -1]));
        let floats: ArrayRef = Arc::new(Float32Array::from(vec![1.5, 0.1, 3.0e38, -2.5]));
        let groups = [0, 0, 0, 1];
        // Each as Flink 2.3 gives it in a window aggregation.
        let cases = [
            (Sum, SqlType::TinyInt, tiny.clone(), ["-28", "-128"]),
            (Avg, SqlType::TinyInt, tiny.clone(), ["76", "-128"]),
            (Min, SqlType::TinyInt, tiny.clone(), ["1", "-128"]),
            (Sum, SqlType::SmallInt, small.clone(), ["-31759", "-1"]),
            (Avg, SqlType::SmallInt, small.clone(), ["11259", "-1"]),
            (Max, SqlType::SmallInt, small.clone(), ["32767", "-1"]),
            (Sum, SqlType::Float, floats.clone(), ["3.0E38", "-2.5"]),
            (Avg, SqlType::Float, floats.clone(), ["1.0E38", "-2.5"]),
            (Max, SqlType::Float, floats.clone(), ["3.0E38", "-2.5"]),
        ];
        for (func, ty, values, want) in cases {
            let c = call(func, ty.clone(), ty.clone());
            assert_eq!(run(&c, values, &groups)?, want, "{} of {ty}", func.name());
        }
        // In OVER aggregation, Flink sums integers for AVG in their own
        // type: 1 + 127 + 100 wraps to -28 as a TINYINT.
        let c = call(Avg, SqlType::TinyInt, SqlType::TinyInt);
        let mut acc = new_over_accumulator(&c)?;
        acc.update(Some(&tiny), &[0, 1, 2, 3], &groups)?;
        let out = acc.evaluate(&[0, 1])?;
        let shown: Vec<i8> = out.as_primitive::<Int8Type>().values().to_vec();
        assert_eq!(shown, [-9, -128]);
        Ok(())
    }

    /// Texts for the string aggregates: `b`, NULL, `a`, `c`.
    pub(super) fn texts() -> ArrayRef {
        Arc::new(StringArray::from(vec![
            Some("b"),
            None,
            Some("a"),
            Some("c"),
        ]))
    }

    #[test]
    fn null_handling_and_flink_result_types() -> Result<()> {
        let ints: ArrayRef = Arc::new(Int32Array::from(vec![
            Some(-3),
            None,
            Some(-4),
            None,
            Some(2),
        ]));
        let groups = [0, 1, 0, 1, 0];
        let cases = [
            (AggregateFunction::Sum, SqlType::Int, ["-5", "<NULL>"]),
            (AggregateFunction::Avg, SqlType::Int, ["-1", "<NULL>"]),
            (AggregateFunction::Count, SqlType::BigInt, ["3", "0"]),
            (AggregateFunction::Min, SqlType::Int, ["-4", "<NULL>"]),
            (AggregateFunction::Max, SqlType::Int, ["2", "<NULL>"]),
            (
                AggregateFunction::FirstValue,
                SqlType::Int,
                ["-3", "<NULL>"],
            ),
            (AggregateFunction::LastValue, SqlType::Int, ["2", "<NULL>"]),
        ];
        for (func, result, want) in cases {
            let c = call(func, SqlType::Int, result);
            assert_eq!(run(&c, ints.clone(), &groups)?, want, "{}", func.name());
        }
        Ok(())
    }
}
