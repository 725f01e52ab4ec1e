//! The trace (`SET 'tidemark.trace' = 'true'`): one line per event of the
//! event-time engine — a window firing, firing again for a late row, a
//! late row dropped, a window's state freed, sessions merging — with the
//! window, the rows in it and the watermark at that moment. It answers
//! "why did my window fire twice?" and "why is my window empty?".
//!
//! Lines travel downstream as side items among the changelog, so the trace
//! is the same at every batch size.

use crate::formats::print::format_value;
use crate::runtime::stream::SideItem;
use arrow::array::ArrayRef;
use std::fmt::Write;
use tidemark_common::{Result, SqlType};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// A window fired on time.
    Fire,
    /// An open window emitted its partial result (early firing).
    Early,
    /// A late row (within the allowed lateness) made a window fire again.
    Refire,
    /// A row came too late for every window it belongs to.
    Late,
    /// A window's state was freed: no row can change it any more.
    Cleanup,
    /// A row joined sessions into one.
    Merge,
    /// A split had no row for the idle timeout: it no longer holds the
    /// watermark (spec §8).
    Idle,
    /// An idle split has rows again.
    Active,
    /// A split joined a source (a new file in a followed folder).
    Split,
    /// A key's state expired (`tidemark.state.ttl`).
    Expire,
}

impl TraceEvent {
    fn label(self) -> &'static str {
        match self {
            TraceEvent::Fire => "FIRE",
            TraceEvent::Early => "EARLY",
            TraceEvent::Refire => "REFIRE",
            TraceEvent::Late => "LATE",
            TraceEvent::Cleanup => "CLEANUP",
            TraceEvent::Merge => "MERGE",
            TraceEvent::Idle => "IDLE",
            TraceEvent::Active => "ACTIVE",
            TraceEvent::Split => "SPLIT",
            TraceEvent::Expire => "EXPIRE",
        }
    }
}

/// A window as a trace line names it.
pub enum TracedWindow {
    /// `[start, end)`.
    Bounds(i64, i64),
    /// The window that ends at this instant: windows that rows carry,
    /// whose starts are theirs (a session's may differ by key).
    Ending(i64),
}

/// One trace line under construction:
/// `EVENT operator key=(..) window=[start, end) rows=n watermark=w`.
pub struct TraceLine {
    text: String,
}

impl TraceLine {
    pub fn new(event: TraceEvent, operator: &str) -> Self {
        TraceLine {
            text: format!("{:<7} {operator}", event.label()),
        }
    }

    /// The group key: row `row` of `columns`, of `types`.
    pub fn key(mut self, columns: &[ArrayRef], types: &[SqlType], row: usize) -> Result<Self> {
        if columns.is_empty() {
            return Ok(self);
        }
        self.text.push_str(" key=(");
        for (i, (column, ty)) in columns.iter().zip(types).enumerate() {
            if i > 0 {
                self.text.push_str(", ");
            }
            format_value(column.as_ref(), ty, row, chrono_tz::UTC, &mut self.text)?;
        }
        self.text.push(')');
        Ok(self)
    }

    pub fn window(mut self, start: i64, end: i64) -> Self {
        let _ = write!(self.text, " window=[{}, {})", instant(start), instant(end));
        self
    }

    /// A window as `window`, or (start unknown) by its end alone.
    pub fn window_of(self, window: TracedWindow) -> Self {
        match window {
            TracedWindow::Bounds(start, end) => self.window(start, end),
            TracedWindow::Ending(end) => self.field("window_end", instant(end)),
        }
    }

    pub fn field(mut self, name: &str, value: impl std::fmt::Display) -> Self {
        let _ = write!(self.text, " {name}={value}");
        self
    }

    pub fn watermark(self, watermark: i64) -> SideItem {
        let line = self.field("watermark", instant(watermark));
        SideItem::Trace(line.text)
    }
}

/// The keys of a keyed operator, for its trace lines.
pub struct KeyShape<'a> {
    pub converter: Option<&'a arrow::row::RowConverter>,
    pub types: &'a [SqlType],
    /// Windows are shown on this zone's wall clock (TIMESTAMP_LTZ rowtimes).
    pub zone: Option<chrono_tz::Tz>,
}

impl KeyShape<'_> {
    /// A line about the session `[start, end)` of `key` (in arrow's row
    /// format).
    pub fn line(
        &self,
        event: TraceEvent,
        operator: &str,
        key: &[u8],
        start: i64,
        end: i64,
    ) -> Result<TraceLine> {
        let columns = match self.converter {
            Some(conv) => conv.convert_rows(std::iter::once(conv.parser().parse(key)))?,
            None => Vec::new(),
        };
        let wall = |t: i64| match self.zone {
            Some(tz) => crate::time::zone::to_wall_clock(t, tz).unwrap_or(t),
            None => t,
        };
        Ok(TraceLine::new(event, operator)
            .key(&columns, self.types, 0)?
            .window(wall(start), wall(end)))
    }
}

/// An instant as the trace and the run summary show it (UTC).
pub fn instant(ms: i64) -> String {
    match ms {
        i64::MIN => "-inf".into(),
        i64::MAX => "+inf".into(),
        ms => chrono::DateTime::from_timestamp_millis(ms)
            .map(|d| d.naive_utc().format("%Y-%m-%d %H:%M:%S%.3f").to_string())
            .unwrap_or_else(|| format!("{ms} ms")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::StringArray;
    use std::sync::Arc;

    #[test]
    fn a_line_names_event_operator_key_window_rows_and_watermark() -> Result<()> {
        let keys: Vec<ArrayRef> = vec![Arc::new(StringArray::from(vec!["a", "b"]))];
        let item = TraceLine::new(TraceEvent::Refire, "WindowAggregate")
            .key(&keys, &[SqlType::String], 1)?
            .window(0, 5_000)
            .field("rows", 5)
            .watermark(6_000);
        let SideItem::Trace(line) = item else {
            panic!("a trace line");
        };
        assert_eq!(
            line,
            "REFIRE  WindowAggregate key=(b) window=[1970-01-01 00:00:00.000, 1970-01-01 00:00:05.000) rows=5 watermark=1970-01-01 00:00:06.000"
        );
        assert_eq!(instant(i64::MIN), "-inf");
        Ok(())
    }
}
