//! Window Top-N and window deduplication (`ROW_NUMBER()`, `RANK()` or
//! `DENSE_RANK()` `OVER (PARTITION BY window_start, window_end, ... ORDER
//! BY ...)`), on the shared event-time service.
//!
//! Rows are kept per window until the watermark passes `window_end - 1`;
//! then the window's rows are sorted in one go — partitions in the order
//! of their first row, then by the ORDER BY columns, then by arrival — and
//! go out with their rank. A row whose window has already been ranked is
//! late. An outer `WHERE rownum <= N` keeps the top N; told of it (the
//! spec's `limit`), a window forgets rows that can no longer rank within
//! N as it goes (a row's rank only grows as rows arrive), keeping the
//! first row of each partition, which orders the partitions. Once it has
//! forgotten, it knows where each full partition's N-th row stands, and a
//! row arriving behind that is dropped as it comes, never held.

use crate::ops::emit::{key_converter, Emitter, Windowed, WindowedState};
use crate::ops::operator::{held_bytes, StateSize};
use crate::ops::window_buffer::{by_window, drop_late};
use crate::runtime::snapshot::{get_batch, put_batch, StateReader, StateWriter};
use crate::runtime::stream::Chunk;
use crate::time::service::{EventTime, TimerHandler};
use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Int64Array, RecordBatch, Scalar, UInt32Array,
};
use arrow::buffer::BooleanBuffer;
use arrow::compute::{
    filter_record_batch, lexsort_to_indices, take_record_batch, LexicographicalComparator,
    SortColumn, SortOptions,
};
use arrow::datatypes::SchemaRef;
use arrow::row::{OwnedRow, RowConverter, Rows, SortField};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::sync::Arc;
use tidemark_common::expr::AggregateFunction;
use tidemark_common::{Error, Result, RowKind, SqlType};

/// What a window ranking computes.
pub struct WindowRankSpec {
    pub partition: Vec<usize>,
    pub partition_types: Vec<SqlType>,
    /// Sort columns, each with its direction and NULLs' place, and type.
    pub order: Vec<(usize, SortOptions, SqlType)>,
    /// Rows equal in the order rank the latest arrival first (Flink's
    /// window deduplication keeping the last row), not the earliest.
    pub latest_first: bool,
    pub window_end: usize,
    /// One output column each: ROW_NUMBER, RANK or DENSE_RANK.
    pub funcs: Vec<AggregateFunction>,
    /// `(k, n)`: only rows whose rank by `funcs[k]` is at most `n` are
    /// used after this (a filter above drops the others).
    pub limit: Option<(usize, i64)>,
    /// Output: every input column, then the ranks (BIGINT).
    pub output_schema: SchemaRef,
}

/// Why a window ranking drops a row.
pub const LATE_REASON: &str = "its window was already ranked";

pub type WindowRank = Windowed<RankState>;

pub struct RankState {
    spec: WindowRankSpec,
    partition_rows: Option<RowConverter>,
    order_rows: RowConverter,
    /// Rows waiting for their window to end, by window end.
    windows: BTreeMap<i64, Vec<RecordBatch>>,
    /// With a limit: by window end, what the window keeps.
    kept: HashMap<i64, Kept>,
}

/// With a limit, what a window keeps.
#[derive(Default)]
struct Kept {
    /// The rows it held after it last forgot some.
    after_forget: usize,
    /// The rows it holds; it forgets again at twice `after_forget`.
    held: usize,
    /// By partition key, for each partition that held at least N rows
    /// ranked when the window last forgot: the ORDER BY values of its N-th
    /// row then. A row arriving after those values (or, for ROW_NUMBER
    /// with ties by arrival, at them) has N rows ranked before it for
    /// good: it is dropped as it arrives. Cut-offs only move up the
    /// ranking, so one dropped stays out of reach.
    cutoffs: Cutoffs,
    /// Rows of many partitions looked up against the cut-offs since the
    /// window last forgot, and how many of them were dropped.
    looked_up: usize,
    dropped: usize,
}

impl Kept {
    /// Whether rows of many partitions are still worth looking up one by
    /// one: a key per row costs about what holding the row until the
    /// window forgets does, so after a trial the look-ups go on only
    /// while they drop at least half the rows (until the window forgets
    /// again, with new cut-offs).
    fn look_up(&self) -> bool {
        self.looked_up < LOOK_UP_TRIAL || self.dropped * 2 >= self.looked_up
    }
}

/// Rows of many partitions looked up before [`Kept::look_up`] judges.
const LOOK_UP_TRIAL: usize = 1024;

