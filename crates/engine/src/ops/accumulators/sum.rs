//! SUM and AVG: exact sums of integers and decimals (integers wrap, as in
//! Flink), and DOUBLE sums kept in Flink's grouping of the additions.

use super::{
    argument, ensure, for_each_value, grow, reset_group, same, save_group_vectors, Accumulator,
};
use crate::expr::decimal::rescale;
use crate::runtime::snapshot::{Persist, StateReader, StateWriter};
use arrow::array::{ArrayRef, ArrowPrimitiveType, PrimitiveArray};
use arrow::datatypes::{ArrowNativeTypeOp, DataType, Float64Type};
use std::marker::PhantomData;
use std::sync::Arc;
use tidemark_common::Result;

/// SUM of integers and decimals: per group the sum (integers wrap, as in
/// Flink) and whether any value was added.
pub(super) struct Sum<T: ArrowPrimitiveType> {
    sums: Vec<T::Native>,
    seen: Vec<bool>,
    data_type: DataType,
}

impl<T: ArrowPrimitiveType> Sum<T> {
    pub(super) fn new(data_type: DataType) -> Self {
        Sum {
            sums: vec![],
            seen: vec![],
            data_type,
        }
    }
}

impl<T: ArrowPrimitiveType> Accumulator for Sum<T>
where
    T::Native: Persist,
{
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        let v = argument(values, "SUM")?;
        grow(&mut self.sums, groups, T::Native::default());
        grow(&mut self.seen, groups, false);
        for_each_value::<T>(v, rows, groups, |g, x| {
            self.sums[g] = self.sums[g].add_wrapping(x);
            self.seen[g] = true;
        });
        Ok(())
    }

    fn merge_from(
        &mut self,
        other: &dyn Accumulator,
        pairs: &[(u32, u32)],
        _other_is_earlier: bool,
    ) -> Result<()> {
        let other = same::<Self>(other)?;
        for &(src, dst) in pairs {
            let (src, dst) = (src as usize, dst as usize);
            ensure(&mut self.sums, dst as u32, T::Native::default());
            ensure(&mut self.seen, dst as u32, false);
            if other.seen.get(src).copied().unwrap_or(false) {
                self.sums[dst] = if self.seen[dst] {
                    self.sums[dst].add_wrapping(other.sums[src])
                } else {
                    other.sums[src]
                };
                self.seen[dst] = true;
            }
        }
        Ok(())
    }

    /// Integer and decimal sums wrap, which is associative; a FLOAT sum
    /// rounds.
    fn merge_is_associative(&self) -> bool {
        !self.data_type.is_floating()
    }

    fn reset(&mut self, group: u32) {
        reset_group(&mut self.sums, group, T::Native::default());
        reset_group(&mut self.seen, group, false);
    }

    fn state_bytes(&self) -> u64 {
        crate::ops::operator::vec_bytes(&self.sums) + crate::ops::operator::vec_bytes(&self.seen)
    }

    save_group_vectors!(sums, seen);

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        let out: PrimitiveArray<T> = groups
            .iter()
            .map(|g| {
                let g = *g as usize;
                (self.seen.get(g).copied().unwrap_or(false)).then(|| self.sums[g])
            })
            .collect();
        Ok(Arc::new(out.with_data_type(self.data_type.clone())))
    }
}

/// SUM and AVG of DOUBLE, with Flink's grouping of the additions.
///
/// Floating-point addition is not associative, so the bits of a DOUBLE sum
/// depend on how the additions are grouped. Flink's two-phase window
/// aggregation sums the rows buffered since its last local flush into a
/// partial (left to right), adds the partials waiting at the global side
/// together, and adds that to the stored sum. Each group keeps those three
/// levels; the window operator calls [`Accumulator::local_flush`] and
/// [`Accumulator::global_flush`] where Flink flushes. Without flushes it is
/// a plain left-to-right sum, as Flink's one-phase aggregation computes.
pub(super) struct DoubleSum {
    local: Vec<Option<f64>>,
    pending: Vec<Option<f64>>,
    stored: Vec<Option<f64>>,
    counts: Vec<i64>,
    /// AVG: every level starts from 0.0 (so -0.0 becomes 0.0) and the
    /// result is sum / count.
    average: bool,
}

