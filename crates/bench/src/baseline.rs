//! The hand-written program the benchmark compares tidemark with: what
//! one would write for exactly this job and this input, simply and
//! without waste. One pass over the CSV (`key,ts,price`, no quoting, read
//! in large blocks and split at `\n` and `,`), timestamps parsed by hand in
//! their one format, keys numbered once in a fast hash map, and per window
//! start a map from key number to COUNT, SUM and MAX; the same watermark
//! rules as tidemark (watermark = the largest timestamp seen - 2 s, after
//! each row; a window fires and is freed when `window_end - 1 <=
//! watermark`; a row whose window has fired is late and dropped). It is
//! the limit tidemark's general engine is measured against.

use anyhow::{bail, Context, Result};
use chrono::DateTime;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::process::ExitCode;

const WINDOW_MS: i64 = 60_000;
const WATERMARK_DELAY_MS: i64 = 2_000;

/// COUNT(*), SUM(price), MAX(price) of one key in one window.
type Aggregates = (i64, f64, f64);

type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

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
    let mut file =
        std::fs::File::open(csv).with_context(|| format!("cannot open {}", csv.display()))?;
    // Keys by number, and the open windows by start: key number -> sums.
    let mut key_ids: FastMap<Box<[u8]>, u32> = FastMap::default();
    let mut key_names: Vec<String> = Vec::new();
    let mut windows: BTreeMap<i64, FastMap<u32, Aggregates>> = BTreeMap::new();
    let mut max_ts = i64::MIN;
    let mut watermark = i64::MIN;
    let mut counts = Counts {
        rows_read: 0,
        late_rows: 0,
        rows_emitted: 0,
    };

    let mut buf = vec![0u8; 1 << 20];
    let mut filled = 0;
    loop {
        let n = file
            .read(&mut buf[filled..])
            .with_context(|| format!("cannot read {}", csv.display()))?;
        filled += n;
        let eof = n == 0;
        // Whole lines only; a last line without `\n` at the end of input.
        let upto = if eof {
            filled
        } else {
            match memchr::memrchr(b'\n', &buf[..filled]) {
                Some(at) => at + 1,
                None if filled < buf.len() => continue,
                None => bail!("a line longer than {} bytes", buf.len()),
            }
        };
        for line in buf[..upto].split(|b| *b == b'\n') {
            if line.is_empty() {
                continue;
            }
            counts.rows_read += 1;
            let row = counts.rows_read;
            let mut fields = line.split(|b| *b == b',');
            let (Some(key), Some(ts), Some(price), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                bail!("line {row}: expected 3 fields");
            };
            let ts = parse_ts(ts).with_context(|| format!("line {row}: bad timestamp"))?;
            let price: f64 = std::str::from_utf8(price)
                .ok()
                .and_then(|s| s.parse().ok())
                .with_context(|| format!("line {row}: bad price"))?;

            let window_start = ts - ts.rem_euclid(WINDOW_MS);
            if window_start + WINDOW_MS - 1 <= watermark {
                counts.late_rows += 1;
            } else {
                let id = match key_ids.get(key) {
                    Some(id) => *id,
                    None => {
                        let name = std::str::from_utf8(key)
                            .with_context(|| format!("line {row}: key is not UTF-8"))?;
                        key_names.push(name.to_string());
                        let id = (key_names.len() - 1) as u32;
                        key_ids.insert(key.into(), id);
                        id
                    }
                };
                let agg = windows
                    .entry(window_start)
                    .or_default()
                    .entry(id)
                    .or_insert((0, 0.0, f64::NEG_INFINITY));
                agg.0 += 1;
                agg.1 += price;
                agg.2 = agg.2.max(price);
            }

            if ts > max_ts {
                max_ts = ts;
                watermark = ts.saturating_sub(WATERMARK_DELAY_MS);
                counts.rows_emitted += fire(&mut windows, &key_names, watermark, out)?;
            }
        }
        buf.copy_within(upto..filled, 0);
        filled -= upto;
        if eof {
            break;
        }
    }
    // End of input: the watermark goes to +infinity and every window fires.
    counts.rows_emitted += fire(&mut windows, &key_names, i64::MAX, out)?;
    Ok(counts)
}

/// `yyyy-MM-dd HH:mm:ss.SSS` as milliseconds since the epoch (UTC).
fn parse_ts(text: &[u8]) -> Option<i64> {
    let [y0, y1, y2, y3, b'-', mo0, mo1, b'-', d0, d1, b' ', h0, h1, b':', mi0, mi1, b':', s0, s1, b'.', f0, f1, f2] =
        *text
    else {
        return None;
    };
    let digit = |b: u8| b.is_ascii_digit().then(|| i64::from(b - b'0'));
    let num = |ds: &[u8]| ds.iter().try_fold(0, |n, b| Some(n * 10 + digit(*b)?));
    let (y, mo, d) = (num(&[y0, y1, y2, y3])?, num(&[mo0, mo1])?, num(&[d0, d1])?);
    let (h, mi, s, ms) = (
        num(&[h0, h1])?,
        num(&[mi0, mi1])?,
        num(&[s0, s1])?,
        num(&[f0, f1, f2])?,
    );
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 59 {
        return None;
    }
    // Days from the civil date (proleptic Gregorian), March-based years.
    let (y, mo) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * mo + 2) / 5 + d - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Some(((days * 24 + h) * 60 + mi) * 60_000 + s * 1000 + ms)
}

/// Emits and frees every window whose end - 1 is at or before `watermark`,
/// window by window, keys in order; returns the number of rows emitted.
fn fire(
    windows: &mut BTreeMap<i64, FastMap<u32, Aggregates>>,
    key_names: &[String],
    watermark: i64,
    out: &mut impl Write,
) -> Result<u64> {
    let mut emitted = 0;
    while let Some(entry) = windows.first_entry() {
        let start = *entry.key();
        if start + WINDOW_MS - 1 > watermark {
            break;
        }
        let mut fired: Vec<(&str, Aggregates)> = entry
            .remove()
            .into_iter()
            .map(|(id, agg)| (key_names[id as usize].as_str(), agg))
            .collect();
        fired.sort_by(|a, b| a.0.cmp(b.0));
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
        .map(|d| d.naive_utc().format(crate::data::TS_FORMAT).to_string())
        .unwrap_or_else(|| format!("{ms} ms"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_parsed_timestamps_agree_with_chrono() {
        for text in [
            "2024-01-01 00:00:01.555",
            "1970-01-01 00:00:00.000",
            "1969-12-31 23:59:59.999",
            "2000-02-29 12:34:56.789",
            "2100-03-01 00:00:00.001",
        ] {
            let want = chrono::NaiveDateTime::parse_from_str(text, crate::data::TS_FORMAT)
                .unwrap()
                .and_utc()
                .timestamp_millis();
            assert_eq!(parse_ts(text.as_bytes()), Some(want), "{text}");
        }
        for bad in [
            "2024-13-01 00:00:00.000",
            "2024-01-01 00:00:00",
            "2024-01-01T00:00:00.000",
        ] {
            assert_eq!(parse_ts(bad.as_bytes()), None, "{bad}");
        }
    }
}
