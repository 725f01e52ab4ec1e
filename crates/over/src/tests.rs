//! OVER aggregation against spec §4: rows out in rowtime order per key
//! once the watermark passes them, rows accepted behind the watermark, and
//! late rows judged by the key's last emitted rowtime.

use super::*;
use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use std::sync::Arc;
use tidemark_common::expr::AggregateFunction;
use tidemark_common::window::FrameUnits;
use tidemark_engine::testing::{events, in_chunks, lines, part, resumed, rows_only, run, s, Rng};

/// `SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND
/// CURRENT ROW)`.
fn sum_of_three() -> Result<OverAggregate> {
    sum_of_three_with(None)
}

/// [`sum_of_three`] with a state ttl.
fn sum_of_three_with(ttl: Option<i64>) -> Result<OverAggregate> {
    OverAggregate::new(OverSpec {
        partition: vec![0],
        key_types: vec![SqlType::String],
        time_column: 1,
        frame: OverFrame {
            units: FrameUnits::Rows,
            preceding: Some(2),
        },
        aggregates: vec![AggregateCall {
            func: AggregateFunction::Sum,
            arg: Some(2),
            arg_type: Some(SqlType::BigInt),
            distinct: false,
            separator: None,
            offset: 0,
            lag_default: None,
            ty: SqlType::BigInt,
        }],
        output_schema: Arc::new(Schema::new(vec![
            Field::new("k", DataType::Utf8, true),
            Field::new("ts", DataType::Timestamp(TimeUnit::Millisecond, None), true),
            Field::new("v", DataType::Int64, true),
            Field::new("total", DataType::Int64, true),
        ])),
        trace: false,
        ttl,
    })
}

/// The lines of [`run`], which end with END: the end of input goes on
/// after everything, as from every operator.
fn output(op: &mut OverAggregate, items: Vec<StreamItem>) -> Result<Vec<String>> {
    let lines = run(op, items)?;
    assert_eq!(lines.last().map(String::as_str), Some("END"), "{lines:?}");
    Ok(lines[..lines.len() - 1].to_vec())
}

/// Spec §4's example: arrivals at :15 :12 :11 :18 :13 :20 :22 :40 with
/// prices 1 2 3 4 5 6 8 9, watermark `ts - 4 s`. Watermarks met: -inf,
/// 11, 11, 11, 14, 14, 16, 18 s; after :40 the source's is 36 s.
fn spec_example() -> Chunk {
    let rows = [
        (15, 1),
        (12, 2),
        (11, 3),
        (18, 4),
        (13, 5),
        (20, 6),
        (22, 8),
        (40, 9),
    ]
    .map(|(t, price)| ("a", s(t), price));
    events(&rows, s(4))
}

/// Two keys, watermark `ts - 2 s`. Watermarks met: -inf, -1, 3, 3, 3, 3,
/// 5, 5, 5 s.
fn two_keys() -> Chunk {
    let rows = [
        ("a", 1, 1),
        ("b", 5, 10),
        ("a", 4, 2),
        ("a", 1, 3),
        ("b", 2, 20),
        ("a", 7, 4),
        ("a", 6, 5),
        ("b", 4, 30),
        ("a", 5, 6),
    ]
    .map(|(k, t, v)| (k, s(t), v));
    events(&rows, s(2))
}

