//! The benchmark's input: a deterministic CSV of bids and the SQL script
//! that aggregates it, in a folder named by the parameters and reused when
//! a complete copy with the same parameters is already there.

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
const SQL_NAME: &str = "tumble.sql";
const PARAMS_NAME: &str = "params.txt";

const TUMBLE_SQL: &str = "\
CREATE TABLE bids (key STRING, ts TIMESTAMP(3), price DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
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

fn params_text(rows: u64, keys: u64, seed: u64) -> String {
    format!("format {FORMAT_VERSION}\nrows {rows}\nkeys {keys}\nseed {seed:#018x}\n")
}

/// Prepares `root/tumble-r{rows}-k{keys}-s{seed}/` with the CSV and the
/// script, generating the CSV unless a complete copy is already there.
pub fn prepare(root: &Path, rows: u64, keys: u64) -> Result<Dataset> {
    prepare_seeded(root, rows, keys, SEED)
}

/// `prepare` with another seed: a second, independent stream.
pub fn prepare_seeded(root: &Path, rows: u64, keys: u64, seed: u64) -> Result<Dataset> {
    let dir = root.join(format!("tumble-r{rows}-k{keys}-s{seed:016x}"));
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let csv = dir.join(CSV_NAME);
    let sql = dir.join(SQL_NAME);
    let params_path = dir.join(PARAMS_NAME);
    let params = params_text(rows, keys, seed);

    let reused = match existing_bytes(&params_path, &params, &csv) {
        Some(_) => true,
        None => {
            // The marker goes first so that an interrupted generation is
            // never taken for a complete one.
            let _ = fs::remove_file(&params_path);
            let bytes = generate(&csv, rows, keys, seed)?;
            fs::write(&params_path, format!("{params}bytes {bytes}\n"))
                .with_context(|| format!("cannot write {}", params_path.display()))?;
            false
        }
    };
    fs::write(&sql, TUMBLE_SQL).with_context(|| format!("cannot write {}", sql.display()))?;
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
fn generate(csv: &Path, rows: u64, keys: u64, seed: u64) -> Result<u64> {
    let partial = csv.with_extension("csv.partial");
    let file = fs::File::create(&partial)
        .with_context(|| format!("cannot create {}", partial.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut rng = SplitMix64(seed);
    let start = first_ideal_time()?;
    // Ideal time advances 0, 1 or 2 ms per row: 1 ms on average.
    let mut ideal_ms: i64 = 0;
    let write_err = || format!("cannot write {}", partial.display());
    for _ in 0..rows {
        ideal_ms += rng.below(3) as i64;
        let key = rng.below(keys);
        let delay = rng.below(MAX_DISORDER_MS + 1) as i64;
        let cents = 100 + rng.below(99_901); // 1.00 ..= 1000.00
        let ts = start + TimeDelta::milliseconds(ideal_ms - delay);
        writeln!(
            out,
            "k{key},{},{}.{:02}",
            ts.format(TS_FORMAT),
            cents / 100,
            cents % 100
        )
        .with_context(write_err)?;
    }
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
