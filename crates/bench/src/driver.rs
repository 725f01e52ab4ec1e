//! The `tumble` benchmark: prepares the data, finds (or builds) the
//! tidemark binary, runs the hand-written program and `tidemark run` alternately,
//! and prints the result table and the output-row check.

use crate::data::{self, Dataset};
use crate::measure::{measure, summary_value, Measurement};
use crate::numbers::{group, median, per_second};
use crate::table;
use anyhow::{bail, Context, Result};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// What every benchmark takes: the input's size, how many runs, and the
/// binary to measure.
#[derive(clap::Args)]
pub struct TumbleArgs {
    /// Rows to generate.
    #[arg(long, default_value_t = 5_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub rows: u64,
    /// Distinct keys (k0 .. k{K-1}).
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub keys: u64,
    /// Runs of each program; the medians are reported.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// The tidemark binary to run (default: `release/tidemark` in this
    /// binary's target folder, first brought up to date with `cargo
    /// build --release -p tidemark`).
    #[arg(long, value_name = "PATH")]
    pub tidemark: Option<PathBuf>,
}

/// The window join benchmark's input: two streams of equal size.
#[derive(clap::Args)]
pub struct JoinArgs {
    /// Rows of each of the two streams.
    #[arg(long, default_value_t = 2_500_000, value_parser = clap::value_parser!(u64).range(2..))]
    pub rows_per_side: u64,
    /// Distinct keys of each stream: with 100,000 keys a 10 s window holds
    /// about 10,000 rows per side and 1,000 matching pairs.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub keys: u64,
    /// Runs of each query; the medians are reported.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// The tidemark binary to run.
    #[arg(long, value_name = "PATH")]
    pub tidemark: Option<PathBuf>,
}

/// The Nexmark benchmark's size.
#[derive(clap::Args)]
pub struct NexmarkArgs {
    /// Events generated (all three kinds).
    #[arg(long, default_value_t = 10_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub events: u64,
    /// Runs of each query; the medians are reported.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// The tidemark binary to run.
    #[arg(long, value_name = "PATH")]
    pub tidemark: Option<PathBuf>,
}

