//! Windowed operators ([`Windowed`]): how stream items reach a window
//! state (a [`TimerHandler`]) through the event-time service, how fired
//! results and dropped late rows wait in an [`Emitter`], and how each
//! watermark that fired something follows those results downstream. The
//! skeleton owns the operator's numbers: rows in and out here, late rows
//! through [`LateBook`], windows fired through [`Emitter::window_fired`].
//! Window aggregation, session aggregation, the SESSION TVF, window Top-N
//! and window joins are each a `Windowed` of their state.

use crate::ops::operator::{not_checkpointable, Operator, OperatorMetrics, StateSize};
use crate::runtime::snapshot::{StateReader, StateWriter};
use crate::runtime::stream::{Chunk, SideItem, StreamItem};
use crate::time::late::LateBook;
use crate::time::service::{EventTime, TimerHandler};
use arrow::array::RecordBatch;
use arrow::row::{RowConverter, SortField};
use tidemark_common::time::NO_WATERMARK;
use tidemark_common::Result;
use tidemark_common::{RowKind, SqlType};

/// What a windowed state's handlers report as they work: fired results
/// (with their row kinds), side items and dropped late rows waiting to go
/// downstream in the order they happened, the watermark downstream has
/// been told, and the operator's numbers.
pub struct Emitter {
    pending: Vec<Pending>,
    /// Results queued from here on carry no watermark yet: the one in
    /// force when they go out, or the one before the advance they were
    /// fired in.
    untagged: usize,
    /// Results fired by successive advances within one input chunk go out
    /// together (see [`WindowedState::COALESCE_ADVANCES`]).
    coalesce: bool,
    late: LateBook,
    forwarded: i64,
    out: Vec<StreamItem>,
    metrics: OperatorMetrics,
}

enum Pending {
    /// Results, with the watermark their rows carry once it is known.
    Rows(RecordBatch, RowKind, Option<i64>),
    /// Results, with the watermark each row carries.
    Tagged(RecordBatch, RowKind, Vec<i64>),
    Changelog(RecordBatch, Vec<RowKind>, Option<i64>),
    Side(SideItem),
    /// An advance of the watermark that fired the results before it.
    Advanced(i64),
}

impl Emitter {
    pub(crate) fn new(operator: &'static str, late_reason: &'static str) -> Self {
        Emitter {
            pending: Vec::new(),
            untagged: 0,
            coalesce: false,
            late: LateBook::new(operator, late_reason),
            forwarded: NO_WATERMARK,
            out: Vec::new(),
            metrics: OperatorMetrics::default(),
        }
    }

    /// Queues result rows, all of one kind.
    pub(crate) fn rows(&mut self, batch: RecordBatch, kind: RowKind) -> Result<()> {
        if batch.num_rows() > 0 {
            self.close_late()?;
            self.pending.push(Pending::Rows(batch, kind, None));
        }
        Ok(())
    }

    /// Queues result rows, all of one kind, each with the watermark it
    /// carries downstream (results held back across advances of the
    /// watermark, see [`WindowedState::on_item_done`]).
    pub(crate) fn rows_tagged(
        &mut self,
        batch: RecordBatch,
        kind: RowKind,
        watermarks: Vec<i64>,
    ) -> Result<()> {
        if batch.num_rows() != watermarks.len() {
            return Err(tidemark_common::Error::Internal(
                "results with a watermark count not their row count".into(),
            ));
        }
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.close_late()?;
        // Before the advances queued since the last result or side item:
        // they fired these rows (or none), and their watermarks go out
        // only after them, before the next side item or at the end.
        let at = self
            .pending
            .iter()
            .rposition(|p| !matches!(p, Pending::Advanced(_)))
            .map_or(0, |i| i + 1);
        self.pending
            .insert(at, Pending::Tagged(batch, kind, watermarks));
        if at < self.untagged {
            self.untagged += 1;
        }
        Ok(())
    }

    /// The results an advance of the watermark fired are held back, to be
    /// queued with [`Emitter::rows_tagged`] later: the late rows dropped
    /// before the advance go out before them, so they are queued now.
    pub(crate) fn hold_back(&mut self) -> Result<()> {
        self.close_late()
    }

