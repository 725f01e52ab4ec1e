//! Window aggregation against the worked examples of spec §5, at every
//! batch size.

use super::*;
use crate::ops::operator::Operator;
use crate::ops::testing::{count_star, events, in_chunks, part, run, s};
use crate::runtime::stream::StreamItem;
use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use std::sync::Arc;

/// A window aggregation of `aggregates` over windows of `kind`, grouped by
/// the test events' `k` when `keyed`, with `lateness` ms allowed; the
/// aggregates' columns are named `names`.
fn aggregation(
    kind: WindowKind,
    keyed: bool,
    aggregates: Vec<AggregateCall>,
    names: &[&str],
    lateness: i64,
) -> Result<WindowAggregate> {
    let ts = DataType::Timestamp(TimeUnit::Millisecond, None);
    let mut fields = Vec::new();
    if keyed {
        fields.push(Field::new("k", DataType::Utf8, true));
    }
    for name in ["window_start", "window_end", "window_time"] {
        fields.push(Field::new(name, ts.clone(), false));
    }
    for (call, name) in aggregates.iter().zip(names) {
        let nullable = call.func != tidemark_common::expr::AggregateFunction::CountStar;
        fields.push(Field::new(*name, call.ty.to_arrow(), nullable));
    }
    WindowAggregate::new(WindowAggregateSpec {
        kind,
        time_column: 1,
        key_columns: if keyed { vec![0] } else { vec![] },
        key_types: if keyed { vec![SqlType::String] } else { vec![] },
        aggregates,
        lateness,
        output_schema: Arc::new(Schema::new(fields)),
        two_phase_sums: false,
        zone: None,
        trace: crate::time::trace::Tracing::Off,
        early_fire: None,
        key_share: None,
        attached: false,
    })
}

/// `COUNT(*)` per 5 s TUMBLE window, no keys, with `lateness` ms allowed.
fn count_per_tumble(lateness: i64) -> Result<WindowAggregate> {
    let kind = WindowKind::Tumble {
        size: s(5),
        offset: 0,
    };
    aggregation(kind, false, vec![count_star()], &["cnt"], lateness)
}

/// Spec §5's arrivals: 1 2 4 6 3 8 2 11 1 13 s, watermark `ts - 2 s`;
/// `v` is the arrival number.
fn arrivals() -> Vec<(&'static str, i64, i64)> {
    [1, 2, 4, 6, 3, 8, 2, 11, 1, 13]
        .iter()
        .enumerate()
        .map(|(i, t)| ("a", s(*t), i as i64))
        .collect()
}

/// The output of `op` for the arrivals in chunks of `batch` rows.
fn output(mut op: WindowAggregate, batch: usize) -> Result<Vec<String>> {
    let rows = arrivals();
    let chunk = events(&rows, s(2));
    let items = (0..rows.len())
        .step_by(batch)
        .map(|at| part(&chunk, at, batch.min(rows.len() - at)))
        .collect();
    run(&mut op, items)
}

#[test]
fn with_allowed_lateness_a_late_row_refires_its_window_until_cleanup() -> Result<()> {
    let lines = output(count_per_tumble(s(3))?, 10)?;
    // [0,5) fires with 4 rows when the watermark reaches 6 s; the row at
    // 2 s (watermark 6 s, before cleanup at 4.999 + 3 s) updates it to 5;
    // the row at 1 s meets watermark 9 s, past cleanup, and is late.
    assert_eq!(
        lines,
        [
            "+I[0, 5000, 4999, 4]",
            "WM 6000",
            "-U[0, 5000, 4999, 4]",
            "+U[0, 5000, 4999, 5]",
            "WM 9000",
            "LATE[a, 1000, 8] @9000",
            "+I[5000, 10000, 9999, 2]",
            "+I[10000, 15000, 14999, 2]",
            "WM end",
            "END",
        ]
    );
    Ok(())
}

#[test]
fn without_lateness_both_rows_behind_the_fired_window_are_late() -> Result<()> {
    let mut op = count_per_tumble(0)?;
    let rows = arrivals();
    let lines = run(&mut op, vec![StreamItem::Chunk(events(&rows, s(2)))])?;
    assert_eq!(
        lines,
        [
            "+I[0, 5000, 4999, 4]",
            "WM 6000",
            "LATE[a, 2000, 6] @6000",
            "LATE[a, 1000, 8] @9000",
            "WM 9000",
            "+I[5000, 10000, 9999, 2]",
            "+I[10000, 15000, 14999, 2]",
            "WM end",
            "END",
        ]
    );
    let m = op.metrics();
    assert_eq!((m.late_rows, m.late_rows_accepted), (2, 0));
    // How late: the watermark each met minus its rowtime.
    assert_eq!(m.lateness.max(), Some(s(8)));
    assert_eq!((m.windows_fired, m.windows_fired_before_end), (3, 1));
    assert_eq!((m.rows_in, m.rows_out), (10, 3));
    Ok(())
}

#[test]
fn results_do_not_depend_on_the_batch_size() -> Result<()> {
    // Watermarks go downstream at batch ends too; rows and late rows do
    // not move.
    let rows_only = |lines: Vec<String>| -> Vec<String> {
        lines.into_iter().filter(|l| !l.starts_with("WM")).collect()
    };
    for lateness in [0, s(3)] {
        let whole = rows_only(output(count_per_tumble(lateness)?, 10)?);
        for batch in [1, 2, 3, 7] {
            let cut = rows_only(output(count_per_tumble(lateness)?, batch)?);
            assert_eq!(cut, whole, "lateness {lateness}, batch {batch}");
        }
    }
    Ok(())
}