#[test]
fn rows_go_out_in_rowtime_order_as_the_watermark_passes_them() -> Result<()> {
    let lines = output(
        &mut sum_of_three()?,
        vec![
            StreamItem::Chunk(spec_example()),
            StreamItem::Watermark(s(36)),
        ],
    )?;
    // The watermark 14 s (before :13) lets out :11 and :12: 3, 3 + 2.
    // :13 arrives behind it, but :12 is the last emitted, so it is kept
    // and goes out at the next advance, 16 s, with :15: 3 + 2 + 5 = 10,
    // 2 + 5 + 1 = 8. 18 s lets out :18: 5 + 1 + 4 = 10. The chunk's rows
    // go out together at its end, then its watermark. 36 s lets out :20
    // (1 + 4 + 6 = 11) and :22 (4 + 6 + 8 = 18); the end, :40 (6 + 8 + 9
    // = 23).
    assert_eq!(
        lines,
        [
            "+I[a, 11000, 3, 3]",
            "+I[a, 12000, 2, 5]",
            "+I[a, 13000, 5, 10]",
            "+I[a, 15000, 1, 8]",
            "+I[a, 18000, 4, 10]",
            "WM 18000",
            "+I[a, 20000, 6, 11]",
            "+I[a, 22000, 8, 18]",
            "WM 36000",
            "+I[a, 40000, 9, 23]",
            "WM end",
        ]
    );
    Ok(())
}

#[test]
fn a_row_is_late_only_when_its_key_emitted_at_or_after_its_rowtime() -> Result<()> {
    let mut op = sum_of_three()?;
    let lines = output(&mut op, vec![StreamItem::Chunk(two_keys())])?;
    // The watermark 3 s (before a@4) lets out a@1. The second a@1 is then
    // late: its rowtime is not after a's last emitted, 1 s. b@2, 1 s
    // behind the watermark, is kept: b has emitted nothing. The
    // watermark 5 s (before a@6) lets out, by rowtime, b@2 (20), a@4
    // (1 + 2) and b@5 (20 + 10). b@4 is then late (b emitted 5 s), while
    // a@5, at the watermark, is kept (a emitted 4 s). Late rows go out
    // after the rows emitted before them. The end lets out a@5
    // (1 + 2 + 6), a@6 (2 + 6 + 5) and a@7 (6 + 5 + 4).
    assert_eq!(
        lines,
        [
            "+I[a, 1000, 1, 1]",
            "LATE[a, 1000, 3] @3000",
            "+I[b, 2000, 20, 20]",
            "+I[a, 4000, 2, 3]",
            "+I[b, 5000, 10, 30]",
            "LATE[b, 4000, 30] @5000",
            "WM 5000",
            "+I[a, 5000, 6, 9]",
            "+I[a, 6000, 5, 13]",
            "+I[a, 7000, 4, 15]",
            "WM end",
        ]
    );
    let m = op.metrics();
    assert_eq!((m.late_rows, m.rows_in, m.rows_out), (2, 9, 7));
    // How late: the watermark each met minus its rowtime.
    assert_eq!(m.lateness.max(), Some(s(2)));
    Ok(())
}

#[test]
fn results_do_not_depend_on_the_batch_size() -> Result<()> {
    for chunk in [spec_example(), two_keys()] {
        let whole = rows_only(output(
            &mut sum_of_three()?,
            vec![StreamItem::Chunk(chunk.clone())],
        )?);
        for batch in [1, 2, 3] {
            let cut = rows_only(output(&mut sum_of_three()?, in_chunks(&chunk, batch))?);
            assert_eq!(cut, whole, "batch {batch}");
        }
    }
    Ok(())
}

#[test]
fn a_checkpoint_with_rows_waiting_and_frames_kept_resumes_to_the_same_output() -> Result<()> {
    // After six rows a@1 has gone out (its frame is kept), a@4, b@2, b@5
    // and a@7 wait, and a has a last emitted rowtime (b has none yet).
    let chunk = two_keys();
    let mut first = Vec::new();
    let mut op = sum_of_three()?;
    op.process(StreamItem::Chunk(chunk.slice(0, 6)), &mut first)?;
    let mut back = resumed(&op, sum_of_three()?)?;
    let rest = vec![StreamItem::Chunk(chunk.slice(6, 3))];
    let resumed_lines = output(&mut back, rest.clone())?;
    assert_eq!(resumed_lines, output(&mut op, rest)?);
    let mut all = lines(first);
    all.extend(resumed_lines);
    let straight = output(&mut sum_of_three()?, vec![StreamItem::Chunk(chunk)])?;
    assert_eq!(rows_only(all), rows_only(straight));
    assert_eq!(back.metrics().late_rows, 2);
    Ok(())
}

