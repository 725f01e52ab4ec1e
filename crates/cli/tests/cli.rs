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
}

#[test]
fn batch_size_and_trace_flags_change_nothing_but_what_they_say() {
    let script = example();
    let script = script.to_str().expect("utf-8 path");
    let plain = tidemark(&["run", script]);
    let small = tidemark(&["run", "--batch-size", "3", script]);
    assert!(plain.status.success() && small.status.success());
    assert_eq!(text(&plain.stdout), text(&small.stdout));
    let traced = tidemark(&["run", "--trace", script]);
    assert!(text(&traced.stderr).contains("FIRE    WindowAggregate"));
    assert_eq!(text(&plain.stdout), text(&traced.stdout));
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