#[test]
fn a_checkpoint_taken_between_chunks_resumes_to_the_same_output() -> Result<()> {
    let rows = arrivals();
    let chunk = events(&rows, s(2));
    let mut op = count_per_tumble(s(3))?;
    op.process(part(&chunk, 0, 6), &mut Vec::new())?;
    let mut w = crate::runtime::snapshot::StateWriter::new();
    op.save_state(&mut w)?;
    let bytes = w.into_bytes();
    let mut resumed = count_per_tumble(s(3))?;
    resumed.load_state(&mut crate::runtime::snapshot::StateReader::new(&bytes))?;
    let mut straight = count_per_tumble(s(3))?;
    straight.process(part(&chunk, 0, 6), &mut Vec::new())?;
    let resumed_lines = run(&mut resumed, vec![part(&chunk, 6, 4)])?;
    assert_eq!(resumed_lines, run(&mut straight, vec![part(&chunk, 6, 4)])?);
    // Nothing fired in the first six rows (the watermark reached 4 s):
    // the resumed run emits all that one straight run does.
    assert_eq!(resumed_lines, output(count_per_tumble(s(3))?, 10)?);
    assert_eq!(resumed.metrics().late_rows, 1);
    Ok(())
}

/// `agg(v)` (or `agg(k)` for LISTAGG) over the test events.
fn call_on(func: tidemark_common::expr::AggregateFunction) -> AggregateCall {
    use tidemark_common::expr::AggregateFunction as F;
    let (arg, ty) = match func {
        F::ListAgg => (0, SqlType::String),
        _ => (2, SqlType::BigInt),
    };
    AggregateCall {
        func,
        arg: Some(arg),
        arg_type: Some(ty.clone()),
        distinct: false,
        separator: None,
        offset: 0,
        lag_default: None,
        ty,
    }
}

/// COUNT(*) and `funcs` per key `k` over windows of `kind`.
fn keyed_aggregation(
    kind: WindowKind,
    funcs: &[tidemark_common::expr::AggregateFunction],
    lateness: i64,
) -> Result<WindowAggregate> {
    let mut aggregates = vec![count_star()];
    aggregates.extend(funcs.iter().map(|f| call_on(*f)));
    let names = ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"];
    aggregation(kind, true, aggregates, &names, lateness)
}

/// 600 rows of five keys, 200 ms apart on average with up to 6 s of
/// disorder, values from -50 to 49: with a watermark 1 s behind, some rows
/// are late.
fn disordered_rows() -> Vec<(&'static str, i64, i64)> {
    let mut seed: u64 = 0x5eed;
    let mut next = move |n: u64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let keys = ["a", "b", "c", "d", "e"];
    (0..600)
        .map(|i| {
            let ts = i * 200 + next(200) as i64 - next(6_000) as i64;
            (keys[next(5) as usize], ts, next(100) as i64 - 50)
        })
        .collect()
}

#[test]
fn kept_merges_give_what_merging_every_slice_gives() -> Result<()> {
    use tidemark_common::expr::AggregateFunction as F;
    let exact = [F::Sum, F::Min, F::Max, F::FirstValue, F::LastValue, F::Avg];
    let with_listagg = [F::Sum, F::Min, F::FirstValue, F::LastValue, F::ListAgg];
    let hop = |slices: i64| WindowKind::Hop {
        slide: 500,
        size: 500 * slices,
        offset: 0,
    };
    let cumulate = |slices: i64| WindowKind::Cumulate {
        step: 700,
        max_size: 700 * slices,
        offset: 0,
    };
    let cases: Vec<(WindowKind, &[F])> = vec![
        (hop(4), &exact),
        (hop(7), &exact),
        (hop(30), &exact),
        (cumulate(3), &with_listagg),
        (cumulate(12), &with_listagg),
    ];
    let rows = disordered_rows();
    let chunk = events(&rows, s(1));
    let (mut dropped, mut refired) = (false, false);
    for (kind, funcs) in cases {
        for lateness in [0, s(3)] {
            for batch in [1, 7, rows.len()] {
                let mut kept = keyed_aggregation(kind, funcs, lateness)?;
                assert!(
                    !matches!(kept.state_mut().reuse, Reuse::Nothing),
                    "{kind}: merges are kept"
                );
                let mut merged = keyed_aggregation(kind, funcs, lateness)?;
                merged.state_mut().reuse = Reuse::Nothing;
                let expected = run(&mut merged, in_chunks(&chunk, batch))?;
                let got = run(&mut kept, in_chunks(&chunk, batch))?;
                assert!(
                    kept.state_mut().reuse.horizon() > i64::MIN,
                    "{kind}: the kept merges served"
                );
                assert!(expected.iter().any(|l| l.starts_with("+I")));
                dropped |= expected.iter().any(|l| l.starts_with("LATE"));
                refired |= expected.iter().any(|l| l.starts_with("-U"));
                assert_eq!(got, expected, "{kind}, lateness {lateness}, batch {batch}");
            }
        }
    }
    // Late rows dropped the kept merges and re-fired windows.
    assert!(dropped && refired);
    Ok(())
}

#[test]
fn a_floating_or_ordered_merge_keeps_merging_every_slice() -> Result<()> {
    use tidemark_common::expr::AggregateFunction as F;
    let hop = WindowKind::Hop {
        slide: 500,
        size: 5_000,
        offset: 0,
    };
    let mut listagg = keyed_aggregation(hop, &[F::Sum, F::ListAgg], 0)?;
    assert!(matches!(listagg.state_mut().reuse, Reuse::Nothing));
    let mut exact = keyed_aggregation(hop, &[F::Sum, F::Max], 0)?;
    assert!(matches!(exact.state_mut().reuse, Reuse::Stacks(_)));
    Ok(())
}
