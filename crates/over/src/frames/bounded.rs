//! Bounded frames (`n PRECEDING`): ROWS frames (a key's last `n` rows and
//! the current one) and RANGE frames (a key's rows from `rowtime - d` on,
//! peers included), and the two aggregates kept incrementally over them
//! rather than recomputed from the frame's rows: DOUBLE SUM and AVG
//! ([`Running`]) and MIN and MAX of primitive types ([`Extreme`]).

use super::paged::Paged;
use super::{Frames, KeyQueues, Out};
use crate::store::{RowRef, Store};
use arrow::array::{ArrayRef, Float64Array};
use std::sync::Arc;
use tidemark_common::expr::{AggregateCall, AggregateFunction};
use tidemark_common::window::FrameUnits;
use tidemark_common::{Error, Result, SqlType};
use tidemark_engine::snapshot::{StateReader, StateWriter};

/// A DOUBLE SUM or AVG over a bounded frame, kept as Flink keeps it: a sum
/// and a count per key, rows added and retracted one at a time.
pub(super) struct Running {
    arg: usize,
    average: bool,
    /// Per key id: the sum (SUM: none before the first value; AVG: from
    /// 0.0) and how many non-NULL values it holds.
    keys: Paged<(Option<f64>, i64)>,
    /// Per key id: the values added and not yet retracted, oldest first
    /// (the rows of the key's history, in its order).
    values: KeyQueues<Option<f64>>,
    /// The results of the rows emitted since the last build.
    out: Vec<Option<f64>>,
}

impl Running {
    /// The running sum of `call` over a bounded frame, if it is a DOUBLE
    /// SUM or AVG; `bound` is the most values a key holds, if known.
    pub(super) fn for_call(call: &AggregateCall, bound: Option<usize>) -> Option<Self> {
        let (arg, average) = running_call(call)?;
        Some(Running {
            arg,
            average,
            keys: Paged::new(),
            values: KeyQueues::new(bound),
            out: Vec::new(),
        })
    }

    /// Makes room for key id `key`.
    fn ensure_key(&mut self, key: usize) {
        if self.keys.len() <= key {
            self.keys.grow(key + 1, (None, 0));
            self.values.ensure(key);
        }
    }

    /// Key `key` starts over, with nothing added.
    pub(super) fn forget(&mut self, key: usize) {
        if key < self.keys.len() {
            self.keys[key] = (None, 0);
            while self.values.pop_front(key).is_some() {}
        }
    }

    fn add(&mut self, key: usize, value: Option<f64>) -> Result<()> {
        self.values.push_back(key, value)?;
        let Some(v) = value else { return Ok(()) };
        let (sum, count) = &mut self.keys[key];
        *sum = Some(match *sum {
            Some(s) => s + v,
            None if self.average => 0.0 + v,
            None => v,
        });
        *count += 1;
        Ok(())
    }

    /// Retracts the oldest value still added.
    fn retract_oldest(&mut self, key: usize) {
        let Some(Some(v)) = self.values.pop_front(key) else {
            return;
        };
        let (sum, count) = &mut self.keys[key];
        *sum = Some(sum.unwrap_or(0.0) - v);
        *count -= 1;
    }

    fn value(&self, key: usize) -> Option<f64> {
        let (sum, count) = self.keys[key];
        if count == 0 {
            return None;
        }
        let sum = sum?;
        Some(if self.average {
            sum / count as f64
        } else {
            sum
        })
    }

    /// The results since the last build (the vector keeps its capacity
    /// for the next: regrowing it at every build cost reallocations and
    /// page faults).
    pub(super) fn array(&mut self) -> ArrayRef {
        let array = Float64Array::from_iter(self.out.iter().copied());
        self.out.clear();
        Arc::new(array)
    }

    pub(super) fn state_bytes(&self) -> u64 {
        self.values.state_bytes() + (self.keys.capacity() * size_of::<(Option<f64>, i64)>()) as u64
    }

    pub(super) fn save(&self, w: &mut StateWriter) {
        w.put(&self.keys);
        self.values.save(w);
    }

    pub(super) fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.keys = r.get()?;
        self.values.load(r)?;
        Ok(())
    }
}

/// MIN or MAX over a bounded frame of a primitive type, as a monotonic
/// queue per key: the values that can still be the extreme, oldest first.
/// Values compare in Flink's order (for DOUBLE, Java's `Double.compareTo`:
/// -0.0 below 0.0, NaN above all), as its retracting MIN/MAX do.
pub(super) struct Extreme {
    arg: usize,
    max: bool,
    ty: SqlType,
    /// Per key id: (position: row number or rowtime, raw value).
    keys: Candidates,
    /// Per key id: rows added so far (ROWS positions).
    added: Paged<i64>,
    out: Vec<Option<i128>>,
}

