//! Short ROWS frames whose every aggregate is kept incrementally (DOUBLE
//! SUM/AVG, MIN/MAX of primitive types, SUM of integers, COUNT): each
//! key's whole state in one block of words.
//!
//! Kept in queues of their own ([`super::queues`]), a key's row count,
//! running sums, retractable values and MIN/MAX candidates lived in a
//! dozen arrays (heads, lengths, slots, spilled deques behind an index),
//! and a row touched some ten cache lines across them. In a block they
//! sit side by side. A ROWS frame of `n` rows needs no queue of its values
//! either: a key's k-th row goes to slot `k mod (n + 1)` of a ring, the
//! slot of the row that leaves the frame as it comes.
//!
//! A key's block, in 64-bit words:
//! - the key's rows so far (its frame holds the last `n + 1`), and the
//!   slot the next goes to (their count mod `n + 1`, kept to spare a
//!   division a row);
//! - per DOUBLE SUM/AVG: the sum's bits, how many non-NULL values it
//!   holds, a mask (bit `i`: slot `i` holds a value, not NULL; bit 63: the
//!   sum has started), then `n + 1` slots of values;
//! - per MIN/MAX: the head and length of its candidates' queue, then
//!   `n + 1` entries of (row number, value in one word, two for DECIMAL);
//! - per SUM of an integer type: as a DOUBLE sum, the sum wrapping in 64
//!   bits (the type's own wrapping, taken modulo its width at the end);
//! - per COUNT(x): how many of the frame's values are not NULL, and a mask
//!   of the slots holding one (COUNT(*) is the frame's length: no words).
//!
//! A block of zeros is a key with nothing added: a key that starts over
//! is zeroed, and pages of new keys come zeroed from the allocator,
//! untouched until used.

use super::bounded::{double_order, extreme_call, raw_array, running_call};
use crate::store::Numeric;
use arrow::array::{Array, ArrayRef, Float64Array, Int64Array, PrimitiveArray};
use arrow::datatypes::ArrowPrimitiveType;
use std::ops::Range;
use std::sync::Arc;
use tidemark_common::expr::{AggregateCall, AggregateFunction};
use tidemark_common::{Error, Result, SqlType};
use tidemark_engine::snapshot::{StateReader, StateWriter};

/// The most rows a frame kept in blocks holds (`n + 1`): a SUM's mask has
/// a bit per slot below bit 63. Longer frames keep their queues.
const MOST_ROWS: usize = 63;

/// Keys per page (a power of two): pages are added as keys come, never
/// copied.
const PAGE_BITS: u32 = 10;

/// A SUM's mask bit: the sum has started (a value was added since the
/// key began).
const STARTED: u64 = 1 << 63;

/// Words before a block's aggregates: rows so far, next slot.
const KEY_HEAD: usize = 2;

/// In the next slot's word, when keys' state expires: the key has rows
/// out that have not been through its frame.
const UNSETTLED: u64 = 1 << 63;

/// Words before a SUM's slots: sum, count, mask.
const SUM_HEAD: usize = 3;

/// Words of a COUNT(x): count, mask.
const COUNT_HEAD: usize = 2;

/// How one aggregate is kept, and where in a block.
enum Part {
    /// DOUBLE SUM or AVG, as Flink keeps it: a sum and a count, the
    /// leaving row retracted before the new one is added.
    Sum {
        arg: usize,
        average: bool,
        at: usize,
        out: Vec<Option<f64>>,
    },
    /// SUM of TINYINT to BIGINT: a sum and a count, as a DOUBLE sum, but
    /// exact in any order (it wraps as the type does).
    IntegerSum {
        arg: usize,
        ty: SqlType,
        at: usize,
        out: Vec<Option<i128>>,
    },
    /// COUNT(x), or COUNT(*) without an argument.
    Count {
        arg: Option<usize>,
        at: usize,
        out: Vec<i64>,
    },
    /// MIN or MAX: a monotonic queue of the values that can still be the
    /// extreme, oldest first, in Flink's order of values.
    Extreme {
        arg: usize,
        max: bool,
        ty: SqlType,
        /// Values in two words (DECIMAL).
        wide: bool,
        at: usize,
        out: Vec<Option<i128>>,
    },
}

