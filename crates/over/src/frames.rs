//! The frames of emitted rows and the output built from them.
//!
//! A bounded frame (`n PRECEDING`) keeps, per key, the emitted rows a
//! later frame can still need: its last `n + 1` rows (ROWS), or its rows
//! from `last emitted - d` on (RANGE). Two ways to aggregate over it:
//!
//! - DOUBLE `SUM` and `AVG` run incrementally in Flink's order — for each
//!   row, first retract what left the frame, then add the row — because
//!   floating-point results depend on that order and must match Flink's
//!   bit for bit.
//! - `MIN` and `MAX` of primitive types keep a monotonic queue per key (the
//!   values that can still be the extreme), in Flink's value order.
//! - Every other aggregate is exact whatever the order (integers wrap,
//!   decimals are exact, FIRST/LAST pick a value), so each emitted row
//!   records its frame's rows and the output build feeds them all to fresh
//!   accumulators at once, one group per output row.
//!
//! An unbounded frame keeps running accumulators per key (adding only, as
//! Flink does), and no rows.

use crate::store::{RowRef, Store};
use crate::OverSpec;
use arrow::array::{ArrayRef, Float64Array, RecordBatch};
use arrow::datatypes::SchemaRef;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use tidemark_common::expr::{AggregateCall, AggregateFunction};
use tidemark_common::window::{FrameUnits, OverFrame};
use tidemark_common::{Error, Result, SqlType};
use tidemark_engine::snapshot::{StateReader, StateWriter};
use tidemark_engine::Chunk;
use tidemark_engine::{new_accumulator, Accumulator};

/// Where emitted rows go out: their key, rowtime, and the watermark they
/// carry downstream (the one before the advance that let them out).
pub struct Out {
    pub key: u32,
    pub rowtime: i64,
    pub watermark: i64,
}

/// A DOUBLE SUM or AVG over a bounded frame, kept as Flink keeps it: a sum
/// and a count per key, rows added and retracted one at a time.
struct Running {
    arg: usize,
    average: bool,
    /// Per key id: the sum (SUM: none before the first value; AVG: from
    /// 0.0) and how many non-NULL values it holds.
    keys: Vec<(Option<f64>, i64)>,
    /// Per key id: the values added and not yet retracted, oldest first
    /// (the rows of the key's history, in its order).
    values: Vec<VecDeque<Option<f64>>>,
    /// The results of the rows emitted since the last build.
    out: Vec<Option<f64>>,
}

impl Running {
    fn add(&mut self, key: usize, value: Option<f64>) {
        self.values[key].push_back(value);
        let Some(v) = value else { return };
        let (sum, count) = &mut self.keys[key];
        *sum = Some(match *sum {
            Some(s) => s + v,
            None if self.average => 0.0 + v,
            None => v,
        });
        *count += 1;
    }

    /// Retracts the oldest value still added.
    fn retract_oldest(&mut self, key: usize) {
        let Some(Some(v)) = self.values[key].pop_front() else {
            return;
        };
        let (sum, count) = &mut self.keys[key];
        *sum = Some(sum.unwrap_or(0.0) - v);
        *count -= 1;
    }

    fn value(&self, key: usize) -> Option<f64> {
        let (sum, count) = self.keys[key];
        if count == 0 {
            return None;
        }
        let sum = sum?;
        Some(if self.average {
            sum / count as f64
        } else {
            sum
        })
    }
}

/// MIN or MAX over a bounded frame of a primitive type, as a monotonic
/// queue per key: the values that can still be the extreme, oldest first.
/// Values compare in Flink's order (for DOUBLE, Java's `Double.compareTo`:
/// -0.0 below 0.0, NaN above all), as its retracting MIN/MAX do.
struct Extreme {
    arg: usize,
    max: bool,
    ty: SqlType,
    /// Per key id: (position: row number or rowtime, order key, raw value).
    keys: Vec<VecDeque<(i64, i128, i128)>>,
    /// Per key id: rows added so far (ROWS positions).
    added: Vec<i64>,
    out: Vec<Option<i128>>,
}