/// The queues of an [`Extreme`]: values in 64 bits unless the type is
/// DECIMAL (a queue entry of 16 bytes rather than 32 — at millions of
/// keys, each holding a few, the most of an OVER aggregation's memory).
enum Candidates {
    Narrow(KeyQueues<(i64, i64)>),
    Wide(KeyQueues<(i64, i128)>),
}

/// Calls `$body` with `$q` bound to the queues of `$candidates`, whichever
/// width they are.
macro_rules! with_queues {
    ($candidates:expr, $q:ident => $body:expr) => {
        match $candidates {
            Candidates::Narrow($q) => $body,
            Candidates::Wide($q) => $body,
        }
    };
}

/// A value an [`Extreme`] queue holds.
trait Raw: Copy + Default + Into<i128> {
    fn from_raw(raw: i128) -> Self;
}

impl Raw for i64 {
    fn from_raw(raw: i128) -> Self {
        // Values of types other than DECIMAL fit in 64 bits.
        raw as i64
    }
}

impl Raw for i128 {
    fn from_raw(raw: i128) -> Self {
        raw
    }
}

/// Appends `(position, raw)` to key `key`'s queue, after dropping the
/// earlier values it makes useless: those it is more extreme than (by
/// `order`); equal ones stay (the oldest is the answer, as it would be).
#[inline(always)]
fn push_candidate<V: Raw>(
    queue: &mut KeyQueues<(i64, V)>,
    key: usize,
    position: i64,
    raw: i128,
    max: bool,
    order: impl Fn(i128) -> i128,
) -> Result<()> {
    let rank = order(raw);
    queue.pop_back_while(key, |(_, v)| {
        let o = order((*v).into());
        if max {
            o < rank
        } else {
            o > rank
        }
    });
    queue.push_back(key, (position, V::from_raw(raw)))
}

/// Drops the values of key `key`'s queue before position `first`.
#[inline(always)]
fn evict_before<V: Raw>(queue: &mut KeyQueues<(i64, V)>, key: usize, first: i64) {
    queue.pop_front_while(key, |(p, _)| *p < first);
}

impl Extreme {
    /// The MIN/MAX queue of `call` over a bounded frame, if it is a MIN or
    /// MAX of a primitive type; `bound` is the most values a key holds,
    /// if known.
    pub(super) fn for_call(call: &AggregateCall, bound: Option<usize>) -> Option<Self> {
        let (arg, max, ty) = extreme_call(call)?;
        Some(Extreme {
            arg,
            max,
            keys: match ty {
                SqlType::Decimal(..) => Candidates::Wide(KeyQueues::new(bound)),
                _ => Candidates::Narrow(KeyQueues::new(bound)),
            },
            ty,
            added: Paged::new(),
            out: Vec::new(),
        })
    }

    /// Makes room for key id `key`.
    fn ensure_key(&mut self, key: usize) {
        if self.added.len() <= key {
            with_queues!(&mut self.keys, q => q.ensure(key));
            self.added.grow(key + 1, 0);
        }
    }

    /// Key `key` starts over, with nothing added.
    pub(super) fn forget(&mut self, key: usize) {
        if key < self.added.len() {
            with_queues!(&mut self.keys, q => while q.pop_front(key).is_some() {});
            self.added[key] = 0;
        }
    }

    fn add(&mut self, key: usize, position: i64, raw: Option<i128>) -> Result<()> {
        let Some(raw) = raw else { return Ok(()) };
        let max = self.max;
        if self.ty == SqlType::Double {
            with_queues!(&mut self.keys, q => push_candidate(q, key, position, raw, max, double_order))
        } else {
            with_queues!(&mut self.keys, q => push_candidate(q, key, position, raw, max, |raw| raw))
        }
    }

    /// Drops the values before `first` (a row number or rowtime).
    fn evict(&mut self, key: usize, first: i64) {
        with_queues!(&mut self.keys, q => evict_before(q, key, first))
    }

    fn value(&self, key: usize) -> Option<i128> {
        with_queues!(&self.keys, q => q.front(key).map(|(_, raw)| (*raw).into()))
    }

    /// The results since the last build (the vector keeps its capacity).
    pub(super) fn array(&mut self) -> Result<ArrayRef> {
        let mut out = std::mem::take(&mut self.out);
        let array = raw_array(&self.ty, &out);
        out.clear();
        self.out = out;
        array
    }

    pub(super) fn state_bytes(&self) -> u64 {
        with_queues!(&self.keys, q => q.state_bytes())
            + (self.added.capacity() * size_of::<i64>()) as u64
    }

    pub(super) fn save(&self, w: &mut StateWriter) {
        with_queues!(&self.keys, q => q.save(w));
        w.put(&self.added);
    }

