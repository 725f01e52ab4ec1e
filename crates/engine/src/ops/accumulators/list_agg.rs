//! LISTAGG: each group's texts joined by the separator, in arrival order.

use super::{
    argument, ensure, grow, reset_group, same, save_group_vectors, slots_bytes, Accumulator,
};
use arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use std::sync::Arc;
use tidemark_common::Result;

pub(super) struct ListAgg {
    values: Vec<Option<String>>,
    separator: String,
}

impl ListAgg {
    pub(super) fn new(separator: String) -> Self {
        ListAgg {
            values: vec![],
            separator,
        }
    }
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

    fn reset(&mut self, group: u32) {
        reset_group(&mut self.values, group, None);
    }

    fn state_bytes(&self) -> u64 {
        slots_bytes(&self.values, String::capacity)
    }

    save_group_vectors!(values);

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
    use super::super::tests::{call, run, texts};
    use tidemark_common::expr::AggregateFunction;
    use tidemark_common::{Result, SqlType};

    #[test]
    fn listagg_skips_nulls() -> Result<()> {
        let s = texts();
        let list = call(AggregateFunction::ListAgg, SqlType::String, SqlType::String);
        assert_eq!(run(&list, s, &[0, 0, 0, 1])?, ["b a", "c"]);
        Ok(())
    }
}