impl DoubleSum {
    pub(super) fn new(average: bool) -> Self {
        DoubleSum {
            local: vec![],
            pending: vec![],
            stored: vec![],
            counts: vec![],
            average,
        }
    }

    fn merge(into: Option<f64>, add: Option<f64>) -> Option<f64> {
        match (into, add) {
            (Some(a), Some(b)) => Some(a + b),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

impl Accumulator for DoubleSum {
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        let v = argument(values, if self.average { "AVG" } else { "SUM" })?;
        grow(&mut self.local, groups, None);
        grow(&mut self.counts, groups, 0);
        let start = if self.average { 0.0 } else { -0.0 };
        for_each_value::<Float64Type>(v, rows, groups, |g, x| {
            // SUM starts from "no value" (so a lone -0.0 stays -0.0); AVG
            // from 0.0. -0.0 is the identity of IEEE addition.
            self.local[g] = Some(self.local[g].unwrap_or(start) + x);
            self.counts[g] += 1;
        });
        Ok(())
    }

    fn merge_from(
        &mut self,
        other: &dyn Accumulator,
        pairs: &[(u32, u32)],
        _other_is_earlier: bool,
    ) -> Result<()> {
        let other = same::<Self>(other)?;
        for &(src, dst) in pairs {
            ensure(&mut self.local, dst, None);
            ensure(&mut self.counts, dst, 0);
            let src = src as usize;
            let level = |v: &Vec<Option<f64>>| v.get(src).copied().flatten();
            let total = Self::merge(
                level(&other.stored),
                Self::merge(level(&other.pending), level(&other.local)),
            );
            let d = dst as usize;
            self.local[d] = Self::merge(self.local[d], total);
            self.counts[d] += other.counts.get(src).copied().unwrap_or(0);
        }
        Ok(())
    }

    fn reset(&mut self, group: u32) {
        reset_group(&mut self.local, group, None);
        reset_group(&mut self.pending, group, None);
        reset_group(&mut self.stored, group, None);
        reset_group(&mut self.counts, group, 0);
    }

    fn state_bytes(&self) -> u64 {
        crate::ops::operator::vec_bytes(&self.local)
            + crate::ops::operator::vec_bytes(&self.pending)
            + crate::ops::operator::vec_bytes(&self.stored)
            + crate::ops::operator::vec_bytes(&self.counts)
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.put(&self.local);
        w.put(&self.pending);
        w.put(&self.stored);
        w.put(&self.counts);
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.local = r.get()?;
        self.pending = r.get()?;
        self.stored = r.get()?;
        self.counts = r.get()?;
        // The levels grow as groups are added to them; the counts cover
        // every group any level has.
        let most = self
            .local
            .len()
            .max(self.pending.len())
            .max(self.stored.len());
        super::same_groups(&[most.max(self.counts.len()), self.counts.len()])
    }

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        let out: PrimitiveArray<Float64Type> = groups
            .iter()
            .map(|&g| {
                let g = g as usize;
                let level = |v: &Vec<Option<f64>>| v.get(g).copied().flatten();
                let pending = Self::merge(level(&self.pending), level(&self.local));
                let sum = Self::merge(level(&self.stored), pending)?;
                if self.average {
                    Some(sum / self.counts[g] as f64)
                } else {
                    Some(sum)
                }
            })
            .collect();
        Ok(Arc::new(out))
    }

    fn local_flush(&mut self) {
        self.pending.resize(self.local.len(), None);
        for (p, l) in self.pending.iter_mut().zip(self.local.iter_mut()) {
            if let Some(l) = l.take() {
                *p = Self::merge(*p, Some(l));
            }
        }
    }

    fn global_flush(&mut self) {
        self.stored.resize(self.pending.len(), None);
        for (s, p) in self.stored.iter_mut().zip(self.pending.iter_mut()) {
            if let Some(p) = p.take() {
                *s = Self::merge(*s, Some(p));
            }
        }
    }
}

/// AVG of FLOAT: Flink averages FLOATs in DOUBLE and gives a FLOAT, so
/// the values are widened (exactly) into a DOUBLE average, whose result
/// is rounded to FLOAT.
pub(super) struct FloatAvg {
    inner: DoubleSum,
}

impl FloatAvg {
    pub(super) fn new(inner: DoubleSum) -> Self {
        FloatAvg { inner }
    }
}

impl Accumulator for FloatAvg {
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        let v = argument(values, "AVG")?;
        let wide = arrow::compute::cast(v, &DataType::Float64)?;
        self.inner.update(Some(&wide), rows, groups)
    }

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        let wide = self.inner.evaluate(groups)?;
        Ok(arrow::compute::cast(&wide, &DataType::Float32)?)
    }

    fn local_flush(&mut self) {
        self.inner.local_flush();
    }

    fn global_flush(&mut self) {
        self.inner.global_flush();
    }

    fn merge_from(
        &mut self,
        other: &dyn Accumulator,
        pairs: &[(u32, u32)],
        other_is_earlier: bool,
    ) -> Result<()> {
        let other = same::<Self>(other)?;
        self.inner.merge_from(&other.inner, pairs, other_is_earlier)
    }

    fn reset(&mut self, group: u32) {
        self.inner.reset(group);
    }

    fn state_bytes(&self) -> u64 {
        self.inner.state_bytes()
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        self.inner.save(w)
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.inner.load(r)
    }
}

