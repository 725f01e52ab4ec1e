//! Journaled decisions replayed on an aligner that reads faster than the
//! one that made them: the rows come out in the same order, with the same
//! watermarks, late where they were late.

use super::*;
use crate::runtime::stream::StreamItem;
use crate::time::align::tests::{drain, rows};
use crate::time::align::Next;
use arrow::array::AsArray;
use arrow::datatypes::Int64Type;

type Taken = Vec<(usize, i64, i64)>;

/// Makes `lane` idle or active as a live run does, and records it.
fn decide(a: &mut Aligner, seat: &Seat, lane: usize, idle: bool) {
    let (taken, watermark, lanes) = (a.taken(), a.watermark(), a.positions());
    assert!(a.set_idle(lane, idle));
    seat.record(Decision::Turn {
        taken,
        watermark,
        lanes,
        changes: vec![Change {
            lane,
            idle,
            at: 0,
            trace: None,
        }],
    });
}

/// The run that decides: lane 1 reads one row, goes quiet and idle;
/// lane 0 goes on; lane 1 comes back with a row behind the watermark.
fn live(journal: &Journal) -> (Taken, Vec<i64>) {
    let seat = journal.seat(0);
    let mut a = Aligner::new(2);
    let mut out = (Vec::new(), Vec::new());
    let mut step = |a: &mut Aligner| {
        let (t, w) = drain(a);
        out.0.extend(t);
        out.1.extend(w);
    };
    a.lane_mut(0)
        .push([rows(&[1, 2, 3]), StreamItem::Watermark(3)]);
    a.lane_mut(1).push([rows(&[1]), StreamItem::Watermark(1)]);
    step(&mut a);
    decide(&mut a, &seat, 1, true);
    step(&mut a);
    a.lane_mut(0)
        .push([rows(&[4, 5]), StreamItem::Watermark(5)]);
    step(&mut a);
    a.lane_mut(1)
        .push([rows(&[2, 6]), StreamItem::Watermark(6)]);
    decide(&mut a, &seat, 1, false);
    step(&mut a);
    a.lane_mut(0).push([StreamItem::End]);
    a.lane_mut(1).push([StreamItem::End]);
    step(&mut a);
    out
}

/// A resumed run with every row there from the start, applying what
/// `journal` holds (nothing: it decides nothing).
fn replayed(journal: &Journal) -> (Taken, Vec<i64>) {
    let seat = journal.seat(0);
    let mut a = Aligner::new(2);
    seat.hold(&mut a);
    // Batches cut otherwise, and later watermarks in one.
    a.lane_mut(0).push([
        rows(&[1, 2]),
        rows(&[3, 4, 5]),
        StreamItem::Watermark(5),
        StreamItem::End,
    ]);
    a.lane_mut(1).push([
        rows(&[1]),
        StreamItem::Watermark(1),
        rows(&[2, 6]),
        StreamItem::Watermark(6),
        StreamItem::End,
    ]);
    let (mut taken, mut told) = (Vec::new(), Vec::new());
    for _ in 0..100 {
        seat.hold(&mut a);
        // What the lanes read: held back past the next decision's point.
        a.lane_mut(0).push([]);
        if let Some(changes) = seat.due_turn(&a).expect("stands where it decided") {
            for c in changes {
                a.force_idle(c.lane, c.idle);
            }
            seat.applied();
            seat.hold(&mut a);
        }
        match a.next() {
            Next::Item { lane, item } => {
                if let StreamItem::Chunk(c) = item {
                    let values = c.batch.column(0).as_primitive::<Int64Type>();
                    for (v, w) in values.values().iter().zip(&c.watermarks) {
                        taken.push((lane, *v, *w));
                    }
                }
            }
            Next::Ended => break,
            Next::Waiting { .. } | Next::AllIdle => {}
        }
        told.extend(a.watermark_rose());
    }
    (taken, told)
}

#[test]
fn a_replayed_journal_puts_each_decision_between_the_same_rows() -> Result<()> {
    let journal = Journal::new();
    let first = live(&journal);
    // Lane 1's row 2 came back behind the watermark: it carries 5.
    assert!(first.0.contains(&(1, 2, 5)), "{first:?}");
    let record = journal.take_record().expect("two decisions recorded");
    let resumed = Journal::new();
    resumed.replay(&[record])?;
    assert!(resumed.replaying());
    // The same rows with the same watermarks (the watermarks told between
    // rows depend on how the reads were cut, as at any batch size).
    let again = replayed(&resumed);
    assert_eq!(again.0, first.0);
    assert_eq!(again.1.last(), first.1.last());
    assert!(!resumed.replaying());
    // Without the journal the same rows come out otherwise: lane 1's
    // rows are on time.
    let plain = replayed(&Journal::new());
    assert!(plain.0.contains(&(1, 2, 2)), "{plain:?}");
    assert_ne!(plain.0, first.0);
    Ok(())
}

#[test]
fn a_lane_that_read_otherwise_is_named() -> Result<()> {
    let journal = Journal::new();
    live(&journal);
    let resumed = Journal::new();
    resumed.replay(&[journal.take_record().expect("recorded")])?;
    let seat = resumed.seat(0);
    let mut a = Aligner::new(2);
    seat.hold(&mut a);
    // Lane 1 ended after no row at all: it can never stand where it did.
    a.lane_mut(0).push([rows(&[1, 2, 3])]);
    a.lane_mut(1).push([StreamItem::End]);
    seat.hold(&mut a);
    assert_eq!(seat.due_turn(&a), Err(1));
    Ok(())
}

#[test]
fn decisions_survive_their_encoding() -> Result<()> {
    let journal = Journal::new();
    let seat = journal.seat(3);
    let decisions = [
        Decision::Join {
            taken: 4,
            watermark: 2,
            names: vec!["logs/b.csv".into()],
            traces: vec!["SPLIT ...".into()],
        },
        Decision::Turn {
            taken: 9,
            watermark: -7,
            lanes: vec![LanePosition {
                fetched: 10,
                taken: 9,
                read_watermark: -5,
                ended: false,
            }],
            changes: vec![Change {
                lane: 0,
                idle: true,
                at: 1_000,
                trace: Some("IDLE ...".into()),
            }],
        },
    ];
    for d in &decisions {
        seat.record(d.clone());
    }
    let record = journal.take_record().expect("recorded");
    assert_eq!(journal.take_record(), None);
    let resumed = Journal::new();
    resumed.replay(&[record])?;
    let seat = resumed.seat(3);
    for d in decisions {
        assert_eq!(seat.next(), Some(d));
        seat.applied();
    }
    assert!(!resumed.replaying());
    Ok(())
}
