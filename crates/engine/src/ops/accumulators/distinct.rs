//! `AGG(DISTINCT x)` for any aggregate whose result depends on repeats
//! (SUM, AVG, LISTAGG, LAST_VALUE): each group keeps the set of values it
//! has seen, and only a value new to the group reaches the inner
//! accumulator, as Flink's distinct aggregates do.
//!
//! The sets keep their values in arrival order, so that merging a slice
//! into a window offers its new values in the order they came, whatever
//! the hash: a DOUBLE sum adds them in the same order every run, and a
//! LISTAGG lists them in first-seen order.

use super::{argument, grow, new_accumulator, same, Accumulator};
use crate::runtime::snapshot::{StateReader, StateWriter};
use arrow::array::{Array, ArrayRef};
use arrow::row::{RowConverter, SortField};
use indexmap::IndexSet;
use tidemark_common::expr::AggregateCall;
use tidemark_common::{Error, Result};

pub(super) struct Distinct {
    /// The same aggregate without DISTINCT, to make fresh inner
    /// accumulators when merging.
    call: AggregateCall,
    converter: RowConverter,
    seen: Vec<IndexSet<Box<[u8]>>>,
    bytes: usize,
    inner: Box<dyn Accumulator>,
}

/// What one value costs in a set besides its bytes.
const ENTRY_OVERHEAD: usize = 24;

impl Distinct {
    pub(super) fn new(call: &AggregateCall) -> Result<Self> {
        let call = AggregateCall {
            distinct: false,
            ..call.clone()
        };
        let arg_type = call
            .arg_type
            .clone()
            .ok_or_else(|| Error::Internal("DISTINCT aggregate without argument".into()))?;
        Ok(Distinct {
            converter: RowConverter::new(vec![SortField::new(arg_type.to_arrow())])?,
            inner: new_accumulator(&call)?,
            call,
            seen: vec![],
            bytes: 0,
        })
    }
}

