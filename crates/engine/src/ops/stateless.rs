//! Operators that keep no state: projection, filter, the expansion of rows
//! into grouping sets, and a window TVF that only labels rows with their
//! window.

use crate::expr::eval::{evaluate, predicate_mask, EvalContext};
use crate::ops::operator::{Operator, OperatorMetrics};
use crate::runtime::snapshot::{StateReader, StateWriter};
use crate::runtime::stream::{Chunk, StreamItem};
use crate::time::last_instant;
use crate::time::slicing::Slicing;
use crate::time::window_columns::WindowColumns;
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, TimestampMillisecondArray};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{SchemaRef, TimestampMillisecondType};
use std::sync::Arc;
use tidemark_common::expr::Expr;
use tidemark_common::window::WindowKind;
use tidemark_common::{Error, Result};

/// A stateless step applied to each chunk (projection, filter), run as an
/// operator by [`ChunkMap`].
pub trait ChunkStep: Send {
    /// The operator's name in summaries and errors.
    const NAME: &'static str;

    fn apply(&self, chunk: &Chunk) -> Result<Chunk>;
}

/// The operator of a [`ChunkStep`]: chunks go through the step (see
/// [`map_chunks`]), everything else passes, and the metrics are all the
/// state it keeps.
pub struct ChunkMap<S> {
    step: S,
    metrics: OperatorMetrics,
}

impl<S> ChunkMap<S> {
    fn of(step: S) -> Self {
        ChunkMap {
            step,
            metrics: OperatorMetrics::default(),
        }
    }
}

impl<S: ChunkStep> Operator for ChunkMap<S> {
    fn name(&self) -> String {
        S::NAME.into()
    }

    fn process(&mut self, item: StreamItem, out: &mut Vec<StreamItem>) -> Result<()> {
        let step = &self.step;
        map_chunks(item, out, &mut self.metrics, |c| step.apply(c))
    }

    fn metrics(&self) -> OperatorMetrics {
        self.metrics.clone()
    }

    fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        w.put(&self.metrics);
        Ok(())
    }

    fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.metrics = r.get()?;
        Ok(())
    }
}

/// One item through a stateless per-chunk step `f` (projection, filter):
/// chunks are mapped, everything else passes. If `f` fails on a chunk, it is
/// applied to the rows before the first row that fails on its own, and
/// those go out before that row's error, so what comes out before a runtime
/// error is the same at every batch size. Only the error path pays for the
/// row-by-row search.
fn map_chunks(
    item: StreamItem,
    out: &mut Vec<StreamItem>,
    metrics: &mut OperatorMetrics,
    f: impl Fn(&Chunk) -> Result<Chunk>,
) -> Result<()> {
    let StreamItem::Chunk(chunk) = item else {
        out.push(item);
        return Ok(());
    };
    metrics.rows_in += chunk.num_rows() as u64;
    let mut emit = |done: Chunk| {
        if done.num_rows() > 0 {
            metrics.rows_out += done.num_rows() as u64;
            out.push(StreamItem::Chunk(done));
        }
    };
    let err = match f(&chunk) {
        Ok(done) => {
            emit(done);
            return Ok(());
        }
        Err(e) => e,
    };
    // The error reported is the first failing row's own, which may differ
    // from the one the whole batch hit first.
    for i in 0..chunk.num_rows() {
        if let Err(row_err) = f(&chunk.slice(i, 1)) {
            if i > 0 {
                emit(f(&chunk.slice(0, i))?);
            }
            return Err(row_err);
        }
    }
    Err(err)
}

/// Projection: one output column per expression.
pub type Project = ChunkMap<Projection>;

/// The step of [`Project`]: the expressions, evaluated over each chunk.
pub struct Projection {
    exprs: Vec<Expr>,
    schema: SchemaRef,
    ctx: EvalContext,
    watermarks: WatermarkColumn,
}

/// Where `CURRENT_WATERMARK(..)` reads from: a column of per-row
/// watermarks the operator appends to its input (`input_width`), of the
/// rowtime's type.
#[derive(Clone, Debug)]
struct WatermarkColumn(Option<(usize, arrow::datatypes::DataType)>);