/// By partition key, the ORDER BY values of a row.
type Cutoffs = HashMap<Box<[u8]>, OwnedRow, foldhash::fast::FixedState>;

/// Whether `column` holds one value (or only NULLs) throughout; false for
/// a type the comparison kernels do not take.
fn same_throughout(column: &ArrayRef) -> bool {
    if column.is_empty() {
        return true;
    }
    let first = Scalar::new(column.slice(0, 1));
    arrow::compute::kernels::cmp::not_distinct(column, &first)
        .is_ok_and(|same| same.true_count() == column.len())
}

/// With a limit, a window forgets rows once it holds at least this many
/// (a few in unit tests, so that they forget often).
#[cfg(not(test))]
const FORGET_FROM: usize = 4096;
#[cfg(test)]
const FORGET_FROM: usize = 3;

impl WindowRank {
    pub fn new(spec: WindowRankSpec) -> Result<Self> {
        for func in &spec.funcs {
            if !matches!(
                func,
                AggregateFunction::RowNumber
                    | AggregateFunction::Rank
                    | AggregateFunction::DenseRank
            ) {
                return Err(Error::Internal(format!(
                    "window ranking by {}",
                    func.name()
                )));
            }
        }
        let partition_rows = key_converter(&spec.partition_types)?;
        let order_rows = RowConverter::new(
            spec.order
                .iter()
                .map(|(_, options, ty)| SortField::new_with_options(ty.to_arrow(), *options))
                .collect(),
        )?;
        Ok(Windowed::from_state(RankState {
            spec,
            partition_rows,
            order_rows,
            windows: BTreeMap::new(),
            kept: HashMap::new(),
        }))
    }
}

impl WindowedState for RankState {
    const NAME: &'static str = "WindowRank";
    const LATE_REASON: &'static str = LATE_REASON;

    fn state(&self) -> StateSize {
        let batches = || self.windows.values().flatten();
        StateSize {
            entries: batches().map(|b| b.num_rows() as u64).sum(),
            bytes: held_bytes(batches()),
            windows: 0,
        }
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.windows.len() as u64);
        for (end, batches) in &self.windows {
            w.put(end);
            // A window's rows in arrival order, as one batch.
            match batches.first() {
                None => w.put(&false),
                Some(first) => {
                    w.put(&true);
                    put_batch(
                        w,
                        &arrow::compute::concat_batches(&first.schema(), batches)?,
                    )?;
                }
            }
        }
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let n = r.count()?;
        for _ in 0..n {
            let end: i64 = r.get()?;
            let rows = if r.get::<bool>()? {
                vec![get_batch(r)?]
            } else {
                Vec::new()
            };
            let held = rows.iter().map(RecordBatch::num_rows).sum();
            let kept = Kept {
                held,
                ..Kept::default()
            };
            self.kept.insert(end, kept);
            self.windows.insert(end, rows);
        }
        Ok(())
    }
}

impl RankState {
    /// The window's rows, ranked.
    fn rank(&self, rows: &RecordBatch) -> Result<RecordBatch> {
        let ranked = self.ranks(rows)?;
        let ordered = take_record_batch(rows, &ranked.sorted)?;
        let mut columns = ordered.columns().to_vec();
        for out in ranked.ranks {
            columns.push(Arc::new(Int64Array::from(out)));
        }
        Ok(RecordBatch::try_new(
            self.spec.output_schema.clone(),
            columns,
        )?)
    }

