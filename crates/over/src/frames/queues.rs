//! Per-key queues of a bounded frame: a key's history of emitted rows, the
//! values its DOUBLE sums may retract, its MIN/MAX candidates.
//!
//! Every key has a ring of a few slots in one vector shared by all keys,
//! so a key costs no allocation of its own — which matters when each user
//! or device id is a key and most keys hold a row or two. A ROWS frame of
//! `n` rows bounds every queue at `n + 1` entries: for short frames the
//! ring is that long and never overflows. Otherwise (longer ROWS frames,
//! RANGE frames) a queue that outgrows its ring moves to a deque of its
//! own, where it stays until the key starts over: a MIN/MAX queue swings
//! between empty and a few entries, and must not move at every swing.
//! A key finds its deque by a number of 4 bytes kept for every key; the
//! deques themselves are only as many as the queues that spilled (a key
//! that starts over gives its deque's place to the next that spills).

use super::paged::{Paged, PAGE};
use std::collections::VecDeque;
use tidemark_common::{Error, Result};
use tidemark_engine::snapshot::{Persist, StateReader, StateWriter};

/// The longest ring: beyond it a ring's slots, reserved for every key
/// whether it uses them or not, cost more than a deque.
const RING_LIMIT: usize = 8;

/// The ring of a queue without a short bound: room for the one or two
/// rows most keys of a high-cardinality input hold.
const OPEN_RING: usize = 2;

/// `lens[key]` of a key whose entries are in its deque.
const SPILLED: u8 = u8::MAX;

pub(super) struct KeyQueues<T> {
    /// Slots per key: key `k`'s ring is `slots[k * cap .. (k + 1) * cap]`,
    /// its oldest entry at `heads[k]`.
    cap: usize,
    /// Whether a queue can outgrow its ring.
    open: bool,
    heads: Paged<u8>,
    /// Entries in the key's ring, or [`SPILLED`].
    lens: Paged<u8>,
    slots: Paged<T>,
    /// By key, for a queue that outgrew its ring: where in `deques` its
    /// entries are (4 bytes a key rather than a deque's 32, which most
    /// keys of a high-cardinality input never use). A plain vector, not
    /// pages: growing it copies only 4 bytes a key, and a page's lookup
    /// at every look cost the frames whose every key spills.
    spill_at: Vec<u32>,
    deques: Vec<VecDeque<T>>,
    /// Deques given back by keys that started over, for the next to spill.
    free_deques: Vec<u32>,
    /// Keys made room for with [`Self::ensure`] (the arrays may have room
    /// for more: they grow a page of keys at a time).
    made: usize,
    /// The entries the deques have room for, kept as they grow and go:
    /// adding up millions of deques every time state is measured cost a
    /// run with a key per row a few percent.
    spilled_room: usize,
}

impl<T: Copy + Default> KeyQueues<T> {
    /// Queues that hold at most `bound` entries per key, if known.
    pub(super) fn new(bound: Option<usize>) -> Self {
        let (cap, open) = match bound {
            Some(cap) if (1..=RING_LIMIT).contains(&cap) => (cap, false),
            _ => (OPEN_RING, true),
        };
        KeyQueues {
            cap,
            open,
            heads: Paged::new(),
            lens: Paged::new(),
            slots: Paged::new(),
            spill_at: Vec::new(),
            deques: Vec::new(),
            free_deques: Vec::new(),
            made: 0,
            spilled_room: 0,
        }
    }

    /// How many keys have a queue.
    pub(super) fn keys(&self) -> usize {
        self.made
    }

    /// Makes room for key `key`, with an empty queue.
    #[inline]
    pub(super) fn ensure(&mut self, key: usize) {
        if key < self.made {
            return;
        }
        self.made = key + 1;
        if key < self.lens.len() {
            return;
        }
        // Room for the rest of the key's page at once: keys come one at a
        // time, and where each row has a key of its own, growing four
        // arrays by one key cost a dozen calls a row (2 % of OVER RANGE's
        // instructions there).
        let room = (key | (PAGE - 1)) + 1;
        self.heads.grow(room, 0);
        self.lens.grow(room, 0);
        self.slots.grow(room * self.cap, T::default());
        if self.open {
            self.spill_at.resize(room, u32::MAX);
        }
    }

    #[inline(always)]
    fn spilled(&self, key: usize) -> bool {
        self.lens.get(key) == Some(&SPILLED)
    }

    /// The deque of key `key`, which spilled.
    #[inline(always)]
    fn deque(&self, key: usize) -> &VecDeque<T> {
        &self.deques[self.spill_at[key] as usize]
    }