impl WatermarkColumn {
    /// Rewrites `exprs` to read the watermark column, if any reads it.
    fn new(exprs: &mut [Expr], input_width: usize) -> Self {
        let mut ty = None;
        for e in exprs.iter_mut() {
            e.visit(&mut |x| {
                if let Expr::Function {
                    func: tidemark_common::expr::ScalarFunction::CurrentWatermark,
                    ty: t,
                    ..
                } = x
                {
                    ty = Some(t.to_arrow());
                }
            });
            *e = e.clone().with_watermark_column(input_width);
        }
        WatermarkColumn(ty.map(|t| (input_width, t)))
    }

    /// The chunk's batch, with the watermark column when one is read.
    fn batch(&self, chunk: &Chunk) -> Result<RecordBatch> {
        let Some((index, ty)) = &self.0 else {
            return Ok(chunk.batch.clone());
        };
        if *index != chunk.batch.num_columns() {
            return Err(Error::Internal("watermark column out of place".into()));
        }
        let marks: TimestampMillisecondArray = chunk
            .watermarks
            .iter()
            .map(|w| (*w != tidemark_common::time::NO_WATERMARK).then_some(*w))
            .collect();
        let tz = match ty {
            arrow::datatypes::DataType::Timestamp(_, tz) => tz.clone(),
            _ => None,
        };
        let mut fields: Vec<arrow::datatypes::FieldRef> =
            chunk.batch.schema().fields().iter().cloned().collect();
        fields.push(Arc::new(arrow::datatypes::Field::new(
            "CURRENT_WATERMARK",
            ty.clone(),
            true,
        )));
        let mut columns = chunk.batch.columns().to_vec();
        columns.push(Arc::new(marks.with_timezone_opt(tz)));
        Ok(RecordBatch::try_new(
            Arc::new(arrow::datatypes::Schema::new(fields)),
            columns,
        )?)
    }
}

impl Project {
    /// `input_width`: how many columns the input has.
    pub fn new(
        mut exprs: Vec<Expr>,
        schema: SchemaRef,
        ctx: EvalContext,
        input_width: usize,
    ) -> Result<Self> {
        if exprs.len() != schema.fields().len() {
            return Err(Error::Internal(
                "projection and schema differ in width".into(),
            ));
        }
        let watermarks = WatermarkColumn::new(&mut exprs, input_width);
        Ok(ChunkMap::of(Projection {
            exprs,
            schema,
            ctx,
            watermarks,
        }))
    }
}

impl ChunkStep for Projection {
    const NAME: &'static str = "Project";

    fn apply(&self, chunk: &Chunk) -> Result<Chunk> {
        let input = self.watermarks.batch(chunk)?;
        let columns = self
            .exprs
            .iter()
            .map(|e| evaluate(e, &input, &self.ctx).map_err(|err| in_expression(err, e)))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let batch = RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(chunk.num_rows())),
        )?;
        Ok(chunk.with_batch(batch))
    }
}

/// Names the expression a runtime error came from.
fn in_expression(err: Error, expr: &Expr) -> Error {
    match err {
        Error::Execution(m) => Error::Execution(format!("{m}, in {expr}")),
        other => other,
    }
}

/// Filter: the rows the predicate holds for.
pub type Filter = ChunkMap<Predicate>;

/// The step of [`Filter`]: the predicate each row must hold.
pub struct Predicate {
    predicate: Expr,
    ctx: EvalContext,
    watermarks: WatermarkColumn,
}

impl Filter {
    /// `input_width`: how many columns the input has.
    pub fn new(predicate: Expr, ctx: EvalContext, input_width: usize) -> Self {
        let mut exprs = [predicate];
        let watermarks = WatermarkColumn::new(&mut exprs, input_width);
        let [predicate] = exprs;
        ChunkMap::of(Predicate {
            predicate,
            ctx,
            watermarks,
        })
    }
}

impl ChunkStep for Predicate {
    const NAME: &'static str = "Filter";

    fn apply(&self, chunk: &Chunk) -> Result<Chunk> {
        let mask = predicate_mask(&self.predicate, &self.watermarks.batch(chunk)?, &self.ctx)
            .map_err(|e| in_expression(e, &self.predicate))?;
        if mask.true_count() == chunk.num_rows() {
            return Ok(chunk.clone());
        }
        let batch = filter_record_batch(&chunk.batch, &mask)?;
        let rows: Vec<u32> = (0..chunk.num_rows() as u32)
            .filter(|i| mask.value(*i as usize))
            .collect();
        Ok(chunk.select(batch, &rows))
    }
}