/// A stream of ever-new keys, one row each a second apart, watermark `ts`.
fn ever_new_keys(n: usize) -> Chunk {
    let names: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
    let rows: Vec<(&str, i64, i64)> = names
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), s(i as i64), 1))
        .collect();
    events(&rows, 0)
}

#[test]
fn with_a_ttl_the_state_of_ever_new_keys_stays_bounded() -> Result<()> {
    let mut kept = sum_of_three()?;
    let mut bounded = sum_of_three_with(Some(s(5)))?;
    for op in [&mut kept, &mut bounded] {
        run(op, vec![StreamItem::Chunk(ever_new_keys(200))])?;
    }
    // Without a ttl every key keeps its number and frame; with one, a key
    // is forgotten 5 s after its row went out, and its number serves a
    // later key: a handful are live at any time.
    assert_eq!(kept.state().entries, 200);
    assert!(bounded.state().entries <= 8, "{:?}", bounded.state());
    let m = bounded.metrics();
    assert!(m.keys_expired >= 190, "{m:?}");
    assert_eq!(m.rows_out, 200);
    Ok(())
}

#[test]
fn an_expired_key_starts_over_and_its_old_rows_are_late_as_expired() -> Result<()> {
    // a at 1 s and 2 s; then b at 20 s takes the watermark (ts) past
    // a's 2 s + 5 s: a expires, and b20 goes out. a at 3 s is then 17 s
    // behind: late, expired; a at 18 s is within the ttl: a starts over,
    // its sum 7, out at the end.
    let rows = [
        ("a", 1, 1),
        ("a", 2, 2),
        ("b", 20, 10),
        ("a", 3, 100),
        ("a", 18, 7),
    ]
    .map(|(k, t, v)| (k, s(t), v));
    let mut op = sum_of_three_with(Some(s(5)))?;
    let lines = rows_only(output(&mut op, vec![StreamItem::Chunk(events(&rows, 0))])?);
    assert_eq!(
        lines,
        [
            "+I[a, 1000, 1, 1]",
            "+I[a, 2000, 2, 3]",
            "+I[b, 20000, 10, 10]",
            "LATE[a, 3000, 100] @20000",
            "+I[a, 18000, 7, 7]",
        ]
    );
    let m = op.metrics();
    assert_eq!((m.late_rows, m.late_rows_expired), (1, 1));
    Ok(())
}

#[test]
fn expiring_state_survives_a_checkpoint() -> Result<()> {
    let chunk = ever_new_keys(40);
    let mut whole = sum_of_three_with(Some(s(5)))?;
    let expected = run(&mut whole, vec![StreamItem::Chunk(chunk.clone())])?;
    let mut first = sum_of_three_with(Some(s(5)))?;
    let mut out = Vec::new();
    first.process(part(&chunk, 0, 17), &mut out)?;
    let mut got = lines(out);
    let mut second = resumed(&first, sum_of_three_with(Some(s(5)))?)?;
    got.extend(run(&mut second, vec![part(&chunk, 17, 23)])?);
    assert_eq!(rows_only(got), rows_only(expected));
    Ok(())
}