impl Part {
    /// The words of a block this aggregate keeps, for frames of `bound`
    /// rows.
    fn span(&self, bound: usize) -> Range<usize> {
        let (at, words) = match self {
            Part::Sum { at, .. } | Part::IntegerSum { at, .. } => (*at, SUM_HEAD + bound),
            Part::Count { arg: None, at, .. } => (*at, 0),
            Part::Count { at, .. } => (*at, COUNT_HEAD),
            Part::Extreme { wide, at, .. } => (*at, 1 + bound * entry_words(*wide)),
        };
        at..at + words
    }
}

pub(super) struct Blocks {
    /// Rows a frame holds: `n + 1`.
    bound: usize,
    /// Words per key.
    width: usize,
    parts: Vec<Part>,
    pages: Vec<Vec<u64>>,
    /// Keys below this have been made room for.
    keys: usize,
    /// The keys of the rows that went out since the last settling, in
    /// the order they went out.
    emitted: Vec<u32>,
    /// Scratch for settling: each row's number among its key's rows and
    /// its slot.
    places: Vec<(u64, usize)>,
    /// Whether keys' state expires: then a block marks the key's rows not
    /// yet through its frame ([`UNSETTLED`]), so that a key expiring
    /// settles the rows out before only when some are its own.
    marks_unsettled: bool,
}

impl Blocks {
    /// Blocks for ROWS frames of `n` preceding rows, if the frame is
    /// short enough and every aggregate can be kept in one.
    pub(super) fn for_frame(
        aggregates: &[AggregateCall],
        n: usize,
        marks_unsettled: bool,
    ) -> Option<Self> {
        let bound = n.checked_add(1).filter(|b| *b <= MOST_ROWS)?;
        let mut width = KEY_HEAD;
        let mut parts = Vec::new();
        for call in aggregates {
            let at = width;
            let part = if let Some((arg, average)) = running_call(call) {
                let out = Vec::new();
                Part::Sum {
                    arg,
                    average,
                    at,
                    out,
                }
            } else if let Some((arg, ty)) = integer_sum_call(call) {
                let out = Vec::new();
                Part::IntegerSum { arg, ty, at, out }
            } else if let Some(arg) = count_call(call) {
                let out = Vec::new();
                Part::Count { arg, at, out }
            } else {
                let (arg, max, ty) = extreme_call(call)?;
                let wide = matches!(ty, SqlType::Decimal(..));
                let out = Vec::new();
                Part::Extreme {
                    arg,
                    max,
                    ty,
                    wide,
                    at,
                    out,
                }
            };
            width = part.span(bound).end;
            parts.push(part);
        }
        Some(Blocks {
            bound,
            width,
            parts,
            pages: Vec::new(),
            keys: 0,
            emitted: Vec::new(),
            places: Vec::new(),
            marks_unsettled,
        })
    }

    /// Key `key`'s block, made room for.
    #[inline(always)]
    fn block(&mut self, key: usize) -> &mut [u64] {
        let page = key >> PAGE_BITS;
        while self.pages.len() <= page {
            // Zeroed by the allocator: untouched memory until a key uses it.
            self.pages.push(vec![0; self.width << PAGE_BITS]);
        }
        self.keys = self.keys.max(key + 1);
        let at = (key & ((1 << PAGE_BITS) - 1)) * self.width;
        &mut self.pages[page][at..at + self.width]
    }

    fn block_of(&self, key: usize) -> Option<&[u64]> {
        let page = self.pages.get(key >> PAGE_BITS)?;
        let at = (key & ((1 << PAGE_BITS) - 1)) * self.width;
        page.get(at..at + self.width)
    }