/// GROUPING SETS, ROLLUP and CUBE: each row once per grouping set.
pub type Expand = ChunkMap<Expansion>;

/// The step of [`Expand`]: row `r`'s copies come together, set by set, so
/// that their watermarks stay in order; in the copy for set `s` the
/// columns `nulled[s]` are NULL, and a last BIGINT column holds `s`.
pub struct Expansion {
    nulled: Vec<Vec<usize>>,
    schema: SchemaRef,
}

impl Expand {
    pub fn new(nulled: Vec<Vec<usize>>, schema: SchemaRef) -> Self {
        ChunkMap::of(Expansion { nulled, schema })
    }
}

impl ChunkStep for Expansion {
    const NAME: &'static str = "Expand";

    fn apply(&self, chunk: &Chunk) -> Result<Chunk> {
        let sets = self.nulled.len();
        let rows: Vec<u32> = (0..chunk.num_rows() as u32)
            .flat_map(|r| std::iter::repeat_n(r, sets))
            .collect();
        let indices = arrow::array::UInt32Array::from(rows.clone());
        let set_of = |i: usize| i % sets;
        let mut columns = Vec::with_capacity(chunk.batch.num_columns() + 1);
        for (c, column) in chunk.batch.columns().iter().enumerate() {
            let copied = arrow::compute::take(column, &indices, None)?;
            if !self.nulled.iter().any(|set| set.contains(&c)) {
                columns.push(copied);
                continue;
            }
            let left_out = arrow::array::BooleanArray::from_iter(
                (0..rows.len()).map(|i| Some(self.nulled[set_of(i)].contains(&c))),
            );
            columns.push(arrow::compute::nullif(&copied, &left_out)?);
        }
        columns.push(Arc::new(arrow::array::Int64Array::from_iter_values(
            (0..rows.len()).map(|i| set_of(i) as i64),
        )));
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        Ok(chunk.select(batch, &rows))
    }
}

/// A TUMBLE, HOP or CUMULATE TVF without aggregation: each row comes out
/// once per window it is in, with the window's three columns, at once and
/// late or not, as in Flink. A HOP row's windows come latest first, a
/// CUMULATE row's shortest first, as Flink lists them.
pub struct WindowLabels {
    slicing: Slicing,
    /// Lay windows out on this zone's wall clock (TIMESTAMP_LTZ rowtimes).
    zone: Option<chrono_tz::Tz>,
    time_column: usize,
    schema: SchemaRef,
    metrics: OperatorMetrics,
}

impl WindowLabels {
    pub fn new(
        kind: WindowKind,
        time_column: usize,
        schema: SchemaRef,
        zone: Option<chrono_tz::Tz>,
    ) -> Result<Self> {
        Ok(WindowLabels {
            slicing: Slicing::new(kind)?,
            zone,
            time_column,
            schema,
            metrics: OperatorMetrics::default(),
        })
    }

