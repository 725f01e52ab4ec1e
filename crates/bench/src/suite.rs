//! The `all` command: the whole suite in one run. It prepares every input
//! at full size and at a tenth of it, writes one script per query and
//! size, then runs round after round — each round every query at every
//! size and parallelism once — so that a slow spell of a busy machine
//! falls on all of them alike, and prints the report (see `report`).

use crate::data::{self, Shape};
use crate::driver;
use crate::duckdb;
use crate::measure::{measure, summary_value};
use crate::numbers::{group, median};
use crate::queries::{self, CsvInputs, Input, Query};
use crate::report::{self, Figures, Report};
use anyhow::{Context, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const DEFAULT_ROWS: u64 = 5_000_000;
const DEFAULT_KEYS: u64 = 1_000;
const DEFAULT_EVENTS: u64 = 10_000_000;
const DEFAULT_RUNS: u32 = 3;
/// How much `--quick` shrinks the default sizes.
const QUICK_SHRINK: u64 = 20;
/// Keys of the join's streams, as in the `join` benchmark: whatever the
/// size, a 10 s window then holds about 10,000 rows per side and 1,000
/// matching pairs.
const JOIN_KEYS: u64 = 100_000;

#[derive(clap::Args)]
pub struct AllArgs {
    /// Rows of each CSV input [default: 5,000,000; 250,000 with --quick].
    /// The window join reads two streams of half as many rows each.
    #[arg(long, value_parser = clap::value_parser!(u64).range(100..))]
    pub rows: Option<u64>,
    /// Distinct keys of the aggregation inputs.
    #[arg(long, default_value_t = DEFAULT_KEYS, value_parser = clap::value_parser!(u64).range(1..))]
    pub keys: u64,
    /// Nexmark events of all kinds [default: 10,000,000; 500,000 with --quick].
    #[arg(long, value_parser = clap::value_parser!(u64).range(100..))]
    pub events: Option<u64>,
    /// Rounds; each query's median is reported [default: 3; 1 with --quick].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: Option<u32>,
    /// A smoke run: default sizes shrunk 20x and one round (explicit
    /// --rows, --events and --runs still apply).
    #[arg(long)]
    pub quick: bool,
    /// Passes `--set parallelism.default=N` to every `tidemark run`. A list
    /// (`1,2`) runs each query at each and adds a speed-up column.
    #[arg(long, value_name = "N[,N...]", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
    pub parallelism: Vec<u32>,
    /// The tidemark binary to run.
    #[arg(long, value_name = "PATH")]
    pub tidemark: Option<PathBuf>,
}

/// The sizes a run uses, after `--quick`.
#[derive(Debug, PartialEq)]
struct Sizes {
    rows: u64,
    keys: u64,
    events: u64,
    runs: u32,
}

impl AllArgs {
    fn sizes(&self) -> Sizes {
        let shrink = if self.quick { QUICK_SHRINK } else { 1 };
        Sizes {
            rows: self.rows.unwrap_or(DEFAULT_ROWS / shrink),
            keys: self.keys,
            events: self.events.unwrap_or(DEFAULT_EVENTS / shrink),
            runs: self
                .runs
                .unwrap_or(if self.quick { 1 } else { DEFAULT_RUNS }),
        }
    }

    /// The parallelisms to run tidemark at: None when none was given.
    fn parallelisms(&self) -> Vec<Option<u32>> {
        if self.parallelism.is_empty() {
            vec![None]
        } else {
            let mut seen = Vec::new();
            for &p in &self.parallelism {
                if !seen.contains(&Some(p)) {
                    seen.push(Some(p));
                }
            }
            seen
        }
    }
}

/// One program at one size and parallelism, and its runs so far.
struct Case {
    query: Query,
    parallelism: Option<u32>,
    /// At a tenth of the full input (for the memory check).
    tenth: bool,
    input_rows: u64,
    program: PathBuf,
    args: Vec<OsString>,
    wall_s: Vec<f64>,
    max_rss_kib: Vec<u64>,
    rows_emitted: Vec<u64>,
    /// The first failure; a case that failed is not run again.
    error: Option<String>,
}

impl Case {
    fn label(&self) -> String {
        let mut label = self.query.name().to_string();
        let mut notes = Vec::new();
        if let Some(p) = self.parallelism {
            notes.push(format!("p={p}"));
        }
        if self.tenth {
            notes.push("1/10 size".to_string());
        }
        if !notes.is_empty() {
            label.push_str(&format!(" ({})", notes.join(", ")));
        }
        label
    }

    fn run_once(&mut self) {
        let args: Vec<&std::ffi::OsStr> = self.args.iter().map(OsString::as_os_str).collect();
        let result = measure(self.program.as_os_str(), &args).and_then(|m| {
            let emitted = summary_value(&m.stderr, "rows emitted:")
                .context("no 'rows emitted' in its summary")?
                .parse::<u64>()
                .context("bad 'rows emitted' count")?;
            Ok((m, emitted))
        });
        match result {
            Ok((m, emitted)) => {
                println!(
                    "  {}: {:.3} s, {:.1} MiB",
                    self.label(),
                    m.wall_s,
                    m.max_rss_kib as f64 / 1024.0
                );
                self.wall_s.push(m.wall_s);
                self.max_rss_kib.push(m.max_rss_kib);
                self.rows_emitted.push(emitted);
            }
            Err(e) => {
                println!("  {}: FAILED: {e:#}", self.label());
                self.error = Some(format!("{e:#}"));
            }
        }
    }

    fn median_wall_s(&self) -> Option<f64> {
        (!self.wall_s.is_empty()).then(|| median(&self.wall_s))
    }

    fn peak_rss_kib(&self) -> Option<u64> {
        self.max_rss_kib.iter().copied().max()
    }
}

/// The inputs at one size.
struct Inputs {
    csv: CsvInputs,
    csv_rows: u64,
    join_rows: u64,
    events: u64,
}

fn prepare_inputs(root: &Path, rows: u64, keys: u64, events: u64) -> Result<Inputs> {
    let per_side = (rows / 2).max(1);
    let bids = data::prepare(root, rows, keys)?;
    let sessions = data::prepare_shaped(root, rows, keys, data::SEED, Shape::Sessions)?;
    let left = data::prepare_seeded(root, per_side, JOIN_KEYS, data::SEED ^ 1)?;
    let right = data::prepare_seeded(root, per_side, JOIN_KEYS, data::SEED ^ 2)?;
    for d in [&bids, &sessions, &left, &right] {
        println!(
            "  {} ({:.1} MiB, {})",
            d.csv.display(),
            d.bytes as f64 / (1024.0 * 1024.0),
            if d.reused { "reused" } else { "generated" }
        );
    }
    Ok(Inputs {
        csv: CsvInputs {
            bids: bids.csv,
            sessions: sessions.csv,
            join_left: left.csv,
            join_right: right.csv,
        },
        csv_rows: rows,
        join_rows: per_side * 2,
        events,
    })
}

pub fn all(args: &AllArgs) -> Result<ExitCode> {
    let sizes = args.sizes();
    let parallelisms = args.parallelisms();
    let (exe, target_dir) = driver::own_paths()?;
    driver::warn_if_debug_build();
    let tidemark = driver::tidemark_binary(args.tidemark.as_deref(), &target_dir)?;
    let root = target_dir.join("bench-data");
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "tidemark: {}{}\ncores: {cores}; {} rows, {} keys, {} Nexmark events, {} round(s)",
        tidemark.display(),
        driver::built_at(&tidemark),
        group(sizes.rows),
        group(sizes.keys),
        group(sizes.events),
        sizes.runs
    );
    println!("inputs at full size:");
    let full = prepare_inputs(&root, sizes.rows, sizes.keys, sizes.events)?;
    println!("inputs at 1/10 size:");
    let tenth = prepare_inputs(
        &root,
        (sizes.rows / 10).max(1),
        sizes.keys,
        (sizes.events / 10).max(1),
    )?;

    // DuckDB is an anchor from outside, run at full size only (its memory
    // is not ours to hold flat); without it the suite says so and goes on.
    let python = duckdb::python();
    if let Err(why) = &python {
        println!("{why}");
    }

    let scripts = root.join("all");
    std::fs::create_dir_all(&scripts)
        .with_context(|| format!("cannot create {}", scripts.display()))?;
    let programs = Programs {
        exe: &exe,
        tidemark: &tidemark,
        python: python.as_ref().ok(),
    };
    let mut cases = Vec::new();
    for query in Query::ALL {
        let at = if query.is_tidemark() {
            parallelisms.clone()
        } else {
            vec![None]
        };
        if query == Query::DuckDb && programs.python.is_none() {
            continue;
        }
        for parallelism in at {
            for (inputs, is_tenth) in [(&full, false), (&tenth, true)] {
                if is_tenth && query == Query::DuckDb {
                    continue;
                }
                cases.push(make_case(
                    query,
                    parallelism,
                    inputs,
                    is_tenth,
                    &programs,
                    &scripts,
                )?);
            }
        }
    }
    println!("scripts: {}", scripts.display());

    for round in 1..=sizes.runs {
        println!("round {round}/{}", sizes.runs);
        for case in cases.iter_mut().filter(|c| c.error.is_none()) {
            case.run_once();
        }
    }

    let figures = figures(&cases);
    let report = Report::new(&figures);
    println!();
    print!("{}", report.results_table());
    println!(
        "baseline: the hand-written program for the CSV queries, the generator alone for Nexmark;\n\
         Nexmark rows are events of all kinds. Times are medians of {} round(s).",
        sizes.runs
    );
    for warning in row_count_warnings(&cases) {
        println!("warning: {warning}");
    }
    println!("\nmemory: peak RSS at full size against 1/10 size");
    print!("{}", report.memory_table());
    println!("\ngoals");
    print!("{}", report::render_checks(&report.checks()));
    for case in cases.iter().filter(|c| c.error.is_some()) {
        println!(
            "\n{} failed:\n{}",
            case.label(),
            case.error.as_deref().unwrap_or_default()
        );
    }
    // A report, not a test: the verdicts are printed, the exit is 0.
    Ok(ExitCode::SUCCESS)
}

