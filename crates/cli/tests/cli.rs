//! The command line itself: `explain` plans without running, `--batch-size`
//! and `--set` reach the session, bad options are usage errors (exit 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tidemark(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .args(args)
        .output()
        .expect("run tidemark")
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/bids.sql")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn explain_prints_plans_without_running() {
    let out = tidemark(&["explain", example().to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("WindowAggregate: TUMBLE"), "{stdout}");
    assert!(
        stdout.contains("| fire: when the watermark reaches"),
        "{stdout}"
    );
    assert!(!stdout.contains("+I["), "explain ran the query: {stdout}");
    assert!(!text(&out.stderr).contains("rows emitted"));
    // After each plan, the settings it would run with.
    assert!(
        stdout.contains("\nsettings: every key at its default\n"),
        "{stdout}"
    );
    let set = tidemark(&[
        "explain",
        "--set",
        "table.exec.source.idle-timeout=5 s",
        "--set",
        "pipeline.name=bids",
        example().to_str().expect("utf-8 path"),
    ]);
    assert!(
        text(&set.stdout).contains(
            "\nsettings: 'table.exec.source.idle-timeout' = '5 s'; not read by tidemark: 'pipeline.name' = 'bids'\n"
        ),
        "{}",
        text(&set.stdout)
    );
}

#[test]
fn batch_size_parallelism_and_trace_flags_change_nothing_but_what_they_say() {
    let script = example();
    let script = script.to_str().expect("utf-8 path");
    let plain = tidemark(&["run", script]);
    let small = tidemark(&["run", "--batch-size", "3", script]);
    assert!(plain.status.success() && small.status.success());
    assert_eq!(text(&plain.stdout), text(&small.stdout));
    let parallel = tidemark(&["run", "--parallelism", "2", script]);
    assert!(parallel.status.success(), "{}", text(&parallel.stderr));
    assert_eq!(text(&plain.stdout), text(&parallel.stdout));
    let traced = tidemark(&["run", "--trace", script]);
    assert!(text(&traced.stderr).contains("FIRE    WindowAggregate"));
    assert_eq!(text(&plain.stdout), text(&traced.stdout));
}

#[test]
fn a_set_key_tidemark_does_not_read_runs_with_a_warning() {
    let script = example();
    let script = script.to_str().expect("utf-8 path");
    let plain = tidemark(&["run", script]);
    let unread = tidemark(&["run", "--set", "table.exec.emit.allow-latenes=2s", script]);
    assert!(unread.status.success(), "{}", text(&unread.stderr));
    assert_eq!(text(&plain.stdout), text(&unread.stdout));
    let stderr = text(&unread.stderr);
    assert!(
        stderr.contains("warning: tidemark does not read 'table.exec.emit.allow-latenes': the setting is kept but changes nothing; did you mean 'table.exec.emit.allow-lateness'?"),
        "{stderr}"
    );
    assert!(!text(&plain.stderr).contains("warning:"));
}

#[test]
fn bad_options_are_usage_errors() {
    let script = example();
    let script = script.to_str().expect("utf-8 path");
    let bad = tidemark(&[
        "run",
        "--set",
        "table.exec.emit.allow-lateness=soon",
        script,
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("must be a duration"),
        "{}",
        text(&bad.stderr)
    );
    assert!(bad.stdout.is_empty());
    let zero = tidemark(&["run", "--batch-size", "0", script]);
    assert_eq!(zero.status.code(), Some(2));
    let missing = tidemark(&["run", "no/such/file.sql"]);
    assert_eq!(missing.status.code(), Some(2));
    let version = tidemark(&["--version"]);
    assert!(text(&version.stdout).starts_with("tidemark "));
}

/// Runs `tidemark` with no command, `input` on its standard input.
fn tidemark_piped(input: &str, dir: &Path) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .arg("--no-history")
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run tidemark");
    child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(input.as_bytes())
        .expect("write statements");
    child.wait_with_output().expect("wait for tidemark")
}

#[test]
fn statements_piped_to_the_client_run_in_one_session() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let create = "CREATE TABLE bids (bid_time TIMESTAMP(3), item STRING, bidder STRING, \
                  price DECIMAL(10, 2)) WITH ('connector' = 'filesystem', \
                  'path' = 'data/bids.csv', 'format' = 'csv');\n";
    // The last statement has no `;`: at the end of input it runs anyway.
    let ok = tidemark_piped(
        &format!("{create}SHOW TABLES;\nSELECT item, price FROM bids\nWHERE price > 100"),
        &examples,
    );
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    let stdout = text(&ok.stdout);
    assert!(stdout.starts_with("bids\n+----+"), "{stdout}");
    assert!(stdout.contains("| op | item"), "{stdout}");
    assert!(stdout.contains("| +I | C"), "{stdout}");
    assert!(text(&ok.stderr).contains("table 'bids' created"));
    // A failing statement does not stop the next, but fails the run.
    let failed = tidemark_piped(
        &format!("{create}SELECT nope FROM bids;\nSHOW TABLES;\n"),
        &examples,
    );
    assert_eq!(failed.status.code(), Some(1));
    assert!(text(&failed.stderr).contains("unknown column 'nope'"));
    assert_eq!(text(&failed.stdout), "bids\n");
}

#[test]
fn a_cancelled_query_stops_before_its_input_ends_and_says_so() {
    use std::sync::atomic::Ordering;
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut session = tidemark::Session::new(&examples);
    session.cancel.store(true, Ordering::SeqCst);
    let (mut rows, mut summary) = (Vec::new(), Vec::new());
    let result = session.execute_script(
        "CREATE TABLE bids (bid_time TIMESTAMP(3), item STRING, bidder STRING, \
         price DECIMAL(10, 2), WATERMARK FOR bid_time AS bid_time - INTERVAL '3' SECOND) \
         WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');
         SELECT item, COUNT(*) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '10' SECOND))
         GROUP BY window_start, window_end, item;",
        &mut tidemark::Output {
            rows: &mut rows,
            summary: &mut summary,
            timing: false,
        },
    );
    let runs = result.expect("a cancelled query is not an error");
    assert!(runs[0].cancelled);
    // No window fired: cancelling is not the end of input.
    assert!(rows.is_empty(), "{}", text(&rows));
    assert_eq!(runs[0].rows_emitted, 0);
    assert!(text(&summary).contains("cancelled before the end of input"));
}
