//! Plain SVG for the report's pictures: a plot area with linear scales,
//! axes with round ticks (numbers, or instants of event time), and text
//! escaped for HTML. No script and no network: the page is drawn whole on
//! the server side, and tooltips are SVG `<title>`s.

use std::fmt::Write;

/// The size of every picture, in CSS pixels.
pub const WIDTH: f64 = 920.0;
pub const MARGIN_LEFT: f64 = 150.0;
pub const MARGIN_RIGHT: f64 = 20.0;
pub const MARGIN_TOP: f64 = 16.0;
pub const MARGIN_BOTTOM: f64 = 40.0;

/// Colours of lanes (splits, inputs, operators), in order.
pub const PALETTE: [&str; 8] = [
    "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
];

pub fn lane_colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Text made safe inside HTML and SVG.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A linear map from data to pixels.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    pub lo: f64,
    pub hi: f64,
    pub from: f64,
    pub to: f64,
}

impl Scale {
    /// `lo..hi` onto `from..to`; an empty range is widened by one.
    pub fn new(lo: f64, hi: f64, from: f64, to: f64) -> Self {
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            (lo - 0.5, lo + 0.5)
        };
        Scale { lo, hi, from, to }
    }

    pub fn at(&self, v: f64) -> f64 {
        let v = v.clamp(self.lo, self.hi);
        self.from + (v - self.lo) / (self.hi - self.lo) * (self.to - self.from)
    }
}

/// What an axis's values are.
#[derive(Clone, Copy, Debug)]
pub enum Values {
    /// Counts of rows, shown as numbers.
    Count,
    /// Bytes.
    Bytes,
    /// Instants of event time (epoch milliseconds, shown in UTC).
    Instant,
    /// Durations in milliseconds.
    Duration,
}

/// Round tick values for `lo..hi`: about `wanted` of them.
pub fn ticks(lo: f64, hi: f64, values: Values, wanted: usize) -> Vec<f64> {
    if hi <= lo || wanted == 0 {
        return vec![lo];
    }
    let raw = (hi - lo) / wanted as f64;
    let step = match values {
        Values::Instant | Values::Duration => {
            const STEPS: [f64; 20] = [
                1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1e3, 2e3, 5e3, 10e3, 15e3,
                30e3, 60e3, 120e3, 300e3, 600e3, 900e3,
            ];
            const LONG: [f64; 7] = [
                1_800e3, 3_600e3, 7_200e3, 21_600e3, 43_200e3, 86_400e3, 604_800e3,
            ];
            STEPS
                .iter()
                .chain(LONG.iter())
                .copied()
                .find(|s| *s >= raw)
                .unwrap_or_else(|| nice(raw))
        }
        _ => nice(raw).max(1.0),
    };
    let first = (lo / step).ceil() * step;
    let mut out = Vec::new();
    let mut v = first;
    while v <= hi + step * 1e-9 && out.len() < 40 {
        out.push(v);
        v += step;
    }
    out
}

/// How far apart `ticks` are (the whole `span` for a lone one).
fn tick_step(ticks: &[f64], span: f64) -> f64 {
    match ticks {
        [a, b, ..] => b - a,
        _ => span,
    }
}

/// 1, 2 or 5 times a power of ten, at or above `v`.
fn nice(v: f64) -> f64 {
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= v)
        .unwrap_or(10.0 * p)
}

/// A tick's label, for ticks `step` apart over a range `span` wide: an
/// instant shows the seconds when ticks are less than a minute apart, the
/// day when the range is a day or longer.
pub fn label(v: f64, values: Values, step: f64, span: f64) -> String {
    match values {
        Values::Count => count(v),
        Values::Bytes => tidemark_common::show_bytes(v.max(0.0) as u64),
        Values::Duration => tidemark_common::window::ms(v as i64),
        Values::Instant => {
            let Some(t) = chrono::DateTime::from_timestamp_millis(v as i64) else {
                return format!("{v}");
            };
            let t = t.naive_utc();
            let time = if step >= 60_000.0 {
                "%H:%M"
            } else if step >= 1_000.0 {
                "%H:%M:%S"
            } else {
                "%H:%M:%S%.3f"
            };
            let format = if span >= 86_400_000.0 {
                format!("%m-%d {time}")
            } else {
                time.to_string()
            };
            t.format(&format).to_string()
        }
    }
}

