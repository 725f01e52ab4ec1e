//! Window join: the rows of two window TVFs over the same windows, joined
//! per window on equal keys when the window ends on both inputs (the
//! watermark, the minimum of the two inputs', passes `window_end - 1`).
//!
//! Rows come in through one stream, each chunk tagged with its input (0:
//! left, 1: right). A window's rows wait until it ends; then each left row
//! meets the right rows with equal keys (NULL keys meet nothing), in
//! arrival order; an outer join adds its unmatched rows with NULLs on the
//! other side — unmatched left rows in their place, unmatched right rows
//! after. A row whose window has already ended is late.

use crate::expr::eval::{predicate_mask, EvalContext};
use crate::ops::emit::{key_converter, row_keys, Emitter, Windowed, WindowedState};
use crate::ops::operator::{held_bytes, StateSize};
use crate::ops::window_buffer::{by_window, drop_late};
use crate::runtime::snapshot::{get_batch, put_batch, StateReader, StateWriter};
use crate::runtime::stream::Chunk;
use crate::time::service::{EventTime, TimerHandler};
use crate::time::trace::{TraceEvent, TraceLine};
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, UInt32Array};
use arrow::compute::take;
use arrow::datatypes::{SchemaRef, TimestampMillisecondType};
use arrow::row::RowConverter;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use tidemark_common::window::JoinType;
use tidemark_common::{Error, Result, RowKind, SqlType};

/// One input of a window join.
pub struct JoinSide {
    pub schema: SchemaRef,
    pub keys: Vec<usize>,
    pub window_start: usize,
    pub window_end: usize,
}

pub struct WindowJoinSpec {
    pub kind: JoinType,
    pub key_types: Vec<SqlType>,
    /// Per key: NULL meets NULL (`IS NOT DISTINCT FROM`) rather than
    /// nothing (`=`).
    pub null_equal: Vec<bool>,
    pub left: JoinSide,
    pub right: JoinSide,
    /// The rest of the ON condition, beyond equal keys: a predicate over
    /// the left columns then the right ones, which a pair must also meet
    /// (NULL: it does not), with what it is evaluated with.
    pub condition: Option<(tidemark_common::expr::Expr, EvalContext)>,
    /// Whether to write trace lines (FIRE, LATE).
    pub trace: bool,
    /// Output: the left columns, then the right ones (only the left ones
    /// for a semi or anti join).
    pub output_schema: SchemaRef,
}

/// Why a window join drops a row.
pub const LATE_REASON: &str = "its window had already fired";

pub type WindowJoin = Windowed<JoinState>;

pub struct JoinState {
    spec: WindowJoinSpec,
    /// The join keys (None without keys: every row of a window meets
    /// every other).
    keys: Option<RowConverter>,
    /// A NOT IN join's correlated keys: all but the last.
    prefix: Option<RowConverter>,
    /// Per window end: the rows of each input, as they came.
    windows: BTreeMap<i64, [Vec<RecordBatch>; 2]>,
}

impl WindowJoin {
    pub fn new(spec: WindowJoinSpec) -> Result<Self> {
        if spec.left.keys.len() != spec.right.keys.len()
            || spec.key_types.len() != spec.left.keys.len()
        {
            return Err(Error::Internal("window join keys differ in number".into()));
        }
        if spec.condition.is_some() && matches!(spec.kind, JoinType::Anti { null_aware: true }) {
            return Err(Error::Internal(
                "a NOT IN window join takes no condition beyond its keys".into(),
            ));
        }
        let keys = key_converter(&spec.key_types)?;
        let prefix = match spec.kind {
            JoinType::Anti { null_aware: true } => match spec.key_types.split_last() {
                Some((_, correlated)) => key_converter(correlated)?,
                None => return Err(Error::Internal("NOT IN without its key".into())),
            },
            _ => None,
        };
        Ok(Windowed::from_state(JoinState {
            spec,
            keys,
            prefix,
            windows: BTreeMap::new(),
        }))
    }
}

impl WindowedState for JoinState {
    const NAME: &'static str = "WindowJoin";
    const LATE_REASON: &'static str = LATE_REASON;

    fn state(&self) -> StateSize {
        let batches = || self.windows.values().flatten().flatten();
        StateSize {
            entries: batches().map(|b| b.num_rows() as u64).sum(),
            bytes: held_bytes(batches()),
            windows: 0,
        }
    }

