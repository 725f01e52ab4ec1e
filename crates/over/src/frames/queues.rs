//! Per-key queues of a bounded frame: a key's history of emitted rows, the
//! values its DOUBLE sums may retract, its MIN/MAX candidates.
//!
//! A ROWS frame of `n` rows bounds every one of them at `n + 1` entries,
//! so for short frames the queues of all keys are rings of that many slots
//! in one vector: a key costs no allocation of its own, which matters when
//! each user or device id is a key and most keys hold a row or two. Longer
//! ROWS frames and RANGE frames (whose queues have no bound) keep a deque
//! per key.

use std::collections::VecDeque;
use tidemark_common::{Error, Result};
use tidemark_engine::snapshot::{Persist, StateReader, StateWriter};

/// The longest bound kept in rings: beyond it a ring's slots, reserved for
/// every key whether it uses them or not, cost more than a deque.
const RING_LIMIT: usize = 8;

pub(super) enum KeyQueues<T> {
    /// At most `cap` entries per key: key `k`'s ring is
    /// `slots[k * cap .. (k + 1) * cap]`, its oldest entry at `heads[k]`.
    Rings {
        cap: usize,
        heads: Vec<u8>,
        lens: Vec<u8>,
        slots: Vec<T>,
    },
    /// Any number of entries: a deque per key.
    Deques(Vec<VecDeque<T>>),
}

impl<T: Copy + Default> KeyQueues<T> {
    /// Queues that hold at most `bound` entries per key, if known.
    pub(super) fn new(bound: Option<usize>) -> Self {
        match bound {
            Some(cap) if (1..=RING_LIMIT).contains(&cap) => KeyQueues::Rings {
                cap,
                heads: Vec::new(),
                lens: Vec::new(),
                slots: Vec::new(),
            },
            _ => KeyQueues::Deques(Vec::new()),
        }
    }

    /// How many keys have a queue.
    pub(super) fn keys(&self) -> usize {
        match self {
            KeyQueues::Rings { lens, .. } => lens.len(),
            KeyQueues::Deques(deques) => deques.len(),
        }
    }

    /// Makes room for key `key`, with an empty queue.
    pub(super) fn ensure(&mut self, key: usize) {
        if key < self.keys() {
            return;
        }
        match self {
            KeyQueues::Rings {
                cap,
                heads,
                lens,
                slots,
            } => {
                heads.resize(key + 1, 0);
                lens.resize(key + 1, 0);
                slots.resize((key + 1) * *cap, T::default());
            }
            KeyQueues::Deques(deques) => deques.resize_with(key + 1, VecDeque::new),
        }
    }

    pub(super) fn len(&self, key: usize) -> usize {
        match self {
            KeyQueues::Rings { lens, .. } => lens.get(key).map_or(0, |l| *l as usize),
            KeyQueues::Deques(deques) => deques.get(key).map_or(0, VecDeque::len),
        }
    }

    /// Entry `i` of key `key`'s queue, oldest first.
    pub(super) fn get(&self, key: usize, i: usize) -> Option<&T> {
        match self {
            KeyQueues::Rings {
                cap,
                heads,
                lens,
                slots,
            } => (i < *lens.get(key)? as usize)
                .then(|| &slots[key * cap + (heads[key] as usize + i) % cap]),
            KeyQueues::Deques(deques) => deques.get(key)?.get(i),
        }
    }

    pub(super) fn front(&self, key: usize) -> Option<&T> {
        self.get(key, 0)
    }

    pub(super) fn back(&self, key: usize) -> Option<&T> {
        self.get(key, self.len(key).checked_sub(1)?)
    }

    /// Appends `value` to key `key`'s queue (made with [`Self::ensure`]).
    pub(super) fn push_back(&mut self, key: usize, value: T) -> Result<()> {
        match self {
            KeyQueues::Rings {
                cap,
                heads,
                lens,
                slots,
            } => {
                let len = lens[key] as usize;
                if len == *cap {
                    return Err(Error::Internal(format!(
                        "a frame queue of {cap} entries overflowed"
                    )));
                }
                slots[key * *cap + (heads[key] as usize + len) % *cap] = value;
                lens[key] += 1;
            }
            KeyQueues::Deques(deques) => deques[key].push_back(value),
        }
        Ok(())
    }

    pub(super) fn pop_front(&mut self, key: usize) -> Option<T> {
        match self {
            KeyQueues::Rings {
                cap,
                heads,
                lens,
                slots,
            } => {
                if *lens.get(key)? == 0 {
                    return None;
                }
                let value = slots[key * *cap + heads[key] as usize];
                heads[key] = ((heads[key] as usize + 1) % *cap) as u8;
                lens[key] -= 1;
                Some(value)
            }
            KeyQueues::Deques(deques) => deques.get_mut(key)?.pop_front(),
        }
    }

