//! Key-partitioned window aggregation: at parallelism N, group keys are
//! hashed to N workers (threads), each aggregating its own keys, and their
//! results are merged into exactly the changelog one aggregation emits.
//!
//! Every worker sees every row, with the watermark each row met (computed
//! once, in source order, before the split), and keeps time exactly as one
//! operator would: the same slices, timers, late rows and flush points, at
//! the same rows. Only the heavy part is split: a worker converts, looks
//! up and aggregates the keys it owns (a column names each row's owner)
//! and ignores the others'. So each worker's output has the same
//! shape as one operator's — the same watermark advances, with the
//! windows fired at each — holding its keys' results only, each with its
//! key's first arrival number in the window. The merge takes one such
//! stretch from every worker at a time and sorts its results by (fire
//! time, window end, first arrival): one operator's order. Worker 0 counts
//! and routes late rows, of every key, where one operator would.
//!
//! [`partitionable`] says which aggregations this applies to: those whose
//! results for a key depend on that key's rows alone, and are emitted once
//! per window — not with allowed lateness or early firing (updates emitted
//! by rows, or between fires) or the trace (one operator's events).

use crate::ops::operator::{Operator, OperatorMetrics, StateSize};
use crate::ops::window_agg::{KeyShare, WindowAggregate, WindowAggregateSpec};
use crate::runtime::stream::{Chunk, SideItem, StreamItem};
use arrow::array::{ArrayRef, AsArray, RecordBatch, UInt8Array};
use arrow::compute::{concat_batches, lexsort_to_indices, take_record_batch, SortColumn};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimestampMillisecondType};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use tidemark_common::window::WindowKind;
use tidemark_common::{Error, Result};

/// Why a window aggregation cannot be split by key, or None when it can.
pub fn partitionable(spec: &WindowAggregateSpec) -> Option<&'static str> {
    why_not_split(
        &spec.kind,
        spec.key_columns.len(),
        spec.lateness,
        spec.early_fire,
        spec.trace.is_on(),
    )
}

/// Why a window aggregation of `kind` with `keys` group keys, allowed
/// `lateness`, `early_fire` and `trace` cannot be split by key.
pub fn why_not_split(
    kind: &WindowKind,
    keys: usize,
    lateness: i64,
    early_fire: Option<i64>,
    trace: bool,
) -> Option<&'static str> {
    if matches!(kind, WindowKind::Session { .. }) {
        Some("SESSION windows are not split")
    } else if keys == 0 {
        Some("there is no GROUP BY key to split by")
    } else if lateness > 0 {
        Some("with allowed lateness, late rows re-fire windows among other keys' results")
    } else if early_fire.is_some() {
        Some("with early firing, partial results interleave across keys")
    } else if trace {
        Some("the trace follows one operator's events")
    } else {
        None
    }
}

/// Whether `auto` splits at parallelism `threads`: when the machine has a
/// core for each of the source's readers and the workers, and one more
/// for the rest of the query (whose thread is one of the readers). With
/// fewer, the split only adds work: the readers already keep the cores
/// busy.
pub fn auto_split(threads: usize) -> bool {
    std::thread::available_parallelism().map_or(1, |n| n.get()) >= cores_to_split(threads)
}

/// Cores `auto` wants before splitting at parallelism `threads`.
pub fn cores_to_split(threads: usize) -> usize {
    2 * threads + 1
}

/// A window aggregation split by key over worker threads.
pub struct PartitionedWindowAggregate {
    spec: WindowAggregateSpec,
    threads: usize,
    workers: Vec<Worker>,
    /// Items sent to the workers whose results are not merged yet.
    in_flight: usize,
    /// Whether results may wait for the next item: not when the input has
    /// no end and may pause, where they must go out as they are made.
    hold_back: bool,
    hash_state: foldhash::fast::FixedState,
    hashes: Vec<u64>,
    /// The input schema and it with the owner column.
    input_schema: Option<(SchemaRef, SchemaRef)>,
    /// What the merge counts (rows, windows fired); worker 0 counts late
    /// rows.
    metrics: OperatorMetrics,
    /// Columns of the workers' results.
    window_end_column: usize,
    window_time_column: usize,
}

struct Worker {
    requests: Option<Sender<Request>>,
    /// What it emitted for each item, in order.
    emitted: Receiver<Result<Vec<StreamItem>>>,
    /// Its numbers and state, when asked.
    reports: Receiver<(OperatorMetrics, StateSize)>,
    thread: Option<JoinHandle<()>>,
}