/// A count with thousands grouped: `1 234 567`, or `1.2 M` past ten
/// million.
pub fn count(v: f64) -> String {
    if v.abs() >= 1e7 {
        return format!("{:.1} M", v / 1e6);
    }
    let n = v.round() as i64;
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// A picture under construction: an `<svg>` of [`WIDTH`] by `height`
/// with a plot area inside the margins.
pub struct Plot {
    pub svg: String,
    pub height: f64,
    pub x: Scale,
    pub y: Scale,
}

impl Plot {
    /// A plot of `x_range` against `y_range`, `class` naming the picture.
    pub fn new(class: &str, height: f64, x_range: (f64, f64), y_range: (f64, f64)) -> Self {
        let x = Scale::new(x_range.0, x_range.1, MARGIN_LEFT, WIDTH - MARGIN_RIGHT);
        let y = Scale::new(y_range.0, y_range.1, height - MARGIN_BOTTOM, MARGIN_TOP);
        let mut svg = String::new();
        let _ = write!(
            svg,
            r#"<svg class="{class}" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img">"#
        );
        let _ = write!(
            svg,
            r#"<rect class="plot-area" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/>"#,
            MARGIN_LEFT,
            MARGIN_TOP,
            WIDTH - MARGIN_LEFT - MARGIN_RIGHT,
            height - MARGIN_TOP - MARGIN_BOTTOM
        );
        Plot { svg, height, x, y }
    }

    /// The x axis at the bottom, with its title.
    pub fn x_axis(&mut self, values: Values, title: &str) {
        let (lo, hi) = (self.x.lo, self.x.hi);
        let y0 = self.height - MARGIN_BOTTOM;
        let all = ticks(lo, hi, values, 7);
        let step = tick_step(&all, hi - lo);
        for t in all {
            let x = self.x.at(t);
            let _ = write!(
                self.svg,
                r#"<line class="grid" x1="{x:.1}" y1="{MARGIN_TOP}" x2="{x:.1}" y2="{y0:.1}"/><text class="tick" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                y0 + 14.0,
                escape(&label(t, values, step, hi - lo))
            );
        }
        let _ = write!(
            self.svg,
            r#"<text class="axis-title" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            (MARGIN_LEFT + WIDTH - MARGIN_RIGHT) / 2.0,
            self.height - 6.0,
            escape(title)
        );
    }

    /// The y axis at the left, with its title.
    pub fn y_axis(&mut self, values: Values, title: &str) {
        let (lo, hi) = (self.y.lo, self.y.hi);
        let all = ticks(lo, hi, values, 5);
        let step = tick_step(&all, hi - lo);
        for t in all {
            let y = self.y.at(t);
            let _ = write!(
                self.svg,
                r#"<line class="grid" x1="{MARGIN_LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}"/><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                WIDTH - MARGIN_RIGHT,
                MARGIN_LEFT - 6.0,
                y + 4.0,
                escape(&label(t, values, step, hi - lo))
            );
        }
        let _ = write!(
            self.svg,
            r#"<text class="axis-title" x="12" y="{:.1}" transform="rotate(-90 12 {:.1})" text-anchor="middle">{}</text>"#,
            (self.height - MARGIN_BOTTOM + MARGIN_TOP) / 2.0,
            (self.height - MARGIN_BOTTOM + MARGIN_TOP) / 2.0,
            escape(title)
        );
    }

    /// A polyline through `points` (data values), stepped (each value
    /// holds until the next) when `step`.
    pub fn line(
        &mut self,
        class: &str,
        colour: &str,
        points: &[(f64, f64)],
        step: bool,
        extra: &str,
    ) {
        if points.is_empty() {
            return;
        }
        let mut d = String::new();
        let mut last_y = None;
        for (x, y) in points {
            let (px, py) = (self.x.at(*x), self.y.at(*y));
            if step {
                if let Some(ly) = last_y {
                    let _ = write!(d, "{px:.1},{ly:.1} ");
                }
            }
            let _ = write!(d, "{px:.1},{py:.1} ");
            last_y = Some(py);
        }
        let _ = write!(
            self.svg,
            r#"<polyline class="{class}" stroke="{colour}" fill="none" points="{}" {extra}/>"#,
            d.trim_end()
        );
    }

    pub fn finish(mut self) -> String {
        self.svg.push_str("</svg>");
        self.svg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        assert_eq!(
            ticks(0.0, 100.0, Values::Count, 5),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        // Event time: whole minutes over an hour.
        let t = ticks(0.0, 3_600_000.0, Values::Instant, 7);
        assert!(t.iter().all(|v| v % 60_000.0 == 0.0), "{t:?}");
        assert_eq!(
            label(3_600_000.0, Values::Instant, 600_000.0, 3_600_000.0),
            "01:00"
        );
        // Ticks 30 s apart show their seconds; a range of days, the day.
        assert_eq!(
            label(30_000.0, Values::Instant, 30_000.0, 170_000.0),
            "00:00:30"
        );
        assert_eq!(
            label(86_400_000.0, Values::Instant, 21_600_000.0, 172_800_000.0),
            "01-02 00:00"
        );
    }

    #[test]
    fn text_is_escaped_and_counts_grouped() {
        assert_eq!(escape("a<b & 'c'"), "a&lt;b &amp; &#39;c&#39;");
        assert_eq!(count(1_234_567.0), "1\u{202f}234\u{202f}567");
        assert_eq!(count(12.0), "12");
    }

    #[test]
    fn a_scale_maps_ends_to_ends_and_clamps() {
        let s = Scale::new(10.0, 20.0, 0.0, 100.0);
        assert_eq!(
            (s.at(10.0), s.at(20.0), s.at(15.0), s.at(30.0)),
            (0.0, 100.0, 50.0, 100.0)
        );
        // An empty range still maps.
        assert!(Scale::new(5.0, 5.0, 0.0, 100.0).at(5.0).is_finite());
    }
}
