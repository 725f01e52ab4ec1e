//! COUNT(*), COUNT(x) and COUNT(DISTINCT x): BIGINT per group, never NULL.

use super::{argument, ensure, grow, reset_group, same, save_group_vectors, Accumulator};
use crate::runtime::snapshot::{StateReader, StateWriter};
use arrow::array::{Array, ArrayRef, Int64Array};
use arrow::row::{RowConverter, SortField};
use std::collections::HashSet;
use std::sync::Arc;
use tidemark_common::{Result, SqlType};

pub(super) struct Count {
    counts: Vec<i64>,
    /// COUNT(*): NULLs count too.
    star: bool,
}

impl Count {
    pub(super) fn new(star: bool) -> Self {
        Count {
            counts: vec![],
            star,
        }
    }
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

    fn merge_is_associative(&self) -> bool {
        true
    }

    fn reset(&mut self, group: u32) {
        reset_group(&mut self.counts, group, 0);
    }

    fn state_bytes(&self) -> u64 {
        crate::ops::operator::vec_bytes(&self.counts)
    }

    save_group_vectors!(counts);

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        Ok(Arc::new(Int64Array::from_iter_values(groups.iter().map(
            |g| self.counts.get(*g as usize).copied().unwrap_or(0),
        ))))
    }
}

/// Distinct values are kept in arrow's row format, which any type has.
pub(super) struct CountDistinct {
    converter: RowConverter,
    seen: Vec<HashSet<Box<[u8]>>>,
    bytes: usize,
}

impl CountDistinct {
    pub(super) fn new(ty: &SqlType) -> Result<Self> {
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

    /// A union of sets.
    fn merge_is_associative(&self) -> bool {
        true
    }

    fn reset(&mut self, group: u32) {
        if let Some(seen) = self.seen.get_mut(group as usize) {
            self.bytes = self
                .bytes
                .saturating_sub(seen.iter().map(|k| k.len()).sum());
            seen.clear();
        }
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

    fn evaluate(&self, groups: &[u32]) -> Result<ArrayRef> {
        Ok(Arc::new(Int64Array::from_iter_values(groups.iter().map(
            |g| self.seen.get(*g as usize).map_or(0, |s| s.len() as i64),
        ))))
    }
}
