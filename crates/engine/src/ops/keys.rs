//! How a windowed operator numbers its group keys: each distinct key (in
//! arrow's row format) gets the next dense number, in the order keys first
//! arrive, so per-group state can live in plain vectors indexed by it and
//! results come out in first-arrival order. Keys are stored once, together
//! in arrow `Rows`, and found through a hash table of their numbers.

use arrow::row::{Row, RowConverter, Rows};
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// The one hasher of keys: fixed, so state and results never depend on a
/// random seed.
pub(crate) fn key_hash(key: &[u8]) -> u64 {
    foldhash::fast::FixedState::with_seed(0x7469_6465).hash_one(key)
}

/// Dense numbers for the keys of one group table (a slice of a window
/// aggregation, a merged window). Without keys (a global aggregation)
/// every row is group 0.
pub(crate) struct GroupKeys {
    /// The keys by number; `None` when the operator has no keys.
    rows: Option<Rows>,
    table: HashTable<u32>,
    hashes: Vec<u64>,
    len: u32,
}

impl GroupKeys {
    /// An empty table for keys converted by `converter` (`None`: no keys).
    pub(crate) fn new(converter: Option<&RowConverter>) -> Self {
        GroupKeys {
            rows: converter.map(|c| c.empty_rows(0, 0)),
            table: HashTable::new(),
            hashes: Vec::new(),
            len: 0,
        }
    }

    /// How many groups there are.
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// The keys, by number, if the operator has keys.
    pub(crate) fn rows(&self) -> Option<&Rows> {
        self.rows.as_ref()
    }

    /// Group `g`'s key in arrow's row format (empty without keys).
    pub(crate) fn key(&self, g: u32) -> &[u8] {
        self.rows
            .as_ref()
            .map_or(&[], |rows| rows.row(g as usize).data())
    }

    /// Group `g`'s key hash (0 without keys).
    pub(crate) fn hash(&self, g: u32) -> u64 {
        self.hashes.get(g as usize).copied().unwrap_or(0)
    }

    /// The number of `key` (hashed `hash`), if it has one.
    pub(crate) fn find(&self, key: &[u8], hash: u64) -> Option<u32> {
        let Some(rows) = &self.rows else {
            return (self.len > 0).then_some(0);
        };
        let hashes = &self.hashes;
        self.table
            .find(hash, |&g| {
                hashes[g as usize] == hash && rows.row(g as usize).data() == key
            })
            .copied()
    }

    /// The number of `key` (hashed `hash`, `None` without keys), giving it
    /// the next one if it has none; and whether it is new.
    pub(crate) fn intern(&mut self, key: Option<(Row<'_>, u64)>) -> (u32, bool) {
        let (Some(rows), Some((row, hash))) = (&mut self.rows, key) else {
            let new = self.len == 0;
            self.len = 1;
            return (0, new);
        };
        let hashes = &self.hashes;
        let found = self
            .table
            .find(hash, |&g| {
                hashes[g as usize] == hash && rows.row(g as usize) == row
            })
            .copied();
        if let Some(g) = found {
            return (g, false);
        }
        let g = self.len;
        self.len += 1;
        rows.push(row);
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.table.insert_unique(hash, g, |&x| hashes[x as usize]);
        (g, true)
    }

    /// A table of `rows` (read back from a checkpoint), numbered in order.
    pub(crate) fn from_rows(rows: Option<Rows>, len: u32) -> Self {
        let mut keys = GroupKeys {
            rows,
            table: HashTable::new(),
            hashes: Vec::new(),
            len,
        };
        if let Some(rows) = &keys.rows {
            keys.hashes = rows.iter().map(|row| key_hash(row.data())).collect();
            let hashes = &keys.hashes;
            for g in 0..len {
                keys.table
                    .insert_unique(hashes[g as usize], g, |&x| hashes[x as usize]);
            }
        }
        keys
    }

    /// The bytes the table holds.
    pub(crate) fn state_bytes(&self) -> u64 {
        self.rows.as_ref().map_or(0, |k| k.size() as u64)
            + crate::ops::operator::vec_bytes(&self.hashes)
            + (self.table.capacity() * (std::mem::size_of::<u32>() + 1)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{ArrayRef, Int64Array, StringArray};
    use arrow::row::SortField;
    use std::sync::Arc;

    fn converter() -> RowConverter {
        RowConverter::new(vec![
            SortField::new(arrow::datatypes::DataType::Utf8),
            SortField::new(arrow::datatypes::DataType::Int64),
        ])
        .expect("a converter of two columns")
    }

    #[test]
    fn keys_are_numbered_in_the_order_they_first_arrive() {
        let conv = converter();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(vec!["b", "a", "b", "c", "a"])),
            Arc::new(Int64Array::from(vec![1, 1, 1, 1, 2])),
        ];
        let rows = conv.convert_columns(&columns).expect("convertible");
        let mut keys = GroupKeys::new(Some(&conv));
        let numbered: Vec<(u32, bool)> = rows
            .iter()
            .map(|row| keys.intern(Some((row, key_hash(row.data())))))
            .collect();
        // ("a", 2) is not ("a", 1): the whole key counts.
        assert_eq!(
            numbered,
            [(0, true), (1, true), (0, false), (2, true), (3, true)]
        );
        assert_eq!(keys.len(), 4);
        let c = rows.row(3);
        assert_eq!(keys.find(c.data(), key_hash(c.data())), Some(2));
        assert_eq!(keys.key(2), c.data());

        // Read back in order, the table numbers and finds keys the same.
        let copy = GroupKeys::from_rows(keys.rows().cloned(), keys.len());
        for g in 0..keys.len() {
            let key = keys.key(g);
            assert_eq!(copy.find(key, key_hash(key)), Some(g));
        }
    }

    #[test]
    fn without_keys_every_row_is_group_zero() {
        let mut keys = GroupKeys::new(None);
        assert_eq!(keys.find(&[], 0), None);
        assert_eq!(keys.intern(None), (0, true));
        assert_eq!(keys.intern(None), (0, false));
        assert_eq!(keys.len(), 1);
        assert_eq!(keys.find(&[], 0), Some(0));
        assert!(keys.key(0).is_empty());
    }
}