    pub(super) fn pop_back(&mut self, key: usize) -> Option<T> {
        match self {
            KeyQueues::Rings { .. } => {
                let value = *self.back(key)?;
                if let KeyQueues::Rings { lens, .. } = self {
                    lens[key] -= 1;
                }
                Some(value)
            }
            KeyQueues::Deques(deques) => deques.get_mut(key)?.pop_back(),
        }
    }

    /// Empties key `key`'s queue, oldest entry first into `into`.
    pub(super) fn drain_into(&mut self, key: usize, into: &mut impl Extend<T>) {
        while let Some(value) = self.pop_front(key) {
            into.extend(Some(value));
        }
    }

    /// Key `key`'s entries from the `from`-th on, oldest first.
    pub(super) fn iter_from(&self, key: usize, from: usize) -> impl Iterator<Item = &T> {
        (from..self.len(key)).filter_map(move |i| self.get(key, i))
    }

    /// Every key's entries, key after key, oldest first.
    pub(super) fn iter_all(&self) -> impl Iterator<Item = &T> {
        (0..self.keys()).flat_map(move |key| self.iter_from(key, 0))
    }

    /// Every key's entries, in [`Self::iter_all`] order, for rewriting.
    pub(super) fn for_each_mut(&mut self, mut f: impl FnMut(&mut T) -> Result<()>) -> Result<()> {
        match self {
            KeyQueues::Rings {
                cap,
                heads,
                lens,
                slots,
            } => {
                for key in 0..lens.len() {
                    for i in 0..lens[key] as usize {
                        f(&mut slots[key * *cap + (heads[key] as usize + i) % *cap])?;
                    }
                }
            }
            KeyQueues::Deques(deques) => {
                for value in deques.iter_mut().flatten() {
                    f(value)?;
                }
            }
        }
        Ok(())
    }

    /// The bytes the queues take.
    pub(super) fn state_bytes(&self) -> u64 {
        match self {
            KeyQueues::Rings {
                heads, lens, slots, ..
            } => (heads.capacity() + lens.capacity() + slots.capacity() * size_of::<T>()) as u64,
            KeyQueues::Deques(deques) => deques
                .iter()
                .map(|d| (d.capacity() * size_of::<T>() + 32) as u64)
                .sum(),
        }
    }
}

impl<T: Copy + Default + Persist> KeyQueues<T> {
    /// Writes every key's queue as a deque per key (whatever the layout,
    /// the same bytes).
    pub(super) fn save(&self, w: &mut StateWriter) {
        w.u64(self.keys() as u64);
        for key in 0..self.keys() {
            w.u64(self.len(key) as u64);
            for value in self.iter_from(key, 0) {
                w.put(value);
            }
        }
    }

    /// Reads what [`Self::save`] wrote into these (empty) queues.
    pub(super) fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let keys = r.count()?;
        for key in 0..keys {
            self.ensure(key);
            for _ in 0..r.count()? {
                let value: T = r.get()?;
                self.push_back(key, value)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same operations on rings and on deques give the same queues.
    #[test]
    fn rings_behave_as_deques() -> Result<()> {
        let mut rings = KeyQueues::<i64>::new(Some(3));
        let mut deques = KeyQueues::<i64>::new(None);
        assert!(matches!(rings, KeyQueues::Rings { .. }));
        assert!(matches!(deques, KeyQueues::Deques(_)));
        let mut step = 0i64;
        for round in 0..50usize {
            let key = round % 4;
            for q in [&mut rings, &mut deques] {
                q.ensure(key);
                // Keep at most three: drop from the front or the back.
                if q.len(key) == 3 {
                    if round % 3 == 0 {
                        q.pop_back(key);
                    } else {
                        q.pop_front(key);
                    }
                }
                q.push_back(key, step)?;
            }
            step += 1;
            let all = |q: &KeyQueues<i64>| q.iter_all().copied().collect::<Vec<_>>();
            assert_eq!(all(&rings), all(&deques), "round {round}");
            assert_eq!(rings.back(key), deques.back(key));
            assert_eq!(rings.front(key), deques.front(key));
        }
        let mut w = StateWriter::new();
        rings.save(&mut w);
        let mut v = StateWriter::new();
        deques.save(&mut v);
        let (a, b) = (w.into_bytes(), v.into_bytes());
        assert_eq!(a, b, "the same bytes whatever the layout");
        let mut back = KeyQueues::<i64>::new(Some(3));
        back.load(&mut StateReader::new(&a))?;
        assert_eq!(
            back.iter_all().collect::<Vec<_>>(),
            rings.iter_all().collect::<Vec<_>>()
        );
        let mut drained = Vec::new();
        rings.drain_into(1, &mut drained);
        assert_eq!(rings.len(1), 0);
        assert_eq!(drained.len(), 3);
        Ok(())
    }

    #[test]
    fn a_full_ring_refuses_more_rather_than_losing_an_entry() {
        let mut q = KeyQueues::<i64>::new(Some(1));
        q.ensure(0);
        assert!(q.push_back(0, 1).is_ok());
        assert!(q.push_back(0, 2).is_err());
        assert_eq!(q.front(0), Some(&1));
    }
}