    /// Queues result rows with their kinds.
    pub(crate) fn changelog(&mut self, batch: RecordBatch, kinds: Vec<RowKind>) -> Result<()> {
        if batch.num_rows() > 0 {
            self.close_late()?;
            self.pending.push(Pending::Changelog(batch, kinds, None));
        }
        Ok(())
    }

    /// Queues a side item (a trace event) among the results.
    pub(crate) fn side(&mut self, item: SideItem) -> Result<()> {
        self.close_late()?;
        self.pending.push(Pending::Side(item));
        Ok(())
    }

    /// Drops row `row` of `chunk`, whose time attribute is `rowtime`, as
    /// late (see [`LateBook::drop_row`]); it goes out in its place among
    /// the results.
    pub(crate) fn late(&mut self, chunk: &Chunk, row: usize, rowtime: i64) -> Result<()> {
        if let Some(item) = self.late.drop_row(&mut self.metrics, chunk, row, rowtime)? {
            self.pending.push(Pending::Side(item));
        }
        Ok(())
    }

    /// Row `row` of `chunk`, behind the watermark, was added within the
    /// allowed lateness (see [`crate::time::late::accept_row`]).
    pub(crate) fn accept_late(&mut self, chunk: &Chunk, row: usize) -> Result<()> {
        let operator = self.late.operator();
        if let Some(item) = crate::time::late::accept_row(&mut self.metrics, operator, chunk, row) {
            self.side(item)?;
        }
        Ok(())
    }

    /// A window fired at `watermark`.
    pub(crate) fn window_fired(&mut self, watermark: i64) {
        self.metrics.window_fired(watermark);
    }

    /// The operator's numbers, for what the skeleton does not count itself
    /// (rows accepted within the allowed lateness, rows partly late).
    pub(crate) fn metrics(&mut self) -> &mut OperatorMetrics {
        &mut self.metrics
    }

    /// Queues the late rows dropped since the last item.
    fn close_late(&mut self) -> Result<()> {
        if let Some(item) = self.late.take()? {
            self.pending.push(Pending::Side(item));
        }
        Ok(())
    }

    /// Sends what is pending: each row carries the watermark in force
    /// when it was emitted (`watermark` for the rows not yet given one), as
    /// it would one by one. Results queued one after the other go out as
    /// one chunk of up to [`COALESCE_ROWS`] rows: keys or sessions that
    /// fire alone make results of one row each, and every operator
    /// downstream pays per chunk.
    ///
    /// An advance queued between results (coalescing) goes out only before
    /// a side item or at the end: rows after it carry its watermark, and
    /// an operator downstream moves to it before such a row just as it
    /// would on the watermark itself, so only the chunks' shape changes.
    fn flush_pending(&mut self, watermark: i64) -> Result<()> {
        self.close_late()?;
        self.untagged = 0;
        let mut run = ResultRun::default();
        let mut advanced = None;
        for item in std::mem::take(&mut self.pending) {
            let (batch, kinds, tags) = match item {
                Pending::Rows(batch, kind, tag) => {
                    let n = batch.num_rows();
                    (
                        batch,
                        Kinds::Same(kind, n),
                        Tags::All(tag.unwrap_or(watermark)),
                    )
                }
                Pending::Tagged(batch, kind, watermarks) => {
                    let n = batch.num_rows();
                    (batch, Kinds::Same(kind, n), Tags::Each(watermarks))
                }
                Pending::Changelog(batch, kinds, tag) => (
                    batch,
                    Kinds::Each(kinds),
                    Tags::All(tag.unwrap_or(watermark)),
                ),
                Pending::Side(side) => {
                    run.send(&mut self.out)?;
                    if let Some(w) = advanced.take() {
                        self.forward(w);
                    }
                    self.out.push(StreamItem::Side(side));
                    continue;
                }
                Pending::Advanced(w) => {
                    advanced = Some(w);
                    continue;
                }
            };
            if run.rows() + batch.num_rows() > COALESCE_ROWS {
                run.send(&mut self.out)?;
            }
            run.push(batch, kinds, tags);
        }
        run.send(&mut self.out)?;
        if let Some(w) = advanced {
            self.forward(w);
        }
        Ok(())
    }