enum Request {
    Item(StreamItem),
    Report,
}

/// Input items the workers may hold before their results are taken: the
/// merge of one overlaps the work on the next.
const IN_FLIGHT: usize = 2;

impl PartitionedWindowAggregate {
    /// Splits the aggregation `spec` over `threads` workers; `spec` must be
    /// [`partitionable`]. With `hold_back`, an item's results may wait
    /// until the next items came in (for a bounded input).
    pub fn new(spec: WindowAggregateSpec, threads: usize, hold_back: bool) -> Result<Self> {
        if let Some(why) = partitionable(&spec) {
            return Err(Error::Internal(format!("cannot partition: {why}")));
        }
        // Checks the spec now, as a one-thread aggregation would.
        WindowAggregate::new(spec.clone())?;
        let keys = spec.key_columns.len();
        Ok(PartitionedWindowAggregate {
            threads: threads.clamp(2, usize::from(u8::MAX) + 1),
            workers: Vec::new(),
            in_flight: 0,
            hold_back,
            hash_state: foldhash::fast::FixedState::with_seed(0x7061_7274),
            hashes: Vec::new(),
            input_schema: None,
            metrics: OperatorMetrics::default(),
            window_end_column: keys + 1,
            window_time_column: keys + 2,
            spec,
        })
    }

    /// Starts the workers, on the first item (planning alone starts none).
    fn start_workers(&mut self) -> Result<()> {
        let mut spec = self.spec.clone();
        let mut fields: Vec<Field> = spec
            .output_schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields.push(Field::new("first_arrival", DataType::UInt64, false));
        spec.output_schema = Arc::new(Schema::new(fields));
        for i in 0..self.threads {
            spec.key_share = Some(KeyShare { index: i as u8 });
            let mut op = WindowAggregate::new(spec.clone())?;
            let (requests, take) = channel::<Request>();
            let (give, emitted) = channel();
            let (tell, reports) = channel();
            let thread = std::thread::Builder::new()
                .name(format!("tidemark-window-{i}"))
                .spawn(move || {
                    while let Ok(request) = take.recv() {
                        let sent = match request {
                            Request::Item(item) => {
                                let mut out = Vec::new();
                                give.send(op.process(item, &mut out).map(|()| out)).is_ok()
                            }
                            Request::Report => tell.send((op.metrics(), op.state())).is_ok(),
                        };
                        if !sent {
                            return;
                        }
                    }
                })
                .map_err(|e| Error::io("cannot start a window worker thread", e))?;
            self.workers.push(Worker {
                requests: Some(requests),
                emitted,
                reports,
                thread: Some(thread),
            });
        }
        Ok(())
    }

    /// The input schema with the owner column after its columns.
    fn marked_schema(&mut self, schema: &SchemaRef) -> SchemaRef {
        if let Some((input, marked)) = &self.input_schema {
            if Arc::ptr_eq(input, schema) || input == schema {
                return marked.clone();
            }
        }
        let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        fields.push(Field::new("owner", DataType::UInt8, false));
        let marked = Arc::new(Schema::new(fields));
        self.input_schema = Some((schema.clone(), marked.clone()));
        marked
    }

    /// Each worker's copy of `chunk`: the same rows, with each row's owner.
    fn split(&mut self, chunk: &Chunk) -> Result<Vec<StreamItem>> {
        let n = chunk.num_rows();
        let keys: Vec<ArrayRef> = self
            .spec
            .key_columns
            .iter()
            .map(|c| chunk.batch.column(*c).clone())
            .collect();
        self.hashes.clear();
        self.hashes.resize(n, 0);
        datafusion_common::hash_utils::create_hashes(&keys, &self.hash_state, &mut self.hashes)
            .map_err(|e| Error::Internal(format!("hashing group keys: {e}")))?;
        let workers = self.threads as u128;
        let owners = UInt8Array::from_iter_values(
            self.hashes
                .iter()
                // The hash's high bits pick the worker: no modulo bias.
                .map(|h| ((*h as u128 * workers) >> 64) as u8),
        );
        let mut columns = chunk.batch.columns().to_vec();
        columns.push(Arc::new(owners));
        let batch = RecordBatch::try_new(self.marked_schema(&chunk.batch.schema()), columns)?;
        Ok(vec![
            StreamItem::Chunk(chunk.with_batch(batch));
            self.threads
        ])
    }