/// The exact AVG of each argument type: how a value joins the sum, and
/// the average of a sum.
trait AvgNative: Copy + Send + 'static {
    /// `add` added to `sum`: Flink sums integers for AVG in a BIGINT,
    /// which wraps; decimals exactly.
    fn accumulate(sum: i128, add: i128) -> i128;

    /// `add` added to `sum` in the argument's own type, wrapping: how
    /// Flink's OVER aggregation sums integers for AVG.
    fn accumulate_narrow(sum: i128, add: i128) -> i128 {
        Self::accumulate(sum, add)
    }

    /// The value in the exact sum's type.
    fn widen(self) -> i128;

    /// `sum / count` (`count` > 0) as the result type: integers truncate
    /// toward zero; a decimal of scale `scale` has scale max(6, scale),
    /// rounded half up, and is NULL when it does not fit.
    fn average(sum: i128, count: i64, scale: i8) -> Option<Self>;
}

/// Integers: the sum wraps in a BIGINT, the average truncates.
macro_rules! integer_avg {
    ($($t:ty),+) => {$(
        impl AvgNative for $t {
            fn accumulate(sum: i128, add: i128) -> i128 {
                (sum as i64).wrapping_add(add as i64) as i128
            }
            fn accumulate_narrow(sum: i128, add: i128) -> i128 {
                (sum as $t).wrapping_add(add as $t) as i128
            }
            fn widen(self) -> i128 {
                self as i128
            }
            fn average(sum: i128, count: i64, _scale: i8) -> Option<Self> {
                Some((sum / count as i128) as $t)
            }
        }
    )+};
}
integer_avg!(i8, i16, i32, i64);

impl AvgNative for i128 {
    fn accumulate(sum: i128, add: i128) -> i128 {
        sum.wrapping_add(add)
    }
    fn widen(self) -> i128 {
        self
    }
    fn average(sum: i128, count: i64, scale: i8) -> Option<Self> {
        let out_scale = scale.max(6);
        // sum / count at the output scale, one extra digit then rounded
        // half up.
        let num = rescale(sum, scale, out_scale + 1)?;
        rescale(num / count as i128, out_scale + 1, out_scale)
    }
}