impl Extreme {
    /// The key values compare by: DOUBLE bits mapped to a total order.
    fn order(&self, raw: i128) -> i128 {
        if self.ty != SqlType::Double {
            return raw;
        }
        let bits = raw as u64 as i64;
        // Negative numbers reverse; NaN (positive) lands above +inf.
        (bits ^ (((bits >> 63) as u64) >> 1) as i64) as i128
    }

    fn add(&mut self, key: usize, position: i64, raw: Option<i128>) {
        let Some(raw) = raw else { return };
        let order = self.order(raw);
        let max = self.max;
        let queue = &mut self.keys[key];
        // A later value at least as extreme makes earlier ones useless;
        // equal ones stay (the oldest is the answer, as it would be).
        while queue
            .back()
            .is_some_and(|(_, o, _)| if max { *o < order } else { *o > order })
        {
            queue.pop_back();
        }
        queue.push_back((position, order, raw));
    }

    /// Drops the values before `first` (a row number or rowtime).
    fn evict(&mut self, key: usize, first: i64) {
        let queue = &mut self.keys[key];
        while queue.front().is_some_and(|(p, _, _)| *p < first) {
            queue.pop_front();
        }
    }

    fn value(&self, key: usize) -> Option<i128> {
        self.keys[key].front().map(|(_, _, raw)| *raw)
    }

    fn array(&mut self) -> Result<ArrayRef> {
        use arrow::array::{Decimal128Array, Int32Array, Int64Array, TimestampMillisecondArray};
        let out = std::mem::take(&mut self.out);
        Ok(match &self.ty {
            SqlType::Int => Arc::new(Int32Array::from_iter(
                out.iter().map(|v| v.map(|v| v as i32)),
            )),
            SqlType::BigInt => Arc::new(Int64Array::from_iter(
                out.iter().map(|v| v.map(|v| v as i64)),
            )),
            SqlType::Double => Arc::new(Float64Array::from_iter(
                out.iter().map(|v| v.map(|v| f64::from_bits(v as u64))),
            )),
            SqlType::Decimal(p, s) => Arc::new(
                Decimal128Array::from_iter(out.iter().copied()).with_precision_and_scale(*p, *s)?,
            ),
            ty @ (SqlType::Timestamp(_) | SqlType::TimestampLtz(_)) => {
                let tz = match ty.to_arrow() {
                    arrow::datatypes::DataType::Timestamp(_, tz) => tz,
                    _ => None,
                };
                Arc::new(
                    TimestampMillisecondArray::from_iter(out.iter().map(|v| v.map(|v| v as i64)))
                        .with_timezone_opt(tz),
                )
            }
            other => return Err(Error::Internal(format!("MIN/MAX queue over {other}"))),
        })
    }
}

/// ROW_NUMBER, RANK/DENSE_RANK and LAG, which the OVER operator computes
/// itself, per key, as Flink does over a rowtime order (these take the
/// window's default frame: all rows up to the current rowtime).
enum Ranking {
    /// 1, 2, 3, ... row by row, peers included.
    RowNumber { numbers: Vec<i64>, out: Vec<i64> },
    /// Flink's RANK and DENSE_RANK over rowtime: the key's rows up to the
    /// current rowtime, its peers included.
    Rank { counts: Vec<i64>, out: Vec<i64> },
    /// The argument `offset` rows before the last row at the current
    /// rowtime.
    Lag {
        arg: usize,
        offset: usize,
        recent: Vec<VecDeque<RowRef>>,
        out: Vec<Option<RowRef>>,
    },
}