    /// Sends pending results — emitted as the watermark rose from
    /// `before` — then the watermark that fired them.
    fn flush(&mut self, before: i64, watermark: i64) -> Result<()> {
        self.flush_pending(before)?;
        self.forward(watermark);
        Ok(())
    }

    /// The watermark rose from `before` to `watermark` within an input
    /// chunk and fired the results queued since the last advance: they go
    /// out now, or, coalescing, with the chunk's later results.
    fn advanced(&mut self, before: i64, watermark: i64) -> Result<()> {
        if !self.coalesce {
            return self.flush(before, watermark);
        }
        for item in &mut self.pending[self.untagged..] {
            if let Pending::Rows(_, _, tag) | Pending::Changelog(_, _, tag) = item {
                tag.get_or_insert(before);
            }
        }
        self.pending.push(Pending::Advanced(watermark));
        self.untagged = self.pending.len();
        Ok(())
    }

    /// Tells downstream the watermark, if it rose.
    fn forward(&mut self, watermark: i64) {
        if watermark > self.forwarded {
            self.forwarded = watermark;
            self.out.push(StreamItem::Watermark(watermark));
        }
    }
}

/// The most rows of results queued one after another that go out as one
/// chunk.
const COALESCE_ROWS: usize = 8_192;

/// The row kinds of a queued result batch.
enum Kinds {
    Same(RowKind, usize),
    Each(Vec<RowKind>),
}

/// The watermarks of a queued result batch's rows.
enum Tags {
    All(i64),
    Each(Vec<i64>),
}

/// Result batches queued one after another, waiting to go out as one chunk.
#[derive(Default)]
struct ResultRun {
    batches: Vec<RecordBatch>,
    kinds: Vec<Kinds>,
    /// The watermark each row carries: one per row of the run.
    watermarks: Vec<i64>,
}

impl ResultRun {
    /// Rows in the run.
    fn rows(&self) -> usize {
        self.watermarks.len()
    }

    fn push(&mut self, batch: RecordBatch, kinds: Kinds, tags: Tags) {
        match tags {
            Tags::All(watermark) => self
                .watermarks
                .extend(std::iter::repeat_n(watermark, batch.num_rows())),
            Tags::Each(watermarks) => self.watermarks.extend(watermarks),
        }
        self.batches.push(batch);
        self.kinds.push(kinds);
    }

    /// Puts the run in `out` as one chunk.
    fn send(&mut self, out: &mut Vec<StreamItem>) -> Result<()> {
        let batch = match self.batches.as_slice() {
            [] => return Ok(()),
            [only] => only.clone(),
            // Batches of one operator's results share its output schema.
            [first, ..] => arrow::compute::concat_batches(&first.schema(), &self.batches)?,
        };
        let kinds = self.take_kinds();
        let mut chunk = Chunk::new(batch, std::mem::take(&mut self.watermarks));
        chunk.kinds = kinds;
        out.push(StreamItem::Chunk(chunk));
        self.batches.clear();
        Ok(())
    }

    /// Each row's kind, or None when all are inserts.
    fn take_kinds(&mut self) -> Option<Vec<RowKind>> {
        let inserts_only = self
            .kinds
            .iter()
            .all(|k| matches!(k, Kinds::Same(RowKind::Insert, _)));
        if inserts_only {
            self.kinds.clear();
            return None;
        }
        let mut kinds = Vec::with_capacity(self.rows());
        for k in self.kinds.drain(..) {
            match k {
                Kinds::Same(kind, n) => kinds.extend(std::iter::repeat_n(kind, n)),
                Kinds::Each(each) => kinds.extend(each),
            }
        }
        Some(kinds)
    }
}

/// The state of a windowed operator: what it does with rows and timers,
/// its name, and why it drops a late row.
pub trait WindowedState: TimerHandler<Output = Emitter> + Send {
    const NAME: &'static str;
    /// Why the operator drops a row (the `late_reason` of late-row sinks).
    const LATE_REASON: &'static str;
    /// The state held, timers aside.
    fn state(&self) -> StateSize;

    /// Whether the results fired by successive advances of the watermark
    /// within one input chunk may go out as one chunk, each row carrying
    /// its own watermark, rather than a chunk and a watermark per advance.
    /// Not for a state whose output a merge of key-split workers reads
    /// (window aggregation): the merge sorts each watermark's results.
    const COALESCE_ADVANCES: bool = false;

