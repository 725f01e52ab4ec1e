//! The pending timers of one operator: a set of `(time, key)` in that
//! order, as a B-tree would keep them, but kept mostly as a sorted run.
//!
//! Nearly every timer is set later than, or a little before, the latest
//! timer set: a row's session end, its expiry, the end of its window all
//! move forward with event time, give or take the input's disorder. Such
//! a timer goes on the end of the run (or a few slots before it), and the
//! earliest comes off its front, in constant time. So does a timer set
//! before the run's front, or a few slots after it, and it is looked for
//! among the front's slots first: an OVER aggregation's timer for its
//! earliest waiting row, moved earlier at many rows, sits there ahead of
//! a minute of its keys' expiry timers (in the B-tree, after a search of
//! the whole run, it cost 9 % of such a run's instructions). A B-tree
//! (where inserting with millions of keys set costs dozens of comparisons
//! a level) holds only the others. A timer removed from the run is marked
//! dead where it lies rather than moved out, and the run is compacted once
//! the dead are as many as the living, so removing costs no more than a
//! search.

use crate::runtime::snapshot::{Persist, StateReader, StateWriter};
use std::cmp::Ordering;
use std::collections::{BTreeSet, VecDeque};
use std::ops::Range;
use tidemark_common::Result;

/// Dead slots in the run tolerated before counting them against the
/// living: compacting a short run often is not worth it.
const DEAD_ALLOWED: usize = 1024;

/// How far from the run's end (or front) a timer is put into the run,
/// moving the slots after (or before) it: about as far as a B-tree
/// insertion costs.
const NEAR_END: usize = 256;

/// The timers, each once, in `(time, key)` order.
#[derive(Debug)]
pub struct Timers<K: Ord> {
    /// Strictly increasing; a slot whose timer was removed is dead.
    run: VecDeque<Slot<K>>,
    /// Dead slots in `run`.
    dead: usize,
    /// The timers the run does not hold: those set too far before its
    /// end, and any set among them since.
    rest: BTreeSet<(i64, K)>,
}

/// A timer of the run, and whether it is still set.
#[derive(Debug)]
struct Slot<K> {
    timer: (i64, K),
    alive: bool,
}

impl<K: Ord> Default for Timers<K> {
    fn default() -> Self {
        Timers {
            run: VecDeque::new(),
            dead: 0,
            rest: BTreeSet::new(),
        }
    }
}

