//! The `window_start`, `window_end` and `window_time` columns that every
//! window operator appends to its rows (the window TVFs, window and session
//! aggregation, the SESSION TVF), built in one place so they agree on types
//! and zones: start and end as the wall clock shows them (TIMESTAMP(3)),
//! `window_time` the instant of the window's last millisecond, carrying the
//! rowtime's zone tag (TIMESTAMP_LTZ(3) for an LTZ rowtime), as in Flink.

use arrow::array::{ArrayRef, TimestampMillisecondArray};
use arrow::datatypes::{DataType, Schema};
use std::sync::Arc;
use tidemark_common::{Error, Result};

/// Builds window columns; `window_time` is tagged `time_zone`.
#[derive(Clone, Debug, Default)]
pub struct WindowColumns {
    time_zone: Option<Arc<str>>,
}

impl WindowColumns {
    /// Columns whose `window_time` carries the zone tag `time_zone` (the
    /// rowtime's).
    pub fn new(time_zone: Option<Arc<str>>) -> Self {
        WindowColumns { time_zone }
    }

    /// Columns as `output` declares them: `window_start, window_end,
    /// window_time` from field `first` on (after the keys).
    pub fn declared(output: &Schema, first: usize) -> Result<Self> {
        match output.field(first + 2).data_type() {
            DataType::Timestamp(_, tz) => Ok(WindowColumns::new(tz.clone())),
            other => Err(Error::Internal(format!("window_time of type {other}"))),
        }
    }

    /// One window's columns for `n` rows: `start` and `end` on the wall
    /// clock, `time` the instant of its last millisecond.
    pub fn repeat(&self, start: i64, end: i64, time: i64, n: usize) -> [ArrayRef; 3] {
        [
            Arc::new(TimestampMillisecondArray::from_value(start, n)),
            Arc::new(TimestampMillisecondArray::from_value(end, n)),
            Arc::new(
                TimestampMillisecondArray::from_value(time, n)
                    .with_timezone_opt(self.time_zone.clone()),
            ),
        ]
    }

    /// Each row's window: `starts[i]`, `ends[i]`, `times[i]`.
    pub fn per_row(&self, starts: Vec<i64>, ends: Vec<i64>, times: Vec<i64>) -> [ArrayRef; 3] {
        [
            Arc::new(TimestampMillisecondArray::from(starts)),
            Arc::new(TimestampMillisecondArray::from(ends)),
            Arc::new(
                TimestampMillisecondArray::from(times).with_timezone_opt(self.time_zone.clone()),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Array;
    use arrow::datatypes::{Field, TimeUnit};

    #[test]
    fn window_time_carries_the_rowtime_zone_and_the_bounds_do_not() -> Result<()> {
        let ts = |tz: Option<&str>| DataType::Timestamp(TimeUnit::Millisecond, tz.map(Into::into));
        let output = Schema::new(vec![
            Field::new("k", DataType::Utf8, true),
            Field::new("window_start", ts(None), false),
            Field::new("window_end", ts(None), false),
            Field::new("window_time", ts(Some("+00:00")), false),
        ]);
        let columns = WindowColumns::declared(&output, 1)?;
        let [start, end, time] = columns.repeat(0, 5_000, 4_999, 2);
        for (column, field) in [start, end, time].iter().zip(&output.fields()[1..]) {
            assert_eq!(column.data_type(), field.data_type());
            assert_eq!(column.len(), 2);
        }
        let [_, _, time] = columns.per_row(vec![0, 5], vec![5, 10], vec![4, 9]);
        assert_eq!(time.data_type(), &ts(Some("+00:00")));
        // A plan whose window_time is no timestamp is a bug, not a panic.
        let keys = Schema::new(vec![Field::new("k", DataType::Utf8, true); 3]);
        assert!(WindowColumns::declared(&keys, 0).is_err());
        Ok(())
    }
}