    /// Rows of key `key`, `rows` of them, went out: they go through its
    /// frame when the output is built ([`Blocks::settle`]), a column at a
    /// time.
    #[inline(always)]
    pub(super) fn emit(&mut self, key: u32, rows: usize) {
        self.emitted.extend(std::iter::repeat_n(key, rows));
        if self.marks_unsettled {
            self.mark_unsettled(key);
        }
    }

    /// Key `key` has rows out not yet through its frame (kept out of line:
    /// [`Blocks::emit`] is on every row's way out).
    #[inline(never)]
    fn mark_unsettled(&mut self, key: u32) {
        self.block(key as usize)[1] |= UNSETTLED;
    }

    /// Whether rows of key `key` went out and have not been through its
    /// frame (when blocks do not mark them: whether any rows have not).
    pub(super) fn unsettled_of(&self, key: usize) -> bool {
        if !self.marks_unsettled {
            return !self.emitted.is_empty();
        }
        self.block_of(key)
            .is_some_and(|block| block[1] & UNSETTLED != 0)
    }

    /// How many rows went out and have not been through their frames.
    pub(super) fn unsettled(&self) -> usize {
        self.emitted.len()
    }

    /// The rows that went out since the last settling go through their
    /// keys' frames in the order they went out, each row's aggregates
    /// over its frame into the output. `column(c)` gives input column `c`
    /// of those rows.
    pub(super) fn settle(&mut self, column: impl Fn(usize) -> Result<ArrayRef>) -> Result<()> {
        if self.emitted.is_empty() {
            return Ok(());
        }
        let bound = self.bound;
        // Each row's number among its key's rows, and the slot it takes.
        let mut places = std::mem::take(&mut self.places);
        places.clear();
        for i in 0..self.emitted.len() {
            let block = self.block(self.emitted[i] as usize);
            let (added, slot) = (block[0], block[1] & !UNSETTLED);
            block[0] = added + 1;
            block[1] = if slot as usize + 1 == bound {
                0
            } else {
                slot + 1
            };
            places.push((added, slot as usize));
        }
        let (pages, width) = (&mut self.pages, self.width);
        let rows = Rows {
            keys: &self.emitted,
            places: &places,
            bound,
        };
        for part in &mut self.parts {
            let span = part.span(bound);
            match part {
                Part::Sum {
                    arg, average, out, ..
                } => {
                    let Numeric::Double(values) = Numeric::of(&column(*arg)?) else {
                        return Err(Error::Internal("a DOUBLE sum of another type".into()));
                    };
                    rows.sums(pages, width, span, &values, *average, out);
                }
                Part::IntegerSum { arg, out, .. } => match Numeric::of(&column(*arg)?) {
                    Numeric::Int8(a) => rows.integer_sums(pages, width, span, &a, out),
                    Numeric::Int16(a) => rows.integer_sums(pages, width, span, &a, out),
                    Numeric::Int32(a) => rows.integer_sums(pages, width, span, &a, out),
                    Numeric::Int64(a) => rows.integer_sums(pages, width, span, &a, out),
                    _ => return Err(Error::Internal("an integer sum of another type".into())),
                },
                Part::Count { arg: None, out, .. } => {
                    // COUNT(*): the rows the frame holds.
                    out.extend(
                        places
                            .iter()
                            .map(|(added, _)| (*added + 1).min(bound as u64) as i64),
                    );
                }
                Part::Count {
                    arg: Some(arg),
                    out,
                    ..
                } => rows.counts(pages, width, span, column(*arg)?.as_ref(), out),
                Part::Extreme {
                    arg,
                    max,
                    wide,
                    out,
                    ..
                } => {
                    let ring = Ring::new(bound, *wide);
                    let max = *max;
                    // Each type's loop reads its values as they are held.
                    macro_rules! extremes {
                        ($values:expr, $widen:expr, $order:expr) => {
                            rows.extremes(
                                pages, width, span, ring, max, $values, $widen, $order, out,
                            )
                        };
                    }
                    match Numeric::of(&column(*arg)?) {
                        Numeric::Int8(a) => extremes!(&a, i128::from, same_order),
                        Numeric::Int16(a) => extremes!(&a, i128::from, same_order),
                        Numeric::Int32(a) => extremes!(&a, i128::from, same_order),
                        Numeric::Date(a) => extremes!(&a, i128::from, same_order),
                        Numeric::Time(a) => extremes!(&a, i128::from, same_order),
                        Numeric::Int64(a) => extremes!(&a, i128::from, same_order),
                        Numeric::Timestamp(a) => extremes!(&a, i128::from, same_order),
                        Numeric::Decimal(a) => extremes!(&a, |v| v, same_order),
                        Numeric::Double(a) => {
                            extremes!(&a, |v: f64| v.to_bits() as i128, double_order)
                        }
                        Numeric::Other(ty) => {
                            return Err(Error::Internal(format!("a MIN/MAX queue over {ty}")))
                        }
                    }
                }
            }
        }
        self.emitted.clear();
        self.places = places;
        Ok(())
    }