    fn save(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.windows.len() as u64);
        for (end, inputs) in &self.windows {
            w.put(end);
            // Each input's rows of the window in arrival order, as one batch.
            for (input, parts) in inputs.iter().enumerate() {
                w.put(&!parts.is_empty());
                if !parts.is_empty() {
                    put_batch(w, &self.rows(input, parts)?)?;
                }
            }
        }
        Ok(())
    }

    fn load(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let n = r.count()?;
        for _ in 0..n {
            let end: i64 = r.get()?;
            let mut inputs: [Vec<RecordBatch>; 2] = [Vec::new(), Vec::new()];
            for parts in &mut inputs {
                if r.get::<bool>()? {
                    parts.push(get_batch(r)?);
                }
            }
            self.windows.insert(end, inputs);
        }
        Ok(())
    }
}

impl JoinState {
    fn side(&self, input: usize) -> &JoinSide {
        if input == 0 {
            &self.spec.left
        } else {
            &self.spec.right
        }
    }

    /// One input's rows of a window, as one batch.
    fn rows(&self, input: usize, parts: &[RecordBatch]) -> Result<RecordBatch> {
        Ok(arrow::compute::concat_batches(
            &self.side(input).schema,
            parts,
        )?)
    }

    /// The window's rows joined: (left row, right row) pairs, a side
    /// missing for an outer join's unmatched rows and for semi and anti
    /// joins (left rows only).
    fn pairs(&self, left: &RecordBatch, right: &RecordBatch) -> Result<Vec<Pair>> {
        let n = self.spec.left.keys.len();
        let null_equal = &self.spec.null_equal;
        let left_keys =
            KeyColumns::new(self.keys.as_ref(), left, &self.spec.left.keys, null_equal)?;
        let right_keys =
            KeyColumns::new(self.keys.as_ref(), right, &self.spec.right.keys, null_equal)?;
        let partners = Partners::new(&right_keys, right.num_rows());
        if let Some((condition, ctx)) = &self.spec.condition {
            return self.pairs_meeting(condition, ctx, left, right, &left_keys, &partners);
        }
        let kind = self.spec.kind;
        let left_only = |keep: &dyn Fn(usize) -> bool| -> Vec<Pair> {
            (0..left.num_rows())
                .filter(|i| keep(*i))
                .map(|i| (Some(i as u32), None))
                .collect()
        };
        let found = |i: usize| {
            left_keys
                .key(i)
                .is_some_and(|k| partners.first(k).is_some())
        };
        match kind {
            JoinType::Semi => return Ok(left_only(&found)),
            JoinType::Anti { null_aware: false } => return Ok(left_only(&|i| !found(i))),
            JoinType::Anti { null_aware: true } => {
                // NOT IN: the IN key (the last) is compared NULL-aware, the
                // correlated keys before it plainly. A left row survives
                // only if no right row can equal it: the right rows with
                // its correlated keys are none, or all have a non-NULL IN
                // key that differs from its non-NULL one.
                let in_col =
                    |batch: &RecordBatch, side: &JoinSide| batch.column(side.keys[n - 1]).clone();
                let (left_in, right_in) = (
                    in_col(left, &self.spec.left),
                    in_col(right, &self.spec.right),
                );
                let left_prefix = KeyColumns::new(
                    self.prefix.as_ref(),
                    left,
                    &self.spec.left.keys[..n - 1],
                    null_equal,
                )?;
                let right_prefix = KeyColumns::new(
                    self.prefix.as_ref(),
                    right,
                    &self.spec.right.keys[..n - 1],
                    null_equal,
                )?;
                // Per correlated key: whether a right row there has a NULL IN key.
                let mut groups: HashMap<&[u8], bool> = HashMap::new();
                for j in 0..right.num_rows() {
                    if let Some(k) = right_prefix.key(j) {
                        *groups.entry(k).or_default() |= right_in.is_null(j);
                    }
                }
                let keep = |i: usize| match left_prefix.key(i).and_then(|k| groups.get(k)) {
                    None => true,
                    Some(has_null) => !has_null && left_in.is_valid(i) && !found(i),
                };
                return Ok(left_only(&keep));
            }
            _ => {}
        }
        let mut matched = vec![false; right.num_rows()];
        let mut pairs = Vec::new();
        for i in 0..left.num_rows() {
            match left_keys.key(i).and_then(|k| partners.first(k)) {
                Some(first) => {
                    let mut j = first;
                    while j != NO_ROW {
                        matched[j as usize] = true;
                        pairs.push((Some(i as u32), Some(j)));
                        j = partners.next[j as usize];
                    }
                }
                None if matches!(kind, JoinType::Left | JoinType::Full) => {
                    pairs.push((Some(i as u32), None))
                }
                None => {}
            }
        }
        if matches!(kind, JoinType::Right | JoinType::Full) {
            for (j, m) in matched.iter().enumerate() {
                if !m {
                    pairs.push((None, Some(j as u32)));
                }
            }
        }
        Ok(pairs)
    }
}

