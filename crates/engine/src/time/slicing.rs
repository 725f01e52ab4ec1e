//! How aligned windows (TUMBLE, HOP, CUMULATE) cut time into slices.
//!
//! A slice is a stretch of time whose rows belong to exactly the same
//! windows: the window itself for TUMBLE, one slide for HOP, one step for
//! CUMULATE. Window state is kept per slice, so a row is added once however
//! many windows it is in, and a window is the merge of its slices.

use super::last_instant;
use tidemark_common::time::window_start;
use tidemark_common::window::WindowKind;
use tidemark_common::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slicing {
    Tumble {
        size: i64,
        offset: i64,
    },
    Hop {
        size: i64,
        slide: i64,
        offset: i64,
    },
    Cumulate {
        max_size: i64,
        step: i64,
        offset: i64,
    },
}

impl Slicing {
    pub fn new(kind: WindowKind) -> Result<Self> {
        let slicing = match kind {
            WindowKind::Tumble { size, offset } => Slicing::Tumble { size, offset },
            WindowKind::Hop {
                slide,
                size,
                offset,
            } => Slicing::Hop {
                size,
                slide,
                offset,
            },
            WindowKind::Cumulate {
                step,
                max_size,
                offset,
            } => Slicing::Cumulate {
                max_size,
                step,
                offset,
            },
            WindowKind::Session { .. } => {
                return Err(Error::Internal("SESSION windows cannot be sliced".into()))
            }
        };
        let (size, unit) = (slicing.size(), slicing.unit());
        if unit <= 0 || size <= 0 || size % unit != 0 {
            return Err(Error::Internal(format!("invalid window shape {kind}")));
        }
        Ok(slicing)
    }

    /// The length of a slice, which is also the distance between window
    /// boundaries.
    pub fn unit(&self) -> i64 {
        match *self {
            Slicing::Tumble { size, .. } => size,
            Slicing::Hop { slide, .. } => slide,
            Slicing::Cumulate { step, .. } => step,
        }
    }

    /// The longest window's length.
    pub fn size(&self) -> i64 {
        match *self {
            Slicing::Tumble { size, .. } | Slicing::Hop { size, .. } => size,
            Slicing::Cumulate { max_size, .. } => max_size,
        }
    }

    pub fn offset(&self) -> i64 {
        match *self {
            Slicing::Tumble { offset, .. }
            | Slicing::Hop { offset, .. }
            | Slicing::Cumulate { offset, .. } => offset,
        }
    }

    /// The end of the slice that holds `ts`.
    pub fn slice_end(&self, ts: i64) -> i64 {
        self.slice_bounds(ts).1
    }

    /// The start and end of the slice that holds `ts` (the end saturates
    /// at the end of time).
    pub fn slice_bounds(&self, ts: i64) -> (i64, i64) {
        let start = window_start(ts, self.offset(), self.unit());
        (start, start.saturating_add(self.unit()))
    }

    /// The end of the last window the slice ending at `slice_end` is in;
    /// the first one ends with the slice itself.
    pub fn last_window_end(&self, slice_end: i64) -> i64 {
        match *self {
            Slicing::Tumble { .. } => slice_end,
            Slicing::Hop { size, slide, .. } => {
                slice_end.saturating_sub(slide).saturating_add(size)
            }
            Slicing::Cumulate {
                max_size, offset, ..
            } => window_start(last_instant(slice_end), offset, max_size).saturating_add(max_size),
        }
    }

    /// The start of the window that ends at `window_end`.
    pub fn window_start(&self, window_end: i64) -> i64 {
        match *self {
            Slicing::Tumble { size, .. } | Slicing::Hop { size, .. } => {
                window_end.saturating_sub(size)
            }
            Slicing::Cumulate {
                max_size, offset, ..
            } => window_start(last_instant(window_end), offset, max_size),
        }
    }

    /// The ends of every window the slice ending at `slice_end` is in,
    /// earliest first.
    pub fn window_ends(&self, slice_end: i64) -> impl Iterator<Item = i64> {
        let last = self.last_window_end(slice_end);
        let unit = self.unit();
        let mut next = Some(slice_end);
        std::iter::from_fn(move || {
            let end = next?;
            next = end.checked_add(unit).filter(|n| *n <= last);
            Some(end)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_and_their_windows() -> Result<()> {
        let hop = Slicing::new(WindowKind::Hop {
            slide: 5,
            size: 15,
            offset: 0,
        })?;
        assert_eq!(hop.slice_end(7), 10);
        assert_eq!(hop.window_ends(10).collect::<Vec<_>>(), [10, 15, 20]);
        assert_eq!(hop.window_start(20), 5);
        let cumulate = Slicing::new(WindowKind::Cumulate {
            step: 2,
            max_size: 6,
            offset: 0,
        })?;
        assert_eq!(cumulate.slice_end(-1), 0);
        assert_eq!(cumulate.window_ends(2).collect::<Vec<_>>(), [2, 4, 6]);
        assert_eq!(cumulate.window_ends(6).collect::<Vec<_>>(), [6]);
        assert_eq!(cumulate.window_start(4), 0);
        assert_eq!(cumulate.window_ends(-2).collect::<Vec<_>>(), [-2, 0]);
        let tumble = Slicing::new(WindowKind::Tumble { size: 5, offset: 1 })?;
        assert_eq!(tumble.window_ends(6).collect::<Vec<_>>(), [6]);
        assert_eq!(tumble.window_start(6), 1);
        Ok(())
    }
}