    /// The aggregates of the rows emitted since the last build, in the
    /// order of the calls (the vectors keep their room for the next).
    pub(super) fn arrays(&mut self) -> Result<Vec<ArrayRef>> {
        self.parts
            .iter_mut()
            .map(|part| -> Result<ArrayRef> {
                Ok(match part {
                    Part::Sum { out, .. } => {
                        let array = Float64Array::from_iter(out.iter().copied());
                        out.clear();
                        Arc::new(array)
                    }
                    Part::Count { out, .. } => {
                        let array = Int64Array::from_iter_values(out.iter().copied());
                        out.clear();
                        Arc::new(array)
                    }
                    // An integer sum wrapped in 64 bits is taken modulo its
                    // type's width as the raw values are, as the type's own
                    // wrapping gives.
                    Part::IntegerSum { ty, out, .. } | Part::Extreme { ty, out, .. } => {
                        let array = raw_array(ty, out)?;
                        out.clear();
                        array
                    }
                })
            })
            .collect()
    }

    /// Key `key` starts over, with nothing added.
    pub(super) fn forget(&mut self, key: usize) {
        if key < self.keys {
            self.block(key).fill(0);
        }
    }

    pub(super) fn state_bytes(&self) -> u64 {
        self.pages
            .iter()
            .map(|p| (p.capacity() * size_of::<u64>()) as u64)
            .sum()
    }

    /// Writes each key's frame as it stands, oldest first: its rows so
    /// far, then per aggregate a sum (bits, count, whether started) and
    /// its frame's values, or the extreme's candidates. What a block holds
    /// beyond them (emptied slots) is left out: equal state, equal bytes.
    pub(super) fn save(&self, w: &mut StateWriter) {
        w.u64(self.keys as u64);
        let empty = vec![0; self.width];
        for key in 0..self.keys {
            let block = self.block_of(key).unwrap_or(&empty);
            let added = block[0];
            w.u64(added);
            let held = added.min(self.bound as u64);
            for part in &self.parts {
                let words = &block[part.span(self.bound)];
                match part {
                    Part::Sum { .. } => {
                        w.u64(words[0]);
                        w.u64(words[1]);
                        w.put(&(words[2] & STARTED != 0));
                        for k in added - held..added {
                            let slot = (k % self.bound as u64) as usize;
                            let value = (words[2] & 1 << slot != 0)
                                .then(|| f64::from_bits(words[SUM_HEAD + slot]));
                            w.put(&value);
                        }
                    }
                    Part::IntegerSum { .. } => {
                        w.u64(words[0]);
                        w.u64(words[1]);
                        for k in added - held..added {
                            let slot = (k % self.bound as u64) as usize;
                            let value = (words[2] & 1 << slot != 0)
                                .then_some(words[SUM_HEAD + slot] as i64);
                            w.put(&value);
                        }
                    }
                    Part::Count { arg: None, .. } => {}
                    Part::Count { .. } => {
                        w.u64(words[0]);
                        for k in added - held..added {
                            let slot = (k % self.bound as u64) as usize;
                            w.put(&(words[1] & 1 << slot != 0));
                        }
                    }
                    Part::Extreme { wide, .. } => {
                        let ring = Ring::new(self.bound, *wide);
                        let (head, len) = ring.head_len(words);
                        w.u64(len as u64);
                        for i in 0..len {
                            let e = ring.entry(ring.wrap(head + i));
                            w.u64(words[e]);
                            w.put(&ring.value(words, e));
                        }
                    }
                }
            }
        }
    }

