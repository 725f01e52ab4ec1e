//! The aligner's rules, each on a few lanes of rows.

use super::*;
use arrow::array::{ArrayRef, AsArray, Int64Array, RecordBatch};
use arrow::datatypes::Int64Type;

/// A chunk of `values`, each row's watermark being its value.
pub(crate) fn rows(values: &[i64]) -> StreamItem {
    let batch = RecordBatch::try_from_iter([(
        "v",
        Arc::new(Int64Array::from(values.to_vec())) as ArrayRef,
    )])
    .unwrap();
    StreamItem::Chunk(Chunk::new(batch, values.to_vec()))
}

/// Everything the aligner gives until it waits or ends, as (lane,
/// value, row watermark) and told watermarks.
pub(crate) fn drain(a: &mut Aligner) -> (Vec<(usize, i64, i64)>, Vec<i64>) {
    let (mut taken, mut told) = (Vec::new(), Vec::new());
    while let Next::Item { lane, item } = a.next() {
        if let StreamItem::Chunk(c) = item {
            let values = c.batch.column(0).as_primitive::<Int64Type>();
            for (v, w) in values.values().iter().zip(&c.watermarks) {
                taken.push((lane, *v, *w));
            }
        }
        told.extend(a.watermark_rose());
    }
    (taken, told)
}

#[test]
fn rows_come_from_the_lowest_lane_ties_to_the_lower_number() {
    let mut a = Aligner::new(2);
    a.lane_mut(0).push([rows(&[1, 4, 5]), StreamItem::End]);
    a.lane_mut(1).push([rows(&[1, 2, 6]), StreamItem::End]);
    let (taken, _) = drain(&mut a);
    let order: Vec<(usize, i64)> = taken.iter().map(|(l, v, _)| (*l, *v)).collect();
    assert_eq!(order, [(0, 1), (1, 1), (1, 2), (0, 4), (0, 5), (1, 6)]);
    assert!(matches!(a.next(), Next::Ended));
}

#[test]
fn a_lane_with_nothing_queued_holds_the_others_until_it_reads() {
    let mut a = Aligner::new(2);
    a.lane_mut(0).push([rows(&[5, 6]), StreamItem::End]);
    assert!(matches!(a.next(), Next::Waiting { lane: 1 }));
    a.lane_mut(1).push([rows(&[7]), StreamItem::End]);
    let (taken, _) = drain(&mut a);
    assert_eq!(taken.len(), 3);
}

#[test]
fn an_idle_lane_is_left_out_and_its_rows_on_rejoining_carry_the_watermark() {
    let mut a = Aligner::new(2);
    a.lane_mut(0)
        .push([rows(&[10, 20]), StreamItem::Watermark(20)]);
    assert!(a.set_idle(1, true));
    let (taken, told) = drain(&mut a);
    assert_eq!(taken, [(0, 10, 10), (0, 20, 20)]);
    assert_eq!(told, [20]);
    // Lane 1 rejoins behind the combined watermark: it never goes
    // back, and the rows meet it.
    a.lane_mut(1).push([rows(&[3])]);
    assert!(a.set_idle(1, false));
    let (taken, told) = drain(&mut a);
    assert_eq!(taken, [(1, 3, 20)]);
    assert!(told.is_empty());
    // Lane 1 at 3 now holds the combined watermark at 20.
    assert_eq!(a.watermark(), 20);
}

#[test]
fn when_every_lane_is_idle_the_watermark_stays() {
    let mut a = Aligner::new(1);
    a.lane_mut(0).push([rows(&[4]), StreamItem::Watermark(4)]);
    drain(&mut a);
    a.set_idle(0, true);
    assert!(matches!(a.next(), Next::AllIdle));
    assert_eq!(a.watermark_rose(), None);
    assert_eq!(a.watermark(), 4);
}

/// A two-lane aligner as restored from a checkpoint of `a`, its lanes
/// ended (nothing more is read).
fn resumed(a: &Aligner) -> Result<Aligner> {
    let mut w = StateWriter::new();
    a.save_state(&mut w)?;
    let bytes = w.into_bytes();
    let mut b = Aligner::new(2);
    b.load_state(&mut StateReader::new(&bytes), |_| None)?;
    b.lane_mut(0).end();
    b.lane_mut(1).end();
    Ok(b)
}

#[test]
fn lanes_survive_a_checkpoint() -> Result<()> {
    let mut a = Aligner::new(2);
    a.lane_mut(0).push([rows(&[1, 3])]);
    a.lane_mut(1).push([rows(&[2])]);
    let Next::Item { .. } = a.next() else {
        panic!("a row")
    };
    let mut b = resumed(&a)?;
    let (taken, _) = drain(&mut b);
    let values: Vec<i64> = taken.iter().map(|t| t.1).collect();
    assert_eq!(values, [2, 3]);
    Ok(())
}

#[test]
fn closely_interleaved_lanes_take_their_chunks_in_short_runs() -> Result<()> {
    let odd: Vec<i64> = (0..50).map(|i| 2 * i + 1).collect();
    let even: Vec<i64> = (1..=50).map(|i| 2 * i).collect();
    let start = || {
        let mut a = Aligner::new(2);
        a.lane_mut(0).push([rows(&odd), StreamItem::End]);
        a.lane_mut(1).push([rows(&even), StreamItem::End]);
        a
    };
    let (taken, _) = drain(&mut start());
    let order: Vec<(usize, i64, i64)> = (1..=100).map(|v| (((v + 1) % 2) as usize, v, v)).collect();
    assert_eq!(taken, order);
    // Stopped part way into both chunks, saved and resumed: the same rows
    // follow, and what a lane still holds is only what it has not given.
    let mut a = start();
    for _ in 0..7 {
        let Next::Item { .. } = a.next() else {
            panic!("a row")
        };
    }
    assert_eq!(a.lane_mut(0).queued_rows(), 46);
    assert_eq!(a.lane_mut(1).queued_rows(), 47);
    assert_eq!(a.lane_mut(0).next_watermark(), 9);
    let mut b = resumed(&a)?;
    let (rest, _) = drain(&mut b);
    assert_eq!(rest, order[7..]);
    Ok(())
}
