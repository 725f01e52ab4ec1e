//! Columnar aggregate state: one accumulator per aggregate call holds the
//! values of many groups, updated a whole batch at a time.
//!
//! Results follow Flink's types and NULL rules: COUNT is BIGINT and never
//! NULL; SUM, MIN, MAX, AVG, FIRST_VALUE, LAST_VALUE and LISTAGG skip NULLs
//! and give NULL for a group that saw none; integer SUM wraps; AVG of
//! integers truncates toward zero; AVG of DECIMAL(p, s) has scale
//! max(6, s), rounded half up.

use crate::expr::decimal::rescale;
use crate::runtime::snapshot::{Persist, StateReader, StateWriter};
use arrow::array::{
    Array, ArrayRef, ArrowPrimitiveType, AsArray, Int64Array, PrimitiveArray, StringBuilder,
};
use arrow::datatypes::{
    DataType, Decimal128Type, Float64Type, Int32Type, Int64Type, TimestampMillisecondType,
};
use arrow::row::{RowConverter, SortField};
use std::collections::HashSet;
use std::sync::Arc;
use tidemark_common::expr::{AggregateCall, AggregateFunction};
use tidemark_common::{Error, Result, SqlType};

/// The state of one aggregate for the groups of one slice.
pub trait Accumulator: Send {
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

    /// The bytes the accumulator's groups hold (for state limits).
    fn state_bytes(&self) -> u64;

    /// Writes every group's state for a checkpoint.
    fn save(&self, w: &mut StateWriter) -> Result<()>;

    /// Reads what [`Accumulator::save`] wrote into this fresh accumulator
    /// (made for the same aggregate).
    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()>;

    fn as_any(&self) -> &dyn std::any::Any;
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
        F::CountStar => Box::new(Count {
            counts: vec![],
            star: true,
        }),
        F::Count if call.distinct => Box::new(CountDistinct::new(&arg_type)?),
        F::Count => Box::new(Count {
            counts: vec![],
            star: false,
        }),
        F::Sum => match arg_type {
            SqlType::Int => Box::new(Sum::<Int32Type>::new(DataType::Int32)),
            SqlType::BigInt => Box::new(Sum::<Int64Type>::new(DataType::Int64)),
            SqlType::Double => Box::new(DoubleSum::new(false)),
            SqlType::Decimal(_, s) => {
                Box::new(Sum::<Decimal128Type>::new(DataType::Decimal128(38, s)))
            }
            other => return Err(Error::Internal(format!("SUM over {other}"))),
        },
        F::Avg if arg_type == SqlType::Double => Box::new(DoubleSum::new(true)),
        F::Avg => Box::new(Avg::new(&arg_type)?),
        F::Min | F::Max => {
            let max = call.func == F::Max;
            match arg_type {
                SqlType::Int => Box::new(MinMax::<Int32Type>::new(max, DataType::Int32)),
                SqlType::BigInt => Box::new(MinMax::<Int64Type>::new(max, DataType::Int64)),
                SqlType::Double => Box::new(MinMax::<Float64Type>::new(max, DataType::Float64)),
                SqlType::Decimal(p, s) => Box::new(MinMax::<Decimal128Type>::new(
                    max,
                    DataType::Decimal128(p, s),
                )),
                SqlType::Timestamp(_) | SqlType::TimestampLtz(_) => {
                    Box::new(MinMax::<TimestampMillisecondType>::new(
                        max,
                        arg_type.to_arrow(),
                    ))
                }
                _ => Box::new(RowValue::new(
                    &arg_type,
                    if max { Pick::Max } else { Pick::Min },
                )?),
            }
        }
        F::FirstValue => Box::new(RowValue::new(&arg_type, Pick::First)?),
        F::LastValue => Box::new(RowValue::new(&arg_type, Pick::Last)?),
        F::ListAgg => Box::new(ListAgg {
            values: vec![],
            separator: call.separator.clone().unwrap_or_else(|| ",".into()),
        }),
    })
}