    /// Reads what [`Blocks::save`] wrote into these (empty) blocks.
    pub(super) fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let keys = r.count()?;
        let bound = self.bound;
        for key in 0..keys {
            let mut block = vec![0; self.width];
            let added = r.u64()?;
            block[0] = added;
            block[1] = added % bound as u64;
            let held = added.min(bound as u64);
            for part in &self.parts {
                let words = &mut block[part.span(bound)];
                match part {
                    Part::Sum { .. } => {
                        words[0] = r.u64()?;
                        words[1] = r.u64()?;
                        if r.get::<bool>()? {
                            words[2] |= STARTED;
                        }
                        for k in added - held..added {
                            let slot = (k % bound as u64) as usize;
                            if let Some(v) = r.get::<Option<f64>>()? {
                                words[2] |= 1 << slot;
                                words[SUM_HEAD + slot] = v.to_bits();
                            }
                        }
                    }
                    Part::IntegerSum { .. } => {
                        words[0] = r.u64()?;
                        words[1] = r.u64()?;
                        for k in added - held..added {
                            let slot = (k % bound as u64) as usize;
                            if let Some(v) = r.get::<Option<i64>>()? {
                                words[2] |= 1 << slot;
                                words[SUM_HEAD + slot] = v as u64;
                            }
                        }
                    }
                    Part::Count { arg: None, .. } => {}
                    Part::Count { .. } => {
                        words[0] = r.u64()?;
                        for k in added - held..added {
                            if r.get::<bool>()? {
                                words[1] |= 1 << (k % bound as u64);
                            }
                        }
                    }
                    Part::Extreme { wide, .. } => {
                        let ring = Ring::new(bound, *wide);
                        let len = r.count()?;
                        if len > bound {
                            return Err(tidemark_engine::snapshot::corrupt(
                                "more MIN/MAX candidates than an OVER frame holds",
                            ));
                        }
                        for i in 0..len {
                            let e = ring.entry(i);
                            words[e] = r.u64()?;
                            ring.set_value(words, e, r.get()?);
                        }
                        ring.set_head_len(words, 0, len);
                    }
                }
            }
            self.block(key).copy_from_slice(&block);
        }
        Ok(())
    }
}

/// The rows being settled: their keys, and each one's number among its
/// key's rows and slot.
struct Rows<'a> {
    keys: &'a [u32],
    places: &'a [(u64, usize)],
    bound: usize,
}

