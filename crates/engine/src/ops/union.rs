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

use crate::connectors::source::{SourceMetrics, TableSource};
use crate::ops::operator::Operator;
use crate::runtime::snapshot::{corrupt, get_batch, put_batch, StateReader, StateWriter};
use crate::runtime::stream::{BadRow, BadRows, Chunk, Origin, SideItem, SourceTable, StreamItem};
use std::collections::VecDeque;
use std::sync::Arc;
use tidemark_common::time::{FINAL_WATERMARK, NO_WATERMARK};
use tidemark_common::{Error, Result};

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

    /// Writes the input's state for a checkpoint: its source, its steps,
    /// the items read but not yet taken, its watermark.
    fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        w.section(|w| self.source.save_state(w))?;
        for op in &self.operators {
            w.section(|w| op.save_state(w))?;
        }
        w.u64(self.queue.len() as u64);
        for item in &self.queue {
            save_item(w, item)?;
        }
        w.put(&self.watermark);
        w.put(&self.ended);
        Ok(())
    }

    fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let mut source = r.section()?;
        self.source.load_state(&mut source)?;
        source.finish()?;
        for op in &mut self.operators {
            let mut section = r.section()?;
            op.load_state(&mut section)?;
            section.finish()?;
        }
        let n = r.count()?;
        let table = self.source.origin_table();
        for _ in 0..n {
            self.queue.push_back(load_item(r, table.as_ref())?);
        }
        self.watermark = r.get()?;
        self.ended = r.get()?;
        Ok(())
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

    /// Why the union cannot be checkpointed, if it cannot.
    pub fn checkpoint_blocker(&self) -> Option<Error> {
        self.branches.iter().find_map(|b| {
            b.source.checkpoint_blocker().or_else(|| {
                b.operators
                    .iter()
                    .find_map(|op| op.save_state(&mut StateWriter::new()).err())
            })
        })
    }

    /// Whether every input stands between two batches.
    pub fn at_checkpoint_point(&self) -> bool {
        self.branches.iter().all(|b| b.source.at_checkpoint_point())
    }

    pub fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.branches.len() as u64);
        for b in &self.branches {
            b.save_state(w)?;
        }
        w.put(&self.told);
        w.put(&self.done);
        Ok(())
    }

    pub fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        if r.count()? != self.branches.len() {
            return Err(corrupt("it holds another number of inputs"));
        }
        for b in &mut self.branches {
            b.load_state(r)?;
        }
        self.told = r.get()?;
        self.done = r.get()?;
        Ok(())
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

/// Writes an item read from a source and not yet taken.
fn save_item(w: &mut StateWriter, item: &StreamItem) -> Result<()> {
    match item {
        StreamItem::Chunk(chunk) if chunk.kinds.is_none() && chunk.input == 0 => {
            w.u8(0);
            put_batch(w, &chunk.batch)?;
            w.put(&chunk.watermarks);
            match &chunk.origin {
                None => w.put(&false),
                Some(origin) => {
                    w.put(&true);
                    put_batch(w, &origin.batch)?;
                    w.put(&origin.rows);
                }
            }
        }
        StreamItem::Watermark(watermark) => {
            w.u8(1);
            w.put(watermark);
        }
        StreamItem::Side(SideItem::Bad(bad)) => {
            w.u8(2);
            w.put(&bad.source);
            w.put(&bad.file);
            w.u64(bad.rows.len() as u64);
            for row in &bad.rows {
                w.put(&row.line);
                w.put(&row.raw);
                w.put(&row.error);
            }
        }
        other => {
            return Err(Error::Internal(format!(
                "a checkpoint of a union holding {other:?}"
            )))
        }
    }
    Ok(())
}

/// Reads what [`save_item`] wrote; `table`: the source table chunks name
/// as their rows' origin.
fn load_item(r: &mut StateReader<'_>, table: Option<&Arc<SourceTable>>) -> Result<StreamItem> {
    Ok(match r.u8()? {
        0 => {
            let batch = get_batch(r)?;
            let watermarks: Vec<i64> = r.get()?;
            if watermarks.len() != batch.num_rows() || batch.num_rows() == 0 {
                return Err(corrupt("queued rows and their watermarks differ"));
            }
            let mut chunk = Chunk::new(batch, watermarks);
            if r.get::<bool>()? {
                let batch = get_batch(r)?;
                let rows = r.get()?;
                let table = table
                    .cloned()
                    .ok_or_else(|| corrupt("queued rows name a source that keeps none"))?;
                chunk.origin = Some(Origin { batch, rows, table });
            }
            StreamItem::Chunk(chunk)
        }
        1 => StreamItem::Watermark(r.get()?),
        2 => {
            let source = r.get()?;
            let file = r.get()?;
            let n = r.count()?;
            let mut rows = Vec::with_capacity(n);
            for _ in 0..n {
                rows.push(BadRow {
                    line: r.get()?,
                    raw: r.get()?,
                    error: r.get()?,
                });
            }
            StreamItem::Side(SideItem::Bad(BadRows { source, file, rows }))
        }
        _ => return Err(corrupt("a queued item has an unknown kind")),
    })
}

fn rest_watermark(queue: &VecDeque<StreamItem>) -> i64 {
    match queue.front() {
        Some(StreamItem::Chunk(c)) => c.watermarks[0],
        _ => NO_WATERMARK,
    }
}