impl JoinState {
    /// [`JoinState::pairs`] when the ON condition says more than equal
    /// keys: the pairs of equal keys are joined in one batch, the
    /// condition is evaluated over it at once, and a left (or right) row
    /// counts as matched only through a pair that meets it.
    fn pairs_meeting(
        &self,
        condition: &tidemark_common::expr::Expr,
        ctx: &EvalContext,
        left: &RecordBatch,
        right: &RecordBatch,
        left_keys: &KeyColumns,
        partners: &Partners<'_>,
    ) -> Result<Vec<Pair>> {
        let mut candidates: Vec<(u32, u32)> = Vec::new();
        for i in 0..left.num_rows() {
            let mut j = left_keys
                .key(i)
                .and_then(|k| partners.first(k))
                .unwrap_or(NO_ROW);
            while j != NO_ROW {
                candidates.push((i as u32, j));
                j = partners.next[j as usize];
            }
        }
        let left_rows = UInt32Array::from_iter_values(candidates.iter().map(|(i, _)| *i));
        let right_rows = UInt32Array::from_iter_values(candidates.iter().map(|(_, j)| *j));
        let mut fields: Vec<arrow::datatypes::FieldRef> =
            left.schema().fields().iter().cloned().collect();
        fields.extend(right.schema().fields().iter().cloned());
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(fields.len());
        for c in left.columns() {
            columns.push(take(c.as_ref(), &left_rows, None)?);
        }
        for c in right.columns() {
            columns.push(take(c.as_ref(), &right_rows, None)?);
        }
        let joined = RecordBatch::try_new_with_options(
            std::sync::Arc::new(arrow::datatypes::Schema::new(fields)),
            columns,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(candidates.len())),
        )?;
        let meets = predicate_mask(condition, &joined, ctx)?;
        // The candidates come left row by left row: one pass keeps the
        // pairs that meet the condition and pads or picks each left row.
        let kind = self.spec.kind;
        let mut right_matched = vec![false; right.num_rows()];
        let mut pairs = Vec::new();
        let mut next = candidates.iter().enumerate().peekable();
        for i in 0..left.num_rows() as u32 {
            let mut matched = false;
            while let Some((n, &(_, j))) = next.next_if(|(_, (l, _))| *l == i) {
                if !meets.value(n) {
                    continue;
                }
                matched = true;
                right_matched[j as usize] = true;
                if !matches!(kind, JoinType::Semi | JoinType::Anti { .. }) {
                    pairs.push((Some(i), Some(j)));
                }
            }
            let alone = match kind {
                JoinType::Semi => matched,
                JoinType::Anti { .. } | JoinType::Left | JoinType::Full => !matched,
                JoinType::Inner | JoinType::Right => false,
            };
            if alone {
                pairs.push((Some(i), None));
            }
        }
        if matches!(kind, JoinType::Right | JoinType::Full) {
            for (j, m) in right_matched.iter().enumerate() {
                if !m {
                    pairs.push((None, Some(j as u32)));
                }
            }
        }
        Ok(pairs)
    }
}

/// A joined row: its left and right rows.
type Pair = (Option<u32>, Option<u32>);

/// The end of a chain of partners.
const NO_ROW: u32 = u32::MAX;

/// A window's right rows by key: the first row of each key, and for each
/// row the next one with its key, so partners come in arrival order
/// without a list per key.
struct Partners<'k> {
    first_last: HashMap<&'k [u8], (u32, u32), foldhash::fast::FixedState>,
    next: Vec<u32>,
}