    pub(super) fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        with_queues!(&mut self.keys, q => q.load(r))?;
        self.added = r.get()?;
        Ok(())
    }
}

/// The argument of `call` and whether it averages, if it is a DOUBLE SUM
/// or AVG: kept as a running sum over a bounded frame.
pub(super) fn running_call(call: &AggregateCall) -> Option<(usize, bool)> {
    let double = call.arg_type == Some(SqlType::Double);
    let func = matches!(call.func, AggregateFunction::Sum | AggregateFunction::Avg);
    let arg = call.arg.filter(|_| double && func)?;
    Some((arg, call.func == AggregateFunction::Avg))
}

/// The argument of `call`, whether it is MAX, and the argument's type, if
/// it is a MIN or MAX of a primitive type: kept as a monotonic queue over
/// a bounded frame.
pub(super) fn extreme_call(call: &AggregateCall) -> Option<(usize, bool, SqlType)> {
    let ty = call.arg_type.as_ref()?;
    let primitive = matches!(
        ty,
        SqlType::TinyInt
            | SqlType::SmallInt
            | SqlType::Int
            | SqlType::BigInt
            | SqlType::Date
            | SqlType::Time(_)
            | SqlType::Double
            | SqlType::Decimal(..)
            | SqlType::Timestamp(_)
            | SqlType::TimestampLtz(_)
    );
    let func = matches!(call.func, AggregateFunction::Min | AggregateFunction::Max);
    let arg = call.arg.filter(|_| primitive && func)?;
    Some((arg, call.func == AggregateFunction::Max, ty.clone()))
}

/// The key DOUBLE values compare by: their bits mapped to a total order
/// (negative numbers reverse; NaN, positive, lands above +inf).
pub(super) fn double_order(raw: i128) -> i128 {
    let bits = raw as u64 as i64;
    (bits ^ (((bits >> 63) as u64) >> 1) as i64) as i128
}

/// Raw values `out` (as [`crate::store::Numeric::raw`] gives them: MIN/MAX
/// results, integer sums) as an array of type `ty`, each narrowed to the
/// type's width (an integer sum wrapped in 64 bits is so taken modulo it).
pub(super) fn raw_array(ty: &SqlType, out: &[Option<i128>]) -> Result<ArrayRef> {
    use arrow::array::{
        Date32Array, Decimal128Array, Int16Array, Int32Array, Int64Array, Int8Array,
        Time32MillisecondArray, TimestampMillisecondArray,
    };
    Ok(match ty {
        SqlType::TinyInt => Arc::new(Int8Array::from_iter(out.iter().map(|v| v.map(|v| v as i8)))),
        SqlType::SmallInt => Arc::new(Int16Array::from_iter(
            out.iter().map(|v| v.map(|v| v as i16)),
        )),
        SqlType::Date => Arc::new(Date32Array::from_iter(
            out.iter().map(|v| v.map(|v| v as i32)),
        )),
        SqlType::Time(_) => Arc::new(Time32MillisecondArray::from_iter(
            out.iter().map(|v| v.map(|v| v as i32)),
        )),
        SqlType::Int => Arc::new(Int32Array::from_iter(
            out.iter().map(|v| v.map(|v| v as i32)),
        )),
        SqlType::BigInt => Arc::new(Int64Array::from_iter(
            out.iter().map(|v| v.map(|v| v as i64)),
        )),
        SqlType::Double => Arc::new(Float64Array::from_iter(
            out.iter().map(|v| v.map(|v| f64::from_bits(v as u64))),
        )),
        SqlType::Decimal(p, s) => Arc::new(
            Decimal128Array::from_iter(out.iter().copied()).with_precision_and_scale(*p, *s)?,
        ),
        ty @ (SqlType::Timestamp(_) | SqlType::TimestampLtz(_)) => {
            let tz = match ty.to_arrow() {
                arrow::datatypes::DataType::Timestamp(_, tz) => tz,
                _ => None,
            };
            Arc::new(
                TimestampMillisecondArray::from_iter(out.iter().map(|v| v.map(|v| v as i64)))
                    .with_timezone_opt(tz),
            )
        }
        other => return Err(Error::Internal(format!("MIN/MAX queue over {other}"))),
    })
}

impl Frames {
    /// Rows `rows` of key `out.key` go out through a bounded frame reaching
    /// `back` rows (ROWS) or milliseconds (RANGE) before them.
    pub(super) fn emit_bounded(
        &mut self,
        store: &mut Store,
        out: &Out,
        rows: &[RowRef],
        back: i64,
    ) -> Result<()> {
        let key = out.key as usize;
        self.history.ensure(key);
        for r in self.running.iter_mut().flatten() {
            r.ensure_key(key);
        }
        for e in self.extremes.iter_mut().flatten() {
            e.ensure_key(key);
        }
        match self.frame.units {
            FrameUnits::Rows => self.emit_rows(store, out, rows, back as usize),
            FrameUnits::Range => self.emit_range(store, out, rows, back),
        }
    }