    /// The input item is done: results the state held back (to build them
    /// together) go to the emitter now, before it sends what the item
    /// emitted. A state holding results back must coalesce advances.
    fn on_item_done(&mut self, _out: &mut Emitter) -> Result<()> {
        Ok(())
    }

    /// `chunk` is about to go through, run by run: what its runs share
    /// (its keys, say) may be read once here.
    fn on_chunk(&mut self, _chunk: &Chunk) -> Result<()> {
        Ok(())
    }

    /// The end of the window a timer is for, when the timer keeps a window
    /// open (it fires it, or frees it): open windows are counted by them.
    fn window_of(_timer: &Self::Key) -> Option<i64> {
        None
    }

    /// Writes the state (timers aside) for a checkpoint; see
    /// [`Operator::save_state`].
    fn save(&self, _w: &mut StateWriter) -> Result<()> {
        Err(not_checkpointable(Self::NAME))
    }

    /// Reads what [`WindowedState::save`] wrote into this fresh state.
    fn load(&mut self, _r: &mut StateReader<'_>) -> Result<()> {
        Err(not_checkpointable(Self::NAME))
    }
}

/// A windowed operator: its state on the event-time service, and the
/// results it fired on their way out.
pub struct Windowed<S: WindowedState> {
    time: EventTime<S::Key>,
    state: S,
    emitter: Emitter,
}

impl<S: WindowedState> Windowed<S> {
    pub(crate) fn from_state(state: S) -> Self {
        let mut emitter = Emitter::new(S::NAME, S::LATE_REASON);
        emitter.coalesce = S::COALESCE_ADVANCES;
        Windowed {
            time: EventTime::new(),
            state,
            emitter,
        }
    }

    #[cfg(test)]
    pub(crate) fn state_mut(&mut self) -> &mut S {
        &mut self.state
    }
}

impl<S: WindowedState> Operator for Windowed<S>
where
    S::Key: Send,
{
    fn name(&self) -> String {
        S::NAME.into()
    }

    fn process(&mut self, item: StreamItem, out: &mut Vec<StreamItem>) -> Result<()> {
        let (rows_in, rows_out) = process_item(
            &mut self.time,
            &mut self.state,
            &mut self.emitter,
            item,
            out,
        )?;
        let metrics = &mut self.emitter.metrics;
        metrics.rows_in += rows_in;
        metrics.rows_out += rows_out;
        Ok(())
    }

    fn metrics(&self) -> OperatorMetrics {
        self.emitter.metrics.clone()
    }

    fn state(&self) -> StateSize {
        let mut size = self.state.state();
        let windows: std::collections::BTreeSet<i64> =
            self.time.timers().filter_map(S::window_of).collect();
        size.windows += windows.len() as u64;
        // A timer: its time, key and its share of the run or tree it is in.
        size.bytes +=
            (self.time.timer_count() * (std::mem::size_of::<(i64, S::Key)>() + 16)) as u64;
        size
    }

    fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        // Between items nothing waits in the emitter: every item flushes.
        if !self.emitter.pending.is_empty() || !self.emitter.out.is_empty() {
            return Err(tidemark_common::Error::Internal(
                "a checkpoint with fired results still waiting".into(),
            ));
        }
        self.state.save(w)?;
        self.time.save(w);
        w.put(&self.emitter.forwarded);
        w.put(&self.emitter.metrics);
        Ok(())
    }

    fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.state.load(r)?;
        self.time = EventTime::load(r)?;
        self.emitter.forwarded = r.get()?;
        self.emitter.metrics = r.get()?;
        Ok(())
    }
}

/// A chunk's rowtimes and keys (arrow's row format) read once for every run
/// the event-time service cuts it into. With a timer due at nearly every
/// row (an OVER aggregation's next rowtime), runs are a row or two, and
/// slicing and converting each on its own cost more than its rows' work.
pub struct ChunkRows {
    pub rowtimes: arrow::array::TimestampMillisecondArray,
    keys: Option<arrow::row::Rows>,
}