    /// Sends each worker its copy of an item.
    fn send(&mut self, items: Vec<StreamItem>) -> Result<()> {
        for (worker, item) in self.workers.iter().zip(items) {
            worker.send(Request::Item(item))?;
        }
        self.in_flight += 1;
        Ok(())
    }

    /// Merges the results of the oldest item in flight into `out`.
    fn take_results(&mut self, out: &mut Vec<StreamItem>) -> Result<()> {
        let mut emitted = Vec::with_capacity(self.workers.len());
        let mut failure = None;
        for worker in &self.workers {
            match worker.emitted.recv().map_err(|_| worker_gone())? {
                Ok(items) => emitted.push(items),
                Err(e) => {
                    failure.get_or_insert(e);
                }
            }
        }
        self.in_flight -= 1;
        match failure {
            Some(e) => Err(e),
            None => self.merge(emitted, out),
        }
    }

    /// Merges what the workers emitted for one input item. Each worker's
    /// output is a sequence of stretches, each ending at a watermark
    /// advance (or the end): routed late rows (worker 0's), then the
    /// results of the windows that advance fired. Stretch by stretch, the
    /// results are put in one operator's order.
    fn merge(&mut self, emitted: Vec<Vec<StreamItem>>, out: &mut Vec<StreamItem>) -> Result<()> {
        let mut streams: Vec<_> = emitted.into_iter().map(Vec::into_iter).collect();
        loop {
            let mut sides: Vec<SideItem> = Vec::new();
            let mut results: Vec<RecordBatch> = Vec::new();
            let mut annotation = None;
            let mut closing: Option<StreamItem> = None;
            for (w, stream) in streams.iter_mut().enumerate() {
                let mut closed_by = None;
                for item in stream.by_ref() {
                    match item {
                        StreamItem::Chunk(c) if c.kinds.is_none() => {
                            annotation = c.watermarks.first().copied();
                            results.push(c.batch);
                        }
                        StreamItem::Chunk(_) => {
                            return Err(Error::Internal("a window worker emitted updates".into()))
                        }
                        StreamItem::Side(side) => sides.push(side),
                        StreamItem::Watermark(_) | StreamItem::End => {
                            closed_by = Some(item);
                            break;
                        }
                    }
                }
                let same = match (&closing, &closed_by) {
                    (_, _) if w == 0 => true,
                    (Some(StreamItem::Watermark(a)), Some(StreamItem::Watermark(b))) => a == b,
                    (Some(StreamItem::End), Some(StreamItem::End)) | (None, None) => true,
                    _ => false,
                };
                if !same {
                    return Err(Error::Internal(
                        "window workers disagree on the watermark".into(),
                    ));
                }
                if w == 0 {
                    closing = closed_by;
                }
            }
            out.extend(sides.into_iter().map(StreamItem::Side));
            if let Some(first) = results.first() {
                let fired_at = match closing {
                    Some(StreamItem::Watermark(w)) => w,
                    _ => {
                        return Err(Error::Internal(
                            "window results without the watermark that fired them".into(),
                        ))
                    }
                };
                let before = annotation.unwrap_or(fired_at);
                let all = concat_batches(&first.schema(), &results)?;
                self.put_in_order(&all, before, fired_at, out)?;
            }
            match closing {
                Some(item) => out.push(item),
                None => return Ok(()),
            }
        }
    }

    /// `results` of the windows fired as the watermark rose from `before`
    /// to `fired_at`, one chunk per window, in one operator's order.
    fn put_in_order(
        &mut self,
        results: &RecordBatch,
        before: i64,
        fired_at: i64,
        out: &mut Vec<StreamItem>,
    ) -> Result<()> {
        let first_arrival = results.num_columns() - 1;
        let order = lexsort_to_indices(
            &[
                self.window_time_column,
                self.window_end_column,
                first_arrival,
            ]
            .map(|c| SortColumn {
                values: results.column(c).clone(),
                options: None,
            }),
            None,
        )?;
        let sorted = take_record_batch(results, &order)?;
        let window_ends = sorted
            .column(self.window_end_column)
            .as_primitive::<TimestampMillisecondType>()
            .values()
            .clone();
        let sorted = RecordBatch::try_new(
            self.spec.output_schema.clone(),
            sorted.columns()[..first_arrival].to_vec(),
        )?;
        let mut start = 0;
        while start < sorted.num_rows() {
            let window_end = window_ends[start];
            let len = window_ends[start..].partition_point(|e| *e == window_end);
            self.metrics.window_fired(fired_at);
            self.metrics.rows_out += len as u64;
            out.push(StreamItem::Chunk(Chunk::new(
                sorted.slice(start, len),
                vec![before; len],
            )));
            start += len;
        }
        Ok(())
    }
}