    /// ROWS n: each row's frame is the key's last n rows and itself.
    fn emit_rows(&mut self, store: &mut Store, out: &Out, rows: &[RowRef], n: usize) -> Result<()> {
        let key = out.key as usize;
        for row in rows {
            // What leaves the frame goes first, as Flink retracts it.
            if self.history.len(key) > n && self.history.pop_front(key, &mut self.leaving) {
                for r in self.running.iter_mut().flatten() {
                    r.retract_oldest(key);
                }
            }
            for r in self.running.iter_mut().flatten() {
                r.add(key, store.values(*row)?.f64(r.arg)?)?;
                r.out.push(r.value(key));
            }
            for e in self.extremes.iter_mut().flatten() {
                let position = e.added[key];
                e.added[key] += 1;
                e.evict(key, position - n as i64);
                e.add(key, position, store.values(*row)?.raw(e.arg)?)?;
                e.out.push(e.value(key));
            }
            if self.from_frames {
                let group = self.rows.len() as u32;
                let from = self.history.len(key).saturating_sub(n);
                for past in self.history.rows_from(key, from) {
                    self.frame_rows.push(*past);
                    self.frame_groups.push(group);
                }
                self.frame_rows.push(*row);
                self.frame_groups.push(group);
            }
            self.history.push_back(store, key, out.rowtime, *row)?;
            self.push_row(*row, out.watermark);
        }
        Ok(())
    }

    /// RANGE d: every row at this rowtime sees the key's rows from
    /// rowtime - d on, its peers included.
    fn emit_range(&mut self, store: &mut Store, out: &Out, rows: &[RowRef], d: i64) -> Result<()> {
        let key = out.key as usize;
        let from = out.rowtime.saturating_sub(d);
        while self.history.front_time(key).is_some_and(|t| t < from) {
            self.history.pop_front(key, &mut self.leaving);
            for r in self.running.iter_mut().flatten() {
                r.retract_oldest(key);
            }
        }
        for e in self.extremes.iter_mut().flatten() {
            e.evict(key, from);
        }
        for row in rows {
            for r in self.running.iter_mut().flatten() {
                r.add(key, store.values(*row)?.f64(r.arg)?)?;
            }
            for e in self.extremes.iter_mut().flatten() {
                e.add(key, out.rowtime, store.values(*row)?.raw(e.arg)?)?;
            }
            self.history.push_back(store, key, out.rowtime, *row)?;
        }
        for row in rows {
            for r in self.running.iter_mut().flatten() {
                r.out.push(r.value(key));
            }
            for e in self.extremes.iter_mut().flatten() {
                e.out.push(e.value(key));
            }
            if self.from_frames {
                let group = self.rows.len() as u32;
                for member in self.history.rows_from(key, 0) {
                    self.frame_rows.push(*member);
                    self.frame_groups.push(group);
                }
            }
            self.push_row(*row, out.watermark);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A MIN or MAX queue of one key over ROWS 4 (ring layout).
    fn extreme(max: bool) -> Extreme {
        let mut keys = KeyQueues::new(Some(5));
        keys.ensure(0);
        let mut added = Paged::new();
        added.push(0);
        Extreme {
            arg: 0,
            max,
            ty: SqlType::Double,
            keys: Candidates::Narrow(keys),
            added,
            out: vec![],
        }
    }

    fn bits(v: f64) -> Option<i128> {
        Some(v.to_bits() as i128)
    }

    fn shown(e: &Extreme) -> Option<f64> {
        e.value(0).map(|v| f64::from_bits(v as u64))
    }

    #[test]
    fn doubles_order_as_java_compares_them() -> Result<()> {
        let mut max = extreme(true);
        let mut min = extreme(false);
        for (i, v) in [2.0, -0.0, 0.0, f64::NAN, -5.0].into_iter().enumerate() {
            max.add(0, i as i64, bits(v))?;
            min.add(0, i as i64, bits(v))?;
        }
        assert!(
            shown(&max).is_some_and(f64::is_nan),
            "NaN is above everything"
        );
        assert_eq!(shown(&min), Some(-5.0));
        // Without the NaN and -5.0 (a ROWS frame that moved on): the
        // frame holds 2.0, -0.0, 0.0.
        let mut min = extreme(false);
        for (i, v) in [2.0, -0.0, 0.0].into_iter().enumerate() {
            min.add(0, i as i64, bits(v))?;
        }
        assert_eq!(shown(&min).map(f64::to_bits), Some((-0.0f64).to_bits()));
        min.evict(0, 2);
        assert_eq!(shown(&min).map(f64::to_bits), Some(0.0f64.to_bits()));
        Ok(())
    }
}