    fn label(&self, chunk: &Chunk) -> Result<Chunk> {
        let ts = chunk
            .batch
            .column(self.time_column)
            .as_primitive::<TimestampMillisecondType>();
        if let (Slicing::Tumble { size, .. }, None, 0) = (self.slicing, self.zone, ts.null_count())
        {
            return self.label_tumbling(chunk, ts, size);
        }
        let mut rows: Vec<u32> = Vec::with_capacity(chunk.num_rows());
        let mut starts: Vec<i64> = Vec::with_capacity(chunk.num_rows());
        let mut ends: Vec<i64> = Vec::with_capacity(chunk.num_rows());
        for i in 0..chunk.num_rows() {
            if ts.is_null(i) {
                continue;
            }
            let wall = match self.zone {
                None => ts.value(i),
                Some(tz) => {
                    crate::time::zone::to_wall_clock(ts.value(i), tz).unwrap_or(ts.value(i))
                }
            };
            let first = rows.len();
            for end in self.slicing.window_ends(self.slicing.slice_end(wall)) {
                rows.push(i as u32);
                starts.push(self.slicing.window_start(end));
                ends.push(end);
            }
            if let Slicing::Hop { .. } = self.slicing {
                starts[first..].reverse();
                ends[first..].reverse();
            }
        }
        // Each row in one window, in order (a TUMBLE without NULL times):
        // the input's columns are the output's, shared rather than copied.
        let every_row_once = rows.len() == chunk.num_rows()
            && rows.iter().enumerate().all(|(k, r)| *r as usize == k);
        let mut columns: Vec<ArrayRef> = if every_row_once {
            chunk.batch.columns().to_vec()
        } else {
            let indices = arrow::array::UInt32Array::from(rows.clone());
            chunk
                .batch
                .columns()
                .iter()
                .map(|c| arrow::compute::take(c, &indices, None))
                .collect::<std::result::Result<_, _>>()?
        };
        let zone = self.zone;
        let times: Vec<i64> = ends
            .iter()
            .map(|&e| {
                let instant = match zone {
                    None => e,
                    Some(tz) => crate::time::zone::local_to_instant(e, tz).unwrap_or(e),
                };
                last_instant(instant)
            })
            .collect();
        let window_columns = WindowColumns::new(ts.timezone().map(Into::into));
        columns.extend(window_columns.per_row(starts, ends, times));
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        Ok(chunk.select(batch, &rows))
    }

    /// [`WindowLabels::label`] for TUMBLE on UTC rowtimes, none NULL (the
    /// common case): each row in its one window, worked out for the whole
    /// array at once, and the input's columns shared, not copied.
    fn label_tumbling(
        &self,
        chunk: &Chunk,
        ts: &TimestampMillisecondArray,
        size: i64,
    ) -> Result<Chunk> {
        let ends: Vec<i64> = ts
            .values()
            .iter()
            .map(|t| self.slicing.slice_end(*t))
            .collect();
        let starts = ends.iter().map(|e| e.saturating_sub(size)).collect();
        let times = ends.iter().map(|e| last_instant(*e)).collect();
        let mut columns = chunk.batch.columns().to_vec();
        let window_columns = WindowColumns::new(ts.timezone().map(Into::into));
        columns.extend(window_columns.per_row(starts, ends, times));
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        Ok(chunk.with_batch(batch))
    }
}

impl Operator for WindowLabels {
    fn name(&self) -> String {
        "WindowTvf".into()
    }

    fn process(&mut self, item: StreamItem, out: &mut Vec<StreamItem>) -> Result<()> {
        match item {
            StreamItem::Chunk(chunk) => {
                self.metrics.rows_in += chunk.num_rows() as u64;
                let labelled = self.label(&chunk)?;
                self.metrics.rows_out += labelled.num_rows() as u64;
                if labelled.num_rows() > 0 {
                    out.push(StreamItem::Chunk(labelled));
                }
            }
            other => out.push(other),
        }
        Ok(())
    }

    fn metrics(&self) -> OperatorMetrics {
        self.metrics.clone()
    }

    fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        w.put(&self.metrics);
        Ok(())
    }

    fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        self.metrics = r.get()?;
        Ok(())
    }
}

/// Before a window over a processing-time attribute: each row's
/// watermark becomes the clock just before it was read (its `PROCTIME()`
/// minus 1 ms), so processing-time windows fire on the engine's clock
/// through the same event-time service. Event-time watermarks from upstream
/// do not apply; the end of input still fires every window.
pub struct ProcTimeWatermarks {
    time_column: usize,
    clock: i64,
}

impl ProcTimeWatermarks {
    pub fn new(time_column: usize) -> Self {
        ProcTimeWatermarks {
            time_column,
            clock: tidemark_common::time::NO_WATERMARK,
        }
    }
}

impl Operator for ProcTimeWatermarks {
    fn name(&self) -> String {
        "ProcTime".into()
    }