    /// The rows of `rows` (a window's, in arrival order) that may still
    /// rank within the limit `(k, n)`, in arrival order: those whose rank
    /// by `funcs[k]` is at most `n` now — a row's rank only grows as rows
    /// arrive, and one ranked within `n` at the end has every row ranked
    /// before it among these — and the first row of each partition, which
    /// places its partition in the output. With them, for ROW_NUMBER and
    /// RANK, each partition's first row and its `n`-th in ranking order,
    /// where it has `n` rows or more.
    fn forget(
        &self,
        rows: &RecordBatch,
        (k, n): (usize, i64),
    ) -> Result<(RecordBatch, Vec<(u32, u32)>)> {
        let func = &self.spec.funcs[k];
        if matches!(func, AggregateFunction::DenseRank) {
            // Ranks count distinct values: the whole ranking decides.
            let ranked = self.ranks(rows)?;
            let mut keep: Vec<u32> = ranked
                .sorted
                .values()
                .iter()
                .zip(&ranked.ranks[k])
                .filter(|(row, rank)| **rank <= n || ranked.first_of_partition[**row as usize])
                .map(|(row, _)| *row)
                .collect();
            keep.sort_unstable();
            return Ok((
                take_record_batch(rows, &UInt32Array::from(keep))?,
                Vec::new(),
            ));
        }
        // ROW_NUMBER and RANK: the n-th row of each partition in ranking
        // order is found without sorting the partition. ROW_NUMBER keeps
        // the rows up to it; RANK keeps every row whose ORDER BY values are
        // not after its (fewer than n rows rank strictly before such a
        // row, and at least n before any other).
        let partition_of = self.partitions(rows)?;
        let order_columns = self.order_columns(rows);
        let mut ranking_columns = order_columns.clone();
        ranking_columns.push(self.arrival_column(rows.num_rows()));
        let ranking = LexicographicalComparator::try_new(&ranking_columns)?;
        let peers = match order_columns.is_empty() {
            true => None,
            false => Some(LexicographicalComparator::try_new(&order_columns)?),
        };
        let mut by_partition: Vec<Vec<u32>> = Vec::new();
        for (row, p) in partition_of.iter().enumerate() {
            let p = *p as usize;
            if p == by_partition.len() {
                by_partition.push(Vec::new());
            }
            by_partition[p].push(row as u32);
        }
        let within = usize::try_from(n.max(0)).unwrap_or(usize::MAX);
        let mut keep: Vec<u32> = Vec::new();
        let mut nths = Vec::new();
        for mut members in by_partition {
            let first = members[0];
            let from = keep.len();
            if members.len() < within {
                keep.extend_from_slice(&members);
                continue;
            }
            if within == 0 {
                keep.push(first);
                continue;
            }
            let (before, nth, _) = members.select_nth_unstable_by(within - 1, |a, b| {
                ranking.compare(*a as usize, *b as usize)
            });
            let nth = *nth;
            nths.push((first, nth));
            match (func, &peers) {
                (AggregateFunction::Rank, Some(peers)) => {
                    keep.extend(members.iter().copied().filter(|row| {
                        peers.compare(*row as usize, nth as usize) != std::cmp::Ordering::Greater
                    }));
                }
                // Without ORDER BY columns every row ranks first.
                (AggregateFunction::Rank, None) => keep.extend_from_slice(&members),
                _ => {
                    keep.extend_from_slice(before);
                    keep.push(nth);
                }
            }
            if !keep[from..].contains(&first) {
                keep.push(first);
            }
        }
        keep.sort_unstable();
        Ok((take_record_batch(rows, &UInt32Array::from(keep))?, nths))
    }

    /// Whether `rows` are all of one partition. A window's rows share
    /// their window columns, so where those are the only partition columns
    /// (a Top-N of the whole window) they always are, found by comparing
    /// whole columns rather than converting every row's key.
    fn one_partition(&self, rows: &RecordBatch) -> bool {
        self.spec
            .partition
            .iter()
            .all(|c| same_throughout(rows.column(*c)))
    }

    /// The partition key of `rows`' row `row`.
    fn partition_key(&self, rows: &RecordBatch, row: usize) -> Result<Box<[u8]>> {
        let Some(conv) = &self.partition_rows else {
            return Ok(Box::default());
        };
        let cols = self.partition_columns(rows);
        let cols: Vec<ArrayRef> = cols.iter().map(|c| c.slice(row, 1)).collect();
        Ok(conv.convert_columns(&cols)?.row(0).data().into())
    }

    /// Each row's partition key, converted one by one (rows without
    /// partition columns share theirs).
    fn each_partition_key(&self, rows: &RecordBatch) -> Result<Rows> {
        let Some(conv) = &self.partition_rows else {
            return Err(Error::Internal("a ranking without partition keys".into()));
        };
        Ok(conv.convert_columns(&self.partition_columns(rows))?)
    }

    fn partition_columns(&self, rows: &RecordBatch) -> Vec<ArrayRef> {
        self.spec
            .partition
            .iter()
            .map(|c| rows.column(*c).clone())
            .collect()
    }

    /// Each row's partition, numbered by first arrival.
    fn partitions(&self, rows: &RecordBatch) -> Result<Vec<u32>> {
        let n = rows.num_rows();
        if self.one_partition(rows) {
            return Ok(vec![0; n]);
        }
        let keys = self.each_partition_key(rows)?;
        let mut first: HashMap<&[u8], u32, _> =
            HashMap::with_hasher(foldhash::fast::FixedState::with_seed(0x7261_6e6b));
        Ok((0..n)
            .map(|i| {
                let next = first.len() as u32;
                *first.entry(keys.row(i).data()).or_insert(next)
            })
            .collect())
    }