/// Runs `scripts` (name, script, input rows) with `tidemark run`, in turn,
/// `args.runs` times, and prints each run and the table of medians.
pub fn run_series(
    tidemark: &Path,
    scripts: &[(&'static str, PathBuf, u64)],
    args: &TumbleArgs,
) -> Result<Vec<Series>> {
    run_series_clearing(tidemark, scripts, args, &|| Ok(()))
}

/// [`run_series`], calling `clear` after each run (to remove what it
/// wrote).
fn run_series_clearing(
    tidemark: &Path,
    scripts: &[(&'static str, PathBuf, u64)],
    args: &TumbleArgs,
    clear: &dyn Fn() -> std::io::Result<()>,
) -> Result<Vec<Series>> {
    let commands: Vec<Run> = scripts
        .iter()
        .map(|(name, script, rows)| Run::tidemark(name, tidemark, script, *rows))
        .collect();
    run_commands(&commands, args.runs, clear)
}

/// One program a benchmark times: its name, its command line and the rows
/// it reads. It must print `rows emitted: N` on stderr, as `tidemark run`
/// does.
pub struct Run {
    pub name: &'static str,
    pub command: Vec<std::ffi::OsString>,
    pub rows: u64,
}

impl Run {
    /// `tidemark run script`.
    pub fn tidemark(name: &'static str, tidemark: &Path, script: &Path, rows: u64) -> Self {
        Run {
            name,
            command: vec![tidemark.into(), "run".into(), script.into()],
            rows,
        }
    }
}

/// Runs `commands` in turn, `runs` times, calling `clear` after each, and
/// prints each run and the table of medians.
pub fn run_commands(
    commands: &[Run],
    runs: u32,
    clear: &dyn Fn() -> std::io::Result<()>,
) -> Result<Vec<Series>> {
    let mut series: Vec<Series> = commands
        .iter()
        .map(|c| Series::new(c.name).with_rows(c.rows))
        .collect();
    for run in 1..=runs {
        for (s, c) in series.iter_mut().zip(commands) {
            let Some((program, rest)) = c.command.split_first() else {
                bail!("{}: no command", c.name);
            };
            let rest: Vec<&OsStr> = rest.iter().map(|a| a.as_os_str()).collect();
            let m = measure(program, &rest)?;
            s.push(&m)?;
            clear().context("cannot remove what the run wrote")?;
            println!(
                "run {run}/{runs}: {} {:.3} s, {:.1} MiB",
                s.name,
                m.wall_s,
                m.max_rss_kib as f64 / 1024.0
            );
        }
    }
    println!();
    let refs: Vec<&Series> = series.iter().collect();
    print_table(&refs);
    Ok(series)
}

/// The runs of one program.
pub struct Series {
    name: &'static str,
    /// Input rows per run.
    rows: u64,
    wall_s: Vec<f64>,
    max_rss_kib: Vec<u64>,
    rows_emitted: Vec<u64>,
    /// The elapsed time the program reports itself, where it does.
    reported_s: Vec<f64>,
}

impl Series {
    fn new(name: &'static str) -> Self {
        Series {
            name,
            rows: 0,
            wall_s: Vec::new(),
            max_rss_kib: Vec::new(),
            rows_emitted: Vec::new(),
            reported_s: Vec::new(),
        }
    }

    fn with_rows(mut self, rows: u64) -> Self {
        self.rows = rows;
        self
    }

    fn push(&mut self, m: &Measurement) -> Result<()> {
        let emitted = summary_value(&m.stderr, "rows emitted:").with_context(|| {
            format!(
                "{} printed no 'rows emitted' count:\n{}",
                self.name,
                m.stderr.trim_end()
            )
        })?;
        self.rows_emitted
            .push(emitted.parse().context("bad 'rows emitted' count")?);
        if let Some(elapsed) = summary_value(&m.stderr, "elapsed:") {
            let secs = elapsed.trim_end_matches('s').trim();
            self.reported_s
                .push(secs.parse().context("bad 'elapsed' time")?);
        }
        self.wall_s.push(m.wall_s);
        self.max_rss_kib.push(m.max_rss_kib);
        Ok(())
    }

    pub fn median_wall_s(&self) -> f64 {
        median(&self.wall_s)
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The rows the first run emitted (every run must emit as many).
    pub fn rows_emitted(&self) -> Option<u64> {
        self.rows_emitted.first().copied()
    }

    pub fn peak_rss_mib(&self) -> f64 {
        self.max_rss_kib.iter().copied().max().unwrap_or(0) as f64 / 1024.0
    }
}

pub fn tumble(args: &TumbleArgs) -> Result<ExitCode> {
    let (exe, tidemark, data) = setup(args)?;

    let mut baseline = Series::new("baseline").with_rows(args.rows);
    let mut engine = Series::new("tidemark").with_rows(args.rows);
    let csv = data.csv.as_os_str();
    let sql = data.sql.as_os_str();
    for run in 1..=args.runs {
        let b = measure(exe.as_os_str(), &[OsStr::new("baseline"), csv])?;
        baseline.push(&b)?;
        let t = measure(tidemark.as_os_str(), &[OsStr::new("run"), sql])?;
        engine.push(&t)?;
        println!(
            "run {run}/{}: baseline {:.3} s, {:.1} MiB | tidemark {:.3} s ({} reported), {:.1} MiB",
            args.runs,
            b.wall_s,
            b.max_rss_kib as f64 / 1024.0,
            t.wall_s,
            engine
                .reported_s
                .last()
                .map_or("no time".into(), |s| format!("{s:.3} s")),
            t.max_rss_kib as f64 / 1024.0,
        );
    }

    println!();
    print_table(&[&baseline, &engine]);
    let ratio = baseline.median_wall_s() / engine.median_wall_s();
    println!("tidemark / baseline throughput: {:.0} %", ratio * 100.0);
    check_rows(&baseline, &engine);
    Ok(ExitCode::SUCCESS)
}

/// Finds the programs and prepares the input: the bench's own executable
/// (which also runs the hand-written program), the tidemark binary, the data.
pub fn setup(args: &TumbleArgs) -> Result<(PathBuf, PathBuf, Dataset)> {
    setup_shaped(args, data::Shape::Steady)
}

/// [`setup`] for input of another shape.
fn setup_shaped(args: &TumbleArgs, shape: data::Shape) -> Result<(PathBuf, PathBuf, Dataset)> {
    let (exe, target_dir) = own_paths()?;
    warn_if_debug_build();
    let tidemark = tidemark_binary(args.tidemark.as_deref(), &target_dir)?;
    println!(
        "preparing {} rows, {} keys under {}",
        group(args.rows),
        group(args.keys),
        target_dir.join("bench-data").display()
    );
    let data = data::prepare_shaped(
        &target_dir.join("bench-data"),
        args.rows,
        args.keys,
        data::SEED,
        shape,
    )?;
    print_setup(&data, &tidemark);
    Ok((exe, tidemark, data))
}

/// This executable (which also runs the hand-written program) and the target
/// folder it was built in, where the data and the tidemark binary go.
pub fn own_paths() -> Result<(PathBuf, PathBuf)> {
    let exe = std::env::current_exe().context("cannot locate the running executable")?;
    let target_dir = exe
        .parent()
        .and_then(Path::parent)
        .with_context(|| format!("cannot find the target folder of {}", exe.display()))?
        .to_path_buf();
    Ok((exe, target_dir))
}

pub fn warn_if_debug_build() {
    if cfg!(debug_assertions) {
        eprintln!("warning: this is a debug build, so the hand-written program is unoptimized; use `cargo run --release`");
    }
}

/// The tidemark binary given on the command line, or the one in the
/// target folder, brought up to date first.
pub fn tidemark_binary(given: Option<&Path>, target_dir: &Path) -> Result<PathBuf> {
    match given {
        Some(path) if path.is_file() => Ok(path.to_path_buf()),
        Some(path) => bail!("no tidemark binary at {}", path.display()),
        None => locate_tidemark(target_dir),
    }
}

/// The window shapes `windows` compares, with the TVF call of each.
const WINDOW_QUERIES: [(&str, &str); 4] = [
    (
        "TUMBLE 1 min",
        "TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)",
    ),
    (
        "HOP 10 min / 1 min",
        "HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '10' MINUTE)",
    ),
    (
        "CUMULATE 1 min / 10 min",
        "CUMULATE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '10' MINUTE)",
    ),
    (
        "HOP 60 min / 1 min",
        "HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '60' MINUTE)",
    ),
];

/// The `windows` benchmark: the same aggregation over TUMBLE, HOP and
/// CUMULATE windows on the same input, each timed against TUMBLE's.
pub fn windows(args: &TumbleArgs) -> Result<ExitCode> {
    let (_, tidemark, data) = setup(args)?;
    let mut scripts = Vec::new();
    for (i, (_, tvf)) in WINDOW_QUERIES.iter().enumerate() {
        let script = data.dir.join(format!("windows-{i}.sql"));
        let sql = format!(
            "{}SELECT key, window_start, window_end, COUNT(*), SUM(price), MAX(price)\nFROM TABLE({tvf})\n\
             GROUP BY window_start, window_end, key;\n",
            data::BIDS_TABLE
        );
        std::fs::write(&script, sql)
            .with_context(|| format!("cannot write {}", script.display()))?;
        scripts.push(script);
    }
    let named: Vec<(&'static str, PathBuf, u64)> = WINDOW_QUERIES
        .iter()
        .zip(scripts)
        .map(|((name, _), script)| (*name, script, args.rows))
        .collect();
    let series = run_series(&tidemark, &named, args)?;
    print_ratios(&series, "TUMBLE");
    println!(
        "HOP 60 min / 1 min: {:.2}x the HOP 10 min / 1 min time",
        series[3].median_wall_s() / series[1].median_wall_s()
    );
    Ok(ExitCode::SUCCESS)
}

/// The `over` benchmark: the OVER aggregation the issue names (SUM and MAX
/// over the 10 preceding rows per key) against the TUMBLE aggregation, on
/// the same input in the same run. An OVER aggregation emits a row per
/// input row, so it is also run with its output filtered away (no row
/// passes `m < 0`): that measures the operator, not the printing of 5 M
/// rows.
pub fn over(args: &TumbleArgs) -> Result<ExitCode> {
    let (_, tidemark, data) = setup(args)?;
    let table = data::BIDS_TABLE;
    let over = "SELECT key, ts, price, SUM(price) OVER w AS s, MAX(price) OVER w AS m\nFROM bids\n\
                WINDOW w AS (PARTITION BY key ORDER BY ts ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)";
    let queries = [
        (
            "TUMBLE 1 min",
            "SELECT key, window_start, window_end, COUNT(*), SUM(price), MAX(price)\n\
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE))\n\
             GROUP BY window_start, window_end, key;\n"
                .to_string(),
        ),
        (
            "OVER, output filtered",
            format!("SELECT * FROM (\n{over}\n) WHERE m < 0;\n"),
        ),
        ("OVER, output printed", format!("{over};\n")),
    ];
    let mut scripts = Vec::new();
    for (i, (_, query)) in queries.iter().enumerate() {
        let script = data.dir.join(format!("over-{i}.sql"));
        std::fs::write(&script, format!("{table}{query}"))
            .with_context(|| format!("cannot write {}", script.display()))?;
        scripts.push(script);
    }
    let named: Vec<(&'static str, PathBuf, u64)> = queries
        .iter()
        .zip(scripts)
        .map(|((name, _), script)| (*name, script, args.rows))
        .collect();
    let series = run_series(&tidemark, &named, args)?;
    let tumble = series[0].median_wall_s();
    for s in &series[1..] {
        println!(
            "{}: {:.0} % of the TUMBLE throughput",
            s.name,
            100.0 * tumble / s.median_wall_s()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The `print` benchmark: the same TUMBLE (6 s windows, so about 830,000
/// result rows from 5 M input rows) into a blackhole table, printed on
/// stdout (which the measure sends to /dev/null: the rows are formatted
/// all the same), and written to a CSV and a JSON file table, in turn, in
/// the same run; prints each time as a ratio to the blackhole run's.
pub fn print(args: &TumbleArgs) -> Result<ExitCode> {
    let (_, tidemark, data) = setup(args)?;
    let select = "SELECT key, window_start, window_end, COUNT(*), SUM(price), MAX(price)\n\
                  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '6' SECOND))\n\
                  GROUP BY window_start, window_end, key;\n";
    let columns = "(key STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s DOUBLE, m DOUBLE)";
    let sink = |name: &str, with: &str| {
        format!("CREATE TABLE {name} {columns} WITH ({with});\nINSERT INTO {name} {select}")
    };
    let out = data.dir.join("print-out");
    let file = |format: &str| {
        format!(
            "'connector' = 'filesystem', 'path' = '{}/{format}', 'format' = '{format}'",
            out.display()
        )
    };
    let queries: [(&'static str, String); 4] = [
        (
            "TUMBLE 6 s, blackhole",
            sink("bh", "'connector' = 'blackhole'"),
        ),
        ("TUMBLE 6 s, printed", select.to_string()),
        ("TUMBLE 6 s, CSV file", sink("csv_out", &file("csv"))),
        ("TUMBLE 6 s, JSON file", sink("json_out", &file("json"))),
    ];
    let mut named = Vec::new();
    for (i, (name, query)) in queries.iter().enumerate() {
        let script = data.dir.join(format!("print-{i}.sql"));
        std::fs::write(&script, format!("{}{query}", data::BIDS_TABLE))
            .with_context(|| format!("cannot write {}", script.display()))?;
        named.push((*name, script, args.rows));
    }
    // Each run writes into empty folders.
    let clear = || {
        match std::fs::remove_dir_all(&out) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        std::fs::create_dir_all(out.join("csv"))?;
        std::fs::create_dir_all(out.join("json"))
    };
    clear().with_context(|| format!("cannot clear {}", out.display()))?;
    let series = run_series_clearing(&tidemark, &named, args, &clear)?;
    print_ratios(&series, "blackhole");
    Ok(ExitCode::SUCCESS)
}

/// The `slides` benchmark: windows that share many slices. On the
/// spread input (5 M rows over about 14 hours), HOP windows a day long
/// sliding by a minute (1,440 slices each) and CUMULATE windows growing
/// by a minute up to a day, beside TUMBLE 1 min and HOP 10 min every
/// minute, all into a blackhole, in turn, in the same run. Twice: with
/// aggregates whose merge is exact (COUNT, SUM of a DECIMAL, MIN, MAX,
/// FIRST_VALUE, LAST_VALUE), and with the SUM of a DOUBLE, whose order of
/// additions is kept as Flink's. Prints each time as a ratio to TUMBLE's
/// with the same aggregates.
pub fn slides(args: &TumbleArgs) -> Result<ExitCode> {
    let (_, tidemark, data) = setup_shaped(args, data::Shape::Spread)?;
    let table = "CREATE TABLE bids (key STRING, ts TIMESTAMP(3), price DECIMAL(10, 2),\n  \
                 WATERMARK FOR ts AS ts - INTERVAL '2' SECOND\n\
                 ) WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');\n";
    let windows = [
        (
            "TUMBLE 1 min",
            "TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)",
        ),
        (
            "HOP 10 min every 1 min",
            "HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '10' MINUTE)",
        ),
        (
            "HOP 1 day every 1 min",
            "HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' DAY)",
        ),
        (
            "CUMULATE 1 day by 1 min",
            "CUMULATE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' DAY)",
        ),
    ];
    let exact = (
        "exact",
        "n BIGINT, s DECIMAL(38, 2), lo DECIMAL(10, 2), hi DECIMAL(10, 2), \
         f DECIMAL(10, 2), l DECIMAL(10, 2)",
        "COUNT(*), SUM(price), MIN(price), MAX(price), FIRST_VALUE(price), LAST_VALUE(price)",
    );
    let double = ("DOUBLE sum", "s DOUBLE", "SUM(CAST(price AS DOUBLE))");
    let mut named: Vec<(&'static str, PathBuf, u64)> = Vec::new();
    let names: [[&'static str; 4]; 2] = [
        [
            "TUMBLE 1 min, exact",
            "HOP 10 min every 1 min, exact",
            "HOP 1 day every 1 min, exact",
            "CUMULATE 1 day by 1 min, exact",
        ],
        [
            "TUMBLE 1 min, DOUBLE sum",
            "HOP 10 min every 1 min, DOUBLE sum",
            "HOP 1 day every 1 min, DOUBLE sum",
            "CUMULATE 1 day by 1 min, DOUBLE sum",
        ],
    ];
    for (set, (label, columns, aggregates)) in [exact, double].into_iter().enumerate() {
        for (i, (_, tvf)) in windows.iter().enumerate() {
            let script = data.dir.join(format!("slides-{set}-{i}.sql"));
            let sql = format!(
                "{table}CREATE TABLE out (key STRING, ws TIMESTAMP(3), we TIMESTAMP(3), {columns}) \
                 WITH ('connector' = 'blackhole');\n\
                 INSERT INTO out SELECT key, window_start, window_end, {aggregates}\n\
                 FROM TABLE({tvf})\nGROUP BY window_start, window_end, key;\n"
            );
            std::fs::write(&script, sql)
                .with_context(|| format!("cannot write {} ({label})", script.display()))?;
            named.push((names[set][i], script, args.rows));
        }
    }
    let series = run_series(&tidemark, &named, args)?;
    for set in series.chunks(windows.len()) {
        print_ratios(set, "TUMBLE");
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints `series`' median time as a ratio to `baseline`'s.
pub fn print_ratio(series: &Series, baseline: &Series) {
    println!(
        "{}: {:.2}x the {} time",
        series.name,
        series.median_wall_s() / baseline.median_wall_s(),
        baseline.name
    );
}

/// Prints each series' median time after the first as a ratio to the
/// first's, which is `baseline`.
fn print_ratios(series: &[Series], baseline: &str) {
    let Some((first, rest)) = series.split_first() else {
        return;
    };
    for s in rest {
        println!(
            "{}: {:.2}x the {baseline} time",
            s.name,
            s.median_wall_s() / first.median_wall_s()
        );
    }
}

/// The `report` benchmark: what a run report costs. TUMBLE 1 min, HOP
/// 10 min / 1 min and the OVER aggregation (output filtered away), each
/// without and with `SET 'tidemark.report'`, in turn, on the same input in
/// the same run; prints each with-report time as a ratio to its plain
/// twin, and the size of each report written.
pub fn report(args: &TumbleArgs) -> Result<ExitCode> {
    let (_, tidemark, data) = setup(args)?;
    let table = data::BIDS_TABLE;
    let queries = [
        (
            "TUMBLE 1 min",
            "SELECT key, window_start, window_end, COUNT(*), SUM(price), MAX(price)\n\
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE))\n\
             GROUP BY window_start, window_end, key;\n",
        ),
        (
            "HOP 10 min / 1 min",
            "SELECT key, window_start, window_end, COUNT(*), SUM(price), MAX(price)\n\
             FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '10' MINUTE))\n\
             GROUP BY window_start, window_end, key;\n",
        ),
        (
            "OVER, output filtered",
            "SELECT * FROM (SELECT key, ts, SUM(price) OVER w AS s, MAX(price) OVER w AS m FROM bids\n\
             WINDOW w AS (PARTITION BY key ORDER BY ts ROWS BETWEEN 10 PRECEDING AND CURRENT ROW))\n\
             WHERE m < 0;\n",
        ),
    ];
    let mut named: Vec<(&'static str, PathBuf, u64)> = Vec::new();
    let mut reports = Vec::new();
    let names: [[&'static str; 2]; 3] = [
        ["TUMBLE 1 min", "TUMBLE 1 min, report"],
        ["HOP 10 min / 1 min", "HOP 10 min / 1 min, report"],
        ["OVER, output filtered", "OVER filtered, report"],
    ];
    for (i, (_, query)) in queries.iter().enumerate() {
        let report = data.dir.join(format!("report-{i}.html"));
        for (with, name) in names[i].iter().enumerate() {
            let script = data.dir.join(format!("report-{i}-{with}.sql"));
            let set = if with == 1 {
                format!("SET 'tidemark.report' = '{}';\n", report.display())
            } else {
                String::new()
            };
            std::fs::write(&script, format!("{table}{set}{query}"))
                .with_context(|| format!("cannot write {}", script.display()))?;
            named.push((name, script, args.rows));
        }
        reports.push((queries[i].0, report));
    }
    let series = run_series(&tidemark, &named, args)?;
    for pair in series.chunks(2) {
        println!(
            "{}: {:.2}x the time without",
            pair[1].name,
            pair[1].median_wall_s() / pair[0].median_wall_s()
        );
    }
    for (name, report) in &reports {
        let bytes = std::fs::metadata(report)
            .with_context(|| format!("no report at {}", report.display()))?
            .len();
        println!(
            "{name}: the report is {} bytes ({:.2} MB)",
            group(bytes),
            bytes as f64 / 1e6
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The `join` benchmark: an inner window join of two streams on TUMBLE
/// 10 s by key, at full and at half size, against the TUMBLE 1 min
/// aggregation of the same number of rows (as one stream, 1,000 keys).
pub fn join(args: &JoinArgs) -> Result<ExitCode> {
    let total = args.rows_per_side * 2;
    let tumble_args = TumbleArgs {
        rows: total,
        keys: 1_000,
        runs: args.runs,
        tidemark: args.tidemark.clone(),
    };
    let (_, tidemark, data) = setup(&tumble_args)?;
    let root = data
        .dir
        .parent()
        .context("bench data folder")?
        .to_path_buf();
    let table = |name: &str, csv: &Path| {
        format!(
            "CREATE TABLE {name} (key STRING, ts TIMESTAMP(3), price DOUBLE,\n  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND\n) \
             WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'csv');\n",
            csv.display()
        )
    };
    let join_sql = "SELECT L.key, L.ts, R.ts, L.price, R.price\n\
         FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L\n\
         JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R\n\
         ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.key = R.key;\n";
    let mut scripts = vec![("TUMBLE 1 min, one stream", data.sql.clone(), total)];
    for (name, rows) in [
        ("window join", args.rows_per_side),
        ("window join, half", args.rows_per_side / 2),
    ] {
        let left = data::prepare_seeded(&root, rows, args.keys, data::SEED ^ 1)?;
        let right = data::prepare_seeded(&root, rows, args.keys, data::SEED ^ 2)?;
        let script = left.dir.join(format!("join-{rows}.sql"));
        let sql = format!(
            "{}{}{join_sql}",
            table("l", &left.csv),
            table("r", &right.csv)
        );
        std::fs::write(&script, sql)
            .with_context(|| format!("cannot write {}", script.display()))?;
        scripts.push((name, script, rows * 2));
    }
    let series = run_series(&tidemark, &scripts, &tumble_args)?;
    let (tumble, full, half) = (&series[0], &series[1], &series[2]);
    println!(
        "window join: {} input rows/s, {:.0} % of the TUMBLE throughput, {} rows out",
        group((total as f64 / full.median_wall_s()).round() as u64),
        100.0 * tumble.median_wall_s() / full.median_wall_s(),
        group(full.rows_emitted[0])
    );
    println!(
        "peak memory: {:.1} MiB at {} rows per side, {:.1} MiB at half that",
        full.peak_rss_mib(),
        group(args.rows_per_side),
        half.peak_rss_mib()
    );
    Ok(ExitCode::SUCCESS)
}

/// `release/tidemark` in the target folder. In the source tree it is
/// first brought up to date with `cargo build --release -p tidemark` (a
/// no-op when it already is), so a stale binary is never measured.
fn locate_tidemark(target_dir: &Path) -> Result<PathBuf> {
    let bin = target_dir
        .join("release")
        .join(format!("tidemark{}", std::env::consts::EXE_SUFFIX));
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    if manifest.is_file() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        eprintln!("cargo build --release -p tidemark");
        let status = Command::new(cargo)
            .args(["build", "--release", "-p", "tidemark", "--manifest-path"])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(target_dir)
            .status()
            .context("cannot run cargo")?;
        if !status.success() {
            bail!("cargo build --release -p tidemark failed ({status}); pass --tidemark PATH to use a binary built earlier");
        }
    }
    if !bin.is_file() {
        bail!(
            "no tidemark binary at {}: build it with `cargo build --release -p tidemark`, or pass --tidemark PATH",
            bin.display()
        );
    }
    Ok(bin)
}

/// When `tidemark` was built, as ` (built …)`, or nothing if unknown.
pub fn built_at(tidemark: &Path) -> String {
    std::fs::metadata(tidemark)
        .and_then(|m| m.modified())
        .map(|t| {
            chrono::DateTime::<chrono::Utc>::from(t)
                .format(" (built %Y-%m-%d %H:%M:%S UTC)")
                .to_string()
        })
        .unwrap_or_default()
}

pub fn print_setup(data: &Dataset, tidemark: &Path) {
    println!(
        "data: {} ({:.1} MiB, {})",
        data.dir.display(),
        data.bytes as f64 / (1024.0 * 1024.0),
        if data.reused { "reused" } else { "generated" }
    );
    println!("tidemark: {}{}", tidemark.display(), built_at(tidemark));
}

fn print_table(series: &[&Series]) {
    let header = ["program", "rows", "median wall s", "rows/s", "peak RSS MiB"];
    let rows: Vec<Vec<String>> = series
        .iter()
        .map(|s| {
            let wall = s.median_wall_s();
            vec![
                s.name.to_string(),
                group(s.rows),
                format!("{wall:.3}"),
                per_second(s.rows, wall),
                format!("{:.1}", s.peak_rss_mib()),
            ]
        })
        .collect();
    print!("{}", table::render(&header, &rows));
}

/// Both programs must emit the same rows, every run.
fn check_rows(baseline: &Series, engine: &Series) {
    let mut ok = true;
    for s in [baseline, engine] {
        if s.rows_emitted.windows(2).any(|w| w[0] != w[1]) {
            println!(
                "warning: {} emitted different row counts across runs: {:?}",
                s.name, s.rows_emitted
            );
            ok = false;
        }
    }
    let (b, t) = (baseline.rows_emitted[0], engine.rows_emitted[0]);
    if b != t {
        println!(
            "warning: output rows differ: tidemark {}, baseline {}",
            group(t),
            group(b)
        );
    } else if ok {
        println!("output rows: {} from both (match)", group(t));
    }
}
