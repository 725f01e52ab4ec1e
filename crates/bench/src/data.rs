//! The benchmark's input: a deterministic CSV of bids and the SQL script
//! that aggregates it, in a folder named by the parameters and reused when
//! a complete copy with the same parameters is already there.
//!
//! Two shapes of the same `key,ts,price` rows: steady (every key bids all
//! the time) and in sessions (each key alternates between bidding and
//! falling silent), because with steady input a session window never
//! closes.

use anyhow::{Context, Result};
use chrono::{NaiveDate, NaiveDateTime, TimeDelta};
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The generator's seed; fixed, so every run sees the same data.
pub const SEED: u64 = 0x7469_6465_6d61_726b;
/// Bumped whenever the generated data changes, so old copies are not reused.
const FORMAT_VERSION: u32 = 1;
/// The largest delay of a row behind its ideal time, in ms.
pub const MAX_DISORDER_MS: u64 = 2_000;
/// The timestamp format of the CSV, as Flink's CSV format reads it.
pub const TS_FORMAT: &str = "%Y-%m-%d %H:%M:%S%.3f";

pub const CSV_NAME: &str = "bids.csv";
/// The same rows as JSON lines, made from the CSV when a benchmark needs
/// them.
pub const JSON_NAME: &str = "bids.json";
const SQL_NAME: &str = "tumble.sql";
const PARAMS_NAME: &str = "params.txt";

/// The table the CSV benchmarks read: the generated bids, watermark 2 s
/// behind.
pub const BIDS_TABLE: &str = "\
CREATE TABLE bids (key STRING, ts TIMESTAMP(3), price DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
";

const TUMBLE_SQL: &str = "\
SELECT key, window_start, window_end, COUNT(*), SUM(price), MAX(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, key;
";

/// The prepared input of one benchmark.
pub struct Dataset {
    pub dir: PathBuf,
    pub csv: PathBuf,
    pub sql: PathBuf,
    pub bytes: u64,
    pub reused: bool,
}

/// How the rows' keys are spread over time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Every row's key is drawn uniformly from all keys.
    Steady,
    /// Each key bids for `SESSION_ACTIVE_MS`, then is silent for
    /// `SESSION_IDLE_MS`, over and over, with the keys' cycles staggered so
    /// that about half of them bid at any moment; a row's key is drawn
    /// uniformly from the keys bidding at its time.
    Sessions,
    /// As `Steady`, but 10 ms of event time per row on average instead
    /// of 1 ms: 5 M rows span about 14 hours, so that windows a day long
    /// hold hundreds of one-minute slices.
    Spread,
    /// As `Spread`, but every row has a key of its own (`k0`, `k1`, … in
    /// row order): the state of a job partitioned by user or device id,
    /// where each key is seen once and must still be kept or freed.
    Distinct,
}

/// The average event time between rows of the `Spread` shape, in ms.
pub const SPREAD_MS_PER_ROW: u64 = 10;

/// How long a key of the `Sessions` shape bids before falling silent.
pub const SESSION_ACTIVE_MS: u64 = 60_000;
/// How long it stays silent: more than any session gap the benchmarks use
/// plus the largest disorder, so that every session closes.
pub const SESSION_IDLE_MS: u64 = 60_000;

/// splitmix64: small, fast and good enough for test data.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform value in `0..n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
}

/// The first ideal event time: 2 s after 2024-01-01 00:00:00.000, so that
/// no timestamp, disorder included, is earlier than that instant.
fn first_ideal_time() -> Result<NaiveDateTime> {
    NaiveDate::from_ymd_opt(2024, 1, 1)
        .and_then(|d| d.and_hms_milli_opt(0, 0, 0, 0))
        .map(|t| t + TimeDelta::milliseconds(MAX_DISORDER_MS as i64))
        .context("invalid start date")
}

fn params_text(rows: u64, keys: u64, seed: u64, shape: Shape) -> String {
    let shape_line = match shape {
        // Steady data predates shapes; its parameters stay as they were so
        // that copies made before are still reused.
        Shape::Steady => String::new(),
        Shape::Sessions => {
            format!("shape sessions {SESSION_ACTIVE_MS} ms on, {SESSION_IDLE_MS} ms off\n")
        }
        Shape::Spread => format!("shape spread {SPREAD_MS_PER_ROW} ms per row\n"),
        Shape::Distinct => {
            format!("shape distinct keys, {SPREAD_MS_PER_ROW} ms per row\n")
        }
    };
    format!("format {FORMAT_VERSION}\nrows {rows}\nkeys {keys}\nseed {seed:#018x}\n{shape_line}")
}

/// Prepares `root/tumble-r{rows}-k{keys}-s{seed}/` with the CSV and the
/// script, generating the CSV unless a complete copy is already there.
pub fn prepare(root: &Path, rows: u64, keys: u64) -> Result<Dataset> {
    prepare_seeded(root, rows, keys, SEED)
}

/// `prepare` with another seed: a second, independent stream.
pub fn prepare_seeded(root: &Path, rows: u64, keys: u64, seed: u64) -> Result<Dataset> {
    prepare_shaped(root, rows, keys, seed, Shape::Steady)
}