#[test]
fn a_key_that_keeps_emitting_keeps_its_state_past_its_first_expiry() -> Result<()> {
    // ttl 5 s. a goes out at 1, 2 and 3 s: its state expires at 8 s, not
    // at 6 s (5 s after its first row), though its expiry was first set
    // there. a@4, accepted behind the watermark 7 s, still sums a's last
    // rows (2 + 3 + 4); it goes out at the watermark 8 s, so a now expires
    // at 9 s. The watermark 20 s (before a@16) is past that: a starts over
    // and a@16 sums alone.
    let rows = [
        ("a", 1, 1),
        ("a", 2, 2),
        ("a", 3, 3),
        ("b", 7, 10),
        ("a", 4, 4),
        ("b", 8, 20),
        ("c", 20, 30),
        ("a", 16, 5),
    ]
    .map(|(k, t, v)| (k, s(t), v));
    let chunk = events(&rows, 0);
    let expected = [
        "+I[a, 1000, 1, 1]",
        "+I[a, 2000, 2, 3]",
        "+I[a, 3000, 3, 6]",
        "+I[b, 7000, 10, 10]",
        "+I[a, 4000, 4, 9]",
        "+I[b, 8000, 20, 30]",
        "+I[c, 20000, 30, 30]",
        "+I[a, 16000, 5, 5]",
    ];
    let mut op = sum_of_three_with(Some(s(5)))?;
    let whole = rows_only(output(&mut op, vec![StreamItem::Chunk(chunk.clone())])?);
    assert_eq!(whole, expected);
    // a and b by the watermark 20 s, then c and a again at the end.
    assert_eq!(op.metrics().keys_expired, 4);
    // The same across a checkpoint taken while a's expiry is set earlier
    // than its state expires, and row by row.
    let mut first = sum_of_three_with(Some(s(5)))?;
    let mut out = Vec::new();
    first.process(part(&chunk, 0, 6), &mut out)?;
    let mut got = lines(out);
    let mut second = resumed(&first, sum_of_three_with(Some(s(5)))?)?;
    got.extend(output(&mut second, vec![part(&chunk, 6, 2)])?);
    assert_eq!(rows_only(got), expected);
    let one_by_one = output(&mut sum_of_three_with(Some(s(5)))?, in_chunks(&chunk, 1))?;
    assert_eq!(rows_only(one_by_one), expected);
    Ok(())
}

#[test]
fn rows_due_together_are_sorted_out_by_key_in_first_row_order() {
    let row = |r: u32| store::RowRef::at(0, r);
    let due: Vec<(u32, store::RowRef)> = [(7, 0), (2, 1), (7, 2), (0, 3), (2, 4), (7, 5)]
        .iter()
        .map(|(id, r)| (*id, row(*r)))
        .collect();
    let mut by_key = ByKey::default();
    // Twice: the slots are given back after each sort.
    for _ in 0..2 {
        by_key.sort(&due, 8);
        let groups: Vec<(u32, Vec<store::RowRef>)> = by_key
            .groups()
            .map(|(id, rows)| (id, rows.to_vec()))
            .collect();
        assert_eq!(
            groups,
            [
                (7, vec![row(0), row(2), row(5)]),
                (2, vec![row(1), row(4)]),
                (0, vec![row(3)]),
            ]
        );
    }
    // Any number of rows: keys in the order of their first row.
    let many: Vec<(u32, store::RowRef)> = (0..500u32).map(|r| ((r * 7) % 13, row(r))).collect();
    for n in [0, 1, 2, ByKey::FEW, ByKey::FEW + 1, 500] {
        by_key.sort(&many[..n], 13);
        let got: Vec<(u32, Vec<store::RowRef>)> = by_key
            .groups()
            .map(|(id, rows)| (id, rows.to_vec()))
            .collect();
        let mut expected: Vec<(u32, Vec<store::RowRef>)> = Vec::new();
        for (id, r) in &many[..n] {
            match expected.iter_mut().find(|(k, _)| k == id) {
                Some((_, rows)) => rows.push(*r),
                None => expected.push((*id, vec![*r])),
            }
        }
        assert_eq!(got, expected, "{n} rows");
    }
}

