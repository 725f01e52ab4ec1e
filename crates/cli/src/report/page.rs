//! The report page: one section per query with its SQL, its figures (the
//! run summary's own counters), its pictures ([`super::charts`]) and its
//! summary as printed; styles inline, no script, nothing fetched.

use super::charts;
use super::svg::{count, escape};
use super::QueryReport;
use std::fmt::Write;

const STYLE: &str = r#"
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 24px auto; max-width: 960px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 36px 0 8px; border-top: 2px solid #ddd; padding-top: 16px; }
h4 { margin: 0 0 4px; font-size: 14px; }
pre { background: #f6f6f6; padding: 8px 10px; overflow-x: auto; font-size: 12.5px; white-space: pre-wrap; }
figure { margin: 18px 0; }
figcaption { font-size: 12.5px; color: #444; max-width: 920px; }
table.figures { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
table.figures td, table.figures th { border-bottom: 1px solid #e4e4e4; padding: 3px 10px 3px 0; text-align: left; }
table.figures td.n { text-align: right; font-variant-numeric: tabular-nums; }
.legend { margin: 4px 0; }
.legend span { margin-right: 14px; white-space: nowrap; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; border-radius: 2px; }
.plot-area { fill: #fcfcfc; stroke: #ccc; }
.grid { stroke: #eee; }
.tick { font-size: 10.5px; fill: #555; }
.axis-title { font-size: 11.5px; fill: #333; }
path.rows { stroke-width: 4.5; stroke-linecap: round; fill: none; opacity: .75; }
polyline.watermark { stroke-width: 1.6; }
polyline.lane-watermark { stroke-width: 1.8; }
polyline.combined-watermark { stroke-width: 1.2; }
polyline.state-line { stroke-width: 1.8; }
g.late.dropped path { stroke: #111; stroke-width: 1.8; fill: none; }
g.late.accepted path { fill: #e6550d; stroke: #fff; stroke-width: .6; }
g.late.routed path { fill: #7b4173; stroke: #fff; stroke-width: .6; }
g.window rect.span { fill: #9ecae1; stroke: #3182bd; stroke-width: .6; }
g.window line.wait { stroke: #9ecae1; stroke-width: 1; stroke-dasharray: 2 2; }
circle.fire { fill: #1f77b4; }
circle.early { fill: #fdae6b; stroke: #e6550d; stroke-width: .6; }
path.refire { fill: #e6550d; }
line.cleanup { stroke: #555; stroke-width: 1.6; }
path.late-mark { stroke: #111; stroke-width: 1.6; fill: none; }
line.stem { stroke: #1f77b4; stroke-width: 1; }
rect.idle { opacity: .13; }
rect.bar { fill: #d62728; opacity: .8; }
line.percentile { stroke: #222; stroke-dasharray: 4 3; }
.note { color: #8a4b00; }
"#;

/// What the file holds before the first query has finished: the report
/// is written whole after each query.
pub fn placeholder() -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>tidemark run report</title><style>{STYLE}</style></head><body><h1>tidemark run report</h1><p>The run has not finished a query yet.</p></body></html>\n"
    )
}

/// The whole page.
pub fn render(queries: &[&QueryReport]) -> String {
    render_page(queries, None)
}

/// The page as the live server shows it: the queries so far (the last
/// one perhaps still running), with `status` on top, asking for itself
/// again every `refresh` seconds.
pub fn render_live(queries: &[&QueryReport], status: &str, refresh: u32) -> String {
    render_page(queries, Some((status, refresh)))
}

fn render_page(queries: &[&QueryReport], live: Option<(&str, u32)>) -> String {
    let mut out = String::new();
    let refresh = live.map_or(String::new(), |(_, every)| {
        format!("<meta http-equiv=\"refresh\" content=\"{every}\">")
    });
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">{refresh}<meta name=\"generator\" content=\"tidemark {}\"><title>tidemark run report</title><style>{STYLE}</style></head><body><h1>tidemark run report</h1>",
        env!("CARGO_PKG_VERSION"),
    );
    if let Some((status, _)) = live {
        let _ = write!(
            out,
            r#"<p class="status" data-status="{0}">{0}</p>"#,
            escape(status)
        );
    }
    let _ = write!(
        out,
        "<p>{} {}. Event time is shown in UTC. Every picture is drawn from this run's own records; the figures are the run summary's counters.</p>",
        queries.len(),
        if queries.len() == 1 { "query" } else { "queries" }
    );
    for (i, q) in queries.iter().enumerate() {
        section(&mut out, i + 1, q);
    }
    out.push_str("</body></html>\n");
    out
}

fn section(out: &mut String, number: usize, q: &QueryReport) {
    let s = &q.summary;
    let _ = write!(
        out,
        r#"<section class="query" data-query="{number}"><h2>{number}. {}</h2><pre class="sql">{}</pre>"#,
        escape(&q.title),
        escape(&q.sql)
    );
    // The figures, from the summary's counters.
    out.push_str(r#"<table class="figures"><tr><th>figure</th><th>value</th></tr>"#);
    let row = |out: &mut String, what: &str, attrs: String, n: u64| {
        let _ = write!(
            out,
            r#"<tr><td>{}</td><td class="n" {attrs}>{}</td></tr>"#,
            escape(what),
            count(n as f64)
        );
    };
    for src in &s.sources {
        row(
            out,
            &format!("rows read from {}", src.table),
            format!(
                r#"data-figure="rows-read" data-table="{}""#,
                escape(&src.table)
            ),
            src.rows_read,
        );
    }
    for (name, m) in &s.operators {
        let attrs =
            |figure: &str| format!(r#"data-figure="{figure}" data-operator="{}""#, escape(name));
        if m.windows_fired > 0 {
            row(
                out,
                &format!("windows fired by {name}"),
                attrs("windows-fired"),
                m.windows_fired,
            );
        }
        if m.late_rows > 0 || m.windows_fired > 0 {
            row(
                out,
                &format!("late rows of {name}"),
                attrs("late-rows"),
                m.late_rows,
            );
        }
        if m.late_rows_accepted > 0 {
            row(
                out,
                &format!("late rows {name} added within the allowed lateness"),
                attrs("late-rows-accepted"),
                m.late_rows_accepted,
            );
        }
        let routed: u64 = s
            .late_routed
            .iter()
            .filter(|(op, ..)| op == name)
            .map(|(.., n)| *n)
            .sum();
        if routed > 0 {
            row(
                out,
                &format!("late rows of {name} routed to a sink"),
                attrs("late-rows-routed"),
                routed,
            );
        }
    }
    row(
        out,
        "rows emitted",
        r#"data-figure="rows-emitted""#.into(),
        s.rows_emitted,
    );
    out.push_str("</table>");

    let obs = &q.observations;
    // Each picture has an anchor, `#q1-arrivals-0`, to link to.
    let mut anchored = |kind: &str, i: usize, chart: String| {
        if !chart.is_empty() {
            let _ = write!(out, r#"<div id="q{number}-{kind}-{i}">{chart}</div>"#);
        }
    };
    // 1. Rows against the watermark, per table.
    for (i, stream) in obs
        .streams
        .iter()
        .filter(|st| st.table.is_some())
        .enumerate()
    {
        let fates = q
            .fates
            .iter()
            .find(|f| Some(&f.table) == stream.table.as_ref());
        anchored("arrivals", i, charts::arrivals(stream, fates));
    }
    // 2. Windows, per operator.
    for (i, op) in q.windows.iter().enumerate() {
        let fired = s
            .operators
            .iter()
            .filter(|(name, _)| *name == op.operator)
            .map(|(_, m)| m.windows_fired)
            .sum();
        anchored("windows", i, charts::windows(op, fired));
    }
    // 3. Watermarks per split (several) or per input of a union or join.
    for (i, stream) in obs
        .streams
        .iter()
        .filter(|st| st.table.is_none() || st.lanes.len() > 1)
        .enumerate()
    {
        anchored("watermarks", i, charts::watermarks(stream));
    }
    // 4. Lateness, per operator that dropped rows.
    let delay = crate::summary::watermark_delay(s);
    for (i, (name, m)) in s
        .operators
        .iter()
        .filter(|(_, m)| m.late_rows > 0)
        .enumerate()
    {
        anchored("lateness", i, charts::lateness(name, m, delay));
    }
    // 5. State over the run.
    let peaks: Vec<(String, u64)> = s
        .operators
        .iter()
        .zip(&s.peak_state)
        .map(|((name, _), p)| (name.clone(), p.bytes))
        .collect();
    anchored("state", 0, charts::state(obs, &peaks));
    let _ = write!(
        out,
        r#"<h4>Summary</h4><pre class="summary">{}</pre></section>"#,
        escape(&q.summary_text)
    );
}
