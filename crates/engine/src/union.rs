//! `UNION ALL` of several tables: their rows interleaved into one stream,
//! deterministically, with the minimum of their watermarks.
//!
//! Rows are taken row by row from the input whose watermark is lowest (on
//! a tie, the input declared first) — the spec's rule, which keeps the
//! inputs aligned in event time and makes the result independent of batch
//! size and timing. Since the chosen input's watermark is the lowest, each
//! row keeps its own watermark as the union's. An input that has ended no
//! longer holds the watermark back. Each input first goes through its own
//! stateless steps (projection, filter) to the union's columns.

use crate::operator::Operator;
use crate::source::{SourceMetrics, TableSource};
use crate::stream::StreamItem;
use std::collections::VecDeque;
use tidemark_common::time::{FINAL_WATERMARK, NO_WATERMARK};
use tidemark_common::Result;

/// One input of a union: a table and the steps that shape its rows.
pub struct Branch {
    pub source: TableSource,
    pub operators: Vec<Box<dyn Operator>>,
    /// Items read but not yet taken (chunks and side items).
    queue: VecDeque<StreamItem>,
    /// The watermark after the rows taken so far (before the next row).
    watermark: i64,
    ended: bool,
}

impl Branch {
    pub fn new(source: TableSource, operators: Vec<Box<dyn Operator>>) -> Self {
        Branch {
            source,
            operators,
            queue: VecDeque::new(),
            watermark: NO_WATERMARK,
            ended: false,
        }
    }

    /// The watermark in force before this input's next item.
    fn next_watermark(&self) -> i64 {
        match self.queue.front() {
            Some(StreamItem::Chunk(c)) => c.watermarks[0],
            _ => self.watermark,
        }
    }

    /// Reads until an item is queued, the input ends or has nothing for
    /// now; watermark items are applied as they come.
    fn fill(&mut self) -> Result<()> {
        let mut items = Vec::new();
        while self.queue.is_empty() && !self.ended {
            if !self.source.next_items(&mut items)? {
                self.ended = true;
            }
            if items.is_empty() {
                // An unbounded input with nothing for now: the union waits
                // on it (its watermark may be the lowest) without blocking.
                break;
            }
            for item in items.drain(..) {
                match item {
                    StreamItem::Watermark(w) if self.queue.is_empty() => {
                        self.watermark = self.watermark.max(w)
                    }
                    StreamItem::End => self.ended = true,
                    other => self.queue.push_back(other),
                }
            }
        }
        // Watermarks queued behind rows are applied when reached.
        while let Some(StreamItem::Watermark(w)) = self.queue.front() {
            self.watermark = self.watermark.max(*w);
            self.queue.pop_front();
        }
        Ok(())
    }

    /// Whether rows may still come from this input.
    fn live(&self) -> bool {
        !self.ended || !self.queue.is_empty()
    }

    /// Runs items through this input's steps.
    fn shape(&mut self, item: StreamItem, out: &mut Vec<StreamItem>) -> Result<()> {
        let mut items = vec![item];
        let mut next = Vec::new();
        for op in &mut self.operators {
            for item in items.drain(..) {
                op.process(item, &mut next)?;
            }
            std::mem::swap(&mut items, &mut next);
        }
        out.append(&mut items);
        Ok(())
    }
}

pub struct UnionSource {
    branches: Vec<Branch>,
    /// Whether each chunk says which input it is (a window join's inputs).
    tagged: bool,
    /// The union's watermark downstream has been told.
    told: i64,
    done: bool,
}

impl UnionSource {
    /// Ends every input here (a drained stop); rows already read still
    /// go out in watermark order.
    pub fn stop_input(&mut self) {
        self.branches.iter_mut().for_each(|b| b.source.stop_input());
    }

    pub fn new(branches: Vec<Branch>) -> Self {
        UnionSource {
            branches,
            tagged: false,
            told: NO_WATERMARK,
            done: false,
        }
    }