/// The argument column of an aggregate that has one; the planner never
/// builds one without.
fn argument<'a>(values: Option<&'a ArrayRef>, name: &str) -> Result<&'a ArrayRef> {
    values.ok_or_else(|| Error::Internal(format!("{name} without argument")))
}

/// `other` as the concrete accumulator `T` it must be.
fn same<T: 'static>(other: &dyn Accumulator) -> Result<&T> {
    other
        .as_any()
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

struct Count {
    counts: Vec<i64>,
    star: bool,
}

impl Accumulator for Count {
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        grow(&mut self.counts, groups, 0);
        match values {
            Some(v) if !self.star && v.null_count() > 0 => {
                for (&r, &g) in rows.iter().zip(groups) {
                    self.counts[g as usize] += v.is_valid(r as usize) as i64;
                }
            }
            _ => {
                for &g in groups {
                    self.counts[g as usize] += 1;
                }
            }
        }
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
            ensure(&mut self.counts, dst, 0);
            self.counts[dst as usize] += other.counts.get(src as usize).copied().unwrap_or(0);
        }
        Ok(())
    }

    fn state_bytes(&self) -> u64 {
        crate::ops::operator::vec_bytes(&self.counts)
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.put(&self.counts);
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.counts = r.get()?;
        Ok(())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        Ok(Arc::new(Int64Array::from_iter_values(groups.iter().map(
            |g| self.counts.get(*g as usize).copied().unwrap_or(0),
        ))))
    }
}

/// Distinct values are kept in arrow's row format, which any type has.
struct CountDistinct {
    converter: RowConverter,
    seen: Vec<HashSet<Box<[u8]>>>,
    bytes: usize,
}

impl CountDistinct {
    fn new(ty: &SqlType) -> Result<Self> {
        Ok(CountDistinct {
            converter: RowConverter::new(vec![SortField::new(ty.to_arrow())])?,
            seen: vec![],
            bytes: 0,
        })
    }
}

impl Accumulator for CountDistinct {
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        let v = argument(values, "COUNT(DISTINCT)")?;
        grow(&mut self.seen, groups, HashSet::new());
        let encoded = self.converter.convert_columns(std::slice::from_ref(v))?;
        for (&r, &g) in rows.iter().zip(groups) {
            if v.is_valid(r as usize) {
                let bytes = encoded.row(r as usize);
                let set = &mut self.seen[g as usize];
                if !set.contains(bytes.as_ref()) {
                    self.bytes += bytes.as_ref().len() + 16;
                    set.insert(bytes.as_ref().into());
                }
            }
        }
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
            ensure(&mut self.seen, dst, HashSet::new());
            if let Some(values) = other.seen.get(src as usize) {
                for v in values {
                    if self.seen[dst as usize].insert(v.clone()) {
                        self.bytes += v.len() + 16;
                    }
                }
            }
        }
        Ok(())
    }

    fn state_bytes(&self) -> u64 {
        (self.bytes + self.seen.capacity() * std::mem::size_of::<HashSet<Box<[u8]>>>()) as u64
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.seen.len() as u64);
        for set in &self.seen {
            // Sorted, so that equal state writes equal bytes.
            let mut values: Vec<&Box<[u8]>> = set.iter().collect();
            values.sort();
            w.u64(values.len() as u64);
            for v in values {
                w.put(v);
            }
        }
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let sets = r.count()?;
        for _ in 0..sets {
            let n = r.count()?;
            let mut set = HashSet::with_capacity(n);
            for _ in 0..n {
                let v: Box<[u8]> = r.get()?;
                self.bytes += v.len() + 16;
                set.insert(v);
            }
            self.seen.push(set);
        }
        Ok(())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        Ok(Arc::new(Int64Array::from_iter_values(groups.iter().map(
            |g| self.seen.get(*g as usize).map_or(0, |s| s.len() as i64),
        ))))
    }
}

/// Addition as Flink does it for each type: integers wrap.
trait SumNative: Copy + Default + Send + Persist + 'static {
    fn add(self, other: Self) -> Self;
}
impl SumNative for i32 {
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
}
impl SumNative for i64 {
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
}
impl SumNative for i128 {
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
}

