//! The report's pictures of one query, each a `<figure>` of plain SVG with
//! a caption that says what is drawn and how it was sampled:
//!
//! 1. [`arrivals`]: each table's rows, event time against arrival order,
//!    with the watermark they met and the late rows by what became of them;
//! 2. [`windows`]: each operator's windows on the event-time axis, with
//!    the watermark at which each fired, fired early, re-fired and was
//!    cleaned up (or, for OVER, the rows it made final);
//! 3. [`watermarks`]: each split's or input's own watermark, idle spells
//!    shaded, and which one held the combined watermark;
//! 4. [`lateness`]: how far behind the watermark the dropped rows were,
//!    and the watermark delay that would have kept 99 % and 99.9 %;
//! 5. [`state`]: the operators' state over the run.
//!
//! Elements carry `data-` attributes with their figures, so that a test
//! (or a user's script) can read the page as well as look at it.

use super::svg::{count, escape, label, lane_colour, Plot, Values};
use super::{Fate, OperatorWindows, TableFates};
use std::fmt::Write;
use tidemark_common::time::{FINAL_WATERMARK, NO_WATERMARK};
use tidemark_engine::observe::{LaneStatus, Observations, StreamRecord};
use tidemark_engine::{instant, OperatorMetrics};

/// Windows drawn per operator at most, chosen evenly among those kept.
const WINDOWS_DRAWN: usize = 300;

/// Rows of windows stacked at most (overlapping windows: HOP, sessions).
const WINDOW_LANES: usize = 16;

/// Bars of the lateness histogram.
const BARS: usize = 40;

/// An instant as the report writes it in words.
fn when(t: i64) -> String {
    match t {
        NO_WATERMARK => "none yet".into(),
        FINAL_WATERMARK => "+inf (end of input)".into(),
        t => instant(t),
    }
}

/// An instant in a `data-` attribute: epoch milliseconds, `end` for the
/// final watermark, empty when there is none.
fn data_instant(t: Option<i64>) -> String {
    match t {
        None => String::new(),
        Some(FINAL_WATERMARK) => "end".into(),
        Some(t) => t.to_string(),
    }
}

