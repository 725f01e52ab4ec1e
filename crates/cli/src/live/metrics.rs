//! `GET /metrics`: a running query's figures in Prometheus's text format,
//! encoded by the `prometheus` crate from the run summary so far.
//!
//! Where Flink has a metric for the figure, its name is Flink's, after a
//! scope, as Flink's own Prometheus reporter writes them (camelCase, and
//! gauges, since Flink's counters are exported as gauges):
//! `tidemark_split_numRecordsIn`, `tidemark_source_currentOutputWatermark`,
//! `tidemark_source_watermarkLag`, `tidemark_operator_numLateRecordsDropped`,
//! `tidemark_job_currentInputWatermark`… tidemark's own figures follow
//! Prometheus's conventions instead: snake_case, counters ending in
//! `_total`. Watermarks are milliseconds since the epoch; "no watermark
//! yet" is the lowest 64-bit value, as Flink reports it.

use crate::report::QueryReport;
use prometheus::{IntCounterVec, IntGaugeVec, Opts, Registry};
use tidemark_common::time::NO_WATERMARK;

/// One metric family, created for a scrape and filled from a snapshot.
enum Family {
    Gauge(IntGaugeVec),
    Counter(IntCounterVec),
}

struct Families {
    registry: Registry,
    made: Vec<(&'static str, Family)>,
}

impl Families {
    /// The family `name`, made and registered at its first use. Names and
    /// labels are ours: were one invalid (a bug), its figures are left
    /// out rather than the scrape failed.
    fn family(
        &mut self,
        name: &'static str,
        help: &str,
        labels: &[&str],
        counter: bool,
    ) -> Option<&Family> {
        if let Some(i) = self.made.iter().position(|(n, _)| *n == name) {
            return Some(&self.made[i].1);
        }
        let opts = Opts::new(name, help);
        let (family, collector): (Family, Box<dyn prometheus::core::Collector>) = if counter {
            let c = IntCounterVec::new(opts, labels).ok()?;
            (Family::Counter(c.clone()), Box::new(c))
        } else {
            let g = IntGaugeVec::new(opts, labels).ok()?;
            (Family::Gauge(g.clone()), Box::new(g))
        };
        self.registry.register(collector).ok()?;
        self.made.push((name, family));
        self.made.last().map(|(_, f)| f)
    }

    fn gauge(&mut self, name: &'static str, help: &str, labels: &[(&str, &str)], value: i64) {
        let (keys, values): (Vec<&str>, Vec<&str>) = labels.iter().copied().unzip();
        if let Some(Family::Gauge(g)) = self.family(name, help, &keys, false) {
            if let Ok(m) = g.get_metric_with_label_values(&values) {
                m.set(value);
            }
        }
    }

