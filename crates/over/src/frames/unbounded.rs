//! Unbounded frames (`UNBOUNDED PRECEDING`): running accumulators per key,
//! and ROW_NUMBER, RANK, DENSE_RANK and LAG ([`Ranking`]), which only
//! take such a frame.

use super::{deque_bytes, Frames, Out};
use crate::store::{RowRef, Store};
use arrow::array::ArrayRef;
use std::collections::VecDeque;
use std::sync::Arc;
use tidemark_common::expr::AggregateCall;
use tidemark_common::expr::AggregateFunction;
use tidemark_common::window::FrameUnits;
use tidemark_common::{Error, Result};
use tidemark_engine::snapshot::{StateReader, StateWriter};

/// ROW_NUMBER, RANK/DENSE_RANK and LAG, which the OVER operator computes
/// itself, per key, as Flink does over a rowtime order (these take the
/// window's default frame: all rows up to the current rowtime).
pub(super) enum Ranking {
    /// 1, 2, 3, ... row by row, peers included.
    RowNumber { numbers: Vec<i64>, out: Vec<i64> },
    /// Flink's RANK and DENSE_RANK over rowtime: the key's rows up to the
    /// current rowtime, its peers included.
    Rank { counts: Vec<i64>, out: Vec<i64> },
    /// The argument `offset` rows before the last row at the current
    /// rowtime; where the key has no row that far back, the `default`
    /// column of the current row (NULL without one).
    Lag {
        arg: usize,
        offset: usize,
        default: Option<usize>,
        recent: Vec<VecDeque<RowRef>>,
        /// Per output row: the row `offset` back, and the row itself.
        out: Vec<(Option<RowRef>, RowRef)>,
    },
}

impl Ranking {
    pub(super) fn new(call: &AggregateCall) -> Result<Option<Self>> {
        Ok(Some(match call.func {
            AggregateFunction::RowNumber => Ranking::RowNumber {
                numbers: Vec::new(),
                out: Vec::new(),
            },
            AggregateFunction::Rank | AggregateFunction::DenseRank => Ranking::Rank {
                counts: Vec::new(),
                out: Vec::new(),
            },
            AggregateFunction::Lag => Ranking::Lag {
                arg: call
                    .arg
                    .ok_or_else(|| Error::Internal("LAG without argument".into()))?,
                offset: call.offset as usize,
                default: call.lag_default,
                recent: Vec::new(),
                out: Vec::new(),
            },
            _ => return Ok(None),
        }))
    }

    /// The rows `step` of key `key`, all at one rowtime, go out.
    /// Key `key` starts over: numbered from 1 again, LAG's rows leaving.
    pub(super) fn forget(&mut self, key: usize, leaving: &mut Vec<RowRef>) {
        match self {
            Ranking::RowNumber { numbers, .. } => {
                if let Some(n) = numbers.get_mut(key) {
                    *n = 0;
                }
            }
            Ranking::Rank { counts, .. } => {
                if let Some(n) = counts.get_mut(key) {
                    *n = 0;
                }
            }
            Ranking::Lag { recent, .. } => {
                if let Some(rows) = recent.get_mut(key) {
                    leaving.extend(rows.drain(..));
                }
            }
        }
    }

    pub(super) fn emit(
        &mut self,
        store: &mut Store,
        key: usize,
        step: &[RowRef],
        leaving: &mut Vec<RowRef>,
    ) {
        match self {
            Ranking::RowNumber { numbers, out } => {
                if numbers.len() <= key {
                    numbers.resize(key + 1, 0);
                }
                for _ in step {
                    numbers[key] += 1;
                    out.push(numbers[key]);
                }
            }
            Ranking::Rank { counts, out } => {
                if counts.len() <= key {
                    counts.resize(key + 1, 0);
                }
                counts[key] += step.len() as i64;
                out.extend(std::iter::repeat_n(counts[key], step.len()));
            }
            Ranking::Lag {
                offset,
                recent,
                out,
                ..
            } => {
                if recent.len() <= key {
                    recent.resize_with(key + 1, VecDeque::new);
                }
                let rows = &mut recent[key];
                for row in step {
                    store.retain(*row);
                    rows.push_back(*row);
                }
                while rows.len() > *offset + 1 {
                    if let Some(old) = rows.pop_front() {
                        leaving.push(old);
                    }
                }
                let back = (rows.len() > *offset).then(|| rows[rows.len() - 1 - *offset]);
                out.extend(step.iter().map(|row| (back, *row)));
            }
        }
    }

