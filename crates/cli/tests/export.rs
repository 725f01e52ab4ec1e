//! Golden files of `tidemark export --flink`: each `export/NAME.sql` is
//! exported (with the flags its first line names after `-- args:`, and
//! `--base /data` so paths do not depend on the machine), and the script
//! then the report must be `export/NAME.out`. Each expected file was
//! reasoned out by hand: the rewrite of each tidemark construct Flink
//! reads differently, and each refusal with its caret.
//! `TIDEMARK_BLESS=1` rewrites them.

use std::path::Path;
use std::process::Command;

fn export(case: &Path) -> String {
    let sql = std::fs::read_to_string(case).expect("case readable");
    let args: Vec<&str> = sql
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("-- args:"))
        .map(|a| a.split_whitespace().collect())
        .unwrap_or_default();
    let dir = case.parent().expect("a folder");
    let name = case.file_name().expect("a file name");
    let output = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .current_dir(dir)
        .args(["export", "--flink", "--base", "/data"])
        .args(&args)
        .arg(name)
        .output()
        .expect("tidemark runs");
    format!(
        "{}-- report (exit {})\n{}",
        String::from_utf8_lossy(&output.stdout),
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn exported_scripts_and_reports_match_their_golden_files() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/export");
    let mut cases: Vec<_> = std::fs::read_dir(&folder)
        .expect("tests/export exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 4, "the export cases are missing");
    let bless = std::env::var_os("TIDEMARK_BLESS").is_some();
    let mut failures = Vec::new();
    for case in &cases {
        let actual = export(case);
        let expected_path = case.with_extension("out");
        if bless {
            std::fs::write(&expected_path, &actual).expect("writable");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{}:\n{}",
                case.display(),
                similar::TextDiff::from_lines(&expected, &actual)
                    .unified_diff()
                    .header("expected", "actual")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
