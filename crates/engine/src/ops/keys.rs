//! How operators number their keys (in arrow's row format), so that
//! per-key state lives in plain vectors indexed by the number and results
//! come out in the order keys first arrived. Two tables, for two lives of
//! state:
//! - [`GroupKeys`]: the groups of one slice or window, numbered densely
//!   and dropped together with it; keys are stored once, together in
//!   arrow `Rows`, and found through a hash table of their numbers.
//! - [`KeyIds`]: the keys a long-lived operator holds state for (session
//!   aggregation, OVER), each keeping its number while it has state; a
//!   number given up goes to the next new key.

use crate::runtime::snapshot::{corrupt, get_keys, put_keys, StateReader, StateWriter};
use arrow::row::{Row, RowConverter, Rows};
use hashbrown::HashTable;
use std::hash::BuildHasher;
use tidemark_common::Result;

/// The one hasher of keys: fixed, so state and results never depend on a
/// random seed.
#[inline]
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
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// The keys, by number, if the operator has keys.
    pub(crate) fn rows(&self) -> Option<&Rows> {
        self.rows.as_ref()
    }

    /// Group `g`'s key in arrow's row format (empty without keys).
    #[inline]
    pub(crate) fn key(&self, g: u32) -> &[u8] {
        self.rows
            .as_ref()
            .map_or(&[], |rows| rows.row(g as usize).data())
    }

    /// Group `g`'s key hash (0 without keys).
    #[inline]
    pub(crate) fn hash(&self, g: u32) -> u64 {
        self.hashes.get(g as usize).copied().unwrap_or(0)
    }

    /// The number of `key` (hashed `hash`), if it has one.
    #[inline]
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
    #[inline]
    pub(crate) fn intern(&mut self, key: Option<(Row<'_>, u64)>) -> (u32, bool) {
        match key {
            None => self.intern_keyless(),
            Some((row, hash)) => self.intern_row(row, hash),
        }
    }

    /// Numbers the key of each row `r` of `rows` (`keys.row(at(r))`;
    /// without keys, every row is group 0), pushing its number into
    /// `groups` and calling `new_group(r)` for each key numbered anew: a
    /// whole run of rows in one call, the hot loop of window aggregation.
    #[inline]
    pub(crate) fn intern_all(
        &mut self,
        keys: Option<&Rows>,
        rows: &[u32],
        at: impl Fn(u32) -> usize,
        groups: &mut Vec<u32>,
        mut new_group: impl FnMut(u32),
    ) {
        let Some(keys) = keys else {
            if let (true, Some(first)) = (self.intern_keyless().1, rows.first()) {
                new_group(*first);
            }
            groups.resize(groups.len() + rows.len(), 0);
            return;
        };
        for &r in rows {
            let row = keys.row(at(r));
            let (g, new) = self.intern_row(row, key_hash(row.data()));
            if new {
                new_group(r);
            }
            groups.push(g);
        }
    }

    fn intern_keyless(&mut self) -> (u32, bool) {
        let new = self.len == 0;
        self.len = 1;
        (0, new)
    }

    #[inline(always)]
    fn intern_row(&mut self, row: Row<'_>, hash: u64) -> (u32, bool) {
        let Some(rows) = &mut self.rows else {
            return self.intern_keyless();
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

/// Numbers for the keys a long-lived operator holds state for. The number
/// given up last goes to the next new key, so numbers stay as few as the
/// keys with state; timers and state name keys by number, so a checkpoint
/// keeps the numbers as they are.
#[derive(Default)]
pub struct KeyIds {
    /// The live numbers, each with its key's [`short_hash`], found by it:
    /// growing the table rehashes every entry from the entry itself, not
    /// from `hashes` by number — a cache miss per key at millions of keys
    /// (a tenth of an OVER aggregation's time with a key per row).
    table: HashTable<(u32, u32)>,
    /// By number: the key. A freed number keeps its last key's bytes, so
    /// that a new key of the same length (keys of one type mostly are, in
    /// arrow's row format) reuses them instead of allocating.
    keys: Vec<Box<[u8]>>,
    /// By number: the key's [`short_hash`].
    hashes: Vec<u32>,
    free: Vec<u32>,
    /// What the keys' bytes take, kept as they change: adding them up
    /// walked every key, which at millions of keys cost a run a few
    /// percent when state is measured every 200 ms.
    key_bytes: u64,
}

/// What a key of `len` bytes takes: its bytes and its boxed slice.
fn key_size(len: usize) -> u64 {
    len as u64 + 16
}

/// The part of a key's hash [`KeyIds`] keeps: its low 32 bits.
#[inline(always)]
fn short_hash(hash: u64) -> u32 {
    hash as u32
}

/// The hash [`KeyIds`]' table places an entry by, made again from the
/// entry's short hash (mixed, so that the table's high and low bits both
/// vary).
#[inline(always)]
fn table_hash(short: u32) -> u64 {
    u64::from(short).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl KeyIds {
    /// The number of `key`, if it has one.
    pub fn find(&self, key: &[u8]) -> Option<u32> {
        self.find_hashed(key, key_hash(key))
    }

    /// The number of each of `keys`, in order, into `found`: `Ok` with
    /// it, or `Err` with the key's hash when it has none. One pass over a
    /// run's keys: the table lookups, independent of each other, overlap
    /// in the processor instead of waiting each behind the work of a row.
    pub fn find_each<'k>(
        &self,
        keys: impl Iterator<Item = &'k [u8]>,
        found: &mut Vec<std::result::Result<u32, u64>>,
    ) {
        found.clear();
        found.extend(keys.map(|key| {
            let hash = key_hash(key);
            self.find_hashed(key, hash).ok_or(hash)
        }));
    }

    /// [`KeyIds::find`] of a key whose hash is known.
    pub fn find_hashed(&self, key: &[u8], hash: u64) -> Option<u32> {
        let short = short_hash(hash);
        let keys = &self.keys;
        self.table
            .find(table_hash(short), |&(id, h)| {
                h == short && *keys[id as usize] == *key
            })
            .map(|&(id, _)| id)
    }

    /// The number of `key`, giving it one if it has none.
    pub fn id(&mut self, key: &[u8]) -> u32 {
        let hash = key_hash(key);
        match self.find_hashed(key, hash) {
            Some(id) => id,
            None => self.number(key, hash),
        }
    }

    /// Gives `key` (hashed `hash`), which has no number, the next one.
    pub fn number(&mut self, key: &[u8], hash: u64) -> u32 {
        debug_assert!(
            self.find_hashed(key, hash).is_none(),
            "a key numbered twice"
        );
        let short = short_hash(hash);
        let id = match self.free.pop() {
            Some(id) => {
                let slot = &mut self.keys[id as usize];
                if slot.len() == key.len() {
                    slot.copy_from_slice(key);
                } else {
                    self.key_bytes = self.key_bytes - key_size(slot.len()) + key_size(key.len());
                    *slot = key.into();
                }
                self.hashes[id as usize] = short;
                id
            }
            None => {
                self.key_bytes += key_size(key.len());
                self.keys.push(key.into());
                self.hashes.push(short);
                (self.keys.len() - 1) as u32
            }
        };
        self.table
            .insert_unique(table_hash(short), (id, short), |&(_, h)| table_hash(h));
        id
    }

    /// Key number `id`.
    pub fn key(&self, id: u32) -> &[u8] {
        &self.keys[id as usize]
    }

    /// Key number `id` has no state left: its number is free.
    pub fn forget(&mut self, id: u32) {
        let short = self.hashes[id as usize];
        if let Ok(entry) = self.table.find_entry(table_hash(short), |&(x, _)| x == id) {
            entry.remove();
            self.free.push(id);
        }
    }

    /// How many numbers were given, free ones included: state indexed by
    /// number has this many slots.
    pub fn slots(&self) -> usize {
        self.keys.len()
    }

    /// The keys with a number, in number order.
    pub fn live(&self) -> impl Iterator<Item = (u32, &[u8])> {
        let free: std::collections::HashSet<u32> = self.free.iter().copied().collect();
        (0..self.keys.len() as u32)
            .filter(move |id| !free.contains(id))
            .map(|id| (id, self.key(id)))
    }

    /// The bytes the keys take.
    pub fn state_bytes(&self) -> u64 {
        self.key_bytes
            + crate::ops::operator::vec_bytes(&self.hashes)
            + (self.table.capacity() * (std::mem::size_of::<(u32, u32)>() + 1)) as u64
    }

    /// Writes the numbers as they are (slots, free numbers, the live keys
    /// as the columns they encode); `converter` is `None` without keys.
    pub fn save(&self, w: &mut StateWriter, converter: Option<&RowConverter>) -> Result<()> {
        w.u64(self.keys.len() as u64);
        w.put(&self.free);
        if let Some(conv) = converter {
            put_keys(w, conv, self.live().map(|(_, key)| key))?;
        }
        Ok(())
    }

    /// Reads what [`KeyIds::save`] wrote.
    pub fn load(r: &mut StateReader<'_>, converter: Option<&RowConverter>) -> Result<Self> {
        let slots = r.count()?;
        let free: Vec<u32> = r.get()?;
        let mut is_free = vec![false; slots];
        for id in &free {
            *is_free
                .get_mut(*id as usize)
                .ok_or_else(|| corrupt("a freed key number is out of range"))? = true;
        }
        let live = is_free.iter().filter(|f| !**f).count();
        // Without keys, the one key is empty.
        let mut keys = match converter {
            Some(conv) => {
                let keys = get_keys(r, conv)?;
                if keys.num_rows() != live {
                    return Err(corrupt("the keys do not add up"));
                }
                keys.iter().map(|k| Box::from(k.as_ref())).collect()
            }
            None => vec![Box::<[u8]>::default(); live],
        }
        .into_iter();
        let mut table = KeyIds {
            free,
            ..KeyIds::default()
        };
        for (id, freed) in is_free.into_iter().enumerate() {
            let key: Box<[u8]> = if freed {
                Box::default()
            } else {
                keys.next()
                    .ok_or_else(|| corrupt("the keys do not add up"))?
            };
            let short = short_hash(key_hash(&key));
            table.key_bytes += key_size(key.len());
            table.keys.push(key);
            table.hashes.push(short);
            if !freed {
                table
                    .table
                    .insert_unique(table_hash(short), (id as u32, short), |&(_, h)| {
                        table_hash(h)
                    });
            }
        }
        Ok(table)
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

    #[test]
    fn a_number_given_up_goes_to_the_next_new_key_and_survives_a_checkpoint() -> Result<()> {
        let conv = RowConverter::new(vec![SortField::new(arrow::datatypes::DataType::Utf8)])?;
        let rows =
            conv.convert_columns(&[Arc::new(StringArray::from(vec!["a", "b", "c"])) as ArrayRef])?;
        let (a, b, c) = (rows.row(0), rows.row(1), rows.row(2));
        let mut ids = KeyIds::default();
        assert_eq!(
            (ids.id(a.data()), ids.id(b.data()), ids.id(a.data())),
            (0, 1, 0)
        );
        ids.forget(0);
        assert_eq!(ids.find(a.data()), None);
        // "c" takes the number "a" gave up; the slots stay two.
        assert_eq!(ids.id(c.data()), 0);
        assert_eq!(ids.slots(), 2);
        ids.forget(1);

        let mut w = StateWriter::new();
        ids.save(&mut w, Some(&conv))?;
        let bytes = w.into_bytes();
        let mut back = KeyIds::load(&mut StateReader::new(&bytes), Some(&conv))?;
        assert_eq!(back.find(c.data()), Some(0));
        assert_eq!(back.find(b.data()), None);
        assert_eq!(back.live().map(|(id, _)| id).collect::<Vec<_>>(), [0]);
        // The freed number is given again after the resume, as before it.
        assert_eq!(back.id(a.data()), 1);
        Ok(())
    }

    /// The bytes the keys take, kept as keys come and numbers are given
    /// again to keys of other lengths, are what the keys hold.
    #[test]
    fn the_key_bytes_kept_are_the_keys_bytes() -> Result<()> {
        let conv = RowConverter::new(vec![SortField::new(arrow::datatypes::DataType::Utf8)])?;
        let texts = vec!["a", "bb", "ccc", "dddd", "e"];
        let rows = conv.convert_columns(&[Arc::new(StringArray::from(texts)) as ArrayRef])?;
        let walked = |ids: &KeyIds| ids.keys.iter().map(|k| key_size(k.len())).sum::<u64>();
        let mut ids = KeyIds::default();
        for (i, step) in [0, 1, 2, 0, 3, 1, 4].into_iter().enumerate() {
            // Every other key is forgotten as soon as it has a number.
            let id = ids.id(rows.row(step).data());
            if i % 2 == 1 {
                ids.forget(id);
            }
            assert_eq!(ids.key_bytes, walked(&ids), "step {i}");
        }
        let mut w = StateWriter::new();
        ids.save(&mut w, Some(&conv))?;
        let bytes = w.into_bytes();
        let back = KeyIds::load(&mut StateReader::new(&bytes), Some(&conv))?;
        assert_eq!(back.key_bytes, walked(&back));
        Ok(())
    }

    #[test]
    fn keys_whose_short_hashes_collide_keep_their_own_numbers() {
        // Two keys with the same low 32 bits of hash (found by trying:
        // one such pair is expected among some 2^16 keys).
        let mut seen = std::collections::HashMap::new();
        let (first, second) = (0u64..1 << 20)
            .map(|i| i.to_le_bytes().to_vec())
            .find_map(|key| {
                let short = short_hash(key_hash(&key));
                seen.insert(short, key.clone()).map(|other| (other, key))
            })
            .expect("a pair of keys whose short hashes collide");
        assert_ne!(first, second);
        let mut ids = KeyIds::default();
        assert_eq!((ids.id(&first), ids.id(&second)), (0, 1));
        assert_eq!((ids.find(&first), ids.find(&second)), (Some(0), Some(1)));
        ids.forget(0);
        assert_eq!((ids.find(&first), ids.find(&second)), (None, Some(1)));
        assert_eq!(ids.id(&first), 0);
        ids.forget(1);
        assert_eq!((ids.find(&first), ids.find(&second)), (Some(0), None));
    }
}
