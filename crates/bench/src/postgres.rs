//! The jdbc sink's benchmark: 100,000 windows (1,000 keys x 100 one-second
//! windows by default) upserted into a PostgreSQL table, against the same
//! query into a blackhole table in the same run, and a check that the
//! table ends with one row per window and key.

use crate::driver::{own_paths, tidemark_binary, warn_if_debug_build};
use crate::measure::{measure, summary_value};
use crate::numbers::{median, per_second};
use anyhow::{bail, Context, Result};
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct PostgresArgs {
    /// The server (default: $TIDEMARK_TEST_POSTGRES, which `.ci/postgres
    /// start` prints). The table `tidemark_bench_windows` is replaced.
    #[arg(long)]
    url: Option<String>,
    /// Keys: each has a window every second.
    #[arg(long, default_value_t = 1_000)]
    keys: u64,
    /// One-second windows per key.
    #[arg(long, default_value_t = 100)]
    windows: u64,
    /// Runs of each query; medians are reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// The tidemark binary (default: the release build next to this
    /// program, built first).
    #[arg(long)]
    tidemark: Option<PathBuf>,
}

const TABLE: &str = "tidemark_bench_windows";

pub fn postgres(args: &PostgresArgs) -> Result<ExitCode> {
    warn_if_debug_build();
    let Some(url) = args
        .url
        .clone()
        .or_else(|| std::env::var("TIDEMARK_TEST_POSTGRES").ok())
    else {
        bail!(
            "no server: give --url or set TIDEMARK_TEST_POSTGRES (`.ci/postgres start` prints one)"
        );
    };
    let (_, target_dir) = own_paths()?;
    let tidemark = tidemark_binary(args.tidemark.as_deref(), &target_dir)?;
    let dir = target_dir.join("bench-data").join("postgres");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let data = dir.join(format!("k{}-w{}.csv", args.keys, args.windows));
    if !data.exists() {
        write_data(&data, args.keys, args.windows)?;
    }
    let mut db = postgres::Client::connect(&url, postgres::NoTls)
        .with_context(|| "cannot connect to the server".to_string())?;
    for sink in ["jdbc", "blackhole"] {
        std::fs::write(dir.join(format!("{sink}.sql")), script(sink, &url, &data))
            .context("cannot write the job")?;
    }
    let windows = args.keys * args.windows;
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..args.runs {
        for (i, sink) in ["blackhole", "jdbc"].into_iter().enumerate() {
            db.batch_execute(&format!(
                "DROP TABLE IF EXISTS {TABLE};
                 CREATE TABLE {TABLE} (k text, window_start timestamp, n bigint, total bigint,
                                       PRIMARY KEY (k, window_start));"
            ))
            .context("cannot create the table")?;
            let job = dir.join(format!("{sink}.sql"));
            let run = measure(tidemark.as_os_str(), &[OsStr::new("run"), job.as_os_str()])?;
            let emitted = summary_value(&run.stderr, "rows emitted:").unwrap_or("?");
            if emitted != windows.to_string() {
                bail!("{sink}: {emitted} rows emitted, {windows} expected");
            }
            times[i].push(run.wall_s);
        }
        let rows: i64 = db
            .query_one(
                &format!("SELECT count(DISTINCT (k, window_start)) FROM {TABLE}"),
                &[],
            )
            .context("cannot count the rows")?
            .get(0);
        if rows as u64 != windows {
            bail!("the table holds {rows} windows and keys, {windows} expected");
        }
    }
    let (blackhole, jdbc) = (median(&times[0]), median(&times[1]));
    println!(
        "{windows} windows ({} keys x {} one-second windows), medians of {} runs:",
        args.keys, args.windows, args.runs
    );
    println!("  into blackhole:   {blackhole:.3} s");
    println!(
        "  into PostgreSQL:  {jdbc:.3} s ({} windows/s, {:.1}x the blackhole run)",
        per_second(windows, jdbc),
        jdbc / blackhole
    );
    println!("  the table holds one row per window and key: {windows}");
    Ok(ExitCode::SUCCESS)
}

/// Two rows per key and second, in time order within a second of disorder.
fn write_data(path: &Path, keys: u64, windows: u64) -> Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    for second in 0..windows {
        for key in 0..keys {
            for half in 0..2 {
                let ms = second * 1000 + (key * 7 + half * 500) % 1000;
                writeln!(out, "{ms},k{key},{}", key % 100 + half).context("cannot write data")?;
            }
        }
    }
    out.flush().context("cannot write data")?;
    Ok(())
}

fn script(sink: &str, url: &str, data: &Path) -> String {
    format!(
        "CREATE TABLE r (ms BIGINT, k STRING, v INT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
           WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
         WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'csv');
         CREATE TABLE t (k STRING, window_start TIMESTAMP(3), n BIGINT, total BIGINT,
           PRIMARY KEY (k, window_start) NOT ENFORCED)
         WITH ('connector' = '{sink}', 'url' = '{url}', 'table-name' = '{TABLE}');
         INSERT INTO t SELECT k, window_start, COUNT(*), SUM(CAST(v AS BIGINT))
         FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '1' SECOND))
         GROUP BY k, window_start, window_end;\n",
        data.display()
    )
}