    /// Two inputs of one operator (a window join): rows interleaved as a
    /// union's, each chunk tagged with its input.
    pub fn tagged(branches: Vec<Branch>) -> Self {
        UnionSource {
            tagged: true,
            ..Self::new(branches)
        }
    }

    pub fn branches_mut(&mut self) -> impl Iterator<Item = &mut Branch> {
        self.branches.iter_mut()
    }

    pub fn metrics(&self) -> Vec<SourceMetrics> {
        self.branches.iter().map(|b| b.source.metrics()).collect()
    }

    /// The next items: a run of rows from the input with the lowest
    /// watermark (or a side item), then the union's watermark if it rose;
    /// at the end the final watermark and `End`. False once `End` was
    /// returned.
    pub fn next_items(&mut self, out: &mut Vec<StreamItem>) -> Result<bool> {
        if self.done {
            return Ok(false);
        }
        for b in &mut self.branches {
            b.fill()?;
        }
        let lowest = self
            .branches
            .iter()
            .enumerate()
            .filter(|(_, b)| b.live())
            .min_by_key(|(i, b)| (b.next_watermark(), *i))
            .map(|(i, _)| i);
        let Some(i) = lowest else {
            self.done = true;
            for b in &mut self.branches {
                b.shape(StreamItem::Watermark(FINAL_WATERMARK), out)?;
                b.shape(StreamItem::End, &mut Vec::new())?;
            }
            out.retain(|item| !matches!(item, StreamItem::Watermark(_)));
            out.push(StreamItem::Watermark(FINAL_WATERMARK));
            out.push(StreamItem::End);
            return Ok(true);
        };
        // The others' lowest watermark, and whether they win a tie.
        let rival = self
            .branches
            .iter()
            .enumerate()
            .filter(|(j, b)| *j != i && b.live())
            .map(|(j, b)| (b.next_watermark(), j))
            .min();
        let branch = &mut self.branches[i];
        match branch.queue.pop_front() {
            Some(StreamItem::Chunk(chunk)) => {
                // Rows while this input stays the lowest.
                let take = match rival {
                    None => chunk.num_rows(),
                    Some((w, j)) => chunk.watermarks.partition_point(|x| (*x, i) < (w, j)),
                }
                .max(1);
                if take < chunk.num_rows() {
                    let rest = chunk.slice(take, chunk.num_rows() - take);
                    branch.queue.push_front(StreamItem::Chunk(rest));
                    // The rows taken lift this input's watermark to the
                    // one the next row meets.
                    branch.watermark = branch.watermark.max(rest_watermark(&branch.queue));
                }
                let run = if take < chunk.num_rows() {
                    chunk.slice(0, take)
                } else {
                    chunk
                };
                let from = out.len();
                branch.shape(StreamItem::Chunk(run), out)?;
                if self.tagged {
                    for item in &mut out[from..] {
                        if let StreamItem::Chunk(c) = item {
                            c.input = i as u8;
                        }
                    }
                }
            }
            Some(side @ StreamItem::Side(_)) => branch.shape(side, out)?,
            Some(StreamItem::Watermark(w)) => branch.watermark = branch.watermark.max(w),
            Some(StreamItem::End) | None => {}
        }
        // Watermarks of the steps are not the union's: it tells its own.
        out.retain(|item| !matches!(item, StreamItem::Watermark(_)));
        for b in &mut self.branches {
            b.fill()?;
        }
        let union_watermark = self
            .branches
            .iter()
            .filter(|b| b.live())
            .map(Branch::next_watermark)
            .min()
            .unwrap_or(FINAL_WATERMARK);
        if union_watermark > self.told && union_watermark != FINAL_WATERMARK {
            self.told = union_watermark;
            out.push(StreamItem::Watermark(union_watermark));
        }
        Ok(true)
    }
}

fn rest_watermark(queue: &VecDeque<StreamItem>) -> i64 {
    match queue.front() {
        Some(StreamItem::Chunk(c)) => c.watermarks[0],
        _ => NO_WATERMARK,
    }
}