struct Sum<T: ArrowPrimitiveType> {
    sums: Vec<T::Native>,
    seen: Vec<bool>,
    data_type: DataType,
}

impl<T: ArrowPrimitiveType> Sum<T> {
    fn new(data_type: DataType) -> Self {
        Sum {
            sums: vec![],
            seen: vec![],
            data_type,
        }
    }
}

impl<T: ArrowPrimitiveType> Accumulator for Sum<T>
where
    T::Native: SumNative,
{
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        let v = argument(values, "SUM")?;
        grow(&mut self.sums, groups, T::Native::default());
        grow(&mut self.seen, groups, false);
        let v = v.as_primitive::<T>();
        let vals = v.values();
        let has_nulls = v.null_count() > 0;
        for (&r, &g) in rows.iter().zip(groups) {
            if has_nulls && v.is_null(r as usize) {
                continue;
            }
            let g = g as usize;
            self.sums[g] = self.sums[g].add(vals[r as usize]);
            self.seen[g] = true;
        }
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
                    self.sums[dst].add(other.sums[src])
                } else {
                    other.sums[src]
                };
                self.seen[dst] = true;
            }
        }
        Ok(())
    }

    fn state_bytes(&self) -> u64 {
        crate::ops::operator::vec_bytes(&self.sums) + crate::ops::operator::vec_bytes(&self.seen)
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.put(&self.sums);
        w.put(&self.seen);
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.sums = r.get()?;
        self.seen = r.get()?;
        same_groups(&[self.sums.len(), self.seen.len()])
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

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
struct DoubleSum {
    local: Vec<Option<f64>>,
    pending: Vec<Option<f64>>,
    stored: Vec<Option<f64>>,
    counts: Vec<i64>,
    /// AVG: every level starts from 0.0 (so -0.0 becomes 0.0) and the
    /// result is sum / count.
    average: bool,
}

impl DoubleSum {
    fn new(average: bool) -> Self {
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
        let v = v.as_primitive::<Float64Type>();
        let vals = v.values();
        let has_nulls = v.null_count() > 0;
        let start = if self.average { 0.0 } else { -0.0 };
        for (&r, &g) in rows.iter().zip(groups) {
            if has_nulls && v.is_null(r as usize) {
                continue;
            }
            let g = g as usize;
            // SUM starts from "no value" (so a lone -0.0 stays -0.0); AVG
            // from 0.0. -0.0 is the identity of IEEE addition.
            self.local[g] = Some(self.local[g].unwrap_or(start) + vals[r as usize]);
            self.counts[g] += 1;
        }
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
        same_groups(&[most.max(self.counts.len()), self.counts.len()])
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
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

/// AVG of integers and decimals keeps an exact sum and a count.
struct Avg {
    exact: Vec<i128>,
    counts: Vec<i64>,
    arg: SqlType,
}

impl Avg {
    fn new(arg: &SqlType) -> Result<Self> {
        if !arg.is_numeric() || *arg == SqlType::Double {
            return Err(Error::Internal(format!("exact AVG over {arg}")));
        }
        Ok(Avg {
            exact: vec![],
            counts: vec![],
            arg: arg.clone(),
        })
    }
}

impl Accumulator for Avg {
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        let v = argument(values, "AVG")?;
        grow(&mut self.counts, groups, 0);
        let valid = |r: u32| v.is_valid(r as usize);
        let arg = &self.arg;
        grow(&mut self.exact, groups, 0);
        let get: Box<dyn Fn(usize) -> i128> = match arg {
            SqlType::Int => {
                let a = v.as_primitive::<Int32Type>().clone();
                Box::new(move |i| a.value(i) as i128)
            }
            SqlType::BigInt => {
                let a = v.as_primitive::<Int64Type>().clone();
                Box::new(move |i| a.value(i) as i128)
            }
            _ => {
                let a = v.as_primitive::<Decimal128Type>().clone();
                Box::new(move |i| a.value(i))
            }
        };
        // Flink sums integers for AVG in a BIGINT, which wraps.
        let integer = matches!(arg, SqlType::Int | SqlType::BigInt);
        for (&r, &g) in rows.iter().zip(groups) {
            if valid(r) {
                let e = &mut self.exact[g as usize];
                *e = if integer {
                    (*e as i64).wrapping_add(get(r as usize) as i64) as i128
                } else {
                    e.wrapping_add(get(r as usize))
                };
                self.counts[g as usize] += 1;
            }
        }
        Ok(())
    }

    fn merge_from(
        &mut self,
        other: &dyn Accumulator,
        pairs: &[(u32, u32)],
        _other_is_earlier: bool,
    ) -> Result<()> {
        let other = same::<Self>(other)?;
        let integer = matches!(self.arg, SqlType::Int | SqlType::BigInt);
        for &(src, dst) in pairs {
            ensure(&mut self.exact, dst, 0);
            ensure(&mut self.counts, dst, 0);
            let (src, d) = (src as usize, dst as usize);
            let add = other.exact.get(src).copied().unwrap_or(0);
            self.exact[d] = if integer {
                (self.exact[d] as i64).wrapping_add(add as i64) as i128
            } else {
                self.exact[d].wrapping_add(add)
            };
            self.counts[d] += other.counts.get(src).copied().unwrap_or(0);
        }
        Ok(())
    }

    fn state_bytes(&self) -> u64 {
        crate::ops::operator::vec_bytes(&self.exact) + crate::ops::operator::vec_bytes(&self.counts)
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.put(&self.exact);
        w.put(&self.counts);
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.exact = r.get()?;
        self.counts = r.get()?;
        same_groups(&[self.exact.len(), self.counts.len()])
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        let count = |g: usize| self.counts.get(g).copied().unwrap_or(0);
        Ok(match &self.arg {
            SqlType::Int => Arc::new(
                groups
                    .iter()
                    .map(|&g| {
                        let g = g as usize;
                        (count(g) > 0).then(|| (self.exact[g] / count(g) as i128) as i32)
                    })
                    .collect::<PrimitiveArray<Int32Type>>(),
            ),
            SqlType::BigInt => Arc::new(
                groups
                    .iter()
                    .map(|&g| {
                        let g = g as usize;
                        (count(g) > 0).then(|| (self.exact[g] / count(g) as i128) as i64)
                    })
                    .collect::<PrimitiveArray<Int64Type>>(),
            ),
            SqlType::Decimal(_, s) => {
                let out_scale = (*s).max(6);
                let values: PrimitiveArray<Decimal128Type> = groups
                    .iter()
                    .map(|&g| {
                        let g = g as usize;
                        let c = count(g);
                        if c == 0 {
                            return None;
                        }
                        // sum / count at the output scale, one extra digit
                        // then rounded half up.
                        let num = rescale(self.exact[g], *s, out_scale + 1)?;
                        rescale(num / c as i128, out_scale + 1, out_scale)
                    })
                    .collect();
                Arc::new(values.with_precision_and_scale(38, out_scale)?)
            }
            other => return Err(Error::Internal(format!("AVG over {other}"))),
        })
    }
}

struct MinMax<T: ArrowPrimitiveType> {
    values: Vec<Option<T::Native>>,
    max: bool,
    data_type: DataType,
}

impl<T: ArrowPrimitiveType> MinMax<T> {
    fn new(max: bool, data_type: DataType) -> Self {
        MinMax {
            values: vec![],
            max,
            data_type,
        }
    }
}

impl<T: ArrowPrimitiveType> Accumulator for MinMax<T>
where
    T::Native: PartialOrd + Persist,
{
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        let v = argument(values, "MIN/MAX")?;
        grow(&mut self.values, groups, None);
        let v = v.as_primitive::<T>();
        let vals = v.values();
        let has_nulls = v.null_count() > 0;
        for (&r, &g) in rows.iter().zip(groups) {
            if has_nulls && v.is_null(r as usize) {
                continue;
            }
            offer_extreme(&mut self.values[g as usize], vals[r as usize], self.max);
        }
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
            ensure(&mut self.values, dst, None);
            if let Some(x) = other.values.get(src as usize).copied().flatten() {
                offer_extreme(&mut self.values[dst as usize], x, self.max);
            }
        }
        Ok(())
    }

    fn state_bytes(&self) -> u64 {
        crate::ops::operator::vec_bytes(&self.values)
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.put(&self.values);
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.values = r.get()?;
        Ok(())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        let out: PrimitiveArray<T> = groups
            .iter()
            .map(|g| self.values.get(*g as usize).copied().flatten())
            .collect();
        Ok(Arc::new(out.with_data_type(self.data_type.clone())))
    }
}

