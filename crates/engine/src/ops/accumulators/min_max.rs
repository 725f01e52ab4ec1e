//! MIN, MAX, FIRST_VALUE and LAST_VALUE of primitive types (numbers,
//! dates, times and timestamps), kept as their native values.

use super::row_value::Pick;
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
    pick: Pick,
    data_type: DataType,
}

impl<T: ArrowPrimitiveType> MinMax<T> {
    pub(super) fn new(pick: Pick, data_type: DataType) -> Self {
        MinMax {
            values: vec![],
            pick,
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
        let pick = self.pick;
        // A new row comes after everything the group holds.
        for_each_value::<T>(v, rows, groups, |g, x| {
            offer(&mut self.values[g], x, pick, true)
        });
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
            if let Some(x) = other.values.get(src as usize).copied().flatten() {
                offer(
                    &mut self.values[dst as usize],
                    x,
                    self.pick,
                    !other_is_earlier,
                );
            }
        }
        Ok(())
    }

    /// Floating-point numbers are not totally ordered by `<` (NaN, -0.0):
    /// which of two unordered values is kept depends on the order seen.
    /// FIRST_VALUE and LAST_VALUE compare no values.
    fn merge_is_associative(&self) -> bool {
        matches!(self.pick, Pick::First | Pick::Last) || !self.data_type.is_floating()
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

/// Offers `x` to a group's `slot`; `later` says whether it comes after
/// what the slot holds, which decides FIRST_VALUE and LAST_VALUE.
#[inline]
fn offer<N: PartialOrd>(slot: &mut Option<N>, x: N, pick: Pick, later: bool) {
    let replace = match (slot.as_ref(), pick) {
        (None, _) => true,
        (Some(_), Pick::First) => !later,
        (Some(_), Pick::Last) => later,
        (Some(cur), Pick::Min) => x < *cur,
        (Some(cur), Pick::Max) => x > *cur,
    };
    if replace {
        *slot = Some(x);
    }
}