/// Many rows of three keys at one rowtime go out key by key, keys in the
/// order of their first row, each key's rows in arrival order — with few
/// rows at a rowtime and with more than are paired up one by one.
#[test]
fn rows_sharing_a_rowtime_go_out_key_by_key() -> Result<()> {
    for n in [6, 3 * ByKey::FEW] {
        // a with 0 at 0.5 s (so that a has the first key number), then
        // keys b, c, a, b, c, a, ...: values 1, 2, 3, ... at 1 s.
        let keys = ["b", "c", "a"];
        let rows: Vec<(&str, i64, i64)> = std::iter::once(("a", 500, 0))
            .chain((0..n).map(|i| (keys[i % 3], s(1), i as i64 + 1)))
            .collect();
        let got = rows_only(output(
            &mut sum_of_three()?,
            vec![StreamItem::Chunk(events(&rows, s(2)))],
        )?);
        // Each key's values, the sum of each with the two before it (a's
        // 0 adds nothing).
        let mut expected = vec!["+I[a, 500, 0, 0]".to_string()];
        for (first, key) in keys.iter().enumerate() {
            let values: Vec<i64> = (first..n).step_by(3).map(|i| i as i64 + 1).collect();
            for (j, v) in values.iter().enumerate() {
                let total: i64 = values[j.saturating_sub(2)..=j].iter().sum();
                expected.push(format!("+I[{key}, 1000, {v}, {total}]"));
            }
        }
        assert_eq!(got, expected, "{n} rows");
    }
    Ok(())
}