/// Keeps the larger (`max`) or smaller of `slot` and `x`.
fn offer_extreme<N: PartialOrd>(slot: &mut Option<N>, x: N, max: bool) {
    let better = match slot {
        None => true,
        Some(cur) => {
            if max {
                x > *cur
            } else {
                x < *cur
            }
        }
    };
    if better {
        *slot = Some(x);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pick {
    Min,
    Max,
    First,
    Last,
}

/// MIN/MAX of non-numeric types and FIRST_VALUE/LAST_VALUE of any type,
/// kept in arrow's row format (whose byte order is the values' order).
struct RowValue {
    converter: RowConverter,
    data_type: DataType,
    values: Vec<Option<Vec<u8>>>,
    pick: Pick,
}

impl RowValue {
    fn new(ty: &SqlType, pick: Pick) -> Result<Self> {
        Ok(RowValue {
            converter: RowConverter::new(vec![SortField::new(ty.to_arrow())])?,
            data_type: ty.to_arrow(),
            values: vec![],
            pick,
        })
    }
}

/// Offers a value (in arrow's row format, whose byte order is the value
/// order) to a group's slot; `later` says whether it comes after what the
/// slot holds, which decides FIRST_VALUE and LAST_VALUE.
fn offer_row(slot: &mut Option<Vec<u8>>, bytes: &[u8], pick: Pick, later: bool) {
    let replace = match (slot.as_deref(), pick) {
        (None, _) => true,
        (Some(_), Pick::First) => !later,
        (Some(_), Pick::Last) => later,
        (Some(cur), Pick::Min) => bytes < cur,
        (Some(cur), Pick::Max) => bytes > cur,
    };
    if replace {
        // The buffer is reused: LAST_VALUE replaces on every row.
        let buf = slot.get_or_insert_with(Vec::new);
        buf.clear();
        buf.extend_from_slice(bytes);
    }
}

impl Accumulator for RowValue {
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        let v = argument(values, "value aggregate")?;
        grow(&mut self.values, groups, None);
        let encoded = self.converter.convert_columns(std::slice::from_ref(v))?;
        for (&r, &g) in rows.iter().zip(groups) {
            if v.is_null(r as usize) {
                continue;
            }
            // A new row comes after everything the group holds.
            offer_row(
                &mut self.values[g as usize],
                encoded.row(r as usize).as_ref(),
                self.pick,
                true,
            );
        }
        Ok(())
    }

    fn merge_from(
        &mut self,
        other: &dyn Accumulator,
        pairs: &[(u32, u32)],
        other_is_earlier: bool,
    ) -> Result<()> {
        let other = same::<Self>(other)?;
        for &(src, dst) in pairs {
            ensure(&mut self.values, dst, None);
            let Some(bytes) = other.values.get(src as usize).and_then(|v| v.as_deref()) else {
                continue;
            };
            offer_row(
                &mut self.values[dst as usize],
                bytes,
                self.pick,
                !other_is_earlier,
            );
        }
        Ok(())
    }

    fn state_bytes(&self) -> u64 {
        crate::ops::operator::vec_bytes(&self.values)
            + self
                .values
                .iter()
                .flatten()
                .map(|v| v.capacity() as u64)
                .sum::<u64>()
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        // The values as the column they encode, so that reading them back
        // re-encodes valid rows (see `put_keys`); which groups have one.
        w.put(
            &self
                .values
                .iter()
                .map(Option::is_some)
                .collect::<Vec<bool>>(),
        );
        let present = self.values.iter().flatten().map(Vec::as_slice);
        crate::runtime::snapshot::put_keys(w, &self.converter, present)
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let has: Vec<bool> = r.get()?;
        let rows = crate::runtime::snapshot::get_keys(r, &self.converter)?;
        let mut rows = rows.iter();
        self.values = has
            .into_iter()
            .map(|h| match h {
                false => Ok(None),
                true => rows
                    .next()
                    .map(|row| Some(row.as_ref().to_vec()))
                    .ok_or_else(|| crate::runtime::snapshot::corrupt("a value is missing")),
            })
            .collect::<Result<_>>()?;
        Ok(())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        // Groups without a value get a NULL row, encoded once.
        let parser = self.converter.parser();
        let null_rows = self
            .converter
            .convert_columns(&[arrow::array::new_null_array(&self.data_type, 1)])?;
        let null_row = null_rows.row(0);
        let rows: Vec<_> = groups
            .iter()
            .map(
                |g| match self.values.get(*g as usize).and_then(|v| v.as_deref()) {
                    Some(bytes) => parser.parse(bytes),
                    None => null_row,
                },
            )
            .collect();
        let mut cols = self.converter.convert_rows(rows)?;
        cols.pop()
            .ok_or_else(|| Error::Internal("row conversion gave no column".into()))
    }
}

struct ListAgg {
    values: Vec<Option<String>>,
    separator: String,
}

/// Appends `text` to a LISTAGG group, after the separator if it holds any.
fn append_listed(slot: &mut Option<String>, separator: &str, text: &str) {
    match slot {
        Some(acc) => {
            acc.push_str(separator);
            acc.push_str(text);
        }
        None => *slot = Some(text.to_string()),
    }
}

impl Accumulator for ListAgg {
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        let v = argument(values, "LISTAGG")?;
        grow(&mut self.values, groups, None);
        let s = v.as_string::<i32>();
        for (&r, &g) in rows.iter().zip(groups) {
            if s.is_null(r as usize) {
                continue;
            }
            append_listed(
                &mut self.values[g as usize],
                &self.separator,
                s.value(r as usize),
            );
        }
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
            ensure(&mut self.values, dst, None);
            let Some(more) = other.values.get(src as usize).and_then(|v| v.as_deref()) else {
                continue;
            };
            append_listed(&mut self.values[dst as usize], &self.separator, more);
        }
        Ok(())
    }

    fn state_bytes(&self) -> u64 {
        crate::ops::operator::vec_bytes(&self.values)
            + self
                .values
                .iter()
                .flatten()
                .map(|v| v.capacity() as u64)
                .sum::<u64>()
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.put(&self.values);
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.values = r.get()?;
        Ok(())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        let mut b = StringBuilder::new();
        for g in groups {
            b.append_option(self.values.get(*g as usize).and_then(|v| v.as_deref()));
        }
        Ok(Arc::new(b.finish()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Decimal128Array, Int32Array, StringArray};

    fn call(func: AggregateFunction, ty: SqlType, result: SqlType) -> AggregateCall {
        AggregateCall {
            func,
            arg: Some(0),
            arg_type: Some(ty),
            distinct: false,
            separator: Some(" ".into()),
            offset: 0,
            ty: result,
        }
    }

    /// Feeds `values` to groups `groups` (one row each) and shows the
    /// results of groups 0 and 1.
    fn run(call: &AggregateCall, values: ArrayRef, groups: &[u32]) -> Result<Vec<String>> {
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

    #[test]
    fn strings_min_max_and_listagg_skip_nulls() -> Result<()> {
        let s: ArrayRef = Arc::new(StringArray::from(vec![
            Some("b"),
            None,
            Some("a"),
            Some("c"),
        ]));
        let groups = [0, 0, 0, 1];
        let min = call(AggregateFunction::Min, SqlType::String, SqlType::String);
        assert_eq!(run(&min, s.clone(), &groups)?, ["a", "c"]);
        let max = call(AggregateFunction::Max, SqlType::String, SqlType::String);
        assert_eq!(run(&max, s.clone(), &groups)?, ["b", "c"]);
        let list = call(AggregateFunction::ListAgg, SqlType::String, SqlType::String);
        assert_eq!(run(&list, s, &groups)?, ["b a", "c"]);
        Ok(())
    }
}