impl Ranking {
    fn new(call: &AggregateCall) -> Result<Option<Self>> {
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
                recent: Vec::new(),
                out: Vec::new(),
            },
            _ => return Ok(None),
        }))
    }

    /// The rows `step` of key `key`, all at one rowtime, go out.
    fn emit(&mut self, store: &mut Store, key: usize, step: &[RowRef], leaving: &mut Vec<RowRef>) {
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
                out.extend(std::iter::repeat_n(back, step.len()));
            }
        }
    }

    /// The results since the last build.
    fn array(&mut self, store: &Store) -> Result<ArrayRef> {
        Ok(match self {
            Ranking::RowNumber { out, .. } | Ranking::Rank { out, .. } => {
                Arc::new(arrow::array::Int64Array::from(std::mem::take(out)))
            }
            Ranking::Lag { arg, out, .. } => {
                let rows = std::mem::take(out);
                let present: Vec<RowRef> = rows.iter().flatten().copied().collect();
                let Some(any) = present.first().copied() else {
                    let picks = store.positions(&[])?;
                    let empty = store.column(&picks, *arg)?;
                    return Ok(arrow::array::new_null_array(empty.data_type(), rows.len()));
                };
                let refs: Vec<RowRef> = rows.iter().map(|r| r.unwrap_or(any)).collect();
                let values = store.column(&store.positions(&refs)?, *arg)?;
                let missing =
                    arrow::array::BooleanArray::from_iter(rows.iter().map(|r| Some(r.is_none())));
                arrow::compute::nullif(&values, &missing)?
            }
        })
    }
}

pub struct Frames {
    frame: OverFrame,
    aggregates: Vec<AggregateCall>,
    /// How many input columns pass through to the output.
    input_width: usize,
    /// Per aggregate: computed incrementally (bounded DOUBLE SUM/AVG).
    running: Vec<Option<Running>>,
    /// Per aggregate: a MIN/MAX queue (bounded, primitive types).
    extremes: Vec<Option<Extreme>>,
    /// Whether some aggregate is computed from its frame's rows.
    from_frames: bool,
    /// Bounded frames: per key id, the emitted rows later frames can need.
    history: Vec<VecDeque<(i64, RowRef)>>,
    /// Rows that left a key's history since the last build: still in the
    /// frames of rows emitted before, so released only after the build.
    leaving: Vec<RowRef>,
    /// Unbounded frames: running accumulators, a group per key (none for
    /// the ranking functions).
    unbounded: Vec<Option<Box<dyn Accumulator>>>,
    /// Per aggregate: ROW_NUMBER, RANK, DENSE_RANK or LAG.
    ranking: Vec<Option<Ranking>>,
    unbounded_group: Vec<Option<u32>>,
    unbounded_groups: u32,
    /// The output under construction: rows, the watermark each carries,
    /// the rows of each one's frame (bounded) or its aggregate values
    /// (unbounded).
    rows: Vec<RowRef>,
    watermarks: Vec<i64>,
    frame_rows: Vec<RowRef>,
    frame_groups: Vec<u32>,
    values: Vec<Vec<ArrayRef>>,
}

impl Frames {
    /// The bytes the frames' per-key values hold (rows themselves are in
    /// the store).
    pub fn state_bytes(&self) -> u64 {
        fn deques<T>(v: &[VecDeque<T>]) -> u64 {
            v.iter()
                .map(|d| (d.capacity() * std::mem::size_of::<T>() + 32) as u64)
                .sum()
        }
        let running: u64 = self
            .running
            .iter()
            .flatten()
            .map(|r| deques(&r.values) + (r.keys.capacity() * 16) as u64)
            .sum();
        let extremes: u64 = self
            .extremes
            .iter()
            .flatten()
            .map(|e| deques(&e.keys) + (e.added.capacity() * 8) as u64)
            .sum();
        let ranking: u64 = self
            .ranking
            .iter()
            .flatten()
            .map(|r| match r {
                Ranking::RowNumber { numbers, .. } => (numbers.capacity() * 8) as u64,
                Ranking::Rank { counts, .. } => (counts.capacity() * 8) as u64,
                Ranking::Lag { recent, .. } => deques(recent),
            })
            .sum();
        let unbounded: u64 = self
            .unbounded
            .iter()
            .flatten()
            .map(|a| a.state_bytes())
            .sum();
        deques(&self.history) + running + extremes + ranking + unbounded
    }