impl Worker {
    fn send(&self, request: Request) -> Result<()> {
        self.requests
            .as_ref()
            .and_then(|r| r.send(request).ok())
            .ok_or_else(worker_gone)
    }

    /// Its numbers and state, once it has worked through what it was sent.
    fn report(&self) -> Result<(OperatorMetrics, StateSize)> {
        self.send(Request::Report)?;
        self.reports.recv().map_err(|_| worker_gone())
    }
}

fn worker_gone() -> Error {
    Error::Internal("a window worker thread stopped".into())
}

impl Drop for PartitionedWindowAggregate {
    fn drop(&mut self) {
        for worker in &mut self.workers {
            // Closing the channel ends the worker's loop.
            worker.requests = None;
        }
        for worker in &mut self.workers {
            if let Some(thread) = worker.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

impl Operator for PartitionedWindowAggregate {
    fn name(&self) -> String {
        "WindowAggregate".into()
    }

    fn process(&mut self, item: StreamItem, out: &mut Vec<StreamItem>) -> Result<()> {
        if self.workers.is_empty() {
            self.start_workers()?;
        }
        let end = matches!(item, StreamItem::End);
        match &item {
            StreamItem::Chunk(chunk) => {
                self.metrics.rows_in += chunk.num_rows() as u64;
                if chunk.num_rows() > 0 {
                    let items = self.split(chunk)?;
                    self.send(items)?;
                }
            }
            // Upstream's side items go out after the results before them.
            StreamItem::Side(_) => {
                while self.in_flight > 0 {
                    self.take_results(out)?;
                }
                out.push(item);
            }
            StreamItem::Watermark(_) | StreamItem::End => {
                let items = vec![item; self.threads];
                self.send(items)?;
            }
        }
        let may_wait = if end || !self.hold_back { 0 } else { IN_FLIGHT };
        while self.in_flight > may_wait {
            self.take_results(out)?;
        }
        Ok(())
    }

    fn state(&self) -> StateSize {
        let mut size = StateSize::default();
        for worker in &self.workers {
            if let Ok((_, state)) = worker.report() {
                // Split by key, every worker holds the same windows.
                let windows = size.windows.max(state.windows);
                size.add(state);
                size.windows = windows;
            }
        }
        size
    }

    fn release_held(&mut self, out: &mut Vec<StreamItem>) -> Result<()> {
        while self.in_flight > 0 {
            self.take_results(out)?;
        }
        Ok(())
    }

    fn metrics(&self) -> OperatorMetrics {
        let mut metrics = self.metrics.clone();
        // Worker 0 counts the late rows of every key.
        if let Some(worker) = self.workers.first() {
            if let Ok((m, _)) = worker.report() {
                metrics.late_rows = m.late_rows;
                metrics.partially_late_rows = m.partially_late_rows;
                metrics.lateness = m.lateness;
            }
        }
        metrics
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::stream::{Origin, SourceTable};
    use arrow::array::{Float64Array, Int64Array, StringArray, TimestampMillisecondArray};
    use tidemark_common::expr::{AggregateCall, AggregateFunction};
    use tidemark_common::time::NO_WATERMARK;
    use tidemark_common::SqlType;

    /// xorshift: a fixed stream of test inputs.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    fn spec(kind: WindowKind) -> WindowAggregateSpec {
        let ts = SqlType::Timestamp(3);
        let call = |func, arg: Option<usize>, ty: SqlType| AggregateCall {
            func,
            arg,
            arg_type: arg.map(|_| ty.clone()),
            distinct: false,
            separator: None,
            offset: 0,
            lag_default: None,
            ty,
        };
        let fields = [
            ("k", SqlType::String),
            ("window_start", ts.clone()),
            ("window_end", ts.clone()),
            ("window_time", ts),
            ("n", SqlType::BigInt),
            ("total", SqlType::BigInt),
            ("last", SqlType::BigInt),
            ("sum_d", SqlType::Double),
        ];
        WindowAggregateSpec {
            kind,
            time_column: 1,
            key_columns: vec![0],
            key_types: vec![SqlType::String],
            aggregates: vec![
                call(AggregateFunction::CountStar, None, SqlType::BigInt),
                call(AggregateFunction::Sum, Some(2), SqlType::BigInt),
                // Order-sensitive: a key's rows must stay in arrival order.
                call(AggregateFunction::LastValue, Some(2), SqlType::BigInt),
                // With two-phase sums (TUMBLE), grouped as Flink's buffer
                // flushes group them, which depends on every key's rows.
                call(AggregateFunction::Sum, Some(3), SqlType::Double),
            ],
            lateness: 0,
            output_schema: Arc::new(Schema::new(
                fields
                    .iter()
                    .map(|(name, ty)| Field::new(*name, ty.to_arrow(), true))
                    .collect::<Vec<_>>(),
            )),
            two_phase_sums: true,
            zone: None,
            trace: crate::time::trace::Tracing::Off,
            early_fire: None,
            key_share: None,
            attached: false,
        }
    }

    /// A disordered stream of `n` rows over `keys` keys, with the watermark
    /// (largest rowtime so far - 2 s) each row met, in chunks of random
    /// sizes with some watermark advances between them, then the final
    /// watermark and the end.
    /// With `routed`, chunks carry their source rows, so late rows are
    /// routed (as side items).
    fn stream(rng: &mut Rng, n: usize, keys: u64, routed: bool) -> Vec<StreamItem> {
        let table = Arc::new(SourceTable {
            name: "t".into(),
            types: vec![
                SqlType::String,
                SqlType::Timestamp(3),
                SqlType::BigInt,
                SqlType::Double,
            ],
            rowtime: None,
        });
        let mut items = Vec::new();
        let (mut max_ts, mut t) = (i64::MIN, 0i64);
        let mut i = 0;
        while i < n {
            let len = (1 + rng.below(40) as usize).min(n - i);
            let (mut k, mut ts, mut v, mut d, mut wms) = (vec![], vec![], vec![], vec![], vec![]);
            for _ in 0..len {
                t += rng.below(700) as i64;
                // Mostly in order; some rows seconds behind, a few late.
                let row_ts = t - [0, 0, 0, 900, 2_500, 9_000][rng.below(6) as usize];
                wms.push(if max_ts == i64::MIN {
                    NO_WATERMARK
                } else {
                    max_ts - 2_000
                });
                max_ts = max_ts.max(row_ts);
                k.push(format!("key{}", rng.below(keys)));
                ts.push(row_ts);
                v.push(rng.below(100) as i64);
                d.push(rng.below(1_000_000) as f64 * 1e-7 + 0.1);
            }
            let batch = RecordBatch::try_from_iter([
                ("k", Arc::new(StringArray::from(k)) as ArrayRef),
                (
                    "ts",
                    Arc::new(TimestampMillisecondArray::from(ts)) as ArrayRef,
                ),
                ("v", Arc::new(Int64Array::from(v)) as ArrayRef),
                ("d", Arc::new(Float64Array::from(d)) as ArrayRef),
            ])
            .expect("test batch");
            let mut chunk = Chunk::new(batch.clone(), wms);
            if routed {
                chunk.origin = Some(Origin {
                    batch,
                    rows: (0..len as u32).collect(),
                    table: table.clone(),
                    arrivals: std::sync::Arc::from([]),
                });
            }
            items.push(StreamItem::Chunk(chunk));
            if rng.below(3) == 0 {
                items.push(StreamItem::Watermark(max_ts - 2_000));
            }
            i += len;
        }
        items.push(StreamItem::Watermark(i64::MAX));
        items.push(StreamItem::End);
        items
    }

    /// What an operator emits for `items`, then releases, as text, and its
    /// numbers.
    fn run(op: &mut dyn Operator, items: &[StreamItem]) -> (Vec<String>, String) {
        let mut out = Vec::new();
        for item in items {
            op.process(item.clone(), &mut out).expect("process");
        }
        op.release_held(&mut out).expect("release");
        // Chunk boundaries are not results: chunks one after another are
        // shown as one.
        let mut text: Vec<String> = Vec::new();
        let mut chunks: Vec<&Chunk> = Vec::new();
        let show = |chunks: &mut Vec<&Chunk>, text: &mut Vec<String>| {
            if chunks.is_empty() {
                return;
            }
            let batches: Vec<RecordBatch> = chunks.iter().map(|c| c.batch.clone()).collect();
            let watermarks: Vec<i64> = chunks.iter().flat_map(|c| c.watermarks.clone()).collect();
            text.push(format!(
                "rows\n{}\nat {:?}",
                arrow::util::pretty::pretty_format_batches(&batches).expect("format"),
                watermarks
            ));
            chunks.clear();
        };
        for item in &out {
            if let StreamItem::Chunk(c) = item {
                chunks.push(c);
                continue;
            }
            show(&mut chunks, &mut text);
            text.push(match item {
                StreamItem::Watermark(w) => format!("watermark {w}"),
                StreamItem::Side(SideItem::Late(late)) => format!(
                    "late\n{}\nat {:?}",
                    arrow::util::pretty::pretty_format_batches(std::slice::from_ref(&late.batch))
                        .expect("format"),
                    late.watermarks
                ),
                StreamItem::Side(_) => "side".into(),
                StreamItem::End => "end".into(),
                StreamItem::Chunk(_) => unreachable!("chunks are shown above"),
            });
        }
        show(&mut chunks, &mut text);
        let m = op.metrics();
        let numbers = format!(
            "in {} out {} late {} partly {} fired {} before end {} p50 {:?} max {:?}",
            m.rows_in,
            m.rows_out,
            m.late_rows,
            m.partially_late_rows,
            m.windows_fired,
            m.windows_fired_before_end,
            m.lateness.percentile(50),
            m.lateness.max()
        );
        (text, numbers)
    }

    #[test]
    fn split_by_key_emits_what_one_operator_emits() {
        let kinds = [
            WindowKind::Tumble {
                size: 5_000,
                offset: 0,
            },
            WindowKind::Hop {
                slide: 2_000,
                size: 6_000,
                offset: 0,
            },
            WindowKind::Cumulate {
                step: 2_000,
                max_size: 8_000,
                offset: 1_000,
            },
        ];
        let mut rng = Rng(0x5eed_1234_abcd_0001);
        let mut routed_late = false;
        for case in 0..60 {
            let kind = kinds[case % kinds.len()];
            let rows = 1 + rng.below(400) as usize;
            let keys = 1 + rng.below(12);
            let items = stream(&mut rng, rows, keys, case % 2 == 1);
            let mut one = WindowAggregate::new(spec(kind)).expect("spec");
            let expected = run(&mut one, &items);
            assert!(expected.0.iter().any(|l| l.starts_with("rows")));
            routed_late |= expected.0.iter().any(|l| l.starts_with("late"));
            for threads in [2, 3] {
                // Results taken item by item, and held back a little.
                let hold_back = threads == 3;
                let mut split =
                    PartitionedWindowAggregate::new(spec(kind), threads, hold_back).expect("spec");
                let got = run(&mut split, &items);
                assert_eq!(got.1, expected.1, "case {case}, {threads} threads: numbers");
                assert_eq!(got.0, expected.0, "case {case}, {threads} threads: output");
            }
            // Stopped halfway (no end of input): what was held back comes
            // out, and it is what one operator had emitted by then.
            let half = &items[..items.len() / 2];
            let mut one = WindowAggregate::new(spec(kind)).expect("spec");
            let mut split = PartitionedWindowAggregate::new(spec(kind), 2, true).expect("spec");
            assert_eq!(
                run(&mut split, half),
                run(&mut one, half),
                "case {case}, stopped"
            );
        }
        assert!(routed_late, "no case routed late rows");
    }

    #[test]
    fn aggregations_whose_results_depend_on_every_key_stay_on_one_thread() {
        let tumble = || {
            spec(WindowKind::Tumble {
                size: 1_000,
                offset: 0,
            })
        };
        assert_eq!(partitionable(&tumble()), None);
        let mut with_lateness = tumble();
        with_lateness.lateness = 1;
        assert!(partitionable(&with_lateness).is_some());
        let mut keyless = tumble();
        keyless.key_columns.clear();
        keyless.key_types.clear();
        assert!(partitionable(&keyless).is_some());
        assert!(PartitionedWindowAggregate::new(keyless, 2, true).is_err());
    }
}