    #[inline(always)]
    fn deque_mut(&mut self, key: usize) -> &mut VecDeque<T> {
        &mut self.deques[self.spill_at[key] as usize]
    }

    /// Where entry `i` (below `cap`) of key `key`'s ring is.
    #[inline(always)]
    fn slot(&self, key: usize, i: usize) -> usize {
        let at = self.heads[key] as usize + i;
        key * self.cap + if at >= self.cap { at - self.cap } else { at }
    }

    #[inline(always)]
    pub(super) fn len(&self, key: usize) -> usize {
        match self.lens.get(key) {
            None => 0,
            Some(&SPILLED) => self.deque(key).len(),
            Some(len) => *len as usize,
        }
    }

    /// Entry `i` of key `key`'s queue, oldest first.
    #[inline(always)]
    pub(super) fn get(&self, key: usize, i: usize) -> Option<&T> {
        if self.spilled(key) {
            return self.deque(key).get(i);
        }
        (i < *self.lens.get(key)? as usize).then(|| &self.slots[self.slot(key, i)])
    }

    #[inline(always)]
    pub(super) fn front(&self, key: usize) -> Option<&T> {
        if self.spilled(key) {
            return self.deque(key).front();
        }
        (*self.lens.get(key)? > 0).then(|| &self.slots[key * self.cap + self.heads[key] as usize])
    }

    #[cfg(test)]
    pub(super) fn back(&self, key: usize) -> Option<&T> {
        if self.spilled(key) {
            return self.deque(key).back();
        }
        let len = *self.lens.get(key)? as usize;
        (len > 0).then(|| &self.slots[self.slot(key, len - 1)])
    }

    /// Appends `value` to key `key`'s queue (made with [`Self::ensure`]).
    #[inline(always)]
    pub(super) fn push_back(&mut self, key: usize, value: T) -> Result<()> {
        if self.spilled(key) {
            let deque = &mut self.deques[self.spill_at[key] as usize];
            let room = deque.capacity();
            deque.push_back(value);
            self.spilled_room += deque.capacity() - room;
            return Ok(());
        }
        let len = self.lens[key] as usize;
        if len < self.cap {
            let at = self.slot(key, len);
            self.slots[at] = value;
            self.lens[key] += 1;
            return Ok(());
        }
        if !self.open {
            return Err(Error::Internal(format!(
                "a frame queue of {} entries overflowed",
                self.cap
            )));
        }
        // The ring is full: the queue moves to its deque.
        let at = match self.free_deques.pop() {
            Some(at) => at as usize,
            None => {
                self.deques.push(VecDeque::new());
                self.deques.len() - 1
            }
        };
        let mut deque = std::mem::take(&mut self.deques[at]);
        let room = deque.capacity();
        deque.extend((0..len).map(|i| self.slots[self.slot(key, i)]));
        deque.push_back(value);
        self.spilled_room += deque.capacity() - room;
        self.deques[at] = deque;
        self.spill_at[key] = at as u32;
        self.heads[key] = 0;
        self.lens[key] = SPILLED;
        Ok(())
    }

    #[inline(always)]
    pub(super) fn pop_front(&mut self, key: usize) -> Option<T> {
        if self.spilled(key) {
            return self.deque_mut(key).pop_front();
        }
        if *self.lens.get(key)? == 0 {
            return None;
        }
        let value = self.slots[self.slot(key, 0)];
        self.heads[key] = (self.slot(key, 1) - key * self.cap) as u8;
        self.lens[key] -= 1;
        Some(value)
    }

    #[cfg(test)]
    pub(super) fn pop_back(&mut self, key: usize) -> Option<T> {
        if self.spilled(key) {
            return self.deque_mut(key).pop_back();
        }
        let value = *self.back(key)?;
        self.lens[key] -= 1;
        Some(value)
    }

    /// Drops entries from the back of key `key`'s queue while `drop`
    /// says so (one look at where the queue is, for all of them).
    #[inline(always)]
    pub(super) fn pop_back_while(&mut self, key: usize, mut drop: impl FnMut(&T) -> bool) {
        if self.spilled(key) {
            let deque = self.deque_mut(key);
            while deque.back().is_some_and(&mut drop) {
                deque.pop_back();
            }
            return;
        }
        let Some(&len) = self.lens.get(key) else {
            return;
        };
        let mut len = len as usize;
        while len > 0 && drop(&self.slots[self.slot(key, len - 1)]) {
            len -= 1;
        }
        self.lens[key] = len as u8;
    }