impl Rows<'_> {
    /// Calls `step` for each row in turn with its number among the rows,
    /// words `span` of its key's block in `pages` (of blocks of `width`
    /// words), its number among its key's rows and its slot.
    #[inline(always)]
    fn each(
        &self,
        pages: &mut [Vec<u64>],
        width: usize,
        span: Range<usize>,
        mut step: impl FnMut(usize, &mut [u64], u64, usize),
    ) {
        for (row, (key, (added, slot))) in self.keys.iter().zip(self.places).enumerate() {
            step(
                row,
                &mut block_mut(pages, width, *key)[span.clone()],
                *added,
                *slot,
            );
        }
    }

    /// Whether a row that is its key's `added`-th fills a full frame, so
    /// that the row in its slot leaves.
    fn full(&self, added: u64) -> bool {
        added >= self.bound as u64
    }

    /// A DOUBLE SUM or AVG in words `span` of each row's block over
    /// `values`.
    fn sums(
        &self,
        pages: &mut [Vec<u64>],
        width: usize,
        span: Range<usize>,
        values: &Float64Array,
        average: bool,
        out: &mut Vec<Option<f64>>,
    ) {
        self.each(pages, width, span, |row, words, added, slot| {
            let value = values.is_valid(row).then(|| values.value(row));
            out.push(sum_step(words, slot, self.full(added), value, average));
        });
    }

    /// A SUM of an integer type in words `span` of each row's block over
    /// `values`, in 64 bits that wrap.
    fn integer_sums<T: ArrowPrimitiveType>(
        &self,
        pages: &mut [Vec<u64>],
        width: usize,
        span: Range<usize>,
        values: &PrimitiveArray<T>,
        out: &mut Vec<Option<i128>>,
    ) where
        T::Native: Into<i64>,
    {
        self.each(pages, width, span, |row, words, added, slot| {
            let value = values.is_valid(row).then(|| values.value(row).into());
            let sum = integer_sum_step(words, slot, self.full(added), value);
            out.push(sum.map(i128::from));
        });
    }

    /// A COUNT(x) in words `span` of each row's block over `values`.
    fn counts(
        &self,
        pages: &mut [Vec<u64>],
        width: usize,
        span: Range<usize>,
        values: &dyn Array,
        out: &mut Vec<i64>,
    ) {
        self.each(pages, width, span, |row, words, added, slot| {
            let bit = 1 << slot;
            if self.full(added) && words[1] & bit != 0 {
                words[0] -= 1;
            }
            if values.is_valid(row) {
                words[0] += 1;
                words[1] |= bit;
            } else {
                words[1] &= !bit;
            }
            out.push(words[0] as i64);
        });
    }

    /// A MIN or MAX queue in words `span` of each row's block over
    /// `values`, each widened to i128 by `widen` and compared by `order`.
    #[allow(clippy::too_many_arguments)]
    fn extremes<T: ArrowPrimitiveType>(
        &self,
        pages: &mut [Vec<u64>],
        width: usize,
        span: Range<usize>,
        ring: Ring,
        max: bool,
        values: &PrimitiveArray<T>,
        widen: impl Fn(T::Native) -> i128,
        order: impl Fn(i128) -> i128 + Copy,
        out: &mut Vec<Option<i128>>,
    ) {
        self.each(pages, width, span, |row, words, added, _| {
            let value = values.is_valid(row).then(|| widen(values.value(row)));
            out.push(ring.step(words, added, value, max, order));
        });
    }
}

/// Key `key`'s block in `pages` of blocks of `width` words, made room for
/// by [`Blocks::block`].
#[inline(always)]
fn block_mut(pages: &mut [Vec<u64>], width: usize, key: u32) -> &mut [u64] {
    let key = key as usize;
    let at = (key & ((1 << PAGE_BITS) - 1)) * width;
    &mut pages[key >> PAGE_BITS][at..at + width]
}

/// Words of a MIN/MAX queue entry: its row number and its value.
fn entry_words(wide: bool) -> usize {
    if wide {
        3
    } else {
        2
    }
}

/// Values other than DOUBLE compare as numbers.
fn same_order(raw: i128) -> i128 {
    raw
}

/// Row `value` joins a SUM/AVG's frame at slot `slot`, after the row there
/// leaves it if the frame is `full`: Flink's order, which a DOUBLE sum's
/// result depends on. Returns the aggregate over the frame.
#[inline(always)]
fn sum_step(
    words: &mut [u64],
    slot: usize,
    full: bool,
    value: Option<f64>,
    average: bool,
) -> Option<f64> {
    let mut sum = f64::from_bits(words[0]);
    let mut count = words[1] as i64;
    let mut mask = words[2];
    let bit = 1 << slot;
    if full && mask & bit != 0 {
        sum -= f64::from_bits(words[SUM_HEAD + slot]);
        count -= 1;
    }
    match value {
        Some(v) => {
            sum = if mask & STARTED != 0 {
                sum + v
            } else if average {
                0.0 + v
            } else {
                v
            };
            mask |= STARTED | bit;
            count += 1;
            words[SUM_HEAD + slot] = v.to_bits();
        }
        None => {
            mask &= !bit;
            words[SUM_HEAD + slot] = 0;
        }
    }
    words[0] = sum.to_bits();
    words[1] = count as u64;
    words[2] = mask;
    match (count, average) {
        (0, _) => None,
        (_, true) => Some(sum / count as f64),
        (_, false) => Some(sum),
    }
}

