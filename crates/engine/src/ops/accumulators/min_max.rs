//! MIN and MAX of primitive types (numbers and timestamps), compared as
//! their native values.

use super::{
    argument, ensure, for_each_value, grow, reset_group, same, save_group_vectors, Accumulator,
};
use crate::runtime::snapshot::Persist;
use arrow::array::{ArrayRef, ArrowPrimitiveType, PrimitiveArray};
use arrow::datatypes::DataType;
use std::sync::Arc;
use tidemark_common::Result;

pub(super) struct MinMax<T: ArrowPrimitiveType> {
    values: Vec<Option<T::Native>>,
    max: bool,
    data_type: DataType,
}

impl<T: ArrowPrimitiveType> MinMax<T> {
    pub(super) fn new(max: bool, data_type: DataType) -> Self {
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
        let max = self.max;
        for_each_value::<T>(v, rows, groups, |g, x| {
            offer_extreme(&mut self.values[g], x, max)
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
            ensure(&mut self.values, dst, None);
            if let Some(x) = other.values.get(src as usize).copied().flatten() {
                offer_extreme(&mut self.values[dst as usize], x, self.max);
            }
        }
        Ok(())
    }

    /// Floating-point numbers are not totally ordered by `<` (NaN, -0.0):
    /// which of two unordered values is kept depends on the order seen.
    fn merge_is_associative(&self) -> bool {
        !self.data_type.is_floating()
    }

    fn reset(&mut self, group: u32) {
        reset_group(&mut self.values, group, None);
    }

    fn state_bytes(&self) -> u64 {
        crate::ops::operator::vec_bytes(&self.values)
    }

    save_group_vectors!(values);

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
