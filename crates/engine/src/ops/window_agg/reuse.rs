//! Merges kept from one window to the next, so that a window sharing most
//! of its slices with the window before is not merged anew from all of
//! them: a CUMULATE cycle's running merge, and two stacks of partial
//! merges for HOP.
//!
//! A HOP window a day long sliding by a minute has 1,440 slices, and each
//! fire merged them all for every key. With two stacks (the two-stack
//! queue of sliding-window aggregation), the front holds, for each of its
//! slices, the merge from that slice up to the front's last one; the back
//! holds the merge of the slices after it. A window is the front's merge
//! from its first slice combined with the back: about four slice merges
//! per fire however long the window, and when the front runs out the
//! back's slices become the new front, once per window length. This
//! regroups the merges, so it serves only when every aggregate's merge is
//! associative ([`Accumulator::merge_is_associative`]); DOUBLE sums and
//! LISTAGG keep merging every slice in Flink's order.
//!
//! A CUMULATE window is the one before it plus the slices since: the
//! running merge adds them oldest first, exactly as a fresh merge of the
//! window does, so every aggregate gives the same result to the bit.
//!
//! Both serve on-time fires only, which come in window-end order. A row
//! added to a slice they hold (a late row within the allowed lateness)
//! drops them, and the next fire builds them again from the slices; for
//! the same reason a checkpoint does not keep them.
//!
//! [`Accumulator::merge_is_associative`]: crate::ops::accumulators::Accumulator::merge_is_associative

use super::{Slice, WindowState};
use crate::time::slicing::Slicing;
use std::ops::Bound::{Excluded, Included};
use tidemark_common::Result;

/// HOP windows with fewer slices than this merge them all: the two
/// stacks cost about four merges a fire.
const MIN_SLICES_FOR_STACKS: i64 = 4;

/// What a window aggregation keeps between fires.
pub(super) enum Reuse {
    /// Every window merges its slices: TUMBLE (one slice a window), short
    /// HOP windows, and HOP with an aggregate whose merge is not
    /// associative.
    Nothing,
    /// CUMULATE: the running merge of the current cycle, if any.
    Running(Option<Box<Running>>),
    /// HOP with associative merges.
    Stacks(Box<TwoStacks>),
}

/// The merge of a CUMULATE cycle's slices up to the last window fired.
pub(super) struct Running {
    cycle_start: i64,
    /// The end of the last slice merged in (the last window's end).
    upto: i64,
    merged: Slice,
}

/// Partial merges of a HOP window's slices.
pub(super) struct TwoStacks {
    /// For each slice the front holds, oldest on top (last): its end, and
    /// the merge of it and every newer slice the front holds.
    front: Vec<(i64, Slice)>,
    /// The merge of the slices after the front's up to `back_end`.
    back: Option<Slice>,
    back_end: i64,
    /// The last window fired, when it needed the front and the back both.
    combined: Option<Slice>,
}

impl TwoStacks {
    fn new() -> Self {
        TwoStacks {
            front: Vec::new(),
            back: None,
            back_end: i64::MIN,
            combined: None,
        }
    }
}

impl Reuse {
    /// What a window aggregation of `slicing` keeps, given whether every
    /// aggregate's merge is associative.
    pub(super) fn new(slicing: Slicing, associative: bool) -> Self {
        match slicing {
            Slicing::Cumulate { .. } => Reuse::Running(None),
            Slicing::Hop { size, slide, .. }
                if associative && size / slide >= MIN_SLICES_FOR_STACKS =>
            {
                Reuse::Stacks(Box::new(TwoStacks::new()))
            }
            _ => Reuse::Nothing,
        }
    }

    /// The last slice end a kept merge holds.
    pub(super) fn horizon(&self) -> i64 {
        match self {
            Reuse::Nothing | Reuse::Running(None) => i64::MIN,
            Reuse::Running(Some(running)) => running.upto,
            Reuse::Stacks(stacks) => stacks.back_end,
        }
    }

    /// The window [`WindowState::advance_reuse`] made: None when it has
    /// no slices.
    pub(super) fn window(&self) -> Option<&Slice> {
        match self {
            Reuse::Nothing | Reuse::Running(None) => None,
            Reuse::Running(Some(running)) => Some(&running.merged),
            Reuse::Stacks(stacks) => stacks
                .combined
                .as_ref()
                .or(stacks.back.as_ref())
                .or(stacks.front.last().map(|(_, merged)| merged)),
        }
    }