/// Row `value` joins an integer SUM's frame at slot `slot`, after the row
/// there leaves it if the frame is `full`. Returns the sum over the frame
/// (NULL when it holds no value), wrapped in 64 bits.
#[inline(always)]
fn integer_sum_step(words: &mut [u64], slot: usize, full: bool, value: Option<i64>) -> Option<i64> {
    let (mut sum, mut count, mut mask) = (words[0] as i64, words[1], words[2]);
    let bit = 1 << slot;
    if full && mask & bit != 0 {
        sum = sum.wrapping_sub(words[SUM_HEAD + slot] as i64);
        count -= 1;
    }
    match value {
        Some(v) => {
            sum = sum.wrapping_add(v);
            count += 1;
            mask |= bit;
            words[SUM_HEAD + slot] = v as u64;
        }
        None => {
            mask &= !bit;
            words[SUM_HEAD + slot] = 0;
        }
    }
    (words[0], words[1], words[2]) = (sum as u64, count, mask);
    (count > 0).then_some(sum)
}

/// The argument of `call` and its type, if it is a SUM (not DISTINCT) of
/// TINYINT to BIGINT: its result does not depend on the order values
/// come and go in.
fn integer_sum_call(call: &AggregateCall) -> Option<(usize, SqlType)> {
    let ty = call.arg_type.as_ref()?;
    let integer = matches!(
        ty,
        SqlType::TinyInt | SqlType::SmallInt | SqlType::Int | SqlType::BigInt
    );
    let sum = call.func == AggregateFunction::Sum && !call.distinct && integer;
    Some((call.arg.filter(|_| sum)?, ty.clone()))
}

/// The argument of `call` (none for COUNT(*)), if it is a COUNT, not
/// DISTINCT.
fn count_call(call: &AggregateCall) -> Option<Option<usize>> {
    match call.func {
        AggregateFunction::CountStar => Some(None),
        AggregateFunction::Count if !call.distinct => Some(Some(call.arg?)),
        _ => None,
    }
}

/// Where a MIN/MAX queue's entries are in its words: a header word (head
/// in bits 0-7, length in bits 8-15), then `bound` entries in a ring.
#[derive(Clone, Copy)]
struct Ring {
    bound: usize,
    wide: bool,
}

impl Ring {
    fn new(bound: usize, wide: bool) -> Self {
        Ring { bound, wide }
    }

    #[inline(always)]
    fn head_len(self, words: &[u64]) -> (usize, usize) {
        ((words[0] & 0xff) as usize, (words[0] >> 8 & 0xff) as usize)
    }

    #[inline(always)]
    fn set_head_len(self, words: &mut [u64], head: usize, len: usize) {
        words[0] = (head | len << 8) as u64;
    }

    #[inline(always)]
    fn wrap(self, i: usize) -> usize {
        if i >= self.bound {
            i - self.bound
        } else {
            i
        }
    }

    /// The first word of ring entry `i`: its row number.
    #[inline(always)]
    fn entry(self, i: usize) -> usize {
        1 + i * entry_words(self.wide)
    }

    #[inline(always)]
    fn value(self, words: &[u64], e: usize) -> i128 {
        if self.wide {
            (words[e + 1] as u128 | (words[e + 2] as u128) << 64) as i128
        } else {
            // Values other than DECIMAL fit in 64 bits.
            words[e + 1] as i64 as i128
        }
    }

