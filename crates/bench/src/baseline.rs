//! The plain program the benchmark compares tidemark with: one pass over
//! the CSV, a hash map of open one-minute windows per key holding COUNT,
//! SUM and MAX, and the same watermark rules as tidemark (watermark = the
//! largest timestamp seen - 2 s, updated after each row; a window fires and
//! is freed when `window_end - 1 <= watermark`; a row whose window has
//! already fired is late and dropped). Written the way one would write it
//! by hand: straightforward, neither tuned nor slowed down.

use crate::data::TS_FORMAT;
use anyhow::{bail, Context, Result};
use chrono::{DateTime, NaiveDateTime};
use std::collections::{BTreeSet, HashMap};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

const WINDOW_MS: i64 = 60_000;
const WATERMARK_DELAY_MS: i64 = 2_000;

/// COUNT(*), SUM(price), MAX(price) of one key in one window.
type Aggregates = (i64, f64, f64);

struct Counts {
    rows_read: u64,
    late_rows: u64,
    rows_emitted: u64,
}

/// Reads `csv`, prints the window results on stdout (as `+I[...]` lines)
/// and the counts on stderr.
pub fn run(csv: &Path) -> Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let counts = aggregate(csv, &mut out)?;
    out.flush().context("cannot write output")?;
    eprintln!("rows read: {}", counts.rows_read);
    eprintln!("late rows dropped: {}", counts.late_rows);
    eprintln!("rows emitted: {}", counts.rows_emitted);
    Ok(ExitCode::SUCCESS)
}

fn aggregate(csv: &Path, out: &mut impl Write) -> Result<Counts> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(csv)
        .with_context(|| format!("cannot open {}", csv.display()))?;
    let mut windows: HashMap<(String, i64), Aggregates> = HashMap::new();
    // Starts of the windows that have state, to find the next one to fire.
    let mut open_starts: BTreeSet<i64> = BTreeSet::new();
    let mut max_ts = i64::MIN;
    let mut watermark = i64::MIN;
    let mut counts = Counts {
        rows_read: 0,
        late_rows: 0,
        rows_emitted: 0,
    };

    let mut record = csv::ByteRecord::new();
    while reader
        .read_byte_record(&mut record)
        .with_context(|| format!("cannot read {}", csv.display()))?
    {
        counts.rows_read += 1;
        let line = counts.rows_read;
        if record.len() != 3 {
            bail!("line {line}: expected 3 fields, found {}", record.len());
        }
        let key = std::str::from_utf8(&record[0])
            .with_context(|| format!("line {line}: key is not UTF-8"))?;
        let ts_text = std::str::from_utf8(&record[1])
            .with_context(|| format!("line {line}: ts is not UTF-8"))?;
        let ts = NaiveDateTime::parse_from_str(ts_text, TS_FORMAT)
            .with_context(|| format!("line {line}: bad timestamp '{ts_text}'"))?
            .and_utc()
            .timestamp_millis();
        let price: f64 = std::str::from_utf8(&record[2])
            .ok()
            .and_then(|s| s.parse().ok())
            .with_context(|| format!("line {line}: bad price"))?;

        let window_start = ts - ts.rem_euclid(WINDOW_MS);
        if window_start + WINDOW_MS - 1 <= watermark {
            counts.late_rows += 1;
        } else {
            let agg = windows
                .entry((key.to_string(), window_start))
                .or_insert_with(|| {
                    open_starts.insert(window_start);
                    (0, 0.0, f64::NEG_INFINITY)
                });
            agg.0 += 1;
            agg.1 += price;
            agg.2 = agg.2.max(price);
        }

        if ts > max_ts {
            max_ts = ts;
            watermark = ts.saturating_sub(WATERMARK_DELAY_MS);
            counts.rows_emitted += fire(&mut windows, &mut open_starts, watermark, out)?;
        }
    }
    // End of input: the watermark goes to +infinity and every window fires.
    counts.rows_emitted += fire(&mut windows, &mut open_starts, i64::MAX, out)?;
    Ok(counts)
}

/// Emits and frees every window whose end - 1 is at or before `watermark`,
/// window by window, keys in order; returns the number of rows emitted.
fn fire(
    windows: &mut HashMap<(String, i64), Aggregates>,
    open_starts: &mut BTreeSet<i64>,
    watermark: i64,
    out: &mut impl Write,
) -> Result<u64> {
    let mut emitted = 0;
    while let Some(&start) = open_starts.first() {
        if start + WINDOW_MS - 1 > watermark {
            break;
        }
        open_starts.pop_first();
        let mut fired: Vec<(String, Aggregates)> = windows
            .extract_if(|(_, ws), _| *ws == start)
            .map(|((key, _), agg)| (key, agg))
            .collect();
        fired.sort_by(|a, b| a.0.cmp(&b.0));
        let window_start = show_ts(start);
        let window_end = show_ts(start + WINDOW_MS);
        for (key, (count, sum, max)) in &fired {
            writeln!(
                out,
                "+I[{key}, {window_start}, {window_end}, {count}, {sum:?}, {max:?}]"
            )
            .context("cannot write output")?;
        }
        emitted += fired.len() as u64;
    }
    Ok(emitted)
}

fn show_ts(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .map(|d| d.naive_utc().format(TS_FORMAT).to_string())
        .unwrap_or_else(|| format!("{ms} ms"))
}