    /// The results since the last build.
    pub(super) fn array(&mut self, store: &Store) -> Result<ArrayRef> {
        Ok(match self {
            Ranking::RowNumber { out, .. } | Ranking::Rank { out, .. } => {
                Arc::new(arrow::array::Int64Array::from(std::mem::take(out)))
            }
            Ranking::Lag {
                arg, default, out, ..
            } => {
                let rows = std::mem::take(out);
                // Where there is no row that far back, the current row is
                // read in its place, then replaced by the default or NULL.
                let refs: Vec<RowRef> = rows
                    .iter()
                    .map(|(back, row)| back.unwrap_or(*row))
                    .collect();
                let values = store.column(&store.positions(&refs)?, *arg)?;
                let missing = arrow::array::BooleanArray::from_iter(
                    rows.iter().map(|(back, _)| Some(back.is_none())),
                );
                match default {
                    None => arrow::compute::nullif(&values, &missing)?,
                    Some(column) => {
                        let current: Vec<RowRef> = rows.iter().map(|(_, row)| *row).collect();
                        let defaults = store.column(&store.positions(&current)?, *column)?;
                        arrow::compute::kernels::zip::zip(&missing, &defaults, &values)?
                    }
                }
            }
        })
    }

    pub(super) fn state_bytes(&self) -> u64 {
        match self {
            Ranking::RowNumber { numbers, .. } => (numbers.capacity() * 8) as u64,
            Ranking::Rank { counts, .. } => (counts.capacity() * 8) as u64,
            Ranking::Lag { recent, .. } => deque_bytes(recent),
        }
    }

    pub(super) fn save(&self, w: &mut StateWriter) {
        match self {
            Ranking::RowNumber { numbers, .. } => w.put(numbers),
            Ranking::Rank { counts, .. } => w.put(counts),
            Ranking::Lag { recent, .. } => w.put(recent),
        }
    }

    pub(super) fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        match self {
            Ranking::RowNumber { numbers, .. } => *numbers = r.get()?,
            Ranking::Rank { counts, .. } => *counts = r.get()?,
            Ranking::Lag { recent, .. } => *recent = r.get()?,
        }
        Ok(())
    }
}

impl Frames {
    /// UNBOUNDED: running accumulators; ROWS sees the rows before each row
    /// and itself, RANGE gives every row at this rowtime all of them.
    pub(super) fn emit_unbounded(
        &mut self,
        store: &mut Store,
        out: &Out,
        rows: &[RowRef],
    ) -> Result<()> {
        let key = out.key as usize;
        if self.unbounded_group.len() <= key {
            self.unbounded_group.resize(key + 1, None);
        }
        let group = match self.unbounded_group[key] {
            Some(g) => g,
            None => {
                let g = self.unbounded_groups;
                self.unbounded_groups += 1;
                self.unbounded_group[key] = Some(g);
                g
            }
        };
        let steps: Vec<&[RowRef]> = match self.frame.units {
            FrameUnits::Rows => rows.chunks(1).collect(),
            FrameUnits::Range => vec![rows],
        };
        for step in steps {
            for (acc, call) in self.unbounded.iter_mut().zip(&self.aggregates) {
                let Some(acc) = acc else { continue };
                for row in step {
                    let value = call.arg.map(|c| store.value(*row, c)).transpose()?;
                    acc.update(value.as_ref(), &[0], &[group])?;
                }
            }
            for (values, acc) in self.values.iter_mut().zip(&self.unbounded) {
                let Some(acc) = acc else { continue };
                let value = acc.evaluate(&[group])?;
                for _ in step {
                    values.push(value.clone());
                }
            }
            for rank in self.ranking.iter_mut().flatten() {
                rank.emit(store, key, step, &mut self.leaving);
            }
            for row in step {
                self.push_row(*row, out.watermark);
            }
        }
        Ok(())
    }
}