    /// The ORDER BY columns of `rows`, as rows that compare in ranking
    /// order (arrival aside).
    fn order_keys(&self, rows: &RecordBatch) -> Result<Rows> {
        Ok(self.order_rows.convert_columns(&self.order_arrays(rows))?)
    }

    fn order_arrays(&self, rows: &RecordBatch) -> Vec<ArrayRef> {
        self.spec
            .order
            .iter()
            .map(|(c, _, _)| rows.column(*c).clone())
            .collect()
    }

    /// The ORDER BY columns of `rows`, as sort columns.
    fn order_columns(&self, rows: &RecordBatch) -> Vec<SortColumn> {
        let options = self.spec.order.iter().map(|(_, options, _)| Some(*options));
        let columns = self.order_arrays(rows).into_iter().zip(options);
        columns
            .map(|(values, options)| SortColumn { values, options })
            .collect()
    }

    /// Arrival order (the last tie-break), as a sort column: earliest
    /// first, or latest first for a window deduplication keeping the last
    /// row.
    fn arrival_column(&self, rows: usize) -> SortColumn {
        SortColumn {
            values: Arc::new(UInt32Array::from_iter_values(0..rows as u32)),
            options: Some(SortOptions {
                descending: self.spec.latest_first,
                nulls_first: false,
            }),
        }
    }

    /// How the window's rows rank: their order — partitions in the order
    /// of their first row, then by the ORDER BY columns, then by arrival —
    /// and each function's rank in it.
    fn ranks(&self, rows: &RecordBatch) -> Result<Ranked> {
        let n = rows.num_rows();
        let partition_of = self.partitions(rows)?;
        let mut first_of_partition = vec![false; n];
        let mut partitions_seen = 0;
        for (is_first, p) in first_of_partition.iter_mut().zip(&partition_of) {
            *is_first = *p == partitions_seen;
            partitions_seen += u32::from(*is_first);
        }
        let partition_of = UInt32Array::from(partition_of);
        let mut sort = vec![SortColumn {
            values: Arc::new(partition_of.clone()),
            options: None,
        }];
        sort.extend(self.order_columns(rows));
        sort.push(self.arrival_column(n));
        let sorted = lexsort_to_indices(&sort, None)?;
        let order_cols: Vec<ArrayRef> = self
            .spec
            .order
            .iter()
            .map(|(c, _, _)| arrow::compute::take(rows.column(*c), &sorted, None))
            .collect::<std::result::Result<_, _>>()?;
        let order_keys = self.order_rows.convert_columns(&order_cols)?;
        let partitions = arrow::compute::take(&partition_of, &sorted, None)?;
        let partitions = partitions.as_primitive::<arrow::datatypes::UInt32Type>();
        let mut ranks: Vec<Vec<i64>> = vec![Vec::with_capacity(n); self.spec.funcs.len()];
        let (mut number, mut rank, mut dense) = (0i64, 0i64, 0i64);
        for i in 0..n {
            let new_partition = i == 0 || partitions.value(i) != partitions.value(i - 1);
            if new_partition {
                (number, rank, dense) = (0, 0, 0);
            }
            number += 1;
            let tie = !new_partition && order_keys.row(i) == order_keys.row(i - 1);
            if !tie {
                rank = number;
                dense += 1;
            }
            for (out, func) in ranks.iter_mut().zip(&self.spec.funcs) {
                out.push(match func {
                    AggregateFunction::RowNumber => number,
                    AggregateFunction::Rank => rank,
                    _ => dense,
                });
            }
        }
        Ok(Ranked {
            sorted,
            ranks,
            first_of_partition,
        })
    }
}

impl RankState {
    /// Window `end`, given `added` rows, forgets the rows out of reach of
    /// `limit` once it holds twice what it kept last time (and at least
    /// [`FORGET_FROM`]), so each row is ranked a bounded number of times
    /// on average.
    fn forget_in(&mut self, end: i64, added: usize, limit: (usize, i64)) -> Result<()> {
        let kept = self.kept.entry(end).or_default();
        kept.held += added;
        if kept.held < FORGET_FROM.max(2 * kept.after_forget) {
            return Ok(());
        }
        let Some(parts) = self.windows.get(&end) else {
            return Ok(());
        };
        let Some(first) = parts.first() else {
            return Ok(());
        };
        let rows = arrow::compute::concat_batches(&first.schema(), parts)?;
        let (left, nths) = self.forget(&rows, limit)?;
        let kept = Kept {
            after_forget: left.num_rows(),
            held: left.num_rows(),
            cutoffs: self.cutoffs(&rows, &nths)?,
            ..Kept::default()
        };
        self.kept.insert(end, kept);
        self.windows.insert(end, vec![left]);
        Ok(())
    }