/// AVG of integers and decimals keeps an exact sum and a count.
pub(super) struct Avg<T: ArrowPrimitiveType> {
    exact: Vec<i128>,
    counts: Vec<i64>,
    /// The argument's scale (0 for integers).
    scale: i8,
    /// Integers are summed in their own type, wrapping (Flink's OVER
    /// aggregation), rather than in a BIGINT.
    narrow: bool,
    /// The result's type.
    data_type: DataType,
    /// The argument's arrow type; `fn() -> T` keeps the accumulator `Send`
    /// whatever `T` is.
    arg: PhantomData<fn() -> T>,
}

impl<T: ArrowPrimitiveType> Avg<T> {
    pub(super) fn new(scale: i8, data_type: DataType) -> Self {
        Avg {
            exact: vec![],
            counts: vec![],
            scale,
            narrow: false,
            data_type,
            arg: PhantomData,
        }
    }
}

impl<T: ArrowPrimitiveType> Avg<T> {
    /// The sum wraps in the argument's own type, as Flink's OVER
    /// aggregation sums integers for AVG.
    pub(super) fn summed_in_argument_type(mut self) -> Self {
        self.narrow = true;
        self
    }
}

impl<T: ArrowPrimitiveType> Accumulator for Avg<T>
where
    T::Native: AvgNative,
{
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        let v = argument(values, "AVG")?;
        grow(&mut self.counts, groups, 0);
        grow(&mut self.exact, groups, 0);
        let add = if self.narrow {
            T::Native::accumulate_narrow
        } else {
            T::Native::accumulate
        };
        for_each_value::<T>(v, rows, groups, |g, x| {
            self.exact[g] = add(self.exact[g], x.widen());
            self.counts[g] += 1;
        });
        Ok(())
    }

    fn merge_from(
        &mut self,
        other: &dyn Accumulator,
        pairs: &[(u32, u32)],
        _other_is_earlier: bool,
    ) -> Result<()> {
        let other = same::<Self>(other)?;
        for &(src, dst) in pairs {
            ensure(&mut self.exact, dst, 0);
            ensure(&mut self.counts, dst, 0);
            let (src, d) = (src as usize, dst as usize);
            let add = other.exact.get(src).copied().unwrap_or(0);
            self.exact[d] = if self.narrow {
                T::Native::accumulate_narrow(self.exact[d], add)
            } else {
                T::Native::accumulate(self.exact[d], add)
            };
            self.counts[d] += other.counts.get(src).copied().unwrap_or(0);
        }
        Ok(())
    }

    /// An exact sum that wraps, and a count.
    fn merge_is_associative(&self) -> bool {
        true
    }

    fn reset(&mut self, group: u32) {
        reset_group(&mut self.exact, group, 0);
        reset_group(&mut self.counts, group, 0);
    }

    fn state_bytes(&self) -> u64 {
        crate::ops::operator::vec_bytes(&self.exact) + crate::ops::operator::vec_bytes(&self.counts)
    }

    save_group_vectors!(exact, counts);

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        let out: PrimitiveArray<T> = groups
            .iter()
            .map(|&g| {
                let g = g as usize;
                let c = self.counts.get(g).copied().unwrap_or(0);
                if c == 0 {
                    return None;
                }
                T::Native::average(self.exact[g], c, self.scale)
            })
            .collect();
        Ok(Arc::new(out.with_data_type(self.data_type.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, run};
    use arrow::array::{ArrayRef, Decimal128Array};
    use std::sync::Arc;
    use tidemark_common::expr::AggregateFunction;
    use tidemark_common::{Result, SqlType};

    #[test]
    fn decimal_average_has_scale_six_rounded_half_up() -> Result<()> {
        let d: ArrayRef = Arc::new(
            Decimal128Array::from(vec![Some(100), Some(100), Some(101), Some(5)])
                .with_precision_and_scale(10, 2)?,
        );
        let c = call(
            AggregateFunction::Avg,
            SqlType::Decimal(10, 2),
            SqlType::Decimal(38, 6),
        );
        // (1.00 + 1.00 + 1.01) / 3 = 1.003333..; 0.05 alone.
        assert_eq!(run(&c, d, &[0, 0, 0, 1])?, ["1.003333", "0.050000"]);
        Ok(())
    }
}
