//! The `keys` benchmark: what a key costs. The same queries over rows
//! that each have a key of their own (a job partitioned by user or device
//! id) and over as many rows sharing a thousand keys, each timed against
//! TUMBLE on the same input; and the OVER aggregation's peak memory at
//! full and half the number of distinct keys, with and without
//! `tidemark.state.ttl`, which must keep it flat.

use crate::data::{self, Shape};
use crate::driver::{
    own_paths, print_setup, run_commands, tidemark_binary, warn_if_debug_build, Run, Series,
};
use crate::numbers::group;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The `keys` benchmark's size.
#[derive(clap::Args)]
pub struct KeysArgs {
    /// Rows that each have a key of their own (and as many rows over
    /// --keys keys).
    #[arg(long, default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(2..))]
    pub rows: u64,
    /// Distinct keys of the shared-keys input.
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub keys: u64,
    /// Runs of each query; the medians are reported.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// The tidemark binary to run.
    #[arg(long, value_name = "PATH")]
    pub tidemark: Option<PathBuf>,
}

/// The table every query reads, watermark 2 s behind, from `csv`.
fn table(csv: &Path) -> String {
    format!(
        "CREATE TABLE bids (key STRING, ts TIMESTAMP(3), price DOUBLE,\n  \
         WATERMARK FOR ts AS ts - INTERVAL '2' SECOND\n\
         ) WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'csv');\n",
        csv.display()
    )
}

/// The state ttl the OVER aggregation runs with to keep its memory flat:
/// long against the 2 s of disorder, short against the input's hours.
const TTL: &str = "1 min";

/// The queries, each into a blackhole: (name, sink columns, query).
const QUERIES: [(&str, &str, &str); 5] = [
    (
        "TUMBLE 1 min",
        "key STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s DOUBLE, m DOUBLE",
        "SELECT key, window_start, window_end, COUNT(*), SUM(price), MAX(price)\n\
         FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE))\n\
         GROUP BY window_start, window_end, key",
    ),
    (
        "SESSION 30 s",
        "key STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s DOUBLE, m DOUBLE",
        "SELECT key, window_start, window_end, COUNT(*), SUM(price), MAX(price)\n\
         FROM TABLE(SESSION(TABLE bids PARTITION BY key, DESCRIPTOR(ts), INTERVAL '30' SECOND))\n\
         GROUP BY window_start, window_end, key",
    ),
    (
        "OVER ROWS 2",
        "key STRING, ts TIMESTAMP(3), s DOUBLE, m DOUBLE",
        "SELECT key, ts, SUM(price) OVER w, MAX(price) OVER w FROM bids\n\
         WINDOW w AS (PARTITION BY key ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
    ),
    (
        "OVER RANGE 10 s",
        "key STRING, ts TIMESTAMP(3), s DOUBLE, m DOUBLE",
        "SELECT key, ts, SUM(price) OVER w, MAX(price) OVER w FROM bids\n\
         WINDOW w AS (PARTITION BY key ORDER BY ts\n  \
         RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW)",
    ),
    (
        "OVER ROWS 2, ttl",
        "key STRING, ts TIMESTAMP(3), s DOUBLE, m DOUBLE",
        "SELECT key, ts, SUM(price) OVER w, MAX(price) OVER w FROM bids\n\
         WINDOW w AS (PARTITION BY key ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
    ),
];

/// The series' names: per input, one per query.
const NAMES: [[&str; 5]; 3] = [
    [
        "TUMBLE 1 min, distinct keys",
        "SESSION 30 s, distinct keys",
        "OVER ROWS 2, distinct keys",
        "OVER RANGE 10 s, distinct keys",
        "OVER ROWS 2 + ttl, distinct keys",
    ],
    [
        "TUMBLE 1 min, half the keys",
        "SESSION 30 s, half the keys",
        "OVER ROWS 2, half the keys",
        "OVER RANGE 10 s, half the keys",
        "OVER ROWS 2 + ttl, half the keys",
    ],
    [
        "TUMBLE 1 min, shared keys",
        "SESSION 30 s, shared keys",
        "OVER ROWS 2, shared keys",
        "OVER RANGE 10 s, shared keys",
        "OVER ROWS 2 + ttl, shared keys",
    ],
];

/// The script of query `i` over `csv`, written into `dir`.
fn script(dir: &Path, csv: &Path, i: usize) -> Result<PathBuf> {
    let (_, columns, query) = QUERIES[i];
    let ttl = if i == 4 {
        format!("SET 'tidemark.state.ttl' = '{TTL}';\n")
    } else {
        String::new()
    };
    let sql = format!(
        "{}{ttl}CREATE TABLE out ({columns}) WITH ('connector' = 'blackhole');\n\
         INSERT INTO out {query};\n",
        table(csv)
    );
    let path = dir.join(format!("keys-{i}.sql"));
    std::fs::write(&path, sql).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

pub fn keys(args: &KeysArgs) -> Result<ExitCode> {
    let (_, target_dir) = own_paths()?;
    warn_if_debug_build();
    let tidemark = tidemark_binary(args.tidemark.as_deref(), &target_dir)?;
    let root = target_dir.join("bench-data");
    println!(
        "preparing {} rows with a key each, {} with one each, {} rows over {} keys under {}",
        group(args.rows),
        group(args.rows / 2),
        group(args.rows),
        group(args.keys),
        root.display()
    );
    let distinct = data::prepare_shaped(&root, args.rows, args.rows, data::SEED, Shape::Distinct)?;
    let half_rows = args.rows / 2;
    let half = data::prepare_shaped(&root, half_rows, half_rows, data::SEED, Shape::Distinct)?;
    let shared = data::prepare_shaped(&root, args.rows, args.keys, data::SEED, Shape::Spread)?;
    for input in [&distinct, &half, &shared] {
        print_setup(input, &tidemark);
    }
    let mut named = Vec::new();
    for (set, (input, rows)) in [
        (&distinct, args.rows),
        (&half, half_rows),
        (&shared, args.rows),
    ]
    .into_iter()
    .enumerate()
    {
        for (i, name) in NAMES[set].iter().enumerate() {
            let script = script(&input.dir, &input.csv, i)?;
            named.push(Run::tidemark(name, &tidemark, &script, rows));
        }
    }
    let series = run_commands(&named, args.runs, &|| Ok(()))?;
    let sets: Vec<&[Series]> = series.chunks(QUERIES.len()).collect();
    for set in [sets[0], sets[2]] {
        let (tumble, rest) = set.split_first().context("no TUMBLE run")?;
        for s in rest {
            println!(
                "{}: {:.2}x the TUMBLE time",
                s.name(),
                s.median_wall_s() / tumble.median_wall_s()
            );
        }
    }
    for (i, (name, _, _)) in QUERIES.iter().enumerate().skip(1) {
        println!(
            "{name}: distinct keys {:.2}x the time of shared keys, {:.2}x half the distinct keys",
            sets[0][i].median_wall_s() / sets[2][i].median_wall_s(),
            sets[0][i].median_wall_s() / sets[1][i].median_wall_s(),
        );
    }
    for i in [2, 4] {
        println!(
            "{}: peak memory {:.1} MiB at {} distinct keys, {:.1} MiB at half ({:.2}x)",
            QUERIES[i].0,
            sets[0][i].peak_rss_mib(),
            group(args.rows),
            sets[1][i].peak_rss_mib(),
            sets[0][i].peak_rss_mib() / sets[1][i].peak_rss_mib()
        );
    }
    Ok(ExitCode::SUCCESS)
}
