//! The soak benchmark: 100 M generated rows through TUMBLE, HOP, SESSION
//! and OVER, each watched as it runs. Window state is freed as the
//! watermark passes, so resident memory must level off however long the
//! input: the report compares the peak of each run's second half with that
//! of its first.

use crate::driver::{own_paths, tidemark_binary, warn_if_debug_build};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct SoakArgs {
    /// Rows each query reads.
    #[arg(long, default_value_t = 100_000_000)]
    rows: u64,
    /// The tidemark binary (default: the release build next to this
    /// program, built first).
    #[arg(long)]
    tidemark: Option<PathBuf>,
}

/// How often resident memory is read.
const SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// The second half's peak may exceed the first half's by this much and
/// still count as level (allocator slack, a larger batch in flight).
const LEVEL: f64 = 1.10;

/// The columns of a window aggregation's results.
const WINDOW_COLUMNS: &str =
    "k BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, total INT";

/// The queries: name, the results' columns and the SELECT, over a table
/// `t` of `k`, `v`, `ts`.
const QUERIES: [(&str, &str, &str); 4] = [
    (
        "TUMBLE 1 min",
        WINDOW_COLUMNS,
        "SELECT k, window_start, window_end, COUNT(*), SUM(v) \
         FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) \
         GROUP BY k, window_start, window_end",
    ),
    (
        "HOP 10 min / 1 min",
        WINDOW_COLUMNS,
        "SELECT k, window_start, window_end, COUNT(*), SUM(v) \
         FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '10' MINUTE)) \
         GROUP BY k, window_start, window_end",
    ),
    (
        "SESSION 30 s",
        WINDOW_COLUMNS,
        "SELECT k, window_start, window_end, COUNT(*), SUM(v) \
         FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '30' SECOND)) \
         GROUP BY k, window_start, window_end",
    ),
    (
        "OVER 10 rows",
        "k BIGINT, ts TIMESTAMP_LTZ(3), v INT, total INT",
        "SELECT k, ts, v, SUM(v) OVER (PARTITION BY k ORDER BY ts \
         ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) FROM t",
    ),
];

/// The job for one query: `rows` generated rows, one per millisecond of
/// event time; 1,000 keys, half of them active in each minute, so that
/// every key is silent for a minute at a time and its sessions close.
fn job(rows: u64, columns: &str, select: &str) -> String {
    format!(
        "CREATE TABLE t (\n\
         \x20 n BIGINT,\n\
         \x20 v INT,\n\
         \x20 k AS n % 500 + 500 * ((n / 60000) % 2),\n\
         \x20 ts AS TO_TIMESTAMP_LTZ(n, 3),\n\
         \x20 WATERMARK FOR ts AS ts - INTERVAL '1' SECOND\n\
         ) WITH (\n\
         \x20 'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '1000000000',\n\
         \x20 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '{rows}',\n\
         \x20 'fields.v.min' = '1', 'fields.v.max' = '100', 'seed' = '7'\n\
         );\n\
         CREATE TABLE out ({columns}) WITH ('connector' = 'blackhole');\n\
         INSERT INTO out {select};\n"
    )
}

/// One watched run: resident memory (KiB) at each sample, and the time.
struct Watched {
    wall: Duration,
    samples: Vec<(Duration, u64)>,
}

impl Watched {
    /// The samples taken within `from..to` of the run (fractions).
    fn between(&self, from: f64, to: f64) -> impl Iterator<Item = u64> + '_ {
        let wall = self.wall.as_secs_f64();
        self.samples
            .iter()
            .filter(move |(t, _)| {
                let at = t.as_secs_f64() / wall;
                at >= from && at < to
            })
            .map(|(_, kib)| *kib)
    }

    /// The largest sample taken within `from..to` of the run.
    fn peak(&self, from: f64, to: f64) -> u64 {
        self.between(from, to).max().unwrap_or(0)
    }
}

/// Resident memory of process `pid`, in KiB.
fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn watch(tidemark: &Path, job: &Path) -> Result<Watched> {
    let started = Instant::now();
    let mut child = Command::new(tidemark)
        .arg("run")
        .arg(job)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {}", tidemark.display()))?;
    let mut samples = Vec::new();
    loop {
        if let Some(status) = child.try_wait()? {
            if !status.success() {
                let mut stderr = String::new();
                if let Some(mut e) = child.stderr.take() {
                    use std::io::Read;
                    let _ = e.read_to_string(&mut stderr);
                }
                bail!(
                    "{} failed ({status}):\n{}",
                    job.display(),
                    stderr.trim_end()
                );
            }
            break;
        }
        if let Some(kib) = resident_kib(child.id()) {
            samples.push((started.elapsed(), kib));
        }
        std::thread::sleep(SAMPLE_EVERY);
    }
    Ok(Watched {
        wall: started.elapsed(),
        samples,
    })
}

pub fn soak(args: &SoakArgs) -> Result<ExitCode> {
    warn_if_debug_build();
    let (_, target_dir) = own_paths()?;
    let tidemark = tidemark_binary(args.tidemark.as_deref(), &target_dir)?;
    let dir = target_dir.join("bench-data").join("soak");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    println!(
        "soak: {} rows per query (1 per ms of event time, 1,000 keys, each idle every other minute), resident memory read every {} ms",
        args.rows,
        SAMPLE_EVERY.as_millis()
    );
    println!();
    println!(
        "{:<20} | {:>8} | {:>10} | {:>9} | {:>9} | {:>9} | {:>9} | {:>12} | level",
        "query", "time s", "rows/s", "RSS 25%", "RSS 50%", "RSS 75%", "RSS end", "2nd/1st half"
    );
    println!("{}", "-".repeat(118));
    let mut all_level = true;
    for (name, columns, select) in QUERIES {
        let path = dir.join(format!(
            "{}.sql",
            name.split(' ').next().unwrap_or("q").to_lowercase()
        ));
        std::fs::write(&path, job(args.rows, columns, select))
            .with_context(|| format!("cannot write {}", path.display()))?;
        let run = watch(&tidemark, &path)?;
        let mib = |kib: u64| kib as f64 / 1024.0;
        let at = |f: f64| mib(run.peak(0.0, f.max(0.01)));
        // The first tenth is start-up (buffers, the first windows).
        let (first, second) = (run.peak(0.1, 0.55), run.peak(0.55, 1.01));
        let ratio = if first == 0 {
            0.0
        } else {
            second as f64 / first as f64
        };
        // Too few samples say nothing: the run was too short.
        let enough = run.between(0.1, 0.55).count() >= 10 && run.between(0.55, 1.01).count() >= 10;
        let level = first > 0 && ratio <= LEVEL;
        all_level &= level || !enough;
        println!(
            "{:<20} | {:>8.1} | {:>10.0} | {:>9.1} | {:>9.1} | {:>9.1} | {:>9.1} | {:>11.2}x | {}",
            name,
            run.wall.as_secs_f64(),
            args.rows as f64 / run.wall.as_secs_f64(),
            at(0.25),
            at(0.50),
            at(0.75),
            at(1.01),
            ratio,
            match (enough, level) {
                (false, _) => "too short to tell",
                (true, true) => "PASS",
                (true, false) => "FAIL",
            }
        );
    }
    println!();
    println!(
        "RSS columns: the largest resident set (MiB) seen up to that point of the run. Level: the second half's peak within {LEVEL:.2}x of the first half's (after the first tenth)."
    );
    if !all_level {
        println!("some query's memory kept growing: see FAIL above");
    }
    Ok(ExitCode::SUCCESS)
}