    /// Writes the per-key state for a checkpoint, between two items (when
    /// no output is under construction).
    pub fn save(&self, w: &mut StateWriter) -> Result<()> {
        if !self.rows.is_empty() || !self.leaving.is_empty() {
            return Err(Error::Internal(
                "a checkpoint of an OVER aggregation with output being built".into(),
            ));
        }
        for running in self.running.iter().flatten() {
            w.put(&running.keys);
            w.put(&running.values);
        }
        for extreme in self.extremes.iter().flatten() {
            w.put(&extreme.keys);
            w.put(&extreme.added);
        }
        w.put(&self.history);
        for acc in self.unbounded.iter().flatten() {
            acc.save(w)?;
        }
        for ranking in self.ranking.iter().flatten() {
            match ranking {
                Ranking::RowNumber { numbers, .. } => w.put(numbers),
                Ranking::Rank { counts, .. } => w.put(counts),
                Ranking::Lag { recent, .. } => w.put(recent),
            }
        }
        w.put(&self.unbounded_group);
        w.put(&self.unbounded_groups);
        Ok(())
    }

    /// Reads what [`Frames::save`] wrote into these fresh frames.
    pub fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        for running in self.running.iter_mut().flatten() {
            running.keys = r.get()?;
            running.values = r.get()?;
        }
        for extreme in self.extremes.iter_mut().flatten() {
            extreme.keys = r.get()?;
            extreme.added = r.get()?;
        }
        self.history = r.get()?;
        for acc in self.unbounded.iter_mut().flatten() {
            acc.load(r)?;
        }
        for ranking in self.ranking.iter_mut().flatten() {
            match ranking {
                Ranking::RowNumber { numbers, .. } => *numbers = r.get()?,
                Ranking::Rank { counts, .. } => *counts = r.get()?,
                Ranking::Lag { recent, .. } => *recent = r.get()?,
            }
        }
        self.unbounded_group = r.get()?;
        self.unbounded_groups = r.get()?;
        Ok(())
    }

    pub fn new(spec: &OverSpec) -> Result<Self> {
        let ranking = spec
            .aggregates
            .iter()
            .map(Ranking::new)
            .collect::<Result<Vec<_>>>()?;
        let bounded = spec.frame.preceding.is_some();
        if bounded && ranking.iter().any(Option::is_some) {
            return Err(Error::Internal(
                "a ranking function over a bounded frame".into(),
            ));
        }
        let mut unbounded = Vec::new();
        for (call, rank) in spec.aggregates.iter().zip(&ranking) {
            let acc = match rank {
                Some(_) => None,
                None => Some(new_accumulator(call)?),
            };
            if !bounded {
                unbounded.push(acc);
            }
        }
        let running: Vec<Option<Running>> = spec
            .aggregates
            .iter()
            .map(|call| {
                let double = call.arg_type == Some(SqlType::Double);
                let func = matches!(call.func, AggregateFunction::Sum | AggregateFunction::Avg);
                match call.arg {
                    Some(arg) if bounded && double && func => Some(Running {
                        arg,
                        average: call.func == AggregateFunction::Avg,
                        keys: Vec::new(),
                        values: Vec::new(),
                        out: Vec::new(),
                    }),
                    _ => None,
                }
            })
            .collect();
        let extremes: Vec<Option<Extreme>> = spec
            .aggregates
            .iter()
            .map(|call| {
                let primitive = matches!(
                    call.arg_type,
                    Some(
                        SqlType::Int
                            | SqlType::BigInt
                            | SqlType::Double
                            | SqlType::Decimal(..)
                            | SqlType::Timestamp(_)
                            | SqlType::TimestampLtz(_)
                    )
                );
                let func = matches!(call.func, AggregateFunction::Min | AggregateFunction::Max);
                match (call.arg, &call.arg_type) {
                    (Some(arg), Some(ty)) if bounded && primitive && func => Some(Extreme {
                        arg,
                        max: call.func == AggregateFunction::Max,
                        ty: ty.clone(),
                        keys: Vec::new(),
                        added: Vec::new(),
                        out: Vec::new(),
                    }),
                    _ => None,
                }
            })
            .collect();
        let from_frames = bounded
            && running
                .iter()
                .zip(&extremes)
                .any(|(r, e)| r.is_none() && e.is_none());
        let input_width = spec
            .output_schema
            .fields()
            .len()
            .checked_sub(spec.aggregates.len())
            .ok_or_else(|| Error::Internal("OVER output narrower than its aggregates".into()))?;
        Ok(Frames {
            frame: spec.frame,
            aggregates: spec.aggregates.clone(),
            input_width,
            running,
            extremes,
            from_frames,
            history: Vec::new(),
            leaving: Vec::new(),
            unbounded,
            ranking,
            unbounded_group: Vec::new(),
            unbounded_groups: 0,
            rows: Vec::new(),
            watermarks: Vec::new(),
            frame_rows: Vec::new(),
            frame_groups: Vec::new(),
            values: vec![Vec::new(); spec.aggregates.len()],
        })
    }

    /// Rows `rows` of one key, all at `out.rowtime` in arrival order, go
    /// out now.
    pub fn emit(&mut self, store: &mut Store, out: Out, rows: &[RowRef]) -> Result<()> {
        let key = out.key as usize;
        match self.frame.preceding {
            Some(back) => {
                if self.history.len() <= key {
                    self.history.resize_with(key + 1, VecDeque::new);
                }
                for r in self.running.iter_mut().flatten() {
                    if r.keys.len() <= key {
                        r.keys.resize(key + 1, (None, 0));
                        r.values.resize_with(key + 1, VecDeque::new);
                    }
                }
                for e in self.extremes.iter_mut().flatten() {
                    if e.keys.len() <= key {
                        e.keys.resize_with(key + 1, VecDeque::new);
                        e.added.resize(key + 1, 0);
                    }
                }
                match self.frame.units {
                    FrameUnits::Rows => self.emit_rows(store, &out, rows, back as usize)?,
                    FrameUnits::Range => self.emit_range(store, &out, rows, back)?,
                }
            }
            None => self.emit_unbounded(store, &out, rows)?,
        }
        Ok(())
    }

    /// ROWS n: each row's frame is the key's last n rows and itself.
    fn emit_rows(&mut self, store: &mut Store, out: &Out, rows: &[RowRef], n: usize) -> Result<()> {
        let key = out.key as usize;
        for row in rows {
            // What leaves the frame goes first, as Flink retracts it.
            if self.history[key].len() > n {
                if let Some((_, old)) = self.history[key].pop_front() {
                    for r in self.running.iter_mut().flatten() {
                        r.retract_oldest(key);
                    }
                    self.leaving.push(old);
                }
            }
            for r in self.running.iter_mut().flatten() {
                r.add(key, store.f64(*row, r.arg)?);
                r.out.push(r.value(key));
            }
            for e in self.extremes.iter_mut().flatten() {
                let position = e.added[key];
                e.added[key] += 1;
                e.evict(key, position - n as i64);
                e.add(key, position, store.raw(*row, e.arg)?);
                e.out.push(e.value(key));
            }
            if self.from_frames {
                let group = self.rows.len() as u32;
                let history = &self.history[key];
                let from = history.len().saturating_sub(n);
                for (_, past) in history.range(from..) {
                    self.frame_rows.push(*past);
                    self.frame_groups.push(group);
                }
                self.frame_rows.push(*row);
                self.frame_groups.push(group);
            }
            store.retain(*row);
            self.history[key].push_back((out.rowtime, *row));
            self.push_row(store, *row, out.watermark);
        }
        Ok(())
    }

    /// RANGE d: every row at this rowtime sees the key's rows from
    /// rowtime - d on, its peers included.
    fn emit_range(&mut self, store: &mut Store, out: &Out, rows: &[RowRef], d: i64) -> Result<()> {
        let key = out.key as usize;
        let from = out.rowtime.saturating_sub(d);
        while self.history[key].front().is_some_and(|(t, _)| *t < from) {
            if let Some((_, old)) = self.history[key].pop_front() {
                for r in self.running.iter_mut().flatten() {
                    r.retract_oldest(key);
                }
                self.leaving.push(old);
            }
        }
        for e in self.extremes.iter_mut().flatten() {
            e.evict(key, from);
        }
        for row in rows {
            for r in self.running.iter_mut().flatten() {
                r.add(key, store.f64(*row, r.arg)?);
            }
            for e in self.extremes.iter_mut().flatten() {
                e.add(key, out.rowtime, store.raw(*row, e.arg)?);
            }
            store.retain(*row);
            self.history[key].push_back((out.rowtime, *row));
        }
        for row in rows {
            for r in self.running.iter_mut().flatten() {
                r.out.push(r.value(key));
            }
            for e in self.extremes.iter_mut().flatten() {
                e.out.push(e.value(key));
            }
            if self.from_frames {
                let group = self.rows.len() as u32;
                for (_, member) in self.history[key].iter() {
                    self.frame_rows.push(*member);
                    self.frame_groups.push(group);
                }
            }
            self.push_row(store, *row, out.watermark);
        }
        Ok(())
    }

    /// UNBOUNDED: running accumulators; ROWS sees the rows before each row
    /// and itself, RANGE gives every row at this rowtime all of them.
    fn emit_unbounded(&mut self, store: &mut Store, out: &Out, rows: &[RowRef]) -> Result<()> {
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
                self.push_row(store, *row, out.watermark);
            }
        }
        Ok(())
    }

    fn push_row(&mut self, store: &mut Store, row: RowRef, watermark: i64) {
        store.retain(row);
        self.rows.push(row);
        self.watermarks.push(watermark);
    }

    /// The rows emitted since the last build, with their aggregates.
    pub fn build(&mut self, store: &mut Store, schema: &SchemaRef) -> Result<Option<Chunk>> {
        if self.rows.is_empty() {
            self.release_leaving(store);
            return Ok(None);
        }
        let picks = store.positions(&self.rows)?;
        let mut columns = (0..self.input_width)
            .map(|c| store.column(&picks, c))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let n = self.rows.len();
        if self.frame.preceding.is_some() {
            let picks = store.positions(&self.frame_rows)?;
            let mut args: HashMap<usize, ArrayRef> = HashMap::new();
            let all: Vec<u32> = (0..self.frame_rows.len() as u32).collect();
            let groups: Vec<u32> = (0..n as u32).collect();
            for ((call, running), extreme) in self
                .aggregates
                .iter()
                .zip(&mut self.running)
                .zip(&mut self.extremes)
            {
                if let Some(r) = running {
                    columns.push(Arc::new(Float64Array::from(std::mem::take(&mut r.out))));
                    continue;
                }
                if let Some(e) = extreme {
                    columns.push(e.array()?);
                    continue;
                }
                let values = match call.arg {
                    None => None,
                    Some(c) => Some(match args.get(&c) {
                        Some(v) => v.clone(),
                        None => {
                            let v = store.column(&picks, c)?;
                            args.insert(c, v.clone());
                            v
                        }
                    }),
                };
                let mut acc = new_accumulator(call)?;
                acc.update(values.as_ref(), &all, &self.frame_groups)?;
                columns.push(acc.evaluate(&groups)?);
            }
        } else {
            for (values, rank) in self.values.iter_mut().zip(&mut self.ranking) {
                if let Some(rank) = rank {
                    columns.push(rank.array(store)?);
                    continue;
                }
                let parts: Vec<&dyn arrow::array::Array> =
                    values.iter().map(|v| v.as_ref()).collect();
                columns.push(arrow::compute::concat(&parts)?);
                values.clear();
            }
        }
        let batch = RecordBatch::try_new(schema.clone(), columns)?;
        let chunk = Chunk::new(batch, std::mem::take(&mut self.watermarks));
        for row in self.rows.drain(..) {
            store.release(row);
        }
        self.frame_rows.clear();
        self.frame_groups.clear();
        self.release_leaving(store);
        Ok(Some(chunk))
    }

    /// How many rows the keys' histories (and LAG's recent rows) hold.
    pub fn history_len(&self) -> usize {
        self.history_refs().count()
    }

    /// LAG's recent rows, per aggregate and key.
    fn lag_rows(&self) -> impl Iterator<Item = &VecDeque<RowRef>> + '_ {
        self.ranking.iter().flatten().flat_map(|r| match r {
            Ranking::Lag { recent, .. } => recent.iter(),
            _ => [].iter(),
        })
    }

    /// The rows the keys' histories and LAG's recent rows hold.
    pub fn history_refs(&self) -> impl Iterator<Item = RowRef> + '_ {
        self.history
            .iter()
            .flatten()
            .map(|(_, r)| *r)
            .chain(self.lag_rows().flatten().copied())
    }

    /// Points the histories and LAG's recent rows at new rows, in
    /// [`Frames::history_refs`] order.
    pub fn set_history_refs(&mut self, refs: &[RowRef]) -> Result<()> {
        let mut new = refs.iter();
        let mut next = || {
            new.next()
                .copied()
                .ok_or_else(|| Error::Internal("fewer rows than the histories hold".into()))
        };
        for (_, r) in self.history.iter_mut().flatten() {
            *r = next()?;
        }
        for rank in self.ranking.iter_mut().flatten() {
            if let Ranking::Lag { recent, .. } = rank {
                for r in recent.iter_mut().flatten() {
                    *r = next()?;
                }
            }
        }
        Ok(())
    }

    fn release_leaving(&mut self, store: &mut Store) {
        for row in self.leaving.drain(..) {
            store.release(row);
        }
        store.sweep();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extreme(max: bool) -> Extreme {
        Extreme {
            arg: 0,
            max,
            ty: SqlType::Double,
            keys: vec![VecDeque::new()],
            added: vec![0],
            out: vec![],
        }
    }

    fn bits(v: f64) -> Option<i128> {
        Some(v.to_bits() as i128)
    }

    fn shown(e: &Extreme) -> Option<f64> {
        e.value(0).map(|v| f64::from_bits(v as u64))
    }

    #[test]
    fn doubles_order_as_java_compares_them() {
        let mut max = extreme(true);
        let mut min = extreme(false);
        for (i, v) in [2.0, -0.0, 0.0, f64::NAN, -5.0].into_iter().enumerate() {
            max.add(0, i as i64, bits(v));
            min.add(0, i as i64, bits(v));
        }
        assert!(
            shown(&max).is_some_and(f64::is_nan),
            "NaN is above everything"
        );
        assert_eq!(shown(&min), Some(-5.0));
        // Without the NaN and -5.0 (a ROWS frame that moved on): the
        // frame holds 2.0, -0.0, 0.0.
        let mut min = extreme(false);
        for (i, v) in [2.0, -0.0, 0.0].into_iter().enumerate() {
            min.add(0, i as i64, bits(v));
        }
        assert_eq!(shown(&min).map(f64::to_bits), Some((-0.0f64).to_bits()));
        min.evict(0, 2);
        assert_eq!(shown(&min).map(f64::to_bits), Some(0.0f64.to_bits()));
    }
}