    /// [`Kept::cutoffs`] from `rows` (a window's, before it forgot) and,
    /// for each partition of them holding N rows or more, its first row
    /// and its N-th in ranking order.
    fn cutoffs(&self, rows: &RecordBatch, nths: &[(u32, u32)]) -> Result<Cutoffs> {
        let mut cutoffs = Cutoffs::with_hasher(foldhash::fast::FixedState::with_seed(0x6375_7473));
        if nths.is_empty() {
            return Ok(cutoffs);
        }
        // Only the rows and columns the cut-offs need.
        let picked = |columns: Vec<ArrayRef>, rows: UInt32Array| -> Result<Vec<ArrayRef>> {
            let pick = |column: &ArrayRef| arrow::compute::take(column, &rows, None);
            Ok(columns
                .iter()
                .map(pick)
                .collect::<std::result::Result<_, _>>()?)
        };
        let firsts = UInt32Array::from_iter_values(nths.iter().map(|(first, _)| *first));
        let nth_rows = UInt32Array::from_iter_values(nths.iter().map(|(_, nth)| *nth));
        let order = picked(self.order_arrays(rows), nth_rows)?;
        let order = self.order_rows.convert_columns(&order)?;
        let keys = match &self.partition_rows {
            Some(conv) => {
                Some(conv.convert_columns(&picked(self.partition_columns(rows), firsts)?)?)
            }
            None => None,
        };
        for i in 0..nths.len() {
            let key = keys.as_ref().map_or(&[][..], |keys| keys.row(i).data());
            cutoffs.insert(key.into(), order.row(i).owned());
        }
        Ok(cutoffs)
    }

    /// The rows of `rows` (arriving in window `end`) not ranked after
    /// their partition's cut-off ([`Kept::cutoffs`]), in arrival order.
    fn within_reach(
        &mut self,
        end: i64,
        rows: RecordBatch,
        (k, _): (usize, i64),
    ) -> Result<RecordBatch> {
        let Some(kept) = self.kept.get(&end).filter(|kept| !kept.cutoffs.is_empty()) else {
            return Ok(rows);
        };
        if rows.num_rows() == 0 {
            return Ok(rows);
        }
        // Rows of one partition (always, for a Top-N of the whole window)
        // meet one cut-off; others each look theirs up.
        let (shared, each) = match self.one_partition(&rows) {
            true => match kept.cutoffs.get(&self.partition_key(&rows, 0)?) {
                Some(cutoff) => (Some(cutoff), None),
                None => return Ok(rows),
            },
            false if !kept.look_up() => return Ok(rows),
            false => (None, Some(self.each_partition_key(&rows)?)),
        };
        // ROW_NUMBER ranks a row after an earlier one with its values,
        // unless ties go latest first; RANK ranks them together.
        let ties_out =
            matches!(self.spec.funcs[k], AggregateFunction::RowNumber) && !self.spec.latest_first;
        let order = self.order_keys(&rows)?;
        let in_reach = |i: usize, cutoff: &OwnedRow| match ties_out {
            true => order.row(i) < cutoff.row(),
            false => order.row(i) <= cutoff.row(),
        };
        let cutoff_of = |i: usize| match &each {
            Some(keys) => kept.cutoffs.get(keys.row(i).data()),
            None => shared,
        };
        let n = rows.num_rows();
        let keep = BooleanBuffer::collect_bool(n, |i| {
            cutoff_of(i).is_none_or(|cutoff| in_reach(i, cutoff))
        });
        let kept_rows = keep.count_set_bits();
        if let (Some(_), Some(kept)) = (each, self.kept.get_mut(&end)) {
            kept.looked_up += n;
            kept.dropped += n - kept_rows;
        }
        if kept_rows == n {
            return Ok(rows);
        }
        Ok(filter_record_batch(&rows, &BooleanArray::new(keep, None))?)
    }
}

/// A window's rows ranked ([`RankState::ranks`]).
struct Ranked {
    /// Row indices (arrival order) in ranking order.
    sorted: UInt32Array,
    /// Per function, each row's rank, in ranking order.
    ranks: Vec<Vec<i64>>,
    /// By arrival: whether the row is the first of its partition.
    first_of_partition: Vec<bool>,
}

impl TimerHandler for RankState {
    type Key = i64;
    type Output = Emitter;