/// The programs the suite runs: this one (for the hand-written program),
/// tidemark, and a Python with DuckDB if there is one.
struct Programs<'a> {
    exe: &'a Path,
    tidemark: &'a Path,
    python: Option<&'a OsString>,
}

fn make_case(
    query: Query,
    parallelism: Option<u32>,
    inputs: &Inputs,
    tenth: bool,
    programs: &Programs,
    scripts: &Path,
) -> Result<Case> {
    let input_rows = match query.input() {
        Input::Bids | Input::Sessions => inputs.csv_rows,
        Input::JoinStreams => inputs.join_rows,
        Input::Nexmark => inputs.events,
    };
    let (program, args) = match queries::script(query, &inputs.csv, inputs.events) {
        None if query == Query::DuckDb => {
            let python = programs.python.context("DuckDB run without a Python")?;
            let run = duckdb::tumble(python, query.name(), &inputs.csv.bids, "csv", input_rows);
            let mut command = run.command.into_iter();
            let program = command.next().context("an empty DuckDB command")?;
            (PathBuf::from(program), command.collect())
        }
        None => (
            programs.exe.to_path_buf(),
            vec!["baseline".into(), inputs.csv.bids.clone().into_os_string()],
        ),
        Some(sql) => {
            let path = scripts.join(format!("{}-{input_rows}.sql", query.slug()));
            std::fs::write(&path, sql)
                .with_context(|| format!("cannot write {}", path.display()))?;
            (
                programs.tidemark.to_path_buf(),
                tidemark_args(parallelism, &path),
            )
        }
    };
    Ok(Case {
        query,
        parallelism,
        tenth,
        input_rows,
        program,
        args,
        wall_s: Vec::new(),
        max_rss_kib: Vec::new(),
        rows_emitted: Vec::new(),
        error: None,
    })
}