    #[inline(always)]
    fn set_value(self, words: &mut [u64], e: usize, raw: i128) {
        if self.wide {
            words[e + 1] = raw as u128 as u64;
            words[e + 2] = (raw as u128 >> 64) as u64;
        } else {
            words[e + 1] = raw as i64 as u64;
        }
    }

    /// Row number `position` with `raw` joins the frame: candidates before
    /// the frame's first row leave, then those `raw` is more extreme than
    /// (by `order`; equal ones stay, the oldest being the answer). Returns
    /// the extreme over the frame.
    #[inline(always)]
    fn step(
        self,
        words: &mut [u64],
        position: u64,
        raw: Option<i128>,
        max: bool,
        order: impl Fn(i128) -> i128,
    ) -> Option<i128> {
        let (mut head, mut len) = self.head_len(words);
        let first = position.saturating_sub(self.bound as u64 - 1);
        while len > 0 && words[self.entry(head)] < first {
            head = self.wrap(head + 1);
            len -= 1;
        }
        if let Some(raw) = raw {
            let rank = order(raw);
            while len > 0 {
                let o = order(self.value(words, self.entry(self.wrap(head + len - 1))));
                if (max && o < rank) || (!max && o > rank) {
                    len -= 1;
                } else {
                    break;
                }
            }
            let e = self.entry(self.wrap(head + len));
            words[e] = position;
            self.set_value(words, e, raw);
            len += 1;
        }
        self.set_head_len(words, head, len);
        (len > 0).then(|| self.value(words, self.entry(head)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A SUM of a ROWS 2 frame: the leaving row goes before the new one
    /// comes, NULLs hold a slot and no value, the sum stays started.
    #[test]
    fn a_sum_retracts_the_leaving_row_first() {
        let mut words = vec![0; SUM_HEAD + 3];
        let steps = [Some(1.0), None, Some(2.0), Some(4.0), None, None, None];
        let want = [
            Some(1.0),
            Some(1.0),
            Some(3.0),
            Some(6.0),
            Some(6.0),
            Some(4.0),
            None,
        ];
        for (k, (value, want)) in steps.into_iter().zip(want).enumerate() {
            let got = sum_step(&mut words, k % 3, k >= 3, value, false);
            assert_eq!(got, want, "row {k}");
        }
        assert_eq!(words[2], STARTED, "started, no slot holding a value");
        // Started with nothing held, the next value adds to the sum left
        // (4.0 - 4.0), as Flink's retracting sum does: 0.0 + -0.0 is 0.0,
        // where a sum not yet started would take -0.0 as it is.
        let got = sum_step(&mut words, 1, true, Some(-0.0), false);
        assert_eq!(got.map(f64::to_bits), Some(0.0f64.to_bits()));
    }

    /// A MAX queue over ROWS 2 (three rows) of DOUBLEs: the frame's
    /// largest by Java's order, NaN above all and -0.0 below 0.0.
    #[test]
    fn a_max_queue_follows_its_frame() {
        let ring = Ring::new(3, false);
        let mut words = vec![0; 1 + 3 * 2];
        let values = [0.0, -0.0, 5.0, f64::NAN, 1.0, 2.0, 3.0, -1.0];
        let mut got = Vec::new();
        for (k, v) in values.iter().enumerate() {
            let raw = Some(v.to_bits() as i128);
            let top = ring.step(&mut words, k as u64, raw, true, double_order);
            got.push(top.map(|t| f64::from_bits(t as u64)));
        }
        let want: Vec<f64> = (0..values.len())
            .map(|k| {
                let frame = &values[k.saturating_sub(2)..=k];
                *frame
                    .iter()
                    .max_by(|a, b| a.total_cmp(b))
                    .expect("a frame holds a row")
            })
            .collect();
        let bits = |v: &[Option<f64>]| v.iter().map(|v| v.map(f64::to_bits)).collect::<Vec<_>>();
        assert_eq!(
            bits(&got),
            bits(&want.into_iter().map(Some).collect::<Vec<_>>())
        );
    }
}
