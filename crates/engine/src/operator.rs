//! The operator interface: every stage of a pipeline takes stream items and
//! pushes the items it produces.

use crate::stream::StreamItem;
use tidemark_common::Result;

/// What an operator reports for the run summary.
#[derive(Clone, Debug, Default)]
pub struct OperatorMetrics {
    pub rows_in: u64,
    pub rows_out: u64,
    /// Rows added to no window because all their windows had been cleaned
    /// up already.
    pub late_rows: u64,
    /// Rows too late for some of their windows but added to others.
    pub partially_late_rows: u64,
    pub windows_fired: u64,
    /// Rows that arrived after their window fired, within the allowed
    /// lateness: added, and the window fired again for their key.
    pub late_rows_accepted: u64,
    /// How far behind the watermark each dropped row was (watermark minus
    /// rowtime, ms), for the summary's lateness figures.
    pub lateness: Vec<i64>,
    /// Windows fired before the end of input (the rest fired only because
    /// the input ended).
    pub windows_fired_before_end: u64,
}

pub trait Operator: Send {
    /// A short name for summaries and errors, e.g. `WindowAggregate`.
    fn name(&self) -> String;

    /// Consumes one item, appending what it produces to `out`. A `Chunk`
    /// pushed to `out` is never empty.
    fn process(&mut self, item: StreamItem, out: &mut Vec<StreamItem>) -> Result<()>;

    fn metrics(&self) -> OperatorMetrics {
        OperatorMetrics::default()
    }
}