/// `prepare` for data of any shape: steady data goes to
/// `root/tumble-…/`, data in sessions to `root/session-…/`.
pub fn prepare_shaped(
    root: &Path,
    rows: u64,
    keys: u64,
    seed: u64,
    shape: Shape,
) -> Result<Dataset> {
    let prefix = match shape {
        Shape::Steady => "tumble",
        Shape::Sessions => "session",
        Shape::Spread => "spread",
        Shape::Distinct => "distinct",
    };
    let dir = root.join(format!("{prefix}-r{rows}-k{keys}-s{seed:016x}"));
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let csv = dir.join(CSV_NAME);
    let sql = dir.join(SQL_NAME);
    let params_path = dir.join(PARAMS_NAME);
    let params = params_text(rows, keys, seed, shape);

    let reused = match existing_bytes(&params_path, &params, &csv) {
        Some(_) => true,
        None => {
            // The marker goes first so that an interrupted generation is
            // never taken for a complete one.
            let _ = fs::remove_file(&params_path);
            let _ = fs::remove_file(dir.join(JSON_NAME));
            let bytes = generate(&csv, rows, keys, seed, shape)?;
            fs::write(&params_path, format!("{params}bytes {bytes}\n"))
                .with_context(|| format!("cannot write {}", params_path.display()))?;
            false
        }
    };
    fs::write(&sql, format!("{BIDS_TABLE}{TUMBLE_SQL}"))
        .with_context(|| format!("cannot write {}", sql.display()))?;
    let bytes = fs::metadata(&csv)
        .with_context(|| format!("cannot read {}", csv.display()))?
        .len();
    Ok(Dataset {
        dir,
        csv,
        sql,
        bytes,
        reused,
    })
}

