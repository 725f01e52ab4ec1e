//! The `tidemark` command: `run` or `explain` a SQL script, `test` golden
//! files, or (with no command, or `repl`) type statements interactively.
//!
//! Exit codes: 0 ok, 1 a SQL, data or runtime error (or a failed test),
//! 2 a usage error. A closed stdout (e.g. `| head`) ends the run quietly.

use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tidemark::{repl, script_dir, Output, Session};

#[derive(Parser)]
#[command(
    name = "tidemark",
    version,
    about = "Flink SQL windowing, exact and deterministic, in one binary",
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  \
        tidemark                     (type statements; HELP; lists them)\n  \
        tidemark run examples/bids.sql\n  \
        tidemark run --trace --set table.exec.emit.allow-lateness=10s examples/bids.sql\n  \
        tidemark run --report run.html examples/bids.sql   (pictures of the run's time)\n  \
        producer | tidemark run --ui 8081 job.sql   (that page live on 127.0.0.1:8081, and /metrics)\n  \
        producer | tidemark run --drain job.sql   (a 'stdin' table; Ctrl-C fires open windows)\n  \
        tidemark explain examples/bids.sql\n  \
        tidemark test sql-tests\n  \
        tidemark test my-tests --bless\n  \
        tidemark export --flink job.sql -o flink-job.sql   (for Flink's SQL client)\n  \
        tidemark test --engine flink my-tests   (the same cases on Apache Flink)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    repl: ReplArgs,
}

/// Options of the interactive client.
#[derive(clap::Args)]
struct ReplArgs {
    /// The history file (default: tidemark/history in the user's data
    /// folder, or $TIDEMARK_HISTORY).
    #[arg(long, value_name = "FILE")]
    history: Option<PathBuf>,
    /// Keep no history.
    #[arg(long, conflicts_with = "history")]
    no_history: bool,
    /// Set an option before the first statement, as `SET 'key' = 'value'`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the statements of a SQL script in order; each SELECT prints its
    /// changelog on stdout and a summary on stderr.
    Run {
        /// The script.
        script: PathBuf,
        /// Set an option before the script runs, as `SET 'key' = 'value'`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Print every window fire, re-fire, late row, cleanup and session
        /// merge on stderr (`SET 'tidemark.trace' = 'true'`).
        #[arg(long)]
        trace: bool,
        /// Rows per batch read from each source (`SET 'tidemark.batch-size'`);
        /// the output is the same at every size.
        #[arg(long, value_name = "N")]
        batch_size: Option<std::num::NonZeroUsize>,
        /// Threads the query may use (`SET 'parallelism.default'`); the
        /// output is the same at every parallelism.
        #[arg(long, value_name = "N")]
        parallelism: Option<std::num::NonZeroUsize>,
        /// On Ctrl-C or SIGTERM, end the input there and fire the open
        /// windows before stopping (`SET 'tidemark.stop.drain' = 'true'`);
        /// without it they are dropped, as when Flink cancels a job.
        #[arg(long)]
        drain: bool,
        /// Go on from the job's last checkpoint (after a crash or a stop)
        /// instead of starting from the beginning; the job must set
        /// 'execution.checkpointing.dir'.
        #[arg(long)]
        resume: bool,
        /// Write a run report to this HTML file: pictures of each query's
        /// rows against the watermark, late rows, windows, watermarks per
        /// split, lateness and state (`SET 'tidemark.report'`).
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Serve the run report live while the job runs, with Prometheus
        /// metrics at /metrics, on ADDR: host:port, or a port alone for
        /// this machine only (8081: 127.0.0.1:8081). Other machines reach
        /// it only when ADDR says so, e.g. --ui 0.0.0.0:8081.
        #[arg(long, value_name = "ADDR")]
        ui: Option<String>,
    },
    /// Print the plan of every query and INSERT of a script, with when its
    /// windows fire and where late rows go, without running anything.
    Explain {
        /// The script.
        script: PathBuf,
        /// Set an option before the script runs, as `SET 'key' = 'value'`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Type statements and see their results as they arrive (the default
    /// without a command).
    Repl(ReplArgs),
    /// Write a script as a Flink SQL script that Flink's SQL client runs
    /// (`sql-client.sh -f`) with the same results; every rewrite and every
    /// difference is reported on stderr, and what Flink cannot express is
    /// refused (exit 1) unless --allow-differences.
    Export {
        /// The script.
        script: PathBuf,
        /// Write for Apache Flink 2.x (the one target there is).
        #[arg(long, required = true)]
        flink: bool,
        /// Where to write the exported script (default: standard output).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// Where the rows of each SELECT go: a 'print' or 'blackhole'
        /// table, or 'client' to leave SELECTs for the SQL client to show.
        #[arg(long, value_enum, default_value = "print", value_name = "TO")]
        selects_to: SelectsTo,
        /// Export what Flink cannot express too, with a `-- tidemark:`
        /// comment above each statement whose results will differ.
        #[arg(long)]
        allow_differences: bool,
        /// The folder relative 'path' options are taken from on the
        /// cluster (default: the script's folder, made absolute).
        #[arg(long, value_name = "DIR")]
        base: Option<PathBuf>,
    },
    /// Run golden-file tests: each NAME.sql is compared with NAME.out.
    Test {
        /// Files or folders (default: sql-tests).
        paths: Vec<PathBuf>,
        /// Rewrite the expected files with the actual output.
        #[arg(long)]
        bless: bool,
        /// Where the cases run: 'tidemark', or 'flink' to run each on
        /// Apache Flink 2.3 through `tidemark export` and compare its rows
        /// with the .out file (needs PyFlink and Java; see
        /// docs/deploying-to-flink.md).
        #[arg(long, value_enum, default_value = "tidemark")]
        engine: Engine,
    },
}

/// mimalloc rather than the system's allocator: operators allocate and
/// free a batch's buffers at every step, and the state of a window join or
/// a session lives and dies a window at a time; measured on the benchmark
/// suite, sessions and the window join run 10-20 % faster with it.
/// Transparent huge pages are left off, which keeps peak memory within a
/// few MiB of the system allocator's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The stack of the thread that runs SQL. Deeply nested SQL is rejected
/// with an error, but measuring how deep it is recurses through sqlparser's
/// tree first; a large (lazily committed) stack keeps that from
/// overflowing on any file that fits in memory.
const SQL_THREAD_STACK: usize = 1 << 30;

fn main() -> ExitCode {
    let worker = std::thread::Builder::new()
        .name("tidemark".into())
        .stack_size(SQL_THREAD_STACK)
        .spawn(run_cli);
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("error: internal error: the worker thread failed; this is a bug in tidemark, please report it");
            ExitCode::from(1)
        }
    }
}