impl ChunkRows {
    /// `chunk`'s rowtimes from column `time_column`, keys from
    /// `key_columns` through `converter` (`None` without keys).
    pub fn new(
        chunk: &Chunk,
        time_column: usize,
        converter: Option<&RowConverter>,
        key_columns: &[usize],
    ) -> Result<Self> {
        use arrow::array::AsArray;
        let rowtimes = chunk
            .batch
            .column(time_column)
            .as_primitive::<arrow::datatypes::TimestampMillisecondType>()
            .clone();
        let keys = row_keys(converter, &chunk.batch, key_columns)?;
        Ok(ChunkRows { rowtimes, keys })
    }

    /// Row `i`'s key (empty without keys).
    #[inline]
    pub fn key(&self, i: usize) -> &[u8] {
        self.keys.as_ref().map_or(&[], |k| k.row(i).data())
    }

    /// Runs `run` on `state` with the chunk's rows it holds in `slot`,
    /// held aside meanwhile so that `run` may change the rest of the
    /// state; they go back whatever `run` returns.
    pub fn lend<S, T>(
        state: &mut S,
        slot: fn(&mut S) -> &mut Option<ChunkRows>,
        run: impl FnOnce(&mut S, &ChunkRows) -> Result<T>,
    ) -> Result<T> {
        let rows = slot(state).take().ok_or_else(|| {
            tidemark_common::Error::Internal("a run without its chunk's rows".into())
        })?;
        let result = run(state, &rows);
        *slot(state) = Some(rows);
        result
    }
}

/// The key converter of a windowed operator's group keys, if it has any.
pub fn key_converter(key_types: &[SqlType]) -> Result<Option<RowConverter>> {
    if key_types.is_empty() {
        return Ok(None);
    }
    Ok(Some(RowConverter::new(
        key_types
            .iter()
            .map(|t| SortField::new(t.to_arrow()))
            .collect(),
    )?))
}

/// The group keys of `batch`'s rows in arrow's row format (columns
/// `columns`), if the operator has keys.
pub fn row_keys(
    converter: Option<&RowConverter>,
    batch: &RecordBatch,
    columns: &[usize],
) -> Result<Option<arrow::row::Rows>> {
    let Some(conv) = converter else {
        return Ok(None);
    };
    let cols: Vec<arrow::array::ArrayRef> =
        columns.iter().map(|c| batch.column(*c).clone()).collect();
    Ok(Some(conv.convert_columns(&cols)?))
}

/// One item through a windowed operator whose state is `handler`;
/// returns how many rows came in and went out.
fn process_item<H: WindowedState>(
    time: &mut EventTime<H::Key>,
    handler: &mut H,
    emitter: &mut Emitter,
    item: StreamItem,
    out: &mut Vec<StreamItem>,
) -> Result<(u64, u64)> {
    let mut rows_in = 0;
    match item {
        StreamItem::Chunk(chunk) => {
            rows_in = chunk.num_rows() as u64;
            handler.on_chunk(&chunk)?;
            time.process_chunk(&chunk, handler, emitter, |e, before, after| {
                e.advanced(before, after)
            })?;
            handler.on_item_done(emitter)?;
            // What rows themselves emitted (re-fires, late rows) goes out
            // now, before anything later, and then the watermark they
            // reached.
            emitter.flush_pending(time.watermark())?;
            emitter.forward(time.watermark());
        }
        StreamItem::Watermark(wm) => {
            let before = time.watermark();
            time.advance(wm, handler, emitter)?;
            handler.on_item_done(emitter)?;
            emitter.flush(before, wm)?;
        }
        StreamItem::Side(side) => {
            handler.on_item_done(emitter)?;
            emitter.flush_pending(time.watermark())?;
            emitter.out.push(StreamItem::Side(side));
        }
        StreamItem::End => {
            handler.on_item_done(emitter)?;
            emitter.flush(time.watermark(), time.watermark())?;
            emitter.out.push(StreamItem::End);
        }
    }
    let rows_out = emitter
        .out
        .iter()
        .map(|item| match item {
            StreamItem::Chunk(c) => c.num_rows() as u64,
            _ => 0,
        })
        .sum();
    out.append(&mut emitter.out);
    Ok((rows_in, rows_out))
}