impl<'k> Partners<'k> {
    fn new(keys: &'k KeyColumns, rows: usize) -> Self {
        let mut first_last: HashMap<&[u8], (u32, u32), _> =
            HashMap::with_capacity_and_hasher(rows, foldhash::fast::FixedState::with_seed(0x6a6f));
        let mut next = vec![NO_ROW; rows];
        for j in 0..rows {
            let Some(k) = keys.key(j) else { continue };
            let j = j as u32;
            first_last
                .entry(k)
                .and_modify(|(_, last)| {
                    next[*last as usize] = j;
                    *last = j;
                })
                .or_insert((j, j));
        }
        Partners { first_last, next }
    }

    /// The first right row with key `k`.
    fn first(&self, k: &[u8]) -> Option<u32> {
        self.first_last.get(k).map(|(first, _)| *first)
    }
}

/// The join keys of a window's rows of one input, as arrow rows.
struct KeyColumns {
    rows: Option<arrow::row::Rows>,
    /// Whether each row can meet another: no NULL in a key compared with
    /// `=` (NULL equals nothing there). A NULL in an `IS NOT DISTINCT
    /// FROM` key meets NULL, as arrow's row format encodes it alike.
    valid: Vec<bool>,
}

impl KeyColumns {
    fn new(
        converter: Option<&RowConverter>,
        batch: &RecordBatch,
        columns: &[usize],
        null_equal: &[bool],
    ) -> Result<Self> {
        let rows = row_keys(converter, batch, columns)?;
        let mut valid = vec![true; batch.num_rows()];
        for (c, _) in columns
            .iter()
            .zip(null_equal.iter().chain(std::iter::repeat(&false)))
            .filter(|(_, nulls_meet)| !**nulls_meet)
        {
            if let Some(nulls) = batch.column(*c).logical_nulls() {
                for (v, ok) in valid.iter_mut().zip(nulls.iter()) {
                    *v &= ok;
                }
            }
        }
        Ok(KeyColumns { rows, valid })
    }

    /// Row i's key, or None if one of its keys is NULL. Without keys
    /// every row has the same, empty key.
    fn key(&self, i: usize) -> Option<&[u8]> {
        if !self.valid[i] {
            return None;
        }
        Some(self.rows.as_ref().map_or(&[][..], |r| r.row(i).data()))
    }
}

impl TimerHandler for JoinState {
    type Key = i64;
    type Output = Emitter;