    /// Every slice kept, for the state's size.
    pub(super) fn slices(&self) -> Vec<&Slice> {
        match self {
            Reuse::Nothing | Reuse::Running(None) => Vec::new(),
            Reuse::Running(Some(running)) => vec![&running.merged],
            Reuse::Stacks(stacks) => stacks
                .front
                .iter()
                .map(|(_, merged)| merged)
                .chain(&stacks.back)
                .chain(&stacks.combined)
                .collect(),
        }
    }

    /// A row was added to the slice ending at `slice_end`: a merge that
    /// holds that slice holds it no longer as it is, and is dropped.
    pub(super) fn slice_changed(&mut self, slice_end: i64) {
        if slice_end > self.horizon() {
            return;
        }
        match self {
            Reuse::Nothing => {}
            Reuse::Running(running) => *running = None,
            Reuse::Stacks(stacks) => **stacks = TwoStacks::new(),
        }
    }
}

impl WindowState {
    /// Whether the window ending at `window_end`, fired on time, comes
    /// from the merges kept: after this, [`Reuse::window`] is it.
    pub(super) fn advance_reuse(&mut self, window_end: i64) -> Result<bool> {
        let mut reuse = std::mem::replace(&mut self.reuse, Reuse::Nothing);
        let advanced = match &mut reuse {
            Reuse::Nothing => Ok(false),
            Reuse::Running(running) => self.advance_running(running, window_end).map(|_| true),
            Reuse::Stacks(stacks) => self.advance_stacks(stacks, window_end).map(|_| true),
        };
        self.reuse = reuse;
        advanced
    }

    /// The running merge through `window_end`: the slices since the last
    /// window of the same cycle added to it, oldest first, or the cycle's
    /// slices merged afresh.
    fn advance_running(&self, running: &mut Option<Box<Running>>, window_end: i64) -> Result<()> {
        let cycle_start = self.slicing.window_start(window_end);
        let current = running
            .take()
            .filter(|r| r.cycle_start == cycle_start && r.upto <= window_end);
        let mut r = match current {
            Some(r) => r,
            None => Box::new(Running {
                cycle_start,
                upto: cycle_start,
                merged: self.new_slice()?,
            }),
        };
        let mut pairs = Vec::new();
        for part in self
            .slices
            .range((Excluded(r.upto), Included(window_end)))
            .map(|(_, part)| part)
        {
            self.merge_into(&mut r.merged, part, false, None, &mut pairs)?;
        }
        r.upto = window_end;
        *running = Some(r);
        Ok(())
    }

    /// The two stacks moved on to the window ending at `window_end`: the
    /// front's merges of slices before the window popped, the front built
    /// from the back's slices when it ran out, the new slices added to the
    /// back, and the two combined when the window needs both.
    fn advance_stacks(&self, stacks: &mut TwoStacks, window_end: i64) -> Result<()> {
        let start = self.slicing.window_start(window_end);
        if stacks.back_end > window_end {
            // Windows fire in order; this is only a safeguard.
            *stacks = TwoStacks::new();
        }
        stacks.combined = None;
        while stacks
            .front
            .last()
            .is_some_and(|(first, _)| *first <= start)
        {
            stacks.front.pop();
        }
        let mut pairs = Vec::new();
        if stacks.front.is_empty() {
            // The back's slices in the window become the front: each
            // slice's merge with all after it, newest first so that the
            // oldest ends on top.
            let mut front: Vec<(i64, Slice)> = Vec::new();
            let held = (Excluded(start), Included(stacks.back_end.max(start)));
            for (end, part) in self.slices.range(held).rev() {
                let mut merged = self.new_slice()?;
                if let Some((_, newer)) = front.last() {
                    self.merge_into(&mut merged, newer, false, None, &mut pairs)?;
                }
                self.merge_into(&mut merged, part, true, None, &mut pairs)?;
                front.push((*end, merged));
            }
            stacks.front = front;
            stacks.back = None;
        }
        let after = stacks.back_end.max(start);
        for part in self
            .slices
            .range((Excluded(after), Included(window_end)))
            .map(|(_, part)| part)
        {
            if stacks.back.is_none() {
                stacks.back = Some(self.new_slice()?);
            }
            if let Some(back) = stacks.back.as_mut() {
                self.merge_into(back, part, false, None, &mut pairs)?;
            }
        }
        stacks.back_end = window_end;
        if let (Some(back), Some((_, front))) = (&stacks.back, stacks.front.last()) {
            let mut window = self.new_slice()?;
            self.merge_into(&mut window, back, false, None, &mut pairs)?;
            self.merge_into(&mut window, front, true, None, &mut pairs)?;
            stacks.combined = Some(window);
        }
        Ok(())
    }
}