impl Accumulator for Distinct {
    fn update(&mut self, values: Option<&ArrayRef>, rows: &[u32], groups: &[u32]) -> Result<()> {
        let v = argument(values, "a DISTINCT aggregate")?;
        grow(&mut self.seen, groups, IndexSet::new());
        let encoded = self.converter.convert_columns(std::slice::from_ref(v))?;
        let (mut new_rows, mut new_groups) = (Vec::new(), Vec::new());
        for (&r, &g) in rows.iter().zip(groups) {
            if v.is_null(r as usize) {
                continue;
            }
            let bytes = encoded.row(r as usize);
            let set = &mut self.seen[g as usize];
            if !set.contains(bytes.as_ref()) {
                self.bytes += bytes.as_ref().len() + ENTRY_OVERHEAD;
                set.insert(bytes.as_ref().into());
                new_rows.push(r);
                new_groups.push(g);
            }
        }
        if new_rows.is_empty() {
            return Ok(());
        }
        self.inner.update(values, &new_rows, &new_groups)
    }

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        self.inner.evaluate(groups)
    }

    fn local_flush(&mut self) {
        self.inner.local_flush()
    }

    fn global_flush(&mut self) {
        self.inner.global_flush()
    }

    /// The values of `src` that `dst` has not seen go into a fresh inner
    /// accumulator (one group per pair, in arrival order), which is then
    /// merged into the inner one, so that the inner aggregate's own merge
    /// rule (LISTAGG's order, LAST_VALUE's time) applies.
    fn merge_from(
        &mut self,
        other: &dyn Accumulator,
        pairs: &[(u32, u32)],
        other_is_earlier: bool,
    ) -> Result<()> {
        let other = same::<Self>(other)?;
        let (mut new_values, mut new_groups) = (Vec::new(), Vec::new());
        let mut inner_pairs = Vec::with_capacity(pairs.len());
        for (fresh_group, &(src, dst)) in pairs.iter().enumerate() {
            let fresh_group = fresh_group as u32;
            inner_pairs.push((fresh_group, dst));
            grow(&mut self.seen, &[dst], IndexSet::new());
            let Some(values) = other.seen.get(src as usize) else {
                continue;
            };
            for v in values {
                if self.seen[dst as usize].insert(v.clone()) {
                    self.bytes += v.len() + ENTRY_OVERHEAD;
                    new_values.push(v.as_ref());
                    new_groups.push(fresh_group);
                }
            }
        }
        let mut fresh = new_accumulator(&self.call)?;
        if !new_values.is_empty() {
            let parser = self.converter.parser();
            let column = self
                .converter
                .convert_rows(new_values.iter().map(|v| parser.parse(v)))?
                .pop()
                .ok_or_else(|| Error::Internal("a DISTINCT value without its column".into()))?;
            let rows: Vec<u32> = (0..new_values.len() as u32).collect();
            fresh.update(Some(&column), &rows, &new_groups)?;
        }
        self.inner
            .merge_from(fresh.as_ref(), &inner_pairs, other_is_earlier)
    }

    fn reset(&mut self, group: u32) {
        if let Some(seen) = self.seen.get_mut(group as usize) {
            let freed: usize = seen.iter().map(|v| v.len() + ENTRY_OVERHEAD).sum();
            self.bytes = self.bytes.saturating_sub(freed);
            seen.clear();
        }
        self.inner.reset(group);
    }

    fn state_bytes(&self) -> u64 {
        (self.bytes + self.seen.capacity() * std::mem::size_of::<IndexSet<Box<[u8]>>>()) as u64
            + self.inner.state_bytes()
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.seen.len() as u64);
        for set in &self.seen {
            w.u64(set.len() as u64);
            for v in set {
                w.put(v);
            }
        }
        self.inner.save(w)
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let sets = r.count()?;
        for _ in 0..sets {
            let n = r.count()?;
            let mut set = IndexSet::with_capacity(n);
            for _ in 0..n {
                let v: Box<[u8]> = r.get()?;
                self.bytes += v.len() + ENTRY_OVERHEAD;
                set.insert(v);
            }
            self.seen.push(set);
        }
        self.inner.load(r)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, texts};
    use super::*;
    use crate::formats::print::format_value;
    use arrow::array::{Float64Array, Int32Array};
    use std::sync::Arc;
    use tidemark_common::expr::AggregateFunction;
    use tidemark_common::SqlType;

    fn distinct(func: AggregateFunction, ty: SqlType, result: SqlType) -> AggregateCall {
        AggregateCall {
            distinct: true,
            ..call(func, ty, result)
        }
    }

    fn shown(acc: &dyn Accumulator, ty: &SqlType, groups: &[u32]) -> Result<Vec<String>> {
        let out = acc.evaluate(groups)?;
        (0..groups.len())
            .map(|i| {
                let mut s = String::new();
                format_value(out.as_ref(), ty, i, chrono_tz::UTC, &mut s)?;
                Ok(s)
            })
            .collect()
    }

    #[test]
    fn repeats_reach_the_inner_aggregate_once_per_group() -> Result<()> {
        let values: ArrayRef = Arc::new(Int32Array::from(vec![
            Some(5),
            Some(5),
            None,
            Some(3),
            Some(5),
            Some(3),
        ]));
        let c = distinct(AggregateFunction::Sum, SqlType::Int, SqlType::Int);
        let mut acc = new_accumulator(&c)?;
        acc.update(Some(&values), &[0, 1, 2, 3, 4, 5], &[0, 0, 0, 0, 1, 1])?;
        assert_eq!(shown(acc.as_ref(), &c.ty, &[0, 1])?, ["8", "8"]);
        let avg = distinct(AggregateFunction::Avg, SqlType::Int, SqlType::Int);
        let mut acc = new_accumulator(&avg)?;
        acc.update(Some(&values), &[0, 1, 3, 4], &[0, 0, 0, 0])?;
        assert_eq!(shown(acc.as_ref(), &avg.ty, &[0])?, ["4"]);
        Ok(())
    }

    #[test]
    fn merging_offers_only_values_the_window_has_not_seen_in_arrival_order() -> Result<()> {
        let c = distinct(AggregateFunction::ListAgg, SqlType::String, SqlType::String);
        // Slice one saw b, a; slice two saw c, a, b: the window lists b a c.
        let mut first = new_accumulator(&c)?;
        first.update(Some(&texts()), &[0, 1, 2], &[0, 0, 0])?;
        let mut second = new_accumulator(&c)?;
        second.update(Some(&texts()), &[3, 2, 0], &[0, 0, 0])?;
        let mut window = new_accumulator(&c)?;
        window.merge_from(first.as_ref(), &[(0, 0)], true)?;
        window.merge_from(second.as_ref(), &[(0, 0)], false)?;
        assert_eq!(shown(window.as_ref(), &c.ty, &[0])?, ["b a c"]);

        let sum = distinct(AggregateFunction::Sum, SqlType::Double, SqlType::Double);
        let d: ArrayRef = Arc::new(Float64Array::from(vec![0.1, 0.2, 0.1]));
        let mut slice = new_accumulator(&sum)?;
        slice.update(Some(&d), &[0, 1, 2], &[0, 0, 1])?;
        let mut window = new_accumulator(&sum)?;
        // Both groups of the slice into one window group: 0.1 once.
        window.merge_from(slice.as_ref(), &[(0, 0), (1, 0)], true)?;
        window.global_flush();
        assert_eq!(
            shown(window.as_ref(), &sum.ty, &[0])?,
            [(0.1f64 + 0.2).to_string()]
        );
        Ok(())
    }

    #[test]
    fn reset_forgets_the_values_and_checkpoints_keep_them() -> Result<()> {
        let c = distinct(AggregateFunction::Sum, SqlType::Int, SqlType::Int);
        let values: ArrayRef = Arc::new(Int32Array::from(vec![4, 4, 6]));
        let mut acc = new_accumulator(&c)?;
        acc.update(Some(&values), &[0, 1, 2], &[0, 0, 1])?;
        let mut w = StateWriter::new();
        acc.save(&mut w)?;
        let bytes = w.into_bytes();
        let mut back = new_accumulator(&c)?;
        back.load(&mut StateReader::new(&bytes))?;
        back.update(Some(&values), &[0], &[0])?;
        assert_eq!(shown(back.as_ref(), &c.ty, &[0, 1])?, ["4", "6"]);
        back.reset(0);
        back.update(Some(&values), &[0, 1], &[0, 0])?;
        assert_eq!(shown(back.as_ref(), &c.ty, &[0])?, ["4"]);
        Ok(())
    }
}