    fn on_rows(
        &mut self,
        time: &mut EventTime<i64>,
        chunk: &Chunk,
        range: Range<usize>,
        out: &mut Emitter,
    ) -> Result<usize> {
        let input = usize::from(chunk.input.min(1));
        let side = self.side(input);
        let (window_start, window_end) = (side.window_start, side.window_end);
        let run = by_window(time, chunk, range, window_end, |end| {
            self.windows.contains_key(&end)
        })?;
        for (row, end) in run.late {
            let watermark = chunk.watermarks[row];
            if self.spec.trace {
                let begin = chunk
                    .batch
                    .column(window_start)
                    .as_primitive::<TimestampMillisecondType>()
                    .value(row);
                let line = TraceLine::new(TraceEvent::Late, Self::NAME)
                    .window(begin, end)
                    .field("input", if input == 0 { "left" } else { "right" })
                    .watermark(watermark);
                out.side(line)?;
            }
            drop_late(chunk, (row, end), out)?;
        }
        for (end, rows) in run.windows {
            self.windows.entry(end).or_default()[input].push(rows);
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
        let Some([left_parts, right_parts]) = self.windows.remove(&end) else {
            return Ok(());
        };
        let left = self.rows(0, &left_parts)?;
        let right = self.rows(1, &right_parts)?;
        let pairs = self.pairs(&left, &right)?;
        if self.spec.trace {
            let (rows, side) = if left.num_rows() > 0 {
                (&left, 0)
            } else {
                (&right, 1)
            };
            let start = rows
                .column(self.side(side).window_start)
                .as_primitive::<TimestampMillisecondType>()
                .value(0);
            let line = TraceLine::new(TraceEvent::Fire, Self::NAME)
                .window(start, end)
                .field("left_rows", left.num_rows())
                .field("right_rows", right.num_rows())
                .field("rows_out", pairs.len())
                .watermark(time.watermark());
            out.side(line)?;
        }
        out.window_fired(time.watermark());
        if pairs.is_empty() {
            return Ok(());
        }
        let left_rows = UInt32Array::from(pairs.iter().map(|(l, _)| *l).collect::<Vec<_>>());
        let right_rows = UInt32Array::from(pairs.iter().map(|(_, r)| *r).collect::<Vec<_>>());
        let mut columns: Vec<ArrayRef> = Vec::new();
        for c in left.columns() {
            columns.push(take(c.as_ref(), &left_rows, None)?);
        }
        if self.spec.kind.keeps_right() {
            for c in right.columns() {
                columns.push(take(c.as_ref(), &right_rows, None)?);
            }
        }
        let batch = RecordBatch::try_new(self.spec.output_schema.clone(), columns)?;
        out.rows(batch, RowKind::Insert)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Window joins as the planner builds them: two 5 s TUMBLE TVFs joined
    //! on `k`, each chunk tagged with its input.

    use super::*;
    use crate::ops::operator::Operator;
    use crate::ops::testing::{
        events, lines, part, resumed, rows_only, run, s, windowed, windowed_schema,
    };
    use crate::runtime::stream::StreamItem;
    use arrow::datatypes::{Field, Schema};
    use std::sync::Arc;
    use tidemark_common::time::NO_WATERMARK;
    use tidemark_common::window::WindowKind;

    /// `L JOIN R ON L.k = R.k AND L.window_start = R.window_start AND
    /// L.window_end = R.window_end`, of kind `kind`.
    fn join(kind: JoinType) -> Result<WindowJoin> {
        // window_start, window_end, window_time are adjacent.
        let side = || JoinSide {
            schema: windowed_schema(),
            keys: vec![0],
            window_start: 3,
            window_end: 4,
        };
        let fields: Vec<Field> = windowed_schema()
            .fields()
            .iter()
            .chain(windowed_schema().fields().iter())
            .map(|f| f.as_ref().clone())
            .collect();
        WindowJoin::new(WindowJoinSpec {
            condition: None,
            kind,
            key_types: vec![SqlType::String],
            null_equal: vec![false],
            left: side(),
            right: side(),
            trace: false,
            output_schema: Arc::new(Schema::new(fields)),
        })
    }

    /// Rows `(input, k, ts, v)` in the order the join takes them (0: left,
    /// 1: right), each input a table with watermark `ts - 1 s`, through
    /// `TUMBLE(5 s)`; each run of one input's rows is one chunk. A row meets
    /// the join's watermark, the lower of the two inputs' (−∞ before an
    /// input's first row): here -inf, -inf, 0, 0, 2, 2, 3, 3, 6, 6, 6 s.
    fn arrivals() -> Result<Vec<Chunk>> {
        let rows = [
            (0, "a", 1, 1),
            (1, "a", 2, 10),
            (1, "b", 3, 11),
            (0, "b", 4, 2),
            (0, "a", 3, 3),
            (1, "a", 4, 12),
            (0, "a", 7, 4),
            (1, "a", 8, 13),
            (0, "b", 6, 5),
            (1, "a", 2, 14),
            (1, "c", 9, 15),
        ]
        .map(|(input, k, t, v)| (input, k, s(t), v));
        let mut inputs = [NO_WATERMARK; 2];
        let mut watermarks = Vec::new();
        for (input, _, ts, _) in &rows {
            watermarks.push(inputs[0].min(inputs[1]));
            let own = &mut inputs[*input as usize];
            *own = (*own).max(ts - s(1));
        }
        let mut chunks = Vec::new();
        let mut at = 0;
        while at < rows.len() {
            let input = rows[at].0;
            let n = rows[at..].iter().take_while(|r| r.0 == input).count();
            let run: Vec<(&str, i64, i64)> =
                rows[at..at + n].iter().map(|r| (r.1, r.2, r.3)).collect();
            let mut chunk = events(&run, s(1));
            chunk.watermarks = watermarks[at..at + n].to_vec();
            chunk.input = input;
            chunks.push(windowed(
                WindowKind::Tumble {
                    size: s(5),
                    offset: 0,
                },
                chunk,
            )?);
            at += n;
        }
        Ok(chunks)
    }

    fn items(chunks: Vec<Chunk>) -> Vec<StreamItem> {
        chunks.into_iter().map(StreamItem::Chunk).collect()
    }

    #[test]
    fn a_window_joins_when_it_ends_on_both_inputs_and_a_row_after_that_is_late() -> Result<()> {
        let lines = run(&mut join(JoinType::Inner)?, items(arrivals()?))?;
        // Each chunk's end sends the watermark it reached (0, 2, 3 s).
        // [0,5) ends when the join's watermark reaches 4.999 s: 6 s, before
        // the left b@6. Each left row in arrival order meets the right rows
        // of its key in arrival order: a@1 with a@2 and a@4, b@4 with b@3,
        // a@3 with a@2 and a@4. The right a@2 (v 14) then meets watermark
        // 6 s: its window has fired, it is late. At the end, [5,10) joins
        // a@7 with a@8; the left b@6 and the right c@9 have no partner.
        assert_eq!(
            lines,
            [
                "WM 0",
                "WM 2000",
                "WM 3000",
                "+I[a, 1000, 1, 0, 5000, 4999, a, 2000, 10, 0, 5000, 4999]",
                "+I[a, 1000, 1, 0, 5000, 4999, a, 4000, 12, 0, 5000, 4999]",
                "+I[b, 4000, 2, 0, 5000, 4999, b, 3000, 11, 0, 5000, 4999]",
                "+I[a, 3000, 3, 0, 5000, 4999, a, 2000, 10, 0, 5000, 4999]",
                "+I[a, 3000, 3, 0, 5000, 4999, a, 4000, 12, 0, 5000, 4999]",
                "WM 6000",
                "LATE[a, 2000, 14] @6000",
                "+I[a, 7000, 4, 5000, 10000, 9999, a, 8000, 13, 5000, 10000, 9999]",
                "WM end",
                "END",
            ]
        );
        Ok(())
    }

    #[test]
    fn a_full_join_adds_unmatched_left_rows_in_place_and_unmatched_right_rows_after() -> Result<()>
    {
        let lines = rows_only(run(&mut join(JoinType::Full)?, items(arrivals()?))?);
        // [0,5) matches every row as the inner join does. In [5,10) the
        // left b@6 has no partner and comes in its place, after a@7's pair;
        // the right c@9 comes last. The late row is late for an outer join
        // as well.
        let nulls = "NULL, NULL, NULL, NULL, NULL, NULL";
        assert_eq!(
            lines[5..],
            [
                "LATE[a, 2000, 14] @6000".to_string(),
                "+I[a, 7000, 4, 5000, 10000, 9999, a, 8000, 13, 5000, 10000, 9999]".into(),
                format!("+I[b, 6000, 5, 5000, 10000, 9999, {nulls}]"),
                format!("+I[{nulls}, c, 9000, 15, 5000, 10000, 9999]"),
                "END".into(),
            ]
        );
        assert_eq!(
            lines[..5],
            rows_only(run(&mut join(JoinType::Inner)?, items(arrivals()?))?)[..5]
        );
        Ok(())
    }

    #[test]
    fn results_do_not_depend_on_the_batch_size() -> Result<()> {
        for kind in [JoinType::Inner, JoinType::Full] {
            let whole = rows_only(run(&mut join(kind)?, items(arrivals()?))?);
            for batch in [1, 2, 3] {
                let mut cut = Vec::new();
                for chunk in arrivals()? {
                    let n = chunk.num_rows();
                    for at in (0..n).step_by(batch) {
                        cut.push(part(&chunk, at, batch.min(n - at)));
                    }
                }
                let cut = rows_only(run(&mut join(kind)?, cut)?);
                assert_eq!(cut, whole, "{kind:?}, batch {batch}");
            }
        }
        Ok(())
    }

    #[test]
    fn a_checkpoint_with_both_inputs_waiting_resumes_to_the_same_output() -> Result<()> {
        // After the first six chunks, [0,5) holds rows of both inputs and
        // [5,10) rows of both.
        let mut chunks = arrivals()?;
        let rest = items(chunks.split_off(6));
        let mut first = Vec::new();
        let mut op = join(JoinType::Full)?;
        for item in items(chunks) {
            op.process(item, &mut first)?;
        }
        let mut back = resumed(&op, join(JoinType::Full)?)?;
        let resumed_lines = run(&mut back, rest.clone())?;
        assert_eq!(resumed_lines, run(&mut op, rest)?);
        let mut all = lines(first);
        all.extend(resumed_lines);
        let straight = run(&mut join(JoinType::Full)?, items(arrivals()?))?;
        assert_eq!(rows_only(all), rows_only(straight));
        assert_eq!(back.metrics().late_rows, 1);
        Ok(())
    }
}
