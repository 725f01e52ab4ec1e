//! What each session option becomes in an exported job: kept (Flink's
//! key, with Flink's meaning), dropped (tidemark's own, and it changes no
//! result), or refused (tidemark's own, and Flink has nothing that gives
//! the same rows).

use tidemark_common::{CHECKPOINT_INTERVAL, STATE_TTL};

/// What an option becomes.
#[derive(Debug, PartialEq, Eq)]
pub enum Fate {
    Keep,
    /// Left out; the text says why that changes no result.
    Drop(&'static str),
    /// Flink cannot do it: the message, and what the user can do.
    Refuse(&'static str, &'static str),
}

/// The fate of `SET 'key' = 'value'`.
pub fn fate(key: &str, value: &str) -> Fate {
    match key {
        k if k == "table.exec.late-records.sink"
            || k.starts_with("table.exec.late-records.sink.") =>
        {
            Fate::Refuse(
            "Flink SQL has no late-row sink: it drops late rows, counting them only in the numLateRecordsDropped metric",
            "export with --allow-differences to leave the sink out, and widen the watermark delay if the rows matter",
            )
        }
        "table.exec.bad-records.sink" => Fate::Refuse(
            "Flink SQL has no bad-record sink: a row without a rowtime fails the job there",
            "export with --allow-differences to leave the sink out; 'csv.ignore-parse-errors' or 'json.ignore-parse-errors' skip unparsable rows in Flink too",
        ),
        "tidemark.emit.early-fire" => Fate::Refuse(
            "Flink has no early firing on event time: its table.exec.emit.early-fire keys count processing time and are refused on window TVFs",
            "export with --allow-differences to leave early results out: each window then fires once, when it ends",
        ),
        STATE_TTL => Fate::Refuse(
            "Flink has no state time-to-live on event time: its table.exec.state.ttl counts processing time, so what it expires depends on the machine's speed",
            "export with --allow-differences to leave it out (state is then kept forever), or set table.exec.state.ttl in the Flink job knowing it differs",
        ),
        CHECKPOINT_INTERVAL if !is_clock_duration(value) => Fate::Drop(
            "Flink checkpoints on the clock, not at rows or event time; checkpoints change no result: set an interval such as '1 min' for the cluster",
        ),
        "tidemark.batch-size"
        | "tidemark.parallel.piece-bytes"
        | "tidemark.parallel.split-by-key"
        | "tidemark.trace"
        | "tidemark.report"
        | "tidemark.display.late-records"
        | "tidemark.state.max-memory"
        | "tidemark.stop.drain"
        | "tidemark.clock"
        | "tidemark.clock.start"
        | "tidemark.clock.step" => {
            Fate::Drop("only tidemark reads it, and it changes no result")
        }
        _ => Fate::Keep,
    }
}

/// Whether a checkpoint interval is a plain duration, as Flink reads it.
fn is_clock_duration(value: &str) -> bool {
    tidemark_common::time::parse_duration_ms(value).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_keep_drop_or_refuse() {
        assert_eq!(fate("table.local-time-zone", "UTC"), Fate::Keep);
        assert_eq!(fate("table.exec.emit.allow-lateness", "3 s"), Fate::Keep);
        assert!(matches!(fate("tidemark.trace", "true"), Fate::Drop(_)));
        assert!(matches!(fate("tidemark.report", "run.html"), Fate::Drop(_)));
        assert!(matches!(
            fate(CHECKPOINT_INTERVAL, "1000 rows"),
            Fate::Drop(_)
        ));
        assert_eq!(fate(CHECKPOINT_INTERVAL, "1 min"), Fate::Keep);
        assert!(matches!(
            fate("table.exec.late-records.sink.bids", "late"),
            Fate::Refuse(..)
        ));
        assert!(matches!(fate(STATE_TTL, "1 h"), Fate::Refuse(..)));
    }
}