/// `MAX(v)` over two keys' rows (BIGINT), with `AVG(v)` beside it when
/// `reads_rows` (an aggregate computed from its frame's rows): then the
/// frame holds its rows, else only their count (ROWS) or rowtimes
/// (RANGE).
fn max_over(units: FrameUnits, reads_rows: bool) -> Result<OverAggregate> {
    let call = |func, arg| AggregateCall {
        func,
        arg,
        arg_type: arg.map(|_| SqlType::BigInt),
        distinct: false,
        separator: None,
        offset: 0,
        lag_default: None,
        ty: SqlType::BigInt,
    };
    let mut aggregates = vec![call(AggregateFunction::Max, Some(2))];
    let mut fields = vec![
        Field::new("k", DataType::Utf8, true),
        Field::new("ts", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        Field::new("v", DataType::Int64, true),
        Field::new("hi", DataType::Int64, true),
    ];
    if reads_rows {
        aggregates.push(call(AggregateFunction::Avg, Some(2)));
        fields.push(Field::new("n", DataType::Int64, true));
    }
    let preceding = match units {
        FrameUnits::Rows => 1,
        FrameUnits::Range => s(2),
    };
    OverAggregate::new(OverSpec {
        partition: vec![0],
        key_types: vec![SqlType::String],
        time_column: 1,
        frame: OverFrame {
            units,
            preceding: Some(preceding),
        },
        aggregates,
        output_schema: Arc::new(Schema::new(fields)),
        trace: false,
        ttl: None,
    })
}

#[test]
fn a_frame_of_incremental_aggregates_holds_no_rows_once_they_are_out() -> Result<()> {
    // Up to MAX: AVG's column dropped, as are LATE lines' brackets.
    let maxes = |lines: Vec<String>| -> Vec<String> {
        let fields = |l: &String| l.split(", ").take(4).collect::<Vec<_>>().join(", ");
        rows_only(lines)
            .iter()
            .map(|l| fields(l).trim_end_matches(']').to_string())
            .collect()
    };
    let chunk = two_keys();
    for units in [FrameUnits::Rows, FrameUnits::Range] {
        let mut runs = Vec::new();
        for reads_rows in [true, false] {
            // Six rows in (a@1 has gone out, four wait), then a
            // checkpoint, then the rest.
            let mut op = max_over(units, reads_rows)?;
            let mut first = Vec::new();
            op.process(StreamItem::Chunk(chunk.slice(0, 6)), &mut first)?;
            let (held, waiting) = (op.state.store.referenced(), op.state.pending.len());
            if reads_rows {
                assert!(
                    held > waiting,
                    "{units:?}: {held} rows held, {waiting} wait"
                );
            } else {
                assert_eq!(held, waiting, "{units:?}: rows held besides those waiting");
            }
            let mut back = resumed(&op, max_over(units, reads_rows)?)?;
            let mut all = lines(first);
            all.extend(output(
                &mut back,
                vec![StreamItem::Chunk(chunk.slice(6, 3))],
            )?);
            let straight = output(
                &mut max_over(units, reads_rows)?,
                vec![StreamItem::Chunk(chunk.clone())],
            )?;
            assert_eq!(rows_only(all.clone()), rows_only(straight), "{units:?}");
            runs.push(maxes(all));
        }
        assert_eq!(runs[0], runs[1], "{units:?}");
    }
    Ok(())
}

/// Random rows of a few keys, out of order, with NULLs and the DOUBLEs
/// whose order and sums are delicate (-0.0, NaN, infinities), integers
/// whose sums wrap: columns `k, ts, d DOUBLE, i BIGINT, dec DECIMAL(10,
/// 2), n INT`, each row meeting the watermark `ts - 3 s` of the rows
/// before it.
fn delicate_rows(rng: &mut Rng, n: usize) -> Result<Chunk> {
    use arrow::array::StringArray;
    use arrow::array::{ArrayRef, Decimal128Array, Float64Array, Int32Array, Int64Array};
    use arrow::array::{RecordBatch, TimestampMillisecondArray};
    let specials = [0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300];
    let (mut keys, mut times, mut ds, mut is, mut decs, mut watermarks) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let mut ns = vec![];
    let (mut clock, mut watermark) = (0i64, NO_WATERMARK);
    for _ in 0..n {
        clock += rng.below(700) as i64;
        let ts = clock - rng.below(4_000) as i64;
        keys.push(["a", "b", "c", "d", "e"][rng.below(5) as usize]);
        times.push(ts);
        ds.push(match rng.below(8) {
            0 => None,
            1 => Some(specials[rng.below(specials.len() as u64) as usize]),
            _ => Some((rng.below(20_000) as f64 - 10_000.0) / 7.0),
        });
        is.push((rng.below(6) != 0).then(|| match rng.below(4) {
            0 => i64::MAX - rng.below(100) as i64,
            _ => rng.below(100) as i64 - 50,
        }));
        ns.push((rng.below(6) != 0).then(|| match rng.below(3) {
            0 => i32::MIN + rng.below(100) as i32,
            _ => rng.below(1 << 30) as i32,
        }));
        decs.push((rng.below(6) != 0).then(|| rng.below(1_000_000) as i128 - 500_000));
        watermarks.push(watermark);
        watermark = watermark.max(ts - s(3));
    }
    let batch = RecordBatch::try_from_iter([
        ("k", Arc::new(StringArray::from(keys)) as ArrayRef),
        ("ts", Arc::new(TimestampMillisecondArray::from(times))),
        ("d", Arc::new(Float64Array::from(ds))),
        ("i", Arc::new(Int64Array::from(is))),
        (
            "dec",
            Arc::new(Decimal128Array::from(decs).with_precision_and_scale(10, 2)?),
        ),
        ("n", Arc::new(Int32Array::from(ns))),
    ])?;
    Ok(Chunk::new(batch, watermarks))
}

/// DOUBLE SUM and AVG, MIN and MAX of DOUBLE, BIGINT, DECIMAL and the
/// rowtime over `ROWS n PRECEDING` of [`delicate_rows`], kept in `layout`.
fn incremental_over(n: i64, ttl: Option<i64>, layout: Layout) -> Result<OverAggregate> {
    let decimal = SqlType::Decimal(10, 2);
    let timestamp = SqlType::Timestamp(3);
    let calls = [
        (AggregateFunction::Sum, 2, SqlType::Double),
        (AggregateFunction::Avg, 2, SqlType::Double),
        (AggregateFunction::Max, 2, SqlType::Double),
        (AggregateFunction::Min, 2, SqlType::Double),
        (AggregateFunction::Min, 3, SqlType::BigInt),
        (AggregateFunction::Max, 4, decimal.clone()),
        (AggregateFunction::Min, 1, timestamp.clone()),
        (AggregateFunction::Sum, 3, SqlType::BigInt),
        (AggregateFunction::Sum, 5, SqlType::Int),
        (AggregateFunction::Count, 2, SqlType::BigInt),
        (AggregateFunction::CountStar, 0, SqlType::BigInt),
    ];
    let mut fields = vec![
        Field::new("k", DataType::Utf8, true),
        Field::new("ts", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        Field::new("d", DataType::Float64, true),
        Field::new("i", DataType::Int64, true),
        Field::new("dec", decimal.to_arrow(), true),
        Field::new("n", DataType::Int32, true),
    ];
    let aggregates = calls
        .iter()
        .enumerate()
        .map(|(i, (func, arg, ty))| {
            let star = *func == AggregateFunction::CountStar;
            let count = star || *func == AggregateFunction::Count;
            let result = if count { SqlType::BigInt } else { ty.clone() };
            fields.push(Field::new(format!("a{i}"), result.to_arrow(), true));
            AggregateCall {
                func: *func,
                arg: (!star).then_some(*arg),
                arg_type: (!star).then(|| ty.clone()),
                distinct: false,
                separator: None,
                offset: 0,
                lag_default: None,
                ty: result,
            }
        })
        .collect();
    OverAggregate::with_layout(
        OverSpec {
            partition: vec![0],
            key_types: vec![SqlType::String],
            time_column: 1,
            frame: OverFrame {
                units: FrameUnits::Rows,
                preceding: Some(n),
            },
            aggregates,
            output_schema: Arc::new(Schema::new(fields)),
            trace: false,
            ttl,
        },
        layout,
    )
}

/// A short ROWS frame kept in one block per key gives, row for row, what
/// the queues give: every frame length a block holds, with and without a
/// ttl (keys starting over), in chunks of any size, across a checkpoint.
#[test]
fn frames_kept_in_blocks_give_what_queues_give() -> Result<()> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for n in [0, 1, 2, 5, 10, 30, 62] {
        let chunk = delicate_rows(&mut rng, 600)?;
        let ttl = (n % 2 == 1).then(|| s(2));
        let queues = output(
            &mut incremental_over(n, ttl, Layout::Queues)?,
            vec![StreamItem::Chunk(chunk.clone())],
        )?;
        let batch = 1 + rng.below(40) as usize;
        let blocks = output(
            &mut incremental_over(n, ttl, Layout::Blocks)?,
            in_chunks(&chunk, batch),
        )?;
        assert_eq!(rows_only(blocks), rows_only(queues.clone()), "ROWS {n}");
        // A checkpoint part way: the blocks written and read back.
        let cut = 1 + rng.below(599) as usize;
        let mut op = incremental_over(n, ttl, Layout::Blocks)?;
        let mut first = Vec::new();
        op.process(part(&chunk, 0, cut), &mut first)?;
        let mut back = resumed(&op, incremental_over(n, ttl, Layout::Blocks)?)?;
        let mut all = lines(first);
        all.extend(output(&mut back, vec![part(&chunk, cut, 600 - cut)])?);
        assert_eq!(rows_only(all), rows_only(queues), "ROWS {n}, cut at {cut}");
    }
    Ok(())
}

/// Only short ROWS frames of incremental aggregates are kept in blocks.
#[test]
fn blocks_keep_only_short_frames_of_incremental_aggregates() -> Result<()> {
    let blocks = |op: &OverAggregate| op.state.frames.in_blocks();
    assert!(blocks(&incremental_over(62, None, Layout::Blocks)?));
    assert!(!blocks(&incremental_over(63, None, Layout::Blocks)?));
    assert!(!blocks(&incremental_over(2, None, Layout::Queues)?));
    assert!(
        !blocks(&max_over(FrameUnits::Rows, true)?),
        "COUNT reads rows"
    );
    assert!(blocks(&max_over(FrameUnits::Rows, false)?));
    assert!(!blocks(&max_over(FrameUnits::Range, false)?));
    Ok(())
}
