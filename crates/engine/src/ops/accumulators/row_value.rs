//! MIN and MAX of types without a native order (strings, booleans) and
//! FIRST_VALUE and LAST_VALUE of any type: one value per group, kept in
//! arrow's row format.

use super::{argument, ensure, grow, reset_group, same, slots_bytes, Accumulator};
use crate::runtime::snapshot::{StateReader, StateWriter};
use arrow::array::{Array, ArrayRef};
use arrow::datatypes::DataType;
use arrow::row::{RowConverter, SortField};
use tidemark_common::{Error, Result, SqlType};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Pick {
    Min,
    Max,
    First,
    Last,
}

/// MIN/MAX of non-numeric types and FIRST_VALUE/LAST_VALUE of any type,
/// kept in arrow's row format (whose byte order is the values' order).
pub(super) struct RowValue {
    converter: RowConverter,
    data_type: DataType,
    values: Vec<Option<Vec<u8>>>,
    pick: Pick,
}

impl RowValue {
    pub(super) fn new(ty: &SqlType, pick: Pick) -> Result<Self> {
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

    /// Arrow's row format orders all values; FIRST_VALUE and LAST_VALUE
    /// follow `other_is_earlier`.
    fn merge_is_associative(&self) -> bool {
        true
    }

    fn reset(&mut self, group: u32) {
        reset_group(&mut self.values, group, None);
    }

    fn state_bytes(&self) -> u64 {
        slots_bytes(&self.values, Vec::capacity)
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

#[cfg(test)]
mod tests {
    use super::super::tests::{call, run, texts};
    use tidemark_common::expr::AggregateFunction;
    use tidemark_common::{Result, SqlType};

    #[test]
    fn strings_min_max_skip_nulls() -> Result<()> {
        let s = texts();
        let groups = [0, 0, 0, 1];
        let min = call(AggregateFunction::Min, SqlType::String, SqlType::String);
        assert_eq!(run(&min, s.clone(), &groups)?, ["a", "c"]);
        let max = call(AggregateFunction::Max, SqlType::String, SqlType::String);
        assert_eq!(run(&max, s, &groups)?, ["b", "c"]);
        Ok(())
    }
}