    fn process(&mut self, item: StreamItem, out: &mut Vec<StreamItem>) -> Result<()> {
        match item {
            StreamItem::Chunk(mut chunk) => {
                let pt = chunk
                    .batch
                    .column(self.time_column)
                    .as_primitive::<TimestampMillisecondType>();
                for (i, w) in chunk.watermarks.iter_mut().enumerate() {
                    if pt.is_valid(i) {
                        self.clock = self.clock.max(pt.value(i).saturating_sub(1));
                    }
                    *w = self.clock;
                }
                out.push(StreamItem::Chunk(chunk));
            }
            StreamItem::Watermark(w) if w == tidemark_common::time::FINAL_WATERMARK => {
                out.push(StreamItem::Watermark(w))
            }
            StreamItem::Watermark(_) => {}
            other @ (StreamItem::End | StreamItem::Side(_)) => out.push(other),
        }
        Ok(())
    }

    fn save_state(&self, _w: &mut StateWriter) -> Result<()> {
        Err(tidemark_common::Error::plan(
            "checkpointing does not cover windows over processing time: their results depend on the clock, so a resumed run could not repeat them",
            tidemark_common::Span::default(),
        )
        .with_hint("run the query without 'execution.checkpointing.dir'"))
    }
}

#[cfg(test)]
mod tests {
    //! The TUMBLE, HOP and CUMULATE TVFs against spec §2: each row labelled
    //! with every window it is in, at once, late or not.

    use super::*;
    use crate::ops::testing::{events, in_chunks, resumed, rows_only, run, s, windowed_schema};

    fn labels(kind: WindowKind) -> Result<WindowLabels> {
        WindowLabels::new(kind, 1, windowed_schema(), None)
    }

    const TUMBLE: WindowKind = WindowKind::Tumble {
        size: 5_000,
        offset: 0,
    };
    const HOP: WindowKind = WindowKind::Hop {
        slide: 5_000,
        size: 10_000,
        offset: 0,
    };
    const CUMULATE: WindowKind = WindowKind::Cumulate {
        step: 5_000,
        max_size: 15_000,
        offset: 0,
    };

    /// Rowtimes `ts` (s) of key `a`, `v` the arrival number, watermark
    /// `ts - 1 s`.
    fn rows(ts: &[i64]) -> Chunk {
        let rows: Vec<(&str, i64, i64)> = ts
            .iter()
            .enumerate()
            .map(|(i, t)| ("a", s(*t), i as i64))
            .collect();
        events(&rows, s(1))
    }

    #[test]
    fn tumble_labels_each_row_with_its_window_before_1970_and_late_alike() -> Result<()> {
        let lines = run(
            &mut labels(TUMBLE)?,
            vec![StreamItem::Chunk(rows(&[1, -1, 7, 12, 2]))],
        )?;
        // start = ts - ((ts % 5 s) + 5 s) % 5 s: -1 s is in [-5, 0). The row
        // at 2 s, behind the watermark 11 s, is labelled like any other:
        // the TVF drops nothing, the operator after it judges.
        assert_eq!(
            lines,
            [
                "+I[a, 1000, 0, 0, 5000, 4999]",
                "+I[a, -1000, 1, -5000, 0, -1]",
                "+I[a, 7000, 2, 5000, 10000, 9999]",
                "+I[a, 12000, 3, 10000, 15000, 14999]",
                "+I[a, 2000, 4, 0, 5000, 4999]",
                "WM end",
                "END",
            ]
        );
        Ok(())
    }

    #[test]
    fn a_row_without_a_time_is_in_no_window_and_the_rest_keep_theirs() -> Result<()> {
        let chunk = rows(&[1, 7, 12]);
        // The middle row's time made NULL.
        let ts = TimestampMillisecondArray::from(vec![Some(s(1)), None, Some(s(12))]);
        let mut columns = chunk.batch.columns().to_vec();
        columns[1] = Arc::new(ts);
        let chunk = Chunk {
            batch: RecordBatch::try_new(chunk.batch.schema(), columns)?,
            ..chunk
        };
        let mut out = Vec::new();
        labels(TUMBLE)?.process(StreamItem::Chunk(chunk.clone()), &mut out)?;
        let Some(StreamItem::Chunk(labelled)) = out.first() else {
            panic!("the rows come out as one chunk");
        };
        assert_eq!(
            labelled.watermarks,
            [chunk.watermarks[0], chunk.watermarks[2]]
        );
        assert_eq!(
            run(&mut labels(TUMBLE)?, vec![StreamItem::Chunk(chunk)])?,
            [
                "+I[a, 1000, 0, 0, 5000, 4999]",
                "+I[a, 12000, 2, 10000, 15000, 14999]",
                "WM end",
                "END",
            ]
        );
        Ok(())
    }

