//! The progress line of `tidemark run` on a terminal: rows read and how
//! fast, the watermark as a time, late rows, rows out. It appears only
//! once a run has taken a second, only when stderr is a terminal and
//! the rows go elsewhere (so it never mixes with output or logs), and it
//! is cleared before the run summary.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;
use tidemark_engine::Progress;

/// A run shorter than this shows no progress at all.
const SHOW_AFTER: Duration = Duration::from_secs(1);

#[derive(Default)]
pub struct ProgressLine {
    bar: Option<ProgressBar>,
}

impl ProgressLine {
    pub fn update(&mut self, p: &Progress) {
        if self.bar.is_none() && p.elapsed < SHOW_AFTER {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        });
        bar.set_message(describe(p));
        bar.tick();
    }

    /// Removes the line, before the summary is written.
    pub fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.clear();
    }
}

/// `read 1,234,567 rows (2.1 M rows/s), watermark 2024-01-01 00:01:40.000, 12 late, 3,456 out`.
fn describe(p: &Progress) -> String {
    let secs = p.elapsed.as_secs_f64().max(1e-9);
    let rate = p.rows_read as f64 / secs;
    let rate = if rate >= 1e6 {
        format!("{:.1} M rows/s", rate / 1e6)
    } else {
        format!("{:.0} k rows/s", rate / 1e3)
    };
    let mut line = format!(
        "read {} rows ({rate}), watermark {}, {} late, {} out",
        grouped(p.rows_read),
        tidemark_engine::instant(p.watermark),
        grouped(p.late_rows),
        grouped(p.rows_emitted)
    );
    if let Some(lag) = p.lag {
        line.push_str(&format!(", lag {} records", grouped(lag)));
    }
    // The input the watermark waits for, once it has for a second.
    if let Some(held) = p.held.as_ref().filter(|h| h.lasted_ms >= 1_000) {
        line.push_str(&format!(
            "; waiting for {} for {} ({} ahead)",
            held.holder,
            tidemark_common::window::ms(held.lasted_ms / 1_000 * 1_000),
            tidemark_common::window::ms(held.ahead_watermark.saturating_sub(held.watermark))
        ));
    }
    line
}

fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_rows_rate_watermark_and_late_rows() {
        let p = Progress {
            rows_read: 2_500_000,
            rows_emitted: 3_456,
            late_rows: 12,
            watermark: 1_704_067_300_000,
            elapsed: Duration::from_secs(2),
            held: None,
            lag: None,
            so_far: None,
        };
        assert_eq!(
            describe(&p),
            "read 2,500,000 rows (1.2 M rows/s), watermark 2024-01-01 00:01:40.000, 12 late, 3,456 out"
        );
        let behind = Progress {
            lag: Some(12_345),
            ..p.clone()
        };
        assert!(describe(&behind).ends_with("3,456 out, lag 12,345 records"));
        let held = Progress {
            held: Some(tidemark_engine::HeldWatermark {
                holder: "input b (split b.csv)".into(),
                watermark: 1_704_067_200_000,
                lasted_ms: 7_400,
                ahead: "input a".into(),
                ahead_watermark: 1_704_067_217_000,
                idle_timeout_ms: 0,
            }),
            ..p
        };
        assert!(describe(&held)
            .ends_with("3,456 out; waiting for input b (split b.csv) for 7 s (17 s ahead)"));
    }

    #[test]
    fn short_runs_show_nothing() {
        let mut line = ProgressLine::default();
        line.update(&Progress {
            elapsed: Duration::from_millis(300),
            ..Progress::default()
        });
        assert!(line.bar.is_none());
    }
}