fn run_cli() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command.unwrap_or(Command::Repl(cli.repl)) {
        Command::Repl(args) => {
            let mut session = Session::new(".");
            if let Err(code) = apply_sets(&mut session, args.set) {
                return code;
            }
            repl::run(repl::ReplOptions {
                history: repl::history_file(args.no_history, args.history),
                session,
            })
        }
        Command::Run {
            script,
            mut set,
            trace,
            batch_size,
            parallelism,
            drain,
            resume,
            report,
            ui,
        } => {
            if let Some(path) = report {
                set.push(format!("tidemark.report={}", path.display()));
            }
            if let Some(n) = parallelism {
                set.push(format!("parallelism.default={n}"));
            }
            if drain {
                set.push("tidemark.stop.drain=true".into());
            }
            if trace {
                set.push("tidemark.trace=true".into());
            }
            if let Some(n) = batch_size {
                set.push(format!("tidemark.batch-size={n}"));
            }
            run(script, set, false, resume, ui)
        }
        Command::Explain { script, set } => run(script, set, true, false, None),
        Command::Test {
            paths,
            bless,
            engine: Engine::Tidemark,
        } => test(paths, bless),
        Command::Test {
            engine: Engine::Flink,
            bless: true,
            ..
        } => {
            eprintln!(
                "error: --bless writes what tidemark prints; it cannot be used with --engine flink"
            );
            ExitCode::from(2)
        }
        Command::Test {
            paths,
            engine: Engine::Flink,
            ..
        } => test_on_flink(paths),
        Command::Export {
            script,
            flink: _,
            output,
            selects_to,
            allow_differences,
            base,
        } => export(
            &script,
            output.as_deref(),
            &tidemark::export::ExportOptions {
                selects: match selects_to {
                    SelectsTo::Print => tidemark::export::SelectsTo::Print,
                    SelectsTo::Blackhole => tidemark::export::SelectsTo::Blackhole,
                    SelectsTo::Client => tidemark::export::SelectsTo::Client,
                },
                allow_differences,
                base,
            },
        ),
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Engine {
    Tidemark,
    Flink,
}

/// `tidemark test --engine flink`: exit 0 when every case Flink ran gave
/// the expected rows (or differs as its known-differences list says), 1
/// when one differs, 2 without a Flink installation.
fn test_on_flink(paths: Vec<PathBuf>) -> ExitCode {
    use tidemark::golden::flink::{self, FlinkOutcome};
    let paths = default_test_paths(paths);
    let python = flink::flink_python();
    match flink::check_installation(&python) {
        Ok(versions) => eprintln!("running on {versions}"),
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(2);
        }
    }
    let cases = match test_cases(&paths) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut out = std::io::stdout();
    let outcomes = match flink::run_all(&cases, &paths, &python, &mut out) {
        Ok(outcomes) => outcomes,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let count = |f: fn(&FlinkOutcome) -> bool| outcomes.iter().filter(|(_, o)| f(o)).count();
    let differs = count(|o| matches!(o, FlinkOutcome::Differs(_)));
    println!(
        "{} equal, {differs} differ, {} known differences, {} refused, {} skipped",
        count(|o| matches!(o, FlinkOutcome::Equal(_))),
        count(|o| matches!(o, FlinkOutcome::Known(_))),
        count(|o| matches!(o, FlinkOutcome::Refused(_))),
        count(|o| matches!(o, FlinkOutcome::Skipped(_))),
    );
    if differs == 0 && outcomes.len() == cases.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SelectsTo {
    Print,
    Blackhole,
    Client,
}

/// Exports a script for Flink: the script on stdout or to `output`, the
/// report on stderr.
fn export(
    script: &std::path::Path,
    output: Option<&std::path::Path>,
    options: &tidemark::export::ExportOptions,
) -> ExitCode {
    let sql = match std::fs::read_to_string(script) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", script.display());
            return ExitCode::from(2);
        }
    };
    let name = script.display().to_string();
    let exported = match tidemark::export::export(&sql, &name, &script_dir(script), options) {
        Ok(exported) => exported,
        Err(e) => {
            eprint!("{}", e.render(&name, &sql));
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    for finding in &exported.findings {
        eprint!("{}", finding.render(&name, &sql));
    }
    if exported.refused() {
        eprintln!(
            "not exported: Flink cannot express what is refused above; --allow-differences exports it anyway, marking each difference"
        );
        return ExitCode::from(1);
    }
    let written = match output {
        Some(path) => std::fs::write(path, &exported.script)
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => std::io::stdout()
            .write_all(exported.script.as_bytes())
            .map_err(|e| format!("cannot write the script: {e}")),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// Runs (or, with `explain_only`, explains) a script after the `--set`
/// options, serving the live page on `ui` when given.
fn run(
    script: PathBuf,
    set: Vec<String>,
    explain_only: bool,
    resume: bool,
    ui: Option<String>,
) -> ExitCode {
    let sql = match std::fs::read_to_string(&script) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", script.display());
            return ExitCode::from(2);
        }
    };
    let mut session = Session::new(script_dir(&script));
    {
        use std::io::IsTerminal;
        session.progress = std::io::stderr().is_terminal() && !std::io::stdout().is_terminal();
    }
    session.explain_only = explain_only;
    session.resume = resume;
    if let Err(code) = apply_sets(&mut session, set) {
        return code;
    }
    // A report that cannot be written, or a page that cannot be served,
    // fails before anything runs.
    if let Err(e) = session.sync_report() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    if let Some(address) = ui {
        match tidemark::live::LiveServer::start(&address) {
            Ok(server) => {
                let reach = if server.address.ip().is_loopback() {
                    "this machine only"
                } else {
                    "other machines too"
                };
                eprintln!(
                    "live page: {} (metrics at {}metrics; reachable from {reach})",
                    server.url(),
                    server.url()
                );
                session.live = Some(Arc::new(server));
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let stop = match StopSignals::install(&session.cancel) {
        Ok(stop) => Some(stop),
        Err(e) => {
            eprintln!("warning: Ctrl-C and SIGTERM will end the process without a summary: {e}");
            None
        }
    };
    let stdout = std::io::stdout();
    let mut rows = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut summary = std::io::stderr();
    let result = session.execute_script(
        &sql,
        &mut Output {
            rows: &mut rows,
            summary: &mut summary,
            timing: true,
        },
    );
    let flushed = rows.flush();
    match result {
        Ok(_) => match stop.and_then(|s| s.exit_code()) {
            Some(code) => code,
            None => ExitCode::SUCCESS,
        },
        Err(tidemark_common::Error::Io { source, .. })
            if source.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            drop(flushed);
            eprint!("{}", e.render(&script.display().to_string(), &sql));
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// SIGINT (Ctrl-C) and SIGTERM during `run`: the first stops the running
/// query before its next batch (rows so far are written, sink files
/// committed, the summary printed) and the script ends there; a second
/// one ends the process at once, for a read stuck inside a record.
struct StopSignals {
    interrupted: Arc<AtomicBool>,
    terminated: Arc<AtomicBool>,
}

impl StopSignals {
    fn install(cancel: &Arc<AtomicBool>) -> std::io::Result<Self> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use signal_hook::flag;
        let stop = StopSignals {
            interrupted: Arc::new(AtomicBool::new(false)),
            terminated: Arc::new(AtomicBool::new(false)),
        };
        for (signal, seen, code) in [
            (SIGINT, &stop.interrupted, 130),
            (SIGTERM, &stop.terminated, 143),
        ] {
            // Registered first, so it sees the flag as the previous
            // signal left it.
            flag::register_conditional_shutdown(signal, code, Arc::clone(cancel))?;
            flag::register(signal, Arc::clone(cancel))?;
            flag::register(signal, Arc::clone(seen))?;
        }
        Ok(stop)
    }

    /// 128 + the signal number when a signal stopped the run.
    fn exit_code(&self) -> Option<ExitCode> {
        if self.terminated.load(Ordering::SeqCst) {
            Some(ExitCode::from(143))
        } else if self.interrupted.load(Ordering::SeqCst) {
            Some(ExitCode::from(130))
        } else {
            None
        }
    }
}

/// Applies `--set KEY=VALUE` options; a bad one is a usage error.
fn apply_sets(session: &mut Session, set: Vec<String>) -> Result<(), ExitCode> {
    for kv in set {
        let Some((k, v)) = kv.split_once('=') else {
            eprintln!("error: --set expects KEY=VALUE, got '{kv}'");
            return Err(ExitCode::from(2));
        };
        session.options.set(k.trim(), v.trim());
        if let Err(e) = session.options.validate() {
            eprintln!("error: --set {kv}: {e}");
            return Err(ExitCode::from(2));
        }
        if let Some(warning) = tidemark::unread_setting(k.trim()) {
            eprintln!("{warning}");
        }
    }
    Ok(())
}

/// The folders and files given to `tidemark test`, or `sql-tests`.
fn default_test_paths(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    if paths.is_empty() {
        vec![PathBuf::from("sql-tests")]
    } else {
        paths
    }
}

/// The cases under `paths`; a usage error when they cannot be listed.
fn test_cases(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ExitCode> {
    tidemark::golden::discover(paths).map_err(|e| {
        eprintln!("error: cannot list test cases: {e}");
        ExitCode::from(2)
    })
}

fn test(paths: Vec<PathBuf>, bless: bool) -> ExitCode {
    let paths = default_test_paths(paths);
    let cases = match test_cases(&paths) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut out = std::io::stdout();
    match tidemark::golden::run_all(&cases, bless, &mut out) {
        Ok((passed, failed)) => {
            println!("{passed} passed, {failed} failed");
            if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