    fn counter(&mut self, name: &'static str, help: &str, labels: &[(&str, &str)], value: u64) {
        let (keys, values): (Vec<&str>, Vec<&str>) = labels.iter().copied().unzip();
        if let Some(Family::Counter(c)) = self.family(name, help, &keys, true) {
            if let Ok(m) = c.get_metric_with_label_values(&values) {
                // A fresh counter per scrape: it counts from zero.
                m.inc_by(value);
            }
        }
    }
}

/// The metrics of query number `n` (1-based), from its records so far.
pub fn encode(n: usize, q: &QueryReport) -> String {
    let s = &q.summary;
    let query = n.to_string();
    let now = chrono::Utc::now().timestamp_millis();
    let mut f = Families {
        registry: Registry::new(),
        made: Vec::new(),
    };
    for src in &s.sources {
        let table = src.table.as_str();
        let labels = [("query", query.as_str()), ("table", table)];
        f.gauge(
            "tidemark_source_numRecordsOut",
            "Rows the table has passed on (read, and placed in time).",
            &labels,
            src.rows_read as i64,
        );
        f.gauge(
            "tidemark_source_currentOutputWatermark",
            "The table's watermark (ms since the epoch): the lowest of its splits that are not idle.",
            &labels,
            src.watermark,
        );
        if src.watermark != NO_WATERMARK {
            f.gauge(
                "tidemark_source_watermarkLag",
                "How far the table's watermark is behind the wall clock, in ms.",
                &labels,
                now.saturating_sub(src.watermark),
            );
        }
        f.gauge(
            "tidemark_source_idle_splits",
            "Splits of the table idle now: left out of its watermark.",
            &labels,
            src.splits.iter().filter(|sp| sp.idle).count() as i64,
        );
        for split in &src.splits {
            let labels = [
                ("query", query.as_str()),
                ("table", table),
                ("split", split.name.as_str()),
            ];
            f.gauge(
                "tidemark_split_numRecordsIn",
                "Rows read from the split.",
                &labels,
                split.rows_read as i64,
            );
            f.gauge(
                "tidemark_split_currentOutputWatermark",
                "The split's own watermark (ms since the epoch).",
                &labels,
                split.watermark,
            );
            if split.watermark != NO_WATERMARK {
                f.gauge(
                    "tidemark_split_watermarkLag",
                    "How far the split's watermark is behind the wall clock, in ms.",
                    &labels,
                    now.saturating_sub(split.watermark),
                );
            }
            f.gauge(
                "tidemark_split_idle",
                "1 while the split is idle (left out of its table's watermark), else 0.",
                &labels,
                i64::from(split.idle),
            );
        }
    }
    for (i, (name, m)) in s.operators.iter().enumerate() {
        let index = i.to_string();
        let labels = [
            ("query", query.as_str()),
            ("operator", name.as_str()),
            ("operator_index", index.as_str()),
        ];
        f.gauge(
            "tidemark_operator_numRecordsIn",
            "Rows into the operator.",
            &labels,
            m.rows_in as i64,
        );
        f.gauge(
            "tidemark_operator_numRecordsOut",
            "Rows out of the operator.",
            &labels,
            m.rows_out as i64,
        );
        f.gauge(
            "tidemark_operator_numLateRecordsDropped",
            "Rows the operator left out of every result as late (routed to a late-records sink or not).",
            &labels,
            m.late_rows as i64,
        );
        f.counter(
            "tidemark_operator_late_rows_accepted_total",
            "Late rows added within the allowed lateness (their windows fired again).",
            &labels,
            m.late_rows_accepted,
        );
        f.counter(
            "tidemark_operator_windows_fired_total",
            "Windows the operator fired.",
            &labels,
            m.windows_fired,
        );
        let state = s.state_now.get(i).copied().unwrap_or_default();
        f.gauge(
            "tidemark_operator_state_bytes",
            "The state the operator holds, estimated, at the last measure.",
            &labels,
            state.bytes as i64,
        );
        f.gauge(
            "tidemark_operator_windows_open",
            "Windows (or sessions) holding state: not fired yet, or kept for late rows.",
            &labels,
            state.windows as i64,
        );
        for (op, sink, n) in s.late_routed.iter().filter(|(op, ..)| op == name) {
            let labels = [
                ("query", query.as_str()),
                ("operator", op.as_str()),
                ("sink", sink.as_str()),
            ];
            f.counter(
                "tidemark_operator_late_rows_routed_total",
                "Late rows written to a late-records sink table.",
                &labels,
                *n,
            );
        }
    }
    let labels = [("query", query.as_str())];
    f.gauge(
        "tidemark_job_currentInputWatermark",
        "The query's input watermark: its table's, or a union's over its inputs that are not idle (ms since the epoch).",
        &labels,
        s.input_watermark,
    );
    f.gauge(
        "tidemark_job_currentOutputWatermark",
        "The watermark the query has passed to its sink (ms since the epoch).",
        &labels,
        s.final_watermark,
    );
    f.gauge(
        "tidemark_job_numRecordsOut",
        "Rows the query has emitted (its changelog).",
        &labels,
        s.rows_emitted as i64,
    );
    prometheus::TextEncoder::new()
        .encode_to_string(&f.registry.gather())
        .unwrap_or_default()
}
