//! The run summary: what was read, emitted, late and skipped — so that no
//! row is ever lost without a trace. A block after each query of a script,
//! one line in the interactive client.

use tidemark_common::show_bytes;
use tidemark_common::window::ms;
use tidemark_engine::RunSummary;

/// A duration on the clock in seconds, to a tenth: `7.0 s`.
fn seconds(ms: i64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// An instant as the summary shows it.
pub fn show_instant(ms: i64) -> String {
    match ms {
        i64::MIN => "none".into(),
        i64::MAX => "+inf (end of input)".into(),
        ms => tidemark_engine::instant(ms),
    }
}

/// The summary block; with `timing` it ends with the elapsed time, which
/// golden files leave out because it is not deterministic.
pub fn render_summary(s: &RunSummary, timing: bool) -> String {
    let mut out = String::from("-- summary\n");
    for src in &s.sources {
        out.push_str(&format!(
            "source {}: {} read",
            src.table,
            count(src.rows_read, "row", "rows")
        ));
        let mut notes = Vec::new();
        if src.rows_without_rowtime > 0 {
            notes.push(format!(
                "{} skipped without rowtime",
                count(src.rows_without_rowtime, "row", "rows")
            ));
        }
        if src.csv.fields_nulled > 0 {
            notes.push(format!(
                "{} set to NULL",
                count(
                    src.csv.fields_nulled,
                    "unparsable field",
                    "unparsable fields"
                )
            ));
        }
        if src.csv.rows_padded > 0 {
            notes.push(format!(
                "{} padded with NULL",
                count(src.csv.rows_padded, "short row", "short rows")
            ));
        }
        if src.csv.rows_skipped > 0 {
            notes.push(format!(
                "{} skipped",
                count(src.csv.rows_skipped, "malformed row", "malformed rows")
            ));
        }
        if src.went_idle > 0 {
            notes.push(format!(
                "a split went idle {}, active again {}",
                count(src.went_idle, "time", "times"),
                count(src.came_back, "time", "times")
            ));
        }
        if !notes.is_empty() {
            out.push_str(&format!(" ({})", notes.join(", ")));
        }
        out.push('\n');
        for split in &src.splits {
            out.push_str(&format!(
                "  split {}: {} read, watermark {}{}, {}\n",
                split.name,
                count(split.rows_read, "row", "rows"),
                show_instant(split.watermark),
                if split.idle { " (idle)" } else { "" },
                split.report
            ));
        }
    }
    for (name, m) in &s.operators {
        if m.late_rows > 0 || m.windows_fired > 0 || m.partially_late_rows > 0 || m.keys_expired > 0
        {
            out.push_str(&format!("operator {name}: "));
            if m.windows_fired > 0 {
                out.push_str(&count(m.windows_fired, "window fired, ", "windows fired, "));
            }
            out.push_str(&count(m.late_rows, "late row", "late rows"));
            out.push_str(&late_destination(name, m.late_rows, &s.late_routed));
            if let Some(max) = m.lateness.max() {
                out.push_str(&format!(" (up to {} behind the watermark)", ms(max)));
            }
            if m.late_rows_accepted > 0 {
                out.push_str(&format!(
                    ", {} within the allowed lateness",
                    count(m.late_rows_accepted, "late row added", "late rows added")
                ));
            }
            if m.partially_late_rows > 0 {
                out.push_str(&format!(
                    ", {}",
                    count(
                        m.partially_late_rows,
                        "row partially late",
                        "rows partially late"
                    )
                ));
            }
            if m.late_rows_expired > 0 {
                out.push_str(&format!(
                    ", {} of them because its key's state had expired",
                    m.late_rows_expired
                ));
            }
            if m.keys_expired > 0 {
                out.push_str(&format!(
                    ", {} (tidemark.state.ttl)",
                    count(m.keys_expired, "key's state expired", "keys' state expired")
                ));
            }
            out.push('\n');
        }
    }
    if s.drained {
        out.push_str("stopped before the end of input: open windows fired with the final watermark (drain)\n");
    } else if s.cancelled {
        out.push_str("cancelled before the end of input: windows still open were not fired\n");
    }
    out.push_str(&format!("rows emitted: {}\n", s.rows_emitted));
    out.push_str(&format!(
        "final watermark: {}\n",
        show_instant(s.final_watermark)
    ));
    for note in diagnostics(s) {
        out.push_str(&format!("note: {note}\n"));
    }
    if timing {
        // Sampled while running, so not in golden files either.
        let held: Vec<String> = s
            .operators
            .iter()
            .zip(&s.peak_state)
            .filter(|(_, state)| state.bytes > 0)
            .map(|((name, _), state)| {
                format!(
                    "{name} up to {} ({})",
                    show_bytes(state.bytes),
                    count(state.entries, "entry", "entries")
                )
            })
            .collect();
        if !held.is_empty() {
            out.push_str(&format!("state: {}\n", held.join(", ")));
        }
        out.push_str(&format!("elapsed: {:.3} s\n", s.elapsed.as_secs_f64()));
    }
    out
}

/// Where an operator's `late` rows went: ` dropped`, or the sink tables
/// that received them and how many were dropped besides.
///
/// Rows are routed by the name of the operator that dropped them, so two
/// operators of one name (a window over a window) share the count; no line
/// claims more than its own late rows.
fn late_destination(operator: &str, late: u64, routed: &[(String, String, u64)]) -> String {
    let to: Vec<(&str, u64)> = routed
        .iter()
        .filter(|(op, ..)| op == operator)
        .map(|(_, table, n)| (table.as_str(), (*n).min(late)))
        .collect();
    if late == 0 || to.is_empty() {
        return " dropped".into();
    }
    let written: u64 = to.iter().map(|(_, n)| n).sum::<u64>().min(late);
    let mut parts: Vec<String> = to
        .iter()
        .map(|(table, n)| {
            if *n == late {
                format!("routed to table {table}")
            } else {
                format!("{n} routed to table {table}")
            }
        })
        .collect();
    if written < late {
        parts.push(format!("{} dropped", late - written));
    }
    format!(" {}", parts.join(", "))
}

/// What `EXPLAIN ANALYZE` shows after the plan: each source's rows, each
/// operator's rows in and out, windows fired and late rows, in the order
/// rows flow; with `timing`, the state each held and the time taken.
pub fn render_analysis(s: &RunSummary, timing: bool) -> String {
    let mut out = String::from("-- analyzed\n");
    for src in &s.sources {
        out.push_str(&format!(
            "Scan {}: {} read\n",
            src.table,
            count(src.rows_read, "row", "rows")
        ));
    }
    for (i, (name, m)) in s.operators.iter().enumerate() {
        let mut parts = vec![format!("{} in, {} out", m.rows_in, m.rows_out)];
        if m.windows_fired > 0 {
            parts.push(count(m.windows_fired, "window fired", "windows fired"));
        }
        if m.late_rows > 0 {
            parts.push(count(m.late_rows, "late row dropped", "late rows dropped"));
        }
        if m.partially_late_rows > 0 {
            parts.push(count(
                m.partially_late_rows,
                "row partially late",
                "rows partially late",
            ));
        }
        if timing {
            if let Some(state) = s.peak_state.get(i).filter(|st| st.bytes > 0) {
                parts.push(format!(
                    "state up to {} ({})",
                    show_bytes(state.bytes),
                    count(state.entries, "entry", "entries")
                ));
            }
        }
        out.push_str(&format!("{name}: {}\n", parts.join(", ")));
    }
    out.push_str(&format!("rows emitted: {}\n", s.rows_emitted));
    if timing {
        out.push_str(&format!("elapsed: {:.3} s\n", s.elapsed.as_secs_f64()));
    }
    out
}

/// The summary in one line, for the interactive client: rows, late rows
/// and (with `timing`) the elapsed time; notes follow on lines of their
/// own, since they explain results that look wrong.
pub fn render_summary_line(s: &RunSummary, timing: bool) -> String {
    let late: u64 = s.operators.iter().map(|(_, m)| m.late_rows).sum();
    let mut parts = Vec::new();
    if s.drained {
        parts.push(format!(
            "stopped, open windows fired: {}",
            count(s.rows_emitted, "row", "rows")
        ));
    } else if s.cancelled {
        parts.push(format!(
            "cancelled: {} so far",
            count(s.rows_emitted, "row", "rows")
        ));
    } else {
        parts.push(count(s.rows_emitted, "row", "rows"));
    }
    parts.push(count(late, "late row", "late rows"));
    if timing {
        parts.push(format!("{:.3} s", s.elapsed.as_secs_f64()));
    }
    let mut out = parts.join(", ");
    out.push('\n');
    for note in diagnostics(s) {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

/// The watermark delay the lateness advice starts from: the first
/// source's, when its watermark is `rowtime - d`.
pub fn watermark_delay(s: &RunSummary) -> Option<i64> {
    s.sources.iter().find_map(|src| src.watermark_delay)
}

/// The watermark delay that would have kept `permille` ‰ of an
/// operator's late rows, as the summary and the report say it: `a
/// watermark delay of 5 s instead of 2 s would have kept 99% of them`, or
/// (the table's watermark is not `rowtime - d`) `a watermark 3 s later
/// would...`.
pub fn keeping_delay(
    m: &tidemark_engine::OperatorMetrics,
    delay: Option<i64>,
    permille: u64,
) -> String {
    let behind = m.lateness.permille(permille).unwrap_or(0);
    // A row `behind` the watermark is on time with a delay `behind + 1 ms`
    // larger; suggested in whole seconds from 1 s on.
    let suggest = |extra: i64| {
        let extra = extra.saturating_add(1);
        if extra >= 1_000 {
            (extra.saturating_add(999) / 1_000).saturating_mul(1_000)
        } else {
            extra
        }
    };
    let share = if permille.is_multiple_of(10) {
        format!("{}%", permille / 10)
    } else {
        format!("{}.{}%", permille / 10, permille % 10)
    };
    match delay {
        Some(d) => format!(
            "a watermark delay of {} instead of {} would have kept {share} of them",
            ms(suggest(d.saturating_add(behind))),
            ms(d)
        ),
        None => format!(
            "a watermark {} later would have kept {share} of them",
            ms(suggest(behind))
        ),
    }
}

/// Epoch seconds read as milliseconds land between these instants (about
/// 1970-01-12 and 1970-04-26) when the seconds are 2001 to 2286.
const SECONDS_AS_MILLIS: std::ops::Range<i64> = 1_000_000_000..10_000_000_000;
/// Micro- or nanoseconds read as milliseconds land after this (year 5138).
const FAR_FUTURE: i64 = 100_000_000_000_000;

/// What looks wrong with a run's time, in words: the answers to "why is
/// my window empty / late / never firing?" that the numbers imply.
fn diagnostics(s: &RunSummary) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(held) = &s.held {
        let advice = if held.idle_timeout_ms > 0 {
            format!(
                "its idle timeout is {}; a shorter one lets the others' windows fire sooner",
                ms(held.idle_timeout_ms)
            )
        } else {
            "an input that goes quiet stalls every window behind it: set 'table.exec.source.idle-timeout'".into()
        };
        notes.push(format!(
            "{} held the watermark at {} for {} on the clock while {} was at {}; {advice}",
            held.holder,
            tidemark_engine::instant(held.watermark),
            seconds(held.lasted_ms),
            held.ahead,
            tidemark_engine::instant(held.ahead_watermark),
        ));
    }
    let delay = watermark_delay(s);
    for src in &s.sources {
        let Some((lo, hi)) = src.rowtimes else {
            continue;
        };
        if SECONDS_AS_MILLIS.contains(&lo) && SECONDS_AS_MILLIS.contains(&hi) {
            notes.push(format!(
                "source {}: every rowtime falls between 1970-01-12 and 1970-04-26, as epoch seconds read as milliseconds do; for seconds use TO_TIMESTAMP_LTZ(x, 0)",
                src.table
            ));
        } else if hi >= FAR_FUTURE {
            notes.push(format!(
                "source {}: rowtimes reach {}, as micro- or nanoseconds read as milliseconds do",
                src.table,
                show_instant(hi)
            ));
        }
    }
    for (name, m) in &s.operators {
        if m.windows_fired > 0 && m.windows_fired_before_end == 0 {
            let span = s
                .sources
                .iter()
                .find_map(|src| src.rowtimes)
                .map(|(lo, hi)| format!(" (the rowtimes span {})", ms(hi.saturating_sub(lo))))
                .unwrap_or_default();
            notes.push(format!(
                "{name}: no window fired before the end of input, which fired them all: the watermark never reached a window's end{span}. On an unbounded source they would not have fired yet; check the watermark delay and the window size"
            ));
        }
        if m.late_rows > 0 && m.late_rows * 100 > m.rows_in {
            let rank = |p: u64| m.lateness.percentile(p).unwrap_or(0);
            let (p50, max) = (rank(50), rank(100));
            let p99 = rank(99);
            let about = if m.lateness.is_exact() { "" } else { "about " };
            let advice = format!("; {}", keeping_delay(m, delay, 990));
            // Rows a split brings back from idleness are late by how far
            // the others went meanwhile: the idle timeout is the cause.
            let came_back: Vec<String> = s
                .sources
                .iter()
                .filter(|src| src.came_back > 0)
                .map(|src| format!("{} ({})", src.table, count(src.came_back, "time", "times")))
                .collect();
            let advice = if came_back.is_empty() {
                advice
            } else {
                format!(
                    "; a split came back from idleness in source {}, and the rows a split brings back are behind by as far as the others went on without it: a longer 'table.exec.source.idle-timeout' waits longer for a quiet split{}",
                    came_back.join(", "),
                    advice.replacen("; a", ", and a", 1)
                )
            };
            notes.push(format!(
                "{name}: {:.1}% of its rows were late, behind the watermark by {about}{} (p50), {about}{} (p99), {} (max){advice}",
                m.late_rows as f64 * 100.0 / m.rows_in.max(1) as f64,
                ms(p50),
                ms(p99),
                ms(max)
            ));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::late_destination;

    #[test]
    fn late_rows_are_said_routed_dropped_or_both_and_never_more_than_late() {
        let routed = vec![("WindowAggregate".to_string(), "late_t".to_string(), 3)];
        assert_eq!(late_destination("OverAggregate", 2, &routed), " dropped");
        assert_eq!(
            late_destination("WindowAggregate", 3, &routed),
            " routed to table late_t"
        );
        assert_eq!(
            late_destination("WindowAggregate", 5, &routed),
            " 3 routed to table late_t, 2 dropped"
        );
        // A second operator of the same name with fewer late rows (a window
        // over a window) claims no more than its own.
        assert_eq!(late_destination("WindowAggregate", 0, &routed), " dropped");
        assert_eq!(
            late_destination("WindowAggregate", 2, &routed),
            " routed to table late_t"
        );
    }
}