    /// Drops entries from the front of key `key`'s queue while `drop`
    /// says so.
    #[inline(always)]
    pub(super) fn pop_front_while(&mut self, key: usize, mut drop: impl FnMut(&T) -> bool) {
        if self.spilled(key) {
            let deque = self.deque_mut(key);
            while deque.front().is_some_and(&mut drop) {
                deque.pop_front();
            }
            return;
        }
        let Some(&len) = self.lens.get(key) else {
            return;
        };
        let mut dropped = 0;
        while dropped < len as usize && drop(&self.slots[self.slot(key, dropped)]) {
            dropped += 1;
        }
        if dropped > 0 {
            self.heads[key] = (self.slot(key, dropped % self.cap) - key * self.cap) as u8;
            self.lens[key] = len - dropped as u8;
        }
    }

    /// Empties key `key`'s queue, oldest entry first into `into`: the key
    /// starts over (its state expired), in its ring, its deque freed.
    pub(super) fn drain_into(&mut self, key: usize, into: &mut impl Extend<T>) {
        while let Some(value) = self.pop_front(key) {
            into.extend(Some(value));
        }
        if self.spilled(key) {
            let at = self.spill_at[key];
            self.spilled_room -= self.deques[at as usize].capacity();
            self.deques[at as usize] = VecDeque::new();
            self.free_deques.push(at);
            self.lens[key] = 0;
            self.heads[key] = 0;
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
        for key in 0..self.keys() {
            if self.spilled(key) {
                for value in self.deque_mut(key).iter_mut() {
                    f(value)?;
                }
                continue;
            }
            for i in 0..self.lens[key] as usize {
                let at = self.slot(key, i);
                f(&mut self.slots[at])?;
            }
        }
        Ok(())
    }

    /// The bytes the queues take.
    pub(super) fn state_bytes(&self) -> u64 {
        let rings = self.heads.capacity()
            + self.lens.capacity()
            + self.slots.capacity() * size_of::<T>()
            + self.spill_at.capacity() * size_of::<u32>()
            + self.deques.capacity() * size_of::<VecDeque<T>>()
            + self.free_deques.capacity() * size_of::<u32>();
        (rings + self.spilled_room * size_of::<T>()) as u64
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

    /// The same operations on rings of three and on rings of two that
    /// spill into deques give the same queues.
    #[test]
    fn rings_behave_as_deques() -> Result<()> {
        let mut rings = KeyQueues::<i64>::new(Some(3));
        let mut deques = KeyQueues::<i64>::new(None);
        assert!(!rings.open && deques.open);
        let mut step = 0i64;
        for round in 0..50usize {
            let key = round % 4;
            for q in [&mut rings, &mut deques] {
                q.ensure(key);
                // Keep at most three: drop from the front or the back,
                // one entry or a run of them.
                if q.len(key) == 3 {
                    match round % 5 {
                        0 => drop(q.pop_back(key)),
                        1 => q.pop_back_while(key, |v| *v > step - 9),
                        2 => q.pop_front_while(key, |v| *v < step - 7),
                        3 => q.pop_front_while(key, |_| true),
                        _ => drop(q.pop_front(key)),
                    }
                    while q.len(key) == 3 {
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
    fn a_queue_that_outgrew_its_ring_returns_to_it_when_its_key_starts_over() -> Result<()> {
        let mut q = KeyQueues::<i64>::new(None);
        q.ensure(1);
        for v in 0..5 {
            q.push_back(1, v)?;
        }
        assert!(q.spilled(1));
        assert_eq!(q.iter_from(1, 2).copied().collect::<Vec<_>>(), [2, 3, 4]);
        let walked = |q: &KeyQueues<i64>| q.deques.iter().map(VecDeque::capacity).sum::<usize>();
        assert!(q.spilled_room >= 5 && q.spilled_room == walked(&q));
        while q.pop_front(1).is_some() {}
        assert!(q.spilled(1), "an empty queue stays where it is");
        q.push_back(1, 7)?;
        let mut drained = Vec::new();
        q.drain_into(1, &mut drained);
        assert_eq!(drained, [7]);
        assert!(!q.spilled(1));
        assert_eq!((q.spilled_room, walked(&q)), (0, 0));
        // Another key that spills takes the place the first gave back.
        q.ensure(2);
        for v in 0..3 {
            q.push_back(2, v)?;
        }
        assert!(q.spilled(2) && q.deques.len() == 1);
        assert_eq!(q.iter_from(2, 0).copied().collect::<Vec<_>>(), [0, 1, 2]);
        q.push_back(1, 9)?;
        assert_eq!((q.len(1), q.front(1), q.len(0)), (1, Some(&9), 0));
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
