//! `tidemark test --engine flink` on real Apache Flink 2.3: a fixed
//! sample of golden cases (`sql-tests/flink-sample.txt`, about forty,
//! across every kind of window, OVER, Top-N, joins, unions, legacy windows
//! with lateness, time zones and types) is exported and run on Flink, and
//! each must give its `.out` file's rows. The whole suite runs with
//! `tidemark test --engine flink sql-tests` (a few minutes; see
//! docs/testing.md).
//!
//! Needs `TIDEMARK_FLINK_PYTHON` (a Python with PyFlink; `.ci/flink
//! install` makes one and `.ci/run` sets it); without it the test says it
//! is skipped.

use std::path::Path;
use std::process::Command;

#[test]
fn the_sample_of_golden_cases_gives_the_same_rows_on_flink() {
    let Some(python) = std::env::var_os("TIDEMARK_FLINK_PYTHON") else {
        eprintln!("skipped: TIDEMARK_FLINK_PYTHON is not set (.ci/flink install makes a Flink installation)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let sample = std::fs::read_to_string(root.join("sql-tests/flink-sample.txt"))
        .expect("sql-tests/flink-sample.txt");
    let cases: Vec<String> = sample
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| format!("sql-tests/{l}"))
        .collect();
    assert!(cases.len() >= 30, "the sample lists {} cases", cases.len());
    let output = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .current_dir(&root)
        .env("TIDEMARK_FLINK_PYTHON", python)
        .args(["test", "--engine", "flink"])
        .args(&cases)
        .output()
        .expect("tidemark runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let expected = format!(
        "{} equal, 0 differ, 0 known differences, 0 refused, 0 skipped",
        cases.len()
    );
    assert!(
        output.status.success() && stdout.lines().last() == Some(expected.as_str()),
        "expected every sampled case equal on Flink:\n{stdout}\n{stderr}"
    );
}
