//! The `tidemark-bench` command: its command line and the dispatch to the
//! benchmark driver and to the hidden subcommands it spawns as children.

mod baseline;
mod cardinality;
mod data;
mod driver;
mod duckdb;
mod formats;
mod kafka;
mod kafka_read;
mod measure;
mod nexmark;
mod numbers;
mod postgres;
mod queries;
mod report;
mod soak;
mod suite;
mod table;

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "tidemark-bench",
    about = "Benchmarks of `tidemark run` against a hand-written single-pass program doing the same work",
    after_help = "Examples:\n  \
        cargo run --release -p tidemark-bench -- all\n  \
        cargo run --release -p tidemark-bench -- all --quick --parallelism 1,2\n  \
        cargo run --release -p tidemark-bench -- tumble --rows 100000 --runs 1"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The whole suite in one run, into blackhole sinks: the hand-written program,
    /// TUMBLE, HOP, CUMULATE, SESSION, OVER, the window join, and Nexmark
    /// q5, q8 and q11 with the generator alone.
    ///
    /// Every query runs once per round, in turn, at full size and at a
    /// tenth of it (and at each --parallelism), so noise falls on all
    /// alike. Prints one table of medians with each query's ratio to its
    /// baseline (the hand-written program's throughput and TUMBLE's time for CSV
    /// queries, the generator's throughput for Nexmark), peak memory at
    /// full against tenth size, and PASS/FAIL against the performance
    /// goals. Exits 0 whatever the verdicts: it is a report.
    ///
    /// The SESSION query (30 s gap) reads its own input, of the same size:
    /// each key bids for 60 s and is silent for 60 s, so sessions close.
    #[command(verbatim_doc_comment)]
    All(suite::AllArgs),
    /// One-minute TUMBLE window aggregation (COUNT, SUM, MAX per key) over a
    /// generated CSV of bids, by `tidemark run` and by a hand-written program.
    ///
    /// Generates a deterministic headerless CSV `key,ts,price` (fixed seed;
    /// ~1 ms of event time per row, up to 2 s of disorder) under
    /// `target/bench-data/`, reused when it exists with the same parameters.
    /// Then runs the hand-written program and `tidemark run` alternately, each as a
    /// child process with stdout on /dev/null, and prints per program the
    /// median wall time, the throughput and the peak resident memory, and
    /// whether both emitted the same number of rows.
    #[command(verbatim_doc_comment)]
    Tumble(driver::TumbleArgs),
    /// The same COUNT/SUM/MAX per key over TUMBLE 1 min, HOP 10 min / 1 min,
    /// CUMULATE 1 min / 10 min and HOP 60 min / 1 min on the same input,
    /// each timed against TUMBLE.
    Windows(driver::TumbleArgs),
    /// SUM and MAX over the 10 preceding rows per key (an OVER window)
    /// against the TUMBLE aggregation, on the same input in the same run.
    Over(driver::TumbleArgs),
    /// The print path: TUMBLE 6 s (about 830,000 result rows) into a
    /// blackhole, printed on stdout, and into CSV and JSON files, each
    /// timed against the blackhole run.
    Print(driver::TumbleArgs),
    /// Windows sharing many slices: HOP 1 day every 1 min and CUMULATE up
    /// to 1 day by 1 min over 5 M rows spread across about 14 hours,
    /// beside TUMBLE 1 min and HOP 10 min every 1 min, each timed against
    /// TUMBLE; once with exact aggregates (COUNT, SUM of a DECIMAL, MIN,
    /// MAX, FIRST_VALUE, LAST_VALUE), once with a DOUBLE sum.
    Slides(driver::TumbleArgs),
    /// TUMBLE 1 min over the same 5 M rows as CSV and as JSON lines (made
    /// once from the CSV), and DuckDB doing the same aggregation on one
    /// thread over each when a Python with the duckdb package is found
    /// (TIDEMARK_BENCH_PYTHON, else python3), each into nothing; prints
    /// JSON against CSV and tidemark against DuckDB.
    Json(driver::TumbleArgs),
    /// What a key costs: TUMBLE 1 min, SESSION 30 s, OVER ROWS 2 and
    /// RANGE 10 s preceding, and OVER ROWS 2 with a state ttl, into a
    /// blackhole, over rows 10 ms apart that each have a key of their own
    /// (--rows of them, default 2 M, and half as many) and over as many
    /// rows sharing --keys keys; prints each time against TUMBLE's on the
    /// same input and the OVER aggregation's peak memory at full and half
    /// the distinct keys.
    Keys(cardinality::KeysArgs),
    /// What a run report costs: TUMBLE, HOP 10/1 and OVER without and
    /// with `SET 'tidemark.report'`, each timed against its plain twin in
    /// the same run, and the size of each report.
    Report(driver::TumbleArgs),
    /// A window join of two generated streams (TUMBLE 10 s, equal keys),
    /// at full and half size, against the TUMBLE aggregation of as many
    /// rows in the same run; peak memory shows whether state is freed per
    /// window.
    Join(driver::JoinArgs),
    /// Nexmark q5, q7, q8 and q11, each into a blackhole sink, over events
    /// from the nexmark connector and over the same events from JSON-lines
    /// and CSV files written once from the generator, each against reading
    /// alone (a query that reads every bid and keeps none) from the same
    /// source in the same run.
    Nexmark(driver::NexmarkArgs),
    /// The hand-written program: reads the CSV, aggregates one-minute windows per
    /// key and prints them on stdout; counts on stderr.
    #[command(hide = true)]
    Baseline {
        /// The headerless `key,ts,price` CSV.
        csv: PathBuf,
    },
    /// 100 M generated rows (datagen) through TUMBLE, HOP, SESSION and OVER,
    /// each watched while it runs: resident memory must level off.
    ///
    /// Reads each run's resident set every 100 ms and prints it at a
    /// quarter, half, three quarters and the end of the run, with the ratio
    /// of the second half's peak to the first half's (after the first
    /// tenth) and PASS when it is at most 1.10. `--rows` makes it shorter.
    #[command(verbatim_doc_comment)]
    Soak(soak::SoakArgs),
    /// 100,000 windows upserted into a PostgreSQL table by the jdbc sink,
    /// against the same query into a blackhole table, and a check that the
    /// table holds one row per window and key. Needs a server: --url, or
    /// TIDEMARK_TEST_POSTGRES (`.ci/postgres start` makes one).
    Postgres(postgres::PostgresArgs),
    /// Checks a Kafka-compatible broker before tests trust it: a topic of
    /// two partitions, records produced one per request, end offsets equal
    /// to the records sent, every record read back in order.
    KafkaCheck(kafka::KafkaCheckArgs),
    /// Makes a topic with a number of partitions on a Kafka-compatible
    /// broker (`.ci/kafka topic NAME PARTITIONS` for the test broker).
    KafkaTopic(kafka::KafkaTopicArgs),
    /// The TUMBLE benchmark's rows from a topic of four partitions on a
    /// Kafka-compatible broker, against the same rows from CSV and a plain
    /// client that only reads them. Needs a broker: --brokers, or
    /// TIDEMARK_TEST_KAFKA (`.ci/kafka start` makes one).
    Kafka(kafka_read::KafkaBenchArgs),
    /// Runs a command with stdout on /dev/null and reports its wall time
    /// and peak resident memory on stdout.
    #[command(hide = true)]
    Measure {
        /// The program and its arguments.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<OsString>,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::All(args) => suite::all(&args),
        Command::Tumble(args) => driver::tumble(&args),
        Command::Windows(args) => driver::windows(&args),
        Command::Over(args) => driver::over(&args),
        Command::Report(args) => driver::report(&args),
        Command::Print(args) => driver::print(&args),
        Command::Slides(args) => driver::slides(&args),
        Command::Json(args) => formats::json(&args),
        Command::Keys(args) => cardinality::keys(&args),
        Command::Join(args) => driver::join(&args),
        Command::Nexmark(args) => nexmark::nexmark(&args),
        Command::Soak(args) => soak::soak(&args),
        Command::Postgres(args) => postgres::postgres(&args),
        Command::KafkaCheck(args) => kafka::check(&args),
        Command::KafkaTopic(args) => kafka::topic(&args),
        Command::Kafka(args) => kafka_read::kafka(&args),
        Command::Baseline { csv } => baseline::run(&csv),
        Command::Measure { command } => measure::run_measured(&command),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