    fn on_rows(
        &mut self,
        time: &mut EventTime<i64>,
        chunk: &Chunk,
        range: Range<usize>,
        out: &mut Emitter,
    ) -> Result<usize> {
        let run = by_window(time, chunk, range, self.spec.window_end, |end| {
            self.windows.contains_key(&end)
        })?;
        for (row, end) in run.late {
            drop_late(chunk, (row, end), out)?;
        }
        for (end, rows) in run.windows {
            let rows = match self.spec.limit {
                Some(limit) => self.within_reach(end, rows, limit)?,
                None => rows,
            };
            let added = rows.num_rows();
            if added == 0 {
                continue;
            }
            self.windows.entry(end).or_default().push(rows);
            if let Some(limit) = self.spec.limit {
                self.forget_in(end, added, limit)?;
            }
        }
        Ok(run.consumed)
    }

    fn on_timer(
        &mut self,
        time: &mut EventTime<i64>,
        _at: i64,
        end: i64,
        out: &mut Emitter,
    ) -> Result<()> {
        self.kept.remove(&end);
        let Some(parts) = self.windows.remove(&end) else {
            return Ok(());
        };
        let Some(first) = parts.first() else {
            return Ok(());
        };
        let rows = arrow::compute::concat_batches(&first.schema(), &parts)?;
        out.rows(self.rank(&rows)?, RowKind::Insert)?;
        out.window_fired(time.watermark());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Window Top-N as the planner builds it: `ROW_NUMBER()`, `RANK()` and
    //! `DENSE_RANK()` `OVER (PARTITION BY window_start, window_end, k ORDER
    //! BY v DESC)` over a 5 s TUMBLE.

    use super::*;
    use crate::ops::operator::Operator;
    use crate::ops::testing::{
        events, in_chunks, lines, resumed, rows_only, run, s, windowed, windowed_schema,
    };
    use crate::runtime::stream::StreamItem;
    use arrow::datatypes::{DataType, Field, Schema};
    use tidemark_common::window::WindowKind;

    fn top_n() -> Result<WindowRank> {
        top_n_within(None, false)
    }

    /// [`top_n`] told that only ranks within `limit` are used, ties
    /// ranked latest first when `latest_first`.
    fn top_n_within(limit: Option<(usize, i64)>, latest_first: bool) -> Result<WindowRank> {
        ranking(true, limit, latest_first)
    }

    /// [`top_n_within`], partitioned by `k` within each window when
    /// `by_key`, else ranking each window's rows all together.
    fn ranking(
        by_key: bool,
        limit: Option<(usize, i64)>,
        latest_first: bool,
    ) -> Result<WindowRank> {
        let mut fields: Vec<Field> = windowed_schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        for name in ["ROW_NUMBER()", "RANK()", "DENSE_RANK()"] {
            fields.push(Field::new(name, DataType::Int64, true));
        }
        let ts = SqlType::Timestamp(3);
        // window_start, window_end (, k)
        let (mut partition, mut partition_types) = (vec![3, 4], vec![ts.clone(), ts]);
        if by_key {
            partition.push(0);
            partition_types.push(SqlType::String);
        }
        WindowRank::new(WindowRankSpec {
            partition,
            partition_types,
            // NULL is the smallest value: last, descending.
            order: vec![(
                2,
                SortOptions {
                    descending: true,
                    nulls_first: false,
                },
                SqlType::BigInt,
            )],
            latest_first,
            window_end: 4,
            funcs: vec![
                AggregateFunction::RowNumber,
                AggregateFunction::Rank,
                AggregateFunction::DenseRank,
            ],
            limit,
            output_schema: Arc::new(Schema::new(fields)),
        })
    }

    /// Rows `(k, ts, v)`, watermark `ts - 1 s`, through `TUMBLE(5 s)`.
    /// Watermarks met: -inf, 0, 1, 2, 3, 3, 5, 5, 7 s.
    fn arrivals() -> Result<Chunk> {
        let rows = [
            ("a", 1, 3),
            ("b", 2, 5),
            ("a", 3, 7),
            ("a", 4, 3),
            ("b", 3, 6),
            ("a", 6, 2),
            ("a", 2, 9),
            ("b", 8, 4),
            ("a", 9, 4),
        ]
        .map(|(k, t, v)| (k, s(t), v));
        windowed(
            WindowKind::Tumble {
                size: s(5),
                offset: 0,
            },
            events(&rows, s(1)),
        )
    }

    #[test]
    fn each_window_is_ranked_when_it_ends_and_a_row_after_that_is_late() -> Result<()> {
        let lines = run(&mut top_n()?, vec![StreamItem::Chunk(arrivals()?)])?;
        // [0,5) ends when the watermark reaches 4.999 s (5 s, before a@2):
        // partitions in the order of their first row, a then b; in each,
        // v descending, ties by arrival: a 7, 3 (a@1), 3 (a@4) ranks
        // 1 2 3 / 1 2 2 / 1 2 2; b 6, 5. a@2 (v 9) belongs to [0,5), already
        // ranked: late. Nothing else is due by 7 s, the last watermark met,
        // which goes out at the chunk's end; [5,10) is ranked at the end of
        // input: a 4, 2; b 4.
        assert_eq!(
            lines,
            [
                "+I[a, 3000, 7, 0, 5000, 4999, 1, 1, 1]",
                "+I[a, 1000, 3, 0, 5000, 4999, 2, 2, 2]",
                "+I[a, 4000, 3, 0, 5000, 4999, 3, 2, 2]",
                "+I[b, 3000, 6, 0, 5000, 4999, 1, 1, 1]",
                "+I[b, 2000, 5, 0, 5000, 4999, 2, 2, 2]",
                "WM 5000",
                "LATE[a, 2000, 9] @5000",
                "WM 7000",
                "+I[a, 9000, 4, 5000, 10000, 9999, 1, 1, 1]",
                "+I[a, 6000, 2, 5000, 10000, 9999, 2, 2, 2]",
                "+I[b, 8000, 4, 5000, 10000, 9999, 1, 1, 1]",
                "WM end",
                "END",
            ]
        );
        Ok(())
    }

    #[test]
    fn a_late_row_counts_as_late_by_its_window_time() -> Result<()> {
        let mut op = top_n()?;
        run(&mut op, vec![StreamItem::Chunk(arrivals()?)])?;
        let m = op.metrics();
        // a@2 met watermark 5 s; its window's window_time is 4.999 s.
        assert_eq!((m.late_rows, m.lateness.max()), (1, Some(1)));
        assert_eq!((m.windows_fired, m.windows_fired_before_end), (2, 1));
        Ok(())
    }

    /// Many rows per window over few keys, values with many ties, a
    /// little disorder, one late row.
    fn crowded() -> Result<Chunk> {
        let mut rng = crate::ops::testing::Rng(0x2545_f491_4f6c_dd1d);
        let mut next = |n: u64| rng.below(n);
        let keys = ["a", "b", "c"];
        let mut rows: Vec<(&str, i64, i64)> = (0..400)
            .map(|i| {
                let t = i * 40 + next(1500) as i64;
                (keys[next(3) as usize], t, next(6) as i64)
            })
            .collect();
        rows.push(("a", 100, 9));
        windowed(
            WindowKind::Tumble {
                size: s(5),
                offset: 0,
            },
            events(&rows, s(1)),
        )
    }

    /// Rows whose rank by function `k` (the `k`-th of the three rank
    /// columns that end each line) is at most `n`, other lines as they
    /// are: what `WHERE rank <= n` above the ranking lets through.
    fn within(lines: Vec<String>, k: usize, n: i64) -> Vec<String> {
        lines
            .into_iter()
            .filter(|line| {
                let Some(row) = line.strip_prefix("+I[") else {
                    return true;
                };
                let ranks: Vec<i64> = row
                    .trim_end_matches(']')
                    .rsplit(", ")
                    .take(3)
                    .map(|r| r.parse().unwrap_or(i64::MAX))
                    .collect();
                ranks[2 - k] <= n
            })
            .collect()
    }

    #[test]
    fn told_its_limit_a_ranking_forgets_rows_and_gives_the_same_top_rows() -> Result<()> {
        let chunk = crowded()?;
        for (by_key, latest_first) in [(true, false), (true, true), (false, false), (false, true)] {
            let top_n_within = |limit, latest_first| ranking(by_key, limit, latest_first);
            for (k, n) in [(0, 1), (0, 3), (1, 1), (1, 2), (2, 1), (2, 2)] {
                let all = run(
                    &mut top_n_within(None, latest_first)?,
                    vec![StreamItem::Chunk(chunk.clone())],
                )?;
                let want = within(rows_only(all), k, n);
                let ranked = want.iter().filter(|l| l.starts_with("+I")).count();
                assert!(ranked > if by_key { 6 } else { 2 }, "{ranked}");
                for batch in [1, 7, chunk.num_rows()] {
                    let mut limited = top_n_within(Some((k, n)), latest_first)?;
                    let got = within(
                        rows_only(run(&mut limited, in_chunks(&chunk, batch))?),
                        k,
                        n,
                    );
                    assert_eq!(
                        got, want,
                        "rank {k} <= {n}, latest first {latest_first}, batch {batch}"
                    );
                }
                // Across a checkpoint taken with rows forgotten and held.
                let half = chunk.num_rows() / 2;
                let mut op = top_n_within(Some((k, n)), latest_first)?;
                let mut first = Vec::new();
                op.process(StreamItem::Chunk(chunk.slice(0, half)), &mut first)?;
                let mut back = resumed(&op, top_n_within(Some((k, n)), latest_first)?)?;
                let rest = chunk.slice(half, chunk.num_rows() - half);
                let mut all = lines(first);
                all.extend(run(&mut back, vec![StreamItem::Chunk(rest)])?);
                assert_eq!(
                    within(rows_only(all), k, n),
                    want,
                    "resumed, rank {k} <= {n}"
                );
                // Before the end, the open windows hold fewer rows told the
                // limit (ties within it are all kept).
                let mut held = Vec::new();
                for limit in [None, Some((k, n))] {
                    let mut op = top_n_within(limit, latest_first)?;
                    op.process(StreamItem::Chunk(chunk.clone()), &mut Vec::new())?;
                    held.push(op.state().entries);
                }
                assert!(held[1] < held[0], "{held:?}");
            }
        }
        Ok(())
    }

    #[test]
    fn a_row_ranked_behind_the_top_rows_is_dropped_as_it_arrives() -> Result<()> {
        // One 5 s window, v 9, 8, 7, then 8 nine times (v descending ranks
        // first). Told a limit of 2, the window forgets at its third row,
        // keeping 9 and 8, the second its cut-off. Each later 8 ties with
        // it: ROW_NUMBER ranks it third by arrival, so it is dropped as it
        // arrives and the window holds two rows from then on (held until
        // the next forget, it would hold three and four); RANK ranks it
        // second, so every one is held. Told a limit of 1, the window holds
        // 9 alone from its third row on.
        let rows: Vec<(&str, i64, i64)> = [9, 8, 7, 8, 8, 8, 8, 8, 8, 8, 8, 8]
            .iter()
            .enumerate()
            .map(|(i, v)| ("a", 100 + i as i64, *v))
            .collect();
        let chunk = windowed(
            WindowKind::Tumble {
                size: s(5),
                offset: 0,
            },
            events(&rows, s(60)),
        )?;
        for by_key in [true, false] {
            for (k, n, held_from_third) in [(0, 2, Some(2)), (0, 1, Some(1)), (1, 2, None)] {
                let mut op = ranking(by_key, Some((k, n)), false)?;
                let mut held = Vec::new();
                for item in in_chunks(&chunk, 1) {
                    op.process(item, &mut Vec::new())?;
                    held.push(op.state().entries);
                }
                let want: Vec<u64> = match held_from_third {
                    Some(h) => vec![h; 10],
                    None => (2..12).collect(),
                };
                assert_eq!(held[2..], want, "rank {k} <= {n}, by key {by_key}");
            }
        }
        Ok(())
    }

    #[test]
    fn results_do_not_depend_on_the_batch_size() -> Result<()> {
        let chunk = arrivals()?;
        let whole = rows_only(run(&mut top_n()?, vec![StreamItem::Chunk(chunk.clone())])?);
        for batch in [1, 2, 3] {
            let cut = rows_only(run(&mut top_n()?, in_chunks(&chunk, batch))?);
            assert_eq!(cut, whole, "batch {batch}");
        }
        Ok(())
    }

    #[test]
    fn a_checkpoint_with_rows_waiting_resumes_to_the_same_output() -> Result<()> {
        // After five rows, [0,5) holds its rows, not yet ranked.
        let chunk = arrivals()?;
        let mut first = Vec::new();
        let mut op = top_n()?;
        op.process(StreamItem::Chunk(chunk.slice(0, 5)), &mut first)?;
        let mut back = resumed(&op, top_n()?)?;
        let rest = vec![StreamItem::Chunk(chunk.slice(5, 4))];
        let resumed_lines = run(&mut back, rest.clone())?;
        assert_eq!(resumed_lines, run(&mut op, rest)?);
        let mut all = lines(first);
        all.extend(resumed_lines);
        let straight = run(&mut top_n()?, vec![StreamItem::Chunk(chunk)])?;
        assert_eq!(rows_only(all), rows_only(straight));
        assert_eq!(back.metrics().late_rows, 1);
        Ok(())
    }
}