    #[test]
    fn hop_repeats_a_row_once_per_window_latest_first() -> Result<()> {
        let mut op = labels(HOP)?;
        let chunk = rows(&[1, 7, 10, -3]);
        let watermarks = chunk.watermarks.clone();
        let mut out = Vec::new();
        op.process(StreamItem::Chunk(chunk.clone()), &mut out)?;
        // size / slide = 2 windows per row, the later start first (as
        // Flink lists them); each copy keeps the watermark its row met.
        let Some(StreamItem::Chunk(labelled)) = out.first() else {
            panic!("the rows come out as one chunk");
        };
        let twice: Vec<i64> = watermarks.iter().flat_map(|w| [*w, *w]).collect();
        assert_eq!(labelled.watermarks, twice);
        assert_eq!(
            run(&mut labels(HOP)?, vec![StreamItem::Chunk(chunk)])?,
            [
                "+I[a, 1000, 0, 0, 10000, 9999]",
                "+I[a, 1000, 0, -5000, 5000, 4999]",
                "+I[a, 7000, 1, 5000, 15000, 14999]",
                "+I[a, 7000, 1, 0, 10000, 9999]",
                "+I[a, 10000, 2, 10000, 20000, 19999]",
                "+I[a, 10000, 2, 5000, 15000, 14999]",
                "+I[a, -3000, 3, -5000, 5000, 4999]",
                "+I[a, -3000, 3, -10000, 0, -1]",
                "WM end",
                "END",
            ]
        );
        assert_eq!((op.metrics().rows_in, op.metrics().rows_out), (4, 8));
        Ok(())
    }

    #[test]
    fn cumulate_labels_a_row_with_each_growing_window_shortest_first() -> Result<()> {
        // Windows start at multiples of 15 s and grow by 5 s; a row is in
        // those whose end is after it.
        assert_eq!(
            run(
                &mut labels(CUMULATE)?,
                vec![StreamItem::Chunk(rows(&[2, 7, 14, 15]))]
            )?,
            [
                "+I[a, 2000, 0, 0, 5000, 4999]",
                "+I[a, 2000, 0, 0, 10000, 9999]",
                "+I[a, 2000, 0, 0, 15000, 14999]",
                "+I[a, 7000, 1, 0, 10000, 9999]",
                "+I[a, 7000, 1, 0, 15000, 14999]",
                "+I[a, 14000, 2, 0, 15000, 14999]",
                "+I[a, 15000, 3, 15000, 20000, 19999]",
                "+I[a, 15000, 3, 15000, 25000, 24999]",
                "+I[a, 15000, 3, 15000, 30000, 29999]",
                "WM end",
                "END",
            ]
        );
        Ok(())
    }

    #[test]
    fn results_do_not_depend_on_the_batch_size() -> Result<()> {
        let chunk = rows(&[1, -1, 7, 12, 2, 10, 15]);
        for kind in [TUMBLE, HOP, CUMULATE] {
            let whole = rows_only(run(
                &mut labels(kind)?,
                vec![StreamItem::Chunk(chunk.clone())],
            )?);
            for batch in [1, 2, 3] {
                let cut = rows_only(run(&mut labels(kind)?, in_chunks(&chunk, batch))?);
                assert_eq!(cut, whole, "{kind}, batch {batch}");
            }
        }
        Ok(())
    }

    #[test]
    fn a_checkpoint_keeps_the_row_counts_and_changes_nothing_else() -> Result<()> {
        let chunk = rows(&[1, 7, 10]);
        let mut op = labels(HOP)?;
        op.process(StreamItem::Chunk(chunk.slice(0, 2)), &mut Vec::new())?;
        let mut back = resumed(&op, labels(HOP)?)?;
        let rest = vec![StreamItem::Chunk(chunk.slice(2, 1))];
        assert_eq!(run(&mut back, rest.clone())?, run(&mut op, rest)?);
        assert_eq!((back.metrics().rows_in, back.metrics().rows_out), (3, 6));
        Ok(())
    }
}