impl<K: Ord> Timers<K> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.run.len() - self.dead + self.rest.len()
    }

    /// Sets `timer`; false when it was set already.
    pub fn insert(&mut self, timer: (i64, K)) -> bool {
        let beyond_run = self.run.back().is_none_or(|last| timer > last.timer);
        if beyond_run {
            // Past the run's end it can be among the rest only when the
            // run's last timers were removed.
            if self.rest.last().is_some_and(|last| timer <= *last) {
                return self.rest.insert(timer);
            }
            self.run.push_back(Slot { timer, alive: true });
            return true;
        }
        match self.find(&timer) {
            Ok(i) if self.run[i].alive => false,
            Ok(i) => {
                self.run[i].alive = true;
                self.dead -= 1;
                true
            }
            // A little before the run's end, or before or a little after
            // its front: into its place there, unless it is set among the
            // rest.
            Err(i)
                if (self.run.len() - i <= NEAR_END || i <= NEAR_END)
                    && !self.rest.contains(&timer) =>
            {
                self.run.insert(i, Slot { timer, alive: true });
                true
            }
            Err(_) => self.rest.insert(timer),
        }
    }

    /// Removes `timer`; false when it was not set.
    pub fn remove(&mut self, timer: &(i64, K)) -> bool {
        match self.find(timer) {
            Ok(i) if self.run[i].alive => {
                self.run[i].alive = false;
                self.dead += 1;
                self.drop_dead();
                true
            }
            _ => self.rest.remove(timer),
        }
    }

    /// The earliest timer.
    pub fn first(&self) -> Option<&(i64, K)> {
        let run = self.run.front().map(|slot| &slot.timer);
        match (run, self.rest.first()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Removes and returns the earliest timer.
    pub fn pop_first(&mut self) -> Option<(i64, K)> {
        let from_run = match (self.run.front(), self.rest.first()) {
            (Some(slot), Some(rest)) => slot.timer < *rest,
            (run, _) => run.is_some(),
        };
        if !from_run {
            return self.rest.pop_first();
        }
        let slot = self.run.pop_front()?;
        // The front is always alive: the dead are dropped as they reach it.
        self.drop_dead();
        Some(slot.timer)
    }

    /// The timers in order.
    pub fn iter(&self) -> impl Iterator<Item = &(i64, K)> {
        let mut run = self
            .run
            .iter()
            .filter(|slot| slot.alive)
            .map(|slot| &slot.timer)
            .peekable();
        let mut rest = self.rest.iter().peekable();
        std::iter::from_fn(move || match (run.peek(), rest.peek()) {
            (Some(a), Some(b)) if b < a => rest.next(),
            (Some(_), _) => run.next(),
            (None, _) => rest.next(),
        })
    }

    /// Where `timer` is (or would go) in the run.
    fn find(&self, timer: &(i64, K)) -> std::result::Result<usize, usize> {
        // Among the front's slots first: the timers set there are the
        // ones most often removed and set again.
        let len = self.run.len();
        match self.run.front().map(|first| first.timer.cmp(timer)) {
            None | Some(Ordering::Greater) => Err(0),
            Some(Ordering::Equal) => Ok(0),
            Some(Ordering::Less) if len > NEAR_END && *timer < self.run[NEAR_END].timer => {
                self.search(timer, 1..NEAR_END)
            }
            Some(Ordering::Less) => self.search(timer, 1..len),
        }
    }

    /// [`Timers::find`] within slots `within` of the run.
    fn search(&self, timer: &(i64, K), within: Range<usize>) -> std::result::Result<usize, usize> {
        let (mut low, mut high) = (within.start, within.end);
        while low < high {
            let mid = low + (high - low) / 2;
            match self.run[mid].timer.cmp(timer) {
                Ordering::Less => low = mid + 1,
                Ordering::Greater => high = mid,
                Ordering::Equal => return Ok(mid),
            }
        }
        Err(low)
    }

    /// Drops the dead slots at the run's ends, and compacts the run once
    /// the dead outnumber the living.
    fn drop_dead(&mut self) {
        while self.run.front().is_some_and(|slot| !slot.alive) {
            self.run.pop_front();
            self.dead -= 1;
        }
        while self.run.back().is_some_and(|slot| !slot.alive) {
            self.run.pop_back();
            self.dead -= 1;
        }
        if self.dead > DEAD_ALLOWED && self.dead * 2 > self.run.len() {
            self.run.retain(|slot| slot.alive);
            self.dead = 0;
        }
    }

    /// Slots held: the timers set and the dead still in the run.
    #[cfg(test)]
    fn slots(&self) -> usize {
        self.run.len() + self.rest.len()
    }
}

/// Written as the set of timers in order, as a B-tree set of them is.
impl<K: Ord + Persist> Persist for Timers<K> {
    fn save(&self, w: &mut StateWriter) {
        w.u64(self.len() as u64);
        for timer in self.iter() {
            timer.save(w);
        }
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        let all: Vec<(i64, K)> = r.get()?;
        let mut timers = Timers::new();
        for timer in all {
            timers.insert(timer);
        }
        Ok(timers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator: the same steps on every run.
    struct Steps(u64);

    impl Steps {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % n
        }
    }

    /// Every operation gives what a B-tree set gives, over random mixes
    /// of timers set mostly later and later, some earlier, removed at
    /// random and popped, through compactions.
    #[test]
    fn timers_behave_as_a_btree_set() {
        for seed in 0..40 {
            let mut steps = Steps(seed);
            let mut timers = Timers::new();
            let mut model = BTreeSet::new();
            let mut now = 0i64;
            let spread = [1, 3, 50, 2_000][seed as usize % 4];
            for _ in 0..6_000 {
                match steps.below(10) {
                    0..=4 => {
                        now += steps.below(3) as i64;
                        let at = if steps.below(6) == 0 {
                            now - steps.below(spread) as i64
                        } else {
                            now
                        };
                        let timer = (at, steps.below(8) as u32);
                        assert_eq!(timers.insert(timer), model.insert(timer));
                    }
                    5..=7 => {
                        let timer = (now - steps.below(spread) as i64, steps.below(8) as u32);
                        assert_eq!(timers.remove(&timer), model.remove(&timer));
                    }
                    8 => {
                        // Remove one that is set, anywhere.
                        if let Some(&timer) = model
                            .iter()
                            .nth(steps.below(model.len() as u64 + 1) as usize)
                        {
                            assert!(timers.remove(&timer));
                            model.remove(&timer);
                        }
                    }
                    _ => assert_eq!(timers.pop_first(), model.pop_first()),
                }
                assert_eq!(timers.len(), model.len());
                assert_eq!(timers.first(), model.first());
            }
            assert!(timers.iter().eq(model.iter()), "seed {seed}");
            assert!(timers.slots() <= 2 * model.len() + DEAD_ALLOWED + 1);
            while let Some(timer) = model.pop_first() {
                assert_eq!(timers.pop_first(), Some(timer));
            }
            assert!(timers.len() == 0 && timers.pop_first().is_none());
        }
    }

    /// Removing timers set in order from anywhere in a long run keeps it
    /// no larger than twice the timers still set.
    #[test]
    fn removed_timers_do_not_pile_up() {
        let mut timers = Timers::new();
        for at in 0..100_000i64 {
            timers.insert((at, 0u32));
        }
        for at in (0..100_000i64).filter(|at| at % 4 != 0) {
            assert!(timers.remove(&(at, 0)));
        }
        assert_eq!(timers.len(), 25_000);
        assert!(timers.slots() <= 2 * 25_000 + DEAD_ALLOWED);
        assert!(timers.iter().map(|t| t.0).eq((0..100_000).step_by(4)));
    }

    /// A timer set before the run's front goes on it; one set among the
    /// rest stays set once, even after the run's front moved past it.
    #[test]
    fn timers_before_the_run_go_on_its_front_once() {
        let mut timers = Timers::new();
        for at in 1_000..5_000i64 {
            timers.insert((at, 0u32));
        }
        // Far from the run's ends: among the rest.
        assert!(timers.insert((3_000, 1)));
        assert_eq!(timers.rest.len(), 1);
        // Before the run's front: on it.
        assert!(timers.insert((10, 0)));
        assert!(!timers.insert((10, 0)));
        assert_eq!(timers.rest.len(), 1);
        assert_eq!(timers.run.front().map(|slot| slot.timer), Some((10, 0)));
        // The run's front moves past the timer among the rest.
        for at in std::iter::once(10).chain(1_000..3_200) {
            assert!(timers.remove(&(at, 0)));
        }
        assert!(!timers.insert((3_000, 1)), "set once");
        assert_eq!(timers.len(), 1_801);
        assert_eq!(timers.pop_first(), Some((3_000, 1)));
        assert_eq!(timers.pop_first(), Some((3_200, 0)));
    }

    #[test]
    fn saved_timers_read_back_in_order() -> Result<()> {
        let mut timers = Timers::new();
        for timer in [(5, 1u32), (9, 0), (7, 3), (5, 0), (12, 2)] {
            timers.insert(timer);
        }
        timers.remove(&(12, 2));
        let mut w = StateWriter::new();
        w.put(&timers);
        let bytes = w.into_bytes();
        // The bytes of the same set as a B-tree set.
        let mut as_set = StateWriter::new();
        as_set.put(&timers.iter().copied().collect::<BTreeSet<_>>());
        assert_eq!(bytes, as_set.into_bytes());
        let back: Timers<u32> = StateReader::new(&bytes).get()?;
        assert!(back.iter().eq(timers.iter()));
        Ok(())
    }
}
