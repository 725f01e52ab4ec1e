//! The run summary: what was read, emitted, late and skipped — so that no
//! row is ever lost without a trace.

use tidemark_engine::RunSummary;

fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// An instant as the summary shows it.
pub fn show_instant(ms: i64) -> String {
    match ms {
        i64::MIN => "none".into(),
        i64::MAX => "+inf (end of input)".into(),
        ms => chrono::DateTime::from_timestamp_millis(ms)
            .map(|d| d.naive_utc().format("%Y-%m-%d %H:%M:%S%.3f").to_string())
            .unwrap_or_else(|| format!("{ms} ms")),
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
        if !notes.is_empty() {
            out.push_str(&format!(" ({})", notes.join(", ")));
        }
        out.push('\n');
    }
    for (name, m) in &s.operators {
        if m.late_rows > 0 || m.windows_fired > 0 || m.partially_late_rows > 0 {
            out.push_str(&format!(
                "operator {name}: {}, {} dropped",
                count(m.windows_fired, "window fired", "windows fired"),
                count(m.late_rows, "late row", "late rows")
            ));
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
            out.push('\n');
        }
    }
    out.push_str(&format!("rows emitted: {}\n", s.rows_emitted));
    out.push_str(&format!(
        "final watermark: {}\n",
        show_instant(s.final_watermark)
    ));
    if timing {
        out.push_str(&format!("elapsed: {:.3} s\n", s.elapsed.as_secs_f64()));
    }
    out
}