/// The lowest and highest of `values`, if any.
fn bounds(values: impl Iterator<Item = i64>) -> Option<(i64, i64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// A real watermark: neither "none yet" nor the final one.
fn is_instant(t: i64) -> bool {
    t != NO_WATERMARK && t != FINAL_WATERMARK
}

/// The watermark each sampled row met, by its arrival: the stream's
/// watermark over the run.
fn watermark_met(points: &[(u64, tidemark_engine::observe::RowPoint)]) -> Vec<(f64, f64)> {
    points
        .iter()
        .filter(|(_, p)| is_instant(p.watermark))
        .map(|(at, p)| (*at as f64, p.watermark as f64))
        .collect()
}

fn figure(class: &str, title: &str, svg: &str, caption: &str, attrs: &str) -> String {
    format!(
        r#"<figure class="{class}" {attrs}><h4>{}</h4>{svg}<figcaption>{caption}</figcaption></figure>"#,
        escape(title)
    )
}

fn legend(items: &[(&str, String)]) -> String {
    let mut out = String::from(r#"<div class="legend">"#);
    for (colour, text) in items {
        let _ = write!(
            out,
            r#"<span><i style="background:{colour}"></i>{}</span>"#,
            escape(text)
        );
    }
    out.push_str("</div>");
    out
}

/// How the rows of a stream were sampled, in words.
fn sampling(stride: u64, kept: usize, taken: u64) -> String {
    if stride <= 1 {
        format!("Every row drawn ({})", count(taken as f64))
    } else {
        format!(
            "Every {}th row drawn ({} of {} rows)",
            stride,
            count(kept as f64),
            count(taken as f64)
        )
    }
}

/// 1. A table's rows: event time against arrival, the watermark they met,
///    late rows by fate.
pub fn arrivals(stream: &StreamRecord, fates: Option<&TableFates>) -> String {
    let table = stream.table.as_deref().unwrap_or(&stream.name);
    let points = stream.rows.points();
    let late: &[(u64, super::LatePoint)] = fates.map_or(&[], |f| f.points.points());
    let times = points
        .iter()
        .filter_map(|(_, p)| p.rowtime)
        .chain(
            points
                .iter()
                .map(|(_, p)| p.watermark)
                .filter(|w| is_instant(*w)),
        )
        .chain(late.iter().filter_map(|(_, p)| p.rowtime));
    let Some((lo, hi)) = bounds(times) else {
        return figure(
            "arrivals",
            &format!("Rows of table {table}"),
            "",
            &format!(
                "{} rows read; the table has no time attribute (no WATERMARK), so there is no event time to draw.",
                count(stream.taken as f64)
            ),
            "",
        );
    };
    let taken = stream.taken.max(1) as f64;
    let mut plot = Plot::new("arrivals-plot", 300.0, (0.0, taken), (lo as f64, hi as f64));
    plot.x_axis(Values::Count, "arrival order (rows read)");
    plot.y_axis(Values::Instant, "event time (UTC)");
    // The rows, one dot each, coloured by split.
    let several = stream.lanes.len() > 1;
    for lane in 0..stream.lanes.len().max(1) {
        let mut d = String::new();
        let mut n = 0;
        for (at, p) in points.iter().filter(|(_, p)| p.lane as usize == lane) {
            if let Some(t) = p.rowtime {
                let _ = write!(
                    d,
                    "M{:.1} {:.1}h0",
                    plot.x.at(*at as f64),
                    plot.y.at(t as f64)
                );
                n += 1;
            }
        }
        if n > 0 {
            let colour = if several {
                lane_colour(lane)
            } else {
                "#4a78a8"
            };
            let _ = write!(
                plot.svg,
                r#"<path class="rows" data-lane="{}" data-points="{n}" stroke="{colour}" d="{d}"/>"#,
                escape(&stream.lanes[lane])
            );
        }
    }
    // The watermark each row met.
    let line = watermark_met(points);
    plot.line(
        "watermark",
        "#d62728",
        &line,
        true,
        &format!(r#"data-points="{}""#, line.len()),
    );
    // Late rows, by fate.
    for fate in [Fate::Accepted, Fate::Routed, Fate::Dropped] {
        let told = fates.map_or(0, |f| f.counts.get(&fate).copied().unwrap_or(0));
        let mut marks = String::new();
        let mut drawn = 0;
        for (_, p) in late.iter().filter(|(_, p)| p.fate == fate) {
            let Some(t) = p.rowtime else { continue };
            let (x, y) = (plot.x.at(p.arrival as f64), plot.y.at(t as f64));
            let shape = match fate {
                Fate::Dropped => format!("M{:.1} {:.1}l6 6m0 -6l-6 6", x - 3.0, y - 3.0),
                Fate::Accepted => format!("M{x:.1} {:.1}l4 4l-4 4l-4 -4z", y - 4.0),
                Fate::Routed => format!("M{:.1} {:.1}h6v6h-6z", x - 3.0, y - 3.0),
            };
            let _ = write!(
                marks,
                r#"<path class="late-row" d="{shape}"><title>row {} of {}, at {}: {} by {}; the watermark was {}</title></path>"#,
                p.arrival + 1,
                escape(table),
                when(t),
                fate.label(),
                escape(&p.operator),
                when(p.watermark)
            );
            drawn += 1;
        }
        let _ = write!(
            plot.svg,
            r#"<g class="late {}" data-count="{told}" data-drawn="{drawn}">{marks}</g>"#,
            fate.class()
        );
    }
    let svg = plot.finish();
    let count_of = |fate| fates.map_or(0, |f| f.counts.get(&fate).copied().unwrap_or(0));
    let mut items: Vec<(&str, String)> = Vec::new();
    if several {
        for (i, name) in stream.lanes.iter().enumerate() {
            items.push((lane_colour(i), format!("split {name}")));
        }
    } else {
        items.push(("#4a78a8", "rows".into()));
    }
    items.push(("#d62728", "watermark the row met".into()));
    items.push((
        "#e6550d",
        format!(
            "{} late, accepted within lateness",
            count_of(Fate::Accepted)
        ),
    ));
    items.push((
        "#7b4173",
        format!("{} late, routed to a sink", count_of(Fate::Routed)),
    ));
    items.push(("#111", format!("{} late, dropped", count_of(Fate::Dropped))));
    let late_sampled = fates.is_some_and(|f| f.points.stride() > 1);
    let caption = format!(
        "{}{}. A row below the red line arrived behind the watermark; it is late only for windows already fired and cleaned up.{}",
        legend(&items),
        sampling(stream.rows.stride(), points.len(), stream.taken),
        if late_sampled {
            " Late rows are drawn sampled; their counts are whole."
        } else {
            ""
        }
    );
    figure(
        "arrivals",
        &format!("Rows of table {table}: event time against arrival"),
        &svg,
        &caption,
        &format!(
            r#"data-table="{}" data-rows="{}" data-dropped="{}" data-accepted="{}" data-routed="{}""#,
            escape(table),
            stream.taken,
            count_of(Fate::Dropped),
            count_of(Fate::Accepted),
            count_of(Fate::Routed)
        ),
    )
}

/// The windows drawn of those kept: evenly spread, at most
/// [`WINDOWS_DRAWN`].
fn drawn_windows(op: &OperatorWindows) -> Vec<usize> {
    let n = op.windows.len();
    if n <= WINDOWS_DRAWN {
        return (0..n).collect();
    }
    (0..WINDOWS_DRAWN).map(|i| i * n / WINDOWS_DRAWN).collect()
}

/// 2. An operator's windows on the event-time axis.
pub fn windows(op: &OperatorWindows, fired_total: u64) -> String {
    if op.windows.is_empty() {
        return emissions(op);
    }
    let chosen = drawn_windows(op);
    // Rows of windows: each window on the first row where it fits.
    let mut order = chosen.clone();
    order.sort_by_key(|i| {
        let w = &op.windows[*i];
        (w.start.unwrap_or(w.end), w.end)
    });
    // A window holds its row until the last thing that happened to it
    // (its firing, cleanup), so that its marks stand clear of the next.
    let mut lane_ends: Vec<i64> = Vec::new();
    let mut placed: Vec<(usize, usize)> = Vec::new();
    let mut crowded = 0;
    for i in order {
        let w = &op.windows[i];
        let from = w.start.unwrap_or(w.end);
        let until = w
            .fired
            .into_iter()
            .chain(w.cleaned)
            .chain(w.refires.iter().copied())
            .chain(w.early.iter().copied())
            .chain(w.late.iter().copied())
            .fold(w.end, i64::max);
        match lane_ends.iter().position(|end| *end < from) {
            Some(l) => {
                lane_ends[l] = until;
                placed.push((i, l));
            }
            None if lane_ends.len() < WINDOW_LANES => {
                lane_ends.push(until);
                placed.push((i, lane_ends.len() - 1));
            }
            None => crowded += 1,
        }
    }
    let instants = placed.iter().flat_map(|(i, _)| {
        let w = &op.windows[*i];
        w.start
            .into_iter()
            .chain([w.end])
            .chain(w.fired.filter(|t| is_instant(*t)))
            .chain(w.cleaned.filter(|t| is_instant(*t)))
            .chain(w.refires.iter().copied().filter(|t| is_instant(*t)))
            .chain(w.early.iter().copied().filter(|t| is_instant(*t)))
            .chain(w.late.iter().copied().filter(|t| is_instant(*t)))
    });
    let Some((lo, hi)) = bounds(instants) else {
        return String::new();
    };
    let lanes = lane_ends.len().max(1);
    let row_h = if lanes > 8 { 12.0 } else { 22.0 };
    let height = 16.0 + 40.0 + row_h * lanes as f64 + 12.0;
    // Room at the right for what fired at the end of input.
    let span = (hi - lo).max(1) as f64;
    let right = hi as f64 + span * 0.04;
    let mut plot = Plot::new(
        "windows-plot",
        height,
        (lo as f64, right),
        (0.0, lanes as f64),
    );
    plot.x_axis(
        Values::Instant,
        "event time (UTC): windows, and the watermark when each fired",
    );
    let y_of = |lane: usize| 16.0 + 6.0 + lane as f64 * row_h;
    let end_x = plot.x.at(right);
    let x_at = |plot: &Plot, t: i64| {
        if t == FINAL_WATERMARK {
            end_x - 4.0
        } else {
            plot.x.at(t as f64)
        }
    };
    let bar = row_h - 6.0;
    for (i, lane) in &placed {
        let w = &op.windows[*i];
        let y = y_of(*lane);
        let start = w.start.map(|s| plot.x.at(s as f64));
        let end = plot.x.at(w.end as f64);
        let mut title = match w.start {
            Some(s) => format!("window [{}, {})", when(s), when(w.end)),
            None => format!("window ending {}", when(w.end)),
        };
        let _ = write!(title, ": {} keys, {} rows", w.keys, w.rows);
        if let Some(f) = w.fired {
            let _ = write!(title, "; fired at watermark {}", when(f));
        }
        for e in &w.early {
            let _ = write!(title, "; fired early at watermark {}", when(*e));
        }
        if !w.refires.is_empty() {
            let _ = write!(
                title,
                "; fired again {} times for late rows (last at watermark {})",
                w.refires.len(),
                when(*w.refires.last().unwrap_or(&0))
            );
        }
        if !w.late.is_empty() {
            let _ = write!(
                title,
                "; {} rows came too late for it (the first met watermark {})",
                w.late.len(),
                when(w.late[0])
            );
        }
        if let Some(c) = w.cleaned {
            let _ = write!(title, "; state freed at watermark {}", when(c));
        }
        let _ = write!(
            plot.svg,
            r#"<g class="window" data-start="{}" data-end="{}" data-keys="{}" data-rows="{}" data-fired="{}" data-refires="{}" data-early="{}" data-late="{}" data-cleaned="{}"><title>{}</title>"#,
            w.start.map_or(String::new(), |s| s.to_string()),
            w.end,
            w.keys,
            w.rows,
            data_instant(w.fired),
            w.refires.len(),
            w.early.len(),
            w.late.len(),
            data_instant(w.cleaned),
            escape(&title)
        );
        match start {
            Some(s) => {
                let _ = write!(
                    plot.svg,
                    r#"<rect class="span" x="{s:.1}" y="{y:.1}" width="{:.1}" height="{bar:.1}"/>"#,
                    (end - s).max(1.5)
                );
            }
            None => {
                let _ = write!(
                    plot.svg,
                    r#"<rect class="span" x="{:.1}" y="{y:.1}" width="3" height="{bar:.1}"/>"#,
                    end - 3.0
                );
            }
        }
        let mid = y + bar / 2.0;
        // From the end to the last thing that happened to it.
        let last = w
            .cleaned
            .into_iter()
            .chain(w.fired)
            .chain(w.refires.iter().copied())
            .map(|t| x_at(&plot, t))
            .fold(end, f64::max);
        if last > end + 0.5 {
            let _ = write!(
                plot.svg,
                r#"<line class="wait" x1="{end:.1}" y1="{mid:.1}" x2="{last:.1}" y2="{mid:.1}"/>"#
            );
        }
        for e in &w.early {
            let _ = write!(
                plot.svg,
                r#"<circle class="early" cx="{:.1}" cy="{mid:.1}" r="3.2"/>"#,
                x_at(&plot, *e)
            );
        }
        if let Some(f) = w.fired {
            let _ = write!(
                plot.svg,
                r#"<circle class="fire" cx="{:.1}" cy="{mid:.1}" r="3.5"/>"#,
                x_at(&plot, f)
            );
        }
        for r in &w.refires {
            let x = x_at(&plot, *r);
            let _ = write!(
                plot.svg,
                r#"<path class="refire" d="M{x:.1} {:.1}l4 4l-4 4l-4 -4z"/>"#,
                mid - 4.0
            );
        }
        for l in &w.late {
            let x = x_at(&plot, *l);
            let _ = write!(
                plot.svg,
                r#"<path class="late-mark" d="M{:.1} {:.1}l6 6m0 -6l-6 6"/>"#,
                x - 3.0,
                mid - 3.0
            );
        }
        if let Some(c) = w.cleaned {
            let x = x_at(&plot, c);
            let _ = write!(
                plot.svg,
                r#"<line class="cleanup" x1="{x:.1}" y1="{y:.1}" x2="{x:.1}" y2="{:.1}"/>"#,
                y + bar
            );
        }
        plot.svg.push_str("</g>");
    }
    let svg = plot.finish();
    let mut notes = Vec::new();
    let kept = op.windows.len();
    if placed.len() < kept + op.windows_left_out as usize {
        notes.push(format!(
            "{} of {} windows drawn{}",
            count(placed.len() as f64),
            count((kept as u64 + op.windows_left_out) as f64),
            if op.windows_left_out > 0 {
                format!(
                    " (the first {} remembered, evenly chosen among them)",
                    count(kept as f64)
                )
            } else {
                " (evenly chosen)".into()
            }
        ));
    }
    if crowded > 0 {
        notes.push(format!(
            "{crowded} overlapping windows left out past {WINDOW_LANES} rows"
        ));
    }
    let items = [
        ("#9ecae1", "window [start, end)".to_string()),
        ("#1f77b4", "fired (at the watermark then)".to_string()),
        ("#fdae6b", "fired early".to_string()),
        ("#e6550d", "fired again for a late row".to_string()),
        ("#111", "a row too late for it".to_string()),
        ("#555", "state freed (cleanup)".to_string()),
    ];
    let caption = format!(
        "{}Each window sits at its place in event time; the line after it runs to the watermark at which it fired, fired again and was cleaned up (the right edge: the end of input). Hover a window for its keys and rows. {}",
        legend(&items),
        if notes.is_empty() {
            "Every window drawn.".to_string()
        } else {
            format!("{}.", notes.join("; "))
        }
    );
    figure(
        "windows",
        &format!("Windows of {}", op.operator),
        &svg,
        &caption,
        &format!(
            r#"data-operator="{}" data-windows="{}" data-fired="{fired_total}""#,
            escape(&op.operator),
            kept as u64 + op.windows_left_out
        ),
    )
}

/// 2, for an operator without windows (OVER): the rows it made final,
/// when the watermark passed their time.
fn emissions(op: &OperatorWindows) -> String {
    let points = op.emissions.points();
    let Some((lo, hi)) = bounds(points.iter().flat_map(|(_, e)| {
        [e.rowtime]
            .into_iter()
            .chain(Some(e.watermark).filter(|w| is_instant(*w)))
    })) else {
        return String::new();
    };
    let most = points.iter().map(|(_, e)| e.rows).max().unwrap_or(1).max(1);
    let mut plot = Plot::new(
        "emissions-plot",
        200.0,
        (lo as f64, hi as f64),
        (0.0, most as f64),
    );
    plot.x_axis(Values::Instant, "event time (UTC)");
    plot.y_axis(Values::Count, "rows emitted");
    for (_, e) in points {
        let x = plot.x.at(e.rowtime as f64);
        let y = plot.y.at(e.rows as f64);
        let _ = write!(
            plot.svg,
            r#"<g class="emission" data-rowtime="{}" data-rows="{}" data-watermark="{}"><title>{} rows at {} emitted when the watermark reached {}</title><line class="stem" x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{y:.1}"/><circle class="fire" cx="{x:.1}" cy="{y:.1}" r="2.5"/></g>"#,
            e.rowtime,
            e.rows,
            e.watermark,
            e.rows,
            when(e.rowtime),
            when(e.watermark),
            plot.y.at(0.0)
        );
    }
    let svg = plot.finish();
    let caption = format!(
        "An OVER aggregation emits a row once the watermark has passed its time; each stem is the rows of one key and time made final. {}",
        if op.emissions.stride() > 1 {
            format!(
                "Every {}th emission drawn ({} of {}).",
                op.emissions.stride(),
                count(points.len() as f64),
                count(op.emissions_told as f64)
            )
        } else {
            "Every emission drawn.".into()
        }
    );
    figure(
        "windows emissions",
        &format!("Rows made final by {}", op.operator),
        &svg,
        &caption,
        &format!(
            r#"data-operator="{}" data-emissions="{}""#,
            escape(&op.operator),
            op.emissions_told
        ),
    )
}

/// 3. Each lane's own watermark over the run, idle spells shaded, and the
///    lane that held the combined watermark.
pub fn watermarks(stream: &StreamRecord) -> String {
    let points = stream.rows.points();
    let lanes = stream.lanes.len();
    let values = points.iter().flat_map(|(_, p)| {
        p.lanes
            .iter()
            .map(|l| l.watermark)
            .chain([p.watermark])
            .filter(|w| is_instant(*w))
    });
    let Some((lo, hi)) = bounds(values) else {
        return String::new();
    };
    let taken = stream.taken.max(1) as f64;
    let strip = 14.0;
    let mut plot = Plot::new(
        "watermarks-plot",
        260.0 + strip,
        (0.0, taken),
        (lo as f64, hi as f64),
    );
    plot.y.from -= strip;
    plot.x_axis(Values::Count, "arrival order (rows taken)");
    plot.y_axis(Values::Instant, "watermark (UTC)");
    // Idle spells, from the turns (exact) or, past their limit, points.
    let mut idle_spells = 0;
    for lane in 0..lanes {
        let mut since: Option<u64> = None;
        let mut spells: Vec<(u64, u64)> = Vec::new();
        for turn in stream.turns.iter().filter(|t| t.lane as usize == lane) {
            match (turn.idle, since) {
                (true, None) => since = Some(turn.taken),
                (false, Some(from)) => {
                    spells.push((from, turn.taken));
                    since = None;
                }
                _ => {}
            }
        }
        if let Some(from) = since {
            spells.push((from, stream.taken));
        }
        for (from, to) in spells {
            idle_spells += 1;
            let (x0, x1) = (plot.x.at(from as f64), plot.x.at(to as f64));
            let _ = write!(
                plot.svg,
                r#"<rect class="idle" data-lane="{}" x="{x0:.1}" y="16" width="{:.1}" height="{:.1}" fill="{}"><title>{} idle from row {} to row {}: it did not hold the watermark</title></rect>"#,
                escape(&stream.lanes[lane]),
                (x1 - x0).max(2.0),
                plot.height - 56.0 - strip,
                lane_colour(lane),
                escape(&stream.lanes[lane]),
                from,
                to
            );
        }
    }
    for lane in 0..lanes {
        let line: Vec<(f64, f64)> = points
            .iter()
            .filter_map(|(at, p)| {
                let mark = p.lanes.get(lane)?;
                (is_instant(mark.watermark) && mark.status != LaneStatus::Ended)
                    .then_some((*at as f64, mark.watermark as f64))
            })
            .collect();
        plot.line(
            "lane-watermark",
            lane_colour(lane),
            &line,
            true,
            &format!(
                r#"data-lane="{}" data-points="{}""#,
                escape(&stream.lanes[lane]),
                line.len()
            ),
        );
    }
    let combined = watermark_met(points);
    plot.line(
        "combined-watermark",
        "#222",
        &combined,
        true,
        &format!(r#"stroke-dasharray="5 3" data-points="{}""#, combined.len()),
    );
    // Who held it: a strip under the plot, coloured by the holding lane.
    let y = plot.height - 40.0 - strip + 2.0;
    let mut held_by = vec![0u64; lanes];
    for (k, (at, p)) in points.iter().enumerate() {
        let Some(h) = p.holder else { continue };
        let next = points.get(k + 1).map_or(stream.taken, |(n, _)| *n);
        let (x0, x1) = (plot.x.at(*at as f64), plot.x.at(next as f64));
        if let Some(n) = held_by.get_mut(h as usize) {
            *n += next - at;
        }
        let _ = write!(
            plot.svg,
            r#"<rect class="holder" x="{x0:.1}" y="{y:.1}" width="{:.2}" height="{:.1}" fill="{}"/>"#,
            (x1 - x0).max(0.5),
            strip - 4.0,
            lane_colour(h as usize)
        );
    }
    let svg = plot.finish();
    let mut items: Vec<(&str, String)> = stream
        .lanes
        .iter()
        .enumerate()
        .map(|(i, name)| (lane_colour(i), name.clone()))
        .collect();
    items.push(("#222", "combined watermark (dashed)".into()));
    let holders: Vec<String> = stream
        .lanes
        .iter()
        .zip(&held_by)
        .filter(|(_, n)| **n > 0)
        .map(|(name, n)| format!("{name} for {:.0}% of the rows", *n as f64 * 100.0 / taken))
        .collect();
    let caption = format!(
        "{}Each line is one {}'s own watermark; the combined watermark is the lowest of those that count, shaded spells are idle (left out, spec §8), and the strip at the bottom shows which one held the combined watermark: {}. {}{}",
        legend(&items),
        if stream.table.is_some() { "split" } else { "input" },
        if holders.is_empty() {
            "none".to_string()
        } else {
            escape(&holders.join(", "))
        },
        sampling(stream.rows.stride(), points.len(), stream.taken),
        if stream.turns_left_out > 0 {
            format!("; {} idle turns past the first {} not shaded", stream.turns_left_out, stream.turns.len())
        } else {
            String::new()
        }
    );
    figure(
        "watermarks",
        &format!("Watermarks of {}", stream.name),
        &svg,
        &caption,
        &format!(
            r#"data-stream="{}" data-lanes="{lanes}" data-idle-spells="{idle_spells}""#,
            escape(&stream.name)
        ),
    )
}

/// 4. How far behind the watermark an operator's dropped rows were, and
///    the delay that would have kept 99 % and 99.9 % of them.
pub fn lateness(name: &str, m: &OperatorMetrics, delay: Option<i64>) -> String {
    let Some(max) = m.lateness.max() else {
        return String::new();
    };
    let width = (max / BARS as i64 + 1).max(1);
    let mut bars = vec![0u64; BARS + 1];
    for (v, n) in m.lateness.counts() {
        bars[((v / width) as usize).min(BARS)] += n;
    }
    let tallest = bars.iter().copied().max().unwrap_or(1).max(1);
    let hi = width * (BARS as i64 + 1);
    let mut plot = Plot::new(
        "lateness-plot",
        220.0,
        (0.0, hi as f64),
        (0.0, tallest as f64),
    );
    plot.x_axis(Values::Duration, "behind the watermark when dropped");
    plot.y_axis(Values::Count, "late rows");
    for (i, n) in bars.iter().enumerate().filter(|(_, n)| **n > 0) {
        let (from, to) = (i as i64 * width, (i as i64 + 1) * width);
        let (x0, x1) = (plot.x.at(from as f64), plot.x.at(to as f64));
        let (y0, y1) = (plot.y.at(0.0), plot.y.at(*n as f64));
        let _ = write!(
            plot.svg,
            r#"<rect class="bar" data-rows="{n}" x="{x0:.1}" y="{y1:.1}" width="{:.1}" height="{:.1}"><title>{n} rows {} to {} behind</title></rect>"#,
            (x1 - x0 - 1.0).max(1.0),
            (y0 - y1).max(0.5),
            escape(&label(from as f64, Values::Duration, 0.0, 0.0)),
            escape(&label(to as f64, Values::Duration, 0.0, 0.0)),
        );
    }
    for (permille, class) in [(990, "p99"), (999, "p999")] {
        let v = m.lateness.permille(permille).unwrap_or(0);
        let x = plot.x.at(v as f64);
        let _ = write!(
            plot.svg,
            r#"<line class="percentile {class}" data-value="{v}" x1="{x:.1}" y1="16" x2="{x:.1}" y2="{:.1}"/><text class="tick" x="{:.1}" y="{}">{}</text>"#,
            plot.y.at(0.0),
            x + 3.0,
            if permille == 990 { 28 } else { 42 },
            if permille == 990 { "99%" } else { "99.9%" }
        );
    }
    let svg = plot.finish();
    let about = if m.lateness.is_exact() {
        ""
    } else {
        " (past 65 536 distinct values, rounded to three digits)"
    };
    let caption = format!(
        r#"{} dropped{about}, up to {} behind. <span class="advice" data-permille="990">With {}.</span> <span class="advice" data-permille="999">With {}.</span>"#,
        if m.late_rows == 1 {
            "1 late row".to_string()
        } else {
            format!("{} late rows", count(m.late_rows as f64))
        },
        escape(&tidemark_common::window::ms(max)),
        escape(&super::super::summary::keeping_delay(m, delay, 990)),
        escape(&super::super::summary::keeping_delay(m, delay, 999)),
    );
    figure(
        "lateness",
        &format!("Lateness of the rows {name} dropped"),
        &svg,
        &caption,
        &format!(
            r#"data-operator="{}" data-late="{}" data-max="{max}""#,
            escape(name),
            m.late_rows
        ),
    )
}

/// 5. The operators' state over the run.
pub fn state(obs: &Observations, peaks: &[(String, u64)]) -> String {
    let points = &obs.state;
    let most = points
        .iter()
        .flat_map(|p| p.bytes.iter().copied())
        .max()
        .unwrap_or(0);
    if points.is_empty() || most == 0 {
        return figure(
            "state",
            "State",
            "",
            "No operator held state.",
            r#"data-peak="0""#,
        );
    }
    let last = points
        .iter()
        .map(|p| p.elapsed_ms)
        .max()
        .unwrap_or(0)
        .max(1);
    let mut plot = Plot::new("state-plot", 220.0, (0.0, last as f64), (0.0, most as f64));
    plot.x_axis(Values::Duration, "time since the query started");
    plot.y_axis(Values::Bytes, "state held");
    let mut items = Vec::new();
    for (i, name) in obs.operators.iter().enumerate() {
        let line: Vec<(f64, f64)> = points
            .iter()
            .filter_map(|p| Some((p.elapsed_ms as f64, *p.bytes.get(i)? as f64)))
            .collect();
        if line.iter().all(|(_, b)| *b == 0.0) {
            continue;
        }
        // Each measure as a dot too, so that a short run shows its few.
        for (x, b) in &line {
            let _ = write!(
                plot.svg,
                r#"<circle class="state-point" cx="{:.1}" cy="{:.1}" r="2" fill="{}"/>"#,
                plot.x.at(*x),
                plot.y.at(*b),
                lane_colour(i)
            );
        }
        plot.line(
            "state-line",
            lane_colour(i),
            &line,
            false,
            &format!(r#"data-operator="{}""#, escape(name)),
        );
        let peak = peaks.iter().find(|(n, _)| n == name).map_or(0, |(_, b)| *b);
        items.push((
            lane_colour(i),
            format!("{name} (up to {})", tidemark_common::show_bytes(peak)),
        ));
    }
    let svg = plot.finish();
    let caption = format!(
        "{}Measured {} times while the run went on (the bytes each operator's state is estimated to hold); this picture depends on timing, unlike the others.",
        legend(&items),
        points.len()
    );
    figure(
        "state",
        "State over the run",
        &svg,
        &caption,
        &format!(r#"data-peak="{most}""#),
    )
}
