//! A vector grown by pages: per-key state of OVER windows over millions
//! of keys grows without ever copying what it holds (the frames' queues,
//! running sums and row counts).
//!
//! A `Vec` that doubles copies every entry at each step and holds both
//! copies while it does; at two million keys that is hundreds of MiB
//! moved and held twice, unless the allocator can move the pages instead
//! (the system allocator remaps large blocks; mimalloc copies them).
//! Here entries live in pages of [`PAGE`] entries: growing adds a page
//! with room for all of them, so nothing is ever copied. (A page that grew
//! by doubling as a `Vec` does copied each entry once more and touched its
//! memory twice: at two million keys of an OVER aggregation those copies
//! and their page faults were a tenth of the run. Room not yet used is
//! not touched, so it costs no memory until it is.)

use std::ops::{Index, IndexMut};
use tidemark_common::Result;
use tidemark_engine::snapshot::{Persist, StateReader, StateWriter};

/// Entries per page (a power of two).
const PAGE_BITS: u32 = 12;
pub(super) const PAGE: usize = 1 << PAGE_BITS;

pub(super) struct Paged<T> {
    pages: Vec<Vec<T>>,
    len: usize,
}

impl<T> Paged<T> {
    pub(super) fn new() -> Self {
        Paged {
            pages: Vec::new(),
            len: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Entries the pages have room for.
    pub(super) fn capacity(&self) -> usize {
        self.pages.iter().map(Vec::capacity).sum()
    }

    /// Grows to `len` entries, each new one made by `fill`; never shrinks.
    pub(super) fn grow_with(&mut self, len: usize, mut fill: impl FnMut() -> T) {
        while self.len < len {
            let page = match self.pages.last_mut() {
                Some(page) if page.len() < PAGE => page,
                _ => {
                    self.pages.push(Vec::with_capacity(PAGE));
                    self.pages.last_mut().expect("a page was just pushed")
                }
            };
            let room = (PAGE - page.len()).min(len - self.len);
            page.extend(std::iter::repeat_with(&mut fill).take(room));
            self.len += room;
        }
    }

    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> Option<&T> {
        self.pages.get(i >> PAGE_BITS)?.get(i & (PAGE - 1))
    }

    #[inline(always)]
    pub(super) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.pages.get_mut(i >> PAGE_BITS)?.get_mut(i & (PAGE - 1))
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &T> {
        self.pages.iter().flatten()
    }

    /// Adds `value` as the last entry.
    #[inline]
    pub(super) fn push(&mut self, value: T) {
        match self.pages.last_mut() {
            Some(page) if page.len() < PAGE => page.push(value),
            _ => {
                let mut page = Vec::with_capacity(PAGE);
                page.push(value);
                self.pages.push(page);
            }
        }
        self.len += 1;
    }
}

impl<T: Clone> Paged<T> {
    /// Grows to `len` entries, each new one `value`; never shrinks.
    pub(super) fn grow(&mut self, len: usize, value: T) {
        self.grow_with(len, || value.clone());
    }
}

impl<T> Index<usize> for Paged<T> {
    type Output = T;

    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        &self.pages[i >> PAGE_BITS][i & (PAGE - 1)]
    }
}

impl<T> IndexMut<usize> for Paged<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.pages[i >> PAGE_BITS][i & (PAGE - 1)]
    }
}

/// Written as a vector of the same entries is.
impl<T: Persist> Persist for Paged<T> {
    fn save(&self, w: &mut StateWriter) {
        w.u64(self.len as u64);
        for entry in self.iter() {
            entry.save(w);
        }
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        let n = r.count()?;
        let mut paged = Paged::new();
        for _ in 0..n {
            paged.push(T::load(r)?);
        }
        Ok(paged)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_their_places_across_pages() {
        let mut paged = Paged::new();
        let mut plain = Vec::new();
        for (step, len) in [
            0,
            1,
            5,
            PAGE - 1,
            PAGE,
            PAGE + 1,
            3 * PAGE + 7,
            3 * PAGE + 7,
        ]
        .into_iter()
        .enumerate()
        {
            let mut next = 0;
            paged.grow_with(len, || {
                next += 1;
                step * 1_000_000 + next
            });
            let mut next = 0;
            while plain.len() < len {
                next += 1;
                plain.push(step * 1_000_000 + next);
            }
            assert_eq!(paged.len(), plain.len());
            assert!(paged.iter().eq(plain.iter()));
            assert!(paged.capacity() >= len);
        }
        paged[PAGE + 1] = 7;
        plain[PAGE + 1] = 7;
        assert!((0..plain.len()).all(|i| paged[i] == plain[i] && paged.get(i) == Some(&plain[i])));
        assert_eq!(paged.get(plain.len()), None);
    }

    /// Entries pushed across pages are written as a vector of them is,
    /// and read back the same.
    #[test]
    fn pushed_entries_persist_as_a_vector() -> Result<()> {
        let mut paged = Paged::new();
        let plain: Vec<(Option<f64>, i64)> = (0..2 * PAGE as i64 + 3)
            .map(|i| ((i % 3 != 0).then_some(i as f64 / 4.0), -i))
            .collect();
        for entry in &plain {
            paged.push(*entry);
        }
        assert_eq!(paged.len(), plain.len());
        let (mut a, mut b) = (StateWriter::new(), StateWriter::new());
        a.put(&paged);
        b.put(&plain);
        let bytes = a.into_bytes();
        assert_eq!(bytes, b.into_bytes());
        let back: Paged<(Option<f64>, i64)> = StateReader::new(&bytes).get()?;
        assert!(back.iter().eq(plain.iter()));
        assert_eq!(back.len(), plain.len());
        Ok(())
    }
}