/// `run [--set parallelism.default=N] SCRIPT`.
fn tidemark_args(parallelism: Option<u32>, script: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["run".into()];
    if let Some(p) = parallelism {
        args.push("--set".into());
        args.push(format!("parallelism.default={p}").into());
    }
    args.push(script.as_os_str().to_owned());
    args
}

/// The report's figures: per query and parallelism, the full-size runs
/// with the peak memory of the tenth-size ones.
fn figures(cases: &[Case]) -> Vec<Figures> {
    cases
        .iter()
        .filter(|c| !c.tenth)
        .map(|full| {
            let tenth = cases
                .iter()
                .find(|c| c.tenth && c.query == full.query && c.parallelism == full.parallelism);
            Figures {
                query: full.query,
                parallelism: full.parallelism,
                input_rows: full.input_rows,
                rows_out: full.rows_emitted.first().copied(),
                median_wall_s: full.median_wall_s(),
                peak_rss_kib: full.peak_rss_kib(),
                tenth_peak_rss_kib: tenth.and_then(Case::peak_rss_kib),
            }
        })
        .collect()
}

/// Output row counts that disagree: runs of one case, one query at
/// different parallelisms, or TUMBLE and the hand-written program (the
/// same windows, so the same rows).
fn row_count_warnings(cases: &[Case]) -> Vec<String> {
    let mut warnings = Vec::new();
    for case in cases {
        if case.rows_emitted.windows(2).any(|w| w[0] != w[1]) {
            warnings.push(format!(
                "{} emitted different row counts across rounds: {:?}",
                case.label(),
                case.rows_emitted
            ));
        }
    }
    for case in cases {
        let first = |query: Query| {
            cases
                .iter()
                .find(|c| c.query == query && c.tenth == case.tenth)
                .and_then(|c| c.rows_emitted.first().copied())
        };
        let Some(&mine) = case.rows_emitted.first() else {
            continue;
        };
        let same_query = first(case.query);
        if same_query.is_some_and(|n| n != mine) {
            warnings.push(format!(
                "{} emitted {} rows, but {} at another parallelism",
                case.label(),
                group(mine),
                group(same_query.unwrap_or_default())
            ));
        }
        if case.query == Query::Tumble {
            for other in [Query::HandWritten, Query::DuckDb] {
                if let Some(theirs) = first(other).filter(|n| *n != mine) {
                    warnings.push(format!(
                        "{} emitted {} rows, {} {}",
                        case.label(),
                        group(mine),
                        other.name(),
                        group(theirs)
                    ));
                }
            }
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: AllArgs,
    }

    fn parse(line: &[&str]) -> Result<AllArgs> {
        Ok(Cli::try_parse_from(std::iter::once("all").chain(line.iter().copied()))?.args)
    }

    #[test]
    fn default_and_quick_sizes() -> Result<()> {
        assert_eq!(
            parse(&[])?.sizes(),
            Sizes {
                rows: 5_000_000,
                keys: 1_000,
                events: 10_000_000,
                runs: 3
            }
        );
        assert_eq!(
            parse(&["--quick"])?.sizes(),
            Sizes {
                rows: 250_000,
                keys: 1_000,
                events: 500_000,
                runs: 1
            }
        );
        assert_eq!(
            parse(&["--quick", "--rows", "1000", "--runs", "2"])?.sizes(),
            Sizes {
                rows: 1_000,
                keys: 1_000,
                events: 500_000,
                runs: 2
            }
        );
        Ok(())
    }

    #[test]
    fn parallelism_list() -> Result<()> {
        assert_eq!(parse(&[])?.parallelisms(), vec![None]);
        assert_eq!(
            parse(&["--parallelism", "2"])?.parallelisms(),
            vec![Some(2)]
        );
        assert_eq!(
            parse(&["--parallelism", "1,2,1"])?.parallelisms(),
            vec![Some(1), Some(2)]
        );
        assert!(parse(&["--parallelism", "0"]).is_err());
        Ok(())
    }

    #[test]
    fn parallelism_goes_to_tidemark_as_a_set_option() {
        let script = Path::new("q.sql");
        assert_eq!(tidemark_args(None, script), ["run", "q.sql"]);
        assert_eq!(
            tidemark_args(Some(2), script),
            ["run", "--set", "parallelism.default=2", "q.sql"]
        );
    }

    fn case(query: Query, parallelism: Option<u32>, tenth: bool, emitted: &[u64]) -> Case {
        Case {
            query,
            parallelism,
            tenth,
            input_rows: 10,
            program: PathBuf::new(),
            args: Vec::new(),
            wall_s: vec![1.0; emitted.len()],
            max_rss_kib: vec![1; emitted.len()],
            rows_emitted: emitted.to_vec(),
            error: None,
        }
    }

    #[test]
    fn row_counts_that_disagree_are_reported() {
        let agreeing = [
            case(Query::HandWritten, None, false, &[7, 7]),
            case(Query::DuckDb, None, false, &[7, 7]),
            case(Query::Tumble, Some(1), false, &[7, 7]),
            case(Query::Tumble, Some(2), false, &[7, 7]),
            case(Query::Tumble, Some(1), true, &[3]),
        ];
        assert!(row_count_warnings(&agreeing).is_empty());
        let disagreeing = [
            case(Query::HandWritten, None, false, &[7]),
            case(Query::DuckDb, None, false, &[9]),
            case(Query::Tumble, Some(1), false, &[7, 8]),
            case(Query::Tumble, Some(2), false, &[6]),
        ];
        let warnings = row_count_warnings(&disagreeing);
        assert_eq!(warnings.len(), 5, "{warnings:#?}");
        assert!(warnings[0].contains("across rounds"));
        assert!(warnings[1].contains("(p=1) emitted 7 rows, DuckDB, 1 thread 9"));
        assert!(warnings[2].contains("(p=2) emitted 6 rows, but 7 at another parallelism"));
        assert!(warnings[3].contains("(p=2) emitted 6 rows, hand-written TUMBLE 7"));
        assert!(warnings[4].contains("(p=2) emitted 6 rows, DuckDB, 1 thread 9"));
    }

    #[test]
    fn figures_pair_full_and_tenth_runs() {
        let mut full = case(Query::Over, Some(2), false, &[5, 5, 5]);
        full.wall_s = vec![3.0, 1.0, 2.0];
        full.max_rss_kib = vec![100, 120, 110];
        let mut tenth = case(Query::Over, Some(2), true, &[1]);
        tenth.max_rss_kib = vec![100];
        let other = case(Query::Over, Some(1), true, &[1]);
        let figures = figures(&[full, other, tenth]);
        assert_eq!(figures.len(), 1);
        assert_eq!(figures[0].median_wall_s, Some(2.0));
        assert_eq!(figures[0].peak_rss_kib, Some(120));
        assert_eq!(figures[0].tenth_peak_rss_kib, Some(100));
    }
}