/// The dataset's rows as JSON lines (`{"key": …, "ts": "…", "price": …}`,
/// the timestamp in the CSV's SQL format), written next to the CSV unless
/// a complete copy is there; returns its path.
pub fn json_lines(data: &Dataset) -> Result<PathBuf> {
    let json = data.dir.join(JSON_NAME);
    if json.exists() {
        return Ok(json);
    }
    let partial = json.with_extension("json.partial");
    let text = fs::read_to_string(&data.csv)
        .with_context(|| format!("cannot read {}", data.csv.display()))?;
    let file = fs::File::create(&partial)
        .with_context(|| format!("cannot create {}", partial.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let write_err = || format!("cannot write {}", partial.display());
    for line in text.lines() {
        let mut fields = line.splitn(3, ',');
        let (Some(key), Some(ts), Some(price)) = (fields.next(), fields.next(), fields.next())
        else {
            anyhow::bail!(
                "{}: a line without three fields: {line}",
                data.csv.display()
            );
        };
        writeln!(out, r#"{{"key":"{key}","ts":"{ts}","price":{price}}}"#)
            .with_context(write_err)?;
    }
    out.flush().with_context(write_err)?;
    drop(out);
    // Renamed whole, so that a copy found is complete.
    fs::rename(&partial, &json)
        .with_context(|| format!("cannot rename {} to {}", partial.display(), json.display()))?;
    Ok(json)
}

/// The size of a complete earlier copy made with the same parameters.
fn existing_bytes(params_path: &Path, params: &str, csv: &Path) -> Option<u64> {
    let recorded = fs::read_to_string(params_path).ok()?;
    let bytes: u64 = recorded
        .strip_prefix(params)?
        .strip_prefix("bytes ")?
        .trim()
        .parse()
        .ok()?;
    (fs::metadata(csv).ok()?.len() == bytes).then_some(bytes)
}

/// Writes the CSV (through a temporary file renamed at the end) and returns
/// its size in bytes.
fn generate(csv: &Path, rows: u64, keys: u64, seed: u64, shape: Shape) -> Result<u64> {
    let partial = csv.with_extension("csv.partial");
    let file = fs::File::create(&partial)
        .with_context(|| format!("cannot create {}", partial.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let write_err = || format!("cannot write {}", partial.display());
    write_rows(&mut out, rows, keys, seed, shape).with_context(write_err)?;
    let file = out
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(write_err)?;
    file.sync_all().with_context(write_err)?;
    let bytes = file.metadata().with_context(write_err)?.len();
    drop(file);
    fs::rename(&partial, csv)
        .with_context(|| format!("cannot rename {} to {}", partial.display(), csv.display()))?;
    Ok(bytes)
}

/// Writes `rows` CSV lines `key,ts,price`.
fn write_rows(out: &mut impl Write, rows: u64, keys: u64, seed: u64, shape: Shape) -> Result<()> {
    let mut rng = SplitMix64(seed);
    let start = first_ideal_time()?;
    // Ideal time advances 0, 1 or 2 ms per row: 1 ms on average (0 to
    // 20 ms, 10 on average, for the spread shape).
    let step = match shape {
        Shape::Spread | Shape::Distinct => 2 * SPREAD_MS_PER_ROW + 1,
        Shape::Steady | Shape::Sessions => 3,
    };
    let mut ideal_ms: u64 = 0;
    for row in 0..rows {
        ideal_ms += rng.below(step);
        let key = match shape {
            Shape::Steady | Shape::Spread => rng.below(keys),
            Shape::Sessions => bidding_key(&mut rng, keys, ideal_ms),
            Shape::Distinct => row,
        };
        let delay = rng.below(MAX_DISORDER_MS + 1);
        let cents = 100 + rng.below(99_901); // 1.00 ..= 1000.00
        let ts = start + TimeDelta::milliseconds(ideal_ms as i64 - delay as i64);
        writeln!(
            out,
            "k{key},{},{}.{:02}",
            ts.format(TS_FORMAT),
            cents / 100,
            cents % 100
        )?;
    }
    Ok(())
}

/// Whether `key` bids at `ideal_ms` in the `Sessions` shape. The keys'
/// cycles start `cycle / keys` apart, so with two keys or more some key
/// always bids.
fn is_bidding(key: u64, keys: u64, ideal_ms: u64) -> bool {
    let cycle = SESSION_ACTIVE_MS + SESSION_IDLE_MS;
    let offset = key * cycle / keys;
    (ideal_ms + offset) % cycle < SESSION_ACTIVE_MS
}

/// A key drawn uniformly from those bidding at `ideal_ms`, by drawing
/// from all keys until one bids (about two draws, as half of them do).
/// A lone key has no one to hand over to, so it bids all the time.
fn bidding_key(rng: &mut SplitMix64, keys: u64, ideal_ms: u64) -> u64 {
    if keys < 2 {
        return 0;
    }
    loop {
        let key = rng.below(keys);
        if is_bidding(key, keys, ideal_ms) {
            return key;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The timestamps (ms from the first ideal time) of each key.
    fn times_per_key(csv: &str) -> BTreeMap<String, Vec<i64>> {
        let start = first_ideal_time().expect("valid start");
        let mut times: BTreeMap<String, Vec<i64>> = BTreeMap::new();
        for line in csv.lines() {
            let mut fields = line.split(',');
            let key = fields.next().expect("key").to_string();
            let ts = NaiveDateTime::parse_from_str(fields.next().expect("ts"), TS_FORMAT)
                .expect("timestamp");
            times
                .entry(key)
                .or_default()
                .push((ts - start).num_milliseconds());
        }
        times
    }

    fn generated(rows: u64, keys: u64, shape: Shape) -> Result<String> {
        let mut out = Vec::new();
        write_rows(&mut out, rows, keys, SEED, shape)?;
        Ok(String::from_utf8(out)?)
    }

    #[test]
    fn same_seed_same_rows() -> Result<()> {
        for shape in [
            Shape::Steady,
            Shape::Sessions,
            Shape::Spread,
            Shape::Distinct,
        ] {
            assert_eq!(generated(1_000, 10, shape)?, generated(1_000, 10, shape)?);
        }
        Ok(())
    }

    #[test]
    fn session_keys_fall_silent_for_longer_than_a_gap_and_disorder() -> Result<()> {
        // 500 s of event time: each key bids in four or five stretches.
        let gap_ms = 30_000;
        let csv = generated(500_000, 20, Shape::Sessions)?;
        let times = times_per_key(&csv);
        assert_eq!(times.len(), 20, "every key bids");
        for (key, mut ts) in times {
            ts.sort_unstable();
            let silences = ts
                .windows(2)
                .map(|w| w[1] - w[0])
                .filter(|d| *d >= gap_ms)
                .collect::<Vec<_>>();
            assert!(silences.len() >= 3, "{key}: {} silences", silences.len());
            for d in silences {
                assert!(
                    d > gap_ms + MAX_DISORDER_MS as i64,
                    "{key}: a silence of {d} ms would close a session only sometimes"
                );
            }
        }
        Ok(())
    }

    #[test]
    fn distinct_rows_each_have_their_own_key() -> Result<()> {
        let csv = generated(10_000, 1, Shape::Distinct)?;
        let times = times_per_key(&csv);
        assert_eq!(times.len(), 10_000);
        assert!(times.values().all(|t| t.len() == 1));
        Ok(())
    }

    #[test]
    fn some_key_always_bids() {
        for keys in [2, 3, 7, 1_000] {
            for ideal_ms in (0..2 * (SESSION_ACTIVE_MS + SESSION_IDLE_MS)).step_by(997) {
                assert!(
                    (0..keys).any(|k| is_bidding(k, keys, ideal_ms)),
                    "{keys} keys at {ideal_ms} ms"
                );
            }
        }
    }

    #[test]
    fn steady_rows_are_unchanged() -> Result<()> {
        // The first rows the steady shape gave before shapes existed, so
        // inputs generated then are still the same data.
        let expected = "\
k42,2024-01-01 00:00:01.555,738.68
k380,2024-01-01 00:00:01.385,345.25
k507,2024-01-01 00:00:00.029,42.88
";
        assert_eq!(generated(3, 1_000, Shape::Steady)?, expected);
        Ok(())
    }
}
