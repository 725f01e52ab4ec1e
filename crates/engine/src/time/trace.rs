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
use tidemark_common::time::NO_WATERMARK;
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

/// One event of the trace: the line printed for it and, for the run
/// report, what it says in numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    pub line: String,
    /// None for a line kept in a checkpoint and read back: only its text
    /// was kept.
    pub facts: Option<TraceFacts>,
}

impl TraceRecord {
    /// A line read back from a checkpoint.
    pub fn plain(line: String) -> Self {
        TraceRecord { line, facts: None }
    }
}

impl std::fmt::Display for TraceRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line)
    }
}

/// What a trace line says, in numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceFacts {
    pub event: TraceEvent,
    pub operator: std::borrow::Cow<'static, str>,
    /// The window's start (when the line knows it) and end, as shown.
    pub window: Option<(Option<i64>, i64)>,
    /// The keys a whole-window line covers, and the rows in the window
    /// (or, for an OVER emission, the rows emitted).
    pub keys: Option<u64>,
    pub rows: Option<u64>,
    /// The row's time, for a line about one row.
    pub rowtime: Option<i64>,
    pub watermark: i64,
}

impl TraceFacts {
    fn new(event: TraceEvent, operator: std::borrow::Cow<'static, str>) -> Self {
        TraceFacts {
            event,
            operator,
            window: None,
            keys: None,
            rows: None,
            rowtime: None,
            watermark: NO_WATERMARK,
        }
    }
}

/// What an operator traces: nothing; its events in numbers only, for a
/// run report (no line is written, which keeps a per-key event cheap); or
/// its events with their lines, to print.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tracing {
    #[default]
    Off,
    Facts,
    Lines,
}

impl Tracing {
    pub fn is_on(self) -> bool {
        self != Tracing::Off
    }

    /// A trace event of `operator`, its line written only for
    /// [`Tracing::Lines`].
    pub fn line(self, event: TraceEvent, operator: &'static str) -> TraceLine {
        match self {
            Tracing::Lines => TraceLine::new(event, operator),
            // Numbers only: nothing is written or allocated for the line.
            _ => TraceLine {
                text: None,
                facts: TraceFacts::new(event, std::borrow::Cow::Borrowed(operator)),
            },
        }
    }
}

/// One trace line under construction:
/// `EVENT operator key=(..) window=[start, end) rows=n watermark=w`.
/// Without a text (see [`Tracing::Facts`]) only the numbers are kept.
pub struct TraceLine {
    text: Option<String>,
    facts: TraceFacts,
}

impl TraceLine {
    pub fn new(event: TraceEvent, operator: &str) -> Self {
        TraceLine {
            text: Some(format!("{:<7} {operator}", event.label())),
            facts: TraceFacts::new(event, std::borrow::Cow::Owned(operator.to_string())),
        }
    }

    /// The group key: row `row` of `columns`, of `types`.
    pub fn key(mut self, columns: &[ArrayRef], types: &[SqlType], row: usize) -> Result<Self> {
        let Some(text) = self.text.as_mut().filter(|_| !columns.is_empty()) else {
            return Ok(self);
        };
        text.push_str(" key=(");
        for (i, (column, ty)) in columns.iter().zip(types).enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            format_value(column.as_ref(), ty, row, chrono_tz::UTC, text)?;
        }
        text.push(')');
        Ok(self)
    }

    pub fn window(mut self, start: i64, end: i64) -> Self {
        self.facts.window = Some((Some(start), end));
        if let Some(text) = self.text.as_mut() {
            let _ = write!(text, " window=[{}, {})", instant(start), instant(end));
        }
        self
    }

    /// A window as `window`, or (start unknown) by its end alone.
    pub fn window_of(self, window: TracedWindow) -> Self {
        match window {
            TracedWindow::Bounds(start, end) => self.window(start, end),
            TracedWindow::Ending(end) => {
                let mut line = self.instant_field("window_end", end);
                line.facts.window = Some((None, end));
                line
            }
        }
    }

    /// The `keys=n` field: the keys of a whole window.
    pub fn keys(mut self, n: u64) -> Self {
        self.facts.keys = Some(n);
        self.field("keys", n)
    }

    /// The `rows=n` field.
    pub fn rows(mut self, n: u64) -> Self {
        self.facts.rows = Some(n);
        self.field("rows", n)
    }

    /// The `rowtime=t` field: the time of the row the line is about.
    pub fn rowtime(mut self, t: i64) -> Self {
        self.facts.rowtime = Some(t);
        self.instant_field("rowtime", t)
    }

    /// A field that is an instant, written only with the line (formatting
    /// an instant is most of an event's cost).
    fn instant_field(self, name: &str, t: i64) -> Self {
        if self.text.is_some() {
            self.field(name, instant(t))
        } else {
            self
        }
    }

    pub fn field(mut self, name: &str, value: impl std::fmt::Display) -> Self {
        if let Some(text) = self.text.as_mut() {
            let _ = write!(text, " {name}={value}");
        }
        self
    }

    pub fn watermark(self, watermark: i64) -> SideItem {
        let mut line = self.instant_field("watermark", watermark);
        line.facts.watermark = watermark;
        SideItem::Trace(TraceRecord {
            line: line.text.unwrap_or_default(),
            facts: Some(line.facts),
        })
    }
}

/// The keys of a keyed operator, for its trace lines.
pub struct KeyShape<'a> {
    pub converter: Option<&'a arrow::row::RowConverter>,
    pub types: &'a [SqlType],
    /// Windows are shown on this zone's wall clock (TIMESTAMP_LTZ rowtimes).
    pub zone: Option<chrono_tz::Tz>,
    pub tracing: Tracing,
}

impl KeyShape<'_> {
    /// A line about the session `[start, end)` of `key` (in arrow's row
    /// format).
    pub fn line(
        &self,
        event: TraceEvent,
        operator: &'static str,
        key: &[u8],
        start: i64,
        end: i64,
    ) -> Result<TraceLine> {
        // The key is read back from its row form only for a line written.
        let columns = match self.converter.filter(|_| self.tracing == Tracing::Lines) {
            Some(conv) => conv.convert_rows(std::iter::once(conv.parser().parse(key)))?,
            None => Vec::new(),
        };
        let wall = |t: i64| match self.zone {
            Some(tz) => crate::time::zone::to_wall_clock(t, tz).unwrap_or(t),
            None => t,
        };
        Ok(self
            .tracing
            .line(event, operator)
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
            .rows(5)
            .watermark(6_000);
        let SideItem::Trace(record) = item else {
            panic!("a trace line");
        };
        let facts = record.facts.as_ref().expect("facts");
        assert_eq!(facts.event, TraceEvent::Refire);
        assert_eq!(facts.window, Some((Some(0), 5_000)));
        assert_eq!((facts.rows, facts.watermark), (Some(5), 6_000));
        assert_eq!(
            record.line,
            "REFIRE  WindowAggregate key=(b) window=[1970-01-01 00:00:00.000, 1970-01-01 00:00:05.000) rows=5 watermark=1970-01-01 00:00:06.000"
        );
        assert_eq!(instant(i64::MIN), "-inf");
        Ok(())
    }
}
